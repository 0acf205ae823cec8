/*
 * kernel_events: a program whose file, pipe and shared-memory calls are known, for the kernel
 * events' test (KernelEventsTest). In directory argv[1] it opens a regular file, writes,
 * pwrites, ftruncates, truncates, reads it back (read, pread, readv; a read at the end returns
 * 0 and makes no event), writes with writev; writes through a pipe and reads it back; dups
 * (dup, dup2, fcntl F_DUPFD_CLOEXEC) and closes; renames and unlinks; shmat and shmdt; and
 * makes calls that fail (no event). Buffers and paths are on the heap, traced memory.
 *
 * stdout: what it did without run-dependent numbers (the same natively and traced).
 * stderr: the events the trace must hold, one line each, in order, as KernelEventsTest writes
 * them from the trace: with inodes, devices, shmid and addresses from fstat and the calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

static char truth[16384];
static size_t truth_n;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	truth_n += (size_t)vsnprintf(truth + truth_n, sizeof(truth) - truth_n, fmt, ap);
	va_end(ap);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* the open event of fd as the test prints it: kind, device, inode, length, path */
static void opened(int fd, const char *kind, const char *path)
{
	struct stat st;
	if (fstat(fd, &st))
		die("fstat");
	char link[64], target[PATH_MAX];
	if (!path) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = 0;
		path = target;
	}
	say("open fd=%d %s dev=%u:%u inode=%lu length=%ld %s\n", fd, kind, major(st.st_dev), minor(st.st_dev),
	    (unsigned long)st.st_ino, (long)st.st_size, path);
}

static unsigned long inode_of(int fd)
{
	struct stat st;
	if (fstat(fd, &st))
		die("fstat");
	return st.st_ino;
}

static const char *dev_of(int fd)
{
	static char s[32];
	struct stat st;
	if (fstat(fd, &st))
		die("fstat");
	snprintf(s, sizeof(s), "%u:%u", major(st.st_dev), minor(st.st_dev));
	return s;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: kernel_events DIR\n");
		return 2;
	}
	char *dir = realpath(argv[1], NULL);
	if (!dir)
		die("realpath");
	char *path = malloc(PATH_MAX), *renamed = malloc(PATH_MAX), *missing = malloc(PATH_MAX);
	snprintf(path, PATH_MAX, "%s/data", dir);
	snprintf(renamed, PATH_MAX, "%s/renamed", dir);
	snprintf(missing, PATH_MAX, "%s/no-such-dir/file", dir);
	size_t size = 64 << 10;
	char *buf = malloc(size);
	memset(buf, 'x', size);

	/* calls that fail make no event */
	if (open(missing, O_RDONLY) != -1 || read(999, buf, 10) != -1 || close(999) != -1)
		die("a call that should fail did not");

	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("open");
	opened(fd, "regular", path);
	unsigned long ino = inode_of(fd);
	char dev[32];
	strcpy(dev, dev_of(fd));
	ssize_t w = write(fd, buf, 10000);
	say("write fd=%d offset=0 bytes=%zd (write)\n", fd, w);
	ssize_t pw = pwrite(fd, buf, 100, 20000);
	say("write fd=%d offset=20000 bytes=%zd (pwrite64)\n", fd, pw);
	if (ftruncate(fd, 5000))
		die("ftruncate");
	say("truncate fd=%d length=5000 dev=%s inode=%lu\n", fd, dev, ino);
	if (truncate(path, 3000))
		die("truncate");
	say("truncate path length=3000 dev=%s inode=%lu %s\n", dev, ino, path);
	lseek(fd, 0, SEEK_SET);
	ssize_t r1 = read(fd, buf, 8192);
	say("read fd=%d offset=0 bytes=%zd (read)\n", fd, r1);
	ssize_t r0 = read(fd, buf, 8192); /* at the end: 0 bytes, no event */
	ssize_t pr = pread(fd, buf, 1000, 1000);
	say("read fd=%d offset=1000 bytes=%zd (pread64)\n", fd, pr);
	lseek(fd, 500, SEEK_SET);
	struct iovec iov[2] = { { buf, 100 }, { buf + 4096 * 3, 200 } };
	ssize_t rv = readv(fd, iov, 2);
	say("read fd=%d offset=500 bytes=%zd (readv)\n", fd, rv);
	iov[0].iov_len = 50;
	iov[1].iov_len = 50;
	ssize_t wv = writev(fd, iov, 2);
	say("write fd=%d offset=800 bytes=%zd (writev)\n", fd, wv);
	ssize_t pr2 = preadv2(fd, iov, 1, 2000, 0);
	say("read fd=%d offset=2000 bytes=%zd (preadv2)\n", fd, pr2);

	int *p = malloc(2 * sizeof(int));
	if (pipe(p))
		die("pipe");
	opened(p[0], "pipe", NULL);
	opened(p[1], "pipe", NULL);
	const char *msg = "through a pipe";
	ssize_t pwn = write(p[1], msg, strlen(msg));
	say("write fd=%d offset=none bytes=%zd (write)\n", p[1], pwn);
	ssize_t prn = read(p[0], buf, 100);
	say("read fd=%d offset=none bytes=%zd (read)\n", p[0], prn);

	int d1 = dup(fd);
	say("dup fd=%d to fd=%d (dup)\n", fd, d1);
	int d2 = dup2(fd, 50);
	say("dup fd=%d to fd=%d (dup2)\n", fd, d2);
	int d3 = fcntl(fd, F_DUPFD_CLOEXEC, 60);
	say("dup fd=%d to fd=%d (fcntl)\n", fd, d3);
	int closing[] = { d1, d2, d3, p[0], p[1], fd };
	for (int i = 0; i < 6; i++) {
		if (close(closing[i]))
			die("close");
		say("close fd=%d\n", closing[i]);
	}

	if (rename(path, renamed))
		die("rename");
	say("rename dirfd=AT_FDCWD %s to dirfd=AT_FDCWD %s inode=%lu\n", path, renamed, ino);
	if (unlink(renamed))
		die("unlink");
	say("unlink dirfd=AT_FDCWD dev=%s inode=%lu %s\n", dev, ino, renamed);

	int shmid = shmget(IPC_PRIVATE, 3 * 4096, IPC_CREAT | 0600);
	if (shmid < 0)
		die("shmget");
	char *seg = shmat(shmid, NULL, 0);
	if (seg == (void *)-1)
		die("shmat");
	say("shmat shmid=%d address=%p size=%d\n", shmid, (void *)seg, 3 * 4096);
	seg[0] = 1;
	if (shmdt(seg))
		die("shmdt");
	say("shmdt address=%p size=%d shmid=%d\n", (void *)seg, 3 * 4096, shmid);
	shmctl(shmid, IPC_RMID, NULL);

	printf("wrote %zd, pwrote %zd, read %zd then %zd, pread %zd, readv %zd, writev %zd, preadv2 %zd\n", w, pw, r1,
	       r0, pr, rv, wv, pr2);
	printf("pipe: wrote %zd, read %zd: %.*s\n", pwn, prn, (int)prn, buf);
	printf("dups: %d %d above the first\n", d2, d3); /* the agent holds descriptors: the first differs */
	fflush(stdout);
	if (write(2, truth, truth_n) != (ssize_t)truth_n)
		return 1;
	return 0;
}
