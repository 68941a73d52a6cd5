/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * SRNIC's onloaded bitmaps and loss recovery decisions (SRNIC, NSDI'23,
 * section 4.4.2, Fig. 7): the host half of SNIC_TRANSPORT_SRNIC. One
 * source compiled into the Linux driver and the unit tests' simulator
 * (tests/unit/sr-host.c): no libc beyond memset, no allocation, no locks
 * (the caller serialises per QP).
 *
 * Per QP, the responder's bitmap of PSNs placed above ePSN (from the
 * CtrlQ's SNIC_SR_CTRL_RESP entries) gives the new ePSN to post
 * (SNIC_SR_RETRY_EPSN); the requester's bitmap of PSNs the responder
 * SACKed (SNIC_SR_CTRL_REQ_ACK) gives the holes to send again
 * (SNIC_SR_RETRY_RTX), RFC 6675-like: a hole is lost once
 * SNIC_SR_DUPTHRESH SACKed PSNs lie above it, and is resent once per
 * recovery, except the hole at lACK, which holds the window: once
 * SNIC_SR_DUPTHRESH PSNs sent after its retransmission are SACKed while
 * lACK has not moved, that retransmission was lost too (the network
 * does not reorder much, as SRNIC and IRN assume) and it goes again
 * rather than wait for the timeout, and so it does once
 * SNIC_SR_DUPTHRESH READ responses of holes asked for after it arrived; a
 * timeout (SNIC_SR_CTRL_REQ_RTO: the device went back N) or the end of
 * recovery forgets it all. The READ responses the device placed ahead of
 * lACK (SNIC_SR_CTRL_F_READ, SRNIC 4.4.1) are SACKed PSNs like those,
 * whose holes are asked for again the same way, and once lACK reaches
 * them the host moves it over them (SNIC_SR_RETRY_LACK): the responder
 * does not acknowledge its own responses. The completions the device
 * leaves to the host (SNIC_SR_CTRL_RESP_RECV: a SEND's, or a WRITE with
 * immediate's, SNIC_SR_RECV_F_WRITE) wait here by SSN and go back
 * (SNIC_SR_RETRY_RECV_DONE, with the flags they came with) in SSN order
 * once the device's ePSN (reported, or the one posted) passed their Last.
 *
 * Use: snic_sr_sw_entry() for each CtrlQ entry of the QP in a batch,
 * then snic_sr_sw_flush() once for the RetryQ entries to post.
 */
#ifndef SNIC_SR_RECOVERY_H
#define SNIC_SR_RECOVERY_H

#include <linux/types.h>

#include "snic/snic_sr.h"

#define SNIC_SR_SW_WINDOW       SNIC_SR_SPAN    /* PSNs a bitmap covers */
#define SNIC_SR_DUPTHRESH       3
#define SNIC_SR_SW_RECVS        SNIC_SR_SPAN    /* completions held, by SSN */

/* A completion (SEND, WRITE with immediate) the device left to the host */
struct snic_sr_sw_recv {
	__u32 psn;              /* its Last's */
	__u32 byte_len;
	__u32 data;
	__u8 flags;             /* SNIC_SR_RECV_F_* */
	__u8 valid;
	__u16 rsvd;
};

struct snic_sr_sw_qp {
	__u32 qpn;
	/* responder: PSNs received at and above r_epsn (bit: psn % window) */
	__u32 r_got[SNIC_SR_SW_WINDOW / 32];
	__u32 r_last[SNIC_SR_SW_WINDOW / 32];   /* ... that ended a message */
	__u32 r_epsn;           /* the device's ePSN, as last reported */
	__u32 r_posted;         /* the last ePSN posted */
	__u8 r_active;          /* the responder is in recovery */
	__u8 q_active;          /* the requester is in recovery */
	__u8 rsvd[2];
	/* requester: PSNs SACKed at and above q_una */
	__u32 q_sacked[SNIC_SR_SW_WINDOW / 32];
	__u32 q_read[SNIC_SR_SW_WINDOW / 32];   /* ... READ responses placed */
	__u32 q_una;            /* lACK: the oldest PSN not acknowledged */
	__u32 q_end;            /* the PSN after the highest sent */
	__u32 q_high_sacked;    /* the PSN after the highest SACKed */
	__u32 q_high_rxt;       /* holes below it were resent */
	__u32 q_lack;           /* the last lACK posted (SNIC_SR_RETRY_LACK) */
	/*
	 * q_end when each PSN was last resent (by psn % window): PSNs at and
	 * above it went out after that copy. Per PSN, not one mark, so a
	 * later hole resent meanwhile does not hide the first one's loss.
	 */
	__u32 q_rxt_at[SNIC_SR_SW_WINDOW];
	/*
	 * The order of each PSN's last resend (0: not resent), by psn %
	 * window: a READ's holes are answered in the order asked for, so
	 * responses of holes asked for after one that are in while it is
	 * not say that its request or response was lost (the window stuck
	 * at lACK sends nothing new that q_rxt_at could see)
	 */
	__u32 q_rxt_seq[SNIC_SR_SW_WINDOW];
	__u32 q_rxt_serial;
	/* counters */
	__u32 epsn_posted;
	__u32 rtx_posted;
	__u32 rtx_again;        /* ... of which a lost retransmission's */
	__u32 lack_posted;
	/* responder: completions to give back, by SSN % SNIC_SR_SW_RECVS */
	struct snic_sr_sw_recv r_recv[SNIC_SR_SW_RECVS];
	__u32 r_ssn;            /* the next SSN to give back */
	__u32 r_seen;           /* the device's ePSN: reported or posted */
	__u8 r_seen_valid;
	__u8 rsvd1[3];
	__u32 recv_posted;
};

void snic_sr_sw_init(struct snic_sr_sw_qp *q, __u32 qpn);
/* Take one CtrlQ entry of this QP (host order is read from LE fields) */
void snic_sr_sw_entry(struct snic_sr_sw_qp *q, const struct snic_sr_ctrl *e);
/*
 * The RetryQ entries the batch calls for, at most 'max', written to
 * 'out' little-endian, ready to post: their count.
 */
unsigned int snic_sr_sw_flush(struct snic_sr_sw_qp *q,
			      struct snic_sr_retry *out, unsigned int max);

#endif /* SNIC_SR_RECOVERY_H */
