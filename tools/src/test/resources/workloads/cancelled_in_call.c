/*
 * cancelled_in_call: a thread cancelled while it waits in poll, on a pollfd on its own stack.
 * Under the in-thread engines the system-call gate holds that page for the call (gate.c), and a
 * cancelled thread never returns from the call: the page stayed held, so enabled for good, and
 * no later reference to it was recorded. Then the main thread touches more pages than the EVMS
 * holds (every earlier page leaves it), and a second thread, on the stack glibc kept from the
 * first, writes at the same address. Traced, that write is a reference record.
 *
 *   cancelled_in_call PAGES   prints "same stack: yes" on stdout and the address written on
 *                             stderr ("pollfd 7f..."), and the second thread's tid ("tid N")
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int never[2];
static volatile int waiting;
static void *volatile where[2];

static __attribute__((noinline)) void on_stack(int second)
{
	volatile struct pollfd p = { .fd = never[0], .events = POLLIN };
	where[second] = (void *)&p;
	if (!second) {
		waiting = 1;
		poll((struct pollfd *)&p, 1, -1); /* cancelled in here */
	} else {
		p.fd = 1;
		fprintf(stderr, "tid %d pollfd %lx\n", gettid(), (unsigned long)&p);
	}
}

static void *first(void *arg)
{
	(void)arg;
	on_stack(0);
	return NULL;
}

static void *second(void *arg)
{
	(void)arg;
	on_stack(1);
	return NULL;
}

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? (size_t)atol(argv[1]) : 256;
	if (pipe(never) != 0) {
		perror("pipe");
		return 1;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, first, NULL) != 0) {
		perror("pthread_create");
		return 1;
	}
	while (!waiting)
		sched_yield();
	struct timespec settle = { 0, 20 * 1000000 }; /* into the system call */
	nanosleep(&settle, NULL);
	if (pthread_cancel(t) != 0 || pthread_join(t, NULL) != 0) {
		perror("pthread_cancel");
		return 1;
	}
	char *mem = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t i = 0; i < pages; i++)
		mem[i * 4096] = 1;
	if (pthread_create(&t, NULL, second, NULL) != 0 || pthread_join(t, NULL) != 0) {
		perror("pthread_create");
		return 1;
	}
	printf("same stack: %s\n", where[0] == where[1] ? "yes" : "no");
	return 0;
}
