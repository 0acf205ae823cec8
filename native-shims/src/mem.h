/*
 * mem.h: agent-owned memory, always from mmap, remembered so that scope all never traces it
 * (mem.c).
 */
#ifndef FL_MEM_H
#define FL_MEM_H

#include "sys.h"

void *fl_mem_map(size_t len); /* zeroed, MAP_NORESERVE; NULL on failure */
void fl_mem_unmap(void *p, size_t len);
int fl_mem_is_agent(uintptr_t start, uintptr_t end); /* overlaps any agent range */
/* subtract agent ranges from [s,e): calls fn for each remaining piece */
void fl_mem_subtract(uintptr_t s, uintptr_t e, void (*fn)(uintptr_t, uintptr_t, void *), void *ctx);
void fl_mem_add(uintptr_t start, uintptr_t end); /* a range the agent owns but did not map itself */
void fl_mem_release(uintptr_t start, uintptr_t end); /* part of an agent mapping was unmapped */
void fl_mem_reset_after_fork(void);

#endif
