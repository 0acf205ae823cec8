/*
 * pins.c: the pinned-page set: pages holding a thread descriptor (struct pthread). They stay
 * enabled and never enter the EVMS, because the kernel writes the descriptor's tid field at
 * thread exit (CLONE_CHILD_CLEARTID) from a task that is already exiting: userfaultfd cannot
 * make such a task wait, the write fails, and pthread_join would wait forever. Agent lock held,
 * but for the held pages, which the gate holds and releases without it too (their own lock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "mem.h"
#include "pins.h"

/* a sorted array, binary searched on every fault */
static uintptr_t *pins;
static uint32_t pin_n, pin_cap;

/*
 * Held pages: every page of user memory a system call reads or writes, from before the gate
 * brings it in until the call returns (gate.c). The page stays in the EVMS as the policy
 * decides, with its eviction record when the policy lets it go, but the eviction itself (the
 * disabling) waits until no call holds the page: under the in-thread engines a kernel-mode
 * access to a disabled page fails with EFAULT, and a call waiting in the kernel (poll, futex,
 * wait4) writes its results when it wakes up, long after the gate's touch. The gate disables a
 * page the EVMS no longer holds when its last call releases it. An open-addressed table of
 * page and count, linear probing, deletion by backward shift (Knuth, TAOCP vol. 3, 6.4,
 * Algorithm R).
 */
#define HELD_SLOTS (1u << 16)
static struct held {
	uintptr_t page; /* 0: free */
	uint32_t count;
} *held;
static uint32_t held_n;
/*
 * The held table's own lock: the system-call gate holds and releases pages without the agent lock
 * too (gate.c, beside faults resolved without it), each call a few probes of the table. Under the
 * agent lock nobody else holds or releases (the lock excludes them), so its readers there (the
 * runs a range is disabled in) need not take it.
 */
static int held_lock;

static uint32_t held_hash(uintptr_t page)
{
	return (uint32_t)((page >> 12) * 0x9E3779B97F4A7C15ull >> 48) & (HELD_SLOTS - 1);
}

static struct held *held_find(uintptr_t page)
{
	for (uint32_t i = held_hash(page);; i = (i + 1) & (HELD_SLOTS - 1)) {
		if (held[i].page == page || !held[i].page)
			return &held[i];
	}
}

int fl_pins_held(uintptr_t page)
{
	if (!__atomic_load_n(&held_n, __ATOMIC_ACQUIRE))
		return 0;
	fl_spin_lock(&held_lock);
	int r = held_find(page)->page == page;
	fl_spin_unlock(&held_lock);
	return r;
}

int fl_pins_hold(uintptr_t page)
{
	fl_spin_lock(&held_lock);
	struct held *h = held_find(page);
	int r = 0;
	if (h->page == page) {
		h->count++;
	} else if (held_n >= HELD_SLOTS / 2) { /* kept half empty: probes stay short */
		r = -ENOSPC;
	} else {
		h->page = page;
		h->count = 1;
		__atomic_store_n(&held_n, held_n + 1, __ATOMIC_RELEASE);
	}
	fl_spin_unlock(&held_lock);
	return r;
}

static int release_locked(uintptr_t page);

int fl_pins_release(uintptr_t page)
{
	fl_spin_lock(&held_lock);
	int r = release_locked(page);
	fl_spin_unlock(&held_lock);
	return r;
}

static int release_locked(uintptr_t page)
{
	struct held *h = held_find(page);
	if (h->page != page)
		return 0;
	if (--h->count)
		return 0;
	/* backward shift: later entries of the probe run move into the hole they could occupy */
	uint32_t i = (uint32_t)(h - held);
	for (uint32_t j = (i + 1) & (HELD_SLOTS - 1); held[j].page; j = (j + 1) & (HELD_SLOTS - 1)) {
		uint32_t k = held_hash(held[j].page);
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			held[i] = held[j];
			i = j;
		}
	}
	held[i].page = 0;
	held[i].count = 0;
	__atomic_store_n(&held_n, held_n - 1, __ATOMIC_RELEASE);
	return 1;
}

void fl_pins_held_reset(void)
{
	if (held)
		memset(held, 0, HELD_SLOTS * sizeof(*held));
	held_n = 0;
	held_lock = 0; /* a fork child: another thread of the parent may have held it */
}

int fl_pins_init(uint32_t capacity)
{
	pins = fl_mem_map((size_t)capacity * sizeof(*pins));
	if (!held)
		held = fl_mem_map(HELD_SLOTS * sizeof(*held));
	if (!pins || !held)
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

/* the first pinned or held page of [from, e), else e */
static uintptr_t next_excluded(uintptr_t from, uintptr_t e)
{
	uintptr_t next = e;
	uint32_t i = pin_lower(from);
	if (i < pin_n && pins[i] < next)
		next = pins[i];
	if (!held_n)
		return next;
	if ((next - from) / FL_PAGE < HELD_SLOTS) {
		for (uintptr_t p = from; p < next; p += FL_PAGE)
			if (held_find(p)->page == p)
				return p;
	} else {
		for (uint32_t k = 0; k < HELD_SLOTS; k++)
			if (held[k].page >= from && held[k].page < next)
				next = held[k].page;
	}
	return next;
}

/*
 * The runs of [s, e) an engine may disable, and the pinned and held pages between them, which
 * it must leave enabled: never disabled, not even for a moment between disabling a whole range
 * and enabling its pins again. A call waiting in the kernel (poll, futex, wait4) writes its
 * results whenever it wakes up, and met that moment now and then: poll failed with EFAULT when
 * a rescan registered the mapping of its pollfd array (mapped while a thread was starting,
 * scope.c) during the wait, 1 run in about 24 of waits_while_evicting under load. A range of
 * fewer pages than the held table has slots is probed page by page while some call holds a
 * page; a larger one has the table scanned once per held page in it: few, since a range being
 * disabled is new or being emptied.
 */
void fl_pins_around(uintptr_t s, uintptr_t e, void (*run)(uintptr_t a, uintptr_t b, void *ctx),
		    void (*kept)(uintptr_t page, void *ctx), void *ctx)
{
	while (s < e) {
		uintptr_t x = next_excluded(s, e);
		if (x > s)
			run(s, x, ctx);
		if (x < e && kept)
			kept(x, ctx);
		s = x + FL_PAGE;
	}
}
