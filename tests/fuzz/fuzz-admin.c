/*
 * libFuzzer target: admin commands (64-byte snic_admin_cmd, optionally
 * fixed up to name live objects), memory writes, raw doorbells and resets
 * against a fresh small-host core per input (exact replay). Checks each
 * command completes once, in order, and that object reference counts agree
 * with the object tables.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-host.h"
#include "objects/cq.h"
#include "objects/mr.h"
#include "objects/mtt.h"
#include "objects/mw.h"
#include "objects/qp.h"
#include "objects/srq.h"
#include "transport/transport.h"

#define ADMIN_DEPTH     (1u << FZ_ADMIN_LOG2)
#define NUM_LISTS       ADM_NUM_LISTS
#define LIST_AT(i)      ADM_LIST_AT(i)
#define ATTR_AT(i)      ADM_ATTR_AT(i)

typedef struct Pending {
    uint16_t id;
    uint8_t opcode;
} Pending;

typedef struct State {
    FuzzHost *h;
    Pending pending[ADMIN_DEPTH];
    unsigned npending;
    bool stop;                  /* the admin rings were overwritten */
} State;

static void G_GNUC_NORETURN fail(const char *what, unsigned a, unsigned b)
{
    fprintf(stderr, "fuzz-admin: %s (%u, %u)\n", what, a, b);
    abort();
}

/* Reference counts the tables imply, against the ones the core keeps. */
static void check_tables(SnicCore *c)
{
    uint32_t pd_refs[FZ_MAX_PD + 1] = { 0 };
    uint32_t cq_refs[FZ_MAX_CQ + 1] = { 0 };
    uint32_t eq_refs[FZ_MAX_EQ + 1] = { 0 };
    uint32_t srq_refs[FZ_MAX_SRQ + 1] = { 0 };
    uint32_t mw_refs[FZ_MAX_MR + 1] = { 0 };
    uint32_t i;

    for (i = 1; i <= FZ_MAX_MW; i++) {
        const SnicMw *mw = &c->mws[i];

        if (!mw->valid) {
            continue;
        }
        if (mw->pdn < 1 || mw->pdn > FZ_MAX_PD || !c->pds[mw->pdn].valid) {
            fail("MW in a dead PD", i, mw->pdn);
        }
        pd_refs[mw->pdn]++;
        if (mw->bound) {
            if (mw->mr < 1 || mw->mr > FZ_MAX_MR || !c->mrs[mw->mr].valid) {
                fail("MW bound in a dead MR", i, mw->mr);
            }
            mw_refs[mw->mr]++;
        }
    }
    for (i = 1; i <= FZ_MAX_MR; i++) {
        if (c->mrs[i].valid && c->mrs[i].mw_refs != mw_refs[i]) {
            fail("MR window count", c->mrs[i].mw_refs, mw_refs[i]);
        }
        if (c->mrs[i].valid) {
            if (c->mrs[i].pdn < 1 || c->mrs[i].pdn > FZ_MAX_PD ||
                !c->pds[c->mrs[i].pdn].valid) {
                fail("MR in a dead PD", i, c->mrs[i].pdn);
            }
            pd_refs[c->mrs[i].pdn]++;
        }
    }
    for (i = 1; i <= FZ_MAX_QP + 1; i++) {
        const SnicQp *qp = &c->qps[i];

        if (!qp->valid) {
            continue;
        }
        if (qp->pdn < 1 || qp->pdn > FZ_MAX_PD || !c->pds[qp->pdn].valid) {
            fail("QP in a dead PD", i, qp->pdn);
        }
        if (qp->send_cqn < 1 || qp->send_cqn > FZ_MAX_CQ ||
            !c->cqs[qp->send_cqn].valid || qp->recv_cqn < 1 ||
            qp->recv_cqn > FZ_MAX_CQ || !c->cqs[qp->recv_cqn].valid) {
            fail("QP on a dead CQ", i, qp->send_cqn);
        }
        if (qp->state >= SNIC_QPS_COUNT) {
            fail("QP in no state", i, qp->state);
        }
        if (qp->srqn && (qp->srqn > FZ_MAX_SRQ ||
                         !c->srqs[qp->srqn].valid ||
                         c->srqs[qp->srqn].ctx != qp->ctx)) {
            fail("QP on a dead or foreign SRQ", i, qp->srqn);
        }
        srq_refs[qp->srqn]++;
        pd_refs[qp->pdn]++;
        cq_refs[qp->send_cqn]++;
        cq_refs[qp->recv_cqn]++;
    }
    for (i = 1; i <= FZ_MAX_SRQ; i++) {
        const SnicSrq *srq = &c->srqs[i];

        if (!srq->valid) {
            continue;
        }
        if (srq->pdn < 1 || srq->pdn > FZ_MAX_PD || !c->pds[srq->pdn].valid) {
            fail("SRQ in a dead PD", i, srq->pdn);
        }
        if (srq->refs != srq_refs[i]) {
            fail("SRQ reference count", srq->refs, srq_refs[i]);
        }
        if (srq->tail - srq->head > 1u << srq->log2_depth) {
            fail("SRQ holds more than its depth", srq->head, srq->tail);
        }
        pd_refs[srq->pdn]++;
    }
    for (i = 1; i <= FZ_MAX_CQ; i++) {
        if (c->cqs[i].valid) {
            if (c->cqs[i].eqn < 1 || c->cqs[i].eqn > FZ_MAX_EQ ||
                !c->eqs[c->cqs[i].eqn].valid) {
                fail("CQ on a dead EQ", i, c->cqs[i].eqn);
            }
            eq_refs[c->cqs[i].eqn]++;
            if (c->cqs[i].refs != cq_refs[i]) {
                fail("CQ reference count", c->cqs[i].refs, cq_refs[i]);
            }
        }
    }
    for (i = 1; i <= FZ_MAX_PD; i++) {
        if (c->pds[i].valid && c->pds[i].refs != pd_refs[i]) {
            fail("PD reference count", c->pds[i].refs, pd_refs[i]);
        }
    }
    for (i = 1; i <= FZ_MAX_EQ; i++) {
        if (c->eqs[i].valid && c->eqs[i].refs != eq_refs[i]) {
            fail("EQ reference count", c->eqs[i].refs, eq_refs[i]);
        }
    }
}

static void check(FuzzHost *h)
{
    check_tables(h->core);
    fz_check(h);
}

/* What the fixed-up commands point at: page lists and QP attributes. */
/* The port's address 10.0.0.1, the prepared address vectors' source. */
static void set_port_gid(FuzzHost *h)
{
    struct snic_admin_cmd cmd;
    struct snic_av av;

    fz_av(&av, 1, 2, false);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
    cmd.set_gid.flags = SNIC_GID_VALID;
    memcpy(cmd.set_gid.gid, av.sgid, 16);
    if (fz_admin(h, &cmd, NULL) != SNIC_ADMIN_OK) {
        fail("SET_GID of the port's address failed", 0, 0);
    }
}

static void prepare_memory(FuzzHost *h)
{
    struct snic_qp_attr a;
    unsigned i;

    for (i = 0; i < NUM_LISTS; i++) {
        /* 16 pages each, inside [0x2000, 0x20000) of guest memory */
        fz_pbl(h, LIST_AT(i), FZ_MEM_BASE + 0x2000 + i * 0x2000, 16,
               i & 1);
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qkey = GUINT32_TO_LE(FZ_QKEY);
    a.qp_access_flags = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_WRITE |
                                      SNIC_ACCESS_REMOTE_READ |
                                      SNIC_ACCESS_REMOTE_ATOMIC);
    fz_write(h, ATTR_AT(0), &a, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.path_mtu = GUINT32_TO_LE(FZ_MTU);
    a.dest_qp_num = GUINT32_TO_LE(3);
    a.rq_psn = GUINT32_TO_LE(FZ_SQ_PSN(2));
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 1;
    fz_av(&a.av, 1, 2, false);
    fz_write(h, ATTR_AT(1), &a, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.cur_qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.timeout = 8;
    a.retry_cnt = 3;
    a.rnr_retry = 3;
    a.sq_psn = GUINT32_TO_LE(FZ_SQ_PSN(1));
    a.max_rd_atomic = 4;
    fz_write(h, ATTR_AT(2), &a, sizeof(a));
    a.cur_qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    fz_write(h, ATTR_AT(3), &a, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_ERR);
    fz_write(h, ATTR_AT(4), &a, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RESET);
    fz_write(h, ATTR_AT(5), &a, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_SQD);
    fz_write(h, ATTR_AT(6), &a, sizeof(a));
    /* 7: out-of-range values everywhere */
    memset(&a, 0xff, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    fz_write(h, ATTR_AT(7), &a, sizeof(a));
}

/* Masks of the usual transitions (RC and UD/GSI), for fixed-up commands. */
static const uint32_t masks[] = {
    SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_PORT |
        SNIC_QP_ATTR_ACCESS_FLAGS,
    SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_PORT |
        SNIC_QP_ATTR_QKEY,
    SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_QKEY,
    SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV | SNIC_QP_ATTR_PATH_MTU |
        SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN |
        SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | SNIC_QP_ATTR_MIN_RNR_TIMER,
    SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
        SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_SQ_PSN |
        SNIC_QP_ATTR_MAX_QP_RD_ATOMIC,
    SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN,
    SNIC_QP_ATTR_STATE,
    SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_CUR_STATE | SNIC_QP_ATTR_QKEY,
};

static uint32_t le32(uint32_t v)
{
    return GUINT32_TO_LE(v);
}

/* A DMA address of 'len' bytes in the free area, 8-byte aligned. */
static uint64_t scratch_addr(uint64_t raw, uint32_t len)
{
    return FZ_SCRATCH + (raw * 8) % (0x10000 - len);
}

/* Pages a queue of 'bytes' takes, at most the 16 of a prepared list. */
static uint32_t queue_pages(uint64_t bytes)
{
    return MIN((bytes + 4095) / 4096, 16);
}

/* REG_MR fields (also REREG_MR's) that name live objects and lists. */
static void fix_reg_mr(struct snic_admin_reg_mr *m, const uint8_t *r)
{
    uint8_t shift = r[39] % 8 ? SNIC_PAGE_SHIFT_4K : SNIC_PAGE_SHIFT_2M;
    uint64_t iova = FZ_MR_IOVA + GUINT64_FROM_LE(m->iova) % 0x3000;
    uint64_t len = 1 + GUINT64_FROM_LE(m->length) % 0x10000;

    m->iova = GUINT64_TO_LE(iova);
    m->length = GUINT64_TO_LE(len);
    m->page_shift = shift;
    m->npages = le32(snic_mtt_pages(iova, len, shift));
    m->pbl_addr = GUINT64_TO_LE(LIST_AT(r[16] % NUM_LISTS));
    m->pdn = le32(r[28] % (FZ_MAX_PD + 2));
    m->access = le32(r[32] & 0x1f);
    m->flags = GUINT16_TO_LE(r[38] % 8 == 0 ? SNIC_MR_PHYS : 0);
    if (m->flags) {
        m->npages = 0;
        m->pbl_addr = 0;
        m->access &= le32(SNIC_ACCESS_LOCAL_WRITE);
    }
    m->key = r[1] & 1 ? m->key : FZ_MR_KEY;
}

static void fix_fields(struct snic_admin_cmd *cmd)
{
    uint8_t r[SNIC_ADMIN_PAYLOAD_SIZE];     /* the bytes before fixing */
    uint8_t log2;

    memcpy(r, cmd->raw, sizeof(r));
    switch (cmd->hdr.opcode) {
    case SNIC_ADMIN_QUERY_DEVICE:
    case SNIC_ADMIN_GET_STATS:
        cmd->resp.resp_len = le32(1 + GUINT32_FROM_LE(cmd->resp.resp_len) %
                                  4096);
        cmd->resp.resp_addr = GUINT64_TO_LE(
            scratch_addr(GUINT64_FROM_LE(cmd->resp.resp_addr), 4096));
        break;
    case SNIC_ADMIN_CREATE_ETH_QUEUE:
        cmd->create_eth_queue.ring_addr = GUINT64_TO_LE(scratch_addr(
            GUINT64_FROM_LE(cmd->create_eth_queue.ring_addr), 0x2000));
        cmd->create_eth_queue.type &= 1;
        cmd->create_eth_queue.log2_depth %= 10;
        cmd->create_eth_queue.vector = GUINT16_TO_LE(
            GUINT16_FROM_LE(cmd->create_eth_queue.vector) % (FZ_VECTORS + 1));
        break;
    case SNIC_ADMIN_DESTROY_ETH_QUEUE:
    case SNIC_ADMIN_START_ETH_QUEUE:
    case SNIC_ADMIN_STOP_ETH_QUEUE:
        cmd->eth_queue.type &= 1;
        cmd->eth_queue.qid = le32(GUINT32_FROM_LE(cmd->eth_queue.qid) % 3);
        break;
    case SNIC_ADMIN_ALLOC_PD:
        cmd->alloc_pd.ctx = GUINT16_TO_LE(r[0] >> 6 == 3 ? 1 + (r[0] & 1) : 0);
        memset(cmd->raw + 2, 0, 6);
        break;
    case SNIC_ADMIN_DEALLOC_PD:
        cmd->obj.handle = le32(r[0] % (FZ_MAX_PD + 2));
        break;
    case SNIC_ADMIN_DESTROY_EQ:
        cmd->obj.handle = le32(r[0] % (FZ_MAX_EQ + 2));
        break;
    case SNIC_ADMIN_DESTROY_CQ:
        cmd->obj.handle = le32(r[0] % (FZ_MAX_CQ + 2));
        break;
    case SNIC_ADMIN_DESTROY_QP:
        cmd->obj.handle = le32(r[0] % (FZ_MAX_QP + 3));
        break;
    case SNIC_ADMIN_QUERY_SRQ:
    case SNIC_ADMIN_DESTROY_SRQ:
        cmd->obj.handle = le32(r[0] % (FZ_MAX_SRQ + 2));
        break;
    case SNIC_ADMIN_ALLOC_MW:
        cmd->alloc_mw.pdn = le32(r[0] % (FZ_MAX_PD + 2));
        cmd->alloc_mw.type = r[4] & 0x80 ? r[4] : 1 + r[4] % 2;
        break;
    case SNIC_ADMIN_DEALLOC_MW:
        cmd->obj.handle = le32(SNIC_KEY_MW |
                               (r[0] % (FZ_MAX_MW + 2)) << 8 | r[1]);
        break;
    case SNIC_ADMIN_MODIFY_SRQ:
        cmd->modify_srq.srqn = le32(r[0] % (FZ_MAX_SRQ + 2));
        cmd->modify_srq.limit = le32(r[4] % 80);
        break;
    case SNIC_ADMIN_CREATE_SRQ: {
        struct snic_admin_create_srq *q = &cmd->create_srq;

        log2 = 2 + q->log2_depth % 6;
        q->log2_depth = log2;
        q->npages = le32(queue_pages((uint64_t)SNIC_RQ_WQE_SIZE << log2));
        q->pbl_addr = GUINT64_TO_LE(LIST_AT(r[0] % NUM_LISTS));
        q->pdn = le32(r[12] % (FZ_MAX_PD + 2));
        q->limit = le32(r[16] % 80);
        q->ctx = GUINT16_TO_LE(r[22] % 4 == 3 ? 1 : 0);
        break;
    }
    case SNIC_ADMIN_DEREG_MR:
        cmd->obj.handle = le32((r[0] % (FZ_MAX_MR + 2)) << 8 |
                               (r[1] & 1 ? r[2] : FZ_MR_KEY));
        break;
    case SNIC_ADMIN_REG_MR:
        fix_reg_mr(&cmd->reg_mr, r);
        break;
    case SNIC_ADMIN_REREG_MR: {
        struct snic_admin_rereg_mr *m = &cmd->rereg_mr;

        fix_reg_mr(&m->mr, r);
        if (!(r[46] & 0x80)) {
            m->mr.key = 0;
            m->mr.flags = 0;
        }
        m->lkey = le32((r[40] % (FZ_MAX_MR + 2)) << 8 |
                       (r[41] & 1 ? r[42] : FZ_MR_KEY));
        m->rereg_flags = le32(r[44] & 0x80 ? r[44] : 1 + r[44] % 7);
        break;
    }
    case SNIC_ADMIN_RESIZE_CQ:
        log2 = 2 + cmd->resize_cq.log2_depth % 8;
        cmd->resize_cq.log2_depth = log2;
        cmd->resize_cq.npages = le32(queue_pages(
                                     (uint64_t)SNIC_CQE_SIZE << log2));
        cmd->resize_cq.pbl_addr = GUINT64_TO_LE(LIST_AT(r[0] % NUM_LISTS));
        cmd->resize_cq.cqn = le32(r[12] % (FZ_MAX_CQ + 2));
        break;
    case SNIC_ADMIN_MODIFY_CQ:
        cmd->modify_cq.cqn = le32(r[0] % (FZ_MAX_CQ + 2));
        break;
    case SNIC_ADMIN_ATTACH_MCAST:
    case SNIC_ADMIN_DETACH_MCAST:
        cmd->mcast.qpn = le32(r[0] % (FZ_MAX_QP + 3));
        if (r[4] & 1) {
            /* one of a few IPv4 groups */
            memset(cmd->mcast.gid, 0, 16);
            cmd->mcast.gid[10] = cmd->mcast.gid[11] = 0xff;
            cmd->mcast.gid[12] = 0xe0 | (r[5] & 1);
            cmd->mcast.gid[15] = r[6] % 40;
        }
        break;
    case SNIC_ADMIN_CREATE_EQ:
        log2 = 2 + cmd->create_eq.log2_depth % 8;
        cmd->create_eq.log2_depth = log2;
        cmd->create_eq.npages = le32(queue_pages(
                                     (uint64_t)SNIC_EQE_SIZE << log2));
        cmd->create_eq.pbl_addr = GUINT64_TO_LE(LIST_AT(r[0] % NUM_LISTS));
        cmd->create_eq.vector = GUINT16_TO_LE(r[14] % (FZ_VECTORS + 1));
        break;
    case SNIC_ADMIN_CREATE_CQ:
        log2 = 2 + cmd->create_cq.log2_depth % 8;
        cmd->create_cq.log2_depth = log2;
        cmd->create_cq.npages = le32(queue_pages(
                                     (uint64_t)SNIC_CQE_SIZE << log2));
        cmd->create_cq.pbl_addr = GUINT64_TO_LE(LIST_AT(r[0] % NUM_LISTS));
        cmd->create_cq.ctx = GUINT16_TO_LE(r[14] % 4 == 3 ? 1 : 0);
        cmd->create_cq.eqn = le32(r[16] % (FZ_MAX_EQ + 2));
        break;
    case SNIC_ADMIN_CREATE_QP: {
        static const uint8_t types[] = {
            SNIC_QPT_RC, SNIC_QPT_UD, SNIC_QPT_UC, SNIC_QPT_GSI,
        };
        struct snic_admin_create_qp *q = &cmd->create_qp;
        uint8_t sl = 2 + q->sq_log2_depth % 6, rl = 2 + q->rq_log2_depth % 6;

        q->type = r[36] & 0x80 ? q->type : types[r[36] % 4];
        q->sq_log2_depth = sl;
        q->rq_log2_depth = rl;
        q->sq_npages = le32(queue_pages((uint64_t)SNIC_SQ_WQE_SIZE << sl));
        q->rq_npages = le32(queue_pages((uint64_t)SNIC_RQ_WQE_SIZE << rl));
        q->sq_pbl_addr = GUINT64_TO_LE(LIST_AT(r[0] % NUM_LISTS));
        q->rq_pbl_addr = GUINT64_TO_LE(LIST_AT(r[8] % NUM_LISTS));
        q->pdn = le32(r[24] % (FZ_MAX_PD + 2));
        q->send_cqn = le32(r[28] % (FZ_MAX_CQ + 2));
        q->recv_cqn = le32(r[32] & 0x80 ? r[32] % (FZ_MAX_CQ + 2) :
                           GUINT32_FROM_LE(q->send_cqn));
        q->ctx = GUINT16_TO_LE(r[40] % 4 == 3 ? 1 : 0);
        if (r[44] % 4 == 3) {
            /* from an SRQ: no RQ (unless the input keeps one) */
            q->srqn = le32(r[45] % (FZ_MAX_SRQ + 2));
            if (!(r[46] & 0x80)) {
                q->rq_log2_depth = 0;
                q->rq_npages = 0;
                q->rq_pbl_addr = 0;
            }
        }
        break;
    }
    case SNIC_ADMIN_MODIFY_QP: {
        struct snic_admin_modify_qp *m = &cmd->modify_qp;
        uint32_t mask = GUINT32_FROM_LE(m->attr_mask);

        m->qpn = le32(r[0] % (FZ_MAX_QP + 3));
        m->attr_mask = le32(mask & 0x80000000u ? mask & 0x1fffff :
                            masks[mask % G_N_ELEMENTS(masks)]);
        m->attr_addr = GUINT64_TO_LE(r[8] & 0x80 ?
                                     scratch_addr(r[9] | r[10] << 8, 128) :
                                     ATTR_AT(r[8] % 8));
        break;
    }
    case SNIC_ADMIN_QUERY_QP:
        cmd->query_qp.qpn = le32(r[0] % (FZ_MAX_QP + 3));
        cmd->query_qp.resp_addr = GUINT64_TO_LE(
            scratch_addr(GUINT64_FROM_LE(cmd->query_qp.resp_addr), 128));
        break;
    case SNIC_ADMIN_SET_GID:
        /* one of the table's entries or just past it; the port's address */
        cmd->set_gid.index = r[0] % (SNIC_MAX_GIDS + 1);
        cmd->set_gid.flags &= r[2] & 0x80 ? 0xff : SNIC_GID_VALID;
        if (r[3] & 1) {
            struct snic_av av;

            fz_av(&av, 1 + (r[3] >> 7), 2, r[3] & 2);
            memcpy(cmd->set_gid.gid, av.sgid, 16);
        }
        break;
    case SNIC_ADMIN_SET_QP_RPC:
        cmd->set_qp_rpc.qpn = le32(r[0] % (FZ_MAX_QP + 3));
        cmd->set_qp_rpc.flags = le32(r[4] & 0x80 ? r[4] : r[4] & 3);
        break;
    case SNIC_ADMIN_DEPLOY_KERNEL:
    case SNIC_ADMIN_UNDEPLOY_KERNEL:
        /* a few op-codes of a few contexts, the kernels and one past */
        cmd->deploy_kernel.rpc_opcode = GUINT64_TO_LE(r[0] % 4);
        cmd->deploy_kernel.ctx = GUINT16_TO_LE(r[8] % 4 == 3 ? r[8] : r[8] % 3);
        cmd->deploy_kernel.kernel_id = GUINT16_TO_LE(r[10] % 4);
        break;
    case SNIC_ADMIN_SET_QP_TRANSPORT:
        cmd->set_qp_transport.qpn = le32(r[0] % (FZ_MAX_QP + 3));
        cmd->set_qp_transport.program = r[4] % (SNIC_PROGRAMS + 1);
        break;
    case SNIC_ADMIN_QUERY_TRANSPORT:
        cmd->query_transport.qpn = le32(r[0] & 1 ? 0 : r[0] % (FZ_MAX_QP + 3));
        cmd->query_transport.program = r[4] % (SNIC_PROGRAMS + 1);
        cmd->query_transport.resp_addr = GUINT64_TO_LE(r[8] & 0x80 ?
            scratch_addr(r[9], 64) + (r[8] & 7) :
            scratch_addr(r[9] | r[10] << 8, 64));
        break;
    case SNIC_ADMIN_CREATE_SR_CTRLQ: {
        struct snic_admin_create_sr_ctrlq *q = &cmd->create_sr_ctrlq;

        /* none (removal), aligned in the free area, misaligned */
        q->log2_depth = SNIC_SR_CTRLQ_MIN_LOG2 - 1 + q->log2_depth % 4;
        q->ring_addr = GUINT64_TO_LE(r[0] % 4 == 0 ? 0 :
            scratch_addr(r[1], SNIC_SR_CTRLQ_ENTRY << q->log2_depth) +
            (r[0] % 4 == 3 ? 8 : 0));
        q->vector = GUINT16_TO_LE(r[10] % (FZ_VECTORS + 1));
        break;
    }
    case SNIC_ADMIN_SET_QP_SR: {
        struct snic_admin_set_qp_sr *q = &cmd->set_qp_sr;

        q->qpn = le32(r[0] % (FZ_MAX_QP + 3));
        q->log2_depth = SNIC_SR_RETRYQ_MIN_LOG2 - 1 + q->log2_depth % 4;
        q->window = GUINT16_TO_LE(r[6] & 0x80 ? r[6] << 3 : r[6]);
        q->ring_addr = GUINT64_TO_LE(r[8] % 4 == 0 ? 0 :
            scratch_addr(r[9], SNIC_SR_RETRYQ_ENTRY << q->log2_depth) +
            (r[8] % 4 == 3 ? 4 : 0));
        break;
    }
    case SNIC_ADMIN_ATTACH_HLL:
    case SNIC_ADMIN_QUERY_HLL:
    case SNIC_ADMIN_RESET_HLL:
    case SNIC_ADMIN_DETACH_HLL:
        /* registers: none, or past the host's memory (refused) */
        cmd->hll.qpn = le32(r[0] % (FZ_MAX_QP + 3));
        cmd->hll.rsvd = r[4] % 8 ? 0 : cmd->hll.rsvd;
        cmd->hll.resp_addr = GUINT64_TO_LE(scratch_addr(r[9], 24) +
                                           (r[8] % 8 == 0 ? 4 : 0));
        cmd->hll.regs_addr = GUINT64_TO_LE(r[16] % 4 ? 0 : ~0ull << 12);
        break;
    default:
        break;
    }
}

/* Back to a working admin queue after the device went fatal. */
static void recover(State *s)
{
    SnicCore *c = s->h->core;
    uint32_t err = snic_core_reg_read(c, SNIC_REG_ERROR, 4);

    /* the rings of this harness are fine: only an AEQ may fail */
    if (err != SNIC_ERR_AEQ_DMA) {
        fail("device fatal: error, status", err,
             snic_core_reg_read(c, SNIC_REG_DEV_STATUS, 4));
    }
    snic_core_reg_write(c, SNIC_REG_DEV_CTRL, SNIC_CTRL_RESET, 4);
    fz_enable(s->h);
}

/* Run the device and check the completions of every pending command. */
static void drain(State *s)
{
    struct snic_admin_cqe cqe;
    unsigned i;

    fz_run(s->h);
    for (i = 0; i < s->npending && !s->stop; i++) {
        const Pending *p = &s->pending[i];

        if (!fz_admin_poll(s->h, &cqe) ||
            GUINT16_FROM_LE(cqe.cmd_id) != p->id ||
            cqe.opcode != p->opcode ||
            GUINT16_FROM_LE(cqe.status) > SNIC_ADMIN_NOT_SUPPORTED) {
            if (s->h->admin_clobbered) {
                s->stop = true;     /* the input overwrote the rings */
                break;
            }
            if (snic_core_reg_read(s->h->core, SNIC_REG_DEV_STATUS, 4) &
                SNIC_STATUS_FATAL) {
                recover(s);
                break;
            }
            fail("admin completion missing or wrong: opcode, id",
                 p->opcode, p->id);
        }
    }
    s->npending = 0;
    if (!s->stop) {
        check(s->h);
    }
}

static void do_cmd(State *s, FzInput *in)
{
    uint8_t fix = fz_take8(in);
    struct snic_admin_cmd cmd;
    int len;

    fz_take(in, &cmd, sizeof(cmd));
    if (fix & ADM_FIX_HDR) {
        cmd.hdr.opcode = fz_admin_opcodes[cmd.hdr.opcode %
                                         FZ_ADMIN_NUM_OPCODES];
        cmd.hdr.version = SNIC_ADMIN_CMD_VERSION;
        len = fz_admin_payload_len(cmd.hdr.opcode);
        cmd.hdr.len = GUINT16_TO_LE(len < 0 ? 0 : len);
        cmd.hdr.flags = 0;
    }
    if (fix & ADM_FIX_FIELDS) {
        fix_fields(&cmd);
    }
    s->pending[s->npending].opcode = cmd.hdr.opcode;
    s->pending[s->npending].id = fz_admin_post(s->h, &cmd);
    s->npending++;
    if (!(fix & ADM_FIX_BATCH) || s->npending == ADMIN_DEPTH) {
        drain(s);
    }
}

static void do_ctrl(State *s, uint8_t what)
{
    SnicCore *c = s->h->core;

    drain(s);
    if (s->stop) {
        return;
    }
    switch (what % 8) {
    case 0:
        fz_run(s->h);
        break;
    case 1:
        fz_advance(s->h, (uint64_t)(what >> 3) * 100000 + 1);
        fz_run(s->h);
        break;
    case 2:
        snic_core_set_link(c, what & 0x80);
        break;
    case 3:
        snic_core_reg_write(c, SNIC_REG_DEV_CTRL, 0, 4);
        fz_enable(s->h);
        break;
    case 4:
        snic_core_reg_write(c, SNIC_REG_DEV_CTRL, SNIC_CTRL_RESET, 4);
        fz_enable(s->h);
        break;
    case 5:
        snic_core_reg_write(c, SNIC_REG_INTR_MASK, what >> 3, 4);
        snic_core_reg_write(c, SNIC_REG_INTR_CAUSE, what >> 5, 4);
        snic_core_reg_read(c, (what >> 3) * 8, what & 0x80 ? 8 : 4);
        snic_core_reg_read(c, SNIC_REG_STATS + (what >> 3) * 8, 8);
        break;
    case 6: {
        /* another AEQ: none, misaligned, or running off guest memory */
        static const uint64_t aeqs[] = {
            0, FZ_AEQ + 8, FZ_MEM_BASE + FZ_MEM_SIZE - 4 * SNIC_AEQE_SIZE,
            FZ_AEQ,
        };

        snic_core_reg_write(c, SNIC_REG_DEV_CTRL, 0, 4);
        if (!fz_enable_layout(s->h, what & 0x80 ? 13 : FZ_ADMIN_LOG2,
                              aeqs[(what >> 3) & 3], 2 + (what >> 5) % 3)) {
            snic_core_reg_write(c, SNIC_REG_DEV_CTRL, 0, 4);
            fz_enable(s->h);
        }
        break;
    }
    case 7:
        /* consume the async events */
        fz_doorbell(s->h, 0, SNIC_DB_AEQ, 0,
                    snic_core_reg_read(c, SNIC_REG_AEQ_TAIL, 4));
        break;
    }
    check(s->h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FzInput in = { data, size };
    State s = { 0 };
    unsigned ops = 0;

    s.h = fz_host_new(NULL, NULL);
    prepare_memory(s.h);
    set_port_gid(s.h);
    while (in.left && !s.stop && ops++ < 256) {
        uint8_t op = fz_take8(&in);

        switch (op % ADM_OP_COUNT) {
        case ADM_OP_CMD:
            do_cmd(&s, &in);
            break;
        case ADM_OP_MEM: {
            uint16_t off;
            uint8_t n, buf[255];

            fz_take(&in, &off, 2);
            n = fz_take8(&in);
            fz_take(&in, buf, n);
            /* anywhere past the admin rings: lists, attributes, queues */
            fz_write(s.h, FZ_ATTR + GUINT16_FROM_LE(off) * 4ull %
                          (FZ_MEM_BASE + FZ_MEM_SIZE - FZ_ATTR - n), buf, n);
            break;
        }
        case ADM_OP_DOORBELL: {
            uint8_t page = fz_take8(&in) % (FZ_DB_PAGES + 1);
            uint64_t v;

            fz_take(&in, &v, 8);
            v = GUINT64_FROM_LE(v);
            if ((uint8_t)(v >> SNIC_DB_TYPE_SHIFT) == SNIC_DB_ADMIN_SQ) {
                break;  /* the admin SQ is this harness's */
            }
            snic_core_doorbell(s.h->core, page * SNIC_DB_PAGE_SIZE, v, 8);
            break;
        }
        case ADM_OP_CTRL:
            do_ctrl(&s, fz_take8(&in));
            break;
        }
    }
    if (!s.stop) {
        drain(&s);
    }
    fz_host_free(s.h);
    return 0;
}
