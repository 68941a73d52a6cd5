/*
 * HyperLogLog sketches on a QP's RDMA WRITEs (hw/snic/core/strom/hll.c):
 * the hash and the estimate against the published vectors and a
 * reference written here from the formulas (not the device's code); the
 * registers of a sketch fed through the engine, in order, under SACK and
 * under SRNIC at 2 % loss with reordering, bit-identical to the
 * reference's over the bytes written; duplicates change no register; the
 * pool and its admin commands.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include "engine-node.h"
#include "sr-host.h"
#include "strom/hll.h"
#include "objects/qp.h"
#include "onchip.h"

#define M       SNIC_HLL_REGISTERS

/* ---- the reference: MurmurHash3_x64_128 and HLL, from their papers ---- */

static uint64_t ref_fmix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
}

/* MurmurHash3_x64_128 of a 4-byte little-endian key: the tail, then fmix */
static uint64_t ref_h1(uint32_t key, uint32_t seed)
{
    uint64_t h1 = seed, h2 = seed, k1 = key;

    k1 *= 0x87c37b91114253d5ull;
    k1 = (k1 << 31) | (k1 >> 33);
    k1 *= 0x4cf5ad432745937full;
    h1 ^= k1;
    h1 ^= 4;
    h2 ^= 4;
    h1 += h2;
    h2 += h1;
    h1 = ref_fmix(h1);
    h2 = ref_fmix(h2);
    return h1 + h2;
}

/* j = x >> (64 - p); rho = (64 - p) - bitlen(w) + 1 of the low 64 - p bits */
static void ref_add(uint8_t *regs, uint32_t key)
{
    uint64_t x = ref_h1(key, 0xbaadf00d);
    uint64_t w = x & ((1ull << 48) - 1);
    unsigned bitlen = 0, rho;

    while (w >> bitlen) {
        bitlen++;
    }
    rho = 48 - bitlen + 1;
    if (rho > regs[x >> 48]) {
        regs[x >> 48] = rho;
    }
}

static double ref_estimate(const uint8_t *regs)
{
    double m = M, sum = 0, e;
    unsigned v = 0, j;

    for (j = 0; j < M; j++) {
        sum += pow(2.0, -(double)regs[j]);
        v += regs[j] == 0;
    }
    e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
    return e <= 2.5 * m && v ? m * log(m / v) : e;
}

/* The published vectors: the hash, and round(E) for keys 0..n-1 */
static void test_vectors(void)
{
    static const struct {
        uint32_t n;
        double e;
    } est[] = { { 1000, 1002 }, { 100000, 100390 }, { 1000000, 1003571 } };
    uint8_t *dev = g_malloc(M), *ref = g_malloc(M);
    unsigned i, k = 0;

    g_assert_cmphex(snic_hll_hash(0), ==, 0xe6d98faf7def3b0eull);
    g_assert_cmphex(snic_hll_hash(1), ==, 0xc22829e2b54952adull);
    g_assert_cmphex(snic_hll_hash(0xdeadbeef), ==, 0x8b1c2c3cc7ef9857ull);
    g_assert_cmphex(ref_h1(0, 0xbaadf00d), ==, 0xe6d98faf7def3b0eull);
    memset(dev, 0, M);
    memset(ref, 0, M);
    for (i = 0; i < 1000000; i++) {
        snic_hll_add(dev, i);
        ref_add(ref, i);
        if (i + 1 == est[k].n) {
            g_assert_cmpmem(dev, M, ref, M);
            g_assert_cmpfloat(round(snic_hll_estimate(dev)), ==, est[k].e);
            g_assert_cmpfloat(round(ref_estimate(ref)), ==, est[k].e);
            g_assert_cmpfloat(snic_hll_estimate(dev), ==, ref_estimate(ref));
            k++;
        }
    }
    g_assert_cmpuint(k, ==, G_N_ELEMENTS(est));
    g_free(dev);
    g_free(ref);
}

/*
 * The reference's error over n distinct pseudo-random keys stays within
 * 3 standard errors (3 x 1.04 / sqrt(m) = 1.22 %) at 10^3 .. 10^7: the
 * keys are i * an odd constant (a bijection of 32-bit words) plus an
 * offset, so they are distinct.
 */
static void test_accuracy(void)
{
    uint8_t *ref = g_malloc0(M);
    uint32_t i, next = 1000;

    for (i = 0; i < 10000000; i++) {
        ref_add(ref, i * 0x9e3779b1u + 0x7f4a7c15u);
        if (i + 1 == next) {
            double e = ref_estimate(ref);
            double err = fabs(e - next) / next;

            g_test_message("HLL n=%u E=%.0f error=%.3f%%", next, e,
                           100 * err);
            g_assert_cmpfloat(err, <=, 3 * 1.04 / sqrt(M));
            next *= 10;
        }
    }
    g_free(ref);
}

/* ---- sketches on QPs through the admin queue ---- */

static uint16_t hll_cmd(Node *n, uint8_t op, uint32_t qpn, uint64_t resp,
                        uint64_t regs)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, op, sizeof(cmd.hll));
    cmd.hll.qpn = GUINT32_TO_LE(qpn);
    cmd.hll.resp_addr = GUINT64_TO_LE(resp);
    cmd.hll.regs_addr = GUINT64_TO_LE(regs);
    return fake_admin(n->h, &cmd, NULL);
}

#define INFO    (FAKE_MEM_BASE + 0x5f0000)  /* struct snic_hll_info */
#define REGS    (FAKE_MEM_BASE + 0x600000)  /* 64 KiB of registers */

/* QUERY_HLL of n's QP: the info, and the registers into regs (or NULL) */
static struct snic_hll_info query(Node *n, uint8_t *regs)
{
    struct snic_hll_info info;

    g_assert_cmpuint(hll_cmd(n, SNIC_ADMIN_QUERY_HLL, n->qpn, INFO,
                             regs ? REGS : 0), ==, SNIC_ADMIN_OK);
    fake_read(n->h, INFO, &info, sizeof(info));
    if (regs) {
        fake_read(n->h, REGS, regs, M);
    }
    return info;
}

static double info_estimate(const struct snic_hll_info *info)
{
    uint64_t u = GUINT64_FROM_LE(info->estimate);
    double d;

    memcpy(&d, &u, sizeof(d));
    return d;
}

static const NodeDev two_sketches = { .cfg = { .hll_sketches = 2 } };

/*
 * The pool: hll-sketches of them, each on chip (QUERY_DEVICE's fixed
 * bytes grow by exactly the pool); one a QP; NO_RESOURCES past the pool;
 * given back by DETACH, by the QP's move to RESET and its destruction.
 */
static void test_pool(void)
{
    SnicCoreConfig cfg = { 0 };
    SnicOnchip without, with;
    struct snic_admin_cmd cmd;
    Node a, b, c, u;
    FakeHost *h;

    h = fake_host_new_cfg(&cfg);
    snic_onchip_account(h->core, &without);
    fake_host_free(h);
    cfg.hll_sketches = 2;
    h = fake_host_new_cfg(&cfg);
    snic_onchip_account(h->core, &with);
    fake_host_free(h);
    g_assert_cmpuint(with.fixed - without.fixed, ==,
                     2 * sizeof(SnicHllSketch));
    g_assert_cmpuint(with.performant_qps, <, without.performant_qps);
    g_test_message("on-chip: %u performant QPs, %u with 2 sketches",
                   without.performant_qps, with.performant_qps);

    node_init_dev(&a, NULL, 1, &two_sketches);
    node_add_qp(&b, &a);
    node_add_qp_rq(&c, &a, 4);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_ATTACH_HLL, a.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_ATTACH_HLL, a.qpn, 0, 0), ==,
                     SNIC_ADMIN_BAD_STATE);     /* one a QP */
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_ATTACH_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_ATTACH_HLL, c.qpn, 0, 0), ==,
                     SNIC_ADMIN_NO_RESOURCES);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_ATTACH_HLL, 9999, 0, 0), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_QUERY_HLL, c.qpn, INFO, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_QUERY_HLL, a.qpn, INFO + 4, 0),
                     ==, SNIC_ADMIN_BAD_ADDRESS);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_QUERY_HLL, a.qpn, INFO, 1), ==,
                     SNIC_ADMIN_BAD_ADDRESS);   /* not host memory */
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_DETACH_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_DETACH_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_ATTACH_HLL, c.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    /* c to RESET: its sketch is free again */
    node_modify(&c, SNIC_QP_ATTR_STATE,
                &(struct snic_qp_attr) { .qp_state = SNIC_QPS_RESET });
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_QUERY_HLL, c.qpn, INFO, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_ATTACH_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    /* b destroyed: its sketch too */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_DESTROY_QP, sizeof(cmd.obj));
    cmd.obj.handle = GUINT32_TO_LE(b.qpn);
    node_admin_ok(a.h, &cmd);
    g_assert_cmpuint(hll_cmd(&a, SNIC_ADMIN_ATTACH_HLL, c.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    fake_host_free(a.h);

    /* a UD QP places no WRITE: no sketch */
    node_init_dev_type(&u, NULL, 1, SNIC_QPT_UD, &two_sketches);
    g_assert_cmpuint(hll_cmd(&u, SNIC_ADMIN_ATTACH_HLL, u.qpn, 0, 0), ==,
                     SNIC_ADMIN_BAD_PARAM);
    fake_host_free(u.h);
}

/* ---- through the engine ---- */

/* Items 10^6 at most: 4 MB of a's buffer, item i at BUF + 4i */
#define ITEMS   1000000u
#define DST     BUF             /* b's buffer: the same offsets */

/* Fill a's buffer with items of 'distinct' values (pseudo-random order) */
static void fill_items(Node *a, uint32_t distinct)
{
    uint8_t *p = fake_ptr(a->h, BUF, 4 * ITEMS);
    uint32_t i;

    for (i = 0; i < ITEMS; i++) {
        uint32_t v = GUINT32_TO_LE((i * 2654435761u) % distinct * 7919u + 3);

        memcpy(p + 4 * i, &v, 4);
    }
}

/* The reference's registers over items [0, n) of a's buffer */
static void ref_regs(Node *a, uint32_t n, uint8_t *regs)
{
    const uint8_t *p = fake_ptr(a->h, BUF, 4 * ITEMS);
    uint32_t i, v;

    memset(regs, 0, M);
    for (i = 0; i < n; i++) {
        memcpy(&v, p + 4 * i, 4);
        ref_add(regs, GUINT32_FROM_LE(v));
    }
}

typedef enum { IN_ORDER, SACK, SRNIC } Mode;

/*
 * a WRITEs items 0 .. n - 1 to b, whose QP has a sketch, in WRITEs of at
 * most 64 KiB, 16 in flight; when all have completed the sketch's
 * registers are the reference's over those items, bit for bit, and the
 * estimate its formula's over them. In order: no loss, every item hashed
 * once. SACK and SRNIC: 2 % of the packets lost and 2 % reordered, placed
 * ahead of ePSN and (SRNIC) placed again.
 */
static void engine_run(Mode mode, uint32_t n)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 5000,
        .loss = mode == IN_ORDER ? 0 : 0.02,
        .reorder = mode == IN_ORDER ? 0 : 0.02, .reorder_ns = 3000,
        .eth_framing = true,
    };
    SnicSim *sim = snic_sim_new(37 + mode + n);
    uint8_t *regs = g_malloc(M), *ref = g_malloc(M);
    uint32_t posted = 0, done = 0, at = 0;
    const SnicSimLinkStats *st;
    struct snic_hll_info info;
    SrHost ha, hb;
    struct snic_cqe cqe;
    Node a, b;

    node_init_dev(&a, sim, 1, &two_sketches);
    node_init_dev(&b, sim, 2, &two_sketches);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    if (mode != IN_ORDER) {
        uint8_t prog = mode == SACK ? SNIC_TRANSPORT_SACK :
                                      SNIC_TRANSPORT_SRNIC;

        g_assert_cmpuint(node_set_transport(&a, prog, 0), ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(node_set_transport(&b, prog, 0), ==, SNIC_ADMIN_OK);
    }
    if (mode == SRNIC) {
        sr_host_init(&ha, &a, sim, 10, 12, 0);
        sr_host_init(&hb, &b, sim, 10, 12, 0);
    }
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_4096, 7, 7);
    fill_items(&a, 300000);
    g_assert_cmpuint(hll_cmd(&b, SNIC_ADMIN_ATTACH_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    while (done < posted || at < n) {
        while (at < n && posted - done < 16) {
            uint32_t k = MIN(n - at, 16384u);

            node_post_send(&a, posted++, SNIC_WR_RDMA_WRITE, BUF + 4ull * at,
                           4 * k, DST + 4ull * at, b.lkey, 0, a.lkey);
            at += k;
        }
        snic_sim_run(sim, 1000000);
        while (node_poll_cq(&a, &cqe)) {
            g_assert_cmpuint(cqe.status, ==, SNIC_WC_SUCCESS);
            done++;
        }
        g_assert_cmpuint(snic_sim_now(sim), <, 100000000000ull);
    }
    info = query(&b, regs);
    ref_regs(&a, n, ref);
    g_assert_cmpmem(regs, M, ref, M);
    g_assert_cmpfloat(info_estimate(&info), ==, ref_estimate(ref));
    g_assert_cmpuint(GUINT32_FROM_LE(info.qpn), ==, b.qpn);
    if (mode == IN_ORDER) {
        g_assert_cmpuint(GUINT64_FROM_LE(info.items), ==, n);
    } else {
        g_assert_cmpuint(GUINT64_FROM_LE(info.items), >=, n);
    }
    g_assert_cmpmem(fake_ptr(b.h, DST, 4 * n), 4 * n,
                    fake_ptr(a.h, BUF, 4 * n), 4 * n);
    st = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep);
    g_test_message("HLL %s n=%u items_hashed=%" G_GUINT64_FORMAT
                   " E=%.0f lost=%" G_GUINT64_FORMAT " reordered=%"
                   G_GUINT64_FORMAT, mode == IN_ORDER ? "in-order" :
                   mode == SACK ? "sack" : "srnic", n,
                   GUINT64_FROM_LE(info.items), info_estimate(&info),
                   st->lost, st->reordered);
    if (mode != IN_ORDER && n == ITEMS) {
        g_assert_cmpuint(st->lost, >, 0);
        g_assert_cmpuint(st->reordered, >, 0);
    }
    /* RESET_HLL: an empty sketch estimates 0 */
    g_assert_cmpuint(hll_cmd(&b, SNIC_ADMIN_RESET_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    info = query(&b, regs);
    g_assert_cmpfloat(info_estimate(&info), ==, 0);
    g_assert_cmpuint(GUINT64_FROM_LE(info.items), ==, 0);
    g_assert_cmpuint(GUINT32_FROM_LE(info.zero_regs), ==, M);
    if (mode == SRNIC) {
        sr_host_free(&ha);
        sr_host_free(&hb);
    }
    node_pair_free(sim, &a, &b);
    g_free(regs);
    g_free(ref);
}

/* n = 10^3 .. 10^6; the lossy runs lose and reorder packets over all */
static void engine_runs(Mode mode)
{
    uint32_t n;

    for (n = 1000; n <= ITEMS; n *= 10) {
        engine_run(mode, n);
    }
}

static void test_in_order(void)
{
    engine_runs(IN_ORDER);
}

static void test_sack(void)
{
    engine_runs(SACK);
}

static void test_srnic(void)
{
    engine_runs(SRNIC);
}

/*
 * Every item written twice (the same bytes WRITE'd again, elsewhere)
 * leaves the registers as they were; the items hashed double. A WRITE
 * with immediate counts; a message's trailing partial word is no item.
 */
static void test_duplicates(void)
{
    SnicSim *sim = snic_sim_new(3);
    uint8_t *once = g_malloc(M), *twice = g_malloc(M), *ref = g_malloc(M);
    struct snic_hll_info info;
    struct snic_cqe cqe;
    const uint32_t n = 50000;
    Node a, b;

    node_init_dev(&a, sim, 1, &two_sketches);
    node_init_dev(&b, sim, 2, &two_sketches);
    snic_sim_port_connect(&a.h->port, &b.h->port,
                          &(SnicSimLinkConfig) { .delay_ns = 1000 });
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    fill_items(&a, 20000);
    g_assert_cmpuint(hll_cmd(&b, SNIC_ADMIN_ATTACH_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 4 * n, DST, b.lkey, 0,
                   a.lkey);
    snic_sim_run(sim, 100000000);
    g_assert_true(node_poll_cq(&a, &cqe));
    query(&b, once);
    ref_regs(&a, n, ref);
    g_assert_cmpmem(once, M, ref, M);
    /* again, with immediate, 2 bytes longer: a partial word at the end */
    node_post_recv(&b, 7, DST + 0x300000, 64);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE_IMM, BUF, 4 * n + 2,
                   DST + 4 * n + 64, b.lkey, 0x1234, a.lkey);
    snic_sim_run(sim, 100000000);
    g_assert_true(node_poll_cq(&a, &cqe));
    g_assert_cmpuint(cqe.status, ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&b, &cqe));
    info = query(&b, twice);
    g_assert_cmpmem(twice, M, once, M);
    g_assert_cmpuint(GUINT64_FROM_LE(info.items), ==, 2 * n);
    node_pair_free(sim, &a, &b);
    g_free(once);
    g_free(twice);
    g_free(ref);
}

/*
 * A sketch attached in the middle of a message counts from the next
 * packet placed: a 4-packet WRITE, the sketch attached once b has placed
 * its first packet, holds the items of the other three.
 */
static void test_attach_mid_message(void)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 1000000000ull, .delay_ns = 1000,
    };
    SnicSim *sim = snic_sim_new(9);
    uint8_t *regs = g_malloc(M), *ref = g_malloc(M);
    const uint8_t *p;
    struct snic_hll_info info;
    struct snic_cqe cqe;
    uint32_t i, v;
    Node a, b;

    node_init_dev(&a, sim, 1, &two_sketches);
    node_init_dev(&b, sim, 2, &two_sketches);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    fill_items(&a, 1u << 31);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 4096, DST, b.lkey, 0,
                   a.lkey);
    while (!snic_qp_get(b.h->core, b.qpn)->resp.in_write) {
        g_assert_true(snic_sim_step(sim));
    }
    g_assert_cmpuint(hll_cmd(&b, SNIC_ADMIN_ATTACH_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    snic_sim_run(sim, 100000000);
    g_assert_true(node_poll_cq(&a, &cqe));
    g_assert_cmpuint(cqe.status, ==, SNIC_WC_SUCCESS);
    info = query(&b, regs);
    memset(ref, 0, M);
    p = fake_ptr(a.h, BUF, 4096);
    for (i = 256; i < 1024; i++) {      /* the last three packets' items */
        memcpy(&v, p + 4 * i, 4);
        ref_add(ref, GUINT32_FROM_LE(v));
    }
    g_assert_cmpmem(regs, M, ref, M);
    g_assert_cmpuint(GUINT64_FROM_LE(info.items), ==, 768);
    node_pair_free(sim, &a, &b);
    g_free(regs);
    g_free(ref);
}

/* UC: the same placement, the same sketch */
static void test_uc(void)
{
    SnicSim *sim = snic_sim_new(5);
    uint8_t *regs = g_malloc(M), *ref = g_malloc(M);
    struct snic_hll_info info;
    struct snic_cqe cqe;
    const uint32_t n = 30000;
    Node a, b;

    node_init_dev_type(&a, sim, 1, SNIC_QPT_UC, &two_sketches);
    node_init_dev_type(&b, sim, 2, SNIC_QPT_UC, &two_sketches);
    snic_sim_port_connect(&a.h->port, &b.h->port,
                          &(SnicSimLinkConfig) { .delay_ns = 1000 });
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_4096, 7, 7);
    fill_items(&a, 1u << 31);
    g_assert_cmpuint(hll_cmd(&b, SNIC_ADMIN_ATTACH_HLL, b.qpn, 0, 0), ==,
                     SNIC_ADMIN_OK);
    node_post_send(&a, 1, SNIC_WR_RDMA_WRITE, BUF, 4 * n, DST, b.lkey, 0,
                   a.lkey);
    snic_sim_run(sim, 100000000);
    g_assert_true(node_poll_cq(&a, &cqe));
    info = query(&b, regs);
    ref_regs(&a, n, ref);
    g_assert_cmpmem(regs, M, ref, M);
    g_assert_cmpuint(GUINT64_FROM_LE(info.items), ==, n);
    node_pair_free(sim, &a, &b);
    g_free(regs);
    g_free(ref);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/hll/vectors", test_vectors);
    g_test_add_func("/hll/accuracy", test_accuracy);
    g_test_add_func("/hll/pool", test_pool);
    g_test_add_func("/hll/duplicates", test_duplicates);
    g_test_add_func("/hll/uc", test_uc);
    g_test_add_func("/hll/attach-mid-message", test_attach_mid_message);
    g_test_add_func("/hll/engine/in-order", test_in_order);
    g_test_add_func("/hll/engine/sack", test_sack);
    g_test_add_func("/hll/engine/srnic-lossy", test_srnic);
    return g_test_run();
}
