/*
 * engine.c: the engine in use (struct fl_engine, engine.h). Until a session picks one from the
 * control block (agent.c), none: an engine that observes everything by itself, so that the
 * interposed calls of an inert library ask nothing of the program's calls.
 */
#define _GNU_SOURCE
#include "engine.h"

static const struct fl_engine none = {
	.name = "none",
	.observes = FL_OBSERVES_KERNEL_ACCESS | FL_OBSERVES_MAP_EVENTS,
};

const struct fl_engine *fl_engine = &none;
