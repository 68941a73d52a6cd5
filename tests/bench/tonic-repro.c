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
 *     switch to one receiver; every link 40 Gb/s (so is every port's
 *     speed, link-speed-mbps: DCQCN starts at it and never exceeds it),
 *     1 us each way (RTT 4 us through the switch), 1 KiB MTU (Tonic:
 *     1000 B segments); the receiver's egress port is the bottleneck and
 *     marks ECT frames CE with RED (DCQCN paper: Kmin 5 KB, Kmax 200 KB,
 *     Pmax 1 %) as they leave it, from the queue behind them, as the
 *     switch of the DCQCN authors' ns-3 simulator does, the one Tonic's
 *     section 6.2 ran its reference DCQCN on (a mark decided on arrival
 *     reaches the receiver a queueing delay late; with 200 flows that
 *     delay made them cut for one more round after the queue had fallen,
 *     and the bottleneck ran empty). Both flows start at 0, always
 *     backlogged (16 WRITEs of 64 KiB outstanding). Every SAMPLE_US: each
 *     flow's throughput into the switch over the last interval and its
 *     DCQCN rate (Rc), as CSV, for MS milliseconds of virtual time.
 *
 *   tonic-repro fig3 SEGMENTS DROPS
 *     Section 6.2.1 / Fig 3a-b: one NewReno flow of SEGMENTS 1 KiB
 *     segments (WRITEs of 64 KiB, the last one less, 16 outstanding) from
 *     one host to another through one switch (drop-tail, 5.5 MB buffer,
 *     no PFC); 10 Gb/s links of 2.5 us each (base RTT 10 us); local ACK
 *     timeout 16 (268 ms, fixed: the retransmission timer, Tonic's min RTO
 *     200 ms rounded up to the IBA's next step); the responder
 *     acknowledges every packet. A tap between the sender and its switch
 *     port sees every frame the sender transmits and drops the data
 *     packets whose PSN, less the first PSN (the segment index), is in
 *     DROPS (comma separated, "-" for none), the first time only. CSV
 *     rows "cwnd,TIME_US,SEGMENTS,0" when the QP's window changes and
 *     "tx,TIME_US,INDEX,RTX" for every transmitted packet (RTX 1: an index
 *     not above the highest sent before), the rows tonic-ns3-newreno
 *     prints for ns-3's TcpNewReno on the same scenario.
 *
 *   tonic-repro fig3c MS EPOCH_US
 *     Section 6.2.1 / Fig 3c: two senders with 100 NewReno QPs each and
 *     one receiver on Fig 3's switch (10 Gb/s, 2.5 us links, 5.5 MB
 *     drop-tail buffer, ACK timeout 16); the receiver's port is the one
 *     bottleneck. Each sender's scheduler serves one segment per QP turn
 *     (sched-burst 1 KiB: Tonic's per-packet round robin); every QP always
 *     backlogged (4 WRITEs of 16 KiB outstanding), for MS milliseconds.
 *     CSV rows "flow,SENDER,QP,MBPS,RTX" per flow (payload acknowledged
 *     over the run; segments marked for retransmission) and
 *     "epoch,TIME_US,SENDER0_MBPS,SENDER1_MBPS,JAIN" every EPOCH_US (the
 *     payload each sender's flows had acknowledged in it; Jain's index
 *     over the 200 flows' epoch throughput).
 *
 *   tonic-repro dcqcn200 MS EPOCH_US
 *     Section 6.2.2, DCQCN with 200 flows: Fig 4's switch and RED (40 Gb/s
 *     ports, 1 us links, base RTT 4 us), two senders with 100 DCQCN QPs
 *     each, one segment per QP turn, PFC on at the switch for RoCE's
 *     priority (XOFF 256 KB, XON 128 KB per ingress) and obeyed by the
 *     NICs (the timing model: a 40 Gb/s MAC, SRNIC's PCIe figures), for MS
 *     milliseconds. CSV rows "flow,SENDER,QP,MBPS,CNPS" (payload
 *     acknowledged over the run; CNPs the QP received),
 *     "epoch,TIME_US,SENDER0_MBPS,SENDER1_MBPS,JAIN" as fig3c, and one
 *     "port,PAYLOAD_GBPS,WIRE_GBPS,PAYLOAD_LINE_GBPS,MARKS,DROPS,PAUSES":
 *     the bottleneck's payload and wire rate, the payload rate its frames
 *     allow at 40 Gb/s (payload over wire bytes, framing included), its CE
 *     marks and drops, and the PAUSE frames the switch sent.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include "core_int.h"
#include "fabric.h"
#include "sim-eth.h"
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
            .ecn_on_dequeue = true,     /* as Tonic's ns-3 switch */
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
    /* DCQCN starts at the port's speed (link-speed-mbps) */
    fprintf(stderr, "tonic-repro: fig4: port speed %u Mb/s, initial rate "
            "%u Mb/s\n", s->f.node[0].h->core->cfg.link_speed_mbps,
            snic_rate_credit(snic_qp_get(s->f.node[0].h->core,
                                         s->f.node[0].qpn))->mbps);
    for (i = 0; i < FLOWS; i++) {
        for (m = 0; m < OUTSTANDING; m++) {
            post(s, i);
        }
    }
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

/* Fig 3's switch: drop-tail, 5.5 MB (Tonic 6.2.1), no PFC, no ECN */
#define FIG3_BUFFER     5500000
#define FIG3_LINK       { .bandwidth_bps = 10000000000ull, .delay_ns = 2500 }
#define FIG3_TIMEOUT    16      /* 4.096 us << 16 = 268 ms */

typedef struct Fig3 {
    SnicSim *sim;
    SnicSimSwitch *sw;
    Node a, b;
    unsigned tap, sw_ep;        /* the tap's endpoint; the switch's */
    GHashTable *drops;          /* segment indices still to drop */
    bool started;
    uint32_t first_psn, highest;
    uint64_t posted, msgs, bytes;
} Fig3;

/*
 * Every frame between the sender and its switch port: from the sender,
 * record it, drop it or pass it on; from the switch, to the sender.
 */
static void tap_recv(void *opaque, unsigned src, const uint8_t *frame,
                     size_t len)
{
    Fig3 *s = opaque;
    SnicPkt p;
    uint32_t idx;

    if (src == s->sw_ep) {
        snic_sim_send(s->sim, s->tap, s->a.h->port.ep, frame, len);
        return;
    }
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
    snic_sim_send(s->sim, s->tap, s->sw_ep, frame, len);
}

static void fig3_post(Fig3 *s)
{
    unsigned m = s->posted % OUTSTANDING;
    uint32_t len = MIN(MSG, s->bytes - s->posted * MSG);   /* the last: less */

    node_post_send(&s->a, m, SNIC_WR_RDMA_WRITE, BUF + m * MSG, len,
                   BUF + m * MSG, s->b.lkey, 0, s->a.lkey);
    s->posted++;
}

static void fig3_connect(Node *n, const Node *peer)
{
    node_connect_rtr(n, peer, SNIC_MTU_1024);
    node_connect_rts_timeout(n, 7, 7, FIG3_TIMEOUT);
}

static int fig3(unsigned segments, const char *drops)
{
    const SnicSimLinkConfig link = FIG3_LINK;
    const SnicSimLinkConfig instant = { 0 };
    const SnicSimSwitchConfig swc = {
        .buffer_bytes = FIG3_BUFFER,
        .default_priority = SNIC_SIM_ROCE_PRIORITY,
    };
    NodeDev dev = { .cfg.link_speed_mbps = node_link_mbps(&link) };
    Fig3 *s = g_new0(Fig3, 1);
    uint8_t mac[6];
    unsigned port;
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
    s->sw = snic_sim_switch_new(s->sim, &swc);
    s->sw_ep = snic_sim_switch_endpoint(s->sw);
    dev.cfg.mac[0] = 0x52, dev.cfg.mac[5] = 1;
    node_init_dev(&s->a, s->sim, 1, &dev);
    dev.cfg.mac[5] = 2;
    node_init_dev(&s->b, s->sim, 2, &dev);
    /* a <-> tap at once, tap <-> switch port 0 and b <-> port 1 on links */
    s->tap = snic_sim_add_endpoint(s->sim, tap_recv, s);
    s->a.h->port.peer = s->a.h->port.mac.peer = s->tap;
    snic_sim_link(s->sim, s->a.h->port.ep, s->tap, &instant);
    snic_sim_link(s->sim, s->tap, s->a.h->port.ep, &instant);
    port = snic_sim_switch_add_port(s->sw, s->tap, &link);
    snic_core_get_mac(s->a.h->core, mac);
    snic_sim_switch_add_mac(s->sw, mac, port);
    port = snic_sim_port_connect_switch(&s->b.h->port, s->sw, &link);
    snic_core_get_mac(s->b.h->core, mac);
    snic_sim_switch_add_mac(s->sw, mac, port);
    if (node_set_transport(&s->a, SNIC_TRANSPORT_NEWRENO, 1) != SNIC_ADMIN_OK ||
        node_set_transport(&s->b, SNIC_TRANSPORT_NEWRENO, 1) != SNIC_ADMIN_OK) {
        fprintf(stderr, "tonic-repro: fig3: no NewReno program\n");
        return 1;
    }
    fig3_connect(&s->a, &s->b);
    fig3_connect(&s->b, &s->a);
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
    fake_host_free(s->a.h);
    fake_host_free(s->b.h);
    snic_sim_switch_free(s->sw);
    snic_sim_free(s->sim);
    g_free(s);
    return 0;
}

/* ---- 200 flows: Fig 3c (NewReno) and DCQCN ---- */

#define SENDERS     2
#define PER_SENDER  100
#define MANY        (SENDERS * PER_SENDER)
#define MANY_MSG    (16u << 10)
#define MANY_OUT    4           /* WRITEs outstanding per QP */

typedef struct Many {
    Fabric f;
    Node tx[SENDERS][PER_SENDER], rx[SENDERS][PER_SENDER];
    uint32_t acked_psn[MANY];   /* wnd_start at the last look */
    uint64_t acked[MANY];       /* segments acknowledged so far */
    uint64_t epoch_from[MANY];  /* ... at the epoch's start */
    uint64_t epoch_ns;
    uint64_t posted[MANY];
} Many;

static void many_post(Many *s, unsigned k)
{
    unsigned snd = k / PER_SENDER, q = k % PER_SENDER;
    unsigned m = s->posted[k]++ % MANY_OUT;
    uint64_t to = ((uint64_t)k * MANY_OUT + m) * MANY_MSG % BUF_LEN;

    node_post_send(&s->tx[snd][q], m, SNIC_WR_RDMA_WRITE,
                   BUF + (q * MANY_OUT + m) * MANY_MSG % BUF_LEN, MANY_MSG,
                   BUF + to, s->f.node[SENDERS].lkey, 0,
                   s->f.node[snd].lkey);
}

/* Every flow's acknowledged segments, from its QP's oldest unacked PSN */
static void many_count(Many *s)
{
    unsigned k;

    for (k = 0; k < MANY; k++) {
        const Node *n = &s->tx[k / PER_SENDER][k % PER_SENDER];
        uint32_t psn = snic_transport_wnd_start(snic_qp_get(n->h->core,
                                                            n->qpn));

        s->acked[k] += (psn - s->acked_psn[k]) & SNIC_PSN_MASK;
        s->acked_psn[k] = psn;
    }
}

static void many_epoch(void *opaque)
{
    Many *s = opaque;
    uint64_t now = snic_sim_now(s->f.sim);
    double mbps[SENDERS] = { 0 }, sum = 0, sq = 0;
    unsigned k;

    many_count(s);
    for (k = 0; k < MANY; k++) {
        double r = (s->acked[k] - s->epoch_from[k]) * 1024 * 8e3 /
                   s->epoch_ns;

        mbps[k / PER_SENDER] += r;
        sum += r;
        sq += r * r;
        s->epoch_from[k] = s->acked[k];
    }
    printf("epoch,%.1f,%.1f,%.1f,%.4f\n", now / 1000.0, mbps[0], mbps[1],
           sq > 0 ? sum * sum / (MANY * sq) : 0.0);
    snic_sim_timer_add(s->f.sim, now + s->epoch_ns, many_epoch, s);
}

/* A QP's transport counters (QUERY_TRANSPORT) */
static struct snic_transport_info many_info(const Node *n)
{
    struct snic_transport_info t;
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_TRANSPORT,
                        sizeof(cmd.query_transport));
    cmd.query_transport.qpn = GUINT32_TO_LE(n->qpn);
    cmd.query_transport.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    g_assert_cmpuint(fake_admin(n->h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_read(n->h, FAKE_RESP, &t, sizeof(t));
    return t;
}

/* Runs the flows for ms; prints the per-flow rows (and the epochs) */
static int many_run(Many *s, uint8_t program, uint64_t ms, bool dcqcn)
{
    uint64_t end = ms * 1000000;
    struct snic_cqe c;
    unsigned k, i, m;

    for (i = 0; i < SENDERS; i++) {
        fabric_flows(&s->f, i, SENDERS, PER_SENDER, SNIC_MTU_1024, program,
                     s->tx[i], s->rx[i]);
    }
    for (k = 0; k < MANY; k++) {
        const Node *n = &s->tx[k / PER_SENDER][k % PER_SENDER];

        s->acked_psn[k] = snic_transport_wnd_start(snic_qp_get(n->h->core,
                                                               n->qpn));
        for (m = 0; m < MANY_OUT; m++) {
            many_post(s, k);
        }
    }
    printf("kind,a,b,c,d\n");
    snic_sim_timer_add(s->f.sim, s->epoch_ns, many_epoch, s);
    while (snic_sim_now(s->f.sim) < end && snic_sim_step(s->f.sim)) {
        for (i = 0; i < SENDERS; i++) {
            while (node_poll_cq(&s->f.node[i], &c)) {
                uint32_t qpn = GUINT32_FROM_LE(c.qpn);

                if (c.status != SNIC_WC_SUCCESS) {
                    fprintf(stderr, "tonic-repro: QP %u: status %u\n", qpn,
                            c.status);
                    return 1;
                }
                for (k = 0; k < PER_SENDER && s->tx[i][k].qpn != qpn; k++) {
                }
                g_assert(k < PER_SENDER);
                many_post(s, i * PER_SENDER + k);
            }
        }
    }
    many_count(s);
    for (k = 0; k < MANY; k++) {
        struct snic_transport_info t =
            many_info(&s->tx[k / PER_SENDER][k % PER_SENDER]);

        printf("flow,%u,%u,%.3f,%u\n", k / PER_SENDER, k % PER_SENDER,
               s->acked[k] * 1024 * 8e3 / end,
               GUINT32_FROM_LE(dcqcn ? t.cnp_rx : t.rtx_segments));
    }
    return 0;
}

static int fig3c(uint64_t ms, uint64_t epoch_us)
{
    FabricConfig cfg = {
        .nodes = SENDERS + 1,
        .seed = 1,
        .sw = {
            .buffer_bytes = FIG3_BUFFER,
            .default_priority = SNIC_SIM_ROCE_PRIORITY,
        },
        .link = FIG3_LINK,
        .sched_burst = 1024,
        .ack_timeout = FIG3_TIMEOUT,
    };
    Many *s = g_new0(Many, 1);
    int rc;

    s->epoch_ns = epoch_us * 1000;
    fabric_new(&s->f, &cfg);
    rc = many_run(s, SNIC_TRANSPORT_NEWRENO, ms, false);
    fprintf(stderr, "tonic-repro: fig3c: %" G_GUINT64_FORMAT " drops at "
            "the bottleneck\n",
            snic_sim_switch_port_stats(s->f.sw, SENDERS)->dropped);
    fabric_free(&s->f);
    g_free(s);
    return rc;
}

static int dcqcn200(uint64_t ms, uint64_t epoch_us)
{
    /*
     * NICs that obey PAUSE: the timing model's MAC at 40 Gb/s, with
     * SRNIC's PCIe and pipeline figures (tests/sim/README.md), and a
     * transmit FIFO of a few frames that holds the scheduler while it is
     * full: 200 flows starting at the line rate each would otherwise pile
     * megabytes into the MAC, sent long after DCQCN cut their rates
     */
    const SnicSimNicTiming timing = {
        .pcie_rtt_ns = SNIC_SIM_SRNIC_PCIE_RTT_NS,
        .pcie_bps = SNIC_SIM_SRNIC_PCIE_BPS,
        .pipeline_ns = SNIC_SIM_SRNIC_PIPELINE_NS,
        .line_rate_bps = 40000000000ull,
        .obey_pause = true,
        .untagged_priority = SNIC_SIM_ROCE_PRIORITY,
        .tx_fifo_bytes = 4096,
    };
    FabricConfig cfg = {
        .nodes = SENDERS + 1,
        .seed = 1,
        .sw = {
            .buffer_bytes = 4u << 20,
            .default_priority = SNIC_SIM_ROCE_PRIORITY,
            .ecn_kmin = 5000,
            .ecn_kmax = 200000,
            .ecn_pmax = 0.01,
            .ecn_on_dequeue = true,     /* as Fig 4 */
            .pfc_priorities = 1u << SNIC_SIM_ROCE_PRIORITY,
            .pfc_xoff = 256000,
            .pfc_xon = 128000,
        },
        .link = { .bandwidth_bps = 40000000000ull, .delay_ns = 1000 },
        .timing = &timing,
        .sched_burst = 1024,
    };
    Many *s = g_new0(Many, 1);
    const SnicSimSwitchPortStats *st;
    uint64_t payload = 0, pauses = 0, end = ms * 1000000;
    double wire;
    unsigned k;
    int rc;

    s->epoch_ns = epoch_us * 1000;
    fabric_new(&s->f, &cfg);
    rc = many_run(s, SNIC_TRANSPORT_DCQCN, ms, true);
    st = snic_sim_switch_port_stats(s->f.sw, SENDERS);
    for (k = 0; k < MANY; k++) {
        payload += s->acked[k] * 1024;
    }
    for (k = 0; k < SENDERS; k++) {
        pauses += snic_sim_switch_port_stats(s->f.sw, k)->pause_sent;
    }
    /* a data frame on the wire: its bytes, the FCS, preamble and gap */
    wire = st->tx_bytes + st->tx_frames * (double)(SNIC_SIM_ETH_FCS +
                                                   SNIC_SIM_ETH_GAP);
    printf("port,%.3f,%.3f,%.3f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
           ",%" G_GUINT64_FORMAT "\n", payload * 8.0 / end, wire * 8 / end,
           st->tx_frames ? 40.0 * payload / wire : 0.0,
           st->ecn_marked, st->dropped, pauses);
    fabric_free(&s->f);
    g_free(s);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "fig3") && atoi(argv[2]) > 0) {
        return fig3(atoi(argv[2]), argv[3]);
    }
    if (argc == 2 && !strcmp(argv[1], "table")) {
        return table();
    }
    if (argc == 4 && atoi(argv[2]) > 0 && atoi(argv[3]) > 0) {
        if (!strcmp(argv[1], "fig4")) {
            return fig4(atoi(argv[2]), atoi(argv[3]));
        }
        if (!strcmp(argv[1], "fig3c")) {
            return fig3c(atoi(argv[2]), atoi(argv[3]));
        }
        if (!strcmp(argv[1], "dcqcn200")) {
            return dcqcn200(atoi(argv[2]), atoi(argv[3]));
        }
    }
    fprintf(stderr, "usage: tonic-repro table | fig4 MS SAMPLE_US | "
            "fig3 SEGMENTS DROPS | fig3c MS EPOCH_US | dcqcn200 MS "
            "EPOCH_US\n");
    return 2;
}
