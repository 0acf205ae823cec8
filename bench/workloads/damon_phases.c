/*
 * damon_phases: a workload with three phases, for DAMON's accuracy (bench/damon-accuracy.sh).
 * Phase k sweeps its own AREA-page area SWEEPS times, one cache line per page, and leaves the
 * other two idle; every area is written once before the first phase, so each is mapped and
 * known to the monitor from the start. Deterministic: the same references every run.
 *
 *   damon_phases [AREA=512] [SWEEPS=100]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096

int main(int argc, char **argv)
{
	long area = argc > 1 ? atol(argv[1]) : 512;
	long sweeps = argc > 2 ? atol(argv[2]) : 100;
	volatile uint8_t *mem = mmap(NULL, (size_t)(3 * area) * PAGE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long p = 0; p < 3 * area; p++)
		mem[p * PAGE] = (uint8_t)p;
	uint64_t sum = 0;
	for (int phase = 0; phase < 3; phase++)
		for (long s = 0; s < sweeps; s++)
			for (long p = 0; p < area; p++)
				sum += mem[(phase * area + p) * PAGE + (s % 64) * 64];
	printf("damon_phases area=%ld sweeps=%ld sum=%llu\n", area, sweeps, (unsigned long long)sum);
	return 0;
}
