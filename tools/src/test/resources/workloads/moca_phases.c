/*
 * moca_phases: a workload for Moca's interval mode whose phases each fall in one interval,
 * however loaded the machine.
 *
 *   moca_phases PAGES INTERVAL_MS SCRIPT [SCRIPT...]
 *
 * Maps PAGES private anonymous pages, writes every one, registers them with
 * faultline_trace_range, then runs each SCRIPT in a thread of its own (concurrently). A script is
 * segments separated by '/': a segment is `rK`/`wK` words separated by commas (read or write
 * one byte of page K), or `sN` (sleep N and a half intervals, touching nothing). Each thread owns page
 * `c` = the first page its script names: before its first segment, and after a sleep, it reads
 * that page and waits for the interval to end.
 *
 * How a thread knows an interval ended, without timing: every page referenced in an interval is
 * disabled at its end, and /proc/self/pagemap reports a disabled page as not present (mincore(2)
 * does not: the agent answers it as natively, a page held away with its data being resident). A
 * segment's first page is enabled by its first touch; if it is still present after the segment's last touch, no
 * interval ended in between (the segment lies in one interval); then the thread waits until it
 * is not (the interval ended). A segment split by an interval end exits with status 3.
 *
 * Prints `base=0x...` and, per thread, `tid=T log=...`: the accesses of each interval in which
 * the thread touched pages, intervals separated by '|', for a model to predict the chunks from.
 */
#define _GNU_SOURCE
#include <faultline.h>
#include <fcntl.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

static volatile unsigned char *base;
static long interval_ms;

struct job {
	const char *script;
	char log[8192];
	pid_t tid;
	int status;
};

static int pagemap = -1;

/* the page is at its address (pagemap's bit 63, Documentation/admin-guide/mm/pagemap.rst) */
static int resident(long page)
{
	uint64_t entry = 0;
	uintptr_t addr = (uintptr_t)(base + page * PAGE);
	if (pagemap < 0)
		pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pagemap < 0 || pread(pagemap, &entry, sizeof(entry), (off_t)(addr / PAGE * sizeof(entry))) != sizeof(entry)) {
		perror("pagemap");
		exit(1);
	}
	return (int)(entry >> 63);
}

/* the interval in which `page` was touched has ended: every page of it is disabled */
static void wait_interval_end(long page)
{
	while (resident(page)) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

static void touch(struct job *j, char op, long page)
{
	volatile unsigned char *at = base + page * PAGE + 8;
	if (op == 'w')
		*at = (unsigned char)page; /* a store only: a read-modify-write would fault as a read first */
	else
		(void)*at;
	size_t n = strlen(j->log);
	snprintf(j->log + n, sizeof(j->log) - n, "%s%c%ld", n && j->log[n - 1] != '|' ? "," : "", op, page);
}

static void *run(void *arg)
{
	struct job *j = arg;
	j->tid = (pid_t)syscall(SYS_gettid);
	long own = strtol(j->script + 1, NULL, 10);
	int sync = 1;
	for (const char *s = j->script; *s;) {
		if (sync) {
			touch(j, 'r', own);
			wait_interval_end(own);
			strcat(j->log, "|");
			sync = 0;
		}
		if (*s == 's') {
			/* and half an interval more: the next touch lands far from an interval end, where a
			 * fault resolved just before the end could fault again after it (FORMAT.md) */
			long n = strtol(s + 1, (char **)&s, 10);
			long ms = n * interval_ms + interval_ms / 2;
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
			sync = 1;
		} else {
			long first = -1;
			while (*s && *s != '/') {
				char op = *s++;
				long page = strtol(s, (char **)&s, 10);
				if (first < 0)
					first = page;
				touch(j, op, page);
				if (*s == ',')
					s++;
			}
			if (!resident(first)) {
				fprintf(stderr, "an interval ended inside a segment of %s\n", j->script);
				j->status = 3;
				return NULL;
			}
			wait_interval_end(first);
			strcat(j->log, "|");
		}
		if (*s == '/')
			s++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: moca_phases PAGES INTERVAL_MS SCRIPT [SCRIPT...]\n");
		return 2;
	}
	long pages = atol(argv[1]);
	interval_ms = atol(argv[2]);
	base = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long p = 0; p < pages; p++)
		base[p * PAGE] = (unsigned char)p;
	if (faultline_trace_range && faultline_trace_range((void *)base, pages * PAGE) != 0) {
		perror("faultline_trace_range");
		return 1;
	}
	int n = argc - 3;
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));
	pthread_t *threads = calloc((size_t)n, sizeof(*threads));
	for (int i = 0; i < n; i++) {
		jobs[i].script = argv[3 + i];
		pthread_create(&threads[i], NULL, run, &jobs[i]);
	}
	int status = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(threads[i], NULL);
		if (jobs[i].status)
			status = jobs[i].status;
	}
	printf("base=%p\n", (void *)base);
	for (int i = 0; i < n; i++)
		printf("tid=%d log=%s\n", jobs[i].tid, jobs[i].log);
	return status;
}
