/*
 * file_pages: file-backed memory for the DAMOS pageout test. Writes a 4 MiB file, maps it
 * read-only and private, reads every page, then leaves the mapping alone for idle_ms (DAMON
 * sees it cold) and reads it once more at the end. Prints the mapping's bounds and a checksum
 * to stdout (the output that must not change), and how many of its pages mincore(2) found
 * resident before and after the idle time to the file named by the second argument.
 *
 * usage: file_pages DIR/file idle_ms report_file
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LEN (4UL << 20)
#define PAGE 4096UL

static size_t resident(unsigned char *p)
{
	unsigned char vec[LEN / PAGE];
	if (mincore(p, LEN, vec) != 0) {
		perror("mincore");
		exit(1);
	}
	size_t n = 0;
	for (size_t i = 0; i < LEN / PAGE; i++)
		n += vec[i] & 1;
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: file_pages FILE IDLE_MS REPORT\n");
		return 2;
	}
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror("open");
		return 1;
	}
	static unsigned char block[PAGE];
	for (size_t off = 0; off < LEN; off += PAGE) {
		for (size_t i = 0; i < PAGE; i++)
			block[i] = (unsigned char)((off / PAGE) * 31 + i);
		if (write(fd, block, PAGE) != (ssize_t)PAGE) {
			perror("write");
			return 1;
		}
	}
	fsync(fd);
	unsigned char *p = mmap(NULL, LEN, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("file %p %p\n", (void *)p, (void *)(p + LEN));
	fflush(stdout);
	uint64_t sum = 0;
	for (size_t off = 0; off < LEN; off += 64)
		sum = sum * 31 + p[off];
	size_t before = resident(p);
	struct timespec idle = { atol(argv[2]) / 1000, (atol(argv[2]) % 1000) * 1000000L };
	nanosleep(&idle, NULL);
	size_t after = resident(p);
	uint64_t again = 0;
	for (size_t off = 0; off < LEN; off += 64)
		again = again * 31 + p[off];
	printf("sum %llu %s\n", (unsigned long long)sum, sum == again ? "same" : "CHANGED");
	FILE *r = fopen(argv[3], "w");
	if (!r) {
		perror("report");
		return 1;
	}
	fprintf(r, "resident before %zu after %zu of %lu\n", before, after, LEN / PAGE);
	fclose(r);
	munmap(p, LEN);
	close(fd);
	unlink(argv[1]);
	return 0;
}
