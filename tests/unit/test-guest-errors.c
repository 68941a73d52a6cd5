/*
 * Every guest error the device knows (the GE_* events of events.h) has a
 * path here that makes it happen, and each emits its own typed event, is
 * counted, and logs the event's text for the same arguments. A last test
 * fails when events.h gains a guest error that no case here triggers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"
#include "sr-host.h"

/* Guest memory the device can never reach (outside the fake RAM) */
#define NOWHERE     (FAKE_MEM_BASE + FAKE_MEM_SIZE)

typedef struct Env {
    FakeHost *h;                /* the device that must report the error */
    SnicSim *sim;               /* with nodes a and b, when used */
    Node a, b;
} Env;

static const SnicSimLinkConfig clean = { .delay_ns = 1000 };

static void plain(Env *e)
{
    e->h = fake_host_new();
}

static void enabled(Env *e)
{
    plain(e);
    fake_enable(e->h, 4, 4);
}

/* Two connected RC nodes; node a's device is the one under test. */
static void pair(Env *e)
{
    e->sim = snic_sim_new(1);
    node_pair_new(e->sim, &e->a, &e->b, &clean, SNIC_MTU_1024, 7, 7);
    e->h = e->a.h;
}

static void env_free(Env *e)
{
    if (e->sim) {
        node_pair_free(e->sim, &e->a, &e->b);
    } else {
        fake_host_free(e->h);
    }
}

static void admin_status(Env *e, struct snic_admin_cmd *cmd, uint16_t st)
{
    g_assert_cmpuint(fake_admin(e->h, cmd, NULL), ==, st);
}

/* ---- registers ---- */

static void ge_reg_access(Env *e)
{
    plain(e);
    g_assert_cmphex(snic_core_reg_read(e->h->core, SNIC_REG_MAGIC, 1), ==, 0);
}

static void ge_reg_read(Env *e)
{
    plain(e);
    g_assert_cmphex(snic_core_reg_read(e->h->core, 0x300, 4), ==, 0);
}

static void ge_reg_write(Env *e)
{
    plain(e);
    fake_reg_write(e->h, SNIC_REG_MAGIC, 1);
}

static void ge_reg_locked(Env *e)
{
    enabled(e);
    fake_reg_write(e->h, SNIC_REG_ADMIN_SQ_BASE_LO, 0);
}

static void ge_reg_reserved(Env *e)
{
    plain(e);
    fake_reg_write(e->h, SNIC_REG_DEV_CTRL, 1u << 7);
}

static void admin_layout(FakeHost *h, uint64_t sq, uint32_t log2)
{
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, (uint32_t)sq);
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_HI, sq >> 32);
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_LO, (uint32_t)FAKE_ADMIN_CQ);
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, log2);
}

static void ge_admin_config(Env *e)
{
    plain(e);
    admin_layout(e->h, FAKE_ADMIN_SQ, SNIC_ADMIN_MAX_LOG2_DEPTH + 1);
    fake_reg_write(e->h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmpuint(fake_reg_read(e->h, SNIC_REG_ERROR), ==,
                     SNIC_ERR_ADMIN_CONFIG);
}

static void ge_aeq_config(Env *e)
{
    plain(e);
    admin_layout(e->h, FAKE_ADMIN_SQ, 4);
    fake_reg_write(e->h, SNIC_REG_AEQ_BASE_LO, (uint32_t)FAKE_AEQ);
    fake_reg_write(e->h, SNIC_REG_AEQ_DEPTH, 1);
    fake_reg_write(e->h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmpuint(fake_reg_read(e->h, SNIC_REG_ERROR), ==,
                     SNIC_ERR_AEQ_CONFIG);
}

/* The admin SQ is out of reach: the first fetch fails, the device dies. */
static void ge_fatal(Env *e)
{
    plain(e);
    admin_layout(e->h, NOWHERE, 4);
    fake_reg_write(e->h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    fake_doorbell(e->h, 0, SNIC_DB_ADMIN_SQ, 0, 1);
    fake_run(e->h);
    g_assert_cmphex(fake_reg_read(e->h, SNIC_REG_DEV_STATUS) &
                    SNIC_STATUS_FATAL, ==, SNIC_STATUS_FATAL);
}

/* ---- doorbells ---- */

static void ge_db_access(Env *e)
{
    enabled(e);
    snic_core_doorbell(e->h->core, 8, snic_db_make(SNIC_DB_ADMIN_SQ, 0, 1),
                       8);
}

static void ge_db_page(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, FAKE_DB_PAGES, SNIC_DB_ADMIN_SQ, 0, 1);
}

static void ge_db_disabled(Env *e)
{
    plain(e);
    fake_doorbell(e->h, 0, SNIC_DB_ADMIN_SQ, 0, 1);
}

static void ge_db_type(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, 0, 0x7f, 0, 0);
}

static void ge_db_queue(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, 0, SNIC_DB_ADMIN_SQ, 1, 1);
}

static void ge_db_kernel_queue(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, 1, SNIC_DB_ADMIN_SQ, 0, 1);
}

static void ge_db_qp_owner(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, 0, SNIC_DB_SQ, 77, 1);
}

static void ge_db_srq_owner(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, 0, SNIC_DB_SRQ, 3, 1);
}

/* The RQ doorbell of a QP that takes its receive WQEs from an SRQ */
static void ge_db_rq_of_srq_qp(Env *e)
{
    Node q;

    pair(e);
    node_create_srq(&e->a, 0);
    node_add_qp(&q, &e->a);
    fake_doorbell(e->h, 0, SNIC_DB_RQ, q.qpn, 1);
}

static void ge_db_cq_owner(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, 0, SNIC_DB_CQ, 5, 1);
}

static void ge_db_eq(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, 0, SNIC_DB_EQ, 3, 1);
}

static void ge_db_index(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, 0, SNIC_DB_ADMIN_CQ, 0, 5);   /* none written */
}

/* ---- admin commands ---- */

static void ge_admin_opcode(Env *e)
{
    struct snic_admin_cmd cmd;

    enabled(e);
    snic_admin_cmd_init(&cmd, 0x7f, 0);
    admin_status(e, &cmd, SNIC_ADMIN_BAD_OPCODE);
}

static void ge_admin_version(Env *e)
{
    struct snic_admin_cmd cmd;

    enabled(e);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    cmd.hdr.version = SNIC_ADMIN_CMD_VERSION + 1;
    admin_status(e, &cmd, SNIC_ADMIN_BAD_VERSION);
}

static void ge_admin_length(Env *e)
{
    struct snic_admin_cmd cmd;

    enabled(e);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 8);
    admin_status(e, &cmd, SNIC_ADMIN_BAD_LENGTH);
}

static void ge_admin_flags(Env *e)
{
    struct snic_admin_cmd cmd;

    enabled(e);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    cmd.hdr.flags = GUINT16_TO_LE(1);
    admin_status(e, &cmd, SNIC_ADMIN_BAD_PARAM);
}

static void ge_admin_resp_buf(Env *e)
{
    struct snic_admin_cmd cmd;

    enabled(e);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = GUINT64_TO_LE(NOWHERE);
    cmd.resp.resp_len = GUINT32_TO_LE(sizeof(struct snic_device_attr));
    admin_status(e, &cmd, SNIC_ADMIN_BAD_ADDRESS);
}

static void ge_reg_mr(Env *e)
{
    struct snic_admin_cmd cmd;

    pair(e);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(BUF);
    cmd.reg_mr.length = GUINT64_TO_LE(4096);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(PBL_MR);
    cmd.reg_mr.npages = GUINT32_TO_LE(1);
    cmd.reg_mr.pdn = GUINT32_TO_LE(e->a.pdn);
    cmd.reg_mr.page_shift = 13;     /* neither 4 KiB nor 2 MiB */
    admin_status(e, &cmd, SNIC_ADMIN_BAD_PARAM);
}

static void ge_modify_qp(Env *e)
{
    struct snic_qp_attr a = { .qp_state = GUINT32_TO_LE(SNIC_QPS_INIT) };
    struct snic_admin_cmd cmd;
    const uint64_t at = FAKE_MEM_BASE + 0x9000;

    pair(e);    /* a's QP is in RTS: RTS -> INIT is not a transition */
    fake_write(e->h, at, &a, sizeof(a));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(e->a.qpn);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(SNIC_QP_ATTR_STATE);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(at);
    admin_status(e, &cmd, SNIC_ADMIN_BAD_PARAM);
}

/* An RDB for a UD QP */
static void ge_qp_rdb(Env *e)
{
    struct snic_admin_cmd cmd;

    node_init(&e->a, NULL, 1);
    e->h = e->a.h;
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(PBL_SQ);
    cmd.create_qp.sq_npages = GUINT32_TO_LE(16);
    cmd.create_qp.sq_log2_depth = SQ_LOG2;
    cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(PBL_RQ);
    cmd.create_qp.rq_npages = GUINT32_TO_LE(4);
    cmd.create_qp.rq_log2_depth = RQ_LOG2;
    cmd.create_qp.pdn = GUINT32_TO_LE(e->a.pdn);
    cmd.create_qp.send_cqn = GUINT32_TO_LE(e->a.cqn);
    cmd.create_qp.recv_cqn = GUINT32_TO_LE(e->a.cqn);
    cmd.create_qp.type = SNIC_QPT_UD;
    cmd.create_qp.rdb_addr = GUINT64_TO_LE(RDB2);
    admin_status(e, &cmd, SNIC_ADMIN_BAD_PARAM);
}

/* A READ whose responder cannot write its RDB (gone from guest memory) */
static void ge_rdb_entry(Env *e)
{
    pair(e);
    e->h = e->b.h;
    e->b.h->core->qps[e->b.qpn].rdb = 0x1000;   /* as if it were unplugged */
    node_post_send(&e->a, 1, SNIC_WR_RDMA_READ, BUF, 10, BUF + 0x1000,
                   e->b.lkey, 0, e->a.lkey);
    snic_sim_run(e->sim, 100000);
}

/* SRNIC: a RetryQ entry for a PSN never sent (not in recovery either) */
static void ge_sr_retry(Env *e)
{
    struct snic_sr_retry r = {
        .type = SNIC_SR_RETRY_RTX, .psn_from = GUINT32_TO_LE(100),
        .psn_to = GUINT32_TO_LE(101),
    };
    SrHost s;

    node_init(&e->a, NULL, 1);
    e->h = e->a.h;
    g_assert_cmpuint(node_set_transport(&e->a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&s, &e->a, NULL, 4, 2, 0);
    node_init(&e->b, NULL, 2);
    node_connect(&e->a, &e->b, SNIC_MTU_1024, 7, 7);
    fake_host_free(e->b.h);
    r.qpn = GUINT32_TO_LE(e->a.qpn);
    sr_host_post(&s, &r);
    fake_run(e->h);
}

/* SRNIC: a CtrlQ doorbell with no CtrlQ */
static void ge_sr_ring(Env *e)
{
    enabled(e);
    fake_doorbell(e->h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_CTRLQ, 0, 1);
}

/* A connection from an address the port does not own */
static void ge_qp_sgid(Env *e)
{
    struct snic_qp_attr a = {
        .qp_state = GUINT32_TO_LE(SNIC_QPS_INIT),
        .port_num = 1,
    };
    struct snic_admin_cmd cmd;
    const uint64_t at = FAKE_MEM_BASE + 0x9000;

    node_init(&e->a, NULL, 1);      /* its QP in RESET, then INIT */
    e->h = e->a.h;
    node_modify(&e->a, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.path_mtu = GUINT32_TO_LE(SNIC_MTU_1024);
    a.av.sgid[10] = a.av.sgid[11] = 0xff;
    a.av.sgid[12] = 10;
    a.av.sgid[15] = 99;
    fake_write(e->h, at, &a, sizeof(a));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(e->a.qpn);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(SNIC_QP_ATTR_STATE |
                                            SNIC_QP_ATTR_AV |
                                            SNIC_QP_ATTR_PATH_MTU |
                                            SNIC_QP_ATTR_DEST_QPN |
                                            SNIC_QP_ATTR_RQ_PSN |
                                            SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
                                            SNIC_QP_ATTR_MIN_RNR_TIMER);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(at);
    admin_status(e, &cmd, SNIC_ADMIN_BAD_PARAM);
}

/* ---- Ethernet function ---- */

static void create_eth_queue(Env *e, uint64_t ring, uint8_t log2,
                             uint16_t status)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_ETH_QUEUE,
                        sizeof(cmd.create_eth_queue));
    cmd.create_eth_queue.ring_addr = GUINT64_TO_LE(ring);
    cmd.create_eth_queue.type = SNIC_ETH_QUEUE_TX;
    cmd.create_eth_queue.log2_depth = log2;
    cmd.create_eth_queue.vector = GUINT16_TO_LE(1);
    admin_status(e, &cmd, status);
}

static void ge_eth_queue_param(Env *e)
{
    enabled(e);
    create_eth_queue(e, FAKE_TX_RING, SNIC_ETH_MIN_LOG2_DEPTH - 1,
                     SNIC_ADMIN_BAD_PARAM);
}

static void ge_eth_queue_ring(Env *e)
{
    enabled(e);
    create_eth_queue(e, FAKE_TX_RING + 8, 4, SNIC_ADMIN_BAD_ADDRESS);
}

static void put_desc(FakeHost *h, uint64_t ring, uint32_t i, uint64_t addr,
                     uint16_t len, uint16_t flags)
{
    struct snic_eth_desc d = {
        .addr = GUINT64_TO_LE(addr),
        .len = GUINT16_TO_LE(len),
        .flags = GUINT16_TO_LE(flags),
    };

    fake_write(h, ring + (i % 64) * sizeof(d), &d, sizeof(d));
}

/* One TX frame of 'n' descriptors of 'len' bytes each at 'addr'. */
static void tx_frame(Env *e, uint32_t n, uint64_t addr, uint16_t len)
{
    uint32_t i;

    enabled(e);
    fake_eth_queue(e->h, SNIC_ETH_QUEUE_TX, 6, 1, 0);
    for (i = 0; i < n; i++) {
        put_desc(e->h, FAKE_TX_RING, i, addr, len,
                 i == n - 1 ? SNIC_ETH_DESC_EOP : 0);
    }
    fake_doorbell(e->h, 0, SNIC_DB_ETH_TX, 0, n);
    fake_run(e->h);
    g_assert_cmpuint(FAKE_STAT(e->h, tx_dropped), ==, 1);
}

static void ge_eth_tx_long(Env *e)
{
    tx_frame(e, 1, FAKE_BUFS, SNIC_ETH_DEFAULT_MTU + SNIC_ETH_HLEN_MAX + 1);
}

static void ge_eth_tx_short(Env *e)
{
    tx_frame(e, 1, FAKE_BUFS, SNIC_ETH_HLEN - 1);
}

static void ge_eth_tx_buffer(Env *e)
{
    tx_frame(e, 1, NOWHERE, 60);
}

static void ge_eth_tx_gather(Env *e)
{
    tx_frame(e, SNIC_ETH_MAX_TX_DESCS + 1, FAKE_BUFS, 2);
}

static void ge_eth_tx_ring(Env *e)
{
    enabled(e);
    fake_eth_queue(e->h, SNIC_ETH_QUEUE_TX, 6, 1, 0);
    put_desc(e->h, FAKE_TX_RING, 0, FAKE_BUFS, 60, SNIC_ETH_DESC_EOP);
    e->h->fail_read_at = FAKE_TX_RING;      /* the ring went away */
    fake_doorbell(e->h, 0, SNIC_DB_ETH_TX, 0, 1);
    fake_run(e->h);
}

/* An RX ring with one buffer at 'buf'; a frame for us arrives. */
static void rx_frame(Env *e, uint64_t buf, bool ring_gone)
{
    uint8_t frame[128];
    size_t len = fake_frame(frame, fake_mac, SNIC_ETH_P_IPV4, 64, 9);

    enabled(e);
    fake_eth_queue(e->h, SNIC_ETH_QUEUE_RX, 4, 1, 0);
    put_desc(e->h, FAKE_RX_RING, 0, buf, 2048, 0);
    fake_doorbell(e->h, 0, SNIC_DB_ETH_RX, 0, 1);
    if (ring_gone) {
        e->h->fail_read_at = FAKE_RX_RING;
    }
    g_assert_cmpint(snic_core_receive(e->h->core, frame, len), ==, len);
    g_assert_cmpuint(FAKE_STAT(e->h, rx_dropped), ==, 1);
}

static void ge_eth_rx_ring(Env *e)
{
    rx_frame(e, FAKE_BUFS, true);
}

static void ge_eth_rx_buffer(Env *e)
{
    rx_frame(e, NOWHERE, false);
}

/* ---- completion and event queues ---- */

static int post_cqe(Env *e)
{
    struct snic_cqe cqe = { .qpn = GUINT32_TO_LE(e->a.qpn) };

    return snic_cq_post(e->h->core, e->a.cqn, &cqe, false);
}

/* The page list now names a page the device cannot write. */
static void lose_page(Env *e, uint64_t pbl)
{
    __le64 page = GUINT64_TO_LE(NOWHERE);

    fake_write(e->h, pbl, &page, sizeof(page));
}

static void ge_eq_ring(Env *e)
{
    pair(e);
    lose_page(e, PBL_EQ);
    fake_doorbell(e->h, 0, SNIC_DB_CQ_ARM, e->a.cqn, 0);
    g_assert_cmpint(post_cqe(e), ==, 0);    /* its event cannot be written */
}

static void ge_cq_ring(Env *e)
{
    pair(e);
    lose_page(e, PBL_CQ);
    g_assert_cmpint(post_cqe(e), ==, -1);
}

static void ge_cq_overrun(Env *e)
{
    unsigned i;

    pair(e);
    for (i = 0; i < 1u << CQ_LOG2; i++) {
        g_assert_cmpint(post_cqe(e), ==, 0);
    }
    g_assert_cmpint(post_cqe(e), ==, -1);
}

/* ---- work queue entries ---- */

static void post_bad_wqe(Env *e, uint8_t opcode, uint8_t flags)
{
    struct snic_sq_wqe w = {
        .wr_id = GUINT64_TO_LE(1),
        .opcode = opcode,
        .flags = flags,
        .num_sge = 1,
        .sge[0] = {
            .addr = GUINT64_TO_LE(BUF),
            .length = GUINT32_TO_LE(10),
            .lkey = GUINT32_TO_LE(e->a.lkey),
        },
    };

    node_post_wqe(&e->a, &w);
    snic_sim_run(e->sim, 100000);
}

static void ge_wqe_fetch(Env *e)
{
    pair(e);
    lose_page(e, PBL_SQ);
    node_post_send(&e->a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, e->a.lkey);
    snic_sim_run(e->sim, 100000);
}

/* A data buffer's page the host refuses (an IOMMU's unmapped page) */
static void ge_dma_fault(Env *e)
{
    pair(e);
    e->h->unmapped_at = BUF;
    e->h->unmapped_len = 0x1000;
    node_post_send(&e->a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, e->a.lkey);
    snic_sim_run(e->sim, 100000);
}

static void ge_wqe_invalid(Env *e)
{
    pair(e);
    post_bad_wqe(e, 0x77, SNIC_WQE_SIGNALED);
}

static void ge_wqe_flags(Env *e)
{
    pair(e);
    post_bad_wqe(e, SNIC_WR_SEND, 0x80);
}

static void ge_wqe_inline(Env *e)
{
    struct snic_sq_wqe w = {
        .wr_id = GUINT64_TO_LE(1),
        .opcode = SNIC_WR_SEND,
        .flags = SNIC_WQE_SIGNALED | SNIC_WQE_INLINE,
        .inline_len = SNIC_MAX_INLINE_DATA + 1,
    };

    pair(e);
    node_post_wqe(&e->a, &w);
    snic_sim_run(e->sim, 100000);
}

/* The receiver's WQE claims more SGEs than a receive WQE holds. */
static void ge_rq_wqe_sges(Env *e)
{
    struct snic_rq_wqe w;

    pair(e);
    e->h = e->b.h;
    node_post_recv(&e->b, 5, BUF, 100);
    fake_read(e->b.h, RQ_RING, &w, sizeof(w));
    w.num_sge = SNIC_RQ_WQE_MAX_SGE + 1;
    fake_write(e->b.h, RQ_RING, &w, sizeof(w));
    node_post_send(&e->a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, e->a.lkey);
    snic_sim_run(e->sim, 100000);
}

/* A user process's UD datagram from an address the port does not own. */
static void ge_ud_source(Env *e)
{
    static const uint32_t masks[] = {
        SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_PORT |
        SNIC_QP_ATTR_QKEY,
        SNIC_QP_ATTR_STATE,
        SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN,
    };
    struct snic_qp_attr a = { .port_num = 1, .qkey = GUINT32_TO_LE(7) };
    struct snic_sq_wqe w = {
        .opcode = SNIC_WR_SEND,
        .flags = SNIC_WQE_SIGNALED,
        .num_sge = 1,
        .sge[0] = {
            .addr = GUINT64_TO_LE(BUF),
            .length = GUINT32_TO_LE(10),
        },
        .ud = {
            .av = { .sgid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 9 } },
            .remote_qpn = GUINT32_TO_LE(2),
            .remote_qkey = GUINT32_TO_LE(7),
        },
    };
    unsigned i;

    e->sim = snic_sim_new(1);
    node_init_ctx(&e->a, e->sim, 1, SNIC_QPT_UD, 3);
    node_init_type(&e->b, e->sim, 2, SNIC_QPT_UD);
    e->h = e->a.h;
    for (i = 0; i < G_N_ELEMENTS(masks); i++) {
        a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT + i);
        node_modify(&e->a, masks[i], &a);
    }
    w.sge[0].lkey = GUINT32_TO_LE(e->a.lkey);
    node_post_wqe(&e->a, &w);
    snic_sim_run(e->sim, 100000);
}

typedef struct GeCase {
    SnicTracePoint ge;
    void (*trigger)(Env *e);
} GeCase;

#define CASE(name, fn) { SNIC_TRACE_##name, fn }
static const GeCase cases[] = {
    CASE(GE_REG_ACCESS, ge_reg_access),
    CASE(GE_REG_READ, ge_reg_read),
    CASE(GE_REG_WRITE, ge_reg_write),
    CASE(GE_REG_LOCKED, ge_reg_locked),
    CASE(GE_REG_RESERVED, ge_reg_reserved),
    CASE(GE_ADMIN_CONFIG, ge_admin_config),
    CASE(GE_AEQ_CONFIG, ge_aeq_config),
    CASE(GE_FATAL, ge_fatal),
    CASE(GE_DB_ACCESS, ge_db_access),
    CASE(GE_DB_PAGE, ge_db_page),
    CASE(GE_DB_DISABLED, ge_db_disabled),
    CASE(GE_DB_TYPE, ge_db_type),
    CASE(GE_DB_QUEUE, ge_db_queue),
    CASE(GE_DB_KERNEL_QUEUE, ge_db_kernel_queue),
    CASE(GE_DB_QP_OWNER, ge_db_qp_owner),
    CASE(GE_DB_SRQ_OWNER, ge_db_srq_owner),
    CASE(GE_DB_RQ_OF_SRQ_QP, ge_db_rq_of_srq_qp),
    CASE(GE_DB_CQ_OWNER, ge_db_cq_owner),
    CASE(GE_DB_EQ, ge_db_eq),
    CASE(GE_DB_INDEX, ge_db_index),
    CASE(GE_ADMIN_OPCODE, ge_admin_opcode),
    CASE(GE_ADMIN_VERSION, ge_admin_version),
    CASE(GE_ADMIN_LENGTH, ge_admin_length),
    CASE(GE_ADMIN_FLAGS, ge_admin_flags),
    CASE(GE_ADMIN_RESP_BUF, ge_admin_resp_buf),
    CASE(GE_REG_MR, ge_reg_mr),
    CASE(GE_MODIFY_QP, ge_modify_qp),
    CASE(GE_QP_SGID, ge_qp_sgid),
    CASE(GE_QP_RDB, ge_qp_rdb),
    CASE(GE_RDB_ENTRY, ge_rdb_entry),
    CASE(GE_SR_RETRY, ge_sr_retry),
    CASE(GE_SR_RING, ge_sr_ring),
    CASE(GE_ETH_QUEUE_PARAM, ge_eth_queue_param),
    CASE(GE_ETH_QUEUE_RING, ge_eth_queue_ring),
    CASE(GE_ETH_TX_RING, ge_eth_tx_ring),
    CASE(GE_ETH_TX_GATHER, ge_eth_tx_gather),
    CASE(GE_ETH_TX_LONG, ge_eth_tx_long),
    CASE(GE_ETH_TX_SHORT, ge_eth_tx_short),
    CASE(GE_ETH_TX_BUFFER, ge_eth_tx_buffer),
    CASE(GE_ETH_RX_RING, ge_eth_rx_ring),
    CASE(GE_ETH_RX_BUFFER, ge_eth_rx_buffer),
    CASE(GE_EQ_RING, ge_eq_ring),
    CASE(GE_CQ_RING, ge_cq_ring),
    CASE(GE_CQ_OVERRUN, ge_cq_overrun),
    CASE(GE_DMA_FAULT, ge_dma_fault),
    CASE(GE_WQE_FETCH, ge_wqe_fetch),
    CASE(GE_WQE_INVALID, ge_wqe_invalid),
    CASE(GE_WQE_FLAGS, ge_wqe_flags),
    CASE(GE_WQE_INLINE, ge_wqe_inline),
    CASE(GE_RQ_WQE_SGES, ge_rq_wqe_sges),
    CASE(GE_UD_SOURCE, ge_ud_source),
};

/*
 * The path emits its typed event, counts a guest error, and logs the
 * event's text for the arguments the event carried.
 */
static void test_case(gconstpointer data)
{
    const GeCase *k = data;
    const uint64_t *a;
    g_autofree char *want = NULL;
    bool logged = false;
    Env e = { 0 };
    unsigned i;

    k->trigger(&e);
    g_assert_cmpuint(e.h->events[k->ge], >=, 1);
    g_assert_cmpuint(FAKE_STAT(e.h, guest_errors), >=, e.h->events[k->ge]);
    a = e.h->event_args[k->ge];
    want = snic_event_text(k->ge, a);
    for (i = 0; i < e.h->guest_errors->len; i++) {
        logged |= !strcmp(g_ptr_array_index(e.h->guest_errors, i), want);
    }
    g_assert_true(logged);
    env_free(&e);
}

/* A guest error added to events.h without a case above fails here. */
static void test_every_kind_has_a_case(void)
{
    unsigned tp, i, seen;

    for (tp = 0; tp < SNIC_TRACE__MAX; tp++) {
        if (strncmp(snic_event_name(tp), "GE_", 3)) {
            continue;
        }
        for (i = 0, seen = 0; i < G_N_ELEMENTS(cases); i++) {
            seen += cases[i].ge == tp;
        }
        if (seen != 1) {
            g_test_message("%s has %u cases", snic_event_name(tp), seen);
        }
        g_assert_cmpuint(seen, ==, 1);
    }
}

int main(int argc, char **argv)
{
    unsigned i;

    g_test_init(&argc, &argv, NULL);
    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *down = g_ascii_strdown(snic_event_name(cases[i].ge),
                                                -1);
        g_autofree char *path = g_strdup_printf("/core/guest-errors/%s", down);

        g_test_add_data_func(path, &cases[i], test_case);
    }
    g_test_add_func("/core/guest-errors/every-kind-has-a-case",
                    test_every_kind_has_a_case);
    return g_test_run();
}
