/*
 * snic core: the connectionless transport's endpoint state: types only
 * (the unit's functions: cl.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_CL_TYPES_H
#define SNIC_CORE_CL_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * An endpoint (a UD QP after SET_QP_CL), an entry of the device's
 * cl-endpoints table the QPC's cl_ep names. Nothing here is per peer: the
 * operations and packets in flight are entries of the device's bounded
 * tables (cl.c), this endpoint's threaded through them as FIFOs. Table
 * links are slot + 1 (0: none); QPNs and slots take 24 bits.
 */
typedef struct SnicClEp {
    bool on:1;                  /* the entry is an endpoint's */
    bool parked:1;              /* waits for a free table entry */
    uint8_t retries:3;          /* per packet (0..7) */
    uint8_t comp_status;        /* worst status of WQE sq_comp's ops */
    uint16_t sq_head;           /* next WQE to start */
    uint32_t timeout_us;        /* per packet */
    uint32_t seg_threshold;     /* segment WQEs over this (0: never) */
    uint32_t seg_size;          /* ... into segments of this */
    uint32_t seg;               /* segments of WQE sq_head started */
    uint32_t cur_op;            /* the operation being sent */
    uint32_t op_head;           /* its operations in issue order */
    uint32_t op_tail;
    uint32_t txn_head;          /* its packets in flight, by deadline */
    uint32_t txn_tail;
    uint32_t park_next;         /* QPN of the next parked endpoint */
    uint64_t esc_at;            /* its earliest escape-channel deadline */
} SnicClEp;

#endif /* SNIC_CORE_CL_TYPES_H */
