/*
 * maps.c: the process's mappings, from /proc/self/maps: every line parsed, or only those over an
 * address range, asked with PROCMAP_QUERY through one descriptor per process image.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "maps.h"
#include "mem.h"
#include "sys.h"

#define MAPS_BUF_SIZE (16UL << 20)

static char *maps_buf;

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
		long r = fl_syscall(SYS_read, fd, (long)(maps_buf + n), (long)(MAPS_BUF_SIZE - 1 - n));
		if (r < 0) {
			if (r == -EINTR)
				continue;
			close(fd);
			return (int)r;
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
		m.offset = parse_hex(&p);
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

/*
 * The descriptor the queries go through, one per process image (fl_self_fd): a JVM makes
 * hundreds of mmaps, and opening /proc/self/maps for each cost an open and a close besides the
 * ioctls. Its first open in a process image is under the agent lock (scope.c: the handler's
 * requests and faults); the queries name each mapping into the caller's stack, so that a fault
 * resolved without the lock may ask too (engine_uffd.c, evict_by_copy).
 */
static struct fl_self_fd maps_fd = FL_SELF_FD("/proc/self/maps");

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
		char query_name[4096];
		int fd = fl_self_fd(&maps_fd);
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
			/*
			 * The raw call, no errno: this runs in the fault signal's handler too (call
			 * stacks, evict_by_copy), where errno's page, in static TLS below the thread's
			 * descriptor and not pinned with it, may be disabled; writing it there killed a
			 * JVM under mprotect --stacks, the fault signal blocked.
			 */
			long r = fl_syscall(SYS_ioctl, fd, (long)FL_PROCMAP_QUERY, (long)&q);
			if (r < 0) {
				if (r == -ENOTTY && addr == lo) {
					__atomic_store_n(&query_unsupported, 1, __ATOMIC_RELAXED);
					err = -ENOTTY;
				} else if (r != -ENOENT) { /* ENOENT: no VMA at or after addr */
					err = (int)r;
				}
				break;
			}
			if (q.vma_start >= hi)
				break;
			struct fl_map_line m = {
				.start = q.vma_start,
				.end = q.vma_end,
				.offset = q.vma_offset,
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

