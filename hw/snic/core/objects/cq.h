/*
 * snic core: event queues and completion queues. A CQ reports its
 * completion events to an EQ, an EQ raises one MSI-X vector; both are
 * rings in host memory behind a page list, written with phase bits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_CQ_H
#define SNIC_CORE_CQ_H

#include "objects/mtt.h"
#include "snic/snic_admin.h"

#define SNIC_MAX_CQE_LOG2           23      /* ibv: 4M - 1 CQEs (driver: 2x) */
#define SNIC_MIN_QUEUE_LOG2         2
#define SNIC_MAX_CQ_MODERATION      UINT16_MAX  /* count and period (us) */

typedef struct SnicEq {
    bool valid;
    uint8_t log2_depth;
    uint16_t vector;
    uint32_t refs;              /* CQs reporting here */
    uint32_t head;              /* consumer index (doorbell) */
    uint32_t tail;              /* next EQE slot */
    SnicMtt ring;
} SnicEq;

enum { SNIC_CQ_DISARMED, SNIC_CQ_ARMED_ANY, SNIC_CQ_ARMED_SOLICITED };

typedef struct SnicCq {
    bool valid;
    bool error;                 /* overrun or ring fault: stopped */
    uint8_t log2_depth;
    uint8_t armed;              /* SNIC_CQ_* */
    uint16_t ctx;
    uint32_t eqn;
    uint32_t refs;              /* QPs completing here */
    uint32_t head;              /* consumer index (doorbell) */
    uint32_t tail;              /* next CQE slot */
    SnicMtt ring;
    /*
     * Moderation (MODIFY_CQ): once an armed CQ's event is due it waits
     * for mod_count CQEs, or mod_period_us after the first.
     */
    uint16_t mod_count;
    uint16_t mod_period_us;
    bool event_due;
    uint16_t mod_pending;       /* CQEs since the event became due */
    uint64_t mod_deadline;      /* UINT64_MAX: none */
    uint32_t mod_pos;           /* its slot + 1 in the timer heap; 0: none */
} SnicCq;

void snic_cq_init(SnicCore *c);
void snic_cq_free(SnicCore *c);
void snic_cq_reset(SnicCore *c);

/* The valid CQ with this number, or NULL */
SnicCq *snic_cq_get(SnicCore *c, uint32_t cqn);

/* Write a completion (CQ event if armed); -1 if the CQ is broken */
int snic_cq_post(SnicCore *c, uint32_t cqn, const struct snic_cqe *cqe,
                 bool solicited);
void snic_cq_doorbell(SnicCore *c, uint16_t page, uint8_t type, uint32_t cqn,
                      uint32_t index);
void snic_eq_doorbell(SnicCore *c, uint16_t page, uint32_t eqn,
                      uint32_t index);

/* Admin commands */
uint16_t snic_cmd_create_eq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_destroy_eq(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);
uint16_t snic_cmd_create_cq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_destroy_cq(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);
uint16_t snic_cmd_resize_cq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_modify_cq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);

/*
 * Fire moderated CQ events due at 'now', at most SNIC_CQ_EVENTS_PER_CALL
 * (the rest at once in the next call); the next deadline.
 */
#define SNIC_CQ_EVENTS_PER_CALL 128
uint64_t snic_cq_timer(SnicCore *c, uint64_t now);

#endif /* SNIC_CORE_CQ_H */
