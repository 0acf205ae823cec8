/*
 * launch.h: the recording's first process image gets back the start state the JVM recorder
 * changed (launch.c): signal mask, ignored signals, the open-files limit, coredump_filter.
 */
#ifndef FL_LAUNCH_H
#define FL_LAUNCH_H

/* the launcher's (./faultline) word for that state, in its own environment and so the recorder's */
#define FL_ENV_LAUNCH "FAULTLINE_LAUNCH"

void fl_launch_restore(void); /* constructor, after the slot's claim; nothing unless this is the first image */

#endif
