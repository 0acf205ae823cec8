/*
 * ranges.h: the table of traced ranges (ranges.c), sorted, written only under the agent lock,
 * read by program threads through a seqlock. Each range carries its engine's per-page state;
 * pieces of ranges keep it when they are split or moved.
 */
#ifndef FL_RANGES_H
#define FL_RANGES_H

#include "sys.h"

struct fl_range {
	uintptr_t start, end; /* traced pages [start, end), page aligned */
	/* the engine's per-page state of the range as it was registered (split pieces and moved
	 * ranges keep it): uffd: parking address of start (page p parks at park + (p - start)) and
	 * the "populated" bitmap, bit (bit0 + (p - start) / page); mprotect: bits is a byte per page */
	uintptr_t park;
	uint64_t *bits;
	uint64_t bit0;
	uint32_t source;      /* FL_RANGE_* */
	uint32_t bits_pages;  /* pages of one per-page map at bits; the allocation holds FL_RANGE_MAPS (shared by split pieces) */
};
/* per-page maps allocated at fl_range.bits, each bits_pages long: the engine's state (uffd:
 * populated; mprotect: state bytes), FAULTLINE_CHECK's shadow (uffd_check.c), the home map
 * (engine_uffd.h), and the page locks (below) */
#define FL_RANGE_MAPS 4
#define FL_RANGE_LOCK_MAP 3

/*
 * A page's lock: one bit per page of a range (its unit numbered as the engine's state: bit0 +
 * (page - start) / page size). A fault resolved without the agent lock (fault.c, the shared path)
 * holds it while it brings the page's state in line with the EVMS (a move home or out, a
 * protection), so that two threads never move one page at once and the last decision about a
 * page is the one its state ends in. Held for a few system calls; any thread, no errno.
 */
static inline uint64_t *fl_range_lock_word(const struct fl_range *r, uintptr_t page, uint64_t *bit)
{
	uint64_t b = r->bit0 + (page - r->start) / FL_PAGE;
	*bit = 1ULL << (b & 63);
	return (uint64_t *)((uint8_t *)r->bits + (size_t)FL_RANGE_LOCK_MAP * r->bits_pages * FL_PAGE) + (b >> 6);
}
static inline void fl_page_lock(const struct fl_range *r, uintptr_t page)
{
	uint64_t bit, *w = fl_range_lock_word(r, page, &bit);
	for (uint32_t spins = 0; __atomic_fetch_or(w, bit, __ATOMIC_ACQUIRE) & bit;)
		while (__atomic_load_n(w, __ATOMIC_RELAXED) & bit) {
			if (++spins < 256)
				__builtin_ia32_pause();
			else
				fl_syscall(FL_SYS_SCHED_YIELD); /* its holder may be off its CPU */
		}
}
/* the lock if it is free (a thread that holds several takes them this way: no order to keep) */
static inline int fl_page_trylock(const struct fl_range *r, uintptr_t page)
{
	uint64_t bit, *w = fl_range_lock_word(r, page, &bit);
	return !(__atomic_fetch_or(w, bit, __ATOMIC_ACQUIRE) & bit);
}
/* a fork child: every page lock released (the parent's other threads held some when it forked) */
void fl_ranges_unlock_pages(void);
static inline void fl_page_unlock(const struct fl_range *r, uintptr_t page)
{
	uint64_t bit, *w = fl_range_lock_word(r, page, &bit);
	__atomic_fetch_and(w, ~bit, __ATOMIC_RELEASE);
}

int fl_ranges_init(uint32_t capacity);
struct fl_range *fl_range_find(uintptr_t addr);   /* lock held */
int64_t fl_range_index_from(uintptr_t addr);      /* first range with end > addr, or -1 */
struct fl_range *fl_range_at(uint32_t i);         /* lock held */
uint32_t fl_range_count(void);
int fl_range_insert(const struct fl_range *r);    /* lock held; 0 or -ENOSPC */
void fl_range_remove_at(uint32_t i);              /* lock held */
int fl_ranges_cover(uintptr_t start, uintptr_t end); /* any thread: [start,end) fully traced? */
uint32_t fl_ranges_snapshot(uintptr_t *out, uint32_t max); /* any thread: pairs start, end */
int fl_ranges_torn(void);       /* a fork child: the table was being written when the parent forked */
void fl_ranges_forget_all(void);

/*
 * The traced ranges overlapping [s, e), in address order, each clipped to it:
 *   for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) ... o.r, [o.a, o.b) ...
 * The loop may change the pages and state of o.r but not the table (fl_ranges_walk may).
 */
struct fl_overlap {
	uintptr_t s, e;     /* what was asked */
	int64_t i;          /* the next range to look at, or -1 */
	struct fl_range *r; /* the current range, */
	uintptr_t a, b;     /* and its part in [s, e) */
};
struct fl_overlap fl_overlaps(uintptr_t s, uintptr_t e);
int fl_overlap_next(struct fl_overlap *o); /* 0 when no range is left */
/*
 * [s, e) in address order, cut where traced ranges begin and end: fn(a, b, r, ctx) for each
 * piece, r the range that holds [a, b), or NULL for a gap. fn may change the table at [a, b)
 * (carve the piece out, register a range there): the next piece is looked up afresh. A nonzero
 * return stops the walk and is returned.
 */
int fl_ranges_walk(uintptr_t s, uintptr_t e, int (*fn)(uintptr_t a, uintptr_t b, struct fl_range *r, void *ctx),
		   void *ctx);

/* lock held: pieces of ranges (split pieces and moved ranges keep their engine state) */
struct fl_range fl_range_sub(const struct fl_range *r, uintptr_t a, uintptr_t b);
struct fl_range fl_range_carve(struct fl_range *r, uintptr_t a, uintptr_t b); /* [a,b) out of r; returns the piece */
void fl_range_free_state(const struct fl_range *piece); /* its engine state, once no piece uses it (FL_RANGE_MAPS * bits_pages pages) */
/*
 * [s, e) leaves tracing: its pages leave the EVMS (deleted in their turn if unmapped, kVMTrace's
 * rule; else now) and the pinned set. Each traced piece is released by the engine first, unless
 * unmapped (release: its pages home and unregistered; nonzero: still stuck behind an event,
 * the piece stays), then carved out of the table, its engine state dropped (drop, if any),
 * counted and recorded (FL_EV_UNTRACE_RANGE). -EAGAIN when a piece stayed: the caller reads the
 * traps and calls again.
 */
int fl_ranges_untrace(uintptr_t s, uintptr_t e, int unmapped, int (*release)(uintptr_t a, uintptr_t b),
		      void (*drop)(const struct fl_range *piece));
/* mremap moved [from, from + len) to `to`: the table follows (the engine disables them there) */
void fl_ranges_relocate(uintptr_t from, uintptr_t to, size_t len);

#endif
