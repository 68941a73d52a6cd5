/*
 * Unit tests of the StRoM kernels (hw/snic/core/kernels): node a calls,
 * node b's device walks node b's fake host memory. Traversal: every Table
 * 2 predicate and position mode, lists of 1..64 elements, hash tables,
 * hash chains, binary and B-trees, skip lists, a cycle, pointers outside
 * the R_Key's region (nothing outside is read), keys not found, bad
 * parameters. Consistency: 0, 1 and always-failing checksums, objects
 * answered in several segments, staging buffers running out. Timed: the
 * PCIe reads each port charges for a consistency RPC and a traversal.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine/rdma.h"
#include "strom/crc64.h"
#include "strom/rpc.h"
#include "rpc-node.h"

#define OP_TRAV     0x5452415645ull     /* the RPC op-codes deployed */
#define OP_CONS     0x434f4e53ull
#define DS          (BUF + 0x10000)     /* b: data structures */
#define VALUES      (BUF + 0x100000)    /* b: values */
#define RESP        (BUF + 0x200000)    /* a: response buffers */
#define OUTSIDE     (BUF + BUF_LEN + 0x1000)    /* b: host memory, no MR */

static const SnicSimLinkConfig wire = {
    .bandwidth_bps = 10000000000ull,
    .delay_ns = 1000,
};

typedef struct Fix {
    SnicSim *sim;
    Node a, b;
    RpcCqes q;
    uint64_t reads;             /* b's DMA reads of [watch, watch_end) */
    uint64_t watch, watch_end;
    uint64_t watch_bytes;       /* ... their bytes in it */
    uint64_t torn_at;           /* b: this byte reads flipped ... */
    unsigned torn_left;         /* ... this many more times */
    bool torn;                  /* it is flipped now */
    uint64_t obj_reads;         /* b's reads that cover torn_at */
} Fix;

/*
 * b's DMA reads: counted where watched; a read covering torn_at while
 * torn_left lasts sees that byte flipped, as if a writer were in the
 * middle of the object, and the next read (of anything) finds the writer
 * done.
 */
static void read_hook(FakeHost *h, uint64_t addr, size_t len)
{
    Fix *f = h->hook_opaque;

    if (f->torn) {
        *(uint8_t *)fake_ptr(h, f->torn_at, 1) ^= 0x80;
        f->torn = false;
    }
    if (addr < f->watch_end && addr + len > f->watch) {
        f->reads++;
        f->watch_bytes += MIN(addr + len, f->watch_end) - MAX(addr, f->watch);
    }
    if (f->torn_at && addr <= f->torn_at && f->torn_at - addr < len) {
        f->obj_reads++;
        if (f->torn_left) {
            f->torn_left--;
            *(uint8_t *)fake_ptr(h, f->torn_at, 1) ^= 0x80;
            f->torn = true;
        }
    }
}

/* dev: both devices (NULL: the defaults, untimed) */
static void fix_init_dev(Fix *f, uint8_t mtu, const NodeDev *dev)
{
    memset(f, 0, sizeof(*f));
    f->sim = snic_sim_new(7);
    rpc_pair_new(f->sim, &f->a, &f->b, &wire, mtu, SNIC_QP_RPC_ENABLE,
                 SNIC_QP_RPC_ENABLE, dev, dev);
    g_assert_cmpuint(rpc_deploy(&f->b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_deploy(&f->b, OP_CONS, SNIC_KERNEL_CONSISTENCY), ==,
                     SNIC_ADMIN_OK);
    f->b.h->read_hook = read_hook;
    f->b.h->hook_opaque = f;
}

static void fix_init(Fix *f, uint8_t mtu)
{
    fix_init_dev(f, mtu, NULL);
}

static void fix_free(Fix *f)
{
    /* every call answered; the device holds no slot afterwards */
    g_assert_cmpuint(f->q.send_errors, ==, 0);
    node_pair_free(f->sim, &f->a, &f->b);
}

/* One RPC from a to b; its status, answer CQE in *out (may be NULL). */
static uint32_t call(Fix *f, uint64_t op, const void *params, uint32_t len,
                     uint32_t resp_len, struct snic_cqe *out)
{
    static uint32_t tag;
    RpcReq r = {
        .wr = SNIC_WR_RPC, .rpc_opcode = op, .rkey = f->b.lkey,
        .params = params, .len = len, .src = BUF + 0x3f0000,
        .resp_addr = RESP, .resp_len = resp_len, .tag = ++tag & 0xffffff,
    };
    unsigned want = f->q.answers + 1;
    const struct snic_cqe *c;

    node_post_recv(&f->a, tag, BUF, 0);
    rpc_post(&f->a, tag, &r);
    g_assert_true(rpc_run_until_answers(f->sim, &f->a, &f->q, want,
                                        10000000));
    snic_sim_run(f->sim, 1000000);      /* the answer's ACK, the last CQE */
    rpc_drain(&f->a, &f->q);
    c = &f->q.answer[want - 1];
    g_assert_cmpuint(c->status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c->opcode, ==, SNIC_WC_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(rpc_cqe_tag(c), ==, r.tag);
    if (out) {
        *out = *c;
    }
    return rpc_cqe_status(c);
}

/* The answer is the value bytes at b's 'value'. */
static void assert_value(Fix *f, const struct snic_cqe *c, uint64_t value,
                         uint32_t size)
{
    g_assert_cmpuint(GUINT32_FROM_LE(c->byte_len), ==, size);
    g_assert_cmpmem(fake_ptr(f->a.h, RESP, size), size,
                    fake_ptr(f->b.h, value, size), size);
}

static uint32_t trav(Fix *f, const struct snic_traversal_params *p,
                     uint32_t resp_len, struct snic_cqe *out)
{
    return call(f, OP_TRAV, p, sizeof(*p), resp_len, out);
}

/* Lists of 1..64 elements: every key is found with its value. */
static void test_list_lengths(void)
{
    Fix f;
    uint64_t keys[64];
    unsigned n, i;

    fix_init(&f, SNIC_MTU_1024);
    for (i = 0; i < 64; i++) {
        keys[i] = 0x1000 + i * 17;
    }
    for (n = 1; n <= 64; n++) {
        unsigned probe[3] = { 0, (n - 1) / 2, n - 1 };

        rpc_build_list(&f.b, DS, keys, n, VALUES, 64, n * 100);
        for (i = 0; i < 3; i++) {
            struct snic_traversal_params p =
                rpc_list_params(DS, keys[probe[i]], 64);
            struct snic_cqe c;

            g_assert_cmpuint(trav(&f, &p, 64, &c), ==, SNIC_RPC_OK);
            assert_value(&f, &c, VALUES + probe[i] * 64ull, 64);
        }
        {
            /* a key behind the tail: walked to the end, not found */
            struct snic_traversal_params p = rpc_list_params(DS, 1, 64);
            struct snic_cqe c;

            g_assert_cmpuint(trav(&f, &p, 64, &c), ==, SNIC_RPC_NOT_FOUND);
            g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 0);
        }
    }
    fix_free(&f);
}

/*
 * Each Table 2 predicate picks a different element of the list 10, 20,
 * 30, 40 (the first element whose key satisfies "element OP key").
 */
static void test_predicates(void)
{
    static const uint64_t keys[] = { 10, 20, 30, 40 };
    static const struct {
        uint8_t pred;
        uint64_t key;
        int index;              /* -1: not found */
    } cases[] = {
        { SNIC_TRAV_EQUAL, 30, 2 },
        { SNIC_TRAV_EQUAL, 35, -1 },
        { SNIC_TRAV_LESS_THAN, 10, -1 },
        { SNIC_TRAV_LESS_THAN, 25, 0 },
        { SNIC_TRAV_GREATER_THAN, 25, 2 },
        { SNIC_TRAV_GREATER_THAN, 40, -1 },
        { SNIC_TRAV_NOT_EQUAL, 10, 1 },
        { SNIC_TRAV_NOT_EQUAL, 20, 0 },
    };
    Fix f;
    unsigned i;

    fix_init(&f, SNIC_MTU_1024);
    rpc_build_list(&f.b, DS, keys, 4, VALUES, 32, 5);
    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        struct snic_traversal_params p = rpc_list_params(DS, cases[i].key,
                                                         32);
        struct snic_cqe c;
        uint32_t st;

        p.predicate = cases[i].pred;
        st = trav(&f, &p, 32, &c);
        if (cases[i].index < 0) {
            g_assert_cmpuint(st, ==, SNIC_RPC_NOT_FOUND);
        } else {
            g_assert_cmpuint(st, ==, SNIC_RPC_OK);
            assert_value(&f, &c, VALUES + cases[i].index * 32ull, 32);
        }
    }
    fix_free(&f);
}

/*
 * A Pilaf-style hash table entry with three buckets [K][V] (relative value
 * positions) answers the value of the bucket that matched; absolute
 * position always takes the same pointer; without a next pointer a miss
 * is NOT_FOUND at once; with one, the walk goes on down a hash chain.
 */
static void test_positions_and_hash(void)
{
    const uint64_t e0 = DS, e1 = DS + 64;
    struct snic_traversal_params p;
    struct snic_cqe c;
    unsigned i;
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    for (i = 0; i < 3; i++) {
        node_wr64(&f.b, e0 + 16 * i, 100 + i);
        node_wr64(&f.b, e0 + 16 * i + 8, VALUES + 0x100 * i);
        node_wr64(&f.b, e1 + 16 * i, 200 + i);
        node_wr64(&f.b, e1 + 16 * i + 8, VALUES + 0x100 * (i + 3));
        node_fill(&f.b, VALUES + 0x100 * i, 0x100, i);
        node_fill(&f.b, VALUES + 0x100 * (i + 3), 0x100, i + 3);
    }
    node_wr64(&f.b, e0 + 48, e1);       /* the chain: word 12 */
    node_wr64(&f.b, e1 + 48, 0);
    p = (struct snic_traversal_params) {
        .remote_address = GUINT64_TO_LE(e0),
        .value_size = GUINT32_TO_LE(0x100),
        .key_mask = GUINT16_TO_LE(0x111),
        .predicate = SNIC_TRAV_EQUAL,
        .value_ptr_pos = 2,
        .flags = SNIC_TRAV_RELATIVE,
    };
    for (i = 0; i < 3; i++) {
        p.key = GUINT64_TO_LE(100 + i);
        g_assert_cmpuint(trav(&f, &p, 0x100, &c), ==, SNIC_RPC_OK);
        assert_value(&f, &c, VALUES + 0x100 * i, 0x100);
    }
    /* not in the entry, no chain: the client would probe elsewhere */
    p.key = GUINT64_TO_LE(201);
    g_assert_cmpuint(trav(&f, &p, 0x100, NULL), ==, SNIC_RPC_NOT_FOUND);
    /* ... with the chain at word 12 it is found in the next entry */
    p.flags = SNIC_TRAV_RELATIVE | SNIC_TRAV_NEXT_VALID;
    p.next_ptr_pos = 12;
    g_assert_cmpuint(trav(&f, &p, 0x100, &c), ==, SNIC_RPC_OK);
    assert_value(&f, &c, VALUES + 0x100 * 4, 0x100);
    p.key = GUINT64_TO_LE(999);
    g_assert_cmpuint(trav(&f, &p, 0x100, NULL), ==, SNIC_RPC_NOT_FOUND);
    /* absolute position: the pointer at word 6, whichever key matched */
    p.flags = SNIC_TRAV_NEXT_VALID;
    p.value_ptr_pos = 6;
    p.key = GUINT64_TO_LE(100);
    g_assert_cmpuint(trav(&f, &p, 0x100, &c), ==, SNIC_RPC_OK);
    assert_value(&f, &c, VALUES + 0x100, 0x100);
    p.key = GUINT64_TO_LE(202);
    g_assert_cmpuint(trav(&f, &p, 0x100, &c), ==, SNIC_RPC_OK);
    assert_value(&f, &c, VALUES + 0x100 * 4, 0x100);
    fix_free(&f);
}

/* A binary search tree [K 0][left 2][right 4][V 6] of keys 1..31. */
static uint64_t bst_build(Fix *f, uint64_t *next, unsigned lo, unsigned hi)
{
    unsigned mid = (lo + hi) / 2;
    uint64_t e;

    if (lo > hi) {
        return 0;
    }
    e = *next;
    *next += 32;
    node_wr64(&f->b, e, mid);
    node_wr64(&f->b, e + 24, VALUES + mid * 16);
    node_fill(&f->b, VALUES + mid * 16, 16, mid);
    node_wr64(&f->b, e + 8, mid > lo ? bst_build(f, next, lo, mid - 1) : 0);
    node_wr64(&f->b, e + 16, bst_build(f, next, mid + 1, hi));
    return e;
}

static void test_binary_tree(void)
{
    struct snic_traversal_params p = {
        .value_size = GUINT32_TO_LE(16),
        .key_mask = GUINT16_TO_LE(1),
        .predicate = SNIC_TRAV_EQUAL,
        .value_ptr_pos = 6,
        .flags = SNIC_TRAV_NEXT_VALID,
        .next_ptr_pos = 4,              /* right child */
        .route_mask = GUINT16_TO_LE(1),
        .route_predicate = SNIC_TRAV_GREATER_THAN,
        .route_ptr_offset = 2,          /* left child */
    };
    uint64_t next = DS, root;
    struct snic_cqe c;
    unsigned k;
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    root = bst_build(&f, &next, 1, 31);
    p.remote_address = GUINT64_TO_LE(root);
    f.watch = DS;
    f.watch_end = next;
    for (k = 1; k <= 31; k++) {
        f.reads = 0;
        p.key = GUINT64_TO_LE(k);
        g_assert_cmpuint(trav(&f, &p, 16, &c), ==, SNIC_RPC_OK);
        assert_value(&f, &c, VALUES + k * 16, 16);
        g_assert_cmpuint(f.reads, <=, 5);   /* the depth, not the size */
    }
    p.key = GUINT64_TO_LE(0);
    g_assert_cmpuint(trav(&f, &p, 16, NULL), ==, SNIC_RPC_NOT_FOUND);
    p.key = GUINT64_TO_LE(32);
    g_assert_cmpuint(trav(&f, &p, 16, NULL), ==, SNIC_RPC_NOT_FOUND);
    fix_free(&f);
}

/*
 * A B-tree of two-key nodes [K1 0][K2 2][C0 4][C1 6][C2 8][V1 10][V2 12]:
 * a root (30, 60) over leaves (10, 20), (40, 50), (70, 80).
 */
static void test_btree(void)
{
    static const uint64_t leaf_keys[3][2] = {
        { 10, 20 }, { 40, 50 }, { 70, 80 },
    };
    const uint64_t root = DS, leaf = DS + 64;
    struct snic_traversal_params p = {
        .remote_address = GUINT64_TO_LE(root),
        .value_size = GUINT32_TO_LE(8),
        .key_mask = GUINT16_TO_LE(0x5),
        .predicate = SNIC_TRAV_EQUAL,
        .value_ptr_pos = 10,
        .flags = SNIC_TRAV_RELATIVE | SNIC_TRAV_NEXT_VALID,
        .next_ptr_pos = 8,
        .route_mask = GUINT16_TO_LE(0x5),
        .route_predicate = SNIC_TRAV_GREATER_THAN,
        .route_ptr_offset = 4,
    };
    unsigned i, j;
    uint64_t k;
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    memset(fake_ptr(f.b.h, DS, 256), 0, 256);
    node_wr64(&f.b, root, 30);
    node_wr64(&f.b, root + 8, 60);
    for (i = 0; i < 3; i++) {
        node_wr64(&f.b, root + 16 + 8 * i, leaf + 64 * i);
        for (j = 0; j < 2; j++) {
            node_wr64(&f.b, leaf + 64 * i + 8 * j, leaf_keys[i][j]);
            node_wr64(&f.b, leaf + 64 * i + 40 + 8 * j,
                      VALUES + 8 * leaf_keys[i][j]);
        }
    }
    node_wr64(&f.b, root + 40, VALUES + 8 * 30);
    node_wr64(&f.b, root + 48, VALUES + 8 * 60);
    for (k = 0; k <= 90; k++) {
        node_wr64(&f.b, VALUES + 8 * k, 0xbee0000 + k);
    }
    for (k = 0; k <= 90; k += 5) {
        struct snic_cqe c;
        bool present = k && k % 10 == 0 && k <= 80;
        uint32_t st;

        p.key = GUINT64_TO_LE(k);
        st = trav(&f, &p, 8, &c);
        g_assert_cmpuint(st, ==, present ? SNIC_RPC_OK : SNIC_RPC_NOT_FOUND);
        if (present) {
            g_assert_cmphex(node_rd64(&f.a, RESP), ==, 0xbee0000 + k);
        }
    }
    fix_free(&f);
}

/*
 * A skip list of 64 nodes, up to three levels, each node keeping its
 * forward nodes' keys: [K 0][V 2][FK2 4][FK1 6][FK0 8][F2 10][F1 12]
 * [F0 14]. Every key is found reading a handful of nodes.
 */
static void test_skip_list(void)
{
    const unsigned n = 64;
    struct snic_traversal_params p = {
        .remote_address = GUINT64_TO_LE(DS),
        .value_size = GUINT32_TO_LE(8),
        .key_mask = GUINT16_TO_LE(1),
        .predicate = SNIC_TRAV_EQUAL,
        .value_ptr_pos = 2,
        .route_mask = GUINT16_TO_LE(0x150),     /* words 4, 6, 8 */
        .route_predicate = SNIC_TRAV_LESS_EQUAL,
        .route_ptr_offset = 6,
    };
    unsigned i, l, level_step[3] = { 16, 4, 1 };   /* FK2 .. FK0 */
    uint64_t k;
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    /* node 0 is the head (key 0); node i has key 10 i, value at V */
    for (i = 0; i <= n; i++) {
        uint64_t e = DS + 64ull * i;

        node_wr64(&f.b, e, 10ull * i);
        node_wr64(&f.b, e + 8, VALUES + 8ull * i);
        node_wr64(&f.b, VALUES + 8ull * i, 0xface0000 + i);
        for (l = 0; l < 3; l++) {
            /* level 2 links every 16th node, level 1 every 4th */
            unsigned step = level_step[l];
            unsigned to = i % step ? 0 : i + step;
            bool has = to && to <= n;

            node_wr64(&f.b, e + 16 + 8 * l, has ? 10ull * to : UINT64_MAX);
            node_wr64(&f.b, e + 40 + 8 * l, has ? DS + 64ull * to : 0);
        }
    }
    f.watch = DS;
    f.watch_end = DS + 64ull * (n + 1);
    for (k = 5; k <= 10 * n + 5; k += 5) {
        struct snic_cqe c;
        bool present = k % 10 == 0;

        f.reads = 0;
        p.key = GUINT64_TO_LE(k);
        g_assert_cmpuint(trav(&f, &p, 8, &c), ==,
                         present ? SNIC_RPC_OK : SNIC_RPC_NOT_FOUND);
        if (present) {
            g_assert_cmphex(node_rd64(&f.a, RESP), ==, 0xface0000 + k / 10);
        }
        g_assert_cmpuint(f.reads, <=, 12);  /* a list walk reads up to 65 */
    }
    fix_free(&f);
}

/* A cycle in a remote list ends at the step bound, and b keeps serving. */
static void test_cycle(void)
{
    static const uint64_t keys[] = { 1, 2 };
    struct snic_traversal_params p = rpc_list_params(DS, 3, 64);
    struct snic_cqe c;
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    rpc_build_list(&f.b, DS, keys, 2, VALUES, 64, 1);
    node_wr64(&f.b, DS + 64 + 8, DS);           /* the tail points back */
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_STEP_LIMIT);
    p.key = GUINT64_TO_LE(2);
    g_assert_cmpuint(trav(&f, &p, 64, &c), ==, SNIC_RPC_OK);
    assert_value(&f, &c, VALUES + 64, 64);
    fix_free(&f);
}

/*
 * Pointers outside the R_Key's region (next element, value, the first
 * element, a value running past its end): PROT_ERR, and the device never
 * reads a byte there.
 */
static void test_outside_region(void)
{
    static const uint64_t keys[] = { 1, 2, 3 };
    struct snic_traversal_params p;
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    rpc_build_list(&f.b, DS, keys, 3, VALUES, 64, 1);
    rpc_build_list(&f.b, OUTSIDE, keys, 3, VALUES, 64, 1);
    f.watch = BUF + BUF_LEN;
    f.watch_end = FAKE_MEM_BASE + FAKE_MEM_SIZE;
    node_wr64(&f.b, DS + 64 + 8, OUTSIDE);      /* element 1's next */
    p = rpc_list_params(DS, 3, 64);
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_PROT_ERR);
    node_wr64(&f.b, DS + 16, OUTSIDE + 0x100);  /* element 0's value */
    p = rpc_list_params(DS, 1, 64);
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_PROT_ERR);
    node_wr64(&f.b, DS + 16, BUF + BUF_LEN - 32);   /* runs past the end */
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_PROT_ERR);
    p = rpc_list_params(OUTSIDE, 1, 64);
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_PROT_ERR);
    /* an element straddling the region's end */
    p = rpc_list_params(BUF + BUF_LEN - 8, 1, 64);
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_PROT_ERR);
    g_assert_cmpuint(f.reads, ==, 0);
    /* another R_Key the request names: not b's, nothing found there */
    {
        RpcReq r = {
            .wr = SNIC_WR_RPC, .rpc_opcode = OP_TRAV, .rkey = f.b.lkey + 1,
            .params = &p, .len = sizeof(p), .resp_addr = RESP,
            .resp_len = 64, .tag = 77,
        };

        p = rpc_list_params(DS, 1, 64);
        node_post_recv(&f.a, 1, BUF, 0);
        rpc_post(&f.a, 1, &r);
        g_assert_true(rpc_run_until_answers(f.sim, &f.a, &f.q,
                                            f.q.answers + 1, 1000000));
        g_assert_cmpuint(rpc_cqe_status(&f.q.answer[f.q.answers - 1]), ==,
                         SNIC_RPC_PROT_ERR);
    }
    fix_free(&f);
}

/* Parameters the kernel cannot use are refused before any read. */
static void test_bad_params(void)
{
    static const uint64_t keys[] = { 1 };
    struct snic_traversal_params good, p;
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    rpc_build_list(&f.b, DS, keys, 1, VALUES, 64, 1);
    good = rpc_list_params(DS, 1, 64);
    f.watch = BUF;
    f.watch_end = BUF + BUF_LEN;
    p = good;
    p.key_mask = 0;
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    p = good;
    p.key_mask = GUINT16_TO_LE(1u << 15);       /* a key past the element */
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    p = good;
    p.value_ptr_pos = 15;
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    p = good;
    p.flags |= SNIC_TRAV_RELATIVE;
    p.key_mask = GUINT16_TO_LE(1u << 12);       /* 12 + 4 > 14 */
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    p = good;
    p.next_ptr_pos = 40;
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    p = good;
    p.predicate = SNIC_TRAV_LESS_EQUAL;         /* routing only */
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    p = good;
    p.flags = 0x80;
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    p = good;
    p.route_mask = GUINT16_TO_LE(1);
    p.route_predicate = 9;
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    p = good;
    p.rsvd = 1;
    g_assert_cmpuint(trav(&f, &p, 64, NULL), ==, SNIC_RPC_BAD_PARAMS);
    /* a huge valueSize: more than any answer may hold */
    p = good;
    p.value_size = GUINT32_TO_LE(0xffffffffu);
    g_assert_cmpuint(trav(&f, &p, 0xffffffffu, NULL), ==,
                     SNIC_RPC_BAD_PARAMS);
    /* more than the requester's buffer */
    g_assert_cmpuint(trav(&f, &good, 63, NULL), ==, SNIC_RPC_RESP_TOO_LONG);
    /* params of the wrong length */
    g_assert_cmpuint(call(&f, OP_TRAV, &good, sizeof(good) - 4, 64, NULL),
                     ==, SNIC_RPC_BAD_PARAMS);
    g_assert_cmpuint(f.reads, ==, 0);
    g_assert_cmpuint(trav(&f, &good, 64, NULL), ==, SNIC_RPC_OK);
    fix_free(&f);
}

/* ---- consistency ---- */

static struct snic_consistency_params cons_params(uint64_t at, uint32_t size,
                                                  uint16_t retries)
{
    return (struct snic_consistency_params) {
        .remote_address = GUINT64_TO_LE(at),
        .object_size = GUINT32_TO_LE(size),
        .max_retries = GUINT16_TO_LE(retries),
    };
}

static void test_crc64_xz(void)
{
    g_assert_cmphex(snic_crc64(0, "123456789", 9), ==, 0x995dc9bbdf1939faull);
    g_assert_cmphex(snic_crc64(snic_crc64(0, "1234", 4), "56789", 5), ==,
                    0x995dc9bbdf1939faull);
}

/*
 * Objects of one chunk, several chunks and several answer segments, with
 * 0, 1 and always failing checksums (a torn read is a flipped byte that
 * the next read no longer sees).
 */
static void test_consistency(void)
{
    static const uint32_t sizes[] = { 64, 4096, 10000, 16384 };
    Fix f;
    unsigned i;

    fix_init(&f, SNIC_MTU_1024);
    for (i = 0; i < G_N_ELEMENTS(sizes); i++) {
        uint32_t size = sizes[i];
        struct snic_consistency_params p = cons_params(DS, size, 3);
        struct snic_cqe c;

        rpc_build_object(&f.b, DS, size, i);
        /* 0 failures: one read, the object */
        f.torn_at = DS + size / 2;
        f.obj_reads = 0;
        memset(fake_ptr(f.a.h, RESP, size), 0, size);
        g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), size, &c), ==,
                         SNIC_RPC_OK);
        assert_value(&f, &c, DS, size);
        g_assert_cmpuint(f.obj_reads, ==, 1);
        /* 1 failure: read twice, the object as it is whole */
        f.obj_reads = 0;
        f.torn_left = 1;
        memset(fake_ptr(f.a.h, RESP, size), 0, size);
        g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), size, &c), ==,
                         SNIC_RPC_OK);
        g_assert_cmpuint(f.torn_left, ==, 0);
        assert_value(&f, &c, DS, size);
        g_assert_cmpuint(f.obj_reads, ==, 2);
        /* always failing: 1 + max_retries reads, then CHECKSUM */
        f.obj_reads = 0;
        *(uint8_t *)fake_ptr(f.b.h, DS + size - 1, 1) ^= 1;
        g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), size, &c), ==,
                         SNIC_RPC_CHECKSUM);
        g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 0);
        g_assert_cmpuint(f.obj_reads, ==, 4);
    }
    f.torn_at = 0;
    /* objects the kernel refuses */
    {
        struct snic_consistency_params p = cons_params(DS, 8, 0);

        g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), 64, NULL), ==,
                         SNIC_RPC_BAD_PARAMS);
        p = cons_params(DS, SNIC_CONSISTENCY_MAX_OBJECT + 1, 0);
        g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), 1 << 20, NULL),
                         ==, SNIC_RPC_BAD_PARAMS);
        p = cons_params(DS, 64, SNIC_CONSISTENCY_MAX_RETRIES + 1);
        g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), 64, NULL), ==,
                         SNIC_RPC_BAD_PARAMS);
        p = cons_params(DS, 128, 0);
        g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), 64, NULL), ==,
                         SNIC_RPC_RESP_TOO_LONG);
        p = cons_params(BUF + BUF_LEN - 64, 128, 0);
        g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), 128, NULL), ==,
                         SNIC_RPC_PROT_ERR);
    }
    fix_free(&f);
}

/*
 * The device's own torn reads (x-torn-reads, StRoM Fig. 10 between VMs,
 * where no test hook can tear a read): at 100 % every read of the object
 * is torn, so the kernel answers CHECKSUM after 1 + max_retries reads; at
 * 0 % one read and the object; an RDMA READ's response arrives with its
 * middle byte changed. Memory is never touched.
 */
static void test_torn_reads_fault(void)
{
    const SnicLinkFaults torn = { .torn_pct = 100, .seed = 3 };
    const SnicLinkFaults none = { .seed = 3 };
    const uint32_t size = 4096;
    struct snic_consistency_params p = cons_params(DS, size, 3);
    uint8_t *land, *obj;
    struct snic_cqe c;
    uint32_t i;
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    rpc_build_object(&f.b, DS, size, 5);
    obj = fake_ptr(f.b.h, DS, size);
    g_autofree uint8_t *before = g_memdup2(obj, size);
    f.torn_at = DS + size / 2;          /* counts the object's reads only */
    g_assert_true(snic_core_set_faults(f.b.h->core, &torn, true, NULL));
    g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), size, &c), ==,
                     SNIC_RPC_CHECKSUM);
    g_assert_cmpuint(f.obj_reads, ==, 4);
    g_assert_cmpmem(obj, size, before, size);
    /* 16 KiB: the middle byte is in a later chunk of the kernel's read */
    {
        struct snic_consistency_params big = cons_params(DS + 0x8000,
                                                         16384, 3);

        rpc_build_object(&f.b, DS + 0x8000, 16384, 6);
        f.torn_at = DS + 0x8000 + 8192;
        f.obj_reads = 0;
        g_assert_cmpuint(call(&f, OP_CONS, &big, sizeof(big), 16384, &c),
                         ==, SNIC_RPC_CHECKSUM);
        g_assert_cmpuint(f.obj_reads, ==, 4);
        g_assert_true(snic_core_set_faults(f.b.h->core, &none, true, NULL));
        f.obj_reads = 0;
        g_assert_cmpuint(call(&f, OP_CONS, &big, sizeof(big), 16384, &c),
                         ==, SNIC_RPC_OK);
        assert_value(&f, &c, DS + 0x8000, 16384);
        g_assert_cmpuint(f.obj_reads, ==, 1);
        f.torn_at = DS + size / 2;
    }

    g_assert_true(snic_core_set_faults(f.b.h->core, &none, true, NULL));
    f.obj_reads = 0;
    g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), size, &c), ==,
                     SNIC_RPC_OK);
    assert_value(&f, &c, DS, size);
    g_assert_cmpuint(f.obj_reads, ==, 1);

    g_assert_true(snic_core_set_faults(f.b.h->core, &torn, true, NULL));
    land = fake_ptr(f.a.h, RESP + 0x10000, size);
    node_post_send(&f.a, 77, SNIC_WR_RDMA_READ, RESP + 0x10000, size, DS,
                   f.b.lkey, 0, f.a.lkey);
    snic_sim_run(f.sim, 1000000);
    g_assert_true(node_poll_cq(&f.a, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    for (i = 0; i < size; i++) {
        g_assert_cmphex(land[i], ==, i == size / 2 ? obj[i] ^ 0xa5 : obj[i]);
    }
    g_assert_cmpmem(obj, size, before, size);
    f.torn_at = 0;
    fix_free(&f);
}

/*
 * More consistency RPCs at once than one QP may hold slots (and than the
 * device has staging buffers): the ones over are refused for now (RNR
 * NAK) and answered once earlier ones are done.
 */
static void test_consistency_busy(void)
{
    const unsigned n = 12;
    struct snic_consistency_params p;
    Fix f;
    unsigned i;

    fix_init(&f, SNIC_MTU_4096);
    rpc_build_object(&f.b, DS, 16384, 9);
    p = cons_params(DS, 16384, 0);
    for (i = 0; i < n; i++) {
        RpcReq r = {
            .wr = SNIC_WR_RPC, .rpc_opcode = OP_CONS, .rkey = f.b.lkey,
            .params = &p, .len = sizeof(p),
            .resp_addr = RESP + 16384ull * i, .resp_len = 16384, .tag = i,
        };

        node_post_recv(&f.a, i, BUF, 0);
        rpc_post(&f.a, i, &r);
    }
    g_assert_true(rpc_run_until_answers(f.sim, &f.a, &f.q, n, 10000000));
    for (i = 0; i < n; i++) {
        const struct snic_cqe *c = &f.q.answer[i];
        uint32_t tag = rpc_cqe_tag(c);

        g_assert_cmpuint(rpc_cqe_status(c), ==, SNIC_RPC_OK);
        g_assert_cmpmem(fake_ptr(f.a.h, RESP + 16384ull * tag, 16384), 16384,
                        fake_ptr(f.b.h, DS, 16384), 16384);
    }
    g_assert_cmpuint(f.a.h->events[SNIC_TRACE_NAK_RECV], >, 0);    /* RNR */
    fix_free(&f);
}

/*
 * Consistency RPCs whose answers draw RNR NAKs for as long as the client
 * posts no receive hold their staging buffers: one QP holds two of the
 * device's eight, never all of them, and its RPCs over that wait (RNR)
 * for one to come back. Once receives are posted every one is answered.
 */
static void test_consistency_stage_share(void)
{
    const unsigned n = 8;
    struct snic_consistency_params p;
    Fix f;
    unsigned i;

    fix_init(&f, SNIC_MTU_4096);
    rpc_build_object(&f.b, DS, 16384, 9);
    p = cons_params(DS, 16384, 0);
    for (i = 0; i < n; i++) {
        RpcReq r = {
            .wr = SNIC_WR_RPC, .rpc_opcode = OP_CONS, .rkey = f.b.lkey,
            .params = &p, .len = sizeof(p),
            .resp_addr = RESP + 16384ull * i, .resp_len = 16384, .tag = i,
        };

        rpc_post(&f.a, i, &r);
    }
    snic_sim_run_until(f.sim, 2000000);
    g_assert_cmpuint(__builtin_popcount(f.b.h->core->rpc->stage_used), ==,
                     SNIC_RPC_STAGE_PER_QP);
    for (i = 0; i < n; i++) {
        node_post_recv(&f.a, i, BUF, 0);
    }
    g_assert_true(rpc_run_until_answers(f.sim, &f.a, &f.q, n, 10000000));
    for (i = 0; i < n; i++) {
        g_assert_cmpuint(rpc_cqe_status(&f.q.answer[i]), ==, SNIC_RPC_OK);
    }
    fix_free(&f);
}

/*
 * In the timed simulator (StRoM's PCIe: 1.5 us, Gen3 x8), what each port
 * charges as PCIe reads is what its device read from host memory, once:
 * the responder a consistency RPC's 16 KiB object (not the staged answer
 * sent from it), a traversal's entry and its 4 KiB value (read as the
 * answer goes out, not before); the requester its SQ WQE fetch and, for
 * the answer (a WRITE with immediate), a receive-WQE fetch.
 */
static void test_timed_pcie_charges(void)
{
    const NodeDev dev = {
        .timing = { .pcie_rtt_ns = 1500, .pcie_bps = 63000000000ull },
    };
    const uint32_t size = 16384, value = 4096;
    const uint64_t entry = DS + 0x8000;
    struct snic_consistency_params p = cons_params(DS, size, 3);
    struct snic_traversal_params t = {
        .remote_address = GUINT64_TO_LE(entry),
        .key = GUINT64_TO_LE(42),
        .value_size = GUINT32_TO_LE(value),
        .key_mask = GUINT16_TO_LE(1),
        .predicate = SNIC_TRAV_EQUAL,
        .value_ptr_pos = 2,
    };
    SnicSimPortStats a0, b0;
    struct snic_cqe c;
    Fix f;

    fix_init_dev(&f, SNIC_MTU_1024, &dev);
    rpc_build_object(&f.b, DS, size, 11);
    memset(fake_ptr(f.b.h, entry, 64), 0, 64);
    node_wr64(&f.b, entry, 42);
    node_wr64(&f.b, entry + 8, VALUES);
    node_fill(&f.b, VALUES, value, 12);

    /* consistency: the object read once; the staged answer reads nothing */
    a0 = f.a.h->port.stats;
    b0 = f.b.h->port.stats;
    f.watch = DS;
    f.watch_end = DS + size;
    g_assert_cmpuint(call(&f, OP_CONS, &p, sizeof(p), size, &c), ==,
                     SNIC_RPC_OK);
    assert_value(&f, &c, DS, size);
    g_assert_cmpuint(f.watch_bytes, ==, size);
    g_assert_cmpuint(f.b.h->port.stats.pcie_read_bytes - b0.pcie_read_bytes,
                     ==, size);
    g_assert_cmpuint(f.b.h->port.stats.rq_wqe_fetches, ==, b0.rq_wqe_fetches);
    /* the requester: its WQE (parameters inline), the answer's RQ WQE */
    g_assert_cmpuint(f.a.h->port.stats.rq_wqe_fetches - a0.rq_wqe_fetches,
                     ==, 1);
    g_assert_cmpuint(f.a.h->port.stats.pcie_read_bytes - a0.pcie_read_bytes,
                     >=, SNIC_SQ_WQE_FIRST + SNIC_RQ_WQE_SIZE);
    g_assert_cmpuint(f.a.h->port.stats.pcie_read_bytes - a0.pcie_read_bytes,
                     <=, SNIC_SQ_WQE_SIZE + SNIC_RQ_WQE_SIZE);

    /* traversal: the entry's words, then the value once, as it is sent */
    a0 = f.a.h->port.stats;
    b0 = f.b.h->port.stats;
    f.watch = VALUES;
    f.watch_end = VALUES + value;
    f.watch_bytes = f.reads = 0;
    memset(fake_ptr(f.a.h, RESP, value), 0, value);
    g_assert_cmpuint(trav(&f, &t, value, &c), ==, SNIC_RPC_OK);
    assert_value(&f, &c, VALUES, value);
    g_assert_cmpuint(f.watch_bytes, ==, value);
    g_assert_cmpuint(f.reads, ==, value / 1024);     /* a segment each */
    /* [key 0][.][value pointer 2]: four 4-byte words of the entry */
    g_assert_cmpuint(f.b.h->port.stats.pcie_read_bytes - b0.pcie_read_bytes,
                     ==, 16 + value);
    g_assert_cmpuint(f.a.h->port.stats.rq_wqe_fetches - a0.rq_wqe_fetches,
                     ==, 1);
    fix_free(&f);
}

/* ---- shuffle (StRoM section 6.4) ---- */

#define OP_SHUF     0x53485546ull
#define SH_SRC      (BUF + 0x10000)     /* a: the RPC WRITE's payload */
#define SH_PARTS    (BUF + 0x10000)     /* b: partitions and canaries */
#define SH_AREA     (0x1f0000u)         /* ... their bytes at most */
#define CANARY      0xc5

typedef struct Shuffle {
    uint8_t bits, shift;
    uint32_t ntuples;
    uint64_t *tuples;
    uint32_t *cap;              /* per partition */
    uint64_t *base;
    /* the software partition: per partition, its tuples in order */
    uint32_t *fill;             /* taken before the first overflow */
    uint32_t overflow_at;       /* the tuple that overflowed, or ntuples */
} Shuffle;

static uint32_t part_of(const Shuffle *sh, uint64_t v)
{
    return (v >> sh->shift) & ((1u << sh->bits) - 1);
}

/*
 * A shuffle of n tuples from 'seed' into 2^bits partitions with 'slack'
 * tuples of room beyond their counts (negative: that many short in
 * partition 0), 128-byte aligned, a gap of 128 canary bytes around each.
 */
static void sh_init(Shuffle *sh, uint8_t bits, uint8_t shift, uint32_t n,
                    uint32_t seed, int slack)
{
    uint32_t nparts = 1u << bits, i, p;
    GRand *r = g_rand_new_with_seed(seed);
    uint64_t at = SH_PARTS + 128;
    uint32_t *count;

    memset(sh, 0, sizeof(*sh));
    sh->bits = bits;
    sh->shift = shift;
    sh->ntuples = n;
    sh->tuples = g_new(uint64_t, n);
    sh->cap = g_new0(uint32_t, nparts);
    sh->base = g_new0(uint64_t, nparts);
    sh->fill = g_new0(uint32_t, nparts);
    count = g_new0(uint32_t, nparts);
    for (i = 0; i < n; i++) {
        sh->tuples[i] = (uint64_t)g_rand_int(r) << 32 | g_rand_int(r);
        count[part_of(sh, sh->tuples[i])]++;
    }
    for (p = 0; p < nparts; p++) {
        sh->cap[p] = slack < 0 && p == 0 ?
                     MAX((int)count[p] + slack, 0) : count[p] + MAX(slack, 0);
        sh->base[p] = at;
        at += (sh->cap[p] * 8 + 127) / 128 * 128 + 128;
    }
    g_assert_cmpuint(at, <=, SH_PARTS + SH_AREA);
    /* the reference: a stable radix partition, up to the first overflow */
    sh->overflow_at = n;
    for (i = 0; i < n; i++) {
        p = part_of(sh, sh->tuples[i]);
        if (sh->fill[p] == sh->cap[p]) {
            sh->overflow_at = i;
            break;
        }
        sh->fill[p]++;
    }
    g_free(count);
    g_rand_free(r);
}

static void sh_free(Shuffle *sh)
{
    g_free(sh->tuples);
    g_free(sh->cap);
    g_free(sh->base);
    g_free(sh->fill);
}

/* The payload: params, histogram, tuples; its length. */
static uint32_t sh_payload(const Shuffle *sh, uint8_t *out)
{
    struct snic_shuffle_params prm = { .bits = sh->bits, .shift = sh->shift };
    uint32_t nparts = 1u << sh->bits, p, i, off = sizeof(prm);

    memcpy(out, &prm, sizeof(prm));
    for (p = 0; p < nparts; p++, off += sizeof(struct snic_shuffle_part)) {
        struct snic_shuffle_part h = {
            .base = GUINT64_TO_LE(sh->base[p]),
            .capacity = GUINT32_TO_LE(sh->cap[p]),
        };

        memcpy(out + off, &h, sizeof(h));
    }
    for (i = 0; i < sh->ntuples; i++, off += 8) {
        uint64_t le = GUINT64_TO_LE(sh->tuples[i]);

        memcpy(out + off, &le, 8);
    }
    return off;
}

/* Post the shuffle's RPC WRITE of len payload bytes (tag 'tag'). */
static void sh_post(Fix *f, uint32_t len, uint32_t rkey, uint32_t resp_len,
                    uint32_t tag)
{
    RpcReq r = {
        .wr = SNIC_WR_RPC_WRITE, .rpc_opcode = OP_SHUF, .rkey = rkey,
        .src = SH_SRC, .len = len, .resp_addr = RESP + 0x10000 * (tag % 4),
        .resp_len = resp_len, .tag = tag,
    };

    node_post_recv(&f->a, tag, BUF, 0);
    rpc_post(&f->a, tag, &r);
}

/* Run until 'n' more answers came; the last one's status. */
static uint32_t sh_wait(Fix *f, unsigned n, struct snic_cqe *out)
{
    unsigned want = f->q.answers + n;
    const struct snic_cqe *c;

    g_assert_true(rpc_run_until_answers(f->sim, &f->a, &f->q, want,
                                        100000000));
    snic_sim_run(f->sim, 1000000);
    rpc_drain(&f->a, &f->q);
    c = &f->q.answer[want - 1];
    g_assert_cmpuint(c->status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c->opcode, ==, SNIC_WC_RECV_RDMA_WITH_IMM);
    *out = *c;
    return rpc_cqe_status(c);
}

/* One shuffle, whole: its status and answer CQE. */
static uint32_t sh_call(Fix *f, const Shuffle *sh, uint32_t extra,
                        uint32_t rkey, uint32_t resp_len,
                        struct snic_cqe *out)
{
    static uint32_t tag = 100;
    uint8_t *pl = fake_ptr(f->a.h, SH_SRC, 0x200000);
    uint32_t len = sh_payload(sh, pl) + extra;

    sh_post(f, len, rkey, resp_len, ++tag);
    return sh_wait(f, 1, out);
}

static void sh_fix_init(Fix *f, uint8_t mtu, const SnicSimLinkConfig *link,
                        const SnicSimNicTiming *timing)
{
    NodeDev dev = {
        .cfg = { .shuffle_units = 1,
                 .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY },
    };

    if (timing) {
        dev.timing = *timing;
    }
    memset(f, 0, sizeof(*f));
    f->sim = snic_sim_new(9);
    rpc_pair_new(f->sim, &f->a, &f->b, link ? link : &wire, mtu,
                 SNIC_QP_RPC_ENABLE, SNIC_QP_RPC_ENABLE, &dev, &dev);
    g_assert_cmpuint(rpc_deploy(&f->b, OP_SHUF, SNIC_KERNEL_SHUFFLE), ==,
                     SNIC_ADMIN_OK);
    memset(fake_ptr(f->b.h, SH_PARTS, SH_AREA), CANARY, SH_AREA);
    f->b.h->log_writes = true;
}

/*
 * b's memory is the canaries with the reference partition written over
 * them, byte for byte; the answer holds the fills; every partition was
 * written in 128-byte DMAs but its last (its fill / 16, rounded up),
 * nothing between partitions.
 */
static void sh_check(Fix *f, const Shuffle *sh, const struct snic_cqe *c,
                     bool answered)
{
    uint32_t nparts = 1u << sh->bits, p, i, w, writes = 0;
    uint8_t *want = g_malloc(SH_AREA);
    uint32_t *at = g_new0(uint32_t, nparts);
    GArray *log = f->b.h->writes;

    memset(want, CANARY, SH_AREA);
    for (i = 0; i < sh->overflow_at; i++) {
        uint64_t le = GUINT64_TO_LE(sh->tuples[i]);

        p = part_of(sh, sh->tuples[i]);
        memcpy(want + (sh->base[p] - SH_PARTS) + 8 * at[p]++, &le, 8);
    }
    g_assert_cmpmem(fake_ptr(f->b.h, SH_PARTS, SH_AREA), SH_AREA, want,
                    SH_AREA);
    for (p = 0; p < nparts; p++) {
        uint64_t next = sh->base[p];
        uint32_t n = 0;

        g_assert_cmpuint(at[p], ==, sh->fill[p]);
        if (answered) {
            uint32_t fill;

            memcpy(&fill, fake_ptr(f->a.h, RESP + 0x10000 *
                                   (rpc_cqe_tag(c) % 4) + 4 * p, 4), 4);
            g_assert_cmpuint(GUINT32_FROM_LE(fill), ==, sh->fill[p]);
        }
        /* its writes, in order, 128 bytes but the last */
        for (w = 0; w < log->len; w++) {
            const FakeDmaWrite *d = &g_array_index(log, FakeDmaWrite, w);

            if (d->addr < sh->base[p] || d->addr >= sh->base[p] +
                (uint64_t)sh->cap[p] * 8) {
                continue;
            }
            g_assert_true(d->ok);
            g_assert_cmphex(d->addr, ==, next);
            next += d->len;
            n++;
            g_assert_cmpuint(d->len, ==,
                             next == sh->base[p] + 8ull * sh->fill[p] &&
                             sh->fill[p] % 16 ? 8 * (sh->fill[p] % 16) : 128);
        }
        g_assert_cmphex(next, ==, sh->base[p] + 8ull * sh->fill[p]);
        g_assert_cmpuint(n, ==, (sh->fill[p] + 15) / 16);
        writes += n;
    }
    /* and nothing else in the area: the canaries' gaps */
    g_assert_cmpuint(fake_writes_in(f->b.h, SH_PARTS, SH_AREA), ==, writes);
    g_free(at);
    g_free(want);
}

static void sh_reset(Fix *f)
{
    memset(fake_ptr(f->b.h, SH_PARTS, SH_AREA), CANARY, SH_AREA);
    g_array_set_size(f->b.h->writes, 0);
}

/*
 * The result equals a stable software radix partition byte for byte:
 * 1, 2 and 1024 partitions, shift 0 and more, MTUs the payload is not
 * a multiple of; every flush is 128 bytes but each partition's last.
 */
static void test_shuffle_radix(void)
{
    static const struct {
        uint8_t bits, shift, mtu;
        uint32_t n;
    } cases[] = {
        { 0, 0, SNIC_MTU_1024, 1001 },
        { 1, 0, SNIC_MTU_256, 333 },
        { 1, 61 - SNIC_SHUFFLE_MAX_BITS, SNIC_MTU_4096, 5000 },
        { 10, 0, SNIC_MTU_1024, 20000 },
        { 10, 40, SNIC_MTU_4096, 30011 },
        { 4, 3, SNIC_MTU_512, 7 },
        { 3, 0, SNIC_MTU_1024, 0 },
    };
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        struct snic_cqe c;
        Shuffle sh;
        Fix f;

        sh_fix_init(&f, cases[i].mtu, NULL, NULL);
        sh_init(&sh, cases[i].bits, cases[i].shift, cases[i].n, 20 + i,
                i % 2 ? 3 : 0);
        g_assert_cmpuint(sh.overflow_at, ==, sh.ntuples);
        g_assert_cmpuint(sh_call(&f, &sh, 0, f.b.lkey, 4096, &c), ==,
                         SNIC_RPC_OK);
        g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 4u << sh.bits);
        sh_check(&f, &sh, &c, true);
        /* the unit is free again: the same shuffle once more */
        sh_reset(&f);
        g_assert_cmpuint(sh_call(&f, &sh, 0, f.b.lkey, 4096, &c), ==,
                         SNIC_RPC_OK);
        sh_check(&f, &sh, &c, true);
        sh_free(&sh);
        fix_free(&f);
    }
}

/* A histogram the device refuses: its status, and no byte written. */
static void sh_refused(Fix *f, Shuffle *sh, uint32_t extra, uint32_t rkey,
                       uint32_t resp_len, uint32_t status)
{
    uint8_t *want = g_malloc(SH_AREA);
    struct snic_cqe c;

    sh_reset(f);
    g_assert_cmpuint(sh_call(f, sh, extra, rkey, resp_len, &c), ==, status);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 0);
    g_assert_cmpuint(fake_writes_in(f->b.h, SH_PARTS, SH_AREA), ==, 0);
    g_assert_cmpuint(fake_writes_in(f->b.h, OUTSIDE, 0x100000), ==, 0);
    memset(want, CANARY, SH_AREA);
    g_assert_cmpmem(fake_ptr(f->b.h, SH_PARTS, SH_AREA), SH_AREA, want,
                    SH_AREA);
    g_free(want);
}

/*
 * Histograms outside the MR, without REMOTE_WRITE, overlapping, of more
 * than 1024 partitions, misaligned, a response buffer too small for the
 * fills, tuples that are not whole: answered, nothing written; then a
 * good one on the same QP.
 */
static void test_shuffle_bad_histogram(void)
{
    struct snic_admin_cmd cmd;
    struct snic_shuffle_params prm;
    struct snic_cqe c;
    uint32_t ro_key;
    uint8_t *pl;
    Shuffle sh;
    Fix f;

    sh_fix_init(&f, SNIC_MTU_1024, NULL, NULL);
    /* b's buffer again, readable only */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(BUF);
    cmd.reg_mr.length = GUINT64_TO_LE(BUF_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(PBL_MR);
    cmd.reg_mr.npages = GUINT32_TO_LE(BUF_LEN / 4096);
    cmd.reg_mr.pdn = GUINT32_TO_LE(f.b.pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_READ);
    cmd.reg_mr.page_shift = 12;
    cmd.reg_mr.key = 0x44;
    ro_key = node_admin_ok(f.b.h, &cmd);

    sh_init(&sh, 4, 0, 3000, 5, 2);
    sh_refused(&f, &sh, 0, ro_key, 4096, SNIC_RPC_PROT_ERR);
    sh.base[15] = OUTSIDE;                  /* past the MR */
    sh_refused(&f, &sh, 0, f.b.lkey, 4096, SNIC_RPC_PROT_ERR);
    sh.base[15] = BUF + BUF_LEN - 8;        /* its tail past the MR */
    sh_refused(&f, &sh, 0, f.b.lkey, 4096, SNIC_RPC_PROT_ERR);
    sh.base[15] = sh.base[3] + 8 * (sh.cap[3] - 1);   /* overlaps 3 */
    sh_refused(&f, &sh, 0, f.b.lkey, 4096, SNIC_RPC_BAD_PARAMS);
    sh.base[15] = sh.base[14] + 4;          /* misaligned */
    sh_refused(&f, &sh, 0, f.b.lkey, 4096, SNIC_RPC_BAD_PARAMS);
    sh.base[15] = sh.base[14] + 8 * sh.cap[14] + 128;
    /* the fills need 64 bytes */
    sh_refused(&f, &sh, 0, f.b.lkey, 63, SNIC_RPC_BAD_PARAMS);
    /* 3 bytes of a tuple after the last */
    sh_refused(&f, &sh, 3, f.b.lkey, 4096, SNIC_RPC_BAD_PARAMS);
    /* 2048 partitions; a shift past 56; reserved bits */
    pl = fake_ptr(f.a.h, SH_SRC, 8);
    prm = (struct snic_shuffle_params) { .bits = 11 };
    memcpy(pl, &prm, sizeof(prm));
    sh_post(&f, 8 + 16 * 2048, f.b.lkey, 1 << 14, 7);
    g_assert_cmpuint(sh_wait(&f, 1, &c), ==, SNIC_RPC_BAD_PARAMS);
    prm = (struct snic_shuffle_params) { .bits = 1, .shift = 57 };
    memcpy(pl, &prm, sizeof(prm));
    sh_post(&f, 8 + 32, f.b.lkey, 4096, 8);
    g_assert_cmpuint(sh_wait(&f, 1, &c), ==, SNIC_RPC_BAD_PARAMS);
    prm = (struct snic_shuffle_params) { .bits = 1, .rsvd1 = 1 };
    memcpy(pl, &prm, sizeof(prm));
    sh_post(&f, 8 + 32, f.b.lkey, 4096, 9);
    g_assert_cmpuint(sh_wait(&f, 1, &c), ==, SNIC_RPC_BAD_PARAMS);
    g_assert_cmpuint(fake_writes_in(f.b.h, SH_PARTS, SH_AREA), ==, 0);

    /* the QP and the unit serve a good one afterwards */
    sh_free(&sh);
    sh_init(&sh, 4, 0, 3000, 5, 2);
    sh_reset(&f);
    g_assert_cmpuint(sh_call(&f, &sh, 0, f.b.lkey, 4096, &c), ==,
                     SNIC_RPC_OK);
    sh_check(&f, &sh, &c, true);
    sh_free(&sh);
    fix_free(&f);
}

/*
 * A tuple that would overflow its partition ends the RPC: every tuple
 * before it written (partial buffers flushed), none after it, the canaries
 * intact, PARTITION_FULL with the fills; the QP goes on.
 */
static void test_shuffle_overflow(void)
{
    static const struct {
        uint8_t bits;
        uint32_t n;
        int short_by;
    } cases[] = {
        { 0, 100, -1 },
        { 2, 4000, -7 },
        { 10, 20000, -3 },
    };
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        struct snic_cqe c;
        Shuffle sh;
        Fix f;

        sh_fix_init(&f, SNIC_MTU_1024, NULL, NULL);
        sh_init(&sh, cases[i].bits, 0, cases[i].n, 40 + i,
                cases[i].short_by);
        g_assert_cmpuint(sh.overflow_at, <, sh.ntuples);
        g_assert_cmpuint(sh_call(&f, &sh, 0, f.b.lkey, 4096, &c), ==,
                         SNIC_RPC_PARTITION_FULL);
        g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 4u << sh.bits);
        sh_check(&f, &sh, &c, true);
        sh_free(&sh);

        sh_init(&sh, cases[i].bits, 0, cases[i].n, 40 + i, 0);
        sh_reset(&f);
        g_assert_cmpuint(sh_call(&f, &sh, 0, f.b.lkey, 4096, &c), ==,
                         SNIC_RPC_OK);
        sh_check(&f, &sh, &c, true);
        sh_free(&sh);
        fix_free(&f);
    }
}

/*
 * One unit: a shuffle whose payload arrives while another QP's shuffle
 * holds the unit gets an RNR NAK and completes afterwards. Two QPs of the
 * same devices: on one QP the second RPC WRITE comes after the first's
 * payload, when the unit is free again (/kernels/shuffle/back-to-back).
 */
static void test_shuffle_busy(void)
{
    const SnicSimNicTiming slow = { .pcie_bps = 200000000ull };
    RpcReq r = {
        .wr = SNIC_WR_RPC_WRITE, .rpc_opcode = OP_SHUF, .src = SH_SRC,
        .resp_addr = RESP + 0x10000 * 2, .resp_len = 4096, .tag = 2,
    };
    struct snic_cqe c;
    uint64_t bytes;
    uint8_t *pl;
    uint32_t len, i;
    Shuffle sh;
    Node a2, b2;
    Fix f;

    sh_fix_init(&f, SNIC_MTU_1024, NULL, &slow);
    node_add_qp_rq(&a2, &f.a, 4);
    node_add_qp_rq(&b2, &f.b, 4);
    g_assert_cmpuint(rpc_set(&a2, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_set(&b2, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
    node_connect(&a2, &b2, SNIC_MTU_1024, 7, 7);
    node_connect(&b2, &a2, SNIC_MTU_1024, 7, 7);
    sh_init(&sh, 6, 0, 4000, 61, 0);
    pl = fake_ptr(f.a.h, SH_SRC, 0x100000);
    len = sh_payload(&sh, pl);
    sh_post(&f, len, f.b.lkey, 4096, 1);
    r.rkey = f.b.lkey;
    r.len = len;
    node_post_recv(&a2, 2, BUF, 0);
    rpc_post(&a2, 2, &r);
    g_assert_cmpuint(sh_wait(&f, 2, &c), ==, SNIC_RPC_OK);
    g_assert_cmpuint(rpc_cqe_status(&f.q.answer[0]), ==, SNIC_RPC_OK);
    g_assert_cmpuint(rpc_cqe_tag(&f.q.answer[0]) +
                     rpc_cqe_tag(&f.q.answer[1]), ==, 3);
    g_assert_cmpuint(f.a.h->events[SNIC_TRACE_RNR_WAIT], >, 0);
    /*
     * every write of the kernels was timed, with its TLP's framing, and
     * nothing else of b's took the write channel: the RPC WRITEs' payload
     * went to the kernel, not to memory
     */
    g_assert_cmpuint(f.b.h->port.stats.kernel_writes, ==,
                     fake_writes_in(f.b.h, SH_PARTS, SH_AREA));
    bytes = 0;
    for (i = 0; i < f.b.h->writes->len; i++) {
        const FakeDmaWrite *w = &g_array_index(f.b.h->writes, FakeDmaWrite,
                                               i);

        if (w->addr >= SH_PARTS && w->addr < SH_PARTS + SH_AREA) {
            bytes += w->len + SNIC_SIM_PCIE_WRITE_TLP_BYTES;
        }
    }
    g_assert_cmpuint(f.b.h->port.stats.kernel_write_bytes, ==, bytes);
    g_assert_cmpuint(f.b.h->port.stats.pcie_write_bytes, ==, bytes);
    /* the second wrote the same tuples over the first's */
    g_array_set_size(f.b.h->writes, 0);
    sh_reset(&f);
    g_assert_cmpuint(sh_call(&f, &sh, 0, f.b.lkey, 4096, &c), ==,
                     SNIC_RPC_OK);
    sh_check(&f, &sh, &c, true);
    sh_free(&sh);
    fix_free(&f);
}

/*
 * Back to back on one QP, as a client streaming its tuples in several
 * RPC WRITEs: the unit is free once the first payload's last buffers are
 * written, so the second is taken at once, though the first's answer
 * still waits for its (slow) writes to land; both answers are right.
 */
static void test_shuffle_back_to_back(void)
{
    const SnicSimNicTiming slow = { .pcie_bps = 200000000ull };
    uint32_t at[64] = { 0 };
    struct snic_cqe c;
    uint32_t len, p, i, tag, fill;
    uint8_t *pl;
    Shuffle sh;
    Fix f;

    sh_fix_init(&f, SNIC_MTU_1024, NULL, &slow);
    sh_init(&sh, 6, 0, 4000, 62, 0);
    pl = fake_ptr(f.a.h, SH_SRC, 0x100000);
    len = sh_payload(&sh, pl);
    sh_post(&f, len, f.b.lkey, 4096, 1);
    sh_post(&f, len, f.b.lkey, 4096, 2);
    g_assert_cmpuint(sh_wait(&f, 2, &c), ==, SNIC_RPC_OK);
    g_assert_cmpuint(rpc_cqe_status(&f.q.answer[0]), ==, SNIC_RPC_OK);
    g_assert_cmpuint(rpc_cqe_tag(&f.q.answer[0]), ==, 1);
    g_assert_cmpuint(rpc_cqe_tag(&c), ==, 2);
    g_assert_cmpuint(f.a.h->events[SNIC_TRACE_RNR_WAIT], ==, 0);
    g_assert_cmpuint(f.a.h->events[SNIC_TRACE_NAK_RECV], ==, 0);
    /* both answers hold the fills; the partitions hold the tuples */
    for (p = 0; p < 64; p++) {
        for (tag = 1; tag <= 2; tag++) {
            memcpy(&fill, fake_ptr(f.a.h, RESP + 0x10000 * tag + 4 * p, 4),
                   4);
            g_assert_cmpuint(GUINT32_FROM_LE(fill), ==, sh.fill[p]);
        }
    }
    for (i = 0; i < sh.ntuples; i++) {
        p = part_of(&sh, sh.tuples[i]);
        g_assert_cmphex(node_rd64(&f.b, sh.base[p] + 8ull * at[p]++), ==,
                        sh.tuples[i]);
    }
    sh_free(&sh);
    fix_free(&f);
}

/*
 * A QP that fails while its shuffle's payload arrives gives the unit back
 * (the slot's release), and the device's next shuffle gets it.
 */
static void test_shuffle_qp_gone(void)
{
    struct snic_qp_attr err = { .qp_state = GUINT32_TO_LE(SNIC_QPS_ERR) };
    SnicRpcDev *d;
    uint8_t *pl;
    uint32_t len;
    Shuffle sh;
    Fix f;

    sh_fix_init(&f, SNIC_MTU_1024, NULL, NULL);
    d = f.b.h->core->rpc;
    sh_init(&sh, 10, 0, 20000, 83, 0);
    pl = fake_ptr(f.a.h, SH_SRC, 0x100000);
    len = sh_payload(&sh, pl);
    sh_post(&f, len, f.b.lkey, 4096, 1);
    while (!d->shuffle_used) {
        g_assert_true(snic_sim_step(f.sim));
    }
    node_modify(&f.b, SNIC_QP_ATTR_STATE, &err);
    g_assert_cmpuint(d->shuffle_used, ==, 0);
    g_assert_cmpuint(d->stage_used, ==, 0);
    sh_free(&sh);
    node_pair_free(f.sim, &f.a, &f.b);
}

/* The same result on a wire that loses 5 % and reorders. */
static void test_shuffle_lossy(void)
{
    SnicSimLinkConfig lossy = wire;
    struct snic_cqe c;
    Shuffle sh;
    Fix f;

    lossy.loss = 0.05;
    lossy.reorder = 0.05;
    sh_fix_init(&f, SNIC_MTU_1024, &lossy, NULL);
    sh_init(&sh, 10, 7, 40000, 77, 1);
    g_assert_cmpuint(sh_call(&f, &sh, 0, f.b.lkey, 4096, &c), ==,
                     SNIC_RPC_OK);
    sh_check(&f, &sh, &c, true);
    sh_free(&sh);
    fix_free(&f);
}

/* Without a unit the device has no shuffle: not listed, not deployed. */
static void test_shuffle_no_unit(void)
{
    Fix f;

    fix_init(&f, SNIC_MTU_1024);
    g_assert_cmpuint(rpc_deploy(&f.b, OP_SHUF, SNIC_KERNEL_SHUFFLE), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_false(snic_kernel_builtin_mask(f.b.h->core) &
                   1u << SNIC_KERNEL_SHUFFLE);
    fix_free(&f);
    sh_fix_init(&f, SNIC_MTU_1024, NULL, NULL);
    g_assert_true(snic_kernel_builtin_mask(f.b.h->core) &
                  1u << SNIC_KERNEL_SHUFFLE);
    fix_free(&f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/kernels/traversal/list-lengths", test_list_lengths);
    g_test_add_func("/kernels/traversal/predicates", test_predicates);
    g_test_add_func("/kernels/traversal/positions-and-hash",
                    test_positions_and_hash);
    g_test_add_func("/kernels/traversal/binary-tree", test_binary_tree);
    g_test_add_func("/kernels/traversal/btree", test_btree);
    g_test_add_func("/kernels/traversal/skip-list", test_skip_list);
    g_test_add_func("/kernels/traversal/cycle", test_cycle);
    g_test_add_func("/kernels/traversal/outside-region", test_outside_region);
    g_test_add_func("/kernels/traversal/bad-params", test_bad_params);
    g_test_add_func("/kernels/consistency/crc64-xz", test_crc64_xz);
    g_test_add_func("/kernels/consistency/checksums", test_consistency);
    g_test_add_func("/kernels/consistency/busy", test_consistency_busy);
    g_test_add_func("/kernels/consistency/stage-share",
                    test_consistency_stage_share);
    g_test_add_func("/kernels/consistency/torn-reads-fault",
                    test_torn_reads_fault);
    g_test_add_func("/kernels/timed/pcie-charges", test_timed_pcie_charges);
    g_test_add_func("/kernels/shuffle/radix", test_shuffle_radix);
    g_test_add_func("/kernels/shuffle/bad-histogram",
                    test_shuffle_bad_histogram);
    g_test_add_func("/kernels/shuffle/overflow", test_shuffle_overflow);
    g_test_add_func("/kernels/shuffle/busy", test_shuffle_busy);
    g_test_add_func("/kernels/shuffle/back-to-back",
                    test_shuffle_back_to_back);
    g_test_add_func("/kernels/shuffle/qp-gone", test_shuffle_qp_gone);
    g_test_add_func("/kernels/shuffle/lossy", test_shuffle_lossy);
    g_test_add_func("/kernels/shuffle/no-unit", test_shuffle_no_unit);
    return g_test_run();
}
