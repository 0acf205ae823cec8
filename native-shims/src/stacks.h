/*
 * stacks.h: the call stack of a trapped reference (record --stacks N), taken on the faulting
 * thread from its signal context by walking the frame-pointer chain, deduplicated into a stack
 * table per process image whose stacks and code mappings go out as events (stacks.c). Under the
 * agent lock, or on the shared path (fl_stack_take_to).
 */
#ifndef FL_STACKS_H
#define FL_STACKS_H

#include "sys.h"

/* the faulting thread's registers, from its signal context */
struct fl_stack_regs {
	uintptr_t pc, sp, fp;
};

int fl_stacks_init(void);  /* handler start: the tables (once per image), N from the control block */
void fl_stacks_reset(void); /* a fork child or a new session: ids from 1 again, no mapping announced */
int fl_stacks_on(void);     /* record --stacks in trace mode */
/*
 * The id of the stack at regs (FL_EV_STACK), emitted with the code mappings of its frames
 * (FL_EV_CODE_MAP) the first time it is seen; 0 when the stack table is full (counted).
 */
uint32_t fl_stack_take(const struct fl_stack_regs *regs, uint32_t tid); /* lock held: the slot's ring */
/* the same on the shared path (fault.c): the events into the thread's ring, its watermark open */
struct fl_emitter;
uint32_t fl_stack_take_to(struct fl_emitter *e, const struct fl_stack_regs *regs, uint32_t tid);

#endif
