/*
 * snic core: DCTCP as a Tonic transport program (DCTCP, Alizadeh et al.,
 * SIGCOMM'10, section 3.1; RFC 8257 section 3; SRNIC, NSDI'23, section 5
 * chose it for its window), on a congestion window in segments, over
 * go-back-N delivery.
 *
 * Switches mark CE above a queue threshold K (sim-switch.c); the
 * responder counts CE-marked data packets and every ACK carries the
 * count (SNIC_PROG_ECE: struct snic_xeth, SNIC_XETH_F_ECE, only on QPs
 * whose both ends chose DCTCP). A running count, not TCP's ECE bit, so a
 * lost ACK loses no marks. The window, alpha and the cuts are
 * dctcp_window.h's (RFC 8257 3.3; shared with SRNIC's DCTCP). Loss, as
 * conventional TCP (RFC 8257 3.5): the DupThresh-th duplicate ACK halves
 * cwnd (once a round trip, as a cut) and goes back N from the oldest
 * segment, since the go-back-N responder dropped everything after the
 * hole; a timeout sets cwnd to one and goes back N (gbn.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "transport/transport.h"
#include "dctcp_window.h"

#define DCTCP_DUPTHRESH     3

typedef struct DctcpState {
    SnicCeEcho echo;            /* the responder's count heads the state */
    SnicDctcpWindow w;
    uint32_t rtx_una;           /* PSN: where the last go-back started */
    uint8_t dupacks;
} DctcpState;

static void dctcp_init(SnicCore *c, SnicQp *qp)
{
    DctcpState *s = snic_prog_state(qp);

    snic_dctcp_init(qp, &s->w, SNIC_TX_WINDOW);
    s->rtx_una = (s->w.win_end - 1) & SNIC_PSN_MASK;
    snic_transport_set_window(c, qp, snic_dctcp_segments(&s->w));
}

/* RFC 8257 3.5: a loss halves the window like TCP's; go back N */
static void dup_ack(SnicCore *c, SnicQp *qp, DctcpState *s, uint32_t ack)
{
    uint32_t una = snic_transport_wnd_start(qp);

    s->dupacks += s->dupacks < UINT8_MAX;
    if (s->dupacks != DCTCP_DUPTHRESH ||
        snic_psn_cmp(ack, s->rtx_una) < 0) {
        return;     /* not yet, or about segments already sent again */
    }
    snic_dctcp_cut(qp, &s->w, s->w.cwnd / 2);
    s->rtx_una = una;
    snic_transport_retransmit(c, qp, una, SNIC_RTX_DUP_ACKS);
}

static void dctcp_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    DctcpState *s = snic_prog_state(qp);
    uint32_t marks = snic_dctcp_marks(&s->w, fb);

    switch (fb->kind) {
    case SNIC_FB_DUP_ACK:
        s->w.win_marked += marks;
        if (marks) {
            snic_dctcp_marked(qp, &s->w);
        }
        dup_ack(c, qp, s, fb->psn);
        break;
    case SNIC_FB_ACK:
        snic_gbn_incoming(c, qp, fb);   /* retry counters, timer */
        s->dupacks = fb->progress ? 0 : s->dupacks;
        snic_dctcp_ack(qp, &s->w, fb, marks, true, SNIC_TX_WINDOW);
        break;
    case SNIC_FB_NAK_SEQ:
        /* a lost READ response or a NAK: gone back N by gbn.c */
        snic_gbn_incoming(c, qp, fb);
        snic_dctcp_cut(qp, &s->w, s->w.cwnd / 2);
        break;
    default:
        snic_gbn_incoming(c, qp, fb);   /* RNR */
        return;
    }
    snic_transport_set_window(c, qp, snic_dctcp_segments(&s->w));
}

static void dctcp_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    DctcpState *s = snic_prog_state(qp);
    uint32_t flight = snic_transport_outstanding(qp);

    if (snic_transport_rto_expired(qp, now) && flight) {
        snic_dctcp_timeout(qp, &s->w, flight);
        s->dupacks = 0;
        s->rtx_una = snic_transport_wnd_start(qp);
        snic_transport_set_window(c, qp, snic_dctcp_segments(&s->w));
    }
    snic_gbn_periodic(c, qp, now);      /* goes back N, counts retries */
}

const SnicProgram snic_program_dctcp = {
    .name = "DCTCP",
    .credit = SNIC_CREDIT_WINDOW,
    .ack_policy = SNIC_ACK_TCP,
    .flags = SNIC_PROG_ECE,
    .state_bytes = sizeof(DctcpState),
    .init = dctcp_init,
    .incoming = dctcp_incoming,
    .periodic = dctcp_periodic,
};
