/*
 * ring.c: producer side of an Agrona OneToOneRingBuffer living in the shared memory file
 * (layout in faultline_shm.h; docs/ARCHITECTURE.md, "Rings"). Single producer at a time: the
 * agent lock's holder (a slot's ring), or the thread that claimed it (a thread ring).
 *
 *   record: +0 int32 length (header + payload, unaligned; 0 = not yet written)
 *           +4 int32 type (-1 = padding)   +8 payload      records aligned to 8
 *   trailer after capacity: tail +128, head cache +256, head +384
 *
 * Publication order (Aeron's aeron_spsc_rb_write): payload, zero the next record's header,
 * type, release-store length, release-store tail. The consumer zeroes what it consumed, and we
 * always keep 8 spare bytes so zeroing the next header never touches unconsumed data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "faultline_shm.h"
#include "ring.h"

#define ALIGN8(x) (((x) + 7u) & ~7u)

void fl_ring_init(struct fl_ring *r, uint8_t *base, uint32_t capacity)
{
	r->buf = base;
	r->capacity = capacity;
	r->max_msg = capacity / 8; /* Agrona's maxMsgLength */
	r->tail = (volatile int64_t *)(base + capacity + FL_RING_TAIL_POSITION_OFFSET);
	r->head_cache = (volatile int64_t *)(base + capacity + FL_RING_HEAD_CACHE_OFFSET);
	r->head = (volatile int64_t *)(base + capacity + FL_RING_HEAD_POSITION_OFFSET);
}

int fl_ring_try_write(struct fl_ring *r, int32_t type, const void *msg, uint32_t len)
{
	const uint32_t record_len = len + FL_RING_HEADER_LENGTH;
	const uint32_t aligned = ALIGN8(record_len);
	const uint32_t required = aligned + FL_RING_HEADER_LENGTH; /* + the next header we zero */
	const uint32_t cap = r->capacity, mask = cap - 1;

	int64_t tail = *r->tail; /* we are the only writer of tail */
	int64_t head = *r->head_cache;
	if ((int64_t)required > (int64_t)cap - (tail - head)) {
		head = __atomic_load_n(r->head, __ATOMIC_ACQUIRE);
		if ((int64_t)required > (int64_t)cap - (tail - head))
			return -EAGAIN;
		*r->head_cache = head;
	}

	uint32_t index = (uint32_t)tail & mask;
	uint32_t to_end = cap - index;
	uint32_t padding = 0;
	if (required > to_end) {
		/* wrap: the record goes to index 0, which must have room before the head */
		uint32_t head_index = (uint32_t)head & mask;
		if (required > head_index) {
			head = __atomic_load_n(r->head, __ATOMIC_ACQUIRE);
			head_index = (uint32_t)head & mask;
			if (required > head_index)
				return -EAGAIN;
			*r->head_cache = head;
		}
		padding = to_end;
	}

	if (padding) {
		/*
		 * Padding record to the end of the buffer. The consumer does not zero what it has
		 * read: index 0 still holds the header of the previous lap's first record. Zero it
		 * before the padding becomes visible, or a consumer that skips the padding reads
		 * that stale header and replays the whole previous lap (Agrona's producer does the
		 * same: putLong(0, 0) before the padding's length).
		 */
		*(volatile int64_t *)r->buf = 0;
		int32_t *ph = (int32_t *)(r->buf + index);
		ph[1] = FL_RING_PADDING_MSG_TYPE;
		__atomic_store_n(&ph[0], (int32_t)padding, __ATOMIC_RELEASE);
		index = 0;
	}
	memcpy(r->buf + index + FL_RING_HEADER_LENGTH, msg, len);
	uint32_t next = (index + aligned) & mask;
	*(volatile int64_t *)(r->buf + next) = 0;
	int32_t *h = (int32_t *)(r->buf + index);
	h[1] = type;
	__atomic_store_n(&h[0], (int32_t)record_len, __ATOMIC_RELEASE);
	__atomic_store_n(r->tail, tail + padding + aligned, __ATOMIC_RELEASE);
	return 0;
}
