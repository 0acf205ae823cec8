/*
 * policy.h: what an EVMS policy is (policy_*.c): one ops table per policy, chosen from the
 * control block's FL_CTL_POLICY by evms.c, which every other room calls instead. A policy
 * writes the eviction record of each page that leaves (fl_emit_eviction, emit.h) and says
 * which pages its caller must disable; it disables nothing itself. Lock held.
 */
#ifndef FL_POLICY_H
#define FL_POLICY_H

#include <stdint.h>

enum { FL_EVMS_OUT = 0, FL_EVMS_DISABLED = 1, FL_EVMS_ENABLED = 2 }; /* a page's place */

struct fl_policy {
	const char *name;
	int (*init)(uint32_t capacity, uint32_t lead_pages);
	/* page was just enabled by a reference fault of tid: it enters the set. What leaves gets its
	 * eviction record now; returns how many pages the caller must disable, listed at *disable */
	uint32_t (*admit)(uintptr_t page, uint32_t tid, int write, const uintptr_t **disable);
	int (*state)(uintptr_t page);                 /* FL_EVMS_*, changes nothing */
	/* a fault that is no reference record: a disabled resident page is referenced again (it is
	 * enabled again, in place), or an enabled one written; returns the state before */
	int (*touch)(uintptr_t page, int write);
	int (*dirty)(uintptr_t page);                 /* resident and written */
	void (*delete)(uintptr_t start, uintptr_t end);  /* munmap/madvise/mremap: evicted in turn */
	/* [start, end) is about to be deleted by a call heard of only after it (engine.h, written):
	 * its enabled entries learn their dirty flag now, while their pages are still there */
	void (*learn)(uintptr_t start, uintptr_t end);
	void (*flush)(uintptr_t start, uintptr_t end);   /* untraced or disabled now: evicted now */
	void (*clear)(void);                             /* every page leaves now (exit, fork) */
	void (*reset)(void);                             /* every page forgotten, no records (a fork child's copy) */
	uint32_t (*count)(void);
};
extern const struct fl_policy fl_policy_fifo, fl_policy_segq_clock, fl_policy_segq_fifo;

#endif
