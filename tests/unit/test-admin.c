/*
 * Unit tests of the snic core: BAR0 registers, doorbells, admin queue and
 * async event queue, against the fake host.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "fake-host.h"
#include "objects/qp.h"
#include "objects/table.h"
#include "strom/hll.h"
#include "strom/rpc.h"

static void test_identity(void)
{
    FakeHost *h = fake_host_new();

    g_assert_cmphex(fake_reg_read(h, SNIC_REG_MAGIC), ==, SNIC_MAGIC);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_ABI_VERSION), ==,
                    SNIC_ABI_VERSION);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_CAPS_LO), ==,
                    SNIC_CAP_ADMINQ | SNIC_CAP_AEQ | SNIC_CAP_ETH |
                    SNIC_CAP_RDMA_MR | SNIC_CAP_LOOPBACK |
                    SNIC_CAP_INLINE | SNIC_CAP_UC |
                    SNIC_CAP_SRQ | SNIC_CAP_MW | SNIC_CAP_CQ_MODERATION |
                    SNIC_CAP_MCAST | SNIC_CAP_FRWR | SNIC_CAP_RPC);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_DB_PAGES), ==, FAKE_DB_PAGES);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_NUM_VECTORS), ==,
                     FAKE_VECTORS);
    /* power-on: disabled, link up, no error */
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS), ==,
                    SNIC_STATUS_LINK_UP);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_ERROR), ==, 0);
    /* a 64-bit read of a register pair */
    g_assert_cmphex(snic_core_reg_read(h->core, SNIC_REG_MAGIC, 8), ==,
                    ((uint64_t)SNIC_ABI_VERSION << 32) | SNIC_MAGIC);
    g_assert_cmpuint(h->guest_errors->len, ==, 0);
    fake_host_free(h);
}

static void test_bad_register_access(void)
{
    FakeHost *h = fake_host_new();

    g_assert_cmphex(snic_core_reg_read(h->core, SNIC_REG_MAGIC, 1), ==, 0);
    g_assert_cmphex(snic_core_reg_read(h->core, SNIC_REG_MAGIC + 2, 4), ==, 0);
    g_assert_cmphex(snic_core_reg_read(h->core, SNIC_BAR0_SIZE, 4), ==, 0);
    g_assert_cmphex(snic_core_reg_read(h->core, 0x300, 4), ==, 0);
    snic_core_reg_write(h->core, SNIC_REG_MAGIC, 0xdead, 4);
    snic_core_reg_write(h->core, 0x7fc, 1, 4);
    snic_core_reg_write(h->core, SNIC_REG_DEV_CTRL, 1, 2);
    g_assert_cmpuint(FAKE_STAT(h, guest_errors), ==, 7);
    g_assert_cmpuint(fake_guest_errors_matching(h, "4- or 8-byte"), ==, 4);
    /* nothing changed */
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_MAGIC), ==, SNIC_MAGIC);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_CTRL), ==, 0);
    fake_host_free(h);
}

static void test_enable_bad_config(void)
{
    FakeHost *h = fake_host_new();

    /* depth out of range */
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, (uint32_t)FAKE_ADMIN_SQ);
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_LO, (uint32_t)FAKE_ADMIN_CQ);
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, 13);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) & SNIC_STATUS_READY,
                    ==, 0);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ERROR), ==,
                     SNIC_ERR_ADMIN_CONFIG);
    /* misaligned SQ */
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, 4);
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, (uint32_t)FAKE_ADMIN_SQ + 8);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ERROR), ==,
                     SNIC_ERR_ADMIN_CONFIG);
    /* bad AEQ depth */
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, (uint32_t)FAKE_ADMIN_SQ);
    fake_reg_write(h, SNIC_REG_AEQ_BASE_LO, (uint32_t)FAKE_AEQ);
    fake_reg_write(h, SNIC_REG_AEQ_DEPTH, 1);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ERROR), ==,
                     SNIC_ERR_AEQ_CONFIG);
    g_assert_cmpuint(FAKE_STAT(h, guest_errors), ==, 3);
    /* W1C clears the error, a good config enables */
    fake_reg_write(h, SNIC_REG_ERROR, 0xffffffff);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ERROR), ==, 0);
    fake_enable(h, 4, 4);
    fake_host_free(h);
}

static void test_config_locked_while_enabled(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;

    fake_enable(h, 3, 3);
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, 0x5000);
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, 7);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_ADMIN_SQ_BASE_LO), ==,
                    (uint32_t)FAKE_ADMIN_SQ);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_DEPTH), ==, 3);
    g_assert_cmpuint(fake_guest_errors_matching(h, "while enabled"), ==, 2);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_host_free(h);
}

static void test_nop_and_interrupt(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;
    struct snic_admin_cqe cqe;
    unsigned clears;
    uint16_t id;

    fake_enable(h, 4, 4);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    id = fake_admin_post(h, &cmd);
    g_assert_cmpuint(h->kicks, ==, 1);
    g_assert_false(fake_admin_poll(h, &cqe));   /* nothing before the run */
    fake_run(h);
    g_assert_true(fake_admin_poll(h, &cqe));
    g_assert_cmpuint(GUINT16_FROM_LE(cqe.cmd_id), ==, id);
    g_assert_cmpuint(GUINT16_FROM_LE(cqe.status), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(GUINT16_FROM_LE(cqe.sq_head), ==, 1);
    g_assert_cmpuint(cqe.flags, ==, SNIC_CQE_PHASE);
    g_assert_cmpuint(h->irqs[0], ==, 1);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_INTR_CAUSE), ==,
                    SNIC_INTR_ADMIN);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_SQ_HEAD), ==, 1);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_CQ_TAIL), ==, 1);
    /* W1C on the cause clears the pending vector */
    clears = h->irq_clears[0];
    fake_reg_write(h, SNIC_REG_INTR_CAUSE, SNIC_INTR_ADMIN);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_INTR_CAUSE), ==, 0);
    g_assert_cmpuint(h->irq_clears[0], ==, clears + 1);
    /* masked: cause recorded, no message */
    fake_reg_write(h, SNIC_REG_INTR_MASK, SNIC_INTR_ADMIN);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(h->irqs[0], ==, 1);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_INTR_CAUSE), ==,
                    SNIC_INTR_ADMIN);
    g_assert_cmpuint(FAKE_STAT(h, admin_cmds), ==, 2);
    g_assert_cmpuint(FAKE_STAT(h, admin_errors), ==, 0);
    /* unmasking a cause that is still pending delivers it */
    fake_reg_write(h, SNIC_REG_INTR_MASK, 0);
    g_assert_cmpuint(h->irqs[0], ==, 2);
    fake_host_free(h);
}

/* QUERY_DEVICE's attributes of a device with this configuration */
static struct snic_device_attr query_attr(const SnicCoreConfig *cfg)
{
    FakeHost *h = fake_host_new_cfg(cfg);
    struct snic_admin_cmd cmd;
    struct snic_device_attr a;

    fake_enable(h, 4, 4);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    cmd.resp.resp_len = GUINT32_TO_LE(sizeof(a));
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_read(h, FAKE_RESP, &a, sizeof(a));
    fake_host_free(h);
    return a;
}

/*
 * The on-chip budget (SRNIC section 3.2): QPs fit what the structures
 * that are not per QP leave of it, each costing its QPC and scheduler
 * entries; a larger MTT cache leaves room for fewer, a budget smaller
 * than the fixed part for none.
 */
static void test_onchip_budget(void)
{
    SnicCoreConfig cfg = { 0 };
    struct snic_device_attr a, big_tlb, tiny;
    uint32_t fixed, per_qp;

    a = query_attr(&cfg);
    fixed = GUINT32_FROM_LE(a.onchip_fixed_bytes);
    per_qp = GUINT32_FROM_LE(a.qp_onchip_bytes);
    g_assert_cmpuint(GUINT32_FROM_LE(a.onchip_bytes), ==,
                     SNIC_DEFAULT_ONCHIP_KB * 1024);
    g_assert_cmpuint(per_qp, >, GUINT32_FROM_LE(a.qp_state_bytes));
    g_assert_cmpuint(fixed, >, 0);
    g_assert_cmpuint(GUINT32_FROM_LE(a.performant_qps), ==,
                     (SNIC_DEFAULT_ONCHIP_KB * 1024 - fixed) / per_qp);
    g_test_message("on-chip: %u of %u bytes fixed, %u per QP: %u QPs",
                   fixed, GUINT32_FROM_LE(a.onchip_bytes), per_qp,
                   GUINT32_FROM_LE(a.performant_qps));

    cfg.tlb_entries = 8 * SNIC_DEFAULT_TLB_ENTRIES;
    big_tlb = query_attr(&cfg);
    g_assert_cmpuint(GUINT32_FROM_LE(big_tlb.onchip_fixed_bytes), >, fixed);
    g_assert_cmpuint(GUINT32_FROM_LE(big_tlb.performant_qps), <,
                     GUINT32_FROM_LE(a.performant_qps));

    /*
     * A shuffle unit (shuffle-units) is on chip: exactly its bytes, at
     * the defaults and with SRNIC's 0.6 MB receive buffer
     */
    cfg.tlb_entries = 0;
    for (unsigned rx = 0; rx <= 600; rx += 600) {
        struct snic_device_attr without, with, hll;

        cfg.rx_buffer_kb = rx;
        cfg.shuffle_units = 0;
        without = query_attr(&cfg);
        cfg.shuffle_units = 1;
        with = query_attr(&cfg);
        g_assert_cmpuint(GUINT32_FROM_LE(with.onchip_fixed_bytes) -
                         GUINT32_FROM_LE(without.onchip_fixed_bytes), ==,
                         sizeof(SnicShuffleUnit));
        g_assert_cmpuint(sizeof(SnicShuffleUnit), ==, 147456);
        /* ... and HyperLogLog sketches (hll-sketches: QEMU's default 2) */
        cfg.shuffle_units = 0;
        cfg.hll_sketches = 2;
        hll = query_attr(&cfg);
        cfg.hll_sketches = 0;
        g_assert_cmpuint(hll.hll_sketches, ==, 2);
        g_assert_cmpuint(without.hll_sketches, ==, 0);
        g_assert_cmpuint(GUINT32_FROM_LE(hll.onchip_fixed_bytes) -
                         GUINT32_FROM_LE(without.onchip_fixed_bytes), ==,
                         2 * sizeof(SnicHllSketch));
        g_test_message("rx-buffer-kb=%u: %u performant QPs, %u with a "
                       "shuffle unit, %u with 2 HyperLogLog sketches",
                       rx ? rx : SNIC_DEFAULT_RX_BUFFER_KB,
                       GUINT32_FROM_LE(without.performant_qps),
                       GUINT32_FROM_LE(with.performant_qps),
                       GUINT32_FROM_LE(hll.performant_qps));
    }
    cfg.rx_buffer_kb = 0;
    cfg.shuffle_units = 0;
    cfg.onchip_kb = fixed / 1024;       /* less than the fixed part */
    tiny = query_attr(&cfg);
    g_assert_cmpuint(GUINT32_FROM_LE(tiny.performant_qps), ==, 0);
}

/* QUERY_DEVICE reports the port's speed, link-speed-mbps */
static void test_link_speed(void)
{
    SnicCoreConfig cfg = { 0 };
    struct snic_device_attr a;

    a = query_attr(&cfg);
    g_assert_cmpuint(GUINT32_FROM_LE(a.link_speed_mbps), ==,
                     SNIC_DEFAULT_LINK_SPEED_MBPS);
    cfg.link_speed_mbps = 40000;
    a = query_attr(&cfg);
    g_assert_cmpuint(GUINT32_FROM_LE(a.link_speed_mbps), ==, 40000);
}

static void test_query_device(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;
    struct snic_device_attr a;
    uint64_t result;

    fake_enable(h, 4, 4);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    cmd.resp.resp_len = GUINT32_TO_LE(sizeof(a));
    g_assert_cmpuint(fake_admin(h, &cmd, &result), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(result, ==, sizeof(a));
    fake_read(h, FAKE_RESP, &a, sizeof(a));
    g_assert_cmphex(GUINT32_FROM_LE(a.magic), ==, SNIC_MAGIC);
    g_assert_cmphex(GUINT32_FROM_LE(a.abi_version), ==, SNIC_ABI_VERSION);
    g_assert_cmpmem(a.mac, 6, fake_mac, 6);
    g_assert_cmpuint(GUINT16_FROM_LE(a.num_vectors), ==, FAKE_VECTORS);
    g_assert_cmpuint(GUINT16_FROM_LE(a.num_db_pages), ==, FAKE_DB_PAGES);
    g_assert_cmpuint(GUINT32_FROM_LE(a.mtu), ==, SNIC_ETH_DEFAULT_MTU);
    g_assert_cmpuint(GUINT32_FROM_LE(a.max_mtu), ==, SNIC_ETH_MAX_MTU);
    g_assert_cmpuint(a.link_up, ==, 1);
    /* the per-QP state the device keeps is counted and reported */
    g_assert_cmpuint(GUINT32_FROM_LE(a.qp_state_bytes), ==, sizeof(SnicQp));
    g_assert_cmpuint(GUINT32_FROM_LE(a.max_qp), ==, SNIC_DEFAULT_MAX_QP);
    g_assert_cmpuint(a.max_rd_atomic, ==, SNIC_MAX_RD_ATOMIC);
    g_test_message("per-QP state: %u bytes",
                   GUINT32_FROM_LE(a.qp_state_bytes));

    /* a short buffer gets a prefix, nothing past it */
    memset(fake_ptr(h, FAKE_RESP, 64), 0xee, 64);
    cmd.resp.resp_len = GUINT32_TO_LE(8);
    g_assert_cmpuint(fake_admin(h, &cmd, &result), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(h, FAKE_RESP + 8, 1), ==, 0xee);
    fake_host_free(h);
}

static void test_bad_commands(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;

    fake_enable(h, 4, 4);
    snic_admin_cmd_init(&cmd, 0x7f, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_OPCODE);
    snic_admin_cmd_init(&cmd, 0xff, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_OPCODE);
    snic_admin_cmd_init(&cmd, 0x06, 0);   /* a hole in the opcode table */
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_OPCODE);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    cmd.hdr.version = 2;
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_VERSION);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MTU, 56);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_LENGTH);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    cmd.hdr.flags = GUINT16_TO_LE(1);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(FAKE_STAT(h, admin_errors), ==, 6);
    g_assert_cmpuint(fake_guest_errors_matching(h, "unknown opcode"), ==, 3);
    /* the queue still works */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_host_free(h);
}

static void test_bad_response_buffer(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;

    fake_enable(h, 4, 4);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_len = GUINT32_TO_LE(128);
    cmd.resp.resp_addr = GUINT64_TO_LE(0x10);   /* outside guest memory */
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_RESP + 4);  /* misaligned */
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);
    cmd.resp.resp_addr = GUINT64_TO_LE(UINT64_MAX - 7); /* wraps */
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    cmd.resp.resp_len = 0;
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_LENGTH);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_GET_STATS, sizeof(cmd.resp));
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_MEM_BASE + FAKE_MEM_SIZE - 8);
    cmd.resp.resp_len = GUINT32_TO_LE(sizeof(struct snic_stats));
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);
    g_assert_cmpuint(FAKE_STAT(h, dma_errors), ==, 3);
    fake_host_free(h);
}

static void test_mtu_and_mac(void)
{
    FakeHost *h = fake_host_new();
    static const uint8_t mac2[6] = { 0x02, 0, 0, 0, 0, 7 };
    struct snic_admin_cmd cmd;
    uint64_t mtu;
    uint8_t mac[6];

    fake_enable(h, 4, 4);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MTU, sizeof(cmd.set_mtu));
    cmd.set_mtu.mtu = GUINT32_TO_LE(9000);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    cmd.set_mtu.mtu = GUINT32_TO_LE(9001);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    cmd.set_mtu.mtu = GUINT32_TO_LE(67);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_GET_MTU, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, &mtu), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mtu, ==, 9000);

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MAC, sizeof(cmd.set_mac));
    memcpy(cmd.set_mac.mac, mac2, 6);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    snic_core_get_mac(h->core, mac);
    g_assert_cmpmem(mac, 6, mac2, 6);
    cmd.set_mac.mac[0] = 0x01;      /* multicast */
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    memset(cmd.set_mac.mac, 0, 6);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    snic_core_get_mac(h->core, mac);
    g_assert_cmpmem(mac, 6, mac2, 6);
    fake_host_free(h);
}

static void test_phase_wraps(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;
    int i;

    fake_enable(h, 2, 2);   /* 4 entries: phases flip every 4 */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    for (i = 0; i < 11; i++) {
        g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    }
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_CQ_TAIL), ==, 11);
    fake_host_free(h);
}

static void test_cq_full_backpressure(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;
    struct snic_admin_cqe cqe;
    uint32_t slot;
    int i;

    fake_enable(h, 2, 2);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    for (i = 0; i < 4; i++) {
        fake_admin_post(h, &cmd);
    }
    fake_run(h);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_CQ_TAIL), ==, 4);
    /* two more commands while no completion was consumed */
    fake_admin_post(h, &cmd);
    fake_admin_post(h, &cmd);
    fake_run(h);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_SQ_HEAD), ==, 4);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_CQ_TAIL), ==, 4);
    /* the first completion is intact */
    fake_read(h, FAKE_ADMIN_CQ, &cqe, sizeof(cqe));
    g_assert_cmpuint(GUINT16_FROM_LE(cqe.cmd_id), ==, 1);
    /* consume all four: the device continues */
    for (i = 0; i < 4; i++) {
        g_assert_true(fake_admin_poll(h, &cqe));
        g_assert_cmpuint(GUINT16_FROM_LE(cqe.cmd_id), ==, i + 1);
    }
    fake_run(h);
    for (i = 0; i < 2; i++) {
        g_assert_true(fake_admin_poll(h, &cqe));
        g_assert_cmpuint(GUINT16_FROM_LE(cqe.cmd_id), ==, i + 5);
        g_assert_cmpuint(cqe.flags & SNIC_CQE_PHASE, ==, 0);  /* 2nd lap */
    }
    slot = 1;
    fake_read(h, FAKE_ADMIN_CQ + slot * 16, &cqe, sizeof(cqe));
    g_assert_cmpuint(GUINT16_FROM_LE(cqe.cmd_id), ==, 6);
    fake_host_free(h);
}

static void test_bad_doorbells(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;

    /* before enable */
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 1);
    fake_enable(h, 2, 2);
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 5);    /* past the ring */
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 0xffffffff);
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 1, 1);    /* no such queue */
    fake_doorbell(h, 1, SNIC_DB_ADMIN_SQ, 0, 1);    /* not its page */
    fake_doorbell(h, FAKE_DB_PAGES, SNIC_DB_ADMIN_SQ, 0, 1);
    fake_doorbell(h, 0, 0x77, 0, 1);                /* unknown type */
    fake_doorbell(h, 0, SNIC_DB_ADMIN_CQ, 0, 1);    /* consumes unwritten */
    fake_doorbell(h, 0, SNIC_DB_AEQ, 0, 3);
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, 1);      /* no such queue */
    snic_core_doorbell(h->core, 0, snic_db_make(SNIC_DB_ADMIN_SQ, 0, 1), 4);
    snic_core_doorbell(h->core, 8, snic_db_make(SNIC_DB_ADMIN_SQ, 0, 1), 8);
    g_assert_cmpuint(FAKE_STAT(h, doorbells_invalid), ==, 12);
    g_assert_cmpuint(FAKE_STAT(h, guest_errors), ==, 12);
    g_assert_cmpuint(fake_guest_errors_matching(h, "not owned"), ==, 1);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_SQ_TAIL), ==, 0);
    g_assert_cmpuint(h->kicks, ==, 0);
    fake_run(h);
    g_assert_cmpuint(FAKE_STAT(h, admin_cmds), ==, 0);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_host_free(h);
}

static void test_sq_dma_error_is_fatal(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;

    /* an admin SQ outside guest memory */
    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, 0x1000);
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_LO, (uint32_t)FAKE_ADMIN_CQ);
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, 2);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 1);
    fake_run(h);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) & SNIC_STATUS_FATAL,
                    ==, SNIC_STATUS_FATAL);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ERROR), ==,
                     SNIC_ERR_ADMIN_SQ_DMA);
    g_assert_cmpuint(h->irqs[0], ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, dma_errors), ==, 1);
    /* further doorbells are refused, nothing spins */
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 2);
    g_assert_false(snic_core_run(h->core, 8));
    /* reset recovers */
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_RESET);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS), ==,
                    SNIC_STATUS_LINK_UP);
    fake_enable(h, 2, 2);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_host_free(h);
}

static void test_reset_restores_power_on(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;
    uint64_t before[SNIC_BAR0_SIZE / 4], off;

    for (off = 0; off < 0x60; off += 4) {
        before[off / 4] = fake_reg_read(h, off);
    }
    fake_enable(h, 4, 4);
    fake_reg_write(h, SNIC_REG_INTR_MASK, SNIC_INTR_AEQ);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MTU, sizeof(cmd.set_mtu));
    cmd.set_mtu.mtu = GUINT32_TO_LE(4000);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 1, 0);
    snic_core_reset(h->core);
    for (off = 0; off < 0x60; off += 4) {
        g_assert_cmphex(fake_reg_read(h, off), ==, before[off / 4]);
    }
    g_assert_cmpuint(FAKE_STAT(h, admin_cmds), ==, 0);
    /* enabled again: default MTU, no queues left */
    fake_enable(h, 4, 4);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_GET_MTU, 0);
    {
        uint64_t mtu;

        g_assert_cmpuint(fake_admin(h, &cmd, &mtu), ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(mtu, ==, SNIC_ETH_DEFAULT_MTU);
    }
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_STOP_ETH_QUEUE, sizeof(cmd.eth_queue));
    cmd.eth_queue.type = SNIC_ETH_QUEUE_RX;
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_STATE);
    fake_host_free(h);
}

static void test_disable_keeps_layout(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;

    fake_enable(h, 3, 3);
    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 4, 1, 0);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, 0);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) & SNIC_STATUS_READY,
                    ==, 0);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_ADMIN_SQ_BASE_LO), ==,
                    (uint32_t)FAKE_ADMIN_SQ);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_DEPTH), ==, 3);
    g_assert_cmpuint(FAKE_STAT(h, admin_cmds), ==, 2);     /* kept */
    fake_enable(h, 3, 3);
    /* the queue is gone: it can be created again */
    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 4, 1, 0);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_host_free(h);
}

static void test_get_stats(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;
    struct snic_stats st;
    uint64_t result;

    fake_enable(h, 4, 4);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    fake_admin(h, &cmd, NULL);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_GET_STATS, sizeof(cmd.resp));
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    cmd.resp.resp_len = GUINT32_TO_LE(sizeof(st));
    g_assert_cmpuint(fake_admin(h, &cmd, &result), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(result, ==, sizeof(st));
    fake_read(h, FAKE_RESP, &st, sizeof(st));
    /* the snapshot is taken while GET_STATS runs: one NOP done before it */
    g_assert_cmpuint(GUINT64_FROM_LE(st.admin_cmds), ==, 1);
    g_assert_cmpuint(GUINT64_FROM_LE(st.doorbells), >=, 2);
    /* the same counters through BAR0 */
    g_assert_cmpuint(snic_core_reg_read(h->core, SNIC_REG_STATS +
                                        offsetof(struct snic_stats,
                                                 admin_cmds), 8), ==, 2);
    fake_host_free(h);
}

static void test_aeq_link_events(void)
{
    FakeHost *h = fake_host_new();
    struct snic_aeqe e;

    fake_enable(h, 2, 2);
    snic_core_set_link(h->core, false);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) &
                    SNIC_STATUS_LINK_UP, ==, 0);
    fake_read(h, FAKE_AEQ, &e, sizeof(e));
    g_assert_cmpuint(GUINT32_FROM_LE(e.event), ==, SNIC_EVENT_LINK_CHANGE);
    g_assert_cmpuint(GUINT64_FROM_LE(e.data), ==, 0);
    g_assert_cmpuint(e.flags, ==, SNIC_CQE_PHASE);
    g_assert_cmpuint(h->irqs[0], ==, 1);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_INTR_CAUSE), ==, SNIC_INTR_AEQ);
    snic_core_set_link(h->core, false);     /* no change, no event */
    snic_core_set_link(h->core, true);
    fake_read(h, FAKE_AEQ + SNIC_AEQE_SIZE, &e, sizeof(e));
    g_assert_cmpuint(GUINT64_FROM_LE(e.data), ==, 1);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_AEQ_TAIL), ==, 2);
    g_assert_cmpuint(FAKE_STAT(h, async_events), ==, 2);
    fake_host_free(h);
}

static void test_aeq_overflow(void)
{
    FakeHost *h = fake_host_new();
    int i;

    fake_enable(h, 2, 2);
    for (i = 0; i < 5; i++) {
        snic_core_set_link(h->core, i % 2);
    }
    g_assert_cmpuint(FAKE_STAT(h, async_events), ==, 4);
    g_assert_cmpuint(FAKE_STAT(h, async_events_lost), ==, 1);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) &
                    SNIC_STATUS_AEQ_OVERFLOW, ==, SNIC_STATUS_AEQ_OVERFLOW);
    /* the driver returns two slots: the next events land, second lap */
    fake_doorbell(h, 0, SNIC_DB_AEQ, 0, 2);
    snic_core_set_link(h->core, true);
    snic_core_set_link(h->core, false);
    g_assert_cmpuint(FAKE_STAT(h, async_events), ==, 6);
    {
        struct snic_aeqe e;

        fake_read(h, FAKE_AEQ + SNIC_AEQE_SIZE, &e, sizeof(e));
        g_assert_cmpuint(e.flags & SNIC_CQE_PHASE, ==, 0);
    }
    fake_host_free(h);
}

/* ERROR is acknowledged by any write; FATAL stays until reset/disable. */
static void test_error_register(void)
{
    FakeHost *h = fake_host_new();

    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_HI, 0x7f00);  /* outside */
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_LO, (uint32_t)FAKE_ADMIN_CQ);
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, 2);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 1);
    fake_run(h);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ERROR), ==,
                     SNIC_ERR_ADMIN_SQ_DMA);
    fake_reg_write(h, SNIC_REG_ERROR, 1);   /* not a bit mask */
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ERROR), ==, SNIC_ERR_NONE);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) & SNIC_STATUS_FATAL,
                    ==, SNIC_STATUS_FATAL);
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 2);
    g_assert_cmpuint(FAKE_STAT(h, doorbells_invalid), ==, 1);
    /* disable is enough to recover */
    fake_reg_write(h, SNIC_REG_DEV_CTRL, 0);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) & SNIC_STATUS_FATAL,
                    ==, 0);
    fake_host_free(h);
}

/* Rings whose end wraps the 64-bit address space are refused at enable. */
static void test_enable_wrapping_ring(void)
{
    FakeHost *h = fake_host_new();

    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, (uint32_t)FAKE_ADMIN_SQ);
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_LO, 0xffffffc0);
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_HI, 0xffffffff);
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, 3);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ERROR), ==,
                     SNIC_ERR_ADMIN_CONFIG);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) & SNIC_STATUS_READY,
                    ==, 0);
    fake_host_free(h);
}

/* Producer doorbells never move an index backwards. */
static void test_doorbell_backwards(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;

    fake_enable(h, 3, 3);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    fake_write(h, FAKE_ADMIN_SQ, &cmd, sizeof(cmd));
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 3);
    fake_doorbell(h, 0, SNIC_DB_ADMIN_SQ, 0, 1);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_SQ_TAIL), ==, 3);
    g_assert_cmpuint(FAKE_STAT(h, doorbells_invalid), ==, 1);
    fake_host_free(h);
}

/*
 * A reset that lands in the middle of an operation (the device's own DMA
 * hitting its FLR bit) takes effect when the operation ends: nothing of
 * the old state survives, and the driver starts cleanly.
 */
static void test_reset_inside_dma(void)
{
    FakeHost *h = fake_host_new();
    struct snic_admin_cmd cmd;
    unsigned purges;

    fake_enable(h, 3, 3);
    purges = h->rx_purges;
    h->reset_on_write = FAKE_ADMIN_CQ + 8;   /* the first completion */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    fake_admin_post(h, &cmd);
    fake_admin_post(h, &cmd);
    fake_run(h);
    h->reset_on_write = 0;
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS), ==,
                    SNIC_STATUS_LINK_UP);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_CQ_TAIL), ==, 0);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_ADMIN_SQ_HEAD), ==, 0);
    g_assert_cmpuint(fake_reg_read(h, SNIC_REG_INTR_CAUSE), ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, admin_cmds), ==, 0);
    g_assert_cmpuint(h->rx_purges, ==, purges + 1);
    fake_enable(h, 3, 3);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_host_free(h);
}

/* No AEQ (base 0) with a garbage depth: events are counted lost, no UB. */
static void test_aeq_absent(void)
{
    FakeHost *h = fake_host_new();

    fake_reg_write(h, SNIC_REG_ADMIN_SQ_BASE_LO, (uint32_t)FAKE_ADMIN_SQ);
    fake_reg_write(h, SNIC_REG_ADMIN_CQ_BASE_LO, (uint32_t)FAKE_ADMIN_CQ);
    fake_reg_write(h, SNIC_REG_ADMIN_DEPTH, 2);
    fake_reg_write(h, SNIC_REG_AEQ_DEPTH, 0xffffffff);
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmphex(fake_reg_read(h, SNIC_REG_DEV_STATUS) & SNIC_STATUS_READY,
                    ==, SNIC_STATUS_READY);
    snic_core_set_link(h->core, false);
    g_assert_cmpuint(FAKE_STAT(h, async_events_lost), ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, async_events), ==, 0);
    g_assert_cmpuint(h->irqs[0], ==, 0);
    fake_doorbell(h, 0, SNIC_DB_AEQ, 0, 1);
    g_assert_cmpuint(FAKE_STAT(h, doorbells_invalid), ==, 1);
    fake_host_free(h);
}

static uint16_t alloc_pd(FakeHost *h, uint64_t *pdn)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    return fake_admin(h, &cmd, pdn);
}

/*
 * x-admin-fail-*: the next 'count' commands of the op-code (create: every
 * CREATE, ALLOC and REG) complete with the status and create nothing;
 * others run; then the queue works as before. Counted, read back.
 */
static void test_admin_fail(void)
{
    FakeHost *h = fake_host_new();
    SnicAdminFail f = {
        .count = 2, .status = SNIC_ADMIN_NO_RESOURCES,
        .opcode = SNIC_ADMIN_FAIL_CREATE,
    };
    struct snic_admin_cmd cmd;
    uint64_t pdn = 99;

    fake_enable(h, 4, 4);
    g_assert_true(snic_core_set_admin_fail(h->core, &f, NULL));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(alloc_pd(h, &pdn), ==, SNIC_ADMIN_NO_RESOURCES);
    g_assert_cmpuint(pdn, ==, 0);       /* the result of no command */
    g_assert_cmpuint(alloc_pd(h, &pdn), ==, SNIC_ADMIN_NO_RESOURCES);
    snic_core_get_admin_fail(h->core, &f);
    g_assert_cmpuint(f.count, ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, obj_pds), ==, 0);
    g_assert_cmpuint(alloc_pd(h, &pdn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(FAKE_STAT(h, obj_pds), ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, admin_fails_injected), ==, 2);
    g_assert_cmpuint(FAKE_STAT(h, admin_errors), ==, 2);

    /* one op-code, another status: ALLOC_PD runs, CREATE_CQ fails once */
    f = (SnicAdminFail) { .count = 1, .status = SNIC_ADMIN_BAD_STATE,
                          .opcode = SNIC_ADMIN_CREATE_CQ };
    g_assert_true(snic_core_set_admin_fail(h->core, &f, NULL));
    g_assert_cmpuint(alloc_pd(h, &pdn), ==, SNIC_ADMIN_OK);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    g_assert_cmpuint(fake_admin(h, &cmd, NULL), ==, SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(FAKE_STAT(h, admin_fails_injected), ==, 3);
    g_assert_cmpuint(FAKE_STAT(h, obj_cqs), ==, 0);
    /* a reset of the device does not disarm what the host armed */
    f.count = 1;
    g_assert_true(snic_core_set_admin_fail(h->core, &f, NULL));
    snic_core_reset(h->core);
    snic_core_get_admin_fail(h->core, &f);
    g_assert_cmpuint(f.count, ==, 1);
    fake_host_free(h);
}

/* What cannot be armed is refused, naming the property; names both ways */
static void test_admin_fail_names(void)
{
    FakeHost *h = fake_host_new();
    SnicAdminFail f = { .count = 1, .status = SNIC_ADMIN_OK,
                        .opcode = SNIC_ADMIN_FAIL_CREATE };
    GError *err = NULL;
    uint16_t v;

    g_assert_false(snic_core_set_admin_fail(h->core, &f, &err));
    g_assert_cmpstr(err->message, ==, "x-admin-fail-status=OK is not a "
                    "failure");
    g_clear_error(&err);
    f.status = SNIC_ADMIN_NO_RESOURCES;
    f.opcode = 0x1ff;
    g_assert_false(snic_core_set_admin_fail(h->core, &f, &err));
    g_assert_cmpstr(err->message, ==, "x-admin-fail-opcode=511 is not an "
                    "op-code");
    g_clear_error(&err);
    snic_core_get_admin_fail(h->core, &f);
    g_assert_cmpuint(f.count, ==, 0);   /* nothing was armed */

    g_assert_true(snic_admin_opcode_parse("CREATE_QP", &v));
    g_assert_cmpuint(v, ==, SNIC_ADMIN_CREATE_QP);
    g_assert_true(snic_admin_opcode_parse("snic_admin_alloc_pd", &v));
    g_assert_cmpuint(v, ==, SNIC_ADMIN_ALLOC_PD);
    g_assert_true(snic_admin_opcode_parse("0x28", &v));
    g_assert_cmpuint(v, ==, SNIC_ADMIN_CREATE_QP);
    g_assert_true(snic_admin_opcode_parse("create", &v));
    g_assert_cmpuint(v, ==, SNIC_ADMIN_FAIL_CREATE);
    g_assert_false(snic_admin_opcode_parse("CREATE_PQ", &v));
    g_assert_false(snic_admin_opcode_parse("256", &v));
    g_assert_false(snic_admin_opcode_parse("-1", &v));
    g_assert_false(snic_admin_opcode_parse("", &v));
    g_assert_true(snic_admin_status_parse("no_resources", &v));
    g_assert_cmpuint(v, ==, SNIC_ADMIN_NO_RESOURCES);
    g_assert_true(snic_admin_status_parse("300", &v));
    g_assert_cmpuint(v, ==, 300);
    g_assert_false(snic_admin_status_parse("70000", &v));
    g_assert_cmpstr(snic_admin_opcode_name(SNIC_ADMIN_SET_QP_SR), ==,
                    "SET_QP_SR");
    g_assert_cmpstr(snic_admin_opcode_name(SNIC_ADMIN_FAIL_CREATE), ==,
                    "create");
    g_assert_null(snic_admin_opcode_name(0x06));
    g_assert_cmpstr(snic_admin_status_name(SNIC_ADMIN_BAD_STATE), ==,
                    "BAD_STATE");
    g_assert_null(snic_admin_status_name(300));
    fake_host_free(h);
}

/*
 * A table's free handles: the lowest first, each once, none beyond the
 * table; one given back is the next taken; the count in use follows, and
 * a reset frees them all. At sizes that fill a tree level exactly, leave
 * one handle over, and need every level (64^3 < 2^20).
 */
static void test_table_slots(void)
{
    static const uint32_t sizes[] = { 1, 63, 64, 65, 4096, 4097, 1u << 20 };

    for (unsigned k = 0; k < G_N_ELEMENTS(sizes); k++) {
        uint32_t max = sizes[k], i;
        SnicSlots s;

        snic_slots_init(&s, max);
        for (i = 1; i <= max; i++) {
            g_assert_cmpuint(snic_slots_take(&s), ==, i);
        }
        g_assert_cmpuint(snic_slots_take(&s), ==, 0);
        g_assert_cmpuint(s.used, ==, max);
        /* given back, from the top: each is the lowest free */
        snic_slots_put(&s, max);
        snic_slots_put(&s, max);            /* twice: once */
        g_assert_cmpuint(s.used, ==, max - 1);
        if (max > 65) {
            /* across a word: both bits of the level above set again */
            snic_slots_put(&s, 64);
            snic_slots_put(&s, 65);
            g_assert_cmpuint(snic_slots_take(&s), ==, 64);
            g_assert_cmpuint(snic_slots_take(&s), ==, 65);
        }
        g_assert_cmpuint(snic_slots_take(&s), ==, max);
        g_assert_cmpuint(snic_slots_take(&s), ==, 0);
        snic_slots_reset(&s);
        g_assert_cmpuint(s.used, ==, 0);
        g_assert_cmpuint(snic_slots_take(&s), ==, 1);
        snic_slots_free(&s);
    }
}

/*
 * The stats' object gauges follow every create and destroy, and a reset:
 * 3 PDs, one deallocated, then the device reset.
 */
static void test_object_gauges(void)
{
    FakeHost *h = fake_host_new();
    uint64_t pdn[3];

    fake_enable(h, 4, 4);
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpuint(alloc_pd(h, &pdn[i]), ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(pdn[i], ==, i + 1);
    }
    g_assert_cmpuint(FAKE_STAT(h, obj_pds), ==, 3);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, pdn[1]), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(FAKE_STAT(h, obj_pds), ==, 2);
    /* the lowest free handle again */
    g_assert_cmpuint(alloc_pd(h, &pdn[1]), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(pdn[1], ==, 2);
    g_assert_cmpuint(FAKE_STAT(h, obj_pds), ==, 3);
    snic_core_reset(h->core);
    g_assert_cmpuint(FAKE_STAT(h, obj_pds), ==, 0);
    fake_enable(h, 4, 4);
    g_assert_cmpuint(alloc_pd(h, &pdn[0]), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(pdn[0], ==, 1);
    fake_host_free(h);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/core/regs/identity", test_identity);
    g_test_add_func("/admin/onchip-budget", test_onchip_budget);
    g_test_add_func("/core/regs/bad-access", test_bad_register_access);
    g_test_add_func("/core/regs/enable-bad-config", test_enable_bad_config);
    g_test_add_func("/core/regs/config-locked-while-enabled",
                    test_config_locked_while_enabled);
    g_test_add_func("/core/regs/reset", test_reset_restores_power_on);
    g_test_add_func("/core/regs/disable-keeps-layout",
                    test_disable_keeps_layout);
    g_test_add_func("/core/admin/nop-and-interrupt", test_nop_and_interrupt);
    g_test_add_func("/core/admin/query-device", test_query_device);
    g_test_add_func("/core/admin/link-speed", test_link_speed);
    g_test_add_func("/core/admin/bad-commands", test_bad_commands);
    g_test_add_func("/core/admin/bad-response-buffer",
                    test_bad_response_buffer);
    g_test_add_func("/core/admin/mtu-and-mac", test_mtu_and_mac);
    g_test_add_func("/core/admin/phase-wraps", test_phase_wraps);
    g_test_add_func("/core/admin/cq-full-backpressure",
                    test_cq_full_backpressure);
    g_test_add_func("/core/admin/bad-doorbells", test_bad_doorbells);
    g_test_add_func("/core/admin/sq-dma-error-is-fatal",
                    test_sq_dma_error_is_fatal);
    g_test_add_func("/core/admin/get-stats", test_get_stats);
    g_test_add_func("/core/admin/fail-injected", test_admin_fail);
    g_test_add_func("/core/admin/fail-names", test_admin_fail_names);
    g_test_add_func("/core/aeq/link-events", test_aeq_link_events);
    g_test_add_func("/core/aeq/overflow", test_aeq_overflow);
    g_test_add_func("/core/aeq/absent", test_aeq_absent);
    g_test_add_func("/core/regs/error-register", test_error_register);
    g_test_add_func("/core/regs/enable-wrapping-ring",
                    test_enable_wrapping_ring);
    g_test_add_func("/core/admin/doorbell-backwards", test_doorbell_backwards);
    g_test_add_func("/core/regs/reset-inside-dma", test_reset_inside_dma);
    g_test_add_func("/core/admin/table-slots", test_table_slots);
    g_test_add_func("/core/admin/object-gauges", test_object_gauges);
    return g_test_run();
}
