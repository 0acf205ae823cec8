/*
 * uffd.c: userfaultfd primitives. Each returns 0 or -errno and does nothing else: the policy
 * (what to move where, how to react to EEXIST/EAGAIN) lives in engine_uffd.c. The ioctls are raw
 * system calls that leave errno alone: under the sigbus engine they run in a program thread's
 * SIGBUS handler, and errno lives in that thread's TLS, which may lie in a parked page (a fault
 * there, with SIGBUS blocked, would kill the process).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine_uffd.h"
#include "sys.h"

/*
 * The handler engine's: never UFFD_USER_MODE_ONLY: a kernel-mode access (read(2) into a disabled page, a signal frame
 * written onto a disabled stack page) must wait for the handler and then succeed, not fail
 * with EFAULT. That needs /dev/userfaultfd access or privilege.
 */
int fl_uffd_open(void)
{
	int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (dev >= 0) {
		int fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
		int err = errno;
		close(dev);
		if (fd >= 0)
			return fl_fd_high(fd);
		errno = err;
	}
	long fd = fl_syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	return fd >= 0 ? fl_fd_high((int)fd) : (int)fd;
}

/*
 * The sigbus engine's: UFFD_USER_MODE_ONLY is what an ordinary user gets where
 * vm.unprivileged_userfaultfd=0 (the distributions' default): a kernel-mode access to a missing
 * page then fails (EFAULT) instead of waiting (fs/userfaultfd.c, handle_userfault).
 */
int fl_uffd_open_user_mode(void)
{
	long fd = fl_syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	return fd >= 0 ? fl_fd_high((int)fd) : (int)fd;
}

int fl_uffd_api(int fd, uint64_t want, uint64_t *got)
{
	struct uffdio_api api = { .api = UFFD_API, .features = want };
	if (ioctl(fd, UFFDIO_API, &api) < 0)
		return -errno;
	if (got)
		*got = api.features;
	return 0;
}

/*
 * MISSING traps references to disabled pages; WP lets a page enabled by a read be
 * write-protected, so that its first write while resident is seen (the EVMS's dirty flag).
 */
int fl_uffd_register(int fd, uintptr_t start, size_t len)
{
	struct uffdio_register reg = { .range = { start, len }, .mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP };
	int r = (int)fl_syscall(SYS_ioctl, fd, (long)UFFDIO_REGISTER, (long)&reg);
	FL_DEBUG("register", start, len, r);
	return r;
}

int fl_uffd_unregister(int fd, uintptr_t start, size_t len)
{
	struct uffdio_range r = { start, len };
	return (int)fl_syscall(SYS_ioctl, fd, (long)UFFDIO_UNREGISTER, (long)&r);
}

/* moved (may be NULL) receives the bytes moved before an error, as the kernel reports them */
int fl_uffd_move(int fd, uintptr_t dst, uintptr_t src, size_t len, uint64_t mode, int64_t *moved)
{
	struct uffdio_move m = { .dst = dst, .src = src, .len = len, .mode = mode, .move = 0 };
	int r = (int)fl_syscall(SYS_ioctl, fd, (long)UFFDIO_MOVE, (long)&m);
	FL_DEBUG("move", dst, src, r ? r : (long)len);
	if (moved)
		*moved = m.move;
	return r;
}

int fl_uffd_zeropage(int fd, uintptr_t dst, size_t len, int dontwake)
{
	struct uffdio_zeropage z = { .range = { dst, len }, .mode = dontwake ? UFFDIO_ZEROPAGE_MODE_DONTWAKE : 0 };
	int r = (int)fl_syscall(SYS_ioctl, fd, (long)UFFDIO_ZEROPAGE, (long)&z);
	FL_DEBUG("zeropage", dst, len, r);
	return r;
}

int fl_uffd_copy(int fd, uintptr_t dst, uintptr_t src, size_t len, int dontwake)
{
	return fl_uffd_copy_mode(fd, dst, src, len, dontwake ? UFFDIO_COPY_MODE_DONTWAKE : 0);
}

int fl_uffd_copy_mode(int fd, uintptr_t dst, uintptr_t src, size_t len, uint64_t mode)
{
	struct uffdio_copy c = { .dst = dst, .src = src, .len = len, .mode = mode };
	int r = (int)fl_syscall(SYS_ioctl, fd, (long)UFFDIO_COPY, (long)&c);
	FL_DEBUG("copy", dst, src, r);
	return r;
}

/*
 * UFFDIO_MOVE drops a page's write-protection: set it after every move home, not before.
 * Protecting never wakes (the kernel refuses WP with DONTWAKE: EINVAL); unprotecting is told
 * not to, the handler wakes at unlock.
 */
int fl_uffd_writeprotect(int fd, uintptr_t start, size_t len, int protect)
{
	struct uffdio_writeprotect w = { .range = { start, len },
					  .mode = protect ? UFFDIO_WRITEPROTECT_MODE_WP : UFFDIO_WRITEPROTECT_MODE_DONTWAKE };
	int r = (int)fl_syscall(SYS_ioctl, fd, (long)UFFDIO_WRITEPROTECT, (long)&w);
	FL_DEBUG("writeprotect", start, protect, r);
	return r;
}

int fl_uffd_wake(int fd, uintptr_t start, size_t len)
{
	struct uffdio_range r = { start, len };
	return (int)fl_syscall(SYS_ioctl, fd, (long)UFFDIO_WAKE, (long)&r);
}
