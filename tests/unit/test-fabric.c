/*
 * Engine nodes on the simulated switch with the NIC timing model
 * (fabric.h): each flow on its own NIC. An incast of RDMA WRITEs is
 * lossless and retransmission-free under PFC (the NICs obeying PAUSE) and
 * still delivers every byte through go-back-N when the switch drops; the
 * traffic never exceeds what the model's line rate allows. DCTCP's
 * 16-flow incast (dctcp-incast.h) shares the link fairly with a bounded
 * queue.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "dctcp-incast.h"
#include "fabric.h"

#define GBPS        1000000000ull
#define MSG         (64u << 10)
#define MSGS        4                   /* per sender: 256 KiB */
#define RECV_AT(i)  (BUF + (uint64_t)(i) * MSGS * MSG)

typedef struct IncastResult {
    uint64_t end_ns;            /* virtual time of the last completion */
    uint64_t dropped;           /* at the switch, toward the receiver */
    uint64_t pause_sent;
    uint64_t retransmits;       /* snic_retransmit events, all senders */
    uint64_t bystander_frames;  /* RoCE frames that reached other nodes */
} IncastResult;

/*
 * 'senders' nodes each WRITE MSGS x 64 KiB to node 0; one more node only
 * looks on. Checks every completion and byte; returns what it measured.
 */
static IncastResult incast(unsigned senders, bool pfc, uint64_t buffer)
{
    SnicSimNicTiming timing = snic_sim_srnic_timing;
    FabricConfig cfg = {
        .nodes = senders + 2,
        .seed = 1,
        .sw = {
            .buffer_bytes = buffer,
            .default_priority = SNIC_SIM_ROCE_PRIORITY,
            .pfc_priorities = pfc ? 1u << SNIC_SIM_ROCE_PRIORITY : 0,
            .pfc_xoff = 32 << 10,
            .pfc_xon = 16 << 10,
        },
        .link = {
            .bandwidth_bps = 100 * GBPS,
            .delay_ns = 1000,
        },
        .timing = &timing,
    };
    Node rx[16];
    IncastResult r = { 0 };
    unsigned i, m, done = 0, bystander;
    struct snic_cqe c;
    Fabric f;

    g_assert_cmpuint(senders, <=, G_N_ELEMENTS(rx));
    timing.obey_pause = pfc;
    fabric_new(&f, &cfg);
    bystander = senders + 1;
    for (i = 1; i <= senders; i++) {
        fabric_flow(&f, i, 0, SNIC_MTU_4096, &rx[i - 1]);
        node_fill(&f.node[i], BUF, MSGS * MSG, i);
        for (m = 0; m < MSGS; m++) {
            node_post_send(&f.node[i], m, SNIC_WR_RDMA_WRITE,
                           BUF + m * MSG, MSG, RECV_AT(i - 1) + m * MSG,
                           f.node[0].lkey, 0, f.node[i].lkey);
        }
    }
    while (done < senders * MSGS && snic_sim_step(f.sim)) {
        for (i = 1; i <= senders; i++) {
            while (node_poll_cq(&f.node[i], &c)) {
                g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
                done++;
                r.end_ns = snic_sim_now(f.sim);
            }
        }
    }
    g_assert_cmpuint(done, ==, senders * MSGS);
    for (i = 1; i <= senders; i++) {
        Node *s = &f.node[i];

        g_assert_cmpmem(fake_ptr(f.node[0].h, RECV_AT(i - 1), MSGS * MSG),
                        MSGS * MSG, fake_ptr(s->h, BUF, MSGS * MSG),
                        MSGS * MSG);
        r.retransmits += s->h->events[SNIC_TRACE_RETRANSMIT];
        r.pause_sent += snic_sim_switch_port_stats(f.sw, i)->pause_sent;
        /* every PAUSE the switch sent, this NIC's MAC obeyed */
        g_assert_cmpuint(s->h->port.mac.pause.frames, ==,
                         snic_sim_switch_port_stats(f.sw, i)->pause_sent);
    }
    r.dropped = snic_sim_switch_port_stats(f.sw, 0)->dropped;
    r.bystander_frames = FAKE_STAT(f.node[bystander].h, rdma_rx_packets) +
                         FAKE_STAT(f.node[bystander].h, rx_filtered);
    fabric_free(&f);
    return r;
}

/*
 * Six NICs write 1.5 MiB into one through a 512 KiB buffer. With PFC:
 * nothing dropped or retransmitted; the receiver's 100 Gb/s link bounds
 * the time from below (and it is reached: > 80 % of it).
 */
static void test_incast_pfc(void)
{
    const unsigned senders = 6;
    IncastResult r = incast(senders, true, 512 << 10);
    /* the payload alone at 100 Gb/s, headers and framing not counted */
    double floor_ns = senders * MSGS * MSG * 8 / 100.0;

    g_test_message("PFC: done at %" PRIu64 " ns (payload at line rate: "
                   "%.0f ns), %" PRIu64 " PAUSE frames", r.end_ns, floor_ns,
                   r.pause_sent);
    g_assert_cmpuint(r.dropped, ==, 0);
    g_assert_cmpuint(r.retransmits, ==, 0);
    g_assert_cmpuint(r.pause_sent, >, 0);
    g_assert_cmpfloat(r.end_ns, >, floor_ns);
    g_assert_cmpfloat(r.end_ns, <, floor_ns / 0.8);
    /* distinct MACs and a static table: nothing went to the bystander */
    g_assert_cmpuint(r.bystander_frames, ==, 0);
}

/* The same incast on a lossy switch: drops, go-back-N, every byte there. */
static void test_incast_lossy(void)
{
    IncastResult r = incast(6, false, 512 << 10);

    g_test_message("lossy: done at %" PRIu64 " ns, %" PRIu64 " dropped, %"
                   PRIu64 " retransmissions", r.end_ns, r.dropped,
                   r.retransmits);
    g_assert_cmpuint(r.dropped, >, 0);
    g_assert_cmpuint(r.retransmits, >, 0);
    g_assert_cmpuint(r.pause_sent, ==, 0);
    g_assert_cmpuint(r.bystander_frames, ==, 0);
}

/*
 * DCTCP's incast, over go-back-N and over SRNIC: 16 flows, each from its own NIC, into one
 * 100 Gb/s port marking CE on a step at K = 65 KB, for 2 ms of virtual
 * time (the last flow starts at 0.3 ms). Over the steady state, the
 * second millisecond: Jain's index of the flows' throughputs >= 0.95,
 * the link used (>= 90 Gb/s of frames), nothing dropped, and the queue
 * bounded: its maximum within K plus two frames a flow (the DCTCP
 * paper's analysis: K + N packets at most, as each of N flows adds one
 * in the round trip before the marks reach it), its time average within
 * K plus one frame a flow.
 */
static void test_dctcp_incast(gconstpointer data)
{
    const DctcpIncastConfig cfg = {
        .run_ns = 2000000, .steady_ns = 1000000, .k_bytes = 65000,
        .program = GPOINTER_TO_UINT(data),
    };
    const uint64_t frame = 1100;    /* a 1024-byte MTU's frame, at most */
    DctcpIncastResult r;
    unsigned i;

    g_assert_true(dctcp_incast_run(&cfg, &r));
    for (i = 0; i < DCTCP_FLOWS; i++) {
        g_test_message("flow %2u: %.3f Gb/s", i, r.gbps[i]);
    }
    g_test_message("%s incast, 1-2 ms: %.3f Gb/s, Jain %.4f; queue avg "
                   "%.0f B, max %" PRIu64 " B (whole run %" PRIu64 " B), K "
                   "%" PRIu64 " B; %" PRIu64 " marks, %" PRIu64 " drops",
                   cfg.program ? "SRNIC-DCTCP" : "DCTCP",
                   r.sum_gbps, r.jain, r.q_avg_steady, r.q_max_steady,
                   r.q_max, cfg.k_bytes, r.marked, r.dropped);
    g_assert_cmpuint(r.writes, >, 0);
    g_assert_cmpuint(r.marked, >, 0);
    g_assert_cmpuint(r.dropped, ==, 0);
    g_assert_cmpfloat(r.jain, >=, 0.95);
    g_assert_cmpfloat(r.sum_gbps, >=, 90);
    g_assert_cmpuint(r.q_max_steady, <=, cfg.k_bytes + 2 * DCTCP_FLOWS * frame);
    g_assert_cmpfloat(r.q_avg_steady, <=, cfg.k_bytes + DCTCP_FLOWS * frame);
}

/*
 * Two NICs with FLOWS QPs each (fabric_flows) write 16 KiB per QP into
 * one: every byte arrives. With sched-burst of one segment, each QP's
 * turn sends one packet (Tonic's per-packet round robin), so a NIC's
 * flows finish together; with the default burst (16 KiB, a message per
 * turn) one after another. Returns the greatest spread, over the two
 * senders, between a sender's first and last completion (virtual ns).
 */
#define FLOWS       8
#define FLOW_BYTES  (16u << 10)
static uint64_t many_flows(uint32_t sched_burst)
{
    FabricConfig cfg = {
        .nodes = 3,
        .seed = 1,
        .sw = {
            .buffer_bytes = 4u << 20,
            .default_priority = SNIC_SIM_ROCE_PRIORITY,
        },
        .link = { .bandwidth_bps = 10 * GBPS, .delay_ns = 1000 },
        .sched_burst = sched_burst,
    };
    Node tx[2][FLOWS], rx[2][FLOWS];
    uint64_t first[2] = { 0 }, last[2] = { 0 };
    unsigned s, i, done = 0;
    struct snic_cqe c;
    Fabric f;

    fabric_new(&f, &cfg);
    for (s = 0; s < 2; s++) {
        fabric_flows(&f, s + 1, 0, FLOWS, SNIC_MTU_1024, SNIC_TRANSPORT_GBN,
                     tx[s], rx[s]);
        node_fill(&f.node[s + 1], BUF, FLOWS * FLOW_BYTES, s + 1);
        for (i = 0; i < FLOWS; i++) {
            node_post_send(&tx[s][i], i, SNIC_WR_RDMA_WRITE,
                           BUF + i * FLOW_BYTES, FLOW_BYTES,
                           BUF + (s * FLOWS + i) * FLOW_BYTES,
                           f.node[0].lkey, 0, f.node[s + 1].lkey);
        }
    }
    while (done < 2 * FLOWS && snic_sim_step(f.sim)) {
        for (s = 0; s < 2; s++) {
            while (node_poll_cq(&f.node[s + 1], &c)) {
                g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
                first[s] = first[s] ? first[s] : snic_sim_now(f.sim);
                last[s] = snic_sim_now(f.sim);
                done++;
            }
        }
    }
    g_assert_cmpuint(done, ==, 2 * FLOWS);
    for (s = 0; s < 2; s++) {
        g_assert_cmpmem(fake_ptr(f.node[0].h, BUF + s * FLOWS * FLOW_BYTES,
                                 FLOWS * FLOW_BYTES), FLOWS * FLOW_BYTES,
                        fake_ptr(f.node[s + 1].h, BUF, FLOWS * FLOW_BYTES),
                        FLOWS * FLOW_BYTES);
    }
    fabric_free(&f);
    return MAX(last[0] - first[0], last[1] - first[1]);
}

static void test_many_flows(void)
{
    uint64_t rr = many_flows(1024), burst = many_flows(0);

    g_test_message("a sender's completions spread over %" PRIu64 " ns with "
                   "a packet per turn, %" PRIu64 " ns with a message",
                   rr, burst);
    g_assert_cmpuint(rr * 4, <, burst);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/fabric/incast-pfc", test_incast_pfc);
    g_test_add_func("/fabric/incast-lossy", test_incast_lossy);
    g_test_add_func("/fabric/many-flows", test_many_flows);
    g_test_add_data_func("/fabric/dctcp-incast", GUINT_TO_POINTER(0),
                         test_dctcp_incast);
    /* the same window over SRNIC's selective repeat (SRNIC section 5) */
    g_test_add_data_func("/fabric/dctcp-incast-srnic",
                         GUINT_TO_POINTER(SNIC_TRANSPORT_SRNIC_DCTCP),
                         test_dctcp_incast);
    return g_test_run();
}
