/*
 * engine_mprotect.c: the mprotect engine (struct fl_engine), for kernels or users without
 * userfaultfd, and as a comparison. A disabled page is mprotect'ed PROT_NONE in place (its
 * contents stay where they are); its next reference raises SIGSEGV on the faulting thread,
 * whose handler (fault_signal.c) runs the fault path for one fault (fault.c,
 * fl_fault_on_thread) and enables the page before the access is retried. The design card's
 * second engine (kVMTrace traps in the kernel; user-space tracers before userfaultfd did this).
 *
 * What differs from the userfaultfd engine, and why:
 *   - a kernel-mode access to a disabled page (read(2) into it) fails with EFAULT instead of
 *     waiting: the common libc calls that hand a buffer to the kernel touch it first
 *     (hooks/touch.c); what they cannot cover is listed in README.md;
 *   - no mapping events: munmap, madvise and mremap are seen through their interposed calls
 *     (FL_REQ_MAP_EVENT), glibc's free and realloc of its mmapped blocks through the malloc
 *     wrappers (hooks/interpose.c), its other internal ones not: see set_prot;
 *   - the program's own mprotect of traced memory is interposed: the protection it wants is
 *     kept per page and applied whenever the engine enables the page (FL_REQ_MPROTECT);
 *   - dirty tracking: a page enabled by a read is PROT_READ (less what the program wants), so
 *     its first write is a soft fault, as with userfaultfd write-protection.
 *
 * Each page of a range has a state byte (fl_range.bits as bytes, indexed like the uffd
 * engine's bitmap: bit0 + (p - start) / page). Every change of a page's protection is a
 * change of its VMA: the kernel splits VMAs at protection boundaries and merges neighbours
 * with equal protection again (mprotect_fixup, vma_merge), so the engine adds at most about
 * two VMAs per enabled page and one per traced range; mp_init says so when that could reach
 * vm.max_map_count. An mprotect that fails (ENOMEM: the limit) leaves the page enabled and
 * untraced (counted as lost) and says so once.
 *
 * Handler threads and the faulting thread's SIGSEGV path, agent lock held, or on the shared path
 * (fault.c: the page's lock held; the state bytes of other pages change beside it); raw system calls
 * only (no errno, see fl_syscall in sys.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "engine.h"
#include "evms.h"
#include "mem.h"
#include "pins.h"
#include "ranges.h"
#include "scope.h"
#include "fault_signal.h"
#include "state.h"
#include "sys.h"

#define ST_POPULATED 0x01u /* has had contents (first-touch label) */
#define ST_DISABLED  0x02u /* PROT_NONE by us: its next reference is ours */
#define ST_RDONLY    0x04u /* enabled without PROT_WRITE by us: its first write is ours (dirty) */
#define ST_PROG_SHIFT 3    /* the program's wanted protection, PROT_READ|WRITE|EXEC, in bits 3-5 */
#define ST_PROG_MASK (7u << ST_PROG_SHIFT)

static int warned_limit;

static inline uint8_t *state_of(const struct fl_range *r, uintptr_t page)
{
	return (uint8_t *)r->bits + r->bit0 + (page - r->start) / FL_PAGE;
}

static inline int wanted(uint8_t st)
{
	return (int)((st & ST_PROG_MASK) >> ST_PROG_SHIFT);
}

/* the protection a page has now, from its state */
static inline int prot_of(uint8_t st)
{
	if (st & ST_DISABLED)
		return PROT_NONE;
	int p = wanted(st);
	return (st & ST_RDONLY) ? p & ~PROT_WRITE : p;
}

static long raw_mprotect(uintptr_t a, size_t len, int prot)
{
	return fl_syscall(SYS_mprotect, (long)a, (long)len, prot);
}

struct set_prot {
	int prot;
	long err;
};

static void set_prot_piece(uintptr_t s, uintptr_t e, void *ctx)
{
	struct set_prot *c = ctx;
	long err = raw_mprotect(s, e - s, c->prot);
	if (err && !c->err)
		c->err = err;
}

/*
 * Every protection the engine sets on traced pages goes through here, and never reaches agent
 * memory. A traced range can outlive its memory: glibc unmaps with internal calls no wrapper
 * sees (its stack cache, dlclose; a large free is heard through the free wrapper), a raw munmap
 * syscall neither, and the kernel then hands the hole to the next mapping, the agent's among
 * them. Evicting a stale page there took the agent's own memory away: the SIGSEGV handler
 * crashed reading page states, and a thread whose signal stack lay there died with SI_KERNEL.
 */
static long set_prot(uintptr_t a, size_t len, int prot)
{
	struct set_prot c = { .prot = prot, .err = 0 };
	fl_mem_subtract(a, a + len, set_prot_piece, &c);
	return c.err;
}

/*
 * mprotect's ENOMEM means either that the address is not mapped (glibc unmapped it with its
 * internal munmap, which no wrapper sees: nothing to disable) or that the kernel could not
 * split the VMA (vm.max_map_count). mincore(2) tells them apart without changing a VMA.
 */
static int unmapped(uintptr_t a, size_t len)
{
	unsigned char v[64];
	for (uintptr_t cur = a; cur < a + len; cur += sizeof(v) * FL_PAGE) {
		size_t n = (a + len - cur) / FL_PAGE < sizeof(v) ? (a + len - cur) : sizeof(v) * FL_PAGE;
		if (fl_syscall(SYS_mincore, (long)cur, (long)n, (long)v) == -ENOMEM)
			return 1;
	}
	return 0;
}

/* an mprotect of [a, a + len) failed with ENOMEM */
static void limit_reached(uintptr_t a, size_t len)
{
	if (unmapped(a, len))
		return;
	FL_COUNT(lost);
	if (!warned_limit) {
		warned_limit = 1;
		fl_log("mprotect engine: the kernel refused to split a mapping (ENOMEM: vm.max_map_count reached?); "
		       "pages it cannot disable stay untraced; raise sysctl vm.max_map_count or record with a smaller --evms", NULL, NULL);
		FL_DEBUG("mprotect-enomem", a, 0, -ENOMEM);
	}
}

/* apply the state of the pages of [a, b) of r, in runs of equal protection */
static void apply(const struct fl_range *r, uintptr_t a, uintptr_t b)
{
	while (a < b) {
		int p = prot_of(*state_of(r, a));
		uintptr_t e = a + FL_PAGE;
		while (e < b && prot_of(*state_of(r, e)) == p)
			e += FL_PAGE;
		if (set_prot(a, e - a, p) == -ENOMEM) {
			/* the kernel may have changed part of the run before it failed: page by page */
			for (uintptr_t q = a; q < e; q += FL_PAGE)
				if (set_prot(q, FL_PAGE, p) == -ENOMEM)
					limit_reached(q, FL_PAGE);
		}
		a = e;
	}
}

static int mp_init(void)
{
	/* about two VMAs per enabled page at worst (see the top of the file) */
	int fd = open("/proc/sys/vm/max_map_count", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char buf[32] = { 0 };
		long n = fl_syscall(SYS_read, fd, buf, sizeof(buf) - 1);
		close(fd);
		long max = n > 0 ? strtol(buf, NULL, 10) : 0;
		if (max > 0 && 2L * fl_agent.evms_pages + 4096 > max)
			fl_log("mprotect engine: --evms this large may need more mappings than vm.max_map_count allows; "
			       "raise it with sysctl vm.max_map_count", NULL, NULL);
	}
	return 0;
}

static int mp_open(void)
{
	return fl_fault_signal_install(SIGSEGV, "mprotect");
}

static void mp_nothing(void)
{
}

static int mp_fd(void)
{
	return -1;
}

static int mp_read(struct fl_trap *out, uint32_t max)
{
	(void)out;
	(void)max;
	return 0;
}

static void mp_wake(uintptr_t page)
{
	(void)page; /* the faulting thread resolved its own fault: it runs on when the handler returns */
}

/* the populated label of [a, b) from mincore(2): resident now (the zero page counts, as for pagemap) */
static void populate(const struct fl_range *r, uintptr_t a, uintptr_t b)
{
	unsigned char vec[512];
	for (uintptr_t cur = a; cur < b;) {
		size_t n = (b - cur) / FL_PAGE;
		if (n > sizeof(vec))
			n = sizeof(vec);
		if (fl_syscall(SYS_mincore, (long)cur, (long)(n * FL_PAGE), (long)vec) != 0)
			return;
		for (size_t i = 0; i < n; i++)
			if (vec[i] & 1)
				*state_of(r, cur + i * FL_PAGE) |= ST_POPULATED;
		cur += n * FL_PAGE;
	}
}

/* a pinned or held page of a range being disabled (fl_pins_around): the program's whole protection */
static void keep_enabled(uintptr_t page, void *rv)
{
	struct fl_range *r = rv;
	*state_of(r, page) &= (uint8_t)~(ST_DISABLED | ST_RDONLY);
	apply(r, page, page + FL_PAGE);
}

/* a run of one range holding no pinned or held page (fl_pins_around) */
static void disable_run(uintptr_t a, uintptr_t b, void *rv)
{
	struct fl_range *r = rv;
	for (uintptr_t p = a; p < b; p += FL_PAGE)
		*state_of(r, p) = (uint8_t)((*state_of(r, p) & ~ST_RDONLY) | ST_DISABLED);
	if (set_prot(a, b - a, PROT_NONE) == -ENOMEM) {
		/* a hole (glibc unmapped part of the range) or the VMA limit; the kernel may have
		 * changed part of the range before it failed: page by page, the state follows */
		for (uintptr_t p = a; p < b; p += FL_PAGE)
			if (set_prot(p, FL_PAGE, PROT_NONE) == -ENOMEM) {
				*state_of(r, p) &= (uint8_t)~ST_DISABLED;
				limit_reached(p, FL_PAGE);
			}
	}
}

/* the pinned and held pages are never disabled (pins.c) */
static void mp_disable(uintptr_t s, uintptr_t e)
{
	fl_evms_forget(s, e);
	if (fl_fork_depth)
		return;
	for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) {
		populate(o.r, o.a, o.b);
		fl_pins_around(o.a, o.b, disable_run, keep_enabled, o.r);
	}
}

static uint32_t mp_restore(uintptr_t s, uintptr_t e)
{
	for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) {
		for (uintptr_t p = o.a; p < o.b; p += FL_PAGE)
			*state_of(o.r, p) &= (uint8_t)~(ST_DISABLED | ST_RDONLY);
		apply(o.r, o.a, o.b);
	}
	return 0;
}

/*
 * madvise zapped [s, e) (the call's report comes after it): the pages are empty now, new pages
 * whose next reference is a record, as under userfaultfd, where the zap leaves them missing. The
 * zap leaves an enabled page's protection as it was, so it is disabled here; the EVMS deleted
 * its entry first (map_events.c), so mp_disable's forget finds nothing live in [s, e).
 */
static void mp_discard(uintptr_t s, uintptr_t e)
{
	for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);)
		for (uintptr_t p = o.a; p < o.b; p += FL_PAGE)
			*state_of(o.r, p) &= (uint8_t)~ST_POPULATED;
	mp_disable(s, e);
}

static int mp_trace_new(uintptr_t s, uintptr_t e, uint32_t source)
{
	size_t npages = (e - s) / FL_PAGE;
	size_t state_len = FL_PAGE_UP(npages);
	/* FL_RANGE_MAPS times the length: the convention of fl_range_free_state (the uffd engines' maps) */
	uint8_t *st = fl_mem_map(FL_RANGE_MAPS * state_len);
	if (!st)
		return -ENOMEM;
	memset(st, (PROT_READ | PROT_WRITE) << ST_PROG_SHIFT, npages); /* scope takes rw-p mappings only */
	struct fl_range r = { .start = s, .end = e, .park = 0, .bits = (uint64_t *)st, .bit0 = 0,
			      .source = source, .bits_pages = (uint32_t)(state_len / FL_PAGE) };
	int err = fl_range_insert(&r);
	if (err) {
		fl_mem_unmap(st, FL_RANGE_MAPS * state_len);
		return err;
	}
	fl_cnt.registered_pages += npages;
	mp_disable(s, e);
	return 0;
}

static int release(uintptr_t a, uintptr_t b)
{
	mp_restore(a, b);
	return 0;
}

static int mp_untrace(uintptr_t s, uintptr_t e, int unmapped)
{
	return fl_ranges_untrace(s, e, unmapped, release, NULL);
}

/* mremap moved [from, from + len) to `to`, protections and all: the range follows, and the
 * moved pages are new pages for the EVMS (kVMTrace), disabled at their new place */
static void mp_relocate(uintptr_t from, uintptr_t to, size_t len)
{
	fl_ranges_relocate(from, to, len);
	mp_disable(to, to + len);
}

static int mp_first_touch(struct fl_range *r, uintptr_t page)
{
	/* atomic: threads resolving faults without the lock set it for pages of one word */
	return !(__atomic_fetch_or(state_of(r, page), ST_POPULATED, __ATOMIC_RELAXED) & ST_POPULATED);
}

/*
 * Enable a disabled page with the program's protection, less PROT_WRITE if read_only (its
 * first write is then a fault of ours: the dirty flag). 1 if it was disabled by us, 0 if
 * another thread enabled it first.
 */
static int mp_enable(uintptr_t page, int write, int read_only)
{
	(void)write; /* the page's contents stay in place: nothing to fill */
	struct fl_range *r = fl_range_find(page);
	if (!r)
		return 0;
	uint8_t *st = state_of(r, page);
	if (!(*st & ST_DISABLED))
		return 0;
	*st &= (uint8_t)~(ST_DISABLED | ST_RDONLY);
	if (read_only)
		*st |= ST_RDONLY;
	apply(r, page, page + FL_PAGE);
	return 1;
}

static int mp_protect_writes(uintptr_t page, int protect)
{
	struct fl_range *r = fl_range_find(page);
	if (!r)
		return 0;
	uint8_t *st = state_of(r, page);
	uint8_t before = *st;
	if (protect)
		*st |= ST_RDONLY;
	else
		*st &= (uint8_t)~ST_RDONLY;
	if (prot_of(*st) != prot_of(before))
		apply(r, page, page + FL_PAGE);
	return 0;
}

static int mp_evict(uintptr_t page)
{
	if (fl_pins_has(page))
		return 0;
	struct fl_range *r = fl_range_find(page);
	if (!r)
		return 0;
	uint8_t *st = state_of(r, page);
	if (*st & ST_DISABLED)
		return 0; /* disabled already: this EVMS entry was stale */
	*st = (uint8_t)((*st & ~ST_RDONLY) | ST_DISABLED);
	if (set_prot(page, FL_PAGE, PROT_NONE) == -ENOMEM) {
		*st &= (uint8_t)~ST_DISABLED;
		limit_reached(page, FL_PAGE);
		return 0;
	}
	return 1;
}

static void mp_pin(uintptr_t addr)
{
	uintptr_t page = FL_PAGE_DOWN(addr);
	fl_pins_add(page);
	fl_evms_forget(page, page + FL_PAGE);
	struct fl_range *r = fl_range_find(page);
	if (r) {
		*state_of(r, page) &= (uint8_t)~(ST_DISABLED | ST_RDONLY);
		apply(r, page, page + FL_PAGE);
	}
}

static int mp_untrace_all(void)
{
	fl_evms_clear(); /* the eviction records in kVMTrace's order, before the ranges go */
	while (fl_range_count()) {
		struct fl_range *r = fl_range_at(fl_range_count() - 1);
		mp_untrace(r->start, r->end, 0);
	}
	return 0;
}

/* the parent enabled every page before forking (FL_REQ_FORK_PREPARE): the child's pages are
 * enabled, its copy of the table and state bytes is right; the handler disables them again */
static int mp_fork_child(void)
{
	return 0;
}

/*
 * On the faulting thread, lock held or not (FL_ACCESS_SHARED): ours if the page is traced and disabled by us, or
 * read-only by us and written, and the access is one the program's own protection allows
 * (else the fault is the program's: a guard page, a write to memory it made read-only).
 * Not ours but FL_TRAP_ALLOWED: a traced page that allows the access now.
 */
static int mp_trapped(uintptr_t addr, uint32_t access, uint32_t *flags)
{
	uintptr_t page = FL_PAGE_DOWN(addr);
	struct fl_range *r = fl_range_find(page);
	if (!r && (access & FL_ACCESS_SHARED))
		return -1; /* a grown stack, or not ours: the lock's path */
	if (!r && fl_scope_grow_stack(page)) /* the main stack grown below what is traced (scope.c) */
		r = fl_range_find(page);
	if (!r)
		return 0;
	uint8_t st = __atomic_load_n(state_of(r, page), __ATOMIC_ACQUIRE);
	if ((access & FL_ACCESS_SHARED) && !(st & ST_DISABLED) && !((st & ST_RDONLY) && (access & FL_ACCESS_WRITE))) {
		/*
		 * The state allows the access, yet it faulted: without the agent lock, another thread may
		 * be between writing the state and its mprotect (both under the page's lock, fault.c's
		 * sync_page). Read it again once that thread is done, or this thread would retry against
		 * the old protection for as long as the other is off its CPU, and then pass the fault on.
		 */
		fl_page_lock(r, page);
		st = __atomic_load_n(state_of(r, page), __ATOMIC_ACQUIRE);
		fl_page_unlock(r, page);
	}
	int want = wanted(st);
	if (!(want & PROT_READ) || ((access & FL_ACCESS_WRITE) && !(want & PROT_WRITE)) ||
	    ((access & FL_ACCESS_EXEC) && !(want & PROT_EXEC)))
		return 0;
	*flags = (access & FL_ACCESS_WRITE) ? FL_TRAP_WRITE : 0;
	if (st & ST_DISABLED)
		return 1;
	if ((st & ST_RDONLY) && (access & FL_ACCESS_WRITE)) {
		*flags |= FL_TRAP_WP;
		return 1;
	}
	/* the state is the page's protection (the lock is held): it allows the access, so the
	 * fault met a protection another thread has changed since */
	*flags |= FL_TRAP_ALLOWED;
	return 0;
}

/*
 * The program's mprotect of [s, s + len): the kernel's answer comes from doing it, then the
 * traced pages get back what the engine needs (disabled stay PROT_NONE, read-only stay without
 * write), with the program's protection kept for when they are enabled.
 */
static int mp_protect(uintptr_t s, size_t len, int prot)
{
	long err = raw_mprotect(s, len, prot); /* the program's own call, as it made it */
	if (err)
		return (int)err;
	uintptr_t e = FL_PAGE_UP(s + len);
	for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) {
		for (uintptr_t p = o.a; p < o.b; p += FL_PAGE) {
			uint8_t *st = state_of(o.r, p);
			*st = (uint8_t)((*st & ~ST_PROG_MASK) | ((prot & 7) << ST_PROG_SHIFT));
		}
		apply(o.r, o.a, o.b);
	}
	return 0;
}

static int mp_resident(uintptr_t page)
{
	const struct fl_range *r = fl_range_find(page);
	return r && !(__atomic_load_n(state_of(r, page), __ATOMIC_ACQUIRE) & ST_DISABLED);
}

static int mp_shared(void)
{
	return !fl_check;
}

const struct fl_engine fl_engine_mprotect = {
	.name = "mprotect",
	.observes = 0,
	.init = mp_init,
	.open = mp_open,
	.close = mp_nothing,
	.reset_after_fork = mp_nothing,
	.fd = mp_fd,
	.read = mp_read,
	.wake = mp_wake,
	.trace_new = mp_trace_new,
	.disable = mp_disable,
	.restore = mp_restore,
	.discard = mp_discard,
	.untrace = mp_untrace,
	.relocate = mp_relocate,
	.first_touch = mp_first_touch,
	.enable = mp_enable,
	.protect_writes = mp_protect_writes,
	.evict = mp_evict,
	.pin = mp_pin,
	.untrace_all = mp_untrace_all,
	.fork_child = mp_fork_child,
	.trapped = mp_trapped,
	.resident = mp_resident,
	.shared = mp_shared,
	.protect = mp_protect,
	.fault_signal = fl_fault_signal_number,
	.thread_start = fl_fault_signal_thread,
};
