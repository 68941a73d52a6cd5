/*
 * DCTCP incast in the simulator (see dctcp-incast.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "dctcp-incast.h"
#include "fabric.h"
#include "sr-host.h"

#define RECEIVER    DCTCP_FLOWS
#define MSG         (64u << 10)
#define OUTSTANDING 16
#define QUEUE_NS    1000        /* the queue's sampling period */

typedef struct Incast {
    const DctcpIncastConfig *cfg;
    DctcpIncastResult *r;
    Fabric f;
    Node rx[DCTCP_FLOWS];
    SrHost host[DCTCP_FLOWS];           /* SRNIC-DCTCP's senders */
    unsigned posted[DCTCP_FLOWS];
    uint64_t last_bytes[DCTCP_FLOWS];   /* at the last CSV row */
    uint64_t steady_bytes[DCTCP_FLOWS]; /* when the steady state began */
    double q_sum;
    uint64_t q_samples;
    unsigned next_flow;
} Incast;

static uint64_t rx_bytes(Incast *s, unsigned i)
{
    return snic_sim_switch_port_stats(s->f.sw, i)->rx_bytes;
}

/* The receiver's 4 MiB hold the WRITEs of 4 flows: the others share */
static void post(Incast *s, unsigned i)
{
    unsigned m = s->posted[i]++ % OUTSTANDING;

    node_post_send(&s->f.node[i], m, SNIC_WR_RDMA_WRITE, BUF + m * MSG, MSG,
                   BUF + (i % (BUF_LEN / MSG / OUTSTANDING) * OUTSTANDING +
                          m) * (uint64_t)MSG,
                   s->f.node[RECEIVER].lkey, 0, s->f.node[i].lkey);
}

/* The next flow starts: its WRITEs posted, the one after it timed */
static void start_flow(void *opaque)
{
    Incast *s = opaque;
    unsigned i = s->next_flow++, m;

    for (m = 0; m < OUTSTANDING; m++) {
        post(s, i);
    }
    if (s->next_flow < DCTCP_FLOWS) {
        snic_sim_timer_add(s->f.sim, snic_sim_now(s->f.sim) + DCTCP_STAGGER_NS,
                           start_flow, s);
    }
}

static void steady(void *opaque)
{
    Incast *s = opaque;
    unsigned i;

    for (i = 0; i < DCTCP_FLOWS; i++) {
        s->steady_bytes[i] = rx_bytes(s, i);
    }
}

static void sample_queue(void *opaque)
{
    Incast *s = opaque;
    uint64_t now = snic_sim_now(s->f.sim);
    uint64_t q = snic_sim_switch_queue_bytes(s->f.sw, RECEIVER);

    if (now >= s->cfg->steady_ns) {
        s->q_sum += q;
        s->q_samples++;
        s->r->q_max_steady = MAX(s->r->q_max_steady, q);
    }
    snic_sim_timer_add(s->f.sim, now + QUEUE_NS, sample_queue, s);
}

/* A CSV row: each flow's Gb/s into the switch since the last, the queue */
static void sample(void *opaque)
{
    Incast *s = opaque;
    uint64_t now = snic_sim_now(s->f.sim);
    unsigned i;

    fprintf(s->cfg->csv, "%.1f", now / 1000.0);
    for (i = 0; i < DCTCP_FLOWS; i++) {
        uint64_t b = rx_bytes(s, i);

        fprintf(s->cfg->csv, ",%.3f",
                (b - s->last_bytes[i]) * 8.0 / s->cfg->sample_ns);
        s->last_bytes[i] = b;
    }
    fprintf(s->cfg->csv, ",%.3f\n",
            snic_sim_switch_queue_bytes(s->f.sw, RECEIVER) / 1000.0);
    snic_sim_timer_add(s->f.sim, now + s->cfg->sample_ns, sample, s);
}

bool dctcp_incast_run(const DctcpIncastConfig *cfg, DctcpIncastResult *r)
{
    FabricConfig fc = {
        .nodes = DCTCP_FLOWS + 1,
        .seed = 1,
        .sw = {
            .buffer_bytes = 8u << 20,
            .default_priority = SNIC_SIM_ROCE_PRIORITY,
            .ecn_kmin = cfg->k_bytes - 1,
            .ecn_kmax = cfg->k_bytes,
            .ecn_pmax = 1,
        },
        .link = { .bandwidth_bps = DCTCP_LINK_BPS,
                  .delay_ns = DCTCP_LINK_DELAY_NS },
    };
    Incast *s = g_new0(Incast, 1);
    bool sr = cfg->program == SNIC_TRANSPORT_SRNIC_DCTCP;
    double sq = 0;
    struct snic_cqe c;
    bool ok = true;
    unsigned i;

    g_assert(cfg->steady_ns < cfg->run_ns && cfg->k_bytes > 1);
    memset(r, 0, sizeof(*r));
    s->cfg = cfg;
    s->r = r;
    fabric_new(&s->f, &fc);
    for (i = 0; i < DCTCP_FLOWS; i++) {
        fabric_flow_program(&s->f, i, RECEIVER, SNIC_MTU_1024, &s->rx[i],
                            sr ? SNIC_TRANSPORT_SRNIC_DCTCP :
                                 SNIC_TRANSPORT_DCTCP);
        if (sr) {
            sr_host_init(&s->host[i], &s->f.node[i], s->f.sim, 10, 8, 0);
        }
    }
    start_flow(s);
    snic_sim_timer_add(s->f.sim, cfg->steady_ns, steady, s);
    snic_sim_timer_add(s->f.sim, QUEUE_NS, sample_queue, s);
    if (cfg->csv) {
        fprintf(cfg->csv, "time_us");
        for (i = 0; i < DCTCP_FLOWS; i++) {
            fprintf(cfg->csv, ",flow%u_gbps", i);
        }
        fprintf(cfg->csv, ",queue_kb\n");
        snic_sim_timer_add(s->f.sim, cfg->sample_ns, sample, s);
    }
    while (ok && snic_sim_now(s->f.sim) < cfg->run_ns &&
           snic_sim_step(s->f.sim)) {
        for (i = 0; i < s->next_flow && ok; i++) {
            while (node_poll_cq(&s->f.node[i], &c)) {
                if (c.status != SNIC_WC_SUCCESS) {
                    fprintf(stderr, "dctcp incast: flow %u: status %u\n", i,
                            c.status);
                    ok = false;
                    break;
                }
                r->writes++;
                post(s, i);
            }
        }
    }
    for (i = 0; i < DCTCP_FLOWS; i++) {
        r->gbps[i] = (rx_bytes(s, i) - s->steady_bytes[i]) * 8.0 /
                     (snic_sim_now(s->f.sim) - cfg->steady_ns);
        r->sum_gbps += r->gbps[i];
        sq += r->gbps[i] * r->gbps[i];
    }
    r->jain = sq ? r->sum_gbps * r->sum_gbps / (DCTCP_FLOWS * sq) : 0;
    r->q_avg_steady = s->q_samples ? s->q_sum / s->q_samples : 0;
    r->q_max = snic_sim_switch_port_stats(s->f.sw, RECEIVER)->max_queue_bytes;
    r->marked = snic_sim_switch_port_stats(s->f.sw, RECEIVER)->ecn_marked;
    r->dropped = snic_sim_switch_port_stats(s->f.sw, RECEIVER)->dropped;
    for (i = 0; sr && i < DCTCP_FLOWS; i++) {
        sr_host_free(&s->host[i]);
    }
    fabric_free(&s->f);
    g_free(s);
    return ok;
}
