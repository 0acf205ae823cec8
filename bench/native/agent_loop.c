/*
 * agent_loop: the same access loop as bare_handoff, under the real agent (scope api, EVMS =
 * window): W+1 pages traced with faultline_trace_range, touched cyclically, so every touch is
 * a trapped reference that is recorded, published to the ring and resolved.
 *
 *   agent_loop [refs] [window] [same|free]
 *     same: the main thread pins itself to CPU 0 (the agent's fault thread for CPU 0 then
 *     handles its faults).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "faultline.h"

#define PAGE 4096UL

int main(int argc, char **argv)
{
	long refs = argc > 1 ? atol(argv[1]) : 200000;
	long window = argc > 2 ? atol(argv[2]) : 4;
	int same_cpu = argc > 3 && strcmp(argv[3], "same") == 0;
	long pages = window + 1;
	if (same_cpu) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	char *region = aligned_alloc(PAGE, pages * PAGE);
	for (long i = 0; i < pages; i++)
		region[i * PAGE] = (char)i;
	if (!faultline_trace_range || faultline_trace_range(region, pages * PAGE) != 0) {
		fprintf(stderr, "agent_loop: faultline_trace_range unavailable: run under the agent\n");
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t sum = 0;
	for (long i = 0; i < refs; i++)
		sum += (uint8_t) * (volatile char *)(region + (i % pages) * PAGE);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)refs;
	printf("agent_loop refs=%ld window=%ld placement=%s ns_per_ref=%.0f sum=%llu\n", refs, window,
	       same_cpu ? "same" : "free", ns, (unsigned long long)sum);
	return 0;
}
