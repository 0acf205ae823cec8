/*
 * gate_events.c: kernel events (FL_EV_FILE_*, FL_EV_SHMAT, FL_EV_SHMDT; trace-format/FORMAT.md,
 * "Kernel events"): what a system call did to files, pipes, sockets and System V shared memory,
 * as kVMTrace's kernel records said it (include/linux/kvmtrace.h of its kernel patch: open with
 * the file's length and type, close, read and write with the bytes transferred, truncate,
 * delete, shmat). The gate (gate.c) asks here, for a call that makes events:
 *   - before the call, what is gone after it: an unlink's or a rename's path and what it names
 *     (fstatat), and a truncate's path; under sigbus and mprotect the gate holds the path's
 *     pages then, so reading them faults nothing;
 *   - after the call, if it succeeded, what it did: the new descriptor's fstat and its
 *     /proc/self/fd link (the path the kernel resolved), the file position after a plain read
 *     or write (lseek), a segment's size (shmctl IPC_STAT);
 *   - then, with the agent lock held, to write the events (emit.c).
 * Every system call here is made from the agent's text (fl_syscall, sys.c), which dispatch
 * lets through; nothing allocates or writes errno (a signal handler, on an agent stack).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "emit.h"
#include "gate.h"

/* what each call is, for the events: the family decides which fields mean what */
enum kev_kind {
	KEV_NONE,
	KEV_OPEN,     /* open, openat, openat2, creat: the result is a descriptor with a path */
	KEV_NEWFD,    /* socket, accept, accept4, eventfd, eventfd2, memfd_create: a descriptor without one */
	KEV_FD_PAIR,  /* pipe, pipe2 (a[0]), socketpair (a[3]): two descriptors written to user memory */
	KEV_CLOSE,
	KEV_DUP,      /* dup, dup2, dup3, fcntl F_DUPFD(_CLOEXEC) */
	KEV_READ,
	KEV_WRITE,
	KEV_FTRUNCATE,
	KEV_TRUNCATE,
	KEV_UNLINK,
	KEV_RENAME,
	KEV_SHMAT,
	KEV_SHMDT,
};

static enum kev_kind kind_of(long nr, const long *a)
{
	switch (nr) {
	case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: return KEV_OPEN;
	case SYS_socket: case SYS_accept: case SYS_accept4: case SYS_eventfd: case SYS_eventfd2:
	case SYS_memfd_create: return KEV_NEWFD;
	case SYS_pipe: case SYS_pipe2: case SYS_socketpair: return KEV_FD_PAIR;
	case SYS_close: return KEV_CLOSE;
	case SYS_dup: case SYS_dup2: case SYS_dup3: return KEV_DUP;
	case SYS_fcntl: return a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC ? KEV_DUP : KEV_NONE;
	case SYS_read: case SYS_pread64: case SYS_readv: case SYS_preadv: case SYS_preadv2: return KEV_READ;
	case SYS_write: case SYS_pwrite64: case SYS_writev: case SYS_pwritev: case SYS_pwritev2: return KEV_WRITE;
	case SYS_ftruncate: return KEV_FTRUNCATE;
	case SYS_truncate: return KEV_TRUNCATE;
	case SYS_unlink: case SYS_unlinkat: case SYS_rmdir: return KEV_UNLINK;
	case SYS_rename: case SYS_renameat: case SYS_renameat2: return KEV_RENAME;
	case SYS_shmat: return KEV_SHMAT;
	case SYS_shmdt: return KEV_SHMDT;
	default: return KEV_NONE;
	}
}

int fl_kev_wanted(long nr, const long *a)
{
	return kind_of(nr, a) != KEV_NONE;
}

static uint64_t fd_field(long fd)
{
	return (uint64_t)(int64_t)(int32_t)fd; /* sign-extended: AT_FDCWD is -100 */
}

static uint64_t device(dev_t d)
{
	return ((uint64_t)major(d) << 32) | minor(d);
}

static uint32_t file_kind(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return FL_FILE_REGULAR;
	case S_IFDIR: return FL_FILE_DIRECTORY;
	case S_IFIFO: return FL_FILE_PIPE;
	case S_IFSOCK: return FL_FILE_SOCKET;
	case S_IFCHR: return FL_FILE_CHAR;
	case S_IFBLK: return FL_FILE_BLOCK;
	case S_IFLNK: return FL_FILE_SYMLINK;
	default: return FL_FILE_OTHER;
	}
}

/* a string of the program's, NUL not included, cut at max (*cut set); the pages are held (sigbus,
 * mprotect) or fault like any reference of the thread's (uffd) */
static uint32_t copy_string(char *out, uint32_t max, long s, int *cut)
{
	uint32_t n = 0;
	if (!s)
		return 0;
	const volatile char *p = (const volatile char *)s;
	for (char c; n < max && (c = p[n]) != 0; n++)
		out[n] = c;
	if (n == max && p[n] != 0)
		*cut = 1;
	return n;
}

/* the path with a NUL after it, in agent memory, for a system call of ours */
static void with_nul(char *buf, const char *s, uint32_t n, uint32_t cap)
{
	if (n >= cap)
		n = cap - 1;
	memmove(buf, s, n);
	buf[n] = 0;
}

/* dev and inode of what path names relative to dirfd, not following a final symbolic link (none
 * for a path that was cut: it may name another file) */
static void stat_at(long dirfd, const char *path, uint32_t len, int cut, uint64_t *dev, uint64_t *ino)
{
	char z[FL_KEV_TEXT + 1];
	struct stat st;
	if (cut)
		return;
	with_nul(z, path, len, sizeof(z));
	if (fl_syscall(SYS_newfstatat, dirfd, (long)z, (long)&st, AT_SYMLINK_NOFOLLOW) == 0) {
		*dev = device(st.st_dev);
		*ino = st.st_ino;
	}
}

static void put_decimal(char *out, uint32_t *n, unsigned long v)
{
	char d[24];
	uint32_t k = 0;
	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (k)
		out[(*n)++] = d[--k];
}

/* an open event for fd: fstat's kind, device, inode and length, and /proc/self/fd/FD's link; the
 * kernel writes and reads k's own buffers, in agent memory (never a disabled page). 1 if fstat
 * answered (fd is open) */
static int open_event(struct fl_kev_call *k, long fd)
{
	struct fl_kev *e = &k->ev[k->n++];
	memset(e, 0, sizeof(*e) - sizeof(e->text));
	e->type = FL_EV_FILE_OPEN;
	uint32_t kind = FL_FILE_OTHER;
	int open = fl_syscall(SYS_fstat, fd, (long)&k->st) == 0;
	if (open) {
		kind = file_kind(k->st.st_mode);
		e->b = device(k->st.st_dev);
		e->c = k->st.st_ino;
		e->d = (uint64_t)k->st.st_size;
	}
	e->a = (uint64_t)(uint32_t)fd | (uint64_t)kind << 32;
	memcpy(k->link, "/proc/self/fd/", 14);
	uint32_t n = 14;
	put_decimal(k->link, &n, (unsigned long)fd);
	k->link[n] = 0;
	long r = fl_syscall(SYS_readlink, (long)k->link, (long)e->text, FL_KEV_TEXT);
	e->text_len = r > 0 ? (uint32_t)r : 0;
	return open;
}

static struct fl_kev *next(struct fl_kev_call *k, uint32_t type)
{
	struct fl_kev *e = &k->ev[k->n++];
	memset(e, 0, sizeof(*e) - sizeof(e->text));
	e->type = type;
	return e;
}

int fl_kev_standard(int fd, struct fl_kev_call *k)
{
	k->n = 0;
	if (open_event(k, fd))
		return 1;
	k->n = 0; /* not open: no event */
	return 0;
}

void fl_kev_before(long nr, const long *a, struct fl_kev_call *k)
{
	k->n = 0;
	k->dev = k->ino = 0;
	k->len = k->len2 = 0;
	k->cut = 0;
	switch (kind_of(nr, a)) {
	case KEV_TRUNCATE:
		k->len = copy_string(k->path, FL_KEV_TEXT, a[0], &k->cut);
		break;
	case KEV_UNLINK: {
		long dirfd = nr == SYS_unlinkat ? a[0] : AT_FDCWD;
		k->len = copy_string(k->path, FL_KEV_TEXT, nr == SYS_unlinkat ? a[1] : a[0], &k->cut);
		stat_at(dirfd, k->path, k->len, k->cut, &k->dev, &k->ino);
		break;
	}
	case KEV_RENAME: {
		int at = nr != SYS_rename;
		long oldfd = at ? a[0] : AT_FDCWD;
		int cut2 = 0;
		k->len = copy_string(k->path, FL_KEV_TEXT - 1, at ? a[1] : a[0], &k->cut);
		k->len2 = copy_string(k->path + k->len + 1, FL_KEV_TEXT - 1 - k->len, at ? a[3] : a[1], &cut2);
		k->path[k->len] = 0;
		stat_at(oldfd, k->path, k->len, k->cut, &k->dev, &k->ino);
		break;
	}
	default:
		break;
	}
}

/* the offset of a read or write's first byte: the call's own, or the position after it less r */
static uint64_t offset_of(long nr, const long *a, long r)
{
	switch (nr) {
	case SYS_pread64: case SYS_pwrite64: case SYS_preadv: case SYS_pwritev:
		return (uint64_t)a[3];
	case SYS_preadv2: case SYS_pwritev2:
		if (a[3] != -1)
			return (uint64_t)a[3];
		break;
	default:
		break;
	}
	long pos = fl_syscall(SYS_lseek, a[0], 0, SEEK_CUR);
	return pos >= r ? (uint64_t)(pos - r) : FL_NO_OFFSET; /* ESPIPE; /dev/null says 0 */
}

void fl_kev_after(long nr, const long *a, long r, struct fl_kev_call *k)
{
	struct fl_kev *e;
	if (r < 0)
		return; /* a failed call did nothing */
	switch (kind_of(nr, a)) {
	case KEV_OPEN:
	case KEV_NEWFD:
		open_event(k, r);
		break;
	case KEV_FD_PAIR: {
		int fds[2];
		memcpy(fds, (const void *)(nr == SYS_socketpair ? a[3] : a[0]), sizeof(fds));
		open_event(k, fds[0]);
		open_event(k, fds[1]);
		break;
	}
	case KEV_CLOSE:
		e = next(k, FL_EV_FILE_CLOSE);
		e->a = fd_field(a[0]);
		break;
	case KEV_DUP:
		e = next(k, FL_EV_FILE_DUP);
		e->a = fd_field(a[0]);
		e->b = fd_field(r);
		e->c = (uint64_t)nr;
		break;
	case KEV_READ:
	case KEV_WRITE:
		if (r == 0)
			break; /* kVMTrace's rule: only calls that transferred something */
		e = next(k, kind_of(nr, a) == KEV_READ ? FL_EV_FILE_READ : FL_EV_FILE_WRITE);
		e->a = fd_field(a[0]);
		e->b = offset_of(nr, a, r);
		e->c = (uint64_t)r;
		e->d = (uint64_t)nr;
		break;
	case KEV_FTRUNCATE: {
		struct stat st;
		e = next(k, FL_EV_FILE_TRUNCATE);
		e->a = fd_field(a[0]);
		e->b = (uint64_t)a[1];
		if (fl_syscall(SYS_fstat, a[0], (long)&st) == 0) {
			e->c = device(st.st_dev);
			e->d = st.st_ino;
		}
		break;
	}
	case KEV_TRUNCATE:
		e = next(k, FL_EV_FILE_TRUNCATE);
		e->a = fd_field(-1);
		e->b = (uint64_t)a[1];
		stat_at(AT_FDCWD, k->path, k->len, k->cut, &e->c, &e->d);
		memcpy(e->text, k->path, k->len);
		e->text_len = k->len;
		break;
	case KEV_UNLINK:
		e = next(k, FL_EV_FILE_UNLINK);
		e->a = fd_field(nr == SYS_unlinkat ? a[0] : AT_FDCWD);
		e->b = nr == SYS_unlinkat ? (uint64_t)a[2] : nr == SYS_rmdir ? AT_REMOVEDIR : 0;
		e->c = k->dev;
		e->d = k->ino;
		memcpy(e->text, k->path, k->len);
		e->text_len = k->len;
		break;
	case KEV_RENAME: {
		int at = nr != SYS_rename;
		e = next(k, FL_EV_FILE_RENAME);
		e->a = fd_field(at ? a[0] : AT_FDCWD);
		e->b = fd_field(at ? a[2] : AT_FDCWD);
		e->c = nr == SYS_renameat2 ? (uint64_t)(unsigned int)a[4] : 0;
		e->d = k->ino;
		e->text_len = k->len + 1 + k->len2; /* old, NUL, new */
		memcpy(e->text, k->path, e->text_len);
		break;
	}
	case KEV_SHMAT: {
		struct shmid_ds ds;
		e = next(k, FL_EV_SHMAT);
		e->a = (uint64_t)a[0];
		e->b = (uint64_t)r;
		if (fl_syscall(SYS_shmctl, a[0], IPC_STAT, (long)&ds) == 0)
			e->c = ds.shm_segsz;
		e->d = (uint64_t)a[2];
		break;
	}
	case KEV_SHMDT:
		e = next(k, FL_EV_SHMDT);
		e->a = (uint64_t)a[0];
		break;
	default:
		break;
	}
}

/*
 * The segments this process attached, for shmdt's size and shmid (lock held): a fork child
 * inherits its parent's attachments and this table with them; an exec'd image starts empty, as
 * its attachments do.
 */
#define ATTACHED 64
static struct {
	uint64_t addr, size, shmid;
} attached[ATTACHED];

static void remember(const struct fl_kev *e)
{
	for (int i = 0; i < ATTACHED; i++)
		if (!attached[i].addr || attached[i].addr == e->b) {
			attached[i].addr = e->b;
			attached[i].size = e->c;
			attached[i].shmid = e->a;
			return;
		}
}

static void recall(struct fl_kev *e)
{
	e->c = (uint64_t)-1;
	for (int i = 0; i < ATTACHED; i++)
		if (attached[i].addr == e->a) {
			e->b = attached[i].size;
			e->c = attached[i].shmid;
			attached[i].addr = 0;
			return;
		}
}

static int attached_lock; /* calls of several threads write their events at once (fl_kev_write_to) */

static void attach_bookkeeping(struct fl_kev *e)
{
	fl_spin_lock(&attached_lock);
	if (e->type == FL_EV_SHMAT)
		remember(e);
	else if (e->type == FL_EV_SHMDT)
		recall(e);
	fl_spin_unlock(&attached_lock);
}

void fl_kev_write(struct fl_kev_call *k, uint32_t tid)
{
	for (uint32_t i = 0; i < k->n; i++) {
		struct fl_kev *e = &k->ev[i];
		attach_bookkeeping(e);
		fl_emit_event(e->type, tid, e->a, e->b, e->c, e->d, e->text, e->text_len);
	}
}

void fl_kev_write_to(struct fl_emitter *out, struct fl_kev_call *k, uint32_t tid)
{
	for (uint32_t i = 0; i < k->n; i++) {
		struct fl_kev *e = &k->ev[i];
		attach_bookkeeping(e);
		fl_emit_event_to(out, e->type, tid, fl_clock_now(), e->a, e->b, e->c, e->d, e->text, e->text_len);
	}
}
