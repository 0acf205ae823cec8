/*
 * faultline_shm.h: the shared memory between the native agent (producer, inside the target)
 * and the recorder (consumer, Java). The Java side mirrors every constant here with the same
 * name in io.faultline.format.ShmLayout, ChunkDescriptor and EventDescriptor; change both
 * together and bump FL_SHM_VERSION. All integers are native byte order (little-endian x86-64).
 *
 * The recorder creates a file (normally under /dev/shm), writes the control block, and starts
 * the target with FAULTLINE_SHM=<path> and LD_PRELOAD=libfaultline.so. Every process that loads
 * the agent maps the file MAP_SHARED, claims one slot (CAS state FREE -> ACTIVE) and produces
 * into that slot's ring. The recorder drains every claimed slot.
 *
 * File layout:
 *
 *   0                      control block (FL_CTL_SIZE bytes)
 *   FL_SLOTS_OFFSET        slot_count slot descriptors, FL_SLOT_SIZE bytes each
 *   ring_offset            slot 0 ring: ring_capacity bytes of records + FL_RING_TRAILER_LENGTH
 *   ring_offset + stride   slot 1 ring ...           (stride = ring_stride, page aligned)
 *   board_offset           monitor mode: one sampling board per slot, board_stride apart
 *   ledger_offset          one thread ledger per slot, FL_LEDGER_SIZE bytes apart
 *   thread_desc_offset     thread_rings thread-ring descriptors, FL_TRING_SIZE bytes each
 *   thread_ring_offset     thread ring 0: thread_ring_capacity bytes of records + FL_RING_TRAILER_LENGTH
 *   ... + stride           thread ring 1 ...     (stride = thread_ring_stride, page aligned)
 *
 * Producers and rings. Every ring has one producer at a time, and the messages of one ring are in
 * seq order (a message's seq: its records' or its event's; a Moca chunk's close_seq). A slot's
 * own ring is written by whoever holds the agent lock of that process image (its handler threads,
 * and program threads on the lock's path); a thread ring by one thread of one process image,
 * which claims it (CAS state FREE -> ACTIVE, with its slot and the slot's claim) the first time it
 * resolves a fault without the agent lock, and keeps it while the image lives (a later thread of
 * the image may take it over from a thread that is gone: one producer at a time). The recorder
 * merges a process image's rings by seq (docs/ARCHITECTURE.md, "Rings"), which needs to know what
 * a producer may still write: each ring has a watermark word (`low`: the slot's at
 * FL_SLOT_RING_LOW, a thread ring's in its descriptor): 0 while the producer writes nothing (so that a zeroed
 * descriptor is idle), else one more than the lowest seq it may still write. The producer sets it
 * to the clock's value + 1 before it takes a seq or reads the clock for a message, with a full
 * barrier, and back to 0 after publishing. A producer that is idle when the recorder looks writes
 * nothing below the clock's value as the recorder read it before. The recorder frees
 * the thread rings of an image once the image is gone and its rings are drained.
 *
 * Control block:
 *
 *   0   u64 magic            FL_SHM_MAGIC
 *   8   u32 version          FL_SHM_VERSION
 *   12  u32 page_size
 *   16  u32 slot_count
 *   20  u32 ring_capacity    bytes of record space per ring, a power of two
 *   24  u64 ring_offset      file offset of slot 0's ring
 *   32  u64 ring_stride      distance between consecutive rings
 *   40  u32 evms_pages       size of the evicted virtual mapping set (enabled pages)
 *   44  u32 scope            FL_SCOPE_*
 *   48  u32 policy           FL_POLICY_* (the EVMS policy; docs in trace-format/FORMAT.md, "EVMS")
 *   52  u32 flags            FL_FLAG_*
 *   56  u32 recorder_pid     the agent polls a pidfd of this process: if it dies, tracing stops
 *   60  u32 chunk_records    most records in one chunk
 *   64  u64 clock            global logical clock: one tick per trapped reference, all processes
 *   72  u32 stop             the recorder sets 1: every agent restores its pages and stops
 *   76  u32 engine           FL_ENGINE_*: how the agent disables pages and traps their references
 *   80  u64 start_mono_ns    CLOCK_MONOTONIC at recording start; record times are relative to it
 *   88  u32 lead_pages       pages in the leading FIFO segment under the segq policies (0: fifo)
 *   92  u32 stack_frames     record --stacks N: frames of the call stack kept per trapped reference
 *                            (1 to FL_STACK_FRAMES_MAX), 0: no stacks
 *   104 u64 claims           slots claimed so far: each claim takes the next number (slot claim)
 *   112 u64 interval_ns      Moca mode: the interval at whose end every page referenced in it is
 *                            disabled again and every thread's chunk is written (0 otherwise)
 *   128 u32 mode             FL_MODE_*: trace (records every trapped reference), monitor (DAMON)
 *                            or moca (Moca's intervals)
 *   132 u32 board_entries    monitor mode: entries of each slot's sampling board (0 otherwise)
 *   136 u64 board_offset     file offset of slot 0's sampling board (after the last ring)
 *   144 u64 board_stride     distance between consecutive boards (page aligned)
 *   152 u64 ledger_offset    file offset of slot 0's thread ledger (after the last board or ring)
 *   160 u32 thread_rings     thread rings (0: none; every message goes to the slots' rings)
 *   164 u32 thread_ring_capacity  bytes of record space per thread ring, a power of two
 *   168 u64 thread_ring_offset    file offset of thread ring 0
 *   176 u64 thread_ring_stride    distance between consecutive thread rings
 *   184 u64 thread_desc_offset    file offset of thread-ring descriptor 0 (after the ledgers)
 *
 * Slot descriptor (FL_SLOT_SIZE bytes, one writer: the agent that claimed it):
 *
 *   0   u32 state            FL_SLOT_*
 *   4   u32 pid
 *   8   u32 ppid
 *   12  u32 stop_reason      FL_STOP_* once state is STOPPED
 *   16  u64 records          records published into the ring
 *   24  u64 ring_waits       times the agent found the ring full and had to wait
 *   32  u64 faults           userfaultfd fault messages handled
 *   40  u64 chunks           chunks published
 *   48  u64 evictions        pages disabled by the EVMS policy
 *   56  u64 wait_ns          time spent waiting on a full ring
 *   64  u64 races            EEXIST / EAGAIN outcomes that were resolved by wake or retry
 *   72  u32 error            errno of the failure that stopped tracing, 0 if none
 *   76  u32 stopped_ms       when the agent stopped tracing, in ms since start_mono_ns (once state
 *                            is STOPPED): the recorder dates a stop it did not ask for
 *   80  u64 registered_pages pages currently registered for tracing
 *   88  u32 forks_announced  FORK events this process's agent has emitted; a futex word (shared)
 *   92  u32 reserved
 *   96  u64 claim            order of this claim among all (control block claims, from 1): slots
 *                            are reused, so their index says nothing about which came first
 *   104 u64 disable_ns       Moca mode: time spent disabling pages at interval ends (evictions
 *                            counts the pages), so that the cost per page can be reported
 *   112 u32 fork_pids[4]     the child pid of FORK event n at fork_pids[n % 4]: a followed child
 *                            waits until its pid is here before it traps anything, so that its
 *                            first reference's seq comes after its parent's FORK event
 *   128 u64 ring_low         the slot ring's watermark (see Producers and rings): 0 while no
 *                            producer is writing
 *   136 u64 reserved[7]
 *
 * The counters above are those of the agent-lock path. A thread ring's descriptor keeps those of
 * its producers (records, chunks, faults, evictions, ring waits): the recorder adds the thread
 * rings of an image to its slot's.
 *
 * Thread-ring descriptor (FL_TRING_SIZE bytes; the producer writes all but state's FREE):
 *
 *   0   u32 state            FL_TRING_FREE, FL_TRING_CLAIMING or FL_TRING_ACTIVE
 *   4   u32 slot             the slot of the process image that claimed it
 *   8   u64 claim            that slot's claim (slots are reused: a ring of an older image of the
 *                            slot is not this image's)
 *   16  u64 low              the ring's watermark (see Producers and rings)
 *   24  u32 tid              the thread producing into it now
 *   28  u32 reserved
 *   32  u64 records          as the slot's counters, for this ring's producers
 *   40  u64 chunks
 *   48  u64 ring_waits
 *   56  u64 wait_ns
 *   64  u64 faults
 *   72  u64 evictions
 *   80  u64 races
 *   88  u64 reserved[5]
 *
 * Thread ledger (FL_LEDGER_SIZE bytes per slot, one writer: the agent that claimed the slot, as
 * it publishes into the ring; the recorder zeroes it with the rest of the slot when it gives the
 * slot back): how many records the agent published for each thread, so that the recorder can
 * check every thread's records in the trace against it (a record lost between an agent and the
 * trace shows as a difference for its thread). FL_LEDGER_ENTRIES entries of FL_LEDGER_ENTRY_SIZE
 * bytes:
 *
 *   0   u32 tid              0 in a free entry; entry 0's is always 0: the overflow entry
 *   4   u32 reserved
 *   8   u64 records          records published for that thread. A thread's entry is found by
 *                            linear probing over entries 1.. from 1 + tid % (FL_LEDGER_ENTRIES - 1);
 *                            threads that find none (an image that ran more threads than that)
 *                            count in entry 0
 *
 * Sampling board (monitor mode): how the recorder's DAMON core asks one process's agent for
 * access checks (the vaddr and fvaddr operations sets; docs/ARCHITECTURE.md, "Monitoring").
 * One request at a time, the recorder writing and the agent answering; the sampling window an
 * ARM opens is timed and closed by the agent's deadline loop:
 *
 *   0   u32 request          the recorder: sequence number of the request it posts (+1 each)
 *   4   u32 done             the agent: sequence number of the last request served; a futex
 *                            word (shared, not private) that the recorder sleeps on
 *   8   u32 op               FL_SAMPLE_ARM or FL_SAMPLE_MADVISE
 *   12  u32 count            entries of this request (at most board_entries)
 *   16  u32 wake_fd          the agent: its guard's eventfd, which the recorder takes with
 *                            pidfd_getfd(2) and writes to post a request (the guard sleeps in poll)
 *   20  u32 armed            the agent: entries the last ARM could disable
 *   24  u64 checks           the agent: access-check faults resolved so far
 *   32  u64 madv_start       FL_SAMPLE_MADVISE: the range [start, start + len) and the advice the
 *   40  u64 madv_len         agent applies with madvise(2) in the program (DAMOS actions that
 *   48  u32 madv_advice      process_madvise(2) refuses from outside: hugepage, nohugepage)
 *   52  i32 madv_result      the agent: 0 or -errno
 *   56  u32 sample_us        the recorder, with an ARM: the sampling interval, the window's length
 *   60  u32 closed           the agent: request number of the last ARM whose window it closed;
 *                            a futex word (shared) that the recorder sleeps on
 *   64  entries[count], FL_BOARD_ENTRY_SIZE bytes each:
 *         0   u64 address    the recorder: a sampling address (any byte of the page)
 *         8   u32 state      the agent, on ARM: FL_SAMPLE_* below
 *         12  u32 accessed   the agent: 1 once the page was accessed after ARM
 *
 * ARM: the agent disables each entry's page (an access now faults and sets accessed), clears
 * accessed, answers (done), and sample_us later its deadline loop closes the window: it
 * resolves every fault already queued, stops counting, brings home the pages nobody accessed
 * and sets closed. accessed then says, for each entry, whether its page was accessed in the
 * window. (Request op 2, a CHECK posted by the recorder at the end of its own sleep, is gone.)
 *
 * Ring: Agrona OneToOneRingBuffer layout (docs/ARCHITECTURE.md, "Rings"). Message types:
 *
 *   FL_MSG_CHUNK  a chunk of consecutive trapped references of one thread:
 *     0   u32 pid
 *     4   u32 tid
 *     8   u64 chunk_id      per producer (ring), from 0 (Moca chunk: per thread, from 0)
 *     16  u32 count         number of records that follow
 *     20  u32 flags         0, or FL_CHUNK_MOCA: a Moca chunk, laid out as below
 *     24  records[count], FL_RECORD_SIZE bytes each:
 *           0   u64 seq       value of the global clock taken for this reference
 *           8   u64 time_ns   CLOCK_MONOTONIC - start_mono_ns
 *           16  u64 address   exact faulting address
 *           24  u32 flags     FL_REC_WRITE | FL_REC_FIRST_TOUCH | FL_REC_KERNEL
 *           28  u32 stack     the call stack's id (FL_EV_STACK of this process image), 0: none
 *                             (recorded without --stacks, a kernel reference, a full stack table)
 *
 *   A Moca chunk (FL_MODE_MOCA, mode_moca.c): the pages one thread faulted on in one interval, written
 *   when the interval ends. Same first 24 bytes, then:
 *     24  u64 start_seq     the clock taken by its first record (its first fault)
 *     32  u64 end_seq       one past the clock taken by its last record
 *     40  u64 close_seq     the clock when the interval ended: the chunk's place in the trace's
 *                           order (records and events of the process before it have seq <= this)
 *     48  u64 close_ns      when the interval ended, CLOCK_MONOTONIC - start_mono_ns
 *     56  u64 interval      the interval's number in this process, from 0
 *     64  records[count], FL_RECORD_MOCA_SIZE bytes each, one per page, in seq order:
 *           0..28             as above, for the thread's first fault on the page in the interval
 *           32  u32 reads     read faults of the thread on the page in the interval
 *           36  u32 writes    write faults: on a disabled page, and on an enabled page first read
 *                             (write-protected, so that its first write faults)
 *   A thread with more pages in one interval than one ring message holds gets several chunks
 *   with the same chunk_id and interval, in order.
 *
 *   FL_MSG_EVENT  something that happened to a process, thread or mapping:
 *     0   u32 type          FL_EV_*
 *     4   u32 pid
 *     8   u32 tid
 *     12  u32 text_length   bytes of UTF-8 text after the fixed part (no NUL)
 *     16  u64 seq           global clock when it happened (records with seq < this came before)
 *     24  u64 time_ns       CLOCK_MONOTONIC - start_mono_ns
 *     32  u64 a             meaning per type, see FL_EV_*
 *     40  u64 b
 *     48  u64 c
 *     56  u64 d
 *     64  text
 */
#ifndef FAULTLINE_SHM_H
#define FAULTLINE_SHM_H

#include <stdint.h>

#define FL_SHM_MAGIC   0x314d48534c544c46ULL /* "FLTLSHM1" read as little-endian bytes */
#define FL_SHM_VERSION 7

#define FL_ENV_SHM "FAULTLINE_SHM"

/* control block */
#define FL_CTL_MAGIC            0
#define FL_CTL_VERSION          8
#define FL_CTL_PAGE_SIZE        12
#define FL_CTL_SLOT_COUNT       16
#define FL_CTL_RING_CAPACITY    20
#define FL_CTL_RING_OFFSET      24
#define FL_CTL_RING_STRIDE      32
#define FL_CTL_EVMS_PAGES       40
#define FL_CTL_SCOPE            44
#define FL_CTL_POLICY           48
#define FL_CTL_FLAGS            52
#define FL_CTL_RECORDER_PID     56
#define FL_CTL_CHUNK_RECORDS    60
#define FL_CTL_CLOCK            64
#define FL_CTL_STOP             72
#define FL_CTL_ENGINE           76
#define FL_CTL_START_MONO_NS    80
#define FL_CTL_LEAD_PAGES       88
#define FL_CTL_STACK_FRAMES     92
#define FL_CTL_CLAIMS           104
#define FL_CTL_INTERVAL_NS      112
#define FL_CTL_MODE             128
#define FL_CTL_BOARD_ENTRIES    132
#define FL_CTL_BOARD_OFFSET     136
#define FL_CTL_BOARD_STRIDE     144
#define FL_CTL_LEDGER_OFFSET    152
#define FL_CTL_THREAD_RINGS     160
#define FL_CTL_THREAD_RING_CAPACITY 164
#define FL_CTL_THREAD_RING_OFFSET 168
#define FL_CTL_THREAD_RING_STRIDE 176
#define FL_CTL_THREAD_DESC_OFFSET 184
#define FL_CTL_SIZE             256

#define FL_SCOPE_ALL 0
#define FL_SCOPE_API 1

/*
 * EVMS policies (kVMTrace): one FIFO segment, or a leading FIFO segment of lead_pages whose
 * exits enter a trailing segment managed by CLOCK or FIFO (segq). FL_POLICY_SEGQ_CLOCK is also
 * `--policy clock`, as kVMTrace's CLOCK option was.
 */
#define FL_POLICY_FIFO       0
#define FL_POLICY_SEGQ_CLOCK 1
#define FL_POLICY_SEGQ_FIFO  2

/*
 * Engines: userfaultfd (pages parked with UFFDIO_MOVE; a kernel-mode access to a disabled page
 * waits for the agent and succeeds), or mprotect (PROT_NONE and the faulting thread's SIGSEGV
 * handler; a kernel-mode access to a disabled page fails with EFAULT). docs/ARCHITECTURE.md.
 */
#define FL_ENGINE_UFFD     0
#define FL_ENGINE_MPROTECT 1
#define FL_ENGINE_SIGBUS   2

#define FL_MODE_TRACE   0
#define FL_MODE_MONITOR 1 /* no records, no EVMS: only the sampling board's access checks */
#define FL_MODE_MOCA    2 /* no EVMS: pages stay enabled until the interval ends; Moca chunks */

/*
 * Shortest Moca interval: the guard that ends intervals sleeps in poll(2), whose timeout counts
 * milliseconds. Disabling must also stay far below the interval (BENCHMARKS.md, "Moca").
 */
#define FL_MOCA_MIN_INTERVAL_NS 1000000ULL

#define FL_FLAG_FOLLOW_FORKS 1u /* trace children (issue 3); without it only the first process */
#define FL_FLAG_FOLLOW_EXEC  2u /* without FOLLOW_FORKS: the first process's later images too (monitor) */
/*
 * No dirty tracking (record --no-dirty): a page brought in by a read is not write-protected, so
 * a later write while resident is not seen and a page's dirty flag says only that a fault of it
 * was a write. Saves a write-protect per read reference and a soft fault per first write.
 */
#define FL_FLAG_NO_DIRTY     4u
/*
 * No kernel events (record --no-kernel-events): the system-call gate records no FL_EV_FILE_* or
 * FL_EV_SHM* event. Under the uffd engine the gate then does not arm at all (it is there only
 * for the events); under sigbus and mprotect it still gates the calls' memory.
 */
#define FL_FLAG_NO_KERNEL_EVENTS 8u

/* slots */
#define FL_SLOTS_OFFSET         FL_CTL_SIZE
#define FL_SLOT_SIZE            192
#define FL_SLOT_STATE           0
#define FL_SLOT_PID             4
#define FL_SLOT_PPID            8
#define FL_SLOT_STOP_REASON     12
#define FL_SLOT_RECORDS         16
#define FL_SLOT_RING_WAITS      24
#define FL_SLOT_FAULTS          32
#define FL_SLOT_CHUNKS          40
#define FL_SLOT_EVICTIONS       48
#define FL_SLOT_WAIT_NS         56
#define FL_SLOT_RACES           64
#define FL_SLOT_ERROR           72
#define FL_SLOT_STOPPED_MS      76
#define FL_SLOT_REGISTERED_PAGES 80
#define FL_SLOT_CLAIM           96
#define FL_SLOT_FORKS_ANNOUNCED 88
#define FL_SLOT_FORK_PIDS       112
#define FL_SLOT_FORK_PIDS_COUNT 4
#define FL_SLOT_DISABLE_NS      104
#define FL_SLOT_RING_LOW        128

/* thread-ring descriptors */
#define FL_TRING_SIZE        128
#define FL_TRING_STATE       0
#define FL_TRING_SLOT        4
#define FL_TRING_CLAIM       8
#define FL_TRING_LOW         16
#define FL_TRING_TID         24
#define FL_TRING_RECORDS     32
#define FL_TRING_CHUNKS      40
#define FL_TRING_RING_WAITS  48
#define FL_TRING_WAIT_NS     56
#define FL_TRING_FAULTS      64
#define FL_TRING_EVICTIONS   72
#define FL_TRING_RACES       80
#define FL_TRING_FREE     0
#define FL_TRING_ACTIVE   1
#define FL_TRING_CLAIMING 2 /* being claimed: slot and claim not yet written */

#define FL_SLOT_FREE    0
#define FL_SLOT_ACTIVE  1 /* claimed; the agent is tracing */
#define FL_SLOT_STOPPED 2 /* the agent stopped tracing (stop_reason says why); the process may still run */

#define FL_STOP_RECORDER_GONE 1
#define FL_STOP_REQUESTED     2
#define FL_STOP_ERROR         3
#define FL_STOP_EXEC          4
#define FL_STOP_SIGNAL        5 /* a signal that dumps core is killing the process: every page home for the core */

/* sampling board */
#define FL_BOARD_REQUEST     0
#define FL_BOARD_DONE        4
#define FL_BOARD_OP          8
#define FL_BOARD_COUNT       12
#define FL_BOARD_WAKE_FD     16
#define FL_BOARD_ARMED       20
#define FL_BOARD_CHECKS      24
#define FL_BOARD_MADV_START  32
#define FL_BOARD_MADV_LEN    40
#define FL_BOARD_MADV_ADVICE 48
#define FL_BOARD_MADV_RESULT 52
#define FL_BOARD_SAMPLE_US   56
#define FL_BOARD_CLOSED      60
#define FL_BOARD_HEADER_SIZE 64
#define FL_BOARD_ENTRY_ADDRESS  0
#define FL_BOARD_ENTRY_STATE    8
#define FL_BOARD_ENTRY_ACCESSED 12
#define FL_BOARD_ENTRY_SIZE     16

#define FL_SAMPLE_ARM   1
#define FL_SAMPLE_MADVISE 3

#define FL_SAMPLE_ARMED     1 /* disabled: an access faults and is seen */
#define FL_SAMPLE_UNTRACED  2 /* not in traced memory: cannot be checked */
#define FL_SAMPLE_BUSY      3 /* could not be disabled now (an event in flight, a pinned page) */

/* thread ledger */
#define FL_LEDGER_TID        0
#define FL_LEDGER_RECORDS    8
#define FL_LEDGER_ENTRY_SIZE 16
#define FL_LEDGER_ENTRIES    1024
#define FL_LEDGER_SIZE       16384 /* FL_LEDGER_ENTRIES * FL_LEDGER_ENTRY_SIZE: a multiple of the page size */

/* Agrona ring trailer, relative to the end of the record space (capacity) */
#define FL_RING_TAIL_POSITION_OFFSET   128
#define FL_RING_HEAD_CACHE_OFFSET      256
#define FL_RING_HEAD_POSITION_OFFSET   384
#define FL_RING_CORRELATION_OFFSET     512
#define FL_RING_HEARTBEAT_OFFSET       640
#define FL_RING_TRAILER_LENGTH         768
#define FL_RING_HEADER_LENGTH          8
#define FL_RING_ALIGNMENT              8
#define FL_RING_PADDING_MSG_TYPE       (-1)

/* message types */
#define FL_MSG_CHUNK 1
#define FL_MSG_EVENT 2

#define FL_CHUNK_PID      0
#define FL_CHUNK_TID      4
#define FL_CHUNK_ID       8
#define FL_CHUNK_COUNT    16
#define FL_CHUNK_FLAGS    20
#define FL_CHUNK_HEADER_SIZE 24

#define FL_CHUNK_MOCA             1u /* chunk flags: a Moca chunk */
#define FL_CHUNK_MOCA_START_SEQ   24
#define FL_CHUNK_MOCA_END_SEQ     32
#define FL_CHUNK_MOCA_CLOSE_SEQ   40
#define FL_CHUNK_MOCA_CLOSE_NS    48
#define FL_CHUNK_MOCA_INTERVAL    56
#define FL_CHUNK_MOCA_HEADER_SIZE 64

#define FL_RECORD_SEQ      0
#define FL_RECORD_TIME_NS  8
#define FL_RECORD_ADDRESS  16
#define FL_RECORD_FLAGS    24
#define FL_RECORD_STACK    28
#define FL_RECORD_SIZE     32
#define FL_RECORD_MOCA_READS  32
#define FL_RECORD_MOCA_WRITES 36
#define FL_RECORD_MOCA_SIZE   40

#define FL_REC_WRITE       1u /* the trapped access was a write (also a kernel write, e.g. read(2) into the page) */
#define FL_REC_FIRST_TOUCH 2u /* the page had never been populated: resolved with a zero page */
#define FL_REC_KERNEL      4u /* made by the kernel in a system call on the thread's behalf (the system-call gate) */

#define FL_EVENT_TYPE        0
#define FL_EVENT_PID         4
#define FL_EVENT_TID         8
#define FL_EVENT_TEXT_LENGTH 12
#define FL_EVENT_SEQ         16
#define FL_EVENT_TIME_NS     24
#define FL_EVENT_A           32
#define FL_EVENT_B           40
#define FL_EVENT_C           48
#define FL_EVENT_D           56
#define FL_EVENT_HEADER_SIZE 64

/* event types; a, b, c, d as listed (unlisted = 0) */
#define FL_EV_PROCESS_START 1  /* a = ppid, b = slot; text = executable path */
#define FL_EV_PROCESS_EXIT  2  /* a = wait status (written by the recorder) */
#define FL_EV_THREAD_START  3  /* tid = the new thread; a = creating tid, b = its pthread_self (top of its stack) */
#define FL_EV_THREAD_EXIT   4
#define FL_EV_THREAD_NAME   5  /* text = comm */
#define FL_EV_TRACE_RANGE   6  /* a = start, b = length, c = FL_RANGE_* source; text = the mapping's name */
#define FL_EV_MMAP          7  /* a = start, b = length, c = prot, d = flags */
#define FL_EV_MUNMAP        8  /* a = start, b = length */
#define FL_EV_MREMAP        9  /* a = old start, b = old length, c = new start, d = new length */
#define FL_EV_MADVISE       10 /* a = start, b = length, c = advice */
#define FL_EV_BRK           11 /* a = old break, b = new break */
#define FL_EV_FORK          12 /* a = child pid */
#define FL_EV_EXEC          13 /* text = path */
#define FL_EV_TRACE_STOP    14 /* a = FL_STOP_* reason, b = errno */
#define FL_EV_UNTRACE_RANGE 15 /* a = start, b = length: pages no longer traced (mapping gone) */
/*
 * A page left the EVMS (an eviction record): tid = the thread whose reference brought it in,
 * a = page address, b = tag (ASCII 'r', 'w', 'R' or 'W': dirty or not, re-referenced in the
 * trailing segment or not), c = 1 if the page had been deleted (munmap, madvise, mremap) before
 * its turn came. Its seq is the clock after the reference record that caused it.
 */
#define FL_EV_EVICT         16
/*
 * Kernel events (kVMTrace's kernel records: trace-format/FORMAT.md, "Kernel events"), recorded by
 * the system-call gate (gate_events.c) after a call that succeeded, under every engine; tid = the
 * calling thread; a file descriptor or dirfd is a sign-extended int (AT_FDCWD is -100). A device
 * is (major << 32) | minor. Numbers 17 to 29 only (32 and up are taken by other events).
 */
/* a descriptor made: open, openat, openat2, creat, and with no path of the program's own pipe,
 * pipe2, socket, socketpair, accept, accept4, eventfd, eventfd2, memfd_create (one event per
 * descriptor): a = fd | kind << 32 (FL_FILE_*), b = device, c = inode, d = length at open (fstat's
 * st_size after the call); text = /proc/self/fd/FD's link: the resolved path, or "pipe:[inode]" */
#define FL_EV_FILE_OPEN     17
#define FL_EV_FILE_CLOSE    18 /* close: a = fd */
#define FL_EV_FILE_DUP      19 /* dup, dup2, dup3, fcntl F_DUPFD(_CLOEXEC): a = old fd, b = new fd, c = system call number */
/* read, pread64, readv, preadv, preadv2 that transferred more than zero bytes: a = fd, b = file
 * offset of the first byte (FL_NO_OFFSET: none, see FORMAT.md), c = bytes, d = system call number */
#define FL_EV_FILE_READ     20
#define FL_EV_FILE_WRITE    21 /* write, pwrite64, writev, pwritev, pwritev2: as FL_EV_FILE_READ */
/* truncate, ftruncate: a = fd (-1 for truncate: text = the path as given), b = new length,
 * c = device, d = inode */
#define FL_EV_FILE_TRUNCATE 22
/* unlink, unlinkat, rmdir: a = dirfd, b = flags (AT_REMOVEDIR 0x200 for rmdir), c = device,
 * d = inode (both from fstatat before the call; 0 if that failed); text = the path as given */
#define FL_EV_FILE_UNLINK   23
/* rename, renameat, renameat2: a = old dirfd, b = new dirfd, c = flags, d = inode (fstatat before
 * the call); text = the old path, a NUL byte, the new path, as given */
#define FL_EV_FILE_RENAME   24
#define FL_EV_SHMAT         25 /* shmat: a = shmid, b = address, c = size (IPC_STAT's shm_segsz), d = shmflg */
#define FL_EV_SHMDT         26 /* shmdt: a = address, b = size and c = shmid of the shmat that attached it (0, -1: not seen) */
/* a program the agent cannot follow: a = its pid (this process after an exec, or a child), b = why (untraced.h: 1
 * statically linked, 2 set-ID or file capabilities, 3 another architecture, 4 its environment lacks the agent, 5 other;
 * 0 after an exec said so: the exec failed), c = its ELF class << 16 | e_machine; text = its executable */
#define FL_EV_UNTRACED      27

#define FL_NO_OFFSET 0xffffffffffffffffULL /* FL_EV_FILE_READ/WRITE b: the call has no file offset */
/* FL_EV_FILE_OPEN kinds, from fstat's st_mode after the call */
#define FL_FILE_OTHER     0 /* no file type: an anonymous inode (eventfd, epoll) */
#define FL_FILE_REGULAR   1
#define FL_FILE_DIRECTORY 2
#define FL_FILE_PIPE      3 /* a pipe or a FIFO */
#define FL_FILE_SOCKET    4
#define FL_FILE_CHAR      5 /* a character device */
#define FL_FILE_BLOCK     6 /* a block device */
#define FL_FILE_SYMLINK   7 /* O_PATH | O_NOFOLLOW */

/*
 * Call stacks (record --stacks N, in-thread engines only): each distinct stack of a process image
 * once, before the first record that names it. a = id (from 1, per process image: a reader keys
 * stacks by pid and forgets a pid's at its PROCESS_START, which a new image and a followed fork
 * child each emit), b = frames, text = the b frames in hexadecimal without 0x, separated by one
 * space (UTF-8 as every event's text, readable in a dump; 64 user-space addresses of 12 digits
 * fit): frame 0 the faulting instruction, then return addresses, innermost first (a symbolizer
 * looks up a return address less one, inside its call instruction).
 */
#define FL_EV_STACK         32
/*
 * A mapping that holds a frame of a stack (--stacks), once per process image, before the first
 * stack event with a frame in it: a = start, b = end, c = file offset of start, text = the
 * mapping's path as /proc/self/maps names it ("" anonymous, "[vdso]"). Same keying as FL_EV_STACK.
 */
#define FL_EV_CODE_MAP      33
#define FL_STACK_FRAMES_MAX 64 /* most frames record --stacks keeps */

#define FL_RANGE_SCAN 0 /* found in /proc/self/maps (scope all) */
#define FL_RANGE_API  1 /* registered with faultline_trace_range */
#define FL_RANGE_MMAP 2 /* a new mapping seen through an interposed call */

#endif
