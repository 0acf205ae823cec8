/*
 * dirty_paths_probe: what a page's trip home and out costs with and without dirty tracking, by
 * the way the page comes home, on one thread and on two at once (issues 26 and 31; BENCHMARKS.md,
 * "Where the pipeline's dirty-tracking time goes"). Each thread cycles through 16 pages of its
 * own, as the EVMS's FIFO does on agent_loop: bring a page home, read it (or write it), take it
 * out. No signal, no agent: the userfaultfd operations alone, in the faulting thread.
 *
 *   gcc -O2 -pthread -Inative-shims/include -o /tmp/dpp bench/native/dirty_paths_probe.c
 *   /tmp/dpp OPS THREADS PATH       (prints ns per trip of the slower thread)
 *
 * PATH:
 *   move        UFFDIO_MOVE home, read, UFFDIO_MOVE out (--no-dirty today)
 *   move-wp     the same with UFFDIO_WRITEPROTECT after the move home and a PAGEMAP_SCAN before
 *               the move out (asynchronous dirty tracking today: UFFDIO_MOVE drops uffd-wp)
 *   move-wp-w   move-wp, the page written while home
 *   copy-wp     UFFDIO_COPY with UFFDIO_COPY_MODE_WP from the parking slot (a new PTE: no TLB
 *               flush), read, PAGEMAP_SCAN, then UFFDIO_MOVE out to a second, empty slot; the
 *               slot copied from is zapped with one process_madvise(MADV_DONTNEED) per 16
 *   copy        copy-wp without the protection and the scan
 * Every UFFDIO_MOVE clears a PTE and flushes it from every CPU the process runs on: with a
 * second thread running that is an IPI per move, which the copy paths pay once per trip
 * instead of two or three times. Here the copy paths win on two threads; in the agent they did
 * not (BENCHMARKS.md, "Tried: copy-in"): its threads take the agent lock in turn.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pagemap_scan.h"
#include "uffd_move.h"

#define PG 4096
#define W 16

enum path { MOVE, MOVE_WP, MOVE_WP_W, COPY_WP, COPY };
static const char *const names[] = { "move", "move-wp", "move-wp-w", "copy-wp", "copy" };

static int uffd, pagemap, pidfd;
static long ops;
static enum path path;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void reg(void *a, size_t len)
{
	struct uffdio_register r = { .range = { (uintptr_t)a, len },
				     .mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP };
	if (ioctl(uffd, UFFDIO_REGISTER, &r))
		die("UFFDIO_REGISTER");
}

static void move(void *dst, void *src)
{
	struct uffdio_move m = { .dst = (uintptr_t)dst, .src = (uintptr_t)src, .len = PG, .mode = UFFDIO_MOVE_MODE_DONTWAKE };
	if (ioctl(uffd, UFFDIO_MOVE, &m))
		die("UFFDIO_MOVE");
}

static void protect(void *a)
{
	struct uffdio_writeprotect w = { .range = { (uintptr_t)a, PG }, .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &w))
		die("UFFDIO_WRITEPROTECT");
}

static void copy(void *dst, void *src, int wp)
{
	struct uffdio_copy c = { .dst = (uintptr_t)dst, .src = (uintptr_t)src, .len = PG,
				 .mode = UFFDIO_COPY_MODE_DONTWAKE | (wp ? UFFDIO_COPY_MODE_WP : 0) };
	if (ioctl(uffd, UFFDIO_COPY, &c))
		die("UFFDIO_COPY");
}

static int written(void *a)
{
	struct page_region r[1];
	struct pm_scan_arg s = { .size = sizeof(s), .start = (uintptr_t)a, .end = (uintptr_t)a + PG, .vec = (uintptr_t)r,
				 .vec_len = 1, .category_mask = PAGE_IS_WRITTEN, .return_mask = PAGE_IS_WRITTEN };
	long n = ioctl(pagemap, PAGEMAP_SCAN, &s);
	if (n < 0)
		die("PAGEMAP_SCAN");
	return n > 0;
}

static void *run(void *out)
{
	/* two parking slots a page: the copy paths move out into the one not copied from */
	char *home = mmap(0, W * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *park = mmap(0, 2 * W * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (home == MAP_FAILED || park == MAP_FAILED)
		die("mmap");
	for (int i = 0; i < W; i++)
		park[i * PG] = (char)i;
	reg(home, W * PG);
	reg(park, 2 * W * PG);
	int in[W] = { 0 };
	struct iovec stale[W];
	int stale_n = 0;
	volatile char sink = 0;
	double t0 = now_ns();
	for (long k = 0; k < ops; k++) {
		int i = (int)(k % W);
		char *h = home + i * PG, *p = park + (in[i] * W + i) * PG, *q = park + ((1 - in[i]) * W + i) * PG;
		switch (path) {
		case MOVE:
			move(h, p);
			sink += *h;
			move(p, h);
			break;
		case MOVE_WP:
		case MOVE_WP_W:
			move(h, p);
			protect(h);
			if (path == MOVE_WP_W)
				*h += 1;
			else
				sink += *h;
			sink += (char)written(h);
			move(p, h);
			break;
		case COPY_WP:
		case COPY:
			copy(h, p, path == COPY_WP);
			sink += *h;
			if (path == COPY_WP)
				sink += (char)written(h);
			move(q, h);
			in[i] = 1 - in[i];
			stale[stale_n].iov_base = p;
			stale[stale_n].iov_len = PG;
			if (++stale_n == W) {
				if (syscall(SYS_process_madvise, pidfd, stale, stale_n, MADV_DONTNEED, 0) < 0)
					die("process_madvise");
				stale_n = 0;
			}
			break;
		}
	}
	*(double *)out = (now_ns() - t0) / (double)ops;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s OPS THREADS move|move-wp|move-wp-w|copy-wp|copy\n", argv[0]);
		return 2;
	}
	ops = atol(argv[1]);
	int threads = atoi(argv[2]);
	path = (enum path)-1;
	for (int i = 0; i < 5; i++)
		if (!strcmp(argv[3], names[i]))
			path = (enum path)i;
	if ((int)path < 0 || threads < 1 || threads > 8 || ops < 1) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (uffd < 0)
		die("userfaultfd");
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_MOVE | UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED };
	if (ioctl(uffd, UFFDIO_API, &api))
		die("UFFDIO_API");
	pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pagemap < 0 || pidfd < 0)
		die("open");
	pthread_t t[8];
	double each[8], slowest = 0;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, run, &each[i]);
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		if (each[i] > slowest)
			slowest = each[i];
	}
	printf("path=%s threads=%d ns_per_trip=%.0f\n", names[path], threads, slowest);
	return 0;
}
