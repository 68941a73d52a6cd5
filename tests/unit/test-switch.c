/*
 * Unit tests of the simulator's switch (tests/sim/sim-switch.h): L2
 * forwarding, RED marking measured against its curve (and decided on
 * dequeue), PFC holding an incast lossless with a bounded buffer (and the
 * same incast dropping without it), trimming, fair egress, and an egress
 * that resumes after the pause time or an XON. Test hosts are paced MACs
 * (sim-mac.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib.h>

#include "sim-mac.h"
#include "sim-switch.h"
#include "port/wire.h"

#define GBPS        1000000000ull
#define SEQ_OFF     (14 + 20 + 8)       /* IPv4 UDP payload: id, seq */
#define PRIO        3                   /* untagged frames' priority */

typedef struct Rec {
    uint64_t at;
    size_t len;
    uint8_t head[96];
} Rec;

typedef struct Host {
    SnicSim *sim;
    unsigned id;
    unsigned ep;
    unsigned port;              /* on the switch */
    uint8_t mac[6];
    SnicSimMac tx;
    GArray *rx;                 /* Rec */
} Host;

static void host_rx(void *opaque, unsigned src, const uint8_t *f, size_t len)
{
    Host *h = opaque;
    Rec r = { .at = snic_sim_now(h->sim), .len = len };

    if (snic_sim_mac_receive(&h->tx, f, len)) {
        return;
    }
    memcpy(r.head, f, MIN(len, sizeof(r.head)));
    g_array_append_val(h->rx, r);
}

/* Host 'id' (MAC 02:00:00:00:00:id) on a new switch port; static entry. */
static void host_add(Host *h, SnicSim *sim, SnicSimSwitch *sw, unsigned id,
                     uint64_t bps, uint64_t delay, bool obey, bool fdb)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = bps,
        .delay_ns = delay,
        .eth_framing = true,
    };

    memset(h, 0, sizeof(*h));
    h->sim = sim;
    h->id = id;
    h->mac[0] = 2;
    h->mac[5] = id;
    h->rx = g_array_new(false, false, sizeof(Rec));
    h->ep = snic_sim_add_endpoint(sim, host_rx, h);
    h->port = snic_sim_switch_add_port(sw, h->ep, &link);
    snic_sim_mac_init(&h->tx, sim, h->ep, snic_sim_switch_endpoint(sw), bps,
                      obey, PRIO);
    if (fdb) {
        snic_sim_switch_add_mac(sw, h->mac, h->port);
    }
}

static void host_free(Host *h)
{
    snic_sim_mac_destroy(&h->tx);
    g_array_free(h->rx, true);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * A UDP frame of 'len' bytes from h to dst (IPv4, or IPv6 with the same
 * payload offset shifted by 20) with ECN field 'ecn'; its payload starts
 * with h's id and 'seq'.
 */
static size_t udp_frame(uint8_t *f, size_t len, const Host *h,
                        const uint8_t dst[6], bool v6, uint8_t ecn,
                        uint32_t seq)
{
    size_t ip = 14, l4 = ip + (v6 ? 40 : 20);

    memset(f, 0, len);
    memcpy(f, dst, 6);
    memcpy(f + 6, h->mac, 6);
    if (v6) {
        f[12] = 0x86;
        f[13] = 0xdd;
        f[ip] = 0x60 | 0;
        f[ip + 1] = ecn << 4;
        f[ip + 4] = (len - l4) >> 8;
        f[ip + 5] = len - l4;
        f[ip + 6] = 17;
        f[ip + 7] = 64;
    } else {
        uint16_t csum;

        f[12] = 0x08;
        f[ip] = 0x45;
        f[ip + 1] = ecn;
        f[ip + 2] = (len - ip) >> 8;
        f[ip + 3] = len - ip;
        f[ip + 8] = 64;
        f[ip + 9] = 17;
        csum = snic_ipv4_checksum(f + ip);
        f[ip + 10] = csum >> 8;
        f[ip + 11] = csum;
    }
    f[l4 + 2] = 0x13;               /* port 5000: not RoCE */
    f[l4 + 3] = 0x88;
    f[l4 + 4] = (len - l4) >> 8;
    f[l4 + 5] = len - l4;
    f[l4 + 8] = h->id;
    put32(f + l4 + 9, seq);
    return len;
}

/* A RoCE WRITE Only from h to dst: 'payload' bytes, PSN 'seq'. */
static size_t roce_frame(uint8_t *f, size_t cap, const Host *h,
                         const uint8_t dst[6], bool v6, uint32_t payload,
                         uint32_t seq)
{
    static uint8_t data[2048];
    SnicPkt p;
    size_t len;

    memset(&p, 0, sizeof(p));
    memcpy(p.addr.dmac, dst, 6);
    memcpy(p.addr.smac, h->mac, 6);
    p.addr.ipv6 = v6;
    p.addr.sip[0] = p.addr.dip[0] = 10;
    p.addr.sip[15] = p.addr.sip[3] = h->id;
    p.addr.dip[15] = p.addr.dip[3] = dst[5];
    p.addr.hop_limit = 64;
    p.addr.tclass = 2;          /* ECT(0): trimming keeps it */
    p.opcode = SNIC_OP_RC_WRITE_ONLY;
    p.pkey = SNIC_DEFAULT_PKEY;
    p.dqpn = 0x11;
    p.psn = seq;
    p.reth.len = payload;
    p.payload = data;
    p.payload_len = payload;
    len = snic_wire_build(&p, f, cap);
    g_assert_cmpuint(len, >, 0);
    return len;
}

/* The sender id and sequence number a received UDP frame carries. */
static void rec_id(const Rec *r, unsigned *id, uint32_t *seq)
{
    *id = r->head[SEQ_OFF];
    *seq = get32(r->head + SEQ_OFF + 1);
}

static void send_pfc(Host *h, uint8_t cev, uint16_t q)
{
    uint16_t quanta[SNIC_SIM_PRIORITIES] = { 0 };
    uint8_t f[SNIC_SIM_PFC_FRAME_LEN];
    unsigned p;

    for (p = 0; p < SNIC_SIM_PRIORITIES; p++) {
        quanta[p] = cev & (1u << p) ? q : 0;
    }
    snic_sim_pfc_build(f, h->mac, cev, quanta);
    snic_sim_mac_send(&h->tx, snic_sim_now(h->sim), f, sizeof(f));
}

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* Static entries, learning, flooding and filtering. */
static void test_forwarding(void)
{
    const SnicSimSwitchConfig cfg = {
        .buffer_bytes = 100000,
        .default_priority = PRIO,
        .learning = true,
    };
    SnicSim *sim = snic_sim_new(1);
    SnicSimSwitch *sw = snic_sim_switch_new(sim, &cfg);
    Host h[3];
    uint8_t f[100];
    unsigned i;

    for (i = 0; i < 3; i++) {
        host_add(&h[i], sim, sw, i + 1, 10 * GBPS, 100, false, false);
    }
    /* nothing learnt: a unicast frame floods */
    udp_frame(f, sizeof(f), &h[0], h[1].mac, false, 0, 1);
    snic_sim_mac_send(&h[0].tx, 0, f, sizeof(f));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(h[1].rx->len, ==, 1);
    g_assert_cmpuint(h[2].rx->len, ==, 1);
    g_assert_cmpuint(h[0].rx->len, ==, 0);
    /* h[0] was learnt from that frame: the reply goes to it alone */
    udp_frame(f, sizeof(f), &h[1], h[0].mac, false, 0, 2);
    snic_sim_mac_send(&h[1].tx, snic_sim_now(sim), f, sizeof(f));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(h[0].rx->len, ==, 1);
    g_assert_cmpuint(h[2].rx->len, ==, 1);
    /* and h[1] from the reply */
    udp_frame(f, sizeof(f), &h[0], h[1].mac, false, 0, 3);
    snic_sim_mac_send(&h[0].tx, snic_sim_now(sim), f, sizeof(f));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(h[1].rx->len, ==, 2);
    g_assert_cmpuint(h[2].rx->len, ==, 1);
    /* a static entry wins over what was learnt; back where it came from */
    snic_sim_switch_add_mac(sw, h[1].mac, h[2].port);
    udp_frame(f, sizeof(f), &h[0], h[1].mac, false, 0, 4);
    snic_sim_mac_send(&h[0].tx, snic_sim_now(sim), f, sizeof(f));
    udp_frame(f, sizeof(f), &h[2], h[1].mac, false, 0, 5);
    snic_sim_mac_send(&h[2].tx, snic_sim_now(sim), f, sizeof(f));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(h[2].rx->len, ==, 2);
    g_assert_cmpuint(snic_sim_switch_port_stats(sw, h[2].port)->filtered,
                     ==, 1);
    /* broadcast: every other port */
    udp_frame(f, sizeof(f), &h[1], bcast, false, 0, 6);
    snic_sim_mac_send(&h[1].tx, snic_sim_now(sim), f, sizeof(f));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(h[0].rx->len, ==, 2);
    g_assert_cmpuint(h[1].rx->len, ==, 2);
    g_assert_cmpuint(h[2].rx->len, ==, 3);
    for (i = 0; i < 3; i++) {
        host_free(&h[i]);
    }
    snic_sim_switch_free(sw);
    snic_sim_free(sim);
}

/*
 * RED: the egress is held by a PAUSE from the sink, so frame i of a burst
 * finds exactly i frames queued; every ECT frame is marked with the
 * curve's probability at that depth. Non-ECT frames never are.
 */
static void test_ecn_red_curve(void)
{
    enum { L = 1000, BURST = 100, ROUNDS = 200, BINS = 4 };
    const SnicSimSwitchConfig cfg = {
        .buffer_bytes = 1 << 20,
        .default_priority = PRIO,
        .ecn_kmin = 20 * L,
        .ecn_kmax = 80 * L,
        .ecn_pmax = 0.5,
        .pfc_priorities = 1u << PRIO,   /* only to hold the egress */
        .pfc_xoff = 1 << 20,
        .pfc_xon = 1 << 20,
    };
    SnicSim *sim = snic_sim_new(11);
    SnicSimSwitch *sw = snic_sim_switch_new(sim, &cfg);
    Host src, dst;
    double expect[BINS] = { 0 }, var[BINS] = { 0 }, all_e = 0, all_v = 0;
    unsigned marked[BINS] = { 0 }, all_m = 0, ramp = 0, r, i, bad = 0;
    uint8_t f[L];

    host_add(&src, sim, sw, 1, 100 * GBPS, 100, false, true);
    host_add(&dst, sim, sw, 2, 100 * GBPS, 100, false, true);
    for (r = 0; r < ROUNDS; r++) {
        uint64_t t = snic_sim_now(sim);

        send_pfc(&dst, 1u << PRIO, 0xffff);
        snic_sim_run_until(sim, t + 1000);
        for (i = 0; i < BURST; i++) {
            /* every 5th not ECN-capable; ECT(0) over IPv4, ECT(1) IPv6 */
            bool v6 = i % 2;

            udp_frame(f, L, &src, dst.mac, v6, i % 5 == 0 ? 0 : v6 ? 1 : 2,
                      i);
            snic_sim_mac_send(&src.tx, t + 1000, f, L);
        }
        snic_sim_run_until(sim, t + 20000);
        g_assert_cmpuint(snic_sim_switch_queue_bytes(sw, dst.port), ==,
                         BURST * L);
        send_pfc(&dst, 1u << PRIO, 0);
        snic_sim_run_until(sim, t + 40000);
    }
    g_assert_cmpuint(dst.rx->len, ==, ROUNDS * BURST);
    for (i = 0; i < dst.rx->len; i++) {
        const Rec *rec = &g_array_index(dst.rx, Rec, i);
        bool v6 = rec->head[12] == 0x86;
        unsigned ecn = v6 ? (rec->head[15] >> 4) & 3 : rec->head[15] & 3;
        unsigned seq = get32(rec->head + SEQ_OFF + (v6 ? 21 : 1));
        uint64_t q = (uint64_t)seq * L;
        double p;
        int bin;

        if (!v6) {
            g_assert_cmpuint(snic_ipv4_checksum(rec->head + 14), ==, 0);
        }
        if (seq % 5 == 0) {
            g_assert_cmpuint(ecn, ==, 0);
            continue;
        }
        if (q <= cfg.ecn_kmin || q >= cfg.ecn_kmax) {
            /* the curve's ends are certain */
            g_assert_cmpuint(ecn, ==, q >= cfg.ecn_kmax ? 3 : v6 ? 1 : 2);
            all_m += ecn == 3;
            continue;
        }
        p = cfg.ecn_pmax * (q - cfg.ecn_kmin) /
            (double)(cfg.ecn_kmax - cfg.ecn_kmin);
        bin = (q - cfg.ecn_kmin) * BINS / (cfg.ecn_kmax - cfg.ecn_kmin);
        expect[bin] += p;
        var[bin] += p * (1 - p);
        marked[bin] += ecn == 3;
        all_m += ecn == 3;
        bad += ecn != 3 && ecn != (v6 ? 1u : 2u);
    }
    g_assert_cmpuint(bad, ==, 0);
    g_assert_cmpuint(all_m, ==,
                     snic_sim_switch_port_stats(sw, dst.port)->ecn_marked);
    /*
     * Each mark is an independent draw: per depth bin (~2300 frames) the
     * count is a sum of Bernoulli variables, and a correct curve leaves it
     * more than 4 standard deviations off its mean with probability
     * < 1e-4 (normal approximation, n p(1-p) > 100 in every bin); 4 sigma
     * is ~15 % of a bin's mean, so a wrong slope, origin or Pmax fails.
     */
    for (i = 0; i < BINS; i++) {
        g_test_message("RED bin %u: %u marked, expected %.1f +- %.1f", i,
                       marked[i], expect[i], 4 * sqrt(var[i]));
        g_assert_cmpfloat(var[i], >, 100);
        g_assert_cmpfloat(fabs(marked[i] - expect[i]), <=, 4 * sqrt(var[i]));
        all_e += expect[i];
        all_v += var[i];
        ramp += marked[i];
    }
    /* the whole ramp too: 4 sigma is ~5 % of its mean */
    g_assert_cmpfloat(fabs(ramp - all_e), <=, 4 * sqrt(all_v));
    host_free(&src);
    host_free(&dst);
    snic_sim_switch_free(sw);
    snic_sim_free(sim);
}

/*
 * RED decided on dequeue (ecn_on_dequeue): a burst held by a PAUSE is
 * released, and frame i leaves with BURST - 1 - i frames behind it. With
 * Pmax 0 the curve is a step at Kmax: exactly the frames that leave
 * Kmax or more behind are marked, the first of them included, though it
 * arrived at an empty queue; on enqueue the same burst marks the last
 * frames, the ones that found Kmax queued when they came.
 */
static void test_ecn_on_dequeue(void)
{
    enum { L = 1000, BURST = 100 };
    const SnicSimSwitchConfig cfg = {
        .buffer_bytes = 1 << 20,
        .default_priority = PRIO,
        .ecn_kmin = 20 * L,
        .ecn_kmax = 40 * L,
        .ecn_pmax = 0,
        .ecn_on_dequeue = true,
        .pfc_priorities = 1u << PRIO,   /* only to hold the egress */
        .pfc_xoff = 1 << 20,
        .pfc_xon = 1 << 20,
    };
    SnicSim *sim = snic_sim_new(12);
    SnicSimSwitch *sw = snic_sim_switch_new(sim, &cfg);
    Host src, dst;
    unsigned i, marked = 0;
    uint8_t f[L];

    host_add(&src, sim, sw, 1, 100 * GBPS, 100, false, true);
    host_add(&dst, sim, sw, 2, 100 * GBPS, 100, false, true);
    send_pfc(&dst, 1u << PRIO, 0xffff);
    snic_sim_run_until(sim, 1000);
    for (i = 0; i < BURST; i++) {
        /* every 5th not ECN-capable: never marked */
        udp_frame(f, L, &src, dst.mac, false, i % 5 == 0 ? 0 : 2, i);
        snic_sim_mac_send(&src.tx, 1000, f, L);
    }
    snic_sim_run_until(sim, 20000);
    g_assert_cmpuint(snic_sim_switch_queue_bytes(sw, dst.port), ==,
                     BURST * L);
    g_assert_cmpuint(snic_sim_switch_port_stats(sw, dst.port)->ecn_marked,
                     ==, 0);
    send_pfc(&dst, 1u << PRIO, 0);
    snic_sim_run_until(sim, 40000);
    g_assert_cmpuint(dst.rx->len, ==, BURST);
    for (i = 0; i < BURST; i++) {
        const Rec *rec = &g_array_index(dst.rx, Rec, i);
        unsigned ecn = rec->head[15] & 3;
        uint64_t behind = (uint64_t)(BURST - 1 - i) * L;

        g_assert_cmpuint(get32(rec->head + SEQ_OFF + 1), ==, i);
        g_assert_cmpuint(snic_ipv4_checksum(rec->head + 14), ==, 0);
        if (i % 5 == 0) {
            g_assert_cmpuint(ecn, ==, 0);
            continue;
        }
        g_assert_cmpuint(ecn, ==, behind >= cfg.ecn_kmax ? 3 : 2);
        marked += ecn == 3;
    }
    g_assert_cmpuint(marked, >, 0);
    g_assert_cmpuint(marked, ==,
                     snic_sim_switch_port_stats(sw, dst.port)->ecn_marked);
    host_free(&src);
    host_free(&dst);
    snic_sim_switch_free(sw);
    snic_sim_free(sim);
}

typedef struct Incast {
    uint64_t max_buffer;
    uint64_t max_ingress;
    uint64_t dropped;
    uint64_t delivered;
    uint64_t pause_sent;
    uint64_t pause_obeyed;      /* PFC frames the senders' MACs applied */
    uint64_t paused_ns;         /* summed over the senders */
    bool in_order;
} Incast;

/* n senders, 'frames' frames of 'len' each, to one sink at line rate. */
static Incast run_incast(unsigned n, unsigned frames, size_t len, bool pfc,
                         uint64_t xoff, uint64_t delay)
{
    const SnicSimSwitchConfig cfg = {
        .buffer_bytes = 1 << 20,
        .default_priority = PRIO,
        .pfc_priorities = pfc ? 1u << PRIO : 0,
        .pfc_xoff = xoff,
        .pfc_xon = xoff / 2,
    };
    SnicSim *sim = snic_sim_new(3);
    SnicSimSwitch *sw = snic_sim_switch_new(sim, &cfg);
    Host *h = g_new0(Host, n + 1), *sink = &h[n];
    uint32_t *next = g_new0(uint32_t, n);
    uint8_t *f = g_malloc(len);
    Incast res = { .in_order = true };
    unsigned i, k;

    for (i = 0; i <= n; i++) {
        host_add(&h[i], sim, sw, i + 1, 100 * GBPS, delay, true, true);
    }
    for (i = 0; i < n; i++) {
        for (k = 0; k < frames; k++) {
            udp_frame(f, len, &h[i], sink->mac, false, 0, k);
            snic_sim_mac_send(&h[i].tx, 0, f, len);
        }
    }
    /* it ends: no sender stays paused (each frame costs a few events) */
    g_assert_cmpuint(snic_sim_run(sim, 100 * n * frames), <,
                     100 * n * frames);
    for (i = 0; i < sink->rx->len; i++) {
        unsigned id;
        uint32_t seq;

        rec_id(&g_array_index(sink->rx, Rec, i), &id, &seq);
        g_assert_cmpuint(id, >=, 1);
        g_assert_cmpuint(id, <=, n);
        res.in_order &= seq >= next[id - 1];
        next[id - 1] = seq + 1;
    }
    res.delivered = sink->rx->len;
    res.dropped = snic_sim_switch_port_stats(sw, sink->port)->dropped;
    res.max_buffer = snic_sim_switch_max_buffer_bytes(sw);
    for (i = 0; i < n; i++) {
        const SnicSimSwitchPortStats *st =
            snic_sim_switch_port_stats(sw, h[i].port);

        res.max_ingress = MAX(res.max_ingress, st->max_ingress_bytes);
        res.pause_sent += st->pause_sent;
        res.pause_obeyed += h[i].tx.pause.frames;
        res.paused_ns += snic_sim_mac_paused_ns(&h[i].tx, PRIO);
    }
    g_assert_cmpuint(snic_sim_switch_buffer_bytes(sw), ==, 0);
    for (i = 0; i <= n; i++) {
        host_free(&h[i]);
    }
    g_free(h);
    g_free(next);
    g_free(f);
    snic_sim_switch_free(sw);
    snic_sim_free(sim);
    return res;
}

/*
 * 16 senders at 100 Gb/s into one 100 Gb/s port, 300 KB each, 1 MiB of
 * buffer. With PFC nothing is lost and what one ingress buffers stays
 * under XOFF plus the headroom a PAUSE's round trip lets in; without PFC
 * the buffer overflows.
 */
static void test_pfc_incast(void)
{
    const unsigned n = 16, frames = 300;
    const size_t len = 1000;
    const uint64_t xoff = 20000, delay = 1000;
    /* ns of one frame and of a PFC frame on the wire at 100 Gb/s */
    const double t_frame = snic_sim_eth_wire_bytes(len) * 0.08;
    const double t_pfc = snic_sim_eth_wire_bytes(SNIC_SIM_PFC_FRAME_LEN) *
                         0.08;
    /*
     * After the frame that crossed XOFF: the PAUSE waits for at most one
     * frame on the egress, is sent and crosses the link; the sender ends
     * the frame it is sending; what it sent meanwhile crosses the link.
     * All that time the ingress fills at 12.5 bytes/ns.
     */
    const double headroom = 12.5 * (t_frame + t_pfc + delay + t_frame +
                                    delay) + len;
    Incast with = run_incast(n, frames, len, true, xoff, delay);
    Incast without = run_incast(n, frames, len, false, xoff, delay);

    g_test_message("PFC: max buffer %" PRIu64 " max ingress %" PRIu64
                   " (bound %.0f), %" PRIu64 " PAUSE frames",
                   with.max_buffer, with.max_ingress, xoff + headroom,
                   with.pause_sent);
    g_test_message("no PFC: %" PRIu64 " dropped, max buffer %" PRIu64,
                   without.dropped, without.max_buffer);
    g_assert_cmpuint(with.dropped, ==, 0);
    g_assert_cmpuint(with.delivered, ==, n * frames);
    g_assert_true(with.in_order);
    g_assert_cmpfloat(with.max_ingress, <=, xoff + headroom);
    g_assert_cmpfloat(with.max_buffer, <=, n * (xoff + headroom));
    g_assert_cmpuint(with.max_buffer, <, 1 << 20);
    /* every PFC frame the switch sent was obeyed by its sender */
    g_assert_cmpuint(with.pause_sent, >, 0);
    g_assert_cmpuint(with.pause_obeyed, ==, with.pause_sent);
    g_assert_cmpuint(with.paused_ns, >, 0);

    g_assert_cmpuint(without.dropped, >, 0);
    g_assert_cmpuint(without.delivered + without.dropped, ==, n * frames);
    g_assert_cmpuint(without.max_buffer, >, (1 << 20) - len);
    g_assert_cmpuint(without.pause_sent, ==, 0);
}

/*
 * Trimming: RoCE frames that would take the queue past the threshold
 * (round 0), or that the buffer cannot hold (round 1), go on as their
 * headers, marked, ahead of the queued data; a non-RoCE frame is never
 * cut.
 */
static void test_trimming(void)
{
    SnicSimSwitchConfig cfg = {
        .buffer_bytes = 1 << 20,
        .default_priority = PRIO,
        .trim_threshold = 8000,
        .trim_dscp = SNIC_SIM_TRIM_DSCP_DEFAULT,
    };
    const unsigned n = 20;
    SnicSim *sim;
    SnicSimSwitch *sw;
    Host src, dst;
    uint8_t f[2048];
    size_t len = 0, hdr = 14 + 20 + 8 + 12 + 16;     /* BTH + RETH */
    unsigned i, full = 0, trimmed = 0, first_trim = 0, last_full = 0;
    unsigned round;

    for (round = 0; round < 2; round++) {
        sim = snic_sim_new(1);
        sw = snic_sim_switch_new(sim, &cfg);
        /* a 100 Gb/s sender into a 10 Gb/s port: the queue builds */
        host_add(&src, sim, sw, 1, 100 * GBPS, 100, false, true);
        host_add(&dst, sim, sw, 2, 10 * GBPS, 100, false, true);
        for (i = 0; i < n; i++) {
            len = roce_frame(f, sizeof(f), &src, dst.mac, false, 1024, i);
            snic_sim_mac_send(&src.tx, 0, f, len);
        }
        if (round == 0) {
            udp_frame(f, 1000, &src, dst.mac, false, 0, 99);
            snic_sim_mac_send(&src.tx, 0, f, 1000);
        }
        snic_sim_run(sim, UINT64_MAX);

        g_assert_cmpuint(dst.rx->len, ==, n + !round);
        full = trimmed = 0;
        for (i = 0; i < dst.rx->len; i++) {
            const Rec *r = &g_array_index(dst.rx, Rec, i);
            const uint8_t *ip = r->head + 14;

            if (r->len == 1000) {
                continue;       /* the UDP frame, whole */
            }
            g_assert_cmpuint(snic_ipv4_checksum(ip), ==, 0);
            if (r->len == len) {
                g_assert_cmpuint(ip[1] >> 2, ==, 0);
                last_full = i;
                full++;
                continue;
            }
            /* a header: lengths fixed, DSCP set, ECN kept, ICRC gone */
            g_assert_cmpuint(r->len, ==, hdr);
            g_assert_cmpuint(ip[1] >> 2, ==, cfg.trim_dscp);
            g_assert_cmpuint(ip[1] & 3, ==, 2);
            g_assert_cmpuint(ip[2] << 8 | ip[3], ==, hdr - 14);
            g_assert_cmpuint(ip[24] << 8 | ip[25], ==, hdr - 34);
            g_assert_cmpuint(snic_sim_frame_dscp(r->head, r->len), ==,
                             cfg.trim_dscp);
            if (!trimmed++) {
                first_trim = i;
            }
        }
        g_assert_cmpuint(full + trimmed, ==, n);
        g_assert_cmpuint(trimmed, ==,
                         snic_sim_switch_port_stats(sw, dst.port)->trimmed);
        g_assert_cmpuint(snic_sim_switch_port_stats(sw, dst.port)->dropped,
                         ==, 0);
        /* headers overtake the data queued before them */
        g_assert_cmpuint(first_trim, <, last_full);
        if (round == 0) {
            /*
             * The first frame leaves at once; 7 more of 1098 bytes fit
             * under 8000 before the egress (10 Gb/s) ends the first.
             */
            g_assert_cmpuint(len, ==, 1098);
            g_assert_cmpuint(full, ==, 8);
            /* then a buffer that holds 4 frames and the rest's headers */
            cfg.trim_threshold = 1 << 20;
            cfg.buffer_bytes = 5 * len - 1;
        } else {
            g_assert_cmpuint(full, ==, 5);
        }
        host_free(&src);
        host_free(&dst);
        snic_sim_switch_free(sw);
        snic_sim_free(sim);
    }
}

/*
 * Four senders backlogged toward one port (frames of 1000 B at 100 Gb/s);
 * per 400-frame window while all are busy, how many each got.
 */
enum { FAIR_N = 4, FAIR_FRAMES = 2000, FAIR_WINDOW = 400,
       FAIR_WINDOWS = FAIR_N * FAIR_FRAMES * 3 / 4 / FAIR_WINDOW };

static void run_fair(bool pfc, unsigned got[FAIR_WINDOWS][FAIR_N])
{
    const SnicSimSwitchConfig cfg = {
        .buffer_bytes = pfc ? 1 << 20 : 1 << 24,    /* without: no drop */
        .default_priority = PRIO,
        .pfc_priorities = pfc ? 1u << PRIO : 0,
        .pfc_xoff = 20000,
        .pfc_xon = 10000,
    };
    SnicSim *sim = snic_sim_new(1);
    SnicSimSwitch *sw = snic_sim_switch_new(sim, &cfg);
    Host h[FAIR_N + 1];
    uint8_t f[1000];
    unsigned i, k;

    for (i = 0; i <= FAIR_N; i++) {
        host_add(&h[i], sim, sw, i + 1, 100 * GBPS, 1000, true, true);
    }
    for (i = 0; i < FAIR_N; i++) {
        for (k = 0; k < FAIR_FRAMES; k++) {
            udp_frame(f, sizeof(f), &h[i], h[FAIR_N].mac, false, 0, k);
            snic_sim_mac_send(&h[i].tx, 0, f, sizeof(f));
        }
    }
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(h[FAIR_N].rx->len, ==, FAIR_N * FAIR_FRAMES);
    memset(got, 0, sizeof(unsigned) * FAIR_WINDOWS * FAIR_N);
    for (k = 0; k < FAIR_WINDOWS * FAIR_WINDOW; k++) {
        unsigned id;
        uint32_t seq;

        rec_id(&g_array_index(h[FAIR_N].rx, Rec, k), &id, &seq);
        got[k / FAIR_WINDOW][id - 1]++;
    }
    for (i = 0; i <= FAIR_N; i++) {
        host_free(&h[i]);
    }
    snic_sim_switch_free(sw);
    snic_sim_free(sim);
}

/*
 * A FIFO egress serves senders in the order their frames came: without
 * PFC (and a buffer that drops nothing) each gets its quarter of every
 * window, give or take a frame. With PFC, each ingress is paused and
 * resumed on its own, so windows wobble (~92 to ~124 of 400 here), but
 * none is starved in any window and over the run each gets its quarter
 * within 5 %.
 */
static void test_fair_egress(void)
{
    unsigned got[FAIR_WINDOWS][FAIR_N], total[FAIR_N] = { 0 }, w, i;

    run_fair(false, got);
    for (w = 0; w < FAIR_WINDOWS; w++) {
        for (i = 0; i < FAIR_N; i++) {
            g_assert_cmpuint(got[w][i], >=, FAIR_WINDOW / FAIR_N - 1);
            g_assert_cmpuint(got[w][i], <=, FAIR_WINDOW / FAIR_N + 1);
        }
    }
    run_fair(true, got);
    for (w = 0; w < FAIR_WINDOWS; w++) {
        g_test_message("PFC window %u: %u %u %u %u", w, got[w][0],
                       got[w][1], got[w][2], got[w][3]);
        for (i = 0; i < FAIR_N; i++) {
            g_assert_cmpuint(got[w][i], >=, FAIR_WINDOW / 5);
            total[i] += got[w][i];
        }
    }
    for (i = 0; i < FAIR_N; i++) {
        g_assert_cmpuint(total[i], >=,
                         FAIR_WINDOWS * FAIR_WINDOW / FAIR_N * 95 / 100);
        g_assert_cmpuint(total[i], <=,
                         FAIR_WINDOWS * FAIR_WINDOW / FAIR_N * 105 / 100);
    }
}

/* Two ports with their own traffic: neither slows the other. */
static void test_ports_independent(void)
{
    const SnicSimSwitchConfig cfg = {
        .buffer_bytes = 1 << 22,
        .default_priority = PRIO,
    };
    SnicSim *sim = snic_sim_new(1);
    SnicSimSwitch *sw = snic_sim_switch_new(sim, &cfg);
    Host h[4];
    uint8_t f[1500];
    unsigned i, k;

    for (i = 0; i < 4; i++) {
        host_add(&h[i], sim, sw, i + 1, 100 * GBPS, 100, false, true);
    }
    for (k = 0; k < 1000; k++) {
        udp_frame(f, sizeof(f), &h[0], h[1].mac, false, 0, k);
        snic_sim_mac_send(&h[0].tx, 0, f, sizeof(f));
        udp_frame(f, sizeof(f), &h[2], h[3].mac, false, 0, k);
        snic_sim_mac_send(&h[2].tx, 0, f, sizeof(f));
    }
    snic_sim_run(sim, UINT64_MAX);
    for (i = 1; i < 4; i += 2) {
        const Rec *last = &g_array_index(h[i].rx, Rec, h[i].rx->len - 1);

        g_assert_cmpuint(h[i].rx->len, ==, 1000);
        /* 1000 frames at the line rate, two links, a store and forward */
        g_assert_cmpuint(last->at, <=,
                         (1000 + 1) * snic_sim_eth_wire_bytes(1500) * 8 /
                         100 + 1 + 2 * 100 + 2 * 1000);
        g_assert_cmpuint(snic_sim_switch_port_stats(sw, h[i].port)->
                         max_queue_bytes, <=, 1500);
    }
    for (i = 0; i < 4; i++) {
        host_free(&h[i]);
    }
    snic_sim_switch_free(sw);
    snic_sim_free(sim);
}

/*
 * An egress paused by the PFC frames it receives: held for the quanta,
 * or until an XON; only the paused priority waits; a priority without
 * PFC ignores PAUSE.
 */
static void test_pause_resume(void)
{
    const SnicSimSwitchConfig cfg = {
        .buffer_bytes = 1 << 20,
        .default_priority = PRIO,
        .pfc_priorities = 1u << PRIO,
        .pfc_xoff = 1 << 20,
        .pfc_xon = 1 << 20,
    };
    SnicSim *sim = snic_sim_new(1);
    SnicSimSwitch *sw = snic_sim_switch_new(sim, &cfg);
    const uint64_t delay = 100;
    Host src, dst;
    uint8_t f[1000], tagged[1004];
    uint64_t quanta_ns = snic_sim_pfc_quanta_ns(2000, 100 * GBPS);
    uint64_t t, arrive_pause;
    const Rec *r;

    host_add(&src, sim, sw, 1, 100 * GBPS, delay, false, true);
    host_add(&dst, sim, sw, 2, 100 * GBPS, delay, false, true);
    g_assert_cmpuint(quanta_ns, ==, 10240);

    /* pause for 2000 quanta; a frame arriving meanwhile waits it out */
    send_pfc(&dst, 1u << PRIO, 2000);
    snic_sim_run(sim, UINT64_MAX);
    arrive_pause = snic_sim_now(sim);
    udp_frame(f, sizeof(f), &src, dst.mac, false, 0, 1);
    snic_sim_mac_send(&src.tx, arrive_pause, f, sizeof(f));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(dst.rx->len, ==, 1);
    r = &g_array_index(dst.rx, Rec, 0);
    g_assert_cmpuint(r->at, ==, arrive_pause + quanta_ns +
                     snic_sim_eth_wire_bytes(1000) * 8 / 100 + delay);
    g_assert_cmpuint(snic_sim_switch_paused_ns(sw, dst.port, PRIO), ==,
                     quanta_ns);
    g_assert_cmpuint(snic_sim_switch_port_stats(sw, dst.port)->
                     pause_received, ==, 1);

    /* a long pause, then an XON 3 us later: the frame goes at the XON */
    send_pfc(&dst, 1u << PRIO, 0xffff);
    snic_sim_run(sim, UINT64_MAX);
    t = snic_sim_now(sim);
    snic_sim_mac_send(&src.tx, t, f, sizeof(f));
    /* a frame tagged priority 5 passes the paused priority 3 */
    memcpy(tagged, f, 12);
    tagged[12] = 0x81;
    tagged[13] = 0x00;
    tagged[14] = 5 << 5;
    tagged[15] = 0;
    memcpy(tagged + 16, f + 12, sizeof(f) - 12);
    snic_sim_mac_send(&src.tx, t, tagged, sizeof(tagged));
    snic_sim_run_until(sim, t + 3000 - delay -
                       snic_sim_eth_wire_bytes(SNIC_SIM_PFC_FRAME_LEN) * 8 /
                       100);
    send_pfc(&dst, 1u << PRIO, 0);
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(dst.rx->len, ==, 3);
    r = &g_array_index(dst.rx, Rec, 1);
    g_assert_cmpuint(r->len, ==, sizeof(tagged));
    g_assert_cmpuint(r->at, <, t + 3000);
    r = &g_array_index(dst.rx, Rec, 2);
    g_assert_cmpuint(r->len, ==, sizeof(f));
    g_assert_cmpuint(r->at, ==, t + 3000 +
                     snic_sim_eth_wire_bytes(1000) * 8 / 100 + delay);
    g_assert_cmpuint(snic_sim_switch_paused_ns(sw, dst.port, PRIO), ==,
                     quanta_ns + 3000);

    /* PAUSE for a priority without PFC (5) holds nothing */
    send_pfc(&dst, 1u << 5, 0xffff);
    snic_sim_run(sim, UINT64_MAX);
    t = snic_sim_now(sim);
    snic_sim_mac_send(&src.tx, t, tagged, sizeof(tagged));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(dst.rx->len, ==, 4);
    g_assert_cmpuint(snic_sim_switch_paused_ns(sw, dst.port, 5), ==, 0);
    host_free(&src);
    host_free(&dst);
    snic_sim_switch_free(sw);
    snic_sim_free(sim);
}

/* Header walks, IPv6 trimming and PFC frames, field by field. */
static void test_frame_helpers(void)
{
    Host h = { .id = 7, .mac = { 2, 0, 0, 0, 0, 7 } };
    const uint8_t dst[6] = { 2, 0, 0, 0, 0, 8 };
    uint16_t quanta[SNIC_SIM_PRIORITIES] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    uint16_t back[SNIC_SIM_PRIORITIES];
    uint8_t f[2048], cev;
    SnicSimFrameInfo fi;
    size_t len, cut;

    len = roce_frame(f, sizeof(f), &h, dst, true, 1000, 5);
    snic_sim_frame_info(f, len, &fi);
    g_assert_true(fi.roce && fi.ipv6);
    g_assert_cmpuint(fi.opcode, ==, SNIC_OP_RC_WRITE_ONLY);
    g_assert_cmpuint(fi.hdr_len, ==, 14 + 40 + 8 + 12 + 16);
    g_assert_cmpuint(fi.payload_len, ==, 1000);
    g_assert_cmpuint(fi.ecn, ==, 2);
    g_assert_cmpuint(snic_sim_frame_priority(&fi, 3), ==, 3);
    cut = snic_sim_frame_trim(f, len, 0x2a);
    g_assert_cmpuint(cut, ==, fi.hdr_len);
    g_assert_cmpuint(snic_sim_frame_dscp(f, cut), ==, 0x2a);
    g_assert_cmpuint((f[15] >> 4) & 3, ==, 2);     /* ECN kept */
    g_assert_cmpuint(f[18] << 8 | f[19], ==, cut - 14 - 40);
    g_assert_cmpuint(f[58] << 8 | f[59], ==, cut - 14 - 40);
    /* a frame already cut is only headers: nothing more to trim */
    g_assert_cmpuint(snic_sim_frame_trim(f, cut, 0x2a), ==, 0);
    /* not RoCE */
    len = udp_frame(f, 200, &h, dst, false, 1, 0);
    g_assert_cmpuint(snic_sim_frame_trim(f, len, 0x2a), ==, 0);
    g_assert_true(snic_sim_frame_mark_ce(f, len));
    g_assert_false(snic_sim_frame_mark_ce(f, len));     /* already CE */

    len = snic_sim_pfc_build(f, h.mac, 0x88, quanta);
    g_assert_cmpuint(len, ==, 60);
    g_assert_true(snic_sim_pfc_parse(f, len, &cev, back));
    g_assert_cmpuint(cev, ==, 0x88);
    g_assert_cmpmem(back, sizeof(back), quanta, sizeof(quanta));
    g_assert_cmphex(f[0], ==, 0x01);
    g_assert_cmphex(f[12] << 8 | f[13], ==, 0x8808);
    g_assert_cmphex(f[14] << 8 | f[15], ==, 0x0101);
    f[15] = 0x01;
    f[14] = 0x00;       /* 802.3x PAUSE (0x0001): not a PFC frame */
    g_assert_false(snic_sim_pfc_parse(f, len, &cev, back));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/switch/forwarding", test_forwarding);
    g_test_add_func("/switch/ecn-red-curve", test_ecn_red_curve);
    g_test_add_func("/switch/ecn-on-dequeue", test_ecn_on_dequeue);
    g_test_add_func("/switch/pfc-incast", test_pfc_incast);
    g_test_add_func("/switch/trimming", test_trimming);
    g_test_add_func("/switch/fair-egress", test_fair_egress);
    g_test_add_func("/switch/ports-independent", test_ports_independent);
    g_test_add_func("/switch/pause-resume", test_pause_resume);
    g_test_add_func("/switch/frame-helpers", test_frame_helpers);
    return g_test_run();
}
