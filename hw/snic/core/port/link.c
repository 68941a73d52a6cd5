/*
 * snic core: the device's end of the wire - capture, fault injection, the
 * receive buffer and 802.1Qbb PFC (see link.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "port/link.h"
#include "port/pcap.h"
#include "port/wire.h"
#include "transport/transport.h"

/* A record in the receive buffer: the frame's length, then the frame */
#define RXB_HDR     2

static const uint8_t pfc_dmac[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

static uint16_t rd16be(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16be(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static void rxb_clear(SnicLink *l)
{
    l->rxb_head = l->rxb_tail = 0;
    l->rxb_wrap = l->rxb_size;
    l->rxb_bytes = l->rxb_frames = 0;
}

void snic_link_init(SnicCore *c, const SnicLinkFaults *faults)
{
    SnicLink *l = &c->link;

    snic_link_set_faults(c, faults, true);
    l->held_len = 0;
    l->rxb_size = c->cfg.rx_buffer_kb * 1024;
    l->rxb = g_malloc(l->rxb_size);
    /*
     * Three quarters of the buffer are headroom above XOFF: what the
     * partner sends until our pause reaches it. XON at an eighth leaves
     * the engine that much to work on while the partner starts again.
     */
    l->xoff = l->rxb_size / 4;
    l->xon = l->rxb_size / 8;
    l->full = l->rxb_size - l->rxb_size / 8;
    rxb_clear(l);
}

size_t snic_link_rx_buffer_bytes(const SnicCore *c)
{
    return c->link.rxb_size;
}

void snic_link_set_faults(SnicCore *c, const SnicLinkFaults *faults,
                          bool reseed)
{
    c->link.faults = *faults;
    if (reseed) {
        /* xorshift64* must not start at 0 */
        c->link.rng = faults->seed ^ 0x9e3779b97f4a7c15ull;
    }
}

static void pcap_close(SnicCore *c)
{
    if (c->link.pcap) {
        snic_pcap_close(c->link.pcap);
        c->link.pcap = NULL;
    }
}

void snic_link_free(SnicCore *c)
{
    g_free(c->link.rxb);
    c->link.rxb = NULL;
    pcap_close(c);
}

void snic_link_reset(SnicCore *c)
{
    SnicLink *l = &c->link;

    l->held_len = 0;
    rxb_clear(l);
    l->run_frames = 0;
    l->xoff_sent = l->pfc_pending = l->wire_backlog = false;
    /*
     * A pause the partner asked for ends with the device's state. Called
     * before a full reset clears the counters: a disable keeps them, with
     * the time paused until now.
     */
    if (l->paused) {
        snic_stat_add(&c->stats.pfc_paused_ns,
                      MIN(c->ops->now_ns(c->opaque), l->pause_end) -
                      l->pause_start);
        l->paused = false;
    }
}

void snic_core_set_pcap(SnicCore *c, SnicPcap *pcap)
{
    pcap_close(c);
    c->link.pcap = pcap;
}

/* The next number of the link's own PRNG (xorshift64*, seeded) */
static uint64_t draw(SnicLink *l)
{
    uint64_t x = l->rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    l->rng = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Percent chance, reproducible by seed; 0 draws nothing. */
static bool chance(SnicLink *l, uint32_t pct)
{
    return pct && draw(l) % 100 < pct;
}

void snic_fault_tear(SnicCore *c, uint8_t *buf, uint64_t off, uint32_t len,
                     uint64_t total)
{
    uint64_t mid = total / 2;

    /* off (the default): nothing on the READ response path but this test */
    if (!c->link.faults.torn_pct) {
        return;
    }
    if (mid >= off && mid - off < len &&
        chance(&c->link, c->link.faults.torn_pct)) {
        buf[mid - off] ^= 0xa5;
    }
}

static void capture(SnicCore *c, const void *frame, size_t len)
{
    if (c->link.pcap &&
        snic_pcap_write(c->link.pcap, c->ops->now_ns(c->opaque), frame,
                        len)) {
        /* a full disk must not stop the device: stop capturing instead */
        snic_pcap_close(c->link.pcap);
        c->link.pcap = NULL;
    }
}

static void wire_out(SnicCore *c, const void *frame, size_t len,
                     size_t host_bytes)
{
    capture(c, frame, len);
    c->ops->tx_frame(c->opaque, frame, len, host_bytes);
}

/*
 * x-wire-corrupt: a RoCE frame that draws it goes out with one byte after
 * the BTH and before the ICRC flipped, so that it still parses up to the
 * receiver's ICRC check; the copy in l->corrupted, or the frame itself.
 */
static const void *corrupt(SnicCore *c, const void *frame, size_t len)
{
    SnicLink *l = &c->link;
    size_t bth, icrc, at;

    if (len > sizeof(l->corrupted) ||
        !snic_wire_roce_span(frame, len, &bth, &icrc) ||
        icrc <= bth + SNIC_BTH_LEN || !chance(l, l->faults.corrupt_pct)) {
        return frame;
    }
    memcpy(l->corrupted, frame, len);
    at = bth + SNIC_BTH_LEN + draw(l) % (icrc - bth - SNIC_BTH_LEN);
    l->corrupted[at] ^= 1 + draw(l) % 255;     /* never the same byte */
    snic_stat_inc(&c->stats.wire_corrupts_injected);
    return l->corrupted;
}

void snic_link_tx(SnicCore *c, const void *frame, size_t len,
                  size_t host_bytes)
{
    SnicLink *l = &c->link;

    if (chance(l, l->faults.drop_pct)) {
        snic_stat_inc(&c->stats.wire_drops_injected);
        return;
    }
    if (l->faults.corrupt_pct) {
        frame = corrupt(c, frame, len);
    }
    if (!l->held_len && len <= sizeof(l->held) &&
        chance(l, l->faults.reorder_pct)) {
        /* goes out after the next frame, or at the end of the burst */
        memcpy(l->held, frame, len);
        l->held_len = len;
        l->held_host = host_bytes;
        snic_stat_inc(&c->stats.wire_reorders_injected);
        return;
    }
    wire_out(c, frame, len, host_bytes);
    if (chance(l, l->faults.dup_pct)) {
        /* the wire's copy: the device read the host once */
        snic_stat_inc(&c->stats.wire_dups_injected);
        wire_out(c, frame, len, 0);
    }
    snic_link_flush(c);
}

void snic_link_rx(SnicCore *c, const void *frame, size_t len)
{
    capture(c, frame, len);
}

void snic_link_flush(SnicCore *c)
{
    size_t len = c->link.held_len;

    if (len) {
        c->link.held_len = 0;
        wire_out(c, c->link.held, len, c->link.held_host);
    }
}

/* ---- 802.1Qbb PFC ---- */

/* How long 'quanta' pause quanta last at the port's speed, in ns */
static uint64_t quanta_ns(const SnicCore *c, uint32_t quanta)
{
    uint32_t mbps = c->cfg.link_speed_mbps;

    /* 512 bit times each: 5.12 ns at 100 Gb/s; rounded up */
    return ((uint64_t)quanta * SNIC_PFC_QUANTUM_BITS * 1000 + mbps - 1) / mbps;
}

/* Pause (quanta > 0) or resume (0) the partner's RoCE priority. */
static void pfc_send(SnicCore *c, uint16_t quanta)
{
    SnicLink *l = &c->link;
    unsigned prio = c->cfg.pfc_priority;
    uint8_t f[SNIC_PFC_FRAME_LEN];

    l->pfc_pending = false;
    l->xoff_sent = quanta != 0;
    if (quanta) {
        /* renewed at half its time, so it never lapses while needed */
        l->xoff_refresh = c->ops->now_ns(c->opaque) +
                          quanta_ns(c, quanta) / 2;
        snic_timer_hint(c, l->xoff_refresh);
    }
    if (!c->link_up) {
        return;     /* no partner to pause; the state is kept for later */
    }
    memset(f, 0, sizeof(f));
    memcpy(f, pfc_dmac, 6);
    memcpy(f + 6, c->mac, 6);
    wr16be(f + 12, SNIC_ETH_P_MAC_CONTROL);
    wr16be(f + 14, SNIC_MAC_CONTROL_PFC);
    wr16be(f + 16, 1u << prio);                 /* class-enable vector */
    wr16be(f + 18 + 2 * prio, quanta);          /* time[prio] */
    snic_stat_inc(&c->stats.pfc_pause_sent);
    SNIC_EVENT(c, PFC_SENT, prio, quanta, l->rxb_bytes);
    snic_link_tx(c, f, sizeof(f), 0);
}

/* The partner's pause is over (resume frame, or its time ran out). */
static void pause_end(SnicCore *c, uint64_t at, bool by_resume)
{
    SnicLink *l = &c->link;

    l->paused = false;
    snic_stat_add(&c->stats.pfc_paused_ns, at - l->pause_start);
    SNIC_EVENT(c, PFC_RESUMED, at - l->pause_start, by_resume);
    c->ops->kick(c->opaque);    /* the engine transmits again */
}

/* Is our RoCE priority paused now? (A lapsed pause ends here.) */
static bool roce_paused(SnicCore *c)
{
    SnicLink *l = &c->link;

    if (l->paused && c->ops->now_ns(c->opaque) >= l->pause_end) {
        pause_end(c, l->pause_end, false);
    }
    return l->paused;
}

bool snic_link_is_mac_control(const uint8_t *frame, size_t len)
{
    return len >= SNIC_ETH_HLEN &&
           rd16be(frame + 12) == SNIC_ETH_P_MAC_CONTROL;
}

/*
 * IEEE 802.3 Annex 31D / 802.1Qbb: a PFC frame is a MAC control frame
 * with opcode 0x0101, a class-enable vector (bits 0-7, one per priority;
 * bits 8-15 reserved, ignored on receipt) and eight times in quanta. Only
 * the priorities whose bit is set are acted on, and of those only the one
 * PFC is enabled for here (pfc-priority); a time of 0 resumes it. Any other
 * MAC control frame (802.3x PAUSE included: a port with PFC on does not
 * use it), or one too short for its fields, is discarded. None ever
 * reaches the Ethernet function.
 */
void snic_link_mac_control(SnicCore *c, const uint8_t *f, size_t len)
{
    SnicLink *l = &c->link;
    unsigned prio = c->cfg.pfc_priority;
    uint16_t vector, quanta;
    bool obey;
    uint64_t now;

    if (len < SNIC_PFC_FIELDS_LEN ||
        rd16be(f + 14) != SNIC_MAC_CONTROL_PFC ||
        (memcmp(f, pfc_dmac, 6) && memcmp(f, c->mac, 6))) {
        snic_eth_rx_drop(c, &c->stats.rx_dropped, len,
                         SNIC_DROP_MAC_CONTROL);
        return;
    }
    snic_stat_inc(&c->stats.pfc_pause_recv);
    vector = rd16be(f + 16) & 0xff;
    quanta = vector & (1u << prio) ? rd16be(f + 18 + 2 * prio) : 0;
    obey = !c->cfg.lossy && (vector & (1u << prio));
    SNIC_EVENT(c, PFC_RECV, vector, prio, quanta, obey);
    if (!obey) {
        return;
    }
    now = c->ops->now_ns(c->opaque);
    if (l->paused && now >= l->pause_end) {
        pause_end(c, l->pause_end, false);  /* lapsed before this one */
    }
    if (!quanta) {
        if (l->paused) {
            pause_end(c, now, true);
        }
        return;
    }
    if (!l->paused) {
        l->paused = true;
        l->pause_start = now;
    }
    /* a new time replaces the old one, shorter or longer (802.1Qbb) */
    l->pause_end = now + quanta_ns(c, quanta);
    snic_timer_hint(c, l->pause_end);
}

/* Above XOFF, or frames pile up before the port (see link.h) */
static bool want_xoff(const SnicLink *l)
{
    return l->rxb_bytes >= l->xoff || l->wire_backlog;
}

/* Still above XON, or the pile-up has not drained */
static bool keep_xoff(const SnicLink *l)
{
    return l->rxb_bytes > l->xon || l->wire_backlog;
}

void snic_link_wire_backlog(SnicCore *c, bool backlog)
{
    SnicLink *l = &c->link;

    if (backlog == l->wire_backlog) {
        return;
    }
    l->wire_backlog = backlog;
    if (!c->cfg.lossy && backlog != l->xoff_sent) {
        /* the engine run sends the pause or the resume */
        l->pfc_pending = backlog;
        c->ops->kick(c->opaque);
    }
}

/* ---- the receive buffer ---- */

/* Room for a record of 'rec' bytes: its offset, or -1 */
static int64_t rxb_room(const SnicLink *l, uint32_t rec)
{
    if (l->rxb_bytes + rec > l->rxb_size) {
        return -1;
    }
    if (!l->rxb_frames) {
        return 0;
    }
    if (l->rxb_tail > l->rxb_head) {
        if (l->rxb_tail + rec <= l->rxb_size) {
            return l->rxb_tail;
        }
        /* a new lap, up to (not onto) the oldest record */
        return rec < l->rxb_head ? 0 : -1;
    }
    return l->rxb_tail + rec < l->rxb_head ? (int64_t)l->rxb_tail : -1;
}

/* The RoCE priority's, or another (lossy) one's? (see link.h) */
static bool roce_priority(const SnicCore *c, const uint8_t *f)
{
    return rd16be(f + 12) != SNIC_ETH_P_8021Q ||
           (f[14] >> 5) == c->cfg.pfc_priority;
}

/*
 * The wire's ECN marking (wire-ecn-mark): a RoCE frame sent ECN-capable
 * arrives CE with the configured chance. Only ECT frames draw from the
 * PRNG, so the marks a seed gives do not depend on other traffic. The
 * ICRC masks the IP ECN bits, so only the IPv4 header checksum changes.
 */
static void ecn_mark(SnicCore *c, uint8_t *f, size_t len)
{
    size_t off = SNIC_ETH_HLEN;
    uint16_t proto = rd16be(f + 12);
    uint8_t *ecn;
    unsigned shift;

    if (proto == SNIC_ETH_P_8021Q) {
        proto = rd16be(f + 16);
        off += 4;
    }
    if (proto == SNIC_ETH_P_IPV4 && len >= off + 20 &&
        f[off] == 0x45) {
        ecn = f + off + 1;      /* TOS: DSCP | ECN */
        shift = 0;
    } else if (proto == SNIC_ETH_P_IPV6 && len >= off + 40) {
        ecn = f + off + 1;      /* traffic class 3:0 | flow label */
        shift = 4;
    } else {
        return;
    }
    if (!((*ecn >> shift) & SNIC_ECN_MASK) ||
        ((*ecn >> shift) & SNIC_ECN_MASK) == SNIC_ECN_CE ||
        !chance(&c->link, c->link.faults.ce_pct)) {
        return;
    }
    *ecn |= SNIC_ECN_CE << shift;
    if (!shift) {
        wr16be(f + off + 10, 0);
        wr16be(f + off + 10, snic_ipv4_checksum(f + off));
    }
    snic_stat_inc(&c->stats.wire_ce_marked);
}

/* The frame as stored in the buffer, or NULL if it had no room */
static uint8_t *rxb_put(SnicCore *c, const uint8_t *f, size_t len)
{
    SnicLink *l = &c->link;
    uint32_t rec = RXB_HDR + len;
    int64_t at = rxb_room(l, rec);
    uint8_t *p;

    if (at < 0 || (!roce_priority(c, f) && l->rxb_bytes >= l->xoff)) {
        snic_eth_rx_drop(c, &c->stats.rx_buffer_drops, len,
                         SNIC_DROP_RX_BUFFER);
        return NULL;
    }
    if (at == 0 && l->rxb_frames) {
        l->rxb_wrap = l->rxb_tail;  /* the old lap ends here */
    }
    p = l->rxb + at;
    p[0] = len >> 8;
    p[1] = len;
    memcpy(p + RXB_HDR, f, len);
    l->rxb_tail = at + rec;
    l->rxb_bytes += rec;
    l->rxb_frames++;
    if (l->rxb_bytes > GUINT64_FROM_LE(c->stats.rx_buffer_max)) {
        c->stats.rx_buffer_max = GUINT64_TO_LE(l->rxb_bytes);
    }
    if (!c->cfg.lossy && !l->xoff_sent && l->rxb_bytes >= l->xoff) {
        /* sent by the engine run: never transmit from the receive path */
        l->pfc_pending = true;
    }
    c->ops->kick(c->opaque);
    return p + RXB_HDR;
}

void snic_link_rx_queue(SnicCore *c, const uint8_t *f, size_t len)
{
    uint8_t *stored = rxb_put(c, f, len);

    if (stored && c->link.faults.ce_pct) {
        ecn_mark(c, stored, len);
    }
}

bool snic_link_loop(SnicCore *c, const void *frame, size_t len)
{
    capture(c, frame, len);     /* as sent */
    if (!rxb_put(c, frame, len)) {
        return false;
    }
    capture(c, frame, len);     /* as received */
    snic_eth_rx_drop(c, &c->stats.rx_rdma_reserved, len, SNIC_DROP_ROCEV2);
    return true;
}

bool snic_link_rx_can_wait(const SnicCore *c)
{
    return !c->link.pfc_pending && c->link.rxb_bytes < c->link.full;
}

bool snic_link_rx_run(SnicCore *c, unsigned budget,
                      void (*deliver)(SnicCore *c, const uint8_t *frame,
                                      size_t len))
{
    SnicLink *l = &c->link;
    unsigned done = 0;

    if (l->pfc_pending && want_xoff(l)) {
        pfc_send(c, SNIC_PFC_MAX_QUANTA);
    }
    l->pfc_pending = false;
    while (done < budget && l->rxb_frames && snic_ready(c)) {
        const uint8_t *p = l->rxb + l->rxb_head;
        uint32_t len = rd16be(p);

        /*
         * In place: the receive path never transmits (so never loops a
         * frame back in), and a reset waits for the outermost snic_leave
         */
        deliver(c, p + RXB_HDR, len);
        l->rxb_head += RXB_HDR + len;
        l->rxb_bytes -= RXB_HDR + len;
        if (!--l->rxb_frames) {
            rxb_clear(l);
        } else if (l->rxb_head == l->rxb_wrap) {
            l->rxb_head = 0;
            l->rxb_wrap = l->rxb_size;
        }
        done++;
        /*
         * A long run must not let the partner's pause lapse: it may take
         * longer than the pause lasts, and the timer waits for it.
         */
        if (l->xoff_sent && keep_xoff(l) &&
            c->ops->now_ns(c->opaque) >= l->xoff_refresh) {
            pfc_send(c, SNIC_PFC_MAX_QUANTA);
        }
    }
    if (l->xoff_sent && !keep_xoff(l)) {
        pfc_send(c, 0);
    }
    return l->rxb_frames != 0;
}

/* ---- transmission and the timer ---- */

void snic_link_run_start(SnicCore *c)
{
    c->link.run_frames = GUINT64_FROM_LE(c->stats.rdma_tx_packets);
}

SnicLinkTx snic_link_roce_tx(SnicCore *c)
{
    SnicLink *l = &c->link;
    uint64_t sent = GUINT64_FROM_LE(c->stats.rdma_tx_packets) -
                    l->run_frames;

    if (roce_paused(c)) {
        return SNIC_LINK_TX_PAUSED;
    }
    return sent >= SNIC_PORT_RUN_FRAMES ? SNIC_LINK_TX_RUN_DONE :
                                          SNIC_LINK_TX_OK;
}

uint64_t snic_link_timer(SnicCore *c, uint64_t now)
{
    SnicLink *l = &c->link;
    uint64_t next = UINT64_MAX;

    if (l->paused && now >= l->pause_end) {
        pause_end(c, l->pause_end, false);
    }
    if (l->xoff_sent && now >= l->xoff_refresh) {
        /* still above XON (else the drain resumed it): pause again */
        pfc_send(c, keep_xoff(l) ? SNIC_PFC_MAX_QUANTA : 0);
    }
    if (l->paused) {
        next = l->pause_end;
    }
    if (l->xoff_sent) {
        next = MIN(next, l->xoff_refresh);
    }
    return next;
}
