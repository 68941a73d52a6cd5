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
 * on the others. ACKs are queued here and sent by the engine: nothing is
 * ever transmitted from the receive path.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"

/*
 * Queue the ACK/NAK to send. One slot: a fatal NAK is never replaced, an
 * ACK never replaces an RNR NAK still waiting to go out, and replaces a
 * sequence NAK only when it acknowledges the NAK's PSN (the gap filled):
 * a duplicate's re-ACK, for older PSNs, leaves the NAK to go out.
 */
static void queue_ack(SnicCore *c, SnicQp *qp, uint8_t syn, uint32_t psn)
{
    uint8_t pending = qp->resp.ack_syndrome;
    bool ack = SNIC_AETH_KIND(syn) == SNIC_AETH_KIND_ACK;

    if ((qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS) ||
        qp->resp.fatal ||
        (qp->resp.ack_pending && ack &&
         (pending == SNIC_AETH_NAK_SEQ ?
          snic_psn_cmp(psn, qp->resp.ack_psn) < 0 :
          SNIC_AETH_KIND(pending) != SNIC_AETH_KIND_ACK))) {
        return;
    }
    qp->resp.ack_pending = true;
    qp->resp.ack_copies = 0;
    qp->resp.ack_syndrome = syn;
    qp->resp.ack_psn = psn;
    snic_sched_notify(c, qp);
}

/*
 * A duplicate ACK (SNIC_ACK_TCP): the cumulative PSN again, one copy per
 * out-of-order packet even if the engine has not sent the last one yet,
 * since the sender counts them.
 */
static void dup_ack(SnicCore *c, SnicQp *qp)
{
    SnicResp *s = &qp->resp;
    uint32_t psn = (s->epsn - 1) & SNIC_PSN_MASK;

    s->nak_sent = true;     /* a gap: the packet that fills it is ACKed */
    if (s->ack_pending && s->ack_syndrome == SNIC_AETH_ACK &&
        s->ack_psn == psn) {
        s->ack_copies += s->ack_copies < UINT8_MAX;
        return;
    }
    queue_ack(c, qp, SNIC_AETH_ACK, psn);
}

/* A fatal NAK: sent, then the QP goes to the error state (rdma.c). */
static void nak_fatal(SnicCore *c, SnicQp *qp, uint8_t syn, uint32_t psn)
{
    queue_ack(c, qp, syn, psn);
    qp->resp.fatal = true;
}

void snic_resp_queue_ack(SnicCore *c, SnicQp *qp, uint8_t syn, uint32_t psn)
{
    queue_ack(c, qp, syn, psn);
}

void snic_resp_nak_fatal(SnicCore *c, SnicQp *qp, uint8_t syn, uint32_t psn)
{
    nak_fatal(c, qp, syn, psn);
}

static bool is_first(uint8_t op)
{
    return snic_opcode_info(op)->flags & SNIC_OPF_FIRST;
}

static bool is_last(uint8_t op)
{
    return snic_opcode_info(op)->flags & SNIC_OPF_LAST;
}

/* Between the First and the Last of a multi-packet message */
static bool in_message(const SnicQp *qp)
{
    return qp->resp.in_send || qp->resp.in_write || qp->rpc.in_msg;
}

/*
 * ePSN moves over n PSNs executed in order (a READ request takes one per
 * MTU of its response). Out-of-order placement (selective programs) may
 * have recorded some of them (a peer's error: they were not its to
 * place): their bits go with them, else they would stand for the PSNs a
 * window later and ePSN would sweep over packets never placed.
 */
static void epsn_advance(SnicQp *qp, uint32_t n)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicTrimMap *t = snic_prog_trim(qp);
    SnicResp *s = &qp->resp;
    uint32_t i;

    for (i = 0; m && i < MIN(n, SNIC_TX_WINDOW); i++) {
        snic_psnmap_set(m->placed, s->epsn + i, false);
        snic_psnmap_set(m->last, s->epsn + i, false);
        snic_psnmap_set(m->send, s->epsn + i, false);
        snic_psnmap_set(m->first, s->epsn + i, false);
        if (t) {
            snic_psnmap_set(t->nack, s->epsn + i, false);
        }
    }
    /* ... and a Last's completion slot (SEND, WRITE_IMM) */
    for (i = 0; m && i < SNIC_OOO_LASTS; i++) {
        if (((m->lasts[i].psn - s->epsn) & SNIC_PSN_MASK) < n) {
            m->lasts[i].opcode = 0;
        }
    }
    s->epsn = (s->epsn + n) & SNIC_PSN_MASK;
}

/*
 * A message that took a receive WQE completed: the next message number
 * (SnicOooMsg) names the RQ's new head.
 */
static void recv_msg_done(SnicQp *qp)
{
    SnicOooMsg *m = snic_prog_msg(qp);

    if (m) {
        m->resp++;
    }
}

/* An RPC (rpc.c) on a QP that agreed to them; false if p is no RPC. */
static bool do_rpc(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    int op = snic_rpc_op(c, qp, p->opcode);

    if (op < 0) {
        return false;
    }
    if (is_first(p->opcode) && in_message(qp)) {
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return true;
    }
    switch (snic_rpc_request(c, qp, p, op)) {
    case SNIC_RPC_ACCEPT:
        epsn_advance(qp, 1);
        if (p->ackreq) {
            queue_ack(c, qp, SNIC_AETH_ACK, p->psn);
        }
        break;
    case SNIC_RPC_RNR:
        queue_ack(c, qp, SNIC_AETH_RNR | qp->attr.min_rnr_timer, p->psn);
        qp->resp.nak_sent = true;   /* no sequence NAK on top of it */
        break;
    case SNIC_RPC_INVALID:
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        break;
    case SNIC_RPC_REMOTE_OP:
        nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, p->psn);
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
        queue_ack(c, qp, SNIC_AETH_RNR | qp->attr.min_rnr_timer, p->psn);
        qp->resp.nak_sent = true;   /* no sequence NAK on top of it */
        return false;
    }
    if ((uint64_t)s->recv_off + p->payload_len > (1u << 31)) {
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);     /* over 2 GiB */
        return false;
    }
    st = snic_rq_scatter(c, qp, s->recv_off, p->payload, p->payload_len);
    if (st != SNIC_WC_SUCCESS) {
        snic_rq_complete(c, qp, st, SNIC_WC_RECV, s->recv_off, p);
        nak_fatal(c, qp, st == SNIC_WC_LOC_LEN_ERR ? SNIC_AETH_NAK_INV_REQ :
                  SNIC_AETH_NAK_REM_OP, p->psn);
        return false;
    }
    s->recv_off += p->payload_len;
    s->in_send = !is_last(p->opcode);
    if (p->headers & SNIC_HDR_IETH &&
        !snic_remote_invalidate(c, qp, p->ieth_rkey)) {
        /* not a window it may invalidate: an invalid request (class J) */
        snic_rq_complete(c, qp, SNIC_WC_REM_INV_REQ_ERR, SNIC_WC_RECV,
                         s->recv_off, p);
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return false;
    }
    if (is_last(p->opcode)) {
        snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV, s->recv_off, p);
        s->msn = (s->msn + 1) & 0xffffff;
        recv_msg_done(qp);
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
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);     /* QP forbids it */
        return false;
    }
    if (imm && !snic_recv_take(c, qp)) {
        queue_ack(c, qp, SNIC_AETH_RNR | qp->attr.min_rnr_timer, p->psn);
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
              SNIC_AETH_NAK_INV_REQ : snic_resp_place_write(c, qp, p, true);
        s->write_len = p->xeth.offset + p->payload_len;
    } else {
        syn = snic_write_place(c, qp, p, is_first(p->opcode),
                               is_last(p->opcode));
    }
    if (syn != SNIC_AETH_ACK) {
        nak_fatal(c, qp, syn, p->psn);
        return false;
    }
    s->in_write = !is_last(p->opcode);
    if (is_last(p->opcode)) {
        if (imm) {
            snic_rq_complete(c, qp, SNIC_WC_SUCCESS,
                          SNIC_WC_RECV_RDMA_WITH_IMM, s->write_len, p);
            recv_msg_done(qp);
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
    uint32_t mtu = 128u << qp->attr.path_mtu;

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
        nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, s->epsn);
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
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, psn);
        return false;
    }
    memset(&e, 0, sizeof(e));
    e.va = GUINT64_TO_LE(a->va);
    e.rkey = GUINT32_TO_LE(a->rkey);
    e.len = GUINT32_TO_LE(a->len);
    e.first_psn = GUINT32_TO_LE(a->first_psn);
    e.kind = atomic ? SNIC_RDB_ATOMIC : SNIC_RDB_READ;
    slot = (s->rdb_head + s->rdb_count) % n;
    if (snic_dma_write(c, rdb_addr(qp, slot), &e, sizeof(e))) {
        SNIC_GUEST_ERROR(c, GE_RDB_ENTRY, qp - c->qps, slot);
        nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, psn);
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
    uint32_t mtu = 128u << qp->attr.path_mtu;
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
    uint32_t mtu = 128u << qp->attr.path_mtu;
    SnicMrCheck why;
    SnicRespActive a;

    if (p->reth.len > (1u << 31) ||
        !(qp->attr.access & SNIC_ACCESS_REMOTE_READ)) {
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return 0;
    }
    if (p->reth.len &&
        !snic_rkey_check(c, qp, p->reth.rkey, SNIC_ACCESS_REMOTE_READ,
                         p->reth.va, p->reth.len, &why)) {
        nak_fatal(c, qp, SNIC_AETH_NAK_REM_ACCESS, p->psn);
        return 0;
    }
    a = (SnicRespActive) {
        .first_psn = p->psn,
        .va = p->reth.va,
        .rkey = p->reth.rkey,
        .len = p->reth.len,
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
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return 0;
    }
    mr = snic_rkey_check(c, qp, p->atomic.rkey, SNIC_ACCESS_REMOTE_ATOMIC,
                         p->atomic.va, 8, &why);
    if (!mr || snic_xlate_failed(c, qp - c->qps,
                                 snic_mtt_read(c, &mr->mtt, p->atomic.va,
                                               &v, 8))) {
        nak_fatal(c, qp, SNIC_AETH_NAK_REM_ACCESS, p->psn);
        return 0;
    }
    if (qp->resp.rdb_count >= rdb_slots(qp)) {
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
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
        nak_fatal(c, qp, SNIC_AETH_NAK_REM_ACCESS, p->psn);
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
    uint32_t psn = s->epsn, mtu = 128u << qp->attr.path_mtu;
    bool first = snic_psnmap_get(m->first, psn);
    SnicOooLast *l = snic_psnmap_get(m->last, psn) ? ooo_last(m, psn) : NULL;
    SnicPkt p;

    if ((first ? in_message(qp) : !s->in_send) ||
        (!snic_psnmap_get(m->last, psn) ?
         (uint64_t)(first ? 0 : s->recv_off) + mtu > (1u << 31) :
         !l || l->off != (first ? 0 : s->recv_off))) {
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, psn);
        return false;
    }
    if (first && !snic_recv_take(c, qp)) {
        nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, psn);
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
    if (p.headers & SNIC_HDR_IETH && !snic_remote_invalidate(c, qp, p.ieth_rkey)) {
        snic_rq_complete(c, qp, SNIC_WC_REM_INV_REQ_ERR, SNIC_WC_RECV,
                         s->recv_off, &p);
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, psn);
        return false;
    }
    snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV, s->recv_off, &p);
    s->msn = (s->msn + 1) & 0xffffff;
    recv_msg_done(qp);
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

    if (only ? in_message(qp) : !s->in_write) {
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, psn);
        return false;
    }
    if (!snic_recv_take(c, qp)) {
        nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP, psn);
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
    recv_msg_done(qp);
    return true;
}

/* ePSN over the PSNs placed ahead of it; true if it moved */
static bool ooo_sweep(SnicCore *c, SnicQp *qp)
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
        epsn_advance(qp, 1);
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
 * Write a WRITE packet where its extension header says: SNIC_AETH_ACK, or
 * the NAK it deserves. The op-code sequence is known only at ePSN
 * (at_epsn): there, as in order, a message continues only what it started
 * (IBA 9.7.5.1.1); ahead of it, a SEND still open may end before the
 * packet. Shared by the selective programs' placement and SRNIC's.
 */
uint8_t snic_resp_place_write(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                              bool at_epsn)
{
    uint32_t mtu = 128u << qp->attr.path_mtu;
    SnicMrCheck why;
    SnicMr *mr;

    if (!(qp->attr.access & SNIC_ACCESS_REMOTE_WRITE) ||
        !(p->xeth.flags & SNIC_XETH_F_PLACE) ||
        (!is_last(p->opcode) && p->payload_len != mtu) ||
        p->payload_len > mtu ||
        (at_epsn && (is_first(p->opcode) ? in_message(qp) :
                                           !qp->resp.in_write))) {
        return SNIC_AETH_NAK_INV_REQ;
    }
    if (p->payload_len) {
        mr = snic_rkey_check(c, qp, p->xeth.rkey, SNIC_ACCESS_REMOTE_WRITE,
                             p->xeth.va, p->payload_len, &why);
        if (!mr || snic_mtt_write(c, &mr->mtt, p->xeth.va, p->payload,
                                  p->payload_len)) {
            return SNIC_AETH_NAK_REM_ACCESS;
        }
    }
    return SNIC_AETH_ACK;
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
    uint8_t syn = snic_resp_place_write(c, qp, p, !d);

    if (syn == SNIC_AETH_ACK) {
        snic_psnmap_set(m->placed, p->psn, true);
        snic_psnmap_set(m->last, p->psn, is_last(p->opcode));
    }
    return syn;
}

/* A packet was placed at psn, d PSNs from ePSN: sweep, and acknowledge */
static void ooo_placed(SnicCore *c, SnicQp *qp, const SnicPkt *p, int32_t d)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicResp *s = &qp->resp;

    if (d) {
        m->sack_at = p->psn;    /* the next ACK's SACK block holds it */
    }
    ooo_sweep(c, qp);
    if (d && s->ack_every) {
        /* TCP's receiver: a duplicate ACK for every one (RFC 5681) */
        dup_ack(c, qp);
        return;
    }
    /* the program's ACK policy; at once when a gap opens or closes */
    if (d || p->ackreq || ooo_gap(m) || (s->epsn - p->psn - 1) &
        SNIC_PSN_MASK || (s->ack_every && ++s->unacked >= s->ack_every)) {
        s->unacked = 0;
        queue_ack(c, qp, SNIC_AETH_ACK, (s->epsn - 1) & SNIC_PSN_MASK);
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
        queue_ack(c, qp, SNIC_AETH_ACK, (s->epsn - 1) & SNIC_PSN_MASK);
        return;
    }
    syn = ooo_place(c, qp, p, d);
    if (syn != SNIC_AETH_ACK) {
        if (!d) {
            nak_fatal(c, qp, syn, p->psn);
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
 * The receive WQE a message-numbered packet (SEND, WRITE with immediate:
 * SNIC_XETH_F_MSG) d PSNs from ePSN names, k messages after the RQ's
 * head; false if it may not be placed out of order (the reasons are
 * snic_resp_place_send()'s): its number and offset must be ones its
 * PSN allows, and that WQE must be posted.
 */
static bool msg_wqe(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                    uint32_t d, uint32_t lag, struct snic_rq_wqe *w)
{
    uint32_t mtu = 128u << qp->attr.path_mtu, off = p->xeth.offset;
    uint32_t k = p->xeth.msg - snic_prog_msg(qp)->resp;

    return p->xeth.flags & SNIC_XETH_F_MSG && !qp->srqn &&
           !(qp->rpc.flags & SNIC_QP_RPC_ENABLE) &&
           !(off % mtu) && is_first(p->opcode) == !off &&
           (uint64_t)off + p->payload_len <= (1u << 31) &&
           (k <= lag || (k - lag <= d && off / mtu <= d - (k - lag))) &&
           snic_rq_peek(c, qp, k, w);
}

/*
 * May the message-numbered packet p, d PSNs from ePSN, be placed into
 * the receive WQE its number names (msg_wqe(); 'lag' as for
 * snic_resp_place_send())? For SRNIC's WRITE with immediate, whose
 * bytes go to its address, not to that WQE (sr.c).
 */
bool snic_resp_msg_posted(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                          uint32_t d, uint32_t lag)
{
    struct snic_rq_wqe w;

    return msg_wqe(c, qp, p, d, lag, &w);
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
    struct snic_rq_wqe w;
    SnicOooLast now, *l;
    uint8_t syn;

    if (dist >= SNIC_TX_WINDOW) {
        return false;
    }
    if (snic_psnmap_get(m->placed, p->psn)) {
        /* placed already: never twice */
        queue_ack(c, qp, SNIC_AETH_ACK, (s->epsn - 1) & SNIC_PSN_MASK);
        return true;
    }
    l = d ? ooo_free_last(m) : &now;
    if (!l || !msg_wqe(c, qp, p, dist, 0, &w)) {
        return false;
    }
    syn = snic_resp_place_write(c, qp, p, !d);
    if (syn != SNIC_AETH_ACK) {
        /* the NAK only at ePSN: one ahead is dropped and comes again */
        if (!d) {
            nak_fatal(c, qp, syn, p->psn);
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
        epsn_advance(qp, 1);
    } else {
        snic_psnmap_set(m->placed, p->psn, true);
        snic_psnmap_set(m->last, p->psn, true);
    }
    ooo_placed(c, qp, p, d);
    return true;
}

/*
 * Write a SEND packet d PSNs from ePSN into the receive WQE its message
 * number names, k messages after the one at the RQ's head, at its
 * offset; true if placed. Bounded: of the messages before it, the first
 * 'lag' may lie below ePSN still uncompleted (SRNIC: their completion is
 * the host's; 0 for the selective programs, which complete as ePSN
 * passes) and each other takes a PSN from ePSN on, so k - lag <= d, and
 * a packet k > lag messages ahead is at most d - (k - lag) packets into
 * its message (k <= lag: bounded by the RQ's WQEs posted). Refused, it
 * is dropped as any packet ahead of ePSN was (the selective recovery
 * sends it again): on an SRQ (its WQEs cannot be picked by number
 * without taking them, and other QPs take them meanwhile), on a QP that
 * accepts RPCs (one delivered to the RQ takes a receive WQE the peer
 * does not count), with no receive WQE posted that far, or if its bytes
 * would not fit the WQE's buffers whole: that error is the in-order
 * path's to answer, as IBA says, when the packet comes again at ePSN.
 * Nothing is written unless the whole packet fits, so no byte is placed
 * twice. Shared by the selective programs' placement and SRNIC's.
 */
bool snic_resp_place_send(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                          uint32_t d, uint32_t lag)
{
    uint32_t mtu = 128u << qp->attr.path_mtu, off = p->xeth.offset;
    struct snic_rq_wqe w;

    return (is_last(p->opcode) || p->payload_len == mtu) &&
           p->payload_len <= mtu && msg_wqe(c, qp, p, d, lag, &w) &&
           snic_sge_scatter_check(c, qp->pdn, w.sge, w.num_sge, off,
                                  p->payload_len) == SNIC_WC_SUCCESS &&
           snic_sge_scatter(c, qp - c->qps, qp->pdn, w.sge, w.num_sge, off,
                            p->payload, p->payload_len) == SNIC_WC_SUCCESS;
}

/*
 * A SEND packet 0 < d < SNIC_TX_WINDOW ahead of ePSN, recorded in the
 * map once placed (snic_resp_place_send()); the completion of a Last
 * needs one of the map's slots: with none free it is not placed.
 */
static bool ooo_send_place(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                           uint32_t d)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    bool first = is_first(p->opcode), last = is_last(p->opcode);
    SnicOooLast *l = last ? ooo_free_last(m) : NULL;

    if ((last && !l) || !snic_resp_place_send(c, qp, p, d, 0)) {
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
        queue_ack(c, qp, SNIC_AETH_ACK, (s->epsn - 1) & SNIC_PSN_MASK);
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
static void ooo_sack(SnicQp *qp, SnicPkt *p)
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

static void resp_request(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicResp *s = &qp->resp;
    int32_t d = snic_psn_cmp(p->psn, s->epsn);
    uint32_t mtu = 128u << qp->attr.path_mtu;
    bool first = is_first(p->opcode), last = is_last(p->opcode);
    bool send, ok, gap, filled;

    if (s->fatal) {
        return;     /* a fatal NAK is on its way: nothing more runs */
    }
    if (p->xport && snic_prog_ooo(qp) && is_plain_write(p->opcode)) {
        ooo_write(c, qp, p, d);
        return;
    }
    if (p->xport && d > 0 && is_send(p->opcode) && ooo_send(c, qp, p, d)) {
        return;
    }
    if (p->xport && snic_prog_ooo(qp) && d >= 0 && is_write_imm(p->opcode) &&
        ooo_write_imm(c, qp, p, d)) {
        return;
    }
    if (d > 0) {
        if (qp->resp.ack_every) {
            /* TCP's receiver: a duplicate ACK for every one (RFC 5681) */
            dup_ack(c, qp);
            return;
        }
        /* a packet was lost: say once where to resume */
        if (!s->nak_sent) {
            s->nak_sent = true;
            queue_ack(c, qp, SNIC_AETH_NAK_SEQ, s->epsn);
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
        queue_ack(c, qp, SNIC_AETH_ACK, (s->epsn - 1) & SNIC_PSN_MASK);
        return;
    }
    gap = s->nak_sent;
    s->nak_sent = false;
    if (p->opcode == SNIC_OP_RC_READ_REQUEST ||
        p->opcode == SNIC_OP_RC_CMP_SWAP ||
        p->opcode == SNIC_OP_RC_FETCH_ADD) {
        uint32_t n;

        if (in_message(qp)) {
            nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
            return;
        }
        n = p->opcode == SNIC_OP_RC_READ_REQUEST ? do_read(c, qp, p) :
                                                   do_atomic(c, qp, p);
        if (n) {
            epsn_advance(qp, n);
            ooo_sweep(c, qp);
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
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return;
    }
    /* op-code sequence: a message continues only what it started */
    if ((first && in_message(qp)) ||
        (!first && !(send ? s->in_send : s->in_write)) ||
        (!last && p->payload_len != mtu) ||
        (last && p->payload_len > mtu)) {
        nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        return;
    }
    ok = send ? do_send(c, qp, p) : do_write(c, qp, p);
    if (!ok) {
        return;
    }
    epsn_advance(qp, 1);
    /* selective programs: a gap filled is acknowledged at once */
    filled = ooo_sweep(c, qp);
    /* TCP's policy: every k-th packet too, and at once after a gap */
    if (p->ackreq || filled ||
        (qp->resp.ack_every && (++s->unacked >= qp->resp.ack_every || gap))) {
        s->unacked = 0;
        queue_ack(c, qp, SNIC_AETH_ACK, p->psn);
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
        ooo_sack(qp, &p);
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
        snic_rdma_qp_error(c, qp);
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
    uint32_t mtu = 128u << qp->attr.path_mtu;
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
        /* read now: a duplicate request sees memory as it is */
        mr = len ? snic_rkey_check(c, qp, r->rkey, SNIC_ACCESS_REMOTE_READ,
                                   r->va + off, len, &why) : NULL;
        if (len && (!mr ||
                    snic_xlate_failed(c, qp - c->qps,
                                      snic_mtt_read(c, &mr->mtt, r->va + off,
                                                    c->rdma_payload, len)))) {
            s->rdb_count = 0;       /* the region went away */
            nak_fatal(c, qp, SNIC_AETH_NAK_REM_ACCESS, p.psn);
            return false;
        }
        snic_fault_tear(c, c->rdma_payload, off, len, r->len);
        p.payload = c->rdma_payload;
        p.payload_len = len;
        if (snic_sr_on(qp)) {
            /* SRNIC 4.4.1: the request echoed, placed out of order */
            p.xport = true;
            p.xeth.flags = SNIC_XETH_F_RESP;
            p.xeth.msg = r->first_psn;
            p.xeth.offset = idx;
        }
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
