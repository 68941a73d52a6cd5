/*
 * Unit tests of StRoM RPCs on the wire (hw/snic/core/strom/rpc.c): the admin
 * commands, the op-code maps and the extension marker, the answer as the
 * responder's own RDMA WRITE with immediate, go-back-N retransmission of
 * answers on lossy links, the fallback to a user handler, a kernel fed
 * by RPC WRITE, and hostile input: RPCs on QPs that did not agree to
 * them, unknown kernels, params over one MTU, a bad response R_Key.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib/gstdio.h>

#include "strom/kernel.h"
#include "rpc-node.h"
#include "port/wire.h"
#include "objects/qp.h"

#define OP_TRAV     0x10ull
#define OP_CONS     0x11ull
#define OP_SUM      0x12ull
#define OP_NONE     0x99ull
#define DS          (BUF + 0x10000)
#define VALUES      (BUF + 0x100000)
#define RESP        (BUF + 0x200000)
#define KERNEL_SUM  (SNIC_KERNEL_FIRST_ADDED + 1)

static const SnicSimLinkConfig wire = {
    .bandwidth_bps = 10000000000ull,
    .delay_ns = 1000,
};

/* ---- a kernel fed by RPC WRITE: it sums the payload's bytes ---- */

typedef struct SumState {
    uint64_t sum;
    uint64_t store;             /* first 8 bytes: where to write the sum */
    uint32_t got;
    uint32_t want;              /* the payload's length start() was told */
    bool done;
} SumState;

/* RPC WRITE only: no parameters, the payload's length */
static uint8_t sum_start(SnicRpc *k, const uint8_t *params, uint32_t len)
{
    SumState *s = snic_kernel_state(k);

    s->want = len;
    return params ? SNIC_RPC_BAD_PARAMS : SNIC_RPC_OK;
}

static bool sum_data_in(SnicRpc *k, const uint8_t *data, uint32_t len,
                        bool last)
{
    SumState *s = snic_kernel_state(k);
    uint32_t i;

    for (i = 0; i < len; i++, s->got++) {
        if (s->got < 8) {
            s->store |= (uint64_t)data[i] << (8 * s->got);
        } else {
            s->sum += data[i];
        }
    }
    s->done = last;
    return true;
}

static void sum_step(SnicRpc *k)
{
    SumState *s = snic_kernel_state(k);
    uint64_t le = GUINT64_TO_LE(s->sum);
    uint8_t st;

    if (!s->done) {
        return;     /* the rest of the payload is on its way */
    }
    st = s->got == s->want ? snic_kernel_dma_write(k, s->store, &le, 8) :
                             SNIC_RPC_BAD_PARAMS;
    if (st == SNIC_RPC_OK) {
        st = snic_kernel_respond_bytes(k, &le, 8);
    }
    snic_kernel_finish(k, st);
}

static const SnicKernelOps sum_kernel = {
    .name = "sum (test)",
    .id = KERNEL_SUM,
    .start = sum_start,
    .data_in = sum_data_in,
    .step = sum_step,
};

/* ---- helpers ---- */

static void pair(SnicSim *sim, Node *a, Node *b, uint8_t mtu,
                 uint32_t flags_b)
{
    rpc_pair_new(sim, a, b, &wire, mtu, SNIC_QP_RPC_ENABLE, flags_b, NULL,
                 NULL);
    g_assert_cmpuint(rpc_deploy(b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
}

static RpcReq trav_req(const Node *b, const struct snic_traversal_params *p,
                       uint32_t resp_len, uint32_t tag)
{
    return (RpcReq) {
        .wr = SNIC_WR_RPC, .rpc_opcode = OP_TRAV, .rkey = b->lkey,
        .params = p, .len = sizeof(*p), .resp_addr = RESP,
        .resp_len = resp_len, .tag = tag,
    };
}

static uint16_t admin(Node *n, struct snic_admin_cmd *cmd)
{
    return fake_admin(n->h, cmd, NULL);
}

/* ---- admin ---- */

/*
 * An RPC's answer carries no message number nor the selective-transport
 * header: a QP runs RPCs or a program that numbers its messages (the
 * selective ones, SRNIC's), never both, whichever command comes second;
 * the other programs take RPCs.
 */
static void test_admin_rpc_numbered_program(void)
{
    static const uint8_t numbered[] = {
        SNIC_TRANSPORT_SRNIC, SNIC_TRANSPORT_SRNIC_DCTCP, SNIC_TRANSPORT_SACK,
        SNIC_TRANSPORT_RENO, SNIC_TRANSPORT_NEWRENO, SNIC_TRANSPORT_NDP,
        SNIC_TRANSPORT_IRN,
    };
    static const uint8_t plain[] = {
        SNIC_TRANSPORT_GBN, SNIC_TRANSPORT_DCQCN, SNIC_TRANSPORT_DCTCP,
    };
    Node n;
    unsigned i;

    node_init(&n, NULL, 1);
    for (i = 0; i < G_N_ELEMENTS(numbered); i++) {
        /* the program first, then RPC */
        g_assert_cmpuint(node_set_transport(&n, numbered[i], 0), ==,
                         SNIC_ADMIN_OK);
        g_assert_cmpuint(rpc_set(&n, SNIC_QP_RPC_ENABLE), ==,
                         SNIC_ADMIN_NOT_SUPPORTED);
        g_assert_cmpuint(n.h->core->qps[n.qpn].rpc.flags, ==, 0);
        g_assert_cmpuint(rpc_set(&n, 0), ==, SNIC_ADMIN_OK);
        /* RPC first, then the program: the QP keeps go-back-N */
        g_assert_cmpuint(node_set_transport(&n, SNIC_TRANSPORT_GBN, 0), ==,
                         SNIC_ADMIN_OK);
        g_assert_cmpuint(rpc_set(&n, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(node_set_transport(&n, numbered[i], 0), ==,
                         SNIC_ADMIN_NOT_SUPPORTED);
        g_assert_cmpuint(n.h->core->qps[n.qpn].program, ==,
                         SNIC_TRANSPORT_GBN);
        g_assert_cmpuint(rpc_set(&n, 0), ==, SNIC_ADMIN_OK);
    }
    for (i = 0; i < G_N_ELEMENTS(plain); i++) {
        g_assert_cmpuint(node_set_transport(&n, plain[i], 0), ==,
                         SNIC_ADMIN_OK);
        g_assert_cmpuint(rpc_set(&n, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(node_set_transport(&n, plain[i], 0), ==,
                         SNIC_ADMIN_OK);
        g_assert_cmpuint(rpc_set(&n, 0), ==, SNIC_ADMIN_OK);
    }
    fake_host_free(n.h);
}

static void test_admin(void)
{
    SnicSim *sim = snic_sim_new(1);
    struct snic_admin_cmd cmd;
    struct snic_device_attr da;
    Node a, b, u;
    unsigned i;

    node_pair_new(sim, &a, &b, &wire, SNIC_MTU_1024, 7, 7);
    /* SET_QP_RPC: RC only, before RTR, known flags */
    g_assert_cmpuint(rpc_set(&a, SNIC_QP_RPC_ENABLE), ==,
                     SNIC_ADMIN_BAD_STATE);
    node_init_type(&u, sim, 3, SNIC_QPT_UD);
    g_assert_cmpuint(rpc_set(&u, SNIC_QP_RPC_ENABLE), ==,
                     SNIC_ADMIN_BAD_PARAM);
    fake_host_free(u.h);
    node_init(&u, sim, 3);
    g_assert_cmpuint(rpc_set(&u, 4), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rpc_set(&u, SNIC_QP_RPC_FALLBACK), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rpc_set(&u, SNIC_QP_RPC_ENABLE | SNIC_QP_RPC_FALLBACK),
                     ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(u.h->core->qps[u.qpn].rpc.flags, ==,
                     SNIC_QP_RPC_ENABLE | SNIC_QP_RPC_FALLBACK);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_RPC, sizeof(cmd.set_qp_rpc));
    cmd.set_qp_rpc.qpn = GUINT32_TO_LE(999);
    g_assert_cmpuint(admin(&u, &cmd), ==, SNIC_ADMIN_BAD_PARAM);
    /* a move to RESET forgets it */
    {
        struct snic_qp_attr at = { .qp_state = GUINT32_TO_LE(SNIC_QPS_INIT),
                                   .port_num = 1 };

        node_modify(&u, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                    SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &at);
        g_assert_cmpuint(u.h->core->qps[u.qpn].rpc.flags, !=, 0);
        at.qp_state = GUINT32_TO_LE(SNIC_QPS_RESET);
        node_modify(&u, SNIC_QP_ATTR_STATE, &at);
        g_assert_cmpuint(u.h->core->qps[u.qpn].rpc.flags, ==, 0);
    }
    /*
     * DEPLOY_KERNEL: known kernels, one per (context, op-code), bounded:
     * a context holds a quarter of the table, four of them fill it
     */
    g_assert_cmpuint(rpc_deploy(&b, 1, 99), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rpc_deploy(&b, 1, 0), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rpc_undeploy(&b, 1), ==, SNIC_ADMIN_BAD_PARAM);
    for (i = 0; i < SNIC_KERNEL_MAX_DEPLOYED / 4; i++) {
        g_assert_cmpuint(rpc_deploy(&b, 100 + i, SNIC_KERNEL_TRAVERSAL), ==,
                         SNIC_ADMIN_OK);
    }
    g_assert_cmpuint(rpc_deploy(&b, 100, SNIC_KERNEL_CONSISTENCY), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(rpc_deploy(&b, 99, SNIC_KERNEL_CONSISTENCY), ==,
                     SNIC_ADMIN_NO_RESOURCES);      /* the context's share */
    for (i = 0; i < SNIC_KERNEL_MAX_DEPLOYED * 3 / 4 + 1; i++) {
        /* three other contexts fill the table; a fourth finds it full */
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_DEPLOY_KERNEL,
                            sizeof(cmd.deploy_kernel));
        cmd.deploy_kernel.ctx = GUINT16_TO_LE(b.ctx + 1 +
                                              i / (SNIC_KERNEL_MAX_DEPLOYED /
                                                   4));
        cmd.deploy_kernel.rpc_opcode = GUINT64_TO_LE(100 + i);
        cmd.deploy_kernel.kernel_id = GUINT16_TO_LE(SNIC_KERNEL_TRAVERSAL);
        g_assert_cmpuint(admin(&b, &cmd), ==,
                         i < SNIC_KERNEL_MAX_DEPLOYED * 3 / 4 ?
                         SNIC_ADMIN_OK : SNIC_ADMIN_NO_RESOURCES);
    }
    g_assert_cmpuint(rpc_undeploy(&b, 100), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_undeploy(&b, 100), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rpc_deploy(&b, 99, SNIC_KERNEL_CONSISTENCY), ==,
                     SNIC_ADMIN_OK);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_DEPLOY_KERNEL,
                        sizeof(cmd.deploy_kernel));
    cmd.deploy_kernel.ctx = GUINT16_TO_LE(FAKE_DB_PAGES);
    cmd.deploy_kernel.kernel_id = GUINT16_TO_LE(SNIC_KERNEL_TRAVERSAL);
    g_assert_cmpuint(admin(&b, &cmd), ==, SNIC_ADMIN_BAD_PARAM);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_UNDEPLOY_KERNEL,
                        sizeof(cmd.deploy_kernel));
    cmd.deploy_kernel.rpc_opcode = GUINT64_TO_LE(101);
    cmd.deploy_kernel.kernel_id = GUINT16_TO_LE(1);
    g_assert_cmpuint(admin(&b, &cmd), ==, SNIC_ADMIN_BAD_PARAM);
    /* a disable empties the table */
    fake_reg_write(b.h, SNIC_REG_DEV_CTRL, 0);
    fake_enable(b.h, 4, 4);
    g_assert_cmpuint(rpc_undeploy(&b, 101), ==, SNIC_ADMIN_BAD_PARAM);
    /* QUERY_DEVICE: the RPC limits, the on-chip bytes */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    cmd.resp.resp_len = GUINT32_TO_LE(sizeof(da));
    g_assert_cmpuint(admin(&b, &cmd), ==, SNIC_ADMIN_OK);
    fake_read(b.h, FAKE_RESP, &da, sizeof(da));
    g_assert_cmpuint(GUINT32_FROM_LE(da.abi_version), ==, SNIC_ABI_VERSION);
    g_assert_cmpuint(GUINT32_FROM_LE(da.rpc_slots), ==, SNIC_RPC_SLOTS);
    g_assert_cmpuint(GUINT32_FROM_LE(da.rpc_slot_bytes), ==, sizeof(SnicRpc));
    g_assert_cmpuint(GUINT16_FROM_LE(da.max_rpc_per_qp), ==,
                     SNIC_RPC_MAX_PER_QP);
    g_assert_cmpuint(GUINT16_FROM_LE(da.max_kernels), ==,
                     SNIC_KERNEL_MAX_DEPLOYED);
    /* a context's share of each pool: a quarter */
    g_assert_cmpuint(GUINT16_FROM_LE(da.ctx_recv_pool), ==,
                     SNIC_DEFAULT_RECV_POOL / 4);
    g_assert_cmpuint(da.ctx_rpc_slots, ==, SNIC_RPC_SLOTS / 4);
    g_assert_cmpuint(da.ctx_rpc_stage, ==, SNIC_RPC_STAGE_BUFS / 4);
    g_assert_cmpuint(da.qp_rpc_stage, ==, SNIC_RPC_STAGE_PER_QP);
    g_assert_cmpuint(da.ctx_kernels, ==, SNIC_KERNEL_MAX_DEPLOYED / 4);
    g_assert_cmpuint(da.ctx_mcast_grp, ==, SNIC_MAX_MCAST_GRP / 4);
    g_assert_cmpuint(da.ctx_mcast_qp_attach, ==, SNIC_MAX_MCAST_QP_ATTACH / 4);
    g_assert_cmpuint(da.ctx_pool_div, ==, 4);
    g_assert_cmphex(GUINT32_FROM_LE(da.builtin_kernels), ==,
                    1u << SNIC_KERNEL_TRAVERSAL |
                    1u << SNIC_KERNEL_CONSISTENCY);
    g_assert_cmpuint(GUINT32_FROM_LE(da.qp_state_bytes), ==, sizeof(SnicQp));
    g_assert_cmpuint(da.rpc_opmap, ==, SNIC_RPC_OPMAP_STROM);
    g_assert_cmphex(GUINT64_FROM_LE(da.caps) & SNIC_CAP_RPC, ==,
                    SNIC_CAP_RPC);
    fake_host_free(u.h);
    node_pair_free(sim, &a, &b);
}

/* ---- the wire ---- */

/* Every frame of a capture: op-code and BTH TVer, parsed by snic. */
static unsigned pcap_frames(const char *path, uint8_t *ops, uint8_t *tvers,
                            unsigned max)
{
    g_autofree char *data = NULL;
    gsize len, off = 24;
    unsigned n = 0;

    g_assert_true(g_file_get_contents(path, &data, &len, NULL));
    while (off + 16 <= len && n < max) {
        uint32_t cap;
        SnicPkt p;

        memcpy(&cap, data + off + 8, 4);
        off += 16;
        g_assert_cmpint(snic_wire_parse((uint8_t *)data + off, cap, &p), ==,
                        SNIC_PARSE_OK);
        ops[n] = p.opcode;
        tvers[n] = data[off + 14 + 20 + 8 + 1] & 0xf;  /* IPv4, no VLAN */
        n++;
        off += cap;
    }
    return n;
}

/*
 * RPC Params and RPC WRITE First/Middle/Last/Only go out with the map's
 * op-codes and TVer 1; the answers are standard WRITEs (TVer 0). Under
 * the IBA 1.5 map RPC WRITE Only is 0x1E; a peer on the other map
 * refuses it like any unsupported request.
 */
static void wire_map(uint8_t map, uint8_t wo)
{
    g_autofree char *dir = g_dir_make_tmp("snic-rpc-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "rpc.pcap", NULL);
    NodeDev dev = { .cfg.rpc_opmap = map };
    SnicSim *sim = snic_sim_new(3);
    uint8_t ops[256], tvers[256];
    bool seen[256] = { false };
    static const uint64_t keys[] = { 5 };
    struct snic_traversal_params p = rpc_list_params(DS, 5, 64);
    RpcCqes q = { 0 };
    unsigned n, i;
    Node a, b;
    RpcReq r;

    g_assert_cmpint(snic_sim_capture(sim, path), ==, 0);
    rpc_pair_new(sim, &a, &b, &wire, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE,
                 SNIC_QP_RPC_ENABLE, &dev, &dev);
    g_assert_cmpuint(rpc_deploy(&b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_deploy(&b, OP_SUM, KERNEL_SUM), ==, SNIC_ADMIN_OK);
    rpc_build_list(&b, DS, keys, 1, VALUES, 64, 1);
    for (i = 0; i < 3; i++) {
        node_post_recv(&a, i, BUF, 0);
    }
    r = trav_req(&b, &p, 64, 1);
    rpc_post(&a, 1, &r);
    r = (RpcReq) { .wr = SNIC_WR_RPC_WRITE, .rpc_opcode = OP_SUM,
                   .rkey = b.lkey, .src = BUF, .len = 3000,
                   .resp_addr = RESP + 64, .resp_len = 8, .tag = 2 };
    node_fill(&a, BUF, 3000, 1);
    node_wr64(&a, BUF, VALUES + 0x1000);
    rpc_post(&a, 2, &r);
    r.len = 100;
    r.tag = 3;
    rpc_post(&a, 3, &r);
    g_assert_true(rpc_run_until_answers(sim, &a, &q, 3, 1000000));
    snic_sim_run(sim, 1000000);
    for (i = 0; i < 3; i++) {
        g_assert_cmpuint(rpc_cqe_status(&q.answer[i]), ==, SNIC_RPC_OK);
    }
    g_assert_cmpuint(q.sends, ==, 3);
    g_assert_cmpuint(q.send_errors, ==, 0);
    /* the kernel's own answer and its write to b's memory agree */
    g_assert_cmphex(node_rd64(&a, RESP + 64), ==, node_rd64(&b, VALUES + 0x1000));
    g_assert_cmpmem(fake_ptr(a.h, RESP, 64), 64, fake_ptr(b.h, VALUES, 64), 64);
    node_pair_free(sim, &a, &b);    /* closes the capture */

    n = pcap_frames(path, ops, tvers, G_N_ELEMENTS(ops));
    for (i = 0; i < n; i++) {
        const struct snic_opcode_info *info = snic_opcode_info(ops[i]);

        g_assert_cmpuint(tvers[i], ==,
                         info->flags & SNIC_OPF_EXT ? SNIC_BTH_TVER_EXT : 0);
        seen[ops[i]] = true;
    }
    g_assert_true(seen[0x18] && seen[0x19] && seen[0x1a] && seen[0x1b]);
    g_assert_true(seen[wo]);
    g_assert_false(seen[wo == 0x1c ? 0x1e : 0x1c]);
    g_assert_true(seen[SNIC_OP_RC_WRITE_ONLY_IMM]);     /* the answers */
    g_unlink(path);
    g_rmdir(dir);
}

static void test_wire_strom(void)
{
    wire_map(SNIC_RPC_OPMAP_STROM, 0x1c);
}

static void test_wire_iba15(void)
{
    wire_map(SNIC_RPC_OPMAP_IBA15, 0x1e);
}

/* A requester on one map, a responder on the other: refused, not run. */
static void test_wire_map_mismatch(void)
{
    NodeDev strom = { .cfg.rpc_opmap = SNIC_RPC_OPMAP_STROM };
    NodeDev iba15 = { .cfg.rpc_opmap = SNIC_RPC_OPMAP_IBA15 };
    SnicSim *sim = snic_sim_new(4);
    RpcCqes q = { 0 };
    Node a, b;
    RpcReq r = { .wr = SNIC_WR_RPC_WRITE, .rpc_opcode = OP_SUM, .src = BUF,
                 .len = 100, .resp_addr = RESP, .resp_len = 8 };

    rpc_pair_new(sim, &a, &b, &wire, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE,
                 SNIC_QP_RPC_ENABLE, &strom, &iba15);
    r.rkey = b.lkey;
    rpc_post(&a, 1, &r);
    snic_sim_run(sim, 1000000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.send_errors, ==, 1);
    g_assert_cmpuint(q.send_status, ==, SNIC_WC_REM_INV_REQ_ERR);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
    node_pair_free(sim, &a, &b);
}

/* ---- hostile input ---- */

/* The responder did not enable RPC: invalid request NAK, both fail. */
static void test_responder_not_enabled(void)
{
    struct snic_traversal_params p = rpc_list_params(DS, 1, 64);
    SnicSim *sim = snic_sim_new(5);
    struct snic_aeqe e;
    RpcCqes q = { 0 };
    Node a, b;
    RpcReq r;

    rpc_pair_new(sim, &a, &b, &wire, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE, 0,
                 NULL, NULL);
    g_assert_cmpuint(rpc_deploy(&b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
    r = trav_req(&b, &p, 64, 1);
    rpc_post(&a, 1, &r);
    snic_sim_run(sim, 1000000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.send_status, ==, SNIC_WC_REM_INV_REQ_ERR);
    g_assert_cmpuint(q.answers, ==, 0);
    g_assert_true(fake_aeq_poll(b.h, &e));
    g_assert_cmpuint(GUINT32_FROM_LE(e.event), ==, SNIC_EVENT_QP_REQ_ERR);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_RPC_ACCEPT], ==, 0);
    node_pair_free(sim, &a, &b);
}

/* The requester did not: the WQE fails locally, nothing goes out. */
static void test_requester_not_enabled(void)
{
    struct snic_traversal_params p = rpc_list_params(DS, 1, 64);
    SnicSim *sim = snic_sim_new(6);
    RpcCqes q = { 0 };
    Node a, b;
    RpcReq r;

    rpc_pair_new(sim, &a, &b, &wire, SNIC_MTU_1024, 0, SNIC_QP_RPC_ENABLE,
                 NULL, NULL);
    r = trav_req(&b, &p, 64, 1);
    rpc_post(&a, 1, &r);
    snic_sim_run(sim, 1000000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.send_status, ==, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(FAKE_STAT(a.h, rdma_tx_packets), ==, 0);
    g_assert_cmpuint(fake_guest_errors_matching(a.h, "not valid"), ==, 1);
    node_pair_free(sim, &a, &b);
}

/*
 * No kernel for the op-code (never deployed, undeployed, deployed for
 * another context) and no fallback: the answer says NO_KERNEL, and the
 * connection goes on.
 */
static void test_no_kernel(void)
{
    static const uint64_t keys[] = { 1 };
    struct snic_traversal_params p = rpc_list_params(DS, 1, 64);
    SnicSim *sim = snic_sim_new(7);
    struct snic_admin_cmd cmd;
    RpcCqes q = { 0 };
    Node a, b;
    RpcReq r;

    pair(sim, &a, &b, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE);
    rpc_build_list(&b, DS, keys, 1, VALUES, 64, 1);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_DEPLOY_KERNEL,
                        sizeof(cmd.deploy_kernel));
    cmd.deploy_kernel.rpc_opcode = GUINT64_TO_LE(OP_NONE);
    cmd.deploy_kernel.ctx = GUINT16_TO_LE(3);   /* a user context's */
    cmd.deploy_kernel.kernel_id = GUINT16_TO_LE(SNIC_KERNEL_TRAVERSAL);
    g_assert_cmpuint(admin(&b, &cmd), ==, SNIC_ADMIN_OK);
    r = trav_req(&b, &p, 64, 1);
    r.rpc_opcode = OP_NONE;
    node_post_recv(&a, 1, BUF, 0);
    rpc_post(&a, 1, &r);
    r = trav_req(&b, &p, 64, 2);
    node_post_recv(&a, 2, BUF, 0);
    rpc_post(&a, 2, &r);
    g_assert_true(rpc_run_until_answers(sim, &a, &q, 2, 1000000));
    g_assert_cmpuint(rpc_cqe_tag(&q.answer[0]), ==, 1);
    g_assert_cmpuint(rpc_cqe_status(&q.answer[0]), ==, SNIC_RPC_NO_KERNEL);
    g_assert_cmpuint(GUINT32_FROM_LE(q.answer[0].byte_len), ==, 0);
    g_assert_cmpuint(rpc_cqe_status(&q.answer[1]), ==, SNIC_RPC_OK);
    g_assert_cmpuint(rpc_undeploy(&b, OP_TRAV), ==, SNIC_ADMIN_OK);
    r = trav_req(&b, &p, 64, 3);
    node_post_recv(&a, 3, BUF, 0);
    rpc_post(&a, 3, &r);
    g_assert_true(rpc_run_until_answers(sim, &a, &q, 3, 1000000));
    g_assert_cmpuint(rpc_cqe_status(&q.answer[2]), ==, SNIC_RPC_NO_KERNEL);
    snic_sim_run(sim, 1000000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.sends, ==, 3);
    g_assert_cmpuint(q.send_errors, ==, 0);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_RTS);
    node_pair_free(sim, &a, &b);
}

/*
 * Params over one MTU: refused locally by the requester, and by the
 * responder when a requester with a larger path MTU sends them anyway.
 */
static void test_params_over_mtu(void)
{
    SnicSim *sim = snic_sim_new(8);
    RpcCqes q = { 0 };
    Node a, b;
    RpcReq r = { .wr = SNIC_WR_RPC, .rpc_opcode = OP_TRAV, .src = BUF,
                 .resp_addr = RESP, .resp_len = 64 };

    pair(sim, &a, &b, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE);
    r.rkey = b.lkey;
    r.len = 1024 - SNIC_RPC_HDR_LEN + 1;
    rpc_post(&a, 1, &r);
    snic_sim_run(sim, 1000000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.send_status, ==, SNIC_WC_LOC_LEN_ERR);
    node_pair_free(sim, &a, &b);

    /* a speaks MTU 4096, b expects 1024 */
    sim = snic_sim_new(9);
    memset(&q, 0, sizeof(q));
    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &wire);
    g_assert_cmpuint(rpc_set(&a, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_set(&b, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    g_assert_cmpuint(rpc_deploy(&b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
    r.rkey = b.lkey;
    r.len = 2000;
    rpc_post(&a, 1, &r);
    snic_sim_run(sim, 1000000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.send_status, ==, SNIC_WC_REM_INV_REQ_ERR);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_RPC_ACCEPT], ==, 0);
    node_pair_free(sim, &a, &b);
}

/*
 * The requester names a response buffer its own region does not allow:
 * its responder NAKs the answer (remote access error) and fails, the
 * responding QP fails with SNIC_EVENT_QP_RPC_ERR (no WQE stands for the
 * answer), and the responding device goes on serving its other QPs.
 */
static void test_bad_response_rkey(void)
{
    static const uint64_t keys[] = { 1 };
    struct snic_traversal_params p = rpc_list_params(DS, 1, 64);
    SnicSim *sim = snic_sim_new(10);
    bool qp_access = false, rpc_err = false;
    RpcCqes q = { 0 }, q2 = { 0 };
    Node a, b, a2, b2;
    struct snic_aeqe e;
    RpcReq r;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &wire);
    node_create_srq(&a, 0);
    node_create_srq(&b, 0);
    node_add_qp(&a2, &a);
    node_add_qp(&b2, &b);
    g_assert_cmpuint(rpc_set(&a, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_set(&b, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_set(&a2, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_set(&b2, SNIC_QP_RPC_ENABLE), ==, SNIC_ADMIN_OK);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    node_connect(&a2, &b2, SNIC_MTU_1024, 7, 7);
    node_connect(&b2, &a2, SNIC_MTU_1024, 7, 7);
    g_assert_cmpuint(rpc_deploy(&b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
    rpc_build_list(&b, DS, keys, 1, VALUES, 64, 1);
    r = trav_req(&b, &p, 64, 1);
    r.resp_rkey = a.lkey + 1;       /* a stale key byte */
    node_post_recv(&a, 1, BUF, 0);
    rpc_post(&a, 1, &r);
    snic_sim_run(sim, 1000000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(a.h->core->qps[a.qpn].state, ==, SNIC_QPS_ERR);
    g_assert_cmpuint(b.h->core->qps[b.qpn].state, ==, SNIC_QPS_ERR);
    while (fake_aeq_poll(a.h, &e)) {
        qp_access |= GUINT32_FROM_LE(e.event) == SNIC_EVENT_QP_ACCESS_ERR;
    }
    while (fake_aeq_poll(b.h, &e)) {
        rpc_err |= GUINT32_FROM_LE(e.event) == SNIC_EVENT_QP_RPC_ERR &&
                   GUINT64_FROM_LE(e.data) == b.qpn;
    }
    g_assert_true(qp_access);
    g_assert_true(rpc_err);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_RPC_REFUSED], ==, 1);
    /* the other connection of the same devices still gets answers */
    r = trav_req(&b, &p, 64, 2);
    node_post_srq_recv(&a, 2, BUF, 0, a.lkey);
    rpc_post(&a2, 2, &r);
    g_assert_true(rpc_run_until_answers(sim, &a, &q2, 1, 1000000));
    g_assert_cmpuint(rpc_cqe_status(&q2.answer[0]), ==, SNIC_RPC_OK);
    g_assert_cmpuint(GUINT32_FROM_LE(q2.answer[0].qpn), ==, a2.qpn);
    g_assert_cmpmem(fake_ptr(a.h, RESP, 64), 64, fake_ptr(b.h, VALUES, 64), 64);
    node_pair_free(sim, &a, &b);
}

/* ---- fallback ---- */

/*
 * No kernel, SNIC_QP_RPC_FALLBACK: the responder's receive queue gets the
 * RPC (struct snic_rpc_recv, then the params), for RPC Params and for a
 * multi-packet RPC WRITE; waiting for a receive WQE is an RNR wait. The
 * handler answers with an ordinary WRITE with immediate.
 */
static void test_fallback(void)
{
    SnicSim *sim = snic_sim_new(11);
    uint8_t params[100];
    struct snic_rpc_recv d;
    struct snic_cqe c;
    RpcCqes q = { 0 };
    unsigned i;
    Node a, b;
    RpcReq r;

    pair(sim, &a, &b, SNIC_MTU_1024,
         SNIC_QP_RPC_ENABLE | SNIC_QP_RPC_FALLBACK);
    for (i = 0; i < sizeof(params); i++) {
        params[i] = i ^ 0x5a;
    }
    r = (RpcReq) { .wr = SNIC_WR_RPC, .rpc_opcode = OP_NONE,
                   .rkey = 0x1234, .params = params, .len = sizeof(params),
                   .resp_addr = RESP, .resp_len = 512, .tag = 0xabcdef };
    node_post_recv(&a, 1, BUF, 0);
    rpc_post(&a, 1, &r);
    snic_sim_run(sim, 100000);      /* no receive WQE at b: RNR waits */
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RNR_WAIT], >, 0);
    node_post_recv(&b, 0xb1, BUF + 0x1000, 4096);
    snic_sim_run(sim, 1000000);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV_RPC);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0xb1);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==,
                     sizeof(d) + sizeof(params));
    fake_read(b.h, BUF + 0x1000, &d, sizeof(d));
    g_assert_cmphex(GUINT64_FROM_LE(d.rpc_opcode), ==, OP_NONE);
    g_assert_cmphex(GUINT32_FROM_LE(d.rkey), ==, 0x1234);
    g_assert_cmpuint(GUINT32_FROM_LE(d.param_len), ==, sizeof(params));
    g_assert_cmphex(GUINT64_FROM_LE(d.hdr.resp_addr), ==, RESP);
    g_assert_cmphex(GUINT32_FROM_LE(d.hdr.resp_rkey), ==, a.lkey);
    g_assert_cmpuint(GUINT32_FROM_LE(d.hdr.resp_len), ==, 512);
    g_assert_cmphex(GUINT32_FROM_LE(d.hdr.tag), ==, 0xabcdef);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1000 + sizeof(d), sizeof(params)),
                    sizeof(params), params, sizeof(params));
    /* the handler answers: 16 bytes and its status */
    node_fill(&b, BUF + 0x8000, 16, 9);
    node_post_send(&b, 0xb2, SNIC_WR_RDMA_WRITE_IMM, BUF + 0x8000, 16,
                   GUINT64_FROM_LE(d.hdr.resp_addr),
                   GUINT32_FROM_LE(d.hdr.resp_rkey),
                   SNIC_RPC_IMM(SNIC_RPC_NOT_FOUND,
                                GUINT32_FROM_LE(d.hdr.tag)), b.lkey);
    g_assert_true(rpc_run_until_answers(sim, &a, &q, 1, 1000000));
    g_assert_cmpuint(rpc_cqe_status(&q.answer[0]), ==, SNIC_RPC_NOT_FOUND);
    g_assert_cmpuint(rpc_cqe_tag(&q.answer[0]), ==, 0xabcdef);
    g_assert_cmpmem(fake_ptr(a.h, RESP, 16), 16,
                    fake_ptr(b.h, BUF + 0x8000, 16), 16);
    /* RPC WRITE of 10000 bytes: First, Middles, Last into one receive */
    node_fill(&a, BUF + 0x10000, 10000, 3);
    r = (RpcReq) { .wr = SNIC_WR_RPC_WRITE, .rpc_opcode = OP_NONE,
                   .rkey = 1, .src = BUF + 0x10000, .len = 10000,
                   .resp_addr = RESP, .resp_len = 0, .tag = 9 };
    rpc_post(&a, 2, &r);
    node_post_recv(&b, 0xb3, BUF + 0x20000, 16384);
    snic_sim_run(sim, 1000000);
    while (node_poll_cq(&b, &c) && c.opcode != SNIC_WC_RECV_RPC) {
        /* b's WRITE completion */
    }
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV_RPC);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 0xb3);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, sizeof(d) + 10000);
    fake_read(b.h, BUF + 0x20000, &d, sizeof(d));
    g_assert_cmpuint(GUINT32_FROM_LE(d.param_len), ==, 10000);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x20000 + sizeof(d), 10000), 10000,
                    fake_ptr(a.h, BUF + 0x10000, 10000), 10000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.send_errors, ==, 0);
    node_pair_free(sim, &a, &b);
}

/* ---- answers on a lossy wire ---- */

/*
 * Traversal answers of 3000 bytes (3 segments at MTU 1024) and
 * consistency answers of 10000 bytes (10 segments), 8 at a time, over a
 * wire that drops, duplicates and reorders 5 % of frames: every answer
 * arrives whole and right, and answers were sent again.
 */
static void test_lossy(void)
{
    SnicSimLinkConfig lossy = wire;
    SnicSim *sim = snic_sim_new(12);
    const unsigned rounds = 8, per = 8, n = rounds * per;
    uint64_t keys[16];
    RpcCqes q = { 0 };
    unsigned i, j;
    Node a, b;

    lossy.loss = 0.05;
    lossy.dup = 0.02;
    lossy.reorder = 0.02;
    if (g_getenv("SNIC_PCAP_DIR")) {
        /* tests/tshark/check-engine-pcaps.sh reads it with Wireshark */
        g_autofree char *path = g_build_filename(g_getenv("SNIC_PCAP_DIR"),
                                                 "rpc-lossy.pcap", NULL);

        g_assert_cmpint(snic_sim_capture(sim, path), ==, 0);
    }
    rpc_pair_new(sim, &a, &b, &lossy, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE,
                 SNIC_QP_RPC_ENABLE, NULL, NULL);
    g_assert_cmpuint(rpc_deploy(&b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_deploy(&b, OP_CONS, SNIC_KERNEL_CONSISTENCY), ==,
                     SNIC_ADMIN_OK);
    for (i = 0; i < 16; i++) {
        keys[i] = 1000 + i;
    }
    rpc_build_list(&b, DS, keys, 16, VALUES, 3000, 40);
    rpc_build_object(&b, BUF + 0x80000, 10000, 41);
    for (i = 0; i < rounds; i++) {
        for (j = 0; j < per; j++) {
            unsigned t = i * per + j;
            struct snic_traversal_params p = rpc_list_params(DS,
                                                             keys[t % 16],
                                                             3000);
            struct snic_consistency_params cp = {
                .remote_address = GUINT64_TO_LE(BUF + 0x80000),
                .object_size = GUINT32_TO_LE(10000),
            };
            RpcReq r = trav_req(&b, &p, 3000, t);

            r.resp_addr = RESP + 0x4000ull * t;
            if (t % 4 == 3) {
                r.rpc_opcode = OP_CONS;
                r.params = &cp;
                r.len = sizeof(cp);
                r.resp_len = 10000;
            }
            node_post_recv(&a, t, BUF, 0);
            rpc_post(&a, t, &r);
        }
        g_assert_true(rpc_run_until_answers(sim, &a, &q, (i + 1) * per,
                                            20000000));
    }
    snic_sim_run(sim, 20000000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.answers, ==, n);
    g_assert_cmpuint(q.sends, ==, n);
    g_assert_cmpuint(q.send_errors, ==, 0);
    for (i = 0; i < n; i++) {
        const struct snic_cqe *c = &q.answer[i];
        unsigned t = rpc_cqe_tag(c);
        uint64_t at = RESP + 0x4000ull * t;

        g_assert_cmpuint(rpc_cqe_status(c), ==, SNIC_RPC_OK);
        if (t % 4 == 3) {
            g_assert_cmpuint(GUINT32_FROM_LE(c->byte_len), ==, 10000);
            g_assert_cmpmem(fake_ptr(a.h, at, 10000), 10000,
                            fake_ptr(b.h, BUF + 0x80000, 10000), 10000);
        } else {
            g_assert_cmpuint(GUINT32_FROM_LE(c->byte_len), ==, 3000);
            g_assert_cmpmem(fake_ptr(a.h, at, 3000), 3000,
                            fake_ptr(b.h, VALUES + 3000ull * (t % 16), 3000),
                            3000);
        }
    }
    g_assert_cmpuint(snic_sim_link_stats(sim, b.h->port.ep,
                                         a.h->port.ep)->lost, >, 0);
    g_assert_cmpuint(b.h->events[SNIC_TRACE_RETRANSMIT], >, 0);
    /* every slot is back once the answers were acknowledged */
    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        g_assert_cmpuint(b.h->core->rpc->slots[i].state, ==, SNIC_RPC_FREE);
    }
    g_assert_cmpuint(b.h->core->qps[b.qpn].rpc.slots, ==, 0);
    node_pair_free(sim, &a, &b);
}

/*
 * Both ends call each other's kernels while their SQs carry WRITEs and
 * READs, on a lossy wire: the answers a device sends sit between its own
 * SQ messages in its PSNs, where its requester (which keeps no table of
 * its WQEs) must step over them when it completes, resends or matches
 * responses. Every WQE completes in order with the right data, every
 * answer arrives whole.
 */
static void test_answers_between_sq_messages(void)
{
    SnicSimLinkConfig lossy = wire;
    SnicSim *sim = snic_sim_new(15);
    const unsigned rounds = 6, per = 4;
    Node *nodes[2], a, b;
    RpcCqes q[2] = { { 0 } };
    uint64_t keys[8];
    unsigned i, j, s, rpcs = 0;

    lossy.loss = 0.05;
    lossy.reorder = 0.02;
    rpc_pair_new(sim, &a, &b, &lossy, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE,
                 SNIC_QP_RPC_ENABLE, NULL, NULL);
    nodes[0] = &a;
    nodes[1] = &b;
    for (i = 0; i < 8; i++) {
        keys[i] = 500 + i;
    }
    for (s = 0; s < 2; s++) {
        g_assert_cmpuint(rpc_deploy(nodes[s], OP_TRAV, SNIC_KERNEL_TRAVERSAL),
                         ==, SNIC_ADMIN_OK);
        rpc_build_list(nodes[s], DS, keys, 8, VALUES, 2000, 60 + s);
        node_fill(nodes[s], BUF + 0x300000, 0x10000, 70 + s);
    }
    for (i = 0; i < rounds; i++) {
        for (s = 0; s < 2; s++) {
            Node *n = nodes[s], *peer = nodes[!s];

            for (j = 0; j < per; j++) {
                unsigned t = i * per + j;
                struct snic_traversal_params p = rpc_list_params(DS,
                                                                 keys[t % 8],
                                                                 2000);
                RpcReq r = trav_req(peer, &p, 2000, t);
                uint64_t off = 0x800ull * t;

                r.resp_addr = RESP + off;
                node_post_recv(n, t, BUF, 0);
                rpc_post(n, 1000 + t, &r);
                /* a WRITE and a READ of the SQ's own, between the RPCs */
                node_post_send(n, 2000 + t, t % 2 ? SNIC_WR_RDMA_READ :
                               SNIC_WR_RDMA_WRITE, BUF + 0x300000 + off, 1500,
                               BUF + 0x380000 + off, peer->lkey, 0, n->lkey);
                rpcs++;
            }
        }
        g_assert_true(rpc_run_until_answers(sim, &a, &q[0], (i + 1) * per,
                                            20000000));
        g_assert_true(rpc_run_until_answers(sim, &b, &q[1], (i + 1) * per,
                                            20000000));
    }
    snic_sim_run(sim, 20000000);
    for (s = 0; s < 2; s++) {
        Node *n = nodes[s], *peer = nodes[!s];

        rpc_drain(n, &q[s]);
        g_assert_cmpuint(q[s].answers, ==, rounds * per);
        g_assert_cmpuint(q[s].sends, ==, 2 * rounds * per);
        g_assert_cmpuint(q[s].send_errors, ==, 0);
        for (i = 0; i < q[s].answers; i++) {
            const struct snic_cqe *c = &q[s].answer[i];
            unsigned t = rpc_cqe_tag(c);

            g_assert_cmpuint(rpc_cqe_status(c), ==, SNIC_RPC_OK);
            g_assert_cmpmem(fake_ptr(n->h, RESP + 0x800ull * t, 2000), 2000,
                            fake_ptr(peer->h, VALUES + 2000ull * (t % 8),
                                     2000), 2000);
        }
        for (i = 0; i < rounds * per; i++) {
            uint64_t off = 0x800ull * i;

            /* WRITEs land at the peer, READs bring the peer's bytes */
            if (i % 2) {
                g_assert_cmpmem(fake_ptr(n->h, BUF + 0x300000 + off, 1500),
                                1500, fake_ptr(peer->h, BUF + 0x380000 + off,
                                               1500), 1500);
            } else {
                g_assert_cmpmem(fake_ptr(peer->h, BUF + 0x380000 + off,
                                         1500), 1500,
                                fake_ptr(n->h, BUF + 0x300000 + off, 1500),
                                1500);
            }
        }
        g_assert_cmpuint(n->h->core->qps[n->qpn].state, ==, SNIC_QPS_RTS);
        g_assert_cmpuint(n->h->core->qps[n->qpn].rpc.slots, ==, 0);
    }
    g_assert_cmpuint(a.h->events[SNIC_TRACE_RETRANSMIT] +
                     b.h->events[SNIC_TRACE_RETRANSMIT], >, 0);
    g_assert_cmpuint(rpcs, ==, 2 * rounds * per);
    node_pair_free(sim, &a, &b);
}

/*
 * A long walk yields: a one-element lookup that reaches the device
 * together with a 200-element one (an instant wire: the engine has not
 * run in between) is answered first, and both answers carry their tags.
 */
static void test_long_walk_yields(void)
{
    static const SnicSimLinkConfig instant;
    SnicSim *sim = snic_sim_new(13);
    uint64_t keys[200];
    RpcCqes q = { 0 };
    unsigned i;
    Node a, b;

    rpc_pair_new(sim, &a, &b, &instant, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE,
                 SNIC_QP_RPC_ENABLE, NULL, NULL);
    g_assert_cmpuint(rpc_deploy(&b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
    for (i = 0; i < 200; i++) {
        keys[i] = i + 1;
    }
    rpc_build_list(&b, DS, keys, 200, VALUES, 64, 1);
    for (i = 0; i < 2; i++) {
        struct snic_traversal_params p = rpc_list_params(DS, i ? 1 : 200, 64);
        RpcReq r = trav_req(&b, &p, 64, 100 + i);

        r.resp_addr = RESP + 64 * i;
        node_post_recv(&a, i, BUF, 0);
        rpc_post(&a, i, &r);
    }
    g_assert_true(rpc_run_until_answers(sim, &a, &q, 2, 1000000));
    g_assert_cmpuint(rpc_cqe_tag(&q.answer[0]), ==, 101);
    g_assert_cmpuint(rpc_cqe_tag(&q.answer[1]), ==, 100);
    g_assert_cmpmem(fake_ptr(a.h, RESP, 64), 64,
                    fake_ptr(b.h, VALUES + 199 * 64, 64), 64);
    g_assert_cmpmem(fake_ptr(a.h, RESP + 64, 64), 64,
                    fake_ptr(b.h, VALUES, 64), 64);
    node_pair_free(sim, &a, &b);
}

/*
 * A QP that fails while its RPCs wait on the modelled PCIe round trip
 * gives their slots back; nothing is answered.
 */
static void test_error_frees_slots(void)
{
    NodeDev slow = { .timing.pcie_rtt_ns = 100000 };
    static const uint64_t keys[] = { 1, 2, 3 };
    struct snic_traversal_params p = rpc_list_params(DS, 3, 64);
    SnicSim *sim = snic_sim_new(14);
    struct snic_qp_attr at = { .qp_state = GUINT32_TO_LE(SNIC_QPS_ERR) };
    RpcCqes q = { 0 };
    unsigned i, busy = 0;
    Node a, b;

    rpc_pair_new(sim, &a, &b, &wire, SNIC_MTU_1024, SNIC_QP_RPC_ENABLE,
                 SNIC_QP_RPC_ENABLE, NULL, &slow);
    g_assert_cmpuint(rpc_deploy(&b, OP_TRAV, SNIC_KERNEL_TRAVERSAL), ==,
                     SNIC_ADMIN_OK);
    rpc_build_list(&b, DS, keys, 3, VALUES, 64, 1);
    for (i = 0; i < 4; i++) {
        RpcReq r = trav_req(&b, &p, 64, i);

        node_post_recv(&a, i, BUF, 0);
        rpc_post(&a, i, &r);
    }
    snic_sim_run_until(sim, snic_sim_now(sim) + 50000);
    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        busy += b.h->core->rpc->slots[i].state == SNIC_RPC_RUNNING;
    }
    g_assert_cmpuint(busy, ==, 4);
    node_modify(&b, SNIC_QP_ATTR_STATE, &at);
    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        g_assert_cmpuint(b.h->core->rpc->slots[i].state, ==, SNIC_RPC_FREE);
    }
    snic_sim_run(sim, 100000);
    rpc_drain(&a, &q);
    g_assert_cmpuint(q.answers, ==, 0);
    node_pair_free(sim, &a, &b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_assert_true(snic_kernel_register(&sum_kernel));
    g_assert_false(snic_kernel_register(&sum_kernel));  /* id taken */
    g_test_add_func("/rpc/admin", test_admin);
    g_test_add_func("/rpc/admin/numbered-program",
                    test_admin_rpc_numbered_program);
    g_test_add_func("/rpc/wire/strom-map", test_wire_strom);
    g_test_add_func("/rpc/wire/iba15-map", test_wire_iba15);
    g_test_add_func("/rpc/wire/map-mismatch", test_wire_map_mismatch);
    g_test_add_func("/rpc/hostile/responder-not-enabled",
                    test_responder_not_enabled);
    g_test_add_func("/rpc/hostile/requester-not-enabled",
                    test_requester_not_enabled);
    g_test_add_func("/rpc/hostile/no-kernel", test_no_kernel);
    g_test_add_func("/rpc/hostile/params-over-mtu", test_params_over_mtu);
    g_test_add_func("/rpc/hostile/bad-response-rkey", test_bad_response_rkey);
    g_test_add_func("/rpc/fallback", test_fallback);
    g_test_add_func("/rpc/lossy", test_lossy);
    g_test_add_func("/rpc/long-walk-yields", test_long_walk_yields);
    g_test_add_func("/rpc/answers-between-sq-messages",
                    test_answers_between_sq_messages);
    g_test_add_func("/rpc/error-frees-slots", test_error_frees_slots);
    return g_test_run();
}
