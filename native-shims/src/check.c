/*
 * check.c: FAULTLINE_CHECK=1, a debugging aid for the agent's own bookkeeping: a ring of the
 * last OPS page operations (faults, moves, fills, EVMS pushes, range work), which a room that
 * finds a contradiction prints with fl_check_history (the userfaultfd engine's shadow of its
 * parking slots, uffd_check.c). Lock held; agent memory only; nothing here runs unless
 * fl_check is set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "check.h"
#include "mem.h"
#include "sys.h"

int fl_check;

struct op {
	uint64_t seq;
	uintptr_t a, b;
	int32_t r;
	uint32_t what;
};

#define OPS (1u << 20)
static struct op *ops;
static uint64_t op_seq;

static const char *const names[] = { "?", "fault", "enable", "evict", "bulk-disable", "bulk-restore", "pin",
				     "discard", "fill-zero", "push", "forget", "register", "relocate" };

void fl_check_log(uint32_t what, uintptr_t a, uintptr_t b, int r)
{
	if (!ops) {
		ops = fl_mem_map(OPS * sizeof(*ops));
		if (!ops)
			return;
	}
	struct op *o = &ops[op_seq & (OPS - 1)];
	o->seq = op_seq++;
	o->a = a;
	o->b = b;
	o->r = r;
	o->what = what;
}

static int single_page_op(uint32_t what)
{
	return what == FL_OP_FAULT || what == FL_OP_ENABLE || what == FL_OP_EVICT || what == FL_OP_PIN ||
	       what == FL_OP_FILL_ZERO || what == FL_OP_PUSH;
}

/*
 * Every logged operation on page or on slot, oldest first: single-page operations at either
 * address (moves also when slot is their other end), range operations covering either.
 */
void fl_check_history(uintptr_t page, uintptr_t slot)
{
	if (!ops)
		return;
	for (uint64_t s = op_seq > OPS ? op_seq - OPS : 0; s < op_seq; s++) {
		const struct op *o = &ops[s & (OPS - 1)];
		int moves = o->what == FL_OP_ENABLE || o->what == FL_OP_EVICT;
		int hit = single_page_op(o->what)
				  ? FL_PAGE_DOWN(o->a) == page || FL_PAGE_DOWN(o->a) == slot || (moves && o->b == slot)
				  : (page >= o->a && page < o->b) || (slot >= o->a && slot < o->b);
		if (hit) {
			char what[48] = "check: history ";
			strncat(what, o->what < sizeof(names) / sizeof(names[0]) ? names[o->what] : "?", 30);
			fl_debug_op(what, o->a, moves ? o->b : o->seq, o->r);
		}
	}
}

