/*
 * lock.c: the agent lock and the shared side beside it.
 *
 * The agent lock is exclusive: the range table, the pinned and held pages, the slot's ring and
 * counters, and whatever a mode or the EVMS keeps change under it, held by a handler thread or by
 * a program thread on the lock's path. A fault resolved on the faulting thread without it (fault.c,
 * the shared path) is "shared": faults of different threads run at once, each deciding its EVMS
 * order in the policy's own short critical section and moving its pages under per-page locks,
 * and they only read what the lock protects. So the lock excludes them as a writer excludes
 * readers: fl_lock raises `writer` and waits until no shared fault is in flight; a fault that
 * finds `writer` raised takes the lock's path instead. The readers count themselves in shards of
 * their own cache lines (by tid), so that faults on different CPUs write no common line; the
 * Dekker-style pairing (a reader's add, then its read of writer; the writer's store, then its
 * reads of the shards, each with a full barrier between) leaves no moment when both run.
 *
 * A thread that holds the lock never wakes a program thread: a woken thread of normal priority
 * would preempt a SCHED_IDLE holder (a per-CPU fault thread, guard.c) at once and keep the lock
 * from every other CPU until it faulted again. So resolutions and finished requests are queued
 * here and woken by fl_unlock once the lock is released; the engines' moves and fills never wake
 * by themselves (docs/ARCHITECTURE.md, "Fault handling").
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include <sys/syscall.h>
#include <time.h>

#include "emit.h"
#include "engine.h"
#include "lock.h"
#include "request.h"

#define WAKE_MAX 256
#define SHARDS 64

static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static int writer; /* the lock's holder waits for, or excludes, shared faults */
static struct {
	uint32_t n; /* shared faults in flight of the threads of this shard */
	char pad[60];
} __attribute__((aligned(64))) shards[SHARDS];

static uint32_t shared_in_flight(void)
{
	uint32_t n = 0;
	for (int i = 0; i < SHARDS; i++)
		n += __atomic_load_n(&shards[i].n, __ATOMIC_ACQUIRE);
	return n;
}

/* lock held: until no shared fault is in flight (each is a few moves long; a long wait sleeps) */
static void exclude_shared(void)
{
	__atomic_store_n(&writer, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t spins = 0; shared_in_flight(); spins++) {
		if (spins < 1000) {
			__builtin_ia32_pause();
		} else {
			struct timespec ts = { 0, 20000 };
			fl_syscall(SYS_nanosleep, (long)&ts);
		}
	}
}

int fl_shared_enter(uint32_t tid)
{
	uint32_t *n = &shards[tid % SHARDS].n;
	__atomic_add_fetch(n, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&writer, __ATOMIC_SEQ_CST))
		return 1;
	__atomic_sub_fetch(n, 1, __ATOMIC_RELEASE);
	return 0;
}

void fl_shared_exit(uint32_t tid)
{
	__atomic_sub_fetch(&shards[tid % SHARDS].n, 1, __ATOMIC_RELEASE);
}
static uintptr_t wake_pages[WAKE_MAX]; /* lock held: resolved, to wake at unlock */
static uint32_t wake_n;
static uint64_t wake_reqs;             /* lock held: request slots to wake at unlock */
static uint64_t progress;              /* faults handled and requests served */
static uint32_t waiting;               /* threads in fl_lock that found the mutex taken and wait for it */

void fl_lock(void)
{
	/* counted only when it must wait: an uncontended take (most faults under uffd) stays one CAS */
	if (pthread_mutex_trylock(&agent_lock) != 0) {
		__atomic_add_fetch(&waiting, 1, __ATOMIC_ACQ_REL);
		pthread_mutex_lock(&agent_lock);
		__atomic_sub_fetch(&waiting, 1, __ATOMIC_RELEASE);
	}
	exclude_shared();
	fl_emit_slot_open();
}

/*
 * The mutex is not fair: a holder that unlocks and locks again at once takes it back before the
 * waiter it woke has run. So the holder waits, briefly, until the count of waiters falls (one of
 * them has the mutex), and only then asks for it again.
 */
int fl_lock_yield(void)
{
	uint32_t w = __atomic_load_n(&waiting, __ATOMIC_ACQUIRE);
	if (!w)
		return 0;
	fl_unlock();
	for (int i = 0; i < 256 && __atomic_load_n(&waiting, __ATOMIC_ACQUIRE) >= w; i++) {
		if (i < 128)
			__builtin_ia32_pause();
		else
			fl_syscall(SYS_sched_yield); /* the waiter may be on this CPU */
	}
	fl_lock();
	return 1;
}

void fl_lock_share(void)
{
	__atomic_store_n(&writer, 0, __ATOMIC_RELEASE);
}

void fl_lock_exclusive(void)
{
	exclude_shared();
}

void fl_unlock(void)
{
	uintptr_t pages[WAKE_MAX];
	uint32_t n = wake_n;
	memcpy(pages, wake_pages, n * sizeof(pages[0]));
	wake_n = 0;
	uint64_t reqs = wake_reqs;
	wake_reqs = 0;
	fl_emit_slot_close();
	__atomic_store_n(&writer, 0, __ATOMIC_RELEASE);
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
	writer = 0;
	waiting = 0;
	memset(shards, 0, sizeof(shards)); /* the parent's other threads' faults are not the child's */
	fl_emit_slot_forked();
	wake_n = 0;
	wake_reqs = 0;
	progress = 0;
}
