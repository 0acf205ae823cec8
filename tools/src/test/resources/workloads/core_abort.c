/*
 * core_abort: fills COUNT malloc blocks of 4000 bytes with known bytes (block i holds byte
 * 'A' + i % 26 throughout), says where its table of them lies, and aborts: a core dump to read
 * back (CoreDumpTest). COUNT is the first argument, 1,000 by default: with the default EVMS
 * of 512 pages most blocks are away from their addresses (parked) when abort() runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4000
static char *blocks[100000];

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 0; i < count; i++) {
		blocks[i] = malloc(BLOCK);
		memset(blocks[i], 'A' + i % 26, BLOCK);
	}
	printf("blocks %p %d %d\n", (void *)blocks, count, BLOCK);
	fflush(stdout);
	abort();
}
