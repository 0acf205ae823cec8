/*
 * gate_stack.c: the system-call gate's own alternate signal stacks, for an engine that gives none
 * (uffd: the gate arms there only for kernel events). Under the in-thread engines the fault
 * signal's stacks (fault_signal.c) carry the gate's thread state; here the same layout: each
 * STACK slot of agent memory starts with the thread's struct fl_gate_thread (the selector the
 * kernel reads at every system call), the stack proper lies above it. An agent stack and not the
 * thread's own, because the SIGSYS frame (some 3 KiB with the xsave area) and the handler would
 * otherwise write below the program's stack pointer at every system call: references to stack
 * pages the program never made, in a trace that must hold only the program's.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>

#include "gate.h"
#include "mem.h"

#define STACK (256UL << 10) /* the gate's handler, and a program handler of its own with SA_ONSTACK on top */
#define CHUNK (16UL << 20)
#define SLOTS 65536
#define CHUNKS (SLOTS * STACK / CHUNK + 1)
#define SCAN 8 /* entries looked at per new thread for a stack whose thread is gone */

static uint8_t *chunks[CHUNKS];
static uint32_t chunk_n;
static size_t used = CHUNK;
static struct slot {
	int32_t pid, tid;
	uint8_t *stack;
} *slots;
static uint32_t slot_n, cursor;
static int lock;

static void spin(void)
{
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static void unspin(void)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

struct fl_gate_thread *fl_gate_stack_here(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uint32_t n = __atomic_load_n(&chunk_n, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t c = (uintptr_t)chunks[i];
		if (sp >= c && sp < c + CHUNK)
			return (struct fl_gate_thread *)(c + ((sp - c) & ~(STACK - 1)));
	}
	return NULL;
}

/* a stack of a thread that is gone (the kernel says ESRCH: it never returns to user space), for tid */
static uint8_t *reuse(int32_t pid, int32_t tid)
{
	for (uint32_t k = 0; k < SCAN && k < slot_n; k++) {
		struct slot *s = &slots[cursor++ % slot_n];
		if (s->pid == pid && s->tid != tid && fl_thread_gone(pid, s->tid)) {
			s->tid = tid;
			memset(s->stack, 0, sizeof(struct fl_gate_thread)); /* dispatch is per task: off for the new one */
			return s->stack;
		}
	}
	return NULL;
}

struct fl_gate_thread *fl_gate_stack_of(int32_t pid, int32_t tid)
{
	uint8_t *stack = NULL;
	spin();
	if (!slots)
		slots = fl_mem_map(SLOTS * sizeof(*slots));
	for (uint32_t i = 0; slots && i < slot_n && !stack; i++)
		if (slots[i].pid == pid && slots[i].tid == tid)
			stack = slots[i].stack;
	if (stack) {
		unspin();
		return (struct fl_gate_thread *)stack;
	}
	stack = slots ? reuse(pid, tid) : NULL;
	if (!stack) {
		if (used + STACK > CHUNK && chunk_n < CHUNKS) {
			uint8_t *c = fl_mem_map(CHUNK);
			if (c) {
				used = 0;
				chunks[chunk_n] = c;
				__atomic_store_n(&chunk_n, chunk_n + 1, __ATOMIC_RELEASE);
			}
		}
		if (chunk_n && used + STACK <= CHUNK && slots && slot_n < SLOTS) {
			stack = chunks[chunk_n - 1] + used;
			used += STACK;
			slots[slot_n++] = (struct slot){ .pid = pid, .tid = tid, .stack = stack };
		}
	}
	unspin();
	if (!stack)
		return NULL;
	struct fl_gate_thread *g = (struct fl_gate_thread *)stack;
	g->tid = tid;
	stack_t ss = { .ss_sp = stack + FL_PAGE, .ss_size = STACK - FL_PAGE, .ss_flags = 0 };
	if (fl_gate_syscall6(SYS_sigaltstack, (long)&ss, 0, 0, 0, 0, 0) != 0)
		return NULL;
	return g;
}
