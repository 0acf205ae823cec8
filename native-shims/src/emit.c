/*
 * emit.c: the agent's one writer of its ring (emit.h): what each message looks like
 * (faultline_shm.h) and the wait for room when the ring is full.
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
static int quiet;        /* tearing down: messages are written only if the ring has room */
/*
 * The recorder is gone, or as good as gone: it asked us to stop (its logger failed, a full disk)
 * while we waited for room, or drained nothing for RING_STALL_NS (stopped, or hung). Sticky until
 * a new session: the guard tears down and the program runs on untraced, because a traced program
 * must never wait on its recorder for good.
 */
static int recorder_dead;
#define RING_STALL_NS (10ULL * 1000000000ULL)

/*
 * The slot's thread ledger (faultline_shm.h): records published for tid, counted as they go
 * into the ring, by the ring's one writer. Release stores: the recorder reads the ledger while
 * the agent runs, and a tid it sees has its count with it.
 */
static void ledger_count(uint32_t tid, uint32_t records)
{
	uint8_t *ledger = fl_agent.shm + *fl_ctl64(FL_CTL_LEDGER_OFFSET) + (uint64_t)fl_agent.slot_index * FL_LEDGER_SIZE;
	uint8_t *entry = ledger; /* the overflow entry, if no other is free */
	for (uint32_t n = 0, i = tid % (FL_LEDGER_ENTRIES - 1); n < FL_LEDGER_ENTRIES - 1; n++, i = (i + 1) % (FL_LEDGER_ENTRIES - 1)) {
		uint8_t *e = ledger + (size_t)(i + 1) * FL_LEDGER_ENTRY_SIZE;
		uint32_t *t = (uint32_t *)(e + FL_LEDGER_TID);
		if (*t == 0)
			__atomic_store_n(t, tid, __ATOMIC_RELEASE);
		if (*t == tid) {
			entry = e;
			break;
		}
	}
	uint64_t *count = (uint64_t *)(entry + FL_LEDGER_RECORDS);
	__atomic_store_n(count, *count + records, __ATOMIC_RELEASE);
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
	if (recorder_dead)
		return 0;
	if (fl_agent.recorder_pidfd < 0)
		return 1;
	struct pollfd p = { .fd = fl_agent.recorder_pidfd, .events = POLLIN };
	if (fl_raw_syscall3(SYS_poll, (long)&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)))
		recorder_dead = 1;
	return !recorder_dead;
}

void fl_recorder_gone(void)
{
	recorder_dead = 1;
}

void fl_emit_quiet(void)
{
	quiet = 1;
}

/*
 * Write one message; a full ring makes us wait (spin briefly, then sleep 50 us), never drop.
 * Gives up when the recorder is dead, asked us to stop, or drained nothing for RING_STALL_NS,
 * and in quiet mode (teardown): -EPIPE then.
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
			fl_raw_syscall3(SYS_nanosleep, (long)&ts, 0, 0);
		}
		if (fl_ring_try_write(&fl_agent.ring, type, msg, len) == 0)
			break;
		if ((i & 255) == 0 && (!fl_recorder_alive() || __atomic_load_n(fl_ctl32(FL_CTL_STOP), __ATOMIC_ACQUIRE) ||
					fl_now_ns() - t0 > RING_STALL_NS)) {
			recorder_dead = 1;
			fl_guard_poke(); /* the guard tears down now, not at its next liveness tick */
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
