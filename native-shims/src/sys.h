/*
 * sys.h: the agent's base, below every other room: page arithmetic, raw system calls that must
 * not go through our own interposed symbols, the monotonic clock, futexes and one-line output
 * to stderr (sys.c). Nothing here allocates, uses stdio or needs another room.
 */
#ifndef FL_SYS_H
#define FL_SYS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FL_EXPORT __attribute__((visibility("default")))
#define FL_STR_(x) #x
#define FL_STR(x) FL_STR_(x) /* a macro's value as a string literal */

#define FL_PAGE 4096UL
#define FL_PAGE_DOWN(x) ((uintptr_t)(x) & ~(FL_PAGE - 1))
#define FL_PAGE_UP(x) (((uintptr_t)(x) + FL_PAGE - 1) & ~(FL_PAGE - 1))

void *fl_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int fl_sys_munmap(void *addr, size_t len);
int fl_sys_madvise(void *addr, size_t len, int advice);
pid_t fl_gettid(void);
/*
 * The agent's one way into the kernel: every system call the agent makes for itself is this
 * function's syscall instruction, never a libc function the agent exports (src/hooks/: the call
 * would run through the agent's own wrapper). It returns -errno and never writes errno: errno
 * lives in the thread's TLS, which may lie in a disabled page, and the mprotect engine's SIGSEGV
 * path must not fault (a fault while SIGSEGV is blocked kills the process); a fault signal's
 * handler must not change the errno the program reads after it. It lies in the agent's text,
 * the range Syscall User Dispatch lets through (gate.c), so it is never gated, whatever the
 * thread's selector. fl_syscall(n, args...) takes up to six arguments of any integer or pointer
 * type.
 */
long fl_syscall6(long n, long a, long b, long c, long d, long e, long f);
#define fl_syscall(...) FL_SYSCALL_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)
#define FL_SYSCALL_(n, a, b, c, d, e, f, ...) \
	fl_syscall6((long)(n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
/* a raw call's result the way libc returns it, for callers that read errno: -1 and errno on failure */
long fl_sys_result(long r);
#define FL_SYS_SCHED_YIELD 24 /* x86-64: for headers that do not include <sys/syscall.h> */
/* fn(arg) run with the stack pointer at top (16-byte aligned down), back on the caller's stack after */
long fl_call_on(void *top, long (*fn)(void *), void *arg);
/* pc lies in libfaultline's own code (its executable segment, found at the first call) */
int fl_in_agent_text(uintptr_t pc);
int fl_fd_readable(int fd); /* something to read now (poll, no wait); errno untouched */
/* the kernel no longer knows the thread (tgkill(pid, tid, 0) says ESRCH): it will never run
 * again, nor return to user space, so what it held (a signal stack, a buffer) is free */
int fl_thread_gone(pid_t pid, pid_t tid);
/* fd moved up to a number programs do not use (sys.c says where): every descriptor the agent keeps; fd if it cannot */
int fl_fd_high(int fd);
int fl_fd_is_agent(int fd); /* fd is one the agent keeps (fl_fd_high), still naming what it did */
int fl_agent_fds(int *out, int max); /* those, in increasing order; how many */
int fl_thread_foreign(pid_t tid); /* tid runs in another address space: a remote reader (sys.c) */
void fl_thread_foreign_reset(void); /* a fork child: the tids seen were its parent's */
uint64_t fl_now_ns(void);
void fl_log(const char *a, const char *b, const char *c); /* one line to stderr via write(2) */
size_t fl_fmt_u64(char *buf, uint64_t v);
extern int fl_debug;
void fl_debug_op(const char *what, uintptr_t a, uintptr_t b, long r);
#define FL_DEBUG(what, a, b, r) do { if (fl_debug) fl_debug_op(what, (uintptr_t)(a), (uintptr_t)(b), (long)(r)); } while (0)
/* a spin lock for sections of a few loads and stores, in signal handlers too (no futex, no errno) */
static inline void fl_spin_lock(int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}
static inline void fl_spin_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}
/* futexes: 0 or -errno, errno untouched (they run in signal handlers too) */
int fl_futex_wait(uint32_t *word, uint32_t expected, long timeout_ns);
void fl_futex_wake(uint32_t *word);
int fl_futex_wait_shared(uint32_t *word, uint32_t expected, long timeout_ns);
void fl_futex_wake_shared(uint32_t *word);

/* pthread_create past the agent's own wrapper (hooks/interpose.c): for the agent's own threads */
int fl_real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/*
 * A /proc/self file kept open for this process image. The kernel resolves /proc/self when the
 * file is opened, so a fork child's inherited descriptor describes its parent: it is reopened
 * when the pid is no longer the one it was opened for (the inherited copy closed first: it is
 * the child's own). An exec'd image starts with fresh static state, and O_CLOEXEC closed the
 * old descriptor. Like the agent's other descriptors it must stay open: a program that closes
 * descriptors it did not open breaks tracing anyway. Its users serialize the first call in a
 * process (the agent lock, or a fork child's only thread).
 */
struct fl_self_fd {
	const char *path;
	int fd;
	pid_t pid;
};
#define FL_SELF_FD(p) { .path = (p), .fd = -1, .pid = 0 }
int fl_self_fd(struct fl_self_fd *f); /* the descriptor, or -errno */
/*
 * n bytes of this process's memory at addr, copied by the kernel (pread of /proc/self/mem), so
 * that no access of ours can fault: an unmapped address, and a userfaultfd-registered page that
 * is missing (the sigbus engine's uffd is user-mode only: the kernel's access fails), give an
 * error; a PROT_NONE page is read (the file's accesses are forced, as ptrace's). Bytes or -errno.
 * Lock held (the descriptor's first open in a process image).
 */
long fl_read_self(void *out, uintptr_t addr, size_t n);

#endif
