/*
 * DMA the host refuses, as an IOMMU refuses an address the driver never
 * mapped or has unmapped: the fake host fails every access to one range
 * of bus addresses. A refused data buffer completes the work request with
 * a local protection error (the peer's with the NAK IBA gives), is counted
 * in dma_errors and named in a rate-limited guest error with the QP and
 * the address; a refused WQE fetch (send or receive) completes
 * LOC_QP_OP_ERR; every other QP of the device keeps working, checked by
 * content.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"

static const SnicSimLinkConfig clean = {
    .bandwidth_bps = 10000000000ull,
    .delay_ns = 2000,
};

/* The page of the registered buffer (bus address) that is not mapped */
#define HOLE        (BUF + 0x3000)

/* Two RC pairs on one wire: a <-> b and a2 <-> b2 on the same devices. */
typedef struct Pairs {
    SnicSim *sim;
    Node a, b, a2, b2;
} Pairs;

static void pairs_new(Pairs *p, unsigned seed)
{
    p->sim = snic_sim_new(seed);
    node_init(&p->a, p->sim, 1);
    node_init(&p->b, p->sim, 2);
    snic_sim_port_connect(&p->a.h->port, &p->b.h->port, &clean);
    node_add_qp_rq(&p->a2, &p->a, 4);
    node_add_qp_rq(&p->b2, &p->b, 4);
    node_connect(&p->a, &p->b, SNIC_MTU_1024, 7, 7);
    node_connect(&p->b, &p->a, SNIC_MTU_1024, 7, 7);
    node_connect(&p->a2, &p->b2, SNIC_MTU_1024, 7, 7);
    node_connect(&p->b2, &p->a2, SNIC_MTU_1024, 7, 7);
}

static void pairs_free(Pairs *p)
{
    node_pair_free(p->sim, &p->a, &p->b);
}

/* The one completion the run leaves on n's CQ. */
static struct snic_cqe one_cqe(Pairs *p, Node *n)
{
    struct snic_cqe c;

    snic_sim_run(p->sim, 1000000);
    g_assert_true(node_poll_cq(n, &c));
    return c;
}

static uint8_t qp_state(const Node *n)
{
    return n->h->core->qps[n->qpn].state;
}

/* Bring a's QP from ERR back to RTS through RESET, its SQ empty. */
static void reconnect(Pairs *p)
{
    struct snic_qp_attr a = { .qp_state = GUINT32_TO_LE(SNIC_QPS_RESET) };

    node_modify(&p->a, SNIC_QP_ATTR_STATE, &a);
    p->a.sq_pi = 0;
    node_connect(&p->a, &p->b, SNIC_MTU_1024, 7, 7);
}

/*
 * The second pair still works: a2 WRITEs 8 KiB into b2's memory and
 * READs another 8 KiB back, both checked byte for byte. (a2 completes
 * into a's CQ: polled through a.)
 */
static void others_served(Pairs *p, uint32_t seed)
{
    struct snic_cqe c;

    while (node_poll_cq(&p->a, &c)) {
        /* the failed QP's flushed work requests */
        g_assert_cmpuint(GUINT32_FROM_LE(c.qpn), ==, p->a.qpn);
    }

    node_fill(&p->a2, BUF + 0x10000, 8192, seed);
    node_post_send(&p->a2, 21, SNIC_WR_RDMA_WRITE, BUF + 0x10000, 8192,
                   BUF + 0x20000, p->b2.lkey, 0, p->a2.lkey);
    c = one_cqe(p, &p->a);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 21);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(p->b2.h, BUF + 0x20000, 8192), 8192,
                    fake_ptr(p->a2.h, BUF + 0x10000, 8192), 8192);
    node_fill(&p->b2, BUF + 0x30000, 8192, seed + 1);
    node_post_send(&p->a2, 22, SNIC_WR_RDMA_READ, BUF + 0x40000, 8192,
                   BUF + 0x30000, p->b2.lkey, 0, p->a2.lkey);
    c = one_cqe(p, &p->a);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 22);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(p->a2.h, BUF + 0x40000, 8192), 8192,
                    fake_ptr(p->b2.h, BUF + 0x30000, 8192), 8192);
    g_assert_false(node_poll_cq(&p->a, &c));
}

/* The guest error that names QP qpn and the refused address. */
static unsigned fault_logged(FakeHost *h, uint64_t qpn, bool write,
                             uint64_t iova, uint64_t unlogged)
{
    g_autofree char *want = g_strdup_printf(
        "QP %" PRIu64 ": DMA (write %u) at IOVA 0x%" PRIx64 " of a data "
        "buffer refused by the host: not mapped for the device, or unmapped "
        "while in use (%" PRIu64 " more not logged)", qpn, write, iova,
        unlogged);

    return fake_guest_errors_matching(h, want);
}

static void nop(void *opaque)
{
}

/* Let 'ns' of virtual time pass. */
static void idle(Pairs *p, uint64_t ns)
{
    snic_sim_timer_add(p->sim, snic_sim_now(p->sim) + ns, nop, NULL);
    snic_sim_run(p->sim, 1000000);
}

/*
 * A WRITE whose source page is not mapped: LOC_PROT_ERR, the QP in ERR,
 * nothing sent, the peer untouched; dma_errors counts each refusal and
 * the guest error names the QP and the page's bus address, at most one a
 * second with the count of those not logged.
 */
static void test_gather_refused(void)
{
    Pairs p;
    struct snic_cqe c;
    uint64_t errors;

    pairs_new(&p, 1);
    p.a.h->unmapped_at = HOLE;
    p.a.h->unmapped_len = 0x1000;
    errors = FAKE_STAT(p.a.h, dma_errors);
    node_post_send(&p.a, 1, SNIC_WR_RDMA_WRITE, HOLE + 0x80, 100, BUF,
                   p.b.lkey, 0, p.a.lkey);
    node_post_send(&p.a, 2, SNIC_WR_SEND, BUF, 10, 0, 0, 0, p.a.lkey);
    c = one_cqe(&p, &p.a);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_true(node_poll_cq(&p.a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(qp_state(&p.a), ==, SNIC_QPS_ERR);
    g_assert_cmpuint(qp_state(&p.b), ==, SNIC_QPS_RTS);
    g_assert_cmpuint(FAKE_STAT(p.a.h, rdma_tx_packets), ==, 0);
    g_assert_cmpuint(FAKE_STAT(p.a.h, dma_errors), ==, errors + 1);
    g_assert_cmpuint(p.a.h->unmapped_refused, ==, 1);
    g_assert_cmpuint(fault_logged(p.a.h, p.a.qpn, false, HOLE + 0x80, 0), ==,
                     1);

    /* again within the second: counted, not logged */
    reconnect(&p);
    node_post_send(&p.a, 3, SNIC_WR_RDMA_WRITE, HOLE, 64, BUF, p.b.lkey, 0,
                   p.a.lkey);
    c = one_cqe(&p, &p.a);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(FAKE_STAT(p.a.h, dma_errors), ==, errors + 2);
    g_assert_cmpuint(fake_guest_errors_matching(p.a.h, "DMA (write"), ==, 1);

    /* a second later: logged, with the one in between counted */
    idle(&p, 1000000000ull);
    reconnect(&p);
    node_post_send(&p.a, 4, SNIC_WR_RDMA_WRITE, HOLE + 0xf00, 64, BUF,
                   p.b.lkey, 0, p.a.lkey);
    c = one_cqe(&p, &p.a);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(fault_logged(p.a.h, p.a.qpn, false, HOLE + 0xf00, 1), ==,
                     1);
    g_assert_cmpuint(FAKE_STAT(p.a.h, dma_errors), ==, errors + 3);

    others_served(&p, 10);
    pairs_free(&p);
}

/*
 * A READ whose local sink page is not mapped: the response's data cannot
 * be placed, LOC_PROT_ERR (a DMA write refused), and the pair beside it
 * keeps working.
 */
static void test_scatter_refused(void)
{
    Pairs p;
    struct snic_cqe c;

    pairs_new(&p, 2);
    p.a.h->unmapped_at = HOLE;
    p.a.h->unmapped_len = 0x1000;
    node_post_send(&p.a, 1, SNIC_WR_RDMA_READ, HOLE, 512, BUF, p.b.lkey, 0,
                   p.a.lkey);
    c = one_cqe(&p, &p.a);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(qp_state(&p.a), ==, SNIC_QPS_ERR);
    g_assert_cmpuint(fault_logged(p.a.h, p.a.qpn, true, HOLE, 0), ==, 1);
    others_served(&p, 20);
    pairs_free(&p);
}

/*
 * A receive buffer not mapped: the receiver completes LOC_PROT_ERR and
 * names its QP, the sender gets the NAK (REM_OP_ERR).
 */
static void test_receive_refused(void)
{
    Pairs p;
    struct snic_cqe c;

    pairs_new(&p, 3);
    p.b.h->unmapped_at = HOLE;
    p.b.h->unmapped_len = 0x1000;
    node_post_recv(&p.b, 7, HOLE, 4096);
    node_post_send(&p.a, 1, SNIC_WR_SEND, BUF, 100, 0, 0, 0, p.a.lkey);
    snic_sim_run(p.sim, 1000000);
    g_assert_true(node_poll_cq(&p.b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 7);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_true(node_poll_cq(&p.a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_OP_ERR);
    g_assert_cmpuint(fault_logged(p.b.h, p.b.qpn, true, HOLE, 0), ==, 1);
    others_served(&p, 30);
    pairs_free(&p);
}

/*
 * The responder's memory not mapped under a valid R_Key: the requester's
 * WRITE completes REM_ACCESS_ERR (the NAK), the responder's device names
 * its QP and the address.
 */
static void test_remote_write_refused(void)
{
    Pairs p;
    struct snic_cqe c;

    pairs_new(&p, 4);
    p.b.h->unmapped_at = HOLE;
    p.b.h->unmapped_len = 0x1000;
    node_post_send(&p.a, 1, SNIC_WR_RDMA_WRITE, BUF, 256, HOLE + 0x100,
                   p.b.lkey, 0, p.a.lkey);
    c = one_cqe(&p, &p.a);
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(fault_logged(p.b.h, p.b.qpn, true, HOLE + 0x100, 0), ==,
                     1);
    others_served(&p, 40);
    pairs_free(&p);
}

/*
 * The SQ's page not mapped: the WQE cannot be fetched, LOC_QP_OP_ERR
 * (its wr_id unknown: 0), a guest error for the fetch and none for a
 * data buffer; the QP beside it, with its own SQ, keeps working.
 */
static void test_wqe_fetch_refused(void)
{
    Pairs p;
    struct snic_cqe c;
    uint64_t errors;

    pairs_new(&p, 5);
    p.a.h->unmapped_at = SQ_RING;
    p.a.h->unmapped_len = 0x1000;
    errors = FAKE_STAT(p.a.h, dma_errors);
    node_post_send(&p.a, 1, SNIC_WR_RDMA_WRITE, BUF, 64, BUF, p.b.lkey, 0,
                   p.a.lkey);
    c = one_cqe(&p, &p.a);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0);
    g_assert_cmpuint(qp_state(&p.a), ==, SNIC_QPS_ERR);
    g_assert_cmpuint(FAKE_STAT(p.a.h, dma_errors), >, errors);
    g_assert_cmpuint(FAKE_STAT(p.a.h, rdma_tx_packets), ==, 0);
    g_assert_cmpuint(fake_guest_errors_matching(p.a.h, "not readable "
                                                "through the queue's page "
                                                "list"), >=, 1);
    g_assert_cmpuint(fake_guest_errors_matching(p.a.h, "DMA (write"), ==, 0);
    others_served(&p, 50);
    pairs_free(&p);
}

/*
 * The RQ's page not mapped: the receive WQE cannot be fetched, the
 * receiver completes LOC_QP_OP_ERR and the sender gets the NAK.
 */
static void test_rq_fetch_refused(void)
{
    Pairs p;
    struct snic_cqe c;

    pairs_new(&p, 6);
    node_post_recv(&p.b, 9, BUF, 4096);
    p.b.h->unmapped_at = RQ_RING;
    p.b.h->unmapped_len = 0x1000;
    node_post_send(&p.a, 1, SNIC_WR_SEND, BUF, 100, 0, 0, 0, p.a.lkey);
    snic_sim_run(p.sim, 1000000);
    g_assert_true(node_poll_cq(&p.b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(qp_state(&p.b), ==, SNIC_QPS_ERR);
    g_assert_true(node_poll_cq(&p.a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_OP_ERR);
    g_assert_cmpuint(fake_guest_errors_matching(p.b.h, "(rq 1): not "
                                                "readable"), >=, 1);
    others_served(&p, 60);
    pairs_free(&p);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/dma-fault/gather", test_gather_refused);
    g_test_add_func("/dma-fault/scatter", test_scatter_refused);
    g_test_add_func("/dma-fault/receive", test_receive_refused);
    g_test_add_func("/dma-fault/remote-write", test_remote_write_refused);
    g_test_add_func("/dma-fault/wqe-fetch", test_wqe_fetch_refused);
    g_test_add_func("/dma-fault/rq-fetch", test_rq_fetch_refused);
    return g_test_run();
}
