/*
 * snic core: the device's end of the wire - capture and fault injection.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "link.h"
#include "pcap.h"

void snic_link_init(SnicCore *c, const SnicLinkFaults *faults)
{
    snic_link_set_faults(c, faults);
    c->link.held_len = 0;
    c->link.loop = g_malloc(SNIC_LOOP_FRAMES * sizeof(*c->link.loop));
}

size_t snic_link_rx_buffer_bytes(const SnicCore *c)
{
    return SNIC_LOOP_FRAMES * (sizeof(*c->link.loop) +
                               sizeof(c->link.loop_len[0]));
}

void snic_link_set_faults(SnicCore *c, const SnicLinkFaults *faults)
{
    c->link.faults = *faults;
    /* xorshift64* must not start at 0 */
    c->link.rng = faults->seed ^ 0x9e3779b97f4a7c15ull;
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
    g_free(c->link.loop);
    c->link.loop = NULL;
    pcap_close(c);
}

void snic_link_reset(SnicCore *c)
{
    c->link.held_len = 0;
    c->link.loop_head = c->link.loop_tail = 0;
}

void snic_core_set_pcap(SnicCore *c, SnicPcap *pcap)
{
    pcap_close(c);
    c->link.pcap = pcap;
}

/* Percent chance, from a PRNG of the link's own (reproducible by seed). */
static bool chance(SnicLink *l, uint32_t pct)
{
    uint64_t x = l->rng;

    if (!pct) {
        return false;
    }
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    l->rng = x;
    return (x * 0x2545f4914f6cdd1dull) % 100 < pct;
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

static void wire_out(SnicCore *c, const void *frame, size_t len)
{
    capture(c, frame, len);
    c->ops->tx_frame(c->opaque, frame, len);
}

void snic_link_tx(SnicCore *c, const void *frame, size_t len)
{
    SnicLink *l = &c->link;

    if (chance(l, l->faults.drop_pct)) {
        snic_stat_inc(&c->stats.wire_drops_injected);
        return;
    }
    if (!l->held_len && len <= sizeof(l->held) &&
        chance(l, l->faults.reorder_pct)) {
        /* goes out after the next frame, or at the end of the burst */
        memcpy(l->held, frame, len);
        l->held_len = len;
        snic_stat_inc(&c->stats.wire_reorders_injected);
        return;
    }
    wire_out(c, frame, len);
    if (chance(l, l->faults.dup_pct)) {
        snic_stat_inc(&c->stats.wire_dups_injected);
        wire_out(c, frame, len);
    }
    snic_link_flush(c);
}

bool snic_link_loop(SnicCore *c, const void *frame, size_t len)
{
    SnicLink *l = &c->link;
    uint32_t slot = l->loop_tail % SNIC_LOOP_FRAMES;

    if (l->loop_tail - l->loop_head >= SNIC_LOOP_FRAMES ||
        len > SNIC_LOOP_FRAME_MAX) {
        return false;
    }
    capture(c, frame, len);
    memcpy(l->loop[slot], frame, len);
    l->loop_len[slot] = len;
    l->loop_tail++;
    return true;
}

const uint8_t *snic_link_loop_peek(SnicCore *c, size_t *len)
{
    SnicLink *l = &c->link;
    uint32_t slot = l->loop_head % SNIC_LOOP_FRAMES;

    if (l->loop_head == l->loop_tail) {
        return NULL;
    }
    *len = l->loop_len[slot];
    return l->loop[slot];
}

void snic_link_loop_pop(SnicCore *c)
{
    c->link.loop_head++;
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
        wire_out(c, c->link.held, len);
    }
}
