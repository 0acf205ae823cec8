/*
 * gate.h: the system-call gate (gate.c): under an engine that cannot make a kernel-mode access
 * wait (sigbus, mprotect), every system call of a traced thread reaches the agent first
 * (Syscall User Dispatch), which brings in and pins the user memory the call will read or write
 * (gate_table.c says which), records those references as the kernel's, and then makes the call;
 * under every engine it then writes the call's kernel events (gate_events.c).
 */
#ifndef FL_GATE_H
#define FL_GATE_H

#include <signal.h>
#include <sys/stat.h>

#include "emit.h"
#include "sys.h"

/* gate_table.c: one piece of user memory a system call reads or writes */
struct fl_gate_region {
	uintptr_t addr;
	size_t len;
	uint32_t dir; /* FL_GATE_READ | FL_GATE_WRITE */
};

/*
 * A thread's gate state, in agent memory at the base of its alternate signal stack
 * (sigstack.c): the kernel reads the selector at every system call, so it must never be a
 * disabled page, and the signal handlers find it from their stack pointer, with no TLS and no
 * system call.
 */
#define FL_GATE_OPEN_REGIONS 16
#define FL_GATE_OPEN_PAGES 512 /* a call with more is not kept: it holds what it held until it returns */
struct fl_gate_thread {
	volatile char selector; /* SYSCALL_DISPATCH_FILTER_ALLOW (0) or _BLOCK (1), read by the kernel */
	volatile uint8_t kernel; /* the gate is touching a call's memory: faults are the kernel's references */
	uint8_t armed;           /* dispatch is on for this thread */
	uint8_t in_sigsys;       /* the gate's handlers running on this thread (they nest) */
	int32_t tid;
	/*
	 * What the program set and reads back, where the kernel holds something else: the signals
	 * of never_blocked() it asked to block (never blocked: a forced SIGSYS or fault while blocked
	 * kills the process), and its own alternate signal stack (the agent's stays installed).
	 */
	uint64_t blocked_wanted;
	stack_t altstack;
	/*
	 * The outermost call holding pages, while it is in the kernel (gate.c, open_call): what a
	 * thread that never returns from it (cancelled in it, or a signal handler's siglongjmp out
	 * of it) held, given back by the next call or by the thread's end. Here and not on the
	 * signal stack, which the next signal's frame overwrites.
	 */
	uintptr_t open_sp;       /* the handler's frame of the open call; 0: none */
	uint32_t open_n;         /* regions */
	uint32_t open_walked;    /* their pages looked at, in order (gate.c, struct held_set) */
	struct fl_gate_region open[FL_GATE_OPEN_REGIONS];
	uint64_t open_held[FL_GATE_OPEN_PAGES / 64]; /* which of them the call holds */
	/* the thread's ring, for its faults resolved without the agent lock (fault.c, emit.h) */
	struct fl_emitter emitter;
};

int fl_gate_start(void);  /* the process image's first thread, once tracing runs: 0, or -errno (the gate stays off) */
void fl_gate_thread(void); /* a new thread of the program (thread-start hook), or a followed fork child's */
void fl_gate_thread_end(void); /* the thread ends, maybe cancelled inside a call: what it held given back */
int fl_gate_active(void);  /* the gate sees this process's system calls (hooks/touch.c's wrappers stand down) */
/*
 * A signal that dumps core (its default action) is about to kill the process: when the kernel
 * will write a core, prepare() runs first (tracing stops, every page comes home: guard.c), so the
 * core holds the program's memory at its own addresses. The gate catches such signals while the
 * program's action for them is the default (reported to it as the default all the same);
 * fault_signal.c calls fl_gate_core_signal before its own signal's default death.
 */
void fl_gate_on_core(void (*prepare)(void)); /* before fl_gate_start */
void fl_gate_core_signal(int sig);
void fl_gate_untraced_child(void); /* a fork child the agent does not follow: the program's actions back */
void fl_gate_thp_view(int before); /* the agent disabled THP: PR_GET_THP_DISABLE answers before as the program's */

/* gate_table.c: the memory a system call reads and writes */
#define FL_GATE_READ 1u  /* the kernel reads the region */
#define FL_GATE_WRITE 2u /* the kernel writes it (a write touch) */
#define FL_GATE_REGIONS 64
#define FL_SC_QUICK 1u   /* never blocks: made with the handler's signal mask */
#define FL_SC_REFUSE 2u  /* refused with ENOSYS (the table cannot size what it hands the kernel) */
#define FL_SC_UNSIZED 4u /* takes user memory the table does not size: passed through untouched */
/* the regions of call nr with arguments a (user memory may be read to find them: iovecs,
 * msghdr, strings); returns how many, and sets *flags to FL_SC_* */
uint32_t fl_gate_regions(long nr, const long a[6], struct fl_gate_region *out, uint32_t *flags);
const char *fl_gate_name(long nr);

/* gate_table.c: call nr's FL_SC_* flags, read from the table alone (no user memory) */
uint32_t fl_gate_flags(long nr);

/* gate_events.c: kernel events (faultline_shm.h FL_EV_FILE_*, FL_EV_SHM*; FORMAT.md, "Kernel events") */
#define FL_KEV_TEXT 1024 /* text bytes kept: emit.c's most */
struct fl_kev {
	uint32_t type, text_len;
	uint64_t a, b, c, d;
	char text[FL_KEV_TEXT]; /* last: the rest is cleared without it */
};
struct fl_kev_call {
	uint32_t n;                /* events made, to write */
	int cut;                   /* the path was longer than FL_KEV_TEXT */
	uint32_t len, len2;        /* bytes of path (and of the second path, after a NUL) */
	uint64_t dev, ino;         /* what the path named before the call */
	char path[FL_KEV_TEXT];
	struct fl_kev ev[2];       /* pipe and socketpair make two descriptors */
	struct stat st;            /* scratch for the kernel: here, in agent memory, never a disabled page */
	char link[32];
};
int fl_kev_wanted(long nr, const long *a); /* call nr may make kernel events */
void fl_kev_before(long nr, const long *a, struct fl_kev_call *k); /* what is gone after the call */
void fl_kev_after(long nr, const long *a, long r, struct fl_kev_call *k); /* its events, if it succeeded */
void fl_kev_write(struct fl_kev_call *k, uint32_t tid); /* lock held */
/* without the lock, into the thread's ring e, its watermark open */
void fl_kev_write_to(struct fl_emitter *e, struct fl_kev_call *k, uint32_t tid);
/* an open event for standard descriptor fd (0, 1, 2) as the image starts with it; 0 if it is not open */
int fl_kev_standard(int fd, struct fl_kev_call *k);

#endif
