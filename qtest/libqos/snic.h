/*
 * libqos driver for the snic PCIe RDMA NIC: the qgraph node "snic" and the
 * device helpers its tests share with snic-test's plain qtests (machine
 * start, BAR access, MSI-X, admin queue, Ethernet rings, RDMA nodes).
 *
 * The node consumes a PCI Express bus ("pcie-bus", which the x86_64/q35
 * machine node has) and places the device alone behind a pcie-root-port
 * (so it can be hot-unplugged), the machine's first PCI bridge, which the
 * q35 node numbers bus 1.
 *
 * Copyright (c) 2026 snic authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef LIBQOS_SNIC_H
#define LIBQOS_SNIC_H

#include "qgraph.h"
#include "pci.h"
#include "libqos-malloc.h"
#include "snic/snic_admin.h"
#include "snic/snic_eth.h"
#include "snic/snic_regs.h"
#include "snic/snic_verbs.h"

/* The plain tests' machine; the firmware comes from the build tree. */
#define QSNIC_MACHINE "-M q35 -nodefaults "
#define QSNIC_SLOT_A 4
#define QSNIC_SLOT_B 5
#define QSNIC_NVEC 4                    /* vectors aimed at guest RAM */
#define QSNIC_ADMIN_LOG2 4              /* 16-entry admin queue */
#define QSNIC_WAIT_ITERS 200000         /* steps of a wait loop */

/* The qgraph node's device: its id, root port and address (bus 1). */
#define QSNIC_NODE_ID "snic0"
#define QSNIC_NODE_PORT "snic-rp0"
#define QSNIC_NODE_PORT_SLOT 2
#define QSNIC_NODE_DEVFN (1 << 8 | QPCI_DEVFN(0, 0))

typedef struct QSnicMachine {
    QTestState *qts;
    QGuestAllocator alloc;
    QPCIBus *bus;
} QSnicMachine;

typedef struct QSnic {
    QOSGraphObject obj;                 /* as the qgraph node "snic" */
    QPCIDevice *dev;
    QTestState *qts;
    QGuestAllocator *alloc;
    QPCIBar bar0, bar2;
    uint64_t sq, cq, aeq, resp;
    uint64_t msi_word[QSNIC_NVEC];
    uint32_t sq_tail, cq_head;
    uint16_t cmd_id;
} QSnic;

QSnicMachine *qsnic_machine_start(const char *extra);
void qsnic_machine_stop(QSnicMachine *m);

/*
 * The function at devfn (bus << 8 | devfn on a bus behind a root port of
 * bus 0), enabled, BAR0 and BAR2 mapped, MSI-X aimed at RAM, admin queue,
 * AEQ and a response page allocated. qsnic_open: slot on bus 0.
 */
QSnic *qsnic_new(QTestState *qts, QGuestAllocator *alloc, QPCIBus *bus,
                 int devfn);
QSnic *qsnic_open(QSnicMachine *m, int slot);
void qsnic_close(QSnic *s);

uint32_t qsnic_rd(QSnic *s, uint64_t off);
void qsnic_wr(QSnic *s, uint64_t off, uint32_t v);
uint64_t qsnic_read_stat(QSnic *s, size_t field);
#define QSNIC_STAT(s, f) qsnic_read_stat((s), offsetof(struct snic_stats, f))
void qsnic_doorbell(QSnic *s, unsigned page, uint8_t type, uint32_t qid,
                    uint32_t index);

/* MSI-X messages aimed at guest RAM words: each IRQ is a visible write. */
void qsnic_msix_setup(QSnic *s);
/* Wait for (and consume) one or more messages on a vector. */
bool qsnic_wait_irq(QSnic *s, int v);
bool qsnic_irq_seen(QSnic *s, int v);

/* Program and enable the admin queue and AEQ as a driver would. */
void qsnic_enable(QSnic *s);
/* Submit, wait for the MSI-X message and the completion; return status. */
uint16_t qsnic_admin(QSnic *s, struct snic_admin_cmd *cmd, uint64_t *result);
uint64_t qsnic_admin_ok(QSnic *s, struct snic_admin_cmd *cmd);
void qsnic_admin_nop_ok(QSnic *s);

/* Ethernet queues and descriptor rings */
uint32_t qsnic_eth_queue(QSnic *s, uint8_t type, uint64_t ring, uint8_t log2,
                         uint16_t vector);
void qsnic_put_desc(QSnic *s, uint64_t ring, uint32_t i, uint32_t log2,
                    uint64_t addr, uint16_t len, uint16_t flags);
struct snic_eth_desc qsnic_get_desc(QSnic *s, uint64_t ring, uint32_t i,
                                    uint32_t log2);
bool qsnic_wait_desc_done(QSnic *s, uint64_t ring, uint32_t i, uint32_t log2);

/* ---- RDMA ---- */

#define QSNIC_RDMA_PAGES  16            /* 64 KiB registered buffer */
#define QSNIC_RDMA_CQ_LOG2 7            /* 128 CQEs: one 4 KiB page */
#define QSNIC_RDMA_SQ_LOG2 5            /* 32 WQEs of 256 B: two pages */
#define QSNIC_RDMA_SQ_PAGES \
    ((SNIC_SQ_WQE_SIZE << QSNIC_RDMA_SQ_LOG2) / 4096)
#define QSNIC_RDMA_RQ_LOG2 6            /* 64 WQEs: one 4 KiB page */

/* A PD, EQ, CQ, QP and a 64 KiB MR of one device. */
typedef struct QSnicRdmaNode {
    QSnic *s;
    uint8_t ip;                         /* 10.0.0.ip */
    uint8_t mac[6];
    uint64_t eq, cq, sq, rq, buf;       /* guest addresses, page aligned */
    uint64_t pdn, eqn, cqn, qpn;
    uint32_t lkey;
    uint32_t sq_pi, rq_pi, cq_ci;
} QSnicRdmaNode;

/* 'n' page-aligned 4 KiB pages of guest memory, zeroed. */
uint64_t qsnic_alloc_pages(QSnic *s, unsigned n);
/* A page list for n pages from 'first', in guest memory. */
uint64_t qsnic_page_list(QSnic *s, uint64_t first, unsigned n);
/* CREATE_CQ on one page at 'ring' reporting to EQ 'eqn'; the CQ number. */
uint64_t qsnic_rdma_create_cq(QSnic *s, uint64_t ring, uint32_t eqn);
/* CREATE_QP with one-page SQ and RQ rings; the admin status. */
uint16_t qsnic_rdma_create_qp(QSnic *s, uint8_t type, uint32_t pdn,
                              uint32_t cqn, uint64_t sq, uint64_t rq,
                              uint64_t *qpn);
void qsnic_rdma_node_init(QSnicRdmaNode *n, QSnic *s, uint8_t ip,
                          uint8_t qp_type);
void qsnic_rdma_modify(QSnicRdmaNode *n, uint32_t mask,
                       const struct snic_qp_attr *a);
/* RESET -> INIT -> RTR -> RTS towards 'peer', as a verbs driver would. */
void qsnic_rdma_connect(QSnicRdmaNode *n, const QSnicRdmaNode *peer);
/* Post one signaled single-SGE WQE of the node's buffer; ring the SQ. */
void qsnic_rdma_post(QSnicRdmaNode *n, uint64_t wr_id, uint8_t opcode,
                     uint32_t off, uint32_t len, uint64_t raddr,
                     uint32_t rkey, uint64_t compare_add, uint64_t swap);
void qsnic_rdma_post_recv(QSnicRdmaNode *n, uint64_t wr_id, uint32_t off,
                          uint32_t len);
/* Wait up to 'iters' 10 us steps of virtual time for the next completion. */
bool qsnic_rdma_poll_for(QSnicRdmaNode *n, struct snic_cqe *c, int iters);
bool qsnic_rdma_poll(QSnicRdmaNode *n, struct snic_cqe *c);
void qsnic_rdma_expect(QSnicRdmaNode *n, uint64_t wr_id, uint8_t status);
/*
 * The RC nodes of the two snic devices at QSNIC_SLOT_A and QSNIC_SLOT_B
 * (MACs 02:00:00:00:00:01 and :02, on one hub), connected to each other.
 */
void qsnic_rdma_pair_nodes(QSnicMachine *m, QSnicRdmaNode *a,
                           QSnicRdmaNode *b);
/*
 * Two snic devices on one hub, an RC QP each, connected to each other;
 * 'opt_a' and 'opt_b' are extra properties of each device.
 */
QSnicMachine *qsnic_rdma_pair_opts(QSnicRdmaNode *a, QSnicRdmaNode *b,
                                   const char *opt_a, const char *opt_b);
QSnicMachine *qsnic_rdma_pair(QSnicRdmaNode *a, QSnicRdmaNode *b);

void qsnic_fill_pattern(QTestState *qts, uint64_t addr, uint32_t len,
                        uint8_t seed);
void qsnic_assert_same(QTestState *qts, uint64_t x, uint64_t y, uint32_t len);

#endif
