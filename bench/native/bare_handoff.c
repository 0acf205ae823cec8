/*
 * bare_handoff: the floor for the agent's cost per trapped reference. Only the userfaultfd
 * handoff, with the agent's order of operations: the main thread touches W+1 pages cyclically
 * (every touch faults with a FIFO window of W pages); a handler thread reads the fault, moves
 * the oldest enabled page out to its parking slot, and moves the faulting page back (which
 * wakes the main thread). No records, no ring, no tables.
 *
 *   bare_handoff [refs] [window] [same|free]
 *     same: main thread and handler pinned to CPU 0; free: the scheduler places them.
 * Prints: bare_handoff refs=.. window=.. placement=.. ns_per_ref=..
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <uffd_move.h> /* native-shims/include */

#define PAGE 4096UL

static int uffd;
static char *region, *park;
static long window;
static int same_cpu;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int move(uintptr_t dst, uintptr_t src, size_t len, uint64_t mode)
{
	struct uffdio_move m = { .dst = dst, .src = src, .len = len, .mode = mode };
	return ioctl(uffd, UFFDIO_MOVE, &m) < 0 ? -errno : 0;
}

static void pin(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		die("sched_setaffinity");
}

static void *handler(void *arg)
{
	(void)arg;
	if (same_cpu)
		pin();
	uintptr_t *fifo = calloc((size_t)window + 1, sizeof(uintptr_t));
	long head = 0, count = 0;
	struct uffd_msg msgs[16];
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	for (;;) {
		ssize_t n = read(uffd, msgs, sizeof(msgs));
		if (n < 0) {
			if (errno != EAGAIN)
				die("read uffd");
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				die("poll");
			continue;
		}
		for (long i = 0; i < n / (long)sizeof(msgs[0]); i++) {
			uintptr_t page = msgs[i].arg.pagefault.address & ~(PAGE - 1);
			if (count == window) { /* move out the oldest first, as the agent does */
				uintptr_t old = fifo[head];
				head = (head + 1) % (window + 1);
				count--;
				if (move((uintptr_t)park + (old - (uintptr_t)region), old, PAGE, UFFDIO_MOVE_MODE_DONTWAKE))
					die("move out");
			}
			if (move(page, (uintptr_t)park + (page - (uintptr_t)region), PAGE, 0))
				die("move back");
			fifo[(head + count) % (window + 1)] = page;
			count++;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long refs = argc > 1 ? atol(argv[1]) : 200000;
	window = argc > 2 ? atol(argv[2]) : 4;
	same_cpu = argc > 3 && strcmp(argv[3], "same") == 0;
	long pages = window + 1;
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (same_cpu)
		pin();

	int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	uffd = dev >= 0 ? ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK) : (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		die("userfaultfd");
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_MOVE | UFFD_FEATURE_EXACT_ADDRESS | UFFD_FEATURE_THREAD_ID };
	if (ioctl(uffd, UFFDIO_API, &api) < 0)
		die("UFFDIO_API");
	region = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	park = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (region == MAP_FAILED || park == MAP_FAILED)
		die("mmap");
	for (long i = 0; i < pages; i++)
		region[i * PAGE] = (char)i;
	struct uffdio_register reg = { .range = { (uintptr_t)region, pages * PAGE }, .mode = UFFDIO_REGISTER_MODE_MISSING };
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
		die("register region");
	reg.range.start = (uintptr_t)park;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
		die("register park");
	if (move((uintptr_t)park, (uintptr_t)region, pages * PAGE, UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES))
		die("disable");
	pthread_t th;
	if (pthread_create(&th, NULL, handler, NULL))
		die("pthread_create");

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t sum = 0;
	for (long i = 0; i < refs; i++)
		sum += (uint8_t) * (volatile char *)(region + (i % pages) * PAGE);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)refs;
	printf("bare_handoff refs=%ld window=%ld placement=%s ns_per_ref=%.0f sum=%llu\n", refs, window,
	       same_cpu ? "same" : "free", ns, (unsigned long long)sum);
	return 0;
}
