/*
 * End-to-end tests of the RC engine: two device cores on a simulated wire,
 * each driven through its admin queue, doorbells and rings like a driver
 * would. Data, completions and errors are checked on both sides, with and
 * without loss, duplication and reordering.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib/gstdio.h>

#include "engine-node.h"
#include "port/link.h"
#include "port/wire.h"
#include "engine/rdma.h"
#include "engine/xmit.h"
#include "objects/cq.h"
#include "objects/qp.h"
#include "transport/transport.h"

/* SNIC_SEED varies the simulated wire's randomness (stress runs). */
static uint64_t seed(uint64_t base)
{
    const char *env = g_getenv("SNIC_SEED");

    return base ^ (env ? g_ascii_strtoull(env, NULL, 0) << 16 : 0);
}

/* SNIC_PCAP_DIR: capture the wire of a scenario there (tshark checks). */
static void capture(SnicSim *sim, const char *name)
{
    const char *dir = g_getenv("SNIC_PCAP_DIR");
    g_autofree char *path = NULL;

    if (dir) {
        path = g_strdup_printf("%s/%s.pcap", dir, name);
        g_assert_cmpint(snic_sim_capture(sim, path), ==, 0);
    }
}

static const SnicSimLinkConfig clean = {
    .bandwidth_bps = 10000000000ull,
    .delay_ns = 2000,
};

static void test_send_recv(void)
{
    SnicSim *sim = snic_sim_new(1);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_fill(&a, BUF, 10000, 1);
    node_post_recv(&b, 0xb1, BUF + 0x10000, 16384);
    node_post_send(&a, 0xa1, SNIC_WR_SEND, BUF, 10000, 0, 0, 0, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0xa1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_SEND);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0xb1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 10000);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x10000, 10000), 10000,
                    fake_ptr(a.h, BUF, 10000), 10000);
    /* 10 segments of 1 KiB, not one more */
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 10);
    g_assert_false(node_poll_cq(&a, &c));
    node_pair_free(sim, &a, &b);
}

/*
 * The QP context keeps SQ and RQ indices modulo 2^16: more work requests
 * than that pass through both queues (the drivers' doorbells count on
 * past 2^16), each completing once, in order, with its CQE's wqe_index
 * the ring slot it used.
 */
static void test_index_wrap(void)
{
    const unsigned batch = 1u << (SQ_LOG2 - 1), total = 65536 + 4 * batch;
    SnicSim *sim = snic_sim_new(2);
    Node a, b;
    struct snic_cqe c;
    unsigned i, k;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    for (i = 0; i < total; i += batch) {
        for (k = 0; k < batch; k++) {
            node_post_recv(&b, i + k, BUF + 0x10000, 64);
            node_post_send(&a, i + k, SNIC_WR_SEND, BUF, 8, 0, 0, 0, a.lkey);
        }
        snic_sim_run(sim, 1000000);
        for (k = 0; k < batch; k++) {
            g_assert_true(node_poll_cq(&a, &c));
            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i + k);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            g_assert_cmpuint(GUINT16_FROM_LE(c.wqe_index) %
                             (1u << SQ_LOG2), ==, (i + k) % (1u << SQ_LOG2));
            g_assert_true(node_poll_cq(&b, &c));
            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i + k);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        }
        g_assert_false(node_poll_cq(&a, &c));
    }
    g_assert_cmpuint(a.h->core->qps[a.qpn].sq_tail, ==, total % 65536);
    g_assert_cmpuint(b.h->core->qps[b.qpn].rq_head, ==, total % 65536);
    g_assert_cmpuint(FAKE_STAT(a.h, doorbells_invalid), ==, 0);
    node_pair_free(sim, &a, &b);
}

static void test_write_and_imm(void)
{
    SnicSim *sim = snic_sim_new(2);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_4096, 7, 7);
    node_fill(&a, BUF, 65536, 2);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 65536, BUF + 0x200000,
              b.lkey, 0, a.lkey);
    node_post_recv(&b, 0xb2, BUF, 0);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE_IMM, BUF + 100, 3, BUF + 0x300000,
              b.lkey, 0xdeadbeef, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RDMA_WRITE);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x200000, 65536), 65536,
                    fake_ptr(a.h, BUF, 65536), 65536);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x300000, 3), 3,
                    fake_ptr(a.h, BUF + 100, 3), 3);
    /* only WRITE with immediate consumes a receive and completes there */
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(c.wc_flags & SNIC_WC_F_IMM, ==, SNIC_WC_F_IMM);
    g_assert_cmphex(GUINT32_FROM_BE(c.imm), ==, 0xdeadbeef);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 3);
    g_assert_false(node_poll_cq(&b, &c));
    node_pair_free(sim, &a, &b);
}

/*
 * Many SENDs and WRITEs of assorted sizes through a lossy, duplicating,
 * reordering wire: every WR completes successfully, in post order, with
 * the destination bytes equal to the source.
 */
static void lossy_run(double loss, uint64_t seed_base)
{
    SnicSimLinkConfig link = clean;
    SnicSim *sim = snic_sim_new(seed(seed_base));
    const unsigned n = 120;
    const SnicSimLinkStats *st;
    Node a, b;
    struct snic_cqe c;
    unsigned i, sends = 0;

    link.loss = loss;
    link.dup = loss / 2;
    link.reorder = loss / 2;
    if (loss >= 0.05) {
        capture(sim, "rc-send-write-lossy");
    }
    node_pair_new(sim, &a, &b, &link, SNIC_MTU_1024, 7, 7);
    node_fill(&a, BUF, 0x200000, 3);
    for (i = 0; i < n; i++) {
        uint32_t len = (i * 7919) % 9000 + (i % 3 ? 1 : 0);
        uint64_t off = (uint64_t)i * 0x4000;

        if (i % 2) {
            node_post_recv(&b, 1000 + i, BUF + 0x200000 + off, 0x4000);
            node_post_send(&a, i, SNIC_WR_SEND, BUF + off, len, 0, 0, 0, a.lkey);
            sends++;
        } else {
            node_post_send(&a, i, SNIC_WR_RDMA_WRITE, BUF + off, len,
                      BUF + 0x200000 + off, b.lkey, 0, a.lkey);
        }
        if (i % 16 == 15) {
            snic_sim_run(sim, 2000000);     /* drain the SQ now and then */
        }
    }
    snic_sim_run(sim, 20000000);
    for (i = 0; i < n; i++) {
        uint32_t len = (i * 7919) % 9000 + (i % 3 ? 1 : 0);
        uint64_t off = (uint64_t)i * 0x4000;

        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);   /* post order */
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_cmpmem(fake_ptr(b.h, BUF + 0x200000 + off, len), len,
                        fake_ptr(a.h, BUF + off, len), len);
    }
    for (i = 0; i < sends; i++) {
        g_assert_true(node_poll_cq(&b, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1001 + 2 * i);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    g_assert_false(node_poll_cq(&a, &c));
    g_assert_false(node_poll_cq(&b, &c));
    st = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep);
    g_test_message("loss %.2f: %" G_GUINT64_FORMAT " packets sent by A, %"
                   G_GUINT64_FORMAT " lost, %" G_GUINT64_FORMAT
                   " duplicated, %" G_GUINT64_FORMAT " reordered", loss,
                   st->sent, st->lost, st->duplicated, st->reordered);
    node_pair_free(sim, &a, &b);
}

static void test_lossless(void)
{
    lossy_run(0, 10);
}

static void test_loss_1(void)
{
    lossy_run(0.01, 11);
}

static void test_loss_5(void)
{
    lossy_run(0.05, 12);
}

/*
 * ib_write_bw over the VM test's lossy wire: 500 WRITEs of 64 KiB at MTU
 * 4096, up to 128 outstanding, on devices that drop and reorder 1 % of
 * their frames (wire-drop=1, wire-reorder=1). The wire is instant, so each
 * responder takes the requests in bursts and answers a burst with one ACK
 * or NAK, like a loaded QEMU does: sequence NAKs then follow each other
 * with no ACK between them while the transfer moves on, and must not use
 * up the retry count (RETRY_EXC_ERR in CI before they counted as progress).
 */
static void test_write_bw_lossy_bursts(void)
{
    SnicSimLinkConfig instant = { 0 };
    SnicSim *sim = snic_sim_new(seed(27));
    SnicLinkFaults faults = { .drop_pct = 1, .reorder_pct = 1 };
    const unsigned n = 500, depth = 128, len = 65536;
    unsigned posted = 0, done = 0;
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &instant, SNIC_MTU_4096, 7, 7);
    faults.seed = seed(1);
    g_assert_true(snic_core_set_faults(a.h->core, &faults, true, NULL));
    faults.seed = seed(2);
    g_assert_true(snic_core_set_faults(b.h->core, &faults, true, NULL));
    node_fill(&a, BUF, len, 27);
    while (done < n) {
        while (posted < n && posted - done < depth) {
            node_post_send(&a, posted, SNIC_WR_RDMA_WRITE, BUF, len,
                           BUF + 0x200000, b.lkey, 0, a.lkey);
            posted++;
        }
        snic_sim_run(sim, 1000000);
        while (node_poll_cq(&a, &c)) {
            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, done);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            done++;
        }
        g_assert_cmpuint(snic_sim_now(sim), <, 10000000000ull);
    }
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x200000, len), len,
                    fake_ptr(a.h, BUF, len), len);
    g_assert_cmpuint(FAKE_STAT(a.h, wire_drops_injected), >, 0);
    g_assert_cmpuint(FAKE_STAT(a.h, wire_reorders_injected), >, 0);
    g_test_message("%u WRITEs in %" G_GUINT64_FORMAT " ns of virtual time",
                   n, snic_sim_now(sim));
    node_pair_free(sim, &a, &b);
}

/*
 * Both ports corrupt 5 % of their RoCE frames (x-wire-corrupt): every
 * corrupted frame is dropped at the other's ICRC check, counted there, and
 * go-back-N resends it; WRITEs and READs land intact.
 */
static void test_corrupt_recovered(void)
{
    SnicSim *sim = snic_sim_new(seed(31));
    SnicLinkFaults faults = { .corrupt_pct = 5 };
    const unsigned len = 16384;
    Node a, b;
    struct snic_cqe c;
    unsigned i;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    faults.seed = seed(5);
    g_assert_true(snic_core_set_faults(a.h->core, &faults, true, NULL));
    faults.seed = seed(6);
    g_assert_true(snic_core_set_faults(b.h->core, &faults, true, NULL));
    node_fill(&a, BUF, len, 31);
    node_fill(&b, BUF + 0x100000, len, 32);
    for (i = 0; i < 20; i++) {
        bool read = i & 1;

        node_post_send(&a, i, read ? SNIC_WR_RDMA_READ : SNIC_WR_RDMA_WRITE,
                       BUF + (read ? 0x200000 : 0), len,
                       BUF + (read ? 0x100000 : 0x300000), b.lkey, 0,
                       a.lkey);
        snic_sim_run(sim, 100000000);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x300000, len), len,
                    fake_ptr(a.h, BUF, len), len);
    g_assert_cmpmem(fake_ptr(a.h, BUF + 0x200000, len), len,
                    fake_ptr(b.h, BUF + 0x100000, len), len);
    g_assert_cmpuint(FAKE_STAT(a.h, wire_corrupts_injected), >, 0);
    g_assert_cmpuint(FAKE_STAT(b.h, wire_corrupts_injected), >, 0);
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_rx_icrc_errors), ==,
                     FAKE_STAT(a.h, wire_corrupts_injected));
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_rx_icrc_errors), ==,
                     FAKE_STAT(b.h, wire_corrupts_injected));
    node_pair_free(sim, &a, &b);
}

static void test_remote_access_error(void)
{
    SnicSim *sim = snic_sim_new(3);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    /* a WRITE past the end of B's region, then one that would be fine */
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF + BUF_LEN - 50,
              b.lkey, 0, a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_ACCESS_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(a.h->core->qps[a.qpn].state, ==, SNIC_QPS_ERR);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
    /* no byte after B's region end was written (BUF + BUF_LEN is past it) */
    node_pair_free(sim, &a, &b);
}

static void test_local_protection_error(void)
{
    SnicSim *sim = snic_sim_new(4);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
              a.lkey ^ 1);      /* stale key byte */
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 0);
    node_pair_free(sim, &a, &b);
}

/*
 * A WQE that fails locally after earlier ones went out: those may have
 * reached the responder, so they complete normally when acknowledged;
 * then the bad WQE completes with its error and the rest are flushed.
 */
static void local_error_after_inflight(double loss)
{
    SnicSimLinkConfig link = clean;
    SnicSim *sim = snic_sim_new(seed(40));
    const uint32_t len = 65536;
    Node a, b;
    struct snic_cqe c;

    link.loss = loss;
    link.dup = loss / 2;
    link.reorder = loss / 2;
    node_pair_new(sim, &a, &b, &link, SNIC_MTU_4096, 7, 7);
    node_fill(&a, BUF, len, 40);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, len, BUF + 0x100000,
                   b.lkey, 0, a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                   a.lkey ^ 1);     /* stale key byte */
    node_post_send(&a, 3, SNIC_WR_SEND, BUF, 10, 0, 0, 0, a.lkey);
    snic_sim_run(sim, 2000000);

    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(a.h, BUF, len), len,
                    fake_ptr(b.h, BUF + 0x100000, len), len);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 3);
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    g_assert_false(node_poll_cq(&a, &c));
    g_assert_cmpuint(a.h->core->qps[a.qpn].state, ==, SNIC_QPS_ERR);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_RTS);
    if (!loss) {
        /* nothing of WQE 2 or 3 went on the wire: 16 WRITE segments */
        g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, len / 4096);
    }
    node_pair_free(sim, &a, &b);
}

static void test_local_error_after_inflight(void)
{
    local_error_after_inflight(0);
}

/* ... also when WQE 1 needs retransmissions after WQE 2 failed */
static void test_local_error_after_inflight_lossy(void)
{
    local_error_after_inflight(0.05);
}

static void test_rnr(void)
{
    SnicSim *sim = snic_sim_new(5);
    Node a, b;
    struct snic_cqe c;

    /* rnr_retry 2: three tries without a receive WQE, then the error */
    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 2);
    node_post_send(&a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_RNR_RETRY_EXC_ERR);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 3);
    node_pair_free(sim, &a, &b);

    /* rnr_retry 7 retries for ever: a receive posted later is used */
    sim = snic_sim_new(6);
    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_send(&a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, a.lkey);
    snic_sim_run_until(sim, 1000000);       /* 1 ms of RNR NAKs */
    node_post_recv(&b, 7, BUF + 0x1000, 100);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 10);
    node_pair_free(sim, &a, &b);
}

static void test_retry_exceeded(void)
{
    SnicSimLinkConfig dead = clean;
    SnicSim *sim = snic_sim_new(7);
    Node a, b;
    struct snic_cqe c;

    dead.loss = 1.0;
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 2, 7);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0, a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_RETRY_EXC_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    /* 2 WRITEs, sent once and retried twice each, then given up */
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 6);
    /* the timeout elapsed three times: ~1 ms each */
    g_assert_cmpuint(snic_sim_now(sim), >=, 3 * (4096ull << 8));
    /* the first two resent both WRITEs, the third gave up */
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_timeouts), ==, 2);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_rtx_segments), ==, 4);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_rx_stale), ==, 0);
    node_pair_free(sim, &a, &b);
}

/*
 * A round trip longer than the ACK timeout (as when PFC holds the ACKs
 * back): the requester resends a WRITE whose ACK is still on its way, the
 * original ACK completes it, and the answers to the copies come back
 * stale. Every frame dropped is one of those, and the counters say so.
 */
static void test_spurious_timeout_stale(void)
{
    SnicSimLinkConfig slow = clean;
    SnicSim *sim = snic_sim_new(8);
    uint64_t timeouts;
    Node a, b;
    struct snic_cqe c;

    slow.delay_ns = 1200000;    /* RTT 2.4 ms, the RTO ~1 ms */
    node_pair_new(sim, &a, &b, &slow, SNIC_MTU_1024, 7, 7);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    timeouts = FAKE_STAT(a.h, rdma_timeouts);
    g_assert_cmpuint(timeouts, >=, 1);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_rtx_segments), ==, timeouts);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_rx_stale), ==, timeouts);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_rx_dropped), ==, timeouts);
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_rx_dropped), ==, 0);
    node_pair_free(sim, &a, &b);
}

/*
 * Linux's generic QP drain (ib_drain_qp), which every kernel ULP calls at
 * teardown: the QP is moved to ERR, then an unsignaled RDMA WRITE with no
 * SGE and a receive with no SGE are posted; each must complete with
 * FLUSH_ERR, or the consumer waits for ever.
 */
static void test_drain_after_error(void)
{
    SnicSim *sim = snic_sim_new(71);
    struct snic_qp_attr at = { .qp_state = GUINT32_TO_LE(SNIC_QPS_ERR) };
    struct snic_sq_wqe w;
    struct snic_rq_wqe r;
    struct snic_cqe c;
    bool got_send = false, got_recv = false;
    Node a, b;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_modify(&a, SNIC_QP_ATTR_STATE, &at);
    g_assert_cmpuint(a.h->core->qps[a.qpn].state, ==, SNIC_QPS_ERR);

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(0xd1);
    w.opcode = SNIC_WR_RDMA_WRITE;      /* no SNIC_WQE_SIGNALED, no SGE */
    node_post_wqe(&a, &w);
    memset(&r, 0, sizeof(r));
    r.wr_id = GUINT64_TO_LE(0xd2);
    fake_write(a.h, a.rq_ring + (a.rq_pi & ((1u << a.rq_log2) - 1)) *
               SNIC_RQ_WQE_SIZE, &r, sizeof(r));
    fake_doorbell(a.h, a.ctx, SNIC_DB_RQ, a.qpn, ++a.rq_pi);
    snic_sim_run(sim, 100000);

    while (node_poll_cq(&a, &c)) {
        g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
        if (c.opcode & SNIC_WC_RECV) {
            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0xd2);
            got_recv = true;
        } else {
            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0xd1);
            got_send = true;
        }
    }
    g_assert_true(got_send);
    g_assert_true(got_recv);
    /* nothing went on the wire for them */
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 0);
    node_pair_free(sim, &a, &b);
}

static void test_read(void)
{
    SnicSim *sim = snic_sim_new(8);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_4096, 7, 7);
    node_fill(&b, BUF, 1u << 20, 8);
    /* 1 MiB: 256 response PSNs in 4 requests of 64 */
    node_post_send(&a, 1, SNIC_WR_RDMA_READ, BUF + 0x200000, 1u << 20, BUF,
              b.lkey, 0, a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_READ, BUF + 0x180000, 100, BUF + 12345,
              b.lkey, 0, a.lkey);
    node_post_send(&a, 3, SNIC_WR_RDMA_READ, BUF, 0, BUF, b.lkey, 0, a.lkey);
    snic_sim_run(sim, 1000000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RDMA_READ);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 1u << 20);
    g_assert_cmpmem(fake_ptr(a.h, BUF + 0x200000, 1u << 20), 1u << 20,
                    fake_ptr(b.h, BUF, 1u << 20), 1u << 20);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpmem(fake_ptr(a.h, BUF + 0x180000, 100), 100,
                    fake_ptr(b.h, BUF + 12345, 100), 100);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 3);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    /* requests: 4 + 1 + 1 */
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 6);
    node_pair_free(sim, &a, &b);
}

/* READs, WRITEs and atomics interleaved on a lossy wire. */
static void test_read_atomic_lossy(void)
{
    SnicSimLinkConfig link = clean;
    SnicSim *sim = snic_sim_new(seed(9));
    const unsigned n = 90;
    const uint64_t counter = BUF + 0x3f0000;
    const SnicSimLinkStats *st;
    Node a, b;
    struct snic_cqe c;
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    uint64_t origs[90];
    unsigned i, adds = 0;

    link.loss = 0.05;
    link.dup = 0.03;
    link.reorder = 0.03;
    capture(sim, "rc-read-atomic-lossy");
    node_pair_new(sim, &a, &b, &link, SNIC_MTU_1024, 7, 7);
    node_fill(&b, BUF, 0x200000, 9);
    node_wr64(&b, counter, 1000);
    for (i = 0; i < n; i++) {
        node_wr64(&b, BUF + 0x3e0000 + i * 8, 0);    /* CMP_SWAP targets */
    }
    for (i = 0; i < n; i++) {
        uint32_t len = (i * 7919) % 20000 + 1;
        uint64_t off = (uint64_t)i * 0x8000;

        switch (i % 3) {
        case 0:
            node_post_send(&a, i, SNIC_WR_RDMA_READ, BUF + 0x200000 + off / 2,
                      MIN(len, 0x4000), BUF + off / 2, b.lkey, 0, a.lkey);
            break;
        case 1:
            node_post_atomic(&a, i, SNIC_WR_ATOMIC_FETCH_ADD,
                        BUF + 0x380000 + i * 8, counter, b.lkey, 1, 0);
            adds++;
            break;
        default:
            if (i % 2) {
                node_post_atomic(&a, i, SNIC_WR_ATOMIC_CMP_SWAP,
                            BUF + 0x380000 + i * 8, BUF + 0x3e0000 + i * 8,
                            b.lkey, 0, 5000 + i);
            } else {
                node_post_send(&a, i, SNIC_WR_RDMA_WRITE, BUF + off / 2, 64,
                          BUF + 0x300000 + i * 64, b.lkey, 0, a.lkey);
            }
        }
        if (i % 12 == 11) {
            snic_sim_run(sim, 5000000);
        }
    }
    snic_sim_run(sim, 50000000);
    for (i = 0; i < n; i++) {
        uint32_t len = (i * 7919) % 20000 + 1;
        uint64_t off = (uint64_t)i * 0x8000;

        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        if (i % 3 == 0) {
            g_assert_cmpmem(fake_ptr(a.h, BUF + 0x200000 + off / 2,
                                     MIN(len, 0x4000)), MIN(len, 0x4000),
                            fake_ptr(b.h, BUF + off / 2, MIN(len, 0x4000)),
                            MIN(len, 0x4000));
        } else if (i % 3 == 1) {
            origs[i] = node_rd64(&a, BUF + 0x380000 + i * 8);
            g_assert_cmpuint(origs[i], >=, 1000);
            g_assert_cmpuint(origs[i], <, 1000 + adds);
            /* every add saw a different value: each applied once */
            g_assert_false(g_hash_table_contains(seen, &origs[i]));
            g_hash_table_add(seen, &origs[i]);
        } else if (i % 2) {
            /* CMP_SWAP applied once: it saw 0, and left its value */
            g_assert_cmpuint(node_rd64(&a, BUF + 0x380000 + i * 8), ==, 0);
            g_assert_cmpuint(node_rd64(&b, BUF + 0x3e0000 + i * 8), ==, 5000 + i);
        }
    }
    g_assert_cmpuint(node_rd64(&b, counter), ==, 1000 + adds);
    g_assert_false(node_poll_cq(&a, &c));
    st = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep);
    g_test_message("%" G_GUINT64_FORMAT " lost, %" G_GUINT64_FORMAT
                   " duplicated A->B", st->lost, st->duplicated);
    g_hash_table_destroy(seen);
    node_pair_free(sim, &a, &b);
}

static void test_atomics(void)
{
    SnicSim *sim = snic_sim_new(10);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_wr64(&b, BUF + 64, 42);
    node_post_atomic(&a, 1, SNIC_WR_ATOMIC_CMP_SWAP, BUF, BUF + 64, b.lkey, 42, 7);
    node_post_atomic(&a, 2, SNIC_WR_ATOMIC_CMP_SWAP, BUF + 8, BUF + 64, b.lkey,
                42, 9);                         /* compare fails now */
    node_post_atomic(&a, 3, SNIC_WR_ATOMIC_FETCH_ADD, BUF + 16, BUF + 64, b.lkey,
                100, 0);
    node_post_atomic(&a, 4, SNIC_WR_ATOMIC_FETCH_ADD, BUF + 24, BUF + 68, b.lkey,
                1, 0);                          /* misaligned */
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_COMP_SWAP);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 8);
    g_assert_cmpuint(node_rd64(&a, BUF), ==, 42);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(node_rd64(&a, BUF + 8), ==, 7);     /* saw the swap */
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_FETCH_ADD);
    g_assert_cmpuint(node_rd64(&a, BUF + 16), ==, 7);
    g_assert_cmpuint(node_rd64(&b, BUF + 64), ==, 107);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 4);
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_INV_REQ_ERR);
    node_pair_free(sim, &a, &b);
}

static void test_read_access_error(void)
{
    SnicSim *sim = snic_sim_new(11);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_send(&a, 1, SNIC_WR_RDMA_READ, BUF, 100, BUF, b.lkey + 1, 0,
              a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/* A UD send WQE from n (IPv4 AV) to 'to' */
static void ud_wqe(struct snic_sq_wqe *wqe, Node *n, uint64_t wr_id,
                   const Node *to, uint32_t qkey, uint64_t addr, uint32_t len,
                   bool imm)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = imm ? SNIC_WR_SEND_IMM : SNIC_WR_SEND;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    w.imm = GUINT32_TO_BE(0x1234abcd);
    w.ud.av.dgid[10] = w.ud.av.dgid[11] = 0xff;
    w.ud.av.dgid[12] = 10;
    w.ud.av.dgid[15] = to->ip;
    w.ud.av.sgid[10] = w.ud.av.sgid[11] = 0xff;
    w.ud.av.sgid[12] = 10;
    w.ud.av.sgid[15] = n->ip;
    memcpy(w.ud.av.dmac, fake_mac, 6);
    w.ud.remote_qpn = GUINT32_TO_LE(to->qpn);
    w.ud.remote_qkey = GUINT32_TO_LE(qkey);
    w.sge[0].addr = GUINT64_TO_LE(addr);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(n->lkey);
    *wqe = w;
}

static void post_ud(Node *n, uint64_t wr_id, const Node *to, uint32_t qkey,
                    uint64_t addr, uint32_t len, bool imm)
{
    struct snic_sq_wqe w;

    ud_wqe(&w, n, wr_id, to, qkey, addr, len, imm);
    node_post_wqe(n, &w);
}

static void ud_pair(SnicSim *sim, Node *a, Node *b, uint8_t type,
                    uint32_t qkey)
{
    node_init_type(a, sim, 1, type);
    node_init_type(b, sim, 2, type);
    snic_sim_port_connect(&a->h->port, &b->h->port, &clean);
    node_ud_up(a, qkey, type == SNIC_QPT_GSI);
    node_ud_up(b, qkey, type == SNIC_QPT_GSI);
}

/*
 * A user context's datagrams must come from an address of the port's GID
 * table: a spoofed source completes LOC_PROT_ERR and sends nothing; once
 * the kernel lists the address (SET_GID), the same WQE goes out. Kernel
 * QPs are trusted (the RDMA core builds their address vectors).
 */
static void set_gid(Node *n, uint8_t index, uint8_t flags, uint8_t ip)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
    cmd.set_gid.index = index;
    cmd.set_gid.flags = flags;
    cmd.set_gid.gid[10] = cmd.set_gid.gid[11] = 0xff;
    cmd.set_gid.gid[12] = 10;
    cmd.set_gid.gid[15] = ip;
    node_admin_ok(n->h, &cmd);
}

static void test_ud_source_address(void)
{
    SnicSim *sim = snic_sim_new(46);
    struct snic_admin_cmd cmd;
    struct snic_sq_wqe w;
    Node a, b;
    struct snic_cqe c;

    node_init_ctx(&a, sim, 1, SNIC_QPT_UD, 3);
    node_init_type(&b, sim, 2, SNIC_QPT_UD);
    snic_sim_port_connect(&a.h->port, &b.h->port, &clean);
    node_ud_up(&a, 0x1234, false);
    node_ud_up(&b, 0x1234, false);
    node_post_recv(&b, 21, BUF + 0x10000, 4096 + 40);
    set_gid(&a, 0, 0, 1);                           /* the port's, removed */

    post_ud(&a, 1, &b, 0x1234, BUF, 100, false);   /* 10.0.0.1: not listed */
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 0);
    g_assert_cmpuint(fake_guest_errors_matching(a.h, "not in the port's GID "
                                                "table"), ==, 1);
    node_pair_free(sim, &a, &b);

    sim = snic_sim_new(47);
    node_init_ctx(&a, sim, 1, SNIC_QPT_UD, 3);
    node_init_type(&b, sim, 2, SNIC_QPT_UD);
    snic_sim_port_connect(&a.h->port, &b.h->port, &clean);
    node_ud_up(&a, 0x1234, false);
    node_ud_up(&b, 0x1234, false);
    node_post_recv(&b, 21, BUF + 0x10000, 4096 + 40);
    set_gid(&a, 0, 0, 1);
    set_gid(&a, 1, SNIC_GID_VALID, 9);              /* another address */
    set_gid(&a, 2, SNIC_GID_VALID, 1);              /* ours */
    post_ud(&a, 2, &b, 0x1234, BUF, 100, false);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 21);
    /* removed again: refused again (the QP went to ERR with the first) */
    set_gid(&a, 2, 0, 1);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
    cmd.set_gid.index = SNIC_MAX_GIDS;              /* out of range */
    g_assert_cmpuint(fake_admin(a.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    post_ud(&a, 3, &b, 0x1234, BUF, 100, false);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    node_pair_free(sim, &a, &b);

    /*
     * An IPv4 datagram goes out from the last four bytes of sgid: naming
     * the port's IPv6 GID 2001:db8::a00:1 does not make 10.0.0.1 ours.
     */
    sim = snic_sim_new(48);
    node_init_ctx(&a, sim, 1, SNIC_QPT_UD, 3);
    node_init_type(&b, sim, 2, SNIC_QPT_UD);
    snic_sim_port_connect(&a.h->port, &b.h->port, &clean);
    node_ud_up(&a, 0x1234, false);
    node_ud_up(&b, 0x1234, false);
    set_gid(&a, 0, 0, 1);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
    cmd.set_gid.index = 1;
    cmd.set_gid.flags = SNIC_GID_VALID;
    cmd.set_gid.gid[0] = 0x20;
    cmd.set_gid.gid[1] = 0x01;
    cmd.set_gid.gid[2] = 0x0d;
    cmd.set_gid.gid[3] = 0xb8;
    cmd.set_gid.gid[12] = 10;
    cmd.set_gid.gid[15] = 1;
    node_admin_ok(a.h, &cmd);
    ud_wqe(&w, &a, 4, &b, 0x1234, BUF, 100, false);
    memcpy(w.ud.av.sgid, cmd.set_gid.gid, 16);
    node_post_wqe(&a, &w);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 0);
    node_pair_free(sim, &a, &b);
}

static void test_ud(void)
{
    SnicSim *sim = snic_sim_new(12);
    Node a, b;
    struct snic_cqe c;
    const uint8_t *grh;

    capture(sim, "ud");
    ud_pair(sim, &a, &b, SNIC_QPT_UD, 0x1234);
    node_fill(&a, BUF, 5000, 12);
    node_post_recv(&b, 21, BUF + 0x10000, 4096 + 40);
    node_post_recv(&b, 22, BUF + 0x20000, 4096 + 40);
    post_ud(&a, 1, &b, 0x1234, BUF, 1000, false);
    post_ud(&a, 2, &b, 0x9999, BUF, 10, false);     /* wrong Q_Key */
    post_ud(&a, 3, &b, 0x80000000, BUF + 7, 4096, true);   /* QP's Q_Key */
    snic_sim_run(sim, 100000);
    /* the sender completes every datagram once it is on the wire */
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 1000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 3);
    /* the receiver got two: GRH slot, then the payload */
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 21);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 40 + 1000);
    g_assert_cmpuint(GUINT32_FROM_LE(c.src_qp), ==, a.qpn);
    g_assert_cmpuint(c.wc_flags, ==, SNIC_WC_F_GRH);
    grh = fake_ptr(b.h, BUF + 0x10000, 40);
    g_assert_cmpuint(grh[0], ==, 0);
    g_assert_cmpuint(grh[20], ==, 0x45);            /* IPv4 header */
    g_assert_cmpuint(grh[20 + 9], ==, 17);          /* UDP */
    g_assert_cmpuint(grh[20 + 12], ==, 10);         /* source 10.0.0.1 */
    g_assert_cmpuint(grh[20 + 15], ==, 1);
    g_assert_cmpuint(grh[20 + 19], ==, 2);          /* dest 10.0.0.2 */
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x10000 + 40, 1000), 1000,
                    fake_ptr(a.h, BUF, 1000), 1000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 22);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 40 + 4096);
    g_assert_cmpuint(c.wc_flags, ==, SNIC_WC_F_GRH | SNIC_WC_F_IMM);
    g_assert_cmphex(GUINT32_FROM_BE(c.imm), ==, 0x1234abcd);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x20000 + 40, 4096), 4096,
                    fake_ptr(a.h, BUF + 7, 4096), 4096);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_rx_dropped), ==, 1);
    /* a datagram larger than the MTU is a local length error */
    post_ud(&a, 4, &b, 0x1234, BUF, 4097, false);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_LEN_ERR);
    node_pair_free(sim, &a, &b);
}

/*
 * The port's Ethernet MTU bounds every RoCE frame: a path MTU it cannot
 * carry is not sent (A's MTU) or not taken (B's MTU), and the transport
 * sees a loss, as on a network with mismatched MTUs.
 */
static void rc_over_port_mtu(bool sender)
{
    SnicSim *sim = snic_sim_new(31);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_4096, 2, 7);
    node_set_mtu(sender ? &a : &b, 1500);
    node_fill(&a, BUF, 4096, 31);
    /* 1000 bytes fit a 1500-byte MTU */
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 1000, BUF + 0x10000,
                   b.lkey, 0, a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 4096, BUF + 0x20000,
                   b.lkey, 0, a.lkey);
    snic_sim_run(sim, 100000000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x10000, 1000), 1000,
                    fake_ptr(a.h, BUF, 1000), 1000);
    /* sent once and retried twice, never delivered */
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_RETRY_EXC_ERR);
    if (sender) {
        g_assert_cmpuint(FAKE_STAT(a.h, tx_dropped), ==, 3);
        g_assert_cmpuint(FAKE_STAT(b.h, rx_too_long), ==, 0);
    } else {
        g_assert_cmpuint(FAKE_STAT(a.h, tx_dropped), ==, 0);
        g_assert_cmpuint(FAKE_STAT(b.h, rx_too_long), ==, 3);
    }
    g_assert_cmpuint(b.h->core->qps[b.qpn].resp.msn, ==, 1);
    node_pair_free(sim, &a, &b);
}

static void test_rc_over_sender_mtu(void)
{
    rc_over_port_mtu(true);
}

static void test_rc_over_receiver_mtu(void)
{
    rc_over_port_mtu(false);
}

/*
 * A datagram is bounded by the port's active MTU, which the Ethernet MTU
 * sets: 1024 bytes at 1500 (as ibv_devinfo shows), 4096 at 9000.
 */
static void test_ud_port_mtu(void)
{
    SnicSim *sim = snic_sim_new(32);
    Node a, b;
    struct snic_cqe c;

    ud_pair(sim, &a, &b, SNIC_QPT_UD, 0x1234);
    node_set_mtu(&a, 1500);
    node_post_recv(&b, 21, BUF + 0x10000, 4096 + 40);
    post_ud(&a, 1, &b, 0x1234, BUF, 1024, false);
    post_ud(&a, 2, &b, 0x1234, BUF, 1025, false);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_LEN_ERR);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 40 + 1024);
    g_assert_false(node_poll_cq(&b, &c));
    node_pair_free(sim, &a, &b);
}

static void test_gsi(void)
{
    SnicSim *sim = snic_sim_new(13);
    Node a, b;
    struct snic_cqe c;

    ud_pair(sim, &a, &b, SNIC_QPT_GSI, 0x80010000);
    g_assert_cmpuint(a.qpn, ==, 1);
    node_fill(&a, BUF, 256, 13);
    node_post_recv(&b, 31, BUF + 0x10000, 256 + 40);
    post_ud(&a, 1, &b, 0x80010000, BUF, 256, false);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT32_FROM_LE(c.src_qp), ==, 1);
    g_assert_cmpuint(GUINT32_FROM_LE(c.qpn), ==, 1);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 296);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x10000 + 40, 256), 256,
                    fake_ptr(a.h, BUF, 256), 256);
    node_pair_free(sim, &a, &b);
}

/* Post with explicit flags and SGE key (error-path tests). */
/* Two UC nodes (10.0.0.5 and .6) connected on a clean link. */
static void uc_pair(SnicSim *sim, Node *a, Node *b)
{
    node_init_type(a, sim, 5, SNIC_QPT_UC);
    node_init_type(b, sim, 6, SNIC_QPT_UC);
    snic_sim_port_connect(&a->h->port, &b->h->port, &clean);
    node_connect(a, b, SNIC_MTU_1024, 0, 0);
    node_connect(b, a, SNIC_MTU_1024, 0, 0);
}

static void post_raw(Node *n, uint64_t wr_id, uint8_t opcode, uint8_t flags,
                     uint32_t len, uint32_t imm)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = opcode;
    w.flags = flags;
    w.num_sge = 1;
    w.imm = GUINT32_TO_BE(imm);
    w.sge[0].addr = GUINT64_TO_LE(BUF);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(n->lkey);
    node_post_wqe(n, &w);
}

/*
 * A fenced WQE waits until the READ before it completes; an unfenced one
 * goes out at once. A WQE with undefined flags is refused.
 */
static void test_fence_and_flags(void)
{
    unsigned fenced;

    for (fenced = 0; fenced < 2; fenced++) {
        SnicSim *sim = snic_sim_new(44);
        Node a, b;
        struct snic_cqe c;

        node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
        node_post_recv(&b, 9, BUF + 0x10000, 100);
        node_post_send(&a, 1, SNIC_WR_RDMA_READ, BUF + 0x2000, 100, BUF,
                       b.lkey, 0, a.lkey);
        post_raw(&a, 2, SNIC_WR_SEND,
                 SNIC_WQE_SIGNALED | (fenced ? SNIC_WQE_FENCE : 0), 10, 0);
        snic_sim_run_until(sim, 1000);      /* the READ is on its way */
        g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, (fenced ? 1 : 2));
        snic_sim_run(sim, 100000);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 2);

        if (fenced) {
            post_raw(&a, 3, SNIC_WR_SEND, SNIC_WQE_SIGNALED | 0x80, 10, 0);
            snic_sim_run(sim, 100000);
            g_assert_true(node_poll_cq(&a, &c));
            g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
            g_assert_cmpuint(fake_guest_errors_matching(a.h, "undefined "
                                                        "flags 0x81"), ==, 1);
        }
        node_pair_free(sim, &a, &b);
    }
}

/*
 * CQEs name their WQE's index: an unsignaled SEND completes silently, the
 * signaled one after it reports index 1 (freeing both slots); receives
 * report theirs; after an error, every flushed WQE reports its own.
 */
static void test_cqe_wqe_index(void)
{
    SnicSim *sim = snic_sim_new(45);
    Node a, b;
    struct snic_cqe c;
    unsigned i;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    for (i = 0; i < 3; i++) {
        node_post_recv(&b, 20 + i, BUF + 0x10000 + i * 0x1000, 100);
    }
    post_raw(&a, 10, SNIC_WR_SEND, 0, 10, 0);
    post_raw(&a, 11, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 10, 0);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 11);
    g_assert_cmpuint(GUINT16_FROM_LE(c.wqe_index), ==, 1);
    g_assert_false(node_poll_cq(&a, &c));
    for (i = 0; i < 2; i++) {
        g_assert_true(node_poll_cq(&b, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 20 + i);
        g_assert_cmpuint(GUINT16_FROM_LE(c.wqe_index), ==, i);
    }

    /* a bad op-code fails WQE 2; WQE 3 behind it is flushed */
    post_raw(&a, 12, 0x7f, 0, 10, 0);
    post_raw(&a, 13, SNIC_WR_SEND, 0, 10, 0);
    snic_sim_run(sim, 100000);
    for (i = 0; i < 2; i++) {
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 12 + i);
        g_assert_cmpuint(c.status, ==, i ? SNIC_WC_WR_FLUSH_ERR :
                                           SNIC_WC_LOC_QP_OP_ERR);
        g_assert_cmpuint(GUINT16_FROM_LE(c.wqe_index), ==, 2 + i);
    }
    node_pair_free(sim, &a, &b);
}

static void test_send_imm_solicited(void)
{
    SnicSim *sim = snic_sim_new(14);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_recv(&b, 41, BUF + 0x10000, 4096);
    node_post_recv(&b, 42, BUF + 0x20000, 4096);
    /* B's CQ armed for solicited events only */
    fake_doorbell(b.h, 0, SNIC_DB_CQ_ARM_SOL, b.cqn, 0);
    post_raw(&a, 1, SNIC_WR_SEND_IMM, SNIC_WQE_SIGNALED, 3000, 0xfeedface);
    snic_sim_run(sim, 100000);
    g_assert_cmpuint(b.h->irqs[1], ==, 0);      /* not solicited: no event */
    post_raw(&a, 2, SNIC_WR_SEND, SNIC_WQE_SIGNALED | SNIC_WQE_SOLICITED,
             10, 0);
    snic_sim_run(sim, 100000);
    g_assert_cmpuint(b.h->irqs[1], ==, 1);      /* solicited: the event */
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 3000);
    g_assert_cmpuint(c.wc_flags, ==, SNIC_WC_F_IMM);
    g_assert_cmphex(GUINT32_FROM_BE(c.imm), ==, 0xfeedface);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 10);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    /* SEND Only with immediate; WRITE First/Middle/Last with immediate */
    node_post_recv(&b, 45, BUF + 0x50000, 4096);
    node_post_recv(&b, 46, BUF + 0x60000, 0);
    post_raw(&a, 11, SNIC_WR_SEND_IMM, SNIC_WQE_SIGNALED, 8, 0x11111111);
    node_post_send(&a, 12, SNIC_WR_RDMA_WRITE_IMM, BUF, 3000, BUF + 0x70000,
              b.lkey, 0x22222222, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 8);
    g_assert_cmphex(GUINT32_FROM_BE(c.imm), ==, 0x11111111);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 3000);
    g_assert_cmphex(GUINT32_FROM_BE(c.imm), ==, 0x22222222);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x70000, 3000), 3000,
                    fake_ptr(a.h, BUF, 3000), 3000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_true(node_poll_cq(&a, &c));
    /* an unsignaled success completes silently */
    node_post_recv(&b, 43, BUF + 0x30000, 4096);
    post_raw(&a, 3, SNIC_WR_SEND, 0, 10, 0);
    post_raw(&a, 4, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 0, 0);
    node_post_recv(&b, 44, BUF + 0x40000, 4096);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 4);
    g_assert_false(node_poll_cq(&a, &c));
    node_pair_free(sim, &a, &b);
}

static void test_send_inv_refused(void)
{
    SnicSim *sim = snic_sim_new(15);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_recv(&b, 51, BUF + 0x10000, 4096);
    post_raw(&a, 1, SNIC_WR_SEND_INV, SNIC_WQE_SIGNALED, 10, b.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_INV_REQ_ERR);
    node_pair_free(sim, &a, &b);

    /* SEND Last with Invalidate, after a First the responder took */
    sim = snic_sim_new(19);
    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_recv(&b, 52, BUF + 0x10000, 4096);
    post_raw(&a, 1, SNIC_WR_SEND_INV, SNIC_WQE_SIGNALED, 1500, b.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_INV_REQ_ERR);
    node_pair_free(sim, &a, &b);
}

static void test_bad_wqe_opcode(void)
{
    SnicSim *sim = snic_sim_new(16);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    post_raw(&a, 1, 0x77, SNIC_WQE_SIGNALED, 10, 0);
    post_raw(&a, 2, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 10, 0);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    /* work posted to a QP in the error state is flushed at once */
    post_raw(&a, 3, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 10, 0);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 3);
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 0);
    /* the driver's mistake is named in the guest-error log */
    g_assert_cmpuint(fake_guest_errors_matching(a.h, "QP 2 SQ WQE 0: op-code "
                                                "119 with 1 SGEs"), ==, 1);
    node_pair_free(sim, &a, &b);
}

/* A receive WQE with too many SGEs: named in the log, the QP fails. */
static void test_bad_rq_wqe(void)
{
    SnicSim *sim = snic_sim_new(19);
    Node a, b;
    struct snic_cqe c;
    struct snic_rq_wqe w;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_recv(&b, 5, BUF, 100);
    fake_read(b.h, RQ_RING, &w, sizeof(w));
    w.num_sge = 200;
    fake_write(b.h, RQ_RING, &w, sizeof(w));
    node_post_send(&a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 5);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(fake_guest_errors_matching(b.h, "QP 2 RQ WQE 0: 200 "
                                                "SGEs"), >=, 1);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, !=, SNIC_WC_SUCCESS);
    node_pair_free(sim, &a, &b);
}

/* Receive-side failures: the receiver's CQE and the sender's NAK status. */
static void test_receive_errors(void)
{
    SnicSim *sim = snic_sim_new(17);
    Node a, b;
    struct snic_cqe c;

    /* a receive buffer too small: LOC_LEN_ERR there, REM_INV_REQ here */
    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_recv(&b, 61, BUF + 0x10000, 100);
    post_raw(&a, 1, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 3000, 0);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_LEN_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_INV_REQ_ERR);
    node_pair_free(sim, &a, &b);

    /* a receive WQE with a bad key: LOC_PROT_ERR there, REM_OP here */
    sim = snic_sim_new(18);
    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    b.lkey ^= 0x80;
    node_post_recv(&b, 62, BUF + 0x10000, 4096);
    post_raw(&a, 1, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 10, 0);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_OP_ERR);
    node_pair_free(sim, &a, &b);
}

/* Op-codes of every RoCEv2 frame in a pcap written by the simulator. */
static void pcap_opcodes(const char *path, bool seen[256])
{
    g_autofree char *data = NULL;
    gsize len, off = 24;

    g_assert_true(g_file_get_contents(path, &data, &len, NULL));
    while (off + 16 <= len) {
        uint32_t cap;
        SnicPkt p;

        memcpy(&cap, data + off + 8, 4);
        off += 16;
        g_assert_cmpuint(off + cap, <=, len);
        g_assert_cmpint(snic_wire_parse((uint8_t *)data + off, cap, &p), ==,
                        SNIC_PARSE_OK);
        seen[p.opcode] = true;
        off += cap;
    }
}

/*
 * Every data-path op-code of the table goes over the wire in one run:
 * all RC SEND/WRITE/READ/atomic forms, the responses, SEND with
 * Invalidate (refused) and UD SEND (+imm).
 */
/* Two connectionless endpoints: a registered and a non-registered WRITE */
static void cl_ops(SnicSim *sim, Node *a, Node *b)
{
    struct snic_admin_cmd cmd;
    struct snic_sq_wqe w;
    struct snic_cqe c;
    unsigned i;

    node_init_type(a, sim, 1, SNIC_QPT_UD);
    node_init_type(b, sim, 2, SNIC_QPT_UD);
    snic_sim_port_connect(&a->h->port, &b->h->port, &clean);
    for (i = 0; i < 2; i++) {
        Node *n = i ? b : a;

        snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_CL,
                            sizeof(cmd.set_qp_cl));
        cmd.set_qp_cl.qpn = GUINT32_TO_LE(n->qpn);
        node_admin_ok(n->h, &cmd);
        node_ud_up(n, 1, false);
    }
    for (i = 0; i < 2; i++) {
        memset(&w, 0, sizeof(w));
        w.wr_id = GUINT64_TO_LE(i);
        w.opcode = SNIC_WR_CL_WRITE;
        w.flags = SNIC_WQE_SIGNALED | (i ? SNIC_WQE_CL_UNREGISTERED : 0);
        w.num_sge = 1;
        node_av(&w.cl.av, 1, b->h, 2);
        w.cl.remote_addr = GUINT64_TO_LE(BUF);
        w.cl.remote_ep = GUINT32_TO_LE(b->qpn);
        w.cl.rkey = GUINT32_TO_LE(b->lkey);
        w.sge[0].addr = GUINT64_TO_LE(BUF);
        w.sge[0].length = GUINT32_TO_LE(2000);
        w.sge[0].lkey = GUINT32_TO_LE(a->lkey);
        node_post_wqe(a, &w);
    }
    snic_sim_run(sim, 1000000);
    for (i = 0; i < 2; i++) {
        g_assert_true(node_poll_cq(a, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_true(node_poll_cq(b, &c));
        g_assert_cmpuint(c.opcode, ==, SNIC_WC_CL_RECV);
    }
}

static void test_every_opcode(void)
{
    g_autofree char *dir = g_dir_make_tmp("snic-ops-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "all.pcap", NULL);
    SnicSim *sim = snic_sim_new(20);
    bool seen[256] = { false };
    Node a, b, c2, d, e, f, u, v, g, k;
    struct snic_cqe c;
    unsigned op, missing = 0;

    g_assert_cmpint(snic_sim_capture(sim, path), ==, 0);
    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_fill(&a, BUF, 8192, 20);
    node_fill(&b, BUF, 8192, 21);
    node_post_recv(&b, 1, BUF + 0x10000, 4096);
    node_post_recv(&b, 2, BUF + 0x20000, 4096);
    node_post_recv(&b, 3, BUF + 0x30000, 4096);
    node_post_recv(&b, 4, BUF + 0x40000, 4096);
    node_post_recv(&b, 5, BUF + 0x50000, 4096);
    node_post_recv(&b, 6, BUF + 0x58000, 4096);     /* one per consumer */
    post_raw(&a, 1, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 3000, 0);
    post_raw(&a, 2, SNIC_WR_SEND_IMM, SNIC_WQE_SIGNALED, 3000, 1);
    post_raw(&a, 3, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 10, 0);
    post_raw(&a, 4, SNIC_WR_SEND_IMM, SNIC_WQE_SIGNALED, 10, 2);
    node_post_send(&a, 5, SNIC_WR_RDMA_WRITE, BUF, 3000, BUF + 0x60000, b.lkey,
              0, a.lkey);
    node_post_send(&a, 6, SNIC_WR_RDMA_WRITE_IMM, BUF, 3000, BUF + 0x60000,
              b.lkey, 3, a.lkey);
    node_post_send(&a, 7, SNIC_WR_RDMA_WRITE, BUF, 10, BUF + 0x60000, b.lkey, 0,
              a.lkey);
    node_post_send(&a, 8, SNIC_WR_RDMA_READ, BUF + 0x70000, 3000, BUF, b.lkey,
              0, a.lkey);
    node_post_send(&a, 9, SNIC_WR_RDMA_READ, BUF + 0x70000, 10, BUF, b.lkey,
              0, a.lkey);
    node_post_atomic(&a, 10, SNIC_WR_ATOMIC_CMP_SWAP, BUF + 0x78000, BUF + 0x100,
                b.lkey, 0, 1);
    node_post_atomic(&a, 11, SNIC_WR_ATOMIC_FETCH_ADD, BUF + 0x78008, BUF + 0x100,
                b.lkey, 1, 0);
    node_post_send(&a, 12, SNIC_WR_RDMA_WRITE_IMM, BUF, 10, BUF + 0x60000,
              b.lkey, 4, a.lkey);
    g_assert_cmpuint(snic_sim_run(sim, 1000000), <, 1000000);
    for (op = 0; op < 12; op++) {
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    /* SEND with Invalidate: Last (after a First) and Only, both refused */
    node_pair_new(sim, &c2, &d, &clean, SNIC_MTU_1024, 7, 7);
    node_post_recv(&d, 1, BUF, 4096);
    post_raw(&c2, 1, SNIC_WR_SEND_INV, SNIC_WQE_SIGNALED, 1500, 5);
    post_raw(&c2, 2, SNIC_WR_SEND_INV, SNIC_WQE_SIGNALED, 10, 5);
    snic_sim_run(sim, 1000000);
    fake_host_free(c2.h);
    fake_host_free(d.h);
    node_pair_new(sim, &c2, &d, &clean, SNIC_MTU_1024, 7, 7);
    node_post_recv(&d, 1, BUF, 4096);
    post_raw(&c2, 1, SNIC_WR_SEND_INV, SNIC_WQE_SIGNALED, 10, 5);
    snic_sim_run(sim, 1000000);
    /* UC: every SEND and WRITE op-code */
    uc_pair(sim, &e, &f);
    for (op = 0; op < 4; op++) {
        node_post_recv(&f, op, BUF + op * 0x10000, 4096);
    }
    post_raw(&e, 1, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 3000, 0);
    post_raw(&e, 2, SNIC_WR_SEND_IMM, SNIC_WQE_SIGNALED, 3000, 1);
    post_raw(&e, 3, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 10, 0);
    post_raw(&e, 4, SNIC_WR_SEND_IMM, SNIC_WQE_SIGNALED, 10, 2);
    node_post_send(&e, 5, SNIC_WR_RDMA_WRITE, BUF, 3000, BUF + 0x60000,
                   f.lkey, 0, e.lkey);
    node_post_send(&e, 6, SNIC_WR_RDMA_WRITE_IMM, BUF, 3000, BUF + 0x60000,
                   f.lkey, 3, e.lkey);
    node_post_send(&e, 7, SNIC_WR_RDMA_WRITE, BUF, 10, BUF + 0x60000, f.lkey,
                   0, e.lkey);
    node_post_send(&e, 8, SNIC_WR_RDMA_WRITE_IMM, BUF, 10, BUF + 0x60000,
                   f.lkey, 4, e.lkey);
    snic_sim_run(sim, 1000000);
    /* UD */
    ud_pair(sim, &u, &v, SNIC_QPT_UD, 7);
    node_post_recv(&v, 1, BUF, 4096);
    node_post_recv(&v, 2, BUF + 0x10000, 4096);
    post_ud(&u, 1, &v, 7, BUF, 100, false);
    post_ud(&u, 2, &v, 7, BUF, 100, true);
    snic_sim_run(sim, 1000000);
    /* the connectionless transport: a registered WRITE, a NOTIFYed one */
    cl_ops(sim, &g, &k);
    snic_sim_free(sim);     /* closes the capture */

    pcap_opcodes(path, seen);
    for (op = 0; op < 256; op++) {
        const struct snic_opcode_info *info = snic_opcode_info(op);

        /* StRoM extensions are never sent unnegotiated; CNP needs CC */
        if (!info || info->flags & SNIC_OPF_EXT || op == SNIC_OP_CNP) {
            continue;
        }
        if (!seen[op]) {
            g_test_message("op-code 0x%02x (%s) never went out", op,
                           info->name);
            missing++;
        }
    }
    g_assert_cmpuint(missing, ==, 0);
    g_unlink(path);
    g_rmdir(dir);
    fake_host_free(a.h);
    fake_host_free(b.h);
    fake_host_free(c2.h);
    fake_host_free(d.h);
    fake_host_free(e.h);
    fake_host_free(f.h);
    fake_host_free(u.h);
    fake_host_free(v.h);
    fake_host_free(g.h);
    fake_host_free(k.h);
}

/* ---- regressions from a review of hostile input ---- */

/* A WQE rewritten by the guest while in flight is refused, not trusted. */
static void test_wqe_rewritten_in_flight(void)
{
    SnicSimLinkConfig lossy = clean;
    SnicSim *sim = snic_sim_new(21);
    Node a, b;
    struct snic_cqe c;
    struct snic_sq_wqe w;
    uint64_t slot = SQ_RING;

    lossy.loss = 0.3;       /* so segments are sent again */
    node_pair_new(sim, &a, &b, &lossy, SNIC_MTU_1024, 7, 7);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 65536, BUF, b.lkey, 0, a.lkey);
    snic_sim_run_until(sim, 3000);
    fake_read(a.h, slot, &w, sizeof(w));
    w.num_sge = 255;
    fake_write(a.h, slot, &w, sizeof(w));
    snic_sim_run(sim, 1000000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
    node_pair_free(sim, &a, &b);
}

/*
 * Rewrite WQE 'slot' of a's SQ in place: its first SGE's length (0: kept)
 * and its op-code, as a guest may while the device is sending it.
 */
static void rewrite_wqe(Node *a, unsigned slot, uint32_t len, uint8_t opcode)
{
    uint64_t at = a->sq_ring + (uint64_t)slot * SNIC_SQ_WQE_SIZE;
    struct snic_sq_wqe w;

    fake_read(a->h, at, &w, sizeof(w));
    if (len) {
        w.sge[0].length = GUINT32_TO_LE(len);
    }
    w.opcode = opcode;
    fake_write(a->h, at, &w, sizeof(w));
}

/* What the requester counts stays within what it may have in flight. */
static void assert_req_consistent(Node *a)
{
    SnicQp *qp = &a->h->core->qps[a->qpn];

    g_assert_cmpuint(qp->req.rd_atomic, <=, qp->attr.max_rd_atomic);
    g_assert_cmpint(snic_psn_cmp(qp->req.next_psn, qp->req.dde.wnd_start),
                    >=, 0);
    g_assert_cmpuint(qp->req.dde.sent, <=,
                     (qp->req.next_psn - qp->req.dde.wnd_start) &
                     SNIC_PSN_MASK);
}

/*
 * An RC READ sent in chunks is read again from host memory for each one:
 * rewritten shorter than what already went out, or as another op-code,
 * it fails with a local QP operation error (as UC's does), with the
 * requester's counters intact, and the QP serves the next connection.
 */
static void test_rc_wqe_shrunk_in_flight(void)
{
    static const struct {
        uint32_t len;           /* the READ rewritten to (0: its length) */
        uint8_t opcode;
    } cases[] = {
        { 1000, SNIC_WR_RDMA_READ },            /* 1 PSN, 64 went out */
        { 0, SNIC_WR_RDMA_WRITE },              /* the rest as a WRITE */
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        SnicSim *sim = snic_sim_new(31);
        Node a, b;
        struct snic_cqe c;
        SnicQp *qp;

        node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
        qp = &a.h->core->qps[a.qpn];
        /* 4 chunks of 64 PSNs: the second waits for the first's responses */
        node_post_send(&a, 1, SNIC_WR_RDMA_READ, BUF + 0x200000, 256 << 10,
                       BUF, b.lkey, 0, a.lkey);
        snic_sim_run_until(sim, 3000);
        g_assert_cmpuint(qp->req.wqe_off, ==, SNIC_READ_CHUNK);
        rewrite_wqe(&a, 0, cases[i].len, cases[i].opcode);
        /* another WQE's doorbell: the requester looks at the READ again */
        node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                       a.lkey);
        snic_sim_run_until(sim, 2000000);       /* the whole READ's time */
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
        g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
        g_assert_false(node_poll_cq(&a, &c));
        g_assert_cmpuint(qp->state, ==, SNIC_QPS_ERR);
        assert_req_consistent(&a);
        node_pair_free(sim, &a, &b);
    }
}

/*
 * A SEND sent whole and rewritten as a READ before its ACK: completing it
 * as a READ would take a READ back from a count of none (it wraps, and no
 * READ could start again); the WQE fails instead. A READ rewritten as a
 * SEND the same way no longer matches its response: a bad response.
 */
static void test_rc_wqe_opcode_changed(void)
{
    static const uint8_t from[] = { SNIC_WR_SEND, SNIC_WR_RDMA_READ };
    static const uint8_t to[] = { SNIC_WR_RDMA_READ, SNIC_WR_SEND };
    static const uint8_t status[] = {
        SNIC_WC_LOC_QP_OP_ERR, SNIC_WC_BAD_RESP_ERR,
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(from); i++) {
        SnicSim *sim = snic_sim_new(32);
        Node a, b;
        struct snic_cqe c;
        SnicQp *qp;

        node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
        qp = &a.h->core->qps[a.qpn];
        node_post_recv(&b, 0xb1, BUF + 0x10000, 4096);
        node_post_send(&a, 1, from[i], BUF + 0x200000, 100, BUF, b.lkey, 0,
                       a.lkey);
        snic_sim_run_until(sim, 1000);              /* sent, not answered */
        g_assert_cmpuint(qp->req.sq_head, ==, 1);
        rewrite_wqe(&a, 0, 0, to[i]);
        snic_sim_run(sim, 10000000);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
        g_assert_cmpuint(c.status, ==, status[i]);
        g_assert_cmpuint(qp->state, ==, SNIC_QPS_ERR);
        assert_req_consistent(&a);
        node_pair_free(sim, &a, &b);
    }
}

/*
 * A READ response implicitly acknowledges WQEs that were waiting for the
 * one before it to fail locally: the QP fails there, and the response's
 * bytes must not land in the READ's (flushed) buffer.
 */
static void test_response_after_local_error(void)
{
    SnicSimLinkConfig dead = clean;
    SnicSim *sim;
    Node a, b;
    SnicQp *qp;
    struct snic_cqe c;
    struct snic_sq_wqe w;
    uint8_t frame[2048], payload[100];
    uint32_t read_psn;
    SnicPkt p;
    size_t len;

    dead.loss = 1.0;
    sim = snic_sim_new(42);
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    qp = &a.h->core->qps[a.qpn];
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                   a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                   a.lkey);
    node_post_send(&a, 3, SNIC_WR_RDMA_READ, BUF + 0x1000, 100, BUF, b.lkey,
                   0, a.lkey);
    snic_sim_run_until(sim, 100000);            /* sent, and lost */
    /* one PSN per WQE, none completed: the READ is the third */
    read_psn = (qp->req.comp_psn + 2) & SNIC_PSN_MASK;
    /* WQE 2's key goes bad: its retransmission fails locally */
    fake_read(a.h, SQ_RING + SNIC_SQ_WQE_SIZE, &w, sizeof(w));
    w.sge[0].lkey ^= 1;
    fake_write(a.h, SQ_RING + SNIC_SQ_WQE_SIZE, &w, sizeof(w));
    snic_sim_run_until(sim, 1600000);           /* one timeout */
    g_assert_true(qp->req.local_err);
    g_assert_cmpuint(qp->state, ==, SNIC_QPS_RTS);

    /* b's READ response arrives, acknowledging WQEs 1 and 2 with it */
    memset(&p, 0, sizeof(p));
    memset(payload, 0xee, sizeof(payload));
    snic_rdma_fill_addr(b.h->core, &b.h->core->qps[b.qpn], &p);
    p.opcode = SNIC_OP_RC_READ_RESP_ONLY;
    p.psn = read_psn;
    p.aeth.msn = 3;
    p.payload = payload;
    p.payload_len = sizeof(payload);
    len = snic_wire_build(&p, frame, sizeof(frame));
    g_assert_cmpuint(len, >, 0);
    node_inject(&a, frame, len);

    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 3);
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(qp->state, ==, SNIC_QPS_ERR);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(a.h, BUF + 0x1000, 1), !=, 0xee);
    node_pair_free(sim, &a, &b);
}

/*
 * A fatal NAK for a WRITE behind a READ whose response was lost: the
 * WRITE gets the error, the READ is flushed.
 */
static void test_fatal_nak_names_its_wqe(void)
{
    SnicSimLinkConfig dead = clean;
    SnicSim *sim;
    Node a, b;
    struct snic_cqe c;
    uint8_t frame[256];
    SnicPkt p;
    size_t len;

    dead.loss = 1.0;
    sim = snic_sim_new(43);
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    node_post_send(&a, 1, SNIC_WR_RDMA_READ, BUF, 100, BUF, b.lkey, 0,
                   a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey ^ 4, 0,
                   a.lkey);
    snic_sim_run_until(sim, 100000);            /* sent, and lost */

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(b.h->core, &b.h->core->qps[b.qpn], &p);
    p.opcode = SNIC_OP_RC_ACK;
    p.psn = (a.h->core->qps[a.qpn].req.comp_psn + 1) & SNIC_PSN_MASK;
    p.aeth.syndrome = SNIC_AETH_NAK_REM_ACCESS;
    len = snic_wire_build(&p, frame, sizeof(frame));
    g_assert_cmpuint(len, >, 0);
    node_inject(&a, frame, len);

    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/*
 * A READ response behind a READ whose response was lost still
 * acknowledges the WRITE before the lost one: only the lost READ and
 * what follows it are sent again.
 */
static void test_response_acks_up_to_lost_read(void)
{
    SnicSimLinkConfig dead = clean;
    SnicSim *sim;
    Node a, b;
    SnicQp *qp;
    struct snic_cqe c;
    uint8_t frame[512], payload[100] = { 0 };
    uint32_t first;
    SnicPkt p;
    size_t len;

    dead.loss = 1.0;
    sim = snic_sim_new(45);
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    qp = &a.h->core->qps[a.qpn];
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                   a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_READ, BUF + 0x1000, 100, BUF, b.lkey,
                   0, a.lkey);
    node_post_send(&a, 3, SNIC_WR_RDMA_READ, BUF + 0x2000, 100, BUF, b.lkey,
                   0, a.lkey);
    snic_sim_run_until(sim, 100000);            /* sent, and lost */

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(b.h->core, &b.h->core->qps[b.qpn], &p);
    p.opcode = SNIC_OP_RC_READ_RESP_ONLY;
    first = qp->req.comp_psn;                   /* one PSN per WQE */
    p.psn = (first + 2) & SNIC_PSN_MASK;        /* READ 3's response */
    p.payload = payload;
    p.payload_len = sizeof(payload);
    len = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&a, frame, len);

    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_false(node_poll_cq(&a, &c));
    g_assert_cmpuint(qp->req.dde.wnd_start, ==, (first + 1) & SNIC_PSN_MASK);
    node_pair_free(sim, &a, &b);
}

/* A fatal NAK is not replaced by what arrives before it is sent. */
static void test_fatal_nak_kept(void)
{
    SnicSimLinkConfig instant = { 0 };
    SnicSim *sim = snic_sim_new(22);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &instant, SNIC_MTU_1024, 2, 7);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey ^ 4, 0,
              a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_ACCESS_ERR);
    /* the second WRITE never ran at the responder */
    g_assert_cmpuint(b.h->core->qps[b.qpn].resp.msn, ==, 0);
    node_pair_free(sim, &a, &b);
}

/*
 * A READ response acknowledges the WRITE before it: no retransmission.
 * (Both requests arrive at once, so the responder answers the READ before
 * it sends the ACK for the WRITE.)
 */
static void test_read_response_acks_before(void)
{
    SnicSimLinkConfig instant = { 0 };
    SnicSim *sim = snic_sim_new(23);
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &instant, SNIC_MTU_1024, 7, 7);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF + 0x1000, b.lkey, 0,
              a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_READ, BUF + 0x2000, 100, BUF, b.lkey, 0,
              a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 2);
    g_assert_cmpuint(a.h->core->qps[a.qpn].req.retry_left, ==, 7);
    node_pair_free(sim, &a, &b);
}

/* Waiting out a long RNR delay is not a transport timeout. */
static void test_rnr_wait_is_not_timeout(void)
{
    SnicSim *sim = snic_sim_new(24);
    struct snic_qp_attr at;
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 2, 7);
    /* B asks for 655 ms between retries; A's local timeout is ~1 ms */
    memset(&at, 0, sizeof(at));
    at.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    at.min_rnr_timer = 0;
    node_modify(&b, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_MIN_RNR_TIMER, &at);
    node_post_send(&a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, a.lkey);
    snic_sim_run_until(sim, 100000000);         /* 100 ms */
    g_assert_false(node_poll_cq(&a, &c));
    node_post_recv(&b, 1, BUF + 0x1000, 100);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(snic_sim_now(sim), >=, 655360000);
    node_pair_free(sim, &a, &b);
}

/*
 * Work posted while an RNR wait is pending waits with it: nothing is sent,
 * no retransmission timer runs, so rnr_retry = 7 never ends in RETRY_EXC
 * (IBA 9.7.5.2.8: the RNR timer, not the local ACK timeout, governs).
 */
static void test_rnr_wait_holds_new_work(void)
{
    SnicSim *sim = snic_sim_new(25);
    struct snic_qp_attr at;
    uint64_t tx;
    Node a, b;
    struct snic_cqe c;
    unsigned i;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 2, 7);
    memset(&at, 0, sizeof(at));
    at.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    at.min_rnr_timer = 0;                       /* 655 ms */
    node_modify(&b, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_MIN_RNR_TIMER, &at);
    node_post_send(&a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, a.lkey);
    snic_sim_run_until(sim, 100000);            /* the RNR NAK is back */
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RNR_WAIT], ==, 1);
    tx = FAKE_STAT(a.h, rdma_tx_packets);
    for (i = 2; i <= 4; i++) {
        node_post_send(&a, i, SNIC_WR_SEND, BUF, 10, 0, 0, 0, a.lkey);
    }
    snic_sim_run_until(sim, 100000000);         /* 100 ms, local timeout 1 */
    g_assert_false(node_poll_cq(&a, &c));
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, tx);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_TIMEOUT], ==, 0);
    for (i = 1; i <= 4; i++) {
        node_post_recv(&b, i, BUF + 0x1000 * i, 100);
    }
    snic_sim_run(sim, 1000000);
    for (i = 1; i <= 4; i++) {
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    node_pair_free(sim, &a, &b);
}

/* A request from node 'from' to node 'to', straight into to's device. */
static void inject_write(Node *from, Node *to, uint32_t psn)
{
    static uint8_t payload[64];
    uint8_t frame[512];
    SnicPkt p;
    size_t len;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(from->h->core, &from->h->core->qps[from->qpn], &p);
    p.opcode = SNIC_OP_RC_WRITE_ONLY;
    p.psn = psn & SNIC_PSN_MASK;
    p.ackreq = true;
    p.reth.va = BUF;
    p.reth.rkey = to->lkey;
    p.reth.len = sizeof(payload);
    p.payload = payload;
    p.payload_len = sizeof(payload);
    len = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(to, frame, len);
}

/*
 * A duplicate that arrives while a sequence NAK waits to go out is
 * acknowledged, but does not cancel the NAK: the gap is reported at once,
 * not left to the requester's timeout.
 */
static void test_duplicate_keeps_nak(void)
{
    SnicSimLinkConfig dead = clean;
    SnicSim *sim = snic_sim_new(26);
    uint32_t epsn;
    Node a, b;

    dead.loss = 1.0;        /* a only lends its addresses */
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    epsn = b.h->core->qps[b.qpn].resp.epsn;
    inject_write(&a, &b, epsn);                 /* in order: ACKed */
    fake_run(b.h);
    inject_write(&a, &b, epsn + 2);             /* epsn + 1 was lost */
    inject_write(&a, &b, epsn);                 /* a duplicate */
    fake_run(b.h);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_NAK_SENT], ==, 1);
    g_assert_cmphex(b.h->event_args[SNIC_TRACE_NAK_SENT][1], ==,
                    (epsn + 1) & SNIC_PSN_MASK);
    g_assert_cmphex(b.h->event_args[SNIC_TRACE_NAK_SENT][2], ==,
                    SNIC_AETH_NAK_SEQ);
    node_pair_free(sim, &a, &b);
}

/* A READ request from 'from' to 'to' for [va, va + len) of rkey. */
static void inject_read(Node *from, Node *to, uint32_t psn, uint64_t va,
                        uint32_t rkey, uint32_t len)
{
    uint8_t frame[256];
    SnicPkt p;
    size_t flen;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(from->h->core, &from->h->core->qps[from->qpn], &p);
    p.opcode = SNIC_OP_RC_READ_REQUEST;
    p.psn = psn & SNIC_PSN_MASK;
    p.ackreq = true;
    p.reth.va = va;
    p.reth.rkey = rkey;
    p.reth.len = len;
    flen = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(to, frame, flen);
}

/*
 * The largest READ IBA allows (2^31 bytes) at the smallest path MTU spans
 * 2^23 PSNs, half the PSN space: a duplicate of any of its PSNs must still
 * replay it from there, not be taken for an unknown old request.
 */
static void test_read_half_psn_space(void)
{
    const uint64_t iova = 1ull << 32, pbl = FAKE_MEM_BASE + 0x60000;
    const uint32_t npages = 1024;               /* 1024 x 2 MiB = 2 GiB */
    SnicSimLinkConfig dead = clean;
    SnicSim *sim = snic_sim_new(27);
    struct snic_admin_cmd cmd;
    const SnicResp *res;
    struct snic_rdb_entry e;
    uint32_t epsn, rkey, i;
    Node a, b;

    dead.loss = 1.0;
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_256, 7, 7);
    for (i = 0; i < npages; i++) {
        node_wr64(&b, pbl + 8 * i, FAKE_MEM_BASE + 0x400000);  /* aliased */
    }
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(iova);
    cmd.reg_mr.length = GUINT64_TO_LE(1ull << 31);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(pbl);
    cmd.reg_mr.npages = GUINT32_TO_LE(npages);
    cmd.reg_mr.pdn = GUINT32_TO_LE(b.pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_READ);
    cmd.reg_mr.page_shift = SNIC_PAGE_SHIFT_2M;
    cmd.reg_mr.key = 0x44;
    rkey = node_admin_ok(b.h, &cmd);

    epsn = b.h->core->qps[b.qpn].resp.epsn;
    inject_read(&a, &b, epsn, iova, rkey, 1u << 31);
    /* its entry is in the RDB; it answers 2^23 PSNs */
    res = &b.h->core->qps[b.qpn].resp;
    g_assert_cmpuint(res->rdb_count, ==, 1);
    memcpy(&e, fake_ptr(b.h, b.rdb, sizeof(e)), sizeof(e));
    g_assert_cmpuint(e.kind, ==, SNIC_RDB_READ);
    g_assert_cmpuint(GUINT32_FROM_LE(e.first_psn), ==, epsn);
    g_assert_cmpuint(GUINT32_FROM_LE(e.len), ==, 1u << 31);
    g_assert_cmpuint((b.h->core->qps[b.qpn].resp.epsn - epsn) & SNIC_PSN_MASK,
                     ==, 1u << 23);
    /* a retry of the READ from its 6th response on */
    inject_read(&a, &b, epsn + 5, iova + 5 * 256, rkey, (1u << 31) - 5 * 256);
    g_assert_cmpuint(res->act.next, ==, 5);
    /* and from its last one */
    inject_read(&a, &b, epsn + (1u << 23) - 1, iova + (1ull << 31) - 256,
                rkey, 256);
    g_assert_cmpuint(res->act.next, ==, (1u << 23) - 1);
    node_pair_free(sim, &a, &b);
}

/* A FETCH_ADD request from 'from' to 'to' adding 'add' at va of rkey. */
static void inject_fetch_add(Node *from, Node *to, uint32_t psn,
                             uint64_t va, uint32_t rkey, uint64_t add)
{
    uint8_t frame[256];
    SnicPkt p;
    size_t flen;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(from->h->core, &from->h->core->qps[from->qpn], &p);
    p.opcode = SNIC_OP_RC_FETCH_ADD;
    p.psn = psn & SNIC_PSN_MASK;
    p.ackreq = true;
    p.atomic.va = va;
    p.atomic.rkey = rkey;
    p.atomic.swap_add = add;
    flen = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(to, frame, flen);
}

/*
 * The RDB is the guest's memory: an entry it rewrote before the device
 * read it back is refused (guest error, NAK remote operational error, the
 * QP in error), and the device goes on serving the node's other QP.
 */
static void test_rdb_entry_rewritten(void)
{
    SnicSim *sim = snic_sim_new(31);
    SnicSimLinkConfig dead = clean;
    struct snic_rdb_entry e;
    uint32_t epsn;
    Node a, b, a2, b2;

    dead.loss = 1.0;        /* a's requester never sees the answers */
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    epsn = b.h->core->qps[b.qpn].resp.epsn;
    inject_read(&a, &b, epsn, BUF, b.lkey, 100);
    inject_read(&a, &b, epsn + 1, BUF + 100, b.lkey, 100);
    g_assert_cmpuint(b.h->core->qps[b.qpn].resp.rdb_count, ==, 2);
    /* both went to the RDB; the second is read back when its turn comes */
    memcpy(&e, fake_ptr(b.h, b.rdb + sizeof(e), sizeof(e)), sizeof(e));
    g_assert_cmpuint(e.kind, ==, SNIC_RDB_READ);
    g_assert_cmpuint(GUINT32_FROM_LE(e.first_psn), ==,
                     (epsn + 1) & SNIC_PSN_MASK);
    e.kind = 0x7f;
    fake_write(b.h, b.rdb + sizeof(e), &e, sizeof(e));
    snic_sim_run(sim, 1000000);
    g_assert_cmpuint(fake_guest_errors_matching(b.h, "responder database"),
                     ==, 1);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_NAK_SENT], ==, 1);
    g_assert_cmpuint(b.h->event_args[SNIC_TRACE_NAK_SENT][2], ==,
                     SNIC_AETH_NAK_REM_OP);
    node_pair_free(sim, &a, &b);

    /* the same device serves its other QPs: a clean pair on one device */
    sim = snic_sim_new(32);
    node_pair_new(sim, &a2, &b2, &clean, SNIC_MTU_1024, 7, 7);
    node_fill(&b2, BUF, 100, 9);
    node_post_send(&a2, 5, SNIC_WR_RDMA_READ, BUF + 0x1000, 100, BUF,
                   b2.lkey, 0, a2.lkey);
    snic_sim_run(sim, 1000000);
    g_assert_cmpmem(fake_ptr(a2.h, BUF + 0x1000, 100), 100,
                    fake_ptr(b2.h, BUF, 100), 100);
    node_pair_free(sim, &a2, &b2);
}

/*
 * A duplicate of a READ answered long ago (its entry no longer pending) is
 * matched in the RDB and answered again, with what followed it, from the
 * PSN asked; a READ it did not answer (another R_Key) only re-ACKed. An
 * atomic's duplicate gets the original value kept in the RDB, and is not
 * executed again.
 */
static void test_rdb_replay(void)
{
    SnicSim *sim = snic_sim_new(33);
    uint32_t epsn;
    const SnicResp *res;
    Node a, b;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    res = &b.h->core->qps[b.qpn].resp;
    epsn = res->epsn;
    inject_read(&a, &b, epsn, BUF, b.lkey, 3000);        /* 3 PSNs */
    inject_read(&a, &b, epsn + 3, BUF, b.lkey, 100);     /* 1 PSN */
    snic_sim_run(sim, 1000000);
    g_assert_cmpuint(res->rdb_count, ==, 0);             /* all answered */
    /* the first again from its 2nd response: 2 + 1 more responses */
    inject_read(&a, &b, epsn + 1, BUF + 1024, b.lkey, 3000 - 1024);
    g_assert_cmpuint(res->rdb_count, ==, 2);
    g_assert_cmpuint(res->act.first_psn, ==, epsn & SNIC_PSN_MASK);
    g_assert_cmpuint(res->act.next, ==, 1);
    snic_sim_run(sim, 1000000);
    g_assert_cmpuint(res->rdb_count, ==, 0);
    inject_read(&a, &b, epsn + 1, BUF + 1024, b.lkey + 1, 3000 - 1024);
    g_assert_cmpuint(res->rdb_count, ==, 0);

    node_wr64(&b, BUF + 4096, 5);
    inject_fetch_add(&a, &b, epsn + 4, BUF + 4096, b.lkey, 3);
    snic_sim_run(sim, 1000000);
    g_assert_cmpuint(node_rd64(&b, BUF + 4096), ==, 8);
    inject_fetch_add(&a, &b, epsn + 4, BUF + 4096, b.lkey, 3);
    g_assert_cmpuint(res->rdb_count, ==, 1);
    g_assert_true(res->act_atomic);
    g_assert_cmpuint(res->act.va, ==, 5);
    snic_sim_run(sim, 1000000);
    g_assert_cmpuint(node_rd64(&b, BUF + 4096), ==, 8);
    node_pair_free(sim, &a, &b);
}

/* The next async event of a node's device; fails if there is none. */
static struct snic_aeqe next_event(Node *n)
{
    struct snic_aeqe e;

    g_assert_true(fake_aeq_poll(n->h, &e));
    return e;
}

/*
 * A responder error reaches the responder's consumer as the affiliated
 * async event IBA names for it (the requester gets an error completion).
 */
static void test_responder_error_events(void)
{
    static const struct {
        uint8_t opcode;
        bool bad_rkey;
        uint32_t event;
    } cases[] = {
        { SNIC_WR_RDMA_WRITE, true, SNIC_EVENT_QP_ACCESS_ERR },
        { SNIC_WR_SEND_INV, false, SNIC_EVENT_QP_REQ_ERR },
    };
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        SnicSim *sim = snic_sim_new(28 + i);
        struct snic_aeqe e;
        struct snic_cqe c;
        Node a, b;

        node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
        /* SEND_INV: of R_Key 0, no window (a receive WQE takes it) */
        node_post_recv(&b, 9, BUF + 0x10000, 4096);
        node_post_send(&a, 1, cases[i].opcode, BUF, 100, BUF,
                       b.lkey ^ (cases[i].bad_rkey ? 4 : 0), 0, a.lkey);
        snic_sim_run(sim, 100000);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(c.status, !=, SNIC_WC_SUCCESS);
        e = next_event(&b);
        g_assert_cmpuint(GUINT32_FROM_LE(e.event), ==, cases[i].event);
        g_assert_cmpuint(GUINT64_FROM_LE(e.data), ==, b.qpn);
        g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
        g_assert_false(fake_aeq_poll(a.h, &e));
        node_pair_free(sim, &a, &b);
    }
}

/*
 * A completion that cannot be posted because its CQ overran puts the QP in
 * the error state with a QP_FATAL event (after the CQ's own CQ_ERROR), and
 * nothing is acknowledged for the message whose completion was lost.
 */
static void test_cq_overrun_fails_qp(void)
{
    SnicSim *sim = snic_sim_new(30);
    struct snic_cqe cqe = { 0 }, c;
    struct snic_aeqe e;
    Node a, b;
    unsigned i;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 1, 7);
    for (i = 0; i < 1u << CQ_LOG2; i++) {     /* the consumer fell behind */
        g_assert_cmpint(snic_cq_post(b.h->core, b.cqn, &cqe, false), ==, 0);
    }
    node_post_recv(&b, 1, BUF, 100);
    node_post_send(&a, 1, SNIC_WR_SEND, BUF, 10, 0, 0, 0, a.lkey);
    snic_sim_run(sim, 100000);
    e = next_event(&b);
    g_assert_cmpuint(GUINT32_FROM_LE(e.event), ==, SNIC_EVENT_CQ_ERROR);
    g_assert_cmpuint(GUINT64_FROM_LE(e.data), ==, b.cqn);
    e = next_event(&b);
    g_assert_cmpuint(GUINT32_FROM_LE(e.event), ==, SNIC_EVENT_QP_FATAL);
    g_assert_cmpuint(GUINT64_FROM_LE(e.data), ==, b.qpn);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
    /* never acknowledged: the sender gives up */
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_RETRY_EXC_ERR);
    node_pair_free(sim, &a, &b);
}

/* An ACK/NAK from 'from' to 'to', straight into to's device. */
static void inject_ack(Node *from, Node *to, uint32_t psn, uint8_t syndrome)
{
    uint8_t frame[128];
    SnicPkt p;
    size_t len;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(from->h->core, &from->h->core->qps[from->qpn], &p);
    p.opcode = SNIC_OP_RC_ACK;
    p.psn = psn & SNIC_PSN_MASK;
    p.aeth.syndrome = syndrome;
    len = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(to, frame, len);
}

/*
 * The responder's NAK sequence, pinned: one sequence NAK per gap, for the
 * expected PSN; none while the gap stays open; a new one for a new gap.
 */
static void test_nak_sequence_responder(void)
{
    SnicSimLinkConfig dead = clean;
    SnicSim *sim = snic_sim_new(31);
    SnicResp *r;
    uint32_t e;
    Node a, b;

    dead.loss = 1.0;
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    r = &b.h->core->qps[b.qpn].resp;
    e = r->epsn;
    inject_write(&a, &b, e);
    inject_write(&a, &b, e + 2);                /* e + 1 lost */
    fake_run(b.h);
    inject_write(&a, &b, e + 3);                /* the gap is still open */
    fake_run(b.h);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_NAK_SENT], ==, 1);
    g_assert_cmphex(b.h->event_args[SNIC_TRACE_NAK_SENT][1], ==,
                    (e + 1) & SNIC_PSN_MASK);
    g_assert_cmphex(b.h->event_args[SNIC_TRACE_NAK_SENT][2], ==,
                    SNIC_AETH_NAK_SEQ);
    g_assert_cmphex(r->epsn, ==, (e + 1) & SNIC_PSN_MASK);
    inject_write(&a, &b, e + 1);                /* the go-back-N resend */
    inject_write(&a, &b, e + 2);
    inject_write(&a, &b, e + 3);
    fake_run(b.h);
    g_assert_cmphex(r->epsn, ==, (e + 4) & SNIC_PSN_MASK);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_NAK_SENT], ==, 1);
    inject_write(&a, &b, e + 6);                /* a new gap */
    fake_run(b.h);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_NAK_SENT], ==, 2);
    g_assert_cmphex(b.h->event_args[SNIC_TRACE_NAK_SENT][1], ==,
                    (e + 4) & SNIC_PSN_MASK);
    g_assert_cmpuint(b.h->core->qps[b.qpn].resp.msn, ==, 4);
    node_pair_free(sim, &a, &b);
}

/*
 * The requester's reaction, pinned: a sequence NAK acknowledges what
 * precedes it (those WQEs complete), resends from its PSN exactly, and
 * costs one retry; an RNR NAK waits the delay its timer code says, then
 * resends from its PSN; a fatal NAK fails the WQE it names with the
 * matching status.
 */
static void test_nak_sequence_requester(void)
{
    static const struct {
        uint8_t syndrome;
        uint8_t status;
    } fatal[] = {
        { SNIC_AETH_NAK_INV_REQ, SNIC_WC_REM_INV_REQ_ERR },
        { SNIC_AETH_NAK_REM_ACCESS, SNIC_WC_REM_ACCESS_ERR },
        { SNIC_AETH_NAK_REM_OP, SNIC_WC_REM_OP_ERR },
    };
    SnicSimLinkConfig dead = clean;
    SnicSim *sim = snic_sim_new(32);
    SnicReq *r;
    uint32_t p0;
    Node a, b;
    struct snic_cqe c;
    unsigned i;

    dead.loss = 1.0;
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    r = &a.h->core->qps[a.qpn].req;
    p0 = r->next_psn;
    for (i = 1; i <= 4; i++) {
        node_post_send(&a, i, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                       a.lkey);
    }
    snic_sim_run_until(sim, 10000);
    inject_ack(&b, &a, p0 + 2, SNIC_AETH_NAK_SEQ);
    for (i = 1; i <= 2; i++) {
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    g_assert_false(node_poll_cq(&a, &c));
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RETRANSMIT], ==, 1);
    g_assert_cmphex(a.h->event_args[SNIC_TRACE_RETRANSMIT][1], ==,
                    (p0 + 2) & SNIC_PSN_MASK);
    g_assert_cmpuint(a.h->event_args[SNIC_TRACE_RETRANSMIT][2], ==, 2);
    g_assert_cmpuint(a.h->event_args[SNIC_TRACE_RETRANSMIT][3], ==,
                     SNIC_RTX_NAK_SEQ);
    g_assert_cmpuint(r->retry_left, ==, 6);

    /* RNR NAK, timer code 5: 60 us, then a resend from its PSN */
    inject_ack(&b, &a, p0 + 3, SNIC_AETH_RNR | 5);
    g_assert_cmpuint(a.h->event_args[SNIC_TRACE_RNR_WAIT][2], ==, 60000);
    snic_sim_run_until(sim, snic_sim_now(sim) + 59000);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RETRANSMIT], ==, 1);
    snic_sim_run_until(sim, snic_sim_now(sim) + 2000);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RETRANSMIT], ==, 2);
    g_assert_cmphex(a.h->event_args[SNIC_TRACE_RETRANSMIT][1], ==,
                    (p0 + 3) & SNIC_PSN_MASK);
    g_assert_cmpuint(a.h->event_args[SNIC_TRACE_RETRANSMIT][3], ==,
                     SNIC_RTX_RNR);
    node_pair_free(sim, &a, &b);

    for (i = 0; i < G_N_ELEMENTS(fatal); i++) {
        sim = snic_sim_new(33 + i);
        node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
        p0 = a.h->core->qps[a.qpn].req.next_psn;
        node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                       a.lkey);
        node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                       a.lkey);
        snic_sim_run_until(sim, 10000);
        inject_ack(&b, &a, p0 + 1, fatal[i].syndrome);  /* names WQE 2 */
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
        g_assert_cmpuint(c.status, ==, fatal[i].status);
        g_assert_cmpuint(a.h->core->qps[a.qpn].state, ==, SNIC_QPS_ERR);
        node_pair_free(sim, &a, &b);
    }
}

/*
 * The retransmission timer and the RNR wait share one transport deadline
 * in the QP context (IBA 9.7.5.2.8: an RNR wait stops the RTO). Whichever
 * is armed fires as itself: an RNR NAK replaces a pending RTO with its
 * shorter wait, whose end resends from the NAK's PSN without spending a
 * retry and re-arms the RTO; a longer wait outlives the RTO it replaced,
 * which never fires meanwhile; the re-armed RTO then fires as a timeout.
 */
static void test_rto_rnr_one_deadline(void)
{
    SnicSimLinkConfig dead = clean;
    SnicSim *sim = snic_sim_new(37);
    const uint64_t rto = 4096ull << 8;      /* engine-node's timeout 8 */
    uint64_t t;
    SnicReq *r;
    uint32_t p0;
    Node a, b;

    dead.loss = 1.0;
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    r = &a.h->core->qps[a.qpn].req;
    p0 = r->next_psn;
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                   a.lkey);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, BUF, 100, BUF, b.lkey, 0,
                   a.lkey);
    snic_sim_run_until(sim, 10000);
    g_assert_false(r->rnr_wait);
    g_assert_cmpuint(r->deadline, <=, rto + 10000);     /* the RTO */

    /* a 60 us RNR wait takes the deadline; the RTO is gone */
    t = snic_sim_now(sim);
    inject_ack(&b, &a, p0 + 1, SNIC_AETH_RNR | 5);
    g_assert_true(r->rnr_wait);
    g_assert_cmpuint(r->deadline, ==, t + 60000);
    snic_sim_run_until(sim, t + 61000);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RETRANSMIT], ==, 1);
    g_assert_cmpuint(a.h->event_args[SNIC_TRACE_RETRANSMIT][3], ==,
                     SNIC_RTX_RNR);
    g_assert_cmphex(a.h->event_args[SNIC_TRACE_RETRANSMIT][1], ==,
                    (p0 + 1) & SNIC_PSN_MASK);
    g_assert_cmpuint(r->retry_left, ==, 7);     /* an RNR wait is no retry */
    g_assert_false(r->rnr_wait);
    g_assert_cmpuint(r->deadline, ==, t + 60000 + rto);   /* RTO re-armed */

    /* a 655 ms wait outlives the ~1 ms RTO: no timeout while it runs */
    t = snic_sim_now(sim);
    inject_ack(&b, &a, p0 + 1, SNIC_AETH_RNR | 0);
    snic_sim_run_until(sim, t + 100 * rto);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_TIMEOUT], ==, 0);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RETRANSMIT], ==, 1);
    g_assert_true(r->rnr_wait);
    snic_sim_run_until(sim, t + 655360000 + 1000);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RETRANSMIT], ==, 2);
    g_assert_cmpuint(a.h->event_args[SNIC_TRACE_RETRANSMIT][3], ==,
                     SNIC_RTX_RNR);

    /*
     * Nothing answers the resend: the RTO fires, as a timeout this time,
     * from the oldest unacknowledged PSN (the RNR NAK acknowledged p0).
     */
    snic_sim_run_until(sim, t + 655360000 + 1000 + rto);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_TIMEOUT], ==, 1);
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RETRANSMIT], ==, 3);
    g_assert_cmpuint(a.h->event_args[SNIC_TRACE_RETRANSMIT][3], ==,
                     SNIC_RTX_TIMEOUT);
    g_assert_cmphex(a.h->event_args[SNIC_TRACE_RETRANSMIT][1], ==,
                    (p0 + 1) & SNIC_PSN_MASK);
    g_assert_cmpuint(r->retry_left, ==, 6);
    node_pair_free(sim, &a, &b);
}

/*
 * RoCE is executed only when it is addressed to the port: a request to
 * another IP address, or to the broadcast MAC, is dropped unexecuted.
 */
static void test_foreign_destination_dropped(void)
{
    static uint8_t payload[64];
    SnicSimLinkConfig dead = clean;
    SnicSim *sim = snic_sim_new(36);
    uint8_t frame[512];
    unsigned i;
    Node a, b;

    dead.loss = 1.0;
    node_pair_new(sim, &a, &b, &dead, SNIC_MTU_1024, 7, 7);
    for (i = 0; i < 3; i++) {
        uint32_t epsn = b.h->core->qps[b.qpn].resp.epsn;
        SnicPkt p;
        size_t len;

        memset(&p, 0, sizeof(p));
        snic_rdma_fill_addr(a.h->core, &a.h->core->qps[a.qpn], &p);
        p.opcode = SNIC_OP_RC_WRITE_ONLY;
        p.psn = epsn;
        p.reth.va = BUF;
        p.reth.rkey = b.lkey;
        p.reth.len = sizeof(payload);
        p.payload = payload;
        p.payload_len = sizeof(payload);
        if (i == 0) {
            p.addr.dip[3] = 7;                  /* 10.0.0.7: not b's */
        } else if (i == 1) {
            memset(p.addr.dmac, 0xff, 6);       /* broadcast */
        }
        len = snic_wire_build(&p, frame, sizeof(frame));
        snic_core_receive(b.h->core, frame, len);
        fake_run(b.h);
        /* the third, to b's own address, is executed */
        g_assert_cmpuint(b.h->core->qps[b.qpn].resp.epsn, ==,
                         i == 2 ? ((epsn + 1) & SNIC_PSN_MASK) : epsn);
    }
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_rx_dropped), ==, 2);
    node_pair_free(sim, &a, &b);
}

/*
 * Local loopback: a QP connected to an address of its own port (here to
 * itself) works as over a wire, and nothing goes out on the wire.
 */
static void test_loopback(void)
{
    SnicSim *sim = snic_sim_new(37);
    struct snic_cqe c;
    Node a;

    node_init(&a, sim, 1);
    node_connect(&a, &a, SNIC_MTU_1024, 7, 7);
    node_fill(&a, BUF, 8192, 37);
    node_post_recv(&a, 1, BUF + 0x10000, 8192);
    node_post_send(&a, 2, SNIC_WR_SEND, BUF, 5000, 0, 0, 0, a.lkey);
    node_post_send(&a, 3, SNIC_WR_RDMA_WRITE, BUF, 8192, BUF + 0x20000,
                   a.lkey, 0, a.lkey);
    node_post_send(&a, 4, SNIC_WR_RDMA_READ, BUF + 0x30000, 8192, BUF,
                   a.lkey, 0, a.lkey);
    snic_sim_run(sim, 1000000);
    g_assert_true(node_poll_cq(&a, &c));    /* the receive, first */
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 5000);
    for (unsigned i = 2; i <= 4; i++) {
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    g_assert_cmpmem(fake_ptr(a.h, BUF + 0x10000, 5000), 5000,
                    fake_ptr(a.h, BUF, 5000), 5000);
    g_assert_cmpmem(fake_ptr(a.h, BUF + 0x20000, 8192), 8192,
                    fake_ptr(a.h, BUF, 8192), 8192);
    g_assert_cmpmem(fake_ptr(a.h, BUF + 0x30000, 8192), 8192,
                    fake_ptr(a.h, BUF, 8192), 8192);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), >, 0);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_rx_packets), ==,
                     FAKE_STAT(a.h, rdma_tx_packets));
    g_assert_cmpuint(a.h->frames->len, ==, 0);   /* none on the wire */
    fake_host_free(a.h);
    snic_sim_free(sim);
}

/*
 * Inline data: a SEND and a WRITE carry their payload in the WQE itself
 * (the buffer it came from may change at once); a UD datagram too; a
 * READ may not be inline.
 */
static void test_inline(void)
{
    SnicSim *sim = snic_sim_new(38);
    struct snic_sq_wqe w;
    struct snic_cqe c;
    uint8_t data[SNIC_MAX_INLINE_DATA];
    Node a, b;
    unsigned i;

    for (i = 0; i < sizeof(data); i++) {
        data[i] = i * 7 + 1;
    }
    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    node_post_recv(&b, 1, BUF + 0x1000, 4096);
    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(1);
    w.opcode = SNIC_WR_SEND;
    w.flags = SNIC_WQE_SIGNALED | SNIC_WQE_INLINE;
    w.inline_len = 100;
    memcpy(w.inline_data, data, 100);
    node_post_wqe(&a, &w);
    w.wr_id = GUINT64_TO_LE(2);
    w.opcode = SNIC_WR_RDMA_WRITE;
    w.inline_len = SNIC_MAX_INLINE_DATA;
    w.rdma.remote_addr = GUINT64_TO_LE(BUF + 0x2000);
    w.rdma.rkey = GUINT32_TO_LE(b.lkey);
    memcpy(w.inline_data, data, sizeof(data));
    node_post_wqe(&a, &w);
    w.wr_id = GUINT64_TO_LE(3);
    w.opcode = SNIC_WR_RDMA_READ;
    w.inline_len = 8;
    node_post_wqe(&a, &w);
    snic_sim_run(sim, 100000);
    for (i = 1; i <= 3; i++) {
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);
        g_assert_cmpuint(c.status, ==, i < 3 ? SNIC_WC_SUCCESS :
                                              SNIC_WC_LOC_LEN_ERR);
    }
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 100);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1000, 100), 100, data, 100);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x2000, sizeof(data)), sizeof(data),
                    data, sizeof(data));
    g_assert_cmpuint(fake_guest_errors_matching(a.h, "inline"), ==, 1);
    node_pair_free(sim, &a, &b);
}

/*
 * UC: SEND and WRITE (with immediate) are delivered in order without any
 * acknowledgement; the sender completes each WQE once it is sent; a READ
 * is not a UC operation.
 */
static void test_uc(void)
{
    SnicSim *sim = snic_sim_new(39);
    struct snic_cqe c;
    Node a, b;
    unsigned i;

    uc_pair(sim, &a, &b);
    node_fill(&a, BUF, 8192, 39);
    for (i = 1; i <= 3; i++) {
        node_post_recv(&b, i, BUF + i * 0x10000, 4096);
    }
    post_raw(&a, 1, SNIC_WR_SEND, SNIC_WQE_SIGNALED, 3000, 0);
    post_raw(&a, 2, SNIC_WR_SEND_IMM, SNIC_WQE_SIGNALED, 10, 0x77);
    node_post_send(&a, 3, SNIC_WR_RDMA_WRITE, BUF, 8192, BUF + 0x80000,
                   b.lkey, 0, a.lkey);
    node_post_send(&a, 4, SNIC_WR_RDMA_WRITE_IMM, BUF, 100, BUF + 0x90000,
                   b.lkey, 0x88, a.lkey);
    snic_sim_run(sim, 100000);
    for (i = 1; i <= 4; i++) {
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    }
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 3000);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x10000, 3000), 3000,
                    fake_ptr(a.h, BUF, 3000), 3000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, 0x77);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, 0x88);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x80000, 8192), 8192,
                    fake_ptr(a.h, BUF, 8192), 8192);
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_tx_packets), ==, 0);  /* no ACK */
    /* a READ is refused on a UC QP */
    node_post_send(&a, 5, SNIC_WR_RDMA_READ, BUF, 10, BUF, b.lkey, 0,
                   a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
    node_pair_free(sim, &a, &b);
}

/* A UC packet from 'from' to 'to' with op-code op (RC number + 0x20). */
static void inject_uc(Node *from, Node *to, uint8_t op, uint32_t psn,
                      uint32_t len, uint64_t va)
{
    static uint8_t payload[1024];
    uint8_t frame[2048];
    SnicPkt p;
    size_t flen;

    memset(&p, 0, sizeof(p));
    memset(payload, op, sizeof(payload));
    snic_rdma_fill_addr(from->h->core, &from->h->core->qps[from->qpn], &p);
    p.opcode = op;
    p.psn = psn & SNIC_PSN_MASK;
    p.reth.va = va;
    p.reth.rkey = to->lkey;
    p.reth.len = 3 * 1024;
    p.payload = payload;
    p.payload_len = len;
    flen = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(to, frame, flen);
    fake_run(to->h);
}

/*
 * UC loss: a gap drops the rest of the message in hand (nothing of it is
 * completed, its receive WQE serves the next message) and reception
 * resumes at the next First or Only, whatever its PSN.
 */
static void test_uc_loss(void)
{
    SnicSimLinkConfig dead = clean;
    SnicSim *sim = snic_sim_new(40);
    struct snic_cqe c;
    uint32_t e;
    Node a, b;

    dead.loss = 1.0;
    node_init_type(&a, sim, 5, SNIC_QPT_UC);
    node_init_type(&b, sim, 6, SNIC_QPT_UC);
    snic_sim_port_connect(&a.h->port, &b.h->port, &dead);
    node_connect(&a, &b, SNIC_MTU_1024, 0, 0);
    node_connect(&b, &a, SNIC_MTU_1024, 0, 0);
    node_post_recv(&b, 1, BUF, 4096);
    node_post_recv(&b, 2, BUF + 0x1000, 4096);
    e = b.h->core->qps[b.qpn].resp.epsn;
    inject_uc(&a, &b, SNIC_OP_UC_SEND_FIRST, e, 1024, 0);
    inject_uc(&a, &b, SNIC_OP_UC_SEND_LAST, e + 2, 100, 0);    /* e+1 lost */
    g_assert_false(node_poll_cq(&b, &c));
    inject_uc(&a, &b, SNIC_OP_UC_SEND_MIDDLE, e + 3, 1024, 0); /* still out */
    inject_uc(&a, &b, SNIC_OP_UC_SEND_ONLY, e + 5, 50, 0);     /* new one */
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);         /* reused */
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 50);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(b.h, BUF, 1), ==,
                     SNIC_OP_UC_SEND_ONLY);
    /* a WRITE losing its middle packet: its last part is not written */
    inject_uc(&a, &b, SNIC_OP_UC_WRITE_FIRST, e + 6, 1024, BUF + 0x8000);
    inject_uc(&a, &b, SNIC_OP_UC_WRITE_LAST, e + 8, 1024, 0);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(b.h, BUF + 0x8000 + 2048, 1), ==,
                     0);
    inject_uc(&a, &b, SNIC_OP_UC_SEND_ONLY, e + 9, 60, 0);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 60);
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_tx_packets), ==, 0);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_RTS);
    node_pair_free(sim, &a, &b);
}

/* QP access rights apply to zero-length operations too. */
static void test_qp_access_zero_length(void)
{
    SnicSim *sim = snic_sim_new(25);
    struct snic_qp_attr at;
    Node a, b;
    struct snic_cqe c;

    node_pair_new(sim, &a, &b, &clean, SNIC_MTU_1024, 7, 7);
    memset(&at, 0, sizeof(at));
    at.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    at.qp_access_flags = 0;
    node_modify(&b, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_ACCESS_FLAGS, &at);
    node_post_recv(&b, 1, BUF, 100);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE_IMM, BUF, 0, BUF, b.lkey, 7, a.lkey);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_INV_REQ_ERR);
    g_assert_false(node_poll_cq(&b, &c) && c.status == SNIC_WC_SUCCESS);
    node_pair_free(sim, &a, &b);
}

/* A datagram that does not fit is dropped; the GSI/UD QP lives on. */
static void test_ud_oversize_dropped(void)
{
    SnicSim *sim = snic_sim_new(26);
    Node a, b;
    struct snic_cqe c;

    ud_pair(sim, &a, &b, SNIC_QPT_GSI, 0x80010000);
    node_post_recv(&b, 1, BUF, 40 + 100);
    post_ud(&a, 1, &b, 0x80010000, BUF, 1000, false);   /* too big */
    post_ud(&a, 2, &b, 0x80010000, BUF, 100, false);
    snic_sim_run(sim, 100000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 140);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_RTS);
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_rx_dropped), ==, 1);
    node_pair_free(sim, &a, &b);
}

/* A re-created queue never writes through a stale cached page address. */
static void test_ring_translation_not_stale(void)
{
    SnicSim *sim = snic_sim_new(27);
    struct snic_admin_cmd cmd;
    struct snic_cqe cqe = { .wr_id = GUINT64_TO_LE(77) };
    __le64 moved = GUINT64_TO_LE(BUF + 0x80000);
    Node a;
    uint64_t cqn;

    node_init(&a, sim, 1);
    /* destroy the QP and CQ, point the CQ's page list elsewhere */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_DESTROY_QP, sizeof(cmd.obj));
    cmd.obj.handle = GUINT32_TO_LE(a.qpn);
    node_admin_ok(a.h, &cmd);
    g_assert_cmpint(snic_cq_post(a.h->core, a.cqn, &cqe, false), ==, 0);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_DESTROY_CQ, sizeof(cmd.obj));
    cmd.obj.handle = GUINT32_TO_LE(a.cqn);
    node_admin_ok(a.h, &cmd);
    fake_write(a.h, PBL_CQ, &moved, 8);
    memset(fake_ptr(a.h, BUF + 0x80000, 32), 0, 32);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(PBL_CQ);
    cmd.create_cq.npages = GUINT32_TO_LE(8);
    cmd.create_cq.log2_depth = CQ_LOG2;
    cmd.create_cq.eqn = GUINT32_TO_LE(a.cqn ? 1 : 1);
    cqn = node_admin_ok(a.h, &cmd);
    g_assert_cmpint(snic_cq_post(a.h->core, cqn, &cqe, false), ==, 0);
    g_assert_cmpuint(*(uint64_t *)fake_ptr(a.h, BUF + 0x80000, 8), ==, 77);
    fake_host_free(a.h);
    snic_sim_free(sim);
}

/*
 * The data path in its steady state allocates nothing: 64 KiB WRITEs and
 * 64 B SENDs between two engines (scripts/bench-engine.sh's windows),
 * after a warm-up, with every heap allocation counted by
 * AddressSanitizer's allocator hooks (the unit build's sanitizer; the
 * benchmark checks its release build under callgrind) except those made
 * inside the host interface's callbacks, which are the harness's.
 */
#ifdef __SANITIZE_ADDRESS__
/*
 * compiler-rt's sanitizer/allocator_interface.h, which GCC does not
 * install; its libasan exports the function
 */
int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void *, size_t),
    void (*free_hook)(const volatile void *));

static struct {
    bool watch;
    unsigned in_host;           /* inside a host callback (nesting) */
    unsigned allocs;
    SnicHostOps ops;            /* the fake host's, which ours wrap */
} na;

static void na_malloc(const volatile void *p, size_t len)
{
    if (na.watch && !na.in_host) {
        na.allocs++;
    }
}

static void na_free(const volatile void *p)
{
}

static int na_dma_read(void *o, uint64_t addr, void *buf, size_t len)
{
    int r;

    na.in_host++;
    r = na.ops.dma_read(o, addr, buf, len);
    na.in_host--;
    return r;
}

static int na_dma_write(void *o, uint64_t addr, const void *buf, size_t len)
{
    int r;

    na.in_host++;
    r = na.ops.dma_write(o, addr, buf, len);
    na.in_host--;
    return r;
}

static void na_tx_frame(void *o, const void *f, size_t len, size_t host)
{
    na.in_host++;
    na.ops.tx_frame(o, f, len, host);
    na.in_host--;
}

static void na_raise_irq(void *o, unsigned vector)
{
    na.in_host++;
    na.ops.raise_irq(o, vector);
    na.in_host--;
}

static void na_clear_irq(void *o, unsigned vector)
{
    na.in_host++;
    na.ops.clear_irq(o, vector);
    na.in_host--;
}

static void na_kick(void *o)
{
    na.in_host++;
    na.ops.kick(o);
    na.in_host--;
}

static uint64_t na_now_ns(void *o)
{
    uint64_t t;

    na.in_host++;
    t = na.ops.now_ns(o);
    na.in_host--;
    return t;
}

static void na_timer_mod(void *o, uint64_t deadline)
{
    na.in_host++;
    na.ops.timer_mod(o, deadline);
    na.in_host--;
}

static void na_trace(void *o, SnicTracePoint tp, const uint64_t a[4])
{
    na.in_host++;
    na.ops.trace(o, tp, a);
    na.in_host--;
}

/* The core calls these through h->ops: wrap the ones the data path uses */
static void na_wrap(FakeHost *h)
{
    na.ops = h->ops;
    h->ops.dma_read = na_dma_read;
    h->ops.dma_write = na_dma_write;
    h->ops.tx_frame = na_tx_frame;
    h->ops.raise_irq = na_raise_irq;
    h->ops.clear_irq = na_clear_irq;
    h->ops.kick = na_kick;
    h->ops.now_ns = na_now_ns;
    h->ops.timer_mod = na_timer_mod;
    h->ops.trace = na_trace;
}

/* count WRITEs of 64 KiB, then count 64 B SENDs, 32 at a time */
static void na_traffic(SnicSim *sim, Node *a, Node *b, unsigned count)
{
    struct snic_cqe c;
    unsigned i, j;

    for (i = 0; i < count; i += 32) {
        for (j = 0; j < 32; j++) {
            node_post_send(a, j, SNIC_WR_RDMA_WRITE, BUF, 65536,
                           BUF + 0x200000, b->lkey, 0, a->lkey);
        }
        snic_sim_run(sim, UINT64_MAX);
        for (j = 0; j < 32; j++) {
            node_post_recv(b, j, BUF + 0x200000, 4096);
            node_post_send(a, j, SNIC_WR_SEND, BUF, 64, 0, 0, 0, a->lkey);
        }
        snic_sim_run(sim, UINT64_MAX);
        for (j = 0; j < 64; j++) {
            g_assert_true(node_poll_cq(a, &c));
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        }
        for (j = 0; j < 32; j++) {
            g_assert_true(node_poll_cq(b, &c));
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        }
    }
}

static void test_steady_state_no_alloc(void)
{
    const SnicSimLinkConfig wire = { 0 };
    SnicSim *sim = snic_sim_new(1);
    Node a, b;

    node_pair_new(sim, &a, &b, &wire, SNIC_MTU_4096, 7, 7);
    na_wrap(a.h);
    na_wrap(b.h);
    g_assert_cmpint(__sanitizer_install_malloc_and_free_hooks(na_malloc,
                                                              na_free),
                    !=, 0);
    na_traffic(sim, &a, &b, 64);                /* warm up */
    /* the hooks see: one allocation here must count */
    na.watch = true;
    g_free(g_malloc(16));
    na.watch = false;
    g_assert_cmpuint(na.allocs, ==, 1);
    na.allocs = 0;
    na.watch = true;
    na_traffic(sim, &a, &b, 256);
    na.watch = false;
    g_assert_cmpuint(na.allocs, ==, 0);
    node_pair_free(sim, &a, &b);
}
#else
static void test_steady_state_no_alloc(void)
{
    g_test_skip("needs AddressSanitizer's allocator hooks (the unit "
                "build's default); scripts/bench-engine.sh checks its "
                "build under callgrind");
}
#endif

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/engine/send-recv", test_send_recv);
    g_test_add_func("/engine/write-and-imm", test_write_and_imm);
    g_test_add_func("/engine/lossless", test_lossless);
    g_test_add_func("/engine/loss-1pct", test_loss_1);
    g_test_add_func("/engine/loss-5pct", test_loss_5);
    g_test_add_func("/engine/write-bw-lossy-bursts",
                    test_write_bw_lossy_bursts);
    g_test_add_func("/engine/corrupt-recovered", test_corrupt_recovered);
    g_test_add_func("/engine/remote-access-error", test_remote_access_error);
    g_test_add_func("/engine/local-protection-error",
                    test_local_protection_error);
    g_test_add_func("/engine/error/bad-rq-wqe", test_bad_rq_wqe);
    g_test_add_func("/engine/fence-and-flags", test_fence_and_flags);
    g_test_add_func("/engine/cqe-wqe-index", test_cqe_wqe_index);
    g_test_add_func("/engine/ud/source-address", test_ud_source_address);
    g_test_add_func("/engine/error/response-after-local-error",
                    test_response_after_local_error);
    g_test_add_func("/engine/error/fatal-nak-names-its-wqe",
                    test_fatal_nak_names_its_wqe);
    g_test_add_func("/engine/response-acks-up-to-lost-read",
                    test_response_acks_up_to_lost_read);
    g_test_add_func("/engine/error/local-after-inflight",
                    test_local_error_after_inflight);
    g_test_add_func("/engine/error/local-after-inflight-lossy",
                    test_local_error_after_inflight_lossy);
    g_test_add_func("/engine/rnr", test_rnr);
    g_test_add_func("/engine/error/drain", test_drain_after_error);
    g_test_add_func("/engine/retry-exceeded", test_retry_exceeded);
    g_test_add_func("/engine/spurious-timeout-stale",
                    test_spurious_timeout_stale);
    g_test_add_func("/engine/read", test_read);
    g_test_add_func("/engine/read-atomic-lossy", test_read_atomic_lossy);
    g_test_add_func("/engine/atomics", test_atomics);
    g_test_add_func("/engine/read-access-error", test_read_access_error);
    g_test_add_func("/engine/ud", test_ud);
    g_test_add_func("/engine/gsi", test_gsi);
    g_test_add_func("/engine/ud/port-mtu", test_ud_port_mtu);
    g_test_add_func("/engine/mtu/rc-over-sender-mtu", test_rc_over_sender_mtu);
    g_test_add_func("/engine/mtu/rc-over-receiver-mtu",
                    test_rc_over_receiver_mtu);
    g_test_add_func("/engine/send-imm-solicited", test_send_imm_solicited);
    g_test_add_func("/engine/send-inv-refused", test_send_inv_refused);
    g_test_add_func("/engine/bad-wqe-opcode", test_bad_wqe_opcode);
    g_test_add_func("/engine/receive-errors", test_receive_errors);
    g_test_add_func("/engine/every-opcode", test_every_opcode);
    g_test_add_func("/engine/wqe-rewritten-in-flight",
                    test_wqe_rewritten_in_flight);
    g_test_add_func("/engine/rc-wqe-shrunk-in-flight",
                    test_rc_wqe_shrunk_in_flight);
    g_test_add_func("/engine/rc-wqe-opcode-changed",
                    test_rc_wqe_opcode_changed);
    g_test_add_func("/engine/fatal-nak-kept", test_fatal_nak_kept);
    g_test_add_func("/engine/read-response-acks-before",
                    test_read_response_acks_before);
    g_test_add_func("/engine/rnr-wait-is-not-timeout",
                    test_rnr_wait_is_not_timeout);
    g_test_add_func("/engine/iba/rnr-wait-holds-new-work",
                    test_rnr_wait_holds_new_work);
    g_test_add_func("/engine/iba/duplicate-keeps-nak",
                    test_duplicate_keeps_nak);
    g_test_add_func("/engine/iba/read-half-psn-space",
                    test_read_half_psn_space);
    g_test_add_func("/engine/rdb/entry-rewritten", test_rdb_entry_rewritten);
    g_test_add_func("/engine/rdb/replay", test_rdb_replay);
    g_test_add_func("/engine/iba/responder-error-events",
                    test_responder_error_events);
    g_test_add_func("/engine/iba/cq-overrun-fails-qp",
                    test_cq_overrun_fails_qp);
    g_test_add_func("/engine/iba/nak-sequence-responder",
                    test_nak_sequence_responder);
    g_test_add_func("/engine/iba/nak-sequence-requester",
                    test_nak_sequence_requester);
    g_test_add_func("/engine/rto-rnr-one-deadline", test_rto_rnr_one_deadline);
    g_test_add_func("/engine/index-wrap", test_index_wrap);
    g_test_add_func("/engine/iba/foreign-destination-dropped",
                    test_foreign_destination_dropped);
    g_test_add_func("/engine/loopback", test_loopback);
    g_test_add_func("/engine/inline", test_inline);
    g_test_add_func("/engine/uc", test_uc);
    g_test_add_func("/engine/uc-loss", test_uc_loss);
    g_test_add_func("/engine/qp-access-zero-length",
                    test_qp_access_zero_length);
    g_test_add_func("/engine/ud-oversize-dropped", test_ud_oversize_dropped);
    g_test_add_func("/engine/ring-translation-not-stale",
                    test_ring_translation_not_stale);
    g_test_add_func("/engine/steady-state-no-alloc",
                    test_steady_state_no_alloc);
    return g_test_run();
}
