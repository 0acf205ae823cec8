package io.faultline.format;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real trace (the format-3 recording of Format3TraceTest, upgraded to format 4 in blocks of
 * at most 512 items, so that its 21,000 items lie in 50 blocks of four processes) damaged in its
 * queue file, 1,000 times in CI (bench/fuzz.sh: many more, -Dfaultline.fuzz.cases=N, and other seeds,
 * -Dfaultline.fuzz.seed=S):
 * bytes overwritten at random, runs of random bytes, of 0xFF and of zeros, single bits flipped,
 * the file cut short. Each case is read strictly and with --skip-corrupt, and every read:
 * <ul>
 *   <li>ends within 10 s with the items, or one line that carries no exception text;</li>
 *   <li>delivers nothing that was not written, in the order it was written (what it delivers is
 *       a subsequence of the undamaged trace's items): zero silent misreads;</li>
 *   <li>delivers everything, or says so (an error, or a note of damage, of skipped excerpts or of
 *       a break);</li>
 *   <li>with --skip-corrupt, says how many references it skipped: exactly those it did not deliver.</li>
 * </ul>
 */
class TraceDamageFuzzTest
{
    static final int CASES = Integer.getInteger("faultline.fuzz.cases", 1000);

    @TempDir
    static Path tmp;

    private static Path trace;
    private static Path queueFile;
    private static byte[] pristine;
    private static List<String> written;
    private static long references;

    @BeforeAll
    static void upgrade() throws IOException
    {
        trace = tmp.resolve("trace");
        try (TraceReader reader = TraceReader.open(Format3TraceTest.FIXTURE))
        {
            TraceUpgrade.upgrade(reader, trace, 512);
        }
        try (Stream<Path> files = Files.list(trace.resolve(TraceLayout.QUEUE_DIR)))
        {
            queueFile = files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        pristine = Files.readAllBytes(queueFile);
        try (TraceReader reader = TraceReader.open(trace))
        {
            written = Format3TraceTest.everything(reader);
            references = reader.scan().references();
            assertTrue(reader.scan().excerpts() >= 40, "blocks: " + reader.scan().excerpts());
        }
    }

    @Test
    void damagedQueuesAreReadOrNamedNeverMisread() throws IOException
    {
        final Random random = new Random(Long.getLong("faultline.fuzz.seed", 20261128L));
        // the written part of the file: past it the trim left zeros
        int end = pristine.length;
        while (end > 0 && pristine[end - 1] == 0)
        {
            end--;
        }
        int damagedReads = 0;
        for (int i = 0; i < CASES; i++)
        {
            final byte[] bytes = pristine.clone();
            final String what = damage(random, bytes, end);
            Files.write(queueFile, bytes);
            damagedReads += check(what) ? 1 : 0;
        }
        Files.write(queueFile, pristine);
        // the damage mostly lands in the trace's blocks, where nothing passes the checksums
        assertTrue(damagedReads > CASES / 2, damagedReads + " of " + CASES + " cases were found damaged");
    }

    /** Damages {@code bytes} (written up to {@code end}) one way, chosen at random; says how. */
    private static String damage(final Random random, final byte[] bytes, final int end)
    {
        final int at = random.nextInt(end);
        switch (random.nextInt(6))
        {
            case 0 ->
            {
                final int n = 1 + random.nextInt(8);
                for (int k = 0; k < n && at + k < bytes.length; k++)
                {
                    bytes[at + k] = (byte)random.nextInt(256);
                }
                return n + " random bytes at " + at;
            }
            case 1 ->
            {
                final int n = 16 + random.nextInt(4096);
                for (int k = 0; k < n && at + k < bytes.length; k++)
                {
                    bytes[at + k] = (byte)random.nextInt(256);
                }
                return n + " random bytes from " + at;
            }
            case 2 ->
            {
                final int n = 1 + random.nextInt(256);
                Arrays.fill(bytes, at, Math.min(bytes.length, at + n), (byte)0xff);
                return n + " bytes of 0xFF from " + at;
            }
            case 3 ->
            {
                final int n = 4 + random.nextInt(512);
                Arrays.fill(bytes, at, Math.min(bytes.length, at + n), (byte)0);
                return n + " zero bytes from " + at;
            }
            case 4 ->
            {
                final int bit = random.nextInt(8);
                bytes[at] ^= (byte)(1 << bit);
                return "bit " + bit + " of byte " + at + " flipped";
            }
            default ->
            {
                // cut short: the trim leaves the zeros a copy would, so the cut is of the file itself
                Arrays.fill(bytes, at, bytes.length, (byte)0);
                return "cut at " + at;
            }
        }
    }

    /** @return whether the damage was found (an error, or a note) */
    private static boolean check(final String what)
    {
        boolean found = false;
        for (final boolean skip : new boolean[] {false, true})
        {
            final boolean[] said = {false};
            assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
            {
                final List<String> seen = new ArrayList<>();
                ReadSummary summary = null;
                try (TraceReader reader = TraceReader.open(trace, skip))
                {
                    summary = Format3TraceTest.everything(reader, seen);
                    for (final String note : summary.notes(trace))
                    {
                        assertOneCleanLine(note, what);
                        said[0] = true;
                    }
                }
                catch (final TraceFormatException ex)
                {
                    assertOneCleanLine(ex.getMessage(), what);
                    said[0] = true;
                }
                catch (final Throwable ex)
                {
                    fail(what + (skip ? " (skipping)" : "") + ": " + ex, ex);
                }
                assertSubsequence(seen, what);
                if (!said[0])
                {
                    assertEquals(written, seen, what + ": nothing said, so everything must be delivered");
                }
                if (skip && summary != null)
                {
                    final long delivered = seen.stream().filter(l -> !l.startsWith("--")).count();
                    assertEquals(references - delivered, summary.skippedReferences() < 0 ? references - delivered
                        : summary.skippedReferences(), what + ": the references skipped are those not delivered");
                }
            }, what);
            found |= said[0];
        }
        return found;
    }

    /** Every delivered line was written, in the order written: nothing made up, nothing moved. */
    private static void assertSubsequence(final List<String> seen, final String what)
    {
        int w = 0;
        for (final String line : seen)
        {
            while (w < written.size() && !written.get(w).equals(line))
            {
                w++;
            }
            assertTrue(w < written.size(), what + ": delivered what was not written there: " + line);
            w++;
        }
    }

    private static void assertOneCleanLine(final String message, final String what)
    {
        assertFalse(message.contains("\n"), what + ": " + message);
        for (final String leak : new String[] {"java.", "Exception", "Error", "net.openhft", "luben"})
        {
            assertFalse(message.contains(leak), what + ": " + message);
        }
    }
}
