/*
 * snic core: RoCEv2 wire codec (Ethernet / IPv4 or IPv6 / UDP 4791 / BTH /
 * extended headers / payload / pad / ICRC), as docs/wire.md sums up
 * the IBA's RoCEv2 annex and Linux rxe. Op-codes and their headers come from the
 * one table in include/snic/snic_opcodes.h.
 *
 * Building and parsing never allocate; parsing accepts any bytes of any
 * length and says why it rejects a frame.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_WIRE_H
#define SNIC_CORE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snic/snic_eth.h"        /* SNIC_ROCEV2_UDP_PORT */
#include "snic/snic_opcodes.h"
#include "psn.h"

#define SNIC_VLAN_TAG_LEN       4
#define SNIC_IPV4_HDR_LEN       20
#define SNIC_IPV6_HDR_LEN       40
#define SNIC_UDP_HDR_LEN        8
#define SNIC_DEFAULT_PKEY       0xffff
#define SNIC_QPN_MASK           0xffffffu

/* Addressing of one packet (host byte order; IPv4 uses sip/dip[0..3]). */
typedef struct SnicWireAddr {
    uint8_t dmac[6];
    uint8_t smac[6];
    bool ipv6;
    bool vlan;              /* 802.1Q tag present */
    uint16_t vlan_tci;
    uint8_t sip[16];
    uint8_t dip[16];
    uint8_t tclass;         /* IPv4 TOS / IPv6 traffic class (DSCP|ECN) */
    uint8_t hop_limit;      /* IPv4 TTL / IPv6 hop limit */
    uint32_t flow_label;    /* IPv6 only, 20 bits */
    uint16_t ip_id;         /* IPv4 only */
    uint16_t sport;         /* UDP source port (see snic_wire_udp_sport) */
} SnicWireAddr;

/* One RoCEv2 packet, decoded (host byte order). */
typedef struct SnicPkt SnicPkt;
struct SnicPkt {
    SnicWireAddr addr;
    /* BTH */
    uint8_t opcode;
    bool se;
    bool mig;
    uint8_t pad;            /* pad count: set by the builder */
    uint16_t pkey;
    bool fecn;
    bool becn;
    uint32_t dqpn;
    bool ackreq;
    uint32_t psn;
    /* extended headers, valid as SNIC_HDR_* in 'headers' says */
    uint16_t headers;       /* set by the parser (the table's, on build) */
    struct {
        uint64_t va;
        uint32_t rkey;
        uint32_t len;
    } reth;
    struct {
        uint8_t syndrome;
        uint32_t msn;
    } aeth;
    struct {
        uint64_t va;
        uint32_t rkey;
        uint64_t swap_add;
        uint64_t compare;
    } atomic;
    uint64_t atomic_ack;    /* original remote data */
    uint32_t imm;           /* value of the big-endian ImmDt field */
    uint32_t ieth_rkey;
    struct {
        uint32_t qkey;
        uint32_t sqpn;
    } deth;
    /* the selective-transport extension (BTH TVer SNIC_BTH_TVER_XPORT) */
    bool xport;
    bool trimmed;           /* a data packet's headers alone (no ICRC) */
    struct {
        uint8_t flags;          /* SNIC_XETH_F_* */
        uint16_t sq_index;
        uint32_t rkey;
        uint64_t va;
        uint32_t msg;
        uint32_t offset;
        uint32_t sack_lo;
        uint32_t sack_hi;
    } xeth;
    /* the connectionless transport's header (SNIC_HDR_CLETH) */
    struct {
        uint8_t flags;          /* SNIC_CL_F_* */
        uint8_t syndrome;       /* enum snic_cl_syndrome */
        uint8_t retries;
        uint32_t src_ep;
        uint32_t op_id;
        uint32_t index;
        uint64_t va;
        uint32_t rkey;
        uint32_t len;
        uint32_t npkts;
        uint32_t tag;
        uint32_t timeout_us;
    } cl;
    /*
     * payload: the builder copies it (unless it is in place already:
     * snic_wire_payload_off); the parser points into the frame
     */
    const uint8_t *payload;
    uint32_t payload_len;
    const uint8_t *l3;      /* parser: the IP header in the frame */
};

typedef enum SnicParseStatus {
    SNIC_PARSE_OK = 0,
    SNIC_PARSE_TRUNCATED,       /* shorter than the headers it announces */
    SNIC_PARSE_NOT_IP,          /* EtherType neither IPv4 nor IPv6 */
    SNIC_PARSE_BAD_IP_VERSION,  /* version field disagrees with EtherType */
    SNIC_PARSE_BAD_IP_HEADER,   /* IPv4 options or bad header checksum */
    SNIC_PARSE_IP_FRAGMENT,     /* RoCEv2 is never fragmented */
    SNIC_PARSE_BAD_IP_LENGTH,   /* IP length disagrees with the frame */
    SNIC_PARSE_NOT_UDP,
    SNIC_PARSE_NOT_ROCE,        /* UDP destination port is not 4791 */
    SNIC_PARSE_BAD_UDP_LENGTH,  /* UDP length disagrees with IP length */
    SNIC_PARSE_BAD_TVER,        /* BTH TVer: not 0 (extensions: 1-3) */
    SNIC_PARSE_UNKNOWN_OPCODE,  /* not in snic_opcode_info() */
    SNIC_PARSE_LENGTH_MISMATCH, /* headers + ICRC do not fit the datagram */
    /* payload + pad not a multiple of 4, pad larger than the data, or */
    SNIC_PARSE_BAD_PAD,         /* data on an op-code without payload */
    SNIC_PARSE_BAD_ICRC,
    SNIC_PARSE__MAX
} SnicParseStatus;

/* Name of a parse status, for logs and tests. */
const char *snic_parse_status_str(SnicParseStatus st);

/*
 * UDP source port for a QP pair: the kernel's rdma_calc_flow_label()
 * folded into 0xC000-0xFFFF (rdma_flow_label_to_udp_sport()), so flows
 * spread over ECMP paths the way Linux RoCE stacks spread them.
 */
uint16_t snic_wire_udp_sport(uint32_t lqpn, uint32_t rqpn);

/* Frame length snic_wire_build() needs for this packet (0: bad op-code). */
size_t snic_wire_frame_len(const SnicPkt *p);

/*
 * Where snic_wire_build() puts the payload of 'p' in a frame buffer of
 * cap bytes (0: a bad op-code, or the frame would not fit): a payload
 * read to buf + that offset beforehand is not copied.
 */
size_t snic_wire_payload_off(const SnicPkt *p, size_t cap);

/*
 * Build the frame for 'p' (extended headers from the op-code table, pad,
 * IPv4 checksum, ICRC) into buf. Returns its length, or 0 if the op-code
 * is unknown, it carries payload it cannot have, or cap is too small.
 */
size_t snic_wire_build(const SnicPkt *p, uint8_t *buf, size_t cap);

/* Is the frame a UDP datagram to the RoCEv2 port (the RDMA engine's)? */
bool snic_frame_is_rocev2(const uint8_t *frame, size_t len);

/* Parse and validate a frame (ICRC included) into *p. */
SnicParseStatus snic_wire_parse(const uint8_t *frame, size_t len, SnicPkt *p);

/*
 * Where a RoCEv2 frame's datagram lies: the BTH at offset *bth, the ICRC
 * at *icrc. False if the frame is not RoCEv2 up to its UDP header, or
 * holds no room for a BTH and an ICRC. Nothing past the UDP header is
 * validated.
 */
bool snic_wire_roce_span(const uint8_t *frame, size_t len, size_t *bth,
                         size_t *icrc);

/*
 * Internet checksum of a 20-byte IPv4 header as it stands: 0 if the header
 * checksum field is right; with that field zeroed, the value to store.
 */
uint16_t snic_ipv4_checksum(const uint8_t *hdr);

/*
 * RoCEv2 invariant CRC over the IP header through the pad ('len' bytes from
 * 'ip'), variant fields masked. Transmitted least significant byte first.
 */
uint32_t snic_icrc(const uint8_t *ip, size_t len, bool ipv6);

/*
 * zlib's crc32(crc, buf, len): ISA-L's PCLMUL implementation where the
 * build found libisal, zlib's otherwise (the same value either way).
 */
uint32_t snic_crc32(uint32_t crc, const uint8_t *buf, size_t len);

#endif /* SNIC_CORE_WIRE_H */
