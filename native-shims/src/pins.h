/*
 * pins.h: the pinned pages, thread descriptors: enabled, never in the EVMS; and the held pages,
 * in use by a system call: enabled until it ends, whatever the EVMS says (pins.c). Lock held, but
 * for hold, release and held, which any thread may call (the held table has its own lock).
 */
#ifndef FL_PINS_H
#define FL_PINS_H

#include "sys.h"

/*
 * glibc's struct pthread, which pthread_self() points to: 2304 bytes on x86-64 (glibc 2.36). The
 * pages of its first and last byte stay pinned (pins.c says why).
 */
#define FL_PTHREAD_BYTES 2304

int fl_pins_init(uint32_t capacity);
int fl_pins_has(uintptr_t page);
/* in address order: run on each run of [start, end) holding no pinned and no held page, kept
 * (if not NULL) on each pinned or held page between them */
void fl_pins_around(uintptr_t start, uintptr_t end, void (*run)(uintptr_t a, uintptr_t b, void *ctx),
		    void (*kept)(uintptr_t page, void *ctx), void *ctx);
void fl_pins_add(uintptr_t page);
void fl_pins_forget(uintptr_t start, uintptr_t end);
/* held pages: in use by a system call (gate.c), counted per call holding them */
int fl_pins_hold(uintptr_t page);    /* 0, or -ENOSPC: the table is full (the page is not held) */
int fl_pins_release(uintptr_t page); /* 1 when no call holds it any more */
int fl_pins_held(uintptr_t page);
void fl_pins_held_reset(void);       /* a fork child: the other threads' calls are not its own */

#endif
