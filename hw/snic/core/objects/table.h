/*
 * snic core: the object tables of PDs, MRs, MWs, EQs, CQs and SRQs:
 * arrays of max_* + SNIC_FIRST_HANDLE entries, each led by its 'valid'
 * flag. Handles start at 1: a zeroed field never names a live object.
 * A table's free handles are a SnicSlots: the lowest free one handed out
 * first, as rxe's pools hand out indices, in a constant number of steps
 * whatever the table's size, and the count of handles in use (the stats'
 * gauges) kept as they come and go.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_TABLE_H
#define SNIC_CORE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SNIC_FIRST_HANDLE   1

/* 64^4 handles: SNIC_MAX_OBJECTS (2^20) and beyond */
#define SNIC_SLOTS_LEVELS   4

/*
 * A 64-ary tree of bitmaps: level 0 a bit per handle (set: free), each
 * level above a bit per word of the one below (set: that word has a bit
 * set); the top level is one word.
 */
typedef struct SnicSlots {
    uint64_t *bits[SNIC_SLOTS_LEVELS];
    uint8_t levels;
    uint32_t max;               /* handles 1 .. max */
    uint32_t used;
} SnicSlots;

void snic_slots_init(SnicSlots *s, uint32_t max);
void snic_slots_free(SnicSlots *s);
/* Every handle free */
void snic_slots_reset(SnicSlots *s);
/* The lowest free handle, now in use; 0: none */
uint32_t snic_slots_take(SnicSlots *s);
/* A handle taken before is free again */
void snic_slots_put(SnicSlots *s, uint32_t handle);

/* An entry type a table may hold: its valid flag leads it */
#define SNIC_TABLE_ENTRY(type) \
    _Static_assert(offsetof(type, valid) == 0 && \
                   sizeof(((type *)0)->valid) == sizeof(bool), \
                   #type ": the valid flag leads it")

#endif /* SNIC_CORE_TABLE_H */
