/*
 * held_buffers: two buffers for other processes to read through the kernel while the program
 * waits (RemoteViewTest): "far", 64 pages written first, then 2,048 other pages written, so
 * that under an EVMS of 512 pages far is away from its pages (parked, or PROT_NONE); "near", one
 * page written last, enabled. Page p of far holds 'a' + p % 26, near holds 'n'. Prints
 * "ready PID FAR FAR_LEN NEAR NEAR_LEN" and waits until its standard input ends.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096
#define FAR_PAGES 64
#define CHURN_PAGES 2048

int main(void)
{
	char *far = mmap(NULL, FAR_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *churn = mmap(NULL, CHURN_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *near = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (far == MAP_FAILED || churn == MAP_FAILED || near == MAP_FAILED)
		return 1;
	for (int p = 0; p < FAR_PAGES; p++)
		memset(far + p * PAGE, 'a' + p % 26, PAGE);
	for (int p = 0; p < CHURN_PAGES; p++)
		churn[p * PAGE] = 1;
	memset(near, 'n', PAGE);
	printf("ready %d %lx %d %lx %d\n", (int)getpid(), (unsigned long)far, FAR_PAGES * PAGE, (unsigned long)near, PAGE);
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
