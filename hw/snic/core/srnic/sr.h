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
 * the end of a burst (core.c: the CtrlQ's interrupt), two admin commands
 * (admin.c), and READs (sr_read.c, SRNIC 4.4.1: responses placed out of
 * order at the requester, req.c; holes answered alone at the responder,
 * resp.c). The host software it onloads the
 * bitmaps to is guest-driver/common/snic_sr_recovery.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_TRANSPORT_SR_H
#define SNIC_CORE_TRANSPORT_SR_H

#include <stdbool.h>
#include <stdint.h>

#include "snic/snic_sr.h"
#include "srnic/sr_types.h"
#include "transport/transport.h"

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
struct SnicPkt;
struct snic_admin_cmd;

/*
 * A READ request for response PSNs the responder sent already (sr_read.c):
 * the 'n' responses from psn of its RDB entry 'slot' go again, 'next' of
 * them went. Held until answered, before the RDB's pending entries.
 */
typedef struct SnicSrHole {
    uint32_t psn:24;
    uint32_t n:8;               /* <= SNIC_READ_CHUNK */
    uint8_t next;
    uint8_t slot;
} SnicSrHole;

#define SNIC_SR_READ_HOLES      4

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
    SnicSrCtrlHold ctrl;        /* what it holds of the CtrlQ */
    /*
     * READs (sr_read.c). Requester: the run of READ responses placed
     * ahead of lACK ending at the highest placed, [rd_left, rd_right],
     * as the responder's fast-exit range. Responder: the holes asked for.
     */
    uint32_t rd_left:24;
    uint32_t rd_active:1;
    uint32_t rd_ack_due:1;      /* requester: an ACK of responses owed */
    uint32_t rd_right:24;
    uint32_t rd_acked_valid:1;  /* responder: rd_acked holds */
    uint32_t rd_ack_sent:24;    /* requester: lACK its last ACK told */
    /* responder: the responses below it were acknowledged */
    uint32_t rd_acked:24;
    uint8_t hole_head, hole_count;
    SnicSrHole hole[SNIC_SR_READ_HOLES];
} SnicSrQp;

/* What the device made of a RetryQ entry (sr.c, sr_read.c) */
typedef enum SrRetryVerdict {
    SR_RETRY_TAKEN,
    SR_RETRY_STALE,
    SR_RETRY_REFUSED,
} SrRetryVerdict;

/*
 * The segments in flight SET_QP_SR allows (0: SNIC_TX_WINDOW), the
 * requester's window without DCTCP and the responder's for READ responses
 */
static inline uint32_t snic_sr_window(const SnicSrQp *s)
{
    return s->window ? s->window : SNIC_TX_WINDOW;
}

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
/*
 * resp.c, snic_resp_hold_expired(): ePSN went back to the first PSN of a
 * message the responder forgot
 */
void snic_sr_resp_rewound(SnicCore *c, SnicQp *qp);
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

/*
 * sr_read.c: SRNIC's READs (section 4.4.1), in place out of order.
 * req.c, rd_atomic_response(): a READ response on an SRNIC QP at or
 * ahead of lACK (not beyond the highest PSN sent): 1 with feedback for
 * the program (lACK moved: it was the next one), -1 taken here (placed
 * ahead and reported, or refused and counted), 0 dropped as stale.
 */
int snic_sr_read_response(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                          SnicFeedback *fb);
/* sr.c, the RetryQ: SNIC_SR_RETRY_LACK */
SrRetryVerdict snic_sr_retry_lack(SnicCore *c, SnicQp *qp,
                                  const struct snic_sr_retry *e);
/*
 * resp.c, rdb_replay(): a duplicate READ request for the 'n' responses
 * from psn of RDB entry 'slot', which were sent already: they alone go
 * again (not the rest of the entry); false if no room (dropped).
 */
bool snic_sr_read_hole(SnicCore *c, SnicQp *qp, unsigned slot, uint32_t psn,
                       uint32_t n);
/*
 * Self-clocked READ responses (SRNIC 4.4.1): the requester acknowledges
 * the responses (an ACK with SNIC_XETH_F_RESP, and its READ requests
 * carry its lACK), the responder keeps at most its window of them in
 * flight. snic_sr_read_peer_ack(): req.c (such an ACK) and resp.c (a
 * READ request): every response below 'psn' arrived; false if it was
 * not one to take. snic_sr_read_window(): resp.c, may response 'psn' go
 * now (and it is counted sent)? snic_sr_read_ack_run(): rdma.c, the ACK
 * owed, if any, sent.
 */
bool snic_sr_read_peer_ack(SnicCore *c, SnicQp *qp, uint32_t psn);
bool snic_sr_read_window(SnicQp *qp, uint32_t psn);
void snic_sr_read_ack_run(SnicCore *c, SnicQp *qp);
/* resp.c, snic_resp_run(): the hole to answer first, or NULL; done */
SnicSrHole *snic_sr_read_hole_head(SnicQp *qp);
void snic_sr_read_hole_pop(SnicQp *qp);
/* sr.c's CtrlQ for sr_read.c: room for one entry, in the ring and the QP's
 * quota; post one (counted) */
bool snic_sr_ctrl_room(SnicCore *c, SnicQp *qp, uint32_t psn);
bool snic_sr_ctrl_post(SnicCore *c, SnicQp *qp, struct snic_sr_ctrl *e);

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
