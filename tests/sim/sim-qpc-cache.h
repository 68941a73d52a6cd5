/*
 * The QP-context cache of a commodity RNIC, for the NIC timing model's
 * "cached QPC" comparison mode (sim-port.h, tests/sim/README.md): QPCs
 * live in host memory and the NIC keeps the most recently used 'entries'
 * of them on chip, least recently used out first (SRNIC, NSDI'23, 2.2:
 * "RNICs can cache only a small number of QPs on chip, while storing the
 * others in host memory"). Keys are QP numbers; every operation is O(1).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_SIM_QPC_CACHE_H
#define SNIC_SIM_QPC_CACHE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct SnicSimQpcCache {
    unsigned entries;           /* capacity, >= 1 */
    GQueue lru;                 /* keys, most recently used first */
    GHashTable *where;          /* key -> its GList link in lru */
    uint64_t hits, misses, evictions;
} SnicSimQpcCache;

void snic_sim_qpc_cache_init(SnicSimQpcCache *q, unsigned entries);
void snic_sim_qpc_cache_destroy(SnicSimQpcCache *q);

/*
 * A use of QPC 'key': true on a hit; on a miss the QPC is brought in
 * (the least recently used one leaves if the cache is full). Either way
 * it is now the most recently used.
 */
bool snic_sim_qpc_cache_use(SnicSimQpcCache *q, uint32_t key);

/* Is it cached? (no use, no change) */
bool snic_sim_qpc_cache_holds(const SnicSimQpcCache *q, uint32_t key);

#endif /* SNIC_SIM_QPC_CACHE_H */
