/*
 * serve.c: the request handlers. A program thread posts a request (request.c) and sleeps on
 * it; a handler thread takes it under the agent lock (guard.c) and calls fl_serve, which first
 * reads the traps queued before it (an munmap that preceded this mmap comes first) and then
 * the request's on_ function. Each handler records what the request says (mapping, thread and
 * process events) and changes the agent's state through the rooms below: scope (what to
 * register), the engine (disable, pin, untrace), the EVMS, the mode.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "faultline_shm.h"
#include "emit.h"
#include "engine.h"
#include "evms.h"
#include "fault.h"
#include "map_events.h"
#include "maps.h"
#include "mode.h"
#include "pins.h"
#include "ranges.h"
#include "request.h"
#include "scope.h"
#include "serve.h"
#include "state.h"
#include "sys.h"
#include "untraced.h"

/* a thread's descriptor stays enabled (pins.h, FL_PTHREAD_BYTES) */
static void pin_descriptor(uintptr_t self)
{
	fl_engine->pin(self);
	fl_engine->pin(self + FL_PTHREAD_BYTES - 1);
}

static int scope_all(void)
{
	return fl_agent.scope == FL_SCOPE_ALL;
}

static uintptr_t known_brk; /* program break last reported (FL_EV_BRK) */

void fl_serve_reset(void)
{
	known_brk = 0;
}

/* the program break moved (interposed brk/sbrk, or glibc's internal sbrk seen later) */
static void check_brk(uint32_t tid)
{
	uintptr_t now = (uintptr_t)fl_syscall(SYS_brk, 0);
	if (known_brk && now != known_brk)
		fl_emit_event(FL_EV_BRK, tid, known_brk, now, 0, 0, NULL, 0);
	known_brk = now;
}

static void emit_name_of(uint32_t tid)
{
	char path[64], name[32];
	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	long n = fl_syscall(SYS_read, fd, name, sizeof(name) - 1);
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
		long n = fl_syscall(SYS_getdents64, fd, buf, sizeof(buf));
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
			if (fl_syscall(SYS_get_robust_list, (pid_t)tid, &head, &len) == 0 && head) {
				fl_engine->pin((uintptr_t)head);
				fl_engine->pin((uintptr_t)head - 64);
			}
		}
	}
	close(fd);
}

/*
 * Tells a followed child that its FORK event is out (faultline_shm.h, fork_pids): the event's
 * seq is the clock when it was emitted, so the child, which waits for this before it traps
 * anything (agent.c, await_fork_event), takes every seq of its own after it. Without the wait a
 * child that ran first published references before its parent's FORK event.
 */
static void announce_fork(uint32_t child)
{
	uint32_t *count = fl_slot32(FL_SLOT_FORKS_ANNOUNCED);
	uint32_t n = __atomic_load_n(count, __ATOMIC_RELAXED);
	__atomic_store_n(fl_slot32(FL_SLOT_FORK_PIDS + 4 * (n % FL_SLOT_FORK_PIDS_COUNT)), child, __ATOMIC_RELAXED);
	__atomic_store_n(count, n + 1, __ATOMIC_RELEASE);
	fl_futex_wake_shared(count);
}

/* the mapping of an exiting thread's stack that is not traced: retired (scope.c) */
static int retire_line(const struct fl_map_line *m, void *ctx)
{
	(void)ctx;
	fl_scope_retire_stack(m->start, m->end);
	return 0;
}

/* scope all: register what is new in the mappings overlapping [a, b), or anywhere if b <= a */
static int on_rescan(struct fl_req *q)
{
	check_brk((uint32_t)q->tid);
	if (!scope_all())
		return 0;
	return q->b > q->a ? fl_scope_register_around(q->a, q->b) : fl_scope_rescan();
}

/* the constructor's thread: its descriptor pinned, what exists now registered and disabled */
static int on_init(struct fl_req *q)
{
	known_brk = (uintptr_t)fl_syscall(SYS_brk, 0);
	/* pinned before anything is disabled: under mprotect the waiting thread may fault
	 * meanwhile, and its SIGSEGV path reads its struct pthread (the mutex owner, the
	 * stack guard); a fault there, with SIGSEGV blocked, would kill it */
	pin_descriptor(q->a);
	int err = scope_all() ? fl_scope_rescan() : 0;
	existing_threads(); /* names every thread, this one included */
	fl_counters_publish();
	return err;
}

static int on_mmap(struct fl_req *q)
{
	fl_emit_event(FL_EV_MMAP, (uint32_t)q->tid, q->a, q->b, q->c, q->d, NULL, 0);
	if (!scope_all() || !(q->d & MAP_ANONYMOUS) || (q->d & MAP_TYPE) != MAP_PRIVATE || (q->d & MAP_HUGETLB) ||
	    (q->c & (PROT_READ | PROT_WRITE | PROT_EXEC)) != (PROT_READ | PROT_WRITE))
		return 0;
	return fl_scope_register_exact(q->a, FL_PAGE_UP(q->a + q->b), FL_RANGE_MMAP);
}

static int on_brk(struct fl_req *q)
{
	check_brk((uint32_t)q->tid);
	if (scope_all() && q->b > q->a)
		return fl_scope_register_exact(FL_PAGE_DOWN(q->a), FL_PAGE_UP(q->b), FL_RANGE_MMAP);
	return 0;
}

/* traced parts: every page disabled; untraced gaps: registered with their own engine state */
static int trace_piece(uintptr_t a, uintptr_t b, struct fl_range *r, void *ctx)
{
	(void)ctx;
	if (!r)
		return fl_engine->trace_new(a, b, FL_RANGE_API); /* one event for the whole range: on_trace_range */
	fl_engine->disable(a, b);
	return 0;
}

/* faultline_trace_range */
static int on_trace_range(struct fl_req *q)
{
	if (q->b == 0 || q->a + q->b < q->a)
		return -EINVAL;
	uintptr_t s = FL_PAGE_DOWN(q->a), e = FL_PAGE_UP(q->a + q->b);
	int err = fl_scope_check_api_range(s, e);
	if (err)
		return err;
	if ((err = fl_ranges_walk(s, e, trace_piece, NULL)) != 0)
		return err;
	fl_emit_event(FL_EV_TRACE_RANGE, (uint32_t)q->tid, s, e - s, FL_RANGE_API, 0, NULL, 0);
	fl_counters_publish();
	return 0;
}

static int on_thread_start(struct fl_req *q)
{
	/* b: its descriptor, which glibc puts at the top of its stack's mapping: readers name that [stack:TID] */
	fl_emit_event(FL_EV_THREAD_START, (uint32_t)q->tid, q->a, q->b, 0, 0, NULL, 0);
	if (q->text_len)
		fl_emit_event(FL_EV_THREAD_NAME, (uint32_t)q->tid, 0, 0, 0, 0, q->text, q->text_len);
	pin_descriptor(q->b);
	fl_scope_unretire(FL_PAGE_DOWN(q->b), FL_PAGE_DOWN(q->b) + FL_PAGE); /* a cached stack in use again */
	if (q->c)
		__atomic_sub_fetch(&fl_threads_starting, 1, __ATOMIC_SEQ_CST);
	/*
	 * glibc maps a new thread's stack with its internal mmap, which nobody interposes:
	 * tracing rescans every mapping here, the net for whatever else came that way too.
	 * Monitoring takes only the mapping holding the thread's stack (struct pthread sits at
	 * its top) and leaves the rest to its periodic rescan (FL_RESCANS_ON_TIMER): a JVM starts
	 * some twenty threads, and a rescan reads its ~700 maps lines in ~0.6 ms.
	 */
	if (scope_all() && (fl_mode->flags & FL_RESCANS_ON_TIMER))
		fl_scope_register_around(FL_PAGE_DOWN(q->b), FL_PAGE_DOWN(q->b) + FL_PAGE);
	else if (scope_all())
		fl_scope_rescan();
	return 0;
}

static int on_thread_exit(struct fl_req *q)
{
	fl_emit_event(FL_EV_THREAD_EXIT, (uint32_t)q->tid, 0, 0, 0, 0, NULL, 0);
	if (!q->a)
		return 0;
	/*
	 * a = an address in the exiting thread's stack (engines without kernel-access trapping):
	 * glibc runs the rest of the exit, and the next thread that reuses the cached stack runs
	 * its start, with every signal blocked, where a fault on a disabled page would kill the
	 * process. The stack leaves tracing; the next thread start registers it again.
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
	return 0;
}

/* every traced page restored; the pages left (an event pending) */
static int restore_all(void)
{
	uint32_t stuck = 0;
	for (uint32_t i = 0; i < fl_range_count(); i++)
		stuck += fl_engine->restore(fl_range_at(i)->start, fl_range_at(i)->end);
	return stuck ? -EAGAIN : 0;
}

/*
 * The child gets a copy of memory but not our registrations or parking contents: bring every
 * parked page home first, and stop disabling until FORK_PARENT.
 */
static int on_fork_prepare(struct fl_req *q)
{
	(void)q;
	if (fl_fork_depth++ == 0) {
		/* a restore that meets a pending event (another thread's munmap/madvise/mremap) leaves
		 * pages parked until we read the event */
		fl_fault_until_unstuck(restore_all);
		fl_evms_clear();
	}
	return 0;
}

static int on_fork_parent(struct fl_req *q)
{
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
}

static int on_mremap(struct fl_req *q)
{
	/* not said by a REMAP event (untraced range, or resized in place): say it now */
	if (q->text_len == 0)
		fl_emit_event(FL_EV_MREMAP, (uint32_t)q->tid, q->a, q->b, q->c, q->d, NULL, 0);
	return scope_all() && q->d > q->b ? fl_scope_register_around(q->c, q->c + q->d) : 0;
}

static int on_thread_name(struct fl_req *q)
{
	fl_emit_event(FL_EV_THREAD_NAME, (uint32_t)q->a, 0, 0, 0, 0, q->text, q->text_len);
	return 0;
}

/*
 * An exec through libc's wrappers (q->text the file as given; a: searched on PATH; b: the new
 * environment; c: FL_EXEC_*, whose it is and whether it failed). An image the agent cannot follow
 * is said with it (untraced.c), and said again, as not untraced, when its exec fails. The
 * process's own exec is an exec event too; a vfork child's is not (its image is a new process,
 * which says its own start), but for what it cannot follow.
 */
static int32_t said_untraced; /* the pid whose last exec was said untraced, 0 if none */
static char exec_file[FL_REQ_TEXT_MAX + 1], exec_path[4096];

static int on_exec(struct fl_req *q)
{
	int own = q->c == FL_EXEC_OWN || q->c == FL_EXEC_OWN_FAILED;
	int32_t pid = own ? (int32_t)fl_agent.pid : (int32_t)q->tid; /* a vfork child's thread is its process */
	if (q->c == FL_EXEC_OWN_FAILED || q->c == FL_EXEC_CHILD_FAILED) {
		if (said_untraced == pid)
			fl_emit_event(FL_EV_UNTRACED, (uint32_t)q->tid, (uint64_t)pid, FL_UNTRACED_NO, 0, 0, exec_path,
				      (uint32_t)strlen(exec_path));
		said_untraced = 0;
		return 0;
	}
	if (own) {
		if (fl_mode->image_ends)
			fl_mode->image_ends(); /* Moca: its last interval's chunks */
		fl_emit_event(FL_EV_EXEC, (uint32_t)q->tid, 0, 0, 0, 0, q->text, q->text_len);
		__atomic_store_n(fl_slot32(FL_SLOT_EXEC_ANNOUNCED), 1, __ATOMIC_RELEASE);
	}
	memcpy(exec_file, q->text, q->text_len);
	exec_file[q->text_len] = 0;
	uint32_t machine = 0;
	uint32_t why = fl_untraced_why(exec_file, (int)q->a, environ, (char *const *)q->b, exec_path, sizeof(exec_path),
				       &machine);
	said_untraced = why != FL_UNTRACED_NO ? pid : 0;
	if (said_untraced && !own)
		fl_untraced_said(pid);
	if (said_untraced)
		fl_emit_event(FL_EV_UNTRACED, own ? (uint32_t)q->tid : (uint32_t)fl_agent.pid, (uint64_t)pid, why, machine, 0,
			      exec_path, (uint32_t)strlen(exec_path));
	return 0;
}

/* in a followed fork child: the inherited ranges registered again, a rescan, every page disabled */
static int on_fork_child(struct fl_req *q)
{
	known_brk = (uintptr_t)fl_syscall(SYS_brk, 0);
	if (fl_ranges_torn()) {
		fl_log("fork child: the range table was changing at fork time; ",
		       scope_all() ? "rescanning" : "ranges traced through the API are not traced in this child", NULL);
		fl_ranges_forget_all();
	}
	fl_engine->fork_child();
	pin_descriptor(q->a); /* before anything is disabled (on_init says why) */
	if (scope_all())
		fl_scope_rescan();
	for (uint32_t i = 0; i < fl_range_count(); i++)
		fl_engine->disable(fl_range_at(i)->start, fl_range_at(i)->end);
	emit_name_of((uint32_t)q->tid);
	fl_counters_publish();
	return 0;
}

/* the process is exiting normally: every EVMS page emits its eviction record */
static int on_evms_flush(struct fl_req *q)
{
	(void)q;
	fl_evms_clear();
	if (fl_mode->image_ends)
		fl_mode->image_ends(); /* Moca: normal exit, the last interval's chunks */
	return 0;
}

/* an engine that sees no mapping events: an interposed munmap, madvise or mremap said it */
static int on_map_event(struct fl_req *q)
{
	struct fl_trap t = { .kind = (uint32_t)q->a, .a = q->b, .b = q->c, .c = q->d };
	fl_map_event(&t);
	return 0;
}

/*
 * Asynchronous dirty tracking keeps a page's written bit in its page table entry (engine.h,
 * written): a call that zaps or moves the page and is heard of only after it (userfaultfd's
 * UNMAP, REMOVE and REMAP events, an interposed madvise or mremap) would take the bit with it.
 * A write made by another thread between this read and the call is the one not seen.
 */
static int on_learn_dirty(struct fl_req *q)
{
	if (fl_engine->written && (fl_mode->flags & FL_KEEPS_EVMS))
		fl_evms_learn(q->a, q->b);
	return 0;
}

static int on_mprotect(struct fl_req *q)
{
	return fl_engine->protect(q->a, q->b, (int)q->c);
}

static int on_untrace(struct fl_req *q)
{
	return fl_engine->untrace(q->a, q->b, 0);
}

/* for a while (c): only pages not pinned already, so that the unpin leaves those */
static int on_pin(struct fl_req *q)
{
	int mask = 0, i = 0;
	for (uintptr_t p = FL_PAGE_DOWN(q->a); p < q->b; p += FL_PAGE, i++) {
		if (q->c && (i >= 30 || fl_pins_has(p)))
			continue;
		fl_engine->pin(p);
		mask |= 1 << i;
	}
	return q->c ? mask : 0;
}

static int on_unpin(struct fl_req *q)
{
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

static int (*const on[])(struct fl_req *) = {
	[FL_REQ_RESCAN] = on_rescan,
	[FL_REQ_INIT] = on_init,
	[FL_REQ_MMAP] = on_mmap,
	[FL_REQ_BRK] = on_brk,
	[FL_REQ_TRACE_RANGE] = on_trace_range,
	[FL_REQ_THREAD_START] = on_thread_start,
	[FL_REQ_THREAD_EXIT] = on_thread_exit,
	[FL_REQ_FORK_PREPARE] = on_fork_prepare,
	[FL_REQ_FORK_PARENT] = on_fork_parent,
	[FL_REQ_MREMAP] = on_mremap,
	[FL_REQ_THREAD_NAME] = on_thread_name,
	[FL_REQ_EXEC] = on_exec,
	[FL_REQ_FORK_CHILD] = on_fork_child,
	[FL_REQ_EVMS_FLUSH] = on_evms_flush,
	[FL_REQ_MAP_EVENT] = on_map_event,
	[FL_REQ_MPROTECT] = on_mprotect,
	[FL_REQ_UNTRACE] = on_untrace,
	[FL_REQ_PIN] = on_pin,
	[FL_REQ_UNPIN] = on_unpin,
	[FL_REQ_LEARN_DIRTY] = on_learn_dirty,
};

int fl_serve(struct fl_req *q)
{
	/* events queued before the request (an munmap that preceded this mmap) come first */
	while (fl_fault_drain() > 0)
		;
	if (q->type >= sizeof(on) / sizeof(on[0]) || !on[q->type])
		return -EINVAL;
	return on[q->type](q);
}
