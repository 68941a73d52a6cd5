/*
 * Tonic (NSDI'20) reproductions in the simulator, for scripts/repro/tonic.sh
 * (not a test: it only reports; virtual time, the same on every machine).
 *
 *   tonic-repro table
 *     Table 3's columns the device can tell: every transport program the
 *     core registers, asked with QUERY_TRANSPORT (qpn 0) from program 0
 *     until the device answers BAD_PARAM, as CSV: program, credit type,
 *     own state bytes, Tonic's limit for its credit type, QPC bytes of a
 *     QP running it. (tonic.sh adds the lines of code of its source.)
 *
 *   tonic-repro fig4 MS SAMPLE_US
 *     Section 6.2.2 / Fig 4: two DCQCN flows from two NICs through one
 *     switch to one receiver; every link 40 Gb/s, 1 us each way (RTT 4 us
 *     through the switch), 1 KiB MTU (Tonic: 1000 B segments); the
 *     receiver's egress port is the bottleneck and marks ECT frames CE
 *     with RED (DCQCN paper: Kmin 5 KB, Kmax 200 KB, Pmax 1 %). Flow 0
 *     starts at 0, flow 1 at a tenth of the run, both always backlogged
 *     (16 WRITEs of 64 KiB outstanding). Every SAMPLE_US: each flow's
 *     throughput into the switch over the last interval and its DCQCN
 *     rate (Rc), as CSV, for MS milliseconds of virtual time.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include "core_int.h"
#include "fabric.h"

#define FLOWS       2
#define RECEIVER    2
#define MSG         (64u << 10)
#define OUTSTANDING 16

static int table(void)
{
    SnicSim *sim = snic_sim_new(1);
    struct snic_transport_info t;
    struct snic_admin_cmd cmd;
    unsigned p;
    Node n;

    node_init(&n, sim, 1);
    printf("program,credit,state_bytes,state_max,qpc_bytes\n");
    for (p = 0; p < 256; p++) {
        uint16_t st;

        snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_TRANSPORT,
                            sizeof(cmd.query_transport));
        cmd.query_transport.program = p;
        cmd.query_transport.resp_addr = GUINT64_TO_LE(FAKE_RESP);
        st = fake_admin(n.h, &cmd, NULL);
        if (st == SNIC_ADMIN_BAD_PARAM) {
            break;
        }
        if (st != SNIC_ADMIN_OK) {
            fprintf(stderr, "tonic-repro: QUERY_TRANSPORT %u: status %u\n",
                    p, st);
            return 1;
        }
        fake_read(n.h, FAKE_RESP, &t, sizeof(t));
        t.name[sizeof(t.name) - 1] = 0;
        printf("%s,%s,%u,%u,%u\n", t.name,
               t.credit == SNIC_CREDIT_TYPE_WINDOW ? "window" :
               t.credit == SNIC_CREDIT_TYPE_RATE ? "rate" : "token",
               GUINT16_FROM_LE(t.state_bytes), GUINT16_FROM_LE(t.state_max),
               GUINT32_FROM_LE(t.qpc_bytes));
    }
    fake_host_free(n.h);
    snic_sim_free(sim);
    return p ? 0 : 1;
}

typedef struct Fig4 {
    Fabric f;
    Node rx[FLOWS];
    uint64_t sample_ns;
    uint64_t last_bytes[FLOWS];
    unsigned posted[FLOWS];
} Fig4;

static void post(Fig4 *s, unsigned i)
{
    unsigned m = s->posted[i]++ % OUTSTANDING;

    node_post_send(&s->f.node[i], m, SNIC_WR_RDMA_WRITE, BUF + m * MSG, MSG,
                   BUF + (i * OUTSTANDING + m) * (uint64_t)MSG,
                   s->f.node[RECEIVER].lkey, 0, s->f.node[i].lkey);
}

static void start_flow(void *opaque)
{
    Fig4 *s = opaque;
    unsigned m;

    for (m = 0; m < OUTSTANDING; m++) {
        post(s, 1);
    }
}

/* One CSV row: per flow, Gb/s into the switch since the last, and Rc */
static void sample(void *opaque)
{
    Fig4 *s = opaque;
    uint64_t now = snic_sim_now(s->f.sim);
    unsigned i;

    printf("%.1f", now / 1000.0);
    for (i = 0; i < FLOWS; i++) {
        uint64_t b = snic_sim_switch_port_stats(s->f.sw, i)->rx_bytes;
        SnicQp *qp = snic_qp_get(s->f.node[i].h->core, s->f.node[i].qpn);
        const SnicRateCredit *rc = snic_rate_credit(qp);

        printf(",%.3f,%.3f", (b - s->last_bytes[i]) * 8.0 / s->sample_ns,
               rc ? rc->mbps / 1000.0 : 0.0);
        s->last_bytes[i] = b;
    }
    printf("\n");
    snic_sim_timer_add(s->f.sim, now + s->sample_ns, sample, s);
}

static int fig4(uint64_t ms, uint64_t sample_us)
{
    FabricConfig cfg = {
        .nodes = FLOWS + 1,
        .seed = 1,
        .sw = {
            .buffer_bytes = 4u << 20,
            .default_priority = SNIC_SIM_ROCE_PRIORITY,
            .ecn_kmin = 5000,
            .ecn_kmax = 200000,
            .ecn_pmax = 0.01,
        },
        .link = { .bandwidth_bps = 40000000000ull, .delay_ns = 1000 },
    };
    Fig4 *s = g_new0(Fig4, 1);
    uint64_t end = ms * 1000000;
    struct snic_cqe c;
    unsigned i, m;

    s->sample_ns = sample_us * 1000;
    fabric_new(&s->f, &cfg);
    for (i = 0; i < FLOWS; i++) {
        fabric_flow_program(&s->f, i, RECEIVER, SNIC_MTU_1024, &s->rx[i],
                            SNIC_TRANSPORT_DCQCN);
    }
    for (m = 0; m < OUTSTANDING; m++) {
        post(s, 0);
    }
    snic_sim_timer_add(s->f.sim, end / 10, start_flow, s);
    printf("time_us,flow0_gbps,flow0_rate_gbps,flow1_gbps,flow1_rate_gbps\n");
    snic_sim_timer_add(s->f.sim, s->sample_ns, sample, s);
    while (snic_sim_now(s->f.sim) < end && snic_sim_step(s->f.sim)) {
        for (i = 0; i < FLOWS; i++) {
            while (node_poll_cq(&s->f.node[i], &c)) {
                if (c.status != SNIC_WC_SUCCESS) {
                    fprintf(stderr, "tonic-repro: flow %u: status %u\n", i,
                            c.status);
                    return 1;
                }
                post(s, i);
            }
        }
    }
    fprintf(stderr, "tonic-repro: fig4: %" G_GUINT64_FORMAT " CE marks, "
            "%" G_GUINT64_FORMAT " drops at the bottleneck\n",
            snic_sim_switch_port_stats(s->f.sw, RECEIVER)->ecn_marked,
            snic_sim_switch_port_stats(s->f.sw, RECEIVER)->dropped);
    fabric_free(&s->f);
    g_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "table")) {
        return table();
    }
    if (argc == 4 && !strcmp(argv[1], "fig4") && atoi(argv[2]) > 0 &&
        atoi(argv[3]) > 0) {
        return fig4(atoi(argv[2]), atoi(argv[3]));
    }
    fprintf(stderr, "usage: tonic-repro table | fig4 MS SAMPLE_US\n");
    return 2;
}
