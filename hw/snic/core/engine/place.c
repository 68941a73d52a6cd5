/*
 * snic core: the responder's placement layer, shared by the in-order
 * responder (resp.c), its placement ahead of ePSN for the selective
 * programs (resp_ooo.c) and SRNIC (srnic/): a WRITE packet's payload
 * placed at its message's next address or where its extension header
 * says, a SEND packet's into the receive WQE its message number names,
 * ePSN moved and the message numbers with it, and the one ACK/NAK a QP
 * has queued for the engine to send; at the requester, a READ response
 * placed through its WQE's SGEs whatever its order (SRNIC's). Every WRITE
 * payload placed here, in order or not, is also a QP's HyperLogLog
 * sketch's input (strom/hll.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "core_int.h"
#include "engine/place.h"
#include "engine/wq.h"
#include "port/wire.h"
#include "engine/rdma.h"
#include "engine/scheduler.h"
#include "objects/mr.h"
#include "objects/mtt.h"
#include "objects/mw.h"
#include "objects/qp.h"
#include "strom/hll.h"
#include "transport/transport.h"

/*
 * Queue the ACK/NAK to send. One slot: a fatal NAK is never replaced, an
 * ACK never replaces an RNR NAK still waiting to go out, and replaces a
 * sequence NAK only when it acknowledges the NAK's PSN (the gap filled):
 * a duplicate's re-ACK, for older PSNs, leaves the NAK to go out.
 */
void snic_place_queue_ack(SnicCore *c, SnicQp *qp, uint8_t syn, uint32_t psn)
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
void snic_place_dup_ack(SnicCore *c, SnicQp *qp)
{
    SnicResp *s = &qp->resp;
    uint32_t psn = (s->epsn - 1) & SNIC_PSN_MASK;

    s->nak_sent = true;     /* a gap: the packet that fills it is ACKed */
    if (s->ack_pending && s->ack_syndrome == SNIC_AETH_ACK &&
        s->ack_psn == psn) {
        s->ack_copies += s->ack_copies < UINT8_MAX;
        return;
    }
    snic_place_queue_ack(c, qp, SNIC_AETH_ACK, psn);
}

/* A fatal NAK: sent, then the QP goes to the error state (send_ack). */
void snic_place_nak_fatal(SnicCore *c, SnicQp *qp, uint8_t syn, uint32_t psn)
{
    snic_place_queue_ack(c, qp, syn, psn);
    qp->resp.fatal = true;
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
bool snic_place_in_message(const SnicQp *qp)
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
void snic_place_epsn_advance(SnicQp *qp, uint32_t n)
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
 * The map covers [ePSN, ePSN + SNIC_TX_WINDOW) modulo its size: gone back
 * n PSNs, the bits of the n at its far end would read as the n it gains
 * at its start, so they go, as a packet dropped ahead of ePSN goes (its
 * requester sends it again). Only a QP that holds an SRQ receive goes
 * back, and an SRQ's messages are never placed ahead (msg_wqe()): no
 * Last's completion slot is in use.
 */
void snic_place_epsn_rewind(SnicQp *qp, uint32_t n)
{
    SnicOooMap *m = snic_prog_ooo(qp);
    SnicTrimMap *t = snic_prog_trim(qp);
    SnicResp *s = &qp->resp;
    uint32_t i, psn;

    for (i = 1; m && i <= MIN(n, SNIC_TX_WINDOW); i++) {
        psn = s->epsn + SNIC_TX_WINDOW - i;
        snic_psnmap_set(m->placed, psn, false);
        snic_psnmap_set(m->last, psn, false);
        snic_psnmap_set(m->send, psn, false);
        snic_psnmap_set(m->first, psn, false);
        if (t) {
            snic_psnmap_set(t->nack, psn, false);
        }
    }
    s->epsn = (s->epsn - n) & SNIC_PSN_MASK;
}

/*
 * A message that took a receive WQE completed: the next message number
 * (SnicOooMsg) names the RQ's new head.
 */
void snic_place_msg_done(SnicQp *qp)
{
    SnicOooMsg *m = snic_prog_msg(qp);

    if (m) {
        m->resp++;
    }
}

/*
 * Write a WRITE packet where its extension header says: SNIC_AETH_ACK, or
 * the NAK it deserves. The op-code sequence is known only at ePSN
 * (at_epsn): there, as in order, a message continues only what it started
 * (IBA 9.7.5.1.1); ahead of it, a SEND still open may end before the
 * packet. Shared by the selective programs' placement and SRNIC's.
 */
uint8_t snic_place_write_at(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                            bool at_epsn)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp);
    SnicMrCheck why;
    SnicMr *mr;

    if (!(qp->attr.access & SNIC_ACCESS_REMOTE_WRITE) ||
        !(p->xeth.flags & SNIC_XETH_F_PLACE) ||
        (!is_last(p->opcode) && p->payload_len != mtu) ||
        p->payload_len > mtu ||
        (at_epsn && (is_first(p->opcode) ? snic_place_in_message(qp) :
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
        snic_hll_feed(c, qp, p->payload, p->payload_len);
    }
    return SNIC_AETH_ACK;
}

/*
 * The receive WQE a message-numbered packet (SEND, WRITE with immediate:
 * SNIC_XETH_F_MSG) d PSNs from ePSN names, k messages after the RQ's
 * head; false if it may not be placed out of order (the reasons are
 * snic_place_send()'s): its number and offset must be ones its
 * PSN allows, and that WQE must be posted.
 */
static bool msg_wqe(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                    uint32_t d, uint32_t lag, struct snic_rq_wqe *w)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp), off = p->xeth.offset;
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
 * snic_place_send())? For SRNIC's WRITE with immediate, whose
 * bytes go to its address, not to that WQE (sr.c).
 */
bool snic_place_msg_posted(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                           uint32_t d, uint32_t lag)
{
    struct snic_rq_wqe w;

    return msg_wqe(c, qp, p, d, lag, &w);
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
bool snic_place_send(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                          uint32_t d, uint32_t lag)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp), off = p->xeth.offset;
    struct snic_rq_wqe w;

    return (is_last(p->opcode) || p->payload_len == mtu) &&
           p->payload_len <= mtu && msg_wqe(c, qp, p, d, lag, &w) &&
           snic_sge_scatter_check(c, qp->pdn, w.sge, w.num_sge, off,
                                  p->payload_len) == SNIC_WC_SUCCESS &&
           snic_sge_scatter(c, qp - c->qps, qp->pdn, w.sge, w.num_sge, off,
                            p->payload, p->payload_len) == SNIC_WC_SUCCESS;
}

/*
 * Place a WRITE packet's payload at its message's next address through
 * the message's R_Key (a First or Only packet's RETH starts the message,
 * bounded to 2 GiB): SNIC_AETH_ACK, or the NAK that refuses it.
 */
uint8_t snic_place_write(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                         bool first, bool last)
{
    SnicResp *s = &qp->resp;
    SnicMrCheck why;
    SnicMr *mr;

    if (first) {
        if (p->reth.len > (1u << 31)) {
            return SNIC_AETH_NAK_INV_REQ;
        }
        s->write_va = p->reth.va;
        s->write_rkey = p->reth.rkey;
        s->write_len = s->write_left = p->reth.len;
    }
    if (p->payload_len > s->write_left ||
        (last && p->payload_len != s->write_left)) {
        return SNIC_AETH_NAK_INV_REQ;   /* length mismatch */
    }
    if (p->payload_len) {
        mr = snic_rkey_check(c, qp, s->write_rkey, SNIC_ACCESS_REMOTE_WRITE,
                             s->write_va, p->payload_len, &why);
        if (!mr || snic_xlate_failed(c, qp - c->qps,
                                     snic_mtt_write(c, &mr->mtt, s->write_va,
                                                    p->payload,
                                                    p->payload_len))) {
            return SNIC_AETH_NAK_REM_ACCESS;
        }
        snic_hll_feed(c, qp, p->payload, p->payload_len);
    }
    s->write_va += p->payload_len;
    s->write_left -= p->payload_len;
    return SNIC_AETH_ACK;
}


int snic_place_read_response(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp), s, off, want, req;
    SnicReqWqe e;
    uint8_t st;
    int found;

    found = snic_sq_read_named(c, qp, p->xeth.sq_index, p->psn, p->xeth.va,
                               &e);
    if (found <= 0) {
        return found;           /* not the READ in flight it names */
    }
    /* the request it echoes: in the same READ, not after the response */
    s = (p->psn - e.info.first_psn) & SNIC_PSN_MASK;
    req = (p->xeth.msg - e.info.first_psn) & SNIC_PSN_MASK;
    if (req > s ||
        ((p->xeth.msg + p->xeth.offset) & SNIC_PSN_MASK) != p->psn ||
        p->xeth.offset > s) {
        return 0;
    }
    off = s * mtu;
    want = e.info.len > off ? MIN(mtu, e.info.len - off) : 0;
    if (p->payload_len != want) {
        return 0;
    }
    st = snic_sge_scatter(c, qp - c->qps, qp->pdn, e.w.sge, e.w.num_sge, off,
                          p->payload, want);
    if (st != SNIC_WC_SUCCESS) {
        snic_sq_fail_local(c, qp, e.index, st);
        return -1;
    }
    return 1;
}
