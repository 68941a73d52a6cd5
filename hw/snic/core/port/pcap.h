/*
 * snic core: classic pcap writer (Ethernet link type, nanosecond time
 * stamps), for the tests, the network simulator and the device's pcap=
 * property.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_PCAP_H
#define SNIC_CORE_PCAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct SnicPcap SnicPcap;

/* Create (truncate) a capture file; NULL with errno set on failure. */
SnicPcap *snic_pcap_open(const char *path);
/* Append one frame stamped ts_ns; returns 0, or -1 with errno set. */
int snic_pcap_write(SnicPcap *p, uint64_t ts_ns, const void *frame,
                    size_t len);
/* Flush and close; returns 0, or -1 if anything was lost. */
int snic_pcap_close(SnicPcap *p);

#endif /* SNIC_CORE_PCAP_H */
