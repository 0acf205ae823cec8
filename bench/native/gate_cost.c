/*
 * gate_cost.c: what one system call costs a traced program (issue 27; BENCHMARKS.md,
 * "System-call gate"): N calls each of a cheap call (getppid), a 4 KiB pread into a heap buffer
 * (traced memory, resident: the cost of the gate, not of faults) and a futex wake with no waiter,
 * timed with CLOCK_MONOTONIC and the thread's CPU clock; prints ns a call, the median of 5 rounds. bench/gate-bench.sh runs
 * it natively, under the gate, and under the libc interposition the gate replaced.
 *
 *   gcc -O2 -o gate_cost gate_cost.c && ./gate_cost [calls=20000]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* the calling thread's CPU time: what the call and the agent's handler cost this thread, without
 * what the recorder's drain of the events costs another CPU (wall time has both on 2 cores) */
static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static uint32_t word;
static char *buf;
static int fd;

static void call(int which)
{
	if (which == 0)
		getppid();
	else if (which == 1) {
		if (pread(fd, buf, 4096, 0) != 4096)
			exit(2);
	} else
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	const char *names[] = { "getppid", "pread 4 KiB", "futex wake" };
	buf = malloc(8192);
	memset(buf, 1, 8192);
	char path[] = "/tmp/gate_cost_XXXXXX";
	fd = mkstemp(path);
	if (fd < 0 || write(fd, buf, 4096) != 4096)
		return 1;
	unlink(path);
	for (int which = 0; which < 3; which++) {
		double t[5], c[5];
		for (int r = 0; r < 5; r++) {
			double s = now(), cs = thread_cpu();
			for (long i = 0; i < n; i++)
				call(which);
			t[r] = (now() - s) / n * 1e9;
			c[r] = (thread_cpu() - cs) / n * 1e9;
		}
		qsort(t, 5, sizeof(t[0]), cmp);
		qsort(c, 5, sizeof(c[0]), cmp);
		printf("%s: %.0f ns (thread CPU %.0f ns)\n", names[which], t[2], c[2]);
	}
	return 0;
}
