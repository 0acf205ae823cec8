/*
 * toy_alloc: an allocator of its own, built as a shared library, as jemalloc or tcmalloc is for
 * the programs linked with them. A bump allocator over one mapping: every block carries a header
 * with a magic word, and malloc_usable_size, like jemalloc's, refuses a block it did not hand out
 * (it prints why and aborts). free counts the blocks given back. toy_alloc_blocks says how many
 * blocks it served.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARENA (256UL << 20)
#define MAGIC 0x70795f616c6c6f63UL

struct header {
	uint64_t magic;
	uint64_t size;
};

static uint8_t *arena;
static size_t used;
static int lock;
static unsigned long served, freed;

static struct header *header_of(void *p)
{
	struct header *h = (struct header *)p - 1;
	if (h->magic != MAGIC) {
		static const char msg[] = "toy_alloc: a block this allocator did not hand out\n";
		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	return h;
}

static void *take(size_t align, size_t n)
{
	if (align < 16)
		align = 16;
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		;
	if (!arena) {
		arena = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (arena == MAP_FAILED)
			abort();
	}
	uintptr_t at = ((uintptr_t)arena + used + sizeof(struct header) + align - 1) & ~(uintptr_t)(align - 1);
	void *p = NULL;
	if (at + n <= (uintptr_t)arena + ARENA) {
		used = at + n - (uintptr_t)arena;
		struct header *h = (struct header *)at - 1;
		h->magic = MAGIC;
		h->size = n;
		served++;
		p = (void *)at;
	}
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	if (!p)
		errno = ENOMEM;
	return p;
}

void *malloc(size_t n) { return take(16, n); }

void *calloc(size_t n, size_t m)
{
	void *p = take(16, n * m);
	if (p)
		memset(p, 0, n * m);
	return p;
}

void free(void *p)
{
	if (p) {
		header_of(p);
		__atomic_fetch_add(&freed, 1, __ATOMIC_RELAXED);
	}
}

void *realloc(void *old, size_t n)
{
	void *p = take(16, n);
	if (p && old) {
		size_t had = header_of(old)->size;
		memcpy(p, old, had < n ? had : n);
		free(old);
	}
	return p;
}

void *memalign(size_t align, size_t n) { return take(align, n); }
void *aligned_alloc(size_t align, size_t n) { return take(align, n); }
void *valloc(size_t n) { return take(4096, n); }
void *pvalloc(size_t n) { return take(4096, (n + 4095) & ~4095UL); }

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = take(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

size_t malloc_usable_size(void *p) { return p ? header_of(p)->size : 0; }

unsigned long toy_alloc_blocks(void) { return served; }
unsigned long toy_alloc_freed(void) { return freed; }
