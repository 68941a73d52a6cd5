/*
 * snic core: the StRoM kernel interface (StRoM, EuroSys'20, section 5.2,
 * Fig. 4 and Listing 1).
 *
 * A StRoM kernel sits between the RoCE stack and the DMA engine and sees
 * eight streams. Here they are C calls on the RPC's slot (SnicRpc):
 *
 *   qpnIn        snic_kernel_qpn()           the QP the RPC came on
 *   paramIn      SnicKernelOps.start()       the RPC's parameters
 *   roceDataIn   SnicKernelOps.data_in()     an RPC WRITE's payload
 *   dmaCmdOut    snic_kernel_dma_read()      a host read (checked)
 *                snic_kernel_dma_write()     a host write (checked)
 *   dmaDataIn    snic_kernel_dma_in()        the read's data, chunk by chunk
 *   dmaDataOut   snic_kernel_dma_write()     the write's data
 *   roceMetaOut  snic_kernel_respond*()      the answer: length and source
 *   roceDataOut  (the device reads the source as it sends the answer)
 *
 * The paper's target QPN and address of roceMetaOut are the RPC's own:
 * the answer goes to the response buffer the request named.
 *
 * DMA is asynchronous: a read is issued, then its data arrives in chunks
 * of up to SNIC_KERNEL_CHUNK bytes when the host's timing model says a
 * read of that much would be done (SnicHostOps.dma_read_done: the
 * simulator host's PCIe round trip and bandwidth; none in QEMU, whose
 * DMA is synchronous: at once). Every access goes through the same
 * checks as an RDMA request: the RPC's R_Key (a region's or a memory
 * window's), the QP's PD, the right (REMOTE_READ / REMOTE_WRITE) and the
 * bounds, before a byte moves; a kernel cannot reach memory outside it.
 * Writes are posted: the data is in memory at once (QEMU), and the host's
 * timing model (SnicHostOps.dma_write_done) says when it would have
 * landed; the kernel's next step waits until then.
 *
 * Kernels run inside the engine's budget: the framework calls step()
 * whenever the slot can make progress (no read in flight, or its next
 * chunk has arrived), one call per unit of budget; a walk that is not
 * done simply returns and is resumed. Every call counts, and an RPC that
 * takes more than SNIC_KERNEL_MAX_STEPS calls ends with
 * SNIC_RPC_STEP_LIMIT (a cycle in a remote list ends there).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_KERNEL_H
#define SNIC_CORE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "strom/rpc.h"

#define SNIC_KERNEL_MAX_STEPS   4096
#define SNIC_KERNEL_STATE_MAX   128     /* bytes of SnicRpc.kstate */

/* start()'s verdict besides an enum snic_rpc_status */
#define SNIC_KERNEL_BUSY        0xff    /* no resource now: RNR NAK */

struct SnicKernelOps {
    const char *name;
    uint16_t id;                /* enum snic_kernel_id */
    /*
     * qpnIn + paramIn: check the parameters and set up the state (zeroed
     * before); SNIC_RPC_OK to run, another status to answer at once, or
     * SNIC_KERNEL_BUSY. RPC WRITE gives no parameters: params is NULL and
     * len the length of the payload data_in() will see.
     */
    uint8_t (*start)(SnicRpc *k, const uint8_t *params, uint32_t len);
    /*
     * roceDataIn: payload of an RPC WRITE, in order, 'last' with its last
     * packet; false if the kernel cannot take it now (RNR NAK: the packet
     * comes again). NULL: the kernel takes no payload (BAD_PARAMS).
     */
    bool (*data_in)(SnicRpc *k, const uint8_t *data, uint32_t len,
                    bool last);
    /* One step; it ends the RPC with snic_kernel_finish(). */
    void (*step)(SnicRpc *k);
    /*
     * The slot is freed (answered, refused by start(), or its QP gone):
     * give back what start() took besides the staging buffer. May be NULL.
     */
    void (*release)(SnicRpc *k);
};

/* The kernel's private state: SNIC_KERNEL_STATE_MAX bytes, zeroed. */
static inline void *snic_kernel_state(SnicRpc *k)
{
    return k->kstate;
}

/* qpnIn */
uint32_t snic_kernel_qpn(const SnicRpc *k);

/*
 * dmaCmdOut: read [va, va + len) of the RPC's region (REMOTE_READ). An
 * enum snic_rpc_status: SNIC_RPC_PROT_ERR if the region does not allow it
 * (nothing is read). One read at a time; issuing one drops the rest of
 * the previous one.
 */
uint8_t snic_kernel_dma_read(SnicRpc *k, uint64_t va, uint32_t len);

/*
 * dmaDataIn: the next chunk of the read (a step is only called once it
 * has arrived), valid until the step returns; NULL when the read is done
 * or failed (then the RPC has ended with SNIC_RPC_DMA_ERR). *off is the
 * chunk's offset in the read.
 */
const uint8_t *snic_kernel_dma_in(SnicRpc *k, uint32_t *len, uint32_t *off);

/* Bytes of the current read not yet delivered. */
uint32_t snic_kernel_dma_left(const SnicRpc *k);

/*
 * May [va, va + len) of the RPC's region be written (REMOTE_WRITE)?
 * SNIC_RPC_OK or SNIC_RPC_PROT_ERR; nothing is written.
 */
uint8_t snic_kernel_check_write(SnicRpc *k, uint64_t va, uint64_t len);

/* dmaCmdOut + dmaDataOut: write to the RPC's region (REMOTE_WRITE). */
uint8_t snic_kernel_dma_write(SnicRpc *k, uint64_t va, const void *buf,
                              uint32_t len);

/*
 * roceMetaOut: the answer is [va, va + len) of the RPC's region, read as
 * it is sent (and read again if a segment must be sent again). Checked
 * now: SNIC_RPC_PROT_ERR, or SNIC_RPC_RESP_TOO_LONG past the requester's
 * buffer.
 */
uint8_t snic_kernel_respond(SnicRpc *k, uint64_t va, uint32_t len);
/* ... the answer is these bytes (at most SNIC_RPC_INLINE_MAX) */
uint8_t snic_kernel_respond_bytes(SnicRpc *k, const void *buf,
                                  uint32_t len);
/*
 * ... the answer is the slot's staging buffer (snic_kernel_stage()), of
 * 'len' bytes: what the kernel checked is what is sent, and sent again.
 */
uint8_t snic_kernel_respond_staged(SnicRpc *k, uint32_t len);

/*
 * A staging buffer of SNIC_RPC_STAGE_LEN bytes for the slot (kept until
 * it is freed), or NULL if all are taken.
 */
uint8_t *snic_kernel_stage(SnicRpc *k);

/*
 * The end: the answer (if status is OK or SNIC_RPC_PARTITION_FULL) or the
 * status alone goes out.
 */
void snic_kernel_finish(SnicRpc *k, uint8_t status);

/*
 * Add a kernel to the registry of every device (what a loadable kernel
 * will do; the tests add theirs): its id must be SNIC_KERNEL_FIRST_ADDED
 * or more and unused. False if not added. Not for use while devices run.
 */
#define SNIC_KERNEL_FIRST_ADDED 16
#define SNIC_KERNEL_MAX_ADDED   8
bool snic_kernel_register(const SnicKernelOps *ops);

/* The built-in kernels (one file each) */
extern const SnicKernelOps snic_kernel_traversal;
extern const SnicKernelOps snic_kernel_consistency;
extern const SnicKernelOps snic_kernel_shuffle;

#endif /* SNIC_CORE_KERNEL_H */
