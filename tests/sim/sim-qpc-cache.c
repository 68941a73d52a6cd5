/*
 * An LRU cache of QP contexts (sim-qpc-cache.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sim-qpc-cache.h"

void snic_sim_qpc_cache_init(SnicSimQpcCache *q, unsigned entries)
{
    g_assert(entries);
    *q = (SnicSimQpcCache) {
        .entries = entries,
        .lru = G_QUEUE_INIT,
        .where = g_hash_table_new(g_direct_hash, g_direct_equal),
    };
}

void snic_sim_qpc_cache_destroy(SnicSimQpcCache *q)
{
    g_queue_clear(&q->lru);
    g_hash_table_destroy(q->where);
}

bool snic_sim_qpc_cache_use(SnicSimQpcCache *q, uint32_t key)
{
    gpointer k = GUINT_TO_POINTER(key);
    GList *link = g_hash_table_lookup(q->where, k);

    if (link) {
        q->hits++;
        g_queue_unlink(&q->lru, link);
        g_queue_push_head_link(&q->lru, link);
        return true;
    }
    q->misses++;
    if (q->lru.length == q->entries) {
        GList *old = g_queue_pop_tail_link(&q->lru);

        g_hash_table_remove(q->where, old->data);
        g_list_free_1(old);
        q->evictions++;
    }
    g_queue_push_head(&q->lru, k);
    g_hash_table_insert(q->where, k, q->lru.head);
    return false;
}

bool snic_sim_qpc_cache_holds(const SnicSimQpcCache *q, uint32_t key)
{
    return g_hash_table_contains(q->where, GUINT_TO_POINTER(key));
}
