/*
 * request.h: how a program thread asks a handler thread to change agent state (request.c), and
 * what it can ask (each request is served by its on_ function in serve.c)
 */
#ifndef FL_REQUEST_H
#define FL_REQUEST_H

#include "sys.h"

enum fl_req_type {
	FL_REQ_RESCAN = 1,    /* scope all: register what is new in the mappings overlapping [a, b), or anywhere if b <= a */
	FL_REQ_INIT,          /* constructor: a = pthread_self of the main thread */
	FL_REQ_MMAP,          /* a = start, b = len, c = prot, d = flags */
	FL_REQ_BRK,           /* a = old break, b = new break */
	FL_REQ_TRACE_RANGE,   /* a = addr, b = len */
	FL_REQ_THREAD_START,  /* a = creating tid, b = pthread_self of the new thread, c = 1 if counted in fl_threads_starting */
	FL_REQ_THREAD_EXIT,
	FL_REQ_FORK_PREPARE,  /* restore every page, stop evicting */
	FL_REQ_FORK_PARENT,   /* a = child pid (or -errno): disable again */
	FL_REQ_MREMAP,        /* a = old, b = old len, c = new, d = new len; e = 1 if a REMAP event said it */
	FL_REQ_THREAD_NAME,   /* a = tid of the named thread; text = name */
	FL_REQ_EXEC,          /* text = path: emit FL_EV_EXEC, mark the slot (FL_SLOT_EXEC_ANNOUNCED) */
	FL_REQ_FORK_CHILD,    /* in a followed fork child: register inherited ranges, rescan, disable */
	FL_REQ_EVMS_FLUSH,    /* the process is exiting: every EVMS page emits its eviction record */
	/* engines that observe no mapping events (FL_OBSERVES_MAP_EVENTS clear), from hooks/interpose.c */
	FL_REQ_MAP_EVENT,     /* a = FL_TRAP_UNMAP/REMOVE/REMAP, b, c, d = the trap's a, b, c */
	FL_REQ_MPROTECT,      /* a = start, b = len, c = prot: the program's mprotect */
	FL_REQ_UNTRACE,       /* [a, b) leaves tracing, its pages enabled (a block glibc is about to mremap) */
	FL_REQ_PIN,           /* the pages of [a, b) stay enabled for good (memory glibc reads with every signal blocked);
	                       * c = 1: for a while, returns the mask of pages it pinned (bit i: page a + i) for FL_REQ_UNPIN */
	FL_REQ_UNPIN,         /* c = that mask: those pages of [a, b) are disabled again (their next reference faults) */
	FL_REQ_LEARN_DIRTY,   /* [a, b) is about to be deleted by a call heard of after it: dirty flags read now */
};
#define FL_REQ_TEXT_MAX 256
/* slot word (reserved u32 at 76 in the contract): 1 = this image announced FL_EV_EXEC */
#define FL_SLOT_EXEC_ANNOUNCED 76
struct fl_req {
	uint32_t state; /* futex word: FL_RS_* */
	uint32_t type;
	int32_t tid;
	int32_t result; /* 0 or -errno, written by the handler */
	uint64_t a, b, c, d;
	uint32_t text_len;
	uint32_t async;  /* posted by fl_req_post: nobody waits; the handler frees the slot */
	char text[FL_REQ_TEXT_MAX];
};
#define FL_RS_FREE 0
#define FL_RS_FILLING 1
#define FL_RS_POSTED 2
#define FL_RS_TAKEN 3
#define FL_RS_DONE 4
#define FL_REQ_SLOTS 64

int fl_req_init(void);
int fl_req_eventfd(void);
/* Post and wait for the handler; returns the handler's result or -ENOSYS if it is gone. */
int fl_req_call(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d);
/*
 * Where a program thread posts its request and waits: the top of a stack in agent memory for the
 * calling thread (agent.c gives sigstack.c's), so that the agent's frames land on no page of the
 * program's stack, which is traced (issue 40: references of the agent's own in the trace); NULL
 * (or no function): the thread's own stack.
 */
extern void *(*fl_req_stack)(void);
int fl_req_call_text(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text, uint32_t len);
/* Post without waiting for the handler (a notice whose answer the poster does not need). */
void fl_req_post(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text, uint32_t len);
void fl_req_reset_after_fork(void); /* fork child: every slot free, a new eventfd */
/* Handler: run fn on every posted request; fn returns the result. */
uint64_t fl_req_serve(int (*fn)(struct fl_req *)); /* bit i set: slot i served, its poster not yet woken */
void fl_req_wake(uint64_t served);                 /* wake the posters fl_req_serve left sleeping */
void fl_req_cancel_all(void);
int fl_req_pending(void);

#endif
