package io.faultline.format;

/**
 * A chunk: consecutive trapped references of one thread (Moca's per-task chunk), the payload of
 * a ring message of type {@link ShmLayout#MSG_CHUNK} and, unchanged, of a trace excerpt of kind
 * {@link TraceLayout#EXCERPT_CHUNK}.
 *
 * <pre>
 *   0   u32 pid
 *   4   u32 tid        kernel thread id of the thread whose reference faulted
 *   8   u64 chunk_id   per process, from 0
 *   16  u32 count      records that follow
 *   20  u32 flags      0
 *   24  count records of RECORD_SIZE bytes:
 *         0   u64 seq       global logical clock: one tick per trapped reference, all processes
 *         8   u64 time_ns   CLOCK_MONOTONIC since the recording started
 *         16  u64 address   exact faulting virtual address
 *         24  u32 flags     REC_WRITE | REC_FIRST_TOUCH
 *         28  u32 reserved  0
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

    public static final int RECORD_SEQ = 0;
    public static final int RECORD_TIME_NS = 8;
    public static final int RECORD_ADDRESS = 16;
    public static final int RECORD_FLAGS = 24;
    public static final int RECORD_SIZE = 32;

    /** The trapped access was a write (also a kernel-mode write, such as read(2) into the page). */
    public static final int REC_WRITE = 1;
    /** The page had never been populated: the fault was resolved with a zero page. */
    public static final int REC_FIRST_TOUCH = 2;

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
}
