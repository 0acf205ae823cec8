/*
 * engine_uffd.h: the userfaultfd engine's private declarations: the primitives of uffd.c, the
 * checker of its parking (uffd_check.c), and the state the three share. Nothing else in the
 * agent includes it: every other room reaches userfaultfd only through struct fl_engine
 * (engine.h).
 */
#ifndef ENGINE_UFFD_H
#define ENGINE_UFFD_H

#include <linux/userfaultfd.h>
#include <uffd_move.h>

#include "ranges.h"
#include "sys.h"

extern int fl_uffd; /* the userfaultfd, -1 while none is open */

/* ---- uffd.c: the address-space primitives (all return 0 or -errno) ---- */
int fl_uffd_open(void);                         /* fd or -errno */
int fl_uffd_api(int fd, uint64_t want, uint64_t *got);
int fl_uffd_register(int fd, uintptr_t start, size_t len);
int fl_uffd_unregister(int fd, uintptr_t start, size_t len);
int fl_uffd_move(int fd, uintptr_t dst, uintptr_t src, size_t len, uint64_t mode, int64_t *moved);
int fl_uffd_zeropage(int fd, uintptr_t dst, size_t len, int dontwake);
int fl_uffd_copy(int fd, uintptr_t dst, uintptr_t src, size_t len, int dontwake);
int fl_uffd_wake(int fd, uintptr_t start, size_t len);
int fl_uffd_writeprotect(int fd, uintptr_t start, size_t len, int protect); /* never wakes */

/* ---- uffd_check.c: FAULTLINE_CHECK's shadow of the parking slots (only while fl_check) ---- */
void fl_check_enable(const struct fl_range *r, uintptr_t page, int err);   /* after moving page home */
void fl_check_evict(const struct fl_range *r, uintptr_t page, int err);    /* after moving it out */
void fl_check_moved(const struct fl_range *r, uintptr_t page, int to_park); /* another move that worked */
void fl_check_discarded(const struct fl_range *r, uintptr_t a, uintptr_t b); /* slots of [a, b) dropped */
void fl_check_resync(const struct fl_range *r, uintptr_t a, uintptr_t b);   /* after a bulk move */
void fl_check_report(const struct fl_range *r, uintptr_t page, const char *what);
int fl_check_parked(const struct fl_range *r, uintptr_t page); /* the shadow: parked by us */

/* the "populated" bitmap of a range (fl_range.bits) */
static inline int fl_range_bit(const struct fl_range *r, uintptr_t page)
{
	uint64_t b = r->bit0 + (page - r->start) / FL_PAGE;
	return (int)((r->bits[b >> 6] >> (b & 63)) & 1);
}
static inline void fl_range_set_bit(struct fl_range *r, uintptr_t page, int v)
{
	uint64_t b = r->bit0 + (page - r->start) / FL_PAGE;
	if (v)
		r->bits[b >> 6] |= 1ULL << (b & 63);
	else
		r->bits[b >> 6] &= ~(1ULL << (b & 63));
}

#endif
