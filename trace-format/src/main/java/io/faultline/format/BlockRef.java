package io.faultline.format;

import java.nio.ByteOrder;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Where a block lies in the queue and what its header says of it: what the survey keeps of each
 * block, so that the delivery reads each process's blocks by their place and a damaged block is
 * named with what it held.
 */
final class BlockRef
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    final int file;
    /** The block's first byte in its file (its Chronicle header word is 4 bytes before). */
    final long start;
    final int length;
    /** Its position among the queue's excerpts, from 0. */
    final long ordinal;
    final int pid;
    final int tid;
    final int threads;
    final int records;
    final int events;
    final long index;
    final long recordsBefore;
    final long firstSeq;
    final long lastSeq;
    final int order;
    final long minTime;
    final long maxTime;
    final long startTime;

    BlockRef(final int file, final long start, final long ordinal, final byte[] bytes, final int offset)
    {
        final UnsafeBuffer h = new UnsafeBuffer(bytes, offset, BlockDescriptor.HEADER_SIZE);
        this.file = file;
        this.start = start;
        this.ordinal = ordinal;
        length = BlockDescriptor.HEADER_SIZE + h.getInt(BlockDescriptor.BODY_LENGTH, LE);
        pid = h.getInt(BlockDescriptor.PID, LE);
        tid = h.getInt(BlockDescriptor.TID, LE);
        threads = h.getInt(BlockDescriptor.THREADS, LE);
        records = h.getInt(BlockDescriptor.RECORDS, LE);
        events = h.getInt(BlockDescriptor.EVENTS, LE);
        index = h.getLong(BlockDescriptor.BLOCK_INDEX, LE);
        recordsBefore = h.getLong(BlockDescriptor.RECORDS_BEFORE, LE);
        firstSeq = h.getLong(BlockDescriptor.FIRST_SEQ, LE);
        lastSeq = h.getLong(BlockDescriptor.LAST_SEQ, LE);
        order = h.getByte(BlockDescriptor.ORDER);
        minTime = h.getLong(BlockDescriptor.MIN_TIME, LE);
        maxTime = h.getLong(BlockDescriptor.MAX_TIME, LE);
        startTime = h.getLong(BlockDescriptor.START_TIME, LE);
    }

    /** Orders places in the queue: file, then byte. */
    static long place(final int file, final long position)
    {
        return (long)file << 40 | position;
    }

    long place()
    {
        return place(file, start);
    }

    long end()
    {
        return place(file, start + length);
    }

    int firstRank()
    {
        return (order & BlockDescriptor.ORDER_FIRST_RECORD) != 0 ? 1 : 0;
    }

    int lastRank()
    {
        return (order & BlockDescriptor.ORDER_LAST_RECORD) != 0 ? 1 : 0;
    }
}
