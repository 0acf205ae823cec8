/*
 * fault_signal.c: the fault path of the in-thread engines on the faulting thread, and the
 * program's own handling of that signal kept intact around it. The mprotect engine
 * (engine_mprotect.c) traps with SIGSEGV (SEGV_ACCERR: a PROT_NONE page), the sigbus engine
 * (engine_sigbus.c) with SIGBUS (BUS_ADRERR: a missing or write-protected page of a range
 * registered with a UFFD_FEATURE_SIGBUS userfaultfd). One engine runs per process image, so one
 * signal is the fault signal; below, "the signal" is that one.
 *
 * Protocol. The agent's handler is installed with SA_SIGINFO | SA_ONSTACK and every signal
 * blocked while it runs (an asynchronous handler of the program that faulted on a disabled page
 * while this thread holds the agent lock would wait for itself). A fault of the signal's code
 * that the engine caused (its trapped(): a disabled page, or a write to a page it keeps
 * read-only) goes through the fault path for one fault (fault.c, fl_fault_on_thread: label,
 * decide, publish, evict, enable; without the agent lock where it can, else under it); returning
 * retries the access. Read, write,
 * fetch and whether the page was present come from the x86 page-fault error code in the signal
 * context (REG_ERR: bit 0 P, bit 1 W/R, bit 4 I/D; Intel SDM vol. 3A, 4.7; the kernel stores it
 * for SIGBUS as for SIGSEGV, arch/x86/mm/fault.c). Every other fault is the program's:
 *   - sigaction, signal, bsd_signal and sysv_signal for the signal are interposed
 *     (hooks/signals.c, through fl_fault_signal_program_action): the agent
 *     keeps the program's action, reports it back, and calls it for faults that are not its
 *     own, with the mask the program asked for;
 *   - SIG_DFL (and SIG_IGN, which the kernel turns into SIG_DFL for a fault) puts the default
 *     action back and returns: the access faults again and the process dies of it as it would
 *     untraced; the signal sent by kill is raised again after the default is back;
 *   - tracing stopping (the recorder died or asked us to stop): the guard brings every page
 *     home, and until it has (fl_restoring) a fault on a disabled page is neither ours nor the
 *     program's; the thread waits for the teardown and retries;
 *   - a race: another thread enabled the page (or tracing stopped and enabled every page)
 *     between the fault and the lock, so the fault no longer looks like ours. A traced page
 *     whose state allows the access now is a race for sure: the thread retries (another
 *     thread may win the next race too: up to RACE_RETRIES times in a row). Otherwise the
 *     thread retries once before the fault is passed on; a real fault then happens twice, the
 *     first time without effect.
 * Async-signal-safety: no malloc, no stdio, no errno (it lives in TLS, which may lie in a
 * disabled page), no TLS: the retry memo is keyed by tid. The signal frame goes to an
 * alternate stack in agent memory, since the thread's own stack page may be disabled and the
 * kernel could not write the frame there: set for the constructor's thread and for every thread
 * started through the pthread_create wrapper (fl_fault_signal_thread). The program's other
 * handlers get SA_ONSTACK for the same reason, and its own sigaltstack is reported back but not
 * used. The signal is never blocked: a fault while it is blocked kills the process (the kernel
 * forces the default action), and programs block every signal in worker threads, so
 * sigprocmask and pthread_sigmask leave it out of any set they block.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "engine.h"
#include "fault.h"
#include "mem.h"
#include "request.h"
#include "fault_signal.h"
#include "gate.h"
#include "sigstack.h"
#include "state.h"
#include "stacks.h"
#include "resolve.h"
#include "sys.h"

#define MEMO 256
#define RACE_RETRIES 1000
#define ERR_PRESENT 1 /* page-fault error code: P */
#define ERR_WRITE 2  /* W/R */
#define ERR_FETCH 16 /* I/D */

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static int (*real_pthread_sigmask)(int, const sigset_t *, sigset_t *);
static int installed;
static int fault_sig;  /* SIGSEGV or SIGBUS, set once per process image */
static int fault_code; /* its si_code for an engine's fault: SEGV_ACCERR or BUS_ADRERR */
static struct sigaction prog_action; /* the program's action for the signal (under prog_lock) */
static int prog_lock;
static struct {
	int32_t tid;
	uint32_t retries;
	uintptr_t addr;
} memo[MEMO];


static int fault_signal_active(void)
{
	return __atomic_load_n(&installed, __ATOMIC_ACQUIRE);
}

/*
 * 1: let the thread retry (the race above), up to `limit` times in a row at one address; 0: pass
 * the fault on now. The memo counts a thread's faults at one address that were not ours, and a
 * fault that was ours ends the run (forget): a memo left over from a race the thread won on its
 * retry would otherwise pass on its next race at that address at once. A JVM's threads read the
 * same class metadata, and such a stale memo passed one of their races on as a crash.
 */
static int retry(int32_t tid, uintptr_t addr, uint32_t limit)
{
	uint32_t i = (uint32_t)tid % MEMO;
	if (memo[i].tid != tid || memo[i].addr != addr) {
		memo[i].tid = tid;
		memo[i].addr = addr;
		memo[i].retries = 0;
	}
	if (memo[i].retries < limit) {
		memo[i].retries++;
		return 1;
	}
	memo[i].tid = 0;
	return 0;
}

static void forget(int32_t tid)
{
	uint32_t i = (uint32_t)tid % MEMO;
	if (memo[i].tid == tid)
		memo[i].tid = 0;
}

static void pass_on(int sig, siginfo_t *si, ucontext_t *uc, struct fl_gate_thread *g)
{
	fl_spin_lock(&prog_lock);
	struct sigaction a = prog_action;
	if ((a.sa_flags & SA_RESETHAND) && a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN) {
		prog_action.sa_handler = SIG_DFL;
		prog_action.sa_flags &= ~SA_SIGINFO;
	}
	fl_spin_unlock(&prog_lock);
	int sent = si->si_code <= 0; /* kill, tgkill, sigqueue: not a fault */
	if (a.sa_handler == SIG_IGN && sent)
		return;
	if (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN) {
		fl_gate_core_signal(fault_sig); /* the program's pages home before its core is written */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		real_sigaction(fault_sig, &dfl, NULL);
		__atomic_store_n(&installed, 0, __ATOMIC_RELEASE);
		if (sent) /* pending until this handler returns, then the default action */
			fl_syscall(SYS_tgkill, fl_syscall(SYS_getpid), fl_syscall(SYS_gettid),
					fault_sig);
		return;
	}
	/* the program's handler runs with the mask it asked for; the signal stays open (it may
	 * fault on a disabled page itself, which is ours again) */
	sigset_t mask = uc->uc_sigmask;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&a.sa_mask, s) == 1)
			sigaddset(&mask, s);
	sigdelset(&mask, fault_sig);
	sigdelset(&mask, SIGSYS); /* the handler runs gated: a SIGSYS forced while blocked would kill it */
	fl_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0, NSIG / 8);
	/* the program's handler runs gated, as the interrupted code did */
	char selector = g ? g->selector : 0;
	if (g)
		g->selector = g->armed;
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
	if (g)
		g->selector = selector;
}

int fl_fault_signal_number(void)
{
	return fault_signal_active() ? fault_sig : 0;
}

void fl_fault_signal_program_action(const struct sigaction *act, struct sigaction *old)
{
	fl_spin_lock(&prog_lock);
	if (old)
		*old = prog_action;
	if (act)
		prog_action = *act;
	fl_spin_unlock(&prog_lock);
}

static void on_fault(int sig, siginfo_t *si, ucontext_t *uc, struct fl_gate_thread *g);

/*
 * Under the system-call gate the thread's selector is ALLOW while the agent handles the fault
 * (its system calls, and libc's it calls, must not be dispatched to SIGSYS, which this handler
 * blocks: a blocked SIGSYS forced by the kernel kills the process), and back as it was after,
 * also around the program's own handler.
 */
static void on_fault_signal(int sig, siginfo_t *si, void *ucv)
{
	struct fl_gate_thread *g = fl_sigstack_here();
	char selector = g ? g->selector : 0;
	if (g)
		g->selector = 0;
	on_fault(sig, si, ucv, g);
	if (g)
		g->selector = selector;
}

static void on_fault(int sig, siginfo_t *si, ucontext_t *uc, struct fl_gate_thread *g)
{
	if (si->si_code == fault_code && fl_tracing()) {
		uintptr_t addr = (uintptr_t)si->si_addr;
		long err = uc->uc_mcontext.gregs[REG_ERR];
		uint32_t access = ((err & ERR_WRITE) ? FL_ACCESS_WRITE : 0) | ((err & ERR_FETCH) ? FL_ACCESS_EXEC : 0) |
				  ((err & ERR_PRESENT) ? FL_ACCESS_PRESENT : 0) | (g && g->kernel ? FL_ACCESS_KERNEL : 0);
		int32_t tid = (int32_t)fl_syscall(SYS_gettid);
		/* the program's registers at the fault: its call stack (stacks.c, record --stacks) */
		struct fl_stack_regs regs = { .pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP],
					      .sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP],
					      .fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP] };
		int ours = fl_fault_on_thread(addr, (uint32_t)tid, access, &regs, g ? &g->emitter : NULL);
		if (ours == 1) {
			forget(tid);
			return;
		}
		/* a page that allows the access now: a race each time, as long as other threads
		 * keep changing the page between the fault and the lock; bounded all the same */
		if (retry(tid, addr, ours == 2 ? RACE_RETRIES : 1))
			return;
	}
	/* tracing stopped but its pages are not all back yet: wait for them, then retry */
	if (si->si_code == fault_code && fl_restoring_wait())
		return;
	FL_DEBUG("fault-signal-pass-on", si->si_addr, si->si_code, uc->uc_mcontext.gregs[REG_ERR]);
	pass_on(sig, si, uc, g);
}

/* an alternate signal stack for this thread, in agent memory, never unmapped (a thread may
 * fault during its exit, after the last moment the agent hears of it) but given to a new
 * thread once the kernel says its thread is gone; the signal unblocked */
void fl_fault_signal_thread(void)
{
	if (!fault_signal_active())
		return;
	int32_t pid = (int32_t)fl_syscall(SYS_getpid);
	int32_t tid = (int32_t)fl_syscall(SYS_gettid);
	/* the slot's first page holds the thread's gate state (gate.h), the stack lies above it */
	struct fl_gate_thread *g = fl_sigstack_take(pid, tid);
	if (!g)
		return;
	g->tid = tid;
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, fault_sig);
	FL_RESOLVE(real_pthread_sigmask, "pthread_sigmask");
	real_pthread_sigmask(SIG_UNBLOCK, &one, NULL);
}

int fl_fault_signal_install(int sig, const char *engine)
{
	FL_RESOLVE(real_sigaction, "sigaction");
	if (fault_signal_active()) {
		/* a followed fork child inherits the handler and its thread's stack; a later attached
		 * session of another in-thread engine cannot take the signal over */
		if (sig == fault_sig)
			return 0;
		fl_log(engine, " engine: another engine's fault signal is installed in this process; record with that engine",
		       NULL);
		return -EBUSY;
	}
	fault_sig = sig;
	fault_code = sig == SIGBUS ? BUS_ADRERR : SEGV_ACCERR;
	struct sigaction ours;
	memset(&ours, 0, sizeof(ours));
	ours.sa_sigaction = on_fault_signal;
	ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&ours.sa_mask);
	if (real_sigaction(sig, NULL, &prog_action) != 0 || real_sigaction(sig, &ours, NULL) != 0) {
		int err = errno;
		fl_log(engine, " engine: cannot install its fault signal's handler: ", strerror(err));
		return -err;
	}
	__atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
	fl_fault_signal_thread();
	return 0;
}
