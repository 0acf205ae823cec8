/*
 * fault_signal.h: the in-thread engines' fault signal (fault_signal.c): SIGSEGV for the mprotect
 * engine, SIGBUS for the sigbus engine
 */
#ifndef FL_FAULT_SIGNAL_H
#define FL_FAULT_SIGNAL_H

#include <signal.h>

#include "sys.h"

/* the handler of sig (SIGSEGV or SIGBUS) for this process image; engine names it in messages */
int fl_fault_signal_install(int sig, const char *engine);
int fl_fault_signal_number(void); /* the signal installed, or 0: the engine's fault_signal op */
/* the program's action for the signal, kept by the agent (hooks/signals.c): old gets it, act replaces it */
void fl_fault_signal_program_action(const struct sigaction *act, struct sigaction *old);
void fl_fault_signal_thread(void); /* this thread: an alternate signal stack, the signal unblocked */

#endif
