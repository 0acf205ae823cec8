/*
 * engine_sigbus.c: the sigbus engine (struct fl_engine): userfaultfd without a handler thread.
 * Pages are disabled as under the userfaultfd engine (engine_uffd.c: moved out to a parking
 * slot with UFFDIO_MOVE, write-protected for the EVMS's dirty flag), but the userfaultfd is
 * opened with UFFD_USER_MODE_ONLY and UFFD_FEATURE_SIGBUS: a reference to a parked page raises
 * SIGBUS on the faulting thread (fs/userfaultfd.c, handle_userfault: VM_FAULT_SIGBUS), whose
 * handler (fault_signal.c) runs the fault path for one fault (fault.c, fl_fault_on_thread) and
 * moves the page home itself before the access is retried. No handler thread, no cross-CPU
 * wake-up, no VMA split (the mprotect engine's cost), and no privilege: an ordinary user gets
 * such a userfaultfd with vm.unprivileged_userfaultfd=0 (checked on Linux 6.18, README
 * "Engines"). UFFD_FEATURE_PAGEFAULT_FLAG_WP works in this mode too: a write to a
 * write-protected page is a SIGBUS with the page present.
 *
 * What differs from the userfaultfd engine, and why:
 *   - a kernel-mode access to a disabled page (read(2) into it) fails with EFAULT instead of
 *     waiting, as under the mprotect engine: the same buffer touching covers it (hooks/touch.c);
 *   - no mapping events (they need a reader, and munmap would wait for one): munmap, madvise
 *     and mremap are seen through their interposed calls, as under the mprotect engine;
 *     mremap drops a moved range's registration when the userfaultfd has no
 *     UFFD_FEATURE_EVENT_REMAP (mm/userfaultfd.c, mremap_userfaultfd_prep), so the new place
 *     is registered again before its pages are disabled there (sb_relocate);
 *   - which fault is ours comes from the error code and the home map (sb_trapped), since no
 *     kernel queue drops the faults of a page another thread brought home meanwhile.
 * glibc's internal munmap, madvise and brk (a trimmed heap, a deleted arena heap) reach the
 * agent through the system-call gate (gate.c), which says them as mapping events. With the gate
 * off (FAULTLINE_GATE=off) such a range stays in the table, as under the mprotect engine, but
 * where that engine's mprotect of a stale page is harmless, a move out of a new mapping at that
 * address would take the program's data: evictions then check the page's vma first
 * (uffd_evict, fl_uffd_unseen_unmaps, which the gate clears), and the recorder runs the program
 * with glibc's trimming off (GLIBC_TUNABLES glibc.malloc.trim_threshold), since a heap zapped
 * by glibc's internal madvise would otherwise get its parked pages back, old contents where
 * glibc expects zeros (calloc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "engine.h"
#include "engine_uffd.h"
#include "fault_signal.h"
#include "pagemap.h"
#include "ranges.h"
#include "scope.h"
#include "state.h"
#include "sys.h"

static int sb_open(void)
{
	int fd = fl_uffd_open_user_mode();
	if (fd < 0) {
		fl_log("sigbus engine: cannot create a user-mode userfaultfd: ", strerror(-fd),
		       "; record with --engine mprotect");
		return fd;
	}
	int err = fl_uffd_api_dirty(fd, UFFD_FEATURE_SIGBUS | UFFD_FEATURE_MOVE | UFFD_FEATURE_PAGEFAULT_FLAG_WP);
	if (err) {
		close(fd);
		fl_log("sigbus engine: userfaultfd lacks SIGBUS, MOVE or write-protect (UFFDIO_MOVE needs Linux 6.8): ",
		       strerror(-err), "; record with --engine mprotect");
		return err;
	}
	fl_uffd = fd;
	fl_uffd_unseen_unmaps = 1;
	fl_uffd_no_events = 1;
	return fl_fault_signal_install(SIGBUS, "sigbus");
}

static int sb_fd(void)
{
	return -1; /* faults arrive on the faulting thread */
}

static int sb_read(struct fl_trap *out, uint32_t max)
{
	(void)out;
	(void)max;
	return 0;
}

static void sb_wake(uintptr_t page)
{
	(void)page; /* nobody waits: a SIGBUS fault never sleeps in the kernel */
}

static void sb_relocate(uintptr_t from, uintptr_t to, size_t len)
{
	fl_uffd_register(fl_uffd, to, len);
	uffd_relocate(from, to, len);
}

/*
 * The program's mprotect of traced memory, as it made it: a page whose protection no longer
 * matches its parking area's comes home by copy instead of a move (engine_uffd.c, enable_page)
 * and stays out of the EVMS.
 */
static int sb_protect(uintptr_t s, size_t len, int prot)
{
	return (int)fl_syscall(SYS_mprotect, (long)s, (long)len, prot);
}

/*
 * A SIGBUS of BUS_ADRERR at an address no traced range holds: a mapping registered by the kernel
 * that we do not know (a traced vma grown in place keeps its registration), or the program's own
 * fault (a file mapping past its end). Filling the page tells them apart: the kernel refuses
 * (EINVAL, ENOENT) where our userfaultfd is not registered. Ours: the page comes home empty,
 * unrecorded, as the mprotect engine leaves such memory untraced; the thread retries.
 */
static int unknown(uintptr_t page, uint32_t access, uint32_t *flags)
{
	if (access & FL_ACCESS_PRESENT)
		return 0;
	int err = fl_uffd_zeropage(fl_uffd, page, FL_PAGE, 1);
	if (err == 0 || err == -EEXIST)
		*flags |= FL_TRAP_ALLOWED;
	return 0;
}

/*
 * On the faulting thread, lock held or not (FL_ACCESS_SHARED). A SIGBUS at a traced page is ours: the page was missing
 * (P clear in the error code: parked, or never populated), or present and written while
 * write-protected (P and W set: the EVMS's dirty flag). A missing page that another thread
 * brought home between the fault and the lock is a race (FL_TRAP_ALLOWED): the home map says
 * the page may be home, pagemap says it is.
 */
static int sb_trapped(uintptr_t addr, uint32_t access, uint32_t *flags)
{
	uintptr_t page = FL_PAGE_DOWN(addr);
	struct fl_range *r = fl_range_find(page);
	*flags = (access & FL_ACCESS_WRITE) ? FL_TRAP_WRITE : 0;
	if (!r && !(access & FL_ACCESS_PRESENT) && (access & FL_ACCESS_SHARED))
		return -1; /* grown stack or unknown memory: the lock's path */
	if (!r && !(access & FL_ACCESS_PRESENT) && fl_scope_grow_stack(page)) /* the main stack grown (scope.c) */
		r = fl_range_find(page);
	if (!r)
		return unknown(page, access, flags);
	if (access & FL_ACCESS_PRESENT) {
		if (access & FL_ACCESS_WRITE) {
			/* write-protected by us; if another thread lifted it meanwhile, the dirty fault
			 * is taken twice, which changes nothing (fault.c, SOFT_DIRTY) */
			*flags |= FL_TRAP_WP;
			return 1;
		}
		*flags |= FL_TRAP_ALLOWED;
		return 0;
	}
	if (fl_range_home(r, page) && fl_page_present(page)) {
		*flags |= FL_TRAP_ALLOWED;
		return 0;
	}
	return 1;
}

/*
 * Without the gate (FAULTLINE_GATE=off) an eviction checks first that its page still lies in
 * registered memory, with a one-page cache of the last scan (uffd_evict): the lock's path.
 */
static int sb_shared(void)
{
	return !fl_uffd_unseen_unmaps && !fl_check;
}

/* the system-call gate hears glibc's internal unmaps: uffd_evict's check is not needed */
static void sb_unmaps_heard(void)
{
	fl_uffd_unseen_unmaps = 0;
}

const struct fl_engine fl_engine_sigbus = {
	.name = "sigbus",
	.observes = 0,
	.init = uffd_init,
	.open = sb_open,
	.close = uffd_close,
	.reset_after_fork = uffd_reset_after_fork,
	.fd = sb_fd,
	.read = sb_read,
	.wake = sb_wake,
	.trace_new = uffd_trace_new,
	.disable = uffd_disable,
	.restore = uffd_restore_giving_way,
	.discard = uffd_discard,
	.untrace = uffd_untrace,
	.relocate = sb_relocate,
	.first_touch = uffd_first_touch,
	.enable = uffd_enable,
	.protect_writes = uffd_protect_writes,
	.evict = uffd_evict,
	.written = uffd_written,
	.page_written = uffd_page_written,
	.pin = uffd_pin,
	.peek = uffd_peek,
	.untrace_all = uffd_untrace_all,
	.fork_child = uffd_fork_child,
	.trapped = sb_trapped,
	.resident = uffd_resident,
	.shared = sb_shared,
	.protect = sb_protect,
	.watch = uffd_watch,
	.unwatch = uffd_unwatch,
	.unwatched = uffd_unwatched,
	.disable_enabled = uffd_disable_enabled,
	.fault_signal = fl_fault_signal_number,
	.writes_async = uffd_writes_async,
	.held_away = uffd_held_away,
	.unmaps_heard = sb_unmaps_heard,
	.thread_start = fl_fault_signal_thread,
	.fork_parent = uffd_fork_parent,
};
