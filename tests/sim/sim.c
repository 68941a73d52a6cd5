/*
 * Deterministic network simulator (see sim.h).
 *
 * Events (frame arrivals, timers) sit in one GSequence ordered by (time,
 * insertion number), so equal times resolve the same way every run; all
 * randomness comes from one GRand seeded by the caller.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>

#include "port/pcap.h"
#include "sim-eth.h"
#include "sim.h"

#define SIM_DEFAULT_REORDER_NS  10000

typedef struct SimEndpoint {
    SnicSimRecvFn recv;
    void *opaque;
} SimEndpoint;

typedef struct SimLink {
    unsigned src;
    unsigned dst;
    SnicSimLinkConfig cfg;
    SnicSimLinkStats stats;
    uint64_t busy_until;        /* when the last queued frame has left */
} SimLink;

typedef struct SimEvent {
    uint64_t time;
    uint64_t seq;
    SimLink *link;              /* frame arrival; NULL for a timer */
    uint8_t *frame;
    size_t len;
    SnicSimTimerFn fn;
    void *opaque;
    GSequenceIter *iter;
} SimEvent;

struct SnicSim {
    GRand *rand;
    uint64_t now;
    uint64_t seq;
    GSequence *events;
    GArray *endpoints;          /* SimEndpoint */
    GHashTable *links;          /* (src << 32 | dst) -> SimLink */
    GHashTable *timers;         /* id -> SimEvent */
    SnicPcap *pcap;
};

static gint event_cmp(gconstpointer a, gconstpointer b, gpointer unused)
{
    const SimEvent *x = a, *y = b;

    if (x->time != y->time) {
        return x->time < y->time ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void event_free(SimEvent *e)
{
    g_free(e->frame);
    g_free(e);
}

static void event_free_fn(gpointer e, gpointer unused)
{
    event_free(e);
}

SnicSim *snic_sim_new(uint64_t seed)
{
    SnicSim *s = g_new0(SnicSim, 1);
    guint32 words[2] = { (guint32)seed, (guint32)(seed >> 32) };

    s->rand = g_rand_new_with_seed_array(words, 2);
    s->events = g_sequence_new(NULL);   /* events are freed by hand */
    s->endpoints = g_array_new(false, true, sizeof(SimEndpoint));
    s->links = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                     g_free);
    s->timers = g_hash_table_new(g_int64_hash, g_int64_equal);
    return s;
}

void snic_sim_free(SnicSim *s)
{
    if (s->pcap) {
        snic_pcap_close(s->pcap);
    }
    g_hash_table_destroy(s->timers);
    g_sequence_foreach(s->events, event_free_fn, NULL);
    g_sequence_free(s->events);
    g_hash_table_destroy(s->links);
    g_array_free(s->endpoints, true);
    g_rand_free(s->rand);
    g_free(s);
}

unsigned snic_sim_add_endpoint(SnicSim *s, SnicSimRecvFn recv, void *opaque)
{
    SimEndpoint ep = { recv, opaque };

    g_array_append_val(s->endpoints, ep);
    return s->endpoints->len - 1;
}

static SimLink *find_link(SnicSim *s, unsigned src, unsigned dst)
{
    gint64 key = (gint64)src << 32 | dst;

    return g_hash_table_lookup(s->links, &key);
}

void snic_sim_link(SnicSim *s, unsigned src, unsigned dst,
                   const SnicSimLinkConfig *cfg)
{
    SimLink *l = find_link(s, src, dst);

    g_assert(src < s->endpoints->len && dst < s->endpoints->len);
    if (!l) {
        gint64 *key = g_new(gint64, 1);

        *key = (gint64)src << 32 | dst;
        l = g_new0(SimLink, 1);
        l->src = src;
        l->dst = dst;
        g_hash_table_insert(s->links, key, l);
    }
    l->cfg = *cfg;
    if (!l->cfg.reorder_ns) {
        l->cfg.reorder_ns = SIM_DEFAULT_REORDER_NS;
    }
}

void snic_sim_connect(SnicSim *s, unsigned a, unsigned b,
                      const SnicSimLinkConfig *cfg)
{
    snic_sim_link(s, a, b, cfg);
    snic_sim_link(s, b, a, cfg);
}

static SimEvent *schedule(SnicSim *s, uint64_t when)
{
    SimEvent *e = g_new0(SimEvent, 1);

    e->time = when;
    e->seq = ++s->seq;
    e->iter = g_sequence_insert_sorted(s->events, e, event_cmp, NULL);
    return e;
}

static bool chance(SnicSim *s, double p)
{
    return p > 0 && g_rand_double(s->rand) < p;
}

static void schedule_arrival(SnicSim *s, SimLink *l, uint64_t when,
                             const uint8_t *frame, size_t len)
{
    SimEvent *e = schedule(s, when);

    e->link = l;
    e->frame = g_memdup2(frame, len);
    e->len = len;
}

bool snic_sim_send(SnicSim *s, unsigned src, unsigned dst, const void *frame,
                   size_t len)
{
    SimLink *l = find_link(s, src, dst);
    uint64_t tx_ns = 0, depart, arrive, queued;
    g_autofree uint8_t *f = NULL;

    if (!l) {
        return false;
    }
    l->stats.sent++;
    l->stats.sent_bytes += len;
    if (chance(s, l->cfg.loss)) {
        l->stats.lost++;
        return true;
    }
    tx_ns = snic_sim_tx_ns(&l->cfg, len);
    /* bytes still waiting to be serialised when this frame joins */
    queued = l->busy_until > s->now && l->cfg.bandwidth_bps ?
        (uint64_t)((l->busy_until - s->now) * (l->cfg.bandwidth_bps / 8e9)) :
        0;
    l->stats.max_queue_bytes = MAX(l->stats.max_queue_bytes, queued);
    depart = MAX(s->now, l->busy_until) + tx_ns;
    l->busy_until = depart;
    arrive = depart + l->cfg.delay_ns;

    f = g_memdup2(frame, len);
    if (l->cfg.ecn_threshold && queued > l->cfg.ecn_threshold &&
        snic_sim_frame_mark_ce(f, len)) {
        l->stats.ecn_marked++;
    }
    if (len && chance(s, l->cfg.corrupt)) {
        uint32_t bit = g_rand_int_range(s->rand, 0, (gint32)(len * 8));

        f[bit / 8] ^= 1u << (bit % 8);
        l->stats.corrupted++;
    }
    if (chance(s, l->cfg.reorder)) {
        arrive += l->cfg.reorder_ns;
        l->stats.reordered++;
    }
    schedule_arrival(s, l, arrive, f, len);
    if (chance(s, l->cfg.dup)) {
        l->stats.duplicated++;
        schedule_arrival(s, l, arrive + tx_ns + 1, f, len);
    }
    return true;
}

uint64_t snic_sim_tx_ns(const SnicSimLinkConfig *cfg, size_t len)
{
    uint64_t bytes = cfg->eth_framing ? snic_sim_eth_wire_bytes(len) : len;

    if (!cfg->bandwidth_bps) {
        return 0;
    }
    return (uint64_t)((bytes * 8.0 * 1e9) / cfg->bandwidth_bps);
}

uint64_t snic_sim_now(SnicSim *s)
{
    return s->now;
}

uint64_t snic_sim_timer_add(SnicSim *s, uint64_t when, SnicSimTimerFn fn,
                            void *opaque)
{
    SimEvent *e = schedule(s, MAX(when, s->now));

    e->fn = fn;
    e->opaque = opaque;
    g_hash_table_insert(s->timers, &e->seq, e);
    return e->seq;
}

void snic_sim_timer_cancel(SnicSim *s, uint64_t id)
{
    gint64 key = id;
    SimEvent *e = g_hash_table_lookup(s->timers, &key);

    if (e) {
        g_hash_table_remove(s->timers, &key);
        g_sequence_remove(e->iter);
        event_free(e);
    }
}

static void deliver(SnicSim *s, SimEvent *e)
{
    SimLink *l = e->link;
    SimEndpoint *ep = &g_array_index(s->endpoints, SimEndpoint, l->dst);

    l->stats.delivered++;
    l->stats.delivered_bytes += e->len;
    if (s->pcap) {
        snic_pcap_write(s->pcap, s->now, e->frame, e->len);
    }
    ep->recv(ep->opaque, l->src, e->frame, e->len);
}

bool snic_sim_step(SnicSim *s)
{
    GSequenceIter *it = g_sequence_get_begin_iter(s->events);
    SimEvent *e;

    if (g_sequence_iter_is_end(it)) {
        return false;
    }
    e = g_sequence_get(it);
    /* unlink first: the callback may add or cancel events */
    g_sequence_remove(it);
    s->now = MAX(s->now, e->time);
    if (e->link) {
        deliver(s, e);
    } else {
        gint64 key = e->seq;

        g_hash_table_remove(s->timers, &key);
        e->fn(e->opaque);
    }
    event_free(e);
    return true;
}

void snic_sim_run_until(SnicSim *s, uint64_t t)
{
    for (;;) {
        GSequenceIter *it = g_sequence_get_begin_iter(s->events);

        if (g_sequence_iter_is_end(it) ||
            ((SimEvent *)g_sequence_get(it))->time > t) {
            break;
        }
        snic_sim_step(s);
    }
    s->now = MAX(s->now, t);
}

uint64_t snic_sim_run(SnicSim *s, uint64_t max_events)
{
    uint64_t n = 0;

    while (n < max_events && snic_sim_step(s)) {
        n++;
    }
    return n;
}

double snic_sim_random(SnicSim *s)
{
    return g_rand_double(s->rand);
}

const SnicSimLinkStats *snic_sim_link_stats(SnicSim *s, unsigned src,
                                            unsigned dst)
{
    SimLink *l = find_link(s, src, dst);

    return l ? &l->stats : NULL;
}

int snic_sim_capture(SnicSim *s, const char *path)
{
    if (s->pcap) {
        snic_pcap_close(s->pcap);
    }
    s->pcap = snic_pcap_open(path);
    return s->pcap ? 0 : -1;
}
