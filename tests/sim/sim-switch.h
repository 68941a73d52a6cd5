/*
 * A switch node for the simulator: N ports, each a pair of one-way links
 * to an endpoint; L2 forwarding by destination MAC (a static table and/or
 * learning; unknown unicast, broadcast and multicast flood); per-port,
 * per-priority egress FIFOs on one shared buffer (drop-tail); RED-style
 * ECN marking; optional NDP-style trimming; IEEE 802.1Qbb PFC. Every
 * decision is counted. tests/sim/README.md describes the model.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_SIM_SWITCH_H
#define SNIC_SIM_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "sim-eth.h"
#include "sim.h"

typedef struct SnicSimSwitch SnicSimSwitch;

typedef struct SnicSimSwitchConfig {
    uint64_t buffer_bytes;      /* shared by every egress queue; > 0 */
    /* untagged frames' priority (tagged: their PCP); RoCE's is 3 */
    unsigned default_priority;
    bool learning;              /* learn source MACs (beside the table) */

    /*
     * RED marking of ECT frames on enqueue, from the egress queue's bytes
     * q (that port and priority): none up to kmin, probability
     * pmax * (q - kmin) / (kmax - kmin) below kmax, every one from kmax.
     * ecn_kmax == 0: off. ecn_on_dequeue: decided instead as the frame
     * leaves the queue, from the bytes still queued behind it (the switch
     * of the DCQCN authors' ns-3 simulator), so a mark tells the receiver
     * the queue as it is now, not one queueing delay ago.
     */
    uint64_t ecn_kmin;
    uint64_t ecn_kmax;
    double ecn_pmax;
    bool ecn_on_dequeue;

    /*
     * PFC on the priorities in this mask (0: off): when the bytes buffered
     * from one ingress port at one priority exceed pfc_xoff, that port's
     * peer is sent a PAUSE for pfc_quanta (refreshed at half of it while
     * still above pfc_xon); at or below pfc_xon, a PAUSE of 0 (XON). PFC
     * frames received pause an egress priority in the mask.
     */
    uint8_t pfc_priorities;
    uint64_t pfc_xoff;
    uint64_t pfc_xon;
    uint16_t pfc_quanta;        /* 0: 0xffff */

    /*
     * NDP-style trimming (0: off): a RoCE frame that would take its egress
     * queue past trim_threshold bytes, or that the buffer cannot hold, is
     * cut to its headers, its DSCP set to trim_dscp, and sent from the
     * port's header queue, served before every data queue.
     */
    uint64_t trim_threshold;
    uint8_t trim_dscp;
} SnicSimSwitchConfig;

/* RFC 2474 pool 2 (xxxx11: experimental or local use) */
#define SNIC_SIM_TRIM_DSCP_DEFAULT  63

typedef struct SnicSimSwitchPortStats {
    uint64_t rx_frames;         /* data frames arrived on the port */
    uint64_t rx_bytes;
    uint64_t tx_frames;         /* data frames and trimmed headers sent */
    uint64_t tx_bytes;
    uint64_t dropped;           /* for this egress: no room in the buffer */
    uint64_t filtered;          /* arrived for the port they came from */
    uint64_t ecn_marked;        /* ECT -> CE here (RED) */
    uint64_t trimmed;           /* cut to their headers on enqueue here */
    uint64_t pause_sent;        /* PFC frames to the peer: XOFF, refresh */
    uint64_t xon_sent;          /* ... of which XON */
    uint64_t pause_received;    /* PFC frames from the peer */
    uint64_t max_queue_bytes;   /* egress: every queue of the port */
    uint64_t max_ingress_bytes; /* buffered from this port, one priority */
} SnicSimSwitchPortStats;

/* A switch on the simulator, as one endpoint of it. */
SnicSimSwitch *snic_sim_switch_new(SnicSim *sim,
                                   const SnicSimSwitchConfig *cfg);
/* Frames still queued are dropped; the simulator must outlive it. */
void snic_sim_switch_free(SnicSimSwitch *sw);
/* The switch's endpoint id. */
unsigned snic_sim_switch_endpoint(const SnicSimSwitch *sw);

/*
 * A new port linked with endpoint 'ep' both ways by 'link' (its bandwidth
 * > 0 is the port's line rate, eth_framing is set). The egress paces
 * frames at that rate and hands each to the link as it starts. Returns
 * the port number (0, 1, ...).
 */
unsigned snic_sim_switch_add_port(SnicSimSwitch *sw, unsigned ep,
                                  const SnicSimLinkConfig *link);
/* Static forwarding entry: frames for 'mac' leave by 'port'. */
void snic_sim_switch_add_mac(SnicSimSwitch *sw, const uint8_t mac[6],
                             unsigned port);

const SnicSimSwitchPortStats *snic_sim_switch_port_stats(SnicSimSwitch *sw,
                                                         unsigned port);
/* Bytes queued now for egress 'port' (every priority, headers too). */
uint64_t snic_sim_switch_queue_bytes(SnicSimSwitch *sw, unsigned port);
/* Bytes buffered now from ingress 'port' at priority 'prio'. */
uint64_t snic_sim_switch_ingress_bytes(SnicSimSwitch *sw, unsigned port,
                                       unsigned prio);
/* How long egress 'port' has had priority 'prio' paused so far. */
uint64_t snic_sim_switch_paused_ns(SnicSimSwitch *sw, unsigned port,
                                   unsigned prio);
/* Shared buffer use: now and the most so far. */
uint64_t snic_sim_switch_buffer_bytes(SnicSimSwitch *sw);
uint64_t snic_sim_switch_max_buffer_bytes(SnicSimSwitch *sw);

#endif /* SNIC_SIM_SWITCH_H */
