/*
 * What one guest action may cost the device: each call into the core (a
 * doorbell, a register write, one engine run as QEMU's bottom half makes
 * it) does a bounded amount of work whatever the guest queued, so the
 * vCPU waiting on it and every other tenant waits a bounded time. The
 * fake host counts the DMA operations, bytes and frames of every call.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"
#include "sr-host.h"
#include "engine/wq.h"
#include "engine/xmit.h"
#include "port/wire.h"
#include "objects/qpc.h"
#include "transport/transport.h"

/* The bounds of one call */
#define CALL_MAX_DMA_OPS    1024
#define CALL_MAX_DMA_BYTES  (1u << 20)
#define CALL_MAX_FRAMES     64

typedef struct Cost {
    uint64_t ops, bytes;
    unsigned frames;
} Cost;

static Cost cost_now(FakeHost *h)
{
    return (Cost) { h->dma_ops, h->dma_bytes, h->frames->len };
}

/* The call since 'before' kept within the bounds: its DMA operations */
static uint64_t cost_check(FakeHost *h, const Cost *before)
{
    Cost now = cost_now(h);

    g_assert_cmpuint(now.ops - before->ops, <=, CALL_MAX_DMA_OPS);
    g_assert_cmpuint(now.bytes - before->bytes, <=, CALL_MAX_DMA_BYTES);
    g_assert_cmpuint(now.frames - before->frames, <=, CALL_MAX_FRAMES);
    return now.ops - before->ops;
}

/* MODIFY_QP of 'qpn' to ERR posted, within the bounds */
static void post_to_err(Node *n, uint32_t qpn)
{
    Cost before = cost_now(n->h);

    node_post_to_err(n, qpn);
    cost_check(n->h, &before);
}

/*
 * One engine run as the glue makes it, checked against the bounds, then
 * the CQ drained as the consumer would: the completions the run made,
 * every one a flush. True if the run reported more work.
 */
static bool run_once(Node *n, unsigned *cqes, uint32_t *last_qpn,
                     uint64_t *sq_seen, unsigned *rq_seen)
{
    Cost before = cost_now(n->h);
    struct snic_cqe c;
    bool more = snic_core_run(n->h->core, SNIC_CORE_RUN_BUDGET);
    unsigned got = 0;

    cost_check(n->h, &before);
    while (node_poll_cq(n, &c)) {
        g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
        if (c.opcode == SNIC_WC_RECV) {
            ++*rq_seen;
        } else if (sq_seen) {
            /* a QP's send completions come in post order */
            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, ++*sq_seen);
        }
        *last_qpn = GUINT32_FROM_LE(c.qpn);
        got++;
    }
    g_assert_cmpuint(got, <=, SNIC_WQES_PER_CALL);
    *cqes += got;
    return more;
}

/*
 * 32K posted WQEs and a full RQ flushed by one MODIFY_QP to ERR: no call
 * flushes more than SNIC_WQES_PER_CALL of them or exceeds the DMA and
 * frame bounds, and the flush resumes run after run until every WQE has
 * its FLUSH_ERR completion, the sends in post order. The node's CQ of
 * 1024 entries never overruns: the consumer keeps up, call by call.
 */
static void test_flush_32k(void)
{
    const uint64_t pbl = FAKE_MEM_BASE + FAKE_MEM_SIZE;
    const uint64_t ring = pbl + 0x10000;
    const unsigned depth = 1u << SNIC_MAX_QP_WR_LOG2;
    uint64_t sq_seen = 0;
    unsigned i, cqes = 0, rq_seen = 0, runs = 0;
    uint32_t qpn, last = 0;
    Node n;

    node_init(&n, NULL, 1);
    fake_host_grow(n.h, 0x10000 + (size_t)SNIC_SQ_WQE_SIZE * depth);
    node_pbl(n.h, pbl, ring, SNIC_SQ_WQE_SIZE * depth / 4096);
    qpn = node_qp_in_init(&n, pbl, SNIC_MAX_QP_WR_LOG2);
    for (i = 0; i < depth; i++) {
        node_write_wqe_at(n.h, ring + (uint64_t)i * SNIC_SQ_WQE_SIZE, i + 1);
    }
    fake_doorbell(n.h, n.ctx, SNIC_DB_SQ, qpn, depth);
    for (i = 0; i < (1u << RQ_LOG2); i++) {
        struct snic_rq_wqe r = { .wr_id = GUINT64_TO_LE(i) };

        fake_write(n.h, RQ_RING + i * SNIC_RQ_WQE_SIZE, &r, sizeof(r));
    }
    fake_doorbell(n.h, n.ctx, SNIC_DB_RQ, qpn, 1u << RQ_LOG2);
    g_assert_false(snic_core_run(n.h->core, SNIC_CORE_RUN_BUDGET));   /* INIT: idle */

    post_to_err(&n, qpn);
    while (run_once(&n, &cqes, &last, &sq_seen, &rq_seen)) {
        runs++;
        g_assert_cmpuint(runs, <, 2 * depth / SNIC_WQES_PER_CALL);
    }
    g_assert_cmpuint(sq_seen, ==, depth);
    g_assert_cmpuint(rq_seen, ==, 1u << RQ_LOG2);
    g_assert_cmpuint(cqes, ==, depth + (1u << RQ_LOG2));
    g_assert_cmpuint(last, ==, qpn);
    g_assert_cmpuint(fake_guest_errors_matching(n.h, "overrun"), ==, 0);
    /* nothing is left: a doorbell of the drained QP flushes what it posts */
    g_assert_false(snic_core_run(n.h->core, SNIC_CORE_RUN_BUDGET));
    node_write_wqe_at(n.h, ring, 0xabc);
    fake_doorbell(n.h, n.ctx, SNIC_DB_SQ, qpn, depth + 1);
    while (run_once(&n, &cqes, &last, NULL, &rq_seen)) {
    }
    g_assert_cmpuint(cqes, ==, depth + (1u << RQ_LOG2) + 1);
    fake_host_free(n.h);
}

/*
 * 1000 QPs, 64 WQEs posted on each, moved to ERR by MODIFY_QPs a full
 * admin queue at a time: each call keeps within the bounds however many
 * of them one run executes, and every WQE is flushed in the end.
 */
static void test_err_1000_qps(void)
{
    enum { NQP = 1000, WQES = 64 };
    const unsigned batch = (1u << 4) - 1;   /* node_init's admin queue */
    uint32_t *qpns = g_new(uint32_t, NQP);
    unsigned i, done = 0, cqes = 0, rq_seen = 0, runs = 0;
    struct snic_admin_cqe ac;
    Node n;

    node_init(&n, NULL, 1);
    for (i = 0; i < WQES; i++) {
        node_write_wqe_at(n.h, SQ_RING + i * SNIC_SQ_WQE_SIZE, i + 1);
    }
    /* they share one SQ ring: the device reads whatever the guest wrote */
    for (i = 0; i < NQP; i++) {
        qpns[i] = node_qp_in_init(&n, PBL_SQ, SQ_LOG2);
        fake_doorbell(n.h, n.ctx, SNIC_DB_SQ, qpns[i], WQES);
    }
    g_assert_false(snic_core_run(n.h->core, SNIC_CORE_RUN_BUDGET));

    while (done < NQP) {
        unsigned posted = MIN(batch, NQP - done), answered = 0;
        bool more;

        for (i = 0; i < posted; i++) {
            post_to_err(&n, qpns[done + i]);
        }
        do {
            uint32_t last = 0;

            more = run_once(&n, &cqes, &last, NULL, &rq_seen);
            while (fake_admin_poll(n.h, &ac)) {
                g_assert_cmpuint(GUINT16_FROM_LE(ac.status), ==,
                                 SNIC_ADMIN_OK);
                answered++;
            }
            g_assert_cmpuint(++runs, <, 4 * NQP * WQES /
                                        SNIC_WQES_PER_CALL);
        } while (more || answered < posted);
        done += posted;
    }
    g_assert_cmpuint(cqes, ==, NQP * WQES);
    g_assert_cmpuint(rq_seen, ==, 0);
    for (i = 0; i < NQP; i++) {
        g_assert_cmpuint(n.h->core->qps[qpns[i]].sq_comp, ==, WQES);
        g_assert_cmpuint(n.h->core->qps[qpns[i]].state, ==, SNIC_QPS_ERR);
    }
    g_assert_cmpuint(fake_guest_errors_matching(n.h, "overrun"), ==, 0);
    g_free(qpns);
    fake_host_free(n.h);
}

/*
 * b's ACK, NAK (syndrome) or READ response (opcode, PSN, MSN, payload) to
 * its peer built into frame[256]: its length
 */
static size_t peer_frame(Node *b, uint8_t opcode, uint8_t syndrome,
                         uint32_t psn, uint32_t msn, const void *payload,
                         uint32_t len, uint8_t *frame)
{
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(b->h->core, &b->h->core->qps[b->qpn], &p);
    p.opcode = opcode;
    p.psn = psn & SNIC_PSN_MASK;
    p.aeth.syndrome = syndrome;
    p.aeth.msn = msn;
    p.payload = payload;
    p.payload_len = len;
    return snic_wire_build(&p, frame, 256);
}

/* ... an ACK or READ response, into a, run */
static void from_peer(Node *a, Node *b, uint8_t opcode, uint32_t psn,
                      uint32_t msn, const void *payload, uint32_t len)
{
    uint8_t frame[256];
    size_t n = peer_frame(b, opcode, SNIC_AETH_ACK, psn, msn, payload, len,
                          frame);

    node_inject(a, frame, n);
    fake_run(a->h);
}

/*
 * A READ outstanding behind 64 WRITEs: each ACK of a WRITE completes it
 * (its WQE read, its CQE written) and must also find where the READ's
 * responses begin, which an ACK beyond them would imply lost. That place
 * is kept in the QP context: the ACK reads no WQE between the oldest
 * and the READ, so its DMA does not grow with the WRITEs queued before.
 */
static void test_ack_behind_writes(void)
{
    enum { WRITES = 64 };
    uint32_t first;
    Node a, b;
    unsigned i;

    node_init(&a, NULL, 1);
    node_init(&b, NULL, 2);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    first = a.h->core->qps[a.qpn].req.next_psn;
    for (i = 0; i < WRITES; i++) {
        node_post_send(&a, i, SNIC_WR_RDMA_WRITE, BUF, 64, BUF, b.lkey, 0,
                       a.lkey);
    }
    node_post_send(&a, WRITES, SNIC_WR_RDMA_READ, BUF, 64, BUF, b.lkey, 0,
                   a.lkey);
    fake_run(a.h);
    g_assert_cmpuint(a.h->core->qps[a.qpn].req.rd_atomic, ==, 1);
    for (i = 0; i < WRITES; i++) {
        struct snic_cqe c;
        uint64_t ops = a.h->dma_ops;

        from_peer(&a, &b, SNIC_OP_RC_ACK, first + i, i + 1, NULL, 0);
        /* the WRITE's WQE read and its CQE: a few, never the queue */
        g_assert_cmpuint(a.h->dma_ops - ops, <=, 8);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, i);
    }
    g_assert_false(node_poll_cq(&a, &(struct snic_cqe){ 0 }));
    g_assert_cmpuint(a.h->core->qps[a.qpn].state, ==, SNIC_QPS_RTS);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * Two READs in flight, the second rewritten by the guest into a WRITE
 * once started: when the first completes, the QP context's next READ is
 * looked for and not found. The ACK of the "WRITE" is then taken as if no
 * READ were outstanding (no barrier stops it), and its completion finds
 * the count of READs wrong: LOC_QP_OP_ERR, the QP in ERR.
 */
/*
 * a's two READs (wr_id 1 and 2) to b started, then the second rewritten
 * to a WRITE in the ring; its QP, and the first READ's PSN in *first
 */
static SnicQp *two_reads_second_rewritten(Node *a, Node *b, uint32_t *first)
{
    struct snic_sq_wqe w;
    SnicQp *qa;

    node_init(a, NULL, 1);
    node_init(b, NULL, 2);
    node_connect(a, b, SNIC_MTU_1024, 7, 7);
    node_connect(b, a, SNIC_MTU_1024, 7, 7);
    qa = &a->h->core->qps[a->qpn];
    *first = qa->req.next_psn;
    node_post_send(a, 1, SNIC_WR_RDMA_READ, BUF, 64, BUF, b->lkey, 0,
                   a->lkey);
    node_post_send(a, 2, SNIC_WR_RDMA_READ, BUF + 64, 64, BUF, b->lkey, 0,
                   a->lkey);
    fake_run(a->h);
    g_assert_cmpuint(qa->req.rd_atomic, ==, 2);
    fake_read(a->h, SQ_RING + SNIC_SQ_WQE_SIZE, &w, sizeof(w));
    w.opcode = SNIC_WR_RDMA_WRITE;
    fake_write(a->h, SQ_RING + SNIC_SQ_WQE_SIZE, &w, sizeof(w));
    return qa;
}

static void test_read_rewritten(void)
{
    static const uint8_t data[64];
    struct snic_cqe c;
    SnicQp *qa;
    uint32_t first;
    Node a, b;

    qa = two_reads_second_rewritten(&a, &b, &first);
    from_peer(&a, &b, SNIC_OP_RC_READ_RESP_ONLY, first, 1, data,
              sizeof(data));
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 1);
    from_peer(&a, &b, SNIC_OP_RC_ACK, first + 1, 2, NULL, 0);
    g_assert_true(node_poll_cq(&a, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(qa->state, ==, SNIC_QPS_ERR);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * The same rewrite, then a WRITE posted and sent after READ 1's answer,
 * its ACK heard five times: the QP fails at the rewritten WQE; it never
 * stays in RTS with ACKs that cannot move it (a barrier made up for the
 * missing READ held every later ACK)
 */
static void test_read_rewritten_then_more(void)
{
    static const uint8_t data[64];
    struct snic_cqe c;
    unsigned i, n = 0;
    bool flushed = false, failed = false;
    SnicQp *qa;
    uint32_t first;
    Node a, b;

    qa = two_reads_second_rewritten(&a, &b, &first);
    from_peer(&a, &b, SNIC_OP_RC_READ_RESP_ONLY, first, 1, data,
              sizeof(data));
    node_post_send(&a, 3, SNIC_WR_RDMA_WRITE, BUF, 64, BUF, b.lkey, 0,
                   a.lkey);
    fake_run(a.h);
    for (i = 0; i < 5; i++) {
        from_peer(&a, &b, SNIC_OP_RC_ACK, first + 2, 3, NULL, 0);
    }
    fake_run(a.h);
    while (node_poll_cq(&a, &c)) {
        uint64_t id = GUINT64_FROM_LE(c.wr_id);

        n++;
        if (id == 1) {
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        } else if (id == 2) {
            g_assert_cmpuint(c.status, ==, SNIC_WC_LOC_QP_OP_ERR);
            failed = true;
        } else {
            g_assert_cmpuint(id, ==, 3);
            g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
            flushed = true;
        }
    }
    g_assert_cmpuint(n, ==, 3);
    g_assert_true(failed && flushed);
    g_assert_cmpuint(qa->state, ==, SNIC_QPS_ERR);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * SRNIC: an 8 KiB READ behind 200 one-packet WRITEs, all in flight. Its
 * responses ahead of lACK are placed at once (sr_read.c); each names the
 * READ's WQE by SQ index and reads that one WQE, not every WQE in flight
 * before it. A response naming another WQE (a WRITE's, one not in
 * flight) or a place that is not one of the READ's (an address off an
 * MTU boundary or beyond the READ) is refused with nothing written.
 */
enum { SR_WRITES = 200, SR_READ_LEN = 8192 };

typedef struct SrRead {
    Node a, b;
    SrHost ha;
    uint32_t psn0;              /* the READ's first PSN */
} SrRead;

/* b's READ response k (of the READ's 8) into a, as an SRNIC responder */
static uint64_t sr_read_resp(SrRead *s, uint32_t k, uint16_t sq_index,
                             uint64_t va)
{
    uint8_t frame[2048];
    uint64_t ops = s->a.h->dma_ops;
    SnicPkt p;
    size_t n;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(s->b.h->core, &s->b.h->core->qps[s->b.qpn], &p);
    p.opcode = SNIC_OP_RC_READ_RESP_MIDDLE;
    p.psn = (s->psn0 + k) & SNIC_PSN_MASK;
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.payload = fake_ptr(s->b.h, BUF + k * 1024ull, 1024);
    p.payload_len = 1024;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_RESP;
    p.xeth.sq_index = sq_index;
    p.xeth.va = va;
    p.xeth.msg = s->psn0;
    p.xeth.offset = k;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&s->a, frame, n);
    fake_run(s->a.h);
    return s->a.h->dma_ops - ops;
}

static void test_sr_read_behind_writes(void)
{
    const uint64_t dst = BUF + 0x200000;
    uint8_t *local;
    SnicQp *qa;
    SrRead s;
    unsigned i, k;

    node_init(&s.a, NULL, 1);
    node_init(&s.b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&s.a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&s.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&s.ha, &s.a, NULL, 6, 2, SNIC_SR_SPAN);
    node_connect(&s.a, &s.b, SNIC_MTU_1024, 7, 7);
    node_connect(&s.b, &s.a, SNIC_MTU_1024, 7, 7);
    qa = &s.a.h->core->qps[s.a.qpn];
    s.psn0 = (qa->req.next_psn + SR_WRITES) & SNIC_PSN_MASK;
    node_fill(&s.b, BUF, SR_READ_LEN, 5);
    local = fake_ptr(s.a.h, dst, SR_READ_LEN);
    memset(local, 0xee, SR_READ_LEN);
    for (i = 0; i < SR_WRITES; i++) {
        node_post_send(&s.a, i, SNIC_WR_RDMA_WRITE, BUF, 64, BUF, s.b.lkey, 0,
                       s.a.lkey);
    }
    node_post_send(&s.a, SR_WRITES, SNIC_WR_RDMA_READ, dst, SR_READ_LEN, BUF,
                   s.b.lkey, 0, s.a.lkey);
    fake_run(s.a.h);
    g_assert_cmpuint(snic_transport_outstanding(qa), ==, SR_WRITES + 8);

    /* hostile: nothing placed, nothing written, the QP unharmed */
    sr_read_resp(&s, 1, 7, BUF + 1024);                 /* a WRITE's */
    sr_read_resp(&s, 1, SR_WRITES + 1, BUF + 1024);     /* not started */
    sr_read_resp(&s, 1, 0xffff, BUF + 1024);            /* completed */
    sr_read_resp(&s, 1, SR_WRITES, BUF + 1000);         /* off the MTU */
    sr_read_resp(&s, 1, SR_WRITES, BUF + SR_READ_LEN);  /* beyond it */
    sr_read_resp(&s, 1, SR_WRITES, BUF - 1024);         /* before it */
    g_assert_cmpuint(FAKE_STAT(s.a.h, sr_read_refused), ==, 6);
    g_assert_cmpuint(FAKE_STAT(s.a.h, sr_read_placed), ==, 0);
    for (i = 0; i < SR_READ_LEN; i++) {
        g_assert_cmpuint(local[i], ==, 0xee);
    }
    g_assert_cmpuint(qa->state, ==, SNIC_QPS_RTS);

    /*
     * responses 1-7 ahead of lACK (the WRITEs are not acknowledged): each
     * placed and reported with a few DMA operations (the WQE, the data,
     * the report), however many WQEs are in flight before the READ
     */
    for (k = 1; k < 8; k++) {
        g_assert_cmpuint(sr_read_resp(&s, k, SR_WRITES, BUF + k * 1024ull),
                         <=, 8);
        g_assert_cmpuint(FAKE_STAT(s.a.h, sr_read_placed), ==, k);
    }
    g_assert_cmpmem(local + 1024, SR_READ_LEN - 1024,
                    fake_ptr(s.b.h, BUF + 1024, SR_READ_LEN - 1024),
                    SR_READ_LEN - 1024);
    g_assert_cmpuint(local[0], ==, 0xee);
    g_assert_cmpuint(FAKE_STAT(s.a.h, sr_read_refused), ==, 6);
    g_assert_cmpuint(qa->state, ==, SNIC_QPS_RTS);
    sr_host_free(&s.ha);
    fake_host_free(s.a.h);
    fake_host_free(s.b.h);
}

/* from's frames since *seen into to, each taken in: the peer's view */
static void deliver(Node *from, Node *to, unsigned *seen)
{
    while (*seen < from->h->frames->len) {
        GByteArray *f = g_ptr_array_index(from->h->frames, (*seen)++);

        node_inject(to, f->data, f->len);
    }
}

/*
 * Every completion since the last poll: a success, each QP's in post
 * order (wr_id: the QP's number in the test << 16, then the WQE's),
 * counted in done[]; how many there were
 */
static unsigned poll_in_order(Node *n, unsigned *done)
{
    struct snic_cqe cqe;
    unsigned got = 0;

    while (node_poll_cq(n, &cqe)) {
        uint64_t id = GUINT64_FROM_LE(cqe.wr_id);

        g_assert_cmpuint(cqe.status, ==, SNIC_WC_SUCCESS);
        g_assert_cmpuint(id & 0xffff, ==, done[id >> 16]++);
        got++;
    }
    return got;
}

/*
 * Engine runs as the glue makes them until one reports no more work,
 * each within the bounds and completing no more WQEs than a call may;
 * the completions polled after each into done[]
 */
static void run_until_idle(Node *n, unsigned *done)
{
    unsigned runs = 0;
    bool more;

    do {
        Cost before = cost_now(n->h);

        g_assert_cmpuint(++runs, <, 64);
        more = snic_core_run(n->h->core, SNIC_CORE_RUN_BUDGET);
        cost_check(n->h, &before);
        g_assert_cmpuint(poll_in_order(n, done), <=, SNIC_WQES_PER_CALL);
    } while (more);
}

/*
 * One ACK that acknowledges a full window of WRITEs at once: taking it
 * in (snic_core_receive) and the engine runs that follow complete every
 * WRITE (its WQE read, its CQE written), each call within the bounds,
 * at most SNIC_WQES_PER_CALL of them per call, all in post order. The
 * QP under test has an SQ of 2^sq_log2 WQEs.
 */
static void ack_full_window(uint8_t program, unsigned writes, uint8_t sq_log2)
{
    unsigned i, seen = 0, done = 0;
    GByteArray *ack;
    SrHost ha;
    Cost before;
    SnicQp *qa;
    Node a, b;

    node_init(&a, NULL, 1);
    node_init(&b, NULL, 2);
    if (sq_log2 > SQ_LOG2) {
        Node big;

        fake_host_grow(a.h, 0x1000 + ((size_t)SNIC_SQ_WQE_SIZE << sq_log2));
        node_add_qp_sq_at(&big, &a, FAKE_MEM_BASE + FAKE_MEM_SIZE, sq_log2);
        a = big;
    }
    if (program != SNIC_TRANSPORT_GBN) {
        g_assert_cmpuint(node_set_transport(&a, program, 0), ==,
                         SNIC_ADMIN_OK);
        g_assert_cmpuint(node_set_transport(&b, program, 0), ==,
                         SNIC_ADMIN_OK);
    }
    if (program == SNIC_TRANSPORT_SRNIC) {
        sr_host_init(&ha, &a, NULL, 6, 2, SNIC_SR_SPAN);
    }
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    qa = &a.h->core->qps[a.qpn];
    for (i = 0; i < writes; i++) {
        node_post_send(&a, i, SNIC_WR_RDMA_WRITE, BUF, 64, BUF, b.lkey, 0,
                       a.lkey);
    }
    fake_run(a.h);
    g_assert_cmpuint(snic_transport_outstanding(qa), ==, writes);
    /* b takes them all, then acknowledges them */
    deliver(&a, &b, &seen);
    seen = b.h->frames->len;
    fake_run(b.h);
    g_assert_cmpuint(b.h->frames->len, >, seen);
    ack = g_ptr_array_index(b.h->frames, b.h->frames->len - 1);

    before = cost_now(a.h);
    g_assert_cmpint(snic_core_receive(a.h->core, ack->data, ack->len), ==,
                    ack->len);
    cost_check(a.h, &before);
    run_until_idle(&a, &done);
    g_assert_cmpuint(done, ==, writes);
    g_assert_cmpuint(snic_transport_outstanding(qa), ==, 0);
    g_assert_false(qa->req.comp_owed);
    g_assert_cmpuint(qa->state, ==, SNIC_QPS_RTS);
    if (program == SNIC_TRANSPORT_SRNIC) {
        sr_host_free(&ha);
    }
    fake_host_free(a.h);
    fake_host_free(b.h);
}

static void test_ack_full_window(void)
{
    ack_full_window(SNIC_TRANSPORT_GBN, SNIC_TX_WINDOW, SQ_LOG2);
}

static void test_sr_ack_full_window(void)
{
    ack_full_window(SNIC_TRANSPORT_SRNIC, (1u << SQ_LOG2) - 1, SQ_LOG2);
}

/* SRNIC's whole span of one-packet WRITEs acknowledged by one ACK */
static void test_sr_ack_full_span(void)
{
    ack_full_window(SNIC_TRANSPORT_SRNIC, SNIC_SR_SPAN, 10);
}

/*
 * NQP QPs of a to b's, each with a full go-back-N window of WRITEs sent
 * and taken by b; the cumulative ACK of each in acks[] (b's frames), not
 * yet delivered to a
 */
enum { ACK_QPS = 8, ACK_WRITES = SNIC_TX_WINDOW };

typedef struct AckedQps {
    Node a, b, qa[ACK_QPS], qb[ACK_QPS];
    GByteArray *acks[ACK_QPS];
    unsigned done[ACK_QPS + 1];     /* ... and a QP of the test's own */
} AckedQps;

static void acked_qps_init(AckedQps *t)
{
    const uint64_t area = FAKE_MEM_BASE + FAKE_MEM_SIZE;
    unsigned i, k, seen = 0;

    memset(t, 0, sizeof(*t));
    node_init(&t->a, NULL, 1);
    node_init(&t->b, NULL, 2);
    fake_host_grow(t->a.h, (size_t)ACK_QPS * NODE_QP_AREA);
    fake_host_grow(t->b.h, (size_t)ACK_QPS * NODE_QP_AREA);
    for (i = 0; i < ACK_QPS; i++) {
        node_add_qp_at(&t->qa[i], &t->a, area + (uint64_t)i * NODE_QP_AREA);
        node_add_qp_at(&t->qb[i], &t->b, area + (uint64_t)i * NODE_QP_AREA);
        node_connect(&t->qa[i], &t->qb[i], SNIC_MTU_1024, 7, 7);
        node_connect(&t->qb[i], &t->qa[i], SNIC_MTU_1024, 7, 7);
    }
    for (i = 0; i < ACK_QPS; i++) {
        unsigned before;

        for (k = 0; k < ACK_WRITES; k++) {
            node_post_send(&t->qa[i], (uint64_t)i << 16 | k,
                           SNIC_WR_RDMA_WRITE, BUF, 64, BUF, t->b.lkey, 0,
                           t->a.lkey);
        }
        fake_run(t->a.h);
        g_assert_cmpuint(snic_transport_outstanding(
                             &t->a.h->core->qps[t->qa[i].qpn]), ==,
                         ACK_WRITES);
        deliver(&t->a, &t->b, &seen);
        before = t->b.h->frames->len;
        fake_run(t->b.h);
        g_assert_cmpuint(t->b.h->frames->len, >, before);
        t->acks[i] = g_ptr_array_index(t->b.h->frames,
                                       t->b.h->frames->len - 1);
    }
}

/* Every ACK into a, as the wire hands them over: one run takes them all */
static void acked_qps_deliver(AckedQps *t)
{
    unsigned i;

    for (i = 0; i < ACK_QPS; i++) {
        Cost before = cost_now(t->a.h);

        g_assert_cmpint(snic_core_receive(t->a.h->core, t->acks[i]->data,
                                          t->acks[i]->len), ==,
                        t->acks[i]->len);
        cost_check(t->a.h, &before);
    }
}

static void acked_qps_free(AckedQps *t)
{
    fake_host_free(t->a.h);
    fake_host_free(t->b.h);
}

/*
 * Eight QPs' ACKs, each of a full window, taken in one engine run: the
 * run completes no more than a call may, the rest complete in the runs
 * after it, each QP's WQEs in post order, every one in the end.
 */
static void test_acks_many_qps(void)
{
    AckedQps t;
    unsigned i;

    acked_qps_init(&t);
    acked_qps_deliver(&t);
    run_until_idle(&t.a, t.done);
    for (i = 0; i < ACK_QPS; i++) {
        SnicQp *qp = &t.a.h->core->qps[t.qa[i].qpn];

        g_assert_cmpuint(t.done[i], ==, ACK_WRITES);
        g_assert_cmpuint(snic_transport_outstanding(qp), ==, 0);
        g_assert_false(qp->req.comp_owed);
        g_assert_cmpuint(qp->state, ==, SNIC_QPS_RTS);
    }
    acked_qps_free(&t);
}

/* One engine run within the bounds, and the admin commands it answered */
static bool run_admin_ok(Node *n)
{
    Cost before = cost_now(n->h);
    struct snic_admin_cqe ac;
    bool more = snic_core_run(n->h->core, SNIC_CORE_RUN_BUDGET);

    cost_check(n->h, &before);
    while (fake_admin_poll(n->h, &ac)) {
        g_assert_cmpuint(GUINT16_FROM_LE(ac.status), ==, SNIC_ADMIN_OK);
    }
    return more;
}

/*
 * The same ACKs, one run taking them in; then, while QPs are still owed
 * their completions: the first QP's ACK heard again (nothing completes
 * twice), a QP reset (it is owed nothing any more, and completes nothing)
 * and a QP moved to ERR (its WQEs not completed yet are flushed, in post
 * order). The others complete in full.
 */
static void test_acks_owed_then_events(void)
{
    enum { RESET = ACK_QPS - 2, ERRED = ACK_QPS - 1 };
    unsigned i, flushed = 0, runs = 0;
    struct snic_cqe cqe;
    SnicCore *c;
    AckedQps t;

    acked_qps_init(&t);
    c = t.a.h->core;
    acked_qps_deliver(&t);
    g_assert_true(run_admin_ok(&t.a));
    g_assert_cmpuint(poll_in_order(&t.a, t.done), <=, SNIC_WQES_PER_CALL);
    g_assert_true(c->qps[t.qa[RESET].qpn].req.comp_owed);

    snic_core_receive(c, t.acks[0]->data, t.acks[0]->len);
    node_post_to_state(&t.a, t.qa[RESET].qpn, SNIC_QPS_RESET);
    g_assert_true(run_admin_ok(&t.a));
    g_assert_cmpuint(c->qps[t.qa[RESET].qpn].state, ==, SNIC_QPS_RESET);
    g_assert_false(c->qps[t.qa[RESET].qpn].req.comp_owed);
    g_assert_cmpuint(FAKE_STAT(t.a.h, rdma_rx_stale), ==, 1);
    g_assert_cmpuint(poll_in_order(&t.a, t.done), <=, SNIC_WQES_PER_CALL);

    g_assert_true(c->qps[t.qa[ERRED].qpn].req.comp_owed);
    node_post_to_err(&t.a, t.qa[ERRED].qpn);
    while (run_admin_ok(&t.a)) {
        g_assert_cmpuint(++runs, <, 64);
    }
    while (node_poll_cq(&t.a, &cqe)) {
        uint64_t id = GUINT64_FROM_LE(cqe.wr_id);
        unsigned q = id >> 16;

        if (cqe.status == SNIC_WC_WR_FLUSH_ERR) {
            g_assert_cmpuint(q, ==, ERRED);
            flushed++;
        } else {
            g_assert_cmpuint(cqe.status, ==, SNIC_WC_SUCCESS);
            g_assert_true(q != ERRED || !flushed);
        }
        /* a flushed WQE carries its wr_id too: post order holds */
        g_assert_cmpuint(id & 0xffff, ==, t.done[q]++);
    }
    g_assert_cmpuint(flushed, >, 0);
    for (i = 0; i < ACK_QPS; i++) {
        SnicQp *qp = &c->qps[t.qa[i].qpn];

        g_assert_false(qp->req.comp_owed);
        g_assert_cmpuint(t.done[i], ==, i == RESET ? 0 : ACK_WRITES);
        g_assert_cmpuint(qp->state, ==, i == RESET ? SNIC_QPS_RESET :
                                        i == ERRED ? SNIC_QPS_ERR :
                                        SNIC_QPS_RTS);
    }
    acked_qps_free(&t);
}

/*
 * Two QPs' ACKs of full windows, then a remote access NAK of the third
 * QP's 33rd WRITE, all in one run: the first two use the call's budget,
 * so the NAK's implied ACK of WRITEs 1-32 leaves them owed when the
 * 33rd fails. They complete as acknowledged, the 33rd with the NAK's
 * error, the rest flushed, in post order.
 */
static void test_acks_owed_then_nak(void)
{
    enum { NAKED = 2, FAILED = 32 };
    uint8_t frame[256];
    unsigned i, runs = 0;
    struct snic_cqe cqe;
    Cost before;
    SnicQp *qp;
    AckedQps t;
    bool more;
    size_t n;

    acked_qps_init(&t);
    qp = &t.a.h->core->qps[t.qa[NAKED].qpn];
    n = peer_frame(&t.qb[NAKED], SNIC_OP_RC_ACK, SNIC_AETH_NAK_REM_ACCESS,
                   qp->req.dde.wnd_start + FAILED, 0, NULL, 0, frame);
    for (i = 0; i < NAKED; i++) {
        snic_core_receive(t.a.h->core, t.acks[i]->data, t.acks[i]->len);
    }
    snic_core_receive(t.a.h->core, frame, n);
    do {
        g_assert_cmpuint(++runs, <, 64);
        before = cost_now(t.a.h);
        more = snic_core_run(t.a.h->core, SNIC_CORE_RUN_BUDGET);
        cost_check(t.a.h, &before);
    } while (more);
    while (node_poll_cq(&t.a, &cqe)) {
        uint64_t id = GUINT64_FROM_LE(cqe.wr_id);
        unsigned q = id >> 16, k = id & 0xffff;

        g_assert_cmpuint(k, ==, t.done[q]++);
        g_assert_cmpuint(cqe.status, ==,
                         q != NAKED || k < FAILED ? SNIC_WC_SUCCESS :
                         k == FAILED ? SNIC_WC_REM_ACCESS_ERR :
                         SNIC_WC_WR_FLUSH_ERR);
    }
    for (i = 0; i <= NAKED; i++) {
        g_assert_cmpuint(t.done[i], ==, ACK_WRITES);
    }
    g_assert_false(qp->req.comp_owed);
    g_assert_cmpuint(qp->state, ==, SNIC_QPS_ERR);
    acked_qps_free(&t);
}

/*
 * Two QPs' ACKs of full windows use the run's budget; then the third
 * QP's ACK of its first 96 WRITEs leaves them owed, and its cumulative
 * ACK, in the same run, finds them owed with no budget left: dropped,
 * as the wire may drop it (the other QPs' ACKs, behind it, are owed
 * too). They complete in the QP's next iterations; its last 32 WRITEs
 * once the retransmission timer resends them and the peer answers again:
 * every WRITE once, in post order.
 */
static void test_acks_owed_then_ack(void)
{
    enum { LATE = 2, FIRST = 96 };
    uint64_t dropped;
    uint8_t frame[256];
    unsigned i, seen, before_b;
    GByteArray *ack;
    SnicQp *qp;
    AckedQps t;
    size_t n;

    acked_qps_init(&t);
    qp = &t.a.h->core->qps[t.qa[LATE].qpn];
    n = peer_frame(&t.qb[LATE], SNIC_OP_RC_ACK, SNIC_AETH_ACK,
                   qp->req.dde.wnd_start + FIRST - 1, FIRST, NULL, 0, frame);
    for (i = 0; i < LATE; i++) {
        snic_core_receive(t.a.h->core, t.acks[i]->data, t.acks[i]->len);
    }
    snic_core_receive(t.a.h->core, frame, n);
    for (i = LATE; i < ACK_QPS; i++) {
        snic_core_receive(t.a.h->core, t.acks[i]->data, t.acks[i]->len);
    }
    dropped = FAKE_STAT(t.a.h, rdma_rx_dropped);
    g_assert_true(run_admin_ok(&t.a));
    g_assert_cmpuint(FAKE_STAT(t.a.h, rdma_rx_dropped), ==, dropped + 1);
    g_assert_true(qp->req.comp_owed);
    g_assert_cmpuint(poll_in_order(&t.a, t.done), ==, SNIC_WQES_PER_CALL);
    run_until_idle(&t.a, t.done);
    g_assert_cmpuint(t.done[LATE], ==, FIRST);
    g_assert_false(qp->req.comp_owed);
    g_assert_cmpuint(snic_transport_outstanding(qp), ==, ACK_WRITES - FIRST);

    /* the timer resends the rest; b acknowledges them again */
    seen = t.a.h->frames->len;
    t.a.h->port.now += 1000000000ull;
    snic_core_timer(t.a.h->core);
    run_until_idle(&t.a, t.done);
    g_assert_cmpuint(t.a.h->frames->len, >, seen);
    deliver(&t.a, &t.b, &seen);
    before_b = t.b.h->frames->len;
    fake_run(t.b.h);
    g_assert_cmpuint(t.b.h->frames->len, >, before_b);
    ack = g_ptr_array_index(t.b.h->frames, t.b.h->frames->len - 1);
    snic_core_receive(t.a.h->core, ack->data, ack->len);
    run_until_idle(&t.a, t.done);
    for (i = 0; i < ACK_QPS; i++) {
        g_assert_cmpuint(t.done[i], ==, ACK_WRITES);
    }
    g_assert_cmpuint(snic_transport_outstanding(qp), ==, 0);
    g_assert_cmpuint(qp->state, ==, SNIC_QPS_RTS);
    acked_qps_free(&t);
}

/*
 * A READ whose completion is owed: two QPs' ACKs of full windows use the
 * run's budget, then a READ response of a further QP (4 WRITEs, the
 * READ, a WRITE in flight) acknowledges the WRITEs before it and the
 * READ, all owed. The last WRITE's ACK, in the next run, completes them
 * first: the READ no longer counted, nothing stops that ACK (a READ still
 * counted would take it for a lost response and resend the WRITE), and
 * every WQE completes once, in post order, nothing sent again.
 */
static void test_acks_owed_read(void)
{
    enum { EATERS = 2, WRITES = 4, OWN = ACK_QPS };
    const uint64_t area = FAKE_MEM_BASE + FAKE_MEM_SIZE +
                          (uint64_t)ACK_QPS * NODE_QP_AREA;
    static const uint8_t data[64];
    uint8_t frame[256];
    unsigned i, frames;
    uint32_t first;
    Node qa, qb;
    SnicQp *qp;
    AckedQps t;
    size_t n;

    acked_qps_init(&t);
    fake_host_grow(t.a.h, NODE_QP_AREA);
    fake_host_grow(t.b.h, NODE_QP_AREA);
    node_add_qp_at(&qa, &t.a, area);
    node_add_qp_at(&qb, &t.b, area);
    node_connect(&qa, &qb, SNIC_MTU_1024, 7, 7);
    node_connect(&qb, &qa, SNIC_MTU_1024, 7, 7);
    qp = &t.a.h->core->qps[qa.qpn];
    first = qp->req.next_psn;
    for (i = 0; i < WRITES + 2; i++) {
        node_post_send(&qa, (uint64_t)OWN << 16 | i,
                       i == WRITES ? SNIC_WR_RDMA_READ : SNIC_WR_RDMA_WRITE,
                       BUF, sizeof(data), BUF, t.b.lkey, 0, t.a.lkey);
    }
    fake_run(t.a.h);
    g_assert_cmpuint(snic_transport_outstanding(qp), ==, WRITES + 2);

    for (i = 0; i < EATERS; i++) {
        snic_core_receive(t.a.h->core, t.acks[i]->data, t.acks[i]->len);
    }
    n = peer_frame(&qb, SNIC_OP_RC_READ_RESP_ONLY, SNIC_AETH_ACK,
                   first + WRITES, WRITES + 1, data, sizeof(data), frame);
    snic_core_receive(t.a.h->core, frame, n);
    g_assert_true(run_admin_ok(&t.a));
    g_assert_cmpuint(poll_in_order(&t.a, t.done), ==, SNIC_WQES_PER_CALL);
    g_assert_true(qp->req.comp_owed);
    g_assert_cmpuint(qp->req.rd_atomic, ==, 1);
    g_assert_cmpuint(snic_transport_outstanding(qp), ==, 1);

    frames = t.a.h->frames->len;
    n = peer_frame(&qb, SNIC_OP_RC_ACK, SNIC_AETH_ACK, first + WRITES + 1,
                   WRITES + 2, NULL, 0, frame);
    snic_core_receive(t.a.h->core, frame, n);
    run_until_idle(&t.a, t.done);
    g_assert_cmpuint(t.done[OWN], ==, WRITES + 2);
    g_assert_cmpuint(t.a.h->frames->len, ==, frames);
    g_assert_cmpuint(snic_transport_outstanding(qp), ==, 0);
    g_assert_cmpuint(qp->req.rd_atomic, ==, 0);
    g_assert_false(qp->req.comp_owed);
    g_assert_cmpuint(qp->state, ==, SNIC_QPS_RTS);
    acked_qps_free(&t);
}

/*
 * Many QPs whose retransmission timers expire at once, each with one
 * WRITE unacknowledged: one timer call and the engine runs after it keep
 * within the bounds. With retries left each QP sends its WRITE again;
 * with none, each fails: the WRITE completes RETRY_EXC_ERR and the QP
 * goes to ERR, every QP in the end, none skipped.
 */
static void timeouts_at_once(uint8_t retry_cnt)
{
    enum { NQP = 600 };
    Node a, b, *qs = g_new(Node, NQP);
    unsigned i, cqes = 0, runs = 0;
    struct snic_cqe cqe;
    Cost before;
    uint64_t sent;

    node_init(&a, NULL, 1);
    node_init(&b, NULL, 2);
    fake_host_grow(a.h, (size_t)NQP * NODE_QP_AREA);
    for (i = 0; i < NQP; i++) {
        node_add_qp_at(&qs[i], &a, FAKE_MEM_BASE + FAKE_MEM_SIZE +
                                   (uint64_t)i * NODE_QP_AREA);
        node_connect(&qs[i], &b, SNIC_MTU_1024, retry_cnt, 7);
        node_post_send(&qs[i], i, SNIC_WR_RDMA_WRITE, BUF, 64, BUF, b.lkey,
                       0, a.lkey);
    }
    fake_run(a.h);
    sent = a.h->frames->len;
    g_assert_cmpuint(sent, >=, NQP);

    /*
     * every timer due: the host's timer called, and called again while
     * it asks to be at once, the engine run after each call as the glue
     * schedules it
     */
    a.h->port.now += 1000000000ull;
    for (;;) {
        bool more;

        g_assert_cmpuint(++runs, <, 4 * NQP);
        before = cost_now(a.h);
        snic_core_timer(a.h->core);
        cost_check(a.h, &before);
        do {
            before = cost_now(a.h);
            more = snic_core_run(a.h->core, SNIC_CORE_RUN_BUDGET);
            cost_check(a.h, &before);
        } while (more);
        if (a.h->core->timer_deadline > a.h->port.now) {
            break;
        }
    }
    while (node_poll_cq(&a, &cqe)) {
        g_assert_cmpuint(cqe.status, ==, SNIC_WC_RETRY_EXC_ERR);
        cqes++;
    }
    if (retry_cnt) {
        g_assert_cmpuint(cqes, ==, 0);
        g_assert_cmpuint(a.h->frames->len - sent, ==, NQP);
    } else {
        g_assert_cmpuint(cqes, ==, NQP);
    }
    for (i = 0; i < NQP; i++) {
        g_assert_cmpuint(a.h->core->qps[qs[i].qpn].state, ==,
                         retry_cnt ? SNIC_QPS_RTS : SNIC_QPS_ERR);
    }
    g_free(qs);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

static void test_timeouts_resend(void)
{
    timeouts_at_once(7);
}

static void test_timeouts_fail(void)
{
    timeouts_at_once(0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/bound/flush-32k", test_flush_32k);
    g_test_add_func("/bound/err-1000-qps", test_err_1000_qps);
    g_test_add_func("/bound/ack-behind-writes", test_ack_behind_writes);
    g_test_add_func("/bound/read-rewritten", test_read_rewritten);
    g_test_add_func("/bound/read-rewritten-then-more",
                    test_read_rewritten_then_more);
    g_test_add_func("/bound/sr-read-behind-writes",
                    test_sr_read_behind_writes);
    g_test_add_func("/bound/ack-full-window", test_ack_full_window);
    g_test_add_func("/bound/sr-ack-full-window", test_sr_ack_full_window);
    g_test_add_func("/bound/sr-ack-full-span", test_sr_ack_full_span);
    g_test_add_func("/bound/acks-many-qps", test_acks_many_qps);
    g_test_add_func("/bound/acks-owed-then-events",
                    test_acks_owed_then_events);
    g_test_add_func("/bound/acks-owed-then-nak", test_acks_owed_then_nak);
    g_test_add_func("/bound/acks-owed-then-ack", test_acks_owed_then_ack);
    g_test_add_func("/bound/acks-owed-read", test_acks_owed_read);
    g_test_add_func("/bound/timeouts-resend", test_timeouts_resend);
    g_test_add_func("/bound/timeouts-fail", test_timeouts_fail);
    return g_test_run();
}
