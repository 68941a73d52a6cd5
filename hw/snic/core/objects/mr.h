/*
 * snic core: protection domains and memory regions.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_MR_H
#define SNIC_CORE_MR_H

#include "objects/mtt.h"
#include "snic/snic_admin.h"
#include "snic/snic_verbs.h"

typedef struct SnicPd {
    bool valid;
    uint16_t ctx;               /* owning context (doorbell page) */
    uint32_t refs;              /* MRs (and later QPs) using it */
} SnicPd;

/*
 * A memory region in one of IBA's states (10.6.1): Invalid (the slot is
 * not valid), Valid, or - an MR for fast registration (SNIC_MR_FRWR)
 * between its invalidation and its next REG_MR work request, and from
 * its allocation - Free: it holds its index and PD and maps nothing.
 */
typedef struct SnicMr {
    bool valid;
    bool frwr:1;                /* for fast registration */
    bool free:1;                /* FRWR: maps nothing (IBA's Free) */
    uint8_t key;                /* low byte of lkey/rkey */
    uint16_t max_pages;         /* FRWR: pages a registration may list */
    uint32_t pdn;
    uint32_t access;            /* SNIC_ACCESS_* */
    uint32_t mw_refs;           /* memory windows bound in it */
    SnicMtt mtt;
} SnicMr;

/* Why an access to a memory region was refused. */
typedef enum SnicMrCheck {
    SNIC_MR_OK,
    SNIC_MR_BAD_KEY,            /* no such region, or a stale key byte */
    SNIC_MR_BAD_PD,             /* region of another protection domain */
    SNIC_MR_NO_ACCESS,          /* access right not granted */
    SNIC_MR_BOUNDS,             /* outside the region */
} SnicMrCheck;

/* What a fast registration or an invalidation found (trace events). */
typedef enum SnicFrwrCheck {
    SNIC_FRWR_OK,
    SNIC_FRWR_BAD_KEY,          /* no FRWR MR at the index, or a stale key */
    SNIC_FRWR_BAD_PD,           /* an MR of another protection domain */
    SNIC_FRWR_VALID,            /* REG_MR of an MR that still maps */
    SNIC_FRWR_BAD_ARGS,         /* new key's index, access, page size,
                                 * length or pages (more than max_num_sg) */
    SNIC_FRWR_PAGE_LIST,        /* unreadable, or an entry not page aligned */
    SNIC_FRWR_BOUND,            /* invalidate: a window is bound in it */
} SnicFrwrCheck;

void snic_mr_init(SnicCore *c);
SnicPd *snic_pd_get(SnicCore *c, uint32_t pdn);
void snic_mr_free(SnicCore *c);
void snic_mr_reset(SnicCore *c);

/*
 * The region named by 'key' if PD 'pdn' may access [va, va + len) with
 * 'access' (SNIC_ACCESS_*; 0 for a local read). Remote requests (RETH,
 * AtomicETH) ask for a remote right, so the PHYS region never matches.
 */
SnicMr *snic_mr_check(SnicCore *c, uint32_t key, uint32_t pdn,
                      uint32_t access, uint64_t va, uint64_t len,
                      SnicMrCheck *why);

/*
 * Copy bytes [off, off + len) of the message described by a scatter/gather
 * list of QP qpn out of local memory into 'buf' (gather) or from 'buf'
 * into it (scatter, which needs LOCAL_WRITE). Every segment is checked
 * against PD 'pdn'. Return an SNIC_WC_* status: a DMA the host refused is
 * SNIC_WC_LOC_PROT_ERR, with a guest error naming qpn and the address.
 */
uint8_t snic_sge_gather(SnicCore *c, uint32_t qpn, uint32_t pdn,
                        const struct snic_sge *sge, unsigned num_sge,
                        uint32_t off, void *buf, uint32_t len);
uint8_t snic_sge_scatter(SnicCore *c, uint32_t qpn, uint32_t pdn,
                         const struct snic_sge *sge, unsigned num_sge,
                         uint32_t off, const void *buf, uint32_t len);
/*
 * The status snic_sge_scatter() would return for 'len' bytes at 'off',
 * nothing written: a packet placed out of order is placed whole or not
 * at all (resp.c), so none of its bytes is placed twice.
 */
uint8_t snic_sge_scatter_check(SnicCore *c, uint32_t pdn,
                               const struct snic_sge *sge, unsigned num_sge,
                               uint32_t off, uint32_t len);

/*
 * Fast registration (SNIC_CAP_FRWR): the REG_MR work request of a QP of
 * PD 'pdn' (an SNIC_WC_* status; nothing is mapped unless SUCCESS), and
 * the invalidation of an FRWR MR's key by LOCAL_INV or a SEND with
 * Invalidate (true if done).
 */
uint8_t snic_mr_fast_register(SnicCore *c, uint32_t pdn,
                              const struct snic_reg_mr_wr *r);
bool snic_mr_invalidate(SnicCore *c, uint32_t pdn, uint32_t key, bool remote);

/* Admin commands */
uint16_t snic_cmd_alloc_pd(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result);
uint16_t snic_cmd_dealloc_pd(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);
uint16_t snic_cmd_reg_mr(SnicCore *c, const struct snic_admin_cmd *cmd,
                         uint64_t *result);
uint16_t snic_cmd_dereg_mr(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result);
uint16_t snic_cmd_rereg_mr(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result);

#endif /* SNIC_CORE_MR_H */
