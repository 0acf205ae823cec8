/*
 * other_allocator: a program linked with an allocator of its own as a shared library
 * (toy_alloc.c, as jemalloc would be). Every block it and glibc allocate must come from that
 * allocator, traced or not: malloc_usable_size, the allocator's own, aborts on any other block.
 * Build: gcc other_allocator.c TOY_ALLOC.so (the library, linked by its path).
 *
 *   other_allocator   prints what it computed and whether the toy allocator served every block
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long toy_alloc_blocks(void);
unsigned long toy_alloc_freed(void);

static void *worker(void *arg)
{
	char *s = strdup((const char *)arg); /* glibc's strdup: malloc through the PLT */
	size_t n = malloc_usable_size(s);
	free(s);
	return (void *)n;
}

int main(void)
{
	unsigned long before = toy_alloc_blocks();
	size_t total = 0;
	for (int i = 1; i <= 64; i++) {
		char *p = malloc((size_t)i * 1000);
		memset(p, i, (size_t)i * 1000);
		p = realloc(p, (size_t)i * 3000);
		total += malloc_usable_size(p) + (unsigned char)p[i];
		free(p);
	}
	int *z = calloc(1000, sizeof(int));
	void *a = NULL;
	if (posix_memalign(&a, 4096, 10000) != 0)
		return 1;
	void *b = aligned_alloc(64, 640);
	total += malloc_usable_size(z) + malloc_usable_size(a) + malloc_usable_size(b) + (size_t)z[999];
	free(z);
	free(a);
	free(b);
	pthread_t t;
	void *r;
	if (pthread_create(&t, NULL, worker, "a string of the worker thread") != 0 || pthread_join(t, &r) != 0)
		return 1;
	total += (size_t)r;
	FILE *f = fopen("/proc/self/stat", "r"); /* a FILE and its buffer, from glibc's malloc calls */
	char line[64];
	if (!f || !fgets(line, sizeof(line), f))
		return 1;
	fclose(f);
	printf("total %zu, the toy allocator served every block: %s\n", total,
	       toy_alloc_blocks() > before + 64 && toy_alloc_freed() > 64 ? "yes" : "no");
	return 0;
}
