/*
 * QTest for the snic PCIe RDMA NIC: PCI identity, admin queue and MSI-X,
 * hostile register/doorbell/command/descriptor input, reset and FLR, and
 * Ethernet frames between two devices and to a socket peer.
 *
 * Plain qtests on q35; the device helpers are in libqos/snic.c, which also
 * holds the qgraph node of snic-unplug-test.
 *
 * Copyright (c) 2026 snic authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <sys/socket.h>
#include <glib/gstdio.h>
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/pci-pc.h"
#include "libqos/malloc-pc.h"
#include "libqos/snic.h"
#include "hw/pci/pci_regs.h"
#include "qobject/qdict.h"
#include "qobject/qjson.h"

/*
 * WRITE, READ, SEND/RECV and both atomics between two devices in one QEMU,
 * through their admin queues, doorbells and rings in guest memory.
 */
static void test_rdma_back_to_back(void)
{
    QSnicRdmaNode a, b;
    QSnicMachine *m = qsnic_rdma_pair(&a, &b);
    QTestState *qts = m->qts;

    /* WRITE 9000 bytes (9 segments at MTU 1024) a -> b */
    qsnic_fill_pattern(qts, a.buf, 9000, 1);
    qsnic_rdma_post(&a, 1, SNIC_WR_RDMA_WRITE, 0, 9000, b.buf + 0x4000, b.lkey,
                    0, 0);
    qsnic_rdma_expect(&a, 1, SNIC_WC_SUCCESS);
    qsnic_assert_same(qts, a.buf, b.buf + 0x4000, 9000);

    /* READ 5000 bytes of b into a */
    qsnic_fill_pattern(qts, b.buf + 0x8000, 5000, 2);
    qsnic_rdma_post(&a, 2, SNIC_WR_RDMA_READ, 0x8000, 5000, b.buf + 0x8000,
                    b.lkey, 0, 0);
    qsnic_rdma_expect(&a, 2, SNIC_WC_SUCCESS);
    qsnic_assert_same(qts, a.buf + 0x8000, b.buf + 0x8000, 5000);

    /* SEND 3000 bytes into a posted receive */
    qsnic_fill_pattern(qts, a.buf + 0xc000, 3000, 3);
    qsnic_rdma_post_recv(&b, 70, 0xc000, 4096);
    qsnic_rdma_post(&a, 3, SNIC_WR_SEND, 0xc000, 3000, 0, 0, 0, 0);
    qsnic_rdma_expect(&a, 3, SNIC_WC_SUCCESS);
    qsnic_rdma_expect(&b, 70, SNIC_WC_SUCCESS);
    qsnic_assert_same(qts, a.buf + 0xc000, b.buf + 0xc000, 3000);

    /* FETCH_ADD then CMP_SWAP on one 8-byte word of b */
    qtest_writeq(qts, b.buf + 0xf000, 40);
    qsnic_rdma_post(&a, 4, SNIC_WR_ATOMIC_FETCH_ADD, 0xf000, 8, b.buf + 0xf000,
                    b.lkey, 2, 0);
    qsnic_rdma_expect(&a, 4, SNIC_WC_SUCCESS);
    g_assert_cmpuint(qtest_readq(qts, a.buf + 0xf000), ==, 40);
    g_assert_cmpuint(qtest_readq(qts, b.buf + 0xf000), ==, 42);
    qsnic_rdma_post(&a, 5, SNIC_WR_ATOMIC_CMP_SWAP, 0xf008, 8, b.buf + 0xf000,
                    b.lkey, 42, 7);
    qsnic_rdma_expect(&a, 5, SNIC_WC_SUCCESS);
    g_assert_cmpuint(qtest_readq(qts, a.buf + 0xf008), ==, 42);
    g_assert_cmpuint(qtest_readq(qts, b.buf + 0xf000), ==, 7);

    g_assert_cmpuint(QSNIC_STAT(a.s, guest_errors), ==, 0);
    g_assert_cmpuint(QSNIC_STAT(b.s, guest_errors), ==, 0);
    /* requests only, nothing retransmitted: WRITE 9, READ 1, SEND 3, 2 */
    g_assert_cmpuint(QSNIC_STAT(a.s, rdma_tx_packets), ==, 9 + 1 + 3 + 2);
    qsnic_close(a.s);
    qsnic_close(b.s);
    qsnic_machine_stop(m);
}

/* An rkey of the wrong region: REM_ACCESS_ERR, and b's memory untouched. */
static void test_rdma_remote_access_error(void)
{
    QSnicRdmaNode a, b;
    QSnicMachine *m = qsnic_rdma_pair(&a, &b);
    QTestState *qts = m->qts;

    qtest_writeq(qts, b.buf, 0x1122334455667788ull);
    qsnic_fill_pattern(qts, a.buf, 64, 9);
    qsnic_rdma_post(&a, 1, SNIC_WR_RDMA_WRITE, 0, 64, b.buf, b.lkey ^ 0x100,
                    0, 0);
    qsnic_rdma_post(&a, 2, SNIC_WR_RDMA_WRITE, 0, 64, b.buf, b.lkey, 0, 0);
    qsnic_rdma_expect(&a, 1, SNIC_WC_REM_ACCESS_ERR);
    qsnic_rdma_expect(&a, 2, SNIC_WC_WR_FLUSH_ERR);
    g_assert_cmphex(qtest_readq(qts, b.buf), ==, 0x1122334455667788ull);
    qsnic_close(a.s);
    qsnic_close(b.s);
    qsnic_machine_stop(m);
}

/*
 * Both devices drop 2 % of what they send (and duplicate and reorder
 * some): 40 WRITEs, READs and SENDs all complete, in order, with the
 * right bytes, through go-back-N retransmission.
 */
static void test_rdma_lossy(void)
{
    const char *faults = ",wire-drop=2,wire-dup=1,wire-reorder=1";
    const char *dir = g_getenv("SNIC_PCAP_DIR");
    /* SNIC_PCAP_DIR: device a's capture, for tests/tshark/ */
    g_autofree char *opt_a = dir ?
        g_strdup_printf("%s,pcap=%s/device-lossy.pcap", faults, dir) :
        g_strdup(faults);
    QSnicRdmaNode a, b;
    QSnicMachine *m = qsnic_rdma_pair_opts(&a, &b, opt_a, faults);
    QTestState *qts = m->qts;
    uint64_t drops;
    unsigned i;

    qsnic_fill_pattern(qts, a.buf, 0x8000, 11);
    qsnic_fill_pattern(qts, b.buf + 0x8000, 0x8000, 12);
    for (i = 0; i < 40; i++) {
        uint32_t off = (i % 4) * 0x2000, len = 0x2000 - i * 64;

        switch (i % 3) {
        case 0:
            qsnic_rdma_post(&a, i, SNIC_WR_RDMA_WRITE, off, len, b.buf + off,
                            b.lkey, 0, 0);
            break;
        case 1:
            qsnic_rdma_post(&a, i, SNIC_WR_RDMA_READ, 0x8000 + off, len,
                            b.buf + 0x8000 + off, b.lkey, 0, 0);
            break;
        default:
            qsnic_rdma_post_recv(&b, 1000 + i, off, 0x2000);
            qsnic_rdma_post(&a, i, SNIC_WR_SEND, off, len, 0, 0, 0, 0);
            break;
        }
        qsnic_rdma_expect(&a, i, SNIC_WC_SUCCESS);
        if (i % 3 == 2) {
            qsnic_rdma_expect(&b, 1000 + i, SNIC_WC_SUCCESS);
        }
        if (i % 3 == 1) {
            qsnic_assert_same(qts, a.buf + 0x8000 + off, b.buf + 0x8000 + off,
                              len);
        } else {
            qsnic_assert_same(qts, a.buf + off, b.buf + off, len);
        }
    }
    drops = QSNIC_STAT(a.s, wire_drops_injected) +
            QSNIC_STAT(b.s, wire_drops_injected);
    g_assert_cmpuint(drops, >, 0);
    g_assert_cmpuint(QSNIC_STAT(a.s, guest_errors), ==, 0);
    qsnic_close(a.s);
    qsnic_close(b.s);
    qsnic_machine_stop(m);
}

/* pcap= captures both directions: the file holds the whole exchange. */
static void test_rdma_pcap(void)
{
    g_autofree char *dir = g_dir_make_tmp("snic-qtest-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "a.pcap", NULL);
    g_autofree char *opt = g_strdup_printf(",pcap=%s", path);
    g_autofree char *data = NULL;
    QSnicRdmaNode a, b;
    QSnicMachine *m = qsnic_rdma_pair_opts(&a, &b, opt, "");
    size_t len, off;
    unsigned frames = 0;

    qsnic_rdma_post(&a, 1, SNIC_WR_RDMA_WRITE, 0, 3000, b.buf, b.lkey, 0, 0);
    qsnic_rdma_expect(&a, 1, SNIC_WC_SUCCESS);
    qsnic_close(a.s);
    qsnic_close(b.s);
    qsnic_machine_stop(m);              /* closes the capture */

    g_assert_true(g_file_get_contents(path, &data, &len, NULL));
    g_assert_cmpuint(len, >=, 24);
    g_assert_cmphex((uint32_t)ldl_le_p(data), ==, 0xa1b23c4d);  /* ns */
    for (off = 24; off + 16 <= len; frames++) {
        off += 16 + (uint32_t)ldl_le_p(data + off + 8);
    }
    g_assert_cmpuint(off, ==, len);
    /* 3 WRITE segments out, at least one ACK in */
    g_assert_cmpuint(frames, >=, 4);
    g_unlink(path);
    g_rmdir(dir);
}

/* max-qps/max-cqs/max-mrs are reported and enforced. */
static void test_rdma_limits(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0,max-qps=3,"
                                          "max-cqs=2,max-mrs=5");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    struct snic_admin_cmd cmd;
    struct snic_device_attr at;
    QSnicRdmaNode n;
    unsigned i;

    qsnic_enable(s);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = cpu_to_le64(s->resp);
    cmd.resp.resp_len = cpu_to_le32(sizeof(at));
    qsnic_admin_ok(s, &cmd);
    qtest_memread(m->qts, s->resp, &at, sizeof(at));
    g_assert_cmpuint(le32_to_cpu(at.max_qp), ==, 3);
    g_assert_cmpuint(le32_to_cpu(at.max_cq), ==, 2);
    g_assert_cmpuint(le32_to_cpu(at.max_mr), ==, 5);
    qsnic_rdma_node_init(&n, s, 1, SNIC_QPT_RC);        /* QP 1 of 3 */
    for (i = 0; i < 3; i++) {
        uint16_t st = qsnic_rdma_create_qp(s, SNIC_QPT_RC, n.pdn, n.cqn, n.sq,
                                           n.rq, NULL);

        if (i < 2) {
            g_assert_cmpuint(st, ==, SNIC_ADMIN_OK);
        } else {
            g_assert_cmpuint(st, !=, SNIC_ADMIN_OK);
        }
    }
    qsnic_close(s);
    qsnic_machine_stop(m);
}

/*
 * A driver gone wrong on device a: garbage in every BAR0 register and at
 * every doorbell offset, malformed admin commands, a QP fed random WQEs.
 * Afterwards the untouched QP pair still completes a WRITE.
 */
static void test_rdma_hostile_then_healthy(void)
{
    static const uint8_t creates[] = {
        SNIC_ADMIN_ALLOC_PD, SNIC_ADMIN_REG_MR, SNIC_ADMIN_CREATE_EQ,
        SNIC_ADMIN_CREATE_CQ, SNIC_ADMIN_CREATE_QP, SNIC_ADMIN_QUERY_QP,
    };
    QSnicRdmaNode a, b;
    QSnicMachine *m = qsnic_rdma_pair(&a, &b);
    QTestState *qts = m->qts;
    QSnic *s = a.s;
    struct snic_admin_cmd cmd;
    uint32_t seed = 0x2545f491, i;
    uint64_t off, vcq, vqp, vsq = qsnic_alloc_pages(s, QSNIC_RDMA_SQ_PAGES);
    uint64_t vcq_ring = qsnic_alloc_pages(s, 1);
    struct snic_cqe cqe;

    /* a victim QP with a CQ of its own, in RTS towards a QPN b lacks */
    vcq = qsnic_rdma_create_cq(s, vcq_ring, a.eqn);
    g_assert_cmpuint(qsnic_rdma_create_qp(s, SNIC_QPT_RC, a.pdn, vcq, vsq,
                                          qsnic_alloc_pages(s, 1), &vqp), ==,
                                          SNIC_ADMIN_OK);
    {
        QSnicRdmaNode v = a, ghost = b;

        v.qpn = vqp;
        ghost.qpn = 999;
        qsnic_rdma_connect(&v, &ghost);
    }

    /* random WQEs on the victim QP, then its doorbell */
    for (i = 0; i < (1u << QSNIC_RDMA_SQ_LOG2) * SNIC_SQ_WQE_SIZE / 4; i++) {
        seed = seed * 1103515245 + 12345;
        qtest_writel(qts, vsq + i * 4, seed);
    }
    qsnic_doorbell(s, 0, SNIC_DB_SQ, vqp, 1u << QSNIC_RDMA_SQ_LOG2);

    /* malformed admin commands: garbage bodies, bad headers, op-codes */
    for (i = 0; i < 64; i++) {
        unsigned j;

        for (j = 0; j < sizeof(cmd); j += 4) {
            seed = seed * 1103515245 + 12345;
            memcpy((uint8_t *)&cmd + j, &seed, 4);
        }
        cmd.hdr.opcode = i % 3 ? creates[i % sizeof(creates)] : 0x80 + i;
        if (i % 4 == 1) {
            cmd.hdr.version = SNIC_ADMIN_CMD_VERSION;
            cmd.hdr.len = cpu_to_le16(sizeof(cmd.create_qp));
        }
        qsnic_admin(s, &cmd, NULL);   /* any status, but it completes */
    }

    /* garbage at every doorbell offset, sparing the healthy queues */
    for (off = 0; off < 64 * SNIC_DB_PAGE_SIZE; off += 8) {
        uint64_t v;
        uint32_t qid;

        seed = seed * 1103515245 + 12345;
        v = ((uint64_t)seed << 32) | (seed * 2654435761u);
        qid = (v >> SNIC_DB_QID_SHIFT) & SNIC_DB_QID_MASK;
        if (qid == a.qpn || qid == a.cqn || qid == a.eqn || qid == 0) {
            continue;
        }
        qpci_io_writeq(s->dev, s->bar2, off, v);
    }

    /* garbage in every register but DEV_CTRL (that one resets by design) */
    for (off = 0; off < SNIC_BAR0_SIZE; off += 4) {
        seed = seed * 1103515245 + 12345;
        if (off != SNIC_REG_DEV_CTRL) {
            qpci_io_writel(s->dev, s->bar0, off, seed);
        }
    }
    qsnic_wr(s, SNIC_REG_INTR_MASK, 0);
    qsnic_wr(s, SNIC_REG_INTR_CAUSE, ~0u);
    qtest_clock_step(qts, 1000 * 1000 * 1000);  /* let the victim fail */
    g_assert_cmpuint(QSNIC_STAT(s, guest_errors), >, 0);
    qtest_memread(qts, vcq_ring, &cqe, sizeof(cqe));
    g_assert_cmphex(cqe.flags & SNIC_CQE_PHASE, ==, SNIC_CQE_PHASE);
    g_assert_cmpuint(cqe.status, !=, SNIC_WC_SUCCESS);

    /* the healthy pair still works */
    qsnic_fill_pattern(qts, a.buf, 6000, 21);
    qsnic_rdma_post(&a, 77, SNIC_WR_RDMA_WRITE, 0, 6000, b.buf + 0x2000, b.lkey,
                    0, 0);
    qsnic_rdma_expect(&a, 77, SNIC_WC_SUCCESS);
    qsnic_assert_same(qts, a.buf, b.buf + 0x2000, 6000);
    qsnic_close(a.s);
    qsnic_close(b.s);
    qsnic_machine_stop(m);
}

/* Driver mistakes reach QEMU's log under -d guest_errors, named. */
static void test_guest_error_log(void)
{
    g_autofree char *dir = g_dir_make_tmp("snic-qtest-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "qemu.log", NULL);
    g_autofree char *args = g_strdup_printf("-d guest_errors -D %s "
                                            "-device snic,addr=04.0", path);
    g_autofree char *log = NULL;
    QSnicMachine *m = qsnic_machine_start(args);
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);

    qsnic_enable(s);
    qsnic_doorbell(s, 0, SNIC_DB_SQ, 77, 1);          /* no such QP */
    qsnic_doorbell(s, 0, SNIC_DB_CQ, 5, 3);           /* no such CQ */
    g_assert_cmpuint(QSNIC_STAT(s, guest_errors), ==, 2);
    qsnic_close(s);
    qsnic_machine_stop(m);
    g_assert_true(g_file_get_contents(path, &log, NULL, NULL));
    g_assert_nonnull(strstr(log, "snic: doorbell page 0: QP 77 is not owned"));
    g_assert_nonnull(strstr(log, "snic: doorbell page 0: CQ 5 is not owned"));
    g_unlink(path);
    g_rmdir(dir);
}

/* UD: a datagram lands after its 40-byte GRH; a wrong Q_Key is dropped. */
static void test_rdma_ud(void)
{
    static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 2 };
    QSnicMachine *m = qsnic_machine_start("-netdev hubport,id=h0,hubid=0 "
                                          "-netdev hubport,id=h1,hubid=0 "
                                          "-device snic,addr=04.0,netdev=h0,"
                                          "mac=02:00:00:00:00:01 "
                                          "-device snic,addr=05.0,netdev=h1,"
                                          "mac=02:00:00:00:00:02");
    QTestState *qts = m->qts;
    QSnicRdmaNode a, b;
    QSnicRdmaNode *n[2] = { &a, &b };
    struct snic_qp_attr at;
    struct snic_sq_wqe w;
    struct snic_cqe c;
    uint8_t grh[40];
    unsigned i;

    for (i = 0; i < 2; i++) {
        QSnic *s = qsnic_open(m, i ? QSNIC_SLOT_B : QSNIC_SLOT_A);

        qsnic_enable(s);
        qsnic_rdma_node_init(n[i], s, i + 1, SNIC_QPT_UD);
        memset(&at, 0, sizeof(at));
        at.qp_state = cpu_to_le32(SNIC_QPS_INIT);
        at.port_num = 1;
        at.qkey = cpu_to_le32(0x1234);
        qsnic_rdma_modify(n[i], SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                          SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_QKEY, &at);
        at.qp_state = cpu_to_le32(SNIC_QPS_RTR);
        qsnic_rdma_modify(n[i], SNIC_QP_ATTR_STATE, &at);
        at.qp_state = cpu_to_le32(SNIC_QPS_RTS);
        qsnic_rdma_modify(n[i], SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN, &at);
    }
    qsnic_fill_pattern(qts, a.buf, 1000, 5);
    qsnic_rdma_post_recv(&b, 50, 0x4000, 4096 + 40);
    for (i = 0; i < 2; i++) {
        memset(&w, 0, sizeof(w));
        w.wr_id = cpu_to_le64(i + 1);
        w.opcode = SNIC_WR_SEND;
        w.flags = SNIC_WQE_SIGNALED;
        w.num_sge = 1;
        w.ud.av.dgid[10] = w.ud.av.dgid[11] = 0xff;
        w.ud.av.dgid[12] = 10;
        w.ud.av.dgid[15] = 2;
        w.ud.av.sgid[10] = w.ud.av.sgid[11] = 0xff;
        w.ud.av.sgid[12] = 10;
        w.ud.av.sgid[15] = 1;
        memcpy(w.ud.av.dmac, mac_b, 6);
        w.ud.remote_qpn = cpu_to_le32(b.qpn);
        w.ud.remote_qkey = cpu_to_le32(i ? 0x9999 : 0x1234);
        w.sge[0].addr = cpu_to_le64(a.buf);
        w.sge[0].length = cpu_to_le32(1000);
        w.sge[0].lkey = cpu_to_le32(a.lkey);
        qtest_memwrite(qts, a.sq + i * SNIC_SQ_WQE_SIZE, &w, sizeof(w));
        qsnic_doorbell(a.s, 0, SNIC_DB_SQ, a.qpn, ++a.sq_pi);
        qsnic_rdma_expect(&a, i + 1, SNIC_WC_SUCCESS);    /* sent */
    }
    g_assert_true(qsnic_rdma_poll(&b, &c));
    g_assert_cmpuint(le64_to_cpu(c.wr_id), ==, 50);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(c.byte_len), ==, 40 + 1000);
    g_assert_cmpuint(le32_to_cpu(c.src_qp), ==, a.qpn);
    qtest_memread(qts, b.buf + 0x4000, grh, sizeof(grh));
    g_assert_cmpuint(grh[20], ==, 0x45);            /* IPv4 in bytes 20-39 */
    g_assert_cmpuint(grh[20 + 15], ==, 1);          /* from 10.0.0.1 */
    qsnic_assert_same(qts, a.buf, b.buf + 0x4000 + 40, 1000);
    /* the datagram with the wrong Q_Key was dropped, not delivered */
    g_assert_false(qsnic_rdma_poll_for(&b, &c, 1000));        /* 10 ms */
    g_assert_cmpuint(QSNIC_STAT(b.s, rdma_rx_dropped), ==, 1);
    qsnic_close(a.s);
    qsnic_close(b.s);
    qsnic_machine_stop(m);
}

/* ---- PCI identity ---- */

static void test_identity(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QPCIDevice *dev = qpci_device_find(m->bus, QPCI_DEVFN(QSNIC_SLOT_A, 0));
    uint64_t size;
    uint8_t cap;
    QPCIBar bar;
    int b;

    g_assert_nonnull(dev);
    g_assert_cmphex(qpci_config_readw(dev, PCI_VENDOR_ID), ==, 0x1af4);
    g_assert_cmphex(qpci_config_readw(dev, PCI_DEVICE_ID), ==, 0x10f0);
    g_assert_cmphex(qpci_config_readw(dev, PCI_CLASS_DEVICE), ==, 0x0200);
    g_assert_cmphex(qpci_config_readw(dev, PCI_SUBSYSTEM_VENDOR_ID), ==,
                    0x1af4);
    g_assert_cmphex(qpci_config_readb(dev, PCI_REVISION_ID), ==,
                    SNIC_PCI_REVISION);
    for (b = 0; b <= 4; b += 2) {
        uint32_t bar_reg = qpci_config_readl(dev, PCI_BASE_ADDRESS_0 + b * 4);

        g_assert_cmphex(bar_reg & PCI_BASE_ADDRESS_SPACE, ==,
                        PCI_BASE_ADDRESS_SPACE_MEMORY);
        g_assert_cmphex(bar_reg & PCI_BASE_ADDRESS_MEM_TYPE_MASK, ==,
                        PCI_BASE_ADDRESS_MEM_TYPE_64);
        g_assert_cmphex(bar_reg & PCI_BASE_ADDRESS_MEM_PREFETCH, ==, 0);
    }
    cap = qpci_find_capability(dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmpuint(cap, !=, 0);
    g_assert_cmpuint(qpci_find_capability(dev, PCI_CAP_ID_PM, 0), !=, 0);
    cap = qpci_find_capability(dev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmpuint(cap, !=, 0);
    g_assert_cmpuint(qpci_msix_table_size(dev), ==, 8);    /* default */
    qpci_device_enable(dev);
    bar = qpci_iomap(dev, SNIC_BAR_REGS, &size);
    g_assert_cmpuint(size, ==, SNIC_BAR0_SIZE);
    g_assert_cmphex(qpci_io_readl(dev, bar, SNIC_REG_MAGIC), ==, SNIC_MAGIC);
    g_assert_cmphex(qpci_io_readl(dev, bar, SNIC_REG_ABI_VERSION), ==,
                    SNIC_ABI_VERSION);
    g_assert_cmpuint(qpci_io_readl(dev, bar, SNIC_REG_DB_PAGES), ==, 64);
    qpci_iomap(dev, SNIC_BAR_DOORBELL, &size);
    g_assert_cmpuint(size, ==, 64 * SNIC_DB_PAGE_SIZE);
    g_free(dev);
    qsnic_machine_stop(m);
}

static void test_properties(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0,"
                                          "vendor-id=0x10ee,device-id=0x9038,"
                                          "subsystem-id=0x0007,vectors=16,"
                                          "doorbell-pages=5");
    QPCIDevice *dev = qpci_device_find(m->bus, QPCI_DEVFN(QSNIC_SLOT_A, 0));
    uint64_t size;
    QPCIBar bar;

    g_assert_cmphex(qpci_config_readw(dev, PCI_VENDOR_ID), ==, 0x10ee);
    g_assert_cmphex(qpci_config_readw(dev, PCI_DEVICE_ID), ==, 0x9038);
    g_assert_cmphex(qpci_config_readw(dev, PCI_SUBSYSTEM_ID), ==, 0x0007);
    g_assert_cmpuint(qpci_msix_table_size(dev), ==, 16);
    qpci_device_enable(dev);
    bar = qpci_iomap(dev, SNIC_BAR_REGS, NULL);
    g_assert_cmpuint(qpci_io_readl(dev, bar, SNIC_REG_DB_PAGES), ==, 5);
    g_assert_cmpuint(qpci_io_readl(dev, bar, SNIC_REG_NUM_VECTORS), ==, 16);
    qpci_iomap(dev, SNIC_BAR_DOORBELL, &size);
    g_assert_cmpuint(size, ==, 8 * SNIC_DB_PAGE_SIZE);  /* power of two */
    g_free(dev);
    qsnic_machine_stop(m);
}

/* device_add of a snic with prop=value into rp0; the error text, or NULL. */
static char *try_device_add(QTestState *qts, const char *prop, int64_t value)
{
    QDict *args = qdict_new();
    QDict *resp, *err;
    char *desc;

    qdict_put_str(args, "driver", "snic");
    qdict_put_str(args, "bus", "rp0");
    qdict_put_int(args, prop, value);
    resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': %p}", args);
    err = qdict_get_qdict(resp, "error");
    desc = err ? g_strdup(qdict_get_str(err, "desc")) : NULL;
    qobject_unref(resp);
    return desc;
}

/*
 * Hot-plugged into a root port (pcie.0 itself refuses hot-plug, which
 * would hide the device's own error): each bad value is refused with a
 * message naming it, and a good device still plugs in afterwards.
 */
static void test_bad_properties(void)
{
    static const struct {
        const char *prop;
        int64_t value;
        const char *error;
    } bad[] = {
        { "vectors", 0, "vectors=0 is out of range" },
        { "vectors", 65, "vectors=65 is out of range" },
        /* accepted by the core, but no driver could use the function */
        { "vectors", 1, "vectors=1 is below the minimum of 3" },
        { "vectors", 2, "vectors=2 is below the minimum of 3" },
        { "doorbell-pages", 0, "doorbell-pages=0 is out of range" },
        { "doorbell-pages", 1, "doorbell-pages=1 is below the minimum of 2" },
        { "doorbell-pages", 5000, "doorbell-pages=5000 is out of range" },
        { "tlb-entries", 0, "tlb-entries=0 must be a power of two" },
        { "tlb-entries", 100, "tlb-entries=100 must be a power of two" },
        { "max-qps", 0, "max-qps=0 is out of range" },
        { "max-cqs", 0, "max-cqs=0 is out of range" },
        { "max-mrs", 2000000, "max-mrs=2000000 is out of range" },
        { "wire-drop", 101, "wire-drop=101 is not a percentage" },
        { "wire-dup", 200, "wire-dup=200 is not a percentage" },
        { "wire-reorder", 101, "wire-reorder=101 is not a percentage" },
    };
    QTestState *qts = qtest_init(QSNIC_MACHINE
                                 "-device pcie-root-port,id=rp0,chassis=1");
    char *desc;
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(bad); i++) {
        desc = try_device_add(qts, bad[i].prop, bad[i].value);
        g_assert_nonnull(desc);
        g_assert_nonnull(strstr(desc, bad[i].error));
        g_free(desc);
    }
    g_assert_null(try_device_add(qts, "tlb-entries", 256));
    qtest_quit(qts);
}

static void test_migration_blocked(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QDict *resp = qtest_qmp(m->qts, "{'execute': 'migrate', 'arguments': "
                            "{'uri': 'exec:cat > /dev/null'}}");
    QDict *err = qdict_get_qdict(resp, "error");

    g_assert_nonnull(err);
    g_assert_nonnull(strstr(qdict_get_str(err, "desc"), "snic: migration"));
    qobject_unref(resp);
    qsnic_machine_stop(m);
}

/* ---- admin queue ---- */

static void test_admin_nop_msix(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    struct snic_admin_cqe cqe;
    int i;

    qsnic_enable(s);
    for (i = 0; i < 40; i++) {      /* several laps of a 16-entry ring */
        qsnic_admin_nop_ok(s);
    }
    qtest_memread(m->qts, s->cq, &cqe, sizeof(cqe));
    g_assert_cmpuint(le16_to_cpu(cqe.sq_head), ==, 33);
    g_assert_cmpuint(qsnic_rd(s, SNIC_REG_ADMIN_SQ_HEAD), ==, 40);
    g_assert_cmpuint(QSNIC_STAT(s, admin_cmds), ==, 40);
    g_assert_cmpuint(QSNIC_STAT(s, guest_errors), ==, 0);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

static void test_admin_query_device(void)
{
    QSnicMachine *m = qsnic_machine_start("-netdev hubport,id=h0,hubid=0 "
                                          "-device snic,addr=04.0,netdev=h0,"
                                          "mac=02:00:00:00:00:2a,"
                                          "tlb-entries=256");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0x2a };
    struct snic_admin_cmd cmd;
    struct snic_device_attr a;
    uint64_t result;

    qsnic_enable(s);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = cpu_to_le64(s->resp);
    cmd.resp.resp_len = cpu_to_le32(sizeof(a));
    g_assert_cmpuint(qsnic_admin(s, &cmd, &result), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(result, ==, sizeof(a));
    qtest_memread(m->qts, s->resp, &a, sizeof(a));
    g_assert_cmphex(le32_to_cpu(a.magic), ==, SNIC_MAGIC);
    g_assert_cmpmem(a.mac, 6, mac, 6);
    g_assert_cmpuint(le16_to_cpu(a.num_vectors), ==, 8);
    g_assert_cmpuint(le32_to_cpu(a.tlb_entries), ==, 256);
    g_assert_cmpuint(le32_to_cpu(a.max_mtu), ==, SNIC_ETH_MAX_MTU);
    g_assert_cmphex(le64_to_cpu(a.caps) & SNIC_CAP_ETH, ==, SNIC_CAP_ETH);
    g_assert_cmpuint(a.link_up, ==, 1);

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MTU, sizeof(cmd.set_mtu));
    cmd.set_mtu.mtu = cpu_to_le32(9000);
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_OK);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_GET_MTU, 0);
    g_assert_cmpuint(qsnic_admin(s, &cmd, &result), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(result, ==, 9000);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

/* ---- hostile input ---- */

static void test_bad_registers(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    uint32_t seed = 0x12345678;
    uint64_t off;

    qsnic_enable(s);
    /* every offset, every access size, pseudo-random values */
    for (off = 0; off < SNIC_BAR0_SIZE; off += 4) {
        seed = seed * 1103515245 + 12345;
        if (off == SNIC_REG_DEV_CTRL) {
            continue;   /* exercised below */
        }
        qpci_io_writel(s->dev, s->bar0, off, seed);
        qpci_io_writeb(s->dev, s->bar0, off + 1, seed >> 8);
        qpci_io_readw(s->dev, s->bar0, off + 2);
        qpci_io_readl(s->dev, s->bar0, off);
    }
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_MAGIC), ==, SNIC_MAGIC);
    g_assert_cmpuint(QSNIC_STAT(s, guest_errors), >, 0);
    /*
     * The layout registers were locked while enabled, so once the driver
     * restores its interrupt mask and acks the causes, the queue works.
     */
    qsnic_wr(s, SNIC_REG_INTR_MASK, 0);
    qsnic_wr(s, SNIC_REG_INTR_CAUSE, ~0u);
    qsnic_irq_seen(s, 0);
    qsnic_admin_nop_ok(s);
    /* disabled, with garbage in every register: enabling reports why */
    qsnic_wr(s, SNIC_REG_DEV_CTRL, 0);
    qsnic_wr(s, SNIC_REG_ADMIN_DEPTH, 0xdeadbeef);
    qsnic_wr(s, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE | 0xf0);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) & SNIC_STATUS_READY, ==,
                    0);
    g_assert_cmpuint(qsnic_rd(s, SNIC_REG_ERROR), ==, SNIC_ERR_ADMIN_CONFIG);
    qsnic_wr(s, SNIC_REG_ERROR, ~0u);
    qsnic_enable(s);
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

static void test_bad_doorbells(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0,"
                                          "doorbell-pages=4");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    uint64_t page, off, before;

    qsnic_enable(s);
    before = QSNIC_STAT(s, doorbells_invalid);
    for (page = 0; page < 4; page++) {
        for (off = 0; off < SNIC_DB_PAGE_SIZE; off += 0x3f8) {
            uint64_t a = page * SNIC_DB_PAGE_SIZE + off;

            qpci_io_writeq(s->dev, s->bar2, a, 0xdeadbeefcafef00dull + a);
            qpci_io_writel(s->dev, s->bar2, a, 0x12345678);
            qpci_io_writeb(s->dev, s->bar2, a + 3, 0x9a);
            g_assert_cmphex(qpci_io_readq(s->dev, s->bar2, a), ==, 0);
        }
    }
    /* a well-formed doorbell for a queue of another context's page */
    qsnic_doorbell(s, 2, SNIC_DB_ADMIN_SQ, 0, 1);
    /* an admin SQ index far past the ring */
    qsnic_doorbell(s, 0, SNIC_DB_ADMIN_SQ, 0, 1000);
    g_assert_cmpuint(QSNIC_STAT(s, doorbells_invalid) - before, ==,
                     4 * 5 * 3 + 2);
    g_assert_cmpuint(qsnic_rd(s, SNIC_REG_ADMIN_SQ_TAIL), ==, 0);
    g_assert_false(qsnic_irq_seen(s, 0));
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

static void test_bad_commands(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    struct snic_admin_cmd cmd;
    int op;

    qsnic_enable(s);
    for (op = 0x60; op < 0x100; op += 0x17) {     /* 7 unknown op-codes */
        snic_admin_cmd_init(&cmd, op, 0);
        memset(cmd.raw, op, sizeof(cmd.raw));
        g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_OPCODE);
    }
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.hdr.version = 0;
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_VERSION);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, 3);
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_LENGTH);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MTU, sizeof(cmd.set_mtu));
    cmd.set_mtu.mtu = cpu_to_le32(100000);
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_START_ETH_QUEUE,
                        sizeof(cmd.eth_queue));
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_STATE);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_ETH_QUEUE,
                        sizeof(cmd.create_eth_queue));
    cmd.create_eth_queue.log2_depth = 4;
    cmd.create_eth_queue.vector = cpu_to_le16(8);   /* only 0..7 */
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(QSNIC_STAT(s, admin_errors), ==, 7 + 5);
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

static void test_bad_addresses(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    struct snic_admin_cmd cmd;
    /* far above RAM: nothing decodes there */
    const uint64_t hole = 0x7f0000000000ull;

    qsnic_enable(s);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = cpu_to_le64(hole);
    cmd.resp.resp_len = cpu_to_le32(128);
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);
    cmd.resp.resp_addr = cpu_to_le64(s->resp + 2);
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_ETH_QUEUE,
                        sizeof(cmd.create_eth_queue));
    cmd.create_eth_queue.ring_addr = cpu_to_le64(hole);
    cmd.create_eth_queue.log2_depth = 4;
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);
    g_assert_cmpuint(QSNIC_STAT(s, dma_errors), ==, 2);
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

static void test_bad_admin_ring(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);

    /* an admin SQ nowhere in RAM: the fetch fails, the device goes fatal */
    qsnic_wr(s, SNIC_REG_ADMIN_SQ_BASE_LO, 0);
    qsnic_wr(s, SNIC_REG_ADMIN_SQ_BASE_HI, 0x7f00);
    qsnic_wr(s, SNIC_REG_ADMIN_CQ_BASE_LO, s->cq);
    qsnic_wr(s, SNIC_REG_ADMIN_DEPTH, QSNIC_ADMIN_LOG2);
    qsnic_wr(s, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    qsnic_doorbell(s, 0, SNIC_DB_ADMIN_SQ, 0, 1);
    g_assert_true(qsnic_wait_irq(s, 0));
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) & SNIC_STATUS_FATAL, ==,
                    SNIC_STATUS_FATAL);
    g_assert_cmpuint(qsnic_rd(s, SNIC_REG_ERROR), ==, SNIC_ERR_ADMIN_SQ_DMA);
    /* the driver resets and starts over */
    qsnic_wr(s, SNIC_REG_DEV_CTRL, SNIC_CTRL_RESET);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) & ~SNIC_STATUS_LINK_UP,
                    ==, 0);
    qsnic_enable(s);
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

static void test_bad_descriptors(void)
{
    QSnicMachine *m = qsnic_machine_start("-netdev hubport,id=h0,hubid=0 "
                                          "-device snic,addr=04.0,netdev=h0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    uint64_t ring = guest_alloc(&m->alloc, 16 * 16);
    uint64_t buf = guest_alloc(&m->alloc, 2048);
    struct snic_eth_desc d;

    qsnic_enable(s);
    qsnic_eth_queue(s, SNIC_ETH_QUEUE_TX, ring, 4, 1);
    qtest_memset(m->qts, buf, 0xff, 2048);
    qsnic_put_desc(s, ring, 0, 4, 0x7f0000000000ull, 100, SNIC_ETH_DESC_EOP);
    qsnic_put_desc(s, ring, 1, 4, buf, 2000, SNIC_ETH_DESC_EOP);  /* > MTU */
    qsnic_put_desc(s, ring, 2, 4, buf, 0, SNIC_ETH_DESC_EOP);     /* empty */
    qsnic_put_desc(s, ring, 3, 4, buf, 60, SNIC_ETH_DESC_EOP);    /* fine */
    qsnic_doorbell(s, 0, SNIC_DB_ETH_TX, 0, 4);
    g_assert_true(qsnic_wait_desc_done(s, ring, 3, 4));
    g_assert_true(qsnic_wait_irq(s, 1));
    for (int i = 0; i < 3; i++) {
        d = qsnic_get_desc(s, ring, i, 4);
        g_assert_cmphex(le16_to_cpu(d.flags) & SNIC_ETH_DESC_ERR, ==,
                        SNIC_ETH_DESC_ERR);
    }
    d = qsnic_get_desc(s, ring, 3, 4);
    g_assert_cmphex(le16_to_cpu(d.flags), ==,
                    SNIC_ETH_DESC_EOP | SNIC_ETH_DESC_DONE);
    g_assert_cmpuint(QSNIC_STAT(s, tx_dropped), ==, 3);
    g_assert_cmpuint(QSNIC_STAT(s, tx_frames), ==, 1);
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

/* ---- reset ---- */

static void check_power_on_regs(QSnic *s)
{
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_CTRL), ==, 0);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) & ~SNIC_STATUS_LINK_UP,
                    ==, 0);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_ADMIN_SQ_BASE_LO), ==, 0);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_ADMIN_DEPTH), ==, 0);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_AEQ_BASE_LO), ==, 0);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_ADMIN_SQ_HEAD), ==, 0);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_INTR_CAUSE), ==, 0);
    g_assert_cmpuint(QSNIC_STAT(s, admin_cmds), ==, 0);
}

static void test_reset_register(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);

    qsnic_enable(s);
    qsnic_admin_nop_ok(s);
    qsnic_eth_queue(s, SNIC_ETH_QUEUE_RX, guest_alloc(&m->alloc, 256), 4, 1);
    qsnic_wr(s, SNIC_REG_DEV_CTRL, SNIC_CTRL_RESET);
    check_power_on_regs(s);
    qsnic_enable(s);
    /* the RX queue is gone: its id can be created again */
    qsnic_eth_queue(s, SNIC_ETH_QUEUE_RX, guest_alloc(&m->alloc, 256), 4, 1);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

static void test_reset_flr(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    uint8_t exp = qpci_find_capability(s->dev, PCI_CAP_ID_EXP, 0);

    g_assert_cmphex(qpci_config_readl(s->dev, exp + PCI_EXP_DEVCAP) &
                    PCI_EXP_DEVCAP_FLR, ==, PCI_EXP_DEVCAP_FLR);
    qsnic_enable(s);
    qsnic_admin_nop_ok(s);
    qpci_config_writew(s->dev, exp + PCI_EXP_DEVCTL,
                       qpci_config_readw(s->dev, exp + PCI_EXP_DEVCTL) |
                       PCI_EXP_DEVCTL_BCR_FLR);
    /* FLR cleared config space: the BAR is unmapped until re-enabled */
    g_assert_cmphex(qpci_config_readw(s->dev, PCI_COMMAND) &
                    PCI_COMMAND_MEMORY, ==, 0);
    qpci_device_enable(s->dev);
    s->bar0 = qpci_iomap(s->dev, SNIC_BAR_REGS, NULL);
    check_power_on_regs(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

/*
 * The device's own DMA lands on its PCIe Device Control register through
 * the ECAM window and sets Initiate FLR in the middle of writing an admin
 * completion. The reset must win: afterwards the device is at power-on
 * state and a driver starting over sees its first completion in slot 0.
 */
static void test_reset_flr_from_own_dma(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    QPCIDevice *host = qpci_device_find(m->bus, 0);
    const uint64_t ecam = 0xb0000000;
    uint8_t exp = qpci_find_capability(s->dev, PCI_CAP_ID_EXP, 0);
    uint64_t cfg = ecam + (QPCI_DEVFN(QSNIC_SLOT_A, 0) << 12);
    struct snic_admin_cmd cmd;
    int i;

    /* firmware's job: map MMCONFIG (q35 PCIEXBAR, 256 MiB, enabled) */
    qpci_config_writel(host, 0x60, ecam | 1);
    qpci_config_writel(host, 0x64, 0);
    g_assert_cmphex(qtest_readw(m->qts, cfg + PCI_VENDOR_ID), ==, 0x1af4);

    /* admin CQ slot 0 overlays the PCIe capability: cmd_id -> DEVCTL */
    g_assert_cmpuint((exp + PCI_EXP_DEVCTL) % 16, ==, 8);
    qsnic_wr(s, SNIC_REG_ADMIN_SQ_BASE_LO, s->sq);
    qsnic_wr(s, SNIC_REG_ADMIN_SQ_BASE_HI, s->sq >> 32);
    qsnic_wr(s, SNIC_REG_ADMIN_CQ_BASE_LO, cfg + exp + PCI_EXP_DEVCTL - 8);
    qsnic_wr(s, SNIC_REG_ADMIN_DEPTH, QSNIC_ADMIN_LOG2);
    qsnic_wr(s, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    for (i = 0; i < 2; i++) {
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
        cmd.hdr.cmd_id = cpu_to_le16(PCI_EXP_DEVCTL_BCR_FLR);
        qtest_memwrite(m->qts, s->sq + i * SNIC_ADMIN_CMD_SIZE, &cmd,
                       sizeof(cmd));
    }
    qsnic_doorbell(s, 0, SNIC_DB_ADMIN_SQ, 0, 2);
    /* FLR cleared PCI_COMMAND: wait for that, then bring the device up */
    for (i = 0; i < QSNIC_WAIT_ITERS &&
                (qpci_config_readw(s->dev, PCI_COMMAND) & PCI_COMMAND_MEMORY);
         i++) {
        qtest_clock_step(m->qts, 1000);
    }
    g_assert_cmphex(qpci_config_readw(s->dev, PCI_COMMAND) &
                    PCI_COMMAND_MEMORY, ==, 0);
    qpci_device_enable(s->dev);
    s->bar0 = qpci_iomap(s->dev, SNIC_BAR_REGS, NULL);
    s->bar2 = qpci_iomap(s->dev, SNIC_BAR_DOORBELL, NULL);
    qsnic_msix_setup(s);
    check_power_on_regs(s);
    g_assert_cmpuint(qsnic_rd(s, SNIC_REG_ADMIN_CQ_TAIL), ==, 0);
    qsnic_enable(s);
    qsnic_admin_nop_ok(s);
    g_free(host);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

/* ---- Ethernet ---- */

static size_t make_frame(uint8_t *f, const uint8_t *dst, size_t payload,
                         uint8_t seed)
{
    static const uint8_t src[6] = { 2, 0, 0, 0, 0, 0xa };
    size_t i;

    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x88;
    f[13] = 0xb5;   /* local experimental ethertype */
    for (i = 0; i < payload; i++) {
        f[14 + i] = seed + i * 13;
    }
    return 14 + payload;
}

static void test_eth_back_to_back(void)
{
    QSnicMachine *m = qsnic_machine_start("-netdev hubport,id=h0,hubid=0 "
                                          "-netdev hubport,id=h1,hubid=0 "
                                          "-device snic,addr=04.0,netdev=h0,"
                                          "mac=02:00:00:00:00:01 "
                                          "-device snic,addr=05.0,netdev=h1,"
                                          "mac=02:00:00:00:00:02");
    static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 2 };
    QSnic *a = qsnic_open(m, QSNIC_SLOT_A), *b = qsnic_open(m, QSNIC_SLOT_B);
    uint64_t txr = guest_alloc(&m->alloc, 64 * 16);
    uint64_t rxr = guest_alloc(&m->alloc, 64 * 16);
    uint64_t txb = guest_alloc(&m->alloc, 32 * 2048);
    uint64_t rxb = guest_alloc(&m->alloc, 32 * 2048);
    uint8_t frame[1514], got[1514];
    const int n = 32;
    int i;

    qsnic_enable(a);
    qsnic_enable(b);
    qsnic_eth_queue(a, SNIC_ETH_QUEUE_TX, txr, 6, 1);
    qsnic_eth_queue(b, SNIC_ETH_QUEUE_RX, rxr, 6, 2);
    for (i = 0; i < n; i++) {
        qsnic_put_desc(b, rxr, i, 6, rxb + i * 2048, 2048, 0);
    }
    qsnic_doorbell(b, 0, SNIC_DB_ETH_RX, 0, n);
    for (i = 0; i < n; i++) {
        size_t len = make_frame(frame, mac_b, 60 + i * 45, i);

        qtest_memwrite(m->qts, txb + i * 2048, frame, len);
        qsnic_put_desc(a, txr, i, 6, txb + i * 2048, len, SNIC_ETH_DESC_EOP);
    }
    qsnic_doorbell(a, 0, SNIC_DB_ETH_TX, 0, n);
    g_assert_true(qsnic_wait_desc_done(b, rxr, n - 1, 6));
    g_assert_true(qsnic_wait_irq(a, 1));
    g_assert_true(qsnic_wait_irq(b, 2));
    for (i = 0; i < n; i++) {
        struct snic_eth_desc d = qsnic_get_desc(b, rxr, i, 6);
        size_t len = make_frame(frame, mac_b, 60 + i * 45, i);

        g_assert_cmphex(le16_to_cpu(d.flags), ==, SNIC_ETH_DESC_DONE);
        g_assert_cmpuint(le16_to_cpu(d.len), ==, len);
        qtest_memread(m->qts, rxb + i * 2048, got, len);
        g_assert_cmpmem(got, len, frame, len);
    }
    g_assert_cmpuint(QSNIC_STAT(a, tx_frames), ==, n);
    g_assert_cmpuint(QSNIC_STAT(b, rx_frames), ==, n);
    /* B's ring is now full: more frames wait in the backend, not lost */
    for (i = 0; i < 4; i++) {
        size_t len = make_frame(frame, mac_b, 100, 0x40 + i);

        qtest_memwrite(m->qts, txb + i * 2048, frame, len);
        qsnic_put_desc(a, txr, n + i, 6, txb + i * 2048, len,
                       SNIC_ETH_DESC_EOP);
    }
    qsnic_doorbell(a, 0, SNIC_DB_ETH_TX, 0, n + 4);
    g_assert_true(qsnic_wait_desc_done(a, txr, n + 3, 6));
    g_assert_cmpuint(QSNIC_STAT(b, rx_frames), ==, n);
    for (i = 0; i < 4; i++) {
        qsnic_put_desc(b, rxr, n + i, 6, rxb + i * 2048, 2048, 0);
    }
    qsnic_doorbell(b, 0, SNIC_DB_ETH_RX, 0, n + 4);
    g_assert_true(qsnic_wait_desc_done(b, rxr, n + 3, 6));
    qtest_memread(m->qts, rxb + 3 * 2048, got, 114);
    make_frame(frame, mac_b, 100, 0x43);
    g_assert_cmpmem(got, 114, frame, 114);
    g_assert_cmpuint(QSNIC_STAT(b, rx_frames), ==, n + 4);
    qsnic_close(a);
    qsnic_close(b);
    qsnic_machine_stop(m);
}

static void test_eth_socket_peer(void)
{
    int sv[2];
    g_autofree char *args = NULL;
    QSnicMachine *m;
    QSnic *s;
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 7 };
    uint64_t txr, rxr, buf;
    uint8_t frame[256], got[256];
    uint32_t be;
    size_t len;
    struct timeval tv = { .tv_sec = 30 };

    g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), ==, 0);
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    args = g_strdup_printf("-netdev socket,fd=%d,id=s0 "
                           "-device snic,addr=04.0,netdev=s0,"
                           "mac=02:00:00:00:00:07", sv[1]);
    m = qsnic_machine_start(args);
    close(sv[1]);
    s = qsnic_open(m, QSNIC_SLOT_A);
    txr = guest_alloc(&m->alloc, 16 * 16);
    rxr = guest_alloc(&m->alloc, 16 * 16);
    buf = guest_alloc(&m->alloc, 8 * 2048);
    qsnic_enable(s);
    qsnic_eth_queue(s, SNIC_ETH_QUEUE_TX, txr, 4, 1);
    qsnic_eth_queue(s, SNIC_ETH_QUEUE_RX, rxr, 4, 2);

    /* device -> peer */
    len = make_frame(frame, mac, 200, 9);
    qtest_memwrite(m->qts, buf, frame, len);
    qsnic_put_desc(s, txr, 0, 4, buf, len, SNIC_ETH_DESC_EOP);
    qsnic_doorbell(s, 0, SNIC_DB_ETH_TX, 0, 1);
    g_assert_true(qsnic_wait_desc_done(s, txr, 0, 4));
    g_assert_cmpint(recv(sv[0], &be, 4, MSG_WAITALL), ==, 4);
    g_assert_cmpuint(ntohl(be), ==, len);
    g_assert_cmpint(recv(sv[0], got, len, MSG_WAITALL), ==, len);
    g_assert_cmpmem(got, len, frame, len);

    /* peer -> device: a RoCEv2 frame (reserved) then a normal one */
    qsnic_put_desc(s, rxr, 0, 4, buf + 2048, 2048, 0);
    qsnic_doorbell(s, 0, SNIC_DB_ETH_RX, 0, 1);
    memset(frame, 0, sizeof(frame));
    memcpy(frame, mac, 6);
    frame[12] = 0x08;               /* IPv4 */
    frame[14] = 0x45;
    frame[14 + 9] = 17;             /* UDP */
    frame[14 + 20 + 2] = 4791 >> 8;
    frame[14 + 20 + 3] = 4791 & 0xff;
    len = 14 + 20 + 8 + 40;
    be = htonl(len);
    g_assert_cmpint(send(sv[0], &be, 4, 0), ==, 4);
    g_assert_cmpint(send(sv[0], frame, len, 0), ==, len);
    len = make_frame(frame, mac, 100, 77);
    be = htonl(len);
    g_assert_cmpint(send(sv[0], &be, 4, 0), ==, 4);
    g_assert_cmpint(send(sv[0], frame, len, 0), ==, len);
    g_assert_true(qsnic_wait_desc_done(s, rxr, 0, 4));
    g_assert_true(qsnic_wait_irq(s, 2));
    g_assert_cmpuint(le16_to_cpu(qsnic_get_desc(s, rxr, 0, 4).len), ==, len);
    qtest_memread(m->qts, buf + 2048, got, len);
    g_assert_cmpmem(got, len, frame, len);
    g_assert_cmpuint(QSNIC_STAT(s, rx_rdma_reserved), ==, 1);
    g_assert_cmpuint(QSNIC_STAT(s, rx_frames), ==, 1);
    qsnic_close(s);
    qsnic_machine_stop(m);
    close(sv[0]);
}

static void test_eth_link_event(void)
{
    QSnicMachine *m = qsnic_machine_start("-netdev hubport,id=h0,hubid=0 "
                                          "-device snic,id=nic0,addr=04.0,"
                                          "netdev=h0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    struct snic_aeqe e;

    qsnic_enable(s);
    qtest_qmp_assert_success(m->qts, "{'execute': 'set_link', 'arguments': "
                             "{'name': 'nic0', 'up': false}}");
    g_assert_true(qsnic_wait_irq(s, 0));
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_INTR_CAUSE), ==, SNIC_INTR_AEQ);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) & SNIC_STATUS_LINK_UP, ==,
                    0);
    qtest_memread(m->qts, s->aeq, &e, sizeof(e));
    g_assert_cmpuint(le32_to_cpu(e.event), ==, SNIC_EVENT_LINK_CHANGE);
    g_assert_cmpuint(le64_to_cpu(e.data), ==, 0);
    g_assert_cmpuint(e.flags, ==, SNIC_CQE_PHASE);
    qtest_qmp_assert_success(m->qts, "{'execute': 'set_link', 'arguments': "
                             "{'name': 'nic0', 'up': true}}");
    g_assert_true(qsnic_wait_irq(s, 0));
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) & SNIC_STATUS_LINK_UP, ==,
                    SNIC_STATUS_LINK_UP);
    g_assert_cmpuint(qsnic_rd(s, SNIC_REG_AEQ_TAIL), ==, 2);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

/*
 * The link-status callback's AEQ entry aimed at the device's own doorbell
 * page (BAR2): the entry is written from the guarded bottom half, so the
 * re-entrancy guard refuses the write (a DMA error: the AEQ failing is the
 * device's fatal error, as for any AEQ address that fails), it never
 * lands as a doorbell, and after a reset the device serves again.
 */
static void test_eth_link_event_into_own_bar(void)
{
    QSnicMachine *m = qsnic_machine_start("-netdev hubport,id=h0,hubid=0 "
                                          "-device snic,id=nic0,addr=04.0,"
                                          "netdev=h0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    uint64_t invalid, dma;
    int i;

    g_assert_false(s->bar2.is_io);
    qtest_memset(m->qts, s->cq, 0, SNIC_ADMIN_CQE_SIZE << QSNIC_ADMIN_LOG2);
    qsnic_wr(s, SNIC_REG_ADMIN_SQ_BASE_LO, s->sq);
    qsnic_wr(s, SNIC_REG_ADMIN_SQ_BASE_HI, s->sq >> 32);
    qsnic_wr(s, SNIC_REG_ADMIN_CQ_BASE_LO, s->cq);
    qsnic_wr(s, SNIC_REG_ADMIN_CQ_BASE_HI, s->cq >> 32);
    qsnic_wr(s, SNIC_REG_ADMIN_DEPTH, QSNIC_ADMIN_LOG2);
    qsnic_wr(s, SNIC_REG_AEQ_BASE_LO, s->bar2.addr);
    qsnic_wr(s, SNIC_REG_AEQ_BASE_HI, s->bar2.addr >> 32);
    qsnic_wr(s, SNIC_REG_AEQ_DEPTH, 4);
    qsnic_wr(s, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    s->sq_tail = s->cq_head = 0;
    invalid = QSNIC_STAT(s, doorbells_invalid);
    dma = QSNIC_STAT(s, dma_errors);
    qtest_qmp_assert_success(m->qts, "{'execute': 'set_link', 'arguments': "
                             "{'name': 'nic0', 'up': false}}");
    for (i = 0; i < 1000 && QSNIC_STAT(s, dma_errors) == dma;
         i++) {
        qtest_clock_step(m->qts, 1000);
    }
    g_assert_cmpuint(QSNIC_STAT(s, dma_errors), >, dma);
    g_assert_cmpuint(QSNIC_STAT(s, doorbells_invalid), ==, invalid);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) &
                    (SNIC_STATUS_LINK_UP | SNIC_STATUS_FATAL), ==,
                    SNIC_STATUS_FATAL);
    g_assert_cmpuint(qsnic_rd(s, SNIC_REG_ERROR), ==, SNIC_ERR_AEQ_DMA);
    qsnic_wr(s, SNIC_REG_DEV_CTRL, SNIC_CTRL_RESET);
    qsnic_enable(s);
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

/*
 * Ethernet reception aimed at the device's own doorbell page (BAR2): a
 * ring there is refused when the queue is created (the device probes it),
 * and a frame the netdev brings for an RX buffer there is written from
 * the net layer's receive callback, which runs under the device's
 * re-entrancy guard: the write is refused (the descriptor completes with
 * ERR, the frame counted as dropped), no byte of it lands as a doorbell,
 * and the next frame, for a buffer in RAM, arrives whole.
 */
static void test_eth_rx_into_own_bar(void)
{
    int sv[2];
    g_autofree char *args = NULL;
    QSnicMachine *m;
    QSnic *s;
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 7 };
    struct snic_admin_cmd cmd;
    struct snic_eth_desc d;
    uint64_t rxr, buf, dbs, invalid, dma;
    uint8_t frame[256], got[256];
    uint32_t be;
    size_t len;
    int i;

    g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), ==, 0);
    args = g_strdup_printf("-netdev socket,fd=%d,id=s0 "
                           "-device snic,addr=04.0,netdev=s0,"
                           "mac=02:00:00:00:00:07", sv[1]);
    m = qsnic_machine_start(args);
    close(sv[1]);
    s = qsnic_open(m, QSNIC_SLOT_A);
    g_assert_false(s->bar2.is_io);
    rxr = guest_alloc(&m->alloc, 16 * 16);
    buf = guest_alloc(&m->alloc, 2048);
    qsnic_enable(s);

    /* a ring on BAR2: the device's probe of it is refused */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_ETH_QUEUE,
                        sizeof(cmd.create_eth_queue));
    cmd.create_eth_queue.ring_addr = cpu_to_le64(s->bar2.addr);
    cmd.create_eth_queue.log2_depth = 4;
    cmd.create_eth_queue.type = SNIC_ETH_QUEUE_RX;
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_BAD_ADDRESS);

    /* a ring in RAM whose first buffer is BAR2, its second in RAM */
    qsnic_eth_queue(s, SNIC_ETH_QUEUE_RX, rxr, 4, 2);
    qsnic_put_desc(s, rxr, 0, 4, s->bar2.addr, 2048, 0);
    qsnic_put_desc(s, rxr, 1, 4, buf, 2048, 0);
    qsnic_doorbell(s, 0, SNIC_DB_ETH_RX, 0, 2);
    dbs = QSNIC_STAT(s, doorbells);
    invalid = QSNIC_STAT(s, doorbells_invalid);
    dma = QSNIC_STAT(s, dma_errors);
    for (i = 0; i < 2; i++) {
        len = make_frame(frame, mac, 100, 0x30 + i);
        be = htonl(len);
        g_assert_cmpint(send(sv[0], &be, 4, 0), ==, 4);
        g_assert_cmpint(send(sv[0], frame, len, 0), ==, len);
    }
    g_assert_true(qsnic_wait_desc_done(s, rxr, 1, 4));
    d = qsnic_get_desc(s, rxr, 0, 4);
    g_assert_cmphex(le16_to_cpu(d.flags), ==,
                    SNIC_ETH_DESC_DONE | SNIC_ETH_DESC_ERR);
    g_assert_cmpuint(le16_to_cpu(d.len), ==, 0);
    g_assert_cmpuint(QSNIC_STAT(s, dma_errors), >, dma);
    g_assert_cmpuint(QSNIC_STAT(s, doorbells), ==, dbs);
    g_assert_cmpuint(QSNIC_STAT(s, doorbells_invalid), ==, invalid);
    g_assert_cmpuint(QSNIC_STAT(s, rx_dropped), ==, 1);
    g_assert_cmpuint(le16_to_cpu(qsnic_get_desc(s, rxr, 1, 4).len), ==, len);
    qtest_memread(m->qts, buf, got, len);
    g_assert_cmpmem(got, len, frame, len);
    g_assert_cmpuint(QSNIC_STAT(s, rx_frames), ==, 1);
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
    close(sv[0]);
}

/*
 * A CQ's moderation timer raises its event into an EQ whose ring is the
 * device's own doorbell page (BAR2). The timer leaves the EQE to the
 * guarded bottom half, so the re-entrancy guard refuses the write (a DMA
 * error), nothing of it lands as a doorbell, and the device keeps
 * serving: QEMU runs on and the next admin command completes.
 */
static void test_rdma_timer_eq_into_own_bar(void)
{
    QSnicMachine *m = qsnic_machine_start("-netdev hubport,id=h0,hubid=0 "
                                          "-device snic,id=nic0,addr=04.0,"
                                          "netdev=h0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    struct snic_admin_cmd cmd;
    struct snic_qp_attr a;
    struct snic_sq_wqe w;
    struct snic_cqe c;
    uint64_t pdn, eqn, cqn, qpn, cq, sq, rq, dbs, invalid, dma;
    int i;

    g_assert_false(s->bar2.is_io);
    qsnic_enable(s);
    cq = qsnic_alloc_pages(s, 1);
    sq = qsnic_alloc_pages(s, QSNIC_RDMA_SQ_PAGES);
    rq = qsnic_alloc_pages(s, 1);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    pdn = qsnic_admin_ok(s, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
    cmd.create_eq.pbl_addr = cpu_to_le64(qsnic_page_list(s, s->bar2.addr, 1));
    cmd.create_eq.npages = cpu_to_le32(1);
    cmd.create_eq.log2_depth = 4;
    cmd.create_eq.vector = cpu_to_le16(1);
    eqn = qsnic_admin_ok(s, &cmd);
    cqn = qsnic_rdma_create_cq(s, cq, eqn);
    /* its event 100 us after the first CQE: the timer's to raise */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_CQ, sizeof(cmd.modify_cq));
    cmd.modify_cq.cqn = cpu_to_le32(cqn);
    cmd.modify_cq.period_us = cpu_to_le16(100);
    qsnic_admin_ok(s, &cmd);
    g_assert_cmpuint(qsnic_rdma_create_qp(s, SNIC_QPT_RC, pdn, cqn, sq, rq,
                                          &qpn), ==, SNIC_ADMIN_OK);
    /* RESET -> INIT -> ERR */
    for (i = 0; i < 2; i++) {
        memset(&a, 0, sizeof(a));
        a.qp_state = cpu_to_le32(i ? SNIC_QPS_ERR : SNIC_QPS_INIT);
        a.port_num = 1;
        qtest_memwrite(m->qts, s->resp, &a, sizeof(a));
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP,
                            sizeof(cmd.modify_qp));
        cmd.modify_qp.qpn = cpu_to_le32(qpn);
        cmd.modify_qp.attr_mask = cpu_to_le32(i ? SNIC_QP_ATTR_STATE :
                                              SNIC_QP_ATTR_STATE |
                                              SNIC_QP_ATTR_PKEY_INDEX |
                                              SNIC_QP_ATTR_PORT |
                                              SNIC_QP_ATTR_ACCESS_FLAGS);
        cmd.modify_qp.attr_addr = cpu_to_le64(s->resp);
        qsnic_admin_ok(s, &cmd);
    }
    qsnic_doorbell(s, 0, SNIC_DB_CQ_ARM, cqn, 0);

    dbs = QSNIC_STAT(s, doorbells);
    invalid = QSNIC_STAT(s, doorbells_invalid);
    dma = QSNIC_STAT(s, dma_errors);
    /* a WQE posted in ERR is flushed: a CQE, and the event is due */
    memset(&w, 0, sizeof(w));
    w.wr_id = cpu_to_le64(0x77);
    w.opcode = SNIC_WR_SEND;
    w.flags = SNIC_WQE_SIGNALED;
    qtest_memwrite(m->qts, sq, &w, sizeof(w));
    qsnic_doorbell(s, 0, SNIC_DB_SQ, qpn, 1);
    for (i = 0; i < 50; i++) {
        qtest_memread(m->qts, cq, &c, sizeof(c));
        if (c.flags & SNIC_CQE_PHASE) {
            break;
        }
        qtest_clock_step(m->qts, 1000);
    }
    g_assert_cmpuint(c.flags & SNIC_CQE_PHASE, ==, SNIC_CQE_PHASE);
    g_assert_cmpuint(le64_to_cpu(c.wr_id), ==, 0x77);
    g_assert_cmpuint(c.status, ==, SNIC_WC_WR_FLUSH_ERR);
    /* the CQE is in RAM; its event waits for the moderation timer */
    g_assert_cmpuint(QSNIC_STAT(s, dma_errors), ==, dma);
    for (i = 0; i < 100 && QSNIC_STAT(s, dma_errors) == dma; i++) {
        qtest_clock_step(m->qts, 10000);
    }
    g_assert_cmpuint(QSNIC_STAT(s, dma_errors), >, dma);
    /* the SQ doorbell above, and no write of the EQE, became a doorbell */
    g_assert_cmpuint(QSNIC_STAT(s, doorbells), ==, dbs + 1);
    g_assert_cmpuint(QSNIC_STAT(s, doorbells_invalid), ==, invalid);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) & SNIC_STATUS_FATAL, ==,
                    0);
    qsnic_admin_nop_ok(s);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

/* ---- faults at run time (qom-set) ---- */

/* The error text of a QMP command's response (NULL: it succeeded) */
static char *qmp_error(QDict *resp)
{
    QDict *err = qdict_get_qdict(resp, "error");
    char *desc = err ? g_strdup(qdict_get_str(err, "desc")) : NULL;

    qobject_unref(resp);
    return desc;
}

static char *qom_set_int(QTestState *qts, const char *id, const char *prop,
                         int64_t value)
{
    g_autofree char *path = g_strdup_printf("/machine/peripheral/%s", id);

    return qmp_error(qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': "
                               "{'path': %s, 'property': %s, "
                               "'value': %" PRId64 "}}", path, prop, value));
}

static char *qom_set_str(QTestState *qts, const char *id, const char *prop,
                         const char *value)
{
    g_autofree char *path = g_strdup_printf("/machine/peripheral/%s", id);

    return qmp_error(qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': "
                               "{'path': %s, 'property': %s, "
                               "'value': %s}}", path, prop, value));
}

/* qom-get: the value, as JSON text ("7", "\"CREATE_QP\"") */
static char *qom_get(QTestState *qts, const char *id, const char *prop)
{
    g_autofree char *path = g_strdup_printf("/machine/peripheral/%s", id);
    QDict *resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': "
                            "{'path': %s, 'property': %s}}", path, prop);
    GString *json;

    g_assert_true(qdict_haskey(resp, "return"));
    json = qobject_to_json(qdict_get(resp, "return"));
    qobject_unref(resp);
    return g_string_free(json, false);
}

#define assert_qom(qts, id, prop, want) do {                            \
        g_autofree char *got_ = qom_get(qts, id, prop);                 \
        g_assert_cmpstr(got_, ==, want);                                \
    } while (0)

/*
 * Every fault property is accepted by qom-set on the running device,
 * checked as at start-up, and read back by qom-get; a property that is
 * configuration (max-qps) is still refused after realize.
 */
static void test_faults_qom_set(void)
{
    static const char *const pct[] = {
        "wire-drop", "wire-dup", "wire-reorder", "wire-ecn-mark",
        "x-torn-reads", "x-wire-corrupt",
    };
    QSnicMachine *m = qsnic_machine_start("-netdev hubport,id=h0,hubid=0 "
                                          "-device snic,id=nic0,addr=04.0,"
                                          "netdev=h0");
    QTestState *qts = m->qts;
    char *err;
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(pct); i++) {
        g_autofree char *want = g_strdup_printf("%s=101 is not a percentage",
                                                pct[i]);

        g_assert_null(qom_set_int(qts, "nic0", pct[i], 7));
        assert_qom(qts, "nic0", pct[i], "7");
        err = qom_set_int(qts, "nic0", pct[i], 101);
        g_assert_nonnull(strstr(err, want));
        g_free(err);
        assert_qom(qts, "nic0", pct[i], "7");
        g_assert_null(qom_set_int(qts, "nic0", pct[i], 0));
    }
    assert_qom(qts, "nic0", "wire-seed", "1");
    g_assert_null(qom_set_int(qts, "nic0", "wire-seed", 42));
    assert_qom(qts, "nic0", "wire-seed", "42");

    assert_qom(qts, "nic0", "x-admin-fail-count", "0");
    assert_qom(qts, "nic0", "x-admin-fail-status", "\"NO_RESOURCES\"");
    assert_qom(qts, "nic0", "x-admin-fail-opcode", "\"create\"");
    g_assert_null(qom_set_str(qts, "nic0", "x-admin-fail-opcode",
                              "create_qp"));
    assert_qom(qts, "nic0", "x-admin-fail-opcode", "\"CREATE_QP\"");
    g_assert_null(qom_set_str(qts, "nic0", "x-admin-fail-status", "6"));
    assert_qom(qts, "nic0", "x-admin-fail-status", "\"BAD_STATE\"");
    g_assert_null(qom_set_int(qts, "nic0", "x-admin-fail-count", 3));
    assert_qom(qts, "nic0", "x-admin-fail-count", "3");
    err = qom_set_str(qts, "nic0", "x-admin-fail-opcode", "CREATE_PQ");
    g_assert_nonnull(strstr(err, "x-admin-fail-opcode=CREATE_PQ is not"));
    g_free(err);
    err = qom_set_str(qts, "nic0", "x-admin-fail-status", "OK");
    g_assert_nonnull(strstr(err, "x-admin-fail-status=OK is not a failure"));
    g_free(err);
    assert_qom(qts, "nic0", "x-admin-fail-status", "\"BAD_STATE\"");

    err = qom_set_int(qts, "nic0", "max-qps", 10);
    g_assert_nonnull(strstr(err, "after it was realized"));
    g_free(err);
    assert_qom(qts, "nic0", "max-qps", "65536");
    qsnic_machine_stop(m);
}

/*
 * Wait for wr_id's completion on a lossy wire: go-back-N's timeouts take
 * 67 ms of virtual time each (timeout 14), so the clock moves by 1 ms
 * between polls, not by qsnic_rdma_poll's 10 us.
 */
static void expect_lossy(QSnicRdmaNode *n, uint64_t wr_id)
{
    struct snic_cqe c;
    int ms;

    for (ms = 0; ms < 10000; ms++) {
        if (qsnic_rdma_poll_for(n, &c, 1)) {
            g_assert_cmpuint(le64_to_cpu(c.wr_id), ==, wr_id);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            return;
        }
        qtest_clock_step(n->s->qts, 1000000);
    }
    g_assert_not_reached();
}

/*
 * Faults set on a running pair: x-wire-corrupt flips a byte of a's RoCE
 * frames, b drops each at its ICRC check and counts it, go-back-N resends
 * and the WRITEs land intact; set back to 0, nothing more is corrupted.
 * wire-drop set at run time drops, and stops.
 */
static void test_faults_wire_run_time(void)
{
    QSnicRdmaNode a, b;
    QSnicMachine *m = qsnic_rdma_pair_opts(&a, &b, ",id=a", ",id=b");
    QTestState *qts = m->qts;
    uint64_t corrupted, drops;
    unsigned i;

    g_assert_null(qom_set_int(qts, "a", "x-wire-corrupt", 20));
    for (i = 0; i < 8; i++) {
        qsnic_fill_pattern(qts, a.buf, 9000, 20 + i);
        qsnic_rdma_post(&a, i, SNIC_WR_RDMA_WRITE, 0, 9000,
                        b.buf + 0x4000, b.lkey, 0, 0);
        expect_lossy(&a, i);
        qsnic_assert_same(qts, a.buf, b.buf + 0x4000, 9000);
    }
    corrupted = QSNIC_STAT(a.s, wire_corrupts_injected);
    g_assert_cmpuint(corrupted, >, 0);
    g_assert_cmpuint(QSNIC_STAT(b.s, rdma_rx_icrc_errors), ==, corrupted);
    g_assert_cmpuint(QSNIC_STAT(b.s, wire_corrupts_injected), ==, 0);
    g_assert_cmpuint(QSNIC_STAT(a.s, rdma_rx_icrc_errors), ==, 0);

    g_assert_null(qom_set_int(qts, "a", "x-wire-corrupt", 0));
    g_assert_null(qom_set_int(qts, "a", "wire-drop", 30));
    for (i = 8; i < 12; i++) {
        qsnic_rdma_post(&a, i, SNIC_WR_RDMA_WRITE, 0, 9000,
                        b.buf + 0x4000, b.lkey, 0, 0);
        expect_lossy(&a, i);
    }
    g_assert_cmpuint(QSNIC_STAT(a.s, wire_corrupts_injected), ==, corrupted);
    drops = QSNIC_STAT(a.s, wire_drops_injected);
    g_assert_cmpuint(drops, >, 0);
    g_assert_null(qom_set_int(qts, "a", "wire-drop", 0));
    qsnic_rdma_post(&a, 12, SNIC_WR_RDMA_WRITE, 0, 9000, b.buf + 0x4000,
                    b.lkey, 0, 0);
    expect_lossy(&a, 12);
    g_assert_cmpuint(QSNIC_STAT(a.s, wire_drops_injected), ==, drops);
    qsnic_close(a.s);
    qsnic_close(b.s);
    qsnic_machine_stop(m);
}

static uint16_t alloc_pd(QSnic *s)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    return qsnic_admin(s, &cmd, NULL);
}

/*
 * x-admin-fail-*: the next commands of the op-code complete with the
 * status and create nothing, counted; others run; the count reads back.
 */
static void test_faults_admin_fail(void)
{
    QSnicMachine *m = qsnic_machine_start("-device snic,id=nic0,addr=04.0");
    QSnic *s = qsnic_open(m, QSNIC_SLOT_A);
    QTestState *qts = m->qts;

    qsnic_enable(s);
    g_assert_null(qom_set_str(qts, "nic0", "x-admin-fail-opcode",
                              "ALLOC_PD"));
    g_assert_null(qom_set_int(qts, "nic0", "x-admin-fail-count", 2));
    qsnic_admin_nop_ok(s);
    g_assert_cmpuint(alloc_pd(s), ==, SNIC_ADMIN_NO_RESOURCES);
    assert_qom(qts, "nic0", "x-admin-fail-count", "1");
    g_assert_cmpuint(alloc_pd(s), ==, SNIC_ADMIN_NO_RESOURCES);
    assert_qom(qts, "nic0", "x-admin-fail-count", "0");
    g_assert_cmpuint(QSNIC_STAT(s, obj_pds), ==, 0);
    g_assert_cmpuint(alloc_pd(s), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(QSNIC_STAT(s, obj_pds), ==, 1);
    g_assert_cmpuint(QSNIC_STAT(s, admin_fails_injected), ==, 2);

    /* every creating command, another status */
    g_assert_null(qom_set_str(qts, "nic0", "x-admin-fail-opcode", "create"));
    g_assert_null(qom_set_str(qts, "nic0", "x-admin-fail-status",
                              "BAD_PARAM"));
    g_assert_null(qom_set_int(qts, "nic0", "x-admin-fail-count", 1));
    g_assert_cmpuint(alloc_pd(s), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(alloc_pd(s), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(QSNIC_STAT(s, admin_fails_injected), ==, 3);
    g_assert_cmpuint(QSNIC_STAT(s, obj_pds), ==, 2);
    qsnic_close(s);
    qsnic_machine_stop(m);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (strcmp(qtest_get_arch(), "x86_64") != 0) {
        return g_test_run();
    }
    qtest_add_func("/snic/pci/identity", test_identity);
    qtest_add_func("/snic/pci/properties", test_properties);
    qtest_add_func("/snic/pci/bad-properties", test_bad_properties);
    qtest_add_func("/snic/pci/migration-blocked", test_migration_blocked);
    qtest_add_func("/snic/admin/nop-msix", test_admin_nop_msix);
    qtest_add_func("/snic/admin/query-device", test_admin_query_device);
    qtest_add_func("/snic/bad/registers", test_bad_registers);
    qtest_add_func("/snic/bad/doorbells", test_bad_doorbells);
    qtest_add_func("/snic/bad/commands", test_bad_commands);
    qtest_add_func("/snic/bad/addresses", test_bad_addresses);
    qtest_add_func("/snic/bad/admin-ring", test_bad_admin_ring);
    qtest_add_func("/snic/bad/descriptors", test_bad_descriptors);
    qtest_add_func("/snic/reset/register", test_reset_register);
    qtest_add_func("/snic/reset/flr", test_reset_flr);
    qtest_add_func("/snic/reset/flr-from-own-dma", test_reset_flr_from_own_dma);
    qtest_add_func("/snic/eth/back-to-back", test_eth_back_to_back);
    qtest_add_func("/snic/eth/socket-peer", test_eth_socket_peer);
    qtest_add_func("/snic/eth/link-event", test_eth_link_event);
    qtest_add_func("/snic/eth/link-event-into-own-bar",
                   test_eth_link_event_into_own_bar);
    qtest_add_func("/snic/eth/rx-into-own-bar", test_eth_rx_into_own_bar);
    qtest_add_func("/snic/rdma/timer-eq-into-own-bar",
                   test_rdma_timer_eq_into_own_bar);
    qtest_add_func("/snic/faults/qom-set", test_faults_qom_set);
    qtest_add_func("/snic/faults/wire-run-time", test_faults_wire_run_time);
    qtest_add_func("/snic/faults/admin-fail", test_faults_admin_fail);
    qtest_add_func("/snic/rdma/back-to-back", test_rdma_back_to_back);
    qtest_add_func("/snic/rdma/remote-access-error",
                   test_rdma_remote_access_error);
    qtest_add_func("/snic/rdma/ud", test_rdma_ud);
    qtest_add_func("/snic/rdma/lossy", test_rdma_lossy);
    qtest_add_func("/snic/rdma/pcap", test_rdma_pcap);
    qtest_add_func("/snic/rdma/limits", test_rdma_limits);
    qtest_add_func("/snic/rdma/guest-error-log", test_guest_error_log);
    qtest_add_func("/snic/rdma/hostile-then-healthy",
                   test_rdma_hostile_then_healthy);
    return g_test_run();
}
