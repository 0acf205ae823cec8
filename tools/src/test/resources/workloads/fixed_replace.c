/*
 * fixed_replace: an mmap with MAP_FIXED over memory the program has already touched. The kernel
 * unmaps the old pages and maps fresh zero pages in their place; under userfaultfd that is an
 * UFFD_EVENT_UNMAP, under the mprotect engine only the interposed mmap can say it (a JVM
 * uncommits and commits heap and metaspace so). Each of the AREA pages is written once before
 * the replacement and once after: with an EVMS that holds them all, 2 * AREA references.
 *
 *   fixed_replace        prints the area, then a sum that must be the native one
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096
#define AREA 8

int main(void)
{
	unsigned char *a = mmap(NULL, AREA * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("area %p %p\n", (void *)a, (void *)(a + AREA * PAGE));
	for (int i = 0; i < AREA; i++)
		a[i * PAGE] = (unsigned char)(i + 1);
	unsigned char *b = mmap(a, AREA * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (b != a) {
		perror("mmap MAP_FIXED");
		return 1;
	}
	unsigned sum = 0;
	for (int i = 0; i < AREA; i++) {
		sum += a[i * PAGE]; /* zero: the old contents are gone */
		a[i * PAGE] = (unsigned char)(2 * i + 1);
	}
	for (int i = 0; i < AREA; i++)
		sum += a[i * PAGE];
	printf("sum %u\n", sum);
	return 0;
}
