/*
 * libqos driver for the snic PCIe RDMA NIC: the qgraph node "snic" and the
 * device helpers shared by snic-test and snic-unplug-test (see snic.h).
 *
 * Copyright (c) 2026 snic authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "../libqtest.h"
#include "qemu/bswap.h"
#include "qemu/module.h"
#include "hw/pci/pci_ids.h"
#include "hw/pci/pci_regs.h"
#include "pci-pc.h"
#include "malloc-pc.h"
#include "snic.h"

#define SNIC_VENDOR_ID 0x1af4
#define SNIC_DEVICE_ID 0x10f0
#define BRIDGE_WINDOW_ALIGN (1 << 20)   /* PCI_MEMORY_BASE granularity */

/* ---- machine (plain tests) ---- */

QSnicMachine *qsnic_machine_start(const char *extra)
{
    QSnicMachine *m = g_new0(QSnicMachine, 1);

    m->qts = qtest_initf(QSNIC_MACHINE "%s", extra);
    pc_alloc_init(&m->alloc, m->qts, 0);
    m->bus = qpci_new_pc(m->qts, &m->alloc);
    return m;
}

void qsnic_machine_stop(QSnicMachine *m)
{
    qpci_free_pc(m->bus);
    alloc_destroy(&m->alloc);
    qtest_quit(m->qts);
    g_free(m);
}

/* ---- registers, doorbells, MSI-X ---- */

uint32_t qsnic_rd(QSnic *s, uint64_t off)
{
    return qpci_io_readl(s->dev, s->bar0, off);
}

void qsnic_wr(QSnic *s, uint64_t off, uint32_t v)
{
    qpci_io_writel(s->dev, s->bar0, off, v);
}

uint64_t qsnic_read_stat(QSnic *s, size_t field)
{
    return qpci_io_readq(s->dev, s->bar0, SNIC_REG_STATS + field);
}

void qsnic_doorbell(QSnic *s, unsigned page, uint8_t type, uint32_t qid,
                    uint32_t index)
{
    qpci_io_writeq(s->dev, s->bar2, (uint64_t)page * SNIC_DB_PAGE_SIZE,
                   snic_db_make(type, qid, index));
}

static void qsnic_msix_program(QSnic *s)
{
    int v;

    for (v = 0; v < QSNIC_NVEC; v++) {
        uint64_t off = s->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

        s->msi_word[v] = guest_alloc(s->alloc, 4);
        qtest_writel(s->qts, s->msi_word[v], 0);
        qpci_io_writel(s->dev, s->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_LOWER_ADDR, s->msi_word[v]);
        qpci_io_writel(s->dev, s->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_UPPER_ADDR, 0);
        qpci_io_writel(s->dev, s->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_DATA, 0x5000 + v);
        qpci_io_writel(s->dev, s->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    }
}

void qsnic_msix_setup(QSnic *s)
{
    qpci_msix_enable(s->dev);
    qsnic_msix_program(s);
}

bool qsnic_wait_irq(QSnic *s, int v)
{
    int i;

    for (i = 0; i < QSNIC_WAIT_ITERS; i++) {
        if (qtest_readl(s->qts, s->msi_word[v]) == 0x5000u + v) {
            qtest_writel(s->qts, s->msi_word[v], 0);
            return true;
        }
        qtest_clock_step(s->qts, 1000);
    }
    return false;
}

bool qsnic_irq_seen(QSnic *s, int v)
{
    bool seen = qtest_readl(s->qts, s->msi_word[v]) == 0x5000u + v;

    qtest_writel(s->qts, s->msi_word[v], 0);
    return seen;
}

/* ---- finding and opening a device ---- */

/* The root port on bus 0 whose secondary bus is 'busnr', enabled. */
static QPCIDevice *qsnic_upstream_bridge(QPCIBus *bus, int busnr)
{
    int slot;

    for (slot = 0; slot < 32; slot++) {
        QPCIDevice *br = qpci_device_find(bus, QPCI_DEVFN(slot, 0));

        if (br &&
            qpci_config_readw(br, PCI_CLASS_DEVICE) == PCI_CLASS_BRIDGE_PCI &&
            qpci_config_readb(br, PCI_SECONDARY_BUS) == busnr) {
            qpci_device_enable(br);
            return br;
        }
        g_free(br);
    }
    g_assert_not_reached();
}

/*
 * Enable the device and map its BARs (and the MSI-X table). Behind a root
 * port, the BARs get addresses of their own 1 MiB-aligned range, which
 * becomes the port's memory window.
 */
static void qsnic_setup(QSnic *s)
{
    QPCIBus *bus = s->dev->bus;
    QPCIDevice *bridge = NULL;
    uint64_t base = 0;

    if (s->dev->devfn >> 8) {
        bridge = qsnic_upstream_bridge(bus, s->dev->devfn >> 8);
        bus->mmio_alloc_ptr = ROUND_UP(bus->mmio_alloc_ptr,
                                       BRIDGE_WINDOW_ALIGN);
        base = bus->mmio_alloc_ptr;
    }
    qpci_device_enable(s->dev);
    s->bar0 = qpci_iomap(s->dev, SNIC_BAR_REGS, NULL);
    s->bar2 = qpci_iomap(s->dev, SNIC_BAR_DOORBELL, NULL);
    qpci_msix_enable(s->dev);
    if (bridge) {
        uint64_t end = ROUND_UP(bus->mmio_alloc_ptr, BRIDGE_WINDOW_ALIGN);

        qpci_config_writew(bridge, PCI_MEMORY_BASE, (base >> 16) & 0xfff0);
        qpci_config_writew(bridge, PCI_MEMORY_LIMIT,
                           ((end - 1) >> 16) & 0xfff0);
        bus->mmio_alloc_ptr = end;
        g_free(bridge);
    }
    qsnic_msix_program(s);
    s->sq = guest_alloc(s->alloc, SNIC_ADMIN_CMD_SIZE << QSNIC_ADMIN_LOG2);
    s->cq = guest_alloc(s->alloc, SNIC_ADMIN_CQE_SIZE << QSNIC_ADMIN_LOG2);
    s->aeq = guest_alloc(s->alloc, SNIC_AEQE_SIZE << 4);
    s->resp = guest_alloc(s->alloc, 4096);
}

QSnic *qsnic_new(QTestState *qts, QGuestAllocator *alloc, QPCIBus *bus,
                 int devfn)
{
    QSnic *s = g_new0(QSnic, 1);

    s->qts = qts;
    s->alloc = alloc;
    s->dev = qpci_device_find(bus, devfn);
    g_assert_nonnull(s->dev);
    qsnic_setup(s);
    return s;
}

QSnic *qsnic_open(QSnicMachine *m, int slot)
{
    return qsnic_new(m->qts, &m->alloc, m->bus, QPCI_DEVFN(slot, 0));
}

void qsnic_close(QSnic *s)
{
    g_free(s->dev);
    g_free(s);
}

/* ---- admin queue ---- */

void qsnic_enable(QSnic *s)
{
    qtest_memset(s->qts, s->cq, 0, SNIC_ADMIN_CQE_SIZE << QSNIC_ADMIN_LOG2);
    qtest_memset(s->qts, s->aeq, 0, SNIC_AEQE_SIZE << 4);
    qsnic_wr(s, SNIC_REG_ADMIN_SQ_BASE_LO, s->sq);
    qsnic_wr(s, SNIC_REG_ADMIN_SQ_BASE_HI, s->sq >> 32);
    qsnic_wr(s, SNIC_REG_ADMIN_CQ_BASE_LO, s->cq);
    qsnic_wr(s, SNIC_REG_ADMIN_CQ_BASE_HI, s->cq >> 32);
    qsnic_wr(s, SNIC_REG_ADMIN_DEPTH, QSNIC_ADMIN_LOG2);
    qsnic_wr(s, SNIC_REG_AEQ_BASE_LO, s->aeq);
    qsnic_wr(s, SNIC_REG_AEQ_BASE_HI, s->aeq >> 32);
    qsnic_wr(s, SNIC_REG_AEQ_DEPTH, 4);
    qsnic_wr(s, SNIC_REG_DEV_CTRL, SNIC_CTRL_ENABLE);
    g_assert_cmphex(qsnic_rd(s, SNIC_REG_DEV_STATUS) & SNIC_STATUS_READY, ==,
                    SNIC_STATUS_READY);
    s->sq_tail = s->cq_head = 0;
}

uint16_t qsnic_admin(QSnic *s, struct snic_admin_cmd *cmd, uint64_t *result)
{
    QTestState *qts = s->qts;
    uint32_t slot = s->sq_tail & ((1u << QSNIC_ADMIN_LOG2) - 1);
    uint32_t cslot = s->cq_head & ((1u << QSNIC_ADMIN_LOG2) - 1);
    struct snic_admin_cqe cqe;

    cmd->hdr.cmd_id = cpu_to_le16(++s->cmd_id);
    qtest_memwrite(qts, s->sq + slot * SNIC_ADMIN_CMD_SIZE, cmd, sizeof(*cmd));
    qsnic_doorbell(s, 0, SNIC_DB_ADMIN_SQ, 0, ++s->sq_tail);
    g_assert_true(qsnic_wait_irq(s, 0));
    qsnic_wr(s, SNIC_REG_INTR_CAUSE, SNIC_INTR_ADMIN);
    qtest_memread(qts, s->cq + cslot * SNIC_ADMIN_CQE_SIZE, &cqe, sizeof(cqe));
    g_assert_true(snic_ring_entry_new(cqe.flags, s->cq_head,
                                      QSNIC_ADMIN_LOG2));
    g_assert_cmpuint(le16_to_cpu(cqe.cmd_id), ==, s->cmd_id);
    g_assert_cmpuint(cqe.opcode, ==, cmd->hdr.opcode);
    qsnic_doorbell(s, 0, SNIC_DB_ADMIN_CQ, 0, ++s->cq_head);
    if (result) {
        *result = le64_to_cpu(cqe.result);
    }
    return le16_to_cpu(cqe.status);
}

uint64_t qsnic_admin_ok(QSnic *s, struct snic_admin_cmd *cmd)
{
    uint64_t r = 0;

    g_assert_cmpuint(qsnic_admin(s, cmd, &r), ==, SNIC_ADMIN_OK);
    return r;
}

void qsnic_admin_nop_ok(QSnic *s)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_NOP, 0);
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_OK);
}

/* ---- Ethernet ---- */

uint32_t qsnic_eth_queue(QSnic *s, uint8_t type, uint64_t ring, uint8_t log2,
                         uint16_t vector)
{
    struct snic_admin_cmd cmd;
    uint64_t qid;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_ETH_QUEUE,
                        sizeof(cmd.create_eth_queue));
    cmd.create_eth_queue.ring_addr = cpu_to_le64(ring);
    cmd.create_eth_queue.type = type;
    cmd.create_eth_queue.log2_depth = log2;
    cmd.create_eth_queue.vector = cpu_to_le16(vector);
    g_assert_cmpuint(qsnic_admin(s, &cmd, &qid), ==, SNIC_ADMIN_OK);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_START_ETH_QUEUE,
                        sizeof(cmd.eth_queue));
    cmd.eth_queue.type = type;
    cmd.eth_queue.qid = cpu_to_le32(qid);
    g_assert_cmpuint(qsnic_admin(s, &cmd, NULL), ==, SNIC_ADMIN_OK);
    return qid;
}

void qsnic_put_desc(QSnic *s, uint64_t ring, uint32_t i, uint32_t log2,
                    uint64_t addr, uint16_t len, uint16_t flags)
{
    struct snic_eth_desc d = {
        .addr = cpu_to_le64(addr),
        .len = cpu_to_le16(len),
        .flags = cpu_to_le16(flags),
    };

    qtest_memwrite(s->qts, ring + (i & ((1u << log2) - 1)) * 16, &d,
                   sizeof(d));
}

struct snic_eth_desc qsnic_get_desc(QSnic *s, uint64_t ring, uint32_t i,
                                    uint32_t log2)
{
    struct snic_eth_desc d;

    qtest_memread(s->qts, ring + (i & ((1u << log2) - 1)) * 16, &d,
                  sizeof(d));
    return d;
}

bool qsnic_wait_desc_done(QSnic *s, uint64_t ring, uint32_t i, uint32_t log2)
{
    int n;

    for (n = 0; n < QSNIC_WAIT_ITERS; n++) {
        if (le16_to_cpu(qsnic_get_desc(s, ring, i, log2).flags) &
            SNIC_ETH_DESC_DONE) {
            return true;
        }
        qtest_clock_step(s->qts, 1000);
    }
    return false;
}

/* ---- RDMA ---- */

uint64_t qsnic_alloc_pages(QSnic *s, unsigned n)
{
    uint64_t a = guest_alloc(s->alloc, (n + 1) * 4096);

    a = ROUND_UP(a, 4096);
    qtest_memset(s->qts, a, 0, n * 4096);
    return a;
}

uint64_t qsnic_page_list(QSnic *s, uint64_t first, unsigned n)
{
    uint64_t pbl = guest_alloc(s->alloc, n * 8);
    unsigned i;

    for (i = 0; i < n; i++) {
        qtest_writeq(s->qts, pbl + i * 8, first + i * 4096ull);
    }
    return pbl;
}

uint64_t qsnic_rdma_create_cq(QSnic *s, uint64_t ring, uint32_t eqn)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = cpu_to_le64(qsnic_page_list(s, ring, 1));
    cmd.create_cq.npages = cpu_to_le32(1);
    cmd.create_cq.log2_depth = QSNIC_RDMA_CQ_LOG2;
    cmd.create_cq.eqn = cpu_to_le32(eqn);
    return qsnic_admin_ok(s, &cmd);
}

uint16_t qsnic_rdma_create_qp(QSnic *s, uint8_t type, uint32_t pdn,
                              uint32_t cqn, uint64_t sq, uint64_t rq,
                              uint64_t *qpn)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = cpu_to_le64(qsnic_page_list(
                                                s, sq, QSNIC_RDMA_SQ_PAGES));
    cmd.create_qp.rq_pbl_addr = cpu_to_le64(qsnic_page_list(s, rq, 1));
    cmd.create_qp.sq_npages = cpu_to_le32(QSNIC_RDMA_SQ_PAGES);
    cmd.create_qp.rq_npages = cpu_to_le32(1);
    cmd.create_qp.pdn = cpu_to_le32(pdn);
    cmd.create_qp.send_cqn = cpu_to_le32(cqn);
    cmd.create_qp.recv_cqn = cpu_to_le32(cqn);
    cmd.create_qp.type = type;
    if (type == SNIC_QPT_RC) {
        /* the responder database: a page is SNIC_RDB_ALIGN aligned */
        cmd.create_qp.rdb_addr = cpu_to_le64(qsnic_alloc_pages(s, 1));
    }
    cmd.create_qp.sq_log2_depth = QSNIC_RDMA_SQ_LOG2;
    cmd.create_qp.rq_log2_depth = QSNIC_RDMA_RQ_LOG2;
    return qsnic_admin(s, &cmd, qpn);
}

void qsnic_rdma_node_init(QSnicRdmaNode *n, QSnic *s, uint8_t ip,
                          uint8_t qp_type)
{
    struct snic_admin_cmd cmd;

    memset(n, 0, sizeof(*n));
    n->s = s;
    n->ip = ip;
    n->eq = qsnic_alloc_pages(s, 1);
    n->cq = qsnic_alloc_pages(s, 1);
    n->sq = qsnic_alloc_pages(s, QSNIC_RDMA_SQ_PAGES);
    n->rq = qsnic_alloc_pages(s, 1);
    n->buf = qsnic_alloc_pages(s, QSNIC_RDMA_PAGES);

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    n->pdn = qsnic_admin_ok(s, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
    cmd.create_eq.pbl_addr = cpu_to_le64(qsnic_page_list(s, n->eq, 1));
    cmd.create_eq.npages = cpu_to_le32(1);
    cmd.create_eq.log2_depth = 4;
    cmd.create_eq.vector = cpu_to_le16(1);
    n->eqn = qsnic_admin_ok(s, &cmd);
    n->cqn = qsnic_rdma_create_cq(s, n->cq, n->eqn);
    g_assert_cmpuint(qsnic_rdma_create_qp(s, qp_type, n->pdn, n->cqn, n->sq,
                                          n->rq, &n->qpn), ==, SNIC_ADMIN_OK);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = cpu_to_le64(n->buf);
    cmd.reg_mr.length = cpu_to_le64(QSNIC_RDMA_PAGES * 4096);
    cmd.reg_mr.pbl_addr = cpu_to_le64(qsnic_page_list(s, n->buf,
                                                      QSNIC_RDMA_PAGES));
    cmd.reg_mr.npages = cpu_to_le32(QSNIC_RDMA_PAGES);
    cmd.reg_mr.pdn = cpu_to_le32(n->pdn);
    cmd.reg_mr.access = cpu_to_le32(SNIC_ACCESS_LOCAL_WRITE |
                                    SNIC_ACCESS_REMOTE_WRITE |
                                    SNIC_ACCESS_REMOTE_READ |
                                    SNIC_ACCESS_REMOTE_ATOMIC);
    cmd.reg_mr.page_shift = 12;
    n->lkey = qsnic_admin_ok(s, &cmd);
    /* the port's address, as the driver lists it: RoCE to it is ours */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
    cmd.set_gid.flags = SNIC_GID_VALID;
    cmd.set_gid.gid[10] = cmd.set_gid.gid[11] = 0xff;
    cmd.set_gid.gid[12] = 10;
    cmd.set_gid.gid[15] = ip;
    qsnic_admin_ok(s, &cmd);
}

void qsnic_rdma_modify(QSnicRdmaNode *n, uint32_t mask,
                       const struct snic_qp_attr *a)
{
    struct snic_admin_cmd cmd;

    qtest_memwrite(n->s->qts, n->s->resp, a, sizeof(*a));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
    cmd.modify_qp.qpn = cpu_to_le32(n->qpn);
    cmd.modify_qp.attr_mask = cpu_to_le32(mask);
    cmd.modify_qp.attr_addr = cpu_to_le64(n->s->resp);
    qsnic_admin_ok(n->s, &cmd);
}

void qsnic_rdma_connect(QSnicRdmaNode *n, const QSnicRdmaNode *peer)
{
    struct snic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = cpu_to_le32(SNIC_QPS_INIT);
    a.port_num = 1;
    a.qp_access_flags = cpu_to_le32(SNIC_ACCESS_REMOTE_WRITE |
                                    SNIC_ACCESS_REMOTE_READ |
                                    SNIC_ACCESS_REMOTE_ATOMIC);
    qsnic_rdma_modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX |
                      SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS, &a);
    a.qp_state = cpu_to_le32(SNIC_QPS_RTR);
    a.path_mtu = cpu_to_le32(SNIC_MTU_1024);
    a.dest_qp_num = cpu_to_le32(peer->qpn);
    a.rq_psn = cpu_to_le32(0x100 * peer->ip);
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 1;
    a.av.dgid[10] = a.av.dgid[11] = 0xff;
    a.av.dgid[12] = 10;
    a.av.dgid[15] = peer->ip;
    a.av.sgid[10] = a.av.sgid[11] = 0xff;
    a.av.sgid[12] = 10;
    a.av.sgid[15] = n->ip;
    memcpy(a.av.dmac, peer->mac, 6);
    a.av.hop_limit = 64;
    qsnic_rdma_modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV |
                      SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN |
                      SNIC_QP_ATTR_RQ_PSN | SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
                      SNIC_QP_ATTR_MIN_RNR_TIMER, &a);
    a.qp_state = cpu_to_le32(SNIC_QPS_RTS);
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = cpu_to_le32(0x100 * n->ip);
    a.max_rd_atomic = 4;
    qsnic_rdma_modify(n, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_TIMEOUT |
                      SNIC_QP_ATTR_RETRY_CNT | SNIC_QP_ATTR_RNR_RETRY |
                      SNIC_QP_ATTR_SQ_PSN | SNIC_QP_ATTR_MAX_QP_RD_ATOMIC,
                      &a);
}

void qsnic_rdma_post(QSnicRdmaNode *n, uint64_t wr_id, uint8_t opcode,
                     uint32_t off, uint32_t len, uint64_t raddr,
                     uint32_t rkey, uint64_t compare_add, uint64_t swap)
{
    struct snic_sq_wqe w;
    uint64_t slot = n->sq + (n->sq_pi & ((1u << QSNIC_RDMA_SQ_LOG2) - 1)) *
                    SNIC_SQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.wr_id = cpu_to_le64(wr_id);
    w.opcode = opcode;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    w.rdma.remote_addr = cpu_to_le64(raddr);
    w.rdma.rkey = cpu_to_le32(rkey);
    w.rdma.compare_add = cpu_to_le64(compare_add);
    w.rdma.swap = cpu_to_le64(swap);
    w.sge[0].addr = cpu_to_le64(n->buf + off);
    w.sge[0].length = cpu_to_le32(len);
    w.sge[0].lkey = cpu_to_le32(n->lkey);
    qtest_memwrite(n->s->qts, slot, &w, sizeof(w));
    qsnic_doorbell(n->s, 0, SNIC_DB_SQ, n->qpn, ++n->sq_pi);
}

void qsnic_rdma_post_recv(QSnicRdmaNode *n, uint64_t wr_id, uint32_t off,
                          uint32_t len)
{
    struct snic_rq_wqe w;
    uint64_t slot = n->rq + (n->rq_pi & ((1u << QSNIC_RDMA_RQ_LOG2) - 1)) *
                    SNIC_RQ_WQE_SIZE;

    memset(&w, 0, sizeof(w));
    w.wr_id = cpu_to_le64(wr_id);
    w.num_sge = 1;
    w.sge[0].addr = cpu_to_le64(n->buf + off);
    w.sge[0].length = cpu_to_le32(len);
    w.sge[0].lkey = cpu_to_le32(n->lkey);
    qtest_memwrite(n->s->qts, slot, &w, sizeof(w));
    qsnic_doorbell(n->s, 0, SNIC_DB_RQ, n->qpn, ++n->rq_pi);
}

bool qsnic_rdma_poll_for(QSnicRdmaNode *n, struct snic_cqe *c, int iters)
{
    uint64_t slot = n->cq + (n->cq_ci & ((1u << QSNIC_RDMA_CQ_LOG2) - 1)) *
                    SNIC_CQE_SIZE;
    int i;

    for (i = 0; i < iters; i++) {
        qtest_memread(n->s->qts, slot, c, sizeof(*c));
        if (snic_ring_entry_new(c->flags, n->cq_ci, QSNIC_RDMA_CQ_LOG2)) {
            qsnic_doorbell(n->s, 0, SNIC_DB_CQ, n->cqn, ++n->cq_ci);
            return true;
        }
        qtest_clock_step(n->s->qts, 10000);
    }
    return false;
}

bool qsnic_rdma_poll(QSnicRdmaNode *n, struct snic_cqe *c)
{
    return qsnic_rdma_poll_for(n, c, QSNIC_WAIT_ITERS);
}

void qsnic_rdma_expect(QSnicRdmaNode *n, uint64_t wr_id, uint8_t status)
{
    struct snic_cqe c;

    g_assert_true(qsnic_rdma_poll(n, &c));
    g_assert_cmpuint(le64_to_cpu(c.wr_id), ==, wr_id);
    g_assert_cmpuint(c.status, ==, status);
}

void qsnic_rdma_pair_nodes(QSnicMachine *m, QSnicRdmaNode *a,
                           QSnicRdmaNode *b)
{
    static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 1 };
    static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 2 };
    QSnic *sa = qsnic_open(m, QSNIC_SLOT_A), *sb = qsnic_open(m, QSNIC_SLOT_B);

    qsnic_enable(sa);
    qsnic_enable(sb);
    qsnic_rdma_node_init(a, sa, 1, SNIC_QPT_RC);
    qsnic_rdma_node_init(b, sb, 2, SNIC_QPT_RC);
    memcpy(a->mac, mac_a, 6);
    memcpy(b->mac, mac_b, 6);
    qsnic_rdma_connect(a, b);
    qsnic_rdma_connect(b, a);
}

QSnicMachine *qsnic_rdma_pair_opts(QSnicRdmaNode *a, QSnicRdmaNode *b,
                                   const char *opt_a, const char *opt_b)
{
    g_autofree char *args = g_strdup_printf(
        "-netdev hubport,id=h0,hubid=0 -netdev hubport,id=h1,hubid=0 "
        "-device snic,addr=04.0,netdev=h0,mac=02:00:00:00:00:01%s "
        "-device snic,addr=05.0,netdev=h1,mac=02:00:00:00:00:02%s",
        opt_a, opt_b);
    QSnicMachine *m = qsnic_machine_start(args);

    qsnic_rdma_pair_nodes(m, a, b);
    return m;
}

QSnicMachine *qsnic_rdma_pair(QSnicRdmaNode *a, QSnicRdmaNode *b)
{
    return qsnic_rdma_pair_opts(a, b, "", "");
}

void qsnic_fill_pattern(QTestState *qts, uint64_t addr, uint32_t len,
                        uint8_t seed)
{
    g_autofree uint8_t *p = g_malloc(len);
    uint32_t i;

    for (i = 0; i < len; i++) {
        p[i] = seed + i * 7 + (i >> 8);
    }
    qtest_memwrite(qts, addr, p, len);
}

void qsnic_assert_same(QTestState *qts, uint64_t x, uint64_t y, uint32_t len)
{
    g_autofree uint8_t *p = g_malloc(len);
    g_autofree uint8_t *q = g_malloc(len);

    qtest_memread(qts, x, p, len);
    qtest_memread(qts, y, q, len);
    g_assert_cmpmem(p, len, q, len);
}

/* ---- the qgraph node ---- */

static void *qsnic_get_driver(void *obj, const char *interface)
{
    QSnic *s = obj;

    if (!g_strcmp0(interface, "snic")) {
        return s;
    }
    fprintf(stderr, "%s not present in snic\n", interface);
    g_assert_not_reached();
}

static void qsnic_start_hw(QOSGraphObject *obj)
{
    qsnic_setup((QSnic *)obj);
}

static void qsnic_destructor(QOSGraphObject *obj)
{
    g_free(((QSnic *)obj)->dev);
}

static void *qsnic_create(void *pci_bus, QGuestAllocator *alloc, void *addr)
{
    QSnic *s = g_new0(QSnic, 1);
    QPCIBus *bus = pci_bus;

    s->qts = bus->qts;
    s->alloc = alloc;
    s->dev = g_new0(QPCIDevice, 1);
    qpci_device_init(s->dev, bus, addr);
    s->obj.get_driver = qsnic_get_driver;
    s->obj.start_hw = qsnic_start_hw;
    s->obj.destructor = qsnic_destructor;
    s->obj.free = g_free;
    return &s->obj;
}

static void qsnic_register_nodes(void)
{
    QPCIAddress addr = {
        .devfn = QSNIC_NODE_DEVFN,
        .vendor_id = SNIC_VENDOR_ID,
        .device_id = SNIC_DEVICE_ID,
    };
    QOSGraphEdgeOptions opts = {
        .before_cmd_line = "-device pcie-root-port,id=" QSNIC_NODE_PORT
                           ",chassis=1,addr=" stringify(QSNIC_NODE_PORT_SLOT),
        .extra_device_opts = "id=" QSNIC_NODE_ID ",bus=" QSNIC_NODE_PORT,
    };

    add_qpci_address(&opts, &addr);
    qos_node_create_driver("snic", qsnic_create);
    qos_node_consumes("snic", "pcie-bus", &opts);
}

libqos_init(qsnic_register_nodes);
