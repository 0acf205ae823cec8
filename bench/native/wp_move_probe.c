/*
 * wp_move_probe: does userfaultfd write-protection combine with UFFDIO_MOVE on this kernel?
 * The EVMS's dirty flag (trace-format/FORMAT.md, "EVMS") needs it: a page enabled by a read is
 * moved home from its parking slot and then write-protected, so its first write faults.
 *
 *   gcc -O1 -pthread -o /tmp/wp bench/native/wp_move_probe.c && /tmp/wp
 *
 * Checks, one line each: registering MISSING|WP on the traced and the parking page; a move
 * home; UFFDIO_WRITEPROTECT on the moved page; a write from another thread then raising a
 * fault message with UFFD_PAGEFAULT_FLAG_WP; whether a write-protected page moved out and
 * back keeps its protection (the agent must protect again after every move if not); and
 * write-protection of a zero page (first-touch reads are resolved with UFFDIO_ZEROPAGE).
 * Linux 6.18 here: all work; the move drops the protection; WP with DONTWAKE is EINVAL.
 * Last, the cost of a move out and home with and without a write-protect, in one thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1 << 16)
struct uffdio_move {
	__u64 dst, src, len, mode;
	__s64 move;
};
#define UFFDIO_MOVE _IOWR(UFFDIO, 0x05, struct uffdio_move)
#endif
#define PG 4096

static int uffd;
static volatile char *target;

static void *writer(void *a)
{
	(void)a;
	target[0] = 42;
	return NULL;
}

static int reg(char *p)
{
	struct uffdio_register r = { .range = { (uintptr_t)p, PG },
				     .mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP };
	return ioctl(uffd, UFFDIO_REGISTER, &r) ? -errno : 0;
}

static int move(char *dst, char *src)
{
	struct uffdio_move m = { (uintptr_t)dst, (uintptr_t)src, PG, 0, 0 };
	return ioctl(uffd, UFFDIO_MOVE, &m) ? -errno : 0;
}

static int wp(char *p, __u64 mode)
{
	struct uffdio_writeprotect w = { .range = { (uintptr_t)p, PG }, .mode = mode };
	return ioctl(uffd, UFFDIO_WRITEPROTECT, &w) ? -errno : 0;
}

/* a write from another thread: did it raise a WP fault? (unprotects and lets it finish) */
static const char *write_faults(char *p)
{
	pthread_t t;
	target = p;
	pthread_create(&t, NULL, writer, NULL);
	usleep(100000);
	struct uffd_msg msg;
	int wp_fault = read(uffd, &msg, sizeof(msg)) == sizeof(msg) && (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP);
	if (wp_fault)
		wp(p, 0);
	pthread_join(t, NULL);
	return wp_fault ? "WP fault" : "no fault";
}

static char *page(void)
{
	char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(p, PG, MADV_NOHUGEPAGE);
	return p;
}

int main(void)
{
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_MOVE | UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		perror("userfaultfd");
		return 1;
	}
	char *home = page(), *park = page(), *zero = page();
	park[0] = 7;
	int parked = reg(park);
	printf("register MISSING|WP: %d %d\n", parked, reg(home));
	printf("move home: %d\n", move(home, park));
	printf("write-protect with DONTWAKE: %d\n", wp(home, UFFDIO_WRITEPROTECT_MODE_WP | UFFDIO_WRITEPROTECT_MODE_DONTWAKE));
	printf("write-protect: %d\n", wp(home, UFFDIO_WRITEPROTECT_MODE_WP));
	const char *seen = write_faults(home);
	printf("write to the moved, protected page: %s; value %d\n", seen, home[0]);
	int protect = wp(home, UFFDIO_WRITEPROTECT_MODE_WP);
	int out = move(park, home);
	printf("protect, move out and back: %d %d %d\n", protect, out, move(home, park));
	printf("write after the round trip: %s\n", write_faults(home));
	reg(zero);
	struct uffdio_zeropage z = { .range = { (uintptr_t)zero, PG }, .mode = 0 };
	int zeroed = ioctl(uffd, UFFDIO_ZEROPAGE, &z) ? -errno : 0;
	printf("zero page, protect: %d %d\n", zeroed, wp(zero, UFFDIO_WRITEPROTECT_MODE_WP));
	seen = write_faults(zero);
	printf("write to the protected zero page: %s; value %d\n", seen, zero[0]);

	/* cost, same thread: a move home and back, with and without write-protecting in between */
	for (int protect = 0; protect < 2; protect++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < 20000; i++) {
			move(park, home);
			move(home, park);
			if (protect)
				wp(home, UFFDIO_WRITEPROTECT_MODE_WP);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("move out and home%s: %.0f ns\n", protect ? " + write-protect" : "",
		       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 20000);
	}
	return 0;
}
