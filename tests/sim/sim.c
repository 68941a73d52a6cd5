/*
 * Deterministic network simulator (see sim.h).
 *
 * Events (frame arrivals, timers) sit in one binary min-heap ordered by
 * (time, insertion number), so equal times resolve the same way every
 * run; all randomness comes from one GRand seeded by the caller. An
 * event and its frame buffer come back to a free list when it has run,
 * so a simulation in its steady state allocates nothing: the harness
 * must not cost more than the engines it measures.
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

typedef struct SimLink SimLink;
struct SimLink {
    unsigned src;
    unsigned dst;
    SnicSimLinkConfig cfg;
    SnicSimLinkStats stats;
    uint64_t busy_until;        /* when the last queued frame has left */
    /* a spray group (snic_sim_spray): its lanes, each a link of its own */
    SimLink *lanes;
    unsigned nlanes;
    unsigned next_lane;         /* round robin's */
    SnicSimSpray how;
};

typedef struct SimEvent SimEvent;
struct SimEvent {
    uint64_t time;
    uint64_t seq;
    SimLink *link;              /* frame arrival; NULL for a timer */
    uint8_t *frame;             /* kept when the event is freed ... */
    size_t cap;                 /* ... with its size, for the next one */
    size_t len;
    SnicSimTimerFn fn;
    void *opaque;
    size_t pos;                 /* index in the heap */
    SimEvent *next_free;
};

struct SnicSim {
    GRand *rand;
    uint64_t now;
    uint64_t seq;
    GPtrArray *heap;            /* SimEvent *, a min-heap on (time, seq) */
    SimEvent *free_events;
    GArray *endpoints;          /* SimEndpoint */
    GHashTable *links;          /* (src << 32 | dst) -> SimLink */
    GHashTable *timers;         /* id -> SimEvent */
    SnicPcap *pcap;
};

static bool event_before(const SimEvent *x, const SimEvent *y)
{
    return x->time != y->time ? x->time < y->time : x->seq < y->seq;
}

#define HEAP(s, i)  ((SimEvent *)g_ptr_array_index((s)->heap, (i)))

static void heap_set(SnicSim *s, size_t i, SimEvent *e)
{
    g_ptr_array_index(s->heap, i) = e;
    e->pos = i;
}

/* Move e, at i, up to its place */
static void heap_up(SnicSim *s, size_t i, SimEvent *e)
{
    while (i) {
        size_t parent = (i - 1) / 2;

        if (!event_before(e, HEAP(s, parent))) {
            break;
        }
        heap_set(s, i, HEAP(s, parent));
        i = parent;
    }
    heap_set(s, i, e);
}

/* Move e, at i, down to its place */
static void heap_down(SnicSim *s, size_t i, SimEvent *e)
{
    size_t n = s->heap->len;

    for (;;) {
        size_t child = 2 * i + 1;

        if (child >= n) {
            break;
        }
        if (child + 1 < n && event_before(HEAP(s, child + 1), HEAP(s, child))) {
            child++;
        }
        if (!event_before(HEAP(s, child), e)) {
            break;
        }
        heap_set(s, i, HEAP(s, child));
        i = child;
    }
    heap_set(s, i, e);
}

/* Take e out of the heap */
static void heap_remove(SnicSim *s, SimEvent *e)
{
    size_t i = e->pos;
    SimEvent *last = g_ptr_array_steal_index_fast(s->heap, s->heap->len - 1);

    if (last == e) {
        return;
    }
    /* the last event fills the hole, then finds its place */
    if (i && event_before(last, HEAP(s, (i - 1) / 2))) {
        heap_up(s, i, last);
    } else {
        heap_down(s, i, last);
    }
}

/* An event from the free list (its frame buffer kept), or a new one */
static SimEvent *event_new(SnicSim *s)
{
    SimEvent *e = s->free_events;

    if (!e) {
        return g_new0(SimEvent, 1);
    }
    s->free_events = e->next_free;
    e->link = NULL;
    e->len = 0;
    e->fn = NULL;
    e->opaque = NULL;
    return e;
}

static void event_free(SnicSim *s, SimEvent *e)
{
    e->next_free = s->free_events;
    s->free_events = e;
}

/* Room for a frame of len bytes in e's buffer */
static uint8_t *event_frame(SimEvent *e, size_t len)
{
    if (e->cap < len) {
        g_free(e->frame);
        e->cap = MAX(len, 2048);
        e->frame = g_malloc(e->cap);
    }
    e->len = len;
    return e->frame;
}

static void link_free(gpointer data)
{
    SimLink *l = data;

    g_free(l->lanes);
    g_free(l);
}

SnicSim *snic_sim_new(uint64_t seed)
{
    SnicSim *s = g_new0(SnicSim, 1);
    guint32 words[2] = { (guint32)seed, (guint32)(seed >> 32) };

    s->rand = g_rand_new_with_seed_array(words, 2);
    s->heap = g_ptr_array_sized_new(256);
    s->endpoints = g_array_new(false, true, sizeof(SimEndpoint));
    s->links = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                     link_free);
    s->timers = g_hash_table_new(g_int64_hash, g_int64_equal);
    return s;
}

void snic_sim_free(SnicSim *s)
{
    SimEvent *e;
    unsigned i;

    if (s->pcap) {
        snic_pcap_close(s->pcap);
    }
    g_hash_table_destroy(s->timers);
    for (i = 0; i < s->heap->len; i++) {
        event_free(s, HEAP(s, i));
    }
    g_ptr_array_free(s->heap, true);
    while ((e = s->free_events)) {
        s->free_events = e->next_free;
        g_free(e->frame);
        g_free(e);
    }
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
    g_assert(!l || !l->lanes);
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

void snic_sim_spray(SnicSim *s, unsigned src, unsigned dst,
                    const SnicSimLinkConfig *lanes, unsigned n,
                    SnicSimSpray how)
{
    SimLink *l;
    unsigned i;

    g_assert(n >= 1 && n <= SNIC_SIM_MAX_LANES);
    snic_sim_link(s, src, dst, &lanes[0]);
    l = find_link(s, src, dst);
    l->lanes = g_new0(SimLink, n);
    l->nlanes = n;
    l->how = how;
    for (i = 0; i < n; i++) {
        l->lanes[i].src = src;
        l->lanes[i].dst = dst;
        l->lanes[i].cfg = lanes[i];
        if (!lanes[i].reorder_ns) {
            l->lanes[i].cfg.reorder_ns = SIM_DEFAULT_REORDER_NS;
        }
    }
}

void snic_sim_connect(SnicSim *s, unsigned a, unsigned b,
                      const SnicSimLinkConfig *cfg)
{
    snic_sim_link(s, a, b, cfg);
    snic_sim_link(s, b, a, cfg);
}

/* Queue e at 'when', after every event queued before it for that time */
static void schedule(SnicSim *s, SimEvent *e, uint64_t when)
{
    e->time = when;
    e->seq = ++s->seq;
    g_ptr_array_add(s->heap, e);
    heap_up(s, s->heap->len - 1, e);
}

static bool chance(SnicSim *s, double p)
{
    return p > 0 && g_rand_double(s->rand) < p;
}

bool snic_sim_send(SnicSim *s, unsigned src, unsigned dst, const void *frame,
                   size_t len)
{
    SimLink *l = find_link(s, src, dst);
    uint64_t tx_ns = 0, depart, arrive, queued;
    SimEvent *e, *dup;
    uint8_t *f;

    if (!l) {
        return false;
    }
    if (l->lanes) {
        /* the lane: one draw a frame, or the next in turn */
        if (l->how == SNIC_SIM_SPRAY_RANDOM) {
            l = &l->lanes[g_rand_int_range(s->rand, 0, (gint32)l->nlanes)];
        } else {
            l = &l->lanes[l->next_lane++ % l->nlanes];
        }
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

    /* the one copy: the sender's buffer is its own again on return */
    e = event_new(s);
    e->link = l;
    f = event_frame(e, len);
    memcpy(f, frame, len);
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
    schedule(s, e, arrive);
    if (chance(s, l->cfg.dup)) {
        l->stats.duplicated++;
        dup = event_new(s);
        dup->link = l;
        memcpy(event_frame(dup, len), f, len);
        schedule(s, dup, arrive + tx_ns + 1);
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
    SimEvent *e = event_new(s);

    schedule(s, e, MAX(when, s->now));
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
        heap_remove(s, e);
        event_free(s, e);
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
    SimEvent *e;

    if (!s->heap->len) {
        return false;
    }
    e = HEAP(s, 0);
    /* unlink first: the callback may add or cancel events */
    heap_remove(s, e);
    s->now = MAX(s->now, e->time);
    if (e->link) {
        deliver(s, e);
    } else {
        gint64 key = e->seq;

        g_hash_table_remove(s->timers, &key);
        e->fn(e->opaque);
    }
    event_free(s, e);
    return true;
}

void snic_sim_run_until(SnicSim *s, uint64_t t)
{
    while (s->heap->len && HEAP(s, 0)->time <= t) {
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
    SnicSimLinkStats *t;
    unsigned i;

    if (l && l->lanes) {
        t = &l->stats;
        memset(t, 0, sizeof(*t));
        for (i = 0; i < l->nlanes; i++) {
            const SnicSimLinkStats *x = &l->lanes[i].stats;

            t->sent += x->sent;
            t->sent_bytes += x->sent_bytes;
            t->delivered += x->delivered;
            t->delivered_bytes += x->delivered_bytes;
            t->lost += x->lost;
            t->duplicated += x->duplicated;
            t->reordered += x->reordered;
            t->corrupted += x->corrupted;
            t->ecn_marked += x->ecn_marked;
            t->max_queue_bytes = MAX(t->max_queue_bytes, x->max_queue_bytes);
        }
    }
    return l ? &l->stats : NULL;
}

const SnicSimLinkStats *snic_sim_lane_stats(SnicSim *s, unsigned src,
                                            unsigned dst, unsigned lane)
{
    SimLink *l = find_link(s, src, dst);

    return l && lane < l->nlanes ? &l->lanes[lane].stats : NULL;
}

int snic_sim_capture(SnicSim *s, const char *path)
{
    if (s->pcap) {
        snic_pcap_close(s->pcap);
    }
    s->pcap = snic_pcap_open(path);
    return s->pcap ? 0 : -1;
}
