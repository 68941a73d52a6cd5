/*
 * The connectionless transport with receiver registration
 * (hw/snic/core/cl/): two endpoints whose frames the test carries by
 * hand, so it drops, repeats and reorders exactly the packets it means
 * to. The initial mask of section 3.2 for every width and packet count;
 * a registered WRITE; duplicates before and after completion; the escape
 * channel's replay, timeout and overflow; a lost REGISTER; a lost final
 * ACK; a 1 MiB WRITE in 64 KiB segments acknowledged out of order;
 * non-registered WRITEs and a repeated NOTIFY; a late duplicate after
 * the buffer was registered again; MR violations; a full receiver CQ;
 * NOT_READY using no retries, bounded, and taken only for a REGISTER or
 * NOTIFY; retries exhausted; full sender tables parking and resuming;
 * SET_QP_CL's checks; the tables on chip and in QUERY_DEVICE; a hostile
 * peer's frames; malformed WQEs, a peer's out-of-range timeouts and a
 * packet naming another endpoint's operation.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "cl-fabric.h"
#include "engine-node.h"
#include "cl/cl.h"
#include "engine/xmit.h"
#include "port/wire.h"

#define PKT         SNIC_CL_DEF_PACKET
#define SRC         BUF                     /* the sender's data */
#define DST         (BUF + (2u << 20))      /* where it goes */
#define TIMEOUT_US  100

typedef struct Pair {
    Node a, b;                  /* a sends to b */
} Pair;

static uint16_t set_qp_cl(Node *n, uint32_t thr, uint32_t seg,
                          uint32_t timeout_us, uint8_t retries)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_CL, sizeof(cmd.set_qp_cl));
    cmd.set_qp_cl.qpn = GUINT32_TO_LE(n->qpn);
    cmd.set_qp_cl.seg_threshold = GUINT32_TO_LE(thr);
    cmd.set_qp_cl.seg_size = GUINT32_TO_LE(seg);
    cmd.set_qp_cl.timeout_us = GUINT32_TO_LE(timeout_us);
    cmd.set_qp_cl.retries = retries;
    return fake_admin(n->h, &cmd, NULL);
}

/* a's retries: 'retries' */
static void pair_init_retries(Pair *t, const NodeDev *dev, uint32_t thr,
                              uint32_t seg, uint8_t retries)
{
    node_init_dev_type(&t->a, NULL, 1, SNIC_QPT_UD, dev);
    node_init_dev_type(&t->b, NULL, 2, SNIC_QPT_UD, dev);
    g_assert_cmpuint(set_qp_cl(&t->a, thr, seg, TIMEOUT_US, retries), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(set_qp_cl(&t->b, 0, 0, TIMEOUT_US, 7), ==,
                     SNIC_ADMIN_OK);
    node_ud_up(&t->a, 0x1111, false);
    node_ud_up(&t->b, 0x1111, false);
}

static void pair_init_dev(Pair *t, const NodeDev *dev, uint32_t thr,
                          uint32_t seg)
{
    pair_init_retries(t, dev, thr, seg, 7);
}

static void pair_init(Pair *t)
{
    pair_init_dev(t, NULL, 0, 0);
}

/*
 * SNIC_PCAP_DIR: capture what a sends and receives there, as 'name'.pcap
 * (the tshark checks read it)
 */
static void capture(Pair *t, const char *name)
{
    const char *dir = g_getenv("SNIC_PCAP_DIR");
    g_autofree char *path = NULL;
    SnicPcap *pcap;

    if (dir) {
        path = g_strdup_printf("%s/%s.pcap", dir, name);
        pcap = snic_pcap_open(path);
        g_assert_nonnull(pcap);
        snic_core_set_pcap(t->a.h->core, pcap);
    }
}

static void pair_free(Pair *t)
{
    fake_host_free(t->a.h);
    fake_host_free(t->b.h);
}

/* A CL WRITE of [SRC + off, + len) to b's DST + roff */
static void wqe_of(Pair *t, struct snic_sq_wqe *wqe, uint64_t wr_id,
                   uint32_t off, uint32_t len, uint32_t roff, uint32_t rkey,
                   uint32_t tag, uint8_t flags)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = SNIC_WR_CL_WRITE;
    w.flags = SNIC_WQE_SIGNALED | flags;
    w.num_sge = 1;
    w.imm = GUINT32_TO_BE(tag);
    node_av(&w.cl.av, 1, t->b.h, 2);
    w.cl.remote_addr = GUINT64_TO_LE(DST + roff);
    w.cl.remote_ep = GUINT32_TO_LE(t->b.qpn);
    w.cl.rkey = GUINT32_TO_LE(rkey);
    w.sge[0].addr = GUINT64_TO_LE(SRC + off);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(t->a.lkey);
    *wqe = w;
}

/* Post it */
static void post(Pair *t, uint64_t wr_id, uint32_t off, uint32_t len,
                 uint32_t roff, uint32_t rkey, uint32_t tag, uint8_t flags)
{
    struct snic_sq_wqe w;

    wqe_of(t, &w, wr_id, off, len, roff, rkey, tag, flags);
    node_post_wqe(&t->a, &w);
}

/* The frames n sent since the last call, in order (the caller frees) */
static GPtrArray *take(Node *n)
{
    GPtrArray *f;

    fake_run(n->h);
    f = n->h->frames;
    n->h->frames = g_ptr_array_new_with_free_func(
        (GDestroyNotify)g_byte_array_unref);
    return f;
}

static SnicPkt pkt_of(GByteArray *f)
{
    SnicPkt p;

    g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==,
                    SNIC_PARSE_OK);
    return p;
}

static void give(Node *to, GByteArray *f)
{
    node_inject(to, f->data, f->len);
}

/* Frame f with its CL header edited by 'edit' (a new frame) */
static GByteArray *edited(GByteArray *f, void (*edit)(SnicPkt *p))
{
    static uint8_t out[PKT + 256];
    SnicPkt p = pkt_of(f);
    size_t n;

    edit(&p);
    n = snic_wire_build(&p, out, sizeof(out));
    g_assert_cmpuint(n, >, 0);
    return g_byte_array_append(g_byte_array_new(), out, n);
}

/* Carry every frame between a and b until both are quiet */
static void settle(Pair *t)
{
    unsigned rounds;

    for (rounds = 0; rounds < 10000; rounds++) {
        GPtrArray *fa = take(&t->a), *fb;
        unsigned i, moved = fa->len;

        for (i = 0; i < fa->len; i++) {
            give(&t->b, fa->pdata[i]);
        }
        fb = take(&t->b);
        moved += fb->len;
        for (i = 0; i < fb->len; i++) {
            give(&t->a, fb->pdata[i]);
        }
        g_ptr_array_unref(fa);
        g_ptr_array_unref(fb);
        if (!moved) {
            return;
        }
    }
    g_assert_not_reached();
}

static unsigned poll_all(Node *n, struct snic_cqe *out, unsigned max)
{
    unsigned k = 0;
    struct snic_cqe c;

    while (node_poll_cq(n, &c)) {
        g_assert_cmpuint(k, <, max);
        out[k++] = c;
    }
    return k;
}

static void assert_copied(Pair *t, uint32_t off, uint32_t roff, uint32_t len)
{
    g_assert_cmpint(memcmp(fake_ptr(t->a.h, SRC + off, len),
                           fake_ptr(t->b.h, DST + roff, len), len), ==, 0);
}

#define STAT(n, f)  FAKE_STAT((n)->h, f)

/* ---- the initial mask (section 3.2) ---- */

/* Every packet count in a mask of 'bits' bits */
static void check_width(uint32_t bits)
{
    uint64_t m[SNIC_CL_MAX_MASK_BITS / 64];
    uint32_t n, i;

    g_assert_false(snic_cl_initial_mask(bits, 0, m));
    g_assert_false(snic_cl_initial_mask(bits, bits + 1, m));
    for (n = 1; n <= bits; n++) {
        g_assert_true(snic_cl_initial_mask(bits, n, m));
        for (i = 0; i < bits; i++) {
            bool set = m[i / 64] >> (i % 64) & 1;

            /* packet 0 arrived, 1..n-1 expected, the rest unused */
            g_assert_cmpint(set, ==, i == 0 || i >= n);
        }
        /* nothing above the width */
        if (bits % 64) {
            g_assert_cmphex(m[bits / 64] >> (bits % 64), ==, 0);
        }
    }
}

static void test_initial_mask(void)
{
    static const uint32_t odd[] = { 33, 65, 100, 127, 129, 500, 1000, 1023 };
    uint64_t m[SNIC_CL_MAX_MASK_BITS / 64];
    uint32_t bits, i;

    /* the paper's example: 4 KiB, 512 B packets, a 32-bit mask */
    g_assert_true(snic_cl_initial_mask(32, 4096 / 512, m));
    g_assert_cmphex(m[0], ==, 0xffffff01u);
    for (bits = 32; bits <= SNIC_CL_MAX_MASK_BITS; bits += 32) {
        check_width(bits);
    }
    /* any width: ones no word boundary divides */
    for (i = 0; i < G_N_ELEMENTS(odd); i++) {
        check_width(odd[i]);
    }
}

/* ---- registered operations ---- */

/* A 4 KiB WRITE: one receive notification, one send completion */
static void test_registered(void)
{
    struct snic_cqe cq[4];
    Pair t;

    pair_init(&t);
    node_fill(&t.a, SRC, 4096, 1);
    post(&t, 7, 0, 4096, 0, t.b.lkey, 0xabcd, 0);
    settle(&t);
    assert_copied(&t, 0, 0, 4096);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].opcode, ==, SNIC_WC_CL_RECV);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, DST);
    g_assert_cmpuint(GUINT32_FROM_LE(cq[0].byte_len), ==, 4096);
    g_assert_cmphex(GUINT32_FROM_BE(cq[0].imm), ==, 0xabcd);
    g_assert_cmpuint(GUINT32_FROM_LE(cq[0].src_qp), ==, t.a.qpn);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].opcode, ==, SNIC_WC_CL_WRITE);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 7);
    g_assert_cmpuint(GUINT32_FROM_LE(cq[0].byte_len), ==, 4096);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 0);
    g_assert_cmpuint(STAT(&t.b, cl_dup_dropped), ==, 0);
    g_assert_cmpuint(STAT(&t.b, cl_escape_parked), ==, 0);
    /* the trace points: sent (the paper's send notification), done */
    g_assert_cmpuint(t.a.h->events[SNIC_TRACE_CL_OP_SENT], ==, 1);
    g_assert_cmpuint(t.a.h->event_args[SNIC_TRACE_CL_OP_SENT][2], ==, 4096);
    g_assert_cmpuint(t.a.h->events[SNIC_TRACE_CL_OP_DONE], ==, 1);
    g_assert_cmpuint(t.b.h->events[SNIC_TRACE_CL_NOTIFY], ==, 1);
    pair_free(&t);
}

/*
 * Duplicates: before completion dropped and ACKed, the notification
 * once; after it, ACKed from the completed cache within the linger,
 * never rewritten
 */
static void test_duplicates(void)
{
    struct snic_cqe cq[4];
    GPtrArray *fa, *fb;
    unsigned i;
    Pair t;

    pair_init(&t);
    node_fill(&t.a, SRC, 2048, 2);
    post(&t, 1, 0, 2048, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    g_assert_cmpuint(fa->len, ==, 4);
    /* packets 0-2 twice each, then 3 */
    for (i = 0; i < 3; i++) {
        give(&t.b, fa->pdata[i]);
        give(&t.b, fa->pdata[i]);
    }
    g_assert_cmpuint(STAT(&t.b, cl_dup_dropped), ==, 3);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 0);
    give(&t.b, fa->pdata[3]);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    assert_copied(&t, 0, 0, 2048);
    fb = take(&t.b);
    g_assert_cmpuint(fb->len, ==, 7);   /* every copy ACKed */
    /* after completion: b's buffer changes, copies must not rewrite it */
    memset(fake_ptr(t.b.h, DST, 2048), 0x5a, 2048);
    t.b.h->log_writes = true;
    for (i = 0; i < 4; i++) {
        give(&t.b, fa->pdata[i]);
    }
    g_assert_cmpuint(STAT(&t.b, cl_dup_acked), ==, 4);
    g_assert_cmpuint(fake_writes_in(t.b.h, DST, 2048), ==, 0);
    g_assert_cmpuint(((uint8_t *)fake_ptr(t.b.h, DST, 1))[0], ==, 0x5a);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 0);
    g_ptr_array_unref(take(&t.b));
    for (i = 0; i < fb->len; i++) {
        give(&t.a, fb->pdata[i]);
    }
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(STAT(&t.a, rdma_rx_dropped), ==, 3);   /* extra ACKs */
    g_ptr_array_unref(fa);
    g_ptr_array_unref(fb);
    pair_free(&t);
}

/* Packets before their REGISTER: parked, replayed when it comes */
static void test_escape_replay(void)
{
    struct snic_cqe cq[4];
    GPtrArray *fa;
    Pair t;

    pair_init(&t);
    node_fill(&t.a, SRC, 1536, 3);
    post(&t, 1, 0, 1536, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    g_assert_cmpuint(pkt_of(fa->pdata[0]).opcode, ==, SNIC_OP_CL_REGISTER);
    give(&t.b, fa->pdata[2]);
    give(&t.b, fa->pdata[1]);
    g_assert_cmpuint(STAT(&t.b, cl_escape_parked), ==, 2);
    g_ptr_array_unref(take(&t.b));      /* no ACK for parked packets */
    g_assert_cmpuint(STAT(&t.b, rdma_tx_packets), ==, 0);
    give(&t.b, fa->pdata[0]);
    g_assert_cmpuint(STAT(&t.b, cl_escape_replayed), ==, 2);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    assert_copied(&t, 0, 0, 1536);
    g_ptr_array_unref(fa);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 0);
    pair_free(&t);
}

/*
 * A lost REGISTER: the packets after it park and time out in half the
 * sender's timeout; the sender's resends complete the operation
 */
static void test_lost_register(void)
{
    struct snic_cqe cq[4];
    GPtrArray *fa;
    Pair t;

    pair_init(&t);
    capture(&t, "cl-lost-register");
    node_fill(&t.a, SRC, 1024, 4);
    post(&t, 1, 0, 1024, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    give(&t.b, fa->pdata[1]);           /* packet 0 is lost */
    g_assert_cmpuint(STAT(&t.b, cl_escape_parked), ==, 1);
    fake_advance(t.b.h, TIMEOUT_US * 1000 / 2);
    g_assert_cmpuint(STAT(&t.b, cl_escape_timeouts), ==, 1);
    g_ptr_array_unref(fa);
    fake_advance(t.a.h, TIMEOUT_US * 1000);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 2);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    assert_copied(&t, 0, 0, 1024);
    pair_free(&t);
}

/* The escape channel full: a packet is dropped, counted */
static void test_escape_full(void)
{
    NodeDev dev = { .cfg = { .cl_escape = 2 } };
    GPtrArray *fa;
    unsigned i;
    Pair t;

    pair_init_dev(&t, &dev, 0, 0);
    post(&t, 1, 0, 5 * PKT, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    for (i = 1; i < 5; i++) {
        give(&t.b, fa->pdata[i]);
    }
    g_assert_cmpuint(STAT(&t.b, cl_escape_parked), ==, 2);
    g_assert_cmpuint(STAT(&t.b, cl_escape_full), ==, 2);
    give(&t.b, fa->pdata[0]);
    g_assert_cmpuint(STAT(&t.b, cl_escape_replayed), ==, 2);
    g_ptr_array_unref(fa);
    /* the two dropped come again after the sender's timeout */
    g_ptr_array_unref(take(&t.b));
    fake_advance(t.a.h, TIMEOUT_US * 1000);
    settle(&t);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 5);
    pair_free(&t);
}

/* A lost final ACK: the resend is ACKed from the cache, then completes */
static void test_lost_final_ack(void)
{
    struct snic_cqe cq[4];
    GPtrArray *fa, *fb;
    Pair t;

    pair_init(&t);
    post(&t, 9, 0, 2 * PKT, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    give(&t.b, fa->pdata[0]);
    give(&t.b, fa->pdata[1]);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    fb = take(&t.b);
    give(&t.a, fb->pdata[0]);           /* the last ACK is lost */
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 0);
    fake_advance(t.a.h, TIMEOUT_US * 1000);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 1);
    settle(&t);
    g_assert_cmpuint(STAT(&t.b, cl_dup_acked), ==, 1);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 0);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 9);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    g_ptr_array_unref(fa);
    g_ptr_array_unref(fb);
    pair_free(&t);
}

/*
 * 1 MiB in 64 KiB segments (section 3.1): 16 receive notifications, one
 * send completion after the last acknowledged; ACKs carried back in
 * reverse order, so segments finish out of order
 */
static void test_segments(void)
{
    struct snic_cqe cq[32];
    unsigned rounds, i, nrecv = 0, nsend = 0;
    Pair t;

    pair_init_dev(&t, NULL, 64 << 10, 64 << 10);
    node_fill(&t.a, SRC, 1 << 20, 5);
    post(&t, 3, 0, 1 << 20, 0, t.b.lkey, 0x77, 0);
    for (rounds = 0; rounds < 1000 && !nsend; rounds++) {
        GPtrArray *fa = take(&t.a), *fb;

        for (i = 0; i < fa->len; i++) {
            give(&t.b, fa->pdata[i]);
        }
        fb = take(&t.b);
        for (i = fb->len; i--;) {
            give(&t.a, fb->pdata[i]);
        }
        nrecv += poll_all(&t.b, cq + nrecv, 32 - nrecv);
        nsend = poll_all(&t.a, cq + nrecv, 32 - nrecv);
        g_assert_true(nsend == 0 || nrecv == 16);
        g_ptr_array_unref(fa);
        g_ptr_array_unref(fb);
    }
    g_assert_cmpuint(nrecv, ==, 16);
    g_assert_cmpuint(nsend, ==, 1);
    for (i = 0; i < 16; i++) {
        g_assert_cmpuint(cq[i].opcode, ==, SNIC_WC_CL_RECV);
        g_assert_cmpuint(GUINT32_FROM_LE(cq[i].byte_len), ==, 64 << 10);
    }
    g_assert_cmpuint(cq[16].opcode, ==, SNIC_WC_CL_WRITE);
    g_assert_cmpuint(GUINT32_FROM_LE(cq[16].byte_len), ==, 1 << 20);
    assert_copied(&t, 0, 0, 1 << 20);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 0);
    pair_free(&t);
}

/* Non-registered: written on arrival, NOTIFY after the last ACK, once */
static void test_unregistered_notify(void)
{
    struct snic_cqe cq[4];
    GPtrArray *fa, *fb, *fn;
    unsigned i;
    Pair t;

    pair_init(&t);
    capture(&t, "cl-notify");
    node_fill(&t.a, SRC, 3 * PKT, 6);
    post(&t, 4, 0, 3 * PKT, 0, t.b.lkey, 5, SNIC_WQE_CL_UNREGISTERED);
    fa = take(&t.a);
    g_assert_cmpuint(fa->len, ==, 3);
    for (i = 3; i--;) {
        g_assert_cmpuint(pkt_of(fa->pdata[i]).opcode, ==, SNIC_OP_CL_WRITE);
        give(&t.b, fa->pdata[i]);
    }
    give(&t.b, fa->pdata[0]);       /* a copy rewrites the same bytes */
    assert_copied(&t, 0, 0, 3 * PKT);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 0);
    fb = take(&t.b);
    for (i = 0; i < fb->len; i++) {
        give(&t.a, fb->pdata[i]);
    }
    fn = take(&t.a);
    g_assert_cmpuint(fn->len, ==, 1);
    g_assert_cmpuint(pkt_of(fn->pdata[0]).opcode, ==, SNIC_OP_CL_NOTIFY);
    g_assert_cmpuint(STAT(&t.a, cl_notify_sent), ==, 1);
    give(&t.b, fn->pdata[0]);
    give(&t.b, fn->pdata[0]);           /* repeated: one CQE */
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].opcode, ==, SNIC_WC_CL_RECV);
    g_assert_cmphex(GUINT32_FROM_BE(cq[0].imm), ==, 5);
    g_assert_cmpuint(STAT(&t.b, cl_dup_acked), ==, 1);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    g_ptr_array_unref(fa);
    g_ptr_array_unref(fb);
    g_ptr_array_unref(fn);
    pair_free(&t);
}

/*
 * A late duplicate of an operation completed and forgotten, arriving
 * after a new operation registered the same buffer, writes none of its
 * bytes there: packets are matched by operation, not by range
 */
static void test_late_duplicate(void)
{
    NodeDev dev = { .cfg = { .cl_done = 1 } };
    struct snic_cqe cq[4];
    GPtrArray *f1, *f2;
    Pair t;

    pair_init_dev(&t, &dev, 0, 0);
    node_fill(&t.a, SRC, 2 * PKT, 7);
    node_fill(&t.a, SRC + 4 * PKT, 2 * PKT, 8);
    post(&t, 1, 0, 2 * PKT, 0, t.b.lkey, 1, 0);
    f1 = take(&t.a);
    give(&t.b, f1->pdata[0]);
    give(&t.b, f1->pdata[1]);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    /* the first key's linger passes: the cache forgets it */
    fake_advance(t.b.h, 8ull * TIMEOUT_US * 1000 + 1);
    /* the same buffer again, other data; its REGISTER first */
    post(&t, 2, 4 * PKT, 2 * PKT, 0, t.b.lkey, 2, 0);
    f2 = take(&t.a);
    give(&t.b, f2->pdata[0]);
    /* packet 1 of the first operation, very late: parked, never placed */
    t.b.h->log_writes = true;
    give(&t.b, f1->pdata[1]);
    g_assert_cmpuint(fake_writes_in(t.b.h, DST + PKT, PKT), ==, 0);
    g_assert_cmpuint(STAT(&t.b, cl_escape_parked), ==, 1);
    give(&t.b, f2->pdata[1]);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    assert_copied(&t, 4 * PKT, 0, 2 * PKT);
    fake_advance(t.b.h, TIMEOUT_US * 1000);
    g_assert_cmpuint(STAT(&t.b, cl_escape_timeouts), ==, 1);
    assert_copied(&t, 4 * PKT, 0, 2 * PKT);
    g_ptr_array_unref(f1);
    g_ptr_array_unref(f2);
    pair_free(&t);
}

/* MR violations: NACKed REMOTE_ACCESS, the operation fails, no notice */
static void test_mr_violation(void)
{
    struct snic_admin_cmd cmd;
    struct snic_cqe cq[4];
    GPtrArray *fa;
    Pair t;

    pair_init(&t);
    /* a range beyond the region: refused at registration */
    post(&t, 1, 0, 2 * PKT, BUF_LEN - (2u << 20) - PKT, t.b.lkey, 1, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 1);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 0);
    /* a bad key: the same */
    post(&t, 2, 0, PKT, 0, t.b.lkey ^ 0x100, 1, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_REM_ACCESS_ERR);
    /* the region goes after the REGISTER: the next packet is refused */
    post(&t, 3, 0, 2 * PKT, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    give(&t.b, fa->pdata[0]);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_DEREG_MR, sizeof(cmd.obj));
    cmd.obj.handle = GUINT32_TO_LE(t.b.lkey);
    node_admin_ok(t.b.h, &cmd);
    give(&t.b, fa->pdata[1]);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 3);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 0);
    g_ptr_array_unref(fa);
    pair_free(&t);
}

/*
 * A full receiver CQ: the REGISTER is NACKed NOT_READY (as IBA's RNR, no
 * retry used: the sender has one), accepted once the CQ has room
 */
static void test_cq_full(void)
{
    struct snic_cqe cq[300];
    unsigned round, i, k;
    Pair t;

    pair_init_retries(&t, NULL, 0, 0, 2);
    /* 1024 one-packet operations fill b's CQ, which b does not poll */
    for (round = 0; round < (1u << CQ_LOG2) / 128; round++) {
        for (i = 0; i < 128; i++) {
            post(&t, i, 0, 64, 64 * i, t.b.lkey, i, 0);
        }
        settle(&t);
        g_assert_cmpuint(poll_all(&t.a, cq, 300), ==, 128);
        /* their keys leave the completed-operations cache */
        fake_advance(t.b.h, 8ull * TIMEOUT_US * 1000 + 1);
    }
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 0);
    post(&t, 77, 0, 64, 0, t.b.lkey, 77, 0);
    settle(&t);
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 1);
    /*
     * 7 NOT_READYs (the bound) on a sender with 2 retries: no retry used
     * up by them
     */
    for (k = 0; k < 6; k++) {
        fake_advance(t.a.h, TIMEOUT_US * 1000);
        settle(&t);
    }
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 7);
    g_assert_cmpuint(poll_all(&t.a, cq, 300), ==, 0);
    /* b takes one completion: room for one */
    g_assert_true(node_poll_cq(&t.b, &cq[0]));
    fake_advance(t.a.h, TIMEOUT_US * 1000);
    settle(&t);
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 7);
    g_assert_cmpuint(poll_all(&t.a, cq, 300), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 77);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 7);

    /* the CQ full again: the 8th NOT_READY of a packet ends its WR */
    post(&t, 78, 0, 64, 0, t.b.lkey, 78, 0);
    settle(&t);
    for (k = 0; k < 7; k++) {
        fake_advance(t.a.h, TIMEOUT_US * 1000);
        settle(&t);
    }
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 15);
    g_assert_cmpuint(poll_all(&t.a, cq, 300), ==, 1);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 78);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_RNR_RETRY_EXC_ERR);
    fake_advance(t.a.h, TIMEOUT_US * 1000);
    settle(&t);
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 15);
    pair_free(&t);
}

/* A packet never acknowledged: its retries run out, the WR fails */
static void test_retries_exhausted(void)
{
    struct snic_cqe cq[4];
    unsigned k;
    Pair t;

    pair_init(&t);
    post(&t, 5, 0, 3 * PKT, 0, t.b.lkey, 1, 0);
    post(&t, 6, 0, PKT, 0, t.b.lkey, 1, 0);
    g_ptr_array_unref(take(&t.a));      /* every packet lost */
    for (k = 0; k < 7; k++) {
        fake_advance(t.a.h, TIMEOUT_US * 1000);
        g_ptr_array_unref(take(&t.a));
    }
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 7 * 4);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 0);
    fake_advance(t.a.h, TIMEOUT_US * 1000);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 2);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 5);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[1].wr_id), ==, 6);
    g_assert_cmpuint(cq[1].status, ==, SNIC_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), ==, 7 * 4);
    pair_free(&t);
}

/* Full OP and transaction tables park the endpoint; no WQE is lost */
static void test_tables_full(void)
{
    NodeDev dev = { .cfg = { .cl_ops = 2, .cl_txns = 3 } };
    struct snic_cqe cq[16];
    unsigned i;
    Pair t;

    pair_init_dev(&t, &dev, 0, 0);
    node_fill(&t.a, SRC, 8 * 5 * PKT, 9);
    for (i = 0; i < 8; i++) {
        post(&t, 100 + i, i * 5 * PKT, 5 * PKT, i * 5 * PKT, t.b.lkey, i,
             i % 2 ? SNIC_WQE_CL_UNREGISTERED : 0);
    }
    /* three packets out, then the transaction table is full */
    g_ptr_array_unref(take(&t.a));
    g_assert_cmpuint(STAT(&t.a, rdma_tx_packets), ==, 3);
    fake_advance(t.a.h, TIMEOUT_US * 1000);     /* resent, no new ones */
    g_assert_cmpuint(STAT(&t.a, rdma_tx_packets), ==, 6);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 16), ==, 8);
    for (i = 0; i < 8; i++) {
        g_assert_cmpuint(GUINT64_FROM_LE(cq[i].wr_id), ==, 100 + i);
        g_assert_cmpuint(cq[i].status, ==, SNIC_WC_SUCCESS);
    }
    g_assert_cmpuint(poll_all(&t.b, cq, 16), ==, 8);
    assert_copied(&t, 0, 0, 8 * 5 * PKT);
    g_assert_cmpuint(STAT(&t.a, cl_notify_sent), ==, 4);
    pair_free(&t);
}

/* SET_QP_CL's checks */
static void test_set_qp_cl(void)
{
    Node rc, ud;

    node_init(&rc, NULL, 1);
    g_assert_cmpuint(set_qp_cl(&rc, 0, 0, 0, 0), ==, SNIC_ADMIN_BAD_PARAM);
    fake_host_free(rc.h);
    node_init_type(&ud, NULL, 1, SNIC_QPT_UD);
    /* a segment not a multiple of the packet, larger than a mask, ... */
    g_assert_cmpuint(set_qp_cl(&ud, 4096, 1000, 0, 0), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_qp_cl(&ud, 1 << 20, 1 << 20, 0, 0), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_qp_cl(&ud, 0, 0, 0, 8), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_qp_cl(&ud, 64 << 10, 64 << 10, 0, 0), ==,
                     SNIC_ADMIN_OK);
    node_ud_up(&ud, 1, false);
    g_assert_cmpuint(set_qp_cl(&ud, 0, 0, 0, 0), ==, SNIC_ADMIN_BAD_STATE);
    fake_host_free(ud.h);
}

static struct snic_device_attr query(Node *n)
{
    struct snic_admin_cmd cmd;
    struct snic_device_attr a;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    cmd.resp.resp_len = GUINT32_TO_LE(sizeof(a));
    node_admin_ok(n->h, &cmd);
    fake_read(n->h, FAKE_RESP, &a, sizeof(a));
    return a;
}

/*
 * The tables are on chip, counted once in onchip_fixed_bytes: larger
 * tables cost exactly their bytes more, and no QP context grows
 */
static void test_onchip(void)
{
    NodeDev big = { .cfg = { .cl_table = 1024, .cl_mask_bits = 1024,
                             .cl_escape = 128, .cl_done = 1024 } };
    struct snic_device_attr a, b;
    uint64_t cl_a, cl_b, budget, per_qp;
    Node x, y;

    node_init_type(&x, NULL, 1, SNIC_QPT_UD);
    node_init_dev_type(&y, NULL, 1, SNIC_QPT_UD, &big);
    a = query(&x);
    b = query(&y);
    cl_a = snic_cl_onchip_bytes(x.h->core);
    cl_b = snic_cl_onchip_bytes(y.h->core);
    g_assert_cmpuint(cl_b, >, cl_a);
    g_assert_cmpuint(GUINT32_FROM_LE(b.onchip_fixed_bytes) -
                     GUINT32_FROM_LE(a.onchip_fixed_bytes), ==, cl_b - cl_a);
    g_assert_cmpuint(a.qp_state_bytes, ==, b.qp_state_bytes);
    /* QUERY_DEVICE reports the tables and what they take */
    g_assert_cmpuint(GUINT32_FROM_LE(a.cl_onchip_bytes), ==, cl_a);
    g_assert_cmpuint(GUINT32_FROM_LE(b.cl_onchip_bytes), ==, cl_b);
    g_assert_cmpuint(GUINT32_FROM_LE(a.cl_table), ==, SNIC_CL_DEF_TABLE);
    g_assert_cmpuint(GUINT32_FROM_LE(b.cl_table), ==, 1024);
    g_assert_cmpuint(GUINT16_FROM_LE(a.cl_mask_bits), ==,
                     SNIC_CL_DEF_MASK_BITS);
    g_assert_cmpuint(GUINT16_FROM_LE(b.cl_mask_bits), ==, 1024);
    g_assert_cmpuint(GUINT16_FROM_LE(a.cl_packet), ==, SNIC_CL_DEF_PACKET);
    g_assert_cmpuint(GUINT16_FROM_LE(b.cl_escape), ==, 128);
    g_assert_cmpuint(GUINT32_FROM_LE(b.cl_done), ==, 1024);
    g_assert_cmpuint(GUINT16_FROM_LE(a.cl_endpoints), ==,
                     SNIC_CL_DEF_ENDPOINTS);
    g_assert_cmpuint(GUINT32_FROM_LE(a.cl_ops), ==, SNIC_CL_DEF_OPS);
    g_assert_cmpuint(GUINT32_FROM_LE(a.cl_txns), ==, SNIC_CL_DEF_TXNS);
    budget = GUINT32_FROM_LE(a.onchip_bytes);
    per_qp = GUINT32_FROM_LE(a.qp_onchip_bytes);
    g_assert_cmpuint(GUINT32_FROM_LE(a.performant_qps), ==,
                     (budget - GUINT32_FROM_LE(a.onchip_fixed_bytes)) /
                     per_qp);
    g_test_message("cl tables at the defaults: %" PRIu64 " bytes; "
                   "performant QPs %u with them, %" PRIu64 " without",
                   cl_a, GUINT32_FROM_LE(a.performant_qps),
                   (budget - GUINT32_FROM_LE(a.onchip_fixed_bytes) + cl_a) /
                   per_qp);
    g_test_message("cl tables of 1024 entries, 1024-bit masks, 128 escape "
                   "packets: %" PRIu64 " bytes; performant QPs %u",
                   cl_b, GUINT32_FROM_LE(b.performant_qps));
    fake_host_free(x.h);
    fake_host_free(y.h);
}

/*
 * A hostile peer: well-formed CL frames (good ICRC) with any header -
 * any op-code, endpoint, op id, index, address, key, length, count,
 * timeout - to b, and ACKs with any op id and index to a. Nothing
 * crashes or leaks (ASan), b's CQ never overruns, and both endpoints
 * then carry a WRITE as before.
 */
static void test_hostile(void)
{
    static uint8_t payload[PKT], f[PKT + 256];
    struct snic_cqe cq[1024];
    GRand *r = g_rand_new_with_seed(7);
    unsigned i, nb = 0;
    Pair t;

    pair_init(&t);
    for (i = 0; i < sizeof(payload); i++) {
        payload[i] = i;
    }
    for (i = 0; i < 20000; i++) {
        bool to_a = g_rand_int_range(r, 0, 4) == 0;
        Node *to = to_a ? &t.a : &t.b, *from = to_a ? &t.b : &t.a;
        uint32_t lens[] = { 0, 4, 64, PKT };
        struct snic_av av = { 0 };
        SnicPkt p;
        size_t n;

        memset(&p, 0, sizeof(p));
        node_av(&av, to_a ? 2 : 1, to->h, to_a ? 1 : 2);
        snic_rdma_av_addr(from->h->core, &av, from->qpn, to->qpn, &p.addr);
        p.opcode = to_a ? SNIC_OP_CL_ACK : 0xc0 + g_rand_int_range(r, 0, 4);
        p.pkey = SNIC_DEFAULT_PKEY;
        p.dqpn = to->qpn;
        p.cl.flags = g_rand_int(r);
        p.cl.syndrome = g_rand_int_range(r, 0, 4);
        p.cl.retries = g_rand_int(r);
        p.cl.src_ep = g_rand_int_range(r, 0, 4);
        p.cl.op_id = g_rand_int_range(r, 0, 8) |
                     g_rand_int_range(r, 0, 2) << 16;
        p.cl.index = g_rand_int_range(r, 0, 200);
        p.cl.va = g_rand_boolean(r) ? DST + g_rand_int_range(r, 0, 1 << 20) :
                  ((uint64_t)g_rand_int(r) << 32 | g_rand_int(r));
        p.cl.rkey = g_rand_boolean(r) ? t.b.lkey : g_rand_int(r);
        p.cl.len = g_rand_boolean(r) ? (uint32_t)g_rand_int_range(r, 0, 70000) :
                   g_rand_int(r);
        p.cl.npkts = g_rand_boolean(r) ? (p.cl.len + PKT - 1) / PKT :
                     (uint32_t)g_rand_int_range(r, 0, 2000);
        p.cl.tag = g_rand_int(r);
        p.cl.timeout_us = g_rand_int_range(r, 0, 200);
        if (p.opcode != SNIC_OP_CL_ACK && p.opcode != SNIC_OP_CL_NOTIFY) {
            p.payload = payload;
            p.payload_len = lens[g_rand_int_range(r, 0, 4)];
        }
        n = snic_wire_build(&p, f, sizeof(f));
        g_assert_cmpuint(n, >, 0);
        node_inject(to, f, n);
        if (i % 1000 == 999) {
            g_ptr_array_unref(take(&t.a));
            g_ptr_array_unref(take(&t.b));
            nb += poll_all(&t.b, cq, 1024);
            fake_advance(t.b.h, 100 * 1000);
        }
    }
    g_ptr_array_unref(take(&t.a));
    g_ptr_array_unref(take(&t.b));
    nb += poll_all(&t.b, cq, 1024);
    g_assert_cmpuint(nb, >, 0);         /* some random operations landed */
    g_assert_cmpuint(fake_guest_errors_matching(t.b.h, "overrun"), ==, 0);
    fake_advance(t.b.h, 1000 * 1000);   /* the tables' stale entries age */
    /* both still carry a WRITE */
    node_fill(&t.a, SRC, 3000, 11);
    post(&t, 42, 0, 3000, 0, t.b.lkey, 9, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 42);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    g_assert_cmphex(GUINT32_FROM_BE(cq[0].imm), ==, 9);
    assert_copied(&t, 0, 0, 3000);
    g_rand_free(r);
    pair_free(&t);
}

/*
 * A full registration table NACKs a REGISTER NOT_READY, taken once an
 * entry frees; a full completed-operations cache NACKs a NOTIFY, never
 * evicting a live key; an operation beyond what a mask covers goes
 * non-registered by itself
 */
static void test_refusals(void)
{
    NodeDev one = { .cfg = { .cl_table = 1, .cl_done = 1 } };
    struct snic_cqe cq[8];
    GPtrArray *fa;
    Pair t;

    pair_init_dev(&t, &one, 0, 0);
    node_fill(&t.a, SRC, 8 * PKT, 12);
    post(&t, 1, 0, 2 * PKT, 0, t.b.lkey, 1, 0);
    post(&t, 2, 2 * PKT, 2 * PKT, 2 * PKT, t.b.lkey, 2, 0);
    fa = take(&t.a);
    g_assert_cmpuint(fa->len, ==, 4);
    give(&t.b, fa->pdata[0]);
    give(&t.b, fa->pdata[2]);           /* the table is full */
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 1);
    give(&t.b, fa->pdata[1]);           /* the first completes */
    give(&t.b, fa->pdata[3]);           /* parked: no entry yet */
    g_ptr_array_unref(fa);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.b, cq, 8), ==, 1);
    g_assert_cmpuint(poll_all(&t.a, cq, 8), ==, 1);  /* 2 waits */
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 1);
    fake_advance(t.b.h, 8ull * TIMEOUT_US * 1000 + 1);  /* 1's key goes */
    fake_advance(t.a.h, TIMEOUT_US * 1000);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.b, cq, 8), ==, 1);
    g_assert_cmpuint(poll_all(&t.a, cq, 8), ==, 1);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 2);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    assert_copied(&t, 0, 0, 4 * PKT);
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 1);

    /* a live key fills the cache: the NOTIFY waits for it to expire */
    fake_advance(t.b.h, 8ull * TIMEOUT_US * 1000 + 1);  /* 2's key goes */
    post(&t, 3, 0, PKT, 0, t.b.lkey, 3, 0);
    post(&t, 4, PKT, PKT, PKT, t.b.lkey, 4, SNIC_WQE_CL_UNREGISTERED);
    settle(&t);
    g_assert_cmpuint(STAT(&t.b, cl_reg_refused), ==, 2);
    g_assert_cmpuint(poll_all(&t.b, cq, 8), ==, 1);
    g_assert_cmphex(GUINT32_FROM_BE(cq[0].imm), ==, 3);
    fake_advance(t.b.h, 8ull * TIMEOUT_US * 1000 + 1);
    fake_advance(t.a.h, TIMEOUT_US * 1000);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.b, cq, 8), ==, 1);
    g_assert_cmphex(GUINT32_FROM_BE(cq[0].imm), ==, 4);
    g_assert_cmpuint(poll_all(&t.a, cq, 8), ==, 2);
    pair_free(&t);

    /* 100 KiB, more than a 128-bit mask's 64 KiB, not segmented */
    pair_init(&t);
    node_fill(&t.a, SRC, 100 << 10, 13);
    post(&t, 5, 0, 100 << 10, 0, t.b.lkey, 5, 0);
    settle(&t);
    g_assert_cmpuint(STAT(&t.a, cl_notify_sent), ==, 1);
    g_assert_cmpuint(poll_all(&t.b, cq, 8), ==, 1);
    g_assert_cmpuint(GUINT32_FROM_LE(cq[0].byte_len), ==, 100 << 10);
    g_assert_cmpuint(poll_all(&t.a, cq, 8), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    assert_copied(&t, 0, 0, 100 << 10);
    pair_free(&t);
}

/*
 * On the simulated wire with the NIC timing model (WQE fetches, PCIe,
 * pipeline, line rate): 5 % of the frames lost, duplicated and reordered
 * each way; registered, segmented and non-registered WRITEs all land,
 * each notified once, each send completion in order. The sender's
 * timeout is 1 ms: 256 packets in flight queue for 100 us at the line
 * rate, and a constant timeout below that resends what is only waiting
 * (there is no congestion control to keep the queue short, section 1)
 */
static void test_lossy_wire(void)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 2000,
        .loss = 0.05, .dup = 0.05, .reorder = 0.05, .reorder_ns = 5000,
    };
    NodeDev dev = {
        .timing = { .pcie_rtt_ns = 1000, .pipeline_ns = 100,
                    .line_rate_bps = 10000000000ull },
    };
    static const uint32_t lens[] = { 4096, 300 << 10, 20000, 100 << 10, 1 };
    /* the 20000-byte one non-registered */
    struct snic_cqe cq[64];
    SnicSim *sim = snic_sim_new(11);
    unsigned i, nrecv, off = 0;
    Pair t;

    node_init_dev_type(&t.a, sim, 1, SNIC_QPT_UD, &dev);
    node_init_dev_type(&t.b, sim, 2, SNIC_QPT_UD, &dev);
    snic_sim_port_connect(&t.a.h->port, &t.b.h->port, &link);
    g_assert_cmpuint(set_qp_cl(&t.a, 64 << 10, 32 << 10, 1000, 7), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(set_qp_cl(&t.b, 0, 0, TIMEOUT_US, 7), ==,
                     SNIC_ADMIN_OK);
    node_ud_up(&t.a, 1, false);
    node_ud_up(&t.b, 1, false);
    node_fill(&t.a, SRC, 1 << 20, 14);
    for (i = 0; i < G_N_ELEMENTS(lens); i++) {
        post(&t, i, off, lens[i], off, t.b.lkey, i,
             i == 2 ? SNIC_WQE_CL_UNREGISTERED : 0);
        off += lens[i];
    }
    g_assert_cmpuint(snic_sim_run(sim, 10000000), <, 10000000);
    /* over 64 KiB, segments of 32 KiB: 300 KiB in 10, 100 KiB in 4 */
    nrecv = poll_all(&t.b, cq, 64);
    g_assert_cmpuint(nrecv, ==, 1 + 10 + 1 + 4 + 1);
    g_assert_cmpuint(poll_all(&t.a, cq, 64), ==, G_N_ELEMENTS(lens));
    for (i = 0; i < G_N_ELEMENTS(lens); i++) {
        g_assert_cmpuint(GUINT64_FROM_LE(cq[i].wr_id), ==, i);
        g_assert_cmpuint(cq[i].status, ==, SNIC_WC_SUCCESS);
    }
    assert_copied(&t, 0, 0, off);
    g_assert_cmpuint(STAT(&t.a, cl_retransmits), >, 0);
    g_assert_cmpuint(STAT(&t.a, cl_notify_sent), >=, 1);
    g_test_message("%" PRIu64 " resends, %" PRIu64 " duplicates dropped, %"
                   PRIu64 " acknowledged again, %" PRIu64 " parked",
                   STAT(&t.a, cl_retransmits), STAT(&t.b, cl_dup_dropped),
                   STAT(&t.b, cl_dup_acked), STAT(&t.b, cl_escape_parked));
    pair_free(&t);
    snic_sim_free(sim);
}

/* A mask of 33 bits: 33 packets registered, 34 not */
static void test_odd_mask(void)
{
    NodeDev dev = { .cfg = { .cl_mask_bits = 33 } };
    struct snic_cqe cq[4];
    Pair t;

    pair_init_dev(&t, &dev, 0, 0);
    node_fill(&t.a, SRC, 67 * PKT, 15);
    post(&t, 1, 0, 33 * PKT, 0, t.b.lkey, 1, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    g_assert_cmpuint(STAT(&t.a, cl_notify_sent), ==, 0);
    post(&t, 2, 33 * PKT, 34 * PKT, 33 * PKT, t.b.lkey, 2, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    g_assert_cmpuint(STAT(&t.a, cl_notify_sent), ==, 1);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 2);
    assert_copied(&t, 0, 0, 67 * PKT);
    pair_free(&t);
}

/*
 * Only an endpoint takes CL packets: a plain UD QP drops them, sending
 * nothing back; and an endpoint sends CL WRITEs only
 */
static void test_not_an_endpoint(void)
{
    struct snic_cqe cq[4];
    GPtrArray *fa;
    Node plain;
    Pair t;

    pair_init(&t);
    post(&t, 1, 0, PKT, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    node_init_type(&plain, NULL, 2, SNIC_QPT_UD);
    node_ud_up(&plain, 1, false);
    g_assert_cmpuint(plain.qpn, ==, t.b.qpn);   /* same QPN, not CL */
    give(&plain, fa->pdata[0]);
    g_assert_cmpuint(FAKE_STAT(plain.h, rdma_rx_dropped), ==, 1);
    g_ptr_array_unref(take(&plain));
    g_assert_cmpuint(FAKE_STAT(plain.h, rdma_tx_packets), ==, 0);
    fake_host_free(plain.h);
    g_ptr_array_unref(fa);
    /* a UD SEND work request on an endpoint fails, the endpoint goes on */
    node_post_send(&t.a, 9, SNIC_WR_SEND, SRC, 16, 0, 0, 0, t.a.lkey);
    post(&t, 10, 0, PKT, 0, t.b.lkey, 1, 0);
    settle(&t);
    fake_advance(t.a.h, TIMEOUT_US * 1000);    /* 1 again: it went astray */
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 3);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 1);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[1].wr_id), ==, 9);
    g_assert_cmpuint(cq[1].status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(cq[2].status, ==, SNIC_WC_SUCCESS);
    pair_free(&t);
}

/*
 * More SGEs than a WQE holds: refused before its length is summed, so
 * the CQE's byte_len is 0, not what lies beyond the WQE
 */
static void test_bad_sge_count(void)
{
    struct snic_cqe cq[4];
    struct snic_sq_wqe w;
    unsigned i;
    Pair t;

    pair_init(&t);
    wqe_of(&t, &w, 1, 0, PKT, 0, t.b.lkey, 1, 0);
    w.num_sge = 255;
    for (i = 1; i < SNIC_SQ_WQE_MAX_SGE; i++) {
        w.sge[i] = w.sge[0];
    }
    node_post_wqe(&t.a, &w);
    post(&t, 2, 0, PKT, 0, t.b.lkey, 2, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 2);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(GUINT32_FROM_LE(cq[0].byte_len), ==, 0);
    g_assert_cmpuint(cq[1].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(STAT(&t.a, rdma_tx_packets), ==, 1);
    pair_free(&t);
}

/*
 * A user process's endpoint sends only from an address its port owns, as
 * a UD QP: a WQE naming another source fails LOC_PROT_ERR, nothing sent
 */
static void test_foreign_source(void)
{
    struct snic_cqe cq[4];
    struct snic_sq_wqe w;
    Pair t;

    node_init_ctx(&t.a, NULL, 1, SNIC_QPT_UD, 3);
    node_init_dev_type(&t.b, NULL, 2, SNIC_QPT_UD, NULL);
    g_assert_cmpuint(set_qp_cl(&t.a, 0, 0, TIMEOUT_US, 7), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(set_qp_cl(&t.b, 0, 0, TIMEOUT_US, 7), ==, SNIC_ADMIN_OK);
    node_ud_up(&t.a, 0x1111, false);
    node_ud_up(&t.b, 0x1111, false);
    wqe_of(&t, &w, 1, 0, PKT, 0, t.b.lkey, 1, 0);
    w.cl.av.sgid[15] ^= 0x40;           /* not a's address */
    node_post_wqe(&t.a, &w);
    post(&t, 2, 0, PKT, 0, t.b.lkey, 2, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 2);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(cq[1].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(STAT(&t.a, rdma_tx_packets), ==, 1);
    g_assert_cmpuint(STAT(&t.a, guest_errors), ==, 1);
    pair_free(&t);
}

/* 11 SGEs of 4 GiB - 1 with a bad L_Key: LOC_LEN_ERR, nothing tried */
static void post_huge(Pair *t, uint64_t wr_id)
{
    struct snic_sq_wqe w;
    unsigned i;

    wqe_of(t, &w, wr_id, 0, 0xffffffff, 0, t->b.lkey, 1, 0);
    w.num_sge = SNIC_SQ_WQE_MAX_SGE;
    w.sge[0].lkey = GUINT32_TO_LE(t->a.lkey ^ 0x5500);
    for (i = 1; i < SNIC_SQ_WQE_MAX_SGE; i++) {
        w.sge[i] = w.sge[0];
    }
    node_post_wqe(&t->a, &w);
}

/*
 * A WQE over 2 GiB fails LOC_LEN_ERR (as an RC one); a segment that
 * fails fails its WQE whole, once, no further segment started; a WQE the
 * guest shrank below the threshold mid-way fails, not repeated forever
 */
static void test_bad_segments(void)
{
    NodeDev two = { .cfg = { .cl_ops = 2 } };
    struct snic_cqe cq[4];
    struct snic_sq_wqe w;
    GPtrArray *fa, *fb;
    Pair t;

    pair_init(&t);
    post_huge(&t, 1);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_LOC_LEN_ERR);
    g_assert_cmpuint(GUINT32_FROM_LE(cq[0].byte_len), ==, 0);
    pair_free(&t);

    /* segments of one packet: the first fails its gather */
    pair_init_dev(&t, NULL, PKT, PKT);
    post_huge(&t, 2);
    post(&t, 3, 0, 8 * PKT, 0, t.b.lkey, 3, 0);
    wqe_of(&t, &w, 4, 0, 8 * PKT, 0, t.b.lkey, 4, 0);
    w.sge[0].lkey = GUINT32_TO_LE(t.a.lkey ^ 0x5500);
    node_post_wqe(&t.a, &w);
    post(&t, 5, 0, 2 * PKT, 0, t.b.lkey, 5, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 4);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_LOC_LEN_ERR);
    g_assert_cmpuint(cq[1].status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[2].wr_id), ==, 4);
    g_assert_cmpuint(cq[2].status, ==, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[3].wr_id), ==, 5);
    g_assert_cmpuint(cq[3].status, ==, SNIC_WC_SUCCESS);
    /* 1 + 8 + 1 + 2 operations: 4's other segments never started */
    g_assert_cmpuint(t.a.h->events[SNIC_TRACE_CL_OP_DONE], ==, 12);
    pair_free(&t);

    /* two segments of 4 out (the op table is full), then it shrinks */
    pair_init_dev(&t, &two, PKT, PKT);
    wqe_of(&t, &w, 6, 0, 4 * PKT, 0, t.b.lkey, 6, 0);
    node_post_wqe(&t.a, &w);
    fa = take(&t.a);
    g_assert_cmpuint(fa->len, ==, 2);
    give(&t.b, fa->pdata[0]);
    give(&t.b, fa->pdata[1]);
    g_ptr_array_unref(fa);
    fb = take(&t.b);
    w.sge[0].length = GUINT32_TO_LE(PKT);
    fake_write(t.a.h, t.a.sq_ring, &w, sizeof(w));
    give(&t.a, fb->pdata[0]);
    give(&t.a, fb->pdata[1]);
    g_ptr_array_unref(fb);
    post(&t, 7, 0, PKT, 0, t.b.lkey, 7, 0);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 2);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[0].wr_id), ==, 6);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(cq[1].wr_id), ==, 7);
    g_assert_cmpuint(cq[1].status, ==, SNIC_WC_SUCCESS);
    pair_free(&t);
}

static void long_timeout(SnicPkt *p)
{
    p->cl.timeout_us = 0xffffffff;
}

static void many_retries(SnicPkt *p)
{
    p->cl.retries = 8;
}

static void tiny_timeout(SnicPkt *p)
{
    p->cl.timeout_us = 1;
}

/*
 * A peer's timeout and retries set how long its keys linger in b's
 * tables: beyond SET_QP_CL's bounds a packet is dropped. One peer's 1 us
 * timeout shortens no other peer's wait in the escape channel
 */
static void test_peer_timeouts(void)
{
    void (*edits[])(SnicPkt *) = { long_timeout, many_retries };
    struct snic_cqe cq[4];
    GPtrArray *fa, *fb;
    GByteArray *g;
    unsigned i, k;
    Pair t;

    pair_init(&t);
    for (i = 0; i < G_N_ELEMENTS(edits); i++) {
        post(&t, i, 0, PKT, 0, t.b.lkey, i, 0);     /* a REGISTER */
        post(&t, 10 + i, 0, PKT, PKT, t.b.lkey, i, SNIC_WQE_CL_UNREGISTERED);
        fa = take(&t.a);
        g_assert_cmpuint(fa->len, ==, 2);
        give(&t.b, fa->pdata[1]);                   /* written, ACKed */
        fb = take(&t.b);
        give(&t.a, fb->pdata[0]);
        g_ptr_array_unref(fb);
        g_ptr_array_unref(take(&t.a));              /* its NOTIFY */
        fake_advance(t.a.h, TIMEOUT_US * 1000);
        fb = take(&t.a);
        g_assert_cmpuint(fb->len, ==, 2);           /* both again */
        g = edited(fa->pdata[0], edits[i]);
        give(&t.b, g);
        g_byte_array_unref(g);
        g = edited(fb->pdata[1], edits[i]);
        g_assert_cmpuint(pkt_of(g).opcode, ==, SNIC_OP_CL_NOTIFY);
        give(&t.b, g);
        g_byte_array_unref(g);
        g_ptr_array_unref(fa);
        g_ptr_array_unref(fb);
        fb = take(&t.b);
        g_assert_cmpuint(fb->len, ==, 0);           /* dropped, no reply */
        g_ptr_array_unref(fb);
        g_assert_cmpuint(STAT(&t.b, rdma_rx_dropped), ==, 2 * (i + 1));
        g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 0);
        for (k = 0; k < 8; k++) {                  /* a gives up */
            g_ptr_array_unref(take(&t.a));
            fake_advance(t.a.h, TIMEOUT_US * 1000);
        }
        g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 2);
        g_assert_cmpuint(cq[0].status, ==, SNIC_WC_RETRY_EXC_ERR);
    }
    pair_free(&t);

    /* a REGISTER of 1 us, then another operation's packet 1 before 0 */
    pair_init(&t);
    post(&t, 1, 0, PKT, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    g = edited(fa->pdata[0], tiny_timeout);
    give(&t.b, g);
    g_byte_array_unref(g);
    g_ptr_array_unref(fa);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    post(&t, 2, 0, 2 * PKT, 0, t.b.lkey, 2, 0);
    fa = take(&t.a);
    g_assert_cmpuint(fa->len, ==, 2);
    give(&t.b, fa->pdata[1]);
    g_assert_cmpuint(STAT(&t.b, cl_escape_parked), ==, 1);
    fake_advance(t.b.h, 1000);
    g_assert_cmpuint(STAT(&t.b, cl_escape_timeouts), ==, 0);
    give(&t.b, fa->pdata[0]);
    g_ptr_array_unref(fa);
    g_assert_cmpuint(STAT(&t.b, cl_escape_replayed), ==, 1);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    g_assert_cmphex(GUINT32_FROM_BE(cq[0].imm), ==, 2);
    pair_free(&t);
}

static uint32_t to_qpn;

static void to_other_ep(SnicPkt *p)
{
    p->dqpn = to_qpn;
}

/*
 * A packet sent to another endpoint naming an operation registered on
 * b's is not of it: it waits at its own endpoint, b's operation is not
 * touched, no notification posts on the other's CQ without a reserved
 * CQE
 */
static void test_other_endpoint(void)
{
    struct snic_cqe cq[4];
    GPtrArray *fa;
    GByteArray *g;
    Node other;
    Pair t;

    pair_init(&t);
    node_add_qp(&other, &t.b);
    g_assert_cmpuint(set_qp_cl(&other, 0, 0, TIMEOUT_US, 7), ==,
                     SNIC_ADMIN_OK);
    node_ud_up(&other, 0x1111, false);
    node_fill(&t.a, SRC, 2 * PKT, 14);
    post(&t, 1, 0, 2 * PKT, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    g_assert_cmpuint(fa->len, ==, 2);
    give(&t.b, fa->pdata[0]);                   /* b's REGISTER */
    to_qpn = other.qpn;
    g = edited(fa->pdata[1], to_other_ep);
    give(&other, g);
    g_byte_array_unref(g);
    g_assert_cmpuint(STAT(&t.b, cl_escape_parked), ==, 1);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 0);
    give(&t.b, fa->pdata[1]);
    g_ptr_array_unref(fa);
    g_assert_cmpuint(poll_all(&t.b, cq, 4), ==, 1);
    g_assert_cmpuint(GUINT32_FROM_LE(cq[0].qpn), ==, t.b.qpn);
    settle(&t);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    assert_copied(&t, 0, 0, 2 * PKT);
    pair_free(&t);
}

static void not_ready(SnicPkt *p)
{
    p->cl.syndrome = SNIC_CL_NACK_NOT_READY;
}

/*
 * NOT_READY is a receiver's answer to a REGISTER or a NOTIFY only: one
 * naming a registered operation's packet 1 is no reply of b's, dropped
 */
static void test_stray_not_ready(void)
{
    struct snic_cqe cq[4];
    GPtrArray *fa, *fb;
    GByteArray *g;
    unsigned k;
    Pair t;

    pair_init(&t);
    node_fill(&t.a, SRC, 2 * PKT, 15);
    post(&t, 1, 0, 2 * PKT, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    give(&t.b, fa->pdata[0]);
    give(&t.b, fa->pdata[1]);
    g_ptr_array_unref(fa);
    fb = take(&t.b);
    g_assert_cmpuint(fb->len, ==, 2);
    give(&t.a, fb->pdata[0]);
    g = edited(fb->pdata[1], not_ready);
    for (k = 0; k < 10; k++) {
        give(&t.a, g);
    }
    g_byte_array_unref(g);
    g_assert_cmpuint(STAT(&t.a, rdma_rx_dropped), ==, 10);
    give(&t.a, fb->pdata[1]);
    g_ptr_array_unref(fb);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    pair_free(&t);
}

static void other_src_ep(SnicPkt *p)
{
    p->cl.src_ep ^= 1;
}

static void other_src_ip(SnicPkt *p)
{
    p->addr.sip[3] ^= 1;
}

/* An ACK from a peer or endpoint the packet did not go to is dropped */
static void test_stray_ack(void)
{
    void (*edits[])(SnicPkt *) = { other_src_ep, other_src_ip };
    struct snic_cqe cq[4];
    GPtrArray *fa, *fb;
    GByteArray *g;
    unsigned i;
    Pair t;

    pair_init(&t);
    post(&t, 1, 0, PKT, 0, t.b.lkey, 1, 0);
    fa = take(&t.a);
    give(&t.b, fa->pdata[0]);
    g_ptr_array_unref(fa);
    fb = take(&t.b);
    g_assert_cmpuint(fb->len, ==, 1);
    for (i = 0; i < G_N_ELEMENTS(edits); i++) {
        g = edited(fb->pdata[0], edits[i]);
        give(&t.a, g);
        g_byte_array_unref(g);
        g_assert_cmpuint(STAT(&t.a, rdma_rx_dropped), ==, i + 1);
        g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 0);
    }
    give(&t.a, fb->pdata[0]);
    g_ptr_array_unref(fb);
    g_assert_cmpuint(poll_all(&t.a, cq, 4), ==, 1);
    g_assert_cmpuint(cq[0].status, ==, SNIC_WC_SUCCESS);
    pair_free(&t);
}

/*
 * The transport as a system (cl-fabric.h): 200 operations among eight
 * endpoints on two switches joined by four sprayed links of 1 to 8 us,
 * every link losing, duplicating and reordering; each completes exactly
 * once at both ends with its bytes in place, and the escape channel's
 * replays and overflows, duplicates and resends all happened
 */
static void test_fabric(void)
{
    ClFabricResult r;

    cl_fabric_run(39, 200, &r);
    g_test_message("%u operations (%u non-registered, %u notifications, "
                   "%" PRIu64 " bytes) in %" PRIu64 " ns; %" PRIu64
                   " resends, %" PRIu64 " duplicates dropped, %" PRIu64
                   " acknowledged again, escape %" PRIu64 " parked %" PRIu64
                   " replayed %" PRIu64 " full %" PRIu64 " timed out, %"
                   PRIu64 " NOT_READY, %" PRIu64 " NOTIFY; links lost %"
                   PRIu64 " duplicated %" PRIu64 " reordered %" PRIu64
                   ", %" PRIu64 " PFC frames",
                   r.ops, r.unregistered, r.segments, r.bytes, r.end_ns,
                   r.retransmits, r.dup_dropped, r.dup_acked,
                   r.escape_parked, r.escape_replayed, r.escape_full,
                   r.escape_timeouts, r.reg_refused, r.notify_sent, r.lost,
                   r.duplicated, r.reordered, r.pause_sent);
    g_assert_null(r.error);
    g_assert_cmpuint(r.ops, ==, 200);
    g_assert_cmpuint(r.unregistered, ==, 20);
    g_assert_cmpuint(r.escape_replayed, >, 0);
    g_assert_cmpuint(r.escape_full, >, 0);
    g_assert_cmpuint(r.dup_dropped, >, 0);
    g_assert_cmpuint(r.retransmits, >, 0);
    g_assert_cmpuint(r.notify_sent, >=, 20);
    cl_fabric_result_free(&r);
}

/* The tables do not grow with the peers: the same bytes for 2 and 64 */
static void test_onchip_peers(void)
{
    uint64_t two = cl_fabric_onchip_with_peers(2);

    g_assert_cmpuint(two, >, 0);
    g_assert_cmpuint(two, ==, cl_fabric_onchip_with_peers(64));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/cl/initial-mask", test_initial_mask);
    g_test_add_func("/cl/registered", test_registered);
    g_test_add_func("/cl/duplicates", test_duplicates);
    g_test_add_func("/cl/escape-replay", test_escape_replay);
    g_test_add_func("/cl/lost-register", test_lost_register);
    g_test_add_func("/cl/escape-full", test_escape_full);
    g_test_add_func("/cl/lost-final-ack", test_lost_final_ack);
    g_test_add_func("/cl/segments", test_segments);
    g_test_add_func("/cl/unregistered-notify", test_unregistered_notify);
    g_test_add_func("/cl/late-duplicate", test_late_duplicate);
    g_test_add_func("/cl/mr-violation", test_mr_violation);
    g_test_add_func("/cl/cq-full", test_cq_full);
    g_test_add_func("/cl/retries-exhausted", test_retries_exhausted);
    g_test_add_func("/cl/tables-full", test_tables_full);
    g_test_add_func("/cl/set-qp-cl", test_set_qp_cl);
    g_test_add_func("/cl/onchip", test_onchip);
    g_test_add_func("/cl/hostile", test_hostile);
    g_test_add_func("/cl/refusals", test_refusals);
    g_test_add_func("/cl/lossy-wire", test_lossy_wire);
    g_test_add_func("/cl/odd-mask", test_odd_mask);
    g_test_add_func("/cl/not-an-endpoint", test_not_an_endpoint);
    g_test_add_func("/cl/bad-sge-count", test_bad_sge_count);
    g_test_add_func("/cl/bad-segments", test_bad_segments);
    g_test_add_func("/cl/peer-timeouts", test_peer_timeouts);
    g_test_add_func("/cl/other-endpoint", test_other_endpoint);
    g_test_add_func("/cl/stray-not-ready", test_stray_not_ready);
    g_test_add_func("/cl/stray-ack", test_stray_ack);
    g_test_add_func("/cl/foreign-source", test_foreign_source);
    g_test_add_func("/cl/fabric", test_fabric);
    g_test_add_func("/cl/onchip-peers", test_onchip_peers);
    return g_test_run();
}
