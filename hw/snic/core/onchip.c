/*
 * snic core: the on-chip memory budget, counted as SRNIC counts it (NSDI'23
 * section 3.2, Table 1; 6.1: 10K performant QPs in 4.4 MB): the receive
 * buffer, the QP contexts, the MTT cache and whatever else the device
 * keeps per QP or per device. Host memory (rings, the RDB, the MTT itself)
 * is not counted: that is the point of keeping it there.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "core_int.h"
#include "cl/cl.h"
#include "objects/mtt.h"
#include "onchip.h"
#include "strom/hll.h"
#include "strom/rpc.h"
#include "objects/cq.h"
#include "objects/mr.h"
#include "objects/mw.h"
#include "objects/qp.h"
#include "objects/srq.h"
#include "port/link.h"

void snic_onchip_account(const SnicCore *c, SnicOnchip *o)
{
    const SnicCoreConfig *cf = &c->cfg;
    uint64_t avail;

    *o = (SnicOnchip) {
        .mtt_cache = snic_tlb_bytes(c),
        .rx_buffer = snic_link_rx_buffer_bytes(c) +
                     sizeof(c->rx_fifo_len) +
                     (uint64_t)SNIC_ETH_RX_FIFO * SNIC_ETH_MAX_FRAME,
        .objects = (uint64_t)cf->max_pd * sizeof(SnicPd) +
                   (uint64_t)cf->max_mr * sizeof(SnicMr) +
                   (uint64_t)cf->max_cq * sizeof(SnicCq) +
                   (uint64_t)cf->max_eq * sizeof(SnicEq) +
                   (uint64_t)cf->max_srq * sizeof(SnicSrq) +
                   (uint64_t)cf->max_mw * sizeof(SnicMw) +
                   sizeof(c->mcast),
        .recv_pool = (uint64_t)cf->recv_pool *
                     (sizeof(struct snic_rq_wqe) + sizeof(uint16_t)),
        .rpc = sizeof(SnicRpcDev) +
               (uint64_t)SNIC_RPC_STAGE_BUFS * SNIC_RPC_STAGE_LEN +
               (uint64_t)cf->shuffle_units * sizeof(SnicShuffleUnit),
        .hll = (uint64_t)cf->hll_sketches * sizeof(SnicHllSketch),
        .cl = snic_cl_onchip_bytes(c),
        /* a fetch's deadline is the tag's, not the QPC's (scheduler.h) */
        .fetch_tags = sizeof(c->sched.tags),
        .qpc = sizeof(SnicQp),
        /* a timer heap slot and a free-list entry: QPNs of 4 bytes */
        .sched = 2 * sizeof(uint32_t),
        .budget = (uint64_t)cf->onchip_kb * 1024,
    };
    o->fixed = o->mtt_cache + o->rx_buffer + o->objects + o->recv_pool +
               o->rpc + o->hll + o->fetch_tags + o->cl;
    o->per_qp = o->qpc + o->sched;
    avail = o->budget > o->fixed ? o->budget - o->fixed : 0;
    o->performant_qps = MIN(avail / o->per_qp, (uint64_t)UINT32_MAX);
}
