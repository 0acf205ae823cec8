/*
 * sigstack.c: the agent's alternate signal stacks. A handler of the agent's never runs on the
 * program's own stack: a fault on a disabled stack page could not push its frame there (the
 * fault signal), and a SIGSYS frame (some 3 KiB with the xsave area) would write below the
 * program's stack pointer at every system call, references to stack pages the program never
 * made (the gate under uffd). Slots come from 16 MiB chunks of agent memory, never unmapped (a
 * thread may take a signal during its exit, after the last moment the agent hears of it), so
 * that a handler finds its slot, and the thread's state at the slot's base, from its stack
 * pointer alone, with no TLS and no system call.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>

#include "mem.h"
#include "sigstack.h"

#define CHUNK (16UL << 20)
#define SLOTS 65536
#define CHUNKS (SLOTS * FL_SIGSTACK / CHUNK + 1)
#define SCAN 8 /* slots looked at per new thread, from a rotating cursor, for one whose thread is gone */

static uint8_t *chunks[CHUNKS];
static uint32_t chunk_n;
static size_t used = CHUNK;

/*
 * Every slot handed out, with the thread it went to. A slot is given again only once its thread
 * is gone for the kernel (tgkill(pid, tid, 0) says ESRCH: the task is unhashed and will never
 * again return to user space, where a signal frame is written). A process forked from this one
 * inherits the table and its own thread's slot: the pid in each entry keeps the child from
 * giving away a slot its only thread may be standing on.
 */
static struct slot {
	int32_t pid, tid;
	uint8_t *stack;
} *slots;
static uint32_t slot_n, cursor;
static int lock;


void *fl_sigstack_here(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uint32_t n = __atomic_load_n(&chunk_n, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t c = (uintptr_t)chunks[i];
		if (sp >= c && sp < c + CHUNK)
			return (void *)(c + ((sp - c) & ~(FL_SIGSTACK - 1)));
	}
	return NULL;
}

static uint8_t *find(int32_t pid, int32_t tid)
{
	for (uint32_t i = 0; slots && i < slot_n; i++)
		if (slots[i].pid == pid && slots[i].tid == tid)
			return slots[i].stack;
	return NULL;
}

void *fl_sigstack_top(void)
{
	if (fl_sigstack_here())
		return NULL; /* on it already (a handler's): the caller's frames are there */
	uint8_t *stack = fl_sigstack_of((int32_t)fl_syscall(SYS_getpid), (int32_t)fl_syscall(SYS_gettid));
	return stack ? stack + FL_SIGSTACK : NULL;
}

void *fl_sigstack_of(int32_t pid, int32_t tid)
{
	fl_spin_lock(&lock);
	uint8_t *stack = find(pid, tid);
	fl_spin_unlock(&lock);
	return stack;
}

/* a slot of a thread that is gone, taken for tid; NULL if the few looked at are all alive */
static uint8_t *reuse(int32_t pid, int32_t tid)
{
	for (uint32_t k = 0; k < SCAN && k < slot_n; k++) {
		struct slot *s = &slots[cursor++ % slot_n];
		if (s->pid == pid && s->tid != tid && fl_thread_gone(pid, s->tid)) {
			s->tid = tid;
			memset(s->stack, 0, FL_PAGE); /* the state: dispatch is per task, off for the new one */
			return s->stack;
		}
	}
	return NULL;
}

void *fl_sigstack_take(int32_t pid, int32_t tid)
{
	fl_spin_lock(&lock);
	if (!slots)
		slots = fl_mem_map(SLOTS * sizeof(*slots));
	uint8_t *stack = find(pid, tid);
	if (!stack && slots)
		stack = reuse(pid, tid);
	if (!stack) {
		if (used + FL_SIGSTACK > CHUNK && chunk_n < CHUNKS) {
			uint8_t *c = fl_mem_map(CHUNK);
			if (c) {
				used = 0;
				chunks[chunk_n] = c;
				__atomic_store_n(&chunk_n, chunk_n + 1, __ATOMIC_RELEASE);
			}
		}
		if (chunk_n && used + FL_SIGSTACK <= CHUNK && slots && slot_n < SLOTS) {
			stack = chunks[chunk_n - 1] + used;
			used += FL_SIGSTACK;
			slots[slot_n++] = (struct slot){ .pid = pid, .tid = tid, .stack = stack };
		}
	}
	fl_spin_unlock(&lock);
	if (!stack)
		return NULL;
	stack_t ss = { .ss_sp = stack + FL_PAGE, .ss_size = FL_SIGSTACK - FL_PAGE, .ss_flags = 0 };
	if (fl_syscall(SYS_sigaltstack, (long)&ss) != 0)
		return NULL;
	return stack;
}
