/*
 * snic core: the consistency kernel (StRoM, EuroSys'20, section 6.3;
 * parameters in include/snic/snic_rpc.h). A Pilaf-style store keeps a
 * checksum in each object, and a reader that races a writer sees a torn
 * object; instead of the client reading, checking on its CPU and reading
 * again (a network round trip each), the kernel reads the object over
 * PCIe, checks its CRC-64/XZ and reads it again on a mismatch, up to
 * max_retries times, then answers with the object or SNIC_RPC_CHECKSUM.
 *
 * The object streams into a staging buffer as it is read, and the answer
 * is sent from there (and sent again from there if a segment is lost):
 * what was checked is exactly what the requester gets, even if a writer
 * changes the object after the check. Without a free staging buffer the
 * RPC is refused for now (RNR NAK).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "strom/crc64.h"
#include "strom/kernel.h"

typedef struct ConsistencyState {
    uint64_t addr;
    uint32_t size;              /* object bytes, checksum included */
    uint16_t retries_left;
} ConsistencyState;
_Static_assert(sizeof(ConsistencyState) <= SNIC_KERNEL_STATE_MAX,
               "consistency state fits the slot");

static uint8_t consistency_start(SnicRpc *k, const uint8_t *params,
                                 uint32_t len)
{
    ConsistencyState *s = snic_kernel_state(k);
    struct snic_consistency_params p;

    if (len != sizeof(p)) {
        return SNIC_RPC_BAD_PARAMS;
    }
    memcpy(&p, params, sizeof(p));
    s->addr = GUINT64_FROM_LE(p.remote_address);
    s->size = GUINT32_FROM_LE(p.object_size);
    s->retries_left = GUINT16_FROM_LE(p.max_retries);
    if (s->size <= 8 || s->size > SNIC_CONSISTENCY_MAX_OBJECT || p.rsvd ||
        s->retries_left > SNIC_CONSISTENCY_MAX_RETRIES) {
        return SNIC_RPC_BAD_PARAMS;
    }
    if (s->size > k->resp_len) {
        return SNIC_RPC_RESP_TOO_LONG;
    }
    if (!snic_kernel_stage(k)) {
        return SNIC_KERNEL_BUSY;
    }
    return snic_kernel_dma_read(k, s->addr, s->size);
}

/* One chunk of the object; at its end, the check. */
static void consistency_step(SnicRpc *k)
{
    ConsistencyState *s = snic_kernel_state(k);
    uint8_t *obj = snic_kernel_stage(k);
    uint32_t len, off;
    const uint8_t *data = snic_kernel_dma_in(k, &len, &off);
    uint64_t stored;
    uint8_t st;

    if (!data) {
        return;     /* the read failed: the framework answered */
    }
    memcpy(obj + off, data, len);
    if (snic_kernel_dma_left(k)) {
        return;     /* more of it is on the way */
    }
    memcpy(&stored, obj + s->size - 8, 8);
    if (snic_crc64(0, obj, s->size - 8) == GUINT64_FROM_LE(stored)) {
        snic_kernel_finish(k, snic_kernel_respond_staged(k, s->size));
        return;
    }
    if (!s->retries_left) {
        snic_kernel_finish(k, SNIC_RPC_CHECKSUM);
        return;
    }
    s->retries_left--;
    st = snic_kernel_dma_read(k, s->addr, s->size);     /* torn: again */
    if (st != SNIC_RPC_OK) {
        snic_kernel_finish(k, st);
    }
}

const SnicKernelOps snic_kernel_consistency = {
    .name = "consistency",
    .id = SNIC_KERNEL_CONSISTENCY,
    .start = consistency_start,
    .step = consistency_step,
};
