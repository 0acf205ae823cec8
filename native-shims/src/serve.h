/*
 * serve.h: what a handler thread does for each request a program thread posts (serve.c): one
 * on_<request>() per FL_REQ_* (request.h), called from a table.
 */
#ifndef FL_SERVE_H
#define FL_SERVE_H

#include "request.h"

/* lock held: the mapping events queued before the request first, then its handler; its result */
int fl_serve(struct fl_req *q);
void fl_serve_reset(void); /* a fork child or a new session: no program break known */

#endif
