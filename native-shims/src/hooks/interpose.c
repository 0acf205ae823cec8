/*
 * interpose.c: LD_PRELOAD wrappers. Each calls the real function, then, while tracing scope
 * "all", asks the handler to register what is new. They pass straight through when the agent
 * is inert or stopped, in a fork child, and on the handler thread.
 *
 * What interposition cannot see, and how the gap is closed:
 *   - the malloc family calls the program's own allocator: glibc's, or the next definition
 *     after ours when the program brings another (other_alloc below).
 *   - glibc's malloc maps memory with its internal __mmap/__brk/__mprotect: the malloc family
 *     wrappers check whether the returned block lies in a traced range (seqlock read of the
 *     range table, no syscall) and, if not, have the handler rescan /proc/self/maps before
 *     returning the pointer. References that happen before that check are not recorded:
 *     malloc's own writes of chunk headers and arena/heap_info structures into fresh memory,
 *     and calloc's zeroing of a fresh block. The first reference by the program is recorded.
 *   - munmap, including glibc's internal ones, arrives as UFFD_EVENT_UNMAP (under mprotect: the
 *     munmap wrapper, and free and realloc for glibc's mmapped blocks); mremap of a traced
 *     range as UFFD_EVENT_REMAP; madvise(DONTNEED) as UFFD_EVENT_REMOVE (map_events.c).
 *   - a vma grown in place (mremap without a move) is found when it first faults.
 *   - thread stacks come from glibc's internal mmap (and its stack cache): the pthread_create
 *     wrapper runs the new thread through a trampoline that has the handler rescan before the
 *     start routine runs. Writes by glibc into the new stack before that (TLS setup, the
 *     thread descriptor) are not recorded.
 *   - memory mapped by raw syscall(SYS_mmap) or by other libraries' internal calls is found at
 *     the next rescan (a malloc miss, a thread start, an interposed call).
 *   - forks: fork, _Fork and clone are interposed, and so is syscall() for SYS_fork, SYS_clone
 *     and SYS_clone3; a fork made with inline assembly is not seen (its child would find our
 *     parked pages missing).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "faultline_shm.h"
#include "agent.h"
#include "engine.h"
#include "args.h"
#include "gate.h"
#include "pins.h"
#include "untraced.h"
#include "interpose.h"
#include "map_events.h"
#include "mode.h"
#include "ranges.h"
#include "request.h"
#include "state.h"
#include "resolve.h"
#include "sys.h"
#include "touch.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
extern void __libc_free(void *);

static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static int (*real_brk)(void *);
static void *(*real_sbrk)(intptr_t);
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static pid_t (*real_fork)(void);
static pid_t (*real__Fork)(void);
static int (*real_madvise)(void *, size_t, int);
static int (*real_munmap)(void *, size_t);
static int (*real_mprotect)(void *, size_t, int);
static void (*real_pthread_exit)(void *) __attribute__((noreturn));
static int (*real_pthread_setname_np)(pthread_t, const char *);
static int (*real_prctl)(int, unsigned long, unsigned long, unsigned long, unsigned long);
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execv)(const char *, char *const[]);
static int (*real_execvp)(const char *, char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);
static int (*real_execveat)(int, const char *, char *const[], char *const[], int);
static int (*real_clone)(int (*)(void *), void *, int, void *, ...);
static long (*real_syscall)(long, ...);
static long thread_start_delay_ms; /* FAULTLINE_TEST_THREAD_START_DELAY_MS (faultline's own tests) */

void fl_interpose_init(void)
{
	const char *delay = getenv("FAULTLINE_TEST_THREAD_START_DELAY_MS");
	thread_start_delay_ms = delay ? atol(delay) : 0;
	FL_RESOLVE(real_mmap, "mmap");
	FL_RESOLVE(real_mremap, "mremap");
	FL_RESOLVE(real_brk, "brk");
	FL_RESOLVE(real_sbrk, "sbrk");
	FL_RESOLVE(real_pthread_create, "pthread_create");
	FL_RESOLVE(real_fork, "fork");
	FL_RESOLVE(real__Fork, "_Fork");
	FL_RESOLVE(real_madvise, "madvise");
	FL_RESOLVE(real_pthread_exit, "pthread_exit");
	FL_RESOLVE(real_pthread_setname_np, "pthread_setname_np");
	FL_RESOLVE(real_prctl, "prctl");
	FL_RESOLVE(real_execve, "execve");
	FL_RESOLVE(real_execv, "execv");
	FL_RESOLVE(real_execvp, "execvp");
	FL_RESOLVE(real_execvpe, "execvpe");
	FL_RESOLVE(real_fexecve, "fexecve");
	FL_RESOLVE(real_execveat, "execveat");
	FL_RESOLVE(real_clone, "clone");
	FL_RESOLVE(real_syscall, "syscall");
}


static inline int tracing_all(void)
{
	return fl_agent.scope == FL_SCOPE_ALL && fl_tracing();
}

/*
 * A notice to the handler about the address space or the program's threads. Tracing waits for
 * it: new memory must be registered and disabled before the program touches it, and a thread's
 * events must precede its references in the trace. Monitoring records no references and
 * registers nothing until a page is checked, so the program does not wait: a JVM maps hundreds
 * of times and starts and names some twenty threads as it starts, each a round trip across
 * CPUs otherwise (BENCHMARKS.md, "Live monitoring").
 */
static int notice_text(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text, uint32_t len)
{
	if (fl_mode->flags & FL_NOTICES_ASYNC) {
		fl_req_post(type, a, b, c, d, text, len);
		return 0;
	}
	return fl_req_call_text(type, a, b, c, d, text, len);
}

static int notice(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	return notice_text(type, a, b, c, d, NULL, 0);
}

/* munmap, madvise and MAP_FIXED: the system-call gate says them for every call, glibc's own too (gate.c) */
static inline int says_unmaps(void)
{
	return fl_map_says_events() && !fl_gate_active();
}

/* the gate asks for every call itself when it is on (map_events.c, fl_map_learn_dirty_before) */
static void learn_dirty_before(uintptr_t addr, size_t len)
{
	if (!fl_gate_active())
		fl_map_learn_dirty_before(addr, len);
}

/* ---- mmap family ---- */

FL_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	FL_RESOLVE(real_mmap, "mmap");
	/*
	 * MAP_FIXED replaces whatever was mapped there: userfaultfd says so with UFFD_EVENT_UNMAP;
	 * an engine without map events hears it here, as for munmap, before the old pages go (a
	 * JVM uncommits and commits heap and metaspace so). MAP_FIXED_NOREPLACE replaces nothing.
	 */
	if ((flags & MAP_FIXED) && says_unmaps() && len && !((uintptr_t)addr & (FL_PAGE - 1)))
		fl_map_say(FL_TRAP_UNMAP, (uintptr_t)addr, FL_PAGE_UP((uintptr_t)addr + len), 0);
	else if ((flags & MAP_FIXED) && (fl_engine->observes & FL_OBSERVES_MAP_EVENTS))
		learn_dirty_before((uintptr_t)addr, len);
	void *p = real_mmap(addr, len, prot, flags, fd, off);
	/* every mapping is an event (FL_EV_MMAP); scope all also registers private anonymous rw ones */
	if (p != MAP_FAILED && fl_tracing()) {
		int saved = errno;
		notice(FL_REQ_MMAP, (uintptr_t)p, len, (uint64_t)prot, (uint64_t)(unsigned)flags);
		errno = saved;
	}
	return p;
}

FL_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

FL_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	FL_RESOLVE(real_mremap, "mremap");
	void *new_addr = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (!fl_tracing())
		return real_mremap(old, old_len, new_len, flags, new_addr);
	learn_dirty_before((uintptr_t)old, old_len);
	/* a traced range that moves raises UFFD_EVENT_REMAP, which knows the old length only */
	int h = fl_hint_post(FL_HINT_MREMAP, (uintptr_t)old, old_len, new_len);
	void *p = real_mremap(old, old_len, new_len, flags, new_addr);
	if (p != MAP_FAILED && fl_map_says_events()) {
		/* what the kernel's events would have said: the cut tail, then the move */
		uintptr_t o = FL_PAGE_DOWN((uintptr_t)old), kept = FL_PAGE_UP(new_len < old_len ? new_len : old_len);
		if (FL_PAGE_UP(old_len) > kept)
			fl_map_say(FL_TRAP_UNMAP, o + kept, o + FL_PAGE_UP(old_len), 0);
		if ((uintptr_t)p != o)
			fl_map_say(FL_TRAP_REMAP, o, (uintptr_t)p, kept);
	}
	int saved = errno;
	/* a move of a registered range was said by its REMAP event, or the request says it twice */
	int said = p != MAP_FAILED && (uintptr_t)p != FL_PAGE_DOWN((uintptr_t)old) ? fl_hint_take_said(h) : fl_hint_take(h);
	if (p != MAP_FAILED)
		fl_req_call_text(FL_REQ_MREMAP, (uintptr_t)old, old_len, (uintptr_t)p, new_len, "s", said ? 1 : 0);
	errno = saved;
	return p;
}

FL_EXPORT int madvise(void *addr, size_t len, int advice)
{
	FL_RESOLVE(real_madvise, "madvise");
	if (!fl_tracing())
		return real_madvise(addr, len, advice);
	int zaps = fl_map_zaps(advice);
	if (zaps)
		learn_dirty_before((uintptr_t)addr, len);
	/* UFFD_EVENT_REMOVE (map_events.c) does not say which advice zapped the range: a hint does,
	 * the gate's when it is on (it sees glibc's own calls too, gate.c), else this one */
	int h = zaps && !fl_gate_active() ? fl_hint_post(FL_HINT_MADVISE, (uintptr_t)addr, len, (uint64_t)advice) : -1;
	int r = real_madvise(addr, len, advice);
	if (r == 0 && zaps && says_unmaps())
		fl_map_say(FL_TRAP_REMOVE, FL_PAGE_DOWN((uintptr_t)addr), FL_PAGE_UP((uintptr_t)addr + len), (uint64_t)advice);
	int saved = errno;
	/* the zap's event names its advice only while the hint is there (fl_hint_take_said) */
	if (r == 0)
		fl_hint_take_said(h);
	else
		fl_hint_take(h);
	errno = saved;
	return r;
}

/* the engines without map events hear of munmap here, before the pages go */
FL_EXPORT int munmap(void *addr, size_t len)
{
	FL_RESOLVE(real_munmap, "munmap");
	if (says_unmaps() && len && !((uintptr_t)addr & (FL_PAGE - 1)))
		fl_map_say(FL_TRAP_UNMAP, (uintptr_t)addr, FL_PAGE_UP((uintptr_t)addr + len), 0);
	else if (fl_engine->observes & FL_OBSERVES_MAP_EVENTS)
		learn_dirty_before((uintptr_t)addr, len);
	return real_munmap(addr, len);
}

/* the mprotect engine keeps the program's protection and applies it when it enables a page */
FL_EXPORT int mprotect(void *addr, size_t len, int prot)
{
	FL_RESOLVE(real_mprotect, "mprotect");
	/* any part may be traced: the handler does it, and keeps the traced pages' own state */
	if (!fl_map_says_events() || ((uintptr_t)addr & (FL_PAGE - 1)))
		return real_mprotect(addr, len, prot);
	int r = fl_req_call(FL_REQ_MPROTECT, (uintptr_t)addr, len, (uint64_t)prot, 0);
	if (r == -ENOSYS) /* the handler is gone: tracing stopped */
		return real_mprotect(addr, len, prot);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

FL_EXPORT int brk(void *addr)
{
	FL_RESOLVE(real_brk, "brk");
	FL_RESOLVE(real_sbrk, "sbrk");
	void *old = real_sbrk(0);
	int r = real_brk(addr);
	if (r == 0 && fl_tracing()) {
		int saved = errno;
		notice(FL_REQ_BRK, (uintptr_t)old, (uintptr_t)addr, 0, 0);
		errno = saved;
	}
	return r;
}

FL_EXPORT void *sbrk(intptr_t inc)
{
	FL_RESOLVE(real_sbrk, "sbrk");
	void *old = real_sbrk(inc);
	if (old != (void *)-1 && inc != 0 && fl_tracing()) {
		int saved = errno;
		notice(FL_REQ_BRK, (uintptr_t)old, (uintptr_t)old + (uintptr_t)inc, 0, 0);
		errno = saved;
	}
	return old;
}

/* ---- malloc family ---- */

/* pages whose blocks a rescan could not cover: do not ask again for each block */
#define MISS_CACHE 32
static uintptr_t miss_cache[MISS_CACHE];
static uint32_t miss_next;

static void note_block(void *p, size_t n)
{
	if (!p || !tracing_all())
		return;
	uintptr_t s = FL_PAGE_DOWN(p), e = FL_PAGE_UP((uintptr_t)p + (n ? n : 1));
	if (fl_ranges_cover(s, e))
		return;
	for (int i = 0; i < MISS_CACHE; i++)
		if (__atomic_load_n(&miss_cache[i], __ATOMIC_RELAXED) == s)
			return;
	int saved = errno;
	notice(FL_REQ_RESCAN, s, e, 0, 0);
	if (!fl_ranges_cover(s, e))
		__atomic_store_n(&miss_cache[__atomic_fetch_add(&miss_next, 1, __ATOMIC_RELAXED) % MISS_CACHE], s,
				 __ATOMIC_RELAXED);
	errno = saved;
}

/*
 * Whose malloc the program would call without us. A program linked with another allocator as a
 * shared library (libjemalloc.so, libtcmalloc.so) or given one in LD_PRELOAD after ours gets that
 * allocator's functions, each found as the next definition after ours (dlsym RTLD_NEXT), as the
 * dynamic linker would have bound them: calling glibc's instead would change the program's heap
 * and hand glibc's blocks to the other allocator's malloc_usable_size, sdallocx or free.
 * glibc's malloc is __libc_malloc itself (malloc/malloc.c: strong_alias), so the next
 * definition tells which it is. Only glibc's blocks have the chunk header that free and realloc
 * read below. Resolved at the first call, not in the constructor: other libraries' constructors
 * may allocate before ours runs, and their blocks must come from the same allocator as all later
 * ones. dlsym allocates nothing when the symbol exists; should it, it gets glibc's malloc.
 */
enum { ALLOC_UNRESOLVED, ALLOC_RESOLVING, ALLOC_GLIBC, ALLOC_OTHER };
static int alloc_state;
static int32_t alloc_resolver;
static struct {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	void *(*memalign)(size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
} next_alloc;

static void resolve_alloc(void)
{
	void *m = dlsym(RTLD_NEXT, "malloc");
	if (!m || m == (void *)__libc_malloc) {
		__atomic_store_n(&alloc_state, ALLOC_GLIBC, __ATOMIC_RELEASE);
		return;
	}
	*(void **)&next_alloc.malloc = m;
	*(void **)&next_alloc.calloc = dlsym(RTLD_NEXT, "calloc");
	*(void **)&next_alloc.realloc = dlsym(RTLD_NEXT, "realloc");
	*(void **)&next_alloc.free = dlsym(RTLD_NEXT, "free");
	*(void **)&next_alloc.memalign = dlsym(RTLD_NEXT, "memalign");
	*(void **)&next_alloc.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	*(void **)&next_alloc.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	*(void **)&next_alloc.valloc = dlsym(RTLD_NEXT, "valloc");
	*(void **)&next_alloc.pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	__atomic_store_n(&alloc_state, ALLOC_OTHER, __ATOMIC_RELEASE);
}

/* 1: the program's allocator is not glibc's (next_alloc holds its functions) */
static int other_alloc(void)
{
	int state = __atomic_load_n(&alloc_state, __ATOMIC_ACQUIRE);
	if (state >= ALLOC_GLIBC)
		return state == ALLOC_OTHER;
	int32_t tid = (int32_t)fl_syscall(SYS_gettid);
	if (state == ALLOC_RESOLVING && __atomic_load_n(&alloc_resolver, __ATOMIC_RELAXED) == tid)
		return 0; /* dlsym's own allocation, in the middle of resolving */
	int expect = ALLOC_UNRESOLVED;
	if (__atomic_compare_exchange_n(&alloc_state, &expect, ALLOC_RESOLVING, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&alloc_resolver, tid, __ATOMIC_RELAXED);
		resolve_alloc();
	} else {
		while (__atomic_load_n(&alloc_state, __ATOMIC_ACQUIRE) == ALLOC_RESOLVING)
			sched_yield();
	}
	return __atomic_load_n(&alloc_state, __ATOMIC_ACQUIRE) == ALLOC_OTHER;
}

FL_EXPORT void *malloc(size_t n)
{
	void *p = other_alloc() ? next_alloc.malloc(n) : __libc_malloc(n);
	note_block(p, n);
	return p;
}

FL_EXPORT void *calloc(size_t n, size_t m)
{
	void *p = other_alloc() ? next_alloc.calloc(n, m) : __libc_calloc(n, m);
	note_block(p, n * m);
	return p;
}

/*
 * A block glibc mmapped for itself (above its mmap threshold, 128 KiB at first): its mapping, or
 * 0. glibc marks such a chunk IS_MMAPPED (0x2) in its size word; the mapping starts prev_size
 * bytes before the chunk and is prev_size + size long (malloc/malloc.c: struct malloc_chunk,
 * munmap_chunk, mremap_chunk). glibc's free and realloc read the same two words first thing, so
 * reading them here adds no reference to the trace that glibc's own reads would not make.
 */
static size_t mmapped_block(void *p, uintptr_t *block)
{
	const size_t *chunk = (const size_t *)p - 2; /* prev_size, size: the chunk header before the block */
	size_t size = chunk[1];
	if (!(size & 2))
		return 0;
	*block = (uintptr_t)chunk - chunk[0];
	size_t len = chunk[0] + (size & ~(size_t)7);
	if (((*block | len) & (FL_PAGE - 1)) || !len || *block + len <= (uintptr_t)p)
		return 0; /* not what glibc maps: glibc itself will complain */
	return len;
}

/*
 * glibc's realloc of a block it mmapped moves its pages with its internal mremap, which the
 * mprotect engine never hears of (no REMAP event): pages it disabled would arrive at an address
 * it does not know, PROT_NONE, and their next reference would look like the program's own
 * fault. So such a block leaves tracing first, its pages enabled; the new block is registered
 * again by note_block's rescan.
 */
FL_EXPORT void *realloc(void *old, size_t n)
{
	uintptr_t block;
	size_t len;
	int other = other_alloc();
	if (old && !other && fl_map_says_events() && (len = mmapped_block(old, &block))) {
		int saved = errno;
		fl_req_call(FL_REQ_UNTRACE, block, block + len, 0, 0);
		errno = saved;
	}
	void *p = other ? next_alloc.realloc(old, n) : __libc_realloc(old, n);
	note_block(p, n);
	fl_touch_realloced(old, p, n);
	return p;
}

/*
 * glibc's free of a block it mmapped unmaps it with its internal munmap, which the mprotect engine
 * never hears of either (no UNMAP event): the block's range stayed in the table and its enabled
 * pages in the EVMS, and the kernel handed the hole to the next mapping, the agent's own memory
 * among them; evicting those pages then made that memory PROT_NONE (the SIGSEGV handler crashed
 * reading a page state there; a thread whose signal stack lay there died with SI_KERNEL). So the
 * wrapper says "unmap" first, as UFFD_EVENT_UNMAP would, for all but the header's page: glibc
 * reads the header after the wrapper, so that page leaves tracing enabled (another thread's
 * fault may have evicted it since: a JVM's compiler thread died so in glibc's free).
 */
FL_EXPORT void free(void *p)
{
	uintptr_t block;
	size_t len;
	if (other_alloc()) {
		next_alloc.free(p); /* its own munmaps are interposed or seen as events */
		return;
	}
	if (p && says_unmaps() && (len = mmapped_block(p, &block))) {
		int saved = errno;
		fl_req_call(FL_REQ_UNTRACE, block, block + FL_PAGE, 0, 0);
		errno = saved;
		if (len > FL_PAGE)
			fl_map_say(FL_TRAP_UNMAP, block + FL_PAGE, block + len, 0);
	}
	__libc_free(p);
}

/* glibc's reallocarray calls its realloc internally, past the realloc wrapper above */
FL_EXPORT void *reallocarray(void *old, size_t n, size_t m)
{
	size_t bytes;
	if (__builtin_mul_overflow(n, m, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(old, bytes);
}

FL_EXPORT void *memalign(size_t align, size_t n)
{
	void *p = other_alloc() ? next_alloc.memalign(align, n) : __libc_memalign(align, n);
	note_block(p, n);
	return p;
}

FL_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p = other_alloc() ? next_alloc.aligned_alloc(align, n) : __libc_memalign(align, n);
	note_block(p, n);
	return p;
}

FL_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (other_alloc()) {
		int r = next_alloc.posix_memalign(out, align, n);
		if (r == 0)
			note_block(*out, n);
		return r;
	}
	/* glibc's own checks: a power of two multiple of sizeof(void *) */
	if (align % sizeof(void *) != 0 || (align & (align - 1)) != 0 || align == 0)
		return EINVAL;
	int saved = errno;
	void *p = __libc_memalign(align, n);
	if (!p) {
		errno = saved;
		return ENOMEM;
	}
	note_block(p, n);
	*out = p;
	return 0;
}

FL_EXPORT void *valloc(size_t n)
{
	void *p = other_alloc() ? next_alloc.valloc(n) : __libc_valloc(n);
	note_block(p, n);
	return p;
}

FL_EXPORT void *pvalloc(size_t n)
{
	void *p = other_alloc() ? next_alloc.pvalloc(n) : __libc_pvalloc(n);
	note_block(p, n);
	return p;
}

/* ---- threads ---- */

/*
 * The start routine and argument travel in an agent-owned slot (no malloc), freed by the
 * trampoline as soon as it has copied them.
 */
struct tramp {
	void *(*fn)(void *);
	void *arg;
	pid_t creator;
	uint32_t used;
	uint32_t counted; /* in fl_threads_starting until its THREAD_START is served */
	long delay_ms;    /* FAULTLINE_TEST_THREAD_START_DELAY_MS (faultline's own tests) */
	uintptr_t stack_lo, stack_hi; /* the program's own stack for it: its top, pinned for the start */
	int stack_pinned;             /* FL_REQ_PIN's mask of those pages */
};

#define TRAMPS 1024
static struct tramp tramps[TRAMPS]; /* in libfaultline's .bss: agent memory (agent.c) */

/* an address in this thread's stack when the engine needs the stack out of tracing as the
 * thread exits (serve.c, on_thread_exit); 0 otherwise */
static uintptr_t stack_to_release(void)
{
	volatile char here = 0;
	return (fl_engine->observes & FL_OBSERVES_KERNEL_ACCESS) ? 0 : (uintptr_t)&here;
}

/*
 * Whether this thread has said its exit: pthread_exit's wrapper says it and then unwinds through
 * the trampoline's cleanup, which says it only for a thread that has not (a cancelled one). A
 * key of the pthread API, not TLS: glibc keeps the first 32 keys' values in the thread
 * descriptor, no allocation.
 */
static pthread_key_t exit_said;
static pthread_once_t exit_said_once = PTHREAD_ONCE_INIT;

static void exit_said_create(void)
{
	if (pthread_key_create(&exit_said, NULL) != 0)
		exit_said = (pthread_key_t)-1;
}

/* a stack that leaves tracing must be out before the thread goes on: only then wait */
static void thread_exit_notice(void)
{
	pthread_once(&exit_said_once, exit_said_create);
	if (exit_said != (pthread_key_t)-1)
		pthread_setspecific(exit_said, (void *)1);
	uintptr_t stack = stack_to_release();
	if (stack)
		fl_req_call(FL_REQ_THREAD_EXIT, stack, 0, 0, 0);
	else
		notice(FL_REQ_THREAD_EXIT, 0, 0, 0, 0);
}

/*
 * The thread's start routine never returned: cancelled (glibc unwinds it from its SIGCANCEL
 * handler, inside a cancellable call, which the gate was making for it) or pthread_exit. Had
 * the thread no exit event, and what the gate held for a call it was cancelled in stayed held
 * (gate.c, open_call).
 */
static void ended_inside(void *unused)
{
	(void)unused;
	fl_gate_thread_end();
	if (exit_said == (pthread_key_t)-1 || !pthread_getspecific(exit_said))
		thread_exit_notice();
}

#define PIN_MAX_PAGES 30 /* the most pages one counted FL_REQ_PIN answers for (serve.c, on_pin: a mask) */

/*
 * A stack the program gives the new thread (pthread_attr_setstack) is its own memory, traced and
 * disabled like any other. glibc puts the thread's descriptor and static TLS at its top and starts
 * the thread below them with every signal blocked, so a fault there killed the process (under
 * both in-thread engines, in every run tried). Its top pages are pinned until the thread has its
 * signals back (the trampoline). An attribute without a stack of the program's answers NULL less
 * the size.
 */
static int pin_given_stack(const pthread_attr_t *attr, uintptr_t *lo, uintptr_t *hi)
{
	void *addr;
	size_t size;
	if (!attr || pthread_attr_getstack(attr, &addr, &size) != 0 || !addr || (uintptr_t)addr + size <= (uintptr_t)addr)
		return 0;
	uintptr_t base = FL_PAGE_DOWN((uintptr_t)addr);
	*hi = FL_PAGE_UP((uintptr_t)addr + size);
	*lo = *hi - base > PIN_MAX_PAGES * FL_PAGE ? *hi - PIN_MAX_PAGES * FL_PAGE : base;
	return fl_req_call(FL_REQ_PIN, *lo, *hi, 1, 0);
}

/*
 * The thread runs with its signals now, and its start has been served, which pinned its
 * descriptor for good (serve.c, pin_descriptor): the rest of the stack's top is disabled again.
 * The descriptor's pages, which lie there, keep their pin: the agent's own fault path reads the
 * descriptor (a mutex's owner), and a fault there, inside the fault signal's handler, kills.
 */
static void unpin_given_stack(uintptr_t lo, uintptr_t hi, int mask)
{
	uintptr_t self = (uintptr_t)pthread_self();
	for (uintptr_t p = lo; p < hi && p - lo < PIN_MAX_PAGES * FL_PAGE; p += FL_PAGE)
		if (p == FL_PAGE_DOWN(self) || p == FL_PAGE_DOWN(self + FL_PTHREAD_BYTES - 1))
			mask &= ~(1 << ((p - lo) / FL_PAGE));
	if (mask)
		fl_req_call(FL_REQ_UNPIN, lo, hi, (uint64_t)mask, 0);
}

static void *trampoline(void *p)
{
	struct tramp *t = p;
	void *(*fn)(void *) = t->fn;
	void *arg = t->arg;
	pid_t creator = t->creator;
	uint32_t counted = t->counted;
	long delay_ms = t->delay_ms;
	uintptr_t stack_lo = t->stack_lo, stack_hi = t->stack_hi;
	int stack_pinned = t->stack_pinned;
	__atomic_store_n(&t->used, 0, __ATOMIC_RELEASE);
	if (delay_ms > 0) { /* FAULTLINE_TEST_THREAD_START_DELAY_MS: the start held open, for a test */
		struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
		fl_syscall(SYS_nanosleep, (long)&ts, 0);
	}
	if (fl_engine->thread_start)
		fl_engine->thread_start(); /* before this stack is registered */
	fl_gate_thread(); /* dispatch is per task: this thread's system calls gated from here */
	char name[17] = { 0 };
	FL_RESOLVE(real_prctl, "prctl");
	real_prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0);
	notice_text(FL_REQ_THREAD_START, (uint64_t)creator, (uintptr_t)pthread_self(), counted, 0, name,
		    (uint32_t)strlen(name));
	if (stack_pinned > 0)
		unpin_given_stack(stack_lo, stack_hi, stack_pinned);
	pthread_once(&exit_said_once, exit_said_create);
	void *ret;
	pthread_cleanup_push(ended_inside, NULL);
	ret = fn(arg);
	pthread_cleanup_pop(0);
	thread_exit_notice();
	return ret;
}

/* what glibc's pthread_create uses below its caller's frame while every signal is blocked (under 2 KiB in 2.36) */
#define CREATE_STACK (16UL << 10)

FL_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	FL_RESOLVE(real_pthread_create, "pthread_create");
	if (!fl_tracing())
		return real_pthread_create(th, attr, fn, arg);
	struct tramp *t = NULL;
	for (int i = 0; i < TRAMPS && !t; i++) {
		uint32_t expect = 0;
		if (__atomic_compare_exchange_n(&tramps[i].used, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			t = &tramps[i];
	}
	if (!t) /* all slots in use: the stack is registered at the next rescan instead */
		return real_pthread_create(th, attr, fn, arg);
	t->fn = fn;
	t->arg = arg;
	t->creator = fl_gettid();
	t->counted = !(fl_engine->observes & FL_OBSERVES_KERNEL_ACCESS);
	t->delay_ms = thread_start_delay_ms;
	if (t->counted)
		__atomic_add_fetch(&fl_threads_starting, 1, __ATOMIC_SEQ_CST); /* before glibc maps the stack */
	/*
	 * glibc's pthread_create blocks every signal while it clones (the new thread must start with
	 * them blocked), and under an engine that cannot trap kernel-mode accesses a fault on a
	 * disabled page of this thread's stack then kills the process (SIGSEGV blocked): the pages
	 * its callees use below this frame are pinned for the call, and disabled again after it.
	 */
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t lo = FL_PAGE_DOWN(sp - CREATE_STACK), hi = FL_PAGE_UP(sp + 1);
	int pinned = t->counted ? fl_req_call(FL_REQ_PIN, lo, hi, 1, 0) : 0;
	t->stack_pinned = t->counted ? pin_given_stack(attr, &t->stack_lo, &t->stack_hi) : 0;
	int r = real_pthread_create(th, attr, trampoline, t);
	if (pinned > 0) {
		int saved = errno;
		fl_req_call(FL_REQ_UNPIN, lo, hi, (uint64_t)pinned, 0);
		errno = saved;
	}
	if (r) {
		if (t->stack_pinned > 0) {
			int saved = errno;
			fl_req_call(FL_REQ_UNPIN, t->stack_lo, t->stack_hi, (uint64_t)t->stack_pinned, 0);
			errno = saved;
		}
		if (t->counted)
			__atomic_sub_fetch(&fl_threads_starting, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&t->used, 0, __ATOMIC_RELEASE);
	}
	return r;
}

FL_EXPORT void pthread_exit(void *ret)
{
	FL_RESOLVE(real_pthread_exit, "pthread_exit");
	thread_exit_notice();
	real_pthread_exit(ret);
}

static void name_event(pid_t tid, const char *name)
{
	char buf[16];
	size_t n = 0;
	while (n < 15 && name[n]) /* the kernel keeps 15 bytes */
		n++;
	memcpy(buf, name, n);
	notice_text(FL_REQ_THREAD_NAME, (uint64_t)tid, 0, 0, 0, buf, (uint32_t)n);
}

FL_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	FL_RESOLVE(real_pthread_setname_np, "pthread_setname_np");
	int r = real_pthread_setname_np(th, name);
	if (r == 0 && fl_tracing()) {
		int saved = errno;
		pid_t tid = 0;
		clockid_t cid;
		if (pthread_equal(th, pthread_self()))
			tid = fl_gettid();
		else if (pthread_getcpuclockid(th, &cid) == 0)
			tid = (pid_t)~(cid >> 3); /* glibc: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) */
		if (tid > 0)
			name_event(tid, name);
		errno = saved;
	}
	return r;
}

FL_EXPORT int prctl(int option, ...)
{
	FL_RESOLVE(real_prctl, "prctl");
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	int r = real_prctl(option, a2, a3, a4, a5);
	if (option == PR_SET_NAME && r == 0 && fl_tracing()) {
		int saved = errno;
		char name[17] = { 0 };
		real_prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0);
		name_event(fl_gettid(), name);
		errno = saved;
	}
	return r;
}


/* ---- fork, clone, exec ---- */

/*
 * Without UFFD_FEATURE_EVENT_FORK the child's copy of our ranges is unregistered and the
 * parking contents are not the child's business, so the parent first brings every page home
 * (the child then inherits complete memory) and disables again after the fork.
 *
 * Before disabling again, the engine gets this thread (a program thread, so a userfault on a
 * page zapped meanwhile is resolved by the handler as usual) to make the pages movable again
 * (fork_parent: the userfaultfd engine's moves refuse pages fork left shared).
 *
 * The child: with FL_FLAG_FOLLOW_FORKS it is traced as its own process (agent.c,
 * fl_agent_follow_child); without, it marks the agent stopped in its own copy and never
 * touches the shared memory. vfork, posix_spawn and system() share the parent's memory
 * (CLONE_VM) and need nothing; their exec'd images load the agent again.
 */
/* the parent after fork, _Fork, clone or a raw fork: disable again (pid: the child, or -errno) */
static void fork_parent_side(long pid, int saved)
{
	fl_untraced_note_spawner(fl_gettid());
	if (pid > 0 && fl_engine->fork_parent)
		fl_engine->fork_parent();
	fl_req_call(FL_REQ_FORK_PARENT, pid < 0 ? (uint64_t)(int64_t)-saved : (uint64_t)pid, 0, 0, 0);
	errno = saved;
}

static void child_side(void)
{
	if (fl_agent.flags & FL_FLAG_FOLLOW_FORKS) {
		fl_touch_reset_after_fork(); /* the bounce buffers the parent's other threads held */
		if (fl_agent_follow_child() == 0)
			return;
	}
	fl_agent.in_child = 1;
	fl_agent.active = 2;
	fl_engine->close();
	fl_gate_untraced_child();
	fl_args_untraced_child();
}

static pid_t traced_fork(pid_t (*f)(void))
{
	fl_req_call(FL_REQ_FORK_PREPARE, 0, 0, 0, 0);
	pid_t pid = f();
	if (pid == 0) {
		int saved = errno;
		child_side();
		errno = saved;
		return 0;
	}
	fork_parent_side(pid, errno);
	return pid;
}

FL_EXPORT pid_t fork(void)
{
	FL_RESOLVE(real_fork, "fork");
	if (!fl_tracing())
		return real_fork();
	return traced_fork(real_fork);
}

FL_EXPORT pid_t _Fork(void)
{
	FL_RESOLVE(real__Fork, "_Fork");
	if (!fl_tracing())
		return real__Fork();
	return traced_fork(real__Fork);
}

/*
 * clone() without CLONE_VM is a fork the agent cannot follow (the child runs the caller's
 * function on the caller's stack): the parent's pages come home first as for fork, the child
 * runs untraced and says so. With CLONE_VM the child shares our memory and our handler.
 */
struct clone_wrap {
	int (*fn)(void *);
	void *arg;
};
static struct clone_wrap clone_wrap; /* the child reads its own copy */

/* a child the agent does not follow: stop here for good, never touch the shared memory */
static void untraced_child(const char *how)
{
	fl_agent.in_child = 1;
	fl_agent.active = 2;
	fl_engine->close();
	fl_gate_untraced_child();
	fl_args_untraced_child();
	fl_log(how, ": this child process runs untraced", NULL);
}

static int clone_child(void *p)
{
	struct clone_wrap *w = p;
	untraced_child("clone() without CLONE_VM");
	return w->fn(w->arg);
}

FL_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	FL_RESOLVE(real_clone, "clone");
	va_list ap;
	va_start(ap, arg);
	pid_t *ptid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if ((flags & CLONE_VM) || !fl_tracing())
		return real_clone(fn, stack, flags, arg, ptid, tls, ctid);
	static int lock;
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	fl_req_call(FL_REQ_FORK_PREPARE, 0, 0, 0, 0);
	clone_wrap.fn = fn;
	clone_wrap.arg = arg;
	int pid = real_clone(clone_child, stack, flags, &clone_wrap, ptid, tls, ctid);
	int saved = errno;
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	fork_parent_side(pid, saved);
	return pid;
}

/*
 * syscall(SYS_fork), syscall(SYS_clone) or syscall(SYS_clone3) without CLONE_VM: a fork behind
 * glibc's back. Left alone, the child would inherit our parked pages as holes (it gets no
 * registrations, so they read as zeros). As for clone(): the pages come home first and the
 * child runs untraced, saying so. glibc's own bookkeeping (atfork handlers, the thread id it
 * caches) is not run for such a child, so following it with a new handler thread would not be
 * safe. With CLONE_VM the new task shares our memory and our handler: its faults are recorded
 * under its own tid, nothing to do.
 */
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
static int raw_fork_like(long number, const long *a)
{
	if (number == SYS_fork)
		return 1;
	if (number == SYS_clone)
		return !((unsigned long)a[0] & CLONE_VM);
	if (number == SYS_clone3 && a[0] && (size_t)a[1] >= sizeof(uint64_t)) /* struct clone_args: flags first */
		return !(*(const uint64_t *)a[0] & CLONE_VM);
	return 0;
}

FL_EXPORT long syscall(long number, ...)
{
	FL_RESOLVE(real_syscall, "syscall");
	/* like glibc's syscall(): six argument registers, whatever the call uses */
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!fl_tracing() || !raw_fork_like(number, a))
		return real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	fl_req_call(FL_REQ_FORK_PREPARE, 0, 0, 0, 0);
	long r = real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	int saved = errno;
	if (r == 0) {
		untraced_child(number == SYS_fork ? "syscall(SYS_fork)" : "syscall(SYS_clone) without CLONE_VM");
		errno = saved;
		return 0;
	}
	fork_parent_side(r, saved);
	return r;
}

/*
 * exec: FL_EV_EXEC before the call (the new image's agent claims its own slot and ends ours
 * with FL_STOP_EXEC). If the exec fails the process goes on traced as before.
 */
/*
 * A vfork child (vfork(), clone with CLONE_VFORK|CLONE_VM) runs in our memory, so fl_tracing()
 * says yes there too, but the exec is not ours: the exec'd image is a new process, traced as
 * such by its own agent. Such a child has another pid.
 */
static int in_vfork_child(void)
{
	return fl_agent.pid && getpid() != fl_agent.pid;
}

/*
 * search: file is found on PATH (execvp); envp: the environment the new image gets. A vfork
 * child (dash runs its commands so) runs in our memory and reaches our handler like a thread of
 * ours: its exec is said only if the agent cannot follow what it starts (serve.c, on_exec).
 */
__attribute__((noinline)) static void exec_event(const char *path, int search, char *const envp[])
{
	if (!fl_tracing() || !path)
		return;
	int saved = errno;
	uint32_t n = 0;
	while (n < FL_REQ_TEXT_MAX && path[n])
		n++;
	fl_req_call_text(FL_REQ_EXEC, (uint64_t)search, (uintptr_t)envp, in_vfork_child() ? FL_EXEC_CHILD : FL_EXEC_OWN, 0,
			 path, n);
	errno = saved;
}

static void exec_failed(void)
{
	if (!fl_tracing() || !fl_agent.slot)
		return;
	int saved = errno;
	if (!in_vfork_child())
		__atomic_store_n(fl_slot32(FL_SLOT_EXEC_ANNOUNCED), 0, __ATOMIC_RELEASE);
	/* an image said to run untraced does not */
	fl_req_call(FL_REQ_EXEC, 0, 0, in_vfork_child() ? FL_EXEC_CHILD_FAILED : FL_EXEC_OWN_FAILED, 0);
	errno = saved;
}

FL_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	FL_RESOLVE(real_execve, "execve");
	exec_event(path, 0, envp);
	fl_touch_exec(path, argv, envp);
	int r = real_execve(path, argv, envp);
	exec_failed();
	return r;
}

FL_EXPORT int execv(const char *path, char *const argv[])
{
	FL_RESOLVE(real_execv, "execv");
	exec_event(path, 0, environ);
	fl_touch_exec(path, argv, environ);
	int r = real_execv(path, argv);
	exec_failed();
	return r;
}

FL_EXPORT int execvp(const char *file, char *const argv[])
{
	FL_RESOLVE(real_execvp, "execvp");
	exec_event(file, 1, environ);
	fl_touch_exec(file, argv, environ);
	int r = real_execvp(file, argv);
	exec_failed();
	return r;
}

FL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	FL_RESOLVE(real_execvpe, "execvpe");
	exec_event(file, 1, envp);
	fl_touch_exec(file, argv, envp);
	int r = real_execvpe(file, argv, envp);
	exec_failed();
	return r;
}

FL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	FL_RESOLVE(real_fexecve, "fexecve");
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	exec_event(path, 0, envp);
	fl_touch_exec(NULL, argv, envp);
	int r = real_fexecve(fd, argv, envp);
	exec_failed();
	return r;
}

FL_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	FL_RESOLVE(real_execveat, "execveat");
	exec_event(path, 0, envp);
	fl_touch_exec(path, argv, envp);
	int r = real_execveat(dirfd, path, argv, envp, flags);
	exec_failed();
	return r;
}

/* the variadic ones: collect argv on the stack and call the array forms above */
#define COLLECT_ARGS(arg0, argv, envp_out)                                    \
	size_t argc_ = 1;                                                      \
	va_list ap_;                                                           \
	va_start(ap_, arg0);                                                   \
	while (va_arg(ap_, char *))                                            \
		argc_++;                                                       \
	va_end(ap_);                                                           \
	char *argv[argc_ + 1];                                                 \
	va_start(ap_, arg0);                                                   \
	argv[0] = (char *)arg0;                                                \
	for (size_t i_ = 1; i_ <= argc_; i_++)                                 \
		argv[i_] = va_arg(ap_, char *);                                \
	envp_out;                                                              \
	va_end(ap_)

FL_EXPORT int execl(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(arg, argv, (void)0);
	return execv(path, argv);
}

FL_EXPORT int execlp(const char *file, const char *arg, ...)
{
	COLLECT_ARGS(arg, argv, (void)0);
	return execvp(file, argv);
}

FL_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	COLLECT_ARGS(arg, argv, envp = va_arg(ap_, char *const *));
	return execve(path, argv, envp);
}
