/*
 * interpose.c: LD_PRELOAD wrappers. Each calls the real function, then, while tracing scope
 * "all", asks the handler to register what is new. They pass straight through when the agent
 * is inert or stopped, in a fork child, and on the handler thread.
 *
 * What interposition cannot see, and how the gap is closed:
 *   - glibc's malloc maps memory with its internal __mmap/__brk/__mprotect: the malloc family
 *     wrappers check whether the returned block lies in a traced range (seqlock read of the
 *     range table, no syscall) and, if not, have the handler rescan /proc/self/maps before
 *     returning the pointer. References that happen before that check are not recorded:
 *     malloc's own writes of chunk headers and arena/heap_info structures into fresh memory,
 *     and calloc's zeroing of a fresh block. The first reference by the program is recorded.
 *   - munmap, including glibc's internal ones, arrives as UFFD_EVENT_UNMAP; mremap of a traced
 *     range as UFFD_EVENT_REMAP; madvise(DONTNEED) as UFFD_EVENT_REMOVE (handler.c).
 *   - a vma grown in place (mremap without a move) is found when it first faults.
 *   - thread stacks come from glibc's internal mmap (and its stack cache): the pthread_create
 *     wrapper runs the new thread through a trampoline that has the handler rescan before the
 *     start routine runs. Writes by glibc into the new stack before that (TLS setup, the
 *     thread descriptor) are not recorded.
 *   - memory mapped by raw syscall(SYS_mmap) or by other libraries' internal calls is found at
 *     the next rescan (a malloc miss, a thread start, an interposed call).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "faultline.h"
#include "fl_internal.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static int (*real_brk)(void *);
static void *(*real_sbrk)(intptr_t);
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static pid_t (*real_fork)(void);

#define RESOLVE(var, name)                                          \
	do {                                                        \
		if (!(var))                                         \
			*(void **)&(var) = dlsym(RTLD_NEXT, name); \
	} while (0)

void fl_interpose_init(void)
{
	RESOLVE(real_mmap, "mmap");
	RESOLVE(real_mremap, "mremap");
	RESOLVE(real_brk, "brk");
	RESOLVE(real_sbrk, "sbrk");
	RESOLVE(real_pthread_create, "pthread_create");
	RESOLVE(real_fork, "fork");
}

int fl_real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	RESOLVE(real_pthread_create, "pthread_create");
	return real_pthread_create(t, attr, fn, arg);
}

static inline int tracing_all(void)
{
	return fl_agent.scope == FL_SCOPE_ALL && fl_tracing();
}

/* ---- mmap family ---- */

FL_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	RESOLVE(real_mmap, "mmap");
	void *p = real_mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && tracing_all() && (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE &&
	    !(flags & MAP_HUGETLB) && (prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) == (PROT_READ | PROT_WRITE)) {
		int saved = errno;
		fl_req_call(FL_REQ_MMAP, (uintptr_t)p, len, (uint64_t)prot, (uint64_t)(unsigned)flags);
		errno = saved;
	}
	return p;
}

FL_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

FL_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	RESOLVE(real_mremap, "mremap");
	void *new_addr = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	void *p = real_mremap(old, old_len, new_len, flags, new_addr);
	/* a traced range that moved is followed by UFFD_EVENT_REMAP; a grown tail needs a rescan */
	if (p != MAP_FAILED && new_len > old_len && tracing_all()) {
		int saved = errno;
		fl_req_call(FL_REQ_MREMAP, (uintptr_t)old, old_len, (uintptr_t)p, new_len);
		errno = saved;
	}
	return p;
}

FL_EXPORT int brk(void *addr)
{
	RESOLVE(real_brk, "brk");
	RESOLVE(real_sbrk, "sbrk");
	void *old = real_sbrk(0);
	int r = real_brk(addr);
	if (r == 0 && tracing_all()) {
		int saved = errno;
		fl_req_call(FL_REQ_BRK, (uintptr_t)old, (uintptr_t)addr, 0, 0);
		errno = saved;
	}
	return r;
}

FL_EXPORT void *sbrk(intptr_t inc)
{
	RESOLVE(real_sbrk, "sbrk");
	void *old = real_sbrk(inc);
	if (old != (void *)-1 && inc != 0 && tracing_all()) {
		int saved = errno;
		fl_req_call(FL_REQ_BRK, (uintptr_t)old, (uintptr_t)old + (uintptr_t)inc, 0, 0);
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
	fl_req_call(FL_REQ_RESCAN, 0, 0, 0, 0);
	if (!fl_ranges_cover(s, e))
		__atomic_store_n(&miss_cache[__atomic_fetch_add(&miss_next, 1, __ATOMIC_RELAXED) % MISS_CACHE], s,
				 __ATOMIC_RELAXED);
	errno = saved;
}

FL_EXPORT void *malloc(size_t n)
{
	void *p = __libc_malloc(n);
	note_block(p, n);
	return p;
}

FL_EXPORT void *calloc(size_t n, size_t m)
{
	void *p = __libc_calloc(n, m);
	note_block(p, n * m);
	return p;
}

FL_EXPORT void *realloc(void *old, size_t n)
{
	void *p = __libc_realloc(old, n);
	note_block(p, n);
	return p;
}

FL_EXPORT void *memalign(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);
	note_block(p, n);
	return p;
}

FL_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);
	note_block(p, n);
	return p;
}

FL_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
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
	void *p = __libc_valloc(n);
	note_block(p, n);
	return p;
}

FL_EXPORT void *pvalloc(size_t n)
{
	void *p = __libc_pvalloc(n);
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
};
#define TRAMPS 1024
static struct tramp *tramps;

static void *trampoline(void *p)
{
	struct tramp *t = p;
	void *(*fn)(void *) = t->fn;
	void *arg = t->arg;
	pid_t creator = t->creator;
	__atomic_store_n(&t->used, 0, __ATOMIC_RELEASE);
	fl_req_call(FL_REQ_THREAD_START, (uint64_t)creator, (uintptr_t)pthread_self(), 0, 0);
	void *ret = fn(arg);
	fl_req_call(FL_REQ_THREAD_EXIT, 0, 0, 0, 0);
	return ret;
}

FL_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	RESOLVE(real_pthread_create, "pthread_create");
	if (!fl_tracing() || !tramps)
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
	int r = real_pthread_create(th, attr, trampoline, t);
	if (r)
		__atomic_store_n(&t->used, 0, __ATOMIC_RELEASE);
	return r;
}

int fl_interpose_alloc(void)
{
	tramps = fl_mem_map(TRAMPS * sizeof(*tramps));
	return tramps ? 0 : -ENOMEM;
}

/* ---- fork ---- */

/*
 * Without UFFD_FEATURE_EVENT_FORK the child's copy of our ranges is unregistered and the
 * parking contents are not the child's business, so the parent first brings every page home
 * (the child then inherits complete memory) and disables again after the fork. The child runs
 * untraced: it marks the agent stopped in its own copy and never touches the shared memory.
 * vfork, posix_spawn and system() share the parent's memory (CLONE_VM) and need nothing.
 */
FL_EXPORT pid_t fork(void)
{
	RESOLVE(real_fork, "fork");
	if (!fl_tracing())
		return real_fork();
	fl_req_call(FL_REQ_FORK_PREPARE, 0, 0, 0, 0);
	pid_t pid = real_fork();
	if (pid == 0) {
		fl_agent.in_child = 1;
		fl_agent.active = 2;
		if (fl_agent.uffd >= 0)
			close(fl_agent.uffd);
		return 0;
	}
	int saved = errno;
	fl_req_call(FL_REQ_FORK_PARENT, pid < 0 ? (uint64_t)(int64_t)-saved : (uint64_t)pid, 0, 0, 0);
	errno = saved;
	return pid;
}

/* ---- the public call ---- */

FL_EXPORT int faultline_trace_range(void *addr, size_t len)
{
	if (!fl_tracing()) {
		errno = ENOSYS;
		return -1;
	}
	int r = fl_req_call(FL_REQ_TRACE_RANGE, (uintptr_t)addr, len, 0, 0);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}
