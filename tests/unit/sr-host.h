/*
 * The host software of SRNIC's selective repeat for an engine node
 * (SRNIC section 4.4.2): the node's CtrlQ and its QP's RetryQ in node
 * memory, read and written by the recovery logic the Linux driver
 * compiles too (guest-driver/common/snic_sr_recovery.c). Manual (tests
 * call sr_host_poll()) or interrupt-driven on the simulator with the
 * software latency of tests/sim/README.md (SR_HOST_IRQ_NS,
 * SR_HOST_ENTRY_NS).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_TESTS_SR_HOST_H
#define SNIC_TESTS_SR_HOST_H

#include "engine-node.h"
#include "snic_sr_recovery.h"

/* Node memory for them (above everything engine-node.h lays out) */
#define SR_CTRLQ            (FAKE_MEM_BASE + 0x600000)  /* <= 128 KiB */
#define SR_RETRYQ           (FAKE_MEM_BASE + 0x640000)  /* <= 64 KiB */
#define SR_CTRLQ_VECTOR     1

/*
 * Software latency (tests/sim/README.md, "SRNIC's host software"): from
 * the MSI-X message to the handler reading its first entry, and per
 * CtrlQ entry taken (bitmap update and decision).
 */
#define SR_HOST_IRQ_NS      2000
#define SR_HOST_ENTRY_NS    50

typedef struct SrHost {
    Node *n;
    SnicSim *sim;               /* NULL: manual (sr_host_poll) */
    uint8_t ctrlq_log2, retry_log2;
    uint32_t ci;                /* CtrlQ consumer index */
    uint16_t retry_pi;          /* RetryQ producer index */
    uint16_t retry_ci;          /* its consumer, as the last entry said */
    struct snic_sr_sw_qp sw;
    /* the interrupt handler on the simulator */
    bool armed, busy;
    struct snic_sr_retry out[64];
    unsigned nout;
    uint32_t ci_done;           /* consumer index to return at commit */
    /* what it did */
    uint64_t entries, runs, retry_posted;
    uint64_t write_imms;        /* ... WRITE with immediate's RESP_RECVs */
} SrHost;

/*
 * The node's device gets a CtrlQ of 2^ctrlq_log2 entries (vector
 * SR_CTRLQ_VECTOR) and its QP, which runs SRNIC already
 * (node_set_transport), a RetryQ of 2^retry_log2 and 'window' segments.
 * sim: interrupt-driven on it; NULL: manual.
 */
void sr_host_init(SrHost *s, Node *n, SnicSim *sim, uint8_t ctrlq_log2,
                  uint8_t retry_log2, uint16_t window);
void sr_host_free(SrHost *s);
/* Take every new CtrlQ entry, post what they call for: entries taken */
unsigned sr_host_poll(SrHost *s);
/* ... in two steps, as a handler does: decide, then post (later) */
unsigned sr_host_take(SrHost *s);
void sr_host_commit(SrHost *s);
/* Post one RetryQ entry as it is (tests: hostile ones) and ring it */
void sr_host_post(SrHost *s, const struct snic_sr_retry *e);
/* The next CtrlQ entry if new, without consuming it */
bool sr_host_peek(SrHost *s, struct snic_sr_ctrl *e);

#endif
