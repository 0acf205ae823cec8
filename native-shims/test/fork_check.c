/*
 * fork_check: scope "all" workload for the fork wrapper. Fills 64 pages, forks; the child
 * checksums the inherited pages (they must be complete: the agent brought every parked page
 * home before the fork) and exits with 0 if they match; the parent keeps using its pages
 * (traced again after the fork) and prints one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGES 64
#define PAGE 4096

static uint64_t checksum(const unsigned char *b)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < (size_t)PAGES * PAGE; i += 64)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

int main(void)
{
	unsigned char *b = malloc((size_t)PAGES * PAGE);
	for (size_t i = 0; i < (size_t)PAGES * PAGE; i++)
		b[i] = (unsigned char)(i * 7 + i / PAGE);
	uint64_t want = checksum(b);
	pid_t pid = fork();
	if (pid == 0)
		_exit(checksum(b) == want ? 0 : 1);
	int status;
	waitpid(pid, &status, 0);
	uint64_t again = checksum(b);
	printf("fork_check child=%s parent=%s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "CORRUPT",
	       again == want ? "ok" : "CORRUPT");
	return 0;
}
