/*
 * sys.c: the agent's one system-call primitive and tiny helpers usable on the handler thread. The
 * agent exports wrappers of mmap, read, write, syscall... (src/hooks/), so calling those names
 * from inside the library would re-enter them: every call the agent makes for itself is
 * fl_syscall (sys.h says why). Nothing here allocates or uses stdio.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "resolve.h"
#include "sys.h"

void *fl_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)fl_sys_result(fl_syscall(SYS_mmap, addr, len, prot, flags, fd, off));
}

int fl_sys_munmap(void *addr, size_t len)
{
	return (int)fl_sys_result(fl_syscall(SYS_munmap, addr, len));
}

int fl_sys_madvise(void *addr, size_t len, int advice)
{
	return (int)fl_sys_result(fl_syscall(SYS_madvise, addr, len, advice));
}

pid_t fl_gettid(void)
{
	return (pid_t)fl_syscall(SYS_gettid);
}

int fl_fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return fl_syscall(SYS_poll, (long)&p, 1) > 0 && (p.revents & POLLIN);
}

int fl_thread_gone(pid_t pid, pid_t tid)
{
	return fl_syscall(SYS_tgkill, pid, tid) == -ESRCH;
}

/*
 * Whether tid, a task that faulted on our memory, works in another address space: a process
 * reading ours through the kernel (process_vm_readv waits for a userfaultfd's handler, as a
 * program thread's access does). kcmp(KCMP_VM) compares the two mms, so a vfork child, which
 * runs in ours, is not foreign. Tasks found ours are remembered (a handful of threads make
 * nearly every fault); an error (no kcmp, no permission) says ours, as before this check.
 */
#ifndef KCMP_VM
#define KCMP_VM 1
#endif
#define OWN_TIDS 64
static int32_t own_tids[OWN_TIDS];

int fl_thread_foreign(pid_t tid)
{
	uint32_t slot = (uint32_t)tid % OWN_TIDS;
	if (__atomic_load_n(&own_tids[slot], __ATOMIC_RELAXED) == tid)
		return 0;
	long pid = fl_syscall(SYS_getpid);
	if (fl_syscall(SYS_kcmp, pid, tid, KCMP_VM) > 0)
		return 1;
	__atomic_store_n(&own_tids[slot], tid, __ATOMIC_RELAXED);
	return 0;
}

void fl_thread_foreign_reset(void)
{
	memset(own_tids, 0, sizeof(own_tids));
}

uint64_t fl_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

size_t fl_fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

void fl_log(const char *a, const char *b, const char *c)
{
	char line[512];
	size_t n = 0;
	const char *parts[4] = { "faultline agent: ", a, b, c };
	for (int i = 0; i < 4; i++) {
		if (!parts[i])
			continue;
		size_t l = strlen(parts[i]);
		if (l > sizeof(line) - 2 - n)
			l = sizeof(line) - 2 - n;
		memcpy(line + n, parts[i], l);
		n += l;
	}
	line[n++] = '\n';
	fl_syscall(SYS_write, 2, line, n);
}

/*
 * op: FUTEX_WAIT or FUTEX_WAKE, private to this process or not (a word in the shared memory
 * file). A raw system call, -errno on failure: futex waits run in signal handlers too (a fault
 * waiting for teardown, fault_signal.c), where a timed-out wait's ETIMEDOUT in errno reached the
 * program (sort: "string comparison failed: Connection timed out").
 */
static long futex(uint32_t *word, int op, uint32_t val, long timeout_ns)
{
	struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };
	return fl_syscall(SYS_futex, word, op, val, timeout_ns > 0 ? &ts : NULL);
}

int fl_futex_wait(uint32_t *word, uint32_t expected, long timeout_ns)
{
	long r = futex(word, FUTEX_WAIT_PRIVATE, expected, timeout_ns);
	return r < 0 ? (int)r : 0;
}

void fl_futex_wake(uint32_t *word)
{
	futex(word, FUTEX_WAKE_PRIVATE, 0x7fffffff, 0);
}

/* futex words in the shared memory file, which other processes wait on or wake */
int fl_futex_wait_shared(uint32_t *word, uint32_t expected, long timeout_ns)
{
	long r = futex(word, FUTEX_WAIT, expected, timeout_ns);
	return r < 0 ? (int)r : 0;
}

void fl_futex_wake_shared(uint32_t *word)
{
	futex(word, FUTEX_WAKE, 0x7fffffff, 0);
}

int fl_debug;

/* FAULTLINE_DEBUG=1: one line per primitive, for tests; write(2) only, usable on the handler */
void fl_debug_op(const char *what, uintptr_t a, uintptr_t b, long r)
{
	char line[160];
	size_t n = 0;
	const char *pre = "faultline debug: ";
	memcpy(line, pre, strlen(pre));
	n += strlen(pre);
	size_t l = strlen(what);
	memcpy(line + n, what, l);
	n += l;
	uintptr_t v[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		line[n++] = ' ';
		line[n++] = '0';
		line[n++] = 'x';
		char tmp[16];
		int k = 0;
		do {
			tmp[k++] = "0123456789abcdef"[v[i] & 15];
			v[i] >>= 4;
		} while (v[i]);
		while (k)
			line[n++] = tmp[--k];
	}
	line[n++] = ' ';
	if (r < 0) {
		line[n++] = '-';
		r = -r;
	}
	n += fl_fmt_u64(line + n, (uint64_t)r);
	line[n++] = '\n';
	fl_syscall(SYS_write, 2, line, n);
}

/* the SysV calling convention in, the kernel's out: n in rax, the sixth argument from the stack */
__asm__(".text\n"
	".globl fl_syscall6\n.hidden fl_syscall6\n.type fl_syscall6,@function\n"
	"fl_syscall6:\n"
	"  mov %rdi, %rax\n  mov %rsi, %rdi\n  mov %rdx, %rsi\n  mov %rcx, %rdx\n"
	"  mov %r8, %r10\n  mov %r9, %r8\n  mov 8(%rsp), %r9\n  syscall\n  ret\n"
	".size fl_syscall6, .-fl_syscall6\n");

long fl_sys_result(long r)
{
	if ((unsigned long)r > -4096UL) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/*
 * The frame keeps the caller's rbp chain (fn's frame links to this one, on the caller's stack) and
 * the CFI says where the caller's frame is, so a debugger's backtrace crosses the switch.
 */
__asm__(".text\n"
	".globl fl_call_on\n.hidden fl_call_on\n.type fl_call_on,@function\n"
	"fl_call_on:\n"
	"  .cfi_startproc\n"
	"  push %rbp\n"
	"  .cfi_def_cfa_offset 16\n"
	"  .cfi_offset %rbp, -16\n"
	"  mov %rsp, %rbp\n"
	"  .cfi_def_cfa_register %rbp\n"
	"  and $-16, %rdi\n"
	"  mov %rdi, %rsp\n"
	"  mov %rsi, %rax\n"
	"  mov %rdx, %rdi\n"
	"  call *%rax\n"
	"  mov %rbp, %rsp\n"
	"  pop %rbp\n"
	"  .cfi_def_cfa %rsp, 8\n"
	"  ret\n"
	"  .cfi_endproc\n"
	".size fl_call_on, .-fl_call_on\n");

static uintptr_t text_start, text_end;

static int find_own_text(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	uintptr_t me = (uintptr_t)&fl_in_agent_text;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= s && me < e) {
			__atomic_store_n(&text_end, e, __ATOMIC_RELAXED);
			__atomic_store_n(&text_start, s, __ATOMIC_RELEASE);
			return 1;
		}
	}
	return 0;
}

int fl_in_agent_text(uintptr_t pc)
{
	if (!__atomic_load_n(&text_start, __ATOMIC_ACQUIRE))
		dl_iterate_phdr(find_own_text, NULL); /* first from the constructor (agent.c), not in a handler */
	return pc >= text_start && pc < __atomic_load_n(&text_end, __ATOMIC_RELAXED);
}

/*
 * The lowest descriptor number the agent's own descriptors take: the kernel gives the lowest free
 * one, so those the agent keeps open (userfaultfd, eventfds, /proc/self files, the recorder's
 * pidfd) took 3 to 10, and the program's first open returned 9 where it returns 3 natively; a
 * program that dup2()s onto a fixed number (pipeline.c: 9) closed one of the agent's under it.
 * Up here they stay below RLIMIT_NOFILE's usual soft limit (1024) and above what programs use by
 * number; a lower soft limit gets them in its upper half.
 */
static int fd_base(void)
{
	struct { uint64_t cur, max; } lim;
	if (fl_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&lim) != 0 || lim.cur >= 1024)
		return 1024 - 64;
	return lim.cur >= 32 ? (int)lim.cur / 2 : 3;
}

/*
 * The descriptors the agent keeps, with what each names (device and inode), so that a program's
 * close of one is told apart from a close of its own descriptor that later got the same number.
 * A program that closes every descriptor it did not open (closefrom, close_range; python's
 * subprocess in a child) closed the userfaultfd under the agent: parked pages then read as zeros
 * (a traced C program aborted in free(); under sigbus it died of SIGSEGV).
 */
#define AGENT_FDS 32
static struct {
	int fd;
	uint64_t dev, ino;
} agent_fds[AGENT_FDS];
static int agent_fds_lock;

static void note_agent_fd(int fd)
{
	struct stat st;
	if (fl_syscall(SYS_fstat, fd, (long)&st) != 0)
		return;
	fl_spin_lock(&agent_fds_lock);
	int free_i = -1;
	for (int i = 0; i < AGENT_FDS; i++) {
		if (agent_fds[i].fd == fd || (free_i < 0 && !agent_fds[i].fd))
			free_i = i;
		if (agent_fds[i].fd == fd)
			break;
	}
	if (free_i >= 0)
		agent_fds[free_i].fd = fd, agent_fds[free_i].dev = st.st_dev, agent_fds[free_i].ino = st.st_ino;
	fl_spin_unlock(&agent_fds_lock);
}

int fl_fd_is_agent(int fd)
{
	if (fd < 3)
		return 0;
	uint64_t dev = 0, ino = 0;
	int known = 0;
	fl_spin_lock(&agent_fds_lock);
	for (int i = 0; i < AGENT_FDS && !known; i++)
		if (agent_fds[i].fd == fd)
			known = 1, dev = agent_fds[i].dev, ino = agent_fds[i].ino;
	fl_spin_unlock(&agent_fds_lock);
	struct stat st;
	return known && fl_syscall(SYS_fstat, fd, (long)&st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

int fl_agent_fds(int *out, int max)
{
	int fds[AGENT_FDS], n = 0, kept = 0;
	fl_spin_lock(&agent_fds_lock);
	for (int i = 0; i < AGENT_FDS; i++)
		if (agent_fds[i].fd)
			fds[n++] = agent_fds[i].fd;
	fl_spin_unlock(&agent_fds_lock);
	for (int i = 0; i < n; i++)
		if (kept < max && fl_fd_is_agent(fds[i])) {
			int k = kept++;
			while (k > 0 && out[k - 1] > fds[i]) {
				out[k] = out[k - 1];
				k--;
			}
			out[k] = fds[i];
		}
	return kept;
}

int fl_fd_high(int fd)
{
	if (fd < 0)
		return fd;
	long high = fl_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, fd_base());
	if (high >= 0) {
		fl_syscall(SYS_close, fd);
		fd = (int)high;
	} /* else no room up there: it stays where it is */
	note_agent_fd(fd);
	return fd;
}

int fl_self_fd(struct fl_self_fd *f)
{
	pid_t pid = (pid_t)fl_syscall(SYS_getpid);
	if (f->fd >= 0 && f->pid == pid)
		return f->fd;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = fl_fd_high(open(f->path, O_RDONLY | O_CLOEXEC));
	if (f->fd < 0)
		return -errno;
	f->pid = pid;
	return f->fd;
}

static struct fl_self_fd mem_fd = FL_SELF_FD("/proc/self/mem");

long fl_read_self(void *out, uintptr_t addr, size_t n)
{
	int fd = fl_self_fd(&mem_fd);
	if (fd < 0)
		return fd;
	return fl_syscall(SYS_pread64, fd, out, n, addr);
}

int fl_real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	FL_RESOLVE(real, "pthread_create");
	return real(t, attr, fn, arg);
}
