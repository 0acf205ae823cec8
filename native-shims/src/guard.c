/*
 * guard.c: the agent's handler threads, the guard's deadline loop, and teardown. The handler
 * threads run the fault path (fault.c) and serve requests (serve.c). They are native threads
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
 *     flag, the mode's deadlines: Moca's interval ends, sampling windows), teardown, and the guard against
 *     starvation. A SCHED_IDLE thread gets no CPU while its CPU has other runnable work; when a
 *     fault or request has waited two ticks (1 ms each) with no progress by any fault thread,
 *     the guard handles faults itself for the next 100 ms ("contended"), as a single handler
 *     would, and the fault threads run at normal priority for the next second: a SCHED_IDLE
 *     thread preempted while it holds the agent lock would keep it from every other CPU, the
 *     guard included (a pipeline like `xz -T2 | od | sha256sum` on 2 CPUs collapsed so).
 * FAULTLINE_HANDLERS=percpu starts the fault threads; without it only the guard runs, handling
 * every fault (fl_handler_start says why).
 *
 * Agent state changes only under the agent lock, whose release wakes what its holder resolved
 * (lock.c says why a holder never wakes a program thread itself).
 *
 * Program threads reach the handlers through request.c; every handler thread serves requests
 * in its duty cycle (serve.c), so a request is usually served on the poster's own CPU too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "faultline_shm.h"
#include "args.h"
#include "emit.h"
#include "engine.h"
#include "fault.h"
#include "gate.h"
#include "guard.h"
#include "lock.h"
#include "map_events.h"
#include "mem.h"
#include "mode.h"
#include "request.h"
#include "serve.h"
#include "state.h"
#include "sys.h"
#include "untraced.h"

#define HANDLER_STACK (512UL << 10)
#define MAX_FAULT_THREADS 64
#define FAULT_STACK (256UL << 10)
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
static uint32_t guard_done; /* futex word: 1 once the guard has torn down and is about to return */
static uint64_t normal_until; /* fl_now_ns(): until then fault threads run at SCHED_OTHER (contention) */

static int stop_requested(void)
{
	return __atomic_load_n(fl_ctl32(FL_CTL_STOP), __ATOMIC_ACQUIRE) != 0;
}

static void serve_requests(void)
{
	uint64_t served = fl_req_serve(fl_serve);
	if (served) {
		fl_wake_requests_later(served);
		fl_progress();
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
	fl_lock();
	__atomic_store_n(&fl_restoring, 1, __ATOMIC_RELEASE); /* before tracing reads as stopped */
	__atomic_store_n(&fl_agent.active, 2, __ATOMIC_RELEASE); /* 2: stopped for good */
	stopping = 1;
	fl_unlock();
	uint64_t one = 1;
	fl_syscall(SYS_write, stop_efd, (long)&one, sizeof(one));
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
	fl_lock();
	fl_req_cancel_all();
	if (fl_mode->image_ends) {
		while (fl_fault_drain() > 0)
			;
		fl_mode->image_ends(); /* Moca: the last interval's chunks, while the ring may still wait */
	}
	fl_emit_quiet();
	/* faults already queued: record what we can without waiting, resolve them all */
	while (fl_fault_drain() > 0)
		;
	/* pages that cannot come home while an event is pending: read it (drain) and retry */
	if (fl_mode->stop)
		fl_mode->stop(); /* monitor: the checked pages home */
	if (fl_fault_until_unstuck(fl_engine->untrace_all) != 0)
		fl_log("teardown: parked pages could not be restored (an event stayed pending)", NULL, NULL);
	fl_unlock(); /* wakes what the last drains resolved, on the still open uffd */
	fl_lock();
	fl_engine->close();
	fl_counters_publish();
	__atomic_store_n(fl_slot32(FL_SLOT_ERROR), (uint32_t)err, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STOPPED_MS), (uint32_t)((fl_now_ns() - fl_agent.start_mono_ns) / 1000000),
			 __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STOP_REASON), reason, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STATE), FL_SLOT_STOPPED, __ATOMIC_RELEASE);
	fl_emit_event(FL_EV_TRACE_STOP, 0, reason, (uint64_t)err, 0, 0, NULL, 0);
	fl_req_cancel_all();
	fl_unlock();
	if (reason == FL_STOP_RECORDER_GONE)
		fl_unlink_shm(); /* a killed recorder cannot delete it; the memory stays ours while mapped */
}

/*
 * A fault thread's duty cycle, on its own CPU at SCHED_IDLE: drain the traps, serve requests,
 * sleep in poll until the next fault, request or stop. A fatal uffd error is left to the guard.
 */
static int fatal_error; /* -errno from reading the uffd (atomic); the guard tears down */
/* each fault thread's ring, for the faults it resolves without the lock (fault.c, fl_fault_drain_shared) */
static struct fl_emitter fault_emitters[MAX_FAULT_THREADS];

/* the handler threads' tids, for a dying process to wait until they are gone (fl_guard_stop_for_core) */
static int32_t handler_tids[MAX_FAULT_THREADS + 1];
static uint32_t handler_tids_n;

static void note_tid(void)
{
	uint32_t i = __atomic_fetch_add(&handler_tids_n, 1, __ATOMIC_ACQ_REL);
	if (i < MAX_FAULT_THREADS + 1)
		__atomic_store_n(&handler_tids[i], (int32_t)fl_gettid(), __ATOMIC_RELEASE);
}

static void *fault_main(void *arg)
{
	fl_handler_thread_note();
	note_tid();
	int cpu = (int)((intptr_t)arg & 0xffff);
	struct fl_emitter *e = &fault_emitters[(intptr_t)arg >> 16];
	uint32_t self = (uint32_t)fl_gettid();
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
		if (__atomic_load_n(&stopping, __ATOMIC_ACQUIRE) || __atomic_load_n(&fatal_error, __ATOMIC_ACQUIRE))
			break;
		uint64_t before = fl_progress_count();
		/* the faults beside the other fault threads', each into this thread's own ring (fault.c) */
		int n = fl_fault_drain_shared(e, self);
		if (n < 0) {
			__atomic_store_n(&fatal_error, n, __ATOMIC_RELEASE);
			fl_guard_poke(); /* the guard tears down */
			break;
		}
		if (fl_req_pending()) {
			fl_lock();
			if (!stopping)
				serve_requests();
			fl_unlock();
		}
		int busy = n > 0 || fl_progress_count() != before;
		if (busy)
			continue;
		long polled = fl_syscall(SYS_poll, fds, 3, -1);
		if (polled < 0 && polled != -EINTR)
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
 * that needs agent state marks it, and the guard acts on the mark under the lock: the mode's
 * deadline (DL_MODE, from the mode's due(): Moca's interval end, monitoring's rescan and the
 * close of a sampling window), whose run comes before the guard reads any fault itself.
 */
struct deadline {
	uint64_t due;    /* fl_now_ns(); 0 = not armed */
	uint64_t period; /* re-armed this far ahead after running; 0 = once */
	void (*run)(uint64_t now);
};
enum { DL_LIVENESS, DL_STALL, DL_MODE, DL_COUNT };
static struct deadline deadlines[DL_COUNT];
static uint32_t stop_reason; /* set by a deadline: the guard tears down with it */
static int stop_err;

static int mode_now; /* the mode's deadline has come: its run, under the lock */

static void mode_due(uint64_t now)
{
	(void)now;
	mode_now = 1;
}

/* the mode's deadline as it stands (its run moves it) */
static void mode_deadline(void)
{
	deadlines[DL_MODE] = (struct deadline){ fl_mode->due ? fl_mode->due() : 0, 0, mode_due };
}

/* a signal that dumps core is killing the process (fl_guard_stop_for_core) */
static uint32_t core_stop;

static void liveness_due(uint64_t now)
{
	(void)now;
	fl_args_refresh(); /* the command line other processes read follows the program's */
	fl_untraced_children(); /* children the agent is not in, said */
	if (__atomic_load_n(&core_stop, __ATOMIC_ACQUIRE))
		stop_reason = FL_STOP_SIGNAL;
	else if (stop_requested())
		stop_reason = FL_STOP_REQUESTED;
	else if (!fl_recorder_alive())
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

/* the mode's run: the queued faults read and resolved, their threads woken at unlock */
static void resolve(void)
{
	if (fl_fault_drain() > 0)
		fl_progress();
}

/*
 * The mode's run, between two steps of long work (two pages of a sampling ARM): resolve the
 * faults so far, serve the requests posted, and wake their threads, which needs the lock
 * released (lock.c); and let a thread that waits for the lock have it (an in-thread engine's
 * fault on the lock's path: a page armed first is accessed at once, and its thread would
 * otherwise wait for the whole ARM). The work's own state is consistent between steps; whatever
 * changes meanwhile (an event read here, a request) is looked up again for the next step.
 */
static void between(void)
{
	int woken = traps_queued();
	if (woken)
		resolve();
	if (fl_req_pending()) {
		serve_requests();
		woken = 1;
	}
	if (woken) {
		fl_unlock();
		fl_lock();
	}
	fl_lock_yield();
}

static void stall_due(uint64_t now)
{
	uint64_t p = fl_progress_count();
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
	note_tid();
	const char *exe = fl_agent.exe_path;
	fl_lock();
	fl_emit_event(FL_EV_PROCESS_START, (uint32_t)fl_agent.pid, (uint64_t)fl_agent.ppid, fl_agent.slot_index, 0, 0,
		      exe, (uint32_t)strlen(exe));
	if (fl_agent.exec_event)
		fl_emit_event(FL_EV_EXEC, (uint32_t)fl_agent.pid, 0, 0, 0, 0, exe, (uint32_t)strlen(exe));
	fl_unlock();
	uint64_t now = fl_now_ns();
	deadlines[DL_LIVENESS] = (struct deadline){ now + LIVENESS_NS, LIVENESS_NS, liveness_due };
	deadlines[DL_STALL] = (struct deadline){ 0, TICK_NS, stall_due };
	mode_now = 0;
	for (;;) {
		now = fl_now_ns();
		mode_deadline();
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
		/* an engine without fd has no queue to read: its faults are resolved on their threads, and
		 * a lock taken here for nothing would hold up every fault resolved without it (lock.c) */
		int handles = fl_engine->fd() >= 0 && guard_handles_faults(now);
		int serve_now = fl_req_pending() && (handles || n_fault_threads == 0);
		int mode_asks = fl_mode->pending && fl_mode->pending();
		if (!stop_reason && (handles || serve_now || mode_asks || mode_now))
			fl_lock();
		else
			goto unlocked;
		if (mode_now || mode_asks) {
			/* before this section reads any fault: Moca's interval end must (mode_moca.c) */
			mode_now = 0;
			fl_mode->run(now, resolve, between);
		}
		if (handles) {
			int n = fl_fault_drain();
			if (n < 0) {
				stop_reason = FL_STOP_ERROR;
				stop_err = -n;
			} else if (n > 0) {
				fl_progress();
			}
		}
		if (!stop_reason && serve_now)
			serve_requests();
		fl_unlock();
unlocked:
		if (stop_reason) {
			teardown(stop_reason, stop_err);
			fl_args_refresh(); /* the last time: the strings are home now */
			__atomic_store_n(&fl_restoring, 0, __ATOMIC_RELEASE);
			fl_futex_wake(&fl_restoring);
			__atomic_store_n(&guard_done, 1, __ATOMIC_RELEASE);
			fl_futex_wake(&guard_done);
			return NULL;
		}
		/*
		 * Sleep until the next deadline. The uffd and the request eventfd are watched only
		 * when the guard handles faults, or, while no faults are coming, to notice the first
		 * one and start ticking (it then leaves it to the fault threads). Without fault
		 * threads (an engine whose faults are resolved on their own threads) the guard is the
		 * only server of requests and never ticks, so it always watches their eventfd: a
		 * synchronous request posted while it ticked waited for the next tick (1 ms each).
		 */
		mode_deadline();
		uint64_t next = UINT64_MAX;
		for (int i = 0; i < DL_COUNT; i++)
			if (deadlines[i].due && deadlines[i].due < next)
				next = deadlines[i].due;
		int ticking = deadlines[DL_STALL].due != 0;
		struct pollfd fds[5];
		nfds_t nfds = 0;
		fds[nfds++] = (struct pollfd){ .fd = fl_guard_efd, .events = POLLIN };
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
		long r = fl_syscall(SYS_ppoll, fds, nfds, next == UINT64_MAX ? NULL : &timeout, NULL, NSIG / 8);
		if (r < 0 && r != -EINTR) {
			stop_reason = FL_STOP_ERROR;
			stop_err = (int)-r;
			continue;
		}
		if (fds[0].revents & POLLIN) {
			/* poked (a fault thread's fatal error, a stop asked for, the ring abandoned): look at once */
			uint64_t v;
			fl_syscall(SYS_read, fl_guard_efd, &v, sizeof(v));
			deadlines[DL_LIVENESS].due = fl_now_ns();
		}
		if (watched > 1 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
			fl_recorder_gone(), stop_reason = FL_STOP_RECORDER_GONE;
		if (!handles && n_fault_threads && nfds > watched && ((fds[watched].revents | fds[watched + 1].revents) & POLLIN)) {
			/* the first fault or request after a quiet spell: start ticking. Not without fault
			 * threads: the tick looks for their starvation, and each tick would take the CPU
			 * from a program thread for nothing (under sigbus, once a millisecond) */
			now = fl_now_ns();
			last_active = now;
			last_progress = fl_progress_count();
			pending_before = 0;
			deadlines[DL_STALL].due = now + TICK_NS;
		}
	}
}

/*
 * The program is dying of a signal that dumps core (gate.c, on_core_signal): the guard tears down
 * now, which brings every page home, and the dying thread waits for it (any thread but the
 * guard's, in a signal handler: raw calls and futexes). Other threads of the program run on
 * meanwhile, as they would until the kernel stops them to write the core; faults they meet on
 * pages not home yet wait for the teardown (fl_restoring). Bounded: a teardown that cannot
 * finish (this thread holds what it needs) leaves the core as it stands.
 */
#define CORE_WAIT_MS 30000
void fl_guard_stop_for_core(void)
{
	__atomic_store_n(&core_stop, 1, __ATOMIC_RELEASE);
	fl_guard_poke();
	long waited = 0;
	for (; waited < CORE_WAIT_MS && !__atomic_load_n(&guard_done, __ATOMIC_ACQUIRE); waited += 10)
		fl_futex_wait(&guard_done, 0, 10 * 1000 * 1000L);
	/* and until the handler threads have left: the core then holds the program's threads only */
	pid_t pid = (pid_t)fl_syscall(SYS_getpid);
	uint32_t n = __atomic_load_n(&handler_tids_n, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n && i < MAX_FAULT_THREADS + 1; i++) {
		int32_t tid = __atomic_load_n(&handler_tids[i], __ATOMIC_ACQUIRE);
		for (; tid && waited < CORE_WAIT_MS && !fl_thread_gone(pid, tid); waited++) {
			struct timespec ts = { 0, 1000 * 1000L };
			fl_syscall(SYS_nanosleep, (long)&ts);
		}
	}
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
	fl_lock_reset_after_fork();
	fl_handler_threads_reset();
	n_fault_threads = 0;
	fault_threads_alive = 0;
	stopping = 0;
	fatal_error = 0;
	stop_reason = 0;
	stop_err = 0;
	core_stop = 0;
	handler_tids_n = 0;
	memset(handler_tids, 0, sizeof(handler_tids));
	last_progress = last_active = contended_until = normal_until = 0;
	pending_before = 0;
	if (stop_efd >= 0)
		close(stop_efd);
	if (fl_guard_efd >= 0)
		close(fl_guard_efd);
	stop_efd = fl_guard_efd = -1;
	guard_done = 0;
	fl_restoring = 0;
	fl_emit_reset();
	fl_serve_reset();
	fl_fault_reset();
	fl_hints_reset();
	mode_now = 0;
	memset(deadlines, 0, sizeof(deadlines));
	if (fl_mode->reset)
		fl_mode->reset();
}

/*
 * A thread with its own agent-mapped stack and every signal blocked (inherited from here) but
 * those a program thread's masks never block either: the fault signal (fault_signal.c), and
 * SIGSYS under the system-call gate (gate.c).
 */
static int start_thread(pthread_t *t, size_t stack_len, void *(*fn)(void *), void *arg)
{
	void *stack = fl_mem_map(stack_len + FL_PAGE);
	if (!stack)
		return -ENOMEM;
	fl_syscall(SYS_mprotect, stack, FL_PAGE, PROT_NONE); /* guard page */
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, (char *)stack + FL_PAGE, stack_len);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigset_t all, old;
	sigfillset(&all);
	int fault_sig = fl_engine->fault_signal ? fl_engine->fault_signal() : 0;
	if (fault_sig)
		sigdelset(&all, fault_sig);
	if (fl_gate_active())
		sigdelset(&all, SIGSYS);
	fl_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, NSIG / 8);
	int err = fl_real_pthread_create(t, &attr, fn, arg);
	fl_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, NSIG / 8);
	pthread_attr_destroy(&attr);
	return -err;
}

int fl_handler_start(void)
{
	int err;
	if ((err = fl_emit_init()) != 0 || (err = fl_fault_init()) != 0)
		return err;
	const char *mode = getenv("FAULTLINE_HANDLERS");
	/*
	 * Per-CPU handling is opt-in (FAULTLINE_HANDLERS=percpu): under `faultline record` on the
	 * 2-core VM it gained on one thread, matched the single handler on two and lost on four
	 * (BENCHMARKS.md, "Scaling with cores").
	 */
	single_handler = !mode || strcmp(mode, "percpu") != 0;
	/*
	 * An engine without fd (mprotect) resolves each fault on the faulting thread: fault threads
	 * would only serve requests, which the guard does.
	 */
	if (fl_engine->fd() < 0)
		single_handler = 1;
	stop_efd = fl_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	fl_guard_efd = fl_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (stop_efd < 0 || fl_guard_efd < 0)
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
						(void *)(intptr_t)((intptr_t)n_fault_threads << 16 | cpu))) != 0) {
				__atomic_fetch_sub(&fault_threads_alive, 1, __ATOMIC_ACQ_REL);
				break;
			}
			n_fault_threads++;
		}
	}
	if (fl_mode->start && (err = fl_mode->start(fl_guard_efd)) != 0)
		return err;
	if ((err = start_thread(&guard_thread, HANDLER_STACK, guard_main, NULL)) != 0) {
		/* fault threads started already leave at once: nothing is registered yet */
		fl_lock();
		stopping = 1;
		fl_unlock();
		uint64_t one = 1;
		fl_syscall(SYS_write, stop_efd, (long)&one, sizeof(one));
		return err;
	}
	/* the program's threads are listed at FL_REQ_INIT as /proc/self/task minus the handler threads */
	fl_handler_threads_await(n_fault_threads + 1);
	return 0;
}
