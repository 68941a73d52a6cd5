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
 *   tonic-repro fig3 SEGMENTS DROPS
 *     Section 6.2.1 / Fig 3a-b: one NewReno flow of SEGMENTS 1 KiB
 *     segments (WRITEs of 64 KiB, the last one less, 16 outstanding) over a 10 Gb/s wire
 *     with 5 us delay each way (RTT 10 us); the responder acknowledges
 *     every packet. A tap on the sender's side of the wire sees every
 *     frame the sender transmits and drops the data packets whose PSN,
 *     less the first PSN (the segment index), is in DROPS (comma
 *     separated, "-" for none), the first time only. CSV rows
 *     "cwnd,TIME_US,SEGMENTS,0" when the QP's window changes and
 *     "tx,TIME_US,INDEX,RTX" for every transmitted packet (RTX 1: an index
 *     not above the highest sent before), the rows tonic-ns3-newreno
 *     prints for ns-3's TcpNewReno on the same scenario.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include "core_int.h"
#include "fabric.h"
#include "port/wire.h"
#include "objects/qp.h"
#include "transport/transport.h"

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

typedef struct Fig3 {
    SnicSim *sim;
    Node a, b;
    unsigned tap, peer;         /* the tap's endpoint; where it forwards */
    GHashTable *drops;          /* segment indices still to drop */
    bool started;
    uint32_t first_psn, highest;
    uint64_t posted, msgs, bytes;
} Fig3;

/* Every frame the sender transmits: record it, drop it or pass it on */
static void tap_recv(void *opaque, unsigned src, const uint8_t *frame,
                     size_t len)
{
    Fig3 *s = opaque;
    SnicPkt p;
    uint32_t idx;

    if (snic_wire_parse(frame, len, &p) != SNIC_PARSE_OK) {
        fprintf(stderr, "tonic-repro: fig3: a frame the parser refuses\n");
        exit(1);
    }
    if (!s->started) {
        s->started = true;
        s->first_psn = p.psn;
    }
    idx = (p.psn - s->first_psn) & SNIC_PSN_MASK;
    printf("tx,%.3f,%u,%d\n", snic_sim_now(s->sim) / 1000.0, idx,
           s->highest && idx <= s->highest - 1);
    s->highest = MAX(s->highest, idx + 1);
    if (g_hash_table_remove(s->drops, GUINT_TO_POINTER(idx))) {
        return;
    }
    snic_sim_send(s->sim, s->tap, s->peer, frame, len);
}

static void fig3_post(Fig3 *s)
{
    unsigned m = s->posted % OUTSTANDING;
    uint32_t len = MIN(MSG, s->bytes - s->posted * MSG);   /* the last: less */

    node_post_send(&s->a, m, SNIC_WR_RDMA_WRITE, BUF + m * MSG, len,
                   BUF + m * MSG, s->b.lkey, 0, s->a.lkey);
    s->posted++;
}

static int fig3(unsigned segments, const char *drops)
{
    SnicSimLinkConfig wire = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 5000,
    };
    SnicSimLinkConfig instant = { 0 };
    Fig3 *s = g_new0(Fig3, 1);
    SnicQp *qp;
    uint32_t window = 0;
    struct snic_cqe c;
    uint64_t done = 0;
    char **tok, **t;

    s->drops = g_hash_table_new(NULL, NULL);
    tok = g_strsplit(drops, ",", -1);
    for (t = tok; strcmp(drops, "-") && *t; t++) {
        g_hash_table_add(s->drops, GUINT_TO_POINTER(atoi(*t)));
    }
    g_strfreev(tok);
    s->bytes = segments * 1024ull;
    s->msgs = (s->bytes + MSG - 1) / MSG;
    s->sim = snic_sim_new(1);
    node_init(&s->a, s->sim, 1);
    node_init(&s->b, s->sim, 2);
    /* a -> tap at once, tap -> b and b -> a on the wire */
    s->tap = snic_sim_add_endpoint(s->sim, tap_recv, s);
    s->peer = s->b.h->port.ep;
    s->a.h->port.peer = s->a.h->port.mac.peer = s->tap;
    s->b.h->port.peer = s->b.h->port.mac.peer = s->a.h->port.ep;
    snic_sim_link(s->sim, s->a.h->port.ep, s->tap, &instant);
    snic_sim_link(s->sim, s->tap, s->peer, &wire);
    snic_sim_link(s->sim, s->peer, s->a.h->port.ep, &wire);
    if (node_set_transport(&s->a, SNIC_TRANSPORT_NEWRENO, 1) != SNIC_ADMIN_OK ||
        node_set_transport(&s->b, SNIC_TRANSPORT_NEWRENO, 1) != SNIC_ADMIN_OK) {
        fprintf(stderr, "tonic-repro: fig3: no NewReno program\n");
        return 1;
    }
    node_connect(&s->a, &s->b, SNIC_MTU_1024, 7, 7);
    node_connect(&s->b, &s->a, SNIC_MTU_1024, 7, 7);
    qp = snic_qp_get(s->a.h->core, s->a.qpn);
    printf("kind,time_us,value,extra\n");
    while (s->posted < MIN(s->msgs, OUTSTANDING)) {
        fig3_post(s);
    }
    while (done < s->msgs && snic_sim_step(s->sim)) {
        if (qp->req.credit.window != window) {
            window = qp->req.credit.window;
            printf("cwnd,%.3f,%u,0\n", snic_sim_now(s->sim) / 1000.0, window);
        }
        while (node_poll_cq(&s->a, &c)) {
            if (c.status != SNIC_WC_SUCCESS) {
                fprintf(stderr, "tonic-repro: fig3: status %u\n", c.status);
                return 1;
            }
            done++;
            if (s->posted < s->msgs) {
                fig3_post(s);
            }
        }
    }
    if (done < s->msgs) {
        fprintf(stderr, "tonic-repro: fig3: stalled after %" G_GUINT64_FORMAT
                " of %" G_GUINT64_FORMAT " WRITEs\n", done, s->msgs);
        return 1;
    }
    g_hash_table_destroy(s->drops);
    node_pair_free(s->sim, &s->a, &s->b);
    g_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "fig3") && atoi(argv[2]) > 0) {
        return fig3(atoi(argv[2]), argv[3]);
    }
    if (argc == 2 && !strcmp(argv[1], "table")) {
        return table();
    }
    if (argc == 4 && !strcmp(argv[1], "fig4") && atoi(argv[2]) > 0 &&
        atoi(argv[3]) > 0) {
        return fig4(atoi(argv[2]), atoi(argv[3]));
    }
    fprintf(stderr, "usage: tonic-repro table | fig4 MS SAMPLE_US | "
            "fig3 SEGMENTS DROPS\n");
    return 2;
}
