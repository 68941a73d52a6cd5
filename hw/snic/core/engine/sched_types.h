/*
 * snic core: the scheduler's state (engine/scheduler.c) as SnicCore and
 * the QPC hold it: types and limits only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_SCHED_TYPES_H
#define SNIC_CORE_SCHED_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;

#define SNIC_SCHED_CLASSES          8
#define SNIC_SCHED_MAX_FETCHES      64

/*
 * The QPC's scheduling and timer state. QPNs and heap slots are below
 * SNIC_MAX_OBJECTS + 2, so 24 bits hold them (the QPC is on-chip memory).
 */
typedef struct SnicQpSched {
    uint64_t timer_at;          /* its heap key */
    uint32_t prev:24;           /* schedule queue links (QPNs, 0: none) */
    uint32_t turns:8;           /* WRR: iterations left in this turn */
    uint32_t next:24;
    bool queued:1;              /* in a schedule queue ("ready") */
    bool fetching:1;            /* timing model: it holds a fetch tag */
    bool fetched:1;             /* timing model: its WQE fetch arrived */
    bool in_fetched:1;          /* ... and it is in the fetched queue */
    uint32_t timer_pos:24;      /* heap slot + 1; 0: no timer armed */
} SnicQpSched;

/*
 * A WQE fetch in flight (timing model): the PCIe read tag the device
 * holds until the read's completion is due. The tags are a FIFO on the
 * device, not fields of every QPC: only SNIC_SCHED_MAX_FETCHES QPs can
 * have a fetch in flight at a time, so a per-QP deadline would be on-chip
 * memory wasted on all the others. The host model completes reads in
 * issue order (one read channel); a completion due earlier than an older
 * one would wait for it, as a reorder buffer retires tags in order.
 */
typedef struct SnicFetchTag {
    uint32_t qpn;               /* 0: its QP was removed meanwhile */
    uint16_t first;             /* SQ index of the first WQE read */
    uint8_t count;              /* WQEs read, <= sched_wqes */
    bool rest;                  /* the second part (wq.h) of some */
    uint64_t due;               /* when the data has arrived */
} SnicFetchTag;

/*
 * What the scheduler runs, registered by the engine (engine/rdma.c): a
 * QP's iteration (true if it has more to do) and whether its next one
 * fetches WQEs, the bytes of a send WQE the device reads (timing model;
 * 0: unreadable), and the QP's timers: the earliest (UINT64_MAX: none),
 * and those due at 'now' fired.
 */
typedef struct SnicSchedOps {
    bool (*iteration)(SnicCore *c, SnicQp *qp);
    bool (*wants_fetch)(SnicCore *c, const SnicQp *qp);
    uint32_t (*wqe_bytes)(SnicCore *c, SnicQp *qp, uint32_t index);
    uint64_t (*deadline)(SnicCore *c, SnicQp *qp);
    void (*timer)(SnicCore *c, SnicQp *qp, uint64_t now);
} SnicSchedOps;

typedef struct SnicSchedQueue {
    uint32_t head, tail;        /* QPNs, 0: empty */
} SnicSchedQueue;

typedef struct SnicSched {
    const SnicSchedOps *ops;
    SnicSchedQueue queue[SNIC_SCHED_CLASSES];
    SnicSchedQueue fetched;     /* timing model: QPs whose WQEs arrived */
    /* timing model: fetches in flight, tags[fetch_head] the oldest */
    SnicFetchTag tags[SNIC_SCHED_MAX_FETCHES];
    uint32_t fetch_head;
    uint32_t fetches;
    uint32_t *heap;             /* QPNs, a min-heap on timer_at */
    uint32_t heap_len;
} SnicSched;

#endif /* SNIC_CORE_SCHED_TYPES_H */
