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
#include "transport/transport.h"

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
    /*
     * The retry counters count retries without forward progress. A
     * sequence NAK past the oldest unacknowledged PSN is progress too: a
     * responder that takes packets in bursts answers a whole burst with
     * one NAK, so on a lossy wire NAKs can follow each other with no ACK
     * between them while the transfer still moves on.
     */
    if (fb->progress) {
        snic_transport_retries_reload(qp);
    }
    switch (fb->kind) {
    case SNIC_FB_ACK:
        break;
    case SNIC_FB_NAK_SEQ:
        if (!snic_transport_retries_left(qp, SNIC_RETRY_TRANSPORT)) {
            snic_transport_fail(c, qp, SNIC_WC_RETRY_EXC_ERR);
            return;
        }
        snic_transport_retry_used(qp, SNIC_RETRY_TRANSPORT);
        snic_transport_retransmit(c, qp, fb->psn, SNIC_RTX_NAK_SEQ);
        break;
    case SNIC_FB_RNR:
        if (!snic_transport_retries_left(qp, SNIC_RETRY_RNR)) {
            snic_transport_fail(c, qp, SNIC_WC_RNR_RETRY_EXC_ERR);
            return;
        }
        snic_transport_retry_used(qp, SNIC_RETRY_RNR);
        snic_transport_rnr_wait(c, qp, fb->psn, rnr_delay_ns(fb->syndrome));
        return;
    default:
        return;     /* no congestion control, no selective feedback */
    }
    snic_transport_arm_rto(c, qp);
}

bool snic_gbn_timeout(SnicCore *c, SnicQp *qp, uint64_t now)
{
    uint32_t left;

    /* the one transport deadline: an RNR wait's end or the RTO */
    if (snic_transport_rnr_waiting(c, qp, now) ||
        !snic_transport_rto_fired(qp, now) ||
        !snic_transport_outstanding(qp)) {
        return false;
    }
    left = snic_transport_retries_left(qp, SNIC_RETRY_TRANSPORT);
    SNIC_TRANSPORT_EVENT(c, TIMEOUT, snic_transport_qpn(c, qp),
                         snic_transport_wnd_start(qp), left);
    if (!left) {
        snic_transport_fail(c, qp, SNIC_WC_RETRY_EXC_ERR);
        return false;
    }
    snic_transport_retry_used(qp, SNIC_RETRY_TRANSPORT);
    snic_transport_arm_rto(c, qp);
    return true;
}

void snic_gbn_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    if (snic_gbn_timeout(c, qp, now)) {
        snic_transport_retransmit(c, qp, snic_transport_wnd_start(qp),
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
