/*
 * Ethernet-level helpers shared by the simulator's switch, its NIC timing
 * model (sim-port) and their tests: where a frame's headers end, its
 * priority and ECN field, CE marking, NDP-style trimming, IEEE 802.1Qbb
 * PFC frames, the pause state a PFC receiver keeps, and the bytes a frame
 * occupies on an Ethernet wire.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_SIM_ETH_H
#define SNIC_SIM_ETH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SNIC_SIM_PRIORITIES     8
#define SNIC_SIM_ETH_P_MAC_CTRL 0x8808      /* MAC control (PAUSE, PFC) */
#define SNIC_SIM_PFC_OPCODE     0x0101      /* 802.1Qbb priority PAUSE */
#define SNIC_SIM_PFC_FRAME_LEN  60          /* padded to 64 with the FCS */
#define SNIC_SIM_PFC_QUANTUM_BITS 512       /* one pause quantum */

/*
 * Ethernet framing a frame pays on the wire besides its bytes: FCS (4),
 * padding to the 64-byte minimum, preamble and SFD (8), inter-frame gap
 * (12). Frames in the simulator carry neither FCS nor padding.
 */
#define SNIC_SIM_ETH_FCS        4
#define SNIC_SIM_ETH_MIN_FRAME  64
#define SNIC_SIM_ETH_GAP        20

/* What the simulator needs to know about a frame (any bytes). */
typedef struct SnicSimFrameInfo {
    uint16_t ethertype;         /* after an 802.1Q tag */
    bool vlan;
    uint8_t pcp;                /* 802.1Q priority code point, if vlan */
    size_t l3;                  /* IP header offset; 0: not IPv4/IPv6 */
    bool ipv6;
    uint8_t ecn;                /* IP ECN field (IPv4 TOS / IPv6 TC) */
    bool roce;                  /* UDP/4791 with an op-code snic speaks */
    uint8_t opcode;             /* BTH op-code, if roce */
    uint32_t dqpn;              /* BTH destination QP, if roce */
    size_t hdr_len;             /* roce: bytes up to the payload */
    uint32_t payload_len;       /* roce: payload (no pad, no ICRC) */
} SnicSimFrameInfo;

void snic_sim_frame_info(const uint8_t *f, size_t len, SnicSimFrameInfo *fi);

/* Its priority: the tag's PCP, or 'untagged' for an untagged frame. */
unsigned snic_sim_frame_priority(const SnicSimFrameInfo *fi,
                                 unsigned untagged);

/* Bytes a frame of 'len' occupies on the wire (SNIC_SIM_ETH_* framing). */
uint64_t snic_sim_eth_wire_bytes(size_t len);

/*
 * Set CE on an ECT(0)/ECT(1) IPv4 or IPv6 frame (IPv4: the header checksum
 * is fixed). False, and the frame untouched, for anything else.
 */
bool snic_sim_frame_mark_ce(uint8_t *f, size_t len);

/*
 * NDP-style trimming: cut a RoCE frame to its headers (Ethernet, IP, UDP,
 * BTH and the op-code's extended headers: payload, pad and ICRC go), fix
 * the IP and UDP lengths (and the IPv4 checksum) and set the IP DSCP to
 * 'dscp' so a receiver can tell a trimmed header from a packet (its ICRC
 * is gone). Returns the new length, or 0 (untouched) if the frame is not
 * RoCE or has no payload to cut.
 */
size_t snic_sim_frame_trim(uint8_t *f, size_t len, uint8_t dscp);

/* The IP DSCP of a frame (0 if it is not IP). */
uint8_t snic_sim_frame_dscp(const uint8_t *f, size_t len);

/*
 * A PFC frame (802.1Qbb, MAC control opcode 0x0101) from 'src': the
 * class-enable vector 'cev' (bit p: priority p's time is valid) and the
 * pause time of each priority in quanta of 512 bit times (0: resume).
 * Writes SNIC_SIM_PFC_FRAME_LEN bytes; returns that length.
 */
size_t snic_sim_pfc_build(uint8_t *buf, const uint8_t src[6], uint8_t cev,
                          const uint16_t quanta[SNIC_SIM_PRIORITIES]);
/* True if f is a PFC frame; its class-enable vector and times. */
bool snic_sim_pfc_parse(const uint8_t *f, size_t len, uint8_t *cev,
                        uint16_t quanta[SNIC_SIM_PRIORITIES]);
/* Pause time of 'quanta' on a link of 'bps' in ns (rounded up). */
uint64_t snic_sim_pfc_quanta_ns(uint16_t quanta, uint64_t bps);

/*
 * What a PFC receiver keeps per port: until when each priority is paused
 * and the paused time so far (intervals that overlap counted once).
 */
typedef struct SnicSimPause {
    uint64_t until[SNIC_SIM_PRIORITIES];    /* paused while now < until */
    uint64_t since[SNIC_SIM_PRIORITIES];    /* start of the pause */
    uint64_t paused_ns[SNIC_SIM_PRIORITIES];    /* ended pauses */
    uint64_t frames;                        /* PFC frames applied */
} SnicSimPause;

/*
 * Apply a received PFC frame at 'now' to the priorities in 'mask' (others
 * are ignored) on a link of 'bps': each enabled priority is paused for its
 * time from now on, or resumes at once for time 0.
 */
void snic_sim_pause_apply(SnicSimPause *ps, uint64_t now, uint8_t mask,
                          uint8_t cev,
                          const uint16_t quanta[SNIC_SIM_PRIORITIES],
                          uint64_t bps);
/* Whether priority p is paused at 'now'. */
bool snic_sim_pause_active(const SnicSimPause *ps, uint64_t now, unsigned p);
/* Paused time of priority p up to 'now'. */
uint64_t snic_sim_pause_time(const SnicSimPause *ps, uint64_t now,
                             unsigned p);

#endif /* SNIC_SIM_ETH_H */
