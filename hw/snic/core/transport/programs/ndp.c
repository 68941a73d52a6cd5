/*
 * snic core: NDP as a Tonic transport program (Tonic, NSDI'20, section
 * 6.1.1, Table 3: "NDP"; Handley et al., SIGCOMM'17, section 3), on
 * grant tokens. Receiver-driven: a flow starts with NDP_IW tokens (NDP's
 * first RTT at line rate) and then sends one segment per token the
 * receiver's PULLs grant (credit.c: it pulls one packet for every one
 * that arrived, paced at its link rate). Switches trim instead of
 * dropping: the receiver NACKs a trimmed packet at once (resp.c) and the
 * NACKed segment goes out again with the next token, before new data,
 * without waiting for a timeout. The retransmission timer is the
 * backstop for packets lost whole, which draw no PULL either: as NDP's
 * sender (section 3.2), it resends only the segments neither ACKed nor
 * NACKed, with NDP_IW tokens again; what the receiver holds beyond the
 * cumulative ACK the ACKs' SACK blocks say (each packet is acknowledged).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "transport/transport.h"

/* segments before the first PULL: a BDP (64 KiB: 100 Gb/s, 5 us RTT) */
#define NDP_IW              16
#define psn_add(psn, n)     (((psn) + (n)) & SNIC_PSN_MASK)

typedef struct NdpState {
    SnicOooMap ooo;             /* the responder's placement map and */
    SnicTrimMap trim;           /* NACKs owed head the state */
    uint32_t nacked[SNIC_TX_WINDOW / 32];  /* to resend, not marked yet */
    uint32_t sacked[SNIC_TX_WINDOW / 32];  /* ACKed beyond the cumulative */
    uint32_t pulled;            /* the last pull counter granted */
} NdpState;

/* Tokens up to NDP_IW: what a flow may send before its PULLs come */
static void top_up(SnicCore *c, SnicQp *qp, uint32_t most)
{
    uint32_t have = snic_transport_tokens(qp);

    if (have < NDP_IW) {
        snic_transport_grant(c, qp, MIN(most, NDP_IW - have));
    }
}

static void ndp_init(SnicCore *c, SnicQp *qp)
{
    top_up(c, qp, NDP_IW);
}

/*
 * The oldest run of segments to resend to the engine, one run at a time
 * (it keeps one range: two runs would join over what lies between); the
 * runs a timeout found go one a feedback, traced with the NACKed ones
 */
static void next_nacked(SnicCore *c, SnicQp *qp, NdpState *s,
                        SnicRtxReason why)
{
    uint32_t una = snic_transport_wnd_start(qp), i = 0, n = 0;
    uint32_t flight = snic_transport_outstanding(qp);

    if (snic_dde_rtx_pending(qp)) {
        return;
    }
    while (i < flight && !snic_psnmap_get(s->nacked, psn_add(una, i))) {
        i++;
    }
    while (i + n < flight && snic_psnmap_get(s->nacked, psn_add(una, i + n))) {
        snic_psnmap_set(s->nacked, psn_add(una, i + n), false);
        n++;
    }
    if (n) {
        snic_transport_mark_rtx(c, qp, psn_add(una, i), psn_add(una, i + n),
                                why);
    }
}

/* In flight: is psn one of the segments sent and not acknowledged? */
static bool in_flight(const SnicQp *qp, uint32_t psn)
{
    return ((psn - snic_transport_wnd_start(qp)) & SNIC_PSN_MASK) <
           snic_transport_outstanding(qp);
}

static void ndp_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    NdpState *s = snic_prog_state(qp);
    uint32_t una = snic_transport_wnd_start(qp), d, p;
    SnicFeedback ack = *fb;

    switch (fb->kind) {
    case SNIC_FB_PULL:
        /* cumulative: a PULL lost is granted by the next one */
        d = fb->psn - s->pulled;
        if (d && d < 1u << 31) {
            s->pulled = fb->psn;
            top_up(c, qp, d);
        }
        break;
    case SNIC_FB_TRIMMED:
        if (in_flight(qp, fb->psn)) {
            snic_psnmap_set(s->nacked, fb->psn, true);
        }
        break;
    case SNIC_FB_ACK:
    case SNIC_FB_SACK:
        for (p = fb->sack; fb->kind == SNIC_FB_SACK && p != fb->sack_end &&
             in_flight(qp, p); p = psn_add(p, 1)) {
            snic_psnmap_set(s->sacked, p, true);
        }
        if (!fb->progress) {
            break;
        }
        ack.kind = SNIC_FB_ACK;
        snic_gbn_incoming(c, qp, &ack);     /* retry counters, timer */
        for (p = fb->old_wnd_start; p != una; p = psn_add(p, 1)) {
            snic_psnmap_set(s->nacked, p, false);
            snic_psnmap_set(s->sacked, p, false);
        }
        if (!snic_transport_outstanding(qp)) {
            top_up(c, qp, NDP_IW);  /* idle: the next burst starts anew */
        }
        break;
    case SNIC_FB_DUP_ACK:
        break;
    default:
        snic_gbn_incoming(c, qp, fb);   /* NAK (SENDs, READs), RNR */
        return;
    }
    next_nacked(c, qp, s, SNIC_RTX_TRIMMED);
}

static void ndp_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    NdpState *s = snic_prog_state(qp);
    uint32_t una = snic_transport_wnd_start(qp), i, psn;

    /* RNR waits, retry counting, the timer armed again: gbn.c */
    if (!snic_gbn_timeout(c, qp, now)) {
        return;
    }
    /*
     * Lost whole, or its NACK was: every segment neither ACKed nor marked
     * already goes again, and no PULL comes for them. The oldest goes
     * even if SACKed: the cumulative ACK that covered the rest may be
     * what was lost, and only a duplicate makes the peer send it again.
     */
    for (i = 0; i < snic_transport_outstanding(qp); i++) {
        psn = psn_add(una, i);
        snic_psnmap_set(s->nacked, psn, (!i || !snic_psnmap_get(s->sacked,
                        psn)) && !snic_transport_rtx_marked(qp, psn));
    }
    top_up(c, qp, NDP_IW);
    next_nacked(c, qp, s, SNIC_RTX_TIMEOUT);
}

const SnicProgram snic_program_ndp = {
    .name = "NDP",
    .credit = SNIC_CREDIT_TOKEN,
    .ack_policy = SNIC_ACK_TCP,
    .flags = SNIC_PROG_XPORT | SNIC_PROG_PULL,
    .state_bytes = sizeof(NdpState),
    .init = ndp_init,
    .incoming = ndp_incoming,
    .periodic = ndp_periodic,
};
