package io.faultline.sim.trace;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;

/** Writes small faultline trace directories for tests, one chunk per (pid, tid, addresses...) row. */
public final class FaultlineTraces
{
    private FaultlineTraces()
    {
    }

    /** Each chunk is {pid, tid, address, address, ...}. */
    public static Path write(final Path dir, final int pageSize, final long[]... chunks) throws IOException
    {
        return write(dir, TraceLayout.FORMAT_VERSION, pageSize, chunks);
    }

    /** As {@link #write(Path, int, long[]...)}, in format {@code version} (3: an excerpt per chunk, as recorders wrote). */
    public static Path write(final Path dir, final int version, final int pageSize, final long[]... chunks)
        throws IOException
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1 << 16]);
        long seq = 0;
        final TraceHeader header = TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, version)
            .put(TraceHeader.PAGE_SIZE, pageSize);
        try (TraceWriter writer = TraceWriter.create(dir, header))
        {
            for (final long[] chunk : chunks)
            {
                final int count = chunk.length - 2;
                buffer.putInt(ChunkDescriptor.PID, (int)chunk[0], ByteOrder.LITTLE_ENDIAN);
                buffer.putInt(ChunkDescriptor.TID, (int)chunk[1], ByteOrder.LITTLE_ENDIAN);
                buffer.putLong(ChunkDescriptor.CHUNK_ID, 0, ByteOrder.LITTLE_ENDIAN);
                buffer.putInt(ChunkDescriptor.COUNT, count, ByteOrder.LITTLE_ENDIAN);
                buffer.putInt(ChunkDescriptor.FLAGS, 0, ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < count; i++)
                {
                    final int r = ChunkDescriptor.recordOffset(i);
                    buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, seq, ByteOrder.LITTLE_ENDIAN);
                    buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, seq * 10, ByteOrder.LITTLE_ENDIAN);
                    buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, chunk[i + 2], ByteOrder.LITTLE_ENDIAN);
                    buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS, 0, ByteOrder.LITTLE_ENDIAN);
                    seq++;
                }
                writer.write(TraceLayout.EXCERPT_CHUNK, buffer, 0, ChunkDescriptor.length(count));
            }
            writer.finish(TraceHeader.create()
                .put(TraceHeader.FORMAT_VERSION, version)
                .put(TraceHeader.PAGE_SIZE, pageSize)
                .put(TraceHeader.REFERENCES, seq)
                .put(TraceHeader.EVENTS, 0));
        }
        return dir;
    }
}
