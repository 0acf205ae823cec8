/*
 * result_buffers: system calls whose small result buffers lie on pages the program has not
 * touched since they were mapped. Under `record --engine mprotect` such a page is disabled
 * (PROT_NONE) until its first access, and the kernel's write into it would fail with EFAULT;
 * for wait4 that loses the child's exit status for good (the child is reaped first). The
 * agent touches the buffers first (native-shims/src/touch.c). Each call gets its own fresh page
 * of a new anonymous mapping (traced under scope all, disabled from the start).
 *
 *   result_buffers        prints what each call returned; the same natively and traced
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
	return 0;
}
