/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snic Ethernet function: TX and RX descriptor rings.
 *
 * Each ring is a contiguous array of 16-byte descriptors in guest memory,
 * created with SNIC_ADMIN_CREATE_ETH_QUEUE and started with
 * SNIC_ADMIN_START_ETH_QUEUE. The driver fills descriptors and rings
 * SNIC_DB_ETH_TX / SNIC_DB_ETH_RX with its new producer index; the device
 * consumes them in order, writes each one back with SNIC_ETH_DESC_DONE and
 * raises the queue's MSI-X vector.
 *
 * TX: a frame is one or more descriptors; the last carries
 *     SNIC_ETH_DESC_EOP. A frame longer than the MTU + Ethernet/VLAN header,
 *     shorter than an Ethernet header, with a failing buffer address, or
 *     spanning more than SNIC_ETH_MAX_TX_DESCS descriptors (or the whole
 *     ring) is dropped: every one of its descriptors, through its EOP,
 *     completes with SNIC_ETH_DESC_ERR.
 * RX: each descriptor posts one buffer of 'len' bytes; one frame fills one
 *     buffer (frames that do not fit are dropped and counted). On
 *     completion 'len' holds the frame length.
 *
 * Received frames to UDP port 4791 (RoCEv2) belong to the RDMA engine: they
 * never appear on the Ethernet RX ring (snic_stats.rx_rdma_reserved).
 */
#ifndef SNIC_ETH_H
#define SNIC_ETH_H

#include <linux/types.h>

#define SNIC_ETH_DESC_SIZE          16
#define SNIC_ETH_MIN_LOG2_DEPTH     3
#define SNIC_ETH_MAX_LOG2_DEPTH     12
#define SNIC_ETH_MAX_TXQS           1
#define SNIC_ETH_MAX_RXQS           1
#define SNIC_ETH_MIN_MTU            68
#define SNIC_ETH_MAX_MTU            9000
#define SNIC_ETH_DEFAULT_MTU        1500
#define SNIC_ETH_HLEN               14      /* destination, source, type */
#define SNIC_ETH_HLEN_MAX           18      /* 14 + one VLAN tag */
#define SNIC_ETH_MAX_TX_DESCS       32      /* per frame */
#define SNIC_ROCEV2_UDP_PORT        4791

/* EtherTypes the device looks at */
#define SNIC_ETH_P_IPV4             0x0800
#define SNIC_ETH_P_IPV6             0x86dd
#define SNIC_ETH_P_8021Q            0x8100
#define SNIC_IPPROTO_UDP            17

/* flags: set by the driver */
#define SNIC_ETH_DESC_EOP           (1u << 0)   /* TX: last buffer of frame */
/* flags: written back by the device */
#define SNIC_ETH_DESC_DONE          (1u << 8)
#define SNIC_ETH_DESC_ERR           (1u << 9)

struct snic_eth_desc {
    __le64 addr;        /* buffer DMA address */
    __le16 len;         /* TX: bytes; RX: buffer size, then frame length */
    __le16 flags;
    __le32 rsvd;
};
_Static_assert(sizeof(struct snic_eth_desc) == SNIC_ETH_DESC_SIZE,
               "Ethernet descriptor is 16 bytes");

#endif /* SNIC_ETH_H */
