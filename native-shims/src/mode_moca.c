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
 * the chunks of its last interval. Agent lock held throughout.
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

static struct thread *thread_of(uint32_t tid)
{
	for (uint32_t i = tid * 2654435761u & (THREADS_MAX - 1), n = 0; n < THREADS_MAX; i = (i + 1) & (THREADS_MAX - 1), n++) {
		if (threads[i].tid == tid)
			return &threads[i];
		if (!threads[i].tid) {
			threads[i] = (struct thread){ .tid = tid, .head = NONE, .tail = NONE };
			return &threads[i];
		}
	}
	return NULL;
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
	for (uint32_t i = 0; i < n;) {
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
	for (uint32_t i = 0; i < n; i++)
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

static void count_fault(uintptr_t address, uint32_t tid, uint32_t flags)
{
	uintptr_t page = FL_PAGE_DOWN(address);
	uint32_t i = hash_of(tid, page);
	while (table[i]) {
		struct entry *x = &entries[table[i] - 1];
		if (x->tid == tid && x->page == page) {
			if (flags & FL_REC_WRITE)
				x->writes++;
			else
				x->reads++;
			return;
		}
		i = (i + 1) & (TABLE_SLOTS - 1);
	}
	struct thread *t = thread_of(tid);
	if (!t || entries_n == ENTRIES_MAX) {
		/* a table is full: this interval ends early (and, for threads, ids start again) */
		moca_disable(moca_close());
		if (!t)
			memset(threads, 0, (size_t)THREADS_MAX * sizeof(*threads));
		count_fault(address, tid, flags);
		return;
	}
	uint32_t e = entries_n++;
	entries[e] = (struct entry){
		.page = page, .address = address, .tid = tid, .flags = flags, .next = NONE, .slot = i,
		.seq = fl_clock_take(1),
		.time_ns = fl_now_ns() - fl_agent.start_mono_ns,
		.reads = !(flags & FL_REC_WRITE), .writes = !!(flags & FL_REC_WRITE),
	};
	table[i] = e + 1;
	if (t->head == NONE) {
		t->head = e;
		active[active_n++] = (uint32_t)(t - threads);
	} else {
		entries[t->tail].next = e;
	}
	t->tail = e;
}

static void moca_enabled(uintptr_t page, int r, int pinned)
{
	if (r <= 0 || pinned)
		return; /* resolved otherwise, or pinned: not disabled at the interval's end */
	if (enabled_n == ENTRIES_MAX)
		moca_disable(moca_close());
	enabled[enabled_n++] = page;
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
	.flags = FL_TRACKS_DIRTY,
	.start = moca_start,
	.reset = moca_reset,
	.faults = moca_faults,
	.enabled = moca_enabled,
	.image_ends = moca_image_ends,
	.due = moca_due,
	.run = moca_run,
};
