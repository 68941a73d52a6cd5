/*
 * What a test host gives the device core it drives, besides memory and
 * interrupts: a clock, the core's one timer, its engine runs (the QEMU
 * device's bottom half) and a wire for its frames. On the simulator
 * (snic_sim_port_attach) all of these are the simulator's; alone, the clock
 * is a variable the test moves (snic_sim_port_advance), the timer is only
 * recorded, and the engine runs when the test says (snic_sim_port_run).
 * Shared by tests/unit/fake-host and tests/fuzz/fuzz-host.
 *
 * On the simulator a port can also model a NIC's timing (SnicSimNicTiming,
 * off unless set): PCIe reads and writes, the packet pipeline and the
 * line rate cost virtual time. tests/sim/README.md documents the model.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_SIM_PORT_H
#define SNIC_SIM_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim-mac.h"
#include "sim-qpc-cache.h"
#include "sim-switch.h"
#include "sim.h"
#include "snic_core.h"

/*
 * The NIC timing model's parameters (tests/sim/README.md); a field left 0
 * costs nothing, so an all-zero model is today's untimed port.
 */
typedef struct SnicSimNicTiming {
    uint64_t pcie_rtt_ns;       /* a read's round trip */
    uint64_t pcie_bps;          /* each direction's data bandwidth */
    uint64_t pipeline_ns;       /* per packet, in each direction */
    uint64_t line_rate_bps;     /* the MAC's serialisation */
    bool obey_pause;            /* PFC frames stop the MAC (needs a rate) */
    /*
     * The MAC's transmit FIFO: while more than this waits in it, the
     * engine does not run (its scheduler is held, as a NIC's is by a
     * full FIFO); 0: unbounded, the engine never waits for the MAC
     */
    uint64_t tx_fifo_bytes;
    /*
     * Descriptor reads (dma_read_done: the core's WQE fetches) pass the
     * data reads queued on the read channel (tests/sim/README.md)
     */
    bool desc_priority;
    unsigned untagged_priority; /* the PFC priority of untagged frames */
    /*
     * "Cached QPC" mode, a commodity RNIC for comparison (0: off, every
     * QPC on chip as in snic and SRNIC): an LRU cache of this many QPCs,
     * a miss stalling the pipeline for a PCIe read of qpc_bytes
     */
    unsigned qpc_cache_entries;
    unsigned qpc_bytes;
    /*
     * A WRITE with immediate fetches no receive WQE, as a plain RDMA
     * WRITE: what a StRoM answer costs its requester (StRoM 5.1), beside
     * ours, which completes a receive (tests/bench/strom-repro.c)
     */
    bool write_imm_no_recv_wqe;
    /*
     * A stream unit in the receive pipeline (StRoM's HyperLogLog, §7.2):
     * each RDMA WRITE packet's payload passes it at stream_beat_bytes a
     * cycle of stream_clock_hz, one packet after the other; 0: none
     */
    unsigned stream_beat_bytes;
    uint64_t stream_clock_hz;
} SnicSimNicTiming;

/* SRNIC's figures (NSDI'23 §6.2, tests/sim/README.md says why each) */
#define SNIC_SIM_SRNIC_PCIE_RTT_NS      1100
#define SNIC_SIM_SRNIC_PCIE_BPS         115000000000ull
#define SNIC_SIM_SRNIC_PIPELINE_NS      10
#define SNIC_SIM_SRNIC_LINE_RATE_BPS    100000000000ull
#define SNIC_SIM_ROCE_PRIORITY          3

/* The SRNIC model, PAUSE not obeyed. */
extern const SnicSimNicTiming snic_sim_srnic_timing;

/* What the timing model charged (all zero on an untimed port). */
typedef struct SnicSimPortStats {
    uint64_t pcie_reads;        /* dma_read_done calls, payloads, WQEs */
    uint64_t pcie_read_bytes;
    uint64_t pcie_writes;       /* received payloads and frames, and
                                 * the core's timed writes */
    uint64_t pcie_write_bytes;  /* ... with their TLP framing */
    uint64_t kernel_writes;     /* of them, the core's (StRoM kernels) */
    uint64_t kernel_write_bytes;
    uint64_t rq_wqe_fetches;    /* receive WQEs fetched on arrival */
    uint64_t qpc_hits;          /* cached-QPC mode: lookups, both ways */
    uint64_t qpc_misses;
    uint64_t stream_beats;      /* the stream unit's cycles */
} SnicSimPortStats;

/*
 * Cached-QPC mode: the local QP that sends a frame to QP 'dqpn' (the frame
 * does not name its sender; an RC QP has one peer, so the host running
 * the scenario knows it).
 */
typedef uint32_t (*SnicSimTxQpnFn)(void *opaque, uint32_t dqpn);

typedef struct SnicSimPort {
    SnicCore *core;             /* set by the host once it made the core */
    unsigned run_rounds;        /* snic_core_run() calls per engine run */
    uint64_t now;               /* the clock, alone */
    uint64_t timer_deadline;    /* UINT64_MAX = disarmed */

    SnicSim *sim;               /* NULL: alone */
    unsigned ep;                /* this port's endpoint */
    unsigned peer;              /* where its frames go */
    bool run_scheduled;
    uint64_t timer_id;          /* 0: none */

    SnicSimNicTiming timing;
    bool timed;                 /* a timing cost is on */
    uint8_t rpc_opmap;          /* the core's RPC op-codes (rpc_opmap) */
    uint64_t rd_free_ps;        /* the PCIe read channel is free from */
    uint64_t desc_free_ps;      /* ... for descriptors (desc_priority) */
    uint64_t wr_free_ps;        /* ... and the write channel */
    uint64_t tx_pipe_free;      /* the TX pipeline takes a packet from */
    uint64_t rx_pipe_free;
    uint64_t rx_last;           /* the last frame's delivery to the core */
    SnicSimMac mac;             /* timed: the transmit side of the MAC */
    GQueue rx_queue;            /* timed: frames on their way to the core */
    GQueue rx_free;             /* ... and their buffers, free to reuse */
    uint64_t rx_timer_id;
    SnicSimQpcCache qpc;        /* cached-QPC mode */
    SnicSimTxQpnFn tx_qpn;      /* ... its sender map; NULL: see README */
    void *tx_qpn_opaque;
    SnicSimPortStats stats;
} SnicSimPort;

/* Alone, at 1000 ns, timer disarmed; each engine run at most run_rounds. */
void snic_sim_port_init(SnicSimPort *p, unsigned run_rounds);
/* Frames still in the timing model are dropped. */
void snic_sim_port_destroy(SnicSimPort *p);

/*
 * The timing model, before snic_sim_port_attach(). Reads are timed alone
 * too; transmit and receive only on the simulator (alone, the port has
 * no events to delay frames with).
 */
void snic_sim_port_set_timing(SnicSimPort *p, const SnicSimNicTiming *t);

/*
 * Cached-QPC mode: how a transmitted frame's sending QP is found. Without
 * it a frame to QP d is keyed as d + 2^24, a key of its own: correct for
 * RC (one peer per QP) but then a QP takes two cache entries, one for
 * what it sends and one for what it receives.
 */
void snic_sim_port_set_tx_qpn(SnicSimPort *p, SnicSimTxQpnFn fn,
                              void *opaque);

/* Put the port on the simulator; its endpoint id. */
unsigned snic_sim_port_attach(SnicSimPort *p, SnicSim *sim);
/* Two attached ports on one link, each the other's peer. */
void snic_sim_port_connect(SnicSimPort *a, SnicSimPort *b,
                           const SnicSimLinkConfig *cfg);
/* An attached port on a new port of a switch; the switch port's number. */
unsigned snic_sim_port_connect_switch(SnicSimPort *p, SnicSimSwitch *sw,
                                      const SnicSimLinkConfig *cfg);

/*
 * SnicHostOps.dma_read_done: when a read of 'len' bytes issued now
 * completes (the PCIe read channel is shared with the payload and WQE
 * reads the model charges itself). Now on an untimed port.
 */
uint64_t snic_sim_port_dma_read_done(SnicSimPort *p, size_t len);
/*
 * SnicHostOps.dma_write_done: when a posted write of len bytes the core
 * issues now has crossed the write channel, with the framing of its TLPs
 * (SNIC_SIM_PCIE_WRITE_TLP_BYTES per SNIC_SIM_PCIE_MAX_PAYLOAD bytes);
 * now on an untimed port.
 */
#define SNIC_SIM_PCIE_MAX_PAYLOAD       256
#define SNIC_SIM_PCIE_WRITE_TLP_BYTES   24
uint64_t snic_sim_port_dma_write_done(SnicSimPort *p, size_t len);
/* SnicHostOps.rx_purge: frames on their way to the core are lost. */
void snic_sim_port_rx_purge(SnicSimPort *p);

/* The SnicHostOps of the same names, for the port's core. */
uint64_t snic_sim_port_now(const SnicSimPort *p);
void snic_sim_port_timer_mod(SnicSimPort *p, uint64_t deadline);
/* An engine run, soon: on the simulator, at the current time. */
void snic_sim_port_kick(SnicSimPort *p);
/*
 * SnicHostOps.tx_frame: send a frame to the peer, after reading the
 * 'host_bytes' the core read from host memory for it (timed); false if
 * the port is alone.
 */
bool snic_sim_port_tx(SnicSimPort *p, const void *frame, size_t len,
                      size_t host_bytes);

/* Alone: run the engine until it is idle or run_rounds; rounds used. */
unsigned snic_sim_port_run(SnicSimPort *p);
/* Alone: move the clock; the timer fires (once) if it is due. */
void snic_sim_port_advance(SnicSimPort *p, uint64_t ns);

#endif
