/*
 * snic core: the connectionless transport's device tables, shared by its
 * sender (send.c), its receiver (recv.c) and their setup (cl.c). On-chip
 * memory, all bounded by the device's configuration; none grows with
 * the peers an endpoint talks to.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_CL_INT_H
#define SNIC_CORE_CL_INT_H

#include "core_int.h"
#include "cl/cl.h"
#include "objects/qpc.h"
#include "port/wire.h"

/* ---- sender (section 3, Fig. 1: the DMA OP and transaction tables) ---- */

/* One operation: a CL WRITE, or one segment of a segmented one */
typedef struct ClOp {
    bool valid:1;
    bool registered:1;          /* REGISTER first, then REGISTERED WRITEs */
    bool last:1;                /* the WQE's last segment */
    bool notify:1;              /* non-registered: NOTIFY sent */
    bool done:1;                /* acknowledged (or failed) */
    uint8_t status;             /* SNIC_WC_* */
    uint16_t gen;               /* op id = slot | gen << 16 */
    uint16_t wqe;               /* its WQE's SQ index */
    uint32_t qpn;               /* its endpoint */
    uint32_t off;               /* its first byte in the WQE's payload */
    uint32_t len;
    uint32_t npkts;
    uint32_t next_pkt;          /* packets [0, next_pkt) sent once */
    uint32_t acked;
    uint32_t next;              /* the endpoint's next operation */
    uint64_t wr_id;
    bool signaled;
    bool dst_ipv6;              /* where its packets went: its ACKs' source */
    uint8_t dst_ip[16];         /* ... IPv4 in [0..3] */
    uint32_t dst_ep;
} ClOp;

/* One packet in flight, until acknowledged or given up */
typedef struct ClTxn {
    bool valid:1;
    bool rnr:1;                 /* waits after NOT_READY: no retry used */
    uint8_t retries_left;
    uint8_t rnr_left;           /* NOT_READYs it may still wait out */
    uint32_t op;                /* slot */
    uint32_t pkt;               /* index; npkts: the NOTIFY */
    uint64_t deadline;
    uint32_t prev, next;        /* the endpoint's FIFO (slot + 1) */
    uint32_t hnext;             /* hash chain (slot + 1) */
} ClTxn;

/* ---- receiver (sections 3.2-3.4) ---- */

/*
 * What matches a packet to its operation: the sender's, not a range, at
 * the endpoint it was sent to (another endpoint's packet naming the same
 * operation is not of it)
 */
typedef struct ClKey {
    uint8_t gid[16];            /* the sender's address, IPv4-mapped */
    uint32_t ep;                /* its endpoint */
    uint32_t op_id;
    uint32_t qpn;               /* the receiving endpoint */
} ClKey;

typedef struct ClReg {
    bool valid;
    uint8_t retries;
    ClKey key;
    uint32_t qpn;               /* the receiving endpoint */
    uint64_t base;
    uint32_t len;
    uint32_t npkts;
    uint32_t rkey;
    uint32_t tag;
    uint32_t timeout_us;
    uint64_t idle_at;           /* the sender has given up by then */
    uint32_t hnext;
} ClReg;

typedef struct ClDone {
    bool valid;
    ClKey key;
    uint64_t expires;
    uint32_t hnext;
} ClDone;

typedef struct ClEsc {
    bool valid;
    ClKey key;
    uint32_t qpn;
    uint32_t len;
    uint64_t deadline;
} ClEsc;

typedef struct SnicClDev {
    uint32_t nops, ntxns, ntable, mask_bits, mask_words, packet;
    uint32_t nescape, ndone, neps;
    SnicClEp *eps;              /* the endpoints (SET_QP_CL) */
    ClOp *ops;
    uint32_t *op_free;          /* free slots, a stack */
    uint32_t op_nfree;
    ClTxn *txns;
    uint32_t *txn_free;
    uint32_t txn_nfree;
    uint32_t *txn_hash;         /* (op, pkt) -> txn slot + 1 */
    uint32_t txn_hmask;
    uint32_t park_head;         /* parked endpoints (QPNs, 0: none) */
    ClReg *reg;
    uint64_t *masks;            /* mask_words per entry */
    uint32_t *reg_free;
    uint32_t reg_nfree;
    uint32_t *reg_hash;
    uint32_t reg_hmask;
    ClDone *done;
    uint32_t done_next;         /* where the search for a free slot starts */
    uint32_t done_used;         /* keys held */
    uint32_t done_resv;         /* ... one for each registered operation */
    uint32_t *done_hash;
    uint32_t done_hmask;
    ClEsc *esc;
    uint8_t *esc_frames;        /* nescape frames of SNIC_CL_ESC_FRAME */
    uint32_t *cq_reserved;      /* receive notifications reserved per CQ */
    uint8_t payload[];          /* one packet's payload */
} SnicClDev;

#define SNIC_CL_ESC_FRAME(d)    ((d)->packet + 256)

static inline SnicClDev *cl_dev(SnicCore *c)
{
    return c->cl;
}

static inline SnicClEp *cl_ep(SnicCore *c, const SnicQp *qp)
{
    return &c->cl->eps[qp->cl_ep - 1];
}

static inline uint64_t cl_now(SnicCore *c)
{
    return c->ops->now_ns(c->opaque);
}

/* send.c: an ACK or NACK for one of this device's packets */
void snic_cl_ack(SnicCore *c, SnicQp *qp, const SnicPkt *p);
void snic_cl_send_timer(SnicCore *c, SnicQp *qp, uint64_t now);
void snic_cl_send_reset(SnicCore *c, SnicQp *qp);
/* recv.c */
void snic_cl_data(SnicCore *c, SnicQp *qp, const SnicPkt *p);
void snic_cl_escape_timer(SnicCore *c, SnicQp *qp, uint64_t now);
void snic_cl_recv_reset(SnicCore *c, SnicQp *qp);

#endif /* SNIC_CORE_CL_INT_H */
