/*
 * agent.h: the agent's lifecycle (agent.c): a tracing session started from the recorder's
 * shared memory (by the constructor or an attach), a followed fork child's own session, and
 * an attached session's end.
 */
#ifndef FL_AGENT_H
#define FL_AGENT_H

/* map the shared memory at path, claim a slot, ready the engine and every table, start the
 * handler threads; scope all: what exists is registered and disabled. 0, or -errno after saying
 * why on stderr (the slot, if claimed, says FL_STOP_ERROR). A preloaded session (not attached)
 * runs started, if given, last, on the agent's start stack: the hooks' own start (hooks/entry.c) */
int fl_agent_start(const char *path, void (*started)(void));
int fl_agent_attach(const char *path); /* faultline_attach: 0 or -errno (EINVAL, EEXIST, EBUSY, ...) */
int fl_agent_detach(void);             /* faultline_detach: 0 or -errno (ENOENT, EPIPE, ...) */
/* the child of an interposed fork, when following forks: 0, or -1 when it must run untraced */
int fl_agent_follow_child(void);

void fl_agent_hold_library(void); /* a shared lock on libfaultline's file, for this process's life */

#endif
