/*
 * gate_probe.c: the two ways a thread can see its own system calls before the kernel runs them,
 * measured against each other on the same machine (issue 27; BENCHMARKS.md, "System-call gate"):
 *   - Syscall User Dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH, Linux 5.11): every system call
 *     made outside an allowed range raises SIGSYS, whose handler re-issues it from the range;
 *   - seccomp SECCOMP_RET_TRAP with a filter on the system-call number and the instruction
 *     pointer: only the chosen calls made outside the range raise SIGSYS.
 * Rows, each the median of 5 rounds of N calls: a call neither traps (getppid, no filter), the same
 * call under a seccomp filter that does not trap it, a trapped call re-issued by the handler
 * (SUD, seccomp). It also says whether Syscall User Dispatch survives pthread_create, fork and
 * exec (the agent's thread-start hook depends on it). The seccomp part runs last, in a child:
 * a filter cannot be removed.
 *
 *   gcc -O2 -pthread -o gate_probe gate_probe.c && ./gate_probe [calls=200000]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#define SYSCALL_DISPATCH_FILTER_ALLOW 0
#define SYSCALL_DISPATCH_FILTER_BLOCK 1
#endif
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2
#endif

/* the allowed range: a system-call stub and a signal restorer, nothing else */
extern char gate_start[], gate_end[];
long gate_syscall6(long nr, long a, long b, long c, long d, long e, long f);
void gate_restorer(void);
__asm__(".text\n.p2align 12\n.globl gate_start\ngate_start:\n"
	".globl gate_syscall6\ngate_syscall6:\n"
	"  mov %rdi, %rax\n  mov %rsi, %rdi\n  mov %rdx, %rsi\n  mov %rcx, %rdx\n"
	"  mov %r8, %r10\n  mov %r9, %r8\n  mov 8(%rsp), %r9\n  syscall\n  ret\n"
	".globl gate_restorer\ngate_restorer:\n  mov $15, %rax\n  syscall\n  hlt\n"
	".globl gate_end\ngate_end:\n");

static volatile char selector = SYSCALL_DISPATCH_FILTER_ALLOW;
static volatile long trapped;

static void on_sigsys(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	trapped++;
	g[REG_RAX] = gate_syscall6(g[REG_RAX], g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9]);
}

/* the handler returns through gate_restorer, in the allowed range (glibc's is not) */
struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static void install(void)
{
	struct kernel_sigaction ka = { (void *)on_sigsys, SA_SIGINFO | 0x04000000 /* SA_RESTORER */, (void *)gate_restorer, 0 };
	if (syscall(SYS_rt_sigaction, SIGSYS, &ka, NULL, 8) != 0) {
		perror("rt_sigaction");
		exit(1);
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* median over 5 rounds of n raw getppid calls, in ns a call; checks every answer */
static double rounds(long n)
{
	double t[5];
	pid_t pp = getppid();
	for (int r = 0; r < 5; r++) {
		double s = now();
		for (long i = 0; i < n; i++)
			if (syscall(SYS_getppid) != pp) {
				fprintf(stderr, "wrong answer\n");
				exit(1);
			}
		t[r] = (now() - s) / n * 1e9;
	}
	qsort(t, 5, sizeof(t[0]), cmp);
	return t[2];
}

static int sud_on(void)
{
	return prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, (unsigned long)gate_start,
		     (unsigned long)(gate_end - gate_start), &selector);
}

/* the new thread arms the shared selector itself: a clone trapped and re-issued from the handler
 * would start the child in the handler's stub */
static void *thread_probe(void *p)
{
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	long before = trapped;
	syscall(SYS_getppid);
	*(long *)p = trapped - before;
	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	if (argc > 2 && !strcmp(argv[2], "exec-child")) { /* exec'd: SUD would kill us at once */
		printf("exec: the new image runs (dispatch cleared by exec)\n");
		return 0;
	}
	install();
	double plain = rounds(n);
	if (sud_on() != 0) {
		perror("PR_SET_SYSCALL_USER_DISPATCH");
		return 1;
	}
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	long before = trapped;
	double sud = rounds(n);
	long caught = trapped - before;
	/* inheritance: a thread, a fork child, an exec */
	long in_thread_block = -1;
	pthread_t th;
	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	pthread_create(&th, NULL, thread_probe, &in_thread_block);
	pthread_join(th, NULL);
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	pid_t c = fork();
	if (c == 0) {
		long b = trapped;
		syscall(SYS_getppid);
		_exit(trapped - b ? 3 : 4);
	}
	int st;
	waitpid(c, &st, 0);
	selector = SYSCALL_DISPATCH_FILTER_ALLOW;
	printf("calls a round: %ld; SUD trapped %ld of %ld\n", n, caught, 5 * n);
	printf("pthread_create: the new thread's call %s\n", in_thread_block > 0 ? "trapped (inherited)" : "did not trap (not inherited)");
	printf("fork: the child's call %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 3 ? "trapped (inherited)" :
	       WIFEXITED(st) && WEXITSTATUS(st) == 4 ? "did not trap (not inherited)" : "killed the child");
	fflush(stdout);
	c = fork();
	if (c == 0) {
		sud_on(); /* not inherited by fork (above): armed again in the child */
		selector = SYSCALL_DISPATCH_FILTER_BLOCK;
		char num[32];
		snprintf(num, sizeof(num), "%ld", n);
		/* execve from the allowed range: glibc's would trap, and the handler re-issues it */
		char *args[] = { argv[0], num, "exec-child", NULL };
		gate_syscall6(SYS_execve, (long)"/proc/self/exe", (long)args, (long)environ, 0, 0, 0);
		_exit(5);
	}
	waitpid(c, &st, 0);
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		printf("exec: the new image died (status %d)\n", st);
	prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0);

	/* seccomp, in a child: trap getppid outside the range, or trap only getuid (not called) */
	for (int mode = 0; mode < 2; mode++) {
		fflush(stdout);
		c = fork();
		if (c == 0) {
			uint64_t s = (uint64_t)gate_start, e = (uint64_t)gate_end;
			int nr = mode == 0 ? SYS_getuid : SYS_getppid;
			/* allow when nr != N, or when the instruction pointer lies in [s, e) (one page here:
			 * the high word equal, the low word in range) */
			struct sock_filter f[] = {
				BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
				BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 6),
				BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer) + 4),
				BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(s >> 32), 0, 3),
				BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
				BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)s, 0, 1),
				BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)e, 0, 2),
				BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
				BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
				BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			};
			struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
				perror("seccomp");
				_exit(1);
			}
			long b = trapped;
			double t = rounds(n);
			printf("seccomp, %s: %.0f ns a call (%ld trapped)\n",
			       mode == 0 ? "filter present, call not trapped" : "call trapped and re-issued", t, trapped - b);
			fflush(stdout);
			_exit(0);
		}
		waitpid(c, &st, 0);
	}
	printf("plain getppid: %.0f ns a call\n", plain);
	printf("SUD, call trapped and re-issued: %.0f ns a call\n", sud);
	return 0;
}
