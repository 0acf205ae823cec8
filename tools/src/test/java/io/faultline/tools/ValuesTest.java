package io.faultline.tools;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The one grammar of sizes, durations and whole numbers, and its error messages. */
class ValuesTest
{
    @Test
    void sizeSuffixesArePowersOf1024InAnyCaseAndSpelling()
    {
        assertEquals(256, Size.parse("256").bytes());
        for (final String k : new String[] {"4K", "4k", "4KB", "4KiB", "4kib"})
        {
            assertEquals(4096, Size.parse(k).bytes(), k);
        }
        assertEquals(3L << 20, Size.parse("3M").bytes());
        assertEquals(3L << 20, Size.parse("3MiB").bytes());
        assertEquals(2L << 30, Size.parse("2G").bytes());
        assertEquals(2L << 30, Size.parse("2GiB").bytes());
        assertEquals(2L << 30, Size.parse(" 2GB ").bytes());
    }

    @Test
    void plainNumbersCountPagesAndSuffixedOnesBytesAtThePageSize()
    {
        assertEquals(64, Size.parse("64").pages(4096, "--sizes"));
        assertEquals(256, Size.parse("1M").pages(4096, "--sizes"));
        assertEquals(128, Size.parse("1MiB").pages(8192, "--sizes"));
        assertEquals("--sizes: '1K' is not a whole number of 4096-byte pages; give a multiple of the page size",
            assertThrows(CliException.class, () -> Size.parse("1K").pages(4096, "--sizes")).getMessage());
    }

    @Test
    void badSizesNameTheTextAndTheFix()
    {
        for (final String bad : new String[] {"", "K", "big", "1.5M", "-4", "4T", "4 M B", "0x10"})
        {
            assertEquals("'" + bad + "' is not a size; give a whole number, or bytes with K, M, G, KiB, MiB or GiB (4M)",
                assertThrows(IllegalArgumentException.class, () -> Size.parse(bad)).getMessage(), bad);
        }
        assertEquals("'9999999999G' is too large",
            assertThrows(IllegalArgumentException.class, () -> Size.parse("9999999999G")).getMessage());
    }

    @Test
    void durationsTakeNsUsMsSAndMinutesWithExactFractions()
    {
        assertEquals(Duration.ofNanos(7), Values.duration("7ns"));
        assertEquals(Duration.ofNanos(10_000), Values.duration("10us"));
        assertEquals(Duration.ofMillis(250), Values.duration("250ms"));
        assertEquals(Duration.ofMillis(1500), Values.duration("1.5s"));
        assertEquals(Duration.ofNanos(100_000_001), Values.duration("0.100000001s"));
        assertEquals(Duration.ofMinutes(2), Values.duration("2m"));
        assertEquals(Duration.ofNanos(1), Values.duration("1.9ns"), "below a nanosecond rounds down");
        for (final String bad : new String[] {"3", "s", "1.s", "5h", "-1s", "1e3ms"})
        {
            assertEquals("'" + bad + "' is not a duration; give a number with ns, us, ms, s or m (250ms, 1.5s)",
                assertThrows(TypeConversionException.class, () -> Values.duration(bad)).getMessage(), bad);
        }
    }

    @Test
    void wholeNumbers()
    {
        assertEquals(12, Values.wholeInt("12"));
        assertEquals(-3, Values.wholeInt("-3"));
        assertEquals(1L << 40, Values.wholeLong("1099511627776"));
        for (final String bad : new String[] {"", "-", "x", "1.0", "1e3", "0x10", "+5"})
        {
            assertEquals("'" + bad + "' is not a whole number",
                assertThrows(TypeConversionException.class, () -> Values.wholeInt(bad)).getMessage(), bad);
        }
        assertEquals("'2147483648' is too large",
            assertThrows(TypeConversionException.class, () -> Values.wholeInt("2147483648")).getMessage());
    }

    @Test
    void rangesNameTheOptionTheBoundsAndTheValue()
    {
        assertEquals(5, Values.between("--evms", 5, 1, 10));
        assertEquals("--evms must be between 1 and 10: 11",
            assertThrows(CliException.class, () -> Values.between("--evms", 11, 1, 10)).getMessage());
        assertEquals("--threads must be at least 1: 0",
            assertThrows(CliException.class, () -> Values.atLeast("--threads", 0, 1)).getMessage());
    }
}
