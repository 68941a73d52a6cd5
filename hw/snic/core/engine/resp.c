/*
 * snic core: RC responder.
 *
 * Executes requests in PSN order (ePSN): SEND into receive WQEs, RDMA
 * WRITE into memory regions checked against the R_Key, PD, rights and
 * bounds, RDMA READ and atomics through responder resources (kept so a
 * duplicate READ is read again and a duplicate atomic is answered with
 * the saved original value, never executed twice). Packets ahead of ePSN
 * draw one NAK sequence error per gap; other duplicates are re-acknowledged
 * and never executed again. A SEND with no
 * receive WQE draws an RNR NAK; protocol and access violations draw the
 * IBA NAK and move the QP to the error state. StRoM RPCs go to rpc.c on
 * QPs that agreed to them, and are refused like any unsupported request
 * on the others. ACKs are queued (place.c) and sent by the engine:
 * nothing is ever transmitted from the receive path. Packets the
 * selective programs place ahead of ePSN are resp_ooo.c's; SRNIC's,
 * srnic/'s (its hooks, srnic/sr.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/place.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "engine/scheduler.h"
#include "objects/mr.h"
#include "objects/mtt.h"
#include "objects/mw.h"
#include "objects/qp.h"
#include "port/link.h"
#include "srnic/sr.h"
#include "strom/rpc.h"

static bool is_first(uint8_t op)
{
    return snic_opcode_info(op)->flags & SNIC_OPF_FIRST;
}

static bool is_last(uint8_t op)
{
    return snic_opcode_info(op)->flags & SNIC_OPF_LAST;
}

/* An RPC (rpc.c) on a QP that agreed to them; false if p is no RPC. */
static bool do_rpc(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    int op = snic_rpc_op(c, qp, p->opcode);

    if (op < 0) {
        return false;
    }
    if (is_first(p->opcode) && snic_place_in_message(qp)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return true;
    }
    switch (snic_rpc_request(c, qp, p, op)) {
    case SNIC_RPC_ACCEPT:
        snic_place_epsn_advance(qp, 1);
        if (p->ackreq) {
            snic_place_queue_ack(c, qp, SNIC_AETH_ACK, p->psn);
        }
        break;
    case SNIC_RPC_RNR:
        snic_place_queue_ack(c, qp, SNIC_AETH_RNR | qp->attr.min_rnr_timer,
                             p->psn);
        qp->resp.nak_sent = true;   /* no sequence NAK on top of it */
        break;
    case SNIC_RPC_INVALID:
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        break;
    case SNIC_RPC_REMOTE_OP:
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, p->psn);
        break;
    }
    return true;
}

/* SEND First/Middle/Last/Only (+Imm). Returns false if not executed. */
static bool do_send(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicResp *s = &qp->resp;
    uint8_t st;

    if (!snic_recv_take(c, qp)) {
        /* no receive WQE: try again later (the PSN is not consumed) */
        snic_place_queue_ack(c, qp, SNIC_AETH_RNR | qp->attr.min_rnr_timer,
                             p->psn);
        qp->resp.nak_sent = true;   /* no sequence NAK on top of it */
        return false;
    }
    if ((uint64_t)s->recv_off + p->payload_len > (1u << 31)) {
        /* over 2 GiB */
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return false;
    }
    st = snic_rq_scatter(c, qp, s->recv_off, p->payload, p->payload_len);
    if (st != SNIC_WC_SUCCESS) {
        snic_rq_complete(c, qp, st, SNIC_WC_RECV, s->recv_off, p);
        snic_place_nak_fatal(c, qp, st == SNIC_WC_LOC_LEN_ERR ?
                             SNIC_AETH_NAK_INV_REQ : SNIC_AETH_NAK_REM_OP,
                             p->psn);
        return false;
    }
    s->recv_off += p->payload_len;
    s->in_send = !is_last(p->opcode);
    /*
     * a pool entry: not for good (an SRQ's SEND runs in order here under
     * every transport: the selective programs and SRNIC place none ahead)
     */
    if (s->in_send && qp->srqn) {
        snic_recv_hold_arm(c, qp);
    }
    if (p->headers & SNIC_HDR_IETH &&
        !snic_remote_invalidate(c, qp, p->ieth_rkey)) {
        /* not a window it may invalidate: an invalid request (class J) */
        snic_rq_complete(c, qp, SNIC_WC_REM_INV_REQ_ERR, SNIC_WC_RECV,
                         s->recv_off, p);
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return false;
    }
    if (is_last(p->opcode)) {
        snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV, s->recv_off, p);
        s->msn = (s->msn + 1) & 0xffffff;
        snic_place_msg_done(qp);
    }
    return true;
}

/* RDMA WRITE First/Middle/Last/Only (+Imm). */
static bool do_write(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicResp *s = &qp->resp;
    bool imm = p->headers & SNIC_HDR_IMMDT;
    uint8_t syn;

    if (!(qp->attr.access & SNIC_ACCESS_REMOTE_WRITE)) {
        /* the QP forbids it */
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return false;
    }
    if (imm && !snic_recv_take(c, qp)) {
        snic_place_queue_ack(c, qp, SNIC_AETH_RNR | qp->attr.min_rnr_timer,
                             p->psn);
        qp->resp.nak_sent = true;   /* no sequence NAK on top of it */
        return false;
    }
    if (p->xport && (snic_prog_ooo(qp) || snic_sr_on(qp)) &&
        p->xeth.flags & SNIC_XETH_F_MSG) {
        /*
         * a WRITE with immediate that was not placed (ooo_write_imm,
         * SRNIC's sr.c: an SRQ's, an RPC QP's): its packets before were
         * placed, not executed here, so it goes where it says, its
         * offset the message's bytes before it
         */
        syn = (is_first(p->opcode) != !p->xeth.offset ||
               (uint64_t)p->xeth.offset + p->payload_len > (1u << 31)) ?
              SNIC_AETH_NAK_INV_REQ : snic_place_write_at(c, qp, p, true);
        s->write_len = p->xeth.offset + p->payload_len;
    } else {
        syn = snic_place_write(c, qp, p, is_first(p->opcode),
                               is_last(p->opcode));
    }
    if (syn != SNIC_AETH_ACK) {
        snic_place_nak_fatal(c, qp, syn, p->psn);
        return false;
    }
    s->in_write = !is_last(p->opcode);
    if (is_last(p->opcode)) {
        if (imm) {
            snic_rq_complete(c, qp, SNIC_WC_SUCCESS,
                          SNIC_WC_RECV_RDMA_WITH_IMM, s->write_len, p);
            snic_place_msg_done(qp);
        }
        s->msn = (s->msn + 1) & 0xffffff;
    }
    return true;
}

/*
 * Responder resources (SRNIC section 3: only what the pipeline needs is
 * on chip). The RDB in host memory holds one struct snic_rdb_entry per
 * executed READ/atomic, a ring of max_dest_rd_atomic slots; on chip are
 * the ring's head and count and the entry being answered (act). An entry
 * is written once when its request executes, read back when it becomes
 * the one answered, and all are read only to match a duplicate request.
 * The guest may rewrite its RDB: what comes back is checked again (kind,
 * length; READ data through the R_Key on every response) like any guest
 * input, so a bad entry costs only this QP's answers.
 */
static unsigned rdb_slots(const SnicQp *qp)
{
    return MIN(qp->attr.max_dest_rd_atomic, SNIC_RDB_ENTRIES);
}

static uint64_t rdb_addr(const SnicQp *qp, unsigned slot)
{
    return qp->rdb + (uint64_t)slot * sizeof(struct snic_rdb_entry);
}

/* Response PSNs of an entry: one per MTU of a READ (one if empty) */
static uint32_t act_npsn(const SnicQp *qp, const SnicRespActive *a,
                         bool atomic)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp);

    return atomic || !a->len ? 1 : (a->len + mtu - 1) / mtu;
}

/* The entry as the engine answers it; false if it is not one */
static bool act_from(SnicRespActive *a, bool *atomic,
                     const struct snic_rdb_entry *e)
{
    *a = (SnicRespActive) {
        .va = GUINT64_FROM_LE(e->va),
        .rkey = GUINT32_FROM_LE(e->rkey),
        .len = GUINT32_FROM_LE(e->len),
        .first_psn = GUINT32_FROM_LE(e->first_psn) & SNIC_PSN_MASK,
        .sq_index = GUINT16_FROM_LE(e->sq_index),
    };
    *atomic = e->kind == SNIC_RDB_ATOMIC;
    return (e->kind == SNIC_RDB_READ && a->len <= 1u << 31) ||
           (e->kind == SNIC_RDB_ATOMIC && !a->len);
}

/* Make RDB slot rdb_head the active entry; false (QP fatal) if unusable */
static bool rdb_load(SnicCore *c, SnicQp *qp, uint32_t next)
{
    SnicResp *s = &qp->resp;
    struct snic_rdb_entry e;
    bool atomic = false;

    if (snic_dma_read(c, rdb_addr(qp, s->rdb_head), &e, sizeof(e)) ||
        !act_from(&s->act, &atomic, &e)) {
        SNIC_GUEST_ERROR(c, GE_RDB_ENTRY, qp - c->qps, s->rdb_head);
        s->rdb_count = 0;
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, s->epsn);
        return false;
    }
    s->act_atomic = atomic;
    s->act.next = next;
    return true;
}

/* Record a newly executed READ/atomic; false if the peer broke its limit */
static bool rdb_push(SnicCore *c, SnicQp *qp, const SnicRespActive *a,
                     bool atomic, uint32_t psn)
{
    SnicResp *s = &qp->resp;
    unsigned n = rdb_slots(qp), slot;
    struct snic_rdb_entry e;

    if (!n || s->rdb_count >= n) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, psn);
        return false;
    }
    memset(&e, 0, sizeof(e));
    e.va = GUINT64_TO_LE(a->va);
    e.rkey = GUINT32_TO_LE(a->rkey);
    e.len = GUINT32_TO_LE(a->len);
    e.first_psn = GUINT32_TO_LE(a->first_psn);
    e.sq_index = GUINT16_TO_LE(a->sq_index);
    e.kind = atomic ? SNIC_RDB_ATOMIC : SNIC_RDB_READ;
    slot = (s->rdb_head + s->rdb_count) % n;
    if (snic_dma_write(c, rdb_addr(qp, slot), &e, sizeof(e))) {
        SNIC_GUEST_ERROR(c, GE_RDB_ENTRY, qp - c->qps, slot);
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, psn);
        return false;
    }
    if (!s->rdb_count++) {
        s->act = *a;            /* answered next: no need to read it back */
        s->act_atomic = atomic;
    }
    return true;
}

/*
 * SRNIC (srnic/sr_read.c): a duplicate READ request of entry 'slot'
 * ('d' from the one answered) asks for the responses it names alone;
 * those not sent yet go anyway.
 */
static bool sr_hole(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                    const SnicRespActive *a, unsigned slot, unsigned d)
{
    SnicResp *s = &qp->resp;
    uint32_t mtu = snic_qp_mtu_bytes(qp);
    uint32_t from = (p->psn - a->first_psn) & SNIC_PSN_MASK;
    uint32_t n = MIN((uint32_t)(((uint64_t)p->reth.len + mtu - 1) / mtu),
                     act_npsn(qp, a, false) - from);

    if (s->rdb_count && d < s->rdb_count &&
        (d > 0 || from >= s->act.next)) {
        return true;    /* not sent yet: it goes in its turn */
    }
    if (s->rdb_count && d == 0) {
        n = MIN(n, s->act.next - from);     /* the rest goes in turn */
    }
    return snic_sr_read_hole(c, qp, slot, p->psn,
                             MAX(MIN(n, SNIC_READ_CHUNK), 1));
}

/*
 * A duplicate READ (atomic) request at psn: the executed entry of the
 * same kind (and R_Key) with psn among its PSNs is answered again from
 * there, with the entries after it; true if there was one. Distances are
 * unsigned from its first PSN, because a READ may span half the PSN space
 * (2^31 bytes at a 256-byte MTU), where a signed comparison is undecided.
 */
static bool rdb_replay(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                       bool atomic)
{
    struct snic_rdb_entry e[SNIC_RDB_ENTRIES];
    SnicResp *s = &qp->resp;
    unsigned n = rdb_slots(qp), i, d, tail;
    SnicRespActive a;
    bool at;

    if (!n || snic_dma_read(c, qp->rdb, e, n * sizeof(e[0]))) {
        return false;
    }
    for (i = 0; i < n; i++) {
        uint32_t off = (p->psn - GUINT32_FROM_LE(e[i].first_psn)) &
                       SNIC_PSN_MASK;

        if (act_from(&a, &at, &e[i]) && at == atomic &&
            off < act_npsn(qp, &a, at) && (atomic || a.rkey == p->reth.rkey)) {
            break;
        }
    }
    if (i == n) {
        return false;
    }
    d = (i + n - s->rdb_head) % n;
    if (!atomic && snic_sr_on(qp)) {
        return sr_hole(c, qp, p, &a, i, d);
    }
    if (s->rdb_count && d == 0) {
        /* being answered: again from what was asked */
        s->act.next = atomic ? 0 : (p->psn - a.first_psn) & SNIC_PSN_MASK;
    } else if (d >= s->rdb_count) {
        /* answered already: again from there, and what followed it */
        tail = (s->rdb_head + s->rdb_count) % n;
        s->rdb_head = i;
        s->rdb_count = (tail + n - i) % n ? (tail + n - i) % n : n;
        s->act = a;
        s->act_atomic = at;
        s->act.next = atomic ? 0 : (p->psn - a.first_psn) & SNIC_PSN_MASK;
    }
    /* (pending behind the active one: it is answered in full anyway) */
    snic_sched_notify(c, qp);
    return true;
}

/* RDMA READ request: check, record; the engine sends the responses. */
static uint32_t do_read(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp);
    SnicMrCheck why;
    SnicRespActive a;

    if (p->reth.len > (1u << 31) ||
        !(qp->attr.access & SNIC_ACCESS_REMOTE_READ)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return 0;
    }
    if (p->reth.len &&
        !snic_rkey_check(c, qp, p->reth.rkey, SNIC_ACCESS_REMOTE_READ,
                         p->reth.va, p->reth.len, &why)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_ACCESS, p->psn);
        return 0;
    }
    a = (SnicRespActive) {
        .first_psn = p->psn,
        .va = p->reth.va,
        .rkey = p->reth.rkey,
        .len = p->reth.len,
        .sq_index = p->xeth.sq_index,   /* SRNIC's: echoed as it came */
    };
    if (!rdb_push(c, qp, &a, false, p->psn)) {
        return 0;
    }
    qp->resp.msn = (qp->resp.msn + 1) & 0xffffff;
    snic_sched_notify(c, qp);
    return p->reth.len ? (p->reth.len + mtu - 1) / mtu : 1;
}

/* Atomic: executed once, here; the result is kept for duplicates. */
static uint32_t do_atomic(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicMrCheck why;
    SnicRespActive a;
    SnicMr *mr;
    uint64_t v, orig;

    if (p->atomic.va % 8 || !(qp->attr.access & SNIC_ACCESS_REMOTE_ATOMIC)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return 0;
    }
    mr = snic_rkey_check(c, qp, p->atomic.rkey, SNIC_ACCESS_REMOTE_ATOMIC,
                         p->atomic.va, 8, &why);
    if (!mr || snic_xlate_failed(c, qp - c->qps,
                                 snic_mtt_read(c, &mr->mtt, p->atomic.va,
                                               &v, 8))) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_ACCESS, p->psn);
        return 0;
    }
    if (qp->resp.rdb_count >= rdb_slots(qp)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return 0;       /* no room to keep the result: not executed */
    }
    orig = GUINT64_FROM_LE(v);
    if (p->opcode == SNIC_OP_RC_FETCH_ADD) {
        v = GUINT64_TO_LE(orig + p->atomic.swap_add);
    } else if (orig == p->atomic.compare) {
        v = GUINT64_TO_LE(p->atomic.swap_add);
    }
    if (snic_xlate_failed(c, qp - c->qps,
                          snic_mtt_write(c, &mr->mtt, p->atomic.va, &v, 8))) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_ACCESS, p->psn);
        return 0;
    }
    a = (SnicRespActive) { .first_psn = p->psn, .va = orig };
    if (!rdb_push(c, qp, &a, true, p->psn)) {
        return 0;
    }
    qp->resp.msn = (qp->resp.msn + 1) & 0xffffff;
    snic_sched_notify(c, qp);
    return 1;
}

/*
 * A SEND that holds an SRQ pool entry did not continue in time: its
 * sender is gone (or stuck longer than it would retry). The held receive
 * completes with REM_ABORT_ERR and gives its entry back, and the message
 * is forgotten: ePSN goes back to its first packet, so a late packet of
 * it draws a sequence NAK, never a fatal one, and a requester still there
 * sends the message again from its start into a new receive (one whose
 * first packets were acknowledged already cannot: it runs out of retries).
 */
void snic_resp_hold_expired(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SnicResp *s = &qp->resp;
    uint32_t mtu = snic_qp_mtu_bytes(qp);
    SnicPkt p;

    if (snic_recv_hold_deadline(c, qp) > now) {
        return;
    }
    SNIC_EVENT(c, RESP_HOLD_EXPIRED, qp - c->qps, s->epsn, s->recv_off);
    /* First and Middle packets carry the path MTU each (resp_request) */
    snic_place_epsn_rewind(qp, s->recv_off / mtu);
    s->in_send = false;
    s->nak_sent = false;
    if (snic_sr_on(qp)) {
        snic_sr_resp_rewound(c, qp);
    }
    memset(&p, 0, sizeof(p));
    snic_rq_complete(c, qp, SNIC_WC_REM_ABORT_ERR, SNIC_WC_RECV, 0, &p);
}

static void resp_request(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicResp *s = &qp->resp;
    int32_t d = snic_psn_cmp(p->psn, s->epsn);
    uint32_t mtu = snic_qp_mtu_bytes(qp);
    bool first = is_first(p->opcode), last = is_last(p->opcode);
    bool send, ok, gap, filled;

    if (s->fatal) {
        return;     /* a fatal NAK is on its way: nothing more runs */
    }
    /* the selective programs: placed ahead of ePSN (resp_ooo.c) */
    if (p->xport && snic_resp_ooo(c, qp, p, d)) {
        return;
    }
    if (d > 0) {
        if (qp->resp.ack_every) {
            /* TCP's receiver: a duplicate ACK for every one (RFC 5681) */
            snic_place_dup_ack(c, qp);
            return;
        }
        /* a packet was lost: say once where to resume */
        if (!s->nak_sent) {
            s->nak_sent = true;
            snic_place_queue_ack(c, qp, SNIC_AETH_NAK_SEQ, s->epsn);
        }
        return;
    }
    if (d < 0) {
        bool rd = p->opcode == SNIC_OP_RC_READ_REQUEST;
        bool at = p->opcode == SNIC_OP_RC_CMP_SWAP ||
                  p->opcode == SNIC_OP_RC_FETCH_ADD;
        /* READ: read again from there; atomic: the saved result */
        if ((rd || at) && rdb_replay(c, qp, p, at)) {
            return;
        }
        /* a duplicate: acknowledge again, never execute again */
        snic_place_queue_ack(c, qp, SNIC_AETH_ACK,
                             (s->epsn - 1) & SNIC_PSN_MASK);
        return;
    }
    gap = s->nak_sent;
    s->nak_sent = false;
    if (p->opcode == SNIC_OP_RC_READ_REQUEST ||
        p->opcode == SNIC_OP_RC_CMP_SWAP ||
        p->opcode == SNIC_OP_RC_FETCH_ADD) {
        uint32_t n;

        if (snic_place_in_message(qp)) {
            snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
            return;
        }
        n = p->opcode == SNIC_OP_RC_READ_REQUEST ? do_read(c, qp, p) :
                                                   do_atomic(c, qp, p);
        if (n) {
            snic_place_epsn_advance(qp, n);
            snic_resp_ooo_sweep(c, qp);
        }
        return;
    }
    if (do_rpc(c, qp, p)) {
        return;
    }
    switch (p->opcode) {
    case SNIC_OP_RC_SEND_FIRST:
    case SNIC_OP_RC_SEND_MIDDLE:
    case SNIC_OP_RC_SEND_LAST:
    case SNIC_OP_RC_SEND_LAST_IMM:
    case SNIC_OP_RC_SEND_ONLY:
    case SNIC_OP_RC_SEND_ONLY_IMM:
    case SNIC_OP_RC_SEND_LAST_INV:
    case SNIC_OP_RC_SEND_ONLY_INV:
        send = true;
        break;
    case SNIC_OP_RC_WRITE_FIRST:
    case SNIC_OP_RC_WRITE_MIDDLE:
    case SNIC_OP_RC_WRITE_LAST:
    case SNIC_OP_RC_WRITE_LAST_IMM:
    case SNIC_OP_RC_WRITE_ONLY:
    case SNIC_OP_RC_WRITE_ONLY_IMM:
        send = false;
        break;
    default:
        /*
         * an RPC on a QP that did not agree to them, and everything
         * else not served here
         */
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return;
    }
    /* op-code sequence: a message continues only what it started */
    if ((first && snic_place_in_message(qp)) ||
        (!first && !(send ? s->in_send : s->in_write)) ||
        (!last && p->payload_len != mtu) ||
        (last && p->payload_len > mtu)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return;
    }
    ok = send ? do_send(c, qp, p) : do_write(c, qp, p);
    if (!ok) {
        return;
    }
    snic_place_epsn_advance(qp, 1);
    /* selective programs: a gap filled is acknowledged at once */
    filled = snic_resp_ooo_sweep(c, qp);
    /* TCP's policy: every k-th packet too, and at once after a gap */
    if (p->ackreq || filled ||
        (qp->resp.ack_every && (++s->unacked >= qp->resp.ack_every || gap))) {
        s->unacked = 0;
        snic_place_queue_ack(c, qp, SNIC_AETH_ACK, p->psn);
    }
}

void snic_resp_request(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    uint32_t epsn = qp->resp.epsn;

    /* SRNIC: a READ request says which responses arrived (sr_read.c) */
    if (snic_sr_on(qp) && p->opcode == SNIC_OP_RC_READ_REQUEST &&
        p->xport && p->xeth.flags & SNIC_XETH_F_RESP) {
        snic_sr_read_peer_ack(c, qp, p->xeth.msg);
    }

    /* SRNIC (srnic/sr.c): out of order and in recovery, its own */
    if (snic_sr_on(qp) && snic_sr_request(c, qp, p)) {
        return;
    }
    resp_request(c, qp, p);
    if (snic_sr_on(qp)) {
        snic_sr_executed(c, qp, p, epsn);
    }
}

/* Send the queued ACK/NAK of a QP (engine context). */
void snic_resp_send_ack(SnicCore *c, SnicQp *qp)
{
    SnicResp *s = &qp->resp;
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.opcode = SNIC_OP_RC_ACK;
    p.psn = s->ack_psn;
    p.aeth.syndrome = s->ack_syndrome;
    p.aeth.msn = s->msn;
    if (snic_prog_ooo(qp)) {
        p.xport = true;
        snic_resp_ooo_sack(qp, &p);
    } else if (snic_sr_on(qp)) {
        snic_sr_ack(qp, &p);
    }
    if (snic_prog_ece(qp)) {
        /* DCTCP's ECE: how many data packets arrived marked, so far */
        p.xport = true;
        p.xeth.flags |= SNIC_XETH_F_ECE;
        p.xeth.offset = snic_prog_ece(qp)->ce_rx;
    }
    s->ack_pending = false;
    if (SNIC_AETH_KIND(p.aeth.syndrome) != SNIC_AETH_KIND_ACK) {
        SNIC_EVENT(c, NAK_SENT, qp - c->qps, p.psn, p.aeth.syndrome);
    }
    snic_rdma_xmit(c, &p, 0);
    for (; s->ack_copies; s->ack_copies--) {
        snic_rdma_xmit(c, &p, 0);   /* the duplicate ACKs owed */
    }
    if (s->fatal) {
        /* the consumer learns of a responder error by an async event */
        s->fatal = false;
        snic_aeq_post(c, p.aeth.syndrome == SNIC_AETH_NAK_INV_REQ ?
                      SNIC_EVENT_QP_REQ_ERR :
                      p.aeth.syndrome == SNIC_AETH_NAK_REM_ACCESS ?
                      SNIC_EVENT_QP_ACCESS_ERR : SNIC_EVENT_QP_FATAL,
                      qp - c->qps);
        snic_wq_error(c, qp);
    }
}

/*
 * Send response 'idx' of READ/atomic entry r as op-code 'op'; false if
 * its region went away (the QP failed).
 */
static bool send_response(SnicCore *c, SnicQp *qp, const SnicRespActive *r,
                          bool atomic, uint32_t idx, uint8_t op)
{
    SnicResp *s = &qp->resp;
    uint32_t mtu = snic_qp_mtu_bytes(qp);
    uint32_t off = idx * mtu;
    uint32_t len = r->len > off ? MIN(mtu, r->len - off) : 0;
    SnicMrCheck why;
    SnicMr *mr;
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.psn = (r->first_psn + idx) & SNIC_PSN_MASK;
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.aeth.msn = s->msn;
    p.opcode = op;
    if (atomic) {
        p.atomic_ack = r->va;
    } else {
        uint8_t *data;

        p.payload_len = len;
        if (snic_sr_on(qp)) {
            /*
             * SRNIC 4.4.1: the request echoed, placed out of order; with
             * its WQE and where in the READ the data is, which the
             * requester then reads alone
             */
            p.xport = true;
            p.xeth.flags = SNIC_XETH_F_RESP;
            p.xeth.sq_index = r->sq_index;
            p.xeth.va = r->va + off;
            p.xeth.msg = r->first_psn;
            p.xeth.offset = idx;
        }
        /* read now: a duplicate request sees memory as it is */
        data = snic_rdma_payload_buf(c, &p);    /* in the frame: no copy */
        mr = len ? snic_rkey_check(c, qp, r->rkey, SNIC_ACCESS_REMOTE_READ,
                                   r->va + off, len, &why) : NULL;
        if (len && (!mr ||
                    snic_xlate_failed(c, qp - c->qps,
                                      snic_mtt_read(c, &mr->mtt, r->va + off,
                                                    data, len)))) {
            s->rdb_count = 0;       /* the region went away */
            snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_ACCESS, p.psn);
            return false;
        }
        snic_fault_tear(c, data, off, len, r->len);
        p.payload = data;
    }
    snic_rdma_xmit(c, &p, p.payload_len);   /* a READ's data, from the region */
    return true;
}

/* The op-code of response k of n (a READ's, or the ones of a hole) */
static uint8_t read_resp_op(uint32_t k, uint32_t n)
{
    return n == 1 ? SNIC_OP_RC_READ_RESP_ONLY :
           k == 0 ? SNIC_OP_RC_READ_RESP_FIRST :
           k == n - 1 ? SNIC_OP_RC_READ_RESP_LAST :
           SNIC_OP_RC_READ_RESP_MIDDLE;
}

/*
 * SRNIC: the holes asked for again (srnic/sr_read.c), from their RDB
 * entries in host memory; the responses sent, or -1 if the QP failed.
 */
static int run_holes(SnicCore *c, SnicQp *qp, unsigned budget)
{
    SnicSrHole *h;
    unsigned done = 0;

    while (done < budget && (h = snic_sr_read_hole_head(qp))) {
        struct snic_rdb_entry e;
        SnicRespActive a;
        bool atomic;
        uint32_t idx;

        if (h->slot >= rdb_slots(qp) ||
            snic_dma_read(c, rdb_addr(qp, h->slot), &e, sizeof(e)) ||
            !act_from(&a, &atomic, &e) || atomic ||
            ((h->psn - a.first_psn) & SNIC_PSN_MASK) + h->n >
            act_npsn(qp, &a, false)) {
            /* the guest rewrote its RDB: no answer (the peer times out) */
            SNIC_GUEST_ERROR(c, GE_RDB_ENTRY, qp - c->qps, h->slot);
            snic_sr_read_hole_pop(qp);
            continue;
        }
        idx = (h->psn - a.first_psn) & SNIC_PSN_MASK;
        if (!send_response(c, qp, &a, false, idx + h->next,
                           read_resp_op(h->next, h->n))) {
            return -1;
        }
        snic_stat_inc(&c->stats.sr_read_resent);
        done++;
        if (++h->next == h->n) {
            snic_sr_read_hole_pop(qp);
        }
    }
    return done;
}

/* Send the responses of the RDB's pending entries, oldest first. */
bool snic_resp_run(SnicCore *c, SnicQp *qp, unsigned budget)
{
    SnicResp *s = &qp->resp;
    int holes = snic_sr_on(qp) ? run_holes(c, qp, budget) : 0;
    unsigned done;

    if (holes < 0) {
        return false;
    }
    done = holes;
    while (s->rdb_count && done < budget) {
        SnicRespActive *r = &s->act;
        uint32_t npsn = act_npsn(qp, r, s->act_atomic);

        if (r->next >= npsn) {
            /* answered: the next pending entry, if any, comes back */
            s->rdb_head = (s->rdb_head + 1) % rdb_slots(qp);
            if (--s->rdb_count && !rdb_load(c, qp, 0)) {
                return false;
            }
            continue;
        }
        if (snic_sr_on(qp) && !s->act_atomic &&
            !snic_sr_read_window(qp, (r->first_psn + r->next) &
                                     SNIC_PSN_MASK)) {
            /* SRNIC: a window in flight; the requester's ACK opens it */
            return false;
        }
        if (!send_response(c, qp, r, s->act_atomic, r->next,
                           s->act_atomic ? SNIC_OP_RC_ATOMIC_ACK :
                           read_resp_op(r->next, npsn))) {
            return false;
        }
        r->next++;
        done++;
    }
    return (s->rdb_count || snic_sr_read_hole_head(qp)) && done == budget;
}
