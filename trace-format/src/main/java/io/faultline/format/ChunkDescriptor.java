package io.faultline.format;

/**
 * A chunk: consecutive trapped references of one thread (Moca's per-task chunk), the payload of
 * a ring message of type {@link ShmLayout#MSG_CHUNK} and, unchanged, of a trace excerpt of kind
 * {@link TraceLayout#EXCERPT_CHUNK}.
 *
 * <pre>
 *   0   u32 pid
 *   4   u32 tid        kernel thread id of the thread whose reference faulted
 *   8   u64 chunk_id   per process, from 0 (a Moca chunk: per thread, from 0)
 *   16  u32 count      records that follow
 *   20  u32 flags      0, or MOCA
 *   24  count records of RECORD_SIZE bytes:
 *         0   u64 seq       global logical clock: one tick per trapped reference, all processes
 *         8   u64 time_ns   CLOCK_MONOTONIC since the recording started
 *         16  u64 address   exact faulting virtual address
 *         24  u32 flags     REC_WRITE | REC_FIRST_TOUCH | REC_KERNEL
 *         28  u32 stack     the call stack's id, an EventType.STACK of the process image (record
 *                           --stacks); 0 none. Reserved, 0, in a Moca record
 * </pre>
 * A Moca chunk ({@code record --mode moca}; Beniamine and Huard, "Moca: an efficient memory trace
 * collection system", Inria research report, 2016, hal-01342679): the pages one thread faulted on in one interval.
 * <pre>
 *   0..24  as above, flags = MOCA
 *   24  u64 start_seq    the clock taken by its first record
 *   32  u64 end_seq      one past the clock taken by its last record
 *   40  u64 close_seq    the clock when the interval ended: the chunk's place in the order
 *   48  u64 close_ns     when the interval ended
 *   56  u64 interval     the interval's number in the process, from 0
 *   64  count records of RECORD_MOCA_SIZE bytes, one per page:
 *         0..32  as above, for the thread's first fault on the page in the interval
 *         32  u32 reads     read faults of the thread on the page in the interval
 *         36  u32 writes    write faults (on a disabled page, or on a page first read)
 * </pre>
 */
public final class ChunkDescriptor
{
    public static final int PID = 0;
    public static final int TID = 4;
    public static final int CHUNK_ID = 8;
    public static final int COUNT = 16;
    public static final int FLAGS = 20;
    public static final int HEADER_SIZE = 24;

    /** Chunk flags: a Moca chunk, laid out with the MOCA_ offsets. */
    public static final int MOCA = 1;
    public static final int MOCA_START_SEQ = 24;
    public static final int MOCA_END_SEQ = 32;
    public static final int MOCA_CLOSE_SEQ = 40;
    public static final int MOCA_CLOSE_NS = 48;
    public static final int MOCA_INTERVAL = 56;
    public static final int MOCA_HEADER_SIZE = 64;

    public static final int RECORD_SEQ = 0;
    public static final int RECORD_TIME_NS = 8;
    public static final int RECORD_ADDRESS = 16;
    public static final int RECORD_FLAGS = 24;
    /** The record's call stack: an id of an {@link EventType#STACK} event of its process image, 0 none. */
    public static final int RECORD_STACK = 28;
    public static final int RECORD_SIZE = 32;
    public static final int RECORD_MOCA_READS = 32;
    public static final int RECORD_MOCA_WRITES = 36;
    public static final int RECORD_MOCA_SIZE = 40;

    /** The trapped access was a write (also a kernel-mode write, such as read(2) into the page). */
    public static final int REC_WRITE = 1;
    /** The page had never been populated: the fault was resolved with a zero page. */
    public static final int REC_FIRST_TOUCH = 2;
    /**
     * The reference was made by the kernel in a system call on the thread's behalf: the
     * system-call gate brought the page in before the call (FORMAT.md, "Kernel references").
     */
    public static final int REC_KERNEL = 4;

    private ChunkDescriptor()
    {
    }

    public static int length(final int count)
    {
        return HEADER_SIZE + count * RECORD_SIZE;
    }

    public static int recordOffset(final int index)
    {
        return HEADER_SIZE + index * RECORD_SIZE;
    }

    public static boolean isMoca(final int flags)
    {
        return (flags & MOCA) != 0;
    }

    /** Where record {@code index} starts in a chunk with these flags. */
    public static int recordOffset(final int flags, final int index)
    {
        return isMoca(flags) ? MOCA_HEADER_SIZE + index * RECORD_MOCA_SIZE : recordOffset(index);
    }

    /** Bytes of a chunk with these flags and {@code count} records. */
    public static long length(final int flags, final long count)
    {
        return isMoca(flags) ? MOCA_HEADER_SIZE + count * RECORD_MOCA_SIZE : HEADER_SIZE + count * RECORD_SIZE;
    }
}
