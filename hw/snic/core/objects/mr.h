/*
 * snic core: protection domains and memory regions.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_MR_H
#define SNIC_CORE_MR_H

#include "objects/mtt.h"
#include "snic/snic_admin.h"

typedef struct SnicPd {
    bool valid;
    uint16_t ctx;               /* owning context (doorbell page) */
    uint32_t refs;              /* MRs (and later QPs) using it */
} SnicPd;

typedef struct SnicMr {
    bool valid;
    uint8_t key;                /* low byte of lkey/rkey */
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
