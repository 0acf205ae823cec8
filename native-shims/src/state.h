/*
 * state.h: the agent's shared state, with one owner (state.c) below every other room, so that
 * any room may read or change it without calling up: what the constructor read from the control
 * block (struct fl_agent), the counters it publishes to the slot, and what the rooms share at
 * run time (a fork being prepared, threads starting, which threads are the agent's own).
 *
 * Threads and state (single writer):
 *   - the handler threads (guard.c: a guard and, opt-in, one fault thread per CPU), and under an
 *     engine without fd the faulting thread in its signal handler (fault.c), change the range
 *     table, the pinned-page set, the slot's ring and these counters only under the agent lock
 *     (lock.c), and never touch traced memory. "Lock held" in a header means that. A fault
 *     resolved without the lock (fault.c, the shared path) only reads them; what it changes (the
 *     EVMS, a page, its thread's ring) has a lock or an owner of its own (lock.c says which).
 *   - program threads read the range table through a seqlock (ranges.c) and post requests
 *     (request.c) that a handler thread serves (serve.c).
 */
#ifndef FL_STATE_H
#define FL_STATE_H

#include <pthread.h>

#include "faultline_shm.h"
#include "ring.h"
#include "sys.h"

/* most traps one read returns (fault.c's batch), and so most records one reference chunk holds */
#define FL_BATCH 64

struct fl_agent {
	/* written once by the constructor (agent.c), then read-only */
	uint8_t *shm;
	size_t shm_len;
	uint8_t *slot;
	uint32_t slot_index;
	uint32_t scope, evms_pages, chunk_records, flags;
	uint32_t mode;          /* FL_MODE_*, from the control block (the ops table: mode.h) */
	uint64_t interval_ns;   /* Moca mode: the interval (at least FL_MOCA_MIN_INTERVAL_NS) */
	uint64_t start_mono_ns;
	int recorder_pidfd;
	pid_t pid, ppid;
	struct fl_ring ring;
	char exe_path[4096];    /* this image's executable: the text of its PROCESS_START event */
	char shm_path[512];     /* the shared memory file: unlinked when the recorder is gone */
	/* changes at run time */
	int active;            /* 0 starting, 1 tracing, 2 stopped; interposers pass through unless 1 */
	volatile int in_child; /* this process is a fork child: never trace, never touch the shm */
	int exec_event;        /* this image replaced a traced one that did not announce FL_EV_EXEC */
};
extern struct fl_agent fl_agent;

static inline uint32_t *fl_ctl32(size_t off) { return (uint32_t *)(fl_agent.shm + off); }
static inline uint64_t *fl_ctl64(size_t off) { return (uint64_t *)(fl_agent.shm + off); }
static inline uint32_t *fl_slot32(size_t off) { return (uint32_t *)(fl_agent.slot + off); }
static inline uint64_t *fl_slot64(size_t off) { return (uint64_t *)(fl_agent.slot + off); }

static inline int fl_tracing(void)
{
	return __atomic_load_n(&fl_agent.active, __ATOMIC_ACQUIRE) == 1 && !fl_agent.in_child;
}

void fl_unlink_shm(void); /* the recorder is gone: nobody else will delete its file */

/* the agent lock's counters (lock held; races and lost also atomically from the shared path:
 * FL_COUNT), published to the slot's words for the recorder */
struct fl_counters {
	uint64_t records, ring_waits, faults, chunks, evictions, wait_ns, races, registered_pages;
	uint64_t lost; /* pages that could not be disabled (EBUSY: shared after fork, pinned) */
};
extern struct fl_counters fl_cnt;
/* a rare counter that faults resolved without the lock bump too (races, lost): an atomic add */
#define FL_COUNT(field) __atomic_add_fetch(&fl_cnt.field, 1, __ATOMIC_RELAXED)
void fl_counters_publish(void);
void fl_counters_reset(void); /* a fork child, or a new attached session: from zero */

extern int fl_fork_depth; /* a fork is being prepared: pages stay enabled (serve.c, on_fork_prepare) */
/*
 * Threads created but not yet pinned (engines without FL_OBSERVES_KERNEL_ACCESS): while any is,
 * no rescan registers new memory, since the new thread's stack and struct pthread (one mapping)
 * would be disabled before they are pinned, and glibc starts the thread with every signal
 * blocked (hooks/interpose.c counts them, serve.c's on_thread_start counts them out).
 */
extern uint32_t fl_threads_starting;

/*
 * The guard's eventfd (guard.c opens it, -1 without a guard): a poke makes the guard look at the
 * stop flag, the recorder and its ring now, not at its next liveness tick. Any thread, raw
 * system calls only (emission pokes it, on a faulting thread's signal path too).
 */
extern int fl_guard_efd;
void fl_guard_poke(void);

/*
 * Teardown brings the pages home (guard.c sets it to 1 when tracing stops, back to 0 with a wake
 * when every page is back): a futex word. Between the two, a fault on a page the engine still
 * holds is neither the agent's (tracing stopped) nor the program's, and passing it on would kill
 * the program (the mprotect engine: SIGSEGV's default action); the faulting thread waits for the
 * pages instead (fl_restoring_wait) and retries its access.
 */
extern uint32_t fl_restoring;
int fl_restoring_wait(void); /* 1 after waiting for a teardown in progress (at most 10 s), 0 if none was */

/*
 * The handler threads (guard.c starts them): each notes itself first thing. The program's threads
 * are /proc/self/task minus these (serve.c), and a handler thread never posts a request.
 */
void fl_handler_thread_note(void);
int fl_on_handler_thread(void);
int fl_is_handler_tid(pid_t tid);
void fl_handler_threads_await(uint32_t n); /* until n have noted themselves (a second at most) */
void fl_handler_threads_reset(void);       /* a fork child, or a new session: none */

#endif
