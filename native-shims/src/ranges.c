/*
 * ranges.c: the table of traced ranges. A sorted array written only under the agent lock.
 * Program threads read it through a seqlock (fl_ranges_cover, used by the malloc wrappers to
 * decide whether a block is already traced); a torn read is retried, and the answer is only a
 * hint: a wrong "no" costs a rescan, a wrong "yes" is impossible once the sequence numbers match.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "faultline_shm.h"
#include "emit.h"
#include "evms.h"
#include "mem.h"
#include "pins.h"
#include "ranges.h"
#include "state.h"
#include "sys.h"

static struct fl_range *ranges;
static uint32_t range_n, range_cap;
static uint32_t range_seq;

int fl_ranges_init(uint32_t capacity)
{
	ranges = fl_mem_map((size_t)capacity * sizeof(*ranges));
	if (!ranges)
		return -ENOMEM;
	range_cap = capacity;
	return 0;
}

uint32_t fl_range_count(void)
{
	return range_n;
}

struct fl_range *fl_range_at(uint32_t i)
{
	return i < range_n ? &ranges[i] : NULL;
}

/* index of the last range with start <= addr, or -1 */
static int64_t floor_index(uintptr_t addr, const struct fl_range *v, uint32_t n)
{
	int64_t lo = 0, hi = (int64_t)n - 1, best = -1;
	while (lo <= hi) {
		int64_t mid = (lo + hi) / 2;
		if (v[mid].start <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

struct fl_range *fl_range_find(uintptr_t addr)
{
	int64_t i = floor_index(addr, ranges, range_n);
	if (i >= 0 && addr < ranges[i].end)
		return &ranges[i];
	return NULL;
}

int64_t fl_range_index_from(uintptr_t addr)
{
	int64_t i = floor_index(addr, ranges, range_n);
	if (i >= 0 && addr < ranges[i].end)
		return i;
	return (uint32_t)(i + 1) < range_n ? i + 1 : -1;
}

static void write_begin(void)
{
	__atomic_store_n(&range_seq, range_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(void)
{
	__atomic_store_n(&range_seq, range_seq + 1, __ATOMIC_RELEASE);
}

int fl_range_insert(const struct fl_range *r)
{
	if (range_n >= range_cap)
		return -ENOSPC;
	int64_t i = floor_index(r->start, ranges, range_n) + 1;
	write_begin();
	memmove(&ranges[i + 1], &ranges[i], (range_n - (uint32_t)i) * sizeof(*ranges));
	ranges[i] = *r;
	range_n++;
	write_end();
	return 0;
}

void fl_ranges_unlock_pages(void)
{
	for (uint32_t i = 0; i < range_n; i++)
		for (uintptr_t p = ranges[i].start; p < ranges[i].end; p += FL_PAGE)
			fl_page_unlock(&ranges[i], p);
}

void fl_range_remove_at(uint32_t i)
{
	if (i >= range_n)
		return;
	write_begin();
	memmove(&ranges[i], &ranges[i + 1], (range_n - i - 1) * sizeof(*ranges));
	range_n--;
	write_end();
}

/* a reader of the table (any thread): the sequence to check after reading, and the ranges' count */
static uint32_t read_begin(uint32_t *n)
{
	for (;;) {
		uint32_t seq = __atomic_load_n(&range_seq, __ATOMIC_ACQUIRE);
		if (!(seq & 1)) {
			uint32_t count = __atomic_load_n(&range_n, __ATOMIC_RELAXED);
			*n = count > range_cap ? range_cap : count;
			return seq;
		}
		__builtin_ia32_pause();
	}
}

/* the table changed while it was read: read again */
static int read_torn(uint32_t seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&range_seq, __ATOMIC_RELAXED) != seq;
}

/*
 * Any thread. Adjacent ranges count as one: a heap registered in several steps is still
 * covered. Reads race with the handler's writes; the seqlock makes the reader retry.
 */
int fl_ranges_cover(uintptr_t start, uintptr_t end)
{
	if (!ranges)
		return 0;
	for (;;) {
		uint32_t n, seq = read_begin(&n);
		int covered = 0;
		int64_t i = floor_index(start, ranges, n);
		if (i >= 0 && start < ranges[i].end) {
			uintptr_t reach = ranges[i].end;
			while (reach < end && (uint32_t)(i + 1) < n && ranges[i + 1].start == reach)
				reach = ranges[++i].end;
			covered = reach >= end;
		}
		if (!read_torn(seq))
			return covered;
	}
}

/* any thread: copy (start, end) of every traced range into out[2 * i], out[2 * i + 1] */
uint32_t fl_ranges_snapshot(uintptr_t *out, uint32_t max)
{
	for (;;) {
		uint32_t n, seq = read_begin(&n);
		if (n > max)
			n = max;
		for (uint32_t i = 0; i < n; i++) {
			out[2 * i] = ranges[i].start;
			out[2 * i + 1] = ranges[i].end;
		}
		if (!read_torn(seq))
			return n;
	}
}

/* fork child: was the table being changed when the parent forked? then it cannot be trusted */
int fl_ranges_torn(void)
{
	return (range_seq & 1) != 0;
}

/* fork child: forget every range (the parking areas stay mapped, unused) */
void fl_ranges_forget_all(void)
{
	range_seq = 0;
	range_n = 0;
}

/* ---- pieces of ranges (lock held), for the engines ---- */

struct fl_range fl_range_sub(const struct fl_range *r, uintptr_t a, uintptr_t b)
{
	struct fl_range s = *r;
	s.start = a;
	s.end = b;
	s.park = r->park + (a - r->start);
	s.bit0 = r->bit0 + (a - r->start) / FL_PAGE;
	return s;
}

void fl_range_free_state(const struct fl_range *piece)
{
	for (uint32_t i = 0; i < fl_range_count(); i++)
		if (fl_range_at(i)->bits == piece->bits)
			return;
	fl_mem_unmap(piece->bits, FL_RANGE_MAPS * (size_t)piece->bits_pages * FL_PAGE);
}

struct fl_overlap fl_overlaps(uintptr_t s, uintptr_t e)
{
	struct fl_overlap o = { .s = s, .e = e, .i = fl_range_index_from(s) };
	return o;
}

int fl_overlap_next(struct fl_overlap *o)
{
	if (o->i < 0 || (uint32_t)o->i >= range_n || ranges[o->i].start >= o->e)
		return 0;
	o->r = &ranges[o->i++];
	o->a = o->r->start > o->s ? o->r->start : o->s;
	o->b = o->r->end < o->e ? o->r->end : o->e;
	return 1;
}

int fl_ranges_walk(uintptr_t s, uintptr_t e, int (*fn)(uintptr_t a, uintptr_t b, struct fl_range *r, void *ctx),
		   void *ctx)
{
	for (uintptr_t cur = s; cur < e;) {
		int64_t i = fl_range_index_from(cur);
		struct fl_range *r = i >= 0 ? &ranges[i] : NULL;
		uintptr_t b;
		if (r && r->start <= cur) {
			b = r->end < e ? r->end : e;
		} else {
			b = r && r->start < e ? r->start : e;
			r = NULL;
		}
		int err = fn(cur, b, r, ctx);
		if (err)
			return err;
		cur = b;
	}
	return 0;
}

/* take [a, b) out of range at: what lies outside it stays in the table; returns the piece */
struct fl_range fl_range_carve(struct fl_range *at, uintptr_t a, uintptr_t b)
{
	struct fl_range r = *at;
	fl_range_remove_at((uint32_t)(at - ranges));
	if (r.start < a) {
		struct fl_range left = fl_range_sub(&r, r.start, a);
		fl_range_insert(&left);
	}
	if (b < r.end) {
		struct fl_range right = fl_range_sub(&r, b, r.end);
		fl_range_insert(&right);
	}
	return fl_range_sub(&r, a, b);
}


struct untrace {
	int unmapped;
	int (*release)(uintptr_t a, uintptr_t b);
	void (*drop)(const struct fl_range *piece);
};

static int untrace_piece(uintptr_t a, uintptr_t b, struct fl_range *r, void *ctx)
{
	const struct untrace *u = ctx;
	if (!r)
		return 0;
	if (!u->unmapped && u->release(a, b) != 0)
		return -EAGAIN;
	struct fl_range piece = fl_range_carve(r, a, b);
	if (u->drop)
		u->drop(&piece);
	fl_cnt.registered_pages -= (piece.end - piece.start) / FL_PAGE;
	fl_range_free_state(&piece);
	fl_emit_event(FL_EV_UNTRACE_RANGE, 0, piece.start, piece.end - piece.start, 0, 0, NULL, 0);
	return 0;
}

int fl_ranges_untrace(uintptr_t s, uintptr_t e, int unmapped, int (*release)(uintptr_t a, uintptr_t b),
		      void (*drop)(const struct fl_range *piece))
{
	if (unmapped)
		fl_evms_delete(s, e); /* kVMTrace: evicted in their turn, never enabled on a new mapping */
	else
		fl_evms_forget(s, e);
	fl_pins_forget(s, e);
	struct untrace u = { unmapped, release, drop };
	return fl_ranges_walk(s, e, untrace_piece, &u);
}

struct relocation {
	uintptr_t from, to;
};

static int relocate_piece(uintptr_t a, uintptr_t b, struct fl_range *r, void *ctx)
{
	const struct relocation *m = ctx;
	if (!r)
		return 0;
	struct fl_range moved = fl_range_carve(r, a, b);
	moved.start = a - m->from + m->to;
	moved.end = b - m->from + m->to;
	fl_range_insert(&moved);
	return 0;
}

/*
 * mremap moved [from, from + len) to [to, to + len): the ranges follow with their engine state
 * (the new place never overlaps the old one). For the EVMS the old pages are deleted (kVMTrace)
 * and the new ones are new pages, which the engine then disables at their new place.
 */
void fl_ranges_relocate(uintptr_t from, uintptr_t to, size_t len)
{
	fl_evms_delete(from, from + len);
	fl_pins_forget(from, from + len);
	struct relocation m = { from, to };
	fl_ranges_walk(from, from + len, relocate_piece, &m);
}
