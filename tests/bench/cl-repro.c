/*
 * "Connectionless Transport with Receiver Registration" (an FPGA HPC
 * network interface), Fig. 7 (section 4.1) reproduced in the simulator,
 * and the transport as a system (tests/unit/cl-fabric.h).
 *
 *   Fig. 7  two device cores on one 10 Gbit/s link, each with the NIC
 *           timing model (tests/sim/README.md) at that line rate; one CL
 *           WRITE of 64 B .. 64 KiB from a to b at a time, nothing lost,
 *           on a fresh pair each. From the doorbell:
 *             send        the last byte of the last data packet handed
 *                         to the wire (its frame offered to the link plus
 *                         its serialisation): the paper's non-blocking
 *                         send, the data "pushed into the network";
 *             recv        a non-registered WRITE's receive notification
 *                         at b, posted on the sender's NOTIFY (3.4);
 *             registered  a registered WRITE's receive notification at
 *                         b, posted by b itself on the last packet (3.2);
 *             send_done   a's send completion (the last ACK), for
 *                         reference: the paper's blocking send.
 *           lead = recv - registered and saving = lead / recv: the
 *           self-consistency check of our protocol (the lead is about
 *           one round trip at every size, so the relative saving falls).
 *   system  cl_fabric_run(): 'ops' operations among 8 endpoints over two
 *           switches joined by four sprayed lossy links; every check of
 *           cl-fabric.h, and the tables' bytes with 2 and 64 peers.
 *
 *   cl-repro [--smoke] [--out DIR] [--ops N]
 * writes DIR/fig7.csv, fig7-summary.csv, system.csv and model.csv; exits
 * 1 if the system run or the self-consistency check fails. --smoke: 40
 * operations and the tables' bytes with 8 peers (the test suite's run;
 * /cl/fabric runs 200, /cl/onchip-peers 64 peers), else 1000 and 64.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "cl-fabric.h"
#include "engine-node.h"
#include "repro-csv.h"
#include "cl/cl.h"

#define LINE_BPS        10000000000ull  /* the paper's 10G links (4) */
#define CABLE_NS        0               /* back to back, as its loopback */
#define SRC             BUF
#define DST             (BUF + (1u << 20))
#define MIN_SIZE        64
#define MAX_SIZE        (64u << 10)

typedef struct Point {
    uint64_t send, recv, registered, send_done;     /* ns from the post */
} Point;

static const SnicSimNicTiming *timing(void)
{
    static SnicSimNicTiming t;

    t = snic_sim_srnic_timing;
    t.line_rate_bps = LINE_BPS;
    return &t;
}

static uint16_t set_qp_cl(Node *n)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_CL, sizeof(cmd.set_qp_cl));
    cmd.set_qp_cl.qpn = GUINT32_TO_LE(n->qpn);
    return fake_admin(n->h, &cmd, NULL);
}

/* One WRITE of 'len' bytes on a fresh pair: its times */
static void one(uint32_t len, bool registered, Point *pt)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = LINE_BPS, .delay_ns = CABLE_NS, .eth_framing = true,
    };
    /* one endpoint a NIC: a small QP table makes a pair cheap */
    NodeDev dev = { .cfg = { .link_speed_mbps = LINE_BPS / 1000000,
                             .max_qp = 16 } };
    uint32_t npkts = (len + SNIC_CL_DEF_PACKET - 1) / SNIC_CL_DEF_PACKET;
    SnicSim *sim = snic_sim_new(1);
    const SnicSimLinkStats *st;
    struct snic_sq_wqe w;
    struct snic_cqe c;
    uint64_t t0, last_bytes = 0;
    bool got_recv = false, got_send = false;
    Node a, b;

    dev.timing = *timing();
    node_init_dev_type(&a, sim, 1, SNIC_QPT_UD, &dev);
    node_init_dev_type(&b, sim, 2, SNIC_QPT_UD, &dev);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    if (set_qp_cl(&a) != SNIC_ADMIN_OK || set_qp_cl(&b) != SNIC_ADMIN_OK) {
        fprintf(stderr, "cl-repro: SET_QP_CL failed\n");
        exit(1);
    }
    node_ud_up(&a, 1, false);
    node_ud_up(&b, 1, false);
    node_fill(&a, SRC, len, 7);
    snic_sim_run(sim, UINT64_MAX);      /* the set-up settles */
    memset(&w, 0, sizeof(w));
    w.opcode = SNIC_WR_CL_WRITE;
    w.flags = SNIC_WQE_SIGNALED | (registered ? 0 : SNIC_WQE_CL_UNREGISTERED);
    w.num_sge = 1;
    node_av(&w.cl.av, 1, b.h, 2);
    w.cl.remote_addr = GUINT64_TO_LE(DST);
    w.cl.remote_ep = GUINT32_TO_LE(b.qpn);
    w.cl.rkey = GUINT32_TO_LE(b.lkey);
    w.sge[0].addr = GUINT64_TO_LE(SRC);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(a.lkey);
    t0 = snic_sim_now(sim);
    node_post_wqe(&a, &w);
    memset(pt, 0, sizeof(*pt));
    st = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep);
    while ((!got_recv || !got_send) && snic_sim_step(sim)) {
        uint64_t now = snic_sim_now(sim);

        if (!pt->send && st->sent >= npkts) {
            /* frame npkts is the last data packet (nothing is lost) */
            pt->send = now + snic_sim_tx_ns(&link, st->sent_bytes -
                                            last_bytes) - t0;
        }
        last_bytes = st->sent_bytes;
        while (node_poll_cq(&b, &c)) {
            got_recv = c.opcode == SNIC_WC_CL_RECV &&
                       c.status == SNIC_WC_SUCCESS;
            pt->recv = now - t0;
        }
        while (node_poll_cq(&a, &c)) {
            got_send = c.opcode == SNIC_WC_CL_WRITE &&
                       c.status == SNIC_WC_SUCCESS;
            pt->send_done = now - t0;
        }
    }
    if (!got_recv || !got_send || !pt->send ||
        memcmp(fake_ptr(a.h, SRC, len), fake_ptr(b.h, DST, len), len)) {
        fprintf(stderr, "cl-repro: the %u-byte %sregistered WRITE did not "
                "complete with its bytes in place\n", len,
                registered ? "" : "non-");
        exit(1);
    }
    if (registered) {
        pt->registered = pt->recv;
        pt->recv = 0;
    }
    fake_host_free(a.h);
    fake_host_free(b.h);
    snic_sim_free(sim);
}

static void model(const char *out, unsigned ops)
{
    const SnicSimNicTiming *t = timing();
    FILE *f = repro_csv(out, "model.csv", "parameter,value,unit,source");

    fprintf(f, "line_rate,%.0f,Gbit/s,the paper's 10G links (section 4)\n",
            LINE_BPS / 1e9);
    fprintf(f, "cable,%u,ns,ours (back to back; the paper: one hop in "
            "loopback)\n", CABLE_NS);
    fprintf(f, "pcie_rtt,%" PRIu64 ",ns,SRNIC 6.2's measured PCIe round "
            "trip (tests/sim/README.md)\n", t->pcie_rtt_ns);
    fprintf(f, "pcie_rate,%.1f,Gbit/s,PCIe Gen3 x16 after TLP overhead "
            "(tests/sim/README.md)\n", t->pcie_bps / 1e9);
    fprintf(f, "pipeline,%" PRIu64 ",ns per packet,ours "
            "(tests/sim/README.md)\n", t->pipeline_ns);
    fprintf(f, "packet,%u,bytes,Table 1 (cl-packet)\n", SNIC_CL_DEF_PACKET);
    fprintf(f, "mask_bits,%u,bits,snic default (cl-mask-bits)\n",
            SNIC_CL_DEF_MASK_BITS);
    fprintf(f, "registrable,%u,bytes,mask_bits x packet\n",
            SNIC_CL_DEF_MASK_BITS * SNIC_CL_DEF_PACKET);
    fprintf(f, "timeout,%u,us,snic default (SET_QP_CL)\n",
            SNIC_CL_DEF_TIMEOUT_US);
    fprintf(f, "system_ops,%u,operations,ours (the system run)\n", ops);
    fclose(f);
}

static int fig7(const char *out)
{
    FILE *f = repro_csv(out, "fig7.csv", "size_bytes,send_us,recv_us,"
                        "registered_us,send_done_us,lead_us,saving_pct");
    FILE *s;
    double save_1k = 0, save_max = 0, lead_min = 1e9, lead_max = 0;
    Point p1k = { 0 };
    uint32_t len;

    for (len = MIN_SIZE; len <= MAX_SIZE; len *= 2) {
        Point nr, reg;
        double lead, save;

        one(len, false, &nr);
        one(len, true, &reg);
        lead = ((double)nr.recv - reg.registered) / 1e3;
        save = 100.0 * lead / (nr.recv / 1e3);
        fprintf(f, "%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f\n", len, reg.send / 1e3,
                nr.recv / 1e3, reg.registered / 1e3, reg.send_done / 1e3,
                lead, save);
        printf("fig7 %6u B: send %7.3f us, recv (NOTIFY) %7.3f us, "
               "registered %7.3f us, lead %.3f us (%.1f %%)\n", len,
               reg.send / 1e3, nr.recv / 1e3, reg.registered / 1e3, lead,
               save);
        lead_min = MIN(lead_min, lead);
        lead_max = MAX(lead_max, lead);
        if (len == 1024) {
            p1k = nr;
            p1k.registered = reg.registered;
            save_1k = save;
        }
        save_max = save;
    }
    fclose(f);
    s = repro_csv(out, "fig7-summary.csv", "recv_1k_us,registered_1k_us,"
                  "saving_1k_us,saving_1k_pct,saving_64k_pct,lead_min_us,"
                  "lead_max_us,consistent");
    /* the self-consistency check: a lead at every size, falling in % */
    fprintf(s, "%.3f,%.3f,%.3f,%.2f,%.2f,%.3f,%.3f,%s\n", p1k.recv / 1e3,
            p1k.registered / 1e3, ((double)p1k.recv - p1k.registered) / 1e3,
            save_1k, save_max, lead_min, lead_max,
            lead_min > 0 && save_max < save_1k ? "yes" : "no");
    fclose(s);
    if (!(lead_min > 0 && save_max < save_1k)) {
        fprintf(stderr, "cl-repro: self-consistency check failed: lead "
                "%.3f..%.3f us, saving %.2f %% at 1 KiB, %.2f %% at 64 KiB\n",
                lead_min, lead_max, save_1k, save_max);
        return 1;
    }
    return 0;
}

static int system_run(const char *out, unsigned ops, unsigned peers)
{
    ClFabricResult r;
    uint32_t b2 = cl_fabric_onchip_with_peers(2);
    uint32_t b64 = cl_fabric_onchip_with_peers(peers);
    FILE *f;
    int bad;

    cl_fabric_run(39, ops, &r);
    f = repro_csv(out, "system.csv", "ops,unregistered,notifications,bytes,"
                  "end_us,retransmits,dup_dropped,dup_acked,escape_parked,"
                  "escape_replayed,escape_full,escape_timeouts,not_ready,"
                  "notify_sent,links_lost,links_duplicated,links_reordered,"
                  "pfc_frames,cl_bytes_2_peers,peers,cl_bytes_peers");
    fprintf(f, "%u,%u,%u,%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
            PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,%u\n",
            r.ops, r.unregistered, r.segments, r.bytes, r.end_ns / 1e3,
            r.retransmits, r.dup_dropped, r.dup_acked, r.escape_parked,
            r.escape_replayed, r.escape_full, r.escape_timeouts,
            r.reg_refused, r.notify_sent, r.lost, r.duplicated, r.reordered,
            r.pause_sent, b2, peers, b64);
    fclose(f);
    printf("system: %u of %u operations exactly once at both ends (%u "
           "non-registered, %u notifications, %" PRIu64 " bytes, %.1f us); "
           "%" PRIu64 " resends, %" PRIu64 " duplicates dropped, %" PRIu64
           " acknowledged again; escape %" PRIu64 " parked, %" PRIu64
           " replayed, %" PRIu64 " full, %" PRIu64 " timed out; links lost %"
           PRIu64 ", duplicated %" PRIu64 ", reordered %" PRIu64 "; %" PRIu64
           " PFC frames; CL bytes %u with 2 peers, %u with %u\n",
           r.ops, ops, r.unregistered, r.segments, r.bytes, r.end_ns / 1e3,
           r.retransmits, r.dup_dropped, r.dup_acked, r.escape_parked,
           r.escape_replayed, r.escape_full, r.escape_timeouts, r.lost,
           r.duplicated, r.reordered, r.pause_sent, b2, b64, peers);
    bad = r.error || r.ops != ops || !r.escape_replayed || !r.escape_full ||
          !r.dup_dropped || !r.retransmits || b2 != b64;
    if (bad) {
        fprintf(stderr, "cl-repro: the system run failed: %s\n",
                r.error ? r.error : "a counter is 0 or the bytes differ");
    }
    cl_fabric_result_free(&r);
    return bad;
}

int main(int argc, char **argv)
{
    gboolean smoke = false;
    gint64 ops = 0;
    g_autofree char *out = NULL;
    GOptionEntry entries[] = {
        { "smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
          "the test suite's run: 40 operations in the system run, 8 "
          "peers", NULL },
        { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "output directory",
          "DIR" },
        { "ops", 0, 0, G_OPTION_ARG_INT64, &ops,
          "operations in the system run (default 1000, smoke 40)", "N" },
        { NULL },
    };
    GOptionContext *ctx = g_option_context_new("- CL transport Fig. 7");
    GError *err = NULL;
    int bad;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "cl-repro: %s\n", err->message);
        return 2;
    }
    g_option_context_free(ctx);
    ops = ops ? ops : smoke ? 40 : 1000;
    if (ops < 10 || ops > 100000) {
        fprintf(stderr, "cl-repro: --ops out of range\n");
        return 2;
    }
    out = out ? out : g_strdup(".");
    repro_mkdir(out);
    model(out, ops);
    bad = fig7(out);
    bad |= system_run(out, ops, smoke ? 8 : 64);
    printf("cl-repro: wrote %s/{model,fig7,fig7-summary,system}.csv\n", out);
    return bad;
}
