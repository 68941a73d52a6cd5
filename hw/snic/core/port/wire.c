/*
 * snic core: RoCEv2 frame builder and parser (see wire.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "port/wire.h"

#define IPV4_DF             0x4000
#define IPV4_FRAG_MASK      0x3fff  /* MF + fragment offset */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static void put24(uint8_t *p, uint32_t v)
{
    p[0] = v >> 16;
    p[1] = v >> 8;
    p[2] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v >> 16);
    put16(p + 2, v);
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, v >> 32);
    put32(p + 4, v);
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get24(const uint8_t *p)
{
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

uint16_t snic_ipv4_checksum(const uint8_t *h)
{
    uint32_t sum = 0;
    int i;

    for (i = 0; i < SNIC_IPV4_HDR_LEN; i += 2) {
        sum += get16(h + i);
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum;
}

/*
 * IPv6 forbids a zero UDP checksum (RFC 8200), so IPv6 frames carry a real
 * one; it is masked in the ICRC, which is computed first.
 */
static uint16_t udp6_checksum(const uint8_t *ip, const uint8_t *udp,
                              size_t udp_len)
{
    uint32_t sum = SNIC_IPPROTO_UDP + (uint32_t)udp_len;
    size_t i;

    for (i = 8; i < 40; i += 2) {       /* source and destination */
        sum += get16(ip + i);
    }
    for (i = 0; i + 1 < udp_len; i += 2) {
        sum += get16(udp + i);
    }
    if (udp_len & 1) {
        sum += udp[udp_len - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum = ~sum & 0xffff;
    return sum ? sum : 0xffff;
}

const char *snic_parse_status_str(SnicParseStatus st)
{
    static const char *const names[SNIC_PARSE__MAX] = {
        [SNIC_PARSE_OK] = "ok",
        [SNIC_PARSE_TRUNCATED] = "truncated",
        [SNIC_PARSE_NOT_IP] = "not IP",
        [SNIC_PARSE_BAD_IP_VERSION] = "bad IP version",
        [SNIC_PARSE_BAD_IP_HEADER] = "bad IP header",
        [SNIC_PARSE_IP_FRAGMENT] = "IP fragment",
        [SNIC_PARSE_BAD_IP_LENGTH] = "bad IP length",
        [SNIC_PARSE_NOT_UDP] = "not UDP",
        [SNIC_PARSE_NOT_ROCE] = "not RoCEv2",
        [SNIC_PARSE_BAD_UDP_LENGTH] = "bad UDP length",
        [SNIC_PARSE_BAD_TVER] = "bad BTH version",
        [SNIC_PARSE_UNKNOWN_OPCODE] = "unknown op-code",
        [SNIC_PARSE_LENGTH_MISMATCH] = "header/payload length mismatch",
        [SNIC_PARSE_BAD_PAD] = "bad pad count",
        [SNIC_PARSE_BAD_ICRC] = "bad ICRC",
    };

    return (unsigned)st < SNIC_PARSE__MAX ? names[st] : "invalid status";
}

uint16_t snic_wire_udp_sport(uint32_t lqpn, uint32_t rqpn)
{
    uint64_t fl = (uint64_t)(lqpn & SNIC_QPN_MASK) * (rqpn & SNIC_QPN_MASK);

    fl ^= fl >> 20;
    fl ^= fl >> 40;
    fl &= 0xfffff;
    return (uint16_t)(((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000);
}

static size_t l2_len(const SnicWireAddr *a)
{
    return SNIC_ETH_HLEN + (a->vlan ? SNIC_VLAN_TAG_LEN : 0);
}

static size_t ip_hdr_len(const SnicWireAddr *a)
{
    return a->ipv6 ? SNIC_IPV6_HDR_LEN : SNIC_IPV4_HDR_LEN;
}

/* May the op-code carry the selective-transport extension? RC, standard */
static bool xport_opcode(const struct snic_opcode_info *op, uint8_t opcode)
{
    return opcode < SNIC_OP_UC_OFFSET && !(op->flags & SNIC_OPF_EXT);
}

/* struct snic_xeth: its offsets, its fields little-endian (include/snic) */
static void put_le(uint8_t *q, uint64_t v, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        q[i] = v >> (8 * i);
    }
}

static uint64_t get_le(const uint8_t *q, unsigned n)
{
    uint64_t v = 0;
    unsigned i;

    for (i = 0; i < n; i++) {
        v |= (uint64_t)q[i] << (8 * i);
    }
    return v;
}

#define XETH_OFF(f)     offsetof(struct snic_xeth, f)

static void put_xeth(const SnicPkt *p, uint8_t *q)
{
    memset(q, 0, SNIC_XETH_LEN);
    q[XETH_OFF(flags)] = p->xeth.flags;
    put_le(q + XETH_OFF(sq_index), p->xeth.sq_index, 2);
    put_le(q + XETH_OFF(rkey), p->xeth.rkey, 4);
    put_le(q + XETH_OFF(va), p->xeth.va, 8);
    put_le(q + XETH_OFF(msg), p->xeth.msg, 4);
    put_le(q + XETH_OFF(offset), p->xeth.offset, 4);
    put_le(q + XETH_OFF(sack_lo), p->xeth.sack_lo, 4);
    put_le(q + XETH_OFF(sack_hi), p->xeth.sack_hi, 4);
}

static void get_xeth(SnicPkt *p, const uint8_t *q)
{
    p->xport = true;
    p->xeth.flags = q[XETH_OFF(flags)];
    p->xeth.sq_index = get_le(q + XETH_OFF(sq_index), 2);
    p->xeth.rkey = get_le(q + XETH_OFF(rkey), 4);
    p->xeth.va = get_le(q + XETH_OFF(va), 8);
    p->xeth.msg = get_le(q + XETH_OFF(msg), 4);
    p->xeth.offset = get_le(q + XETH_OFF(offset), 4);
    /* PSNs, 24 bits like the BTH's: the rest is not the peer's to set */
    p->xeth.sack_lo = get_le(q + XETH_OFF(sack_lo), 4) & SNIC_PSN_MASK;
    p->xeth.sack_hi = get_le(q + XETH_OFF(sack_hi), 4) & SNIC_PSN_MASK;
}

#define CLETH_OFF(f)    offsetof(struct snic_cleth, f)

/* The connectionless transport's header (snic_cl.h), little-endian */
static void put_cleth(const SnicPkt *p, uint8_t *q)
{
    memset(q, 0, SNIC_CLETH_LEN);
    q[CLETH_OFF(flags)] = p->cl.flags;
    q[CLETH_OFF(syndrome)] = p->cl.syndrome;
    q[CLETH_OFF(retries)] = p->cl.retries;
    put_le(q + CLETH_OFF(src_ep), p->cl.src_ep, 4);
    put_le(q + CLETH_OFF(op_id), p->cl.op_id, 4);
    put_le(q + CLETH_OFF(index), p->cl.index, 4);
    put_le(q + CLETH_OFF(va), p->cl.va, 8);
    put_le(q + CLETH_OFF(rkey), p->cl.rkey, 4);
    put_le(q + CLETH_OFF(len), p->cl.len, 4);
    put_le(q + CLETH_OFF(npkts), p->cl.npkts, 4);
    put_le(q + CLETH_OFF(tag), p->cl.tag, 4);
    put_le(q + CLETH_OFF(timeout_us), p->cl.timeout_us, 4);
}

static void get_cleth(SnicPkt *p, const uint8_t *q)
{
    p->cl.flags = q[CLETH_OFF(flags)];
    p->cl.syndrome = q[CLETH_OFF(syndrome)];
    p->cl.retries = q[CLETH_OFF(retries)];
    p->cl.src_ep = get_le(q + CLETH_OFF(src_ep), 4) & SNIC_QPN_MASK;
    p->cl.op_id = get_le(q + CLETH_OFF(op_id), 4);
    p->cl.index = get_le(q + CLETH_OFF(index), 4);
    p->cl.va = get_le(q + CLETH_OFF(va), 8);
    p->cl.rkey = get_le(q + CLETH_OFF(rkey), 4);
    p->cl.len = get_le(q + CLETH_OFF(len), 4);
    p->cl.npkts = get_le(q + CLETH_OFF(npkts), 4);
    p->cl.tag = get_le(q + CLETH_OFF(tag), 4);
    p->cl.timeout_us = get_le(q + CLETH_OFF(timeout_us), 4);
}

/* Bytes from the BTH through the ICRC, or 0 for a packet we cannot build. */
static size_t roce_len(const SnicPkt *p, const struct snic_opcode_info **op)
{
    *op = snic_opcode_info(p->opcode);
    if (!*op || (p->payload_len && !((*op)->flags & SNIC_OPF_PAYLOAD))) {
        return 0;
    }
    if (p->xport && !xport_opcode(*op, p->opcode)) {
        return 0;
    }
    return SNIC_BTH_LEN + (p->xport ? SNIC_XETH_LEN : 0) +
           snic_opcode_hdr_len((*op)->headers) +
           p->payload_len + ((-p->payload_len) & 3) + SNIC_ICRC_LEN;
}

size_t snic_wire_frame_len(const SnicPkt *p)
{
    const struct snic_opcode_info *op;
    size_t roce = roce_len(p, &op);

    if (!roce) {
        return 0;
    }
    return l2_len(&p->addr) + ip_hdr_len(&p->addr) + SNIC_UDP_HDR_LEN + roce;
}

size_t snic_wire_payload_off(const SnicPkt *p, size_t cap)
{
    const struct snic_opcode_info *op;
    size_t roce = roce_len(p, &op), lower;

    if (!roce) {
        return 0;
    }
    lower = l2_len(&p->addr) + ip_hdr_len(&p->addr) + SNIC_UDP_HDR_LEN;
    if (lower + roce > cap) {
        return 0;
    }
    return lower + SNIC_BTH_LEN + (p->xport ? SNIC_XETH_LEN : 0) +
           snic_opcode_hdr_len(op->headers);
}

/* Extended headers in wire order (the SNIC_HDR_* bit order). */
static uint8_t *put_ext_headers(const SnicPkt *p, uint16_t h, uint8_t *q)
{
    if (h & SNIC_HDR_DETH) {
        put32(q, p->deth.qkey);
        put32(q + 4, p->deth.sqpn & SNIC_QPN_MASK);    /* resv8 = 0 */
        q += SNIC_DETH_LEN;
    }
    if (h & SNIC_HDR_RETH) {
        put64(q, p->reth.va);
        put32(q + 8, p->reth.rkey);
        put32(q + 12, p->reth.len);
        q += SNIC_RETH_LEN;
    }
    if (h & SNIC_HDR_ATOMIC_ETH) {
        put64(q, p->atomic.va);
        put32(q + 8, p->atomic.rkey);
        put64(q + 12, p->atomic.swap_add);
        put64(q + 20, p->atomic.compare);
        q += SNIC_ATOMIC_ETH_LEN;
    }
    if (h & SNIC_HDR_AETH) {
        q[0] = p->aeth.syndrome;
        put24(q + 1, p->aeth.msn);
        q += SNIC_AETH_LEN;
    }
    if (h & SNIC_HDR_ATOMIC_ACK_ETH) {
        put64(q, p->atomic_ack);
        q += SNIC_ATOMIC_ACK_ETH_LEN;
    }
    if (h & SNIC_HDR_IMMDT) {
        put32(q, p->imm);
        q += SNIC_IMMDT_LEN;
    }
    if (h & SNIC_HDR_IETH) {
        put32(q, p->ieth_rkey);
        q += SNIC_IETH_LEN;
    }
    if (h & SNIC_HDR_CNP) {
        memset(q, 0, SNIC_CNP_LEN);
        q += SNIC_CNP_LEN;
    }
    if (h & SNIC_HDR_CLETH) {
        put_cleth(p, q);
        q += SNIC_CLETH_LEN;
    }
    return q;
}

size_t snic_wire_build(const SnicPkt *p, uint8_t *buf, size_t cap)
{
    const SnicWireAddr *a = &p->addr;
    const struct snic_opcode_info *op;
    size_t roce = roce_len(p, &op);
    size_t total, udp_len;
    uint8_t pad, *ip, *udp, *bth, *q;

    if (!roce) {
        return 0;
    }
    total = snic_wire_frame_len(p);
    if (total > cap) {
        return 0;
    }
    udp_len = SNIC_UDP_HDR_LEN + roce;
    pad = (-p->payload_len) & 3;

    memcpy(buf, a->dmac, 6);
    memcpy(buf + 6, a->smac, 6);
    q = buf + 12;
    if (a->vlan) {
        put16(q, SNIC_ETH_P_8021Q);
        put16(q + 2, a->vlan_tci);
        q += SNIC_VLAN_TAG_LEN;
    }
    put16(q, a->ipv6 ? SNIC_ETH_P_IPV6 : SNIC_ETH_P_IPV4);
    ip = q + 2;

    if (a->ipv6) {
        put32(ip, 6u << 28 | (uint32_t)a->tclass << 20 |
              (a->flow_label & 0xfffff));
        put16(ip + 4, udp_len);
        ip[6] = SNIC_IPPROTO_UDP;
        ip[7] = a->hop_limit;
        memcpy(ip + 8, a->sip, 16);
        memcpy(ip + 24, a->dip, 16);
    } else {
        ip[0] = 0x45;
        ip[1] = a->tclass;
        put16(ip + 2, SNIC_IPV4_HDR_LEN + udp_len);
        put16(ip + 4, a->ip_id);
        put16(ip + 6, IPV4_DF);
        ip[8] = a->hop_limit;
        ip[9] = SNIC_IPPROTO_UDP;
        put16(ip + 10, 0);
        memcpy(ip + 12, a->sip, 4);
        memcpy(ip + 16, a->dip, 4);
        put16(ip + 10, snic_ipv4_checksum(ip));
    }

    udp = ip + ip_hdr_len(a);
    put16(udp, a->sport);
    put16(udp + 2, SNIC_ROCEV2_UDP_PORT);
    put16(udp + 4, udp_len);
    put16(udp + 6, 0);      /* IPv4: none, as rxe and hardware send */

    bth = udp + SNIC_UDP_HDR_LEN;
    bth[0] = p->opcode;
    /* snic's extension op-codes carry the TVer a standard stack drops */
    bth[1] = (p->se ? 0x80 : 0) | (p->mig ? 0x40 : 0) | pad << 4 |
             (op->flags & SNIC_OPF_EXT ? SNIC_BTH_TVER_EXT :
              op->flags & SNIC_OPF_CL ? SNIC_BTH_TVER_CL :
              p->xport ? SNIC_BTH_TVER_XPORT : 0);
    put16(bth + 2, p->pkey);
    bth[4] = (p->fecn ? 0x80 : 0) | (p->becn ? 0x40 : 0);
    put24(bth + 5, p->dqpn & SNIC_QPN_MASK);
    bth[8] = p->ackreq ? 0x80 : 0;
    put24(bth + 9, p->psn & SNIC_PSN_MASK);

    q = bth + SNIC_BTH_LEN;
    if (p->xport) {
        put_xeth(p, q);
        q += SNIC_XETH_LEN;
    }
    q = put_ext_headers(p, op->headers, q);
    if (p->payload_len) {
        if (p->payload != q) {      /* else gathered in place */
            memcpy(q, p->payload, p->payload_len);
        }
        q += p->payload_len;
    }
    memset(q, 0, pad);
    q += pad;
    {
        uint32_t crc = snic_icrc(ip, q - ip, a->ipv6);

        q[0] = crc;         /* least significant byte first */
        q[1] = crc >> 8;
        q[2] = crc >> 16;
        q[3] = crc >> 24;
    }
    if (a->ipv6) {
        put16(udp + 6, udp6_checksum(ip, udp, udp_len));
    }
    return total;
}

static void get_ext_headers(SnicPkt *p, uint16_t h, const uint8_t *q)
{
    if (h & SNIC_HDR_DETH) {
        p->deth.qkey = get32(q);
        p->deth.sqpn = get24(q + 5);
        q += SNIC_DETH_LEN;
    }
    if (h & SNIC_HDR_RETH) {
        p->reth.va = get64(q);
        p->reth.rkey = get32(q + 8);
        p->reth.len = get32(q + 12);
        q += SNIC_RETH_LEN;
    }
    if (h & SNIC_HDR_ATOMIC_ETH) {
        p->atomic.va = get64(q);
        p->atomic.rkey = get32(q + 8);
        p->atomic.swap_add = get64(q + 12);
        p->atomic.compare = get64(q + 20);
        q += SNIC_ATOMIC_ETH_LEN;
    }
    if (h & SNIC_HDR_AETH) {
        p->aeth.syndrome = q[0];
        p->aeth.msn = get24(q + 1);
        q += SNIC_AETH_LEN;
    }
    if (h & SNIC_HDR_ATOMIC_ACK_ETH) {
        p->atomic_ack = get64(q);
        q += SNIC_ATOMIC_ACK_ETH_LEN;
    }
    if (h & SNIC_HDR_IMMDT) {
        p->imm = get32(q);
        q += SNIC_IMMDT_LEN;
    }
    if (h & SNIC_HDR_IETH) {
        p->ieth_rkey = get32(q);
        q += SNIC_IETH_LEN;
    }
    if (h & SNIC_HDR_CLETH) {
        get_cleth(p, q);
    }
}

/* Ethernet + IP + UDP: find the RoCEv2 datagram (BTH .. ICRC). */
static SnicParseStatus parse_lower(const uint8_t *f, size_t len, SnicPkt *p,
                                   const uint8_t **ip_out, size_t *ip_len,
                                   const uint8_t **bth, size_t *roce)
{
    SnicWireAddr *a = &p->addr;
    size_t off = SNIC_ETH_HLEN, hlen, udp_len;
    const uint8_t *ip, *udp;
    uint16_t type;

    if (len < SNIC_ETH_HLEN) {
        return SNIC_PARSE_TRUNCATED;
    }
    memcpy(a->dmac, f, 6);
    memcpy(a->smac, f + 6, 6);
    type = get16(f + 12);
    if (type == SNIC_ETH_P_8021Q) {
        if (len < SNIC_ETH_HLEN + SNIC_VLAN_TAG_LEN) {
            return SNIC_PARSE_TRUNCATED;
        }
        a->vlan = true;
        a->vlan_tci = get16(f + 14);
        type = get16(f + 16);
        off += SNIC_VLAN_TAG_LEN;
    }
    if (type != SNIC_ETH_P_IPV4 && type != SNIC_ETH_P_IPV6) {
        return SNIC_PARSE_NOT_IP;
    }
    a->ipv6 = type == SNIC_ETH_P_IPV6;
    hlen = ip_hdr_len(a);
    if (len - off < hlen) {
        return SNIC_PARSE_TRUNCATED;
    }
    ip = f + off;
    if ((ip[0] >> 4) != (a->ipv6 ? 6 : 4)) {
        return SNIC_PARSE_BAD_IP_VERSION;
    }
    if (a->ipv6) {
        uint32_t w = get32(ip);

        a->tclass = w >> 20;
        a->flow_label = w & 0xfffff;
        *ip_len = hlen + get16(ip + 4);
        if (ip[6] != SNIC_IPPROTO_UDP) {
            return SNIC_PARSE_NOT_UDP;
        }
        a->hop_limit = ip[7];
        memcpy(a->sip, ip + 8, 16);
        memcpy(a->dip, ip + 24, 16);
    } else {
        if ((ip[0] & 0xf) != 5 || snic_ipv4_checksum(ip) != 0) {
            return SNIC_PARSE_BAD_IP_HEADER;
        }
        a->tclass = ip[1];
        *ip_len = get16(ip + 2);
        a->ip_id = get16(ip + 4);
        if (get16(ip + 6) & IPV4_FRAG_MASK) {
            return SNIC_PARSE_IP_FRAGMENT;
        }
        a->hop_limit = ip[8];
        if (ip[9] != SNIC_IPPROTO_UDP) {
            return SNIC_PARSE_NOT_UDP;
        }
        memcpy(a->sip, ip + 12, 4);
        memcpy(a->dip, ip + 16, 4);
    }
    /* Trailing bytes after the IP datagram are Ethernet padding. */
    if (*ip_len < hlen + SNIC_UDP_HDR_LEN || *ip_len > len - off) {
        return SNIC_PARSE_BAD_IP_LENGTH;
    }
    udp = ip + hlen;
    a->sport = get16(udp);
    if (get16(udp + 2) != SNIC_ROCEV2_UDP_PORT) {
        return SNIC_PARSE_NOT_ROCE;
    }
    udp_len = get16(udp + 4);
    if (udp_len != *ip_len - hlen) {
        return SNIC_PARSE_BAD_UDP_LENGTH;
    }
    *ip_out = ip;
    *bth = udp + SNIC_UDP_HDR_LEN;
    *roce = udp_len - SNIC_UDP_HDR_LEN;
    return SNIC_PARSE_OK;
}

bool snic_wire_roce_span(const uint8_t *f, size_t len, size_t *bth_off,
                         size_t *icrc_off)
{
    const uint8_t *ip, *bth;
    size_t ip_len, roce;
    SnicPkt p;

    if (parse_lower(f, len, &p, &ip, &ip_len, &bth, &roce) != SNIC_PARSE_OK ||
        roce < SNIC_BTH_LEN + SNIC_ICRC_LEN) {
        return false;
    }
    *bth_off = bth - f;
    *icrc_off = *bth_off + roce - SNIC_ICRC_LEN;
    return true;
}

SnicParseStatus snic_wire_parse(const uint8_t *f, size_t len, SnicPkt *p)
{
    const struct snic_opcode_info *op;
    const uint8_t *ip, *bth, *icrc;
    size_t ip_len, roce, ext, xlen, data;
    SnicParseStatus st;
    uint32_t crc;
    uint8_t tver;

    memset(p, 0, sizeof(*p));
    st = parse_lower(f, len, p, &ip, &ip_len, &bth, &roce);
    if (st != SNIC_PARSE_OK) {
        return st;
    }
    if (roce < SNIC_BTH_LEN + SNIC_ICRC_LEN) {
        return SNIC_PARSE_TRUNCATED;
    }
    p->opcode = bth[0];
    p->se = bth[1] & 0x80;
    p->mig = bth[1] & 0x40;
    p->pad = (bth[1] >> 4) & 3;
    tver = bth[1] & 0x0f;
    if (tver != 0 && tver != SNIC_BTH_TVER_EXT &&
        tver != SNIC_BTH_TVER_XPORT && tver != SNIC_BTH_TVER_CL) {
        return SNIC_PARSE_BAD_TVER;
    }
    p->pkey = get16(bth + 2);
    p->fecn = bth[4] & 0x80;
    p->becn = bth[4] & 0x40;
    p->dqpn = get24(bth + 5);
    p->ackreq = bth[8] & 0x80;
    p->psn = get24(bth + 9);

    op = snic_opcode_info(p->opcode);
    if (!op) {
        return SNIC_PARSE_UNKNOWN_OPCODE;
    }
    /*
     * TVer 1 marks extension op-codes, and only them; TVer 2 a standard
     * RC op-code with the selective-transport header; TVer 3 the
     * connectionless transport's op-codes, and only them
     */
    if (tver == SNIC_BTH_TVER_XPORT ? !xport_opcode(op, p->opcode) :
        tver != (op->flags & SNIC_OPF_EXT ? SNIC_BTH_TVER_EXT :
                 op->flags & SNIC_OPF_CL ? SNIC_BTH_TVER_CL : 0)) {
        return SNIC_PARSE_BAD_TVER;
    }
    p->headers = op->headers;
    xlen = tver == SNIC_BTH_TVER_XPORT ? SNIC_XETH_LEN : 0;
    ext = xlen + snic_opcode_hdr_len(op->headers);
    /*
     * A trimmed header (NDP): an extension data packet cut to exactly its
     * headers on the way, payload and ICRC gone; no ICRC to check, its
     * reader trusts no more than a PSN of it (the transport programs)
     */
    if (xlen && op->flags & SNIC_OPF_PAYLOAD && roce == SNIC_BTH_LEN + ext) {
        get_xeth(p, bth + SNIC_BTH_LEN);
        get_ext_headers(p, op->headers, bth + SNIC_BTH_LEN + xlen);
        p->trimmed = true;
        p->l3 = ip;
        return SNIC_PARSE_OK;
    }
    if (roce < SNIC_BTH_LEN + ext + SNIC_ICRC_LEN) {
        return SNIC_PARSE_LENGTH_MISMATCH;
    }
    data = roce - SNIC_BTH_LEN - ext - SNIC_ICRC_LEN;    /* payload + pad */
    if (data % 4 || p->pad > data ||
        (!(op->flags & SNIC_OPF_PAYLOAD) && data)) {
        return SNIC_PARSE_BAD_PAD;
    }
    icrc = bth + roce - SNIC_ICRC_LEN;
    crc = snic_icrc(ip, icrc - ip, p->addr.ipv6);
    if (icrc[0] != (uint8_t)crc || icrc[1] != (uint8_t)(crc >> 8) ||
        icrc[2] != (uint8_t)(crc >> 16) || icrc[3] != (uint8_t)(crc >> 24)) {
        return SNIC_PARSE_BAD_ICRC;
    }
    if (xlen) {
        get_xeth(p, bth + SNIC_BTH_LEN);
    }
    get_ext_headers(p, op->headers, bth + SNIC_BTH_LEN + xlen);
    p->payload = bth + SNIC_BTH_LEN + ext;
    p->payload_len = data - p->pad;
    p->l3 = ip;
    return SNIC_PARSE_OK;
}

/*
 * True for IPv4/IPv6 UDP datagrams to the RoCEv2 port: those belong to the
 * RDMA engine, not to the Ethernet RX ring. Non-first IPv4 fragments carry
 * no UDP header and stay on the Ethernet path.
 */
bool snic_frame_is_rocev2(const uint8_t *f, size_t len)
{
    size_t off = SNIC_ETH_HLEN;
    uint16_t proto;
    const uint8_t *l4;

    if (len < SNIC_ETH_HLEN) {
        return false;
    }
    proto = get16(f + 12);
    if (proto == SNIC_ETH_P_8021Q) {
        if (len < SNIC_ETH_HLEN + 4) {
            return false;
        }
        proto = get16(f + 16);
        off += 4;
    }
    if (proto == SNIC_ETH_P_IPV4) {
        const uint8_t *ip = f + off;
        size_t ihl;

        if (len < off + 20 || (ip[0] >> 4) != 4) {
            return false;
        }
        ihl = (size_t)(ip[0] & 0xf) * 4;
        if (ihl < 20 || ip[9] != SNIC_IPPROTO_UDP ||
            (get16(ip + 6) & 0x1fff)) {
            return false;
        }
        l4 = ip + ihl;
    } else if (proto == SNIC_ETH_P_IPV6) {
        const uint8_t *ip = f + off;

        if (len < off + 40 || (ip[0] >> 4) != 6 || ip[6] != SNIC_IPPROTO_UDP) {
            return false;
        }
        l4 = ip + 40;
    } else {
        return false;
    }
    if ((size_t)(l4 - f) + 8 > len) {
        return false;
    }
    return get16(l4 + 2) == SNIC_ROCEV2_UDP_PORT;
}
