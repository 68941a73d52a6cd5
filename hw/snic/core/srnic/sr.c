/*
 * snic core: SRNIC's memory-free selective repeat with bitmap onloading
 * (SRNIC, NSDI'23, section 4.4): the responder, the requester, the CtrlQ
 * and the RetryQs. The hooks are described in sr.h; how it works,
 * docs/srnic.md, "Selective repeat on the device".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/mw.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "transport/programs/dctcp_window.h"
#include "engine/scheduler.h"
#include "objects/qp.h"
#include "srnic/sr.h"

#define psn_add(psn, n)     (((psn) + (n)) & SNIC_PSN_MASK)
#define psn_dist(to, from)  (((to) - (from)) & SNIC_PSN_MASK)

/*
 * The host's bitmaps span SNIC_SR_SPAN PSNs (SRNIC 3.2.2 sizes them at
 * 500 slots, the BDP of 100 Gb/s and a 40 us RTT; here the next power of
 * two), beyond the on-device maps of the Tonic programs
 */
_Static_assert(SNIC_SR_SPAN <= SNIC_DDE_SPAN, "the DDE's offsets hold it");

/*
 * Go-back-N is SRNIC's fallback: what it does not handle (timeouts,
 * sequence NAKs, RNR) goes to go-back-N's hooks, through its program
 */
static const SnicProgram *const gbn = &snic_program_gbn;

bool snic_sr_on(const SnicQp *qp)
{
    return snic_programs[qp->program]->flags & SNIC_PROG_SR;
}

/*
 * SNIC_TRANSPORT_SRNIC_DCTCP's area: the responder's CE count heads it
 * (SNIC_PROG_ECE), DCTCP's window (SRNIC section 5) follows SRNIC's state
 */
typedef struct SrDctcp {
    SnicCeEcho echo;
    SnicSrQp sr;
    SnicDctcpWindow w;
} SrDctcp;

SnicSrQp *snic_sr_qp(SnicQp *qp)
{
    if (!snic_sr_on(qp)) {
        return NULL;
    }
    return snic_prog_ece(qp) ? &((SrDctcp *)snic_prog_state(qp))->sr :
                               snic_prog_state(qp);
}

/* DCTCP's window of an SRNIC QP that runs it, or NULL (a fixed window) */
static SnicDctcpWindow *sr_dctcp(SnicQp *qp)
{
    return snic_prog_ece(qp) ? &((SrDctcp *)snic_prog_state(qp))->w : NULL;
}

static uint32_t qpn_of(SnicCore *c, SnicQp *qp)
{
    return qp - c->qps;
}

/* ---- the CtrlQ ---- */

/* Free CtrlQ slots, for n entries */
static bool ctrl_room_n(SnicCore *c, uint32_t n)
{
    SnicSrCtrlq *q = &c->sr_ctrlq;

    return q->base && q->tail - q->head + n <= 1u << q->log2_depth;
}

static bool ctrl_room(SnicCore *c)
{
    return ctrl_room_n(c, 1);
}

/*
 * The CtrlQ entries a QP (or a context) may still have in the ring,
 * counted in two generations (no per-slot record): once the host's
 * consumer index passes h->mark, where the current one began, the older
 * one's entries are all taken and the current one becomes the older. An
 * upper bound: entries of the older generation may be taken already.
 * Once the consumer passes the holder's last entry (h->end) it holds
 * none: without that, a QP that ended a recovery with its quota's worth
 * in one generation found them all counted again at the next turn and
 * its next recovery's first report refused.
 */
static uint32_t ctrl_held(SnicCore *c, SnicSrCtrlHold *h)
{
    SnicSrCtrlq *q = &c->sr_ctrlq;

    if ((int32_t)(q->head - h->end) >= 0) {
        h->cur = h->prev = 0;
    }
    if (!h->cur && !h->prev) {
        h->mark = q->tail;
    } else if ((int32_t)(q->head - h->mark) >= 0) {
        h->prev = h->cur;
        h->cur = 0;
        h->mark = q->tail;
    }
    return h->prev + h->cur;
}

/*
 * A user context's share of the CtrlQ: a quarter of the ring
 * (snic_ctx_share), whatever number of QPs it opens; their quotas below
 * add up to no more, so one process's QPs cannot fill the ring every
 * SRNIC QP reports in. The kernel's own QPs (its doorbell page) are not
 * a tenant of the ring its driver consumes: they keep the per-QP quota.
 */
static bool ctrl_ctx_ok(SnicCore *c, SnicQp *qp, uint32_t n)
{
    return qp->ctx == SNIC_DB_KERNEL_PAGE ||
           ctrl_held(c, &c->sr_ctx_hold[qp->ctx]) + n <=
           snic_ctx_share(1u << c->sr_ctrlq.log2_depth);
}

/*
 * A QP's quota of the device-wide CtrlQ: a window of packets, a SEND
 * Last taking two entries. An honest peer sends each PSN of the window
 * about once per recovery; a hostile one resending PSNs the device
 * reported already (it keeps no bitmap to tell) is refused here beyond
 * that, so it cannot take the ring from the other QPs.
 */
static bool ctrl_quota_ok(SnicCore *c, SnicQp *qp, uint32_t n)
{
    SnicSrQp *s = snic_sr_qp(qp);

    return ctrl_held(c, &s->ctrl) + n <= 2 * snic_sr_window(s) &&
           ctrl_ctx_ok(c, qp, n);
}

/* A report refused (a duplicate in the range: type 0), counted */
static void ctrl_refused(SnicCore *c, SnicQp *qp, uint32_t psn, uint8_t type)
{
    snic_stat_inc(&c->stats.sr_ctrlq_refused);
    SNIC_EVENT(c, SR_CTRLQ_REFUSED, qpn_of(c, qp), psn, type);
}

/* Room in the ring and in the QP's quota for n entries */
static bool resp_room(SnicCore *c, SnicQp *qp, uint32_t n)
{
    return ctrl_room_n(c, n) && ctrl_quota_ok(c, qp, n);
}

/* Metadata lost (ring full or absent): counted, told once a doorbell */
static void ctrl_lost(SnicCore *c, SnicQp *qp, uint32_t psn, bool req)
{
    SnicSrCtrlq *q = &c->sr_ctrlq;

    snic_stat_inc(&c->stats.sr_ctrlq_drops);
    SNIC_EVENT(c, SR_CTRLQ_FULL, qpn_of(c, qp), psn, req);
    if (q->base && !q->overflow_told) {
        q->overflow_told = true;
        snic_aeq_post(c, SNIC_EVENT_SR_CTRLQ_OVERFLOW, qpn_of(c, qp));
    }
}

/* A requester's entry (SNIC_SR_CTRL_RESP_RECV, numbered after, is not) */
static bool ctrl_is_req(uint8_t type)
{
    return type >= SNIC_SR_CTRL_REQ_ACK && type <= SNIC_SR_CTRL_REQ_RTO;
}

/*
 * Write an entry (body, then the phase byte); its vector rises at the
 * end of the burst (snic_sr_ctrlq_flush()): one MSI-X message for all
 * the entries of a scheduler pass, as a CQ's event stands for all its
 * CQEs until rearmed. The host's handler takes every entry it finds.
 */
static bool ctrl_post(SnicCore *c, SnicQp *qp, struct snic_sr_ctrl *e)
{
    SnicSrCtrlq *q = &c->sr_ctrlq;
    SnicSrQp *s = snic_sr_qp(qp);
    bool exit = e->type == SNIC_SR_CTRL_RESP_EXIT ||
                e->type == SNIC_SR_CTRL_REQ_EXIT ||
                e->type == SNIC_SR_CTRL_REQ_RTO;
    uint64_t at;

    if (!ctrl_room(c)) {
        ctrl_lost(c, qp, GUINT32_FROM_LE(e->psn), ctrl_is_req(e->type));
        return false;
    }
    /* an exit is never refused: one per recovery, entered by a report */
    if (!ctrl_quota_ok(c, qp, 1) && !exit) {
        ctrl_refused(c, qp, GUINT32_FROM_LE(e->psn), e->type);
        return false;
    }
    at = q->base + (uint64_t)(q->tail & ((1u << q->log2_depth) - 1)) *
         SNIC_SR_CTRLQ_ENTRY;
    e->qpn = GUINT32_TO_LE(qpn_of(c, qp));
    e->retry_ci = GUINT16_TO_LE(s->retry_head);
    e->flags |= snic_ring_phase(q->tail, q->log2_depth);
    if (snic_dma_write(c, at, e, offsetof(struct snic_sr_ctrl, flags)) ||
        snic_dma_write(c, at + offsetof(struct snic_sr_ctrl, flags),
                       &e->flags, sizeof(*e) -
                       offsetof(struct snic_sr_ctrl, flags))) {
        SNIC_GUEST_ERROR(c, GE_SR_RING, 0, qpn_of(c, qp), q->tail);
        ctrl_lost(c, qp, GUINT32_FROM_LE(e->psn), ctrl_is_req(e->type));
        return false;
    }
    q->tail++;
    s->ctrl.cur++;
    s->ctrl.end = q->tail;
    c->sr_ctx_hold[qp->ctx].cur++;
    c->sr_ctx_hold[qp->ctx].end = q->tail;
    snic_stat_inc(&c->stats.sr_ctrlq_entries);
    q->irq_pending = true;
    return true;
}

void snic_sr_ctrlq_flush(SnicCore *c)
{
    SnicSrCtrlq *q = &c->sr_ctrlq;

    if (q->irq_pending) {
        q->irq_pending = false;
        snic_raise_irq(c, q->vector);
    }
}

static void resp_report(SnicCore *c, SnicQp *qp, uint8_t type, uint32_t psn,
                        bool last)
{
    SnicSrQp *s = snic_sr_qp(qp);
    struct snic_sr_ctrl e = {
        .type = type,
        .flags = last ? SNIC_SR_CTRL_F_LAST : 0,
        .psn = GUINT32_TO_LE(psn),
        .epsn = GUINT32_TO_LE(qp->resp.epsn),
        .sack_lo = GUINT32_TO_LE(s->resp_recovery ? s->psn_left : 0),
        .sack_hi = GUINT32_TO_LE(s->resp_recovery ?
                                 psn_add(s->psn_right, 1) : 0),
    };

    ctrl_post(c, qp, &e);
}

/* ---- responder ---- */

/*
 * A packet whose report found no CtrlQ slot (or none left in its QP's
 * quota): dropped unplaced (a loss the peer repairs), and go-back-N's
 * sequence NAK once per gap (until ePSN moves), so the peer resends from
 * ePSN at once instead of waiting for its timeout while the host frees
 * slots.
 */
static void resp_unreported(SnicCore *c, SnicQp *qp, uint32_t psn,
                            uint32_t n)
{
    SnicResp *r = &qp->resp;

    if (ctrl_room_n(c, n)) {
        ctrl_refused(c, qp, psn, SNIC_SR_CTRL_RESP);
    } else {
        ctrl_lost(c, qp, psn, false);
    }
    if (!r->nak_sent) {
        r->nak_sent = true;
        snic_place_queue_ack(c, qp, SNIC_AETH_NAK_SEQ, r->epsn);
    }
}

static void resp_exit(SnicCore *c, SnicQp *qp, SnicSrQp *s)
{
    s->resp_recovery = false;
    qp->resp.nak_sent = false;
    SNIC_EVENT(c, SR_RECOVERY, qpn_of(c, qp), 0, 0, qp->resp.epsn);
}

/*
 * ePSN moved in recovery: inside the fast-exit range, everything up to
 * psn_right is here and nothing beyond it, so recovery ends there.
 */
static bool resp_catch_up(SnicCore *c, SnicQp *qp, SnicSrQp *s)
{
    SnicResp *r = &qp->resp;

    if (snic_psn_cmp(r->epsn, s->psn_left) < 0) {
        return false;
    }
    if (snic_psn_cmp(r->epsn, psn_add(s->psn_right, 1)) <= 0) {
        r->epsn = psn_add(s->psn_right, 1);
        r->in_write = !s->right_last;
    }
    resp_exit(c, qp, s);
    return true;
}

static bool is_plain_write(uint8_t op)
{
    return op == SNIC_OP_RC_WRITE_FIRST || op == SNIC_OP_RC_WRITE_MIDDLE ||
           op == SNIC_OP_RC_WRITE_LAST || op == SNIC_OP_RC_WRITE_ONLY;
}

static bool op_last(uint8_t op)
{
    return snic_opcode_info(op)->flags & SNIC_OPF_LAST;
}

/* The fast-exit range after placing psn ahead of ePSN (Fig. 8) */
static void range_add(SnicSrQp *s, uint32_t psn, bool last)
{
    if (psn == psn_add(s->psn_right, 1)) {
        s->psn_right = psn;
        s->right_last = last;
    } else if (psn == psn_add(s->psn_left, -1)) {
        s->psn_left = psn;
    } else if (snic_psn_cmp(psn, s->psn_right) > 0) {
        /* the most advanced run restarts here: nothing is above it */
        s->psn_left = s->psn_right = psn;
        s->right_last = last;
    }
}

/*
 * A packet d PSNs from ePSN was placed: at ePSN it moves ePSN on (and in
 * recovery may reach the fast-exit range); ahead of it, it starts loss
 * recovery or extends the range; in recovery or ahead, the host hears
 * of it ('was': the QP was in recovery when it came).
 */
static void resp_accepted(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                          const SnicPkt *p, uint32_t d, bool was)
{
    SnicResp *r = &qp->resp;
    bool last = op_last(p->opcode);

    if (!d) {
        if (last) {
            r->msn = (r->msn + 1) & 0xffffff;
        }
        r->epsn = psn_add(r->epsn, 1);
        r->nak_sent = false;
        if (was) {
            resp_catch_up(c, qp, s);
        }
    } else if (!was) {
        s->resp_recovery = true;
        s->psn_left = s->psn_right = p->psn;
        s->right_last = last;
        SNIC_EVENT(c, SR_RECOVERY, qpn_of(c, qp), 0, 1, r->epsn);
    } else {
        range_add(s, p->psn, last);
    }
    if (was || d) {
        resp_report(c, qp, s->resp_recovery ? SNIC_SR_CTRL_RESP :
                    SNIC_SR_CTRL_RESP_EXIT, p->psn, last);
    }
}

static void sr_write(SnicCore *c, SnicQp *qp, SnicSrQp *s, const SnicPkt *p,
                     uint32_t d)
{
    SnicResp *r = &qp->resp;
    bool last = op_last(p->opcode), was = s->resp_recovery;
    uint8_t syn;

    if ((was || d) && !resp_room(c, qp, 1)) {
        resp_unreported(c, qp, p->psn, 1);
        return;
    }
    syn = snic_place_write_at(c, qp, p, !d);
    if (syn != SNIC_AETH_ACK) {
        if (!d) {
            snic_place_nak_fatal(c, qp, syn, p->psn);
        }
        return;         /* ahead of ePSN: dropped unrecorded */
    }
    if (!d) {
        r->in_write = !last;
    }
    resp_accepted(c, qp, s, p, d, was);
    /* ahead of ePSN and in recovery every packet is acknowledged (SACK) */
    if (p->ackreq || d || was) {
        snic_place_queue_ack(c, qp, SNIC_AETH_ACK, psn_add(r->epsn, -1));
    }
}

static bool is_send(uint8_t op)
{
    return op <= SNIC_OP_RC_SEND_ONLY_IMM || op == SNIC_OP_RC_SEND_LAST_INV ||
           op == SNIC_OP_RC_SEND_ONLY_INV;
}

/*
 * Complete the message at the RQ's head (SSN msg.resp), a SEND or a
 * WRITE with immediate (op its Last's op-code): take its WQE (posted:
 * the placement checked it), invalidate, write the CQE.
 */
static void recv_finish(SnicCore *c, SnicQp *qp, SnicSrQp *s, uint8_t op,
                        uint32_t len, uint32_t data, bool se)
{
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    p.opcode = op;
    p.headers = snic_opcode_info(op)->headers;
    p.imm = p.ieth_rkey = data;
    p.se = se;
    if (!snic_recv_take(c, qp)) {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_REM_OP,
                             psn_add(qp->resp.epsn, -1));
        return;
    }
    if (p.headers & SNIC_HDR_IETH && !snic_remote_invalidate(c, qp, data)) {
        snic_rq_complete(c, qp, SNIC_WC_REM_INV_REQ_ERR, SNIC_WC_RECV, len,
                         &p);
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ,
                             psn_add(qp->resp.epsn, -1));
        return;
    }
    snic_rq_complete(c, qp, SNIC_WC_SUCCESS, is_send(op) ? SNIC_WC_RECV :
                     SNIC_WC_RECV_RDMA_WITH_IMM, len, &p);
    if (s->recv_told == s->msg.resp) {
        s->recv_told++;
    }
    s->msg.resp++;
}

/*
 * A Last whose completion is the host's (SNIC_SR_CTRL_RESP_RECV); placed,
 * so its offset + payload is at most 2^31 (resp.c, msg_wqe()): byte_len
 * cannot wrap
 */
static void recv_report(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                        const SnicPkt *p)
{
    struct snic_sr_ctrl_recv e = {
        .type = SNIC_SR_CTRL_RESP_RECV,
        .recv_flags = (p->headers & SNIC_HDR_IMMDT ? SNIC_SR_RECV_F_IMM : 0) |
                      (p->headers & SNIC_HDR_IETH ? SNIC_SR_RECV_F_INV : 0) |
                      (p->se ? SNIC_SR_RECV_F_SE : 0) |
                      (is_send(p->opcode) ? 0 : SNIC_SR_RECV_F_WRITE),
        .psn = GUINT32_TO_LE(p->psn),
        .epsn = GUINT32_TO_LE(qp->resp.epsn),
        .ssn = GUINT32_TO_LE(p->xeth.msg),
        .byte_len = GUINT32_TO_LE(p->xeth.offset + p->payload_len),
        .data = GUINT32_TO_LE(p->headers & SNIC_HDR_IETH ? p->ieth_rkey :
                              p->imm),
        .head_ssn = GUINT16_TO_LE(s->msg.resp),
    };

    /* the same slot as struct snic_sr_ctrl (type, flags, qpn, retry_ci) */
    ctrl_post(c, qp, (struct snic_sr_ctrl *)&e);
    if ((int32_t)(p->xeth.msg + 1 - s->recv_told) > 0) {
        s->recv_told = p->xeth.msg + 1;
    }
}

/*
 * A message-numbered packet (SEND, WRITE with immediate) at ePSN whose
 * receive WQE cannot take it. Its message is at most the first ePSN has
 * not passed (k <= lag): one further is the peer's error; else no
 * receive WQE is posted for it yet: try again later (IBA RNR).
 */
static void msg_refused(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                        const SnicPkt *p)
{
    uint32_t k = p->xeth.msg - s->msg.resp, lag = s->recv_told - s->msg.resp;

    if (k <= lag && k >= (uint16_t)(qp->rq_tail - qp->rq_head)) {
        qp->resp.nak_sent = true;
        snic_place_queue_ack(c, qp, SNIC_AETH_RNR | qp->attr.min_rnr_timer,
                             p->psn);
    } else {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
    }
}

/*
 * A message-numbered packet placed d PSNs from ePSN: ePSN and recovery
 * move on, a Last completes on the device ('self') or goes to the host,
 * and it is acknowledged as sr_write() acknowledges ('was': in recovery
 * when it came; 'data': the completion's immediate or invalidated R_Key)
 */
static void msg_placed(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                       const SnicPkt *p, uint32_t d, bool was, bool self,
                       uint32_t data)
{
    SnicResp *r = &qp->resp;

    if (!d) {
        r->in_write = false;    /* a message keeps no in-order state here */
    }
    resp_accepted(c, qp, s, p, d, was);
    if (self) {
        recv_finish(c, qp, s, p->opcode, p->xeth.offset + p->payload_len,
                    data, p->se);
    } else if (op_last(p->opcode)) {
        recv_report(c, qp, s, p);
    }
    if (p->ackreq || d || was) {
        snic_place_queue_ack(c, qp, SNIC_AETH_ACK, psn_add(r->epsn, -1));
    }
}

/*
 * A message-numbered packet whose message is SNIC_SR_SPAN or more past
 * the RQ's head: no honest requester has that many outstanding (its
 * WQEs in flight stay below the span), and the host holds completions
 * for SNIC_SR_SPAN SSNs (SNIC_SR_SW_RECVS): one told it further would
 * be lost there and the QP's receives never complete. Dropped unplaced
 * ahead of ePSN (counted), a fatal NAK at it.
 */
static bool msg_too_far(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                        const SnicPkt *p, uint32_t d)
{
    if (p->xeth.msg - s->msg.resp < SNIC_SR_SPAN) {
        return false;
    }
    if (d) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
    } else {
        snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
    }
    return true;
}

/*
 * A SEND packet d PSNs from ePSN (SRNIC section 4.4.1), placed by its SSN
 * as sr_write() places a WRITE by its address. A Last whose completion
 * is the host's needs a second CtrlQ slot for that.
 */
static void sr_send(SnicCore *c, SnicQp *qp, SnicSrQp *s, const SnicPkt *p,
                    uint32_t d)
{
    bool last = op_last(p->opcode), was = s->resp_recovery;
    bool self = !d && last && p->xeth.msg == s->msg.resp &&
                s->recv_told == s->msg.resp;
    uint32_t need = (was || d) + (last && !self);
    uint32_t lag = s->recv_told - s->msg.resp;

    if (msg_too_far(c, qp, s, p, d)) {
        return;
    }
    if (need && !resp_room(c, qp, need)) {
        resp_unreported(c, qp, p->psn, need);
        return;
    }
    /* messages ePSN passed may still await the host's completion */
    if (!snic_place_send(c, qp, p, d, lag)) {
        if (!d) {
            msg_refused(c, qp, s, p);
        }
        return;             /* ahead of ePSN: dropped unrecorded */
    }
    msg_placed(c, qp, s, p, d, was, self,
               p->headers & SNIC_HDR_IETH ? p->ieth_rkey : p->imm);
}

static bool is_write_imm(uint8_t op)
{
    return op == SNIC_OP_RC_WRITE_LAST_IMM || op == SNIC_OP_RC_WRITE_ONLY_IMM;
}

/*
 * An RDMA WRITE with immediate's Last or Only packet d PSNs from ePSN:
 * its bytes placed at its address as sr_write() places any WRITE's (its
 * First and Middle packets were), its completion a SEND Last's (sr_send):
 * the receive WQE its SSN names must be posted (at ePSN, if the number is
 * one the device could take, not yet: RNR NAK), and it completes on the
 * device only at ePSN with every message before it complete, else it
 * goes to the host, flagged SNIC_SR_RECV_F_WRITE; byte_len the WRITE's
 * length, as the in-order path's. Nothing is written before the CtrlQ
 * slots it needs are there and its WQE is posted, so a packet refused is
 * not placed and none is placed twice.
 */
static void sr_write_imm(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                         const SnicPkt *p, uint32_t d)
{
    bool was = s->resp_recovery;
    bool self = !d && p->xeth.msg == s->msg.resp &&
                s->recv_told == s->msg.resp;
    uint32_t need = (was || d) + !self;
    uint8_t syn;

    if (msg_too_far(c, qp, s, p, d)) {
        return;
    }
    if (need && !resp_room(c, qp, need)) {
        resp_unreported(c, qp, p->psn, need);
        return;
    }
    if (!snic_place_msg_posted(c, qp, p, d, s->recv_told - s->msg.resp)) {
        if (!d) {
            msg_refused(c, qp, s, p);
        }
        return;             /* ahead of ePSN: dropped unrecorded */
    }
    syn = snic_place_write_at(c, qp, p, !d);
    if (syn != SNIC_AETH_ACK) {
        if (!d) {
            snic_place_nak_fatal(c, qp, syn, p->psn);
        }
        return;             /* ahead of ePSN: dropped unrecorded */
    }
    msg_placed(c, qp, s, p, d, was, self, p->imm);
}

bool snic_sr_request(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicSrQp *s = snic_sr_qp(qp);
    SnicResp *r = &qp->resp;
    uint32_t d = psn_dist(p->psn, r->epsn);

    if (r->fatal || snic_psn_cmp(p->psn, r->epsn) < 0) {
        return false;   /* a duplicate: re-acknowledged, never executed */
    }
    if (d >= SNIC_SR_SPAN) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);   /* beyond the bitmaps */
        return true;
    }
    if (d && s->resp_recovery && snic_psn_cmp(p->psn, s->psn_left) >= 0 &&
        snic_psn_cmp(p->psn, s->psn_right) <= 0) {
        /* placed and reported already: acknowledged, not reported again */
        ctrl_refused(c, qp, p->psn, 0);
        snic_place_queue_ack(c, qp, SNIC_AETH_ACK, psn_add(r->epsn, -1));
        return true;
    }
    if (is_write_imm(p->opcode) &&
        (!p->xport || !(p->xeth.flags & SNIC_XETH_F_MSG))) {
        /*
         * without its SSN (the requester always sends it): the engine's
         * in-order path would not keep the host's completions (recv_told)
         * in step with the receive WQE it takes
         */
        if (!d) {
            snic_place_nak_fatal(c, qp, SNIC_AETH_NAK_INV_REQ, p->psn);
        }
        return true;
    }
    if (is_write_imm(p->opcode) && !qp->srqn &&
        !(qp->rpc.flags & SNIC_QP_RPC_ENABLE)) {
        sr_write_imm(c, qp, s, p, d);
        return true;
    }
    if (p->xport && is_plain_write(p->opcode)) {
        sr_write(c, qp, s, p, d);
        return true;
    }
    if (p->xport && is_send(p->opcode) && !qp->srqn &&
        !(qp->rpc.flags & SNIC_QP_RPC_ENABLE)) {
        sr_send(c, qp, s, p, d);
        return true;
    }
    if (d) {
        /* not placeable out of order: where to resume, once per gap */
        if (!r->nak_sent) {
            r->nak_sent = true;
            snic_place_queue_ack(c, qp, SNIC_AETH_NAK_SEQ, r->epsn);
        }
        return true;
    }
    if (s->resp_recovery && !resp_room(c, qp, 1)) {
        resp_unreported(c, qp, p->psn, 1);  /* not executed: sent again */
        return true;
    }
    return false;       /* in order: the engine's path */
}

void snic_sr_executed(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                      uint32_t epsn_before)
{
    SnicSrQp *s = snic_sr_qp(qp);

    if (!s->resp_recovery || qp->resp.epsn == epsn_before) {
        return;
    }
    resp_catch_up(c, qp, s);
    resp_report(c, qp, s->resp_recovery ? SNIC_SR_CTRL_RESP :
                SNIC_SR_CTRL_RESP_EXIT, p->psn, op_last(p->opcode));
    snic_place_queue_ack(c, qp, SNIC_AETH_ACK,
                         psn_add(qp->resp.epsn, -1));
}

/*
 * The fast-exit range lies beyond the forgotten message, which its
 * requester sends again from its first PSN: recovery ends (what was
 * placed beyond comes again, placed again in place), and the host hears
 * of the exit, so its bitmap starts again from the new ePSN and never
 * moves ePSN past the message sent again.
 */
void snic_sr_resp_rewound(SnicCore *c, SnicQp *qp)
{
    SnicSrQp *s = snic_sr_qp(qp);

    if (s->resp_recovery) {
        resp_exit(c, qp, s);
        resp_report(c, qp, SNIC_SR_CTRL_RESP_EXIT, qp->resp.epsn, false);
    }
}

void snic_sr_ack(SnicQp *qp, SnicPkt *p)
{
    SnicSrQp *s = snic_sr_qp(qp);

    p->xport = true;
    if (s->resp_recovery) {
        p->xeth.flags = SNIC_XETH_F_SACK;
        p->xeth.sack_lo = s->psn_left;
        p->xeth.sack_hi = psn_add(s->psn_right, 1);
    }
}

/*
 * What the device made of a RetryQ entry (SrRetryVerdict, sr.h). A stale
 * one was overtaken by the device (the host wrote it before it read the
 * CtrlQ entry that makes it moot) and cannot be avoided by a correct
 * host: skipped, counted apart from the hostile ones, which are guest
 * errors.
 */

/* Half the PSN space: how far behind a PSN reads as behind, not ahead */
#define SR_PSN_HALF         (1u << 23)

/* SNIC_SR_RETRY_EPSN */
static SrRetryVerdict retry_epsn(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                                 const struct snic_sr_retry *e)
{
    SnicResp *r = &qp->resp;
    uint32_t psn = GUINT32_FROM_LE(e->psn_from) & SNIC_PSN_MASK;

    if (snic_psn_cmp(psn, r->epsn) <= 0) {
        /*
         * Not forward: the device got there already, by itself (the
         * packets at ePSN, its own exit from recovery) and possibly far
         * beyond the window while the entry waited in the ring.
         */
        return SR_RETRY_STALE;
    }
    if (r->fatal || !s->resp_recovery ||
        psn_dist(psn, r->epsn) > SNIC_SR_SPAN ||
        snic_psn_cmp(psn, psn_add(s->psn_right, 1)) > 0) {
        return SR_RETRY_REFUSED;    /* a sweep over PSNs never placed */
    }
    if (snic_psn_cmp(psn, s->psn_left) >= 0) {
        r->epsn = psn_add(s->psn_right, 1);     /* Fig. 8: fast exit */
        r->in_write = !s->right_last;
        resp_exit(c, qp, s);
        resp_report(c, qp, SNIC_SR_CTRL_RESP_EXIT, psn, false);
    } else {
        r->epsn = psn;
        r->in_write = e->flags & SNIC_SR_RETRY_F_IN_MSG;
        r->nak_sent = false;
    }
    snic_place_queue_ack(c, qp, SNIC_AETH_ACK, psn_add(r->epsn, -1));
    return SR_RETRY_TAKEN;
}

/*
 * SNIC_SR_RETRY_RECV_DONE: the next message's completion, a SEND's or
 * (SNIC_SR_RECV_F_WRITE) a WRITE with immediate's
 */
static SrRetryVerdict retry_recv(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                                 const struct snic_sr_retry_recv *e)
{
    uint32_t len = GUINT32_FROM_LE(e->byte_len), data;
    struct snic_rq_wqe w;
    uint64_t room = 0;
    unsigned i;
    uint8_t op;

    if (GUINT16_FROM_LE(e->ssn) != (uint16_t)s->msg.resp ||
        s->recv_told == s->msg.resp || qp->resp.fatal ||
        !snic_rq_peek(c, qp, 0, &w) ||
        (e->flags & SNIC_SR_RECV_F_IMM && e->flags & SNIC_SR_RECV_F_INV) ||
        (e->flags & SNIC_SR_RECV_F_WRITE &&
         !(e->flags & SNIC_SR_RECV_F_IMM))) {
        return SR_RETRY_REFUSED;    /* not the next one the device told */
    }
    for (i = 0; i < w.num_sge; i++) {
        room += GUINT32_FROM_LE(w.sge[i].length);
    }
    /* a WRITE's bytes went to its address, not to the WQE: IBA's bound */
    if (len > (e->flags & SNIC_SR_RECV_F_WRITE ? 1ull << 31 : room)) {
        return SR_RETRY_REFUSED;    /* more than was placed could be */
    }
    op = e->flags & SNIC_SR_RECV_F_WRITE ? SNIC_OP_RC_WRITE_LAST_IMM :
         e->flags & SNIC_SR_RECV_F_IMM ? SNIC_OP_RC_SEND_LAST_IMM :
         e->flags & SNIC_SR_RECV_F_INV ? SNIC_OP_RC_SEND_LAST_INV :
                                         SNIC_OP_RC_SEND_LAST;
    data = GUINT32_FROM_LE(e->data);
    recv_finish(c, qp, s, op, len, data, e->flags & SNIC_SR_RECV_F_SE);
    return SR_RETRY_TAKEN;
}

/* ---- requester ---- */

static void req_report(SnicCore *c, SnicQp *qp, uint8_t type, uint32_t psn,
                       uint32_t sack_lo, uint32_t sack_hi)
{
    uint32_t una = snic_transport_wnd_start(qp);
    struct snic_sr_ctrl e = {
        .type = type,
        .psn = GUINT32_TO_LE(psn),
        .epsn = GUINT32_TO_LE(una),
        .sack_lo = GUINT32_TO_LE(sack_lo),
        .sack_hi = GUINT32_TO_LE(sack_hi),
        .sent_end = GUINT32_TO_LE(psn_add(una,
                                          snic_transport_outstanding(qp))),
    };

    ctrl_post(c, qp, &e);
}

/*
 * The window counts segments in flight, as RFC 6675's pipe does: sent,
 * neither cumulatively acknowledged nor SACKed. Without it a window of
 * one BDP counted from lACK stops new data for each loss until the
 * repair is acknowledged, an RTT and the host's time later: what going
 * back N costs. The device keeps no scoreboard (the bitmap is the
 * host's), only a count that errs low, so the window never lets more
 * than W out: each ACK's block (the responder's fast-exit range, PSNs
 * that all arrived) adds what it holds above the highest block so far
 * (a duplicate or reordered ACK adds nothing); a cumulative ACK over n
 * PSNs removes n, as RFC 6582 deflates its window (it adds one back for
 * the hole repaired: here an ACK may also carry the host's ePSN, which
 * passes SACKed PSNs only, and the device cannot tell the two apart);
 * lACK at the highest block clears it. Retransmissions are not counted
 * in flight. What is outstanding beyond lACK stays within the host
 * bitmaps' span (snic_dde_span()).
 */
static void req_sacked(SnicSrQp *s, const SnicFeedback *fb, bool block,
                       uint32_t una)
{
    uint32_t n = psn_dist(una, fb->old_wnd_start), lo;

    if (fb->progress) {
        s->sacked -= MIN(s->sacked, n);
    }
    if (block && snic_psn_cmp(fb->sack_end, s->sack_hi) > 0) {
        lo = snic_psn_cmp(fb->sack, s->sack_hi) > 0 ? fb->sack : s->sack_hi;
        s->sacked += psn_dist(fb->sack_end, lo);
        s->sack_hi = fb->sack_end;
    }
    if (snic_psn_cmp(una, s->sack_hi) >= 0) {
        s->sacked = 0;
    }
    s->sacked = MIN(s->sacked, psn_dist(s->sack_hi, una));
}

static void req_window(SnicCore *c, SnicQp *qp, SnicSrQp *s)
{
    SnicDctcpWindow *w = sr_dctcp(qp);

    snic_transport_set_window(c, qp, (w ? snic_dctcp_segments(w) :
                                      snic_sr_window(s)) +
                              (s->req_recovery ? s->sacked : 0));
}

/*
 * DCTCP's reaction to an ACK (dctcp_window.h): marks cut the window once
 * a round trip; new data grows it outside loss recovery, which holds it
 * (RFC 6675); the loss itself halved it when recovery began (RFC 8257
 * 3.5, once a round trip as any cut)
 */
static void req_dctcp(SnicQp *qp, SnicDctcpWindow *w, const SnicFeedback *fb,
                      bool recovery)
{
    uint32_t marks = snic_dctcp_marks(w, fb);

    if (fb->progress) {
        snic_dctcp_ack(qp, w, fb, marks, !recovery, SNIC_SR_SPAN);
    } else if (marks) {
        w->win_marked += marks;
        snic_dctcp_marked(qp, w);
    }
}

static void req_exit(SnicCore *c, SnicQp *qp, SnicSrQp *s, uint8_t type,
                     uint32_t psn)
{
    s->req_recovery = false;
    s->sacked = 0;
    req_window(c, qp, s);
    SNIC_EVENT(c, SR_RECOVERY, qpn_of(c, qp), 1, 0, psn);
    req_report(c, qp, type, psn, 0, 0);
}

static void sr_init(SnicCore *c, SnicQp *qp)
{
    SnicDctcpWindow *w = sr_dctcp(qp);

    if (w) {
        snic_dctcp_init(qp, w, SNIC_SR_SPAN);
    }
    req_window(c, qp, snic_sr_qp(qp));
}

/* A loss halves DCTCP's window, once a round trip (RFC 8257 3.5) */
static void dctcp_loss(const SnicQp *qp, SnicDctcpWindow *w)
{
    if (w) {
        snic_dctcp_cut(qp, w, w->cwnd / 2);
    }
}

static void sr_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    SnicSrQp *s = snic_sr_qp(qp);
    SnicDctcpWindow *w = sr_dctcp(qp);
    uint32_t una = snic_transport_wnd_start(qp);
    uint32_t end = psn_add(una, snic_transport_outstanding(qp));
    SnicFeedback ack = *fb;
    bool block;

    switch (fb->kind) {
    case SNIC_FB_SACK:
    case SNIC_FB_ACK:
    case SNIC_FB_DUP_ACK:
        if (fb->progress) {
            ack.kind = SNIC_FB_ACK;
            gbn->incoming(c, qp, &ack);     /* retry counters, timer */
        }
        block = fb->kind == SNIC_FB_SACK &&
                snic_psn_cmp(fb->sack, una) > 0 &&
                snic_psn_cmp(fb->sack_end, end) <= 0 &&
                snic_psn_cmp(fb->sack, fb->sack_end) < 0;
        if (!s->req_recovery && block) {
            s->req_recovery = true;
            s->recover = psn_add(end, -1);
            s->sack_hi = fb->sack;
            s->sacked = 0;
            dctcp_loss(qp, w);
            SNIC_EVENT(c, SR_RECOVERY, qpn_of(c, qp), 1, 1, una);
        }
        if (w) {
            req_dctcp(qp, w, fb, s->req_recovery);
        }
        if (!s->req_recovery) {
            req_window(c, qp, s);
            break;
        }
        req_sacked(s, fb, block, una);
        if (snic_psn_cmp(una, s->recover) > 0) {
            if (!block) {
                req_exit(c, qp, s, SNIC_SR_CTRL_REQ_EXIT, fb->psn);
                break;
            }
            /*
             * Past the recovery point with PSNs still SACKed above lACK:
             * data sent during recovery was lost too, and the host, whose
             * bitmap holds those SACKs, may be posting its hole already.
             * Recovery goes on to a new point (RFC 6675's next recovery,
             * at once): leaving it would refuse that entry and drop what
             * the host knows.
             */
            s->recover = psn_add(end, -1);
        }
        req_report(c, qp, SNIC_SR_CTRL_REQ_ACK, fb->psn,
                   block ? fb->sack : 0, block ? fb->sack_end : 0);
        req_window(c, qp, s);
        break;
    case SNIC_FB_NAK_SEQ:
        /* something not placeable out of order was lost: back N */
        dctcp_loss(qp, w);
        if (s->req_recovery) {
            req_exit(c, qp, s, SNIC_SR_CTRL_REQ_RTO, fb->psn);
        } else {
            req_window(c, qp, s);
        }
        gbn->incoming(c, qp, fb);
        break;
    default:
        gbn->incoming(c, qp, fb);       /* RNR, READ responses */
        break;
    }
}

static void sr_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SnicSrQp *s = snic_sr_qp(qp);
    uint32_t flight = snic_transport_outstanding(qp);

    if (snic_transport_rto_expired(qp, now) && flight) {
        if (sr_dctcp(qp)) {
            snic_dctcp_timeout(qp, sr_dctcp(qp), flight);
        }
        if (s->req_recovery) {
            /* a retransmission was lost too: all goes again, host forgets */
            req_exit(c, qp, s, SNIC_SR_CTRL_REQ_RTO,
                     snic_transport_wnd_start(qp));
        } else {
            req_window(c, qp, s);
        }
    }
    gbn->periodic(c, qp, now);
}

/* SNIC_SR_RETRY_RTX */
static SrRetryVerdict retry_rtx(SnicCore *c, SnicQp *qp, SnicSrQp *s,
                                const struct snic_sr_retry *e)
{
    uint32_t from = GUINT32_FROM_LE(e->psn_from) & SNIC_PSN_MASK;
    uint32_t to = GUINT32_FROM_LE(e->psn_to) & SNIC_PSN_MASK;
    uint32_t una = snic_transport_wnd_start(qp);
    uint32_t end = psn_add(una, snic_transport_outstanding(qp));

    /* a range, sent: [from, to) lies below end, within half the space */
    if (qp->state != SNIC_QPS_RTS ||
        psn_dist(end, to) >= psn_dist(end, from) ||
        psn_dist(end, from) > SR_PSN_HALF) {
        return SR_RETRY_REFUSED;
    }
    /*
     * Acknowledged meanwhile, or the requester left recovery by itself
     * (the cumulative ACK passed its end, or its timer or a sequence NAK
     * went back N) after the host decided and before it read the exit:
     * nothing to resend, nothing the host did wrong.
     */
    if (snic_psn_cmp(to, una) <= 0 || !s->req_recovery) {
        return SR_RETRY_STALE;
    }
    snic_transport_mark_rtx(c, qp, snic_psn_cmp(from, una) > 0 ? from : una,
                            to, SNIC_RTX_SACK);
    return SR_RETRY_TAKEN;
}

/* ---- the RetryQ ---- */

bool snic_sr_retry_pending(SnicQp *qp)
{
    SnicSrQp *s = snic_sr_qp(qp);

    return s && s->retryq && s->retry_head != s->retry_tail &&
           (qp->state == SNIC_QPS_RTR || qp->state == SNIC_QPS_RTS) &&
           !snic_dde_rtx_pending(qp);
}

void snic_sr_retry_run(SnicCore *c, SnicQp *qp)
{
    SnicSrQp *s = snic_sr_qp(qp);
    struct snic_sr_retry e;
    SrRetryVerdict v;
    uint64_t at;

    while (snic_sr_retry_pending(qp)) {
        at = s->retryq + (uint64_t)(s->retry_head &
                                    ((1u << s->retry_log2) - 1)) *
             SNIC_SR_RETRYQ_ENTRY;
        if (snic_dma_read(c, at, &e, sizeof(e))) {
            SNIC_GUEST_ERROR(c, GE_SR_RING, 1, qpn_of(c, qp), s->retry_head);
            s->retry_head = s->retry_tail;  /* nothing more to read there */
            return;
        }
        v = GUINT32_FROM_LE(e.qpn) != qpn_of(c, qp) ? SR_RETRY_REFUSED :
            e.type == SNIC_SR_RETRY_EPSN ? retry_epsn(c, qp, s, &e) :
            e.type == SNIC_SR_RETRY_RTX ? retry_rtx(c, qp, s, &e) :
            e.type == SNIC_SR_RETRY_RECV_DONE ?
            retry_recv(c, qp, s, (struct snic_sr_retry_recv *)&e) :
            e.type == SNIC_SR_RETRY_LACK ? snic_sr_retry_lack(c, qp, &e) :
            SR_RETRY_REFUSED;
        if (v == SR_RETRY_STALE) {
            snic_stat_inc(&c->stats.sr_retry_stale);
            SNIC_EVENT(c, SR_RETRY_STALE, qpn_of(c, qp), s->retry_head,
                       e.type, GUINT32_FROM_LE(e.psn_from));
        } else if (v == SR_RETRY_REFUSED) {
            snic_stat_inc(&c->stats.sr_retry_refused);
            SNIC_GUEST_ERROR(c, GE_SR_RETRY, qpn_of(c, qp), s->retry_head,
                             e.type, GUINT32_FROM_LE(e.psn_from));
        }
        s->retry_head++;
    }
}

/* ---- doorbells and admin commands ---- */

void snic_sr_doorbell(SnicCore *c, uint8_t type, uint32_t qid,
                      uint32_t index)
{
    SnicSrCtrlq *q = &c->sr_ctrlq;
    SnicQp *qp;
    SnicSrQp *s;

    if (type == SNIC_DB_SR_CTRLQ) {
        if (qid || !q->base || index - q->head > q->tail - q->head) {
            SNIC_GUEST_ERROR(c, GE_SR_RING, 0, qid, index);
            snic_stat_inc(&c->stats.doorbells_invalid);
            return;
        }
        q->head = index;
        q->overflow_told = false;
        snic_stat_inc(&c->stats.doorbells);
        return;
    }
    qp = snic_qp_get(c, qid);
    s = qp ? snic_sr_qp(qp) : NULL;
    if (!s || !s->retryq || index > UINT16_MAX ||
        (uint16_t)(index - s->retry_head) > 1u << s->retry_log2) {
        SNIC_GUEST_ERROR(c, GE_SR_RING, 1, qid, index);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    s->retry_tail = index;
    snic_stat_inc(&c->stats.doorbells);
    snic_sched_notify(c, qp);
}

/*
 * Without a CtrlQ no QP can report what recovery needs: each SRNIC QP
 * leaves it as go-back-N would have it. The responder keeps its ePSN and
 * the PSNs it placed above it are simply received again (a WRITE's and
 * a SEND's bytes land where they did: placement is idempotent), its
 * sequence NAK asking for them at once; the requester goes back N as on
 * its timeout. RetryQ entries rung so far were decided from bitmaps the
 * host holds no more: stale. A responder owing the host SEND completions
 * (SNIC_SR_CTRL_RESP_RECV told, SNIC_SR_RETRY_RECV_DONE not yet taken)
 * keeps no record of them to finish them by itself, and without a CtrlQ
 * the host never learns when ePSN passes them: BAD_STATE, nothing changed.
 */
static uint16_t ctrlq_remove(SnicCore *c)
{
    uint32_t i, n = c->cfg.max_qp + SNIC_FIRST_QPN;
    SnicSrQp *s;
    SnicQp *qp;

    for (i = 0; i < n; i++) {
        qp = &c->qps[i];
        if (qp->valid && snic_sr_on(qp) &&
            snic_sr_qp(qp)->recv_told != snic_sr_qp(qp)->msg.resp) {
            return SNIC_ADMIN_BAD_STATE;
        }
    }
    memset(&c->sr_ctrlq, 0, sizeof(c->sr_ctrlq));
    for (i = 0; i < n; i++) {
        qp = &c->qps[i];
        if (!qp->valid || !snic_sr_on(qp)) {
            continue;
        }
        s = snic_sr_qp(qp);
        s->ctrl.cur = s->ctrl.prev = 0;     /* the next ring counts anew */
        snic_stat_add(&c->stats.sr_retry_stale,
                      (uint16_t)(s->retry_tail - s->retry_head));
        s->retry_head = s->retry_tail;
        if (s->resp_recovery) {
            resp_exit(c, qp, s);
            qp->resp.nak_sent = true;
            snic_place_queue_ack(c, qp, SNIC_AETH_NAK_SEQ, qp->resp.epsn);
        }
        if (s->req_recovery) {
            s->req_recovery = false;
            SNIC_EVENT(c, SR_RECOVERY, qpn_of(c, qp), 1, 0,
                       snic_transport_wnd_start(qp));
            if (qp->state == SNIC_QPS_RTS && snic_transport_outstanding(qp)) {
                snic_transport_retransmit(c, qp,
                                          snic_transport_wnd_start(qp),
                                          SNIC_RTX_TIMEOUT);
                snic_sched_notify(c, qp);
            }
        }
    }
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_create_sr_ctrlq(SnicCore *c,
                                  const struct snic_admin_cmd *cmd,
                                  uint64_t *result)
{
    const struct snic_admin_create_sr_ctrlq *a = &cmd->create_sr_ctrlq;
    uint64_t base = GUINT64_FROM_LE(a->ring_addr);
    uint16_t vector = GUINT16_FROM_LE(a->vector);

    if (!base) {
        return ctrlq_remove(c);
    }
    if (c->sr_ctrlq.base) {
        return SNIC_ADMIN_BAD_STATE;
    }
    if (a->log2_depth < SNIC_SR_CTRLQ_MIN_LOG2 ||
        a->log2_depth > SNIC_SR_CTRLQ_MAX_LOG2 ||
        vector >= c->cfg.num_vectors) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (base % SNIC_SR_CTRLQ_ENTRY ||
        base + ((uint64_t)SNIC_SR_CTRLQ_ENTRY << a->log2_depth) < base) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    c->sr_ctrlq = (SnicSrCtrlq) {
        .base = base,
        .log2_depth = a->log2_depth,
        .vector = vector,
    };
    /* the contexts' holds count in this ring, from its first entry */
    memset(c->sr_ctx_hold, 0,
           c->cfg.num_db_pages * sizeof(*c->sr_ctx_hold));
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_set_qp_sr(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_set_qp_sr *a = &cmd->set_qp_sr;
    SnicQp *qp = snic_qp_get(c, GUINT32_FROM_LE(a->qpn));
    uint64_t base = GUINT64_FROM_LE(a->ring_addr);
    SnicSrQp *s;

    if (!qp) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    s = snic_sr_qp(qp);
    if (!s) {
        return SNIC_ADMIN_BAD_STATE;
    }
    if ((base && (a->log2_depth < SNIC_SR_RETRYQ_MIN_LOG2 ||
                  a->log2_depth > SNIC_SR_RETRYQ_MAX_LOG2)) ||
        GUINT16_FROM_LE(a->window) > SNIC_SR_SPAN) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (base % SNIC_SR_RETRYQ_ENTRY ||
        (base && base + ((uint64_t)SNIC_SR_RETRYQ_ENTRY << a->log2_depth) <
                 base)) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    s->retryq = base;
    s->retry_log2 = base ? a->log2_depth : 0;
    s->retry_head = s->retry_tail = 0;
    s->window = GUINT16_FROM_LE(a->window);
    if (qp->state == SNIC_QPS_RTS) {
        sr_init(c, qp);
    }
    return SNIC_ADMIN_OK;
}

/* ---- the CtrlQ for sr_read.c ---- */

/*
 * Room for the report of a READ response placed ahead: in the ring and in
 * the QP's quota, both checked before the response is placed, as
 * ctrl_post() would refuse the report after it (a PSN placed the host's
 * bitmap never hears of)
 */
bool snic_sr_ctrl_room(SnicCore *c, SnicQp *qp, uint32_t psn)
{
    if (!ctrl_room(c)) {
        ctrl_lost(c, qp, psn, true);
        return false;
    }
    if (!ctrl_quota_ok(c, qp, 1)) {
        ctrl_refused(c, qp, psn, SNIC_SR_CTRL_REQ_ACK);
        return false;
    }
    return true;
}

bool snic_sr_ctrl_post(SnicCore *c, SnicQp *qp, struct snic_sr_ctrl *e)
{
    return ctrl_post(c, qp, e);
}

static SnicOooMsg *sr_msg(SnicQp *qp)
{
    return &snic_sr_qp(qp)->msg;
}

const SnicProgram snic_program_srnic = {
    .name = "SRNIC",
    .credit = SNIC_CREDIT_WINDOW,
    .ack_policy = SNIC_ACK_IBA,
    .flags = SNIC_PROG_SR,
    .state_bytes = sizeof(SnicSrQp),
    .span = SNIC_SR_SPAN,
    .msg = sr_msg,
    .init = sr_init,
    .incoming = sr_incoming,
    .periodic = sr_periodic,
};

/* SRNIC with DCTCP's window (section 5) in place of the fixed one */
const SnicProgram snic_program_srnic_dctcp = {
    .name = "SRNIC-DCTCP",
    .credit = SNIC_CREDIT_WINDOW,
    .ack_policy = SNIC_ACK_IBA,
    .flags = SNIC_PROG_SR | SNIC_PROG_ECE,
    .state_bytes = sizeof(SrDctcp),
    .span = SNIC_SR_SPAN,
    .msg = sr_msg,
    .init = sr_init,
    .incoming = sr_incoming,
    .periodic = sr_periodic,
};
