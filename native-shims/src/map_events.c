/*
 * map_events.c: mapping events (kernel fact 9, docs/ARCHITECTURE.md). An unmap forgets the
 * range's pages (the EVMS keeps them until their turn, kVMTrace's deleted pages), a remove
 * (madvise DONTNEED, FREE, REMOVE) drops their saved contents, a remap moves the range; each is
 * recorded as its event. The fault path applies them in the order read (fault.c), before any
 * fault of the same batch is resolved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "faultline_shm.h"
#include "emit.h"
#include "engine.h"
#include "evms.h"
#include "map_events.h"
#include "mode.h"
#include "ranges.h"
#include "request.h"
#include "scope.h"
#include "state.h"
#include "sys.h"

struct hint {
	uint32_t state;   /* 0 free, 1 filling, 2 posted, 3 posted and used by an event */
	uint32_t kind;    /* FL_HINT_* */
	uint32_t evented; /* the call's range raises userfaultfd's events (events_raised) */
	uint64_t start, len, value;
};
#define HINTS 64
static struct hint hints[HINTS];

/* whether a call on [start, start + len) raises userfaultfd's events: the handler's userfaultfd
 * registered it (every traced range, unless only checked pages are) */
static int events_raised(uint64_t start, uint64_t len)
{
	uintptr_t page = FL_PAGE_DOWN(start);
	return len && (fl_engine->observes & FL_OBSERVES_MAP_EVENTS) && !(fl_mode->flags & FL_CHECKS_ONLY) &&
	       fl_ranges_cover(page, page + FL_PAGE);
}

int fl_map_zaps(long advice)
{
	return advice == MADV_DONTNEED || advice == MADV_DONTNEED_LOCKED || advice == MADV_FREE || advice == MADV_REMOVE;
}

int fl_hint_post(uint32_t kind, uint64_t start, uint64_t len, uint64_t value)
{
	for (int i = 0; i < HINTS; i++) {
		uint32_t expect = 0;
		if (__atomic_compare_exchange_n(&hints[i].state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			hints[i].kind = kind;
			hints[i].evented = events_raised(start, len);
			hints[i].start = start;
			hints[i].len = len;
			hints[i].value = value;
			__atomic_store_n(&hints[i].state, 2, __ATOMIC_RELEASE);
			return i;
		}
	}
	return -1;
}

int fl_hint_take(int i)
{
	if (i < 0)
		return 0;
	uint32_t st = __atomic_load_n(&hints[i].state, __ATOMIC_ACQUIRE);
	__atomic_store_n(&hints[i].state, 0, __ATOMIC_RELEASE);
	return st == 3;
}

int fl_hint_take_said(int i)
{
	if (i < 0 || !hints[i].evented)
		return fl_hint_take(i);
	/* bounded: a range the table covered but userfaultfd no longer did raises no event */
	uint64_t until = fl_now_ns() + 100000000ULL;
	while (__atomic_load_n(&hints[i].state, __ATOMIC_ACQUIRE) != 3 && fl_now_ns() <= until)
		fl_syscall(SYS_sched_yield);
	return fl_hint_take(i);
}

void fl_hints_reset(void)
{
	memset(hints, 0, sizeof(hints));
}

static struct hint *hint_find(uint32_t kind, uint64_t s, uint64_t e)
{
	for (int i = 0; i < HINTS; i++) {
		struct hint *h = &hints[i];
		uint32_t st = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
		if ((st == 2 || st == 3) && h->kind == kind && s >= FL_PAGE_DOWN(h->start) &&
		    e <= FL_PAGE_UP(h->start + h->len))
			return h;
	}
	return NULL;
}

/*
 * What a call's hint says of its event, taken into the trap (REMOVE: c, the advice; REMAP: d,
 * the new length), the hint marked used. The call may return and withdraw its hint as soon as
 * the handler has read the event (userfaultfd_event_wait_completion), so this runs on the traps
 * just read, before anything else is done with them: the call waits only that long
 * (fl_hint_take_said), not until the event is applied behind the batch's earlier faults.
 */
static void take_hint(struct fl_trap *t)
{
	if (t->flags & FL_TRAP_HINTED)
		return; /* a hint posted since belongs to a later call */
	t->flags |= FL_TRAP_HINTED;
	if (t->kind == FL_TRAP_REMOVE && !t->c) {
		struct hint *h = hint_find(FL_HINT_MADVISE, t->a, t->b);
		if (h) {
			t->c = h->value;
			__atomic_store_n(&h->state, 3, __ATOMIC_RELEASE);
		}
	} else if (t->kind == FL_TRAP_REMAP && !t->d) {
		struct hint *h = hint_find(FL_HINT_MREMAP, t->a, t->a + t->c);
		if (h && FL_PAGE_DOWN(h->start) == t->a) {
			t->d = h->value;
			__atomic_store_n(&h->state, 3, __ATOMIC_RELEASE);
		}
	}
}

void fl_map_events_read(struct fl_trap *t, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (t[i].kind != FL_TRAP_FAULT)
			take_hint(&t[i]);
}

void fl_map_event(const struct fl_trap *trap)
{
	struct fl_trap t = *trap;
	take_hint(&t); /* a trap said by a call (fl_map_say) while its hint is posted */
	switch (t.kind) {
	case FL_TRAP_UNMAP: {
		uintptr_t s = t.a, e = t.b;
		fl_engine->untrace(s, e, 1);
		fl_scope_unretire(s, e);
		fl_emit_event(FL_EV_MUNMAP, 0, s, e - s, 0, 0, NULL, 0);
		break;
	}
	case FL_TRAP_REMOVE: {
		/*
		 * madvise(DONTNEED/FREE/REMOVE) is about to zap [s, e): parked copies must go too,
		 * or a later fault would bring back stale data; enabled pages leave the EVMS (they
		 * will be empty). userfaultfd does not say which advice it was: the call's hint does
		 * (take_hint); a call the gate said brings its advice along; a raw call under uffd
		 * without the gate, which no one saw, is said as DONTNEED.
		 */
		uintptr_t s = t.a, e = t.b;
		fl_evms_delete(s, e);
		fl_engine->discard(s, e);
		fl_emit_event(FL_EV_MADVISE, 0, s, e - s, t.c ? t.c : MADV_DONTNEED, 0, NULL, 0);
		break;
	}
	case FL_TRAP_REMAP: {
		uintptr_t from = t.a, to = t.b, len = t.c;
		fl_engine->relocate(from, to, len);
		fl_emit_event(FL_EV_MREMAP, 0, from, len, to, t.d ? t.d : len, NULL, 0);
		break;
	}
	default:
		break;
	}
	fl_counters_publish();
}

int fl_map_says_events(void)
{
	return !(fl_engine->observes & FL_OBSERVES_MAP_EVENTS) && fl_tracing();
}

void fl_map_say(uint32_t kind, uint64_t a, uint64_t b, uint64_t c)
{
	if (kind == FL_TRAP_REMAP || b > a)
		fl_req_call(FL_REQ_MAP_EVENT, kind, a, b, c); /* raw system calls only: errno untouched */
}

/*
 * Asynchronous dirty tracking keeps the written bit in the page table, and a zap or a move
 * drops it (a moved page reads written in its new place), so before a call that zaps or moves
 * pages and is heard of only after it (userfaultfd's events; madvise and mremap under the
 * in-thread engines) the EVMS reads the bits of the range (serve.c, on_learn_dirty). The
 * system-call gate asks for every such call (gate.c), the interposed calls only with the gate
 * off (hooks/interpose.c).
 */
void fl_map_learn_dirty_before(uintptr_t addr, size_t len)
{
	if (!fl_engine->writes_async || !fl_engine->writes_async() || !fl_tracing() || !len || (addr & (FL_PAGE - 1)))
		return;
	int saved = errno;
	fl_req_call(FL_REQ_LEARN_DIRTY, addr, FL_PAGE_UP(addr + len), 0, 0);
	errno = saved;
}
