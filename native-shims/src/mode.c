/*
 * mode.c: the mode in use (struct fl_mode, mode.h). Until a session picks one from the control
 * block (agent.c), none: no flags, no ops.
 */
#define _GNU_SOURCE
#include "mode.h"

static const struct fl_mode none = { .name = "none" };

const struct fl_mode *fl_mode = &none;
