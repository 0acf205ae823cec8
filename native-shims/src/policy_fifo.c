/*
 * policy_fifo.c: FIFO, kVMTrace's first EVMS policy (Kaplan, Smaragdakis and Wilson, "Flexible
 * reference trace reduction for VM simulations", ACM TOMACS 2003): the page enabled longest ago
 * is disabled when a new one enters a full set. Agent lock held.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "fl_internal.h"

static uintptr_t *fifo;   /* ring of cap slots */
static uint32_t fifo_cap, fifo_head, fifo_count;

static int fifo_init(uint32_t capacity)
{
	fifo = fl_mem_map((size_t)capacity * sizeof(*fifo));
	if (!fifo)
		return -ENOMEM;
	fifo_cap = capacity;
	return 0;
}

static uintptr_t fifo_admit(uintptr_t page)
{
	uintptr_t victim = 0;
	if (fifo_count == fifo_cap) {
		victim = fifo[fifo_head];
		fifo_head = (fifo_head + 1) % fifo_cap;
		fifo_count--;
	}
	fifo[(fifo_head + fifo_count) % fifo_cap] = page;
	fifo_count++;
	return victim;
}

/* compacts in place, keeping FIFO order; O(capacity), only on unmap/madvise/trace calls */
static void fifo_forget(uintptr_t start, uintptr_t end)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < fifo_count; i++) {
		uintptr_t p = fifo[(fifo_head + i) % fifo_cap];
		if (p >= start && p < end)
			continue;
		fifo[(fifo_head + kept) % fifo_cap] = p;
		kept++;
	}
	fifo_count = kept;
}

static void fifo_relocate(uintptr_t from, uintptr_t to, size_t len)
{
	for (uint32_t i = 0; i < fifo_count; i++) {
		uintptr_t *p = &fifo[(fifo_head + i) % fifo_cap];
		if (*p >= from && *p < from + len)
			*p = *p - from + to;
	}
}

static void fifo_clear(void)
{
	fifo_head = 0;
	fifo_count = 0;
}

static uint32_t fifo_size(void)
{
	return fifo_count;
}

const struct fl_policy fl_policy_fifo = {
	.name = "fifo",
	.init = fifo_init,
	.admit = fifo_admit,
	.forget = fifo_forget,
	.relocate = fifo_relocate,
	.clear = fifo_clear,
	.count = fifo_size,
};
