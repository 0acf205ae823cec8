/*
 * hidden_hot: two hot areas that no interposed call announces, for the DAMON monitor's tests.
 * "stack" is 4 MiB of a second thread's stack, which glibc maps with its internal mmap; "raw"
 * is 8 MiB mapped with a raw mmap system call after that thread has started, so neither the
 * agent's mmap wrapper nor the thread's start sees it: only a rescan of the mappings does.
 * Both are written all the time for run_ms. Prints each area's bounds, then what must not
 * change under monitoring: every page of an area was written alike.
 *
 * usage: hidden_hot [run_ms]   (default 3000)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#define RAW (8UL << 20)
#define STACK_AREA (4UL << 20)
#define PAGE 4096UL

static uint64_t run_ns;
static pthread_barrier_t started;
static const char *stack_alike;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* mmap(2) by the syscall instruction itself: no libc entry point an agent could interpose */
static void *raw_mmap(size_t len)
{
	long r;
	register long flags __asm__("r10") = MAP_PRIVATE | MAP_ANONYMOUS;
	register long fd __asm__("r8") = -1;
	register long off __asm__("r9") = 0;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_mmap), "D"(0L), "S"(len), "d"((long)(PROT_READ | PROT_WRITE)), "r"(flags), "r"(fd),
			   "r"(off)
			 : "rcx", "r11", "memory");
	return r < 0 && r > -4096 ? NULL : (void *)r;
}

static void sweep(volatile unsigned char *p, size_t len, unsigned v)
{
	for (size_t off = 0; off < len; off += PAGE)
		p[off + (v % 64)] += (unsigned char)v;
}

static int alike(const unsigned char *p, size_t len)
{
	for (size_t off = PAGE; off < len; off += PAGE)
		if (memcmp(p, p + off, PAGE) != 0)
			return 0;
	return 1;
}

static void *stack_thread(void *arg)
{
	(void)arg;
	unsigned char buf[STACK_AREA + PAGE];
	unsigned char *area = (unsigned char *)(((uintptr_t)buf + PAGE - 1) & ~(PAGE - 1));
	memset(area, 0, STACK_AREA);
	printf("stack %p %p\n", (void *)area, (void *)(area + STACK_AREA));
	fflush(stdout);
	pthread_barrier_wait(&started);
	uint64_t start = now_ns();
	for (unsigned v = 1; now_ns() - start < run_ns; v++)
		sweep(area, STACK_AREA, v);
	stack_alike = alike(area, STACK_AREA) ? "yes" : "NO";
	return NULL;
}

int main(int argc, char **argv)
{
	run_ns = (argc > 1 ? strtoull(argv[1], NULL, 10) : 3000) * 1000000ULL;
	pthread_barrier_init(&started, NULL, 2);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_AREA + (1UL << 20));
	pthread_t t;
	if (pthread_create(&t, &attr, stack_thread, NULL) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	pthread_barrier_wait(&started);
	unsigned char *raw = raw_mmap(RAW);
	if (!raw) {
		fprintf(stderr, "mmap failed\n");
		return 1;
	}
	printf("raw %p %p\n", (void *)raw, (void *)(raw + RAW));
	fflush(stdout);
	uint64_t start = now_ns();
	for (unsigned v = 1; now_ns() - start < run_ns; v++)
		sweep(raw, RAW, v);
	pthread_join(t, NULL);
	printf("stack pages alike: %s\nraw pages alike: %s\n", stack_alike, alike(raw, RAW) ? "yes" : "NO");
	return 0;
}
