/*
 * handler.c: the fault loop, run by the agent's handler threads. They are native threads
 * created by the constructor, not attached to any runtime, with all signals blocked and stacks
 * mmap'd by the agent; they never touch traced memory (they would fault on themselves).
 *
 * Where the time goes, and so which threads exist (docs/ARCHITECTURE.md, "Fault handling";
 * BENCHMARKS.md has the measurements). On these machines a wake-up that crosses CPUs costs
 * about 20 times one on the same CPU, and a userfaultfd fault costs two wake-ups: the faulting
 * thread wakes a handler, the handler wakes it back. A single handler thread of normal priority
 * is placed by the scheduler on whichever CPU is idle, which is the other one, both ways. So:
 *   - one fault thread per CPU the process may run on, pinned there, at SCHED_IDLE. While a
 *     program thread runs, its CPU's fault thread stays runnable behind it (it was preempted
 *     by the wake-up it issued); when the program thread faults and sleeps, the CPU switches
 *     to that fault thread with no wake-up at all. Its wake-up of the program thread keeps the
 *     program thread there too: a CPU that runs only SCHED_IDLE tasks counts as idle for the
 *     scheduler's placement (select_idle_sibling), so the thread is not moved to another CPU,
 *     and a SCHED_IDLE task never keeps a CPU from a program thread that wants it.
 *   - one guard thread of normal priority: the deadline loop (recorder liveness and the stop
 *     flag, Moca's interval ends; sampling ticks later), teardown, and the guard against
 *     starvation. A SCHED_IDLE thread gets no CPU while its CPU has other runnable work; when a
 *     fault or request has waited two ticks (1 ms each) with no progress by any fault thread,
 *     the guard handles faults itself for the next 100 ms ("contended"), as a single handler
 *     would, and the fault threads run at normal priority for the next second: a SCHED_IDLE
 *     thread preempted while it holds the agent lock would keep it from every other CPU, the
 *     guard included (a pipeline like `xz -T2 | od | sha256sum` on 2 CPUs collapsed so).
 * FAULTLINE_HANDLERS=percpu starts the fault threads; without it only the guard runs, handling
 * every fault (fl_handler_start says why).
 *
 * Agent state (range table, EVMS, ring, slot counters) changes only under the agent lock. A
 * thread that holds it never wakes a program thread: a woken thread of normal priority would
 * preempt a SCHED_IDLE lock holder at once and keep the lock from every other CPU until it
 * faulted again. Resolutions and finished requests are queued (fl_wake_later, fl_req_serve)
 * and woken when the lock is released (agent_unlock).
 *
 * The trapping mechanism is the engine's (struct fl_engine, engine_*.c): this loop reads its
 * traps (faults and mapping events, several per read) and calls it to enable, evict and restore
 * pages, never knowing which engine runs. An engine without fd (mprotect) has no queue to read:
 * each fault runs the same steps on the faulting thread (fl_fault_on_thread).
 *
 * Per batch of traps (read several at once):
 *   1. label each fault (write? first touch?) and take its seq from the global clock;
 *   2. publish the records to the ring, grouped into chunks of consecutive same-thread faults;
 *   3. only then resolve the faults: evict the oldest EVMS page first, then move the faulting
 *      page back (or zero-fill it); its thread is woken at unlock. A thread woken by step 3 may
 *      call exit_group at once; its record is already in shared memory, so the recorder cannot
 *      lose it. Evicting before waking keeps the trace independent of timing: the woken
 *      thread never sees an EVMS larger than the model's.
 * Non-cooperative events (UNMAP, REMOVE, REMAP) split the publishing: the records of the
 * faults before an event go out first, then the event. Resolution waits until every event of
 * the batch is applied (handle_batch says why). The thread that caused an event waits in the
 * kernel until we have read it, which is why a handler thread must never munmap/madvise/
 * mremap a registered range (it would wait for itself).
 *
 * Program threads reach the handlers through request.c; every handler thread serves requests
 * in its duty cycle, so a request is usually served on the poster's own CPU too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "fl_internal.h"

#define MSG_BATCH 64
#define HANDLER_STACK (512UL << 10)

/*
 * Faults that are no reference records (evms.c): a re-reference of a resident page the
 * trailing segment has disabled, and the first write to a page enabled by a read (it was
 * write-protected so that the write is seen: the EVMS's dirty flag).
 */
#define SOFT_REREF 1
#define SOFT_DIRTY 2


#define MAX_FAULT_THREADS 64
#define FAULT_STACK (256UL << 10)
#define WAKE_MAX 256
#define TICK_NS 1000000ULL            /* the guard's stall check while faults are coming */
#define ACTIVE_NS 100000000ULL        /* faults this recent keep the guard ticking */
#define CONTENDED_NS 100000000ULL     /* after a stall the guard handles faults this long */
#define NORMAL_NS 1000000000ULL       /* and the fault threads run at normal priority this long */
#define LIVENESS_NS 100000000ULL      /* recorder alive? stop asked? */

static pthread_t guard_thread;
static pthread_t fault_threads[MAX_FAULT_THREADS];
static uint32_t n_fault_threads;
static uint32_t fault_threads_alive; /* futex word: teardown waits for 0 */
static int single_handler;  /* FAULTLINE_HANDLERS=single: the guard handles every fault */
static int stopping;        /* under the lock: teardown has begun, fault threads leave */
static int stop_efd = -1;   /* teardown -> fault threads */
static uint64_t progress;   /* under the lock: faults handled and requests served */
static uint32_t guard_done; /* futex word: 1 once the guard has torn down and is about to return */
static uint64_t normal_until; /* fl_now_ns(): until then fault threads run at SCHED_OTHER (contention) */

static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t wake_pages[WAKE_MAX]; /* under the lock: resolved, to wake at unlock */
static uint32_t wake_n;
static uint64_t wake_reqs;             /* under the lock: request slots to wake at unlock */
static struct fl_trap *msgs;
static struct fl_fault *staged;
/*
 * FAULTLINE_TEST_EVENT_DELAY_US (tests only): sleep this long after reading a batch that holds
 * a non-cooperative event, before handling it. The thread that raised the event runs on in the
 * meantime, which is the window handle_batch has to be correct in; the test makes it wide.
 */
static int test_event_delay_us;
static uintptr_t known_brk; /* program break last reported (FL_EV_BRK) */

/*
 * Hints from interposed calls to the handler, for events the kernel reports without them:
 * madvise's advice (UFFD_EVENT_REMOVE does not say) and mremap's new length (UFFD_EVENT_REMAP
 * gives the old length only). Posted before the call, withdrawn after it.
 */
struct fl_hint {
	uint32_t state; /* 0 free, 1 filling, 2 posted, 3 posted and used by an event */
	uint32_t kind;  /* 1 madvise, 2 mremap */
	uint64_t start, len, value;
};
#define HINTS 64
static struct fl_hint hints[HINTS];

int fl_hint_post(uint32_t kind, uint64_t start, uint64_t len, uint64_t value)
{
	for (int i = 0; i < HINTS; i++) {
		uint32_t expect = 0;
		if (__atomic_compare_exchange_n(&hints[i].state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			hints[i].kind = kind;
			hints[i].start = start;
			hints[i].len = len;
			hints[i].value = value;
			__atomic_store_n(&hints[i].state, 2, __ATOMIC_RELEASE);
			return i;
		}
	}
	return -1;
}

/* withdraw; returns 1 if an event used it */
int fl_hint_take(int i)
{
	if (i < 0)
		return 0;
	uint32_t st = __atomic_load_n(&hints[i].state, __ATOMIC_ACQUIRE);
	__atomic_store_n(&hints[i].state, 0, __ATOMIC_RELEASE);
	return st == 3;
}

static struct fl_hint *hint_find(uint32_t kind, uint64_t s, uint64_t e)
{
	for (int i = 0; i < HINTS; i++) {
		struct fl_hint *h = &hints[i];
		uint32_t st = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
		if ((st == 2 || st == 3) && h->kind == kind && s >= FL_PAGE_DOWN(h->start) &&
		    e <= FL_PAGE_UP(h->start + h->len))
			return h;
	}
	return NULL;
}

/* the program break moved (interposed brk/sbrk, or glibc's internal sbrk seen later) */
static void check_brk(uint32_t tid)
{
	uintptr_t now = (uintptr_t)syscall(SYS_brk, 0);
	if (known_brk && now != known_brk)
		fl_emit_event(FL_EV_BRK, tid, known_brk, now, 0, 0, NULL, 0);
	known_brk = now;
}

static void agent_lock_take(void)
{
	pthread_mutex_lock(&agent_lock);
}

/* release the lock, then wake what the holder resolved or served (see the top of the file) */
static void agent_unlock(void)
{
	uintptr_t pages[WAKE_MAX];
	uint32_t n = wake_n;
	memcpy(pages, wake_pages, n * sizeof(pages[0]));
	wake_n = 0;
	uint64_t reqs = wake_reqs;
	wake_reqs = 0;
	pthread_mutex_unlock(&agent_lock);
	for (uint32_t i = 0; i < n; i++)
		fl_engine->wake(pages[i]);
	if (reqs)
		fl_req_wake(reqs);
}

void fl_wake_later(uintptr_t page)
{
	for (uint32_t i = 0; i < wake_n; i++)
		if (wake_pages[i] == page)
			return;
	if (wake_n < WAKE_MAX)
		wake_pages[wake_n++] = page;
	else
		fl_engine->wake(page);
}

static void serve_requests(int (*fn)(struct fl_req *))
{
	uint64_t served = fl_req_serve(fn);
	if (served) {
		wake_reqs |= served;
		__atomic_add_fetch(&progress, 1, __ATOMIC_RELEASE);
	}
}

static int stop_requested(void)
{
	return __atomic_load_n(fl_ctl32(FL_CTL_STOP), __ATOMIC_ACQUIRE) != 0;
}

/*
 * Tells a followed child that its FORK event is out (faultline_shm.h, fork_pids): the event's
 * seq is the clock when it was emitted, so the child, which waits for this before it traps
 * anything (fl_agent_await_fork), takes every seq of its own after it. Without the wait a child
 * that ran first published references before its parent's FORK event.
 */
static void announce_fork(uint32_t child)
{
	uint32_t *count = fl_slot32(FL_SLOT_FORKS_ANNOUNCED);
	uint32_t n = __atomic_load_n(count, __ATOMIC_RELAXED);
	__atomic_store_n(fl_slot32(FL_SLOT_FORK_PIDS + 4 * (n % FL_SLOT_FORK_PIDS_COUNT)), child, __ATOMIC_RELAXED);
	__atomic_store_n(count, n + 1, __ATOMIC_RELEASE);
	fl_futex_wake_shared(count);
}

/* one reference record outside a batch's publishing (resolve_one says when) */
static void publish_late(uintptr_t address, uint32_t tid, int write)
{
	struct fl_fault f = { .address = address, .tid = tid, .flags = write ? FL_REC_WRITE : 0 };
	fl_emit_references(&f, 1);
}

struct deferred {
	uintptr_t page;
	int write, pinned, soft;
	uint32_t tid;
};
#define DEFERRED_MAX 1024
static struct deferred deferred[DEFERRED_MAX];
static uint32_t deferred_n;

static void defer(uintptr_t page, int write, int pinned, int soft, uint32_t tid)
{
	for (uint32_t i = 0; i < deferred_n; i++)
		if (deferred[i].page == page)
			return;
	if (deferred_n < DEFERRED_MAX)
		deferred[deferred_n++] = (struct deferred){ page, write, pinned, soft, tid };
	else
		fl_wake_later(page); /* it faults again */
}

/*
 * Label staged[from..to) (write? first touch?) and publish them. Called in message order, so
 * the labels and the records' seq reflect the table as it was before any later event.
 */
static void label_and_publish(uint32_t from, uint32_t to)
{
	if (from == to)
		return;
	int rescanned = 0;
	fl_cnt.faults += to - from;
	for (uint32_t i = from; i < to; i++) {
		uintptr_t page = FL_PAGE_DOWN(staged[i].address);
		FL_CHECK_LOG(FL_OP_FAULT, staged[i].address, staged[i].tid, (int)staged[i].flags);
		if (staged[i].soft)
			continue;
		if (fl_evms_state(page) == FL_EVMS_DISABLED) {
			staged[i].soft = SOFT_REREF;
			continue;
		}
		struct fl_range *r = fl_range_find(page);
		if (!r && !rescanned && fl_agent.scope == FL_SCOPE_ALL) {
			/* a registered vma we do not know yet (grown in place): learn it first */
			fl_scope_register_around(page, page + FL_PAGE);
			rescanned = 1;
			r = fl_range_find(page);
		}
		/* later faults on the same page in this batch are not first touches */
		if (!r || fl_engine->first_touch(r, page))
			staged[i].flags |= FL_REC_FIRST_TOUCH;
	}
	if (fl_moca()) /* counted into the thread's chunk of this interval, written when it ends */
		for (uint32_t i = from; i < to; i++)
			fl_moca_fault(staged[i].address, staged[i].tid, staged[i].flags);
	else if (!fl_monitoring()) /* monitor mode records nothing: its faults are access checks */
		fl_emit_references(staged + from, to - from);
}

/*
 * Enable a faulting page and let the EVMS policy admit it, disabling the victim it names. The
 * faulting thread is woken only when the agent lock is released (agent_unlock), so the victim
 * is always disabled before the thread runs again: the trace does not depend on timing, and
 * the thread never sees a set larger than the policy's. (Before the wake was deferred, a
 * retried fault was woken by its move back before the victim was evicted.)
 */
static void hold(uintptr_t victim, uintptr_t page);

static void publish_late(uintptr_t address, uint32_t tid, int write);
static int held_page(uintptr_t page);

/*
 * Whether the page a fault enables comes back read-only, so that its first write is a fault
 * too (SOFT_DIRTY): the EVMS's dirty flag, and Moca's count of write faults. Not after a
 * write, nor a re-reference of a page written before; not without dirty tracking (record
 * --no-dirty, which the recorder refuses in Moca mode), nor in monitor mode (no EVMS), nor for
 * a pinned page (never in the EVMS). The one place this is decided: the engines carry it out.
 */
static int enables_read_only(uintptr_t page, int write, int pinned, int soft)
{
	if (write || (fl_agent.flags & FL_FLAG_NO_DIRTY) || fl_monitoring())
		return 0;
	return soft ? !fl_evms_dirty(page) : !pinned;
}

static void resolve_one(uintptr_t page, int write, int pinned, int soft, uint32_t tid)
{
	if (soft == SOFT_DIRTY) {
		fl_evms_touch(page, 1);
		if (fl_engine->protect_writes(page, 0) == -EAGAIN) {
			defer(page, write, pinned, soft, tid);
			return;
		}
		fl_wake_later(page);
		return;
	}
	if (soft && fl_evms_state(page) == FL_EVMS_OUT) {
		/*
		 * Labelled soft, but an earlier fault of the batch evicted the page meanwhile: this
		 * reference now brings it in, so it is a reference record after all.
		 */
		publish_late(page, tid, write);
		soft = 0;
	}
	/*
	 * A reference brings its page into the EVMS, and the victims go out BEFORE the page comes
	 * home. The kernel lets a faulting thread go on without any wake-up once it finds its page
	 * present (handle_userfault checks before it sleeps), so a page moved home first could let
	 * the thread run while its victim, in an N+1 loop its very next page, was still enabled,
	 * and if that eviction then met a pending event (EAGAIN) the thread ran whole loops without
	 * a fault (StressTest.aRetriedFaultEvictsItsVictimBeforeItsThreadRunsAgain lost a third of
	 * its records so, about one run in ten). A victim that cannot be disabled yet (held) keeps
	 * the page away too; a deferred page is not admitted twice (its state is no longer OUT).
	 */
	int admits = !pinned && !soft && !fl_monitoring() && !fl_moca();
	int admitted_now = 0;
	if (admits && fl_evms_state(page) == FL_EVMS_OUT && fl_range_find(page)) {
		const uintptr_t *victims;
		uint32_t n = fl_evms_admit(page, tid, write, &victims);
		for (uint32_t i = 0; i < n; i++)
			if (!fl_fork_depth && fl_engine->evict(victims[i]) == -EAGAIN)
				hold(victims[i], page);
		admitted_now = 1;
	}
	if (admits && held_page(page)) {
		defer(page, write, pinned, soft, tid);
		return;
	}
	int read_only = enables_read_only(page, write, pinned, soft);
	int r = fl_engine->enable(page, write, read_only);
	if (r == -EAGAIN) {
		defer(page, write, pinned, soft, tid);
		return;
	}
	if (soft) {
		fl_evms_touch(page, write);
		/* resolved otherwise (present already, or copied home): still resident, so its
		 * first write must still be seen */
		if (r == 0 && read_only)
			fl_engine->protect_writes(page, 1);
		return;
	}
	if (fl_monitoring()) {
		fl_sample_fault(page); /* no EVMS: the page stays enabled until the next check */
		return;
	}
	if (fl_moca()) {
		/* no EVMS: enabled until the interval ends (write-protected if read: enables_read_only) */
		if (r > 0 && !pinned)
			fl_moca_enabled(page);
		return;
	}
	/* resolved otherwise (present already, copied, untraced meanwhile): not ours to keep */
	if (admitted_now && r <= 0)
		fl_evms_forget(page, page + FL_PAGE);
}

/*
 * A victim whose eviction met a pending event (EAGAIN) is still enabled: the page whose fault
 * chose it stays away (its resolution deferred) until the eviction succeeds after the event is
 * read, or its thread could reference the victim without a fault (in an N+1 loop the victim is
 * its very next page).
 */
struct held {
	uintptr_t victim, page;
};
static struct held held[DEFERRED_MAX];
static uint32_t held_n;

static void hold(uintptr_t victim, uintptr_t page)
{
	if (held_n == DEFERRED_MAX)
		return; /* the page comes home anyway: one reference may go unrecorded, never a hang */
	held[held_n++] = (struct held){ victim, page };
}

static int held_page(uintptr_t page)
{
	for (uint32_t i = 0; i < held_n; i++)
		if (held[i].page == page)
			return 1;
	return 0;
}

/* before the deferred faults are retried: the pages whose victims are now out may come home */
static void retry_held(void)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < held_n; i++)
		if (fl_engine->evict(held[i].victim) == -EAGAIN)
			held[kept++] = held[i];
	held_n = kept;
}

/* resolve staged[0..n): every event of the batch has been applied already (handle_batch) */
static void resolve_faults(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t page = FL_PAGE_DOWN(staged[i].address);
		resolve_one(page, staged[i].flags & FL_REC_WRITE, fl_pins_has(page), staged[i].soft, staged[i].tid);
	}
	if (n)
		fl_counters_publish();
}

/* faults whose resolution met EAGAIN (an event in flight): retried after the next read */
static void retry_deferred(void)
{
	retry_held();
	uint32_t n = deferred_n;
	deferred_n = 0;
	for (uint32_t i = 0; i < n; i++)
		resolve_one(deferred[i].page, deferred[i].write, deferred[i].pinned, deferred[i].soft, deferred[i].tid);
}

static void handle_event(const struct fl_trap *m)
{
	switch (m->kind) {
	case FL_TRAP_UNMAP: {
		uintptr_t s = m->a, e = m->b;
		fl_engine->untrace(s, e, 1);
		fl_scope_unretire(s, e);
		fl_emit_event(FL_EV_MUNMAP, 0, s, e - s, 0, 0, NULL, 0);
		break;
	}
	case FL_TRAP_REMOVE: {
		/*
		 * madvise(DONTNEED/FREE/REMOVE) is about to zap [s, e): parked copies must go too,
		 * or a later fault would bring back stale data; enabled pages leave the EVMS (they
		 * will be empty). userfaultfd does not say which advice it was.
		 */
		uintptr_t s = m->a, e = m->b;
		fl_evms_delete(s, e);
		fl_engine->discard(s, e);
		struct fl_hint *h = hint_find(1, s, e);
		fl_emit_event(FL_EV_MADVISE, 0, s, e - s, h ? h->value : MADV_DONTNEED, 0, NULL, 0);
		break;
	}
	case FL_TRAP_REMAP: {
		uintptr_t from = m->a, to = m->b, len = m->c;
		fl_engine->relocate(from, to, len);
		struct fl_hint *h = hint_find(2, from, from + len);
		uint64_t new_len = len;
		if (h && FL_PAGE_DOWN(h->start) == from) {
			new_len = h->value;
			__atomic_store_n(&h->state, 3, __ATOMIC_RELEASE);
		}
		fl_emit_event(FL_EV_MREMAP, 0, from, len, to, new_len, NULL, 0);
		break;
	}
	default:
		break;
	}
	fl_counters_publish();
}

/*
 * One read(2) worth of messages. Records and event records go out in message order, but no
 * fault is resolved before every event of the batch has been applied to the table. Reading an
 * event releases the thread that raised it at once: by the time we look at the faults that
 * preceded it, an unmapped or moved range may already hold a new, unregistered mapping of the
 * program's at the same address. UFFDIO_MOVE needs only its destination registered, so an
 * eviction from the stale range would move the new mapping's page into a parking slot that
 * the UNMAP then frees: the program's data would be gone. Likewise a page of a range zapped by
 * madvise (REMOVE) must not come back from its parking slot after the zap.
 */
static void handle_batch(uint32_t n)
{
	uint32_t k = 0, published = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct fl_trap *m = &msgs[i];
		if (m->kind == FL_TRAP_FAULT) {
			staged[k].address = m->a;
			staged[k].tid = m->tid;
			staged[k].flags = (m->flags & FL_TRAP_WRITE) ? FL_REC_WRITE : 0;
			staged[k].soft = (m->flags & FL_TRAP_WP) ? SOFT_DIRTY : 0;
			k++;
		} else {
			label_and_publish(published, k);
			published = k;
			handle_event(m);
		}
	}
	label_and_publish(published, k);
	resolve_faults(k);
}

/*
 * An engine without fd (mprotect): one fault, on the faulting thread (its SIGSEGV handler),
 * through the same steps as a batch of one: label, publish, resolve (evict, then enable). The
 * thread runs on when its handler returns, after the lock is released. 1 if the engine caused
 * the fault (it is resolved), 2 if not but the page allows the access now (a race lost to
 * another thread: retry), 0 if it is the program's.
 */
int fl_fault_on_thread(uintptr_t address, uint32_t tid, uint32_t access)
{
	agent_lock_take();
	uint32_t flags = 0;
	int ours = fl_tracing() && fl_engine->trapped(address, access, &flags);
	int allowed = !ours && (flags & FL_TRAP_ALLOWED);
	if (ours) {
		staged[0] = (struct fl_fault){ .address = address, .tid = tid,
					     .flags = (flags & FL_TRAP_WRITE) ? FL_REC_WRITE : 0,
					     .soft = (flags & FL_TRAP_WP) ? SOFT_DIRTY : 0 };
		label_and_publish(0, 1);
		resolve_faults(1);
		progress++;
	}
	agent_unlock();
	return ours ? 1 : allowed ? 2 : 0;
}

/* read the engine's queued traps without blocking; returns traps handled, or -errno */
static int drain_traps(void)
{
	int r = fl_engine->fd() >= 0 ? fl_engine->read(msgs, MSG_BATCH) : 0;
	if (r <= 0) {
		if (deferred_n || held_n) {
			/* the event's thread must run to clear mmap_changing */
			struct timespec ts = { 0, 20000 };
			nanosleep(&ts, NULL);
			retry_deferred();
			return deferred_n || held_n ? 1 : 0;
		}
		return r;
	}
	uint32_t n = (uint32_t)r;
	if (test_event_delay_us > 0)
		for (uint32_t i = 0; i < n; i++)
			if (msgs[i].kind != FL_TRAP_FAULT) {
				struct timespec ts = { test_event_delay_us / 1000000, (test_event_delay_us % 1000000) * 1000L };
				nanosleep(&ts, NULL);
				break;
			}
	handle_batch(n);
	if (deferred_n || held_n)
		retry_deferred();
	return (int)n;
}

/* restores stuck behind a pending event: how often to read the uffd and retry (each try
 * already spent EAGAIN_RETRIES * 64 moves in bulk_move; an event is normally read on the first) */
#define STUCK_TRIES 200
static void stuck_pause(void)
{
	struct timespec ts = { 0, 100000 }; /* the event's thread has to queue it first */
	nanosleep(&ts, NULL);
}

static void emit_name_of(uint32_t tid)
{
	char path[64], name[32];
	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	if (name[n - 1] == '\n')
		n--;
	fl_emit_event(FL_EV_THREAD_NAME, tid, 0, 0, 0, 0, name, (uint32_t)n);
}

#ifndef SYS_get_robust_list
#define SYS_get_robust_list 274
#endif

/*
 * Threads that exist already (created by a constructor that ran before ours, or the forking
 * thread in a fork child): name them, and pin their descriptors, found through the robust
 * list head that glibc keeps inside struct pthread next to the tid the kernel clears at exit.
 */
static void existing_threads(void)
{
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[4096];
	pid_t self = fl_gettid();
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			uint32_t tid = (uint32_t)atoi(d->d_name);
			if ((pid_t)tid == self || fl_is_handler_tid((pid_t)tid)) /* ours, not the program's */
				continue;
			emit_name_of(tid);
			void *head = NULL;
			size_t len = 0;
			if (syscall(SYS_get_robust_list, (pid_t)tid, &head, &len) == 0 && head) {
				fl_engine->pin((uintptr_t)head);
				fl_engine->pin((uintptr_t)head - 64);
			}
		}
	}
	close(fd);
}

/* the mapping of an exiting thread's stack that is not traced: retired (scope.c) */
static int retire_line(const struct fl_map_line *m, void *ctx)
{
	(void)ctx;
	fl_scope_retire_stack(m->start, m->end);
	return 0;
}

static int serve(struct fl_req *q)
{
	int all = fl_agent.scope == FL_SCOPE_ALL;
	/* events queued before the request (an munmap that preceded this mmap) come first */
	while (drain_traps() > 0)
		;
	switch (q->type) {
	case FL_REQ_RESCAN:
		check_brk((uint32_t)q->tid);
		if (!all)
			return 0;
		return q->b > q->a ? fl_scope_register_around(q->a, q->b) : fl_scope_rescan();
	case FL_REQ_INIT: {
		known_brk = (uintptr_t)syscall(SYS_brk, 0);
		/* pinned before anything is disabled: under mprotect the waiting thread may fault
		 * meanwhile, and its SIGSEGV path reads its struct pthread (the mutex owner, the
		 * stack guard); a fault there, with SIGSEGV blocked, would kill it */
		fl_engine->pin(q->a);
		fl_engine->pin(q->a + 2303);
		int err = all ? fl_scope_rescan() : 0;
		existing_threads(); /* names every thread, this one included */
		fl_counters_publish();
		return err;
	}
	case FL_REQ_MMAP:
		fl_emit_event(FL_EV_MMAP, (uint32_t)q->tid, q->a, q->b, q->c, q->d, NULL, 0);
		if (!all || !(q->d & MAP_ANONYMOUS) || (q->d & MAP_TYPE) != MAP_PRIVATE || (q->d & MAP_HUGETLB) ||
		    (q->c & (PROT_READ | PROT_WRITE | PROT_EXEC)) != (PROT_READ | PROT_WRITE))
			return 0;
		return fl_scope_register_exact(q->a, FL_PAGE_UP(q->a + q->b), FL_RANGE_MMAP);
	case FL_REQ_BRK:
		check_brk((uint32_t)q->tid);
		if (all && q->b > q->a)
			return fl_scope_register_exact(FL_PAGE_DOWN(q->a), FL_PAGE_UP(q->b), FL_RANGE_MMAP);
		return 0;
	case FL_REQ_TRACE_RANGE: {
		if (q->b == 0 || q->a + q->b < q->a)
			return -EINVAL;
		uintptr_t s = FL_PAGE_DOWN(q->a), e = FL_PAGE_UP(q->a + q->b);
		int err = fl_scope_check_api_range(s, e);
		if (err)
			return err;
		/* traced parts: disable every page; untraced gaps: register with their own parking */
		uintptr_t cur = s;
		while (cur < e) {
			int64_t i = fl_range_index_from(cur);
			struct fl_range *r = i >= 0 ? fl_range_at((uint32_t)i) : NULL;
			if (r && r->start <= cur) {
				uintptr_t b = r->end < e ? r->end : e;
				fl_engine->disable(cur, b);
				cur = b;
			} else {
				uintptr_t b = r && r->start < e ? r->start : e;
				if ((err = fl_engine->trace_new(cur, b, FL_RANGE_API, 0)) != 0)
					return err;
				cur = b;
			}
		}
		fl_emit_event(FL_EV_TRACE_RANGE, (uint32_t)q->tid, s, e - s, FL_RANGE_API, 0, NULL, 0);
		fl_counters_publish();
		return 0;
	}
	case FL_REQ_THREAD_START:
		fl_emit_event(FL_EV_THREAD_START, (uint32_t)q->tid, q->a, 0, 0, 0, NULL, 0);
		if (q->text_len)
			fl_emit_event(FL_EV_THREAD_NAME, (uint32_t)q->tid, 0, 0, 0, 0, q->text, q->text_len);
		/* struct pthread spans ~2.3 KiB from pthread_self(): keep its pages enabled (first: INIT) */
		fl_engine->pin(q->b);
		fl_engine->pin(q->b + 2303);
		fl_scope_unretire(FL_PAGE_DOWN(q->b), FL_PAGE_DOWN(q->b) + FL_PAGE); /* a cached stack in use again */
		if (q->c)
			__atomic_sub_fetch(&fl_threads_starting, 1, __ATOMIC_SEQ_CST);
		/*
		 * glibc maps a new thread's stack with its internal mmap, which nobody interposes:
		 * tracing rescans every mapping here, the net for whatever else came that way too.
		 * Monitoring takes only the mapping holding the thread's stack (struct pthread sits at
		 * its top) and leaves the rest to its periodic rescan (DL_RESCAN): a JVM starts some
		 * twenty threads, and a rescan reads its ~700 maps lines in ~0.6 ms.
		 */
		if (all && fl_monitoring())
			fl_scope_register_around(FL_PAGE_DOWN(q->b), FL_PAGE_DOWN(q->b) + FL_PAGE);
		else if (all)
			fl_scope_rescan();
		return 0;
	case FL_REQ_THREAD_EXIT:
		fl_emit_event(FL_EV_THREAD_EXIT, (uint32_t)q->tid, 0, 0, 0, 0, NULL, 0);
		if (q->a) {
			/*
			 * a = an address in the exiting thread's stack (engines without kernel-access
			 * trapping): glibc runs the rest of the exit, and the next thread that reuses the
			 * cached stack runs its start, with every signal blocked, where a fault on a
			 * disabled page would kill the process. The stack leaves tracing; the next
			 * thread start registers it again.
			 */
			struct fl_range *r = fl_range_find(FL_PAGE_DOWN(q->a));
			if (r) {
				uintptr_t s = r->start, e = r->end;
				fl_engine->untrace(s, e, 0);
				fl_scope_retire_stack(s, e); /* no rescan takes it before that next start */
			} else {
				/* not traced yet (its start's rescan came while other threads were starting):
				 * retired all the same, or the next rescan would take it */
				fl_maps_each_in(FL_PAGE_DOWN(q->a), FL_PAGE_DOWN(q->a) + FL_PAGE, retire_line, NULL);
			}
		}
		return 0;
	case FL_REQ_FORK_PREPARE:
		/*
		 * The child gets a copy of memory but not our registrations or parking contents:
		 * bring every parked page home first, and stop disabling until FORK_PARENT.
		 */
		if (fl_fork_depth++ == 0) {
			/*
			 * A restore that meets a pending event (another thread's munmap/madvise/
			 * mremap) leaves pages parked until we read the event: read it, try again.
			 */
			for (int tries = 0; tries < STUCK_TRIES; tries++) {
				uint32_t stuck = 0;
				for (uint32_t i = 0; i < fl_range_count(); i++)
					stuck += fl_engine->restore(fl_range_at(i)->start, fl_range_at(i)->end);
				if (!stuck)
					break;
				if (drain_traps() <= 0)
					stuck_pause();
			}
			fl_evms_clear();
		}
		return 0;
	case FL_REQ_FORK_PARENT:
		if (fl_fork_depth > 0 && --fl_fork_depth == 0) {
			/*
			 * Pages still shared with the child (copy on write) cannot be moved (EBUSY)
			 * and stay enabled and untraced until tracing stops (counted as lost).
			 */
			for (uint32_t i = 0; i < fl_range_count(); i++)
				fl_engine->disable(fl_range_at(i)->start, fl_range_at(i)->end);
			fl_evms_clear();
		}
		if ((int64_t)q->a > 0) {
			fl_emit_event(FL_EV_FORK, (uint32_t)q->tid, q->a, 0, 0, 0, NULL, 0);
			announce_fork((uint32_t)q->a);
		}
		fl_counters_publish();
		return 0;
	case FL_REQ_MREMAP:
		/* not said by a REMAP event (untraced range, or resized in place): say it now */
		if (q->text_len == 0)
			fl_emit_event(FL_EV_MREMAP, (uint32_t)q->tid, q->a, q->b, q->c, q->d, NULL, 0);
		return all && q->d > q->b ? fl_scope_register_around(q->c, q->c + q->d) : 0;
	case FL_REQ_THREAD_NAME:
		fl_emit_event(FL_EV_THREAD_NAME, (uint32_t)q->a, 0, 0, 0, 0, q->text, q->text_len);
		return 0;
	case FL_REQ_EXEC:
		if (fl_moca())
			fl_moca_close(); /* the image ends: its last interval's chunks */
		fl_emit_event(FL_EV_EXEC, (uint32_t)q->tid, 0, 0, 0, 0, q->text, q->text_len);
		__atomic_store_n(fl_slot32(FL_SLOT_EXEC_ANNOUNCED), 1, __ATOMIC_RELEASE);
		return 0;
	case FL_REQ_FORK_CHILD: {
		known_brk = (uintptr_t)syscall(SYS_brk, 0);
		if (fl_ranges_torn()) {
			fl_log("fork child: the range table was changing at fork time; ",
			       all ? "rescanning" : "ranges traced through the API are not traced in this child", NULL);
			fl_ranges_forget_all();
		}
		fl_engine->fork_child();
		fl_engine->pin(q->a); /* before anything is disabled (INIT says why) */
		fl_engine->pin(q->a + 2303);
		if (all)
			fl_scope_rescan();
		for (uint32_t i = 0; i < fl_range_count(); i++)
			fl_engine->disable(fl_range_at(i)->start, fl_range_at(i)->end);
		emit_name_of((uint32_t)q->tid);
		fl_counters_publish();
		return 0;
	}
	case FL_REQ_EVMS_FLUSH:
		fl_evms_clear();
		if (fl_moca())
			fl_moca_close(); /* normal exit: the last interval's chunks */
		return 0;
	case FL_REQ_MAP_EVENT: {
		/* an engine that sees no mapping events: an interposed munmap, madvise or mremap said it */
		struct fl_trap t = { .kind = (uint32_t)q->a, .a = q->b, .b = q->c, .c = q->d };
		handle_event(&t);
		return 0;
	}
	case FL_REQ_MPROTECT:
		return fl_engine->protect(q->a, q->b, (int)q->c);
	case FL_REQ_UNTRACE:
		return fl_engine->untrace(q->a, q->b, 0);
	case FL_REQ_PIN: {
		/* for a while (c): only pages not pinned already, so that the unpin leaves those */
		int mask = 0, i = 0;
		for (uintptr_t p = FL_PAGE_DOWN(q->a); p < q->b; p += FL_PAGE, i++) {
			if (q->c && (i >= 30 || fl_pins_has(p)))
				continue;
			fl_engine->pin(p);
			mask |= 1 << i;
		}
		return q->c ? mask : 0;
	}
	case FL_REQ_UNPIN: {
		int i = 0;
		for (uintptr_t p = FL_PAGE_DOWN(q->a); p < q->b && i < 30; p += FL_PAGE, i++) {
			if (!(q->c & (1u << i)))
				continue;
			fl_pins_forget(p, p + FL_PAGE);
			if (fl_range_find(p))
				fl_engine->disable(p, p + FL_PAGE);
		}
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/*
 * Stop tracing: the program must never hang and never lose data because of us. Clear
 * `active` first so interposers pass through and posters cancel their own requests, send the
 * fault threads away, then bring every parked page home and unregister (UFFDIO_UNREGISTER
 * wakes threads still waiting in a fault; they retry and find their page present or fault
 * normally), close the uffd. Guard thread, lock not held on entry.
 */
static void teardown(uint32_t reason, int err)
{
	agent_lock_take();
	__atomic_store_n(&fl_agent.active, 2, __ATOMIC_RELEASE); /* 2: stopped for good */
	stopping = 1;
	agent_unlock();
	uint64_t one = 1;
	ssize_t w = write(stop_efd, &one, sizeof(one));
	(void)w;
	/*
	 * Wait for the fault threads to leave, so none uses the uffd after it is closed. One that
	 * is starved (SCHED_IDLE on a busy CPU) may take long: past 2 s we go on, which is safe
	 * because a fault thread checks `stopping` under the lock before it reads anything.
	 */
	for (int i = 0; i < 200; i++) {
		uint32_t alive = __atomic_load_n(&fault_threads_alive, __ATOMIC_ACQUIRE);
		if (!alive)
			break;
		fl_futex_wait(&fault_threads_alive, alive, 10 * 1000 * 1000L);
	}
	agent_lock_take();
	fl_req_cancel_all();
	if (fl_moca()) {
		while (drain_traps() > 0)
			;
		fl_moca_close(); /* the last interval's chunks, while the ring may still wait */
	}
	fl_emit_quiet();
	/* faults already queued: record what we can without waiting, resolve them all */
	while (drain_traps() > 0)
		;
	/* pages that cannot come home while an event is pending: read it (drain) and retry */
	fl_sample_stop();
	int tries = 0;
	while (fl_engine->untrace_all() == -EAGAIN) {
		if (++tries >= STUCK_TRIES) {
			fl_log("teardown: parked pages could not be restored (an event stayed pending)", NULL, NULL);
			break;
		}
		if (drain_traps() <= 0)
			stuck_pause();
	}
	agent_unlock(); /* wakes what the last drains resolved, on the still open uffd */
	agent_lock_take();
	fl_engine->close();
	fl_counters_publish();
	__atomic_store_n(fl_slot32(FL_SLOT_ERROR), (uint32_t)err, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STOP_REASON), reason, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STATE), FL_SLOT_STOPPED, __ATOMIC_RELEASE);
	fl_emit_event(FL_EV_TRACE_STOP, 0, reason, (uint64_t)err, 0, 0, NULL, 0);
	fl_req_cancel_all();
	agent_unlock();
	if (reason == FL_STOP_RECORDER_GONE)
		fl_unlink_shm(); /* a killed recorder cannot delete it; the memory stays ours while mapped */
}

/*
 * A fault thread's duty cycle, on its own CPU at SCHED_IDLE: drain the traps, serve requests,
 * sleep in poll until the next fault, request or stop. A fatal uffd error is left to the guard.
 */
static int fatal_error; /* under the lock: -errno from reading the uffd; the guard tears down */
static int guard_efd = -1; /* anyone -> guard: look at fatal_error / stop now */

static void *fault_main(void *arg)
{
	fl_handler_thread_note();
	int cpu = (int)(intptr_t)arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	struct sched_param sp = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	int normal = 0;
	struct pollfd fds[3] = {
		{ .fd = fl_engine->fd(), .events = POLLIN },
		{ .fd = fl_req_eventfd(), .events = POLLIN },
		{ .fd = stop_efd, .events = POLLIN },
	};
	for (;;) {
		/*
		 * Under contention (the guard saw a stall) run at normal priority for a while: a
		 * SCHED_IDLE thread preempted while it holds the agent lock would keep it from every
		 * other CPU, the guard included, for as long as its CPU has other work.
		 */
		int want_normal = fl_now_ns() < __atomic_load_n(&normal_until, __ATOMIC_ACQUIRE);
		if (want_normal != normal) {
			pthread_setschedparam(pthread_self(), want_normal ? SCHED_OTHER : SCHED_IDLE, &sp);
			normal = want_normal;
		}
		agent_lock_take();
		if (stopping || fatal_error) {
			agent_unlock();
			break;
		}
		int n = drain_traps();
		if (n < 0) {
			__atomic_store_n(&fatal_error, n, __ATOMIC_RELEASE);
			agent_unlock();
			uint64_t one = 1;
			ssize_t w = write(guard_efd, &one, sizeof(one));
			(void)w;
			break;
		}
		uint64_t before = progress;
		if (n > 0)
			__atomic_add_fetch(&progress, 1, __ATOMIC_RELEASE);
		if (fl_req_pending())
			serve_requests(serve);
		int busy = progress != before;
		agent_unlock();
		if (busy)
			continue;
		if (poll(fds, 3, -1) < 0 && errno != EINTR)
			break;
	}
	__atomic_fetch_sub(&fault_threads_alive, 1, __ATOMIC_ACQ_REL);
	fl_futex_wake(&fault_threads_alive);
	return NULL;
}

/*
 * The guard's deadline table: each entry runs when its time has come, and the guard sleeps
 * until the earliest one (or until a request, the recorder's death, or a fault while it watches
 * the uffd). Entries run without the lock and touch only atomics and the guard's own state; one
 * that needs agent state marks it, and the guard acts on the mark under the lock: Moca's
 * interval end (moca_due: before that section reads any fault) and monitoring's rescan
 * (rescan_due), and DAMON's sampling window (sample_due: sample.c closes it, one sampling
 * interval after the recorder's ARM, which sets the entry).
 */
struct deadline {
	uint64_t due;    /* fl_now_ns(); 0 = not armed */
	uint64_t period; /* re-armed this far ahead after running; 0 = once */
	void (*run)(uint64_t now);
};
enum { DL_LIVENESS, DL_STALL, DL_MOCA, DL_RESCAN, DL_SAMPLE, DL_COUNT };
static struct deadline deadlines[DL_COUNT];
static uint32_t stop_reason; /* set by a deadline: the guard tears down with it */
static int stop_err;

/* Moca mode: the interval ends; run under the lock by the guard (moca_close_now) */
static int moca_close_now;

/*
 * Monitoring, scope all: mappings made behind the interposed calls (a thread's stack, a
 * library's .bss from dlopen) are found by a rescan of every mapping this often, DAMON's
 * default operations-update interval, at which the monitor reads the traced set again anyway.
 * Tracing needs no such tick: it rescans at each thread start (serve, FL_REQ_THREAD_START).
 */
#define RESCAN_NS (1000ULL * 1000 * 1000)
static int rescan_now;

static void rescan_due(uint64_t now)
{
	(void)now;
	rescan_now = 1;
}

static int sample_close_now;

static void sample_due(uint64_t now)
{
	(void)now;
	sample_close_now = 1;
}

static void moca_due(uint64_t now)
{
	(void)now;
	moca_close_now = 1;
}

static void liveness_due(uint64_t now)
{
	(void)now;
	if (stop_requested())
		stop_reason = FL_STOP_REQUESTED;
	else if (!fl_recorder_alive() || fl_ring_abandoned())
		stop_reason = FL_STOP_RECORDER_GONE;
}

/*
 * Starvation check, every tick while faults are recent: a fault or request that has waited
 * two ticks in a row with no progress by anyone means the fault threads get no CPU (their CPUs
 * are busy with other work): the guard handles faults itself for a while.
 */
static uint64_t last_progress, last_active, contended_until;
static int pending_before;
static uint64_t stalls;

static int traps_queued(void)
{
	return fl_fd_readable(fl_engine->fd());
}

/*
 * Between two pages of a sampling ARM (sample.c): resolve the checks that have faulted so far
 * and wake their threads, which needs the lock released (see the top of the file). The ARM's
 * own state is consistent between pages; whatever changes meanwhile (an event read here, a
 * request) is looked up again for the next page.
 */
static void sample_between(void)
{
	if (!traps_queued())
		return;
	if (drain_traps() > 0)
		progress++;
	agent_unlock();
	agent_lock_take();
}

static void stall_due(uint64_t now)
{
	uint64_t p = __atomic_load_n(&progress, __ATOMIC_ACQUIRE);
	if (p != last_progress) {
		last_progress = p;
		last_active = now;
		pending_before = 0;
		return;
	}
	int pending = traps_queued() || fl_req_pending();
	if (pending && pending_before) {
		stalls++;
		contended_until = now + CONTENDED_NS;
		__atomic_store_n(&normal_until, now + NORMAL_NS, __ATOMIC_RELEASE);
		FL_DEBUG("stall", stalls, 0, 0);
	}
	pending_before = pending;
	if (!pending && now - last_active > ACTIVE_NS)
		deadlines[DL_STALL].due = 0; /* quiet: stop ticking, watch the uffd instead */
}

static int guard_handles_faults(uint64_t now)
{
	return single_handler || now < contended_until;
}

static void *guard_main(void *arg)
{
	(void)arg;
	fl_handler_thread_note();
	const char *exe = fl_agent.exe_path;
	agent_lock_take();
	fl_emit_event(FL_EV_PROCESS_START, (uint32_t)fl_agent.pid, (uint64_t)fl_agent.ppid, fl_agent.slot_index, 0, 0,
		      exe, (uint32_t)strlen(exe));
	if (fl_agent.exec_event)
		fl_emit_event(FL_EV_EXEC, (uint32_t)fl_agent.pid, 0, 0, 0, 0, exe, (uint32_t)strlen(exe));
	agent_unlock();
	uint64_t now = fl_now_ns();
	deadlines[DL_LIVENESS] = (struct deadline){ now + LIVENESS_NS, LIVENESS_NS, liveness_due };
	deadlines[DL_STALL] = (struct deadline){ 0, TICK_NS, stall_due };
	if (fl_moca())
		deadlines[DL_MOCA] = (struct deadline){ now + fl_agent.interval_ns, fl_agent.interval_ns, moca_due };
	if (fl_monitoring() && fl_agent.scope == FL_SCOPE_ALL)
		deadlines[DL_RESCAN] = (struct deadline){ now + RESCAN_NS, RESCAN_NS, rescan_due };
	deadlines[DL_SAMPLE] = (struct deadline){ 0, 0, sample_due }; /* set by each ARM (a fork child's board has none) */
	sample_close_now = 0;
	for (;;) {
		now = fl_now_ns();
		int fatal = __atomic_load_n(&fatal_error, __ATOMIC_ACQUIRE);
		if (fatal && !stop_reason) {
			stop_reason = FL_STOP_ERROR;
			stop_err = -fatal;
		}
		/* the deadlines so far read only atomics and the guard's own state: no lock, so a
		 * stall is seen even while a starved fault thread holds the lock */
		for (int i = 0; i < DL_COUNT && !stop_reason; i++) {
			struct deadline *d = &deadlines[i];
			if (d->due && d->due <= now) {
				d->due = d->period ? now + d->period : 0;
				d->run(now);
			}
		}
		int handles = guard_handles_faults(now);
		int serve_now = fl_req_pending() && (handles || n_fault_threads == 0);
		int sample_now = fl_sample_pending();
		if (!stop_reason && (handles || serve_now || sample_now || moca_close_now || rescan_now || sample_close_now))
			agent_lock_take();
		else
			goto unlocked;
		if (moca_close_now) {
			/*
			 * Before this section's drain: a page resolved here and disabled at once would make
			 * its thread, woken only at unlock, fault again in the next interval for the same
			 * reference. Faults still queued at the deadline belong to the next interval.
			 */
			moca_close_now = 0;
			uint32_t ended = fl_moca_close();
			/* a pending event (munmap, madvise, mremap) would make every move fail: read it;
			 * the pages its batch's faults enable are the next interval's, not disabled now */
			if (traps_queued() && drain_traps() > 0)
				progress++;
			fl_moca_disable(ended);
		}
		if (handles) {
			int n = drain_traps();
			if (n < 0) {
				stop_reason = FL_STOP_ERROR;
				stop_err = -n;
			} else if (n > 0) {
				progress++;
			}
		}
		if (!stop_reason && serve_now)
			serve_requests(serve);
		if (!stop_reason && rescan_now) {
			rescan_now = 0;
			fl_scope_rescan();
		}
		if (!stop_reason && (sample_now || sample_close_now)) {
			/* a window's answer must hold every access that faulted before it closed */
			if (!handles && drain_traps() > 0)
				progress++;
			if (sample_close_now) {
				sample_close_now = 0;
				fl_sample_close(sample_between);
			}
			fl_sample_serve(sample_between);
			deadlines[DL_SAMPLE] = (struct deadline){ fl_sample_close_due(), 0, sample_due };
		}
		agent_unlock();
unlocked:
		if (stop_reason) {
			teardown(stop_reason, stop_err);
			__atomic_store_n(&guard_done, 1, __ATOMIC_RELEASE);
			fl_futex_wake(&guard_done);
			return NULL;
		}
		/*
		 * Sleep until the next deadline. The uffd and the request eventfd are watched only
		 * when the guard handles faults, or, while no faults are coming, to notice the first
		 * one and start ticking (it then leaves it to the fault threads).
		 */
		uint64_t next = UINT64_MAX;
		for (int i = 0; i < DL_COUNT; i++)
			if (deadlines[i].due && deadlines[i].due < next)
				next = deadlines[i].due;
		int ticking = deadlines[DL_STALL].due != 0;
		struct pollfd fds[5];
		nfds_t nfds = 0;
		fds[nfds++] = (struct pollfd){ .fd = guard_efd, .events = POLLIN };
		if (fl_agent.recorder_pidfd >= 0)
			fds[nfds++] = (struct pollfd){ .fd = fl_agent.recorder_pidfd, .events = POLLIN };
		nfds_t watched = nfds;
		if (handles || !ticking) {
			fds[nfds++] = (struct pollfd){ .fd = fl_engine->fd(), .events = POLLIN };
			fds[nfds++] = (struct pollfd){ .fd = fl_req_eventfd(), .events = POLLIN };
		}
		now = fl_now_ns();
		/* to the nanosecond (ppoll): a sampling window of 5 ms must not last 6 */
		uint64_t left = next == UINT64_MAX ? 0 : next <= now ? 0 : next - now;
		struct timespec timeout = { .tv_sec = (time_t)(left / 1000000000ULL), .tv_nsec = (long)(left % 1000000000ULL) };
		int r = ppoll(fds, nfds, next == UINT64_MAX ? NULL : &timeout, NULL);
		if (r < 0 && errno != EINTR) {
			stop_reason = FL_STOP_ERROR;
			stop_err = errno;
			continue;
		}
		if (fds[0].revents & POLLIN) {
			/* poked (a fault thread's fatal error, or a stop asked for): look at once */
			uint64_t v;
			ssize_t got = read(guard_efd, &v, sizeof(v));
			(void)got;
			deadlines[DL_LIVENESS].due = fl_now_ns();
		}
		if (watched > 1 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
			fl_recorder_gone(), stop_reason = FL_STOP_RECORDER_GONE;
		if (!handles && nfds > watched && ((fds[watched].revents | fds[watched + 1].revents) & POLLIN)) {
			/* the first fault or request after a quiet spell: start ticking */
			now = fl_now_ns();
			last_active = now;
			last_progress = __atomic_load_n(&progress, __ATOMIC_ACQUIRE);
			pending_before = 0;
			deadlines[DL_STALL].due = now + TICK_NS;
		}
	}
}

void fl_handler_poke(void)
{
	uint64_t one = 1;
	ssize_t w = write(guard_efd, &one, sizeof(one));
	(void)w;
}

int fl_handler_wait_stopped(long timeout_ms)
{
	for (long waited = 0; !__atomic_load_n(&guard_done, __ATOMIC_ACQUIRE); waited += 10) {
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		fl_futex_wait(&guard_done, 0, 10 * 1000 * 1000L);
	}
	return 0;
}

void fl_handler_reset_after_fork(void)
{
	/* the child has only the forking thread: no handler thread, the lock as the fork left it */
	pthread_mutex_init(&agent_lock, NULL);
	fl_handler_threads_reset();
	n_fault_threads = 0;
	fault_threads_alive = 0;
	stopping = 0;
	fatal_error = 0;
	stop_reason = 0;
	stop_err = 0;
	progress = last_progress = last_active = contended_until = normal_until = 0;
	pending_before = 0;
	wake_n = 0;
	wake_reqs = 0;
	if (stop_efd >= 0)
		close(stop_efd);
	if (guard_efd >= 0)
		close(guard_efd);
	stop_efd = guard_efd = -1;
	guard_done = 0;
	fl_emit_reset();
	known_brk = 0;
	deferred_n = 0;
	held_n = 0;
	memset(hints, 0, sizeof(hints));
	moca_close_now = 0;
	memset(deadlines, 0, sizeof(deadlines));
	fl_moca_reset();
}

/* a thread with its own agent-mapped stack and every signal blocked (inherited from here) */
static int start_thread(pthread_t *t, size_t stack_len, void *(*fn)(void *), void *arg)
{
	void *stack = fl_mem_map(stack_len + FL_PAGE);
	if (!stack)
		return -ENOMEM;
	mprotect(stack, FL_PAGE, PROT_NONE); /* guard page */
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, (char *)stack + FL_PAGE, stack_len);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int err = fl_real_pthread_create(t, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -err;
}

int fl_handler_start(void)
{
	int err = fl_emit_init();
	if (err)
		return err;
	if (!msgs) {
		msgs = fl_mem_map(MSG_BATCH * sizeof(*msgs));
		staged = fl_mem_map(MSG_BATCH * sizeof(*staged));
	}
	if (!msgs || !staged)
		return -ENOMEM;
	const char *delay = getenv("FAULTLINE_TEST_EVENT_DELAY_US");
	if (delay)
		test_event_delay_us = atoi(delay);
	const char *mode = getenv("FAULTLINE_HANDLERS");
	/*
	 * Per-CPU handling is opt-in (FAULTLINE_HANDLERS=percpu): under `faultline record` it gained
	 * nothing measurable on one thread and lost on two (BENCHMARKS.md, "Capture"), although
	 * the bare probe shows it as fast as a pinned handler (docs/ARCHITECTURE.md, "Fault
	 * handling").
	 */
	single_handler = !mode || strcmp(mode, "percpu") != 0;
	/*
	 * An engine without fd (mprotect) resolves each fault on the faulting thread: fault threads
	 * would only serve requests, which the guard does.
	 */
	if (fl_engine->fd() < 0)
		single_handler = 1;
	stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	guard_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (stop_efd < 0 || guard_efd < 0)
		return -errno;

	/*
	 * One fault thread per CPU this process may run on (the constructor's thread's affinity;
	 * a program that later widens its own affinity gets no fault thread on the new CPUs, and
	 * the guard covers their faults when they stall).
	 */
	if (!single_handler) {
		cpu_set_t allowed;
		if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
			CPU_ZERO(&allowed);
			CPU_SET(0, &allowed);
		}
		for (int cpu = 0; cpu < CPU_SETSIZE && n_fault_threads < MAX_FAULT_THREADS; cpu++) {
			if (!CPU_ISSET(cpu, &allowed))
				continue;
			__atomic_fetch_add(&fault_threads_alive, 1, __ATOMIC_ACQ_REL);
			if ((err = start_thread(&fault_threads[n_fault_threads], FAULT_STACK, fault_main,
						(void *)(intptr_t)cpu)) != 0) {
				__atomic_fetch_sub(&fault_threads_alive, 1, __ATOMIC_ACQ_REL);
				break;
			}
			n_fault_threads++;
		}
	}
	if ((err = fl_sample_init(guard_efd)) != 0)
		return err;
	if (fl_moca() && (err = fl_moca_init()) != 0)
		return err;
	if ((err = start_thread(&guard_thread, HANDLER_STACK, guard_main, NULL)) != 0) {
		/* fault threads started already leave at once: nothing is registered yet */
		agent_lock_take();
		stopping = 1;
		agent_unlock();
		uint64_t one = 1;
		ssize_t w = write(stop_efd, &one, sizeof(one));
		(void)w;
		return err;
	}
	/* the program's threads are listed at FL_REQ_INIT as /proc/self/task minus the handler threads */
	fl_handler_threads_await(n_fault_threads + 1);
	return 0;
}
