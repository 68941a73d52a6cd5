/*
 * snic core: the on-chip memory budget (SRNIC, NSDI'23, section 3.2 and
 * Table 1): what each structure the device keeps would take in a NIC's
 * SRAM, and so how many QPs fit the budget (the onchip-kb property).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_ONCHIP_H
#define SNIC_CORE_ONCHIP_H

#include <stdint.h>

#include "snic_core.h"

/* Bytes of each on-chip structure, as this configuration sizes them. */
typedef struct SnicOnchip {
    /* independent of the number of QPs */
    uint64_t mtt_cache;         /* translation cache (tlb-entries) */
    uint64_t rx_buffer;         /* frames waiting for the engine */
    uint64_t objects;           /* PD, MR, CQ, EQ, SRQ, MW tables */
    uint64_t recv_pool;         /* SRQ receive WQEs in progress */
    uint64_t rpc;               /* StRoM RPC slots and staging */
    uint64_t hll;               /* HyperLogLog sketches (hll-sketches) */
    uint64_t fetch_tags;        /* the scheduler's WQE fetches in flight */
    uint64_t cl;                /* the connectionless transport's tables */
    uint64_t fixed;             /* their sum */
    /* per QP */
    uint32_t qpc;               /* its QP context */
    uint32_t sched;             /* its scheduler entries (heap, free list) */
    uint32_t per_qp;            /* their sum */
    /* the budget and what fits */
    uint64_t budget;
    uint32_t performant_qps;
} SnicOnchip;

void snic_onchip_account(const SnicCore *c, SnicOnchip *o);

#endif /* SNIC_CORE_ONCHIP_H */
