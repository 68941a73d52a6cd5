/*
 * StRoM RPC helpers for the two-node harness (rpc-node.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "strom/crc64.h"
#include "rpc-node.h"

uint16_t rpc_set(Node *n, uint32_t flags)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_RPC, sizeof(cmd.set_qp_rpc));
    cmd.set_qp_rpc.qpn = GUINT32_TO_LE(n->qpn);
    cmd.set_qp_rpc.flags = GUINT32_TO_LE(flags);
    return fake_admin(n->h, &cmd, NULL);
}

void rpc_pair_new(SnicSim *sim, Node *a, Node *b,
                  const SnicSimLinkConfig *link, uint8_t mtu,
                  uint32_t flags_a, uint32_t flags_b,
                  const NodeDev *dev_a, const NodeDev *dev_b)
{
    node_init_dev(a, sim, 1, dev_a);
    node_init_dev(b, sim, 2, dev_b);
    snic_sim_port_connect(&a->h->port, &b->h->port, link);
    g_assert_cmpuint(rpc_set(a, flags_a), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(rpc_set(b, flags_b), ==, SNIC_ADMIN_OK);
    node_connect(a, b, mtu, 7, 7);
    node_connect(b, a, mtu, 7, 7);
}

static uint16_t deploy_cmd(Node *n, uint8_t opcode, uint64_t rpc_opcode,
                           uint16_t kernel_id)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, opcode, sizeof(cmd.deploy_kernel));
    cmd.deploy_kernel.rpc_opcode = GUINT64_TO_LE(rpc_opcode);
    cmd.deploy_kernel.ctx = GUINT16_TO_LE(n->ctx);
    cmd.deploy_kernel.kernel_id = GUINT16_TO_LE(kernel_id);
    return fake_admin(n->h, &cmd, NULL);
}

uint16_t rpc_deploy(Node *n, uint64_t rpc_opcode, uint16_t kernel_id)
{
    return deploy_cmd(n, SNIC_ADMIN_DEPLOY_KERNEL, rpc_opcode, kernel_id);
}

uint16_t rpc_undeploy(Node *n, uint64_t rpc_opcode)
{
    return deploy_cmd(n, SNIC_ADMIN_UNDEPLOY_KERNEL, rpc_opcode, 0);
}

void rpc_post(Node *n, uint64_t wr_id, const RpcReq *r)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = r->wr;
    w.flags = SNIC_WQE_SIGNALED;
    w.rpc.rpc_opcode = GUINT64_TO_LE(r->rpc_opcode);
    w.rpc.rkey = GUINT32_TO_LE(r->rkey);
    w.rpc.resp_rkey = GUINT32_TO_LE(r->resp_rkey ? r->resp_rkey : n->lkey);
    w.rpc.resp_addr = GUINT64_TO_LE(r->resp_addr);
    w.rpc.resp_len = GUINT32_TO_LE(r->resp_len);
    w.rpc.tag = GUINT32_TO_LE(r->tag);
    if (r->params && r->len <= SNIC_MAX_INLINE_DATA) {
        w.flags |= SNIC_WQE_INLINE;
        w.inline_len = r->len;
        memcpy(w.inline_data, r->params, r->len);
    } else if (r->len) {
        if (r->params) {
            fake_write(n->h, r->src, r->params, r->len);
        }
        w.num_sge = 1;
        w.sge[0].addr = GUINT64_TO_LE(r->src);
        w.sge[0].length = GUINT32_TO_LE(r->len);
        w.sge[0].lkey = GUINT32_TO_LE(r->lkey ? r->lkey : n->lkey);
    }
    node_post_wqe(n, &w);
}

void rpc_drain(Node *n, RpcCqes *q)
{
    struct snic_cqe c;

    while (node_poll_cq(n, &c)) {
        if (c.opcode & SNIC_WC_RECV) {
            g_assert_cmpuint(q->answers, <, G_N_ELEMENTS(q->answer));
            q->answer[q->answers++] = c;
        } else {
            q->sends++;
            if (c.status != SNIC_WC_SUCCESS) {
                q->send_errors++;
                q->send_status = c.status;
            }
        }
    }
}

bool rpc_run_until_answers(SnicSim *sim, Node *n, RpcCqes *q,
                           unsigned answers, uint64_t max_events)
{
    uint64_t ran = 0;

    rpc_drain(n, q);
    while (q->answers < answers && ran < max_events && snic_sim_step(sim)) {
        ran++;
        rpc_drain(n, q);
    }
    return q->answers >= answers;
}

static void put64(Node *n, uint64_t at, uint64_t v)
{
    node_wr64(n, at, v);
}

void rpc_build_list(Node *n, uint64_t at, const uint64_t *keys, unsigned len,
                    uint64_t values, uint32_t value_size, uint32_t seed)
{
    unsigned i;

    for (i = 0; i < len; i++) {
        uint64_t e = at + 64ull * i;

        memset(fake_ptr(n->h, e, 64), 0, 64);
        put64(n, e, keys[i]);
        put64(n, e + 8, i + 1 < len ? e + 64 : 0);
        put64(n, e + 16, values + (uint64_t)i * value_size);
        node_fill(n, values + (uint64_t)i * value_size, value_size, seed + i);
    }
}

struct snic_traversal_params rpc_list_params(uint64_t head, uint64_t key,
                                             uint32_t value_size)
{
    /* StRoM section 6.2: keyMask 1, valuePtrPosition 4, next 2 */
    return (struct snic_traversal_params) {
        .remote_address = GUINT64_TO_LE(head),
        .key = GUINT64_TO_LE(key),
        .value_size = GUINT32_TO_LE(value_size),
        .key_mask = GUINT16_TO_LE(1),
        .predicate = SNIC_TRAV_EQUAL,
        .value_ptr_pos = 4,
        .flags = SNIC_TRAV_NEXT_VALID,
        .next_ptr_pos = 2,
    };
}

void rpc_build_object(Node *n, uint64_t at, uint32_t size, uint32_t seed)
{
    uint64_t crc;

    node_fill(n, at, size - 8, seed);
    crc = snic_crc64(0, fake_ptr(n->h, at, size - 8), size - 8);
    node_wr64(n, at + size - 8, crc);
}
