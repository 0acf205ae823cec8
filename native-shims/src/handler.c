/*
 * handler.c: the fault loop. One native thread, created by the constructor, not attached to
 * any runtime, with all signals blocked and a stack mmap'd by the agent. It is the single
 * writer of the range table, the EVMS, the ring and the slot counters, and it never touches
 * traced memory (it would fault on itself and wait forever).
 *
 * Per batch of userfaultfd messages (read several per read(2)):
 *   1. label each fault (write? first touch?) and take its seq from the global clock;
 *   2. publish the records to the ring, grouped into chunks of consecutive same-thread faults;
 *   3. only then resolve the faults: evict the oldest EVMS page first, then move the faulting
 *      page back (or zero-fill it), which wakes the thread. A thread woken by step 3 may call
 *      exit_group at once; its record is already in shared memory, so the recorder cannot
 *      lose it. Evicting before waking keeps the trace independent of timing: the woken
 *      thread never sees an EVMS larger than the model's.
 * Non-cooperative events (UNMAP, REMOVE, REMAP) split the publishing: the records of the
 * faults before an event go out first, then the event. Resolution waits until every event of
 * the batch is applied (handle_batch says why). The thread that caused an event waits in the
 * kernel until we have read it, which is why the handler itself must never munmap/madvise/
 * mremap a registered range (it would wait for itself).
 *
 * Program threads reach the handler through request.c; the loop serves requests between
 * batches.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fl_internal.h"

#define MSG_BATCH 64
#define HANDLER_STACK (512UL << 10)
#define EVENT_TEXT_MAX 1024

struct staged {
	uint64_t address;
	uint32_t tid;
	uint32_t flags;
};

static pthread_t handler_thread;
static int handler_started;
static struct uffd_msg *msgs;
static struct staged *staged;
static uint8_t *chunk_buf;
static uint8_t *event_buf;
static uint32_t chunk_records;
static uint64_t chunk_id;
static int quiet;        /* tearing down: events are written only if the ring has room */
static int recorder_dead;
static int spin_us;      /* FAULTLINE_SPIN_US: poll the uffd this long before sleeping */
/*
 * FAULTLINE_TEST_EVENT_DELAY_US (tests only): sleep this long after reading a batch that holds
 * a non-cooperative event, before handling it. The thread that raised the event runs on in the
 * meantime, which is the window handle_batch has to be correct in; the test makes it wide.
 */
static int test_event_delay_us;
static uintptr_t known_brk; /* program break last reported (FL_EV_BRK) */

/*
 * Hints from interposed calls to the handler, for events the kernel reports without them:
 * madvise's advice (UFFD_EVENT_REMOVE does not say) and mremap's new length (UFFD_EVENT_REMAP
 * gives the old length only). Posted before the call, withdrawn after it.
 */
struct fl_hint {
	uint32_t state; /* 0 free, 1 filling, 2 posted, 3 posted and used by an event */
	uint32_t kind;  /* 1 madvise, 2 mremap */
	uint64_t start, len, value;
};
#define HINTS 64
static struct fl_hint hints[HINTS];

int fl_hint_post(uint32_t kind, uint64_t start, uint64_t len, uint64_t value)
{
	for (int i = 0; i < HINTS; i++) {
		uint32_t expect = 0;
		if (__atomic_compare_exchange_n(&hints[i].state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			hints[i].kind = kind;
			hints[i].start = start;
			hints[i].len = len;
			hints[i].value = value;
			__atomic_store_n(&hints[i].state, 2, __ATOMIC_RELEASE);
			return i;
		}
	}
	return -1;
}

/* withdraw; returns 1 if an event used it */
int fl_hint_take(int i)
{
	if (i < 0)
		return 0;
	uint32_t st = __atomic_load_n(&hints[i].state, __ATOMIC_ACQUIRE);
	__atomic_store_n(&hints[i].state, 0, __ATOMIC_RELEASE);
	return st == 3;
}

static struct fl_hint *hint_find(uint32_t kind, uint64_t s, uint64_t e)
{
	for (int i = 0; i < HINTS; i++) {
		struct fl_hint *h = &hints[i];
		uint32_t st = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
		if ((st == 2 || st == 3) && h->kind == kind && s >= FL_PAGE_DOWN(h->start) &&
		    e <= FL_PAGE_UP(h->start + h->len))
			return h;
	}
	return NULL;
}

/* the program break moved (interposed brk/sbrk, or glibc's internal sbrk seen later) */
static void check_brk(uint32_t tid)
{
	uintptr_t now = (uintptr_t)syscall(SYS_brk, 0);
	if (known_brk && now != known_brk)
		fl_emit_event(FL_EV_BRK, tid, known_brk, now, 0, 0, NULL, 0);
	known_brk = now;
}

int fl_handler_is_handler_thread(void)
{
	return handler_started && pthread_equal(pthread_self(), handler_thread);
}

void fl_publish_counters(void)
{
	__atomic_store_n(fl_slot64(FL_SLOT_RECORDS), fl_cnt.records, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_RING_WAITS), fl_cnt.ring_waits, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_FAULTS), fl_cnt.faults, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_CHUNKS), fl_cnt.chunks, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_EVICTIONS), fl_cnt.evictions, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_WAIT_NS), fl_cnt.wait_ns, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_RACES), fl_cnt.races, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_REGISTERED_PAGES), fl_cnt.registered_pages, __ATOMIC_RELEASE);
}

static int recorder_alive(void)
{
	if (recorder_dead)
		return 0;
	if (fl_agent.recorder_pidfd < 0)
		return 1;
	struct pollfd p = { .fd = fl_agent.recorder_pidfd, .events = POLLIN };
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)))
		recorder_dead = 1;
	return !recorder_dead;
}

static int stop_requested(void)
{
	return __atomic_load_n(fl_ctl32(FL_CTL_STOP), __ATOMIC_ACQUIRE) != 0;
}

/*
 * Write one message; a full ring makes us wait (spin briefly, then sleep 50 us), never drop.
 * Gives up only when the recorder is dead, or in quiet mode (teardown). -EPIPE then.
 */
static int ring_put(int32_t type, const void *msg, uint32_t len)
{
	if (fl_ring_try_write(&fl_agent.ring, type, msg, len) == 0)
		return 0;
	if (quiet || recorder_dead)
		return -EPIPE;
	uint64_t t0 = fl_now_ns();
	fl_cnt.ring_waits++;
	int rc = 0;
	for (uint64_t i = 1;; i++) {
		if (i < 200) {
			__builtin_ia32_pause();
		} else {
			struct timespec ts = { 0, 50000 };
			nanosleep(&ts, NULL);
		}
		if (fl_ring_try_write(&fl_agent.ring, type, msg, len) == 0)
			break;
		if ((i & 255) == 0 && !recorder_alive()) {
			rc = -EPIPE;
			break;
		}
	}
	fl_cnt.wait_ns += fl_now_ns() - t0;
	__atomic_store_n(fl_slot64(FL_SLOT_RING_WAITS), fl_cnt.ring_waits, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_WAIT_NS), fl_cnt.wait_ns, __ATOMIC_RELEASE);
	return rc;
}

static inline void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static inline void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

void fl_emit_event(uint32_t type, uint32_t tid, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
		   const char *text, uint32_t text_len)
{
	if (text_len > EVENT_TEXT_MAX)
		text_len = EVENT_TEXT_MAX;
	uint8_t *e = event_buf;
	put32(e, FL_EVENT_TYPE, type);
	put32(e, FL_EVENT_PID, (uint32_t)fl_agent.pid);
	put32(e, FL_EVENT_TID, tid);
	put32(e, FL_EVENT_TEXT_LENGTH, text_len);
	put64(e, FL_EVENT_SEQ, __atomic_load_n(fl_ctl64(FL_CTL_CLOCK), __ATOMIC_ACQUIRE));
	put64(e, FL_EVENT_TIME_NS, fl_now_ns() - fl_agent.start_mono_ns);
	put64(e, FL_EVENT_A, a);
	put64(e, FL_EVENT_B, b);
	put64(e, FL_EVENT_C, c);
	put64(e, FL_EVENT_D, d);
	if (text_len)
		memcpy(e + FL_EVENT_HEADER_SIZE, text, text_len);
	ring_put(FL_MSG_EVENT, e, FL_EVENT_HEADER_SIZE + text_len);
}

/* publish staged[from..to) as chunks of consecutive same-thread records */
static void publish(uint32_t from, uint32_t to)
{
	uint32_t n = to - from;
	uint64_t seq = __atomic_fetch_add(fl_ctl64(FL_CTL_CLOCK), n, __ATOMIC_ACQ_REL);
	uint64_t t = fl_now_ns() - fl_agent.start_mono_ns;
	uint32_t i = from;
	while (i < to) {
		uint32_t tid = staged[i].tid, count = 0;
		uint8_t *c = chunk_buf;
		while (i < to && staged[i].tid == tid && count < chunk_records) {
			uint8_t *rec = c + FL_CHUNK_HEADER_SIZE + (size_t)count * FL_RECORD_SIZE;
			put64(rec, FL_RECORD_SEQ, seq++);
			put64(rec, FL_RECORD_TIME_NS, t);
			put64(rec, FL_RECORD_ADDRESS, staged[i].address);
			put32(rec, FL_RECORD_FLAGS, staged[i].flags);
			put32(rec, 28, 0);
			count++;
			i++;
		}
		put32(c, FL_CHUNK_PID, (uint32_t)fl_agent.pid);
		put32(c, FL_CHUNK_TID, tid);
		put64(c, FL_CHUNK_ID, chunk_id);
		put32(c, FL_CHUNK_COUNT, count);
		put32(c, FL_CHUNK_FLAGS, 0);
		if (ring_put(FL_MSG_CHUNK, c, FL_CHUNK_HEADER_SIZE + count * FL_RECORD_SIZE) == 0) {
			chunk_id++;
			fl_cnt.chunks++;
			fl_cnt.records += count;
		}
	}
	/* before resolution too: a woken thread may end the process right away */
	__atomic_store_n(fl_slot64(FL_SLOT_RECORDS), fl_cnt.records, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_CHUNKS), fl_cnt.chunks, __ATOMIC_RELEASE);
}

struct deferred {
	uintptr_t page;
	int write, pinned;
};
#define DEFERRED_MAX 1024
static struct deferred deferred[DEFERRED_MAX];
static uint32_t deferred_n;

static void defer(uintptr_t page, int write, int pinned)
{
	for (uint32_t i = 0; i < deferred_n; i++)
		if (deferred[i].page == page)
			return;
	if (deferred_n < DEFERRED_MAX)
		deferred[deferred_n++] = (struct deferred){ page, write, pinned };
	else
		fl_uffd_wake(fl_agent.uffd, page, FL_PAGE); /* it faults again */
}

/*
 * Label staged[from..to) (write? first touch?) and publish them. Called in message order, so
 * the labels and the records' seq reflect the table as it was before any later event.
 */
static void label_and_publish(uint32_t from, uint32_t to)
{
	if (from == to)
		return;
	int rescanned = 0;
	fl_cnt.faults += to - from;
	for (uint32_t i = from; i < to; i++) {
		uintptr_t page = FL_PAGE_DOWN(staged[i].address);
		FL_CHECK_LOG(FL_OP_FAULT, staged[i].address, staged[i].tid, (int)staged[i].flags);
		struct fl_range *r = fl_range_find(page);
		if (!r && !rescanned && fl_agent.scope == FL_SCOPE_ALL) {
			/* a registered vma we do not know yet (grown in place): learn it first */
			fl_scope_rescan();
			rescanned = 1;
			r = fl_range_find(page);
		}
		if (!r) {
			staged[i].flags |= FL_REC_FIRST_TOUCH;
		} else if (!fl_range_bit(r, page)) {
			/* later faults on the same page in this batch are not first touches */
			staged[i].flags |= FL_REC_FIRST_TOUCH;
			fl_range_set_bit(r, page, 1);
		}
	}
	publish(from, to);
}

/* resolve staged[0..n): every event of the batch has been applied already (handle_batch) */
static void resolve_faults(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t page = FL_PAGE_DOWN(staged[i].address);
		int pinned = fl_pins_has(page);
		/*
		 * Evict before enabling: enabling wakes the faulting thread, and a thread that ran
		 * ahead of a later eviction would reference the oldest page while it is still
		 * enabled, so the trace would depend on timing instead of on the FIFO model.
		 */
		if (!pinned)
			fl_park_evict_to(fl_evms_capacity() - 1);
		int r = fl_park_enable(page, staged[i].flags & FL_REC_WRITE);
		if (r == -EAGAIN)
			defer(page, staged[i].flags & FL_REC_WRITE, pinned);
		else if (r > 0 && !pinned)
			fl_evms_push(page);
	}
	if (n)
		fl_publish_counters();
}

/* faults whose resolution met EAGAIN (an event in flight): retried after the next read */
static void retry_deferred(void)
{
	uint32_t n = deferred_n;
	deferred_n = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct deferred d = deferred[i];
		int r = fl_park_enable(d.page, d.write);
		if (r == -EAGAIN)
			defer(d.page, d.write, d.pinned);
		else if (r > 0 && !d.pinned) {
			fl_park_evict_to(fl_evms_capacity() - 1);
			fl_evms_push(d.page);
		}
	}
}

static void handle_event(const struct uffd_msg *m)
{
	switch (m->event) {
	case UFFD_EVENT_UNMAP: {
		uintptr_t s = m->arg.remove.start, e = m->arg.remove.end;
		fl_park_untrace(s, e, 1);
		fl_emit_event(FL_EV_MUNMAP, 0, s, e - s, 0, 0, NULL, 0);
		break;
	}
	case UFFD_EVENT_REMOVE: {
		/*
		 * madvise(DONTNEED/FREE/REMOVE) is about to zap [s, e): parked copies must go too,
		 * or a later fault would bring back stale data; enabled pages leave the EVMS (they
		 * will be empty). userfaultfd does not say which advice it was.
		 */
		uintptr_t s = m->arg.remove.start, e = m->arg.remove.end;
		fl_evms_forget(s, e);
		fl_park_discard(s, e);
		struct fl_hint *h = hint_find(1, s, e);
		fl_emit_event(FL_EV_MADVISE, 0, s, e - s, h ? h->value : MADV_DONTNEED, 0, NULL, 0);
		break;
	}
	case UFFD_EVENT_REMAP: {
		uintptr_t from = m->arg.remap.from, to = m->arg.remap.to, len = m->arg.remap.len;
		fl_park_relocate(from, to, len);
		struct fl_hint *h = hint_find(2, from, from + len);
		uint64_t new_len = len;
		if (h && FL_PAGE_DOWN(h->start) == from) {
			new_len = h->value;
			__atomic_store_n(&h->state, 3, __ATOMIC_RELEASE);
		}
		fl_emit_event(FL_EV_MREMAP, 0, from, len, to, new_len, NULL, 0);
		break;
	}
	default:
		break;
	}
	fl_publish_counters();
}

/*
 * One read(2) worth of messages. Records and event records go out in message order, but no
 * fault is resolved before every event of the batch has been applied to the table. Reading an
 * event releases the thread that raised it at once: by the time we look at the faults that
 * preceded it, an unmapped or moved range may already hold a new, unregistered mapping of the
 * program's at the same address. UFFDIO_MOVE needs only its destination registered, so an
 * eviction from the stale range would move the new mapping's page into a parking slot that
 * the UNMAP then frees: the program's data would be gone. Likewise a page of a range zapped by
 * madvise (REMOVE) must not come back from its parking slot after the zap.
 */
static void handle_batch(uint32_t n)
{
	uint32_t k = 0, published = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct uffd_msg *m = &msgs[i];
		if (m->event == UFFD_EVENT_PAGEFAULT) {
			staged[k].address = m->arg.pagefault.address;
			staged[k].tid = m->arg.pagefault.feat.ptid;
			staged[k].flags = (m->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE) ? FL_REC_WRITE : 0;
			k++;
		} else {
			label_and_publish(published, k);
			published = k;
			handle_event(m);
		}
	}
	label_and_publish(published, k);
	resolve_faults(k);
}

/* drain the uffd without blocking; returns messages handled, or -errno */
static int drain_uffd(void)
{
	ssize_t r = read(fl_agent.uffd, msgs, MSG_BATCH * sizeof(*msgs));
	if (r < 0) {
		int e = errno;
		if (deferred_n) {
			/* the event's thread must run to clear mmap_changing */
			struct timespec ts = { 0, 20000 };
			nanosleep(&ts, NULL);
			retry_deferred();
			return deferred_n ? 1 : 0;
		}
		return e == EAGAIN || e == EINTR ? 0 : -e;
	}
	uint32_t n = (uint32_t)((size_t)r / sizeof(*msgs));
	if (test_event_delay_us > 0)
		for (uint32_t i = 0; i < n; i++)
			if (msgs[i].event != UFFD_EVENT_PAGEFAULT) {
				struct timespec ts = { test_event_delay_us / 1000000, (test_event_delay_us % 1000000) * 1000L };
				nanosleep(&ts, NULL);
				break;
			}
	handle_batch(n);
	if (deferred_n)
		retry_deferred();
	return (int)n;
}

/* restores stuck behind a pending event: how often to read the uffd and retry (each try
 * already spent EAGAIN_RETRIES * 64 moves in bulk_move; an event is normally read on the first) */
#define STUCK_TRIES 200
static void stuck_pause(void)
{
	struct timespec ts = { 0, 100000 }; /* the event's thread has to queue it first */
	nanosleep(&ts, NULL);
}

static void emit_name_of(uint32_t tid)
{
	char path[64], name[32];
	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	if (name[n - 1] == '\n')
		n--;
	fl_emit_event(FL_EV_THREAD_NAME, tid, 0, 0, 0, 0, name, (uint32_t)n);
}

#ifndef SYS_get_robust_list
#define SYS_get_robust_list 274
#endif

/*
 * Threads that exist already (created by a constructor that ran before ours, or the forking
 * thread in a fork child): name them, and pin their descriptors, found through the robust
 * list head that glibc keeps inside struct pthread next to the tid the kernel clears at exit.
 */
static void existing_threads(void)
{
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[4096];
	pid_t self = fl_gettid();
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			uint32_t tid = (uint32_t)atoi(d->d_name);
			if ((pid_t)tid == self) /* the handler */
				continue;
			emit_name_of(tid);
			void *head = NULL;
			size_t len = 0;
			if (syscall(SYS_get_robust_list, (pid_t)tid, &head, &len) == 0 && head) {
				fl_park_pin((uintptr_t)head);
				fl_park_pin((uintptr_t)head - 64);
			}
		}
	}
	close(fd);
}

static int serve(struct fl_req *q)
{
	int all = fl_agent.scope == FL_SCOPE_ALL;
	/* events queued before the request (an munmap that preceded this mmap) come first */
	while (drain_uffd() > 0)
		;
	switch (q->type) {
	case FL_REQ_RESCAN:
		check_brk((uint32_t)q->tid);
		return all ? fl_scope_rescan() : 0;
	case FL_REQ_INIT: {
		known_brk = (uintptr_t)syscall(SYS_brk, 0);
		int err = all ? fl_scope_rescan() : 0;
		existing_threads(); /* names every thread, this one included */
		fl_park_pin(q->a);
		fl_park_pin(q->a + 2303);
		fl_publish_counters();
		return err;
	}
	case FL_REQ_MMAP:
		fl_emit_event(FL_EV_MMAP, (uint32_t)q->tid, q->a, q->b, q->c, q->d, NULL, 0);
		if (!all || !(q->d & MAP_ANONYMOUS) || (q->d & MAP_TYPE) != MAP_PRIVATE || (q->d & MAP_HUGETLB) ||
		    (q->c & (PROT_READ | PROT_WRITE | PROT_EXEC)) != (PROT_READ | PROT_WRITE))
			return 0;
		return fl_scope_register_exact(q->a, FL_PAGE_UP(q->a + q->b), FL_RANGE_MMAP);
	case FL_REQ_BRK:
		check_brk((uint32_t)q->tid);
		if (all && q->b > q->a)
			return fl_scope_register_exact(FL_PAGE_DOWN(q->a), FL_PAGE_UP(q->b), FL_RANGE_MMAP);
		return 0;
	case FL_REQ_TRACE_RANGE: {
		if (q->b == 0 || q->a + q->b < q->a)
			return -EINVAL;
		uintptr_t s = FL_PAGE_DOWN(q->a), e = FL_PAGE_UP(q->a + q->b);
		int err = fl_scope_check_api_range(s, e);
		if (err)
			return err;
		/* traced parts: disable every page; untraced gaps: register with their own parking */
		uintptr_t cur = s;
		while (cur < e) {
			int64_t i = fl_range_index_from(cur);
			struct fl_range *r = i >= 0 ? fl_range_at((uint32_t)i) : NULL;
			if (r && r->start <= cur) {
				uintptr_t b = r->end < e ? r->end : e;
				fl_park_disable(cur, b);
				cur = b;
			} else {
				uintptr_t b = r && r->start < e ? r->start : e;
				if ((err = fl_park_trace_new(cur, b, FL_RANGE_API, 0)) != 0)
					return err;
				cur = b;
			}
		}
		fl_emit_event(FL_EV_TRACE_RANGE, (uint32_t)q->tid, s, e - s, FL_RANGE_API, 0, NULL, 0);
		fl_publish_counters();
		return 0;
	}
	case FL_REQ_THREAD_START:
		fl_emit_event(FL_EV_THREAD_START, (uint32_t)q->tid, q->a, 0, 0, 0, NULL, 0);
		if (q->text_len)
			fl_emit_event(FL_EV_THREAD_NAME, (uint32_t)q->tid, 0, 0, 0, 0, q->text, q->text_len);
		if (all)
			fl_scope_rescan();
		/* struct pthread spans ~2.3 KiB from pthread_self(): keep its pages enabled */
		fl_park_pin(q->b);
		fl_park_pin(q->b + 2303);
		return 0;
	case FL_REQ_THREAD_EXIT:
		fl_emit_event(FL_EV_THREAD_EXIT, (uint32_t)q->tid, 0, 0, 0, 0, NULL, 0);
		return 0;
	case FL_REQ_FORK_PREPARE:
		/*
		 * The child gets a copy of memory but not our registrations or parking contents:
		 * bring every parked page home first, and stop disabling until FORK_PARENT.
		 */
		if (fl_fork_depth++ == 0) {
			/*
			 * A restore that meets a pending event (another thread's munmap/madvise/
			 * mremap) leaves pages parked until we read the event: read it, try again.
			 */
			for (int tries = 0; tries < STUCK_TRIES; tries++) {
				uint32_t stuck = 0;
				for (uint32_t i = 0; i < fl_range_count(); i++)
					stuck += fl_park_restore(fl_range_at(i)->start, fl_range_at(i)->end);
				if (!stuck)
					break;
				if (drain_uffd() <= 0)
					stuck_pause();
			}
			fl_evms_clear();
		}
		return 0;
	case FL_REQ_FORK_PARENT:
		if (fl_fork_depth > 0 && --fl_fork_depth == 0) {
			/*
			 * Pages still shared with the child (copy on write) cannot be moved (EBUSY)
			 * and stay enabled and untraced until tracing stops (counted as lost).
			 */
			for (uint32_t i = 0; i < fl_range_count(); i++)
				fl_park_disable(fl_range_at(i)->start, fl_range_at(i)->end);
			fl_evms_clear();
		}
		if ((int64_t)q->a > 0)
			fl_emit_event(FL_EV_FORK, (uint32_t)q->tid, q->a, 0, 0, 0, NULL, 0);
		fl_publish_counters();
		return 0;
	case FL_REQ_MREMAP:
		/* not said by a REMAP event (untraced range, or resized in place): say it now */
		if (q->text_len == 0)
			fl_emit_event(FL_EV_MREMAP, (uint32_t)q->tid, q->a, q->b, q->c, q->d, NULL, 0);
		return all && q->d > q->b ? fl_scope_rescan() : 0;
	case FL_REQ_THREAD_NAME:
		fl_emit_event(FL_EV_THREAD_NAME, (uint32_t)q->a, 0, 0, 0, 0, q->text, q->text_len);
		return 0;
	case FL_REQ_EXEC:
		fl_emit_event(FL_EV_EXEC, (uint32_t)q->tid, 0, 0, 0, 0, q->text, q->text_len);
		__atomic_store_n(fl_slot32(FL_SLOT_EXEC_ANNOUNCED), 1, __ATOMIC_RELEASE);
		return 0;
	case FL_REQ_FORK_CHILD: {
		known_brk = (uintptr_t)syscall(SYS_brk, 0);
		if (fl_ranges_torn()) {
			fl_log("fork child: the range table was changing at fork time; ",
			       all ? "rescanning" : "ranges traced through the API are not traced in this child", NULL);
			fl_ranges_forget_all();
		}
		fl_park_fork_child();
		if (all)
			fl_scope_rescan();
		for (uint32_t i = 0; i < fl_range_count(); i++)
			fl_park_disable(fl_range_at(i)->start, fl_range_at(i)->end);
		fl_park_pin(q->a);
		fl_park_pin(q->a + 2303);
		emit_name_of((uint32_t)q->tid);
		fl_publish_counters();
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/*
 * Stop tracing: the program must never hang and never lose data because of us. Clear
 * `active` first so interposers pass through and posters cancel their own requests, then
 * bring every parked page home and unregister (UFFDIO_UNREGISTER wakes threads still waiting
 * in a fault; they retry and find their page present or fault normally), close the uffd.
 */
static void teardown(uint32_t reason, int err)
{
	__atomic_store_n(&fl_agent.active, 2, __ATOMIC_RELEASE); /* 2: stopped for good */
	fl_req_cancel_all();
	quiet = 1;
	/* faults already queued: record what we can without waiting, resolve them all */
	while (drain_uffd() > 0)
		;
	/* pages that cannot come home while an event is pending: read it (drain) and retry */
	int tries = 0;
	while (fl_park_untrace_all() == -EAGAIN) {
		if (++tries >= STUCK_TRIES) {
			fl_log("teardown: parked pages could not be restored (an event stayed pending)", NULL, NULL);
			break;
		}
		if (drain_uffd() <= 0)
			stuck_pause();
	}
	close(fl_agent.uffd);
	fl_agent.uffd = -1;
	fl_publish_counters();
	__atomic_store_n(fl_slot32(FL_SLOT_ERROR), (uint32_t)err, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STOP_REASON), reason, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STATE), FL_SLOT_STOPPED, __ATOMIC_RELEASE);
	fl_emit_event(FL_EV_TRACE_STOP, 0, reason, (uint64_t)err, 0, 0, NULL, 0);
	fl_req_cancel_all();
}

static void *handler_main(void *arg)
{
	(void)arg;
	const char *exe = fl_exe_path();
	fl_emit_event(FL_EV_PROCESS_START, (uint32_t)fl_agent.pid, (uint64_t)fl_agent.ppid, fl_agent.slot_index, 0, 0,
		      exe, (uint32_t)strlen(exe));
	if (fl_agent.exec_event)
		fl_emit_event(FL_EV_EXEC, (uint32_t)fl_agent.pid, 0, 0, 0, 0, exe, (uint32_t)strlen(exe));
	struct pollfd fds[3];
	int nfds = 0;
	fds[nfds++] = (struct pollfd){ .fd = fl_agent.uffd, .events = POLLIN };
	fds[nfds++] = (struct pollfd){ .fd = fl_req_eventfd(), .events = POLLIN };
	if (fl_agent.recorder_pidfd >= 0)
		fds[nfds++] = (struct pollfd){ .fd = fl_agent.recorder_pidfd, .events = POLLIN };
	uint64_t last_check = fl_now_ns();
	for (;;) {
		int n = drain_uffd();
		if (n < 0) {
			teardown(FL_STOP_ERROR, -n);
			return NULL;
		}
		if (recorder_dead) {
			teardown(FL_STOP_RECORDER_GONE, 0);
			return NULL;
		}
		if (fl_req_pending())
			fl_req_serve(serve);
		if (n > 0) {
			/* busy: check stop and the recorder at most every 100 ms */
			uint64_t now = fl_now_ns();
			if (now - last_check < 100000000ULL)
				continue;
			last_check = now;
		}
		if (stop_requested()) {
			teardown(FL_STOP_REQUESTED, 0);
			return NULL;
		}
		if (!recorder_alive()) {
			teardown(FL_STOP_RECORDER_GONE, 0);
			return NULL;
		}
		if (n > 0)
			continue;
		if (spin_us > 0) {
			/* keep the CPU a little: a fault arriving now costs no wake-up of this thread */
			uint64_t until = fl_now_ns() + (uint64_t)spin_us * 1000;
			struct pollfd p = { .fd = fl_agent.uffd, .events = POLLIN };
			int got = 0;
			while (!got && fl_now_ns() < until && !fl_req_pending())
				got = poll(&p, 1, 0) > 0;
			if (got || fl_req_pending())
				continue;
		}
		int r = poll(fds, (nfds_t)nfds, 100);
		if (r < 0 && errno != EINTR) {
			teardown(FL_STOP_ERROR, errno);
			return NULL;
		}
		if (nfds > 2 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR)))
			recorder_dead = 1;
		if (fds[1].revents & POLLIN)
			fl_req_serve(serve);
		last_check = fl_now_ns();
	}
}

void fl_handler_reset_after_fork(void)
{
	handler_started = 0;
	chunk_id = 0;
	quiet = 0;
	recorder_dead = 0;
	known_brk = 0;
	deferred_n = 0;
	memset(hints, 0, sizeof(hints));
}

int fl_handler_start(void)
{
	chunk_records = fl_agent.chunk_records;
	uint32_t max_records = (fl_agent.ring.max_msg - FL_CHUNK_HEADER_SIZE) / FL_RECORD_SIZE;
	if (chunk_records == 0 || chunk_records > max_records)
		chunk_records = max_records;
	if (chunk_records > MSG_BATCH)
		chunk_records = MSG_BATCH; /* a chunk never spans batches: a batch has <= MSG_BATCH faults */
	msgs = fl_mem_map(MSG_BATCH * sizeof(*msgs));
	staged = fl_mem_map(MSG_BATCH * sizeof(*staged));
	chunk_buf = fl_mem_map(FL_CHUNK_HEADER_SIZE + (size_t)MSG_BATCH * FL_RECORD_SIZE);
	event_buf = fl_mem_map(FL_EVENT_HEADER_SIZE + EVENT_TEXT_MAX);
	if (!msgs || !staged || !chunk_buf || !event_buf)
		return -ENOMEM;
	const char *spin = getenv("FAULTLINE_SPIN_US");
	if (spin)
		spin_us = atoi(spin);
	const char *delay = getenv("FAULTLINE_TEST_EVENT_DELAY_US");
	if (delay)
		test_event_delay_us = atoi(delay);

	/* the stack is agent memory; glibc puts the thread's TLS and descriptor at its top */
	void *stack = fl_mem_map(HANDLER_STACK + FL_PAGE);
	if (!stack)
		return -ENOMEM;
	mprotect(stack, FL_PAGE, PROT_NONE); /* guard page */
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, (char *)stack + FL_PAGE, HANDLER_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* the new thread inherits this mask: no signal handler of the program ever runs on it */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int err = fl_real_pthread_create(&handler_thread, &attr, handler_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	/* FAULTLINE_HANDLER_CPU=n pins the handler (same-CPU handoff is the cheap one, DESIGN.md) */
	const char *cpu = getenv("FAULTLINE_HANDLER_CPU");
	if (cpu && *cpu) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(atoi(cpu), &set);
		pthread_setaffinity_np(handler_thread, sizeof(set), &set);
	}
	handler_started = 1;
	return 0;
}
