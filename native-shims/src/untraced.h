/*
 * untraced.h: programs a traced process starts that the agent cannot follow (untraced.c), each
 * said as an FL_EV_UNTRACED event with one of these reasons.
 */
#ifndef FL_UNTRACED_H
#define FL_UNTRACED_H

#include "sys.h"

#define FL_UNTRACED_NO     0 /* the agent follows it (or the exec fails) */
#define FL_UNTRACED_STATIC 1 /* statically linked */
#define FL_UNTRACED_SECURE 2 /* set-user-ID, set-group-ID or file capabilities: LD_PRELOAD ignored */
#define FL_UNTRACED_ARCH   3 /* another architecture or ELF class */
#define FL_UNTRACED_ENV    4 /* its environment no longer names the agent */
#define FL_UNTRACED_OTHER  5 /* the agent did not start in it */

/* FL_REQ_EXEC's c: whose exec it is (this process's, or a vfork child's in our memory), and whether it failed */
#define FL_EXEC_OWN          0
#define FL_EXEC_OWN_FAILED   1
#define FL_EXEC_CHILD        2
#define FL_EXEC_CHILD_FAILED 3

/*
 * Why the program an exec of file would start runs untraced (FL_UNTRACED_*): file searched on the
 * PATH of path_env if search, as execvp does; envp the environment it gets. resolved (cap bytes)
 * gets the file's absolute path, *machine its ELF class << 16 | e_machine. The environments are the
 * program's memory, read through the kernel. Any thread, no lock.
 */
uint32_t fl_untraced_why(const char *file, int search, char *const path_env[], char *const envp[], char *resolved,
			size_t cap, uint32_t *machine);
void fl_untraced_note_spawner(pid_t tid); /* this thread made a child process (the gate, the fork wrappers) */
void fl_untraced_children(void);          /* guard: children of those threads that hold no slot, said */
void fl_untraced_said(int32_t pid);       /* lock held: pid was said at its exec (serve.c) */
void fl_untraced_reset(void);             /* a fork child, or a new session: nothing noted */

#endif
