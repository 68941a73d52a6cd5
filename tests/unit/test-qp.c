/*
 * Unit tests of the EQ, CQ and QP objects: create/destroy validation,
 * references between objects, limits, and modify/query through the
 * state machine with attribute range checks.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "fake-host.h"
#include "objects/qp.h"

#define QPBL        (FAKE_MEM_BASE + 0x3000)    /* one-page page list */
#define QPAGE       (FAKE_MEM_BASE + 0x100000)
#define ATTR        (FAKE_MEM_BASE + 0x9000)
#define QRDB        (FAKE_MEM_BASE + 0x4000)    /* RC QPs' RDB */

typedef struct Objs {
    uint64_t pdn, eqn, cqn;
} Objs;

static uint16_t create_eq(FakeHost *h, uint8_t log2, uint16_t vector,
                          uint32_t npages, uint64_t *eqn)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
    cmd.create_eq.pbl_addr = GUINT64_TO_LE(QPBL);
    cmd.create_eq.npages = GUINT32_TO_LE(npages);
    cmd.create_eq.log2_depth = log2;
    cmd.create_eq.vector = GUINT16_TO_LE(vector);
    return fake_admin(h, &cmd, eqn);
}

static uint16_t create_cq(FakeHost *h, uint16_t ctx, uint32_t eqn,
                          uint64_t *cqn)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(QPBL);
    cmd.create_cq.npages = GUINT32_TO_LE(1);
    cmd.create_cq.log2_depth = 4;
    cmd.create_cq.ctx = GUINT16_TO_LE(ctx);
    cmd.create_cq.eqn = GUINT32_TO_LE(eqn);
    return fake_admin(h, &cmd, cqn);
}

static void qp_cmd(struct snic_admin_cmd *cmd, uint8_t type, uint16_t ctx,
                   const Objs *o)
{
    snic_admin_cmd_init(cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd->create_qp));
    cmd->create_qp.sq_pbl_addr = GUINT64_TO_LE(QPBL);
    cmd->create_qp.rq_pbl_addr = GUINT64_TO_LE(QPBL);
    cmd->create_qp.sq_npages = GUINT32_TO_LE(1);
    cmd->create_qp.rq_npages = GUINT32_TO_LE(1);
    cmd->create_qp.pdn = GUINT32_TO_LE(o->pdn);
    cmd->create_qp.send_cqn = GUINT32_TO_LE(o->cqn);
    cmd->create_qp.recv_cqn = GUINT32_TO_LE(o->cqn);
    cmd->create_qp.type = type;
    cmd->create_qp.sq_log2_depth = 4;      /* 16 x 256 B = one page */
    cmd->create_qp.rq_log2_depth = 6;      /* 64 x 64 B = one page */
    cmd->create_qp.ctx = GUINT16_TO_LE(ctx);
    if (type == SNIC_QPT_RC) {
        cmd->create_qp.rdb_addr = GUINT64_TO_LE(QRDB);
    }
}

static FakeHost *qp_host(Objs *o, uint16_t ctx)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;
    __le64 page = GUINT64_TO_LE(QPAGE);

    fake_enable(h, 4, 4);
    fake_write(h, QPBL, &page, 8);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    cmd.alloc_pd.ctx = GUINT16_TO_LE(ctx);
    g_assert_cmpuint(fake_admin(h, &cmd, &o->pdn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(create_eq(h, 4, 1, 1, &o->eqn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(create_cq(h, ctx, o->eqn, &o->cqn), ==, SNIC_ADMIN_OK);
    return h;
}

static uint16_t modify(FakeHost *h, uint32_t qpn, uint32_t mask,
                       const struct snic_qp_attr *a)
{
    struct snic_admin_cmd cmd;

    fake_write(h, ATTR, a, sizeof(*a));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(qpn);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(mask);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(ATTR);
    return fake_admin(h, &cmd, NULL);
}

static struct snic_qp_attr query(FakeHost *h, uint32_t qpn)
{
    struct snic_admin_cmd cmd;
    struct snic_qp_attr a;
    uint64_t len;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_QP, sizeof(cmd.query_qp));
    cmd.query_qp.qpn = GUINT32_TO_LE(qpn);
    cmd.query_qp.resp_addr = GUINT64_TO_LE(ATTR + 0x200);
    g_assert_cmpuint(fake_admin(h, &cmd, &len), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(len, ==, sizeof(a));
    fake_read(h, ATTR + 0x200, &a, sizeof(a));
    return a;
}

static uint32_t state_of(FakeHost *h, uint32_t qpn)
{
    return GUINT32_FROM_LE(query(h, qpn).qp_state);
}

static void test_eq_cq_lifecycle(void)
{
    Objs o;
    FakeHost *h = qp_host(&o, 0);
    uint64_t eqn, cqn;

    g_assert_cmpuint(create_eq(h, 4, FAKE_VECTORS, 1, &eqn), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_eq(h, 1, 1, 1, &eqn), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_eq(h, 17, 1, 1, &eqn), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_eq(h, 9, 1, 1, &eqn), ==,      /* 2 pages */
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_eq(h, 9, 1, 2, &eqn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(create_cq(h, 0, 999, &cqn), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(h, FAKE_DB_PAGES, eqn, &cqn), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(h, 2, eqn, &cqn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_EQ, eqn), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_CQ, cqn), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_CQ, cqn), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_EQ, eqn), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_EQ, 0), ==,
                     SNIC_ADMIN_BAD_PARAM);
    fake_host_free(h);
}

static void test_create_validation(void)
{
    Objs o, user;
    FakeHost *h = qp_host(&o, 0);
    struct snic_admin_cmd cmd;
    uint64_t qpn;

    /* objects of context 2 */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    cmd.alloc_pd.ctx = GUINT16_TO_LE(2);
    g_assert_cmpuint(fake_admin(h, &cmd, &user.pdn), ==, SNIC_ADMIN_OK);
    user.eqn = o.eqn;
    g_assert_cmpuint(create_cq(h, 2, o.eqn, &user.cqn), ==, SNIC_ADMIN_OK);

#define QP_EXPECT(status, type, ctx, objs, edit) do { \
        qp_cmd(&cmd, type, ctx, objs); \
        edit; \
        g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, status); \
    } while (0)
    QP_EXPECT(SNIC_ADMIN_BAD_PARAM, 5, 0, &o, (void)0);   /* not a type */
    QP_EXPECT(SNIC_ADMIN_BAD_PARAM, SNIC_QPT_RC, 2, &o, (void)0);
    QP_EXPECT(SNIC_ADMIN_BAD_PARAM, SNIC_QPT_RC, 0, &user, (void)0);
    QP_EXPECT(SNIC_ADMIN_BAD_PARAM, SNIC_QPT_GSI, 2, &user, (void)0);
    QP_EXPECT(SNIC_ADMIN_BAD_PARAM, SNIC_QPT_RC, 0, &o,
              cmd.create_qp.sq_log2_depth = 15);
    QP_EXPECT(SNIC_ADMIN_BAD_PARAM, SNIC_QPT_RC, 0, &o,
              cmd.create_qp.rq_npages = GUINT32_TO_LE(2));
    QP_EXPECT(SNIC_ADMIN_BAD_ADDRESS, SNIC_QPT_RC, 0, &o,
              cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(0x1000));
    /* an RDB only for RC, SNIC_RDB_ALIGN aligned */
    QP_EXPECT(SNIC_ADMIN_BAD_PARAM, SNIC_QPT_RC, 0, &o,
              cmd.create_qp.rdb_addr = GUINT64_TO_LE(QRDB + 32));
    QP_EXPECT(SNIC_ADMIN_BAD_PARAM, SNIC_QPT_UD, 0, &o,
              cmd.create_qp.rdb_addr = GUINT64_TO_LE(QRDB));
    QP_EXPECT(SNIC_ADMIN_OK, SNIC_QPT_RC, 2, &user, (void)0);
    g_assert_cmpuint(qpn, >=, 2);
    QP_EXPECT(SNIC_ADMIN_OK, SNIC_QPT_GSI, 0, &o, (void)0);
    g_assert_cmpuint(qpn, ==, 1);
    QP_EXPECT(SNIC_ADMIN_NO_RESOURCES, SNIC_QPT_GSI, 0, &o, (void)0);
#undef QP_EXPECT
    fake_host_free(h);
}

static void test_refs_and_limits(void)
{
    Objs o;
    FakeHost *h = qp_host(&o, 0);
    struct snic_admin_cmd cmd;
    uint64_t qpn, more;
    unsigned i;

    qp_cmd(&cmd, SNIC_QPT_RC, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_CQ, o.cqn), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, o.pdn), ==,
                     SNIC_ADMIN_BAD_STATE);
    for (i = 1; i < SNIC_DEFAULT_MAX_QP; i++) {
        g_assert_cmpuint(fake_admin(h, &cmd, &more), ==, SNIC_ADMIN_OK);
    }
    g_assert_cmpuint(fake_admin(h, &cmd, &more), ==, SNIC_ADMIN_NO_RESOURCES);
    /* the device's object gauges (BAR0 stats) see them all */
    g_assert_cmpuint(fake_stat(h, offsetof(struct snic_stats, obj_qps)), ==,
                     SNIC_DEFAULT_MAX_QP);
    g_assert_cmpuint(fake_stat(h, offsetof(struct snic_stats, obj_cqs)), ==, 1);
    g_assert_cmpuint(fake_stat(h, offsetof(struct snic_stats, obj_pds)), ==, 1);
    for (i = 0; i < SNIC_DEFAULT_MAX_QP; i++) {
        g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_QP, 2 + i), ==,
                         SNIC_ADMIN_OK);
    }
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_QP, qpn), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_CQ, o.cqn), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, o.pdn), ==,
                     SNIC_ADMIN_OK);
    /* ... and none once all are destroyed */
    g_assert_cmpuint(fake_stat(h, offsetof(struct snic_stats, obj_qps)), ==, 0);
    g_assert_cmpuint(fake_stat(h, offsetof(struct snic_stats, obj_cqs)), ==, 0);
    g_assert_cmpuint(fake_stat(h, offsetof(struct snic_stats, obj_pds)), ==, 0);
    fake_host_free(h);
}

/* RESET -> INIT -> RTR -> RTS for RC, as the Linux CM drives it. */
/* The port's address 10.0.0.1 (SET_GID): a connection's source. */
static void port_gid(FakeHost *h, uint8_t gid[16])
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
    cmd.set_gid.flags = SNIC_GID_VALID;
    cmd.set_gid.gid[10] = cmd.set_gid.gid[11] = 0xff;
    cmd.set_gid.gid[12] = 10;
    cmd.set_gid.gid[15] = 1;
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    memcpy(gid, cmd.set_gid.gid, 16);
}

static void rc_to_rts(FakeHost *h, uint32_t qpn)
{
    struct snic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qp_access_flags = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_WRITE |
                                      SNIC_ACCESS_REMOTE_READ);
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE |
                            SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_PORT |
                            SNIC_QP_ATTR_ACCESS_FLAGS, &a), ==,
                     SNIC_ADMIN_OK);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.path_mtu = GUINT32_TO_LE(SNIC_MTU_1024);     /* port MTU 1500 */
    a.dest_qp_num = GUINT32_TO_LE(0x123456);
    a.rq_psn = GUINT32_TO_LE(0xabcdef);
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 12;
    a.av.dgid[15] = 2;
    port_gid(h, a.av.sgid);
    a.av.dmac[0] = 0x52;
    a.av.hop_limit = 64;
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV |
                            SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN |
                            SNIC_QP_ATTR_RQ_PSN |
                            SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
                            SNIC_QP_ATTR_MIN_RNR_TIMER, &a), ==,
                     SNIC_ADMIN_OK);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = GUINT32_TO_LE(0x111111);
    a.max_rd_atomic = 2;
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_TIMEOUT |
                            SNIC_QP_ATTR_RETRY_CNT | SNIC_QP_ATTR_RNR_RETRY |
                            SNIC_QP_ATTR_SQ_PSN |
                            SNIC_QP_ATTR_MAX_QP_RD_ATOMIC, &a), ==,
                     SNIC_ADMIN_OK);
}

/*
 * An RC path MTU the port cannot carry is refused when the connection is
 * set up (RTR), not left to fail frame by frame.
 */
static void test_rtr_path_mtu_fits_port(void)
{
    Objs o;
    FakeHost *h = qp_host(&o, 0);
    struct snic_admin_cmd cmd;
    struct snic_qp_attr a = {
        .qp_state = GUINT32_TO_LE(SNIC_QPS_INIT),
        .port_num = 1,
    };
    const uint32_t rtr = SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV |
                         SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN |
                         SNIC_QP_ATTR_RQ_PSN |
                         SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
                         SNIC_QP_ATTR_MIN_RNR_TIMER;
    uint64_t qpn;

    qp_cmd(&cmd, SNIC_QPT_RC, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE |
                            SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_PORT |
                            SNIC_QP_ATTR_ACCESS_FLAGS, &a), ==,
                     SNIC_ADMIN_OK);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.path_mtu = GUINT32_TO_LE(SNIC_MTU_2048);     /* port: 1024 at 1500 */
    port_gid(h, a.av.sgid);
    g_assert_cmpuint(modify(h, qpn, rtr, &a), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(state_of(h, qpn), ==, SNIC_QPS_INIT);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MTU, sizeof(cmd.set_mtu));
    cmd.set_mtu.mtu = GUINT32_TO_LE(SNIC_ETH_MAX_MTU);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(modify(h, qpn, rtr, &a), ==, SNIC_ADMIN_OK);
    fake_host_free(h);
}

/*
 * A destroyed QP's number comes back last (FIFO), so a late packet or CQE
 * of the old QP is not matched to a new one at once.
 */
static void test_qpn_reuse_delayed(void)
{
    Objs o;
    FakeHost *h = qp_host(&o, 0);
    struct snic_admin_cmd cmd;
    uint64_t first, qpn;
    unsigned i;

    qp_cmd(&cmd, SNIC_QPT_RC, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &first), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_QP, first), ==,
                     SNIC_ADMIN_OK);
    /* every other number is handed out before this one again */
    for (i = 0; i < SNIC_DEFAULT_MAX_QP - 1; i++) {
        g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(qpn, !=, first);
    }
    g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(qpn, ==, first);
    g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_NO_RESOURCES);
    fake_host_free(h);
}

static void test_rc_lifecycle(void)
{
    Objs o;
    FakeHost *h = qp_host(&o, 0);
    struct snic_admin_cmd cmd;
    struct snic_qp_attr a;
    uint64_t qpn;

    qp_cmd(&cmd, SNIC_QPT_RC, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(state_of(h, qpn), ==, SNIC_QPS_RESET);
    rc_to_rts(h, qpn);
    a = query(h, qpn);
    g_assert_cmpuint(GUINT32_FROM_LE(a.qp_state), ==, SNIC_QPS_RTS);
    g_assert_cmpuint(GUINT32_FROM_LE(a.path_mtu), ==, SNIC_MTU_1024);
    g_assert_cmphex(GUINT32_FROM_LE(a.dest_qp_num), ==, 0x123456);
    g_assert_cmphex(GUINT32_FROM_LE(a.rq_psn), ==, 0xabcdef);
    g_assert_cmphex(GUINT32_FROM_LE(a.sq_psn), ==, 0x111111);
    g_assert_cmpuint(a.timeout, ==, 14);
    g_assert_cmpuint(a.max_rd_atomic, ==, 2);
    g_assert_cmpuint(a.max_dest_rd_atomic, ==, 4);
    g_assert_cmpuint(a.av.dgid[15], ==, 2);
    g_assert_cmpuint(a.av.hop_limit, ==, 64);
    /* RTS -> RTS may change the RNR timer; -> ERR -> RESET forgets all */
    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.min_rnr_timer = 3;
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE |
                            SNIC_QP_ATTR_MIN_RNR_TIMER, &a), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(query(h, qpn).min_rnr_timer, ==, 3);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_ERR);
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE, &a), ==,
                     SNIC_ADMIN_OK);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RESET);
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE, &a), ==,
                     SNIC_ADMIN_OK);
    a = query(h, qpn);
    g_assert_cmpuint(GUINT32_FROM_LE(a.qp_state), ==, SNIC_QPS_RESET);
    g_assert_cmpuint(GUINT32_FROM_LE(a.dest_qp_num), ==, 0);
    rc_to_rts(h, qpn);      /* and it can be connected again */
    fake_host_free(h);
}

static void test_modify_refusals(void)
{
    Objs o;
    FakeHost *h = qp_host(&o, 0);
    struct snic_admin_cmd cmd;
    struct snic_qp_attr a;
    const uint32_t rtr_mask = SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV |
        SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN |
        SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | SNIC_QP_ATTR_MIN_RNR_TIMER;
    uint64_t qpn;

    qp_cmd(&cmd, SNIC_QPT_RC, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_OK);
    memset(&a, 0, sizeof(a));
    /* RESET -> RTR skips INIT */
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    port_gid(h, a.av.sgid);
    a.path_mtu = GUINT32_TO_LE(SNIC_MTU_1024);
    g_assert_cmpuint(modify(h, qpn, rtr_mask, &a), ==, SNIC_ADMIN_BAD_PARAM);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE |
                            SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_PORT |
                            SNIC_QP_ATTR_ACCESS_FLAGS, &a), ==,
                     SNIC_ADMIN_OK);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    /* a required attribute left out */
    g_assert_cmpuint(modify(h, qpn, rtr_mask & ~SNIC_QP_ATTR_AV, &a), ==,
                     SNIC_ADMIN_BAD_PARAM);
    /* values out of range */
    a.path_mtu = GUINT32_TO_LE(6);
    g_assert_cmpuint(modify(h, qpn, rtr_mask, &a), ==, SNIC_ADMIN_BAD_PARAM);
    a.path_mtu = GUINT32_TO_LE(SNIC_MTU_1024);
    a.dest_qp_num = GUINT32_TO_LE(1u << 24);
    g_assert_cmpuint(modify(h, qpn, rtr_mask, &a), ==, SNIC_ADMIN_BAD_PARAM);
    a.dest_qp_num = 0;
    a.max_dest_rd_atomic = SNIC_MAX_RD_ATOMIC + 1;
    g_assert_cmpuint(modify(h, qpn, rtr_mask, &a), ==, SNIC_ADMIN_BAD_PARAM);
    a.max_dest_rd_atomic = 1;
    a.av.flags = 0x80;
    g_assert_cmpuint(modify(h, qpn, rtr_mask, &a), ==, SNIC_ADMIN_BAD_PARAM);
    a.av.flags = 0;
    /* a stale current state */
    a.cur_qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    g_assert_cmpuint(modify(h, qpn, rtr_mask | SNIC_QP_ATTR_CUR_STATE, &a),
                     ==, SNIC_ADMIN_BAD_STATE);
    /* attributes that cannot be read */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(qpn);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(rtr_mask);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(0x1000);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);
    cmd.modify_qp.qpn = GUINT32_TO_LE(77);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    /* nothing changed on the way */
    g_assert_cmpuint(state_of(h, qpn), ==, SNIC_QPS_INIT);
    g_assert_cmpuint(modify(h, qpn, rtr_mask, &a), ==, SNIC_ADMIN_OK);
    /* SQD is a valid transition the device does not do yet */
    fake_host_free(h);
    h = qp_host(&o, 0);
    qp_cmd(&cmd, SNIC_QPT_RC, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_OK);
    rc_to_rts(h, qpn);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_SQD);
    g_assert_cmpuint(modify(h, qpn, SNIC_QP_ATTR_STATE, &a), ==,
                     SNIC_ADMIN_NOT_SUPPORTED);
    g_assert_cmpuint(state_of(h, qpn), ==, SNIC_QPS_RTS);
    fake_host_free(h);
}

static void test_ud_and_gsi(void)
{
    Objs o;
    FakeHost *h = qp_host(&o, 0);
    struct snic_admin_cmd cmd;
    struct snic_qp_attr a;
    uint64_t ud, gsi;

    qp_cmd(&cmd, SNIC_QPT_UD, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &ud), ==, SNIC_ADMIN_OK);
    qp_cmd(&cmd, SNIC_QPT_GSI, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &gsi), ==, SNIC_ADMIN_OK);
    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qkey = GUINT32_TO_LE(0x11111111);
    /* UD needs a port; GSI must not name one */
    g_assert_cmpuint(modify(h, ud, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                            SNIC_QP_ATTR_QKEY, &a), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(modify(h, ud, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                            SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_QKEY, &a), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(modify(h, gsi, SNIC_QP_ATTR_STATE |
                            SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_PORT |
                            SNIC_QP_ATTR_QKEY, &a), ==, SNIC_ADMIN_BAD_PARAM);
    a.qkey = GUINT32_TO_LE(SNIC_GSI_QKEY);
    g_assert_cmpuint(modify(h, gsi, SNIC_QP_ATTR_STATE |
                            SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_QKEY, &a),
                     ==, SNIC_ADMIN_OK);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    g_assert_cmpuint(modify(h, ud, SNIC_QP_ATTR_STATE, &a), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(modify(h, gsi, SNIC_QP_ATTR_STATE, &a), ==,
                     SNIC_ADMIN_OK);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    g_assert_cmpuint(modify(h, ud, SNIC_QP_ATTR_STATE, &a), ==,
                     SNIC_ADMIN_BAD_PARAM);         /* SQ_PSN required */
    g_assert_cmpuint(modify(h, ud, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN,
                            &a), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(modify(h, gsi, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN,
                            &a), ==, SNIC_ADMIN_OK);
    g_assert_cmphex(GUINT32_FROM_LE(query(h, gsi).qkey), ==, SNIC_GSI_QKEY);
    g_assert_cmpuint(state_of(h, ud), ==, SNIC_QPS_RTS);
    fake_host_free(h);
}

static void test_reset_destroys_objects(void)
{
    Objs o;
    FakeHost *h = qp_host(&o, 0);
    struct snic_admin_cmd cmd;
    uint64_t qpn;

    qp_cmd(&cmd, SNIC_QPT_RC, 0, &o);
    g_assert_cmpuint(fake_admin(h, &cmd, &qpn), ==, SNIC_ADMIN_OK);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, 0);        /* disable */
    g_assert_null(snic_qp_get(h->core, qpn));
    fake_enable(h, 4, 4);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DESTROY_QP, qpn), ==,
                     SNIC_ADMIN_BAD_PARAM);
    fake_host_free(h);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/qp/eq-cq-lifecycle", test_eq_cq_lifecycle);
    g_test_add_func("/qp/create-validation", test_create_validation);
    g_test_add_func("/qp/refs-and-limits", test_refs_and_limits);
    g_test_add_func("/qp/rc-lifecycle", test_rc_lifecycle);
    g_test_add_func("/qp/qpn-reuse-delayed", test_qpn_reuse_delayed);
    g_test_add_func("/qp/rtr-path-mtu-fits-port",
                    test_rtr_path_mtu_fits_port);
    g_test_add_func("/qp/modify-refusals", test_modify_refusals);
    g_test_add_func("/qp/ud-and-gsi", test_ud_and_gsi);
    g_test_add_func("/qp/reset-destroys-objects", test_reset_destroys_objects);
    return g_test_run();
}
