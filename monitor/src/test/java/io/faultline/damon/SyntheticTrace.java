package io.faultline.damon;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.ExpandableArrayBuffer;

/** Builds small faultline traces with chosen reference times, written with {@link TraceWriter}. */
public final class SyntheticTrace
{
    public static final int PAGE = 4096;

    private record Reference(long timeNs, int pid, long address)
    {
    }

    private final List<Reference> references = new ArrayList<>();

    public SyntheticTrace add(final long timeNs, final int pid, final long address)
    {
        references.add(new Reference(timeNs, pid, address));
        return this;
    }

    /** References every page of {@code [start, start + pages * PAGE)} once, at {@code timeNs} plus one ns per page. */
    public SyntheticTrace touchPages(final long timeNs, final int pid, final long start, final int pages)
    {
        for (int p = 0; p < pages; p++)
        {
            add(timeNs + p, pid, start + (long)p * PAGE);
        }
        return this;
    }

    /** Writes the trace: references in time order, one chunk per run of one process, tid = pid. */
    public Path write(final Path dir, final long durationNs) throws IOException
    {
        references.sort(Comparator.comparingLong(Reference::timeNs));
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(1 << 16);
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        final TraceHeader header = TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
            .put(TraceHeader.PAGE_SIZE, PAGE)
            .put(TraceHeader.COMMAND, "synthetic");
        try (TraceWriter writer = TraceWriter.create(dir, header))
        {
            int i = 0;
            while (i < references.size())
            {
                final int pid = references.get(i).pid();
                int count = 0;
                while (i + count < references.size() && references.get(i + count).pid() == pid && count < 1000)
                {
                    final Reference r = references.get(i + count);
                    final int at = ChunkDescriptor.recordOffset(count);
                    buffer.putLong(at + ChunkDescriptor.RECORD_SEQ, i + count, le);
                    buffer.putLong(at + ChunkDescriptor.RECORD_TIME_NS, r.timeNs(), le);
                    buffer.putLong(at + ChunkDescriptor.RECORD_ADDRESS, r.address(), le);
                    buffer.putInt(at + ChunkDescriptor.RECORD_FLAGS, 0, le);
                    buffer.putInt(at + ChunkDescriptor.RECORD_FLAGS + 4, 0, le);
                    count++;
                }
                buffer.putInt(ChunkDescriptor.PID, pid, le);
                buffer.putInt(ChunkDescriptor.TID, pid, le);
                buffer.putLong(ChunkDescriptor.CHUNK_ID, 0, le);
                buffer.putInt(ChunkDescriptor.COUNT, count, le);
                buffer.putInt(ChunkDescriptor.FLAGS, 0, le);
                writer.write(TraceLayout.EXCERPT_CHUNK, buffer, 0, ChunkDescriptor.length(count));
                i += count;
            }
            writer.finish(TraceHeader.create()
                .put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
                .put(TraceHeader.PAGE_SIZE, PAGE)
                .put(TraceHeader.COMMAND, "synthetic")
                .put(TraceHeader.DURATION_NS, durationNs)
                .put(TraceHeader.REFERENCES, references.size())
                .put(TraceHeader.EVENTS, 0));
        }
        return dir;
    }

    /**
     * Three 16-page areas of process 100, 1 MiB apart, over one second: A (0x100000) referenced in
     * every 5 ms sampling interval, B (0x200000) in every other one, C (0x300000) once at the
     * start, then, if {@code cHotFromNs} is below 1 s, in every interval from then on.
     */
    public static SyntheticTrace hotWarmCold(final long cHotFromNs)
    {
        final SyntheticTrace trace = new SyntheticTrace();
        final long sample = 5_000_000;
        trace.touchPages(1000, 100, 0x300000, 16);
        for (long s = 0; s < 200; s++)
        {
            final long t = s * sample + 10_000;
            trace.touchPages(t, 100, 0x100000, 16);
            if (s % 2 == 0)
            {
                trace.touchPages(t + 100, 100, 0x200000, 16);
            }
            if (t >= cHotFromNs)
            {
                trace.touchPages(t + 200, 100, 0x300000, 16);
            }
        }
        return trace;
    }
}
