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
#include "ranges.h"
#include "pins.h"
#include "request.h"
#include "scope.h"
#include "sigsegv.h"
#include "touch.h"

#include "guard.h"
#include "mode.h"
#include "lock.h"
#include "fault.h"
#include "map_events.h"

/* ---- interpose.c ---- */
void fl_interpose_init(void);
int fl_real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/* ---- agent.c ---- */
int fl_agent_follow_child(void);

#endif

