/*
 * lock.h: the agent lock, the shared faults it excludes, what is woken when it is released,
 * and its holders' progress (lock.c).
 */
#ifndef FL_LOCK_H
#define FL_LOCK_H

#include "sys.h"

void fl_lock(void);   /* exclusive: also waits until no shared fault is in flight */
void fl_unlock(void); /* release, then wake what the holder resolved or served */
/* lock held, between two steps of long work: if another thread waits for the lock, it has it
 * first (released and taken again); 1 if it did */
int fl_lock_yield(void);
/*
 * lock held: shared faults may run beside the holder (fl_lock_share) until it excludes them
 * again (fl_lock_exclusive, which waits for those in flight). For work that changes nothing a
 * shared fault reads without its page's lock, and moves pages under their locks
 * (mode_monitor.c's arm). No fl_lock_yield in between: taking the lock again excludes them.
 */
void fl_lock_share(void);
void fl_lock_exclusive(void);
/*
 * A shared fault (fault.c): 1 if it may run now, beside other shared faults; 0 if the lock is
 * held or wanted (the fault then takes the lock's path). Each 1 is paired with fl_shared_exit(tid).
 */
int fl_shared_enter(uint32_t tid);
void fl_shared_exit(uint32_t tid);
void fl_wake_later(uintptr_t page);          /* lock held: wake the page's faulting threads at release */
void fl_wake_requests_later(uint64_t served); /* lock held: wake these requests' posters at release (request.c's mask) */
void fl_progress(void);            /* a holder handled faults or served requests */
uint64_t fl_progress_count(void);  /* any thread: how often so far (the guard's stall check) */
void fl_lock_reset_after_fork(void); /* the child has only the forking thread; the lock as the fork left it */

#endif
