/*
 * touch.c: kernel-mode accesses under the mprotect engine. The kernel cannot take a fault on a
 * PROT_NONE page for a program the way userfaultfd lets it wait: read(2) into a disabled page
 * fails with EFAULT (or returns short). So the libc calls that hand a buffer to the kernel are
 * interposed and touch the buffer first, from user mode, where the touch faults like any access
 * and is recorded as the program's reference, which it is (the kernel acts for the program): a
 * write touch for a buffer the kernel writes, a read touch for one it reads. A write touch is
 * `lock orb $0`: a write access that changes no byte, atomic against the program's own writers.
 * If the call still meets EFAULT (the EVMS is smaller than the buffer, or another thread's fault
 * evicted a touched page in between), the buffer is touched again and the call repeated, a few
 * times. Under userfaultfd every wrapper passes straight through.
 *
 * glibc's stdio reads and writes its FILE buffer with internal system calls that no wrapper
 * sees; a FILE buffer from malloc is traced memory. So streams opened through fopen, fopen64,
 * fdopen and freopen, and stdin and stdout at start, get a buffer in agent memory (setvbuf
 * before their first I/O), handed back at fclose. fread and fwrite of more than a buffer go to
 * the caller's memory directly, so they touch it. exec and posix_spawn touch the path, argv and
 * envp the kernel reads. What is not covered is listed in the README ("Engines").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "gate.h"
#include "mem.h"
#include "state.h"
#include "resolve.h"
#include "sys.h"
#include "touch.h"

#define RETRIES 64 /* a touched page evicted before the call by 512 faults of other threads */
#define STREAM_BUF 8192
#define STREAMS 1024


static inline int touching(void)
{
	if ((fl_engine->observes & FL_OBSERVES_KERNEL_ACCESS) || fl_gate_active())
		return 0; /* the kernel's accesses wait, or the system-call gate brings the pages in */
	/* the agent's own threads: their calls read into agent memory, never disabled, and one of
	 * them runs the teardown (it would wait for itself reading /proc/self/maps) */
	if (fl_on_handler_thread())
		return 0;
	if (fl_tracing())
		return 1;
	fl_restoring_wait(); /* tracing stopping: the kernel would meet pages still disabled (EFAULT) */
	return 0;
}

/* a write access to the byte at a that changes nothing (the header's `lock orb $0`) */
static inline void write_touch(uintptr_t a)
{
	__asm__ volatile("lock orb $0, %0" : "+m"(*(volatile uint8_t *)a) : : "memory");
}

/*
 * Every page of [p, p + n): a write access (the kernel will write it) or a read. Last page
 * first: the first page is then the newest in the EVMS, the last to be evicted by other
 * threads' faults before the call, and a kernel copy that reaches a page evicted meanwhile
 * returns short (the bytes before it) instead of EFAULT.
 */
static void touch(const void *p, size_t n, int write)
{
	if (!p || !n)
		return;
	uintptr_t a = (uintptr_t)p;
	for (uintptr_t cur = FL_PAGE_DOWN(a + n - 1);; cur -= FL_PAGE) {
		uintptr_t at = cur < a ? a : cur;
		if (write)
			write_touch(at);
		else
			(void)*(volatile const uint8_t *)at;
		if (cur <= a)
			break;
	}
}

static void touch_iov(const struct iovec *iov, int n, int write)
{
	for (int i = 0; iov && i < n; i++)
		touch(iov[i].iov_base, iov[i].iov_len, write);
}

/* run CALL with the buffer touched first, again while it meets EFAULT */
#define TOUCHED(TYPE, TOUCH, CALL)                                   \
	do {                                                         \
		if (!touching())                                     \
			return CALL;                                 \
		TYPE r_;                                             \
		for (int try_ = 0;; try_++) {                        \
			TOUCH;                                       \
			r_ = CALL;                                   \
			if (!(r_ == (TYPE)-1 && errno == EFAULT) || try_ == RETRIES) \
				return r_;                           \
		}                                                    \
	} while (0)

/*
 * For calls whose EFAULT comes after they have acted, too late to repeat them: wait4 reaps the
 * child before it writes the status (kernel/exit.c, kernel_wait4: the child is gone and its
 * status lost), pipe makes the descriptors before it writes them. The buffer is touched
 * right before the call and the call made once; only another thread's faults could evict the
 * touched pages before the kernel writes them.
 */
#define TOUCHED_ONCE(TOUCH, CALL)     \
	do {                          \
		if (touching())       \
			TOUCH;        \
		return CALL;          \
	} while (0)

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_readv)(int, const struct iovec *, int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
static ssize_t (*real_getdents64)(int, void *, size_t);
static int (*real_stat)(const char *, struct stat *);
static int (*real_lstat)(const char *, struct stat *);
static int (*real_fstat)(int, struct stat *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static size_t (*real_fread)(void *, size_t, size_t, FILE *);
static size_t (*real_fwrite)(const void *, size_t, size_t, FILE *);
static size_t (*real_fread_unlocked)(void *, size_t, size_t, FILE *);
static size_t (*real_fwrite_unlocked)(const void *, size_t, size_t, FILE *);
static int (*real_stat64)(const char *, struct stat *);
static int (*real_lstat64)(const char *, struct stat *);
static int (*real_fstat64)(int, struct stat *);
static int (*real_fstatat64)(int, const char *, struct stat *, int);
static int (*real_statx)(int, const char *, int, unsigned, struct statx *);
static FILE *(*real_fopen)(const char *, const char *);
static FILE *(*real_fopen64)(const char *, const char *);
static FILE *(*real_fdopen)(int, const char *);
static FILE *(*real_freopen)(const char *, const char *, FILE *);
static int (*real_fclose)(FILE *);

FL_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	FL_RESOLVE(real_read, "read");
	TOUCHED(ssize_t, touch(buf, n, 1), real_read(fd, buf, n));
}

FL_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	FL_RESOLVE(real_pread, "pread");
	TOUCHED(ssize_t, touch(buf, n, 1), real_pread(fd, buf, n, off));
}

FL_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));

FL_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	FL_RESOLVE(real_readv, "readv");
	TOUCHED(ssize_t, (touch(iov, (size_t)cnt * sizeof(*iov), 0), touch_iov(iov, cnt, 1)), real_readv(fd, iov, cnt));
}

FL_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	FL_RESOLVE(real_write, "write");
	TOUCHED(ssize_t, touch(buf, n, 0), real_write(fd, buf, n));
}

FL_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	FL_RESOLVE(real_pwrite, "pwrite");
	TOUCHED(ssize_t, touch(buf, n, 0), real_pwrite(fd, buf, n, off));
}

FL_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) __attribute__((alias("pwrite")));

FL_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	FL_RESOLVE(real_writev, "writev");
	TOUCHED(ssize_t, (touch(iov, (size_t)cnt * sizeof(*iov), 0), touch_iov(iov, cnt, 0)), real_writev(fd, iov, cnt));
}

FL_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	FL_RESOLVE(real_recv, "recv");
	TOUCHED(ssize_t, touch(buf, n, 1), real_recv(fd, buf, n, flags));
}

FL_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *len)
{
	FL_RESOLVE(real_recvfrom, "recvfrom");
	TOUCHED(ssize_t, (touch(buf, n, 1), touch(len, sizeof(*len), 1), touch(from, len ? *len : 0, 1)),
		real_recvfrom(fd, buf, n, flags, from, len));
}

FL_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	FL_RESOLVE(real_send, "send");
	TOUCHED(ssize_t, touch(buf, n, 0), real_send(fd, buf, n, flags));
}

FL_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t len)
{
	FL_RESOLVE(real_sendto, "sendto");
	TOUCHED(ssize_t, (touch(buf, n, 0), touch(to, len, 0)), real_sendto(fd, buf, n, flags, to, len));
}

FL_EXPORT ssize_t getdents64(int fd, void *buf, size_t n)
{
	FL_RESOLVE(real_getdents64, "getdents64");
	TOUCHED(ssize_t, touch(buf, n, 1), real_getdents64(fd, buf, n));
}

/*
 * ---- calls the kernel answers after a wait: through a bounce buffer in agent memory ----
 * A touch makes a page enabled, not young: under FIFO the touched page may be the oldest in the
 * EVMS, and the next fault of another thread disables it. For most calls the window is the few
 * instructions before the system call. For these it is the whole wait: poll writes revents
 * when a descriptor becomes ready, wait4 writes the status when the child exits, epoll_wait
 * writes the events it consumed. A write that meets a disabled page then fails with EFAULT
 * after the call has acted (xz -T2's main thread saw "poll() failed: Bad address" in about half
 * the runs, its writer threads faulting while it waited). Repeating the call is not exact (the
 * child is reaped, select's sets are half overwritten), so the kernel never sees the program's
 * buffer at all: the arguments are copied into a bounce buffer of agent memory that the EVMS
 * never holds, the real call reads and writes that, and the results are copied back in user
 * mode, where a disabled page faults and is recorded like any access. The copy reads what the
 * kernel reads and writes what it writes (poll's revents of every entry, the fields of
 * siginfo that waitid sets), so the references are the kernel's own, as a read then a write.
 *
 * A buffer is claimed by the thread (its tid, by compare-and-swap: no lock, a signal handler
 * that polls inside a poll takes another) for the length of the call. The agent's own threads
 * reach these wrappers too and use them like any thread. With every buffer taken, or
 * arguments too big for one, the call falls back to a touch and one call. A signal handler that
 * longjmps out of a wait keeps its buffer taken for good; a thread cancelled in one gives it
 * back when it is gone.
 */
#define BOUNCES 64
#define BOUNCE_BYTES 16384

static struct bounce {
	int32_t tid; /* 0: free */
	uint8_t pad[60];
	uint8_t buf[BOUNCE_BYTES] __attribute__((aligned(64)));
} bounces[BOUNCES];

static struct bounce *bounce_claim(void)
{
	int32_t tid = (int32_t)fl_syscall(SYS_gettid);
	for (int i = 0; i < BOUNCES; i++) {
		int32_t free_ = 0;
		if (__atomic_load_n(&bounces[i].tid, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&bounces[i].tid, &free_, tid, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &bounces[i];
	}
	/*
	 * All taken. A thread cancelled inside a wait (pthread_cancel unwinds from the call) never
	 * released its buffer: once the kernel says that thread is gone, the buffer is free.
	 */
	long pid = fl_syscall(SYS_getpid);
	for (int i = 0; i < BOUNCES; i++) {
		int32_t owner = __atomic_load_n(&bounces[i].tid, __ATOMIC_RELAXED);
		if (owner && fl_thread_gone((pid_t)pid, owner) &&
		    __atomic_compare_exchange_n(&bounces[i].tid, &owner, tid, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &bounces[i];
	}
	return NULL;
}

static void bounce_release(struct bounce *b)
{
	if (b)
		__atomic_store_n(&b->tid, 0, __ATOMIC_RELEASE);
}

/* a fork child has only the forking thread: the buffers other threads held are free */
void fl_touch_reset_after_fork(void)
{
	for (int i = 0; i < BOUNCES; i++)
		__atomic_store_n(&bounces[i].tid, 0, __ATOMIC_RELAXED);
}

/* the bounce buffer carved into consecutive, aligned pieces */
struct carve {
	uint8_t *next, *end;
};

/* b's buffer to carve; with no buffer, nothing fits */
static struct carve carve_of(struct bounce *b)
{
	return b ? (struct carve){ b->buf, b->buf + BOUNCE_BYTES } : (struct carve){ NULL, NULL };
}

static void *carve(struct carve *c, size_t n)
{
	uintptr_t at = ((uintptr_t)c->next + 15) & ~(uintptr_t)15;
	if (at + n > (uintptr_t)c->end)
		return NULL;
	c->next = (uint8_t *)(at + n);
	return (void *)at;
}

/* a copy of src in the bounce buffer (NULL stays NULL); *ok cleared when it does not fit */
static void *carve_copy(struct carve *c, const void *src, size_t n, int *ok)
{
	if (!src)
		return NULL;
	void *p = carve(c, n);
	if (!p) {
		*ok = 0;
		return NULL;
	}
	memcpy(p, src, n);
	return p;
}

/* the result writes, in user mode, saving errno from the faults they take */
#define COPY_OUT(STMT)                   \
	do {                             \
		int saved_ = errno;      \
		STMT;                    \
		errno = saved_;          \
	} while (0)

static pid_t (*real_wait)(int *);
static pid_t (*real_waitpid)(pid_t, int *, int);
static pid_t (*real_wait3)(int *, int, struct rusage *);
static pid_t (*real_wait4)(pid_t, int *, int, struct rusage *);
static int (*real_waitid)(idtype_t, id_t, siginfo_t *, int);
static int (*real_pipe)(int *);
static int (*real_pipe2)(int *, int);
static int (*real_getrusage)(int, struct rusage *);
static int (*real_uname)(struct utsname *);

/*
 * wait, waitpid and wait3 are wait4 with some arguments fixed (glibc: each is the wait4 system
 * call); the kernel writes the status and the usage only when it reaped a child (r > 0;
 * kernel/exit.c, kernel_wait4 and the wait4 system call).
 */
static pid_t bounced_wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	struct bounce *b = touching() ? bounce_claim() : NULL;
	if (!b) {
		if (touching())
			touch(status, sizeof(*status), 1), touch(ru, sizeof(*ru), 1);
		return real_wait4(pid, status, options, ru);
	}
	struct carve c = carve_of(b);
	int *st = status ? carve(&c, sizeof(*st)) : NULL;
	struct rusage *r = ru ? carve(&c, sizeof(*r)) : NULL;
	pid_t got = real_wait4(pid, st, options, r);
	if (got > 0)
		COPY_OUT((status ? (void)(*status = *st) : (void)0, ru ? (void)memcpy(ru, r, sizeof(*ru)) : (void)0));
	bounce_release(b);
	return got;
}

FL_EXPORT pid_t wait(int *status)
{
	FL_RESOLVE(real_wait, "wait");
	FL_RESOLVE(real_wait4, "wait4");
	if (!touching())
		return real_wait(status);
	return bounced_wait4(-1, status, 0, NULL);
}

FL_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	FL_RESOLVE(real_waitpid, "waitpid");
	FL_RESOLVE(real_wait4, "wait4");
	if (!touching())
		return real_waitpid(pid, status, options);
	return bounced_wait4(pid, status, options, NULL);
}

FL_EXPORT pid_t wait3(int *status, int options, struct rusage *ru)
{
	FL_RESOLVE(real_wait3, "wait3");
	FL_RESOLVE(real_wait4, "wait4");
	if (!touching())
		return real_wait3(status, options, ru);
	return bounced_wait4(-1, status, options, ru);
}

FL_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	FL_RESOLVE(real_wait4, "wait4");
	if (!touching())
		return real_wait4(pid, status, options, ru);
	return bounced_wait4(pid, status, options, ru);
}

/* waitid sets six fields of *info when it succeeds, zeroes when no child was waiting
 * (kernel/exit.c, the waitid system call) */
FL_EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	FL_RESOLVE(real_waitid, "waitid");
	struct bounce *b = touching() && info ? bounce_claim() : NULL;
	if (!b)
		TOUCHED_ONCE(touch(info, sizeof(*info), 1), real_waitid(type, id, info, options));
	siginfo_t *in = (siginfo_t *)b->buf;
	int r = real_waitid(type, id, in, options);
	if (r == 0)
		COPY_OUT((info->si_signo = in->si_signo, info->si_errno = in->si_errno, info->si_code = in->si_code,
			  info->si_pid = in->si_pid, info->si_uid = in->si_uid, info->si_status = in->si_status));
	bounce_release(b);
	return r;
}

static int bounced_pipe(int fds[2], int flags, int with_flags)
{
	struct bounce *b = touching() && fds ? bounce_claim() : NULL;
	if (!b) {
		if (touching())
			touch(fds, 2 * sizeof(int), 1);
		return with_flags ? real_pipe2(fds, flags) : real_pipe(fds);
	}
	int *in = (int *)b->buf;
	int r = with_flags ? real_pipe2(in, flags) : real_pipe(in);
	if (r == 0)
		COPY_OUT((fds[0] = in[0], fds[1] = in[1]));
	bounce_release(b);
	return r;
}

FL_EXPORT int pipe(int fds[2])
{
	FL_RESOLVE(real_pipe, "pipe");
	return bounced_pipe(fds, 0, 0);
}

FL_EXPORT int pipe2(int fds[2], int flags)
{
	FL_RESOLVE(real_pipe2, "pipe2");
	return bounced_pipe(fds, flags, 1);
}

FL_EXPORT int getrusage(int who, struct rusage *ru)
{
	FL_RESOLVE(real_getrusage, "getrusage");
	TOUCHED(int, touch(ru, sizeof(*ru), 1), real_getrusage(who, ru));
}

FL_EXPORT int uname(struct utsname *u)
{
	FL_RESOLVE(real_uname, "uname");
	TOUCHED(int, touch(u, sizeof(*u), 1), real_uname(u));
}

/*
 * ---- waiting calls: poll, select, epoll_wait, nanosleep ----
 * The agent's own handler threads call poll and nanosleep too, and reach these wrappers; the
 * next definitions are therefore resolved at start (fl_touch_resolve), never by dlsym from a
 * handler thread, which would take the loader's lock that a program thread may hold while it
 * waits for that handler.
 */
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
static int (*real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
static int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
static int (*real_nanosleep)(const struct timespec *, struct timespec *);
static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);

void fl_touch_resolve(void)
{
	FL_RESOLVE(real_poll, "poll");
	FL_RESOLVE(real_ppoll, "ppoll");
	FL_RESOLVE(real_select, "select");
	FL_RESOLVE(real_pselect, "pselect");
	FL_RESOLVE(real_epoll_wait, "epoll_wait");
	FL_RESOLVE(real_epoll_pwait, "epoll_pwait");
	FL_RESOLVE(real_nanosleep, "nanosleep");
	FL_RESOLVE(real_clock_nanosleep, "clock_nanosleep");
	FL_RESOLVE(real_wait4, "wait4");
}

/* the bytes of an fd_set that select(2) reads and writes for nfds descriptors */
static size_t fd_set_bytes(int nfds)
{
	size_t longs = nfds <= 0 ? 0 : ((size_t)nfds + 8 * sizeof(long) - 1) / (8 * sizeof(long));
	return longs * sizeof(long);
}

static void touch_fd_sets(int nfds, fd_set *r, fd_set *w, fd_set *e)
{
	touch(r, fd_set_bytes(nfds), 1);
	touch(w, fd_set_bytes(nfds), 1);
	touch(e, fd_set_bytes(nfds), 1);
}

/*
 * poll and ppoll write revents into every entry when the wait ends, ready, timed out or
 * interrupted (fs/select.c, do_sys_poll); not when they failed before waiting (EINVAL, ENOMEM).
 */
static int bounced_poll(struct pollfd *fds, nfds_t n, int timeout, const struct timespec *t, const sigset_t *mask,
			int is_ppoll)
{
	struct bounce *b = touching() && n > 0 ? bounce_claim() : NULL;
	int ok = b != NULL;
	struct carve c = carve_of(b);
	struct pollfd *in = ok && n <= BOUNCE_BYTES / sizeof(*fds) ? carve_copy(&c, fds, n * sizeof(*fds), &ok) : NULL;
	const struct timespec *tin = ok ? carve_copy(&c, t, sizeof(*t), &ok) : NULL;
	const sigset_t *min = ok ? carve_copy(&c, mask, sizeof(*mask), &ok) : NULL;
	if (!in || !ok) {
		bounce_release(b);
		if (touching())
			touch(fds, n * sizeof(*fds), 1), touch(t, sizeof(*t), 0), touch(mask, sizeof(*mask), 0);
		return is_ppoll ? real_ppoll(fds, n, t, mask) : real_poll(fds, n, timeout);
	}
	int r = is_ppoll ? real_ppoll(in, n, tin, min) : real_poll(in, n, timeout);
	if (r >= 0 || errno == EINTR)
		COPY_OUT(for (nfds_t i = 0; i < n; i++) fds[i].revents = in[i].revents);
	bounce_release(b);
	return r;
}

FL_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	FL_RESOLVE(real_poll, "poll");
	if (!touching())
		return real_poll(fds, n, timeout);
	return bounced_poll(fds, n, timeout, NULL, NULL, 0);
}

FL_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask)
{
	FL_RESOLVE(real_ppoll, "ppoll");
	if (!touching())
		return real_ppoll(fds, n, t, mask);
	return bounced_poll(fds, n, 0, t, mask, 1);
}

/*
 * select and pselect write the three sets when they return a count, zero included, and not
 * when interrupted (fs/select.c, core_sys_select); select also writes the time left into *t,
 * Linux only, on every return (poll_select_finish), which the copy back repeats: the bytes are
 * the kernel's when it wrote them and the program's own when it did not.
 */
static int bounced_select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv, const struct timespec *ts,
			  const sigset_t *mask, int is_pselect)
{
	struct bounce *b = bounce_claim();
	int ok = b != NULL && nfds >= 0;
	size_t set = fd_set_bytes(nfds);
	struct carve c = carve_of(b);
	fd_set *rin = ok ? carve_copy(&c, r, set, &ok) : NULL;
	fd_set *win = ok ? carve_copy(&c, w, set, &ok) : NULL;
	fd_set *ein = ok ? carve_copy(&c, e, set, &ok) : NULL;
	struct timeval *tvin = ok ? carve_copy(&c, tv, sizeof(*tv), &ok) : NULL;
	const struct timespec *tsin = ok ? carve_copy(&c, ts, sizeof(*ts), &ok) : NULL;
	const sigset_t *min = ok ? carve_copy(&c, mask, sizeof(*mask), &ok) : NULL;
	/* the copies are nfds bits long, rounded up to a long, as the kernel's (fs/select.c) */
	if (!ok) {
		bounce_release(b);
		touch_fd_sets(nfds, r, w, e);
		touch(tv, sizeof(*tv), 1), touch(ts, sizeof(*ts), 0), touch(mask, sizeof(*mask), 0);
		return is_pselect ? real_pselect(nfds, r, w, e, ts, mask) : real_select(nfds, r, w, e, tv);
	}
	int got = is_pselect ? real_pselect(nfds, rin, win, ein, tsin, min) : real_select(nfds, rin, win, ein, tvin);
	COPY_OUT({
		if (got >= 0) {
			if (r)
				memcpy(r, rin, set);
			if (w)
				memcpy(w, win, set);
			if (e)
				memcpy(e, ein, set);
		}
		if (tv)
			*tv = *tvin;
	});
	bounce_release(b);
	return got;
}

FL_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	FL_RESOLVE(real_select, "select");
	if (!touching())
		return real_select(nfds, r, w, e, t);
	return bounced_select(nfds, r, w, e, t, NULL, NULL, 0);
}

FL_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *t, const sigset_t *mask)
{
	FL_RESOLVE(real_pselect, "pselect");
	if (!touching())
		return real_pselect(nfds, r, w, e, t, mask);
	return bounced_select(nfds, r, w, e, NULL, t, mask, 1);
}

/*
 * epoll_wait writes the events it returns; the bounce buffer holds BOUNCE_BYTES of them and the
 * call asks for no more (returning fewer events than max is allowed: the rest stay ready).
 */
static int bounced_epoll(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask, int is_pwait)
{
	struct bounce *b = touching() && max > 0 ? bounce_claim() : NULL;
	int ok = b != NULL;
	struct carve c = carve_of(b);
	const sigset_t *min = ok ? carve_copy(&c, mask, sizeof(*mask), &ok) : NULL;
	int room = (int)(((uintptr_t)c.end - (((uintptr_t)c.next + 15) & ~(uintptr_t)15)) / sizeof(*ev));
	struct epoll_event *out = ok ? carve(&c, (size_t)(max < room ? max : room) * sizeof(*ev)) : NULL;
	if (!out) {
		bounce_release(b);
		if (touching())
			touch(ev, max > 0 ? (size_t)max * sizeof(*ev) : 0, 1), touch(mask, sizeof(*mask), 0);
		return is_pwait ? real_epoll_pwait(epfd, ev, max, timeout, mask) : real_epoll_wait(epfd, ev, max, timeout);
	}
	int n = max < room ? max : room;
	int r = is_pwait ? real_epoll_pwait(epfd, out, n, timeout, min) : real_epoll_wait(epfd, out, n, timeout);
	if (r > 0)
		COPY_OUT(memcpy(ev, out, (size_t)r * sizeof(*ev)));
	bounce_release(b);
	return r;
}

FL_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	FL_RESOLVE(real_epoll_wait, "epoll_wait");
	if (!touching())
		return real_epoll_wait(epfd, ev, max, timeout);
	return bounced_epoll(epfd, ev, max, timeout, NULL, 0);
}

FL_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
	FL_RESOLVE(real_epoll_pwait, "epoll_pwait");
	if (!touching())
		return real_epoll_pwait(epfd, ev, max, timeout, mask);
	return bounced_epoll(epfd, ev, max, timeout, mask, 1);
}

/* the time left is written only when a signal ended the sleep (kernel/time/hrtimer.c,
 * nanosleep_copyout); clock_nanosleep returns the error instead of setting errno */
static int bounced_sleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem, int is_clock)
{
	struct bounce *b = bounce_claim();
	int ok = b != NULL;
	struct carve c = carve_of(b);
	const struct timespec *rin = ok ? carve_copy(&c, req, sizeof(*req), &ok) : NULL;
	struct timespec *left = ok && rem ? carve(&c, sizeof(*rem)) : NULL;
	if (!ok) {
		bounce_release(b);
		touch(req, sizeof(*req), 0), touch(rem, sizeof(*rem), 1);
		return is_clock ? real_clock_nanosleep(clock, flags, req, rem) : real_nanosleep(req, rem);
	}
	int r = is_clock ? real_clock_nanosleep(clock, flags, rin, left) : real_nanosleep(rin, left);
	if (rem && (is_clock ? r == EINTR : (r == -1 && errno == EINTR)))
		COPY_OUT(*rem = *left);
	bounce_release(b);
	return r;
}

FL_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	FL_RESOLVE(real_nanosleep, "nanosleep");
	if (!touching())
		return real_nanosleep(req, rem);
	return bounced_sleep(0, 0, req, rem, 0);
}

FL_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem)
{
	FL_RESOLVE(real_clock_nanosleep, "clock_nanosleep");
	if (!touching())
		return real_clock_nanosleep(clock, flags, req, rem);
	return bounced_sleep(clock, flags, req, rem, 1);
}

/*
 * ---- blocks that glibc allocates and the kernel fills through an internal system call ----
 * No wrapper sees that system call, so the block is touched as the malloc family hands it to
 * glibc, from the realloc wrapper (interpose.c). Not every block that glibc allocates inside
 * such a function: some are written only in part (calloc skips zeroing fresh memory, a line
 * buffer holds a short line), and touching all their pages would add references the program
 * does not make. Only a block that the kernel and glibc write whole, at once, is touched, each
 * function saying which one it is:
 *
 * pthread_getattr_np (nptl/pthread_getattr_np.c; glibc 2.36 here, 2.29 alike) asks for the thread's
 * CPU set in a buffer that it starts with realloc(NULL, 32) and grows with realloc of the same
 * block while sched_getaffinity says EINVAL (more CPUs than bits). The kernel writes the first
 * min(size, cpumask_size()) bytes (kernel/sched/syscalls.c, sched_getaffinity) and glibc's
 * __pthread_getaffinity_np zeroes the rest: every byte, in address order, with nothing between
 * the realloc and the system call. So the touch writes the block's pages in address order too.
 * A JVM calls it as each thread starts, when the block is often in a thread arena that the
 * realloc wrapper has just found and disabled. Its other reallocs are not touched:
 * __pthread_attr_setaffinity_np's copy (realloc(NULL) again, filled by memcpy in user mode) and,
 * for the main thread, getdelim's line buffer (realloc of another block).
 */
#define FILLERS 64

static struct filler {
	int32_t tid;      /* 0: free */
	uintptr_t cpuset; /* the CPU set's block so far; 0 before its first realloc */
} fillers[FILLERS];
static uint32_t touch_fillers; /* threads inside such a call: the realloc wrapper looks only if any */

static int (*real_pthread_getattr_np)(pthread_t, pthread_attr_t *);

/* touched for writing from the first page to the last, as the kernel and glibc write it */
static void touch_forward(const void *p, size_t n)
{
	for (uintptr_t a = (uintptr_t)p, cur = a; cur < a + n; cur = FL_PAGE_DOWN(cur) + FL_PAGE)
		write_touch(cur);
}

void fl_touch_realloced(void *old, void *p, size_t n)
{
	if (!p || !__atomic_load_n(&touch_fillers, __ATOMIC_ACQUIRE))
		return;
	int32_t self = fl_gettid();
	for (int i = 0; i < FILLERS; i++)
		if (__atomic_load_n(&fillers[i].tid, __ATOMIC_RELAXED) == self) {
			if ((uintptr_t)old == fillers[i].cpuset) {
				touch_forward(p, n);
				fillers[i].cpuset = (uintptr_t)p;
			}
			return;
		}
}

FL_EXPORT int pthread_getattr_np(pthread_t th, pthread_attr_t *attr)
{
	FL_RESOLVE(real_pthread_getattr_np, "pthread_getattr_np");
	if (!touching())
		return real_pthread_getattr_np(th, attr);
	int32_t self = fl_gettid();
	struct filler *f = NULL;
	while (!f) { /* more than FILLERS threads in here at once: wait for one to leave */
		for (int i = 0; i < FILLERS && !f; i++) {
			int32_t expect = 0;
			if (__atomic_compare_exchange_n(&fillers[i].tid, &expect, self, 0, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				f = &fillers[i];
		}
		if (!f)
			sched_yield();
	}
	__atomic_add_fetch(&touch_fillers, 1, __ATOMIC_SEQ_CST);
	int r;
	/* EFAULT: the touched page was disabled again before the kernel wrote it (registered by
	 * a rescan that another thread's start had held back, or evicted): as TOUCHED does.
	 * glibc frees what the failed call allocated. */
	for (int try = 0; (f->cpuset = 0, r = real_pthread_getattr_np(th, attr)) == EFAULT && try < RETRIES; try++)
		;
	__atomic_sub_fetch(&touch_fillers, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&f->tid, 0, __ATOMIC_RELEASE);
	return r;
}

/* a string the kernel will read: reading it is the touch */
static void touch_string(const char *s)
{
	for (const volatile char *p = s; p && *p; p++)
		;
}

FL_EXPORT int stat(const char *path, struct stat *st)
{
	FL_RESOLVE(real_stat, "stat");
	TOUCHED(int, (touch_string(path), touch(st, sizeof(*st), 1)), real_stat(path, st));
}

FL_EXPORT int lstat(const char *path, struct stat *st)
{
	FL_RESOLVE(real_lstat, "lstat");
	TOUCHED(int, (touch_string(path), touch(st, sizeof(*st), 1)), real_lstat(path, st));
}

FL_EXPORT int fstat(int fd, struct stat *st)
{
	FL_RESOLVE(real_fstat, "fstat");
	TOUCHED(int, touch(st, sizeof(*st), 1), real_fstat(fd, st));
}

FL_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	FL_RESOLVE(real_fstatat, "fstatat");
	TOUCHED(int, (touch_string(path), touch(st, sizeof(*st), 1)), real_fstatat(dirfd, path, st, flags));
}

static size_t touched_fread(size_t (*real_fread)(void *, size_t, size_t, FILE *), void *buf, size_t size, size_t n,
			    FILE *f)
{
	if (!touching() || size == 0 || n > SIZE_MAX / size)
		return real_fread(buf, size, n, f);
	touch(buf, size * n, 1);
	size_t got = real_fread(buf, size, n, f);
	/* a short count with the error flag may be an EFAULT of a direct read: touch, go on */
	for (int t = 0; t < RETRIES && got < n && ferror(f) && errno == EFAULT; t++) {
		clearerr(f);
		touch((char *)buf + got * size, (n - got) * size, 1);
		got += real_fread((char *)buf + got * size, size, n - got, f);
	}
	return got;
}

static size_t touched_fwrite(size_t (*real_fwrite)(const void *, size_t, size_t, FILE *), const void *buf, size_t size,
			     size_t n, FILE *f)
{
	if (touching() && size && n <= SIZE_MAX / size)
		touch(buf, size * n, 0);
	return real_fwrite(buf, size, n, f);
}

/*
 * The 64-bit names of the stat family, which programs built with _FILE_OFFSET_BITS=64 call (on
 * x86-64 struct stat64 is struct stat): defined under other C names, since the headers declare
 * them with struct stat64.
 */
FL_EXPORT int fl_stat64(const char *path, struct stat *st) __asm__("stat64");
FL_EXPORT int fl_stat64(const char *path, struct stat *st)
{
	FL_RESOLVE(real_stat64, "stat64");
	TOUCHED(int, (touch_string(path), touch(st, sizeof(*st), 1)), real_stat64(path, st));
}

FL_EXPORT int fl_lstat64(const char *path, struct stat *st) __asm__("lstat64");
FL_EXPORT int fl_lstat64(const char *path, struct stat *st)
{
	FL_RESOLVE(real_lstat64, "lstat64");
	TOUCHED(int, (touch_string(path), touch(st, sizeof(*st), 1)), real_lstat64(path, st));
}

FL_EXPORT int fl_fstat64(int fd, struct stat *st) __asm__("fstat64");
FL_EXPORT int fl_fstat64(int fd, struct stat *st)
{
	FL_RESOLVE(real_fstat64, "fstat64");
	TOUCHED(int, touch(st, sizeof(*st), 1), real_fstat64(fd, st));
}

FL_EXPORT int fl_fstatat64(int dirfd, const char *path, struct stat *st, int flags) __asm__("fstatat64");
FL_EXPORT int fl_fstatat64(int dirfd, const char *path, struct stat *st, int flags)
{
	FL_RESOLVE(real_fstatat64, "fstatat64");
	TOUCHED(int, (touch_string(path), touch(st, sizeof(*st), 1)), real_fstatat64(dirfd, path, st, flags));
}

FL_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	FL_RESOLVE(real_statx, "statx");
	TOUCHED(int, (touch_string(path), touch(st, sizeof(*st), 1)), real_statx(dirfd, path, flags, mask, st));
}

FL_EXPORT size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
	FL_RESOLVE(real_fread, "fread");
	return touched_fread(real_fread, buf, size, n, f);
}

FL_EXPORT size_t (fread_unlocked)(void *buf, size_t size, size_t n, FILE *f)
{
	FL_RESOLVE(real_fread_unlocked, "fread_unlocked");
	return touched_fread(real_fread_unlocked, buf, size, n, f);
}

FL_EXPORT size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	FL_RESOLVE(real_fwrite, "fwrite");
	return touched_fwrite(real_fwrite, buf, size, n, f);
}

FL_EXPORT size_t (fwrite_unlocked)(const void *buf, size_t size, size_t n, FILE *f)
{
	FL_RESOLVE(real_fwrite_unlocked, "fwrite_unlocked");
	return touched_fwrite(real_fwrite_unlocked, buf, size, n, f);
}

/* ---- stdio buffers outside traced memory ---- */

static struct stream_buf {
	FILE *f;
	char *buf;
} streams[STREAMS];
static int streams_lock;

/* not under the gate, which holds and touches glibc's own buffer for each call: the program
 * keeps its stream's buffer, its size and so the size of each read and write it makes */
static void give_buffer(FILE *f, int mode)
{
	if (!f || (fl_engine->observes & FL_OBSERVES_KERNEL_ACCESS) || fl_gate_active())
		return;
	char *buf = NULL;
	fl_spin_lock(&streams_lock);
	for (int i = 0; i < STREAMS; i++)
		if (!streams[i].f) {
			if (!streams[i].buf)
				streams[i].buf = fl_mem_map(STREAM_BUF);
			if (streams[i].buf) {
				streams[i].f = f;
				buf = streams[i].buf;
			}
			break;
		}
	fl_spin_unlock(&streams_lock);
	if (buf) /* past STREAMS open streams, glibc's own (traced) buffer: reads into it may fail */
		setvbuf(f, buf, mode, STREAM_BUF);
}

static void take_buffer(FILE *f)
{
	fl_spin_lock(&streams_lock);
	for (int i = 0; i < STREAMS; i++)
		if (streams[i].f == f)
			streams[i].f = NULL; /* the buffer stays mapped for the next stream */
	fl_spin_unlock(&streams_lock);
}

static FILE *opened(FILE *f)
{
	if (f && touching())
		give_buffer(f, isatty(fileno(f)) ? _IOLBF : _IOFBF);
	return f;
}

FL_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FL_RESOLVE(real_fopen, "fopen");
	return opened(real_fopen(path, mode));
}

FL_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FL_RESOLVE(real_fopen64, "fopen64");
	return opened(real_fopen64(path, mode));
}

FL_EXPORT FILE *fdopen(int fd, const char *mode)
{
	FL_RESOLVE(real_fdopen, "fdopen");
	return opened(real_fdopen(fd, mode));
}

FL_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
	FL_RESOLVE(real_freopen, "freopen");
	take_buffer(f);
	return opened(real_freopen(path, mode, f));
}

FL_EXPORT int fclose(FILE *f)
{
	FL_RESOLVE(real_fclose, "fclose");
	int r = real_fclose(f);
	take_buffer(f);
	return r;
}

/* an in-thread engine with the gate off, at start, before main's first I/O: stdin and stdout
 * (stderr is unbuffered) */
void fl_touch_start(void)
{
	if (fl_engine->observes & FL_OBSERVES_KERNEL_ACCESS)
		return;
	give_buffer(stdin, _IOFBF);
	give_buffer(stdout, isatty(1) ? _IOLBF : _IOFBF);
}

/* exec reads its path, argv and envp from the caller's memory */
void fl_touch_exec(const char *path, char *const argv[], char *const envp[])
{
	if (!touching())
		return;
	touch_string(path);
	for (size_t i = 0; argv && (touch(&argv[i], sizeof(argv[i]), 0), argv[i]); i++)
		touch_string(argv[i]);
	for (size_t i = 0; envp && (touch(&envp[i], sizeof(envp[i]), 0), envp[i]); i++)
		touch_string(envp[i]);
}

static int (*real_posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
			       char *const[], char *const[]);
static int (*real_posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
				char *const[], char *const[]);

/* the child shares our memory until it execs: the kernel reads path, argv and envp from it */
FL_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	FL_RESOLVE(real_posix_spawn, "posix_spawn");
	fl_touch_exec(path, argv, envp);
	return real_posix_spawn(pid, path, fa, attr, argv, envp);
}

FL_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	FL_RESOLVE(real_posix_spawnp, "posix_spawnp");
	fl_touch_exec(file, argv, envp);
	return real_posix_spawnp(pid, file, fa, attr, argv, envp);
}
