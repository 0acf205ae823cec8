/*
 * mprotect_loop: the in-thread floor of the mprotect engine. W+1 pages touched cyclically with
 * only W enabled, as bare_handoff does with userfaultfd: every touch faults, and the thread's
 * own SIGSEGV handler enables the page (mprotect PROT_READ|PROT_WRITE) and disables the oldest
 * (mprotect PROT_NONE), FIFO. No agent, no records: what a trapped reference costs at least.
 *
 *   mprotect_loop [refs] [window]       prints refs, faults and ns_per_ref
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096UL

static uintptr_t *fifo;
static long window, head, count;
static volatile long faults;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	uintptr_t page = (uintptr_t)si->si_addr & ~(PAGE - 1);
	mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE);
	if (count == window) {
		mprotect((void *)fifo[head], PAGE, PROT_NONE);
		count--;
		head = (head + 1) % window;
	}
	fifo[(head + count) % window] = page;
	count++;
	faults++;
}

int main(int argc, char **argv)
{
	long refs = argc > 1 ? atol(argv[1]) : 200000;
	window = argc > 2 ? atol(argv[2]) : 16;
	long pages = window + 1;
	fifo = calloc((size_t)window, sizeof(*fifo));
	volatile unsigned char *m = mmap(NULL, pages * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!fifo || m == MAP_FAILED) {
		perror("mprotect_loop");
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < refs; i++)
		m[(i % pages) * PAGE] += 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ns = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
	printf("refs=%ld faults=%ld ns_per_ref=%ld\n", refs, faults, refs ? ns / refs : 0);
	return 0;
}
