/*
 * scale_work: the N-thread workload of bench/scale-bench.sh (issue 38), the access pattern of
 * scale_floor.c run by an ordinary program: N threads, each with its own area of 16 MiB (mmap,
 * written once), make R read references each, 9 in 10 to a hot set of 2,048 pages of their area
 * and the rest anywhere in it. Run natively and under `faultline record --evms 1024`; the
 * difference of the access phases' wall times over the trace's references is faultline's cost
 * per trapped reference.
 *
 *   scale_work THREADS [refs_per_thread=200000]
 * Prints: scale_work threads=N refs=R phase_ns=T sum=S
 * phase_ns is the wall time from every thread ready (areas mapped and written) to every thread
 * done, so that start-up, the areas' first touches and exit are outside it, traced or not.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096UL
#define AREA_PAGES 4096UL
#define HOT_PAGES 2048UL
#define MAX_THREADS 256

struct thread {
	pthread_t th;
	int index;
	long refs;
	uint64_t sum;
	char pad[64];
};

static struct thread threads[MAX_THREADS];
static pthread_barrier_t start, done;

static inline uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	char *area = mmap(NULL, AREA_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (unsigned long p = 0; p < AREA_PAGES; p++)
		area[p * PAGE] = (char)p;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(t->index + 1);
	pthread_barrier_wait(&start);
	uint64_t sum = 0;
	for (long i = 0; i < t->refs; i++) {
		uint64_t r = next(&x);
		uint64_t page = (r % 10) < 9 ? (r >> 8) % HOT_PAGES : (r >> 8) % AREA_PAGES;
		sum += (uint8_t)area[page * PAGE + (r >> 40) % PAGE];
	}
	t->sum = sum;
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	long refs = argc > 2 ? atol(argv[2]) : 200000;
	if (n < 1 || n > MAX_THREADS || refs < 0) {
		fprintf(stderr, "usage: scale_work THREADS [refs_per_thread]\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	pthread_barrier_init(&done, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++) {
		threads[i].index = (int)i;
		threads[i].refs = refs;
		if (pthread_create(&threads[i].th, NULL, worker, &threads[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	struct timespec t0, t1;
	pthread_barrier_wait(&start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_barrier_wait(&done);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	uint64_t sum = 0;
	for (long i = 0; i < n; i++) {
		pthread_join(threads[i].th, NULL);
		sum += threads[i].sum;
	}
	double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	printf("scale_work threads=%ld refs=%ld phase_ns=%.0f sum=%llu\n", n, refs * n, ns, (unsigned long long)sum);
	return 0;
}
