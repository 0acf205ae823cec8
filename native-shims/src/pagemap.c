/*
 * pagemap.c: /proc/self/pagemap (Documentation/admin-guide/mm/pagemap.rst): a u64 per page,
 * bit 63 present, bit 62 swapped. One descriptor per process image (fl_self_fd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

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
	if (fl_raw_pread(fl_self_fd(&pagemap), &e, sizeof(e), (off_t)(addr / FL_PAGE * 8)) != sizeof(e))
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
		ssize_t got = fl_raw_pread(fd, pm_buf, n * 8, (off_t)(cur / FL_PAGE * 8));
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
 * handler thread. A stack buffer: program threads call this without the lock.
 */
void fl_pagemap_break_cow(uintptr_t s, uintptr_t e)
{
	int fd = fl_self_fd(&pagemap);
	uint64_t buf[512];
	for (uintptr_t cur = s; cur < e;) {
		size_t n = (e - cur) / FL_PAGE;
		if (n > 512)
			n = 512;
		ssize_t got = fl_raw_pread(fd, buf, n * 8, (off_t)(cur / FL_PAGE * 8));
		if (got <= 0)
			return;
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
}
