/*
 * evms.c: the evicted virtual mapping set (kVMTrace): the traced pages that are currently
 * enabled (mapped), and under the segq policies the trailing segment's disabled pages that
 * are still resident. Every other traced page is disabled (parked or never populated), so its
 * next reference faults and is recorded. Which page leaves when a new one enters is the
 * policy's choice: one ops table per policy (policy_*.c), chosen from the control block's
 * FL_CTL_POLICY. The fault loop (handler.c) and the engines only call these functions.
 * A policy says what leaves through two calls back: fl_evms_evicted (the eviction record, now)
 * and fl_evms_disable_later (a page to disable, which the caller of admit does, so that it
 * can hold the faulting thread when a disable meets a pending event). Agent lock held.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "fl_internal.h"

static const struct fl_policy *policy = &fl_policy_fifo;
static uintptr_t *to_disable;
static uint32_t to_disable_n, to_disable_cap;
static int silent; /* fl_evms_reset: entries leave without records */

const struct fl_policy *fl_policy_for(uint32_t id)
{
	switch (id) {
	case FL_POLICY_FIFO:
		return &fl_policy_fifo;
	case FL_POLICY_SEGQ_CLOCK:
		return &fl_policy_segq_clock;
	case FL_POLICY_SEGQ_FIFO:
		return &fl_policy_segq_fifo;
	default:
		return NULL;
	}
}

int fl_evms_init(uint32_t policy_id, uint32_t capacity, uint32_t lead_pages)
{
	policy = fl_policy_for(policy_id);
	if (!policy)
		return -EINVAL;
	if (!capacity)
		capacity = 1;
	/* one admission disables at most the lead's exit and every trailing entry the hand passes */
	to_disable_cap = capacity + 1;
	to_disable = fl_mem_map((size_t)to_disable_cap * sizeof(*to_disable));
	if (!to_disable)
		return -ENOMEM;
	to_disable_n = 0;
	return policy->init(capacity, lead_pages);
}

void fl_evms_evicted(uintptr_t page, uint32_t tid, char tag, int deleted)
{
	if (silent)
		return;
	fl_emit_event(FL_EV_EVICT, tid, page, (uint64_t)(unsigned char)tag, (uint64_t)deleted, 0, NULL, 0);
}

void fl_evms_disable_later(uintptr_t page)
{
	if (to_disable_n < to_disable_cap)
		to_disable[to_disable_n++] = page;
}

uint32_t fl_evms_admit(uintptr_t page, uint32_t tid, int write, const uintptr_t **disable)
{
	FL_CHECK_LOG(FL_OP_PUSH, page, policy->count(), 0);
	to_disable_n = 0;
	policy->admit(page, tid, write);
	*disable = to_disable;
	return to_disable_n;
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
	silent = 1;
	policy->clear();
	silent = 0;
}

uint32_t fl_evms_count(void)
{
	return policy->count();
}
