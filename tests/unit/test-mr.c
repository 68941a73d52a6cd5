/*
 * Unit tests of protection domains, memory regions and address
 * translation: command validation, 4 KiB and 2 MiB page lists with page
 * splits, bounds (no byte outside the region is touched), PD and access
 * checks, the translation cache and the kernel's physical region.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "fake-host.h"
#include "objects/mr.h"
#include "objects/mtt.h"

#define PBL         (FAKE_MEM_BASE + 0x3000)
#define PAGES       (FAKE_MEM_BASE + 0x100000)  /* 4 KiB pages live here */

static uint16_t alloc_pd(FakeHost *h, uint16_t ctx, uint64_t *pdn)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    cmd.alloc_pd.ctx = GUINT16_TO_LE(ctx);
    return fake_admin(h, &cmd, pdn);
}

static void reg_init(struct snic_admin_cmd *cmd, uint32_t pdn, uint64_t iova,
                     uint64_t len, uint32_t npages, uint8_t shift,
                     uint32_t access)
{
    snic_admin_cmd_init(cmd, SNIC_ADMIN_REG_MR, sizeof(cmd->reg_mr));
    cmd->reg_mr.iova = GUINT64_TO_LE(iova);
    cmd->reg_mr.length = GUINT64_TO_LE(len);
    cmd->reg_mr.pbl_addr = GUINT64_TO_LE(PBL);
    cmd->reg_mr.npages = GUINT32_TO_LE(npages);
    cmd->reg_mr.pdn = GUINT32_TO_LE(pdn);
    cmd->reg_mr.access = GUINT32_TO_LE(access);
    cmd->reg_mr.page_shift = shift;
    cmd->reg_mr.key = 0x5a;
}

/* Page list of n 4 KiB pages taken in reverse order from PAGES. */
static void scatter_pbl(FakeHost *h, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        __le64 a = GUINT64_TO_LE(PAGES + (uint64_t)(n - 1 - i) * 0x2000);

        fake_write(h, PBL + i * 8, &a, 8);
    }
}

static FakeHost *mr_host(uint64_t *pdn)
{
    FakeHost *h = fake_host_new();

    fake_enable(h, 4, 4);
    g_assert_cmpuint(alloc_pd(h, 0, pdn), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(*pdn, >=, 1);
    return h;
}

static void test_pd_lifecycle(void)
{
    uint64_t pdn, other, key;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    unsigned i;

    g_assert_cmpuint(alloc_pd(h, FAKE_DB_PAGES, &other), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, 0), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, 999999), ==,
                     SNIC_ADMIN_BAD_PARAM);
    /* a PD with a region cannot go */
    scatter_pbl(h, 1);
    reg_init(&cmd, pdn, 0x10000, 100, 1, 12, 0);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, pdn), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEREG_MR, key), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEREG_MR, key), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, pdn), ==, SNIC_ADMIN_OK);
    /* the limit QUERY_DEVICE reports is the limit */
    for (i = 0; i < SNIC_DEFAULT_MAX_PD; i++) {
        g_assert_cmpuint(alloc_pd(h, 1, &other), ==, SNIC_ADMIN_OK);
    }
    g_assert_cmpuint(alloc_pd(h, 1, &other), ==, SNIC_ADMIN_NO_RESOURCES);
    fake_host_free(h);
}

static void test_reg_validation(void)
{
    uint64_t pdn, user_pdn, key;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;

    g_assert_cmpuint(alloc_pd(h, 3, &user_pdn), ==, SNIC_ADMIN_OK);
    scatter_pbl(h, 4);
#define REG_EXPECT(status, edit) do { \
        reg_init(&cmd, pdn, 0x10100, 3 * 4096, 4, 12, \
                 SNIC_ACCESS_LOCAL_WRITE); \
        edit; \
        g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, status); \
        if ((status) == SNIC_ADMIN_OK) { \
            g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEREG_MR, key), ==, \
                             SNIC_ADMIN_OK); \
        } \
    } while (0)

    REG_EXPECT(SNIC_ADMIN_OK, (void)0);
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM, cmd.reg_mr.pdn = GUINT32_TO_LE(77));
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM, cmd.reg_mr.page_shift = 13);
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM, cmd.reg_mr.length = 0);
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM,
               cmd.reg_mr.iova = GUINT64_TO_LE(UINT64_MAX - 100));
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM, cmd.reg_mr.npages = GUINT32_TO_LE(3));
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM, cmd.reg_mr.npages = GUINT32_TO_LE(5));
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM, cmd.reg_mr.flags = GUINT16_TO_LE(2));
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM, cmd.reg_mr.access = GUINT32_TO_LE(0x20));
    /* remote write needs local write */
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM,
               cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_REMOTE_WRITE));
    REG_EXPECT(SNIC_ADMIN_BAD_ADDRESS, cmd.reg_mr.pbl_addr = GUINT64_TO_LE(
                   PBL + 4));
    REG_EXPECT(SNIC_ADMIN_BAD_ADDRESS, cmd.reg_mr.pbl_addr = GUINT64_TO_LE(
                   0x1000));
    REG_EXPECT(SNIC_ADMIN_BAD_ADDRESS, cmd.reg_mr.pbl_addr = GUINT64_TO_LE(
                   FAKE_MEM_BASE + FAKE_MEM_SIZE - 16));
    /* the physical region: kernel PDs, local access only, no page list */
    REG_EXPECT(SNIC_ADMIN_OK,
               (cmd.reg_mr.flags = GUINT16_TO_LE(SNIC_MR_PHYS),
                cmd.reg_mr.pbl_addr = 0, cmd.reg_mr.npages = 0));
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM,
               (cmd.reg_mr.flags = GUINT16_TO_LE(SNIC_MR_PHYS),
                cmd.reg_mr.pbl_addr = 0, cmd.reg_mr.npages = 0,
                cmd.reg_mr.pdn = GUINT32_TO_LE(user_pdn)));
    REG_EXPECT(SNIC_ADMIN_BAD_PARAM,
               (cmd.reg_mr.flags = GUINT16_TO_LE(SNIC_MR_PHYS),
                cmd.reg_mr.pbl_addr = 0, cmd.reg_mr.npages = 0,
                cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                                  SNIC_ACCESS_REMOTE_READ)));
#undef REG_EXPECT
    g_assert_cmpuint(fake_guest_errors_matching(h, "REG_MR"), ==, 13);
    fake_host_free(h);
}

static void test_translate_4k(void)
{
    uint64_t pdn, key;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    const uint64_t iova = 0x7f0000000123ull, len = 4 * 4096 - 0x300;
    uint8_t *src = g_malloc(len), *back = g_malloc(len);
    SnicMrCheck why;
    SnicMr *mr;
    uint64_t i;

    for (i = 0; i < len; i++) {
        src[i] = i * 13 + 7;
    }
    memset(fake_ptr(h, PAGES, 0x10000), 0xcc, 0x10000);     /* canaries */
    scatter_pbl(h, 4);
    reg_init(&cmd, pdn, iova, len, 4, 12, SNIC_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    g_assert_cmphex(key & 0xff, ==, 0x5a);
    mr = snic_mr_check(h->core, key, pdn, SNIC_ACCESS_LOCAL_WRITE, iova, len,
                       &why);
    g_assert_nonnull(mr);
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, iova, src, len), ==,
                    SNIC_XLATE_OK);
    /* page list entry i holds page n-1-i, 8 KiB apart */
    g_assert_cmpmem(fake_ptr(h, PAGES + 3 * 0x2000 + 0x123, 4096 - 0x123),
                    4096 - 0x123, src, 4096 - 0x123);
    g_assert_cmpmem(fake_ptr(h, PAGES + 2 * 0x2000, 4096), 4096,
                    src + 4096 - 0x123, 4096);
    /* nothing before the region's first byte or between pages changed */
    g_assert_cmpuint(*(uint8_t *)fake_ptr(h, PAGES + 3 * 0x2000 + 0x122, 1),
                     ==, 0xcc);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(h, PAGES + 2 * 0x2000 + 4096, 1),
                     ==, 0xcc);
    g_assert_cmpint(snic_mtt_read(h->core, &mr->mtt, iova, back, len), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpmem(back, len, src, len);
    g_free(src);
    g_free(back);
    fake_host_free(h);
}

static void test_translate_2m(void)
{
    uint64_t pdn, key;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    /* two 2 MiB-aligned pages of guest memory, in reverse order */
    const uint64_t p0 = FAKE_MEM_BASE + (4u << 20);
    const uint64_t p1 = FAKE_MEM_BASE + (2u << 20);
    /* the region starts 32 bytes before a 2 MiB boundary */
    const uint64_t iova = 0x40000000ull + (2u << 20) - 32;
    __le64 pbl[2] = { GUINT64_TO_LE(p0), GUINT64_TO_LE(p1) };
    uint8_t buf[64], back[64];
    SnicMrCheck why;
    SnicMr *mr;

    fake_write(h, PBL, pbl, sizeof(pbl));
    memset(buf, 0x42, sizeof(buf));
    reg_init(&cmd, pdn, iova, 4096, 2, SNIC_PAGE_SHIFT_2M,
             SNIC_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    mr = snic_mr_check(h->core, key, pdn, 0, iova, 64, &why);
    g_assert_nonnull(mr);
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, iova, buf, 64), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpmem(fake_ptr(h, p0 + (2u << 20) - 32, 32), 32, buf, 32);
    g_assert_cmpmem(fake_ptr(h, p1, 32), 32, buf + 32, 32);
    g_assert_cmpint(snic_mtt_read(h->core, &mr->mtt, iova, back, 64), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpmem(back, 64, buf, 64);
    /* misaligned 2 MiB page address in the list: a fault, not a DMA */
    pbl[1] = GUINT64_TO_LE(p1 + 4096);
    fake_write(h, PBL + 8, &pbl[1], 8);
    snic_tlb_flush(h->core);
    g_assert_cmpint(snic_mtt_read(h->core, &mr->mtt, iova, back, 64), ==,
                    SNIC_XLATE_FAULT);
    fake_host_free(h);
}

static void test_bounds_touch_nothing(void)
{
    uint64_t pdn, key;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    uint8_t buf[256];
    uint8_t *before = g_memdup2(fake_ptr(h, FAKE_MEM_BASE, FAKE_MEM_SIZE),
                                FAKE_MEM_SIZE);
    SnicMr *mr;

    scatter_pbl(h, 2);
    reg_init(&cmd, pdn, 0x1000, 8192, 2, 12, SNIC_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    g_free(before);
    before = g_memdup2(fake_ptr(h, FAKE_MEM_BASE, FAKE_MEM_SIZE),
                       FAKE_MEM_SIZE);
    mr = &h->core->mrs[key >> 8];
    memset(buf, 0x99, sizeof(buf));
    /* runs past the end, starts before the start, wraps */
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, 0x1000 + 8192 - 100,
                                   buf, 256), ==, SNIC_XLATE_BOUNDS);
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, 0xf80, buf, 256), ==,
                    SNIC_XLATE_BOUNDS);
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, UINT64_MAX - 10, buf,
                                   256), ==, SNIC_XLATE_BOUNDS);
    g_assert_cmpmem(fake_ptr(h, FAKE_MEM_BASE, FAKE_MEM_SIZE), FAKE_MEM_SIZE,
                    before, FAKE_MEM_SIZE);
    g_free(before);
    fake_host_free(h);
}

static void test_access_checks(void)
{
    uint64_t pdn, pdn2, key, rokey;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    SnicMrCheck why;

    g_assert_cmpuint(alloc_pd(h, 0, &pdn2), ==, SNIC_ADMIN_OK);
    scatter_pbl(h, 2);
    reg_init(&cmd, pdn, 0x1000, 8192, 2, 12, SNIC_ACCESS_LOCAL_WRITE |
             SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_READ);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    reg_init(&cmd, pdn, 0x1000, 8192, 2, 12, SNIC_ACCESS_REMOTE_READ);
    cmd.reg_mr.key = 0x11;
    g_assert_cmpuint(fake_admin(h, &cmd, &rokey), ==, SNIC_ADMIN_OK);

    g_assert_nonnull(snic_mr_check(h->core, key, pdn,
                                   SNIC_ACCESS_REMOTE_WRITE, 0x1000, 8192,
                                   &why));
    g_assert_cmpint(why, ==, SNIC_MR_OK);
    g_assert_null(snic_mr_check(h->core, key ^ 1, pdn, 0, 0x1000, 1, &why));
    g_assert_cmpint(why, ==, SNIC_MR_BAD_KEY);          /* stale key byte */
    g_assert_null(snic_mr_check(h->core, 0, pdn, 0, 0x1000, 1, &why));
    g_assert_cmpint(why, ==, SNIC_MR_BAD_KEY);
    g_assert_null(snic_mr_check(h->core, 0xffffff00, pdn, 0, 0x1000, 1,
                                &why));
    g_assert_cmpint(why, ==, SNIC_MR_BAD_KEY);
    g_assert_null(snic_mr_check(h->core, key, pdn2, 0, 0x1000, 1, &why));
    g_assert_cmpint(why, ==, SNIC_MR_BAD_PD);
    g_assert_null(snic_mr_check(h->core, rokey, pdn,
                                SNIC_ACCESS_REMOTE_WRITE, 0x1000, 1, &why));
    g_assert_cmpint(why, ==, SNIC_MR_NO_ACCESS);
    g_assert_null(snic_mr_check(h->core, rokey, pdn,
                                SNIC_ACCESS_LOCAL_WRITE, 0x1000, 1, &why));
    g_assert_cmpint(why, ==, SNIC_MR_NO_ACCESS);
    g_assert_null(snic_mr_check(h->core, key, pdn, 0, 0x1000 + 8190, 4,
                                &why));
    g_assert_cmpint(why, ==, SNIC_MR_BOUNDS);
    g_assert_null(snic_mr_check(h->core, key, pdn, 0, 0, UINT64_MAX, &why));
    g_assert_cmpint(why, ==, SNIC_MR_BOUNDS);
    fake_host_free(h);
}

static void test_tlb(void)
{
    uint64_t pdn, key;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    uint8_t b = 0x77;
    __le64 moved = GUINT64_TO_LE(PAGES + 0x8000);
    SnicMr *mr;

    scatter_pbl(h, 1);
    reg_init(&cmd, pdn, 0x1000, 4096, 1, 12, SNIC_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    mr = &h->core->mrs[key >> 8];
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, 0x1000, &b, 1), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpuint(FAKE_STAT(h, tlb_misses), ==, 1);
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, 0x1010, &b, 1), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpuint(FAKE_STAT(h, tlb_hits), ==, 1);
    /* the driver reuses the same page list for a new region elsewhere */
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEREG_MR, key), ==, SNIC_ADMIN_OK);
    fake_write(h, PBL, &moved, 8);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    mr = &h->core->mrs[key >> 8];
    b = 0x55;
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, 0x1000, &b, 1), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(h, PAGES + 0x8000, 1), ==, 0x55);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(h, PAGES, 1), ==, 0x77);
    g_assert_cmpuint(FAKE_STAT(h, tlb_misses), ==, 2);
    /* a reset forgets every translation */
    fake_reg_write(h, SNIC_REG_DEV_CTRL, SNIC_CTRL_RESET);
    g_assert_null(snic_mr_check(h->core, key, pdn, 0, 0x1000, 1,
                                &(SnicMrCheck){ 0 }));
    fake_host_free(h);
}

static void test_phys(void)
{
    uint64_t pdn, key;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    uint8_t b[3] = { 1, 2, 3 };
    SnicMr *mr;

    /* a PHYS region has no pages: a wild page_shift must not matter */
    reg_init(&cmd, pdn, 0, UINT64_MAX, 0, 200, SNIC_ACCESS_LOCAL_WRITE);
    cmd.reg_mr.flags = GUINT16_TO_LE(SNIC_MR_PHYS);
    cmd.reg_mr.pbl_addr = 0;
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    mr = &h->core->mrs[key >> 8];
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, PAGES + 5, b, 3), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpmem(fake_ptr(h, PAGES + 5, 3), 3, b, 3);
    /* identity, but the host refuses DMA outside guest memory */
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, 0x10, b, 3), ==,
                    SNIC_XLATE_DMA);
    fake_host_free(h);
}

static uint16_t rereg(FakeHost *h, uint32_t lkey, uint32_t flags,
                      const struct snic_admin_cmd *reg)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REREG_MR, sizeof(cmd.rereg_mr));
    cmd.rereg_mr.mr = reg->reg_mr;
    cmd.rereg_mr.mr.key = 0;
    cmd.rereg_mr.lkey = GUINT32_TO_LE(lkey);
    cmd.rereg_mr.rereg_flags = GUINT32_TO_LE(flags);
    return fake_admin(h, &cmd, NULL);
}

/*
 * REREG_MR changes translation, PD and rights in place under the same
 * key, drops the old translations, and refuses what REG_MR refuses.
 */
static void test_rereg(void)
{
    uint64_t pdn, pdn2, pdn_user, key;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    SnicMrCheck why;
    uint8_t b = 0x42;
    SnicMr *mr;

    g_assert_cmpuint(alloc_pd(h, 0, &pdn2), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(alloc_pd(h, 1, &pdn_user), ==, SNIC_ADMIN_OK);
    scatter_pbl(h, 2);
    reg_init(&cmd, pdn, 0x1000, 8192, 2, 12, SNIC_ACCESS_REMOTE_READ);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    mr = &h->core->mrs[key >> 8];
    g_assert_cmpint(snic_mtt_read(h->core, &mr->mtt, 0x1000, &b, 1), ==,
                    SNIC_XLATE_OK);                 /* cached */

    /* rights: now writable, no longer readable remotely */
    reg_init(&cmd, pdn, 0, 0, 0, 0, SNIC_ACCESS_LOCAL_WRITE |
             SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(rereg(h, key, SNIC_REREG_ACCESS, &cmd), ==,
                     SNIC_ADMIN_OK);
    g_assert_nonnull(snic_mr_check(h->core, key, pdn,
                                   SNIC_ACCESS_REMOTE_WRITE, 0x1000, 1,
                                   &why));
    g_assert_null(snic_mr_check(h->core, key, pdn, SNIC_ACCESS_REMOTE_READ,
                                0x1000, 1, &why));
    /* PD: the region moves to pdn2 (refs follow) */
    reg_init(&cmd, pdn2, 0, 0, 0, 0, 0);
    g_assert_cmpuint(rereg(h, key, SNIC_REREG_PD, &cmd), ==, SNIC_ADMIN_OK);
    g_assert_null(snic_mr_check(h->core, key, pdn, 0, 0x1000, 1, &why));
    g_assert_cmpint(why, ==, SNIC_MR_BAD_PD);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, pdn), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_obj_cmd(h, SNIC_ADMIN_DEALLOC_PD, pdn2), ==,
                     SNIC_ADMIN_BAD_STATE);
    /* translation: one page elsewhere at another address; old TLB gone */
    {
        __le64 page = GUINT64_TO_LE(PAGES + 0x9000);

        fake_write(h, PBL + 0x100, &page, 8);
    }
    reg_init(&cmd, pdn2, 0x7000, 4096, 1, 12, 0);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(PBL + 0x100);
    g_assert_cmpuint(rereg(h, key, SNIC_REREG_TRANS, &cmd), ==,
                     SNIC_ADMIN_OK);
    g_assert_null(snic_mr_check(h->core, key, pdn2, 0, 0x1000, 1, &why));
    g_assert_cmpint(why, ==, SNIC_MR_BOUNDS);
    b = 0x99;
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, 0x7010, &b, 1), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(h, PAGES + 0x9010, 1), ==, 0x99);

    /* refusals change nothing */
    reg_init(&cmd, pdn2, 0, 0, 0, 0, SNIC_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(rereg(h, key, SNIC_REREG_ACCESS, &cmd), ==,
                     SNIC_ADMIN_BAD_PARAM);     /* no local write */
    reg_init(&cmd, pdn_user, 0, 0, 0, 0, 0);
    g_assert_cmpuint(rereg(h, key, SNIC_REREG_PD, &cmd), ==,
                     SNIC_ADMIN_BAD_PARAM);     /* another context's PD */
    g_assert_cmpuint(rereg(h, key, 0, &cmd), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rereg(h, key, 8, &cmd), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rereg(h, key ^ 1, SNIC_REREG_PD, &cmd), ==,
                     SNIC_ADMIN_BAD_PARAM);     /* stale key */
    reg_init(&cmd, pdn2, 0x7000, 4096, 3, 12, 0);
    g_assert_cmpuint(rereg(h, key, SNIC_REREG_TRANS, &cmd), ==,
                     SNIC_ADMIN_BAD_PARAM);     /* page count */
    g_assert_cmpuint(mr->mtt.iova, ==, 0x7000);
    g_assert_cmpuint(mr->pdn, ==, pdn2);
    g_assert_cmpuint(mr->access, ==, SNIC_ACCESS_LOCAL_WRITE |
                     SNIC_ACCESS_REMOTE_WRITE);
    fake_host_free(h);
}

static unsigned contig_reads;

static void count_read(FakeHost *h, uint64_t addr, size_t len)
{
    contig_reads++;
}

/*
 * One DMA per range of pages adjacent in bus address space: pages 0-1 and
 * 2-3 of the list are, the two pairs are not. A range the host refuses
 * goes again page by page: the pages before the refused one are written,
 * the refusal is counted once and the pages after it are not touched.
 */
static void test_contiguous_ranges(void)
{
    static const uint64_t page[4] = {
        PAGES, PAGES + 0x1000, PAGES + 0x8000, PAGES + 0x9000,
    };
    const uint64_t iova = 0x10000800, len = 4 * 4096 - 0x1000;
    uint8_t *src = g_malloc(len), *back = g_malloc(len);
    uint64_t pdn, key, errors;
    FakeHost *h = mr_host(&pdn);
    struct snic_admin_cmd cmd;
    SnicMrCheck why;
    SnicMr *mr;
    unsigned i;

    for (i = 0; i < 4; i++) {
        __le64 a = GUINT64_TO_LE(page[i]);

        fake_write(h, PBL + i * 8, &a, 8);
    }
    for (i = 0; i < len; i++) {
        src[i] = i * 7 + 1;
    }
    memset(fake_ptr(h, PAGES, 0x10000), 0xcc, 0x10000);
    reg_init(&cmd, pdn, iova, len, 4, 12, SNIC_ACCESS_LOCAL_WRITE);
    g_assert_cmpuint(fake_admin(h, &cmd, &key), ==, SNIC_ADMIN_OK);
    mr = snic_mr_check(h->core, key, pdn, SNIC_ACCESS_LOCAL_WRITE, iova, len,
                       &why);
    g_assert_nonnull(mr);

    h->log_writes = true;
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, iova, src, len), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpuint(h->writes->len, ==, 2);
    g_assert_cmpuint(fake_writes_in(h, page[0] + 0x800, 0x1800), ==, 1);
    g_assert_cmpuint(fake_writes_in(h, page[2], 0x1800), ==, 1);
    g_assert_cmpmem(fake_ptr(h, page[0] + 0x800, 0x1800), 0x1800, src,
                    0x1800);
    g_assert_cmpmem(fake_ptr(h, page[2], 0x1800), 0x1800, src + 0x1800,
                    0x1800);
    h->read_hook = count_read;
    g_assert_cmpint(snic_mtt_read(h->core, &mr->mtt, iova, back, len), ==,
                    SNIC_XLATE_OK);
    g_assert_cmpuint(contig_reads, ==, 2);     /* the page list is cached */
    g_assert_cmpmem(back, len, src, len);

    /* page 1 unmapped: page 0's part written, then the refusal */
    memset(fake_ptr(h, PAGES, 0x10000), 0xcc, 0x10000);
    g_array_set_size(h->writes, 0);
    h->unmapped_at = page[1];
    h->unmapped_len = 0x1000;
    errors = FAKE_STAT(h, dma_errors);
    g_assert_cmpint(snic_mtt_write(h->core, &mr->mtt, iova, src, len), ==,
                    SNIC_XLATE_DMA);
    g_assert_cmpuint(FAKE_STAT(h, dma_errors), ==, errors + 1);
    g_assert_cmpmem(fake_ptr(h, page[0] + 0x800, 0x800), 0x800, src, 0x800);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(h, page[2], 1), ==, 0xcc);
    /* the range, then its pieces up to the refused one */
    g_assert_cmpuint(h->writes->len, ==, 3);
    g_assert_false(g_array_index(h->writes, FakeDmaWrite, 0).ok);
    g_assert_true(g_array_index(h->writes, FakeDmaWrite, 1).ok);
    g_assert_cmphex(g_array_index(h->writes, FakeDmaWrite, 2).addr, ==,
                    page[1]);
    g_assert_false(g_array_index(h->writes, FakeDmaWrite, 2).ok);
    g_free(src);
    g_free(back);
    fake_host_free(h);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mr/rereg", test_rereg);
    g_test_add_func("/mr/pd-lifecycle", test_pd_lifecycle);
    g_test_add_func("/mr/reg-validation", test_reg_validation);
    g_test_add_func("/mr/translate-4k", test_translate_4k);
    g_test_add_func("/mr/translate-2m", test_translate_2m);
    g_test_add_func("/mr/bounds-touch-nothing", test_bounds_touch_nothing);
    g_test_add_func("/mr/access-checks", test_access_checks);
    g_test_add_func("/mr/tlb", test_tlb);
    g_test_add_func("/mr/phys", test_phys);
    g_test_add_func("/mr/contiguous-ranges", test_contiguous_ranges);
    return g_test_run();
}
