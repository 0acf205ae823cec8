/*
 * pagemap.h: which pages are present, from /proc/self/pagemap (pagemap.c), through one
 * descriptor per process image: the userfaultfd engine's parking (engine_uffd.c) and its
 * checker (uffd_check.c).
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
void fl_pagemap_break_cow(uintptr_t s, uintptr_t e);

#endif
