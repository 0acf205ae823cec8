/*
 * check_cost_probe: what one access check of `faultline monitor --engine sigbus` is made of, the
 * kernel's side only (issue 26, item 5; BENCHMARKS.md, "Live monitoring on it"). mode_monitor.c
 * arms a check by registering the one page with the userfaultfd and moving it out to its parking
 * slot, and answers it by moving the page home and unregistering it: four ioctls, two of which
 * change the mapping under the mmap write lock, and two moves, each flushing the page from every
 * CPU the process runs on. Timed here on a 64 MiB populated area, alone and with a second thread
 * reading other pages of the same area the whole time (the monitored program).
 *
 *   gcc -O2 -pthread -Inative-shims/include -o /tmp/ccp bench/native/check_cost_probe.c
 *   /tmp/ccp [reader]
 */
#define _GNU_SOURCE
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
#include <time.h>
#include <unistd.h>

#include "uffd_move.h"

#define PG 4096L
#define PAGES 16384L /* the area; checks take the first half, the reader the second */
#define CHECKS 5000

static volatile int stop;
static char *area;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void *reader(void *x)
{
	(void)x;
	unsigned long sum = 0;
	for (unsigned long i = 0; !stop; i++)
		sum += (unsigned char)area[(PAGES / 2 + i * 7919 % (PAGES / 2)) * PG];
	return (void *)sum;
}

static void call(int fd, unsigned long req, void *arg, const char *what)
{
	if (ioctl(fd, req, arg) != 0) {
		perror(what);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int with_reader = argc > 1 && !strcmp(argv[1], "reader");
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (uffd < 0) {
		perror("userfaultfd");
		return 1;
	}
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_SIGBUS | UFFD_FEATURE_MOVE };
	call(uffd, UFFDIO_API, &api, "UFFDIO_API");
	area = mmap(NULL, PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *park = mmap(NULL, PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || park == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long i = 0; i < PAGES; i++)
		area[i * PG] = 1;
	struct uffdio_register pr = { .range = { (uintptr_t)park, PAGES * PG }, .mode = UFFDIO_REGISTER_MODE_MISSING };
	call(uffd, UFFDIO_REGISTER, &pr, "UFFDIO_REGISTER parking");
	pthread_t t;
	if (with_reader)
		pthread_create(&t, NULL, reader, NULL);
	usleep(10000);
	double reg = 0, out = 0, home = 0, unreg = 0;
	for (int k = 0; k < CHECKS; k++) {
		long i = (k * 37L) % (PAGES / 2);
		uintptr_t p = (uintptr_t)area + (uintptr_t)(i * PG), s = (uintptr_t)park + (uintptr_t)(i * PG);
		double t0 = now_ns();
		struct uffdio_register r = { .range = { p, PG }, .mode = UFFDIO_REGISTER_MODE_MISSING };
		call(uffd, UFFDIO_REGISTER, &r, "UFFDIO_REGISTER");
		double t1 = now_ns();
		struct uffdio_move m1 = { .dst = s, .src = p, .len = PG };
		call(uffd, UFFDIO_MOVE, &m1, "UFFDIO_MOVE out");
		double t2 = now_ns();
		struct uffdio_move m2 = { .dst = p, .src = s, .len = PG };
		call(uffd, UFFDIO_MOVE, &m2, "UFFDIO_MOVE home");
		double t3 = now_ns();
		struct uffdio_range u = { p, PG };
		call(uffd, UFFDIO_UNREGISTER, &u, "UFFDIO_UNREGISTER");
		double t4 = now_ns();
		reg += t1 - t0;
		out += t2 - t1;
		home += t3 - t2;
		unreg += t4 - t3;
	}
	stop = 1;
	if (with_reader)
		pthread_join(t, NULL);
	printf("%s: ns per check: register %.0f, move out %.0f, move home %.0f, unregister %.0f\n",
	       with_reader ? "a reader running" : "alone", reg / CHECKS, out / CHECKS, home / CHECKS, unreg / CHECKS);
	return 0;
}
