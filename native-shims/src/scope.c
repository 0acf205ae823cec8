/*
 * scope.c: which memory scope "all" traces, and which ranges faultline_trace_range accepts.
 * Handler thread only.
 *
 * Traced: every private anonymous writable mapping ("rw-p" with no path, [heap], [stack],
 * the anonymous .bss tail of the main executable and of most libraries).
 * Never traced:
 *   - agent memory (mem.c): handler stack, tables, parking areas;
 *   - the anonymous .bss tails of libc, ld.so and libfaultline itself, i.e. the anonymous
 *     rw-p mapping that directly follows one of their file mappings: the handler thread runs
 *     code of these three and may touch their data; a fault there would wait for itself;
 *   - anything with another protection (a JIT's rwx code cache, PROT_NONE reservations) and
 *     shared or file-backed mappings (UFFDIO_MOVE works on private anonymous memory only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "fl_internal.h"

int fl_scope_init(void)
{
	return 0;
}

static int is_agent_lib(unsigned major, unsigned minor, uint64_t inode)
{
	for (int i = 0; i < 3; i++)
		if (fl_agent.lib_inodes[i] && fl_agent.lib_inodes[i] == inode &&
		    fl_agent.lib_devs[i] == (((uint64_t)major << 32) | minor))
			return 1;
	return 0;
}

struct scan_state {
	uintptr_t prev_end;
	int prev_is_file, prev_is_agent_lib;
	uint32_t source;
	uintptr_t lo, hi; /* only register inside [lo, hi) */
};

/* eligible: a private anonymous writable mapping that scope "all" traces */
static int eligible(const struct fl_map_line *m, struct scan_state *st)
{
	if (strcmp(m->perms, "rw-p") != 0)
		return 0;
	if (m->path[0] == 0) {
		if (st->prev_is_file && st->prev_end == m->start)
			return !st->prev_is_agent_lib; /* a library's or the executable's .bss tail */
		return 1;
	}
	return strcmp(m->path, "[heap]") == 0 || strcmp(m->path, "[stack]") == 0;
}

static void remember(const struct fl_map_line *m, struct scan_state *st)
{
	st->prev_end = m->end;
	st->prev_is_file = m->path[0] == '/' && m->inode != 0;
	if (st->prev_is_file)
		st->prev_is_agent_lib = is_agent_lib(m->dev_major, m->dev_minor, m->inode);
	else
		st->prev_is_agent_lib = 0;
}

/* register the parts of [s, e) not yet traced */
static void register_untraced(uintptr_t s, uintptr_t e, void *ctx)
{
	struct scan_state *st = ctx;
	while (s < e) {
		int64_t i = fl_range_index_from(s);
		uintptr_t gap_end = e;
		uintptr_t next = e;
		if (i >= 0) {
			struct fl_range *r = fl_range_at((uint32_t)i);
			if (r->start <= s) { /* s is traced: skip to the end of that range */
				s = r->end;
				continue;
			}
			if (r->start < e)
				gap_end = r->start;
			next = gap_end;
		}
		fl_park_trace_new(s, gap_end, st->source, 1);
		s = next;
	}
}

static int scan_line(const struct fl_map_line *m, void *ctx)
{
	struct scan_state *st = ctx;
	FL_DEBUG(eligible(m, st) ? "scan+" : "scan-", m->start, m->end, (long)m->inode);
	if (eligible(m, st)) {
		uintptr_t s = m->start > st->lo ? m->start : st->lo;
		uintptr_t e = m->end < st->hi ? m->end : st->hi;
		if (s < e)
			fl_mem_subtract(s, e, register_untraced, st);
	}
	remember(m, st);
	return 0;
}

int fl_scope_rescan(void)
{
	struct scan_state st = { .source = FL_RANGE_SCAN, .lo = 0, .hi = UINTPTR_MAX };
	return fl_maps_each(scan_line, &st);
}

/*
 * A new mapping seen through an interposed call (mmap, brk): register exactly it, if
 * /proc/self/maps agrees it is eligible (it may already be gone or replaced by another thread).
 */
int fl_scope_register_exact(uintptr_t s, uintptr_t e, uint32_t source)
{
	struct scan_state st = { .source = source, .lo = s, .hi = e };
	return fl_maps_each(scan_line, &st);
}

struct api_check {
	uintptr_t s, e, covered_to;
	int bad;
	struct scan_state st;
};

static int api_line(const struct fl_map_line *m, void *ctx)
{
	struct api_check *c = ctx;
	if (m->end > c->covered_to && m->start < c->e) {
		if (m->start > c->covered_to || !eligible(m, &c->st))
			c->bad = 1;
		else
			c->covered_to = m->end;
	}
	remember(m, &c->st);
	return 0;
}

int fl_scope_check_api_range(uintptr_t s, uintptr_t e)
{
	if (e <= s || fl_mem_is_agent(s, e))
		return -EINVAL;
	struct api_check c = { .s = s, .e = e, .covered_to = s };
	int err = fl_maps_each(api_line, &c);
	if (err)
		return err;
	return c.bad || c.covered_to < e ? -EINVAL : 0;
}
