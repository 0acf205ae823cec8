package io.faultline.format;

/**
 * A block: the excerpt of a format-4 trace (trace-format/FORMAT.md, "Blocks"). It holds items of
 * one process in seq order (references, evictions, other events, Moca chunks), coded compactly
 * in columns and compressed, behind a header that says what it holds and two CRC32C checksums.
 * Every field is little-endian.
 *
 * <pre>
 *   0   u32 magic          MAGIC ("FLB4"): how a reader finds a block again past damaged bytes
 *   4   u32 header_crc     CRC32C of bytes 8 to HEADER_SIZE
 *   8   u32 body_crc       CRC32C of the body as stored
 *   12  u32 body_length    bytes of body after the header
 *   16  u32 raw_length     bytes of the columns before compression, in all
 *   20  u8  encoding       ENCODING_COLUMNS
 *   21  u8  order          ORDER_FIRST_RECORD | ORDER_LAST_RECORD
 *   22  u16 reserved       0
 *   24  u32 pid
 *   28  u32 tid            the thread of its first reference (of its first item if it has none)
 *   32  u32 threads        distinct threads among its references
 *   36  u32 items
 *   40  u32 records        references (in a Moca trace: pages of its Moca chunks)
 *   44  u32 events         events (evictions among them) and Moca chunks
 *   48  u64 block_index    the process's blocks, from 0
 *   56  u64 records_before references of the process in its earlier blocks
 *   64  u64 first_seq      the order key of its first item: a reference's or event's seq, a Moca chunk's close_seq
 *   72  u64 last_seq       the order key of its last item
 *   80  u64 min_time       the smallest time_ns of a reference, an event or a Moca page
 *   88  u64 max_time       the largest time_ns of a reference, an event or a Moca chunk's close
 *   96  u64 start_time     time_ns of its first process-start event; NO_TIME if none
 *   104 u64 reserved       0
 *   112 body
 * </pre>
 * The body: a directory of its eight columns (for each, two varints: its length before
 * compression and its length as stored; stored shorter, it is one zstd frame of its own, else
 * its bytes as they are), then the columns as stored. The columns: tags
 * (one byte an item); the references' times, addresses and other values; the events' times,
 * other values and addresses; texts. References and events keep columns of their own so that a
 * reader that wants only the references reads no byte of the events' (simulate and mrc).
 * {@link BlockEncoder} writes it, {@link BlockDecoder} reads it; FORMAT.md gives the item coding.
 */
public final class BlockDescriptor
{
    /** "FLB4" in the file's byte order. */
    public static final int MAGIC = 0x34424c46;
    public static final int HEADER_CRC = 4;
    public static final int BODY_CRC = 8;
    public static final int BODY_LENGTH = 12;
    public static final int RAW_LENGTH = 16;
    public static final int ENCODING = 20;
    public static final int ORDER = 21;
    public static final int RESERVED_16 = 22;
    public static final int PID = 24;
    public static final int TID = 28;
    public static final int THREADS = 32;
    public static final int ITEMS = 36;
    public static final int RECORDS = 40;
    public static final int EVENTS = 44;
    public static final int BLOCK_INDEX = 48;
    public static final int RECORDS_BEFORE = 56;
    public static final int FIRST_SEQ = 64;
    public static final int LAST_SEQ = 72;
    public static final int MIN_TIME = 80;
    public static final int MAX_TIME = 88;
    public static final int START_TIME = 96;
    public static final int RESERVED_64 = 104;
    public static final int HEADER_SIZE = 112;

    /** The body is a column directory and the columns, each compressed alone (zstd, RFC 8878) or as it is. */
    public static final int ENCODING_COLUMNS = 0;

    public static final int ORDER_FIRST_RECORD = 1;
    public static final int ORDER_LAST_RECORD = 2;

    /** start_time of a block without a process-start event. */
    public static final long NO_TIME = -1L;

    /** The most a body may hold before compression: a reader refuses more as corrupt. */
    public static final int MAX_RAW_LENGTH = 64 << 20;

    public static final int COLUMNS = 8;
    public static final int COLUMN_TAGS = 0;
    public static final int COLUMN_TIMES = 1;
    public static final int COLUMN_ADDRESSES = 2;
    public static final int COLUMN_VALUES = 3;
    public static final int COLUMN_EVENT_TIMES = 4;
    public static final int COLUMN_EVENT_VALUES = 5;
    public static final int COLUMN_EVENT_ADDRESSES = 6;
    public static final int COLUMN_TEXTS = 7;

    /** An item's tag: its low two bits say its kind. */
    public static final int KIND_MASK = 3;
    /** A reference: bit 0 clear (bits 1 and 0: x0). */
    public static final int TAG_RECORD_WRITE = 1 << 1;
    public static final int TAG_RECORD_FIRST_TOUCH = 1 << 2;
    public static final int TAG_RECORD_KERNEL = 1 << 3;
    public static final int TAG_RECORD_SEQ = 1 << 4;
    public static final int TAG_RECORD_TID = 1 << 5;
    public static final int TAG_RECORD_STACK = 1 << 6;
    public static final int TAG_RECORD_MORE_FLAGS = 1 << 7;
    /** An eviction: bits 1 and 0 are 01; bits 2 and 3 its tag (r, w, R, W: 0 to 3). */
    public static final int KIND_EVICT = 1;
    public static final int TAG_EVICT_TAG_SHIFT = 2;
    public static final int TAG_EVICT_DELETED = 1 << 4;
    public static final int TAG_EVICT_SEQ = 1 << 5;
    public static final int TAG_EVICT_PAGE = 1 << 6;
    public static final int TAG_EVICT_TID = 1 << 7;
    /** Bits 1 and 0 are 11: an event of any type, whole, or a Moca chunk. */
    public static final int TAG_EVENT = 3;
    public static final int TAG_MOCA = 7;

    /** The eviction tags in the order of their code in an eviction's tag. */
    public static final String EVICT_TAGS = "rwRW";

    /** Evictions name their page in these units; a page address is a multiple of it. */
    public static final int PAGE_SHIFT = 12;

    private BlockDescriptor()
    {
    }
}
