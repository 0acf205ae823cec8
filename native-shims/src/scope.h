/*
 * scope.h: which memory scope "all" traces, and which ranges faultline_trace_range accepts
 * (scope.c). Lock held.
 */
#ifndef FL_SCOPE_H
#define FL_SCOPE_H

#include "sys.h"

int fl_scope_init(void);
int fl_scope_rescan(void);                                   /* handler */
int fl_scope_register_exact(uintptr_t s, uintptr_t e, uint32_t source); /* handler */
int fl_scope_register_around(uintptr_t s, uintptr_t e);      /* handler: eligible mappings overlapping [s, e), whole */
int fl_scope_check_api_range(uintptr_t s, uintptr_t e);      /* handler: 0 or -EINVAL */
int fl_scope_grow_stack(uintptr_t page);                    /* faulting thread: 1 if page is the main stack's new part, now traced */
void fl_scope_retire_stack(uintptr_t s, uintptr_t e);       /* handler: an exited thread's stack, left alone until... */
void fl_scope_unretire(uintptr_t s, uintptr_t e);           /* handler: ...a thread starts on it, or it is unmapped */

#endif
