/*
 * fl_internal.h: declarations shared by the agent's files. Nothing here is exported: the
 * library is built with -fvisibility=hidden and only FL_EXPORT symbols are visible.
 *
 * Threads and state: state.h.
 */
#ifndef FL_INTERNAL_H
#define FL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#include "faultline_shm.h"
#include "check.h"
#include "emit.h"
#include "evms.h"
#include "pagemap.h"
#include "mem.h"
#include "ring.h"
#include "state.h"
#include "sys.h"

/* ---- maps.c: /proc/self/maps and the range table ---- */
struct fl_range {
	uintptr_t start, end; /* traced pages [start, end), page aligned */
	/* the engine's per-page state of the range as it was registered (split pieces and moved
	 * ranges keep it): uffd: parking address of start (page p parks at park + (p - start)) and
	 * the "populated" bitmap, bit (bit0 + (p - start) / page); mprotect: bits is a byte per page */
	uintptr_t park;
	uint64_t *bits;
	uint64_t bit0;
	uint32_t source;      /* FL_RANGE_* */
	uint32_t bits_pages;  /* size of the bitmap allocation at bits (shared by split pieces) */
};

struct fl_map_line {
	uintptr_t start, end;
	char perms[5];
	uint64_t inode;
	unsigned dev_major, dev_minor;
	const char *path; /* NUL-terminated inside the maps buffer; "" if anonymous */
};

int fl_maps_init(void);
/* Read /proc/self/maps into the agent's buffer and call fn per line; 0 or -errno. */
int fl_maps_each(int (*fn)(const struct fl_map_line *, void *), void *ctx);
/* The same for the mappings that overlap [lo, hi) only, whole (PROCMAP_QUERY where the kernel has it). */
int fl_maps_each_in(uintptr_t lo, uintptr_t hi, int (*fn)(const struct fl_map_line *, void *), void *ctx);

int fl_ranges_init(uint32_t capacity);
struct fl_range *fl_range_find(uintptr_t addr);   /* handler only */
int64_t fl_range_index_from(uintptr_t addr);      /* first range with end > addr, or -1 */
struct fl_range *fl_range_at(uint32_t i);         /* handler only */
uint32_t fl_range_count(void);
int fl_range_insert(const struct fl_range *r);    /* handler only; 0 or -ENOSPC */
void fl_range_remove_at(uint32_t i);              /* handler only */
void fl_range_write_begin(void);                  /* seqlock around table changes */
void fl_range_write_end(void);
int fl_ranges_cover(uintptr_t start, uintptr_t end); /* any thread: [start,end) fully traced? */
uint32_t fl_ranges_snapshot(uintptr_t *out, uint32_t max); /* any thread: pairs start, end */
int fl_ranges_torn(void);
void fl_ranges_forget_all(void);
/* handler only: pieces of ranges (split pieces and moved ranges keep their engine state) */
struct fl_range fl_range_sub(const struct fl_range *r, uintptr_t a, uintptr_t b);
/*
 * The traced ranges overlapping [s, e), in address order, each clipped to it:
 *   for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) ... o.r, [o.a, o.b) ...
 * The loop may change the pages and state of o.r but not the table: a loop that carves or
 * moves ranges restarts after each piece with fl_range_first_overlap.
 */
struct fl_overlap {
	uintptr_t s, e;     /* what was asked */
	int64_t i;          /* the next range to look at, or -1 */
	struct fl_range *r; /* the current range, */
	uintptr_t a, b;     /* and its part in [s, e) */
};
struct fl_overlap fl_overlaps(uintptr_t s, uintptr_t e);
int fl_overlap_next(struct fl_overlap *o); /* 0 when no range is left */
int64_t fl_range_first_overlap(uintptr_t s, uintptr_t e, uintptr_t *a, uintptr_t *b); /* index, overlap in [*a,*b); -1 */
struct fl_range fl_range_carve(uint32_t i, uintptr_t a, uintptr_t b); /* [a,b) out of range i; returns the piece */
void fl_range_free_state(const struct fl_range *piece); /* its engine state, once no piece uses it (2 * bits_pages pages) */
void fl_range_dropped(const struct fl_range *piece); /* carved out for good: counted, freed, event emitted */
void fl_ranges_relocate(uintptr_t from, uintptr_t to, size_t len); /* mremap moved them: the table follows */
void fl_handler_reset_after_fork(void);
int fl_agent_follow_child(void);

/* ---- pins.c: pinned pages (thread descriptors): enabled, never in the EVMS (see handler.c) */
int fl_pins_init(uint32_t capacity);
int fl_pins_has(uintptr_t page);
uint32_t fl_pins_collect(uintptr_t start, uintptr_t end, uintptr_t *out, uint32_t max);
void fl_pins_add(uintptr_t page);
void fl_pins_forget(uintptr_t start, uintptr_t end);

/* ---- request.c: program thread -> handler requests ---- */
enum fl_req_type {
	FL_REQ_RESCAN = 1,    /* scope all: register what is new in the mappings overlapping [a, b), or anywhere if b <= a */
	FL_REQ_INIT,          /* constructor: a = pthread_self of the main thread */
	FL_REQ_MMAP,          /* a = start, b = len, c = prot, d = flags */
	FL_REQ_BRK,           /* a = old break, b = new break */
	FL_REQ_TRACE_RANGE,   /* a = addr, b = len */
	FL_REQ_THREAD_START,  /* a = creating tid, b = pthread_self of the new thread, c = 1 if counted in fl_threads_starting */
	FL_REQ_THREAD_EXIT,
	FL_REQ_FORK_PREPARE,  /* restore every page, stop evicting */
	FL_REQ_FORK_PARENT,   /* a = child pid (or -errno): disable again */
	FL_REQ_MREMAP,        /* a = old, b = old len, c = new, d = new len; e = 1 if a REMAP event said it */
	FL_REQ_THREAD_NAME,   /* a = tid of the named thread; text = name */
	FL_REQ_EXEC,          /* text = path: emit FL_EV_EXEC, mark the slot (FL_SLOT_EXEC_ANNOUNCED) */
	FL_REQ_FORK_CHILD,    /* in a followed fork child: register inherited ranges, rescan, disable */
	FL_REQ_EVMS_FLUSH,    /* the process is exiting: every EVMS page emits its eviction record */
	/* engines that observe no mapping events (FL_OBSERVES_MAP_EVENTS clear), from interpose.c */
	FL_REQ_MAP_EVENT,     /* a = FL_TRAP_UNMAP/REMOVE/REMAP, b, c, d = the trap's a, b, c */
	FL_REQ_MPROTECT,      /* a = start, b = len, c = prot: the program's mprotect */
	FL_REQ_UNTRACE,       /* [a, b) leaves tracing, its pages enabled (a block glibc is about to mremap) */
	FL_REQ_PIN,           /* the pages of [a, b) stay enabled for good (memory glibc reads with every signal blocked);
	                       * c = 1: for a while, returns the mask of pages it pinned (bit i: page a + i) for FL_REQ_UNPIN */
	FL_REQ_UNPIN,         /* c = that mask: those pages of [a, b) are disabled again (their next reference faults) */
};
#define FL_REQ_TEXT_MAX 256
/* slot word (reserved u32 at 76 in the contract): 1 = this image announced FL_EV_EXEC */
#define FL_SLOT_EXEC_ANNOUNCED 76
struct fl_req {
	uint32_t state; /* futex word: FL_RS_* */
	uint32_t type;
	int32_t tid;
	int32_t result; /* 0 or -errno, written by the handler */
	uint64_t a, b, c, d;
	uint32_t text_len;
	uint32_t async;  /* posted by fl_req_post: nobody waits; the handler frees the slot */
	char text[FL_REQ_TEXT_MAX];
};
#define FL_RS_FREE 0
#define FL_RS_FILLING 1
#define FL_RS_POSTED 2
#define FL_RS_TAKEN 3
#define FL_RS_DONE 4
#define FL_REQ_SLOTS 64

int fl_req_init(void);
int fl_req_eventfd(void);
/* Post and wait for the handler; returns the handler's result or -ENOSYS if it is gone. */
int fl_req_call(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d);
int fl_req_call_text(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text, uint32_t len);
/* Post without waiting for the handler (a notice whose answer the poster does not need). */
void fl_req_post(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text, uint32_t len);
void fl_req_reset_after_fork(void); /* fork child: every slot free, a new eventfd */
/* Handler: run fn on every posted request; fn returns the result. */
uint64_t fl_req_serve(int (*fn)(struct fl_req *)); /* bit i set: slot i served, its poster not yet woken */
void fl_req_wake(uint64_t served);                 /* wake the posters fl_req_serve left sleeping */
void fl_req_cancel_all(void);
int fl_req_pending(void);

/*
 * ---- engine.c, engine_*.c: the trapping mechanism ----
 * How a traced page is disabled and enabled again, and how its faults reach the fault loop
 * (handler.c). One ops table per engine, chosen from the control block's FL_CTL_ENGINE; the
 * fault loop, the EVMS and the rings call only through it. Every op but read and wake runs
 * with the agent lock held. What an engine keeps per page (parking slots, bitmaps,
 * protections) is its own and hangs off fl_range.
 */
#define FL_OBSERVES_KERNEL_ACCESS 1u /* a kernel-mode access to a disabled page waits and is recorded */
#define FL_OBSERVES_MAP_EVENTS    2u /* munmap, mremap and madvise(DONTNEED) arrive as traps by themselves */

#define FL_TRAP_BATCH 64 /* most traps one read returns */
enum fl_trap_kind { FL_TRAP_FAULT = 1, FL_TRAP_UNMAP, FL_TRAP_REMOVE, FL_TRAP_REMAP, FL_TRAP_OTHER };
#define FL_TRAP_WRITE 1u /* a write fault */
#define FL_TRAP_WP    2u /* a write to a write-protected enabled page: the EVMS's dirty flag */
#define FL_TRAP_ALLOWED 4u /* trapped() said no, yet the page allows the access now: another thread enabled it first */
/* one fault or mapping event, as the engine read it */
struct fl_trap {
	uint32_t kind;    /* FL_TRAP_* */
	uint32_t tid;     /* FAULT: the faulting thread */
	uint32_t flags;   /* FAULT: FL_TRAP_WRITE, FL_TRAP_WP */
	uint64_t a, b, c; /* FAULT: address; UNMAP, REMOVE: start, end; REMAP: from, to, len */
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
	int (*trace_new)(uintptr_t s, uintptr_t e, uint32_t source, int emit); /* register and disable */
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
	void (*pin)(uintptr_t addr);   /* enabled for good (thread descriptors, pins.c) */
	int (*untrace_all)(void);      /* teardown; -EAGAIN: read traps and call again */
	int (*fork_child)(void);       /* followed fork child: take over the inherited ranges */
	/* no fd: on the faulting thread: did the engine cause this fault? (flags: FL_TRAP_*) */
	int (*trapped)(uintptr_t addr, uint32_t access, uint32_t *flags);
	/* no map events: the program's own mprotect of [s, s + len), kept for the pages' enabling */
	int (*protect)(uintptr_t s, size_t len, int prot);
};
#define FL_ACCESS_WRITE 1u /* what a fault on the faulting thread tried: from the x86 error code */
#define FL_ACCESS_EXEC  2u
extern const struct fl_engine *fl_engine;
extern const struct fl_engine fl_engine_uffd, fl_engine_mprotect;
const struct fl_engine *fl_engine_for(uint32_t id); /* FL_ENGINE_*; NULL if unknown */

/* the userfaultfd engine, for monitor mode (sample.c): an access check of one page */
int fl_uffd_watch(uintptr_t page);   /* register and disable; -EAGAIN or another error: not armed */
int fl_uffd_unwatch(uintptr_t page); /* home and unregistered; -EAGAIN: still parked, retry */
/* the userfaultfd engine, for Moca mode (moca.c): [s,e) enabled by faults, none pinned: one move per range */
void fl_uffd_disable_enabled(uintptr_t s, uintptr_t e);

/* ---- sample.c: DAMON's access checks in monitor mode, through the sampling board (lock held) ---- */
int fl_sample_init(int wake_fd);  /* handler start: this slot's board if the recorder monitors */
int fl_sample_pending(void);      /* any thread: a request is posted */
/* answer it (every queued fault resolved first); between(): called between the pages an ARM
 * disables or brings home, to resolve checks that fault meanwhile (handler.c) */
void fl_sample_serve(void (*between)(void));
uint64_t fl_sample_close_due(void); /* guard: when the open sampling window closes, or 0 */
void fl_sample_close(void (*between)(void)); /* guard, lock held, queued faults resolved: close it */
void fl_sample_fault(uintptr_t page); /* a fault at page was resolved */
void fl_sample_stop(void);        /* teardown: armed pages home */

/* ---- moca.c: Moca's interval mode (FL_MODE_MOCA; lock held) ---- */
int fl_moca_init(void);           /* handler start: tables, once per image */
void fl_moca_reset(void);         /* fork child, new session: the tables hold another image's interval */
void fl_moca_fault(uintptr_t address, uint32_t tid, uint32_t flags); /* FL_REC_* of a fault: counted */
void fl_moca_enabled(uintptr_t page); /* a fault enabled page: disabled when the interval ends */
uint32_t fl_moca_close(void);     /* the interval ends: every thread's chunk written; returns its pages to disable */
void fl_moca_disable(uint32_t n); /* disable the first n pages enabled (the ended interval's); keep the rest */

/* ---- scope.c: what scope "all" registers, and what faultline_trace_range accepts ---- */
int fl_scope_init(void);
int fl_scope_rescan(void);                                   /* handler */
int fl_scope_register_exact(uintptr_t s, uintptr_t e, uint32_t source); /* handler */
int fl_scope_register_around(uintptr_t s, uintptr_t e);      /* handler: eligible mappings overlapping [s, e), whole */
int fl_scope_check_api_range(uintptr_t s, uintptr_t e);      /* handler: 0 or -EINVAL */
void fl_scope_retire_stack(uintptr_t s, uintptr_t e);       /* handler: an exited thread's stack, left alone until... */
void fl_scope_unretire(uintptr_t s, uintptr_t e);           /* handler: ...a thread starts on it, or it is unmapped */

/* ---- handler.c ---- */
int fl_handler_start(void);
void fl_handler_poke(void);                  /* the guard looks at the stop flag now */
int fl_handler_wait_stopped(long timeout_ms); /* 0 once the guard has torn down and returned; -ETIMEDOUT */
void fl_wake_later(uintptr_t page); /* agent lock held: wake the page's faulting threads at release */
/* an engine without fd, on the faulting thread: 1 if the engine caused the fault (recorded, resolved) */
int fl_fault_on_thread(uintptr_t address, uint32_t tid, uint32_t access);
int fl_hint_post(uint32_t kind, uint64_t start, uint64_t len, uint64_t value);
int fl_hint_take(int i);

/* ---- sigsegv.c: the mprotect engine's SIGSEGV handler ---- */
int fl_sigsegv_install(void);
void fl_sigsegv_thread(void); /* this thread: an alternate signal stack, SIGSEGV unblocked */

/* ---- touch.c: kernel-mode accesses under an engine that cannot trap them (mprotect) ---- */
void fl_touch_resolve(void); /* constructor: the waiting calls' next definitions, before any handler thread */
void fl_touch_reset_after_fork(void); /* the bounce buffers other threads held are free */
void fl_touch_start(void); /* stdin and stdout get buffers outside traced memory */
void fl_touch_exec(const char *path, char *const argv[], char *const envp[]);
void fl_touch_realloced(void *old, void *p, size_t n); /* a block the kernel fills next? (touch.c) */

/* ---- interpose.c ---- */
void fl_interpose_init(void);
int fl_real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/* ---- agent.c ---- */

/* monitor mode (FL_MODE_MONITOR): DAMON's access checks only, no records, no EVMS (sample.c) */
static inline int fl_monitoring(void)
{
	return fl_agent.mode == FL_MODE_MONITOR;
}

/* Moca mode (FL_MODE_MOCA): no EVMS, pages disabled at interval ends, Moca chunks (moca.c) */
static inline int fl_moca(void)
{
	return fl_agent.mode == FL_MODE_MOCA;
}

#endif
