/*
 * fault.c: the fault path. The trapping mechanism is the engine's (struct fl_engine, engine.h):
 * this code reads its traps (faults and mapping events, several per read) and calls it to
 * enable, evict and restore pages, never knowing which engine runs. An engine without fd
 * (mprotect) has no queue to read: each fault runs the same steps on the faulting thread
 * (fl_fault_on_thread).
 *
 * Per batch of traps (read several at once):
 *   1. label each fault (write? first touch?) and take its seq from the global clock;
 *   2. publish the records to the ring, grouped into chunks of consecutive same-thread faults;
 *   3. only then resolve the faults: evict the oldest EVMS page first, then move the faulting
 *      page back (or zero-fill it); its thread is woken at unlock (lock.c). A thread woken by
 *      step 3 may call exit_group at once; its record is already in shared memory, so the
 *      recorder cannot lose it. Evicting before waking keeps the trace independent of timing:
 *      the woken thread never sees an EVMS larger than the model's.
 * Non-cooperative events (UNMAP, REMOVE, REMAP) split the publishing: the records of the
 * faults before an event go out first, then the event. Resolution waits until every event of
 * the batch is applied (handle_batch says why). The thread that caused an event waits in the
 * kernel until we have read it, which is why a handler thread must never munmap/madvise/
 * mremap a registered range (it would wait for itself). Lock held throughout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "faultline_shm.h"
#include "check.h"
#include "emit.h"
#include "engine.h"
#include "evms.h"
#include "fault.h"
#include "lock.h"
#include "map_events.h"
#include "mem.h"
#include "mode.h"
#include "pagemap.h"
#include "pins.h"
#include "policy.h"
#include "ranges.h"
#include "scope.h"
#include "state.h"
#include "stacks.h"
#include "sys.h"

/*
 * Faults that are no reference records (evms.c): a re-reference of a resident page the
 * trailing segment has disabled, and the first write to a page enabled by a read (it was
 * write-protected so that the write is seen: the EVMS's dirty flag).
 */
#define SOFT_REREF 1
#define SOFT_DIRTY 2
/*
 * A fault on a page the set holds enabled: another thread's fault of the same page brought it
 * in first (two userfaultfd messages, or a shared fault's move home not yet done), so this
 * reference found it in the set: no record, as the model says (fault_shared decides it so too).
 */
#define SOFT_RACE  3
/* another process reading our memory through the kernel (process_vm_readv waits for the handler
 * under uffd): resolved as a reference would be, recorded as none (sys.c, fl_thread_foreign) */
#define SOFT_FOREIGN 4

static struct fl_trap *msgs;
static struct fl_fault *staged;
/*
 * FAULTLINE_TEST_EVENT_DELAY_US (tests only): sleep this long after reading a batch that holds
 * a non-cooperative event, before handling it. The thread that raised the event runs on in the
 * meantime, which is the window handle_batch has to be correct in; the test makes it wide.
 */
static int test_event_delay_us;
/*
 * FAULTLINE_TEST_SHARED_PAUSE=PAGE:MS (tests only): the first fault at PAGE resolved without the
 * lock sleeps MS milliseconds after its decision, before it moves any page: the window in which
 * another thread's fault, eviction, unmap or fork meets it (the race tests of the shared path).
 */
static uintptr_t test_pause_page;
static long test_pause_ms;
static int test_paused;

int fl_fault_init(void)
{
	if (!msgs) {
		msgs = fl_mem_map(FL_BATCH * sizeof(*msgs));
		staged = fl_mem_map(FL_BATCH * sizeof(*staged));
	}
	if (!msgs || !staged)
		return -ENOMEM;
	int err = fl_stacks_init();
	if (err)
		return err;
	const char *delay = getenv("FAULTLINE_TEST_EVENT_DELAY_US");
	if (delay)
		test_event_delay_us = atoi(delay);
	const char *pause = getenv("FAULTLINE_TEST_SHARED_PAUSE");
	if (pause) {
		char *end;
		test_pause_page = FL_PAGE_DOWN(strtoull(pause, &end, 0));
		test_pause_ms = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
	}
	return 0;
}

/*
 * The faulting thread's registers while fl_fault_on_thread handles its fault (record --stacks):
 * its reference record gets the id of its call stack. NULL on a handler thread, whose faults
 * come with an address and a tid only (record refuses --stacks under the uffd engine).
 */
static const struct fl_stack_regs *on_thread_regs;

/* one reference record outside a batch's publishing (resolve_one says when) */
static void publish_late(uintptr_t address, uint32_t tid, int write)
{
	struct fl_fault f = { .address = address, .tid = tid, .flags = write ? FL_REC_WRITE : 0 };
	if (on_thread_regs && fl_stacks_on())
		f.stack = fl_stack_take(on_thread_regs, tid);
	fl_emit_references(&f, 1);
}

/* faults whose resolution met EAGAIN (an event in flight): retried after the next read */
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
	for (uint32_t i = 0; i < held_n; i++) {
		int r = fl_engine->evict(held[i].victim);
		if (r == -EAGAIN)
			held[kept++] = held[i];
		else if (r == 1)
			fl_cnt.evictions++;
	}
	held_n = kept;
}

void fl_fault_reset(void)
{
	deferred_n = 0;
	held_n = 0;
	fl_stacks_reset();
}

/* a fault as the engine read it (FL_TRAP_*), before it is labelled */
static struct fl_fault as_read(uint64_t address, uint32_t tid, uint32_t trap_flags)
{
	return (struct fl_fault){ .address = address, .tid = tid,
				  .flags = (trap_flags & FL_TRAP_WRITE) ? FL_REC_WRITE : 0,
				  .soft = (trap_flags & FL_TRAP_WP) ? SOFT_DIRTY : 0 };
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
		int state = fl_evms_state(page);
		if (state != FL_EVMS_OUT) {
			staged[i].soft = state == FL_EVMS_DISABLED ? SOFT_REREF : SOFT_RACE;
			continue;
		}
		/* another thread's fault of the page earlier in this batch brings it in: a race too */
		int earlier = 0;
		for (uint32_t k = from; k < i && !earlier; k++)
			earlier = !staged[k].soft && FL_PAGE_DOWN(staged[k].address) == page;
		if (earlier) {
			staged[i].soft = SOFT_RACE;
			continue;
		}
		if (fl_thread_foreign((pid_t)staged[i].tid)) {
			staged[i].soft = SOFT_FOREIGN;
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
	/* a stack per reference record, not per soft fault; none for the gate's kernel references,
	 * whose faulting instruction is the agent's touch of the call's buffer */
	if (on_thread_regs && fl_stacks_on())
		for (uint32_t i = from; i < to; i++)
			if (!staged[i].soft && !(staged[i].flags & FL_REC_KERNEL))
				staged[i].stack = fl_stack_take(on_thread_regs, staged[i].tid);
	if (fl_mode->faults) /* trace: the reference records; Moca: counted; monitor: nothing */
		fl_mode->faults(staged + from, to - from);
}

/*
 * Whether the page a fault enables comes back read-only, so that its first write is a fault
 * too (SOFT_DIRTY): the EVMS's dirty flag, and Moca's count of write faults. Not after a
 * write, nor a re-reference of a page written before; not without dirty tracking (record
 * --no-dirty, which the recorder refuses in Moca mode), nor in a mode without (monitor), nor for
 * a pinned page (never in the EVMS). The one place this is decided: the engines carry it out.
 */
static int enables_read_only(uintptr_t page, int write, int pinned, int soft)
{
	if (write || (fl_agent.flags & FL_FLAG_NO_DIRTY) || !(fl_mode->flags & FL_TRACKS_DIRTY))
		return 0;
	return soft ? !fl_evms_dirty(page) : !pinned;
}

/*
 * Enable a faulting page and, in a mode that keeps an EVMS, let the policy admit it, disabling
 * the victims it names. The faulting thread is woken only when the agent lock is released
 * (fl_unlock), so the victim is always disabled before the thread runs again: the trace does
 * not depend on timing, and the thread never sees a set larger than the policy's.
 */
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
	int admits = (fl_mode->flags & FL_KEEPS_EVMS) && !pinned && !soft;
	int admitted_now = 0;
	if (admits && fl_evms_state(page) == FL_EVMS_OUT && fl_range_find(page)) {
		const uintptr_t *victims;
		uint32_t n = fl_evms_admit(page, tid, write, &victims);
		/* a page a system call is using stays until the call ends (pins.c, fl_pins_hold) */
		for (uint32_t i = 0; i < n; i++) {
			if (fl_fork_depth || fl_pins_held(victims[i]))
				continue;
			int out = fl_engine->evict(victims[i]);
			if (out == -EAGAIN)
				hold(victims[i], page);
			else if (out == 1)
				fl_cnt.evictions++;
		}
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
	fl_wake_later(page);
	if (soft) {
		fl_evms_touch(page, write);
		/* resolved otherwise (present already, or copied home): still resident, so its
		 * first write must still be seen */
		if (r == 0 && read_only)
			fl_engine->protect_writes(page, 1);
		return;
	}
	if (fl_mode->enabled) /* Moca: enabled until the interval ends; monitor: a check answered */
		fl_mode->enabled(page, r, pinned);
	/* resolved otherwise (present already, copied, untraced meanwhile): not ours to keep */
	if (admitted_now && r <= 0)
		fl_evms_forget(page, page + FL_PAGE);
}

/* resolve staged[0..n): every event of the batch has been applied already (handle_batch) */
static void resolve_faults(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t page = FL_PAGE_DOWN(staged[i].address);
		int foreign = staged[i].soft == SOFT_FOREIGN; /* its page admitted under the main thread's tid */
		resolve_one(page, staged[i].flags & FL_REC_WRITE, fl_pins_has(page), foreign ? 0 : staged[i].soft,
			    foreign ? (uint32_t)fl_agent.pid : staged[i].tid);
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
	int events = 0;
	for (uint32_t i = 0; i < n; i++)
		events |= msgs[i].kind != FL_TRAP_FAULT;
	if (!events) {
		/*
		 * Without an event each fault is a batch of one, in order: its record, then its
		 * resolution, whose evictions take the clock after that record and before the next
		 * one's, as the model says (FORMAT.md, "EVMS"); published all first, a batch of faults of
		 * several threads put its evictions after every record of the batch.
		 */
		for (uint32_t i = 0; i < n; i++) {
			staged[0] = as_read(msgs[i].a, msgs[i].tid, msgs[i].flags);
			label_and_publish(0, 1);
			resolve_faults(1);
		}
		return;
	}
	uint32_t k = 0, published = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct fl_trap *m = &msgs[i];
		if (m->kind == FL_TRAP_FAULT) {
			staged[k++] = as_read(m->a, m->tid, m->flags);
		} else {
			label_and_publish(published, k);
			published = k;
			fl_map_event(m);
		}
	}
	label_and_publish(published, k);
	resolve_faults(k);
}

/* ---- the shared path: a fault on the faulting thread without the agent lock ---- */

#define NEEDS_LOCK (-1)

/*
 * Bring the page's state in line with the EVMS, its lock held: whatever decisions about it were
 * made, and in whatever order their threads get here, the last decision is the state the page
 * ends in (policy.h, target). An enabled page that must go has its written bit learned first
 * (asynchronous dirty tracking: the move out drops it): SYNC_WRITTEN if it had been written. A
 * pinned page stays enabled; so does a page a system call holds (pins.c: it goes when the call
 * releases it, gate.c), and every page while a fork is prepared. wp: the fault was a write to a
 * page enabled read-only, whose protection goes if the page stays. SYNC_STUCK: the userfaultfd
 * refused the move for now (an event is pending: fault.c's lock path retries it once it is read).
 */
#define SYNC_WRITTEN 1
#define SYNC_STUCK   2
static int sync_page(struct fl_range *r, uintptr_t page, int write, int wp, int faulted, struct fl_emitter *e)
{
	int out = 0;
	fl_page_lock(r, page);
	int dirty;
	int target = fl_evms_target(page, &dirty);
	int pinned = fl_pins_has(page);
	int resident = fl_engine->resident(page);
	/*
	 * A missing fault on a page its home bit calls resident: another thread's fault on it was
	 * resolved first (the usual case, the page is there), or the page left home behind our back
	 * (an occupied parking slot and an empty home, engine_uffd.c's slot_taken). Only pagemap
	 * tells them apart; believing the bit would wake the thread into the same fault forever.
	 */
	if (resident && faulted && !wp && fl_engine->fd() >= 0 && !fl_page_present(page)) {
		FL_COUNT(races);
		resident = 0; /* enable sets the bit again as it moves the page home */
	}
	if (target == FL_EVMS_ENABLED || pinned) {
		if (!resident) {
			int read_only = !pinned && !dirty && !write && !(fl_agent.flags & FL_FLAG_NO_DIRTY) &&
					(fl_mode->flags & FL_TRACKS_DIRTY);
			if (fl_engine->enable(page, write, read_only) == -EAGAIN)
				out |= SYNC_STUCK;
		} else if (wp && fl_engine->protect_writes(page, 0) == -EAGAIN) {
			out |= SYNC_STUCK;
		}
	} else if (resident && !fl_pins_held(page) && !fl_fork_depth) {
		if (fl_engine->page_written && fl_engine->page_written(page) == 1)
			out |= SYNC_WRITTEN;
		int evicted = fl_engine->evict(page);
		if (evicted == 1)
			fl_emitter_count(e, FL_TRING_EVICTIONS, 1);
		else if (evicted == -EAGAIN)
			out |= SYNC_STUCK;
	}
	fl_page_unlock(r, page);
	return out;
}

static void emit_eviction(struct fl_emitter *e, const struct fl_decision_record *r)
{
	fl_emit_event_to(e, FL_EV_EVICT, r->tid, r->seq, r->page, (uint64_t)(unsigned char)r->tag, r->deleted, 0, NULL, 0);
}

/*
 * What a fault resolved without the lock left undone: the userfaultfd refused a move while an
 * event was pending (SYNC_STUCK), and only the lock's path, which reads events, can finish it
 * (fl_fault_drain_shared hands it over).
 */
struct stuck {
	uintptr_t page;
	uint32_t tid;
	int write, pinned, soft;
	int page_stuck;            /* the page is not home yet */
	uint32_t n;                /* pages that left and are still enabled */
	uintptr_t victims[FL_DECISION_OUT];
};

/* the races' tests (FAULTLINE_TEST_SHARED_PAUSE): the first shared fault on the page waits,
 * decided or counted and its page not moved yet, while another thread's work falls inside it */
static void test_pause(uintptr_t page)
{
	if (page == test_pause_page && test_pause_ms && !__atomic_exchange_n(&test_paused, 1, __ATOMIC_ACQ_REL)) {
		struct timespec ts = { test_pause_ms / 1000, (test_pause_ms % 1000) * 1000000L };
		fl_syscall(SYS_nanosleep, (long)&ts);
	}
}

/*
 * The steps of a batch of one, in the same order, beside other threads' faults: the policy's
 * decision, which takes the reference's seq (policy.h); the record published; the pages that
 * left or were disabled brought in line (each learning whether it was written) and their
 * eviction records written (their seq the clock after the record: FORMAT.md, "EVMS"); the page
 * enabled. Each page is moved under its own lock, which no other room takes; the messages go to
 * the producer's own ring, whose watermark is open from before the seq until after the last of
 * them (faultline_shm.h, "Producers and rings"). Returns 1, NEEDS_LOCK (nothing changed), or
 * NEEDS_LOCK - 1 with *stuck saying what is left (userfaultfd only). f: the fault as read;
 * regs: the faulting thread's registers (the in-thread engines' stacks), else NULL.
 */
#define STUCK (NEEDS_LOCK - 1)
static int resolve_shared(struct fl_range *r, struct fl_fault f, const struct fl_stack_regs *regs, struct fl_emitter *e,
			  struct stuck *stuck)
{
	uintptr_t page = FL_PAGE_DOWN(f.address);
	uint32_t tid = f.tid;
	int write = (f.flags & FL_REC_WRITE) != 0;
	int wp = f.soft == SOFT_DIRTY;
	int pinned = fl_pins_has(page);
	struct fl_decision d;
	fl_emit_open(e);
	/*
	 * The call stack before the decision: a stack seen for the first time goes out as an event
	 * whose seq is the clock's under the stack table's lock, so that the record naming it (its seq
	 * taken in the decision, later) comes after it, here and on any other thread that finds it
	 * (stacks.c). Only for a page outside the set: a soft fault is no record (should the set have
	 * changed before the decision, the record goes without its stack).
	 */
	if (fl_stacks_on() && !wp && !(f.flags & FL_REC_KERNEL) && regs) {
		int dirty;
		if (fl_evms_target(page, &dirty) == FL_EVMS_OUT)
			f.stack = fl_stack_take_to(e, regs, tid);
	}
	int kind = fl_evms_decide(page, tid, write, wp, !pinned, &d);
	if (kind == FL_DECIDED_LOCK) {
		fl_emit_close(e);
		return NEEDS_LOCK;
	}
	test_pause(page);
	fl_emitter_count(e, FL_TRING_FAULTS, 1);
	if (kind == FL_DECIDED_REFERENCE) {
		if (fl_engine->first_touch(r, page))
			f.flags |= FL_REC_FIRST_TOUCH;
		fl_emit_record_to(e, &f, d.seq);
	}
	/* the pages that left or were disabled go out before the page comes home: its thread never
	 * sees a larger set; each learns whether it was written as it goes */
	struct fl_decision_record handed[FL_DECISION_OUT], out[FL_DECISION_OUT];
	uint32_t n_handed = 0;
	stuck->n = 0;
	for (uint32_t i = 0; i < d.n_sync; i++) {
		struct fl_range *vr = fl_range_find(d.sync[i].page);
		int s = vr ? sync_page(vr, d.sync[i].page, 0, 0, 0, e) : 0;
		if (d.sync[i].learn && fl_evms_learned(&d.sync[i], (s & SYNC_WRITTEN) != 0, &handed[n_handed]))
			n_handed++;
		if ((s & SYNC_STUCK) && stuck->n < FL_DECISION_OUT)
			stuck->victims[stuck->n++] = d.sync[i].page;
	}
	uint32_t n_out = fl_evms_settle(&d, out);
	/* in seq order: this decision's records, then those of later decisions it finished */
	for (uint32_t i = 0; i < n_out; i++)
		emit_eviction(e, &out[i]);
	for (uint32_t i = 0; i < n_handed; i++)
		emit_eviction(e, &handed[i]);
	/* a victim still enabled keeps the page away (resolve_one says why): the lock's path finishes both */
	int s = stuck->n ? SYNC_STUCK : sync_page(r, page, write, wp, 1, e);
	fl_emit_close(e);
	if (s & SYNC_STUCK) {
		stuck->page = page;
		stuck->tid = tid;
		stuck->write = write;
		stuck->pinned = pinned;
		stuck->soft = f.soft;
		stuck->page_stuck = 1;
		return STUCK;
	}
	/*
	 * A handler thread's move home never wakes (DONTWAKE), and the faulting thread must run
	 * again whatever became of its page: home, or let go by another decision meanwhile (it then
	 * faults again, a new record)
	 */
	fl_engine->wake(page);
	return 1;
}

/*
 * A fault of a mode that counts faults in its threads' chunks (Moca: mode.h, count), beside
 * other threads' faults, with the lock path's steps in its order: counted first (labelling, its
 * first touch learned by the count once nothing can refuse it), then its page enabled under the
 * page's lock as resolve_one enables it (read-only after a read, so that a later write is
 * counted too; a write-protect fault lifts the protection), the mode told what became of the
 * page. Returns 1, NEEDS_LOCK (a table is full: nothing was done), or STUCK
 * with *stuck saying what is left (userfaultfd only: the move was refused while an event was
 * pending; fl_fault_drain_shared defers it to the lock's path, counted already).
 */
static int resolve_counted(struct fl_range *r, struct fl_fault f, struct fl_emitter *e, struct stuck *stuck)
{
	uintptr_t page = FL_PAGE_DOWN(f.address);
	int write = (f.flags & FL_REC_WRITE) != 0;
	int pinned = fl_pins_has(page);
	uint32_t ticket;
	if (!fl_mode->count(r, &f, &ticket))
		return NEEDS_LOCK;
	test_pause(page);
	fl_emitter_count(e, FL_TRING_FAULTS, 1);
	fl_page_lock(r, page);
	int res = f.soft == SOFT_DIRTY ? fl_engine->protect_writes(page, 0)
				       : fl_engine->enable(page, write, enables_read_only(page, write, pinned, 0));
	fl_page_unlock(r, page);
	fl_mode->settle(ticket, page, f.soft == SOFT_DIRTY ? 0 : res, pinned);
	if (res == -EAGAIN) {
		*stuck = (struct stuck){ .page = page, .tid = f.tid, .write = write, .pinned = pinned, .soft = f.soft,
					 .page_stuck = 1 };
		return STUCK;
	}
	fl_engine->wake(page);
	return 1;
}

/*
 * One fault on the faulting thread (an engine without fd), beside other threads' faults: 1 ours
 * (recorded or settled), 2 a race (the page allows the access now: retry), 0 the program's,
 * NEEDS_LOCK: the lock's path must decide (before anything was changed).
 */
static int fault_shared(uintptr_t address, uint32_t tid, uint32_t access, const struct fl_stack_regs *regs,
			struct fl_emitter *e)
{
	int evms = (fl_mode->flags & FL_KEEPS_EVMS) != 0;
	int counts = fl_mode->count != NULL;
	if (!fl_tracing() || ((evms || counts) && fl_emitter_bind(e, tid)))
		return NEEDS_LOCK;
	uint32_t flags = 0;
	int ours = fl_engine->trapped(address, access | FL_ACCESS_SHARED, &flags);
	if (ours < 0)
		return NEEDS_LOCK;
	if (!ours)
		return (flags & FL_TRAP_ALLOWED) ? 2 : 0;
	uintptr_t page = FL_PAGE_DOWN(address);
	struct fl_range *r = fl_range_find(page);
	if (!r)
		return NEEDS_LOCK;
	if (!evms && !counts) {
		/* monitor mode: an access check answered (mode.h, enabled); the page comes home as it was */
		fl_page_lock(r, page);
		int home = fl_engine->resident(page) ? 0 : fl_engine->enable(page, (flags & FL_TRAP_WRITE) != 0, 0);
		fl_page_unlock(r, page);
		if (fl_mode->enabled)
			fl_mode->enabled(page, home, fl_pins_has(page));
		return 1;
	}
	struct fl_fault f = as_read(address, tid, flags);
	if (access & FL_ACCESS_KERNEL)
		f.flags |= FL_REC_KERNEL;
	struct stuck stuck;
	int r2 = counts ? resolve_counted(r, f, e, &stuck) : resolve_shared(r, f, regs, e, &stuck);
	return r2 == STUCK ? 1 : r2; /* an in-thread engine's moves are never refused for an event */
}

/*
 * An engine without fd (mprotect, sigbus): one fault, on the faulting thread (its signal
 * handler), through the same steps as a batch of one: label, publish, resolve (evict, then
 * enable). Without the lock where the engine, the mode and the policy allow it (fault_shared),
 * else under it. The thread runs on when its handler returns.
 */
int fl_fault_on_thread(uintptr_t address, uint32_t tid, uint32_t access, const struct fl_stack_regs *regs,
		       struct fl_emitter *e)
{
	if (e && fl_engine->shared && fl_engine->shared() && (fl_mode->flags & FL_SHARES_FAULTS) && fl_shared_enter(tid)) {
		int r = fault_shared(address, tid, access, regs, e);
		fl_shared_exit(tid);
		if (r != NEEDS_LOCK)
			return r;
	}
	fl_lock();
	uint32_t flags = 0;
	int ours = fl_tracing() && fl_engine->trapped(address, access, &flags);
	int allowed = !ours && (flags & FL_TRAP_ALLOWED);
	if (ours) {
		staged[0] = as_read(address, tid, flags);
		if (access & FL_ACCESS_KERNEL)
			staged[0].flags |= FL_REC_KERNEL;
		on_thread_regs = regs;
		label_and_publish(0, 1);
		resolve_faults(1);
		on_thread_regs = NULL;
		fl_progress();
	}
	fl_unlock();
	return ours ? 1 : allowed ? 2 : 0;
}

int fl_fault_drain(void)
{
	int r = fl_engine->fd() >= 0 ? fl_engine->read(msgs, FL_BATCH) : 0;
	if (r > 0)
		fl_map_events_read(msgs, (uint32_t)r);
	if (r <= 0) {
		if (deferred_n || held_n) {
			/* the event's thread must run to clear mmap_changing */
			struct timespec ts = { 0, 20000 };
			fl_syscall(SYS_nanosleep, &ts, NULL);
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
				fl_syscall(SYS_nanosleep, &ts, NULL);
				break;
			}
	handle_batch(n);
	if (deferred_n || held_n)
		retry_deferred();
	return (int)n;
}

/*
 * A handler thread's duty without the lock (guard.c, the fault threads): one read(2) of the
 * engine's traps, each fault resolved on the shared path with the thread's own ring, e. A batch
 * holding a mapping event goes through the lock's path whole (handle_batch: no fault of it is
 * resolved before its events are applied, fact 9 of docs/ARCHITECTURE.md). A fault the shared path
 * leaves (NEEDS_LOCK) is handled there as a batch of one; one it left stuck (a move refused while an
 * event was pending) is finished there: its victims held, its page deferred, as resolve_one does,
 * and the lock's reads and retries go on until nothing is stuck. self: the handler thread's tid.
 * Traps handled, 0 when none was queued, or -errno.
 */
int fl_fault_drain_shared(struct fl_emitter *e, uint32_t self)
{
	struct fl_trap batch[FL_BATCH];
	/*
	 * The read is shared too: teardown, which closes the userfaultfd, takes the lock first, so no
	 * read can come after the close (the descriptor's number may be the program's by then), and a
	 * read after tracing stopped is none (teardown resolves what is queued).
	 */
	if (!fl_shared_enter(self)) {
		fl_lock();
		int n = fl_tracing() ? fl_fault_drain() : 0;
		fl_unlock();
		return n;
	}
	int got = fl_tracing() ? fl_engine->read(batch, FL_BATCH) : 0;
	if (got > 0)
		fl_map_events_read(batch, (uint32_t)got);
	fl_shared_exit(self);
	if (got <= 0)
		return got;
	uint32_t n = (uint32_t)got;
	int events = 0;
	for (uint32_t i = 0; i < n; i++)
		events |= batch[i].kind != FL_TRAP_FAULT;
	int shared = !events && !fl_check && (fl_mode->flags & FL_SHARES_FAULTS) &&
		     ((fl_mode->flags & FL_KEEPS_EVMS) || fl_mode->count) && fl_emitter_bind(e, self) == 0;
	if (!shared) {
		fl_lock();
		memcpy(msgs, batch, n * sizeof(*msgs));
		handle_batch(n);
		while (deferred_n || held_n)
			if (fl_fault_drain() < 0)
				break;
		fl_unlock();
		return (int)n;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct fl_fault f = as_read(batch[i].a, batch[i].tid, batch[i].flags);
		uintptr_t page = FL_PAGE_DOWN(f.address);
		struct stuck stuck;
		int r = NEEDS_LOCK;
		/* another process's read (SOFT_FOREIGN) is labelled on the lock's path, as no record */
		if (!fl_thread_foreign((pid_t)f.tid) && fl_shared_enter(self)) {
			struct fl_range *rg = fl_tracing() ? fl_range_find(page) : NULL;
			if (rg)
				r = fl_mode->count ? resolve_counted(rg, f, e, &stuck) : resolve_shared(rg, f, NULL, e, &stuck);
			fl_shared_exit(self);
		}
		if (r == 1)
			continue;
		fl_lock();
		if (r == NEEDS_LOCK) {
			staged[0] = f;
			label_and_publish(0, 1);
			resolve_faults(1);
		} else {
			for (uint32_t k = 0; k < stuck.n; k++)
				hold(stuck.victims[k], stuck.page);
			/* let go meanwhile by another thread's decision: its thread faults again, a new record
			 * (a counted fault is counted already: its page comes home on the lock's path) */
			if ((fl_mode->flags & FL_KEEPS_EVMS) && fl_evms_state(stuck.page) == FL_EVMS_OUT)
				fl_wake_later(stuck.page);
			else
				defer(stuck.page, stuck.write, stuck.pinned, stuck.soft, stuck.tid);
		}
		while (deferred_n || held_n)
			if (fl_fault_drain() < 0)
				break;
		fl_unlock();
	}
	fl_progress();
	return (int)n;
}

/* restores stuck behind a pending event: how often to read the traps and retry (each try
 * already spent EAGAIN_RETRIES * 64 moves in the engine; an event is normally read on the first) */
#define STUCK_TRIES 200

int fl_fault_until_unstuck(int (*op)(void))
{
	for (int tries = 0; tries < STUCK_TRIES; tries++) {
		if (op() == 0)
			return 0;
		if (fl_fault_drain() <= 0) {
			struct timespec ts = { 0, 100000 }; /* the event's thread has to queue it first */
			fl_syscall(SYS_nanosleep, &ts, NULL);
		}
	}
	return -EAGAIN;
}
