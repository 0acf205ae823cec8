/*
 * steady_churn: a program that runs for a given time at a steady, moderate page-reference rate,
 * for long recordings (bench/longrun.sh, issue 24). It touches a working set larger than the
 * default EVMS (512 pages) at a fixed rate with sleeps, so that the recording grows steadily
 * without starving the machine, and exercises what a long recording must survive: several
 * threads, short threads coming and going, mmap/munmap churn, and forked children that exit, so
 * that the recorder gives their slots back and later children take them again (with a fork
 * every 20 s an hour forks 180 children, more than the 64 slots `record` has by default).
 *
 *   steady_churn [SECONDS=3600] [RATE=1500] [PAGES=2048] [THREADS=3] [FORK_EVERY=20]
 *
 * RATE: page touches per second over all worker threads (each a write of one cache line of a
 * page; the threads sweep their own shares of the PAGES-page working set in order, so under a
 * FIFO EVMS smaller than PAGES every touch faults and is recorded). Every second each worker
 * also maps 16 to 256 pages of its own, touches them once and unmaps them. Every 10 s the main
 * thread starts a short thread that touches 64 pages of a block it mallocs and exits. Every
 * FORK_EVERY seconds (0: never) it forks a child that sweeps its copy of the working set for
 * 3 s at a tenth of the rate and exits; the parent reaps it. Prints one line at the end.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define BATCH_NS 100000000L /* a worker touches its share of a second in ten batches */

static long seconds, rate, pages, threads;
static uint8_t *set;
static volatile uint64_t touches[64];

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t, .tv_nsec = (long)((t - (time_t)t) * 1e9) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

/* Sweeps pages [first, first + count) of base at per_second touches a second until end. */
static uint64_t sweep(uint8_t *base, long first, long count, long per_second, double end, long *cursor)
{
	long per_batch = per_second / 10 > 0 ? per_second / 10 : 1;
	uint64_t done = 0;
	double next = now();
	while (now() < end) {
		for (long i = 0; i < per_batch; i++) {
			long p = first + (*cursor)++ % count;
			base[p * PAGE + (*cursor % 64) * 64] += 1;
			done++;
		}
		next += BATCH_NS / 1e9;
		sleep_until(next);
	}
	return done;
}

static void *worker(void *arg)
{
	long w = (long)arg;
	long share = pages / threads, per_second = rate / threads;
	long cursor = 0;
	double end = now() + seconds;
	unsigned seed = (unsigned)w + 1;
	while (now() < end) {
		double second = now() + 1.0;
		touches[w] += sweep(set, w * share, share, per_second, second < end ? second : end, &cursor);
		/* mmap/munmap churn: a fresh mapping each second, touched once, unmapped */
		long n = 16 + rand_r(&seed) % 241;
		uint8_t *m = mmap(NULL, (size_t)n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			perror("steady_churn: mmap");
			exit(1);
		}
		for (long p = 0; p < n; p++)
			m[p * PAGE] = (uint8_t)p;
		munmap(m, (size_t)n * PAGE);
	}
	return NULL;
}

static void *short_thread(void *arg)
{
	(void)arg;
	uint8_t *b = malloc(64 * PAGE);
	if (b == NULL)
		return NULL;
	for (int p = 0; p < 64; p++)
		b[p * PAGE] = (uint8_t)p;
	free(b);
	return NULL;
}

static void child(void)
{
	long cursor = 0;
	sweep(set, 0, pages, rate / 10 > 0 ? rate / 10 : 1, now() + 3.0, &cursor);
	_exit(0);
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atol(argv[1]) : 3600;
	rate = argc > 2 ? atol(argv[2]) : 1500;
	pages = argc > 3 ? atol(argv[3]) : 2048;
	threads = argc > 4 ? atol(argv[4]) : 3;
	long fork_every = argc > 5 ? atol(argv[5]) : 20;
	if (seconds < 1 || rate < 1 || pages < threads || threads < 1 || threads > 64 || fork_every < 0) {
		fprintf(stderr, "usage: steady_churn [SECONDS>=1] [RATE>=1] [PAGES>=THREADS] [THREADS 1..64] [FORK_EVERY>=0]\n");
		return 2;
	}
	set = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (set == MAP_FAILED) {
		perror("steady_churn: mmap");
		return 1;
	}
	memset(set, 1, (size_t)pages * PAGE);
	pthread_t t[64];
	for (long w = 0; w < threads; w++)
		pthread_create(&t[w], NULL, worker, (void *)w);
	double start = now(), end = start + seconds;
	long forks = 0, shorts = 0;
	for (long tick = 1; start + tick < end; tick++) {
		sleep_until(start + tick);
		if (tick % 10 == 0) {
			pthread_t s;
			if (pthread_create(&s, NULL, short_thread, NULL) == 0) {
				pthread_join(s, NULL);
				shorts++;
			}
		}
		if (fork_every > 0 && tick % fork_every == 0) {
			pid_t pid = fork();
			if (pid == 0)
				child();
			if (pid > 0)
				forks++;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	for (long w = 0; w < threads; w++)
		pthread_join(t[w], NULL);
	while (wait(NULL) > 0)
		;
	uint64_t all = 0;
	for (long w = 0; w < threads; w++)
		all += touches[w];
	printf("steady_churn seconds=%ld rate=%ld pages=%ld threads=%ld forks=%ld short_threads=%ld touches=%llu\n",
	       seconds, rate, pages, threads, forks, shorts, (unsigned long long)all);
	return 0;
}
