package io.faultline.sim.report;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class ProgressTest
{
    @Test
    void lineShowsCountRateAndTimeLeftWhenTheTotalIsKnown()
    {
        // 2.5 M done in 1 s: 2.5 M/s; 7.5 M left at that rate: 3 s.
        assertEquals("Simulating: 2,500,000 of 10,000,000 references (25%), 2.5 M/s, 3 s left",
            Progress.line("Simulating", 2_500_000, 10_000_000, 1_000_000_000L));
        assertEquals("Reading t.txt: 1,500 references, 750 /s", Progress.line("Reading t.txt", 1_500, -1, 2_000_000_000L));
        assertEquals("Reading t: 0 of 10 references (0%), 0 /s", Progress.line("Reading t", 0, 10, 5_000_000L));
    }

    @Test
    void ratesAndDurationsReadAtAGlance()
    {
        assertEquals("12.3 k/s", Progress.rate(12_345));
        assertEquals("59 s", Progress.duration(59));
        assertEquals("2 min 5 s", Progress.duration(125));
        assertEquals("1 h 1 min", Progress.duration(3_700));
    }

    @Test
    void nothingIsPrintedWhereStderrIsNotATerminal() throws InterruptedException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress progress = Progress.start(err, false, "Reading", 10, () -> 5))
        {
            Thread.sleep(1_500);
        }
        assertEquals("", bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void onATerminalTheLineIsRedrawnInPlaceAndErasedAtTheEnd() throws InterruptedException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress progress = Progress.start(err, true, "Reading", 10, () -> 5))
        {
            // The first drawing comes after 1 s; wait until it has.
            while (bytes.size() == 0)
            {
                Thread.sleep(50);
            }
        }
        final String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(true, out.startsWith("\rReading: 5 of 10 references (50%), "), out);
        assertEquals(true, out.endsWith("\r\033[K"), out);
        assertFalse(out.contains("\n"), "never a new line: " + out);
    }
}
