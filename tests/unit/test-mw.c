/*
 * Memory windows: binding type 1 and 2 windows by work request, remote
 * access through them (bounds, rights, the QP a type 2 window belongs
 * to), local invalidation and SEND with Invalidate, the refusals of a
 * bind (MW_BIND_ERR), and the admin side (allocation, the MR a bound
 * window holds, a destroyed QP's windows).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"
#include "objects/qp.h"

#define WIN         (BUF + 0x10000)     /* the window's bytes in b's MR */
#define WIN_LEN     0x1000

static const SnicSimLinkConfig clean = { .delay_ns = 1000 };

static uint32_t alloc_mw(Node *n, uint8_t type, uint8_t key)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_MW, sizeof(cmd.alloc_mw));
    cmd.alloc_mw.pdn = GUINT32_TO_LE(n->pdn);
    cmd.alloc_mw.type = type;
    cmd.alloc_mw.key = key;
    return node_admin_ok(n->h, &cmd);
}

/* The rkey with the next key byte, as ibv_inc_rkey() makes it */
static uint32_t inc_rkey(uint32_t rkey)
{
    return (rkey & ~SNIC_KEY_BYTE_MASK) | ((rkey + 1) & SNIC_KEY_BYTE_MASK);
}

static void post_bind(Node *n, uint64_t wr_id, uint32_t mw_rkey,
                      uint32_t new_rkey, uint32_t mr_lkey, uint64_t addr,
                      uint64_t len, uint32_t access)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = SNIC_WR_BIND_MW;
    w.flags = SNIC_WQE_SIGNALED;
    w.bind.addr = GUINT64_TO_LE(addr);
    w.bind.length = GUINT64_TO_LE(len);
    w.bind.mw_rkey = GUINT32_TO_LE(mw_rkey);
    w.bind.new_rkey = GUINT32_TO_LE(new_rkey);
    w.bind.mr_lkey = GUINT32_TO_LE(mr_lkey);
    w.bind.access = GUINT32_TO_LE(access);
    node_post_wqe(n, &w);
}

static void post_local_inv(Node *n, uint64_t wr_id, uint32_t rkey)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = SNIC_WR_LOCAL_INV;
    w.flags = SNIC_WQE_SIGNALED;
    w.imm = GUINT32_TO_BE(rkey);
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

/* a WRITEs len bytes (pattern seed) to va through rkey: the status */
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

/*
 * A type 2 window grants exactly its bytes and rights, through the QP
 * that bound it, until it is invalidated; then it can be bound again.
 */
static void test_type2_bind_access_invalidate(void)
{
    SnicSim *sim;
    Node a, b;
    uint32_t mw, key;

    pair(&sim, &a, &b, 1);
    mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x10);
    g_assert_cmpuint(mw & SNIC_KEY_MW, !=, 0);
    key = inc_rkey(mw);
    post_bind(&b, 1, mw, key, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);

    g_assert_cmpuint(write_via(sim, &a, key, WIN + 0x800, 0x800, 3), ==,
                     SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(b.h, WIN + 0x800, 0x800), 0x800,
                    fake_ptr(a.h, BUF, 0x800), 0x800);
    node_pair_free(sim, &a, &b);

    /* one byte past the window; a right it does not grant; its old key */
    pair(&sim, &a, &b, 2);
    mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x10);
    key = inc_rkey(mw);
    post_bind(&b, 1, mw, key, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(write_via(sim, &a, key, WIN + 1, WIN_LEN, 4), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);

    pair(&sim, &a, &b, 3);
    mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x10);
    key = inc_rkey(mw);
    post_bind(&b, 1, mw, key, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    node_post_send(&a, 5, SNIC_WR_RDMA_READ, BUF, 64, WIN, key, 0, a.lkey);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_RDMA_READ), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);

    pair(&sim, &a, &b, 4);
    mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x10);
    key = inc_rkey(mw);
    post_bind(&b, 1, mw, key, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_READ);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    node_post_send(&a, 5, SNIC_WR_RDMA_READ, BUF, 64, WIN, key, 0, a.lkey);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_RDMA_READ), ==,
                     SNIC_WC_SUCCESS);
    /* invalidated: the key is dead; bound again under a new key */
    post_local_inv(&b, 2, key);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_LOCAL_INV), ==,
                     SNIC_WC_SUCCESS);
    post_bind(&b, 3, key, inc_rkey(key), b.lkey, WIN, WIN_LEN,
              SNIC_ACCESS_REMOTE_READ);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    node_post_send(&a, 6, SNIC_WR_RDMA_READ, BUF, 64, WIN, inc_rkey(key), 0,
                   a.lkey);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_RDMA_READ), ==,
                     SNIC_WC_SUCCESS);
    node_post_send(&a, 7, SNIC_WR_RDMA_READ, BUF, 64, WIN, key, 0, a.lkey);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_RDMA_READ), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/* A type 1 window re-binds under a new key; length 0 unbinds it. */
static void test_type1_rebind_unbind(void)
{
    SnicSim *sim;
    Node a, b;
    uint32_t mw, k1, k2;

    pair(&sim, &a, &b, 5);
    mw = alloc_mw(&b, SNIC_MW_TYPE_1, 0x20);
    k1 = inc_rkey(mw);
    post_bind(&b, 1, mw, k1, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(write_via(sim, &a, k1, WIN, 64, 1), ==, SNIC_WC_SUCCESS);
    k2 = inc_rkey(k1);
    post_bind(&b, 2, k1, k2, b.lkey, WIN + WIN_LEN, WIN_LEN,
              SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(write_via(sim, &a, k2, WIN + WIN_LEN, 64, 2), ==,
                     SNIC_WC_SUCCESS);
    /* the first range is no longer in it */
    g_assert_cmpuint(write_via(sim, &a, k2, WIN, 64, 3), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);

    pair(&sim, &a, &b, 6);
    mw = alloc_mw(&b, SNIC_MW_TYPE_1, 0x20);
    k1 = inc_rkey(mw);
    post_bind(&b, 1, mw, k1, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    post_bind(&b, 2, k1, inc_rkey(k1), 0, 0, 0, 0);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(write_via(sim, &a, inc_rkey(k1), WIN, 64, 4), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    /* unbound, the MR may go */
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DEREG_MR, b.lkey), ==,
                     SNIC_ADMIN_OK);
    node_pair_free(sim, &a, &b);
}

/*
 * A SEND with Invalidate frees the responder's type 2 window: the
 * receive completion names the R_Key, and the key no longer works.
 */
static void test_send_with_invalidate(void)
{
    SnicSim *sim;
    struct snic_cqe c;
    Node a, b;
    uint32_t mw, key;

    pair(&sim, &a, &b, 7);
    mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x30);
    key = inc_rkey(mw);
    post_bind(&b, 1, mw, key, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    node_post_recv(&b, 9, BUF, 4096);
    /* two packets: the invalidation happens at the last */
    node_post_send(&a, 1, SNIC_WR_SEND_INV, BUF + 0x20000, 1500, 0, 0, key,
                   a.lkey);
    g_assert_cmpuint(one_cqe(sim, &a, SNIC_WC_SEND), ==, SNIC_WC_SUCCESS);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 9);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 1500);
    g_assert_cmpuint(c.wc_flags & (SNIC_WC_F_INV | SNIC_WC_F_IMM), ==,
                     SNIC_WC_F_INV);
    g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, key);
    g_assert_cmpuint(write_via(sim, &a, key, WIN, 64, 5), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);
}

/* Binds the device refuses: each completes with MW_BIND_ERR. */
static void test_bind_refusals(void)
{
    enum { WRONG_KEY, PAST_MR, NO_BIND_RIGHT, WRITE_NO_LOCAL, TWICE,
           EMPTY_TYPE2, OTHER_PD, BAD_ACCESS, OTHER_INDEX, N_CASES };
    unsigned i;

    for (i = 0; i < N_CASES; i++) {
        struct snic_admin_cmd cmd;
        uint32_t mw, key, lkey;
        SnicSim *sim;
        Node a, b;

        pair(&sim, &a, &b, 20 + i);
        if (i == OTHER_PD) {
            uint64_t pdn = b.pdn;

            snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD,
                                sizeof(cmd.alloc_pd));
            b.pdn = node_admin_ok(b.h, &cmd);
            mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x40);
            b.pdn = pdn;
        } else {
            mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x40);
        }
        key = inc_rkey(mw);
        lkey = b.lkey;
        if (i == NO_BIND_RIGHT || i == WRITE_NO_LOCAL) {
            /* an MR over the same pages lacking one right */
            snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
            cmd.reg_mr.iova = GUINT64_TO_LE(BUF);
            cmd.reg_mr.length = GUINT64_TO_LE(BUF_LEN);
            cmd.reg_mr.pbl_addr = GUINT64_TO_LE(PBL_MR);
            cmd.reg_mr.npages = GUINT32_TO_LE(BUF_LEN / 4096);
            cmd.reg_mr.pdn = GUINT32_TO_LE(b.pdn);
            cmd.reg_mr.access = GUINT32_TO_LE(i == NO_BIND_RIGHT ?
                                              SNIC_ACCESS_LOCAL_WRITE :
                                              SNIC_ACCESS_MW_BIND);
            cmd.reg_mr.page_shift = 12;
            cmd.reg_mr.key = 0x55;
            lkey = node_admin_ok(b.h, &cmd);
        }
        if (i == TWICE) {
            post_bind(&b, 1, mw, key, lkey, WIN, WIN_LEN,
                      SNIC_ACCESS_REMOTE_READ);
            g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==,
                             SNIC_WC_SUCCESS);
            mw = key;
            key = inc_rkey(key);
        }
        post_bind(&b, 2, i == WRONG_KEY ? inc_rkey(key) : mw,
                  i == OTHER_INDEX ? key + (1u << SNIC_KEY_INDEX_SHIFT) : key,
                  lkey, i == PAST_MR ? BUF + BUF_LEN - 64 : WIN,
                  i == EMPTY_TYPE2 ? 0 : WIN_LEN,
                  i == BAD_ACCESS ? SNIC_ACCESS_MW_BIND :
                  i == WRITE_NO_LOCAL ? SNIC_ACCESS_REMOTE_WRITE :
                  SNIC_ACCESS_REMOTE_READ);
        g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==,
                         SNIC_WC_MW_BIND_ERR);
        g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
        node_pair_free(sim, &a, &b);
    }
}

/* A type 2 window serves only the QP that bound it; UC QPs bind too. */
static void test_type2_belongs_to_its_qp(void)
{
    SnicSim *sim = snic_sim_new(41);
    Node a, b, b2;
    uint32_t mw, key;

    /* bound through b's QP, used through b2: refused */
    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &clean);
    node_create_srq(&b, 0);
    node_add_qp(&b2, &b);
    node_connect(&a, &b2, SNIC_MTU_1024, 7, 7);
    node_connect(&b2, &a, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);  /* RTS, peer a's QP */
    mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x50);
    key = inc_rkey(mw);
    post_bind(&b, 1, mw, key, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(write_via(sim, &a, key, WIN, 64, 1), ==,
                     SNIC_WC_REM_ACCESS_ERR);
    node_pair_free(sim, &a, &b);

    /* UC: bind on the receiving QP, a WRITE through it lands */
    sim = snic_sim_new(42);
    node_init_type(&a, sim, 1, SNIC_QPT_UC);
    node_init_type(&b, sim, 2, SNIC_QPT_UC);
    snic_sim_port_connect(&a.h->port, &b.h->port, &clean);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x60);
    key = inc_rkey(mw);
    post_bind(&b, 1, mw, key, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(write_via(sim, &a, key, WIN, 256, 2), ==,
                     SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(b.h, WIN, 256), 256, fake_ptr(a.h, BUF, 256),
                    256);
    node_pair_free(sim, &a, &b);
}

/*
 * The admin side: allocation checks, a bound window holds its MR, a
 * window is freed by any of its keys, a destroyed QP's windows unbind.
 */
static void test_admin(void)
{
    SnicSim *sim;
    struct snic_admin_cmd cmd;
    Node a, b;
    uint32_t mw, key;

    pair(&sim, &a, &b, 50);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_MW, sizeof(cmd.alloc_mw));
    cmd.alloc_mw.pdn = GUINT32_TO_LE(b.pdn + 7);
    cmd.alloc_mw.type = SNIC_MW_TYPE_1;
    g_assert_cmpuint(fake_admin(b.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    cmd.alloc_mw.pdn = GUINT32_TO_LE(b.pdn);
    cmd.alloc_mw.type = 3;
    g_assert_cmpuint(fake_admin(b.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);

    mw = alloc_mw(&b, SNIC_MW_TYPE_2, 0x70);
    key = inc_rkey(mw);
    post_bind(&b, 1, mw, key, b.lkey, WIN, WIN_LEN, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(one_cqe(sim, &b, SNIC_WC_BIND_MW), ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DEREG_MR, b.lkey), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DEALLOC_PD, b.pdn), ==,
                     SNIC_ADMIN_BAD_STATE);
    /* the QP goes: its type 2 window unbinds, the MR is free to go */
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DESTROY_QP, b.qpn), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DEREG_MR, b.lkey), ==,
                     SNIC_ADMIN_OK);
    /* freed by its allocation key though a bind changed the key byte */
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DEALLOC_MW, mw), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DEALLOC_MW, mw), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(fake_obj_cmd(b.h, SNIC_ADMIN_DEALLOC_MW, b.lkey), ==,
                     SNIC_ADMIN_BAD_PARAM);     /* an MR's key */
    node_pair_free(sim, &a, &b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mw/type2-bind-access-invalidate",
                    test_type2_bind_access_invalidate);
    g_test_add_func("/mw/type1-rebind-unbind", test_type1_rebind_unbind);
    g_test_add_func("/mw/send-with-invalidate", test_send_with_invalidate);
    g_test_add_func("/mw/bind-refusals", test_bind_refusals);
    g_test_add_func("/mw/type2-belongs-to-its-qp",
                    test_type2_belongs_to_its_qp);
    g_test_add_func("/mw/admin", test_admin);
    return g_test_run();
}
