package io.faultline.format;

/**
 * Byte layout of the shared memory between the native agent and the recorder: the Java mirror
 * of {@code native-shims/include/faultline_shm.h}, with the same names. That header holds the
 * full diagram; change both together and bump {@link #VERSION}.
 *
 * <pre>
 *   0                control block ({@link #CTL_SIZE} bytes: magic, version, configuration,
 *                    global clock, stop flag, start time)
 *   SLOTS_OFFSET     slot descriptors, {@link #SLOT_SIZE} bytes each: state, pid, counters
 *   ring_offset      one Agrona one-to-one ring per slot, ring_stride apart
 *   board_offset     monitor mode: one sampling board per slot, board_stride apart
 *   ledger_offset    one thread ledger per slot, {@link #LEDGER_SIZE} bytes apart: records
 *                    published per thread
 *   thread_desc_offset  thread-ring descriptors, {@link #TRING_SIZE} bytes each
 *   thread_ring_offset  one Agrona one-to-one ring per thread ring, thread_ring_stride apart
 * </pre>
 */
public final class ShmLayout
{
    public static final long MAGIC = 0x314d48534c544c46L; // "FLTLSHM1" as little-endian bytes
    public static final int VERSION = 7;
    public static final String ENV_SHM = "FAULTLINE_SHM";

    public static final int CTL_MAGIC = 0;
    public static final int CTL_VERSION = 8;
    public static final int CTL_PAGE_SIZE = 12;
    public static final int CTL_SLOT_COUNT = 16;
    public static final int CTL_RING_CAPACITY = 20;
    public static final int CTL_RING_OFFSET = 24;
    public static final int CTL_RING_STRIDE = 32;
    public static final int CTL_EVMS_PAGES = 40;
    public static final int CTL_SCOPE = 44;
    public static final int CTL_POLICY = 48;
    public static final int CTL_FLAGS = 52;
    public static final int CTL_RECORDER_PID = 56;
    public static final int CTL_CHUNK_RECORDS = 60;
    public static final int CTL_CLOCK = 64;
    public static final int CTL_STOP = 72;
    public static final int CTL_ENGINE = 76;
    public static final int CTL_START_MONO_NS = 80;
    public static final int CTL_LEAD_PAGES = 88;
    /** record --stacks N: frames kept per trapped reference (0: none). */
    public static final int CTL_STACK_FRAMES = 92;
    /** Most frames {@code record --stacks} keeps. */
    public static final int STACK_FRAMES_MAX = 64;
    public static final int CTL_CLAIMS = 104;
    public static final int CTL_INTERVAL_NS = 112;
    public static final int CTL_MODE = 128;
    public static final int CTL_BOARD_ENTRIES = 132;
    public static final int CTL_BOARD_OFFSET = 136;
    public static final int CTL_BOARD_STRIDE = 144;
    public static final int CTL_LEDGER_OFFSET = 152;
    /** Thread rings: how many, their record space, where the first is, their distance, their descriptors. */
    public static final int CTL_THREAD_RINGS = 160;
    public static final int CTL_THREAD_RING_CAPACITY = 164;
    public static final int CTL_THREAD_RING_OFFSET = 168;
    public static final int CTL_THREAD_RING_STRIDE = 176;
    public static final int CTL_THREAD_DESC_OFFSET = 184;
    public static final int CTL_SIZE = 256;

    public static final int SCOPE_ALL = 0;
    public static final int SCOPE_API = 1;
    public static final int POLICY_FIFO = 0;
    public static final int POLICY_SEGQ_CLOCK = 1;
    public static final int POLICY_SEGQ_FIFO = 2;
    public static final int FLAG_FOLLOW_FORKS = 1;
    public static final int FLAG_FOLLOW_EXEC = 2;
    public static final int FLAG_NO_DIRTY = 4;
    /** record --no-kernel-events: the system-call gate records no kernel event (file and shm events). */
    public static final int FLAG_NO_KERNEL_EVENTS = 8;
    /** A read or write event's offset when the call has none (a pipe, a socket): -1 as a u64. */
    public static final long NO_OFFSET = -1L;
    /** Kinds of an open event (a's bits 32 to 39), from fstat's st_mode: see {@link #fileKind(int)}. */
    public static final int FILE_OTHER = 0;
    public static final int FILE_REGULAR = 1;
    public static final int FILE_DIRECTORY = 2;
    public static final int FILE_PIPE = 3;
    public static final int FILE_SOCKET = 4;
    public static final int FILE_CHAR = 5;
    public static final int FILE_BLOCK = 6;
    public static final int FILE_SYMLINK = 7;
    /**
     * How the agent disables pages and traps their references: userfaultfd and a handler thread,
     * mprotect and SIGSEGV, or a user-mode userfaultfd and SIGBUS on the faulting thread.
     */
    public static final int ENGINE_UFFD = 0;
    public static final int ENGINE_MPROTECT = 1;
    public static final int ENGINE_SIGBUS = 2;
    public static final int MODE_TRACE = 0;
    public static final int MODE_MONITOR = 1;
    /** Moca's intervals: no EVMS, every page referenced in an interval disabled at its end, Moca chunks. */
    public static final int MODE_MOCA = 2;
    /** Shortest Moca interval: the agent's guard sleeps in poll(2), whose timeout counts milliseconds. */
    public static final long MOCA_MIN_INTERVAL_NS = 1_000_000L;

    /** The sampling board of a slot in monitor mode: the DAMON core's access checks (faultline_shm.h). */
    public static final int BOARD_REQUEST = 0;
    public static final int BOARD_DONE = 4;
    public static final int BOARD_OP = 8;
    public static final int BOARD_COUNT = 12;
    public static final int BOARD_WAKE_FD = 16;
    public static final int BOARD_ARMED = 20;
    public static final int BOARD_CHECKS = 24;
    public static final int BOARD_MADV_START = 32;
    public static final int BOARD_MADV_LEN = 40;
    public static final int BOARD_MADV_ADVICE = 48;
    public static final int BOARD_MADV_RESULT = 52;
    public static final int BOARD_SAMPLE_US = 56;
    public static final int BOARD_CLOSED = 60;
    public static final int BOARD_HEADER_SIZE = 64;
    public static final int BOARD_ENTRY_ADDRESS = 0;
    public static final int BOARD_ENTRY_STATE = 8;
    public static final int BOARD_ENTRY_ACCESSED = 12;
    public static final int BOARD_ENTRY_SIZE = 16;
    public static final int SAMPLE_ARM = 1;
    public static final int SAMPLE_MADVISE = 3;
    public static final int SAMPLE_ARMED = 1;
    public static final int SAMPLE_UNTRACED = 2;
    public static final int SAMPLE_BUSY = 3;

    /** Where a traced range came from: the c field of a trace-range event. */
    public static final int RANGE_SCAN = 0;
    public static final int RANGE_API = 1;
    public static final int RANGE_MMAP = 2;

    public static final int SLOTS_OFFSET = CTL_SIZE;
    public static final int SLOT_SIZE = 192;
    public static final int SLOT_STATE = 0;
    public static final int SLOT_PID = 4;
    public static final int SLOT_PPID = 8;
    public static final int SLOT_STOP_REASON = 12;
    public static final int SLOT_RECORDS = 16;
    public static final int SLOT_RING_WAITS = 24;
    public static final int SLOT_FAULTS = 32;
    public static final int SLOT_CHUNKS = 40;
    public static final int SLOT_EVICTIONS = 48;
    public static final int SLOT_WAIT_NS = 56;
    public static final int SLOT_RACES = 64;
    public static final int SLOT_ERROR = 72;
    /** u32: when the agent stopped tracing, in ms since the control block's start_mono_ns. */
    public static final int SLOT_STOPPED_MS = 76;
    public static final int SLOT_REGISTERED_PAGES = 80;
    public static final int SLOT_CLAIM = 96;
    public static final int SLOT_FORKS_ANNOUNCED = 88;
    public static final int SLOT_FORK_PIDS = 112;
    public static final int SLOT_FORK_PIDS_COUNT = 4;
    /** Moca mode: time the agent spent disabling pages at interval ends. */
    public static final int SLOT_DISABLE_NS = 104;
    /** u64: the slot ring's watermark, 0 while no producer writes, else 1 + the lowest seq it may still write. */
    public static final int SLOT_RING_LOW = 128;

    /** A thread ring's descriptor (faultline_shm.h): its process image, watermark and counters. */
    public static final int TRING_SIZE = 128;
    public static final int TRING_STATE = 0;
    public static final int TRING_SLOT = 4;
    public static final int TRING_CLAIM = 8;
    public static final int TRING_LOW = 16;
    public static final int TRING_TID = 24;
    public static final int TRING_RECORDS = 32;
    public static final int TRING_CHUNKS = 40;
    public static final int TRING_RING_WAITS = 48;
    public static final int TRING_WAIT_NS = 56;
    public static final int TRING_FAULTS = 64;
    public static final int TRING_EVICTIONS = 72;
    public static final int TRING_RACES = 80;
    public static final int TRING_FREE = 0;
    public static final int TRING_ACTIVE = 1;
    /** Being claimed by an agent: its slot and claim are not written yet. */
    public static final int TRING_CLAIMING = 2;

    public static final int SLOT_FREE = 0;
    public static final int SLOT_ACTIVE = 1;
    public static final int SLOT_STOPPED = 2;

    public static final int STOP_RECORDER_GONE = 1;
    public static final int STOP_REQUESTED = 2;
    public static final int STOP_ERROR = 3;
    public static final int STOP_EXEC = 4;
    /** A signal that dumps core was killing the process: the agent brought every page home for the core. */
    public static final int STOP_SIGNAL = 5;

    /** The thread ledger: per slot, records the agent published per thread (entry 0: threads that found no entry). */
    public static final int LEDGER_TID = 0;
    public static final int LEDGER_RECORDS = 8;
    public static final int LEDGER_ENTRY_SIZE = 16;
    public static final int LEDGER_ENTRIES = 1024;
    public static final int LEDGER_SIZE = LEDGER_ENTRIES * LEDGER_ENTRY_SIZE;

    /** Agrona's ring trailer (tail, head cache, head, correlation, heartbeat). */
    public static final int RING_TRAILER_LENGTH = 768;

    public static final int MSG_CHUNK = 1;
    public static final int MSG_EVENT = 2;

    private ShmLayout()
    {
    }

    public static long slotOffset(final int slot)
    {
        return SLOTS_OFFSET + (long)slot * SLOT_SIZE;
    }

    public static long align(final long value, final long alignment)
    {
        return (value + alignment - 1) & -alignment;
    }

    /** Bytes from one ring to the next: records, Agrona trailer, rounded up to a page. */
    public static long ringStride(final int ringCapacity, final int pageSize)
    {
        return align((long)ringCapacity + RING_TRAILER_LENGTH, pageSize);
    }

    public static long ringOffset(final int slotCount, final int pageSize)
    {
        return align(SLOTS_OFFSET + (long)slotCount * SLOT_SIZE, pageSize);
    }

    public static long fileSize(final int slotCount, final int ringCapacity, final int pageSize)
    {
        return fileSize(slotCount, ringCapacity, pageSize, 0);
    }

    /** With a sampling board of {@code boardEntries} entries per slot after the rings (monitor mode), then the ledgers. */
    public static long fileSize(final int slotCount, final int ringCapacity, final int pageSize, final int boardEntries)
    {
        return ledgerOffset(slotCount, ringCapacity, pageSize, boardEntries) + (long)slotCount * LEDGER_SIZE;
    }

    /**
     * With {@code threadRings} thread rings of {@code threadRingCapacity} bytes after the ledgers
     * (their descriptors first).
     */
    public static long fileSize(final int slotCount, final int ringCapacity, final int pageSize, final int boardEntries,
        final int threadRings, final int threadRingCapacity)
    {
        return threadRingOffset(slotCount, ringCapacity, pageSize, boardEntries, threadRings)
            + threadRings * threadRingStride(threadRingCapacity, pageSize);
    }

    /** Thread-ring descriptor 0: right after the last ledger, page aligned. */
    public static long threadDescOffset(final int slotCount, final int ringCapacity, final int pageSize,
        final int boardEntries)
    {
        return align(ledgerOffset(slotCount, ringCapacity, pageSize, boardEntries) + (long)slotCount * LEDGER_SIZE,
            pageSize);
    }

    /** Thread ring 0: right after the descriptors, page aligned. */
    public static long threadRingOffset(final int slotCount, final int ringCapacity, final int pageSize,
        final int boardEntries, final int threadRings)
    {
        return align(threadDescOffset(slotCount, ringCapacity, pageSize, boardEntries) + (long)threadRings * TRING_SIZE,
            pageSize);
    }

    public static long threadRingStride(final int threadRingCapacity, final int pageSize)
    {
        return ringStride(threadRingCapacity, pageSize);
    }

    /** Slot 0's thread ledger: right after the last board, or the last ring without boards. */
    public static long ledgerOffset(final int slotCount, final int ringCapacity, final int pageSize, final int boardEntries)
    {
        return boardOffset(slotCount, ringCapacity, pageSize) + slotCount * boardStride(boardEntries, pageSize);
    }

    /** Slot 0's sampling board: right after the last ring. */
    public static long boardOffset(final int slotCount, final int ringCapacity, final int pageSize)
    {
        return ringOffset(slotCount, pageSize) + slotCount * ringStride(ringCapacity, pageSize);
    }

    public static long boardStride(final int boardEntries, final int pageSize)
    {
        return boardEntries == 0 ? 0 : align(BOARD_HEADER_SIZE + (long)boardEntries * BOARD_ENTRY_SIZE, pageSize);
    }

    /** The word for an open event's kind (FILE_*), as {@code faultline dump} prints it. */
    public static String fileKind(final int kind)
    {
        return switch (kind)
        {
            case FILE_REGULAR -> "regular";
            case FILE_DIRECTORY -> "directory";
            case FILE_PIPE -> "pipe";
            case FILE_SOCKET -> "socket";
            case FILE_CHAR -> "char-device";
            case FILE_BLOCK -> "block-device";
            case FILE_SYMLINK -> "symlink";
            case FILE_OTHER -> "other";
            default -> "kind-" + kind;
        };
    }
}
