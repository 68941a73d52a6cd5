/*
 * The device's end of the wire: fault injection (drop, duplicate,
 * reorder), ECN marking of received frames, capture of every frame sent
 * and received, and the port's receive buffer with 802.1Qbb PFC as the
 * receiver (XOFF at a quarter of the buffer, refreshed, XON at an
 * eighth; lossy when PFC is off). The sender's side of PFC, its scheduler stopping, is in test-sched.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib/gstdio.h>

#include "core_int.h"
#include "fake-host.h"
#include "port/pcap.h"
#include "port/wire.h"
#include "port/link.h"
#include "transport/transport.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static FakeHost *host_with(uint32_t drop, uint32_t dup, uint32_t reorder)
{
    SnicCoreConfig cfg = {
        .faults = { .drop_pct = drop, .dup_pct = dup,
                    .reorder_pct = reorder, .seed = 1 },
        .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY,
    };
    FakeHost *h = fake_host_new_cfg(&cfg);

    fake_enable(h, 4, 4);
    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 4, 2, 0);
    return h;
}

#define FRAME_LEN   (14 + 64)

/*
 * Send n (<= 16) frames in one burst from TX ring index *pi on; frame i
 * of the burst carries byte i after the Ethernet header.
 */
static void send_burst(FakeHost *h, uint32_t *pi, unsigned n)
{
    uint8_t frame[FRAME_LEN];
    unsigned i;

    for (i = 0; i < n; i++) {
        uint32_t slot = (*pi + i) & 15;
        struct snic_eth_desc d = {
            .addr = GUINT64_TO_LE(FAKE_BUFS + slot * 256),
            .len = GUINT16_TO_LE(FRAME_LEN),
            .flags = GUINT16_TO_LE(SNIC_ETH_DESC_EOP),
        };

        g_assert_cmpuint(fake_frame(frame, bcast, 0x0800, 64, 0), ==,
                         FRAME_LEN);
        frame[14] = i;
        fake_write(h, FAKE_BUFS + slot * 256, frame, FRAME_LEN);
        fake_write(h, FAKE_TX_RING + slot * SNIC_ETH_DESC_SIZE, &d,
                   sizeof(d));
    }
    *pi += n;
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, *pi);
    fake_run(h);
}

static unsigned sent_id(FakeHost *h, unsigned i)
{
    GByteArray *f = g_ptr_array_index(h->frames, i);

    return f->data[14];
}

static void test_no_faults(void)
{
    FakeHost *h = host_with(0, 0, 0);
    uint32_t pi = 0;
    unsigned i;

    send_burst(h, &pi, 8);
    g_assert_cmpuint(h->frames->len, ==, 8);
    for (i = 0; i < 8; i++) {
        g_assert_cmpuint(sent_id(h, i), ==, i);
    }
    fake_host_free(h);
}

static void test_drop_all(void)
{
    FakeHost *h = host_with(100, 0, 0);
    uint32_t pi = 0;

    send_burst(h, &pi, 8);
    g_assert_cmpuint(h->frames->len, ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, wire_drops_injected), ==, 8);
    /* the device itself sent them: its own counters do not change */
    g_assert_cmpuint(FAKE_STAT(h, tx_frames), ==, 8);
    fake_host_free(h);
}

static void test_dup_all(void)
{
    FakeHost *h = host_with(0, 100, 0);
    uint32_t pi = 0;
    unsigned i;

    send_burst(h, &pi, 4);
    g_assert_cmpuint(h->frames->len, ==, 8);
    for (i = 0; i < 8; i++) {
        g_assert_cmpuint(sent_id(h, i), ==, i / 2);
    }
    g_assert_cmpuint(FAKE_STAT(h, wire_dups_injected), ==, 4);
    fake_host_free(h);
}

/* Every frame that can be held back is: pairs swap, none is lost. */
static void test_reorder_all(void)
{
    static const unsigned want[5] = { 1, 0, 3, 2, 4 };
    FakeHost *h = host_with(0, 0, 100);
    uint32_t pi = 0;
    unsigned i;

    send_burst(h, &pi, 5);
    g_assert_cmpuint(h->frames->len, ==, 5);   /* the last at burst end */
    for (i = 0; i < 5; i++) {
        g_assert_cmpuint(sent_id(h, i), ==, want[i]);
    }
    g_assert_cmpuint(FAKE_STAT(h, wire_reorders_injected), ==, 3);
    fake_host_free(h);
}

/* 10 % drop over 2000 frames: close to 10 %, and the same for the seed. */
static void test_drop_rate_and_seed(void)
{
    unsigned got[2], round, burst;

    for (round = 0; round < 2; round++) {
        FakeHost *h = host_with(10, 0, 0);
        uint32_t pi = 0;

        for (burst = 0; burst < 125; burst++) {
            send_burst(h, &pi, 16);
        }
        got[round] = h->frames->len;
        g_assert_cmpuint(FAKE_STAT(h, wire_drops_injected), ==,
                         2000 - got[round]);
        fake_host_free(h);
    }
    g_assert_cmpuint(got[0], ==, got[1]);
    g_assert_cmpuint(got[0], >, 1700);
    g_assert_cmpuint(got[0], <, 1900);
}

static void test_bad_percentages(void)
{
    SnicCoreConfig cfg = { .num_db_pages = 1, .num_vectors = 1 };
    GError *err = NULL;

    cfg.faults.drop_pct = 101;
    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_assert_cmpstr(err->message, ==, "wire-drop=101 is not a percentage "
                    "(0..100)");
    g_clear_error(&err);
    cfg.faults.drop_pct = 0;
    cfg.faults.reorder_pct = 1000;
    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_assert_cmpstr(err->message, ==, "wire-reorder=1000 is not a "
                    "percentage (0..100)");
    g_clear_error(&err);
    cfg.faults.reorder_pct = 0;
    cfg.faults.ce_pct = 101;
    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_assert_cmpstr(err->message, ==, "wire-ecn-mark=101 is not a "
                    "percentage (0..100)");
    g_clear_error(&err);
    cfg.faults.ce_pct = 0;
    cfg.faults.corrupt_pct = 101;
    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_assert_cmpstr(err->message, ==, "x-wire-corrupt=101 is not a "
                    "percentage (0..100)");
    g_clear_error(&err);
}

/* ---- faults changed at run time (qom-set) ---- */

/* A burst of 16: which of its frames went out (bit i: frame i) */
static unsigned burst_kept(FakeHost *h, uint32_t *pi)
{
    unsigned before = h->frames->len, kept = 0, i;

    send_burst(h, pi, 16);
    for (i = before; i < h->frames->len; i++) {
        kept |= 1u << sent_id(h, i);
    }
    return kept;
}

static void set_drop(FakeHost *h, uint32_t pct, uint64_t seed, bool reseed)
{
    SnicLinkFaults f = { .drop_pct = pct, .seed = seed };

    g_assert_true(snic_core_set_faults(h->core, &f, reseed, NULL));
}

/*
 * A new percentage keeps the PRNG where it was: the frames after a burst
 * at another percentage are dropped as they would have been without the
 * change (each frame draws once, at any percentage but 0). Setting the
 * seed starts the draws over: the same frames are dropped again.
 */
static void test_faults_run_time(void)
{
    FakeHost *ref = host_with(50, 0, 0), *h = host_with(50, 0, 0);
    unsigned want[4], b;
    uint32_t pr = 0, ph = 0;
    GError *err = NULL;

    for (b = 0; b < 4; b++) {
        want[b] = burst_kept(ref, &pr);
    }
    g_assert_cmphex(want[0], !=, want[1]);      /* the seed gives a mix */
    g_assert_cmphex(burst_kept(h, &ph), ==, want[0]);
    set_drop(h, 100, 1, false);
    g_assert_cmphex(burst_kept(h, &ph), ==, 0);
    set_drop(h, 50, 1, false);
    g_assert_cmphex(burst_kept(h, &ph), ==, want[2]);
    set_drop(h, 50, 1, true);
    g_assert_cmphex(burst_kept(h, &ph), ==, want[0]);
    g_assert_cmphex(burst_kept(h, &ph), ==, want[1]);
    set_drop(h, 0, 1, false);
    g_assert_cmphex(burst_kept(h, &ph), ==, 0xffff);
    /* refused as at start, and nothing changes */
    {
        SnicLinkFaults bad = { .drop_pct = 50, .dup_pct = 101 };

        g_assert_false(snic_core_set_faults(h->core, &bad, true, &err));
        g_assert_cmpstr(err->message, ==, "wire-dup=101 is not a "
                        "percentage (0..100)");
        g_clear_error(&err);
    }
    g_assert_cmphex(burst_kept(h, &ph), ==, 0xffff);
    fake_host_free(ref);
    fake_host_free(h);
}

/* Frames sent and received land in the capture, in order, whole. */
static void test_capture(void)
{
    g_autofree char *dir = g_dir_make_tmp("snic-link-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "cap.pcap", NULL);
    g_autofree char *data = NULL;
    FakeHost *h = host_with(0, 100, 0);
    uint8_t frame[128];
    size_t len = fake_frame(frame, fake_mac, 0x0800, 80, 0x5a), flen;
    uint32_t pi = 0;

    snic_core_set_pcap(h->core, snic_pcap_open(path));
    send_burst(h, &pi, 2);                      /* 4 on the wire */
    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 1, 0);
    /* taken without an RX buffer (it waits in the FIFO), and again with */
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    {
        struct snic_eth_desc d = {
            .addr = GUINT64_TO_LE(FAKE_BUFS + 0x8000),
            .len = GUINT16_TO_LE(2048),
        };

        fake_write(h, FAKE_RX_RING, &d, sizeof(d));
        fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 1);
        fake_run(h);
    }
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    fake_host_free(h);                          /* closes the capture */

    g_assert_true(g_file_get_contents(path, &data, &flen, NULL));
    /* 24-byte file header, then 16-byte record headers */
    g_assert_cmpuint(flen, ==, 24 + 4 * (16 + FRAME_LEN) + 2 * (16 + len));
    g_assert_cmpmem(data + 24 + 4 * (16 + FRAME_LEN) + 16, len, frame, len);
    g_assert_cmpmem(data + flen - len, len, frame, len);
    g_unlink(path);
    g_rmdir(dir);
}

/* ---- the receive buffer and PFC as the receiver ---- */

#define PFC_PRIO        SNIC_DEFAULT_PFC_PRIORITY
#define RXB_KB          64      /* the smallest: XOFF 16 KiB, XON 8 KiB */
#define RXB_XOFF        (RXB_KB * 1024 / 4)
#define RXB_XON         (RXB_KB * 1024 / 8)
#define ROCE_PAYLOAD    1000

static const uint8_t pfc_mcast[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

/* ... with a port of 'mbps' (link-speed-mbps; 0: the default) */
static FakeHost *host_rxb_speed(bool lossy, uint32_t mbps)
{
    SnicCoreConfig cfg = {
        .rx_buffer_kb = RXB_KB,
        .pfc_priority = PFC_PRIO,
        .lossy = lossy,
        .link_speed_mbps = mbps,
    };
    FakeHost *h = fake_host_new_cfg(&cfg);

    fake_enable(h, 4, 4);
    return h;
}

static FakeHost *host_rxb(bool lossy)
{
    return host_rxb_speed(lossy, 0);
}

/*
 * A RoCE SEND Only for the port (QP 5, which does not exist: the engine
 * drops it, counted in rdma_rx_packets and rdma_rx_dropped, once it
 * leaves the receive buffer). pcp < 0: untagged, else 802.1Q with it.
 */
static size_t roce_frame(uint8_t *f, size_t size, int pcp)
{
    static const uint8_t payload[ROCE_PAYLOAD];
    SnicPkt p;
    size_t len;

    memset(&p, 0, sizeof(p));
    memcpy(p.addr.dmac, fake_mac, 6);
    memcpy(p.addr.smac, peer_mac, 6);
    p.addr.sip[0] = p.addr.dip[0] = 10;
    p.addr.sip[3] = 2;
    p.addr.dip[3] = 1;
    p.addr.hop_limit = 64;
    if (pcp >= 0) {
        p.addr.vlan = true;
        p.addr.vlan_tci = pcp << 13 | 1;
    }
    p.opcode = SNIC_OP_RC_SEND_ONLY;
    p.pkey = SNIC_DEFAULT_PKEY;
    p.dqpn = 5;
    p.payload = payload;
    p.payload_len = sizeof(payload);
    len = snic_wire_build(&p, f, size);
    g_assert_cmpuint(len, >, ROCE_PAYLOAD);
    return len;
}

/* n RoCE frames from the wire, the engine not run meanwhile. */
static void receive_roce(FakeHost *h, unsigned n, int pcp)
{
    uint8_t f[2048];
    size_t len = roce_frame(f, sizeof(f), pcp);

    while (n--) {
        g_assert_cmpint(snic_core_receive(h->core, f, len), ==, len);
    }
}

/* Frames a buffer holds before it reaches 'bytes' (2 bytes a record). */
static unsigned frames_below(unsigned bytes)
{
    uint8_t f[2048];

    return (bytes - 1) / (roce_frame(f, sizeof(f), -1) + 2);
}

/*
 * The PFC frames the device sent since the last call (forgotten, with the
 * other frames): each one checked as a valid 802.1Qbb frame by the
 * simulator's own parser, for our priority only; their times in 'quanta'.
 */
static unsigned take_pfc(FakeHost *h, uint16_t *quanta, unsigned max)
{
    unsigned i, n = 0;

    for (i = 0; i < h->frames->len; i++) {
        GByteArray *b = g_ptr_array_index(h->frames, i);
        uint16_t q[SNIC_SIM_PRIORITIES];
        unsigned p;
        uint8_t cev;

        if (b->len < 14 || b->data[12] != 0x88 || b->data[13] != 0x08) {
            continue;
        }
        g_assert_cmpuint(b->len, ==, SNIC_SIM_PFC_FRAME_LEN);
        g_assert_cmpmem(b->data, 6, pfc_mcast, 6);
        g_assert_cmpmem(b->data + 6, 6, fake_mac, 6);
        g_assert_true(snic_sim_pfc_parse(b->data, b->len, &cev, q));
        g_assert_cmpuint(cev, ==, 1u << PFC_PRIO);
        for (p = 0; p < SNIC_SIM_PRIORITIES; p++) {
            if (p != PFC_PRIO) {
                g_assert_cmpuint(q[p], ==, 0);
            }
        }
        g_assert_cmpuint(n, <, max);
        quanta[n++] = q[PFC_PRIO];
    }
    g_ptr_array_set_size(h->frames, 0);
    return n;
}

/*
 * Below XOFF nothing is sent; at XOFF the next engine run pauses the
 * partner (the longest time) before it takes frames; emptied to XON, the
 * buffer resumes it (time 0). Every frame reaches the engine.
 */
static void test_pfc_xoff_xon(void)
{
    FakeHost *h = host_rxb(false);
    unsigned below = frames_below(RXB_XOFF);
    uint16_t q[4];

    receive_roce(h, below, -1);
    fake_run(h);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, rdma_rx_packets), ==, below);
    g_assert_cmpuint(FAKE_STAT(h, rx_buffer_max), <, RXB_XOFF);

    receive_roce(h, below + 1, -1);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 0);    /* not from receive */
    g_assert_false(snic_core_rx_can_wait(h->core));
    snic_core_run(h->core, 2);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 1);
    g_assert_cmpuint(q[0], ==, 0xffff);
    g_assert_cmpuint(FAKE_STAT(h, pfc_pause_sent), ==, 1);
    g_assert_cmpuint(h->events[SNIC_TRACE_PFC_SENT], ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, rx_buffer_max), >=, RXB_XOFF);
    /* two frames taken: still above XON, the partner stays paused */
    g_assert_cmpuint(FAKE_STAT(h, rdma_rx_packets), ==, below + 2);

    fake_run(h);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 1);
    g_assert_cmpuint(q[0], ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, pfc_pause_sent), ==, 2);
    g_assert_cmpuint(FAKE_STAT(h, rdma_rx_packets), ==, 2 * below + 1);
    g_assert_cmpuint(FAKE_STAT(h, rdma_rx_dropped), ==, 2 * below + 1);
    g_assert_cmpuint(FAKE_STAT(h, rx_buffer_drops), ==, 0);
    /* RoCE never reaches the Ethernet function */
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 0);
    fake_host_free(h);
}

/*
 * Still above XON at half the pause's time, the port pauses the partner
 * again, so the pause never lapses while the buffer needs it. The
 * pause's time is the port's: 65535 quanta of 512 bit times at 100 Gb/s
 * (the default) and at 40 Gb/s (link-speed-mbps), rounded up.
 */
static void pfc_refresh(uint32_t mbps, uint64_t pause_ns)
{
    FakeHost *h = host_rxb_speed(false, mbps);
    uint16_t q[4];

    receive_roce(h, frames_below(RXB_XOFF) + 1, -1);
    snic_core_run(h->core, 1);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 1);
    g_assert_cmpuint(q[0], ==, 0xffff);

    fake_advance(h, pause_ns / 2 - 10);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 0);
    fake_advance(h, 10);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 1);
    g_assert_cmpuint(q[0], ==, 0xffff);

    fake_run(h);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 1);
    g_assert_cmpuint(q[0], ==, 0);
    /* resumed: no more refreshes */
    fake_advance(h, pause_ns);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, pfc_pause_sent), ==, 3);
    fake_host_free(h);
}

static void test_pfc_refresh(void)
{
    pfc_refresh(0, 335540);
    pfc_refresh(40000, 838848);
}

/*
 * A host's wire with its own queue (QEMU's socket) reports a backlog: the
 * port pauses the partner for it, with an empty buffer too, keeps it
 * paused while it lasts, and resumes it once it drained and the buffer
 * is at XON. With PFC off nothing is sent.
 */
static void test_pfc_wire_backlog(gconstpointer lossy)
{
    FakeHost *h = host_rxb(GPOINTER_TO_INT(lossy));
    const uint64_t pause_ns = 335540;
    uint16_t q[4];

    snic_core_wire_backlog(h->core, true);
    g_assert_false(snic_core_rx_can_wait(h->core) && !lossy);
    fake_run(h);
    if (lossy) {
        snic_core_wire_backlog(h->core, false);
        fake_run(h);
        fake_advance(h, pause_ns);
        g_assert_cmpuint(h->frames->len, ==, 0);
        fake_host_free(h);
        return;
    }
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 1);
    g_assert_cmpuint(q[0], ==, 0xffff);
    /* still backlogged at half the pause: renewed */
    fake_advance(h, pause_ns / 2);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 1);
    g_assert_cmpuint(q[0], ==, 0xffff);
    /* drained, but the buffer is above XON: still paused */
    receive_roce(h, frames_below(RXB_XOFF) + 1, -1);
    snic_core_wire_backlog(h->core, false);
    snic_core_run(h->core, 1);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 0);
    fake_run(h);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 1);
    g_assert_cmpuint(q[0], ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, pfc_pause_sent), ==, 3);
    fake_host_free(h);
}

/*
 * A partner that does not stop (or PFC off): the buffer takes what it
 * holds and drops the rest, counted; with PFC off nothing is ever paused.
 */
static void test_rxb_full_drops(gconstpointer lossy)
{
    FakeHost *h = host_rxb(GPOINTER_TO_INT(lossy));
    unsigned fit = frames_below(RXB_KB * 1024 + 1), n = fit + 10;
    uint16_t q[4];

    receive_roce(h, n, -1);
    g_assert_cmpuint(FAKE_STAT(h, rx_buffer_drops), ==, n - fit);
    fake_run(h);
    g_assert_cmpuint(FAKE_STAT(h, rdma_rx_packets), ==, fit);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, lossy ? 0 : 2);
    g_assert_cmpuint(FAKE_STAT(h, pfc_pause_sent), ==, lossy ? 0 : 2);
    fake_host_free(h);
}

/*
 * RoCE of another priority (802.1Q PCP) is lossy: taken below XOFF only,
 * so it never eats the RoCE priority's headroom; untagged RoCE is of the
 * RoCE priority, as is RoCE tagged with it.
 */
static void test_rxb_other_priority(void)
{
    FakeHost *h = host_rxb(false);
    unsigned below = frames_below(RXB_XOFF);

    receive_roce(h, 1, PFC_PRIO - 1);
    receive_roce(h, below, PFC_PRIO);
    g_assert_cmpuint(FAKE_STAT(h, rx_buffer_drops), ==, 0);
    /* at XOFF now: another priority is refused, ours still taken */
    receive_roce(h, 2, PFC_PRIO - 1);
    g_assert_cmpuint(FAKE_STAT(h, rx_buffer_drops), ==, 2);
    receive_roce(h, 2, -1);
    g_assert_cmpuint(FAKE_STAT(h, rx_buffer_drops), ==, 2);
    fake_run(h);
    g_assert_cmpuint(FAKE_STAT(h, rdma_rx_packets), ==, below + 3);
    fake_host_free(h);
}

/*
 * MAC control frames are the MAC's: a well-formed PFC frame is counted
 * (whatever priorities it names), anything else (802.3x PAUSE, another
 * opcode, too short, to a unicast MAC not ours) is dropped and counted;
 * none reaches the Ethernet function, and none makes the device send.
 */
static void test_mac_control_frames(void)
{
    FakeHost *h = host_rxb(false);
    uint16_t quanta[SNIC_SIM_PRIORITIES] = { [2] = 100 };
    uint8_t f[SNIC_SIM_PFC_FRAME_LEN];
    uint16_t q[4];

    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 2, 0);
    snic_sim_pfc_build(f, peer_mac, 1u << 2, quanta);
    snic_core_receive(h->core, f, sizeof(f));
    g_assert_cmpuint(FAKE_STAT(h, pfc_pause_recv), ==, 1);
    g_assert_cmpuint(h->events[SNIC_TRACE_PFC_RECV], ==, 1);
    /* not our priority: not obeyed */
    g_assert_cmpuint(h->event_args[SNIC_TRACE_PFC_RECV][3], ==, 0);

    f[14] = 0x00;           /* opcode 0x0001: 802.3x PAUSE */
    snic_core_receive(h->core, f, sizeof(f));
    f[14] = 0x02;           /* opcode 0x0201: none */
    snic_core_receive(h->core, f, sizeof(f));
    snic_sim_pfc_build(f, peer_mac, 1u << PFC_PRIO, quanta);
    snic_core_receive(h->core, f, 33);      /* too short for the times */
    memcpy(f, peer_mac, 6);                 /* unicast, not to us */
    snic_core_receive(h->core, f, sizeof(f));
    g_assert_cmpuint(FAKE_STAT(h, pfc_pause_recv), ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, rx_dropped), ==, 3);
    g_assert_cmpuint(FAKE_STAT(h, rx_filtered), ==, 1);
    fake_run(h);
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 0);
    g_assert_cmpuint(take_pfc(h, q, 4), ==, 0);
    g_assert_cmpuint(h->frames->len, ==, 0);
    fake_host_free(h);
}

/* The receive buffer's bounds, the priority and the speed are checked. */
static void test_rxb_config(void)
{
    SnicCoreConfig cfg = {
        .num_db_pages = 1, .num_vectors = 1,
        .rx_buffer_kb = SNIC_RX_BUFFER_MIN_KB - 1,
    };
    GError *err = NULL;

    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_assert_cmpstr(err->message, ==, "rx-buffer-kb=63 is out of range "
                    "64..65536");
    g_clear_error(&err);
    cfg.rx_buffer_kb = SNIC_RX_BUFFER_MAX_KB + 1;
    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_clear_error(&err);
    cfg.rx_buffer_kb = 0;   /* the default */
    cfg.pfc_priority = SNIC_PFC_PRIORITIES;
    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_assert_cmpstr(err->message, ==, "pfc-priority=8 is not a priority "
                    "(0..7)");
    g_clear_error(&err);
    cfg.pfc_priority = 0;
    cfg.link_speed_mbps = SNIC_MIN_LINK_SPEED_MBPS - 1;
    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_assert_cmpstr(err->message, ==, "link-speed-mbps=999 is out of range "
                    "1000..800000");
    g_clear_error(&err);
    cfg.link_speed_mbps = SNIC_MAX_LINK_SPEED_MBPS + 1;
    g_assert_null(snic_core_new(&cfg, NULL, NULL, &err));
    g_clear_error(&err);
}

/* ---- ECN marking of received frames (wire-ecn-mark) ---- */

static GPtrArray *delivered;

static void collect(SnicCore *c, const uint8_t *frame, size_t len)
{
    g_ptr_array_add(delivered, g_memdup2(frame, len));
}

/* A RoCEv2 SEND Only from 10.0.0.1 with this TOS (IPv4) or class (IPv6) */
static size_t ecn_frame(uint8_t *buf, size_t cap, bool ipv6, uint8_t tc)
{
    static const uint8_t payload[64];
    SnicPkt p = {
        .addr = { .dmac = { 2, 0, 0, 0, 0, 1 }, .smac = { 2, 0, 0, 0, 0, 2 },
                  .ipv6 = ipv6, .sip = { 10, 0, 0, 1 },
                  .dip = { 10, 0, 0, 2 }, .tclass = tc, .hop_limit = 64,
                  .sport = 0xc000 },
        .opcode = SNIC_OP_RC_SEND_ONLY, .pkey = SNIC_DEFAULT_PKEY,
        .dqpn = 17, .psn = 5, .payload = payload,
        .payload_len = sizeof(payload),
    };
    size_t len = snic_wire_build(&p, buf, cap);

    g_assert_cmpuint(len, >, 0);
    return len;
}

/* n frames of class tc through the receive buffer; how many came out CE */
static unsigned receive_marked(FakeHost *h, bool ipv6, uint8_t tc,
                               unsigned n)
{
    uint8_t frame[256];
    size_t len = ecn_frame(frame, sizeof(frame), ipv6, tc);
    unsigned i, ce = 0;

    delivered = g_ptr_array_new_with_free_func(g_free);
    for (i = 0; i < n; i++) {
        snic_link_rx_queue(h->core, frame, len);
        snic_link_rx_run(h->core, 64, collect);
    }
    g_assert_cmpuint(delivered->len, ==, n);
    for (i = 0; i < n; i++) {
        uint8_t *f = g_ptr_array_index(delivered, i);
        SnicPkt p;

        /* still a valid packet: IPv4 checksum and ICRC hold */
        g_assert_cmpint(snic_wire_parse(f, len, &p), ==, SNIC_PARSE_OK);
        g_assert_cmpuint(p.addr.tclass & ~SNIC_ECN_MASK, ==,
                         tc & ~SNIC_ECN_MASK);
        if ((p.addr.tclass & SNIC_ECN_MASK) == SNIC_ECN_CE) {
            ce++;
        } else {
            g_assert_cmpuint(p.addr.tclass, ==, tc);
        }
    }
    g_ptr_array_free(delivered, true);
    return ce;
}

static FakeHost *host_ce(uint32_t pct, uint64_t seed)
{
    SnicCoreConfig cfg = {
        .faults = { .ce_pct = pct, .seed = seed },
        .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY,
    };
    FakeHost *h = fake_host_new_cfg(&cfg);

    fake_enable(h, 4, 4);
    return h;
}

/* Every ECT frame is marked at 100 %, over IPv4 and IPv6; no other one. */
static void test_ecn_mark_all(void)
{
    FakeHost *h = host_ce(100, 1);

    g_assert_cmpuint(receive_marked(h, false, 0xa0 | SNIC_ECN_ECT0, 10), ==,
                     10);
    g_assert_cmpuint(receive_marked(h, true, SNIC_ECN_ECT0, 10), ==, 10);
    g_assert_cmpuint(receive_marked(h, false, 1, 10), ==, 10); /* ECT(1) */
    g_assert_cmpuint(FAKE_STAT(h, wire_ce_marked), ==, 30);
    /* Not-ECT stays Not-ECT; CE is not counted again */
    g_assert_cmpuint(receive_marked(h, false, 0xa0, 10), ==, 0);
    g_assert_cmpuint(receive_marked(h, false, SNIC_ECN_CE, 10), ==, 10);
    g_assert_cmpuint(FAKE_STAT(h, wire_ce_marked), ==, 30);
    fake_host_free(h);

    h = host_ce(0, 1);
    g_assert_cmpuint(receive_marked(h, false, SNIC_ECN_ECT0, 10), ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, wire_ce_marked), ==, 0);
    fake_host_free(h);
}

/* 20 % of 2000 frames: near 400, the same for a seed, not for another. */
static void test_ecn_mark_rate_and_seed(void)
{
    unsigned got[3], i;

    for (i = 0; i < 3; i++) {
        FakeHost *h = host_ce(20, i < 2 ? 7 : 8);

        got[i] = receive_marked(h, false, SNIC_ECN_ECT0, 2000);
        g_assert_cmpuint(FAKE_STAT(h, wire_ce_marked), ==, got[i]);
        fake_host_free(h);
    }
    g_assert_cmpuint(got[0], ==, got[1]);
    g_assert_cmpuint(got[0], >, 300);
    g_assert_cmpuint(got[0], <, 500);
    g_assert_cmpuint(got[2], >, 300);
    g_assert_cmpuint(got[2], <, 500);
}

/* ---- corrupted RoCE frames (x-wire-corrupt) ---- */

/*
 * At 100 %: every RoCE frame sent differs from what the engine built in
 * one byte after the BTH and before the ICRC, and fails the ICRC check;
 * Ethernet frames go out as they were. A receiving port drops the
 * corrupted frame at its ICRC check and counts it there.
 */
static void test_corrupt_roce(void)
{
    SnicCoreConfig cfg = {
        .faults = { .corrupt_pct = 100, .seed = 3 },
        .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY,
    };
    FakeHost *h = fake_host_new_cfg(&cfg), *rx = host_rxb(false);
    uint8_t f[2048];
    size_t len = roce_frame(f, sizeof(f), -1), bth, icrc, i;
    uint32_t pi = 0;
    unsigned n;

    fake_enable(h, 4, 4);
    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 4, 2, 0);
    send_burst(h, &pi, 4);
    for (n = 0; n < 4; n++) {
        uint8_t want[FRAME_LEN];
        GByteArray *sent = g_ptr_array_index(h->frames, n);

        fake_frame(want, bcast, 0x0800, 64, 0);
        want[14] = n;
        g_assert_cmpmem(sent->data, sent->len, want, FRAME_LEN);
    }
    g_assert_cmpuint(FAKE_STAT(h, wire_corrupts_injected), ==, 0);

    g_assert_true(snic_wire_roce_span(f, len, &bth, &icrc));
    g_assert_cmpuint(icrc, ==, len - SNIC_ICRC_LEN);
    for (n = 0; n < 20; n++) {
        GByteArray *sent;
        unsigned diff = 0, at = 0;
        SnicPkt p;

        snic_link_tx(h->core, f, len, 0);
        sent = g_ptr_array_index(h->frames, h->frames->len - 1);
        g_assert_cmpuint(sent->len, ==, len);
        for (i = 0; i < len; i++) {
            if (sent->data[i] != f[i]) {
                diff++;
                at = i;
            }
        }
        g_assert_cmpuint(diff, ==, 1);
        g_assert_cmpuint(at, >=, bth + SNIC_BTH_LEN);
        g_assert_cmpuint(at, <, icrc);
        g_assert_cmpint(snic_wire_parse(sent->data, len, &p), ==,
                        SNIC_PARSE_BAD_ICRC);
        if (!n) {
            g_assert_cmpint(snic_core_receive(rx->core, sent->data, len), ==,
                            len);
            fake_run(rx);
        }
    }
    g_assert_cmpuint(FAKE_STAT(h, wire_corrupts_injected), ==, 20);
    g_assert_cmpuint(FAKE_STAT(rx, rdma_rx_icrc_errors), ==, 1);
    g_assert_cmpuint(FAKE_STAT(rx, rdma_rx_dropped), ==, 1);
    /* the frame as built: dropped too (no QP 5), but not at the ICRC */
    g_assert_cmpint(snic_core_receive(rx->core, f, len), ==, len);
    fake_run(rx);
    g_assert_cmpuint(FAKE_STAT(rx, rdma_rx_dropped), ==, 2);
    g_assert_cmpuint(FAKE_STAT(rx, rdma_rx_icrc_errors), ==, 1);
    /* no frame of the port but RoCE ones has a datagram to corrupt */
    g_assert_false(snic_wire_roce_span(f, SNIC_ETH_HLEN + 20, &bth, &icrc));
    fake_host_free(h);
    fake_host_free(rx);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/link/no-faults", test_no_faults);
    g_test_add_func("/link/drop-all", test_drop_all);
    g_test_add_func("/link/dup-all", test_dup_all);
    g_test_add_func("/link/reorder-all", test_reorder_all);
    g_test_add_func("/link/drop-rate-and-seed", test_drop_rate_and_seed);
    g_test_add_func("/link/bad-percentages", test_bad_percentages);
    g_test_add_func("/link/capture", test_capture);
    g_test_add_func("/link/faults-run-time", test_faults_run_time);
    g_test_add_func("/link/corrupt-roce", test_corrupt_roce);
    g_test_add_func("/link/pfc/xoff-xon", test_pfc_xoff_xon);
    g_test_add_func("/link/pfc/refresh", test_pfc_refresh);
    g_test_add_data_func("/link/pfc/wire-backlog", GINT_TO_POINTER(false),
                         test_pfc_wire_backlog);
    g_test_add_data_func("/link/pfc/wire-backlog-lossy",
                         GINT_TO_POINTER(true), test_pfc_wire_backlog);
    g_test_add_data_func("/link/rx-buffer/full-drops-pfc",
                         GINT_TO_POINTER(false), test_rxb_full_drops);
    g_test_add_data_func("/link/rx-buffer/full-drops-lossy",
                         GINT_TO_POINTER(true), test_rxb_full_drops);
    g_test_add_func("/link/rx-buffer/other-priority",
                    test_rxb_other_priority);
    g_test_add_func("/link/rx-buffer/config", test_rxb_config);
    g_test_add_func("/link/mac-control-frames", test_mac_control_frames);
    g_test_add_func("/link/ecn-mark/all", test_ecn_mark_all);
    g_test_add_func("/link/ecn-mark/rate-and-seed",
                    test_ecn_mark_rate_and_seed);
    return g_test_run();
}
