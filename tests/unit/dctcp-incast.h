/*
 * DCTCP incast in the simulator (DCTCP, SIGCOMM'10, section 4; SRNIC,
 * NSDI'23, section 5): DCTCP_FLOWS flows, each from its own
 * NIC, through one switch into one receiver whose 100 Gb/s port is the
 * bottleneck. The switch marks CE on a step at K (its RED with
 * Kmin = K - 1 byte and Kmax = K: every ECT frame that finds K bytes or
 * more queued, none below, as DCTCP prescribes). Every link 100 Gb/s,
 * 1 us each way; MTU 1024 (SRNIC 6.1); each flow always has 16 WRITEs of
 * 64 KiB outstanding and starts DCTCP_STAGGER_NS after the one before, so
 * the later flows must take their share from the earlier ones. Virtual
 * time only: the same on every machine. Used by test-fabric (the
 * acceptance's bounds) and tests/bench/dctcp-repro.c (the plot).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_TESTS_DCTCP_INCAST_H
#define SNIC_TESTS_DCTCP_INCAST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define DCTCP_FLOWS         16
#define DCTCP_LINK_BPS      100000000000ull
#define DCTCP_LINK_DELAY_NS 1000
#define DCTCP_STAGGER_NS    20000

typedef struct DctcpIncastConfig {
    uint64_t run_ns;            /* virtual time simulated */
    uint64_t steady_ns;         /* the steady state: [steady_ns, run_ns) */
    uint64_t k_bytes;           /* the marking threshold K */
    uint64_t sample_ns;         /* CSV rows (per-flow Gb/s, queue) */
    FILE *csv;                  /* NULL: no rows */
    /*
     * 0: SNIC_TRANSPORT_DCTCP (over go-back-N); SNIC_TRANSPORT_SRNIC_DCTCP:
     * every sender's host runs SRNIC's recovery (sr-host.c); the receiver
     * has no CtrlQ (the incast loses nothing: a loss would be NAKed)
     */
    uint8_t program;
} DctcpIncastConfig;

typedef struct DctcpIncastResult {
    double gbps[DCTCP_FLOWS];   /* each flow's mean over the steady state */
    double sum_gbps;
    double jain;                /* Jain's index of gbps[] */
    uint64_t q_max_steady;      /* bottleneck queue, bytes, steady state */
    double q_avg_steady;        /* ... its time average (1 us samples) */
    uint64_t q_max;             /* ... the most over the whole run */
    uint64_t marked;            /* CE marks at the bottleneck */
    uint64_t dropped;           /* drops there (buffer full) */
    uint64_t writes;            /* WRITEs completed, every one successful */
} DctcpIncastResult;

/* Runs it; false (with why on stderr) if a WRITE failed */
bool dctcp_incast_run(const DctcpIncastConfig *cfg, DctcpIncastResult *r);

#endif /* SNIC_TESTS_DCTCP_INCAST_H */
