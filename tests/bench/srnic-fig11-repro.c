/*
 * SRNIC (NSDI'23) Figure 11 reproduced in the simulator: goodput of one
 * RC connection sending 4 KiB RDMA WRITEs back to back under uniform
 * random packet loss, go-back-N (snic's default transport, what CX-6
 * runs) against SRNIC's selective repeat with bitmap onloading
 * (SNIC_TRANSPORT_SRNIC, hw/snic/core/srnic/sr.c) whose host software
 * (guest-driver/common/snic_sr_recovery.c) runs in the loop behind an
 * interrupt at its documented latency (tests/unit/sr-host.c,
 * tests/sim/README.md). SRNIC 6.3's setup: perftest's 4 KB messages (the
 * op not stated: WRITEs here, SENDs with --op send),
 * congestion control off, loss injected between the two NICs; SRNIC
 * 6.1's: 100 Gbit/s, RoCE MTU 1024. Both NICs run the NIC timing model
 * (PCIe round trip, pipeline, line rate).
 *
 * Loss: each frame on the data direction (requester to responder) is
 * dropped with probability p, independently (the simulator's seeded
 * generator); --both-ways drops ACKs too.
 *
 * First the RTT of the loop is measured (go-back-N, window 4, no loss:
 * RTT = 4 segments x 1024 B x 8 / goodput) and the window of both
 * transports set to the BDP in segments: W = ceil(RTT / the wire time of
 * one full segment at line rate). Go-back-N's W counts the segments sent
 * from lACK on; SRNIC's those in flight, neither acknowledged nor SACKed
 * (SET_QP_SR), with up to SNIC_SR_SPAN outstanding beyond lACK: the
 * depth of 120 WRITEs (480 segments) lets it use that. Then for each loss rate and transport
 * a warm-up and a measured window of virtual time: payload goodput of
 * the WRITEs completed in it, every completed WRITE's bytes compared
 * with what was sent (each WRITE's source is stamped with its number),
 * the wire bytes offered to the data link, the timeouts, and SRNIC's
 * onloaded metadata: CtrlQ entries (32 B, both NICs) and RetryQ entries
 * (16 B, both hosts) per second.
 *
 * SENDs (--op send): each SEND's receive is posted at the same slot and
 * its bytes checked at the requester's completion and again at the
 * receive completion, which under SRNIC may come later (a SEND placed
 * out of order completes by the host's RECV_DONE, sr.c); a slot is used
 * again only once both completed.
 *
 *   srnic-fig11-repro [--smoke] [--out DIR] [options]
 * writes DIR/fig11.csv and DIR/model.csv.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-node.h"
#include "repro-csv.h"
#include "sim-eth.h"
#include "sr-host.h"

#define MSG         4096u
#define SEG         1024u               /* RoCE path MTU (SRNIC 6.1) */
#define SRC         BUF                 /* a: WRITE sources, 2 x depth */
#define DST         (BUF + 0x200000)    /* b: where they land */

typedef struct Model {
    SnicSimNicTiming t;
    uint64_t cable_ns;          /* propagation delay, each way */
    uint8_t timeout;            /* IBA local ACK timeout exponent */
    unsigned depth;             /* WRITEs outstanding */
    uint64_t warm_ns, window_ns;
    uint64_t poll_ns;           /* the host polls its CQ every */
    uint64_t seed;
    bool both_ways;             /* drop ACKs too */
    bool send;                  /* SENDs instead of WRITEs (the hook) */
} Model;

typedef struct Result {
    double gbps;                /* payload goodput over the window */
    double wire_gbps;           /* data link, framing counted */
    double payload_per_wire;    /* payload bytes / wire bytes, data link */
    uint64_t msgs, verified;
    uint64_t frames, lost, timeouts, rtx_segments;
    uint64_t ctrlq_entries, retryq_entries, host_runs;
    uint64_t rtx_again;         /* host: lost retransmissions resent */
} Result;

static G_NORETURN void die(const char *why)
{
    fprintf(stderr, "srnic-fig11-repro: %s\n", why);
    exit(1);
}

/* The stamp of message i: 8-byte words (i << 20 | word), unique per message */
static void stamp(Node *n, uint64_t at, uint64_t i)
{
    uint64_t *w = fake_ptr(n->h, at, MSG);
    unsigned k;

    for (k = 0; k < MSG / 8; k++) {
        w[k] = GUINT64_TO_LE(i << 20 | k);
    }
}

static bool stamped(Node *n, uint64_t at, uint64_t i)
{
    const uint64_t *w = fake_ptr(n->h, at, MSG);
    unsigned k;

    for (k = 0; k < MSG / 8; k++) {
        if (GUINT64_FROM_LE(w[k]) != (i << 20 | k)) {
            return false;
        }
    }
    return true;
}

typedef struct Run {
    const Model *m;
    SnicSim *sim;
    Node a, b;
    SrHost ha, hb;
    bool sr;
    uint64_t posted, done, recvd;
} Run;

static uint64_t slot(const Run *r, uint64_t i)
{
    return (i % (2 * r->m->depth)) * MSG;
}

static void post(Run *r)
{
    while (r->posted - r->done < r->m->depth &&
           (!r->m->send || r->posted - r->recvd < r->m->depth)) {
        uint64_t i = r->posted++, off = slot(r, i);

        stamp(&r->a, SRC + off, i);
        if (r->m->send) {
            /* its receive first, at the same slot; cleared to see it land */
            memset(fake_ptr(r->b.h, DST + off, MSG), 0, MSG);
            node_post_recv(&r->b, i, DST + off, MSG);
            node_post_send(&r->a, i, SNIC_WR_SEND, SRC + off, MSG, 0, 0, 0,
                           r->a.lkey);
        } else {
            node_post_send(&r->a, i, SNIC_WR_RDMA_WRITE, SRC + off, MSG,
                           DST + off, r->b.lkey, 0, r->a.lkey);
        }
    }
}

/* Completions: in post order, successful, the bytes where they belong */
static void poll(Run *r, Result *res, bool counting)
{
    struct snic_cqe c;

    while (node_poll_cq(&r->b, &c)) {
        if (!r->m->send || c.status != SNIC_WC_SUCCESS ||
            GUINT64_FROM_LE(c.wr_id) != r->recvd ||
            !stamped(&r->b, DST + slot(r, r->recvd), r->recvd)) {
            die("responder: a receive completion out of order, failed or "
                "with wrong bytes");
        }
        r->recvd++;
    }
    while (node_poll_cq(&r->a, &c)) {
        if (c.status != SNIC_WC_SUCCESS ||
            GUINT64_FROM_LE(c.wr_id) != r->done) {
            fprintf(stderr, "srnic-fig11-repro: wr %" PRIu64 " status %u "
                    "(wr_id %" PRIu64 ")\n", r->done, c.status,
                    (uint64_t)GUINT64_FROM_LE(c.wr_id));
            die("requester: a completion out of order or failed");
        }
        if (!stamped(&r->b, DST + slot(r, r->done), r->done)) {
            die("a completed message's bytes are not at the responder");
        }
        r->done++;
        res->verified++;
        if (counting) {
            res->msgs++;
        }
    }
}

static void run_init(Run *r, const Model *m, bool sr, double loss,
                     uint8_t window)
{
    SnicSimLinkConfig link = {
        .bandwidth_bps = m->t.line_rate_bps,
        .delay_ns = m->cable_ns,
        .loss = loss,
        .eth_framing = true,
    };
    NodeDev dev = { .timing = m->t };
    struct snic_qp_attr attr;
    uint8_t prog = sr ? SNIC_TRANSPORT_SRNIC : SNIC_TRANSPORT_GBN;

    memset(r, 0, sizeof(*r));
    r->m = m;
    r->sr = sr;
    r->sim = snic_sim_new(m->seed);
    node_init_dev(&r->a, r->sim, 1, &dev);
    node_init_dev(&r->b, r->sim, 2, &dev);
    snic_sim_port_connect(&r->a.h->port, &r->b.h->port, &link);
    if (!m->both_ways) {
        link.loss = 0;
        snic_sim_link(r->sim, r->b.h->port.ep, r->a.h->port.ep, &link);
    }
    if (node_set_transport(&r->a, prog, 0) != SNIC_ADMIN_OK ||
        node_set_transport(&r->b, prog, 0) != SNIC_ADMIN_OK) {
        die("SET_QP_TRANSPORT failed");
    }
    if (sr) {
        /* CtrlQ 1024 entries, RetryQ 256: never full at these rates */
        sr_host_init(&r->ha, &r->a, r->sim, 10, 8, window);
        sr_host_init(&r->hb, &r->b, r->sim, 10, 8, window);
    }
    node_connect_rtr(&r->a, &r->b, SNIC_MTU_1024);
    node_connect(&r->b, &r->a, SNIC_MTU_1024, 7, 7);
    /* node_connect_rts() with the ACK timeout of the model */
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = GUINT32_TO_LE(SNIC_QPS_RTS);
    attr.timeout = m->timeout;
    attr.retry_cnt = 7;
    attr.rnr_retry = 7;
    attr.sq_psn = GUINT32_TO_LE(0xfffff0 + r->a.ip);
    attr.max_rd_atomic = 4;
    node_modify(&r->a, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN |
                SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
                SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_MAX_QP_RD_ATOMIC, &attr);
    if (!sr) {
        /* go-back-N's window (SRNIC's is SET_QP_SR's, above) */
        snic_transport_set_window(r->a.h->core,
                                  snic_qp_get(r->a.h->core, r->a.qpn),
                                  window);
    }
}

static void run_free(Run *r)
{
    if (r->sr) {
        sr_host_free(&r->ha);
        sr_host_free(&r->hb);
    }
    node_pair_free(r->sim, &r->a, &r->b);
}

/* Counters of a run at one moment */
typedef struct Snap {
    uint64_t frames, bytes, lost, timeouts, rtx, ctrlq, retryq, runs, again;
} Snap;

static void snap(Run *r, Snap *s)
{
    const SnicSimLinkStats *st = snic_sim_link_stats(r->sim, r->a.h->port.ep,
                                                     r->b.h->port.ep);
    const SnicSimLinkStats *back = snic_sim_link_stats(r->sim,
                                                       r->b.h->port.ep,
                                                       r->a.h->port.ep);

    s->frames = st->sent;
    s->bytes = st->sent_bytes;
    s->lost = st->lost + back->lost;
    s->timeouts = r->a.h->events[SNIC_TRACE_TIMEOUT];
    s->rtx = snic_qp_get(r->a.h->core, r->a.qpn)->rtx_segments;
    s->ctrlq = FAKE_STAT(r->a.h, sr_ctrlq_entries) +
               FAKE_STAT(r->b.h, sr_ctrlq_entries);
    s->retryq = r->sr ? r->ha.retry_posted + r->hb.retry_posted : 0;
    s->runs = r->sr ? r->ha.runs + r->hb.runs : 0;
    s->again = r->sr ? r->ha.sw.rtx_again : 0;
}

static void measure(const Model *m, bool sr, double loss, uint8_t window,
                    Result *res)
{
    uint64_t t0, t1, now, framing;
    Snap s0, s1;
    Run r;

    memset(res, 0, sizeof(*res));
    run_init(&r, m, sr, loss, window);
    post(&r);
    t0 = snic_sim_now(r.sim) + m->warm_ns;
    t1 = t0 + m->window_ns;
    while ((now = snic_sim_now(r.sim)) < t0) {
        snic_sim_run_until(r.sim, MIN(now + m->poll_ns, t0));
        poll(&r, res, false);
        post(&r);
    }
    snap(&r, &s0);
    while ((now = snic_sim_now(r.sim)) < t1) {
        snic_sim_run_until(r.sim, MIN(now + m->poll_ns, t1));
        poll(&r, res, true);
        post(&r);
    }
    snap(&r, &s1);
    if (FAKE_STAT(r.a.h, sr_retry_refused) ||
        FAKE_STAT(r.b.h, sr_retry_refused) ||
        FAKE_STAT(r.a.h, sr_ctrlq_drops) || FAKE_STAT(r.b.h, sr_ctrlq_drops)) {
        fprintf(stderr, "srnic-fig11-repro: RetryQ refused %" PRIu64 "/%"
                PRIu64 ", CtrlQ drops %" PRIu64 "/%" PRIu64 "\n",
                FAKE_STAT(r.a.h, sr_retry_refused),
                FAKE_STAT(r.b.h, sr_retry_refused),
                FAKE_STAT(r.a.h, sr_ctrlq_drops),
                FAKE_STAT(r.b.h, sr_ctrlq_drops));
        die("the host software's RetryQ entries refused or CtrlQ full");
    }
    /* a frame's wire cost beyond its bytes: FCS, preamble, gap (>= 64 B) */
    framing = snic_sim_eth_wire_bytes(1000) - 1000;
    res->frames = s1.frames - s0.frames;
    res->gbps = res->msgs * MSG * 8.0 / m->window_ns;
    res->wire_gbps = (s1.bytes - s0.bytes + res->frames * framing) * 8.0 /
                     m->window_ns;
    res->payload_per_wire = res->msgs * (double)MSG /
                            (s1.bytes - s0.bytes + res->frames * framing);
    res->lost = s1.lost - s0.lost;
    res->timeouts = s1.timeouts - s0.timeouts;
    res->rtx_segments = s1.rtx - s0.rtx;
    res->ctrlq_entries = s1.ctrlq - s0.ctrlq;
    res->retryq_entries = s1.retryq - s0.retryq;
    res->host_runs = s1.runs - s0.runs;
    res->rtx_again = s1.again - s0.again;
    run_free(&r);
}

int main(int argc, char **argv)
{
    static const double loss_full[] = { 0, 0.01, 0.1, 0.5, 1, 2, 5 };
    Model m = {
        .t = snic_sim_srnic_timing,
        .poll_ns = 1000,
    };
    gboolean smoke = FALSE, both = FALSE;
    gint64 warm_us = 0, window_us = 0, cable_ns = 4000, timeout = 4;
    gint64 depth = 120, seed = 1, window = 0;
    g_autofree char *out = NULL, *llist = NULL, *op = NULL;
    GOptionEntry entries[] = {
        { "smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
          "every loss rate, short windows (the test suite's run)", NULL },
        { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "output directory",
          "DIR" },
        { "loss", 0, 0, G_OPTION_ARG_STRING, &llist,
          "loss rates in %, comma separated", "LIST" },
        { "warm-us", 0, 0, G_OPTION_ARG_INT64, &warm_us,
          "virtual time before measuring (default 200, smoke 20)", "US" },
        { "window-us", 0, 0, G_OPTION_ARG_INT64, &window_us,
          "virtual time measured (default 20000, smoke 60)", "US" },
        { "cable-ns", 0, 0, G_OPTION_ARG_INT64, &cable_ns,
          "propagation delay each way (default 4000)", "NS" },
        { "timeout", 0, 0, G_OPTION_ARG_INT64, &timeout,
          "IBA local ACK timeout exponent: 4.096 us x 2^T (default 4)",
          "T" },
        { "depth", 0, 0, G_OPTION_ARG_INT64, &depth,
          "WRITEs outstanding (default 120)", "N" },
        { "window", 0, 0, G_OPTION_ARG_INT64, &window,
          "window in segments (default: the measured BDP)", "W" },
        { "seed", 0, 0, G_OPTION_ARG_INT64, &seed,
          "the simulator's random seed (default 1)", "S" },
        { "both-ways", 0, 0, G_OPTION_ARG_NONE, &both,
          "drop ACKs too (default: data packets only)", NULL },
        { "op", 0, 0, G_OPTION_ARG_STRING, &op,
          "write (default) or send", "OP" },
        { NULL },
    };
    GOptionContext *ctx = g_option_context_new("- SRNIC Fig. 11");
    g_autofree double *loss = NULL;
    GError *err = NULL;
    double rtt_ns, seg_ns, bdp, line_payload[2];
    unsigned nl, i, k;
    uint8_t w;
    Result res;
    FILE *f;

    setvbuf(stdout, NULL, _IOLBF, 0);       /* progress through a pipe */
    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "srnic-fig11-repro: %s\n", err->message);
        return 2;
    }
    g_option_context_free(ctx);
    if (warm_us < 0 || window_us < 0 || cable_ns < 0 || timeout < 1 ||
        timeout > 31 || depth < 1 || depth > 120 || window < 0 ||
        window > SNIC_TX_WINDOW || (op && strcmp(op, "write") &&
                                    strcmp(op, "send"))) {
        fprintf(stderr, "srnic-fig11-repro: parameter out of range\n");
        return 2;
    }
    m.cable_ns = cable_ns;
    m.timeout = timeout;
    m.depth = depth;
    m.seed = seed;
    m.both_ways = both;
    m.send = op && !strcmp(op, "send");
    m.warm_ns = (warm_us ? warm_us : smoke ? 20 : 200) * 1000;
    m.window_ns = (window_us ? window_us : smoke ? 60 : 20000) * 1000;
    if (llist) {
        g_auto(GStrv) v = g_strsplit(llist, ",", 0);

        nl = g_strv_length(v);
        loss = g_new(double, nl);
        for (i = 0; i < nl; i++) {
            loss[i] = g_ascii_strtod(v[i], NULL);
            if (loss[i] < 0 || loss[i] >= 50) {
                fprintf(stderr, "srnic-fig11-repro: bad loss %s\n", v[i]);
                return 2;
            }
        }
    } else {
        nl = G_N_ELEMENTS(loss_full);
        loss = g_memdup2(loss_full, sizeof(loss_full));
    }
    out = out ? out : g_strdup(".");
    repro_mkdir(out);

    /*
     * The loop's RTT: go-back-N, window 4, no loss (window-limited:
     * goodput = 4 segments per RTT); the BDP in full segments at line
     * rate. A full segment on the wire: its frame (Eth, IPv4, UDP, BTH,
     * payload, ICRC) with FCS, preamble and gap.
     */
    {
        Model m4 = m;

        m4.send = false;
        measure(&m4, false, 0, 4, &res);
        rtt_ns = 4.0 * SEG * 8 / res.gbps;
        seg_ns = snic_sim_eth_wire_bytes(14 + 20 + 8 + 12 + SEG + 4) * 8.0 /
                 (m.t.line_rate_bps / 1e9);
        bdp = rtt_ns / seg_ns;
        w = window ? window : MIN((unsigned)bdp + (bdp > (unsigned)bdp),
                                  SNIC_TX_WINDOW);
        printf("srnic-fig11: RTT %.0f ns (go-back-N, window 4, no loss: "
               "%.2f Gb/s); a full segment %.1f ns on the wire; "
               "BDP %.1f segments; window W = %u%s\n", rtt_ns, res.gbps,
               seg_ns, bdp, w, window ? " (--window)" :
               bdp > SNIC_TX_WINDOW ?
               " (the device's largest)" : "");
    }
    /* each transport's payload at line rate: its loss-free frames */
    for (k = 0; k < 2; k++) {
        measure(&m, k, 0, w, &res);
        line_payload[k] = res.payload_per_wire * m.t.line_rate_bps / 1e9;
    }
    printf("srnic-fig11: line-rate payload goodput (4 KiB %s, MTU 1024, "
           "headers and framing counted): go-back-N %.2f Gb/s, SRNIC %.2f "
           "Gb/s\n", m.send ? "SENDs" : "WRITEs", line_payload[0],
           line_payload[1]);

    f = repro_csv(out, "model.csv", "parameter,value,unit,source");
    fprintf(f, "line_rate,%.0f,Gbit/s,SRNIC 6.1 (100 Gbps)\n",
            m.t.line_rate_bps / 1e9);
    fprintf(f, "path_mtu,%u,bytes,SRNIC 6.1\n", SEG);
    fprintf(f, "message,%u,bytes,SRNIC 6.3 (4 KB messages)\n", MSG);
    fprintf(f, "op,%s,,ours (SRNIC 6.3 states perftest and 4 KB messages, "
            "not the op)\n", m.send ? "send" : "write");
    fprintf(f, "congestion_control,off,,SRNIC 6.3\n");
    fprintf(f, "pcie_rtt,%" PRIu64 ",ns,SRNIC 6.2 (tests/sim/README.md)\n",
            m.t.pcie_rtt_ns);
    fprintf(f, "pipeline,%" PRIu64 ",ns per packet,ours (tests/sim/"
            "README.md)\n", m.t.pipeline_ns);
    fprintf(f, "cable,%" PRIu64 ",ns each way,ours (the paper states no "
            "RTT)\n", m.cable_ns);
    fprintf(f, "rtt,%.0f,ns,measured (go-back-N window 4 no loss)\n",
            rtt_ns);
    fprintf(f, "segment_wire,%.2f,ns,a 1024 B segment's frame at line "
            "rate\n", seg_ns);
    fprintf(f, "bdp,%.2f,segments,rtt / segment_wire\n", rtt_ns / seg_ns);
    fprintf(f, "window,%u,segments,W (go-back-N: from lACK; SRNIC: in "
            "flight)\n", w);
    fprintf(f, "ack_timeout,%.1f,us,IBA timeout %u (4.096 us x 2^%u)\n",
            4.096 * (1u << m.timeout), m.timeout, m.timeout);
    fprintf(f, "retry_cnt,7,,both\n");
    fprintf(f, "depth,%u,messages outstanding,ours\n", m.depth);
    fprintf(f, "host_irq,%u,ns,tests/sim/README.md (SR_HOST_IRQ_NS)\n",
            SR_HOST_IRQ_NS);
    fprintf(f, "host_entry,%u,ns per CtrlQ entry,tests/sim/README.md "
            "(SR_HOST_ENTRY_NS)\n", SR_HOST_ENTRY_NS);
    fprintf(f, "loss_direction,%s,,ours\n", m.both_ways ? "both" :
            "data only");
    fprintf(f, "seed,%" PRIu64 ",,simulator\n", m.seed);
    fprintf(f, "warm,%" PRIu64 ",us,ours\n", m.warm_ns / 1000);
    fprintf(f, "measured,%" PRIu64 ",us,ours\n", m.window_ns / 1000);
    fprintf(f, "line_payload_gbn,%.3f,Gbit/s,measured frames\n",
            line_payload[0]);
    fprintf(f, "line_payload_srnic,%.3f,Gbit/s,measured frames\n",
            line_payload[1]);
    fclose(f);

    f = repro_csv(out, "fig11.csv",
                  "loss_pct,transport,goodput_gbps,norm,bound_gbps,"
                  "bound_norm,wire_gbps,messages,frames,lost,timeouts,"
                  "rtx_segments,ctrlq_entries,ctrlq_mbps,retryq_entries,"
                  "retryq_mbps,onload_pct,host_runs,rtx_again");
    for (i = 0; i < nl; i++) {
        for (k = 0; k < 2; k++) {
            double p = loss[i] / 100, bound = 1 / (1 + p * w);
            double sec = m.window_ns / 1e9;

            measure(&m, k, p, w, &res);
            fprintf(f, "%g,%s,%.3f,%.4f,%.3f,%.4f,%.3f,%" PRIu64 ",%" PRIu64
                    ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%"
                    PRIu64 ",%.3f,%.3f,%" PRIu64 ",%" PRIu64 "\n", loss[i],
                    k ? "srnic" : "gbn", res.gbps, res.gbps / line_payload[k],
                    k ? 0 : bound * line_payload[0], k ? 0 : bound,
                    res.wire_gbps, res.msgs, res.frames, res.lost,
                    res.timeouts, res.rtx_segments, res.ctrlq_entries,
                    res.ctrlq_entries * SNIC_SR_CTRLQ_ENTRY * 8 / sec / 1e6,
                    res.retryq_entries,
                    res.retryq_entries * SNIC_SR_RETRYQ_ENTRY * 8 / sec / 1e6,
                    res.msgs ? 100.0 * (res.ctrlq_entries *
                                        SNIC_SR_CTRLQ_ENTRY +
                                        res.retryq_entries *
                                        SNIC_SR_RETRYQ_ENTRY) /
                    (res.msgs * (double)MSG) : 0, res.host_runs,
                    res.rtx_again);
            fflush(f);
            printf("srnic-fig11: loss %5g %%  %-9s %6.2f Gb/s (%5.1f %% of "
                   "line payload) wire %6.2f Gb/s, %" PRIu64 " messages "
                   "verified, %" PRIu64 " lost, %" PRIu64 " timeouts\n",
                   loss[i], k ? "SRNIC" : "go-back-N", res.gbps,
                   100 * res.gbps / line_payload[k], res.wire_gbps,
                   res.verified, res.lost, res.timeouts);
        }
    }
    fclose(f);
    printf("srnic-fig11-repro: wrote %s/{model,fig11}.csv\n", out);
    return 0;
}
