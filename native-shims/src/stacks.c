/*
 * stacks.c: the call stack of each trapped reference (record --stacks N), on the faulting
 * thread, in its fault signal's handler (fault.c, fl_fault_on_thread), under the agent lock or
 * beside other threads' faults (the shared path): a walk keeps its copies of stack pages on its
 * own stack, and the tables (stacks and mappings) change under their own short spin lock. A new
 * stack's or mapping's event takes its seq from the clock under that lock: a reference that names
 * it takes its seq after finding it there, so no record comes before the event it names.
 *
 * The walk follows the frame-pointer chain from the signal context: frame 0 is the faulting
 * instruction (rip), then the return address at the top of the stack if the faulting function
 * has no frame of its own (walk() says how that is told), then the return address above each
 * saved rbp ([rbp + 8]), the next frame at [rbp], until N frames, a frame pointer that does not climb (a function built without frame
 * pointers uses rbp for data: most of Debian's glibc), or a return address outside executable
 * memory. DWARF unwinding (libgcc's _Unwind_Backtrace) would see through such code, but it reads
 * the stack with plain loads, and the stack is traced memory: a load of a disabled page in this
 * handler faults with the fault signal blocked, and the kernel kills the process.
 *
 * So no word of the program's stack is read by a load of ours. The kernel copies each stack page
 * the walk needs into agent memory (sys.c, fl_read_self: pread of /proc/self/mem), which cannot
 * fault: an unmapped address fails, a PROT_NONE page (the mprotect engine's disabled pages) is
 * read in place, and a page the sigbus engine parked, missing at its address, fails there and
 * is read from its parking slot (the engine's peek). A page at a time: a read costs about the
 * same for 8 bytes as for a page, so reading each frame's 16 bytes would cost two reads a frame,
 * and most chains stay on one or two pages. A check of the page's state before a plain load (traced? enabled in the EVMS?) would
 * save the system call but not make the load safe: another thread may unmap memory under us
 * (glibc's free of a large block unmaps it without any call we see) and a wrong frame pointer
 * may point anywhere. BENCHMARKS.md, "Call stacks", has the cost per fault.
 *
 * Dedup: a hash of frame arrays (open addressing) over an arena of frames, both in agent memory,
 * per process image. A new stack gets the next id (from 1) and goes out as an FL_EV_STACK event (its frames in hex)
 * before the record that names it; each executable mapping one of its frames lies in goes out
 * first as an FL_EV_CODE_MAP (start, end, file offset, path: what a symbolizer needs), learnt
 * with PROCMAP_QUERY the first time a frame lies in it. Full (STACKS_MAX stacks or the arena):
 * new stacks are recorded as id 0, counted, and said once on stderr. A fork child starts its
 * own table (fl_stacks_reset: its events carry its pid); an exec'd image starts from nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "faultline_shm.h"
#include "emit.h"
#include "engine.h"
#include "maps.h"
#include "mem.h"
#include "stacks.h"
#include "state.h"
#include "sys.h"

#define STACKS_MAX 65536            /* distinct stacks per process image */
#define HASH_SLOTS (2 * STACKS_MAX) /* a power of two, at most half full */
#define ARENA_FRAMES (STACKS_MAX * 16UL)
#define MAPS_MAX 4096               /* mappings a frame was looked up in (executable or not) */
#define WALK_PAGES 2                /* stack pages a walk keeps copied: the chain climbs */
#define STACK_SPAN (1UL << 30)      /* a frame pointer this far above the stack pointer is no frame */
#define AGENT_FRAMES 16             /* frames of the agent's a walk may meet, left out (take) */

struct slot {
	uint64_t hash;
	uint32_t id;  /* 0: free */
	uint32_t n;   /* frames */
	uint64_t off; /* first frame in the arena */
};

struct code_map {
	uintptr_t start, end;
	int code;      /* executable: announced with FL_EV_CODE_MAP; else frames in it end a walk */
	int announced; /* its FL_EV_CODE_MAP is out, or none is due (see wait_announced) */
};

static uint32_t frames_max; /* N, 0: off */
static struct slot *slots;
static uint64_t *arena;
static uint64_t arena_used;
static uint32_t stacks_n;
static uint64_t stacks_lost; /* references recorded with id 0: the table was full */
static struct code_map *maps;
static uint32_t maps_n;
static int tables_lock; /* slots, arena and maps */

/* one walk: its copies of stack pages (on the walker's own stack), and where its events go */
struct walk {
	uint8_t buf[WALK_PAGES][FL_PAGE];
	uintptr_t page[WALK_PAGES];
	uint32_t next;
	uint32_t tid;          /* the faulting thread: the tid of the events the walk emits */
	struct fl_emitter *e;  /* its ring, NULL: the slot's (the agent lock held) */
};

/* an event of the tables: on the shared path with the seq read under their lock (the file's top) */
static void emit(struct walk *w, uint32_t type, uint64_t seq, uint64_t a, uint64_t b, uint64_t c, const char *text,
		 uint32_t len)
{
	if (w->e)
		fl_emit_event_to(w->e, type, w->tid, seq, a, b, c, 0, text, len);
	else
		fl_emit_event(type, w->tid, a, b, c, 0, text, len);
}

int fl_stacks_init(void)
{
	frames_max = *fl_ctl32(FL_CTL_STACK_FRAMES);
	if (frames_max > FL_STACK_FRAMES_MAX)
		frames_max = FL_STACK_FRAMES_MAX;
	if (!frames_max || slots)
		return 0;
	slots = fl_mem_map(HASH_SLOTS * sizeof(*slots));
	arena = fl_mem_map(ARENA_FRAMES * sizeof(*arena));
	maps = fl_mem_map(MAPS_MAX * sizeof(*maps));
	if (!slots || !arena || !maps)
		return -ENOMEM;
	uint64_t probe;
	fl_read_self(&probe, (uintptr_t)&probe, sizeof(probe)); /* /proc/self/mem opened now, not in a handler */
	return 0;
}

void fl_stacks_reset(void)
{
	if (slots)
		memset(slots, 0, HASH_SLOTS * sizeof(*slots));
	arena_used = 0;
	stacks_n = 0;
	stacks_lost = 0;
	maps_n = 0;
	tables_lock = 0; /* a fork child: another thread of the parent may have held it */
}

int fl_stacks_on(void)
{
	return frames_max && slots && fl_agent.mode == FL_MODE_TRACE;
}

/* ---- the program's stack, read without a load of ours ---- */

/*
 * The copy of a stack page, NULL if it cannot be read. One page per read: a read costs about
 * the same whether it copies 8 bytes or 4096, and a second page in the same read costs half as
 * much again (BENCHMARKS.md "Call stacks"), while most walks stay on one page.
 */
static const uint8_t *stack_page(struct walk *w, uintptr_t page)
{
	for (uint32_t i = 0; i < WALK_PAGES; i++)
		if (w->page[i] == page)
			return w->buf[i];
	uint32_t i = w->next++ % WALK_PAGES;
	uint8_t *buf = w->buf[i];
	w->page[i] = 0;
	if (fl_read_self(buf, page, FL_PAGE) != (long)FL_PAGE && (!fl_engine->peek || fl_engine->peek(page, buf) != 0))
		return NULL;
	w->page[i] = page;
	return buf;
}

static int stack_word(struct walk *w, uintptr_t a, uint64_t *out)
{
	const uint8_t *p = stack_page(w, FL_PAGE_DOWN(a));
	if (!p)
		return -1;
	memcpy(out, p + (a & (FL_PAGE - 1)), sizeof(*out));
	return 0;
}

/* ---- the mappings frames lie in ---- */

static int map_index(uintptr_t a)
{
	uint32_t lo = 0, hi = maps_n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (maps[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < maps_n && maps[lo].start <= a ? (int)lo : -1;
}

struct learning {
	struct walk *w;
	int code;
};

/*
 * A walk that finds a mapping another thread put in the table waits until that thread's
 * FL_EV_CODE_MAP is out before its stack can name the mapping. Both events take the clock's
 * value as their seq, and with no reference between them it is the same: the recorder orders
 * events of one seq from two rings by time, and only among those it has seen (Logger), so the
 * code map must be in its ring, with the earlier time, before the stack is made. The wait is
 * that thread's emit: a ring write, or its wait for room, which gives up with the recorder.
 */
static void wait_announced(uintptr_t a)
{
	for (;;) {
		fl_spin_lock(&tables_lock);
		int i = map_index(a);
		int done = i < 0 || __atomic_load_n(&maps[i].announced, __ATOMIC_ACQUIRE);
		fl_spin_unlock(&tables_lock);
		if (done)
			return;
		fl_syscall(SYS_sched_yield);
	}
}

/*
 * The entries a mapping the kernel has now overlaps: what lay there before was unmapped or
 * changed (a library loaded where a data mapping was, code made writable by a JIT), and an entry
 * kept would say a new mapping is known, so it would never be announced. The tables' lock held.
 */
static void forget_overlapping(uintptr_t start, uintptr_t end)
{
	uint32_t kept = 0;
	for (uint32_t k = 0; k < maps_n; k++)
		if (maps[k].end <= start || maps[k].start >= end)
			maps[kept++] = maps[k];
	maps_n = kept;
}

/* the query's answer, outside the tables' lock (a system call); kept and announced under it */
static int learn_map(const struct fl_map_line *m, void *ctx)
{
	struct learning *l = ctx;
	l->code = m->perms[2] == 'x';
	fl_spin_lock(&tables_lock);
	int i = map_index(m->start);
	int known = i >= 0 && maps[i].start == m->start && maps[i].end == m->end && maps[i].code == l->code;
	if (!known)
		forget_overlapping(m->start, m->end);
	known = known || maps_n == MAPS_MAX;
	/* the agent's frames never go out (take), nor their mappings */
	int announce = !known && l->code && !fl_in_agent_text(m->start);
	uint64_t seq = fl_clock_now();
	if (!known) {
		uint32_t i = maps_n;
		while (i > 0 && maps[i - 1].start > m->start) {
			maps[i] = maps[i - 1];
			i--;
		}
		maps[i] = (struct code_map){ m->start, m->end, l->code, !announce };
		maps_n++;
	}
	fl_spin_unlock(&tables_lock);
	if (announce) {
		emit(l->w, FL_EV_CODE_MAP, seq, m->start, m->end, m->offset, m->path, (uint32_t)strlen(m->path));
		fl_spin_lock(&tables_lock); /* entries move as others are put in: found again */
		int i = map_index(m->start);
		if (i >= 0)
			__atomic_store_n(&maps[i].announced, 1, __ATOMIC_RELEASE);
		fl_spin_unlock(&tables_lock);
	} else if (known && l->code) {
		wait_announced(m->start);
	}
	return 1;
}

/*
 * Whether a lies in executable memory; a mapping seen the first time is announced. The table
 * answers without the kernel, but for the faulting instruction (pc) where it says data: it ran,
 * so the entry is likely one whose mapping has gone, and the kernel is asked.
 */
static int in_code(struct walk *w, uintptr_t a, int pc)
{
	fl_spin_lock(&tables_lock);
	int i = map_index(a);
	int code = i >= 0 ? maps[i].code : -1;
	int announced = i >= 0 && maps[i].announced;
	fl_spin_unlock(&tables_lock);
	if (code > 0 && !announced)
		wait_announced(a);
	if (code > 0 || (code == 0 && !pc))
		return code;
	struct learning l = { w, 0 };
	fl_maps_each_in(a, a + 1, learn_map, &l);
	return l.code;
}

/*
 * Whether the instruction before ret is a call (x86-64: E8 rel32, or FF /2 with any ModRM form,
 * SDM vol. 2A "CALL"), so that ret can be a return address. Read through the kernel (code may be
 * unmapped by another thread's dlclose) and remembered per address: code does not change under
 * us but for a JIT's, where a stale answer costs one wrong frame.
 */
#define CALL_MEMO 1024
static uint64_t call_memo[CALL_MEMO]; /* ret << 1 | call, in one word: walks of other threads read it at once */

static int after_call(uintptr_t ret)
{
	uint32_t slot = (uint32_t)(ret ^ (ret >> 10)) % CALL_MEMO;
	uint64_t memo = __atomic_load_n(&call_memo[slot], __ATOMIC_RELAXED);
	if (memo >> 1 == ret)
		return (int)(memo & 1);
	uint8_t b[8]; /* b[8 - k]: the byte k before ret */
	int call = 0;
	if (ret >= 8 && fl_read_self(b, ret - 8, 8) == 8) {
		call = b[3] == 0xe8;
		for (int k = 2; k <= 7 && !call; k++) {
			uint8_t op = b[8 - k], modrm = b[9 - k];
			if (op != 0xff || ((modrm >> 3) & 7) != 2)
				continue;
			int mod = modrm >> 6, rm = modrm & 7, len;
			if (mod == 3)
				len = 2;
			else if (mod == 0)
				len = rm == 5 ? 6 : rm == 4 ? ((b[10 - k] & 7) == 5 ? 7 : 3) : 2;
			else
				len = (mod == 1 ? 3 : 6) + (rm == 4);
			call = len == k;
		}
	}
	__atomic_store_n(&call_memo[slot], (uint64_t)ret << 1 | (uint64_t)call, __ATOMIC_RELAXED);
	return call;
}

/* ---- the walk and the table ---- */

static uint32_t walk(struct walk *w, const struct fl_stack_regs *regs, uint64_t *frames, uint32_t limit)
{
	memset(w->page, 0, sizeof(w->page));
	w->next = 0;
	uint32_t n = 0;
	frames[n++] = regs->pc;
	in_code(w, regs->pc, 1); /* announced even if the program jumped to data: the frame is the truth */
	uintptr_t fp = regs->fp, floor = regs->sp;
	/*
	 * A function that has not set up a frame of its own (a leaf that needs no stack, which gcc
	 * builds so even with -fno-omit-frame-pointer, or one stopped in its prologue) leaves rbp its
	 * caller's, and the chain would skip the caller: its return address is then the word at the
	 * top of the stack. Taken when that word follows a call instruction and is not the return
	 * address the chain gives next (a function with a frame holds its locals or saved registers
	 * there, rarely a code address right after a call).
	 */
	uint64_t top, chained;
	if (n < limit && stack_word(w, regs->sp, &top) == 0 && in_code(w, top, 0) && after_call(top) &&
	    !(fp >= floor && !(fp & 7) && stack_word(w, fp + 8, &chained) == 0 && chained == top))
		frames[n++] = top;
	while (n < limit) {
		if (fp < floor || (fp & 7) || fp - regs->sp > STACK_SPAN)
			break;
		uint64_t next, ret;
		if (stack_word(w, fp, &next) || stack_word(w, fp + 8, &ret) || !in_code(w, ret, 0))
			break;
		frames[n++] = ret;
		floor = fp + 16;
		fp = next;
	}
	return n;
}

static uint64_t hash_frames(const uint64_t *f, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (uint32_t i = 0; i < n; i++) {
		h ^= f[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h | 1; /* never 0 */
}

/* v in hexadecimal, no 0x, no leading zeros (FL_EV_STACK's text); digits written */
static uint32_t hex(char *out, uint64_t v)
{
	char tmp[16];
	uint32_t n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (uint32_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/*
 * The agent's own frames left out: an interposed call's wrapper between the program's call and
 * libc's function, the agent's code that touched the page (a program thread in a wrapper of
 * ours, or its thread start). The stack is the program's as it would be natively, and no frame
 * or code map of libfaultline is in any trace.
 */
static uint32_t without_agent_frames(uint64_t *frames, uint32_t n)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!fl_in_agent_text(frames[i]))
			frames[kept++] = frames[i];
	return kept;
}

static uint32_t take(struct walk *w, const struct fl_stack_regs *regs)
{
	uint64_t frames[FL_STACK_FRAMES_MAX + AGENT_FRAMES];
	uint32_t n = without_agent_frames(frames, walk(w, regs, frames, frames_max + AGENT_FRAMES));
	if (!n)
		return 0;
	if (n > frames_max)
		n = frames_max;
	uint64_t h = hash_frames(frames, n);
	fl_spin_lock(&tables_lock);
	uint32_t i = (uint32_t)h & (HASH_SLOTS - 1);
	for (; slots[i].id; i = (i + 1) & (HASH_SLOTS - 1))
		if (slots[i].hash == h && slots[i].n == n && memcmp(arena + slots[i].off, frames, n * sizeof(*frames)) == 0) {
			uint32_t id = slots[i].id;
			fl_spin_unlock(&tables_lock);
			return id;
		}
	if (stacks_n == STACKS_MAX || arena_used + n > ARENA_FRAMES) {
		int first = stacks_lost++ == 0;
		fl_spin_unlock(&tables_lock);
		if (first)
			fl_log("faultline: the stack table is full (" FL_STR(STACKS_MAX) " stacks in this process): ",
			       "references with a stack not seen before are recorded without one (stack id 0)", NULL);
		return 0;
	}
	memcpy(arena + arena_used, frames, n * sizeof(*frames));
	uint32_t id = ++stacks_n;
	slots[i] = (struct slot){ .hash = h, .id = id, .n = n, .off = arena_used };
	arena_used += n;
	uint64_t seq = fl_clock_now();
	fl_spin_unlock(&tables_lock);
	char text[FL_STACK_FRAMES_MAX * 17];
	uint32_t len = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (k)
			text[len++] = ' ';
		len += hex(text + len, frames[k]);
	}
	emit(w, FL_EV_STACK, seq, id, n, 0, text, len);
	return id;
}

uint32_t fl_stack_take(const struct fl_stack_regs *regs, uint32_t tid)
{
	struct walk w = { .tid = tid, .e = NULL };
	return take(&w, regs);
}

uint32_t fl_stack_take_to(struct fl_emitter *e, const struct fl_stack_regs *regs, uint32_t tid)
{
	struct walk w = { .tid = tid, .e = e };
	return take(&w, regs);
}
