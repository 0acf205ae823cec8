package io.faultline.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** The smallest benchmark with memory to trace, for {@link FaultlineProfilerTest}: a sweep over 1 MiB of heap. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TinyBenchmark
{
    private final long[] data = new long[1 << 17];

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
}
