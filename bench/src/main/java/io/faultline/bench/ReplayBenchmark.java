package io.faultline.bench;

import io.faultline.sim.Policies;
import io.faultline.sim.PolicySpec;
import io.faultline.sim.SimulationResult;
import io.faultline.sim.Simulator;
import io.faultline.sim.mrc.MissRatioCurve;
import io.faultline.sim.mrc.MissRatioCurves;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * Replay speed on libCacheSim's cloudPhysicsIO trace (113,872 references, found in
 * {@code shared/traces} above the working directory, or at {@code -Dfaultline.traces=DIR}):
 * LRU at 1024 pages and the exact one-pass MRC, in references per second; and a sweep of every
 * policy at 8 sizes on one thread against every core, in seconds per sweep.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReplayBenchmark
{
    /** Length of cloudPhysicsIO.txt: one JMH operation is one reference. */
    static final int REFERENCES = 113_872;

    static final int[] SWEEP_SIZES = {128, 256, 512, 1024, 2048, 4096, 8192, 16384};

    long[] trace;
    PolicySpec lru;
    List<PolicySpec> everyPolicy;

    @Setup
    public void readTrace() throws IOException
    {
        final Path file = locate("cloudPhysicsIO.txt");
        trace = TraceFormats.read(TraceFormats.get("lcs-txt"), file, TraceOptions.defaults()).toArray();
        if (trace.length != REFERENCES)
        {
            throw new IllegalStateException("expected " + REFERENCES + " references in " + file + ", read " + trace.length);
        }
        lru = PolicySpec.parse("lru");
        everyPolicy = new ArrayList<>();
        for (final String name : Policies.names())
        {
            everyPolicy.add(PolicySpec.parse(name));
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(REFERENCES)
    public long lruReplayAt1024()
    {
        return Simulator.run(lru, 1024, trace).misses();
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(REFERENCES)
    public MissRatioCurve exactMrc()
    {
        return MissRatioCurves.exact(trace, OptionalInt.empty());
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @Warmup(iterations = 2, time = 5)
    @Measurement(iterations = 3, time = 5)
    public List<SimulationResult> sweepEveryPolicy(final SweepThreads sweep)
    {
        final int threads = sweep.threads == 0 ? Runtime.getRuntime().availableProcessors() : sweep.threads;
        return Simulator.sweep(everyPolicy, SWEEP_SIZES, trace, threads);
    }

    /** Threads for the sweep: 1, or 0 for every core. */
    @State(Scope.Benchmark)
    public static class SweepThreads
    {
        @Param({"1", "0"})
        public int threads;
    }

    static Path locate(final String name)
    {
        final String configured = System.getProperty("faultline.traces");
        if (configured != null)
        {
            return Path.of(configured, name);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent())
        {
            final Path candidate = dir.resolve("shared").resolve("traces").resolve(name);
            if (Files.isRegularFile(candidate))
            {
                return candidate;
            }
        }
        throw new IllegalStateException("shared/traces/" + name + " not found above " + Path.of("").toAbsolutePath()
            + "; run from the repository or pass -Dfaultline.traces=DIR");
    }
}
