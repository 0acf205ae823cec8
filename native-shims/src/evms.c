/*
 * evms.c: the evicted virtual mapping set (kVMTrace): the FIFO of traced pages that are
 * currently enabled (mapped). Every other traced page is disabled (parked or never populated),
 * so its next reference faults and is recorded. Handler thread only.
 *
 * Also the pinned-page set: pages holding a thread descriptor (struct pthread). They stay
 * enabled and never enter the EVMS, because the kernel writes the descriptor's tid field at
 * thread exit (CLONE_CHILD_CLEARTID) from a task that is already exiting: userfaultfd cannot
 * make such a task wait, the write fails, and pthread_join would wait forever.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "fl_internal.h"

static uintptr_t *fifo;   /* ring of cap + 1 slots */
static uint32_t fifo_slots, fifo_cap, fifo_head, fifo_count;

int fl_evms_init(uint32_t capacity)
{
	if (capacity == 0)
		capacity = 1;
	fifo_slots = capacity + 1;
	fifo = fl_mem_map((size_t)fifo_slots * sizeof(*fifo));
	if (!fifo)
		return -ENOMEM;
	fifo_cap = capacity;
	return 0;
}

uint32_t fl_evms_count(void) { return fifo_count; }
uint32_t fl_evms_capacity(void) { return fifo_cap; }

void fl_evms_push(uintptr_t page)
{
	/* callers evict first when count == cap; the spare slot keeps this safe regardless */
	FL_CHECK_LOG(FL_OP_PUSH, page, fifo_count, 0);
	if (fifo_count == fifo_slots)
		fl_evms_pop();
	fifo[(fifo_head + fifo_count) % fifo_slots] = page;
	fifo_count++;
}

uintptr_t fl_evms_pop(void)
{
	if (!fifo_count)
		return 0;
	uintptr_t p = fifo[fifo_head];
	fifo_head = (fifo_head + 1) % fifo_slots;
	fifo_count--;
	return p;
}

/* compacts in place, keeping FIFO order; O(capacity), only on unmap/madvise/trace calls */
void fl_evms_forget(uintptr_t start, uintptr_t end)
{
	FL_CHECK_LOG(FL_OP_FORGET, start, end, 0);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < fifo_count; i++) {
		uintptr_t p = fifo[(fifo_head + i) % fifo_slots];
		if (p >= start && p < end)
			continue;
		fifo[(fifo_head + kept) % fifo_slots] = p;
		kept++;
	}
	fifo_count = kept;
}

void fl_evms_relocate(uintptr_t from, uintptr_t to, size_t len)
{
	for (uint32_t i = 0; i < fifo_count; i++) {
		uintptr_t *p = &fifo[(fifo_head + i) % fifo_slots];
		if (*p >= from && *p < from + len)
			*p = *p - from + to;
	}
}

void fl_evms_clear(void)
{
	fifo_head = 0;
	fifo_count = 0;
}

/* ---- pinned pages: a sorted array, binary searched on every fault ---- */

static uintptr_t *pins;
static uint32_t pin_n, pin_cap;

int fl_pins_init(uint32_t capacity)
{
	pins = fl_mem_map((size_t)capacity * sizeof(*pins));
	if (!pins)
		return -ENOMEM;
	pin_cap = capacity;
	return 0;
}

static uint32_t pin_lower(uintptr_t page)
{
	uint32_t lo = 0, hi = pin_n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (pins[mid] < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int fl_pins_has(uintptr_t page)
{
	if (!pin_n)
		return 0;
	uint32_t i = pin_lower(page);
	return i < pin_n && pins[i] == page;
}

void fl_pins_add(uintptr_t page)
{
	uint32_t i = pin_lower(page);
	if ((i < pin_n && pins[i] == page) || pin_n >= pin_cap)
		return;
	memmove(&pins[i + 1], &pins[i], (pin_n - i) * sizeof(*pins));
	pins[i] = page;
	pin_n++;
}

void fl_pins_forget(uintptr_t start, uintptr_t end)
{
	uint32_t a = pin_lower(start), b = pin_lower(end);
	if (b > a) {
		memmove(&pins[a], &pins[b], (pin_n - b) * sizeof(*pins));
		pin_n -= b - a;
	}
}

uint32_t fl_pins_collect(uintptr_t start, uintptr_t end, uintptr_t *out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t i = pin_lower(start); i < pin_n && pins[i] < end && n < max; i++)
		out[n++] = pins[i];
	return n;
}
