/*
 * args.h: the program's command line and environment as other processes read them
 * (/proc/PID/cmdline and environ, ps): a copy in agent memory that the kernel reads instead
 * (args.c).
 */
#ifndef FL_ARGS_H
#define FL_ARGS_H

int fl_args_start(void);            /* constructor, while the process has one thread: 0 or -errno (left as it was) */
void fl_args_refresh(void);         /* guard thread: the copy follows the program's strings */
void fl_args_untraced_child(void);  /* a fork child the agent does not follow: its own strings back */

#endif
