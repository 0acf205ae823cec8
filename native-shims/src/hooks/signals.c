/*
 * signals.c: the program's signal calls and setlocale, interposed while an in-thread engine's
 * fault signal is installed (fault_signal.c, which says the protocol): the program's action for
 * the fault signal is kept by the agent and told back, its other handlers run on an alternate
 * stack, its sigaltstack is told back but not used, and no mask it sets blocks the fault
 * signal. With the system-call gate on, the gate does most of this for every call (gate.c), and
 * these pass through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <string.h>

#include "fault_signal.h"
#include "gate.h"
#include "request.h"
#include "resolve.h"
#include "state.h"
#include "sys.h"

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static int (*real_sigaltstack)(const stack_t *, stack_t *);
static int (*real_pthread_sigmask)(int, const sigset_t *, sigset_t *);
static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);
static char *(*real_setlocale)(int, const char *);

FL_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	FL_RESOLVE(real_sigaction, "sigaction");
	int fault_sig = fl_fault_signal_number();
	if (!fault_sig)
		return real_sigaction(sig, act, old);
	if (sig == fault_sig) {
		fl_fault_signal_program_action(act, old);
		return 0;
	}
	if (act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN && !(act->sa_flags & SA_ONSTACK) &&
	    !fl_gate_active()) { /* the gate adds it, and tells the program back its own flags */
		/* else the kernel writes the frame on the thread's stack, which may be disabled */
		struct sigaction onstack = *act;
		onstack.sa_flags |= SA_ONSTACK;
		return real_sigaction(sig, &onstack, old);
	}
	return real_sigaction(sig, act, old);
}

/* glibc's signal() calls its internal sigaction, which the wrapper above never sees */
static sighandler_t signal_with(int sig, sighandler_t handler, int flags)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = flags;
	sigemptyset(&act.sa_mask);
	if (!(flags & SA_NODEFER)) /* as glibc's signal() (signal/signal.c): the signal itself, whatever the handler */
		sigaddset(&act.sa_mask, sig);
	if (sig <= 0 || sig >= NSIG || sigaction(sig, &act, &old) < 0) {
		errno = EINVAL;
		return SIG_ERR;
	}
	return old.sa_handler;
}

FL_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	return signal_with(sig, handler, SA_RESTART); /* glibc's BSD semantics */
}

FL_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return signal_with(sig, handler, SA_RESTART);
}

FL_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	return signal_with(sig, handler, SA_RESETHAND | SA_NODEFER);
}

FL_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	FL_RESOLVE(real_sigaltstack, "sigaltstack");
	if (!fl_fault_signal_number() || fl_gate_active())
		return real_sigaltstack(ss, old); /* the gate keeps the agent's stack, and tells the program its own */
	/* the agent's stack stays: the program's would be traced memory */
	int r = real_sigaltstack(NULL, old);
	if (r == 0 && ss && !(ss->ss_flags & SS_DISABLE) && ss->ss_size < (size_t)MINSIGSTKSZ) {
		errno = ENOMEM;
		return -1;
	}
	return r;
}

/* the set to block, less the fault signal (see the top of the file) */
static const sigset_t *without_fault_signal(int how, const sigset_t *set, sigset_t *copy)
{
	int fault_sig = fl_fault_signal_number();
	if (!set || how == SIG_UNBLOCK || !fault_sig || sigismember(set, fault_sig) != 1 || fl_gate_active())
		return set; /* the gate leaves it open itself, and tells the program back what it asked */
	*copy = *set;
	sigdelset(copy, fault_sig);
	return copy;
}

FL_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	FL_RESOLVE(real_pthread_sigmask, "pthread_sigmask");
	sigset_t copy;
	return real_pthread_sigmask(how, without_fault_signal(how, set, &copy), old);
}

FL_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	FL_RESOLVE(real_sigprocmask, "sigprocmask");
	sigset_t copy;
	return real_sigprocmask(how, without_fault_signal(how, set, &copy), old);
}

/*
 * Memory that glibc reads with every signal blocked, where a fault on a disabled page kills the
 * process (the kernel forces the fault signal's default action on a blocked fault). A new thread runs
 * __ctype_init (ctype/ctype-info.c) in start_thread (nptl/pthread_create.c) before it restores
 * its signal mask, and __ctype_init reads the first values of the global locale's LC_CTYPE
 * data, a block that setlocale malloc'd if it loaded the locale from files (locale/loadlocale.c,
 * _nl_intern_locale_data; the C locale's is libc's own). A JVM starting threads died so. Their
 * pages stay enabled for good, as each thread's struct pthread does (serve.c,
 * on_thread_start): the block's header and first values lie in its first 128 bytes (struct
 * __locale_data, locale/localeinfo.h: 64 bytes, then the values), and references to these pages
 * are not recorded. duplocale copies the global locale's pointers to its data.
 */
FL_EXPORT char *setlocale(int category, const char *locale)
{
	FL_RESOLVE(real_setlocale, "setlocale");
	char *r = real_setlocale(category, locale);
	if (r && locale && (category == LC_CTYPE || category == LC_ALL) && fl_fault_signal_number() && fl_tracing()) {
		int saved = errno;
		locale_t global = duplocale(LC_GLOBAL_LOCALE);
		if (global) {
			uintptr_t ctype = (uintptr_t)global->__locales[LC_CTYPE];
			freelocale(global);
			fl_req_call(FL_REQ_PIN, ctype, ctype + 128, 0, 0);
		}
		errno = saved;
	}
	return r;
}
