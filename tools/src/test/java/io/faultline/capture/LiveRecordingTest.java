package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code record --live} against the offline tools: recorded with {@code -o} as well, its curve
 * and its policies' results equal, byte for byte, what {@code mrc} and {@code simulate} write for
 * the trace it kept; on threads of one process and on processes that run at once over the same
 * addresses (whose interleaving the replay must put back in seq order). Without {@code -o} it
 * keeps nothing.
 */
class LiveRecordingTest
{
    private static final String POLICIES = "lru,clock,arc,lirs,2q,s3fifo";

    @TempDir
    Path tmp;

    /** Records {@code program} with --live and -o, replays the trace with mrc and simulate, compares the files. */
    private List<String> liveEqualsOffline(final String sizes, final List<String> program, final boolean hold,
        final String... extra) throws Exception
    {
        final Path trace = tmp.resolve("trace");
        final List<String> record = new ArrayList<>(List.of("record", "--live", "-o", trace.toString(),
            "--policies", POLICIES, "--sizes", sizes, "--mrc-csv", tmp.resolve("live-mrc.csv").toString(),
            "--csv", tmp.resolve("live-sim.csv").toString(), "--mrc-plot", tmp.resolve("live-mrc.svg").toString()));
        record.addAll(List.of(extra));
        record.add("--");
        record.addAll(program);
        final ProcessBuilder builder = Faultline.builder(record);
        // spill files, if the replay falls behind its small backlog, go here and must be gone at the end
        builder.environment().put("FAULTLINE_JAVA_OPTS", "-XX:TieredStopAtLevel=1 -Djava.io.tmpdir=" + spillDir());
        if (hold)
        {
            builder.environment().put("FAULTLINE_TEST_LIVE_HOLD", "1");
        }
        final Faultline.Result live = Faultline.finish(builder, 180);
        assertEquals(0, live.status(), live.describe());
        assertTrue(live.err().contains("--live replayed"), live.describe());
        if (hold)
        {
            // every reference waited for the end, beyond the heap's 64K: most went through spill files
            assertTrue(live.err().contains("by way of a spill file"), live.describe());
        }
        assertFalse(live.err().contains("warning"), live.describe());

        final Faultline.Result mrc = Faultline.run(List.of("mrc", "--csv", tmp.resolve("mrc.csv").toString(),
            trace.toString()), 120);
        assertEquals(0, mrc.status(), mrc.describe());
        final Faultline.Result simulate = Faultline.run(List.of("simulate", "--policies", POLICIES, "--sizes", sizes,
            "--csv", tmp.resolve("sim.csv").toString(), trace.toString()), 120);
        assertEquals(0, simulate.status(), simulate.describe());
        assertEquals(Files.readString(tmp.resolve("mrc.csv")), Files.readString(tmp.resolve("live-mrc.csv")),
            "the live curve is mrc's");
        assertEquals(Files.readString(tmp.resolve("sim.csv")), Files.readString(tmp.resolve("live-sim.csv")),
            "the live policies' results are simulate's");
        assertTrue(Files.readAllLines(tmp.resolve("mrc.csv")).size() > 100, "a curve of more than 100 sizes");
        final String chart = Files.readString(tmp.resolve("live-mrc.svg"));
        assertTrue(chart.startsWith("<?xml") && chart.contains("<svg") && live.err().contains("chart"),
            "--mrc-plot draws the curve: " + chart.length() + " chars");
        try (Stream<Path> left = Files.list(spillDir()))
        {
            // (the agent library is unpacked there too)
            assertEquals(List.of(), left.filter(f -> f.getFileName().toString().startsWith("faultline-live-")).toList(),
                "no spill file is left");
        }
        return Files.readAllLines(tmp.resolve("mrc.csv"));
    }

    private Path spillDir() throws Exception
    {
        return Files.createDirectories(tmp.resolve("spill"));
    }

    @Test
    void threadsOfOneProcessGiveTheCurveAndResultsOfMrcAndSimulate() throws Exception
    {
        // 3 workers writing 300 pages each twice, at sizes below, across and above their footprint
        liveEqualsOffline("16,200,600,4M", List.of(Workloads.build("threads").toString(), "3", "300"), false,
            "--evms", "16", "--live-backlog", "64K");
    }

    /**
     * Three processes at once, and a replay held back until the recording ends
     * (FAULTLINE_TEST_LIVE_HOLD), as one that falls behind all the way: the backlog spills past
     * its 64K in the heap, and the results are still mrc's and simulate's.
     */
    @Test
    void processesRunningAtOnceOverTheSameAddressesGiveTheCurveAndResultsOfMrcAndSimulate() throws Exception
    {
        final List<String> curve = liveEqualsOffline("16,100,200,256",
            List.of(Workloads.build("twins").toString(), "3", "256", "10"), true, "--evms", "16", "--live-backlog", "64K");
        // each process's 256 pages are its own, though all three use the same addresses (PageKey):
        // at the curve's largest size every miss is a first reference
        final long[] last = Arrays.stream(curve.get(curve.size() - 1).split(",")).limit(2).mapToLong(Long::parseLong)
            .toArray();
        assertTrue(last[1] >= 3 * 256, "distinct pages of three processes: " + last[1]);
    }

    @Test
    void withoutAnOutputDirectoryNothingIsKeptAndTheCurveGoesToStandardOutput() throws Exception
    {
        final ProcessBuilder builder = Faultline.builder(List.of("record", "--live", "--evms", "16", "--",
            Workloads.build("twins").toString(), "2", "64", "4"));
        builder.directory(tmp.toFile());
        builder.environment().put("FAULTLINE_JAVA_OPTS", "-XX:TieredStopAtLevel=1 -Djava.io.tmpdir=" + spillDir());
        final Faultline.Result live = Faultline.finish(builder, 120);
        assertEquals(0, live.status(), live.describe());
        assertTrue(live.err().contains("into no trace (no -o)"), live.describe());
        final List<String> lines = live.out().lines().toList();
        final int header = lines.indexOf("size,misses,miss_ratio");
        assertTrue(header >= 0 && lines.get(header - 1).startsWith("twins ok "), live.describe());
        // 2 processes x 64 pages x 4 rounds, and a few of the program's own pages
        final String[] last = lines.get(lines.size() - 1).split(",");
        assertTrue(Long.parseLong(last[1]) >= 64, live.describe());
        try (Stream<Path> left = Files.list(tmp))
        {
            assertEquals(List.of(tmp.resolve("spill")), left.toList(), "nothing is written beside it");
        }
    }

    /** --max-size bounds the live curve as it bounds mrc's: the same CSV, 100 sizes. */
    @Test
    void theLiveCurveStopsAtMaxSizeAsMrcDoes() throws Exception
    {
        final Path trace = tmp.resolve("trace");
        final ProcessBuilder builder = Faultline.builder(List.of("record", "--live", "-o", trace.toString(), "--evms",
            "16", "--max-size", "100", "--mrc-csv", tmp.resolve("live.csv").toString(), "--",
            Workloads.build("twins").toString(), "2", "128", "4"));
        builder.environment().put("FAULTLINE_JAVA_OPTS", "-XX:TieredStopAtLevel=1 -Djava.io.tmpdir=" + spillDir());
        final Faultline.Result live = Faultline.finish(builder, 120);
        assertEquals(0, live.status(), live.describe());
        final Faultline.Result mrc = Faultline.run(List.of("mrc", "--max-size", "100", "--csv",
            tmp.resolve("mrc.csv").toString(), trace.toString()), 120);
        assertEquals(0, mrc.status(), mrc.describe());
        final List<String> curve = Files.readAllLines(tmp.resolve("live.csv"));
        assertEquals(Files.readAllLines(tmp.resolve("mrc.csv")), curve);
        assertEquals(101, curve.size(), "a header and sizes 1 to 100");
    }

    @Test
    void liveOptionsAreRefusedInOneLineWhereTheyCannotApply() throws Exception
    {
        final String program = Workloads.build("twins").toString();
        final List<List<String>> cases = List.of(
            List.of("record", "-o", tmp.resolve("a").toString(), "--policies", "lru", "--sizes", "64", "--", program),
            List.of("record", "--live", "--policies", "lru,opt", "--sizes", "64", "--", program),
            List.of("record", "--live", "--policies", "lru", "--", program),
            List.of("record", "--live", "--mode", "moca", "--", program),
            List.of("record", "--", program),
            List.of("record", "--live", "--mrc-plot", tmp.resolve("curve.jpg").toString(), "--", program),
            List.of("record", "-o", tmp.resolve("b").toString(), "--mrc-plot", tmp.resolve("c.png").toString(), "--",
                program),
            List.of("record", "-o", tmp.resolve("d").toString(), "--max-size", "64", "--", program));
        final List<String> expected = List.of("--policies applies to --live", "opt needs every future reference",
            "missing --sizes for --policies", "--live replays references, and a Moca recording",
            "missing -o DIR", "--mrc-plot: ", "--mrc-plot applies to --live", "--max-size applies to --live");
        for (int i = 0; i < cases.size(); i++)
        {
            final Faultline.Result result = Faultline.run(cases.get(i), 60);
            assertEquals(2, result.status(), result.describe());
            assertTrue(result.err().contains(expected.get(i)), result.describe());
            assertEquals(1, result.err().lines().count(), result.describe());
            assertFalse(result.out().contains("twins ok"), "the program never ran: " + result.describe());
        }
    }
}
