/*
 * Fake host for the snic core unit tests (see fake-host.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "fake-host.h"

const uint8_t fake_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static bool fake_in_mem(const FakeHost *h, uint64_t addr, size_t len)
{
    return addr >= FAKE_MEM_BASE && len <= h->mem_size &&
           addr - FAKE_MEM_BASE <= h->mem_size - len;
}

void fake_host_grow(FakeHost *h, size_t extra)
{
    h->mem = g_realloc(h->mem, h->mem_size + extra);
    memset(h->mem + h->mem_size, 0, extra);
    h->mem_size += extra;
}

/* The access touches the unmapped range: refused, and counted. */
static bool fake_unmapped(FakeHost *h, uint64_t addr, size_t len)
{
    if (!h->unmapped_len || addr >= h->unmapped_at + h->unmapped_len ||
        addr + len <= h->unmapped_at) {
        return false;
    }
    h->unmapped_refused++;
    return true;
}

static int fh_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    FakeHost *h = opaque;

    h->dma_ops++;
    h->dma_bytes += len;
    if (!fake_in_mem(h, addr, len) || fake_unmapped(h, addr, len) ||
        (h->fail_read_at && addr <= h->fail_read_at &&
         h->fail_read_at - addr < len)) {
        return -1;
    }
    if (h->read_hook) {
        h->read_hook(h, addr, len);
    }
    memcpy(buf, h->mem + (addr - FAKE_MEM_BASE), len);
    return 0;
}

static int fh_dma_write(void *opaque, uint64_t addr, const void *buf,
                        size_t len)
{
    FakeHost *h = opaque;

    h->dma_ops++;
    h->dma_bytes += len;
    if (h->reset_on_write && addr <= h->reset_on_write &&
        h->reset_on_write - addr < len) {
        snic_core_reset(h->core);   /* from inside a device operation */
    }
    if (!fake_in_mem(h, addr, len) || fake_unmapped(h, addr, len)) {
        if (h->log_writes) {
            FakeDmaWrite w = { .addr = addr, .len = len };

            g_array_append_val(h->writes, w);
        }
        return -1;
    }
    memcpy(h->mem + (addr - FAKE_MEM_BASE), buf, len);
    if (h->log_writes) {
        FakeDmaWrite w = { .addr = addr, .len = len, .ok = true };

        g_array_append_val(h->writes, w);
    }
    return 0;
}

unsigned fake_writes_in(FakeHost *h, uint64_t addr, uint64_t len)
{
    unsigned i, n = 0;

    for (i = 0; i < h->writes->len; i++) {
        const FakeDmaWrite *w = &g_array_index(h->writes, FakeDmaWrite, i);

        n += w->addr < addr + len && w->addr + w->len > addr;
    }
    return n;
}

static void fh_tx_frame(void *opaque, const void *frame, size_t len,
                        size_t host_bytes)
{
    FakeHost *h = opaque;
    GByteArray *b;

    if (snic_sim_port_tx(&h->port, frame, len, host_bytes)) {
        return;
    }
    b = g_byte_array_sized_new(len);
    g_byte_array_append(b, frame, len);
    g_ptr_array_add(h->frames, b);
}

static void fh_raise_irq(void *opaque, unsigned vector)
{
    FakeHost *h = opaque;

    g_assert_cmpuint(vector, <, FAKE_VECTORS);
    h->irqs[vector]++;
    if (h->irq_hook) {
        h->irq_hook(h, vector);
    }
}

static void fh_clear_irq(void *opaque, unsigned vector)
{
    FakeHost *h = opaque;

    g_assert_cmpuint(vector, <, FAKE_VECTORS);
    h->irq_clears[vector]++;
}

static void fh_kick(void *opaque)
{
    FakeHost *h = opaque;

    h->kicks++;
    snic_sim_port_kick(&h->port);
}

static void fh_rx_purge(void *opaque)
{
    FakeHost *h = opaque;

    h->rx_purges++;
    snic_sim_port_rx_purge(&h->port);
}

static uint64_t fh_dma_read_done(void *opaque, size_t len)
{
    return snic_sim_port_dma_read_done(&((FakeHost *)opaque)->port, len);
}

static uint64_t fh_dma_write_done(void *opaque, size_t len)
{
    return snic_sim_port_dma_write_done(&((FakeHost *)opaque)->port, len);
}

static uint64_t fh_now_ns(void *opaque)
{
    return snic_sim_port_now(&((FakeHost *)opaque)->port);
}

static void fh_timer_mod(void *opaque, uint64_t deadline)
{
    snic_sim_port_timer_mod(&((FakeHost *)opaque)->port, deadline);
}

unsigned fake_host_attach_sim(FakeHost *h, SnicSim *sim)
{
    return snic_sim_port_attach(&h->port, sim);
}

static void fh_guest_error(void *opaque, SnicTracePoint ge, const char *msg)
{
    FakeHost *h = opaque;

    g_assert_cmpuint(h->events[ge], >, 0);  /* its event came first */
    g_ptr_array_add(h->guest_errors, g_strdup(msg));
}

/*
 * Count every event; SNIC_TEST_TRACE=1 prints them (with the time). The
 * variable is read once, at the first event: a lookup in the environment
 * per event cost more than the engine's work between two events.
 */
static void fh_trace(void *opaque, SnicTracePoint tp, const uint64_t a[4])
{
    static int print = -1;
    FakeHost *h = opaque;

    g_assert_cmpuint(tp, <, SNIC_TRACE__MAX);
    h->events[tp]++;
    memcpy(h->event_args[tp], a, sizeof(h->event_args[tp]));
    if (print < 0) {
        print = g_getenv("SNIC_TEST_TRACE") != NULL;
    }
    if (print) {
        g_autofree char *text = snic_event_text(tp, a);

        fprintf(stderr, "%" PRIu64 " snic_%s %s\n", fh_now_ns(h),
                snic_event_name(tp), text);
    }
}

static const SnicHostOps fake_ops = {
    .dma_read = fh_dma_read,
    .dma_write = fh_dma_write,
    .tx_frame = fh_tx_frame,
    .raise_irq = fh_raise_irq,
    .clear_irq = fh_clear_irq,
    .kick = fh_kick,
    .rx_purge = fh_rx_purge,
    .now_ns = fh_now_ns,
    .timer_mod = fh_timer_mod,
    .guest_error = fh_guest_error,
    .trace = fh_trace,
};

FakeHost *fake_host_new(void)
{
    SnicCoreConfig cfg = { .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY };

    return fake_host_new_cfg(&cfg);
}

FakeHost *fake_host_new_cfg(const SnicCoreConfig *config)
{
    return fake_host_new_model(config, NULL);
}

FakeHost *fake_host_new_timed(const SnicCoreConfig *config,
                              uint64_t dma_rtt_ns)
{
    const SnicSimNicTiming rtt_only = { .pcie_rtt_ns = dma_rtt_ns };

    return fake_host_new_model(config, dma_rtt_ns ? &rtt_only : NULL);
}

FakeHost *fake_host_new_model(const SnicCoreConfig *config,
                              const SnicSimNicTiming *timing)
{
    static const uint8_t no_mac[6];
    FakeHost *h = g_new0(FakeHost, 1);
    SnicCoreConfig cfg = *config;
    GError *err = NULL;

    cfg.num_db_pages = FAKE_DB_PAGES;
    cfg.num_vectors = FAKE_VECTORS;
    if (!memcmp(cfg.mac, no_mac, 6)) {
        memcpy(cfg.mac, fake_mac, 6);
    }
    h->mem = g_malloc0(FAKE_MEM_SIZE);
    h->mem_size = FAKE_MEM_SIZE;
    h->frames = g_ptr_array_new_with_free_func(
        (GDestroyNotify)g_byte_array_unref);
    h->guest_errors = g_ptr_array_new_with_free_func(g_free);
    h->writes = g_array_new(false, false, sizeof(FakeDmaWrite));
    snic_sim_port_init(&h->port, 1000);
    h->ops = fake_ops;
    if (timing) {
        /* only a timed host has the op: reads complete at once otherwise */
        snic_sim_port_set_timing(&h->port, timing);
        h->ops.dma_read_done = fh_dma_read_done;
        h->ops.dma_write_done = fh_dma_write_done;
    }
    h->port.rpc_opmap = cfg.rpc_opmap;
    h->core = snic_core_new(&cfg, &h->ops, h, &err);
    g_assert_no_error(err);
    h->port.core = h->core;
    return h;
}

void fake_host_free(FakeHost *h)
{
    snic_core_free(h->core);
    snic_sim_port_destroy(&h->port);
    g_ptr_array_unref(h->frames);
    g_ptr_array_unref(h->guest_errors);
    g_array_unref(h->writes);
    g_free(h->mem);
    g_free(h);
}

void *fake_ptr(FakeHost *h, uint64_t addr, size_t len)
{
    g_assert_true(fake_in_mem(h, addr, len));
    return h->mem + (addr - FAKE_MEM_BASE);
}

void fake_write(FakeHost *h, uint64_t addr, const void *buf, size_t len)
{
    memcpy(fake_ptr(h, addr, len), buf, len);
}

void fake_read(FakeHost *h, uint64_t addr, void *buf, size_t len)
{
    memcpy(buf, fake_ptr(h, addr, len), len);
}

uint32_t fake_reg_read(FakeHost *h, uint64_t off)
{
    return snic_core_reg_read(h->core, off, 4);
}

void fake_reg_write(FakeHost *h, uint64_t off, uint32_t v)
{
    snic_core_reg_write(h->core, off, v, 4);
}

void fake_doorbell(FakeHost *h, unsigned page, uint8_t type, uint32_t qid,
                   uint32_t index)
{
    snic_core_doorbell(h->core, (uint64_t)page * SNIC_DB_PAGE_SIZE,
                       snic_db_make(type, qid, index), 8);
}

void fake_run(FakeHost *h)
{
    g_assert_cmpuint(snic_sim_port_run(&h->port), <, h->port.run_rounds);
}

void fake_advance(FakeHost *h, uint64_t ns)
{
    snic_sim_port_advance(&h->port, ns);
}

void fake_enable(FakeHost *h, uint32_t admin_log2, uint32_t aeq_log2)
{
    memset(fake_ptr(h, FAKE_ADMIN_CQ, SNIC_ADMIN_CQE_SIZE << admin_log2), 0,
           SNIC_ADMIN_CQE_SIZE << admin_log2);
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, (uint32_t)FAKE_ADMIN_SQ);
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_HI, FAKE_ADMIN_SQ >> 32);
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_LO, (uint32_t)FAKE_ADMIN_CQ);
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_HI, FAKE_ADMIN_CQ >> 32);
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, admin_log2);
    fake_reg_write(h, SNIC_REG_AEQ_BASE_LO, (uint32_t)FAKE_AEQ);
    fake_reg_write(h, SNIC_REG_AEQ_DEPTH, aeq_log2);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) & SNIC_STATUS_READY,
                    ==, SNIC_STATUS_READY);
    h->admin_log2 = admin_log2;
    h->aeq_log2 = aeq_log2;
    h->sq_tail = h->cq_head = h->aeq_head = 0;
}

bool fake_aeq_poll(FakeHost *h, struct snic_aeqe *e)
{
    uint32_t slot = h->aeq_head & ((1u << h->aeq_log2) - 1);

    fake_read(h, FAKE_AEQ + slot * SNIC_AEQE_SIZE, e, sizeof(*e));
    if (!snic_ring_entry_new(e->flags, h->aeq_head, h->aeq_log2)) {
        return false;
    }
    fake_doorbell(h, 0, SNIC_DB_AEQ, 0, ++h->aeq_head);
    return true;
}

uint16_t fake_admin_post(FakeHost *h, struct snic_admin_cmd *cmd)
{
    uint32_t slot = h->sq_tail & ((1u << h->admin_log2) - 1);
    uint16_t id = ++h->next_cmd_id;

    cmd->hdr.cmd_id = GUINT16_TO_LE(id);
    fake_write(h, FAKE_ADMIN_SQ + slot * SNIC_ADMIN_CMD_SIZE, cmd,
               sizeof(*cmd));
    h->sq_tail++;
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, h->sq_tail);
    return id;
}

bool fake_admin_poll(FakeHost *h, struct snic_admin_cqe *cqe)
{
    uint32_t slot = h->cq_head & ((1u << h->admin_log2) - 1);

    fake_read(h, FAKE_ADMIN_CQ + slot * SNIC_ADMIN_CQE_SIZE, cqe,
              sizeof(*cqe));
    if (!snic_ring_entry_new(cqe->flags, h->cq_head, h->admin_log2)) {
        return false;
    }
    h->cq_head++;
    fake_doorbell(h, 0, SNIC_DB_ADMIN_CQ, 0, h->cq_head);
    return true;
}

uint16_t fake_admin(FakeHost *h, struct snic_admin_cmd *cmd, uint64_t *result)
{
    struct snic_admin_cqe cqe;
    uint16_t id = fake_admin_post(h, cmd);

    fake_run(h);
    g_assert_true(fake_admin_poll(h, &cqe));
    g_assert_cmpuint(GUINT16_FROM_LE(cqe.cmd_id), ==, id);
    g_assert_cmpuint(cqe.opcode, ==, cmd->hdr.opcode);
    if (result) {
        *result = GUINT64_FROM_LE(cqe.result);
    }
    return GUINT16_FROM_LE(cqe.status);
}

uint16_t fake_obj_cmd(FakeHost *h, uint8_t opcode, uint32_t handle)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, opcode, sizeof(cmd.obj));
    cmd.obj.handle = GUINT32_TO_LE(handle);
    return fake_admin(h, &cmd, NULL);
}

uint32_t fake_eth_queue(FakeHost *h, uint8_t type, uint8_t log2,
                        uint16_t vector, uint16_t irq_delay_us)
{
    struct snic_admin_cmd cmd;
    uint64_t qid;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_ETH_QUEUE,
                  sizeof(cmd.create_eth_queue));
    cmd.create_eth_queue.ring_addr = GUINT64_TO_LE(
        type == SNIC_ETH_QUEUE_TX ? FAKE_TX_RING : FAKE_RX_RING);
    cmd.create_eth_queue.type = type;
    cmd.create_eth_queue.log2_depth = log2;
    cmd.create_eth_queue.vector = GUINT16_TO_LE(vector);
    cmd.create_eth_queue.irq_delay_us = GUINT16_TO_LE(irq_delay_us);
    g_assert_cmpuint(fake_admin(h, &cmd, &qid), ==, SNIC_ADMIN_OK);

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_START_ETH_QUEUE, sizeof(cmd.eth_queue));
    cmd.eth_queue.type = type;
    cmd.eth_queue.qid = GUINT32_TO_LE(qid);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    return qid;
}

size_t fake_frame(uint8_t *buf, const uint8_t dst[6], uint16_t ethertype,
                  size_t payload, uint8_t fill)
{
    static const uint8_t src[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };

    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    buf[12] = ethertype >> 8;
    buf[13] = ethertype & 0xff;
    memset(buf + 14, fill, payload);
    return 14 + payload;
}

unsigned fake_guest_errors_matching(FakeHost *h, const char *needle)
{
    unsigned i, n = 0;

    for (i = 0; i < h->guest_errors->len; i++) {
        if (strstr(g_ptr_array_index(h->guest_errors, i), needle)) {
            n++;
        }
    }
    return n;
}

uint64_t fake_stat(FakeHost *h, size_t offset)
{
    struct snic_stats s;
    uint64_t v;

    snic_core_get_stats(h->core, &s);
    memcpy(&v, (uint8_t *)&s + offset, sizeof(v));
    return GUINT64_FROM_LE(v);
}
