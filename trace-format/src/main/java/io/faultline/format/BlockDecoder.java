package io.faultline.format;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

import com.github.luben.zstd.ZstdDecompressCtx;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Checks and decodes the blocks of a format-4 trace ({@link BlockDescriptor}; FORMAT.md,
 * "Blocks"), the reverse of {@link BlockEncoder}: first the header's own checksum, then the
 * body's, then, decoding, that every column is read exactly to its end and that the items agree
 * with everything the header says of them. A block that fails any check is never delivered in
 * part.
 */
final class BlockDecoder implements AutoCloseable
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final CRC32C crc = new CRC32C();
    /** Null until the first compressed block: native memory, until {@link #close}. */
    private ZstdDecompressCtx zstd;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    /** The header of the block being decoded ({@link #view} moves on to its Moca chunks). */
    private final UnsafeBuffer headerView = new UnsafeBuffer(0, 0);
    private final ResidentPages resident = new ResidentPages();
    /** The block's threads by slot (FORMAT.md, "Blocks"): tid, and the last address each referenced. */
    private int[] slotTid = new int[16];
    private long[] slotAddress = new long[16];
    private int slots;
    private byte[] raw = new byte[1 << 16];
    /** Where each column is: its array (the block's bytes, or {@link #raw}), start and end. */
    private final byte[][] array = new byte[BlockDescriptor.COLUMNS][];
    private final int[] start = new int[BlockDescriptor.COLUMNS];
    private final int[] end = new int[BlockDescriptor.COLUMNS];
    private final long[] columnRaw = new long[BlockDescriptor.COLUMNS];
    private final long[] lengths = new long[2];
    private final long[] columnStored = new long[BlockDescriptor.COLUMNS];
    /** The varint columns, decoded in bulk before the items are (COLUMN_TIMES to COLUMN_EVENT_ADDRESSES). */
    private final long[][] decoded = new long[BlockDescriptor.COLUMN_TEXTS][0];
    private final int[] counts = new int[BlockDescriptor.COLUMN_TEXTS];
    /** Cursors while decoding the items, by column. */
    private final int[] at = new int[BlockDescriptor.COLUMN_TEXTS];
    private int textAt;
    private String problem;

    private static final java.util.concurrent.atomic.AtomicBoolean PRELOADED = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Loads zstd-jni's native library on a thread of its own, once: a reader that will decode
     * blocks calls it as it opens a trace, so that the library's loading (its extraction from the
     * jar and dlopen, some 40 ms here) goes on while the first pass walks the queue.
     */
    static void preload()
    {
        if (PRELOADED.compareAndSet(false, true))
        {
            final Thread loader = new Thread(() ->
            {
                try
                {
                    com.github.luben.zstd.util.Native.load();
                }
                catch (final RuntimeException | LinkageError ex)
                {
                    // the first decompression loads it again, and says what is wrong
                }
            }, "faultline-zstd-load");
            loader.setDaemon(true);
            loader.start();
        }
    }

    /** What was wrong with the last block {@link #header} or {@link #decode} refused. */
    String problem()
    {
        return problem;
    }

    /**
     * Checks a block's header: its magic, its checksum, its lengths against {@code length} (the
     * block's, header and body; only the header's bytes are read), and the few values that must
     * hold of any block.
     *
     * @return false with {@link #problem} set if it is not a sound header
     */
    boolean header(final byte[] bytes, final int offset, final int length)
    {
        problem = null;
        if (length < BlockDescriptor.HEADER_SIZE)
        {
            problem = "it is " + length + " bytes long, shorter than a block's header";
            return false;
        }
        view.wrap(bytes, offset, BlockDescriptor.HEADER_SIZE);
        if (view.getInt(0, LE) != BlockDescriptor.MAGIC)
        {
            problem = "it does not begin as a block does";
            return false;
        }
        crc.reset();
        crc.update(bytes, offset + BlockDescriptor.BODY_CRC, BlockDescriptor.HEADER_SIZE - BlockDescriptor.BODY_CRC);
        if ((int)crc.getValue() != view.getInt(BlockDescriptor.HEADER_CRC, LE))
        {
            problem = "its header's checksum does not match";
            return false;
        }
        final long bodyLength = view.getInt(BlockDescriptor.BODY_LENGTH, LE) & 0xffffffffL;
        final long rawLength = view.getInt(BlockDescriptor.RAW_LENGTH, LE) & 0xffffffffL;
        final int encoding = view.getByte(BlockDescriptor.ENCODING);
        if (BlockDescriptor.HEADER_SIZE + bodyLength != length)
        {
            problem = "its header says " + bodyLength + " bytes of body but it holds " + (length - BlockDescriptor.HEADER_SIZE);
            return false;
        }
        if (encoding != BlockDescriptor.ENCODING_COLUMNS || rawLength > BlockDescriptor.MAX_RAW_LENGTH
            || (view.getByte(BlockDescriptor.ORDER) & ~3) != 0 || view.getShort(BlockDescriptor.RESERVED_16, LE) != 0
            || view.getLong(BlockDescriptor.RESERVED_64, LE) != 0 || view.getInt(BlockDescriptor.PID, LE) <= 0
            || view.getInt(BlockDescriptor.ITEMS, LE) <= 0 || view.getInt(BlockDescriptor.RECORDS, LE) < 0
            || view.getInt(BlockDescriptor.EVENTS, LE) < 0 || view.getInt(BlockDescriptor.THREADS, LE) < 0
            || view.getLong(BlockDescriptor.BLOCK_INDEX, LE) < 0 || view.getLong(BlockDescriptor.RECORDS_BEFORE, LE) < 0)
        {
            problem = "its header holds values no block has (encoding " + encoding + ", pid "
                + view.getInt(BlockDescriptor.PID, LE) + ", " + view.getInt(BlockDescriptor.ITEMS, LE) + " items)";
            return false;
        }
        return true;
    }

    /** Checks the body of a block whose {@link #header} is sound against its checksum. */
    boolean body(final byte[] bytes, final int offset, final int length)
    {
        crc.reset();
        crc.update(bytes, offset + BlockDescriptor.HEADER_SIZE, length - BlockDescriptor.HEADER_SIZE);
        view.wrap(bytes, offset, length);
        if ((int)crc.getValue() != view.getInt(BlockDescriptor.BODY_CRC, LE))
        {
            problem = "its checksum does not match its contents";
            return false;
        }
        return true;
    }

    /**
     * Decodes a block whose header and body are sound into {@code out}: every item, or with
     * {@code referencesOnly} its references alone (no byte of the events' columns is read: what
     * {@link TraceReader#forEachReference} needs).
     *
     * @return false with {@link #problem} set if its items are not what its header says
     */
    boolean decode(final byte[] bytes, final int offset, final int length, final ItemBatch out,
        final boolean referencesOnly)
    {
        problem = null;
        try
        {
            problem = decodeOrSay(bytes, offset, length, out, referencesOnly);
        }
        catch (final RuntimeException ex)
        {
            // a zstd frame or a varint that runs past its column: only a faulty writer makes one
            // that its checksums pass
            problem = "its contents do not decode (" + ex.getClass().getSimpleName() + ")";
        }
        if (problem != null)
        {
            problem = "its checksums match but " + problem + "; a faulty writer wrote it";
        }
        return problem == null;
    }

    private String decodeOrSay(final byte[] bytes, final int offset, final int length, final ItemBatch out,
        final boolean referencesOnly)
    {
        view.wrap(bytes, offset, length);
        headerView.wrap(bytes, offset, BlockDescriptor.HEADER_SIZE);
        final int bodyLength = length - BlockDescriptor.HEADER_SIZE;
        final int rawLength = view.getInt(BlockDescriptor.RAW_LENGTH, LE);
        final int pid = view.getInt(BlockDescriptor.PID, LE);
        final int items = view.getInt(BlockDescriptor.ITEMS, LE);
        // the column directory, then each column needed: as stored, or decompressed alone
        int p = offset + BlockDescriptor.HEADER_SIZE;
        final int limit = offset + length;
        long rawTotal = 0;
        long storedTotal = 0;
        for (int c = 0; c < BlockDescriptor.COLUMNS; c++)
        {
            final long[] pair = lengths;
            for (int k = 0; k < 2; k++)
            {
                long n = 0;
                int shift = 0;
                while (true)
                {
                    if (p >= limit || shift > 28)
                    {
                        return "its column directory does not fit its body";
                    }
                    final int b = bytes[p++];
                    n |= (long)(b & 0x7f) << shift;
                    shift += 7;
                    if (b >= 0)
                    {
                        break;
                    }
                }
                pair[k] = n;
            }
            if (pair[1] > pair[0])
            {
                return "its column " + c + " is stored in more bytes than it holds";
            }
            columnRaw[c] = pair[0];
            columnStored[c] = pair[1];
            rawTotal += pair[0];
            storedTotal += pair[1];
        }
        if (storedTotal != limit - p || rawTotal != rawLength)
        {
            return "its column directory does not add up to its body";
        }
        if (raw.length < rawLength)
        {
            raw = new byte[Math.max(rawLength, raw.length * 2)];
        }
        final int last = referencesOnly ? BlockDescriptor.COLUMN_VALUES : BlockDescriptor.COLUMNS - 1;
        int rawAt = 0;
        for (int c = 0; c < BlockDescriptor.COLUMNS; c++)
        {
            final int rawN = (int)columnRaw[c];
            final int storedN = (int)columnStored[c];
            if (c <= last)
            {
                if (storedN == rawN)
                {
                    array[c] = bytes;
                    start[c] = p;
                }
                else
                {
                    if (zstd == null)
                    {
                        zstd = new ZstdDecompressCtx();
                    }
                    final int n = zstd.decompressByteArray(raw, rawAt, rawN, bytes, p, storedN);
                    if (n != rawN)
                    {
                        return "its column " + c + " decompresses to " + n + " bytes, not " + rawN;
                    }
                    array[c] = raw;
                    start[c] = rawAt;
                }
                end[c] = start[c] + rawN;
            }
            p += storedN;
            rawAt += rawN;
        }
        if (end[BlockDescriptor.COLUMN_TAGS] - start[BlockDescriptor.COLUMN_TAGS] != items)
        {
            return "it has " + (end[BlockDescriptor.COLUMN_TAGS] - start[BlockDescriptor.COLUMN_TAGS]) + " tags for "
                + items + " items";
        }
        if (referencesOnly)
        {
            out.clear(pid, view.getInt(BlockDescriptor.RECORDS, LE));
            return references(items, out);
        }
        // every item's: the varint columns in bulk, in tight loops; the items then take their values by index
        final int lastVarints = BlockDescriptor.COLUMN_EVENT_ADDRESSES;
        for (int c = BlockDescriptor.COLUMN_TIMES; c <= lastVarints; c++)
        {
            final int most = end[c] - start[c];
            if (decoded[c].length < most)
            {
                decoded[c] = new long[Math.max(most, decoded[c].length * 2)];
            }
            counts[c] = varints(array[c], start[c], end[c], decoded[c], most);
            if (counts[c] < 0)
            {
                return "a varint runs past its column";
            }
            at[c] = 0;
        }
        out.clear(pid, items);
        final String itemsProblem = items(pid, items, out);
        if (itemsProblem != null)
        {
            return itemsProblem;
        }
        for (int c = BlockDescriptor.COLUMN_TIMES; c <= lastVarints; c++)
        {
            if (at[c] != counts[c])
            {
                return "its column " + c + " is not read to its end";
            }
        }
        if (textAt != end[BlockDescriptor.COLUMN_TEXTS])
        {
            return "its texts are not read to their end";
        }
        return null;
    }

    /**
     * Decodes the varints of {@code body} from {@code from} to {@code to} into {@code into}, at
     * most {@code most}.
     *
     * @return how many, or -1 if the last runs past {@code to} or there are more than {@code most}
     */
    static int varints(final byte[] body, final int from, final int to, final long[] into, final int most)
    {
        int p = from;
        int n = 0;
        // while a whole varint (at most 10 bytes) fits, no check of the end inside one
        final int safe = to - 10;
        while (p < safe && n < most)
        {
            long b = body[p++];
            if (b >= 0)
            {
                into[n++] = b;
                continue;
            }
            long v = b & 0x7f;
            b = body[p++];
            if (b >= 0)
            {
                into[n++] = v | b << 7;
                continue;
            }
            v |= (b & 0x7f) << 7;
            int shift = 14;
            do
            {
                b = body[p++];
                v |= (b & 0x7f) << shift;
                shift += 7;
            }
            while (b < 0 && shift < 70);
            if (b < 0)
            {
                return -1;
            }
            into[n++] = v;
        }
        while (p < to)
        {
            if (n >= most)
            {
                return -1;
            }
            long v = 0;
            int shift = 0;
            long b;
            do
            {
                if (p >= to || shift >= 70)
                {
                    return -1;
                }
                b = body[p++];
                v |= (b & 0x7f) << shift;
                shift += 7;
            }
            while (b < 0);
            into[n++] = v;
        }
        return n;
    }

    private static long unzigzag(final long z)
    {
        return (z >>> 1) ^ -(z & 1);
    }

    /** The next value of a varint column. */
    private long next(final int column)
    {
        final int i = at[column];
        if (i >= counts[column])
        {
            throw new IllegalStateException("column " + column + " ends early");
        }
        at[column] = i + 1;
        return decoded[column][i];
    }

    private long nextSigned(final int column)
    {
        return unzigzag(next(column));
    }

    /**
     * The references of a block, for a reader of references alone: the events' columns are not
     * read, and the varints are decoded where they lie, without a check of their column's end at
     * each byte: a cursor only moves on, so one that ran past its column's end is past it when
     * the block is done, and the block is then refused before anything of it is delivered.
     */
    private String references(final int items, final ItemBatch out)
    {
        final byte[] tags = array[BlockDescriptor.COLUMN_TAGS];
        final byte[] times = array[BlockDescriptor.COLUMN_TIMES];
        final byte[] addresses = array[BlockDescriptor.COLUMN_ADDRESSES];
        final byte[] values = array[BlockDescriptor.COLUMN_VALUES];
        int tagAt = start[BlockDescriptor.COLUMN_TAGS];
        int tp = start[BlockDescriptor.COLUMN_TIMES];
        int ap = start[BlockDescriptor.COLUMN_ADDRESSES];
        int vp = start[BlockDescriptor.COLUMN_VALUES];
        final int capacity = out.seq.length;
        slots = 0;
        long nextSeq = 0;
        long previousTime = 0;
        long previousAddress = 0;
        int previousTid = 0;
        int previousSlot = -1;
        int n = 0;
        int events = 0;
        boolean moca = false;
        final byte[] kind = out.kind;
        final long[] seq = out.seq;
        final long[] time = out.time;
        final int[] tid = out.tid;
        final long[] address = out.address;
        final int[] flags = out.flags;
        final int[] stack = out.stack;
        for (int i = 0; i < items; i++)
        {
            final int tag = tags[tagAt++] & 0xff;
            if ((tag & 1) != 0)
            {
                events++;
                moca |= tag == BlockDescriptor.TAG_MOCA;
                continue;
            }
            if (n >= capacity)
            {
                return "it holds more references than its header says";
            }
            long s = nextSeq;
            int t = previousTid;
            int slot = previousSlot;
            int st = 0;
            int f = (tag >>> 1) & 7;
            if ((tag & (BlockDescriptor.TAG_RECORD_SEQ | BlockDescriptor.TAG_RECORD_TID | BlockDescriptor.TAG_RECORD_STACK
                | BlockDescriptor.TAG_RECORD_MORE_FLAGS)) != 0)
            {
                if ((tag & BlockDescriptor.TAG_RECORD_SEQ) != 0)
                {
                    final long z = varint(values, vp);
                    vp = varintEnd;
                    s += unzigzag(z);
                }
                if ((tag & BlockDescriptor.TAG_RECORD_TID) != 0)
                {
                    final long v = varint(values, vp);
                    vp = varintEnd;
                    if (v == slots)
                    {
                        final long newTid = varint(values, vp);
                        vp = varintEnd;
                        if (newTid <= 0 || newTid > Integer.MAX_VALUE)
                        {
                            return "reference " + i + " has tid " + newTid;
                        }
                        newSlot((int)newTid, previousAddress);
                    }
                    else if (v > slots)
                    {
                        return "reference " + i + " names thread slot " + v + " of " + slots;
                    }
                    slot = (int)v;
                    t = slotTid[slot];
                }
                if ((tag & BlockDescriptor.TAG_RECORD_STACK) != 0)
                {
                    st = (int)varint(values, vp);
                    vp = varintEnd;
                }
                if ((tag & BlockDescriptor.TAG_RECORD_MORE_FLAGS) != 0)
                {
                    f |= (int)varint(values, vp) << 3;
                    vp = varintEnd;
                }
            }
            if (slot < 0)
            {
                return "reference " + i + " names no thread";
            }
            long base = previousAddress;
            if (slot != previousSlot)
            {
                if (previousSlot >= 0)
                {
                    slotAddress[previousSlot] = previousAddress;
                }
                base = slotAddress[slot];
            }
            if (n > 0 && Long.compareUnsigned(s, nextSeq) < 0)
            {
                return "reference " + i + " (seq " + Long.toUnsignedString(s) + ") goes back before seq "
                    + Long.toUnsignedString(nextSeq - 1);
            }
            // the time and the address: one, two or three bytes mostly, decoded here
            long z;
            int b = times[tp++];
            if (b >= 0)
            {
                z = b;
            }
            else
            {
                z = b & 0x7f;
                b = times[tp++];
                if (b >= 0)
                {
                    z |= (long)b << 7;
                }
                else
                {
                    z |= (long)(b & 0x7f) << 7;
                    z |= varint(times, tp) << 14;
                    tp = varintEnd;
                }
            }
            previousTime += (z >>> 1) ^ -(z & 1);
            b = addresses[ap++];
            if (b >= 0)
            {
                z = b;
            }
            else
            {
                z = b & 0x7f;
                b = addresses[ap++];
                if (b >= 0)
                {
                    z |= (long)b << 7;
                }
                else
                {
                    z |= (long)(b & 0x7f) << 7;
                    z |= varint(addresses, ap) << 14;
                    ap = varintEnd;
                }
            }
            previousAddress = base + ((z >>> 1) ^ -(z & 1));
            previousTid = t;
            previousSlot = slot;
            kind[n] = ItemBatch.RECORD;
            seq[n] = s;
            time[n] = previousTime;
            tid[n] = t;
            address[n] = previousAddress;
            flags[n] = f;
            stack[n] = st;
            n++;
            nextSeq = s + 1;
        }
        if (tp != end[BlockDescriptor.COLUMN_TIMES] || ap != end[BlockDescriptor.COLUMN_ADDRESSES]
            || vp != end[BlockDescriptor.COLUMN_VALUES])
        {
            return "its references' columns are not read exactly to their ends";
        }
        out.size = n;
        final UnsafeBuffer h = headerView;
        if (events != h.getInt(BlockDescriptor.EVENTS, LE) || slots != h.getInt(BlockDescriptor.THREADS, LE)
            || !moca && n != h.getInt(BlockDescriptor.RECORDS, LE))
        {
            return "its items are not what its header says of them";
        }
        return null;
    }

    /** A thread new to the block takes the next slot, starting from the address before it. */
    private void newSlot(final int tid, final long address)
    {
        if (slots == slotTid.length)
        {
            slotTid = java.util.Arrays.copyOf(slotTid, slots * 2);
            slotAddress = java.util.Arrays.copyOf(slotAddress, slots * 2);
        }
        slotTid[slots] = tid;
        slotAddress[slots] = address;
        slots++;
    }

    /** Where the last {@link #varint} ended. */
    private int varintEnd;

    /**
     * A LEB128 varint of {@code bytes} at {@code at}, at most ten bytes; where it ends in
     * {@link #varintEnd}. Its column's end is checked by the caller, once, when all are read.
     */
    private long varint(final byte[] bytes, final int at)
    {
        int p = at;
        long value = 0;
        for (int shift = 0; shift < 70; shift += 7)
        {
            final int b = bytes[p++];
            value |= (long)(b & 0x7f) << shift;
            if (b >= 0)
            {
                varintEnd = p;
                return value;
            }
        }
        throw new IllegalStateException("a varint of more than ten bytes");
    }

    /** Every item of a block. */
    private String items(final int pid, final int items, final ItemBatch out)
    {
        final byte[] tags = array[BlockDescriptor.COLUMN_TAGS];
        final byte[] texts = array[BlockDescriptor.COLUMN_TEXTS];
        int tagAt = start[BlockDescriptor.COLUMN_TAGS];
        textAt = start[BlockDescriptor.COLUMN_TEXTS];
        resident.clear();
        slots = 0;
        int previousSlot = -1;
        long nextSeq = 0;
        long previousRecordTime = 0;
        long previousTime = 0;
        long previousAddress = 0;
        int previousTid = 0;
        long previousEscape = 0;
        // what the header says of the items, checked as they come
        long previousKey = 0;
        boolean previousRecord = false;
        int records = 0;
        int events = 0;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long startTime = BlockDescriptor.NO_TIME;
        int firstTid = 0;
        int order = 0;
        final byte[] kind = out.kind;
        final long[] seq = out.seq;
        final long[] time = out.time;
        final int[] tid = out.tid;
        final long[] address = out.address;
        final int[] flags = out.flags;
        final int[] stack = out.stack;
        for (int i = 0; i < items; i++)
        {
            final int tag = tags[tagAt++] & 0xff;
            final long key;
            final int itemTid;
            final boolean record = (tag & 1) == 0;
            if (record)
            {
                final long s = (tag & BlockDescriptor.TAG_RECORD_SEQ) != 0
                    ? nextSeq + nextSigned(BlockDescriptor.COLUMN_VALUES) : nextSeq;
                int slot = previousSlot;
                if ((tag & BlockDescriptor.TAG_RECORD_TID) != 0)
                {
                    final long v = next(BlockDescriptor.COLUMN_VALUES);
                    if (v == slots)
                    {
                        final long newTid = next(BlockDescriptor.COLUMN_VALUES);
                        if (newTid <= 0 || newTid > Integer.MAX_VALUE)
                        {
                            return "reference " + i + " has tid " + newTid;
                        }
                        newSlot((int)newTid, previousAddress);
                    }
                    else if (v > slots)
                    {
                        return "reference " + i + " names thread slot " + v + " of " + slots;
                    }
                    slot = (int)v;
                }
                if (slot < 0)
                {
                    return "reference " + i + " names no thread";
                }
                final int t = slotTid[slot];
                stack[i] = (tag & BlockDescriptor.TAG_RECORD_STACK) != 0 ? (int)next(BlockDescriptor.COLUMN_VALUES) : 0;
                int f = (tag >>> 1) & 7;
                if ((tag & BlockDescriptor.TAG_RECORD_MORE_FLAGS) != 0)
                {
                    f |= (int)next(BlockDescriptor.COLUMN_VALUES) << 3;
                }
                long base = previousAddress;
                if (slot != previousSlot)
                {
                    if (previousSlot >= 0)
                    {
                        slotAddress[previousSlot] = previousAddress;
                    }
                    base = slotAddress[slot];
                }
                final long a = base + nextSigned(BlockDescriptor.COLUMN_ADDRESSES);
                previousRecordTime += nextSigned(BlockDescriptor.COLUMN_TIMES);
                previousTime = previousRecordTime;
                previousAddress = a;
                resident.admit(a >>> BlockDescriptor.PAGE_SHIFT, t);
                previousTid = t;
                previousSlot = slot;
                if (records == 0)
                {
                    firstTid = t;
                }
                itemTid = t;
                records++;
                kind[i] = ItemBatch.RECORD;
                seq[i] = s;
                time[i] = previousTime;
                tid[i] = t;
                address[i] = a;
                flags[i] = f;
                nextSeq = s + 1;
                key = s;
                min = Math.min(min, previousTime);
                max = Math.max(max, previousTime);
            }
            else if ((tag & BlockDescriptor.KIND_MASK) == BlockDescriptor.KIND_EVICT)
            {
                final long s = (tag & BlockDescriptor.TAG_EVICT_SEQ) != 0
                    ? nextSeq + nextSigned(BlockDescriptor.COLUMN_EVENT_VALUES) : nextSeq;
                final long page;
                final int expectedTid;
                if ((tag & BlockDescriptor.TAG_EVICT_PAGE) == 0)
                {
                    page = resident.takeAt(0);
                    expectedTid = resident.takenTid();
                }
                else
                {
                    final long position = next(BlockDescriptor.COLUMN_EVENT_VALUES);
                    if (position == 0)
                    {
                        previousEscape += nextSigned(BlockDescriptor.COLUMN_EVENT_ADDRESSES);
                        page = previousEscape;
                        expectedTid = previousTid;
                    }
                    else
                    {
                        page = resident.takeAt(position);
                        expectedTid = resident.takenTid();
                    }
                }
                if (page < 0)
                {
                    return "eviction " + i + " names a page no reference of the block brought in";
                }
                final int t = (tag & BlockDescriptor.TAG_EVICT_TID) != 0 ? (int)next(BlockDescriptor.COLUMN_EVENT_VALUES)
                    : expectedTid;
                previousTime += nextSigned(BlockDescriptor.COLUMN_EVENT_TIMES);
                itemTid = t;
                kind[i] = ItemBatch.EVENT;
                seq[i] = s;
                time[i] = previousTime;
                tid[i] = t;
                flags[i] = EventType.EVICT.code();
                address[i] = page << BlockDescriptor.PAGE_SHIFT;
                out.b[i] = BlockDescriptor.EVICT_TAGS.charAt((tag >>> BlockDescriptor.TAG_EVICT_TAG_SHIFT) & 3);
                out.c[i] = (tag & BlockDescriptor.TAG_EVICT_DELETED) != 0 ? 1 : 0;
                out.d[i] = 0;
                out.text[i] = null;
                key = s;
                events++;
                min = Math.min(min, previousTime);
                max = Math.max(max, previousTime);
            }
            else if (tag == BlockDescriptor.TAG_EVENT)
            {
                final long type = next(BlockDescriptor.COLUMN_EVENT_VALUES);
                final long s = nextSeq + nextSigned(BlockDescriptor.COLUMN_EVENT_VALUES);
                final long t = next(BlockDescriptor.COLUMN_EVENT_VALUES);
                address[i] = nextSigned(BlockDescriptor.COLUMN_EVENT_VALUES);
                out.b[i] = nextSigned(BlockDescriptor.COLUMN_EVENT_VALUES);
                out.c[i] = nextSigned(BlockDescriptor.COLUMN_EVENT_VALUES);
                out.d[i] = nextSigned(BlockDescriptor.COLUMN_EVENT_VALUES);
                final long textLength = next(BlockDescriptor.COLUMN_EVENT_VALUES);
                if (type > Integer.MAX_VALUE || t > 0xffffffffL || textLength > end[BlockDescriptor.COLUMN_TEXTS] - textAt)
                {
                    return "event " + i + " holds values no event has";
                }
                out.text[i] = textLength == 0 ? null : new String(texts, textAt, (int)textLength, StandardCharsets.UTF_8);
                textAt += (int)textLength;
                previousTime += nextSigned(BlockDescriptor.COLUMN_EVENT_TIMES);
                itemTid = (int)t;
                kind[i] = ItemBatch.EVENT;
                seq[i] = s;
                time[i] = previousTime;
                tid[i] = (int)t;
                flags[i] = (int)type;
                if (type == EventType.PROCESS_START.code() && startTime == BlockDescriptor.NO_TIME)
                {
                    startTime = previousTime;
                }
                key = s;
                events++;
                min = Math.min(min, previousTime);
                max = Math.max(max, previousTime);
            }
            else if (tag == BlockDescriptor.TAG_MOCA)
            {
                final long length = next(BlockDescriptor.COLUMN_EVENT_VALUES);
                if (length > end[BlockDescriptor.COLUMN_TEXTS] - textAt)
                {
                    return "Moca chunk " + i + " runs past its column";
                }
                final byte[] payload = new byte[TraceLayout.EXCERPT_KIND_SIZE + (int)length];
                payload[0] = TraceLayout.EXCERPT_CHUNK;
                System.arraycopy(texts, textAt, payload, TraceLayout.EXCERPT_KIND_SIZE, (int)length);
                textAt += (int)length;
                final UnsafeBuffer chunk = new UnsafeBuffer(payload);
                final String wrong = ExcerptCheck.problem(chunk, payload.length);
                if (wrong != null || !ChunkDescriptor.isMoca(chunk.getInt(TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.FLAGS, LE))
                    || chunk.getInt(TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.PID, LE) != pid)
                {
                    return "Moca chunk " + i + " is not sound (" + (wrong == null ? "another process's, or no Moca chunk" : wrong) + ")";
                }
                previousTime += nextSigned(BlockDescriptor.COLUMN_EVENT_TIMES);
                if (previousTime != chunk.getLong(TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.MOCA_CLOSE_NS, LE))
                {
                    return "Moca chunk " + i + "'s close time is not its item's";
                }
                key = chunk.getLong(TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.MOCA_CLOSE_SEQ, LE);
                itemTid = chunk.getInt(TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.TID, LE);
                kind[i] = ItemBatch.MOCA;
                seq[i] = key;
                time[i] = previousTime;
                tid[i] = itemTid;
                out.moca[i] = payload;
                final int pages = chunk.getInt(TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.COUNT, LE);
                records += pages;
                for (int q = 0; q < pages; q++)
                {
                    min = Math.min(min, chunk.getLong(TraceLayout.EXCERPT_KIND_SIZE
                        + ChunkDescriptor.recordOffset(ChunkDescriptor.MOCA, q) + ChunkDescriptor.RECORD_TIME_NS, LE));
                }
                max = Math.max(max, previousTime);
                events++;
            }
            else
            {
                return "item " + i + " has tag 0x" + Integer.toHexString(tag) + ", which no item has";
            }
            // FORMAT.md, "Order": nothing goes back, nothing comes after a reference of the same seq
            if (i == 0)
            {
                order = record ? BlockDescriptor.ORDER_FIRST_RECORD : 0;
                if (key != headerView.getLong(BlockDescriptor.FIRST_SEQ, LE))
                {
                    return "its first item is not what its header says";
                }
                if (!record)
                {
                    firstTid = itemTid; // a reference later takes its place
                }
            }
            else
            {
                final int c = Long.compareUnsigned(key, previousKey);
                if (c < 0 || c == 0 && previousRecord)
                {
                    return "item " + i + " (seq " + Long.toUnsignedString(key) + ") goes back before seq "
                        + Long.toUnsignedString(previousKey);
                }
            }
            previousKey = key;
            previousRecord = record;
        }
        out.size = items;
        order |= previousRecord ? BlockDescriptor.ORDER_LAST_RECORD : 0;
        final UnsafeBuffer h = headerView;
        if (records != h.getInt(BlockDescriptor.RECORDS, LE) || events != h.getInt(BlockDescriptor.EVENTS, LE)
            || slots != h.getInt(BlockDescriptor.THREADS, LE) || firstTid != h.getInt(BlockDescriptor.TID, LE)
            || previousKey != h.getLong(BlockDescriptor.LAST_SEQ, LE) || order != h.getByte(BlockDescriptor.ORDER)
            || min != h.getLong(BlockDescriptor.MIN_TIME, LE) || max != h.getLong(BlockDescriptor.MAX_TIME, LE)
            || startTime != h.getLong(BlockDescriptor.START_TIME, LE))
        {
            return "its items are not what its header says of them";
        }
        return null;
    }

    @Override
    public void close()
    {
        if (zstd != null)
        {
            zstd.close();
            zstd = null;
        }
    }
}
