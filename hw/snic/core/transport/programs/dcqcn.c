/*
 * snic core: RoCEv2 with DCQCN as a Tonic transport program (Tonic,
 * NSDI'20, section 6.1.1; DCQCN, Zhu et al., SIGCOMM'15, section 3;
 * constants in docs/wire.md): IBA go-back-N for reliability (gbn.c),
 * the reaction point on the rate credit. The notification point (CNPs for
 * CE-marked packets, ECT(0) on what the QP sends) is the template's
 * (SNIC_PROG_ECN): the wire stays standard RoCEv2.
 *
 * In DCQCN's order, with integers (alpha in Q20, g = 1/256):
 *  - a CNP: Rt = Rc; Rc = Rc (1 - alpha / 2), with the alpha from before
 *    this CNP; then alpha = (1 - g) alpha + g; the increase stages, the
 *    byte counter and both timers start again;
 *  - the alpha timer (55 us without CNP): alpha = (1 - g) alpha;
 *  - an increase event, from the rate timer (60 us) or the byte counter
 *    (every 10 MB): fast recovery while both stages are below F = 5,
 *    hyper increase (Rt += i R_HAI) when both exceed it, else additive
 *    (Rt += R_AI); then Rc = (Rt + Rc) / 2.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "transport/transport.h"

typedef struct DcqcnState {
    uint32_t rc;                /* current rate, Mb/s */
    uint32_t rt;                /* target rate, Mb/s */
    uint32_t alpha;             /* Q20 */
    uint8_t t_stage;            /* rate timer events since the last CNP */
    uint8_t b_stage;            /* byte counter events since then */
    uint64_t b_mark;            /* tx bytes at the byte counter's start */
    uint64_t alpha_at;          /* the alpha timer; MAX: stopped */
    uint64_t rate_at;           /* the rate-increase timer; MAX: stopped */
} DcqcnState;

static void arm(SnicCore *c, SnicQp *qp, const DcqcnState *s)
{
    snic_transport_arm_timer(c, qp, MIN(s->alpha_at, s->rate_at));
}

static void dcqcn_init(SnicCore *c, SnicQp *qp)
{
    DcqcnState *s = snic_prog_state(qp);

    s->rc = s->rt = snic_transport_line_rate(c);
    s->alpha = 1u << SNIC_DCQCN_ALPHA_Q;     /* DCQCN starts at alpha = 1 */
    s->alpha_at = s->rate_at = UINT64_MAX;  /* no congestion yet */
    snic_transport_set_rate(c, qp, s->rc);
}

/* An increase event; line: the port's rate, which Rt never passes */
static void increase(DcqcnState *s, uint32_t line)
{
    uint8_t hi = MAX(s->t_stage, s->b_stage), lo = MIN(s->t_stage, s->b_stage);

    if (hi < SNIC_DCQCN_F) {
        /* fast recovery: towards the target, which stays */
    } else if (lo > SNIC_DCQCN_F) {
        s->rt += (lo - SNIC_DCQCN_F) * SNIC_DCQCN_R_HAI;
    } else {
        s->rt += SNIC_DCQCN_R_AI;
    }
    s->rt = MIN(s->rt, line);
    /* rounded up, so Rc reaches Rt (and the timer stops) */
    s->rc = (s->rt + s->rc + 1) / 2;
}

static void cnp(SnicCore *c, SnicQp *qp, DcqcnState *s)
{
    uint64_t now = snic_transport_now(c);
    uint32_t cut = ((uint64_t)s->rc * s->alpha) >> (SNIC_DCQCN_ALPHA_Q + 1);

    s->rt = s->rc;
    s->rc = MAX(s->rc - cut, SNIC_DCQCN_R_MIN);
    s->alpha = s->alpha - (s->alpha >> SNIC_DCQCN_G_SHIFT) +
               (1u << (SNIC_DCQCN_ALPHA_Q - SNIC_DCQCN_G_SHIFT));
    s->t_stage = s->b_stage = 0;
    s->b_mark = snic_transport_tx_bytes(qp);
    s->alpha_at = now + SNIC_DCQCN_ALPHA_NS;
    s->rate_at = now + SNIC_DCQCN_RATE_NS;
}

/* The byte counter: an increase event every SNIC_DCQCN_BYTES sent. */
static void byte_counter(DcqcnState *s, uint64_t tx, uint32_t line)
{
    while (s->rc < line && tx - s->b_mark >= SNIC_DCQCN_BYTES) {
        s->b_mark += SNIC_DCQCN_BYTES;
        s->b_stage += s->b_stage < UINT8_MAX;
        increase(s, line);
    }
}

static void dcqcn_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    DcqcnState *s = snic_prog_state(qp);

    if (fb->kind == SNIC_FB_CNP) {
        cnp(c, qp, s);
    } else {
        snic_gbn_incoming(c, qp, fb);
        byte_counter(s, snic_transport_tx_bytes(qp),
                     snic_transport_line_rate(c));
    }
    snic_transport_set_rate(c, qp, s->rc);
    arm(c, qp, s);
}

static void dcqcn_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    DcqcnState *s = snic_prog_state(qp);
    uint32_t line = snic_transport_line_rate(c);

    if (now >= s->alpha_at) {
        s->alpha -= s->alpha >> SNIC_DCQCN_G_SHIFT;
        /* it stops where (1 - g) alpha no longer changes it */
        s->alpha_at = s->alpha >> SNIC_DCQCN_G_SHIFT ?
                      now + SNIC_DCQCN_ALPHA_NS : UINT64_MAX;
    }
    if (now >= s->rate_at) {
        s->t_stage += s->t_stage < UINT8_MAX;
        increase(s, line);
        s->rate_at = s->rc < line ? now + SNIC_DCQCN_RATE_NS : UINT64_MAX;
    }
    byte_counter(s, snic_transport_tx_bytes(qp), line);
    snic_transport_set_rate(c, qp, s->rc);
    arm(c, qp, s);
    snic_gbn_periodic(c, qp, now);
}

const SnicProgram snic_program_dcqcn = {
    .name = "DCQCN",
    .credit = SNIC_CREDIT_RATE,
    .ack_policy = SNIC_ACK_IBA,
    .flags = SNIC_PROG_ECN,
    .state_bytes = sizeof(DcqcnState),
    .init = dcqcn_init,
    .incoming = dcqcn_incoming,
    .periodic = dcqcn_periodic,
};
