/*
 * policy.h: what an EVMS policy is (policy_*.c): one ops table per policy, chosen from the
 * control block's FL_CTL_POLICY by evms.c, which every other room calls instead. A policy
 * writes the eviction record of each page that leaves (fl_emit_eviction, emit.h) and says
 * which pages its caller must disable; it disables nothing itself. Lock held, but for decide and
 * target (the shared path, below).
 */
#ifndef FL_POLICY_H
#define FL_POLICY_H

#include <stdint.h>

enum { FL_EVMS_OUT = 0, FL_EVMS_DISABLED = 1, FL_EVMS_ENABLED = 2 }; /* a page's place */

/*
 * What a fault resolved without the agent lock is (fault.c, the shared path), as the policy
 * decides it in its own short critical section, and what its caller must then do. The seq of a
 * reference is taken inside that section, so that admissions are decided in the order of their
 * seqs: the trace equals the model of the policy in seq order (FORMAT.md, "EVMS").
 */
enum {
	FL_DECIDED_LOCK = 0,  /* the policy cannot decide this without the agent lock: take its path */
	FL_DECIDED_REFERENCE, /* a reference record: seq taken, the page admitted, out[] left */
	FL_DECIDED_SOFT,      /* no record: an entry's flag changed (a write to a page enabled by a read) */
	FL_DECIDED_RACE,      /* no record: the page is in the set already (another thread's fault brought it in) */
};
#define FL_DECISION_OUT 64 /* most pages one shared decision touches (the CLOCK hand's passes among them) */
/* a page whose entry a decision disabled or let go: its caller brings it in line with the set */
struct fl_decision_page {
	uintptr_t page;
	uint32_t entry; /* the policy's */
	uint8_t learn;  /* it stopped being enabled: say whether it was written (learned) */
};
/* an eviction record to write, with its tag as the entry's flags say once learned */
struct fl_decision_record {
	uintptr_t page;
	uint64_t seq; /* the clock after the reference that let it go */
	uint32_t tid; /* the thread whose reference brought it in */
	char tag;     /* 'r', 'w', 'R' or 'W' */
	uint8_t deleted;
};
struct fl_decision {
	uint64_t seq;            /* a reference's */
	uint32_t n_sync, n_out;
	struct fl_decision_page sync[FL_DECISION_OUT]; /* in order: the pages to bring in line */
	uint32_t out[FL_DECISION_OUT];                 /* the policy's entries that left, in order */
};

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
	/*
	 * The shared path (FL_DECIDED_*): a fault at page of tid (write: a write access; wp: a write to
	 * a page enabled read-only; admit: the page may enter the set). Under the policy's own section,
	 * never a system call; the agent lock is not held but excludes this.
	 */
	int (*decide)(uintptr_t page, uint32_t tid, int write, int wp, int admit, struct fl_decision *d);
	/* the caller moved p's page and learned whether it was written; 1 if that finished an
	 * eviction record another decision left to the last learner (written to *handed) */
	int (*learned)(const struct fl_decision_page *p, int written, struct fl_decision_record *handed);
	/* after every page of d is in line: d's eviction records (in order; those still learning are
	 * left to their learners), returns how many */
	uint32_t (*settle)(const struct fl_decision *d, struct fl_decision_record *out);
	/* the page's place now (FL_EVMS_*) and whether its entry is dirty: what its state must match */
	int (*target)(uintptr_t page, int *dirty);
};
extern const struct fl_policy fl_policy_fifo, fl_policy_segq_clock, fl_policy_segq_fifo;

#endif
