/*
 * pagemap.h: which pages are present, from /proc/self/pagemap (pagemap.c), through one
 * descriptor per process image: the userfaultfd engine's parking (engine_uffd.c) and its
 * checker (uffd_check.c); and, with the ioctl PAGEMAP_SCAN (Linux 6.7), which pages were written
 * since they were write-protected asynchronously (UFFD_FEATURE_WP_ASYNC: the EVMS's dirty flag).
 */
#ifndef FL_PAGEMAP_H
#define FL_PAGEMAP_H

#include "sys.h"

int fl_pagemap_open(void);  /* the descriptor and the read buffer, once per image; 0 or -errno */
int fl_page_present(uintptr_t addr); /* present or swapped */
/* lock held: fn(page) for every page of [s, e) present (or swapped) */
void fl_pagemap_each_present(uintptr_t s, uintptr_t e, void (*fn)(uintptr_t page, void *ctx), void *ctx);
/*
 * Make the present pages of [s, e) exclusive again after a fork (MADV_POPULATE_WRITE), so that
 * UFFDIO_MOVE takes them. Any thread, no lock: only present pages, so a registered range may be
 * given from a program thread; a handler thread gives only ranges it has not registered yet.
 */
void fl_pagemap_reset_after_fork(void); /* a fork child: the buffer's lock as no other thread holds it */
void fl_pagemap_break_cow(uintptr_t s, uintptr_t e);
/*
 * Lock held, raw system calls (a SIGBUS handler may call): fn(a, b) for every run [a, b) of
 * pages of [s, e) written since their asynchronous write-protection (the kernel's
 * PAGE_IS_WRITTEN: present or swapped without the uffd-wp bit). 0, or -errno: -EPERM when
 * [s, e) meets a vma not registered for asynchronous write-protect (PM_SCAN_CHECK_WPASYNC).
 */
int fl_pagemap_written(uintptr_t s, uintptr_t e, void (*fn)(uintptr_t a, uintptr_t b, void *ctx), void *ctx);
/*
 * Any thread, raw system calls (the shared fault path, page lock held): whether page was written
 * since its asynchronous write-protection: 1, 0, or -errno (-EPERM: not in a vma registered for it).
 */
int fl_page_written(uintptr_t page);
/*
 * Any thread, raw system calls: write-protect page if it is present, in one step under the page
 * table lock. UFFDIO_WRITEPROTECT of an empty slot under WP_ASYNC (which implies
 * WP_UNPOPULATED) leaves a uffd-wp marker there, into which UFFDIO_MOVE and UFFDIO_ZEROPAGE
 * fail with EEXIST. 1 protected, 0 not present, or -errno.
 */
int fl_pagemap_protect_present(uintptr_t page);

#endif
