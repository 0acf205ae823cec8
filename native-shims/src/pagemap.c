/*
 * pagemap.c: /proc/self/pagemap (Documentation/admin-guide/mm/pagemap.rst): a u64 per page,
 * bit 63 present, bit 62 swapped; and its ioctl PAGEMAP_SCAN, which walks a range's page tables
 * and returns runs of pages by category. One descriptor per process image (fl_self_fd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pagemap_scan.h>

#include "mem.h"
#include "pagemap.h"
#include "sys.h"

#define PM_ENTRIES 8192
#define PM_PRESENT (1ULL << 63)
#define PM_SWAPPED (1ULL << 62)

static struct fl_self_fd pagemap = FL_SELF_FD("/proc/self/pagemap");
static uint64_t *pm_buf; /* lock held */

int fl_pagemap_open(void)
{
	int fd = fl_self_fd(&pagemap);
	if (fd < 0)
		return fd;
	if (!pm_buf && !(pm_buf = fl_mem_map(PM_ENTRIES * sizeof(uint64_t))))
		return -ENOMEM;
	return 0;
}

int fl_page_present(uintptr_t addr)
{
	uint64_t e = 0;
	if (fl_syscall(SYS_pread64, fl_self_fd(&pagemap), &e, sizeof(e), (addr / FL_PAGE * 8)) != sizeof(e))
		return 0;
	return (e & (PM_PRESENT | PM_SWAPPED)) != 0;
}

void fl_pagemap_each_present(uintptr_t s, uintptr_t e, void (*fn)(uintptr_t page, void *ctx), void *ctx)
{
	int fd = fl_self_fd(&pagemap);
	for (uintptr_t cur = s; cur < e;) {
		size_t n = (e - cur) / FL_PAGE;
		if (n > PM_ENTRIES)
			n = PM_ENTRIES;
		ssize_t got = fl_syscall(SYS_pread64, fd, pm_buf, n * 8, (cur / FL_PAGE * 8));
		if (got <= 0)
			return;
		n = (size_t)got / 8;
		for (size_t i = 0; i < n; i++)
			if (pm_buf[i] & (PM_PRESENT | PM_SWAPPED))
				fn(cur + i * FL_PAGE, ctx);
		cur += n * FL_PAGE;
	}
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * fork clears PageAnonExclusive on every anonymous page it shares with the child, and
 * UFFDIO_MOVE refuses such pages (EBUSY) until a write fault makes them exclusive again
 * (reusing the page if the child is gone, copying it otherwise). MADV_POPULATE_WRITE is that
 * write fault without touching the data; it fails cleanly on a mapping that is not writable.
 * Only present pages: populating a missing page of a registered range would raise a userfault,
 * which is fine from a program thread (the handler resolves it) but must never happen on a
 * handler thread. Program threads call this without the agent lock, so the buffer has a lock of
 * its own; it is no stack buffer: 4 KiB on a program thread's stack, which is traced, were pages
 * the program never touched, referenced by the agent (issue 40).
 */
static uint64_t cow_buf[512];
static int cow_lock;

void fl_pagemap_reset_after_fork(void)
{
	cow_lock = 0; /* another thread of the parent may have held it at fork time */
}

void fl_pagemap_break_cow(uintptr_t s, uintptr_t e)
{
	int fd = fl_self_fd(&pagemap);
	uint64_t *buf = cow_buf;
	fl_spin_lock(&cow_lock);
	for (uintptr_t cur = s; cur < e;) {
		size_t n = (e - cur) / FL_PAGE;
		if (n > 512)
			n = 512;
		ssize_t got = fl_syscall(SYS_pread64, fd, buf, n * 8, (cur / FL_PAGE * 8));
		if (got <= 0)
			break;
		n = (size_t)got / 8;
		size_t i = 0;
		while (i < n) {
			if (!(buf[i] & PM_PRESENT)) {
				i++;
				continue;
			}
			size_t j = i;
			while (j < n && (buf[j] & PM_PRESENT))
				j++;
			fl_sys_madvise((void *)(cur + i * FL_PAGE), (j - i) * FL_PAGE, MADV_POPULATE_WRITE);
			i = j;
		}
		cur += n * FL_PAGE;
	}
	fl_spin_unlock(&cow_lock);
}

/* runs of written pages one PAGEMAP_SCAN returns at most; the walk resumes at walk_end */
#define SCAN_RUNS 256
static struct page_region scan_runs[SCAN_RUNS]; /* lock held */

int fl_pagemap_written(uintptr_t s, uintptr_t e, void (*fn)(uintptr_t a, uintptr_t b, void *ctx), void *ctx)
{
	int fd = fl_self_fd(&pagemap);
	if (fd < 0)
		return fd;
	while (s < e) {
		struct pm_scan_arg a = { .size = sizeof(a), .flags = PM_SCAN_CHECK_WPASYNC, .start = s, .end = e,
					 .vec = (uintptr_t)scan_runs, .vec_len = SCAN_RUNS,
					 .category_mask = PAGE_IS_WRITTEN, .return_mask = PAGE_IS_WRITTEN };
		long n = fl_syscall(SYS_ioctl, fd, (long)PAGEMAP_SCAN, (long)&a);
		if (n < 0)
			return (int)n;
		for (long i = 0; i < n; i++)
			fn(scan_runs[i].start, scan_runs[i].end, ctx);
		if (a.walk_end <= s)
			return 0;
		s = a.walk_end;
	}
	return 0;
}

int fl_page_written(uintptr_t page)
{
	int fd = fl_self_fd(&pagemap);
	if (fd < 0)
		return fd;
	struct page_region run;
	struct pm_scan_arg a = { .size = sizeof(a), .flags = PM_SCAN_CHECK_WPASYNC, .start = page, .end = page + FL_PAGE,
				 .vec = (uintptr_t)&run, .vec_len = 1,
				 .category_mask = PAGE_IS_WRITTEN, .return_mask = PAGE_IS_WRITTEN };
	long n = fl_syscall(SYS_ioctl, fd, (long)PAGEMAP_SCAN, (long)&a);
	return n < 0 ? (int)n : n > 0;
}

int fl_pagemap_protect_present(uintptr_t page)
{
	int fd = fl_self_fd(&pagemap);
	if (fd < 0)
		return fd;
	/*
	 * A vector is given on purpose: without one the kernel takes its "exclusive WP" fast path,
	 * which protects every entry of the range, empty ones too (markers), whatever the categories.
	 * On the stack: faults resolved without the lock protect pages too.
	 */
	struct page_region run;
	struct pm_scan_arg a = { .size = sizeof(a), .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
				 .start = page, .end = page + FL_PAGE, .vec = (uintptr_t)&run, .vec_len = 1,
				 .category_mask = PAGE_IS_PRESENT, .return_mask = PAGE_IS_PRESENT };
	long n = fl_syscall(SYS_ioctl, fd, (long)PAGEMAP_SCAN, (long)&a);
	return n < 0 ? (int)n : n > 0;
}
