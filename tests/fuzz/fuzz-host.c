/*
 * A small host for the snic fuzz targets (see fuzz-host.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-host.h"
#include "objects/cq.h"
#include "objects/qp.h"
#include "strom/rpc.h"
#include "transport/transport.h"

const uint8_t fz_admin_opcodes[FZ_ADMIN_NUM_OPCODES] = {
    SNIC_ADMIN_ALLOC_PD, SNIC_ADMIN_DEALLOC_PD, SNIC_ADMIN_REG_MR,
    SNIC_ADMIN_DEREG_MR, SNIC_ADMIN_CREATE_EQ, SNIC_ADMIN_DESTROY_EQ,
    SNIC_ADMIN_CREATE_CQ, SNIC_ADMIN_DESTROY_CQ, SNIC_ADMIN_CREATE_QP,
    SNIC_ADMIN_MODIFY_QP, SNIC_ADMIN_QUERY_QP, SNIC_ADMIN_DESTROY_QP,
    /* the RDMA objects twice as likely as the rest */
    SNIC_ADMIN_ALLOC_PD, SNIC_ADMIN_REG_MR, SNIC_ADMIN_CREATE_EQ,
    SNIC_ADMIN_CREATE_CQ, SNIC_ADMIN_CREATE_QP, SNIC_ADMIN_MODIFY_QP,
    SNIC_ADMIN_MODIFY_QP, SNIC_ADMIN_DESTROY_QP,
    SNIC_ADMIN_NOP, SNIC_ADMIN_QUERY_DEVICE, SNIC_ADMIN_GET_STATS,
    SNIC_ADMIN_SET_MTU, SNIC_ADMIN_GET_MTU, SNIC_ADMIN_SET_MAC,
    SNIC_ADMIN_CREATE_ETH_QUEUE, SNIC_ADMIN_DESTROY_ETH_QUEUE,
    SNIC_ADMIN_START_ETH_QUEUE, SNIC_ADMIN_STOP_ETH_QUEUE,
    SNIC_ADMIN_CREATE_SRQ, SNIC_ADMIN_MODIFY_SRQ, SNIC_ADMIN_QUERY_SRQ,
    SNIC_ADMIN_DESTROY_SRQ, SNIC_ADMIN_ALLOC_MW, SNIC_ADMIN_DEALLOC_MW,
    SNIC_ADMIN_REREG_MR, SNIC_ADMIN_RESIZE_CQ, SNIC_ADMIN_MODIFY_CQ,
    SNIC_ADMIN_ATTACH_MCAST, SNIC_ADMIN_DETACH_MCAST, SNIC_ADMIN_SET_GID,
    SNIC_ADMIN_SET_QP_RPC, SNIC_ADMIN_DEPLOY_KERNEL,
    SNIC_ADMIN_UNDEPLOY_KERNEL, SNIC_ADMIN_SET_QP_TRANSPORT,
    SNIC_ADMIN_QUERY_TRANSPORT, SNIC_ADMIN_CREATE_SR_CTRLQ,
    SNIC_ADMIN_SET_QP_SR, SNIC_ADMIN_ATTACH_HLL, SNIC_ADMIN_QUERY_HLL,
    SNIC_ADMIN_RESET_HLL, SNIC_ADMIN_DETACH_HLL,
};

/* go-back-N first: an input's byte 0 of zero keeps the default */
const uint8_t fz_programs[FZ_NUM_PROGRAMS] = {
    SNIC_TRANSPORT_GBN, SNIC_TRANSPORT_SACK, SNIC_TRANSPORT_NDP,
    SNIC_TRANSPORT_IRN, SNIC_TRANSPORT_SRNIC, SNIC_TRANSPORT_SRNIC_DCTCP,
    SNIC_TRANSPORT_RENO, SNIC_TRANSPORT_NEWRENO, SNIC_TRANSPORT_DCQCN,
    SNIC_TRANSPORT_DCTCP,
};

static const uint8_t fz_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* A broken promise of the device (or of this harness): a finding. */
static void G_GNUC_PRINTF(1, 2) G_GNUC_NORETURN fz_fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void fz_take(FzInput *in, void *buf, size_t n)
{
    size_t k = MIN(n, in->left);

    memcpy(buf, in->p, k);
    memset((uint8_t *)buf + k, 0, n - k);
    in->p += k;
    in->left -= k;
}

uint8_t fz_take8(FzInput *in)
{
    uint8_t v;

    fz_take(in, &v, 1);
    return v;
}

bool fz_in_mem(uint64_t addr, size_t len)
{
    return addr >= FZ_MEM_BASE && len <= FZ_MEM_SIZE &&
           addr - FZ_MEM_BASE <= FZ_MEM_SIZE - len;
}

static int fh_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    FuzzHost *h = opaque;

    if (!fz_in_mem(addr, len)) {
        return -1;
    }
    memcpy(buf, h->mem + (addr - FZ_MEM_BASE), len);
    return 0;
}

/* Is this write the admin completion the device is due to write? */
static bool is_admin_completion(FuzzHost *h, uint64_t addr, size_t len)
{
    SnicCore *c = h->core;
    uint64_t slot = FZ_ADMIN_CQ + (uint64_t)(c->cq_tail &
                    ((1u << FZ_ADMIN_LOG2) - 1)) * SNIC_ADMIN_CQE_SIZE;
    size_t body = offsetof(struct snic_admin_cqe, flags);

    return (addr == slot && len == body) ||
           (addr == slot + body && len == 1);
}

static int fh_dma_write(void *opaque, uint64_t addr, const void *buf,
                        size_t len)
{
    FuzzHost *h = opaque;

    if (!fz_in_mem(addr, len)) {
        return -1;
    }
    if (addr < FZ_AEQ && addr + len > FZ_ADMIN_SQ &&
        !is_admin_completion(h, addr, len)) {
        h->admin_clobbered = true;
    }
    memcpy(h->mem + (addr - FZ_MEM_BASE), buf, len);
    return 0;
}

static void fh_tx_frame(void *opaque, const void *frame, size_t len,
                        size_t host_bytes)
{
    FuzzHost *h = opaque;

    h->tx_frames++;
    snic_sim_port_tx(&h->port, frame, len, host_bytes);
}

static void sr_host_irq(FuzzSrHost *s);

static void fh_raise_irq(void *opaque, unsigned vector)
{
    FuzzHost *h = opaque;

    if (vector >= FZ_VECTORS) {
        fz_fail("raise_irq: vector %u of %u", vector, FZ_VECTORS);
    }
    if (vector == FZ_SR_VECTOR && h->sr && h->port.sim) {
        sr_host_irq(h->sr);
    }
}

static void fh_clear_irq(void *opaque, unsigned vector)
{
    if (vector >= FZ_VECTORS) {
        fz_fail("clear_irq: vector %u of %u", vector, FZ_VECTORS);
    }
}

static void fh_kick(void *opaque)
{
    FuzzHost *h = opaque;

    h->kicks++;
    snic_sim_port_kick(&h->port);
}

static void fh_nop(void *opaque)
{
}

static uint64_t fh_now_ns(void *opaque)
{
    return snic_sim_port_now(&((FuzzHost *)opaque)->port);
}

static void fh_timer_mod(void *opaque, uint64_t deadline)
{
    snic_sim_port_timer_mod(&((FuzzHost *)opaque)->port, deadline);
}

static void fh_guest_error(void *opaque, SnicTracePoint ge, const char *msg)
{
}


static const SnicHostOps fz_ops = {
    .dma_read = fh_dma_read,
    .dma_write = fh_dma_write,
    .tx_frame = fh_tx_frame,
    .raise_irq = fh_raise_irq,
    .clear_irq = fh_clear_irq,
    .kick = fh_kick,
    .rx_purge = fh_nop,
    .now_ns = fh_now_ns,
    .timer_mod = fh_timer_mod,
    .guest_error = fh_guest_error,
    .trace = NULL,      /* formats are checked by gen-trace-events.py */
};

/*
 * Guest memory of the live hosts. Static, not allocated per host: 192 KiB
 * allocations are mmap()ed and unmapped each time under ASan, a large part
 * of a run's cost. A new host gets a zeroed one.
 */
#define FZ_MAX_HOSTS    4
static uint8_t fz_mem_pool[FZ_MAX_HOSTS][FZ_MEM_SIZE];
static bool fz_mem_used[FZ_MAX_HOSTS];

static uint8_t *fz_mem_get(void)
{
    unsigned i;

    for (i = 0; i < FZ_MAX_HOSTS; i++) {
        if (!fz_mem_used[i]) {
            fz_mem_used[i] = true;
            memset(fz_mem_pool[i], 0, FZ_MEM_SIZE);
            return fz_mem_pool[i];
        }
    }
    fz_fail("harness: more than %u hosts at once", FZ_MAX_HOSTS);
}

static void fz_mem_put(uint8_t *mem)
{
    fz_mem_used[(mem - fz_mem_pool[0]) / FZ_MEM_SIZE] = false;
}

FuzzHost *fz_host_new(SnicSim *sim, const SnicLinkFaults *faults)
{
    FuzzHost *h = g_new0(FuzzHost, 1);
    SnicCoreConfig cfg = {
        .num_db_pages = FZ_DB_PAGES,
        .num_vectors = FZ_VECTORS,
        .max_pd = FZ_MAX_PD,
        .max_mr = FZ_MAX_MR,
        .max_mr_pages = FZ_MAX_MR_PAGES,
        .tlb_entries = FZ_TLB_ENTRIES,
        .max_qp = FZ_MAX_QP,
        .max_cq = FZ_MAX_CQ,
        .max_eq = FZ_MAX_EQ,
        .max_srq = FZ_MAX_SRQ,
        .max_mw = FZ_MAX_MW,
        .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY,
        /* small pools: a fresh device per input must stay cheap */
        .rx_buffer_kb = SNIC_RX_BUFFER_MIN_KB,
        .recv_pool = 16,
        .shuffle_units = 1,     /* the shuffle kernel takes payload */
        .hll_sketches = 2,      /* ... and a QP's sketch its WRITEs */
    };

    memcpy(cfg.mac, fz_mac, 6);
    if (faults) {
        cfg.faults = *faults;
    }
    h->mem = fz_mem_get();
    snic_sim_port_init(&h->port, 64);
    h->core = snic_core_new(&cfg, &fz_ops, h, NULL);
    if (!h->core) {
        fz_fail("snic_core_new refused the fuzz configuration");
    }
    h->port.core = h->core;
    if (sim) {
        snic_sim_port_attach(&h->port, sim);
    }
    fz_enable(h);
    return h;
}

void fz_host_free(FuzzHost *h)
{
    snic_core_free(h->core);
    fz_mem_put(h->mem);
    g_free(h);
}

void *fz_ptr(FuzzHost *h, uint64_t addr, size_t len)
{
    if (!fz_in_mem(addr, len)) {
        fz_fail("harness: 0x%" PRIx64 "+%zu is not guest memory", addr, len);
    }
    return h->mem + (addr - FZ_MEM_BASE);
}

void fz_write(FuzzHost *h, uint64_t addr, const void *buf, size_t len)
{
    memcpy(fz_ptr(h, addr, len), buf, len);
}

void fz_read(FuzzHost *h, uint64_t addr, void *buf, size_t len)
{
    memcpy(buf, fz_ptr(h, addr, len), len);
}

static void fz_reg_write(FuzzHost *h, uint64_t off, uint32_t v)
{
    snic_core_reg_write(h->core, off, v, 4);
}

bool fz_enable_layout(FuzzHost *h, uint32_t admin_log2, uint64_t aeq,
                      uint32_t aeq_log2)
{
    memset(fz_ptr(h, FZ_ADMIN_SQ, FZ_ADMIN_END - FZ_ADMIN_SQ), 0,
           FZ_ADMIN_END - FZ_ADMIN_SQ);
    fz_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, (uint32_t)FZ_ADMIN_SQ);
    fz_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_HI, FZ_ADMIN_SQ >> 32);
    fz_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_LO, (uint32_t)FZ_ADMIN_CQ);
    fz_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_HI, FZ_ADMIN_CQ >> 32);
    fz_reg_write(h, SNIC_REG_ADMIN_DEPTH, admin_log2);
    fz_reg_write(h, SNIC_REG_AEQ_BASE_LO, (uint32_t)aeq);
    fz_reg_write(h, SNIC_REG_AEQ_BASE_HI, aeq >> 32);
    fz_reg_write(h, SNIC_REG_AEQ_DEPTH, aeq_log2);
    fz_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    h->sq_tail = h->cq_head = 0;
    h->admin_clobbered = false;
    return snic_core_reg_read(h->core, SNIC_REG_DEV_STATUS, 4) &
           SNIC_STATUS_READY;
}

void fz_enable(FuzzHost *h)
{
    if (!fz_enable_layout(h, FZ_ADMIN_LOG2, FZ_AEQ, FZ_AEQ_LOG2)) {
        fz_fail("enable with a valid admin layout failed");
    }
}

void fz_doorbell(FuzzHost *h, unsigned page, uint8_t type, uint32_t qid,
                 uint32_t index)
{
    snic_core_doorbell(h->core, (uint64_t)page * SNIC_DB_PAGE_SIZE,
                       snic_db_make(type, qid, index), 8);
}

void fz_run(FuzzHost *h)
{
    snic_sim_port_run(&h->port);
}

void fz_advance(FuzzHost *h, uint64_t ns)
{
    snic_sim_port_advance(&h->port, ns);
}

int fz_admin_payload_len(uint8_t opcode)
{
    switch (opcode) {
    case SNIC_ADMIN_NOP:
    case SNIC_ADMIN_GET_MTU:
        return 0;
    case SNIC_ADMIN_QUERY_DEVICE:
    case SNIC_ADMIN_GET_STATS:
        return sizeof(struct snic_admin_resp_buf);
    case SNIC_ADMIN_SET_MTU:
        return sizeof(struct snic_admin_set_mtu);
    case SNIC_ADMIN_SET_MAC:
        return sizeof(struct snic_admin_set_mac);
    case SNIC_ADMIN_CREATE_ETH_QUEUE:
        return sizeof(struct snic_admin_create_eth_queue);
    case SNIC_ADMIN_DESTROY_ETH_QUEUE:
    case SNIC_ADMIN_START_ETH_QUEUE:
    case SNIC_ADMIN_STOP_ETH_QUEUE:
        return sizeof(struct snic_admin_eth_queue_ref);
    case SNIC_ADMIN_ALLOC_PD:
        return sizeof(struct snic_admin_alloc_pd);
    case SNIC_ADMIN_DEALLOC_PD:
    case SNIC_ADMIN_DEREG_MR:
    case SNIC_ADMIN_DESTROY_EQ:
    case SNIC_ADMIN_DESTROY_CQ:
    case SNIC_ADMIN_DESTROY_QP:
    case SNIC_ADMIN_QUERY_SRQ:
    case SNIC_ADMIN_DESTROY_SRQ:
    case SNIC_ADMIN_DEALLOC_MW:
        return sizeof(struct snic_admin_obj_ref);
    case SNIC_ADMIN_ALLOC_MW:
        return sizeof(struct snic_admin_alloc_mw);
    case SNIC_ADMIN_REREG_MR:
        return sizeof(struct snic_admin_rereg_mr);
    case SNIC_ADMIN_RESIZE_CQ:
        return sizeof(struct snic_admin_resize_cq);
    case SNIC_ADMIN_MODIFY_CQ:
        return sizeof(struct snic_admin_modify_cq);
    case SNIC_ADMIN_ATTACH_MCAST:
    case SNIC_ADMIN_DETACH_MCAST:
        return sizeof(struct snic_admin_mcast);
    case SNIC_ADMIN_CREATE_SRQ:
        return sizeof(struct snic_admin_create_srq);
    case SNIC_ADMIN_MODIFY_SRQ:
        return sizeof(struct snic_admin_modify_srq);
    case SNIC_ADMIN_REG_MR:
        return sizeof(struct snic_admin_reg_mr);
    case SNIC_ADMIN_CREATE_EQ:
        return sizeof(struct snic_admin_create_eq);
    case SNIC_ADMIN_CREATE_CQ:
        return sizeof(struct snic_admin_create_cq);
    case SNIC_ADMIN_CREATE_QP:
        return sizeof(struct snic_admin_create_qp);
    case SNIC_ADMIN_MODIFY_QP:
        return sizeof(struct snic_admin_modify_qp);
    case SNIC_ADMIN_QUERY_QP:
        return sizeof(struct snic_admin_query_qp);
    case SNIC_ADMIN_SET_GID:
        return sizeof(struct snic_admin_set_gid);
    case SNIC_ADMIN_SET_QP_RPC:
        return sizeof(struct snic_admin_set_qp_rpc);
    case SNIC_ADMIN_DEPLOY_KERNEL:
    case SNIC_ADMIN_UNDEPLOY_KERNEL:
        return sizeof(struct snic_admin_deploy_kernel);
    case SNIC_ADMIN_SET_QP_TRANSPORT:
        return sizeof(struct snic_admin_set_qp_transport);
    case SNIC_ADMIN_QUERY_TRANSPORT:
        return sizeof(struct snic_admin_query_transport);
    case SNIC_ADMIN_CREATE_SR_CTRLQ:
        return sizeof(struct snic_admin_create_sr_ctrlq);
    case SNIC_ADMIN_SET_QP_SR:
        return sizeof(struct snic_admin_set_qp_sr);
    case SNIC_ADMIN_ATTACH_HLL:
    case SNIC_ADMIN_QUERY_HLL:
    case SNIC_ADMIN_RESET_HLL:
    case SNIC_ADMIN_DETACH_HLL:
        return sizeof(struct snic_admin_hll);
    default:
        return -1;
    }
}

uint16_t fz_admin_post(FuzzHost *h, struct snic_admin_cmd *cmd)
{
    uint32_t slot = h->sq_tail & ((1u << FZ_ADMIN_LOG2) - 1);
    uint16_t id = ++h->next_cmd_id;

    if (h->sq_tail - h->cq_head >= 1u << FZ_ADMIN_LOG2) {
        fz_fail("harness: admin SQ overfilled");
    }
    cmd->hdr.cmd_id = GUINT16_TO_LE(id);
    fz_write(h, FZ_ADMIN_SQ + slot * SNIC_ADMIN_CMD_SIZE, cmd, sizeof(*cmd));
    h->sq_tail++;
    fz_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, h->sq_tail);
    return id;
}

bool fz_admin_poll(FuzzHost *h, struct snic_admin_cqe *cqe)
{
    uint32_t slot = h->cq_head & ((1u << FZ_ADMIN_LOG2) - 1);

    fz_read(h, FZ_ADMIN_CQ + slot * SNIC_ADMIN_CQE_SIZE, cqe, sizeof(*cqe));
    if (!snic_ring_entry_new(cqe->flags, h->cq_head, FZ_ADMIN_LOG2)) {
        return false;
    }
    h->cq_head++;
    fz_doorbell(h, 0, SNIC_DB_ADMIN_CQ, 0, h->cq_head);
    return true;
}

uint16_t fz_admin(FuzzHost *h, struct snic_admin_cmd *cmd, uint64_t *result)
{
    struct snic_admin_cqe cqe;
    uint16_t id = fz_admin_post(h, cmd);
    uint16_t st;

    fz_run(h);
    if (!fz_admin_poll(h, &cqe)) {
        if (h->admin_clobbered) {
            return UINT16_MAX;
        }
        fz_fail("admin command 0x%02x (id %u) did not complete",
                cmd->hdr.opcode, id);
    }
    st = GUINT16_FROM_LE(cqe.status);
    if (GUINT16_FROM_LE(cqe.cmd_id) != id || cqe.opcode != cmd->hdr.opcode ||
        st > SNIC_ADMIN_NOT_SUPPORTED) {
        if (h->admin_clobbered) {
            return UINT16_MAX;
        }
        fz_fail("admin command 0x%02x id %u: completion says opcode 0x%02x "
                "id %u status %u", cmd->hdr.opcode, id, cqe.opcode,
                GUINT16_FROM_LE(cqe.cmd_id), st);
    }
    if (result) {
        *result = GUINT64_FROM_LE(cqe.result);
    }
    return st;
}

/* Free-running index 'i' is within 'span' after 'lo'. */
static bool in_window(uint32_t i, uint32_t lo, uint32_t span)
{
    return i - lo <= span;
}

/*
 * StRoM RPC slots: each held one belongs to a valid QP in RTR/RTS (or in
 * ERR until the engine flushed it), a QP's count of held slots is right
 * and bounded, and the staging buffers held are exactly those in use.
 */
static void fz_check_rpc(SnicCore *c)
{
    unsigned held[FZ_MAX_QP + 2] = { 0 };
    uint32_t stage = 0;
    unsigned i;

    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        const SnicRpc *r = &c->rpc->slots[i];

        if (r->state == SNIC_RPC_FREE) {
            continue;
        }
        if (r->qpn > FZ_MAX_QP + 1 || !c->qps[r->qpn].valid ||
            r->state > SNIC_RPC_SENDING) {
            fz_fail("RPC slot %u: state %u for QP %u", i, r->state, r->qpn);
        }
        held[r->qpn]++;
        if (r->stage >= 0) {
            stage |= 1u << r->stage;
        }
    }
    for (i = 1; i <= FZ_MAX_QP + 1; i++) {
        const SnicQp *qp = &c->qps[i];

        if (qp->valid && (qp->rpc.slots != held[i] ||
                          qp->rpc.slots > SNIC_RPC_MAX_PER_QP)) {
            fz_fail("QP %u holds %u RPC slots, counts %u", i, held[i],
                    qp->rpc.slots);
        }
    }
    if (stage != c->rpc->stage_used) {
        fz_fail("RPC staging buffers 0x%x held, 0x%x marked", stage,
                c->rpc->stage_used);
    }
}

void fz_check(FuzzHost *h)
{
    SnicCore *c = h->core;
    uint32_t i;

    if (!in_window(c->cq_tail, c->cq_head, 1u << FZ_ADMIN_LOG2) ||
        !in_window(c->sq_head, c->sq_tail - (1u << FZ_ADMIN_LOG2),
                   1u << FZ_ADMIN_LOG2) ||
        !in_window(c->aeq_tail, c->aeq_head, 1u << FZ_AEQ_LOG2)) {
        fz_fail("admin/AEQ indices: SQ %u..%u CQ %u..%u AEQ %u..%u",
                c->sq_head, c->sq_tail, c->cq_head, c->cq_tail,
                c->aeq_head, c->aeq_tail);
    }
    if (c->sr_ctrlq.base &&
        !in_window(c->sr_ctrlq.tail, c->sr_ctrlq.head,
                   1u << c->sr_ctrlq.log2_depth)) {
        fz_fail("CtrlQ: head %u tail %u", c->sr_ctrlq.head,
                c->sr_ctrlq.tail);
    }
    for (i = 1; i <= FZ_MAX_EQ; i++) {
        const SnicEq *eq = &c->eqs[i];

        if (eq->valid &&
            !in_window(eq->tail, eq->head, 1u << eq->log2_depth)) {
            fz_fail("EQ %u: head %u tail %u", i, eq->head, eq->tail);
        }
    }
    for (i = 1; i <= FZ_MAX_CQ; i++) {
        const SnicCq *cq = &c->cqs[i];

        if (cq->valid &&
            !in_window(cq->tail, cq->head, 1u << cq->log2_depth)) {
            fz_fail("CQ %u: head %u tail %u", i, cq->head, cq->tail);
        }
    }
    for (i = 1; i <= FZ_MAX_QP + 1; i++) {
        const SnicQp *qp = &c->qps[i];

        if (!qp->valid) {
            continue;
        }
        if (qp->state >= SNIC_QPS_COUNT ||
            !in_window(qp->sq_tail, qp->sq_comp, 1u << qp->sq_log2_depth) ||
            !in_window(qp->req.sq_head, qp->sq_comp,
                       MIN(qp->sq_tail - qp->sq_comp, snic_dde_span(qp))) ||
            !in_window(qp->rq_tail, qp->rq_head, 1u << qp->rq_log2_depth) ||
            qp->req.dde.sent > snic_dde_span(qp)) {
            fz_fail("QP %u (state %u): SQ comp %u head %u tail %u, RQ head "
                    "%u tail %u, %u segments in flight", i, qp->state,
                    qp->sq_comp, qp->req.sq_head, qp->sq_tail, qp->rq_head,
                    qp->rq_tail, qp->req.dde.sent);
        }
    }
    fz_check_rpc(c);
}

void fz_pbl(FuzzHost *h, uint64_t at, uint64_t first, unsigned n,
            bool reverse)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        __le64 a = GUINT64_TO_LE(first +
                                 (reverse ? n - 1 - i : i) * 4096ull);

        fz_write(h, at + i * 8, &a, 8);
    }
}

static uint64_t node_admin_ok(FuzzNode *n, struct snic_admin_cmd *cmd)
{
    uint64_t r = 0;
    uint16_t st = fz_admin(n->h, cmd, &r);

    if (st != SNIC_ADMIN_OK) {
        fz_fail("harness: node setup command 0x%02x failed: status %u",
                cmd->hdr.opcode, st);
    }
    return r;
}

void fz_node_init(FuzzNode *n, SnicSim *sim, const SnicLinkFaults *faults,
                  uint8_t ip, const uint8_t *types, unsigned nqp)
{
    struct snic_admin_cmd cmd;
    unsigned q;

    memset(n, 0, sizeof(*n));
    n->ip = ip;
    n->nqp = nqp;
    n->h = fz_host_new(sim, faults);
    fz_pbl(n->h, FZ_PBL_EQ, FZ_EQ_RING, 1, false);
    fz_pbl(n->h, FZ_PBL_CQ, FZ_CQ_RING, 1, false);
    fz_pbl(n->h, FZ_PBL_MR, FZ_BUF, FZ_BUF_LEN / 4096, true);

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    n->pdn = node_admin_ok(n, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
    cmd.create_eq.pbl_addr = GUINT64_TO_LE(FZ_PBL_EQ);
    cmd.create_eq.npages = GUINT32_TO_LE(1);
    cmd.create_eq.log2_depth = FZ_EQ_LOG2;
    cmd.create_eq.vector = GUINT16_TO_LE(1);
    n->eqn = node_admin_ok(n, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(FZ_PBL_CQ);
    cmd.create_cq.npages = GUINT32_TO_LE(1);
    cmd.create_cq.log2_depth = FZ_CQ_LOG2;
    cmd.create_cq.eqn = GUINT32_TO_LE(n->eqn);
    n->cqn = node_admin_ok(n, &cmd);
    for (q = 0; q < nqp; q++) {
        bool srq = types[q] & FZ_ON_SRQ;

        fz_pbl(n->h, FZ_PBL_SQ(q), FZ_SQ_RING(q), 1, false);
        fz_pbl(n->h, FZ_PBL_RQ(q), FZ_RQ_RING(q), 1, false);
        if (srq) {
            snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SRQ,
                                sizeof(cmd.create_srq));
            cmd.create_srq.pbl_addr = GUINT64_TO_LE(FZ_PBL_RQ(q));
            cmd.create_srq.npages = GUINT32_TO_LE(1);
            cmd.create_srq.pdn = GUINT32_TO_LE(n->pdn);
            cmd.create_srq.log2_depth = FZ_RQ_LOG2;
            n->srqn = node_admin_ok(n, &cmd);
            n->srq_q = q;
        }
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
        cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(FZ_PBL_SQ(q));
        cmd.create_qp.sq_npages = GUINT32_TO_LE(1);
        if (srq) {
            cmd.create_qp.srqn = GUINT32_TO_LE(n->srqn);
        } else {
            cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(FZ_PBL_RQ(q));
            cmd.create_qp.rq_npages = GUINT32_TO_LE(1);
            cmd.create_qp.rq_log2_depth = FZ_RQ_LOG2;
        }
        cmd.create_qp.pdn = GUINT32_TO_LE(n->pdn);
        cmd.create_qp.send_cqn = GUINT32_TO_LE(n->cqn);
        cmd.create_qp.recv_cqn = GUINT32_TO_LE(n->cqn);
        cmd.create_qp.type = FZ_TYPE(types[q]);
        if (cmd.create_qp.type == SNIC_QPT_RC) {
            cmd.create_qp.rdb_addr = GUINT64_TO_LE(FZ_RDB(q));
        }
        cmd.create_qp.sq_log2_depth = FZ_SQ_LOG2;
        n->type[q] = FZ_TYPE(types[q]);
        n->qpn[q] = node_admin_ok(n, &cmd);
        if (types[q] & FZ_RPC) {
            snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_RPC,
                                sizeof(cmd.set_qp_rpc));
            cmd.set_qp_rpc.qpn = GUINT32_TO_LE(n->qpn[q]);
            cmd.set_qp_rpc.flags = GUINT32_TO_LE(SNIC_QP_RPC_ENABLE |
                                                 SNIC_QP_RPC_FALLBACK);
            node_admin_ok(n, &cmd);
        }
        /* the first RC and UC QPs' WRITEs feed HyperLogLog sketches */
        if (n->type[q] == SNIC_QPT_RC || n->type[q] == SNIC_QPT_UC) {
            snic_admin_cmd_init(&cmd, SNIC_ADMIN_ATTACH_HLL, sizeof(cmd.hll));
            cmd.hll.qpn = GUINT32_TO_LE(n->qpn[q]);
            fz_admin(n->h, &cmd, NULL);     /* NO_RESOURCES past two */
        }
    }
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(FZ_MR_IOVA);
    cmd.reg_mr.length = GUINT64_TO_LE(FZ_BUF_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(FZ_PBL_MR);
    cmd.reg_mr.npages = GUINT32_TO_LE(FZ_BUF_LEN / 4096);
    cmd.reg_mr.pdn = GUINT32_TO_LE(n->pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                      SNIC_ACCESS_REMOTE_WRITE |
                                      SNIC_ACCESS_REMOTE_READ |
                                      SNIC_ACCESS_REMOTE_ATOMIC |
                                      SNIC_ACCESS_MW_BIND);
    cmd.reg_mr.page_shift = SNIC_PAGE_SHIFT_4K;
    cmd.reg_mr.key = FZ_MR_KEY;
    n->lkey = node_admin_ok(n, &cmd);
    if (n->lkey != FZ_LKEY) {
        fz_fail("harness: the node's MR has lkey 0x%x", n->lkey);
    }
    for (q = SNIC_MW_TYPE_1; q <= SNIC_MW_TYPE_2; q++) {
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_MW, sizeof(cmd.alloc_mw));
        cmd.alloc_mw.pdn = GUINT32_TO_LE(n->pdn);
        cmd.alloc_mw.type = q;
        cmd.alloc_mw.key = FZ_MW_RKEY(q) & SNIC_KEY_BYTE_MASK;
        if (node_admin_ok(n, &cmd) != FZ_MW_RKEY(q)) {
            fz_fail("harness: memory window %u has another R_Key", q);
        }
    }
    /* the port's addresses (fz_av's): ::ffff:10.0.0.ip and fd00::ip */
    for (q = 0; q < 2; q++) {
        struct snic_av av;

        fz_av(&av, ip, ip, q);
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
        cmd.set_gid.index = q;
        cmd.set_gid.flags = SNIC_GID_VALID;
        memcpy(cmd.set_gid.gid, av.sgid, 16);
        node_admin_ok(n, &cmd);
    }
}

void fz_node_attach_mcast(FuzzNode *n, unsigned q)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ATTACH_MCAST, sizeof(cmd.mcast));
    cmd.mcast.qpn = GUINT32_TO_LE(n->qpn[q]);
    cmd.mcast.gid[10] = cmd.mcast.gid[11] = 0xff;
    cmd.mcast.gid[12] = (uint8_t)(FZ_MCAST_IP >> 24);
    cmd.mcast.gid[13] = (uint8_t)(FZ_MCAST_IP >> 16);
    cmd.mcast.gid[14] = (uint8_t)(FZ_MCAST_IP >> 8);
    cmd.mcast.gid[15] = (uint8_t)FZ_MCAST_IP;
    node_admin_ok(n, &cmd);
}

void fz_node_free(FuzzNode *n)
{
    fz_host_free(n->h);
    n->h = NULL;
}

uint16_t fz_node_modify(FuzzNode *n, unsigned q, uint32_t mask,
                        const struct snic_qp_attr *a)
{
    struct snic_admin_cmd cmd;

    fz_write(n->h, FZ_ATTR, a, sizeof(*a));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = GUINT32_TO_LE(n->qpn[q]);
    cmd.modify_qp.attr_mask = GUINT32_TO_LE(mask);
    cmd.modify_qp.attr_addr = GUINT64_TO_LE(FZ_ATTR);
    return fz_admin(n->h, &cmd, NULL);
}

static void node_modify_ok(FuzzNode *n, unsigned q, uint32_t mask,
                           const struct snic_qp_attr *a)
{
    uint16_t st = fz_node_modify(n, q, mask, a);

    if (st != SNIC_ADMIN_OK) {
        fz_fail("harness: MODIFY_QP mask 0x%x failed: status %u", mask, st);
    }
}

void fz_av(struct snic_av *av, uint8_t from, uint8_t to, bool ipv6)
{
    memset(av, 0, sizeof(*av));
    if (ipv6) {
        /* fd00::n */
        av->dgid[0] = av->sgid[0] = 0xfd;
        av->flags = SNIC_AV_IPV6;
    } else {
        /* ::ffff:10.0.0.n */
        av->dgid[10] = av->dgid[11] = 0xff;
        av->sgid[10] = av->sgid[11] = 0xff;
        av->dgid[12] = av->sgid[12] = 10;
    }
    av->dgid[15] = to;
    av->sgid[15] = from;
    memcpy(av->dmac, fz_mac, 6);
    av->hop_limit = 64;
}

void fz_node_connect(FuzzNode *n, unsigned q, uint8_t peer_ip,
                     uint32_t peer_qpn, bool ipv6)
{
    /* UC takes no responder resources, RNR timer or retry attributes */
    uint32_t rc = n->type[q] == SNIC_QPT_UC ? 0 : ~0u;
    struct snic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qp_access_flags = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_WRITE |
                                      SNIC_ACCESS_REMOTE_READ |
                                      SNIC_ACCESS_REMOTE_ATOMIC);
    node_modify_ok(n, q, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                   SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    a.path_mtu = GUINT32_TO_LE(FZ_MTU);
    a.dest_qp_num = GUINT32_TO_LE(peer_qpn);
    a.rq_psn = GUINT32_TO_LE(FZ_SQ_PSN(peer_ip));
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 1;
    fz_av(&a.av, n->ip, peer_ip, ipv6);
    node_modify_ok(n, q, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV |
                   SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN |
                   SNIC_QP_ATTR_RQ_PSN |
                   (rc & (SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
                          SNIC_QP_ATTR_MIN_RNR_TIMER)), &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.timeout = 8;
    a.retry_cnt = 3;
    a.rnr_retry = 3;
    a.sq_psn = GUINT32_TO_LE(FZ_SQ_PSN(n->ip));
    a.max_rd_atomic = 4;
    node_modify_ok(n, q, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN |
                   (rc & (SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
                          SNIC_QP_ATTR_RNR_RETRY |
                          SNIC_QP_ATTR_MAX_QP_RD_ATOMIC)), &a);
}

void fz_node_ud_up(FuzzNode *n, unsigned q, uint32_t qkey)
{
    bool gsi = n->type[q] == SNIC_QPT_GSI;
    struct snic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qkey = GUINT32_TO_LE(qkey);
    node_modify_ok(n, q, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                   SNIC_QP_ATTR_QKEY | (gsi ? 0 : SNIC_QP_ATTR_PORT), &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTR);
    node_modify_ok(n, q, SNIC_QP_ATTR_STATE, &a);
    a.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    a.sq_psn = GUINT32_TO_LE(FZ_SQ_PSN(n->ip));
    node_modify_ok(n, q, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN, &a);
}

bool fz_program_sr(uint8_t program)
{
    return program == SNIC_TRANSPORT_SRNIC ||
           program == SNIC_TRANSPORT_SRNIC_DCTCP;
}

bool fz_program_numbered(uint8_t program)
{
    return program < SNIC_PROGRAMS &&
           snic_program_numbered(snic_programs[program]);
}

void fz_node_set_transport(FuzzNode *n, unsigned q, uint8_t program)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_TRANSPORT,
                        sizeof(cmd.set_qp_transport));
    cmd.set_qp_transport.qpn = GUINT32_TO_LE(n->qpn[q]);
    cmd.set_qp_transport.program = program;
    cmd.set_qp_transport.ack_every = 2;
    node_admin_ok(n, &cmd);
}

void fz_sr_host_init(FuzzSrHost *s, FuzzNode *n, unsigned q, uint16_t window)
{
    struct snic_admin_cmd cmd;

    memset(s, 0, sizeof(*s));
    s->n = n;
    s->q = q;
    memset(fz_ptr(n->h, FZ_SR_CTRLQ, SNIC_SR_CTRLQ_ENTRY << FZ_SR_CTRLQ_LOG2),
           0, SNIC_SR_CTRLQ_ENTRY << FZ_SR_CTRLQ_LOG2);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SR_CTRLQ,
                        sizeof(cmd.create_sr_ctrlq));
    cmd.create_sr_ctrlq.ring_addr = GUINT64_TO_LE(FZ_SR_CTRLQ);
    cmd.create_sr_ctrlq.log2_depth = FZ_SR_CTRLQ_LOG2;
    cmd.create_sr_ctrlq.vector = GUINT16_TO_LE(FZ_SR_VECTOR);
    node_admin_ok(n, &cmd);
    n->h->sr = s;
    fz_sr_host_qp(s, window);
}

void fz_sr_host_qp(FuzzSrHost *s, uint16_t window)
{
    struct snic_admin_cmd cmd;

    snic_sr_sw_init(&s->sw, s->n->qpn[s->q]);
    s->retry_pi = s->retry_ci = 0;
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_SR, sizeof(cmd.set_qp_sr));
    cmd.set_qp_sr.qpn = GUINT32_TO_LE(s->n->qpn[s->q]);
    cmd.set_qp_sr.log2_depth = FZ_SR_RETRYQ_LOG2;
    cmd.set_qp_sr.window = GUINT16_TO_LE(window);
    cmd.set_qp_sr.ring_addr = GUINT64_TO_LE(FZ_SR_RETRYQ);
    node_admin_ok(s->n, &cmd);
}

void fz_sr_host_post(FuzzSrHost *s, const struct snic_sr_retry *e,
                     unsigned n, uint16_t ahead)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        uint32_t slot = (uint16_t)(s->retry_pi + i) &
                        ((1u << FZ_SR_RETRYQ_LOG2) - 1);

        fz_write(s->n->h, FZ_SR_RETRYQ + slot * SNIC_SR_RETRYQ_ENTRY, &e[i],
                 sizeof(e[i]));
    }
    s->retry_pi += ahead;
    s->posted += n;
    fz_doorbell(s->n->h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_RETRYQ,
                s->n->qpn[s->q], s->retry_pi);
}

/*
 * As snic.ko's handler: every new entry into the recovery logic, then
 * its decisions into the RetryQ while there is room (a full RetryQ
 * keeps the rest: the recovery logic forgets them, as it would a lost
 * write), then the CtrlQ's slots back.
 */
unsigned fz_sr_host_poll(FuzzSrHost *s)
{
    struct snic_sr_retry out[16];
    struct snic_sr_ctrl e;
    unsigned n = 0, k, room;
    uint16_t used;

    for (;;) {
        uint32_t slot = s->ci & ((1u << FZ_SR_CTRLQ_LOG2) - 1);

        fz_read(s->n->h, FZ_SR_CTRLQ + slot * SNIC_SR_CTRLQ_ENTRY, &e,
                sizeof(e));
        if ((e.flags & SNIC_SR_CTRL_F_PHASE) !=
            snic_ring_phase(s->ci, FZ_SR_CTRLQ_LOG2)) {
            break;
        }
        if (GUINT32_FROM_LE(e.qpn) == s->sw.qpn) {
            snic_sr_sw_entry(&s->sw, &e);
            s->retry_ci = GUINT16_FROM_LE(e.retry_ci);
        }
        s->ci++;
        n++;
    }
    s->entries += n;
    while (n) {
        used = s->retry_pi - s->retry_ci;
        room = used < 1u << FZ_SR_RETRYQ_LOG2 ?
               (1u << FZ_SR_RETRYQ_LOG2) - used : 0;
        k = snic_sr_sw_flush(&s->sw, out, MIN(room, G_N_ELEMENTS(out)));
        if (!k) {
            break;
        }
        fz_sr_host_post(s, out, k, k);
    }
    if (n) {
        fz_doorbell(s->n->h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_CTRLQ, 0, s->ci);
    }
    return n;
}

static void sr_host_run(void *opaque)
{
    FuzzSrHost *s = opaque;

    s->armed = false;
    fz_sr_host_poll(s);
}

/* The CtrlQ's vector on the simulator: the handler runs 2 us later */
static void sr_host_irq(FuzzSrHost *s)
{
    SnicSim *sim = s->n->h->port.sim;

    if (!s->armed) {
        s->armed = true;
        snic_sim_timer_add(sim, snic_sim_now(sim) + 2000, sr_host_run, s);
    }
}

void fz_post_send(FuzzNode *n, unsigned q, const struct snic_sq_wqe *w)
{
    uint32_t slot = n->sq_pi[q] & ((1u << FZ_SQ_LOG2) - 1);

    fz_write(n->h, FZ_SQ_RING(q) + slot * SNIC_SQ_WQE_SIZE, w, sizeof(*w));
    fz_doorbell(n->h, 0, SNIC_DB_SQ, n->qpn[q], ++n->sq_pi[q]);
}

void fz_post_recv(FuzzNode *n, unsigned q, const struct snic_rq_wqe *w)
{
    uint32_t slot = n->rq_pi[q] & ((1u << FZ_RQ_LOG2) - 1);

    fz_write(n->h, FZ_RQ_RING(q) + slot * SNIC_RQ_WQE_SIZE, w, sizeof(*w));
    if (n->srqn && q == n->srq_q) {
        fz_doorbell(n->h, 0, SNIC_DB_SRQ, n->srqn, ++n->rq_pi[q]);
    } else {
        fz_doorbell(n->h, 0, SNIC_DB_RQ, n->qpn[q], ++n->rq_pi[q]);
    }
}

bool fz_poll_cq(FuzzNode *n, struct snic_cqe *c)
{
    uint64_t slot = FZ_CQ_RING +
                    (n->cq_ci & ((1u << FZ_CQ_LOG2) - 1)) * SNIC_CQE_SIZE;

    fz_read(n->h, slot, c, sizeof(*c));
    if (!snic_ring_entry_new(c->flags, n->cq_ci, FZ_CQ_LOG2)) {
        return false;
    }
    fz_doorbell(n->h, 0, SNIC_DB_CQ, n->cqn, ++n->cq_ci);
    return true;
}
