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

typedef struct SnicLink {
    SnicLinkFaults faults;
    uint64_t rng;
    SnicPcap *pcap;
    size_t held_len;            /* a frame held back to be reordered */
    uint8_t held[SNIC_ETH_MAX_MTU + SNIC_ETH_HLEN_MAX];
} SnicLink;

void snic_link_init(SnicCore *c, const SnicLinkFaults *faults);
void snic_link_free(SnicCore *c);
/* Forget a held frame (reset: the wire does not remember it either). */
void snic_link_reset(SnicCore *c);

/* Send a frame the link is up for; 'frame' may be reused on return. */
void snic_link_tx(SnicCore *c, const void *frame, size_t len);
/* Capture a received frame the device consumed (once, not per retry). */
void snic_link_rx(SnicCore *c, const void *frame, size_t len);
/* End of a burst: a frame still held back goes out now. */
void snic_link_flush(SnicCore *c);

#endif /* SNIC_CORE_LINK_H */
