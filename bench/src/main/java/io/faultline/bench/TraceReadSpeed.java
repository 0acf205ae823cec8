package io.faultline.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceReader;
import io.faultline.sim.mrc.LruCurve;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceOptions;
import io.faultline.tools.live.LiveReplay;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * How fast the replay commands read a trace (issue 39): each input read whole, into the keys
 * {@code simulate}, {@code mrc} and {@code sweep} replay ({@link TraceFormats#read}, what their
 * {@code Reading ...} line times), ROUNDS times, the inputs alternating within each round, on
 * this one thread; CPU time of the thread and wall time, each read's, then the median of the
 * rounds after the first (the first is also shown: a cold JVM's, as the commands' own line).
 * <p>
 * An input is FORMAT=PATH, with FORMAT one of the readers' names ({@code faultline},
 * {@code lcs-oracle}, ...), or {@code live=TRACE}: the trace's references handed, as the
 * recorder's logger hands them, in chunks of up to 256 records of one thread, to
 * {@code record --live}'s replay ({@link LiveReplay}, untimed), whose thread's CPU per reference
 * is reported, with the share of the exact LRU curve it computes measured apart on the same keys
 * (a {@link LruCurve} of its own): the rest is the replay's reading of the references.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.faultline.bench.TraceReadSpeed ROUNDS FORMAT=PATH...</pre>
 */
public final class TraceReadSpeed
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private TraceReadSpeed()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int rounds = Integer.parseInt(args[0]);
        final Map<String, List<double[]>> results = new LinkedHashMap<>();
        final Map<String, Long> references = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 1; i < args.length; i++)
            {
                final String[] input = args[i].split("=", 2);
                final double[] measured = input[0].equals("live") ? live(Path.of(input[1]))
                    : read(input[0], Path.of(input[1]));
                references.put(args[i], (long)measured[2]);
                results.computeIfAbsent(args[i], k -> new ArrayList<>()).add(measured);
                System.out.printf(Locale.ROOT, "round %d %-44s %,11d references: CPU %.3f s (%.1f M/s), wall %.3f s%n", round,
                    args[i], (long)measured[2], measured[0], measured[2] / measured[0] / 1e6, measured[1]);
            }
        }
        System.out.println();
        for (final Map.Entry<String, List<double[]>> e : results.entrySet())
        {
            final long n = references.get(e.getKey());
            final double[] cold = e.getValue().get(0);
            final double cpu = median(e.getValue(), 0);
            final double wall = median(e.getValue(), 1);
            System.out.printf(Locale.ROOT, "%-44s %,11d references: median of %d warm reads %.1f M/s of CPU (%.3f s), "
                + "%.1f M/s of wall time; cold %.1f M/s of CPU%s%n", e.getKey(), n, e.getValue().size() - 1,
                n / cpu / 1e6, cpu, n / wall / 1e6, n / cold[0] / 1e6,
                e.getKey().startsWith("live=") ? String.format(Locale.ROOT, "; of it the LRU curve %.1f M/s",
                    n / median(e.getValue(), 3) / 1e6) : "");
        }
    }

    /** CPU seconds, wall seconds and references of one read of {@code path} as {@code format}. */
    private static double[] read(final String format, final Path path)
    {
        final long cpu = THREADS.getCurrentThreadCpuTime();
        final long wall = System.nanoTime();
        final KeyTrace keys = TraceFormats.read(TraceFormats.get(format), path, TraceOptions.defaults());
        return new double[] {(THREADS.getCurrentThreadCpuTime() - cpu) / 1e9, (System.nanoTime() - wall) / 1e9,
            keys.size()};
    }

    /** Chunk payloads of a trace's references, as the logger hands them over (built once, untimed). */
    private static final Map<Path, List<byte[]>> CHUNKS = new LinkedHashMap<>();

    private static List<byte[]> chunks(final Path trace)
    {
        return CHUNKS.computeIfAbsent(trace, t ->
        {
            final List<byte[]> chunks = new ArrayList<>();
            final UnsafeBuffer chunk = new UnsafeBuffer(new byte[ChunkDescriptor.length(256)]);
            final int[] state = new int[3]; // records, pid, tid
            try (TraceReader reader = TraceReader.open(t))
            {
                reader.forEachReference((seq, time, pid, tid, address, write) ->
                {
                    if (state[0] == 256 || state[0] > 0 && (pid != state[1] || tid != state[2]))
                    {
                        chunks.add(payload(chunk, state));
                    }
                    if (state[0] == 0)
                    {
                        state[1] = pid;
                        state[2] = tid;
                    }
                    final int r = ChunkDescriptor.recordOffset(state[0]++);
                    chunk.putLong(r + ChunkDescriptor.RECORD_SEQ, seq, ByteOrder.LITTLE_ENDIAN);
                    chunk.putLong(r + ChunkDescriptor.RECORD_TIME_NS, time, ByteOrder.LITTLE_ENDIAN);
                    chunk.putLong(r + ChunkDescriptor.RECORD_ADDRESS, address, ByteOrder.LITTLE_ENDIAN);
                    chunk.putInt(r + ChunkDescriptor.RECORD_FLAGS, write ? 1 : 0, ByteOrder.LITTLE_ENDIAN);
                });
            }
            if (state[0] > 0)
            {
                chunks.add(payload(chunk, state));
            }
            return chunks;
        });
    }

    private static byte[] payload(final UnsafeBuffer chunk, final int[] state)
    {
        chunk.putInt(ChunkDescriptor.PID, state[1], ByteOrder.LITTLE_ENDIAN);
        chunk.putInt(ChunkDescriptor.TID, state[2], ByteOrder.LITTLE_ENDIAN);
        chunk.putInt(ChunkDescriptor.COUNT, state[0], ByteOrder.LITTLE_ENDIAN);
        final byte[] bytes = Arrays.copyOf(chunk.byteArray(), ChunkDescriptor.length(state[0]));
        state[0] = 0;
        return bytes;
    }

    /**
     * {CPU, wall, references, the LRU curve's CPU} of {@code record --live}'s replay of a trace's
     * references: the replay thread's CPU (it computes the exact LRU curve as it reads), and a
     * curve of the same keys computed alone.
     */
    private static double[] live(final Path trace) throws Exception
    {
        final List<byte[]> chunks = chunks(trace);
        final int pageSize;
        try (TraceReader reader = TraceReader.open(trace))
        {
            pageSize = reader.header().pageSize();
        }
        final Path spill = Files.createTempDirectory("faultline-read-speed");
        try
        {
            final LiveReplay replay = new LiveReplay(pageSize, List.of(), new int[0], new int[0], OptionalInt.empty(),
                1L << 30, spill).start();
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            final long wall = System.nanoTime();
            for (final byte[] chunk : chunks)
            {
                view.wrap(chunk);
                replay.tee().onExcerpt(TraceLayout.EXCERPT_CHUNK, view, 0, chunk.length);
            }
            final LiveReplay.Result result = replay.finish();
            final double wallS = (System.nanoTime() - wall) / 1e9;
            // the model alone, on the same keys: what the replay spends beyond reading
            final KeyTrace keys = TraceFormats.read(TraceFormats.get(TraceFormats.FAULTLINE), trace, TraceOptions.defaults());
            final LruCurve curve = new LruCurve();
            final long cpu = THREADS.getCurrentThreadCpuTime();
            for (int i = 0; i < keys.size(); i++)
            {
                curve.record(keys.key(i));
            }
            final double curveS = (THREADS.getCurrentThreadCpuTime() - cpu) / 1e9;
            return new double[] {result.cpuNs() / 1e9, wallS, result.references(), curveS};
        }
        finally
        {
            try (var files = Files.walk(spill))
            {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static double median(final List<double[]> runs, final int field)
    {
        final double[] values = runs.stream().skip(runs.size() > 1 ? 1 : 0).mapToDouble(r -> r[field]).sorted().toArray();
        return values[(values.length - 1) / 2];
    }
}
