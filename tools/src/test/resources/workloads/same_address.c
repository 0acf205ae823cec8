/*
 * same_address: two threads read the same word over and over, each between walks over pages of
 * their own, so that under a small EVMS the word's page is disabled again before every read, and
 * meet at a barrier before each read, so that both fault on it at once. Under `record --engine mprotect` one of the two then finds
 * the page already enabled by the other when it takes the agent's lock: a race, which it must
 * retry every time, however often it has lost one at that address before (a JVM's threads,
 * reading the same class metadata, died of such a race passed on as their own fault).
 *
 *   same_address ROUNDS     prints the sum both threads read; the same natively and traced
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096
#define OWN 24 /* pages each thread walks between reads: more than --evms 16 */

static volatile uint64_t *shared;
static long rounds;
static volatile long arrived; /* a spinning barrier: both read at once, each round (a futex wake-up is too slow) */

static void meet(long round)
{
	__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < 2 * (round + 1))
		__builtin_ia32_pause();
}

static void *reader(void *arg)
{
	volatile uint8_t *own = arg;
	uint64_t sum = 0;
	for (long r = 0; r < rounds; r++) {
		meet(r);
		sum += *shared;
		for (int p = 0; p < OWN; p++)
			own[p * PAGE] += 1;
	}
	return (void *)(uintptr_t)sum;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? atol(argv[1]) : 2000;
	uint8_t *mem = mmap(NULL, (1 + 2 * OWN) * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	shared = (volatile uint64_t *)mem;
	*shared = 3;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, reader, mem + (1 + i * OWN) * PAGE) != 0) {
			perror("pthread_create");
			return 1;
		}
	uint64_t total = 0;
	for (int i = 0; i < 2; i++) {
		void *sum;
		pthread_join(t[i], &sum);
		total += (uint64_t)(uintptr_t)sum;
	}
	printf("same_address rounds=%ld sum=%llu\n", rounds, (unsigned long long)total);
	return 0;
}
