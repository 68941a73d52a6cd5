/*
 * snic core: the device's end of the wire. Every frame the device sends
 * or receives passes here: it is captured (pcap= property) and, when
 * configured, dropped, duplicated or reordered to test transports in QEMU
 * without an external impairment tool.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_LINK_H
#define SNIC_CORE_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snic/snic_eth.h"

typedef struct SnicCore SnicCore;
typedef struct SnicPcap SnicPcap;

/* Fault injection on transmit, in percent of frames (0 = off). */
typedef struct SnicLinkFaults {
    uint32_t drop_pct;
    uint32_t dup_pct;
    uint32_t reorder_pct;
    uint64_t seed;              /* same seed, same faults */
} SnicLinkFaults;

/*
 * RoCE frames addressed to the port itself (two QPs of one port) turn
 * around inside the port, as on RoCE NICs: up to this many wait for the
 * engine, each up to the largest RoCE frame (4 KiB payload and headers).
 */
#define SNIC_LOOP_FRAMES        32
#define SNIC_LOOP_FRAME_MAX     (4096 + 256)

typedef struct SnicLink {
    SnicLinkFaults faults;
    uint64_t rng;
    SnicPcap *pcap;
    size_t held_len;            /* a frame held back to be reordered */
    uint8_t held[SNIC_ETH_MAX_MTU + SNIC_ETH_HLEN_MAX];
    /* the loopback FIFO (free-running indices) */
    uint32_t loop_head;
    uint32_t loop_tail;
    uint16_t loop_len[SNIC_LOOP_FRAMES];
    uint8_t (*loop)[SNIC_LOOP_FRAME_MAX];
} SnicLink;

void snic_link_init(SnicCore *c, const SnicLinkFaults *faults);
/* Bytes of the port's receive buffer (on-chip memory) */
size_t snic_link_rx_buffer_bytes(const SnicCore *c);
/* New faults (and their seed) from now on */
void snic_link_set_faults(SnicCore *c, const SnicLinkFaults *faults);
void snic_link_free(SnicCore *c);
/* Forget a held frame (reset: the wire does not remember it either). */
void snic_link_reset(SnicCore *c);

/* Send a frame the link is up for; 'frame' may be reused on return. */
void snic_link_tx(SnicCore *c, const void *frame, size_t len);
/*
 * Turn a RoCE frame for the port's own address around (captured as sent);
 * false if the loopback FIFO is full (the frame is lost, as on a wire).
 */
bool snic_link_loop(SnicCore *c, const void *frame, size_t len);
/* The oldest turned-around frame (NULL: none); snic_link_loop_pop ends it */
const uint8_t *snic_link_loop_peek(SnicCore *c, size_t *len);
void snic_link_loop_pop(SnicCore *c);
/* Capture a received frame the device consumed (once, not per retry). */
void snic_link_rx(SnicCore *c, const void *frame, size_t len);
/* End of a burst: a frame still held back goes out now. */
void snic_link_flush(SnicCore *c);

#endif /* SNIC_CORE_LINK_H */
