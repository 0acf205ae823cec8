/*
 * policy_segq.c: kVMTrace's EVMS policies (Kaplan, Smaragdakis and Wilson, "Flexible reference
 * trace reduction for VM simulations", ACM TOMACS 13(1), 2003; kVMTrace change log v0.4pre3,
 * v0.5pre2): a leading FIFO segment of enabled pages whose exits enter a trailing segment of
 * disabled pages managed by FIFO or CLOCK (Babaoglu and Ferrari's segmented queue). FIFO, the
 * first policy, is the case with no trailing segment: a page leaving the lead is evicted.
 * The semantics, which io.faultline.sim.policy.evms.EvmsModel predicts record for record, are
 * in trace-format/FORMAT.md ("EVMS"). Agent lock held, but for the shared path's decisions (below).
 *
 * User space cannot read accessed bits, so a trailing entry is disabled and its next
 * reference faults: that fault sets its referenced flag and re-enables it in place (a soft
 * fault, not a reference record). The CLOCK hand clears the flag and disables the page again.
 * Entries live in a pool; each segment is a ring of pool indices (the trailing ring's head is
 * the CLOCK hand, or the oldest entry under FIFO); a hash table finds the live entry of a page.
 * A deleted entry (its mapping went away) stays in its ring, out of the table, until its turn.
 *
 * The dirty flag. Under synchronous dirty tracking a write to a page enabled by a read faults
 * and sets it (touch). Under asynchronous tracking (engine.h, written) the kernel keeps the bit
 * in the page's write-protection, and an enabled entry that is not yet dirty learns it when it
 * stops being enabled: before the move out that drops the bit (a lead exit, a CLOCK pass),
 * before its eviction record, before it is deleted. The records of one operation (an admission,
 * a flush) are held until one scan has answered for all its pages, then written in order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "emit.h"
#include "engine.h"
#include "mem.h"
#include "policy.h"
#include "sys.h"

#define E_DIRTY   1u /* written while resident */
#define E_REF     2u /* referenced since the hand last passed (trailing segment) */
#define E_REREF   4u /* re-referenced after it entered the trailing segment: tag R/W */
#define E_ENABLED 8u /* mapped: the next reference does not fault */
#define E_DELETED 16u

struct entry {
	uintptr_t page;
	uint32_t tid;
	uint32_t flags;
	/*
	 * The shared path: decisions that stopped it being enabled and whose callers have not yet
	 * said whether it was written (they learn it as they move it out), and, for an entry that
	 * left the set meanwhile, its eviction record's seq: the last of those callers writes the
	 * record, once the flag is known.
	 */
	uint32_t learning;
	uint64_t out_seq;
};

/*
 * An entry that left the set on the shared path: out of the table and the rings, its slot kept
 * (not on the free list) until its eviction record is written; E_HANDED: the decision that let
 * it go found it still learning, and left the record to the learner.
 */
#define E_GONE   32u
#define E_HANDED 64u
/* slots beyond the set's capacity, for entries that left on the shared path and await their record */
#define GONE_SLOTS 1024

struct ring {
	uint32_t *slot;
	uint32_t cap, head, n;
};

static struct entry *pool;
static uint32_t *free_idx, free_n;
static struct ring lead, trail;
static int trail_clock;
static uint32_t *table; /* open addressing, linear probing: pool index + 1, 0 = empty */
static uint32_t table_mask;
/* what one admission disables: at most the lead's exit and every trailing entry the hand passes */
static uintptr_t *to_disable;
static uint32_t to_disable_n, to_disable_cap;

static void disable_later(uintptr_t page)
{
	if (to_disable_n < to_disable_cap)
		to_disable[to_disable_n++] = page;
}

/* the eviction records of one operation, held until its pages have learned their dirty flag */
struct record {
	uintptr_t page;
	uint32_t tid, flags;
};
static struct record *records;
static uint32_t records_n;
/* enabled entries not known dirty that stop being enabled in this operation (asynchronous tracking) */
static uintptr_t *learning;
static uint8_t *learned;
static uint32_t learning_n;
static uint32_t op_cap; /* capacity of records and learning: every entry, and the one admitted */
static int learns = 1;  /* the engine may keep the dirty bit itself; 0 once it said it does not */
static int section;     /* the shared path's critical section (segq_decide, below) */

static void learn(const struct entry *x)
{
	if (learns && (x->flags & (E_ENABLED | E_DIRTY | E_DELETED)) == E_ENABLED && learning_n < op_cap)
		learning[learning_n++] = x->page;
}

static uint32_t hash_of(uintptr_t page)
{
	uint64_t h = (uint64_t)(page / FL_PAGE) * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(h >> 32) & table_mask;
}

static int64_t table_find(uintptr_t page)
{
	for (uint32_t i = hash_of(page);; i = (i + 1) & table_mask) {
		if (!table[i])
			return -1;
		if (pool[table[i] - 1].page == page)
			return i;
	}
}

static void table_put(uintptr_t page, uint32_t e)
{
	uint32_t i = hash_of(page);
	while (table[i])
		i = (i + 1) & table_mask;
	table[i] = e + 1;
}

/* backward-shift deletion keeps every probe chain unbroken */
static void table_remove(uintptr_t page)
{
	int64_t found = table_find(page);
	if (found < 0)
		return;
	uint32_t i = (uint32_t)found;
	table[i] = 0;
	for (uint32_t j = (i + 1) & table_mask; table[j]; j = (j + 1) & table_mask) {
		uint32_t home = hash_of(pool[table[j] - 1].page);
		/* move j back into the hole at i unless its home lies cyclically in (i, j] */
		if (((j - home) & table_mask) >= ((j - i) & table_mask)) {
			table[i] = table[j];
			table[j] = 0;
			i = j;
		}
	}
}

static uint32_t ring_at(const struct ring *r, uint32_t k)
{
	return r->slot[(r->head + k) % r->cap];
}

static void ring_push(struct ring *r, uint32_t e)
{
	r->slot[(r->head + r->n) % r->cap] = e;
	r->n++;
}

static uint32_t ring_pop(struct ring *r)
{
	uint32_t e = r->slot[r->head];
	r->head = (r->head + 1) % r->cap;
	r->n--;
	return e;
}

static void *map_array(size_t n, size_t size)
{
	return n ? fl_mem_map(n * size) : (void *)1; /* a zero-size segment is never indexed */
}

static int segq_init(uint32_t capacity, uint32_t lead_pages, int clock)
{
	if (lead_pages == 0 || lead_pages > capacity)
		lead_pages = capacity;
	lead = (struct ring){ .cap = lead_pages };
	trail = (struct ring){ .cap = capacity - lead_pages };
	trail_clock = clock;
	uint32_t size = 1;
	while (size < 2 * capacity)
		size <<= 1;
	table_mask = size - 1;
	pool = fl_mem_map((size_t)(capacity + GONE_SLOTS) * sizeof(*pool));
	free_idx = fl_mem_map((size_t)(capacity + GONE_SLOTS) * sizeof(*free_idx));
	table = fl_mem_map((size_t)size * sizeof(*table));
	lead.slot = map_array(lead.cap, sizeof(uint32_t));
	trail.slot = map_array(trail.cap, sizeof(uint32_t));
	to_disable_cap = capacity + 1;
	to_disable_n = 0;
	to_disable = fl_mem_map((size_t)to_disable_cap * sizeof(*to_disable));
	op_cap = capacity + 1;
	records_n = learning_n = 0;
	learns = 1;
	records = fl_mem_map((size_t)op_cap * sizeof(*records));
	learning = fl_mem_map((size_t)op_cap * sizeof(*learning));
	learned = fl_mem_map(op_cap);
	if (!pool || !free_idx || !table || !lead.slot || !trail.slot || !to_disable || !records || !learning || !learned)
		return -ENOMEM;
	free_n = capacity + GONE_SLOTS;
	for (uint32_t i = 0; i < free_n; i++)
		free_idx[i] = free_n - 1 - i;
	return 0;
}

static char tag_of(uint32_t flags)
{
	int dirty = (flags & E_DIRTY) != 0;
	if (flags & E_REREF)
		return dirty ? 'W' : 'R';
	return dirty ? 'w' : 'r';
}

/*
 * The end of an operation: one scan for the pages that stopped being enabled (engine.h,
 * written), their dirty flags set where they were written (live entries and held records alike:
 * a page passed over by the hand may be evicted further on in the same operation), then the
 * held eviction records in order.
 */
static void settle(void)
{
	if (learning_n && fl_engine->written) {
		int err = fl_engine->written(learning, learning_n, learned);
		if (err == -ENOTSUP)
			learns = 0; /* synchronous tracking for the whole session: its writes fault */
		for (uint32_t i = 0; !err && i < learning_n; i++) {
			if (!learned[i])
				continue;
			int64_t t = table_find(learning[i]);
			if (t >= 0)
				pool[table[t] - 1].flags |= E_DIRTY;
			/* not a deleted entry's: its flags are those it had when it was deleted, and a
			 * new mapping's page at its address may be the one learned */
			for (uint32_t k = 0; k < records_n; k++)
				if (records[k].page == learning[i] && !(records[k].flags & E_DELETED))
					records[k].flags |= E_DIRTY;
		}
	}
	learning_n = 0;
	for (uint32_t k = 0; k < records_n; k++)
		fl_emit_eviction(records[k].page, records[k].tid, tag_of(records[k].flags), (records[k].flags & E_DELETED) != 0);
	records_n = 0;
}

/* x leaves the EVMS: its eviction record (held until settle), its page disabled if it is still enabled */
static void evict(uint32_t e, int disable)
{
	struct entry *x = &pool[e];
	learn(x);
	if (records_n < op_cap)
		records[records_n++] = (struct record){ x->page, x->tid, x->flags };
	if (!(x->flags & E_DELETED)) {
		table_remove(x->page);
		if (disable && (x->flags & E_ENABLED))
			disable_later(x->page);
	}
	free_idx[free_n++] = e;
}

/* the trailing segment gives up one entry: CLOCK passes over referenced ones, disabling them */
static void trail_evict_one(void)
{
	for (;;) {
		uint32_t e = ring_pop(&trail);
		struct entry *x = &pool[e];
		if (trail_clock && (x->flags & (E_REF | E_DELETED)) == E_REF) {
			learn(x);
			x->flags &= ~(E_REF | E_ENABLED);
			disable_later(x->page);
			ring_push(&trail, e);
			continue;
		}
		evict(e, 1);
		return;
	}
}

static void leave_lead(uint32_t e)
{
	struct entry *x = &pool[e];
	if (trail.cap == 0 || (x->flags & E_DELETED)) {
		evict(e, 1);
		return;
	}
	if (trail.n == trail.cap)
		trail_evict_one();
	learn(x);
	x->flags &= ~(E_REF | E_ENABLED);
	disable_later(x->page);
	ring_push(&trail, e);
}

static uint32_t segq_admit(uintptr_t page, uint32_t tid, int write, const uintptr_t **disable)
{
	to_disable_n = 0;
	if (lead.n == lead.cap) /* first: a full set has no free entry */
		leave_lead(ring_pop(&lead));
	uint32_t e = free_idx[--free_n];
	pool[e] = (struct entry){ .page = page, .tid = tid, .flags = E_ENABLED | (write ? E_DIRTY : 0) };
	table_put(page, e);
	ring_push(&lead, e);
	settle();
	*disable = to_disable;
	return to_disable_n;
}

static int segq_state(uintptr_t page)
{
	int64_t i = table_find(page);
	if (i < 0)
		return FL_EVMS_OUT;
	return (pool[table[i] - 1].flags & E_ENABLED) ? FL_EVMS_ENABLED : FL_EVMS_DISABLED;
}

static int segq_touch(uintptr_t page, int write)
{
	int64_t i = table_find(page);
	if (i < 0)
		return FL_EVMS_OUT;
	struct entry *x = &pool[table[i] - 1];
	int was = (x->flags & E_ENABLED) ? FL_EVMS_ENABLED : FL_EVMS_DISABLED;
	if (write)
		x->flags |= E_DIRTY;
	if (was == FL_EVMS_DISABLED)
		x->flags |= E_REF | E_REREF | E_ENABLED;
	return was;
}

static int segq_dirty(uintptr_t page)
{
	int64_t i = table_find(page);
	return i >= 0 && (pool[table[i] - 1].flags & E_DIRTY);
}

/* entries of [start, end) that are live: deleted (their turn comes later) or gone now */
static void mark_deleted(const struct ring *r, uintptr_t start, uintptr_t end)
{
	for (uint32_t k = 0; k < r->n; k++) {
		struct entry *x = &pool[ring_at(r, k)];
		if (!(x->flags & E_DELETED) && x->page >= start && x->page < end) {
			table_remove(x->page);
			x->flags = (x->flags & ~(E_ENABLED | E_REF)) | E_DELETED;
		}
	}
}

/* the enabled entries of [start, end) learn their dirty flag while their pages are still there */
static void learn_range(const struct ring *r, uintptr_t start, uintptr_t end)
{
	for (uint32_t k = 0; k < r->n; k++) {
		const struct entry *x = &pool[ring_at(r, k)];
		if (x->page >= start && x->page < end)
			learn(x);
	}
}

static void segq_learn(uintptr_t start, uintptr_t end)
{
	learn_range(&trail, start, end);
	learn_range(&lead, start, end);
	settle();
}

static void segq_delete(uintptr_t start, uintptr_t end)
{
	segq_learn(start, end);
	mark_deleted(&trail, start, end);
	mark_deleted(&lead, start, end);
}

/* live entries of [start, end) leave now, in ring order; the rest keep theirs */
static void flush_ring(struct ring *r, uintptr_t start, uintptr_t end, int all)
{
	uint32_t kept = 0, n = r->n;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t e = ring_at(r, k);
		struct entry *x = &pool[e];
		int in = all || (!(x->flags & E_DELETED) && x->page >= start && x->page < end);
		if (in)
			evict(e, 0);
		else
			r->slot[(r->head + kept++) % r->cap] = e;
	}
	r->n = kept;
}

/* kVMTrace's order: the trailing segment from the hand (or the oldest) on, then the lead */
static void segq_flush(uintptr_t start, uintptr_t end)
{
	flush_ring(&trail, start, end, 0);
	flush_ring(&lead, start, end, 0);
	settle();
}

static void segq_clear(void)
{
	flush_ring(&trail, 0, 0, 1);
	flush_ring(&lead, 0, 0, 1);
	settle();
}

/* every entry forgotten without a record: a fork child's copy of its parent's set */
static void forget_ring(struct ring *r)
{
	for (uint32_t k = 0; k < r->n; k++) {
		uint32_t e = ring_at(r, k);
		if (!(pool[e].flags & E_DELETED))
			table_remove(pool[e].page);
		free_idx[free_n++] = e;
	}
	r->n = 0;
}

static void segq_reset(void)
{
	section = 0; /* a fork child: another thread of the parent may have held it */
	forget_ring(&trail);
	forget_ring(&lead);
}

static uint32_t segq_count(void)
{
	return lead.n + trail.n;
}

static int fifo_init(uint32_t capacity, uint32_t lead_pages)
{
	(void)lead_pages;
	return segq_init(capacity, capacity, 0);
}

static int segq_clock_init(uint32_t capacity, uint32_t lead_pages)
{
	return segq_init(capacity, lead_pages, 1);
}

static int segq_fifo_init(uint32_t capacity, uint32_t lead_pages)
{
	return segq_init(capacity, lead_pages, 0);
}

/*
 * The shared path (policy.h): faults of different threads decide here at once, each in this
 * section of loads and stores, which also takes the reference's seq so that admissions are in
 * seq order. The agent lock's operations above need no part of it: the lock excludes the shared
 * path while it is held (lock.c), and every entry a shared decision left in transit is settled
 * before its fault leaves the shared path.
 *
 * A decision changes entries as the lock's path does (admit, the lead's exit, the hand's passes
 * and the trailing segment's eviction), and leaves to its caller what needs system calls: each
 * page whose entry stopped being enabled, or left, must be brought in line with the set (moved
 * out), and an entry that stopped being enabled must first learn whether its page was written
 * (asynchronous dirty tracking: the move drops the bit). The caller moves them, says what it
 * learned (learned), and then writes the eviction records (settle). Two
 * callers' work can cross: an entry that one decision disabled (the lead's exit) can leave the set
 * in another before the first caller has learned its flag. Its eviction record then waits in the
 * entry (E_HANDED), and the caller that learns last writes it, with the flag.
 */
/* the shared decision's room for the pages it touches (policy.h), less the lead's exit and the eviction */
#define PASSES_MAX (FL_DECISION_OUT - 3)

static void gone(uint32_t e, struct fl_decision *d)
{
	struct entry *x = &pool[e];
	if (!(x->flags & E_DELETED)) {
		table_remove(x->page);
		/* its page must be out: moved by this caller, unless another's move is in flight */
		d->sync[d->n_sync++] = (struct fl_decision_page){ .page = x->page, .entry = e, .learn = 0 };
	}
	x->flags |= E_GONE;
	d->out[d->n_out++] = e;
}

/* x stops being enabled: its caller moves it out and says whether it was written */
static void disabled(uint32_t e, struct fl_decision *d)
{
	struct entry *x = &pool[e];
	int learn = (x->flags & (E_ENABLED | E_DIRTY | E_DELETED)) == E_ENABLED;
	if (learn)
		x->learning++;
	x->flags &= ~(E_REF | E_ENABLED);
	d->sync[d->n_sync++] = (struct fl_decision_page){ .page = x->page, .entry = e, .learn = (uint8_t)learn };
}

/* the hand's passes before the trailing segment gives an entry up; -1 if it gives none (empty) */
static int32_t passes_before_eviction(void)
{
	if (!trail.n)
		return -1;
	if (!trail_clock)
		return 0;
	for (uint32_t k = 0; k < trail.n; k++)
		if ((pool[ring_at(&trail, k)].flags & (E_REF | E_DELETED)) != E_REF)
			return (int32_t)k;
	return (int32_t)trail.n; /* every entry referenced: round once, then the first gives way */
}

static void shared_admit(uintptr_t page, uint32_t tid, int dirty, struct fl_decision *d)
{
	if (lead.n == lead.cap) {
		uint32_t e = ring_pop(&lead);
		struct entry *x = &pool[e];
		if (trail.cap == 0 || (x->flags & E_DELETED)) {
			if (x->flags & E_ENABLED)
				disabled(e, d);
			gone(e, d);
		} else {
			if (trail.n == trail.cap) {
				for (;;) {
					uint32_t t = ring_pop(&trail);
					struct entry *y = &pool[t];
					if (trail_clock && (y->flags & (E_REF | E_DELETED)) == E_REF) {
						disabled(t, d);
						ring_push(&trail, t);
						continue;
					}
					if (y->flags & E_ENABLED)
						disabled(t, d);
					gone(t, d);
					break;
				}
			}
			disabled(e, d);
			ring_push(&trail, e);
		}
	}
	uint32_t e = free_idx[--free_n];
	pool[e] = (struct entry){ .page = page, .tid = tid, .flags = E_ENABLED | (dirty ? E_DIRTY : 0) };
	table_put(page, e);
	ring_push(&lead, e);
}

static int segq_decide(uintptr_t page, uint32_t tid, int write, int wp, int admit, struct fl_decision *d)
{
	d->n_sync = d->n_out = 0;
	fl_spin_lock(&section);
	int64_t t = table_find(page);
	if (t >= 0) {
		struct entry *x = &pool[table[t] - 1];
		if (x->flags & E_ENABLED) {
			if (wp)
				x->flags |= E_DIRTY;
			fl_spin_unlock(&section);
			return wp ? FL_DECIDED_SOFT : FL_DECIDED_RACE;
		}
		/* a trailing entry, disabled: its reference is a soft fault, enabling it in place */
		x->flags |= E_REF | E_REREF | E_ENABLED | ((write || wp) ? E_DIRTY : 0);
		fl_spin_unlock(&section);
		return FL_DECIDED_SOFT;
	}
	if (admit) {
		/* a decision that would need more room than it has, or a slot while every spare one
		 * waits for its record, is the lock's: nothing is changed before that is known */
		int32_t passes = lead.n == lead.cap && trail.cap && trail.n == trail.cap ? passes_before_eviction() : 0;
		if (passes > PASSES_MAX || free_n == 0) {
			fl_spin_unlock(&section);
			return FL_DECIDED_LOCK;
		}
	}
	d->seq = fl_clock_take(1);
	if (admit)
		shared_admit(page, tid, write || wp, d);
	fl_spin_unlock(&section);
	return FL_DECIDED_REFERENCE;
}

static void take_record(uint32_t e, uint64_t seq, struct fl_decision_record *out)
{
	struct entry *x = &pool[e];
	*out = (struct fl_decision_record){ .page = x->page, .tid = x->tid, .seq = seq,
					    .tag = tag_of(x->flags), .deleted = (x->flags & E_DELETED) != 0 };
	free_idx[free_n++] = e;
}

static int segq_learned(const struct fl_decision_page *p, int written, struct fl_decision_record *handed)
{
	int n = 0;
	fl_spin_lock(&section);
	struct entry *x = &pool[p->entry];
	if (written)
		x->flags |= E_DIRTY;
	if (--x->learning == 0 && (x->flags & E_HANDED)) {
		take_record(p->entry, x->out_seq, handed);
		n = 1;
	}
	fl_spin_unlock(&section);
	return n;
}

static uint32_t segq_settle(const struct fl_decision *d, struct fl_decision_record *out)
{
	uint32_t n = 0;
	fl_spin_lock(&section);
	for (uint32_t i = 0; i < d->n_out; i++) {
		struct entry *x = &pool[d->out[i]];
		if (x->learning) {
			x->flags |= E_HANDED;
			x->out_seq = d->seq + 1;
			continue;
		}
		take_record(d->out[i], d->seq + 1, &out[n++]);
	}
	fl_spin_unlock(&section);
	return n;
}

static int segq_target(uintptr_t page, int *dirty)
{
	fl_spin_lock(&section);
	int64_t i = table_find(page);
	int state = FL_EVMS_OUT;
	*dirty = 0;
	if (i >= 0) {
		uint32_t f = pool[table[i] - 1].flags;
		state = (f & E_ENABLED) ? FL_EVMS_ENABLED : FL_EVMS_DISABLED;
		*dirty = (f & E_DIRTY) != 0;
	}
	fl_spin_unlock(&section);
	return state;
}

#define SEGQ_OPS .admit = segq_admit, .state = segq_state, .touch = segq_touch, .dirty = segq_dirty, \
	.delete = segq_delete, .learn = segq_learn, .flush = segq_flush, .clear = segq_clear, .reset = segq_reset, .count = segq_count, \
	.decide = segq_decide, .learned = segq_learned, .settle = segq_settle, .target = segq_target

const struct fl_policy fl_policy_fifo = { .name = "fifo", .init = fifo_init, SEGQ_OPS };
const struct fl_policy fl_policy_segq_clock = { .name = "segq-clock", .init = segq_clock_init, SEGQ_OPS };
const struct fl_policy fl_policy_segq_fifo = { .name = "segq-fifo", .init = segq_fifo_init, SEGQ_OPS };
