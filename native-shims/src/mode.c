/*
 * mode.c: which mode runs, from the control block's FL_CTL_MODE (struct fl_mode, mode.h).
 */
#define _GNU_SOURCE
#include "faultline_shm.h"
#include "mode.h"

const struct fl_mode *fl_mode = &fl_mode_trace;

const struct fl_mode *fl_mode_for(uint32_t id)
{
	switch (id) {
	case FL_MODE_TRACE:
		return &fl_mode_trace;
	case FL_MODE_MOCA:
		return &fl_mode_moca;
	case FL_MODE_MONITOR:
		return &fl_mode_monitor;
	default:
		return NULL;
	}
}
