/*
 * SRNIC (NSDI'23) Figures 9 and 10a-b reproduced in the simulator: two
 * device cores back to back on a 100 Gbit/s link, each with the NIC
 * timing model (tests/sim/README.md: PCIe round trip 1.1 us, PCIe read
 * and write bandwidth, pipeline, line rate), driven through their rings
 * like drivers. SRNIC 6.1's setup: 512-byte SENDs, RoCE MTU 1024.
 *
 *   Fig. 9   N RC connections from node a to node b, N = 128..16384,
 *            every QP kept backlogged with 512 B SENDs (K outstanding
 *            per QP, reposted as they complete) and every RQ stocked:
 *            aggregate payload goodput and wire utilisation (a's frames
 *            with Ethernet framing: FCS, preamble, inter-frame gap) over
 *            a window of virtual time after a warm-up. Once as snic
 *            (every QP context on chip) and once in the "cached QPC"
 *            mode of the timing model: a commodity RNIC's QPCs in host
 *            memory behind an LRU cache of --cache entries, a miss
 *            stalling the pipeline for a PCIe read of --qpc-bytes.
 *   Fig. 10a one connection, message sizes 64 B..64 KiB: goodput and
 *            message rate, beside the bound of n WQEs per PCIe round
 *            trip (SRNIC 6.2: 8 per 1.1 us = 7.2 Mrps).
 *   Fig. 10b 64-byte SEND ping-pong on one connection: half the round
 *            trip (as perftest's ib_send_lat reports it).
 *
 * Host memory: the harness must run 16K QPs on each side in a few MiB of
 * fake host memory, and measures throughput, not content. SQ rings are
 * only read by the device, so every QP's SQ is the same ring pages
 * holding the same WQE in every slot (each QP keeps its own producer
 * index and doorbells; the device keeps its own consumer state in the
 * QPC). RQ rings likewise, and all receive WQEs point at one shared
 * receive buffer. One CQ per side takes every completion. The QPs have
 * no responder database (no READ or atomic is sent), so creating one
 * costs the host nothing.
 *
 *   srnic-repro [--smoke] [--out DIR] [--qps LIST] [options]
 * writes DIR/fig9.csv, fig10a.csv, fig10b.csv and model.csv.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "engine-node.h"
#include "repro-csv.h"
#include "sim-eth.h"

/* The harness's host memory, beside fake-host's admin area */
#define R_BASE      (FAKE_MEM_BASE + 0x100000)
#define R_EQ        R_BASE                      /* 1 page */
#define R_PBL_EQ    (R_BASE + 0x1000)
#define R_PBL_SQ    (R_BASE + 0x1800)           /* 16 entries */
#define R_PBL_RQ    (R_BASE + 0x1c00)           /* 4 entries */
#define R_PBL_MR    (R_BASE + 0x2000)           /* 64 entries */
#define R_PBL_CQ    (R_BASE + 0x3000)           /* 512 entries */
#define R_SQ        (R_BASE + 0x10000)          /* 256 x 256 B, shared */
#define R_RQ        (R_BASE + 0x20000)          /* 256 x 64 B, shared */
#define R_BUF       (R_BASE + 0x40000)          /* 256 KiB, registered */
#define R_SRC       R_BUF                       /* what SENDs send */
#define R_DST       (R_BUF + 0x20000)           /* where all land */
#define R_BUF_LEN   0x40000
#define R_CQ        (R_BASE + 0x100000)         /* 2^16 x 32 B = 2 MiB */
#define R_SQ_LOG2   8
#define R_RQ_LOG2   8
#define R_CQ_LOG2   16
#define R_EQ_LOG2   4
#define MAX_MSG     65536u

/* Parameters of a run, all in model.csv */
typedef struct Model {
    SnicSimNicTiming t;         /* the NIC timing model */
    uint64_t cable_ns;          /* propagation delay, each way */
    uint32_t cache;             /* cached mode: QPC cache entries */
    uint32_t qpc_bytes;         /* cached mode: bytes a miss reads */
    uint64_t warm_ns, window_ns;
    uint64_t poll_ns;           /* the hosts poll their CQs every */
    unsigned depth;             /* sends outstanding per QP (Fig. 9) */
} Model;

/* One side: a device and the objects every QP shares */
typedef struct Side {
    FakeHost *h;
    uint64_t pdn, cqn;
    uint32_t lkey, cq_ci;
    uint8_t ip;
} Side;

typedef struct Conn {
    uint32_t qpn[2];            /* a's, b's */
    uint32_t sq_pi[2], rq_pi[2];        /* producer indices, each side */
} Conn;

typedef struct Run {
    SnicSim *sim;
    Side s[2];
    Conn *conn;
    unsigned n;
    uint32_t *conn_of[2];       /* QPN -> connection, each side */
    uint32_t max_qp;
    uint32_t msg;               /* bytes per SEND */
    /* what the CQ poller does: reposts (throughput) or ping-pong */
    bool pingpong;
    uint64_t poll_ns;
    bool measuring;
    uint64_t recv_msgs, recv_bytes;     /* completed at b, in the window */
    uint64_t sent_msgs;                 /* completed at a, in the window */
    unsigned errors;
    /* ping-pong */
    uint64_t pp_start, pp_sum_ns, pp_count, pp_target;
    bool stop;
} Run;

static void side_init(Run *r, Side *s, uint8_t ip, const Model *m,
                      uint32_t max_qp)
{
    SnicCoreConfig cfg = { .max_qp = max_qp };
    SnicSimNicTiming t = m->t;
    struct snic_admin_cmd cmd;
    uint64_t eqn;

    memset(s, 0, sizeof(*s));
    s->ip = ip;
    cfg.mac[0] = 0x52;
    cfg.mac[5] = ip;
    s->h = fake_host_new_model(&cfg, &t);
    fake_host_attach_sim(s->h, r->sim);
    fake_enable(s->h, 4, 4);
    node_set_mtu(&(Node) { .h = s->h }, SNIC_ETH_MAX_MTU);
    node_pbl(s->h, R_PBL_EQ, R_EQ, 1);
    node_pbl(s->h, R_PBL_SQ, R_SQ, 16);
    node_pbl(s->h, R_PBL_RQ, R_RQ, 4);
    node_pbl(s->h, R_PBL_MR, R_BUF, R_BUF_LEN / 4096);
    node_pbl(s->h, R_PBL_CQ, R_CQ, (SNIC_CQE_SIZE << R_CQ_LOG2) / 4096);

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    s->pdn = node_admin_ok(s->h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
    cmd.create_eq.pbl_addr = GUINT64_TO_LE(R_PBL_EQ);
    cmd.create_eq.npages = GUINT32_TO_LE(1);
    cmd.create_eq.log2_depth = R_EQ_LOG2;
    cmd.create_eq.vector = GUINT16_TO_LE(1);
    eqn = node_admin_ok(s->h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(R_PBL_CQ);
    cmd.create_cq.npages = GUINT32_TO_LE((SNIC_CQE_SIZE << R_CQ_LOG2) / 4096);
    cmd.create_cq.log2_depth = R_CQ_LOG2;
    cmd.create_cq.eqn = GUINT32_TO_LE(eqn);
    s->cqn = node_admin_ok(s->h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(R_BUF);
    cmd.reg_mr.length = GUINT64_TO_LE(R_BUF_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(R_PBL_MR);
    cmd.reg_mr.npages = GUINT32_TO_LE(R_BUF_LEN / 4096);
    cmd.reg_mr.pdn = GUINT32_TO_LE(s->pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE);
    cmd.reg_mr.page_shift = 12;
    cmd.reg_mr.key = 0x33;
    s->lkey = node_admin_ok(s->h, &cmd);
    node_set_gid(s->h, ip);
}

/* Every slot of the shared rings: a signaled SEND of 'len', a receive. */
static void fill_rings(Side *s, uint32_t len)
{
    struct snic_sq_wqe w;
    struct snic_rq_wqe rw;
    unsigned i;

    memset(&w, 0, sizeof(w));
    w.opcode = SNIC_WR_SEND;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    w.sge[0].addr = GUINT64_TO_LE(R_SRC);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(s->lkey);
    memset(&rw, 0, sizeof(rw));
    rw.num_sge = 1;
    rw.sge[0].addr = GUINT64_TO_LE(R_DST);
    rw.sge[0].length = GUINT32_TO_LE(MAX_MSG);
    rw.sge[0].lkey = GUINT32_TO_LE(s->lkey);
    for (i = 0; i < 1u << R_SQ_LOG2; i++) {
        fake_write(s->h, R_SQ + i * SNIC_SQ_WQE_SIZE, &w, sizeof(w));
    }
    for (i = 0; i < 1u << R_RQ_LOG2; i++) {
        fake_write(s->h, R_RQ + i * SNIC_RQ_WQE_SIZE, &rw, sizeof(rw));
    }
}

static uint32_t create_qp(Side *s)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(R_PBL_SQ);
    cmd.create_qp.sq_npages = GUINT32_TO_LE(16);
    cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(R_PBL_RQ);
    cmd.create_qp.rq_npages = GUINT32_TO_LE(4);
    cmd.create_qp.rq_log2_depth = R_RQ_LOG2;
    cmd.create_qp.sq_log2_depth = R_SQ_LOG2;
    cmd.create_qp.pdn = GUINT32_TO_LE(s->pdn);
    cmd.create_qp.send_cqn = GUINT32_TO_LE(s->cqn);
    cmd.create_qp.recv_cqn = GUINT32_TO_LE(s->cqn);
    cmd.create_qp.type = SNIC_QPT_RC;
    return node_admin_ok(s->h, &cmd);
}

static void modify(Side *s, uint32_t qpn, uint32_t mask,
                   const struct snic_qp_attr *a)
{
    Node n = { .h = s->h, .qpn = qpn };

    node_modify(&n, mask, a);
}

/*
 * RESET -> INIT -> RTR -> RTS: SENDs only, no READ/atomic resources
 * (max_rd_atomic and max_dest_rd_atomic 0).
 */
static void connect_qp(Side *s, uint32_t qpn, const Side *peer,
                       uint32_t peer_qpn)
{
    struct snic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    modify(s, qpn, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
           SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.path_mtu = GUINT32_TO_LE(SNIC_MTU_1024);      /* SRNIC 6.1 */
    a.dest_qp_num = GUINT32_TO_LE(peer_qpn);
    a.rq_psn = GUINT32_TO_LE(peer_qpn * 7);
    a.min_rnr_timer = 1;
    node_av(&a.av, s->ip, peer->h, peer->ip);
    modify(s, qpn, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV |
           SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN |
           SNIC_QP_ATTR_RQ_PSN | SNIC_QP_ATTR_MIN_RNR_TIMER |
           SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.timeout = 14;             /* 4.096 us * 2^14 = 67 ms, as perftest */
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = GUINT32_TO_LE(qpn * 7);
    modify(s, qpn, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN |
           SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
           SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_MAX_QP_RD_ATOMIC, &a);
}

/* k more WQEs (already in the shared ring's slots): a doorbell */
static void post_sends(Run *r, unsigned side, Conn *c, unsigned k)
{
    c->sq_pi[side] += k;
    fake_doorbell(r->s[side].h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SQ,
                  c->qpn[side], c->sq_pi[side]);
}

static void post_recvs(Run *r, unsigned side, Conn *c, unsigned k)
{
    c->rq_pi[side] += k;
    fake_doorbell(r->s[side].h, SNIC_DB_KERNEL_PAGE, SNIC_DB_RQ,
                  c->qpn[side], c->rq_pi[side]);
}

/* Next CQE of a side, consumed; false if none. */
static bool poll_cq(Side *s, struct snic_cqe *e)
{
    uint64_t slot = R_CQ + (s->cq_ci & ((1u << R_CQ_LOG2) - 1)) *
                    SNIC_CQE_SIZE;

    fake_read(s->h, slot, e, sizeof(*e));
    if (!snic_ring_entry_new(e->flags, s->cq_ci, R_CQ_LOG2)) {
        return false;
    }
    s->cq_ci++;
    return true;
}

static void poll_tick(void *opaque);

/* What the two hosts do with their completions, every poll_ns. */
static void poll_side(Run *r, unsigned side)
{
    Side *s = &r->s[side];
    struct snic_cqe e;
    unsigned got = 0;

    while (poll_cq(s, &e)) {
        uint32_t qpn = GUINT32_FROM_LE(e.qpn);
        Conn *c = &r->conn[r->conn_of[side][qpn]];
        bool recv = e.opcode == SNIC_WC_RECV;

        got++;
        if (e.status != SNIC_WC_SUCCESS) {
            if (!r->errors++) {
                fprintf(stderr, "srnic-repro: side %u qpn %u status %u\n",
                        side, qpn, e.status);
            }
            continue;
        }
        if (r->pingpong) {
            if (!recv) {
                continue;
            }
            post_recvs(r, side, c, 1);
            if (side == 1) {
                post_sends(r, 1, c, 1);     /* the pong */
            } else {
                r->pp_sum_ns += snic_sim_now(r->sim) - r->pp_start;
                if (++r->pp_count == r->pp_target) {
                    r->stop = true;
                } else {
                    r->pp_start = snic_sim_now(r->sim);
                    post_sends(r, 0, c, 1);
                }
            }
            continue;
        }
        if (side == 0 && !recv) {
            r->sent_msgs += r->measuring;
            post_sends(r, 0, c, 1);
        } else if (side == 1 && recv) {
            if (r->measuring) {
                r->recv_msgs++;
                r->recv_bytes += GUINT32_FROM_LE(e.byte_len);
            }
            post_recvs(r, 1, c, 1);
        }
    }
    if (got) {
        fake_doorbell(s->h, SNIC_DB_KERNEL_PAGE, SNIC_DB_CQ, s->cqn,
                      s->cq_ci);
    }
}

static void poll_tick(void *opaque)
{
    Run *r = opaque;

    poll_side(r, 0);
    poll_side(r, 1);
    if (!r->stop) {
        snic_sim_timer_add(r->sim, snic_sim_now(r->sim) + r->poll_ns,
                           poll_tick, r);
    }
}

/* Cached-QPC mode: the QP of side a (b) that sends to b's (a's) QP. */
static uint32_t tx_qpn_a(void *opaque, uint32_t dqpn)
{
    Run *r = opaque;

    return r->conn[r->conn_of[1][dqpn]].qpn[0];
}

static uint32_t tx_qpn_b(void *opaque, uint32_t dqpn)
{
    Run *r = opaque;

    return r->conn[r->conn_of[0][dqpn]].qpn[1];
}

/* Two sides with n connections, messages of 'msg' bytes. */
static void run_new(Run *r, const Model *m, unsigned n, uint32_t msg,
                    bool cached)
{
    SnicSimLinkConfig link = {
        .bandwidth_bps = m->t.line_rate_bps,
        .delay_ns = m->cable_ns,
        .eth_framing = true,
    };
    Model mm = *m;
    unsigned i;

    memset(r, 0, sizeof(*r));
    if (cached) {
        mm.t.qpc_cache_entries = m->cache;
        mm.t.qpc_bytes = m->qpc_bytes;
    }
    r->sim = snic_sim_new(1);
    r->n = n;
    r->msg = msg;
    r->max_qp = MAX(n, 64);
    side_init(r, &r->s[0], 1, &mm, r->max_qp);
    side_init(r, &r->s[1], 2, &mm, r->max_qp);
    snic_sim_port_connect(&r->s[0].h->port, &r->s[1].h->port, &link);
    fill_rings(&r->s[0], msg);
    fill_rings(&r->s[1], msg);
    r->conn = g_new0(Conn, n);
    r->conn_of[0] = g_new0(uint32_t, r->max_qp + 2);
    r->conn_of[1] = g_new0(uint32_t, r->max_qp + 2);
    snic_sim_port_set_tx_qpn(&r->s[0].h->port, tx_qpn_a, r);
    snic_sim_port_set_tx_qpn(&r->s[1].h->port, tx_qpn_b, r);
    for (i = 0; i < n; i++) {
        Conn *c = &r->conn[i];

        c->qpn[0] = create_qp(&r->s[0]);
        c->qpn[1] = create_qp(&r->s[1]);
        r->conn_of[0][c->qpn[0]] = i;
        r->conn_of[1][c->qpn[1]] = i;
        connect_qp(&r->s[0], c->qpn[0], &r->s[1], c->qpn[1]);
        connect_qp(&r->s[1], c->qpn[1], &r->s[0], c->qpn[0]);
    }
    r->poll_ns = m->poll_ns;
}

static void run_free(Run *r)
{
    unsigned i;

    /* destroying is O(1) per QP, as creating */
    for (i = 0; i < r->n; i++) {
        g_assert_cmpuint(fake_obj_cmd(r->s[0].h, SNIC_ADMIN_DESTROY_QP,
                                      r->conn[i].qpn[0]), ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(fake_obj_cmd(r->s[1].h, SNIC_ADMIN_DESTROY_QP,
                                      r->conn[i].qpn[1]), ==, SNIC_ADMIN_OK);
    }
    fake_host_free(r->s[0].h);
    fake_host_free(r->s[1].h);
    snic_sim_free(r->sim);
    g_free(r->conn);
    g_free(r->conn_of[0]);
    g_free(r->conn_of[1]);
}

typedef struct Result {
    double goodput_gbps;        /* payload delivered at b */
    double wire_pct;            /* a->b wire busy, framing counted */
    double mrps;                /* messages completed at b */
    uint64_t retransmits, timeouts, rnr, qpc_misses;
    uint64_t max_mac_backlog;
    uint64_t packets;           /* RoCE packets a sent in the window */
} Result;

/*
 * The measured window, in a function of its own: scripts/bench-engine.sh
 * counts the instructions run inside it (callgrind --toggle-collect).
 */
void srnic_window(SnicSim *sim, uint64_t until);
__attribute__((noinline)) void srnic_window(SnicSim *sim, uint64_t until)
{
    snic_sim_run_until(sim, until);
}

/* Every QP backlogged for warm + window; measured over the window. */
static Result throughput(const Model *m, unsigned n, uint32_t msg,
                         unsigned depth, bool cached)
{
    SnicSimMacStats m0, m1;
    SnicSimMac *mac;
    Result res = { 0 };
    uint64_t t0, wire, p0;
    Run r;
    unsigned i;

    run_new(&r, m, n, msg, cached);
    for (i = 0; i < n; i++) {
        post_recvs(&r, 1, &r.conn[i], MIN(2 * depth, 1u << R_RQ_LOG2));
    }
    for (i = 0; i < n; i++) {
        post_sends(&r, 0, &r.conn[i], depth);
    }
    snic_sim_timer_add(r.sim, snic_sim_now(r.sim) + r.poll_ns, poll_tick, &r);
    snic_sim_run_until(r.sim, snic_sim_now(r.sim) + m->warm_ns);
    mac = &r.s[0].h->port.mac;
    m0 = mac->stats;
    t0 = snic_sim_now(r.sim);
    r.measuring = true;
    p0 = FAKE_STAT(r.s[0].h, rdma_tx_packets);
    srnic_window(r.sim, t0 + m->window_ns);
    r.measuring = false;
    res.packets = FAKE_STAT(r.s[0].h, rdma_tx_packets) - p0;
    m1 = mac->stats;
    wire = (m1.wire_bytes - m0.wire_bytes);
    res.goodput_gbps = r.recv_bytes * 8.0 / m->window_ns;
    res.wire_pct = 100.0 * wire * 8e9 / m->t.line_rate_bps / m->window_ns;
    res.mrps = r.recv_msgs * 1e3 / m->window_ns;
    res.retransmits = r.s[0].h->events[SNIC_TRACE_RETRANSMIT];
    res.timeouts = r.s[0].h->events[SNIC_TRACE_TIMEOUT];
    res.rnr = r.s[0].h->events[SNIC_TRACE_RNR_WAIT];
    res.qpc_misses = r.s[0].h->port.stats.qpc_misses +
                     r.s[1].h->port.stats.qpc_misses;
    res.max_mac_backlog = m1.max_backlog_bytes;
    if (r.errors) {
        fprintf(stderr, "srnic-repro: %u failed completions\n", r.errors);
        exit(1);
    }
    /* what is still in flight is dropped with the simulator */
    run_free(&r);
    return res;
}

/* 64-byte ping-pong on one connection: half the mean round trip (ns). */
static double pingpong(const Model *m, unsigned count)
{
    Model mm = *m;
    double half;
    Run r;

    mm.poll_ns = 5;     /* a spinning host */
    run_new(&r, &mm, 1, 64, false);
    r.pingpong = true;
    post_recvs(&r, 0, &r.conn[0], 16);
    post_recvs(&r, 1, &r.conn[0], 16);
    r.pp_target = count;
    snic_sim_timer_add(r.sim, snic_sim_now(r.sim) + r.poll_ns, poll_tick, &r);
    r.pp_start = snic_sim_now(r.sim);
    post_sends(&r, 0, &r.conn[0], 1);
    snic_sim_run(r.sim, UINT64_MAX);
    if (r.errors || r.pp_count != count) {
        fprintf(stderr, "srnic-repro: ping-pong failed\n");
        exit(1);
    }
    half = r.pp_sum_ns / 2.0 / count;
    run_free(&r);
    return half;
}

/* Goodput of 512 B payloads at line rate: wire bytes a frame takes */
static double max_goodput_gbps(const Model *m, uint32_t payload)
{
    /* Ethernet 14, IPv4 20, UDP 8, BTH 12, payload, ICRC 4 */
    size_t frame = 14 + 20 + 8 + 12 + payload + 4;

    return (double)m->t.line_rate_bps / 1e9 * payload /
           snic_sim_eth_wire_bytes(frame);
}

static void fig9(const Model *m, const char *dir, const unsigned *qps,
                 unsigned nq, bool cached)
{
    FILE *f = repro_csv(dir, "fig9.csv", "qps,snic_goodput_gbps,"
                       "snic_wire_pct,cached_goodput_gbps,cached_wire_pct,"
                       "max_goodput_gbps,snic_retransmits,"
                       "cached_retransmits,cached_qpc_misses");
    unsigned i;

    for (i = 0; i < nq; i++) {
        Result s = throughput(m, qps[i], 512, m->depth, false);
        Result c = { 0 };

        if (cached) {
            c = throughput(m, qps[i], 512, m->depth, true);
        }

        fprintf(f, "%u,%.2f,%.2f,%.2f,%.2f,%.2f,%" PRIu64 ",%" PRIu64
                ",%" PRIu64 "\n", qps[i], s.goodput_gbps, s.wire_pct,
                c.goodput_gbps, c.wire_pct, max_goodput_gbps(m, 512),
                s.retransmits, c.retransmits, c.qpc_misses);
        printf("fig9 %5u QPs: snic %6.2f Gb/s (wire %5.1f %%, rtx %" PRIu64
               ", %" PRIu64 " packets)  cached %6.2f Gb/s (wire %5.1f %%, "
               "QPC misses %" PRIu64 ", rtx %" PRIu64 ")\n", qps[i],
               s.goodput_gbps, s.wire_pct, s.retransmits, s.packets,
               c.goodput_gbps, c.wire_pct, c.qpc_misses, c.retransmits);
        fflush(stdout);
        fflush(f);
    }
    fclose(f);
}

static void fig10a(const Model *m, const char *dir, unsigned depth)
{
    FILE *f = repro_csv(dir, "fig10a.csv", "msg_bytes,goodput_gbps,mrps,"
                       "wire_pct,bound_mrps");
    /* SRNIC 4.3.1: at most n WQEs per PCIe round trip */
    double bound = 1e3 * SNIC_SCHED_DEFAULT_WQES / m->t.pcie_rtt_ns;
    uint32_t len;

    for (len = 64; len <= MAX_MSG; len *= 2) {
        Result s = throughput(m, 1, len, depth, false);

        fprintf(f, "%u,%.2f,%.3f,%.2f,%.2f\n", len, s.goodput_gbps, s.mrps,
                s.wire_pct, bound);
        printf("fig10a %5u B: %6.2f Gb/s, %.3f Mrps (wire %.1f %%)\n", len,
               s.goodput_gbps, s.mrps, s.wire_pct);
        fflush(stdout);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    static const unsigned qps_full[] = {
        128, 256, 512, 1024, 2048, 4096, 8192, 16384,
    };
    Model m = {
        .t = snic_sim_srnic_timing,
        .cable_ns = 0,
        .cache = 256,
        .qpc_bytes = 375,
        .poll_ns = 1000,
        .depth = 16,
    };
    gboolean smoke = FALSE, only9 = FALSE, no_cached = FALSE;
    gint64 warm_us = 0, window_us = 0, cache = 256, qpc_bytes = 375;
    gint64 depth = 16, pp_count = 0;
    g_autofree char *out = NULL, *qlist = NULL;
    GOptionEntry entries[] = {
        { "smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
          "every point, short windows (the test suite's run)", NULL },
        { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "output directory",
          "DIR" },
        { "qps", 0, 0, G_OPTION_ARG_STRING, &qlist,
          "Fig. 9's QP counts, comma separated", "LIST" },
        { "fig9-only", 0, 0, G_OPTION_ARG_NONE, &only9,
          "only Fig. 9", NULL },
        { "no-cached", 0, 0, G_OPTION_ARG_NONE, &no_cached,
          "Fig. 9 without the cached-QPC mode", NULL },
        { "warm-us", 0, 0, G_OPTION_ARG_INT64, &warm_us,
          "virtual time before measuring (default 500, smoke 20)", "US" },
        { "window-us", 0, 0, G_OPTION_ARG_INT64, &window_us,
          "virtual time measured (default 2000, smoke 20)", "US" },
        { "cache", 0, 0, G_OPTION_ARG_INT64, &cache,
          "cached-QPC mode: QPC cache entries (default 256)", "N" },
        { "qpc-bytes", 0, 0, G_OPTION_ARG_INT64, &qpc_bytes,
          "cached-QPC mode: bytes a miss reads (default 375)", "B" },
        { "depth", 0, 0, G_OPTION_ARG_INT64, &depth,
          "Fig. 9: SENDs outstanding per QP (default 16)", "K" },
        { "pingpongs", 0, 0, G_OPTION_ARG_INT64, &pp_count,
          "Fig. 10b: round trips (default 1000, smoke 20)", "N" },
        { NULL },
    };
    GOptionContext *ctx = g_option_context_new("- SRNIC Fig. 9-10");
    g_autofree unsigned *qps = NULL;
    GError *err = NULL;
    unsigned nq, i;
    double lat;
    FILE *f;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "srnic-repro: %s\n", err->message);
        return 2;
    }
    g_option_context_free(ctx);
    if (warm_us < 0 || window_us < 0 || cache <= 0 || qpc_bytes < 0 ||
        depth <= 0 || depth > 64 || pp_count < 0) {
        fprintf(stderr, "srnic-repro: parameter out of range\n");
        return 2;
    }
    m.warm_ns = (warm_us ? warm_us : smoke ? 20 : 500) * 1000;
    m.window_ns = (window_us ? window_us : smoke ? 20 : 2000) * 1000;
    m.cache = cache;
    m.qpc_bytes = qpc_bytes;
    m.depth = depth;
    pp_count = pp_count ? pp_count : smoke ? 20 : 1000;
    if (qlist) {
        g_auto(GStrv) v = g_strsplit(qlist, ",", 0);

        nq = g_strv_length(v);
        qps = g_new(unsigned, nq);
        for (i = 0; i < nq; i++) {
            qps[i] = atoi(v[i]);
            if (!qps[i] || qps[i] > 65536) {
                fprintf(stderr, "srnic-repro: bad QP count %s\n", v[i]);
                return 2;
            }
        }
    } else {
        nq = G_N_ELEMENTS(qps_full);
        qps = g_memdup2(qps_full, sizeof(qps_full));
    }
    out = out ? out : g_strdup(".");
    repro_mkdir(out);
    f = repro_csv(out, "model.csv", "parameter,value,unit,source");
    fprintf(f, "pcie_rtt,%" PRIu64 ",ns,SRNIC 6.2 (measured PCIe RTT "
            "1.1 us)\n", m.t.pcie_rtt_ns);
    fprintf(f, "pcie_rate,%.1f,Gbit/s,Gen3 x16 after TLP overhead "
            "(tests/sim/README.md)\n", m.t.pcie_bps / 1e9);
    fprintf(f, "pipeline,%" PRIu64 ",ns per packet,ours (tests/sim/"
            "README.md)\n", m.t.pipeline_ns);
    fprintf(f, "line_rate,%.0f,Gbit/s,SRNIC 5 (100 Gbps port)\n",
            m.t.line_rate_bps / 1e9);
    fprintf(f, "cable,%" PRIu64 ",ns,ours (back to back)\n", m.cable_ns);
    fprintf(f, "path_mtu,1024,bytes,SRNIC 6.1\n");
    fprintf(f, "message,512,bytes,SRNIC 6.1 (Fig. 9)\n");
    fprintf(f, "sched_wqes,%u,WQEs,SRNIC 4.3.1 (n = 8)\n",
            SNIC_SCHED_DEFAULT_WQES);
    fprintf(f, "sched_burst,%u,bytes,snic default (SRNIC: burst_size)\n",
            SNIC_SCHED_DEFAULT_BURST);
    fprintf(f, "sq_wqe,%u,bytes,snic ABI (include/snic/snic_verbs.h)\n",
            SNIC_SQ_WQE_SIZE);
    fprintf(f, "sq_wqe_read,%u,bytes a fetch reads of a 1-SGE WQE,snic "
            "(hw/snic/core/engine/rdma.h: header and 3 SGEs)\n", SNIC_SQ_WQE_FIRST);
    fprintf(f, "desc_priority,%u,bool,ours (tests/sim/README.md: WQE "
            "fetches pass queued payload reads)\n", m.t.desc_priority);
    fprintf(f, "depth,%u,SENDs outstanding per QP,ours (Fig. 9)\n",
            m.depth);
    fprintf(f, "cq_poll,%" PRIu64 ",ns,ours (hosts poll and repost)\n",
            m.poll_ns);
    fprintf(f, "qpc_cache,%u,entries,cached mode: calibrated (SRNIC 6.1: "
            "CX-5 and CX-6 drop past 256 QPs)\n", m.cache);
    fprintf(f, "qpc_bytes,%u,bytes,cached mode (SRNIC 2.2: a CX-5 QPC "
            "takes ~375 B)\n", m.qpc_bytes);
    fprintf(f, "warm,%" PRIu64 ",us,ours\n", m.warm_ns / 1000);
    fprintf(f, "window,%" PRIu64 ",us,ours\n", m.window_ns / 1000);
    fclose(f);

    fig9(&m, out, qps, nq, !no_cached);
    if (!only9) {
        fig10a(&m, out, 128);
        lat = pingpong(&m, pp_count);
        f = repro_csv(out, "fig10b.csv", "msg_bytes,latency_us");
        fprintf(f, "64,%.3f\n", lat / 1e3);
        fclose(f);
        printf("fig10b 64 B: %.3f us (half a ping-pong round trip)\n",
               lat / 1e3);
    }
    printf("srnic-repro: wrote %s/{model,fig9,fig10a,fig10b}.csv\n", out);
    return 0;
}
