/*
 * snic core: the connectionless transport's tables and endpoints: their
 * life, SET_QP_CL, the mask rule of section 3.2, and the dispatch of an
 * endpoint's packets and timer to its sender (send.c) and receiver
 * (recv.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "cl/cl_int.h"
#include "engine/scheduler.h"
#include "objects/qp.h"

/* The device's table sizes: its configuration, 0 taking the default */
static uint32_t or_default(uint32_t v, uint32_t def)
{
    return v ? v : def;
}

/* Buckets for a chained hash of n entries: a power of two >= 2n */
static uint32_t hash_buckets(uint32_t n)
{
    uint32_t b = 1;

    while (b < 2 * n) {
        b <<= 1;
    }
    return b;
}

static uint32_t *stack_of(uint32_t n)
{
    uint32_t *s = g_new(uint32_t, n);
    uint32_t i;

    for (i = 0; i < n; i++) {
        s[i] = n - 1 - i;       /* slot 0 on top */
    }
    return s;
}

void snic_cl_init(SnicCore *c)
{
    const SnicCoreConfig *cf = &c->cfg;
    uint32_t packet = or_default(cf->cl_packet, SNIC_CL_DEF_PACKET);
    SnicClDev *d = g_malloc0(sizeof(*d) + packet);

    d->packet = packet;
    d->nops = or_default(cf->cl_ops, SNIC_CL_DEF_OPS);
    d->ntxns = or_default(cf->cl_txns, SNIC_CL_DEF_TXNS);
    d->ntable = or_default(cf->cl_table, SNIC_CL_DEF_TABLE);
    d->mask_bits = or_default(cf->cl_mask_bits, SNIC_CL_DEF_MASK_BITS);
    d->mask_words = (d->mask_bits + 63) / 64;
    d->nescape = or_default(cf->cl_escape, SNIC_CL_DEF_ESCAPE);
    d->ndone = or_default(cf->cl_done, SNIC_CL_DEF_DONE);
    d->neps = or_default(cf->cl_endpoints, SNIC_CL_DEF_ENDPOINTS);
    d->eps = g_new0(SnicClEp, d->neps);
    d->ops = g_new0(ClOp, d->nops);
    d->txns = g_new0(ClTxn, d->ntxns);
    d->txn_hmask = hash_buckets(d->ntxns) - 1;
    d->txn_hash = g_new0(uint32_t, d->txn_hmask + 1);
    d->reg = g_new0(ClReg, d->ntable);
    d->masks = g_new0(uint64_t, (size_t)d->ntable * d->mask_words);
    d->reg_hmask = hash_buckets(d->ntable) - 1;
    d->reg_hash = g_new0(uint32_t, d->reg_hmask + 1);
    d->done = g_new0(ClDone, d->ndone);
    d->done_hmask = hash_buckets(d->ndone) - 1;
    d->done_hash = g_new0(uint32_t, d->done_hmask + 1);
    d->esc = g_new0(ClEsc, d->nescape);
    d->esc_frames = g_malloc0((size_t)d->nescape * SNIC_CL_ESC_FRAME(d));
    d->cq_reserved = g_new0(uint32_t, cf->max_cq + 1);
    d->op_free = stack_of(d->nops);
    d->txn_free = stack_of(d->ntxns);
    d->reg_free = stack_of(d->ntable);
    c->cl = d;
    snic_cl_reset(c);
}

void snic_cl_free(SnicCore *c)
{
    SnicClDev *d = c->cl;

    if (!d) {
        return;
    }
    g_free(d->eps);
    g_free(d->ops);
    g_free(d->op_free);
    g_free(d->txns);
    g_free(d->txn_free);
    g_free(d->txn_hash);
    g_free(d->reg);
    g_free(d->masks);
    g_free(d->reg_free);
    g_free(d->reg_hash);
    g_free(d->done);
    g_free(d->done_hash);
    g_free(d->esc);
    g_free(d->esc_frames);
    g_free(d->cq_reserved);
    g_free(d);
    c->cl = NULL;
}

void snic_cl_reset(SnicCore *c)
{
    SnicClDev *d = c->cl;
    uint32_t i;

    memset(d->eps, 0, d->neps * sizeof(*d->eps));
    memset(d->ops, 0, d->nops * sizeof(*d->ops));
    memset(d->txns, 0, d->ntxns * sizeof(*d->txns));
    memset(d->txn_hash, 0, (d->txn_hmask + 1) * sizeof(uint32_t));
    memset(d->reg, 0, d->ntable * sizeof(*d->reg));
    memset(d->reg_hash, 0, (d->reg_hmask + 1) * sizeof(uint32_t));
    memset(d->done, 0, d->ndone * sizeof(*d->done));
    memset(d->done_hash, 0, (d->done_hmask + 1) * sizeof(uint32_t));
    memset(d->esc, 0, d->nescape * sizeof(*d->esc));
    memset(d->cq_reserved, 0, (c->cfg.max_cq + 1) * sizeof(uint32_t));
    for (i = 0; i < d->nops; i++) {
        d->op_free[i] = d->nops - 1 - i;
    }
    for (i = 0; i < d->ntxns; i++) {
        d->txn_free[i] = d->ntxns - 1 - i;
    }
    for (i = 0; i < d->ntable; i++) {
        d->reg_free[i] = d->ntable - 1 - i;
    }
    d->op_nfree = d->nops;
    d->txn_nfree = d->ntxns;
    d->reg_nfree = d->ntable;
    d->done_next = d->done_used = d->done_resv = 0;
    d->park_head = 0;
}

bool snic_cl_config_check(const SnicCoreConfig *cfg, GError **errp)
{
    const struct {
        const char *name;
        uint32_t v, min, max;
    } lim[] = {
        { "cl-table", cfg->cl_table, 1, SNIC_CL_MAX_ENTRIES },
        { "cl-mask-bits", cfg->cl_mask_bits, 32, SNIC_CL_MAX_MASK_BITS },
        { "cl-packet", cfg->cl_packet, 64, 4096 },
        { "cl-escape", cfg->cl_escape, 1, 1024 },
        { "cl-done", cfg->cl_done, 1, SNIC_CL_MAX_ENTRIES },
        { "cl-ops", cfg->cl_ops, 1, SNIC_CL_MAX_ENTRIES },
        { "cl-txns", cfg->cl_txns, 1, SNIC_CL_MAX_ENTRIES },
        { "cl-endpoints", cfg->cl_endpoints, 1, SNIC_CL_MAX_ENDPOINTS },
    };
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(lim); i++) {
        if (lim[i].v && (lim[i].v < lim[i].min || lim[i].v > lim[i].max)) {
            g_set_error(errp, g_quark_from_static_string("snic-config"), 0,
                        "%s=%u is out of range %u..%u", lim[i].name,
                        lim[i].v, lim[i].min, lim[i].max);
            return false;
        }
    }
    if (cfg->cl_packet % 4) {
        g_set_error(errp, g_quark_from_static_string("snic-config"), 0,
                    "cl-packet=%u is not a multiple of 4", cfg->cl_packet);
        return false;
    }
    return true;
}

uint64_t snic_cl_onchip_bytes(const SnicCore *c)
{
    const SnicClDev *d = c->cl;

    return (uint64_t)d->neps * sizeof(SnicClEp) +
           (uint64_t)d->nops * (sizeof(ClOp) + sizeof(uint32_t)) +
           (uint64_t)d->ntxns * (sizeof(ClTxn) + sizeof(uint32_t)) +
           (uint64_t)(d->txn_hmask + 1) * sizeof(uint32_t) +
           (uint64_t)d->ntable * (sizeof(ClReg) + sizeof(uint32_t) +
                                  d->mask_words * sizeof(uint64_t)) +
           (uint64_t)(d->reg_hmask + 1) * sizeof(uint32_t) +
           (uint64_t)d->ndone * sizeof(ClDone) +
           (uint64_t)(d->done_hmask + 1) * sizeof(uint32_t) +
           (uint64_t)d->nescape * (sizeof(ClEsc) + SNIC_CL_ESC_FRAME(d)) +
           (uint64_t)(c->cfg.max_cq + 1) * sizeof(uint32_t) +
           sizeof(*d) + d->packet;
}

void snic_cl_attr(const SnicCore *c, struct snic_device_attr *a)
{
    const SnicClDev *d = c->cl;

    a->cl_table = GUINT32_TO_LE(d->ntable);
    a->cl_mask_bits = GUINT16_TO_LE(d->mask_bits);
    a->cl_packet = GUINT16_TO_LE(d->packet);
    a->cl_escape = GUINT16_TO_LE(d->nescape);
    a->cl_endpoints = GUINT16_TO_LE(d->neps);
    a->cl_done = GUINT32_TO_LE(d->ndone);
    a->cl_ops = GUINT32_TO_LE(d->nops);
    a->cl_txns = GUINT32_TO_LE(d->ntxns);
    a->cl_onchip_bytes = GUINT32_TO_LE(MIN(snic_cl_onchip_bytes(c),
                                           UINT32_MAX));
}

bool snic_cl_initial_mask(uint32_t bits, uint32_t npkts, uint64_t *mask)
{
    uint32_t words = (bits + 63) / 64, i;

    if (!npkts || npkts > bits) {
        return false;
    }
    /*
     * Section 3.2's barrel shifter: zeroes shifted in for the npkts
     * packets expected, ones above them (no packet will set those), then
     * packet 0's 1 (it carried the registration)
     */
    for (i = 0; i < words; i++) {
        uint32_t lo = i * 64, hi = MIN(bits, lo + 64);
        uint64_t w = 0;
        uint32_t b;

        for (b = MAX(lo, npkts); b < hi; b++) {
            w |= 1ull << (b - lo);
        }
        mask[i] = w;
    }
    mask[0] |= 1;
    return true;
}

uint16_t snic_cmd_set_qp_cl(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_set_qp_cl *a = &cmd->set_qp_cl;
    SnicQp *qp = snic_qp_get(c, GUINT32_FROM_LE(a->qpn));
    uint32_t thr = GUINT32_FROM_LE(a->seg_threshold);
    uint32_t seg = GUINT32_FROM_LE(a->seg_size);
    uint32_t tmo = GUINT32_FROM_LE(a->timeout_us);
    SnicClDev *d = c->cl;
    SnicClEp *ep;

    if (!qp || qp->type != SNIC_QPT_UD ||
        (thr && (!seg || seg % d->packet || seg > thr ||
                 seg / d->packet > d->mask_bits)) ||
        a->retries > SNIC_CL_MAX_RETRIES || tmo > SNIC_CL_MAX_TIMEOUT_US) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* an endpoint is chosen before the QP receives anything (RTR) */
    if (qp->state != SNIC_QPS_RESET && qp->state != SNIC_QPS_INIT) {
        return SNIC_ADMIN_BAD_STATE;
    }
    if (!qp->cl_ep) {
        uint32_t i;

        for (i = 0; i < d->neps && d->eps[i].on; i++) {
            continue;   /* a command, not the data path: a scan is fine */
        }
        if (i == d->neps) {
            return SNIC_ADMIN_NO_RESOURCES;
        }
        qp->cl_ep = i + 1;
    }
    ep = cl_ep(c, qp);
    memset(ep, 0, sizeof(*ep));
    ep->on = true;
    ep->seg_threshold = thr;
    ep->seg_size = thr ? seg : 0;
    ep->timeout_us = tmo ? tmo : SNIC_CL_DEF_TIMEOUT_US;
    ep->retries = a->retries ? a->retries : SNIC_CL_DEF_RETRIES;
    ep->esc_at = UINT64_MAX;
    ep->sq_head = qp->sq_comp;
    return SNIC_ADMIN_OK;
}

bool snic_cl_on(const SnicQp *qp)
{
    return qp->cl_ep != 0;
}

void snic_cl_receive(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    if (p->opcode == SNIC_OP_CL_ACK) {
        snic_cl_ack(c, qp, p);
    } else {
        snic_cl_data(c, qp, p);
    }
}

uint64_t snic_cl_deadline(SnicCore *c, SnicQp *qp)
{
    SnicClEp *ep = cl_ep(c, qp);
    uint64_t t = ep->esc_at;

    if (ep->txn_head) {
        t = MIN(t, c->cl->txns[ep->txn_head - 1].deadline);
    }
    return t;
}

void snic_cl_timer(SnicCore *c, SnicQp *qp, uint64_t now)
{
    if (cl_ep(c, qp)->esc_at <= now) {
        snic_cl_escape_timer(c, qp, now);
    }
    snic_cl_send_timer(c, qp, now);
}

void snic_cl_qp_reset(SnicCore *c, SnicQp *qp)
{
    if (!qp->cl_ep) {
        return;
    }
    snic_cl_send_reset(c, qp);
    snic_cl_recv_reset(c, qp);
    memset(cl_ep(c, qp), 0, sizeof(SnicClEp));
    qp->cl_ep = 0;
}

void snic_cl_qp_error(SnicCore *c, SnicQp *qp)
{
    if (qp->cl_ep) {
        snic_cl_send_reset(c, qp);
        snic_cl_recv_reset(c, qp);
    }
}
