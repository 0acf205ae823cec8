/*
 * given_stack: threads started on stacks the program maps itself (pthread_attr_setstack), beside
 * threads on glibc's own. ROUNDS times: map a 1 MiB stack, start one thread on it and one on a
 * glibc stack, each writing 200 KB of its stack and summing it, join both, unmap the stack.
 * glibc puts the thread's descriptor and static TLS at the top of a given stack and starts the
 * thread there with every signal blocked: under the in-thread engines a disabled page there was
 * a fault nobody could take, and the process died.
 *
 *   given_stack ROUNDS   prints: rounds=N sum=S
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define DEPTH 200000

static void *work(void *arg)
{
	volatile unsigned char buf[DEPTH];
	memset((unsigned char *)buf, (int)(long)arg, sizeof(buf));
	unsigned long sum = 0;
	for (long i = 0; i < DEPTH; i += 512)
		sum += buf[i];
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20;
	unsigned long total = 0;
	for (long k = 0; k < rounds; k++) {
		size_t size = 1 << 20;
		void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (stack == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setstack(&attr, stack, size);
		pthread_t given, own;
		if (pthread_create(&given, &attr, work, (void *)(k % 7 + 1)) || pthread_create(&own, NULL, work, (void *)2)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
		void *a, *b;
		pthread_join(given, &a);
		pthread_join(own, &b);
		total += (unsigned long)a + (unsigned long)b;
		pthread_attr_destroy(&attr);
		munmap(stack, size);
	}
	printf("rounds=%ld sum=%lu\n", rounds, total);
	return 0;
}
