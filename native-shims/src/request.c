/*
 * request.c: how a program thread asks the handler to change agent state (register a new
 * mapping, trace a range, prepare a fork). Agent state changes only under the agent lock, held
 * by handler threads (guard.c, serve.c), so program threads post a request and sleep on it.
 *
 * Slot protocol (futex word = state):
 *   FREE -CAS-> FILLING (poster) -store-> POSTED (poster, then eventfd wakes the handler)
 *   POSTED -CAS-> TAKEN (handler) -> DONE (handler; futex wake after the lock is released)
 *   DONE -> FREE (poster, after reading)
 *   POSTED -CAS-> FREE (poster, only once the handler is gone: it cancels its own request)
 * The CAS on POSTED decides who owns a request when the handler stops concurrently, so a
 * poster never sleeps forever: it re-checks every 50 ms whether the handler is still there.
 *
 * A posting thread may fault on its own stack while it waits; that is fine, the handler
 * resolves those faults between requests. It must not hold a lock the handler needs, and the
 * handler needs none (it never calls malloc or stdio).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "mem.h"
#include "request.h"
#include "state.h"
#include "sys.h"

static struct fl_req *slots;
static int evfd = -1;
static uint32_t posted; /* requests posted and not yet taken: lets the handler skip the scan */

int fl_req_init(void)
{
	slots = fl_mem_map(FL_REQ_SLOTS * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	evfd = fl_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	return evfd < 0 ? -errno : 0;
}

int fl_req_eventfd(void)
{
	return evfd;
}

int fl_req_pending(void)
{
	return __atomic_load_n(&posted, __ATOMIC_ACQUIRE) != 0;
}

int fl_req_call(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	return fl_req_call_text(type, a, b, c, d, NULL, 0);
}

void fl_req_reset_after_fork(void)
{
	/* only the forking thread exists in the child, and it was not inside a request */
	for (int i = 0; i < FL_REQ_SLOTS; i++)
		slots[i].state = FL_RS_FREE;
	posted = 0;
	if (evfd >= 0)
		close(evfd); /* shared with the parent's: a new one for our handler */
	evfd = fl_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

static struct fl_req *post(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text,
			   uint32_t len, uint32_t async);
static int wait_done(struct fl_req *q);

void *(*fl_req_stack)(void);

struct call {
	uint32_t type, len;
	uint64_t a, b, c, d;
	const char *text;
};

static long post_and_wait(void *p)
{
	const struct call *k = p;
	struct fl_req *q = post(k->type, k->a, k->b, k->c, k->d, k->text, k->len, 0);
	return q ? wait_done(q) : -ENOSYS;
}

int fl_req_call_text(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text, uint32_t len)
{
	if (!fl_tracing() || fl_on_handler_thread())
		return -ENOSYS;
	struct call k = { type, len, a, b, c, d, text };
	void *stack = fl_req_stack ? fl_req_stack() : NULL;
	return (int)(stack ? fl_call_on(stack, post_and_wait, &k) : post_and_wait(&k));
}

void fl_req_post(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text, uint32_t len)
{
	if (!fl_tracing() || fl_on_handler_thread())
		return;
	post(type, a, b, c, d, text, len, 1);
}

/* claim a free slot, fill it and post it; NULL if the handler went away meanwhile */
static struct fl_req *post(uint32_t type, uint64_t a, uint64_t b, uint64_t c, uint64_t d, const char *text,
			   uint32_t len, uint32_t async)
{
	struct fl_req *q = NULL;
	for (int spins = 0; !q; spins++) {
		for (int i = 0; i < FL_REQ_SLOTS; i++) {
			uint32_t expect = FL_RS_FREE;
			if (__atomic_compare_exchange_n(&slots[i].state, &expect, FL_RS_FILLING, 0, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED)) {
				q = &slots[i];
				break;
			}
		}
		if (!q) {
			if (!fl_tracing())
				return NULL;
			sched_yield();
		}
	}
	q->type = type;
	q->async = async;
	q->tid = fl_gettid();
	q->a = a;
	q->b = b;
	q->c = c;
	q->d = d;
	q->result = 0;
	if (len > FL_REQ_TEXT_MAX)
		len = FL_REQ_TEXT_MAX;
	q->text_len = len;
	if (len)
		memcpy(q->text, text, len);
	__atomic_fetch_add(&posted, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&q->state, FL_RS_POSTED, __ATOMIC_RELEASE);
	uint64_t one = 1;
	/* raw, from the agent's text: the system-call gate lets it through, no SIGSYS and no kernel
	 * event for a write the program never made. EAGAIN only if the counter is saturated: the
	 * handler is awake anyway */
	fl_syscall(SYS_write, evfd, (long)&one, sizeof(one));
	return q;
}

/* the poster of a synchronous request: sleep until the handler is done with it */
static int wait_done(struct fl_req *q)
{
	for (;;) {
		uint32_t s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
		if (s == FL_RS_DONE)
			break;
		if (s == FL_RS_POSTED && !fl_tracing()) {
			uint32_t expect = FL_RS_POSTED;
			if (__atomic_compare_exchange_n(&q->state, &expect, FL_RS_FREE, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE)) {
				__atomic_fetch_sub(&posted, 1, __ATOMIC_RELEASE);
				return -ENOSYS;
			}
			continue;
		}
		fl_futex_wait(&q->state, s, 50 * 1000 * 1000L);
	}
	int result = q->result;
	__atomic_store_n(&q->state, FL_RS_FREE, __ATOMIC_RELEASE);
	return result;
}

static int take(struct fl_req *q)
{
	uint32_t expect = FL_RS_POSTED;
	if (!__atomic_compare_exchange_n(&q->state, &expect, FL_RS_TAKEN, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;
	__atomic_fetch_sub(&posted, 1, __ATOMIC_RELEASE);
	return 1;
}

/* the poster is woken later, by fl_req_wake, once the agent lock is released (lock.c) */
static void finish(struct fl_req *q, int result)
{
	q->result = result;
	/* nobody waits for an asynchronous request: its slot is free again at once */
	__atomic_store_n(&q->state, q->async ? FL_RS_FREE : FL_RS_DONE, __ATOMIC_RELEASE);
}

/*
 * Wake the posters of the slots in mask (bit i = slot i). A slot may have been freed and
 * posted again meanwhile: its waiter re-checks the state, so a spurious wake is harmless.
 */
void fl_req_wake(uint64_t mask)
{
	for (int i = 0; mask; i++, mask >>= 1)
		if (mask & 1)
			fl_futex_wake(&slots[i].state);
}

uint64_t fl_req_serve(int (*fn)(struct fl_req *))
{
	uint64_t drained;
	fl_syscall(SYS_read, evfd, &drained, sizeof(drained));
	uint64_t served = 0;
	for (int i = 0; i < FL_REQ_SLOTS; i++) {
		if (__atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE) != FL_RS_POSTED)
			continue;
		if (!take(&slots[i]))
			continue;
		finish(&slots[i], fn(&slots[i]));
		served |= 1ULL << i;
	}
	return served;
}

/* handler, after clearing fl_agent.active: nobody will serve requests any more */
void fl_req_cancel_all(void)
{
	for (int i = 0; i < FL_REQ_SLOTS; i++)
		if (__atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE) == FL_RS_POSTED && take(&slots[i])) {
			finish(&slots[i], -ENOSYS);
			fl_futex_wake(&slots[i].state);
		}
}
