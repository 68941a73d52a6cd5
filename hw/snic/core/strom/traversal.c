/*
 * snic core: the traversal kernel (StRoM, EuroSys'20, section 6.2 and
 * Table 2; parameters in include/snic/snic_rpc.h). It walks a remote data
 * structure by DMA from remoteAddress: in each element (up to 64 bytes,
 * 8-byte keys and pointers at 4-byte-aligned words) it compares the keys
 * keyMask names with the lookup key; on a match it answers with the
 * valueSize bytes the value pointer points to, else it follows the next
 * element pointer, so the client pays one network round trip and the
 * walk PCIe round trips.
 *
 * Layouts (word numbers; K = key, V = value pointer, N = next pointer):
 *  - linked list, hash chain (Fig. 6): [K 0][N 2][V 4]: keyMask 1 << 0,
 *    EQUAL, valuePtrPosition 4, nextElementPtrPosition 2, next valid.
 *    A hash chain starts at its bucket's first element.
 *  - Pilaf-style hash table entry with three buckets [K 0][V 2][K 4]
 *    [V 6][K 8][V 10]: keyMask 0x111, EQUAL, valuePtrPosition 2
 *    relative, no next pointer (a miss answers NOT_FOUND and the client
 *    probes its next cuckoo position); with a next pointer, a chain.
 * The paper names trees and skip lists too, but one next pointer cannot
 * choose between children: snic adds routing (route_mask,
 * route_predicate, route_ptr_offset; 0 = off). When no key matches, the
 * first routing key that satisfies route_predicate sends the walk to the
 * pointer route_ptr_offset words after it; if none does, the next
 * pointer is taken as before.
 *  - binary search tree [K 0][left 2][right 4][V 6]: keyMask and
 *    route_mask 1 << 0, EQUAL, valuePtrPosition 6; GREATER_THAN routes
 *    to the left child (offset 2), the right child is the next pointer.
 *  - B-tree node of two keys [K1 0][K2 2][C0 4][C1 6][C2 8][V1 10]
 *    [V2 12] (an unused key is all ones): keyMask and route_mask 0x5,
 *    EQUAL, valuePtrPosition 10 relative, GREATER_THAN routes to C0/C1
 *    (offset 4), C2 is the next pointer.
 *  - skip list of up to three levels, each node keeping the keys of its
 *    forward nodes (all ones where there is none): [K 0][V 2][FK2 4]
 *    [FK1 6][FK0 8][F2 10][F1 12][F0 14]: keyMask 1 << 0, EQUAL,
 *    valuePtrPosition 2; route_mask FK2..FK0, LESS_EQUAL, offset 6:
 *    the walk takes the highest level that does not pass the key, and a
 *    node with none answers NOT_FOUND (no next pointer).
 *
 * Every element and the value are read through the RPC's R_Key (kernel.h):
 * a pointer outside that region answers SNIC_RPC_PROT_ERR and nothing
 * outside it is read; a cycle ends with SNIC_RPC_STEP_LIMIT.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "strom/kernel.h"

#define WORDS       16          /* 64-byte elements of 4-byte words */
#define FIELD_MAX   (WORDS - 2) /* an 8-byte field starts at word <= 14 */
#define SLOTS_OK    ((1u << (FIELD_MAX + 1)) - 1)

typedef struct TraversalState {
    uint64_t key;
    uint64_t cur;               /* the element being read */
    uint32_t value_size;
    uint32_t need;              /* bytes of an element the fields span */
    uint16_t key_mask;
    uint16_t route_mask;
    uint8_t predicate;
    uint8_t route_predicate;
    uint8_t value_ptr_pos;
    uint8_t route_ptr_offset;
    uint8_t next_ptr_pos;
    uint8_t flags;
} TraversalState;
_Static_assert(sizeof(TraversalState) <= SNIC_KERNEL_STATE_MAX,
               "traversal state fits the slot");

static uint64_t word64(const uint8_t *e, unsigned w)
{
    uint64_t v;

    memcpy(&v, e + 4 * w, 8);
    return GUINT64_FROM_LE(v);
}

static bool satisfies(uint8_t pred, uint64_t elem, uint64_t key)
{
    switch (pred) {
    case SNIC_TRAV_EQUAL:
        return elem == key;
    case SNIC_TRAV_LESS_THAN:
        return elem < key;
    case SNIC_TRAV_GREATER_THAN:
        return elem > key;
    case SNIC_TRAV_NOT_EQUAL:
        return elem != key;
    case SNIC_TRAV_LESS_EQUAL:
        return elem <= key;
    case SNIC_TRAV_GREATER_EQUAL:
        return elem >= key;
    }
    return false;
}

/* The highest word an 8-byte field at 'w' + 'offset' of any slot takes. */
static int field_end(uint16_t slots, unsigned offset)
{
    int top = -1;
    unsigned w;

    for (w = 0; w < WORDS; w++) {
        if (slots & (1u << w)) {
            top = w + offset + 1;
        }
    }
    return top;
}

static uint8_t traversal_start(SnicRpc *k, const uint8_t *params,
                               uint32_t len)
{
    TraversalState *s = snic_kernel_state(k);
    struct snic_traversal_params p;
    bool rel;
    int top;

    if (len != sizeof(p)) {
        return SNIC_RPC_BAD_PARAMS;
    }
    memcpy(&p, params, sizeof(p));
    *s = (TraversalState) {
        .key = GUINT64_FROM_LE(p.key),
        .cur = GUINT64_FROM_LE(p.remote_address),
        .value_size = GUINT32_FROM_LE(p.value_size),
        .key_mask = GUINT16_FROM_LE(p.key_mask),
        .route_mask = GUINT16_FROM_LE(p.route_mask),
        .predicate = p.predicate,
        .route_predicate = p.route_predicate,
        .value_ptr_pos = p.value_ptr_pos,
        .route_ptr_offset = p.route_ptr_offset,
        .next_ptr_pos = p.next_ptr_pos,
        .flags = p.flags,
    };
    rel = s->flags & SNIC_TRAV_RELATIVE;
    /* every field inside the 64-byte element: checked once, here */
    if (!s->key_mask || s->key_mask & ~SLOTS_OK ||
        s->route_mask & ~SLOTS_OK || p.rsvd ||
        s->predicate > SNIC_TRAV_NOT_EQUAL ||
        s->flags & ~SNIC_TRAV_FLAGS_ALL ||
        field_end(s->key_mask, rel ? s->value_ptr_pos : 0) >= WORDS ||
        (!rel && s->value_ptr_pos > FIELD_MAX) ||
        (s->flags & SNIC_TRAV_NEXT_VALID && s->next_ptr_pos > FIELD_MAX) ||
        (s->route_mask &&
         (s->route_predicate >= SNIC_TRAV_PREDICATES ||
          field_end(s->route_mask, s->route_ptr_offset) >= WORDS)) ||
        s->value_size > SNIC_RPC_MAX_RESPONSE) {
        return SNIC_RPC_BAD_PARAMS;
    }
    if (s->value_size > k->resp_len) {
        return SNIC_RPC_RESP_TOO_LONG;  /* known before any read */
    }
    /* read only the words the fields span, never past the element */
    top = MAX(field_end(s->key_mask, rel ? s->value_ptr_pos : 0),
              field_end(s->route_mask, s->route_ptr_offset));
    if (!rel) {
        top = MAX(top, s->value_ptr_pos + 1);
    }
    if (s->flags & SNIC_TRAV_NEXT_VALID) {
        top = MAX(top, s->next_ptr_pos + 1);
    }
    s->need = 4 * (top + 1);
    if (!s->cur) {
        return SNIC_RPC_NOT_FOUND;
    }
    return snic_kernel_dma_read(k, s->cur, s->need);
}

/* The first slot of 'mask' whose key satisfies 'pred', or -1. */
static int first_slot(const uint8_t *e, uint16_t mask, uint8_t pred,
                      uint64_t key)
{
    unsigned w;

    for (w = 0; w < WORDS; w++) {
        if (mask & (1u << w) && satisfies(pred, word64(e, w), key)) {
            return w;
        }
    }
    return -1;
}

/* One element: answer, or read the next one. */
static void traversal_step(SnicRpc *k)
{
    TraversalState *s = snic_kernel_state(k);
    uint32_t len, off;
    const uint8_t *e = snic_kernel_dma_in(k, &len, &off);
    uint64_t next, value;
    uint8_t st;
    int w;

    if (!e) {
        return;     /* the read failed: the framework answered */
    }
    w = first_slot(e, s->key_mask, s->predicate, s->key);
    if (w >= 0) {
        value = word64(e, s->flags & SNIC_TRAV_RELATIVE ?
                          w + s->value_ptr_pos : s->value_ptr_pos);
        if (!value) {
            snic_kernel_finish(k, SNIC_RPC_NOT_FOUND);
            return;
        }
        snic_kernel_finish(k, snic_kernel_respond(k, value, s->value_size));
        return;
    }
    w = s->route_mask ? first_slot(e, s->route_mask, s->route_predicate,
                                   s->key) : -1;
    if (w >= 0) {
        next = word64(e, w + s->route_ptr_offset);
    } else if (s->flags & SNIC_TRAV_NEXT_VALID) {
        next = word64(e, s->next_ptr_pos);
    } else {
        next = 0;
    }
    if (!next) {
        snic_kernel_finish(k, SNIC_RPC_NOT_FOUND);
        return;
    }
    s->cur = next;
    st = snic_kernel_dma_read(k, next, s->need);
    if (st != SNIC_RPC_OK) {
        snic_kernel_finish(k, st);
    }
}

const SnicKernelOps snic_kernel_traversal = {
    .name = "traversal",
    .id = SNIC_KERNEL_TRAVERSAL,
    .start = traversal_start,
    .step = traversal_step,
};
