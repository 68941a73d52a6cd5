/*
 * The device's end of the wire: fault injection (drop, duplicate,
 * reorder) and capture of every frame sent and received.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib/gstdio.h>

#include "core_int.h"
#include "fake-host.h"
#include "pcap.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static FakeHost *host_with(uint32_t drop, uint32_t dup, uint32_t reorder)
{
    SnicCoreConfig cfg = {
        .faults = { .drop_pct = drop, .dup_pct = dup,
                    .reorder_pct = reorder, .seed = 1 },
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
    return g_test_run();
}
