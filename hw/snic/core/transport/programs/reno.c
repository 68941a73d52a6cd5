/*
 * snic core: TCP Reno as a Tonic transport program (Tonic, NSDI'20,
 * section 6.1.1; RFC 5681), in segments: slow start and congestion
 * avoidance; three duplicate ACKs resend the oldest segment, halve the
 * window (cwnd = ssthresh + 3) and inflate it by one per further
 * duplicate; the next new ACK ends recovery with cwnd = ssthresh, so
 * Reno recovers one loss per window by itself (NewReno: partial ACKs).
 * A timeout sets cwnd to one and goes back N (gbn.c). The responder keeps
 * out-of-order data as a TCP receiver does (resp.c, SNIC_PROG_XPORT), so
 * a resent segment's ACK covers what arrived after it; the ACKs' SACK
 * blocks are ignored (snic_tcp_nosack).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "transport/transport.h"
#include "tcp_window.h"

#define RENO_DUPTHRESH      3

typedef struct RenoState {
    SnicOooMap ooo;             /* the responder's map heads the state */
    SnicTcpWindow w;
    uint8_t dupacks;
    bool in_recovery;
} RenoState;

static void reno_init(SnicCore *c, SnicQp *qp)
{
    RenoState *s = snic_prog_state(qp);

    snic_tcp_window_init(&s->w);
    snic_transport_set_window(c, qp, s->w.cwnd);
}

static void reno_dup_ack(SnicCore *c, SnicQp *qp, RenoState *s)
{
    uint32_t una = snic_transport_wnd_start(qp);

    if (s->in_recovery) {
        s->w.cwnd++;
        return;
    }
    if (++s->dupacks != RENO_DUPTHRESH) {
        return;
    }
    s->w.ssthresh = MAX(snic_transport_outstanding(qp) / 2, 2);
    s->w.cwnd = s->w.ssthresh + RENO_DUPTHRESH;
    s->in_recovery = true;
    snic_transport_mark_rtx(c, qp, una, (una + 1) & SNIC_PSN_MASK,
                            SNIC_RTX_DUP_ACKS);
}

static void reno_new_ack(RenoState *s, uint32_t acked)
{
    s->dupacks = 0;
    if (s->in_recovery) {
        s->in_recovery = false;
        s->w.cwnd = s->w.ssthresh;
        s->w.ca_acked = 0;
    } else {
        snic_tcp_window_grow(&s->w, acked);
    }
}

static void reno_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    RenoState *s = snic_prog_state(qp);
    SnicFeedback f = snic_tcp_nosack(fb);

    switch (f.kind) {
    case SNIC_FB_DUP_ACK:
        reno_dup_ack(c, qp, s);
        break;
    case SNIC_FB_ACK:
        snic_gbn_incoming(c, qp, &f);
        if (f.progress) {
            reno_new_ack(s, f.newly_acked);
        }
        break;
    default:
        snic_gbn_incoming(c, qp, &f);
        return;
    }
    snic_transport_set_window(c, qp, s->w.cwnd);
}

static void reno_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    RenoState *s = snic_prog_state(qp);
    uint32_t flight = snic_transport_outstanding(qp);

    if (snic_transport_rto_expired(qp, now) && flight) {
        snic_tcp_window_timeout(&s->w, flight);
        s->dupacks = 0;
        s->in_recovery = false;
        snic_transport_set_window(c, qp, s->w.cwnd);
    }
    snic_gbn_periodic(c, qp, now);
}

const SnicProgram snic_program_reno = {
    .name = "Reno",
    .credit = SNIC_CREDIT_WINDOW,
    .ack_policy = SNIC_ACK_TCP,
    .flags = SNIC_PROG_XPORT,
    .state_bytes = sizeof(RenoState),
    .init = reno_init,
    .incoming = reno_incoming,
    .periodic = reno_periodic,
};
