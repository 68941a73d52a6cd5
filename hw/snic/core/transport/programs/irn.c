/*
 * snic core: IRN as a Tonic transport program (Tonic, NSDI'20, section
 * 6.1.1, Table 3: "IRN"; Mittal et al., SIGCOMM'18, sections 3.1-3.2),
 * on rate credit at the line rate (IRN needs no congestion control).
 * Selective retransmission: the responder places packets out of order
 * (resp.c, SNIC_PROG_XPORT) and answers each one beyond a gap with its
 * cumulative PSN and the run of PSNs it holds (IRN's NACK, a SACK of one
 * run here), so the requester resends at once, with no DupThresh, the
 * segments below the run it has not resent yet and nothing else; the
 * first NACK starts recovery, which ends when the cumulative ACK passes
 * the highest segment sent by then. BDP-FC: at most IRN_BDP segments in
 * flight (the window). A timeout goes back N (gbn.c), after IRN's two
 * timeouts (3.1): with few segments in flight a lost one is followed by
 * too few to draw a NACK, so RTO_low, short, governs then; otherwise
 * RTO_high, the QP's local ACK timeout (IRN's 320 us is a setting of it).
 * Both count from when the engine armed the timer; which one applies is
 * decided when RTO_low runs out, by the segments in flight then. RTO_low
 * serves once until progress: if its retransmission draws no ACK either,
 * RTO_high follows (a backoff; a path slower than RTO_low, as a VM wire,
 * would otherwise spend the QP's retry count on timeouts of its own).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "transport/transport.h"

/* BDP-FC's cap, in segments: a BDP (64 KiB: 100 Gb/s, 5 us RTT) */
#define IRN_BDP             16
#define psn_add(psn, n)     (((psn) + (n)) & SNIC_PSN_MASK)

/*
 * RTO_low and its N (IRN 3.1: 100 us, N = 3; Tonic's IRN program takes
 * RTO_low when at most N are in flight: in_flight > 3 ? RTO_HIGH : RTO_LOW)
 */
#define IRN_RTO_LOW_NS      100000
#define IRN_RTO_LOW_N       3

typedef struct IrnState {
    SnicOooMap ooo;             /* the responder's map heads the state */
    uint32_t recover;           /* PSN: the highest sent at the 1st NACK */
    uint32_t high_rxt;          /* PSN: below it, resent or SACKed */
    bool in_recovery;
    bool rto_low;               /* the timer runs RTO_low */
    bool rto_rest;              /* ... ran out: arm the rest of RTO_high */
    bool rto_low_spent;         /* ... fired since the last progress */
} IrnState;

static void irn_init(SnicCore *c, SnicQp *qp)
{
    snic_transport_set_rate(c, qp, snic_transport_line_rate(c));
    snic_transport_set_window(c, qp, IRN_BDP);
}

/* A NACK: cumulative PSN una - 1, and PSNs [lo, hi) are at the peer */
static void on_nack(SnicCore *c, SnicQp *qp, IrnState *s, uint32_t lo,
                    uint32_t hi)
{
    uint32_t una = snic_transport_wnd_start(qp);
    uint32_t end = psn_add(una, snic_transport_outstanding(qp)), from;

    if (snic_psn_cmp(lo, una) <= 0 || snic_psn_cmp(hi, end) > 0 ||
        snic_psn_cmp(lo, hi) >= 0) {
        return;     /* not about segments in flight: a stale block */
    }
    if (!s->in_recovery) {
        s->in_recovery = true;
        s->recover = psn_add(end, -1);
        s->high_rxt = una;
    }
    if (snic_dde_rtx_pending(qp)) {
        return;     /* one range at a time: never join two across runs */
    }
    from = snic_psn_cmp(s->high_rxt, una) > 0 ? s->high_rxt : una;
    if (snic_psn_cmp(from, lo) < 0) {
        snic_transport_mark_rtx(c, qp, from, lo, SNIC_RTX_SACK);
    }
    if (snic_psn_cmp(hi, s->high_rxt) > 0) {
        s->high_rxt = hi;
    }
}

static void irn_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    IrnState *s = snic_prog_state(qp);
    SnicFeedback ack = *fb;

    switch (fb->kind) {
    case SNIC_FB_SACK:
    case SNIC_FB_ACK:
        if (fb->progress) {
            s->rto_low_spent = false;
            ack.kind = SNIC_FB_ACK;
            snic_gbn_incoming(c, qp, &ack);     /* retry counters, timer */
            if (s->in_recovery && snic_psn_cmp(fb->psn, s->recover) >= 0) {
                s->in_recovery = false;
            }
        }
        if (fb->kind == SNIC_FB_SACK) {
            on_nack(c, qp, s, fb->sack, fb->sack_end);
        }
        break;
    case SNIC_FB_DUP_ACK:
        break;
    default:
        snic_gbn_incoming(c, qp, fb);   /* NAK (SENDs, READs), RNR */
        break;
    }
}

static void irn_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    IrnState *s = snic_prog_state(qp);
    uint32_t flight = snic_transport_outstanding(qp);

    if (snic_transport_rto_expired(qp, now) && flight) {
        if (s->rto_low && flight > IRN_RTO_LOW_N) {
            s->rto_rest = true;         /* too many out for RTO_low */
            snic_transport_arm_rto(c, qp);
            return;
        }
        s->in_recovery = false;         /* everything goes again */
        s->rto_low_spent = s->rto_low;
    }
    snic_gbn_periodic(c, qp, now);      /* goes back N, counts retries */
}

/* The engine arms the timer: RTO_low first, then what RTO_high adds */
static uint64_t irn_rto(SnicQp *qp, uint64_t timeout_ns)
{
    IrnState *s = snic_prog_state(qp);
    bool rest = s->rto_rest;

    s->rto_rest = false;
    s->rto_low = !rest && !s->rto_low_spent && IRN_RTO_LOW_NS < timeout_ns;
    return rest ? timeout_ns - IRN_RTO_LOW_NS :
           s->rto_low ? IRN_RTO_LOW_NS : timeout_ns;
}

const SnicProgram snic_program_irn = {
    .name = "IRN",
    .credit = SNIC_CREDIT_RATE,
    .ack_policy = SNIC_ACK_TCP,
    .flags = SNIC_PROG_XPORT,
    .state_bytes = sizeof(IrnState),
    .init = irn_init,
    .incoming = irn_incoming,
    .periodic = irn_periodic,
    .rto = irn_rto,
};
