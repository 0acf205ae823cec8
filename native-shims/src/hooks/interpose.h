/*
 * interpose.h: the LD_PRELOAD wrappers of mmap, brk, malloc, pthread_create, fork, exec and
 * their kin (interpose.c).
 */
#ifndef FL_INTERPOSE_H
#define FL_INTERPOSE_H

void fl_interpose_init(void); /* the next definitions, resolved before any handler thread runs */

#endif
