/*
 * maps.h: the mappings of /proc/self/maps, and the table of traced ranges (maps.c)
 */
#ifndef FL_MAPS_H
#define FL_MAPS_H

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
	uint32_t bits_pages;  /* size of the bitmap allocation at bits (shared by split pieces) */
};

struct fl_map_line {
	uintptr_t start, end;
	char perms[5];
	uint64_t inode;
	unsigned dev_major, dev_minor;
	const char *path; /* NUL-terminated inside the maps buffer; "" if anonymous */
};

int fl_maps_init(void);
/* Read /proc/self/maps into the agent's buffer and call fn per line; 0 or -errno. */
int fl_maps_each(int (*fn)(const struct fl_map_line *, void *), void *ctx);
/* The same for the mappings that overlap [lo, hi) only, whole (PROCMAP_QUERY where the kernel has it). */
int fl_maps_each_in(uintptr_t lo, uintptr_t hi, int (*fn)(const struct fl_map_line *, void *), void *ctx);

int fl_ranges_init(uint32_t capacity);
struct fl_range *fl_range_find(uintptr_t addr);   /* handler only */
int64_t fl_range_index_from(uintptr_t addr);      /* first range with end > addr, or -1 */
struct fl_range *fl_range_at(uint32_t i);         /* handler only */
uint32_t fl_range_count(void);
int fl_range_insert(const struct fl_range *r);    /* handler only; 0 or -ENOSPC */
void fl_range_remove_at(uint32_t i);              /* handler only */
void fl_range_write_begin(void);                  /* seqlock around table changes */
void fl_range_write_end(void);
int fl_ranges_cover(uintptr_t start, uintptr_t end); /* any thread: [start,end) fully traced? */
uint32_t fl_ranges_snapshot(uintptr_t *out, uint32_t max); /* any thread: pairs start, end */
int fl_ranges_torn(void);
void fl_ranges_forget_all(void);
/* handler only: pieces of ranges (split pieces and moved ranges keep their engine state) */
struct fl_range fl_range_sub(const struct fl_range *r, uintptr_t a, uintptr_t b);
/*
 * The traced ranges overlapping [s, e), in address order, each clipped to it:
 *   for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) ... o.r, [o.a, o.b) ...
 * The loop may change the pages and state of o.r but not the table: a loop that carves or
 * moves ranges restarts after each piece with fl_range_first_overlap.
 */
struct fl_overlap {
	uintptr_t s, e;     /* what was asked */
	int64_t i;          /* the next range to look at, or -1 */
	struct fl_range *r; /* the current range, */
	uintptr_t a, b;     /* and its part in [s, e) */
};
struct fl_overlap fl_overlaps(uintptr_t s, uintptr_t e);
int fl_overlap_next(struct fl_overlap *o); /* 0 when no range is left */
int64_t fl_range_first_overlap(uintptr_t s, uintptr_t e, uintptr_t *a, uintptr_t *b); /* index, overlap in [*a,*b); -1 */
struct fl_range fl_range_carve(uint32_t i, uintptr_t a, uintptr_t b); /* [a,b) out of range i; returns the piece */
void fl_range_free_state(const struct fl_range *piece); /* its engine state, once no piece uses it (2 * bits_pages pages) */
void fl_range_dropped(const struct fl_range *piece); /* carved out for good: counted, freed, event emitted */
void fl_ranges_relocate(uintptr_t from, uintptr_t to, size_t len); /* mremap moved them: the table follows */

#endif
