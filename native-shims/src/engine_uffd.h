/*
 * engine_uffd.h: the userfaultfd engines' private declarations: the primitives of uffd.c, the
 * checker of their parking (uffd_check.c), the operations on parked pages that the handler
 * engine (engine_uffd.c) and the in-thread sigbus engine (engine_sigbus.c) share, and the state
 * they share. Nothing else in the agent includes it: every other room reaches userfaultfd only
 * through struct fl_engine (engine.h).
 */
#ifndef ENGINE_UFFD_H
#define ENGINE_UFFD_H

#include <linux/userfaultfd.h>
#include <uffd_move.h>
#include <pagemap_scan.h>

#include "ranges.h"
#include "sys.h"

extern int fl_uffd; /* the userfaultfd, -1 while none is open */
/* set by an engine without UFFD_EVENT_UNMAP (sigbus): a traced range may outlive its memory,
 * so a page is checked to lie in a vma registered with us before it is moved out (uffd_evict) */
extern int fl_uffd_unseen_unmaps;
/*
 * Set by the handshake (fl_uffd_api_dirty) when writes to write-protected pages are resolved by
 * the kernel (UFFD_FEATURE_WP_ASYNC): the EVMS's dirty flag is read at eviction with PAGEMAP_SCAN
 * (uffd_written) instead of a fault per first write. Clear: the synchronous path (FL_TRAP_WP).
 */
extern int fl_uffd_wp_async;
/* set by an engine whose userfaultfd asks for no non-cooperative event (sigbus): zapping
 * registered memory (MADV_DONTNEED) raises no UFFD_EVENT_REMOVE, so it needs no reader */
extern int fl_uffd_no_events;

/* ---- uffd.c: the address-space primitives (all return 0 or -errno) ---- */
int fl_uffd_open(void);                         /* fd or -errno: handles kernel-mode faults too */
int fl_uffd_open_user_mode(void);               /* fd or -errno: UFFD_USER_MODE_ONLY, no privilege needed */
int fl_uffd_api(int fd, uint64_t want, uint64_t *got);
int fl_uffd_register(int fd, uintptr_t start, size_t len);
int fl_uffd_unregister(int fd, uintptr_t start, size_t len);
int fl_uffd_move(int fd, uintptr_t dst, uintptr_t src, size_t len, uint64_t mode, int64_t *moved);
int fl_uffd_zeropage(int fd, uintptr_t dst, size_t len, int dontwake);
int fl_uffd_copy(int fd, uintptr_t dst, uintptr_t src, size_t len, int dontwake);
int fl_uffd_copy_mode(int fd, uintptr_t dst, uintptr_t src, size_t len, uint64_t mode); /* UFFDIO_COPY_MODE_* */
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

/*
 * The "populated" bitmap of a range (fl_range.bits). Its bits, and the home map's, are changed with
 * atomic operations: faults resolved without the agent lock (fault.c, the shared path) change the
 * bits of other pages of the same word at the same time.
 */
static inline int fl_range_bit(const struct fl_range *r, uintptr_t page)
{
	uint64_t b = r->bit0 + (page - r->start) / FL_PAGE;
	return (int)((__atomic_load_n(&r->bits[b >> 6], __ATOMIC_RELAXED) >> (b & 63)) & 1);
}
static inline void fl_range_set_bit(struct fl_range *r, uintptr_t page, int v)
{
	uint64_t b = r->bit0 + (page - r->start) / FL_PAGE;
	if (v)
		__atomic_fetch_or(&r->bits[b >> 6], 1ULL << (b & 63), __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&r->bits[b >> 6], ~(1ULL << (b & 63)), __ATOMIC_RELAXED);
}
/* set the page's populated bit: 1 if it was clear (a first touch) */
static inline int fl_range_test_set_bit(struct fl_range *r, uintptr_t page)
{
	uint64_t b = r->bit0 + (page - r->start) / FL_PAGE;
	uint64_t bit = 1ULL << (b & 63);
	return !(__atomic_fetch_or(&r->bits[b >> 6], bit, __ATOMIC_RELAXED) & bit);
}

/*
 * The home map (the third of a range's maps, ranges.h): bit set for every page the engine may
 * have brought home, cleared when it moved the page out. The sigbus engine's fault path reads
 * it to tell a missing page from one another thread brought home between the fault and the
 * agent lock, without reading pagemap (3.3 us a read here, half a fault's cost). Every
 * operation that can make a page present sets its bit first, under the lock; so a clear bit
 * means the page is not present, and a set bit is checked against pagemap. Clearing may be
 * late (a page the program unmapped keeps its bit), never early.
 */
static inline uint64_t *fl_range_home_word(const struct fl_range *r, uintptr_t page, uint64_t *bit)
{
	uint64_t b = r->bit0 + (page - r->start) / FL_PAGE;
	*bit = 1ULL << (b & 63);
	return &r->bits[2 * (size_t)r->bits_pages * (FL_PAGE / 8) + (b >> 6)];
}
static inline int fl_range_home(const struct fl_range *r, uintptr_t page)
{
	uint64_t bit;
	return (__atomic_load_n(fl_range_home_word(r, page, &bit), __ATOMIC_ACQUIRE) & bit) != 0;
}
static inline void fl_range_set_home(struct fl_range *r, uintptr_t page, int v)
{
	uint64_t bit, *w = fl_range_home_word(r, page, &bit);
	if (v)
		__atomic_fetch_or(w, bit, __ATOMIC_ACQ_REL);
	else
		__atomic_fetch_and(w, ~bit, __ATOMIC_ACQ_REL);
}
static inline void fl_range_clear_home(struct fl_range *r, uintptr_t a, uintptr_t b)
{
	for (uintptr_t p = a; p < b; p += FL_PAGE)
		fl_range_set_home(r, p, 0);
}
static inline void fl_range_set_home_all(struct fl_range *r, uintptr_t a, uintptr_t b)
{
	for (uintptr_t p = a; p < b; p += FL_PAGE)
		fl_range_set_home(r, p, 1);
}

/* ---- engine_uffd.c: parked pages, the operations both userfaultfd engines share (engine.h
 * says what each does; agent lock held) ---- */
int uffd_init(void);
int fl_uffd_api_dirty(int fd, uint64_t want); /* UFFDIO_API, with WP_ASYNC where it serves; 0 or -errno */
int uffd_written(const uintptr_t *pages, uint32_t n, uint8_t *written);
int uffd_page_written(uintptr_t page);
void uffd_close(void);
void uffd_reset_after_fork(void);
int uffd_writes_async(void); /* fl_uffd_wp_async */
int uffd_held_away(const struct fl_range *r, uintptr_t page); /* its populated bit */
int uffd_trace_new(uintptr_t s, uintptr_t e, uint32_t source);
void uffd_disable(uintptr_t s, uintptr_t e);
uint32_t uffd_restore_giving_way(uintptr_t s, uintptr_t e);
void uffd_discard(uintptr_t s, uintptr_t e);
int uffd_untrace(uintptr_t s, uintptr_t e, int unmapped);
void uffd_relocate(uintptr_t from, uintptr_t to, size_t len);
int uffd_first_touch(struct fl_range *r, uintptr_t page);
int uffd_resident(uintptr_t page);
int uffd_enable(uintptr_t page, int write, int read_only);
int uffd_protect_writes(uintptr_t page, int protect);
int uffd_evict(uintptr_t page);
void uffd_pin(uintptr_t addr);
int uffd_peek(uintptr_t page, void *out);
int uffd_untrace_all(void);
int uffd_fork_child(void);
int uffd_watch(uintptr_t page);
int uffd_unwatch(uintptr_t page);
void uffd_unwatched(void);
void uffd_disable_enabled(uintptr_t s, uintptr_t e);
void uffd_fork_parent(void);

#endif
