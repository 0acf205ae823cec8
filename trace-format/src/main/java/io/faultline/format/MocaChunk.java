package io.faultline.format;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;

/**
 * One Moca chunk as the reader delivers it: the pages one thread faulted on in one interval of
 * {@code record --mode moca}, with per page the read and write faults of the thread in the
 * interval (layout: {@link ChunkDescriptor}, "Moca chunk"; Beniamine and Huard, "Moca: an
 * efficient memory trace collection system", Inria research report, 2016, hal-01342679).
 * Pages are in the order of the thread's first fault on them, which is {@code seq} order.
 */
public final class MocaChunk
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final int pid;
    private final int tid;
    private final long chunkId;
    private final long interval;
    private final long startSeq;
    private final long endSeq;
    private final long closeSeq;
    private final long closeNs;
    private final long[] seq;
    private final long[] timeNs;
    private final long[] address;
    private final int[] flags;
    private final int[] reads;
    private final int[] writes;

    private MocaChunk(final DirectBuffer b, final int at, final long origin)
    {
        pid = b.getInt(at + ChunkDescriptor.PID, LE);
        tid = b.getInt(at + ChunkDescriptor.TID, LE);
        chunkId = b.getLong(at + ChunkDescriptor.CHUNK_ID, LE);
        startSeq = b.getLong(at + ChunkDescriptor.MOCA_START_SEQ, LE);
        endSeq = b.getLong(at + ChunkDescriptor.MOCA_END_SEQ, LE);
        closeSeq = b.getLong(at + ChunkDescriptor.MOCA_CLOSE_SEQ, LE);
        closeNs = b.getLong(at + ChunkDescriptor.MOCA_CLOSE_NS, LE) - origin;
        interval = b.getLong(at + ChunkDescriptor.MOCA_INTERVAL, LE);
        final int count = b.getInt(at + ChunkDescriptor.COUNT, LE);
        seq = new long[count];
        timeNs = new long[count];
        address = new long[count];
        flags = new int[count];
        reads = new int[count];
        writes = new int[count];
        for (int i = 0; i < count; i++)
        {
            final int r = at + ChunkDescriptor.recordOffset(ChunkDescriptor.MOCA, i);
            seq[i] = b.getLong(r + ChunkDescriptor.RECORD_SEQ, LE);
            timeNs[i] = b.getLong(r + ChunkDescriptor.RECORD_TIME_NS, LE) - origin;
            address[i] = b.getLong(r + ChunkDescriptor.RECORD_ADDRESS, LE);
            flags[i] = b.getInt(r + ChunkDescriptor.RECORD_FLAGS, LE);
            reads[i] = b.getInt(r + ChunkDescriptor.RECORD_MOCA_READS, LE);
            writes[i] = b.getInt(r + ChunkDescriptor.RECORD_MOCA_WRITES, LE);
        }
    }

    /**
     * The chunk whose payload (pid first) starts at {@code at}, its times less {@code origin}
     * (the program's start, see {@link TraceReader#programStartNs}).
     */
    static MocaChunk read(final DirectBuffer buffer, final int at, final long origin)
    {
        return new MocaChunk(buffer, at, origin);
    }

    public int pid()
    {
        return pid;
    }

    public int tid()
    {
        return tid;
    }

    /** The thread's chunks are numbered from 0; parts of one large chunk share the id. */
    public long chunkId()
    {
        return chunkId;
    }

    /** The interval's number in its process, from 0. */
    public long interval()
    {
        return interval;
    }

    /** The clock taken by the first record. */
    public long startSeq()
    {
        return startSeq;
    }

    /** One past the clock taken by the last record. */
    public long endSeq()
    {
        return endSeq;
    }

    /** The clock when the interval ended: the chunk's place in the trace's order. */
    public long closeSeq()
    {
        return closeSeq;
    }

    /** When the interval ended, nanoseconds since the program's start. */
    public long closeNs()
    {
        return closeNs;
    }

    public int pages()
    {
        return seq.length;
    }

    public long seq(final int i)
    {
        return seq[i];
    }

    public long timeNs(final int i)
    {
        return timeNs[i];
    }

    /** The exact address of the thread's first fault on page {@code i} in the interval. */
    public long address(final int i)
    {
        return address[i];
    }

    /** That first fault's {@link ChunkDescriptor#REC_WRITE} and {@link ChunkDescriptor#REC_FIRST_TOUCH}. */
    public int flags(final int i)
    {
        return flags[i];
    }

    public int reads(final int i)
    {
        return reads[i];
    }

    public int writes(final int i)
    {
        return writes[i];
    }
}
