/*
 * snic core: admin queue (command fetch, dispatch, completion) and the
 * async event queue's configuration (events are posted by services.c).
 * Formats in include/snic/snic_admin.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "cl/cl.h"
#include "strom/hll.h"
#include "strom/kernel.h"
#include "onchip.h"
#include "port/gid.h"
#include "objects/cq.h"
#include "objects/mcast.h"
#include "objects/mr.h"
#include "objects/mw.h"
#include "objects/qp.h"
#include "objects/srq.h"
#include "srnic/sr.h"
#include "transport/transport.h"

#define SNIC_FW_VERSION     0x00010000u

static uint32_t ring_mask(uint32_t log2_depth)
{
    return (1u << log2_depth) - 1;
}

static bool log2_in(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v >= lo && v <= hi;
}

/* A ring of 2^log2 entries: entry-aligned, not wrapping the address space. */
static bool ring_ok(uint64_t base, uint32_t entry_size, uint32_t log2_depth)
{
    uint64_t bytes = (uint64_t)entry_size << log2_depth;

    return base % entry_size == 0 && base + bytes > base;
}

/* Validate the layout written to BAR0 before enable (SNIC_REG_ERROR). */
bool snic_admin_config_ok(SnicCore *c)
{
    if (!log2_in(c->admin_log2_depth, SNIC_ADMIN_MIN_LOG2_DEPTH,
                 SNIC_ADMIN_MAX_LOG2_DEPTH) ||
        !ring_ok(c->admin_sq_base, SNIC_ADMIN_CMD_SIZE, c->admin_log2_depth) ||
        !ring_ok(c->admin_cq_base, SNIC_ADMIN_CQE_SIZE, c->admin_log2_depth)) {
        SNIC_GUEST_ERROR(c, GE_ADMIN_CONFIG, c->admin_sq_base,
                         c->admin_cq_base, c->admin_log2_depth);
        c->error = SNIC_ERR_ADMIN_CONFIG;
        return false;
    }
    /* AEQ base 0 means: no async event queue (events are counted lost). */
    if (c->aeq_base &&
        (!log2_in(c->aeq_log2_depth, SNIC_AEQ_MIN_LOG2_DEPTH,
                  SNIC_AEQ_MAX_LOG2_DEPTH) ||
         !ring_ok(c->aeq_base, SNIC_AEQE_SIZE, c->aeq_log2_depth))) {
        SNIC_GUEST_ERROR(c, GE_AEQ_CONFIG, c->aeq_base, c->aeq_log2_depth);
        c->error = SNIC_ERR_AEQ_CONFIG;
        return false;
    }
    return true;
}

/* True if index lies in [lo, lo + span], in free-running arithmetic. */
static bool index_in_window(uint32_t index, uint32_t lo, uint32_t span)
{
    return (uint32_t)(index - lo) <= span;
}

void snic_admin_doorbell(SnicCore *c, uint8_t type, uint32_t qid,
                         uint32_t index)
{
    uint32_t depth = 1u << c->admin_log2_depth;

    if (qid != 0) {
        SNIC_GUEST_ERROR(c, GE_DB_QUEUE, type, qid);
        goto invalid;
    }
    switch (type) {
    case SNIC_DB_ADMIN_SQ:
        /* forward from the last tail, at most a ring ahead of the head */
        if (!index_in_window(index, c->sq_tail,
                             c->sq_head + depth - c->sq_tail)) {
            SNIC_GUEST_ERROR(c, GE_DB_INDEX, type, qid, index,
                             c->sq_head + depth);
            goto invalid;
        }
        c->sq_tail = index;
        break;
    case SNIC_DB_ADMIN_CQ:
        if (!index_in_window(index, c->cq_head, c->cq_tail - c->cq_head)) {
            SNIC_GUEST_ERROR(c, GE_DB_INDEX, type, qid, index, c->cq_tail);
            goto invalid;
        }
        c->cq_head = index;
        break;
    case SNIC_DB_AEQ:
        if (!c->aeq_base ||
            !index_in_window(index, c->aeq_head, c->aeq_tail - c->aeq_head)) {
            SNIC_GUEST_ERROR(c, GE_DB_INDEX, type, qid, index, c->aeq_tail);
            goto invalid;
        }
        c->aeq_head = index;
        snic_stat_inc(&c->stats.doorbells);
        return;
    }
    snic_stat_inc(&c->stats.doorbells);
    c->ops->kick(c->opaque);
    return;

invalid:
    snic_stat_inc(&c->stats.doorbells_invalid);
}

/* Write 'len' bytes of a response to the buffer a command named. */
static uint16_t snic_admin_respond(SnicCore *c,
                                   const struct snic_admin_resp_buf *rb,
                                   const void *data, size_t len)
{
    uint64_t addr = GUINT64_FROM_LE(rb->resp_addr);
    uint32_t room = GUINT32_FROM_LE(rb->resp_len);

    if (room == 0 || room > 4096) {
        return SNIC_ADMIN_BAD_LENGTH;
    }
    if (addr % 8) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    if (snic_dma_write(c, addr, data, MIN(room, len))) {
        SNIC_GUEST_ERROR(c, GE_ADMIN_RESP_BUF, addr, room);
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    return SNIC_ADMIN_OK;
}

static uint16_t snic_cmd_nop(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    return SNIC_ADMIN_OK;
}

static uint16_t snic_cmd_query_device(SnicCore *c,
                                      const struct snic_admin_cmd *cmd,
                                      uint64_t *result)
{
    struct snic_device_attr a;
    SnicOnchip oc;

    memset(&a, 0, sizeof(a));
    a.magic = GUINT32_TO_LE(SNIC_MAGIC);
    a.abi_version = GUINT32_TO_LE(SNIC_ABI_VERSION);
    a.caps = GUINT64_TO_LE(SNIC_CAPS);
    a.fw_version = GUINT32_TO_LE(SNIC_FW_VERSION);
    a.num_db_pages = GUINT16_TO_LE(c->cfg.num_db_pages);
    a.num_vectors = GUINT16_TO_LE(c->cfg.num_vectors);
    memcpy(a.mac, c->mac, 6);
    a.link_up = c->link_up;
    a.mtu = GUINT32_TO_LE(c->mtu);
    a.min_mtu = GUINT32_TO_LE(SNIC_ETH_MIN_MTU);
    a.max_mtu = GUINT32_TO_LE(SNIC_ETH_MAX_MTU);
    a.max_eth_txqs = GUINT16_TO_LE(SNIC_ETH_MAX_TXQS);
    a.max_eth_rxqs = GUINT16_TO_LE(SNIC_ETH_MAX_RXQS);
    a.eth_min_log2_depth = SNIC_ETH_MIN_LOG2_DEPTH;
    a.eth_max_log2_depth = SNIC_ETH_MAX_LOG2_DEPTH;
    a.admin_max_log2_depth = SNIC_ADMIN_MAX_LOG2_DEPTH;
    a.aeq_max_log2_depth = SNIC_AEQ_MAX_LOG2_DEPTH;
    a.link_speed_mbps = GUINT32_TO_LE(c->cfg.link_speed_mbps);
    a.max_pd = GUINT32_TO_LE(c->cfg.max_pd);
    a.max_mr = GUINT32_TO_LE(c->cfg.max_mr);
    a.max_mr_pages = GUINT32_TO_LE(c->cfg.max_mr_pages);
    a.tlb_entries = GUINT32_TO_LE(c->cfg.tlb_entries);
    a.page_size_cap = GUINT64_TO_LE(1ull << SNIC_PAGE_SHIFT_4K |
                                    1ull << SNIC_PAGE_SHIFT_2M);
    a.max_qp = GUINT32_TO_LE(c->cfg.max_qp);
    a.max_cq = GUINT32_TO_LE(c->cfg.max_cq);
    a.max_eq = GUINT32_TO_LE(c->cfg.max_eq);
    a.max_cqe = GUINT32_TO_LE(1u << SNIC_MAX_CQE_LOG2);
    a.max_qp_wr = GUINT32_TO_LE(1u << SNIC_MAX_QP_WR_LOG2);
    a.max_rd_atomic = SNIC_MAX_RD_ATOMIC;
    a.max_send_sge = SNIC_MAX_SEND_SGE;
    a.max_recv_sge = SNIC_MAX_RECV_SGE;
    a.qp_state_bytes = GUINT32_TO_LE(sizeof(SnicQp));
    a.max_inline_data = GUINT16_TO_LE(SNIC_MAX_INLINE_DATA);
    a.max_srq = GUINT32_TO_LE(c->cfg.max_srq);
    a.max_mw = GUINT32_TO_LE(c->cfg.max_mw);
    a.max_cq_moderation = GUINT16_TO_LE(SNIC_MAX_CQ_MODERATION);
    a.max_mcast_grp = GUINT16_TO_LE(SNIC_MAX_MCAST_GRP);
    a.max_mcast_qp_attach = GUINT16_TO_LE(SNIC_MAX_MCAST_QP_ATTACH);
    a.max_srq_wr = GUINT32_TO_LE(1u << SNIC_MAX_QP_WR_LOG2);
    a.rpc_slots = GUINT32_TO_LE(SNIC_RPC_SLOTS);
    a.rpc_slot_bytes = GUINT32_TO_LE(sizeof(SnicRpc));
    a.max_rpc_per_qp = GUINT16_TO_LE(SNIC_RPC_MAX_PER_QP);
    a.max_kernels = GUINT16_TO_LE(snic_kernel_max_deployed());
    a.builtin_kernels = GUINT32_TO_LE(snic_kernel_builtin_mask(c));
    a.max_rpc_response = GUINT32_TO_LE(SNIC_RPC_MAX_RESPONSE);
    a.kernel_max_steps = GUINT32_TO_LE(SNIC_KERNEL_MAX_STEPS);
    a.rpc_opmap = c->cfg.rpc_opmap;
    a.hll_sketches = c->cfg.hll_sketches;
    a.num_transports = SNIC_PROGRAMS;
    a.ctx_recv_pool = GUINT16_TO_LE(snic_ctx_share(c->cfg.recv_pool));
    a.ctx_rpc_slots = snic_ctx_share(SNIC_RPC_SLOTS);
    a.ctx_rpc_stage = snic_ctx_share(SNIC_RPC_STAGE_BUFS);
    a.qp_rpc_stage = SNIC_RPC_STAGE_PER_QP;
    a.ctx_kernels = snic_ctx_share(snic_kernel_max_deployed());
    a.ctx_mcast_grp = snic_ctx_share(SNIC_MAX_MCAST_GRP);
    a.ctx_mcast_qp_attach = snic_ctx_share(SNIC_MAX_MCAST_QP_ATTACH);
    a.ctx_pool_div = SNIC_CTX_POOL_DIV;
    snic_onchip_account(c, &oc);
    a.onchip_bytes = GUINT32_TO_LE(MIN(oc.budget, UINT32_MAX));
    a.onchip_fixed_bytes = GUINT32_TO_LE(MIN(oc.fixed, UINT32_MAX));
    a.qp_onchip_bytes = GUINT32_TO_LE(oc.per_qp);
    a.performant_qps = GUINT32_TO_LE(oc.performant_qps);
    snic_cl_attr(c, &a);
    *result = sizeof(a);
    return snic_admin_respond(c, &cmd->resp, &a, sizeof(a));
}

/*
 * The objects the device holds, into the stats' gauges when read
 * (GET_STATS, or BAR0 at their offsets): the counts their tables' free
 * handles keep as objects come and go (table.h), and the QPs' from the
 * FIFO of free QP numbers (GSI is not in it, nor counted), so a read
 * costs the same however many objects there are.
 */
void snic_stats_objects(SnicCore *c)
{
    c->stats.obj_qps = GUINT64_TO_LE(c->cfg.max_qp -
                                     (c->free_qpn_tail - c->free_qpn_head));
    c->stats.obj_cqs = GUINT64_TO_LE(c->cq_slots.used);
    c->stats.obj_srqs = GUINT64_TO_LE(c->srq_slots.used);
    c->stats.obj_mrs = GUINT64_TO_LE(c->mr_slots.used);
    c->stats.obj_mws = GUINT64_TO_LE(c->mw_slots.used);
    c->stats.obj_pds = GUINT64_TO_LE(c->pd_slots.used);
}

static uint16_t snic_cmd_get_stats(SnicCore *c,
                                   const struct snic_admin_cmd *cmd,
                                   uint64_t *result)
{
    snic_stats_objects(c);
    *result = sizeof(c->stats);
    return snic_admin_respond(c, &cmd->resp, &c->stats, sizeof(c->stats));
}

static uint16_t snic_cmd_set_mtu(SnicCore *c, const struct snic_admin_cmd *cmd,
                                 uint64_t *result)
{
    uint32_t mtu = GUINT32_FROM_LE(cmd->set_mtu.mtu);

    if (mtu < SNIC_ETH_MIN_MTU || mtu > SNIC_ETH_MAX_MTU) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    c->mtu = mtu;
    return SNIC_ADMIN_OK;
}

static uint16_t snic_cmd_get_mtu(SnicCore *c, const struct snic_admin_cmd *cmd,
                                 uint64_t *result)
{
    *result = c->mtu;
    return SNIC_ADMIN_OK;
}

static uint16_t snic_cmd_set_mac(SnicCore *c, const struct snic_admin_cmd *cmd,
                                 uint64_t *result)
{
    static const uint8_t zero[6];
    const uint8_t *mac = cmd->set_mac.mac;

    if ((mac[0] & 1) || !memcmp(mac, zero, 6)) {
        return SNIC_ADMIN_BAD_PARAM;    /* multicast or all-zero */
    }
    memcpy(c->mac, mac, 6);
    return SNIC_ADMIN_OK;
}

static uint16_t snic_cmd_create_eth_queue(SnicCore *c,
                                          const struct snic_admin_cmd *cmd,
                                          uint64_t *result)
{
    return snic_eth_create_queue(c, &cmd->create_eth_queue, result);
}

static uint16_t snic_cmd_destroy_eth_queue(SnicCore *c,
                                           const struct snic_admin_cmd *cmd,
                                           uint64_t *result)
{
    return snic_eth_destroy_queue(c, &cmd->eth_queue);
}

static uint16_t snic_cmd_start_eth_queue(SnicCore *c,
                                         const struct snic_admin_cmd *cmd,
                                         uint64_t *result)
{
    return snic_eth_start_queue(c, &cmd->eth_queue);
}

static uint16_t snic_cmd_stop_eth_queue(SnicCore *c,
                                        const struct snic_admin_cmd *cmd,
                                        uint64_t *result)
{
    return snic_eth_stop_queue(c, &cmd->eth_queue);
}

typedef struct SnicAdminOp {
    const char *name;           /* the enumerator without SNIC_ADMIN_ */
    uint16_t payload_len;
    uint16_t (*exec)(SnicCore *c, const struct snic_admin_cmd *cmd,
                     uint64_t *result);
} SnicAdminOp;

#define ADMIN_OP(op, payload, fn) \
    [SNIC_ADMIN_##op] = { #op, payload, fn }

static const SnicAdminOp snic_admin_ops[] = {
    ADMIN_OP(NOP, 0, snic_cmd_nop),
    ADMIN_OP(QUERY_DEVICE, sizeof(struct snic_admin_resp_buf),
             snic_cmd_query_device),
    ADMIN_OP(GET_STATS, sizeof(struct snic_admin_resp_buf), snic_cmd_get_stats),
    ADMIN_OP(SET_MTU, sizeof(struct snic_admin_set_mtu), snic_cmd_set_mtu),
    ADMIN_OP(GET_MTU, 0, snic_cmd_get_mtu),
    ADMIN_OP(SET_MAC, sizeof(struct snic_admin_set_mac), snic_cmd_set_mac),
    ADMIN_OP(CREATE_ETH_QUEUE, sizeof(struct snic_admin_create_eth_queue),
             snic_cmd_create_eth_queue),
    ADMIN_OP(DESTROY_ETH_QUEUE, sizeof(struct snic_admin_eth_queue_ref),
             snic_cmd_destroy_eth_queue),
    ADMIN_OP(START_ETH_QUEUE, sizeof(struct snic_admin_eth_queue_ref),
             snic_cmd_start_eth_queue),
    ADMIN_OP(STOP_ETH_QUEUE, sizeof(struct snic_admin_eth_queue_ref),
             snic_cmd_stop_eth_queue),
    ADMIN_OP(ALLOC_PD, sizeof(struct snic_admin_alloc_pd), snic_cmd_alloc_pd),
    ADMIN_OP(DEALLOC_PD, sizeof(struct snic_admin_obj_ref),
             snic_cmd_dealloc_pd),
    ADMIN_OP(REG_MR, sizeof(struct snic_admin_reg_mr), snic_cmd_reg_mr),
    ADMIN_OP(DEREG_MR, sizeof(struct snic_admin_obj_ref), snic_cmd_dereg_mr),
    ADMIN_OP(CREATE_EQ, sizeof(struct snic_admin_create_eq),
             snic_cmd_create_eq),
    ADMIN_OP(DESTROY_EQ, sizeof(struct snic_admin_obj_ref),
             snic_cmd_destroy_eq),
    ADMIN_OP(CREATE_CQ, sizeof(struct snic_admin_create_cq),
             snic_cmd_create_cq),
    ADMIN_OP(DESTROY_CQ, sizeof(struct snic_admin_obj_ref),
             snic_cmd_destroy_cq),
    ADMIN_OP(CREATE_QP, sizeof(struct snic_admin_create_qp),
             snic_cmd_create_qp),
    ADMIN_OP(MODIFY_QP, sizeof(struct snic_admin_modify_qp),
             snic_cmd_modify_qp),
    ADMIN_OP(QUERY_QP, sizeof(struct snic_admin_query_qp), snic_cmd_query_qp),
    ADMIN_OP(DESTROY_QP, sizeof(struct snic_admin_obj_ref),
             snic_cmd_destroy_qp),
    ADMIN_OP(SET_GID, sizeof(struct snic_admin_set_gid), snic_cmd_set_gid),
    ADMIN_OP(REREG_MR, sizeof(struct snic_admin_rereg_mr), snic_cmd_rereg_mr),
    ADMIN_OP(ALLOC_MW, sizeof(struct snic_admin_alloc_mw), snic_cmd_alloc_mw),
    ADMIN_OP(DEALLOC_MW, sizeof(struct snic_admin_obj_ref),
             snic_cmd_dealloc_mw),
    ADMIN_OP(RESIZE_CQ, sizeof(struct snic_admin_resize_cq),
             snic_cmd_resize_cq),
    ADMIN_OP(MODIFY_CQ, sizeof(struct snic_admin_modify_cq),
             snic_cmd_modify_cq),
    ADMIN_OP(ATTACH_MCAST, sizeof(struct snic_admin_mcast),
             snic_cmd_attach_mcast),
    ADMIN_OP(DETACH_MCAST, sizeof(struct snic_admin_mcast),
             snic_cmd_detach_mcast),
    ADMIN_OP(CREATE_SRQ, sizeof(struct snic_admin_create_srq),
             snic_cmd_create_srq),
    ADMIN_OP(MODIFY_SRQ, sizeof(struct snic_admin_modify_srq),
             snic_cmd_modify_srq),
    ADMIN_OP(QUERY_SRQ, sizeof(struct snic_admin_obj_ref), snic_cmd_query_srq),
    ADMIN_OP(DESTROY_SRQ, sizeof(struct snic_admin_obj_ref),
             snic_cmd_destroy_srq),
    ADMIN_OP(SET_QP_RPC, sizeof(struct snic_admin_set_qp_rpc),
             snic_cmd_set_qp_rpc),
    ADMIN_OP(DEPLOY_KERNEL, sizeof(struct snic_admin_deploy_kernel),
             snic_cmd_deploy_kernel),
    ADMIN_OP(UNDEPLOY_KERNEL, sizeof(struct snic_admin_deploy_kernel),
             snic_cmd_undeploy_kernel),
    ADMIN_OP(SET_QP_TRANSPORT, sizeof(struct snic_admin_set_qp_transport),
             snic_cmd_set_qp_transport),
    ADMIN_OP(QUERY_TRANSPORT, sizeof(struct snic_admin_query_transport),
             snic_cmd_query_transport),
    ADMIN_OP(CREATE_SR_CTRLQ, sizeof(struct snic_admin_create_sr_ctrlq),
             snic_cmd_create_sr_ctrlq),
    ADMIN_OP(SET_QP_SR, sizeof(struct snic_admin_set_qp_sr),
             snic_cmd_set_qp_sr),
    ADMIN_OP(ATTACH_HLL, sizeof(struct snic_admin_hll), snic_cmd_attach_hll),
    ADMIN_OP(QUERY_HLL, sizeof(struct snic_admin_hll), snic_cmd_query_hll),
    ADMIN_OP(RESET_HLL, sizeof(struct snic_admin_hll), snic_cmd_reset_hll),
    ADMIN_OP(DETACH_HLL, sizeof(struct snic_admin_hll), snic_cmd_detach_hll),
    ADMIN_OP(SET_QP_CL, sizeof(struct snic_admin_set_qp_cl),
             snic_cmd_set_qp_cl),
};

static const char *const snic_admin_status_names[] = {
    [SNIC_ADMIN_OK] = "OK",
    [SNIC_ADMIN_BAD_OPCODE] = "BAD_OPCODE",
    [SNIC_ADMIN_BAD_VERSION] = "BAD_VERSION",
    [SNIC_ADMIN_BAD_LENGTH] = "BAD_LENGTH",
    [SNIC_ADMIN_BAD_PARAM] = "BAD_PARAM",
    [SNIC_ADMIN_BAD_ADDRESS] = "BAD_ADDRESS",
    [SNIC_ADMIN_BAD_STATE] = "BAD_STATE",
    [SNIC_ADMIN_NO_RESOURCES] = "NO_RESOURCES",
    [SNIC_ADMIN_NOT_SUPPORTED] = "NOT_SUPPORTED",
};

#define ADMIN_FAIL_CREATE_NAME  "create"

const char *snic_admin_opcode_name(uint16_t opcode)
{
    if (opcode == SNIC_ADMIN_FAIL_CREATE) {
        return ADMIN_FAIL_CREATE_NAME;
    }
    return opcode < G_N_ELEMENTS(snic_admin_ops) ?
           snic_admin_ops[opcode].name : NULL;
}

const char *snic_admin_status_name(uint16_t status)
{
    return status < G_N_ELEMENTS(snic_admin_status_names) ?
           snic_admin_status_names[status] : NULL;
}

/*
 * s as a name of one of the first n values (the enumerator, with or
 * without its SNIC_ADMIN_ prefix, any case) or a number up to max: the
 * value, or -1.
 */
static int64_t admin_lookup(const char *s, const char *(*name_of)(uint16_t),
                            unsigned n, uint64_t max)
{
    const char *bare = s;
    char *end;
    guint64 v;
    unsigned i;

    if (!g_ascii_strncasecmp(s, "SNIC_ADMIN_", 11)) {
        bare = s + 11;
    }
    for (i = 0; i < n; i++) {
        if (name_of(i) && !g_ascii_strcasecmp(bare, name_of(i))) {
            return i;
        }
    }
    if (!g_ascii_isdigit(s[0])) {
        return -1;
    }
    v = g_ascii_strtoull(s, &end, 0);   /* 7 or 0x7 */
    return *end || v > max ? -1 : (int64_t)v;
}

bool snic_admin_opcode_parse(const char *s, uint16_t *opcode)
{
    int64_t v;

    if (!g_ascii_strcasecmp(s, ADMIN_FAIL_CREATE_NAME)) {
        *opcode = SNIC_ADMIN_FAIL_CREATE;
        return true;
    }
    v = admin_lookup(s, snic_admin_opcode_name, G_N_ELEMENTS(snic_admin_ops),
                     UINT8_MAX);
    if (v < 0) {
        return false;
    }
    *opcode = v;
    return true;
}

bool snic_admin_status_parse(const char *s, uint16_t *status)
{
    int64_t v = admin_lookup(s, snic_admin_status_name,
                             G_N_ELEMENTS(snic_admin_status_names),
                             UINT16_MAX);

    if (v < 0) {
        return false;
    }
    *status = v;
    return true;
}

bool snic_admin_fail_check(const SnicAdminFail *fail, GError **errp)
{
    if (fail->count && fail->status == SNIC_ADMIN_OK) {
        g_set_error(errp, g_quark_from_static_string("snic-config"), 0,
                    "x-admin-fail-status=OK is not a failure");
        return false;
    }
    if (fail->opcode != SNIC_ADMIN_FAIL_CREATE && fail->opcode > UINT8_MAX) {
        g_set_error(errp, g_quark_from_static_string("snic-config"), 0,
                    "x-admin-fail-opcode=%u is not an op-code",
                    fail->opcode);
        return false;
    }
    return true;
}

/* The commands that make an object: what x-admin-fail-opcode=create fails */
static bool admin_creates(uint8_t opcode)
{
    switch (opcode) {
    case SNIC_ADMIN_CREATE_ETH_QUEUE:
    case SNIC_ADMIN_ALLOC_PD:
    case SNIC_ADMIN_REG_MR:
    case SNIC_ADMIN_CREATE_EQ:
    case SNIC_ADMIN_CREATE_CQ:
    case SNIC_ADMIN_CREATE_QP:
    case SNIC_ADMIN_ALLOC_MW:
    case SNIC_ADMIN_CREATE_SRQ:
    case SNIC_ADMIN_CREATE_SR_CTRLQ:
        return true;
    }
    return false;
}

/* The host asked for this command to fail (x-admin-fail-*): it does */
static bool admin_fail_now(SnicCore *c, uint8_t opcode)
{
    SnicAdminFail *f = &c->admin_fail;

    if (!f->count || (f->opcode == SNIC_ADMIN_FAIL_CREATE ?
                      !admin_creates(opcode) : f->opcode != opcode)) {
        return false;
    }
    f->count--;
    snic_stat_inc(&c->stats.admin_fails_injected);
    return true;
}

static uint16_t snic_admin_exec(SnicCore *c, const struct snic_admin_cmd *cmd,
                                uint64_t *result)
{
    const SnicAdminOp *op = NULL;
    uint16_t len = GUINT16_FROM_LE(cmd->hdr.len);

    if (cmd->hdr.opcode < G_N_ELEMENTS(snic_admin_ops)) {
        op = &snic_admin_ops[cmd->hdr.opcode];
    }
    if (!op || !op->exec) {
        SNIC_GUEST_ERROR(c, GE_ADMIN_OPCODE, GUINT16_FROM_LE(cmd->hdr.cmd_id),
                         cmd->hdr.opcode);
        return SNIC_ADMIN_BAD_OPCODE;
    }
    if (cmd->hdr.version != SNIC_ADMIN_CMD_VERSION) {
        SNIC_GUEST_ERROR(c, GE_ADMIN_VERSION, cmd->hdr.opcode,
                         cmd->hdr.version, SNIC_ADMIN_CMD_VERSION);
        return SNIC_ADMIN_BAD_VERSION;
    }
    if (len != op->payload_len) {
        SNIC_GUEST_ERROR(c, GE_ADMIN_LENGTH, cmd->hdr.opcode, len,
                         op->payload_len);
        return SNIC_ADMIN_BAD_LENGTH;
    }
    if (cmd->hdr.flags) {
        SNIC_GUEST_ERROR(c, GE_ADMIN_FLAGS, cmd->hdr.opcode,
                         GUINT16_FROM_LE(cmd->hdr.flags));
        return SNIC_ADMIN_BAD_PARAM;
    }
    return op->exec(c, cmd, result);
}

/* Write a completion: body first, then the byte with the phase bit. */
static int snic_admin_complete(SnicCore *c, const struct snic_admin_cmd *cmd,
                               uint16_t status, uint64_t result)
{
    uint32_t slot = c->cq_tail & ring_mask(c->admin_log2_depth);
    uint64_t addr = c->admin_cq_base + (uint64_t)slot * SNIC_ADMIN_CQE_SIZE;
    struct snic_admin_cqe cqe = {
        .result = GUINT64_TO_LE(result),
        .cmd_id = cmd->hdr.cmd_id,
        .status = GUINT16_TO_LE(status),
        .sq_head = GUINT16_TO_LE((uint16_t)c->sq_head),
        .opcode = cmd->hdr.opcode,
        .flags = snic_ring_phase(c->cq_tail, c->admin_log2_depth),
    };
    const size_t body = offsetof(struct snic_admin_cqe, flags);

    if (snic_dma_write(c, addr, &cqe, body) ||
        snic_dma_write(c, addr + body, &cqe.flags, 1)) {
        return -1;
    }
    c->cq_tail++;
    return 0;
}

bool snic_admin_run(SnicCore *c, unsigned budget)
{
    uint32_t depth = 1u << c->admin_log2_depth;
    unsigned done = 0;

    while (c->sq_head != c->sq_tail && done < budget && snic_ready(c)) {
        uint32_t slot = c->sq_head & ring_mask(c->admin_log2_depth);
        struct snic_admin_cmd cmd;
        uint64_t result = 0;
        uint16_t status;

        if (c->cq_tail - c->cq_head >= depth) {
            break;  /* CQ full: wait for an SNIC_DB_ADMIN_CQ doorbell */
        }
        if (snic_dma_read(c, c->admin_sq_base +
                          (uint64_t)slot * SNIC_ADMIN_CMD_SIZE,
                          &cmd, sizeof(cmd))) {
            snic_fatal(c, SNIC_ERR_ADMIN_SQ_DMA);
            break;
        }
        SNIC_EVENT(c, ADMIN_CMD, cmd.hdr.opcode,
                   GUINT16_FROM_LE(cmd.hdr.cmd_id), slot);
        c->sq_head++;
        if (admin_fail_now(c, cmd.hdr.opcode)) {
            status = c->admin_fail.status;      /* and nothing executes */
        } else {
            status = snic_admin_exec(c, &cmd, &result);
        }
        snic_stat_inc(&c->stats.admin_cmds);
        if (status != SNIC_ADMIN_OK) {
            snic_stat_inc(&c->stats.admin_errors);
        }
        SNIC_EVENT(c, ADMIN_DONE, cmd.hdr.opcode,
                   GUINT16_FROM_LE(cmd.hdr.cmd_id), status, result);
        if (snic_admin_complete(c, &cmd, status, result)) {
            snic_fatal(c, SNIC_ERR_ADMIN_CQ_DMA);
            break;
        }
        done++;
    }
    if (done) {
        snic_intr_cause(c, SNIC_INTR_ADMIN);
    }
    return snic_ready(c) && c->sq_head != c->sq_tail &&
           c->cq_tail - c->cq_head < depth;
}
