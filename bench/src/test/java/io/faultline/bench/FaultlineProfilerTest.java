package io.faultline.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.jmh.FaultlineProfiler;
import io.faultline.tools.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JMH profiler on a tiny benchmark, one fork and short iterations: its fork runs under
 * faultline record, the secondary results count the references of the measurement iterations
 * only, and the trace is one {@code faultline info} reads.
 */
class FaultlineProfilerTest
{
    /** A fork that touches little memory: every page of a traced JVM costs traps (seconds on a busy machine). */
    private static final String SMALL_JVM = "-Xmx32m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    @TempDir
    Path tmp;

    private static void assertResultsAreTheTrace(final Collection<RunResult> runs, final int evms) throws Exception
    {
        assertEquals(1, runs.size());
        final Map<String, Result> secondary = runs.iterator().next().getAggregatedResult().getSecondaryResults();
        assertTrue(secondary.keySet().containsAll(java.util.List.of("faultline.refs/op", "faultline.references",
            "faultline.pages", "faultline.read_faults", "faultline.write_faults", "faultline.written_pages",
            "faultline.ring_waits", "faultline.trace")),
            secondary.keySet().toString());
        final Path trace = Path.of(secondary.get("faultline.trace").extendedInfo());
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertTrue(header.isComplete(), header.values().toString());
        assertEquals(evms, header.longValue(TraceHeader.EVMS_PAGES));
        final long references = header.longValue(TraceHeader.REFERENCES);
        final double measured = secondary.get("faultline.references").getScore();
        // JVM start and JMH's set-up are outside the measurement iterations
        assertTrue(measured > 0 && measured < references, measured + " of " + references);
        assertEquals(measured, secondary.get("faultline.read_faults").getScore()
            + secondary.get("faultline.write_faults").getScore());
        assertTrue(secondary.get("faultline.written_pages").getScore() <= header.longValue(TraceHeader.DISTINCT_PAGES));
        assertTrue(secondary.get("faultline.pages").getScore() <= header.longValue(TraceHeader.DISTINCT_PAGES));
        assertEquals(header.longValue(TraceHeader.RING_WAITS), secondary.get("faultline.ring_waits").getScore());
        assertTrue(secondary.get("faultline.refs/op").getScore() > 0);

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Main.run(new String[] {"info", trace.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("evms " + evms + " pages"), out.toString());
    }

    /**
     * Every operation of everyPage touches 1,024 pages in turn, more than the EVMS holds, so it
     * traps each of them: refs/op of the measurement is 1,024 and what the benchmark's thread and
     * the JVM's others reference besides: the harness's own work at each iteration's start and
     * end, and compiler threads: 1,377 and 1,698 per operation in two runs on the loaded 2-core
     * machine here, where an iteration of 300 ms held one or two operations. Counted over the
     * whole fork (112,007 references in the second run), JVM start and the warmup would give
     * tens of thousands per operation.
     */
    @Test
    void fromTheCommandLineCountsOnlyTheMeasurementIterations() throws Exception
    {
        final Path dir = tmp.resolve("cli");
        final CommandLineOptions options = new CommandLineOptions(TinyBenchmark.class.getName() + ".everyPage", "-f",
            "1", "-wi", "1", "-w", "100ms", "-i", "1", "-r", "300ms", "-jvmArgs", SMALL_JVM, "-prof",
            FaultlineProfiler.class.getName() + ":evms=512;scope=all;dir=" + dir);
        final Collection<RunResult> runs = new Runner(options).run();
        assertResultsAreTheTrace(runs, 512);
        final double refsPerOp = runs.iterator().next().getAggregatedResult().getSecondaryResults()
            .get("faultline.refs/op").getScore();
        final double total = TraceHeader.read(Path.of(runs.iterator().next().getAggregatedResult()
            .getSecondaryResults().get("faultline.trace").extendedInfo()).resolve(TraceLayout.HEADER_FILE))
            .longValue(TraceHeader.REFERENCES);
        final double ops = runs.iterator().next().getAggregatedResult().getSecondaryResults()
            .get("faultline.references").getScore() / refsPerOp;
        assertTrue(refsPerOp >= TinyBenchmark.PAGES && refsPerOp < TinyBenchmark.PAGES * 3,
            "refs/op " + refsPerOp + " over " + ops + " operations; the fork's whole trace has " + total);
        try (var files = Files.list(dir))
        {
            // the trace and the fork's iteration windows, one warmup and one measurement
            assertEquals(2, files.count());
        }
        final Path trace = Path.of(runs.iterator().next().getAggregatedResult().getSecondaryResults()
            .get("faultline.trace").extendedInfo());
        assertEquals(java.util.List.of("warmup", "measurement"), Files.readAllLines(trace.resolveSibling(
            trace.getFileName() + ".iterations")).stream().map(line -> line.split(" ")[0]).toList());
    }

    @Test
    void fromOptionsBuilder() throws Exception
    {
        final Path dir = tmp.resolve("builder");
        final OptionsBuilder options = new OptionsBuilder();
        options.include(TinyBenchmark.class.getName() + ".sweep").forks(1).warmupIterations(0).measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(200)).jvmArgs(SMALL_JVM.split(" "))
            .addProfiler(FaultlineProfiler.class, "evms=2048;dir=" + dir);
        assertResultsAreTheTrace(new Runner(options.build()).run(), 2048);
    }
}
