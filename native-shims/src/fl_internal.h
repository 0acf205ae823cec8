/*
 * fl_internal.h: declarations shared by the agent's files. Nothing here is exported: the
 * library is built with -fvisibility=hidden and only FL_EXPORT symbols are visible.
 *
 * Threads and state: state.h.
 */
#ifndef FL_INTERNAL_H
#define FL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#include "faultline_shm.h"
#include "check.h"
#include "emit.h"
#include "evms.h"
#include "pagemap.h"
#include "mem.h"
#include "ring.h"
#include "state.h"
#include "sys.h"

#include "engine.h"
#include "maps.h"
#include "pins.h"
#include "request.h"
#include "scope.h"
#include "sigsegv.h"
#include "touch.h"

/* the userfaultfd engine, for monitor mode (sample.c): an access check of one page */
int fl_uffd_watch(uintptr_t page);   /* register and disable; -EAGAIN or another error: not armed */
int fl_uffd_unwatch(uintptr_t page); /* home and unregistered; -EAGAIN: still parked, retry */
/* the userfaultfd engine, for Moca mode (moca.c): [s,e) enabled by faults, none pinned: one move per range */
void fl_uffd_disable_enabled(uintptr_t s, uintptr_t e);

/* ---- sample.c: DAMON's access checks in monitor mode, through the sampling board (lock held) ---- */
int fl_sample_init(int wake_fd);  /* handler start: this slot's board if the recorder monitors */
int fl_sample_pending(void);      /* any thread: a request is posted */
/* answer it (every queued fault resolved first); between(): called between the pages an ARM
 * disables or brings home, to resolve checks that fault meanwhile (handler.c) */
void fl_sample_serve(void (*between)(void));
uint64_t fl_sample_close_due(void); /* guard: when the open sampling window closes, or 0 */
void fl_sample_close(void (*between)(void)); /* guard, lock held, queued faults resolved: close it */
void fl_sample_fault(uintptr_t page); /* a fault at page was resolved */
void fl_sample_stop(void);        /* teardown: armed pages home */

/* ---- moca.c: Moca's interval mode (FL_MODE_MOCA; lock held) ---- */
int fl_moca_init(void);           /* handler start: tables, once per image */
void fl_moca_reset(void);         /* fork child, new session: the tables hold another image's interval */
void fl_moca_fault(uintptr_t address, uint32_t tid, uint32_t flags); /* FL_REC_* of a fault: counted */
void fl_moca_enabled(uintptr_t page); /* a fault enabled page: disabled when the interval ends */
uint32_t fl_moca_close(void);     /* the interval ends: every thread's chunk written; returns its pages to disable */
void fl_moca_disable(uint32_t n); /* disable the first n pages enabled (the ended interval's); keep the rest */

#include "guard.h"
#include "lock.h"
#include "fault.h"
#include "map_events.h"

/* ---- interpose.c ---- */
void fl_interpose_init(void);
int fl_real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/* ---- agent.c ---- */
int fl_agent_follow_child(void);

/* monitor mode (FL_MODE_MONITOR): DAMON's access checks only, no records, no EVMS (sample.c) */
static inline int fl_monitoring(void)
{
	return fl_agent.mode == FL_MODE_MONITOR;
}

/* Moca mode (FL_MODE_MOCA): no EVMS, pages disabled at interval ends, Moca chunks (moca.c) */
static inline int fl_moca(void)
{
	return fl_agent.mode == FL_MODE_MOCA;
}

#endif

