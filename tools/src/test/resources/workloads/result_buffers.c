/*
 * result_buffers: system calls whose small result buffers lie on pages the program has not
 * touched since they were mapped. Under `record --engine mprotect` such a page is disabled
 * (PROT_NONE) until its first access, and the kernel's write into it would fail with EFAULT;
 * for wait4 that loses the child's exit status for good (the child is reaped first). The
 * agent touches the buffers first (native-shims/src/touch.c). Each call gets its own fresh page
 * of a new anonymous mapping (traced under scope all, disabled from the start). The waiting
 * calls (poll, select, epoll_wait, nanosleep) read an argument the program wrote: its page is
 * evicted again (disabled) by touching more fresh pages than the EVMS holds (the test records
 * with --evms 16) before the call.
 *
 *   result_buffers        prints what each call returned; the same natively and traced
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

static char *fresh(void)
{
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* touch 64 fresh pages: whatever the program touched before leaves a 16-page EVMS */
static void push_out(void)
{
	char *p = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (int i = 0; i < 64; i++)
		p[i * PAGE] = 1;
}

static pid_t child(int code)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(code);
	return pid;
}

int main(void)
{
	/* wait4: status and rusage on fresh pages (what /usr/bin/time does) */
	pid_t pid = child(7);
	int *status = (int *)fresh();
	struct rusage *ru = (struct rusage *)fresh();
	pid_t got = wait4(pid, status, 0, ru);
	printf("wait4 %s exit=%d\n", got == pid ? "ok" : strerror(errno), got == pid ? WEXITSTATUS(*status) : -1);

	pid = child(9);
	status = (int *)fresh();
	got = waitpid(pid, status, 0);
	printf("waitpid %s exit=%d\n", got == pid ? "ok" : strerror(errno), got == pid ? WEXITSTATUS(*status) : -1);

	pid = child(11);
	siginfo_t *info = (siginfo_t *)fresh();
	int r = waitid(P_PID, (id_t)pid, info, WEXITED);
	printf("waitid %s exit=%d\n", r == 0 ? "ok" : strerror(errno), r == 0 ? info->si_status : -1);

	int *fds = (int *)fresh();
	r = pipe(fds);
	printf("pipe %s\n", r == 0 ? "ok" : strerror(errno));
	ru = (struct rusage *)fresh();
	r = getrusage(RUSAGE_SELF, ru);
	printf("getrusage %s\n", r == 0 ? "ok" : strerror(errno));

	struct utsname *u = (struct utsname *)fresh();
	r = uname(u);
	printf("uname %s sysname=%s\n", r == 0 ? "ok" : strerror(errno), r == 0 ? u->sysname : "-");

	/* the read end of a pipe with one byte in it: readable at once */
	int p[2];
	if (pipe(p) != 0 || write(p[1], "x", 1) != 1) {
		perror("pipe");
		return 1;
	}
	struct pollfd *pfd = (struct pollfd *)fresh();
	pfd->fd = p[0];
	pfd->events = POLLIN;
	push_out();
	r = poll(pfd, 1, 1000);
	printf("poll %s revents=%d\n", r == 1 ? "ok" : strerror(errno), r == 1 ? pfd->revents : -1);

	fd_set *set = (fd_set *)fresh();
	FD_ZERO(set);
	FD_SET(p[0], set);
	struct timeval *tv = (struct timeval *)fresh();
	tv->tv_sec = 1;
	push_out();
	r = select(p[0] + 1, set, NULL, NULL, tv);
	printf("select %s set=%d\n", r == 1 ? "ok" : strerror(errno), r == 1 ? FD_ISSET(p[0], set) != 0 : -1);

	int ep = epoll_create1(0);
	struct epoll_event add = { .events = EPOLLIN, .data.u32 = 42 };
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &add) != 0) {
		perror("epoll");
		return 1;
	}
	struct epoll_event *ev = (struct epoll_event *)fresh();
	r = epoll_wait(ep, ev, 4, 1000);
	printf("epoll_wait %s data=%u\n", r == 1 ? "ok" : strerror(errno), r == 1 ? ev->data.u32 : 0);

	struct timespec *req = (struct timespec *)fresh();
	req->tv_sec = 0;
	req->tv_nsec = 1000000;
	push_out();
	r = nanosleep(req, (struct timespec *)fresh());
	printf("nanosleep %s\n", r == 0 ? "ok" : strerror(errno));
	return 0;
}
