/*
 * snic core: SRNIC's READ responses placed out of order and self-clocked
 * (SRNIC, NSDI'23, section 4.4.1), a part of sr.c's selective repeat
 * (hooks in sr.h). How it works: docs/srnic.md, "READs".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"

#define psn_add(psn, n)     (((psn) + (n)) & SNIC_PSN_MASK)
#define psn_dist(to, from)  (((to) - (from)) & SNIC_PSN_MASK)

static bool is_read_resp(uint8_t op)
{
    return op == SNIC_OP_RC_READ_RESP_FIRST ||
           op == SNIC_OP_RC_READ_RESP_MIDDLE ||
           op == SNIC_OP_RC_READ_RESP_LAST ||
           op == SNIC_OP_RC_READ_RESP_ONLY;
}

/* The fast-exit run after placing psn ahead of lACK */
static void rd_range_add(SnicSrQp *s, uint32_t psn)
{
    if (!s->rd_active) {
        s->rd_active = true;
        s->rd_left = s->rd_right = psn;
    } else if (psn == psn_add(s->rd_right, 1)) {
        s->rd_right = psn;
    } else if (psn == psn_add(s->rd_left, -1)) {
        s->rd_left = psn;
    } else if (snic_psn_cmp(psn, s->rd_right) > 0) {
        /* the most advanced run restarts here: nothing is above it */
        s->rd_left = s->rd_right = psn;
    }
}

/* lACK reached psn: inside the run, everything up to its end is here */
static uint32_t rd_catch_up(SnicSrQp *s, uint32_t psn)
{
    if (s->rd_active && snic_psn_cmp(psn, s->rd_left) >= 0 &&
        snic_psn_cmp(psn, psn_add(s->rd_right, 1)) <= 0) {
        s->rd_active = false;
        return psn_add(s->rd_right, 1);
    }
    return psn;
}

/*
 * lACK moved to 'lack': the responder hears of it (self-clocking) every
 * eighth of its window, at the end of a response run ('end') and when
 * nothing is left in flight
 */
static void rd_ack_owe(SnicQp *qp, SnicSrQp *s, uint32_t lack, bool end)
{
    if (end || !snic_transport_outstanding(qp) ||
        psn_dist(lack, s->rd_ack_sent) >= snic_sr_window(s) / 8) {
        s->rd_ack_due = true;
    }
}

/* Feedback for the program once lACK moved: the run left as a block */
static void rd_feedback(SnicSrQp *s, SnicFeedback *fb)
{
    if (s->rd_active) {
        fb->kind = SNIC_FB_SACK;
        fb->sack = s->rd_left;
        fb->sack_end = psn_add(s->rd_right, 1);
    } else {
        fb->kind = SNIC_FB_ACK;
    }
}

/* The host's word of a response placed ahead (room checked before) */
static void rd_report(SnicCore *c, SnicQp *qp, uint32_t psn, uint32_t una,
                      uint32_t end)
{
    struct snic_sr_ctrl e = {
        .type = SNIC_SR_CTRL_REQ_ACK,
        .flags = SNIC_SR_CTRL_F_READ,
        .psn = GUINT32_TO_LE(psn),
        .epsn = GUINT32_TO_LE(una),
        .sack_lo = GUINT32_TO_LE(psn),
        .sack_hi = GUINT32_TO_LE(psn_add(psn, 1)),
        .sent_end = GUINT32_TO_LE(end),
    };

    snic_sr_ctrl_post(c, qp, &e);
}

int snic_sr_read_response(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                          SnicFeedback *fb)
{
    SnicSrQp *s = snic_sr_qp(qp);
    SnicReq *r = &qp->req;
    uint32_t una = r->dde.wnd_start, d = psn_dist(p->psn, una);
    uint32_t end = psn_add(una, snic_transport_outstanding(qp)), next;
    int placed;

    if (!s->req_recovery) {
        s->rd_active = false;   /* went back N: everything comes again */
    }
    if (!p->xport || !(p->xeth.flags & SNIC_XETH_F_RESP) ||
        !is_read_resp(p->opcode)) {
        snic_stat_inc(&c->stats.sr_read_refused);
        return -1;
    }
    if (d && s->rd_active && snic_psn_cmp(p->psn, s->rd_left) >= 0 &&
        snic_psn_cmp(p->psn, s->rd_right) <= 0) {
        return 0;               /* placed already: never twice */
    }
    if (d && !snic_sr_ctrl_room(c, qp, p->psn)) {
        return -1;              /* never placed: just a loss */
    }
    placed = snic_req_read_place(c, qp, p);
    if (placed < 0) {
        return -1;              /* the QP failed (its own WQE or buffer) */
    }
    if (!placed) {
        snic_stat_inc(&c->stats.sr_read_refused);
        return -1;
    }
    if (!d) {
        next = rd_catch_up(s, psn_add(p->psn, 1));
        snic_dde_ack_upto(r, psn_add(next, -1));
        rd_ack_owe(qp, s, next, p->opcode == SNIC_OP_RC_READ_RESP_LAST ||
                            p->opcode == SNIC_OP_RC_READ_RESP_ONLY);
        rd_feedback(s, fb);
        return 1;
    }
    if (!s->req_recovery) {
        s->req_recovery = true;
        s->recover = psn_add(end, -1);
        SNIC_EVENT(c, SR_RECOVERY, qp - c->qps, 1, 1, una);
    }
    rd_range_add(s, p->psn);
    snic_stat_inc(&c->stats.sr_read_placed);
    rd_report(c, qp, p->psn, una, end);
    return -1;
}

SrRetryVerdict snic_sr_retry_lack(SnicCore *c, SnicQp *qp,
                                  const struct snic_sr_retry *e)
{
    SnicSrQp *s = snic_sr_qp(qp);
    uint32_t psn = GUINT32_FROM_LE(e->psn_from) & SNIC_PSN_MASK;
    uint32_t una = snic_transport_wnd_start(qp);
    uint32_t out = snic_transport_outstanding(qp);
    SnicFeedback fb = { .psn = psn };

    if (qp->state != SNIC_QPS_RTS) {
        return SR_RETRY_REFUSED;
    }
    if (snic_psn_cmp(psn, una) <= 0) {
        return SR_RETRY_STALE;  /* lACK got there (or past it) by itself */
    }
    if (!s->req_recovery) {
        /* left recovery by itself (lACK beyond, or back N): moot */
        return psn_dist(psn, una) <= out ? SR_RETRY_STALE :
                                           SR_RETRY_REFUSED;
    }
    if (psn_dist(psn, una) > out) {
        return SR_RETRY_REFUSED;    /* beyond what was sent */
    }
    psn = rd_catch_up(s, psn);
    rd_ack_owe(qp, s, psn, true);
    fb.psn = psn_add(psn, -1);
    rd_feedback(s, &fb);
    snic_req_read_acked(c, qp, psn_add(psn, -1), &fb);
    return SR_RETRY_TAKEN;
}

void snic_sr_read_ack_run(SnicCore *c, SnicQp *qp)
{
    SnicSrQp *s = snic_sr_qp(qp);
    uint32_t lack = snic_transport_wnd_start(qp);
    SnicPkt p;

    if (!s->rd_ack_due || qp->state != SNIC_QPS_RTS) {
        return;
    }
    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.opcode = SNIC_OP_RC_ACK;
    p.psn = psn_add(lack, -1);
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_RESP;
    p.xeth.msg = lack;
    snic_rdma_xmit(c, &p, 0);
    s->rd_ack_sent = lack;
    s->rd_ack_due = false;
}

/* ---- responder ---- */

bool snic_sr_read_peer_ack(SnicCore *c, SnicQp *qp, uint32_t psn)
{
    SnicSrQp *s = snic_sr_qp(qp);

    psn &= SNIC_PSN_MASK;
    if (snic_psn_cmp(psn, qp->resp.epsn) > 0) {
        return false;   /* for PSNs it never asked for: not taken */
    }
    if (s->rd_acked_valid && snic_psn_cmp(psn, s->rd_acked) > 0) {
        s->rd_acked = psn;
        snic_sched_notify(c, qp);   /* the window opened */
    }
    return true;
}

bool snic_sr_read_window(SnicQp *qp, uint32_t psn)
{
    SnicSrQp *s = snic_sr_qp(qp);

    if (!s->rd_acked_valid) {
        s->rd_acked_valid = true;   /* the first response: nothing before */
        s->rd_acked = psn;
    }
    /* one acknowledged ahead of it (a peer's mistake) blocks nothing */
    return snic_psn_cmp(psn, s->rd_acked) < 0 ||
           psn_dist(psn, s->rd_acked) < snic_sr_window(s);
}

bool snic_sr_read_hole(SnicCore *c, SnicQp *qp, unsigned slot, uint32_t psn,
                       uint32_t n)
{
    SnicSrQp *s = snic_sr_qp(qp);
    SnicSrHole *h;
    unsigned i;

    for (i = 0; i < s->hole_count; i++) {
        h = &s->hole[(s->hole_head + i) % SNIC_SR_READ_HOLES];
        if (h->slot == slot && h->psn == psn && h->n == n) {
            return true;    /* asked twice before it went: once */
        }
    }
    if (s->hole_count == SNIC_SR_READ_HOLES) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return false;       /* asked for again later, or times out */
    }
    h = &s->hole[(s->hole_head + s->hole_count++) % SNIC_SR_READ_HOLES];
    *h = (SnicSrHole) { .psn = psn, .n = n, .slot = slot };
    snic_sched_notify(c, qp);
    return true;
}

SnicSrHole *snic_sr_read_hole_head(SnicQp *qp)
{
    SnicSrQp *s = snic_sr_qp(qp);

    return s && s->hole_count ? &s->hole[s->hole_head] : NULL;
}

void snic_sr_read_hole_pop(SnicQp *qp)
{
    SnicSrQp *s = snic_sr_qp(qp);

    s->hole_head = (s->hole_head + 1) % SNIC_SR_READ_HOLES;
    s->hole_count--;
}
