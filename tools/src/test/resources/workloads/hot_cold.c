/*
 * hot_cold: three areas of 8 MiB for the DAMON monitor's tests. "hot" is written all the time,
 * "cold" once at the start, "turn" once at the start and then, from the switch on, all the
 * time as hot is. Prints each area's bounds and the CLOCK_MONOTONIC time of the switch, then
 * what must not change under monitoring: every page of an area was written alike, so each
 * area's pages must still be equal to each other (a page lost or stale would differ), and a
 * checksum of cold.
 *
 * usage: hot_cold [phase_ms [delay_ms]]   (phase default 1500: the switch after one phase, the
 * end after two; delay default 0: how long to wait before mapping the areas, so that a monitor
 * has built its initial regions before they exist)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define AREA (8UL << 20)
#define PAGE 4096UL

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static unsigned char *area(void)
{
	unsigned char *p = mmap(NULL, AREA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void sweep(unsigned char *p, unsigned v)
{
	for (size_t off = 0; off < AREA; off += PAGE)
		p[off + (v % 64)] += (unsigned char)v;
}

int main(int argc, char **argv)
{
	uint64_t phase = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1500) * 1000000ULL;
	uint64_t delay = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
	struct timespec pause = { .tv_sec = (time_t)(delay / 1000), .tv_nsec = (long)(delay % 1000) * 1000000L };
	if (delay)
		nanosleep(&pause, NULL);
	unsigned char *hot = area(), *cold = area(), *turn = area();
	printf("hot %p %p\ncold %p %p\nturn %p %p\n", (void *)hot, (void *)(hot + AREA), (void *)cold,
	       (void *)(cold + AREA), (void *)turn, (void *)(turn + AREA));
	sweep(hot, 1);
	sweep(cold, 1);
	sweep(turn, 1);
	uint64_t start = now_ns(), switched = 0;
	unsigned v = 2;
	for (uint64_t t = start; t - start < 2 * phase; t = now_ns(), v++) {
		sweep(hot, v);
		if (t - start >= phase) {
			if (!switched)
				switched = t;
			sweep(turn, v);
		}
	}
	printf("switch %llu\n", (unsigned long long)switched);
	unsigned char *areas[3] = { hot, cold, turn };
	const char *names[3] = { "hot", "cold", "turn" };
	for (int a = 0; a < 3; a++) {
		size_t differ = 0;
		for (size_t off = PAGE; off < AREA; off += PAGE)
			differ += memcmp(areas[a], areas[a] + off, PAGE) != 0;
		printf("%s pages alike: %s\n", names[a], differ ? "NO" : "yes");
	}
	uint64_t sum = 0;
	for (size_t off = 0; off < AREA; off++)
		sum = sum * 31 + cold[off];
	printf("cold sum %llu\n", (unsigned long long)sum);
	return 0;
}
