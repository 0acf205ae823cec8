/*
 * threads_script: threads resolving faults at once, for the exactness and race tests of faults
 * resolved without the agent lock (issue 38). Maps one region of PAGES private anonymous pages at
 * a fixed address (0x7e0000000000), writes a pattern into every page, registers it with
 * faultline_trace_range (when the agent is loaded), then runs its mode:
 *
 *   threads_script random THREADS PAGES REFS
 *       every thread makes REFS references of its own pseudo-random sequence over the whole
 *       region (one in four a write of a byte that its thread owns on the page, so that writes
 *       never race), all threads at once
 *   threads_script random-calls THREADS PAGES REFS
 *       as random, and one reference in eight is a system call's instead: the thread writes its
 *       byte into a pipe of its own and reads it back into place (under the in-thread engines
 *       the system-call gate holds and releases the page beside the other threads' faults)
 *   threads_script evict-during-fault PAGES       (EVMS PAGES / 4 or less; page 0 paused)
 *       thread A reads page 0; 100 ms later thread B reads every other page twice over, which
 *       lets page 0 go (FIFO) while A's fault is held open; then A reads page 0 again
 *   threads_script same-page PAGES                (page 0 paused)
 *       thread A reads page 0; 100 ms later thread B reads page 0 too
 *   threads_script unmap-during-fault PAGES       (page 0 paused)
 *       thread A reads page 0; 100 ms later thread B unmaps the region's last page
 *   threads_script fork-during-fault PAGES        (page 0 paused)
 *       thread A reads page 0; 100 ms later thread B forks a child that checks every page's
 *       pattern and exits 0 if all is there
 *
 * A test pauses the fault that page 0's first reference makes (FAULTLINE_TEST_SHARED_PAUSE), so
 * that thread B's work falls inside it. B waits for A, and the main thread for both, with no
 * system call (flags, and the vDSO's clock): a system call's memory is held under the agent lock,
 * which waits for A's fault and holds up B's faults meanwhile (sched_yield takes no memory: the
 * gate holds nothing for it). Afterwards the main thread reads 2 * PAGES fresh pages of
 * a second region (so that nothing of the first stays in any EVMS of that size or less) and then
 * page 0 once more: its reference must be a record. Prints "checksum N" over the first region
 * (as natively), and "page0 ADDRESS".
 * Every access goes through a volatile pointer.
 */
#define _GNU_SOURCE
#include <faultline.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define BASE ((void *)0x7e0000000000UL)
#define MAX_THREADS 64

static volatile uint8_t *region;
static long pages;
static long refs;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO's: no system call */
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static volatile int a_started, b_waiting, done;

static uint8_t pattern(long page, long byte)
{
	return (uint8_t)(page * 31 + byte * 7 + 1);
}

struct worker {
	pthread_t th;
	long index;
	uint64_t sum;
	int pipe[2]; /* random-calls: its own pipe, else -1 */
};

static void *random_refs(void *arg)
{
	struct worker *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(w->index + 1), sum = 0;
	for (long i = 0; i < refs; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		long page = (long)((x >> 8) % (uint64_t)pages);
		/* a byte of its own on every page: writes of different threads never meet */
		volatile uint8_t *b = region + page * PAGE + 64 + (uint64_t)w->index;
		if (w->pipe[0] >= 0 && (x & 7) == 1) {
			if (write(w->pipe[1], (const void *)b, 1) != 1 || read(w->pipe[0], (void *)b, 1) != 1)
				abort();
			sum += *b;
		} else if ((x & 3) == 0)
			*b = (uint8_t)(*b + 1);
		else
			sum += *b;
	}
	w->sum = sum;
	return NULL;
}

static uint64_t checksum(void)
{
	uint64_t sum = 0;
	for (long p = 0; p < pages; p++)
		for (long b = 0; b < 256; b++)
			sum = sum * 1099511628211ULL + region[p * PAGE + (unsigned long)b];
	return sum;
}

static const char *mode;

static void *thread_a(void *arg)
{
	(void)arg;
	while (!b_waiting)
		sched_yield();
	/* the agent takes in both threads' starts first: their notices take the agent lock, which
	 * would wait for the paused fault and send B's fault to the lock's path behind it */
	for (uint64_t t0 = now_ms(); now_ms() - t0 < 50;)
		sched_yield();
	a_started = 1;
	uint64_t sum = region[0];
	if (!strcmp(mode, "evict-during-fault")) {
		sleep_ms(300); /* B is done: page 0 left the set while this thread's fault was open */
		sum += region[0];
	}
	__atomic_add_fetch(&done, 1, __ATOMIC_RELEASE);
	return (void *)(uintptr_t)sum;
}

static int child_checks(void)
{
	for (long p = 0; p < pages - 1; p++)
		for (long b = 0; b < 64; b++)
			if (region[p * PAGE + (unsigned long)b] != pattern(p, b))
				return 1;
	return 0;
}

static void *thread_b(void *arg)
{
	(void)arg;
	b_waiting = 1;
	while (!a_started)
		sched_yield();
	for (uint64_t t0 = now_ms(); now_ms() - t0 < 100;) /* inside A's paused fault */
		sched_yield();
	if (!strcmp(mode, "evict-during-fault")) {
		for (int round = 0; round < 2; round++)
			for (long p = 1; p < pages; p++)
				(void)region[p * PAGE];
	} else if (!strcmp(mode, "same-page")) {
		(void)region[0];
	} else if (!strcmp(mode, "unmap-during-fault")) {
		munmap((void *)(region + (pages - 1) * PAGE), PAGE);
	} else if (!strcmp(mode, "fork-during-fault")) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(child_checks());
		int status = 0;
		waitpid(pid, &status, 0);
		printf("child %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "failed");
	}
	__atomic_add_fetch(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: threads_script random|random-calls THREADS PAGES REFS | MODE PAGES\n");
		return 2;
	}
	mode = argv[1];
	int calls_mode = !strcmp(mode, "random-calls");
	int random_mode = !strcmp(mode, "random") || calls_mode;
	long threads = random_mode ? atol(argv[2]) : 2;
	pages = atol(argv[random_mode ? 3 : 2]);
	refs = random_mode && argc > 4 ? atol(argv[4]) : 0;
	if (threads < 1 || threads > MAX_THREADS || pages < 2) {
		fprintf(stderr, "threads_script: bad arguments\n");
		return 2;
	}
	region = mmap(BASE, (size_t)pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		      -1, 0);
	volatile uint8_t *fresh = mmap(NULL, (size_t)pages * 2 * PAGE, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region != BASE || fresh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long p = 0; p < pages; p++)
		for (long b = 0; b < 256; b++)
			region[p * PAGE + (unsigned long)b] = pattern(p, b);
	for (long p = 0; p < pages * 2; p++)
		fresh[p * PAGE] = 1;
	if (faultline_trace_range) {
		if (faultline_trace_range((void *)region, (size_t)pages * PAGE) != 0 ||
		    faultline_trace_range((void *)fresh, (size_t)pages * 2 * PAGE) != 0) {
			fprintf(stderr, "threads_script: faultline_trace_range failed\n");
			return 1;
		}
	}
	uint64_t sum = 0;
	if (random_mode) {
		struct worker w[MAX_THREADS];
		for (long i = 0; i < threads; i++) {
			w[i].index = i;
			w[i].pipe[0] = w[i].pipe[1] = -1;
			if (calls_mode && pipe(w[i].pipe) != 0) {
				perror("pipe");
				return 1;
			}
			pthread_create(&w[i].th, NULL, random_refs, &w[i]);
		}
		for (long i = 0; i < threads; i++) {
			pthread_join(w[i].th, NULL);
			sum += w[i].sum;
		}
	} else {
		pthread_t a, b;
		void *ra;
		pthread_create(&b, NULL, thread_b, NULL);
		pthread_create(&a, NULL, thread_a, NULL);
		while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2)
			sched_yield();
		pthread_join(a, &ra);
		pthread_join(b, NULL);
		sum += (uint64_t)(uintptr_t)ra;
	}
	/* nothing of the first region stays in a set of 2 * PAGES or fewer pages: page 0 faults */
	for (long p = 0; p < pages * 2; p++)
		sum += fresh[p * PAGE];
	sum += region[0];
	if (!strcmp(mode, "unmap-during-fault"))
		pages--; /* its last page is gone */
	printf("page0 %p\nreads %llu\nchecksum %llu\n", (void *)region, (unsigned long long)sum, (unsigned long long)checksum());
	return 0;
}
