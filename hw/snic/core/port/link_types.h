/*
 * snic core: the port's MAC state as SnicCore holds it (port/link.c's):
 * types and limits only, so the core's shared state and its
 * configuration need no function of the port.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_LINK_TYPES_H
#define SNIC_CORE_LINK_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snic/snic_eth.h"

typedef struct SnicPcap SnicPcap;

/*
 * Fault injection on transmit, in percent of frames (0 = off), and a
 * congested switch on receive: ce_pct of the received RoCE frames that
 * carry ECT(0) or ECT(1) arrive marked CE (RFC 3168), as a RED queue on
 * the path would mark them, so DCQCN's notification point runs between
 * two VMs (Tonic/DCQCN; counted in wire_ce_marked).
 *
 * corrupt_pct of the RoCE frames sent get one byte flipped between the
 * BTH and the ICRC (an extended header's or the payload's), as a bad
 * link would: the receiver's ICRC check drops them (rdma_rx_icrc_errors).
 * Only RoCE frames draw for it, as only ECT frames draw for ce_pct: the
 * faults a seed gives do not depend on other traffic.
 *
 * The settings change at run time (snic_core_set_faults()); one PRNG
 * draws every fault, and keeps its state across a change of percentages.
 */
typedef struct SnicLinkFaults {
    uint32_t drop_pct;
    uint32_t dup_pct;
    uint32_t reorder_pct;
    uint32_t ce_pct;            /* received ECT frames marked CE */
    uint32_t torn_pct;          /* host reads torn (snic_fault_tear()) */
    uint32_t corrupt_pct;       /* RoCE frames sent with a byte flipped */
    uint64_t seed;              /* same seed, same faults */
} SnicLinkFaults;

/*
 * The receive buffer (rx-buffer-kb) and PFC (pfc, pfc-priority).
 *
 * RoCE frames from the wire, and those the port turns around for its own
 * addresses, wait in the receive buffer until the engine takes them, at
 * most its run budget at a time: a burst larger than one run is absorbed,
 * not dropped. With PFC on, a buffer filled to XOFF (a quarter of it) sends
 * the link partner a PFC frame pausing the RoCE priority for the longest
 * time a frame can ask (65535 quanta, refreshed at half that while still
 * above XON), and one emptied to XON (an eighth) sends a resume (quanta 0).
 * The rest above XOFF is headroom for what the partner sends before it
 * stops.
 * A frame the buffer cannot hold is dropped and counted (rx_buffer_drops).
 *
 * Classification: the device sends its RoCE untagged, and an untagged RoCE
 * frame belongs to the RoCE priority (the port maps RoCE to its lossless
 * class, as RNICs that trust DSCP do); a VLAN-tagged RoCE frame to the
 * priority of its PCP. RoCE of another priority is lossy: it is taken only
 * below XOFF, so it never eats the paused class's headroom. Frames that are
 * not RoCE go to the Ethernet function and are never paused.
 */
#define SNIC_DEFAULT_RX_BUFFER_KB   2048
#define SNIC_RX_BUFFER_MIN_KB       64
#define SNIC_RX_BUFFER_MAX_KB       (64 * 1024)
#define SNIC_DEFAULT_PFC_PRIORITY   3
#define SNIC_PFC_PRIORITIES         8
/*
 * RoCE frames the port sends in one engine run, at most (besides the rest
 * of the burst of the iteration that reaches it): the share of the line
 * one run gets. It bounds the burst the partner must absorb after it
 * sent XOFF, whatever the number of QPs.
 */
#define SNIC_PORT_RUN_FRAMES        32

/*
 * The port's speed, property link-speed-mbps (SnicCoreConfig): what
 * QUERY_DEVICE reports, what PFC times pause quanta by and the line rate
 * the transport programs start from and pace at. A real port learns it
 * from autonegotiation; a model is told it by its host.
 */
#define SNIC_DEFAULT_LINK_SPEED_MBPS    100000u     /* 100 Gb/s */
#define SNIC_MIN_LINK_SPEED_MBPS        1000u       /* 1 Gb/s */
#define SNIC_MAX_LINK_SPEED_MBPS        800000u     /* 800 Gb/s */

/* IEEE 802.1Qbb PFC frames (MAC control, IEEE 802.3 Annex 31D) */
#define SNIC_ETH_P_MAC_CONTROL      0x8808
#define SNIC_MAC_CONTROL_PFC        0x0101
#define SNIC_PFC_FRAME_LEN          60      /* minFrameSize less the FCS */
#define SNIC_PFC_FIELDS_LEN         34      /* header, opcode, vector, times */
#define SNIC_PFC_QUANTUM_BITS       512     /* one quantum: 512 bit times */
#define SNIC_PFC_MAX_QUANTA         0xffff

typedef struct SnicLink {
    SnicLinkFaults faults;
    uint64_t rng;
    SnicPcap *pcap;
    size_t held_len;            /* a frame held back to be reordered */
    size_t held_host;           /* ... its bytes read from host memory */
    uint8_t held[SNIC_ETH_MAX_MTU + SNIC_ETH_HLEN_MAX];
    /* a frame being sent corrupted (the caller's is const) */
    uint8_t corrupted[SNIC_ETH_MAX_MTU + SNIC_ETH_HLEN_MAX];

    /*
     * The receive buffer: a byte ring of records (2-byte length, frame)
     * stored whole; one that would pass the end of the ring starts it
     * over (rxb_wrap marks where the old lap ended).
     */
    uint8_t *rxb;
    uint32_t rxb_size;          /* bytes (rx-buffer-kb) */
    uint32_t rxb_head;          /* offset of the oldest record */
    uint32_t rxb_tail;          /* offset of the next record */
    uint32_t rxb_wrap;          /* end of the lap rxb_head is on */
    uint32_t rxb_bytes;         /* bytes of the records held */
    uint32_t rxb_frames;
    uint32_t xoff;              /* thresholds, bytes */
    uint32_t xon;
    uint32_t full;              /* the engine must take frames now */
    /* RoCE frames sent in the engine run under way */
    uint64_t run_frames;

    /* PFC as receiver: the partner is paused (XOFF sent, no resume yet) */
    bool xoff_sent;
    bool pfc_pending;           /* a PFC frame to send at the next run */
    bool wire_backlog;          /* the host's wire holds frames for us */
    uint64_t xoff_refresh;      /* when the pause is renewed */
    /* PFC as sender: the partner paused our RoCE priority */
    bool paused;
    uint64_t pause_start;
    uint64_t pause_end;
} SnicLink;

#endif /* SNIC_CORE_LINK_TYPES_H */
