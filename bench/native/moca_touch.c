/*
 * moca_touch: what disabling a Moca interval's pages costs per page, contiguous or scattered
 * (bench/moca-bench.sh; trace-format/FORMAT.md, "Moca mode").
 *
 *   moca_touch PAGES STRIDE SECONDS
 *
 * Maps PAGES * STRIDE pages, writes them, registers them with faultline_trace_range, then writes
 * pages 0, STRIDE, 2 * STRIDE, ... in a loop for SECONDS. Under `record --mode moca` every page
 * faults once per interval and is disabled at its end: with STRIDE 1 the interval's pages are one
 * contiguous run (one UFFDIO_MOVE), with STRIDE 2 each page is a run of its own. The trace
 * header's disable_ns / evictions is the cost per page. Prints the loop's passes.
 */
#include <faultline.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: moca_touch PAGES STRIDE SECONDS\n");
		return 2;
	}
	long pages = atol(argv[1]), stride = atol(argv[2]);
	double seconds = atof(argv[3]);
	volatile unsigned char *base = mmap(NULL, pages * stride * PAGE, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long p = 0; p < pages * stride; p++)
		base[p * PAGE] = 1;
	if (faultline_trace_range && faultline_trace_range((void *)base, pages * stride * PAGE) != 0) {
		perror("faultline_trace_range");
		return 1;
	}
	long passes = 0;
	for (double end = now() + seconds; now() < end; passes++)
		for (long p = 0; p < pages; p++)
			base[p * stride * PAGE] = (unsigned char)passes; /* a store: one write fault per interval */
	printf("passes=%ld\n", passes);
	return 0;
}
