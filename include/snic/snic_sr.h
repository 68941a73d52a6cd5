/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * SRNIC's memory-free selective repeat with bitmap onloading (SRNIC,
 * NSDI'23, section 4.4.2, Fig. 7 and 8; ABI 3.5, WRITE with Immediate
 * 3.6): the rings between the
 * device and the host software that keeps the per-QP bitmaps.
 *
 * A QP selects it with SET_QP_TRANSPORT program SNIC_TRANSPORT_SRNIC on
 * both ends. Its data and ACK packets then carry struct snic_xeth
 * (snic_opcodes.h): WRITEs their address (SNIC_XETH_F_PLACE), SENDs their
 * SSN and offset (SNIC_XETH_F_MSG), a WRITE with Immediate both (its
 * immediate takes a receive WQE: it is numbered in the SENDs' SSN
 * sequence), ACKs the responder's fast-exit range
 * as their SACK block. The device keeps only
 * ePSN, lACK and the fast-exit range per QP; what arrives out of order is
 * placed at once and its metadata goes to the host:
 *  - the CtrlQ, one ring for the device (CREATE_SR_CTRLQ), of
 *    SNIC_SR_CTRLQ_ENTRY-byte struct snic_sr_ctrl entries the device
 *    writes (body first, then the byte holding SNIC_SR_CTRL_F_PHASE,
 *    set on the first pass over the ring, clear on the second, ... as a
 *    CQ's phase bit) and raises the ring's MSI-X vector for, once for
 *    all the entries of a burst (the handler takes every entry it
 *    finds); software returns slots with an SNIC_DB_SR_CTRLQ
 *    doorbell (qid 0, index = consumer). A full ring: the packet whose
 *    metadata found no slot is dropped unplaced (a loss the selective
 *    recovery repairs), counted (sr_ctrlq_drops) and, once until the
 *    next doorbell, SNIC_EVENT_SR_CTRLQ_OVERFLOW is posted; the first
 *    drop until ePSN moves draws a sequence NAK (go-back-N's answer), so
 *    the peer resends without waiting for its timeout. Each QP may hold
 *    at most twice its window of the ring's entries (a report beyond is
 *    refused as a full ring's is, counted in sr_ctrlq_refused), and a
 *    duplicate of a PSN in the fast-exit range is acknowledged, not
 *    reported again.
 *  - a RetryQ per QP (SET_QP_SR), of SNIC_SR_RETRYQ_ENTRY-byte struct
 *    snic_sr_retry entries software writes and rings with SNIC_DB_SR_RETRYQ
 *    (qid = QPN, index = producer; free-running 16 bits, at most the
 *    ring's depth ahead of the consumer index each CtrlQ entry of the
 *    QP carries), kernel doorbell page only: the new
 *    ePSN it computed (responder) and the PSN ranges to send again
 *    (requester). The device checks each entry; one it refuses is a
 *    guest error (sr_retry_refused) and changes nothing. One the device
 *    overtook (a correct host's, written before it read the CtrlQ entry
 *    that made it moot) is stale: skipped, counted in sr_retry_stale.
 */
#ifndef SNIC_SR_H
#define SNIC_SR_H

#include <linux/types.h>

#define SNIC_SR_CTRLQ_ENTRY         32
#define SNIC_SR_CTRLQ_MIN_LOG2      4
#define SNIC_SR_CTRLQ_MAX_LOG2      16
#define SNIC_SR_RETRYQ_ENTRY        16
#define SNIC_SR_RETRYQ_MIN_LOG2     2
#define SNIC_SR_RETRYQ_MAX_LOG2     12
/*
 * PSNs an SRNIC QP may have outstanding beyond lACK (requester) and
 * accepts beyond ePSN (responder): the span of the host's bitmaps (ABI
 * 3.6; SRNIC 3.2.2 sizes them at 500 slots, 100 Gb/s x 40 us)
 */
#define SNIC_SR_SPAN                512

/* What a CtrlQ entry reports */
enum snic_sr_ctrl_type {
    /*
     * Responder in loss recovery: PSN psn was placed (or executed at
     * ePSN); epsn is the device's ePSN after it, sack_lo/sack_hi its
     * fast-exit range [psn_left, psn_right + 1).
     */
    SNIC_SR_CTRL_RESP = 1,
    /* Responder: it left loss recovery; ePSN is epsn */
    SNIC_SR_CTRL_RESP_EXIT = 2,
    /*
     * Requester in loss recovery: an ACK for psn (cumulative: PSNs up
     * to it, lACK = epsn the oldest unacknowledged) with the responder's
     * block [sack_lo, sack_hi) (none if equal); sent_end: the PSN after
     * the highest sent.
     */
    SNIC_SR_CTRL_REQ_ACK = 3,
    /* Requester: recovery ended (the cumulative ACK passed its end) */
    SNIC_SR_CTRL_REQ_EXIT = 4,
    /* Requester: the retransmission timer expired; it goes back N */
    SNIC_SR_CTRL_REQ_RTO = 5,
    /*
     * Responder: a SEND Last/Only or a WRITE with Immediate's
     * Last/Only placed (struct snic_sr_ctrl_recv; SNIC_SR_RECV_F_WRITE)
     * whose completion the device leaves to the host: it was placed
     * ahead of ePSN, or messages before it still await theirs. The host
     * posts SNIC_SR_RETRY_RECV_DONE for it, in SSN order, once ePSN is
     * past its PSN (ePSN in a later entry, or the one the host posts).
     */
    SNIC_SR_CTRL_RESP_RECV = 6,
};

#define SNIC_SR_CTRL_F_PHASE        (1u << 0)   /* = SNIC_CQE_PHASE */
#define SNIC_SR_CTRL_F_LAST         (1u << 1)   /* RESP: psn ended a msg */
/*
 * REQ_ACK (ABI 3.6): not an ACK but the READ response for PSN psn, placed
 * ahead of lACK (SRNIC 4.4.1: in place, out of order); sack_lo/sack_hi
 * [psn, psn + 1). The host keeps it in its bitmap as a SACKed PSN (holes
 * below it are asked for again by SNIC_SR_RETRY_RTX: a READ request for
 * just the hole) and moves lACK over such PSNs with SNIC_SR_RETRY_LACK.
 */
#define SNIC_SR_CTRL_F_READ         (1u << 2)

struct snic_sr_ctrl {
    __u8 type;              /* enum snic_sr_ctrl_type */
    __u8 rsvd[2];
    __u8 flags;             /* SNIC_SR_CTRL_F_* */
    __le32 qpn;
    __le32 psn;             /* RESP: the packet's; REQ_ACK: the ACK's */
    __le32 epsn;            /* RESP: ePSN after it; REQ: lACK after it */
    __le32 sack_lo;         /* RESP: psn_left; REQ_ACK: the block */
    __le32 sack_hi;         /* RESP: psn_right + 1; REQ_ACK: its end */
    __le32 sent_end;        /* REQ: the PSN after the highest sent */
    __le16 retry_ci;        /* the QP's RetryQ entries the device took */
    __le16 rsvd1;
};
_Static_assert(sizeof(struct snic_sr_ctrl) == SNIC_SR_CTRLQ_ENTRY,
               "sr_ctrl size");

/*
 * A SNIC_SR_CTRL_RESP_RECV entry: the same slot (type, flags, qpn and
 * retry_ci where struct snic_sr_ctrl has them), the completion of a
 * SEND's or a WRITE with Immediate's Last: what SNIC_SR_RETRY_RECV_DONE
 * gives back.
 */
struct snic_sr_ctrl_recv {
    __u8 type;              /* SNIC_SR_CTRL_RESP_RECV */
    __u8 recv_flags;        /* SNIC_SR_RECV_F_*: its kind, its SE bit */
    __u8 rsvd0;
    __u8 flags;             /* SNIC_SR_CTRL_F_PHASE */
    __le32 qpn;
    __le32 psn;             /* the Last's PSN */
    __le32 epsn;            /* the device's ePSN after it */
    __le32 ssn;             /* its message's SSN (struct snic_xeth msg) */
    __le32 byte_len;        /* the message's bytes (offset + payload) */
    __le32 data;            /* Imm: the immediate (host order); Inv: R_Key */
    __le16 retry_ci;        /* the QP's RetryQ entries the device took */
    __le16 head_ssn;        /* SSN of the RQ's head (next to complete) */
};
_Static_assert(sizeof(struct snic_sr_ctrl_recv) == SNIC_SR_CTRLQ_ENTRY,
               "sr_ctrl_recv size");
_Static_assert(__builtin_offsetof(struct snic_sr_ctrl_recv, type) ==
               __builtin_offsetof(struct snic_sr_ctrl, type) &&
               __builtin_offsetof(struct snic_sr_ctrl_recv, flags) ==
               __builtin_offsetof(struct snic_sr_ctrl, flags) &&
               __builtin_offsetof(struct snic_sr_ctrl_recv, qpn) ==
               __builtin_offsetof(struct snic_sr_ctrl, qpn) &&
               __builtin_offsetof(struct snic_sr_ctrl_recv, retry_ci) ==
               __builtin_offsetof(struct snic_sr_ctrl, retry_ci),
               "sr_ctrl_recv shares type, flags, qpn, retry_ci");

/* What a RetryQ entry asks */
enum snic_sr_retry_type {
    /*
     * Responder: every PSN below psn_from arrived. Taken if it moves
     * ePSN forward, inside the window, not beyond psn_right + 1 (stale
     * if not forward: ePSN or up to half the PSN space behind it); if it
     * falls in [psn_left, psn_right + 1] ePSN becomes psn_right + 1 and
     * the QP leaves recovery (Fig. 8's fast exit), else ePSN becomes
     * psn_from. SNIC_SR_RETRY_F_IN_MSG: PSN psn_from - 1 did not end its
     * message (a WRITE continues at psn_from).
     */
    SNIC_SR_RETRY_EPSN = 1,
    /*
     * Requester in recovery: send PSNs [psn_from, psn_to) again; they
     * must have been sent (psn_to at most the PSN after the highest
     * sent, psn_from before psn_to and at most half the PSN space behind
     * it; a part already acknowledged is skipped). Stale: a range
     * acknowledged already, or any once the requester left recovery.
     */
    SNIC_SR_RETRY_RTX = 2,
    /*
     * Responder (struct snic_sr_retry_recv): complete the SEND message
     * ssn, reported by SNIC_SR_CTRL_RESP_RECV, into the receive WQE at
     * the RQ's head. Taken if ssn is the next message to complete and
     * one the device reported, and byte_len fits the WQE's buffers (a
     * WRITE with Immediate, SNIC_SR_RECV_F_WRITE, placed nothing there:
     * at most 2^31, its bound); else refused. The device cannot check
     * that ePSN passed the message, nor its kind (it keeps no record of
     * it): the host posts it only then, with the flags it was told.
     */
    SNIC_SR_RETRY_RECV_DONE = 3,
    /*
     * Requester in recovery (ABI 3.6): the READ responses for every PSN
     * below psn_from arrived (reported with SNIC_SR_CTRL_F_READ, or at
     * lACK): lACK moves to psn_from and the READs it covers complete.
     * Taken if it moves lACK forward, not beyond the PSN after the
     * highest sent; stale if not forward. If psn_from falls in the
     * device's run of responses placed ahead (the one ending at the
     * highest placed), lACK goes to that run's end (as Fig. 8's exit).
     * The device cannot check the PSNs below it (it keeps no bitmap): a
     * host that lies completes a READ whose data did not all arrive.
     */
    SNIC_SR_RETRY_LACK = 4,
};

#define SNIC_SR_RETRY_F_IN_MSG      (1u << 0)

struct snic_sr_retry {
    __u8 type;              /* enum snic_sr_retry_type */
    __u8 flags;             /* SNIC_SR_RETRY_F_* */
    __le16 rsvd;
    __le32 qpn;             /* the ring's own QP */
    __le32 psn_from;
    __le32 psn_to;          /* RTX: the PSN after the range */
};
_Static_assert(sizeof(struct snic_sr_retry) == SNIC_SR_RETRYQ_ENTRY,
               "sr_retry size");

#define SNIC_SR_RECV_F_IMM          (1u << 0)   /* with Immediate */
#define SNIC_SR_RECV_F_INV          (1u << 1)   /* SEND with Invalidate */
#define SNIC_SR_RECV_F_SE           (1u << 2)   /* solicited event */
/* RDMA WRITE with Immediate (with F_IMM): its CQE RECV_RDMA_WITH_IMM */
#define SNIC_SR_RECV_F_WRITE        (1u << 3)

/* A SNIC_SR_RETRY_RECV_DONE entry: the same slot as struct snic_sr_retry */
struct snic_sr_retry_recv {
    __u8 type;              /* SNIC_SR_RETRY_RECV_DONE */
    __u8 flags;             /* SNIC_SR_RECV_F_* */
    __le16 ssn;             /* its SSN, modulo 2^16 (a window's worth) */
    __le32 qpn;             /* the ring's own QP */
    __le32 byte_len;        /* the CQE's byte_len */
    __le32 data;            /* F_IMM: the immediate; F_INV: the R_Key */
};
_Static_assert(sizeof(struct snic_sr_retry_recv) == SNIC_SR_RETRYQ_ENTRY,
               "sr_retry_recv size");

/*
 * CREATE_SR_CTRLQ (kernel only): the device's CtrlQ, 2^log2_depth entries
 * at ring_addr (contiguous, SNIC_SR_CTRLQ_ENTRY aligned, zeroed), new
 * entries raise MSI-X vector 'vector'. ring_addr 0 removes it: every
 * SRNIC QP leaves loss recovery as go-back-N would (the responder keeps
 * ePSN and NAKs it, receiving what it placed above it again; the
 * requester goes back N), RetryQ entries rung so far are stale; refused
 * (BAD_STATE) while a responder owes the host SEND completions
 * (RESP_RECV told, RECV_DONE not taken). BAD_STATE: one exists.
 */
struct snic_admin_create_sr_ctrlq {
    __le64 ring_addr;
    __u8 log2_depth;
    __u8 rsvd;
    __le16 vector;
    __le32 rsvd1;
};
_Static_assert(sizeof(struct snic_admin_create_sr_ctrlq) == 16,
               "create_sr_ctrlq size");

/*
 * SET_QP_SR (kernel only): the RetryQ of an SNIC_TRANSPORT_SRNIC QP,
 * 2^log2_depth entries at ring_addr (contiguous), and its window in
 * segments (0: 128; at most SNIC_SR_SPAN): SRNIC runs without congestion
 * control at a fixed window, the BDP. The window counts the segments in
 * flight, those neither acknowledged nor inside the SACK block (the
 * responder's fast-exit range) the latest ACK carried, so a loss does
 * not stop new data while it is repaired; the PSNs outstanding beyond
 * lACK stay below SNIC_SR_SPAN (ABI 3.6: window was 8 bits, counted
 * from lACK). BAD_STATE: the QP does not run SRNIC. Indices restart at 0.
 */
struct snic_admin_set_qp_sr {
    __le32 qpn;
    __u8 log2_depth;
    __u8 rsvd;
    __le16 window;
    __le64 ring_addr;
};
_Static_assert(sizeof(struct snic_admin_set_qp_sr) == 16,
               "set_qp_sr size");

#endif /* SNIC_SR_H */
