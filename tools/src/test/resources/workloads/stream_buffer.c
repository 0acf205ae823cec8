/*
 * stream_buffer: where glibc put stdout's buffer and how large it is, after the first output.
 * Under the gate the program keeps glibc's own buffer, from malloc, as natively, and so the size
 * of every write it makes; the agent's buffer (touch.c, for the in-thread engines with the gate
 * off) changed both.
 *
 *   stream_buffer   prints the buffer's size and whether it lies in the brk heap
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	void *block = malloc(16); /* the heap exists before the buffer does */
	uintptr_t heap_start = (uintptr_t)block;
	printf("first line\n");
	fflush(stdout);
	uintptr_t buf = (uintptr_t)stdout->_IO_buf_base;
	int in_heap = buf >= heap_start && buf < (uintptr_t)sbrk(0);
	printf("stdout buffer: %zu bytes, %s\n", (size_t)(stdout->_IO_buf_end - stdout->_IO_buf_base),
	       in_heap ? "in the heap" : "elsewhere");
	free(block);
	return 0;
}
