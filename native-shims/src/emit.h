/*
 * emit.h: every message the agent writes into its rings (emit.c), in the layouts of
 * faultline_shm.h: reference records in chunks, Moca chunks, and events (evictions, mappings,
 * threads, processes, tracing). The one writer of the rings, below the rooms whose records these
 * are: the fault path and the modes (references, Moca chunks), the EVMS policies (evictions),
 * the engines, the range table and the request handlers (mapping and thread events), the guard
 * (process start, trace stop). Nothing here allocates, uses stdio or writes errno: it runs on
 * handler threads and in a faulting thread's signal handler. A full ring waits for the recorder
 * while it is alive; nothing is dropped but in teardown's quiet mode.
 *
 * Two kinds of producer (faultline_shm.h, "Producers and rings"): whoever holds the agent lock
 * writes the slot's ring (fl_emit_event and the others without an emitter: "lock held"); a
 * thread resolving its fault without the lock (fault.c, the shared path) writes its own thread
 * ring through its emitter (the *_to functions). Each keeps the ring's watermark: the slot's is
 * opened and closed with the lock (lock.c), an emitter's around each fault's messages.
 */
#ifndef FL_EMIT_H
#define FL_EMIT_H

#include "state.h"

/* a fault as the fault path labelled it (fault.c): what a reference record is made of */
struct fl_fault {
	uint64_t address;
	uint32_t tid;
	uint32_t flags; /* FL_REC_* */
	uint32_t stack; /* the call stack's id (stacks.c), 0: none */
	int soft;       /* nonzero: a fault that is no reference record (fault.c says which) */
};

int fl_emit_init(void);  /* handler start: buffers, the chunk size from the control block */
void fl_emit_reset(void); /* a fork child or a new session: chunk ids from 0, recorder alive */

/* a thread's producer: its thread ring, bound the first time it publishes without the lock */
struct fl_emitter {
	struct fl_ring ring;
	uint64_t *low;    /* the ring's watermark (faultline_shm.h) */
	uint8_t *desc;    /* the thread ring's descriptor: its counters */
	uint64_t chunk_id;
	int32_t pid;      /* the image it was bound in: in another (a fork child's copy of the thread's state) it is not */
	int32_t index;    /* the thread ring, -1: none was free (tried again after `retry` faults) */
	uint32_t depth;   /* nested opens: the outermost sets the watermark */
	uint32_t retry;
};
/* 0 when e has a thread ring of this image (claimed now if need be), -ENOSPC: none is free */
int fl_emitter_bind(struct fl_emitter *e, uint32_t tid);
/* before the producer takes a seq or reads the clock for a message (a full barrier), and after it has published */
void fl_emit_open(struct fl_emitter *e);
void fl_emit_close(struct fl_emitter *e);
/* the slot ring's watermark, around the agent lock (lock.c) */
void fl_emit_slot_open(void);
void fl_emit_slot_close(void);
void fl_emit_slot_claimed(void); /* this image claimed fl_agent.slot: its watermark is ours */
void fl_emit_slot_forked(void);  /* a fork child: the slot is the parent's until the child claims one */
/* an emitter's counters (its thread ring's descriptor, FL_TRING_*) */
void fl_emitter_count(struct fl_emitter *e, uint32_t field, uint64_t n);
/* one reference record as a chunk of one, with the seq taken for it */
void fl_emit_record_to(struct fl_emitter *e, const struct fl_fault *f, uint64_t seq);
/* an event with the seq given (an eviction: the clock after the record that caused it) */
void fl_emit_event_to(struct fl_emitter *e, uint32_t type, uint32_t tid, uint64_t seq, uint64_t a, uint64_t b,
		      uint64_t c, uint64_t d, const char *text, uint32_t text_len);

uint64_t fl_clock_now(void);           /* the global clock: the next reference's seq */
uint64_t fl_clock_take(uint32_t n);    /* n ticks: the first one's seq */

/* the reference records of f[0..n) (soft ones skipped): consecutive faults of one thread as one chunk */
void fl_emit_references(const struct fl_fault *f, uint32_t n);
void fl_emit_event(uint32_t type, uint32_t tid, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
		   const char *text, uint32_t text_len);
/* a page leaves the EVMS (FL_EV_EVICT): tag r/w/R/W, deleted if its mapping went first */
void fl_emit_eviction(uintptr_t page, uint32_t tid, char tag, int deleted);

/* one page of a Moca chunk (FL_RECORD_MOCA_*) */
struct fl_moca_record {
	uint64_t seq, time_ns, address;
	uint32_t flags, reads, writes;
};
int fl_emit_moca_init(void); /* Moca mode's start: its message buffer; -EINVAL if the ring is too small */
/* one thread's Moca chunk of an interval, in as many messages as the ring's size asks; next()
 * gives the records in seq order, 0 when there are no more */
void fl_emit_moca_chunk(uint32_t tid, uint64_t id, uint64_t interval, uint64_t close_seq, uint64_t close_ns,
			int (*next)(struct fl_moca_record *out, void *ctx), void *ctx);

int fl_recorder_alive(void); /* its pidfd says so (polled, no wait), and it drains the ring */
void fl_recorder_gone(void); /* the guard saw its pidfd: the ring no longer waits for it */
void fl_emit_quiet(void);    /* teardown: from now on a message is written only if the ring has room */

#endif
