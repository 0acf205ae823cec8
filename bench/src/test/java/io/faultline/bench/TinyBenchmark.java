package io.faultline.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The smallest benchmarks with memory to trace, for {@link FaultlineProfilerTest}: a sweep over
 * 1 MiB of heap, and one that touches each of 1,024 pages (4 MiB) once per operation: with an
 * EVMS of 512 pages, each of its operations traps at least 1,024 references.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TinyBenchmark
{
    /** Longs per 4 KiB page. */
    static final int PAGE_LONGS = 512;
    static final int PAGES = 1024;
    private final long[] data = new long[1 << 17];
    private final long[] pages = new long[PAGES * PAGE_LONGS];

    @Benchmark
    public long sweep()
    {
        long sum = 0;
        for (int i = 0; i < data.length; i += 512)
        {
            data[i]++;
            sum += data[i];
        }
        return sum;
    }

    @Benchmark
    public long everyPage()
    {
        long sum = 0;
        for (int i = 0; i < pages.length; i += PAGE_LONGS)
        {
            pages[i]++;
            sum += pages[i];
        }
        return sum;
    }
}
