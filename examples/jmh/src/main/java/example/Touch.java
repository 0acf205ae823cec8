package example;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Writes one long on each of 1,024 pages of a direct buffer per operation: more pages than the
 * profiler's default EVMS (512) keeps enabled, so each operation traps about 1,024 references.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class Touch
{
    private static final int PAGE = 4096;
    private static final int PAGES = 1024;

    private ByteBuffer buffer;

    @Setup
    public void allocate()
    {
        buffer = ByteBuffer.allocateDirect((PAGES + 1) * PAGE).alignedSlice(PAGE);
    }

    @Benchmark
    public ByteBuffer everyPage()
    {
        for (int page = 0; page < PAGES; page++)
        {
            buffer.putLong(page * PAGE, page);
        }
        return buffer;
    }
}
