/*
 * evms.h: the evicted virtual mapping set (kVMTrace), as every room sees it: the policy the
 * control block names (policy.h, chosen by agent.c), behind calls that log to FAULTLINE_CHECK
 * (evms.c). Lock held, but for the shared path's decide and target.
 */
#ifndef FL_EVMS_H
#define FL_EVMS_H

#include "policy.h"

int fl_evms_init(const struct fl_policy *policy, uint32_t capacity, uint32_t lead_pages); /* -EINVAL: none */
/* returns how many pages the caller must disable, listed at *disable */
uint32_t fl_evms_admit(uintptr_t page, uint32_t tid, int write, const uintptr_t **disable);
int fl_evms_state(uintptr_t page);
int fl_evms_touch(uintptr_t page, int write);
int fl_evms_dirty(uintptr_t page);
void fl_evms_delete(uintptr_t start, uintptr_t end);
void fl_evms_learn(uintptr_t start, uintptr_t end);  /* about to be deleted: dirty flags read now (policy.h) */
void fl_evms_forget(uintptr_t start, uintptr_t end);
void fl_evms_clear(void);   /* every page leaves, with its eviction record */
void fl_evms_reset(void);   /* every page forgotten, no records (a fork child's copy) */
uint32_t fl_evms_count(void);
/* the shared path (policy.h): no agent lock */
int fl_evms_decide(uintptr_t page, uint32_t tid, int write, int wp, int admit, struct fl_decision *d);
int fl_evms_learned(const struct fl_decision_page *p, int written, struct fl_decision_record *handed);
uint32_t fl_evms_settle(const struct fl_decision *d, struct fl_decision_record *out);
int fl_evms_target(uintptr_t page, int *dirty);

#endif
