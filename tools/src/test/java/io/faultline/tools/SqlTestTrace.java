package io.faultline.tools;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A small format-4 trace whose every table row is known, for faultline sql and export --to
 * parquet: process 100 (executable /bin/prog, parent 1) starts 1,000 ns into the recording, its
 * thread 101 (named "prog", then "worker", at once) 1,035 ns in; six references, two evictions, an exit.
 * <pre>
 *   seq  time_ns  tid  address     kind               mapping
 *   0    0        100  0x10000     read                [heap]
 *   1    10       100  0x11000     write               [heap]
 *   2    20       100  0x70000000  read                libfoo.so
 *   3    30       100  0x10008     read by the kernel  [heap]
 *   4    40       101  0x12000     write, stack 7      [heap]
 *   5    50       101  0x70001000  read                libfoo.so
 *   6    60       100  evict 0x11000 W (dirty, referenced), then evict 0x70000000 r deleted
 * </pre>
 * (Times are from the program's start: the recording's less 1,000 ns.)
 */
final class SqlTestTrace
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private SqlTestTrace()
    {
    }

    static Path write(final Path dir) throws IOException
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1 << 12]);
        final TraceHeader header = TraceHeader.create().put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
            .put(TraceHeader.PAGE_SIZE, 4096).put(TraceHeader.COMMAND, "prog");
        int events = 0;
        try (TraceWriter writer = TraceWriter.create(dir, header))
        {
            events += event(writer, buffer, EventType.PROCESS_START, 100, 0, 1000, 1, 0, 0, "/bin/prog");
            events += event(writer, buffer, EventType.THREAD_NAME, 100, 0, 1000, 0, 0, 0, "prog");
            events += event(writer, buffer, EventType.TRACE_RANGE, 100, 0, 1000, 0x10000, 0x4000, 0, "[heap]");
            events += event(writer, buffer, EventType.TRACE_RANGE, 100, 0, 1000, 0x70000000L, 0x2000, 0,
                "/usr/lib/libfoo.so");
            chunk(writer, buffer, 100, 100, new long[][] {{0, 0x10000, 0, 0}, {1, 0x11000, ChunkDescriptor.REC_WRITE, 0},
                {2, 0x70000000L, 0, 0}, {3, 0x10008, ChunkDescriptor.REC_KERNEL, 0}});
            events += event(writer, buffer, EventType.THREAD_START, 100, 101, 4, 1035, 100, 0, 0, "");
            // the comm it inherits, then its own: the same seq and time, told apart by their order
            events += event(writer, buffer, EventType.THREAD_NAME, 100, 101, 4, 1035, 0, 0, 0, "prog");
            events += event(writer, buffer, EventType.THREAD_NAME, 100, 101, 4, 1035, 0, 0, 0, "worker");
            chunk(writer, buffer, 100, 101, new long[][] {{4, 0x12000, ChunkDescriptor.REC_WRITE, 7},
                {5, 0x70001000L, 0, 0}});
            events += event(writer, buffer, EventType.EVICT, 100, 100, 6, 1060, 0x11000, 'W', 0, "");
            events += event(writer, buffer, EventType.EVICT, 100, 100, 6, 1060, 0x70000000L, 'r', 1, "");
            events += event(writer, buffer, EventType.PROCESS_EXIT, 100, 100, 6, 1070, 0, 0, 0, "");
            writer.finish(TraceHeader.create().put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
                .put(TraceHeader.PAGE_SIZE, 4096).put(TraceHeader.COMMAND, "prog").put(TraceHeader.REFERENCES, 6)
                .put(TraceHeader.EVENTS, events));
        }
        return dir;
    }

    /** Each record: seq, address, flags, stack; time seq * 10 + 1,000 ns. */
    private static void chunk(final TraceWriter writer, final UnsafeBuffer buffer, final int pid, final int tid,
        final long[][] records)
    {
        buffer.setMemory(0, buffer.capacity(), (byte)0);
        buffer.putInt(ChunkDescriptor.PID, pid, LE);
        buffer.putInt(ChunkDescriptor.TID, tid, LE);
        buffer.putInt(ChunkDescriptor.COUNT, records.length, LE);
        for (int i = 0; i < records.length; i++)
        {
            final int r = ChunkDescriptor.recordOffset(i);
            buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, records[i][0], LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, records[i][0] * 10 + 1000, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, records[i][1], LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS, (int)records[i][2], LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_STACK, (int)records[i][3], LE);
        }
        writer.write(TraceLayout.EXCERPT_CHUNK, buffer, 0, ChunkDescriptor.length(records.length));
    }

    private static int event(final TraceWriter writer, final UnsafeBuffer buffer, final EventType type, final int pid,
        final long seq, final long timeNs, final long a, final long b, final long c, final String text)
    {
        return event(writer, buffer, type, pid, pid, seq, timeNs, a, b, c, text);
    }

    private static int event(final TraceWriter writer, final UnsafeBuffer buffer, final EventType type, final int pid,
        final int tid, final long seq, final long timeNs, final long a, final long b, final long c, final String text)
    {
        final int length = EventDescriptor.encode(buffer, type, pid, tid, seq, timeNs, a, b, c, 0,
            text.getBytes(StandardCharsets.UTF_8));
        writer.write(TraceLayout.EXCERPT_EVENT, buffer, 0, length);
        return 1;
    }
}
