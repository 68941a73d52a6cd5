/*
 * snic core: RC requester and completer.
 *
 * The requester turns send WQEs into segments (one PSN each, path MTU
 * bytes) as the data-delivery engine asks for them, new or retransmitted:
 * a segment is rebuilt from the WQE in host memory, never buffered. The
 * completer takes ACKs and NAKs, slides the window, completes WQEs in post
 * order and hands the feedback to the QP's transport program.
 *
 * No table of outstanding WQEs is kept (SRNIC's cache-free design, NSDI'23
 * section 4.3): the QP context holds where the oldest uncompleted WQE
 * starts (comp_psn) and how far the newest one got (sq_head, wqe_off).
 * Which WQE a PSN belongs to, its length and op-code, are found again by
 * reading the WQEs from comp_psn on: when a segment is resent, a response
 * arrives, or WQEs complete.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"

/* A send WQE read from the SQ, with the PSNs it occupies. */
typedef struct ReqWqe {
    uint32_t index;             /* SQ index */
    uint32_t msg;               /* message number (SnicOooMsg), if kept */
    struct snic_sq_wqe w;
    SnicSendWqe info;
} ReqWqe;

static void fail_at(SnicCore *c, SnicQp *qp, uint32_t index, uint8_t status);

static uint32_t mtu_bytes(const SnicQp *qp)
{
    return 128u << qp->attr.path_mtu;
}

static uint32_t wqe_last_psn(const SnicSendWqe *w)
{
    return (w->first_psn + w->npsn - 1) & SNIC_PSN_MASK;
}

static bool is_read(uint8_t op)
{
    return op == SNIC_WR_RDMA_READ;
}

static bool is_atomic(uint8_t op)
{
    return op == SNIC_WR_ATOMIC_CMP_SWAP || op == SNIC_WR_ATOMIC_FETCH_ADD;
}

/* Does its message take a receive WQE at the responder (SnicOooMsg)? */
static bool takes_recv(uint8_t op)
{
    return op == SNIC_WR_SEND || op == SNIC_WR_SEND_IMM ||
           op == SNIC_WR_SEND_INV || op == SNIC_WR_RDMA_WRITE_IMM;
}

/* The message number of WQE sq_head (selective programs, SRNIC; else 0) */
static uint32_t head_msg(SnicQp *qp)
{
    SnicOooMsg *m = snic_prog_msg(qp);

    return m ? m->req_head : 0;
}

/* The PSNs a message of 'len' bytes and op-code 'op' occupies */
static uint32_t wqe_npsn(const SnicQp *qp, uint8_t op, uint64_t len)
{
    if (snic_wr_is_local(op)) {
        return 0;           /* runs in the SQ's order, sends nothing */
    }
    return len && !is_atomic(op) ? (len + mtu_bytes(qp) - 1) / mtu_bytes(qp) :
                                   1;
}

/*
 * Read WQE 'index', which starts at PSN first_psn; its span in e->info.
 * A WQE is validated (with guest errors) once, when it starts; one that
 * the guest made unreadable or malformed after that fails quietly.
 */
static uint8_t wqe_read(SnicCore *c, SnicQp *qp, uint32_t index,
                        uint32_t first_psn, ReqWqe *e)
{
    const struct snic_sq_wqe *w = &e->w;
    uint64_t len = 0;
    unsigned i;

    e->index = index;
    if (snic_sq_fetch(c, qp, index, &e->w) ||
        w->num_sge > SNIC_SQ_WQE_MAX_SGE) {
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    if (w->flags & SNIC_WQE_INLINE) {
        if (w->inline_len > SNIC_MAX_INLINE_DATA) {
            return SNIC_WC_LOC_LEN_ERR;
        }
        len = w->inline_len;
    } else {
        for (i = 0; i < w->num_sge; i++) {
            len += GUINT32_FROM_LE(w->sge[i].length);
        }
    }
    if (snic_rpc_wr(w->opcode)) {
        len += SNIC_RPC_HDR_LEN;    /* the message starts with its header */
    }
    if (len > (1ull << 31)) {
        return SNIC_WC_LOC_LEN_ERR;
    }
    e->info = (SnicSendWqe) {
        .first_psn = first_psn,
        .len = snic_wr_is_local(w->opcode) ? 0 : len,
        .npsn = wqe_npsn(qp, w->opcode, len),
        .opcode = w->opcode,
        .flags = w->flags,
    };
    return SNIC_WC_SUCCESS;
}

/*
 * The started WQE that PSN psn belongs to, read from comp_psn on (its
 * message number counted from sq_comp's): 1 found, 0 not in flight, -1 a
 * WQE could not be read (the QP failed).
 */
static int wqe_of_psn(SnicCore *c, SnicQp *qp, uint32_t psn, ReqWqe *e)
{
    SnicReq *r = &qp->req;
    SnicOooMsg *m = snic_prog_msg(qp);
    uint32_t first = r->comp_psn, msg = m ? m->req_comp : 0;
    uint16_t i, end = r->sq_head + (r->wqe_off ? 1 : 0);

    for (i = qp->sq_comp; i != end; i++) {
        uint8_t st;

        first = snic_rpc_skip(c, qp, first, i);     /* answers before it */
        st = wqe_read(c, qp, i, first, e);

        if (st != SNIC_WC_SUCCESS) {
            fail_at(c, qp, i, st);
            return -1;
        }
        e->msg = msg;
        if (e->info.npsn &&
            ((psn - first) & SNIC_PSN_MASK) < e->info.npsn) {
            return 1;
        }
        first = (first + e->info.npsn) & SNIC_PSN_MASK;
        msg += takes_recv(e->info.opcode);
    }
    return 0;
}

void snic_req_arm_rto(SnicCore *c, SnicQp *qp)
{
    const SnicProgram *p = snic_qp_program(qp);
    SnicReq *r = &qp->req;
    uint64_t rto;

    /* while an RNR wait runs, its timer alone governs (IBA 9.7.5.2.8) */
    if (r->rnr_wait) {
        return;
    }
    if (!qp->attr.timeout || !snic_dde_outstanding(r)) {
        r->deadline = UINT64_MAX;
        snic_qp_timer_sync(c, qp);
        return;
    }
    /* local ACK timeout: 4.096 us * 2^timeout on the virtual clock */
    rto = 4096ull << qp->attr.timeout;
    r->deadline = c->ops->now_ns(c->opaque) + (p->rto ? p->rto(qp, rto) : rto);
    snic_qp_timer_sync(c, qp);
}

/* Complete, in post order, every WQE whose last PSN is acknowledged. */
static void complete_acked(SnicCore *c, SnicQp *qp)
{
    SnicReq *r = &qp->req;
    SnicOooMsg *m = snic_prog_msg(qp);

    for (;;) {
        ReqWqe e;
        uint8_t st;

        /* RPC answers sent before this WQE: it starts after them */
        r->comp_psn = snic_rpc_skip(c, qp, r->comp_psn, qp->sq_comp);
        if (r->local_err && qp->sq_comp == r->local_err_index) {
            fail_at(c, qp, qp->sq_comp, r->local_err_status);
            return;
        }
        if (qp->sq_comp == r->sq_head) {
            break;
        }
        /* wr_id lives in host memory: the WQE is ours until here */
        st = wqe_read(c, qp, qp->sq_comp, r->comp_psn, &e);
        if (st != SNIC_WC_SUCCESS) {
            fail_at(c, qp, qp->sq_comp, st);
            return;
        }
        if (snic_psn_cmp(wqe_last_psn(&e.info), r->dde.wnd_start) >= 0) {
            break;
        }
        if (e.info.flags & SNIC_WQE_SIGNALED) {
            snic_post_send_cqe(c, qp, &e.info, GUINT64_FROM_LE(e.w.wr_id),
                               SNIC_WC_SUCCESS);
        }
        if (is_read(e.info.opcode) || is_atomic(e.info.opcode)) {
            r->rd_atomic--;
        }
        r->comp_psn = (r->comp_psn + e.info.npsn) & SNIC_PSN_MASK;
        qp->sq_comp++;
        if (m && takes_recv(e.info.opcode)) {
            m->req_comp++;
        }
    }
}

/*
 * WQE 'index' failed with 'status': the WQEs before it are flushed, it
 * completes with the status, and the QP goes to ERR (flushing the rest).
 */
static void fail_at(SnicCore *c, SnicQp *qp, uint32_t index, uint8_t status)
{
    while (qp->sq_comp != qp->sq_tail) {
        bool failing = qp->sq_comp == index;
        bool started = qp->sq_comp != qp->req.sq_head || qp->req.wqe_off;
        ReqWqe e;

        /* only a started WQE's op-code is known; the rest are flushed */
        if (wqe_read(c, qp, qp->sq_comp, 0, &e) != SNIC_WC_SUCCESS) {
            started = false;
            if (snic_sq_fetch(c, qp, qp->sq_comp, &e.w)) {
                e.w.wr_id = 0;
            }
        }
        snic_post_send_cqe(c, qp, started ? &e.info : NULL,
                           GUINT64_FROM_LE(e.w.wr_id),
                           failing ? status : SNIC_WC_WR_FLUSH_ERR);
        qp->sq_comp++;
        if (failing) {
            break;
        }
    }
    snic_rdma_qp_error(c, qp);
}

void snic_req_fail(SnicCore *c, SnicQp *qp, uint8_t status)
{
    fail_at(c, qp, qp->sq_comp, status);
}

/*
 * WQE 'index' failed locally (bad SGE, page list, ...). WQEs before it may
 * already have reached the responder, so they are not flushed: no new
 * segment goes out, they complete as their ACKs arrive (or time out), then
 * 'index' completes with 'status' and the QP goes to ERR.
 */
static void fail_local(SnicCore *c, SnicQp *qp, uint32_t index,
                       uint8_t status)
{
    SnicReq *r = &qp->req;

    if (r->local_err && (uint16_t)(index - qp->sq_comp) >=
                        (uint16_t)(r->local_err_index - qp->sq_comp)) {
        return;     /* an earlier WQE failed first */
    }
    r->local_err = true;
    r->local_err_index = index;
    r->local_err_status = status;
    complete_acked(c, qp);
}

/* ---- building segments ---- */

/* PSNs the request for 'psn' covers: a READ chunk's rest, else one. */
static uint32_t seg_count(const SnicSendWqe *info, uint32_t psn)
{
    uint32_t s = (psn - info->first_psn) & SNIC_PSN_MASK;

    if (!is_read(info->opcode)) {
        return 1;
    }
    return MIN((s / SNIC_READ_CHUNK + 1) * SNIC_READ_CHUNK, info->npsn) - s;
}

uint8_t snic_seg_opcode(uint8_t wr, uint32_t seg, uint32_t nseg)
{
    bool first = seg == 0, last = seg == nseg - 1;
    bool send = wr == SNIC_WR_SEND || wr == SNIC_WR_SEND_IMM ||
                wr == SNIC_WR_SEND_INV;
    bool imm = wr == SNIC_WR_SEND_IMM || wr == SNIC_WR_RDMA_WRITE_IMM;
    bool inv = wr == SNIC_WR_SEND_INV;

    if (send) {
        return first && last ? (imm ? SNIC_OP_RC_SEND_ONLY_IMM :
                                inv ? SNIC_OP_RC_SEND_ONLY_INV :
                                SNIC_OP_RC_SEND_ONLY) :
               first ? SNIC_OP_RC_SEND_FIRST :
               last ? (imm ? SNIC_OP_RC_SEND_LAST_IMM :
                       inv ? SNIC_OP_RC_SEND_LAST_INV :
                       SNIC_OP_RC_SEND_LAST) :
               SNIC_OP_RC_SEND_MIDDLE;
    }
    return first && last ? (imm ? SNIC_OP_RC_WRITE_ONLY_IMM :
                                  SNIC_OP_RC_WRITE_ONLY) :
           first ? SNIC_OP_RC_WRITE_FIRST :
           last ? (imm ? SNIC_OP_RC_WRITE_LAST_IMM : SNIC_OP_RC_WRITE_LAST) :
           SNIC_OP_RC_WRITE_MIDDLE;
}

/*
 * SRNIC's window may be a few segments (DCTCP's share of a congested
 * link): the packet that fills it asks for an ACK, or nothing would
 * acknowledge it before the AckReq every SNIC_ACKREQ_EVERY PSNs and the
 * QP would wait for its timeout.
 */
static bool window_full(const SnicQp *qp)
{
    return snic_qp_program(qp)->flags & SNIC_PROG_SR &&
           qp->req.dde.sent + 1 >= qp->req.credit.window;
}

/*
 * Build and send the request for psn of WQE e (a READ's: for count PSNs);
 * burst_end: the last segment the QP's scheduling iteration may send.
 */
static uint8_t send_segment(SnicCore *c, SnicQp *qp, const ReqWqe *e,
                            uint32_t psn, uint32_t count, bool burst_end)
{
    const SnicSendWqe *info = &e->info;
    const struct snic_sq_wqe *w = &e->w;
    uint32_t mtu = mtu_bytes(qp), seg = (psn - info->first_psn) &
                   SNIC_PSN_MASK;
    uint32_t off = seg * mtu, len = info->len > off ?
                   MIN(mtu, info->len - off) : 0;
    uint32_t host_bytes = 0;
    SnicPkt p;
    uint8_t st;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.psn = psn;
    p.reth.va = GUINT64_FROM_LE(w->rdma.remote_addr) + off;
    p.reth.rkey = GUINT32_FROM_LE(w->rdma.rkey);
    if (is_read(info->opcode)) {
        /* one request for the rest of this chunk of the READ */
        p.opcode = SNIC_OP_RC_READ_REQUEST;
        p.reth.len = MIN((uint64_t)count * mtu,
                         info->len - (uint64_t)MIN(off, info->len));
        p.ackreq = true;
        if (snic_sr_on(qp)) {
            /* SRNIC: the responses that arrived (self-clocking) */
            p.xport = true;
            p.xeth.flags = SNIC_XETH_F_RESP;
            p.xeth.msg = qp->req.dde.wnd_start;
        }
    } else if (snic_rpc_wr(info->opcode)) {
        st = snic_rpc_request_segment(c, qp, w, info->len, seg, info->npsn,
                                      &p, &host_bytes);
        if (st != SNIC_WC_SUCCESS) {
            return st;
        }
    } else if (is_atomic(info->opcode)) {
        bool cas = info->opcode == SNIC_WR_ATOMIC_CMP_SWAP;

        p.opcode = cas ? SNIC_OP_RC_CMP_SWAP : SNIC_OP_RC_FETCH_ADD;
        p.atomic.va = GUINT64_FROM_LE(w->rdma.remote_addr);
        p.atomic.rkey = p.reth.rkey;
        p.atomic.swap_add = GUINT64_FROM_LE(cas ? w->rdma.swap :
                                            w->rdma.compare_add);
        p.atomic.compare = cas ? GUINT64_FROM_LE(w->rdma.compare_add) : 0;
        p.ackreq = true;
    } else {
        st = snic_wqe_gather(c, qp, w, off, c->rdma_payload, len);
        if (st != SNIC_WC_SUCCESS) {
            return st;
        }
        p.opcode = snic_seg_opcode(info->opcode, seg, info->npsn);
        /*
         * A burst that leaves its message unfinished asks for an ACK too:
         * the QP's next turn comes a scheduler round later, which with
         * many QPs lasts longer than the ACK timeout, and without that
         * ACK the burst's packets would time out and go again.
         */
        p.ackreq = seg == info->npsn - 1 || (psn % SNIC_ACKREQ_EVERY) == 0 ||
                   burst_end || window_full(qp);
        p.se = seg == info->npsn - 1 && (info->flags & SNIC_WQE_SOLICITED) &&
               info->opcode != SNIC_WR_RDMA_WRITE;
        if (snic_qp_program(qp)->flags & (SNIC_PROG_XPORT | SNIC_PROG_SR)) {
            /*
             * every packet says where it goes: placed as it arrives; a
             * message taking a receive WQE (a WRITE with immediate too)
             * says which, and where in the message the packet is
             */
            bool send = info->opcode != SNIC_WR_RDMA_WRITE &&
                        info->opcode != SNIC_WR_RDMA_WRITE_IMM;
            bool msg = takes_recv(info->opcode);

            p.xport = true;
            p.xeth.flags = (send ? 0 : SNIC_XETH_F_PLACE) |
                           (msg ? SNIC_XETH_F_MSG : 0);
            p.xeth.rkey = send ? 0 : p.reth.rkey;
            p.xeth.va = send ? 0 : p.reth.va;
            p.xeth.msg = msg ? e->msg : 0;
            p.xeth.offset = msg ? off : 0;
        }
        p.reth.va -= off;       /* RETH names the whole message */
        p.reth.len = info->len;
        p.imm = GUINT32_FROM_BE(w->imm);
        p.ieth_rkey = GUINT32_FROM_BE(w->imm); /* SEND_INV: rkey to drop */
        p.payload = c->rdma_payload;
        p.payload_len = len;
        host_bytes = snic_wqe_host_bytes(w, len);
    }
    snic_rdma_xmit(c, &p, host_bytes);
    return SNIC_WC_SUCCESS;
}

/* Payload bytes of the request for psn (the credit it takes) */
static uint32_t seg_bytes(const SnicQp *qp, const SnicSendWqe *info,
                          uint32_t psn)
{
    uint32_t off = ((psn - info->first_psn) & SNIC_PSN_MASK) * mtu_bytes(qp);

    if (is_read(info->opcode) || is_atomic(info->opcode)) {
        return 0;   /* a request: its responses are the peer's to pace */
    }
    return info->len > off ? MIN(mtu_bytes(qp), info->len - off) : 0;
}

#define SNIC_WQE_WAIT   0xff    /* start_wqe: not now (rd_atomic, fence) */

/*
 * Start the WQE at sq_head: validate it (guest errors for what the driver
 * got wrong) and read its PSN range into e; run it if it is local.
 */
static uint8_t start_wqe(SnicCore *c, SnicQp *qp, ReqWqe *e)
{
    SnicReq *r = &qp->req;
    const struct snic_sq_wqe *w = &e->w;
    uint64_t len;
    uint8_t st;

    if (snic_sq_fetch(c, qp, r->sq_head, &e->w)) {
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    if (w->num_sge > SNIC_SQ_WQE_MAX_SGE ||
        (w->opcode != SNIC_WR_SEND && w->opcode != SNIC_WR_SEND_IMM &&
         w->opcode != SNIC_WR_SEND_INV && w->opcode != SNIC_WR_RDMA_WRITE &&
         w->opcode != SNIC_WR_RDMA_WRITE_IMM && !is_read(w->opcode) &&
         !is_atomic(w->opcode) && !snic_wr_is_local(w->opcode) &&
         !snic_rpc_wr(w->opcode))) {
        SNIC_GUEST_ERROR(c, GE_WQE_INVALID, qp - c->qps, r->sq_head,
                         w->opcode, w->num_sge);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    if (w->flags & ~SNIC_WQE_FLAGS_ALL) {
        SNIC_GUEST_ERROR(c, GE_WQE_FLAGS, qp - c->qps, r->sq_head, w->flags);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    /* the fence indicator: wait for earlier READs and atomics to finish */
    if (w->flags & SNIC_WQE_FENCE && r->rd_atomic) {
        return SNIC_WQE_WAIT;
    }
    st = snic_wqe_payload_len(c, qp, r->sq_head, w, &len);
    if (st == SNIC_WC_SUCCESS) {
        st = wqe_read(c, qp, r->sq_head, r->next_psn, e);
    }
    if (st != SNIC_WC_SUCCESS) {
        return st;
    }
    if (snic_wr_is_local(w->opcode)) {
        /*
         * No PSN: it completes once every WQE before it has, and runs
         * now, in post order with the requests before it (which may
         * still be in flight: a FENCE waits for READs and atomics).
         */
        return snic_local_op(c, qp, w);
    }
    if (is_atomic(w->opcode) && e->info.len != 8) {
        return SNIC_WC_LOC_LEN_ERR;
    }
    if (snic_rpc_wr(w->opcode)) {
        st = snic_rpc_wqe_check(c, qp, r->sq_head, w, e->info.len);
        if (st != SNIC_WC_SUCCESS) {
            return st;
        }
    }
    if (is_read(w->opcode) || is_atomic(w->opcode)) {
        if (!qp->attr.max_rd_atomic) {
            return SNIC_WC_LOC_QP_OP_ERR;   /* initiator depth 0 */
        }
        if (r->rd_atomic >= qp->attr.max_rd_atomic) {
            return SNIC_WQE_WAIT;
        }
    }
    return SNIC_WC_SUCCESS;
}

/* Would another iteration send something now? */
static bool req_has_work(const SnicQp *qp)
{
    const SnicReq *r = &qp->req;

    uint32_t psn;
    bool rtx;

    if (qp->state != SNIC_QPS_RTS || r->rnr_wait ||
        snic_credit_blocked(qp) || !snic_dde_next(r, &psn, &rtx)) {
        return false;   /* the window is full, for resent segments too */
    }
    return rtx || (r->sq_head != qp->sq_tail && !r->local_err &&
                   (uint16_t)(r->sq_head - qp->sq_comp) < snic_dde_span(qp));
}

/* Send up to 'budget' segments of one QP; true if it has more to do. */
bool snic_req_run(SnicCore *c, SnicQp *qp, unsigned budget, unsigned wqes)
{
    SnicReq *r = &qp->req;
    unsigned done = 0, started = 0, sent = 0;
    /* a WQE half sent by the last iteration is fetched again */
    bool resumed = r->wqe_off != 0, have = false;
    /* the WQE this iteration works on, dropped at its end (no cache) */
    ReqWqe e;

    /*
     * The responder asked for time with an RNR NAK: nothing goes out until
     * the wait ends, new work included (it would only draw more NAKs).
     */
    while (done < budget && qp->state == SNIC_QPS_RTS && snic_ready(c) &&
           !r->rnr_wait) {
        uint32_t psn, count;
        bool rtx;
        uint8_t st;

        if (!snic_dde_next(r, &psn, &rtx)) {
            break;      /* the window is full */
        }
        if (!snic_credit_ready(c, qp)) {
            break;      /* no rate credit or token: its timer or a grant */
        }
        /*
         * RPC answers (rpc.c) are this QP's requests too, made by the
         * device: between two messages of the SQ, and sent again from
         * their records.
         */
        if (rtx ? snic_rpc_resend(c, qp, psn) :
                  !r->wqe_off && snic_rpc_send_new(c, qp, psn)) {
            snic_dde_sent(r, psn, 1, rtx);
            snic_credit_spend(c, qp, mtu_bytes(qp));
            if (!rtx) {
                r->next_psn = (r->next_psn + 1) & SNIC_PSN_MASK;
            }
            if (r->deadline == UINT64_MAX) {     /* no RNR wait here */
                snic_req_arm_rto(c, qp);
            }
            done++;
            continue;
        }
        if (rtx) {
            if (!have || ((psn - e.info.first_psn) & SNIC_PSN_MASK) >=
                         e.info.npsn) {
                int found = wqe_of_psn(c, qp, psn, &e);

                if (found <= 0) {
                    break;      /* failed the QP, or not in flight */
                }
                have = true;
            }
        } else {
            if (r->sq_head == qp->sq_tail || r->local_err ||
                (uint16_t)(r->sq_head - qp->sq_comp) >= snic_dde_span(qp)) {
                break;  /* nothing new to send */
            }
            if (!r->wqe_off) {
                if (started == wqes) {
                    /* this iteration's WQEs are used: the next fetches */
                    done = budget;
                    break;
                }
                started++;
                st = start_wqe(c, qp, &e);
                e.msg = head_msg(qp);
                if (st == SNIC_WQE_WAIT) {
                    break;
                }
                if (st != SNIC_WC_SUCCESS) {
                    fail_local(c, qp, r->sq_head, st);
                    break;
                }
                have = true;
                if (snic_wr_is_local(e.info.opcode)) {
                    r->sq_head++;       /* done: no segment to send */
                    complete_acked(c, qp);
                    done++;
                    continue;
                }
                if (is_read(e.info.opcode) || is_atomic(e.info.opcode)) {
                    r->rd_atomic++;
                }
            } else if (!have || e.index != r->sq_head) {
                st = wqe_read(c, qp, r->sq_head,
                              (r->next_psn - r->wqe_off) & SNIC_PSN_MASK, &e);
                e.msg = head_msg(qp);
                if (st != SNIC_WC_SUCCESS) {
                    fail_local(c, qp, r->sq_head, st);
                    break;
                }
                have = true;
            }
        }
        count = seg_count(&e.info, psn);
        if (rtx && is_read(e.info.opcode) && snic_sr_on(qp)) {
            /*
             * SRNIC asks again for the hole alone (the responses after
             * it were placed, sr_read.c): up to the end of the range
             * marked, which its host sent (SNIC_SR_RETRY_RTX)
             */
            uint32_t k = 1;

            while (k < count &&
                   snic_transport_rtx_marked(qp, (psn + k) & SNIC_PSN_MASK)) {
                k++;
            }
            count = k;
        }
        if (!rtx && is_read(e.info.opcode) &&
            ((r->dde.sent && r->dde.sent + count > r->credit.window) ||
             (r->wqe_off && r->dde.wnd_start != r->next_psn))) {
            /*
             * a READ chunk needs room, and goes after the previous one;
             * with nothing in flight it goes whole even if the window
             * is smaller (DCTCP's 10 segments, or 2), or nothing would
             * ever open it
             */
            break;
        }
        st = send_segment(c, qp, &e, psn, count, done + 1 == budget);
        if (st != SNIC_WC_SUCCESS) {
            fail_local(c, qp, e.index, st);
            break;
        }
        snic_dde_sent(r, psn, count, rtx);
        snic_credit_spend(c, qp, seg_bytes(qp, &e.info, psn));
        sent++;
        if (!rtx) {
            r->next_psn = (r->next_psn + count) & SNIC_PSN_MASK;
            r->wqe_off += count;
            if (r->wqe_off == e.info.npsn) {
                r->wqe_off = 0;
                r->sq_head++;
                if (snic_prog_msg(qp) && takes_recv(e.info.opcode)) {
                    snic_prog_msg(qp)->req_head++;
                }
            }
        }
        if (r->deadline == UINT64_MAX) {
            snic_req_arm_rto(c, qp);
        }
        done++;
    }
    SNIC_EVENT(c, SCHED_ITERATION, qp - c->qps, started + resumed, sent);
    return done == budget && !snic_credit_blocked(qp) &&
           (req_has_work(qp) || (snic_rpc_answer_due(c, qp) &&
                                 qp->state == SNIC_QPS_RTS &&
                                 !r->rnr_wait &&
                                 r->dde.sent < r->credit.window));
}

/* ---- completer: responses from the peer ---- */

/*
 * The first PSN whose READ response or atomic ACK has not arrived: an ACK
 * for a later PSN means those responses were lost (IBA 9.7.5.1.4: a
 * response implicitly acknowledges only what precedes it).
 */
static bool rd_atomic_barrier(SnicCore *c, SnicQp *qp, uint32_t *barrier)
{
    SnicReq *r = &qp->req;
    uint32_t first = r->comp_psn;
    uint16_t i, end = r->sq_head + (r->wqe_off ? 1 : 0);

    if (!r->rd_atomic) {
        return false;       /* none outstanding: nothing to read */
    }
    for (i = qp->sq_comp; i != end; i++) {
        ReqWqe e;

        first = snic_rpc_skip(c, qp, first, i);
        if (wqe_read(c, qp, i, first, &e) != SNIC_WC_SUCCESS) {
            return false;   /* the completer fails it when it gets there */
        }
        if ((is_read(e.info.opcode) || is_atomic(e.info.opcode)) &&
            snic_psn_cmp(wqe_last_psn(&e.info), r->dde.wnd_start) >= 0) {
            *barrier = snic_psn_cmp(first, r->dde.wnd_start) > 0 ?
                       first : r->dde.wnd_start;
            return true;
        }
        first = (first + e.info.npsn) & SNIC_PSN_MASK;
    }
    return false;
}

/*
 * An ACK, NAK or response acknowledges every PSN up to 'upto' - except
 * READ/atomic PSNs whose responses did not arrive: those were lost (IBA
 * 9.7.5.1.4). Acknowledge up to the first of them and complete what that
 * covers; true if a missing response stopped it (resume from wnd_start).
 */
static bool ack_implied(SnicCore *c, SnicQp *qp, uint32_t upto)
{
    uint32_t barrier;
    bool stopped = rd_atomic_barrier(c, qp, &barrier) &&
                   snic_psn_cmp(upto, barrier) >= 0;

    snic_dde_ack_upto(&qp->req,
                      stopped ? (barrier - 1) & SNIC_PSN_MASK : upto);
    complete_acked(c, qp);
    return stopped;
}

/*
 * A READ response or atomic ACK for psn, which must be the next one
 * (SRNIC's READ responses: any one sent, sr_read.c). Returns 1 with
 * feedback for the program, 0 to drop it silently, -1 if it failed the
 * QP or was taken without feedback.
 */
static int rd_atomic_response(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                              SnicFeedback *fb)
{
    SnicReq *r = &qp->req;
    uint32_t mtu = mtu_bytes(qp), s, off, want, chunk_s, chunk_n;
    bool atomic_ack = p->opcode == SNIC_OP_RC_ATOMIC_ACK, end;
    const SnicSendWqe *info;
    const struct snic_sq_wqe *w;
    ReqWqe e;
    uint8_t op, st;
    int found;

    if (snic_psn_cmp(p->psn, r->dde.wnd_start) < 0) {
        return 0;   /* a duplicate of a response already taken */
    }
    if (snic_sr_on(qp) && !atomic_ack) {
        /* SRNIC: placed whatever its order (srnic/sr_read.c) */
        return snic_sr_read_response(c, qp, p, fb);
    }
    if (p->psn != r->dde.wnd_start) {
        /* if a response before it is missing, resume from that one, once */
        ack_implied(c, qp, (p->psn - 1) & SNIC_PSN_MASK);
        if (qp->state != SNIC_QPS_RTS) {
            return -1;      /* a WQE before it failed: all is flushed */
        }
    }
    if (p->psn != r->dde.wnd_start) {
        if (r->resp_retry) {
            return 0;
        }
        r->resp_retry = true;
        fb->kind = SNIC_FB_NAK_SEQ;
        fb->psn = r->dde.wnd_start;
        return 1;
    }
    r->resp_retry = false;
    found = wqe_of_psn(c, qp, p->psn, &e);
    if (found < 0) {
        return -1;
    }
    info = &e.info;
    w = &e.w;
    if (!found || (atomic_ack ? !is_atomic(info->opcode) :
                                !is_read(info->opcode))) {
        snic_req_fail(c, qp, SNIC_WC_BAD_RESP_ERR);
        return -1;
    }
    if (atomic_ack) {
        uint64_t orig = GUINT64_TO_LE(p->atomic_ack);

        st = snic_sge_scatter(c, qp - c->qps, qp->pdn, w->sge, w->num_sge,
                              0, &orig, 8);
    } else {
        /* the position within its chunk decides the op-code */
        s = (p->psn - info->first_psn) & SNIC_PSN_MASK;
        off = s * mtu;
        want = info->len > off ? MIN(mtu, info->len - off) : 0;
        /*
         * A retried request may start mid-chunk, so only the end of a
         * chunk is known: LAST or ONLY there, FIRST or MIDDLE before it.
         */
        chunk_s = s % SNIC_READ_CHUNK;
        chunk_n = seg_count(info, (p->psn - chunk_s) & SNIC_PSN_MASK);
        end = chunk_s == chunk_n - 1;
        op = p->opcode;
        if (p->payload_len != want ||
            (end && op != SNIC_OP_RC_READ_RESP_LAST &&
             op != SNIC_OP_RC_READ_RESP_ONLY) ||
            (!end && op != SNIC_OP_RC_READ_RESP_FIRST &&
             op != SNIC_OP_RC_READ_RESP_MIDDLE)) {
            snic_req_fail(c, qp, SNIC_WC_BAD_RESP_ERR);
            return -1;
        }
        st = snic_sge_scatter(c, qp - c->qps, qp->pdn, w->sge, w->num_sge,
                              off, p->payload, want);
    }
    if (st != SNIC_WC_SUCCESS) {
        fail_local(c, qp, e.index, st);
        return -1;
    }
    snic_dde_ack_upto(r, p->psn);
    fb->kind = SNIC_FB_ACK;
    return 1;
}

int snic_req_read_place(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    uint32_t mtu = mtu_bytes(qp), s, off, want, req;
    ReqWqe e;
    uint8_t st;
    int found;

    found = wqe_of_psn(c, qp, p->psn, &e);
    if (found <= 0) {
        return found;           /* no WQE in flight has it: refused */
    }
    /* the request it echoes: in the same READ, not after the response */
    s = (p->psn - e.info.first_psn) & SNIC_PSN_MASK;
    req = (p->xeth.msg - e.info.first_psn) & SNIC_PSN_MASK;
    if (!is_read(e.info.opcode) || req > s ||
        ((p->xeth.msg + p->xeth.offset) & SNIC_PSN_MASK) != p->psn ||
        p->xeth.offset > s) {
        return 0;
    }
    off = s * mtu;
    want = e.info.len > off ? MIN(mtu, e.info.len - off) : 0;
    if (p->payload_len != want) {
        return 0;
    }
    st = snic_sge_scatter(c, qp - c->qps, qp->pdn, e.w.sge, e.w.num_sge, off,
                          p->payload, want);
    if (st != SNIC_WC_SUCCESS) {
        fail_local(c, qp, e.index, st);
        return -1;
    }
    return 1;
}

void snic_req_read_acked(SnicCore *c, SnicQp *qp, uint32_t upto,
                         SnicFeedback *fb)
{
    SnicReq *r = &qp->req;
    uint32_t wnd_start = r->dde.wnd_start;

    snic_dde_ack_upto(r, upto);
    complete_acked(c, qp);
    fb->progress = r->dde.wnd_start != wnd_start;
    fb->newly_acked = (r->dde.wnd_start - wnd_start) & SNIC_PSN_MASK;
    fb->old_wnd_start = wnd_start;
    if (qp->state == SNIC_QPS_RTS) {
        snic_qp_program(qp)->incoming(c, qp, fb);
    }
    snic_sched_notify(c, qp);
}

void snic_req_response(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicReq *r = &qp->req;
    uint8_t syn = p->aeth.syndrome;
    SnicFeedback fb = { .psn = p->psn, .syndrome = SNIC_AETH_VALUE(syn) };
    uint32_t last_sent = (r->dde.wnd_start + r->dde.sent - 1) & SNIC_PSN_MASK;
    uint32_t wnd_start = r->dde.wnd_start;
    /* a SACK block only for a program that places out of order */
    bool sack = p->xport && p->xeth.flags & SNIC_XETH_F_SACK &&
                (snic_prog_ooo(qp) || snic_sr_on(qp));
    ReqWqe e;

    /*
     * A receiver-driven program's PULL (a grant) or NACK (a PSN that
     * arrived trimmed): feedback of its own, not an acknowledgement, and
     * a PULL comes even with nothing in flight
     */
    if (p->opcode == SNIC_OP_RC_ACK && p->xport &&
        p->xeth.flags & (SNIC_XETH_F_PULL | SNIC_XETH_F_NACK)) {
        if (!(snic_qp_program(qp)->flags & SNIC_PROG_PULL) ||
            SNIC_AETH_KIND(syn) != SNIC_AETH_KIND_ACK) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        fb.kind = p->xeth.flags & SNIC_XETH_F_PULL ? SNIC_FB_PULL :
                  p->xeth.flags & SNIC_XETH_F_TRIMMED ? SNIC_FB_TRIMMED :
                  SNIC_FB_NACK;
        fb.psn = fb.kind == SNIC_FB_PULL ? p->xeth.msg : p->xeth.sack_lo;
        fb.old_wnd_start = wnd_start;
        snic_qp_program(qp)->incoming(c, qp, &fb);
        snic_sched_notify(c, qp);
        return;
    }
    /* SRNIC: the peer's acknowledgement of our READ responses */
    if (p->opcode == SNIC_OP_RC_ACK && p->xport &&
        p->xeth.flags & SNIC_XETH_F_RESP) {
        if (!snic_sr_on(qp) || !snic_sr_read_peer_ack(c, qp, p->xeth.msg)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
        }
        return;
    }
    /* the CE count echoed: only a program that reacts to it (DCTCP) */
    if (p->xport && p->xeth.flags & SNIC_XETH_F_ECE &&
        snic_qp_program(qp)->flags & SNIC_PROG_ECE) {
        fb.ece = true;
        fb.ce_count = p->xeth.offset;
    }
    if (!r->dde.sent || snic_psn_cmp(p->psn, last_sent) > 0 ||
        snic_psn_cmp(p->psn, (r->dde.wnd_start - 1) & SNIC_PSN_MASK) < 0) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);   /* stale or unexpected */
        return;
    }
    if (p->opcode != SNIC_OP_RC_ACK) {
        int ret = rd_atomic_response(c, qp, p, &fb);

        if (ret <= 0) {
            if (!ret) {
                snic_stat_inc(&c->stats.rdma_rx_dropped);
            }
            return;
        }
    } else {
        uint8_t kind = SNIC_AETH_KIND(syn);
        bool fatal = kind == SNIC_AETH_KIND_NAK && SNIC_AETH_VALUE(syn);
        bool stopped;

        if (kind != SNIC_AETH_KIND_ACK) {
            SNIC_EVENT(c, NAK_RECV, qp - c->qps, p->psn, syn);
        }
        if (kind == SNIC_AETH_KIND_RESERVED) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);  /* reserved code */
            return;
        }
        if (kind == SNIC_AETH_KIND_ACK &&
            snic_psn_cmp(p->psn, r->dde.wnd_start) < 0) {
            /* nothing new: a duplicate ACK, evidence for TCP's programs */
            if (snic_qp_program(qp)->ack_policy == SNIC_ACK_TCP ||
                p->xport) {
                fb.kind = sack ?
                          SNIC_FB_SACK : SNIC_FB_DUP_ACK;
                fb.sack = p->xeth.sack_lo;
                fb.sack_end = p->xeth.sack_hi;
                fb.old_wnd_start = wnd_start;
                snic_qp_program(qp)->incoming(c, qp, &fb);
                snic_sched_notify(c, qp);
            }
            return;
        }
        /* an ACK covers its PSN; a NAK only what precedes it */
        stopped = ack_implied(c, qp, kind != SNIC_AETH_KIND_ACK ?
                                     (p->psn - 1) & SNIC_PSN_MASK : p->psn);
        if (qp->state != SNIC_QPS_RTS) {
            return;             /* a WQE it completed failed locally */
        }
        if (fatal) {
            /*
             * The NAK names the failed request by its PSN; a READ before
             * it whose response was lost is flushed, not blamed.
             */
            int found = wqe_of_psn(c, qp, p->psn, &e);

            if (found < 0) {
                return;
            }
            if (!found && snic_rpc_refused(c, qp, p->psn)) {
                return;         /* an RPC answer: no WQE to blame */
            }
            fail_at(c, qp, found ? e.index : qp->sq_comp,
                    syn == SNIC_AETH_NAK_INV_REQ ? SNIC_WC_REM_INV_REQ_ERR :
                    syn == SNIC_AETH_NAK_REM_ACCESS ? SNIC_WC_REM_ACCESS_ERR :
                    SNIC_WC_REM_OP_ERR);
            return;
        }
        if (stopped) {
            if (r->resp_retry) {
                return;         /* already resuming from it */
            }
            r->resp_retry = true;
            fb.kind = SNIC_FB_NAK_SEQ;
            fb.psn = r->dde.wnd_start;
        } else {
            fb.kind = kind == SNIC_AETH_KIND_ACK ? SNIC_FB_ACK :
                      kind == SNIC_AETH_KIND_RNR ? SNIC_FB_RNR :
                      SNIC_FB_NAK_SEQ;
            if (fb.kind == SNIC_FB_ACK && sack) {
                fb.kind = SNIC_FB_SACK;
                fb.sack = p->xeth.sack_lo;
                fb.sack_end = p->xeth.sack_hi;
            }
        }
    }
    complete_acked(c, qp);
    fb.progress = r->dde.wnd_start != wnd_start;
    fb.newly_acked = (r->dde.wnd_start - wnd_start) & SNIC_PSN_MASK;
    fb.old_wnd_start = wnd_start;
    if (qp->state == SNIC_QPS_RTS) {
        snic_qp_program(qp)->incoming(c, qp, &fb);
    }
    snic_sched_notify(c, qp);   /* credit, or segments to resend */
}

/* A CNP from the peer's notification point: the program reacts. */
void snic_req_cnp(SnicCore *c, SnicQp *qp)
{
    SnicFeedback fb = {
        .kind = SNIC_FB_CNP,
        .psn = qp->req.dde.wnd_start,
        .old_wnd_start = qp->req.dde.wnd_start,
    };

    if (qp->pstate) {
        snic_prog_head(qp)->cnp_rx++;   /* go-back-N ignores CNPs */
    }
    snic_qp_program(qp)->incoming(c, qp, &fb);
    snic_sched_notify(c, qp);
}
