/*
 * soft_fault_loop: the cost of the EVMS's soft faults (trace-format/FORMAT.md, "EVMS") against
 * a reference fault, under the real agent (scope api). Every iteration references one page it
 * has not referenced for a long time (a pool of POOL pages, cyclically: a reference record and
 * an eviction), and then, by mode:
 *
 *   new       nothing more                                   1 reference fault
 *   write     writes instead of reading the new page          1 reference fault, no write-protect
 *   dirty     writes the page it has just read                1 reference fault + 1 write-protect fault
 *   reref     reads the page admitted LEAD iterations ago,    1 reference fault + 1 re-reference fault
 *             which has just entered the trailing segment     (record with --policy segq/clock --lead LEAD)
 *
 *   soft_fault_loop MODE [iterations=100000] [lead=8]
 * Prints ns per iteration; the difference to `new` is the soft fault's cost.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "faultline.h"

#define PAGE 4096UL
#define POOL 4096L

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "new";
	long iterations = argc > 2 ? atol(argv[2]) : 100000;
	long lead = argc > 3 ? atol(argv[3]) : 8;
	int write_new = strcmp(mode, "write") == 0, dirty = strcmp(mode, "dirty") == 0, reref = strcmp(mode, "reref") == 0;
	if (!write_new && !dirty && !reref && strcmp(mode, "new") != 0) {
		fprintf(stderr, "usage: soft_fault_loop new|write|dirty|reref [iterations] [lead]\n");
		return 2;
	}
	volatile char *region = mmap(NULL, POOL * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; i < POOL; i++)
		region[i * PAGE] = (char)i;
	if (!faultline_trace_range || faultline_trace_range((void *)region, POOL * PAGE) != 0) {
		fprintf(stderr, "soft_fault_loop: faultline_trace_range unavailable: run under the agent\n");
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t sum = 0;
	for (long i = 0; i < iterations; i++) {
		volatile char *p = region + (i % POOL) * PAGE;
		if (write_new)
			*p = (char)i;
		else
			sum += (uint8_t)*p;
		if (dirty)
			*p = (char)i;
		if (reref && i >= lead)
			sum += (uint8_t)region[((i - lead) % POOL) * PAGE];
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)iterations;
	printf("soft_fault_loop mode=%s iterations=%ld lead=%ld ns_per_iteration=%.0f sum=%llu\n", mode, iterations, lead, ns,
	       (unsigned long long)sum);
	return 0;
}
