/*
 * gate.c: the system-call gate. Under an engine that cannot make a kernel-mode access wait
 * (sigbus, mprotect: engine.h, FL_OBSERVES_KERNEL_ACCESS clear), a system call handed a disabled
 * page fails with EFAULT, or acts and then fails (wait4 reaps the child before it writes the
 * status), so every system call of a traced thread comes here first: Syscall User Dispatch
 * (prctl PR_SET_SYSCALL_USER_DISPATCH, Linux 5.11; kernel/entry/syscall_user_dispatch.c) raises
 * SIGSYS for every system call made outside the agent's own text while the thread's selector
 * says BLOCK. The handler (on_sigsys):
 *   1. asks the table (gate_table.c) which user memory the call reads and writes;
 *   2. holds those pages (pins.c, fl_pins_hold): from now until the call returns no fault of
 *      any thread disables them (their EVMS eviction waits);
 *   3. touches them in address order, from user mode, as the kernel would access them: a fault
 *      on a disabled page is recorded like any other, tagged as the kernel's reference made for
 *      the thread (FL_REC_KERNEL; FORMAT.md), a write touch for memory the kernel writes;
 *   4. makes the call from the agent's text (fl_syscall, sys.c), which dispatch lets through,
 *      with the program's signal mask, so that a signal interrupts a waiting call as it would
 *      have, and the selector at BLOCK, so that a handler run meanwhile is gated too;
 *   5. releases the pages: one the EVMS let go meanwhile is disabled now.
 * What the gate changes in the program's view, and why:
 *   - rt_sigprocmask and the masks of rt_sigaction never block SIGSYS or the fault signal (a
 *     blocked SIGSYS or fault forced by the kernel kills the process, kernel/signal.c,
 *     force_sig_info_to_task), glibc's internal calls included (pthread_create blocks every
 *     signal while it clones); the mask a handler returns to is the frame's, so rt_sigprocmask
 *     acts on the frame, not on the thread;
 *   - every handler returns through the agent's restorer (SA_RESTORER), since only the vDSO's
 *     sigreturn is exempt from dispatch; a sigreturn that traps all the same (a handler installed
 *     by a thread the gate does not see) is sent to that restorer with the frame as it is;
 *   - clone with CLONE_VM (a thread, or vfork: the child runs on another stack, or must not
 *     return through this handler's frame, which it would share) is made after the handler has
 *     returned, from fl_gate_clone_tail, which sends parent and child on to the instruction after
 *     the program's own syscall; a fork (no CLONE_VM) is made from the handler, and its child
 *     returns through its copy of the frame;
 *   - dispatch is per task, not inherited by clone or fork, and cleared by exec (checked here:
 *     bench/native/gate_probe.c): each thread the program starts is armed by the thread-start
 *     hook (hooks/interpose.c, trampoline), a followed fork child by the agent, an exec'd image by
 *     its own agent; a thread started by raw clone is not gated;
 *   - the program's own SIGSYS handler gets what is not dispatch (seccomp's SIGSYS), and its own
 *     PR_SET_SYSCALL_USER_DISPATCH is refused with EBUSY;
 *   - what the program reads back is what it set, where the kernel holds the agent's (issue 40):
 *     its signal actions (prog_act; a signal that dumps core is the agent's while its action is
 *     the default: on_core_signal), the signals of never_blocked() it asked to block, its own
 *     alternate stack, PR_GET_THP_DISABLE; mincore counts the pages held away as resident; the
 *     agent's descriptors do not exist for close and close_range.
 * Measured against seccomp SECCOMP_RET_TRAP in BENCHMARKS.md ("System-call gate"): a trapped
 * call costs the same, no other call pays for a filter, and dispatch ends with the task, where
 * a seccomp filter stays with every child and exec'd image for good.
 * After the call the gate writes the kernel events of the open, read, write... families
 * (gate_events.c; FORMAT.md, "Kernel events"). They do not depend on how pages are trapped, so
 * under uffd, whose kernel accesses wait for the handler, the gate arms for them alone: steps 1
 * to 3 and 5 are skipped, and the handler runs on signal stacks of the agent's all the same (sigstack.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "engine.h"
#include "map_events.h"
#include "evms.h"
#include "gate.h"
#include "sigstack.h"
#include "lock.h"
#include "mode.h"
#include "pins.h"
#include "policy.h"
#include "ranges.h"
#include "request.h"
#include "state.h"
#include "untraced.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#endif
#define SELECTOR_ALLOW 0
#define SELECTOR_BLOCK 1
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2
#endif
#define K_SA_RESTORER 0x04000000UL
#define K_SIGSET_BYTES 8
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif

/*
 * The stubs, in the agent's text (the allowed range), beside sys.c's fl_syscall6:
 *   fl_gate_restorer  every handler's return (rt_sigreturn);
 *   fl_gate_clone_tail  entered by sigreturn with the program's registers and rax = the clone's
 *     number: makes the call; the child (rax 0) takes the program's return address from the
 *     clone slot, says so, and goes on at it; the parent waits until the child has taken it
 *     (it does at once: a vfork parent runs only after the child's exec), frees the slot and
 *     goes on at it too. rcx and r11 are free: the syscall instruction clobbers them anyway.
 */
struct clone_slot {
	uint64_t rip;   /* where the program's syscall returns */
	uint32_t taken; /* the child has read rip */
	uint32_t busy;  /* the slot is in use, from the handler to the parent's jump */
};
__attribute__((visibility("hidden"))) struct clone_slot fl_gate_clone_slot;
void fl_gate_restorer(void);
void fl_gate_clone_tail(void);
__asm__(".text\n"
	".globl fl_gate_restorer\n.hidden fl_gate_restorer\n.type fl_gate_restorer,@function\n"
	"fl_gate_restorer:\n  mov $15, %eax\n  syscall\n  hlt\n"
	".size fl_gate_restorer, .-fl_gate_restorer\n"
	".globl fl_gate_clone_tail\n.hidden fl_gate_clone_tail\n.type fl_gate_clone_tail,@function\n"
	"fl_gate_clone_tail:\n"
	"  syscall\n"
	"  test %rax, %rax\n"
	"  jnz 2f\n"
	"  mov fl_gate_clone_slot(%rip), %rcx\n"
	"  movl $1, fl_gate_clone_slot+8(%rip)\n"
	"  jmp *%rcx\n"
	"2:\n"
	"  js 4f\n"
	"3:\n"
	"  cmpl $0, fl_gate_clone_slot+8(%rip)\n"
	"  jne 4f\n"
	"  mov %rax, %r11\n"
	"  mov $24, %eax\n" /* sched_yield: the child has to run first */
	"  syscall\n"
	"  mov %r11, %rax\n"
	"  jmp 3b\n"
	"4:\n"
	"  mov fl_gate_clone_slot(%rip), %rcx\n"
	"  movl $0, fl_gate_clone_slot+12(%rip)\n"
	"  jmp *%rcx\n"
	".size fl_gate_clone_tail, .-fl_gate_clone_tail\n");

static uintptr_t text_start, text_end; /* the agent's executable segment: dispatch lets its calls through */
static int gate_on;
/* what the gate is armed for: the calls' user memory (an engine without FL_OBSERVES_KERNEL_ACCESS),
 * and kernel events (gate_events.c; record --no-kernel-events and monitor mode turn them off) */
static int gate_memory, gate_events;
/*
 * The standard descriptors' open events are still to come: written by the image's first gated
 * call, on an agent stack. Not from fl_gate_start, on the program's stack: under an in-thread
 * engine a frame pushed onto a disabled stack page with the agent lock held faults, and the
 * fault path waits for the lock its own thread holds.
 */
static int standard_pending;

/* a program's reads of a pipe on stdin, or writes to a file on stdout, name a file as those of
 * descriptors it opens do: open events for 0, 1 and 2 as the image starts with them */
static void standard_events(struct fl_gate_thread *g)
{
	struct fl_kev_call kc;
	for (int fd = 0; fd < 3; fd++) {
		if (fl_kev_standard(fd, &kc)) {
			fl_lock();
			if (fl_tracing())
				fl_kev_write(&kc, (uint32_t)g->tid);
			fl_unlock();
		}
	}
}
static int fault_sig;
static struct sigaction prog_sigsys; /* the program's own SIGSYS action */
static int prog_sigsys_lock;

struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

/*
 * The program's own action for every signal but SIGSYS and the fault signal (whose are kept
 * apart), as it set it or as the image started with it: what rt_sigaction reports back. The
 * kernel holds something else: the agent's restorer, SA_ONSTACK under the in-thread engines, a
 * mask that leaves SIGSYS and the fault signal open, or, for a signal that dumps core and whose
 * action is the default, the agent's on_core_signal (core_caught).
 */
static struct k_sigaction prog_act[65];
static int act_lock;
static uint64_t core_caught;
static void (*core_prepare)(void); /* agent.c gives it: tracing stops and every page comes home (guard.c) */
static void on_core_signal(int sig, siginfo_t *si, void *ucv);

int fl_gate_active(void)
{
	return __atomic_load_n(&gate_on, __ATOMIC_ACQUIRE);
}

_Static_assert(sizeof(struct fl_gate_thread) <= FL_PAGE - FL_SIGSTACK_ENGINE,
	       "a thread's gate state is the first page of its signal stack's slot, less the engine's part (sigstack.h)");

/* the calling handler's thread state, at the base of the signal stack it runs on (sigstack.c) */
static struct fl_gate_thread *thread_here(void)
{
	return fl_sigstack_here();
}

/*
 * The thread's state: on the stack the fault signal's thread start gave it (in-thread engines,
 * fault_signal.c), or under uffd, where no fault signal runs, on one taken here.
 */
static struct fl_gate_thread *thread_of(int32_t pid, int32_t tid)
{
	struct fl_gate_thread *g = fl_sigstack_of(pid, tid);
	if (g || gate_memory)
		return g;
	if ((g = fl_sigstack_take(pid, tid)) != NULL)
		g->tid = tid;
	return g;
}

static int find_text(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	uintptr_t me = (uintptr_t)&fl_gate_restorer;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= s && me < e) {
			text_start = s;
			text_end = e;
			return 1;
		}
	}
	return 0;
}

/* PR_GET_THP_DISABLE as the program set it, where the agent changed it (fl_gate_thp_view); -1: as it is */
static int thp_view = -1;

void fl_gate_thp_view(int before)
{
	thp_view = before;
}

static uint64_t never_blocked(void)
{
	return (1ull << (SIGSYS - 1)) | (fault_sig ? 1ull << (fault_sig - 1) : 0);
}

/* ---- holding and touching a call's memory ---- */

/* a write access that changes no byte, atomic against the program's own writers */
static inline void write_touch(uintptr_t a)
{
	__asm__ volatile("lock orb $0, %0" : "+m"(*(volatile uint8_t *)a) : : "memory");
}

/*
 * The pages one call holds, as one bit per page of its regions in the order hold walks them,
 * so that release walks the same pages again: 4 KiB of the signal stack for up to 32,768 pages
 * (128 MiB), what the held table (pins.c) has room for. Past that a page is touched but not
 * held, and the call may meet it disabled again: a read(2) of more into traced memory returns
 * short (ARCHITECTURE.md, "The system-call gate"). A page in two regions is held twice.
 */
#define HELD_MAX (1u << 15)
struct held_set {
	uint64_t bit[HELD_MAX / 64];
	uint32_t walked; /* pages of the regions hold looked at, at most HELD_MAX */
	uint32_t held;
	uint32_t missed; /* pages not held: the table was full */
};

/*
 * Hold every page of the regions; they are touched after. Not only the traced ones: a mapping
 * made while a thread was starting is registered later (scope.c, register_gap), by a rescan that
 * may come while this call waits, and its pages must not be disabled under the call then (pins.c,
 * fl_pins_around). Under the agent lock, or without it beside faults resolved without it (shared:
 * each traced page held under its page lock, so that a fault's move of it either comes before the
 * hold, and the touch brings the page home, or sees it held and leaves it: fault.c, sync_page).
 */
static void hold_page(uintptr_t p, int shared, struct held_set *h, uint32_t k)
{
	struct fl_range *r = shared ? fl_range_find(p) : NULL;
	if (r)
		fl_page_lock(r, p);
	if (fl_pins_hold(p) == 0) {
		h->bit[k >> 6] |= 1ull << (k & 63);
		h->held++;
	} else {
		h->missed++;
	}
	if (r)
		fl_page_unlock(r, p);
}

static void hold(const struct fl_gate_region *r, uint32_t n, struct held_set *h, int shared)
{
	h->walked = h->held = h->missed = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!r[i].len)
			continue;
		uintptr_t end = FL_PAGE_UP(r[i].addr + r[i].len);
		for (uintptr_t p = FL_PAGE_DOWN(r[i].addr); p < end && h->walked < HELD_MAX; p += FL_PAGE) {
			uint32_t k = h->walked++;
			if (!(k & 63))
				h->bit[k >> 6] = 0;
			if (fl_pins_has(p))
				continue;
			hold_page(p, shared, h, k);
		}
	}
}

/*
 * The call is over; a page the EVMS let go meanwhile is disabled now. Only a mode that keeps an
 * EVMS lets pages go: under monitor mode no page is ever enabled in one, and its traced ranges
 * are not registered, so a move out of a page there would lose it (the program found an empty
 * stack page after its first call and jumped to 0); Moca disables its interval's pages itself at
 * the interval's end. Nor while a fork is prepared (fl_fork_depth): the pages stay enabled until
 * the parent's side (serve.c, on_fork_prepare), and a fork made from this handler returns here in
 * the child too, whose copy of a disabled page would stay disabled for good (the untraced child of
 * a raw clone3 died of SIGSEGV on its stack page holding the clone_args, 2 runs in 30 under
 * mprotect). Under the agent lock, or without it (e: the thread's ring, whose counters count the
 * eviction; the page's lock held, as a fault's move of it holds it).
 */
static void release_page(uintptr_t p, int evms, struct fl_emitter *e)
{
	struct fl_range *r = fl_range_find(p);
	if (r && e)
		fl_page_lock(r, p);
	int dirty;
	if (fl_pins_release(p) && evms && r && fl_evms_target(p, &dirty) != FL_EVMS_ENABLED && !fl_pins_has(p) &&
	    fl_engine->evict(p) == 1) {
		if (e)
			fl_emitter_count(e, FL_TRING_EVICTIONS, 1);
		else
			fl_cnt.evictions++;
	}
	if (r && e)
		fl_page_unlock(r, p);
}

/* the pages of the regions a call held (bit k: the k-th page walked), given back */
static void release_held(const struct fl_gate_region *r, uint32_t n, const uint64_t *bit, uint32_t walked,
			 struct fl_emitter *e)
{
	int evms = (fl_mode->flags & FL_KEEPS_EVMS) != 0 && !fl_fork_depth;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n && k < walked; i++) {
		if (!r[i].len)
			continue;
		uintptr_t end = FL_PAGE_UP(r[i].addr + r[i].len);
		for (uintptr_t p = FL_PAGE_DOWN(r[i].addr); p < end && k < walked; p += FL_PAGE, k++)
			if ((bit[k >> 6] >> (k & 63)) & 1)
				release_page(p, evms, e);
	}
}

static void release(const struct fl_gate_region *r, uint32_t n, const struct held_set *h, struct fl_emitter *e)
{
	release_held(r, n, h->bit, h->walked, e);
}

/*
 * The open call (gate.h, struct fl_gate_thread): a thread cancelled inside a waiting call
 * (pthread_cancel: glibc unwinds from its SIGCANCEL handler, out of this handler's frame) or
 * sent out of it by a signal handler's siglongjmp never comes back to release(), and what the
 * call held stayed held for good: enabled, out of the EVMS's reach, its references lost (80
 * threads cancelled in poll left a page of their reused stack so). The outermost such call of
 * a thread is kept in its gate state, up to FL_GATE_OPEN_REGIONS regions and
 * FL_GATE_OPEN_PAGES pages, and given back by the thread's next call once that call's frame lies
 * where the open one's did (a nested call, from a handler run during the wait, lies below it),
 * or by the thread's end (hooks/interpose.c, the trampoline's cleanup). Lock held.
 */
static void open_call(struct fl_gate_thread *g, const struct fl_gate_region *r, uint32_t n, const struct held_set *h,
		      uintptr_t sp)
{
	if (g->open_sp || n > FL_GATE_OPEN_REGIONS || h->walked > FL_GATE_OPEN_PAGES)
		return;
	memcpy(g->open, r, n * sizeof(*r));
	memcpy(g->open_held, h->bit, sizeof(g->open_held));
	g->open_n = n;
	g->open_walked = h->walked;
	g->open_sp = sp;
}

/* the open call's pages given back, if it still has them (takes the lock) */
static void give_back_open(struct fl_gate_thread *g)
{
	fl_lock();
	if (g->open_sp) {
		release_held(g->open, g->open_n, g->open_held, g->open_walked, NULL);
		g->open_sp = 0;
	}
	fl_unlock();
}

/* on entry to the handler, whose frame is at sp: the open call's frame is gone (see open_call) */
static void abandoned(struct fl_gate_thread *g, uintptr_t sp)
{
	if (g->open_sp && sp >= g->open_sp)
		give_back_open(g);
}

void fl_gate_thread_end(void)
{
	if (!fl_gate_active() || !gate_memory)
		return;
	struct fl_gate_thread *g = thread_of((int32_t)fl_syscall(SYS_getpid),
					     (int32_t)fl_syscall(SYS_gettid));
	if (g && g->open_sp)
		give_back_open(g);
}

/* every page of the regions in address order, as the kernel's copy goes; only traced pages can be disabled */
static void touch(const struct fl_gate_region *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (!r[i].len)
			continue;
		uintptr_t a = r[i].addr, end = a + r[i].len;
		for (uintptr_t cur = a; cur < end; cur = FL_PAGE_DOWN(cur) + FL_PAGE) {
			if (!fl_ranges_cover(FL_PAGE_DOWN(cur), FL_PAGE_DOWN(cur) + FL_PAGE))
				continue;
			if (r[i].dir & FL_GATE_WRITE)
				write_touch(cur);
			else
				(void)*(volatile const uint8_t *)cur;
		}
	}
}

/* ---- calls the gate answers itself or changes ---- */

/*
 * rt_sigprocmask on the frame's mask, which the handler's return installs. SIGSYS and the fault
 * signal stay open in it, but the program reads back what it asked for (g->blocked_wanted).
 */
static long sigprocmask_on_frame(ucontext_t *uc, const long *a, struct fl_gate_thread *g)
{
	uint64_t *mask = (uint64_t *)&uc->uc_sigmask, set = 0;
	if ((size_t)a[3] != K_SIGSET_BYTES)
		return -EINVAL;
	if (a[1])
		memcpy(&set, (const void *)a[1], sizeof(set));
	uint64_t old = *mask | g->blocked_wanted;
	if (a[1]) {
		uint64_t nb = never_blocked();
		switch (a[0]) {
		case SIG_BLOCK: *mask |= set; g->blocked_wanted |= set & nb; break;
		case SIG_UNBLOCK: *mask &= ~set; g->blocked_wanted &= ~set; break;
		case SIG_SETMASK: *mask = set; g->blocked_wanted = set & nb; break;
		default: return -EINVAL;
		}
		*mask &= ~(nb | (1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)));
	}
	if (a[2])
		memcpy((void *)a[2], &old, sizeof(old));
	return 0;
}

/*
 * Under the in-thread engines a program handler runs on the agent's stack (SA_ONSTACK): the
 * thread's own stack page may be disabled, and the kernel could not write the frame there.
 * Under uffd it runs where the program asked, its frame one of the program's own references.
 */
static unsigned long onstack(void)
{
	return gate_memory ? SA_ONSTACK : 0;
}

/* the signals whose default action dumps core (signal(7)); SIGSYS's is pass_on_sigsys's */
#define BIT(sig) (1ull << ((sig) - 1))
#define CORE_SIGNALS (BIT(SIGQUIT) | BIT(SIGILL) | BIT(SIGTRAP) | BIT(SIGABRT) | BIT(SIGBUS) | BIT(SIGFPE) | \
		      BIT(SIGSEGV) | BIT(SIGXCPU) | BIT(SIGXFSZ))
/* the sa_flags bits the kernel keeps and reports on x86-64 (kernel/signal.c, do_sigaction: UAPI_SA_FLAGS) */
#define K_SA_KNOWN (SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | 0x400UL /* SA_UNSUPPORTED */ | \
		    0x800UL /* SA_EXPOSE_TAGBITS */ | SA_ONSTACK | SA_RESTART | SA_NODEFER | SA_RESETHAND | K_SA_RESTORER)

static int core_catchable(int sig)
{
	return sig >= 1 && sig <= 64 && (CORE_SIGNALS & BIT(sig)) && sig != fault_sig && core_prepare;
}

/* what the kernel is given for the program's action act on sig */
static struct k_sigaction kernel_action(int sig, const struct k_sigaction *act)
{
	struct k_sigaction k = *act;
	if (act->handler == SIG_DFL && core_catchable(sig)) {
		k = (struct k_sigaction){ (void *)on_core_signal, SA_SIGINFO | SA_ONSTACK | K_SA_RESTORER,
					  (void *)fl_gate_restorer, ~never_blocked() };
	} else if (act->handler != SIG_DFL && act->handler != SIG_IGN) {
		k.flags |= K_SA_RESTORER | onstack();
		k.restorer = (void *)fl_gate_restorer;
		k.mask &= ~never_blocked();
	}
	return k;
}

/* act as the kernel would keep it: unknown flag bits and SIGKILL and SIGSTOP in the mask dropped */
static struct k_sigaction as_kept(struct k_sigaction act)
{
	act.flags &= K_SA_KNOWN;
	act.mask &= ~(BIT(SIGKILL) | BIT(SIGSTOP));
	return act;
}

/*
 * rt_sigaction: the kernel gets kernel_action(), the program is told what it set. A handler
 * with SA_RESETHAND that the kernel has since reset to SIG_DFL is reported as SIG_DFL.
 */
static long sigaction_gated(const long *a)
{
	int sig = (int)a[0];
	struct k_sigaction act, old;
	if ((size_t)a[3] != K_SIGSET_BYTES)
		return -EINVAL;
	if (sig == SIGSYS) {
		struct sigaction o = prog_sigsys;
		if (a[1]) {
			memcpy(&act, (const void *)a[1], sizeof(act));
			fl_spin_lock(&prog_sigsys_lock);
			memset(&prog_sigsys, 0, sizeof(prog_sigsys));
			prog_sigsys.sa_handler = (void (*)(int))act.handler;
			prog_sigsys.sa_flags = (int)act.flags;
			memcpy(&prog_sigsys.sa_mask, &act.mask, sizeof(act.mask));
			fl_spin_unlock(&prog_sigsys_lock);
		}
		if (a[2]) {
			memset(&old, 0, sizeof(old));
			old.handler = (void *)o.sa_handler;
			old.flags = (unsigned long)o.sa_flags;
			memcpy(&old.mask, &o.sa_mask, sizeof(old.mask));
			memcpy((void *)a[2], &old, sizeof(old));
		}
		return 0;
	}
	if (sig < 1 || sig > 64 || sig == fault_sig || sig == SIGKILL || sig == SIGSTOP) {
		/* the kernel answers (EINVAL for most of these); the fault signal's action is
		 * fault_signal.c's to keep, through libc's sigaction */
		const struct k_sigaction *in = NULL;
		if (a[1]) {
			memcpy(&act, (const void *)a[1], sizeof(act));
			act = kernel_action(sig, &act);
			in = &act;
		}
		long r = fl_syscall(SYS_rt_sigaction, sig, (long)in, a[2] ? (long)&old : 0, K_SIGSET_BYTES);
		if (r == 0 && a[2])
			memcpy((void *)a[2], &old, sizeof(old));
		return r;
	}
	/* the program's memory is read and written outside the lock: it may fault (a disabled page) */
	if (a[1])
		memcpy(&act, (const void *)a[1], sizeof(act));
	struct k_sigaction now;
	fl_spin_lock(&act_lock);
	long r = 0;
	if (a[1]) {
		struct k_sigaction k = kernel_action(sig, &act);
		r = fl_syscall(SYS_rt_sigaction, sig, (long)&k, (long)&now, K_SIGSET_BYTES);
	} else {
		r = fl_syscall(SYS_rt_sigaction, sig, 0, (long)&now, K_SIGSET_BYTES);
	}
	old = prog_act[sig];
	if (r == 0 && now.handler == SIG_DFL && old.handler != SIG_DFL && old.handler != SIG_IGN)
		old.handler = SIG_DFL; /* SA_RESETHAND: the kernel reset it as it ran */
	if (r == 0 && a[1]) {
		prog_act[sig] = as_kept(act);
		if (act.handler == SIG_DFL && core_catchable(sig))
			__atomic_or_fetch(&core_caught, BIT(sig), __ATOMIC_RELEASE);
		else
			__atomic_and_fetch(&core_caught, ~BIT(sig), __ATOMIC_RELEASE);
	}
	fl_spin_unlock(&act_lock);
	if (r == 0 && a[2])
		memcpy((void *)a[2], &old, sizeof(old));
	return r;
}

/* ---- the program's death by a signal that dumps core ---- */

/*
 * Whether the kernel will write a core for this process now (fs/coredump.c, do_coredump): not
 * if it is not dumpable, nor if RLIMIT_CORE is 0 and core_pattern names a file (a pipe, such as
 * systemd-coredump's, gets the core whatever the limit). Raw calls from the agent's text.
 */
static int core_will_be_written(void)
{
	if (fl_syscall(SYS_prctl, PR_GET_DUMPABLE) <= 0)
		return 0;
	struct rlimit64_k { uint64_t cur, max; } lim;
	if (fl_syscall(SYS_prlimit64, 0, RLIMIT_CORE, 0, (long)&lim) == 0 && lim.cur == 0) {
		char c = 0;
		long fd = fl_syscall(SYS_openat, AT_FDCWD, (long)"/proc/sys/kernel/core_pattern", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			fl_syscall(SYS_read, fd, (long)&c, 1);
			fl_syscall(SYS_close, fd);
		}
		return c == '|';
	}
	return 1;
}

void fl_gate_on_core(void (*prepare)(void))
{
	core_prepare = prepare;
}

void fl_gate_core_signal(int sig)
{
	if (sig >= 1 && sig <= 64 && ((CORE_SIGNALS | BIT(SIGSYS)) & BIT(sig)) && core_prepare && fl_tracing() &&
	    core_will_be_written())
		core_prepare();
}

/*
 * A signal that dumps core, its action the default. Natively the kernel would kill the process
 * now and dump its memory; but the pages the engine holds away from their addresses (parked by
 * the userfaultfd engines) would be holes in that core, so tracing stops first and brings every
 * page home (fl_gate_core_signal). Then the default action is put back and the same signal,
 * with the same siginfo, queued again for this thread: it is delivered once this handler
 * returns, to the context the kernel interrupted, so the core holds the program's registers
 * and the kernel's siginfo, as natively. Interrupted in the gate's handler (raise and abort make
 * their tgkill through it), the signal waits until that handler returns to the program: the
 * context's mask holds it meanwhile, and the handler's return installs the program's mask.
 */
static void on_core_signal(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct fl_gate_thread *g = thread_here();
	fl_gate_core_signal(sig);
	fl_spin_lock(&act_lock);
	struct k_sigaction dfl = prog_act[sig];
	dfl.handler = SIG_DFL;
	fl_syscall(SYS_rt_sigaction, sig, (long)&dfl, 0, K_SIGSET_BYTES);
	__atomic_and_fetch(&core_caught, ~BIT(sig), __ATOMIC_RELEASE);
	fl_spin_unlock(&act_lock);
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	if (g && g->in_sigsys && pc >= text_start && pc < text_end)
		*(uint64_t *)&uc->uc_sigmask |= BIT(sig);
	fl_syscall(SYS_rt_tgsigqueueinfo, fl_syscall(SYS_getpid),
			 fl_syscall(SYS_gettid), sig, (long)si);
}

/*
 * A fork child the agent does not follow: the kernel gets the program's own actions back where
 * it held the core catcher (the child's copy of the gate is never armed, and nothing of the
 * agent's should be left to run in it).
 */
void fl_gate_untraced_child(void)
{
	uint64_t caught = __atomic_exchange_n(&core_caught, 0, __ATOMIC_ACQ_REL);
	for (int sig = 1; sig <= 64; sig++)
		if (caught & BIT(sig))
			fl_syscall(SYS_rt_sigaction, sig, (long)&prog_act[sig], 0, K_SIGSET_BYTES);
}

/*
 * The agent's alternate stack stays installed (the program's would be traced memory, and a
 * handler of the agent's runs on it); the program is told back the stack it set, or none, never
 * in use (its handlers run on the agent's). The checks are the kernel's (kernel/signal.c,
 * do_sigaltstack): EINVAL for unknown flags, ENOMEM for a stack smaller than MINSIGSTKSZ.
 */
static long sigaltstack_gated(const long *a, struct fl_gate_thread *g)
{
	stack_t want;
	if (a[0]) {
		memcpy(&want, (const void *)a[0], sizeof(want));
		int mode = want.ss_flags & ~SS_AUTODISARM;
		if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
			return -EINVAL;
		if (mode != SS_DISABLE && want.ss_size < (size_t)MINSIGSTKSZ)
			return -ENOMEM;
	}
	if (a[1]) {
		stack_t old = g->altstack;
		if (!old.ss_sp && !old.ss_size)
			old.ss_flags = SS_DISABLE;
		memcpy((void *)a[1], &old, sizeof(old));
	}
	if (a[0]) {
		if ((want.ss_flags & ~SS_AUTODISARM) == SS_DISABLE)
			g->altstack = (stack_t){ .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
		else
			g->altstack = (stack_t){ .ss_sp = want.ss_sp, .ss_size = want.ss_size, .ss_flags = want.ss_flags & SS_AUTODISARM };
	}
	return 0;
}

/* the program's own SIGSYS (seccomp's, or sent): its handler, or what its default would do */
static void pass_on_sigsys(int sig, siginfo_t *si, ucontext_t *uc, struct fl_gate_thread *g, char selector)
{
	fl_spin_lock(&prog_sigsys_lock);
	struct sigaction a = prog_sigsys;
	fl_spin_unlock(&prog_sigsys_lock);
	if (a.sa_handler == SIG_IGN)
		return;
	if (a.sa_handler == SIG_DFL) {
		fl_gate_core_signal(SIGSYS); /* it dumps core: the program's pages home first */
		struct k_sigaction dfl = { SIG_DFL, 0, NULL, 0 };
		fl_syscall(SYS_rt_sigaction, SIGSYS, (long)&dfl, 0, K_SIGSET_BYTES);
		fl_syscall(SYS_tgkill, fl_syscall(SYS_getpid),
				 fl_syscall(SYS_gettid), SIGSYS);
		return; /* pending until this handler returns: the default action */
	}
	if (g)
		g->selector = selector;
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
}

/* ---- mapping events ---- */

/*
 * An engine without mapping events (sigbus, mprotect) hears of munmap, of what an mmap with
 * MAP_FIXED replaces, of a break that shrinks and of madvise's zaps here, glibc's internal calls
 * included (a trimmed or deleted arena heap, a freed mmapped block, its stack cache), where the
 * libc wrappers (hooks/interpose.c) saw only the program's own calls: what userfaultfd's UNMAP
 * and REMOVE events would have said, before the pages go (after, for madvise: the zap is the
 * call). map_events.c says them (fl_map_say).
 */

/* the calls that zap or move pages and are heard of after they did (map_events.c, fl_map_learn_dirty_before) */
static void learn_dirty_before(long nr, const long *a)
{
	int late = nr == SYS_mremap || (nr == SYS_madvise && fl_map_zaps(a[2]));
	if ((fl_engine->observes & FL_OBSERVES_MAP_EVENTS) && (nr == SYS_munmap || (nr == SYS_mmap && ((int)a[3] & MAP_FIXED))))
		late = 1;
	if (late)
		fl_map_learn_dirty_before((uintptr_t)a[0], (size_t)a[1]);
}

/*
 * Under an engine with mapping events (uffd), a zapping madvise's REMOVE event does not say its
 * advice: the call's hint does (map_events.c), posted here for every call, glibc's own included
 * (the interposer posts none while the gate is on). Returns the hint's index, or -1.
 */
static int advice_hint(long nr, const long *a)
{
	if (nr != SYS_madvise || !fl_map_zaps(a[2]) || fl_map_says_events() || !fl_tracing())
		return -1;
	return fl_hint_post(FL_HINT_MADVISE, (uintptr_t)a[0], (uint64_t)a[1], (uint64_t)a[2]);
}

static void map_events_before(long nr, const long *a)
{
	uintptr_t s = (uintptr_t)a[0];
	learn_dirty_before(nr, a);
	if (!fl_map_says_events() || (s & (FL_PAGE - 1)))
		return;
	if ((nr == SYS_munmap || (nr == SYS_mmap && ((int)a[3] & MAP_FIXED))) && a[1])
		fl_map_say(FL_TRAP_UNMAP, s, FL_PAGE_UP(s + (uintptr_t)a[1]), 0);
	if (nr == SYS_brk && s) {
		uintptr_t cur = (uintptr_t)fl_syscall(SYS_brk);
		if (s < cur)
			fl_map_say(FL_TRAP_UNMAP, FL_PAGE_UP(s), FL_PAGE_UP(cur), 0);
	}
}

static void map_events_after(long nr, const long *a, long r)
{
	if (nr == SYS_madvise && r == 0 && a[1] && fl_map_says_events() && fl_map_zaps(a[2]))
		fl_map_say(FL_TRAP_REMOVE, FL_PAGE_DOWN(a[0]), FL_PAGE_UP((uintptr_t)a[0] + (uintptr_t)a[1]), (uint64_t)a[2]);
}

/* ---- the handler ---- */

static int clone_like_thread(long nr, const long *a)
{
	if (nr == SYS_vfork)
		return 1;
	if (nr == SYS_clone)
		return ((unsigned long)a[0] & CLONE_VM) != 0;
	if (nr == SYS_clone3 && a[0] && (size_t)a[1] >= sizeof(uint64_t))
		return (*(const volatile uint64_t *)a[0] & CLONE_VM) != 0;
	return 0;
}

/*
 * mincore: a page the engine holds away from its address (parked by the userfaultfd engines,
 * their held_away op) is resident all the same, as natively: it holds the program's data
 * (its "populated" bit), only elsewhere. vec is held by this call under the in-thread engines,
 * and was just written by the kernel under uffd.
 */
static void resident_as_natively(uintptr_t addr, size_t len, unsigned char *vec, uint32_t tid)
{
	if (!fl_engine->held_away || !fl_tracing())
		return;
	uintptr_t start = FL_PAGE_DOWN(addr), end = FL_PAGE_UP(addr + len);
	/* a reader of the range table and the pages' bits, beside the faults resolved without the
	 * lock (lock.c), else under it: the answer is as racy as the kernel's own */
	int shared = fl_shared_enter(tid);
	if (!shared)
		fl_lock();
	for (struct fl_overlap o = fl_overlaps(start, end); fl_overlap_next(&o);)
		for (uintptr_t p = o.a; p < o.b; p += FL_PAGE)
			if (!(vec[(p - start) / FL_PAGE] & 1) && fl_engine->held_away(o.r, p))
				vec[(p - start) / FL_PAGE] |= 1;
	if (shared)
		fl_shared_exit(tid);
	else
		fl_unlock();
}

/*
 * close_range(first, last, flags) (closefrom, python's subprocess): the program's descriptors in
 * the range, the agent's left open; one call per run between the agent's, each gated as the
 * program's would be (kernel events: the closes).
 */
static long gated_call(long nr, const long *a, ucontext_t *uc, struct fl_gate_thread *g);

static long close_run(unsigned int from, unsigned int to, long flags, ucontext_t *uc, struct fl_gate_thread *g)
{
	long b[6] = { from, to, flags, 0, 0, 0 };
	return gated_call(SYS_close_range, b, uc, g);
}

static long close_range_around_agent(const long *a, ucontext_t *uc, struct fl_gate_thread *g)
{
	unsigned int first = (unsigned int)a[0], last = (unsigned int)a[1];
	if (first > last)
		return -EINVAL;
	int ours[32];
	int n = fl_agent_fds(ours, 32);
	unsigned int run = first; /* the first descriptor of the run not yet closed */
	for (int i = 0; i < n; i++) {
		unsigned int fd = (unsigned int)ours[i];
		if (fd < run || fd > last)
			continue;
		long r = fd > run ? close_run(run, fd - 1, a[2], uc, g) : 0;
		if (r)
			return r;
		run = fd + 1;
	}
	return run <= last ? close_run(run, last, a[2], uc, g) : 0;
}

/* fork, vfork, or a clone of a new process (no CLONE_THREAD): posix_spawn, system, popen too */
static int makes_process(long nr, const long *a)
{
	if (nr == SYS_fork || nr == SYS_vfork)
		return 1;
	if (nr == SYS_clone)
		return !((unsigned long)a[0] & CLONE_THREAD);
	if (nr == SYS_clone3 && a[0] && (size_t)a[1] >= sizeof(uint64_t))
		return !(*(const volatile uint64_t *)a[0] & CLONE_THREAD);
	return 0;
}

static long gated_call(long nr, const long *a, ucontext_t *uc, struct fl_gate_thread *g)
{
	struct fl_gate_region regions[FL_GATE_REGIONS];
	uint32_t flags = 0, n = 0;
	struct held_set *h = NULL, hs;
	if (gate_memory) {
		/* tracing stopping: the kernel would meet pages still disabled (EFAULT); they come home first */
		if (!fl_tracing())
			fl_restoring_wait();
		g->kernel = 1; /* reading iovecs, strings and the like is the kernel's reference too */
		n = fl_tracing() ? fl_gate_regions(nr, a, regions, &flags) : 0;
		if (flags & FL_SC_REFUSE) {
			g->kernel = 0;
			return -ENOSYS;
		}
		if (n) {
			h = &hs;
			/* beside the faults resolved without the lock (lock.c), else under it */
			int shared = fl_shared_enter((uint32_t)g->tid);
			if (!shared)
				fl_lock();
			hold(regions, n, h, shared);
			if (h->held && !h->missed)
				open_call(g, regions, n, h, (uintptr_t)__builtin_frame_address(0));
			if (shared)
				fl_shared_exit((uint32_t)g->tid);
			else
				fl_unlock();
			touch(regions, n);
		}
		g->kernel = 0;
	} else {
		flags = fl_gate_flags(nr) & FL_SC_QUICK; /* uffd: no user memory read here, nothing refused */
	}
	if (__atomic_load_n(&standard_pending, __ATOMIC_ACQUIRE) && __atomic_exchange_n(&standard_pending, 0, __ATOMIC_ACQ_REL) &&
	    fl_tracing())
		standard_events(g);
	/* kernel events: what is gone after the call is read now (the call's pages are held) */
	struct fl_kev_call kc;
	int kev = gate_events && fl_tracing() && fl_kev_wanted(nr, a);
	kc.n = 0;
	if (kev)
		fl_kev_before(nr, a, &kc);
	map_events_before(nr, a);
	int advice = advice_hint(nr, a);
	uint64_t handler_mask = 0;
	int quick = (flags & FL_SC_QUICK) != 0;
	if (!quick) /* the program's mask while the call waits: a signal interrupts it as it would have */
		fl_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&uc->uc_sigmask, (long)&handler_mask,
				 K_SIGSET_BYTES);
	g->selector = SELECTOR_BLOCK;
	long r = fl_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	g->selector = SELECTOR_ALLOW;
	/* a fork's child, whose only thread is this one: the lock as the fork left it, the parent's
	 * other threads' faults counted in it, before this epilogue takes it */
	if (r == 0 && (nr == SYS_fork || ((nr == SYS_clone || nr == SYS_clone3) && !clone_like_thread(nr, a))))
		fl_lock_reset_after_fork();
	if (!quick)
		fl_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&handler_mask, 0, K_SIGSET_BYTES);
	if (nr == SYS_mincore && r == 0)
		resident_as_natively((uintptr_t)a[0], (size_t)a[1], (unsigned char *)a[2], (uint32_t)g->tid);
	if (kev)
		fl_kev_after(nr, a, r, &kc); /* before release: a pipe's descriptors are read from held pages */
	if ((h && h->held) || kc.n) {
		/*
		 * Beside the faults resolved without the lock: the events into the thread's own ring,
		 * whose watermark is open around them (faultline_shm.h), the pages given back under their
		 * page locks. Under the lock when it is held or wanted, or the thread has no ring.
		 */
		uint32_t tid = (uint32_t)g->tid;
		int shared = fl_shared_enter(tid);
		struct fl_emitter *e = &g->emitter;
		if (shared && fl_emitter_bind(e, tid) != 0) { /* its counters count the evictions too */
			fl_shared_exit(tid);
			shared = 0;
		}
		if (!shared)
			fl_lock();
		if (kc.n && fl_tracing()) {
			if (shared) {
				fl_emit_open(e);
				fl_kev_write_to(e, &kc, tid);
				fl_emit_close(e);
			} else {
				fl_kev_write(&kc, tid);
			}
		}
		if (h && h->held) {
			release(regions, n, h, shared ? e : NULL);
			if (g->open_sp == (uintptr_t)__builtin_frame_address(0))
				g->open_sp = 0;
		}
		if (shared)
			fl_shared_exit(tid);
		else
			fl_unlock();
	}
	map_events_after(nr, a, r);
	/* the event used the hint before the call's thread runs on (fl_hint_take_said) */
	if (r == 0)
		fl_hint_take_said(advice);
	else
		fl_hint_take(advice);
	return r;
}

static void on_sigsys_in(int sig, siginfo_t *si, ucontext_t *uc, struct fl_gate_thread *g);

static void on_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct fl_gate_thread *g = thread_here();
	if (g)
		g->in_sigsys++;
	on_sigsys_in(sig, si, uc, g);
	if (g)
		g->in_sigsys--;
}

static void on_sigsys_in(int sig, siginfo_t *si, ucontext_t *uc, struct fl_gate_thread *g)
{
	char selector = g ? g->selector : SELECTOR_ALLOW;
	if (g)
		g->selector = SELECTOR_ALLOW;
	if (si->si_code != SYS_USER_DISPATCH || !g) {
		pass_on_sigsys(sig, si, uc, g, selector);
		if (g)
			g->selector = selector;
		return;
	}
	if (gate_memory)
		abandoned(g, (uintptr_t)__builtin_frame_address(0));
	greg_t *gr = uc->uc_mcontext.gregs;
	long nr = si->si_syscall;
	long a[6] = { gr[REG_RDI], gr[REG_RSI], gr[REG_RDX], gr[REG_R10], gr[REG_R8], gr[REG_R9] };
	long r;
	if (makes_process(nr, a))
		fl_untraced_note_spawner(g->tid); /* its children are looked at for ones the agent is not in */
	switch (nr) {
	case SYS_rt_sigreturn:
		/* a handler whose restorer is not ours: the frame is where the program's restorer left
		 * its stack pointer; ours makes the same call from the allowed range */
		gr[REG_RIP] = (greg_t)fl_gate_restorer;
		g->selector = selector;
		return;
	case SYS_rt_sigprocmask:
		r = sigprocmask_on_frame(uc, a, g);
		break;
	case SYS_rt_sigaction:
		r = sigaction_gated(a);
		break;
	case SYS_sigaltstack:
		r = sigaltstack_gated(a, g);
		break;
	case SYS_close:
		/* the agent's descriptors do not exist for the program, as natively */
		r = fl_fd_is_agent((int)a[0]) ? -EBADF : gated_call(nr, a, uc, g);
		break;
	case SYS_close_range:
		r = close_range_around_agent(a, uc, g);
		break;
	case SYS_prctl:
		if (a[0] == PR_SET_SYSCALL_USER_DISPATCH) {
			r = -EBUSY;
			break;
		}
		if (a[0] == PR_GET_THP_DISABLE && thp_view >= 0) {
			r = thp_view; /* the agent disabled THP for its moves (agent.c): the program's own setting */
			break;
		}
		if (a[0] == PR_SET_THP_DISABLE && thp_view >= 0) {
			/* kept, not made: the moves need THP off (kernel/sys.c's checks) */
			r = a[2] || a[3] || a[4] ? -EINVAL : (thp_view = a[1] != 0, 0);
			break;
		}
		r = gated_call(nr, a, uc, g);
		break;
	default:
		if (clone_like_thread(nr, a)) {
			/* made after this handler returns (see the top of the file) */
			while (__atomic_exchange_n(&fl_gate_clone_slot.busy, 1, __ATOMIC_ACQUIRE))
				fl_syscall(SYS_sched_yield);
			fl_gate_clone_slot.rip = (uint64_t)gr[REG_RIP];
			__atomic_store_n(&fl_gate_clone_slot.taken, 0, __ATOMIC_RELEASE);
			gr[REG_RIP] = (greg_t)fl_gate_clone_tail;
			gr[REG_RAX] = nr;
			g->selector = selector;
			return;
		}
		r = gated_call(nr, a, uc, g);
	}
	gr[REG_RAX] = r;
	g->selector = selector;
}

/* ---- arming ---- */

static int arm(struct fl_gate_thread *g)
{
	/*
	 * A new thread's mask was restored ungated by glibc from its creator's as the program read it
	 * (with what it asked to block of these): the program's wish kept, the signals open.
	 */
	uint64_t nb = never_blocked(), now = 0;
	if (fl_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&nb, (long)&now, K_SIGSET_BYTES) == 0)
		g->blocked_wanted |= now & nb;
	g->selector = SELECTOR_ALLOW;
	long r = fl_syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, (long)text_start,
				  (long)(text_end - text_start), (long)&g->selector);
	if (r)
		return (int)r;
	g->armed = 1;
	g->selector = SELECTOR_BLOCK;
	return 0;
}

void fl_gate_thread(void)
{
	if (!fl_gate_active())
		return;
	struct fl_gate_thread *g = thread_of((int32_t)fl_syscall(SYS_getpid),
					     (int32_t)fl_syscall(SYS_gettid));
	if (g && !g->armed)
		arm(g);
}

/*
 * Every handler already installed returns through our restorer from now on (the fault signal's
 * among them), with SIGSYS and the fault signal open; then SIGSYS is ours and this thread armed.
 * The gate arms for the calls' memory under an engine whose kernel accesses fail on a disabled
 * page (sigbus, mprotect), and for kernel events under every engine unless they are off
 * (record --no-kernel-events, monitor mode, which writes no trace): under uffd with events off
 * there is nothing to gate, and no call pays for it.
 */
int fl_gate_start(void)
{
	gate_memory = !(fl_engine->observes & FL_OBSERVES_KERNEL_ACCESS);
	gate_events = !(fl_agent.flags & FL_FLAG_NO_KERNEL_EVENTS) && fl_agent.mode != FL_MODE_MONITOR;
	if (!gate_memory && !gate_events)
		return 0;
	const char *env = getenv("FAULTLINE_GATE");
	if (env && !strcmp(env, "off")) {
		/* once a recording: its first process says it */
		if (gate_events && *fl_slot64(FL_SLOT_CLAIM) == 1)
			fl_log("FAULTLINE_GATE=off: no kernel events (open, read, write, close... of files and pipes) "
			       "are recorded", NULL, NULL);
		gate_memory = gate_events = 0;
		return 0;
	}
	fault_sig = fl_engine->fault_signal ? fl_engine->fault_signal() : 0;
	if (!text_start)
		dl_iterate_phdr(find_text, NULL);
	int32_t pid = (int32_t)fl_syscall(SYS_getpid);
	struct fl_gate_thread *g = thread_of(pid, (int32_t)fl_syscall(SYS_gettid));
	if (!text_start || !g) {
		fl_log("system-call gate: no alternate signal stack or agent text found; system calls into disabled "
		       "pages may fail with EFAULT", NULL, NULL);
		return -ENOENT;
	}
	struct k_sigaction ours = { (void *)on_sigsys, SA_SIGINFO | SA_ONSTACK | K_SA_RESTORER, (void *)fl_gate_restorer,
				    ~never_blocked() };
	struct k_sigaction old;
	if (fl_syscall(SYS_rt_sigaction, SIGSYS, 0, (long)&old, K_SIGSET_BYTES) == 0) {
		prog_sigsys.sa_handler = (void (*)(int))old.handler;
		prog_sigsys.sa_flags = (int)old.flags;
	}
	fl_syscall(SYS_rt_sigaction, SIGSYS, (long)&ours, 0, K_SIGSET_BYTES);
	for (int s = 1; s < 65; s++) {
		struct k_sigaction k;
		if (s == SIGSYS || s == SIGKILL || s == SIGSTOP ||
		    fl_syscall(SYS_rt_sigaction, s, 0, (long)&k, K_SIGSET_BYTES) != 0)
			continue;
		if (s != fault_sig)
			prog_act[s] = k;
		struct k_sigaction kern = kernel_action(s, &k);
		if (kern.handler == k.handler && kern.flags == k.flags && kern.restorer == k.restorer && kern.mask == k.mask)
			continue;
		if (fl_syscall(SYS_rt_sigaction, s, (long)&kern, 0, K_SIGSET_BYTES) == 0 &&
		    kern.handler == (void *)on_core_signal)
			core_caught |= BIT(s);
	}
	int err = arm(g);
	if (err) {
		fl_log("system-call gate: Syscall User Dispatch refused (", strerror(-err),
		       "; sysctl kernel.syscall_user_dispatch?); system calls into disabled pages may fail with EFAULT");
		return err;
	}
	__atomic_store_n(&gate_on, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&standard_pending, gate_events, __ATOMIC_RELEASE);
	/* glibc's internal unmaps are mapping events now: the sigbus engine's check that an evicted
	 * page still lies in a registered mapping (uffd_evict) is not needed */
	if (gate_memory && fl_engine->unmaps_heard)
		fl_engine->unmaps_heard();
	return 0;
}
