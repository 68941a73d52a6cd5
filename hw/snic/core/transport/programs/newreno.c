/*
 * snic core: TCP NewReno as a Tonic transport program (Tonic, NSDI'20,
 * section 6.1.1 and Appendix D; RFC 6582 over RFC 5681), in segments.
 * Three duplicate ACKs start a fast retransmit of the oldest segment,
 * halve the window (ssthresh = FlightSize / 2, cwnd = ssthresh + 3) and
 * remember the highest segment sent (recover); each further duplicate
 * inflates cwnd by one; a partial ACK (below recover) resends the next
 * oldest segment and deflates cwnd by what it acknowledged, less one; a
 * full ACK ends recovery with cwnd = ssthresh (RFC 6582 3.2 step 3,
 * option 2). A timeout sets cwnd to one and goes back N (gbn.c). The
 * responder acknowledges as TCP does (SNIC_ACK_TCP) and keeps out-of-order
 * data as a TCP receiver (resp.c, SNIC_PROG_XPORT), so a resent segment's
 * ACK covers what arrived after it; SACK blocks are ignored (RFC 6582).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "transport/transport.h"
#include "tcp_window.h"

#define NEWRENO_DUPTHRESH   3

typedef struct NewRenoState {
    SnicOooMap ooo;             /* the responder's map heads the state */
    SnicTcpWindow w;
    uint32_t recover;           /* PSN: the highest sent at loss */
    uint8_t dupacks;
    bool in_recovery;
} NewRenoState;

static void newreno_init(SnicCore *c, SnicQp *qp)
{
    NewRenoState *s = snic_prog_state(qp);

    snic_tcp_window_init(&s->w);
    /* RFC 6582's initial recover is the SYN's number: the PSN before */
    s->recover = (snic_transport_wnd_start(qp) - 2) & SNIC_PSN_MASK;
    snic_transport_set_window(c, qp, s->w.cwnd);
}

/* The highest PSN sent so far */
static uint32_t highest_sent(const SnicQp *qp)
{
    return (snic_transport_wnd_start(qp) + snic_transport_outstanding(qp) -
            1) & SNIC_PSN_MASK;
}

static void dup_ack(SnicCore *c, SnicQp *qp, NewRenoState *s, uint32_t ack)
{
    uint32_t flight = snic_transport_outstanding(qp);
    uint32_t una = snic_transport_wnd_start(qp);

    if (s->in_recovery) {
        s->w.cwnd++;                      /* inflate: one more has left */
        return;
    }
    if (++s->dupacks != NEWRENO_DUPTHRESH ||
        snic_psn_cmp(ack, s->recover) <= 0) {
        return;     /* not yet, or still about the last loss (RFC 6582 3.2) */
    }
    s->w.ssthresh = MAX(flight / 2, 2);
    s->w.cwnd = s->w.ssthresh + NEWRENO_DUPTHRESH;
    s->recover = highest_sent(qp);
    s->in_recovery = true;
    snic_transport_mark_rtx(c, qp, una, (una + 1) & SNIC_PSN_MASK,
                            SNIC_RTX_DUP_ACKS);
}

static void new_ack(SnicCore *c, SnicQp *qp, NewRenoState *s,
                    const SnicFeedback *fb)
{
    uint32_t una = snic_transport_wnd_start(qp);

    s->dupacks = 0;
    if (s->in_recovery) {
        if (snic_psn_cmp(fb->psn, s->recover) >= 0) {
            s->in_recovery = false;     /* full ACK: deflate */
            s->w.cwnd = s->w.ssthresh;
            s->w.ca_acked = 0;
            return;
        }
        /* partial ACK: the next hole, and deflate by what it acked */
        snic_transport_mark_rtx(c, qp, una, (una + 1) & SNIC_PSN_MASK,
                                SNIC_RTX_PARTIAL_ACK);
        s->w.cwnd = s->w.cwnd > fb->newly_acked ? s->w.cwnd - fb->newly_acked : 0;
        s->w.cwnd += fb->newly_acked >= 1;
        s->w.cwnd = MAX(s->w.cwnd, 1);
        return;
    }
    snic_tcp_window_grow(&s->w, fb->newly_acked);
}

static void newreno_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    NewRenoState *s = snic_prog_state(qp);
    SnicFeedback f = snic_tcp_nosack(fb);

    switch (f.kind) {
    case SNIC_FB_DUP_ACK:
        dup_ack(c, qp, s, f.psn);
        break;
    case SNIC_FB_ACK:
        snic_gbn_incoming(c, qp, &f);   /* retry counters, timer */
        if (f.progress) {
            new_ack(c, qp, s, &f);
        }
        break;
    default:
        snic_gbn_incoming(c, qp, &f);   /* NAK (a lost response), RNR */
        return;
    }
    snic_transport_set_window(c, qp, s->w.cwnd);
}

static void newreno_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    NewRenoState *s = snic_prog_state(qp);
    uint32_t flight = snic_transport_outstanding(qp);

    if (snic_transport_rto_expired(qp, now) && flight) {
        /* RFC 5681 (7): loss by timeout; RFC 6582 4: recover = highest */
        snic_tcp_window_timeout(&s->w, flight);
        s->dupacks = 0;
        s->in_recovery = false;
        s->recover = highest_sent(qp);
        snic_transport_set_window(c, qp, s->w.cwnd);
    }
    snic_gbn_periodic(c, qp, now);      /* goes back N, counts retries */
}

const SnicProgram snic_program_newreno = {
    .name = "NewReno",
    .credit = SNIC_CREDIT_WINDOW,
    .ack_policy = SNIC_ACK_TCP,
    .flags = SNIC_PROG_XPORT,
    .state_bytes = sizeof(NewRenoState),
    .init = newreno_init,
    .incoming = newreno_incoming,
    .periodic = newreno_periodic,
};
