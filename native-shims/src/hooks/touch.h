/*
 * touch.h: kernel-mode accesses under an engine that cannot trap them (touch.c)
 */
#ifndef FL_TOUCH_H
#define FL_TOUCH_H

#include "sys.h"

void fl_touch_resolve(void); /* constructor: the waiting calls' next definitions, before any handler thread */
void fl_touch_reset_after_fork(void); /* the bounce buffers other threads held are free */
void fl_touch_start(void); /* stdin and stdout get buffers outside traced memory */
void fl_touch_exec(const char *path, char *const argv[], char *const envp[]);
void fl_touch_realloced(void *old, void *p, size_t n); /* a block the kernel fills next? (touch.c) */

#endif
