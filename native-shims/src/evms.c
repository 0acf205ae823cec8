/*
 * evms.c: the evicted virtual mapping set (kVMTrace): the traced pages that are currently
 * enabled (mapped), and under the segq policies the trailing segment's disabled pages that
 * are still resident. Every other traced page is disabled (parked or never populated), so its
 * next reference faults and is recorded. Which page leaves when a new one enters is the
 * policy's choice: one ops table per policy (policy.h), chosen from the control block's
 * FL_CTL_POLICY when a session starts (agent.c). The fault path and the engines only call
 * these functions. A policy writes the eviction record of each page that leaves, and admit
 * returns the pages to disable, which its caller does, so that it can hold the faulting
 * thread when a disable meets a pending event. Agent lock held.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "check.h"
#include "evms.h"
#include "policy.h"

static const struct fl_policy *policy;

int fl_evms_init(const struct fl_policy *p, uint32_t capacity, uint32_t lead_pages)
{
	if (!p)
		return -EINVAL;
	policy = p;
	if (!capacity)
		capacity = 1;
	return policy->init(capacity, lead_pages);
}

uint32_t fl_evms_admit(uintptr_t page, uint32_t tid, int write, const uintptr_t **disable)
{
	FL_CHECK_LOG(FL_OP_PUSH, page, policy->count(), 0);
	return policy->admit(page, tid, write, disable);
}

int fl_evms_state(uintptr_t page)
{
	return policy->state(page);
}

int fl_evms_touch(uintptr_t page, int write)
{
	return policy->touch(page, write);
}

int fl_evms_dirty(uintptr_t page)
{
	return policy->dirty(page);
}

void fl_evms_delete(uintptr_t start, uintptr_t end)
{
	FL_CHECK_LOG(FL_OP_FORGET, start, end, 1);
	policy->delete(start, end);
}

void fl_evms_learn(uintptr_t start, uintptr_t end)
{
	policy->learn(start, end);
}

void fl_evms_forget(uintptr_t start, uintptr_t end)
{
	FL_CHECK_LOG(FL_OP_FORGET, start, end, 0);
	policy->flush(start, end);
}

void fl_evms_clear(void)
{
	policy->clear();
}

void fl_evms_reset(void)
{
	policy->reset();
}

uint32_t fl_evms_count(void)
{
	return policy->count();
}

int fl_evms_decide(uintptr_t page, uint32_t tid, int write, int wp, int admit, struct fl_decision *d)
{
	return policy->decide ? policy->decide(page, tid, write, wp, admit, d) : FL_DECIDED_LOCK;
}

int fl_evms_learned(const struct fl_decision_page *p, int written, struct fl_decision_record *handed)
{
	return policy->learned(p, written, handed);
}

uint32_t fl_evms_settle(const struct fl_decision *d, struct fl_decision_record *out)
{
	return policy->settle(d, out);
}

int fl_evms_target(uintptr_t page, int *dirty)
{
	return policy->target(page, dirty);
}
