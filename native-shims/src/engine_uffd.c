/*
 * engine_uffd.c: the userfaultfd engine (struct fl_engine), the default. A disabled page is
 * moved out to a parking slot with UFFDIO_MOVE; its next reference, from user or kernel mode,
 * makes the faulting thread wait on the userfaultfd until a handler thread has read the fault
 * and moved the page back. Mapping changes (munmap, madvise, mremap) arrive on the same fd.
 * Handler threads (agent lock held); under the sigbus engine the faulting thread, with the lock or
 * on the shared path (fault.c: enable, evict and the rest for one page, its page lock held; the
 * bitmaps' bits changed atomically, engine_uffd.h).
 *
 * Every traced range [start, end) has a parking range of the same size, registered with the
 * same userfaultfd (UFFDIO_MOVE needs its destination registered with the ctx it is issued on,
 * and needs source and destination anonymous, private, with equal protection). Page p parks at
 * park + (p - start). Disabling moves a page out (contents kept, PTE now empty: the next access
 * is a MISSING fault); enabling moves it back, which also wakes the faulting threads.
 *
 * Invariants:
 *   - a traced page is in one of three states: enabled (present, maybe in the EVMS), parked
 *     (content at its parking slot), or empty (never populated, or discarded by madvise);
 *   - a parking slot holds a page only while its traced page is not present, except for a
 *     stale copy left behind by a UFFDIO_COPY home (copy-in, until its thread drops it with
 *     others; the fallback when the protection changed): a later move into that slot gets
 *     EEXIST. A slot is dropped only when the traced page is present at home (pagemap or, for
 *     copy-in's batches, the home map under the page's lock), i.e. when the slot cannot be the
 *     program's copy (slot_taken). Under
 *     xz -T2 this agent once met an occupied slot and an empty home for a page it had moved
 *     home 512 faults earlier, with no operation of its own in between (FAULTLINE_CHECK's
 *     history); dropping the slot then lost the program's data. Whatever moved it, the rule
 *     keeps the one copy there is;
 *   - resolving a fault always tries the move back first and zero-fills only on ENOENT (or on
 *     EINVAL, protection changed, when pagemap shows the parking slot empty), so a wrong
 *     "populated" bit can only mislabel FL_REC_FIRST_TOUCH, never lose data;
 *   - a restore never gives up on a parked page while its parking area is to be freed: an
 *     EAGAIN that persists means an event is queued (mmap_changing is cleared only when the
 *     handler reads it), so the restore reports the page and the handler drains and retries.
 *
 * The "populated" bitmap (one bit per traced page: it has content, present or parked) exists
 * only to set FL_REC_FIRST_TOUCH before the fault is resolved: records are published before
 * resolution (see fault.c), so the resolution's outcome cannot be used. When a range is
 * disabled in bulk the bits come from /proc/self/pagemap read just before the move; a page
 * populated by another thread in between is labelled a first touch although it was not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <time.h>

#include "check.h"
#include "engine.h"
#include "engine_uffd.h"
#include "evms.h"
#include "lock.h"
#include "maps.h"
#include "mem.h"
#include "mode.h"
#include "pagemap.h"
#include "pins.h"
#include "ranges.h"
#include "sigstack.h"
#include "state.h"
#include "sys.h"

/*
 * EAGAIN means "the page tables changed under the move, try again"; in practice it is
 * transient, but some pages keep answering EAGAIN (seen in libjvm's .bss under a JVM): after
 * this many tries the page takes the error path (copy instead of move, or stays enabled).
 */
#define EAGAIN_RETRIES 16

int fl_uffd = -1;
int fl_uffd_unseen_unmaps;
int fl_uffd_wp_async;

int uffd_writes_async(void)
{
	return fl_uffd_wp_async;
}

int uffd_held_away(const struct fl_range *r, uintptr_t page)
{
	return fl_range_bit(r, page);
}
int fl_uffd_no_events;

static uintptr_t zero_src; /* a zeroed agent page: UFFDIO_COPY source for first-touch writes */
static int copy_in_always; /* FAULTLINE_TEST_COPY_IN (faultline's own tests): copy-in with no other thread */

int uffd_init(void)
{
	int err = fl_pagemap_open();
	if (err || zero_src)
		return err; /* a later attached session: the rest is there */
	copy_in_always = getenv("FAULTLINE_TEST_COPY_IN") != NULL;
	zero_src = (uintptr_t)fl_mem_map(FL_PAGE);
	if (!zero_src)
		return -ENOMEM;
	/* populate it now (a plain fault, the page is not registered) so COPY never faults on it */
	*(volatile char *)zero_src = 0;
	return 0;
}

static inline uintptr_t park_of(const struct fl_range *r, uintptr_t page)
{
	return r->park + (page - r->start);
}

static void set_populated(uintptr_t page, void *r)
{
	fl_range_set_bit(r, page, 1);
}

static void populate_bits(struct fl_range *r, uintptr_t s, uintptr_t e)
{
	fl_pagemap_each_present(s, e, set_populated, r);
}

/*
 * Drop whatever the parking area holds for [a, b) of r. MADV_DONTNEED on a registered range
 * would raise UFFD_EVENT_REMOVE, and the kernel would make us (the only reader of the uffd)
 * wait for ourselves; so unregister the parking part, drop the pages, register it again. A
 * userfaultfd that asks for no events (sigbus) zaps in place: no event, and no moment when the
 * slot is unregistered, into which another thread's move (without the lock) would fail.
 */
static void discard_parking(const struct fl_range *r, uintptr_t a, uintptr_t b)
{
	int fd = fl_uffd;
	uintptr_t p = park_of(r, a);
	size_t len = b - a;
	FL_CHECK_LOG(FL_OP_DISCARD, a, b, 0);
	if (fl_uffd_no_events) {
		fl_syscall(SYS_madvise, (long)p, (long)len, MADV_DONTNEED);
	} else if (fl_uffd_unregister(fd, p, len) == 0) {
		fl_sys_madvise((void *)p, len, MADV_DONTNEED);
		fl_uffd_register(fd, p, len);
	}
	if (fl_check)
		fl_check_discarded(r, a, b);
}

typedef int (*move_fail_fn)(const struct fl_range *r, uintptr_t page, int err);

/* pages of the current uffd_restore that are still parked because of a transient error */
static uint32_t restore_stuck;

/*
 * Set while the restoring caller reads the userfaultfd and calls again when pages stay parked
 * (a sampling window's close, the teardown, a fork's preparation): its restore gives up at
 * once when EAGAIN persists and a message is waiting. The kernel refuses moves while a
 * non-cooperative event is pending (ctx->mmap_changing), and only reading the event clears it:
 * munmap(2) then waits in userfaultfd_unmap_complete until we do. Retrying instead (1,024
 * times, 20 us apart) held a monitored sort's munmap for 100 ms in 6 of 60 runs here.
 */
static int restore_gives_way;

/*
 * Bulk move of [a, b) of r in one ioctl with ALLOW_SRC_HOLES (to_park: traced -> parking, else
 * parking -> traced). The kernel stops at the first page it cannot move: a partial move
 * returns EAGAIN with the bytes done in .move; a failure at the first page returns its errno.
 * fail() decides per page: 1 = retry the page, 0 = skip it.
 */
static void bulk_move_pages(const struct fl_range *r, uintptr_t a, uintptr_t b, int to_park, move_fail_fn fail);
static void bulk_move(const struct fl_range *r, uintptr_t a, uintptr_t b, int to_park, move_fail_fn fail)
{
	FL_CHECK_LOG(to_park ? FL_OP_BULK_DISABLE : FL_OP_BULK_RESTORE, a, b, 0);
	bulk_move_pages(r, a, b, to_park, fail);
	if (fl_check)
		fl_check_resync(r, a, b);
}

static void bulk_move_pages(const struct fl_range *r, uintptr_t a, uintptr_t b, int to_park, move_fail_fn fail)
{
	int fd = fl_uffd;
	uintptr_t cur = a;
	int retries = 0;
	while (cur < b) {
		int64_t moved = 0;
		uintptr_t dst = to_park ? park_of(r, cur) : cur, src = to_park ? cur : park_of(r, cur);
		uint64_t mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES | (to_park ? UFFDIO_MOVE_MODE_DONTWAKE : 0);
		int err = fl_uffd_move(fd, dst, src, b - cur, mode, &moved);
		if (!err)
			return;
		if (moved > 0) {
			cur += (uintptr_t)moved;
			retries = 0;
			continue;
		}
		if (err == -EAGAIN && !to_park && restore_gives_way && retries > 4 && fl_fd_readable(fl_uffd)) {
			restore_stuck++; /* the caller reads the event and calls again */
			return;
		}
		if (err == -EAGAIN && retries++ < EAGAIN_RETRIES * (to_park ? 1 : 64)) {
			/* an event in flight (mmap_changing): let its thread run; restores must not give up */
			FL_COUNT(races);
			if (retries > 4) {
				struct timespec ts = { 0, 20000 };
				fl_syscall(SYS_nanosleep, (long)&ts); /* no errno, no wrapper (uffd.c) */
			}
			continue;
		}
		if (err == -EAGAIN && !to_park) {
			/*
			 * Persistent EAGAIN on a restore: a non-cooperative event (UNMAP, REMOVE,
			 * REMAP) is queued on our userfaultfd, and the kernel clears mmap_changing
			 * only when we read it, so neither MOVE nor COPY can succeed before that.
			 * Leave the rest parked and say so: the caller reads the events and retries
			 * (a restore that gave up here would let the parking area be freed with the
			 * program's data in it).
			 */
			restore_stuck++;
			return;
		}
		/* persistent EAGAIN is handed to fail() like any other error */
		if (fail(r, cur, err) && retries++ < 2 * EAGAIN_RETRIES)
			continue;
		retries = 0;
		cur += FL_PAGE;
	}
}

/*
 * The parking slot of page is occupied (EEXIST). Which copy is the program's? If the page is
 * present at home, the program reads that one and the slot holds a stale copy (the COPY
 * fallback leaves them): drop it. If home is empty, the slot holds the only copy: the page is
 * parked already, and dropping the slot would lose the program's data. Returns 1 if the slot
 * was dropped (retry the move), 0 if the page is parked.
 */
static int slot_taken(const struct fl_range *r, uintptr_t page)
{
	if (fl_page_present(page)) {
		discard_parking(r, page, page + FL_PAGE);
		return 1;
	}
	FL_COUNT(races);
	if (fl_check && !fl_check_parked(r, page)) /* parked, but not by us */
		fl_check_report(r, page, "an occupied slot and an empty home: the page is parked already");
	return 0;
}

static int disable_fail(const struct fl_range *r, uintptr_t page, int err)
{
	if (err == -EEXIST) /* a stale copy in the slot (dropped, retry), or parked already (skip) */
		return slot_taken(r, page);
	/* EBUSY: shared with a fork child or pinned; EINVAL: protection changed. Stays enabled. */
	FL_COUNT(lost);
	fl_range_set_home((struct fl_range *)r, page, 1);
	return 0;
}

static int restore_fail(const struct fl_range *r, uintptr_t page, int err)
{
	if (err == -EEXIST) /* the traced page is present: it is the current copy */
		return 0;
	if (err == -ENOENT) /* nothing parked here */
		return 0;
	FL_COUNT(races);
	/*
	 * The move itself is refused (e.g. the traced page's protection no longer matches the
	 * parking area's): copy the contents instead. Only from a present parking page: COPY
	 * reads its source with faults enabled, and a missing parking page would make the handler
	 * wait on its own userfaultfd.
	 */
	uintptr_t p = park_of(r, page);
	if (fl_page_present(p)) {
		int cerr = fl_uffd_copy(fl_uffd, page, p, FL_PAGE, 0);
		if (cerr && cerr != -EEXIST) /* EEXIST: the traced page is present, the slot is stale */
			restore_stuck++;
	}
	return 0;
}

static int fill_zero(uintptr_t page, int write);

/*
 * A pinned or held page of a range being disabled (fl_pins_around): home, its bit set (a new
 * range's map starts clear), and brought home if it was parked (a held page the call has not
 * touched yet). Under sigbus a pinned page never populated is filled with zeros, as its first
 * touch would be: a fault on a page that is home by its bit and missing is nobody's, and the
 * thread would retry it forever (the top of a stack the program gives a new thread, pinned by
 * the pthread_create wrapper before glibc writes the thread's descriptor there). Under uffd
 * such a fault waits for the handler, which resolves it.
 */
static void keep_home(uintptr_t page, void *r)
{
	fl_range_set_home(r, page, 1);
	int err = fl_uffd_move(fl_uffd, page, park_of(r, page), FL_PAGE, 0, NULL);
	if (!err && fl_check)
		fl_check_moved(r, page, 0);
	if (err == -ENOENT && fl_uffd_no_events && fill_zero(page, 1) == 0) /* ENOENT: home and slot empty */
		fl_range_set_bit(r, page, 1);
}

/*
 * Never agent memory. A range the sigbus engine traces can outlive its memory (glibc unmaps
 * with internal calls no wrapper sees), and the kernel can hand the hole to the agent's next
 * mapping; UFFDIO_MOVE checks only that its source is private, anonymous and writable, so
 * disabling a stale page there would move the agent's own page (a table, a parking slot) away.
 */
static void disable_piece(uintptr_t a, uintptr_t b, void *r)
{
	bulk_move(r, a, b, 1, disable_fail);
}

/* a run of one range holding no pinned or held page (fl_pins_around) */
static void disable_run(uintptr_t a, uintptr_t b, void *r)
{
	fl_range_clear_home(r, a, b);
	fl_mem_subtract(a, b, disable_piece, r);
}

/* the pinned and held pages are never moved out (pins.c) */
void uffd_disable(uintptr_t s, uintptr_t e)
{
	fl_evms_forget(s, e);
	if (fl_fork_depth) /* a fork child is about to copy this memory: it must be complete */
		return;
	if (fl_mode->flags & FL_CHECKS_ONLY) /* monitoring disables only the pages it checks (uffd_watch) */
		return;
	for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) {
		populate_bits(o.r, o.a, o.b);
		fl_pins_around(o.a, o.b, disable_run, keep_home, o.r);
	}
}

static void disable_enabled_run(uintptr_t a, uintptr_t b, void *r)
{
	fl_range_clear_home(r, a, b);
	bulk_move(r, a, b, 1, disable_fail);
}

/*
 * Moca's interval end (mode_moca.c): every page of [s, e) was enabled by a fault in the interval
 * and none is pinned, so neither uffd_disable's pagemap read (their populated bits are set) nor
 * its pass over the pins is needed: one bulk move per run between the pages system calls hold
 * (pins.c), which stay; mode_moca.c keeps those for the next interval's end.
 */
void uffd_disable_enabled(uintptr_t s, uintptr_t e)
{
	for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);)
		fl_pins_around(o.a, o.b, disable_enabled_run, NULL, o.r);
}

static uint32_t uffd_restore(uintptr_t s, uintptr_t e)
{
	restore_stuck = 0;
	for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) {
		fl_range_set_home_all(o.r, o.a, o.b); /* before: a page may come home at any point of the move */
		bulk_move(o.r, o.a, o.b, 0, restore_fail);
	}
	return restore_stuck;
}

/* a restore whose caller reads and retries: the engine's (serve.c, a fork's preparation)
 * and a sampling window's close (uffd_unwatch) */
uint32_t uffd_restore_giving_way(uintptr_t s, uintptr_t e)
{
	restore_gives_way = 1;
	uint32_t stuck = uffd_restore(s, e);
	restore_gives_way = 0;
	return stuck;
}

void uffd_discard(uintptr_t s, uintptr_t e)
{
	for (struct fl_overlap o = fl_overlaps(s, e); fl_overlap_next(&o);) {
		discard_parking(o.r, o.a, o.b);
		for (uintptr_t p = o.a; p < o.b; p += FL_PAGE)
			fl_range_set_bit(o.r, p, 0);
		fl_range_clear_home(o.r, o.a, o.b);
	}
}

int uffd_trace_new(uintptr_t s, uintptr_t e, uint32_t source)
{
	int fd = fl_uffd;
	size_t len = e - s, npages = len / FL_PAGE;
	size_t bits_len = FL_PAGE_UP((npages + 63) / 64 * 8);
	uintptr_t park = (uintptr_t)fl_mem_map(len);
	uint64_t *bits = fl_mem_map(FL_RANGE_MAPS * bits_len); /* populated, FAULTLINE_CHECK's shadow, home, locks */
	int err = -ENOMEM;
	if (!park || !bits)
		goto fail;
	if ((err = fl_uffd_register(fd, park, len)) != 0)
		goto fail;
	/*
	 * Monitor mode registers a page only while it is checked (uffd_watch): a registered range
	 * would trap every first touch, which costs a handoff each and is no access check.
	 */
	if (!(fl_mode->flags & FL_CHECKS_ONLY) && (err = fl_uffd_register(fd, s, len)) != 0) {
		fl_uffd_unregister(fd, park, len);
		goto fail;
	}
	struct fl_range r = { .start = s, .end = e, .park = park, .bits = bits, .bit0 = 0,
			      .source = source, .bits_pages = (uint32_t)(bits_len / FL_PAGE) };
	if ((err = fl_range_insert(&r)) != 0) {
		fl_uffd_unregister(fd, s, len);
		fl_uffd_unregister(fd, park, len);
		goto fail;
	}
	fl_cnt.registered_pages += npages;
	FL_CHECK_LOG(FL_OP_REGISTER, s, e, 0);
	uffd_disable(s, e);
	return 0;
fail:
	if (park)
		fl_mem_unmap((void *)park, len);
	if (bits)
		fl_mem_unmap(bits, FL_RANGE_MAPS * bits_len);
	return err;
}

/*
 * Stop tracing [s, e). unmapped: the program's mapping is already gone (UFFD_EVENT_UNMAP), so
 * there is nothing to restore or unregister on the traced side; otherwise parked pages come
 * home first and the traced part is unregistered.
 */
/* the traced side of [a, b) before it leaves: parked pages home, unregistered */
static int release(uintptr_t a, uintptr_t b)
{
	if (uffd_restore(a, b)) {
		/* pages still parked (an event is pending): keep the piece, caller retries */
		FL_DEBUG("untrace-stuck", a, b, -EAGAIN);
		return -EAGAIN;
	}
	fl_uffd_unregister(fl_uffd, a, b - a);
	return 0;
}

/* a piece that left: its parking area goes */
static void drop_parking(const struct fl_range *piece)
{
	size_t len = piece->end - piece->start;
	fl_uffd_unregister(fl_uffd, piece->park, len);
	fl_sys_munmap((void *)piece->park, len);
	fl_mem_release(piece->park, piece->park + len);
}

int uffd_untrace(uintptr_t s, uintptr_t e, int unmapped)
{
	return fl_ranges_untrace(s, e, unmapped, release, drop_parking);
}

/*
 * mremap moved [from, from + len) to [to, to + len) (UFFD_EVENT_REMAP): the PTEs moved with
 * the mapping, the parking slots did not, so the range keeps its parking and bitmap and only
 * its traced address changes. The new place never overlaps the old one. For the EVMS the old
 * pages are deleted (kVMTrace) and the new ones are new pages: the moved pages that were
 * enabled are disabled at their new place, so that their next reference is recorded.
 */
void uffd_relocate(uintptr_t from, uintptr_t to, size_t len)
{
	FL_CHECK_LOG(FL_OP_RELOCATE, from, from + len, 0);
	fl_ranges_relocate(from, to, len);
	uffd_disable(to, to + len);
}

static int fill_zero(uintptr_t page, int write)
{
	/* a write would only fault again on the read-only zero page: give it a private page now */
	int err = write ? fl_uffd_copy(fl_uffd, page, zero_src, FL_PAGE, 1)
			: fl_uffd_zeropage(fl_uffd, page, FL_PAGE, 1);
	FL_CHECK_LOG(FL_OP_FILL_ZERO, page, write, err);
	return err;
}

static int enable_page(int fd, uintptr_t page, int write, int copy, struct fl_parked_copies *copies);

/*
 * Copy-in (the sigbus engine, trace mode, beside other threads). A page that a read brings home
 * comes by UFFDIO_COPY from its parking slot, write-protected in the same call
 * (UFFDIO_COPY_MODE_WP), instead of UFFDIO_MOVE and then UFFDIO_WRITEPROTECT. The copy fills an
 * empty page-table entry, which needs no TLB flush; the move clears the slot's entry and the
 * protection changes home's, and each of those flushes the process's TLB on every CPU where one
 * of its threads runs: an interrupt to each such CPU, which the sender waits for. On one running
 * thread the flushes are local and cheap, and the copy's page allocation costs more than they do
 * (BENCHMARKS.md, "Copy-in beside other threads"), so a thread copies only within BESIDE_OTHERS enables of another
 * thread's. The slot keeps a stale copy: the thread notes it (struct fl_parked_copies) and drops
 * FL_PARKED_COPIES of them at once with one process_madvise(MADV_DONTNEED), whose zaps share one
 * flush (mm/madvise.c). A stale slot is what slot_taken already tells apart (home present: the
 * slot is not the program's copy), so a move out that meets one before it is dropped drops it
 * there; the batch drops a slot only under its page's lock and while the page is home, so that
 * no move out can have put the program's copy in it since.
 */
#define BESIDE_OTHERS 64
static void *last_faulter; /* the signal stack slot (the thread) of the latest enable on one */
_Static_assert(sizeof(struct fl_parked_copies) <= FL_SIGSTACK_ENGINE, "the engine's part of a thread's state (sigstack.h)");
#define PIDFD_SELF_THREAD (-10000) /* include/uapi/linux/pidfd.h (Linux 6.15): the caller's own mm */

/* the calling thread's list of stale slots if it should copy pages in now, else NULL */
static struct fl_parked_copies *copies_here(void)
{
	if (!fl_uffd_no_events || fl_check || !(fl_mode->flags & FL_KEEPS_EVMS))
		return NULL;
	void *slot = fl_sigstack_here(); /* a fault signal's or the gate's handler */
	if (!slot)
		return NULL;
	struct fl_parked_copies *c = fl_sigstack_engine(slot);
	c->enables++;
	/* a store only when the latest enable was another thread's: one cache line the threads share */
	if (__atomic_load_n(&last_faulter, __ATOMIC_RELAXED) != slot) {
		__atomic_store_n(&last_faulter, slot, __ATOMIC_RELAXED);
		c->other_at = c->enables;
	}
	return copy_in_always || c->enables - c->other_at < BESIDE_OTHERS ? c : NULL;
}

/*
 * Monitor mode under sigbus: a check's page always comes home by copy, as it was (no
 * write-protection: a check records nothing). The guard that armed it is another thread of the
 * process, running on the other CPU at these rates (arming, closing windows, serving), so a move
 * home's flush was an interrupt to it that the checked thread waited for (BENCHMARKS.md,
 * "Checks brought home by copy"). The stale slots are the guard's to drop, all of a window's at
 * once when it unwatches them (uffd_unwatch), not the checked thread's.
 */
static int check_copies(void)
{
	return fl_uffd_no_events && !fl_check;
}

/* drop the slots of v[0..n) with one process_madvise: their zaps share one TLB flush (mm/madvise.c) */
static void zap_slots(const struct iovec *v, uint32_t n)
{
	if (n && fl_syscall(SYS_process_madvise, PIDFD_SELF_THREAD, (long)v, n, MADV_DONTNEED, 0) < 0)
		for (uint32_t i = 0; i < n; i++) /* a kernel before 6.15, without PIDFD_SELF_THREAD */
			fl_syscall(SYS_madvise, (long)v[i].iov_base, FL_PAGE, MADV_DONTNEED);
}

static void drop_copies(struct fl_parked_copies *c)
{
	struct iovec v[FL_PARKED_COPIES];
	uintptr_t held[FL_PARKED_COPIES];
	struct fl_range *of[FL_PARKED_COPIES];
	uint32_t n = 0, keep = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		uintptr_t page = c->page[i];
		struct fl_range *r = fl_range_find(page);
		if (!r) /* untraced since: its parking went with it */
			continue;
		if (!fl_page_trylock(r, page)) { /* another thread moves it (or this one, whose page it is) */
			c->page[keep++] = page;
			continue;
		}
		if (!fl_range_home(r, page)) { /* moved out since, into the slot slot_taken dropped */
			fl_page_unlock(r, page);
			continue;
		}
		v[n] = (struct iovec){ (void *)park_of(r, page), FL_PAGE };
		held[n] = page;
		of[n++] = r;
	}
	if (n)
		zap_slots(v, n);
	for (uint32_t i = 0; i < n; i++)
		fl_page_unlock(of[i], held[i]);
	c->n = keep;
}

/*
 * Page home from its slot: copied where copy is set (copy-in; write-protected when the mode
 * keeps an EVMS, whose reads come so; the stale slot noted in copies, when given, for this
 * thread to drop), 2; else moved, 0. Or -errno as the move's: EFAULT, a copy's read of an empty
 * slot (no wait under UFFD_USER_MODE_ONLY), is the move's ENOENT.
 */
static int come_home(int fd, const struct fl_range *r, uintptr_t page, int copy, struct fl_parked_copies *copies)
{
	uintptr_t park = park_of(r, page);
	if (copy) {
		uint64_t wp = (fl_mode->flags & FL_KEEPS_EVMS) ? UFFDIO_COPY_MODE_WP : 0;
		int err = fl_uffd_copy_mode(fd, page, park, FL_PAGE, UFFDIO_COPY_MODE_DONTWAKE | wp);
		if (!err) {
			if (copies && copies->n == FL_PARKED_COPIES)
				drop_copies(copies);
			if (copies && copies->n < FL_PARKED_COPIES)
				copies->page[copies->n++] = page;
			return 2;
		}
		if (err == -EFAULT || err == -EEXIST || err == -EAGAIN)
			return err == -EFAULT ? -ENOENT : err;
	}
	return fl_uffd_move(fd, page, park, FL_PAGE, UFFDIO_MOVE_MODE_DONTWAKE, NULL);
}

/*
 * EEXIST with nothing at home: under asynchronous write-protect (which implies WP_UNPOPULATED)
 * a write-protection that met an empty slot left a uffd-wp marker there (a page zapped between
 * its move home and its protection), and every move or fill into it fails so, while the thread
 * faults on it forever. Lifting the protection clears the marker; the caller tries again.
 */
static int wp_marker(uintptr_t page)
{
	return fl_uffd_wp_async && !fl_page_present(page) && fl_uffd_writeprotect(fl_uffd, page, FL_PAGE, 0) == 0;
}

/*
 * Resolve the fault on page. The moves and fills never wake: the caller wakes the faulting
 * threads on every outcome but -EAGAIN (fault.c: once the agent lock is released, lock.c; a
 * thread woken while its handler holds the lock would preempt it there).
 */
int uffd_enable(uintptr_t page, int write, int read_only)
{
	int fd = fl_uffd;
	struct fl_parked_copies *copies = NULL;
	int copy;
	if (fl_mode->flags & FL_CHECKS_ONLY) {
		copy = check_copies();
	} else {
		copies = copies_here();
		if (!read_only) /* trace mode copies in only what reads bring home */
			copies = NULL;
		copy = copies != NULL;
	}
	int r = enable_page(fd, page, write, copy, copies);
	if (r == 1 && read_only) /* UFFDIO_MOVE drops a page's write-protection: set it after the move home */
		fl_uffd_writeprotect(fd, page, FL_PAGE, 1);
	return r == 2 ? 1 : r;
}

/* 1: home, 2: home by copy (copy-in), 0: not (the caller wakes anyway) */
static int enable_page(int fd, uintptr_t page, int write, int copy, struct fl_parked_copies *copies)
{
	for (int attempt = 0; attempt < EAGAIN_RETRIES; attempt++) {
		struct fl_range *r = fl_range_find(page);
		if (!r) {
			/* registered by the kernel (e.g. a vma grown in place) but unknown to us */
			int err = fill_zero(page, write);
			if (err == -EAGAIN)
				continue;
			return 0;
		}
		uintptr_t park = park_of(r, page);
		fl_range_set_home(r, page, 1); /* before the page can be home (engine_uffd.h, the home map) */
		int err = come_home(fd, r, page, copy, copies);
		if (err == 2)
			return 2;
		if (fl_check)
			fl_check_enable(r, page, err);
		if (!err)
			return 1;
		if (err == -EAGAIN) {
			FL_COUNT(races);
			continue;
		}
		if (err == -EEXIST) { /* already resolved (another thread's fault on the same page) */
			FL_COUNT(races);
			if (wp_marker(page))
				continue;
			return 0;
		}
		if (err == -ENOENT || (err == -EINVAL && !fl_page_present(park))) {
			/*
			 * Nothing parked: never populated or discarded. EINVAL (the traced vma's
			 * protection no longer matches the parking area's, e.g. a JVM polling page
			 * mprotected to PROT_READ) is checked before the kernel looks for the page,
			 * so an empty slot has to be read from pagemap; waking without resolving would
			 * make the thread fault again forever.
			 */
			err = fill_zero(page, write);
			if (!err)
				return 1;
			if (err == -EAGAIN) {
				FL_COUNT(races);
				continue;
			}
			if (err == -EEXIST) {
				FL_COUNT(races);
				if (wp_marker(page))
					continue;
			}
			return 0;
		}
		if (fl_page_present(park)) {
			/*
			 * Move refused (protection changed): copy the contents. Where zapping needs no
			 * reader (fl_uffd_no_events) the slot is emptied at once and the page joins the
			 * EVMS: its move out is refused too, and evict_by_copy takes it out instead.
			 * Otherwise the stale parked copy is discarded when its slot is next needed
			 * (EEXIST), and the page stays out of the EVMS: enabled, never disabled again.
			 */
			FL_COUNT(races);
			err = fl_uffd_copy(fd, page, park, FL_PAGE, 1);
			if (err == -EAGAIN)
				continue;
			if (!err && fl_uffd_no_events) {
				fl_syscall(SYS_madvise, (long)park, FL_PAGE, MADV_DONTNEED);
				if (fl_check)
					fl_check_moved(r, page, 0);
				return 1;
			}
			if (!err)
				return 0;
		}
		/* nothing we can do for this page (the thread sees the kernel's verdict on retry) */
		return 0;
	}
	/*
	 * Persistent EAGAIN: the kernel refuses every resolution while a non-cooperative event
	 * (UNMAP, REMOVE, REMAP) is pending on our userfaultfd (ctx->mmap_changing). The faulting
	 * thread keeps waiting; the handler reads the event first and retries (fault.c). Never
	 * give the range up here: its parked pages would be lost.
	 */
	return -EAGAIN;
}

/*
 * Asynchronous dirty tracking: which of pages[0..n) were written since a read enabled them
 * (engine.h, written). Each page's write-protection is its own dirty bit: the kernel clears
 * uffd-wp when it resolves the write, and PAGEMAP_SCAN reports a present page without it as
 * PAGE_IS_WRITTEN. UFFDIO_MOVE does not carry the bit (a page moved home arrives unprotected,
 * moved out it reads written in its slot), so the EVMS asks before every move out of a page that
 * stays resident (policy_segq.c). One scan per run of pages of one traced range lying close
 * together, sorted: the walk costs little beside the system call (a one-page scan 1.8 us, one of
 * 4,080 pages 17 to 33 us here, bench/native/wp_async_probe.c). A run that meets a vma not
 * registered with us (PM_SCAN_CHECK_WPASYNC: EPERM; a stale range of the sigbus engine whose
 * memory glibc unmapped) is asked again page by page, and such a page reads not written.
 */
#define SCAN_SPAN (64 * FL_PAGE) /* pages further apart are scanned separately */
#define VERIFIED_MAX 64

/*
 * Pages the last scan found in vmas registered for asynchronous write-protect: the sigbus
 * engine's eviction probe (uffd_evict) takes them as checked, while no fault was labelled since
 * (the victims of an admission are disabled right after it, in the same resolution).
 */
static uintptr_t verified[VERIFIED_MAX];
static uint32_t verified_n;
static uint64_t verified_at; /* fl_cnt.faults when they were checked */

static uint32_t *order; /* indices of pages, sorted by address (lock held) */
static uint32_t order_cap;

struct run {
	const uintptr_t *pages;
	const uint32_t *idx;
	uint32_t from, to;
	uint8_t *written;
};

static void mark_nothing(uintptr_t a, uintptr_t b, void *ctx)
{
	(void)a;
	(void)b;
	(void)ctx;
}

static void mark_written(uintptr_t a, uintptr_t b, void *ctx)
{
	struct run *w = ctx;
	for (uint32_t k = w->from; k < w->to; k++) {
		uintptr_t p = w->pages[w->idx[k]];
		if (p >= a && p < b)
			w->written[w->idx[k]] = 1;
	}
}

static void sift(uint32_t *a, const uintptr_t *key, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && key[a[c + 1]] > key[a[c]])
			c++;
		if (key[a[i]] >= key[a[c]])
			return;
		uint32_t t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

/* heapsort of the indices by page: the agent never calls malloc, which qsort may */
static void sort_by_page(uint32_t *a, const uintptr_t *key, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		sift(a, key, i, n);
	for (uint32_t m = n; m-- > 1;) {
		uint32_t t = a[0];
		a[0] = a[m];
		a[m] = t;
		sift(a, key, 0, m);
	}
}

static void verify(uintptr_t page)
{
	if (verified_n < VERIFIED_MAX)
		verified[verified_n++] = page;
}

int uffd_written(const uintptr_t *pages, uint32_t n, uint8_t *written)
{
	if (!fl_uffd_wp_async)
		return -ENOTSUP;
	memset(written, 0, n);
	verified_n = 0;
	verified_at = fl_cnt.faults;
	if (n > order_cap) {
		uint32_t cap = n < 1024 ? 1024 : n;
		uint32_t *grown = fl_mem_map((size_t)cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		if (order)
			fl_mem_unmap(order, (size_t)order_cap * sizeof(*order));
		order = grown;
		order_cap = cap;
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	sort_by_page(order, pages, n);
	for (uint32_t k = 0; k < n;) {
		uintptr_t first = pages[order[k]];
		const struct fl_range *r = fl_range_find(first);
		uint32_t end = k + 1;
		while (end < n && r && pages[order[end]] - first < SCAN_SPAN && pages[order[end]] < r->end)
			end++;
		struct run w = { pages, order, k, end, written };
		int err = fl_pagemap_written(first, pages[order[end - 1]] + FL_PAGE, mark_written, &w);
		if (err == -EPERM && end - k > 1) {
			for (uint32_t j = k; j < end; j++) {
				struct run one = { pages, order, j, j + 1, written };
				if (fl_pagemap_written(pages[order[j]], pages[order[j]] + FL_PAGE, mark_written, &one) == 0)
					verify(pages[order[j]]);
			}
		} else if (!err) {
			for (uint32_t j = k; j < end; j++)
				verify(pages[order[j]]);
		}
		k = end;
	}
	return 0;
}

int uffd_page_written(uintptr_t page)
{
	return fl_uffd_wp_async ? fl_page_written(page) : 0;
}

/*
 * The sigbus engine's eviction probe (uffd_evict): does page lie in a vma registered with us?
 * Synchronous tracking asks the kernel to lift a write-protection that is not there (ENOENT: no
 * vma registered for WP), harmless since the move out drops it anyway. Under asynchronous
 * tracking lifting it would mark the page written, so a scan asks instead (EPERM), unless the
 * scan of the admission that chose the victim has just done so.
 */
static int registered_for_wp(uintptr_t page)
{
	if (!fl_uffd_wp_async)
		return fl_uffd_writeprotect(fl_uffd, page, FL_PAGE, 0) != -ENOENT;
	if (verified_at == fl_cnt.faults)
		for (uint32_t i = 0; i < verified_n; i++)
			if (verified[i] == page)
				return 1;
	return fl_pagemap_written(page, page + FL_PAGE, mark_nothing, NULL) != -EPERM;
}

static int only_readable(const struct fl_map_line *m, void *ctx)
{
	*(int *)ctx = m->perms[0] == 'r' && m->perms[1] != 'w';
	return 1;
}

/*
 * The move out refused because the program changed the page's protection since it was traced
 * (EINVAL: home and slot differ), where zapping needs no reader (fl_uffd_no_events): a page the
 * program can only read is copied out and zapped at home, which loses nothing, since nothing
 * can write it in between. Any other (writable and executable, or inaccessible) stays home and
 * is counted lost, as every refused move out is.
 */
static int evict_by_copy(const struct fl_range *r, uintptr_t page)
{
	int readable = 0;
	fl_maps_each_in(page, page + FL_PAGE, only_readable, &readable);
	if (!readable)
		return -EINVAL;
	int err = fl_uffd_copy(fl_uffd, park_of(r, page), page, FL_PAGE, 1);
	if (err == -EEXIST && slot_taken(r, page)) /* the stale copy the page came home from (copy-in) */
		err = fl_uffd_copy(fl_uffd, park_of(r, page), page, FL_PAGE, 1);
	return err ? err : (int)fl_syscall(SYS_madvise, (long)page, FL_PAGE, MADV_DONTNEED);
}

/*
 * Disable an enabled page: 1 if it was moved out, 0 if there was nothing to disable (or it could
 * not be), -EAGAIN: the kernel kept refusing the move because an event is pending
 * (mmap_changing); the page is still enabled and the caller must retry once the event is read
 * (fault.c holds the faulting thread back until then).
 */
int uffd_evict(uintptr_t page)
{
	int fd = fl_uffd;
	if (fl_pins_has(page) || fl_mem_is_agent(page, page + FL_PAGE)) /* agent memory: see disable_piece */
		return 0;
	/*
	 * A range that glibc unmapped with an internal call (a trimmed heap, a deleted arena heap)
	 * may hold a new mapping of the program's now, unregistered: moving its page out would
	 * lose the program's data (it would come back as a zero page). Lifting write-protection is
	 * the cheapest operation the kernel refuses there (ENOENT: no vma registered for WP), and
	 * harmless here: the move out drops it anyway.
	 */
	if (fl_uffd_unseen_unmaps && !registered_for_wp(page))
		return 0;
	for (int attempt = 0; attempt < EAGAIN_RETRIES; attempt++) {
		struct fl_range *r = fl_range_find(page);
		if (!r) /* the mapping went away: forget the page */
			return 0;
		int err = fl_uffd_move(fd, park_of(r, page), page, FL_PAGE, UFFDIO_MOVE_MODE_DONTWAKE, NULL);
		if (fl_check)
			fl_check_evict(r, page, err);
		if (!err) {
			fl_range_set_home(r, page, 0);
			return 1;
		}
		if (err == -EAGAIN) {
			FL_COUNT(races);
			continue;
		}
		if (err == -EEXIST) {
			if (slot_taken(r, page))
				continue;
			/* parked already: this EVMS entry was stale, and so was the home bit (the next fault
			 * on the page must move it home, not take it for a race) */
			fl_range_set_home(r, page, 0);
			return 0;
		}
		if (err == -EINVAL && fl_uffd_no_events && evict_by_copy(r, page) == 0) {
			fl_range_set_home(r, page, 0);
			if (fl_check)
				fl_check_moved(r, page, 1);
			return 1;
		}
		if (err != -ENOENT) /* ENOENT: zapped under us, nothing to disable */
			FL_COUNT(lost);
		return 0;
	}
	return -EAGAIN;
}

void uffd_pin(uintptr_t addr)
{
	uintptr_t page = FL_PAGE_DOWN(addr);
	FL_CHECK_LOG(FL_OP_PIN, page, 0, 0);
	fl_pins_add(page);
	fl_evms_forget(page, page + FL_PAGE);
	struct fl_range *r = fl_range_find(page);
	if (r)
		keep_home(page, r);
}

/* a disabled page's contents are in its parking slot (missing there too if never populated) */
int uffd_peek(uintptr_t page, void *out)
{
	const struct fl_range *r = fl_range_find(page);
	if (!r)
		return -ENOENT;
	long n = fl_read_self(out, park_of(r, page), FL_PAGE);
	return n == (long)FL_PAGE ? 0 : n < 0 ? (int)n : -EIO;
}

/*
 * teardown: every parked page home, every range and parking area unregistered. -EAGAIN: some
 * pages could not come home yet (an event is pending); the caller reads the userfaultfd and
 * calls again.
 */
int uffd_untrace_all(void)
{
	fl_evms_clear(); /* the eviction records in kVMTrace's order, before the ranges go */
	restore_gives_way = 1;
	int err = 0;
	while (fl_range_count()) {
		struct fl_range *r = fl_range_at(fl_range_count() - 1);
		if ((err = uffd_untrace(r->start, r->end, 0)) == -EAGAIN)
			break;
	}
	restore_gives_way = 0;
	return err == -EAGAIN ? -EAGAIN : 0;
}

/* fork child (only the forking thread exists), or a new attached session: our own pagemap;
 * the fd, if any, is the parent's (or the last session's) and must not be used */
void uffd_reset_after_fork(void)
{
	if (fl_uffd >= 0)
		close(fl_uffd);
	fl_uffd = -1;
	fl_pagemap_open(); /* the parent's descriptor: /proc/self was resolved at open time */
}

/*
 * Handler of a followed fork child: the table is the parent's at fork time, the kernel dropped
 * every registration (no UFFD_FEATURE_EVENT_FORK), every page is home (the parent restored
 * them before forking) and shared with the parent. Per range: make its pages exclusive while
 * it is not registered (no userfault possible), register it and its parking area with our
 * userfaultfd; a range that is gone or changed is forgotten. Then disable everything.
 */
int uffd_fork_child(void)
{
	int fd = fl_uffd;
	fl_cnt.registered_pages = 0;
	for (uint32_t i = 0; i < fl_range_count();) {
		struct fl_range *r = fl_range_at(i);
		size_t len = r->end - r->start;
		fl_pagemap_break_cow(r->start, r->end);
		int err = fl_uffd_register(fd, r->park, len);
		if (!err && (err = fl_uffd_register(fd, r->start, len)) != 0)
			fl_uffd_unregister(fd, r->park, len);
		if (err) {
			FL_DEBUG("fork-child-drop", r->start, r->end, err);
			struct fl_range gone = *r;
			fl_range_remove_at(i);
			fl_sys_munmap((void *)gone.park, len);
			fl_mem_release(gone.park, gone.park + len);
			fl_range_free_state(&gone);
			continue;
		}
		/* a parked copy cannot exist (restored before fork) except stale COPY leftovers */
		discard_parking(r, r->start, r->end);
		fl_range_set_home_all(r, r->start, r->end);
		fl_cnt.registered_pages += len / FL_PAGE;
		i++;
	}
	return 0;
}

/*
 * The handshake of both userfaultfd engines, with asynchronous write-protect where it serves: a
 * session whose EVMS keeps a dirty flag (trace mode with dirty tracking) needs the flag only when
 * a page leaves, which PAGEMAP_SCAN reads (uffd_written). Moca mode counts the write faults
 * themselves (mode_moca.c), so they must reach us: it keeps the synchronous path, as --no-dirty
 * keeps no protection at all. A kernel without WP_ASYNC (before Linux 6.7) refuses the feature
 * with EINVAL before the handshake is done, so the same descriptor asks again without it; the
 * synchronous path is then said once per recording (by its first image), in one line.
 */
#define NO_WP_ASYNC_FOR_TESTS "FAULTLINE_TEST_NO_WP_ASYNC"
int fl_uffd_api_dirty(int fd, uint64_t want)
{
	fl_uffd_wp_async = 0;
	if (!(fl_mode->flags & FL_KEEPS_EVMS) || !(fl_mode->flags & FL_TRACKS_DIRTY) || (fl_agent.flags & FL_FLAG_NO_DIRTY))
		return fl_uffd_api(fd, want, NULL);
	const char *why = "taken away by " NO_WP_ASYNC_FOR_TESTS " (a switch for faultline's own tests)";
	if (!getenv(NO_WP_ASYNC_FOR_TESTS)) {
		int err = fl_uffd_api(fd, want | UFFD_FEATURE_WP_ASYNC, NULL);
		if (err != -EINVAL) {
			fl_uffd_wp_async = !err;
			return err;
		}
		why = "not offered by this kernel (Linux 6.7 has it)";
	}
	int err = fl_uffd_api(fd, want, NULL);
	if (!err && *fl_slot64(FL_SLOT_CLAIM) == 1)
		fl_log("note: asynchronous write-protect (UFFD_FEATURE_WP_ASYNC) ", why,
		       "; dirty tracking takes a fault at the first write to each page a read brought in");
	return err;
}

/*
 * Never UFFD_USER_MODE_ONLY (uffd.c): kernel-mode accesses wait for the handler. THREAD_ID
 * attributes each fault to its thread, EXACT_ADDRESS gives the byte, the events tell us of
 * munmap, madvise and mremap, WP traps the first write to a page enabled by a read.
 */
static int uffd_open(void)
{
	int fd = fl_uffd_open();
	if (fd < 0) {
		fl_log("cannot create userfaultfd: ", strerror(-fd),
		       "; grant access to /dev/userfaultfd or set sysctl vm.unprivileged_userfaultfd=1, or record with --engine mprotect");
		return fd;
	}
	uint64_t want = UFFD_FEATURE_THREAD_ID | UFFD_FEATURE_EXACT_ADDRESS | UFFD_FEATURE_MOVE |
			UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE | UFFD_FEATURE_EVENT_REMAP |
			UFFD_FEATURE_PAGEFAULT_FLAG_WP;
	int err = fl_uffd_api_dirty(fd, want);
	if (err) {
		close(fd);
		fl_log("userfaultfd lacks a needed feature (UFFDIO_MOVE needs Linux 6.8): ", strerror(-err),
		       "; record with --engine mprotect");
		return err;
	}
	fl_uffd = fd;
	fl_uffd_unseen_unmaps = 0;
	fl_uffd_no_events = 0;
	return 0;
}

/* closing unregisters every range: threads still waiting in a fault retry and fault normally */
void uffd_close(void)
{
	if (fl_uffd >= 0)
		close(fl_uffd);
	fl_uffd = -1;
}

static int uffd_fd(void)
{
	return fl_uffd;
}

/* handler threads, with the lock or without (fault.c, fl_fault_drain_shared): the read buffer on the reader's stack */
static int uffd_read(struct fl_trap *out, uint32_t max)
{
	struct uffd_msg msgs[FL_BATCH];
	if (max > FL_BATCH)
		max = FL_BATCH;
	long r = fl_syscall(SYS_read, fl_uffd, msgs, max * sizeof(*msgs));
	if (r < 0)
		return r == -EAGAIN || r == -EINTR ? 0 : (int)r;
	uint32_t n = (uint32_t)((size_t)r / sizeof(*msgs));
	for (uint32_t i = 0; i < n; i++) {
		const struct uffd_msg *m = &msgs[i];
		struct fl_trap *t = &out[i];
		*t = (struct fl_trap){ .kind = FL_TRAP_OTHER };
		switch (m->event) {
		case UFFD_EVENT_PAGEFAULT:
			t->kind = FL_TRAP_FAULT;
			t->a = m->arg.pagefault.address;
			t->tid = m->arg.pagefault.feat.ptid;
			t->flags = ((m->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE) ? FL_TRAP_WRITE : 0) |
				   ((m->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP) ? FL_TRAP_WP : 0);
			break;
		case UFFD_EVENT_UNMAP:
		case UFFD_EVENT_REMOVE:
			t->kind = m->event == UFFD_EVENT_UNMAP ? FL_TRAP_UNMAP : FL_TRAP_REMOVE;
			t->a = m->arg.remove.start;
			t->b = m->arg.remove.end;
			break;
		case UFFD_EVENT_REMAP:
			t->kind = FL_TRAP_REMAP;
			t->a = m->arg.remap.from;
			t->b = m->arg.remap.to;
			t->c = m->arg.remap.len;
			break;
		default:
			break;
		}
	}
	return (int)n;
}

static void uffd_wake(uintptr_t page)
{
	fl_uffd_wake(fl_uffd, page, FL_PAGE);
}

/* the home map says (engine_uffd.h): exact under the page's lock, which every move of it holds on the shared path */
int uffd_resident(uintptr_t page)
{
	const struct fl_range *r = fl_range_find(page);
	return r && fl_range_home(r, page);
}

int uffd_first_touch(struct fl_range *r, uintptr_t page)
{
	return fl_range_test_set_bit(r, page);
}

int uffd_protect_writes(uintptr_t page, int protect)
{
	/* not the hot path (fault.c: a page resolved otherwise): protect only a page that is there */
	if (protect && fl_uffd_wp_async) {
		int r = fl_pagemap_protect_present(page);
		return r < 0 ? r : 0;
	}
	return fl_uffd_writeprotect(fl_uffd, page, FL_PAGE, protect);
}

/* monitor mode (mode_monitor.c): a page is registered only while it is checked */
int uffd_watch(uintptr_t page)
{
	int err = fl_uffd_register(fl_uffd, page, FL_PAGE);
	if (err)
		return err; /* unmapped since, or no longer private anonymous */
	/*
	 * Under the page's lock: the mode may arm beside faults resolved on their threads and the
	 * gate's holds (mode_monitor.c, arm), which take it too; a page a system call holds now was
	 * held after the mode looked, and stays home.
	 */
	struct fl_range *r = fl_range_find(page);
	if (r)
		fl_page_lock(r, page);
	err = fl_pins_held(page) ? -EBUSY : uffd_evict(page);
	if (r)
		fl_page_unlock(r, page);
	if (err == -EBUSY || err == -EAGAIN)
		fl_uffd_unregister(fl_uffd, page, FL_PAGE);
	if (err == 1)
		fl_cnt.evictions++;
	return err < 0 ? err : 0;
}

/*
 * The parking slots of checked pages that came home by copy (check_copies), stale, dropped
 * together when the window's pages are all unwatched (uffd_unwatched, zap_slots), instead of
 * on the checked threads.
 */
#define STALE_MAX 256
static struct iovec stale[STALE_MAX];
static uint32_t stale_n;

static void drop_stale(void)
{
	zap_slots(stale, stale_n);
	stale_n = 0;
}

int uffd_unwatch(uintptr_t page)
{
	const struct fl_range *r = fl_range_find(page);
	if (r && check_copies() && fl_range_home(r, page)) {
		/*
		 * Home already (its check's fault brought it by copy): the slot holds no copy of the
		 * program's, by the home map, which is exact here, since the mode's caller holds the
		 * agent lock and no fault moves a page meanwhile (lock.c).
		 */
		if (stale_n == STALE_MAX)
			drop_stale();
		stale[stale_n++] = (struct iovec){ (void *)park_of(r, page), FL_PAGE };
	} else if (uffd_restore_giving_way(page, page + FL_PAGE)) { /* mode_monitor.c retries it after the next read */
		return -EAGAIN;
	}
	fl_uffd_unregister(fl_uffd, page, FL_PAGE);
	return 0;
}

void uffd_unwatched(void)
{
	drop_stale();
}

/*
 * The parent after a fork (a program thread, no lock): fork left every present page shared
 * copy-on-write with the child, and UFFDIO_MOVE refuses shared pages (EBUSY): make the traced
 * ones exclusive again before they are disabled (fl_pagemap_break_cow).
 */
void uffd_fork_parent(void)
{
	size_t cap = 65536;
	uintptr_t *buf = fl_mem_map(cap * 2 * sizeof(uintptr_t));
	if (!buf)
		return;
	uint32_t n = fl_ranges_snapshot(buf, (uint32_t)cap);
	for (uint32_t i = 0; i < n; i++)
		fl_pagemap_break_cow(buf[2 * i], buf[2 * i + 1]);
	fl_mem_unmap(buf, cap * 2 * sizeof(uintptr_t));
}

const struct fl_engine fl_engine_uffd = {
	.name = "uffd",
	.writes_async = uffd_writes_async,
	.held_away = uffd_held_away,
	.observes = FL_OBSERVES_KERNEL_ACCESS | FL_OBSERVES_MAP_EVENTS,
	.init = uffd_init,
	.open = uffd_open,
	.close = uffd_close,
	.reset_after_fork = uffd_reset_after_fork,
	.fd = uffd_fd,
	.read = uffd_read,
	.wake = uffd_wake,
	.trace_new = uffd_trace_new,
	.disable = uffd_disable,
	.restore = uffd_restore_giving_way,
	.discard = uffd_discard,
	.untrace = uffd_untrace,
	.relocate = uffd_relocate,
	.first_touch = uffd_first_touch,
	.enable = uffd_enable,
	.protect_writes = uffd_protect_writes,
	.evict = uffd_evict,
	.written = uffd_written,
	.page_written = uffd_page_written,
	.pin = uffd_pin,
	.peek = uffd_peek,
	.untrace_all = uffd_untrace_all,
	.fork_child = uffd_fork_child,
	.resident = uffd_resident,
	.watch = uffd_watch,
	.unwatch = uffd_unwatch,
	.unwatched = uffd_unwatched,
	.disable_enabled = uffd_disable_enabled,
	.fork_parent = uffd_fork_parent,
};
