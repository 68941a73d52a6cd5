/*
 * snic core: IBA go-back-N as a Tonic transport program (Tonic, NSDI'20,
 * section 4: incoming and periodic hooks): a sequence NAK or a timeout
 * resends everything from the PSN in question; RNR NAKs wait out the
 * responder's timer; retry counters count retries without progress.
 * Its hooks are also the reliability of the programs that keep IBA's
 * (DCQCN) or fall back on it for what they do not handle (RNR, READs).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "core_int.h"
#include "engine/rdma.h"

/* RNR NAK timer field -> delay in units of 10 us (IBA 9.7.5.2.8) */
static const uint32_t rnr_delay_10us[32] = {
    65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
    384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
    24576, 32768, 49152,
};

static uint64_t rnr_delay_ns(uint8_t code)
{
    return (uint64_t)rnr_delay_10us[code & 31] * 10000;
}

void snic_gbn_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    SnicReq *r = &qp->req;

    /*
     * The retry counters count retries without forward progress. A
     * sequence NAK past the oldest unacknowledged PSN is progress too: a
     * responder that takes packets in bursts answers a whole burst with
     * one NAK, so on a lossy wire NAKs can follow each other with no ACK
     * between them while the transfer still moves on.
     */
    if (fb->progress) {
        r->retry_left = qp->attr.retry_cnt;
        r->rnr_left = qp->attr.rnr_retry;
    }
    switch (fb->kind) {
    case SNIC_FB_ACK:
        break;
    case SNIC_FB_NAK_SEQ:
        if (!r->retry_left) {
            snic_req_fail(c, qp, SNIC_WC_RETRY_EXC_ERR);
            return;
        }
        r->retry_left--;
        snic_transport_retransmit(c, qp, fb->psn, SNIC_RTX_NAK_SEQ);
        break;
    case SNIC_FB_RNR:
        if (qp->attr.rnr_retry != 7) {      /* 7 means retry for ever */
            if (!r->rnr_left) {
                snic_req_fail(c, qp, SNIC_WC_RNR_RETRY_EXC_ERR);
                return;
            }
            r->rnr_left--;
        }
        r->rnr_psn = fb->psn;
        /* waiting out an RNR is not a timeout: it replaces the RTO */
        r->deadline = c->ops->now_ns(c->opaque) + rnr_delay_ns(fb->syndrome);
        r->rnr_wait = true;
        SNIC_EVENT(c, RNR_WAIT, qp - c->qps, fb->psn,
                   rnr_delay_ns(fb->syndrome));
        snic_qp_timer_sync(c, qp);
        return;
    default:
        return;     /* no congestion control, no selective feedback */
    }
    snic_req_arm_rto(c, qp);
}

bool snic_gbn_timeout(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SnicReq *r = &qp->req;

    /* the one transport deadline: an RNR wait's end or the RTO */
    if (r->rnr_wait) {
        if (now >= r->deadline) {
            snic_req_disarm(r);
            snic_transport_retransmit(c, qp, r->rnr_psn, SNIC_RTX_RNR);
            snic_req_arm_rto(c, qp);
        }
        return false;
    }
    if (r->deadline == UINT64_MAX || now < r->deadline) {
        return false;
    }
    r->deadline = UINT64_MAX;
    if (!snic_dde_outstanding(r)) {
        return false;
    }
    SNIC_EVENT(c, TIMEOUT, qp - c->qps, r->dde.wnd_start, r->retry_left);
    if (!r->retry_left) {
        snic_req_fail(c, qp, SNIC_WC_RETRY_EXC_ERR);
        return false;
    }
    r->retry_left--;
    snic_req_arm_rto(c, qp);
    return true;
}

void snic_gbn_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    if (snic_gbn_timeout(c, qp, now)) {
        snic_transport_retransmit(c, qp, qp->req.dde.wnd_start,
                                  SNIC_RTX_TIMEOUT);
    }
}

const SnicProgram snic_program_gbn = {
    .name = "go-back-N",
    .credit = SNIC_CREDIT_WINDOW,
    .ack_policy = SNIC_ACK_IBA,
    .incoming = snic_gbn_incoming,
    .periodic = snic_gbn_periodic,
};
