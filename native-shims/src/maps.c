/*
 * maps.c: /proc/self/maps parsing and the table of traced ranges.
 *
 * The table is a sorted array written only by the handler. Program threads read it through a
 * seqlock (fl_ranges_cover, used by the malloc wrappers to decide whether a block is already
 * traced); a torn read is retried, and the answer is only a hint: a wrong "no" costs a rescan,
 * a wrong "yes" is impossible once the sequence numbers match.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fl_internal.h"

#define MAPS_BUF_SIZE (16UL << 20)

static char *maps_buf;
static struct fl_range *ranges;
static uint32_t range_n, range_cap;
static uint32_t range_seq;

int fl_maps_init(void)
{
	maps_buf = fl_mem_map(MAPS_BUF_SIZE);
	return maps_buf ? 0 : -ENOMEM;
}

static uint64_t parse_hex(const char **p)
{
	uint64_t v = 0;
	for (;;) {
		char c = **p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint64_t)(c - 'a' + 10);
		else
			return v;
		(*p)++;
	}
}

static uint64_t parse_dec(const char **p)
{
	uint64_t v = 0;
	while (**p >= '0' && **p <= '9')
		v = v * 10 + (uint64_t)(*(*p)++ - '0');
	return v;
}

int fl_maps_each(int (*fn)(const struct fl_map_line *, void *), void *ctx)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = 0;
	for (;;) {
		if (n >= MAPS_BUF_SIZE - 1) {
			close(fd);
			return -E2BIG;
		}
		ssize_t r = read(fd, maps_buf + n, MAPS_BUF_SIZE - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	maps_buf[n] = 0;

	char *line = maps_buf;
	while (*line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		struct fl_map_line m;
		const char *p = line;
		m.start = parse_hex(&p);
		p++; /* '-' */
		m.end = parse_hex(&p);
		p++;
		memcpy(m.perms, p, 4);
		m.perms[4] = 0;
		p += 5;
		parse_hex(&p); /* offset */
		p++;
		m.dev_major = (unsigned)parse_hex(&p);
		p++;
		m.dev_minor = (unsigned)parse_hex(&p);
		p++;
		m.inode = parse_dec(&p);
		while (*p == ' ')
			p++;
		m.path = p;
		int r = fn(&m, ctx);
		if (r)
			return r;
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

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

void fl_range_write_begin(void)
{
	__atomic_store_n(&range_seq, range_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void fl_range_write_end(void)
{
	__atomic_store_n(&range_seq, range_seq + 1, __ATOMIC_RELEASE);
}

int fl_range_insert(const struct fl_range *r)
{
	if (range_n >= range_cap)
		return -ENOSPC;
	int64_t i = floor_index(r->start, ranges, range_n) + 1;
	fl_range_write_begin();
	memmove(&ranges[i + 1], &ranges[i], (range_n - (uint32_t)i) * sizeof(*ranges));
	ranges[i] = *r;
	range_n++;
	fl_range_write_end();
	return 0;
}

void fl_range_remove_at(uint32_t i)
{
	if (i >= range_n)
		return;
	fl_range_write_begin();
	memmove(&ranges[i], &ranges[i + 1], (range_n - i - 1) * sizeof(*ranges));
	range_n--;
	fl_range_write_end();
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
		uint32_t s1 = __atomic_load_n(&range_seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			__builtin_ia32_pause();
			continue;
		}
		uint32_t n = __atomic_load_n(&range_n, __ATOMIC_RELAXED);
		if (n > range_cap)
			n = range_cap;
		int covered = 0;
		int64_t i = floor_index(start, ranges, n);
		if (i >= 0 && start < ranges[i].end) {
			uintptr_t reach = ranges[i].end;
			while (reach < end && (uint32_t)(i + 1) < n && ranges[i + 1].start == reach)
				reach = ranges[++i].end;
			covered = reach >= end;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&range_seq, __ATOMIC_RELAXED) == s1)
			return covered;
	}
}

/* any thread: copy (start, end) of every traced range into out[2 * i], out[2 * i + 1] */
uint32_t fl_ranges_snapshot(uintptr_t *out, uint32_t max)
{
	for (;;) {
		uint32_t s1 = __atomic_load_n(&range_seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			__builtin_ia32_pause();
			continue;
		}
		uint32_t n = __atomic_load_n(&range_n, __ATOMIC_RELAXED);
		if (n > range_cap)
			n = range_cap;
		if (n > max)
			n = max;
		for (uint32_t i = 0; i < n; i++) {
			out[2 * i] = ranges[i].start;
			out[2 * i + 1] = ranges[i].end;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&range_seq, __ATOMIC_RELAXED) == s1)
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

/* ---- pieces of ranges (handler only), for the engines ---- */

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
	fl_mem_unmap(piece->bits, 2 * (size_t)piece->bits_pages * FL_PAGE);
}

/* the first range overlapping [s, e): its index, with the overlap in [*a, *b); -1 if none */
int64_t fl_range_first_overlap(uintptr_t s, uintptr_t e, uintptr_t *a, uintptr_t *b)
{
	int64_t i = fl_range_index_from(s);
	if (i < 0)
		return -1;
	const struct fl_range *r = fl_range_at((uint32_t)i);
	if (r->start >= e)
		return -1;
	*a = r->start > s ? r->start : s;
	*b = r->end < e ? r->end : e;
	return i;
}

/* take [a, b) out of range i: what lies outside it stays in the table; returns the piece */
struct fl_range fl_range_carve(uint32_t i, uintptr_t a, uintptr_t b)
{
	struct fl_range r = *fl_range_at(i);
	fl_range_remove_at(i);
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


/* a piece carved out for good: counted, its state freed if unused, an untrace-range event */
void fl_range_dropped(const struct fl_range *piece)
{
	fl_cnt.registered_pages -= (piece->end - piece->start) / FL_PAGE;
	fl_range_free_state(piece);
	fl_emit_event(FL_EV_UNTRACE_RANGE, 0, piece->start, piece->end - piece->start, 0, 0, NULL, 0);
}

/*
 * mremap moved [from, from + len) to [to, to + len): the ranges follow with their engine state
 * (the new place never overlaps the old one). For the EVMS the old pages are deleted (kVMTrace)
 * and the new ones are new pages, which the engine then disables at their new place.
 */
void fl_ranges_relocate(uintptr_t from, uintptr_t to, size_t len)
{
	uintptr_t s = from, e = from + len;
	fl_evms_delete(from, e);
	fl_pins_forget(from, e);
	uintptr_t a, b;
	for (int64_t i; (i = fl_range_first_overlap(s, e, &a, &b)) >= 0; s = b) {
		struct fl_range moved = fl_range_carve((uint32_t)i, a, b);
		moved.start = a - from + to;
		moved.end = b - from + to;
		fl_range_insert(&moved);
	}
}
