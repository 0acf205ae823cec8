/*
 * program_view: what a program can ask the kernel about itself that the agent has a hand in,
 * printed so that a traced run's output can be compared with a native one's (ProgramViewTest):
 * the number its first open gets, its resource limits, its signal mask and actions as it set
 * them, its alternate signal stack, its transparent-huge-page setting, which of its pages are
 * resident (mincore), its coredump_filter, and a few prctl and process settings. Pages it wrote
 * long ago (64 of them, then 2,048 others) are away from their addresses under the engines.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096

static void on_usr1(int sig)
{
	(void)sig;
}

static void mask(const char *what)
{
	sigset_t m;
	sigprocmask(SIG_BLOCK, NULL, &m);
	printf("%s:", what);
	for (int s = 1; s < 65; s++)
		if (sigismember(&m, s) == 1)
			printf(" %d", s);
	printf("\n");
}

static void actions(const char *what)
{
	printf("%s:", what);
	for (int s = 1; s < 65; s++) {
		struct sigaction a;
		if (sigaction(s, NULL, &a) != 0)
			continue;
		if (a.sa_handler == SIG_DFL && !a.sa_flags)
			continue;
		printf(" %d=%s/%x/", s, a.sa_handler == SIG_IGN ? "ign" : a.sa_handler == SIG_DFL ? "dfl" : "handler",
		       (unsigned)a.sa_flags);
		for (int k = 1; k < 65; k++)
			if (sigismember(&a.sa_mask, k) == 1)
				printf("%d,", k);
	}
	printf("\n");
}

int main(void)
{
	int fd = open("/dev/null", O_RDONLY);
	printf("first fd %d\n", fd);
	for (int r = 0; r < RLIM_NLIMITS; r++) {
		struct rlimit l;
		getrlimit(r, &l);
		printf("rlimit %d %lld %lld\n", r, (long long)l.rlim_cur, (long long)l.rlim_max);
	}
	mask("mask at start");
	actions("actions at start");
	struct sigaction usr1;
	memset(&usr1, 0, sizeof(usr1));
	usr1.sa_handler = on_usr1;
	usr1.sa_flags = SA_RESTART;
	sigaddset(&usr1.sa_mask, SIGSYS);
	sigaddset(&usr1.sa_mask, SIGTERM);
	sigaction(SIGUSR1, &usr1, NULL);
	signal(SIGABRT, SIG_IGN);
	signal(SIGQUIT, on_usr1);
	actions("actions set");
	signal(SIGABRT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	actions("actions back");
	sigset_t b;
	sigemptyset(&b);
	sigaddset(&b, SIGSYS);
	sigaddset(&b, SIGSEGV);
	sigaddset(&b, SIGBUS);
	sigaddset(&b, SIGUSR2);
	sigprocmask(SIG_BLOCK, &b, NULL);
	mask("mask blocking SYS SEGV BUS USR2");
	sigprocmask(SIG_UNBLOCK, &b, NULL);
	mask("mask after");

	stack_t ss = { .ss_sp = malloc(1 << 16), .ss_size = 1 << 16, .ss_flags = 0 }, got;
	sigaltstack(NULL, &got);
	printf("altstack at start: flags %d size %zu\n", got.ss_flags, got.ss_size);
	sigaltstack(&ss, NULL);
	sigaltstack(NULL, &got);
	printf("altstack set: ours %d size %zu flags %d\n", got.ss_sp == ss.ss_sp, got.ss_size, got.ss_flags);
	stack_t off = { .ss_flags = SS_DISABLE };
	sigaltstack(&off, NULL);
	sigaltstack(NULL, &got);
	printf("altstack disabled: flags %d\n", got.ss_flags);

	printf("thp_disable %d", prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	printf(" set %d", prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));
	prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
	printf(" cleared %d\n", prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));

	char *early = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *never = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *churn = mmap(NULL, 2048 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int p = 0; p < 64; p++)
		early[p * PAGE] = 1;
	for (int p = 0; p < 2048; p++)
		churn[p * PAGE] = 1;
	unsigned char v[64];
	int resident = 0;
	mincore(early, 64 * PAGE, v);
	for (int i = 0; i < 64; i++)
		resident += v[i] & 1;
	printf("mincore written long ago %d/64", resident);
	resident = 0;
	mincore(never, 16 * PAGE, v);
	for (int i = 0; i < 16; i++)
		resident += v[i] & 1;
	printf(", never written %d/16\n", resident);

	char line[64] = "";
	FILE *f = fopen("/proc/self/coredump_filter", "r");
	if (f && fgets(line, sizeof(line), f))
		printf("coredump_filter %s", line);
	if (f)
		fclose(f);
	int pdeath = 0;
	prctl(PR_GET_PDEATHSIG, &pdeath);
	char name[32] = "";
	prctl(PR_GET_NAME, name);
	mode_t um = umask(0);
	umask(um);
	cpu_set_t cpus;
	sched_getaffinity(0, sizeof(cpus), &cpus);
	printf("dumpable %d no_new_privs %d pdeathsig %d timerslack %d name %s umask %o cpus %d nice %d\n",
	       prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), pdeath,
	       prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), name, um, CPU_COUNT(&cpus), getpriority(PRIO_PROCESS, 0));
	return 0;
}
