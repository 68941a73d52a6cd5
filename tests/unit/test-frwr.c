/*
 * Fast registration (FRWR): an MR allocated for it maps nothing until a
 * REG_MR work request maps a page list under a new key; remote WRITE and
 * READ and local SGEs use that key; LOCAL_INV and a peer's SEND with
 * Invalidate free it again; the refusals of a registration and of an
 * invalidation (LOC_QP_OP_ERR, nothing mapped); key rotation; an iova
 * that is not page aligned; a page-list buffer reused for new pages; the
 * admin side. And the connection-established event of an RC QP in RTR,
 * which the kernel's storage targets rely on when the CM's RTU is lost.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"
#include "objects/mr.h"
#include "objects/qp.h"

/* Page lists: inside each node's memory, away from the pages mapped */
#define LIST_A      (BUF + 0x3f0000)
#define LIST_B      (BUF + 0x3f1000)
#define PAGE(n)     (BUF + 0x100000 + (uint64_t)(n) * 0x1000)
#define RW          (SNIC_ACCESS_LOCAL_WRITE | SNIC_ACCESS_REMOTE_WRITE | \
                     SNIC_ACCESS_REMOTE_READ)

static const SnicSimLinkConfig clean = { .delay_ns = 1000 };

/* An MR for fast registration of up to max_pages pages: its key */
static uint32_t alloc_frwr(Node *n, uint32_t max_pages, uint8_t key)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.npages = GUINT32_TO_LE(max_pages);
    cmd.reg_mr.pdn = GUINT32_TO_LE(n->pdn);
    cmd.reg_mr.key = key;
    cmd.reg_mr.flags = GUINT16_TO_LE(SNIC_MR_FRWR);
    return node_admin_ok(n->h, &cmd);
}

/* The key with another key byte, as ib_update_fast_reg_key() makes it */
static uint32_t rotate(uint32_t key, uint8_t byte)
{
    return (key & ~SNIC_KEY_BYTE_MASK) | byte;
}

typedef struct Reg {
    uint32_t mr_key, new_key;
    uint64_t iova, length;
    uint64_t list;              /* where the page list is written */
    const uint64_t *pages;
    uint32_t npages;            /* in the WQE */
    uint32_t nlist;             /* written to the list (0: npages) */
    uint8_t page_shift;         /* 0: 4 KiB */
    uint32_t access;
} Reg;

static void post_reg(Node *n, uint64_t wr_id, const Reg *r)
{
    struct snic_sq_wqe w;
    uint32_t i;

    for (i = 0; i < (r->nlist ? r->nlist : r->npages); i++) {
        node_wr64(n, r->list + i * 8, r->pages[i]);
    }
    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = SNIC_WR_REG_MR;
    w.flags = SNIC_WQE_SIGNALED;
    w.reg.iova = GUINT64_TO_LE(r->iova);
    w.reg.length = GUINT64_TO_LE(r->length);
    w.reg.pbl_addr = GUINT64_TO_LE(r->list);
    w.reg.mr_key = GUINT32_TO_LE(r->mr_key);
    w.reg.new_key = GUINT32_TO_LE(r->new_key);
    w.reg.npages = GUINT32_TO_LE(r->npages);
    w.reg.access = GUINT32_TO_LE(r->access);
    w.reg.page_shift = r->page_shift ? r->page_shift : SNIC_PAGE_SHIFT_4K;
    node_post_wqe(n, &w);
}

static void post_local_inv(Node *n, uint64_t wr_id, uint32_t key)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = SNIC_WR_LOCAL_INV;
    w.flags = SNIC_WQE_SIGNALED;
    w.imm = GUINT32_TO_BE(key);
    node_post_wqe(n, &w);
}

/* Run, then the one completion n must have: its status. */
static uint8_t one_cqe(SnicSim *sim, Node *n, uint8_t opcode)
{
    struct snic_cqe c;

    snic_sim_run(sim, 1000000);
    g_assert_true(node_poll_cq(n, &c));
    if (c.status == SNIC_WC_SUCCESS) {
        g_assert_cmpuint(c.opcode, ==, opcode);
    }
    return c.status;
}

/* Register r on n: it must succeed. */
static void reg_ok(SnicSim *sim, Node *n, const Reg *r)
{
    post_reg(n, 0x7e9, r);
    g_assert_cmpuint(one_cqe(sim, n, SNIC_WC_REG_MR), ==, SNIC_WC_SUCCESS);
}

/* a WRITEs len bytes (pattern seed) from its BUF to va through rkey */
static uint8_t write_via(SnicSim *sim, Node *a, uint32_t rkey, uint64_t va,
                         uint32_t len, uint32_t seed)
{
    node_fill(a, BUF, len, seed);
    node_post_send(a, seed, SNIC_WR_RDMA_WRITE, BUF, len, va, rkey, 0,
                   a->lkey);
    return one_cqe(sim, a, SNIC_WC_RDMA_WRITE);
}

static void pair(SnicSim **sim, Node *a, Node *b, unsigned seed)
{
    *sim = snic_sim_new(seed);
    node_pair_new(*sim, a, b, &clean, SNIC_MTU_1024, 7, 7);
}

static SnicMr *mr_of(Node *n, uint32_t key)
{
    return &n->h->core->mrs[key >> SNIC_KEY_INDEX_SHIFT];
}

/* The bytes at va of b's mapping are a's BUF + off, len of them. */
static void assert_landed(Node *a, Node *b, uint64_t phys, uint32_t off,
                          uint32_t len)
{
    g_assert_cmpmem(fake_ptr(b->h, phys, len), len,
                    fake_ptr(a->h, BUF + off, len), len);
}

/*
 * Four scattered pages mapped at one iova: a WRITE through the new key
 * lands page by page in list order, a READ brings the same bytes back;
 * the completion is a REG_MR one and the device counts it.
 */
static void test_register_write_read(void)
{
    static const uint64_t pages[] = { PAGE(3), PAGE(1), PAGE(7), PAGE(5) };
    SnicSim *sim;
    Node a, b;
    uint32_t key, k1;
    unsigned i;

    pair(&sim, &a, &b, 1);
    key = alloc_frwr(&b, 16, 0x10);
    g_assert_true(mr_of(&b, key)->free);
    k1 = rotate(key, 0x11);
    reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1,
                             .iova = 0x10000000, .length = 0x4000,
                             .list = LIST_A, .pages = pages, .npages = 4,
                             .access = RW });
    g_assert_false(mr_of(&b, key)->free);
    g_assert_cmpuint(FAKE_STAT(b.h, frwr_registered), ==, 1);

    g_assert_cmpuint(write_via(sim, &a, k1, 0x10000000, 0x4000, 1), ==,
                     SNIC_WC_SUCCESS);
    for (i = 0; i < 4; i++) {
        assert_landed(&a, &b, pages[i], i * 0x1000, 0x1000);
    }
    memset(fake_ptr(a.h, BUF + 0x8000, 0x4000), 0, 0x4000);
    node_post_send(&a, 2, SNIC_WR_RDMA_READ, BUF + 0x8000, 0x4000,
                   0x10000000, k1, 0, a.lkey);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_RDMA_READ), ==,
                     SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(a.h, BUF + 0x8000, 0x4000), 0x4000,
                    fake_ptr(a.h, BUF, 0x4000), 0x4000);
    /* past the registered length */
    g_assert_cmpuint(write_via(sim, &a, k1, 0x10003f00, 0x200, 3), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/* LOCAL_INV frees the MR: a remote access NAKs with a remote access error */
static void test_local_invalidate(void)
{
    static const uint64_t pages[] = { PAGE(2) };
    SnicSim *sim;
    Node a, b;
    uint32_t key, k1;

    pair(&sim, &a, &b, 2);
    key = alloc_frwr(&b, 4, 0x20);
    k1 = rotate(key, 0x21);
    reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1, .iova = 0x5000,
                             .length = 0x1000, .list = LIST_A,
                             .pages = pages, .npages = 1, .access = RW });
    g_assert_cmpuint(write_via(sim, &a, k1, 0x5000, 64, 1), ==,
                     SNIC_WC_SUCCESS);
    post_local_inv(&b, 3, k1);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_LOCAL_INV), ==,
                     SNIC_WC_SUCCESS);
    g_assert_true(mr_of(&b, key)->free);
    g_assert_cmpuint(FAKE_STAT(b.h, frwr_invalidated), ==, 1);
    g_assert_cmpuint(write_via(sim, &a, k1, 0x5000, 64, 2), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/*
 * A SEND with Invalidate frees the MR its IETH names, not another; the
 * receiver's completion carries the key.
 */
static void test_send_with_invalidate(void)
{
    static const uint64_t p1[] = { PAGE(1) }, p2[] = { PAGE(2) };
    SnicSim *sim;
    struct snic_cqe c;
    Node a, b;
    uint32_t m1, m2, k1, k2;

    pair(&sim, &a, &b, 3);
    m1 = alloc_frwr(&b, 4, 0x30);
    m2 = alloc_frwr(&b, 4, 0x40);
    k1 = rotate(m1, 0x31);
    k2 = rotate(m2, 0x41);
    reg_ok(sim, &b, &(Reg) { .mr_key = m1, .new_key = k1, .iova = 0x1000,
                             .length = 0x1000, .list = LIST_A, .pages = p1,
                             .npages = 1, .access = RW });
    reg_ok(sim, &b, &(Reg) { .mr_key = m2, .new_key = k2, .iova = 0x1000,
                             .length = 0x1000, .list = LIST_B, .pages = p2,
                             .npages = 1, .access = RW });
    node_post_recv(&b, 9, BUF, 4096);
    node_post_send(&a, 1, SNIC_WR_SEND_INV, BUF + 0x20000, 1500, 0, 0, k2,
                   a.lkey);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_SEND), ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 9);
    g_assert_cmpuint(c.wc_flags & (SNIC_WC_F_INV | SNIC_WC_F_IMM), ==,
                     SNIC_WC_F_INV);
    g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, k2);
    g_assert_true(mr_of(&b, m2)->free);
    g_assert_false(mr_of(&b, m1)->free);
    g_assert_cmpuint(write_via(sim, &a, k1, 0x1000, 64, 2), ==,
                     SNIC_WC_SUCCESS);
    g_assert_cmpuint(write_via(sim, &a, k2, 0x1000, 64, 3), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/*
 * Registrations the device refuses: each completes with LOC_QP_OP_ERR,
 * maps nothing (the MR stays as it was) and the QP enters ERR.
 */
static void test_register_refusals(void)
{
    enum { STILL_VALID, TOO_MANY_PAGES, UNALIGNED_ENTRY, OTHER_PD,
           STALE_KEY, OTHER_INDEX, PAGE_SIZE, N_CASES };
    static const uint64_t pages[] = { PAGE(1), PAGE(2), PAGE(3), PAGE(4),
                                      PAGE(5) };
    static const uint64_t crooked[] = { PAGE(1), PAGE(2) + 0x800 };
    unsigned i;

    for (i = 0; i < N_CASES; i++) {
        struct snic_admin_cmd cmd;
        uint32_t key, k1;
        SnicSim *sim;
        SnicMr before;
        Node a, b;
        Reg r;

        pair(&sim, &a, &b, 10 + i);
        if (i == OTHER_PD) {
            uint64_t pdn = b.pdn;

            snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD,
                                sizeof(cmd.alloc_pd));
            b.pdn = node_admin_ok(b.h, &cmd);
            key = alloc_frwr(&b, 4, 0x50);
            b.pdn = pdn;
        } else {
            key = alloc_frwr(&b, 4, 0x50);
        }
        k1 = rotate(key, 0x51);
        r = (Reg) { .mr_key = key, .new_key = k1, .iova = 0x8000,
                    .length = 0x2000, .list = LIST_A, .pages = pages,
                    .npages = 2, .access = RW };
        if (i == STILL_VALID) {
            reg_ok(sim, &b, &r);
            r.mr_key = k1;
            r.new_key = rotate(key, 0x52);
            r.pages = pages + 2;
            r.list = LIST_B;
        }
        if (i == TOO_MANY_PAGES) {
            r.length = 0x5000;      /* 5 pages in an MR of 4 */
            r.npages = 5;
        }
        if (i == UNALIGNED_ENTRY) {
            r.pages = crooked;
        }
        if (i == STALE_KEY) {
            r.mr_key = rotate(key, 0x4f);
        }
        if (i == OTHER_INDEX) {
            r.new_key = k1 + (1u << SNIC_KEY_INDEX_SHIFT);
        }
        if (i == PAGE_SIZE) {
            r.page_shift = 16;      /* 64 KiB: not in page_size_cap */
            r.npages = 1;
        }
        before = *mr_of(&b, key);
        post_reg(&b, 2, &r);
        g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_REG_MR), ==,
                         SNIC_WC_LOC_QP_OP_ERR);
        g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
        g_assert_cmpmem(mr_of(&b, key), sizeof(SnicMr), &before,
                        sizeof(before));
        g_assert_cmpuint(FAKE_STAT(b.h, frwr_registered), ==,
                         i == STILL_VALID);
        node_pair_free(sim, &a, &b);
    }
}

/*
 * Key rotation: registered again under a new key byte (same index), the
 * MR answers to the new key only, remotely and in a local SGE.
 */
static void test_key_rotation(void)
{
    static const uint64_t pb[] = { PAGE(4) };
    static const uint64_t pa[] = { BUF };   /* a's own BUF page */
    SnicSim *sim;
    Node a, b;
    uint32_t key, k1, k2, ka, ka1, ka2;

    pair(&sim, &a, &b, 20);
    key = alloc_frwr(&b, 4, 0x60);
    k1 = rotate(key, 0x61);
    k2 = rotate(key, 0x62);
    reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1, .iova = 0x9000,
                             .length = 0x1000, .list = LIST_A, .pages = pb,
                             .npages = 1, .access = RW });
    post_local_inv(&b, 1, k1);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_LOCAL_INV), ==,
                     SNIC_WC_SUCCESS);
    reg_ok(sim, &b, &(Reg) { .mr_key = k1, .new_key = k2, .iova = 0x9000,
                             .length = 0x1000, .list = LIST_A, .pages = pb,
                             .npages = 1, .access = RW });
    g_assert_cmpuint(write_via(sim, &a, k2, 0x9000, 256, 1), ==,
                     SNIC_WC_SUCCESS);
    assert_landed(&a, &b, PAGE(4), 0, 256);
    /* the previous key is refused: a remote access error, nothing written */
    memset(fake_ptr(b.h, PAGE(4), 256), 0xee, 256);
    g_assert_cmpuint(write_via(sim, &a, k1, 0x9000, 256, 2), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(b.h, PAGE(4), 1), ==, 0xee);
    node_pair_free(sim, &a, &b);

    /* a's own FRWR MR, rotated, as the local SGE of a WRITE */
    pair(&sim, &a, &b, 21);
    ka = alloc_frwr(&a, 4, 0x70);
    ka1 = rotate(ka, 0x71);
    ka2 = rotate(ka, 0x72);
    reg_ok(sim, &a, &(Reg) { .mr_key = ka, .new_key = ka1, .iova = 0x77000,
                             .length = 0x1000, .list = LIST_A, .pages = pa,
                             .npages = 1, .access = SNIC_ACCESS_LOCAL_WRITE });
    post_local_inv(&a, 1, ka1);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_LOCAL_INV), ==,
                     SNIC_WC_SUCCESS);
    reg_ok(sim, &a, &(Reg) { .mr_key = ka1, .new_key = ka2, .iova = 0x77000,
                             .length = 0x1000, .list = LIST_A, .pages = pa,
                             .npages = 1, .access = SNIC_ACCESS_LOCAL_WRITE });
    node_fill(&a, BUF + 0x100, 512, 9);
    node_post_send(&a, 2, SNIC_WR_RDMA_WRITE, 0x77100, 512, BUF + 0x40000,
                   b.lkey, 0, ka2);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_RDMA_WRITE), ==,
                     SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x40000, 512), 512,
                    fake_ptr(a.h, BUF + 0x100, 512), 512);
    /* the old lkey in an SGE: a local protection error */
    node_post_send(&a, 3, SNIC_WR_RDMA_WRITE, 0x77100, 512, BUF + 0x40000,
                   b.lkey, 0, ka1);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_RDMA_WRITE), ==,
                     SNIC_WC_LOC_PROT_ERR);
    node_pair_free(sim, &a, &b);
}

/*
 * The iova is arbitrary: not page aligned (its offset into the first
 * page is iova mod 4 KiB) and with any upper bits, as xprtrdma puts the
 * RPC's XID in the upper 32.
 */
static void test_unaligned_iova(void)
{
    static const uint64_t pages[] = { PAGE(8), PAGE(6), PAGE(9) };
    const uint64_t iova = 0xdeadbeef00012800ull;
    SnicSim *sim;
    Node a, b;
    uint32_t key, k1;

    pair(&sim, &a, &b, 30);
    key = alloc_frwr(&b, 8, 0x80);
    k1 = rotate(key, 0x81);
    /* 0x2000 bytes from offset 0x800 of the first page: three pages */
    reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1, .iova = iova,
                             .length = 0x2000, .list = LIST_A,
                             .pages = pages, .npages = 3, .access = RW });
    g_assert_cmpuint(write_via(sim, &a, k1, iova, 0x2000, 1), ==,
                     SNIC_WC_SUCCESS);
    assert_landed(&a, &b, PAGE(8) + 0x800, 0, 0x800);
    assert_landed(&a, &b, PAGE(6), 0x800, 0x1000);
    assert_landed(&a, &b, PAGE(9), 0x1800, 0x800);
    /* one byte before iova, and one past its end */
    g_assert_cmpuint(write_via(sim, &a, k1, iova - 1, 16, 2), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);

    pair(&sim, &a, &b, 31);
    key = alloc_frwr(&b, 8, 0x80);
    k1 = rotate(key, 0x81);
    reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1, .iova = iova,
                             .length = 0x2000, .list = LIST_A,
                             .pages = pages, .npages = 3, .access = RW });
    g_assert_cmpuint(write_via(sim, &a, k1, iova + 0x1ff8, 16, 3), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/*
 * The page-list buffer is reused: after an invalidation the consumer
 * writes other pages into the same buffer and registers again; a WRITE
 * lands in the new pages, none in the old (no translation kept).
 */
static void test_page_list_reused(void)
{
    static const uint64_t old_pages[] = { PAGE(10), PAGE(11) };
    static const uint64_t new_pages[] = { PAGE(20), PAGE(21) };
    SnicSim *sim;
    Node a, b;
    uint32_t key, k1, k2;

    pair(&sim, &a, &b, 40);
    key = alloc_frwr(&b, 4, 0x90);
    k1 = rotate(key, 0x91);
    k2 = rotate(key, 0x92);
    reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1, .iova = 0xa000,
                             .length = 0x2000, .list = LIST_A,
                             .pages = old_pages, .npages = 2,
                             .access = RW });
    /* the device has the old list's entries cached now */
    g_assert_cmpuint(write_via(sim, &a, k1, 0xa000, 0x2000, 1), ==,
                     SNIC_WC_SUCCESS);
    post_local_inv(&b, 1, k1);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_LOCAL_INV), ==,
                     SNIC_WC_SUCCESS);
    memset(fake_ptr(b.h, PAGE(10), 0x2000), 0x5a, 0x2000);
    reg_ok(sim, &b, &(Reg) { .mr_key = k1, .new_key = k2, .iova = 0xa000,
                             .length = 0x2000, .list = LIST_A,
                             .pages = new_pages, .npages = 2,
                             .access = RW });
    g_assert_cmpuint(write_via(sim, &a, k2, 0xa000, 0x2000, 2), ==,
                     SNIC_WC_SUCCESS);
    assert_landed(&a, &b, PAGE(20), 0, 0x1000);
    assert_landed(&a, &b, PAGE(21), 0x1000, 0x1000);
    g_assert_true(*(uint8_t *)fake_ptr(b.h, PAGE(10), 1) == 0x5a &&
                  *(uint8_t *)fake_ptr(b.h, PAGE(11) + 0xfff, 1) == 0x5a);
    node_pair_free(sim, &a, &b);
}

/*
 * Invalidation refusals: an MR with a window bound in it, an unknown
 * key, another PD's MR, an ordinary (not FRWR) MR. Each LOCAL_INV
 * completes with LOC_QP_OP_ERR and the MR keeps its mapping.
 */
static void test_invalidate_refusals(void)
{
    enum { WINDOW_BOUND, UNKNOWN, OTHER_PD, NOT_FRWR, N_CASES };
    static const uint64_t pages[] = { PAGE(12) };
    unsigned i;

    for (i = 0; i < N_CASES; i++) {
        struct snic_admin_cmd cmd;
        struct snic_sq_wqe w;
        uint32_t key, k1, mw, inv;
        SnicSim *sim;
        Node a, b;

        pair(&sim, &a, &b, 50 + i);
        if (i == OTHER_PD) {
            uint64_t pdn = b.pdn;

            snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD,
                                sizeof(cmd.alloc_pd));
            b.pdn = node_admin_ok(b.h, &cmd);
            key = alloc_frwr(&b, 4, 0xa0);
            b.pdn = pdn;
        } else {
            key = alloc_frwr(&b, 4, 0xa0);
        }
        k1 = rotate(key, 0xa1);
        if (i != OTHER_PD) {
            reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1,
                                     .iova = 0xb000, .length = 0x1000,
                                     .list = LIST_A, .pages = pages,
                                     .npages = 1,
                                     .access = RW | SNIC_ACCESS_MW_BIND });
        }
        inv = i == UNKNOWN ? k1 + (1u << SNIC_KEY_INDEX_SHIFT) :
              i == NOT_FRWR ? b.lkey : k1;
        if (i == WINDOW_BOUND) {
            snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_MW,
                                sizeof(cmd.alloc_mw));
            cmd.alloc_mw.pdn = GUINT32_TO_LE(b.pdn);
            cmd.alloc_mw.type = SNIC_MW_TYPE_2;
            cmd.alloc_mw.key = 1;
            mw = node_admin_ok(b.h, &cmd);
            memset(&w, 0, sizeof(w));
            w.opcode = SNIC_WR_BIND_MW;
            w.flags = SNIC_WQE_SIGNALED;
            w.bind.addr = GUINT64_TO_LE(0xb000);
            w.bind.length = GUINT64_TO_LE(0x100);
            w.bind.mw_rkey = GUINT32_TO_LE(mw);
            w.bind.new_rkey = GUINT32_TO_LE(mw + 1);
            w.bind.mr_lkey = GUINT32_TO_LE(k1);
            w.bind.access = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_READ);
            node_post_wqe(&b, &w);
            g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==,
                             SNIC_WC_SUCCESS);
        }
        post_local_inv(&b, 7, inv);
        g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_LOCAL_INV), ==,
                         SNIC_WC_LOC_QP_OP_ERR);
        g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
        g_assert_cmpuint(FAKE_STAT(b.h, frwr_invalidated), ==, 0);
        if (i != OTHER_PD) {
            g_assert_false(mr_of(&b, key)->free);
        }
        node_pair_free(sim, &a, &b);
    }

    /* a peer's SEND with Invalidate of a window-bound MR: REM_INV_REQ_ERR */
    {
        struct snic_admin_cmd cmd;
        struct snic_sq_wqe w;
        struct snic_cqe c;
        uint32_t key, k1, mw;
        SnicSim *sim;
        Node a, b;

        pair(&sim, &a, &b, 60);
        key = alloc_frwr(&b, 4, 0xb0);
        k1 = rotate(key, 0xb1);
        reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1,
                                 .iova = 0xb000, .length = 0x1000,
                                 .list = LIST_A, .pages = pages, .npages = 1,
                                 .access = RW | SNIC_ACCESS_MW_BIND });
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_MW, sizeof(cmd.alloc_mw));
        cmd.alloc_mw.pdn = GUINT32_TO_LE(b.pdn);
        cmd.alloc_mw.type = SNIC_MW_TYPE_1;
        mw = node_admin_ok(b.h, &cmd);
        memset(&w, 0, sizeof(w));
        w.opcode = SNIC_WR_BIND_MW;
        w.flags = SNIC_WQE_SIGNALED;
        w.bind.addr = GUINT64_TO_LE(0xb000);
        w.bind.length = GUINT64_TO_LE(0x100);
        w.bind.mw_rkey = GUINT32_TO_LE(mw);
        w.bind.new_rkey = GUINT32_TO_LE(mw + 1);
        w.bind.mr_lkey = GUINT32_TO_LE(k1);
        w.bind.access = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_READ);
        node_post_wqe(&b, &w);
        g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==,
                         SNIC_WC_SUCCESS);
        node_post_recv(&b, 9, BUF, 4096);
        node_post_send(&a, 1, SNIC_WR_SEND_INV, BUF + 0x20000, 64, 0, 0, k1,
                       a.lkey);
        g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_SEND), ==,
                         SNIC_WC_REM_INV_REQ_ERR);
        g_assert_true(node_poll_cq(&b, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_REM_INV_REQ_ERR);
        g_assert_false(mr_of(&b, key)->free);
        node_pair_free(sim, &a, &b);
    }
}

/* DEREG_MR of a valid FRWR MR: its key is dead, its slot free again */
static void test_dereg_valid(void)
{
    static const uint64_t pages[] = { PAGE(13) };
    SnicSim *sim;
    Node a, b;
    uint32_t key, k1, objs;

    pair(&sim, &a, &b, 70);
    objs = 0;
    for (unsigned i = 1; i <= b.h->core->cfg.max_mr; i++) {
        objs += b.h->core->mrs[i].valid;
    }
    key = alloc_frwr(&b, 4, 0xc0);
    k1 = rotate(key, 0xc1);
    reg_ok(sim, &b, &(Reg) { .mr_key = key, .new_key = k1, .iova = 0xc000,
                             .length = 0x1000, .list = LIST_A,
                             .pages = pages, .npages = 1, .access = RW });
    /* named by its index: the key byte it was allocated with still works */
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DEREG_MR, key), ==,
                     SNIC_ADMIN_OK);
    g_assert_false(mr_of(&b, key)->valid);
    g_assert_cmpuint(write_via(sim, &a, k1, 0xc000, 64, 1), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    for (unsigned i = 1; i <= b.h->core->cfg.max_mr; i++) {
        objs -= b.h->core->mrs[i].valid;
    }
    g_assert_cmpuint(objs, ==, 0);
    node_pair_free(sim, &a, &b);
}

/* ALLOC of an FRWR MR: its fields and who may have one */
static void test_admin(void)
{
    enum { NO_PAGES, TOO_MANY, WITH_IOVA, WITH_ACCESS, WITH_OTHER_FLAG,
           USER_PD, N_CASES };
    struct snic_admin_cmd cmd;
    SnicSim *sim;
    Node a, b;
    uint32_t key;
    unsigned i;

    pair(&sim, &a, &b, 80);
    for (i = 0; i < N_CASES; i++) {
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
        cmd.reg_mr.npages = GUINT32_TO_LE(i == NO_PAGES ? 0 :
                                          i == TOO_MANY ?
                                          SNIC_FRWR_MAX_PAGES + 1 : 4);
        cmd.reg_mr.pdn = GUINT32_TO_LE(b.pdn);
        cmd.reg_mr.flags = GUINT16_TO_LE(SNIC_MR_FRWR |
                                         (i == WITH_OTHER_FLAG ?
                                          SNIC_MR_PHYS : 0));
        cmd.reg_mr.iova = GUINT64_TO_LE(i == WITH_IOVA ? 0x1000 : 0);
        cmd.reg_mr.access = GUINT32_TO_LE(i == WITH_ACCESS ? RW : 0);
        if (i == USER_PD) {
            snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD,
                                sizeof(cmd.alloc_pd));
            cmd.alloc_pd.ctx = GUINT16_TO_LE(1);
            key = node_admin_ok(b.h, &cmd);
            snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
            cmd.reg_mr.npages = GUINT32_TO_LE(4);
            cmd.reg_mr.pdn = GUINT32_TO_LE(key);
            cmd.reg_mr.flags = GUINT16_TO_LE(SNIC_MR_FRWR);
        }
        g_assert_cmpuint(fake_admin(b.h, &cmd, NULL), ==,
                         SNIC_ADMIN_BAD_PARAM);
    }
    /* the largest, and REREG_MR does not apply to it */
    key = alloc_frwr(&b, SNIC_FRWR_MAX_PAGES, 1);
    g_assert_cmpuint(mr_of(&b, key)->max_pages, ==, SNIC_FRWR_MAX_PAGES);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REREG_MR, sizeof(cmd.rereg_mr));
    cmd.rereg_mr.lkey = GUINT32_TO_LE(key);
    cmd.rereg_mr.rereg_flags = GUINT32_TO_LE(SNIC_REREG_ACCESS);
    cmd.rereg_mr.mr.access = GUINT32_TO_LE(RW);
    g_assert_cmpuint(fake_admin(b.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    /* free, it is no key for anything */
    g_assert_cmpuint(write_via(sim, &a, key, 0, 64, 1), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/*
 * IBA 11.6.2 communication established: the first packet into an RC QP
 * in RTR raises the event once (nvmet-rdma moves its QP to RTS from it
 * when the CM's RTU is lost); none in RTS.
 */
static void test_comm_est(void)
{
    SnicSim *sim = snic_sim_new(90);
    struct snic_aeqe e;
    struct snic_cqe c;
    Node a, b;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &clean);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect_rtr(&b, &a, SNIC_MTU_1024);
    node_post_recv(&b, 1, BUF, 4096);
    node_post_recv(&b, 2, BUF, 4096);
    node_post_send(&a, 1, SNIC_WR_SEND, BUF, 64, 0, 0, 0, a.lkey);
    node_post_send(&a, 2, SNIC_WR_SEND, BUF, 64, 0, 0, 0, a.lkey);
    snic_sim_run(sim, 1000000);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_RTR);
    g_assert_true(fake_aeq_poll(b.h, &e));
    g_assert_cmpuint(GUINT32_FROM_LE(e.event), ==, SNIC_EVENT_QP_COMM_EST);
    g_assert_cmpuint(GUINT64_FROM_LE(e.data), ==, b.qpn);
    g_assert_false(fake_aeq_poll(b.h, &e));     /* once, for two messages */
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_false(fake_aeq_poll(a.h, &e));     /* a was in RTS */
    node_pair_free(sim, &a, &b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/frwr/register-write-read", test_register_write_read);
    g_test_add_func("/frwr/local-invalidate", test_local_invalidate);
    g_test_add_func("/frwr/send-with-invalidate", test_send_with_invalidate);
    g_test_add_func("/frwr/register-refusals", test_register_refusals);
    g_test_add_func("/frwr/key-rotation", test_key_rotation);
    g_test_add_func("/frwr/unaligned-iova", test_unaligned_iova);
    g_test_add_func("/frwr/page-list-reused", test_page_list_reused);
    g_test_add_func("/frwr/invalidate-refusals", test_invalidate_refusals);
    g_test_add_func("/frwr/dereg-valid", test_dereg_valid);
    g_test_add_func("/frwr/admin", test_admin);
    g_test_add_func("/frwr/comm-est", test_comm_est);
    return g_test_run();
}
