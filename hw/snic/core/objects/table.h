/*
 * snic core: the object tables of PDs, MRs, MWs, EQs, CQs and SRQs:
 * arrays of max_* + SNIC_FIRST_HANDLE entries, each led by its 'valid'
 * flag. Handles start at 1: a zeroed field never names a live object.
 * snic_table_slot() hands out the free ones, lowest handle first, as
 * rxe's pools hand out indices.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_TABLE_H
#define SNIC_CORE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SNIC_FIRST_HANDLE   1

/* The lowest free handle of 'max' entries of 'entry' bytes; 0: none */
uint32_t snic_table_slot(const void *table, size_t entry, uint32_t max);

/* An entry type a table may hold: its valid flag leads it */
#define SNIC_TABLE_ENTRY(type) \
    _Static_assert(offsetof(type, valid) == 0 && \
                   sizeof(((type *)0)->valid) == sizeof(bool), \
                   #type ": the valid flag leads it")

#endif /* SNIC_CORE_TABLE_H */
