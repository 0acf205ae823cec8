/*
 * hot_touch: one thread writing random pages of a 64 MiB heap area, 300 million touches
 * (about 3 s here), no system calls once started. Every page is hot, so under `faultline
 * monitor` nearly every sampling address is accessed within its sampling interval and each
 * costs a check fault: the workload that shows what a check costs, (monitored - native) /
 * checks, with no I/O or start-up in the way (bench/monitor-bench.sh).
 *
 *   hot_touch [millions=300]
 */
#include <stdio.h>
#include <stdlib.h>

#define AREA (64UL << 20)
#define PAGE 4096UL

int main(int argc, char **argv)
{
	long millions = argc > 1 ? atol(argv[1]) : 300;
	volatile char *p = malloc(AREA);
	if (!p)
		return 1;
	for (unsigned long i = 0; i < AREA; i += PAGE)
		p[i] = 1;
	unsigned x = 1;
	for (long m = 0; m < millions; m++)
		for (int j = 0; j < 1000000; j++) {
			x = x * 1103515245u + 12345u; /* an LCG: the page order is the same every run */
			p[((x >> 8) % (AREA / PAGE)) * PAGE] += 1;
		}
	printf("touched %ld million times\n", millions);
	return 0;
}
