/*
 * engine.h: what an engine is: how a traced page is disabled and enabled again, and how its
 * faults reach the fault path (fault.c). One ops table per engine (engine_*.c), chosen from the
 * control block's FL_CTL_ENGINE when a session starts (agent.c); the fault path, the EVMS, the modes and the
 * interposers call only through it, and ask what an engine observes by its flags, never which
 * engine runs. Every op but read, wake and the program threads' ones runs with the agent lock
 * held, or, for the ops of an engine whose shared() says so, on the shared path (fault.c: the
 * page's lock held, other threads running the same ops on other pages). What an engine keeps per page (parking slots, bitmaps, protections) is its own and
 * hangs off fl_range.
 */
#ifndef FL_ENGINE_H
#define FL_ENGINE_H

#include "sys.h"

struct fl_range; /* ranges.h */

/*
 * The userfaultfd engines' per-thread state for copy-in (engine_uffd.c): the parking slots that
 * still hold the copy a page came home from, dropped together when the list is full, and when
 * another thread last brought a page home. In the engine's part of the thread's state page
 * (sigstack.h), where its fault signal's handler finds it; only that thread touches it.
 */
#define FL_PARKED_COPIES 16
struct fl_parked_copies {
	uint64_t enables;  /* pages this thread brought home */
	uint64_t other_at; /* enables when it last found another thread's the latest */
	uint32_t n;
	uintptr_t page[FL_PARKED_COPIES];
};

#define FL_OBSERVES_KERNEL_ACCESS 1u /* a kernel-mode access to a disabled page waits and is recorded */
#define FL_OBSERVES_MAP_EVENTS    2u /* munmap, mremap and madvise(DONTNEED) arrive as traps by themselves */

enum fl_trap_kind { FL_TRAP_FAULT = 1, FL_TRAP_UNMAP, FL_TRAP_REMOVE, FL_TRAP_REMAP, FL_TRAP_OTHER };
#define FL_TRAP_WRITE 1u /* a write fault */
#define FL_TRAP_WP    2u /* a write to a write-protected enabled page: the EVMS's dirty flag */
#define FL_TRAP_ALLOWED 4u /* trapped() said no, yet the page allows the access now: another thread enabled it first */
#define FL_TRAP_HINTED  8u /* REMOVE, REMAP: the calls' hints were looked at when it was read (map_events.c) */
/* one fault or mapping event, as the engine read it */
struct fl_trap {
	uint32_t kind;    /* FL_TRAP_* */
	uint32_t tid;     /* FAULT: the faulting thread */
	uint32_t flags;   /* FAULT: FL_TRAP_WRITE, FL_TRAP_WP; REMOVE, REMAP: FL_TRAP_HINTED */
	/* FAULT: address; UNMAP: start, end; REMOVE: start, end, the advice (0: not said, as
	 * userfaultfd's event does not); REMAP: from, to, len, the new length (0: not said) */
	uint64_t a, b, c, d;
};

struct fl_engine {
	const char *name;
	uint32_t observes; /* FL_OBSERVES_* */
	int (*init)(void);  /* once per process image: tables */
	/* constructor, attach or followed fork child: ready to trace; 0, or -errno after saying why on stderr */
	int (*open)(void);
	void (*close)(void); /* tracing is over (teardown, or a fork child that runs untraced) */
	void (*reset_after_fork)(void); /* fork child or a new attached session, before open */
	int (*fd)(void);     /* pollable while traps are queued, or -1: faults arrive on the faulting thread */
	int (*read)(struct fl_trap *out, uint32_t max); /* traps read (0: none now), or -errno */
	void (*wake)(uintptr_t page); /* lock released: threads waiting on page retry */
	int (*trace_new)(uintptr_t s, uintptr_t e, uint32_t source); /* register and disable [s, e), untraced so far */
	void (*disable)(uintptr_t s, uintptr_t e);     /* every traced page in [s,e) */
	uint32_t (*restore)(uintptr_t s, uintptr_t e); /* every disabled page in [s,e) enabled; pages left (an event pending) */
	void (*discard)(uintptr_t s, uintptr_t e);     /* [s,e) is being zapped (madvise): saved contents dropped */
	int (*untrace)(uintptr_t s, uintptr_t e, int unmapped); /* forget [s,e): restore first unless unmapped; -EAGAIN: retry after reading traps */
	void (*relocate)(uintptr_t from, uintptr_t to, size_t len); /* mremap moved the pages */
	int (*first_touch)(struct fl_range *r, uintptr_t page); /* never populated? (it is from now on) */
	/* resolve a fault at page; 1 if the page was enabled by us (read_only: its writes trap, the
	 * EVMS's dirty flag; the handler decides), 0 if resolved otherwise, -EAGAIN: retry after
	 * the next read; the faulting threads are woken at unlock */
	int (*enable)(uintptr_t page, int write, int read_only);
	/* an enabled page's writes trap (1) or not (0) from now on; -EAGAIN: retry later */
	int (*protect_writes)(uintptr_t page, int protect);
	int (*evict)(uintptr_t page);  /* disable an enabled page the EVMS let go; -EAGAIN: retry after the next read */
	/*
	 * Asynchronous dirty tracking (NULL: none): of pages[0..n), enabled and not known written,
	 * which were written since a read enabled them (written[i] = 1; the kernel resolved those
	 * writes without a fault). Asked before a page is disabled or leaves the EVMS, while its
	 * page tables still say. -ENOTSUP: this session's writes to such pages trap instead
	 * (FL_TRAP_WP, the synchronous path), so nothing is to be learned.
	 */
	int (*written)(const uintptr_t *pages, uint32_t n, uint8_t *written);
	/* the same for one page, any thread (the shared path, its page's lock held): 1 written, 0 not
	 * or nothing to learn (writes trap: the synchronous path), -errno */
	int (*page_written)(uintptr_t page);
	void (*pin)(uintptr_t addr);   /* enabled for good (thread descriptors, pins.c) */
	/*
	 * A copy of a traced page the engine holds away from its address (FL_PAGE bytes to out),
	 * made without faulting, for a stack walk that meets a disabled page (stacks.c): 0, or
	 * -errno (nothing held: never populated). NULL: the page's own address reads it through
	 * fl_read_self (mprotect's PROT_NONE pages stay in place).
	 */
	int (*peek)(uintptr_t page, void *out);
	/* a traced page of r whose data the engine holds away from its address (what peek reads):
	 * resident all the same, as natively (the gate's mincore); NULL: none is */
	int (*held_away)(const struct fl_range *r, uintptr_t page);
	int (*untrace_all)(void);      /* teardown; -EAGAIN: read traps and call again */
	int (*fork_child)(void);       /* followed fork child: take over the inherited ranges */
	/* no fd: on the faulting thread: did the engine cause this fault? (flags: FL_TRAP_*). With
	 * FL_ACCESS_SHARED (no agent lock held) it changes nothing and answers -1 where it would
	 * (a stack grown past what is traced): the fault then takes the lock's path */
	int (*trapped)(uintptr_t addr, uint32_t access, uint32_t *flags);
	/* the shared path (fault.c), the page's lock held: is the page enabled, as the engine left it? */
	int (*resident)(uintptr_t page);
	/* may faults be resolved without the agent lock now (the shared path)? NULL: never */
	int (*shared)(void);
	/* no map events: the program's own mprotect of [s, s + len), kept for the pages' enabling */
	int (*protect)(uintptr_t s, size_t len, int prot);
	/* what a mode asks of the engine (NULL: the engine cannot serve that mode) */
	int (*watch)(uintptr_t page);   /* an access check (FL_CHECKS_ONLY): trap the page's next access, moved under its page lock; 0 armed, else not */
	int (*unwatch)(uintptr_t page); /* the check is over: the page home and untrapped; -EAGAIN: retry after the next read */
	void (*unwatched)(void);         /* a pass of unwatch is over: what its pages left behind goes now (may be NULL) */
	void (*disable_enabled)(uintptr_t s, uintptr_t e); /* [s, e) enabled by faults, none pinned (Moca's interval end) */
	/*
	 * Asked by rooms outside the engine, which never read its state by name (NULL: the answer
	 * is no, or there is nothing to do):
	 * the signal its faults arrive by on the faulting thread, once installed (fault_signal.c), or 0;
	 */
	int (*fault_signal)(void);
	/* whether the kernel resolves this session's writes to write-protected pages without a
	 * fault, the written bits kept in the page tables (UFFD_FEATURE_WP_ASYNC): a zap or a
	 * move drops them, so they are read before one (map_events.c) */
	int (*writes_async)(void);
	/* every unmap of the program's is heard from now on (the system-call gate sees glibc's
	 * internal ones too): the engine may drop its checks for unmaps it was not told of */
	void (*unmaps_heard)(void);
	/* program threads, no lock (NULL: nothing to do) */
	void (*thread_start)(void); /* a new thread, first thing, before its stack can be traced */
	void (*fork_parent)(void);  /* the parent after a fork, before its pages are disabled again */
};
#define FL_ACCESS_WRITE 1u /* what a fault on the faulting thread tried: from the x86 error code */
#define FL_ACCESS_EXEC  2u
#define FL_ACCESS_PRESENT 4u /* the page was present: a protection fault (write-protected, or PROT_NONE) */
#define FL_ACCESS_KERNEL 8u  /* the system-call gate's touch: the kernel's reference, made for the thread (gate.c) */
#define FL_ACCESS_SHARED 16u /* trapped() asked without the agent lock (fault.c, the shared path) */
extern const struct fl_engine *fl_engine;
extern const struct fl_engine fl_engine_uffd, fl_engine_mprotect, fl_engine_sigbus;

#endif
