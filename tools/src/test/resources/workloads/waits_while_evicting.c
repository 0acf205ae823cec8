/*
 * waits_while_evicting: the kernel writes a waiting call's results when the wait ends, and while
 * this program's main thread waits, its second thread writes more pages than the EVMS holds.
 * Under `record --engine mprotect` every page the main thread touched before the wait is then
 * disabled again (PROT_NONE): the pollfd array, the fd_set, the epoll events, the status word.
 * A touch before the call does not help: the page is enabled when the call starts and evicted
 * while it waits, and the kernel's write fails with EFAULT after the call has acted (xz -T2's
 * "poll() failed: Bad address"; for waitpid, a child reaped with its status lost).
 *
 * Each round the main thread asks the evictor for a pass over its 1024 pages, then waits: for
 * the byte the evictor writes into a pipe after the pass (poll, select, epoll_wait), or for a
 * child that exits when that byte reaches it (waitpid). The test records with --evms 64.
 * Before the rounds, CANCELLED threads are cancelled while they wait in poll (the agent must
 * get back what they held for the wait).
 *
 *   waits_while_evicting ROUNDS [CANCELLED]   prints what each call returned; the same natively
 *                                             and traced
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define PASS 1024 /* pages per pass: 16 times the test's EVMS */

static int ping[2];           /* evictor -> waiter: one byte after each pass */
static unsigned passes_asked; /* passes the main thread asked for */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t asked = PTHREAD_COND_INITIALIZER;
static char *pages;

static void *evictor(void *arg)
{
	(void)arg;
	for (unsigned done = 0;; done++) {
		pthread_mutex_lock(&lock);
		while (passes_asked == done)
			pthread_cond_wait(&asked, &lock);
		pthread_mutex_unlock(&lock);
		if (passes_asked == ~0u)
			return NULL;
		for (int i = 0; i < PASS; i++)
			pages[(size_t)i * PAGE] += 1;
		if (write(ping[1], "x", 1) != 1) {
			perror("write");
			exit(1);
		}
	}
}

static void ask_pass(void)
{
	pthread_mutex_lock(&lock);
	passes_asked++;
	pthread_cond_signal(&asked);
	pthread_mutex_unlock(&lock);
}

static void drain(void)
{
	char c;
	if (read(ping[0], &c, 1) != 1) {
		perror("read");
		exit(1);
	}
}

static int never[2]; /* a pipe nobody writes: poll on its read end waits until cancelled */
static volatile int polling;

static void *poll_forever(void *arg)
{
	(void)arg;
	struct pollfd p = { .fd = never[0], .events = POLLIN };
	polling = 1;
	poll(&p, 1, -1);
	return NULL;
}

/* n threads, one at a time, cancelled once they have waited in poll for a while */
static void cancel_pollers(int n)
{
	if (n > 0 && pipe(never) != 0) {
		perror("pipe");
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		pthread_t t;
		polling = 0;
		if (pthread_create(&t, NULL, poll_forever, NULL) != 0) {
			perror("pthread_create");
			exit(1);
		}
		while (!polling)
			sched_yield();
		struct timespec settle = { 0, 2000000 }; /* into the system call */
		nanosleep(&settle, NULL);
		if (pthread_cancel(t) != 0 || pthread_join(t, NULL) != 0) {
			perror("pthread_cancel");
			exit(1);
		}
	}
}

/* a page of its own for each result buffer, so that nothing else keeps it young */
static void *own_page(void)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	cancel_pollers(argc > 2 ? atoi(argv[2]) : 0);
	pages = mmap(NULL, (size_t)PASS * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED || pipe(ping) != 0) {
		perror("setup");
		return 1;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, evictor, NULL) != 0) {
		perror("pthread_create");
		return 1;
	}
	struct pollfd *pfd = own_page();
	fd_set *set = own_page();
	struct epoll_event *ev = own_page();
	int *status = own_page();
	int ep = epoll_create1(0);
	struct epoll_event add = { .events = EPOLLIN, .data.u32 = 42 };
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ping[0], &add) != 0) {
		perror("epoll");
		return 1;
	}
	unsigned ok[4] = { 0, 0, 0, 0 };
	for (int round = 0; round < rounds; round++) {
		pfd->fd = ping[0];
		pfd->events = POLLIN;
		pfd->revents = 0;
		ask_pass();
		int r = poll(pfd, 1, -1);
		if (r == 1 && pfd->revents == POLLIN)
			ok[0]++;
		else
			printf("round %d: poll %d %s revents=%d\n", round, r, r < 0 ? strerror(errno) : "", pfd->revents);
		drain();

		FD_ZERO(set);
		FD_SET(ping[0], set);
		ask_pass();
		r = select(ping[0] + 1, set, NULL, NULL, NULL);
		if (r == 1 && FD_ISSET(ping[0], set))
			ok[1]++;
		else
			printf("round %d: select %d %s\n", round, r, r < 0 ? strerror(errno) : "");
		drain();

		memset(ev, 0, 4 * sizeof(*ev));
		ask_pass();
		r = epoll_wait(ep, ev, 4, -1);
		if (r == 1 && ev->data.u32 == 42)
			ok[2]++;
		else
			printf("round %d: epoll_wait %d %s\n", round, r, r < 0 ? strerror(errno) : "");
		drain();

		*status = -1;
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			char c;
			_exit(read(ping[0], &c, 1) == 1 ? 7 : 1); /* after the evictor's pass */
		}
		ask_pass();
		pid_t got = waitpid(pid, status, 0);
		if (got == pid && WIFEXITED(*status) && WEXITSTATUS(*status) == 7)
			ok[3]++;
		else
			printf("round %d: waitpid %d %s status=%d\n", round, got, got < 0 ? strerror(errno) : "", *status);
	}
	pthread_mutex_lock(&lock);
	passes_asked = ~0u;
	pthread_cond_signal(&asked);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	printf("rounds %d: poll %u, select %u, epoll_wait %u, waitpid %u\n", rounds, ok[0], ok[1], ok[2], ok[3]);
	return 0;
}
