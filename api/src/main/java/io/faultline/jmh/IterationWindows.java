package io.faultline.jmh;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import io.faultline.format.EventType;
import io.faultline.format.ShmLayout;
import io.faultline.format.Startup;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;
import io.faultline.tracer.TraceStats;
import org.agrona.collections.LongHashSet;

/**
 * Which references of a fork's trace fall in its warmup and measurement iterations. A fork runs
 * under {@code faultline record}, whose agent numbers every trapped reference with the global
 * clock of the shared memory ({@code seq}); at each iteration's start and end the fork reads
 * that clock ({@link Clock}) and appends one line {@code warmup|measurement START END} to a
 * file: the references of the iteration are those with {@code START <= seq < END}. The
 * profiler then counts them in the finished trace ({@link #count}), in a JVM of their own
 * ({@link #main}): reading a trace takes Chronicle Queue, which needs JVM flags (docs/ARCHITECTURE.md,
 * "Java 17 flags") that the JVM running JMH was not given.
 */
public final class IterationWindows
{
    static final String WARMUP = "warmup";
    static final String MEASUREMENT = "measurement";

    /** One iteration: its kind and the clock at its start and end. */
    record Window(String kind, long startSeq, long endSeq)
    {
    }

    /**
     * What the counted iterations referenced: trapped references, the faults of them that were
     * reads and writes, distinct pages, and the pages written (whose eviction records in the
     * iterations are tagged dirty, w or W: a page read first and written later is a read fault
     * and a written page).
     */
    record Counts(long references, long readFaults, long writeFaults, long pages, long writtenPages, int iterations)
    {
        /** As {@link #main} prints them: {@code key=value} separated by spaces. */
        String line()
        {
            return "references=" + references + " read_faults=" + readFaults + " write_faults=" + writeFaults + " pages="
                + pages + " written_pages=" + writtenPages + " iterations=" + iterations;
        }

        static Counts parse(final String line)
        {
            final java.util.Map<String, Long> fields = new java.util.HashMap<>();
            for (final String field : line.trim().split(" "))
            {
                final int eq = field.indexOf('=');
                if (eq <= 0)
                {
                    throw new IllegalArgumentException("not key=value: '" + field + "' in '" + line + "'");
                }
                fields.put(field.substring(0, eq), Long.parseLong(field.substring(eq + 1)));
            }
            return new Counts(fields.get("references"), fields.get("read_faults"), fields.get("write_faults"),
                fields.get("pages"), fields.get("written_pages"), fields.get("iterations").intValue());
        }
    }

    /**
     * {@code TRACE ITERATIONS_FILE WARMUP}: prints the {@link Counts} of the trace's iterations
     * as one line on standard output; a trace that cannot be read, one line on standard error and
     * exit status 1.
     */
    public static void main(final String[] args)
    {
        Startup.prepare();
        try (TraceReader reader = TraceReader.open(Path.of(args[0])))
        {
            System.out.println(count(reader, read(Path.of(args[1])), Boolean.parseBoolean(args[2])).line());
        }
        catch (final IOException | RuntimeException ex)
        {
            System.err.println(ex.getMessage());
            System.exit(1);
        }
    }

    private IterationWindows()
    {
    }

    /** The global clock of the recording this process runs under, read from its shared memory. */
    static final class Clock
    {
        private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
        private final MappedByteBuffer control;

        /** @param shm the shared memory file ({@link ShmLayout#ENV_SHM}) */
        Clock(final Path shm) throws IOException
        {
            try (FileChannel channel = FileChannel.open(shm, StandardOpenOption.READ))
            {
                control = channel.map(FileChannel.MapMode.READ_ONLY, 0, ShmLayout.CTL_CLOCK + Long.BYTES);
            }
        }

        /** The seq the next trapped reference of any traced process will take. */
        long now()
        {
            return (long)LONGS.getAcquire(control, ShmLayout.CTL_CLOCK);
        }
    }

    static void append(final Path file, final Window window) throws IOException
    {
        Files.writeString(file, window.kind() + " " + window.startSeq() + " " + window.endSeq() + "\n",
            StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    static List<Window> read(final Path file) throws IOException
    {
        final List<Window> windows = new ArrayList<>();
        for (final String line : Files.readAllLines(file, StandardCharsets.UTF_8))
        {
            final String[] words = line.trim().split(" ");
            if (words.length != 3 || !(words[0].equals(WARMUP) || words[0].equals(MEASUREMENT)))
            {
                throw new IOException(file + ": not an iteration line: '" + line + "'");
            }
            windows.add(new Window(words[0], Long.parseLong(words[1]), Long.parseLong(words[2])));
        }
        return windows;
    }

    /**
     * Counts the references of the trace in the measurement iterations, and in the warmup
     * iterations too if {@code warmup}; distinct pages per process, as the trace header counts them.
     */
    static Counts count(final TraceReader trace, final List<Window> windows, final boolean warmup)
    {
        final List<Window> counted = new ArrayList<>();
        for (final Window w : windows)
        {
            if (warmup || w.kind().equals(MEASUREMENT))
            {
                counted.add(w);
            }
        }
        counted.sort((a, b) -> Long.compare(a.startSeq(), b.startSeq()));
        final int pageShift = Integer.numberOfTrailingZeros(trace.header().pageSize());
        final LongHashSet pages = new LongHashSet();
        final LongHashSet written = new LongHashSet();
        final long[] totals = new long[2];
        trace.forEach(new TraceVisitor()
        {
            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
                final boolean write)
            {
                if (inside(counted, seq))
                {
                    totals[write ? 1 : 0]++;
                    pages.add(page(pid, address, pageShift));
                }
            }

            @Override
            public void onEvent(final TraceEvent event)
            {
                if (event.type() == EventType.EVICT && TraceStats.isDirtyTag(event.b()) && inside(counted, event.seq()))
                {
                    written.add(page(event.pid(), event.a(), pageShift));
                }
            }
        });
        return new Counts(totals[0] + totals[1], totals[0], totals[1], pages.size(), written.size(), counted.size());
    }

    /** A page of a process, as the trace header counts distinct pages. */
    private static long page(final int pid, final long address, final int pageShift)
    {
        return (address >>> pageShift) | ((long)pid << 42);
    }

    /** Whether {@code seq} is in one of the windows, sorted by start (binary search). */
    private static boolean inside(final List<Window> sorted, final long seq)
    {
        int low = 0;
        int high = sorted.size() - 1;
        while (low <= high)
        {
            final int mid = (low + high) >>> 1;
            final Window w = sorted.get(mid);
            if (seq < w.startSeq())
            {
                high = mid - 1;
            }
            else if (seq >= w.endSeq())
            {
                low = mid + 1;
            }
            else
            {
                return true;
            }
        }
        return false;
    }
}
