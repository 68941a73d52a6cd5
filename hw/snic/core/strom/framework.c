/*
 * snic core: the StRoM kernel framework (kernel.h): the streams a kernel
 * uses, their checks against the RPC's memory region, the modelled PCIe
 * round trip of its reads, and the engine's share that runs kernels and
 * frees the slots whose answers were acknowledged.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "strom/kernel.h"
#include "strom/rpc.h"
#include "objects/mr.h"
#include "objects/mtt.h"
#include "port/link.h"

uint32_t snic_kernel_qpn(const SnicRpc *k)
{
    return k->qpn;
}

/*
 * When the next chunk of the read in flight has arrived. The read was
 * issued to the host's timing model as two reads at once, its first
 * chunk and the rest, so each byte is read once; the rest's data follows
 * the first chunk's on the read channel, so a later chunk arrives in
 * proportion between the two completions (the data streams back as it
 * comes, as from StRoM's PCIe DMA engine). Without a model, at once.
 */
static uint64_t chunk_arrival(const SnicRpc *k)
{
    uint32_t total = k->dma_done + k->dma_left;
    uint32_t first = MIN(total, SNIC_KERNEL_CHUNK);
    uint32_t end = k->dma_done + MIN(k->dma_left, SNIC_KERNEL_CHUNK);

    if (end <= first) {
        return k->dma_first_at;
    }
    return k->dma_first_at + (k->dma_last_at - k->dma_first_at) *
                             (end - first) / (total - first);
}

uint8_t snic_kernel_dma_read(SnicRpc *k, uint64_t va, uint32_t len)
{
    SnicCore *c = k->core;

    k->dma_left = 0;
    if (!len) {
        return SNIC_RPC_OK;
    }
    /* the RPC's R_Key, the QP's PD, the right, the bounds: as RDMA READ */
    if (!snic_rpc_region(c, k, SNIC_ACCESS_REMOTE_READ, va, len)) {
        return SNIC_RPC_PROT_ERR;
    }
    k->dma_va = va;
    k->dma_left = len;
    k->dma_done = 0;
    k->dma_first_at = k->dma_last_at = c->ops->now_ns(c->opaque);
    if (c->ops->dma_read_done) {
        k->dma_first_at = k->dma_last_at =
            c->ops->dma_read_done(c->opaque, MIN(len, SNIC_KERNEL_CHUNK));
        if (len > SNIC_KERNEL_CHUNK) {
            k->dma_last_at = c->ops->dma_read_done(c->opaque,
                                                   len - SNIC_KERNEL_CHUNK);
        }
    }
    k->wait_until = chunk_arrival(k);
    return SNIC_RPC_OK;
}

uint32_t snic_kernel_dma_left(const SnicRpc *k)
{
    return k->dma_left;
}

const uint8_t *snic_kernel_dma_in(SnicRpc *k, uint32_t *len, uint32_t *off)
{
    SnicCore *c = k->core;
    uint32_t n = MIN(k->dma_left, SNIC_KERNEL_CHUNK);
    SnicMr *mr;

    if (!n) {
        return NULL;
    }
    /* checked again: the region may have been deregistered meanwhile */
    mr = snic_rpc_region(c, k, SNIC_ACCESS_REMOTE_READ, k->dma_va, n);
    if (!mr || snic_mtt_read(c, &mr->mtt, k->dma_va, c->rpc->chunk, n)) {
        k->dma_left = 0;
        snic_kernel_finish(k, mr ? SNIC_RPC_DMA_ERR : SNIC_RPC_PROT_ERR);
        return NULL;
    }
    snic_fault_tear(c, c->rpc->chunk, k->dma_done, n,
                    k->dma_done + k->dma_left);
    *len = n;
    *off = k->dma_done;
    k->dma_va += n;
    k->dma_left -= n;
    k->dma_done += n;
    if (k->dma_left) {
        k->wait_until = chunk_arrival(k);
    }
    return c->rpc->chunk;
}

uint8_t snic_kernel_check_write(SnicRpc *k, uint64_t va, uint64_t len)
{
    return snic_rpc_region(k->core, k, SNIC_ACCESS_REMOTE_WRITE, va, len) ?
           SNIC_RPC_OK : SNIC_RPC_PROT_ERR;
}

uint8_t snic_kernel_dma_write(SnicRpc *k, uint64_t va, const void *buf,
                              uint32_t len)
{
    SnicCore *c = k->core;
    SnicMr *mr;

    if (!len) {
        return SNIC_RPC_OK;
    }
    mr = snic_rpc_region(c, k, SNIC_ACCESS_REMOTE_WRITE, va, len);
    if (!mr) {
        return SNIC_RPC_PROT_ERR;
    }
    if (snic_mtt_write(c, &mr->mtt, va, buf, len)) {
        return SNIC_RPC_DMA_ERR;
    }
    /* posted, but the kernel's next step waits until it has landed */
    if (c->ops->dma_write_done) {
        uint64_t done = c->ops->dma_write_done(c->opaque, len);

        k->wait_until = k->write_wait ? MAX(k->wait_until, done) : done;
        k->write_wait = true;
    }
    return SNIC_RPC_OK;
}

/* An answer of len bytes fits the requester's buffer and the device. */
static uint8_t answer_fits(const SnicRpc *k, uint32_t len)
{
    return len > k->resp_len || len > SNIC_RPC_MAX_RESPONSE ?
           SNIC_RPC_RESP_TOO_LONG : SNIC_RPC_OK;
}

uint8_t snic_kernel_respond(SnicRpc *k, uint64_t va, uint32_t len)
{
    uint8_t st = answer_fits(k, len);

    if (st != SNIC_RPC_OK) {
        return st;
    }
    if (len && !snic_rpc_region(k->core, k, SNIC_ACCESS_REMOTE_READ, va,
                                len)) {
        return SNIC_RPC_PROT_ERR;
    }
    k->src = len ? SNIC_RPC_SRC_HOST : SNIC_RPC_SRC_NONE;
    k->src_va = va;
    k->len = len;
    return SNIC_RPC_OK;
}

uint8_t snic_kernel_respond_bytes(SnicRpc *k, const void *buf, uint32_t len)
{
    uint8_t st = answer_fits(k, len);

    if (st != SNIC_RPC_OK || len > SNIC_RPC_INLINE_MAX) {
        return st != SNIC_RPC_OK ? st : SNIC_RPC_RESP_TOO_LONG;
    }
    memcpy(k->bytes, buf, len);
    k->src = SNIC_RPC_SRC_INLINE;
    k->len = len;
    return SNIC_RPC_OK;
}

uint8_t snic_kernel_respond_staged(SnicRpc *k, uint32_t len)
{
    uint8_t st = answer_fits(k, len);

    if (st != SNIC_RPC_OK || k->stage < 0 || len > SNIC_RPC_STAGE_LEN) {
        return st != SNIC_RPC_OK ? st : SNIC_RPC_RESP_TOO_LONG;
    }
    k->src = SNIC_RPC_SRC_STAGED;
    k->len = len;
    return SNIC_RPC_OK;
}

uint8_t *snic_kernel_stage(SnicRpc *k)
{
    return snic_rpc_stage_get(k->core, k);
}

void snic_kernel_finish(SnicRpc *k, uint8_t status)
{
    SnicCore *c = k->core;

    if (k->state != SNIC_RPC_RUNNING) {
        return;
    }
    k->dma_left = 0;
    k->status = status;
    /* an error carries no data; a full partition carries the fills */
    if (status != SNIC_RPC_OK && status != SNIC_RPC_PARTITION_FULL) {
        k->src = SNIC_RPC_SRC_NONE;
        k->len = 0;
    }
    /*
     * An answer from host memory streams out as the DMA engine reads it
     * (StRoM's GET kernel feeds dmaDataIn to roceDataOut): each segment
     * is read as it is sent, and the host's transmit charges that read
     * (SnicHostOps.tx_frame's host_bytes), once.
     */
    snic_rpc_ready(c, k);
}

/*
 * Does the kernel wait for its read's next chunk or its writes? (While
 * its payload arrives it waits for that: data_in(), not a timer.)
 */
static bool waits(const SnicRpc *k)
{
    return !k->payload_pending && (k->dma_left || k->write_wait);
}

/*
 * Can the kernel make progress now? Not while its RPC WRITE's payload is
 * still arriving (data_in() takes it), nor before the next chunk of its
 * read arrived or its writes landed.
 */
static bool runnable(const SnicRpc *k, uint64_t now)
{
    return !k->payload_pending && (!waits(k) || k->wait_until <= now);
}

bool snic_rpc_run(SnicCore *c, unsigned budget)
{
    uint64_t now;
    unsigned i, done = 0;
    bool stepped, more = false;

    if (!c->rpc->slot_used) {
        /* no kernel, nothing to walk: the engine runs this every turn */
        c->rpc->rr_next = (c->rpc->rr_next + 1) % SNIC_RPC_SLOTS;
        return false;
    }
    now = c->ops->now_ns(c->opaque);
    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        SnicRpc *k = snic_rpc_slot(c, i);

        if (k->state == SNIC_RPC_SENDING && snic_rpc_answered(c, k)) {
            snic_rpc_release(c, k);
        }
    }
    /*
     * One step of each kernel that can make progress in turn, until the
     * budget is spent: a long walk yields to short ones and to the rest
     * of the engine, and resumes in the next run.
     */
    do {
        stepped = false;
        for (i = 0; i < SNIC_RPC_SLOTS && done < budget && snic_ready(c);
             i++) {
            SnicRpc *k = snic_rpc_slot(c, (c->rpc->rr_next + i) %
                                          SNIC_RPC_SLOTS);

            if (k->state != SNIC_RPC_RUNNING || !runnable(k, now)) {
                continue;
            }
            /* a walk that does not end (a cycle) ends here */
            if (++k->steps > SNIC_KERNEL_MAX_STEPS) {
                snic_kernel_finish(k, SNIC_RPC_STEP_LIMIT);
                continue;
            }
            k->write_wait = false;      /* they landed */
            k->kernel->step(k);
            done++;
            stepped = true;
        }
    } while (stepped && done < budget);
    c->rpc->rr_next = (c->rpc->rr_next + 1) % SNIC_RPC_SLOTS;
    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        SnicRpc *k = snic_rpc_slot(c, i);

        if (k->state != SNIC_RPC_RUNNING) {
            continue;
        }
        if (runnable(k, now)) {
            more = true;                        /* the budget ran out */
        } else if (waits(k)) {
            snic_timer_hint(c, k->wait_until);  /* its data is on the way */
        }
    }
    return more;
}

uint64_t snic_rpc_timer(SnicCore *c, uint64_t now)
{
    uint64_t next = UINT64_MAX, due;
    unsigned i;

    for (i = 0; i < SNIC_RPC_SLOTS; i++) {
        SnicRpc *k = snic_rpc_slot(c, i);

        if (k->state != SNIC_RPC_RUNNING || !waits(k)) {
            continue;
        }
        due = k->wait_until;            /* its data arrives, writes land */
        if (due > now) {
            next = MIN(next, due);
        } else {
            c->ops->kick(c->opaque);    /* the kernel runs in the engine */
        }
    }
    return next;
}
