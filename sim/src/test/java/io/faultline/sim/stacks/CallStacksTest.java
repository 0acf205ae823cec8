package io.faultline.sim.stacks;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
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

/**
 * Stack ids belong to a process image (FORMAT.md, "Call stacks"): on a trace written by hand, the
 * same id names different stacks in two images of one pid (an exec between them) and in another
 * process, stacks that name the same frames merge, and references without a stack are counted
 * apart; the folded form puts the root first.
 */
class CallStacksTest
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    @TempDir
    Path tmp;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1 << 12]);
    private long seq;
    private long references;
    private long events;

    @Test
    void idsAreKeyedByProcessImageAndEqualStacksMerge() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TraceWriter w = TraceWriter.create(dir, TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION).put(TraceHeader.PAGE_SIZE, 4096)))
        {
            event(w, EventType.PROCESS_START, 100, 0, 0, 0, "/bin/a");
            event(w, EventType.CODE_MAP, 100, 0x1000, 0x2000, 0, "/nonexistent/libx.so");
            event(w, EventType.STACK, 100, 1, 2, 0, "1010 1500");
            records(w, 100, 1, 0, 3);
            records(w, 100, 0, ChunkDescriptor.REC_KERNEL, 1);
            event(w, EventType.PROCESS_START, 100, 0, 0, 0, "/bin/b"); // exec: a new image, ids from 1 again
            event(w, EventType.STACK, 100, 1, 1, 0, "1800");
            records(w, 100, 1, 0, 2);
            event(w, EventType.PROCESS_START, 200, 100, 1, 0, "/bin/a"); // a fork child of the first image
            event(w, EventType.CODE_MAP, 200, 0x1000, 0x2000, 0, "/nonexistent/libx.so");
            event(w, EventType.STACK, 200, 1, 2, 0, "1010 1500");
            records(w, 200, 1, ChunkDescriptor.REC_WRITE, 1);
            w.finish(TraceHeader.create().put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
                .put(TraceHeader.PAGE_SIZE, 4096).put(TraceHeader.REFERENCES, references).put(TraceHeader.EVENTS, events));
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            final CallStacks stacks = CallStacks.read(reader);
            assertEquals(List.of(new CallStacks.Stack(List.of("libx.so+0x10", "libx.so+0x500"), 4),
                new CallStacks.Stack(List.of("0x1800"), 2)), stacks.stacks());
            assertEquals(7, stacks.references());
            assertEquals(1, stacks.withoutStack());
            assertEquals(1, stacks.kernelReferences());
            assertEquals(List.of(new CallStacks.Stack(List.of("libx.so+0x10"), 4), new CallStacks.Stack(List.of("0x1800"), 2)),
                stacks.callSites(1));
            final StringBuilder folded = new StringBuilder();
            stacks.writeFolded(folded);
            assertEquals("libx.so+0x500;libx.so+0x10 4\n0x1800 2\n[no stack] 1\n", folded.toString());
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(List.of(new CallStacks.Stack(List.of("libx.so+0x10", "libx.so+0x500"), 1)),
                CallStacks.read(reader, 200, -1).stacks());
        }
    }

    private void event(final TraceWriter w, final EventType type, final int pid, final long a, final long b, final long c,
        final String text) throws IOException
    {
        final byte[] t = text.getBytes(StandardCharsets.UTF_8);
        buffer.setMemory(0, EventDescriptor.HEADER_SIZE, (byte)0);
        buffer.putInt(EventDescriptor.TYPE, type.code(), LE);
        buffer.putInt(EventDescriptor.PID, pid, LE);
        buffer.putInt(EventDescriptor.TID, pid, LE);
        buffer.putInt(EventDescriptor.TEXT_LENGTH, t.length, LE);
        buffer.putLong(EventDescriptor.SEQ, seq, LE);
        buffer.putLong(EventDescriptor.TIME_NS, seq, LE);
        buffer.putLong(EventDescriptor.A, a, LE);
        buffer.putLong(EventDescriptor.B, b, LE);
        buffer.putLong(EventDescriptor.C, c, LE);
        buffer.putBytes(EventDescriptor.HEADER_SIZE, t);
        w.write(TraceLayout.EXCERPT_EVENT, buffer, 0, EventDescriptor.HEADER_SIZE + t.length);
        events++;
    }

    /** count references of pid with this stack id and flags, one chunk */
    private void records(final TraceWriter w, final int pid, final int stack, final int flags, final int count)
        throws IOException
    {
        buffer.putInt(ChunkDescriptor.PID, pid, LE);
        buffer.putInt(ChunkDescriptor.TID, pid, LE);
        buffer.putLong(ChunkDescriptor.CHUNK_ID, 0, LE);
        buffer.putInt(ChunkDescriptor.COUNT, count, LE);
        buffer.putInt(ChunkDescriptor.FLAGS, 0, LE);
        for (int i = 0; i < count; i++)
        {
            final int r = ChunkDescriptor.recordOffset(i);
            seq++;
            buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, seq, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, seq, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, 0x7000_0000L + i * 4096L, LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS, flags, LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_STACK, stack, LE);
        }
        w.write(TraceLayout.EXCERPT_CHUNK, buffer, 0, ChunkDescriptor.length(count));
        references += count;
        seq++;
    }
}
