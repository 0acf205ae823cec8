/*
 * pipeline: ROUNDS rounds of a three-stage pipeline, as a shell runs `echo R | cat | wc -c`:
 * each round the main process forks a producer (which writes a line and exits without exec), a
 * filter and a counter (each of which execs this program again), and waits for all three.
 * Every process image maps a region of its own and writes the first byte of each of its pages
 * in order, then says so on stdout, with one write(2) so that lines of different processes do
 * not mix (on descriptor 9, a copy of the main process's stdout, which every image inherits):
 *
 *   image PID N BASE PAGES     N: 0 the forked image (or the main process), 1 the exec'd one
 *
 * The counter checks the bytes it got and the main process exits 1 if any stage failed.
 *
 *   pipeline ROUNDS                  (the main process)
 *   pipeline filter ROUND            (exec'd: stdin to stdout)
 *   pipeline count ROUND EXPECTED    (exec'd: exits 0 if stdin holds EXPECTED bytes)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096
#define REPORT_FD 9

/* 1 to 4 pages, varied by round, stage and image so that neighbours differ */
static int pages_of(int round, int stage, int image)
{
	return 1 + (round * 3 + stage * 2 + image) % 4;
}

static void touch(int image, int pages)
{
	char *region = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		_exit(3);
	}
	for (int i = 0; i < pages; i++)
		region[(size_t)i * PAGE] = (char)(i + 1);
	char line[96];
	int n = snprintf(line, sizeof line, "image %d %d 0x%lx %d\n", (int)getpid(), image, (unsigned long)region, pages);
	if (write(REPORT_FD, line, (size_t)n) != n)
		_exit(3);
}

static void exec_self(const char *mode, int round, int expected)
{
	char r[16], e[16];
	snprintf(r, sizeof r, "%d", round);
	snprintf(e, sizeof e, "%d", expected);
	execl("/proc/self/exe", "pipeline", mode, r, e, (char *)NULL);
	perror("execl");
	_exit(127);
}

static int filter(void)
{
	char buf[256];
	ssize_t n;
	while ((n = read(0, buf, sizeof buf)) > 0)
		if (write(1, buf, (size_t)n) != n)
			return 1;
	return n < 0;
}

static int count(int expected)
{
	char buf[256];
	ssize_t n;
	long total = 0;
	while ((n = read(0, buf, sizeof buf)) > 0)
		total += n;
	return n < 0 || total != expected;
}

/* fork a stage with stdin from in and stdout to out (-1: leave it), closing both pipes' other ends */
static pid_t stage(int in, int out, int close1, int close2, void (*run)(int), int round)
{
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(3);
	}
	if (pid == 0) {
		if (in >= 0)
			dup2(in, 0);
		if (out >= 0)
			dup2(out, 1);
		close(close1);
		close(close2);
		run(round);
		_exit(0);
	}
	return pid;
}

static int expected_bytes(int round)
{
	char text[32];
	return snprintf(text, sizeof text, "round %d\n", round);
}

static void producer(int round)
{
	touch(0, pages_of(round, 0, 0));
	char text[32];
	int n = snprintf(text, sizeof text, "round %d\n", round);
	_exit(write(1, text, (size_t)n) != n);
}

static void filter_stage(int round)
{
	touch(0, pages_of(round, 1, 0));
	exec_self("filter", round, 0);
}

static void count_stage(int round)
{
	touch(0, pages_of(round, 2, 0));
	exec_self("count", round, expected_bytes(round));
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "filter") == 0) {
		int round = atoi(argv[2]);
		touch(1, pages_of(round, 1, 1));
		return filter();
	}
	if (argc == 4 && strcmp(argv[1], "count") == 0) {
		int round = atoi(argv[2]);
		touch(1, pages_of(round, 2, 1));
		return count(atoi(argv[3]));
	}
	if (argc != 2) {
		fprintf(stderr, "usage: pipeline ROUNDS\n");
		return 2;
	}
	int rounds = atoi(argv[1]), failed = 0;
	if (dup2(1, REPORT_FD) != REPORT_FD) {
		perror("dup2");
		return 3;
	}
	touch(0, 2);
	for (int r = 0; r < rounds; r++) {
		int a[2], b[2];
		if (pipe(a) || pipe(b)) {
			perror("pipe");
			return 3;
		}
		pid_t p = stage(-1, a[1], a[0], b[0], producer, r);
		pid_t f = stage(a[0], b[1], a[1], b[0], filter_stage, r);
		pid_t c = stage(b[0], -1, a[1], b[1], count_stage, r);
		close(a[0]);
		close(a[1]);
		close(b[0]);
		close(b[1]);
		pid_t pids[3] = { p, f, c };
		for (int i = 0; i < 3; i++) {
			int status;
			if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
				failed = 1;
		}
	}
	printf("rounds %d %s\n", rounds, failed ? "failed" : "ok");
	return failed;
}
