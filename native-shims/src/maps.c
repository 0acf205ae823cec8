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
#include <sys/ioctl.h>
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

/*
 * PROCMAP_QUERY (include/uapi/linux/fs.h, Linux 6.11): the VMA covering an address, or the next
 * one, with one ioctl on a /proc/self/maps descriptor, instead of formatting and parsing every
 * line. A JVM has some 700 lines; reading them all for each mmap it makes cost it 831 reads and
 * most of a second under the agent (the guard thread's profile: show_map_vma, fl_mem_subtract).
 * Declared here: the build machine's linux headers may predate it.
 */
struct fl_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor;
	uint32_t vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define FL_PROCMAP_QUERY _IOWR('f', 17, struct fl_procmap_query)
#define FL_PROCMAP_COVERING_OR_NEXT_VMA 0x10
#define FL_PROCMAP_VMA_READABLE   0x1
#define FL_PROCMAP_VMA_WRITABLE   0x2
#define FL_PROCMAP_VMA_EXECUTABLE 0x4
#define FL_PROCMAP_VMA_SHARED     0x8

static int query_unsupported; /* the kernel said ENOTTY once: older than 6.11, read the lines */
static char query_name[4096]; /* handler only, like maps_buf */

/*
 * The descriptor the queries go through, one per process: a JVM makes hundreds of mmaps, and
 * opening /proc/self/maps for each cost an open and a close besides the ioctls. The kernel
 * resolves /proc/self when the file is opened, so a fork child's inherited copy would query
 * its parent: the descriptor is reopened when the pid is no longer the one it was opened for
 * (the copy closed first: it is the child's own). A new image after exec starts with this
 * file's static state fresh (maps_fd -1), and O_CLOEXEC has closed the old descriptor. Like
 * the agent's other descriptors (the userfaultfd, pagemap), it must stay open: a program that
 * closes descriptors it did not open breaks tracing anyway.
 * Every caller holds the agent lock (scope.c: the handler's requests and faults, or a fault
 * on the faulting thread under the mprotect engine), which also guards query_name.
 */
static int maps_fd = -1;
static pid_t maps_fd_pid;

static int maps_query_fd(void)
{
	pid_t pid = getpid();
	if (maps_fd >= 0 && maps_fd_pid == pid)
		return maps_fd;
	if (maps_fd >= 0)
		close(maps_fd);
	maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (maps_fd < 0)
		return -errno;
	maps_fd_pid = pid;
	return maps_fd;
}

struct in_range {
	uintptr_t lo, hi;
	int (*fn)(const struct fl_map_line *, void *);
	void *ctx;
};

static int line_in_range(const struct fl_map_line *m, void *ctx)
{
	struct in_range *r = ctx;
	return m->end > r->lo && m->start < r->hi ? r->fn(m, r->ctx) : 0;
}

static int each_in(uintptr_t lo, uintptr_t hi, int (*fn)(const struct fl_map_line *, void *), void *ctx, int by_lines)
{
	if (!by_lines && !__atomic_load_n(&query_unsupported, __ATOMIC_RELAXED)) {
		int fd = maps_query_fd();
		if (fd < 0)
			return fd;
		int err = 0;
		uintptr_t addr = lo;
		while (addr < hi) {
			struct fl_procmap_query q = {
				.size = sizeof(q),
				.query_flags = FL_PROCMAP_COVERING_OR_NEXT_VMA,
				.query_addr = addr,
				.vma_name_size = sizeof(query_name),
				.vma_name_addr = (uint64_t)(uintptr_t)query_name,
			};
			if (ioctl(fd, FL_PROCMAP_QUERY, &q) < 0) {
				if (errno == ENOTTY && addr == lo) {
					__atomic_store_n(&query_unsupported, 1, __ATOMIC_RELAXED);
					err = -ENOTTY;
				} else if (errno != ENOENT) { /* ENOENT: no VMA at or after addr */
					err = -errno;
				}
				break;
			}
			if (q.vma_start >= hi)
				break;
			struct fl_map_line m = {
				.start = q.vma_start,
				.end = q.vma_end,
				.inode = q.inode,
				.dev_major = q.dev_major,
				.dev_minor = q.dev_minor,
				.path = q.vma_name_size ? query_name : "",
			};
			m.perms[0] = (q.vma_flags & FL_PROCMAP_VMA_READABLE) ? 'r' : '-';
			m.perms[1] = (q.vma_flags & FL_PROCMAP_VMA_WRITABLE) ? 'w' : '-';
			m.perms[2] = (q.vma_flags & FL_PROCMAP_VMA_EXECUTABLE) ? 'x' : '-';
			m.perms[3] = (q.vma_flags & FL_PROCMAP_VMA_SHARED) ? 's' : 'p';
			m.perms[4] = 0;
			if ((err = fn(&m, ctx)) != 0)
				break;
			addr = q.vma_end;
		}
		if (err != -ENOTTY)
			return err;
	}
	struct in_range r = { lo, hi, fn, ctx };
	return fl_maps_each(line_in_range, &r);
}

/* FAULTLINE_CHECK=1: both ways of reading the mappings must agree, line for line */
#define CHECK_LINES 64
struct seen {
	uint32_t n;
	struct { uintptr_t start, end; char perms[5]; uint64_t inode; char path[24]; } v[CHECK_LINES];
};

static int note_line(const struct fl_map_line *m, void *ctx)
{
	struct seen *s = ctx;
	if (s->n < CHECK_LINES) {
		s->v[s->n].start = m->start;
		s->v[s->n].end = m->end;
		memcpy(s->v[s->n].perms, m->perms, 5);
		s->v[s->n].inode = m->inode;
		strncpy(s->v[s->n].path, m->path, sizeof(s->v[0].path) - 1);
		s->v[s->n].path[sizeof(s->v[0].path) - 1] = 0;
	}
	s->n++;
	return 0;
}

static struct seen check_query, check_lines;

static void check_each_in(uintptr_t lo, uintptr_t hi)
{
	memset(&check_query, 0, sizeof(check_query));
	memset(&check_lines, 0, sizeof(check_lines));
	each_in(lo, hi, note_line, &check_query, 0);
	each_in(lo, hi, note_line, &check_lines, 1);
	if (check_query.n == check_lines.n && memcmp(&check_query, &check_lines, sizeof(check_query)) == 0)
		return;
	/* a line "faultline debug: maps-disagree LO HI COUNT" that tests look for */
	fl_debug_op("maps-disagree", lo, hi, (long)check_query.n - (long)check_lines.n);
}

int fl_maps_each_in(uintptr_t lo, uintptr_t hi, int (*fn)(const struct fl_map_line *, void *), void *ctx)
{
	if (fl_check)
		check_each_in(lo, hi);
	return each_in(lo, hi, fn, ctx, 0);
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

/* the first range overlapping [s, e): its index, with the overlap in [*a, *b); -1 if none */
int64_t fl_range_first_overlap(uintptr_t s, uintptr_t e, uintptr_t *a, uintptr_t *b)
{
	struct fl_overlap o = fl_overlaps(s, e);
	if (!fl_overlap_next(&o))
		return -1;
	*a = o.a;
	*b = o.b;
	return o.i - 1;
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
