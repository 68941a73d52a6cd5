/*
 * snic core: the fixed-function half of the Tonic transport template
 * (Tonic, NSDI'20, section 3): the program registry and its checks, the
 * data-delivery engine's window and the calls programs make (transport.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "engine/scheduler.h"
#include "objects/qp.h"

const SnicProgram *const snic_programs[SNIC_PROGRAMS] = {
    [SNIC_PROGRAM_GBN] = &snic_program_gbn,
    [SNIC_PROGRAM_RENO] = &snic_program_reno,
    [SNIC_PROGRAM_NEWRENO] = &snic_program_newreno,
    [SNIC_PROGRAM_DCQCN] = &snic_program_dcqcn,
    [SNIC_PROGRAM_SACK] = &snic_program_sack,
    [SNIC_PROGRAM_DCTCP] = &snic_program_dctcp,
    [SNIC_PROGRAM_NDP] = &snic_program_ndp,
    [SNIC_PROGRAM_IRN] = &snic_program_irn,
    [SNIC_PROGRAM_SRNIC] = &snic_program_srnic,
    [SNIC_PROGRAM_SRNIC_DCTCP] = &snic_program_srnic_dctcp,
};

/* ---- the registry: programs and their state areas ---- */

static const uint16_t state_max[SNIC_CREDIT_SCHEMES] = {
    [SNIC_CREDIT_WINDOW] = SNIC_PROG_STATE_MAX_WINDOW,
    [SNIC_CREDIT_RATE] = SNIC_PROG_STATE_MAX_RATE,
    [SNIC_CREDIT_TOKEN] = SNIC_PROG_STATE_MAX_TOKEN,
};

static const uint16_t credit_bytes[SNIC_CREDIT_SCHEMES] = {
    [SNIC_CREDIT_WINDOW] = 0,
    [SNIC_CREDIT_RATE] = sizeof(SnicRateCredit),
    [SNIC_CREDIT_TOKEN] = sizeof(SnicTokenCredit),
};

uint16_t snic_program_state_max(const SnicProgram *p)
{
    return p->credit < SNIC_CREDIT_SCHEMES ? state_max[p->credit] : 0;
}

/* Bytes of the responder's records heading the program's own state */
static uint32_t resp_head_bytes(const SnicProgram *p)
{
    return (p->flags & SNIC_PROG_XPORT ? sizeof(SnicOooMap) : 0) +
           (p->flags & SNIC_PROG_PULL ? sizeof(SnicTrimMap) : 0) +
           (p->flags & SNIC_PROG_ECE ? sizeof(SnicCeEcho) : 0);
}

bool snic_program_fits(const SnicProgram *p)
{
    return p->credit < SNIC_CREDIT_SCHEMES && p->incoming && p->periodic &&
           p->ack_policy <= SNIC_ACK_TCP &&
           (!(p->flags & SNIC_PROG_PULL) ||
            (p->flags & SNIC_PROG_XPORT && p->credit == SNIC_CREDIT_TOKEN)) &&
           p->state_bytes >= resp_head_bytes(p) &&
           p->span <= SNIC_DDE_SPAN &&
           p->state_bytes <= state_max[p->credit];
}

/*
 * Go-back-N keeps nothing beyond the QP context; every other program an
 * area of the template's head, its credit state and its own state.
 */
uint32_t snic_program_area_bytes(const SnicProgram *p)
{
    if (p->credit == SNIC_CREDIT_WINDOW && !p->state_bytes &&
        !(p->flags & SNIC_PROG_ECN)) {
        return 0;
    }
    return sizeof(SnicProgHead) + credit_bytes[p->credit] + p->state_bytes;
}

const SnicProgram *snic_qp_program(const SnicQp *qp)
{
    return snic_programs[qp->program];
}

SnicProgHead *snic_prog_head(SnicQp *qp)
{
    return (SnicProgHead *)qp->pstate;
}

void *snic_prog_state(SnicQp *qp)
{
    const SnicProgram *p = snic_qp_program(qp);

    return p->state_bytes ? qp->pstate + sizeof(SnicProgHead) +
                            credit_bytes[p->credit] : NULL;
}

SnicRateCredit *snic_rate_credit(const SnicQp *qp)
{
    return snic_qp_program(qp)->credit == SNIC_CREDIT_RATE ?
           (SnicRateCredit *)(qp->pstate + sizeof(SnicProgHead)) : NULL;
}

SnicTokenCredit *snic_token_credit(const SnicQp *qp)
{
    return snic_qp_program(qp)->credit == SNIC_CREDIT_TOKEN ?
           (SnicTokenCredit *)(qp->pstate + sizeof(SnicProgHead)) : NULL;
}

SnicOooMap *snic_prog_ooo(SnicQp *qp)
{
    return snic_qp_program(qp)->flags & SNIC_PROG_XPORT ?
           snic_prog_state(qp) : NULL;
}

SnicOooMsg *snic_prog_msg(SnicQp *qp)
{
    const SnicProgram *p = snic_qp_program(qp);
    SnicOooMap *m = snic_prog_ooo(qp);

    return m ? &m->msg : p->msg ? p->msg(qp) : NULL;
}

SnicTrimMap *snic_prog_trim(SnicQp *qp)
{
    return snic_qp_program(qp)->flags & SNIC_PROG_PULL ?
           (SnicTrimMap *)((uint8_t *)snic_prog_state(qp) +
                           sizeof(SnicOooMap)) : NULL;
}

SnicCeEcho *snic_prog_ece(SnicQp *qp)
{
    const SnicProgram *p = snic_qp_program(qp);

    if (!(p->flags & SNIC_PROG_ECE)) {
        return NULL;
    }
    return (SnicCeEcho *)((uint8_t *)snic_prog_state(qp) +
                          resp_head_bytes(p) - sizeof(SnicCeEcho));
}

/*
 * ---- data-delivery engine: the window ----
 * Segments [0, sent) of the window went out; [rtx_from, rtx_to) are to be
 * sent again. One range, not bitmaps: what go-back-N and the cumulative-
 * ACK programs need, in the QP context.
 */

bool snic_dde_rtx_pending(const SnicQp *qp)
{
    return qp->req.dde.rtx_from < qp->req.dde.rtx_to;
}

uint32_t snic_dde_outstanding(const SnicQp *qp)
{
    return qp->req.dde.sent;
}

/* Cumulative acknowledgement of every PSN up to and including psn. */
void snic_dde_ack_upto(SnicQp *qp, uint32_t psn)
{
    SnicDde *d = &qp->req.dde;
    uint32_t n = (psn - d->wnd_start + 1) & SNIC_PSN_MASK;

    if (snic_psn_cmp(psn, d->wnd_start) < 0 || n > d->sent) {
        return;     /* old, or for segments never sent: ignore */
    }
    d->wnd_start = (d->wnd_start + n) & SNIC_PSN_MASK;
    d->sent -= n;
    d->rtx_from = d->rtx_from > n ? d->rtx_from - n : 0;
    d->rtx_to = d->rtx_to > n ? d->rtx_to - n : 0;
    d->rd_off = d->rd_off > n ? d->rd_off - n : 0;
}

/* Mark sent segments [from, to) (window offsets) for retransmission. */
static void dde_mark(SnicReq *r, uint32_t from, uint32_t to)
{
    SnicDde *d = &r->dde;

    to = MIN(to, d->sent);
    if (from >= to) {
        return;
    }
    if (d->rtx_from >= d->rtx_to) {
        d->rtx_from = from;
        d->rtx_to = to;
        return;
    }
    /* one range: a second one joins the first (resends what lies between) */
    d->rtx_from = MIN(d->rtx_from, from);
    d->rtx_to = MAX(d->rtx_to, to);
}

void snic_transport_mark_rtx(SnicCore *c, SnicQp *qp, uint32_t from,
                             uint32_t to, SnicRtxReason why)
{
    SnicDde *d = &qp->req.dde;
    uint32_t s = (from - d->wnd_start) & SNIC_PSN_MASK;
    uint32_t e = (to - d->wnd_start) & SNIC_PSN_MASK;

    if (s >= d->sent) {
        return;     /* not in flight: nothing to resend */
    }
    e = MIN(e, d->sent);
    SNIC_EVENT(c, RETRANSMIT, qp - c->qps, from, e > s ? e - s : 0, why);
    qp->rtx_segments += e > s ? e - s : 0;
    snic_stat_add(&c->stats.rdma_rtx_segments, e > s ? e - s : 0);
    if (why == SNIC_RTX_TIMEOUT) {
        snic_stat_inc(&c->stats.rdma_timeouts);
    }
    dde_mark(&qp->req, s, e);
}

bool snic_transport_rtx_marked(const SnicQp *qp, uint32_t psn)
{
    const SnicDde *d = &qp->req.dde;
    uint32_t i = (psn - d->wnd_start) & SNIC_PSN_MASK;

    return i >= d->rtx_from && i < d->rtx_to;
}

void snic_transport_retransmit(SnicCore *c, SnicQp *qp, uint32_t psn,
                               SnicRtxReason why)
{
    SnicDde *d = &qp->req.dde;

    snic_transport_mark_rtx(c, qp, psn, (d->wnd_start + d->sent) &
                            SNIC_PSN_MASK, why);
}

/*
 * The segment to send next: the first one marked for retransmission, or a
 * new one, if the window allows it. The window bounds both (Tonic 3.3.1:
 * with W, nothing beyond the first unacknowledged segment + W goes out):
 * a segment resent lies below 'sent', counted in flight once, so it may
 * go when its offset is inside the window. Thus a timeout that marked all
 * of them and set the window to one resends the oldest alone, and ACKs
 * open the rest as slow start does; a marked segment beyond the window
 * waits, and so does new data behind it. Rate and tokens (credit.c) are
 * spent by resent segments as by new ones.
 */
bool snic_dde_next(const SnicQp *qp, uint32_t *psn, bool *retransmit)
{
    const SnicReq *r = &qp->req;
    const SnicDde *d = &r->dde;

    if (d->rtx_from < d->rtx_to) {
        if (d->rtx_from >= r->credit.window) {
            return false;
        }
        *psn = (d->wnd_start + d->rtx_from) & SNIC_PSN_MASK;
        *retransmit = true;
        return true;
    }
    if (d->sent < r->credit.window) {
        *psn = (d->wnd_start + d->sent) & SNIC_PSN_MASK;
        *retransmit = false;
        return true;
    }
    return false;
}

/* A packet covering count PSNs from psn went out. */
void snic_dde_sent(SnicQp *qp, uint32_t psn, uint32_t count,
                   bool retransmit)
{
    SnicDde *d = &qp->req.dde;
    uint32_t s = (psn - d->wnd_start) & SNIC_PSN_MASK;

    if (!retransmit) {
        d->sent = MIN(s + count, SNIC_DDE_SPAN);
        return;
    }
    d->rtx_from = MAX(d->rtx_from, MIN(s + count, d->rtx_to));
}

/* ---- the other calls of programs ---- */

uint32_t snic_dde_span(const SnicQp *qp)
{
    const SnicProgram *p = snic_programs[qp->program];

    return p->span ? p->span : SNIC_TX_WINDOW;
}

void snic_transport_set_window(SnicCore *c, SnicQp *qp, uint32_t segments)
{
    qp->req.credit.window = MAX(1, MIN(segments, snic_dde_span(qp)));
}

void snic_transport_set_rate(SnicCore *c, SnicQp *qp, uint32_t mbps)
{
    SnicRateCredit *rc = snic_rate_credit(qp);

    if (rc) {
        snic_rate_set(rc, mbps);
    }
}

void snic_transport_grant(SnicCore *c, SnicQp *qp, uint32_t segments)
{
    SnicTokenCredit *tc = snic_token_credit(qp);

    if (tc) {
        tc->tokens = MIN((uint64_t)tc->tokens + segments, SNIC_TX_WINDOW);
        snic_sched_notify(c, qp);
    }
}

uint32_t snic_transport_tokens(const SnicQp *qp)
{
    const SnicTokenCredit *tc = snic_token_credit(qp);

    return tc ? tc->tokens : 0;
}

void snic_transport_arm_timer(SnicCore *c, SnicQp *qp, uint64_t at)
{
    if (qp->pstate) {
        snic_prog_head(qp)->timer_at = at;
        snic_qp_timer_sync(c, qp);
    }
}

/* The program's timers: the transport deadline (RTO or RNR), its own. */
static uint64_t program_deadline(SnicQp *qp)
{
    uint64_t t = qp->req.deadline;

    return qp->pstate ? MIN(t, snic_prog_head(qp)->timer_at) : t;
}

uint64_t snic_transport_deadline(SnicQp *qp)
{
    return MIN(program_deadline(qp), snic_credit_deadline(qp));
}

void snic_transport_timer(SnicCore *c, SnicQp *qp, uint64_t now)
{
    if (program_deadline(qp) <= now) {
        if (qp->pstate && snic_prog_head(qp)->timer_at <= now) {
            snic_prog_head(qp)->timer_at = UINT64_MAX;  /* one-shot */
        }
        snic_qp_program(qp)->periodic(c, qp, now);
        snic_sched_notify(c, qp);
    }
    if (qp->valid) {
        snic_credit_timer(c, qp, now);
    }
}

void snic_transport_arm_rto(SnicCore *c, SnicQp *qp)
{
    const SnicProgram *p = snic_qp_program(qp);
    SnicReq *r = &qp->req;
    uint64_t rto;

    /* while an RNR wait runs, its timer alone governs (IBA 9.7.5.2.8) */
    if (r->rnr_wait) {
        return;
    }
    if (!qp->attr.timeout || !snic_dde_outstanding(qp)) {
        r->deadline = UINT64_MAX;
        snic_qp_timer_sync(c, qp);
        return;
    }
    /* local ACK timeout: 4.096 us * 2^timeout on the virtual clock */
    rto = 4096ull << qp->attr.timeout;
    r->deadline = c->ops->now_ns(c->opaque) + (p->rto ? p->rto(qp, rto) : rto);
    snic_qp_timer_sync(c, qp);
}

/* ---- IBA's reliability: retry counters, the RNR wait, the RTO ---- */

void snic_transport_retries_reload(SnicQp *qp)
{
    qp->req.retry_left = qp->attr.retry_cnt;
    qp->req.rnr_left = qp->attr.rnr_retry;
}

uint32_t snic_transport_retries_left(const SnicQp *qp, SnicRetryKind kind)
{
    if (kind == SNIC_RETRY_RNR) {
        /* an RNR retry count of 7 retries for ever */
        return qp->attr.rnr_retry == 7 ? UINT32_MAX : qp->req.rnr_left;
    }
    return qp->req.retry_left;
}

void snic_transport_retry_used(SnicQp *qp, SnicRetryKind kind)
{
    if (kind == SNIC_RETRY_RNR) {
        if (qp->attr.rnr_retry != 7) {
            qp->req.rnr_left--;
        }
        return;
    }
    qp->req.retry_left--;
}

void snic_transport_rnr_wait(SnicCore *c, SnicQp *qp, uint32_t psn,
                             uint64_t ns)
{
    SnicReq *r = &qp->req;

    r->rnr_psn = psn;
    /* waiting out an RNR is not a timeout: it replaces the RTO */
    r->deadline = snic_transport_now(c) + ns;
    r->rnr_wait = true;
    SNIC_EVENT(c, RNR_WAIT, qp - c->qps, psn, ns);
    snic_qp_timer_sync(c, qp);
}

bool snic_transport_rnr_waiting(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SnicReq *r = &qp->req;

    if (!r->rnr_wait) {
        return false;
    }
    if (now >= r->deadline) {
        snic_req_disarm(r);
        snic_transport_retransmit(c, qp, r->rnr_psn, SNIC_RTX_RNR);
        snic_transport_arm_rto(c, qp);
    }
    return true;
}

bool snic_transport_rto_fired(SnicQp *qp, uint64_t now)
{
    SnicReq *r = &qp->req;

    if (r->deadline == UINT64_MAX || now < r->deadline) {
        return false;
    }
    r->deadline = UINT64_MAX;
    return true;
}

void snic_transport_fail(SnicCore *c, SnicQp *qp, uint8_t status)
{
    c->transport_hooks->fail(c, qp, status);
}

bool snic_transport_rto_expired(const SnicQp *qp, uint64_t now)
{
    return !qp->req.rnr_wait && qp->req.deadline <= now;
}

uint32_t snic_transport_outstanding(const SnicQp *qp)
{
    return qp->req.dde.sent;
}

uint32_t snic_transport_wnd_start(const SnicQp *qp)
{
    return qp->req.dde.wnd_start;
}

uint32_t snic_transport_snd_nxt(const SnicQp *qp)
{
    return (qp->req.dde.wnd_start + qp->req.dde.sent) & SNIC_PSN_MASK;
}

uint64_t snic_transport_tx_bytes(const SnicQp *qp)
{
    const SnicRateCredit *rc = snic_rate_credit(qp);

    return rc ? rc->tx_bytes : 0;
}

uint64_t snic_transport_now(SnicCore *c)
{
    return c->ops->now_ns(c->opaque);
}

uint32_t snic_transport_line_rate(SnicCore *c)
{
    return c->cfg.link_speed_mbps;
}

uint32_t snic_transport_qpn(SnicCore *c, const SnicQp *qp)
{
    return qp - c->qps;
}

void snic_transport_event(SnicCore *c, SnicTracePoint tp, const uint64_t a[4])
{
    snic_trace(c, tp, a);
}

/* ---- selection (SET_QP_TRANSPORT) and start of a QP's program ---- */

bool snic_transport_select(SnicQp *qp, uint8_t program, uint8_t ack_every)
{
    const SnicProgram *p;
    uint32_t bytes;

    if (program >= SNIC_PROGRAMS || !snic_program_fits(snic_programs[program])) {
        return false;
    }
    p = snic_programs[program];
    bytes = snic_program_area_bytes(p);
    snic_transport_release(qp);
    qp->program = program;
    qp->resp.ack_every = p->ack_policy == SNIC_ACK_TCP ? MAX(ack_every, 1) : 0;
    qp->pstate = bytes ? g_malloc0(bytes) : NULL;
    if (qp->pstate) {
        snic_prog_head(qp)->timer_at = UINT64_MAX;
    }
    if (snic_token_credit(qp)) {
        snic_token_credit(qp)->pull_at = UINT64_MAX;
    }
    return true;
}

void snic_transport_release(SnicQp *qp)
{
    g_free(qp->pstate);
    qp->pstate = NULL;
    qp->program = SNIC_PROGRAM_GBN;
    qp->resp.ack_every = 0;
}

void snic_transport_release_all(SnicCore *c)
{
    uint32_t i;

    for (i = 0; i < c->cfg.max_qp + SNIC_FIRST_QPN; i++) {
        snic_transport_release(&c->qps[i]);
    }
}

void snic_transport_start(SnicCore *c, SnicQp *qp)
{
    const SnicProgram *p = snic_qp_program(qp);
    SnicRateCredit *rc;

    qp->req.credit = (SnicCredit) {
        .window = SNIC_TX_WINDOW,
    };
    /*
     * The area is as selection allocated it (a QP enters RTS once per
     * selection: RESET releases it): not cleared here, since the
     * responder, in RTR since before, may have recorded the peer's first
     * packets in it already (placement map, last CNP).
     */
    rc = snic_rate_credit(qp);
    if (rc) {
        /* a full bucket of one scheduler burst; the program sets r */
        rc->burst = c->cfg.sched_burst;
        rc->credit = rc->burst;
        rc->t_last = snic_transport_now(c);
        rc->ready_at = UINT64_MAX;
    }
    if (p->init) {
        p->init(c, qp);
    }
    snic_sched_notify(c, qp);   /* WQEs may already be posted */
}
