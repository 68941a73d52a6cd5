/*
 * What a test host gives the device core it drives, besides memory and
 * interrupts: a clock, the core's one timer, its engine runs (the QEMU
 * device's bottom half) and a wire for its frames. On the simulator
 * (snic_sim_port_attach) all of these are the simulator's; alone, the clock
 * is a variable the test moves (snic_sim_port_advance), the timer is only
 * recorded, and the engine runs when the test says (snic_sim_port_run).
 * Shared by tests/unit/fake-host and tests/fuzz/fuzz-host.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_SIM_PORT_H
#define SNIC_SIM_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "snic_core.h"

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
} SnicSimPort;

/* Alone, at 1000 ns, timer disarmed; each engine run at most run_rounds. */
void snic_sim_port_init(SnicSimPort *p, unsigned run_rounds);

/* Put the port on the simulator; its endpoint id. */
unsigned snic_sim_port_attach(SnicSimPort *p, SnicSim *sim);
/* Two attached ports on one link, each the other's peer. */
void snic_sim_port_connect(SnicSimPort *a, SnicSimPort *b,
                           const SnicSimLinkConfig *cfg);

/* The SnicHostOps of the same names, for the port's core. */
uint64_t snic_sim_port_now(const SnicSimPort *p);
void snic_sim_port_timer_mod(SnicSimPort *p, uint64_t deadline);
/* An engine run, soon: on the simulator, at the current time. */
void snic_sim_port_kick(SnicSimPort *p);
/* Send a frame to the peer; false if the port is alone. */
bool snic_sim_port_tx(SnicSimPort *p, const void *frame, size_t len);

/* Alone: run the engine until it is idle or run_rounds; rounds used. */
unsigned snic_sim_port_run(SnicSimPort *p);
/* Alone: move the clock; the timer fires (once) if it is due. */
void snic_sim_port_advance(SnicSimPort *p, uint64_t ns);

#endif
