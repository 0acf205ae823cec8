/*
 * scale_floor: the floor that faultline's cost per trapped reference is held to at N threads
 * (issue 38, bench/scale-bench.sh). No agent, no recorder, no records: N threads, each with its
 * own area of AREA_PAGES pages, make the access pattern of scale_work.c (9 references in 10 to a
 * hot set of HOT_PAGES pages of their own area, the rest anywhere in it), and every page outside
 * the thread's own FIFO window of W pages is taken away, so that its next reference faults and
 * is resolved by the cheapest means of the mechanism:
 *
 *   sigbus    a user-mode userfaultfd with UFFD_FEATURE_SIGBUS (what an ordinary user gets): the
 *             thread's own SIGBUS handler moves the oldest page of its window out to a parking
 *             slot and the faulting page home, with UFFDIO_MOVE (the sigbus engine's floor)
 *   mprotect  the thread's own SIGSEGV handler: mprotect(PROT_NONE) of the oldest page, then
 *             the faulting page back to PROT_READ|PROT_WRITE (the mprotect engine's floor)
 *   handoff   each thread has its own userfaultfd and its own handler thread, which reads the
 *             fault, moves the oldest page out and the faulting page home (waking the thread):
 *             the floor of a handler-thread engine, as parallel as it can be (the uffd engine's)
 *
 *   scale_floor MODE THREADS [refs_per_thread=200000] [evms=1024]
 * The window W is evms / THREADS, so that the threads share an EVMS of evms pages as the agent's
 * process-wide one is shared. Prints one line:
 *   scale_floor mode=M threads=N refs=R faults=F wall_ns=T ns_per_fault=T/F
 * ns_per_fault is wall time over every thread's faults together: what N threads achieve at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
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
#include <ucontext.h>
#include <unistd.h>

#include <uffd_move.h> /* native-shims/include */

#define PAGE 4096UL
#define AREA_PAGES 4096UL /* 16 MiB a thread */
#define HOT_PAGES 2048UL
#define MAX_THREADS 256

enum { SIGBUS_MODE, MPROTECT_MODE, HANDOFF_MODE };

struct thread {
	pthread_t th, handler;
	int index;
	int uffd;              /* handoff: the thread's own userfaultfd */
	char *area, *park;
	uintptr_t *fifo;       /* the thread's window of enabled pages, oldest at head */
	long head, count, window;
	long refs, faults;
	uint64_t sum;
	char pad[64];
};

static int mode;
static int shared_uffd = -1; /* sigbus: one user-mode userfaultfd for the process */
static struct thread threads[MAX_THREADS];
static long nthreads;
static pthread_barrier_t start, done;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int move(int fd, uintptr_t dst, uintptr_t src, size_t len, uint64_t m)
{
	struct uffdio_move mv = { .dst = dst, .src = src, .len = len, .mode = m };
	return ioctl(fd, UFFDIO_MOVE, &mv) < 0 ? -errno : 0;
}

static struct thread *owner(uintptr_t addr)
{
	for (long i = 0; i < nthreads; i++)
		if (addr >= (uintptr_t)threads[i].area && addr < (uintptr_t)threads[i].area + AREA_PAGES * PAGE)
			return &threads[i];
	return NULL;
}

/* the window's oldest page out, the faulting one in: what every engine does per reference */
static void admit(struct thread *t, int fd, uintptr_t page, uint64_t home_mode)
{
	if (t->count == t->window) {
		uintptr_t old = t->fifo[t->head];
		t->head = (t->head + 1) % t->window;
		t->count--;
		if (mode == MPROTECT_MODE) {
			if (mprotect((void *)old, PAGE, PROT_NONE))
				die("mprotect out");
		} else if (move(fd, (uintptr_t)t->park + (old - (uintptr_t)t->area), old, PAGE, UFFDIO_MOVE_MODE_DONTWAKE)) {
			die("move out");
		}
	}
	if (mode == MPROTECT_MODE) {
		if (mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE))
			die("mprotect in");
	} else if (move(fd, page, (uintptr_t)t->park + (page - (uintptr_t)t->area), PAGE, home_mode)) {
		die("move in");
	}
	t->fifo[(t->head + t->count) % t->window] = page;
	t->count++;
	t->faults++;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	uintptr_t page = (uintptr_t)si->si_addr & ~(PAGE - 1);
	struct thread *t = owner(page);
	if (!t)
		abort();
	admit(t, shared_uffd, page, 0);
}

static void *handoff_handler(void *arg)
{
	struct thread *t = arg;
	struct uffd_msg msgs[16];
	struct pollfd p = { .fd = t->uffd, .events = POLLIN };
	for (;;) {
		ssize_t n = read(t->uffd, msgs, sizeof(msgs));
		if (n < 0) {
			if (errno != EAGAIN)
				die("read uffd");
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				die("poll");
			continue;
		}
		for (long i = 0; i < n / (long)sizeof(msgs[0]); i++)
			admit(t, t->uffd, msgs[i].arg.pagefault.address & ~(PAGE - 1), 0); /* the move home wakes */
	}
	return NULL;
}

static int open_uffd(uint64_t features, int user_mode)
{
	int flags = O_CLOEXEC | O_NONBLOCK | (user_mode ? UFFD_USER_MODE_ONLY : 0);
	int fd = (int)syscall(SYS_userfaultfd, flags);
	if (fd < 0 && !user_mode) {
		int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
		fd = dev >= 0 ? ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK) : -1;
	}
	if (fd < 0)
		die("userfaultfd");
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	if (ioctl(fd, UFFDIO_API, &api) < 0)
		die("UFFDIO_API");
	return fd;
}

static void reg(int fd, void *a, size_t len)
{
	struct uffdio_register r = { .range = { (uintptr_t)a, len }, .mode = UFFDIO_REGISTER_MODE_MISSING };
	if (ioctl(fd, UFFDIO_REGISTER, &r) < 0)
		die("UFFDIO_REGISTER");
}

/* 9 in 10 to the hot set, as scale_work.c */
static inline uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(t->index + 1);
	pthread_barrier_wait(&start);
	uint64_t sum = 0;
	for (long i = 0; i < t->refs; i++) {
		uint64_t r = next(&x);
		uint64_t page = (r % 10) < 9 ? (r >> 8) % HOT_PAGES : (r >> 8) % AREA_PAGES;
		sum += (uint8_t)t->area[page * PAGE + (r >> 40) % PAGE];
	}
	t->sum = sum;
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: scale_floor sigbus|mprotect|handoff THREADS [refs_per_thread] [evms]\n");
		return 2;
	}
	mode = !strcmp(argv[1], "sigbus") ? SIGBUS_MODE : !strcmp(argv[1], "mprotect") ? MPROTECT_MODE
		: !strcmp(argv[1], "handoff") ? HANDOFF_MODE : -1;
	nthreads = atol(argv[2]);
	long refs = argc > 3 ? atol(argv[3]) : 200000;
	long evms = argc > 4 ? atol(argv[4]) : 1024;
	if (mode < 0 || nthreads < 1 || nthreads > MAX_THREADS || evms < nthreads) {
		fprintf(stderr, "scale_floor: bad arguments\n");
		return 2;
	}
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (mode == SIGBUS_MODE)
		shared_uffd = open_uffd(UFFD_FEATURE_SIGBUS | UFFD_FEATURE_MOVE, 1);
	if (mode != HANDOFF_MODE) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_fault;
		sa.sa_flags = SA_SIGINFO;
		if (sigaction(mode == SIGBUS_MODE ? SIGBUS : SIGSEGV, &sa, NULL))
			die("sigaction");
	}
	for (long i = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];
		t->index = (int)i;
		t->refs = refs;
		t->window = evms / nthreads;
		t->fifo = calloc((size_t)t->window, sizeof(uintptr_t));
		t->area = mmap(NULL, AREA_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->area == MAP_FAILED || !t->fifo)
			die("mmap");
		for (unsigned long p = 0; p < AREA_PAGES; p++)
			t->area[p * PAGE] = (char)p;
		if (mode == MPROTECT_MODE) {
			if (mprotect(t->area, AREA_PAGES * PAGE, PROT_NONE))
				die("mprotect");
			continue;
		}
		int fd = shared_uffd;
		if (mode == HANDOFF_MODE)
			fd = t->uffd = open_uffd(UFFD_FEATURE_MOVE, 0);
		t->park = mmap(NULL, AREA_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (t->park == MAP_FAILED)
			die("mmap park");
		reg(fd, t->area, AREA_PAGES * PAGE);
		reg(fd, t->park, AREA_PAGES * PAGE);
		if (move(fd, (uintptr_t)t->park, (uintptr_t)t->area, AREA_PAGES * PAGE, UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES))
			die("park");
		if (mode == HANDOFF_MODE && pthread_create(&t->handler, NULL, handoff_handler, t))
			die("pthread_create handler");
	}
	pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&done, NULL, (unsigned)nthreads + 1);
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&threads[i].th, NULL, worker, &threads[i]))
			die("pthread_create");
	struct timespec t0, t1;
	pthread_barrier_wait(&start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_barrier_wait(&done);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long faults = 0;
	uint64_t sum = 0;
	for (long i = 0; i < nthreads; i++) {
		pthread_join(threads[i].th, NULL);
		faults += threads[i].faults;
		sum += threads[i].sum;
	}
	double wall = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	printf("scale_floor mode=%s threads=%ld refs=%ld faults=%ld wall_ns=%.0f ns_per_fault=%.0f sum=%llu\n", argv[1],
	       nthreads, refs * nthreads, faults, wall, faults ? wall / (double)faults : 0.0, (unsigned long long)sum);
	return 0;
}
