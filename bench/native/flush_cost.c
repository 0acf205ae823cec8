/*
 * flush_cost: what a TLB-shootdown interrupt costs the CPU that receives it. A thread pinned to
 * CPU 1 spins, counting loop iterations for SECS seconds, while a thread pinned to CPU 0 moves
 * one page of the same process out to a parking page and back (UFFDIO_MOVE) RATE times a
 * second. Each move clears a page-table entry of a process running on both CPUs, so the kernel
 * flushes CPU 1's TLB by interrupt. Compare the spin rate with RATE 0 (BENCHMARKS.md, "Per-CPU
 * handling under record").
 *
 *   flush_cost RATE [secs=1]     prints moves made and thousands of iterations a second
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <uffd_move.h> /* native-shims/include */

#define PAGE 4096UL

static volatile int stop;
static volatile long moves;
static int uffd;
static char *home, *park;
static long rate;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static void move(char *dst, char *src)
{
	struct uffdio_move m = { .dst = (uintptr_t)dst, .src = (uintptr_t)src, .len = PAGE, .mode = UFFDIO_MOVE_MODE_DONTWAKE };
	if (ioctl(uffd, UFFDIO_MOVE, &m) < 0) {
		perror("UFFDIO_MOVE");
		exit(1);
	}
}

static void *mover(void *arg)
{
	(void)arg;
	pin(0);
	double next = now();
	while (!stop) {
		if (!rate) {
			usleep(1000);
			continue;
		}
		move(park, home);
		move(home, park);
		moves += 2;
		next += 2.0 / (double)rate;
		double wait = next - now();
		if (wait > 0) {
			struct timespec ts = { 0, (long)(wait * 1e9) };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: flush_cost RATE [secs]\n");
		return 2;
	}
	rate = atol(argv[1]);
	double secs = argc > 2 ? atof(argv[2]) : 1.0;
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_MOVE };
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) < 0) {
		perror("userfaultfd");
		return 1;
	}
	home = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	park = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (home == MAP_FAILED || park == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	home[0] = 1;
	/* UFFDIO_MOVE needs its destination registered: both pages are */
	struct uffdio_register reg = { .range = { (uintptr_t)home, PAGE }, .mode = UFFDIO_REGISTER_MODE_MISSING };
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
		return perror("register"), 1;
	reg.range.start = (uintptr_t)park;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
		return perror("register"), 1;
	pthread_t t;
	pthread_create(&t, NULL, mover, NULL);
	pin(1);
	usleep(20000);
	long before = moves;
	double start = now();
	unsigned long iterations = 0;
	while (now() - start < secs) {
		for (volatile int i = 0; i < 1000; i++)
			;
		iterations++;
	}
	long made = moves - before;
	stop = 1;
	pthread_join(t, NULL);
	printf("flush_cost rate=%ld moves=%ld spin_kiter_per_s=%.1f\n", rate, made, (double)iterations / secs / 1000);
	return 0;
}
