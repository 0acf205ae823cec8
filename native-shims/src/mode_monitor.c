/*
 * mode_monitor.c: monitor mode (FL_MODE_MONITOR, `faultline monitor`): DAMON's access checks, served from the
 * sampling board in shared memory (faultline_shm.h). The kernel's vaddr operations set checks
 * whether a page was accessed by clearing its PTE's accessed bit and reading it back one
 * sampling interval later (mm/damon/vaddr.c, damon_va_mkold / damon_va_young). User space
 * cannot read accessed bits, so here a check disables the page (moves it to its parking slot,
 * as the EVMS does) and an access is the fault that brings it home. The program's data stays
 * intact and kernel-mode accesses (read(2) into the page) wait for the handler and succeed.
 *
 * In monitor mode nothing else is ever disabled and no reference is recorded. The agent keeps
 * its range table (what scope all would trace) and parking areas, but registers a page with
 * userfaultfd only while it is armed: a registered range traps every first touch, a handoff
 * each that checks nothing (it made `sort` 3.5 times slower under monitoring, all of it first
 * touches). So the only faults are accesses to armed pages. Without registration the kernel
 * sends no unmap event for memory that is not armed, and the range table may keep a range the
 * program has unmapped: arming a page there is refused by UFFDIO_REGISTER (no mapping, or not
 * private anonymous) or, if the program mapped anonymous memory there again, checks that
 * memory, which is right; a page the agent itself has mapped since is never armed.
 * A check is the engine's watch and unwatch (engine.h); only the userfaultfd engines have them.
 * Under the sigbus engine a check is answered on the touching thread (a SIGBUS there), and a
 * kernel-mode access to a checked page fails unless the calls that make one touch their
 * buffers first (hooks/touch.c), as when recording under that engine; the mprotect engine has no
 * checks, since every check would split a mapping twice. Agent lock held throughout, but for a
 * check's answer on the faulting thread (monitor_enabled).
 *
 * The sampling interval is the agent's: the recorder posts an ARM with the interval, and the
 * guard's deadline loop (guard.c, this mode's run) closes the window that long after arming, as
 * kdamond sleeps one sampling interval between damon_va_prepare_access_checks and
 * damon_va_check_accesses. The recorder's core only waits for the close (the board's closed
 * word), with no request of its own and no wake-up of the guard for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "faultline_shm.h"
#include "engine.h"
#include "lock.h"
#include "mem.h"
#include "mode.h"
#include "pins.h"
#include "ranges.h"
#include "scope.h"
#include "state.h"
#include "sys.h"

static uint8_t *board;
static uint32_t capacity;
static uint32_t served;
/* pages armed by the last ARM: an open-addressing set page -> entry index + 1 */
static uintptr_t *keys;
static uint32_t *vals;
static uint8_t *hit;        /* per table slot: its page faulted since the ARM */
static uint32_t table_size; /* power of two, at least twice the board's entries */
static uint64_t checks;
/* the window the last ARM opened: faults count while open; the deadline loop closes it */
static int window_open;
static uint64_t close_due;  /* fl_now_ns(), 0 = no window to close */
static uint32_t window_req; /* the ARM's request number, published in closed */

static inline uint32_t u32_at(size_t off) { uint32_t v; memcpy(&v, board + off, 4); return v; }
static inline void put_u32(size_t off, uint32_t v) { memcpy(board + off, &v, 4); }
static inline uint8_t *entry(uint32_t i) { return board + FL_BOARD_HEADER_SIZE + (size_t)i * FL_BOARD_ENTRY_SIZE; }

static uint32_t slot_of(uintptr_t page)
{
	uint64_t h = (uint64_t)(page >> 12) * 0x9E3779B97F4A7C15ULL;
	return (uint32_t)(h >> 32) & (table_size - 1);
}

static void table_clear(void)
{
	memset(keys, 0, (size_t)table_size * sizeof(*keys));
	memset(hit, 0, table_size);
}

/*
 * The guard alone writes the table, under the agent lock; a check's fault reads it on its thread,
 * also while an ARM fills it (arm): a slot's value is stored before its key, and a key read
 * with acquire. Nothing is taken out while a window is open (table_void keeps the key), and the
 * table is cleared only with shared faults excluded.
 */
static uint32_t table_put(uintptr_t page, uint32_t index)
{
	uint32_t s = slot_of(page);
	while (keys[s] && keys[s] != page)
		s = (s + 1) & (table_size - 1);
	__atomic_store_n(&vals[s], index + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&keys[s], page, __ATOMIC_RELEASE);
	return s;
}

/* the table slot of page, or table_size if it is not in the table */
static uint32_t table_find(uintptr_t page)
{
	uintptr_t k;
	for (uint32_t s = slot_of(page); (k = __atomic_load_n(&keys[s], __ATOMIC_ACQUIRE)); s = (s + 1) & (table_size - 1))
		if (k == page)
			return s;
	return table_size;
}

/* the entry index + 1 of an armed page, else 0 */
static uint32_t table_get(uintptr_t page)
{
	uint32_t s = table_find(page);
	return s == table_size ? 0 : __atomic_load_n(&vals[s], __ATOMIC_RELAXED);
}

/* the page put in at slot s could not be armed: not armed after all */
static void table_void(uint32_t s)
{
	__atomic_store_n(&vals[s], 0, __ATOMIC_RELAXED);
}

/*
 * Monitoring, scope all: mappings made behind the interposed calls (a thread's stack, a
 * library's .bss from dlopen) are found by a rescan of every mapping this often, DAMON's
 * default operations-update interval, at which the monitor reads the traced set again anyway.
 * Tracing needs no such timer: it rescans at each thread start (serve.c, on_thread_start).
 */
#define RESCAN_NS (1000ULL * 1000 * 1000)
static uint64_t rescan_due; /* fl_now_ns(), 0 = never */

/* after the slot is claimed: the board of this slot */
static int monitor_start(int wake_fd)
{
	board = NULL;
	if (!fl_engine->watch || !fl_engine->unwatch) {
		fl_log("monitor mode needs an engine that checks accesses, not the ", fl_engine->name, " engine");
		return -ENOTSUP;
	}
	rescan_due = fl_agent.scope == FL_SCOPE_ALL ? fl_now_ns() + RESCAN_NS : 0;
	capacity = *fl_ctl32(FL_CTL_BOARD_ENTRIES);
	if (!capacity)
		return -EINVAL;
	if (!keys) {
		for (table_size = 64; table_size < 2 * capacity; table_size <<= 1)
			;
		keys = fl_mem_map((size_t)table_size * sizeof(*keys));
		vals = fl_mem_map((size_t)table_size * sizeof(*vals));
		hit = fl_mem_map(table_size);
		if (!keys || !vals || !hit)
			return -ENOMEM;
	}
	table_clear();
	board = fl_agent.shm + *fl_ctl64(FL_CTL_BOARD_OFFSET) + (uint64_t)fl_agent.slot_index * *fl_ctl64(FL_CTL_BOARD_STRIDE);
	/* a reused slot: answer from where its previous owner stopped */
	served = __atomic_load_n((uint32_t *)(board + FL_BOARD_REQUEST), __ATOMIC_ACQUIRE);
	window_open = 0;
	close_due = 0;
	put_u32(FL_BOARD_WAKE_FD, (uint32_t)wake_fd);
	__atomic_store_n((uint32_t *)(board + FL_BOARD_DONE), served, __ATOMIC_RELEASE);
	return 0;
}

static int monitor_pending(void)
{
	return board && __atomic_load_n((uint32_t *)(board + FL_BOARD_REQUEST), __ATOMIC_ACQUIRE) != served;
}

/*
 * A fault at page was just resolved (the page is home): was it a check? Under the agent lock, or
 * on the faulting thread without it (fault.c, the shared path: checks of different threads do not
 * wait for each other), where the table and the window only change under the lock, which
 * excludes it: the hit and the count are taken atomically.
 */
static void monitor_enabled(uintptr_t page, int r, int pinned)
{
	(void)r;
	(void)pinned;
	if (!window_open)
		return; /* an access after the window closed: the page is coming home, it does not count */
	uint32_t s = table_find(page);
	uint32_t v = s == table_size ? 0 : __atomic_load_n(&vals[s], __ATOMIC_RELAXED);
	if (!v || __atomic_exchange_n(&hit[s], 1, __ATOMIC_RELAXED))
		return;
	__atomic_add_fetch(&checks, 1, __ATOMIC_RELAXED);
	__atomic_store_n((uint32_t *)(entry(v - 1) + FL_BOARD_ENTRY_ACCESSED), 1, __ATOMIC_RELEASE);
}

/*
 * Pages armed earlier that could not come home yet (an event was pending): they stay
 * registered, so the program's access still faults and is resolved, and are retried.
 */
#define STUCK_MAX 256
static uintptr_t stuck[STUCK_MAX];
static uint32_t stuck_n;

/* page home (if parked) and unregistered; 0, or -EAGAIN if it is still parked */
static int release(uintptr_t page)
{
	return fl_engine->unwatch(page);
}

static void retry_stuck(void)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < stuck_n; i++)
		if (release(stuck[i]) == -EAGAIN)
			stuck[kept++] = stuck[i];
	stuck_n = kept;
}

/*
 * Bring home the previous ARM's pages that nobody accessed, and unregister them all. between,
 * when given, runs between two pages here and in arm (the guard's: resolves the faults queued so
 * far and wakes their threads). An ARM of many regions takes a while, and a hot page armed at
 * its start is accessed at once: without it that page's thread waited for the whole ARM, and
 * that wait, not the fault, was most of what a check cost.
 */
static void disarm(void (*between)(void))
{
	retry_stuck();
	for (uint32_t s = 0; s < table_size; s++) {
		if (!keys[s] || !vals[s]) /* none, or not armed (table_void) */
			continue;
		if (release(keys[s]) == -EAGAIN && stuck_n < STUCK_MAX)
			stuck[stuck_n++] = keys[s];
		if (between)
			between();
		/* past STUCK_MAX the page stays registered and parked; its next access brings it home */
	}
	if (fl_engine->unwatched)
		fl_engine->unwatched();
	table_clear();
}

static void arm(uint32_t count, void (*between)(void))
{
	/*
	 * Where checks are answered on the faulting threads (the sigbus engine), beside them: a hot
	 * page armed first is touched at once, and its fault went to the lock's path and waited for
	 * the rest of the ARM, a futex wait and wake each (a quarter of what a check cost hot_touch's
	 * thread under perf; BENCHMARKS.md, "Checks brought home by copy"). What such a fault reads
	 * is ready before its page can fault: the window is open, the page is in the table before it
	 * is armed, and the engine moves it out under its page lock (engine.h, watch).
	 */
	int beside = fl_engine->shared && fl_engine->shared();
	if (beside) {
		fl_lock_share();
		between = NULL; /* taking the lock again would exclude them (lock.h) */
	}
	uint32_t armed = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint8_t *e = entry(i);
		uint64_t address;
		memcpy(&address, e + FL_BOARD_ENTRY_ADDRESS, 8);
		uintptr_t page = FL_PAGE_DOWN(address);
		uint32_t state, zero = 0;
		memcpy(e + FL_BOARD_ENTRY_ACCESSED, &zero, 4);
		if (!fl_range_find(page))
			state = FL_SAMPLE_UNTRACED;
		else if (table_get(page))
			state = FL_SAMPLE_ARMED; /* two entries on one page: the first one's check answers */
		else if (fl_pins_has(page) || fl_pins_held(page) || fl_mem_is_agent(page, page + FL_PAGE))
			state = FL_SAMPLE_BUSY; /* pinned, agent memory, or in use by a system call (gate.c): never disabled */
		else {
			uint32_t s = table_put(page, i); /* before it can fault: a fault on it now counts */
			if (fl_engine->watch(page) != 0) {
				table_void(s);
				state = FL_SAMPLE_BUSY; /* unmapped since, no longer private anonymous, held, or an event pending */
			} else {
				state = FL_SAMPLE_ARMED;
				if (between)
					between();
			}
		}
		if (state == FL_SAMPLE_ARMED)
			armed++;
		memcpy(e + FL_BOARD_ENTRY_STATE, &state, 4);
	}
	put_u32(FL_BOARD_ARMED, armed);
	if (beside)
		fl_lock_exclusive();
}

/*
 * Close the window the last ARM opened (monitor_run, sample_us after the ARM). The caller has read and resolved every fault queued by now, so the answer holds
 * every access that faulted in the window; later ones do not count. Entries that share a page
 * get the first one's answer; the pages nobody accessed come home now rather than at the next
 * ARM, so that an access between two windows costs the program nothing.
 */
static void sample_close(void (*between)(void))
{
	if (!board || !close_due)
		return;
	window_open = 0;
	close_due = 0;
	uint32_t count = u32_at(FL_BOARD_COUNT);
	if (count > capacity)
		count = capacity;
	for (uint32_t i = 0; i < count; i++) {
		uint8_t *e = entry(i);
		uint64_t address;
		memcpy(&address, e + FL_BOARD_ENTRY_ADDRESS, 8);
		uint32_t v = table_get(FL_PAGE_DOWN(address));
		if (v && v - 1 != i)
			memcpy(e + FL_BOARD_ENTRY_ACCESSED, entry(v - 1) + FL_BOARD_ENTRY_ACCESSED, 4);
	}
	uint64_t c = checks;
	memcpy(board + FL_BOARD_CHECKS, &c, 8);
	__atomic_store_n((uint32_t *)(board + FL_BOARD_CLOSED), window_req, __ATOMIC_RELEASE);
	fl_futex_wake_shared((uint32_t *)(board + FL_BOARD_CLOSED));
	disarm(between); /* after the answer: the recorder reads it while the pages come home */
}

/*
 * Serve the posted request, if any. An ARM arrives while no window is open (the recorder
 * waits for the close before it asks again); should one be open all the same, it closes first.
 */
static void sample_serve(void (*between)(void))
{
	if (!monitor_pending())
		return;
	uint32_t req = __atomic_load_n((uint32_t *)(board + FL_BOARD_REQUEST), __ATOMIC_ACQUIRE);
	uint32_t op = u32_at(FL_BOARD_OP), count = u32_at(FL_BOARD_COUNT);
	if (count > capacity)
		count = capacity;
	if (op == FL_SAMPLE_ARM) {
		sample_close(between);
		disarm(between);
		/* open before arming: a page armed first may be accessed while the rest are armed */
		window_open = 1;
		window_req = req;
		arm(count, between);
		uint32_t us = u32_at(FL_BOARD_SAMPLE_US);
		close_due = fl_now_ns() + (uint64_t)(us ? us : 1) * 1000;
	} else if (op == FL_SAMPLE_MADVISE) {
		/*
		 * Only advice that raises no userfaultfd event (hugepage, nohugepage): the guard would
		 * otherwise wait for itself. The recorder sends nothing else this way.
		 */
		uint64_t s, len;
		uint32_t advice;
		memcpy(&s, board + FL_BOARD_MADV_START, 8);
		memcpy(&len, board + FL_BOARD_MADV_LEN, 8);
		memcpy(&advice, board + FL_BOARD_MADV_ADVICE, 4);
		int32_t r = -EINVAL;
		if (advice == MADV_HUGEPAGE || advice == MADV_NOHUGEPAGE)
			r = fl_sys_madvise((void *)(uintptr_t)s, len, (int)advice) < 0 ? -errno : 0;
		memcpy(board + FL_BOARD_MADV_RESULT, &r, 4);
	}
	uint64_t c = checks;
	memcpy(board + FL_BOARD_CHECKS, &c, 8);
	served = req;
	__atomic_store_n((uint32_t *)(board + FL_BOARD_DONE), req, __ATOMIC_RELEASE);
	/* a shared futex: the waiter is the recorder, another process */
	fl_futex_wake_shared((uint32_t *)(board + FL_BOARD_DONE));
}

/* teardown: every armed page home */
static void monitor_stop(void)
{
	if (board) {
		disarm(NULL); /* teardown: nothing is resolved in between */
		retry_stuck();
	}
	window_open = 0;
	close_due = 0;
	board = NULL;
}

static uint64_t monitor_due(void)
{
	uint64_t due = board ? close_due : 0;
	if (rescan_due && (!due || rescan_due < due))
		due = rescan_due;
	return due;
}

/*
 * The guard: the periodic rescan, and a window's close or the recorder's request. A window's
 * answer must hold every access that faulted before it closed: the queued faults first.
 */
static void monitor_run(uint64_t now, void (*resolve)(void), void (*between)(void))
{
	if (rescan_due && rescan_due <= now) {
		rescan_due = now + RESCAN_NS;
		fl_scope_rescan();
	}
	int closing = board && close_due && close_due <= now;
	if (!closing && !monitor_pending())
		return;
	resolve();
	if (closing)
		sample_close(between);
	sample_serve(between);
}

const struct fl_mode fl_mode_monitor = {
	.name = "monitor",
	.flags = FL_CHECKS_ONLY | FL_KEEPS_THP | FL_NOTICES_ASYNC | FL_RESCANS_ON_TIMER | FL_SHARES_FAULTS,
	.start = monitor_start,
	.enabled = monitor_enabled,
	.due = monitor_due,
	.pending = monitor_pending,
	.run = monitor_run,
	.stop = monitor_stop,
};
