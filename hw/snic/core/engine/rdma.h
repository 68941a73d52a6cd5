/*
 * snic core: the RDMA engine. RC requester and completer (req.c), RC
 * responder (resp.c), UD/GSI datagrams (ud.c) on the transport template
 * (transport/), and what they share (rdma.c): receive dispatch to QPs,
 * the run loop, timers, QP state changes, transmit, work queue access,
 * completions and the error state.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_RDMA_H
#define SNIC_CORE_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snic/snic_verbs.h"
#include "transport/transport.h"

#define SNIC_ACKREQ_EVERY       32      /* AckReq at least this often */
#define SNIC_IB_MAX_MTU         4096    /* the largest IB path MTU */
/* RoCE headers Linux reserves below the Ethernet MTU (iboe_get_mtu()) */
#define SNIC_ROCE_HDR_MAX       96
#define SNIC_READ_CHUNK         64      /* PSNs per READ request */

struct SnicPkt;
struct snic_admin_cmd;
struct SnicWireAddr;

/* A send WQE and the PSNs it occupies (recomputed, never stored). */
typedef struct SnicSendWqe {
    uint32_t first_psn;
    uint32_t npsn;              /* PSNs the message occupies */
    uint32_t len;               /* message bytes */
    uint8_t opcode;             /* enum snic_wr_opcode */
    uint8_t flags;              /* SNIC_WQE_* */
} SnicSendWqe;

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
void snic_rdma_receive(SnicCore *c, const uint8_t *frame, size_t len);
/* Will its next iteration fetch WQEs (timing model: park it first)? */
bool snic_rdma_wants_fetch(SnicCore *c, const SnicQp *qp);
bool snic_rdma_iteration(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_reset(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_rtr(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_rts(SnicCore *c, SnicQp *qp);
/* the QP goes to ERR; both queues are flushed */
void snic_rdma_qp_error(SnicCore *c, SnicQp *qp);

/* rdma.c: the port's addresses (its GID table) */
uint16_t snic_cmd_set_gid(SnicCore *c, const struct snic_admin_cmd *cmd,
                          uint64_t *result);
bool snic_port_owns(const SnicCore *c, bool ipv6, const uint8_t *ip);
/* A source address's GID table index (-1: none); an index's address */
int snic_gid_index(const SnicCore *c, bool ipv6, const uint8_t gid[16]);
void snic_gid_get(const SnicCore *c, uint8_t index, uint8_t gid[16]);

/* rdma.c: transmit */
/* The port's active MTU: the largest IB MTU its Ethernet MTU carries */
uint32_t snic_port_mtu(const SnicCore *c);
void snic_rdma_av_addr(SnicCore *c, const struct snic_av *av, uint32_t lqpn,
                       uint32_t rqpn, struct SnicWireAddr *a);
void snic_rdma_fill_addr(SnicCore *c, SnicQp *qp, struct SnicPkt *p);
/* host_bytes: of the payload, read from host memory (SnicHostOps.tx_frame) */
void snic_rdma_xmit(SnicCore *c, const struct SnicPkt *p, uint32_t host_bytes);

/* rdma.c: work queues and their completions */
/*
 * A send WQE is read in two parts, as a NIC reads descriptors in blocks
 * (mlx5: 64-byte basic blocks, its control segment giving the WQE's
 * size): its first SNIC_SQ_WQE_FIRST bytes - the header, the op-code's
 * fields and three SGEs, all most WQEs use -, then only if its SGEs or
 * inline data go further, up to where they end. A 512-byte SEND so costs
 * 128 bytes of PCIe reads, not the slot's 256.
 */
#define SNIC_SQ_WQE_FIRST       128
/* Bytes of WQE 'w' the device reads (its first part, then its body) */
uint32_t snic_sq_wqe_used(const struct snic_sq_wqe *w);
/* ... of WQE 'index' of the QP's SQ, from its header (0: unreadable) */
uint32_t snic_sq_wqe_used_at(SnicCore *c, SnicQp *qp, uint32_t index);
int snic_sq_fetch(SnicCore *c, SnicQp *qp, uint32_t index,
                  struct snic_sq_wqe *w);
/*
 * Hold the receive WQE of the current message: the one held already, or
 * the next of the QP's RQ or SRQ. False if none is posted.
 */
bool snic_recv_take(SnicCore *c, SnicQp *qp);
/* Bytes the held receive WQE's buffers take; -1 if it is malformed */
int64_t snic_recv_room(SnicCore *c, const SnicQp *qp);
/*
 * SRQ receive WQEs in progress are copied to a pool on the device shared
 * by all QPs (cfg.recv_pool entries; an RQ's stays in its slot): a QP
 * gives its entry back when the message completes or the QP resets. With
 * the pool used up a SEND meets no receive WQE: RNR, as for an empty SRQ.
 */
void snic_recv_release(SnicCore *c, SnicQp *qp);
void snic_recv_pool_reset(SnicCore *c);
uint8_t snic_rq_scatter(SnicCore *c, SnicQp *qp, uint32_t off,
                        const uint8_t *buf, uint32_t len);
/*
 * The receive WQE 'ahead' places after the head of the QP's RQ, read
 * without taking it (a SEND packet placed out of order, resp.c). False
 * if the QP uses an SRQ (whose WQEs are not the QP's to pick by number),
 * or that WQE is not posted, unreadable or malformed.
 */
bool snic_rq_peek(SnicCore *c, const SnicQp *qp, uint32_t ahead,
                  struct snic_rq_wqe *w);
void snic_rq_complete(SnicCore *c, SnicQp *qp, uint8_t status,
                      uint8_t opcode, uint32_t len,
                      const struct SnicPkt *p);
void snic_post_send_cqe(SnicCore *c, SnicQp *qp, const SnicSendWqe *info,
                        uint64_t wr_id, uint8_t status);
/* A WRITE packet's payload to memory: SNIC_AETH_ACK or the NAK */
uint8_t snic_write_place(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                         bool first, bool last);
/* BIND_MW, LOCAL_INV and REG_MR: an SNIC_WC_* status */
uint8_t snic_local_op(SnicCore *c, SnicQp *qp, const struct snic_sq_wqe *w);
static inline bool snic_wr_is_local(uint8_t opcode)
{
    return opcode == SNIC_WR_BIND_MW || opcode == SNIC_WR_LOCAL_INV ||
           opcode == SNIC_WR_REG_MR;
}
/* A SEND with Invalidate's IETH: a type 2 window's or an FRWR MR's key */
bool snic_remote_invalidate(SnicCore *c, SnicQp *qp, uint32_t rkey);
uint8_t snic_wqe_payload_len(SnicCore *c, SnicQp *qp, uint32_t index,
                             const struct snic_sq_wqe *w, uint64_t *len);
uint8_t snic_wqe_gather(SnicCore *c, SnicQp *qp, const struct snic_sq_wqe *w,
                        uint32_t off, void *buf, uint32_t len);
/* Of 'len' gathered bytes, those read from host memory: none if inline */
static inline uint32_t snic_wqe_host_bytes(const struct snic_sq_wqe *w,
                                           uint32_t len)
{
    return w->flags & SNIC_WQE_INLINE ? 0 : len;
}

/* req.c: requester and completer */
/* The RC op-code of packet 'seg' of 'nseg' of a SEND or WRITE WQE */
uint8_t snic_seg_opcode(uint8_t wr, uint32_t seg, uint32_t nseg);
/* up to 'budget' segments of at most 'wqes' WQEs started or resent */
bool snic_req_run(SnicCore *c, SnicQp *qp, unsigned budget, unsigned wqes);
void snic_req_response(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
/* fail the oldest send WQE with a status; the QP goes to ERR */
void snic_req_fail(SnicCore *c, SnicQp *qp, uint8_t status);
void snic_req_arm_rto(SnicCore *c, SnicQp *qp);
void snic_req_cnp(SnicCore *c, SnicQp *qp);
/*
 * SRNIC's READ responses (srnic/sr_read.c). Place one at its final
 * address whatever its order, after checking it against its WQE and the
 * request it echoes: 1 placed, 0 refused (nothing written), -1 the QP
 * failed (its WQE unreadable, its own buffer gone). Acknowledge every PSN
 * up to 'upto' (all their responses placed), complete, feed the program.
 */
int snic_req_read_place(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_req_read_acked(SnicCore *c, SnicQp *qp, uint32_t upto,
                         struct SnicFeedback *fb);

/* resp.c: responder */
void snic_resp_request(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
/* queue the ACK/NAK to send; a fatal NAK, after which the QP fails */
void snic_resp_queue_ack(SnicCore *c, SnicQp *qp, uint8_t syn, uint32_t psn);
void snic_resp_nak_fatal(SnicCore *c, SnicQp *qp, uint8_t syn, uint32_t psn);
uint8_t snic_resp_place_write(SnicCore *c, SnicQp *qp,
                              const struct SnicPkt *p, bool at_epsn);
bool snic_resp_place_send(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                          uint32_t d, uint32_t lag);
bool snic_resp_msg_posted(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                          uint32_t d, uint32_t lag);
void snic_resp_send_ack(SnicCore *c, SnicQp *qp);
void snic_resp_trimmed(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_resp_send_nacks(SnicCore *c, SnicQp *qp);
bool snic_resp_run(SnicCore *c, SnicQp *qp, unsigned budget);

/* uc.c: unreliable connected QPs */
bool snic_uc_run(SnicCore *c, SnicQp *qp, unsigned budget);
void snic_uc_request(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);

/* ud.c: datagrams */
bool snic_ud_run(SnicCore *c, SnicQp *qp, unsigned budget);
void snic_ud_receive(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);

#endif /* SNIC_CORE_RDMA_H */
