/*
 * The simulator's switch (see sim-switch.h and tests/sim/README.md).
 *
 * A frame is stored on arrival (store and forward: the link delivers it
 * whole), takes buffer space until its egress starts sending it, and is
 * handed to the egress link as it starts, the link serialising it at the
 * port's rate. Egress times are kept in picoseconds like the MAC's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>

#include "sim-switch.h"
#include "snic/snic_eth.h"

typedef struct SwFrame {
    uint64_t arrival;           /* ns */
    unsigned ingress;           /* port it came from */
    unsigned prio;
    bool ect;                   /* ECN-capable: RED may mark it */
    size_t len;
    uint8_t data[];
} SwFrame;

typedef struct SwPort {
    SnicSimSwitch *sw;
    unsigned idx;
    unsigned ep;                /* the endpoint at the other end */
    SnicSimLinkConfig link;
    uint8_t mac[6];             /* source address of its PFC frames */
    GQueue data[SNIC_SIM_PRIORITIES];
    uint64_t data_bytes[SNIC_SIM_PRIORITIES];
    GQueue hdr;                 /* trimmed headers */
    uint64_t hdr_bytes;
    GQueue ctl;                 /* PFC frames to send (outside the buffer) */
    uint64_t free_ps;           /* egress free from */
    uint64_t timer_id;          /* 0: none */
    uint64_t timer_at;
    SnicSimPause pause;         /* PFC received: egress priorities held */
    uint64_t ingress_bytes[SNIC_SIM_PRIORITIES];
    uint8_t xoff;               /* priorities we hold the peer on */
    uint64_t refresh_id;        /* XOFF refresh timer */
    SnicSimSwitchPortStats stats;
} SwPort;

struct SnicSimSwitch {
    SnicSim *sim;
    SnicSimSwitchConfig cfg;
    unsigned ep;
    GPtrArray *ports;           /* SwPort */
    GHashTable *by_ep;          /* endpoint + 1 -> port + 1 */
    GHashTable *fdb;            /* MAC as 48-bit int -> port + 1 */
    uint64_t buffer_used;
    uint64_t max_buffer;
};

static void sw_recv(void *opaque, unsigned src, const uint8_t *f,
                    size_t len);

static SwPort *port_at(SnicSimSwitch *sw, unsigned i)
{
    g_assert(i < sw->ports->len);
    return g_ptr_array_index(sw->ports, i);
}

static void port_free(gpointer data)
{
    SwPort *p = data;
    unsigned i;

    for (i = 0; i < SNIC_SIM_PRIORITIES; i++) {
        g_queue_clear_full(&p->data[i], g_free);
    }
    g_queue_clear_full(&p->hdr, g_free);
    g_queue_clear_full(&p->ctl, g_free);
    if (p->timer_id) {
        snic_sim_timer_cancel(p->sw->sim, p->timer_id);
    }
    if (p->refresh_id) {
        snic_sim_timer_cancel(p->sw->sim, p->refresh_id);
    }
    g_free(p);
}

SnicSimSwitch *snic_sim_switch_new(SnicSim *sim,
                                   const SnicSimSwitchConfig *cfg)
{
    SnicSimSwitch *sw = g_new0(SnicSimSwitch, 1);

    g_assert(cfg->buffer_bytes > 0);
    g_assert(cfg->default_priority < SNIC_SIM_PRIORITIES);
    g_assert(!cfg->ecn_kmax || cfg->ecn_kmin < cfg->ecn_kmax);
    g_assert(!cfg->pfc_priorities || cfg->pfc_xon <= cfg->pfc_xoff);
    sw->sim = sim;
    sw->cfg = *cfg;
    if (!sw->cfg.pfc_quanta) {
        sw->cfg.pfc_quanta = 0xffff;
    }
    sw->ports = g_ptr_array_new_with_free_func(port_free);
    sw->by_ep = g_hash_table_new(NULL, NULL);
    sw->fdb = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                    NULL);
    sw->ep = snic_sim_add_endpoint(sim, sw_recv, sw);
    return sw;
}

void snic_sim_switch_free(SnicSimSwitch *sw)
{
    g_ptr_array_unref(sw->ports);
    g_hash_table_destroy(sw->by_ep);
    g_hash_table_destroy(sw->fdb);
    g_free(sw);
}

unsigned snic_sim_switch_endpoint(const SnicSimSwitch *sw)
{
    return sw->ep;
}

unsigned snic_sim_switch_add_port(SnicSimSwitch *sw, unsigned ep,
                                  const SnicSimLinkConfig *link)
{
    SwPort *p = g_new0(SwPort, 1);
    unsigned i;

    g_assert(link->bandwidth_bps > 0);
    p->sw = sw;
    p->idx = sw->ports->len;
    p->ep = ep;
    p->link = *link;
    p->link.eth_framing = true;     /* what the egress pacing counts */
    p->mac[0] = 0x02;               /* locally administered */
    p->mac[1] = 'S';
    p->mac[2] = 'W';
    p->mac[4] = p->idx >> 8;
    p->mac[5] = p->idx;
    for (i = 0; i < SNIC_SIM_PRIORITIES; i++) {
        g_queue_init(&p->data[i]);
    }
    g_queue_init(&p->hdr);
    g_queue_init(&p->ctl);
    g_ptr_array_add(sw->ports, p);
    g_hash_table_insert(sw->by_ep, GUINT_TO_POINTER(ep + 1),
                        GUINT_TO_POINTER(p->idx + 1));
    snic_sim_link(sw->sim, sw->ep, ep, &p->link);
    snic_sim_link(sw->sim, ep, sw->ep, &p->link);
    return p->idx;
}

static gint64 mac_key(const uint8_t *mac)
{
    gint64 k = 0;
    unsigned i;

    for (i = 0; i < 6; i++) {
        k = k << 8 | mac[i];
    }
    return k;
}

static void fdb_set(SnicSimSwitch *sw, const uint8_t *mac, unsigned port)
{
    gint64 *k = g_new(gint64, 1);

    *k = mac_key(mac);
    g_hash_table_replace(sw->fdb, k, GUINT_TO_POINTER(port + 1));
}

void snic_sim_switch_add_mac(SnicSimSwitch *sw, const uint8_t mac[6],
                             unsigned port)
{
    g_assert(port < sw->ports->len);
    fdb_set(sw, mac, port);
}

static uint64_t port_queued(const SwPort *p)
{
    uint64_t n = p->hdr_bytes;
    unsigned i;

    for (i = 0; i < SNIC_SIM_PRIORITIES; i++) {
        n += p->data_bytes[i];
    }
    return n;
}

static uint64_t ns_up(uint64_t ps)
{
    return (ps + 999) / 1000;
}

static void port_run(void *opaque);

/* Serve the egress at 'at' (ns) unless a run is due no later. */
static void port_kick_at(SwPort *p, uint64_t at)
{
    SnicSim *sim = p->sw->sim;

    at = MAX(at, snic_sim_now(sim));
    if (p->timer_id && p->timer_at <= at) {
        return;
    }
    if (p->timer_id) {
        snic_sim_timer_cancel(sim, p->timer_id);
    }
    p->timer_at = at;
    p->timer_id = snic_sim_timer_add(sim, at, port_run, p);
}

static void pfc_refresh(void *opaque);

/* Queue a PFC frame to p's peer: the priorities in cev, time 'quanta'. */
static void send_pfc(SwPort *p, uint8_t cev, uint16_t quanta)
{
    uint16_t q[SNIC_SIM_PRIORITIES] = { 0 };
    SwFrame *f = g_malloc(sizeof(*f) + SNIC_SIM_PFC_FRAME_LEN);
    unsigned i;

    for (i = 0; i < SNIC_SIM_PRIORITIES; i++) {
        q[i] = cev & (1u << i) ? quanta : 0;
    }
    f->arrival = snic_sim_now(p->sw->sim);
    f->ingress = p->idx;
    f->prio = 0;
    f->len = snic_sim_pfc_build(f->data, p->mac, cev, q);
    g_queue_push_tail(&p->ctl, f);
    p->stats.pause_sent++;
    p->stats.xon_sent += !quanta;
    port_kick_at(p, 0);
}

/* XOFF: hold the peer; refreshed at half its time while still held. */
static void pfc_xoff(SwPort *p, uint8_t bit)
{
    SnicSimSwitch *sw = p->sw;

    p->xoff |= bit;
    send_pfc(p, bit, sw->cfg.pfc_quanta);
    if (!p->refresh_id) {
        p->refresh_id = snic_sim_timer_add(sw->sim, snic_sim_now(sw->sim) +
            snic_sim_pfc_quanta_ns(sw->cfg.pfc_quanta,
                                   p->link.bandwidth_bps) / 2,
            pfc_refresh, p);
    }
}

static void pfc_refresh(void *opaque)
{
    SwPort *p = opaque;
    uint8_t held = p->xoff;

    p->refresh_id = 0;
    p->xoff = 0;
    if (held) {
        pfc_xoff(p, held);
    }
}

static void pfc_xon(SwPort *p, uint8_t bit)
{
    p->xoff &= ~bit;
    send_pfc(p, bit, 0);
    if (!p->xoff && p->refresh_id) {
        snic_sim_timer_cancel(p->sw->sim, p->refresh_id);
        p->refresh_id = 0;
    }
}

/* A buffered frame left (or was sent): its ingress may resume its peer. */
static void buffer_release(SnicSimSwitch *sw, const SwFrame *f)
{
    SwPort *in = port_at(sw, f->ingress);
    uint8_t bit = 1u << f->prio;

    sw->buffer_used -= f->len;
    in->ingress_bytes[f->prio] -= f->len;
    if ((in->xoff & bit) && in->ingress_bytes[f->prio] <= sw->cfg.pfc_xon) {
        pfc_xon(in, bit);
    }
}

static void buffer_take(SnicSimSwitch *sw, SwPort *out, const SwFrame *f)
{
    SwPort *in = port_at(sw, f->ingress);
    uint8_t bit = 1u << f->prio;

    sw->buffer_used += f->len;
    sw->max_buffer = MAX(sw->max_buffer, sw->buffer_used);
    out->stats.max_queue_bytes = MAX(out->stats.max_queue_bytes,
                                     port_queued(out));
    in->ingress_bytes[f->prio] += f->len;
    in->stats.max_ingress_bytes = MAX(in->stats.max_ingress_bytes,
                                      in->ingress_bytes[f->prio]);
    if ((sw->cfg.pfc_priorities & bit) && !(in->xoff & bit) &&
        in->ingress_bytes[f->prio] > sw->cfg.pfc_xoff) {
        pfc_xoff(in, bit);
    }
}

/*
 * The queue the egress sends from next: PFC frames, trimmed headers, then
 * the highest priority that has frames and is not paused; NULL if none.
 * *buffered: its frames take buffer space (PFC frames do not).
 */
static GQueue *port_pick(SwPort *p, uint64_t now, bool *buffered)
{
    int i;

    *buffered = true;
    if (!g_queue_is_empty(&p->ctl)) {
        *buffered = false;
        return &p->ctl;
    }
    if (!g_queue_is_empty(&p->hdr)) {
        return &p->hdr;
    }
    for (i = SNIC_SIM_PRIORITIES - 1; i >= 0; i--) {
        if (!g_queue_is_empty(&p->data[i]) &&
            !snic_sim_pause_active(&p->pause, now, i)) {
            return &p->data[i];
        }
    }
    return NULL;
}

/* The end of the earliest pause holding queued data (UINT64_MAX: none). */
static uint64_t port_resume_at(SwPort *p, uint64_t now)
{
    uint64_t at = UINT64_MAX;
    unsigned i;

    for (i = 0; i < SNIC_SIM_PRIORITIES; i++) {
        if (!g_queue_is_empty(&p->data[i]) &&
            snic_sim_pause_active(&p->pause, now, i)) {
            at = MIN(at, p->pause.until[i]);
        }
    }
    return at;
}

static bool red_mark(SnicSimSwitch *sw, uint64_t q)
{
    const SnicSimSwitchConfig *c = &sw->cfg;
    double p;

    if (q <= c->ecn_kmin) {
        return false;
    }
    if (q >= c->ecn_kmax) {
        return true;
    }
    p = c->ecn_pmax * (double)(q - c->ecn_kmin) / (c->ecn_kmax - c->ecn_kmin);
    return snic_sim_random(sw->sim) < p;
}

/* RED on queue depth q for an ECT frame queued at egress 'out' */
static void ecn_mark(SnicSimSwitch *sw, SwPort *out, SwFrame *f, uint64_t q)
{
    if (sw->cfg.ecn_kmax && f->ect && red_mark(sw, q) &&
        snic_sim_frame_mark_ce(f->data, f->len)) {
        out->stats.ecn_marked++;
    }
}

static void port_run(void *opaque)
{
    SwPort *p = opaque;
    SnicSimSwitch *sw = p->sw;
    uint64_t now = snic_sim_now(sw->sim);
    uint64_t resume;
    GQueue *q;
    bool buffered;

    p->timer_id = 0;
    while (ns_up(p->free_ps) <= now && (q = port_pick(p, now, &buffered))) {
        SwFrame *f = g_queue_pop_head(q);
        /* where it would have started: backlogged frames keep the pace */
        uint64_t start = MAX(p->free_ps, f->arrival * 1000);

        if (q != &p->ctl && q != &p->hdr) {
            start = MAX(start, p->pause.until[f->prio] * 1000);
        }
        p->free_ps = start + (uint64_t)(snic_sim_eth_wire_bytes(f->len) *
                                        8e12 / p->link.bandwidth_bps);
        if (q == &p->hdr) {
            p->hdr_bytes -= f->len;
        } else if (q != &p->ctl) {
            p->data_bytes[f->prio] -= f->len;
            if (sw->cfg.ecn_on_dequeue) {
                ecn_mark(sw, p, f, p->data_bytes[f->prio]);
            }
        }
        if (buffered) {
            p->stats.tx_frames++;
            p->stats.tx_bytes += f->len;
            buffer_release(sw, f);
        }
        snic_sim_send(sw->sim, sw->ep, p->ep, f->data, f->len);
        g_free(f);
    }
    resume = port_resume_at(p, now);
    if (port_pick(p, now, &buffered)) {
        port_kick_at(p, ns_up(p->free_ps));
    } else if (resume != UINT64_MAX) {
        port_kick_at(p, MAX(resume, ns_up(p->free_ps)));
    }
}

static SwFrame *frame_new(const uint8_t *data, size_t len, unsigned ingress,
                          unsigned prio, uint64_t now)
{
    SwFrame *f = g_malloc(sizeof(*f) + len);

    f->arrival = now;
    f->ingress = ingress;
    f->prio = prio;
    f->ect = false;
    f->len = len;
    memcpy(f->data, data, len);
    return f;
}

/* Offer a frame from 'in' to egress 'out': trim, drop, mark or queue it. */
static void enqueue(SnicSimSwitch *sw, SwPort *out, SwPort *in,
                    const uint8_t *data, size_t len,
                    const SnicSimFrameInfo *fi, unsigned prio)
{
    const SnicSimSwitchConfig *c = &sw->cfg;
    uint64_t now = snic_sim_now(sw->sim);
    uint64_t q = out->data_bytes[prio];
    bool fits = sw->buffer_used + len <= c->buffer_bytes;
    SwFrame *f;

    if (c->trim_threshold && fi->roce && fi->payload_len &&
        (q + len > c->trim_threshold || !fits)) {
        if (sw->buffer_used + fi->hdr_len > c->buffer_bytes) {
            out->stats.dropped++;
            return;
        }
        f = frame_new(data, len, in->idx, prio, now);
        f->len = snic_sim_frame_trim(f->data, len, c->trim_dscp);
        out->stats.trimmed++;
        g_queue_push_tail(&out->hdr, f);
        out->hdr_bytes += f->len;
    } else if (!fits) {
        out->stats.dropped++;
        return;
    } else {
        f = frame_new(data, len, in->idx, prio, now);
        f->ect = fi->ecn == 1 || fi->ecn == 2;
        if (!c->ecn_on_dequeue) {
            ecn_mark(sw, out, f, q);
        }
        g_queue_push_tail(&out->data[prio], f);
        out->data_bytes[prio] += len;
    }
    buffer_take(sw, out, f);
    port_kick_at(out, 0);
}

static void sw_recv(void *opaque, unsigned src, const uint8_t *frame,
                    size_t len)
{
    SnicSimSwitch *sw = opaque;
    unsigned idx = GPOINTER_TO_UINT(g_hash_table_lookup(sw->by_ep,
                                    GUINT_TO_POINTER(src + 1)));
    uint16_t quanta[SNIC_SIM_PRIORITIES];
    SnicSimFrameInfo fi;
    SwPort *in, *out;
    uint8_t cev;
    unsigned prio, i, to;
    gint64 dst;

    g_assert(idx);      /* only ports have links to the switch */
    in = port_at(sw, idx - 1);
    snic_sim_frame_info(frame, len, &fi);
    if (len < SNIC_ETH_HLEN || fi.ethertype == SNIC_SIM_ETH_P_MAC_CTRL) {
        /* a MAC takes its control frames; PFC pauses the egress */
        if (snic_sim_pfc_parse(frame, len, &cev, quanta)) {
            in->stats.pause_received++;
            snic_sim_pause_apply(&in->pause, snic_sim_now(sw->sim),
                                 sw->cfg.pfc_priorities, cev, quanta,
                                 in->link.bandwidth_bps);
            port_kick_at(in, 0);    /* an XON lets queued frames go */
        }
        return;
    }
    in->stats.rx_frames++;
    in->stats.rx_bytes += len;
    if (sw->cfg.learning && !(frame[6] & 1)) {
        fdb_set(sw, frame + 6, in->idx);
    }
    prio = snic_sim_frame_priority(&fi, sw->cfg.default_priority);
    dst = mac_key(frame);
    to = frame[0] & 1 ? 0 :
         GPOINTER_TO_UINT(g_hash_table_lookup(sw->fdb, &dst));
    if (to) {
        out = port_at(sw, to - 1);
        if (out == in) {
            in->stats.filtered++;
        } else {
            enqueue(sw, out, in, frame, len, &fi, prio);
        }
        return;
    }
    for (i = 0; i < sw->ports->len; i++) {
        if (i != in->idx) {
            enqueue(sw, port_at(sw, i), in, frame, len, &fi, prio);
        }
    }
}

const SnicSimSwitchPortStats *snic_sim_switch_port_stats(SnicSimSwitch *sw,
                                                         unsigned port)
{
    return &port_at(sw, port)->stats;
}

uint64_t snic_sim_switch_queue_bytes(SnicSimSwitch *sw, unsigned port)
{
    return port_queued(port_at(sw, port));
}

uint64_t snic_sim_switch_ingress_bytes(SnicSimSwitch *sw, unsigned port,
                                       unsigned prio)
{
    g_assert(prio < SNIC_SIM_PRIORITIES);
    return port_at(sw, port)->ingress_bytes[prio];
}

uint64_t snic_sim_switch_paused_ns(SnicSimSwitch *sw, unsigned port,
                                   unsigned prio)
{
    g_assert(prio < SNIC_SIM_PRIORITIES);
    return snic_sim_pause_time(&port_at(sw, port)->pause,
                               snic_sim_now(sw->sim), prio);
}

uint64_t snic_sim_switch_buffer_bytes(SnicSimSwitch *sw)
{
    return sw->buffer_used;
}

uint64_t snic_sim_switch_max_buffer_bytes(SnicSimSwitch *sw)
{
    return sw->max_buffer;
}
