/*
 * snic core: the shuffle kernel (StRoM, EuroSys'20, section 6.4; formats
 * in include/snic/snic_rpc.h). Radix partitioning on the NIC: the tuples
 * an RPC WRITE carries go into the partitions of the responder's memory
 * that the histogram names, each through an on-chip buffer of 16 tuples
 * (128 bytes) written with one DMA when it fills, so host memory sees
 * large sequential writes instead of one 8-byte write per tuple.
 *
 * StRoM passes the histogram in an RPC message of its own; here it heads
 * the RPC WRITE's payload (params, histogram, tuples), since RPC Params
 * is one packet and 1024 partitions take 16 KiB. The payload streams
 * through data_in(): the head is gathered into the unit's cursors and
 * checked whole before any tuple is placed (every partition inside the
 * R_Key's region with REMOTE_WRITE, aligned, none overlapping, the rest
 * a whole number of tuples, room for the answer), so a bad histogram
 * writes nothing. Then each tuple is appended to its partition as it
 * arrives; at the end of the payload each partly filled buffer is
 * written once (the paper does not say what happens to them: ours), and
 * when the writes have landed the answer, every partition's fill, goes
 * out from a staging buffer. A tuple whose partition is full ends the
 * RPC at once: what came before it is written, buffers included, and
 * nothing after it; the answer SNIC_RPC_PARTITION_FULL carries the fills.
 *
 * The buffers and cursors of 1024 partitions (144 KiB) are a device unit
 * (SnicShuffleUnit, shuffle-units of them, counted on chip), held from
 * start() to the end of the payload: without a free one the RPC is
 * refused for now (RNR NAK), as without a staging buffer. Once the last
 * buffers are handed to their (posted) writes and the fills copied to the
 * staging buffer, the unit has nothing left to hold, so it is free for
 * the next shuffle (a client streaming its tuples in several RPC WRITEs
 * on one QP) while this one's answer waits for its writes to land.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "core_int.h"
#include "strom/kernel.h"

#define PARAMS_LEN  sizeof(struct snic_shuffle_params)
#define PART_LEN    sizeof(struct snic_shuffle_part)
#define TUPLE       8u

typedef struct ShuffleState {
    uint64_t taken;             /* payload bytes taken */
    uint32_t total;             /* payload bytes (the RETH length) */
    uint32_t head_len;          /* params and histogram */
    uint32_t nparts;
    uint8_t unit;               /* the unit held, + 1; 0 none */
    uint8_t shift;
    uint8_t carry_len;          /* bytes of a tuple split by a packet */
    bool flowing;               /* the head passed: tuples are placed */
    uint8_t carry[TUPLE];
    uint8_t params[PARAMS_LEN];
} ShuffleState;
_Static_assert(sizeof(ShuffleState) <= SNIC_KERNEL_STATE_MAX,
               "shuffle state fits the slot");
_Static_assert(sizeof(SnicShuffleCursor) == PART_LEN,
               "a histogram entry becomes its cursor in place");

static SnicShuffleUnit *unit_of(SnicRpc *k)
{
    ShuffleState *s = snic_kernel_state(k);

    return snic_rpc_shuffle_unit(k->core, s->unit - 1);
}

static bool unit_get(SnicRpc *k)
{
    ShuffleState *s = snic_kernel_state(k);
    SnicRpcDev *d = k->core->rpc;
    unsigned u;

    for (u = 0; u < k->core->cfg.shuffle_units; u++) {
        if (!(d->shuffle_used & (1u << u))) {
            d->shuffle_used |= 1u << u;
            s->unit = u + 1;
            return true;
        }
    }
    return false;
}

static void shuffle_release(SnicRpc *k)
{
    ShuffleState *s = snic_kernel_state(k);

    if (s->unit) {
        k->core->rpc->shuffle_used &= ~(1u << (s->unit - 1));
        s->unit = 0;
    }
}

static uint8_t shuffle_start(SnicRpc *k, const uint8_t *params, uint32_t len)
{
    ShuffleState *s = snic_kernel_state(k);

    /* an RPC WRITE: the parameters head its payload */
    if (params || len < PARAMS_LEN) {
        return SNIC_RPC_BAD_PARAMS;
    }
    s->total = len;
    if (!snic_kernel_stage(k) || !unit_get(k)) {
        return SNIC_KERNEL_BUSY;
    }
    return SNIC_RPC_OK;
}

/* Every partition's fill to the staging buffer; the unit goes back. */
static void stage_fills(SnicRpc *k)
{
    ShuffleState *s = snic_kernel_state(k);
    SnicShuffleUnit *u = unit_of(k);
    uint8_t *out = snic_kernel_stage(k);
    uint32_t i, fill;

    for (i = 0; i < s->nparts; i++) {
        fill = GUINT32_TO_LE(u->part[i].fill);
        memcpy(out + 4 * i, &fill, 4);
    }
    shuffle_release(k);
}

/* The answer: the staged fills. */
static void answer(SnicRpc *k, uint8_t status)
{
    ShuffleState *s = snic_kernel_state(k);
    uint8_t st = snic_kernel_respond_staged(k, 4 * s->nparts);

    snic_kernel_finish(k, st != SNIC_RPC_OK ? st : status);
}

/* The end with an error: no data (and the unit goes back now). */
static void fail(SnicRpc *k, uint8_t status)
{
    shuffle_release(k);
    snic_kernel_finish(k, status);
}

/* The params are in: their checks. */
static uint8_t check_params(SnicRpc *k)
{
    ShuffleState *s = snic_kernel_state(k);
    struct snic_shuffle_params p;

    memcpy(&p, s->params, sizeof(p));
    if (p.bits > SNIC_SHUFFLE_MAX_BITS || p.shift > SNIC_SHUFFLE_MAX_SHIFT ||
        p.rsvd0 || p.rsvd1) {
        return SNIC_RPC_BAD_PARAMS;
    }
    s->nparts = 1u << p.bits;
    s->shift = p.shift;
    s->head_len = PARAMS_LEN + s->nparts * PART_LEN;
    /* the tuples are whole; the answer fits the requester's buffer */
    if (s->total < s->head_len || (s->total - s->head_len) % TUPLE ||
        k->resp_len < 4 * s->nparts) {
        return SNIC_RPC_BAD_PARAMS;
    }
    return SNIC_RPC_OK;
}

typedef struct Extent {
    uint64_t base, end;
} Extent;

static int extent_cmp(const void *a, const void *b)
{
    const Extent *x = a, *y = b;

    return x->base < y->base ? -1 : x->base > y->base;
}

/*
 * The histogram is in (as it arrived, little-endian, in the cursors):
 * decode it in place and check every partition before any tuple moves.
 */
static uint8_t check_histogram(SnicRpc *k)
{
    ShuffleState *s = snic_kernel_state(k);
    SnicShuffleUnit *u = unit_of(k);
    /* the tuple buffers are still empty: they sort the extents */
    Extent *ext = (Extent *)u->buf;
    struct snic_shuffle_part h;
    uint32_t i, n = 0;
    uint8_t st;

    _Static_assert(sizeof(u->buf) >= SNIC_SHUFFLE_PARTS * sizeof(Extent),
                   "the buffers hold the extents");
    for (i = 0; i < s->nparts; i++) {
        memcpy(&h, &u->part[i], sizeof(h));
        u->part[i] = (SnicShuffleCursor) {
            .base = GUINT64_FROM_LE(h.base),
            .capacity = GUINT32_FROM_LE(h.capacity),
        };
        if (h.rsvd || u->part[i].base % TUPLE ||
            u->part[i].base + (uint64_t)u->part[i].capacity * TUPLE <
            u->part[i].base) {
            return SNIC_RPC_BAD_PARAMS;
        }
        if (u->part[i].capacity) {
            ext[n++] = (Extent) {
                u->part[i].base,
                u->part[i].base + (uint64_t)u->part[i].capacity * TUPLE,
            };
        }
    }
    /* glibc's qsort: no reason to write another sort */
    qsort(ext, n, sizeof(*ext), extent_cmp);
    for (i = 1; i < n; i++) {
        if (ext[i].base < ext[i - 1].end) {
            return SNIC_RPC_BAD_PARAMS;     /* two partitions overlap */
        }
    }
    for (i = 0; i < n; i++) {
        st = snic_kernel_check_write(k, ext[i].base, ext[i].end - ext[i].base);
        if (st != SNIC_RPC_OK) {
            return st;
        }
    }
    return SNIC_RPC_OK;
}

/* Write partition p's buffered tuples (its last 'n' taken). */
static uint8_t flush(SnicRpc *k, SnicShuffleUnit *u, uint32_t p, uint32_t n)
{
    const SnicShuffleCursor *c = &u->part[p];

    return snic_kernel_dma_write(k, c->base + (uint64_t)(c->fill - n) * TUPLE,
                                 u->buf[p], n * TUPLE);
}

/* Every partly filled buffer, once. */
static uint8_t flush_partial(SnicRpc *k)
{
    ShuffleState *s = snic_kernel_state(k);
    SnicShuffleUnit *u = unit_of(k);
    uint32_t p, n;
    uint8_t st;

    for (p = 0; p < s->nparts; p++) {
        n = u->part[p].fill % SNIC_SHUFFLE_BUF_TUPLES;
        if (n) {
            st = flush(k, u, p, n);
            if (st != SNIC_RPC_OK) {
                return st;
            }
        }
    }
    return SNIC_RPC_OK;
}

/* One tuple (8 bytes as they came) to its partition; false if it ended. */
static bool place(SnicRpc *k, const uint8_t *tuple)
{
    ShuffleState *s = snic_kernel_state(k);
    SnicShuffleUnit *u = unit_of(k);
    uint64_t v;
    uint32_t p;
    SnicShuffleCursor *c;
    uint8_t st;

    memcpy(&v, tuple, TUPLE);
    p = (GUINT64_FROM_LE(v) >> s->shift) & (s->nparts - 1);
    c = &u->part[p];
    if (c->fill == c->capacity) {
        st = flush_partial(k);
        if (st != SNIC_RPC_OK) {
            fail(k, st);
        } else {
            stage_fills(k);
            answer(k, SNIC_RPC_PARTITION_FULL);
        }
        return false;
    }
    u->buf[p][c->fill % SNIC_SHUFFLE_BUF_TUPLES] = v;
    c->fill++;
    if (c->fill % SNIC_SHUFFLE_BUF_TUPLES == 0) {
        st = flush(k, u, p, SNIC_SHUFFLE_BUF_TUPLES);
        if (st != SNIC_RPC_OK) {
            fail(k, st);
            return false;
        }
    }
    return true;
}

/* Take head bytes (params, then histogram); false if the RPC ended. */
static bool take_head(SnicRpc *k, const uint8_t **data, uint32_t *len)
{
    ShuffleState *s = snic_kernel_state(k);
    uint32_t n;
    uint8_t st;

    if (s->taken < PARAMS_LEN) {
        n = MIN(*len, PARAMS_LEN - s->taken);
        memcpy(s->params + s->taken, *data, n);
        s->taken += n;
        *data += n;
        *len -= n;
        if (s->taken == PARAMS_LEN) {
            st = check_params(k);
            if (st != SNIC_RPC_OK) {
                fail(k, st);
                return false;
            }
        }
    } else {
        n = MIN(*len, s->head_len - s->taken);
        memcpy((uint8_t *)unit_of(k)->part + (s->taken - PARAMS_LEN), *data,
               n);
        s->taken += n;
        *data += n;
        *len -= n;
    }
    if (s->taken == s->head_len) {
        st = check_histogram(k);
        if (st != SNIC_RPC_OK) {
            fail(k, st);
            return false;
        }
        s->flowing = true;
    }
    return true;
}

/* roceDataIn: the payload as it arrives, tuples placed at once. */
static bool shuffle_data_in(SnicRpc *k, const uint8_t *data, uint32_t len,
                            bool last)
{
    ShuffleState *s = snic_kernel_state(k);
    uint32_t n;
    uint8_t st;

    while (len && !s->flowing) {
        if (!take_head(k, &data, &len)) {
            return true;    /* answered: the rest is dropped */
        }
    }
    if (s->carry_len && len) {
        n = MIN(len, TUPLE - s->carry_len);
        memcpy(s->carry + s->carry_len, data, n);
        s->carry_len += n;
        data += n;
        len -= n;
        if (s->carry_len == TUPLE) {
            s->carry_len = 0;
            if (!place(k, s->carry)) {
                return true;
            }
        }
    }
    for (; len >= TUPLE; data += TUPLE, len -= TUPLE) {
        if (!place(k, data)) {
            return true;
        }
    }
    memcpy(s->carry + s->carry_len, data, len);
    s->carry_len += len;
    if (last) {
        /* the RETH length was checked whole: the head and tuples are in */
        st = flush_partial(k);
        if (st != SNIC_RPC_OK) {
            fail(k, st);
        } else {
            stage_fills(k);
        }
        /* the answer goes when the writes have landed: step() */
    }
    return true;
}

/* Called once the payload is in and its writes landed: the answer. */
static void shuffle_step(SnicRpc *k)
{
    answer(k, SNIC_RPC_OK);
}

const SnicKernelOps snic_kernel_shuffle = {
    .name = "shuffle",
    .id = SNIC_KERNEL_SHUFFLE,
    .start = shuffle_start,
    .data_in = shuffle_data_in,
    .step = shuffle_step,
    .release = shuffle_release,
};
