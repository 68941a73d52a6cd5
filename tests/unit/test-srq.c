/*
 * Shared receive queues: the admin commands and their checks, doorbells,
 * two QPs taking from one SRQ, RNR while it is empty, the limit event,
 * a QP of an SRQ going to ERR, and the SRQ's PD checking its WQEs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"
#include "engine/wq.h"
#include "engine/xmit.h"
#include "port/wire.h"
#include "objects/cq.h"
#include "objects/qp.h"
#include "objects/srq.h"

#define NOWHERE     (FAKE_MEM_BASE + FAKE_MEM_SIZE)
#define MSG_LEN     3000        /* three packets at path MTU 1024 */
#define SLOT_LEN    0x4000

/* serialised, so that a test can stop between the segments of a message */
static const SnicSimLinkConfig clean = {
    .bandwidth_bps = 10000000000ull,
    .delay_ns = 1000,
};

/*
 * a and a2 on one device, b1 and b2 on the other, both of the latter
 * taking from b's SRQ: a <-> b1, a2 <-> b2. b's own QP (with an RQ) is
 * not connected. Completions of b1 and b2 are polled through b.
 */
typedef struct Quad {
    SnicSim *sim;
    Node a, a2, b, b1, b2;
} Quad;

/*
 * b's device copies at most recv_pool SRQ WQEs in progress (0: default);
 * with a pool, a sends one packet per QP turn so that messages interleave.
 */
static void quad_new_pool(Quad *q, uint32_t limit, uint32_t recv_pool)
{
    SnicCoreConfig cfg = { .recv_pool = recv_pool };
    SnicCoreConfig acfg = { .sched_burst = recv_pool ? 1024 : 0 };

    q->sim = snic_sim_new(3);
    node_init_host(&q->a, fake_host_new_cfg(&acfg), q->sim, 1, SNIC_QPT_RC,
                   SNIC_DB_KERNEL_PAGE);
    node_init_host(&q->b, fake_host_new_cfg(&cfg), q->sim, 2, SNIC_QPT_RC,
                   SNIC_DB_KERNEL_PAGE);
    snic_sim_port_connect(&q->a.h->port, &q->b.h->port, &clean);
    node_create_srq(&q->a, 0);
    node_create_srq(&q->b, limit);
    node_add_qp(&q->a2, &q->a);
    node_add_qp(&q->b1, &q->b);
    node_add_qp(&q->b2, &q->b);
    node_connect(&q->a, &q->b1, SNIC_MTU_1024, 7, 7);
    node_connect(&q->b1, &q->a, SNIC_MTU_1024, 7, 7);
    node_connect(&q->a2, &q->b2, SNIC_MTU_1024, 7, 7);
    node_connect(&q->b2, &q->a2, SNIC_MTU_1024, 7, 7);
}

static void quad_new(Quad *q, uint32_t limit)
{
    quad_new_pool(q, limit, 0);
}

static void quad_free(Quad *q)
{
    node_pair_free(q->sim, &q->a, &q->b);
}

/* Message i of a sender: MSG_LEN bytes at BUF + i * 0x1000, pattern i. */
static void send_msg(Node *n, unsigned i)
{
    node_fill(n, BUF + i * 0x1000, MSG_LEN, i);
    node_post_send(n, i, SNIC_WR_SEND, BUF + i * 0x1000, MSG_LEN, 0, 0, 0,
                   n->lkey);
}

static uint64_t srq_limit(Node *n)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_SRQ, sizeof(cmd.obj));
    cmd.obj.handle = GUINT32_TO_LE(n->srqn);
    return node_admin_ok(n->h, &cmd);
}

static uint16_t modify_srq(Node *n, uint32_t limit)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_SRQ, sizeof(cmd.modify_srq));
    cmd.modify_srq.srqn = GUINT32_TO_LE(n->srqn);
    cmd.modify_srq.limit = GUINT32_TO_LE(limit);
    return fake_admin(n->h, &cmd, NULL);
}

static unsigned count_events(Node *n, uint32_t type, uint64_t data)
{
    struct snic_aeqe e;
    unsigned found = 0;

    while (fake_aeq_poll(n->h, &e)) {
        if (GUINT32_FROM_LE(e.event) == type &&
            GUINT64_FROM_LE(e.data) == data) {
            found++;
        }
    }
    return found;
}

/*
 * Six messages from two connections land in six SRQ WQEs: each QP's
 * messages in its own order, each WQE used once, every slot named once.
 */
static void test_two_qps_share(void)
{
    Quad q;
    struct snic_cqe c;
    unsigned i, per_qp[2] = { 0 }, slots = 0;

    quad_new(&q, 0);
    for (i = 0; i < 6; i++) {
        node_post_srq_recv(&q.b, 100 + i, BUF + i * SLOT_LEN, SLOT_LEN,
                           q.b.lkey);
    }
    for (i = 0; i < 3; i++) {
        send_msg(&q.a, i);
        send_msg(&q.a2, 10 + i);
    }
    snic_sim_run(q.sim, 1000000);
    for (i = 0; i < 6; i++) {
        uint64_t slot;
        unsigned qp, seed;
        const uint8_t *got;
        g_autofree uint8_t *want = NULL;

        g_assert_true(node_poll_cq(&q.b, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV);
        g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, MSG_LEN);
        slot = GUINT64_FROM_LE(c.wr_id) - 100;
        g_assert_cmpuint(slot, <, 6);
        g_assert_cmpuint(GUINT16_FROM_LE(c.wqe_index), ==, slot);
        slots |= 1u << slot;
        qp = GUINT32_FROM_LE(c.qpn) == q.b2.qpn;
        if (!qp) {
            g_assert_cmpuint(GUINT32_FROM_LE(c.qpn), ==, q.b1.qpn);
        }
        /* the QP's next message in its sender's order */
        seed = (qp ? 10 : 0) + per_qp[qp]++;
        want = g_malloc(MSG_LEN);
        node_fill(&q.a, BUF + 0x300000, MSG_LEN, seed);
        fake_read(q.a.h, BUF + 0x300000, want, MSG_LEN);
        got = fake_ptr(q.b.h, BUF + slot * SLOT_LEN, MSG_LEN);
        g_assert_cmpmem(got, MSG_LEN, want, MSG_LEN);
    }
    g_assert_false(node_poll_cq(&q.b, &c));
    g_assert_cmpuint(slots, ==, 0x3f);
    g_assert_cmpuint(per_qp[0], ==, 3);
    g_assert_cmpuint(per_qp[1], ==, 3);
    for (i = 0; i < 6; i++) {
        g_assert_true(node_poll_cq(&q.a, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    quad_free(&q);
}

/* With the SRQ empty the sender waits (RNR) and delivers once posted. */
static void test_rnr_until_posted(void)
{
    Quad q;
    struct snic_cqe c;

    quad_new(&q, 0);
    send_msg(&q.a, 1);
    snic_sim_run_until(q.sim, 200000);
    g_assert_false(node_poll_cq(&q.b, &c));
    g_assert_false(node_poll_cq(&q.a, &c));
    g_assert_cmpuint(q.a.h->events[SNIC_TRACE_RNR_WAIT], >=, 1);
    node_post_srq_recv(&q.b, 7, BUF, SLOT_LEN, q.b.lkey);
    snic_sim_run(q.sim, 1000000);
    g_assert_true(node_poll_cq(&q.b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 7);
    g_assert_true(node_poll_cq(&q.a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    quad_free(&q);
}

/*
 * The armed limit fires once when fewer WQEs than it remain, then is
 * disarmed; arming it below the current level fires at once.
 */
static void test_limit_event(void)
{
    Quad q;
    struct snic_cqe c;
    unsigned i;

    quad_new(&q, 0);
    for (i = 0; i < 4; i++) {
        node_post_srq_recv(&q.b, i, BUF + i * SLOT_LEN, SLOT_LEN, q.b.lkey);
    }
    g_assert_cmpuint(modify_srq(&q.b, 3), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(srq_limit(&q.b), ==, 3);
    g_assert_cmpuint(modify_srq(&q.b, (1u << SRQ_LOG2) + 1), ==,
                     SNIC_ADMIN_BAD_PARAM);
    send_msg(&q.a, 0);                  /* 3 left: not below 3 */
    snic_sim_run(q.sim, 1000000);
    g_assert_cmpuint(count_events(&q.b, SNIC_EVENT_SRQ_LIMIT, q.b.srqn), ==,
                     0);
    send_msg(&q.a, 1);                  /* 2 left */
    send_msg(&q.a, 2);                  /* 1 left: disarmed, no second */
    snic_sim_run(q.sim, 1000000);
    g_assert_cmpuint(count_events(&q.b, SNIC_EVENT_SRQ_LIMIT, q.b.srqn), ==,
                     1);
    g_assert_cmpuint(srq_limit(&q.b), ==, 0);
    g_assert_cmpuint(modify_srq(&q.b, 5), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(count_events(&q.b, SNIC_EVENT_SRQ_LIMIT, q.b.srqn), ==,
                     1);
    for (i = 0; i < 3; i++) {
        g_assert_true(node_poll_cq(&q.b, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    quad_free(&q);
}

/*
 * A QP that goes to ERR in the middle of a message flushes only the WQE
 * it holds, announces that it takes no more (QP_LAST_WQE), and leaves
 * the SRQ's other WQEs to the QPs still running.
 */
static void test_error_flushes_held_only(void)
{
    Quad q;
    struct snic_cqe c;
    struct snic_qp_attr attr = { .qp_state = GUINT32_TO_LE(SNIC_QPS_ERR) };
    SnicQp *b1;
    unsigned i;

    quad_new(&q, 0);
    b1 = &q.b.h->core->qps[q.b1.qpn];
    for (i = 0; i < 3; i++) {
        node_post_srq_recv(&q.b, 50 + i, BUF + i * SLOT_LEN, SLOT_LEN,
                           q.b.lkey);
    }
    send_msg(&q.a, 0);
    while (!(b1->resp.recv_held && b1->resp.recv_off) &&
           snic_sim_step(q.sim)) {
        continue;
    }
    g_assert_true(b1->resp.recv_held);
    node_modify(&q.b1, SNIC_QP_ATTR_STATE, &attr);
    g_assert_true(node_poll_cq(&q.b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 50);
    g_assert_cmpuint(GUINT32_FROM_LE(c.qpn), ==, q.b1.qpn);
    g_assert_false(node_poll_cq(&q.b, &c));
    g_assert_cmpuint(count_events(&q.b, SNIC_EVENT_QP_LAST_WQE, q.b1.qpn),
                     ==, 1);
    /* work posted in ERR is flushed; that announces nothing new */
    node_post_send(&q.b1, 9, SNIC_WR_SEND, BUF, 10, 0, 0, 0, q.b.lkey);
    snic_sim_run(q.sim, 1000000);
    g_assert_true(node_poll_cq(&q.b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 9);
    g_assert_cmpuint(count_events(&q.b, SNIC_EVENT_QP_LAST_WQE, q.b1.qpn),
                     ==, 0);
    /* the other QP still takes the next WQEs */
    send_msg(&q.a2, 1);
    send_msg(&q.a2, 2);
    snic_sim_run(q.sim, 1000000);
    for (i = 0; i < 2; i++) {
        g_assert_true(node_poll_cq(&q.b, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_cmpuint(GUINT32_FROM_LE(c.qpn), ==, q.b2.qpn);
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 51 + i);
    }
    quad_free(&q);
}

/* MODIFY_QP of n's QP to ERR, posted: the admin doorbell only */
static void post_to_err(Node *n)
{
    const uint64_t at = FAKE_MEM_BASE + 0x9000;
    struct snic_qp_attr a = { .qp_state = GUINT32_TO_LE(SNIC_QPS_ERR) };
    struct snic_admin_cmd cmd;

    fake_write(n->h, at, &a, sizeof(a));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(n->qpn);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(SNIC_QP_ATTR_STATE);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(at);
    fake_admin_post(n->h, &cmd);
}

/*
 * The flush of many QPs is bounded per call into the device, but the
 * receive a QP holds from its SRQ is flushed as it enters ERR, before
 * its QP_LAST_WQE event, even when QPs before it in the same engine run
 * used up the bound: a consumer that destroys the QP on the event has
 * every completion of it.
 */
static void test_error_held_before_last_wqe(void)
{
    struct snic_qp_attr attr;
    struct snic_cqe c;
    Quad q;
    SnicQp *b1;
    unsigned i, flushed = 0;
    bool held_flushed = false;

    quad_new(&q, 0);
    b1 = &q.b.h->core->qps[q.b1.qpn];
    node_post_srq_recv(&q.b, 50, BUF, SLOT_LEN, q.b.lkey);
    send_msg(&q.a, 0);
    while (!(b1->resp.recv_held && b1->resp.recv_off) &&
           snic_sim_step(q.sim)) {
        continue;
    }
    g_assert_true(b1->resp.recv_held);
    /* b's own QP, with a full RQ of SNIC_WQES_PER_CALL receives, in INIT */
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    attr.port_num = 1;
    node_modify(&q.b, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &attr);
    g_assert_cmpuint(1u << RQ_LOG2, ==, SNIC_WQES_PER_CALL);
    for (i = 0; i < SNIC_WQES_PER_CALL; i++) {
        node_post_recv(&q.b, 1000 + i, BUF, 64);
    }
    /* both to ERR in one engine run: b's QP first */
    post_to_err(&q.b);
    post_to_err(&q.b1);
    snic_core_run(q.b.h->core, 64);
    g_assert_cmpuint(b1->state, ==, SNIC_QPS_ERR);
    g_assert_cmpuint(count_events(&q.b, SNIC_EVENT_QP_LAST_WQE, q.b1.qpn),
                     ==, 1);
    while (node_poll_cq(&q.b, &c)) {
        g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
        if (GUINT32_FROM_LE(c.qpn) == q.b1.qpn) {
            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 50);
            held_flushed = true;
        } else {
            flushed++;
        }
    }
    g_assert_true(held_flushed);
    g_assert_cmpuint(flushed, ==, SNIC_WQES_PER_CALL);
    quad_free(&q);
}

/*
 * The SRQ's WQEs are checked against the SRQ's PD, not the QP's: a key
 * of the QP's PD fails there (LOC_PROT_ERR, the sender sees REM_OP_ERR).
 */
static void test_srq_pd_checks_wqes(void)
{
    SnicSim *sim = snic_sim_new(5);
    struct snic_cqe c;
    struct snic_admin_cmd cmd;
    Node a, b, b1;
    uint64_t qp_pdn;
    uint32_t lkey2;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &clean);
    /* b's SRQ and an MR in a second PD; b1 in the first */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    qp_pdn = b.pdn;
    b.pdn = node_admin_ok(b.h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(BUF);
    cmd.reg_mr.length = GUINT64_TO_LE(BUF_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(PBL_MR);
    cmd.reg_mr.npages = GUINT32_TO_LE(BUF_LEN / 4096);
    cmd.reg_mr.pdn = GUINT32_TO_LE(b.pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE);
    cmd.reg_mr.page_shift = 12;
    cmd.reg_mr.key = 0x44;
    lkey2 = node_admin_ok(b.h, &cmd);
    node_create_srq(&b, 0);
    b.pdn = qp_pdn;
    node_add_qp(&b1, &b);
    node_connect(&a, &b1, SNIC_MTU_1024, 7, 7);
    node_connect(&b1, &a, SNIC_MTU_1024, 7, 7);

    node_post_srq_recv(&b, 1, BUF, SLOT_LEN, lkey2);
    node_post_srq_recv(&b, 2, BUF + SLOT_LEN, SLOT_LEN, b.lkey);
    send_msg(&a, 0);
    send_msg(&a, 1);
    snic_sim_run(sim, 1000000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_OP_ERR);
    node_pair_free(sim, &a, &b);
}

static uint16_t create_srq(Node *n, uint32_t pdn, uint16_t ctx, uint8_t log2,
                           uint32_t limit, uint64_t pbl, uint64_t *srqn)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SRQ, sizeof(cmd.create_srq));
    cmd.create_srq.pbl_addr = GUINT64_TO_LE(pbl);
    cmd.create_srq.npages = GUINT32_TO_LE(4);
    cmd.create_srq.pdn = GUINT32_TO_LE(pdn);
    cmd.create_srq.limit = GUINT32_TO_LE(limit);
    cmd.create_srq.log2_depth = log2;
    cmd.create_srq.ctx = GUINT16_TO_LE(ctx);
    return fake_admin(n->h, &cmd, srqn);
}

static uint16_t create_qp(Node *n, uint8_t type, uint64_t srqn, bool rq)
{
    struct snic_admin_cmd cmd;
    uint64_t qpn;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(PBL_SQ2);
    cmd.create_qp.sq_npages = GUINT32_TO_LE(16);
    if (rq) {
        cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(PBL_RQ);
        cmd.create_qp.rq_npages = GUINT32_TO_LE(4);
        cmd.create_qp.rq_log2_depth = RQ_LOG2;
    }
    cmd.create_qp.pdn = GUINT32_TO_LE(n->pdn);
    cmd.create_qp.send_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.recv_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.type = type;
    cmd.create_qp.sq_log2_depth = SQ_LOG2;
    cmd.create_qp.ctx = GUINT16_TO_LE(n->ctx);
    cmd.create_qp.srqn = GUINT32_TO_LE(srqn);
    return fake_admin(n->h, &cmd, &qpn);
}

/* What CREATE_SRQ, CREATE_QP with an SRQ, and DESTROY_SRQ refuse. */
static void test_admin_checks(void)
{
    SnicSim *sim = snic_sim_new(1);
    struct snic_admin_cmd cmd;
    Node n, q;
    uint64_t srqn;

    node_init(&n, sim, 1);
    node_pbl(n.h, PBL_SRQ, SRQ_RING, 4);
    node_pbl(n.h, PBL_SQ2, SQ2_RING, 16);
    g_assert_cmpuint(create_srq(&n, 999, 0, SRQ_LOG2, 0, PBL_SRQ, &srqn), ==,
                     SNIC_ADMIN_BAD_PARAM);                 /* no such PD */
    g_assert_cmpuint(create_srq(&n, n.pdn, 1, SRQ_LOG2, 0, PBL_SRQ, &srqn),
                     ==, SNIC_ADMIN_BAD_PARAM);     /* another context's PD */
    g_assert_cmpuint(create_srq(&n, n.pdn, 0, SNIC_MIN_QUEUE_LOG2 - 1, 0,
                                PBL_SRQ, &srqn), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_srq(&n, n.pdn, 0, SNIC_MAX_QP_WR_LOG2 + 1, 0,
                                PBL_SRQ, &srqn), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_srq(&n, n.pdn, 0, SRQ_LOG2,
                                (1u << SRQ_LOG2) + 1, PBL_SRQ, &srqn), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_srq(&n, n.pdn, 0, SRQ_LOG2, 0, NOWHERE, &srqn),
                     ==, SNIC_ADMIN_BAD_ADDRESS);
    node_create_srq(&n, 0);

    /* an SRQ QP has no RQ; GSI takes none; the SRQ must exist */
    g_assert_cmpuint(create_qp(&n, SNIC_QPT_RC, n.srqn, true), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(&n, SNIC_QPT_GSI, n.srqn, false), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(&n, SNIC_QPT_RC, n.srqn + 1, false), ==,
                     SNIC_ADMIN_BAD_PARAM);
    /* a context's QP takes from its own SRQs only */
    q = n;
    q.ctx = 1;
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    cmd.alloc_pd.ctx = GUINT16_TO_LE(1);
    q.pdn = node_admin_ok(n.h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(PBL_CQ);
    cmd.create_cq.npages = GUINT32_TO_LE(8);
    cmd.create_cq.log2_depth = CQ_LOG2;
    cmd.create_cq.eqn = GUINT32_TO_LE(n.eqn);
    cmd.create_cq.ctx = GUINT16_TO_LE(1);
    q.cqn = node_admin_ok(n.h, &cmd);
    g_assert_cmpuint(create_qp(&q, SNIC_QPT_RC, n.srqn, false), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(&q, SNIC_QPT_RC, 0, true), ==, SNIC_ADMIN_OK);

    node_add_qp(&q, &n);
    g_assert_cmpuint(fake_obj_cmd(n.h, SNIC_ADMIN_DESTROY_SRQ, n.srqn), ==,
                     SNIC_ADMIN_BAD_STATE);     /* a QP takes from it */
    g_assert_cmpuint(fake_obj_cmd(n.h, SNIC_ADMIN_DESTROY_QP, q.qpn), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(n.h, SNIC_ADMIN_DEALLOC_PD, n.pdn), ==,
                     SNIC_ADMIN_BAD_STATE);     /* the SRQ is in it */
    g_assert_cmpuint(fake_obj_cmd(n.h, SNIC_ADMIN_DESTROY_SRQ, n.srqn), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(n.h, SNIC_ADMIN_DESTROY_SRQ, n.srqn), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(fake_obj_cmd(n.h, SNIC_ADMIN_QUERY_SRQ, n.srqn), ==,
                     SNIC_ADMIN_BAD_PARAM);
    fake_host_free(n.h);
    snic_sim_free(sim);
}

/*
 * SRQ doorbells come from the owner's page and stay within the ring; a
 * slot is free again once a QP took its WQE, before it completes. The RQ
 * doorbell of an SRQ QP is refused.
 */
static void test_doorbells(void)
{
    Quad q;
    SnicSrq *srq;
    struct snic_cqe c;
    unsigned i;

    quad_new(&q, 0);
    srq = snic_srq_get(q.b.h->core, q.b.srqn);
    fake_doorbell(q.b.h, 1, SNIC_DB_SRQ, q.b.srqn, 1);
    g_assert_cmpuint(fake_guest_errors_matching(q.b.h, "is not owned"), ==, 1);
    g_assert_cmpuint(srq->tail, ==, 0);
    fake_doorbell(q.b.h, 0, SNIC_DB_SRQ, q.b.srqn, (1u << SRQ_LOG2) + 1);
    g_assert_cmpuint(fake_guest_errors_matching(q.b.h, "outside the window"),
                     ==, 1);
    g_assert_cmpuint(srq->tail, ==, 0);
    fake_doorbell(q.b.h, 0, SNIC_DB_RQ, q.b1.qpn, 1);
    g_assert_cmpuint(fake_guest_errors_matching(q.b.h, "has no RQ"), ==, 1);

    /* fill the ring; two messages take two WQEs; two more slots free */
    for (i = 0; i < 1u << SRQ_LOG2; i++) {
        node_post_srq_recv(&q.b, i, BUF + (i % 8) * SLOT_LEN, SLOT_LEN,
                           q.b.lkey);
    }
    send_msg(&q.a, 0);
    send_msg(&q.a2, 1);
    snic_sim_run(q.sim, 1000000);
    fake_doorbell(q.b.h, 0, SNIC_DB_SRQ, q.b.srqn, q.b.srq_pi + 3);
    g_assert_cmpuint(fake_guest_errors_matching(q.b.h, "outside the window"),
                     ==, 2);
    fake_doorbell(q.b.h, 0, SNIC_DB_SRQ, q.b.srqn, q.b.srq_pi + 2);
    g_assert_cmpuint(srq->tail, ==, q.b.srq_pi + 2);
    for (i = 0; i < 2; i++) {
        g_assert_true(node_poll_cq(&q.b, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    quad_free(&q);
}

/*
 * With the device's pool of SRQ WQEs in progress used up, a second
 * message meets RNR until the first completes; both then arrive.
 */
static void test_pool_exhausted(void)
{
    Quad q;
    struct snic_cqe c;
    unsigned i;

    quad_new_pool(&q, 0, 1);
    for (i = 0; i < 4; i++) {
        node_post_srq_recv(&q.b, 60 + i, BUF + i * SLOT_LEN, SLOT_LEN,
                           q.b.lkey);
    }
    send_msg(&q.a, 0);
    send_msg(&q.a2, 1);
    snic_sim_run(q.sim, 1000000);
    for (i = 0; i < 2; i++) {
        g_assert_true(node_poll_cq(&q.b, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_true(node_poll_cq(&q.a, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    g_assert_cmpuint(q.a.h->events[SNIC_TRACE_RNR_WAIT], >=, 1);
    g_assert_cmpuint(q.b.h->core->recv_free_n, ==, 1);
    quad_free(&q);
}

/*
 * A lone responder b1 (SRQ of b) and its peer a, packets written by hand:
 * 'timeout' is b1's QP timeout (0: the device's resp-hold-ms, hold_ms).
 */
typedef struct Held {
    Node a, b, b1;
    SnicQp *qb;
    uint32_t psn;               /* the message's first PSN */
    bool xport;                 /* a selective program's: extension headers */
} Held;

static void held_new_program(Held *h, uint8_t timeout, uint32_t hold_ms,
                             uint8_t program)
{
    SnicCoreConfig cfg = { .resp_hold_ms = hold_ms };
    struct snic_qp_attr at;

    node_init(&h->a, NULL, 1);
    node_init_host(&h->b, fake_host_new_cfg(&cfg), NULL, 2, SNIC_QPT_RC,
                   SNIC_DB_KERNEL_PAGE);
    node_create_srq(&h->b, 0);
    node_add_qp(&h->b1, &h->b);
    h->xport = program != SNIC_TRANSPORT_GBN;
    g_assert_cmpuint(node_set_transport(&h->a, program, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&h->b1, program, 0), ==,
                     SNIC_ADMIN_OK);
    node_connect(&h->a, &h->b1, SNIC_MTU_1024, 7, 7);
    node_connect_rtr(&h->b1, &h->a, SNIC_MTU_1024);
    memset(&at, 0, sizeof(at));
    at.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    at.timeout = timeout;
    at.retry_cnt = 3;
    node_modify(&h->b1, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN |
                SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
                SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_MAX_QP_RD_ATOMIC, &at);
    h->qb = &h->b.h->core->qps[h->b1.qpn];
    h->psn = h->qb->resp.epsn;
    node_post_srq_recv(&h->b, 0x77, BUF, SLOT_LEN, h->b.lkey);
}

static void held_new(Held *h, uint8_t timeout, uint32_t hold_ms)
{
    held_new_program(h, timeout, hold_ms, SNIC_TRANSPORT_GBN);
}

static void held_free(Held *h)
{
    fake_host_free(h->a.h);
    fake_host_free(h->b.h);
}

/* a's SEND packet 'seg' (of First, Middle, Last) to b1 */
static void held_send(Held *h, uint8_t opcode, uint32_t seg)
{
    static const uint8_t payload[1024];
    uint8_t frame[2048];
    SnicPkt p;
    size_t n;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(h->a.h->core, &h->a.h->core->qps[h->a.qpn], &p);
    p.opcode = opcode;
    p.psn = (h->psn + seg) & SNIC_PSN_MASK;
    p.payload = payload;
    p.payload_len = sizeof(payload);
    if (h->xport) {
        /* the message's number and offset, as a selective requester's */
        p.xport = true;
        p.xeth.flags = SNIC_XETH_F_MSG;
        p.xeth.offset = seg * sizeof(payload);
    }
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&h->b1, frame, n);
    fake_run(h->b.h);
}

/* a's 1 KiB WRITE Only at PSN 'seg' after the message's first, to BUF */
static void held_write(Held *h, uint32_t seg)
{
    static const uint8_t payload[1024];
    uint8_t frame[2048];
    SnicPkt p;
    size_t n;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(h->a.h->core, &h->a.h->core->qps[h->a.qpn], &p);
    p.opcode = SNIC_OP_RC_WRITE_ONLY;
    p.psn = (h->psn + seg) & SNIC_PSN_MASK;
    p.reth.va = BUF + SLOT_LEN;
    p.reth.rkey = h->b.lkey;
    p.reth.len = sizeof(payload);
    p.payload = payload;
    p.payload_len = sizeof(payload);
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_PLACE;
    p.xeth.rkey = p.reth.rkey;
    p.xeth.va = p.reth.va;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&h->b1, frame, n);
    fake_run(h->b.h);
}

/*
 * A sender that stopped after SEND First (its next SGE's key was bad, or
 * it died) no longer holds b's SRQ pool entry for good: after as long as
 * b1's requester would retry, 4.096 us * 2^timeout * (retry_cnt + 1), the
 * receive completes with REM_ABORT_ERR and the entry is free again. Its
 * late Middle draws a sequence NAK for the message's first PSN (start
 * again), never a fatal NAK, and the message sent again from its start
 * lands in the next receive. With timeout 0, resp-hold-ms says how long.
 */
static void test_dead_sender_released(void)
{
    static const struct {
        uint8_t timeout;
        uint32_t hold_ms;
        uint64_t hold_ns;
    } cases[] = {
        { 8, 0, (4096ull << 8) * 4 },           /* retry_cnt 3 */
        { 0, 5, 5000000 },                      /* resp-hold-ms=5 */
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        Held h;
        struct snic_cqe c;
        uint32_t pool;

        held_new(&h, cases[i].timeout, cases[i].hold_ms);
        pool = h.b.h->core->recv_free_n;
        held_send(&h, SNIC_OP_RC_SEND_FIRST, 0);
        g_assert_true(h.qb->resp.in_send);
        g_assert_cmpuint(h.b.h->core->recv_free_n, ==, pool - 1);
        fake_advance(h.b.h, cases[i].hold_ns - 1000);
        g_assert_false(node_poll_cq(&h.b, &c));     /* not yet */
        fake_advance(h.b.h, 2000);
        g_assert_true(node_poll_cq(&h.b, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_REM_ABORT_ERR);
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0x77);
        g_assert_cmpuint(GUINT32_FROM_LE(c.qpn), ==, h.b1.qpn);
        g_assert_cmpuint(h.b.h->core->recv_free_n, ==, pool);
        g_assert_cmpuint(h.b.h->events[SNIC_TRACE_RESP_HOLD_EXPIRED], ==, 1);
        g_assert_cmpuint(h.qb->state, ==, SNIC_QPS_RTS);

        /* its late Middle: start again from the first PSN */
        held_send(&h, SNIC_OP_RC_SEND_MIDDLE, 1);
        g_assert_false(h.qb->resp.fatal);
        g_assert_cmpuint(h.b.h->events[SNIC_TRACE_NAK_SENT], ==, 1);
        g_assert_cmpuint(h.b.h->event_args[SNIC_TRACE_NAK_SENT][1], ==,
                         h.psn);
        g_assert_cmpuint(h.b.h->event_args[SNIC_TRACE_NAK_SENT][2], ==,
                         SNIC_AETH_NAK_SEQ);
        /* ... as its requester does, into the next receive */
        node_post_srq_recv(&h.b, 0x78, BUF + SLOT_LEN, SLOT_LEN, h.b.lkey);
        held_send(&h, SNIC_OP_RC_SEND_FIRST, 0);
        held_send(&h, SNIC_OP_RC_SEND_LAST, 1);
        g_assert_true(node_poll_cq(&h.b, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0x78);
        g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 2048);
        g_assert_cmpuint(h.b.h->core->recv_free_n, ==, pool);
        held_free(&h);
    }
}

/*
 * A selective program (IRN) runs an SRQ's SENDs in order as go-back-N
 * does, and lets go of a dead sender's receive alike. A WRITE placed at
 * the far end of the placement map before the hold ends would read, once
 * ePSN went back to the message's First, as that First placed: a packet
 * ahead then swept ePSN past it. It goes instead, and the late Middle
 * draws the program's answer to a gap (a duplicate ACK), never a fatal
 * NAK; the message sent again lands.
 */
static void test_dead_sender_released_selective(void)
{
    const uint64_t hold = (4096ull << 8) * 4;
    struct snic_cqe c;
    uint32_t pool;
    unsigned frames;
    GByteArray *f;
    SnicPkt p;
    Held h;

    held_new_program(&h, 8, 0, SNIC_TRANSPORT_IRN);
    g_assert_nonnull(snic_prog_ooo(h.qb));
    pool = h.b.h->core->recv_free_n;
    held_send(&h, SNIC_OP_RC_SEND_FIRST, 0);
    g_assert_true(h.qb->resp.in_send);
    g_assert_cmpuint(h.b.h->core->recv_free_n, ==, pool - 1);
    held_write(&h, SNIC_TX_WINDOW);         /* the map's last PSN */
    g_assert_true(snic_psnmap_get(snic_prog_ooo(h.qb)->placed,
                                  h.psn + SNIC_TX_WINDOW));
    fake_advance(h.b.h, hold - 1000);
    g_assert_false(node_poll_cq(&h.b, &c));
    fake_advance(h.b.h, 2000);
    g_assert_true(node_poll_cq(&h.b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_ABORT_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0x77);
    g_assert_cmpuint(h.b.h->core->recv_free_n, ==, pool);
    g_assert_cmpuint(h.qb->resp.epsn, ==, h.psn);
    g_assert_false(snic_psnmap_get(snic_prog_ooo(h.qb)->placed, h.psn));

    /* a packet ahead: ePSN stays at the message's First */
    held_write(&h, 2);
    g_assert_cmpuint(h.qb->resp.epsn, ==, h.psn);
    /*
     * its late Middle: IRN's answer to a gap, a duplicate ACK of the PSN
     * before the First (TCP's policy), no NAK and nothing fatal
     */
    frames = h.b.h->frames->len;
    held_send(&h, SNIC_OP_RC_SEND_MIDDLE, 1);
    g_assert_false(h.qb->resp.fatal);
    g_assert_cmpuint(h.b.h->frames->len, ==, frames + 1);
    f = g_ptr_array_index(h.b.h->frames, frames);
    g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==, SNIC_PARSE_OK);
    g_assert_cmpuint(p.opcode, ==, SNIC_OP_RC_ACK);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_ACK);
    g_assert_cmpuint(p.psn, ==, (h.psn - 1) & SNIC_PSN_MASK);
    g_assert_cmpuint(h.b.h->events[SNIC_TRACE_NAK_SENT], ==, 0);
    /* sent again from its First: into the next receive */
    node_post_srq_recv(&h.b, 0x78, BUF + 2 * SLOT_LEN, SLOT_LEN, h.b.lkey);
    held_send(&h, SNIC_OP_RC_SEND_FIRST, 0);
    held_send(&h, SNIC_OP_RC_SEND_LAST, 1);
    g_assert_true(node_poll_cq(&h.b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0x78);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 2048);
    g_assert_cmpuint(h.qb->resp.epsn, ==, (h.psn + 3) & SNIC_PSN_MASK);
    g_assert_cmpuint(h.qb->state, ==, SNIC_QPS_RTS);
    held_free(&h);
}

/*
 * A sender quiet for less than the hold (a PFC pause, a slow host) keeps
 * its message: each packet gives it the whole hold again.
 */
static void test_paused_sender_kept(void)
{
    const uint64_t hold = (4096ull << 8) * 4;
    Held h;
    struct snic_cqe c;

    held_new(&h, 8, 0);
    held_send(&h, SNIC_OP_RC_SEND_FIRST, 0);
    fake_advance(h.b.h, hold * 3 / 4);
    held_send(&h, SNIC_OP_RC_SEND_MIDDLE, 1);
    fake_advance(h.b.h, hold * 3 / 4);             /* 1.5 holds in all */
    g_assert_false(node_poll_cq(&h.b, &c));
    held_send(&h, SNIC_OP_RC_SEND_LAST, 2);
    g_assert_true(node_poll_cq(&h.b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 3072);
    g_assert_cmpuint(h.b.h->events[SNIC_TRACE_RESP_HOLD_EXPIRED], ==, 0);
    /* nothing held: no deadline left behind */
    fake_advance(h.b.h, 2 * hold);
    g_assert_false(node_poll_cq(&h.b, &c));
    held_free(&h);
}

/* A SEND packet of 1 KiB from a's QP to to's QP at to's ePSN */
static void send_to(Node *a, Node *to, uint8_t opcode)
{
    static const uint8_t payload[1024];
    uint8_t frame[2048];
    SnicPkt p;
    size_t n;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(a->h->core, &a->h->core->qps[a->qpn], &p);
    p.dqpn = to->qpn;
    p.opcode = opcode;
    p.psn = to->h->core->qps[to->qpn].resp.epsn;
    p.payload = payload;
    p.payload_len = sizeof(payload);
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(to, frame, n);
    fake_run(to->h);
}

/*
 * The SRQ receive pool is every context's: one context holds a quarter of
 * it at most. Context 1 holds its whole share (2 of 8) with SENDs that
 * stopped mid-message; its next SEND draws an RNR NAK though six entries
 * are free, and context 2's SRQ QP still receives.
 */
static void test_pool_share_per_context(void)
{
    SnicCoreConfig cfg = { .recv_pool = 8 };
    Node a, b, b1, b2, b3, c2;
    struct snic_cqe c;
    SnicCore *core;
    unsigned i;

    node_init(&a, NULL, 1);
    node_init_host(&b, fake_host_new_cfg(&cfg), NULL, 2, SNIC_QPT_RC, 1);
    core = b.h->core;
    node_create_srq(&b, 0);
    node_add_qp(&b1, &b);
    node_add_qp(&b2, &b);
    node_add_qp(&b3, &b);
    node_add_ctx(&c2, &b, 2);
    node_connect(&a, &b1, SNIC_MTU_1024, 7, 7);
    node_connect(&b1, &a, SNIC_MTU_1024, 7, 7);
    node_connect(&b2, &a, SNIC_MTU_1024, 7, 7);
    node_connect(&b3, &a, SNIC_MTU_1024, 7, 7);
    node_connect(&c2, &a, SNIC_MTU_1024, 7, 7);
    for (i = 0; i < 4; i++) {
        node_post_srq_recv(&b, 80 + i, BUF + i * SLOT_LEN, SLOT_LEN, b.lkey);
    }
    node_post_srq_recv(&c2, 90, BUF + 4 * SLOT_LEN, SLOT_LEN, c2.lkey);

    send_to(&a, &b1, SNIC_OP_RC_SEND_FIRST);
    send_to(&a, &b2, SNIC_OP_RC_SEND_FIRST);
    g_assert_true(core->qps[b1.qpn].resp.recv_held);
    g_assert_true(core->qps[b2.qpn].resp.recv_held);
    g_assert_cmpuint(core->recv_free_n, ==, 6);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_NAK_SENT], ==, 0);
    /* context 1's share is held: RNR, the pool's other entries untouched */
    send_to(&a, &b3, SNIC_OP_RC_SEND_FIRST);
    g_assert_false(core->qps[b3.qpn].resp.recv_held);
    g_assert_cmpuint(core->recv_free_n, ==, 6);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_NAK_SENT], ==, 1);
    g_assert_cmpuint(SNIC_AETH_KIND(b.h->event_args[SNIC_TRACE_NAK_SENT][2]),
                     ==, SNIC_AETH_KIND_RNR);
    /* context 2 receives */
    send_to(&a, &c2, SNIC_OP_RC_SEND_ONLY);
    g_assert_true(node_poll_cq(&c2, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 90);
    g_assert_cmpuint(GUINT32_FROM_LE(c.qpn), ==, c2.qpn);
    /* one of context 1's messages ends: its next SEND gets the entry */
    send_to(&a, &b1, SNIC_OP_RC_SEND_LAST);
    send_to(&a, &b3, SNIC_OP_RC_SEND_FIRST);
    g_assert_true(core->qps[b3.qpn].resp.recv_held);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/srq/two-qps-share", test_two_qps_share);
    g_test_add_func("/srq/rnr-until-posted", test_rnr_until_posted);
    g_test_add_func("/srq/limit-event", test_limit_event);
    g_test_add_func("/srq/error-flushes-held-only",
                    test_error_flushes_held_only);
    g_test_add_func("/srq/error-held-before-last-wqe",
                    test_error_held_before_last_wqe);
    g_test_add_func("/srq/pd-of-srq-checks-wqes", test_srq_pd_checks_wqes);
    g_test_add_func("/srq/admin-checks", test_admin_checks);
    g_test_add_func("/srq/doorbells", test_doorbells);
    g_test_add_func("/srq/receive-pool-exhausted", test_pool_exhausted);
    g_test_add_func("/srq/dead-sender-released", test_dead_sender_released);
    g_test_add_func("/srq/dead-sender-released/selective",
                    test_dead_sender_released_selective);
    g_test_add_func("/srq/paused-sender-kept", test_paused_sender_kept);
    g_test_add_func("/srq/pool-share-per-context",
                    test_pool_share_per_context);
    return g_test_run();
}
