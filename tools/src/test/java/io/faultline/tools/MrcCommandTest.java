package io.faultline.tools;

import io.faultline.sim.trace.FaultlineTraces;
import io.faultline.sim.trace.SharedTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MrcCommandTest
{
    @TempDir
    Path tmp;

    private final String cloud = SharedTraces.cloudPhysicsIO().toString();

    @Test
    void aMaxSizeBeyondTheDistinctPagesEndsTheCurveThereAndSaysSoOnce() throws java.io.IOException
    {
        // 3 distinct pages; a hundred million sizes would add 99,999,997 identical lines
        final Path dir = io.faultline.sim.trace.FaultlineTraces.write(tmp.resolve("t"), 4096,
            new long[] {1, 11, 0x0000, 0x1000, 0x2000, 0x0008, 0x1010, 0x2fff});
        final CommandRun run = CommandRun.of("mrc", "--max-size", "100000000", dir.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals(List.of("size,misses,miss_ratio", "1,6,1.000000", "2,6,1.000000", "3,3,0.500000"),
            run.out().lines().toList());
        assertEquals(1, run.err().lines().filter(l -> l.startsWith("note:")).count(), run.err());
        assertTrue(run.err().contains("note: --max-size 100000000 is beyond the trace's 3 distinct pages; the curve "
            + "ends at 3, where every page fits: larger sizes miss only first references"), run.err());
        final CommandRun sampled = CommandRun.of("mrc", "--max-size", "2147483639", "--sample", "1", dir.toString());
        assertEquals(4, sampled.out().lines().count(), sampled.toString());
    }

    @Test
    void printsTheExactCurveAsCsvOnStandardOutput()
    {
        final CommandRun run = CommandRun.of("mrc", "--format", "lcs-txt", "--max-size", "1024", cloud);
        assertEquals(0, run.status(), run.toString());
        final List<String> lines = run.out().lines().toList();
        assertEquals(1025, lines.size());
        assertEquals("size,misses,miss_ratio", lines.get(0));
        assertEquals("1,111187,0.976421", lines.get(1));
        assertEquals("5,108968,0.956934", lines.get(5));
        assertEquals("20,105561,0.927015", lines.get(20));
        assertEquals("128,99411,0.873007", lines.get(128));
        assertEquals("1024,94816,0.832654", lines.get(1024));
        assertTrue(run.err().contains("Computed 1 exact curve over 113,872 references (48,974 distinct pages) in "),
            run.err());
    }

    @Test
    void writesCsvToEveryDistinctPageAndAnSvgChart() throws IOException
    {
        final Path csv = tmp.resolve("mrc.csv");
        final Path svg = tmp.resolve("mrc.svg");
        final CommandRun run = CommandRun.of("mrc", "--format", "lcs-txt", "--csv", csv.toString(),
            "--plot", svg.toString(), cloud);
        assertEquals(0, run.status(), run.toString());
        assertEquals("", run.out());
        final List<String> lines = Files.readAllLines(csv);
        assertEquals(48_975, lines.size());
        assertEquals("size,misses,miss_ratio", lines.get(0));
        assertEquals("256,96397,0.846538", lines.get(256));
        assertEquals("48974,48974,0.430079", lines.get(48_974));
        assertTrue(Files.readString(svg).contains("<svg"));
        assertTrue(run.err().contains("Wrote miss-ratio curve as CSV to " + csv), run.err());
        assertTrue(run.err().contains("Wrote chart to " + svg), run.err());
    }

    @Test
    void sampledCurveCoversTheEstimatedDistinctPages() throws IOException
    {
        final Path png = tmp.resolve("mrc.png");
        final CommandRun run = CommandRun.of("mrc", "--format", "address", "--sample", "0.1", "--plot", png.toString(),
            SharedTraces.addressGzip().toString());
        assertEquals(0, run.status(), run.toString());
        final List<String> lines = run.out().lines().toList();
        assertEquals("size,misses,miss_ratio", lines.get(0));
        assertEquals(39_856, lines.size() - 1, 39_856 * 0.05);
        assertTrue(run.err().contains("Computed 1 SHARDS curve over 481,044 references (about "), run.err());
        assertArrayEquals(new byte[] {(byte)0x89, 'P', 'N', 'G'}, java.util.Arrays.copyOf(Files.readAllBytes(png), 4));
    }

    @Test
    void perThreadGivesOneCurvePerThread() throws IOException
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096,
            new long[] {1, 11, 0x1000, 0x2000, 0x1000},
            new long[] {1, 12, 0x5000, 0x5008},
            new long[] {1, 11, 0x3000, 0x2000});
        final CommandRun run = CommandRun.of("mrc", "--per-thread", dir.toString());
        assertEquals(0, run.status(), run.toString());
        // tid 11: pages 1 2 1 3 2 -> distances inf inf 2 inf 3; tid 12: 5 5 -> inf 1.
        assertEquals(String.join("\n",
            "tid,size,misses,miss_ratio",
            "11,1,5,1.000000",
            "11,2,4,0.800000",
            "11,3,3,0.600000",
            "12,1,1,0.500000",
            ""), run.out());

        final CommandRun one = CommandRun.of("mrc", "--tid", "12", dir.toString());
        assertEquals("size,misses,miss_ratio\n1,1,0.500000\n", one.out(), one.toString());
    }

    @Test
    void badInputIsOneLineWithExitStatusTwo() throws IOException
    {
        final Path lirs = tmp.resolve("small.lirs");
        Files.writeString(lirs, "1\n2\n");
        final String file = lirs.toString();
        assertOneLine("faultline mrc: --per-thread needs a faultline trace, which records threads; "
            + file + " is read as lirs", "mrc", "--format", "lirs", "--per-thread", file);
        assertOneLine("faultline mrc: --sample takes a rate in (0, 1], e.g. 0.1, not '1.5'", "mrc", "--sample", "1.5", file);
        assertOneLine("faultline mrc: one TRACE at a time, got 2; run faultline mrc once per trace",
            "mrc", "--format", "lirs", file, file);
        assertOneLine("faultline mrc: missing TRACE; give one trace file or directory", "mrc", "--format", "lirs");
        assertOneLine("faultline mrc: cannot tell the plot format of 'a.pdf'; name it with .png or .svg",
            "mrc", "--format", "lirs", "--plot", "a.pdf", file);
        assertOneLine("faultline mrc: --max-size: 'lots' is not a size; give a whole number, or bytes with K, M, G, "
            + "KiB, MiB or GiB (4M)",
            "mrc", "--format", "lirs", "--max-size", "lots", file);
        assertOneLine("faultline mrc: --page-size must be at least 1: 0",
            "mrc", "--format", "address", "--page-size", "0", file);
        assertOneLine("faultline mrc: --csv needs a value", "mrc", "--format", "lirs", file, "--csv");

        Files.writeString(lirs, "*\n\n");
        final CommandRun empty = CommandRun.of("mrc", "--format", "lirs", file);
        assertEquals(4, empty.status(), "an input that does not parse");
        assertEquals("faultline mrc: " + file + ": the trace holds no reference (format lirs)", empty.lastErrLine());

        final Path lackey = tmp.resolve("lackey.out");
        Files.writeString(lackey, "I  0400d7d4,8\n S 7ff000398\n");
        final CommandRun malformed = CommandRun.of("mrc", "--format", "lackey", lackey.toString());
        assertEquals(4, malformed.status(), "a corrupt input");
        assertEquals("faultline mrc: " + lackey + ":2: expected ADDRESS,SIZE: ' S 7ff000398'", malformed.lastErrLine());
        assertEquals("", malformed.out());
    }

    @Test
    void helpPrintsUsage()
    {
        final CommandRun run = CommandRun.of("mrc", "--help");
        assertEquals(0, run.status());
        assertTrue(run.out().startsWith("usage: faultline mrc [--format F] [--max-size N] [--sample R]"), run.out());
    }

    private static void assertOneLine(final String expected, final String... args)
    {
        final CommandRun run = CommandRun.of(args);
        assertEquals(2, run.status(), run.toString());
        assertEquals(expected + System.lineSeparator(), run.err());
        assertEquals("", run.out());
    }
}
