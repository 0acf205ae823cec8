/*
 * args.c: the program's command line and environment as other processes read them:
 * /proc/PID/cmdline and /proc/PID/environ, which ps, pgrep -f and top show. The kernel reads
 * them from the program's memory, [arg_start, arg_end) and [env_start, env_end) at the top of
 * the main stack (fs/proc/base.c, get_mm_cmdline and environ_read), with access_remote_vm and
 * without FOLL_FORCE: a page the engine holds away is not there (userfaultfd: the remote access
 * cannot wait for the handler, mm/memory.c __access_remote_vm passes no lock to
 * get_user_pages_remote, so handle_userfault refuses it; sigbus: UFFD_USER_MODE_ONLY refuses every
 * kernel access; mprotect: PROT_NONE without FOLL_FORCE), and they read as empty: `ps` showed
 * [python3] for a traced python sleeping after its allocations, under every engine.
 *
 * So the kernel is pointed at a copy in agent memory, never traced: prctl(PR_SET_MM,
 * PR_SET_MM_MAP), which an ordinary user may call (kernel/sys.c, prctl_set_mm_map: only a new
 * exe_fd needs CAP_CHECKPOINT_RESTORE; checked as nobody on Linux 6.18). It sets every field of
 * the mm's map at once, the break among them, so it is called only while the process has one
 * thread (the constructor, before the handler threads; a fork child the agent does not follow,
 * which gets the program's own strings back): another thread's brk() between our reading of
 * the break and the call would be undone. The program's own argv and environ still point at its
 * strings; a program that rewrites them (setproctitle: PostgreSQL, nginx, Python's setproctitle)
 * has the copy follow within a tick of the guard (fl_args_refresh, every 100 ms: the strings read
 * through the kernel, or from the engine's copy of a page held away). Visible all the same: the
 * addresses in /proc/PID/stat fields 48 to 51.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/prctl.h>

#include "args.h"
#include "engine.h"
#include "lock.h"
#include "mem.h"
#include "state.h"
#include "sys.h"

#define ARGS_MAX (4UL << 20) /* a larger command line and environment keep their own pages */

static uintptr_t orig_start, orig_end; /* [arg_start, env_end) as the kernel set them at exec */
static uintptr_t arg_len;              /* arg_end - arg_start; env_start == arg_end */
static uint8_t *copy;                  /* agent memory, orig_end - orig_start bytes */
static uint8_t *page_buf;              /* one page, for a refresh */
static struct prctl_mm_map orig_map;   /* the mm's map as the kernel set it */

/* fields 26-28 and 45-51 of /proc/self/stat, and the thread count (20); 0 or -errno */
static int read_stat(struct prctl_mm_map *m, long *threads)
{
	char buf[2048];
	long fd = fl_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return (int)fd;
	long n = fl_syscall(SYS_read, fd, (long)buf, sizeof(buf) - 1);
	fl_syscall(SYS_close, fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	if (!p)
		return -EIO;
	uint64_t v[53] = { 0 };
	p++;
	for (int field = 3; field <= 52 && *p; field++) {
		while (*p == ' ')
			p++;
		if (field == 3) { /* the state letter */
			p++;
			continue;
		}
		int neg = *p == '-';
		p += neg;
		uint64_t x = 0;
		while (*p >= '0' && *p <= '9')
			x = x * 10 + (uint64_t)(*p++ - '0');
		v[field] = neg ? (uint64_t)-(int64_t)x : x;
	}
	memset(m, 0, sizeof(*m));
	m->start_code = v[26];
	m->end_code = v[27];
	m->start_stack = v[28];
	m->start_data = v[45];
	m->end_data = v[46];
	m->start_brk = v[47];
	m->arg_start = v[48];
	m->arg_end = v[49];
	m->env_start = v[50];
	m->env_end = v[51];
	m->brk = (uint64_t)fl_syscall(SYS_brk);
	m->exe_fd = (uint32_t)-1;
	*threads = (long)v[20];
	return 0;
}

/* -errno; the size of the map goes in the fourth argument */
static long prctl_map(struct prctl_mm_map *m)
{
	return fl_syscall(SYS_prctl, PR_SET_MM, PR_SET_MM_MAP, (long)m, sizeof(*m));
}

int fl_args_start(void)
{
	long threads = 0;
	struct prctl_mm_map m;
	if (read_stat(&m, &threads) != 0 || threads != 1 || !m.arg_start || m.env_start != m.arg_end ||
	    m.env_end < m.arg_start || m.env_end - m.arg_start > ARGS_MAX)
		return -EINVAL;
	size_t len = (size_t)(m.env_end - m.arg_start);
	uint8_t *c = fl_mem_map(len ? len : 1);
	page_buf = page_buf ? page_buf : fl_mem_map(FL_PAGE);
	if (!c || !page_buf)
		return -ENOMEM;
	/* the strings as exec left them: present, not yet traced (the constructor runs before the
	 * handler registers anything) */
	if (fl_read_self(c, (uintptr_t)m.arg_start, len) != (long)len) {
		fl_mem_unmap(c, len ? len : 1);
		return -EIO;
	}
	orig_map = m;
	struct prctl_mm_map to = m;
	to.arg_start = (uintptr_t)c;
	to.arg_end = (uintptr_t)c + (m.arg_end - m.arg_start);
	to.env_start = to.arg_end;
	to.env_end = (uintptr_t)c + len;
	long r = prctl_map(&to);
	if (r != 0) {
		fl_mem_unmap(c, len ? len : 1);
		return (int)r;
	}
	copy = c;
	orig_start = m.arg_start;
	orig_end = m.env_end;
	arg_len = m.arg_end - m.arg_start;
	return 0;
}

/*
 * The strings as the program holds them now, into the copy. Guard thread, lock not held: a page
 * at its address is read through the kernel (fl_read_self: a PROT_NONE page too, and a page away
 * from its address fails without waiting for anyone); a page held away is read from the engine's
 * copy of it, under the lock.
 */
void fl_args_refresh(void)
{
	if (!copy)
		return;
	for (uintptr_t page = FL_PAGE_DOWN(orig_start); page < orig_end; page += FL_PAGE) {
		uintptr_t a = page > orig_start ? page : orig_start;
		uintptr_t b = page + FL_PAGE < orig_end ? page + FL_PAGE : orig_end;
		const uint8_t *from;
		if (fl_read_self(page_buf, a, b - a) == (long)(b - a)) {
			from = page_buf;
		} else {
			int ok = 0;
			fl_lock();
			if (fl_engine->peek)
				ok = fl_engine->peek(page, page_buf) == 0;
			fl_unlock();
			if (!ok)
				continue;
			from = page_buf + (a - page);
		}
		uint8_t *to = copy + (a - orig_start);
		if (memcmp(to, from, b - a) != 0)
			memcpy(to, from, b - a);
	}
}

/* a fork child that runs untraced: its own strings again, which nothing would copy any more */
void fl_args_untraced_child(void)
{
	if (!copy)
		return;
	struct prctl_mm_map m = orig_map;
	m.brk = (uint64_t)fl_syscall(SYS_brk); /* the break has moved since the start */
	if (prctl_map(&m) == 0)
		copy = NULL;
}
