/*
 * snic core: the object tables' free slots (table.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdbool.h>

#include "objects/table.h"

uint32_t snic_table_slot(const void *table, size_t entry, uint32_t max)
{
    const uint8_t *t = table;
    uint32_t i;

    for (i = SNIC_FIRST_HANDLE; i < max + SNIC_FIRST_HANDLE; i++) {
        if (!*(const bool *)(t + i * entry)) {
            return i;
        }
    }
    return 0;
}
