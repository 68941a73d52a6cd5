/*
 * snic core: queue pairs (objects, admin commands, state, SQ/RQ
 * doorbells). The data path that moves their work requests builds on
 * these.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_QP_H
#define SNIC_CORE_QP_H

#include "objects/cq.h"
#include "objects/mtt.h"
#include "objects/qpc.h"
#include "snic/snic_admin.h"



/*
 * What a QP's life means to the engine, which registers these hooks
 * (engine/rdma.c): the QP objects call no engine function themselves.
 *  - reset: the QP was created or modified to RESET (its engine state
 *    starts over, the transport its ends chose is forgotten);
 *  - rtr, rts: it entered RTR or RTS; error: it is modified to ERR (it
 *    enters ERR and both queues are flushed);
 *  - destroy: it is about to be destroyed;
 *  - work: a doorbell posted work requests.
 */
typedef struct SnicQpHooks {
    void (*reset)(SnicCore *c, SnicQp *qp);
    void (*rtr)(SnicCore *c, SnicQp *qp);
    void (*rts)(SnicCore *c, SnicQp *qp);
    void (*error)(SnicCore *c, SnicQp *qp);
    void (*destroy)(SnicCore *c, SnicQp *qp);
    void (*work)(SnicCore *c, SnicQp *qp);
} SnicQpHooks;

void snic_qp_init(SnicCore *c);
void snic_qp_free(SnicCore *c);
void snic_qp_reset(SnicCore *c);

SnicQp *snic_qp_get(SnicCore *c, uint32_t qpn);

/* The bytes of a packet's payload at the QP's path MTU (IBA enum: 1 = 256) */
static inline uint32_t snic_qp_mtu_bytes(const SnicQp *qp)
{
    return 128u << qp->attr.path_mtu;
}
/* A QP's ring as a region (for snic_mtt_*), entries of 'entry' bytes */
SnicMtt snic_qp_ring(const SnicQpRing *r, uint8_t log2_depth, size_t entry);
void snic_qp_set_state(SnicCore *c, SnicQp *qp, uint8_t state);

/* SQ/RQ producer doorbells from a context's page */
void snic_qp_doorbell(SnicCore *c, uint16_t page, uint8_t type, uint32_t qpn,
                      uint32_t index);

/* Admin commands */
uint16_t snic_cmd_create_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_modify_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_query_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result);
uint16_t snic_cmd_destroy_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);

#endif /* SNIC_CORE_QP_H */
