/*
 * A device core's clock, timer, engine runs and wire (see sim-port.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sim-port.h"

/* Work items per snic_core_run() call, as the QEMU device's bottom half */
#define PORT_RUN_BUDGET 16

void snic_sim_port_init(SnicSimPort *p, unsigned run_rounds)
{
    *p = (SnicSimPort) {
        .run_rounds = run_rounds,
        .now = 1000,
        .timer_deadline = UINT64_MAX,
    };
}

unsigned snic_sim_port_run(SnicSimPort *p)
{
    unsigned i;

    for (i = 0; i < p->run_rounds && snic_core_run(p->core, PORT_RUN_BUDGET);
         i++) {
        /* the core said more work remains */
    }
    return i;
}

static void port_sim_run(void *opaque)
{
    SnicSimPort *p = opaque;

    p->run_scheduled = false;
    snic_sim_port_run(p);
}

static void port_sim_timer(void *opaque)
{
    SnicSimPort *p = opaque;

    p->timer_id = 0;
    p->timer_deadline = UINT64_MAX;     /* one-shot, like QEMU timers */
    snic_core_timer(p->core);
}

static void port_sim_recv(void *opaque, unsigned src, const uint8_t *frame,
                          size_t len)
{
    SnicSimPort *p = opaque;

    snic_core_receive(p->core, frame, len);
}

unsigned snic_sim_port_attach(SnicSimPort *p, SnicSim *sim)
{
    p->sim = sim;
    p->ep = snic_sim_add_endpoint(sim, port_sim_recv, p);
    return p->ep;
}

void snic_sim_port_connect(SnicSimPort *a, SnicSimPort *b,
                           const SnicSimLinkConfig *cfg)
{
    a->peer = b->ep;
    b->peer = a->ep;
    snic_sim_connect(a->sim, a->ep, b->ep, cfg);
}

uint64_t snic_sim_port_now(const SnicSimPort *p)
{
    return p->sim ? snic_sim_now(p->sim) : p->now;
}

void snic_sim_port_timer_mod(SnicSimPort *p, uint64_t deadline)
{
    p->timer_deadline = deadline;
    if (!p->sim) {
        return;
    }
    if (p->timer_id) {
        snic_sim_timer_cancel(p->sim, p->timer_id);
        p->timer_id = 0;
    }
    if (deadline != UINT64_MAX) {
        p->timer_id = snic_sim_timer_add(p->sim, deadline, port_sim_timer, p);
    }
}

void snic_sim_port_kick(SnicSimPort *p)
{
    if (p->sim && !p->run_scheduled) {
        p->run_scheduled = true;
        snic_sim_timer_add(p->sim, snic_sim_now(p->sim), port_sim_run, p);
    }
}

bool snic_sim_port_tx(SnicSimPort *p, const void *frame, size_t len)
{
    if (!p->sim) {
        return false;
    }
    snic_sim_send(p->sim, p->ep, p->peer, frame, len);
    return true;
}

void snic_sim_port_advance(SnicSimPort *p, uint64_t ns)
{
    p->now += ns;
    if (p->timer_deadline != UINT64_MAX && p->timer_deadline <= p->now) {
        p->timer_deadline = UINT64_MAX;     /* one-shot */
        snic_core_timer(p->core);
    }
}
