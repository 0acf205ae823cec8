/*
 * lock.h: the agent lock, what is woken when it is released, and its holders' progress
 * (lock.c).
 */
#ifndef FL_LOCK_H
#define FL_LOCK_H

#include "sys.h"

void fl_lock(void);
void fl_unlock(void); /* release, then wake what the holder resolved or served */
void fl_wake_later(uintptr_t page);          /* lock held: wake the page's faulting threads at release */
void fl_wake_requests_later(uint64_t served); /* lock held: wake these requests' posters at release (request.c's mask) */
void fl_progress(void);            /* a holder handled faults or served requests */
uint64_t fl_progress_count(void);  /* any thread: how often so far (the guard's stall check) */
void fl_lock_reset_after_fork(void); /* the child has only the forking thread; the lock as the fork left it */

#endif
