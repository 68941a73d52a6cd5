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
 * lost ACK loses no marks. The requester, per RFC 8257 3.3:
 *  - counts the segments acknowledged and the marks echoed; once per
 *    window of data (when the cumulative ACK passes the PSN that was next
 *    to send when the window began), F = marked / acked and
 *    alpha = (1 - g) alpha + g F;
 *  - an ACK bringing new marks cuts cwnd = cwnd (1 - alpha / 2), at most
 *    once a round trip (no cut until the ACK passes what was sent by the
 *    last cut, as RFC 3168 6.1.2); it does not grow the window;
 *  - any other ACK grows it: slow start below ssthresh, else one segment
 *    a window (cwnd += acked / cwnd);
 *  - loss, as conventional TCP (RFC 8257 3.5): the DupThresh-th duplicate
 *    ACK halves cwnd (once a round trip, as a cut) and goes back N from
 *    the oldest segment, since the go-back-N responder dropped everything
 *    after the hole; a timeout sets cwnd to one and goes back N (gbn.c).
 * The window is kept in 1/256 segments: with 16 flows sharing one link a
 * window is a few segments, and a cut of alpha / 2 of it must not round
 * to nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "core_int.h"
#include "rdma.h"
#include "wire.h"
#include "tcp_window.h"

/* g = 1/16: the DCTCP paper's gain (section 3.4), RFC 8257's example */
#define DCTCP_G_SHIFT       4
#define DCTCP_ALPHA_ONE     (1u << 16)          /* alpha in Q16 */
#define DCTCP_SEG           256u                /* cwnd in 1/256 segments */
#define DCTCP_MIN_CWND      (2 * DCTCP_SEG)     /* RFC 8257 3.3: 2 MSS */
#define DCTCP_DUPTHRESH     3

typedef struct DctcpState {
    SnicCeEcho echo;            /* the responder's count heads the state */
    uint32_t cwnd;              /* 1/256 segments */
    uint32_t ssthresh;          /* 1/256 segments */
    uint32_t alpha;             /* Q16, 0 .. DCTCP_ALPHA_ONE */
    uint32_t ce_seen;           /* the peer's CE count, as last echoed */
    uint32_t win_acked;         /* this observation window: segments */
    uint32_t win_marked;        /* ... and the marks echoed for them */
    uint32_t win_end;           /* PSN: the window ends when una passes */
    uint32_t cut_end;           /* PSN: no cut until una passes it */
    uint32_t rtx_una;           /* PSN: where the last go-back started */
    uint8_t dupacks;
} DctcpState;

static void dctcp_init(SnicCore *c, SnicQp *qp)
{
    DctcpState *s = snic_prog_state(qp);

    s->cwnd = SNIC_TCP_IW * DCTCP_SEG;
    s->ssthresh = SNIC_TX_WINDOW * DCTCP_SEG;
    /* 1: the first marked window halves, as standard ECN would */
    s->alpha = DCTCP_ALPHA_ONE;
    s->win_end = s->cut_end = snic_transport_wnd_start(qp);
    s->rtx_una = (s->win_end - 1) & SNIC_PSN_MASK;
    snic_transport_set_window(c, qp, s->cwnd / DCTCP_SEG);
}

/* The one window reduction a round trip may have (marks or loss) */
static void cut(const SnicQp *qp, DctcpState *s, uint32_t cwnd)
{
    if (snic_psn_cmp(snic_transport_wnd_start(qp), s->cut_end) >= 0) {
        s->cwnd = s->ssthresh = MAX(cwnd, DCTCP_MIN_CWND);
        s->cut_end = snic_transport_snd_nxt(qp);
    }
}

/* RFC 8257 3.3 steps 4-9: at a window's end, alpha from its fraction */
static void observe(const SnicQp *qp, DctcpState *s)
{
    uint32_t f;

    if (snic_psn_cmp(snic_transport_wnd_start(qp), s->win_end) < 0) {
        return;
    }
    if (s->win_acked) {
        /* marks may exceed what they acknowledge (resent segments) */
        f = (uint64_t)MIN(s->win_marked, s->win_acked) * DCTCP_ALPHA_ONE /
            s->win_acked;
        s->alpha = s->alpha - (s->alpha >> DCTCP_G_SHIFT) +
                   (f >> DCTCP_G_SHIFT);
    }
    s->win_acked = s->win_marked = 0;
    s->win_end = snic_transport_snd_nxt(qp);
}

/* New marks: cut by alpha / 2, once a round trip */
static void marked(const SnicQp *qp, DctcpState *s)
{
    cut(qp, s, s->cwnd - (uint32_t)(((uint64_t)s->cwnd * s->alpha) >> 17));
}

/* An ACK without marks: slow start, else congestion avoidance */
static void grow(DctcpState *s, uint32_t acked)
{
    if (s->cwnd < s->ssthresh) {
        s->cwnd += acked * DCTCP_SEG;
    } else {
        s->cwnd += (uint64_t)acked * DCTCP_SEG * DCTCP_SEG / s->cwnd;
    }
    s->cwnd = MIN(s->cwnd, SNIC_TX_WINDOW * DCTCP_SEG);
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
    cut(qp, s, s->cwnd / 2);
    s->rtx_una = una;
    snic_transport_retransmit(c, qp, una, SNIC_RTX_DUP_ACKS);
}

static void dctcp_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    DctcpState *s = snic_prog_state(qp);
    uint32_t marks = 0;

    if (fb->ece && (int32_t)(fb->ce_count - s->ce_seen) > 0) {
        marks = fb->ce_count - s->ce_seen;  /* older counts: reordered */
        s->ce_seen = fb->ce_count;
    }
    switch (fb->kind) {
    case SNIC_FB_DUP_ACK:
        s->win_marked += marks;
        if (marks) {
            marked(qp, s);
        }
        dup_ack(c, qp, s, fb->psn);
        break;
    case SNIC_FB_ACK:
        snic_gbn_incoming(c, qp, fb);   /* retry counters, timer */
        s->win_marked += marks;
        s->win_acked += fb->newly_acked;
        s->dupacks = fb->progress ? 0 : s->dupacks;
        observe(qp, s);
        if (marks) {
            marked(qp, s);
        } else if (fb->progress) {
            grow(s, fb->newly_acked);
        }
        break;
    case SNIC_FB_NAK_SEQ:
        /* a lost READ response or a NAK: gone back N by gbn.c */
        snic_gbn_incoming(c, qp, fb);
        cut(qp, s, s->cwnd / 2);
        break;
    default:
        snic_gbn_incoming(c, qp, fb);   /* RNR */
        return;
    }
    snic_transport_set_window(c, qp, s->cwnd / DCTCP_SEG);
}

static void dctcp_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    DctcpState *s = snic_prog_state(qp);
    uint32_t flight = snic_transport_outstanding(qp);

    if (snic_transport_rto_expired(qp, now) && flight) {
        /* RFC 5681 (4): ssthresh from the flight, one segment */
        s->ssthresh = MAX(flight * DCTCP_SEG / 2, DCTCP_MIN_CWND);
        s->cwnd = DCTCP_SEG;
        s->dupacks = 0;
        s->rtx_una = snic_transport_wnd_start(qp);
        s->cut_end = snic_transport_snd_nxt(qp);
        snic_transport_set_window(c, qp, s->cwnd / DCTCP_SEG);
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
