/*
 * wp_async_probe: asynchronous write-protect (UFFD_FEATURE_WP_ASYNC) and PAGEMAP_SCAN on this
 * kernel, as the agent's dirty tracking uses them (issue 31; docs/ARCHITECTURE.md, "Dirty
 * tracking"): a page enabled by a read is moved home and write-protected; the kernel resolves
 * its first write without a message; the eviction asks PAGEMAP_SCAN whether it was written.
 *
 *   gcc -O2 -pthread -Inative-shims/include -o /tmp/wpa bench/native/wp_async_probe.c && /tmp/wpa
 *
 * Facts, one line each: the features granted; a protected page written reads as written and
 * raised no message; a page moved out and back arrives unprotected (reads as written: protect
 * after every move home, as before); UFFDIO_WRITEPROTECT of an empty slot leaves a marker
 * (WP_ASYNC implies WP_UNPOPULATED) into which UFFDIO_MOVE then fails; a scan that protects
 * only present pages leaves none; PM_SCAN_CHECK_WPASYNC fails with EPERM on memory not
 * registered with the userfaultfd (the sigbus engine's eviction probe).
 * Then the costs, per page, one thread (the write-protect fault with a handler thread on the
 * other side, as the uffd engine's synchronous dirty tracking pays it), each the median of
 * 4,080 operations timed one by one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <uffd_move.h>
#include <pagemap_scan.h>

#define PG 4096
#define N 4096

static int uffd, pm;

static int reg(void *p, size_t len)
{
	struct uffdio_register r = { .range = { (uintptr_t)p, len },
				     .mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP };
	return ioctl(uffd, UFFDIO_REGISTER, &r) ? -errno : 0;
}

static int move(void *dst, void *src)
{
	struct uffdio_move m = { (uintptr_t)dst, (uintptr_t)src, PG, UFFDIO_MOVE_MODE_DONTWAKE, 0 };
	return ioctl(uffd, UFFDIO_MOVE, &m) ? -errno : 0;
}

static int wp(void *p, size_t len, int on)
{
	struct uffdio_writeprotect w = { .range = { (uintptr_t)p, len },
					  .mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : UFFDIO_WRITEPROTECT_MODE_DONTWAKE };
	return ioctl(uffd, UFFDIO_WRITEPROTECT, &w) ? -errno : 0;
}

/* pages of [p, p + len) written: count of written pages, or -errno */
static long written(void *p, size_t len, uint64_t flags)
{
	static struct page_region v[N];
	struct pm_scan_arg a = { .size = sizeof(a), .flags = flags, .start = (uintptr_t)p, .end = (uintptr_t)p + len,
				 .vec = (uintptr_t)v, .vec_len = N, .category_mask = PAGE_IS_WRITTEN,
				 .return_mask = PAGE_IS_WRITTEN };
	long r = ioctl(pm, PAGEMAP_SCAN, &a);
	if (r < 0)
		return -errno;
	long pages = 0;
	for (long i = 0; i < r; i++)
		pages += (long)((v[i].end - v[i].start) / PG);
	return pages;
}

/* write-protect the present pages of [p, p + len) only */
static long protect_present(void *p, size_t len)
{
	struct page_region v[1];
	struct pm_scan_arg a = { .size = sizeof(a), .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
				 .start = (uintptr_t)p, .end = (uintptr_t)p + len, .vec = (uintptr_t)v, .vec_len = 1,
				 .category_mask = PAGE_IS_PRESENT, .return_mask = PAGE_IS_PRESENT };
	long r = ioctl(pm, PAGEMAP_SCAN, &a);
	return r < 0 ? -errno : r;
}

static char *area(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

static int messages(void)
{
	struct uffd_msg m;
	int n = 0;
	while (read(uffd, &m, sizeof(m)) == sizeof(m))
		n++;
	return n;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double samples[N];

/* the median of n samples of ns, in us */
static double median_us(int n)
{
	qsort(samples, (size_t)n, sizeof(samples[0]), by_value);
	return samples[n / 2] / 1e3;
}

/* OP (an expression of i) once for every i < n, each timed alone; prints the median */
#define TIME(what, op)                                                    \
	do {                                                              \
		for (int i = 0; i < n; i++) {                             \
			double a_ = now();                                \
			op;                                               \
			samples[i] = now() - a_;                          \
		}                                                         \
		printf("%s: %.2f us median of %d\n", what, median_us(n), n); \
	} while (0)

/* the synchronous path: a handler thread reads each WP fault and lifts the protection */
static volatile int stop;
static void *handler(void *arg)
{
	(void)arg;
	int sync = *(int *)arg;
	struct uffd_msg m;
	while (!stop) {
		if (read(sync, &m, sizeof(m)) != sizeof(m))
			continue;
		uintptr_t page = m.arg.pagefault.address & ~(uintptr_t)(PG - 1);
		struct uffdio_writeprotect w = { .range = { page, PG }, .mode = 0 };
		ioctl(sync, UFFDIO_WRITEPROTECT, &w);
	}
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	pm = open("/proc/self/pagemap", O_RDONLY);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	/* a feature the kernel lacks is refused with EINVAL before the handshake is done: ask again */
	struct uffdio_api lacking = { .api = UFFD_API, .features = UFFD_FEATURE_MOVE | (1ULL << 62) };
	int refused = ioctl(uffd, UFFDIO_API, &lacking) ? -errno : 0;
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_MOVE | UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_ASYNC };
	int again = ioctl(uffd, UFFDIO_API, &api) ? -errno : 0;
	printf("a feature the kernel lacks: %d; asked again without it: %d\n", refused, again);
	if (pm < 0 || uffd < 0 || again) {
		perror("userfaultfd WP_ASYNC");
		return 1;
	}
	printf("features granted: WP_ASYNC %d, WP_UNPOPULATED %d (asked only WP_ASYNC)\n",
	       !!(api.features & UFFD_FEATURE_WP_ASYNC), !!(api.features & UFFD_FEATURE_WP_UNPOPULATED));
	char *home = area(N * PG), *park = area(N * PG), *other = area(PG);
	for (int i = 0; i < N; i++)
		park[i * PG] = 1;
	printf("register: %d %d\n", reg(home, N * PG), reg(park, N * PG));

	/* (one call a statement: the order of a call's arguments is unspecified) */
	int e1 = move(home, park), e2 = wp(home, PG, 1);
	long w1 = written(home, PG, 0);
	printf("move home, protect: %d %d; written %ld\n", e1, e2, w1);
	home[0] = 2;
	w1 = written(home, PG, 0);
	printf("after a write: written %ld, messages %d, value %d\n", w1, messages(), home[0]);
	e1 = wp(home, PG, 1);
	w1 = written(home, PG, 0);
	printf("protect again: %d; written %ld\n", e1, w1);
	e1 = move(park, home);
	w1 = written(park, PG, 0);
	e2 = move(home, park);
	long w2 = written(home, PG, 0);
	printf("move out, clean: %d; the slot reads written %ld; home again: %d, written %ld\n", e1, w1, e2, w2);

	/* an empty slot, protected: a marker */
	char *empty = home + 8 * PG;
	e1 = wp(empty, PG, 1);
	e2 = move(empty, park + 8 * PG);
	printf("protect an empty slot: %d; move into it: %d\n", e1, e2);
	struct uffdio_zeropage z = { .range = { (uintptr_t)empty, PG }, .mode = UFFDIO_ZEROPAGE_MODE_DONTWAKE };
	printf("zeropage into it: %d\n", ioctl(uffd, UFFDIO_ZEROPAGE, &z) ? -errno : 0);
	e1 = wp(empty, PG, 0);
	e2 = move(empty, park + 8 * PG);
	printf("unprotect it (the marker goes): %d; move into it: %d\n", e1, e2);
	char *empty2 = home + 9 * PG;
	w1 = protect_present(empty2, PG);
	e2 = move(empty2, park + 9 * PG);
	printf("protect-present scan of an empty slot: %ld; move into it: %d\n", w1, e2);
	w1 = protect_present(empty2, PG);
	w2 = written(empty2, PG, 0);
	printf("protect-present scan of a present page: %ld; written %ld\n", w1, w2);

	/* the zero page (first-touch reads) protected and written */
	char *zp = home + 10 * PG;
	struct uffdio_zeropage z2 = { .range = { (uintptr_t)zp, PG }, .mode = UFFDIO_ZEROPAGE_MODE_DONTWAKE };
	int zr = ioctl(uffd, UFFDIO_ZEROPAGE, &z2) ? -errno : 0;
	e1 = wp(zp, PG, 1);
	w1 = written(zp, PG, 0);
	printf("zero page, protect: %d %d, written %ld", zr, e1, w1);
	zp[5] = 9;
	w1 = written(zp, PG, 0);
	printf("; after a write: written %ld, value %d, messages %d\n", w1, zp[5], messages());

	other[0] = 1;
	w1 = written(home, PG, PM_SCAN_CHECK_WPASYNC);
	w2 = written(other, PG, PM_SCAN_CHECK_WPASYNC);
	long w3 = written(other, PG, 0);
	printf("scan with CHECK_WPASYNC: registered %ld, unregistered %ld; plain scan unregistered %ld\n", w1, w2, w3);

	/* 1,366 of 4,096 pages written, every third: one scan finds exactly them */
	char *big = home + 16 * PG;
	int n = N - 16, moved = 0;
	for (int i = 0; i < n; i++)
		moved += move(big + i * PG, park + (16 + i) * PG) == 0;
	wp(big, (size_t)n * PG, 1);
	int want = 0;
	for (int i = 0; i < n; i += 3, want++)
		big[i * PG] = 3;
	printf("%d pages moved home and protected, %d written: one scan says %ld\n", moved, want, written(big, (size_t)n * PG, 0));

	/*
	 * Costs: each operation timed alone and the median taken, so that a preemption by the
	 * machine's other load (2 shared CPUs) falls on a few samples, not on the figure.
	 */
	TIME("one-page UFFDIO_WRITEPROTECT", wp(big + i * PG, PG, 1));
	TIME("asynchronous write to a protected page", big[i * PG] = 4);
	TIME("write to a page already written", big[i * PG] = 5);
	long seen = 0;
	TIME("one-page scan (PAGEMAP_SCAN, PAGE_IS_WRITTEN)", seen += written(big + i * PG, PG, 0));
	TIME("one-page protect-present scan", protect_present(big + i * PG, PG));
	double t0 = now();
	seen = written(big, (size_t)n * PG, 0);
	double t1 = now();
	printf("one scan of %d pages: %.2f us (%ld written)\n", n, (t1 - t0) / 1e3, seen);

	/* the synchronous path: write-protect faults resolved by a handler thread */
	int sync = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	struct uffdio_api sapi = { .api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	char *s = area((size_t)n * PG);
	memset(s, 1, (size_t)n * PG);
	struct uffdio_register sr = { .range = { (uintptr_t)s, (size_t)n * PG }, .mode = UFFDIO_REGISTER_MODE_WP };
	if (ioctl(sync, UFFDIO_API, &sapi) || ioctl(sync, UFFDIO_REGISTER, &sr)) {
		perror("sync uffd");
		return 1;
	}
	struct uffdio_writeprotect sw = { .range = { (uintptr_t)s, (size_t)n * PG }, .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	ioctl(sync, UFFDIO_WRITEPROTECT, &sw);
	pthread_t h;
	pthread_create(&h, NULL, handler, &sync);
	TIME("synchronous write-protect fault, handler thread", s[i * PG] = 2);
	stop = 1;
	s[0] = 3; /* nothing protected: the handler leaves at its next read timeout... */
	pthread_cancel(h);
	return 0;
}
