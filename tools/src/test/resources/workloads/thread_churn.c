/*
 * thread_churn: ROUNDS rounds of three short threads created and joined, beside one thread that
 * keeps touching memory (so that the EVMS keeps evicting). glibc reuses the stacks of exited
 * threads from its cache, and both its pthread_create (in the creator) and a new thread's start
 * run with every signal blocked: under the mprotect engine a disabled page there killed the
 * process (a cached stack that a rescan disabled between two threads; the creator's own stack
 * below pthread_create; the kernel's rseq write into struct pthread).
 *
 *   thread_churn [ROUNDS=300]   prints a sum that must be the native one
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int stop;
static unsigned char *area;

static void *toucher(void *arg)
{
	(void)arg;
	unsigned long n = 0;
	while (!stop)
		for (int i = 0; i < 64; i++)
			n += area[i * 4096]++;
	return (void *)n;
}

static void *worker(void *arg)
{
	char buf[8192];
	memset(buf, (int)(long)arg, sizeof(buf));
	usleep(50);
	return (void *)(long)(unsigned char)buf[100];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	area = calloc(64, 4096);
	pthread_t t;
	if (!area || pthread_create(&t, NULL, toucher, NULL) != 0)
		return 1;
	long sum = 0;
	for (int i = 0; i < rounds; i++) {
		pthread_t w[3];
		for (int k = 0; k < 3; k++)
			if (pthread_create(&w[k], NULL, worker, (void *)(long)(i + k)) != 0)
				return 1;
		for (int k = 0; k < 3; k++) {
			void *r;
			pthread_join(w[k], &r);
			sum += (long)r;
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("sum %ld\n", sum);
	return 0;
}
