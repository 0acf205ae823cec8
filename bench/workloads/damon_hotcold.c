/*
 * damon_hotcold: a small hot set inside a large cold area, for DAMON's accuracy
 * (bench/damon-accuracy.sh). COLD pages are written once; then ROUNDS rounds each read every
 * page of a HOT-page set in the middle of the area, and one cold page chosen by a fixed
 * xorshift sequence. Deterministic: the same references every run.
 *
 *   damon_hotcold [COLD=16384] [HOT=64] [ROUNDS=2000]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096

int main(int argc, char **argv)
{
	long cold = argc > 1 ? atol(argv[1]) : 16384;
	long hot = argc > 2 ? atol(argv[2]) : 64;
	long rounds = argc > 3 ? atol(argv[3]) : 2000;
	if (hot > cold) {
		fprintf(stderr, "damon_hotcold: HOT must not exceed COLD\n");
		return 2;
	}
	volatile uint8_t *mem = mmap(NULL, (size_t)cold * PAGE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long p = 0; p < cold; p++)
		mem[p * PAGE] = (uint8_t)p;
	long first_hot = (cold - hot) / 2;
	uint64_t x = 88172645463325252ULL, sum = 0;
	for (long r = 0; r < rounds; r++) {
		for (long p = first_hot; p < first_hot + hot; p++)
			sum += mem[p * PAGE + (r % 64) * 64];
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += mem[(long)(x % (uint64_t)cold) * PAGE + 8];
	}
	printf("damon_hotcold cold=%ld hot=%ld rounds=%ld sum=%llu\n", cold, hot, rounds, (unsigned long long)sum);
	return 0;
}
