/*
 * agent.c: lifecycle. The constructor maps the recorder's shared memory, claims a slot,
 * creates the userfaultfd, allocates every agent table (mmap, never malloc), starts the
 * handler thread, and in scope "all" waits until the handler has registered and disabled the
 * existing anonymous memory. Without FAULTLINE_SHM the library is inert.
 *
 * Stdio and strerror are used only here, on the constructor's thread, before tracing starts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "faultline_shm.h"
#include "agent.h"
#include "args.h"
#include "check.h"
#include "emit.h"
#include "engine.h"
#include "evms.h"
#include "guard.h"
#include "launch.h"
#include "maps.h"
#include "mem.h"
#include "mode.h"
#include "fault_signal.h"
#include "gate.h"
#include "pagemap.h"
#include "pins.h"
#include "policy.h"
#include "ranges.h"
#include "request.h"
#include "ring.h"
#include "scope.h"
#include "sigstack.h"
#include "state.h"
#include "sys.h"
#include "untraced.h"

/* the engine, policy and mode the control block names (FL_ENGINE_*, FL_POLICY_*, FL_MODE_*); NULL if unknown */
static const struct fl_engine *engine_for(uint32_t id)
{
	switch (id) {
	case FL_ENGINE_UFFD:
		return &fl_engine_uffd;
	case FL_ENGINE_MPROTECT:
		return &fl_engine_mprotect;
	case FL_ENGINE_SIGBUS:
		return &fl_engine_sigbus;
	default:
		return NULL;
	}
}

static const struct fl_policy *policy_for(uint32_t id)
{
	switch (id) {
	case FL_POLICY_FIFO:
		return &fl_policy_fifo;
	case FL_POLICY_SEGQ_CLOCK:
		return &fl_policy_segq_clock;
	case FL_POLICY_SEGQ_FIFO:
		return &fl_policy_segq_fifo;
	default:
		return NULL;
	}
}

static const struct fl_mode *mode_for(uint32_t id)
{
	switch (id) {
	case FL_MODE_TRACE:
		return &fl_mode_trace;
	case FL_MODE_MOCA:
		return &fl_mode_moca;
	case FL_MODE_MONITOR:
		return &fl_mode_monitor;
	default:
		return NULL;
	}
}

/* a fork child, or a new attached session: counters from zero */
static void reset_counters(void)
{
	fl_counters_reset();
	fl_fork_depth = 0;
}

static int fl_attached; /* started by faultline_attach, not by the constructor */
static int tables_ready;
static int start_handler(void);

/*
 * The agent's tables are allocated once per process image. A later attached session starts
 * from them as a followed fork child does (the same resets): the previous session's handler
 * is gone and its teardown emptied the range table and brought every page home. Only the
 * EVMS is allocated again, for this session's size; the old one stays mapped (a few KiB).
 */
static int init_tables(void)
{
	if (tables_ready) {
		fl_threads_starting = 0; /* starts the last session never served */
		fl_req_reset_after_fork();
		reset_counters();
		fl_engine->reset_after_fork();
		fl_evms_reset();
		fl_pins_forget(0, UINTPTR_MAX);
		fl_handler_reset_after_fork();
		int err = fl_engine->init(); /* another engine than the last session's: its tables */
		if (err)
			return err;
		return fl_evms_init(policy_for(*fl_ctl32(FL_CTL_POLICY)), fl_agent.evms_pages, *fl_ctl32(FL_CTL_LEAD_PAGES));
	}
	int err;
	if ((err = fl_maps_init()) || (err = fl_ranges_init(65536)) ||
	    (err = fl_evms_init(policy_for(*fl_ctl32(FL_CTL_POLICY)), fl_agent.evms_pages, *fl_ctl32(FL_CTL_LEAD_PAGES))) ||
	    (err = fl_pins_init(16384)) || (err = fl_req_init()) || (err = fl_engine->init()) ||
	    (err = fl_scope_init()))
		return err;
	tables_ready = 1;
	return 0;
}

static void stop_with_error(uint32_t reason, int err)
{
	if (!fl_agent.slot)
		return;
	__atomic_store_n(fl_slot32(FL_SLOT_ERROR), (uint32_t)err, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STOP_REASON), reason, __ATOMIC_RELEASE);
	__atomic_store_n(fl_slot32(FL_SLOT_STATE), FL_SLOT_STOPPED, __ATOMIC_RELEASE);
}

static int map_shm(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		/*
		 * Gone: the recording is over (the recorder removed the file at its end, or its guard
		 * or an agent did after it died) and this image, exec'd since, runs untraced. Said on
		 * the program's stderr it would change the program's output.
		 */
		if (errno == ENOENT)
			FL_DEBUG("shm-gone", 0, 0, -ENOENT);
		else
			fl_log("cannot open the recording's shared memory (FAULTLINE_SHM): ", strerror(errno), NULL);
		return -1;
	}
	struct stat st;
	if (fl_syscall(SYS_fstat, fd, &st) < 0 || st.st_size < (off_t)FL_CTL_SIZE) {
		fl_log("shared memory file too small: ", path, NULL);
		close(fd);
		return -1;
	}
	uint8_t *m = fl_sys_mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fl_log("cannot map ", path, strerror(errno));
		return -1;
	}
	uint64_t magic;
	uint32_t version;
	memcpy(&magic, m + FL_CTL_MAGIC, 8);
	memcpy(&version, m + FL_CTL_VERSION, 4);
	if (magic != FL_SHM_MAGIC || version != FL_SHM_VERSION) {
		char v[24];
		v[fl_fmt_u64(v, version)] = 0;
		fl_log(magic != FL_SHM_MAGIC ? "bad magic in " : "unsupported shared memory version ",
		       magic != FL_SHM_MAGIC ? path : v, magic != FL_SHM_MAGIC ? NULL : " (agent speaks version " FL_STR(FL_SHM_VERSION) ")");
		fl_sys_munmap(m, (size_t)st.st_size);
		return -1;
	}
	fl_agent.shm = m;
	fl_agent.shm_len = (size_t)st.st_size;
	uint32_t slots = *fl_ctl32(FL_CTL_SLOT_COUNT), cap = *fl_ctl32(FL_CTL_RING_CAPACITY);
	uint64_t ring_off = *fl_ctl64(FL_CTL_RING_OFFSET), stride = *fl_ctl64(FL_CTL_RING_STRIDE);
	if (slots == 0 || cap < 1024 || (cap & (cap - 1)) || FL_SLOTS_OFFSET + (uint64_t)slots * FL_SLOT_SIZE > ring_off ||
	    stride < (uint64_t)cap + FL_RING_TRAILER_LENGTH || ring_off + stride * slots > fl_agent.shm_len ||
	    *fl_ctl64(FL_CTL_LEDGER_OFFSET) < ring_off + stride * slots ||
	    *fl_ctl64(FL_CTL_LEDGER_OFFSET) + (uint64_t)FL_LEDGER_SIZE * slots > fl_agent.shm_len) {
		fl_log("inconsistent control block in ", path, NULL);
		fl_sys_munmap(m, (size_t)st.st_size);
		fl_agent.shm = NULL;
		return -1;
	}
	fl_mem_add((uintptr_t)m, (uintptr_t)m + FL_PAGE_UP(fl_agent.shm_len));
	fl_sys_madvise(m, FL_PAGE_UP(fl_agent.shm_len), MADV_DONTDUMP); /* the rings are no part of the program's core */
	return 0;
}

/*
 * Without FL_FLAG_FOLLOW_FORKS only the first process is traced: a process may claim a slot
 * if no slot was ever claimed, or if it is the same pid as a claimed slot (the first process
 * after exec; its old image can no longer write, so we end that slot with FL_STOP_EXEC).
 */
static int claim_one(pid_t pid, uint32_t slots);

static int claim_free_slot(pid_t pid)
{
	uint32_t slots = *fl_ctl32(FL_CTL_SLOT_COUNT);
	/*
	 * The recorder gives the slot of a process that is gone back (FREE) once its ring is
	 * drained, checking every 50 ms: when every slot is taken, wait a little for one.
	 */
	for (int wait = 0; wait < 100; wait++) {
		if (claim_one(pid, slots) == 0)
			return 0;
		struct timespec ts = { 0, 5 * 1000 * 1000L };
		fl_syscall(SYS_nanosleep, &ts, NULL);
	}
	char n[24];
	n[fl_fmt_u64(n, slots)] = 0;
	fl_log("all ", n, " process slots are taken by processes that are still running (each traced process and "
	       "each exec'd image takes one until it exits): this process runs untraced; record with a larger "
	       "--max-processes");
	return -1;
}

static int claim_one(pid_t pid, uint32_t slots)
{
	for (uint32_t i = 0; i < slots; i++) {
		uint8_t *s = fl_agent.shm + FL_SLOTS_OFFSET + (size_t)i * FL_SLOT_SIZE;
		uint32_t expect = FL_SLOT_FREE;
		if (__atomic_compare_exchange_n((uint32_t *)(s + FL_SLOT_STATE), &expect, FL_SLOT_ACTIVE, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			fl_agent.slot = s;
			fl_agent.slot_index = i;
			__atomic_store_n(fl_slot32(FL_SLOT_PID), (uint32_t)pid, __ATOMIC_RELEASE);
			__atomic_store_n(fl_slot32(FL_SLOT_PPID), (uint32_t)getppid(), __ATOMIC_RELEASE);
			__atomic_store_n(fl_slot64(FL_SLOT_CLAIM), __atomic_add_fetch(fl_ctl64(FL_CTL_CLAIMS), 1, __ATOMIC_ACQ_REL),
					 __ATOMIC_RELEASE);
			fl_emit_slot_claimed();
			return 0;
		}
	}
	return -1;
}

/*
 * Without FL_FLAG_FOLLOW_FORKS only the first process is traced: a process may claim a slot
 * only if no slot was ever claimed. A process whose pid holds a slot is a new image after
 * exec: its old image can no longer write, so we end that slot with FL_STOP_EXEC; the new
 * image is traced as its own slot when following (forks, or with FL_FLAG_FOLLOW_EXEC the
 * traced process's own execs, as faultline monitor asks), and runs untraced otherwise.
 */
static int claim_slot(void)
{
	uint32_t slots = *fl_ctl32(FL_CTL_SLOT_COUNT);
	uint32_t flags = *fl_ctl32(FL_CTL_FLAGS);
	pid_t pid = getpid();
	int any_claimed = 0, mine = -1, mine_active = 0;
	for (uint32_t i = 0; i < slots; i++) {
		uint8_t *s = fl_agent.shm + FL_SLOTS_OFFSET + (size_t)i * FL_SLOT_SIZE;
		uint32_t state = __atomic_load_n((uint32_t *)(s + FL_SLOT_STATE), __ATOMIC_ACQUIRE);
		if (state != FL_SLOT_FREE) {
			any_claimed = 1;
			/* the image before this one: its slot is the active one (slots are reused, so the
			 * index says nothing about age; older images of this pid are stopped) */
			if (*(uint32_t *)(s + FL_SLOT_PID) == (uint32_t)pid && !mine_active) {
				mine = (int)i;
				mine_active = state == FL_SLOT_ACTIVE;
			}
		}
	}
	if (mine >= 0) {
		uint8_t *s = fl_agent.shm + FL_SLOTS_OFFSET + (size_t)mine * FL_SLOT_SIZE;
		if (__atomic_load_n((uint32_t *)(s + FL_SLOT_STATE), __ATOMIC_ACQUIRE) == FL_SLOT_ACTIVE) {
			__atomic_store_n((uint32_t *)(s + FL_SLOT_STOP_REASON), FL_STOP_EXEC, __ATOMIC_RELEASE);
			__atomic_store_n((uint32_t *)(s + FL_SLOT_STATE), FL_SLOT_STOPPED, __ATOMIC_RELEASE);
		}
		fl_agent.exec_event = __atomic_load_n((uint32_t *)(s + FL_SLOT_EXEC_ANNOUNCED), __ATOMIC_ACQUIRE) == 0;
	}
	if (!(flags & FL_FLAG_FOLLOW_FORKS) && any_claimed && !(mine_active && (flags & FL_FLAG_FOLLOW_EXEC)))
		return -1; /* a child or a new image of the traced process: stay inert */
	return claim_free_slot(pid);
}

/*
 * libc's, ld.so's and our own writable segments (.data and .bss) are agent memory: the handler
 * runs their code and touches their data, so a fault there would wait for itself. Their extent
 * comes from the program headers, not from /proc/self/maps: there a .bss tail is an anonymous
 * line that the kernel merges with any anonymous mapping placed right after it (a malloc'd
 * direct buffer of the JVM, filling the hole an earlier one left), and that neighbour is the
 * program's memory, which scope "all" traces and faultline_trace_range accepts.
 */
struct lib_find {
	uintptr_t addr[3]; /* in libc, ld.so, and libfaultline itself (the last) */
};

static int add_lib_data(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	const struct lib_find *f = ctx;
	int ours = 0;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
		for (int i = 0; i < 3 && ph->p_type == PT_LOAD; i++)
			ours |= f->addr[i] >= s && f->addr[i] < e;
	}
	for (int k = 0; ours && k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		fl_mem_add(FL_PAGE_DOWN(s), FL_PAGE_UP(s + ph->p_memsz));
		/* our own .data and .bss (1.3 MiB of tables) stay out of the program's core; libc's and
		 * ld.so's are the program's state as much as ours */
		uintptr_t self = f->addr[2];
		int mine = 0;
		for (int j = 0; j < info->dlpi_phnum; j++) {
			const ElfW(Phdr) *q = &info->dlpi_phdr[j];
			uintptr_t qs = info->dlpi_addr + q->p_vaddr;
			mine |= q->p_type == PT_LOAD && self >= qs && self < qs + q->p_memsz;
		}
		if (mine)
			fl_sys_madvise((void *)FL_PAGE_DOWN(s), FL_PAGE_UP(s + ph->p_memsz) - FL_PAGE_DOWN(s), MADV_DONTDUMP);
	}
	return 0;
}

extern void *__tls_get_addr(void *);

/* the engine ready to trace, or the slot says why not (the engine said it on stderr) */
static int open_engine(void)
{
	int err = fl_engine->open();
	if (err)
		stop_with_error(FL_STOP_ERROR, -err);
	return err;
}

/*
 * The child waits until its parent's agent has emitted the FORK event naming it (serve.c,
 * announce_fork), reading the parent's slot, which fl_agent.slot still points to. It gives up
 * after FORK_WAIT_NS, or at once when the parent's agent has stopped: a trace whose order is off
 * by one fork is better than a program that hangs.
 */
#define FORK_WAIT_NS (2 * 1000 * 1000 * 1000L)
static void await_fork_event(pid_t pid)
{
	uint32_t *count = fl_slot32(FL_SLOT_FORKS_ANNOUNCED);
	uint64_t deadline = fl_now_ns() + FORK_WAIT_NS;
	for (;;) {
		uint32_t n = __atomic_load_n(count, __ATOMIC_ACQUIRE);
		for (uint32_t i = 0; i < FL_SLOT_FORK_PIDS_COUNT; i++)
			if (__atomic_load_n(fl_slot32(FL_SLOT_FORK_PIDS + 4 * i), __ATOMIC_RELAXED) == (uint32_t)pid)
				return;
		uint64_t now = fl_now_ns();
		if (now >= deadline || __atomic_load_n(fl_slot32(FL_SLOT_STATE), __ATOMIC_ACQUIRE) != FL_SLOT_ACTIVE)
			return;
		fl_futex_wait_shared(count, n, (long)(deadline - now < 50000000 ? deadline - now : 50000000));
	}
}

/*
 * The child of an interposed fork, when following forks: only this thread exists; the agent's
 * memory is a copy of the parent's (tables, parking areas), the parent's handler thread and
 * registrations are not. Claim a slot, create our own userfaultfd and handler, and have it
 * register and disable the inherited ranges (FL_REQ_FORK_CHILD). Returns 0, or -1 when the
 * child must run untraced (it then never touches the shared memory again).
 */
static int follow_child(void);

/*
 * The agent's own work at a session's start runs on a stack of its own: the program's stack is
 * traced from the first request on (FL_REQ_INIT registers and disables it, FL_REQ_FORK_CHILD the
 * child's copy), and the agent's frames returning through its pages would be references of the
 * agent's in the trace. One stack per process image, agent memory; a fork child, one thread,
 * uses its own copy.
 */
#define START_STACK (512UL << 10)
static uint8_t *start_stack;

static long on_start_stack(long (*fn)(void *), void *arg)
{
	if (!start_stack)
		start_stack = fl_mem_map(START_STACK);
	return start_stack ? fl_call_on(start_stack + START_STACK, fn, arg) : fn(arg);
}

static long follow_child_on(void *unused)
{
	(void)unused;
	return follow_child();
}

int fl_agent_follow_child(void)
{
	return (int)on_start_stack(follow_child_on, NULL);
}

static int follow_child(void)
{
	__atomic_store_n(&fl_agent.active, 0, __ATOMIC_RELEASE); /* interposers pass through meanwhile */
	await_fork_event(getpid());
	fl_mem_reset_after_fork();
	fl_pagemap_reset_after_fork();
	fl_untraced_reset();
	fl_thread_foreign_reset();
	fl_pins_held_reset(); /* the calls of the parent's other threads are not ours */
	fl_agent.exec_event = 0;
	fl_threads_starting = 0; /* the parent's thread starts are not ours */
	fl_req_reset_after_fork();
	reset_counters();
	fl_engine->reset_after_fork(); /* the parent's engine state: not ours to use */
	fl_evms_reset(); /* the parent's set: its records are the parent's to write */
	fl_ranges_unlock_pages(); /* page locks the parent's other threads held when it forked */
	fl_handler_reset_after_fork();
	pid_t pid = getpid();
	if (claim_free_slot(pid) < 0)
		return -1;
	fl_agent.pid = pid;
	fl_agent.ppid = getppid();
	fl_ring_init(&fl_agent.ring,
		     fl_agent.shm + *fl_ctl64(FL_CTL_RING_OFFSET) + (uint64_t)fl_agent.slot_index * *fl_ctl64(FL_CTL_RING_STRIDE),
		     *fl_ctl32(FL_CTL_RING_CAPACITY));
	if (open_engine() != 0)
		return -1;
	int err = fl_handler_start();
	if (err) {
		fl_engine->close();
		stop_with_error(FL_STOP_ERROR, -err);
		fl_log("fork child: cannot start the handler thread: ", strerror(-err), NULL);
		return -1;
	}
	/* 0 -> 1 unless the handler already stopped (2): a guard that found the recorder gone
	 * tears down and leaves at once, and a request posted after that would wait for good */
	int expect = 0;
	__atomic_compare_exchange_n(&fl_agent.active, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	fl_req_call(FL_REQ_FORK_CHILD, (uintptr_t)pthread_self(), 0, 0, 0);
	if (fl_gate_active()) { /* dispatch is not inherited by fork: this thread armed again */
		fl_fault_signal_thread();
		fl_gate_thread();
	}
	return 0;
}

/*
 * Claims a slot in the shared memory at path, creates the userfaultfd and the agent's tables
 * and starts the handler; in scope all it waits until the existing memory is registered and
 * disabled. Returns 0, or -errno after saying why on stderr (the slot, if claimed, says
 * FL_STOP_ERROR). The constructor runs it with the recorder's environment; faultline_attach
 * runs it in a process that loaded the library late.
 */
/*
 * The recorder extracts the agent into a copy per build (tracer's AgentLibrary) and deletes every
 * copy on which it can take an exclusive fcntl lock, that is, that no running recorder holds: a
 * traced process whose recorder died (or one recorder's copy, while another build records) lost
 * the file its exec'd images preload, and the dynamic loader said so on the program's stderr
 * (LifecycleTest.anImageExecdAfterTheRecorderDiedRunsWithItsOwnOutputOnly, under other builds'
 * tests). Every process that names a recording holds a shared lock on its own library too, on a
 * descriptor it keeps: an open file description lock (F_OFD_SETLK, Linux 3.15), which conflicts
 * with the recorder's fcntl lock, is not dropped when the process closes another descriptor of
 * the file (the scan of the maps reads each library's program headers), and stays held by a fork
 * child's inherited descriptor; an exec'd image takes its own.
 */
static int library_fd = -1;

void fl_agent_hold_library(void)
{
	if (library_fd < 0) {
		Dl_info info;
		if (!dladdr((void *)&fl_agent_hold_library, &info) || !info.dli_fname || info.dli_fname[0] != '/')
			return;
		library_fd = fl_fd_high((int)fl_syscall(SYS_openat, AT_FDCWD, (long)info.dli_fname, O_RDONLY | O_CLOEXEC));
		if (library_fd < 0)
			return;
	}
	struct flock lock = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0, .l_pid = 0 };
	fl_syscall(SYS_fcntl, library_fd, F_OFD_SETLK, (long)&lock);
}

static int start(const char *path);
static void (*started)(void); /* fl_agent_start's */

static long start_on(void *path)
{
	return start(path);
}

int fl_agent_start(const char *path, void (*then)(void))
{
	started = then;
	return (int)on_start_stack(start_on, (void *)path);
}

static int start(const char *path)
{
	fl_in_agent_text(0); /* the agent's code found now, not in a fault signal's handler (dl_iterate_phdr) */
	fl_debug = getenv("FAULTLINE_DEBUG") != NULL;
	fl_check = getenv("FAULTLINE_CHECK") != NULL;
	if (map_shm(path) < 0)
		return -EINVAL;
	if (strlen(path) < sizeof(fl_agent.shm_path))
		strcpy(fl_agent.shm_path, path);
	if (claim_slot() < 0)
		return -EBUSY;
	fl_agent.pid = getpid();
	fl_agent.ppid = getppid();
	if (!fl_attached)
		fl_launch_restore(); /* before the agent's own signal handlers go in */
	/* attached late, nothing is interposed: only what faultline_trace_range registers */
	fl_agent.scope = fl_attached ? FL_SCOPE_API : *fl_ctl32(FL_CTL_SCOPE);
	fl_agent.evms_pages = *fl_ctl32(FL_CTL_EVMS_PAGES);
	fl_agent.chunk_records = *fl_ctl32(FL_CTL_CHUNK_RECORDS);
	fl_agent.flags = *fl_ctl32(FL_CTL_FLAGS);
	fl_agent.mode = *fl_ctl32(FL_CTL_MODE);
	fl_agent.interval_ns = *fl_ctl64(FL_CTL_INTERVAL_NS);
	if (fl_agent.interval_ns < FL_MOCA_MIN_INTERVAL_NS)
		fl_agent.interval_ns = FL_MOCA_MIN_INTERVAL_NS;
	fl_agent.start_mono_ns = *fl_ctl64(FL_CTL_START_MONO_NS);
	if (fl_agent.evms_pages == 0)
		fl_agent.evms_pages = 512;
	uint32_t cap = *fl_ctl32(FL_CTL_RING_CAPACITY);
	fl_ring_init(&fl_agent.ring,
		     fl_agent.shm + *fl_ctl64(FL_CTL_RING_OFFSET) + (uint64_t)fl_agent.slot_index * *fl_ctl64(FL_CTL_RING_STRIDE),
		     cap);

	int err;
	const struct fl_engine *engine = engine_for(*fl_ctl32(FL_CTL_ENGINE));
	const struct fl_mode *mode = mode_for(fl_agent.mode);
	if (!engine || !mode) {
		stop_with_error(FL_STOP_ERROR, EINVAL);
		fl_log(engine ? "unknown mode in the control block of " : "unknown engine in the control block of ", path,
		       ": this agent is older than the recorder");
		return -EINVAL;
	}
	fl_engine = engine;
	fl_mode = mode;

	/*
	 * Moves must act on 4 KiB pages, not 2 MiB folios. Monitoring leaves THP as the program
	 * has it (DAMOS hugepage actions): a check's move of one page splits its huge mapping.
	 */
	if (!(fl_mode->flags & FL_KEEPS_THP)) {
		fl_gate_thp_view(fl_syscall(SYS_prctl, PR_GET_THP_DISABLE) > 0);
		fl_syscall(SYS_prctl, PR_SET_THP_DISABLE, 1);
	}
	if ((err = init_tables()) != 0) {
		stop_with_error(FL_STOP_ERROR, -err);
		fl_log("cannot allocate agent memory: ", strerror(-err), NULL);
		return err;
	}
	if (open_engine() != 0)
		return -EPERM;

	uint32_t rpid = *fl_ctl32(FL_CTL_RECORDER_PID);
	if (rpid) {
		long pidfd = fl_syscall(SYS_pidfd_open, (pid_t)rpid, 0);
		fl_agent.recorder_pidfd = pidfd >= 0 ? fl_fd_high((int)pidfd) : -1;
		if (fl_agent.recorder_pidfd >= 0)
			fcntl(fl_agent.recorder_pidfd, F_SETFD, FD_CLOEXEC);
		if (fl_agent.recorder_pidfd < 0) {
			err = (int)-pidfd;
			fl_engine->close();
			stop_with_error(FL_STOP_RECORDER_GONE, err);
			fl_log("recorder process is gone: ", strerror(err), NULL);
			return -err;
		}
	}

	ssize_t n = readlink("/proc/self/exe", fl_agent.exe_path, sizeof(fl_agent.exe_path) - 1);
	fl_agent.exe_path[n > 0 ? n : 0] = 0;

	static int lib_data_added; /* once per process: a fork child inherits them, detach keeps them */
	if (!lib_data_added) {
		/* getppid: a libc function the agent does not define (its poll would be its own wrapper) */
		struct lib_find libs = { { (uintptr_t)&getppid, (uintptr_t)&__tls_get_addr, (uintptr_t)&fl_agent_start } };
		dl_iterate_phdr(add_lib_data, &libs);
		lib_data_added = 1;
	}

	/* while this is the only thread (args.c says why), and before the stack is traced */
	if (!fl_attached && fl_agent.scope == FL_SCOPE_ALL)
		fl_args_start();
	/* active only once the handler exists: pthread_create itself calls calloc (our wrapper) */
	if ((err = start_handler()) != 0) {
		fl_engine->close();
		stop_with_error(FL_STOP_ERROR, -err);
		fl_log("cannot start the handler thread: ", strerror(-err), NULL);
		return err;
	}
	int expect = 0; /* 0 -> 1 unless the handler already stopped (2) */
	__atomic_compare_exchange_n(&fl_agent.active, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	/* scope all: register and disable what exists now, before main() runs */
	fl_req_call(FL_REQ_INIT, (uintptr_t)pthread_self(), 0, 0, 0);
	if (!fl_attached) {
		fl_req_stack = fl_sigstack_top; /* a program thread's wait for the handler off its own stack */
		fl_gate_on_core(fl_guard_stop_for_core); /* a core holds the program's pages at their addresses */
		fl_gate_start(); /* in-thread engines: every system call of the program's threads gated */
		if (started)
			started(); /* the hooks' own start, on this stack too (hooks/entry.c) */
	}
	return 0;
}

/* ---- attaching to a running process (faultline.h): the Java API's way in ---- */

/*
 * The handler threads of an attached session carry this name (a new task copies its
 * creator's comm), so a user can tell them from the JVM's own threads in a profiler or top.
 */
#define ATTACHED_HANDLER_NAME "faultline-agent"

static int thp_disabled_before; /* PR_GET_THP_DISABLE before the session: restored on detach */

static int start_handler(void)
{
	if (!fl_attached)
		return fl_handler_start();
	char name[32] = { 0 };
	fl_syscall(SYS_prctl, PR_GET_NAME, name);
	fl_syscall(SYS_prctl, PR_SET_NAME, ATTACHED_HANDLER_NAME);
	int err = fl_handler_start();
	fl_syscall(SYS_prctl, PR_SET_NAME, name);
	return err;
}

/* the previous attached session's shared memory: nothing uses it once its handler is gone */
static void release_session(void)
{
	if (fl_agent.recorder_pidfd >= 0)
		close(fl_agent.recorder_pidfd);
	fl_agent.recorder_pidfd = -1;
	if (fl_agent.shm) {
		fl_sys_munmap(fl_agent.shm, fl_agent.shm_len);
		fl_mem_release((uintptr_t)fl_agent.shm, (uintptr_t)fl_agent.shm + FL_PAGE_UP(fl_agent.shm_len));
	}
	fl_agent.shm = NULL;
	fl_agent.shm_len = 0;
	fl_agent.slot = NULL;
	if (!thp_disabled_before)
		fl_syscall(SYS_prctl, PR_SET_THP_DISABLE, 0);
}

int fl_agent_attach(const char *shm_path)
{
	if (!shm_path || !*shm_path)
		return -EINVAL;
	if (getenv(FL_ENV_SHM) || (fl_agent.shm && !fl_attached))
		return -EEXIST; /* preloaded by faultline record: this process is traced already */
	if (__atomic_load_n(&fl_agent.active, __ATOMIC_ACQUIRE) == 1 || fl_agent.shm)
		return -EBUSY;  /* a session is running: faultline_detach first */
	fl_attached = 1;
	thp_disabled_before = fl_syscall(SYS_prctl, PR_GET_THP_DISABLE) > 0;
	__atomic_store_n(&fl_agent.active, 0, __ATOMIC_RELEASE);
	int r = fl_agent_start(shm_path, NULL);
	if (r != 0)
		release_session();
	return r;
}

int fl_agent_detach(void)
{
	if (!fl_attached || !fl_agent.shm)
		return -ENOENT;
	__atomic_store_n(fl_ctl32(FL_CTL_STOP), 1, __ATOMIC_RELEASE);
	fl_guard_poke();
	/* the guard's last acts after marking the slot stopped use the session's ring and buffers:
	 * nothing may be reset under it, so wait until it has returned */
	int err = fl_handler_wait_stopped(60000);
	if (err)
		return err;
	uint32_t reason = __atomic_load_n(fl_slot32(FL_SLOT_STOP_REASON), __ATOMIC_ACQUIRE);
	uint32_t slot_err = __atomic_load_n(fl_slot32(FL_SLOT_ERROR), __ATOMIC_ACQUIRE);
	release_session();
	if (reason == FL_STOP_REQUESTED)
		return 0;
	return reason == FL_STOP_RECORDER_GONE ? -EPIPE : (slot_err ? -(int)slot_err : -EIO);
}
