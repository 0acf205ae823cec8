/*
 * state.c: the owner of the agent's shared state (state.h): its definitions, the counters'
 * publication to the slot, and the registry of the handler threads.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "faultline_shm.h"
#include "state.h"
#include "sys.h"

struct fl_agent fl_agent = { .recorder_pidfd = -1 };
struct fl_counters fl_cnt;
int fl_fork_depth;
uint32_t fl_threads_starting;

int fl_guard_efd = -1;
uint32_t fl_restoring;

void fl_guard_poke(void)
{
	uint64_t one = 1;
	fl_syscall(SYS_write, fl_guard_efd, (long)&one, sizeof(one));
}

void fl_unlink_shm(void)
{
	if (fl_agent.shm_path[0])
		unlink(fl_agent.shm_path);
}

void fl_counters_publish(void)
{
	__atomic_store_n(fl_slot64(FL_SLOT_RECORDS), fl_cnt.records, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_RING_WAITS), fl_cnt.ring_waits, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_FAULTS), fl_cnt.faults, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_CHUNKS), fl_cnt.chunks, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_EVICTIONS), fl_cnt.evictions, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_WAIT_NS), fl_cnt.wait_ns, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_RACES), fl_cnt.races, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot64(FL_SLOT_REGISTERED_PAGES), fl_cnt.registered_pages, __ATOMIC_RELEASE);
}

void fl_counters_reset(void)
{
	memset(&fl_cnt, 0, sizeof(fl_cnt));
}

/* a guard and at most 64 fault threads (guard.c) */
#define HANDLER_THREADS_MAX 65
static struct {
	pid_t tid;
	pthread_t self;
} handler_threads[HANDLER_THREADS_MAX];
static uint32_t handler_threads_n; /* futex word */

void fl_handler_thread_note(void)
{
	pid_t tid = fl_gettid();
	for (uint32_t k = 0; k < HANDLER_THREADS_MAX; k++) {
		pid_t expect = 0;
		if (__atomic_compare_exchange_n(&handler_threads[k].tid, &expect, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&handler_threads[k].self, pthread_self(), __ATOMIC_RELEASE);
			break;
		}
	}
	__atomic_add_fetch(&handler_threads_n, 1, __ATOMIC_ACQ_REL);
	fl_futex_wake(&handler_threads_n);
}

int fl_on_handler_thread(void)
{
	if (!__atomic_load_n(&handler_threads_n, __ATOMIC_ACQUIRE))
		return 0;
	pthread_t self = pthread_self();
	for (uint32_t k = 0; k < HANDLER_THREADS_MAX; k++)
		if (__atomic_load_n(&handler_threads[k].tid, __ATOMIC_ACQUIRE) &&
		    pthread_equal(self, __atomic_load_n(&handler_threads[k].self, __ATOMIC_ACQUIRE)))
			return 1;
	return 0;
}

int fl_is_handler_tid(pid_t tid)
{
	for (uint32_t k = 0; k < HANDLER_THREADS_MAX; k++)
		if (__atomic_load_n(&handler_threads[k].tid, __ATOMIC_ACQUIRE) == tid)
			return 1;
	return 0;
}

/* they start at normal priority, so at once; a second at most all the same */
void fl_handler_threads_await(uint32_t n)
{
	for (int waited = 0; waited < 1000; waited++) {
		uint32_t known = __atomic_load_n(&handler_threads_n, __ATOMIC_ACQUIRE);
		if (known >= n)
			break;
		fl_futex_wait(&handler_threads_n, known, 1000 * 1000L);
	}
}

/* the child of a fork has only the forking thread */
void fl_handler_threads_reset(void)
{
	memset(handler_threads, 0, sizeof(handler_threads));
	handler_threads_n = 0;
}

int fl_restoring_wait(void)
{
	if (!__atomic_load_n(&fl_restoring, __ATOMIC_ACQUIRE))
		return 0;
	for (int i = 0; i < 1000 && __atomic_load_n(&fl_restoring, __ATOMIC_ACQUIRE); i++)
		fl_futex_wait(&fl_restoring, 1, 10 * 1000 * 1000L);
	return 1;
}
