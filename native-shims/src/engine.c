/*
 * engine.c: which trapping mechanism runs, from the control block's FL_CTL_ENGINE (struct
 * fl_engine in fl_internal.h). The userfaultfd engine is the default: it also traps kernel-mode
 * accesses and reports mapping changes by itself; the mprotect engine needs neither userfaultfd
 * nor privilege, and its faults are handled on the faulting thread (engine_mprotect.c).
 */
#define _GNU_SOURCE
#include "faultline_shm.h"
#include "engine.h"

const struct fl_engine *fl_engine = &fl_engine_uffd;

const struct fl_engine *fl_engine_for(uint32_t id)
{
	switch (id) {
	case FL_ENGINE_UFFD:
		return &fl_engine_uffd;
	case FL_ENGINE_MPROTECT:
		return &fl_engine_mprotect;
	default:
		return NULL;
	}
}
