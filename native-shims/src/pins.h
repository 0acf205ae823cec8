/*
 * pins.h: the pinned pages, thread descriptors: enabled, never in the EVMS (pins.c). Lock held.
 */
#ifndef FL_PINS_H
#define FL_PINS_H

#include "sys.h"

int fl_pins_init(uint32_t capacity);
int fl_pins_has(uintptr_t page);
uint32_t fl_pins_collect(uintptr_t start, uintptr_t end, uintptr_t *out, uint32_t max);
void fl_pins_add(uintptr_t page);
void fl_pins_forget(uintptr_t start, uintptr_t end);

#endif
