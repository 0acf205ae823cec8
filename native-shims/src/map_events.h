/*
 * map_events.h: the program's munmap, madvise and mremap, applied to the agent's state and
 * recorded (map_events.c): as the engine read them (FL_OBSERVES_MAP_EVENTS) or as an
 * interposed call said them (FL_REQ_MAP_EVENT), with the hints those calls leave.
 */
#ifndef FL_MAP_EVENTS_H
#define FL_MAP_EVENTS_H

#include "engine.h"

/* lock held: an FL_TRAP_UNMAP, REMOVE or REMAP (anything else is ignored) */
void fl_map_event(const struct fl_trap *t);
/* the engine's traps just read, before anything else is done with them: what the calls' hints
 * say of their events goes into them (any thread; no lock needed) */
void fl_map_events_read(struct fl_trap *t, uint32_t n);

/*
 * Hints from interposed calls, for events the kernel reports without them: madvise's advice
 * (UFFD_EVENT_REMOVE does not say) and mremap's new length (UFFD_EVENT_REMAP gives the old
 * length only). Posted before the call (any thread), withdrawn after it.
 */
enum { FL_HINT_MADVISE = 1, FL_HINT_MREMAP = 2 };
int fl_hint_post(uint32_t kind, uint64_t start, uint64_t len, uint64_t value); /* its index, or -1 */
int fl_hint_take(int i); /* withdraw; returns 1 if an event used it */
/*
 * fl_hint_take for a call that did what its hint says (a zap, a move): userfaultfd lets the call
 * return once the handler's read(2) has taken its event, and the hint must still be there when
 * the handler looks at what it read (fl_map_events_read). Where the call's range raises events
 * (the hint knows, from when it was posted), waits for that, yielding, at most 100 ms.
 */
int fl_hint_take_said(int i);
/* the advice that zaps a range, which userfaultfd reports as UFFD_EVENT_REMOVE (mm/madvise.c,
 * userfaultfd_remove) */
int fl_map_zaps(long advice);
void fl_hints_reset(void); /* a fork child: none posted */

/*
 * An engine without mapping events (sigbus, mprotect) hears of the program's munmap, madvise
 * zaps, MAP_FIXED and mremap from the calls themselves: the system-call gate's (gate.c), every
 * call glibc's internal ones included, or with the gate off the interposed libc calls'
 * (hooks/interpose.c). fl_map_says_events: whether they must say them now; fl_map_say: one
 * said (kind FL_TRAP_UNMAP or REMOVE of [a, b), or REMAP from a to b of c bytes), applied by the
 * handler as the engine's event would have been, before the pages go. Any thread, errno untouched.
 */
int fl_map_says_events(void);
void fl_map_say(uint32_t kind, uint64_t a, uint64_t b, uint64_t c);

/* any thread, before a call that zaps or moves [addr, addr + len) and is heard of after it:
 * the EVMS reads the range's written bits first (map_events.c); errno kept */
void fl_map_learn_dirty_before(uintptr_t addr, size_t len);

#endif
