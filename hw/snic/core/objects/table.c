/*
 * snic core: the object tables' free handles (table.h). Hand-written: a
 * GLib tree or bitmap would find the lowest free handle by a walk or
 * allocate as handles come and go.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <string.h>

#include "objects/table.h"

static uint32_t words(uint32_t bits)
{
    return (bits + 63) / 64;
}

void snic_slots_init(SnicSlots *s, uint32_t max)
{
    uint32_t n = max;

    memset(s, 0, sizeof(*s));
    s->max = max;
    do {
        g_assert(s->levels < SNIC_SLOTS_LEVELS);
        s->bits[s->levels++] = g_new0(uint64_t, MAX(words(n), 1));
        n = words(n);
    } while (n > 1);
    snic_slots_reset(s);
}

void snic_slots_free(SnicSlots *s)
{
    unsigned l;

    for (l = 0; l < s->levels; l++) {
        g_free(s->bits[l]);
    }
}

void snic_slots_reset(SnicSlots *s)
{
    uint32_t n = s->max, i;
    unsigned l;

    /* each level: its first n bits set, n the words of the one below */
    for (l = 0; l < s->levels; l++) {
        memset(s->bits[l], 0, MAX(words(n), 1) * sizeof(uint64_t));
        for (i = 0; i < n / 64; i++) {
            s->bits[l][i] = UINT64_MAX;
        }
        if (n % 64) {
            s->bits[l][n / 64] = (1ull << (n % 64)) - 1;
        }
        n = words(n);
    }
    s->used = 0;
}

uint32_t snic_slots_take(SnicSlots *s)
{
    uint32_t i = 0, handle;
    uint64_t *w;
    int l;

    if (!s->bits[s->levels - 1][0]) {
        return 0;
    }
    /* down the tree: the lowest set bit of each word leads to the next */
    for (l = s->levels - 1; l >= 0; l--) {
        i = i * 64 + __builtin_ctzll(s->bits[l][i]);
    }
    handle = i + SNIC_FIRST_HANDLE;
    /* up again: a word left empty clears its bit in the level above */
    for (l = 0; l < s->levels; l++, i /= 64) {
        w = &s->bits[l][i / 64];
        *w &= ~(1ull << (i % 64));
        if (*w) {
            break;
        }
    }
    s->used++;
    return handle;
}

void snic_slots_put(SnicSlots *s, uint32_t handle)
{
    uint32_t i = handle - SNIC_FIRST_HANDLE;
    uint64_t *w, was;
    unsigned l;

    if (s->bits[0][i / 64] & 1ull << (i % 64)) {
        return;     /* free already */
    }
    /* a word that was empty sets its bit in the level above */
    for (l = 0; l < s->levels; l++, i /= 64) {
        w = &s->bits[l][i / 64];
        was = *w;
        *w |= 1ull << (i % 64);
        if (was) {
            break;
        }
    }
    s->used--;
}
