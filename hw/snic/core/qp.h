/*
 * snic core: event queues, completion queues and queue pairs (objects,
 * admin commands, state). The data path that moves their work requests
 * builds on these.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_QP_H
#define SNIC_CORE_QP_H

#include "mtt.h"
#include "rdma.h"
#include "snic/snic_admin.h"

#define SNIC_MAX_CQE_LOG2           16
#define SNIC_MAX_QP_WR_LOG2         14
#define SNIC_MIN_QUEUE_LOG2         2
#define SNIC_MAX_RD_ATOMIC          16
#define SNIC_MAX_SEND_SGE           SNIC_SQ_WQE_MAX_SGE
#define SNIC_MAX_RECV_SGE           SNIC_RQ_WQE_MAX_SGE
#define SNIC_GSI_QPN                1
#define SNIC_GSI_QKEY               0x80010000u

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
} SnicCq;

/* Modifiable QP attributes, host order (from struct snic_qp_attr). */
typedef struct SnicQpAttr {
    uint32_t path_mtu;
    uint32_t qkey;
    uint32_t rq_psn;
    uint32_t sq_psn;
    uint32_t dest_qpn;
    uint32_t access;
    uint16_t pkey_index;
    uint8_t port;
    uint8_t timeout;
    uint8_t retry_cnt;
    uint8_t rnr_retry;
    uint8_t min_rnr_timer;
    uint8_t max_rd_atomic;
    uint8_t max_dest_rd_atomic;
    bool en_sqd_async_notify;
    struct snic_av av;          /* kept in its wire (little-endian) form */
} SnicQpAttr;

struct SnicQp {
    bool valid;
    uint8_t type;               /* enum snic_qp_type */
    uint8_t state;              /* enum snic_qp_state */
    uint16_t ctx;
    uint32_t pdn;
    uint32_t send_cqn;
    uint32_t recv_cqn;
    uint8_t sq_log2_depth;
    uint8_t rq_log2_depth;
    SnicMtt sq;
    SnicMtt rq;
    SnicQpAttr attr;
    /* work queue indices (free-running) */
    uint32_t sq_tail;           /* producer (doorbell) */
    uint32_t sq_comp;           /* next WQE to complete */
    uint32_t rq_tail;           /* producer (doorbell) */
    uint32_t rq_head;           /* next receive WQE to use */
    /* transport */
    const SnicProgram *program;
    SnicReq req;
    SnicResp resp;
};

int snic_qp_init(SnicCore *c);
void snic_qp_free(SnicCore *c);
void snic_qp_reset(SnicCore *c);

SnicQp *snic_qp_get(SnicCore *c, uint32_t qpn);

/* SQ/RQ producer doorbells from a context's page */
void snic_qp_doorbell(SnicCore *c, uint16_t page, uint8_t type, uint32_t qpn,
                      uint32_t index);

/* cq.c: write a completion (CQ event if armed); -1 if the CQ is broken */
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
uint16_t snic_cmd_create_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_modify_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_query_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result);
uint16_t snic_cmd_destroy_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);

#endif /* SNIC_CORE_QP_H */
