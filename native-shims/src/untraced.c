/*
 * untraced.c: the programs a traced process starts that the agent cannot follow, said as they
 * start (FL_EV_UNTRACED; the recorder prints one line for each, info lists them). The agent
 * reaches a new image through LD_PRELOAD, so it is absent from:
 *   - a statically linked program (no PT_INTERP: no dynamic loader reads LD_PRELOAD);
 *   - a program that runs set-user-ID or set-group-ID to another user or group, or with file
 *     capabilities (the kernel sets AT_SECURE, and glibc's loader then ignores LD_PRELOAD's
 *     entries outside its trusted directories);
 *   - a program of another architecture or ELF class (an i386 binary: its loader cannot load a
 *     64-bit library, and says so on the program's stderr);
 *   - a program whose environment no longer names the agent (env -u LD_PRELOAD, env -i).
 * Two ways in. An exec through libc's wrappers (hooks/interpose.c) is classified before the call, from
 * the file and the environment passed, and said before it (a failed exec says so again: reason
 * 0). A child made otherwise (posix_spawn, system and popen exec through glibc's internal calls,
 * which no wrapper sees) is found by the guard among the children of the threads that made one
 * (the system-call gate notes them): a child that holds no slot at two looks 100 ms apart is
 * classified from /proc/PID/exe and its environment. Such a child that lives less than that goes
 * unsaid.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "faultline_shm.h"
#include "emit.h"
#include "lock.h"
#include "state.h"
#include "sys.h"
#include "untraced.h"

/* the file at path (a file descriptor's, found on PATH if search), as the kernel would start it */
static uint32_t classify_file(const char *path, int depth, char *resolved, size_t cap, uint32_t *machine)
{
	long fd = fl_syscall(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return FL_UNTRACED_NO; /* the exec fails: nothing to say */
	if (resolved && cap) {
		char link[48] = "/proc/self/fd/";
		size_t n = strlen(link);
		n += fl_fmt_u64(link + n, (uint64_t)fd);
		link[n] = 0;
		long r = fl_syscall(SYS_readlink, (long)link, (long)resolved, (long)cap - 1);
		resolved[r > 0 ? r : 0] = 0;
	}
	uint32_t why = FL_UNTRACED_NO;
	union {
		unsigned char b[256];
		Elf64_Ehdr eh;
	} head;
	long got = fl_syscall(SYS_pread64, (int)fd, head.b, sizeof(head.b) - 1);
	struct stat st;
	if (got >= 2 && head.b[0] == '#' && head.b[1] == '!') {
		/* a script: its interpreter is what runs (binfmt_script), set-ID bits of a script aside */
		head.b[got] = 0;
		char *p = (char *)head.b + 2;
		while (*p == ' ' || *p == '\t')
			p++;
		char *e = p;
		while (*e && *e != ' ' && *e != '\t' && *e != '\n')
			e++;
		*e = 0;
		char interp[256];
		strncpy(interp, p, sizeof(interp) - 1);
		interp[sizeof(interp) - 1] = 0;
		why = depth < 4 && *interp ? classify_file(interp, depth + 1, NULL, 0, machine) : FL_UNTRACED_NO;
	} else if (got >= (long)sizeof(Elf64_Ehdr) && !memcmp(head.b, ELFMAG, SELFMAG)) {
		*machine = (uint32_t)head.b[EI_CLASS] << 16 | head.eh.e_machine;
		if (head.b[EI_CLASS] != ELFCLASS64 || head.eh.e_machine != EM_X86_64) {
			why = FL_UNTRACED_ARCH;
		} else {
			int interp = 0;
			for (uint32_t i = 0; i < head.eh.e_phnum && i < 128 && !interp; i++) {
				Elf64_Phdr ph;
				if (fl_syscall(SYS_pread64, (int)fd, &ph, sizeof(ph), (head.eh.e_phoff + i * sizeof(ph))) != (long)sizeof(ph))
					break;
				interp = ph.p_type == PT_INTERP;
			}
			if (!interp)
				why = FL_UNTRACED_STATIC;
		}
		/* set-ID bits and file capabilities count only where the mount honours them */
		struct statfs fs;
		int suid = fl_syscall(SYS_fstatfs, fd, (long)&fs) != 0 || !(fs.f_flags & ST_NOSUID);
		if (!why && suid && fl_syscall(SYS_fstat, fd, (long)&st) == 0 &&
		    (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) || ((st.st_mode & S_ISGID) && st.st_gid != getegid())))
			why = FL_UNTRACED_SECURE;
		if (!why && suid && fl_syscall(SYS_fgetxattr, fd, (long)"security.capability") > 0)
			why = FL_UNTRACED_SECURE;
	}
	fl_syscall(SYS_close, fd);
	return why;
}

/*
 * Each string of an environment, in order, to fn (which returns nonzero to stop); 0 at its end,
 * -1 if it cannot be read. envp is the program's memory, read through the kernel (fl_read_self):
 * a load of ours could fault on a page away, a reference the program never made.
 */
static int env_each(char *const envp[], int (*fn)(const char *s, void *ctx), void *ctx)
{
	char s[4096];
	for (uintptr_t i = 0; envp && i < 65536; i++) {
		uintptr_t p;
		if (fl_read_self(&p, (uintptr_t)(envp + i), sizeof(p)) != (long)sizeof(p))
			return -1;
		if (!p)
			return 0;
		size_t in_page = FL_PAGE - (p & (FL_PAGE - 1));
		long n = fl_read_self(s, p, sizeof(s) - 1);
		if (n <= 0) /* the string's page is the mapping's last */
			n = fl_read_self(s, p, in_page < sizeof(s) - 1 ? in_page : sizeof(s) - 1);
		if (n <= 0)
			return -1;
		s[n] = 0;
		if (fn(s, ctx))
			return 0;
	}
	return 0;
}

struct env_find {
	const char *name;
	size_t len;
	char *out;
	size_t cap;
	int found;
};

static int find_one(const char *s, void *ctx)
{
	struct env_find *f = ctx;
	if (strncmp(s, f->name, f->len) || s[f->len] != '=')
		return 0;
	strncpy(f->out, s + f->len + 1, f->cap - 1);
	f->out[f->cap - 1] = 0;
	f->found = 1;
	return 1;
}

/* the value of name in an environment into out; 0 if absent, -1 if it cannot be read */
static int env_get(char *const envp[], const char *name, char *out, size_t cap)
{
	struct env_find f = { name, strlen(name), out, cap, 0 };
	return env_each(envp, find_one, &f) < 0 ? -1 : f.found;
}

/* file found as execvp(3) finds it: a path if it holds '/', else the first executable on PATH */
static uint32_t classify_search(const char *file, char *const path_env[], char *resolved, size_t cap, uint32_t *machine)
{
	if (strchr(file, '/'))
		return classify_file(file, 0, resolved, cap, machine);
	char path[4096];
	if (env_get(path_env, "PATH", path, sizeof(path)) <= 0)
		strcpy(path, "/bin:/usr/bin");
	char candidate[4096];
	for (const char *p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n + strlen(file) + 3 < sizeof(candidate)) {
			memcpy(candidate, n ? p : ".", n ? n : 1);
			size_t k = n ? n : 1;
			candidate[k++] = '/';
			strcpy(candidate + k, file);
			if (fl_syscall(SYS_access, (long)candidate, X_OK) == 0)
				return classify_file(candidate, 0, resolved, cap, machine);
		}
		if (!e)
			return FL_UNTRACED_NO;
		p = e;
	}
}

struct agent_vars {
	int preload, shm;
};

static int agent_var(const char *s, void *ctx)
{
	struct agent_vars *v = ctx;
	v->preload |= !strncmp(s, "LD_PRELOAD=", 11) && strstr(s, "libfaultline");
	v->shm |= !strncmp(s, FL_ENV_SHM "=", sizeof(FL_ENV_SHM));
	return v->preload && v->shm;
}

/* whether an environment names the agent: LD_PRELOAD holds libfaultline and FAULTLINE_SHM is set
 * (1 when it cannot be read: nothing to say); one walk */
static int env_names_agent(char *const envp[])
{
	struct agent_vars v = { 0, 0 };
	return env_each(envp, agent_var, &v) < 0 || (v.preload && v.shm);
}

uint32_t fl_untraced_why(const char *file, int search, char *const path_env[], char *const envp[], char *resolved,
			size_t cap, uint32_t *machine)
{
	*machine = 0;
	if (resolved && cap)
		resolved[0] = 0;
	uint32_t why = search ? classify_search(file, path_env, resolved, cap, machine)
			      : classify_file(file, 0, resolved, cap, machine);
	if (!why && resolved && resolved[0] && !env_names_agent(envp))
		why = FL_UNTRACED_ENV;
	return why;
}

/* ---- children made behind the wrappers' backs ---- */

#define SPAWNERS 64
#define CHILDREN 256
static int32_t spawners[SPAWNERS]; /* threads that made a child process: whose children file to read */
static struct {
	int32_t tid; /* whose children file fd is: guard only */
	int fd;
} children_fd[SPAWNERS];
static struct {
	int32_t pid;
	uint32_t looks; /* looks without a slot; said once it reaches 2 (0 in a free entry) */
} children[CHILDREN];

void fl_untraced_note_spawner(pid_t tid)
{
	for (int i = 0; i < SPAWNERS; i++) {
		int32_t t = __atomic_load_n(&spawners[i], __ATOMIC_RELAXED);
		if (t == tid)
			return;
		int32_t expect = 0;
		if (!t && __atomic_compare_exchange_n(&spawners[i], &expect, tid, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return;
	}
}

static int has_slot(int32_t pid)
{
	uint32_t slots = *fl_ctl32(FL_CTL_SLOT_COUNT);
	for (uint32_t i = 0; i < slots; i++) {
		uint8_t *s = fl_agent.shm + FL_SLOTS_OFFSET + (size_t)i * FL_SLOT_SIZE;
		if (__atomic_load_n((uint32_t *)(s + FL_SLOT_STATE), __ATOMIC_ACQUIRE) != FL_SLOT_FREE &&
		    *(uint32_t *)(s + FL_SLOT_PID) == (uint32_t)pid)
			return 1;
	}
	return 0;
}

static long read_file(const char *path, char *buf, size_t cap)
{
	long fd = fl_syscall(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	long n = 0, r;
	while (n < (long)cap - 1 && (r = fl_syscall(SYS_read, fd, (long)(buf + n), (long)cap - 1 - n)) > 0)
		n += r;
	fl_syscall(SYS_close, fd);
	buf[n] = 0;
	return n;
}

static char proc_path[64], kids[4096], text[65536], exe[4096], own_exe[4096];

static void proc_file(int32_t pid, const char *what)
{
	size_t n = 0;
	memcpy(proc_path, "/proc/", 6);
	n = 6 + fl_fmt_u64(proc_path + 6, (uint64_t)pid);
	strcpy(proc_path + n, what);
}

/* a child with no slot at two looks: what it runs, and why the agent is not in it */
static void say_child(int32_t pid)
{
	proc_file(pid, "/exe");
	long n = fl_syscall(SYS_readlink, (long)proc_path, (long)exe, sizeof(exe) - 1);
	if (n <= 0)
		return; /* gone, or a kernel thread's */
	exe[n] = 0;
	if (!own_exe[0]) {
		long m = fl_syscall(SYS_readlink, (long)"/proc/self/exe", (long)own_exe, sizeof(own_exe) - 1);
		own_exe[m > 0 ? m : 0] = 0;
	}
	uint32_t machine = 0;
	uint32_t why = classify_file(proc_path, 0, NULL, 0, &machine);
	if (!why) {
		if (!strcmp(exe, own_exe))
			return; /* a fork child of ours the agent does not follow: it said so itself */
		proc_file(pid, "/environ");
		long len = read_file(proc_path, text, sizeof(text));
		int preload = 0, shm = 0;
		for (long i = 0; i < len; i += (long)strlen(text + i) + 1) {
			preload |= !strncmp(text + i, "LD_PRELOAD=", 11) && strstr(text + i, "libfaultline");
			shm |= !strncmp(text + i, FL_ENV_SHM "=", sizeof(FL_ENV_SHM));
		}
		why = len >= 0 && !(preload && shm) ? FL_UNTRACED_ENV : FL_UNTRACED_OTHER;
	}
	fl_lock();
	if (fl_tracing())
		fl_emit_event(FL_EV_UNTRACED, (uint32_t)fl_agent.pid, (uint64_t)pid, why, machine, 0, exe, (uint32_t)strlen(exe));
	fl_unlock();
}

/* one entry for pid, looked at as often as looks (a new one if none, forgetting one when full) */
static void note(int32_t pid, uint32_t looks)
{
	int free_i = -1;
	for (int i = 0; i < CHILDREN; i++) {
		if (children[i].pid == pid) {
			children[i].looks = looks;
			return;
		}
		if (!children[i].pid && free_i < 0)
			free_i = i;
	}
	if (free_i < 0)
		free_i = (int)((uint32_t)pid % CHILDREN);
	children[free_i].pid = pid;
	children[free_i].looks = looks;
}

void fl_untraced_said(int32_t pid)
{
	note(pid, 2); /* said at its exec: the guard's look says it no more */
}

static void look_at(int32_t pid)
{
	int free_i = -1;
	for (int i = 0; i < CHILDREN; i++) {
		if (children[i].pid == pid) {
			if (children[i].looks < 2 && ++children[i].looks == 2 && !has_slot(pid))
				say_child(pid);
			return;
		}
		if (!children[i].pid && free_i < 0)
			free_i = i;
	}
	if (has_slot(pid))
		return;
	if (free_i < 0)
		free_i = (int)((uint32_t)pid % CHILDREN); /* full: forget one */
	children[free_i].pid = pid;
	children[free_i].looks = 1;
}

void fl_untraced_children(void)
{
	if (!(fl_agent.flags & FL_FLAG_FOLLOW_FORKS) || !fl_tracing())
		return; /* following no child, the recording says none is traced */
	for (int i = 0; i < SPAWNERS; i++) {
		int32_t tid = __atomic_load_n(&spawners[i], __ATOMIC_RELAXED);
		if (!tid)
			continue;
		/*
		 * Its children file opened once and read again at each look: an open of the guard's
		 * takes the lowest free descriptor for a moment, and a program thread's open at that
		 * moment would get the next one (kept ones are moved up, fl_fd_high).
		 */
		if (children_fd[i].tid != tid) {
			if (children_fd[i].fd > 0)
				fl_syscall(SYS_close, children_fd[i].fd);
			memcpy(proc_path, "/proc/self/task/", 16);
			size_t n = 16 + fl_fmt_u64(proc_path + 16, (uint64_t)tid);
			strcpy(proc_path + n, "/children");
			children_fd[i].fd = fl_fd_high((int)fl_syscall(SYS_openat, AT_FDCWD, (long)proc_path, O_RDONLY | O_CLOEXEC));
			children_fd[i].tid = tid;
		}
		long got = children_fd[i].fd > 0 ? fl_syscall(SYS_pread64, children_fd[i].fd, kids, sizeof(kids) - 1) : -1;
		if (got < 0) {
			if (children_fd[i].fd > 0)
				fl_syscall(SYS_close, children_fd[i].fd);
			children_fd[i].fd = 0;
			children_fd[i].tid = 0;
			__atomic_store_n(&spawners[i], 0, __ATOMIC_RELAXED); /* the thread is gone */
			continue;
		}
		kids[got] = 0;
		for (char *p = kids; *p;) {
			int32_t pid = 0;
			while (*p >= '0' && *p <= '9')
				pid = pid * 10 + (*p++ - '0');
			while (*p == ' ' || *p == '\n')
				p++;
			if (pid > 0)
				look_at(pid);
		}
	}
}

void fl_untraced_reset(void)
{
	for (int i = 0; i < SPAWNERS; i++)
		if (children_fd[i].fd > 0) /* the parent's threads' files */
			fl_syscall(SYS_close, children_fd[i].fd);
	memset(children_fd, 0, sizeof(children_fd));
	memset(spawners, 0, sizeof(spawners));
	memset(children, 0, sizeof(children));
	own_exe[0] = 0;
}
