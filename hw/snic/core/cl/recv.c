/*
 * snic core: the connectionless transport's receiver (sections 3.2-3.4).
 * A REGISTER enters its operation in the registration table with the
 * initial mask of section 3.2; each packet of it sets its bit, is written
 * and acknowledged; a full mask posts the receive notification, a CQE the
 * REGISTER reserved. A REGISTERED packet that finds no entry waits in the
 * escape channel for its REGISTER. A non-registered packet is written
 * where it says; the sender's NOTIFY then posts the notification.
 *
 * Packets are matched by (sender, its endpoint, op id, the receiving
 * endpoint), then checked against the entry's range - not by range alone
 * as section 3.3 does, so a late duplicate never lands in a new
 * operation over the same buffer.
 * The paper assumes acknowledgements are not lost (section 3.4); this
 * wire loses them, so a completed operation's key lingers in the
 * completed-operations cache for the sender's timeout x (retries + 1):
 * copies arriving meanwhile are acknowledged again and dropped.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "cl/cl_int.h"
#include "engine/scheduler.h"
#include "engine/xmit.h"
#include "objects/cq.h"
#include "objects/mr.h"
#include "objects/mw.h"
#include "objects/qp.h"

static void key_of(SnicCore *c, SnicQp *qp, const SnicPkt *p, ClKey *k)
{
    memset(k, 0, sizeof(*k));
    if (p->addr.ipv6) {
        memcpy(k->gid, p->addr.sip, 16);
    } else {
        k->gid[10] = k->gid[11] = 0xff;
        memcpy(k->gid + 12, p->addr.sip, 4);
    }
    k->ep = p->cl.src_ep;
    k->op_id = p->cl.op_id;
    k->qpn = qp - c->qps;
}

static uint32_t key_hash(const ClKey *k, uint32_t mask)
{
    return snic_crc32(k->ep * 2654435761u ^ k->op_id ^ k->qpn * 40503u,
                      k->gid, 16) & mask;
}

static bool key_eq(const ClKey *a, const ClKey *b)
{
    return !memcmp(a, b, sizeof(*a));
}

/* The sender has given up on a packet after this (its timeout x tries) */
static uint64_t linger_ns(uint32_t timeout_us, uint8_t retries)
{
    return (uint64_t)timeout_us * 1000 * (retries + 1u);
}

/* An ACK or NACK of packet p, back to where it came from */
static void reply(SnicCore *c, SnicQp *qp, const SnicPkt *p, uint8_t syn)
{
    SnicPkt a;

    if (syn != SNIC_CL_ACK) {
        SNIC_EVENT(c, CL_NACK, qp - c->qps, p->cl.src_ep, p->cl.op_id, syn);
    }
    memset(&a, 0, sizeof(a));
    memcpy(a.addr.dmac, p->addr.smac, 6);
    memcpy(a.addr.smac, c->mac, 6);
    a.addr.ipv6 = p->addr.ipv6;
    a.addr.vlan = p->addr.vlan;
    a.addr.vlan_tci = p->addr.vlan_tci;
    memcpy(a.addr.sip, p->addr.dip, 16);
    memcpy(a.addr.dip, p->addr.sip, 16);
    a.addr.tclass = p->addr.tclass;
    a.addr.hop_limit = 64;
    a.addr.ip_id = c->ip_id++;
    a.addr.sport = snic_wire_udp_sport(qp - c->qps, p->cl.src_ep);
    a.opcode = SNIC_OP_CL_ACK;
    a.pkey = SNIC_DEFAULT_PKEY;
    a.dqpn = p->cl.src_ep;
    a.psn = p->psn;
    a.cl.src_ep = qp - c->qps;
    a.cl.op_id = p->cl.op_id;
    a.cl.index = p->cl.index;
    a.cl.syndrome = syn;
    snic_rdma_xmit(c, &a, 0);
}

/* ---- the completed-operations cache ---- */

static ClDone *done_find(SnicClDev *d, const ClKey *k, uint64_t now)
{
    uint32_t i = d->done_hash[key_hash(k, d->done_hmask)];

    for (; i; i = d->done[i - 1].hnext) {
        ClDone *e = &d->done[i - 1];

        if (key_eq(&e->key, k) && e->expires > now) {
            return e;
        }
    }
    return NULL;
}

static void done_unlink(SnicClDev *d, uint32_t slot)
{
    uint32_t *link = &d->done_hash[key_hash(&d->done[slot].key,
                                            d->done_hmask)];

    while (*link != slot + 1) {
        link = &d->done[*link - 1].hnext;
    }
    *link = d->done[slot].hnext;
    d->done[slot].valid = false;
    d->done_used--;
}

/*
 * Room for one more key, counting those the registered operations in
 * the table will need: an expired key is reclaimed, never a live one
 */
static bool done_room(SnicClDev *d, uint64_t now)
{
    uint32_t i;

    if (d->done_used + d->done_resv < d->ndone) {
        return true;
    }
    for (i = 0; i < d->ndone; i++) {
        if (d->done[i].valid && d->done[i].expires <= now) {
            done_unlink(d, i);
        }
    }
    return d->done_used + d->done_resv < d->ndone;
}

/* Enter key k (done_room() said there is room) */
static void done_insert(SnicClDev *d, const ClKey *k, uint64_t expires)
{
    uint32_t b = key_hash(k, d->done_hmask);

    while (d->done[d->done_next].valid) {
        d->done_next = (d->done_next + 1) % d->ndone;
    }
    d->done[d->done_next] = (ClDone) {
        .valid = true, .key = *k, .expires = expires, .hnext = d->done_hash[b],
    };
    d->done_hash[b] = d->done_next + 1;
    d->done_used++;
}

/* ---- receive notifications: a CQE each, reserved before it is due ---- */

static bool cq_room(SnicCore *c, SnicQp *qp)
{
    SnicCq *cq = snic_cq_get(c, qp->recv_cqn);

    return cq && !cq->error &&
           (uint64_t)(cq->tail - cq->head) + c->cl->cq_reserved[qp->recv_cqn] <
           1u << cq->log2_depth;
}

static void notify(SnicCore *c, SnicQp *qp, const ClKey *k, uint64_t base,
                   uint32_t len, uint32_t tag)
{
    struct snic_cqe cqe = {
        .wr_id = GUINT64_TO_LE(base),
        .byte_len = GUINT32_TO_LE(len),
        .imm = GUINT32_TO_BE(tag),
        .qpn = GUINT32_TO_LE(qp - c->qps),
        .src_qp = GUINT32_TO_LE(k->ep),
        .status = SNIC_WC_SUCCESS,
        .opcode = SNIC_WC_CL_RECV,
        .wc_flags = SNIC_WC_F_IMM,
    };

    SNIC_EVENT(c, CL_NOTIFY, qp - c->qps, k->ep, k->op_id, len);
    snic_cq_post(c, qp->recv_cqn, &cqe, false);
}

/* ---- the registration table ---- */

static uint64_t *mask_of(SnicClDev *d, uint32_t slot)
{
    return &d->masks[(size_t)slot * d->mask_words];
}

static uint32_t reg_find(SnicClDev *d, const ClKey *k)
{
    uint32_t i = d->reg_hash[key_hash(k, d->reg_hmask)];

    for (; i; i = d->reg[i - 1].hnext) {
        if (key_eq(&d->reg[i - 1].key, k)) {
            return i;
        }
    }
    return 0;
}

/* The entry leaves the table: its reserved CQE and cache key go back */
static void reg_drop(SnicCore *c, uint32_t slot)
{
    SnicClDev *d = c->cl;
    ClReg *r = &d->reg[slot];
    uint32_t *link = &d->reg_hash[key_hash(&r->key, d->reg_hmask)];
    SnicQp *qp = &c->qps[r->qpn];

    while (*link != slot + 1) {
        link = &d->reg[*link - 1].hnext;
    }
    *link = r->hnext;
    d->cq_reserved[qp->recv_cqn]--;
    d->done_resv--;
    r->valid = false;
    d->reg_free[d->reg_nfree++] = slot;
}

/* Entries whose sender has given up on them since: reclaimed */
static void reg_reclaim(SnicCore *c, uint64_t now)
{
    SnicClDev *d = c->cl;
    uint32_t i;

    for (i = 0; i < d->ntable; i++) {
        if (d->reg[i].valid && d->reg[i].idle_at <= now) {
            reg_drop(c, i);
        }
    }
}

static bool mask_full(SnicClDev *d, uint32_t slot)
{
    const uint64_t *m = mask_of(d, slot);
    uint32_t i, rest = d->mask_bits % 64;

    for (i = 0; i < d->mask_words; i++) {
        uint64_t all = i == d->mask_words - 1 && rest ?
                       (1ull << rest) - 1 : UINT64_MAX;

        if (m[i] != all) {
            return false;
        }
    }
    return true;
}

/* Bytes packet 'index' of an operation of 'len' bytes carries */
static uint32_t pkt_len(SnicClDev *d, uint32_t len, uint32_t index)
{
    return MIN(d->packet, len - index * d->packet);
}

/* Write a packet's payload as an RDMA WRITE would be: true if done */
static bool place(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicMrCheck why;
    SnicMr *mr;

    if (!p->payload_len) {
        return true;
    }
    mr = snic_rkey_check(c, qp, p->cl.rkey, SNIC_ACCESS_REMOTE_WRITE,
                         p->cl.va, p->payload_len, &why);
    return mr && !snic_mtt_write(c, &mr->mtt, p->cl.va, p->payload,
                                 p->payload_len);
}

/* The operation of entry 'slot' is all here */
static void reg_complete(SnicCore *c, SnicQp *qp, uint32_t slot,
                         uint64_t now)
{
    SnicClDev *d = c->cl;
    ClReg r = d->reg[slot];

    reg_drop(c, slot);
    notify(c, qp, &r.key, r.base, r.len, r.tag);
    done_insert(d, &r.key, now + linger_ns(r.timeout_us, r.retries));
}

static void escape_park(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                        const ClKey *k, uint64_t now);

/* A packet of a registered operation, entered or not yet */
static void reg_packet(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                       const ClKey *k, uint64_t now, bool replay)
{
    SnicClDev *d = c->cl;
    uint32_t slot = reg_find(d, k), idx = p->cl.index;
    uint64_t *m;
    ClReg *r;

    if (!slot) {
        if (done_find(d, k, now)) {
            snic_stat_inc(&c->stats.cl_dup_acked);
            reply(c, qp, p, SNIC_CL_ACK);
        } else if (!replay) {
            escape_park(c, qp, p, k, now);
        }
        return;
    }
    r = &d->reg[slot - 1];
    m = mask_of(d, slot - 1);
    if (idx >= r->npkts || p->cl.rkey != r->rkey ||
        p->cl.va != r->base + (uint64_t)idx * d->packet ||
        p->payload_len != pkt_len(d, r->len, idx)) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);   /* not of its range */
        return;
    }
    if (m[idx / 64] & 1ull << (idx % 64)) {
        /* section 3.3: new mask == original mask, a duplicate */
        snic_stat_inc(&c->stats.cl_dup_dropped);
        reply(c, qp, p, SNIC_CL_ACK);
        return;
    }
    if (!place(c, qp, p)) {
        reg_drop(c, slot - 1);      /* no notification for it, ever */
        reply(c, qp, p, SNIC_CL_NACK_REMOTE_ACCESS);
        return;
    }
    m[idx / 64] |= 1ull << (idx % 64);
    r->idle_at = now + linger_ns(r->timeout_us, r->retries);
    reply(c, qp, p, SNIC_CL_ACK);
    if (mask_full(d, slot - 1)) {
        reg_complete(c, qp, slot - 1, now);
    }
}

/* ---- the escape channel ---- */

static void escape_sync(SnicCore *c, SnicQp *qp)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);
    uint32_t qpn = qp - c->qps, i;

    ep->esc_at = UINT64_MAX;
    for (i = 0; i < d->nescape; i++) {
        if (d->esc[i].valid && d->esc[i].qpn == qpn) {
            ep->esc_at = MIN(ep->esc_at, d->esc[i].deadline);
        }
    }
    snic_qp_timer_sync(c, qp);
}

static void escape_park(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                        const ClKey *k, uint64_t now)
{
    SnicClDev *d = c->cl;
    uint32_t i;
    size_t len;

    for (i = 0; i < d->nescape && d->esc[i].valid; i++) {
        continue;
    }
    len = i < d->nescape && p->payload_len <= d->packet ?
          snic_wire_build(p, d->esc_frames + (size_t)i * SNIC_CL_ESC_FRAME(d),
                          SNIC_CL_ESC_FRAME(d)) : 0;
    if (!len) {
        snic_stat_inc(&c->stats.cl_escape_full);
        return;
    }
    /*
     * half its own sender's timeout: gone before that resends it. Each
     * packet's own, so one peer's short timeout shortens no other's wait
     */
    d->esc[i] = (ClEsc) {
        .valid = true, .key = *k, .qpn = qp - c->qps, .len = len,
        .deadline = now + (uint64_t)p->cl.timeout_us * 500,
    };
    snic_stat_inc(&c->stats.cl_escape_parked);
    cl_ep(c, qp)->esc_at = MIN(cl_ep(c, qp)->esc_at, d->esc[i].deadline);
    snic_qp_timer_sync(c, qp);
}

/* Its REGISTER came: the packets of the operation waiting are taken */
static void escape_replay(SnicCore *c, SnicQp *qp, const ClKey *k,
                          uint64_t now)
{
    SnicClDev *d = c->cl;
    bool any = false;
    uint32_t i;

    for (i = 0; i < d->nescape; i++) {
        SnicPkt p;

        if (!d->esc[i].valid || !key_eq(&d->esc[i].key, k)) {
            continue;
        }
        d->esc[i].valid = false;
        any = true;
        if (snic_wire_parse(d->esc_frames + (size_t)i * SNIC_CL_ESC_FRAME(d),
                            d->esc[i].len, &p) == SNIC_PARSE_OK) {
            snic_stat_inc(&c->stats.cl_escape_replayed);
            reg_packet(c, qp, &p, k, now, true);
        }
    }
    if (any) {
        escape_sync(c, qp);
    }
}

void snic_cl_escape_timer(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SnicClDev *d = c->cl;
    uint32_t qpn = qp - c->qps, i;

    for (i = 0; i < d->nescape; i++) {
        if (d->esc[i].valid && d->esc[i].qpn == qpn &&
            d->esc[i].deadline <= now) {
            /* section 3.3: its sender resends it (no ACK went back) */
            d->esc[i].valid = false;
            snic_stat_inc(&c->stats.cl_escape_timeouts);
        }
    }
    escape_sync(c, qp);
}

/* ---- the packets ---- */

static void refuse(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    snic_stat_inc(&c->stats.cl_reg_refused);
    reply(c, qp, p, SNIC_CL_NACK_NOT_READY);
}

static void do_register(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                        const ClKey *k, uint64_t now)
{
    SnicClDev *d = c->cl;
    uint32_t npkts = p->cl.npkts, slot;
    SnicMrCheck why;
    ClReg *r;

    if (reg_find(d, k) || done_find(d, k, now)) {
        reg_packet(c, qp, p, k, now, false);    /* a copy of it */
        return;
    }
    if (p->cl.index || !npkts || npkts > d->mask_bits ||
        npkts != MAX((p->cl.len + (uint64_t)d->packet - 1) / d->packet, 1) ||
        p->payload_len != pkt_len(d, p->cl.len, 0)) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    /* the whole range is checked once here, each packet again later */
    if (p->cl.len && !snic_rkey_check(c, qp, p->cl.rkey,
                                      SNIC_ACCESS_REMOTE_WRITE, p->cl.va,
                                      p->cl.len, &why)) {
        reply(c, qp, p, SNIC_CL_NACK_REMOTE_ACCESS);
        return;
    }
    if (!d->reg_nfree || !cq_room(c, qp)) {
        reg_reclaim(c, now);
    }
    if (!d->reg_nfree || !cq_room(c, qp) || !done_room(d, now)) {
        refuse(c, qp, p);
        return;
    }
    if (!place(c, qp, p)) {
        reply(c, qp, p, SNIC_CL_NACK_REMOTE_ACCESS);
        return;
    }
    slot = d->reg_free[--d->reg_nfree];
    r = &d->reg[slot];
    *r = (ClReg) {
        .valid = true, .key = *k, .qpn = qp - c->qps, .base = p->cl.va,
        .len = p->cl.len, .npkts = npkts, .rkey = p->cl.rkey,
        .tag = p->cl.tag, .timeout_us = p->cl.timeout_us,
        .retries = p->cl.retries,
        .idle_at = now + linger_ns(p->cl.timeout_us, p->cl.retries),
        .hnext = d->reg_hash[key_hash(k, d->reg_hmask)],
    };
    d->reg_hash[key_hash(k, d->reg_hmask)] = slot + 1;
    d->cq_reserved[qp->recv_cqn]++;
    d->done_resv++;
    snic_cl_initial_mask(d->mask_bits, npkts, mask_of(d, slot));
    reply(c, qp, p, SNIC_CL_ACK);
    if (mask_full(d, slot)) {
        reg_complete(c, qp, slot, now);
        return;
    }
    escape_replay(c, qp, k, now);
}

static void do_notify(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                      const ClKey *k, uint64_t now)
{
    SnicClDev *d = c->cl;

    if (done_find(d, k, now)) {
        snic_stat_inc(&c->stats.cl_dup_acked);  /* one CQE per operation */
        reply(c, qp, p, SNIC_CL_ACK);
        return;
    }
    /* a full cache is never evicted into: a copy would post twice */
    if (!cq_room(c, qp) || !done_room(d, now)) {
        refuse(c, qp, p);
        return;
    }
    notify(c, qp, k, p->cl.va, p->cl.len, p->cl.tag);
    done_insert(d, k, now + linger_ns(p->cl.timeout_us, p->cl.retries));
    reply(c, qp, p, SNIC_CL_ACK);
}

void snic_cl_data(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    uint64_t now = cl_now(c);
    ClKey k;

    /*
     * The sender's timeout and retries set how long its entries linger in
     * the device's tables (linger_ns()): beyond what SET_QP_CL lets an
     * endpoint set, a packet is dropped, never let hold them for hours
     */
    if ((qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS) ||
        p->payload_len > c->cl->packet || !p->cl.timeout_us ||
        p->cl.timeout_us > SNIC_CL_MAX_TIMEOUT_US ||
        p->cl.retries > SNIC_CL_MAX_RETRIES) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    key_of(c, qp, p, &k);
    switch (p->opcode) {
    case SNIC_OP_CL_REGISTER:
        do_register(c, qp, p, &k, now);
        break;
    case SNIC_OP_CL_NOTIFY:
        do_notify(c, qp, p, &k, now);
        break;
    default:
        if (p->cl.flags & SNIC_CL_F_REGISTERED) {
            reg_packet(c, qp, p, &k, now, false);
        } else {
            /* section 3.4: written where it says; a copy rewrites it */
            reply(c, qp, p, place(c, qp, p) ? SNIC_CL_ACK :
                                              SNIC_CL_NACK_REMOTE_ACCESS);
        }
        break;
    }
}

void snic_cl_recv_reset(SnicCore *c, SnicQp *qp)
{
    SnicClDev *d = c->cl;
    uint32_t qpn = qp - c->qps, i;

    for (i = 0; i < d->ntable; i++) {
        if (d->reg[i].valid && d->reg[i].qpn == qpn) {
            reg_drop(c, i);
        }
    }
    for (i = 0; i < d->nescape; i++) {
        if (d->esc[i].qpn == qpn) {
            d->esc[i].valid = false;
        }
    }
    cl_ep(c, qp)->esc_at = UINT64_MAX;
}
