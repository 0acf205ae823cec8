/*
 * scope.c: which memory scope "all" traces, and which ranges faultline_trace_range accepts.
 * Handler thread only.
 *
 * Traced: every private anonymous writable mapping ("rw-p" with no path, [heap], [stack],
 * the anonymous .bss tail of the main executable and of most libraries).
 * Never traced:
 *   - agent memory (mem.c): handler stack, tables, parking areas, and the writable segments
 *     (.data, .bss) of libc, ld.so and libfaultline itself, taken from their program headers
 *     (agent.c): the handler thread runs code of these three and may touch their data; a fault
 *     there would wait for itself. Not the whole maps line of such a .bss tail: the kernel
 *     merges an anonymous mapping placed right after it into that line;
 *   - anything with another protection (a JIT's rwx code cache, PROT_NONE reservations) and
 *     shared or file-backed mappings (UFFDIO_MOVE works on private anonymous memory only).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>

#include "faultline_shm.h"
#include "emit.h"
#include "engine.h"
#include "maps.h"
#include "mem.h"
#include "ranges.h"
#include "scope.h"
#include "state.h"
#include "sys.h"

int fl_scope_init(void)
{
	return 0;
}

struct scan_state {
	uint32_t source;
	uintptr_t lo, hi; /* only register inside [lo, hi) */
	const char *name; /* the line's name, for its trace-range events (mapping_name) */
	uintptr_t name_end; /* nonzero: the name holds only below it, the rest of the line is anonymous */
};

/*
 * Where a file's .bss ends: the end of the writable PT_LOAD segment whose file part the data line
 * at [start, ...) maps from byte offset off, read from the file's program headers (the ELF-64
 * object file format) and remembered per file and offset. 0 if the file cannot say.
 */
#define BSS_MEMO 64
static struct {
	uint64_t dev_ino, off;
	int64_t end_from_off; /* p_offset + p_memsz - off; -1: unknown */
} bss_memo[BSS_MEMO];

static int64_t segment_end_from(const char *path, uint64_t off)
{
	long fd = fl_syscall(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int64_t found = -1;
	Elf64_Ehdr eh;
	if (fl_syscall(SYS_pread64, (int)fd, &eh, sizeof(eh)) == (long)sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		for (uint32_t i = 0; i < eh.e_phnum && found < 0; i++) {
			Elf64_Phdr ph;
			if (fl_syscall(SYS_pread64, (int)fd, &ph, sizeof(ph), (eh.e_phoff + i * sizeof(ph))) != (long)sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && off >= FL_PAGE_DOWN(ph.p_offset) &&
			    off < ph.p_offset + ph.p_filesz)
				found = (int64_t)(ph.p_offset + ph.p_memsz - off);
		}
	}
	fl_syscall(SYS_close, fd);
	return found;
}

static uintptr_t bss_end(uintptr_t start, uint64_t off, uint64_t dev_ino, const char *path)
{
	uint32_t slot = (uint32_t)((dev_ino ^ off ^ (off >> 12)) % BSS_MEMO);
	if (bss_memo[slot].dev_ino != dev_ino || bss_memo[slot].off != off) {
		bss_memo[slot].dev_ino = dev_ino;
		bss_memo[slot].off = off;
		bss_memo[slot].end_from_off = segment_end_from(path, off);
	}
	int64_t d = bss_memo[slot].end_from_off;
	return d < 0 ? 0 : FL_PAGE_UP(start + (uint64_t)d);
}

/*
 * The name a trace-range event gives its mapping (FORMAT.md, event 6): what /proc/self/maps says
 * ("[heap]", "[stack]", "" for anonymous memory), except that a nameless line right after a
 * private writable line of a file (a data segment) is that file's .bss (the kernel maps the
 * zeroed tail of a segment anonymously), named by the file, as far as the file's segment goes
 * (*end; 0: the whole line). The kernel merges an anonymous mapping placed right after a .bss
 * into its line: the dynamic loader's own allocations after the last library it loaded, a
 * python arena; those are anonymous memory, not the file's (they were named libfaultline.so
 * before, the agent being the first library loaded: issue 40). Handler only, under the lock: the
 * previous line's end and path are kept here because PROCMAP_QUERY's name buffer is reused by
 * each query (maps.c).
 */
static uintptr_t prev_start, prev_end; /* prev_end 0: no line before in this scan */
static uint64_t prev_off, prev_dev_ino;
static int prev_data; /* the line before was private and writable */
static char prev_path[4096], bss_name[4096];

static const char *mapping_name(const struct fl_map_line *m, uintptr_t *end)
{
	const char *name = m->path;
	*end = 0;
	if (!m->path[0] && m->start == prev_end && prev_data && prev_path[0] == '/') {
		memcpy(bss_name, prev_path, sizeof(bss_name));
		name = bss_name;
		uintptr_t e = bss_end(prev_start, prev_off, prev_dev_ino, prev_path);
		if (e && e < m->end)
			*end = e > m->start ? e : m->start;
	}
	strncpy(prev_path, m->path, sizeof(prev_path) - 1);
	prev_path[sizeof(prev_path) - 1] = 0;
	prev_start = m->start;
	prev_end = m->end;
	prev_off = m->offset;
	prev_dev_ino = ((uint64_t)m->dev_major << 52) ^ ((uint64_t)m->dev_minor << 40) ^ m->inode;
	prev_data = m->perms[1] == 'w' && m->perms[3] == 'p';
	return name;
}

/* eligible: a private anonymous writable mapping that scope "all" traces, less agent memory */
static int eligible(const struct fl_map_line *m)
{
	if (strcmp(m->perms, "rw-p") != 0)
		return 0;
	return m->path[0] == 0 || strcmp(m->path, "[heap]") == 0 || strcmp(m->path, "[stack]") == 0;
}

/*
 * Stacks between two threads (engines that cannot trap kernel-mode accesses: mprotect). glibc
 * caches an exited thread's stack and runs the start of the next thread on it with every signal
 * blocked, where a fault on a disabled page kills the process; so the stack leaves tracing at
 * the thread's exit (serve.c, on_thread_exit) and stays "retired" until a thread starts on
 * it: rescans leave it alone. Before, the rescan at another thread's start registered and
 * disabled it, and the next thread died in clone3 (workload thread_churn.c). The thread start
 * whose descriptor lies in it, or an unmap, takes it off the list; past RETIRED_MAX the oldest
 * is forgotten (a rescan may then trace it again, as before).
 */
#define RETIRED_MAX 256
static struct {
	uintptr_t s, e;
} retired[RETIRED_MAX];
static uint32_t retired_n;

void fl_scope_retire_stack(uintptr_t s, uintptr_t e)
{
	fl_scope_unretire(s, e);
	if (retired_n == RETIRED_MAX) {
		memmove(&retired[0], &retired[1], (RETIRED_MAX - 1) * sizeof(retired[0]));
		retired_n--;
	}
	retired[retired_n].s = s;
	retired[retired_n].e = e;
	retired_n++;
}

void fl_scope_unretire(uintptr_t s, uintptr_t e)
{
	for (uint32_t i = 0; i < retired_n;) {
		if (retired[i].s < e && retired[i].e > s) {
			memmove(&retired[i], &retired[i + 1], (retired_n - i - 1) * sizeof(retired[0]));
			retired_n--;
		} else {
			i++;
		}
	}
}

static uintptr_t stack_low; /* the lowest traced page of the main thread's [stack], 0 before */

/* trace_new for the parts of [s, e) outside retired stacks; name: the mapping's (mapping_name) */
static void trace_outside_retired(uintptr_t s, uintptr_t e, uint32_t source, const char *name)
{
	if (strcmp(name, "[stack]") == 0 && (!stack_low || s < stack_low))
		stack_low = s;
	while (s < e) {
		uintptr_t cut_s = e, cut_e = e;
		for (uint32_t i = 0; i < retired_n; i++)
			if (retired[i].s < e && retired[i].e > s && retired[i].s < cut_s) {
				cut_s = retired[i].s > s ? retired[i].s : s;
				cut_e = retired[i].e < e ? retired[i].e : e;
			}
		if (cut_s > s && fl_engine->trace_new(s, cut_s, source) == 0) {
			fl_emit_event(FL_EV_TRACE_RANGE, (uint32_t)fl_gettid(), s, cut_s - s, source, 0, name,
				      (uint32_t)strlen(name));
			if (cut_s == stack_low) /* the stack grown, registered by a rescan: maps names only its first line */
				stack_low = s;
		}
		s = cut_e;
	}
}

struct grown {
	uintptr_t page, start; /* start: the mapping's, if it holds page and reaches the stack */
};

static int grown_line(const struct fl_map_line *m, void *ctx)
{
	struct grown *g = ctx;
	if (m->start <= g->page && m->end > stack_low)
		g->start = m->start;
	return 0;
}

/*
 * The main thread's stack grows down (VM_GROWSDOWN) on access, with no call the agent sees, and
 * the new part is traced from its first fault, as the handler engine does (fault.c,
 * register_around: the new part keeps the vma's userfaultfd registration). The in-thread engines
 * come here: under sigbus the new page faults as missing in no range, and was filled unrecorded;
 * under mprotect the kernel gives the new part the protection of the stack's lowest mapping,
 * PROT_NONE when the engine has disabled that page, so /proc/self/maps shows "---p", which is
 * not eligible, and the program died of SIGSEGV on a frame deeper than any before (512 KiB of
 * locals). A fault below the traced stack, on a mapping that reaches it, is the stack grown.
 * The rlimit bounds how far the kernel grows it; 1 GiB bounds the maps query here.
 */
int fl_scope_grow_stack(uintptr_t page)
{
	if (!stack_low || page >= stack_low || stack_low - page > (1ul << 30) || fl_agent.scope != FL_SCOPE_ALL)
		return 0;
	struct grown g = { .page = page, .start = 0 };
	if (fl_maps_each_in(page, stack_low + FL_PAGE, grown_line, &g) != 0 || !g.start)
		return 0;
	uintptr_t s = FL_PAGE_DOWN(g.start), e = stack_low;
	if (fl_engine->trace_new(s, e, FL_RANGE_SCAN) != 0)
		return 0;
	fl_emit_event(FL_EV_TRACE_RANGE, (uint32_t)fl_gettid(), s, e - s, FL_RANGE_SCAN, 0, "[stack]", 7);
	stack_low = s;
	return 1;
}

/* the parts of [s, e) not yet traced are registered */
static int register_gap(uintptr_t a, uintptr_t b, struct fl_range *r, void *ctx)
{
	const struct scan_state *st = ctx;
	/*
	 * A thread being created may own memory a rescan finds: not before it is pinned
	 * (fl_threads_starting). What an interposed mmap or brk returned (FL_RANGE_MMAP, exactly its
	 * range) is no such memory, since glibc maps a thread's stack with its internal mmap, which
	 * nobody interposes: it is registered at once, or the program's first references to it,
	 * made while another thread starts, would go unrecorded.
	 */
	if (!r && (st->source == FL_RANGE_MMAP || !__atomic_load_n(&fl_threads_starting, __ATOMIC_SEQ_CST)))
		trace_outside_retired(a, b, st->source, st->name ? st->name : "");
	return 0;
}

static void register_untraced(uintptr_t s, uintptr_t e, void *ctx)
{
	fl_ranges_walk(s, e, register_gap, ctx);
}

static int scan_line(const struct fl_map_line *m, void *ctx)
{
	struct scan_state *st = ctx;
	FL_DEBUG(eligible(m) ? "scan+" : "scan-", m->start, m->end, (long)m->inode);
	st->name = mapping_name(m, &st->name_end);
	if (eligible(m)) {
		uintptr_t s = m->start > st->lo ? m->start : st->lo;
		uintptr_t e = m->end < st->hi ? m->end : st->hi;
		uintptr_t split = st->name_end ? st->name_end : e; /* the file's .bss below, anonymous memory above */
		const char *name = st->name;
		if (s < split && s < e)
			fl_mem_subtract(s, split < e ? split : e, register_untraced, st);
		st->name = "";
		if (split > s ? split < e : s < e)
			fl_mem_subtract(split > s ? split : s, e, register_untraced, st);
		st->name = name;
	}
	return 0;
}

int fl_scope_rescan(void)
{
	prev_end = 0;
	struct scan_state st = { .source = FL_RANGE_SCAN, .lo = 0, .hi = UINTPTR_MAX };
	return fl_maps_each(scan_line, &st);
}

/*
 * A new mapping seen through an interposed call (mmap, brk): register exactly it, if
 * /proc/self/maps agrees it is eligible (it may already be gone or replaced by another thread).
 */
int fl_scope_register_exact(uintptr_t s, uintptr_t e, uint32_t source)
{
	prev_end = 0;
	struct scan_state st = { .source = source, .lo = s, .hi = e };
	return fl_maps_each_in(s, e, scan_line, &st);
}

/*
 * Memory that turned up inside a mapping we do not trace yet (a malloc block in an arena that
 * glibc grew with its own mprotect, a mapping that grew in place): what a rescan would find
 * there, without reading every other line of /proc/self/maps.
 */
int fl_scope_register_around(uintptr_t s, uintptr_t e)
{
	prev_end = 0;
	struct scan_state st = { .source = FL_RANGE_SCAN, .lo = 0, .hi = UINTPTR_MAX };
	return fl_maps_each_in(s, e, scan_line, &st);
}

struct api_check {
	uintptr_t s, e, covered_to;
	int bad;
};

static int api_line(const struct fl_map_line *m, void *ctx)
{
	struct api_check *c = ctx;
	if (m->end > c->covered_to && m->start < c->e) {
		/* a traced part may show another protection: the mprotect engine's disabled pages */
		uintptr_t a = m->start > c->s ? m->start : c->s, b = m->end < c->e ? m->end : c->e;
		if (m->start > c->covered_to || (!eligible(m) && !fl_ranges_cover(a, b)))
			c->bad = 1;
		else
			c->covered_to = m->end;
	}
	return 0;
}

int fl_scope_check_api_range(uintptr_t s, uintptr_t e)
{
	if (e <= s || fl_mem_is_agent(s, e))
		return -EINVAL;
	struct api_check c = { .s = s, .e = e, .covered_to = s };
	int err = fl_maps_each_in(s, e, api_line, &c);
	if (err)
		return err;
	return c.bad || c.covered_to < e ? -EINVAL : 0;
}
