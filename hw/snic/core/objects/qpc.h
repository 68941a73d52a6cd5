/*
 * snic core: the QP context, all the device keeps per QP (as rxe_verbs.h
 * holds struct rxe_qp): its attributes and rings, the requester's and the
 * responder's state, the scheduler's and StRoM's. Types only: the QP
 * objects (objects/qp.c) and the engine that runs them share it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_QPC_H
#define SNIC_CORE_QPC_H

#include <stdbool.h>
#include <stdint.h>

#include "snic_core.h"
#include "engine/sched_types.h"
#include "transport/transport.h"
#include "snic/snic_admin.h"
#include "snic/snic_verbs.h"

#define SNIC_MAX_QP_WR_LOG2         15      /* 32K WRs per queue */
#define SNIC_MAX_RD_ATOMIC          SNIC_RDB_ENTRIES
#define SNIC_MAX_SEND_SGE           SNIC_SQ_WQE_MAX_SGE
#define SNIC_MAX_RECV_SGE           SNIC_RQ_WQE_MAX_SGE
#define SNIC_GSI_QPN                1
/* 0 is reserved, 1 the GSI QP: the QP table holds max_qp + 2 entries */
#define SNIC_FIRST_QPN              2
#define SNIC_GSI_QKEY               0x80010000u

/* The RPC state of a QP (part of SnicQp: counted in qp_state_bytes). */
typedef struct SnicQpRpc {
    uint8_t flags:2;            /* SNIC_QP_RPC_* (SET_QP_RPC) */
    bool in_msg:1;              /* between RPC WRITE First and Last */
    bool to_host:1;             /* ... delivered to the receive queue */
    uint8_t slots;              /* slots this QP holds */
    int8_t cur;                 /* ... fed to this slot's kernel; -1 */
    uint32_t left;              /* ... payload bytes still to come */
} SnicQpRpc;

/* Requester (sender) state of a QP. */
struct SnicReq {
    /*
     * The transport deadline (UINT64_MAX: not armed): the retransmission
     * timer, or while rnr_wait the end of an RNR wait. One deadline serves
     * both because an RNR wait stops the retransmission timer (IBA
     * 9.7.5.2.8): they are never armed together.
     */
    uint64_t deadline;
    SnicDde dde;
    SnicCredit credit;
    uint16_t sq_head;           /* next WQE to start sending */
    /* PSNs of WQE sq_head already sent (< 2^23: 2 GiB / 256-byte MTU) */
    uint32_t wqe_off:24;
    uint32_t rnr_wait:1;        /* the deadline ends an RNR wait */
    /*
     * The op-code WQE sq_head started with (SNIC_WR_*, all < 2^7): a WQE
     * is read again from host memory for each of its segments, and one
     * the guest rewrote to another op-code meanwhile fails rather than
     * mixing two messages.
     */
    uint32_t wqe_op:7;
    uint32_t next_psn:24;       /* PSN of the next new segment */
    uint32_t rd_atomic:8;       /* READ/atomic WQEs started, not complete */
    uint32_t comp_psn:24;       /* first PSN of WQE sq_comp */
    uint32_t retry_left:3;
    uint32_t rnr_left:3;
    uint32_t resp_retry:1;      /* retrying a lost READ/atomic response */
    /*
     * A WQE that failed locally while earlier ones were still in flight:
     * it completes with its error once they have completed.
     */
    uint32_t local_err:1;
    uint32_t rnr_psn:24;
    uint32_t local_err_status:8;
    uint16_t local_err_index;
    /*
     * WQEs acknowledged and not completed yet: the call's budget of WQEs
     * (engine/wq.h) ran out; the QP's next iteration goes on with them
     */
    uint16_t comp_owed:1;
};
_Static_assert(sizeof(SnicReq) == 40, "SnicReq size");
/* the largest op-code (snic_verbs.h) fits SnicReq.wqe_op */
_Static_assert(SNIC_WR_RPC_WRITE < 1 << 7, "SnicReq.wqe_op is 7 bits");

/*
 * The responder resource being answered: the oldest RDMA READ or atomic of
 * the RDB's pending ones (struct snic_rdb_entry, in host memory), the only
 * one whose state is on chip.
 */
typedef struct SnicRespActive {
    uint64_t va;                /* READ: start of the data; atomic: orig */
    uint32_t rkey;
    uint32_t len;
    /*
     * PSNs and counts of PSNs fit 24 bits (a READ of 2^31 bytes at a
     * 256-byte MTU is 2^23 responses): the SQ index fits beside them
     */
    uint64_t first_psn:24;
    uint64_t next:24;           /* responses [0, next) went out */
    uint64_t sq_index:16;       /* SRNIC: echoed in every response */
} SnicRespActive;

/* The transport deadline as the RTO or the RNR wait; none armed. */
static inline void snic_req_disarm(SnicReq *r)
{
    r->deadline = UINT64_MAX;
    r->rnr_wait = false;
}

/* Responder state of a QP. */
typedef struct SnicResp {
    SnicRespActive act;         /* RDB slot rdb_head while rdb_count */
    /* the current WRITE */
    uint64_t write_va;          /* its next byte */
    uint32_t write_rkey;
    uint32_t write_left;
    uint32_t write_len;
    uint32_t epsn:24;           /* expected PSN */
    uint32_t ack_syndrome:8;    /* of the one ACK/NAK waiting to go out */
    uint32_t msn:24;
    uint32_t ack_every:8;       /* SNIC_ACK_TCP: ACK every k-th packet */
    uint32_t ack_psn:24;
    uint32_t ack_copies:8;      /* SNIC_ACK_TCP: duplicate ACKs owed too */
    /* the receive WQE of the current message */
    uint32_t recv_off;          /* bytes placed in it */
    uint16_t recv_index;        /* its RQ or SRQ index (CQE wqe_index) */
    uint16_t recv_slot;         /* SRQ: its copy in the pool, + 1 */
    bool recv_held:1;
    bool recv_ok:1;             /* it was readable and well formed */
    bool in_send:1;             /* between SEND First and Last */
    bool in_write:1;            /* between WRITE First and Last */
    bool nak_sent:1;            /* NAK sequence error sent for this gap */
    bool uc_resync:1;           /* UC: dropping until a First or Only */
    bool ack_pending:1;         /* an ACK/NAK waits to go out */
    bool fatal:1;               /* after sending it, the QP goes to ERR */
    bool act_atomic:1;          /* the active RDB entry is an atomic */
    bool cnp_pending:1;         /* a CE-marked packet asks for a CNP */
    uint8_t unacked;            /* SNIC_ACK_TCP: packets since the last */
    /* the RDB ring: pending entries [rdb_head, + rdb_count), slot 0.. */
    uint8_t rdb_head:4;
    uint8_t rdb_count:5;
} SnicResp;

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
    /*
     * Its connectionless endpoint (SET_QP_CL), + 1; 0: none. The
     * endpoint's state is an entry of the device's cl-endpoints table,
     * not bytes every QP context would carry (this byte was a hole)
     */
    uint8_t cl_ep;
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

#endif /* SNIC_CORE_QPC_H */
