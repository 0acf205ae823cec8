/*
 * emit.c: the agent's one writer of its rings (emit.h): what each message looks like
 * (faultline_shm.h), the wait for room when a ring is full, the thread rings' claims and every
 * ring's watermark.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "faultline_shm.h"
#include "emit.h"
#include "mem.h"
#include "ring.h"
#include "state.h"
#include "sys.h"

#define EVENT_TEXT_MAX 1024

static uint8_t *chunk_buf;
static uint8_t *event_buf;
static uint8_t *moca_buf;
static uint32_t chunk_records; /* reference records in one chunk */
static uint32_t moca_records;  /* Moca records in one message */
static uint64_t chunk_id;
static int quiet;        /* tearing down: messages are written only if the ring has room (any thread) */
/*
 * The recorder is gone, or as good as gone: it asked us to stop (its logger failed, a full disk)
 * while we waited for room, or drained nothing for RING_STALL_NS (stopped, or hung). Sticky until
 * a new session: the guard tears down and the program runs on untraced, because a traced program
 * must never wait on its recorder for good.
 */
static int recorder_dead;
#define RING_STALL_NS (10ULL * 1000000000ULL)

static int ring_put_to(struct fl_emitter *e, int32_t type, const void *msg, uint32_t len);

/*
 * The slot's thread ledger (faultline_shm.h): records published for tid, counted as they go
 * into a ring, by the producers of every ring of the image: an entry is claimed with a
 * compare-and-swap of its tid and counted with an atomic add, so that threads publishing at once
 * neither take one entry twice nor lose a count. The recorder reads the ledger while the agent
 * runs, and a tid it sees has its count with it.
 */
static void ledger_count(uint32_t tid, uint32_t records)
{
	uint8_t *ledger = fl_agent.shm + *fl_ctl64(FL_CTL_LEDGER_OFFSET) + (uint64_t)fl_agent.slot_index * FL_LEDGER_SIZE;
	uint8_t *entry = ledger; /* the overflow entry, if no other is free */
	for (uint32_t n = 0, i = tid % (FL_LEDGER_ENTRIES - 1); n < FL_LEDGER_ENTRIES - 1; n++, i = (i + 1) % (FL_LEDGER_ENTRIES - 1)) {
		uint8_t *e = ledger + (size_t)(i + 1) * FL_LEDGER_ENTRY_SIZE;
		uint32_t *t = (uint32_t *)(e + FL_LEDGER_TID);
		uint32_t seen = __atomic_load_n(t, __ATOMIC_ACQUIRE);
		if (seen == 0 && __atomic_compare_exchange_n(t, &seen, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			seen = tid;
		if (seen == tid) {
			entry = e;
			break;
		}
	}
	__atomic_add_fetch((uint64_t *)(entry + FL_LEDGER_RECORDS), records, __ATOMIC_RELEASE);
}

int fl_emit_init(void)
{
	uint32_t max_msg = fl_agent.ring.max_msg;
	chunk_records = fl_agent.chunk_records;
	uint32_t max_records = (max_msg - FL_CHUNK_HEADER_SIZE) / FL_RECORD_SIZE;
	if (chunk_records == 0 || chunk_records > max_records)
		chunk_records = max_records;
	if (chunk_records > FL_BATCH)
		chunk_records = FL_BATCH; /* a chunk never spans batches: a batch has <= FL_BATCH faults */
	moca_records = max_msg > FL_CHUNK_MOCA_HEADER_SIZE ? (max_msg - FL_CHUNK_MOCA_HEADER_SIZE) / FL_RECORD_MOCA_SIZE : 0;
	if (!chunk_buf) {
		chunk_buf = fl_mem_map(FL_CHUNK_HEADER_SIZE + (size_t)FL_BATCH * FL_RECORD_SIZE);
		event_buf = fl_mem_map(FL_EVENT_HEADER_SIZE + EVENT_TEXT_MAX);
	}
	if (!chunk_buf || !event_buf)
		return -ENOMEM;
	return 0;
}

int fl_emit_moca_init(void)
{
	if (!moca_records)
		return -EINVAL;
	if (!moca_buf)
		moca_buf = fl_mem_map(FL_CHUNK_MOCA_HEADER_SIZE + (size_t)moca_records * FL_RECORD_MOCA_SIZE);
	return moca_buf ? 0 : -ENOMEM;
}

void fl_emit_reset(void)
{
	chunk_id = 0;
	quiet = 0;
	recorder_dead = 0;
}

uint64_t fl_clock_now(void)
{
	return __atomic_load_n(fl_ctl64(FL_CTL_CLOCK), __ATOMIC_ACQUIRE);
}

uint64_t fl_clock_take(uint32_t n)
{
	return __atomic_fetch_add(fl_ctl64(FL_CTL_CLOCK), n, __ATOMIC_ACQ_REL);
}

int fl_recorder_alive(void)
{
	if (__atomic_load_n(&recorder_dead, __ATOMIC_RELAXED))
		return 0;
	if (fl_agent.recorder_pidfd < 0)
		return 1;
	struct pollfd p = { .fd = fl_agent.recorder_pidfd, .events = POLLIN };
	if (fl_syscall(SYS_poll, (long)&p, 1) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)))
		__atomic_store_n(&recorder_dead, 1, __ATOMIC_RELAXED);
	return !__atomic_load_n(&recorder_dead, __ATOMIC_RELAXED);
}

void fl_recorder_gone(void)
{
	__atomic_store_n(&recorder_dead, 1, __ATOMIC_RELAXED);
}

void fl_emit_quiet(void)
{
	__atomic_store_n(&quiet, 1, __ATOMIC_RELAXED);
}

/* ---- thread rings and watermarks (faultline_shm.h, "Producers and rings") ---- */

#define BIND_RETRY 4096 /* faults on the lock's path before a thread that found no free ring looks again */

static uint8_t *thread_desc(uint32_t i)
{
	return fl_agent.shm + *fl_ctl64(FL_CTL_THREAD_DESC_OFFSET) + (uint64_t)i * FL_TRING_SIZE;
}

/*
 * A free thread ring, claimed: CAS FREE -> CLAIMING, its slot and claim written, then ACTIVE with
 * release semantics (the recorder takes a ring into an image's merge only once it reads ACTIVE,
 * and then reads the slot and claim that go with it). Looked for from the tid's own place in the
 * pool, so that threads claiming at once rarely meet on one descriptor.
 */
int fl_emitter_bind(struct fl_emitter *e, uint32_t tid)
{
	if (e->pid == fl_agent.pid) {
		if (e->index >= 0)
			return 0;
		if (e->retry && --e->retry)
			return -ENOSPC;
	}
	uint32_t n = *fl_ctl32(FL_CTL_THREAD_RINGS);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = (tid + k) % n;
		uint8_t *d = thread_desc(i);
		uint32_t *state = (uint32_t *)(d + FL_TRING_STATE);
		uint32_t expect = FL_TRING_FREE;
		if (__atomic_load_n(state, __ATOMIC_RELAXED) != FL_TRING_FREE ||
		    !__atomic_compare_exchange_n(state, &expect, FL_TRING_CLAIMING, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		*(uint32_t *)(d + FL_TRING_SLOT) = fl_agent.slot_index;
		*(uint64_t *)(d + FL_TRING_CLAIM) = *fl_slot64(FL_SLOT_CLAIM);
		*(uint32_t *)(d + FL_TRING_TID) = tid;
		__atomic_store_n((uint64_t *)(d + FL_TRING_LOW), 0, __ATOMIC_RELAXED);
		__atomic_store_n(state, FL_TRING_ACTIVE, __ATOMIC_RELEASE);
		fl_ring_init(&e->ring, fl_agent.shm + *fl_ctl64(FL_CTL_THREAD_RING_OFFSET) + (uint64_t)i * *fl_ctl64(FL_CTL_THREAD_RING_STRIDE),
			     *fl_ctl32(FL_CTL_THREAD_RING_CAPACITY));
		e->low = (uint64_t *)(d + FL_TRING_LOW);
		e->desc = d;
		e->chunk_id = 0;
		e->pid = fl_agent.pid;
		e->index = (int32_t)i;
		e->depth = 0;
		e->retry = 0;
		return 0;
	}
	e->pid = fl_agent.pid;
	e->index = -1;
	e->desc = NULL;
	e->retry = BIND_RETRY;
	return -ENOSPC;
}

/*
 * The watermark, before the first seq or clock read of a producer's messages: the clock's value
 * (+1, so that 0 means idle), then a full barrier, so that the recorder, which reads the clock
 * before the watermarks, either sees the mark or reads a clock no later than any seq taken after it.
 */
static void low_open(uint64_t *low)
{
	__atomic_store_n(low, fl_clock_now() + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void fl_emit_open(struct fl_emitter *e)
{
	if (e->depth++ == 0)
		low_open(e->low);
}

void fl_emit_close(struct fl_emitter *e)
{
	if (--e->depth == 0)
		__atomic_store_n(e->low, 0, __ATOMIC_RELEASE);
}

/*
 * The slot is this process image's: not in a fork child until it claims its own, where the
 * agent lock is taken before that (the system-call gate's epilogue of the fork) and must not
 * move the parent's watermark.
 */
static int slot_ours;

void fl_emit_slot_claimed(void)
{
	slot_ours = 1;
}

void fl_emit_slot_forked(void)
{
	slot_ours = 0;
}

void fl_emit_slot_open(void)
{
	if (slot_ours)
		low_open(fl_slot64(FL_SLOT_RING_LOW));
}

void fl_emit_slot_close(void)
{
	if (slot_ours)
		__atomic_store_n(fl_slot64(FL_SLOT_RING_LOW), 0, __ATOMIC_RELEASE);
}

/* one writer per descriptor: a plain add, stored with release for the recorder's reads */
void fl_emitter_count(struct fl_emitter *e, uint32_t field, uint64_t n)
{
	uint64_t *c = (uint64_t *)(e->desc + field);
	__atomic_store_n(c, *c + n, __ATOMIC_RELEASE);
}

static inline void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static inline void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

void fl_emit_record_to(struct fl_emitter *e, const struct fl_fault *f, uint64_t seq)
{
	uint8_t c[FL_CHUNK_HEADER_SIZE + FL_RECORD_SIZE];
	uint8_t *rec = c + FL_CHUNK_HEADER_SIZE;
	put64(rec, FL_RECORD_SEQ, seq);
	put64(rec, FL_RECORD_TIME_NS, fl_now_ns() - fl_agent.start_mono_ns);
	put64(rec, FL_RECORD_ADDRESS, f->address);
	put32(rec, FL_RECORD_FLAGS, f->flags);
	put32(rec, FL_RECORD_STACK, f->stack);
	put32(c, FL_CHUNK_PID, (uint32_t)fl_agent.pid);
	put32(c, FL_CHUNK_TID, f->tid);
	put64(c, FL_CHUNK_ID, e->chunk_id);
	put32(c, FL_CHUNK_COUNT, 1);
	put32(c, FL_CHUNK_FLAGS, 0);
	if (ring_put_to(e, FL_MSG_CHUNK, c, sizeof(c)) == 0) {
		e->chunk_id++;
		/* before resolution: a woken thread may end the process right away */
		fl_emitter_count(e, FL_TRING_CHUNKS, 1);
		fl_emitter_count(e, FL_TRING_RECORDS, 1);
		ledger_count(f->tid, 1);
	}
}

void fl_emit_event_to(struct fl_emitter *e, uint32_t type, uint32_t tid, uint64_t seq, uint64_t a, uint64_t b,
		      uint64_t c, uint64_t d, const char *text, uint32_t text_len)
{
	uint8_t ev[FL_EVENT_HEADER_SIZE + EVENT_TEXT_MAX];
	if (text_len > EVENT_TEXT_MAX)
		text_len = EVENT_TEXT_MAX;
	put32(ev, FL_EVENT_TYPE, type);
	put32(ev, FL_EVENT_PID, (uint32_t)fl_agent.pid);
	put32(ev, FL_EVENT_TID, tid);
	put32(ev, FL_EVENT_TEXT_LENGTH, text_len);
	put64(ev, FL_EVENT_SEQ, seq);
	put64(ev, FL_EVENT_TIME_NS, fl_now_ns() - fl_agent.start_mono_ns);
	put64(ev, FL_EVENT_A, a);
	put64(ev, FL_EVENT_B, b);
	put64(ev, FL_EVENT_C, c);
	put64(ev, FL_EVENT_D, d);
	if (text_len)
		memcpy(ev + FL_EVENT_HEADER_SIZE, text, text_len);
	ring_put_to(e, FL_MSG_EVENT, ev, FL_EVENT_HEADER_SIZE + text_len);
}

/*
 * Write one message into ring r (e: its thread emitter, NULL: the slot's ring, lock held); a full
 * ring makes us wait (spin briefly, then sleep 50 us), never drop. Gives up when the recorder is
 * dead, asked us to stop, or drained nothing for RING_STALL_NS, and in quiet mode (teardown):
 * -EPIPE then.
 */
static int ring_put_to(struct fl_emitter *e, int32_t type, const void *msg, uint32_t len)
{
	struct fl_ring *r = e ? &e->ring : &fl_agent.ring;
	if (fl_ring_try_write(r, type, msg, len) == 0)
		return 0;
	if (__atomic_load_n(&quiet, __ATOMIC_RELAXED) || __atomic_load_n(&recorder_dead, __ATOMIC_RELAXED))
		return -EPIPE;
	uint64_t t0 = fl_now_ns();
	int rc = 0;
	for (uint64_t i = 1;; i++) {
		if (i < 200) {
			__builtin_ia32_pause();
		} else {
			struct timespec ts = { 0, 50000 };
			fl_syscall(SYS_nanosleep, (long)&ts);
		}
		if (fl_ring_try_write(r, type, msg, len) == 0)
			break;
		if ((i & 255) == 0 && (!fl_recorder_alive() || __atomic_load_n(fl_ctl32(FL_CTL_STOP), __ATOMIC_ACQUIRE) ||
					fl_now_ns() - t0 > RING_STALL_NS)) {
			__atomic_store_n(&recorder_dead, 1, __ATOMIC_RELAXED);
			fl_guard_poke(); /* the guard tears down now, not at its next liveness tick */
			rc = -EPIPE;
			break;
		}
	}
	uint64_t waited = fl_now_ns() - t0;
	if (e) {
		fl_emitter_count(e, FL_TRING_RING_WAITS, 1);
		fl_emitter_count(e, FL_TRING_WAIT_NS, waited);
	} else {
		fl_cnt.ring_waits++;
		fl_cnt.wait_ns += waited;
		__atomic_store_n(fl_slot64(FL_SLOT_RING_WAITS), fl_cnt.ring_waits, __ATOMIC_RELEASE);
		__atomic_store_n(fl_slot64(FL_SLOT_WAIT_NS), fl_cnt.wait_ns, __ATOMIC_RELEASE);
	}
	return rc;
}

static int ring_put(int32_t type, const void *msg, uint32_t len)
{
	return ring_put_to(NULL, type, msg, len);
}

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
	put64(e, FL_EVENT_SEQ, fl_clock_now());
	put64(e, FL_EVENT_TIME_NS, fl_now_ns() - fl_agent.start_mono_ns);
	put64(e, FL_EVENT_A, a);
	put64(e, FL_EVENT_B, b);
	put64(e, FL_EVENT_C, c);
	put64(e, FL_EVENT_D, d);
	if (text_len)
		memcpy(e + FL_EVENT_HEADER_SIZE, text, text_len);
	ring_put(FL_MSG_EVENT, e, FL_EVENT_HEADER_SIZE + text_len);
}

void fl_emit_eviction(uintptr_t page, uint32_t tid, char tag, int deleted)
{
	fl_emit_event(FL_EV_EVICT, tid, page, (uint64_t)(unsigned char)tag, (uint64_t)deleted, 0, NULL, 0);
}

void fl_emit_references(const struct fl_fault *f, uint32_t n_faults)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < n_faults; i++)
		n += !f[i].soft;
	if (!n)
		return;
	uint64_t seq = fl_clock_take(n);
	uint64_t t = fl_now_ns() - fl_agent.start_mono_ns;
	uint32_t i = 0;
	while (i < n_faults) {
		if (f[i].soft) {
			i++;
			continue;
		}
		uint32_t tid = f[i].tid, count = 0;
		uint8_t *c = chunk_buf;
		while (i < n_faults && f[i].tid == tid && count < chunk_records) {
			if (f[i].soft) {
				i++;
				continue;
			}
			uint8_t *rec = c + FL_CHUNK_HEADER_SIZE + (size_t)count * FL_RECORD_SIZE;
			put64(rec, FL_RECORD_SEQ, seq++);
			put64(rec, FL_RECORD_TIME_NS, t);
			put64(rec, FL_RECORD_ADDRESS, f[i].address);
			put32(rec, FL_RECORD_FLAGS, f[i].flags);
			put32(rec, FL_RECORD_STACK, f[i].stack);
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
			ledger_count(tid, count);
		}
	}
	/* before resolution too: a woken thread may end the process right away */
	__atomic_store_n(fl_slot64(FL_SLOT_RECORDS), fl_cnt.records, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_CHUNKS), fl_cnt.chunks, __ATOMIC_RELEASE);
}

void fl_emit_moca_chunk(uint32_t tid, uint64_t id, uint64_t interval, uint64_t close_seq, uint64_t close_ns,
			int (*next)(struct fl_moca_record *out, void *ctx), void *ctx)
{
	struct fl_moca_record x;
	int more = next(&x, ctx);
	while (more) {
		uint32_t count = 0;
		uint64_t start = x.seq, end = start;
		while (more && count < moca_records) {
			uint8_t *rec = moca_buf + FL_CHUNK_MOCA_HEADER_SIZE + (size_t)count * FL_RECORD_MOCA_SIZE;
			put64(rec, FL_RECORD_SEQ, x.seq);
			put64(rec, FL_RECORD_TIME_NS, x.time_ns);
			put64(rec, FL_RECORD_ADDRESS, x.address);
			put32(rec, FL_RECORD_FLAGS, x.flags);
			put32(rec, FL_RECORD_FLAGS + 4, 0);
			put32(rec, FL_RECORD_MOCA_READS, x.reads);
			put32(rec, FL_RECORD_MOCA_WRITES, x.writes);
			end = x.seq + 1;
			count++;
			more = next(&x, ctx);
		}
		put32(moca_buf, FL_CHUNK_PID, (uint32_t)fl_agent.pid);
		put32(moca_buf, FL_CHUNK_TID, tid);
		put64(moca_buf, FL_CHUNK_ID, id);
		put32(moca_buf, FL_CHUNK_COUNT, count);
		put32(moca_buf, FL_CHUNK_FLAGS, FL_CHUNK_MOCA);
		put64(moca_buf, FL_CHUNK_MOCA_START_SEQ, start);
		put64(moca_buf, FL_CHUNK_MOCA_END_SEQ, end);
		put64(moca_buf, FL_CHUNK_MOCA_CLOSE_SEQ, close_seq);
		put64(moca_buf, FL_CHUNK_MOCA_CLOSE_NS, close_ns);
		put64(moca_buf, FL_CHUNK_MOCA_INTERVAL, interval);
		if (ring_put(FL_MSG_CHUNK, moca_buf, FL_CHUNK_MOCA_HEADER_SIZE + count * FL_RECORD_MOCA_SIZE) == 0) {
			fl_cnt.chunks++;
			fl_cnt.records += count;
			ledger_count(tid, count);
		}
	}
}
