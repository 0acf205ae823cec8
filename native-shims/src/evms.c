/*
 * evms.c: the evicted virtual mapping set (kVMTrace): the traced pages that are currently
 * enabled (mapped). Every other traced page is disabled (parked or never populated), so its
 * next reference faults and is recorded. Which page leaves when a new one enters is the
 * policy's choice: one ops table per policy (policy_*.c), chosen from the control block's
 * FL_CTL_POLICY. The fault loop (handler.c) and the engines only call these functions.
 * Agent lock held.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "fl_internal.h"

static const struct fl_policy *policy = &fl_policy_fifo;

const struct fl_policy *fl_policy_for(uint32_t id)
{
	switch (id) {
	case FL_POLICY_FIFO:
		return &fl_policy_fifo;
	default:
		return NULL;
	}
}

int fl_evms_init(uint32_t policy_id, uint32_t capacity)
{
	policy = fl_policy_for(policy_id);
	if (!policy)
		return -EINVAL;
	return policy->init(capacity ? capacity : 1);
}

uintptr_t fl_evms_admit(uintptr_t page)
{
	FL_CHECK_LOG(FL_OP_PUSH, page, policy->count(), 0);
	return policy->admit(page);
}

void fl_evms_forget(uintptr_t start, uintptr_t end)
{
	FL_CHECK_LOG(FL_OP_FORGET, start, end, 0);
	policy->forget(start, end);
}

void fl_evms_relocate(uintptr_t from, uintptr_t to, size_t len)
{
	policy->relocate(from, to, len);
}

void fl_evms_clear(void)
{
	policy->clear();
}

uint32_t fl_evms_count(void)
{
	return policy->count();
}
