/*
 * snic core: protection domains and memory regions (see mr.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/table.h"
#include "objects/mr.h"

SNIC_TABLE_ENTRY(SnicPd);
SNIC_TABLE_ENTRY(SnicMr);

void snic_mr_init(SnicCore *c)
{
    c->pds = g_new0(SnicPd, (size_t)c->cfg.max_pd + SNIC_FIRST_HANDLE);
    c->mrs = g_new0(SnicMr, (size_t)c->cfg.max_mr + SNIC_FIRST_HANDLE);
    snic_slots_init(&c->pd_slots, c->cfg.max_pd);
    snic_slots_init(&c->mr_slots, c->cfg.max_mr);
    snic_tlb_init(c, c->cfg.tlb_entries);
}

void snic_mr_free(SnicCore *c)
{
    snic_tlb_free(c);
    g_free(c->pds);
    g_free(c->mrs);
    snic_slots_free(&c->pd_slots);
    snic_slots_free(&c->mr_slots);
}

void snic_mr_reset(SnicCore *c)
{
    memset(c->pds, 0,
           sizeof(*c->pds) * (c->cfg.max_pd + SNIC_FIRST_HANDLE));
    memset(c->mrs, 0,
           sizeof(*c->mrs) * (c->cfg.max_mr + SNIC_FIRST_HANDLE));
    snic_slots_reset(&c->pd_slots);
    snic_slots_reset(&c->mr_slots);
    snic_tlb_flush(c);
}

SnicPd *snic_pd_get(SnicCore *c, uint32_t pdn)
{
    if (pdn < SNIC_FIRST_HANDLE ||
        pdn >= c->cfg.max_pd + SNIC_FIRST_HANDLE ||
        !c->pds[pdn].valid) {
        return NULL;
    }
    return &c->pds[pdn];
}

/* The MR at the key's index, whatever its key byte and state. */
static SnicMr *mr_slot(SnicCore *c, uint32_t key)
{
    uint32_t idx = key >> SNIC_KEY_INDEX_SHIFT;

    if (idx < SNIC_FIRST_HANDLE ||
        idx >= c->cfg.max_mr + SNIC_FIRST_HANDLE ||
        !c->mrs[idx].valid) {
        return NULL;
    }
    return &c->mrs[idx];
}

/* ... only if it maps memory (Valid) under exactly this key */
static SnicMr *mr_get(SnicCore *c, uint32_t key)
{
    SnicMr *mr = mr_slot(c, key);

    return mr && !mr->free && mr->key == (key & SNIC_KEY_BYTE_MASK) ?
           mr : NULL;
}

SnicMr *snic_mr_check(SnicCore *c, uint32_t key, uint32_t pdn,
                      uint32_t access, uint64_t va, uint64_t len,
                      SnicMrCheck *why)
{
    SnicMr *mr = mr_get(c, key);

    if (!mr) {
        *why = SNIC_MR_BAD_KEY;
    } else if (mr->pdn != pdn) {
        *why = SNIC_MR_BAD_PD;
    } else if ((mr->access & access) != access) {
        *why = SNIC_MR_NO_ACCESS;
    } else if (va < mr->mtt.iova || len > mr->mtt.length ||
               va - mr->mtt.iova > mr->mtt.length - len) {
        *why = SNIC_MR_BOUNDS;
    } else {
        *why = SNIC_MR_OK;
        return mr;
    }
    SNIC_EVENT(c, MR_FAULT, key, va, len, *why);
    return NULL;
}

uint16_t snic_cmd_alloc_pd(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result)
{
    uint16_t ctx = GUINT16_FROM_LE(cmd->alloc_pd.ctx);
    uint32_t i;

    if (ctx >= c->cfg.num_db_pages) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    i = snic_slots_take(&c->pd_slots);
    if (!i) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    c->pds[i] = (SnicPd) { .valid = true, .ctx = ctx };
    *result = i;
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_dealloc_pd(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    SnicPd *pd = snic_pd_get(c, GUINT32_FROM_LE(cmd->obj.handle));

    if (!pd) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (pd->refs) {
        return SNIC_ADMIN_BAD_STATE;    /* objects still use it */
    }
    snic_slots_put(&c->pd_slots, pd - c->pds);
    memset(pd, 0, sizeof(*pd));
    return SNIC_ADMIN_OK;
}

/* Validate REG_MR's fields; fill *m. */
/* An MR's rights as IBA allows them (ib_check_mr_access) */
static bool access_ok(uint32_t access)
{
    return !(access & ~(SNIC_ACCESS_LOCAL_WRITE | SNIC_ACCESS_REMOTE_WRITE |
                        SNIC_ACCESS_REMOTE_READ | SNIC_ACCESS_REMOTE_ATOMIC |
                        SNIC_ACCESS_MW_BIND)) &&
           /* remote write and atomic need local write */
           (!(access & (SNIC_ACCESS_REMOTE_WRITE |
                        SNIC_ACCESS_REMOTE_ATOMIC)) ||
            access & SNIC_ACCESS_LOCAL_WRITE);
}

/* Validate REG_MR's translation for 'access' in PD pd; fill *m. */
static uint16_t reg_mr_mtt(SnicCore *c, const struct snic_admin_reg_mr *r,
                           uint32_t access, const SnicPd *pd, SnicMtt *m)
{
    uint16_t flags = GUINT16_FROM_LE(r->flags);
    __le64 probe;

    m->iova = GUINT64_FROM_LE(r->iova);
    m->length = GUINT64_FROM_LE(r->length);
    m->pbl = GUINT64_FROM_LE(r->pbl_addr);
    m->npages = GUINT32_FROM_LE(r->npages);
    m->page_shift = r->page_shift;
    m->phys = flags & SNIC_MR_PHYS;

    if (flags & ~SNIC_MR_PHYS || !m->length ||
        m->iova + m->length - 1 < m->iova || !access_ok(access)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (m->phys) {
        /* the kernel's local DMA key: no remote rights, kernel PDs only */
        if (pd->ctx != SNIC_DB_KERNEL_PAGE ||
            access & ~SNIC_ACCESS_LOCAL_WRITE || m->npages || m->pbl) {
            return SNIC_ADMIN_BAD_PARAM;
        }
        m->page_shift = 0;      /* no pages: whatever was asked is unused */
        return SNIC_ADMIN_OK;
    }
    if ((m->page_shift != SNIC_PAGE_SHIFT_4K &&
         m->page_shift != SNIC_PAGE_SHIFT_2M) ||
        m->npages != snic_mtt_pages(m->iova, m->length, m->page_shift) ||
        m->npages > c->cfg.max_mr_pages) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (m->pbl % 8 || m->pbl + (uint64_t)m->npages * 8 < m->pbl ||
        snic_dma_read(c, m->pbl, &probe, sizeof(probe)) ||
        snic_dma_read(c, m->pbl + (m->npages - 1) * 8ull, &probe,
                      sizeof(probe))) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    return SNIC_ADMIN_OK;
}

/*
 * An MR for fast registration (SNIC_MR_FRWR): a kernel PD's, with only its
 * page budget; it maps nothing until a REG_MR work request.
 */
static uint16_t reg_mr_frwr(const struct snic_admin_reg_mr *r, const SnicPd *pd)
{
    uint32_t npages = GUINT32_FROM_LE(r->npages);

    if (pd->ctx != SNIC_DB_KERNEL_PAGE ||
        GUINT16_FROM_LE(r->flags) != SNIC_MR_FRWR ||
        !npages || npages > SNIC_FRWR_MAX_PAGES || r->iova || r->length ||
        r->pbl_addr || r->access || r->page_shift) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_reg_mr(SnicCore *c, const struct snic_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct snic_admin_reg_mr *r = &cmd->reg_mr;
    uint32_t pdn = GUINT32_FROM_LE(r->pdn);
    bool frwr = GUINT16_FROM_LE(r->flags) & SNIC_MR_FRWR;
    SnicPd *pd = snic_pd_get(c, pdn);
    SnicMtt m = { 0 };
    uint16_t st;
    uint32_t i;

    if (!pd) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    st = frwr ? reg_mr_frwr(r, pd) :
         reg_mr_mtt(c, r, GUINT32_FROM_LE(r->access), pd, &m);
    if (st != SNIC_ADMIN_OK) {
        SNIC_GUEST_ERROR(c, GE_REG_MR, GUINT64_FROM_LE(r->iova),
                         GUINT64_FROM_LE(r->length),
                         GUINT32_FROM_LE(r->access), st);
        return st;
    }
    i = snic_slots_take(&c->mr_slots);
    if (!i) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    c->mrs[i] = (SnicMr) {
        .valid = true,
        .frwr = frwr,
        .free = frwr,
        .key = r->key,
        .max_pages = frwr ? GUINT32_FROM_LE(r->npages) : 0,
        .pdn = pdn,
        .access = GUINT32_FROM_LE(r->access),
        .mtt = m,
    };
    /* the page list may have held another region's entries */
    if (!frwr && !m.phys) {
        snic_tlb_invalidate(c, m.pbl, m.npages);
    }
    pd->refs++;
    *result = i << SNIC_KEY_INDEX_SHIFT | r->key;
    return SNIC_ADMIN_OK;
}

/* An FRWR MR is named by its index: each registration changes its key. */
uint16_t snic_cmd_dereg_mr(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result)
{
    uint32_t key = GUINT32_FROM_LE(cmd->obj.handle);
    SnicMr *mr = mr_slot(c, key);

    if (!mr || (!mr->frwr && mr->key != (key & SNIC_KEY_BYTE_MASK))) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (mr->mw_refs) {
        return SNIC_ADMIN_BAD_STATE;    /* windows are bound in it */
    }
    if (!mr->mtt.phys && !mr->free) {
        snic_tlb_invalidate(c, mr->mtt.pbl, mr->mtt.npages);
    }
    c->pds[mr->pdn].refs--;
    snic_slots_put(&c->mr_slots, mr - c->mrs);
    memset(mr, 0, sizeof(*mr));
    return SNIC_ADMIN_OK;
}

/*
 * Change an MR in place under its keys: translation, PD and/or rights.
 * Its TLB entries go; work already using it sees the new region from its
 * next access, as IBA lets rereg race with outstanding work.
 */
uint16_t snic_cmd_rereg_mr(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result)
{
    const struct snic_admin_rereg_mr *p = &cmd->rereg_mr;
    uint32_t flags = GUINT32_FROM_LE(p->rereg_flags);
    SnicMr *mr = mr_get(c, GUINT32_FROM_LE(p->lkey));
    uint32_t pdn, access;
    SnicMtt m;
    SnicPd *pd;
    uint16_t st;

    if (!mr || mr->mtt.phys || mr->frwr || !flags ||
        flags & ~(SNIC_REREG_TRANS | SNIC_REREG_PD | SNIC_REREG_ACCESS) ||
        p->mr.key || p->mr.flags) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (mr->mw_refs) {
        return SNIC_ADMIN_BAD_STATE;    /* windows are bound in it */
    }
    pdn = flags & SNIC_REREG_PD ? GUINT32_FROM_LE(p->mr.pdn) : mr->pdn;
    access = flags & SNIC_REREG_ACCESS ? GUINT32_FROM_LE(p->mr.access) :
             mr->access;
    pd = snic_pd_get(c, pdn);
    /* a context moves its MR between its own PDs only */
    if (!pd || pd->ctx != c->pds[mr->pdn].ctx || !access_ok(access)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    m = mr->mtt;
    if (flags & SNIC_REREG_TRANS) {
        st = reg_mr_mtt(c, &p->mr, access, pd, &m);
        if (st != SNIC_ADMIN_OK) {
            return st;
        }
    }
    snic_tlb_invalidate(c, mr->mtt.pbl, mr->mtt.npages);
    snic_tlb_invalidate(c, m.pbl, m.npages);
    c->pds[mr->pdn].refs--;
    pd->refs++;
    mr->pdn = pdn;
    mr->access = access;
    mr->mtt = m;
    return SNIC_ADMIN_OK;
}

/* ---- fast registration (IBA 10.6.3.6 and 10.6.5) ---- */

/* Why REG_MR work request r may not map the FRWR MR of PD pdn */
static SnicFrwrCheck fast_reg_check(SnicCore *c, uint32_t pdn,
                                    const struct snic_reg_mr_wr *r,
                                    const SnicMr *mr, SnicMtt *m)
{
    uint32_t key = GUINT32_FROM_LE(r->mr_key);
    uint32_t new_key = GUINT32_FROM_LE(r->new_key);
    __le64 list[SNIC_FRWR_MAX_PAGES];
    uint32_t i;

    if (!mr || !mr->frwr || mr->key != (key & SNIC_KEY_BYTE_MASK)) {
        return SNIC_FRWR_BAD_KEY;
    }
    if (mr->pdn != pdn) {
        return SNIC_FRWR_BAD_PD;
    }
    if (!mr->free) {
        return SNIC_FRWR_VALID;     /* it must be invalidated first */
    }
    *m = (SnicMtt) {
        .iova = GUINT64_FROM_LE(r->iova),
        .length = GUINT64_FROM_LE(r->length),
        .pbl = GUINT64_FROM_LE(r->pbl_addr),
        .npages = GUINT32_FROM_LE(r->npages),
        .page_shift = r->page_shift,
    };
    /* the consumer chooses the key byte only (ib_update_fast_reg_key) */
    if (new_key >> SNIC_KEY_INDEX_SHIFT != key >> SNIC_KEY_INDEX_SHIFT ||
        !access_ok(GUINT32_FROM_LE(r->access)) ||
        (m->page_shift != SNIC_PAGE_SHIFT_4K &&
         m->page_shift != SNIC_PAGE_SHIFT_2M) ||
        !m->length || m->iova + m->length - 1 < m->iova ||
        !m->npages || m->npages > mr->max_pages ||
        m->npages != snic_mtt_pages(m->iova, m->length, m->page_shift)) {
        return SNIC_FRWR_BAD_ARGS;
    }
    /*
     * The list is at most one 4 KiB page: read whole, every entry checked
     * now, so a bad list maps nothing (and again on each use, page_of()).
     */
    if (m->pbl % 8 ||
        snic_dma_read(c, m->pbl, list, m->npages * sizeof(list[0]))) {
        return SNIC_FRWR_PAGE_LIST;
    }
    for (i = 0; i < m->npages; i++) {
        if (GUINT64_FROM_LE(list[i]) & ((1ull << m->page_shift) - 1)) {
            return SNIC_FRWR_PAGE_LIST;
        }
    }
    return SNIC_FRWR_OK;
}

uint8_t snic_mr_fast_register(SnicCore *c, uint32_t pdn,
                              const struct snic_reg_mr_wr *r)
{
    SnicMr *mr = mr_slot(c, GUINT32_FROM_LE(r->mr_key));
    SnicFrwrCheck why;
    SnicMtt m;

    why = fast_reg_check(c, pdn, r, mr, &m);
    SNIC_EVENT(c, MR_FAST_REG, GUINT32_FROM_LE(r->mr_key),
               GUINT32_FROM_LE(r->new_key), GUINT64_FROM_LE(r->iova), why);
    if (why != SNIC_FRWR_OK) {
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    /* the list's buffer is reused: drop what it held before */
    snic_tlb_invalidate(c, m.pbl, m.npages);
    mr->mtt = m;
    mr->access = GUINT32_FROM_LE(r->access);
    mr->key = GUINT32_FROM_LE(r->new_key) & SNIC_KEY_BYTE_MASK;
    mr->free = false;
    snic_stat_inc(&c->stats.frwr_registered);
    return SNIC_WC_SUCCESS;
}

bool snic_mr_invalidate(SnicCore *c, uint32_t pdn, uint32_t key, bool remote)
{
    SnicMr *mr = mr_slot(c, key);
    SnicFrwrCheck why = SNIC_FRWR_OK;

    if (!mr || !mr->frwr || mr->key != (key & SNIC_KEY_BYTE_MASK)) {
        why = SNIC_FRWR_BAD_KEY;
    } else if (mr->pdn != pdn) {
        why = SNIC_FRWR_BAD_PD;
    } else if (mr->mw_refs) {
        why = SNIC_FRWR_BOUND;      /* its windows hold it (IBA 10.6.7) */
    }
    SNIC_EVENT(c, MR_INVALIDATE, key, remote, why);
    if (why != SNIC_FRWR_OK) {
        return false;
    }
    if (!mr->free) {
        snic_tlb_invalidate(c, mr->mtt.pbl, mr->mtt.npages);
        memset(&mr->mtt, 0, sizeof(mr->mtt));
        mr->access = 0;
        mr->free = true;
    }
    snic_stat_inc(&c->stats.frwr_invalidated);
    return true;
}

/* WQEs are re-read for every segment: their SGE count is checked here. */
_Static_assert(SNIC_SQ_WQE_MAX_SGE >= SNIC_RQ_WQE_MAX_SGE, "one SGE limit");

/*
 * One of 'out' (gather) and 'in' (scatter) is NULL; both NULL: only check
 * that a scatter would succeed (keys, rights, bounds, room), writing none.
 * A DMA the host refuses fails as a protection error, as IBA has it for a
 * local access the memory's protection forbids (an IOMMU's refusal is
 * one): QP qpn's guest error names the address.
 */
static uint8_t sge_copy(SnicCore *c, uint32_t qpn, uint32_t pdn,
                        const struct snic_sge *sge, unsigned num_sge,
                        uint32_t off, uint8_t *out, const uint8_t *in,
                        uint32_t len)
{
    unsigned i;

    if (num_sge > SNIC_SQ_WQE_MAX_SGE) {
        return SNIC_WC_LOC_QP_OP_ERR;
    }

    for (i = 0; i < num_sge && len; i++) {
        uint32_t sl = GUINT32_FROM_LE(sge[i].length);
        uint64_t va = GUINT64_FROM_LE(sge[i].addr);
        SnicMrCheck why;
        SnicXlate x;
        SnicMr *mr;
        uint32_t n;

        if (off >= sl) {
            off -= sl;
            continue;
        }
        n = MIN(sl - off, len);
        /*
         * A PHYS region lives in a kernel PD and a QP only uses a PD of its
         * own context (qp.c), so the PD match also keeps user QPs off
         * physical memory.
         */
        mr = snic_mr_check(c, GUINT32_FROM_LE(sge[i].lkey), pdn,
                           out ? 0 : SNIC_ACCESS_LOCAL_WRITE, va + off, n,
                           &why);
        if (!mr) {
            return SNIC_WC_LOC_PROT_ERR;
        }
        if (!in && !out) {
            x = SNIC_XLATE_OK;
        } else if (in) {
            x = snic_mtt_write(c, &mr->mtt, va + off, in, n);
            in += n;
        } else {
            x = snic_mtt_read(c, &mr->mtt, va + off, out, n);
            out += n;
        }
        if (snic_xlate_failed(c, qpn, x)) {
            return SNIC_WC_LOC_PROT_ERR;
        }
        len -= n;
        off = 0;
    }
    return len ? SNIC_WC_LOC_LEN_ERR : SNIC_WC_SUCCESS;
}

uint8_t snic_sge_gather(SnicCore *c, uint32_t qpn, uint32_t pdn,
                        const struct snic_sge *sge, unsigned num_sge,
                        uint32_t off, void *buf, uint32_t len)
{
    return sge_copy(c, qpn, pdn, sge, num_sge, off, buf, NULL, len);
}

uint8_t snic_sge_scatter(SnicCore *c, uint32_t qpn, uint32_t pdn,
                         const struct snic_sge *sge, unsigned num_sge,
                         uint32_t off, const void *buf, uint32_t len)
{
    return sge_copy(c, qpn, pdn, sge, num_sge, off, NULL, buf, len);
}

uint8_t snic_sge_scatter_check(SnicCore *c, uint32_t pdn,
                               const struct snic_sge *sge, unsigned num_sge,
                               uint32_t off, uint32_t len)
{
    return sge_copy(c, 0, pdn, sge, num_sge, off, NULL, NULL, len);
}
