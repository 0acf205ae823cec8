/*
 * gate_table.c: per x86-64 system call, the user memory it reads and writes (the system-call
 * gate, gate.c). One entry per call that takes a __user pointer in the kernel's prototype
 * (include/linux/syscalls.h); the numbers and names are arch/x86/entry/syscalls/syscall_64.tbl's.
 * A test holds this table to a copy of that list in the repository
 * (tools/src/test/resources/gate/syscalls-x86_64.txt, GateTableTest): every call that takes user
 * memory has an entry here, under its number, with the kernel's name. One entry per line,
 * "[NUMBER] = { "NAME", ..." (the test reads that form).
 *
 * A region's length is the most the call may touch: read(fd, buf, 4096) touches the whole
 * buffer even when the file has ten bytes left (FORMAT.md, kernel references). Strings are read
 * up to their NUL. Calls marked UNSIZED take memory the table does not size (their own
 * structures with nested pointers: bpf, keyctl, ptrace and the like): they pass through, and
 * meet EFAULT if that memory is disabled. REFUSE: io_uring_setup, whose rings the kernel reads
 * and writes at any time with no system call to gate (programs fall back to plain reads and
 * writes: README, limits), and with it io_uring_enter and io_uring_register.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/timex.h>
#include <termios.h>
#include <time.h>

#include "gate.h"

enum kind { K_NONE, K_BUF, K_BUFN, K_FIX, K_STR, K_IOV, K_SOCKLEN, K_ARGV, K_FN };
enum { R = FL_GATE_READ, W = FL_GATE_WRITE, RW = FL_GATE_READ | FL_GATE_WRITE };
struct spec {
	uint8_t kind, arg, len_arg, dir;
	uint32_t size;
};
struct regions {
	struct fl_gate_region *r;
	uint32_t n;
};
typedef void (*special_fn)(const long *a, struct regions *out);
struct entry {
	const char *name;
	uint32_t flags;
	struct spec s[5];
	special_fn fn;
};

#define QUICK FL_SC_QUICK
#define B(arg, len, dir) { K_BUF, arg, len, dir, 1 }                /* a[arg], a[len] bytes */
#define BN(arg, len, size, dir) { K_BUFN, arg, len, dir, size }     /* a[len] elements of size */
#define F(arg, size, dir) { K_FIX, arg, 0, dir, size }              /* a fixed size */
#define S(arg) { K_STR, arg, 0, R, 0 }                              /* a string, read */
#define V(arg, cnt, dir) { K_IOV, arg, cnt, dir, 0 }                /* an iovec array and its buffers */
#define L(arg, lenp) { K_SOCKLEN, arg, lenp, W, 0 }                 /* a sockaddr out, *a[lenp] long */
#define A(arg) { K_ARGV, arg, 0, R, 0 }                             /* a NULL-ended array of strings */

static void add(struct regions *o, long addr, size_t len, uint32_t dir)
{
	if (addr && len && o->n < FL_GATE_REGIONS)
		o->r[o->n++] = (struct fl_gate_region){ (uintptr_t)addr, len, dir };
}

/* a string the kernel will read, NUL included; reading it is the kernel's reference (gate.c) */
static void add_string(struct regions *o, long s)
{
	if (!s)
		return;
	size_t n = 0;
	while (((const volatile char *)s)[n] && n < 4096 * 4)
		n++;
	add(o, s, n + 1, R);
}

static void add_iov(struct regions *o, long iov, long cnt, uint32_t dir)
{
	if (!iov || cnt <= 0 || cnt > 1024)
		return;
	add(o, iov, (size_t)cnt * sizeof(struct iovec), R);
	const struct iovec *v = (const struct iovec *)iov;
	for (long i = 0; i < cnt; i++)
		add(o, (long)v[i].iov_base, v[i].iov_len, dir);
}

static void add_msghdr(struct regions *o, long m, uint32_t dir)
{
	if (!m)
		return;
	const struct msghdr *h = (const struct msghdr *)m;
	add(o, m, sizeof(*h), dir == W ? RW : R); /* recvmsg writes namelen, controllen, flags */
	add(o, (long)h->msg_name, h->msg_namelen, dir);
	add_iov(o, (long)h->msg_iov, (long)h->msg_iovlen, dir);
	add(o, (long)h->msg_control, h->msg_controllen, dir);
}

static void sp_sendmsg(const long *a, struct regions *o) { add_msghdr(o, a[1], R); }
static void sp_recvmsg(const long *a, struct regions *o) { add_msghdr(o, a[1], W); }

static void mmsg(const long *a, struct regions *o, uint32_t dir)
{
	long v = a[1], n = a[2];
	if (!v || n <= 0 || n > 1024)
		return;
	add(o, v, (size_t)n * sizeof(struct mmsghdr), RW); /* msg_len written */
	for (long i = 0; i < n; i++)
		add_msghdr(o, (long)&((const struct mmsghdr *)v)[i].msg_hdr, dir);
}
static void sp_sendmmsg(const long *a, struct regions *o) { mmsg(a, o, R); }
static void sp_recvmmsg(const long *a, struct regions *o)
{
	mmsg(a, o, W);
	add(o, a[4], sizeof(struct timespec), R);
}

/* the bytes of an fd_set select(2) reads and writes for nfds descriptors */
static size_t fd_set_bytes(long nfds)
{
	return nfds <= 0 ? 0 : (((size_t)nfds + 63) / 64) * 8;
}

static void sp_select(const long *a, struct regions *o)
{
	size_t n = fd_set_bytes(a[0]);
	add(o, a[1], n, RW);
	add(o, a[2], n, RW);
	add(o, a[3], n, RW);
	add(o, a[4], sizeof(struct timeval), RW);
}

static void sp_pselect6(const long *a, struct regions *o)
{
	size_t n = fd_set_bytes(a[0]);
	add(o, a[1], n, RW);
	add(o, a[2], n, RW);
	add(o, a[3], n, RW);
	add(o, a[4], sizeof(struct timespec), RW);
	if (a[5]) { /* struct { const sigset_t *ss; size_t ss_len; } */
		add(o, a[5], 2 * sizeof(long), R);
		const long *p = (const long *)a[5];
		add(o, p[0], (size_t)p[1], R);
	}
}

static void sp_execve(const long *a, struct regions *o);
static void sp_execveat(const long *a, struct regions *o);

static void add_argv(struct regions *o, long v)
{
	if (!v)
		return;
	const char *const *p = (const char *const *)v;
	size_t i = 0;
	for (; p[i] && i < 65536; i++)
		add_string(o, (long)p[i]);
	add(o, v, (i + 1) * sizeof(char *), R);
}

static void sp_execve(const long *a, struct regions *o)
{
	add_string(o, a[0]);
	add_argv(o, a[1]);
	add_argv(o, a[2]);
}

static void sp_execveat(const long *a, struct regions *o)
{
	add_string(o, a[1]);
	add_argv(o, a[2]);
	add_argv(o, a[3]);
}

/* futex: the word for every operation but a private wake (which reads nothing), the timeout of
 * the waiting ones, the second word of the two-word ones (kernel/futex/syscalls.c) */
static void sp_futex(const long *a, struct regions *o)
{
	int op = (int)a[1] & FUTEX_CMD_MASK;
	int lock = op == FUTEX_LOCK_PI || op == FUTEX_UNLOCK_PI || op == FUTEX_TRYLOCK_PI || op == FUTEX_LOCK_PI2 ||
		   op == FUTEX_WAKE_OP || op == FUTEX_CMP_REQUEUE_PI || op == FUTEX_WAIT_REQUEUE_PI;
	if (op != FUTEX_WAKE || !((int)a[1] & FUTEX_PRIVATE_FLAG))
		add(o, a[0], sizeof(uint32_t), lock ? RW : R);
	if (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET || op == FUTEX_LOCK_PI || op == FUTEX_LOCK_PI2 ||
	    op == FUTEX_WAIT_REQUEUE_PI)
		add(o, a[3], sizeof(struct timespec), R);
	if (op == FUTEX_REQUEUE || op == FUTEX_CMP_REQUEUE || op == FUTEX_WAKE_OP || op == FUTEX_CMP_REQUEUE_PI ||
	    op == FUTEX_WAIT_REQUEUE_PI)
		add(o, a[4], sizeof(uint32_t), RW);
}

/*
 * ioctl: the size and direction that _IOC encodes (include/uapi/asm-generic/ioctl.h); the
 * terminal and socket requests older than that encoding, by their definitions in
 * include/uapi/asm-generic/ioctls.h. Any other request passes untouched.
 */
static void sp_ioctl(const long *a, struct regions *o)
{
	unsigned long cmd = (unsigned long)a[1];
	unsigned dir = _IOC_DIR(cmd), size = _IOC_SIZE(cmd);
	if (dir != _IOC_NONE && size) {
		add(o, a[2], size, ((dir & _IOC_READ) ? W : 0) | ((dir & _IOC_WRITE) ? R : 0));
		return;
	}
	switch (cmd) {
	case FIONREAD: case TIOCOUTQ: case TIOCGPGRP: case TIOCGSID: case TIOCMGET: case TIOCGETD:
		add(o, a[2], sizeof(int), W);
		break;
	case FIONBIO: case FIOASYNC: case TIOCSPGRP: case TIOCMSET: case TIOCMBIS: case TIOCMBIC: case TIOCSETD:
	case TIOCPKT: case TIOCSCTTY:
		add(o, a[2], sizeof(int), R);
		break;
	case TCGETS:
		add(o, a[2], sizeof(struct termios), W);
		break;
	case TCSETS: case TCSETSW: case TCSETSF:
		add(o, a[2], sizeof(struct termios), R);
		break;
	case TIOCGWINSZ:
		add(o, a[2], sizeof(struct winsize), W);
		break;
	case TIOCSWINSZ:
		add(o, a[2], sizeof(struct winsize), R);
		break;
	case TIOCSTI:
		add(o, a[2], 1, R);
		break;
	}
}

/* fcntl: the record locks and owners, by command (fs/fcntl.c) */
static void sp_fcntl(const long *a, struct regions *o)
{
	switch ((int)a[1]) {
	case F_GETLK: case F_OFD_GETLK:
		add(o, a[2], sizeof(struct flock), RW);
		break;
	case F_SETLK: case F_SETLKW: case F_OFD_SETLK: case F_OFD_SETLKW:
		add(o, a[2], sizeof(struct flock), R);
		break;
	case F_GETOWN_EX:
		add(o, a[2], sizeof(struct f_owner_ex), W);
		break;
	case F_SETOWN_EX:
		add(o, a[2], sizeof(struct f_owner_ex), R);
		break;
	case F_GET_RW_HINT: case F_GET_FILE_RW_HINT:
		add(o, a[2], sizeof(uint64_t), W);
		break;
	case F_SET_RW_HINT: case F_SET_FILE_RW_HINT:
		add(o, a[2], sizeof(uint64_t), R);
		break;
	}
}

/* prctl: the options that take user memory and that programs use (kernel/sys.c) */
static void sp_prctl(const long *a, struct regions *o)
{
	switch ((int)a[0]) {
	case PR_SET_NAME:
		add(o, a[1], 16, R);
		break;
	case PR_GET_NAME:
		add(o, a[1], 16, W);
		break;
	case PR_GET_PDEATHSIG: case PR_GET_TSC: case PR_GET_FPEXC: case PR_GET_ENDIAN: case PR_GET_UNALIGN:
	case PR_GET_FPEMU:
		add(o, a[1], sizeof(int), W);
		break;
	case PR_GET_TID_ADDRESS:
		add(o, a[1], sizeof(void *), W);
		break;
	case PR_SET_VMA:
		add_string(o, a[4]);
		break;
	}
}

static void sp_getsockopt(const long *a, struct regions *o)
{
	if (!a[4])
		return;
	add(o, a[4], sizeof(socklen_t), RW);
	add(o, a[3], *(const volatile socklen_t *)a[4], W);
}

static void sp_wait4(const long *a, struct regions *o)
{
	add(o, a[1], sizeof(int), W);
	add(o, a[3], sizeof(struct rusage), W);
}

static void sp_clone3(const long *a, struct regions *o)
{
	add(o, a[0], (size_t)a[1], R);
}

/* sched_setattr: the structure says its own size in its first word */
static void sp_sched_setattr(const long *a, struct regions *o)
{
	if (a[1])
		add(o, a[1], *(const volatile uint32_t *)a[1] ? *(const volatile uint32_t *)a[1] : 48, R);
}

static void sp_msgsnd(const long *a, struct regions *o) { add(o, a[1], sizeof(long) + (size_t)a[2], R); }
static void sp_msgrcv(const long *a, struct regions *o) { add(o, a[1], sizeof(long) + (size_t)a[2], W); }

/* the getxattrat family: struct xattr_args { u64 value; u32 size; u32 flags; } */
static void sp_xattrat(const long *a, struct regions *o, uint32_t dir)
{
	add_string(o, a[1]);
	add_string(o, a[3]);
	if (a[4]) {
		add(o, a[4], (size_t)a[5], R);
		const volatile uint64_t *x = (const volatile uint64_t *)a[4];
		add(o, (long)x[0], (uint32_t)x[1], dir);
	}
}
static void sp_setxattrat(const long *a, struct regions *o) { sp_xattrat(a, o, R); }
static void sp_getxattrat(const long *a, struct regions *o) { sp_xattrat(a, o, W); }

/* rt_sigtimedwait, rt_sigsuspend and friends: the kernel's sigset size is an argument */
#define TS sizeof(struct timespec)
#define TV sizeof(struct timeval)
#define ITS sizeof(struct itimerspec)
#define ST sizeof(struct stat)
#define SI sizeof(siginfo_t)
#define RU sizeof(struct rusage)
#define RL sizeof(struct rlimit)

static const struct entry table[] = {
	[0] = { "read", 0, { B(1, 2, W) } },
	[1] = { "write", 0, { B(1, 2, R) } },
	[2] = { "open", 0, { S(0) } },
	[4] = { "stat", QUICK, { S(0), F(1, ST, W) } },
	[5] = { "fstat", QUICK, { F(1, ST, W) } },
	[6] = { "lstat", QUICK, { S(0), F(1, ST, W) } },
	[7] = { "poll", 0, { BN(0, 1, sizeof(struct pollfd), RW) } },
	[13] = { "rt_sigaction", QUICK, { F(1, 32, R), F(2, 32, W) } },
	[14] = { "rt_sigprocmask", QUICK, { B(1, 3, R), B(2, 3, W) } },
	[16] = { "ioctl", 0, { { 0 } }, sp_ioctl },
	[17] = { "pread64", 0, { B(1, 2, W) } },
	[18] = { "pwrite64", 0, { B(1, 2, R) } },
	[19] = { "readv", 0, { V(1, 2, W) } },
	[20] = { "writev", 0, { V(1, 2, R) } },
	[21] = { "access", QUICK, { S(0) } },
	[22] = { "pipe", QUICK, { F(0, 2 * sizeof(int), W) } },
	[23] = { "select", 0, { { 0 } }, sp_select },
	[27] = { "mincore", QUICK, { { 0 } } }, /* vec: (len + 4095) / 4096 bytes, below */
	[30] = { "shmat", QUICK, { { 0 } } },   /* shmaddr is an address to map at, not memory read */
	[31] = { "shmctl", FL_SC_UNSIZED, { { 0 } } },
	[35] = { "nanosleep", 0, { F(0, TS, R), F(1, TS, W) } },
	[36] = { "getitimer", QUICK, { F(1, sizeof(struct itimerval), W) } },
	[38] = { "setitimer", QUICK, { F(1, sizeof(struct itimerval), R), F(2, sizeof(struct itimerval), W) } },
	[40] = { "sendfile", 0, { F(2, sizeof(off_t), RW) } },
	[42] = { "connect", 0, { B(1, 2, R) } },
	[43] = { "accept", 0, { L(1, 2) } },
	[44] = { "sendto", 0, { B(1, 2, R), B(4, 5, R) } },
	[45] = { "recvfrom", 0, { B(1, 2, W), L(4, 5) } },
	[46] = { "sendmsg", 0, { { 0 } }, sp_sendmsg },
	[47] = { "recvmsg", 0, { { 0 } }, sp_recvmsg },
	[49] = { "bind", QUICK, { B(1, 2, R) } },
	[51] = { "getsockname", QUICK, { L(1, 2) } },
	[52] = { "getpeername", QUICK, { L(1, 2) } },
	[53] = { "socketpair", QUICK, { F(3, 2 * sizeof(int), W) } },
	[54] = { "setsockopt", QUICK, { B(3, 4, R) } },
	[55] = { "getsockopt", QUICK, { { 0 } }, sp_getsockopt },
	[56] = { "clone", 0, { F(2, sizeof(int), W) } }, /* parent_tid (CLONE_PARENT_SETTID) */
	[59] = { "execve", 0, { { 0 } }, sp_execve },
	[61] = { "wait4", 0, { { 0 } }, sp_wait4 },
	[63] = { "uname", QUICK, { F(0, sizeof(struct utsname), W) } },
	[65] = { "semop", 0, { BN(1, 2, 6, R) } },
	[66] = { "semctl", FL_SC_UNSIZED, { { 0 } } },
	[67] = { "shmdt", QUICK, { { 0 } } }, /* shmaddr: the segment to unmap, not memory read */
	[69] = { "msgsnd", 0, { { 0 } }, sp_msgsnd },
	[70] = { "msgrcv", 0, { { 0 } }, sp_msgrcv },
	[71] = { "msgctl", FL_SC_UNSIZED, { { 0 } } },
	[72] = { "fcntl", 0, { { 0 } }, sp_fcntl },
	[76] = { "truncate", QUICK, { S(0) } },
	[78] = { "getdents", QUICK, { B(1, 2, W) } },
	[79] = { "getcwd", QUICK, { B(0, 1, W) } },
	[80] = { "chdir", QUICK, { S(0) } },
	[82] = { "rename", QUICK, { S(0), S(1) } },
	[83] = { "mkdir", QUICK, { S(0) } },
	[84] = { "rmdir", QUICK, { S(0) } },
	[85] = { "creat", 0, { S(0) } },
	[86] = { "link", QUICK, { S(0), S(1) } },
	[87] = { "unlink", QUICK, { S(0) } },
	[88] = { "symlink", QUICK, { S(0), S(1) } },
	[89] = { "readlink", QUICK, { S(0), B(1, 2, W) } },
	[90] = { "chmod", QUICK, { S(0) } },
	[92] = { "chown", QUICK, { S(0) } },
	[94] = { "lchown", QUICK, { S(0) } },
	[96] = { "gettimeofday", QUICK, { F(0, TV, W), F(1, sizeof(struct timezone), W) } },
	[97] = { "getrlimit", QUICK, { F(1, RL, W) } },
	[98] = { "getrusage", QUICK, { F(1, RU, W) } },
	[99] = { "sysinfo", QUICK, { F(0, sizeof(struct sysinfo), W) } },
	[100] = { "times", QUICK, { F(0, sizeof(struct tms), W) } },
	[101] = { "ptrace", FL_SC_UNSIZED, { { 0 } } },
	[103] = { "syslog", 0, { B(1, 2, W) } },
	[115] = { "getgroups", QUICK, { BN(1, 0, sizeof(gid_t), W) } },
	[116] = { "setgroups", QUICK, { BN(1, 0, sizeof(gid_t), R) } },
	[118] = { "getresuid", QUICK, { F(0, 4, W), F(1, 4, W), F(2, 4, W) } },
	[120] = { "getresgid", QUICK, { F(0, 4, W), F(1, 4, W), F(2, 4, W) } },
	[125] = { "capget", QUICK, { F(0, 8, RW), F(1, 24, W) } },
	[126] = { "capset", QUICK, { F(0, 8, R), F(1, 24, R) } },
	[127] = { "rt_sigpending", QUICK, { B(0, 1, W) } },
	[128] = { "rt_sigtimedwait", 0, { B(0, 3, R), F(1, SI, W), F(2, TS, R) } },
	[129] = { "rt_sigqueueinfo", QUICK, { F(2, SI, R) } },
	[130] = { "rt_sigsuspend", 0, { B(0, 1, R) } },
	[131] = { "sigaltstack", QUICK, { F(0, sizeof(stack_t), R), F(1, sizeof(stack_t), W) } },
	[132] = { "utime", QUICK, { S(0), F(1, 16, R) } },
	[133] = { "mknod", QUICK, { S(0) } },
	[136] = { "ustat", QUICK, { F(1, 32, W) } },
	[137] = { "statfs", QUICK, { S(0), F(1, sizeof(struct statfs), W) } },
	[138] = { "fstatfs", QUICK, { F(1, sizeof(struct statfs), W) } },
	[139] = { "sysfs", QUICK, { S(1), F(2, 16, W) } }, /* option 1 reads a name, option 2 writes one */
	[142] = { "sched_setparam", QUICK, { F(1, sizeof(struct sched_param), R) } },
	[143] = { "sched_getparam", QUICK, { F(1, sizeof(struct sched_param), W) } },
	[144] = { "sched_setscheduler", QUICK, { F(2, sizeof(struct sched_param), R) } },
	[148] = { "sched_rr_get_interval", QUICK, { F(1, TS, W) } },
	[154] = { "modify_ldt", QUICK, { B(1, 2, RW) } },
	[155] = { "pivot_root", QUICK, { S(0), S(1) } },
	[157] = { "prctl", 0, { { 0 } }, sp_prctl },
	[158] = { "arch_prctl", QUICK, { { 0 } } }, /* ARCH_GET_FS/GS write a word: below */
	[159] = { "adjtimex", QUICK, { F(0, sizeof(struct timex), RW) } },
	[160] = { "setrlimit", QUICK, { F(1, RL, R) } },
	[161] = { "chroot", QUICK, { S(0) } },
	[163] = { "acct", QUICK, { S(0) } },
	[164] = { "settimeofday", QUICK, { F(0, TV, R), F(1, sizeof(struct timezone), R) } },
	[165] = { "mount", 0, { S(0), S(1), S(2) } }, /* data: a string or the file system's own */
	[166] = { "umount2", QUICK, { S(0) } },
	[167] = { "swapon", 0, { S(0) } },
	[168] = { "swapoff", 0, { S(0) } },
	[169] = { "reboot", QUICK, { { 0 } } }, /* arg: a string for LINUX_REBOOT_CMD_RESTART2 only, below */
	[170] = { "sethostname", QUICK, { B(0, 1, R) } },
	[171] = { "setdomainname", QUICK, { B(0, 1, R) } },
	[175] = { "init_module", 0, { B(0, 1, R), S(2) } },
	[176] = { "delete_module", 0, { S(0) } },
	[179] = { "quotactl", FL_SC_UNSIZED, { S(1) } },
	[188] = { "setxattr", QUICK, { S(0), S(1), B(2, 3, R) } },
	[189] = { "lsetxattr", QUICK, { S(0), S(1), B(2, 3, R) } },
	[190] = { "fsetxattr", QUICK, { S(1), B(2, 3, R) } },
	[191] = { "getxattr", QUICK, { S(0), S(1), B(2, 3, W) } },
	[192] = { "lgetxattr", QUICK, { S(0), S(1), B(2, 3, W) } },
	[193] = { "fgetxattr", QUICK, { S(1), B(2, 3, W) } },
	[194] = { "listxattr", QUICK, { S(0), B(1, 2, W) } },
	[195] = { "llistxattr", QUICK, { S(0), B(1, 2, W) } },
	[196] = { "flistxattr", QUICK, { B(1, 2, W) } },
	[197] = { "removexattr", QUICK, { S(0), S(1) } },
	[198] = { "lremovexattr", QUICK, { S(0), S(1) } },
	[199] = { "fremovexattr", QUICK, { S(1) } },
	[201] = { "time", QUICK, { F(0, sizeof(time_t), W) } },
	[202] = { "futex", 0, { { 0 } }, sp_futex },
	[203] = { "sched_setaffinity", QUICK, { B(2, 1, R) } },
	[204] = { "sched_getaffinity", QUICK, { B(2, 1, W) } },
	[206] = { "io_setup", QUICK, { F(1, sizeof(long), RW) } },
	[208] = { "io_getevents", 0, { BN(3, 2, 32, W), F(4, TS, R) } },
	[209] = { "io_submit", FL_SC_UNSIZED, { BN(2, 1, sizeof(void *), R) } },
	[210] = { "io_cancel", FL_SC_UNSIZED, { F(2, 32, W) } },
	[217] = { "getdents64", QUICK, { B(1, 2, W) } },
	[218] = { "set_tid_address", QUICK, { { 0 } } }, /* written when the thread exits: pins.c */
	[220] = { "semtimedop", 0, { BN(1, 2, 6, R), F(3, TS, R) } },
	[222] = { "timer_create", QUICK, { F(1, 64, R), F(2, sizeof(int), W) } },
	[223] = { "timer_settime", QUICK, { F(2, ITS, R), F(3, ITS, W) } },
	[224] = { "timer_gettime", QUICK, { F(1, ITS, W) } },
	[227] = { "clock_settime", QUICK, { F(1, TS, R) } },
	[228] = { "clock_gettime", QUICK, { F(1, TS, W) } },
	[229] = { "clock_getres", QUICK, { F(1, TS, W) } },
	[230] = { "clock_nanosleep", 0, { F(2, TS, R), F(3, TS, W) } },
	[232] = { "epoll_wait", 0, { BN(1, 2, sizeof(struct epoll_event), W) } },
	[233] = { "epoll_ctl", QUICK, { F(3, sizeof(struct epoll_event), R) } },
	[235] = { "utimes", QUICK, { S(0), F(1, 2 * TV, R) } },
	[237] = { "mbind", QUICK, { F(3, 128, R) } }, /* nodemask: maxnode bits, at most 1024 here */
	[238] = { "set_mempolicy", QUICK, { F(1, 128, R) } },
	[239] = { "get_mempolicy", QUICK, { F(0, sizeof(int), W), F(1, 128, W) } },
	[240] = { "mq_open", QUICK, { S(0), F(3, 64, R) } },
	[241] = { "mq_unlink", QUICK, { S(0) } },
	[242] = { "mq_timedsend", 0, { B(1, 2, R), F(4, TS, R) } },
	[243] = { "mq_timedreceive", 0, { B(1, 2, W), F(3, sizeof(unsigned), W), F(4, TS, R) } },
	[244] = { "mq_notify", QUICK, { F(1, 64, R) } },
	[245] = { "mq_getsetattr", QUICK, { F(1, 64, R), F(2, 64, W) } },
	[246] = { "kexec_load", FL_SC_UNSIZED, { { 0 } } },
	[247] = { "waitid", 0, { F(2, SI, W), F(4, RU, W) } },
	[248] = { "add_key", QUICK, { S(0), S(1), B(2, 3, R) } },
	[249] = { "request_key", QUICK, { S(0), S(1), S(2) } },
	[250] = { "keyctl", FL_SC_UNSIZED, { { 0 } } },
	[254] = { "inotify_add_watch", QUICK, { S(1) } },
	[256] = { "migrate_pages", QUICK, { F(2, 128, R), F(3, 128, R) } },
	[257] = { "openat", 0, { S(1) } },
	[258] = { "mkdirat", QUICK, { S(1) } },
	[259] = { "mknodat", QUICK, { S(1) } },
	[260] = { "fchownat", QUICK, { S(1) } },
	[261] = { "futimesat", QUICK, { S(1), F(2, 2 * TV, R) } },
	[262] = { "newfstatat", QUICK, { S(1), F(2, ST, W) } },
	[263] = { "unlinkat", QUICK, { S(1) } },
	[264] = { "renameat", QUICK, { S(1), S(3) } },
	[265] = { "linkat", QUICK, { S(1), S(3) } },
	[266] = { "symlinkat", QUICK, { S(0), S(2) } },
	[267] = { "readlinkat", QUICK, { S(1), B(2, 3, W) } },
	[268] = { "fchmodat", QUICK, { S(1) } },
	[269] = { "faccessat", QUICK, { S(1) } },
	[270] = { "pselect6", 0, { { 0 } }, sp_pselect6 },
	[271] = { "ppoll", 0, { BN(0, 1, sizeof(struct pollfd), RW), F(2, TS, RW), B(3, 4, R) } },
	[273] = { "set_robust_list", QUICK, { { 0 } } }, /* read when the thread exits: the descriptor is pinned */
	[274] = { "get_robust_list", QUICK, { F(1, sizeof(void *), W), F(2, sizeof(size_t), W) } },
	[275] = { "splice", 0, { F(1, sizeof(loff_t), RW), F(3, sizeof(loff_t), RW) } },
	[278] = { "vmsplice", 0, { V(1, 2, RW) } },
	[279] = { "move_pages", QUICK, { BN(2, 1, sizeof(void *), R), BN(3, 1, sizeof(int), R), BN(4, 1, sizeof(int), W) } },
	[280] = { "utimensat", QUICK, { S(1), F(2, 2 * TS, R) } },
	[281] = { "epoll_pwait", 0, { BN(1, 2, sizeof(struct epoll_event), W), B(4, 5, R) } },
	[282] = { "signalfd", QUICK, { B(1, 2, R) } },
	[286] = { "timerfd_settime", QUICK, { F(2, ITS, R), F(3, ITS, W) } },
	[287] = { "timerfd_gettime", QUICK, { F(1, ITS, W) } },
	[288] = { "accept4", 0, { L(1, 2) } },
	[289] = { "signalfd4", QUICK, { B(1, 2, R) } },
	[293] = { "pipe2", QUICK, { F(0, 2 * sizeof(int), W) } },
	[295] = { "preadv", 0, { V(1, 2, W) } },
	[296] = { "pwritev", 0, { V(1, 2, R) } },
	[297] = { "rt_tgsigqueueinfo", QUICK, { F(3, SI, R) } },
	[298] = { "perf_event_open", FL_SC_UNSIZED, { F(0, 128, R) } },
	[299] = { "recvmmsg", 0, { { 0 } }, sp_recvmmsg },
	[301] = { "fanotify_mark", QUICK, { S(4) } },
	[302] = { "prlimit64", QUICK, { F(2, RL, R), F(3, RL, W) } },
	[303] = { "name_to_handle_at", QUICK, { S(1), F(2, 8 + 128, RW), F(3, sizeof(int), W) } },
	[304] = { "open_by_handle_at", 0, { F(1, 8 + 128, R) } },
	[305] = { "clock_adjtime", QUICK, { F(1, sizeof(struct timex), RW) } },
	[307] = { "sendmmsg", 0, { { 0 } }, sp_sendmmsg },
	[309] = { "getcpu", QUICK, { F(0, sizeof(unsigned), W), F(1, sizeof(unsigned), W) } },
	[310] = { "process_vm_readv", 0, { V(1, 2, W), BN(3, 4, sizeof(struct iovec), R) } },
	[311] = { "process_vm_writev", 0, { V(1, 2, R), BN(3, 4, sizeof(struct iovec), R) } },
	[313] = { "finit_module", 0, { S(1) } },
	[314] = { "sched_setattr", QUICK, { { 0 } }, sp_sched_setattr },
	[315] = { "sched_getattr", QUICK, { B(1, 2, W) } },
	[316] = { "renameat2", QUICK, { S(1), S(3) } },
	[317] = { "seccomp", QUICK, { F(2, 16, R) } }, /* a struct sock_fprog, whose filter is read too: below */
	[318] = { "getrandom", 0, { B(0, 1, W) } },
	[319] = { "memfd_create", QUICK, { S(0) } },
	[320] = { "kexec_file_load", FL_SC_UNSIZED, { B(3, 2, R) } },
	[321] = { "bpf", FL_SC_UNSIZED, { B(1, 2, RW) } },
	[322] = { "execveat", 0, { { 0 } }, sp_execveat },
	[326] = { "copy_file_range", 0, { F(1, sizeof(loff_t), RW), F(3, sizeof(loff_t), RW) } },
	[327] = { "preadv2", 0, { V(1, 2, W) } },
	[328] = { "pwritev2", 0, { V(1, 2, R) } },
	[332] = { "statx", QUICK, { S(1), F(4, 256, W) } },
	[333] = { "io_pgetevents", 0, { BN(3, 2, 32, W), F(4, TS, R), F(5, 16, R) } },
	[334] = { "rseq", QUICK, { { 0 } } }, /* written on every return to user space: GLIBC_TUNABLES rseq=0 (README) */
	[424] = { "pidfd_send_signal", QUICK, { F(2, SI, R) } },
	[425] = { "io_uring_setup", FL_SC_REFUSE, { { 0 } } },
	[426] = { "io_uring_enter", FL_SC_REFUSE, { { 0 } } },
	[427] = { "io_uring_register", FL_SC_REFUSE, { { 0 } } },
	[428] = { "open_tree", QUICK, { S(1) } },
	[429] = { "move_mount", QUICK, { S(1), S(3) } },
	[430] = { "fsopen", QUICK, { S(0) } },
	[431] = { "fsconfig", FL_SC_UNSIZED, { S(2) } },
	[433] = { "fspick", QUICK, { S(1) } },
	[435] = { "clone3", 0, { { 0 } }, sp_clone3 },
	[437] = { "openat2", 0, { S(1), B(2, 3, R) } },
	[439] = { "faccessat2", QUICK, { S(1) } },
	[440] = { "process_madvise", QUICK, { BN(1, 2, sizeof(struct iovec), R) } },
	[441] = { "epoll_pwait2", 0, { BN(1, 2, sizeof(struct epoll_event), W), F(3, TS, R), B(4, 5, R) } },
	[442] = { "mount_setattr", QUICK, { S(1), B(3, 4, R) } },
	[443] = { "quotactl_fd", FL_SC_UNSIZED, { { 0 } } },
	[444] = { "landlock_create_ruleset", QUICK, { B(0, 1, R) } },
	[445] = { "landlock_add_rule", FL_SC_UNSIZED, { { 0 } } },
	[449] = { "futex_waitv", 0, { BN(0, 1, 24, R), F(3, TS, R) } },
	[451] = { "cachestat", QUICK, { F(1, 16, R), F(2, 40, W) } },
	[452] = { "fchmodat2", QUICK, { S(1) } },
	[454] = { "futex_wake", QUICK, { { 0 } } }, /* the word is hashed, not read (private) */
	[455] = { "futex_wait", 0, { F(0, sizeof(uint32_t), R), F(4, TS, R) } },
	[456] = { "futex_requeue", 0, { BN(0, 3, 24, R) } },
	[457] = { "statmount", QUICK, { F(0, 24, R), B(1, 2, W) } },
	[458] = { "listmount", QUICK, { F(0, 24, R), BN(1, 2, sizeof(uint64_t), W) } },
	[459] = { "lsm_get_self_attr", QUICK, { F(2, sizeof(uint32_t), RW) } }, /* ctx: *size bytes, below */
	[460] = { "lsm_set_self_attr", FL_SC_UNSIZED, { { 0 } } },
	[461] = { "lsm_list_modules", QUICK, { F(1, sizeof(uint32_t), RW) } },
	[463] = { "setxattrat", QUICK, { { 0 } }, sp_setxattrat },
	[464] = { "getxattrat", QUICK, { { 0 } }, sp_getxattrat },
	[465] = { "listxattrat", QUICK, { S(1), B(3, 4, W) } },
	[466] = { "removexattrat", QUICK, { S(1), S(3) } },
	[467] = { "open_tree_attr", QUICK, { S(1), B(3, 4, R) } },
	[468] = { "file_getattr", QUICK, { S(1), B(2, 3, W) } },
	[469] = { "file_setattr", QUICK, { S(1), B(2, 3, R) } },
};

#define TABLE_N (sizeof(table) / sizeof(table[0]))

const char *fl_gate_name(long nr)
{
	return nr >= 0 && (size_t)nr < TABLE_N ? table[nr].name : NULL;
}

/* calls with no pointer in the table's terms, by number: what they read beyond it */
static void extras(long nr, const long *a, struct regions *o)
{
	switch (nr) {
	case 27: /* mincore: one byte a page */
		add(o, a[2], ((size_t)a[1] + 4095) / 4096, W);
		break;
	case 158: /* arch_prctl ARCH_GET_FS, ARCH_GET_GS */
		if (a[0] == 0x1003 || a[0] == 0x1004)
			add(o, a[1], sizeof(long), W);
		break;
	case 169: /* reboot LINUX_REBOOT_CMD_RESTART2 */
		if ((unsigned long)a[2] == 0xA1B2C3D4UL)
			add_string(o, a[3]);
		break;
	case 317: /* seccomp SECCOMP_SET_MODE_FILTER: the filter's instructions */
		if (a[0] == 1 && a[2])
			add(o, ((const long *)a[2])[1], (size_t)(*(const volatile unsigned short *)a[2]) * 8, R);
		break;
	}
}

uint32_t fl_gate_flags(long nr)
{
	return nr >= 0 && (size_t)nr < TABLE_N && table[nr].name ? table[nr].flags : 0;
}

uint32_t fl_gate_regions(long nr, const long a[6], struct fl_gate_region *out, uint32_t *flags)
{
	*flags = 0;
	if (nr < 0 || (size_t)nr >= TABLE_N || !table[nr].name)
		return 0;
	const struct entry *e = &table[nr];
	*flags = e->flags;
	if (e->flags & FL_SC_REFUSE)
		return 0;
	struct regions o = { out, 0 };
	for (int i = 0; i < 5 && e->s[i].kind; i++) {
		const struct spec *s = &e->s[i];
		switch (s->kind) {
		case K_BUF: add(&o, a[s->arg], (size_t)a[s->len_arg], s->dir); break;
		case K_BUFN:
			if (a[s->len_arg] > 0 && (size_t)a[s->len_arg] < (1UL << 32))
				add(&o, a[s->arg], (size_t)a[s->len_arg] * s->size, s->dir);
			break;
		case K_FIX: add(&o, a[s->arg], s->size, s->dir); break;
		case K_STR: add_string(&o, a[s->arg]); break;
		case K_IOV: add_iov(&o, a[s->arg], a[s->len_arg], s->dir); break;
		case K_SOCKLEN:
			if (a[s->len_arg]) {
				add(&o, a[s->len_arg], sizeof(socklen_t), RW);
				add(&o, a[s->arg], *(const volatile socklen_t *)a[s->len_arg], W);
			}
			break;
		case K_ARGV: add_argv(&o, a[s->arg]); break;
		}
	}
	if (e->fn)
		e->fn(a, &o);
	extras(nr, a, &o);
	return o.n;
}
