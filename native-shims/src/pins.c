/*
 * pins.c: the pinned-page set: pages holding a thread descriptor (struct pthread). They stay
 * enabled and never enter the EVMS, because the kernel writes the descriptor's tid field at
 * thread exit (CLONE_CHILD_CLEARTID) from a task that is already exiting: userfaultfd cannot
 * make such a task wait, the write fails, and pthread_join would wait forever. Agent lock held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "mem.h"
#include "pins.h"

/* a sorted array, binary searched on every fault */
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
