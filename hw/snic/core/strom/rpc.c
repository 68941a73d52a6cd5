/*
 * snic core: StRoM RPCs on RC queue pairs (see rpc.h): the per-QP switch,
 * RPC messages on the requester side, their acceptance on the responder
 * side (kernel, fallback or error answer), the bounded slot pool, and the
 * answers the device sends as its own RDMA WRITE with immediate.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "strom/kernel.h"
#include "strom/rpc.h"
#include "port/wire.h"
#include "engine/rdma.h"
#include "engine/scheduler.h"
#include "engine/wq.h"
#include "engine/xmit.h"
#include "objects/mr.h"
#include "objects/mtt.h"
#include "objects/mw.h"
#include "objects/qp.h"

void snic_rpc_init(SnicCore *c)
{
    c->rpc = g_new0(SnicRpcDev, 1);
    c->rpc->stage = g_malloc(SNIC_RPC_STAGE_BUFS * sizeof(*c->rpc->stage) +
                             c->cfg.shuffle_units * sizeof(SnicShuffleUnit));
}

void snic_rpc_free(SnicCore *c)
{
    g_free(c->rpc->stage);
    g_free(c->rpc);
}

/* Every slot free, nothing deployed (disable and reset alike). */
void snic_rpc_reset(SnicCore *c)
{
    SnicRpcDev *d = c->rpc;
    unsigned i;

    memset(d->slots, 0, sizeof(d->slots));
    memset(d->deployed, 0, sizeof(d->deployed));
    d->slot_used = 0;
    d->stage_used = 0;
    d->shuffle_used = 0;
    d->ready_seq = 0;
    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        d->slots[i].core = c;
        d->slots[i].stage = -1;
    }
}

SnicRpc *snic_rpc_slot(SnicCore *c, unsigned i)
{
    return &c->rpc->slots[i];
}


uint16_t snic_cmd_set_qp_rpc(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    const struct snic_admin_set_qp_rpc *a = &cmd->set_qp_rpc;
    SnicQp *qp = snic_qp_get(c, GUINT32_FROM_LE(a->qpn));
    uint32_t flags = GUINT32_FROM_LE(a->flags);

    if (!qp || qp->type != SNIC_QPT_RC ||
        flags & ~(SNIC_QP_RPC_ENABLE | SNIC_QP_RPC_FALLBACK) ||
        (flags & SNIC_QP_RPC_FALLBACK && !(flags & SNIC_QP_RPC_ENABLE))) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* agreed before the connection runs, like its QPN and PSNs */
    if (qp->state != SNIC_QPS_RESET && qp->state != SNIC_QPS_INIT) {
        return SNIC_ADMIN_BAD_STATE;
    }
    /* answers carry no message number: not on a QP whose program counts */
    if (flags & SNIC_QP_RPC_ENABLE &&
        snic_program_numbered(snic_qp_program(qp))) {
        return SNIC_ADMIN_NOT_SUPPORTED;
    }
    qp->rpc.flags = flags;
    return SNIC_ADMIN_OK;
}

int snic_rpc_op(SnicCore *c, const SnicQp *qp, uint8_t opcode)
{
    if (!(qp->rpc.flags & SNIC_QP_RPC_ENABLE)) {
        return -1;
    }
    return snic_rpc_op_of(c->cfg.rpc_opmap, opcode);
}

/* ---- the slot pool ---- */

/*
 * Slots, and of them those with a staging buffer, held by QP qpn's
 * context and by the QP itself: a walk of the 32 slots, no count to keep
 */
typedef struct SlotsHeld {
    unsigned ctx_slots, ctx_stages, qp_stages;
} SlotsHeld;

static SlotsHeld slots_held(SnicCore *c, uint32_t qpn)
{
    uint16_t ctx = c->qps[qpn].ctx;
    SlotsHeld n = { 0 };
    unsigned i;

    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        const SnicRpc *r = &c->rpc->slots[i];
        const SnicQp *q = snic_qp_get(c, r->qpn);

        if (r->state == SNIC_RPC_FREE || !q || q->ctx != ctx) {
            continue;
        }
        n.ctx_slots++;
        n.ctx_stages += r->stage >= 0;
        n.qp_stages += r->stage >= 0 && r->qpn == qpn;
    }
    return n;
}

static SnicRpc *slot_alloc(SnicCore *c, SnicQp *qp)
{
    unsigned i;

    /* neither one QP nor one context may take every slot */
    if (qp->rpc.slots >= SNIC_RPC_MAX_PER_QP ||
        slots_held(c, qp - c->qps).ctx_slots >=
        snic_ctx_share(SNIC_RPC_SLOTS)) {
        return NULL;
    }
    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        SnicRpc *r = &c->rpc->slots[i];

        if (r->state == SNIC_RPC_FREE) {
            memset(r, 0, sizeof(*r));
            r->core = c;
            r->stage = -1;
            r->qpn = qp - c->qps;
            r->state = SNIC_RPC_RUNNING;
            c->rpc->slot_used |= 1u << i;
            qp->rpc.slots++;
            return r;
        }
    }
    return NULL;
}

void snic_rpc_release(SnicCore *c, SnicRpc *r)
{
    SnicQp *qp = snic_qp_get(c, r->qpn);

    if (r->state == SNIC_RPC_FREE) {
        return;
    }
    if (qp && qp->rpc.slots) {
        qp->rpc.slots--;
    }
    if (qp && qp->rpc.cur == r - c->rpc->slots) {
        qp->rpc.cur = -1;     /* the rest of its payload is dropped */
    }
    if (r->kernel && r->kernel->release) {
        r->kernel->release(r);  /* what start() took besides the slot */
    }
    if (r->stage >= 0) {
        c->rpc->stage_used &= ~(1u << r->stage);
    }
    r->state = SNIC_RPC_FREE;
    c->rpc->slot_used &= ~(1u << (r - c->rpc->slots));
    r->stage = -1;
}

uint8_t *snic_rpc_stage_get(SnicCore *c, SnicRpc *r)
{
    unsigned b;

    if (r->stage < 0) {
        SlotsHeld n = slots_held(c, r->qpn);

        /*
         * An RPC whose answer draws RNR NAKs holds its buffer until
         * answered: one QP's, or one context's, may not hold them all
         */
        if (n.qp_stages >= SNIC_RPC_STAGE_PER_QP ||
            n.ctx_stages >= snic_ctx_share(SNIC_RPC_STAGE_BUFS)) {
            return NULL;
        }
        for (b = 0; b < SNIC_RPC_STAGE_BUFS; b++) {
            if (!(c->rpc->stage_used & (1u << b))) {
                c->rpc->stage_used |= 1u << b;
                r->stage = b;
                break;
            }
        }
    }
    return snic_rpc_stage_buf(c, r);
}

uint8_t *snic_rpc_stage_buf(SnicCore *c, const SnicRpc *r)
{
    return r->stage >= 0 ? c->rpc->stage[r->stage] : NULL;
}

SnicShuffleUnit *snic_rpc_shuffle_unit(SnicCore *c, unsigned u)
{
    return (SnicShuffleUnit *)(c->rpc->stage + SNIC_RPC_STAGE_BUFS) + u;
}

/* The QP left the connected states: its RPCs are dropped, unanswered. */
void snic_rpc_qp_gone(SnicCore *c, SnicQp *qp)
{
    uint32_t qpn = qp - c->qps;
    unsigned i;

    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        SnicRpc *r = &c->rpc->slots[i];

        if (r->state != SNIC_RPC_FREE && r->qpn == qpn) {
            snic_rpc_release(c, r);
        }
    }
    qp->rpc.slots = 0;
    qp->rpc.in_msg = false;
    qp->rpc.to_host = false;
    qp->rpc.cur = -1;
}

SnicMr *snic_rpc_region(SnicCore *c, const SnicRpc *r, uint32_t access,
                        uint64_t va, uint64_t len)
{
    SnicQp *qp = snic_qp_get(c, r->qpn);
    SnicMrCheck why;

    return qp ? snic_rkey_check(c, qp, r->rkey, access, va, len, &why) :
                NULL;
}

void snic_rpc_ready(SnicCore *c, SnicRpc *r)
{
    SnicQp *qp = snic_qp_get(c, r->qpn);

    r->state = SNIC_RPC_READY;
    r->ready_seq = ++c->rpc->ready_seq;
    SNIC_EVENT(c, RPC_DONE, r - c->rpc->slots, r->qpn, r->status, r->len);
    if (qp) {
        snic_sched_notify(c, qp);   /* its send queue has an answer */
    }
}

/* Answer with a status and no data (no kernel, bad parameters, ...). */
static void answer_status(SnicCore *c, SnicRpc *r, uint8_t status)
{
    r->status = status;
    r->src = SNIC_RPC_SRC_NONE;
    r->len = 0;
    snic_rpc_ready(c, r);
}

/* ---- requester: RPC WQEs ---- */

bool snic_rpc_wr(uint8_t wr_opcode)
{
    return wr_opcode == SNIC_WR_RPC || wr_opcode == SNIC_WR_RPC_WRITE;
}

uint8_t snic_rpc_wqe_check(SnicCore *c, SnicQp *qp, uint32_t index,
                           const struct snic_sq_wqe *w, uint64_t len)
{
    if (!(qp->rpc.flags & SNIC_QP_RPC_ENABLE)) {
        /* never on the wire of a connection that did not agree to it */
        SNIC_GUEST_ERROR(c, GE_WQE_INVALID, qp - c->qps, index, w->opcode,
                         w->num_sge);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    /* RPC Params is one packet: header and params fit the path MTU */
    if (w->opcode == SNIC_WR_RPC && len > snic_qp_mtu_bytes(qp)) {
        return SNIC_WC_LOC_LEN_ERR;
    }
    return SNIC_WC_SUCCESS;
}

uint8_t snic_rpc_request_segment(SnicCore *c, SnicQp *qp,
                                 const struct snic_sq_wqe *w, uint32_t len,
                                 uint32_t seg, uint32_t nseg, SnicPkt *p,
                                 uint32_t *host_bytes)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp), off = seg * mtu;
    uint32_t plen = MIN(mtu, len - off), hdr_part = 0;
    struct snic_rpc_hdr h = {
        .resp_addr = w->rpc.resp_addr,
        .resp_rkey = w->rpc.resp_rkey,
        .resp_len = w->rpc.resp_len,
        .tag = GUINT32_TO_LE(GUINT32_FROM_LE(w->rpc.tag) & 0xffffff),
    };
    bool first = seg == 0, last = seg == nseg - 1;
    enum snic_rpc_op op;
    uint8_t st;

    /* the message is the header, then the params or payload */
    if (off < SNIC_RPC_HDR_LEN) {
        hdr_part = MIN(plen, SNIC_RPC_HDR_LEN - off);
        memcpy(c->rdma_payload, (uint8_t *)&h + off, hdr_part);
    }
    st = snic_wqe_gather(c, qp, w, off + hdr_part - SNIC_RPC_HDR_LEN,
                         c->rdma_payload + hdr_part, plen - hdr_part);
    if (st != SNIC_WC_SUCCESS) {
        return st;
    }
    /* the header is the device's, from the WQE; the rest the WQE's data */
    *host_bytes = snic_wqe_host_bytes(w, plen - hdr_part);
    op = w->opcode == SNIC_WR_RPC ? SNIC_RPC_PARAMS :
         first && last ? SNIC_RPC_WRITE_ONLY :
         first ? SNIC_RPC_WRITE_FIRST :
         last ? SNIC_RPC_WRITE_LAST : SNIC_RPC_WRITE_MIDDLE;
    p->opcode = snic_rpc_opcode(c->cfg.rpc_opmap, op);
    /* StRoM 5.1: the address field selects the kernel */
    p->reth.va = GUINT64_FROM_LE(w->rpc.rpc_opcode);
    p->reth.rkey = GUINT32_FROM_LE(w->rpc.rkey);
    p->reth.len = len - SNIC_RPC_HDR_LEN;
    p->payload = c->rdma_payload;
    p->payload_len = plen;
    p->ackreq = last || (p->psn % SNIC_ACKREQ_EVERY) == 0;
    return SNIC_WC_SUCCESS;
}

/* ---- responder: accepting RPCs ---- */

/* No kernel serves it: the QP's receive queue gets it, like a SEND. */
static SnicRpcVerdict to_host(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                              const struct snic_rpc_hdr *h, bool last)
{
    SnicResp *s = &qp->resp;
    uint32_t data = p->payload_len - SNIC_RPC_HDR_LEN;
    struct snic_rpc_recv d = {
        .rpc_opcode = GUINT64_TO_LE(p->reth.va),
        .rkey = GUINT32_TO_LE(p->reth.rkey),
        .param_len = GUINT32_TO_LE(p->reth.len),
        .hdr = *h,
    };
    uint8_t st;

    if (!snic_recv_take(c, qp)) {
        return SNIC_RPC_RNR;
    }
    SNIC_EVENT(c, RPC_FALLBACK, qp - c->qps, p->reth.va);
    st = snic_rq_scatter(c, qp, 0, (const uint8_t *)&d, sizeof(d));
    if (st == SNIC_WC_SUCCESS) {
        st = snic_rq_scatter(c, qp, sizeof(d),
                             p->payload + SNIC_RPC_HDR_LEN, data);
    }
    if (st != SNIC_WC_SUCCESS) {
        snic_rq_complete(c, qp, st, SNIC_WC_RECV_RPC, 0, p);
        return st == SNIC_WC_LOC_LEN_ERR ? SNIC_RPC_INVALID :
                                          SNIC_RPC_REMOTE_OP;
    }
    s->recv_off = sizeof(d) + data;
    if (last) {
        snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV_RPC,
                         s->recv_off, p);
    } else {
        qp->rpc.to_host = true;
    }
    return SNIC_RPC_ACCEPT;
}

/* The first (or only) packet of an RPC. */
static SnicRpcVerdict rpc_first(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                                int op, bool last)
{
    SnicQpRpc *q = &qp->rpc;
    uint32_t data = p->payload_len - SNIC_RPC_HDR_LEN;
    const SnicKernelOps *k;
    struct snic_rpc_hdr h;
    SnicRpc *r;
    uint8_t st;

    if (p->payload_len < SNIC_RPC_HDR_LEN) {
        return SNIC_RPC_INVALID;
    }
    memcpy(&h, p->payload, sizeof(h));
    /* RETH length: the params or payload after the header, all of it */
    if (h.rsvd || p->reth.len > (1u << 31) ||
        (last ? p->reth.len != data : p->reth.len <= data)) {
        return SNIC_RPC_INVALID;
    }
    k = snic_kernel_lookup(c, qp->ctx, p->reth.va);
    if (!k && q->flags & SNIC_QP_RPC_FALLBACK) {
        return to_host(c, qp, p, &h, last);
    }
    r = slot_alloc(c, qp);
    if (!r) {
        return SNIC_RPC_RNR;    /* every slot busy: come back later */
    }
    r->rkey = p->reth.rkey;
    r->rpc_opcode = p->reth.va;
    r->resp_addr = GUINT64_FROM_LE(h.resp_addr);
    r->resp_rkey = GUINT32_FROM_LE(h.resp_rkey);
    r->resp_len = GUINT32_FROM_LE(h.resp_len);
    r->tag = GUINT32_FROM_LE(h.tag) & 0xffffff;
    r->kernel = k;
    SNIC_EVENT(c, RPC_ACCEPT, qp - c->qps, p->reth.va, k ? k->id : 0,
               r - c->rpc->slots);
    if (!k) {
        answer_status(c, r, SNIC_RPC_NO_KERNEL);
    } else if (op != SNIC_RPC_PARAMS && !k->data_in) {
        answer_status(c, r, SNIC_RPC_BAD_PARAMS);   /* it takes no data */
    } else {
        st = k->start(r, op == SNIC_RPC_PARAMS ?
                      p->payload + SNIC_RPC_HDR_LEN : NULL,
                      op == SNIC_RPC_PARAMS ? data : p->reth.len);
        if (st == SNIC_KERNEL_BUSY ||
            (st == SNIC_RPC_OK && op != SNIC_RPC_PARAMS &&
             !k->data_in(r, p->payload + SNIC_RPC_HDR_LEN, data, last))) {
            snic_rpc_release(c, r);
            return SNIC_RPC_RNR;
        }
        if (st != SNIC_RPC_OK) {
            answer_status(c, r, st);
        } else {
            c->ops->kick(c->opaque);    /* the kernel runs in the engine */
        }
    }
    if (!last && r->state == SNIC_RPC_RUNNING) {
        /* its steps wait for the payload: data_in() takes it meanwhile */
        q->cur = r - c->rpc->slots;
        r->payload_pending = true;
    } else if (!last) {
        q->cur = -1;
    }
    return SNIC_RPC_ACCEPT;
}

/* RPC WRITE Middle or Last: more payload of the message in progress. */
static SnicRpcVerdict rpc_more(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                               bool last)
{
    SnicQpRpc *q = &qp->rpc;
    SnicRpc *r;
    uint8_t st;

    if (p->payload_len > q->left || (last && p->payload_len != q->left)) {
        return SNIC_RPC_INVALID;    /* longer or shorter than announced */
    }
    if (q->to_host) {
        st = snic_rq_scatter(c, qp, qp->resp.recv_off, p->payload,
                             p->payload_len);
        if (st != SNIC_WC_SUCCESS) {
            snic_rq_complete(c, qp, st, SNIC_WC_RECV_RPC, qp->resp.recv_off,
                             p);
            return st == SNIC_WC_LOC_LEN_ERR ? SNIC_RPC_INVALID :
                                              SNIC_RPC_REMOTE_OP;
        }
        qp->resp.recv_off += p->payload_len;
        if (last) {
            snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV_RPC,
                             qp->resp.recv_off, p);
        }
    } else if (q->cur >= 0) {
        r = &c->rpc->slots[q->cur];
        /* a kernel that already answered takes no more: dropped */
        if (r->state == SNIC_RPC_RUNNING &&
            !r->kernel->data_in(r, p->payload, p->payload_len, last)) {
            return SNIC_RPC_RNR;
        }
        if (last) {
            r->payload_pending = false;
            c->ops->kick(c->opaque);
        }
    }
    q->left -= p->payload_len;
    return SNIC_RPC_ACCEPT;
}

SnicRpcVerdict snic_rpc_request(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                                int op)
{
    SnicQpRpc *q = &qp->rpc;
    uint32_t mtu = snic_qp_mtu_bytes(qp);
    bool first = op == SNIC_RPC_PARAMS || op == SNIC_RPC_WRITE_FIRST ||
                 op == SNIC_RPC_WRITE_ONLY;
    bool last = op == SNIC_RPC_PARAMS || op == SNIC_RPC_WRITE_LAST ||
                op == SNIC_RPC_WRITE_ONLY;
    SnicRpcVerdict v;

    /* a message continues only what it started; MTU-sized but the last */
    if (first == q->in_msg || p->payload_len > mtu ||
        (!last && p->payload_len != mtu)) {
        return SNIC_RPC_INVALID;
    }
    v = first ? rpc_first(c, qp, p, op, last) : rpc_more(c, qp, p, last);
    if (v != SNIC_RPC_ACCEPT) {
        return v;
    }
    if (first && !last) {
        q->in_msg = true;
        q->left = p->reth.len - (p->payload_len - SNIC_RPC_HDR_LEN);
    }
    if (last) {
        q->in_msg = false;
        q->to_host = false;
        q->cur = -1;
        qp->resp.msn = (qp->resp.msn + 1) & 0xffffff;
    }
    return SNIC_RPC_ACCEPT;
}

/* ---- the answers: one RDMA WRITE with immediate each ---- */

/* Bytes [off, off + len) of an answer, from its source. */
static uint8_t answer_bytes(SnicCore *c, SnicRpc *r, uint32_t off,
                            uint8_t *buf, uint32_t len)
{
    SnicMr *mr;

    switch (r->src) {
    case SNIC_RPC_SRC_HOST:
        /* read now, checked again: the region may have gone since */
        mr = snic_rpc_region(c, r, SNIC_ACCESS_REMOTE_READ, r->src_va + off,
                             len);
        if (!mr) {
            return SNIC_RPC_PROT_ERR;
        }
        if (snic_mtt_read(c, &mr->mtt, r->src_va + off, buf, len)) {
            return SNIC_RPC_DMA_ERR;
        }
        return SNIC_RPC_OK;
    case SNIC_RPC_SRC_INLINE:
        memcpy(buf, r->bytes + off, len);
        return SNIC_RPC_OK;
    case SNIC_RPC_SRC_STAGED:
        memcpy(buf, snic_rpc_stage_buf(c, r) + off, len);
        return SNIC_RPC_OK;
    }
    return SNIC_RPC_DMA_ERR;    /* a length with no source: cannot be */
}

/* Build and send segment 'seg' of the answer at psn. */
static void answer_segment(SnicCore *c, SnicQp *qp, SnicRpc *r, uint32_t seg,
                           uint32_t psn)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp), off = seg * mtu;
    uint32_t len = r->len > off ? MIN(mtu, r->len - off) : 0;
    uint32_t host_bytes = 0;
    SnicRcMsg msg;
    SnicPkt p;
    uint8_t st;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.psn = psn;
    if (len) {
        st = answer_bytes(c, r, off, c->rdma_payload, len);
        if (st != SNIC_RPC_OK) {
            /*
             * The source became unreadable between the kernel's check
             * and this (re)transmission: the bytes are not sent, and the
             * status the last segment carries says so.
             */
            memset(c->rdma_payload, 0, len);
            r->status = st;
        } else if (r->src == SNIC_RPC_SRC_HOST) {
            /* read from the region now; staged and inline answers are ours */
            host_bytes = len;
        }
    }
    /* an RDMA WRITE with immediate; the requester may sleep on its SE */
    msg = (SnicRcMsg) {
        .wr = SNIC_WR_RDMA_WRITE_IMM,
        .flags = SNIC_WQE_SOLICITED,
        .len = r->len,
        .npsn = r->npsn,
        .va = r->resp_addr,
        .rkey = r->resp_rkey,
        .imm = SNIC_RPC_IMM(r->status, r->tag),
    };
    snic_rc_segment(qp, &msg, seg, c->rdma_payload, len, false, &p);
    snic_rdma_xmit(c, &p, host_bytes);
}

/* The answer of this QP being sent (PSNs assigned, not all sent). */
static SnicRpc *answer_in_progress(SnicCore *c, uint32_t qpn)
{
    unsigned i;

    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        SnicRpc *r = &c->rpc->slots[i];

        if (r->state == SNIC_RPC_SENDING && r->qpn == qpn &&
            r->sent < r->npsn) {
            return r;
        }
    }
    return NULL;
}

/* The oldest finished answer of this QP not yet started. */
static SnicRpc *answer_next(SnicCore *c, uint32_t qpn)
{
    SnicRpc *best = NULL;
    unsigned i;

    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        SnicRpc *r = &c->rpc->slots[i];

        if (r->state == SNIC_RPC_READY && r->qpn == qpn &&
            (!best || r->ready_seq < best->ready_seq)) {
            best = r;
        }
    }
    return best;
}

uint32_t snic_rpc_skip(SnicCore *c, const SnicQp *qp, uint32_t psn,
                       uint32_t sq_index)
{
    uint32_t qpn = qp - c->qps;
    bool moved = qp->rpc.slots;
    unsigned i;

    /* answers before one WQE are consecutive: follow them from psn */
    while (moved) {
        moved = false;
        for (i = 0; i < SNIC_RPC_SLOTS; i++) {
            const SnicRpc *r = &c->rpc->slots[i];

            if (r->state == SNIC_RPC_SENDING && r->qpn == qpn &&
                r->after_sq == sq_index && r->first_psn == psn) {
                psn = (psn + r->npsn) & SNIC_PSN_MASK;
                moved = true;
            }
        }
    }
    return psn;
}

bool snic_rpc_answer_due(SnicCore *c, const SnicQp *qp)
{
    uint32_t qpn = qp - c->qps;
    SnicRpc *r;

    if (!qp->rpc.slots) {
        return false;
    }
    r = answer_in_progress(c, qpn);
    if (r) {
        return true;
    }
    r = answer_next(c, qpn);
    return r != NULL;
}

bool snic_rpc_send_new(SnicCore *c, SnicQp *qp, uint32_t psn)
{
    uint32_t qpn = qp - c->qps, mtu = snic_qp_mtu_bytes(qp);
    SnicRpc *r;

    if (!qp->rpc.slots) {
        return false;
    }
    r = answer_in_progress(c, qpn);
    if (!r) {
        r = answer_next(c, qpn);
        if (!r) {
            return false;
        }
        r->state = SNIC_RPC_SENDING;
        r->after_sq = qp->req.sq_head;  /* between two SQ messages */
        r->first_psn = psn;
        r->npsn = r->len ? (r->len + mtu - 1) / mtu : 1;
        r->sent = 0;
    }
    answer_segment(c, qp, r, r->sent, psn);
    r->sent++;
    return true;
}

/* The answer whose sent PSNs hold psn. */
static SnicRpc *answer_of_psn(SnicCore *c, uint32_t qpn, uint32_t psn)
{
    unsigned i;

    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        SnicRpc *r = &c->rpc->slots[i];

        if (r->state == SNIC_RPC_SENDING && r->qpn == qpn &&
            ((psn - r->first_psn) & SNIC_PSN_MASK) < r->sent) {
            return r;
        }
    }
    return NULL;
}

bool snic_rpc_resend(SnicCore *c, SnicQp *qp, uint32_t psn)
{
    SnicRpc *r = qp->rpc.slots ? answer_of_psn(c, qp - c->qps, psn) : NULL;

    if (!r) {
        return false;
    }
    answer_segment(c, qp, r, (psn - r->first_psn) & SNIC_PSN_MASK, psn);
    return true;
}

bool snic_rpc_refused(SnicCore *c, SnicQp *qp, uint32_t psn)
{
    SnicRpc *r = qp->rpc.slots ? answer_of_psn(c, qp - c->qps, psn) : NULL;

    if (!r) {
        return false;
    }
    /*
     * No WQE stands for the answer, so no completion can report it: an
     * affiliated async error does, and the QP fails as any requester that
     * is NAKed does (its peer's QP failed when it sent the NAK).
     */
    SNIC_EVENT(c, RPC_REFUSED, qp - c->qps, psn, r->resp_rkey);
    snic_aeq_post(c, SNIC_EVENT_QP_RPC_ERR, qp - c->qps);
    snic_wq_error(c, qp);
    return true;
}

/* Free the answers this QP's peer acknowledged (engine context). */
bool snic_rpc_answered(SnicCore *c, SnicRpc *r)
{
    SnicQp *qp = snic_qp_get(c, r->qpn);

    return !qp || (r->sent == r->npsn &&
                   snic_psn_cmp((r->first_psn + r->npsn - 1) & SNIC_PSN_MASK,
                                qp->req.dde.wnd_start) < 0);
}
