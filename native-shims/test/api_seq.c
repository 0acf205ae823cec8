/*
 * api_seq: scope "api" workload with a known reference sequence. Traces 8 pages, then reads
 * and writes cyclically over evms + 1 of them (every first reference of a round faults under
 * FIFO), reads into a disabled page with read(2) (a kernel-mode write), and logs every
 * reference it makes ("r|w <address>") to the file given as argv[2], for fifo_check.py.
 *
 *   api_seq <evms_pages> <reflog> [rounds]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "faultline.h"

#define PAGE 4096

int main(int argc, char **argv)
{
	int evms = argc > 1 ? atoi(argv[1]) : 4;
	FILE *log = fopen(argc > 2 ? argv[2] : "/dev/null", "w");
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	int pages = 8;
	if (!log || evms + 1 > 6)
		return 2;
	char *buf = aligned_alloc(PAGE, (size_t)pages * PAGE);
	memset(buf, 1, (size_t)pages * PAGE);
	if (faultline_trace_range && faultline_trace_range(buf, (size_t)pages * PAGE) != 0) {
		perror("faultline_trace_range");
		return 1;
	}
	fprintf(log, "range 0x%lx 0x%x\n", (unsigned long)buf, pages * PAGE);
	uint64_t sum = 0;
	for (int r = 0; r < rounds; r++)
		for (int p = 0; p <= evms; p++) {
			volatile char *q = buf + (size_t)p * PAGE + (size_t)((p * 64 + r * 8) % PAGE);
			sum = sum * 31 + (uint8_t)*q;
			fprintf(log, "r 0x%lx\n", (unsigned long)q);
			*q = (char)(sum + 1);
			fprintf(log, "w 0x%lx\n", (unsigned long)q);
		}
	/* read(2) into page 6, disabled since faultline_trace_range: the kernel writes it */
	int fds[2];
	if (pipe(fds) != 0 || write(fds[1], "hello", 5) != 5)
		return 3;
	char *dst = buf + 6 * PAGE + 100;
	if (read(fds[0], dst, 5) != 5)
		return 4;
	fprintf(log, "w 0x%lx\n", (unsigned long)dst);
	for (int i = 0; i < 5; i++)
		sum = sum * 31 + (uint8_t)dst[i];
	fprintf(log, "r 0x%lx\n", (unsigned long)dst);
	/* page 7: read then write (one fault, a read) */
	volatile char *q7 = buf + 7 * PAGE + 8;
	sum = sum * 31 + (uint8_t)*q7;
	fprintf(log, "r 0x%lx\n", (unsigned long)q7);
	*q7 = 9;
	fprintf(log, "w 0x%lx\n", (unsigned long)q7);
	fclose(log);
	printf("api_seq checksum=%016llx\n", (unsigned long long)sum);
	return 0;
}
