/*
 * Unit tests of the simulator's NIC timing model (tests/sim/README.md):
 * the PCIe read channel behind dma_read_done, payload reads and the line
 * rate on transmit, the receive WQE fetch and DMA writes on receive, a
 * MAC that obeys PFC, and the cached-QPC mode (an LRU of QP contexts, a
 * miss stalling the pipeline for a read). Every time is virtual and exact.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "fake-host.h"
#include "sim-eth.h"
#include "port/wire.h"

/* Round numbers: 16 bytes per ns of PCIe, 12.5 per ns of line rate */
static const SnicSimNicTiming model = {
    .pcie_rtt_ns = 1000,
    .pcie_bps = 128000000000ull,
    .pipeline_ns = 10,
    .line_rate_bps = 100000000000ull,
    .untagged_priority = SNIC_SIM_ROCE_PRIORITY,
};

static const SnicSimLinkConfig wire = {
    .bandwidth_bps = 100000000000ull,
    .delay_ns = 500,
    .eth_framing = true,
};

typedef struct Sink {
    SnicSim *sim;
    unsigned n;
    uint64_t at[16];
    uint8_t op[16];
} Sink;

static void sink_rx(void *opaque, unsigned src, const uint8_t *f, size_t len)
{
    Sink *k = opaque;
    SnicSimFrameInfo fi;

    g_assert_cmpuint(k->n, <, G_N_ELEMENTS(k->at));
    snic_sim_frame_info(f, len, &fi);
    g_assert_true(fi.roce);
    k->op[k->n] = fi.opcode;
    k->at[k->n++] = snic_sim_now(k->sim);
}

/* A RoCE frame to QP dqpn of the fake host with 'payload' bytes. */
static size_t roce_frame_to(uint8_t *buf, size_t cap, uint8_t op,
                            uint32_t payload, uint32_t dqpn)
{
    static uint8_t data[4096];
    SnicPkt p;
    size_t len;

    memset(&p, 0, sizeof(p));
    memcpy(p.addr.dmac, fake_mac, 6);
    p.addr.smac[0] = 2;
    p.addr.sip[0] = p.addr.dip[0] = 10;
    p.addr.sip[3] = 9;
    p.addr.dip[3] = 1;
    p.addr.hop_limit = 64;
    p.opcode = op;
    p.pkey = SNIC_DEFAULT_PKEY;
    p.dqpn = dqpn;
    p.reth.len = payload;
    p.payload = data;
    p.payload_len = payload;
    len = snic_wire_build(&p, buf, cap);
    g_assert_cmpuint(len, >, 0);
    return len;
}

static size_t roce_frame(uint8_t *buf, size_t cap, uint8_t op,
                         uint32_t payload)
{
    return roce_frame_to(buf, cap, op, payload, 0x99);
}

/* A timed host on 'sim' linked to a sink endpoint. */
static FakeHost *timed_host(SnicSim *sim, const SnicSimNicTiming *t,
                            Sink *k)
{
    SnicCoreConfig cfg = { 0 };
    FakeHost *h = fake_host_new_model(&cfg, t);
    unsigned sink;

    fake_host_attach_sim(h, sim);
    k->sim = sim;
    sink = snic_sim_add_endpoint(sim, sink_rx, k);
    h->port.peer = h->port.mac.peer = sink;
    snic_sim_connect(sim, h->port.ep, sink, &wire);
    return h;
}

static void test_untimed_has_no_op(void)
{
    FakeHost *h = fake_host_new();

    g_assert_null(h->ops.dma_read_done);
    fake_host_free(h);
}

/* A read issued at t completes at t + RTT + len / bandwidth. */
static void test_read_alone(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    FakeHost *h = timed_host(sim, &model, &k);

    snic_sim_run_until(sim, 5000);
    g_assert_cmpuint(h->ops.dma_read_done(h, 4096), ==, 5000 + 1000 + 256);
    /* long after: the channel is idle again */
    snic_sim_run_until(sim, 20000);
    g_assert_cmpuint(h->ops.dma_read_done(h, 64), ==, 20000 + 1000 + 4);
    g_assert_cmpuint(h->port.stats.pcie_reads, ==, 2);
    g_assert_cmpuint(h->port.stats.pcie_read_bytes, ==, 4096 + 64);
    fake_host_free(h);
    snic_sim_free(sim);
}

/* Reads in flight overlap their round trips but share the bandwidth. */
static void test_reads_share_bandwidth(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    FakeHost *h = timed_host(sim, &model, &k);
    uint64_t t = 3000, done[8];
    unsigned i;

    snic_sim_run_until(sim, t);
    for (i = 0; i < 8; i++) {
        done[i] = h->ops.dma_read_done(h, 1024);     /* 64 ns each */
    }
    for (i = 0; i < 8; i++) {
        g_assert_cmpuint(done[i], ==, t + 1000 + 64 * (i + 1));
    }
    /* eight 1 KiB reads take one round trip plus their data, not 8 RTTs */
    g_assert_cmpuint(done[7] - t, <, 2 * model.pcie_rtt_ns);
    /* halfway through, a new read queues behind the data still due */
    snic_sim_run_until(sim, t + 256);
    g_assert_cmpuint(h->ops.dma_read_done(h, 16), ==, t + 512 + 1 + 1000);
    fake_host_free(h);
    snic_sim_free(sim);
}

/*
 * desc_priority: a descriptor read (dma_read_done, the WQE fetch) waits
 * for the descriptor reads before it, not for payload reads queued on
 * the channel; its bytes still delay the reads issued after it. Without
 * it, the same read queues behind the payload (FIFO).
 */
static void test_desc_priority(void)
{
    SnicSimNicTiming prio = model;
    uint8_t big[4200];
    size_t blen = roce_frame(big, sizeof(big), SNIC_OP_RC_WRITE_ONLY, 4096);
    const uint64_t t = 2000;
    unsigned on;

    for (on = 0; on < 2; on++) {
        SnicSim *sim = snic_sim_new(1);
        Sink k = { 0 };
        FakeHost *h;

        prio.desc_priority = on;
        h = timed_host(sim, &prio, &k);
        snic_sim_run_until(sim, t);
        snic_sim_port_tx(&h->port, big, blen, 4096); /* 256 ns of data */
        if (on) {
            g_assert_cmpuint(h->ops.dma_read_done(h, 64), ==, t + 4 + 1000);
            g_assert_cmpuint(h->ops.dma_read_done(h, 64), ==, t + 8 + 1000);
        } else {
            g_assert_cmpuint(h->ops.dma_read_done(h, 64), ==,
                             t + 256 + 4 + 1000);
            g_assert_cmpuint(h->ops.dma_read_done(h, 64), ==,
                             t + 256 + 8 + 1000);
        }
        /* the next payload read queues behind all of it either way */
        snic_sim_port_tx(&h->port, big, blen, 4096);
        g_assert_cmpuint(h->port.rd_free_ps, ==, (t + 256 + 8 + 256) * 1000);
        g_assert_cmpuint(h->port.stats.pcie_read_bytes, ==, 2 * 4096 + 128);
        snic_sim_run(sim, UINT64_MAX);
        g_assert_cmpuint(k.n, ==, 2);
        fake_host_free(h);
        snic_sim_free(sim);
    }
}

/* SRNIC's defaults: 115 Gb/s, a 4 KiB read's data in 284.9 ns (up: 285) */
static void test_srnic_defaults(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    FakeHost *h = timed_host(sim, &snic_sim_srnic_timing, &k);

    g_assert_cmpuint(h->ops.dma_read_done(h, 4096), ==, 0 + 285 + 1100);
    fake_host_free(h);
    snic_sim_free(sim);
}

/*
 * A frame leaves no earlier than its payload's read completes, then the
 * pipeline and the line rate; a small frame after a big one waits for it.
 */
static void test_tx_payload_and_order(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    FakeHost *h = timed_host(sim, &model, &k);
    uint8_t big[4200], ack[128];
    size_t blen = roce_frame(big, sizeof(big), SNIC_OP_RC_WRITE_ONLY, 4096);
    size_t alen = roce_frame(ack, sizeof(ack), SNIC_OP_RC_ACK, 0);
    uint64_t t = 2000, ready, start_ack;

    snic_sim_run_until(sim, t);
    snic_sim_port_tx(&h->port, big, blen, 4096);
    snic_sim_port_tx(&h->port, ack, alen, 0);
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(k.n, ==, 2);
    g_assert_cmpuint(k.op[0], ==, SNIC_OP_RC_WRITE_ONLY);
    g_assert_cmpuint(k.op[1], ==, SNIC_OP_RC_ACK);
    /* read 4096 B (256 ns + RTT), pipeline, serialise, propagate */
    ready = t + 256 + 1000 + 10;
    g_assert_cmpuint(k.at[0], ==,
                     ready + snic_sim_tx_ns(&wire, blen) + wire.delay_ns);
    /* the ACK reads nothing but follows the WRITE out of the MAC */
    start_ack = (ready * 1000 + snic_sim_eth_wire_bytes(blen) * 80 + 999) /
                1000;
    g_assert_cmpuint(k.at[1], ==,
                     start_ack + snic_sim_tx_ns(&wire, alen) + wire.delay_ns);
    g_assert_cmpuint(h->port.mac.stats.frames, ==, 2);
    /* the link never queued: the MAC handed frames over at its pace */
    g_assert_cmpuint(snic_sim_link_stats(sim, h->port.ep,
                                         h->port.peer)->max_queue_bytes,
                     ==, 0);
    fake_host_free(h);
    snic_sim_free(sim);
}

/* Back to back, frames leave at the line rate, framing counted. */
static void test_tx_line_rate(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    SnicSimNicTiming t = { .line_rate_bps = model.line_rate_bps };
    FakeHost *h = timed_host(sim, &t, &k);
    uint8_t f[128];
    size_t len = roce_frame(f, sizeof(f), SNIC_OP_RC_ACK, 0);
    unsigned i;

    for (i = 0; i < 10; i++) {
        snic_sim_port_tx(&h->port, f, len, 0);
    }
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(k.n, ==, 10);
    /* a 62-byte ACK is 62 + 4 + 20 bytes on the wire: 6.88 ns */
    g_assert_cmpuint(len, ==, 62);
    for (i = 1; i < 10; i++) {
        uint64_t start = (uint64_t)(i * 6880 + 999) / 1000;

        g_assert_cmpuint(k.at[i], ==, start + snic_sim_tx_ns(&wire, len) +
                         wire.delay_ns);
    }
    fake_host_free(h);
    snic_sim_free(sim);
}

typedef struct Room {
    SnicSim *sim;
    unsigned n;
    uint64_t at;
} Room;

static void room_seen(void *opaque)
{
    Room *r = opaque;

    r->n++;
    r->at = snic_sim_now(r->sim);
}

/*
 * A transmit FIFO of two ACKs: five queued make it full, and room is
 * reported once, as the third starts (two left), not again as the rest
 * drain; without a FIFO the MAC is never full.
 */
static void test_tx_fifo_room(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    Room r = { .sim = sim };
    SnicSimNicTiming t = { .line_rate_bps = model.line_rate_bps };
    FakeHost *h = timed_host(sim, &t, &k);
    uint8_t f[128];
    size_t len = roce_frame(f, sizeof(f), SNIC_OP_RC_ACK, 0);
    unsigned i;

    g_assert_false(snic_sim_mac_full(&h->port.mac));
    snic_sim_mac_set_fifo(&h->port.mac, 2 * len, room_seen, &r);
    g_assert_false(snic_sim_mac_full(&h->port.mac));
    for (i = 0; i < 5; i++) {
        snic_sim_port_tx(&h->port, f, len, 0);
    }
    g_assert_true(snic_sim_mac_full(&h->port.mac));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(k.n, ==, 5);
    g_assert_cmpuint(r.n, ==, 1);
    /* the third's start, as in tx-line-rate */
    g_assert_cmpuint(r.at, ==, (2 * 6880 + 999) / 1000);
    g_assert_false(snic_sim_mac_full(&h->port.mac));
    fake_host_free(h);
    snic_sim_free(sim);
}

/* Deliver a frame from the sink's side of the link at 'at'. */
static void inject(SnicSim *sim, FakeHost *h, uint64_t at, const uint8_t *f,
                   size_t len)
{
    snic_sim_run_until(sim, at - wire.delay_ns - snic_sim_tx_ns(&wire, len));
    g_assert_true(snic_sim_send(sim, h->port.peer, h->port.ep, f, len));
}

static uint64_t rdma_rx(FakeHost *h)
{
    return FAKE_STAT(h, rdma_rx_packets);
}

/*
 * Receive: the first packet of a SEND fetches its receive WQE (one round
 * trip), the pipeline takes it, its payload is written; a packet after it
 * reaches the core after it.
 */
static void test_rx_wqe_fetch_and_order(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    FakeHost *h = timed_host(sim, &model, &k);
    uint8_t send[1200], mid[1200];
    size_t slen = roce_frame(send, sizeof(send), SNIC_OP_RC_SEND_FIRST, 1024);
    size_t mlen = roce_frame(mid, sizeof(mid), SNIC_OP_RC_SEND_MIDDLE, 1024);
    uint64_t t = 10000, first, second;

    fake_enable(h, 4, 4);
    inject(sim, h, t, send, slen);
    inject(sim, h, t + 100, mid, mlen);
    /* WQE: 64 B (4 ns) + RTT; pipeline; payload write 1024 B (64 ns) */
    first = t + 4 + 1000 + 10 + 64;
    snic_sim_run_until(sim, first - 1);
    g_assert_cmpuint(rdma_rx(h), ==, 0);
    snic_sim_run_until(sim, first);
    g_assert_cmpuint(rdma_rx(h), ==, 1);
    /* no WQE for the middle packet: its write follows the first's */
    second = first + 64;
    snic_sim_run_until(sim, second - 1);
    g_assert_cmpuint(rdma_rx(h), ==, 1);
    snic_sim_run_until(sim, second);
    g_assert_cmpuint(rdma_rx(h), ==, 2);
    g_assert_cmpuint(h->port.stats.rq_wqe_fetches, ==, 1);
    g_assert_cmpuint(h->port.stats.pcie_write_bytes, ==, 2048);
    fake_host_free(h);
    snic_sim_free(sim);
}

/*
 * A WRITE with immediate fetches a receive WQE as it arrives; with
 * write_imm_no_recv_wqe (a plain WRITE's cost, the StRoM reproduction's
 * "plain" answer) it does not, and reaches the core a round trip sooner.
 */
static void test_rx_write_imm_wqe(void)
{
    unsigned plain;

    for (plain = 0; plain < 2; plain++) {
        SnicSim *sim = snic_sim_new(1);
        Sink k = { 0 };
        SnicSimNicTiming t = model;
        FakeHost *h;
        uint8_t f[1200];
        size_t len = roce_frame(f, sizeof(f), SNIC_OP_RC_WRITE_ONLY_IMM, 1024);
        uint64_t at = 10000, done;

        t.write_imm_no_recv_wqe = plain;
        h = timed_host(sim, &t, &k);
        fake_enable(h, 4, 4);
        inject(sim, h, at, f, len);
        /* (WQE: 64 B, 4 ns, + RTT;) pipeline; payload write 64 ns */
        done = at + (plain ? 0 : 4 + 1000) + 10 + 64;
        snic_sim_run_until(sim, done - 1);
        g_assert_cmpuint(rdma_rx(h), ==, 0);
        snic_sim_run_until(sim, done);
        g_assert_cmpuint(rdma_rx(h), ==, 1);
        g_assert_cmpuint(h->port.stats.rq_wqe_fetches, ==, !plain);
        fake_host_free(h);
        snic_sim_free(sim);
    }
}

/* A reset loses what is still in the receive pipeline. */
static void test_rx_purge(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    FakeHost *h = timed_host(sim, &model, &k);
    uint8_t send[200];
    size_t len = roce_frame(send, sizeof(send), SNIC_OP_RC_SEND_ONLY, 64);
    unsigned purges;

    fake_enable(h, 4, 4);
    inject(sim, h, 5000, send, len);
    snic_sim_run_until(sim, 5001);
    g_assert_cmpuint(h->port.rx_queue.length, ==, 1);
    purges = h->rx_purges;
    snic_core_reset(h->core);
    g_assert_cmpuint(h->rx_purges, >, purges);
    g_assert_cmpuint(h->port.rx_queue.length, ==, 0);
    fake_enable(h, 4, 4);
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(rdma_rx(h), ==, 0);
    fake_host_free(h);
    snic_sim_free(sim);
}

/* Obeying PFC: the MAC holds frames of a paused priority, then resumes. */
static void test_mac_obeys_pause(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    SnicSimNicTiming t = {
        .line_rate_bps = model.line_rate_bps,
        .obey_pause = true,
        .untagged_priority = 3,
    };
    FakeHost *h = timed_host(sim, &t, &k);
    static const uint8_t sw_mac[6] = { 2, 0, 0, 0, 0, 1 };
    uint16_t quanta[SNIC_SIM_PRIORITIES] = { 0 };
    uint8_t pfc[SNIC_SIM_PFC_FRAME_LEN], f[128];
    size_t len = roce_frame(f, sizeof(f), SNIC_OP_RC_ACK, 0);
    uint64_t pause_ns, arrive = 1000;

    /* pause priority 3 for 1000 quanta: 512000 bits, 5120 ns at 100G */
    quanta[3] = 1000;
    pause_ns = snic_sim_pfc_quanta_ns(1000, t.line_rate_bps);
    g_assert_cmpuint(pause_ns, ==, 5120);
    snic_sim_pfc_build(pfc, sw_mac, 1u << 3, quanta);
    inject(sim, h, arrive, pfc, sizeof(pfc));
    snic_sim_run_until(sim, arrive);
    snic_sim_port_tx(&h->port, f, len, 0);
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(k.n, ==, 1);
    g_assert_cmpuint(k.at[0], ==, arrive + pause_ns +
                     snic_sim_tx_ns(&wire, len) + wire.delay_ns);
    g_assert_cmpuint(snic_sim_mac_paused_ns(&h->port.mac, 3), ==, pause_ns);
    g_assert_cmpuint(h->port.mac.pause.frames, ==, 1);
    /*
     * The core saw it too (at once, not over PCIe): it is not enabled
     * here, so it dropped it; it never became an Ethernet frame
     */
    g_assert_cmpuint(FAKE_STAT(h, rx_dropped), ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 0);
    g_assert_cmpuint(h->port.stats.pcie_writes, ==, 0);

    /* a long pause, ended early by an XON; other priorities never wait */
    quanta[3] = 0xffff;
    snic_sim_pfc_build(pfc, sw_mac, 1u << 3, quanta);
    arrive = 20000;
    inject(sim, h, arrive, pfc, sizeof(pfc));
    snic_sim_run_until(sim, arrive);
    snic_sim_port_tx(&h->port, f, len, 0);
    quanta[3] = 0;
    snic_sim_pfc_build(pfc, sw_mac, 1u << 3, quanta);
    inject(sim, h, arrive + 3000, pfc, sizeof(pfc));
    snic_sim_run(sim, UINT64_MAX);
    g_assert_cmpuint(k.n, ==, 2);
    g_assert_cmpuint(k.at[1], ==, arrive + 3000 +
                     snic_sim_tx_ns(&wire, len) + wire.delay_ns);
    g_assert_cmpuint(snic_sim_mac_paused_ns(&h->port.mac, 3), ==,
                     pause_ns + 3000);
    g_assert_cmpuint(snic_sim_mac_paused_ns(&h->port.mac, 0), ==, 0);
    fake_host_free(h);
    snic_sim_free(sim);
}

/* Not obeying PFC, the MAC passes PFC frames to the core, not over PCIe. */
static void test_pause_to_core(void)
{
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    FakeHost *h = timed_host(sim, &model, &k);
    static const uint8_t sw_mac[6] = { 2, 0, 0, 0, 0, 1 };
    uint16_t quanta[SNIC_SIM_PRIORITIES] = { 0 };
    uint8_t pfc[SNIC_SIM_PFC_FRAME_LEN];

    quanta[3] = 0xffff;
    snic_sim_pfc_build(pfc, sw_mac, 1u << 3, quanta);
    inject(sim, h, 1000, pfc, sizeof(pfc));
    snic_sim_run(sim, UINT64_MAX);
    /* the core is not enabled: it took the frame and dropped it */
    g_assert_cmpuint(FAKE_STAT(h, rx_dropped), ==, 1);
    g_assert_cmpuint(h->port.mac.pause.frames, ==, 0);
    g_assert_cmpuint(h->port.stats.pcie_writes, ==, 0);
    fake_host_free(h);
    snic_sim_free(sim);
}

/* The QPC cache: least recently used out first, every use counted. */
static void test_qpc_cache_lru(void)
{
    SnicSimQpcCache q;

    snic_sim_qpc_cache_init(&q, 2);
    g_assert_false(snic_sim_qpc_cache_use(&q, 0));      /* key 0 is one */
    g_assert_false(snic_sim_qpc_cache_use(&q, 2));
    g_assert_true(snic_sim_qpc_cache_use(&q, 0));       /* 0 most recent */
    g_assert_false(snic_sim_qpc_cache_use(&q, 3));      /* 2 leaves */
    g_assert_false(snic_sim_qpc_cache_holds(&q, 2));
    g_assert_true(snic_sim_qpc_cache_holds(&q, 0));
    g_assert_true(snic_sim_qpc_cache_holds(&q, 3));
    g_assert_false(snic_sim_qpc_cache_use(&q, 2));      /* 0 leaves */
    g_assert_false(snic_sim_qpc_cache_holds(&q, 0));
    g_assert_true(snic_sim_qpc_cache_use(&q, 3));
    g_assert_cmpuint(q.hits, ==, 2);
    g_assert_cmpuint(q.misses, ==, 4);
    g_assert_cmpuint(q.evictions, ==, 2);
    g_assert_cmpuint(q.lru.length, ==, 2);
    snic_sim_qpc_cache_destroy(&q);
}

/* The QP a transmitted frame belongs to, in the test below */
static uint32_t tx_qpn_7(void *opaque, uint32_t dqpn)
{
    g_assert_cmpuint(dqpn, ==, 0x99);
    return 7;
}

/*
 * Cached-QPC mode, one entry of 256 bytes (16 ns of PCIe): a frame whose
 * QPC is not cached waits a read of it (RTT) in the receive pipeline, and
 * the frame behind it waits too; a hit costs nothing. A transmitted frame
 * counts for its sending QP (the host's map), the same entry as what that
 * QP receives.
 */
static void test_qpc_miss(void)
{
    SnicSimNicTiming t = model;
    SnicSim *sim = snic_sim_new(1);
    Sink k = { 0 };
    FakeHost *h;
    uint8_t f99[1200], f98[1200], f7[1200];
    size_t l99 = roce_frame_to(f99, sizeof(f99), SNIC_OP_RC_SEND_MIDDLE,
                               1024, 0x99);
    size_t l98 = roce_frame_to(f98, sizeof(f98), SNIC_OP_RC_SEND_MIDDLE,
                               1024, 0x98);
    size_t l7 = roce_frame_to(f7, sizeof(f7), SNIC_OP_RC_SEND_MIDDLE,
                              1024, 7);
    uint64_t at = 10000, first, second;

    t.qpc_cache_entries = 1;
    t.qpc_bytes = 256;
    h = timed_host(sim, &t, &k);
    fake_enable(h, 4, 4);
    /* miss: QPC 16 ns + RTT; pipeline; payload write 64 ns */
    inject(sim, h, at, f99, l99);
    inject(sim, h, at + 100, f99, l99);
    first = at + 16 + 1000 + 10 + 64;
    snic_sim_run_until(sim, first - 1);
    g_assert_cmpuint(rdma_rx(h), ==, 0);
    snic_sim_run_until(sim, first);
    g_assert_cmpuint(rdma_rx(h), ==, 1);
    /* the hit behind it: its write follows the first's */
    second = first + 64;
    snic_sim_run_until(sim, second);
    g_assert_cmpuint(rdma_rx(h), ==, 2);
    /* long after, a hit: pipeline and write only */
    at = 20000;
    inject(sim, h, at, f99, l99);
    snic_sim_run_until(sim, at + 10 + 64);
    g_assert_cmpuint(rdma_rx(h), ==, 3);
    /* QP 0x98 takes the one entry: a miss; 0x99 misses again */
    inject(sim, h, 30000, f98, l98);
    inject(sim, h, 40000, f99, l99);
    snic_sim_run_until(sim, 50000);
    g_assert_cmpuint(rdma_rx(h), ==, 5);
    g_assert_cmpuint(h->port.stats.qpc_misses, ==, 3);
    g_assert_cmpuint(h->port.stats.qpc_hits, ==, 2);
    /* sending to 0x99 is QP 7's: 7's frames in are hits after it */
    snic_sim_port_set_tx_qpn(&h->port, tx_qpn_7, NULL);
    g_assert_true(snic_sim_port_tx(&h->port, f99, l99, 1024));
    inject(sim, h, 60000, f7, l7);
    snic_sim_run_until(sim, 70000);
    g_assert_cmpuint(h->port.stats.qpc_misses, ==, 4);
    g_assert_cmpuint(h->port.stats.qpc_hits, ==, 3);
    g_assert_cmpuint(k.n, ==, 1);
    fake_host_free(h);
    snic_sim_free(sim);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sim-timing/untimed-has-no-op", test_untimed_has_no_op);
    g_test_add_func("/sim-timing/read-alone", test_read_alone);
    g_test_add_func("/sim-timing/reads-share-bandwidth",
                    test_reads_share_bandwidth);
    g_test_add_func("/sim-timing/srnic-defaults", test_srnic_defaults);
    g_test_add_func("/sim-timing/desc-priority", test_desc_priority);
    g_test_add_func("/sim-timing/tx-payload-and-order",
                    test_tx_payload_and_order);
    g_test_add_func("/sim-timing/tx-line-rate", test_tx_line_rate);
    g_test_add_func("/sim-timing/tx-fifo-room", test_tx_fifo_room);
    g_test_add_func("/sim-timing/rx-wqe-fetch-and-order",
                    test_rx_wqe_fetch_and_order);
    g_test_add_func("/sim-timing/rx-write-imm-wqe", test_rx_write_imm_wqe);
    g_test_add_func("/sim-timing/rx-purge", test_rx_purge);
    g_test_add_func("/sim-timing/mac-obeys-pause", test_mac_obeys_pause);
    g_test_add_func("/sim-timing/pause-to-core", test_pause_to_core);
    g_test_add_func("/sim-timing/qpc-cache-lru", test_qpc_cache_lru);
    g_test_add_func("/sim-timing/qpc-miss", test_qpc_miss);
    return g_test_run();
}
