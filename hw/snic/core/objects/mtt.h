/*
 * snic core: address translation for memory regions and queues.
 *
 * A region [iova, iova + length) is mapped page by page through a page list
 * (MTT) in host memory. The device keeps no copy of the list: it reads
 * entries on demand through a small direct-mapped translation cache (the
 * NIC's TLB, as in StRoM and SRNIC), and splits every access at page
 * boundaries.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_MTT_H
#define SNIC_CORE_MTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct SnicCore SnicCore;

typedef struct SnicMtt {
    uint64_t iova;
    uint64_t length;
    uint64_t pbl;               /* guest address of the page list */
    uint32_t npages;
    uint8_t page_shift;
    bool phys;                  /* identity mapping: iova is the address */
} SnicMtt;

typedef enum SnicXlate {
    SNIC_XLATE_OK,
    SNIC_XLATE_BOUNDS,          /* outside [iova, iova + length) */
    SNIC_XLATE_FAULT,           /* a page list entry not page aligned */
    SNIC_XLATE_DMA,             /* the host refused a DMA (page list, page) */
} SnicXlate;

/* Pages needed to map length bytes starting at iova. */
uint64_t snic_mtt_pages(uint64_t iova, uint64_t length, uint8_t page_shift);

/*
 * Copy between buf and [va, va + len) of the region, one DMA per range
 * of pages that are adjacent in bus address space (each page's piece
 * alone if the host refuses the range). Bounds are checked before any
 * byte moves; a fault part-way leaves the earlier pieces done.
 */
SnicXlate snic_mtt_read(SnicCore *c, const SnicMtt *m, uint64_t va,
                        void *buf, size_t len);
SnicXlate snic_mtt_write(SnicCore *c, const SnicMtt *m, uint64_t va,
                         const void *buf, size_t len);
/*
 * Write len (at least 2) bytes, the last (a CQE's phase byte) by a DMA of
 * its own after the rest, so the host never sees it before what it
 * covers: as snic_mtt_write() of all but the last byte, then of the last
 * if that went well, with one translation when they share a page.
 */
SnicXlate snic_mtt_write_last_after(SnicCore *c, const SnicMtt *m,
                                    uint64_t va, const void *buf, size_t len);

/*
 * The result x of an access to a data buffer of QP qpn: true if it
 * failed, after reporting a DMA the host refused (an IOMMU fault) with a
 * guest error naming the QP and the address.
 */
bool snic_xlate_failed(SnicCore *c, uint32_t qpn, SnicXlate x);

/*
 * Describe a queue of 'bytes' bytes in 4 KiB pages listed at pbl (npages
 * entries) as a region at iova 0. Returns an SNIC_ADMIN_* status.
 */
uint16_t snic_ring_mtt(SnicCore *c, SnicMtt *m, uint64_t pbl, uint32_t npages,
                       uint64_t bytes);

/* Translation cache */
void snic_tlb_init(SnicCore *c, uint32_t entries);
void snic_tlb_free(SnicCore *c);
void snic_tlb_flush(SnicCore *c);
/* Drop the cached entries of one page list (before it may change). */
/* Bytes of the translation cache (on-chip memory, onchip.c) */
uint64_t snic_tlb_bytes(const SnicCore *c);
void snic_tlb_invalidate(SnicCore *c, uint64_t pbl, uint32_t npages);

#endif /* SNIC_CORE_MTT_H */
