/*
 * Core engine benchmark: two device cores on the simulated wire (no
 * serialisation or propagation delay, DMA = memcpy into plain memory),
 * driven through doorbells and rings like a driver.
 *
 *   64 KiB RDMA WRITEs: Gbit/s, and the ratio to a plain memcpy of the
 *   same bytes measured in the same run (the floor any design pays);
 *   64-byte SENDs: messages per second;
 *   the 64 KiB WRITEs again into a QP with a HyperLogLog sketch (every
 *   4-byte item of the payload hashed as it is placed): Gbit/s and the
 *   ratio to the WRITEs without one, measured in the same run.
 *
 * Each timed figure is the median of REPS runs (5; --once: 1, no HLL
 * run, for callgrind). Wall-clock figures vary with the machine and its
 * load; the memcpy ratio is the comparable number. scripts/bench-engine.sh
 * also counts the instructions of bench_window_writes() and
 * bench_window_sends() under callgrind. Build without sanitizers
 * (scripts/bench-engine.sh).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "engine-node.h"
#include "objects/qp.h"

#define MSG         65536u
#define RECV_BUF    (BUF + 0x200000)
#define REPS        5

/* Consume every new completion; returns how many (exits on an error). */
static unsigned drain(Node *n)
{
    struct snic_cqe c;
    unsigned got = 0;

    while (node_poll_cq(n, &c)) {
        if (c.status != SNIC_WC_SUCCESS) {
            fprintf(stderr, "bench: completion status %u\n", c.status);
            exit(1);
        }
        got++;
    }
    return got;
}

static double run_writes(SnicSim *sim, Node *a, Node *b, unsigned count)
{
    unsigned posted = 0, done = 0;
    int64_t t0 = g_get_monotonic_time();

    while (done < count) {
        while (posted < count && posted - done < 128) {
            node_post_send(a, posted, SNIC_WR_RDMA_WRITE, BUF, MSG, RECV_BUF,
                           b->lkey, 0, a->lkey);
            posted++;
        }
        snic_sim_run(sim, UINT64_MAX);
        done += drain(a);
    }
    return (g_get_monotonic_time() - t0) / 1e6;
}

static double run_sends(SnicSim *sim, Node *a, Node *b, unsigned count)
{
    unsigned posted = 0, done = 0;
    int64_t t0 = g_get_monotonic_time();

    while (done < count) {
        while (posted < count && posted - done < 128) {
            node_post_recv(b, posted, RECV_BUF, 4096);
            node_post_send(a, posted, SNIC_WR_SEND, BUF, 64, 0, 0, 0,
                           a->lkey);
            posted++;
        }
        snic_sim_run(sim, UINT64_MAX);
        done += drain(a);
        drain(b);
    }
    return (g_get_monotonic_time() - t0) / 1e6;
}

/*
 * The measured windows: callgrind counts these (--toggle-collect), so
 * they stay out-of-line functions of their own
 */
__attribute__((noinline))
double bench_window_writes(SnicSim *sim, Node *a, Node *b, unsigned count);
__attribute__((noinline))
double bench_window_sends(SnicSim *sim, Node *a, Node *b, unsigned count);

double bench_window_writes(SnicSim *sim, Node *a, Node *b, unsigned count)
{
    return run_writes(sim, a, b, count);
}

double bench_window_sends(SnicSim *sim, Node *a, Node *b, unsigned count)
{
    return run_sends(sim, a, b, count);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

/* The median of n seconds (sorts them) */
static double median(double *t, unsigned n)
{
    qsort(t, n, sizeof(*t), cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* The 64 KiB WRITEs into a QP of b with a sketch attached: seconds */
static double run_hll_writes(unsigned count)
{
    static const NodeDev dev = {
        .cfg = { .hll_sketches = 1,
                 .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY },
    };
    const SnicSimLinkConfig wire = { 0 };
    SnicSim *sim = snic_sim_new(1);
    struct snic_admin_cmd cmd;
    double t;
    Node a, b;

    node_init_dev(&a, sim, 1, &dev);
    node_init_dev(&b, sim, 2, &dev);
    snic_sim_port_connect(&a.h->port, &b.h->port, &wire);
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_4096, 7, 7);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ATTACH_HLL, sizeof(cmd.hll));
    cmd.hll.qpn = GUINT32_TO_LE(b.qpn);
    node_admin_ok(b.h, &cmd);
    run_writes(sim, &a, &b, 100);           /* warm up */
    t = run_writes(sim, &a, &b, count);
    node_pair_free(sim, &a, &b);
    return t;
}

int main(int argc, char **argv)
{
    const SnicSimLinkConfig wire = { 0 };   /* the engine, not the wire */
    bool once = argc > 1 && !strcmp(argv[1], "--once");
    unsigned writes = argc > 1 + once ? atoi(argv[1 + once]) : 4000;
    unsigned sends = argc > 2 + once ? atoi(argv[2 + once]) : 100000;
    unsigned reps = once ? 1 : REPS;
    SnicSim *sim = snic_sim_new(1);
    uint8_t *src = g_malloc(MSG), *dst = g_malloc(MSG);
    double t_eng[REPS], t_copy[REPS], t_send[REPS], t_hll[REPS];
    double gbps, copy_gbps, hll_gbps, eng, copy, send, hll = 0;
    volatile uint8_t sink = 0;
    int64_t t0;
    Node a, b;
    unsigned i, r;

    node_pair_new(sim, &a, &b, &wire, SNIC_MTU_4096, 7, 7);

    run_writes(sim, &a, &b, 100);           /* warm up */
    memset(src, 1, MSG);
    for (r = 0; r < reps; r++) {
        t_eng[r] = bench_window_writes(sim, &a, &b, writes);
        t0 = g_get_monotonic_time();
        for (i = 0; i < writes; i++) {
            src[i % MSG] = i;
            memcpy(dst, src, MSG);
            sink ^= dst[(i * 7) % MSG];
        }
        t_copy[r] = (g_get_monotonic_time() - t0) / 1e6;
        t_send[r] = bench_window_sends(sim, &a, &b, sends);
        if (!once) {
            t_hll[r] = run_hll_writes(writes);
        }
    }
    eng = median(t_eng, reps);
    copy = median(t_copy, reps);
    send = median(t_send, reps);
    if (!once) {
        hll = median(t_hll, reps);
    }

    gbps = (double)writes * MSG * 8 / eng / 1e9;
    copy_gbps = (double)writes * MSG * 8 / copy / 1e9;
    printf("snic core engine benchmark (two cores, simulated wire, "
           "memcpy DMA; median of %u runs)\n", reps);
    printf("  64 KiB RDMA WRITE : %8.2f Gbit/s  (%u writes in %.3f s)\n",
           gbps, writes, eng);
    printf("  plain memcpy      : %8.2f Gbit/s  (same bytes, same run)\n",
           copy_gbps);
    printf("  ratio to memcpy   : %8.3f\n", gbps / copy_gbps);
    printf("  64 B SEND         : %8.0f messages/s  (%u in %.3f s)\n",
           sends / send, sends, send);
    if (!once) {
        hll_gbps = (double)writes * MSG * 8 / hll / 1e9;
        printf("  64 KiB WRITE, HLL : %8.2f Gbit/s  (into a QP with a "
               "HyperLogLog sketch; %.3f of the WRITEs without)\n",
               hll_gbps, hll_gbps / gbps);
    }
    printf("  per-QP state      : %8zu bytes\n", sizeof(SnicQp));
    g_free(src);
    g_free(dst);
    node_pair_free(sim, &a, &b);
    return sink == 0xff ? 0 : 0;
}
