/*
 * snic core: memory windows (IBA 10.6.7). A window is an R_Key for part
 * of a memory region with its own remote rights, bound and re-bound by
 * work requests on a QP of its PD. A type 1 window is bound with
 * ibv_bind_mw (the provider posts the bind) and may be re-bound; a type 2
 * window is bound to the one QP that bound it, must be invalidated (local
 * invalidate, or a peer's SEND with Invalidate) before it binds again.
 * A bound window holds its MR: the MR is not deregistered nor re-
 * registered under it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_MW_H
#define SNIC_CORE_MW_H

#include "objects/mr.h"
#include "snic/snic_verbs.h"

typedef struct SnicQp SnicQp;

typedef struct SnicMw {
    bool valid;
    bool bound;
    uint8_t type;               /* SNIC_MW_TYPE_* */
    uint8_t key;                /* low byte of its R_Key */
    uint32_t pdn;
    uint32_t qpn;               /* type 2: the QP it is bound to */
    uint32_t mr;                /* bound: index of its MR */
    uint32_t access;            /* bound: SNIC_ACCESS_REMOTE_* */
    uint64_t va;                /* bound: [va, va + length) of the MR */
    uint64_t length;
} SnicMw;

void snic_mw_init(SnicCore *c);
void snic_mw_free(SnicCore *c);
void snic_mw_reset(SnicCore *c);

/*
 * The region behind remote key 'rkey' (an MR's or a window's) if QP qp
 * may access [va, va + len) with 'access' (SNIC_ACCESS_REMOTE_*).
 */
SnicMr *snic_rkey_check(SnicCore *c, const SnicQp *qp, uint32_t rkey,
                        uint32_t access, uint64_t va, uint64_t len,
                        SnicMrCheck *why);

/* The work requests: an SNIC_WC_* status (SUCCESS, or the error). */
uint8_t snic_mw_bind(SnicCore *c, const SnicQp *qp,
                     const struct snic_bind_mw *b);
/* Local invalidate, or a SEND with Invalidate's IETH: true if done */
bool snic_mw_invalidate(SnicCore *c, const SnicQp *qp, uint32_t rkey);

/* Type 2 windows bound to a destroyed QP are invalidated. */
void snic_mw_qp_destroyed(SnicCore *c, uint32_t qpn);

/* Admin commands */
uint16_t snic_cmd_alloc_mw(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result);
uint16_t snic_cmd_dealloc_mw(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);

#endif /* SNIC_CORE_MW_H */
