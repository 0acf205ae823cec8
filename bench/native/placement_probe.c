/*
 * placement_probe: where a userfaultfd handoff's time goes, by where its handler runs. The
 * bare handoff of bare_handoff.c (fault, move the oldest page out, move the faulting page
 * back, wake), each thread over its own WINDOW+1 pages with a FIFO window of WINDOW, so every
 * reference faults, under one handler placement:
 *
 *   pinned  one handler; it and every faulting thread pinned to CPU 0
 *   free    one handler of normal priority, the scheduler placing everything
 *   percpu  one handler per CPU, pinned there, normal priority, all waiting on the uffd
 *   idle    one handler per CPU, pinned there, SCHED_IDLE (the agent's placement)
 *   sigbus  no handler: UFFD_FEATURE_SIGBUS, each thread resolves its own fault in its
 *           SIGBUS handler (in-thread; kernel-mode accesses would fail with EFAULT)
 *
 *   placement_probe MODE [threads=1] [refs=100000] [window=16] [hogs=0]
 * With PROBE_COPY_HOME=1 in the environment a page comes home by UFFDIO_COPY from its slot
 * instead of a move, which clears no page-table entry and so needs no TLB flush; each eviction
 * then moves its page into a fresh slot that is never reused (the stale copies are not freed:
 * the best case for such a scheme, BENCHMARKS.md "Per-CPU handling under record").
 * HOGS threads of normal priority spin meanwhile (oversubscription: SCHED_IDLE handlers then
 * get no CPU). Handlers resolve with DONTWAKE under a lock and wake after releasing it, as the
 * agent does. Prints ns per reference for each faulting thread and faults each handler took.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
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
#define MAX_THREADS 64

enum mode { PINNED, FREE, PERCPU, IDLE, SIGBUS_MODE };
static enum mode mode;
static int uffd, nthreads, ncpu;
static long window, refs;
static char *region, *park;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int copy_home;     /* PROBE_COPY_HOME */
static char *fresh_slots; /* copy_home: slots handed out in order, never reused */
static long fresh_next;
static uintptr_t *slot_of; /* copy_home: where each page of the region was last parked */
static struct fifo {
	uintptr_t *q;
	long head, count;
} fifos[MAX_THREADS];
static long handled[MAX_THREADS];
static double ns_per_ref[MAX_THREADS];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int move(uintptr_t dst, uintptr_t src, uint64_t mode_bits)
{
	struct uffdio_move m = { .dst = dst, .src = src, .len = PAGE, .mode = mode_bits };
	return ioctl(uffd, UFFDIO_MOVE, &m) < 0 ? -errno : 0;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		die("sched_setaffinity");
}

static void resolve(uintptr_t addr, int wake)
{
	uintptr_t page = addr & ~(PAGE - 1);
	struct fifo *f = &fifos[(page - (uintptr_t)region) / PAGE / (uintptr_t)(window + 1)];
	pthread_mutex_lock(&lock);
	if (f->count == window) {
		uintptr_t old = f->q[f->head];
		f->head = (f->head + 1) % (window + 1);
		f->count--;
		uintptr_t slot = (uintptr_t)park + (old - (uintptr_t)region);
		if (copy_home)
			slot = slot_of[(old - (uintptr_t)region) / PAGE] = (uintptr_t)fresh_slots + (uintptr_t)fresh_next++ * PAGE;
		if (move(slot, old, UFFDIO_MOVE_MODE_DONTWAKE))
			die("move out");
	}
	int r;
	if (copy_home) {
		struct uffdio_copy c = { .dst = page, .src = slot_of[(page - (uintptr_t)region) / PAGE], .len = PAGE,
					 .mode = UFFDIO_COPY_MODE_DONTWAKE };
		r = ioctl(uffd, UFFDIO_COPY, &c) < 0 ? -errno : 0;
	} else {
		r = move(page, (uintptr_t)park + (page - (uintptr_t)region), UFFDIO_MOVE_MODE_DONTWAKE);
	}
	if (r && r != -EEXIST) {
		errno = -r;
		die("move back");
	}
	f->q[(f->head + f->count) % (window + 1)] = page;
	f->count++;
	pthread_mutex_unlock(&lock);
	if (wake) {
		struct uffdio_range range = { page, PAGE };
		ioctl(uffd, UFFDIO_WAKE, &range);
	}
}

static void *handler(void *arg)
{
	long id = (long)arg;
	if (mode == PINNED)
		pin(0);
	if (mode == PERCPU || mode == IDLE)
		pin((int)id);
	if (mode == IDLE) {
		struct sched_param sp = { 0 };
		if (sched_setscheduler(0, SCHED_IDLE, &sp) != 0)
			die("SCHED_IDLE");
	}
	struct uffd_msg msgs[16];
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	for (;;) {
		ssize_t n = read(uffd, msgs, sizeof(msgs));
		if (n < 0) {
			if (errno != EAGAIN)
				die("read uffd");
			poll(&p, 1, -1);
			continue;
		}
		for (long i = 0; i < n / (long)sizeof(msgs[0]); i++) {
			resolve(msgs[i].arg.pagefault.address, 1);
			handled[id]++;
		}
	}
	return NULL;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	resolve((uintptr_t)si->si_addr, 0);
}

static void *hog(void *arg)
{
	(void)arg;
	for (volatile unsigned long i = 0;; i++)
		;
	return NULL;
}

static void *worker(void *arg)
{
	long t = (long)arg;
	if (mode == PINNED)
		pin(0);
	volatile char *base = region + t * (window + 1) * PAGE;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	unsigned long sum = 0;
	for (long i = 0; i < refs; i++)
		sum += (unsigned char)base[(i % (window + 1)) * PAGE];
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns_per_ref[t] = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)refs;
	return (void *)sum;
}

int main(int argc, char **argv)
{
	static const char *names[] = { "pinned", "free", "percpu", "idle", "sigbus" };
	if (argc < 2) {
		fprintf(stderr, "usage: placement_probe pinned|free|percpu|idle|sigbus [threads] [refs] [window] [hogs]\n");
		return 2;
	}
	int found = 0;
	for (int m = 0; m < 5; m++)
		if (strcmp(argv[1], names[m]) == 0)
			mode = (enum mode)m, found = 1;
	if (!found)
		die("unknown mode");
	nthreads = argc > 2 ? atoi(argv[2]) : 1;
	refs = argc > 3 ? atol(argv[3]) : 100000;
	window = argc > 4 ? atol(argv[4]) : 16;
	int hogs = argc > 5 ? atoi(argv[5]) : 0;
	if (nthreads < 1 || nthreads > MAX_THREADS)
		die("threads");
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	long pages = nthreads * (window + 1);
	int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	uffd = dev >= 0 ? ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK)
			: (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		die("userfaultfd");
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_MOVE | (mode == SIGBUS_MODE ? UFFD_FEATURE_SIGBUS : 0) };
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
	struct uffdio_move all = { .dst = (uintptr_t)park, .src = (uintptr_t)region, .len = pages * PAGE,
				   .mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES };
	if (ioctl(uffd, UFFDIO_MOVE, &all) < 0)
		die("disable");
	copy_home = getenv("PROBE_COPY_HOME") != NULL;
	if (copy_home) {
		size_t len = (size_t)(refs * nthreads + pages) * PAGE;
		fresh_slots = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (fresh_slots == MAP_FAILED)
			die("mmap slots");
		reg.range.start = (uintptr_t)fresh_slots;
		reg.range.len = len;
		if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
			die("register slots");
		slot_of = calloc((size_t)pages, sizeof(uintptr_t));
		for (long i = 0; i < pages; i++)
			slot_of[i] = (uintptr_t)park + (uintptr_t)i * PAGE;
	}
	for (int t = 0; t < nthreads; t++)
		fifos[t].q = calloc((size_t)window + 1, sizeof(uintptr_t));
	int handlers = mode == SIGBUS_MODE ? 0 : (mode == PERCPU || mode == IDLE) ? ncpu : 1;
	if (mode == SIGBUS_MODE) {
		struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
		sigaction(SIGBUS, &sa, NULL);
	}
	for (long h = 0; h < handlers; h++) {
		pthread_t th;
		pthread_create(&th, NULL, handler, (void *)h);
	}
	for (int h = 0; h < hogs; h++) {
		pthread_t th;
		pthread_create(&th, NULL, hog, NULL);
	}
	usleep(10000);
	pthread_t w[MAX_THREADS];
	for (long t = 0; t < nthreads; t++)
		pthread_create(&w[t], NULL, worker, (void *)t);
	for (long t = 0; t < nthreads; t++)
		pthread_join(w[t], NULL);
	printf("placement_probe mode=%s threads=%d hogs=%d window=%ld ns_per_ref=", names[mode], nthreads, hogs, window);
	for (int t = 0; t < nthreads; t++)
		printf("%s%.0f", t ? "," : "", ns_per_ref[t]);
	printf(" handled=");
	for (int h = 0; h < handlers; h++)
		printf("%s%ld", h ? "," : "", handled[h]);
	printf("\n");
	return 0;
}
