/*
 * check.h: FAULTLINE_CHECK=1, the agent checking its own bookkeeping (check.c): a log of the
 * last page operations, printed around a contradiction. Lock held.
 */
#ifndef FL_CHECK_H
#define FL_CHECK_H

#include "sys.h"

extern int fl_check;
enum { FL_OP_FAULT = 1, FL_OP_ENABLE, FL_OP_EVICT, FL_OP_BULK_DISABLE, FL_OP_BULK_RESTORE, FL_OP_PIN, FL_OP_DISCARD,
       FL_OP_FILL_ZERO, FL_OP_PUSH, FL_OP_FORGET, FL_OP_REGISTER, FL_OP_RELOCATE };
void fl_check_log(uint32_t what, uintptr_t a, uintptr_t b, int r);
#define FL_CHECK_LOG(w, a, b, r) do { if (fl_check) fl_check_log((w), (uintptr_t)(a), (uintptr_t)(b), (int)(r)); } while (0)
/* every logged operation on page or on slot (a move's other end), oldest first, on stderr */
void fl_check_history(uintptr_t page, uintptr_t slot);

#endif
