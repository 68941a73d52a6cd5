/*
 * snic core: StRoM RPCs on RC queue pairs (StRoM, EuroSys'20, section
 * 5.1; formats in include/snic/snic_rpc.h).
 *
 * Requester: an RPC WQE becomes an RPC Params or RPC WRITE message whose
 * RETH names the kernel (address), the responder's memory (R_Key) and
 * the parameter length, and whose payload starts with the response
 * buffer's header. Responder: an accepted RPC takes a slot from the
 * device's bounded pool; the slot runs the deployed kernel (strom/kernel.h)
 * and then holds the response record (source, length, target address,
 * R_Key, status) while the device sends the answer as one RDMA WRITE
 * with immediate on the QP's own send PSNs: retransmission rebuilds any
 * segment from the record, like a READ response from its resource. An
 * RPC no kernel serves goes to the QP's receive queue (fallback) or is
 * answered SNIC_RPC_NO_KERNEL.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_RPC_H
#define SNIC_CORE_RPC_H

#include <stdbool.h>
#include <stdint.h>

#include "snic/snic_admin.h"
#include "snic/snic_rpc.h"

#define SNIC_RPC_SLOTS          32      /* device-wide pool */
#define SNIC_RPC_MAX_PER_QP     8       /* slots one QP may hold */
#define SNIC_RPC_MAX_RESPONSE   (1u << 20)
#define SNIC_RPC_INLINE_MAX     64      /* answer bytes a record holds */
#define SNIC_RPC_STAGE_BUFS     8       /* staging buffers ... */
#define SNIC_RPC_STAGE_LEN      16384   /* ... of this size */
#define SNIC_RPC_STAGE_PER_QP   2       /* ... one QP may hold */
#define SNIC_SHUFFLE_MAX_UNITS  4       /* shuffle-units */

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
typedef struct SnicPkt SnicPkt;
typedef struct SnicRpc SnicRpc;
typedef struct SnicKernelOps SnicKernelOps;
typedef struct SnicMr SnicMr;
struct snic_sq_wqe;

_Static_assert(SNIC_RPC_SLOTS <= INT8_MAX,
               "SnicQpRpc.cur (objects/qpc.h) holds a slot");
_Static_assert(SNIC_RPC_SLOTS <= 32, "SnicRpcDev.slot_used: a bit a slot");

/* Where the bytes of an answer come from, when it is (re)sent */
typedef enum SnicRpcSource {
    SNIC_RPC_SRC_NONE,          /* no data: status only */
    SNIC_RPC_SRC_HOST,          /* [src_va, +len) of the R_Key's MR */
    SNIC_RPC_SRC_INLINE,        /* the record's 'bytes' */
    SNIC_RPC_SRC_STAGED,        /* the slot's staging buffer */
} SnicRpcSource;

typedef enum SnicRpcState {
    SNIC_RPC_FREE,
    SNIC_RPC_RUNNING,           /* its kernel has work or waits for DMA */
    SNIC_RPC_READY,             /* the answer waits for the send queue */
    SNIC_RPC_SENDING,           /* PSNs assigned; kept until acked */
} SnicRpcState;

/* One slot: an RPC from acceptance to its answer's acknowledgement. */
struct SnicRpc {
    SnicCore *core;             /* the device it belongs to */
    uint8_t state;              /* SnicRpcState */
    uint8_t status;             /* enum snic_rpc_status of the answer */
    uint8_t src;                /* SnicRpcSource */
    int8_t stage;               /* staging buffer held, -1 none */
    uint32_t qpn;               /* its QP: its PD checks every access */
    uint32_t rkey;              /* RETH R_Key: the region the kernel uses */
    uint64_t rpc_opcode;
    /* the response record */
    uint64_t resp_addr;
    uint32_t resp_rkey;
    uint32_t resp_len;          /* the requester's capacity */
    uint32_t tag;
    uint64_t src_va;
    uint32_t len;               /* answer bytes */
    uint32_t first_psn;
    uint32_t npsn;
    uint32_t sent;              /* segments [0, sent) went out once */
    uint32_t after_sq;          /* it precedes this SQ WQE (index) */
    uint64_t ready_seq;         /* answers go out in the order they end */
    bool payload_pending;       /* an RPC WRITE's payload is arriving */
    bool write_wait;            /* its writes are done at wait_until */
    uint8_t bytes[SNIC_RPC_INLINE_MAX];
    /* the kernel run (strom/framework.c) */
    const SnicKernelOps *kernel;
    uint32_t steps;
    uint64_t dma_va;            /* next byte of the read in flight */
    uint32_t dma_left;          /* its bytes not yet delivered */
    uint32_t dma_done;          /* ... delivered */
    uint64_t dma_first_at;      /* its first chunk arrives then ... */
    uint64_t dma_last_at;       /* ... and its last (virtual ns) */
    uint64_t wait_until;        /* the next chunk arrives then */
    uint64_t kstate[16];        /* the kernel's own state, zeroed */
};

/* A DEPLOY_KERNEL entry: RPCs of (ctx, rpc_opcode) run kernel_id */
typedef struct SnicKernelEntry {
    bool valid;
    uint16_t ctx;
    uint16_t kernel_id;
    uint64_t rpc_opcode;
} SnicKernelEntry;

#define SNIC_KERNEL_MAX_DEPLOYED    16
#define SNIC_KERNEL_CHUNK           4096    /* dmaDataIn beat, at most */

/*
 * A shuffle unit (strom/shuffle.c, StRoM section 6.4): an on-chip buffer
 * of 16 tuples and a cursor per partition, for 1024 partitions. A device
 * unit, not slot state: 144 KiB do not fit a slot's kernel state, and a
 * device has few of them (shuffle-units).
 */
#define SNIC_SHUFFLE_PARTS      (1u << SNIC_SHUFFLE_MAX_BITS)

typedef struct SnicShuffleCursor {
    uint64_t base;              /* the partition's first tuple (VA) */
    uint32_t capacity;          /* tuples it holds */
    uint32_t fill;              /* tuples taken (written or buffered) */
} SnicShuffleCursor;

typedef struct SnicShuffleUnit {
    uint64_t buf[SNIC_SHUFFLE_PARTS][SNIC_SHUFFLE_BUF_TUPLES];
    SnicShuffleCursor part[SNIC_SHUFFLE_PARTS];
} SnicShuffleUnit;
_Static_assert(sizeof(SnicShuffleUnit) == 147456, "a shuffle unit: 144 KiB");

/* The device's RPC state: slots, staging buffers, deployed kernels. */
typedef struct SnicRpcDev {
    SnicRpc slots[SNIC_RPC_SLOTS];
    uint32_t slot_used;         /* bit i: slot i is not free */
    uint32_t stage_used;        /* bit b: staging buffer b is held */
    uint32_t shuffle_used;      /* bit u: shuffle unit u is held */
    uint64_t ready_seq;
    uint32_t rr_next;           /* the slot the next kernel run starts at */
    SnicKernelEntry deployed[SNIC_KERNEL_MAX_DEPLOYED];
    /*
     * Out of line, never cleared: contents matter only while held. One
     * block: the staging buffers, then cfg.shuffle_units shuffle units.
     */
    uint8_t (*stage)[SNIC_RPC_STAGE_LEN];
    /* the chunk of host memory handed to a kernel step (dmaDataIn) */
    uint8_t chunk[SNIC_KERNEL_CHUNK];
} SnicRpcDev;

void snic_rpc_init(SnicCore *c);
void snic_rpc_free(SnicCore *c);
void snic_rpc_reset(SnicCore *c);

/* rpc.c: admin */
uint16_t snic_cmd_set_qp_rpc(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);

/* rpc.c: the QP left RTR/RTS (ERR, RESET, destroy): its slots are freed */
void snic_rpc_qp_gone(SnicCore *c, SnicQp *qp);

/* The RPC operation of an op-code on this QP (RPC enabled), or -1. */
int snic_rpc_op(SnicCore *c, const SnicQp *qp, uint8_t opcode);

/* rpc.c: requester */
bool snic_rpc_wr(uint8_t wr_opcode);
/* Validate an RPC WQE at its start: its message is len bytes (+ hdr). */
uint8_t snic_rpc_wqe_check(SnicCore *c, SnicQp *qp, uint32_t index,
                           const struct snic_sq_wqe *w, uint64_t len);
/*
 * Segment 'seg' of 'nseg' of an RPC WQE's message of 'len' bytes;
 * *host_bytes: of its payload, those read from host memory.
 */
uint8_t snic_rpc_request_segment(SnicCore *c, SnicQp *qp,
                                 const struct snic_sq_wqe *w, uint32_t len,
                                 uint32_t seg, uint32_t nseg, SnicPkt *p,
                                 uint32_t *host_bytes);

/* rpc.c: responder; what resp.c answers the packet with */
typedef enum SnicRpcVerdict {
    SNIC_RPC_ACCEPT,            /* executed: ePSN advances */
    SNIC_RPC_RNR,               /* no slot or receive WQE: try later */
    SNIC_RPC_INVALID,           /* NAK invalid request (fatal) */
    SNIC_RPC_REMOTE_OP,         /* NAK remote operational error (fatal) */
} SnicRpcVerdict;

SnicRpcVerdict snic_rpc_request(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                                int op);

/* rpc.c: the answers, sent as the QP's own requests (req.c) */
/*
 * The requester keeps no table of its WQEs (req.c): it finds where one
 * starts by adding up the PSNs of those before it. Answers sit between
 * them: the PSN after the answers that start at psn, sent before SQ WQE
 * 'sq_index'.
 */
uint32_t snic_rpc_skip(SnicCore *c, const SnicQp *qp, uint32_t psn,
                       uint32_t sq_index);
/* Has the QP an answer (or the rest of one) to send now? */
bool snic_rpc_answer_due(SnicCore *c, const SnicQp *qp);
/* Send the next new segment of an answer at psn; false if none is due. */
bool snic_rpc_send_new(SnicCore *c, SnicQp *qp, uint32_t psn);
/* Send psn again if it is an answer's; false if not. */
bool snic_rpc_resend(SnicCore *c, SnicQp *qp, uint32_t psn);
/*
 * A fatal NAK for psn: true (and the QP failed, with SNIC_EVENT_QP_RPC_ERR)
 * if psn was an answer's.
 */
bool snic_rpc_refused(SnicCore *c, SnicQp *qp, uint32_t psn);

/* rpc.c: the slot's answer was sent and acknowledged (or its QP went) */
bool snic_rpc_answered(SnicCore *c, SnicRpc *r);

/* strom/framework.c: run kernels, free answered slots */
bool snic_rpc_run(SnicCore *c, unsigned budget);
uint64_t snic_rpc_timer(SnicCore *c, uint64_t now);

/* rpc.c: what the framework and the registry use */
SnicRpc *snic_rpc_slot(SnicCore *c, unsigned i);
/*
 * The region behind the RPC's R_Key if [va, va + len) may be accessed
 * with 'access' through its QP: the check of an RDMA request (an MR's or
 * a memory window's key, the QP's PD, the right, the bounds).
 */
SnicMr *snic_rpc_region(SnicCore *c, const SnicRpc *r, uint32_t access,
                        uint64_t va, uint64_t len);
/* The slot's answer is complete: queue it on its QP. */
void snic_rpc_ready(SnicCore *c, SnicRpc *r);
/* Free a slot (and its staging buffer). */
void snic_rpc_release(SnicCore *c, SnicRpc *r);
uint8_t *snic_rpc_stage_get(SnicCore *c, SnicRpc *r);
uint8_t *snic_rpc_stage_buf(SnicCore *c, const SnicRpc *r);
/* Shuffle unit u (< cfg.shuffle_units) */
SnicShuffleUnit *snic_rpc_shuffle_unit(SnicCore *c, unsigned u);

/* strom/registry.c */
const SnicKernelOps *snic_kernel_lookup(SnicCore *c, uint16_t ctx,
                                        uint64_t rpc_opcode);
uint32_t snic_kernel_builtin_mask(const SnicCore *c);
unsigned snic_kernel_max_deployed(void);
uint16_t snic_cmd_deploy_kernel(SnicCore *c, const struct snic_admin_cmd *cmd,
                                uint64_t *result);
uint16_t snic_cmd_undeploy_kernel(SnicCore *c,
                                  const struct snic_admin_cmd *cmd,
                                  uint64_t *result);

#endif /* SNIC_CORE_RPC_H */
