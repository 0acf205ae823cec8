/*
 * mode_trace.c: trace mode (FL_MODE_TRACE, record's default), kVMTrace's: every reference to a
 * page outside the EVMS faults and is one reference record; the page enters the EVMS, whose
 * policy names the pages that leave (evms.c), each with its eviction record. The fault path
 * (fault.c) does the admitting and evicting for every mode that keeps an EVMS; what is this
 * mode's own is that its faults are the records.
 */
#define _GNU_SOURCE
#include "emit.h"
#include "mode.h"

static void trace_faults(const struct fl_fault *f, uint32_t n)
{
	fl_emit_references(f, n);
}

const struct fl_mode fl_mode_trace = {
	.name = "trace",
	.flags = FL_KEEPS_EVMS | FL_TRACKS_DIRTY | FL_SHARES_FAULTS,
	.faults = trace_faults,
};
