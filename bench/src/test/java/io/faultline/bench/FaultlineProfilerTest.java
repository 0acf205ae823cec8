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
 * The JMH profiler on a tiny benchmark, one fork and one short iteration: its fork runs under
 * faultline record, the secondary results are the trace header's totals, and the trace is one
 * {@code faultline info} reads.
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
            "faultline.pages", "faultline.reads", "faultline.writes", "faultline.ring_waits", "faultline.trace")),
            secondary.keySet().toString());
        final Path trace = Path.of(secondary.get("faultline.trace").extendedInfo());
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertTrue(header.isComplete(), header.values().toString());
        assertEquals(evms, header.longValue(TraceHeader.EVMS_PAGES));
        final long references = header.longValue(TraceHeader.REFERENCES);
        assertTrue(references > 0, header.values().toString());
        assertEquals(references, secondary.get("faultline.references").getScore());
        assertEquals(header.longValue(TraceHeader.DISTINCT_PAGES), secondary.get("faultline.pages").getScore());
        assertEquals(header.longValue(TraceHeader.READS), secondary.get("faultline.reads").getScore());
        assertEquals(header.longValue(TraceHeader.WRITES), secondary.get("faultline.writes").getScore());
        assertEquals(header.longValue(TraceHeader.RING_WAITS), secondary.get("faultline.ring_waits").getScore());
        assertTrue(secondary.get("faultline.refs/op").getScore() > 0);

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Main.run(new String[] {"info", trace.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("evms " + evms + " pages"), out.toString());
    }

    @Test
    void fromTheCommandLine() throws Exception
    {
        final Path dir = tmp.resolve("cli");
        final CommandLineOptions options = new CommandLineOptions(TinyBenchmark.class.getName() + ".sweep", "-f", "1",
            "-wi", "0", "-i", "1", "-r", "200ms", "-jvmArgs", SMALL_JVM, "-prof",
            FaultlineProfiler.class.getName() + ":evms=512;scope=all;dir=" + dir);
        assertResultsAreTheTrace(new Runner(options).run(), 512);
        try (var traces = Files.list(dir))
        {
            assertEquals(1, traces.count());
        }
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
