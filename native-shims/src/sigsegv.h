/*
 * sigsegv.h: the mprotect engine's SIGSEGV handler (sigsegv.c)
 */
#ifndef FL_SIGSEGV_H
#define FL_SIGSEGV_H

#include "sys.h"

int fl_sigsegv_install(void);
void fl_sigsegv_thread(void); /* this thread: an alternate signal stack, SIGSEGV unblocked */

#endif
