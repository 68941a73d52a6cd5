/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The connectionless reliable transport with receiver registration (ABI
 * 3.11), after "Connectionless Transport with Receiver Registration" for
 * FPGA HPC network interfaces (sections 3-3.4): a UD QP switched to it
 * before RTR (SET_QP_CL) is an endpoint that writes into any peer
 * endpoint's registered memory with per-packet acknowledgements and no
 * per-peer state.
 *
 * Wire. Every packet carries BTH TVer SNIC_BTH_TVER_CL (a standard stack
 * drops it at header validation), an op-code of the manufacturer-specific
 * range and struct snic_cleth right after the BTH; BTH DestQP names the
 * receiving endpoint. An operation (one CL WRITE work request, or one
 * segment of a segmented one) is cut into packets of the receiver's
 * packet size; packet i goes to base + i * packet size.
 *  - CL REGISTER: packet 0 of a registered operation, with its payload;
 *    the receiver registers (sender, endpoint, op id) -> [va, va + len)
 *    in npkts packets and sets the operation's mask (section 3.2).
 *  - CL WRITE: packet index of operation op_id at va;
 *    SNIC_CL_F_REGISTERED if the operation was registered.
 *  - CL ACK: op_id, index and a syndrome (enum snic_cl_syndrome).
 *  - CL NOTIFY: a non-registered operation's data is all acknowledged:
 *    the receiver posts its receive notification (section 3.4); index is
 *    npkts. Acknowledged as a data packet.
 */
#ifndef SNIC_CL_H
#define SNIC_CL_H

#include <linux/types.h>

#define SNIC_BTH_TVER_CL        3

enum snic_cl_opcode {
    SNIC_OP_CL_REGISTER = 0xc0,
    SNIC_OP_CL_WRITE = 0xc1,
    SNIC_OP_CL_ACK = 0xc2,
    SNIC_OP_CL_NOTIFY = 0xc3,
};

enum snic_cl_syndrome {
    SNIC_CL_ACK = 0,
    SNIC_CL_NACK_NOT_READY = 1,     /* no room now: resend, no retry used */
    SNIC_CL_NACK_REMOTE_ACCESS = 2, /* the range is not writable */
};

#define SNIC_CL_F_REGISTERED    (1u << 0)   /* CL WRITE of a registered op */

#define SNIC_CLETH_LEN          48

struct snic_cleth {
    __u8 flags;             /* SNIC_CL_F_* */
    __u8 syndrome;          /* ACK: enum snic_cl_syndrome */
    __u8 retries;           /* the sender's retry count */
    __u8 rsvd;
    __le32 src_ep;          /* the sending endpoint (its QPN) */
    __le32 op_id;           /* the sender's operation: slot | gen << 16 */
    __le32 index;           /* packet index (NOTIFY: npkts) */
    __le64 va;              /* WRITE: this packet's; others: the base */
    __le32 rkey;
    __le32 len;             /* REGISTER, NOTIFY: the operation's bytes */
    __le32 npkts;           /* REGISTER: the operation's packets */
    __le32 tag;             /* REGISTER, NOTIFY: the notification's tag */
    __le32 timeout_us;      /* the sender's per-packet timeout */
    __le32 rsvd1;
};
_Static_assert(sizeof(struct snic_cleth) == SNIC_CLETH_LEN, "cleth size");

/*
 * The CL WRITE work request (SNIC_WR_CL_WRITE on an endpoint): the
 * payload in the SGEs (or inline), the tag in imm, the destination in
 * struct snic_sq_wqe's 'cl' (snic_verbs.h); SNIC_WQE_CL_UNREGISTERED in
 * flags asks for a non-registered operation (section 3.4).
 */
#define SNIC_WR_CL_WRITE        0x22
#define SNIC_WQE_CL_UNREGISTERED    (1u << 4)

/* CQE op-codes: a CL WRITE's send completion, a receive notification */
#define SNIC_WC_CL_WRITE        0x21
#define SNIC_WC_CL_RECV         0xa1

/*
 * SET_QP_CL: make UD QP qpn, in RESET or INIT, an endpoint. Operations
 * over seg_threshold bytes (0: never) are cut into segments of seg_size
 * bytes (a multiple of the packet size, at most what a mask covers);
 * timeout_us per packet (0: 100), retries (0: 7, at most 7).
 */
struct snic_admin_set_qp_cl {
    __le32 qpn;
    __le32 seg_threshold;
    __le32 seg_size;
    __le32 timeout_us;
    __u8 retries;
    __u8 rsvd[7];
};
_Static_assert(sizeof(struct snic_admin_set_qp_cl) == 24, "set_qp_cl size");

#endif /* SNIC_CL_H */
