/*
 * mode_moca.c: Moca's interval mode (FL_MODE_MOCA, record --mode moca). Beniamine and Huard, "Moca: an efficient memory
 * trace collection system", Inria research report, 2016, hal-01342679; the module of
 * github.com/dbeniamine/MOCA, moca_taskdata.c (per-task chunks of per-page read and write
 * counts, start and end of a global clock) and moca_page.c (every interval the monitor ends
 * each task's chunk and makes every page of it fault again: its "false page faults").
 *
 * Here there is no EVMS: a page is enabled by its first fault in an interval and stays enabled
 * until the interval ends (the mode's deadline in the guard's loop, guard.c), when every page enabled in the
 * interval is disabled again and every thread's chunk is written. A page first read is
 * write-protected (dirty tracking), so a later write to it in the interval is a write fault.
 * What a chunk counts, per thread and page, is every fault of that thread on that page in the
 * interval: a fault on a disabled page (read or write) and the write-protect fault of a page
 * first read. A page enabled by one thread is not seen again when another thread references it
 * in the same interval (it does not fault), as in Moca, where a false page fault is fixed once.
 *
 * The thread's first fault on a page in the interval takes a tick of the global clock (the
 * record's seq); later faults of the same thread on the page only count. Chunks are written at
 * the interval end, normal exit, exec and teardown; a process ended by a signal or _exit loses
 * the chunks of its last interval.
 *
 * Faults are counted without the agent lock (count, settle: fault.c's shared path) as well as
 * under it; the interval's end, the tables' reset and a full table's early end take the lock,
 * which waits for every fault counted without it (lock.c). Without the lock, faults of different
 * threads meet only in the tables: an entry, a thread and a place in the list of enabled pages
 * are claimed with one compare-and-swap or add each, an entry is filled before the table names
 * it. What a thread's entries and chunk list hold is changed by that thread's faults alone, one
 * at a time (a thread waits in its fault), so they need no atomics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "faultline_shm.h"
#include "emit.h"
#include "engine.h"
#include "mem.h"
#include "mode.h"
#include "pins.h"
#include "state.h"
#include "sys.h"

#define ENTRIES_MAX (1u << 20)      /* (thread, page) pairs in one interval; more closes it early */
#define TABLE_SLOTS (2u * ENTRIES_MAX)
#define THREADS_MAX 4096u           /* threads with chunk ids; power of two */
#define NONE UINT32_MAX

struct entry {
	uintptr_t page, address;
	uint64_t seq, time_ns;
	uint32_t tid, flags, reads, writes;
	uint32_t next; /* the thread's next entry in this interval */
	uint32_t slot; /* its place in the table, emptied when the interval ends */
};

struct thread {
	uint32_t tid;       /* 0: free */
	uint32_t head, tail; /* this interval's entries, NONE if none */
	uint64_t next_id;   /* chunk id of its next chunk */
};

static struct entry *entries;
static uint32_t entries_n;
static uint32_t *table;             /* entry index + 1, 0 = empty; linear probing */
static struct thread *threads;
static uint32_t *active, active_n;  /* threads with entries this interval, in order of first fault */
static uintptr_t *enabled;          /* pages enabled this interval (disabled at its end) */
static uint32_t enabled_n;
static uint64_t interval_no;

static void moca_reset(void);
static uint64_t next_end; /* fl_now_ns(): when the interval ends */

static int moca_start(int wake_fd)
{
	(void)wake_fd;
	if (!fl_engine->disable_enabled) {
		fl_log("Moca mode needs an engine that disables in bulk, not the ", fl_engine->name, " engine; record with --engine uffd");
		return -ENOTSUP;
	}
	if (!entries) {
		entries = fl_mem_map((size_t)ENTRIES_MAX * sizeof(*entries));
		table = fl_mem_map((size_t)TABLE_SLOTS * sizeof(*table));
		threads = fl_mem_map((size_t)THREADS_MAX * sizeof(*threads));
		active = fl_mem_map((size_t)THREADS_MAX * sizeof(*active));
		enabled = fl_mem_map((size_t)ENTRIES_MAX * sizeof(*enabled));
	}
	if (!entries || !table || !threads || !active || !enabled)
		return -ENOMEM;
	int err = fl_emit_moca_init();
	if (err)
		return err;
	moca_reset();
	next_end = fl_now_ns() + fl_agent.interval_ns;
	return 0;
}

/* a fork child or a new session: what the tables hold is another image's */
static void moca_reset(void)
{
	if (!entries)
		return;
	for (uint32_t i = 0; i < entries_n; i++)
		table[entries[i].slot] = 0;
	entries_n = 0;
	memset(threads, 0, (size_t)THREADS_MAX * sizeof(*threads));
	active_n = 0;
	enabled_n = 0;
	interval_no = 0;
}

static uint32_t hash_of(uint32_t tid, uintptr_t page)
{
	uint64_t h = ((uint64_t)(page / FL_PAGE) ^ ((uint64_t)tid << 40)) * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(h >> 32) & (TABLE_SLOTS - 1);
}

/* the thread's place, claimed now if it has none (one compare-and-swap: other threads claim theirs at once) */
static struct thread *thread_of(uint32_t tid)
{
	for (uint32_t i = tid * 2654435761u & (THREADS_MAX - 1), n = 0; n < THREADS_MAX; i = (i + 1) & (THREADS_MAX - 1), n++) {
		uint32_t cur = __atomic_load_n(&threads[i].tid, __ATOMIC_ACQUIRE);
		if (cur == tid)
			return &threads[i];
		if (!cur && __atomic_compare_exchange_n(&threads[i].tid, &cur, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			threads[i].head = threads[i].tail = NONE; /* next_id is 0: places are freed all at once */
			return &threads[i];
		}
		if (cur == tid)
			return &threads[i];
	}
	return NULL;
}

/* one more of *n, if fewer than max are taken: its index, or NONE */
static uint32_t claim(uint32_t *n, uint32_t max)
{
	uint32_t cur = __atomic_load_n(n, __ATOMIC_RELAXED);
	do {
		if (cur >= max)
			return NONE;
	} while (!__atomic_compare_exchange_n(n, &cur, cur + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return cur;
}

/* the records of a thread's chunk, from its first entry of the interval on (emit.c writes them) */
static int next_record(struct fl_moca_record *out, void *ctx)
{
	uint32_t *e = ctx;
	if (*e == NONE)
		return 0;
	const struct entry *x = &entries[*e];
	*out = (struct fl_moca_record){ .seq = x->seq, .time_ns = x->time_ns, .address = x->address,
					.flags = x->flags, .reads = x->reads, .writes = x->writes };
	*e = x->next;
	return 1;
}

/* one thread's chunk of this interval */
static void publish_thread(struct thread *t, uint64_t close_seq, uint64_t close_ns)
{
	uint32_t e = t->head;
	fl_emit_moca_chunk(t->tid, t->next_id, interval_no, close_seq, close_ns, next_record, &e);
	t->next_id++;
	t->head = t->tail = NONE;
}

/* in-place heapsort: the agent never calls malloc, which qsort may */
static void sift(uintptr_t *a, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[i] >= a[c])
			return;
		uintptr_t t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

static void sort_pages(uintptr_t *a, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (uint32_t end = n; end-- > 1;) {
		uintptr_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift(a, 0, end);
	}
}

/*
 * Disable the first n pages of the list, those enabled in the interval that ended: sorted, so
 * that each run of contiguous pages is one bulk disable (one UFFDIO_MOVE, engine_uffd.c). During a fork (the child copies
 * memory) nothing is disabled: the parent disables everything after it anyway.
 */
static void moca_disable(uint32_t n)
{
	if (!n)
		return;
	uint64_t t0 = fl_now_ns();
	sort_pages(enabled, n);
	uint32_t pages = 0;
	uint32_t holes = 0; /* places claimed without the lock whose page was not ours to disable: 0, sorted first */
	while (holes < n && !enabled[holes])
		holes++;
	for (uint32_t i = holes; i < n;) {
		uintptr_t start = enabled[i], end = start + FL_PAGE;
		for (i++; i < n && enabled[i] <= end; i++)
			if (enabled[i] == end)
				end += FL_PAGE; /* equal to the last: enabled twice (zapped and faulted again) */
		if (!fl_fork_depth)
			fl_engine->disable_enabled(start, end);
		pages += (uint32_t)((end - start) / FL_PAGE);
	}
	/*
	 * A page a system call holds (gate.c: a call waiting in the kernel writes it when it wakes)
	 * was not disabled (pins.c, fl_pins_around): it stays enabled into the next interval and is
	 * disabled at that one's end, with the pages enabled after this interval ended (faults read
	 * before the disabling), which are the next one's too.
	 */
	uint32_t kept = 0;
	for (uint32_t i = holes; i < n; i++)
		if (!fl_fork_depth && fl_pins_held(enabled[i]) && (!kept || enabled[kept - 1] != enabled[i]))
			enabled[kept++] = enabled[i];
	memmove(enabled + kept, enabled + n, (size_t)(enabled_n - n) * sizeof(*enabled));
	enabled_n = kept + enabled_n - n;
	pages -= kept;
	fl_cnt.evictions += pages;
	uint64_t spent = fl_now_ns() - t0;
	__atomic_add_fetch(fl_slot64(FL_SLOT_DISABLE_NS), spent, __ATOMIC_RELEASE);
}

static uint32_t moca_close(void)
{
	uint64_t close_seq = fl_clock_now();
	uint64_t close_ns = fl_now_ns() - fl_agent.start_mono_ns;
	for (uint32_t i = 0; i < active_n; i++)
		publish_thread(&threads[active[i]], close_seq, close_ns);
	for (uint32_t i = 0; i < entries_n; i++)
		table[entries[i].slot] = 0;
	entries_n = 0;
	active_n = 0;
	interval_no++;
	fl_counters_publish();
	return enabled_n;
}

/*
 * The fault counted in its thread's entry for the page, made now if it has none: 1, or 0 when the
 * entries (-1: the threads) are full and nothing was counted. Without the lock too: only this
 * thread's faults look for its entries, so an entry is claimed, filled, then named by the table
 * (release); another thread's probe that meets the slot empty or naming another's entry goes on.
 * r: the page's range, for a fault not labelled yet (the shared path), whose first touch is
 * learned once its entry is sure to be made (the engine's bit is set as it is asked).
 */
static int count(uintptr_t address, uint32_t tid, uint32_t flags, struct fl_range *r)
{
	uintptr_t page = FL_PAGE_DOWN(address);
	uint32_t i = hash_of(tid, page);
	uint32_t named;
	while ((named = __atomic_load_n(&table[i], __ATOMIC_ACQUIRE))) {
		struct entry *x = &entries[named - 1];
		if (x->tid == tid && x->page == page) {
			if (flags & FL_REC_WRITE)
				x->writes++;
			else
				x->reads++;
			return 1;
		}
		i = (i + 1) & (TABLE_SLOTS - 1);
	}
	struct thread *t = thread_of(tid);
	if (!t)
		return -1;
	uint32_t e = claim(&entries_n, ENTRIES_MAX);
	if (e == NONE)
		return 0;
	if (r && fl_engine->first_touch(r, page))
		flags |= FL_REC_FIRST_TOUCH;
	entries[e] = (struct entry){
		.page = page, .address = address, .tid = tid, .flags = flags, .next = NONE,
		.seq = fl_clock_take(1),
		.time_ns = fl_now_ns() - fl_agent.start_mono_ns,
		.reads = !(flags & FL_REC_WRITE), .writes = !!(flags & FL_REC_WRITE),
	};
	for (;; i = (i + 1) & (TABLE_SLOTS - 1)) { /* the table has twice the entries' slots */
		uint32_t empty = 0;
		entries[e].slot = i;
		if (__atomic_compare_exchange_n(&table[i], &empty, e + 1, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			break;
	}
	if (t->head == NONE) {
		t->head = e;
		active[claim(&active_n, THREADS_MAX)] = (uint32_t)(t - threads); /* a thread's first: a place each */
	} else {
		entries[t->tail].next = e;
	}
	t->tail = e;
	return 1;
}

/* lock held: a table is full, so this interval ends early (and, for threads, ids start again) */
static void count_fault(uintptr_t address, uint32_t tid, uint32_t flags)
{
	int r;
	while ((r = count(address, tid, flags, NULL)) != 1) {
		moca_disable(moca_close());
		if (r < 0)
			memset(threads, 0, (size_t)THREADS_MAX * sizeof(*threads));
	}
}

static void moca_enabled(uintptr_t page, int r, int pinned)
{
	if (r <= 0 || pinned)
		return; /* resolved otherwise, or pinned: not disabled at the interval's end */
	if (enabled_n == ENTRIES_MAX)
		moca_disable(moca_close());
	enabled[enabled_n++] = page;
}

/* the shared path: a place in the enabled list first (0 until settled), then the count */
static int moca_count(struct fl_range *r, const struct fl_fault *f, uint32_t *ticket)
{
	*ticket = NONE;
	if (!f->soft && (*ticket = claim(&enabled_n, ENTRIES_MAX)) == NONE)
		return 0;
	if (*ticket != NONE)
		enabled[*ticket] = 0;
	if (count(f->address, f->tid, f->flags, f->soft ? NULL : r) == 1)
		return 1;
	/* a place left empty (moca_disable skips it) until the lock's path ends the interval */
	*ticket = NONE;
	return 0;
}

static void moca_settle(uint32_t ticket, uintptr_t page, int r, int pinned)
{
	if (ticket != NONE && r > 0 && !pinned)
		enabled[ticket] = page;
}

/* every fault of the interval counts in its thread's chunk, written when the interval ends */
static void moca_faults(const struct fl_fault *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		count_fault(f[i].address, f[i].tid, f[i].flags);
}

/* exec, normal exit, teardown: the image's last interval's chunks */
static void moca_image_ends(void)
{
	moca_close();
}

static uint64_t moca_due(void)
{
	return next_end;
}

/*
 * The interval ends, before the guard reads any queued fault: a page resolved now and disabled
 * at once would make its thread, woken only at unlock, fault again in the next interval for the
 * same reference. Faults still queued at the deadline belong to the next interval.
 */
static void moca_run(uint64_t now, void (*resolve)(void), void (*between)(void))
{
	(void)between;
	if (now < next_end)
		return;
	next_end = now + fl_agent.interval_ns;
	uint32_t ended = moca_close();
	/* a pending event (munmap, madvise, mremap) would make every move fail: read it; the pages
	 * its batch's faults enable are the next interval's, not disabled now */
	if (fl_fd_readable(fl_engine->fd()))
		resolve();
	moca_disable(ended);
}

const struct fl_mode fl_mode_moca = {
	.name = "moca",
	.flags = FL_TRACKS_DIRTY | FL_SHARES_FAULTS,
	.start = moca_start,
	.reset = moca_reset,
	.faults = moca_faults,
	.enabled = moca_enabled,
	.count = moca_count,
	.settle = moca_settle,
	.image_ends = moca_image_ends,
	.due = moca_due,
	.run = moca_run,
};
