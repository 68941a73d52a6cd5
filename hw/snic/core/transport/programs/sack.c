/*
 * snic core: TCP SACK loss recovery as a Tonic transport program (Tonic,
 * NSDI'20, section 6.1.1: "SACK"; RFC 6675 with RFC 2018's blocks, one
 * block per ACK), in segments. The responder places packets out of order
 * (resp.c, SNIC_PROG_XPORT) and each ACK says which run of PSNs beyond the
 * cumulative one it holds; the requester keeps a scoreboard of SACKed
 * segments. A hole with DupThresh SACKed segments above it is lost
 * (IsLost): the first one starts recovery (ssthresh = FlightSize / 2,
 * cwnd = ssthresh, recover = highest sent) and from then on each hole
 * below the highest SACKed segment is resent once (HighRxt), and nothing
 * SACKed ever is. SACKed segments have left the network: the window is
 * cwnd plus them (RFC 6675's pipe). A timeout: cwnd 1, back N (gbn.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "transport/transport.h"
#include "tcp_window.h"

#define SACK_DUPTHRESH      3
#define psn_add(psn, n)     (((psn) + (n)) & SNIC_PSN_MASK)
#define SACKED(s, psn)      snic_psnmap_get((s)->sacked, (psn))

typedef struct SackState {
    SnicOooMap ooo;             /* the responder's map heads the state */
    uint32_t sacked[SNIC_TX_WINDOW / 32];  /* scoreboard (snic_psnmap) */
    SnicTcpWindow w;
    uint32_t recover;           /* PSN: the highest sent at loss */
    uint32_t high_rxt;          /* PSN: holes below it were resent */
    uint32_t high_sacked;       /* PSN after the highest SACKed one */
    bool in_recovery;
} SackState;

/* SACKed segments in flight from 'from' on */
static uint32_t sacked_from(const SnicQp *qp, const SackState *s,
                            uint32_t from)
{
    uint32_t una = snic_transport_wnd_start(qp), i, n = 0;

    for (i = (from - una) & SNIC_PSN_MASK;
         i < snic_transport_outstanding(qp); i++) {
        n += SACKED(s, psn_add(una, i));
    }
    return n;
}

static void set_window(SnicCore *c, SnicQp *qp, SackState *s)
{
    snic_transport_set_window(c, qp, s->w.cwnd +
                              sacked_from(qp, s, snic_transport_wnd_start(qp)));
}

static void sack_init(SnicCore *c, SnicQp *qp)
{
    SackState *s = snic_prog_state(qp);

    snic_tcp_window_init(&s->w);
    s->high_sacked = s->high_rxt = s->recover = snic_transport_wnd_start(qp);
    snic_transport_set_window(c, qp, s->w.cwnd);
}

/*
 * RFC 6675 NextSeg() rule 1, one hole at a time (the engine keeps one
 * range to resend): the first unSACKed run at or above HighRxt, below the
 * highest SACKed segment, if it is lost (DupThresh SACKed above it).
 */
static void next_hole(SnicCore *c, SnicQp *qp, SackState *s)
{
    uint32_t una = snic_transport_wnd_start(qp), from, to;

    if (snic_dde_rtx_pending(qp)) {
        return;     /* one range at a time: never join two across SACKs */
    }
    from = snic_psn_cmp(s->high_rxt, una) > 0 ? s->high_rxt : una;
    while (snic_psn_cmp(from, s->high_sacked) < 0 && SACKED(s, from)) {
        from = psn_add(from, 1);
    }
    if (snic_psn_cmp(from, s->high_sacked) >= 0 ||
        sacked_from(qp, s, from) < SACK_DUPTHRESH) {
        return;
    }
    to = from;
    while (snic_psn_cmp(to, s->high_sacked) < 0 && !SACKED(s, to)) {
        to = psn_add(to, 1);
    }
    snic_transport_mark_rtx(c, qp, from, to, SNIC_RTX_SACK);
    s->high_rxt = to;
}

static void on_sack(SnicCore *c, SnicQp *qp, SackState *s, uint32_t lo,
                    uint32_t hi)
{
    uint32_t una = snic_transport_wnd_start(qp);
    uint32_t end = psn_add(una, snic_transport_outstanding(qp)), p;

    if (snic_psn_cmp(lo, una) < 0 || snic_psn_cmp(hi, end) > 0 ||
        snic_psn_cmp(lo, hi) >= 0) {
        return;     /* not about segments in flight: a stale block */
    }
    for (p = lo; p != hi; p = psn_add(p, 1)) {
        snic_psnmap_set(s->sacked, p, true);
    }
    s->high_sacked = snic_psn_cmp(hi, s->high_sacked) > 0 ? hi : s->high_sacked;
    if (!s->in_recovery && !SACKED(s, una) &&
        snic_psn_cmp(una, s->recover) > 0 &&
        sacked_from(qp, s, una) >= SACK_DUPTHRESH) {
        s->w.ssthresh = MAX((snic_transport_outstanding(qp) -
                           sacked_from(qp, s, una)) / 2, 2);
        s->w.cwnd = s->w.ssthresh;
        s->recover = psn_add(end, -1);
        s->high_rxt = una;
        s->in_recovery = true;
    }
}

/* The cumulative ACK moved from 'old' on: slide the scoreboard, grow */
static void on_ack(SackState *s, const SnicFeedback *fb)
{
    uint32_t p;

    for (p = fb->old_wnd_start; p != psn_add(fb->old_wnd_start,
         fb->newly_acked); p = psn_add(p, 1)) {
        snic_psnmap_set(s->sacked, p, false);
    }
    if (s->in_recovery) {
        if (snic_psn_cmp(fb->psn, s->recover) >= 0) {
            s->in_recovery = false;     /* RFC 6675 step (C) ends */
            s->w.ca_acked = 0;
        }
        return;
    }
    snic_tcp_window_grow(&s->w, fb->newly_acked);
}

static void sack_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    SackState *s = snic_prog_state(qp);
    SnicFeedback ack = *fb;

    switch (fb->kind) {
    case SNIC_FB_SACK:
    case SNIC_FB_ACK:
        if (fb->progress) {
            ack.kind = SNIC_FB_ACK;
            snic_gbn_incoming(c, qp, &ack);     /* retry counters, timer */
            on_ack(s, fb);
        }
        if (fb->kind == SNIC_FB_SACK) {
            on_sack(c, qp, s, fb->sack, fb->sack_end);
        }
        if (s->in_recovery) {
            next_hole(c, qp, s);
        }
        break;
    default:
        snic_gbn_incoming(c, qp, fb);   /* NAK (SENDs, READs), RNR */
        return;
    }
    set_window(c, qp, s);
}

static void sack_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SackState *s = snic_prog_state(qp);
    uint32_t flight = snic_transport_outstanding(qp);

    if (snic_transport_rto_expired(qp, now) && flight) {
        /* RFC 6675 5.1: a timeout; the scoreboard is forgotten */
        snic_tcp_window_timeout(&s->w, flight);
        s->in_recovery = false;
        s->recover = psn_add(snic_transport_wnd_start(qp), flight - 1);
        memset(s->sacked, 0, sizeof(s->sacked));
        s->high_sacked = s->high_rxt = snic_transport_wnd_start(qp);
        snic_transport_set_window(c, qp, s->w.cwnd);
    }
    snic_gbn_periodic(c, qp, now);      /* goes back N, counts retries */
}

const SnicProgram snic_program_sack = {
    .name = "SACK",
    .credit = SNIC_CREDIT_WINDOW,
    .ack_policy = SNIC_ACK_TCP,
    .flags = SNIC_PROG_XPORT,
    .state_bytes = sizeof(SackState),
    .init = sack_init,
    .incoming = sack_incoming,
    .periodic = sack_periodic,
};
