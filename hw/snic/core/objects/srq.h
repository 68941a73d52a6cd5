/*
 * snic core: shared receive queues. An SRQ is a ring of receive WQEs in
 * host memory that any number of QPs of its context take from in ring
 * order, one per message. A QP copies the WQE it takes into its own
 * state, so the slot is free at once although messages complete out of
 * order; the WQE's SGEs are checked against the SRQ's PD. The limit, when
 * armed, raises SNIC_EVENT_SRQ_LIMIT once when fewer WQEs remain.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_SRQ_H
#define SNIC_CORE_SRQ_H

#include "objects/mtt.h"
#include "snic/snic_verbs.h"
#include "snic/snic_admin.h"

typedef struct SnicSrq {
    bool valid;
    uint8_t log2_depth;
    uint16_t ctx;
    uint32_t pdn;
    uint32_t refs;              /* QPs taking from it */
    uint32_t head;              /* next WQE a message takes */
    uint32_t tail;              /* producer index (doorbell) */
    uint32_t limit;             /* armed limit, 0: not armed */
    SnicMtt ring;
} SnicSrq;

void snic_srq_init(SnicCore *c);
void snic_srq_free(SnicCore *c);
void snic_srq_reset(SnicCore *c);

/* The valid SRQ with this number, or NULL */
SnicSrq *snic_srq_get(SnicCore *c, uint32_t srqn);

/*
 * Take (copy) the next WQE for a message and its ring index: 0, or 1 if
 * it was taken but could not be read, or -1 if none is posted.
 */
int snic_srq_take(SnicCore *c, SnicSrq *srq, struct snic_rq_wqe *w,
                  uint32_t *index);
/* Post SNIC_EVENT_SRQ_LIMIT (and disarm) if fewer WQEs than the limit */
void snic_srq_check_limit(SnicCore *c, SnicSrq *srq);

void snic_srq_doorbell(SnicCore *c, uint16_t page, uint32_t srqn,
                       uint32_t index);

/* Admin commands */
uint16_t snic_cmd_create_srq(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);
uint16_t snic_cmd_modify_srq(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);
uint16_t snic_cmd_query_srq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_destroy_srq(SnicCore *c, const struct snic_admin_cmd *cmd,
                              uint64_t *result);

#endif /* SNIC_CORE_SRQ_H */
