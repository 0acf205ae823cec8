/*
 * close_all: writes 2,000 malloc blocks with known bytes (most of them then away from their
 * pages under an EVMS of 512), closes every descriptor but 0, 1 and 2 (close_range, as closefrom
 * and python's subprocess do), closes descriptors 960 to 999 one by one, and checks its blocks:
 * "close_range 0 close EBADF 40 bad 0" natively. The agent keeps its descriptors at 960 and up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	static char *b[2000];
	for (int i = 0; i < 2000; i++) {
		b[i] = malloc(4000);
		memset(b[i], 'A' + i % 26, 4000);
	}
	long r = syscall(SYS_close_range, 3, ~0U, 0);
	int ebadf = 0;
	for (int fd = 960; fd < 1000; fd++)
		ebadf += close(fd) == -1 && errno == EBADF;
	long bad = 0;
	for (int i = 0; i < 2000; i++)
		for (int k = 0; k < 4000; k += 512)
			bad += b[i][k] != 'A' + i % 26;
	printf("close_range %ld close EBADF %d bad %ld\n", r, ebadf, bad);
	return 0;
}
