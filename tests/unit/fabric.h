/*
 * Scenarios where each flow has its own NIC: N engine nodes (engine-node.h)
 * on one simulated switch, each with its own MAC and, optionally, the NIC
 * timing model. A flow is a sending node's QP connected to a QP of its own
 * on the receiving node, so one receiver takes many flows (incast) and
 * each sender is one NIC. Built for the incast and convergence
 * experiments; tests/bench/bench-incast.c and test-fabric use it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_TESTS_FABRIC_H
#define SNIC_TESTS_FABRIC_H

#include "engine-node.h"
#include "sim-switch.h"

typedef struct FabricConfig {
    unsigned nodes;
    uint64_t seed;
    SnicSimSwitchConfig sw;
    SnicSimLinkConfig link;     /* every node's port, both ways */
    const SnicSimNicTiming *timing;     /* every NIC's; NULL: untimed */
    uint32_t sched_burst;       /* every NIC's sched-burst; 0: default */
    uint8_t ack_timeout;        /* fabric_flows' QPs' local ACK timeout
                                 * (4.096 us << it); 0: node_connect's */
} FabricConfig;

typedef struct Fabric {
    SnicSim *sim;
    SnicSimSwitch *sw;
    unsigned n;
    /*
     * Node i: 10.0.0.(i + 1), MAC 52:54:00:00:01:(i + 1), on switch port
     * i (a static forwarding entry), kernel RC QP, SRQ for its flows in.
     */
    Node *node;
    bool *sending;              /* node i's QP carries a flow */
    uint8_t ack_timeout;
} Fabric;

void fabric_new(Fabric *f, const FabricConfig *cfg);
void fabric_free(Fabric *f);

/*
 * A flow from node s to node d: s's QP is connected to a new QP on d
 * (which receives on d's SRQ), returned in *rx; post sends on
 * &f->node[s], poll both ends' completions on their node. A node sends
 * one flow at most.
 */
void fabric_flow(Fabric *f, unsigned s, unsigned d, uint8_t mtu, Node *rx);
/* The same with both QPs running transport program 'program' */
void fabric_flow_program(Fabric *f, unsigned s, unsigned d, uint8_t mtu,
                         Node *rx, uint8_t program);

/*
 * Many flows from one node: n QPs on node s (each with an SQ of its own,
 * in memory the node grows for them), each connected to a new QP on d,
 * all running 'program'; tx[i] and rx[i] are flow i's ends (post on
 * tx[i], poll every completion through &f->node[s] and &f->node[d]).
 * A node sends either these or one fabric_flow.
 */
void fabric_flows(Fabric *f, unsigned s, unsigned d, unsigned n,
                  uint8_t mtu, uint8_t program, Node *tx, Node *rx);

#endif /* SNIC_TESTS_FABRIC_H */
