/*
 * thread_attr: a new thread asks for its own attributes with pthread_getattr_np (as a JVM does
 * for each thread it starts). glibc asks the kernel for the thread's CPU set with an internal
 * sched_getaffinity into a block it has just realloc'd, here the first block of the thread's
 * new arena: a page the agent has just registered, and under `record --engine mprotect`
 * disabled, so without the agent's touch the kernel's write fails with EFAULT.
 *
 *   thread_attr        stdout: what the call returned (the same natively and traced);
 *                      stderr: the thread's tid and its arena's heap (64 MiB aligned, glibc's
 *                      HEAP_MAX_SIZE on 64-bit), for comparing the engines' records there
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STACK (1UL << 20)
#define HEAP_MAX (64UL << 20)

static int result, cpus;
static size_t stack_size;
static pid_t tid;
static uintptr_t heap;

static void *run(void *arg)
{
	(void)arg;
	tid = (pid_t)syscall(SYS_gettid);
	pthread_attr_t attr;
	result = pthread_getattr_np(pthread_self(), &attr); /* the thread's first malloc: a new arena */
	if (result == 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		if (pthread_attr_getaffinity_np(&attr, sizeof(set), &set) == 0)
			cpus = CPU_COUNT(&set);
		pthread_attr_getstacksize(&attr, &stack_size);
		pthread_attr_destroy(&attr);
	}
	void *p = malloc(16);
	heap = (uintptr_t)p & ~(HEAP_MAX - 1);
	free(p);
	return NULL;
}

int main(void)
{
	cpu_set_t mine;
	CPU_ZERO(&mine);
	sched_getaffinity(0, sizeof(mine), &mine);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK);
	pthread_t t;
	if (pthread_create(&t, &attr, run, NULL) != 0 || pthread_join(t, NULL) != 0) {
		perror("pthread");
		return 1;
	}
	if (result != 0)
		printf("pthread_getattr_np: %s\n", strerror(result));
	else
		printf("pthread_getattr_np ok stack=%zu cpus=%s\n", stack_size, cpus == CPU_COUNT(&mine) ? "all" : "wrong");
	fprintf(stderr, "tid=%d heap=%lx\n", (int)tid, (unsigned long)heap);
	return 0;
}
