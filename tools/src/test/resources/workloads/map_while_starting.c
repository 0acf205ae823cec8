/*
 * map_while_starting: memory mapped and written by one thread while another thread is starting.
 * The main thread creates a thread that only waits, then at once maps PAGES pages and writes the
 * first byte of each, and prints the area's address and a checksum. Under the in-thread engines
 * the agent holds rescans back while a thread starts (its stack must be pinned first); an area
 * the program maps itself is no such stack, and its first references must be recorded. The test
 * holds the new thread's start open (FAULTLINE_TEST_THREAD_START_DELAY_MS) so that the writes
 * fall inside it.
 *
 *   map_while_starting PAGES   prints: area=0xADDR pages=N checksum=S
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static void *idle(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 64;
	pthread_t t;
	if (pthread_create(&t, NULL, idle, NULL)) {
		perror("pthread_create");
		return 1;
	}
	unsigned char *area = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long p = 0; p < pages; p++)
		area[p * 4096] = (unsigned char)(p * 7 + 1);
	unsigned long sum = 0;
	for (long p = 0; p < pages; p++)
		sum = sum * 31 + area[p * 4096];
	pthread_join(t, NULL);
	printf("area=%p pages=%ld checksum=%lu\n", (void *)area, pages, sum);
	return 0;
}
