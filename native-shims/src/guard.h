/*
 * guard.h: the agent's handler threads: a guard (the deadline loop, teardown) and, opt-in, one
 * fault thread per CPU (guard.c).
 */
#ifndef FL_GUARD_H
#define FL_GUARD_H

#include "sys.h"

int fl_handler_start(void);
int fl_handler_wait_stopped(long timeout_ms); /* 0 once the guard has torn down and returned; -ETIMEDOUT */
void fl_handler_reset_after_fork(void);      /* the child has only the forking thread */
/* a signal that dumps core is killing the process: tear down now and wait (bounded) until every page is home */
void fl_guard_stop_for_core(void);

#endif
