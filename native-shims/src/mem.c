/*
 * mem.c: agent-owned memory. Every byte the agent uses at run time (range table, EVMS, staging
 * buffers, handler stack, parking areas, bitmaps) comes from mmap here, never from malloc, so it
 * never lies in the program's heap. Each mapping is remembered so that scope "all" subtracts it
 * from what it registers: the handler must never fault on memory it depends on.
 *
 * The table itself lives in libfaultline's own .bss, which agent.c adds to it (with libc's and
 * ld.so's writable segments), so the maps scan never traces it.
 * MAP_NORESERVE also keeps the kernel from merging an agent mapping with a neighbouring program
 * mapping (different vm flags), though the subtraction would cope with a merge anyway.
 *
 * Every mapping is MADV_DONTDUMP: a core dump of the traced program holds the program's memory,
 * not the agent's (parking areas, signal stacks, tables: some 300 MB against a native 8 MB core
 * before, for a program of 2,000 malloc blocks that aborts). A parked page's contents still
 * reach the core at the page's own address: the program's death by such a signal brings every
 * page home first (gate.c, fl_gate_core_signal).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"
#include "sys.h"

#define FL_MEM_MAX 4096

static struct {
	uintptr_t start, end;
} mem_ranges[FL_MEM_MAX];
static uint32_t mem_count;
static int mem_lock;


void fl_mem_add(uintptr_t start, uintptr_t end)
{
	fl_spin_lock(&mem_lock);
	/* sorted insert; overlap-free because the kernel hands out disjoint mappings */
	uint32_t i = mem_count;
	if (mem_count < FL_MEM_MAX) {
		while (i > 0 && mem_ranges[i - 1].start > start) {
			mem_ranges[i] = mem_ranges[i - 1];
			i--;
		}
		mem_ranges[i].start = start;
		mem_ranges[i].end = end;
		mem_count++;
	}
	fl_spin_unlock(&mem_lock);
}

static void mem_remove(uintptr_t start, uintptr_t end)
{
	fl_spin_lock(&mem_lock);
	for (uint32_t i = 0; i < mem_count; i++) {
		if (mem_ranges[i].start == start && mem_ranges[i].end == end) {
			memmove(&mem_ranges[i], &mem_ranges[i + 1], (mem_count - i - 1) * sizeof(mem_ranges[0]));
			mem_count--;
			break;
		}
	}
	fl_spin_unlock(&mem_lock);
}

void *fl_mem_map(size_t len)
{
	len = FL_PAGE_UP(len);
	void *p = fl_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	fl_sys_madvise(p, len, MADV_DONTDUMP);
	fl_mem_add((uintptr_t)p, (uintptr_t)p + len);
	return p;
}

void fl_mem_unmap(void *p, size_t len)
{
	len = FL_PAGE_UP(len);
	fl_sys_munmap(p, len);
	mem_remove((uintptr_t)p, (uintptr_t)p + len);
}

/*
 * Index of the first agent range that ends after addr (mem_count if none), under the lock. The
 * ranges are sorted and disjoint, so their ends are sorted too: a binary search, where a scan
 * from the first range cost a process with a parking area per mapping (a JVM) most of its
 * rescans (fl_mem_subtract in the guard thread's profile).
 */
static uint32_t first_ending_after(uintptr_t addr)
{
	uint32_t lo = 0, hi = mem_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (mem_ranges[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int fl_mem_is_agent(uintptr_t start, uintptr_t end)
{
	int hit = 0;
	fl_spin_lock(&mem_lock);
	for (uint32_t i = first_ending_after(start); i < mem_count && mem_ranges[i].start < end; i++)
		if (mem_ranges[i].end > start) {
			hit = 1;
			break;
		}
	fl_spin_unlock(&mem_lock);
	return hit;
}

void fl_mem_subtract(uintptr_t s, uintptr_t e, void (*fn)(uintptr_t, uintptr_t, void *), void *ctx)
{
	/*
	 * fn may map more agent memory (a parking area), which never overlaps [s, e) because
	 * [s, e) is already mapped; so walk with a cursor and drop the lock around fn.
	 */
	uintptr_t cur = s;
	while (cur < e) {
		uintptr_t cut_s = e, cut_e = e;
		fl_spin_lock(&mem_lock);
		for (uint32_t i = first_ending_after(cur); i < mem_count && mem_ranges[i].start < e; i++)
			if (mem_ranges[i].end > cur) {
				cut_s = mem_ranges[i].start > cur ? mem_ranges[i].start : cur;
				cut_e = mem_ranges[i].end < e ? mem_ranges[i].end : e;
				break;
			}
		fl_spin_unlock(&mem_lock);
		if (cut_s > cur)
			fn(cur, cut_s, ctx);
		cur = cut_e;
	}
}

/* forget [start, end) of agent ranges (part of a parking area was unmapped), splitting entries */
void fl_mem_release(uintptr_t start, uintptr_t end)
{
	fl_spin_lock(&mem_lock);
	for (uint32_t i = 0; i < mem_count; i++) {
		uintptr_t s = mem_ranges[i].start, e = mem_ranges[i].end;
		if (e <= start || s >= end)
			continue;
		if (s < start && e > end) {
			if (mem_count < FL_MEM_MAX) {
				memmove(&mem_ranges[i + 2], &mem_ranges[i + 1], (mem_count - i - 1) * sizeof(mem_ranges[0]));
				mem_ranges[i].end = start;
				mem_ranges[i + 1].start = end;
				mem_ranges[i + 1].end = e;
				mem_count++;
			}
			break;
		}
		if (s < start) {
			mem_ranges[i].end = start;
		} else if (e > end) {
			mem_ranges[i].start = end;
		} else {
			memmove(&mem_ranges[i], &mem_ranges[i + 1], (mem_count - i - 1) * sizeof(mem_ranges[0]));
			mem_count--;
			i--;
		}
	}
	fl_spin_unlock(&mem_lock);
}

void fl_mem_reset_after_fork(void)
{
	mem_lock = 0; /* another thread of the parent may have held it at fork time */
}
