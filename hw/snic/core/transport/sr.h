/*
 * snic core: SRNIC's memory-free selective repeat with bitmap onloading
 * (SRNIC, NSDI'23, section 4.4: header extensions 4.4.1, Fig. 7's
 * bitmap onloading and Fig. 8's fast exit 4.4.2), a mode of the
 * data-delivery engine selected as transport SNIC_TRANSPORT_SRNIC.
 *
 * It is not a program confined to the template's calls: beside the
 * program hooks (init, incoming, periodic: the requester's recovery
 * state and its CtrlQ reports) it hooks the engine where a Tonic program
 * cannot reach, each hook declared below with where it is called from:
 * the responder's receive path (resp.c: placement out of order, ePSN,
 * the fast-exit range), the ACK it builds (resp.c: the SACK block), the
 * QP's scheduling iteration (rdma.c: the RetryQ), the doorbells (regs.c),
 * the end of a burst (core.c: the CtrlQ's interrupt) and two admin
 * commands (admin.c). The host software it onloads the
 * bitmaps to is guest-driver/common/snic_sr_recovery.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_TRANSPORT_SR_H
#define SNIC_CORE_TRANSPORT_SR_H

#include <stdbool.h>
#include <stdint.h>

#include "snic/snic_sr.h"
#include "transport.h"

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
struct SnicPkt;
struct snic_admin_cmd;

/* The device's CtrlQ (CREATE_SR_CTRLQ); in SnicCore, runtime state */
typedef struct SnicSrCtrlq {
    uint64_t base;              /* 0: none */
    uint32_t head;              /* consumer (doorbell), free-running */
    uint32_t tail;              /* next slot the device writes */
    uint16_t vector;
    uint8_t log2_depth;
    bool overflow_told;         /* async event posted since the doorbell */
    bool irq_pending;           /* entries written since the vector rose */
} SnicSrCtrlq;

/*
 * The per-QP state of SRNIC: all of it in the QP's program area (so only
 * an SRNIC QP pays for it, and QUERY_TRANSPORT's qpc_bytes counts it).
 * The responder keeps ePSN (SnicResp, as every QP), whether it is in
 * loss recovery and the fast-exit range [psn_left, psn_right]: the run
 * of placed PSNs ending at the highest one placed; the requester lACK
 * (the DDE's wnd_start), whether it is in recovery, where recovery ends
 * and how many PSNs the SACK blocks told of (its window does not count
 * them); both ends the message numbers (SSNs, section 4.4.1) SEND and
 * WRITE with immediate packets carry, and the responder the SSN after
 * the last message whose completion it left to the host
 * (SNIC_SR_CTRL_RESP_RECV): while msg.resp is behind it, completions
 * wait for the host's SNIC_SR_RETRY_RECV_DONE; and what the QP may still
 * hold of the CtrlQ, its quota (sr.c, ctrl_held()). No bitmap: those are
 * the host's.
 */
typedef struct SnicSrQp {
    uint64_t retryq;            /* RetryQ ring (SET_QP_SR; 0: none) */
    uint16_t retry_head;        /* next entry the device reads */
    uint16_t retry_tail;        /* producer (doorbell) */
    uint16_t window;            /* segments in flight (SET_QP_SR; 0: 128) */
    uint8_t retry_log2;
    uint32_t psn_left:24;
    uint32_t resp_recovery:1;
    uint32_t right_last:1;      /* psn_right ended its message */
    uint32_t psn_right:24;
    uint32_t req_recovery:1;
    uint32_t recover:24;        /* requester: the highest PSN sent at entry */
    /* requester in recovery: the end of the highest SACK block heard */
    uint32_t sack_hi:24;
    uint16_t sacked;            /* ... PSNs SACKed above lACK, at least */
    SnicOooMsg msg;             /* SSNs: the requester's, the responder's */
    uint32_t recv_told;         /* responder: SSN after the last one told */
    uint32_t ctrl_mark;         /* CtrlQ tail when ctrl_cur began */
    uint16_t ctrl_cur;          /* its CtrlQ entries since ctrl_mark */
    uint16_t ctrl_prev;         /* ... before it, maybe not all taken */
} SnicSrQp;

/* Does the QP run SRNIC (its state is snic_sr_qp())? */
bool snic_sr_on(const SnicQp *qp);
SnicSrQp *snic_sr_qp(SnicQp *qp);

/*
 * resp.c, snic_resp_request(), first: a request for an SRNIC QP. True
 * if it was taken here (placed, reported, dropped or refused); false
 * for the engine's in-order path, which then runs and is followed by
 * snic_sr_executed() with the ePSN from before it.
 */
bool snic_sr_request(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_sr_executed(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                      uint32_t epsn_before);
/* resp.c, snic_resp_send_ack(): the SACK block (the fast-exit range) */
void snic_sr_ack(SnicQp *qp, struct SnicPkt *p);

/*
 * rdma.c, snic_rdma_iteration(), before the requester runs: take the
 * RetryQ's entries (ePSN updates; one retransmission range at a time).
 * snic_sr_retry_pending(): entries wait that the next iteration takes.
 */
void snic_sr_retry_run(SnicCore *c, SnicQp *qp);
bool snic_sr_retry_pending(SnicQp *qp);

/*
 * core.c, the end of a burst (snic_core_run(), snic_core_timer()): raise
 * the CtrlQ's vector once for the entries written in it
 */
void snic_sr_ctrlq_flush(SnicCore *c);

/* regs.c: SNIC_DB_SR_CTRLQ and SNIC_DB_SR_RETRYQ (kernel page only) */
void snic_sr_doorbell(SnicCore *c, uint8_t type, uint32_t qid,
                      uint32_t index);

/* admin.c: CREATE_SR_CTRLQ and SET_QP_SR */
uint16_t snic_cmd_create_sr_ctrlq(SnicCore *c,
                                  const struct snic_admin_cmd *cmd,
                                  uint64_t *result);
uint16_t snic_cmd_set_qp_sr(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);

#endif /* SNIC_CORE_TRANSPORT_SR_H */
