/*
 * snic core: the RDMA engine. RC requester and completer (req.c), RC
 * responder (resp.c), UC (uc.c), UD/GSI datagrams (ud.c) on the transport
 * template (transport/); receive dispatch, one scheduling iteration and
 * the QP state changes (rdma.c); its shared layers, work queues (wq.h)
 * and transmit (xmit.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_RDMA_H
#define SNIC_CORE_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snic/snic_verbs.h"
#include "engine/place.h"
#include "engine/wq.h"
#include "engine/xmit.h"
#include "transport/transport.h"


struct SnicPkt;
struct snic_admin_cmd;
struct SnicWireAddr;

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
};

/*
 * The responder resource being answered: the oldest RDMA READ or atomic of
 * the RDB's pending ones (struct snic_rdb_entry, in host memory), the only
 * one whose state is on chip.
 */
typedef struct SnicRespActive {
    uint64_t va;                /* READ: start of the data; atomic: orig */
    uint32_t rkey;
    uint32_t len;
    uint32_t first_psn;
    uint32_t next;              /* responses [0, next) went out */
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

/* rdma.c: receive dispatch, scheduling iterations, QP state changes */
/* the engine registers its hooks: the QP objects', the scheduler's, the
 * template's */
void snic_rdma_init(SnicCore *c);
void snic_rdma_receive(SnicCore *c, const uint8_t *frame, size_t len);
/* Will its next iteration fetch WQEs (timing model: park it first)? */
bool snic_rdma_wants_fetch(SnicCore *c, const SnicQp *qp);
bool snic_rdma_iteration(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_reset(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_rtr(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_rts(SnicCore *c, SnicQp *qp);

/* req.c: requester */
/* up to 'budget' segments of at most 'wqes' WQEs started or resent */
bool snic_req_run(SnicCore *c, SnicQp *qp, unsigned budget, unsigned wqes);

/* comp.c: completer (responses, a CNP from the peer) */
void snic_req_response(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_req_cnp(SnicCore *c, SnicQp *qp);

/* resp.c: responder */
void snic_resp_request(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_resp_send_ack(SnicCore *c, SnicQp *qp);
bool snic_resp_run(SnicCore *c, SnicQp *qp, unsigned budget);

/*
 * resp_ooo.c: placement ahead of ePSN (SNIC_PROG_XPORT programs): a
 * request carrying the extension, d PSNs from ePSN (true: taken there);
 * ePSN over the PSNs placed ahead of it (true if it moved); an ACK's
 * SACK block; a receiver-driven program's trimmed packets and NACKs.
 */
bool snic_resp_ooo(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                   int32_t d);
bool snic_resp_ooo_sweep(SnicCore *c, SnicQp *qp);
void snic_resp_ooo_sack(SnicQp *qp, struct SnicPkt *p);
void snic_resp_trimmed(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_resp_send_nacks(SnicCore *c, SnicQp *qp);

/* uc.c: unreliable connected QPs */
bool snic_uc_run(SnicCore *c, SnicQp *qp, unsigned budget);
void snic_uc_request(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);

/* ud.c: datagrams */
bool snic_ud_run(SnicCore *c, SnicQp *qp, unsigned budget);
void snic_ud_receive(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
/* a datagram to a multicast address: to each QP of its group */
void snic_ud_mcast_receive(SnicCore *c, const struct SnicPkt *p);

#endif /* SNIC_CORE_RDMA_H */
