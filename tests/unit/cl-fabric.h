/*
 * The connectionless transport as a system (docs/connectionless.md):
 * two switches of four NICs each, joined by four parallel 100 Gb/s links
 * of 1, 2, 4 and 8 us that spray every packet (a spray group of the
 * simulator, tests/sim/README.md); NIC links 100 Gb/s, PFC on; 1 % loss,
 * 1 % duplication and 5 % adjacent reordering on every link, both ways.
 * Each NIC has one endpoint; 'ops' CL WRITEs of 64 B to 1 MiB
 * (log-uniform, seeded) go between the eight, those over the registrable
 * size (a mask's packets) segmented at it, every tenth non-registered and
 * written into a buffer of its own (section 3.4 lets late duplicates of
 * such an operation rewrite its bytes). Each operation must complete
 * exactly once at its sender and post each segment's receive
 * notification exactly once, its bytes in place when the notification
 * is polled. Shared by test-cl (the unit suite) and scripts/repro/cl.sh.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_TESTS_CL_FABRIC_H
#define SNIC_TESTS_CL_FABRIC_H

#include <stdint.h>

typedef struct ClFabricResult {
    unsigned ops;               /* completed at both ends */
    unsigned unregistered;      /* of them non-registered */
    unsigned segments;          /* receive notifications taken */
    uint64_t bytes;             /* the operations' payload */
    uint64_t end_ns;            /* the last completion */
    /* the devices' counters, summed */
    uint64_t retransmits, dup_dropped, dup_acked, escape_parked;
    uint64_t escape_replayed, escape_full, escape_timeouts, reg_refused;
    uint64_t notify_sent;
    /* the links' impairments, summed over every link and lane */
    uint64_t lost, duplicated, reordered;
    uint64_t pause_sent;        /* PFC frames the switches sent */
    char *error;                /* the first check that failed; NULL: none */
} ClFabricResult;

/* One run of 'ops' operations from 'seed'; r->error says what failed */
void cl_fabric_run(uint64_t seed, unsigned ops, ClFabricResult *r);
void cl_fabric_result_free(ClFabricResult *r);

/*
 * The connectionless tables' bytes QUERY_DEVICE reports (cl_onchip_bytes)
 * at a receiving endpoint after 'peers' endpoints (a NIC each, on one
 * switch) have each written 4 KiB to it at once
 */
uint32_t cl_fabric_onchip_with_peers(unsigned peers);

#endif
