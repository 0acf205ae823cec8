/*
 * uffd_check.c: FAULTLINE_CHECK=1 for the userfaultfd engine: a shadow bit per traced page, 1
 * while its contents sit in its parking slot because of one of our moves. It lives in the second
 * half of the range's bitmap allocation (engine_uffd.c), so split and moved ranges carry it
 * along like the "populated" bits. Every move whose outcome contradicts the shadow (a move back
 * that finds nothing parked where we parked a page, a slot already occupied, ...) is reported on
 * stderr with check.c's history of that page and of its parking slot.
 *
 * It exists because a contradiction is the only trace a lost page leaves: the program just
 * computes something else. It found the occupied-slot case that slot_taken (engine_uffd.c)
 * handles. Lock held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "check.h"
#include "engine_uffd.h"
#include "pagemap.h"
#include "ranges.h"
#include "sys.h"

static uint64_t *shadow_word(const struct fl_range *r, uintptr_t page, uint64_t *bit)
{
	uint64_t b = r->bit0 + (page - r->start) / FL_PAGE;
	*bit = 1ULL << (b & 63);
	return &r->bits[(size_t)r->bits_pages * (FL_PAGE / 8) + (b >> 6)];
}

int fl_check_parked(const struct fl_range *r, uintptr_t page)
{
	uint64_t bit;
	return (*shadow_word(r, page, &bit) & bit) != 0;
}

void fl_check_moved(const struct fl_range *r, uintptr_t page, int to_park)
{
	uint64_t bit;
	uint64_t *w = shadow_word(r, page, &bit);
	if (to_park)
		*w |= bit;
	else
		*w &= ~bit;
}

void fl_check_report(const struct fl_range *r, uintptr_t page, const char *what)
{
	char line[160] = "check: ";
	strncat(line, what, sizeof(line) - 8);
	uintptr_t slot = r->park + (page - r->start);
	fl_debug_op(line, page, slot, fl_check_parked(r, page));
	fl_check_history(page, slot);
}

void fl_check_enable(const struct fl_range *r, uintptr_t page, int err)
{
	uintptr_t slot = r->park + (page - r->start);
	fl_check_log(FL_OP_ENABLE, page, slot, err);
	if (!err && !fl_check_parked(r, page))
		fl_check_report(r, page, "moved home a page we had not parked");
	else if (err == -ENOENT && fl_check_parked(r, page))
		fl_check_report(r, page, "a page we parked is not in its slot");
	else if (err == -EEXIST && fl_check_parked(r, page))
		fl_check_report(r, page, fl_page_present(slot) ? "a page we parked is both home and in its slot"
							      : "a page we parked is home again");
	if (!err)
		fl_check_moved(r, page, 0);
}

void fl_check_evict(const struct fl_range *r, uintptr_t page, int err)
{
	fl_check_log(FL_OP_EVICT, page, r->park + (page - r->start), err);
	if (!err && fl_check_parked(r, page))
		fl_check_report(r, page, "parked a page we had parked already");
	else if (err == -EEXIST && !fl_check_parked(r, page))
		fl_check_report(r, page, "the slot of an enabled page is occupied");
	else if (err == -ENOENT)
		fl_check_report(r, page, "an enabled page is not home");
	if (!err)
		fl_check_moved(r, page, 1);
}

void fl_check_discarded(const struct fl_range *r, uintptr_t a, uintptr_t b)
{
	for (uintptr_t p = a; p < b; p += FL_PAGE) {
		if (b - a == FL_PAGE && fl_check_parked(r, p))
			fl_check_report(r, p, "dropping the slot of a page we parked");
		fl_check_moved(r, p, 0);
	}
}

static void mark_parked(uintptr_t slot, void *ctx)
{
	const struct fl_range *r = ctx;
	fl_check_moved(r, r->start + (slot - r->park), 1);
}

/* after a bulk move: the shadow of [a, b) is whatever the parking area holds now */
void fl_check_resync(const struct fl_range *r, uintptr_t a, uintptr_t b)
{
	for (uintptr_t p = a; p < b; p += FL_PAGE)
		fl_check_moved(r, p, 0);
	fl_pagemap_each_present(r->park + (a - r->start), r->park + (b - r->start), mark_parked, (void *)r);
}
