/*
 * snic core: the RC responder's placement ahead of ePSN, for the
 * programs that speak the selective-transport extension (SNIC_PROG_XPORT)
 * and the receiver-driven ones' NACKs of trimmed packets; resp.c hands
 * such packets here first.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/place.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "engine/scheduler.h"
#include "objects/mw.h"
#include "objects/qp.h"

static bool is_first(uint8_t op)
{
    return snic_opcode_info(op)->flags & SNIC_OPF_FIRST;
}

static bool is_last(uint8_t op)
{
    return snic_opcode_info(op)->flags & SNIC_OPF_LAST;
}

/*
 * ---- out-of-order placement (SNIC_PROG_XPORT programs) ----
 * A WRITE packet names its own target (struct snic_xeth): it is placed
 * as it arrives, anywhere in [ePSN, ePSN + SNIC_TX_WINDOW), recorded in
 * the program's map (SnicOooMap) and never placed again; ePSN moves over
 * the placed PSNs in order, so messages still complete in order. No
 * reorder buffer: nothing is held but the bits. A SEND packet names its
 * message number and offset (SRNIC section 4.4.1's SSN and PSN_OFFSET):
 * it goes into the receive WQE that number names, read from the RQ ahead
 * of its head without taking it; the WQE is taken, and completed, when
 * ePSN reaches the message, as in order. A WRITE with immediate's packets
 * carry both: placed as WRITE packets, its Last completes as a SEND's.
 */

/* The completion slot of the Last (SEND, WRITE_IMM) placed at psn, or NULL */
static SnicOooLast *ooo_last(SnicOooMap *m, uint32_t psn)
{
    unsigned i;

    for (i = 0; i < SNIC_OOO_LASTS; i++) {
        if (m->lasts[i].opcode && m->lasts[i].psn == psn) {
            return &m->lasts[i];
        }
    }
    return NULL;
}

/*
 * ePSN reaches a SEND packet placed ahead of it. Its message's receive
 * WQE is taken at the first packet: the WQE it was placed into, since
 * every message numbered before it completed since, each taking the RQ's
 * head (and that WQE stays posted: cannot fail). The Last completes the
 * message as the in-order path does. False if the QP failed: the op-code
 * sequence checked here as in order (IBA 9.7.5.1.1), and the Last's
 * offset checked against the bytes of the message before it.
 */
static bool sweep_send(SnicCore *c, SnicQp *qp, SnicOooMap *m)
{
    SnicResp *s = &qp->resp;
    uint32_t psn = s->epsn, mtu = snic_qp_mtu_bytes(qp);
    bool first = snic_psnmap_get(m->first, psn);
    SnicOooLast *l = snic_psnmap_get(m->last, psn) ? ooo_last(m, psn) : NULL;
    SnicPkt p;

    if ((first ? snic_place_in_message(qp) : !s->in_send) ||
        (!snic_psnmap_get(m->last, psn) ?
         (uint64_t)(first ? 0 : s->recv_off) + mtu > (1u << 31) :
         !l || l->off != (first ? 0 : s->recv_off))) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, psn);
        return false;
    }
    if (first && !snic_recv_take(c, qp)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, psn);
        return false;
    }
    if (!l) {
        s->recv_off += mtu;
        s->in_send = true;
        return true;
    }
    memset(&p, 0, sizeof(p));
    p.opcode = l->opcode;
    p.psn = psn;
    p.headers = snic_opcode_info(l->opcode)->headers;
    p.imm = p.ieth_rkey = l->data;
    p.se = l->se;
    l->opcode = 0;
    s->recv_off += l->len;
    s->in_send = false;
    if (p.headers & SNIC_HDR_IETH &&
        !snic_remote_invalidate(c, qp, p.ieth_rkey)) {
        snic_rq_complete(c, qp, SNIC_WC_REM_INV_REQ_ERR, SNIC_WC_RECV,
                         s->recv_off, &p);
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, psn);
        return false;
    }
    snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV, s->recv_off, &p);
    s->msn = (s->msn + 1) & 0xffffff;
    snic_place_msg_done(qp);
    return true;
}

/*
 * ePSN reaches an RDMA WRITE with immediate's Last or Only packet, placed
 * (its completion in l): the message takes the RQ's head, the receive
 * WQE its number named at placement (every message numbered before it
 * completed since, each taking the head: it stays posted, cannot fail),
 * and completes as the in-order path completes it, byte_len the
 * message's length. False if the QP failed: the op-code sequence
 * checked here as in order (IBA 9.7.5.1.1).
 */
static bool write_imm_done(SnicCore *c, SnicQp *qp, SnicOooLast *l)
{
    SnicResp *s = &qp->resp;
    bool only = l->opcode == SNIC_OP_RC_WRITE_ONLY_IMM;
    uint32_t psn = l->psn;
    SnicPkt p;

    if (only ? snic_place_in_message(qp) : !s->in_write) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, psn);
        return false;
    }
    if (!snic_recv_take(c, qp)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, psn);
        return false;
    }
    memset(&p, 0, sizeof(p));
    p.opcode = l->opcode;
    p.psn = psn;
    p.headers = snic_opcode_info(l->opcode)->headers;
    p.imm = l->data;
    p.se = l->se;
    l->opcode = 0;
    s->in_write = false;
    snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV_RDMA_WITH_IMM,
                     l->off + l->len, &p);
    s->msn = (s->msn + 1) & 0xffffff;
    snic_place_msg_done(qp);
    return true;
}

/* ePSN over the PSNs placed ahead of it; true if it moved */
bool snic_resp_ooo_sweep(SnicCore *c, SnicQp *qp)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicResp *s = &qp->resp;
    bool moved = false;

    while (m && snic_psnmap_get(m->placed, s->epsn)) {
        if (snic_psnmap_get(m->send, s->epsn)) {
            if (!sweep_send(c, qp, m)) {
                break;
            }
        } else if (snic_psnmap_get(m->last, s->epsn) &&
                   ooo_last(m, s->epsn)) {
            if (!write_imm_done(c, qp, ooo_last(m, s->epsn))) {
                break;
            }
        } else {
            s->in_write = !snic_psnmap_get(m->last, s->epsn);
            if (!s->in_write) {
                s->msn = (s->msn + 1) & 0xffffff;
            }
        }
        snic_place_epsn_advance(qp, 1);
        moved = true;
    }
    return moved;
}

/* Are PSNs beyond ePSN placed (a gap)? */
static bool ooo_gap(const SnicOooMap *m)
{
    unsigned i;

    for (i = 0; i < SNIC_TX_WINDOW / 32; i++) {
        if (m->placed[i]) {
            return true;
        }
    }
    return false;
}

static bool is_plain_write(uint8_t op)
{
    return op == SNIC_OP_RC_WRITE_FIRST || op == SNIC_OP_RC_WRITE_MIDDLE ||
           op == SNIC_OP_RC_WRITE_LAST || op == SNIC_OP_RC_WRITE_ONLY;
}

static bool is_send(uint8_t op)
{
    return op <= SNIC_OP_RC_SEND_ONLY_IMM || op == SNIC_OP_RC_SEND_LAST_INV ||
           op == SNIC_OP_RC_SEND_ONLY_INV;
}

/*
 * Place a WRITE packet d PSNs from ePSN and record it in the map. The NAK
 * is sent only if it is the expected one: one ahead of a gap is dropped
 * unrecorded, and comes again.
 */
static uint8_t ooo_place(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                         int32_t d)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    uint8_t syn = snic_place_write_at(c, qp, p, !d);

    if (syn == SNIC_AETH_ACK) {
        snic_psnmap_set(m->placed, p->psn, true);
        snic_psnmap_set(m->last, p->psn, is_last(p->opcode));
    }
    return syn;
}

/* A packet was placed at psn, d PSNs from ePSN: sweep, and acknowledge */
/* The cumulative ACK: everything before ePSN is in place */
static void ack_in_order(SnicCore *c, SnicQp *qp)
{
    snic_place_queue_ack(c, qp, SNIC_AETH_ACK,
                         (qp->resp.epsn - 1) & SNIC_PSN_MASK);
}

static void ooo_placed(SnicCore *c, SnicQp *qp, const SnicPkt *p, int32_t d)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicResp *s = &qp->resp;

    if (d) {
        m->sack_at = p->psn;    /* the next ACK's SACK block holds it */
    }
    snic_resp_ooo_sweep(c, qp);
    if (d && s->ack_every) {
        /* TCP's receiver: a duplicate ACK for every one (RFC 5681) */
        snic_place_dup_ack(c, qp);
        return;
    }
    /* the program's ACK policy; at once when a gap opens or closes */
    if (d || p->ackreq || ooo_gap(m) || (s->epsn - p->psn - 1) &
        SNIC_PSN_MASK || (s->ack_every && ++s->unacked >= s->ack_every)) {
        s->unacked = 0;
        ack_in_order(c, qp);
    }
}

static void ooo_write(SnicCore *c, SnicQp *qp, const SnicPkt *p, int32_t d)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicResp *s = &qp->resp;
    uint8_t syn;

    if (d < 0 || ((p->psn - s->epsn) & SNIC_PSN_MASK) >= SNIC_TX_WINDOW ||
        snic_psnmap_get(m->placed, p->psn)) {
        /* old, beyond the map, or placed already: never twice */
        ack_in_order(c, qp);
        return;
    }
    syn = ooo_place(c, qp, p, d);
    if (syn != SNIC_AETH_ACK) {
        if (!d) {
            snic_place_nak_fatal(c, qp, syn, p->psn);
        }
        return;
    }
    ooo_placed(c, qp, p, d);
}

static bool is_write_imm(uint8_t op)
{
    return op == SNIC_OP_RC_WRITE_LAST_IMM || op == SNIC_OP_RC_WRITE_ONLY_IMM;
}

/* A free completion slot, or NULL */
static SnicOooLast *ooo_free_last(SnicOooMap *m)
{
    unsigned i;

    for (i = 0; i < SNIC_OOO_LASTS; i++) {
        if (!m->lasts[i].opcode) {
            return &m->lasts[i];
        }
    }
    return NULL;
}

/*
 * An RDMA WRITE with immediate's Last or Only packet, d PSNs from ePSN
 * (0 <= d): placed where its extension header says, as any WRITE
 * packet, and completed as a SEND Last is, in a completion slot until
 * ePSN reaches it (at ePSN, at once); false if not taken here. Its
 * message takes a receive WQE: the one its number (SNIC_XETH_F_MSG)
 * names must be posted, and the refusals are a SEND packet's (see
 * ooo_send_place): on an SRQ, on a QP that accepts RPCs, with a number
 * more messages ahead than PSNs ahead, with no such receive WQE, with no
 * free completion slot. Refused, a packet ahead of ePSN is dropped (sent
 * again), one at ePSN executes in order (its RNR NAK, if no receive WQE
 * is posted, is the in-order path's).
 */
static bool ooo_write_imm(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                          int32_t d)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicResp *s = &qp->resp;
    uint32_t dist = (p->psn - s->epsn) & SNIC_PSN_MASK;
    SnicOooLast now, *l;
    uint8_t syn;

    if (dist >= SNIC_TX_WINDOW) {
        return false;
    }
    if (snic_psnmap_get(m->placed, p->psn)) {
        /* placed already: never twice */
        ack_in_order(c, qp);
        return true;
    }
    l = d ? ooo_free_last(m) : &now;
    if (!l || !snic_place_msg_posted(c, qp, p, dist, 0)) {
        return false;
    }
    syn = snic_place_write_at(c, qp, p, !d);
    if (syn != SNIC_AETH_ACK) {
        /* the NAK only at ePSN: one ahead is dropped and comes again */
        if (!d) {
            snic_place_nak_fatal(c, qp, syn, p->psn);
        }
        return true;
    }
    *l = (SnicOooLast) {
        .psn = p->psn,
        .opcode = p->opcode,
        .off = p->xeth.offset,
        .data = p->imm,
        .len = p->payload_len,
        .se = p->se,
    };
    if (!d) {
        if (!write_imm_done(c, qp, l)) {
            return true;
        }
        snic_place_epsn_advance(qp, 1);
    } else {
        snic_psnmap_set(m->placed, p->psn, true);
        snic_psnmap_set(m->last, p->psn, true);
    }
    ooo_placed(c, qp, p, d);
    return true;
}

/*
 * A SEND packet 0 < d < SNIC_TX_WINDOW ahead of ePSN, recorded in the
 * map once placed (snic_place_send()); the completion of a Last
 * needs one of the map's slots: with none free it is not placed.
 */
static bool ooo_send_place(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                           uint32_t d)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    bool first = is_first(p->opcode), last = is_last(p->opcode);
    SnicOooLast *l = last ? ooo_free_last(m) : NULL;

    if ((last && !l) || !snic_place_send(c, qp, p, d, 0)) {
        return false;
    }
    snic_psnmap_set(m->placed, p->psn, true);
    snic_psnmap_set(m->last, p->psn, last);
    snic_psnmap_set(m->send, p->psn, true);
    snic_psnmap_set(m->first, p->psn, first);
    if (l) {
        *l = (SnicOooLast) {
            .psn = p->psn,
            .opcode = p->opcode,
            .off = p->xeth.offset,
            .data = p->headers & SNIC_HDR_IETH ? p->ieth_rkey : p->imm,
            .len = p->payload_len,
            .se = p->se,
        };
    }
    return true;
}

/* A SEND packet ahead of ePSN; false if it is not placed (see above) */
static bool ooo_send(SnicCore *c, SnicQp *qp, const SnicPkt *p, int32_t d)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicResp *s = &qp->resp;
    uint32_t dist = (p->psn - s->epsn) & SNIC_PSN_MASK;

    if (dist >= SNIC_TX_WINDOW) {
        return false;
    }
    if (snic_psnmap_get(m->placed, p->psn)) {
        /* placed already: never twice */
        ack_in_order(c, qp);
        return true;
    }
    if (!ooo_send_place(c, qp, p, dist)) {
        return false;
    }
    ooo_placed(c, qp, p, d);
    return true;
}

/*
 * A trimmed header (NDP: a switch cut its payload off) of a receiver-
 * driven program's QP: its PSN is NACKed at once unless the packet is
 * here already or outside the map, and a PULL is owed for it as for a
 * whole packet (rdma.c). Nothing else of it is read: it has no ICRC.
 */
void snic_resp_trimmed(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicTrimMap *t = snic_prog_trim(qp);

    if (qp->resp.fatal ||
        ((p->psn - qp->resp.epsn) & SNIC_PSN_MASK) >= SNIC_TX_WINDOW ||
        snic_psnmap_get(m->placed, p->psn)) {
        return;     /* old, beyond the map, or placed: nothing lost */
    }
    snic_psnmap_set(t->nack, p->psn, true);
    snic_sched_notify(c, qp);
}

/* Send the NACKs owed for trimmed headers, oldest PSN first. */
void snic_resp_send_nacks(SnicCore *c, SnicQp *qp)
{
    SnicTrimMap *t = snic_prog_trim(qp);
    SnicResp *s = &qp->resp;
    uint32_t i, any = 0, psn;
    SnicPkt p;

    /* every QP's iteration asks: with nothing owed, no walk of the window */
    for (i = 0; t && i < G_N_ELEMENTS(t->nack); i++) {
        any |= t->nack[i];
    }
    for (i = 0; any && i < SNIC_TX_WINDOW; i++) {
        psn = (s->epsn + i) & SNIC_PSN_MASK;
        if (!snic_psnmap_get(t->nack, psn)) {
            continue;
        }
        snic_psnmap_set(t->nack, psn, false);
        memset(&p, 0, sizeof(p));
        snic_rdma_fill_addr(c, qp, &p);
        p.opcode = SNIC_OP_RC_ACK;
        p.psn = (s->epsn - 1) & SNIC_PSN_MASK;
        p.aeth.syndrome = SNIC_AETH_ACK;
        p.aeth.msn = s->msn;
        p.xport = true;
        p.xeth.flags = SNIC_XETH_F_NACK | SNIC_XETH_F_TRIMMED;
        p.xeth.sack_lo = psn;
        snic_rdma_xmit(c, &p, 0);
    }
}

/* The SACK block of an ACK: the placed run holding sack_at, or the first */
void snic_resp_ooo_sack(SnicQp *qp, SnicPkt *p)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    uint32_t epsn = qp->resp.epsn, lo, hi, i;

    if (!ooo_gap(m)) {
        return;
    }
    lo = m->sack_at;
    if (snic_psn_cmp(lo, epsn) <= 0 || !snic_psnmap_get(m->placed, lo)) {
        i = 1;
        while (i < SNIC_TX_WINDOW &&
               !snic_psnmap_get(m->placed, (epsn + i) & SNIC_PSN_MASK)) {
            i++;
        }
        lo = (epsn + i) & SNIC_PSN_MASK;
    }
    while (snic_psn_cmp(lo, epsn) > 0 &&
           snic_psnmap_get(m->placed, (lo - 1) & SNIC_PSN_MASK)) {
        lo = (lo - 1) & SNIC_PSN_MASK;
    }
    hi = lo;
    while (snic_psnmap_get(m->placed, hi) &&
           ((hi - epsn) & SNIC_PSN_MASK) < SNIC_TX_WINDOW) {
        hi = (hi + 1) & SNIC_PSN_MASK;
    }
    p->xeth.flags = SNIC_XETH_F_SACK;
    p->xeth.sack_lo = lo;
    p->xeth.sack_hi = hi;
}

bool snic_resp_ooo(SnicCore *c, SnicQp *qp, const SnicPkt *p, int32_t d)
{
    if (snic_prog_ooo(qp) && is_plain_write(p->opcode)) {
        ooo_write(c, qp, p, d);
        return true;
    }
    if (d > 0 && is_send(p->opcode) && ooo_send(c, qp, p, d)) {
        return true;
    }
    return snic_prog_ooo(qp) && d >= 0 && is_write_imm(p->opcode) &&
           ooo_write_imm(c, qp, p, d);
}
