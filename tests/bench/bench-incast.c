/*
 * A 16-to-1 incast through the simulated switch (not a test: it only
 * measures). Sixteen engine nodes, each its own NIC with the SRNIC timing
 * model, WRITE 256 KiB each (4 x 64 KiB, 4 KiB MTU) into a seventeenth;
 * 100 Gb/s links with 1 us of delay; one switch with a 1 MiB shared
 * buffer. Run twice: lossless (PFC on priority 3, XOFF 32 KiB, XON 16 KiB,
 * the NICs obeying PAUSE) and lossy (drop-tail, go-back-N recovers).
 *
 * Prints the receiver's egress queue over virtual time for both runs, then
 * per run: completion time, goodput, drops, PAUSE frames, paused time,
 * retransmissions, maximum queue and buffer. All virtual time: the
 * figures are the same on every machine.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "fabric.h"

#define SENDERS     16
#define MSG         (64u << 10)
#define MSGS        4
#define SAMPLE_NS   5000
#define MAX_SAMPLES 100000

typedef struct Run {
    const char *name;
    bool pfc;
    uint64_t end_ns;
    uint64_t dropped;
    uint64_t pause_sent;
    uint64_t paused_ns;         /* summed over the senders' MACs */
    uint64_t retransmits;
    uint64_t max_queue;
    uint64_t max_buffer;
    unsigned nsamples;
    uint64_t *queue;            /* receiver's egress queue, every SAMPLE_NS */
} Run;

typedef struct Sampler {
    Fabric *f;
    Run *run;
} Sampler;

/* Every SAMPLE_NS until the run ends (its last timer never fires). */
static void sample(void *opaque)
{
    Sampler *s = opaque;

    if (s->run->nsamples == MAX_SAMPLES) {
        return;
    }
    s->run->queue[s->run->nsamples++] =
        snic_sim_switch_queue_bytes(s->f->sw, 0);
    snic_sim_timer_add(s->f->sim, snic_sim_now(s->f->sim) + SAMPLE_NS,
                       sample, s);
}

static void run_incast(Run *r)
{
    SnicSimNicTiming timing = snic_sim_srnic_timing;
    FabricConfig cfg = {
        .nodes = SENDERS + 1,
        .seed = 1,
        .sw = {
            .buffer_bytes = 1 << 20,
            .default_priority = SNIC_SIM_ROCE_PRIORITY,
            .pfc_priorities = r->pfc ? 1u << SNIC_SIM_ROCE_PRIORITY : 0,
            .pfc_xoff = 32 << 10,
            .pfc_xon = 16 << 10,
        },
        .link = {
            .bandwidth_bps = SNIC_SIM_SRNIC_LINE_RATE_BPS,
            .delay_ns = 1000,
        },
        .timing = &timing,
    };
    Node rx[SENDERS];
    Sampler smp = { .run = r };
    unsigned i, m, done = 0;
    struct snic_cqe c;
    Fabric f;

    timing.obey_pause = r->pfc;
    fabric_new(&f, &cfg);
    smp.f = &f;
    r->queue = g_new0(uint64_t, MAX_SAMPLES);
    for (i = 1; i <= SENDERS; i++) {
        fabric_flow(&f, i, 0, SNIC_MTU_4096, &rx[i - 1]);
        for (m = 0; m < MSGS; m++) {
            node_post_send(&f.node[i], m, SNIC_WR_RDMA_WRITE,
                           BUF + m * MSG, MSG,
                           BUF + ((i - 1) * MSGS + m) * (uint64_t)MSG,
                           f.node[0].lkey, 0, f.node[i].lkey);
        }
    }
    sample(&smp);
    while (done < SENDERS * MSGS && snic_sim_step(f.sim)) {
        for (i = 1; i <= SENDERS; i++) {
            while (node_poll_cq(&f.node[i], &c)) {
                if (c.status != SNIC_WC_SUCCESS) {
                    fprintf(stderr, "bench-incast: completion status %u\n",
                            c.status);
                    exit(1);
                }
                done++;
            }
        }
    }
    if (done < SENDERS * MSGS) {
        fprintf(stderr, "bench-incast: %u of %u WRITEs completed\n", done,
                SENDERS * MSGS);
        exit(1);
    }
    r->end_ns = snic_sim_now(f.sim);
    for (i = 1; i <= SENDERS; i++) {
        FakeHost *h = f.node[i].h;

        r->pause_sent += snic_sim_switch_port_stats(f.sw, i)->pause_sent;
        r->paused_ns += snic_sim_mac_paused_ns(&h->port.mac,
                                               SNIC_SIM_ROCE_PRIORITY);
        r->retransmits += h->events[SNIC_TRACE_RETRANSMIT];
    }
    r->dropped = snic_sim_switch_port_stats(f.sw, 0)->dropped;
    r->max_queue = snic_sim_switch_port_stats(f.sw, 0)->max_queue_bytes;
    r->max_buffer = snic_sim_switch_max_buffer_bytes(f.sw);
    fabric_free(&f);
}

/* One row per 20 us up to 400 us, then per 500 us. */
static bool print_row(uint64_t t_ns)
{
    return t_ns < 400000 ? t_ns % 20000 == 0 : t_ns % 500000 == 0;
}

static void print_cell(const Run *r, unsigned k)
{
    if (k < r->nsamples) {
        printf(" %14.1f", r->queue[k] / 1024.0);
    } else {
        printf(" %14s", "-");
    }
}

int main(int argc, char **argv)
{
    Run runs[2] = {
        { .name = "PFC", .pfc = true },
        { .name = "no PFC", .pfc = false },
    };
    unsigned k, i, rows;
    double bytes = (double)SENDERS * MSGS * MSG;

    for (i = 0; i < 2; i++) {
        run_incast(&runs[i]);
    }
    rows = MAX(runs[0].nsamples, runs[1].nsamples);
    printf("16-to-1 incast, 16 x 256 KiB RDMA WRITEs, 100 Gb/s, 1 MiB "
           "switch buffer\n");
    printf("receiver's egress queue (KiB) over virtual time:\n");
    printf("%10s %14s %14s\n", "time (us)", "PFC", "no PFC");
    for (k = 0; k < rows; k++) {
        if (!print_row((uint64_t)k * SAMPLE_NS)) {
            continue;
        }
        printf("%10.0f", k * SAMPLE_NS / 1000.0);
        print_cell(&runs[0], k);
        print_cell(&runs[1], k);
        printf("\n");
    }
    printf("\n%-8s %10s %9s %8s %8s %11s %8s %10s %11s\n", "run",
           "done (us)", "Gb/s", "drops", "PAUSEs", "paused (us)",
           "retrans", "max q KiB", "max buf KiB");
    for (i = 0; i < 2; i++) {
        const Run *r = &runs[i];

        printf("%-8s %10.1f %9.1f %8" PRIu64 " %8" PRIu64 " %11.1f %8"
               PRIu64 " %10.1f %11.1f\n", r->name, r->end_ns / 1000.0,
               bytes * 8 / r->end_ns, r->dropped, r->pause_sent,
               r->paused_ns / 1000.0, r->retransmits, r->max_queue / 1024.0,
               r->max_buffer / 1024.0);
        g_free(runs[i].queue);
    }
    printf("goodput: payload bytes over the time to the last completion; "
           "paused: summed over the 16 senders\n");
    return 0;
}
