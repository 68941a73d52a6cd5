/*
 * snic core: address translation through page lists with an on-device
 * translation cache (see mtt.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/mtt.h"

/* A cache line: the address of one page-list entry and what it held. */
struct SnicTlbEntry {
    uint64_t tag;               /* guest address of the MTT entry, + 1 */
    uint64_t page;
};

uint64_t snic_tlb_bytes(const SnicCore *c)
{
    return (uint64_t)c->cfg.tlb_entries * sizeof(SnicTlbEntry);
}

/* entries is a power of two (snic_core_config_check) */
void snic_tlb_init(SnicCore *c, uint32_t entries)
{
    c->tlb = g_new0(SnicTlbEntry, entries);
    c->tlb_mask = entries - 1;
}

void snic_tlb_free(SnicCore *c)
{
    g_free(c->tlb);
    c->tlb = NULL;
}

void snic_tlb_flush(SnicCore *c)
{
    memset(c->tlb, 0, sizeof(*c->tlb) * ((size_t)c->tlb_mask + 1));
}

static uint32_t tlb_slot(SnicCore *c, uint64_t entry_addr)
{
    uint64_t h = (entry_addr >> 3) * 0x9e3779b97f4a7c15ull;

    return (uint32_t)(h >> 32) & c->tlb_mask;
}

void snic_tlb_invalidate(SnicCore *c, uint64_t pbl, uint32_t npages)
{
    uint64_t end = pbl + (uint64_t)npages * 8;
    uint32_t i;

    if (npages <= c->tlb_mask) {
        for (i = 0; i < npages; i++) {
            SnicTlbEntry *e = &c->tlb[tlb_slot(c, pbl + i * 8ull)];

            if (e->tag == pbl + i * 8ull + 1) {
                e->tag = 0;
            }
        }
        return;
    }
    for (i = 0; i <= c->tlb_mask; i++) {
        if (c->tlb[i].tag && c->tlb[i].tag - 1 >= pbl &&
            c->tlb[i].tag - 1 < end) {
            c->tlb[i].tag = 0;
        }
    }
}

uint64_t snic_mtt_pages(uint64_t iova, uint64_t length, uint8_t page_shift)
{
    uint64_t first = iova >> page_shift;
    uint64_t last = (iova + length - 1) >> page_shift;

    return length ? last - first + 1 : 0;
}

/* ... not in the cache: read from the list into cache line e */
static SnicXlate page_miss(SnicCore *c, const SnicMtt *m, SnicTlbEntry *e,
                           uint64_t entry_addr, uint64_t *page)
{
    __le64 raw;

    snic_stat_inc(&c->stats.tlb_misses);
    if (snic_dma_read(c, entry_addr, &raw, sizeof(raw))) {
        return SNIC_XLATE_DMA;
    }
    *page = GUINT64_FROM_LE(raw);
    if (*page & ((1ull << m->page_shift) - 1)) {
        return SNIC_XLATE_FAULT;    /* an entry must be page aligned */
    }
    e->tag = entry_addr + 1;
    e->page = *page;
    return SNIC_XLATE_OK;
}

/*
 * Page address of page 'idx' of the list, through the cache: a hit, most
 * lookups, inline in the access, the miss a call of its own.
 */
static inline SnicXlate page_of(SnicCore *c, const SnicMtt *m, uint64_t idx,
                                uint64_t *page)
{
    uint64_t entry_addr = m->pbl + idx * 8;
    SnicTlbEntry *e = &c->tlb[tlb_slot(c, entry_addr)];

    if (e->tag == entry_addr + 1) {
        snic_stat_inc(&c->stats.tlb_hits);
        *page = e->page;
        return SNIC_XLATE_OK;
    }
    return page_miss(c, m, e, entry_addr, page);
}

/*
 * Move [addr, addr + len), 'pieces' page pieces back to back in bus
 * address space, to or from buf: one DMA for the range, what the host is
 * asked for per range rather than per page. If the host refuses a range
 * of several pieces they go again one by one, as without the range: the
 * ones before the refused one are done, and the refusal is reported for
 * the piece it is in.
 */
static int dma_range(SnicCore *c, uint64_t addr, uint8_t *buf, size_t len,
                     unsigned pieces, uint64_t page_size, bool write)
{
    size_t done = 0;

    if (pieces == 1) {
        return write ? snic_dma_write(c, addr, buf, len) :
                       snic_dma_read(c, addr, buf, len);
    }
    if (!snic_dma_try(c, addr, buf, len, write)) {
        return 0;
    }
    while (done < len) {
        uint64_t at = addr + done;
        size_t piece = MIN(len - done, page_size - (at & (page_size - 1)));
        int err = write ? snic_dma_write(c, at, buf + done, piece) :
                          snic_dma_read(c, at, buf + done, piece);

        if (err) {
            return err;
        }
        done += piece;
    }
    return 0;
}

static SnicXlate snic_mtt_copy(SnicCore *c, const SnicMtt *m, uint64_t va,
                               void *buf, size_t len, bool write)
{
    uint64_t page_size, off, run_addr = 0;
    uint8_t *p = buf, *run_buf = buf;
    size_t run_len = 0;
    unsigned pieces = 0;

    if (va < m->iova || len > m->length || va - m->iova > m->length - len) {
        return SNIC_XLATE_BOUNDS;
    }
    if (m->phys) {
        int r = write ? snic_dma_write(c, va, buf, len) :
                        snic_dma_read(c, va, buf, len);

        return r ? SNIC_XLATE_DMA : SNIC_XLATE_OK;
    }
    page_size = 1ull << m->page_shift;  /* 12 or 21: checked by REG_MR */
    /* offset from the start of the first page */
    off = (va - m->iova) + (m->iova & (page_size - 1));
    if (len && (off & (page_size - 1)) + len <= page_size) {
        /* within one page (a WQE, a CQE, most segments): no range */
        uint64_t page;
        SnicXlate x = (off >> m->page_shift) >= m->npages ? SNIC_XLATE_FAULT :
                      page_of(c, m, off >> m->page_shift, &page);
        int r;

        if (x != SNIC_XLATE_OK) {
            return x;
        }
        page += off & (page_size - 1);
        r = write ? snic_dma_write(c, page, buf, len) :
                    snic_dma_read(c, page, buf, len);
        return r ? SNIC_XLATE_DMA : SNIC_XLATE_OK;
    }
    while (len) {
        uint64_t idx = off >> m->page_shift;
        uint64_t in_page = off & (page_size - 1);
        size_t piece = MIN(len, page_size - in_page);
        uint64_t page;
        SnicXlate x;

        x = idx >= m->npages ? SNIC_XLATE_FAULT : page_of(c, m, idx, &page);
        if (x != SNIC_XLATE_OK) {
            /* the pieces before this page are done, as one by one */
            return pieces && dma_range(c, run_addr, run_buf, run_len, pieces,
                                       page_size, write) ?
                   SNIC_XLATE_DMA : x;
        }
        if (pieces && run_addr + run_len != page + in_page) {
            if (dma_range(c, run_addr, run_buf, run_len, pieces, page_size,
                          write)) {
                return SNIC_XLATE_DMA;
            }
            pieces = 0;
        }
        if (!pieces) {
            run_addr = page + in_page;
            run_buf = p;
            run_len = 0;
        }
        run_len += piece;
        pieces++;
        p += piece;
        off += piece;
        len -= piece;
    }
    return pieces && dma_range(c, run_addr, run_buf, run_len, pieces,
                               page_size, write) ?
           SNIC_XLATE_DMA : SNIC_XLATE_OK;
}

static SnicXlate snic_mtt_access(SnicCore *c, const SnicMtt *m, uint64_t va,
                                 void *buf, size_t len, bool write)
{
    SnicXlate x = snic_mtt_copy(c, m, va, buf, len, write);

    if (x == SNIC_XLATE_FAULT || x == SNIC_XLATE_DMA) {
        SNIC_EVENT(c, XLATE_FAULT, m->pbl, va, len, write);
    }
    return x;
}

SnicXlate snic_mtt_read(SnicCore *c, const SnicMtt *m, uint64_t va,
                        void *buf, size_t len)
{
    return snic_mtt_access(c, m, va, buf, len, false);
}

SnicXlate snic_mtt_write(SnicCore *c, const SnicMtt *m, uint64_t va,
                         const void *buf, size_t len)
{
    return snic_mtt_access(c, m, va, (void *)buf, len, true);
}

SnicXlate snic_mtt_write_last_after(SnicCore *c, const SnicMtt *m,
                                    uint64_t va, const void *buf, size_t len)
{
    const uint8_t *b = buf;
    uint64_t page_size = 1ull << m->page_shift, page;
    uint64_t off = (va - m->iova) + (m->iova & (page_size - 1));
    SnicXlate x;

    if (m->phys || va < m->iova || len > m->length ||
        va - m->iova > m->length - len ||
        (off & (page_size - 1)) + len > page_size ||
        (off >> m->page_shift) >= m->npages) {
        /* the rare cases, and every error, as two writes */
        x = snic_mtt_write(c, m, va, buf, len - 1);
        return x != SNIC_XLATE_OK ? x :
               snic_mtt_write(c, m, va + len - 1, b + len - 1, 1);
    }
    x = page_of(c, m, off >> m->page_shift, &page);
    if (x == SNIC_XLATE_OK) {
        page += off & (page_size - 1);
        if (snic_dma_write(c, page, buf, len - 1)) {
            x = SNIC_XLATE_DMA;
        } else if (snic_dma_write(c, page + len - 1, b + len - 1, 1)) {
            SNIC_EVENT(c, XLATE_FAULT, m->pbl, va + len - 1, 1, true);
            return SNIC_XLATE_DMA;
        }
    }
    if (x != SNIC_XLATE_OK) {
        SNIC_EVENT(c, XLATE_FAULT, m->pbl, va, len - 1, true);
    }
    return x;
}

bool snic_xlate_failed(SnicCore *c, uint32_t qpn, SnicXlate x)
{
    if (x == SNIC_XLATE_DMA) {
        snic_dma_fault_report(c, qpn);
    }
    return x != SNIC_XLATE_OK;
}

uint16_t snic_ring_mtt(SnicCore *c, SnicMtt *m, uint64_t pbl, uint32_t npages,
                       uint64_t bytes)
{
    __le64 probe;

    *m = (SnicMtt) {
        .length = bytes,
        .pbl = pbl,
        .npages = npages,
        .page_shift = SNIC_QUEUE_PAGE_SHIFT,
    };
    if (!npages || npages != snic_mtt_pages(0, bytes, SNIC_QUEUE_PAGE_SHIFT)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (pbl % 8 || pbl + (uint64_t)npages * 8 < pbl ||
        snic_dma_read(c, pbl, &probe, sizeof(probe)) ||
        snic_dma_read(c, pbl + (npages - 1) * 8ull, &probe, sizeof(probe))) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    /* the list may have described another queue or region before */
    snic_tlb_invalidate(c, pbl, npages);
    return SNIC_ADMIN_OK;
}
