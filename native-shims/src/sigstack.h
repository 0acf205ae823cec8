/*
 * sigstack.h: the agent's alternate signal stacks (sigstack.c), one pool for the fault signal's
 * (fault_signal.c, the in-thread engines) and the gate's own (gate.c under uffd, where no fault
 * signal runs). Any thread.
 */
#ifndef FL_SIGSTACK_H
#define FL_SIGSTACK_H

#include "sys.h"

/*
 * A slot: FL_SIGSTACK bytes of agent memory, its first page the thread's state, the stack proper
 * above. The state: the gate's from the page's start (gate.h, struct fl_gate_thread: the selector
 * the kernel reads at every system call), the engine's in its last FL_SIGSTACK_ENGINE bytes
 * (engine.h, struct fl_parked_copies). Zeroed when a new thread takes the slot.
 */
#define FL_SIGSTACK (256UL << 10) /* the gate holds a call's pages on it, a fault signal nests on top */
#define FL_SIGSTACK_ENGINE 256
static inline void *fl_sigstack_engine(void *slot)
{
	return (char *)slot + FL_PAGE - FL_SIGSTACK_ENGINE;
}

/* the calling thread's slot, installed with sigaltstack: its own, one a gone thread left (its
 * state page zeroed), or a new one; NULL when agent memory ran out */
void *fl_sigstack_take(int32_t pid, int32_t tid);
void *fl_sigstack_of(int32_t pid, int32_t tid); /* that thread's slot, NULL if it has none */
void *fl_sigstack_here(void);                    /* the slot the caller runs on, NULL if none */
/* the top of the calling thread's slot, to run agent work on (request.h, fl_req_stack); NULL when
 * it has none, or runs on it already */
void *fl_sigstack_top(void);

#endif
