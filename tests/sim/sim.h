/*
 * Deterministic network simulator for snic engines: endpoints exchange
 * Ethernet frames over one-way links in virtual time. Each link has a
 * bandwidth (serialisation + FIFO queue), a propagation delay, and seeded
 * loss, duplication, reordering, corruption and ECN marking above a queue
 * threshold. The same seed gives bit-for-bit the same run.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_SIM_H
#define SNIC_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct SnicSim SnicSim;

typedef struct SnicSimLinkConfig {
    uint64_t bandwidth_bps;     /* 0: no serialisation delay */
    uint64_t delay_ns;          /* propagation delay */
    double loss;                /* probability a frame is dropped */
    double dup;                 /* probability a frame arrives twice */
    double reorder;             /* probability a frame is held back ... */
    uint64_t reorder_ns;        /* ... by this much (0: 10 us) */
    double corrupt;             /* probability one bit of a frame flips */
    uint64_t ecn_threshold;     /* queue bytes above which ECT -> CE; 0 off */
    /*
     * Serialise a frame as an Ethernet wire does: FCS, padding to 64
     * bytes, preamble and inter-frame gap counted (sim-eth.h); else only
     * the frame's bytes.
     */
    bool eth_framing;
} SnicSimLinkConfig;

typedef struct SnicSimLinkStats {
    uint64_t sent;              /* frames offered to the link */
    uint64_t sent_bytes;
    uint64_t delivered;         /* frames handed to the receiver */
    uint64_t delivered_bytes;
    uint64_t lost;
    uint64_t duplicated;
    uint64_t reordered;
    uint64_t corrupted;
    uint64_t ecn_marked;
    uint64_t max_queue_bytes;
} SnicSimLinkStats;

typedef void (*SnicSimRecvFn)(void *opaque, unsigned src, const uint8_t *frame,
                              size_t len);
typedef void (*SnicSimTimerFn)(void *opaque);

SnicSim *snic_sim_new(uint64_t seed);
void snic_sim_free(SnicSim *s);

/* Add an endpoint; frames for it are passed to recv. Returns its id. */
unsigned snic_sim_add_endpoint(SnicSim *s, SnicSimRecvFn recv, void *opaque);
/* Create (or reconfigure) the one-way link src -> dst. */
void snic_sim_link(SnicSim *s, unsigned src, unsigned dst,
                   const SnicSimLinkConfig *cfg);
/* Both directions with the same configuration. */
void snic_sim_connect(SnicSim *s, unsigned a, unsigned b,
                      const SnicSimLinkConfig *cfg);

/*
 * A spray group: the one-way link src -> dst becomes n parallel lanes,
 * each with its own configuration (bandwidth, delay, impairments), and
 * each frame offered to it takes one lane, picked per frame: at random
 * from the run's generator (one draw a frame) or round robin. The
 * receiver sees the frame come from src whatever the lane. A link
 * sprayed stays sprayed (snic_sim_link on it is an error).
 */
typedef enum SnicSimSpray {
    SNIC_SIM_SPRAY_RANDOM,
    SNIC_SIM_SPRAY_ROUND_ROBIN,
} SnicSimSpray;
#define SNIC_SIM_MAX_LANES  16
void snic_sim_spray(SnicSim *s, unsigned src, unsigned dst,
                    const SnicSimLinkConfig *lanes, unsigned n,
                    SnicSimSpray how);
/* Counters of lane 'lane' of the spray group src -> dst (NULL: none) */
const SnicSimLinkStats *snic_sim_lane_stats(SnicSim *s, unsigned src,
                                            unsigned dst, unsigned lane);

/* Offer a frame to the link src -> dst (copied). False if no such link. */
bool snic_sim_send(SnicSim *s, unsigned src, unsigned dst, const void *frame,
                   size_t len);

/* Serialisation time of a frame of 'len' bytes on such a link (ns). */
uint64_t snic_sim_tx_ns(const SnicSimLinkConfig *cfg, size_t len);

uint64_t snic_sim_now(SnicSim *s);
/* Call fn(opaque) at virtual time 'when'; returns an id for cancel. */
uint64_t snic_sim_timer_add(SnicSim *s, uint64_t when, SnicSimTimerFn fn,
                            void *opaque);
void snic_sim_timer_cancel(SnicSim *s, uint64_t id);

/* Run the next event; false if there is none. */
bool snic_sim_step(SnicSim *s);
/* Run events up to and including time t, then set the clock to t. */
void snic_sim_run_until(SnicSim *s, uint64_t t);
/* Run until no events are left or max_events ran; returns events run. */
uint64_t snic_sim_run(SnicSim *s, uint64_t max_events);

/* A uniform draw in [0, 1) from the run's seeded generator. */
double snic_sim_random(SnicSim *s);

/*
 * Counters of the link src -> dst (NULL if there is no such link); of a
 * spray group, the sums of its lanes' (max_queue_bytes: the deepest lane)
 */
const SnicSimLinkStats *snic_sim_link_stats(SnicSim *s, unsigned src,
                                            unsigned dst);

/* Capture every delivered frame to a pcap file (0 or -1 with errno). */
int snic_sim_capture(SnicSim *s, const char *path);

#endif /* SNIC_SIM_H */
