/*
 * freed_block: a malloc block big enough that glibc mmaps it (16 MiB), written page by page, then
 * freed: glibc unmaps it with its internal munmap, which no interposed munmap sees. userfaultfd
 * says so with UFFD_EVENT_UNMAP; the mprotect engine hears it from the interposed free.
 *
 * A mapping right below the block bounds the hole it leaves, and no other gap above it is as
 * big, so the next big piece of memory the agent maps for itself (the page states of the 16 GiB
 * area that follows: 8 MiB under the mprotect engine) lands in the hole. Recorded with an EVMS
 * of the block's size, every page of the block is enabled when it is freed: an agent that kept
 * them would evict them, its own memory among them, as the program touches the area.
 *
 *   freed_block TOUCH   prints the block and the area, then a sum that must be the native one;
 *                       TOUCH pages of the area are written (8192 by default), one reference each
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096UL
#define BLOCK 4096UL            /* pages: 16 MiB, far above glibc's mmap threshold */
#define AREA (4096UL * 1024)    /* pages: 16 GiB of address space, MAP_NORESERVE */

int main(int argc, char **argv)
{
	unsigned long touch = argc > 1 ? strtoul(argv[1], NULL, 10) : 8192;
	if (touch > AREA)
		touch = AREA;
	unsigned char *b = malloc(BLOCK * PAGE);
	if (!b) {
		perror("malloc");
		return 1;
	}
	uintptr_t below = ((uintptr_t)b & ~(uintptr_t)(PAGE - 1)) - PAGE;
	void *fence = mmap((void *)below, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	(void)fence; /* taken already (by the agent's parking area under userfaultfd): bounded all the same */
	printf("block %p %p\n", (void *)b, (void *)(b + BLOCK * PAGE));
	for (unsigned long i = 0; i < BLOCK; i++)
		b[i * PAGE] = (unsigned char)i;
	unsigned long sum = 0;
	for (unsigned long i = 0; i < BLOCK; i++)
		sum += b[i * PAGE];
	free(b);
	unsigned char *a = mmap(NULL, AREA * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("area %p %p\n", (void *)a, (void *)(a + touch * PAGE));
	for (unsigned long i = 0; i < touch; i++)
		a[i * PAGE] = (unsigned char)(i * 7);
	for (unsigned long i = 0; i < touch; i++)
		sum += a[i * PAGE];
	printf("sum %lu\n", sum);
	return 0;
}
