package io.faultline.format;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;

/** Writes small traces excerpt by excerpt, as the logger would, and lists what a reader should deliver. */
final class TestTrace implements AutoCloseable
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final TraceWriter writer;
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1 << 16]);
    /** Every record and event written, as {@link #line} gives them. */
    final List<String> written = new ArrayList<>();
    long references;
    long events;
    /**
     * Added to every time written (the recorder's start-up before the program's): {@link #written}
     * lists the times a reader delivers, from the program's start, when the trace's first item is
     * a process-start event.
     */
    long startUpNs;

    private final int version;

    /** A trace of the current format (blocks, written when full or at {@link #flush}, {@link #finish} or {@link #close}). */
    TestTrace(final Path dir) throws IOException
    {
        this(dir, TraceLayout.FORMAT_VERSION);
    }

    /** A trace of format {@code version}: 3 writes an excerpt for each chunk and event, as recorders did. */
    TestTrace(final Path dir, final int version) throws IOException
    {
        this.version = version;
        // no time bound: a test decides where blocks end (flush), whatever the machine's load
        writer = TraceWriter.create(dir, header(version), TraceWriter.shape(header(version)).withFlushNs(Long.MAX_VALUE));
    }

    static TraceHeader header()
    {
        return header(TraceLayout.FORMAT_VERSION);
    }

    static TraceHeader header(final int version)
    {
        return TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, version)
            .put(TraceHeader.PAGE_SIZE, 4096)
            .put(TraceHeader.COMMAND, "prog 'a b' = c:d #x");
    }

    /** Writes what the writer holds into the queue, where a reader sees it. */
    TestTrace flush()
    {
        writer.flush();
        return this;
    }

    static String line(final long seq, final long timeNs, final int pid, final int tid, final long address,
        final boolean write)
    {
        return seq + " " + timeNs + " " + pid + " " + tid + " " + Long.toHexString(address) + " " + write;
    }

    static String line(final TraceEvent e)
    {
        return "-- " + e.seq() + " " + e.pid() + " " + e.tid() + " " + (e.type() == null ? e.code() : e.type().label())
            + " " + e.text();
    }

    /** A chunk of consecutive seq from {@code seq}: address = 0x1000 * (seq + 1), writes on odd seq. */
    TestTrace chunk(final int pid, final int tid, final long seq, final int count)
    {
        buffer.setMemory(0, ChunkDescriptor.HEADER_SIZE, (byte)0);
        buffer.putInt(ChunkDescriptor.PID, pid, LE);
        buffer.putInt(ChunkDescriptor.TID, tid, LE);
        buffer.putInt(ChunkDescriptor.COUNT, count, LE);
        for (int i = 0; i < count; i++)
        {
            final int r = ChunkDescriptor.recordOffset(i);
            final long s = seq + i;
            buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, s, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, startUpNs + s * 10, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, 0x1000 * (s + 1), LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS, (int)(s & 1), LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS + 4, 0, LE);
            written.add(line(s, s * 10, pid, tid, 0x1000 * (s + 1), (s & 1) != 0));
        }
        writer.write(TraceLayout.EXCERPT_CHUNK, buffer, 0, ChunkDescriptor.length(count));
        references += count;
        return this;
    }

    /**
     * A Moca chunk of pages with consecutive seq from {@code seq}, closed at {@code closeSeq}:
     * page i at 0x1000 * (seq + i + 1), reads i + 1, writes i; {@code breakClock} writes an end
     * that does not match the records. Listed as "== close pid tid chunk interval start-end" and a
     * line per page.
     */
    TestTrace mocaChunk(final int pid, final int tid, final long id, final long interval, final long seq, final int count,
        final long closeSeq, final boolean breakClock)
    {
        buffer.setMemory(0, ChunkDescriptor.MOCA_HEADER_SIZE, (byte)0);
        buffer.putInt(ChunkDescriptor.PID, pid, LE);
        buffer.putInt(ChunkDescriptor.TID, tid, LE);
        buffer.putLong(ChunkDescriptor.CHUNK_ID, id, LE);
        buffer.putInt(ChunkDescriptor.COUNT, count, LE);
        buffer.putInt(ChunkDescriptor.FLAGS, ChunkDescriptor.MOCA, LE);
        buffer.putLong(ChunkDescriptor.MOCA_START_SEQ, seq, LE);
        buffer.putLong(ChunkDescriptor.MOCA_END_SEQ, seq + count + (breakClock ? 1 : 0), LE);
        buffer.putLong(ChunkDescriptor.MOCA_CLOSE_SEQ, closeSeq, LE);
        buffer.putLong(ChunkDescriptor.MOCA_CLOSE_NS, startUpNs + closeSeq * 10, LE);
        buffer.putLong(ChunkDescriptor.MOCA_INTERVAL, interval, LE);
        written.add(mocaLine(closeSeq, pid, tid, id, interval, seq, seq + count));
        for (int i = 0; i < count; i++)
        {
            final int r = ChunkDescriptor.recordOffset(ChunkDescriptor.MOCA, i);
            final long s = seq + i;
            buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, s, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, startUpNs + s * 10, LE);
            buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, 0x1000 * (s + 1), LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS, 0, LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS + 4, 0, LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_MOCA_READS, i + 1, LE);
            buffer.putInt(r + ChunkDescriptor.RECORD_MOCA_WRITES, i, LE);
            written.add(pageLine(s, 0x1000 * (s + 1), i + 1, i));
        }
        writer.write(TraceLayout.EXCERPT_CHUNK, buffer, 0, (int)ChunkDescriptor.length(ChunkDescriptor.MOCA, count));
        references += count;
        return this;
    }

    static String mocaLine(final long closeSeq, final int pid, final int tid, final long id, final long interval,
        final long start, final long end)
    {
        return "== " + closeSeq + " " + pid + " " + tid + " " + id + " " + interval + " " + start + "-" + end;
    }

    static String pageLine(final long seq, final long address, final int reads, final int writes)
    {
        return "   " + seq + " " + Long.toHexString(address) + " " + reads + "r" + writes + "w";
    }

    TestTrace event(final EventType type, final int pid, final int tid, final long seq, final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        buffer.setMemory(0, EventDescriptor.HEADER_SIZE, (byte)0);
        buffer.putInt(EventDescriptor.TYPE, type.code(), LE);
        buffer.putInt(EventDescriptor.PID, pid, LE);
        buffer.putInt(EventDescriptor.TID, tid, LE);
        buffer.putInt(EventDescriptor.TEXT_LENGTH, bytes.length, LE);
        buffer.putLong(EventDescriptor.SEQ, seq, LE);
        buffer.putLong(EventDescriptor.TIME_NS, startUpNs + seq * 10, LE);
        buffer.putBytes(EventDescriptor.HEADER_SIZE, bytes);
        writer.write(TraceLayout.EXCERPT_EVENT, buffer, 0, EventDescriptor.HEADER_SIZE + bytes.length);
        written.add("-- " + seq + " " + pid + " " + tid + " " + type.label() + " " + text);
        events++;
        return this;
    }

    /** Ends the trace as a finished recording would. */
    void finish() throws IOException
    {
        writer.finish(header(version).put(TraceHeader.REFERENCES, references).put(TraceHeader.EVENTS, events));
    }

    /** Ends it as a killed recorder would: header still state=recording. */
    @Override
    public void close()
    {
        writer.close();
    }

    /** Every record and event of the trace, in the order the reader delivers them. */
    static List<String> read(final TraceReader reader)
    {
        final List<String> seen = new ArrayList<>();
        reader.forEach(collector(seen));
        return seen;
    }

    static TraceVisitor collector(final List<String> seen)
    {
        return new TraceVisitor()
        {
            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                final long address, final boolean write)
            {
                seen.add(line(seq, timeNs, pid, tid, address, write));
            }

            @Override
            public void onEvent(final TraceEvent event)
            {
                seen.add(line(event));
            }

            @Override
            public void onMocaChunk(final MocaChunk c)
            {
                seen.add(mocaLine(c.closeSeq(), c.pid(), c.tid(), c.chunkId(), c.interval(), c.startSeq(), c.endSeq()));
                for (int i = 0; i < c.pages(); i++)
                {
                    seen.add(pageLine(c.seq(i), c.address(i), c.reads(i), c.writes(i)));
                }
            }
        };
    }
}
