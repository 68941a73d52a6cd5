/*
 * The transmit side of an Ethernet MAC on the simulator: frames wait in
 * order until they are ready, leave one at a time at the line rate, and,
 * when the MAC obeys PFC, not while their priority is paused. A frame is
 * handed to the link when its serialisation starts, so the link (same
 * bandwidth, eth_framing) serialises it and its queue stays empty: what
 * waits, waits here, where PAUSE can hold it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_SIM_MAC_H
#define SNIC_SIM_MAC_H

#include <glib.h>

#include "sim-eth.h"
#include "sim.h"

typedef struct SnicSimMacStats {
    uint64_t frames;            /* handed to the wire */
    uint64_t bytes;
    uint64_t wire_bytes;        /* ... with Ethernet framing (sim-eth.h) */
    uint64_t max_backlog_bytes; /* waiting in the MAC */
} SnicSimMacStats;

/* The MAC has room again (snic_sim_mac_full() said it had none) */
typedef void (*SnicSimMacRoomFn)(void *opaque);

typedef struct SnicSimMac {
    SnicSim *sim;
    unsigned ep;                /* sends from this endpoint ... */
    unsigned peer;              /* ... to this one */
    uint64_t rate_bps;          /* 0: a frame leaves as soon as it is ready */
    bool obey_pause;            /* PFC frames received stop priorities */
    unsigned untagged_priority; /* the priority of an untagged frame */
    GQueue queue;               /* MacFrame, oldest first */
    uint64_t backlog_bytes;
    uint64_t free_ps;           /* the wire is free from (picoseconds) */
    uint64_t timer_id;          /* 0: none */
    uint64_t timer_at;
    SnicSimPause pause;
    uint64_t fifo_bytes;        /* full above this backlog; 0: never */
    SnicSimMacRoomFn room;      /* called when a full MAC has room */
    void *room_opaque;
    bool room_owed;             /* full was reported, room not yet */
    SnicSimMacStats stats;
} SnicSimMac;

void snic_sim_mac_init(SnicSimMac *m, SnicSim *sim, unsigned ep,
                       unsigned peer, uint64_t rate_bps, bool obey_pause,
                       unsigned untagged_priority);
/* Drop the frames still waiting and the MAC's timer. */
void snic_sim_mac_destroy(SnicSimMac *m);

/*
 * Queue a copy of a frame that may leave from 'ready' on (virtual ns);
 * frames leave in the order they are queued.
 */
void snic_sim_mac_send(SnicSimMac *m, uint64_t ready, const void *frame,
                       size_t len);

/*
 * A frame the MAC received: true if the MAC took it (a PFC frame, when it
 * obeys PFC: a MAC consumes its control frames), false if it is for the
 * host.
 */
bool snic_sim_mac_receive(SnicSimMac *m, const uint8_t *frame, size_t len);

/*
 * A transmit FIFO of fifo_bytes (0: unbounded, the default) in front of
 * the wire: once full, room(opaque) is called when the backlog is back
 * at or below it.
 */
void snic_sim_mac_set_fifo(SnicSimMac *m, uint64_t fifo_bytes,
                           SnicSimMacRoomFn room, void *opaque);
/* More than fifo_bytes wait (never with no FIFO); room() will follow. */
bool snic_sim_mac_full(SnicSimMac *m);

/* Paused time of priority p so far (ns). */
uint64_t snic_sim_mac_paused_ns(const SnicSimMac *m, unsigned p);

#endif /* SNIC_SIM_MAC_H */
