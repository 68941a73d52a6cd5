/*
 * QTest for snic behind a virtual IOMMU (-device intel-iommu): the test
 * programs VT-d itself as a driver's IOMMU layer would (libqos has no
 * helper for it) and checks what the device makes of the DMA it refuses.
 *
 * Legacy-mode translation: a root entry for bus 0, a context entry for
 * each snic's BDF, and one 3-level second-level table (39-bit address
 * width) that identity-maps the first GiB, 2 MiB superpages except the
 * 2 MiB around the page left unmapped, which gets a 4 KiB-page table.
 *
 * Copyright (c) 2026 snic authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <glib/gstdio.h>
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/snic.h"

/* The VT-d unit's registers (Intel VT-d specification, chapter 11) */
#define VTD_BASE            0xfed90000ull
#define VTD_GCMD            0x18
#define VTD_GSTS            0x1c
#define VTD_RTADDR          0x20
#define VTD_FSTS            0x34
#define VTD_FECTL           0x38
#define VTD_FEDATA          0x3c
#define VTD_FEADDR          0x40
#define VTD_FRCD            0x220       /* first fault recording register */
#define VTD_CMD_TE          (1u << 31)  /* translation enable */
#define VTD_CMD_SRTP        (1u << 30)  /* set root table pointer */
#define VTD_FSTS_PPF        (1u << 1)   /* primary pending fault */
#define VTD_FRCD_F          (1ull << 63)
#define VTD_FRCD_T          (1ull << 62)    /* 1: a read */
#define VTD_PRESENT         1ull
#define VTD_RW              3ull        /* second-level PTE: read, write */
#define VTD_PS              (1ull << 7) /* ... a superpage */
#define VTD_AW_39           1ull        /* context entry: 3-level table */
#define VTD_DOMAIN          (1ull << 8) /* ... domain id 1 */

/* The devices' PCI addresses on bus 0 (requester ids) */
#define SID_A               QPCI_DEVFN(QSNIC_SLOT_A, 0)
#define SID_B               QPCI_DEVFN(QSNIC_SLOT_B, 0)

#define SZ_2M               (2ull << 20)

typedef struct Iommu {
    QSnicMachine *m;
    QSnicRdmaNode a, b;
    char *dir, *log;                    /* -D: the guest-error log */
} Iommu;

static uint64_t vtd_rd64(QTestState *qts, uint64_t off)
{
    return qtest_readq(qts, VTD_BASE + off);
}

static void vtd_cmd(QTestState *qts, uint32_t cmd, uint32_t status)
{
    int i;

    qtest_writel(qts, VTD_BASE + VTD_GCMD, cmd);
    for (i = 0; i < 1000; i++) {
        if (qtest_readl(qts, VTD_BASE + VTD_GSTS) & status) {
            return;
        }
        qtest_clock_step(qts, 1000);
    }
    g_assert_not_reached();
}

/* One zeroed 4 KiB page of guest memory for VT-d's own tables */
static uint64_t table_page(QSnic *s)
{
    return qsnic_alloc_pages(s, 1);
}

static void put64(uint64_t *t, unsigned i, uint64_t v)
{
    t[i] = cpu_to_le64(v);
}

/*
 * The page tables: identity for the first GiB but the page at 'hole';
 * 'hole' 0: none left out. Returns the level-3 table's address.
 */
static uint64_t identity_tables(QSnic *s, uint64_t hole)
{
    g_autofree uint64_t *l3 = g_new0(uint64_t, 512);
    g_autofree uint64_t *l2 = g_new0(uint64_t, 512);
    g_autofree uint64_t *l1 = g_new0(uint64_t, 512);
    uint64_t l3a = table_page(s), l2a = table_page(s), l1a = table_page(s);
    uint64_t base = hole & ~(SZ_2M - 1);
    unsigned i;

    g_assert_cmpuint(hole, <, 1ull << 30);
    put64(l3, 0, l2a | VTD_RW);
    for (i = 0; i < 512; i++) {
        put64(l2, i, hole && i * SZ_2M == base ? l1a | VTD_RW :
                     i * SZ_2M | VTD_RW | VTD_PS);
        put64(l1, i, base + i * 4096ull == hole ? 0 :
                     (base + i * 4096ull) | VTD_RW);
    }
    qtest_memwrite(s->qts, l3a, l3, 4096);
    qtest_memwrite(s->qts, l2a, l2, 4096);
    qtest_memwrite(s->qts, l1a, l1, 4096);
    return l3a;
}

/*
 * Point VT-d at a root table and turn translation on. 'l3' 0: the root
 * table stays empty (no device has a context: every DMA is refused).
 */
static void vtd_enable(QSnic *s, uint64_t l3)
{
    QTestState *qts = s->qts;
    uint64_t root = table_page(s), ctx = table_page(s);

    if (l3) {
        qtest_writeq(qts, root, ctx | VTD_PRESENT);
        qtest_writeq(qts, ctx + SID_A * 16, l3 | VTD_PRESENT);
        qtest_writeq(qts, ctx + SID_A * 16 + 8, VTD_AW_39 | VTD_DOMAIN);
        qtest_writeq(qts, ctx + SID_B * 16, l3 | VTD_PRESENT);
        qtest_writeq(qts, ctx + SID_B * 16 + 8, VTD_AW_39 | VTD_DOMAIN);
    }
    /* fault events unmasked, to the local APIC */
    qtest_writel(qts, VTD_BASE + VTD_FEADDR, 0xfee00000);
    qtest_writel(qts, VTD_BASE + VTD_FEDATA, 0x40);
    qtest_writel(qts, VTD_BASE + VTD_FECTL, 0);
    qtest_writeq(qts, VTD_BASE + VTD_RTADDR, root);
    vtd_cmd(qts, VTD_CMD_SRTP, VTD_CMD_SRTP);
    vtd_cmd(qts, VTD_CMD_TE, VTD_CMD_TE);
}

/* Two connected snic devices behind intel-iommu, translation still off. */
static void iommu_start(Iommu *t)
{
    g_autofree char *args = NULL;

    t->dir = g_dir_make_tmp("snic-iommu-XXXXXX", NULL);
    t->log = g_build_filename(t->dir, "qemu.log", NULL);
    args = g_strdup_printf("-d guest_errors -D %s -device intel-iommu "
                           "-netdev hubport,id=h0,hubid=0 "
                           "-netdev hubport,id=h1,hubid=0 "
                           "-device snic,addr=%02x.0,netdev=h0,"
                           "mac=02:00:00:00:00:01 "
                           "-device snic,addr=%02x.0,netdev=h1,"
                           "mac=02:00:00:00:00:02",
                           t->log, QSNIC_SLOT_A, QSNIC_SLOT_B);
    t->m = qsnic_machine_start(args);
    qsnic_rdma_pair_nodes(t->m, &t->a, &t->b);
}

static void iommu_stop(Iommu *t)
{
    qsnic_close(t->a.s);
    qsnic_close(t->b.s);
    qsnic_machine_stop(t->m);
    g_unlink(t->log);
    g_rmdir(t->dir);
    g_free(t->log);
    g_free(t->dir);
}

static char *guest_errors(Iommu *t)
{
    char *log = NULL;

    g_assert_true(g_file_get_contents(t->log, &log, NULL, NULL));
    return log;
}

static uint32_t qp_state(QSnicRdmaNode *n)
{
    struct snic_admin_cmd cmd;
    struct snic_qp_attr a;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_QP, sizeof(cmd.query_qp));
    cmd.query_qp.qpn = cpu_to_le32(n->qpn);
    cmd.query_qp.resp_addr = cpu_to_le64(n->s->resp);
    qsnic_admin_ok(n->s, &cmd);
    qtest_memread(n->s->qts, n->s->resp, &a, sizeof(a));
    return le32_to_cpu(a.qp_state);
}

/* Both QPs through RESET to RTS again, their SQs empty. */
static void reconnect(Iommu *t)
{
    struct snic_qp_attr a = { .qp_state = cpu_to_le32(SNIC_QPS_RESET) };

    qsnic_rdma_modify(&t->a, SNIC_QP_ATTR_STATE, &a);
    qsnic_rdma_modify(&t->b, SNIC_QP_ATTR_STATE, &a);
    t->a.sq_pi = t->b.sq_pi = 0;
    qsnic_rdma_connect(&t->a, &t->b);
    qsnic_rdma_connect(&t->b, &t->a);
}

/*
 * A WRITE whose source page the IOMMU does not map: LOC_PROT_ERR, the QP
 * in ERR (QUERY_QP, itself through translated DMA), one DMA error, the
 * guest error naming the IOVA, and VT-d's fault record naming device a.
 * Both devices then move data again, through the IOMMU.
 */
static void test_data_page(void)
{
    Iommu t;
    QTestState *qts;
    uint64_t hole, errors, frcd;
    g_autofree char *log = NULL;
    g_autofree char *want = NULL;

    iommu_start(&t);
    qts = t.m->qts;
    hole = t.a.buf + 0x3000;
    vtd_enable(t.a.s, identity_tables(t.a.s, hole));
    errors = QSNIC_STAT(t.a.s, dma_errors);

    /* everything else is mapped: a WRITE from another page works */
    qsnic_fill_pattern(qts, t.a.buf, 4096, 1);
    qsnic_rdma_post(&t.a, 1, SNIC_WR_RDMA_WRITE, 0, 4096, t.b.buf, t.b.lkey,
                    0, 0);
    qsnic_rdma_expect(&t.a, 1, SNIC_WC_SUCCESS);
    qsnic_assert_same(qts, t.a.buf, t.b.buf, 4096);
    g_assert_cmpuint(QSNIC_STAT(t.a.s, dma_errors), ==, errors);

    qsnic_rdma_post(&t.a, 2, SNIC_WR_RDMA_WRITE, 0x3000, 512, t.b.buf,
                    t.b.lkey, 0, 0);
    qsnic_rdma_expect(&t.a, 2, SNIC_WC_LOC_PROT_ERR);
    g_assert_cmpuint(qp_state(&t.a), ==, SNIC_QPS_ERR);
    g_assert_cmpuint(QSNIC_STAT(t.a.s, dma_errors), ==, errors + 1);

    /* VT-d recorded the fault: a read by device a at the hole */
    g_assert_cmphex(qtest_readl(qts, VTD_BASE + VTD_FSTS) & VTD_FSTS_PPF, ==,
                    VTD_FSTS_PPF);
    frcd = vtd_rd64(qts, VTD_FRCD + 8);
    g_assert_cmphex(frcd & (VTD_FRCD_F | VTD_FRCD_T), ==,
                    VTD_FRCD_F | VTD_FRCD_T);
    g_assert_cmphex(frcd & 0xffff, ==, SID_A);
    g_assert_cmphex(vtd_rd64(qts, VTD_FRCD) & ~0xfffull, ==, hole);

    /* both devices keep working: connected afresh, b WRITEs into a */
    reconnect(&t);
    qsnic_fill_pattern(qts, t.b.buf + 0x8000, 2048, 3);
    qsnic_rdma_post(&t.b, 3, SNIC_WR_RDMA_WRITE, 0x8000, 2048,
                    t.a.buf + 0x8000, t.a.lkey, 0, 0);
    qsnic_rdma_expect(&t.b, 3, SNIC_WC_SUCCESS);
    qsnic_assert_same(qts, t.a.buf + 0x8000, t.b.buf + 0x8000, 2048);

    log = guest_errors(&t);
    want = g_strdup_printf("QP %" PRIu64 ": DMA (write 0) at IOVA 0x%" PRIx64
                           " of a data buffer refused by the host", t.a.qpn,
                           hole);
    g_assert_nonnull(strstr(log, want));
    iommu_stop(&t);
}

/*
 * The SQ's first page unmapped: the WQE cannot be fetched, so the work
 * request completes LOC_QP_OP_ERR (its wr_id unknown to the device: 0).
 */
static void test_sq_page(void)
{
    Iommu t;

    iommu_start(&t);
    vtd_enable(t.a.s, identity_tables(t.a.s, t.a.sq));
    qsnic_rdma_post(&t.a, 1, SNIC_WR_RDMA_WRITE, 0, 64, t.b.buf, t.b.lkey,
                    0, 0);
    qsnic_rdma_expect(&t.a, 0, SNIC_WC_LOC_QP_OP_ERR);
    g_assert_cmpuint(qp_state(&t.a), ==, SNIC_QPS_ERR);
    g_assert_cmpuint(QSNIC_STAT(t.a.s, dma_errors), >, 0);
    g_assert_cmphex(vtd_rd64(t.m->qts, VTD_FRCD + 8) & 0xffff, ==, SID_A);
    iommu_stop(&t);
}

/*
 * Translation on with an empty root table: every DMA of both devices is
 * refused. A doorbell makes device a fetch (and fail to fetch) its admin
 * queue; QEMU keeps running and the device answers register reads.
 */
static void test_empty_root(void)
{
    Iommu t;
    uint64_t errors;

    iommu_start(&t);
    errors = QSNIC_STAT(t.a.s, dma_errors);
    vtd_enable(t.a.s, 0);
    qsnic_rdma_post(&t.a, 1, SNIC_WR_RDMA_WRITE, 0, 64, t.b.buf, t.b.lkey,
                    0, 0);
    qsnic_doorbell(t.a.s, 0, SNIC_DB_ADMIN_SQ, 0, ++t.a.s->sq_tail);
    qtest_clock_step(t.m->qts, 10 * 1000 * 1000);
    g_assert_cmphex(qsnic_rd(t.a.s, SNIC_REG_MAGIC), ==, SNIC_MAGIC);
    g_assert_cmpuint(QSNIC_STAT(t.a.s, dma_errors), >, errors);
    g_assert_cmphex(vtd_rd64(t.m->qts, VTD_FRCD + 8) & VTD_FRCD_F, ==,
                    VTD_FRCD_F);
    iommu_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/snic/iommu/data-page", test_data_page);
    qtest_add_func("/snic/iommu/sq-page", test_sq_page);
    qtest_add_func("/snic/iommu/empty-root", test_empty_root);
    return g_test_run();
}
