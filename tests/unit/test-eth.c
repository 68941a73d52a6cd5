/*
 * Unit tests of the snic core's Ethernet function: queue commands, TX
 * gather, RX delivery, filtering, RoCEv2 reservation, back-pressure and
 * interrupt moderation, against the fake host.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "port/wire.h"     /* snic_frame_is_rocev2() */
#include "fake-host.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static void post_desc(FakeHost *h, uint64_t ring, uint32_t index,
                      uint32_t log2, uint64_t addr, uint16_t len,
                      uint16_t flags)
{
    struct snic_eth_desc d = {
        .addr = GUINT64_TO_LE(addr),
        .len = GUINT16_TO_LE(len),
        .flags = GUINT16_TO_LE(flags),
    };

    fake_write(h, ring + (index & ((1u << log2) - 1)) * SNIC_ETH_DESC_SIZE,
               &d, sizeof(d));
}

static struct snic_eth_desc read_desc(FakeHost *h, uint64_t ring,
                                      uint32_t index, uint32_t log2)
{
    struct snic_eth_desc d;

    fake_read(h, ring + (index & ((1u << log2) - 1)) * SNIC_ETH_DESC_SIZE,
              &d, sizeof(d));
    return d;
}

static FakeHost *eth_host(void)
{
    FakeHost *h = fake_host_new();

    fake_enable(h, 4, 4);
    return h;
}

static uint16_t create_queue(FakeHost *h, uint8_t type, uint8_t log2,
                             uint16_t vector, uint64_t ring)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_ETH_QUEUE,
                  sizeof(cmd.create_eth_queue));
    cmd.create_eth_queue.ring_addr = GUINT64_TO_LE(ring);
    cmd.create_eth_queue.type = type;
    cmd.create_eth_queue.log2_depth = log2;
    cmd.create_eth_queue.vector = GUINT16_TO_LE(vector);
    return fake_admin(h, &cmd, NULL);
}

static uint16_t queue_cmd(FakeHost *h, uint8_t opcode, uint8_t type,
                          uint32_t qid)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, opcode, sizeof(cmd.eth_queue));
    cmd.eth_queue.type = type;
    cmd.eth_queue.qid = GUINT32_TO_LE(qid);
    return fake_admin(h, &cmd, NULL);
}

static void test_queue_create_validation(void)
{
    FakeHost *h = eth_host();

    g_assert_cmpuint(create_queue(h, 2, 4, 1, FAKE_TX_RING), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 2, 1, FAKE_TX_RING),
                     ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 13, 1, FAKE_TX_RING),
                     ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 4, FAKE_VECTORS,
                                  FAKE_TX_RING), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 4, 1,
                                  FAKE_TX_RING + 8), ==,
                     SNIC_ADMIN_BAD_ADDRESS);
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 4, 1, 0x2000), ==,
                     SNIC_ADMIN_BAD_ADDRESS);
    /* a ring whose end runs past guest memory */
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 12, 1,
                                  FAKE_MEM_BASE + FAKE_MEM_SIZE - 4096), ==,
                     SNIC_ADMIN_BAD_ADDRESS);
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 12, 1,
                                  UINT64_MAX - 15), ==,
                     SNIC_ADMIN_BAD_ADDRESS);
    /* good, then out of queues */
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 4, 1, FAKE_TX_RING),
                     ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 4, 1, FAKE_TX_RING),
                     ==, SNIC_ADMIN_NO_RESOURCES);
    /* state machine */
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_STOP_ETH_QUEUE,
                               SNIC_ETH_QUEUE_TX, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_START_ETH_QUEUE,
                               SNIC_ETH_QUEUE_TX, 1), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_START_ETH_QUEUE,
                               SNIC_ETH_QUEUE_TX, 0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_START_ETH_QUEUE,
                               SNIC_ETH_QUEUE_TX, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_DESTROY_ETH_QUEUE,
                               SNIC_ETH_QUEUE_TX, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_STOP_ETH_QUEUE,
                               SNIC_ETH_QUEUE_TX, 0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_DESTROY_ETH_QUEUE,
                               SNIC_ETH_QUEUE_TX, 0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_DESTROY_ETH_QUEUE,
                               SNIC_ETH_QUEUE_TX, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(create_queue(h, SNIC_ETH_QUEUE_TX, 4, 1, FAKE_TX_RING),
                     ==, SNIC_ADMIN_OK);
    fake_host_free(h);
}

static void test_tx_single(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[128];
    size_t len = fake_frame(frame, bcast, 0x0800, 100, 0xab);
    struct snic_eth_desc d;
    GByteArray *sent;

    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 4, 2, 0);
    fake_write(h, FAKE_BUFS, frame, len);
    post_desc(h, FAKE_TX_RING, 0, 4, FAKE_BUFS, len, SNIC_ETH_DESC_EOP);
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, 1);
    fake_run(h);
    g_assert_cmpuint(h->frames->len, ==, 1);
    sent = g_ptr_array_index(h->frames, 0);
    g_assert_cmpmem(sent->data, sent->len, frame, len);
    d = read_desc(h, FAKE_TX_RING, 0, 4);
    g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==,
                    SNIC_ETH_DESC_EOP | SNIC_ETH_DESC_DONE);
    g_assert_cmpuint(h->irqs[2], ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, tx_frames), ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, tx_bytes), ==, len);
    fake_host_free(h);
}

static void test_tx_gather_and_partial(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[1500];
    size_t len = fake_frame(frame, bcast, 0x0800, 1000, 0);
    GByteArray *sent;
    size_t i;

    for (i = 14; i < len; i++) {
        frame[i] = i * 7;
    }
    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 3, 1, 0);
    fake_write(h, FAKE_BUFS, frame, 300);
    fake_write(h, FAKE_BUFS + 0x1000, frame + 300, 400);
    fake_write(h, FAKE_BUFS + 0x3000, frame + 700, len - 700);
    /* ring wraps: start at slot 6 of 8 by sending two empty-ring rounds */
    post_desc(h, FAKE_TX_RING, 0, 3, FAKE_BUFS, 300, 0);
    post_desc(h, FAKE_TX_RING, 1, 3, FAKE_BUFS + 0x1000, 400, 0);
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, 2);
    fake_run(h);
    g_assert_cmpuint(h->frames->len, ==, 0);    /* no EOP yet */
    post_desc(h, FAKE_TX_RING, 2, 3, FAKE_BUFS + 0x3000, len - 700,
              SNIC_ETH_DESC_EOP);
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, 3);
    fake_run(h);
    g_assert_cmpuint(h->frames->len, ==, 1);
    sent = g_ptr_array_index(h->frames, 0);
    g_assert_cmpmem(sent->data, sent->len, frame, len);
    for (i = 0; i < 3; i++) {
        g_assert_cmphex(GUINT16_FROM_LE(read_desc(h, FAKE_TX_RING, i,
                                                  3).flags) &
                        SNIC_ETH_DESC_DONE, ==, SNIC_ETH_DESC_DONE);
    }
    fake_host_free(h);
}

static void test_tx_errors(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[1600];
    size_t len = fake_frame(frame, bcast, 0x0800, 1500, 1);
    struct snic_eth_desc d;
    uint32_t i;

    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 6, 1, 0);
    fake_write(h, FAKE_BUFS, frame, len);
    /* 1: longer than MTU 1500 + 18 */
    post_desc(h, FAKE_TX_RING, 0, 6, FAKE_BUFS, 1519, SNIC_ETH_DESC_EOP);
    /* 2: buffer outside guest memory */
    post_desc(h, FAKE_TX_RING, 1, 6, 0x1000, 60, SNIC_ETH_DESC_EOP);
    /* 3: runt */
    post_desc(h, FAKE_TX_RING, 2, 6, FAKE_BUFS, 10, SNIC_ETH_DESC_EOP);
    /* 4: 34 descriptors, EOP on the last: more than the device gathers */
    for (i = 3; i < 36; i++) {
        post_desc(h, FAKE_TX_RING, i, 6, FAKE_BUFS, 1, 0);
    }
    post_desc(h, FAKE_TX_RING, 36, 6, FAKE_BUFS, 1, SNIC_ETH_DESC_EOP);
    /* 5: a good frame of exactly MTU + 18 */
    post_desc(h, FAKE_TX_RING, 37, 6, FAKE_BUFS, 1518, SNIC_ETH_DESC_EOP);
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, 38);
    fake_run(h);
    /* only the good frame left: no tail of the long chain went out alone */
    g_assert_cmpuint(h->frames->len, ==, 1);
    g_assert_cmpuint(((GByteArray *)g_ptr_array_index(h->frames, 0))->len,
                     ==, 1518);
    for (i = 0; i < 3; i++) {
        d = read_desc(h, FAKE_TX_RING, i, 6);
        g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==, SNIC_ETH_DESC_EOP |
                        SNIC_ETH_DESC_DONE | SNIC_ETH_DESC_ERR);
    }
    for (i = 3; i < 36; i++) {
        d = read_desc(h, FAKE_TX_RING, i, 6);
        g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==,
                        SNIC_ETH_DESC_DONE | SNIC_ETH_DESC_ERR);
    }
    d = read_desc(h, FAKE_TX_RING, 36, 6);
    g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==, SNIC_ETH_DESC_EOP |
                    SNIC_ETH_DESC_DONE | SNIC_ETH_DESC_ERR);
    d = read_desc(h, FAKE_TX_RING, 37, 6);
    g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==,
                    SNIC_ETH_DESC_EOP | SNIC_ETH_DESC_DONE);
    g_assert_cmpuint(FAKE_STAT(h, tx_dropped), ==, 4);
    g_assert_cmpuint(fake_guest_errors_matching(h, "longer than MTU"), ==, 1);
    g_assert_cmpuint(fake_guest_errors_matching(h, "not readable"), ==, 1);
    g_assert_cmpuint(fake_guest_errors_matching(h, "more descriptors"), ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, tx_frames), ==, 1);
    fake_host_free(h);
}

/* A ring full of descriptors without EOP must not stall the queue. */
static void test_tx_full_ring_without_eop(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[64];
    size_t len = fake_frame(frame, bcast, 0x0800, 46, 1);
    uint32_t i;

    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 3, 1, 0);
    fake_write(h, FAKE_BUFS, frame, len);
    for (i = 0; i < 8; i++) {
        post_desc(h, FAKE_TX_RING, i, 3, FAKE_BUFS, 8, 0);
    }
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, 8);
    fake_run(h);
    g_assert_cmpuint(FAKE_STAT(h, tx_dropped), ==, 1);
    g_assert_cmphex(GUINT16_FROM_LE(read_desc(h, FAKE_TX_RING, 7, 3).flags),
                    ==, SNIC_ETH_DESC_DONE | SNIC_ETH_DESC_ERR);
    /* the chain ends with the next EOP; the frame after it goes out */
    post_desc(h, FAKE_TX_RING, 8, 3, FAKE_BUFS, 8, SNIC_ETH_DESC_EOP);
    post_desc(h, FAKE_TX_RING, 9, 3, FAKE_BUFS, len, SNIC_ETH_DESC_EOP);
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, 10);
    fake_run(h);
    g_assert_cmpuint(h->frames->len, ==, 1);
    g_assert_cmphex(GUINT16_FROM_LE(read_desc(h, FAKE_TX_RING, 8, 3).flags),
                    ==, SNIC_ETH_DESC_EOP | SNIC_ETH_DESC_DONE |
                    SNIC_ETH_DESC_ERR);
    fake_host_free(h);
}

static void test_tx_link_down_drops(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[64];
    size_t len = fake_frame(frame, bcast, 0x0800, 46, 1);

    fake_eth_queue(h, SNIC_ETH_QUEUE_TX, 4, 1, 0);
    snic_core_set_link(h->core, false);
    fake_write(h, FAKE_BUFS, frame, len);
    post_desc(h, FAKE_TX_RING, 0, 4, FAKE_BUFS, len, SNIC_ETH_DESC_EOP);
    fake_doorbell(h, 0, SNIC_DB_ETH_TX, 0, 1);
    fake_run(h);
    g_assert_cmpuint(h->frames->len, ==, 0);
    g_assert_cmpuint(FAKE_STAT(h, tx_dropped), ==, 1);
    g_assert_cmphex(GUINT16_FROM_LE(read_desc(h, FAKE_TX_RING, 0, 4).flags),
                    ==, SNIC_ETH_DESC_EOP | SNIC_ETH_DESC_DONE);
    fake_host_free(h);
}

static void post_rx(FakeHost *h, uint32_t index, uint16_t size)
{
    post_desc(h, FAKE_RX_RING, index, 4, FAKE_BUFS + index * 0x4000, size, 0);
}

static void test_rx_deliver(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[256];
    size_t len = fake_frame(frame, fake_mac, 0x0800, 200, 0x5a);
    struct snic_eth_desc d;

    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 3, 0);
    post_rx(h, 0, 2048);
    post_rx(h, 1, 2048);
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 2);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    d = read_desc(h, FAKE_RX_RING, 0, 4);
    g_assert_cmpuint(GUINT16_FROM_LE(d.len), ==, len);
    g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==, SNIC_ETH_DESC_DONE);
    g_assert_cmpmem(fake_ptr(h, FAKE_BUFS, len), len, frame, len);
    g_assert_cmpuint(h->irqs[3], ==, 1);
    /* broadcast and multicast are accepted too */
    len = fake_frame(frame, bcast, 0x0806, 46, 1);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 2);
    g_assert_cmpuint(FAKE_STAT(h, rx_bytes), ==, 214 + 60);
    fake_host_free(h);
}

static void test_rx_filter_and_limits(void)
{
    FakeHost *h = eth_host();
    static const uint8_t other[6] = { 0x52, 0x54, 0, 0, 0, 1 };
    uint8_t frame[9100];
    size_t len;

    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 1, 0);
    post_rx(h, 0, 1000);
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 1);
    len = fake_frame(frame, other, 0x0800, 100, 0);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    g_assert_cmpuint(FAKE_STAT(h, rx_filtered), ==, 1);
    /* larger than the posted buffer: dropped, the buffer stays posted */
    len = fake_frame(frame, fake_mac, 0x0800, 1200, 0);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    /* larger than MTU + header */
    len = fake_frame(frame, fake_mac, 0x0800, 1505, 0);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    g_assert_cmpuint(FAKE_STAT(h, rx_too_long), ==, 2);
    /* runt */
    g_assert_cmpint(snic_core_receive(h->core, frame, 10), ==, 10);
    g_assert_cmpuint(FAKE_STAT(h, rx_dropped), ==, 1);
    /* the buffer is still there for a frame that fits */
    len = fake_frame(frame, fake_mac, 0x0800, 500, 0);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 1);
    fake_host_free(h);
}

/* IPv4/IPv6 + UDP header after the Ethernet header, to dst port 'port'. */
static size_t udp_frame(uint8_t *f, bool v6, uint16_t port, bool vlan)
{
    size_t off = 14, ip_len = v6 ? 40 : 20;

    memset(f, 0, 128);
    memcpy(f, fake_mac, 6);
    if (vlan) {
        f[12] = 0x81;
        f[13] = 0x00;
        off += 4;
    }
    f[off - 2] = v6 ? 0x86 : 0x08;
    f[off - 1] = v6 ? 0xdd : 0x00;
    if (v6) {
        f[off] = 0x60;
        f[off + 6] = 17;
    } else {
        f[off] = 0x45;
        f[off + 9] = 17;
    }
    f[off + ip_len + 2] = port >> 8;
    f[off + ip_len + 3] = port & 0xff;
    return off + ip_len + 8 + 32;
}

static void test_rx_rocev2_reserved(void)
{
    FakeHost *h = eth_host();
    uint8_t f[128];
    size_t len;

    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 1, 0);
    post_rx(h, 0, 2048);
    post_rx(h, 1, 2048);
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 2);
    len = udp_frame(f, false, 4791, false);
    g_assert_cmpint(snic_core_receive(h->core, f, len), ==, len);
    len = udp_frame(f, true, 4791, false);
    g_assert_cmpint(snic_core_receive(h->core, f, len), ==, len);
    len = udp_frame(f, false, 4791, true);
    g_assert_cmpint(snic_core_receive(h->core, f, len), ==, len);
    g_assert_cmpuint(FAKE_STAT(h, rx_rdma_reserved), ==, 3);
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 0);
    /* other UDP ports, and a non-first fragment, go to the RX ring */
    len = udp_frame(f, false, 4790, false);
    g_assert_cmpint(snic_core_receive(h->core, f, len), ==, len);
    len = udp_frame(f, false, 4791, false);
    f[14 + 7] = 0x10;   /* fragment offset != 0 */
    g_assert_cmpint(snic_core_receive(h->core, f, len), ==, len);
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 2);
    /* truncated headers are never misread */
    g_assert_false(snic_frame_is_rocev2(f, 14 + 20 + 3));
    fake_host_free(h);
}

/*
 * No RX buffer: frames wait in the port's receive FIFO, in order, and go
 * to the buffers posted later; a full FIFO drops (counted), and stopping
 * the ring drops what waits for it.
 */
static void test_rx_fifo(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[128];
    size_t len = fake_frame(frame, fake_mac, 0x0800, 64, 9);
    struct snic_eth_desc d;
    unsigned i;

    /* no ring started: frames are dropped, never queued forever */
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    g_assert_cmpuint(FAKE_STAT(h, rx_dropped), ==, 1);
    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 5, 1, 0);
    for (i = 0; i < SNIC_ETH_RX_FIFO + 2; i++) {
        frame[14] = i;
        g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    }
    g_assert_cmpuint(FAKE_STAT(h, rx_no_buffer), ==, SNIC_ETH_RX_FIFO);
    g_assert_cmpuint(FAKE_STAT(h, rx_dropped), ==, 3);
    for (i = 0; i < 4; i++) {
        post_desc(h, FAKE_RX_RING, i, 5, FAKE_BUFS + i * 0x4000, 2048, 0);
    }
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 4);
    fake_run(h);
    for (i = 0; i < 4; i++) {
        d = read_desc(h, FAKE_RX_RING, i, 5);
        g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==, SNIC_ETH_DESC_DONE);
        g_assert_cmpuint(*(uint8_t *)fake_ptr(h, FAKE_BUFS + i * 0x4000 + 14,
                                              1), ==, i);
    }
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 4);
    /* a new frame goes behind the ones still waiting */
    frame[14] = 0xee;
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_STOP_ETH_QUEUE, SNIC_ETH_QUEUE_RX,
                               0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(FAKE_STAT(h, rx_dropped), ==, 3 + SNIC_ETH_RX_FIFO - 4 + 1);
    fake_host_free(h);
}

/*
 * RoCE never waits behind Ethernet frames the host has no buffer for:
 * the Ethernet frame is taken (held), and the RoCE frame after it reaches
 * the RDMA engine at its next run, while the Ethernet frame still waits.
 */
static void test_roce_passes_waiting_ethernet(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[128], f[128];
    size_t len = fake_frame(frame, fake_mac, 0x0800, 64, 9), rlen;

    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 1, 0);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    rlen = udp_frame(f, false, SNIC_ROCEV2_UDP_PORT, false);
    g_assert_cmpint(snic_core_receive(h->core, f, rlen), ==, rlen);
    g_assert_cmpuint(FAKE_STAT(h, rx_rdma_reserved), ==, 1);
    fake_run(h);
    g_assert_cmpuint(FAKE_STAT(h, rdma_rx_packets), ==, 1);
    g_assert_cmpuint(FAKE_STAT(h, rx_frames), ==, 0);
    fake_host_free(h);
}

static void test_rx_bad_buffer(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[128];
    size_t len = fake_frame(frame, fake_mac, 0x0800, 64, 9);
    struct snic_eth_desc d;

    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 1, 0);
    post_desc(h, FAKE_RX_RING, 0, 4, 0x1000, 2048, 0);  /* outside memory */
    post_rx(h, 1, 2048);
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 2);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    d = read_desc(h, FAKE_RX_RING, 0, 4);
    g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==,
                    SNIC_ETH_DESC_DONE | SNIC_ETH_DESC_ERR);
    g_assert_cmpuint(GUINT16_FROM_LE(d.len), ==, 0);
    g_assert_cmpuint(fake_guest_errors_matching(h, "not writable"), ==, 1);
    /* the next buffer works */
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    d = read_desc(h, FAKE_RX_RING, 1, 4);
    g_assert_cmphex(GUINT16_FROM_LE(d.flags), ==, SNIC_ETH_DESC_DONE);
    fake_host_free(h);
}

static void test_rx_doorbell_window(void)
{
    FakeHost *h = eth_host();

    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 3, 1, 0);
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 9);  /* 9 > 8 entries */
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 1, 1);  /* no queue 1 */
    g_assert_cmpuint(FAKE_STAT(h, doorbells_invalid), ==, 2);
    g_assert_cmpuint(h->core->rxq[0].tail, ==, 0);
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 8);
    g_assert_cmpuint(h->core->rxq[0].tail, ==, 8);
    fake_host_free(h);
}

static void test_irq_moderation(void)
{
    FakeHost *h = eth_host();
    uint8_t frame[128];
    size_t len = fake_frame(frame, fake_mac, 0x0800, 64, 9);
    int i;

    fake_eth_queue(h, SNIC_ETH_QUEUE_RX, 4, 2, 50);     /* 50 us */
    for (i = 0; i < 4; i++) {
        post_rx(h, i, 2048);
    }
    fake_doorbell(h, 0, SNIC_DB_ETH_RX, 0, 4);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    g_assert_cmpuint(h->irqs[2], ==, 0);
    g_assert_cmpuint(h->port.timer_deadline, ==, h->port.now + 50000);
    fake_advance(h, 20000);
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    fake_advance(h, 20000);
    g_assert_cmpuint(h->irqs[2], ==, 0);
    fake_advance(h, 10000);
    g_assert_cmpuint(h->irqs[2], ==, 1);     /* one message for two frames */
    g_assert_cmpuint(h->port.timer_deadline, ==, UINT64_MAX);
    /* stopping the queue delivers a pending interrupt at once */
    g_assert_cmpint(snic_core_receive(h->core, frame, len), ==, len);
    g_assert_cmpuint(queue_cmd(h, SNIC_ADMIN_STOP_ETH_QUEUE,
                               SNIC_ETH_QUEUE_RX, 0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(h->irqs[2], ==, 2);
    fake_host_free(h);
}

static void test_two_devices_back_to_back(void)
{
    FakeHost *a = eth_host(), *b = eth_host();
    static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
    struct snic_admin_cmd cmd;
    uint8_t frame[1514];
    size_t len = fake_frame(frame, mac_b, 0x88b5, 1500, 0x33);
    unsigned i;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MAC, sizeof(cmd.set_mac));
    memcpy(cmd.set_mac.mac, mac_b, 6);
    g_assert_cmpuint(fake_admin(b, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_eth_queue(a, SNIC_ETH_QUEUE_TX, 4, 1, 0);
    fake_eth_queue(b, SNIC_ETH_QUEUE_RX, 4, 1, 0);
    for (i = 0; i < 16; i++) {
        post_rx(b, i, 2048);
        frame[20] = i;
        fake_write(a, FAKE_BUFS + i * 0x800, frame, len);
        post_desc(a, FAKE_TX_RING, i, 4, FAKE_BUFS + i * 0x800, len,
                  SNIC_ETH_DESC_EOP);
    }
    fake_doorbell(b, 0, SNIC_DB_ETH_RX, 0, 16);
    fake_doorbell(a, 0, SNIC_DB_ETH_TX, 0, 16);
    fake_run(a);
    g_assert_cmpuint(a->frames->len, ==, 16);
    for (i = 0; i < a->frames->len; i++) {
        GByteArray *f = g_ptr_array_index(a->frames, i);

        g_assert_cmpint(snic_core_receive(b->core, f->data, f->len), ==,
                        f->len);
        g_assert_cmpuint(*(uint8_t *)fake_ptr(b, FAKE_BUFS + i * 0x4000 + 20,
                                              1), ==, i);
    }
    g_assert_cmpuint(FAKE_STAT(b, rx_frames), ==, 16);
    fake_host_free(a);
    fake_host_free(b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/core/eth/queue-create-validation",
                    test_queue_create_validation);
    g_test_add_func("/core/eth/tx-single", test_tx_single);
    g_test_add_func("/core/eth/tx-gather-and-partial",
                    test_tx_gather_and_partial);
    g_test_add_func("/core/eth/tx-errors", test_tx_errors);
    g_test_add_func("/core/eth/tx-link-down-drops", test_tx_link_down_drops);
    g_test_add_func("/core/eth/tx-full-ring-without-eop",
                    test_tx_full_ring_without_eop);
    g_test_add_func("/core/eth/rx-deliver", test_rx_deliver);
    g_test_add_func("/core/eth/rx-filter-and-limits",
                    test_rx_filter_and_limits);
    g_test_add_func("/core/eth/rx-rocev2-reserved", test_rx_rocev2_reserved);
    g_test_add_func("/core/eth/rx-fifo", test_rx_fifo);
    g_test_add_func("/core/eth/roce-passes-waiting-ethernet",
                    test_roce_passes_waiting_ethernet);
    g_test_add_func("/core/eth/rx-bad-buffer", test_rx_bad_buffer);
    g_test_add_func("/core/eth/rx-doorbell-window", test_rx_doorbell_window);
    g_test_add_func("/core/eth/irq-moderation", test_irq_moderation);
    g_test_add_func("/core/eth/two-devices-back-to-back",
                    test_two_devices_back_to_back);
    return g_test_run();
}
