/*
 * The cache-free QP scheduler (SRNIC section 4.3.1): round robin is fair
 * to within a burst, weighted round robin follows the weights, strict
 * priority starves lower classes, fetch-and-drop refetches what an
 * iteration did not use and never reorders a QP's messages, an idle QP
 * costs no iteration, and with a timing model WQE fetches of many QPs are
 * in flight together while one QP is bounded by n WQEs per round trip.
 * 802.1Qbb PFC as the sender: a pause of the RoCE priority stops the
 * scheduler until its time runs out or a resume comes, and is counted;
 * a pause of another priority, or with PFC off, stops nothing; garbage
 * MAC control frames never stop it for longer than a pause can last.
 *
 * Every node here is alone (no wire): its frames are collected and one
 * snic_core_run(c, 1) is exactly one scheduling iteration.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"
#include "port/wire.h"
#include "engine/wq.h"
#include "objects/qp.h"

#define MAXQ        (3 * SNIC_SCHED_MAX_FETCHES)
#define QPBL(i)     (FAKE_MEM_BASE + 0x5f0000 + (i) * 8)
#define QRING(i)    (FAKE_MEM_BASE + 0x600000 + (i) * 0x1000)
#define Q_LOG2      4           /* 16 WQEs: one page */
#define MSG         4096        /* 4 segments at path MTU 1024 */
#define BIG         16384       /* a burst */
#define BURST_SEGS  (SNIC_SCHED_DEFAULT_BURST / 1024)

typedef struct Env {
    Node n;
    unsigned nq;
    uint64_t qpn[MAXQ];
    uint32_t pi[MAXQ];
} Env;

/* MODIFY_QP of QP qpn of the node to 'state' with 'mask' from 'a'. */
static void modify(Env *e, uint64_t qpn, uint32_t mask,
                   struct snic_qp_attr *a, uint32_t state)
{
    uint64_t keep = e->n.qpn;

    a->qp_state = GUINT32_TO_LE(state);
    e->n.qpn = qpn;
    node_modify(&e->n, SNIC_QP_ATTR_STATE | mask, a);
    e->n.qpn = keep;
}

/* QP i from RESET to RTS towards QPN 1000 + i with traffic class tc. */
static void connect(Env *e, unsigned i, uint8_t tc)
{
    struct snic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.port_num = 1;
    modify(e, e->qpn[i], SNIC_QP_ATTR_PKEY_INDEX | SNIC_QP_ATTR_PORT |
           SNIC_QP_ATTR_ACCESS_FLAGS, &a, SNIC_QPS_INIT);
    a.path_mtu = GUINT32_TO_LE(SNIC_MTU_1024);
    a.dest_qp_num = GUINT32_TO_LE(1000 + i);
    a.av.dgid[10] = a.av.dgid[11] = 0xff;
    a.av.dgid[12] = 10;
    a.av.dgid[15] = 2;
    a.av.sgid[10] = a.av.sgid[11] = 0xff;
    a.av.sgid[12] = 10;
    a.av.sgid[15] = 1;
    a.av.traffic_class = tc;
    memcpy(a.av.dmac, fake_mac, 6);
    a.av.hop_limit = 64;
    modify(e, e->qpn[i], SNIC_QP_ATTR_AV | SNIC_QP_ATTR_PATH_MTU |
           SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN |
           SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | SNIC_QP_ATTR_MIN_RNR_TIMER,
           &a, SNIC_QPS_RTR);
    a.timeout = 20;         /* no retransmission within these tests */
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = 1;
    modify(e, e->qpn[i], SNIC_QP_ATTR_SQ_PSN | SNIC_QP_ATTR_TIMEOUT |
           SNIC_QP_ATTR_RETRY_CNT | SNIC_QP_ATTR_RNR_RETRY |
           SNIC_QP_ATTR_MAX_QP_RD_ATOMIC, &a, SNIC_QPS_RTS);
}

/*
 * nq RC QPs with 16-WQE SQs, taking receive WQEs from an SRQ, in RTS
 * towards QPN 1000 + i of 10.0.0.2 with traffic class tclass[i].
 */
static void env_new(Env *e, unsigned nq, const uint8_t *tclass,
                    uint64_t dma_rtt_ns, const SnicCoreConfig *cfg)
{
    struct snic_admin_cmd cmd;
    unsigned i;

    SnicCoreConfig none = { 0 };

    memset(e, 0, sizeof(*e));
    node_init_host(&e->n, fake_host_new_timed(cfg ? cfg : &none, dma_rtt_ns),
                   NULL, 1, SNIC_QPT_RC, SNIC_DB_KERNEL_PAGE);
    node_create_srq(&e->n, 0);
    e->nq = nq;
    for (i = 0; i < nq; i++) {
        __le64 page = GUINT64_TO_LE(QRING(i));

        fake_write(e->n.h, QPBL(i), &page, 8);
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP,
                            sizeof(cmd.create_qp));
        cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(QPBL(i));
        cmd.create_qp.sq_npages = GUINT32_TO_LE(1);
        cmd.create_qp.pdn = GUINT32_TO_LE(e->n.pdn);
        cmd.create_qp.send_cqn = GUINT32_TO_LE(e->n.cqn);
        cmd.create_qp.recv_cqn = GUINT32_TO_LE(e->n.cqn);
        cmd.create_qp.type = SNIC_QPT_RC;
        cmd.create_qp.sq_log2_depth = Q_LOG2;
        cmd.create_qp.srqn = GUINT32_TO_LE(e->n.srqn);
        e->qpn[i] = node_admin_ok(e->n.h, &cmd);
        connect(e, i, tclass ? tclass[i] : 0);
    }
}

static void env_free(Env *e)
{
    fake_host_free(e->n.h);
}

/*
 * A signaled RDMA WRITE of len bytes in nsge SGEs on QP i (rkey 1: never
 * executed).
 */
static void post_write_sges(Env *e, unsigned i, uint32_t len,
                            uint64_t raddr, unsigned nsge)
{
    struct snic_sq_wqe w;
    uint64_t slot = QRING(i) +
                    (e->pi[i] & ((1u << Q_LOG2) - 1)) * SNIC_SQ_WQE_SIZE;
    unsigned k;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(e->pi[i]);
    w.opcode = SNIC_WR_RDMA_WRITE;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = nsge;
    w.rdma.remote_addr = GUINT64_TO_LE(raddr);
    w.rdma.rkey = GUINT32_TO_LE(1);
    for (k = 0; k < nsge; k++) {
        w.sge[k].addr = GUINT64_TO_LE(BUF + k * (len / nsge));
        w.sge[k].length = GUINT32_TO_LE(k + 1 < nsge ? len / nsge :
                                        len - k * (len / nsge));
        w.sge[k].lkey = GUINT32_TO_LE(e->n.lkey);
    }
    fake_write(e->n.h, slot, &w, sizeof(w));
    fake_doorbell(e->n.h, 0, SNIC_DB_SQ, e->qpn[i], ++e->pi[i]);
}

static void post_write(Env *e, unsigned i, uint32_t len, uint64_t raddr)
{
    post_write_sges(e, i, len, raddr, 1);
}

/* Exactly k scheduling iterations. */
static void iterate(Env *e, unsigned k)
{
    while (k--) {
        snic_core_run(e->n.h->core, 1);
    }
}

/* The collected frames, parsed (and forgotten); count per QP index. */
static unsigned take_frames(Env *e, unsigned *count, SnicPkt *pkts,
                            unsigned max)
{
    GPtrArray *f = e->n.h->frames;
    unsigned i, n = 0;

    if (count) {
        memset(count, 0, e->nq * sizeof(*count));
    }
    for (i = 0; i < f->len; i++) {
        GByteArray *b = g_ptr_array_index(f, i);
        SnicPkt p;

        g_assert_cmpint(snic_wire_parse(b->data, b->len, &p), ==,
                        SNIC_PARSE_OK);
        g_assert_cmpuint(p.dqpn - 1000, <, e->nq);
        if (count) {
            count[p.dqpn - 1000]++;
        }
        if (pkts && n < max) {
            pkts[n] = p;
            pkts[n].payload = NULL;     /* the frame goes below */
        }
        n++;
    }
    g_ptr_array_set_size(f, 0);
    return n;
}

/* 64 backlogged QPs: each gets 1/64 of the segments, within one burst. */
static void test_round_robin(void)
{
    unsigned count[MAXQ], i, k;
    Env e;

    env_new(&e, MAXQ, NULL, 0, NULL);
    for (i = 0; i < MAXQ; i++) {
        for (k = 0; k < 8; k++) {
            post_write(&e, i, MSG, 0);
        }
    }
    take_frames(&e, NULL, NULL, 0);
    iterate(&e, MAXQ * 3 / 2);
    g_assert_cmpuint(take_frames(&e, count, NULL, 0), ==,
                     MAXQ * 3 / 2 * BURST_SEGS);
    for (i = 0; i < MAXQ; i++) {
        g_assert_cmpuint(count[i], >=, BURST_SEGS);     /* mean 1.5 bursts */
        g_assert_cmpuint(count[i], <=, 2 * BURST_SEGS);
    }
    env_free(&e);
}

/*
 * A burst that leaves its message unfinished asks for an ACK with its last
 * packet: the QP's next turn comes a round of all QPs later, and the
 * burst must not wait for it to be acknowledged (with many QPs, that
 * round outlasts the ACK timeout and the burst would be sent again).
 */
static void test_burst_asks_ack(void)
{
    SnicPkt pkts[2 * BURST_SEGS];
    unsigned i, k;
    Env e;

    env_new(&e, 2, NULL, 0, NULL);
    for (i = 0; i < 2; i++) {
        post_write(&e, i, 2 * BIG, 0);  /* two bursts each */
    }
    take_frames(&e, NULL, NULL, 0);
    iterate(&e, 2);
    g_assert_cmpuint(take_frames(&e, NULL, pkts, G_N_ELEMENTS(pkts)), ==,
                     2 * BURST_SEGS);
    for (i = 0; i < 2; i++) {
        for (k = 1; k < BURST_SEGS; k++) {
            SnicPkt *p = &pkts[i * BURST_SEGS + k];

            g_assert_cmpuint(p->dqpn, ==, pkts[i * BURST_SEGS].dqpn);
            g_assert_cmpuint(p->opcode, ==, SNIC_OP_RC_WRITE_MIDDLE);
            /* (PSN 0, a multiple of SNIC_ACKREQ_EVERY, asks anyway) */
            g_assert_cmpint(p->ackreq, ==, k == BURST_SEGS - 1);
        }
    }
    env_free(&e);
}

/* WRR: a class 3 QP (weight 4) gets four times a class 0 QP's share. */
static void test_weighted(void)
{
    static const uint8_t tclass[2] = { 0, 3 << 5 };
    SnicCoreConfig cfg = { .sched_policy = SNIC_SCHED_WRR };
    unsigned count[2], k;
    Env e;

    env_new(&e, 2, tclass, 0, &cfg);
    for (k = 0; k < 8; k++) {
        post_write(&e, 0, BIG, 0);
        post_write(&e, 1, BIG, 0);
    }
    iterate(&e, 5);
    take_frames(&e, count, NULL, 0);
    g_assert_cmpuint(count[0], ==, BURST_SEGS);
    g_assert_cmpuint(count[1], ==, 4 * BURST_SEGS);
    env_free(&e);
}

/* SP: while a class 7 QP has work, a class 0 QP sends nothing. */
static void test_strict_priority(void)
{
    static const uint8_t tclass[2] = { 0, 7 << 5 };
    SnicCoreConfig cfg = { .sched_policy = SNIC_SCHED_SP };
    SnicPkt p[64];
    unsigned count[2], k, n;
    Env e;

    env_new(&e, 2, tclass, 0, &cfg);
    for (k = 0; k < 6; k++) {
        post_write(&e, 0, BIG, 0);
    }
    for (k = 0; k < 3; k++) {
        post_write(&e, 1, MSG, 0);     /* 12 segments: one iteration */
    }
    iterate(&e, 1);
    take_frames(&e, count, NULL, 0);
    g_assert_cmpuint(count[0], ==, 0);
    g_assert_cmpuint(count[1], ==, 12);
    /* the high class is idle: the low one goes on */
    post_write(&e, 1, MSG, 0);
    iterate(&e, 2);
    n = take_frames(&e, count, p, G_N_ELEMENTS(p));
    g_assert_cmpuint(count[1], ==, 4);
    g_assert_cmpuint(count[0], ==, BURST_SEGS);
    for (k = 0; k < 4; k++) {
        g_assert_cmpuint(p[k].dqpn, ==, 1001);  /* the high class first */
    }
    g_assert_cmpuint(n, ==, 4 + BURST_SEGS);
    env_free(&e);
}

/*
 * Fetch-and-drop: an iteration takes at most n WQEs and a burst of bytes;
 * a message the burst cut is fetched again by the next iteration, and
 * its segments go out in order, never a message ahead of another.
 */
static void test_fetch_and_drop(void)
{
    SnicPkt p[64];
    uint64_t *args;
    unsigned k, n;
    Env e;

    env_new(&e, 1, NULL, 0, NULL);
    args = e.n.h->event_args[SNIC_TRACE_SCHED_ITERATION];
    for (k = 0; k < 12; k++) {
        post_write(&e, 0, 1024, k * 0x10000);
    }
    iterate(&e, 1);
    g_assert_cmpuint(args[1], ==, SNIC_SCHED_DEFAULT_WQES);
    g_assert_cmpuint(args[2], ==, SNIC_SCHED_DEFAULT_WQES);
    iterate(&e, 1);
    g_assert_cmpuint(args[1], ==, 4);
    n = take_frames(&e, NULL, p, G_N_ELEMENTS(p));
    g_assert_cmpuint(n, ==, 12);
    for (k = 0; k < n; k++) {
        g_assert_cmpuint(p[k].reth.va, ==, k * 0x10000);   /* in order */
    }
    env_free(&e);

    /* three 12 KiB messages through 16 KiB bursts */
    env_new(&e, 1, NULL, 0, NULL);
    args = e.n.h->event_args[SNIC_TRACE_SCHED_ITERATION];
    for (k = 0; k < 3; k++) {
        post_write(&e, 0, 12 * 1024, k * 0x10000);
    }
    iterate(&e, 1);
    g_assert_cmpuint(args[1], ==, 2);
    g_assert_cmpuint(args[2], ==, 16);
    iterate(&e, 1);
    g_assert_cmpuint(args[1], ==, 2);       /* the cut one again, and one */
    g_assert_cmpuint(args[2], ==, 16);
    iterate(&e, 1);
    g_assert_cmpuint(args[1], ==, 1);
    g_assert_cmpuint(args[2], ==, 4);
    n = take_frames(&e, NULL, p, G_N_ELEMENTS(p));
    g_assert_cmpuint(n, ==, 36);
    for (k = 0; k < n; k++) {
        uint32_t seg = k % 12;

        g_assert_cmpuint(p[k].psn, ==, (p[0].psn + k) & SNIC_PSN_MASK);
        g_assert_cmpuint(p[k].opcode, ==,
                         seg == 0 ? SNIC_OP_RC_WRITE_FIRST :
                         seg == 11 ? SNIC_OP_RC_WRITE_LAST :
                         SNIC_OP_RC_WRITE_MIDDLE);
        if (seg == 0) {
            g_assert_cmpuint(p[k].reth.va, ==, k / 12 * 0x10000);
        }
    }
    env_free(&e);
}

/* Idle QPs take no iteration: only the one with work is visited. */
static void test_idle_costs_nothing(void)
{
    unsigned k;
    Env e;

    env_new(&e, MAXQ, NULL, 0, NULL);
    e.n.h->events[SNIC_TRACE_SCHED_ITERATION] = 0;  /* setup's RTS visits */
    for (k = 0; k < 4; k++) {
        post_write(&e, 17, MSG, 0);
    }
    iterate(&e, 10);
    g_assert_cmpuint(e.n.h->events[SNIC_TRACE_SCHED_ITERATION], ==, 1);
    g_assert_cmpuint(e.n.h->event_args[SNIC_TRACE_SCHED_ITERATION][0], ==,
                     e.qpn[17]);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 16);
    env_free(&e);
}

/*
 * Timing model: run until q QPs sent m one-segment messages each; the
 * virtual time it took. A QP waits one fetch per n WQEs; the fetches of
 * different QPs are in flight together.
 */
static uint64_t timed_run(unsigned q, unsigned m, uint64_t rtt)
{
    uint64_t start, end;
    unsigned i, k, sent = 0;
    Env e;

    env_new(&e, q, NULL, rtt, NULL);
    start = snic_sim_port_now(&e.n.h->port);
    for (i = 0; i < q; i++) {
        for (k = 0; k < m; k++) {
            post_write(&e, i, 1024, 0);
        }
    }
    while (sent < q * m) {
        snic_sim_port_run(&e.n.h->port);
        sent += take_frames(&e, NULL, NULL, 0);
        if (sent < q * m) {
            g_assert_cmpuint(e.n.h->port.timer_deadline, !=, UINT64_MAX);
            snic_sim_port_advance(&e.n.h->port,
                                  e.n.h->port.timer_deadline -
                                  snic_sim_port_now(&e.n.h->port));
        }
    }
    end = snic_sim_port_now(&e.n.h->port);
    env_free(&e);
    return end - start;
}

static void test_fetches_in_flight(void)
{
    const uint64_t rtt = 1100;
    uint64_t one = timed_run(1, 16, rtt), many = timed_run(8, 16, rtt);

    g_test_message("16 messages: 1 QP %" PRIu64 " ns, 8 QPs %" PRIu64 " ns",
                   one, many);

    /* 16 messages, 8 WQEs a fetch: two round trips for one QP */
    g_assert_cmpuint(one, >=, 2 * rtt);
    g_assert_cmpuint(one, <, 3 * rtt);
    /* eight QPs fetch together: not eight times as long */
    g_assert_cmpuint(many, <, 2 * one);
}

/* ---- PFC: the partner pauses the RoCE priority ---- */

#define PFC_PRIO    SNIC_DEFAULT_PFC_PRIORITY

static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

/* A PFC frame from the partner: priority p paused for 'quanta' (0: XON). */
static void pfc_in(Env *e, unsigned p, uint16_t quanta)
{
    uint16_t q[SNIC_SIM_PRIORITIES] = { 0 };
    uint8_t f[SNIC_SIM_PFC_FRAME_LEN];

    q[p] = quanta;
    snic_sim_pfc_build(f, peer_mac, 1u << p, q);
    g_assert_cmpint(snic_core_receive(e->n.h->core, f, sizeof(f)), ==,
                    sizeof(f));
}

static void env_pfc(Env *e, unsigned nq, bool lossy)
{
    SnicCoreConfig cfg = { .pfc_priority = PFC_PRIO, .lossy = lossy };
    unsigned i, k;

    env_new(e, nq, NULL, 0, &cfg);
    for (i = 0; i < nq; i++) {
        for (k = 0; k < 4; k++) {
            post_write(e, i, MSG, 0);
        }
    }
}

/*
 * Paused, the scheduler sends nothing (the QPs keep their work); when the
 * pause's time runs out, it goes on; an XON ends a pause early. The time
 * paused is counted.
 */
static void test_pfc_pause_resume(void)
{
    /* 1000 quanta of 512 bit times at 100 Gb/s */
    const uint64_t ns_1000 = 5120;
    Env e;

    env_pfc(&e, 4, false);
    pfc_in(&e, PFC_PRIO, 1000);
    g_assert_cmpuint(FAKE_STAT(e.n.h, pfc_pause_recv), ==, 1);
    fake_run(e.n.h);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 0);
    g_assert_cmpuint(e.n.h->port.timer_deadline, <=,
                     snic_sim_port_now(&e.n.h->port) + ns_1000);

    fake_advance(e.n.h, ns_1000 - 1);
    fake_run(e.n.h);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 0);
    fake_advance(e.n.h, 1);
    g_assert_cmpuint(FAKE_STAT(e.n.h, pfc_paused_ns), ==, ns_1000);
    g_assert_cmpuint(e.n.h->events[SNIC_TRACE_PFC_RESUMED], ==, 1);
    snic_core_run(e.n.h->core, 1);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, BURST_SEGS);

    /* the longest pause, ended after 700 ns by an XON */
    pfc_in(&e, PFC_PRIO, 0xffff);
    fake_run(e.n.h);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 0);
    fake_advance(e.n.h, 700);
    pfc_in(&e, PFC_PRIO, 0);
    g_assert_cmpuint(FAKE_STAT(e.n.h, pfc_paused_ns), ==, ns_1000 + 700);
    g_assert_cmpuint(e.n.h->event_args[SNIC_TRACE_PFC_RESUMED][1], ==, 1);
    fake_run(e.n.h);
    /* everything else goes out: 4 QPs x 4 messages x 4 segments */
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 4 * 4 * 4 -
                     BURST_SEGS);
    g_assert_cmpuint(FAKE_STAT(e.n.h, pfc_pause_recv), ==, 3);
    env_free(&e);
}

/* A pause that names another priority, or PFC off, stops nothing. */
static void test_pfc_not_ours(gconstpointer lossy)
{
    Env e;

    env_pfc(&e, 2, GPOINTER_TO_INT(lossy));
    pfc_in(&e, lossy ? PFC_PRIO : PFC_PRIO + 1, 0xffff);
    g_assert_cmpuint(FAKE_STAT(e.n.h, pfc_pause_recv), ==, 1);
    fake_run(e.n.h);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 2 * 4 * 4);
    g_assert_cmpuint(FAKE_STAT(e.n.h, pfc_paused_ns), ==, 0);
    env_free(&e);
}

/*
 * The port's own receive buffer above XOFF pauses the partner, not the
 * port: the scheduler still sends (ACKs and READ responses the partner
 * waits for among them).
 */
static void test_pfc_own_buffer_full(void)
{
    SnicCoreConfig cfg = { .pfc_priority = PFC_PRIO, .rx_buffer_kb = 64 };
    static const uint8_t payload[1000];
    uint8_t f[2048];
    unsigned i;
    size_t len;
    SnicPkt p;
    Env e;

    env_new(&e, 1, NULL, 0, &cfg);
    post_write(&e, 0, MSG, 0);
    memset(&p, 0, sizeof(p));
    memcpy(p.addr.dmac, fake_mac, 6);
    memcpy(p.addr.smac, peer_mac, 6);
    p.addr.sip[0] = p.addr.dip[0] = 10;
    p.addr.sip[3] = 2;
    p.addr.dip[3] = 1;
    p.addr.hop_limit = 64;
    p.opcode = SNIC_OP_RC_SEND_ONLY;
    p.pkey = SNIC_DEFAULT_PKEY;
    p.dqpn = 5;                 /* no such QP: dropped once taken */
    p.payload = payload;
    p.payload_len = sizeof(payload);
    len = snic_wire_build(&p, f, sizeof(f));
    for (i = 0; i < 40; i++) {  /* 40 KiB: above XOFF (16 KiB) */
        snic_core_receive(e.n.h->core, f, len);
    }
    snic_core_run(e.n.h->core, 1);  /* takes one frame, one iteration */
    g_assert_cmpuint(FAKE_STAT(e.n.h, pfc_pause_sent), ==, 1);
    g_assert_cmpuint(FAKE_STAT(e.n.h, rdma_tx_packets), ==, 4);
    env_free(&e);
}

/*
 * Garbage MAC control frames from a peer (random lengths and bytes, some
 * of them well-formed PFC frames) never stop the device for longer than
 * the longest pause: past it, all the work goes out.
 */
static void test_pfc_garbage(void)
{
    static const uint8_t pfc_mcast[6] = { 0x01, 0x80, 0xc2, 0, 0, 0x01 };
    GRand *r = g_rand_new_with_seed(15);
    uint8_t f[128];
    unsigned i, k, sent;
    Env e;

    env_pfc(&e, 4, false);
    for (i = 0; i < 2000; i++) {
        size_t len = g_rand_int_range(r, 0, sizeof(f) + 1);

        for (k = 0; k < len; k++) {
            f[k] = g_rand_int(r);
        }
        if (len >= 14) {
            memcpy(f, pfc_mcast, 6);
            f[12] = 0x88;
            f[13] = 0x08;
        }
        if (len >= 16 && g_rand_boolean(r)) {
            f[14] = f[15] = 0x01;       /* PFC, random vector and times */
        }
        snic_core_receive(e.n.h->core, f, len);
        if (!(i % 64)) {
            snic_core_run(e.n.h->core, 1);
            fake_advance(e.n.h, g_rand_int_range(r, 0, 1000));
        }
    }
    g_assert_cmpuint(FAKE_STAT(e.n.h, pfc_pause_recv), >, 0);
    g_assert_cmpuint(FAKE_STAT(e.n.h, rx_dropped), >, 0);
    /* 65535 quanta at 100 Gb/s: 335540 ns */
    fake_advance(e.n.h, 335540);
    fake_run(e.n.h);
    sent = take_frames(&e, NULL, NULL, 0);
    g_assert_cmpuint(sent, ==, 4 * 4 * 4);
    g_rand_free(r);
    env_free(&e);
}

/*
 * Three times as many QPs as fetch tags, one WQE each. The engine issues
 * a fetch per tag and then reports no work (it does not spin waiting for
 * a tag); when the fetches complete, their QPs send at once, before the
 * QPs still waiting for a fetch take the freed tags: the WQEs go to the
 * DMA engine as they arrive, not behind a queue of unfetched QPs.
 */
static void test_fetched_first(void)
{
    const unsigned q = 3 * SNIC_SCHED_MAX_FETCHES;
    SnicSimPort *port;
    unsigned i;
    Env e;

    env_new(&e, q, NULL, 1000, NULL);
    port = &e.n.h->port;
    for (i = 0; i < q; i++) {
        post_write(&e, i, 1024, 0);
    }
    /* 16 work items a round: 64 fetches take 4, then it is idle */
    g_assert_cmpuint(snic_sim_port_run(port), ==, 4);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 0);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, SNIC_SCHED_MAX_FETCHES);
    snic_sim_port_advance(port, port->timer_deadline -
                                snic_sim_port_now(port));
    /* 64 iterations, 64 fetches */
    g_assert_cmpuint(snic_sim_port_run(port), ==, 8);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==,
                     SNIC_SCHED_MAX_FETCHES);
    /* the freed tags went to the next QPs */
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, SNIC_SCHED_MAX_FETCHES);
    env_free(&e);
}

/*
 * A WQE fetch cannot be called back: a QP reset while its fetch is in
 * flight leaves the tag taken until the read is due, and then dropped.
 * The QP, connected again meanwhile, is not woken by the stale tag (its
 * WQEs were not what that read returned): it sends when its own fetch
 * arrives, and every tag is given back.
 */
static void test_stale_fetch_tag(void)
{
    SnicSimPort *port;
    SnicQp *qp;
    struct snic_qp_attr a;
    uint64_t old_due;
    Env e;

    env_new(&e, 1, NULL, 1000, NULL);
    port = &e.n.h->port;
    qp = &e.n.h->core->qps[e.qpn[0]];
    post_write(&e, 0, 1024, 0);
    snic_sim_port_run(port);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 1);
    g_assert_true(qp->sched.fetching);
    old_due = port->timer_deadline;

    memset(&a, 0, sizeof(a));
    modify(&e, e.qpn[0], 0, &a, SNIC_QPS_RESET);
    g_assert_false(qp->sched.fetching);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 1);   /* still taken */
    connect(&e, 0, 0);
    e.pi[0] = 0;
    snic_sim_port_advance(port, 100);
    post_write(&e, 0, 1024, 0);
    snic_sim_port_run(port);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 2);
    take_frames(&e, NULL, NULL, 0);

    /* the stale tag's time: dropped, the QP still waits for its own */
    snic_sim_port_advance(port, old_due - snic_sim_port_now(port));
    snic_sim_port_run(port);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 0);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 1);
    g_assert_true(qp->sched.fetching);

    snic_sim_port_advance(port, port->timer_deadline -
                                snic_sim_port_now(port));
    snic_sim_port_run(port);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 1);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 0);
    env_free(&e);
}

/* Advance a timed node to its timer and run its engine. */
static void to_timer(Env *e)
{
    SnicSimPort *port = &e->n.h->port;

    snic_sim_port_advance(port, port->timer_deadline -
                                snic_sim_port_now(port));
    snic_sim_port_run(port);
}

/*
 * A WQE fetch reads only what the WQEs use (rdma.h): the first part of
 * each WQE posted (up to n), not n whole slots; a WQE whose SGEs go
 * beyond its first part costs a second read, after the first one
 * arrived, of its remaining bytes, and its QP sends only then.
 */
static void test_fetch_reads_used_bytes(void)
{
    SnicSimPortStats *st;
    Env e;

    env_new(&e, 1, NULL, 1000, NULL);
    st = &e.n.h->port.stats;
    post_write(&e, 0, 1024, 0);
    post_write(&e, 0, 1024, 0);
    post_write(&e, 0, 1024, 0);
    snic_sim_port_run(&e.n.h->port);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 1);
    g_assert_cmpuint(st->pcie_reads, ==, 3);
    g_assert_cmpuint(st->pcie_read_bytes, ==, 3 * SNIC_SQ_WQE_FIRST);
    take_frames(&e, NULL, NULL, 0);
    to_timer(&e);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 3);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 0);

    /* 5 SGEs: 80 + 5 * 16 = 160 bytes, 32 beyond the first part */
    post_write_sges(&e, 0, 1000, 0, 5);
    snic_sim_port_run(&e.n.h->port);
    g_assert_cmpuint(st->pcie_read_bytes, ==, 4 * SNIC_SQ_WQE_FIRST);
    to_timer(&e);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 0);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 1);    /* the rest */
    g_assert_cmpuint(st->pcie_read_bytes, ==, 4 * SNIC_SQ_WQE_FIRST + 32);
    to_timer(&e);
    g_assert_cmpuint(take_frames(&e, NULL, NULL, 0), ==, 1);
    g_assert_cmpuint(e.n.h->core->sched.fetches, ==, 0);
    env_free(&e);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sched/pfc/pause-resume", test_pfc_pause_resume);
    g_test_add_data_func("/sched/pfc/other-priority", GINT_TO_POINTER(false),
                         test_pfc_not_ours);
    g_test_add_data_func("/sched/pfc/off", GINT_TO_POINTER(true),
                         test_pfc_not_ours);
    g_test_add_func("/sched/pfc/garbage", test_pfc_garbage);
    g_test_add_func("/sched/pfc/own-buffer-full", test_pfc_own_buffer_full);
    g_test_add_func("/sched/round-robin", test_round_robin);
    g_test_add_func("/sched/stale-fetch-tag", test_stale_fetch_tag);
    g_test_add_func("/sched/fetch-reads-used-bytes",
                    test_fetch_reads_used_bytes);
    g_test_add_func("/sched/burst-asks-ack", test_burst_asks_ack);
    g_test_add_func("/sched/weighted-round-robin", test_weighted);
    g_test_add_func("/sched/strict-priority", test_strict_priority);
    g_test_add_func("/sched/fetch-and-drop", test_fetch_and_drop);
    g_test_add_func("/sched/idle-costs-nothing", test_idle_costs_nothing);
    g_test_add_func("/sched/fetches-in-flight", test_fetches_in_flight);
    g_test_add_func("/sched/fetched-first", test_fetched_first);
    return g_test_run();
}
