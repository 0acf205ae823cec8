/*
 * launch.c: the program starts in the state the user's shell would have started it in. The
 * recorder is a JVM, and a JVM's children inherit what it changed in itself (checked with a
 * plain Java ProcessBuilder, Java 17): SIGQUIT blocked (HotSpot blocks it in every thread but its
 * signal dispatcher), signals 32 and 33 ignored (glibc's SIGCANCEL and SIGSETXID), the open-files
 * limit raised to its hard limit (-XX:+MaxFDLimit), and /proc/self/coredump_filter 0x3f (which
 * dumps every file-backed segment whole: a 2 MB larger core for a small C program). The launcher
 * (./faultline) says what it was given in FAULTLINE_LAUNCH, in its own environment, which the
 * JVM keeps; the first process image of a recording, the recorder's own child, reads it from
 * /proc/<recorder>/environ (not from its own environment, which the program sees) and puts
 * the four back before main() runs. Fork children and exec'd images inherit the program's
 * state as they would natively, so only that one image does it.
 *
 *   FAULTLINE_LAUNCH="sigblk=HEX sigign=HEX nofile=N|unlimited coredump_filter=HEX"
 *
 * (SigBlk and SigIgn as /proc/PID/status writes them: bit n-1 for signal n.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "faultline_shm.h"
#include "launch.h"
#include "state.h"
#include "sys.h"

#define ENV_MAX (256UL << 10)
static char env_buf[ENV_MAX];

struct launch {
	uint64_t sigblk, sigign, coredump_filter;
	uint64_t nofile; /* RLIM_INFINITY for "unlimited" */
	unsigned have;   /* which of the four were given: bit 0 to 3 in that order */
};

static uint64_t parse_hex(const char *p, const char **end)
{
	uint64_t v = 0;
	for (;; p++) {
		if (*p >= '0' && *p <= '9')
			v = v * 16 + (uint64_t)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			v = v * 16 + (uint64_t)(*p - 'a' + 10);
		else
			break;
	}
	*end = p;
	return v;
}

static void parse(const char *p, struct launch *l)
{
	while (*p) {
		while (*p == ' ')
			p++;
		const char *end = p;
		if (!strncmp(p, "sigblk=", 7)) {
			l->sigblk = parse_hex(p + 7, &end);
			l->have |= 1;
		} else if (!strncmp(p, "sigign=", 7)) {
			l->sigign = parse_hex(p + 7, &end);
			l->have |= 2;
		} else if (!strncmp(p, "nofile=", 7)) {
			p += 7;
			if (!strncmp(p, "unlimited", 9)) {
				l->nofile = RLIM_INFINITY;
				end = p + 9;
			} else {
				uint64_t v = 0;
				for (end = p; *end >= '0' && *end <= '9'; end++)
					v = v * 10 + (uint64_t)(*end - '0');
				l->nofile = v;
			}
			l->have |= end > p ? 4 : 0;
		} else if (!strncmp(p, "coredump_filter=", 16)) {
			l->coredump_filter = parse_hex(p + 16, &end);
			l->have |= 8;
		}
		while (*end && *end != ' ')
			end++;
		p = end;
	}
}

/* FAULTLINE_LAUNCH from the recorder's environment; 0 when it has none */
static int read_launch(pid_t recorder, struct launch *l)
{
	char path[48] = "/proc/";
	size_t n = strlen(path);
	n += fl_fmt_u64(path + n, (uint64_t)recorder);
	memcpy(path + n, "/environ", 9);
	long fd = fl_syscall(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t got = 0;
	for (;;) {
		long r = fl_syscall(SYS_read, fd, (long)(env_buf + got), (long)(ENV_MAX - 1 - got));
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	fl_syscall(SYS_close, fd);
	env_buf[got] = 0;
	for (size_t i = 0; i < got; i += strlen(env_buf + i) + 1)
		if (!strncmp(env_buf + i, FL_ENV_LAUNCH "=", sizeof(FL_ENV_LAUNCH))) {
			parse(env_buf + i + sizeof(FL_ENV_LAUNCH), l);
			return l->have != 0;
		}
	return 0;
}

void fl_launch_restore(void)
{
	uint32_t recorder = *fl_ctl32(FL_CTL_RECORDER_PID);
	/* the recorder's own child, the recording's first image: its claim was the first */
	if (!recorder || (uint32_t)getppid() != recorder || *fl_slot64(FL_SLOT_CLAIM) != 1)
		return;
	struct launch l = { 0 };
	if (!read_launch((pid_t)recorder, &l))
		return;
	if (l.have & 2) {
		/* raw: glibc refuses its own signals 32 and 33, and the libc wrappers are ours */
		for (int sig = 1; sig <= 64; sig++) {
			if (sig == SIGKILL || sig == SIGSTOP)
				continue;
			struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } k;
			if (fl_syscall(SYS_rt_sigaction, sig, 0, (long)&k, 8) != 0)
				continue;
			int want_ign = (l.sigign >> (sig - 1)) & 1;
			if (want_ign == (k.handler == SIG_IGN) || (k.handler != SIG_IGN && k.handler != SIG_DFL))
				continue;
			k.handler = want_ign ? SIG_IGN : SIG_DFL;
			k.flags = 0;
			k.mask = 0;
			fl_syscall(SYS_rt_sigaction, sig, (long)&k, 0, 8);
		}
	}
	if (l.have & 1) {
		uint64_t mask = l.sigblk;
		fl_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0, 8);
	}
	if (l.have & 4) {
		struct rlimit r;
		if (getrlimit(RLIMIT_NOFILE, &r) == 0 && (l.nofile <= r.rlim_max || r.rlim_max == RLIM_INFINITY)) {
			r.rlim_cur = l.nofile;
			setrlimit(RLIMIT_NOFILE, &r);
		}
	}
	if (l.have & 8) {
		char text[24] = "0x"; /* the kernel reads it with kstrtouint(base 0): without 0x, decimal */
		uint32_t len = 2;
		const char *digits = "0123456789abcdef";
		char tmp[16];
		uint32_t k = 0;
		uint64_t v = l.coredump_filter;
		do {
			tmp[k++] = digits[v & 15];
			v >>= 4;
		} while (v);
		while (k)
			text[len++] = tmp[--k];
		text[len++] = '\n';
		long fd = fl_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/coredump_filter", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			fl_syscall(SYS_write, fd, (long)text, len);
			fl_syscall(SYS_close, fd);
		}
	}
}
