/*
 * deep_stack: one frame deeper than the stack the kernel mapped at exec (132 KiB), so that the
 * kernel grows [stack] on access, with no system call the agent sees. Every page of the frame is
 * written, deepest first. Under the mprotect engine the grown part inherited the PROT_NONE of
 * the stack's lowest disabled page and the program died of SIGSEGV; under sigbus its pages were
 * filled unrecorded. Traced, each page of the frame is a write reference under every engine.
 *
 *   deep_stack KIB   prints "pages N sum S" on stdout, the frame's lowest and highest byte's
 *                    addresses in hex on stderr
 */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) void deep(size_t bytes)
{
	volatile char frame[bytes];
	long sum = 0, pages = 0;
	for (size_t i = 0; i < bytes; i += 4096, pages++)
		frame[i] = (char)((i >> 12) & 0x7f);
	for (size_t i = 0; i < bytes; i += 4096)
		sum += frame[i];
	fprintf(stderr, "frame %lx %lx\n", (unsigned long)&frame[0], (unsigned long)&frame[bytes - 1]);
	printf("pages %ld sum %ld\n", pages, sum);
}

int main(int argc, char **argv)
{
	size_t kib = argc > 1 ? (size_t)atol(argv[1]) : 1024;
	deep(kib * 1024);
	return 0;
}
