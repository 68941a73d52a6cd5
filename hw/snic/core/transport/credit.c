/*
 * snic core: the Tonic credit engine (Tonic, NSDI'20, sections 3.3 and 4,
 * Appendix B): a window (enforced by the data-delivery engine), a rate
 * with several precisions, or grant tokens, and the receiver's PULLs
 * that grant them (NDP, SIGCOMM'17 section 3.2).
 *
 * Rate: a flow with r bytes per time unit that lacks C bytes of credit
 * has it again T = ceil(C / r) units later. Division is what hardware
 * cannot do precisely for every rate with one unit: bytes per ns cannot
 * express 40 Mb/s (0.005 B/ns), bytes per 65 us delays a 100 Gb/s flow by
 * whole 65 us steps. So, as App. B, the rate is kept at every precision
 * and T is computed with the finest unit whose r still has 7 significant
 * bits. The credit left over when the flow is served (it waited a whole
 * unit) carries over, so the long-run rate is r's whatever the unit.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "engine/scheduler.h"
#include "objects/qp.h"

void snic_rate_set(SnicRateCredit *rc, uint32_t mbps)
{
    unsigned k;

    rc->mbps = mbps;
    rc->level = SNIC_RATE_LEVELS - 1;
    for (k = 0; k < SNIC_RATE_LEVELS; k++) {
        /* Mb/s = 1/8000 bytes per ns; per 2^(4k) ns */
        uint64_t r = ((uint64_t)mbps << (SNIC_RATE_LEVEL_SHIFT * k)) / 8000;

        rc->r[k] = MIN(r, UINT32_MAX);
        if (r >= SNIC_RATE_MIN_PRECISION && rc->level == SNIC_RATE_LEVELS - 1) {
            rc->level = k;
        }
    }
}

/*
 * Count the credit the time since t_last brought, in whole units. The
 * bucket holds the burst and one unit's credit more: a flow whose unit
 * earns more than a burst (185 Mb/s: 1515 bytes per 65.5 us) and that
 * waits for its scheduler turn would otherwise lose what it earned while
 * it waited, and run below its rate.
 */
static void rate_update(SnicRateCredit *rc, uint64_t now)
{
    unsigned shift = SNIC_RATE_LEVEL_SHIFT * rc->level;
    int64_t full = (int64_t)rc->burst + rc->r[rc->level];
    uint64_t units, add;

    if (now <= rc->t_last) {
        return;
    }
    units = (now - rc->t_last) >> shift;
    add = units * rc->r[rc->level];
    if ((int64_t)rc->credit + (int64_t)add >= full) {
        rc->credit = full;          /* full: idle time earns no more */
        rc->t_last = now;
        return;
    }
    rc->credit += add;
    rc->t_last += units << shift;   /* the partial unit is kept */
}

/*
 * Credit below zero: T = ceil(C / r) units from the last whole unit is
 * when the flow has credit again (later than now: less than a unit has
 * passed since t_last). False in that case, with the timer armed.
 */
static bool rate_check(SnicRateCredit *rc)
{
    unsigned shift = SNIC_RATE_LEVEL_SHIFT * rc->level;
    uint32_t r = MAX(rc->r[rc->level], 1);
    uint64_t t;

    if (rc->credit >= 0) {
        return true;
    }
    t = ((uint64_t)-(int64_t)rc->credit + r - 1) / r;
    rc->ready_at = rc->t_last + (t << shift);
    return false;
}

bool snic_rate_ready(SnicRateCredit *rc, uint64_t now)
{
    rate_update(rc, now);
    return rate_check(rc);
}

void snic_rate_spend(SnicRateCredit *rc, uint64_t now, uint32_t bytes)
{
    rate_update(rc, now);
    rc->credit -= bytes;
    rc->tx_bytes += bytes;
    rate_check(rc);
}

bool snic_credit_blocked(const SnicQp *qp)
{
    const SnicRateCredit *rc = snic_rate_credit(qp);
    const SnicTokenCredit *tc = snic_token_credit(qp);

    return rc ? rc->ready_at != UINT64_MAX : tc && !tc->tokens;
}

bool snic_credit_ready(SnicCore *c, SnicQp *qp)
{
    SnicRateCredit *rc = snic_rate_credit(qp);
    SnicTokenCredit *tc = snic_token_credit(qp);

    if (rc) {
        if (rc->ready_at != UINT64_MAX) {
            return false;
        }
        /*
         * A rate change (another unit) can leave a debt the timer did not
         * cover: wait again rather than poll
         */
        if (!snic_rate_ready(rc, c->ops->now_ns(c->opaque))) {
            snic_qp_timer_sync(c, qp);
            return false;
        }
        return true;
    }
    return !tc || tc->tokens;
}

void snic_credit_spend(SnicCore *c, SnicQp *qp, uint32_t bytes)
{
    SnicRateCredit *rc = snic_rate_credit(qp);
    SnicTokenCredit *tc = snic_token_credit(qp);

    if (rc) {
        snic_rate_spend(rc, c->ops->now_ns(c->opaque),
                        bytes + SNIC_RATE_HDR_BYTES);
        if (rc->ready_at != UINT64_MAX) {
            snic_qp_timer_sync(c, qp);
        }
    } else if (tc && tc->tokens) {
        tc->tokens--;
    }
}

uint64_t snic_credit_deadline(const SnicQp *qp)
{
    const SnicRateCredit *rc = snic_rate_credit(qp);
    const SnicTokenCredit *tc = snic_token_credit(qp);

    return rc ? rc->ready_at : tc ? tc->pull_at : UINT64_MAX;
}

/* The credit timer fired: the flow has credit again, serve it. */
void snic_credit_timer(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SnicRateCredit *rc = snic_rate_credit(qp);
    SnicTokenCredit *tc = snic_token_credit(qp);

    if (rc && rc->ready_at <= now) {
        rc->ready_at = UINT64_MAX;
        snic_sched_notify(c, qp);
    }
    if (tc && tc->pull_at <= now) {
        tc->pull_at = UINT64_MAX;       /* its PULL's turn: send it */
        snic_sched_notify(c, qp);
    }
}

/*
 * ---- the receiver's PULLs ----
 * NDP's receiver pulls one packet for every one that arrives, whole or
 * trimmed, and paces the PULLs of all its flows at its link rate: one
 * path-MTU packet time apart, so what it pulls arrives no faster than
 * its link drains (one pull queue: c->pull_next is its next turn). A
 * PULL carries the flow's cumulative count, so one lost is made up by
 * the next.
 */
void snic_pull_owe(SnicCore *c, SnicQp *qp)
{
    SnicTokenCredit *tc = snic_token_credit(qp);

    if (tc && (qp->state == SNIC_QPS_RTR || qp->state == SNIC_QPS_RTS)) {
        /* a window's worth at most: more could not be in flight */
        tc->owed += tc->owed < SNIC_TX_WINDOW;
        snic_sched_notify(c, qp);
    }
}

static uint64_t pull_spacing_ns(const SnicCore *c, const SnicQp *qp)
{
    uint64_t bits = (snic_qp_mtu_bytes(qp) + SNIC_RATE_HDR_BYTES) * 8;

    return bits * 1000 / c->cfg.link_speed_mbps;
}

void snic_pull_run(SnicCore *c, SnicQp *qp)
{
    SnicTokenCredit *tc = snic_token_credit(qp);
    uint64_t now = c->ops->now_ns(c->opaque);
    SnicPkt p;

    if (!tc || !tc->owed || tc->pull_at != UINT64_MAX) {
        return;     /* none owed, or waiting for its turn */
    }
    if (now < c->pull_next) {
        tc->pull_at = c->pull_next;     /* another flow's turn first */
        snic_qp_timer_sync(c, qp);
        return;
    }
    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.opcode = SNIC_OP_RC_ACK;
    p.psn = (qp->resp.epsn - 1) & SNIC_PSN_MASK;
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.aeth.msn = qp->resp.msn;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_PULL;
    p.xeth.msg = ++tc->pulls;
    tc->owed--;
    c->pull_next = now + pull_spacing_ns(c, qp);
    snic_rdma_xmit(c, &p, 0);
    if (tc->owed) {
        tc->pull_at = c->pull_next;
        snic_qp_timer_sync(c, qp);
    }
}
