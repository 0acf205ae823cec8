/*
 * maps.h: the process's mappings as /proc/self/maps says them (maps.c): every line, or only the
 * mappings over an address range (PROCMAP_QUERY). Lock held.
 */
#ifndef FL_MAPS_H
#define FL_MAPS_H

#include "sys.h"

struct fl_map_line {
	uintptr_t start, end;
	char perms[5];
	uint64_t offset; /* file offset of start (0 for anonymous memory) */
	uint64_t inode;
	unsigned dev_major, dev_minor;
	const char *path; /* NUL-terminated inside the maps buffer; "" if anonymous */
};

int fl_maps_init(void);
/* Read /proc/self/maps into the agent's buffer and call fn per line; 0 or -errno. */
int fl_maps_each(int (*fn)(const struct fl_map_line *, void *), void *ctx);
/* The same for the mappings that overlap [lo, hi) only, whole (PROCMAP_QUERY where the kernel has it). */
int fl_maps_each_in(uintptr_t lo, uintptr_t hi, int (*fn)(const struct fl_map_line *, void *), void *ctx);

#endif
