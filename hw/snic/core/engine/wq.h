/*
 * snic core: the engine's work queues (wq.c), a shared layer of the
 * engine: send WQEs and their payload, receive WQEs, completions, the
 * error state and its flush.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_WQ_H
#define SNIC_CORE_WQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snic/snic_verbs.h"
#include "psn.h"
#include "snic_core.h"

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
struct SnicPkt;
struct SnicFeedback;

/* A send WQE and the PSNs it occupies (recomputed, never stored). */
typedef struct SnicSendWqe {
    uint32_t first_psn;
    uint32_t npsn;              /* PSNs the message occupies */
    uint32_t len;               /* message bytes */
    uint8_t opcode;             /* enum snic_wr_opcode */
    uint8_t flags;              /* SNIC_WQE_* */
} SnicSendWqe;

/*
 * A send WQE is read in two parts, as a NIC reads descriptors in blocks
 * (mlx5: 64-byte basic blocks, its control segment giving the WQE's
 * size): its first SNIC_SQ_WQE_FIRST bytes - the header, the op-code's
 * fields and three SGEs, all most WQEs use -, then only if its SGEs or
 * inline data go further, up to where they end. A 512-byte SEND so costs
 * 128 bytes of PCIe reads, not the slot's 256.
 */
#define SNIC_SQ_WQE_FIRST       128
/*
 * The receive WQE of an RQ that the packet being placed took: read from
 * host memory once for the packet, then scattered into and completed
 * from this copy (a SEND ONLY took three reads of it). It lives on the
 * stack of snic_rdma_receive(), one packet long: the next packet of a
 * message reads its WQE again, as the guest or a peer may have
 * rewritten it, and nothing of it stays in the QP context.
 */
typedef struct SnicRecvWqe {
    const SnicQp *qp;           /* NULL: none read yet */
    uint32_t index;             /* resp.recv_index it was read at */
    struct snic_rq_wqe w;
} SnicRecvWqe;
/* The pool of SRQ receive WQEs in progress (below): its life */
void snic_wq_init(SnicCore *c);
void snic_wq_free(SnicCore *c);
void snic_wq_reset(SnicCore *c);
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
/*
 * A message that took an SRQ pool entry continues: its holder lets go of
 * the entry if the next packet does not come in time (resp.c's
 * snic_resp_hold_expired()); the entry's deadline, UINT64_MAX if none.
 */
void snic_recv_hold_arm(SnicCore *c, SnicQp *qp);
uint64_t snic_recv_hold_deadline(const SnicCore *c, const SnicQp *qp);
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
/* BIND_MW, LOCAL_INV and REG_MR: an SNIC_WC_* status */
uint8_t snic_local_op(SnicCore *c, SnicQp *qp, const struct snic_sq_wqe *w);
static inline bool snic_wr_is_local(uint8_t opcode)
{
    return opcode == SNIC_WR_BIND_MW || opcode == SNIC_WR_LOCAL_INV ||
           opcode == SNIC_WR_REG_MR;
}
/* A SEND with Invalidate's IETH: a type 2 window's or an FRWR MR's key */
bool snic_remote_invalidate(SnicCore *c, SnicQp *qp, uint32_t rkey);

static inline bool snic_wr_is_read(uint8_t op)
{
    return op == SNIC_WR_RDMA_READ;
}

static inline bool snic_wr_is_atomic(uint8_t op)
{
    return op == SNIC_WR_ATOMIC_CMP_SWAP || op == SNIC_WR_ATOMIC_FETCH_ADD;
}

/* A READ or an atomic: it takes a responder resource (max_rd_atomic) */
static inline bool snic_wr_is_rd_atomic(uint8_t op)
{
    return snic_wr_is_read(op) || snic_wr_is_atomic(op);
}

/* Does its message take a receive WQE at the responder (SnicOooMsg)? */
static inline bool snic_wr_takes_recv(uint8_t op)
{
    return op == SNIC_WR_SEND || op == SNIC_WR_SEND_IMM ||
           op == SNIC_WR_SEND_INV || op == SNIC_WR_RDMA_WRITE_IMM;
}

#define SNIC_READ_CHUNK         64      /* PSNs per READ request */

/* PSNs the request for 'psn' covers: a READ chunk's rest, else one */
static inline uint32_t snic_sq_seg_count(const SnicSendWqe *info,
                                         uint32_t psn)
{
    uint32_t s = (psn - info->first_psn) & SNIC_PSN_MASK;
    uint32_t end = (s / SNIC_READ_CHUNK + 1) * SNIC_READ_CHUNK;

    if (!snic_wr_is_read(info->opcode)) {
        return 1;
    }
    return (end < info->npsn ? end : info->npsn) - s;
}
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
/*
 * The send queue walked from its oldest uncompleted WQE (no table of
 * outstanding WQEs is kept): a send WQE read with the PSNs it occupies
 * (from first_psn; validated when it started, so one the guest made
 * unreadable since fails quietly); the started WQE a PSN belongs to (1,
 * 0 none in flight, -1 a WQE could not be read and the QP failed).
 */
typedef struct SnicReqWqe {
    uint32_t index;             /* SQ index */
    uint32_t msg;               /* message number (SnicOooMsg), if kept */
    struct snic_sq_wqe w;
    SnicSendWqe info;
} SnicReqWqe;

uint8_t snic_sq_wqe_read(SnicCore *c, SnicQp *qp, uint32_t index,
                         uint32_t first_psn, SnicReqWqe *e);
/* ... from e->w as fetched already (one read of the WQE per call) */
uint8_t snic_sq_wqe_span(const SnicQp *qp, uint32_t first_psn, SnicReqWqe *e);
int snic_sq_wqe_of_psn(SnicCore *c, SnicQp *qp, uint32_t psn, SnicReqWqe *e);
/*
 * ... the one an SRNIC READ response names by SQ index, read alone and
 * checked against the response's PSN and remote address (its first PSN
 * and SQ index in e; msg not kept): the same answers
 */
int snic_sq_read_named(SnicCore *c, SnicQp *qp, uint16_t index, uint32_t psn,
                       uint64_t va, SnicReqWqe *e);
/*
 * Complete, in post order, every WQE whose last PSN is acknowledged, as
 * many as the call's budget of WQEs allows (SNIC_WQES_PER_CALL): the rest
 * are owed (req.comp_owed) and complete in the QP's next iteration, or
 * first thing when its next response arrives.
 */
void snic_sq_complete_acked(SnicCore *c, SnicQp *qp);
/*
 * ... and feed the program what the window's slide from wnd_start
 * acknowledged (the completer's last step)
 */
void snic_sq_acked(SnicCore *c, SnicQp *qp, uint32_t wnd_start,
                   struct SnicFeedback *fb);
/*
 * WQE 'index' failed: the WQEs before it are flushed, it completes with
 * the status, and the QP goes to ERR; snic_sq_fail(): the oldest one.
 * snic_sq_fail_local(): it failed locally while earlier ones may be in
 * flight: they complete as their ACKs arrive, then it fails.
 */
void snic_sq_fail_at(SnicCore *c, SnicQp *qp, uint32_t index, uint8_t status);
void snic_sq_fail(SnicCore *c, SnicQp *qp, uint8_t status);
void snic_sq_fail_local(SnicCore *c, SnicQp *qp, uint32_t index,
                        uint8_t status);

/* A receive WQE is held, or waits in the QP's own RQ (not in an SRQ) */
bool snic_recv_pending(const SnicQp *qp);
/*
 * WQEs a call into the core (snic_enter()'s outermost) completes or
 * flushes at most, whatever the queues' depths, the window and the number
 * of QPs acknowledged or in ERR: four runs of QEMU's budget
 * (SNIC_CORE_RUN_BUDGET), each WQE a read and a CQE, some 3 DMA
 * operations. A flush or a cumulative ACK's completions the bound cuts
 * short resume in the QP's next scheduling iteration.
 */
#define SNIC_WQES_PER_CALL      (4 * SNIC_CORE_RUN_BUDGET)
/* The QP goes to ERR; both of its queues are flushed, up to the bound */
void snic_wq_error(SnicCore *c, SnicQp *qp);
/* The QP is in ERR with WQEs not flushed yet */
bool snic_wq_flush_owed(const SnicQp *qp);

#endif /* SNIC_CORE_WQ_H */
