/*
 * stack_walk_cost: what the agent's stack walk (native-shims/src/stacks.c) costs by itself,
 * without faults or the agent: the ways of reading the 16 bytes of a frame that the walk needs,
 * per frame and per walk of a chain on one and on two stack pages, single thread. Rows:
 *   load         a plain load of each word (what an unchecked frame-pointer walk does; unsafe
 *                in the fault handler, the floor)
 *   pread 16     pread(2) of /proc/self/mem, the 16 bytes of each frame (a system call a frame)
 *   pread page   pread of the frame's whole page into a buffer, once per page a walk meets
 *   pread 2      pread of the page and the one above it in one call, once per two pages (what
 *                stacks.c does: a chain climbs)
 *   vm_readv     process_vm_readv(2) of the whole page, once per page
 *   vm_readv 2   process_vm_readv of two pages in one call
 * Each walk follows a real chain of DEPTH frames built by nested calls (frame pointers).
 *
 *   stack_walk_cost [walks=200000] [depth=30]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL

static int mem_fd;
static long walks, depth;
static uint8_t pages[2][PAGE] __attribute__((aligned(4096)));
static uintptr_t last_fp; /* the highest frame the last walk read */
static uintptr_t cached[2];

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

enum how { LOAD, PREAD_16, PREAD_PAGE, PREAD_2, VM_READV, VM_READV_2 };

static int page_word(enum how how, uintptr_t a, uint64_t *out)
{
	uintptr_t p = a & ~(PAGE - 1);
	for (int i = 0; i < 2; i++)
		if (cached[i] == p) {
			memcpy(out, pages[i] + (a - p), 8);
			return 0;
		}
	static int next;
	int i = next++ & 1;
	if (how == VM_READV_2 || how == PREAD_2) {
		/* both buffers: the page and the one above it, in one call (a chain climbs) */
		struct iovec local = { (uint8_t *)pages, 2 * PAGE }, remote = { (void *)p, 2 * PAGE };
		ssize_t r = how == PREAD_2 ? pread(mem_fd, (uint8_t *)pages, 2 * PAGE, (off_t)p)
					   : process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (r < (ssize_t)PAGE)
			return -1;
		cached[0] = p;
		cached[1] = r == (ssize_t)(2 * PAGE) ? p + PAGE : 0;
		memcpy(out, pages[0] + (a - p), 8);
		return 0;
	}
	if (how == PREAD_PAGE) {
		if (pread(mem_fd, pages[i], PAGE, (off_t)p) != (ssize_t)PAGE)
			return -1;
	} else {
		struct iovec local = { pages[i], PAGE }, remote = { (void *)p, PAGE };
		if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)PAGE)
			return -1;
	}
	cached[i] = p;
	memcpy(out, pages[i] + (a - p), 8);
	return 0;
}

static int word(enum how how, uintptr_t a, uint64_t *out)
{
	if (how == LOAD) {
		*out = *(volatile uint64_t *)a;
		return 0;
	}
	if (how == PREAD_16)
		return pread(mem_fd, out, 8, (off_t)a) == 8 ? 0 : -1;
	return page_word(how, a, out);
}

/* frames walked from fp: the chain the walk of stacks.c follows */
static long walk(enum how how, uintptr_t fp, uintptr_t sp)
{
	long n = 0;
	cached[0] = cached[1] = 0;
	while (n < 64 && fp >= sp && !(fp & 7)) {
		uint64_t next, ret;
		if (word(how, fp, &next) || word(how, fp + 8, &ret) || ret < PAGE)
			break;
		n++;
		last_fp = fp;
		sp = fp + 16;
		fp = next;
	}
	return n;
}

static const char *name[] = { "load", "pread 16", "pread page", "pread 2", "vm_readv", "vm_readv 2" };

__attribute__((noinline)) static long measure(long level, char *pad)
{
	if (level > 0) {
		/* a frame of about 128 bytes: DEPTH frames span one or two pages */
		volatile char local[96];
		local[0] = pad ? pad[0] : 0;
		long r = measure(level - 1, (char *)local);
		__asm__ volatile("" : "+r"(r));
		return r;
	}
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0), sp = (uintptr_t)&fp;
	long frames = walk(LOAD, fp, sp);
	uintptr_t lo = fp & ~(PAGE - 1), hi = last_fp + 8;
	printf("stack_walk_cost: walks=%ld depth=%ld, %ld frames a walk over %lu stack pages\n", walks, depth, frames,
	       (unsigned long)(((hi & ~(PAGE - 1)) - lo) / PAGE + 1));
	for (int how = LOAD; how <= VM_READV_2; how++) {
		double t0 = now();
		long total = 0;
		for (long i = 0; i < walks; i++)
			total += walk((enum how)how, fp, sp);
		double ns = (now() - t0) / (double)walks;
		printf("  %-10s %8.0f ns a walk, %6.1f ns a frame (frames %ld)\n", name[how], ns, ns / (double)frames,
		       total / walks);
	}
	return frames;
}

int main(int argc, char **argv)
{
	walks = argc > 1 ? atol(argv[1]) : 200000;
	depth = argc > 2 ? atol(argv[2]) : 30;
	mem_fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (mem_fd < 0) {
		perror("/proc/self/mem");
		return 1;
	}
	return measure(depth, NULL) > 0 ? 0 : 1;
}
