/*
 * waits_on_late_memory: a call waits in the kernel on memory the agent has not registered yet,
 * and the agent registers (and disables) that memory during the wait. The main thread grows its
 * stack past what the agent knows of it (the kernel extends [stack] on access, with no call the
 * agent sees) and polls a pipe with its pollfd there. Meanwhile a helper thread starts another
 * thread: the agent rescans the mappings at every thread start and registers the grown stack.
 * The new thread writes the pipe; the kernel then writes revents into the pollfd. Under an
 * in-thread engine a page disabled under the waiting call made that write fail with EFAULT.
 *
 *   waits_on_late_memory ROUNDS   prints "rounds N: poll N"; the same natively and traced
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STEP (512 * 1024) /* each round grows the stack by this: the kernel mapped 132 KiB at exec */

static int ping[2], go[2];

static void *writer(void *arg)
{
	(void)arg;
	if (write(ping[1], "x", 1) != 1) {
		perror("write");
		exit(1);
	}
	return NULL;
}

/*
 * Started before the main thread grows its stack (its own start rescans nothing new); told to
 * go from the deep frame, it lets the main thread settle in poll, then starts the writer: that
 * thread's start makes the agent rescan during the poll.
 */
static void *starter(void *arg)
{
	(void)arg;
	char c;
	if (read(go[0], &c, 1) != 1) {
		perror("read");
		exit(1);
	}
	struct timespec settle = { 0, 30 * 1000000 };
	nanosleep(&settle, NULL);
	pthread_t t;
	if (pthread_create(&t, NULL, writer, NULL) != 0 || pthread_join(t, NULL) != 0) {
		perror("pthread_create");
		exit(1);
	}
	return NULL;
}

/* a frame `depth` deep; its deepest page holds the pollfd, so the stack grows to it here */
static __attribute__((noinline)) int poll_deep(int round, size_t depth)
{
	volatile char frame[depth];
	struct pollfd *pfd = (struct pollfd *)(frame + 64);
	pfd->fd = ping[0];
	pfd->events = POLLIN;
	pfd->revents = 0;
	static const char byte = 'g';
	if (write(go[1], &byte, 1) != 1) {
		perror("write");
		exit(1);
	}
	int r = poll(pfd, 1, -1);
	int ok = r == 1 && pfd->revents == POLLIN;
	if (!ok)
		printf("round %d: poll %d %s revents=%d\n", round, r, r < 0 ? strerror(errno) : "", pfd->revents);
	frame[depth - 1] = 0;
	return ok;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	if (pipe(ping) != 0 || pipe(go) != 0) {
		perror("pipe");
		return 1;
	}
	int ok = 0;
	for (int round = 0; round < rounds; round++) {
		pthread_t t;
		if (pthread_create(&t, NULL, starter, NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
		struct timespec settle = { 0, 10 * 1000000 }; /* the starter's own start served first */
		nanosleep(&settle, NULL);
		ok += poll_deep(round, (size_t)(round + 1) * STEP);
		pthread_join(t, NULL);
		char c;
		if (read(ping[0], &c, 1) != 1) {
			perror("read");
			return 1;
		}
	}
	printf("rounds %d: poll %d\n", rounds, ok);
	return 0;
}
