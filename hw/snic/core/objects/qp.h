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
#include "engine/rdma.h"
#include "strom/rpc.h"
#include "engine/scheduler.h"
#include "snic/snic_admin.h"

#define SNIC_MAX_QP_WR_LOG2         15      /* 32K WRs per queue */
#define SNIC_MAX_RD_ATOMIC          SNIC_RDB_ENTRIES
#define SNIC_MAX_SEND_SGE           SNIC_SQ_WQE_MAX_SGE
#define SNIC_MAX_RECV_SGE           SNIC_RQ_WQE_MAX_SGE
#define SNIC_GSI_QPN                1
#define SNIC_GSI_QKEY               0x80010000u

/*
 * A connection's address vector as the QP context keeps it: the source
 * is an index into the port's GID table (the address itself lives there
 * once), the rest what each packet's headers need.
 */
/*
 * Attributes are kept at their IBA widths (PSNs and QPNs 24 bits, the
 * flow label 20, the retry counts 3, the timers 5): the QP context is
 * the device's per-QP on-chip memory (SRNIC section 3.2).
 */
typedef struct SnicQpAv {
    uint8_t dgid[16];           /* IPv4-mapped or IPv6 */
    uint8_t dmac[6];
    uint8_t sgid_index;
    uint8_t hop_limit;
    uint32_t flow_label:20;
    uint32_t flags:4;           /* SNIC_AV_* */
    uint32_t traffic_class:8;
} SnicQpAv;

/* Modifiable QP attributes, host order (from struct snic_qp_attr). */
typedef struct SnicQpAttr {
    uint32_t qkey;
    uint32_t rq_psn:24;
    uint32_t path_mtu:3;        /* SNIC_MTU_256 (1) .. SNIC_MTU_4096 (5) */
    uint32_t min_rnr_timer:5;
    uint32_t sq_psn:24;
    uint32_t timeout:5;
    uint32_t retry_cnt:3;
    uint32_t dest_qpn:24;
    uint32_t rnr_retry:3;
    uint32_t max_rd_atomic:5;   /* 0 .. SNIC_MAX_RD_ATOMIC (16) */
    uint8_t access;             /* SNIC_ACCESS_REMOTE_* of the QP */
    uint8_t max_dest_rd_atomic;
    SnicQpAv av;
} SnicQpAttr;

/*
 * A work queue's ring: 4 KiB pages behind a page list, at iova 0; as many
 * pages as its depth needs (CREATE_QP checks npages), so only the list's
 * address is kept.
 */
typedef struct SnicQpRing {
    uint64_t pbl;
} SnicQpRing;

/*
 * The QP context: all the device keeps per QP (SRNIC section 4.3: the
 * QPC in on-chip memory); fields ordered and sized to leave no holes.
 */
struct SnicQp {
    bool valid:1;
    bool en_sqd_async_notify:1;   /* kept for QUERY_QP (no SQD yet) */
    bool comm_est:1;            /* RC: since RTR, a packet has arrived */
    uint16_t ctx;
    /* object numbers are below SNIC_MAX_OBJECTS: 24 bits each */
    uint32_t pdn:24;
    uint32_t type:8;            /* enum snic_qp_type */
    uint32_t send_cqn:24;
    uint32_t state:8;           /* enum snic_qp_state */
    uint32_t recv_cqn:24;
    uint32_t program:8;         /* its transport program (transport.h) */
    uint32_t srqn:24;           /* receive WQEs from this SRQ (0: the RQ) */
    uint32_t sq_log2_depth:4;   /* <= SNIC_MAX_QP_WR_LOG2 */
    uint32_t rq_log2_depth:4;
    uint32_t rtx_segments;      /* counter: segments marked again */
    SnicQpRing sq;
    SnicQpRing rq;
    uint64_t rdb;               /* responder database (RC; 0: none) */
    /* its program's area, snic_program_area_bytes() long (NULL: none) */
    uint8_t *pstate;
    SnicQpAttr attr;
    /*
     * Work queue indices, free-running modulo 2^16 (as the CQE's
     * wqe_index): a queue holds at most 2^SNIC_MAX_QP_WR_LOG2 < 2^16 WQEs,
     * so producer - consumer, taken modulo 2^16, is its fill.
     */
    uint16_t sq_tail;           /* producer (doorbell) */
    uint16_t sq_comp;           /* next WQE to complete */
    uint16_t rq_tail;           /* producer (doorbell) */
    uint16_t rq_head;           /* next receive WQE to use */
    SnicQpSched sched;          /* scheduler and timer state */
    SnicReq req;
    SnicResp resp;
    SnicQpRpc rpc;              /* StRoM RPCs (SET_QP_RPC) */
};
_Static_assert(SNIC_MAX_OBJECTS < 1u << 24, "object numbers take 24 bits");
_Static_assert(SNIC_MAX_QP_WR_LOG2 < 16, "queue indices take 16 bits");

void snic_qp_init(SnicCore *c);
void snic_qp_free(SnicCore *c);
void snic_qp_reset(SnicCore *c);

SnicQp *snic_qp_get(SnicCore *c, uint32_t qpn);
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
