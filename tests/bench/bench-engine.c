/*
 * Core engine benchmark: two device cores on the simulated wire (no
 * serialisation or propagation delay, DMA = memcpy into plain memory),
 * driven through doorbells and rings like a driver.
 *
 *   64 KiB RDMA WRITEs: Gbit/s, and the ratio to a plain memcpy of the
 *   same bytes measured in the same run (the floor any design pays);
 *   64-byte SENDs: messages per second.
 *
 * Wall-clock figures vary with the machine and its load; the memcpy ratio
 * is the comparable number. Build without sanitizers (scripts/bench-engine.sh).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "core_int.h"
#include "fake-host.h"
#include "sim.h"

#define PBL_EQ      (FAKE_MEM_BASE + 0x20000)
#define PBL_CQ      (FAKE_MEM_BASE + 0x20100)
#define PBL_SQ      (FAKE_MEM_BASE + 0x20200)
#define PBL_RQ      (FAKE_MEM_BASE + 0x20300)
#define PBL_MR      (FAKE_MEM_BASE + 0x22000)
#define RINGS       (FAKE_MEM_BASE + 0x30000)
#define BUF         (FAKE_MEM_BASE + 0x100000)
#define BUF_LEN     (4u << 20)
#define CQ_LOG2     10
#define SQ_LOG2     8
#define RQ_LOG2     8
#define MSG         65536u

typedef struct Node {
    FakeHost *h;
    uint64_t qpn, cqn;
    uint32_t lkey, sq_pi, rq_pi, cq_ci;
    uint8_t ip;
} Node;

static uint64_t admin(FakeHost *h, struct snic_admin_cmd *cmd)
{
    uint64_t r = 0;

    if (fake_admin(h, cmd, &r) != SNIC_ADMIN_OK) {
        fprintf(stderr, "bench: admin op-code 0x%x failed\n",
                cmd->hdr.opcode);
        exit(1);
    }
    return r;
}

static void pbl(FakeHost *h, uint64_t at, uint64_t first, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        __le64 a = GUINT64_TO_LE(first + i * 4096ull);

        fake_write(h, at + i * 8, &a, 8);
    }
}

static void node_init(Node *n, SnicSim *sim, uint8_t ip)
{
    struct snic_admin_cmd cmd;
    uint64_t pdn, eqn;

    memset(n, 0, sizeof(*n));
    n->ip = ip;
    n->h = fake_host_new();
    fake_host_attach_sim(n->h, sim);
    fake_enable(n->h, 4, 4);
    pbl(n->h, PBL_EQ, RINGS, 1);
    pbl(n->h, PBL_CQ, RINGS + 0x1000, 8);
    pbl(n->h, PBL_SQ, RINGS + 0x9000, 8);
    pbl(n->h, PBL_RQ, RINGS + 0x11000, 4);
    pbl(n->h, PBL_MR, BUF, BUF_LEN / 4096);
    fake_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    pdn = admin(n->h, &cmd);
    fake_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
    cmd.create_eq.pbl_addr = GUINT64_TO_LE(PBL_EQ);
    cmd.create_eq.npages = GUINT32_TO_LE(1);
    cmd.create_eq.log2_depth = 4;
    eqn = admin(n->h, &cmd);
    fake_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(PBL_CQ);
    cmd.create_cq.npages = GUINT32_TO_LE(8);
    cmd.create_cq.log2_depth = CQ_LOG2;
    cmd.create_cq.eqn = GUINT32_TO_LE(eqn);
    n->cqn = admin(n->h, &cmd);
    fake_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(PBL_SQ);
    cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(PBL_RQ);
    cmd.create_qp.sq_npages = GUINT32_TO_LE(8);
    cmd.create_qp.rq_npages = GUINT32_TO_LE(4);
    cmd.create_qp.pdn = GUINT32_TO_LE(pdn);
    cmd.create_qp.send_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.recv_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.type = SNIC_QPT_RC;
    cmd.create_qp.sq_log2_depth = SQ_LOG2;
    cmd.create_qp.rq_log2_depth = RQ_LOG2;
    n->qpn = admin(n->h, &cmd);
    fake_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(BUF);
    cmd.reg_mr.length = GUINT64_TO_LE(BUF_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(PBL_MR);
    cmd.reg_mr.npages = GUINT32_TO_LE(BUF_LEN / 4096);
    cmd.reg_mr.pdn = GUINT32_TO_LE(pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                      SNIC_ACCESS_REMOTE_WRITE);
    cmd.reg_mr.page_shift = 12;
    n->lkey = admin(n->h, &cmd);
}

static void modify(Node *n, uint32_t mask, const struct snic_qp_attr *a)
{
    struct snic_admin_cmd cmd;

    fake_write(n->h, FAKE_MEM_BASE + 0x9000, a, sizeof(*a));
    fake_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(n->qpn);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(mask);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(FAKE_MEM_BASE + 0x9000);
    admin(n->h, &cmd);
}

static void connect_to(Node *n, const Node *peer)
{
    struct snic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qp_access_flags = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_WRITE);
    modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
           SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.path_mtu = GUINT32_TO_LE(SNIC_MTU_4096);
    a.dest_qp_num = GUINT32_TO_LE(peer->qpn);
    a.av.dgid[12] = 10;
    a.av.dgid[15] = peer->ip;
    a.av.sgid[12] = 10;
    a.av.sgid[15] = n->ip;
    memcpy(a.av.dmac, fake_mac, 6);
    modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV | SNIC_QP_ATTR_PATH_MTU |
           SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN |
           SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | SNIC_QP_ATTR_MIN_RNR_TIMER, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_TIMEOUT |
           SNIC_QP_ATTR_RETRY_CNT | SNIC_QP_ATTR_RNR_RETRY |
           SNIC_QP_ATTR_SQ_PSN | SNIC_QP_ATTR_MAX_QP_RD_ATOMIC, &a);
}

static void post(Node *n, uint8_t opcode, uint32_t len, uint64_t raddr,
                 uint32_t rkey)
{
    struct snic_sq_wqe w;
    uint64_t slot = RINGS + 0x9000 +
                    (n->sq_pi & ((1u << SQ_LOG2) - 1)) * SNIC_SQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(n->sq_pi);
    w.opcode = opcode;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    w.rdma.remote_addr = GUINT64_TO_LE(raddr);
    w.rdma.rkey = GUINT32_TO_LE(rkey);
    w.sge[0].addr = GUINT64_TO_LE(BUF);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(n->lkey);
    fake_write(n->h, slot, &w, sizeof(w));
    fake_doorbell(n->h, 0, SNIC_DB_SQ, n->qpn, ++n->sq_pi);
}

static void post_recv(Node *n)
{
    struct snic_rq_wqe w;
    uint64_t slot = RINGS + 0x11000 +
                    (n->rq_pi & ((1u << RQ_LOG2) - 1)) * SNIC_RQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.num_sge = 1;
    w.sge[0].addr = GUINT64_TO_LE(BUF + 0x200000);
    w.sge[0].length = GUINT32_TO_LE(4096);
    w.sge[0].lkey = GUINT32_TO_LE(n->lkey);
    fake_write(n->h, slot, &w, sizeof(w));
    fake_doorbell(n->h, 0, SNIC_DB_RQ, n->qpn, ++n->rq_pi);
}

/* Consume every new completion; returns how many (exits on an error). */
static unsigned drain(Node *n)
{
    unsigned got = 0;

    for (;;) {
        uint64_t slot = RINGS + 0x1000 +
                        (n->cq_ci & ((1u << CQ_LOG2) - 1)) * SNIC_CQE_SIZE;
        uint8_t phase = ((n->cq_ci >> CQ_LOG2) & 1) ? 0 : SNIC_CQE_PHASE;
        struct snic_cqe c;

        fake_read(n->h, slot, &c, sizeof(c));
        if ((c.flags & SNIC_CQE_PHASE) != phase) {
            break;
        }
        if (c.status != SNIC_WC_SUCCESS) {
            fprintf(stderr, "bench: completion status %u\n", c.status);
            exit(1);
        }
        n->cq_ci++;
        got++;
    }
    if (got) {
        fake_doorbell(n->h, 0, SNIC_DB_CQ, n->cqn, n->cq_ci);
    }
    return got;
}

static double run_writes(SnicSim *sim, Node *a, Node *b, unsigned count)
{
    unsigned posted = 0, done = 0;
    int64_t t0 = g_get_monotonic_time();

    while (done < count) {
        while (posted < count && posted - done < 128) {
            post(a, SNIC_WR_RDMA_WRITE, MSG, BUF + 0x200000, b->lkey);
            posted++;
        }
        snic_sim_run(sim, UINT64_MAX);
        done += drain(a);
    }
    return (g_get_monotonic_time() - t0) / 1e6;
}

static double run_sends(SnicSim *sim, Node *a, Node *b, unsigned count)
{
    unsigned posted = 0, done = 0;
    int64_t t0 = g_get_monotonic_time();

    while (done < count) {
        while (posted < count && posted - done < 128) {
            post_recv(b);
            post(a, SNIC_WR_SEND, 64, 0, 0);
            posted++;
        }
        snic_sim_run(sim, UINT64_MAX);
        done += drain(a);
        drain(b);
    }
    return (g_get_monotonic_time() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    const SnicSimLinkConfig wire = { 0 };   /* the engine, not the wire */
    unsigned writes = argc > 1 ? atoi(argv[1]) : 4000;
    unsigned sends = argc > 2 ? atoi(argv[2]) : 100000;
    SnicSim *sim = snic_sim_new(1);
    uint8_t *src = g_malloc(MSG), *dst = g_malloc(MSG);
    double t_eng, t_copy, t_send, gbps, copy_gbps;
    volatile uint8_t sink = 0;
    int64_t t0;
    Node a, b;
    unsigned i;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    a.h->peer = b.h->ep;
    b.h->peer = a.h->ep;
    snic_sim_connect(sim, a.h->ep, b.h->ep, &wire);
    connect_to(&a, &b);
    connect_to(&b, &a);

    run_writes(sim, &a, &b, 100);           /* warm up */
    t_eng = run_writes(sim, &a, &b, writes);
    memset(src, 1, MSG);
    t0 = g_get_monotonic_time();
    for (i = 0; i < writes; i++) {
        src[i % MSG] = i;
        memcpy(dst, src, MSG);
        sink ^= dst[(i * 7) % MSG];
    }
    t_copy = (g_get_monotonic_time() - t0) / 1e6;
    t_send = run_sends(sim, &a, &b, sends);

    gbps = (double)writes * MSG * 8 / t_eng / 1e9;
    copy_gbps = (double)writes * MSG * 8 / t_copy / 1e9;
    printf("snic core engine benchmark (two cores, simulated wire, "
           "memcpy DMA)\n");
    printf("  64 KiB RDMA WRITE : %8.2f Gbit/s  (%u writes in %.3f s)\n",
           gbps, writes, t_eng);
    printf("  plain memcpy      : %8.2f Gbit/s  (same bytes, same run)\n",
           copy_gbps);
    printf("  ratio to memcpy   : %8.3f\n", gbps / copy_gbps);
    printf("  64 B SEND         : %8.0f messages/s  (%u in %.3f s)\n",
           sends / t_send, sends, t_send);
    printf("  per-QP state      : %8zu bytes\n", sizeof(SnicQp));
    g_free(src);
    g_free(dst);
    fake_host_free(a.h);
    fake_host_free(b.h);
    snic_sim_free(sim);
    return sink == 0xff ? 0 : 0;
}
