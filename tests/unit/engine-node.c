/*
 * Test harness shared by the engine tests and benchmark (engine-node.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"
#include "engine/rdma.h"
#include "port/link.h"

uint64_t node_admin_ok(FakeHost *h, struct snic_admin_cmd *cmd)
{
    uint64_t r = 0;

    g_assert_cmpuint(fake_admin(h, cmd, &r), ==, SNIC_ADMIN_OK);
    return r;
}

/* A page list of n contiguous 4 KiB pages from 'first'. */
void node_pbl(FakeHost *h, uint64_t at, uint64_t first, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        __le64 a = GUINT64_TO_LE(first + i * 4096ull);

        fake_write(h, at + i * 8, &a, 8);
    }
}

/*
 * A QP of n's device, PD and CQ in INIT with an SQ of 2^sq_log2 WQEs
 * through the page list at 'pbl' and n's RQ; its QPN.
 */
uint32_t node_qp_in_init(Node *n, uint64_t pbl, uint8_t sq_log2)
{
    struct snic_admin_cmd cmd;
    struct snic_qp_attr a;
    Node q = *n;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(pbl);
    cmd.create_qp.sq_npages =
        GUINT32_TO_LE(MAX(1, (SNIC_SQ_WQE_SIZE << sq_log2) / 4096));
    cmd.create_qp.sq_log2_depth = sq_log2;
    cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(PBL_RQ);
    cmd.create_qp.rq_npages =
        GUINT32_TO_LE(MAX(1, (SNIC_RQ_WQE_SIZE << RQ_LOG2) / 4096));
    cmd.create_qp.rq_log2_depth = RQ_LOG2;
    cmd.create_qp.pdn = GUINT32_TO_LE(n->pdn);
    cmd.create_qp.send_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.recv_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.type = SNIC_QPT_RC;
    cmd.create_qp.ctx = GUINT16_TO_LE(n->ctx);
    q.qpn = node_admin_ok(n->h, &cmd);
    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    node_modify(&q, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &a);
    return q.qpn;
}

/* A signaled WRITE whose wr_id says which it is */
void node_write_wqe_at(FakeHost *h, uint64_t slot, uint64_t wr_id)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = SNIC_WR_RDMA_WRITE;
    w.flags = SNIC_WQE_SIGNALED;
    fake_write(h, slot, &w, sizeof(w));
}

/*
 * MODIFY_QP of 'qpn' to ERR posted on the admin queue at FAKE_MEM_BASE +
 * 0x9000 (the doorbell only: it runs in the next engine run)
 */
void node_post_to_err(Node *n, uint32_t qpn)
{
    node_post_to_state(n, qpn, SNIC_QPS_ERR);
}

void node_post_to_state(Node *n, uint32_t qpn, uint32_t state)
{
    const uint64_t at = FAKE_MEM_BASE + 0x9000;
    struct snic_qp_attr a = { .qp_state = GUINT32_TO_LE(state) };
    struct snic_admin_cmd cmd;

    fake_write(n->h, at, &a, sizeof(a));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(qpn);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(SNIC_QP_ATTR_STATE);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(at);
    fake_admin_post(n->h, &cmd);
}

void node_set_mtu(Node *n, uint32_t mtu)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MTU, sizeof(cmd.set_mtu));
    cmd.set_mtu.mtu = GUINT32_TO_LE(mtu);
    node_admin_ok(n->h, &cmd);
}

/*
 * A QP of n's type on its PD and CQ; an RQ unless it takes from srqn; an
 * RC QP's responder database at rdb.
 */
static uint64_t create_qp(Node *n, uint64_t sq_pbl, uint64_t srqn,
                          uint64_t rdb)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(sq_pbl);
    cmd.create_qp.sq_npages =
        GUINT32_TO_LE((SNIC_SQ_WQE_SIZE << n->sq_log2) / 4096);
    if (!srqn) {
        cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(n->rq_ring == RQ2_RING ?
                                                  PBL_RQ2 : PBL_RQ);
        cmd.create_qp.rq_npages =
            GUINT32_TO_LE(MAX(1, (SNIC_RQ_WQE_SIZE << n->rq_log2) / 4096));
        cmd.create_qp.rq_log2_depth = n->rq_log2;
    }
    cmd.create_qp.pdn = GUINT32_TO_LE(n->pdn);
    cmd.create_qp.send_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.recv_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.type = n->type;
    cmd.create_qp.sq_log2_depth = n->sq_log2;
    cmd.create_qp.ctx = GUINT16_TO_LE(n->ctx);
    cmd.create_qp.srqn = GUINT32_TO_LE(srqn);
    n->rdb = n->type == SNIC_QPT_RC ? rdb : 0;
    cmd.create_qp.rdb_addr = GUINT64_TO_LE(n->rdb);
    return node_admin_ok(n->h, &cmd);
}

void node_create_srq(Node *n, uint32_t limit)
{
    struct snic_admin_cmd cmd;

    node_pbl(n->h, n->srq_ring == SRQ2_RING ? PBL_SRQ2 : PBL_SRQ,
             n->srq_ring, 4);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SRQ, sizeof(cmd.create_srq));
    cmd.create_srq.pbl_addr = GUINT64_TO_LE(n->srq_ring == SRQ2_RING ?
                                            PBL_SRQ2 : PBL_SRQ);
    cmd.create_srq.npages = GUINT32_TO_LE(4);
    cmd.create_srq.pdn = GUINT32_TO_LE(n->pdn);
    cmd.create_srq.limit = GUINT32_TO_LE(limit);
    cmd.create_srq.log2_depth = SRQ_LOG2;
    cmd.create_srq.ctx = GUINT16_TO_LE(n->ctx);
    n->srqn = node_admin_ok(n->h, &cmd);
    n->srq_pi = 0;
}

void node_post_srq_recv(Node *n, uint64_t wr_id, uint64_t addr, uint32_t len,
                        uint32_t lkey)
{
    struct snic_rq_wqe w;
    uint64_t slot = n->srq_ring +
                    (n->srq_pi & ((1u << SRQ_LOG2) - 1)) * SNIC_RQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.num_sge = 1;
    w.sge[0].addr = GUINT64_TO_LE(addr);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(lkey);
    fake_write(n->h, slot, &w, sizeof(w));
    fake_doorbell(n->h, n->ctx, SNIC_DB_SRQ, n->srqn, ++n->srq_pi);
}

void node_add_qp(Node *q, const Node *n)
{
    *q = *n;
    node_pbl(n->h, PBL_SQ2, SQ2_RING, 16);
    q->sq_ring = SQ2_RING;
    q->sq_pi = q->rq_pi = 0;
    q->qpn = create_qp(q, PBL_SQ2, n->srqn, RDB2);
}

void node_add_qp_at(Node *q, const Node *n, uint64_t area)
{
    /* the page list, then the RDB (512 B), then the ring from 4 KiB on */
    *q = *n;
    g_assert(!(area & 0xfff));
    node_pbl(n->h, area, area + 0x1000, 16);
    q->sq_ring = area + 0x1000;
    q->sq_pi = q->rq_pi = 0;
    q->qpn = create_qp(q, area, n->srqn, area + 0x800);
}

void node_add_qp_sq_at(Node *q, const Node *n, uint64_t area,
                       uint8_t sq_log2)
{
    unsigned pages = (SNIC_SQ_WQE_SIZE << sq_log2) / 4096;

    /* the page list (8 bytes a page) ends before the RDB at 0x800 */
    *q = *n;
    g_assert(!(area & 0xfff) && sq_log2 >= SQ_LOG2 && pages <= 0x800 / 8);
    node_pbl(n->h, area, area + 0x1000, pages);
    q->sq_ring = area + 0x1000;
    q->sq_log2 = sq_log2;
    q->sq_pi = q->rq_pi = 0;
    q->qpn = create_qp(q, area, n->srqn, area + 0x800);
}

void node_add_qp_rq(Node *q, const Node *n, uint8_t rq_log2)
{
    *q = *n;
    g_assert((SNIC_RQ_WQE_SIZE << rq_log2) <= 0x10000 && !n->srqn);
    node_pbl(n->h, PBL_SQ2, SQ2_RING, 16);
    node_pbl(n->h, PBL_RQ2, RQ2_RING,
             MAX(1, (SNIC_RQ_WQE_SIZE << rq_log2) / 4096));
    q->sq_ring = SQ2_RING;
    q->rq_ring = RQ2_RING;
    q->rq_log2 = rq_log2;
    q->sq_pi = q->rq_pi = 0;
    q->qpn = create_qp(q, PBL_SQ2, 0, RDB2);
}

void node_add_ctx(Node *q, const Node *n, uint16_t ctx)
{
    struct snic_admin_cmd cmd;

    *q = *n;
    q->ctx = ctx;
    q->cq_ring = CQ2_RING;
    q->srq_ring = SRQ2_RING;
    q->sq_ring = SQ2_RING;
    q->sq_pi = q->rq_pi = q->cq_ci = 0;
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    cmd.alloc_pd.ctx = GUINT16_TO_LE(ctx);
    q->pdn = node_admin_ok(q->h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(BUF);
    cmd.reg_mr.length = GUINT64_TO_LE(BUF_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(PBL_MR);
    cmd.reg_mr.npages = GUINT32_TO_LE(BUF_LEN / 4096);
    cmd.reg_mr.pdn = GUINT32_TO_LE(q->pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                      SNIC_ACCESS_REMOTE_WRITE);
    cmd.reg_mr.page_shift = 12;
    cmd.reg_mr.key = 0x44;
    q->lkey = node_admin_ok(q->h, &cmd);
    node_pbl(q->h, PBL_CQ2, CQ2_RING, 8);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(PBL_CQ2);
    cmd.create_cq.npages = GUINT32_TO_LE(8);
    cmd.create_cq.log2_depth = CQ_LOG2;
    cmd.create_cq.eqn = GUINT32_TO_LE(q->eqn);
    cmd.create_cq.ctx = GUINT16_TO_LE(ctx);
    q->cqn = node_admin_ok(q->h, &cmd);
    node_create_srq(q, 0);
    node_pbl(q->h, PBL_SQ2, SQ2_RING, 16);
    q->qpn = create_qp(q, PBL_SQ2, q->srqn, RDB2);
}

static void node_init_full(Node *n, SnicSim *sim, uint8_t ip, uint8_t type,
                           uint16_t ctx, const NodeDev *dev)
{
    static const NodeDev defaults;
    const SnicSimNicTiming *t;

    dev = dev ? dev : &defaults;
    t = &dev->timing;
    if (!t->pcie_rtt_ns && !t->pcie_bps && !t->pipeline_ns &&
        !t->line_rate_bps) {
        t = NULL;
    }
    node_init_host(n, fake_host_new_model(&dev->cfg, t), sim, ip, type, ctx);
}

void node_init_host(Node *n, FakeHost *h, SnicSim *sim, uint8_t ip,
                    uint8_t type, uint16_t ctx)
{
    struct snic_admin_cmd cmd;
    uint64_t eq_pages = EQ_RING, cq_pages = CQ_RING;
    uint64_t sq_pages = SQ_RING, rq_pages = RQ_RING;

    memset(n, 0, sizeof(*n));
    n->ip = ip;
    n->ctx = ctx;
    n->type = type;
    n->sq_ring = SQ_RING;
    n->sq_log2 = SQ_LOG2;
    n->rq_ring = RQ_RING;
    n->rq_log2 = RQ_LOG2;
    n->cq_ring = CQ_RING;
    n->srq_ring = SRQ_RING;
    n->h = h;
    if (sim) {
        fake_host_attach_sim(n->h, sim);
    }
    fake_enable(n->h, 4, 4);
    node_pbl(n->h, PBL_EQ, eq_pages, 1);
    node_pbl(n->h, PBL_CQ, cq_pages, 8);
    node_pbl(n->h, PBL_SQ, sq_pages, 16);
    node_pbl(n->h, PBL_RQ, rq_pages, 4);
    node_pbl(n->h, PBL_MR, BUF, BUF_LEN / 4096);

    /* jumbo frames, as the VM tests run: path MTU 4096 fits */
    node_set_mtu(n, SNIC_ETH_MAX_MTU);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    cmd.alloc_pd.ctx = GUINT16_TO_LE(ctx);
    n->pdn = node_admin_ok(n->h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
    cmd.create_eq.pbl_addr = GUINT64_TO_LE(PBL_EQ);
    cmd.create_eq.npages = GUINT32_TO_LE(1);
    cmd.create_eq.log2_depth = EQ_LOG2;
    cmd.create_eq.vector = GUINT16_TO_LE(1);
    n->eqn = node_admin_ok(n->h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(PBL_CQ);
    cmd.create_cq.npages = GUINT32_TO_LE(8);
    cmd.create_cq.log2_depth = CQ_LOG2;
    cmd.create_cq.eqn = GUINT32_TO_LE(n->eqn);
    cmd.create_cq.ctx = GUINT16_TO_LE(ctx);
    n->cqn = node_admin_ok(n->h, &cmd);
    n->qpn = create_qp(n, PBL_SQ, 0, RDB);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(BUF);
    cmd.reg_mr.length = GUINT64_TO_LE(BUF_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(PBL_MR);
    cmd.reg_mr.npages = GUINT32_TO_LE(BUF_LEN / 4096);
    cmd.reg_mr.pdn = GUINT32_TO_LE(n->pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                      SNIC_ACCESS_REMOTE_WRITE |
                                      SNIC_ACCESS_REMOTE_READ |
                                      SNIC_ACCESS_REMOTE_ATOMIC |
                                      SNIC_ACCESS_MW_BIND);
    cmd.reg_mr.page_shift = 12;
    cmd.reg_mr.key = 0x33;
    n->lkey = node_admin_ok(n->h, &cmd);
    node_set_gid(n->h, ip);
}

void node_set_gid(FakeHost *h, uint8_t ip)
{
    struct snic_admin_cmd cmd;

    /* the port's address, as the driver lists it: RoCE to it is ours */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
    cmd.set_gid.flags = SNIC_GID_VALID;
    cmd.set_gid.gid[10] = cmd.set_gid.gid[11] = 0xff;
    cmd.set_gid.gid[12] = 10;
    cmd.set_gid.gid[15] = ip;
    node_admin_ok(h, &cmd);
}

void node_av(struct snic_av *av, uint8_t ip, FakeHost *peer_h,
             uint8_t peer_ip)
{
    av->dgid[10] = av->dgid[11] = 0xff;
    av->dgid[12] = 10;
    av->dgid[15] = peer_ip;
    av->sgid[10] = av->sgid[11] = 0xff;
    av->sgid[12] = 10;
    av->sgid[15] = ip;
    snic_core_get_mac(peer_h->core, av->dmac);
    av->hop_limit = 64;
}

void node_init_ctx(Node *n, SnicSim *sim, uint8_t ip, uint8_t type,
                   uint16_t ctx)
{
    node_init_full(n, sim, ip, type, ctx, NULL);
}

uint32_t node_link_mbps(const SnicSimLinkConfig *link)
{
    return link->bandwidth_bps / 1000000;
}

void node_init_dev(Node *n, SnicSim *sim, uint8_t ip, const NodeDev *dev)
{
    node_init_full(n, sim, ip, SNIC_QPT_RC, SNIC_DB_KERNEL_PAGE, dev);
}

void node_init_dev_type(Node *n, SnicSim *sim, uint8_t ip, uint8_t type,
                        const NodeDev *dev)
{
    node_init_full(n, sim, ip, type, SNIC_DB_KERNEL_PAGE, dev);
}

void node_init_type(Node *n, SnicSim *sim, uint8_t ip, uint8_t type)
{
    node_init_ctx(n, sim, ip, type, SNIC_DB_KERNEL_PAGE);
}

void node_init(Node *n, SnicSim *sim, uint8_t ip)
{
    node_init_type(n, sim, ip, SNIC_QPT_RC);
}

void node_modify(Node *n, uint32_t mask, const struct snic_qp_attr *a)
{
    struct snic_admin_cmd cmd;
    const uint64_t at = FAKE_MEM_BASE + 0x9000;

    fake_write(n->h, at, a, sizeof(*a));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(n->qpn);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(mask);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(at);
    node_admin_ok(n->h, &cmd);
}

/* Connect n to peer: RESET -> INIT -> RTR -> RTS. */
uint16_t node_set_transport(Node *n, uint8_t program, uint8_t ack_every)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_TRANSPORT,
                        sizeof(cmd.set_qp_transport));
    cmd.set_qp_transport.qpn = GUINT32_TO_LE(n->qpn);
    cmd.set_qp_transport.program = program;
    cmd.set_qp_transport.ack_every = ack_every;
    return fake_admin(n->h, &cmd, NULL);
}

void node_connect_rtr(Node *n, const Node *peer, uint8_t mtu)
{
    struct snic_qp_attr a;
    bool uc;

    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qp_access_flags = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_WRITE |
                                      SNIC_ACCESS_REMOTE_READ |
                                      SNIC_ACCESS_REMOTE_ATOMIC);
    node_modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
           SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.path_mtu = GUINT32_TO_LE(mtu);
    a.dest_qp_num = GUINT32_TO_LE(peer->qpn);
    /* near the wrap, so it is crossed soon (past it from 10.0.0.16 on) */
    a.rq_psn = GUINT32_TO_LE((0xfffff0 + peer->ip) & 0xffffff);
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 1;                                /* 10 us */
    node_av(&a.av, n->ip, peer->h, peer->ip);
    /* UC has no RDMA READ/atomic responder resources, no RNR, no retry */
    uc = n->type == SNIC_QPT_UC;
    node_modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV | SNIC_QP_ATTR_PATH_MTU |
           SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN |
           (uc ? 0 : SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
                     SNIC_QP_ATTR_MIN_RNR_TIMER), &a);
}

void node_connect_rts(Node *n, uint8_t retry_cnt, uint8_t rnr_retry)
{
    node_connect_rts_timeout(n, retry_cnt, rnr_retry, 8);   /* ~1 ms */
}

void node_connect_rts_timeout(Node *n, uint8_t retry_cnt, uint8_t rnr_retry,
                              uint8_t timeout)
{
    struct snic_qp_attr a;
    bool uc = n->type == SNIC_QPT_UC;

    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.timeout = timeout;
    a.retry_cnt = retry_cnt;
    a.rnr_retry = rnr_retry;
    a.sq_psn = GUINT32_TO_LE((0xfffff0 + n->ip) & 0xffffff);
    a.max_rd_atomic = 4;
    node_modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN |
           (uc ? 0 : SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
                     SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_MAX_QP_RD_ATOMIC),
           &a);
}

void node_connect(Node *n, const Node *peer, uint8_t mtu,
                  uint8_t retry_cnt, uint8_t rnr_retry)
{
    node_connect_rtr(n, peer, mtu);
    node_connect_rts(n, retry_cnt, rnr_retry);
}

/* RESET -> INIT -> RTR -> RTS for a UD or GSI QP. */
void node_ud_up(Node *n, uint32_t qkey, bool gsi)
{
    struct snic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qkey = GUINT32_TO_LE(qkey);
    node_modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                SNIC_QP_ATTR_QKEY | (gsi ? 0 : SNIC_QP_ATTR_PORT), &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    node_modify(n, SNIC_QP_ATTR_STATE, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.sq_psn = GUINT32_TO_LE(100);
    node_modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN, &a);
}

void node_post_wqe(Node *n, const struct snic_sq_wqe *w)
{
    uint64_t slot = n->sq_ring +
                    (n->sq_pi & ((1u << n->sq_log2) - 1)) * SNIC_SQ_WQE_SIZE;

    fake_write(n->h, slot, w, sizeof(*w));
    fake_doorbell(n->h, n->ctx, SNIC_DB_SQ, n->qpn, ++n->sq_pi);
}

void node_post_send(Node *n, uint64_t wr_id, uint8_t opcode, uint64_t addr,
                    uint32_t len, uint64_t raddr, uint32_t rkey,
                    uint32_t imm, uint32_t lkey)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = opcode;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    w.imm = GUINT32_TO_BE(imm);
    w.rdma.remote_addr = GUINT64_TO_LE(raddr);
    w.rdma.rkey = GUINT32_TO_LE(rkey);
    w.sge[0].addr = GUINT64_TO_LE(addr);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(lkey);
    node_post_wqe(n, &w);
}

void node_post_recv(Node *n, uint64_t wr_id, uint64_t addr, uint32_t len)
{
    struct snic_rq_wqe w;
    uint64_t slot = n->rq_ring +
                    (n->rq_pi & ((1u << n->rq_log2) - 1)) * SNIC_RQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.num_sge = 1;
    w.sge[0].addr = GUINT64_TO_LE(addr);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(n->lkey);
    fake_write(n->h, slot, &w, sizeof(w));
    fake_doorbell(n->h, n->ctx, SNIC_DB_RQ, n->qpn, ++n->rq_pi);
}

void node_post_atomic(Node *n, uint64_t wr_id, uint8_t opcode,
                      uint64_t result, uint64_t raddr, uint32_t rkey,
                      uint64_t compare_add, uint64_t swap)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = opcode;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    w.rdma.remote_addr = GUINT64_TO_LE(raddr);
    w.rdma.rkey = GUINT32_TO_LE(rkey);
    w.rdma.compare_add = GUINT64_TO_LE(compare_add);
    w.rdma.swap = GUINT64_TO_LE(swap);
    w.sge[0].addr = GUINT64_TO_LE(result);
    w.sge[0].length = GUINT32_TO_LE(8);
    w.sge[0].lkey = GUINT32_TO_LE(n->lkey);
    node_post_wqe(n, &w);
}

void node_inject(Node *to, const void *frame, size_t len)
{
    SnicCore *c = to->h->core;

    g_assert_cmpint(snic_core_receive(c, frame, len), ==, len);
    snic_enter(c);      /* a reset the frame causes waits, as in a run */
    snic_link_rx_run(c, UINT_MAX, snic_rdma_receive);
    snic_leave(c);
}

uint64_t node_rd64(Node *n, uint64_t addr)
{
    uint64_t v;

    fake_read(n->h, addr, &v, 8);
    return GUINT64_FROM_LE(v);
}

void node_wr64(Node *n, uint64_t addr, uint64_t v)
{
    v = GUINT64_TO_LE(v);
    fake_write(n->h, addr, &v, 8);
}

/* Next completion, if any. */
bool node_poll_cq(Node *n, struct snic_cqe *c)
{
    uint64_t slot = n->cq_ring +
                    (n->cq_ci & ((1u << CQ_LOG2) - 1)) * SNIC_CQE_SIZE;

    fake_read(n->h, slot, c, sizeof(*c));
    if (!snic_ring_entry_new(c->flags, n->cq_ci, CQ_LOG2)) {
        return false;
    }
    fake_doorbell(n->h, n->ctx, SNIC_DB_CQ, n->cqn, ++n->cq_ci);
    return true;
}

void node_fill(Node *n, uint64_t addr, uint32_t len, uint32_t seed)
{
    uint8_t *p = fake_ptr(n->h, addr, len);
    uint32_t i;

    for (i = 0; i < len; i++) {
        p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
    }
}

void node_pair_new(SnicSim *sim, Node *a, Node *b,
                   const SnicSimLinkConfig *link, uint8_t mtu,
                   uint8_t retry_cnt, uint8_t rnr_retry)
{
    NodeDev dev = { .cfg.link_speed_mbps = node_link_mbps(link) };

    node_init_dev(a, sim, 1, &dev);
    node_init_dev(b, sim, 2, &dev);
    snic_sim_port_connect(&a->h->port, &b->h->port, link);
    node_connect(a, b, mtu, retry_cnt, rnr_retry);
    node_connect(b, a, mtu, retry_cnt, rnr_retry);
}

void node_pair_free(SnicSim *sim, Node *a, Node *b)
{
    fake_host_free(a->h);
    fake_host_free(b->h);
    snic_sim_free(sim);
}
