/*
 * lock.c: the agent lock. Agent state (range table, EVMS, pinned pages, ring, counters) changes
 * only under it, held by a handler thread or, under an engine without fd, by a faulting thread
 * in its signal handler (fault.c). A thread that holds it never wakes a program thread: a woken
 * thread of normal priority would preempt a SCHED_IDLE holder (a per-CPU fault thread, guard.c)
 * at once and keep the lock from every other CPU until it faulted again. So resolutions and
 * finished requests are queued here and woken by fl_unlock once the lock is released; the
 * engines' moves and fills never wake by themselves (docs/ARCHITECTURE.md, "Fault handling").
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include "engine.h"
#include "lock.h"
#include "request.h"

#define WAKE_MAX 256

static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t wake_pages[WAKE_MAX]; /* lock held: resolved, to wake at unlock */
static uint32_t wake_n;
static uint64_t wake_reqs;             /* lock held: request slots to wake at unlock */
static uint64_t progress;              /* faults handled and requests served */

void fl_lock(void)
{
	pthread_mutex_lock(&agent_lock);
}

void fl_unlock(void)
{
	uintptr_t pages[WAKE_MAX];
	uint32_t n = wake_n;
	memcpy(pages, wake_pages, n * sizeof(pages[0]));
	wake_n = 0;
	uint64_t reqs = wake_reqs;
	wake_reqs = 0;
	pthread_mutex_unlock(&agent_lock);
	for (uint32_t i = 0; i < n; i++)
		fl_engine->wake(pages[i]);
	if (reqs)
		fl_req_wake(reqs);
}

void fl_wake_later(uintptr_t page)
{
	for (uint32_t i = 0; i < wake_n; i++)
		if (wake_pages[i] == page)
			return;
	if (wake_n < WAKE_MAX)
		wake_pages[wake_n++] = page;
	else
		fl_engine->wake(page);
}

void fl_wake_requests_later(uint64_t served)
{
	wake_reqs |= served;
}

void fl_progress(void)
{
	__atomic_add_fetch(&progress, 1, __ATOMIC_RELEASE);
}

uint64_t fl_progress_count(void)
{
	return __atomic_load_n(&progress, __ATOMIC_ACQUIRE);
}

void fl_lock_reset_after_fork(void)
{
	pthread_mutex_init(&agent_lock, NULL);
	wake_n = 0;
	wake_reqs = 0;
	progress = 0;
}
