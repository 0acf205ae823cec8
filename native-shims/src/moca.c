/*
 * moca.c: Moca's interval mode (FL_MODE_MOCA). Beniamine and Huard, "Moca: an efficient memory
 * trace collection system", Inria research report, 2016, hal-01342679; the module of
 * github.com/dbeniamine/MOCA, moca_taskdata.c (per-task chunks of per-page read and write
 * counts, start and end of a global clock) and moca_page.c (every interval the monitor ends
 * each task's chunk and makes every page of it fault again: its "false page faults").
 *
 * Here there is no EVMS: a page is enabled by its first fault in an interval and stays enabled
 * until the interval ends (a deadline of the guard, handler.c), when every page enabled in the
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

#include "fl_internal.h"

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
static uint8_t *chunk;              /* one ring message */
static uint32_t part_max;           /* records in one message */
static uint64_t interval_no;

int fl_moca_init(void)
{
	if (!entries) {
		entries = fl_mem_map((size_t)ENTRIES_MAX * sizeof(*entries));
		table = fl_mem_map((size_t)TABLE_SLOTS * sizeof(*table));
		threads = fl_mem_map((size_t)THREADS_MAX * sizeof(*threads));
		active = fl_mem_map((size_t)THREADS_MAX * sizeof(*active));
		enabled = fl_mem_map((size_t)ENTRIES_MAX * sizeof(*enabled));
	}
	if (!entries || !table || !threads || !active || !enabled)
		return -ENOMEM;
	uint32_t max_msg = fl_agent.ring.max_msg;
	part_max = max_msg > FL_CHUNK_MOCA_HEADER_SIZE ? (max_msg - FL_CHUNK_MOCA_HEADER_SIZE) / FL_RECORD_MOCA_SIZE : 0;
	if (!part_max)
		return -EINVAL;
	if (!chunk)
		chunk = fl_mem_map(FL_CHUNK_MOCA_HEADER_SIZE + (size_t)part_max * FL_RECORD_MOCA_SIZE);
	if (!chunk)
		return -ENOMEM;
	fl_moca_reset();
	return 0;
}

/* a fork child or a new session: what the tables hold is another image's */
void fl_moca_reset(void)
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

static inline void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static inline void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

/* one thread's chunk of this interval, in parts of at most part_max records */
static void publish_thread(struct thread *t, uint64_t close_seq, uint64_t close_ns)
{
	uint32_t e = t->head;
	while (e != NONE) {
		uint32_t count = 0;
		uint64_t start = entries[e].seq, end = start;
		while (e != NONE && count < part_max) {
			const struct entry *x = &entries[e];
			uint8_t *rec = chunk + FL_CHUNK_MOCA_HEADER_SIZE + (size_t)count * FL_RECORD_MOCA_SIZE;
			put64(rec, FL_RECORD_SEQ, x->seq);
			put64(rec, FL_RECORD_TIME_NS, x->time_ns);
			put64(rec, FL_RECORD_ADDRESS, x->address);
			put32(rec, FL_RECORD_FLAGS, x->flags);
			put32(rec, FL_RECORD_FLAGS + 4, 0);
			put32(rec, FL_RECORD_MOCA_READS, x->reads);
			put32(rec, FL_RECORD_MOCA_WRITES, x->writes);
			end = x->seq + 1;
			count++;
			e = x->next;
		}
		put32(chunk, FL_CHUNK_PID, (uint32_t)fl_agent.pid);
		put32(chunk, FL_CHUNK_TID, t->tid);
		put64(chunk, FL_CHUNK_ID, t->next_id);
		put32(chunk, FL_CHUNK_COUNT, count);
		put32(chunk, FL_CHUNK_FLAGS, FL_CHUNK_MOCA);
		put64(chunk, FL_CHUNK_MOCA_START_SEQ, start);
		put64(chunk, FL_CHUNK_MOCA_END_SEQ, end);
		put64(chunk, FL_CHUNK_MOCA_CLOSE_SEQ, close_seq);
		put64(chunk, FL_CHUNK_MOCA_CLOSE_NS, close_ns);
		put64(chunk, FL_CHUNK_MOCA_INTERVAL, interval_no);
		if (fl_publish_message(FL_MSG_CHUNK, chunk, FL_CHUNK_MOCA_HEADER_SIZE + count * FL_RECORD_MOCA_SIZE) == 0) {
			fl_cnt.chunks++;
			fl_cnt.records += count;
		}
	}
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
 * that each run of contiguous pages is one UFFDIO_MOVE (park.c). During a fork (the child copies
 * memory) nothing is disabled: the parent disables everything after it anyway.
 */
void fl_moca_disable(uint32_t n)
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
			fl_uffd_disable_enabled(start, end);
		pages += (uint32_t)((end - start) / FL_PAGE);
	}
	/* pages enabled after the interval ended (faults read before the disabling) are the next one's */
	memmove(enabled, enabled + n, (size_t)(enabled_n - n) * sizeof(*enabled));
	enabled_n -= n;
	fl_cnt.evictions += pages;
	uint64_t spent = fl_now_ns() - t0;
	__atomic_add_fetch(fl_slot64(FL_SLOT_DISABLE_NS), spent, __ATOMIC_RELEASE);
}

uint32_t fl_moca_close(void)
{
	uint64_t close_seq = __atomic_load_n(fl_ctl64(FL_CTL_CLOCK), __ATOMIC_ACQUIRE);
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

void fl_moca_fault(uintptr_t address, uint32_t tid, uint32_t flags)
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
		fl_moca_disable(fl_moca_close());
		if (!t)
			memset(threads, 0, (size_t)THREADS_MAX * sizeof(*threads));
		fl_moca_fault(address, tid, flags);
		return;
	}
	uint32_t e = entries_n++;
	entries[e] = (struct entry){
		.page = page, .address = address, .tid = tid, .flags = flags, .next = NONE, .slot = i,
		.seq = __atomic_fetch_add(fl_ctl64(FL_CTL_CLOCK), 1, __ATOMIC_ACQ_REL),
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

void fl_moca_enabled(uintptr_t page)
{
	if (enabled_n == ENTRIES_MAX)
		fl_moca_disable(fl_moca_close());
	enabled[enabled_n++] = page;
}
