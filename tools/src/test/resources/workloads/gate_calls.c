/*
 * gate_calls.c: system calls handed memory that the EVMS has just disabled, made the ways no libc
 * wrapper sees (issue 27): raw syscall(SYS_read), readv, preadv2, sendmsg and recvmsg, ioctl
 * FIONREAD, raw getdents64, and a futex wait whose word another thread's faults evict while it
 * waits. Before each call every buffer's page is pushed out of the EVMS by touching 64 fresh
 * pages (record with --evms 16). Prints one line per call with what it returned and a checksum
 * of what it got; any EFAULT shows as -1 and "Bad address". The output is the same natively and
 * traced under every engine (GateTest).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
static char *churn_area;
static size_t churn_next;

/* 64 fresh pages touched: with --evms 16, every earlier page is out of the EVMS */
static void evict_all(void)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&m);
	for (int i = 0; i < 64; i++, churn_next = (churn_next + 1) % 1024)
		churn_area[churn_next * PAGE] += 1;
	pthread_mutex_unlock(&m);
}

static unsigned sum(const char *p, size_t n)
{
	unsigned s = 0;
	for (size_t i = 0; i < n; i++)
		s = s * 31 + (unsigned char)p[i];
	return s;
}

static void say(const char *what, long r, unsigned s)
{
	printf("%s: %ld %s sum=%u\n", what, r, r < 0 ? strerror(errno) : "ok", s);
}

static volatile uint32_t *word;
static volatile int waiting;

static void *waker(void *arg)
{
	(void)arg;
	while (!waiting)
		;
	struct timespec t = { 0, 20000000 };
	nanosleep(&t, NULL);
	__atomic_store_n(word, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/usr/include";
	churn_area = mmap(NULL, 1024 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *buf = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(buf, 'x', 64 * PAGE);
	char src[3 * PAGE];
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (char)('a' + i % 23);

	int p[2];
	if (pipe(p))
		return 1;
	/* raw read(2) into a disabled page, across three pages */
	write(p[1], src, sizeof(src));
	evict_all();
	long r = syscall(SYS_read, p[0], buf + 100, sizeof(src));
	say("raw read", r, sum(buf + 100, sizeof(src)));

	/* readv into two disabled pieces, the iovec array itself on a disabled page */
	struct iovec *iov = (struct iovec *)(buf + 20 * PAGE);
	iov[0] = (struct iovec){ buf + 4 * PAGE + 10, 5000 };
	iov[1] = (struct iovec){ buf + 8 * PAGE + 20, 3000 };
	write(p[1], src, 8000);
	evict_all();
	r = readv(p[0], iov, 2);
	say("readv", r, sum(buf + 4 * PAGE + 10, 5000) ^ sum(buf + 8 * PAGE + 20, 3000));

	/* preadv2 from a file */
	char path[] = "/tmp/gate_calls_XXXXXX";
	int fd = mkstemp(path);
	write(fd, src, sizeof(src));
	iov[0] = (struct iovec){ buf + 12 * PAGE + 1, 6000 };
	evict_all();
	r = preadv2(fd, iov, 1, 100, 0);
	say("preadv2", r, sum(buf + 12 * PAGE + 1, (size_t)(r > 0 ? r : 0)));
	close(fd);
	unlink(path);

	/* sendmsg from disabled pages, recvmsg into disabled pages */
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	memcpy(buf + 16 * PAGE + 50, src, 7000);
	struct msghdr *m = (struct msghdr *)(buf + 24 * PAGE);
	memset(m, 0, sizeof(*m));
	iov[0] = (struct iovec){ buf + 16 * PAGE + 50, 7000 };
	m->msg_iov = iov;
	m->msg_iovlen = 1;
	evict_all();
	r = sendmsg(sv[0], m, 0);
	say("sendmsg", r, 0);
	iov[0] = (struct iovec){ buf + 28 * PAGE + 7, 7000 };
	evict_all();
	r = recvmsg(sv[1], m, MSG_WAITALL);
	say("recvmsg", r, sum(buf + 28 * PAGE + 7, 7000));

	/* ioctl(FIONREAD) into a disabled int */
	write(p[1], src, 1234);
	int *avail = (int *)(buf + 32 * PAGE + 8);
	evict_all();
	r = ioctl(p[0], FIONREAD, avail);
	say("ioctl FIONREAD", r, (unsigned)*avail);

	/* raw getdents64 into a disabled buffer: entries counted, not summed (their order is the file system's) */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	long entries = 0, got;
	char *dbuf = buf + 36 * PAGE + 16;
	do {
		evict_all();
		got = syscall(SYS_getdents64, dfd, dbuf, 3 * PAGE);
		for (long off = 0; off < got; off += ((struct dirent64 *)(dbuf + off))->d_reclen)
			entries++;
	} while (got > 0);
	say("getdents64", got, (unsigned)entries);
	close(dfd);

	/* a futex wait whose word is out of the EVMS when the call reads it: timed waits, the word's
	 * page pushed out before each (as another thread's faults would), until the waker sets it */
	word = (volatile uint32_t *)(buf + 40 * PAGE + 4);
	*word = 0;
	pthread_t th;
	pthread_create(&th, NULL, waker, NULL);
	long waits = 0, faults = 0;
	waiting = 1;
	while (__atomic_load_n(word, __ATOMIC_SEQ_CST) == 0) {
		struct timespec t = { 0, 1000000 };
		evict_all();
		if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, &t, NULL, 0) != 0 && errno == EFAULT)
			faults++;
		waits++;
	}
	pthread_join(th, NULL);
	printf("futex wait: word %u, efaults %ld\n", *word, faults);
	(void)waits;
	return 0;
}
