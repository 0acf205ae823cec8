package io.faultline.jmh;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceWriter;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IterationWindowsTest
{
    @TempDir
    Path tmp;

    /**
     * Ten references, seq 0 to 9: even seqs read page 0x1000 + seq/2 pages of process 1, odd
     * seqs write page 0x1000 of process 2. The warmup covers seq 2 to 4, measurements 5 to 7 and 9.
     * Eviction records: process 2's page 0x5000 dirty at seq 4 (warmup), its page 0x1000 dirty at
     * seq 6 and process 1's page 0x2000 clean at seq 7 (measurement), process 2's page 0x3000
     * dirty (W) at seq 10, after every iteration.
     */
    @Test
    void countsTheReferencesOfTheMeasurementIterationsAndOnRequestTheWarmup() throws IOException
    {
        final Path dir = tmp.resolve("trace");
        final UnsafeBuffer chunk = new UnsafeBuffer(new byte[ChunkDescriptor.length(1)]);
        final TraceHeader header = TraceHeader.create().put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
            .put(TraceHeader.PAGE_SIZE, 4096);
        try (TraceWriter writer = TraceWriter.create(dir, header))
        {
            for (int seq = 0; seq < 10; seq++)
            {
                final int pid = seq % 2 == 0 ? 1 : 2;
                chunk.putInt(ChunkDescriptor.PID, pid, ByteOrder.LITTLE_ENDIAN);
                chunk.putInt(ChunkDescriptor.TID, pid, ByteOrder.LITTLE_ENDIAN);
                chunk.putInt(ChunkDescriptor.COUNT, 1, ByteOrder.LITTLE_ENDIAN);
                final int r = ChunkDescriptor.recordOffset(0);
                chunk.putLong(r + ChunkDescriptor.RECORD_SEQ, seq, ByteOrder.LITTLE_ENDIAN);
                chunk.putLong(r + ChunkDescriptor.RECORD_ADDRESS, 0x1000L * (1 + (pid == 1 ? seq / 2 : 0)),
                    ByteOrder.LITTLE_ENDIAN);
                chunk.putInt(r + ChunkDescriptor.RECORD_FLAGS, pid == 2 ? ChunkDescriptor.REC_WRITE : 0,
                    ByteOrder.LITTLE_ENDIAN);
                writer.write(TraceLayout.EXCERPT_CHUNK, chunk, 0, ChunkDescriptor.length(1));
                switch (seq)
                {
                    case 3 -> evict(writer, 2, 4, 0x5000, 'w');
                    case 5 -> evict(writer, 2, 6, 0x1000, 'w');
                    case 6 -> evict(writer, 1, 7, 0x2000, 'r');
                    case 9 -> evict(writer, 2, 10, 0x3000, 'W');
                    default -> { }
                }
            }
            writer.finish(header.put(TraceHeader.REFERENCES, 10).put(TraceHeader.EVENTS, 4));
        }
        final Path file = tmp.resolve("trace.iterations");
        IterationWindows.append(file, new IterationWindows.Window(IterationWindows.WARMUP, 2, 5));
        IterationWindows.append(file, new IterationWindows.Window(IterationWindows.MEASUREMENT, 5, 8));
        IterationWindows.append(file, new IterationWindows.Window(IterationWindows.MEASUREMENT, 9, 10));
        final List<IterationWindows.Window> windows = IterationWindows.read(file);
        assertEquals(3, windows.size());
        try (TraceReader reader = TraceReader.open(dir))
        {
            // seq 5, 7, 9 write process 2's page; 6 reads process 1's fourth page
            // and process 2's page 0x1000 left dirty at seq 6
            assertEquals(new IterationWindows.Counts(4, 1, 3, 2, 1, 2), IterationWindows.count(reader, windows, false));
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            // and seq 2, 4 read process 1's second and third pages, 3 writes process 2's
            // and its page 0x5000 left dirty at seq 4
            assertEquals(new IterationWindows.Counts(7, 3, 4, 4, 2, 3), IterationWindows.count(reader, windows, true));
        }
    }

    /** An eviction record (FORMAT.md, "EVMS"): the page of {@code pid} at {@code address}, with its tag. */
    private static void evict(final TraceWriter writer, final int pid, final long seq, final long address, final char tag)
    {
        final UnsafeBuffer event = new UnsafeBuffer(new byte[EventDescriptor.HEADER_SIZE]);
        event.putInt(EventDescriptor.TYPE, EventType.EVICT.code(), ByteOrder.LITTLE_ENDIAN);
        event.putInt(EventDescriptor.PID, pid, ByteOrder.LITTLE_ENDIAN);
        event.putInt(EventDescriptor.TID, pid, ByteOrder.LITTLE_ENDIAN);
        event.putLong(EventDescriptor.SEQ, seq, ByteOrder.LITTLE_ENDIAN);
        event.putLong(EventDescriptor.A, address, ByteOrder.LITTLE_ENDIAN);
        event.putLong(EventDescriptor.B, tag, ByteOrder.LITTLE_ENDIAN);
        writer.write(TraceLayout.EXCERPT_EVENT, event, 0, EventDescriptor.HEADER_SIZE);
    }
}
