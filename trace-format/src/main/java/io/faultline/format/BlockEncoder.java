package io.faultline.format;

import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Codes one process's items into blocks ({@link BlockDescriptor}; trace-format/FORMAT.md,
 * "Blocks"): the writer hands it the chunks and events of the process, in seq order, as the
 * agent wrote them into its ring, and takes a block whenever it decides one is due.
 * <p>
 * The coding is the one the measurements in BENCHMARKS.md ("Compact traces") chose: the columns
 * of a block hold like values together (tags, time deltas, address deltas, other values, texts)
 * as varints, an eviction names its page by its place among the pages the block brought in (0
 * under FIFO), and zstd (RFC 8878, level 3, through zstd-jni) compresses each column alone,
 * where that is smaller. A block reads alone: every model starts empty with it.
 */
final class BlockEncoder
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int CHUNK_KIND = TraceLayout.EXCERPT_CHUNK;

    final int pid;
    private long blockIndex;
    private long recordsBefore;

    private final ColumnSink[] columns = new ColumnSink[BlockDescriptor.COLUMNS];
    private final ColumnSink tags;
    private final ColumnSink times;
    private final ColumnSink addresses;
    private final ColumnSink values;
    private final ColumnSink eventTimes;
    private final ColumnSink eventValues;
    private final ColumnSink eventAddresses;
    private final ColumnSink texts;
    private final ResidentPages resident = new ResidentPages();
    /** The block's threads, by tid: their slot, from 0 in the order they came (FORMAT.md, "Blocks"). */
    private final Int2IntHashMap slotOf = new Int2IntHashMap(-1);
    /** Each slot's thread's last address. */
    private long[] slotAddress = new long[16];
    private int slots;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);

    private int items;
    private int records;
    private int events;
    private int firstTid;
    private long firstSeq;
    private long lastSeq;
    private int order;
    private long minTime;
    private long maxTime;
    private long startTime;
    /** One past the last reference's seq: what a reference's, or an event's, seq is coded against. */
    private long nextSeq;
    /** The last reference's time: a reference's time is coded against it. */
    private long previousRecordTime;
    /** The last item's time: an event's time is coded against it. */
    private long previousTime;
    private long previousAddress;
    private int previousTid;
    private long previousEscape;
    /** When the block's first item came, System.nanoTime; meaningful while it holds items. */
    long openedNs;

    BlockEncoder(final int pid)
    {
        this.pid = pid;
        for (int c = 0; c < columns.length; c++)
        {
            columns[c] = new ColumnSink(c == BlockDescriptor.COLUMN_TEXTS ? 256 : 4096);
        }
        tags = columns[BlockDescriptor.COLUMN_TAGS];
        times = columns[BlockDescriptor.COLUMN_TIMES];
        addresses = columns[BlockDescriptor.COLUMN_ADDRESSES];
        values = columns[BlockDescriptor.COLUMN_VALUES];
        eventTimes = columns[BlockDescriptor.COLUMN_EVENT_TIMES];
        eventValues = columns[BlockDescriptor.COLUMN_EVENT_VALUES];
        eventAddresses = columns[BlockDescriptor.COLUMN_EVENT_ADDRESSES];
        texts = columns[BlockDescriptor.COLUMN_TEXTS];
        reset();
    }

    private void reset()
    {
        for (final ColumnSink c : columns)
        {
            c.clear();
        }
        resident.clear();
        slotOf.clear();
        slots = 0;
        items = 0;
        records = 0;
        events = 0;
        firstTid = 0;
        order = 0;
        minTime = Long.MAX_VALUE;
        maxTime = Long.MIN_VALUE;
        startTime = BlockDescriptor.NO_TIME;
        nextSeq = 0;
        previousRecordTime = 0;
        previousTime = 0;
        previousAddress = 0;
        previousTid = 0;
        previousEscape = 0;
    }

    int items()
    {
        return items;
    }

    /**
     * Whether an item with this order key (a seq; a Moca chunk's close_seq) would go back before
     * the block's last item (FORMAT.md, "Order": nothing comes after a reference of the same seq,
     * whatever it is): the writer then ends the block first, so that a
     * reader finds the break between two blocks, by their headers, and names the block it is in.
     */
    boolean wouldGoBack(final long key)
    {
        if (items == 0)
        {
            return false;
        }
        final boolean lastRecord = (order & BlockDescriptor.ORDER_LAST_RECORD) != 0;
        final int c = Long.compareUnsigned(key, lastSeq);
        return c < 0 || c == 0 && lastRecord;
    }

    /** References (Moca pages) in the block so far. */
    int records()
    {
        return records;
    }

    /** The least time of the block's items so far (Long.MAX_VALUE while it has none). */
    long minTime()
    {
        return minTime;
    }

    /** The time of the block's first process-start event, or NO_TIME. */
    long startTime()
    {
        return startTime;
    }

    /** Bytes of the body so far, before compression. */
    int rawLength()
    {
        int n = 0;
        for (final ColumnSink c : columns)
        {
            n += c.length() + 5;
        }
        return n;
    }

    /** Adds a chunk excerpt's payload (FORMAT.md, "Excerpts" of version 3): its references, or a Moca chunk whole. */
    void addChunk(final DirectBuffer buffer, final int offset, final int length)
    {
        final int flags = buffer.getInt(offset + ChunkDescriptor.FLAGS, LE);
        if (ChunkDescriptor.isMoca(flags))
        {
            addMoca(buffer, offset, length);
            return;
        }
        final int tid = buffer.getInt(offset + ChunkDescriptor.TID, LE);
        final int count = buffer.getInt(offset + ChunkDescriptor.COUNT, LE);
        if (count == 0)
        {
            return;
        }
        int slot = slotOf.get(tid);
        boolean newThread = false;
        long threadAddress;
        if (slot < 0)
        {
            slot = slots++;
            slotOf.put(tid, slot);
            if (slot == slotAddress.length)
            {
                slotAddress = java.util.Arrays.copyOf(slotAddress, slot * 2);
            }
            newThread = true;
            threadAddress = previousAddress;
        }
        else
        {
            threadAddress = slotAddress[slot];
        }
        for (int i = 0; i < count; i++)
        {
            final int r = offset + ChunkDescriptor.recordOffset(i);
            final long seq = buffer.getLong(r + ChunkDescriptor.RECORD_SEQ, LE);
            final long time = buffer.getLong(r + ChunkDescriptor.RECORD_TIME_NS, LE);
            final long address = buffer.getLong(r + ChunkDescriptor.RECORD_ADDRESS, LE);
            final int recordFlags = buffer.getInt(r + ChunkDescriptor.RECORD_FLAGS, LE);
            final int stack = buffer.getInt(r + ChunkDescriptor.RECORD_STACK, LE);
            int tag = (recordFlags & 7) << 1;
            if (seq != nextSeq)
            {
                tag |= BlockDescriptor.TAG_RECORD_SEQ;
                values.putSigned(seq - nextSeq);
            }
            if (tid != previousTid || records == 0)
            {
                // its thread's slot; a thread new to the block takes the next slot, its tid after it
                tag |= BlockDescriptor.TAG_RECORD_TID;
                values.putVarint(slot);
                if (newThread)
                {
                    values.putVarint(tid & 0xffffffffL);
                    newThread = false;
                }
            }
            if (stack != 0)
            {
                tag |= BlockDescriptor.TAG_RECORD_STACK;
                values.putVarint(stack & 0xffffffffL);
            }
            if ((recordFlags & ~7) != 0)
            {
                tag |= BlockDescriptor.TAG_RECORD_MORE_FLAGS;
                values.putVarint((recordFlags & 0xffffffffL) >>> 3);
            }
            tags.put(tag);
            times.putSigned(time - previousRecordTime);
            previousRecordTime = time;
            addresses.putSigned(address - threadAddress);
            threadAddress = address;
            previousAddress = address;
            resident.admit(address >>> BlockDescriptor.PAGE_SHIFT, tid);
            if (records == 0)
            {
                firstTid = tid;
            }
            previousTid = tid;
            noteItem(seq, true, time, time);
            records++;
            nextSeq = seq + 1;
        }
        slotAddress[slot] = threadAddress;
    }

    private void addMoca(final DirectBuffer buffer, final int offset, final int length)
    {
        final int count = buffer.getInt(offset + ChunkDescriptor.COUNT, LE);
        final long close = buffer.getLong(offset + ChunkDescriptor.MOCA_CLOSE_SEQ, LE);
        final long closeNs = buffer.getLong(offset + ChunkDescriptor.MOCA_CLOSE_NS, LE);
        tags.put(BlockDescriptor.TAG_MOCA);
        eventTimes.putSigned(closeNs - previousTime);
        eventValues.putVarint(length);
        copyText(buffer, offset, length);
        long first = Long.MAX_VALUE;
        for (int i = 0; i < count; i++)
        {
            first = Math.min(first, buffer.getLong(offset + ChunkDescriptor.recordOffset(ChunkDescriptor.MOCA, i)
                + ChunkDescriptor.RECORD_TIME_NS, LE));
        }
        if (items == 0)
        {
            firstTid = buffer.getInt(offset + ChunkDescriptor.TID, LE);
        }
        noteItem(close, false, first, closeNs);
        records += count;
        events++;
    }

    /** Adds an event excerpt's payload: an eviction compactly where it can be, any other event whole. */
    void addEvent(final DirectBuffer buffer, final int offset, final int length)
    {
        final int type = buffer.getInt(offset + EventDescriptor.TYPE, LE);
        final int tid = buffer.getInt(offset + EventDescriptor.TID, LE);
        final int textLength = buffer.getInt(offset + EventDescriptor.TEXT_LENGTH, LE);
        final long seq = buffer.getLong(offset + EventDescriptor.SEQ, LE);
        final long time = buffer.getLong(offset + EventDescriptor.TIME_NS, LE);
        final long a = buffer.getLong(offset + EventDescriptor.A, LE);
        final long b = buffer.getLong(offset + EventDescriptor.B, LE);
        final long c = buffer.getLong(offset + EventDescriptor.C, LE);
        final long d = buffer.getLong(offset + EventDescriptor.D, LE);
        final int evictTag = type == EventType.EVICT.code() && b >= 0 && b < 128
            ? BlockDescriptor.EVICT_TAGS.indexOf((char)b) : -1;
        if (items == 0)
        {
            firstTid = tid;
        }
        if (evictTag >= 0 && textLength == 0 && (c == 0 || c == 1) && d == 0
            && (a & ((1L << BlockDescriptor.PAGE_SHIFT) - 1)) == 0)
        {
            int tag = BlockDescriptor.KIND_EVICT | evictTag << BlockDescriptor.TAG_EVICT_TAG_SHIFT;
            if (c == 1)
            {
                tag |= BlockDescriptor.TAG_EVICT_DELETED;
            }
            if (seq != nextSeq)
            {
                tag |= BlockDescriptor.TAG_EVICT_SEQ;
                eventValues.putSigned(seq - nextSeq);
            }
            final long page = a >>> BlockDescriptor.PAGE_SHIFT;
            final int position = resident.take(page);
            final int expectedTid = position >= 0 ? resident.takenTid() : previousTid;
            if (position != 0)
            {
                tag |= BlockDescriptor.TAG_EVICT_PAGE;
                eventValues.putVarint(Math.max(0, position));
                if (position < 0)
                {
                    eventAddresses.putSigned(page - previousEscape);
                    previousEscape = page;
                }
            }
            if (tid != expectedTid)
            {
                tag |= BlockDescriptor.TAG_EVICT_TID;
                eventValues.putVarint(tid & 0xffffffffL);
            }
            tags.put(tag);
        }
        else
        {
            tags.put(BlockDescriptor.TAG_EVENT);
            eventValues.putVarint(type & 0xffffffffL);
            eventValues.putSigned(seq - nextSeq);
            eventValues.putVarint(tid & 0xffffffffL);
            eventValues.putSigned(a);
            eventValues.putSigned(b);
            eventValues.putSigned(c);
            eventValues.putSigned(d);
            eventValues.putVarint(textLength & 0xffffffffL);
            copyText(buffer, offset + EventDescriptor.HEADER_SIZE, textLength);
        }
        eventTimes.putSigned(time - previousTime);
        if (type == EventType.PROCESS_START.code() && startTime == BlockDescriptor.NO_TIME)
        {
            startTime = time;
        }
        noteItem(seq, false, time, time);
        events++;
    }

    private void copyText(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] array = buffer.byteArray();
        if (array != null)
        {
            texts.put(array, (int)(buffer.addressOffset() - org.agrona.BufferUtil.ARRAY_BASE_OFFSET) + offset, length);
        }
        else
        {
            for (int i = 0; i < length; i++)
            {
                texts.put(buffer.getByte(offset + i));
            }
        }
    }

    /** Order key, rank and times of the item just added; the time of the item is the next delta's base. */
    private void noteItem(final long key, final boolean record, final long low, final long high)
    {
        if (items == 0)
        {
            firstSeq = key;
            order = record ? BlockDescriptor.ORDER_FIRST_RECORD : 0;
        }
        lastSeq = key;
        order = (order & BlockDescriptor.ORDER_FIRST_RECORD) | (record ? BlockDescriptor.ORDER_LAST_RECORD : 0);
        minTime = Math.min(minTime, low);
        maxTime = Math.max(maxTime, high);
        previousTime = high;
        items++;
    }

    /** The zstd level of blocks: as small as level 6 within 1 %, at a third of its time (BENCHMARKS.md, "Compact traces"). */
    static final int ZSTD_LEVEL = 3;

    /** A compressor for {@link #block}: native memory, until closed. */
    static ZstdCompressCtx compressor()
    {
        final ZstdCompressCtx ctx = new ZstdCompressCtx();
        ctx.setLevel(ZSTD_LEVEL);
        ctx.setChecksum(false); // the block's own CRC32C covers the body as stored
        return ctx;
    }

    private static int putVarint(final byte[] into, final int at, final long value)
    {
        int p = at;
        long v = value;
        while ((v & ~0x7fL) != 0)
        {
            into[p++] = (byte)((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        into[p++] = (byte)v;
        return p;
    }

    /** What {@link #block} writes into: the block's bytes, from 0. */
    static final class Output
    {
        byte[] bytes = new byte[1 << 16];
        int length;
        private byte[] raw = new byte[1 << 16];
    }

    /**
     * Writes the items added since the last block as one block into {@code out} and starts a new
     * block. Nothing is written if there are none.
     *
     * @return false if there were no items
     */
    boolean block(final Output out, final ZstdCompressCtx zstd, final CRC32C crc)
    {
        if (items == 0)
        {
            return false;
        }
        // the column directory, then each column: compressed alone where that is smaller (a
        // column's own zstd frame has its own entropy tables: a fifth smaller than one frame for
        // all on a JVM's blocks of 100 ms), else as it is
        int rawLength = 0;
        int bound = BlockDescriptor.HEADER_SIZE + 20 * BlockDescriptor.COLUMNS;
        for (final ColumnSink c : columns)
        {
            rawLength += c.length();
            bound += (int)Math.max(c.length(), Zstd.compressBound(c.length()));
        }
        if (out.bytes.length < bound)
        {
            out.bytes = new byte[Math.max(bound, out.bytes.length * 2)];
        }
        if (out.raw.length < bound)
        {
            out.raw = new byte[Math.max(bound, out.raw.length * 2)];
        }
        int directory = BlockDescriptor.HEADER_SIZE;
        int stored = 0;
        for (int c = 0; c < columns.length; c++)
        {
            final ColumnSink column = columns[c];
            int n = column.length() < 64 ? column.length() : zstd.compressByteArray(out.raw, stored,
                out.raw.length - stored, column.bytes(), 0, column.length());
            if (n >= column.length())
            {
                System.arraycopy(column.bytes(), 0, out.raw, stored, column.length());
                n = column.length();
            }
            directory = putVarint(out.bytes, directory, column.length());
            directory = putVarint(out.bytes, directory, n);
            stored += n;
        }
        System.arraycopy(out.raw, 0, out.bytes, directory, stored);
        final int bodyLength = directory - BlockDescriptor.HEADER_SIZE + stored;
        final int encoding = BlockDescriptor.ENCODING_COLUMNS;
        view.wrap(out.bytes);
        view.putInt(0, BlockDescriptor.MAGIC, LE);
        crc.reset();
        crc.update(out.bytes, BlockDescriptor.HEADER_SIZE, bodyLength);
        view.putInt(BlockDescriptor.BODY_CRC, (int)crc.getValue(), LE);
        view.putInt(BlockDescriptor.BODY_LENGTH, bodyLength, LE);
        view.putInt(BlockDescriptor.RAW_LENGTH, rawLength, LE);
        view.putByte(BlockDescriptor.ENCODING, (byte)encoding);
        view.putByte(BlockDescriptor.ORDER, (byte)order);
        view.putShort(BlockDescriptor.RESERVED_16, (short)0, LE);
        view.putInt(BlockDescriptor.PID, pid, LE);
        view.putInt(BlockDescriptor.TID, firstTid, LE);
        view.putInt(BlockDescriptor.THREADS, slots, LE);
        view.putInt(BlockDescriptor.ITEMS, items, LE);
        view.putInt(BlockDescriptor.RECORDS, records, LE);
        view.putInt(BlockDescriptor.EVENTS, events, LE);
        view.putLong(BlockDescriptor.BLOCK_INDEX, blockIndex, LE);
        view.putLong(BlockDescriptor.RECORDS_BEFORE, recordsBefore, LE);
        view.putLong(BlockDescriptor.FIRST_SEQ, firstSeq, LE);
        view.putLong(BlockDescriptor.LAST_SEQ, lastSeq, LE);
        view.putLong(BlockDescriptor.MIN_TIME, minTime, LE);
        view.putLong(BlockDescriptor.MAX_TIME, maxTime, LE);
        view.putLong(BlockDescriptor.START_TIME, startTime, LE);
        view.putLong(BlockDescriptor.RESERVED_64, 0, LE);
        crc.reset();
        crc.update(out.bytes, BlockDescriptor.BODY_CRC, BlockDescriptor.HEADER_SIZE - BlockDescriptor.BODY_CRC);
        view.putInt(BlockDescriptor.HEADER_CRC, (int)crc.getValue(), LE);
        out.length = BlockDescriptor.HEADER_SIZE + bodyLength;
        blockIndex++;
        recordsBefore += records;
        reset();
        return true;
    }
}
