/*
 * fault.h: the fault path (fault.c): the engine's traps read in batches and handled, faults
 * labelled, recorded and resolved, mapping events applied in between. Called by the handler
 * threads (guard.c, serve.c) with the agent lock held, or, under an engine without fd, by the
 * faulting thread's signal handler (fl_fault_on_thread, which takes the lock itself).
 */
#ifndef FL_FAULT_H
#define FL_FAULT_H

#include "sys.h"

int fl_fault_init(void);   /* handler start: the batch buffers, once per image */
void fl_fault_reset(void); /* a fork child or a new session: nothing deferred or held */
/* lock held: read the engine's queued traps without blocking and handle them; traps handled
 * (or retried), 0 when none was queued, or -errno (the engine's fd failed: tracing must stop) */
int fl_fault_drain(void);
/*
 * A handler thread without the lock: read the engine's traps and resolve their faults on the
 * shared path (fault.c), each into the thread's own ring e (self: its tid), taking the lock for
 * what needs it. Traps handled, 0 when none was queued, or -errno.
 */
struct fl_emitter;
int fl_fault_drain_shared(struct fl_emitter *e, uint32_t self);
/*
 * Lock held: op() until it reports nothing stuck (0). A move meets EAGAIN while a mapping event
 * is pending, and only reading the event clears it: between tries the queued traps are read,
 * or, with none yet, the event's thread is given time to queue it. -EAGAIN after the last try.
 */
int fl_fault_until_unstuck(int (*op)(void));
/*
 * An engine without fd, on the faulting thread (its signal handler; raw system calls, no errno):
 * one fault through the same steps as a batch of one, without the agent lock where it can be
 * (beside other threads' faults), else under it. 1 if the engine caused the fault (it is
 * recorded and resolved), 2 if not but the page allows the access now (a race lost to another
 * thread: retry), 0 if it is the program's. regs: the thread's registers from its signal
 * context, for its reference's call stack under record --stacks.
 */
struct fl_stack_regs; /* stacks.h */
struct fl_emitter;    /* emit.h: the thread's ring, NULL if the thread has no state of the agent's */
int fl_fault_on_thread(uintptr_t address, uint32_t tid, uint32_t access, const struct fl_stack_regs *regs,
		       struct fl_emitter *e);

#endif
