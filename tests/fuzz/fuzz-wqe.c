/*
 * libFuzzer target: fuzzer-written SQ/RQ WQEs, doorbells and QP state
 * changes on two nodes (connected RC pair, UD QPs) on the simulated wire,
 * faults picked by the first byte, the RC pair's transport program by the
 * second (SRNIC with each node's CtrlQ and RetryQ served by the host
 * software, on the CtrlQ's interrupt); bounded simulator runs, CQ polls.
 * Both nodes are rebuilt per input on small fuzz hosts: cheap and exact
 * replay.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz-host.h"
#include "objects/cq.h"
#include "objects/mw.h"
#include "objects/qp.h"

#define EVENT_BUDGET    1500    /* simulator events per input */
#define NQP             2       /* q 0: RC, q 1: UD */

static const SnicSimLinkConfig links[] = {
    { .delay_ns = 1000 },
    { .delay_ns = 2000, .loss = 0.1 },
    { .delay_ns = 1000, .reorder = 0.2, .dup = 0.1 },
    { .delay_ns = 1000, .bandwidth_bps = 10000000000ull, .corrupt = 0.05,
      .ecn_threshold = 2000 },
};

/* The devices' own fault injection (drop, dup, reorder percent, seed) */
static const SnicLinkFaults faults[] = {
    { 0 },
    { 5, 0, 0, 1 },
    { 0, 10, 0, 1 },
    { 0, 0, 30, 1 },
    { 5, 5, 20, 1 },
    { 0, 0, 100, 1 },
    { 0, 100, 0, 1 },
    { 0 },
};

static void fix_sge(struct snic_sge *s, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        uint64_t off = GUINT64_FROM_LE(s[i].addr) % FZ_BUF_LEN;
        uint32_t len = GUINT32_FROM_LE(s[i].length) % 0x4000;

        s[i].addr = GUINT64_TO_LE(FZ_MR_IOVA + off);
        s[i].length = GUINT32_TO_LE(MIN(len, FZ_BUF_LEN - off));
        s[i].lkey = GUINT32_TO_LE(FZ_LKEY);
    }
}

/* Window t's current R_Key (type 2 binds change its key byte). */
static uint32_t mw_rkey(const FuzzNode *n, unsigned t)
{
    const SnicMw *mw = &n->h->core->mws[t];

    return (FZ_MW_RKEY(t) & ~SNIC_KEY_BYTE_MASK) | mw->key;
}

/* A bind of one of the node's windows inside its MR (rights as given). */
static void fix_bind(struct snic_bind_mw *b, const FuzzNode *me, uint8_t raw)
{
    uint32_t rkey = mw_rkey(me, 1 + (raw >> 7));
    uint64_t off = GUINT64_FROM_LE(b->addr) % FZ_BUF_LEN;

    b->mw_rkey = GUINT32_TO_LE(rkey);
    b->new_rkey = GUINT32_TO_LE(raw & 0x20 ? GUINT32_FROM_LE(b->new_rkey) :
                                (rkey & ~SNIC_KEY_BYTE_MASK) |
                                ((rkey + 1) & SNIC_KEY_BYTE_MASK));
    b->mr_lkey = GUINT32_TO_LE(FZ_LKEY);
    b->addr = GUINT64_TO_LE(FZ_MR_IOVA + off);
    b->length = GUINT64_TO_LE(GUINT64_FROM_LE(b->length) %
                              (FZ_BUF_LEN - off + 1));
    b->access &= GUINT32_TO_LE(raw & 0x10 ? ~0u : 0xe);
}

/*
 * Each node's MR for fast registration: allocated Free, its page list in
 * scratch memory listing the node's buffer; REG_MR work requests name it
 * (or any key) with a length, page size and page list of their own.
 */
#define WQE_FRWR_PBL    (FZ_SCRATCH + 0xc000)
#define WQE_FRWR_PAGES  8
static uint32_t frwr_index[2];

static uint32_t frwr_alloc(FuzzNode *n)
{
    struct snic_admin_cmd cmd;
    uint64_t key = 0;

    fz_pbl(n->h, WQE_FRWR_PBL, FZ_BUF, WQE_FRWR_PAGES, false);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.pdn = GUINT32_TO_LE(n->pdn);
    cmd.reg_mr.npages = GUINT32_TO_LE(WQE_FRWR_PAGES);
    cmd.reg_mr.flags = GUINT16_TO_LE(SNIC_MR_FRWR);
    cmd.reg_mr.key = 0x10;
    if (fz_admin(n->h, &cmd, &key) != SNIC_ADMIN_OK) {
        abort();
    }
    return key >> SNIC_KEY_INDEX_SHIFT;
}

/* The FRWR MR's current key (each registration changes its key byte) */
static uint32_t frwr_key(const FuzzNode *n)
{
    uint32_t idx = frwr_index[n->ip == FZ_IP(2)];

    return idx << SNIC_KEY_INDEX_SHIFT | n->h->core->mrs[idx].key;
}

/*
 * A REG_MR of the node's FRWR MR, well formed but for what the bits of
 * rsvd[0] leave as the fuzzer wrote it (then cleared: it is reserved).
 */
static void fix_reg(struct snic_reg_mr_wr *r, const FuzzNode *me)
{
    uint32_t key = frwr_key(me);
    uint64_t iova = GUINT64_FROM_LE(r->iova);
    uint64_t len = 1 + GUINT64_FROM_LE(r->length) % (WQE_FRWR_PAGES * 4096);
    uint8_t raw = r->rsvd[0];

    r->rsvd[0] = 0;
    if (!(raw & 0x01)) {
        r->mr_key = GUINT32_TO_LE(key);
    }
    if (!(raw & 0x02)) {
        r->new_key = GUINT32_TO_LE((key & ~SNIC_KEY_BYTE_MASK) |
                                   (GUINT32_FROM_LE(r->new_key) &
                                    SNIC_KEY_BYTE_MASK));
    }
    if (!(raw & 0x04)) {
        r->access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                  SNIC_ACCESS_REMOTE_WRITE |
                                  SNIC_ACCESS_REMOTE_READ);
    }
    if (!(raw & 0x08)) {
        r->length = GUINT64_TO_LE(len);
        r->page_shift = 12;
        r->npages = GUINT32_TO_LE(((iova & 4095) + len + 4095) >> 12);
    }
    if (!(raw & 0x10)) {
        r->pbl_addr = GUINT64_TO_LE(WQE_FRWR_PBL);
    }
}

/* Keys, addresses and peers that name live objects. */
static void fix_send(struct snic_sq_wqe *w, const FuzzNode *me,
                     const FuzzNode *peer, unsigned q)
{
    static const uint8_t rc_ops[] = {
        SNIC_WR_RDMA_WRITE, SNIC_WR_RDMA_WRITE_IMM, SNIC_WR_SEND,
        SNIC_WR_SEND_IMM, SNIC_WR_RDMA_READ, SNIC_WR_ATOMIC_CMP_SWAP,
        SNIC_WR_ATOMIC_FETCH_ADD, SNIC_WR_SEND_INV, SNIC_WR_BIND_MW,
        SNIC_WR_LOCAL_INV, SNIC_WR_REG_MR,
    };
    uint8_t raw = w->opcode;

    w->num_sge %= SNIC_SQ_WQE_MAX_SGE + 1;
    fix_sge(w->sge, w->num_sge);
    if (me->type[q] != SNIC_QPT_RC) {
        w->opcode = w->opcode & 1 ? SNIC_WR_SEND_IMM : SNIC_WR_SEND;
        fz_av(&w->ud.av, me->ip, peer->ip, w->ud.av.flags & SNIC_AV_IPV6);
        w->ud.remote_qpn = GUINT32_TO_LE(peer->qpn[q]);
        if (!(w->ud.remote_qkey & GUINT32_TO_LE(0x40000000))) {
            w->ud.remote_qkey = GUINT32_TO_LE(FZ_QKEY);
        }
        return;
    }
    w->opcode = rc_ops[w->opcode % G_N_ELEMENTS(rc_ops)];
    if (w->opcode == SNIC_WR_BIND_MW) {
        fix_bind(&w->bind, me, raw);
        return;
    }
    if (w->opcode == SNIC_WR_REG_MR) {
        fix_reg(&w->reg, me);
        return;
    }
    if (w->opcode == SNIC_WR_LOCAL_INV || w->opcode == SNIC_WR_SEND_INV) {
        /* a window or the FRWR MR of the node that receives it */
        const FuzzNode *to = w->opcode == SNIC_WR_LOCAL_INV ? me : peer;

        w->imm = GUINT32_TO_BE(raw & 0x02 ? frwr_key(to) :
                               mw_rkey(to, 1 + (raw >> 7)));
    }
    /* through the peer's MR, one of its windows or its FRWR MR */
    w->rdma.rkey = GUINT32_TO_LE(raw & 0x40 ? mw_rkey(peer, 1 + (raw >> 7)) :
                                 raw & 0x02 ? frwr_key(peer) : FZ_LKEY);
    w->rdma.remote_addr = GUINT64_TO_LE(FZ_MR_IOVA +
        GUINT64_FROM_LE(w->rdma.remote_addr) % FZ_BUF_LEN);
    if (w->opcode == SNIC_WR_ATOMIC_CMP_SWAP ||
        w->opcode == SNIC_WR_ATOMIC_FETCH_ADD) {
        w->rdma.remote_addr &= ~GUINT64_TO_LE(7);
        w->num_sge = 1;
        w->sge[0].length = GUINT32_TO_LE(8);
        w->sge[0].addr &= ~GUINT64_TO_LE(7);
    }
}

/* The driver's producer indices follow what the device accepted. */
static void resync(FuzzNode *n)
{
    SnicCore *c = n->h->core;
    unsigned q;

    for (q = 0; q < n->nqp; q++) {
        n->sq_pi[q] = c->qps[n->qpn[q]].sq_tail;
        n->rq_pi[q] = c->qps[n->qpn[q]].rq_tail;
    }
    n->cq_ci = c->cqs[n->cqn].head;
}

static void doorbell(FuzzNode *n, unsigned q, bool page1, uint8_t type,
                     uint32_t index)
{
    SnicCore *c = n->h->core;
    const SnicQp *qp = &c->qps[n->qpn[q]];
    uint32_t qid, base;
    uint8_t t;

    switch (type % 8) {
    case 0:
    case 6:
        t = SNIC_DB_SQ;
        qid = n->qpn[q];
        base = qp->sq_tail;
        break;
    case 1:
        t = SNIC_DB_RQ;
        qid = n->qpn[q];
        base = qp->rq_tail;
        break;
    case 2:
    case 3:
    case 4:
        t = SNIC_DB_CQ + type % 8 - 2;
        qid = n->cqn;
        base = c->cqs[n->cqn].head;
        break;
    case 5:
        t = SNIC_DB_EQ;
        qid = n->eqn;
        base = c->eqs[n->eqn].head;
        break;
    default:
        t = type >> 3;
        qid = index >> 24;
        base = 0;
        if (t == SNIC_DB_ADMIN_SQ || t == SNIC_DB_ADMIN_CQ) {
            t = SNIC_DB_AEQ;    /* the admin queue is the harness's */
        }
        break;
    }
    /* top bit clear: an index a little past the current one */
    index = index & 0x80000000u ? index : base + index % 20;
    fz_doorbell(n->h, page1, t, qid, index);
    resync(n);
}

/* The RC pair's program (RESET returns a QP to go-back-N) */
static uint8_t program;
static FuzzSrHost sr[2];

/* Bring QP q back to RTS from RESET. */
static void reconnect(FuzzNode *n, const FuzzNode *peer, unsigned q,
                      bool ipv6)
{
    if (n->type[q] == SNIC_QPT_RC) {
        fz_node_set_transport(n, q, program);
        if (fz_program_sr(program)) {
            fz_sr_host_qp(n->h->sr, WQE_SR_WINDOW);
        }
        fz_node_connect(n, q, peer->ip, peer->qpn[q], ipv6);
    } else {
        fz_node_ud_up(n, q, FZ_QKEY);
    }
}

/* What a driver (or a broken one) does to a live QP besides posting. */
static void ctrl(FuzzNode *n, const FuzzNode *peer, unsigned q, uint8_t what,
                 bool ipv6)
{
    struct snic_qp_attr a;
    uint64_t pbl;

    memset(&a, 0, sizeof(a));
    switch (what % 5) {
    case 0:
        snic_core_set_link(n->h->core, what & 0x80);
        break;
    case 1:
        a.qp_state = GUINT32_TO_LE(SNIC_QPS_ERR);
        fz_node_modify(n, q, SNIC_QP_ATTR_STATE, &a);
        break;
    case 2:
        a.qp_state = GUINT32_TO_LE(SNIC_QPS_RESET);
        fz_node_modify(n, q, SNIC_QP_ATTR_STATE, &a);
        resync(n);
        if (what & 0x80) {
            reconnect(n, peer, q, ipv6);
        }
        break;
    case 3:
        /* RTS -> RTS: other rights, RNR timer or Q_Key */
        a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
        a.qp_access_flags = GUINT32_TO_LE((what >> 3) & 0xe);
        a.min_rnr_timer = what >> 3;
        a.qkey = GUINT32_TO_LE(what & 0x80 ? FZ_QKEY : what);
        fz_node_modify(n, q, SNIC_QP_ATTR_STATE |
                       (n->type[q] == SNIC_QPT_RC ?
                        SNIC_QP_ATTR_ACCESS_FLAGS |
                        SNIC_QP_ATTR_MIN_RNR_TIMER : SNIC_QP_ATTR_QKEY), &a);
        break;
    case 4:
        /* a ring page the device can no longer reach, or another page */
        pbl = what & 0x10 ? FZ_PBL_RQ(q) : FZ_PBL_SQ(q);
        fz_pbl(n->h, pbl, what & 0x80 ? FZ_MEM_BASE + FZ_MEM_SIZE :
               FZ_BUF + (what >> 5) * 0x1000, 1, false);
        break;
    }
}

static void poll_all(FuzzNode *n)
{
    struct snic_cqe c;
    unsigned i;

    for (i = 0; i < (1u << FZ_CQ_LOG2) && fz_poll_cq(n, &c); i++) {
        /* completions are consumed so the CQ keeps going */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t types[NQP] = { SNIC_QPT_RC, SNIC_QPT_UD };
    FzInput in = { data, size };
    uint64_t budget = EVENT_BUDGET;
    FuzzNode node[2];
    SnicSim *sim;
    unsigned ops = 0;
    uint8_t profile = fz_take8(&in);
    bool ipv6 = profile & 0x80;
    unsigned i;

    program = fz_programs[fz_take8(&in) % FZ_NUM_PROGRAMS];
    sim = snic_sim_new(1);
    fz_node_init(&node[0], sim, &faults[(profile >> 2) & 7], FZ_IP(1),
                 types, NQP);
    fz_node_init(&node[1], sim, &faults[(profile >> 2) & 7], FZ_IP(2),
                 types, NQP);
    for (i = 0; i < 2; i++) {
        frwr_index[i] = frwr_alloc(&node[i]);
    }
    snic_sim_port_connect(&node[0].h->port, &node[1].h->port,
                          &links[profile % G_N_ELEMENTS(links)]);
    for (i = 0; i < 2; i++) {
        fz_node_set_transport(&node[i], 0, program);
        if (fz_program_sr(program)) {
            fz_sr_host_init(&sr[i], &node[i], 0, WQE_SR_WINDOW);
        }
    }
    fz_node_connect(&node[0], 0, node[1].ip, node[1].qpn[0], ipv6);
    fz_node_connect(&node[1], 0, node[0].ip, node[0].qpn[0], ipv6);
    fz_node_ud_up(&node[0], 1, FZ_QKEY);
    fz_node_ud_up(&node[1], 1, FZ_QKEY);

    while (in.left && ops++ < 200) {
        uint8_t op = fz_take8(&in) % WQE_OP_COUNT;
        uint8_t sel = fz_take8(&in);
        FuzzNode *me = &node[sel & 1], *peer = &node[!(sel & 1)];
        unsigned q = ((sel >> 1) & 3) % NQP;

        switch (op) {
        case WQE_OP_SQ: {
            struct snic_sq_wqe w;

            fz_take(&in, &w, sizeof(w));
            if (sel & WQE_SEL_FIX) {
                fix_send(&w, me, peer, q);
            }
            fz_post_send(me, q, &w);
            resync(me);
            break;
        }
        case WQE_OP_RQ: {
            struct snic_rq_wqe w;

            fz_take(&in, &w, sizeof(w));
            if (sel & WQE_SEL_FIX) {
                w.num_sge %= SNIC_RQ_WQE_MAX_SGE + 1;
                fix_sge(w.sge, w.num_sge);
            }
            fz_post_recv(me, q, &w);
            resync(me);
            break;
        }
        case WQE_OP_SLOT: {
            struct snic_sq_wqe w;
            uint8_t slot = fz_take8(&in) % (1u << FZ_SQ_LOG2);

            fz_take(&in, &w, sizeof(w));
            if (sel & WQE_SEL_FIX) {
                fix_send(&w, me, peer, q);
            }
            fz_write(me->h, FZ_SQ_RING(q) + slot * SNIC_SQ_WQE_SIZE, &w,
                     sizeof(w));
            break;
        }
        case WQE_OP_DOORBELL: {
            uint8_t type = fz_take8(&in);
            uint32_t index;

            fz_take(&in, &index, 4);
            doorbell(me, q, sel & WQE_SEL_PAGE1, type, GUINT32_FROM_LE(index));
            break;
        }
        case WQE_OP_RUN:
            budget -= snic_sim_run(sim, MIN(budget, (sel + 1u) * 4));
            break;
        case WQE_OP_POLL:
            poll_all(me);
            break;
        case WQE_OP_CTRL:
            ctrl(me, peer, q, fz_take8(&in), ipv6);
            break;
        }
        fz_check(node[0].h);
        fz_check(node[1].h);
    }
    snic_sim_run(sim, budget);
    poll_all(&node[0]);
    poll_all(&node[1]);
    fz_check(node[0].h);
    fz_check(node[1].h);
    fz_node_free(&node[0]);
    fz_node_free(&node[1]);
    snic_sim_free(sim);
    return 0;
}
