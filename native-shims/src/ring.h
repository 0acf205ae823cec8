/*
 * ring.h: the producer side of one Agrona ring in the shared memory (ring.c), a slot's or a
 * thread's. One writer at a time: the agent lock's holder for a slot's ring, the thread that
 * claimed it for a thread ring (emit.c writes every message).
 */
#ifndef FL_RING_H
#define FL_RING_H

#include <stdint.h>

struct fl_ring {
	uint8_t *buf;
	uint32_t capacity;
	uint32_t max_msg;
	volatile int64_t *tail, *head_cache, *head;
};
void fl_ring_init(struct fl_ring *r, uint8_t *base, uint32_t capacity);
/* 0 on success, -EAGAIN when the ring has no room now */
int fl_ring_try_write(struct fl_ring *r, int32_t type, const void *msg, uint32_t len);

#endif
