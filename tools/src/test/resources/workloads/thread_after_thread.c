/*
 * thread_after_thread: THREADS threads started and joined one after another, as a server's
 * short-lived workers are. glibc keeps a finished thread's stack for the next one, so natively
 * the address space does not grow. Under `record --engine mprotect` each thread gets an
 * alternate signal stack of the agent's (64 KiB): if none were ever given again, 3,000 threads
 * would leave 190 MiB of them mapped.
 *
 *   thread_after_thread THREADS   prints whether the address space grew by less than 32 MiB
 *                                 between the 100th thread and the last
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sum;

static void *work(void *arg)
{
	char local[256];
	memset(local, (int)(long)arg, sizeof(local));
	sum += (unsigned char)local[(long)arg % sizeof(local)];
	return NULL;
}

/* VmSize of /proc/self/status, in KiB */
static long vm_size_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 3000;
	long before = -1;
	for (long i = 0; i < threads; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, work, (void *)i) != 0 || pthread_join(t, NULL) != 0) {
			perror("pthread");
			return 1;
		}
		if (i == 99)
			before = vm_size_kib();
	}
	long after = vm_size_kib();
	printf("%ld threads, sum %lu, address space grew by less than 32 MiB: %s\n", threads, sum,
	       before > 0 && after - before < 32 * 1024 ? "yes" : "no");
	return 0;
}
