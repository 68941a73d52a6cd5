/*
 * Unit tests of the network simulator: repeatability from a seed,
 * impairment rates measured at the receiver, bandwidth and delay, ECN
 * marking, timers, capture and spray groups.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sim.h"
#include "port/wire.h"

#define FRAME_LEN 64

/*
 * Frame n: broadcast header, IPv4 ethertype, seq n, ~n (so a flipped bit
 * in the seq field cannot pass for another frame), then a pattern of n.
 */
static void make_frame(uint8_t *f, uint32_t n)
{
    unsigned i;

    memset(f, 0xff, 6);
    memset(f + 6, 2, 6);
    f[12] = 0x08;
    f[13] = 0x00;
    f[14] = n >> 24;
    f[15] = n >> 16;
    f[16] = n >> 8;
    f[17] = n;
    f[18] = ~n >> 24;
    f[19] = ~n >> 16;
    f[20] = ~n >> 8;
    f[21] = ~n;
    for (i = 22; i < FRAME_LEN; i++) {
        f[i] = (uint8_t)(n * 31 + i);
    }
}

typedef struct Receiver {
    GChecksum *digest;      /* of every delivery: time, source, bytes */
    uint8_t *seen;          /* per sequence number: times received */
    uint32_t nseq;
    uint32_t max_seq;
    bool any;
    uint64_t frames, dups, late, corrupt;
    uint64_t first_ns, last_ns;
    SnicSim *sim;
} Receiver;

static void rx(void *opaque, unsigned src, const uint8_t *f, size_t len)
{
    Receiver *r = opaque;
    uint64_t now = snic_sim_now(r->sim);
    uint8_t want[FRAME_LEN];
    uint32_t n;

    g_checksum_update(r->digest, (const guchar *)&now, sizeof(now));
    g_checksum_update(r->digest, (const guchar *)&src, sizeof(src));
    g_checksum_update(r->digest, f, len);
    if (!r->frames++) {
        r->first_ns = now;
    }
    r->last_ns = now;
    if (len != FRAME_LEN) {
        r->corrupt++;
        return;
    }
    n = (uint32_t)f[14] << 24 | f[15] << 16 | f[16] << 8 | f[17];
    if (n >= r->nseq) {
        r->corrupt++;
        return;
    }
    make_frame(want, n);
    if (memcmp(want, f, FRAME_LEN)) {
        r->corrupt++;           /* any flipped bit, the seq field included */
        return;
    }
    if (r->seen[n]++) {
        r->dups++;
        return;
    }
    if (r->any && n < r->max_seq) {
        r->late++;
    }
    if (!r->any || n > r->max_seq) {
        r->max_seq = n;
    }
    r->any = true;
}

static Receiver *receiver_new(SnicSim *s, uint32_t nseq)
{
    Receiver *r = g_new0(Receiver, 1);

    r->digest = g_checksum_new(G_CHECKSUM_SHA256);
    r->seen = g_malloc0(nseq);
    r->nseq = nseq;
    r->sim = s;
    return r;
}

static void receiver_free(Receiver *r)
{
    g_checksum_free(r->digest);
    g_free(r->seen);
    g_free(r);
}

static void sink(void *opaque, unsigned src, const uint8_t *f, size_t len)
{
}

static const SnicSimLinkConfig impaired = {
    .bandwidth_bps = 10000000000ull,
    .delay_ns = 2000,
    .loss = 0.05,
    .dup = 0.02,
    .reorder = 0.03,
    .corrupt = 0.01,
};

/* Send n frames from endpoint 0 to 1, one every 'gap' ns; run to the end. */
static Receiver *run(uint64_t seed, uint32_t n, uint64_t gap,
                     const SnicSimLinkConfig *cfg, SnicSim **out)
{
    SnicSim *s = snic_sim_new(seed);
    Receiver *r = receiver_new(s, n);
    uint8_t f[FRAME_LEN];
    uint32_t i;

    snic_sim_add_endpoint(s, sink, NULL);
    snic_sim_add_endpoint(s, rx, r);
    snic_sim_link(s, 0, 1, cfg);
    for (i = 0; i < n; i++) {
        snic_sim_run_until(s, (uint64_t)i * gap);
        make_frame(f, i);
        g_assert_true(snic_sim_send(s, 0, 1, f, sizeof(f)));
    }
    snic_sim_run(s, UINT64_MAX);
    if (out) {
        *out = s;
    } else {
        snic_sim_free(s);
    }
    return r;
}

static void test_repeatable(void)
{
    Receiver *a = run(42, 20000, 100, &impaired, NULL);
    Receiver *b = run(42, 20000, 100, &impaired, NULL);
    Receiver *c = run(43, 20000, 100, &impaired, NULL);

    g_assert_cmpuint(a->frames, >, 0);
    g_assert_cmpstr(g_checksum_get_string(a->digest), ==,
                    g_checksum_get_string(b->digest));
    g_assert_cmpuint(a->frames, ==, b->frames);
    g_assert_cmpstr(g_checksum_get_string(a->digest), !=,
                    g_checksum_get_string(c->digest));
    receiver_free(a);
    receiver_free(b);
    receiver_free(c);
}

static void assert_rate(const char *what, double measured, double want)
{
    g_test_message("%s: measured %.4f, configured %.4f", what, measured,
                   want);
    g_assert_cmpfloat(measured, >=, want * 0.9);
    g_assert_cmpfloat(measured, <=, want * 1.1);
}

static void test_rates(void)
{
    const uint32_t n = 100000;
    SnicSim *s;
    Receiver *r = run(7, n, 100, &impaired, &s);
    const SnicSimLinkStats *st = snic_sim_link_stats(s, 0, 1);
    uint64_t unique = 0, i;

    for (i = 0; i < n; i++) {
        unique += r->seen[i] ? 1 : 0;
    }
    /*
     * Loss is what never arrived intact (corrupted copies are not
     * counted as arrivals); duplicates, late frames and corruption are
     * relative to what the link carried.
     */
    assert_rate("loss", 1.0 - (double)(unique + st->corrupted) / n,
                impaired.loss);
    assert_rate("duplication", (double)r->dups / (n - st->lost),
                impaired.dup);
    assert_rate("reordering", (double)r->late / (n - st->lost),
                impaired.reorder);
    assert_rate("corruption", (double)r->corrupt / r->frames,
                impaired.corrupt);
    /* the link's own counters agree with what the receiver saw */
    g_assert_cmpuint(st->sent, ==, n);
    g_assert_cmpuint(st->delivered, ==, r->frames);
    g_assert_cmpuint(st->delivered, ==, n - st->lost + st->duplicated);
    receiver_free(r);
    snic_sim_free(s);
}

static void test_bandwidth_and_delay(void)
{
    const SnicSimLinkConfig cfg = {
        .bandwidth_bps = 10000000000ull,    /* 10 Gb/s: 64 B in 51.2 ns */
        .delay_ns = 5000,
    };
    const uint32_t n = 1000;
    SnicSim *s;
    Receiver *r;
    uint64_t tx = (uint64_t)(FRAME_LEN * 8 * 1e9 / 1e10);

    /* back to back: the queue drains at line rate */
    r = run(1, n, 0, &cfg, &s);
    g_assert_cmpuint(r->frames, ==, n);
    g_assert_cmpuint(r->first_ns, ==, tx + cfg.delay_ns);
    g_assert_cmpuint(r->last_ns, ==, n * tx + cfg.delay_ns);
    g_assert_cmpuint(r->late, ==, 0);
    /* the last frame found the other n - 1 still queued */
    g_assert_cmpuint(snic_sim_link_stats(s, 0, 1)->max_queue_bytes, ==,
                     (uint64_t)((n - 1) * tx * 1.25));
    receiver_free(r);
    snic_sim_free(s);
    /* spaced out: every frame sees only the serialisation and the delay */
    r = run(1, n, 1000, &cfg, &s);
    g_assert_cmpuint(r->last_ns, ==, (n - 1) * 1000ull + tx + cfg.delay_ns);
    g_assert_cmpuint(snic_sim_link_stats(s, 0, 1)->max_queue_bytes, ==, 0);
    receiver_free(r);
    snic_sim_free(s);
}

/* Arrival times and sources at endpoint 1 */
typedef struct Arrivals {
    SnicSim *sim;
    GArray *at;             /* uint64_t */
    unsigned bad_src;
} Arrivals;

static void arrival(void *opaque, unsigned src, const uint8_t *f, size_t len)
{
    Arrivals *a = opaque;
    uint64_t now = snic_sim_now(a->sim);

    a->bad_src += src != 0;
    g_array_append_val(a->at, now);
}

/*
 * A spray group of four lanes of 1, 2, 4 and 8 us: round robin sends frame
 * i over lane i % 4, each lane serialising on its own; at random, every
 * lane is taken about a quarter of the time, the same lanes for a seed
 */
static void test_spray(void)
{
    SnicSimLinkConfig lanes[4];
    const uint64_t tx = (uint64_t)(FRAME_LEN * 8 * 1e9 / 1e10);
    uint8_t f[FRAME_LEN];
    uint64_t per_lane[3][4];
    unsigned i, k, run;

    /* round robin; random with seed 4, 5, and 4 again */
    for (run = 0; run < 4; run++) {
        SnicSim *s = snic_sim_new(run == 2 ? 5 : 4);
        Arrivals a = { s, g_array_new(false, false, sizeof(uint64_t)), 0 };
        bool rr = run == 0;
        unsigned n = rr ? 8 : 40000;

        for (k = 0; k < 4; k++) {
            lanes[k] = (SnicSimLinkConfig) {
                .bandwidth_bps = 10000000000ull, .delay_ns = 1000u << k,
            };
        }
        snic_sim_add_endpoint(s, sink, NULL);
        snic_sim_add_endpoint(s, arrival, &a);
        snic_sim_spray(s, 0, 1, lanes, 4, rr ? SNIC_SIM_SPRAY_ROUND_ROBIN :
                       SNIC_SIM_SPRAY_RANDOM);
        for (i = 0; i < n; i++) {
            make_frame(f, i);
            g_assert_true(snic_sim_send(s, 0, 1, f, sizeof(f)));
        }
        snic_sim_run(s, UINT64_MAX);
        g_assert_cmpuint(a.at->len, ==, n);
        g_assert_cmpuint(a.bad_src, ==, 0);
        g_assert_cmpuint(snic_sim_link_stats(s, 0, 1)->delivered, ==, n);
        if (rr) {
            /* lane k: frames k and k + 4, back to back, after its delay */
            static const uint64_t want[] = {
                1000 + tx, 1000 + 2 * tx, 2000 + tx, 2000 + 2 * tx,
                4000 + tx, 4000 + 2 * tx, 8000 + tx, 8000 + 2 * tx,
            };
            for (i = 0; i < n; i++) {
                g_assert_cmpuint(g_array_index(a.at, uint64_t, i), ==,
                                 want[i]);
            }
            for (k = 0; k < 4; k++) {
                g_assert_cmpuint(snic_sim_lane_stats(s, 0, 1, k)->sent, ==, 2);
            }
        } else {
            for (k = 0; k < 4; k++) {
                per_lane[run - 1][k] = snic_sim_lane_stats(s, 0, 1, k)->sent;
                g_assert_cmpuint(per_lane[run - 1][k], >, n / 4 - n / 40);
                g_assert_cmpuint(per_lane[run - 1][k], <, n / 4 + n / 40);
            }
        }
        g_assert_null(snic_sim_lane_stats(s, 0, 1, 4));
        g_array_free(a.at, true);
        snic_sim_free(s);
    }
    /* another seed, other lanes; the same seed, the same lanes */
    g_assert_cmpint(memcmp(per_lane[0], per_lane[1], sizeof(per_lane[0])),
                    !=, 0);
    g_assert_cmpint(memcmp(per_lane[0], per_lane[2], sizeof(per_lane[0])),
                    ==, 0);
}

typedef struct EcnCount {
    unsigned ce, ect, not_ect, bad_csum;
} EcnCount;

static void ecn_rx(void *opaque, unsigned src, const uint8_t *f, size_t len)
{
    EcnCount *c = opaque;

    c->bad_csum += snic_ipv4_checksum(f + 14) != 0;
    switch (f[15] & 3) {
    case 3:
        c->ce++;
        break;
    case 0:
        c->not_ect++;
        break;
    default:
        c->ect++;
    }
}

static void test_ecn_marking(void)
{
    const SnicSimLinkConfig cfg = {
        .bandwidth_bps = 1000000000ull,     /* 1 Gb/s: 1000 B in 8 us */
        .delay_ns = 1000,
        .ecn_threshold = 10000,
    };
    SnicSim *s = snic_sim_new(5);
    EcnCount c = { 0 };
    uint8_t f[1000];
    int i;

    snic_sim_add_endpoint(s, sink, NULL);
    snic_sim_add_endpoint(s, ecn_rx, &c);
    snic_sim_link(s, 0, 1, &cfg);
    memset(f, 0, sizeof(f));
    f[12] = 0x08;
    f[14] = 0x45;
    for (i = 0; i < 60; i++) {
        uint16_t csum;

        f[15] = i % 2 ? 0x02 : 0x00;    /* odd frames ECT(0) */
        f[24] = f[25] = 0;
        csum = snic_ipv4_checksum(f + 14);
        f[24] = csum >> 8;
        f[25] = csum;
        snic_sim_send(s, 0, 1, f, sizeof(f));
    }
    snic_sim_run(s, UINT64_MAX);
    /* frames 0..10 see at most 10000 queued bytes; after that, ECT -> CE */
    g_assert_cmpuint(c.not_ect, ==, 30);
    g_assert_cmpuint(c.ce, ==, snic_sim_link_stats(s, 0, 1)->ecn_marked);
    g_assert_cmpuint(c.ce, ==, 25);     /* odd frames 11, 13, ..., 59 */
    g_assert_cmpuint(c.ect, ==, 5);
    g_assert_cmpuint(c.bad_csum, ==, 0);
    snic_sim_free(s);
}

static GString *timer_log;

static void timer_fn(void *opaque)
{
    g_string_append(timer_log, opaque);
}

static void test_timers(void)
{
    SnicSim *s = snic_sim_new(1);
    uint64_t cancel;

    timer_log = g_string_new("");
    snic_sim_timer_add(s, 300, timer_fn, "c");
    snic_sim_timer_add(s, 100, timer_fn, "a");
    cancel = snic_sim_timer_add(s, 200, timer_fn, "x");
    snic_sim_timer_add(s, 300, timer_fn, "d");     /* same time: FIFO */
    snic_sim_timer_add(s, 200, timer_fn, "b");
    snic_sim_timer_cancel(s, cancel);
    snic_sim_run_until(s, 250);
    g_assert_cmpstr(timer_log->str, ==, "ab");
    g_assert_cmpuint(snic_sim_now(s), ==, 250);
    g_assert_cmpuint(snic_sim_run(s, UINT64_MAX), ==, 2);
    g_assert_cmpstr(timer_log->str, ==, "abcd");
    g_assert_cmpuint(snic_sim_now(s), ==, 300);
    g_assert_false(snic_sim_send(s, 0, 1, "x", 1));    /* no such link */
    g_string_free(timer_log, true);
    snic_sim_free(s);
}

static void test_capture(void)
{
    const SnicSimLinkConfig cfg = { .delay_ns = 1000 };
    g_autofree char *dir = g_dir_make_tmp("snic-sim-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "cap.pcap", NULL);
    g_autofree char *data = NULL;
    SnicSim *s = snic_sim_new(1);
    uint8_t f[FRAME_LEN];
    gsize len;
    int i;

    snic_sim_add_endpoint(s, sink, NULL);
    snic_sim_add_endpoint(s, sink, NULL);
    snic_sim_connect(s, 0, 1, &cfg);
    g_assert_cmpint(snic_sim_capture(s, path), ==, 0);
    for (i = 0; i < 5; i++) {
        make_frame(f, i);
        snic_sim_send(s, i % 2, !(i % 2), f, sizeof(f));
    }
    snic_sim_run(s, UINT64_MAX);
    snic_sim_free(s);   /* closes the capture */
    g_assert_true(g_file_get_contents(path, &data, &len, NULL));
    /* 24-byte file header + 5 x (16-byte record header + frame) */
    g_assert_cmpuint(len, ==, 24 + 5 * (16 + FRAME_LEN));
    g_assert_cmphex(*(uint32_t *)data, ==, 0xa1b23c4d);
    /* first record: stamped at 1000 ns */
    g_assert_cmpuint(*(uint32_t *)(data + 24 + 4), ==, 1000);
    g_unlink(path);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sim/repeatable", test_repeatable);
    g_test_add_func("/sim/rates", test_rates);
    g_test_add_func("/sim/bandwidth-and-delay", test_bandwidth_and_delay);
    g_test_add_func("/sim/ecn-marking", test_ecn_marking);
    g_test_add_func("/sim/timers", test_timers);
    g_test_add_func("/sim/spray", test_spray);
    g_test_add_func("/sim/capture", test_capture);
    return g_test_run();
}
