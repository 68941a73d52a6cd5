/*
 * snic core: HyperLogLog on the RDMA WRITE stream (StRoM, EuroSys'20,
 * section 7.2, Fig. 13; formats in include/snic/snic_admin.h).
 *
 * StRoM runs HLL "on the stream during an incoming RDMA write" and says
 * neither how the kernel is invoked nor its parameters. Ours: a sketch is
 * a device unit attached to a QP (ATTACH_HLL), and the placement layer
 * (engine/place.c) hands it every WRITE payload the QP places, in order
 * or ahead of ePSN, whatever the transport, so no program escapes it and
 * nothing changes on the wire: any RoCE sender feeds it. The parameters
 * are those of the same group's public HyperLogLog (FPL'20): 32-bit
 * items, MurmurHash3_x64_128 with seed 0xbaadf00d keeping h1, p = 16,
 * the raw estimator with linear counting below 2.5 m and no large-range
 * correction (a 64-bit hash).
 *
 * A register keeps the largest rank it has seen, so a packet placed
 * twice (a duplicate, a retransmission, SRNIC placing it again) leaves
 * the registers as they were; only the count of items hashed grows.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include "core_int.h"
#include "strom/hll.h"
#include "objects/qp.h"

#define RANK_BITS   (64 - SNIC_HLL_P)

static uint64_t rotl64(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/*
 * MurmurHash3_x64_128 (Austin Appleby's SMHasher, public domain) of one
 * 4-byte little-endian key, the low half h1. Written out here: Debian
 * packages no C library of it, and a 4-byte key takes only its tail and
 * finalisation (no 16-byte block), a dozen operations a hardware unit
 * pipelines.
 */
uint64_t snic_hll_hash(uint32_t item)
{
    const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
    uint64_t h1 = SNIC_HLL_SEED, h2 = SNIC_HLL_SEED;
    uint64_t k1 = item;

    k1 *= c1;
    k1 = rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 ^= 4;                    /* the key's length */
    h2 ^= 4;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    return h1;
}

void snic_hll_add(uint8_t *regs, uint32_t item)
{
    uint64_t h = snic_hll_hash(item);
    uint64_t w = h & ((1ull << RANK_BITS) - 1);
    /* the leading zeros of the 48-bit field, + 1; all zero: 49 */
    uint8_t rank = w ? __builtin_clzll(w) - SNIC_HLL_P + 1 : RANK_BITS + 1;
    uint8_t *r = &regs[h >> RANK_BITS];

    if (rank > *r) {
        *r = rank;
    }
}

/*
 * E = alpha_m m^2 / sum 2^-M[j], alpha_m = 0.7213 / (1 + 1.079 / m); linear
 * counting m ln(m / V) when E <= 2.5 m and V registers are 0. The sum is
 * taken in register order, so whoever sums the same registers the same
 * way gets the same double.
 */
double snic_hll_estimate(const uint8_t *regs)
{
    const double m = SNIC_HLL_REGISTERS;
    double sum = 0, e;
    uint32_t zeros = 0, j;

    for (j = 0; j < SNIC_HLL_REGISTERS; j++) {
        sum += ldexp(1.0, -regs[j]);
        zeros += !regs[j];
    }
    e = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
    if (e <= 2.5 * m && zeros) {
        e = m * log(m / zeros);
    }
    return e;
}

/* ---- the pool ---- */

void snic_hll_init(SnicCore *c)
{
    c->hll = g_new0(SnicHllSketch, MAX(c->cfg.hll_sketches, 1));
}

void snic_hll_free(SnicCore *c)
{
    g_free(c->hll);
}

/* Every sketch free (a device reset) */
void snic_hll_reset(SnicCore *c)
{
    unsigned i;

    for (i = 0; i < c->cfg.hll_sketches; i++) {
        c->hll[i].qpn = 0;
    }
}

static SnicHllSketch *sketch_of(SnicCore *c, uint32_t qpn)
{
    unsigned i;

    for (i = 0; qpn && i < c->cfg.hll_sketches; i++) {
        if (c->hll[i].qpn == qpn) {
            return &c->hll[i];
        }
    }
    return NULL;
}

static uint32_t qpn_of(SnicCore *c, const SnicQp *qp)
{
    return qp - c->qps;
}

void snic_hll_qp_gone(SnicCore *c, const SnicQp *qp)
{
    SnicHllSketch *s = sketch_of(c, qpn_of(c, qp));

    if (s) {
        s->qpn = 0;
    }
}

static uint32_t le32_at(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return GUINT32_FROM_LE(v);
}

/*
 * A few sketches at most (hll-sketches), so finding a QP's is a short
 * search, as a hardware unit compares its QPN register on every packet.
 */
void snic_hll_feed(SnicCore *c, const SnicQp *qp, const uint8_t *data,
                   uint32_t len)
{
    SnicHllSketch *s = c->cfg.hll_sketches ? sketch_of(c, qpn_of(c, qp))
                                           : NULL;
    uint32_t i, n = len / 4;

    if (!s) {
        return;
    }
    for (i = 0; i < n; i++) {
        snic_hll_add(s->regs, le32_at(data + 4 * i));
    }
    s->items += n;
}

/* ---- admin commands ---- */

/* The RC or UC QP a command names, or NULL */
static SnicQp *cmd_qp(SnicCore *c, const struct snic_admin_hll *a)
{
    SnicQp *qp = snic_qp_get(c, GUINT32_FROM_LE(a->qpn));

    return qp && !a->rsvd &&
           (qp->type == SNIC_QPT_RC || qp->type == SNIC_QPT_UC) ? qp : NULL;
}

static void sketch_clear(SnicHllSketch *s)
{
    memset(s->regs, 0, sizeof(s->regs));
    s->items = 0;
}

uint16_t snic_cmd_attach_hll(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    SnicQp *qp = cmd_qp(c, &cmd->hll);
    SnicHllSketch *s = NULL;
    unsigned i;

    if (!qp) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (sketch_of(c, qpn_of(c, qp))) {
        return SNIC_ADMIN_BAD_STATE;
    }
    for (i = 0; i < c->cfg.hll_sketches && !s; i++) {
        s = c->hll[i].qpn ? NULL : &c->hll[i];
    }
    if (!s) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    sketch_clear(s);
    s->qpn = qpn_of(c, qp);
    *result = s - c->hll;
    return SNIC_ADMIN_OK;
}

/* The sketch of the QP a command names, or NULL (and why, in *st) */
static SnicHllSketch *cmd_sketch(SnicCore *c, const struct snic_admin_cmd *cmd,
                                 uint16_t *st)
{
    SnicQp *qp = cmd_qp(c, &cmd->hll);
    SnicHllSketch *s = qp ? sketch_of(c, qpn_of(c, qp)) : NULL;

    *st = !qp ? SNIC_ADMIN_BAD_PARAM :
          !s ? SNIC_ADMIN_BAD_STATE : SNIC_ADMIN_OK;
    return s;
}

uint16_t snic_cmd_query_hll(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_hll *a = &cmd->hll;
    uint64_t addr = GUINT64_FROM_LE(a->resp_addr);
    uint64_t regs = GUINT64_FROM_LE(a->regs_addr);
    struct snic_hll_info info = { 0 };
    uint32_t zeros = 0, j;
    uint16_t st;
    SnicHllSketch *s = cmd_sketch(c, cmd, &st);
    union {
        double d;
        uint64_t u;
    } e;

    if (!s) {
        return st;
    }
    if (addr % 8) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    for (j = 0; j < SNIC_HLL_REGISTERS; j++) {
        zeros += !s->regs[j];
    }
    e.d = snic_hll_estimate(s->regs);
    info.estimate = GUINT64_TO_LE(e.u);
    info.items = GUINT64_TO_LE(s->items);
    info.qpn = GUINT32_TO_LE(s->qpn);
    info.zero_regs = GUINT32_TO_LE(zeros);
    if ((regs && snic_dma_write(c, regs, s->regs, sizeof(s->regs))) ||
        snic_dma_write(c, addr, &info, sizeof(info))) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_reset_hll(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    uint16_t st;
    SnicHllSketch *s = cmd_sketch(c, cmd, &st);

    if (s) {
        sketch_clear(s);
    }
    return st;
}

uint16_t snic_cmd_detach_hll(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    uint16_t st;
    SnicHllSketch *s = cmd_sketch(c, cmd, &st);

    if (s) {
        s->qpn = 0;
    }
    return st;
}
