/*
 * stack_loop: agent_loop's access loop (W+1 pages registered with faultline_trace_range and
 * touched cyclically, so that under an EVMS of W pages every touch is a trapped reference),
 * run at the bottom of DEPTH nested calls, so that record --stacks N walks min(N, DEPTH + 2)
 * frames at each. Built with frame pointers (bench/stacks-bench.sh): what a stack costs per
 * trapped reference, against the same loop recorded without --stacks.
 *
 *   stack_loop [refs] [window] [depth]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "faultline.h"

#define PAGE 4096UL

static char *region;
static long pages;

__attribute__((noinline)) static uint64_t touch(long refs)
{
	uint64_t sum = 0;
	for (long i = 0; i < refs; i++)
		sum += (uint8_t) * (volatile char *)(region + (i % pages) * PAGE);
	return sum;
}

/* not a tail call: the frame stays while the loop runs below it */
__attribute__((noinline)) static uint64_t nest(long depth, long refs)
{
	if (depth == 0)
		return touch(refs);
	uint64_t r = nest(depth - 1, refs);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

int main(int argc, char **argv)
{
	long refs = argc > 1 ? atol(argv[1]) : 200000;
	long window = argc > 2 ? atol(argv[2]) : 16;
	long depth = argc > 3 ? atol(argv[3]) : 0;
	pages = window + 1;
	region = aligned_alloc(PAGE, pages * PAGE);
	for (long i = 0; i < pages; i++)
		region[i * PAGE] = (char)i;
	if (!faultline_trace_range || faultline_trace_range(region, pages * PAGE) != 0) {
		fprintf(stderr, "stack_loop: faultline_trace_range unavailable: run under the agent\n");
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t sum = nest(depth, refs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)refs;
	printf("stack_loop refs=%ld window=%ld depth=%ld ns_per_ref=%.0f sum=%llu\n", refs, window, depth, ns,
	       (unsigned long long)sum);
	return 0;
}
