/*
 * The transmit side of a simulated Ethernet MAC (see sim-mac.h).
 *
 * Times are kept in picoseconds so that frame after frame at 100 Gb/s
 * (0.08 ns a byte) add up exactly; events still happen on whole ns.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "sim-mac.h"

typedef struct MacFrame {
    uint64_t ready;             /* ns */
    unsigned prio;
    size_t len;
    uint8_t data[];
} MacFrame;

void snic_sim_mac_init(SnicSimMac *m, SnicSim *sim, unsigned ep,
                       unsigned peer, uint64_t rate_bps, bool obey_pause,
                       unsigned untagged_priority)
{
    *m = (SnicSimMac) {
        .sim = sim,
        .ep = ep,
        .peer = peer,
        .rate_bps = rate_bps,
        .obey_pause = obey_pause,
        .untagged_priority = untagged_priority,
        .queue = G_QUEUE_INIT,
    };
    /* a paused MAC resumes after pause quanta of its own line rate */
    g_assert(!obey_pause || rate_bps);
}

void snic_sim_mac_destroy(SnicSimMac *m)
{
    g_queue_clear_full(&m->queue, g_free);
    if (m->timer_id) {
        snic_sim_timer_cancel(m->sim, m->timer_id);
        m->timer_id = 0;
    }
}

void snic_sim_mac_set_fifo(SnicSimMac *m, uint64_t fifo_bytes,
                           SnicSimMacRoomFn room, void *opaque)
{
    g_assert(!fifo_bytes || room);
    m->fifo_bytes = fifo_bytes;
    m->room = room;
    m->room_opaque = opaque;
}

bool snic_sim_mac_full(SnicSimMac *m)
{
    if (!m->fifo_bytes || m->backlog_bytes <= m->fifo_bytes) {
        return false;
    }
    m->room_owed = true;
    return true;
}

static uint64_t ns_up(uint64_t ps)
{
    return (ps + 999) / 1000;
}

/* When the head frame may start (ps), pauses that held it included. */
static uint64_t head_start_ps(const SnicSimMac *m, const MacFrame *f)
{
    uint64_t t = MAX(m->free_ps, f->ready * 1000);

    if (m->obey_pause) {
        t = MAX(t, m->pause.until[f->prio] * 1000);
    }
    return t;
}

static void mac_run(void *opaque);

/* Arm the timer for the head frame unless one fires no later. */
static void mac_schedule(SnicSimMac *m)
{
    MacFrame *f = g_queue_peek_head(&m->queue);
    uint64_t at;

    if (!f) {
        return;
    }
    at = ns_up(head_start_ps(m, f));
    if (m->timer_id && m->timer_at <= at) {
        return;
    }
    if (m->timer_id) {
        snic_sim_timer_cancel(m->sim, m->timer_id);
    }
    m->timer_at = at;
    m->timer_id = snic_sim_timer_add(m->sim, at, mac_run, m);
}

static void mac_run(void *opaque)
{
    SnicSimMac *m = opaque;
    uint64_t now = snic_sim_now(m->sim);
    MacFrame *f;

    m->timer_id = 0;
    while ((f = g_queue_peek_head(&m->queue))) {
        /* a pause that still holds the head ends after now: it waits */
        uint64_t start = head_start_ps(m, f);

        if (ns_up(start) > now) {
            break;
        }
        g_queue_pop_head(&m->queue);
        m->backlog_bytes -= f->len;
        m->stats.frames++;
        m->stats.bytes += f->len;
        m->stats.wire_bytes += snic_sim_eth_wire_bytes(f->len);
        if (m->rate_bps) {
            m->free_ps = start + (uint64_t)(snic_sim_eth_wire_bytes(f->len) *
                                            8e12 / m->rate_bps);
        }
        snic_sim_send(m->sim, m->ep, m->peer, f->data, f->len);
        g_free(f);
        if (m->room_owed && m->backlog_bytes <= m->fifo_bytes) {
            m->room_owed = false;
            m->room(m->room_opaque);
        }
    }
    mac_schedule(m);
}

void snic_sim_mac_send(SnicSimMac *m, uint64_t ready, const void *frame,
                       size_t len)
{
    MacFrame *f = g_malloc(sizeof(*f) + len);
    SnicSimFrameInfo fi;

    snic_sim_frame_info(frame, len, &fi);
    f->ready = ready;
    f->prio = snic_sim_frame_priority(&fi, m->untagged_priority);
    f->len = len;
    memcpy(f->data, frame, len);
    g_queue_push_tail(&m->queue, f);
    m->backlog_bytes += len;
    m->stats.max_backlog_bytes = MAX(m->stats.max_backlog_bytes,
                                     m->backlog_bytes);
    if (m->queue.length == 1) {
        mac_schedule(m);
    }
}

bool snic_sim_mac_receive(SnicSimMac *m, const uint8_t *frame, size_t len)
{
    uint16_t quanta[SNIC_SIM_PRIORITIES];
    uint8_t cev;

    if (!m->obey_pause || !snic_sim_pfc_parse(frame, len, &cev, quanta)) {
        return false;
    }
    snic_sim_pause_apply(&m->pause, snic_sim_now(m->sim), 0xff, cev, quanta,
                         m->rate_bps);
    mac_schedule(m);    /* an XON lets the head go before the timer */
    return true;
}

uint64_t snic_sim_mac_paused_ns(const SnicSimMac *m, unsigned p)
{
    return snic_sim_pause_time(&m->pause, snic_sim_now(m->sim), p);
}
