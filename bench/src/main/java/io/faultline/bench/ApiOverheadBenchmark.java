package io.faultline.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.faultline.api.Faultline;
import io.faultline.api.RecordOptions;
import io.faultline.api.Recording;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What tracing costs a Java workload through the Java API: the same workloads over 32 MiB of
 * direct memory (8192 pages, more than the largest EVMS), untraced ({@code evms=0}) and traced
 * with an EVMS of 16, 512 and 4096 pages. Sequential and random scans, lookups in an off-heap
 * hash table, a copy of one half of the memory onto the other. The aux counters {@code trapped}
 * and {@code ops} give the trapped references per operation (trapped / ops), so
 * (traced ns/op - untraced ns/op) / (trapped references per op) is the cost of one trapped
 * reference as a Java program sees it, next to the agent's own in BENCHMARKS.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class ApiOverheadBenchmark
{
    static final int PAGE = 4096;
    static final int PAGES = 8192;
    static final int RANDOM_READS = 8192;
    static final int LOOKUPS = 8192;

    /** 0: untraced; else the EVMS size of the recording that traces the memory. */
    @Param({"0", "16", "512", "4096"})
    public int evms;

    private ByteBuffer memory;
    private int[] randomOffsets;
    private long[] keys;
    private OffHeapTable table;
    private Recording recording;
    /** The fork's one recording, for {@link Trapped} (JMH gives a state's fixtures no other state). */
    private static volatile Recording current;
    private Path dir;
    private int next;

    /** References the agent trapped, and operations, per iteration: trapped / ops is references per op. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Trapped
    {
        public long trapped;
        public long ops;
        private long start;

        @Setup(Level.Iteration)
        public void reset()
        {
            trapped = 0;
            ops = 0;
            final Recording recording = current;
            start = recording == null ? 0 : recording.trappedReferences();
        }

        void count(final Recording recording)
        {
            ops++;
            if (recording != null)
            {
                trapped = recording.trappedReferences() - start;
            }
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        memory = ByteBuffer.allocateDirect((PAGES + 1) * PAGE).alignedSlice(PAGE);
        memory.limit(PAGES * PAGE);
        memory = memory.slice();
        for (int i = 0; i < PAGES * PAGE; i += 8)
        {
            memory.putLong(i, i);
        }
        final SplittableRandom random = new SplittableRandom(42);
        randomOffsets = new int[RANDOM_READS];
        for (int i = 0; i < RANDOM_READS; i++)
        {
            randomOffsets[i] = random.nextInt(PAGES * PAGE / 8) * 8;
        }
        table = new OffHeapTable(1 << 21);
        keys = new long[LOOKUPS];
        for (int i = 0; i < LOOKUPS; i++)
        {
            keys[i] = random.nextLong() | 1;
            table.put(keys[i], i);
        }
        for (int i = 0; i < 1 << 20; i++)
        {
            table.put(random.nextLong() | 1, -i); // fill to half: probes stay short, pages many
        }
        if (evms > 0)
        {
            dir = Files.createTempDirectory("faultline-api-bench");
            recording = Faultline.record(dir.resolve("trace"), RecordOptions.evms(evms));
            recording.trace(memory);
            recording.trace(table.slots);
            current = recording;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        if (recording != null)
        {
            recording.close();
            System.out.println("faultline: " + recording.summary());
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Benchmark
    public long sequentialScan(final Trapped counters)
    {
        long sum = 0;
        for (int i = 0; i < PAGES * PAGE; i += 64)
        {
            sum += memory.getLong(i);
        }
        counters.count(recording);
        return sum;
    }

    @Benchmark
    public long randomScan(final Trapped counters)
    {
        long sum = 0;
        for (final int offset : randomOffsets)
        {
            sum += memory.getLong(offset);
        }
        counters.count(recording);
        return sum;
    }

    @Benchmark
    public long hashTableLookups(final Trapped counters)
    {
        long sum = 0;
        for (final long key : keys)
        {
            sum += table.get(key);
        }
        counters.count(recording);
        return sum;
    }

    @Benchmark
    public long copy(final Trapped counters)
    {
        final int half = PAGES * PAGE / 2;
        final int from = (next++ & 1) == 0 ? 0 : half;
        memory.put(half - from, memory, from, half);
        counters.count(recording);
        return memory.getLong(from);
    }

    /** Open addressing with linear probing, long keys to long values, 16 bytes a slot, key 0 = empty. */
    static final class OffHeapTable
    {
        final ByteBuffer slots;
        private final int mask;

        OffHeapTable(final int capacity)
        {
            slots = ByteBuffer.allocateDirect(capacity * 16);
            mask = capacity - 1;
        }

        private int home(final long key)
        {
            long h = key * 0x9E3779B97F4A7C15L;
            return (int)(h >>> 40) & mask;
        }

        void put(final long key, final long value)
        {
            for (int i = home(key);; i = (i + 1) & mask)
            {
                final long k = slots.getLong(i * 16);
                if (k == 0 || k == key)
                {
                    slots.putLong(i * 16, key);
                    slots.putLong(i * 16 + 8, value);
                    return;
                }
            }
        }

        long get(final long key)
        {
            for (int i = home(key);; i = (i + 1) & mask)
            {
                final long k = slots.getLong(i * 16);
                if (k == key)
                {
                    return slots.getLong(i * 16 + 8);
                }
                if (k == 0)
                {
                    return 0;
                }
            }
        }
    }
}
