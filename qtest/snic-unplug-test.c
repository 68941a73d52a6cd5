/*
 * qgraph test of the snic PCIe RDMA NIC (run by qos-test on x86_64/q35):
 * hot-unplug while the device is doing DMA.
 *
 * The node's device (libqos/snic.c) sits behind a pcie-root-port with
 * native PCIe hot-plug; a second snic on the same hub is its peer.
 * Unplugged twice: by the guest while the device has an RDMA transfer, an
 * Ethernet stream and admin commands in flight, then by its own DMA (an
 * admin response written onto the root port's Slot Control, through the
 * ECAM window), in the middle of that write.
 *
 * Copyright (c) 2026 snic authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qemu/bswap.h"
#include "qemu/cutils.h"
#include "qemu/module.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "qobject/qstring.h"
#include "hw/pci/pci_regs.h"
#include "libqos/qgraph.h"
#include "libqos/snic.h"

#define PEER_ID "peer"
#define PEER_DEVFN QPCI_DEVFN(6, 0)
#define MAC_A "02:00:00:00:00:01"
#define MAC_B "02:00:00:00:00:02"
#define ETH_LOG2 10                     /* a's TX ring: 1024 frames */
#define ADMIN_BURST 15                  /* NOPs left in the admin queue */
#define ECAM 0xb0000000ull              /* where firmware maps MMCONFIG */
/* Slot Control: power controller, power and attention indicators off */
#define SLTCTL_OFF (PCI_EXP_SLTCTL_PWR_OFF | PCI_EXP_SLTCTL_PWR_IND_OFF | \
                    PCI_EXP_SLTCTL_ATTN_IND_OFF)

static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 2 };
static const uint8_t mac_nobody[6] = { 2, 0, 0, 0, 0, 0x99 };

/*
 * No default devices, native PCIe hot-plug (not ACPI's), the wire and the
 * peer. The node's device gets netdev=wire0 from the test's edge options.
 */
static void *unplug_before(GString *cmd_line, void *arg)
{
    g_string_append(cmd_line,
                    " -nodefaults"
                    " -global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off"
                    " -netdev hubport,id=wire0,hubid=0"
                    " -netdev hubport,id=wire1,hubid=0"
                    " -device snic,id=" PEER_ID ",addr=06.0,netdev=wire1,"
                    "mac=" MAC_B);
    return arg;
}

/*
 * The guest's part of native hot-plug is to power the root port's slot
 * off and on: the offset of its Slot Control and the value that does so.
 */
static uint8_t slot_ctl(QPCIDevice *port)
{
    return qpci_find_capability(port, PCI_CAP_ID_EXP, 0) + PCI_EXP_SLTCTL;
}

static uint16_t slot_ctl_power(QPCIDevice *port, bool on)
{
    uint16_t ctl = qpci_config_readw(port, slot_ctl(port));

    ctl &= ~(PCI_EXP_SLTCTL_PIC | PCI_EXP_SLTCTL_PCC);
    return ctl | (on ? PCI_EXP_SLTCTL_PWR_IND_ON | PCI_EXP_SLTCTL_PWR_ON :
                       PCI_EXP_SLTCTL_PWR_IND_OFF | PCI_EXP_SLTCTL_PWR_OFF);
}

/*
 * DEVICE_DELETED for 'id' within about 5 s. QEMU sends it when the object
 * is finalized, which a reference the device kept to itself would stop.
 */
static bool device_deleted(QTestState *qts, const char *id)
{
    int i;

    for (i = 0; i < 500; i++) {
        QDict *ev;

        qobject_unref(qtest_qmp(qts, "{'execute': 'query-status'}"));
        while ((ev = qtest_qmp_event_ref(qts, "DEVICE_DELETED"))) {
            QDict *data = qdict_get_qdict(ev, "data");
            bool match = data && qdict_haskey(data, "device") &&
                         !strcmp(qdict_get_str(data, "device"), id);

            qobject_unref(ev);
            if (match) {
                return true;
            }
        }
        g_usleep(10 * 1000);
    }
    return false;
}

/* Is a device with this id in query-pci (on any bus)? */
static bool pci_devices_have(QList *devices, const char *id)
{
    QListEntry *e;

    QLIST_FOREACH_ENTRY(devices, e) {
        QDict *dev = qobject_to(QDict, qlist_entry_obj(e));
        QDict *bridge = qdict_get_qdict(dev, "pci_bridge");

        if (qdict_haskey(dev, "qdev_id") &&
            !strcmp(qdict_get_str(dev, "qdev_id"), id)) {
            return true;
        }
        if (bridge && qdict_haskey(bridge, "devices") &&
            pci_devices_have(qdict_get_qlist(bridge, "devices"), id)) {
            return true;
        }
    }
    return false;
}

static bool pci_has(QTestState *qts, const char *id)
{
    QDict *resp = qtest_qmp(qts, "{'execute': 'query-pci'}");
    QList *buses = qdict_get_qlist(resp, "return");
    QListEntry *e;
    bool found = false;

    QLIST_FOREACH_ENTRY(buses, e) {
        QDict *bus = qobject_to(QDict, qlist_entry_obj(e));

        found = found || pci_devices_have(qdict_get_qlist(bus, "devices"), id);
    }
    qobject_unref(resp);
    return found;
}

/* How many snic devices block migration (query-migrate's reasons). */
static unsigned snic_blockers(QTestState *qts)
{
    QDict *resp = qtest_qmp(qts, "{'execute': 'query-migrate'}");
    QDict *info = qdict_get_qdict(resp, "return");
    QList *reasons = qdict_get_qlist(info, "blocked-reasons");
    QListEntry *e;
    unsigned n = 0;

    if (reasons) {
        QLIST_FOREACH_ENTRY(reasons, e) {
            QString *r = qobject_to(QString, qlist_entry_obj(e));

            n += g_str_has_prefix(qstring_get_str(r), "snic: migration");
        }
    }
    qobject_unref(resp);
    return n;
}

/* Are 'len' bytes of guest memory at 'addr' zero? */
static bool buffer_is_zero_guest(QTestState *qts, uint64_t addr, size_t len)
{
    g_autofree uint8_t *buf = g_malloc(len);

    qtest_memread(qts, addr, buf, len);
    return buffer_is_zero(buf, len);
}

/* device_add a new snic into the node's slot and power it on. */
static QSnic *replug(QTestState *qts, QGuestAllocator *alloc,
                     QPCIDevice *port, unsigned db_pages)
{
    g_assert_false(pci_has(qts, QSNIC_NODE_ID));
    qtest_qmp_device_add(qts, "snic", QSNIC_NODE_ID,
                         "{'bus': %s, 'netdev': 'wire0', 'mac': %s,"
                         " 'doorbell-pages': %u}",
                         QSNIC_NODE_PORT, MAC_A, db_pages);
    g_assert_cmpuint(snic_blockers(qts), ==, 2);
    qpci_config_writew(port, slot_ctl(port), slot_ctl_power(port, true));
    return qsnic_new(qts, alloc, port->bus, QSNIC_NODE_DEVFN);
}

/* A WRITE and a READ between new RC QPs on a and b. */
static void rdma_works(QSnic *a, QSnic *b)
{
    QTestState *qts = a->qts;
    QSnicRdmaNode na, nb;

    qsnic_rdma_node_init(&na, a, 1, SNIC_QPT_RC);
    qsnic_rdma_node_init(&nb, b, 2, SNIC_QPT_RC);
    memcpy(na.mac, mac_a, 6);
    memcpy(nb.mac, mac_b, 6);
    qsnic_rdma_connect(&na, &nb);
    qsnic_rdma_connect(&nb, &na);
    qsnic_fill_pattern(qts, na.buf, 0x4000, 7);
    qsnic_rdma_post(&na, 1, SNIC_WR_RDMA_WRITE, 0, 0x4000, nb.buf, nb.lkey,
                    0, 0);
    qsnic_rdma_expect(&na, 1, SNIC_WC_SUCCESS);
    qsnic_assert_same(qts, na.buf, nb.buf, 0x4000);
    qsnic_fill_pattern(qts, nb.buf + 0x8000, 0x2000, 9);
    qsnic_rdma_post(&na, 2, SNIC_WR_RDMA_READ, 0x8000, 0x2000,
                    nb.buf + 0x8000, nb.lkey, 0, 0);
    qsnic_rdma_expect(&na, 2, SNIC_WC_SUCCESS);
    qsnic_assert_same(qts, na.buf + 0x8000, nb.buf + 0x8000, 0x2000);
}

/*
 * After an unplug: nothing of 'a' is left, the device object was
 * finalized (no reference kept), it is gone from query-pci and config
 * space, its migration blocker removed; its timers and run-state handler
 * went with it (the clock runs on, the VM stops and continues) and it DMAs
 * no more (its admin CQ and MSI-X words, cleared, stay clear); b carries
 * on.
 */
static void clear_marks(QSnic *a)
{
    int v;

    qtest_memset(a->qts, a->cq, 0, SNIC_ADMIN_CQE_SIZE << QSNIC_ADMIN_LOG2);
    for (v = 0; v < QSNIC_NVEC; v++) {
        qtest_writel(a->qts, a->msi_word[v], 0);
    }
}

/* 'cleared': a's admin CQ and MSI-X words were cleared before the unplug */
static void check_gone(QTestState *qts, QSnic *a, QSnic *b, bool cleared)
{
    int v;

    g_assert_true(device_deleted(qts, QSNIC_NODE_ID));
    g_assert_false(pci_has(qts, QSNIC_NODE_ID));
    g_assert_true(pci_has(qts, PEER_ID));
    g_assert_cmpuint(snic_blockers(qts), ==, 1);
    g_assert_cmphex(qpci_config_readw(a->dev, PCI_VENDOR_ID), ==, 0xffff);
    if (!cleared) {
        clear_marks(a);
    }
    qtest_clock_step(qts, 1000 * 1000 * 1000);
    qtest_qmp_assert_success(qts, "{'execute': 'stop'}");
    qtest_qmp_assert_success(qts, "{'execute': 'cont'}");
    qtest_clock_step(qts, 1000 * 1000 * 1000);
    for (v = 0; v < QSNIC_NVEC; v++) {
        g_assert_cmphex(qtest_readl(qts, a->msi_word[v]), ==, 0);
    }
    g_assert_true(buffer_is_zero_guest(qts, a->cq, SNIC_ADMIN_CQE_SIZE <<
                                       QSNIC_ADMIN_LOG2));
    qsnic_admin_nop_ok(b);
}

/*
 * A TX queue of 2^log2 descriptors on a, each holding the same frame to a
 * MAC nobody has (b counts them in rx_filtered); the doorbell is the
 * caller's.
 */
static void eth_prepare(QSnic *a, unsigned log2)
{
    QTestState *qts = a->qts;
    uint64_t txr = guest_alloc(a->alloc, 16 << log2);
    uint64_t frame = guest_alloc(a->alloc, 1514);
    unsigned i;

    qsnic_eth_queue(a, SNIC_ETH_QUEUE_TX, txr, log2, 2);
    qtest_memset(qts, frame, 0x5a, 1514);
    qtest_memwrite(qts, frame, mac_nobody, 6);
    qtest_memwrite(qts, frame + 6, mac_a, 6);
    for (i = 0; i < 1u << log2; i++) {
        qsnic_put_desc(a, txr, i, log2, frame, 1514, SNIC_ETH_DESC_EOP);
    }
}

/*
 * The guest unplugs a while it streams RDMA requests to b (stuck in RNR
 * retries, with a timer armed: b has no receive for a's SEND and a retries
 * for ever), with 1024 Ethernet frames and 15 admin commands just kicked.
 */
static void unplug_by_guest(QSnic *a, QSnic *b, QPCIDevice *port)
{
    QTestState *qts = a->qts;
    QSnicRdmaNode na, nb;
    struct snic_admin_cmd cmd;
    struct snic_cqe c;
    uint64_t tx0, tx1, sent;
    uint16_t power_off;
    unsigned i;

    qsnic_rdma_node_init(&na, a, 1, SNIC_QPT_RC);
    qsnic_rdma_node_init(&nb, b, 2, SNIC_QPT_RC);
    memcpy(na.mac, mac_a, 6);
    memcpy(nb.mac, mac_b, 6);
    qsnic_rdma_connect(&na, &nb);
    qsnic_rdma_connect(&nb, &na);
    eth_prepare(a, ETH_LOG2);

    /* a SEND b has no receive for, 16 WRITEs of 64 KiB behind it */
    qsnic_fill_pattern(qts, na.buf, 0x10000, 1);
    qsnic_rdma_post(&na, 1, SNIC_WR_SEND, 0, 0x10000, 0, 0, 0, 0);
    for (i = 0; i < 16; i++) {
        qsnic_rdma_post(&na, 2 + i, SNIC_WR_RDMA_WRITE, 0, 0x10000, nb.buf,
                        nb.lkey, 0, 0);
    }
    qtest_clock_step(qts, 100 * 1000);
    tx0 = QSNIC_STAT(a, rdma_tx_packets);
    for (i = 0; i < 10; i++) {
        qtest_clock_step(qts, 100 * 1000);
    }
    tx1 = QSNIC_STAT(a, rdma_tx_packets);
    g_assert_cmpuint(tx0, >, 0);
    g_assert_cmpuint(tx1, >, tx0);                   /* a keeps retrying */
    g_assert_false(qsnic_rdma_poll_for(&na, &c, 1)); /* nothing completed */

    /* 15 NOPs; the 1024 frames are ready */
    for (i = 0; i < ADMIN_BURST; i++) {
        uint32_t slot = (a->sq_tail + i) & ((1u << QSNIC_ADMIN_LOG2) - 1);

        snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
        qtest_memwrite(qts, a->sq + slot * SNIC_ADMIN_CMD_SIZE, &cmd,
                       sizeof(cmd));
    }
    power_off = slot_ctl_power(port, false);

    /* a retry due, the queues kicked: then the unplug, at once */
    qtest_clock_step(qts, 100 * 1000);
    qsnic_doorbell(a, 0, SNIC_DB_ADMIN_SQ, 0, a->sq_tail + ADMIN_BURST);
    qsnic_doorbell(a, 0, SNIC_DB_ETH_TX, 0, 1u << ETH_LOG2);
    qtest_qmp_device_del_send(qts, QSNIC_NODE_ID);
    qpci_config_writew(port, slot_ctl(port), power_off);

    check_gone(qts, a, b, false);
    sent = QSNIC_STAT(b, rx_filtered);
    g_test_message("the guest unplugged a after %" PRIu64 " of %u frames",
                   sent, 1u << ETH_LOG2);
    g_assert_cmpuint(QSNIC_STAT(b, rdma_rx_packets), >=, tx1);
}

/*
 * QUERY_DEVICE's response buffer lies on the root port's config space
 * (ECAM), its num_db_pages field on the Slot Control register: a with
 * doorbell-pages=0x7c0 powers its slot off, and is unplugged in the middle
 * of its own DMA write (the response's next bytes land on Root Control).
 * In the same engine run, after the command, 64 frames wait to be sent:
 * the unplugged device must send none, nor write the command's completion
 * or its MSI-X message.
 */
static void unplug_by_own_dma(QSnic *a, QSnic *b, QPCIDevice *port)
{
    QTestState *qts = a->qts;
    QPCIDevice *host = qpci_device_find(port->bus, 0);
    uint64_t sltctl = ECAM + (port->devfn << 12) + slot_ctl(port);
    size_t field = offsetof(struct snic_device_attr, num_db_pages);
    struct snic_admin_cmd cmd;
    uint64_t filtered;

    g_assert_cmphex(slot_ctl_power(port, false), ==, SLTCTL_OFF);
    g_assert_cmpuint(qsnic_rd(a, SNIC_REG_DB_PAGES), ==, SLTCTL_OFF);
    /* firmware's job: map MMCONFIG (q35 PCIEXBAR, 256 MiB, enabled) */
    qpci_config_writel(host, 0x60, ECAM | 1);
    qpci_config_writel(host, 0x64, 0);
    g_assert_cmphex(qtest_readw(qts, sltctl), ==,
                    qpci_config_readw(port, slot_ctl(port)));

    eth_prepare(a, 6);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = cpu_to_le64(sltctl - field);
    cmd.resp.resp_len = cpu_to_le32(field + 8);
    g_assert_cmpuint((sltctl - field) % 8, ==, 0);
    qtest_memwrite(qts, a->sq + (a->sq_tail % (1u << QSNIC_ADMIN_LOG2)) *
                   SNIC_ADMIN_CMD_SIZE, &cmd, sizeof(cmd));
    clear_marks(a);
    filtered = QSNIC_STAT(b, rx_filtered);

    /* both doorbells before the engine runs: it runs when the VM does */
    qtest_qmp_assert_success(qts, "{'execute': 'stop'}");
    qsnic_doorbell(a, 0, SNIC_DB_ADMIN_SQ, 0, a->sq_tail + 1);
    qsnic_doorbell(a, 0, SNIC_DB_ETH_TX, 0, 64);
    qtest_qmp_assert_success(qts, "{'execute': 'cont'}");

    check_gone(qts, a, b, true);
    g_assert_cmpuint(QSNIC_STAT(b, rx_filtered), ==, filtered);
    g_free(host);
}

/*
 * Each unplug must leave QEMU running with nothing of the device left
 * (check_gone), its netdev and id free for a new snic in the same slot,
 * which then works with b.
 */
static void test_hot_unplug_during_dma(void *obj, void *data,
                                       QGuestAllocator *alloc)
{
    QSnic *a = obj, *a2, *a3;
    QTestState *qts = a->qts;
    QSnic *b = qsnic_new(qts, alloc, a->dev->bus, PEER_DEVFN);
    QPCIDevice *port = qpci_device_find(a->dev->bus,
                                        QPCI_DEVFN(QSNIC_NODE_PORT_SLOT, 0));

    g_assert_nonnull(port);
    g_assert_true(pci_has(qts, QSNIC_NODE_ID));
    g_assert_cmpuint(snic_blockers(qts), ==, 2);
    qsnic_enable(a);
    qsnic_enable(b);
    rdma_works(a, b);
    unplug_by_guest(a, b, port);

    a2 = replug(qts, alloc, port, SLTCTL_OFF);
    qsnic_enable(a2);
    rdma_works(a2, b);
    unplug_by_own_dma(a2, b, port);

    a3 = replug(qts, alloc, port, 64);
    qsnic_enable(a3);
    rdma_works(a3, b);
    g_assert_cmpuint(QSNIC_STAT(a3, guest_errors), ==, 0);

    qsnic_close(a3);
    qsnic_close(a2);
    qsnic_close(b);
    g_free(port);
}

static void snic_register_tests(void)
{
    QOSGraphTestOptions opts = {
        .edge.extra_device_opts = "netdev=wire0,mac=" MAC_A,
        .before = unplug_before,
    };

    qos_add_test("hot-unplug-during-dma", "snic", test_hot_unplug_during_dma,
                 &opts);
}

libqos_init(snic_register_tests);
