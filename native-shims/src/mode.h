/*
 * mode.h: what a mode is: what the agent does with the faults its engine traps. One ops table
 * per mode (mode_*.c), chosen from the control block's FL_CTL_MODE when a session starts
 * (agent.c), as engines and
 * policies are: the fault path, the request handlers, the guard, the engines and the
 * interposers ask the mode only through this table and its capability flags, never which mode
 * runs. Every op may be NULL (nothing to do); all run with the agent lock held but start, count
 * and settle.
 */
#ifndef FL_MODE_H
#define FL_MODE_H

#include "emit.h"

struct fl_range; /* ranges.h */

#define FL_KEEPS_EVMS       1u  /* a reference brings its page into the EVMS, whose policy names the victims */
#define FL_TRACKS_DIRTY     2u  /* a page enabled by a read comes back write-protected: its first write faults too
                                 * (record --no-dirty turns it off) */
#define FL_CHECKS_ONLY      4u  /* only pages under an access check are disabled and registered (watch, engine.h) */
#define FL_KEEPS_THP        8u  /* the program's transparent huge pages stay as they are */
#define FL_NOTICES_ASYNC    16u /* program threads post their notices (mappings, threads) without waiting for them */
#define FL_RESCANS_ON_TIMER 32u /* every mapping is rescanned on a timer: a thread start registers its stack's only */
/* a fault may be resolved without the agent lock, on the faulting thread (fault.c, the shared path):
 * its record is its reference record alone and the EVMS decides the rest (trace), it is counted in its
 * thread's chunk (Moca: the count and settle ops), or it is an access check whose answer is one atomic
 * mark (monitor) */
#define FL_SHARES_FAULTS    64u

struct fl_mode {
	const char *name;
	uint32_t flags; /* FL_KEEPS_EVMS ... */
	/* handler start, lock not held: tables (once per image) and deadlines; wake_fd: an eventfd
	 * that wakes the guard; 0, or -errno after saying why on stderr */
	int (*start)(int wake_fd);
	void (*reset)(void); /* a fork child or a new session: what the tables hold is another image's */
	/* faults read, labelled (FL_REC_*), in order; soft ones are no reference records */
	void (*faults)(const struct fl_fault *f, uint32_t n);
	/* a fault's page was enabled: the engine's enable result r (1: by us), pinned: never in the EVMS */
	void (*enabled)(uintptr_t page, int r, int pinned);
	/*
	 * The shared path, without the lock (NULL: the mode counts no fault there). count: the fault
	 * as read (labelled SOFT_DIRTY for a write-protect fault, else not soft; its first touch
	 * learned here from r, its page's range) counted as faults() counts it, and room kept for its
	 * page as enabled() keeps it (*ticket); 0: a table is full, nothing was done, the lock's path
	 * must take the fault. settle: the counted fault's page was resolved, r and pinned as for
	 * enabled() (r < 1: the room stays empty).
	 */
	int (*count)(struct fl_range *r, const struct fl_fault *f, uint32_t *ticket);
	void (*settle)(uint32_t ticket, uintptr_t page, int r, int pinned);
	/* the image ends (exec, normal exit, teardown): what the mode holds of it is written */
	void (*image_ends)(void);
	/* the guard, without the lock: the mode's next deadline (fl_now_ns; 0 none), and whether a
	 * request of the mode waits */
	uint64_t (*due)(void);
	int (*pending)(void);
	/*
	 * The guard, lock held, when the deadline has come or a request waits, before it reads any
	 * queued fault itself. resolve(): read and resolve the queued faults (their threads woken
	 * at unlock); between(): the same with their threads woken now (the lock released and
	 * taken again), for long work whose pages may be touched meanwhile.
	 */
	void (*run)(uint64_t now, void (*resolve)(void), void (*between)(void));
	void (*stop)(void); /* teardown, after the last faults: what the mode disabled comes home */
};
extern const struct fl_mode *fl_mode;
extern const struct fl_mode fl_mode_trace, fl_mode_moca, fl_mode_monitor;

#endif
