/*
 * Ethernet-level helpers of the simulator (see sim-eth.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>

#include "sim-eth.h"
#include "port/wire.h"

static uint16_t be16(const uint8_t *p)
{
    return p[0] << 8 | p[1];
}

static void put_be16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

/* Extended header bytes after the BTH for an op-code's SNIC_HDR_* set. */
static size_t ext_len(uint16_t headers)
{
    static const struct {
        uint16_t hdr;
        size_t len;
    } sizes[] = {
        { SNIC_HDR_DETH, SNIC_DETH_LEN },
        { SNIC_HDR_RETH, SNIC_RETH_LEN },
        { SNIC_HDR_ATOMIC_ETH, SNIC_ATOMIC_ETH_LEN },
        { SNIC_HDR_AETH, SNIC_AETH_LEN },
        { SNIC_HDR_ATOMIC_ACK_ETH, SNIC_ATOMIC_ACK_ETH_LEN },
        { SNIC_HDR_IMMDT, SNIC_IMMDT_LEN },
        { SNIC_HDR_IETH, SNIC_IETH_LEN },
        { SNIC_HDR_CNP, SNIC_CNP_LEN },
    };
    size_t n = 0, i;

    for (i = 0; i < G_N_ELEMENTS(sizes); i++) {
        n += headers & sizes[i].hdr ? sizes[i].len : 0;
    }
    return n;
}

/*
 * A light walk of the headers, not a validation: the timing model and the
 * switch look at every frame, and snic_wire_parse() would compute each
 * frame's ICRC once more.
 */
void snic_sim_frame_info(const uint8_t *f, size_t len, SnicSimFrameInfo *fi)
{
    const struct snic_opcode_info *op;
    size_t l3 = SNIC_ETH_HLEN, l4, bth, hdr;
    uint32_t udp_len, pad;

    memset(fi, 0, sizeof(*fi));
    if (len < SNIC_ETH_HLEN) {
        return;
    }
    fi->ethertype = be16(f + 12);
    if (fi->ethertype == 0x8100 && len >= SNIC_ETH_HLEN + SNIC_VLAN_TAG_LEN) {
        fi->vlan = true;
        fi->pcp = f[14] >> 5;
        fi->ethertype = be16(f + 16);
        l3 += SNIC_VLAN_TAG_LEN;
    }
    if (fi->ethertype == 0x0800 && len >= l3 + SNIC_IPV4_HDR_LEN &&
        f[l3] >> 4 == 4) {
        fi->ecn = f[l3 + 1] & 3;
        l4 = l3 + (f[l3] & 0xf) * 4;
        if (f[l3 + 9] != 17) {
            fi->l3 = l3;
            return;
        }
    } else if (fi->ethertype == 0x86dd && len >= l3 + SNIC_IPV6_HDR_LEN &&
               f[l3] >> 4 == 6) {
        fi->ipv6 = true;
        fi->ecn = (f[l3 + 1] >> 4) & 3;
        l4 = l3 + SNIC_IPV6_HDR_LEN;
        if (f[l3 + 6] != 17) {
            fi->l3 = l3;
            return;
        }
    } else {
        return;
    }
    fi->l3 = l3;
    bth = l4 + SNIC_UDP_HDR_LEN;
    if (len < bth + SNIC_BTH_LEN || be16(f + l4 + 2) != SNIC_ROCEV2_UDP_PORT) {
        return;
    }
    op = snic_opcode_info(f[bth]);
    udp_len = be16(f + l4 + 4);
    pad = (f[bth + 1] >> 4) & 3;
    /* TVer 2: the selective-transport extension is a header too */
    hdr = bth + SNIC_BTH_LEN + (op->name ? ext_len(op->headers) : 0) +
          ((f[bth + 1] & 0x0f) == SNIC_BTH_TVER_XPORT ? SNIC_XETH_LEN : 0);
    if (!op->name || l4 + udp_len > len ||
        l4 + udp_len < hdr + pad + SNIC_ICRC_LEN) {
        return;
    }
    fi->roce = true;
    fi->opcode = f[bth];
    fi->dqpn = (uint32_t)f[bth + 5] << 16 | be16(f + bth + 6);
    fi->hdr_len = hdr;
    fi->payload_len = l4 + udp_len - hdr - pad - SNIC_ICRC_LEN;
}

unsigned snic_sim_frame_priority(const SnicSimFrameInfo *fi,
                                 unsigned untagged)
{
    return fi->vlan ? fi->pcp : untagged;
}

uint64_t snic_sim_eth_wire_bytes(size_t len)
{
    return MAX(len + SNIC_SIM_ETH_FCS, SNIC_SIM_ETH_MIN_FRAME) +
           SNIC_SIM_ETH_GAP;
}

static void ipv4_fix_checksum(uint8_t *ip)
{
    ip[10] = ip[11] = 0;
    put_be16(ip + 10, snic_ipv4_checksum(ip));
}

bool snic_sim_frame_mark_ce(uint8_t *f, size_t len)
{
    SnicSimFrameInfo fi;
    uint8_t *ip;

    snic_sim_frame_info(f, len, &fi);
    if (!fi.l3 || fi.ecn == 0 || fi.ecn == 3) {
        return false;   /* not IP, not ECN-capable, or already CE */
    }
    ip = f + fi.l3;
    if (fi.ipv6) {
        ip[1] |= 3 << 4;
    } else {
        ip[1] |= 3;
        ipv4_fix_checksum(ip);
    }
    return true;
}

uint8_t snic_sim_frame_dscp(const uint8_t *f, size_t len)
{
    SnicSimFrameInfo fi;

    snic_sim_frame_info(f, len, &fi);
    if (!fi.l3) {
        return 0;
    }
    return fi.ipv6 ? (be16(f + fi.l3) >> 6) & 0x3f : f[fi.l3 + 1] >> 2;
}

size_t snic_sim_frame_trim(uint8_t *f, size_t len, uint8_t dscp)
{
    SnicSimFrameInfo fi;
    uint8_t *ip;
    size_t cut;

    snic_sim_frame_info(f, len, &fi);
    if (!fi.roce || fi.hdr_len >= len) {
        return 0;
    }
    cut = len - fi.hdr_len;
    ip = f + fi.l3;
    if (fi.ipv6) {
        /* version(4) | traffic class(8) | flow label(20): DSCP in bits 6-11 */
        uint16_t w = be16(ip);

        put_be16(ip, (w & 0xf03f) | (uint16_t)(dscp & 0x3f) << 6);
        put_be16(ip + 4, be16(ip + 4) - cut);
        put_be16(ip + SNIC_IPV6_HDR_LEN + 4,
                 be16(ip + SNIC_IPV6_HDR_LEN + 4) - cut);
    } else {
        size_t ihl = (ip[0] & 0xf) * 4;

        ip[1] = (uint8_t)(dscp << 2) | (ip[1] & 3);
        put_be16(ip + 2, be16(ip + 2) - cut);
        put_be16(ip + ihl + 4, be16(ip + ihl + 4) - cut);
        ipv4_fix_checksum(ip);
    }
    return fi.hdr_len;
}

size_t snic_sim_pfc_build(uint8_t *buf, const uint8_t src[6], uint8_t cev,
                          const uint16_t quanta[SNIC_SIM_PRIORITIES])
{
    /* the MAC control address every 802.3 MAC takes and never forwards */
    static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
    unsigned p;

    memset(buf, 0, SNIC_SIM_PFC_FRAME_LEN);
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    put_be16(buf + 12, SNIC_SIM_ETH_P_MAC_CTRL);
    put_be16(buf + 14, SNIC_SIM_PFC_OPCODE);
    put_be16(buf + 16, cev);
    for (p = 0; p < SNIC_SIM_PRIORITIES; p++) {
        put_be16(buf + 18 + 2 * p, quanta[p]);
    }
    return SNIC_SIM_PFC_FRAME_LEN;
}

bool snic_sim_pfc_parse(const uint8_t *f, size_t len, uint8_t *cev,
                        uint16_t quanta[SNIC_SIM_PRIORITIES])
{
    unsigned p;

    if (len < 18 + 2 * SNIC_SIM_PRIORITIES ||
        be16(f + 12) != SNIC_SIM_ETH_P_MAC_CTRL ||
        be16(f + 14) != SNIC_SIM_PFC_OPCODE) {
        return false;
    }
    *cev = be16(f + 16) & 0xff;
    for (p = 0; p < SNIC_SIM_PRIORITIES; p++) {
        quanta[p] = be16(f + 18 + 2 * p);
    }
    return true;
}

uint64_t snic_sim_pfc_quanta_ns(uint16_t quanta, uint64_t bps)
{
    uint64_t bits = (uint64_t)quanta * SNIC_SIM_PFC_QUANTUM_BITS;

    return (bits * 1000000000ull + bps - 1) / bps;
}

void snic_sim_pause_apply(SnicSimPause *ps, uint64_t now, uint8_t mask,
                          uint8_t cev,
                          const uint16_t quanta[SNIC_SIM_PRIORITIES],
                          uint64_t bps)
{
    unsigned p;

    ps->frames++;
    for (p = 0; p < SNIC_SIM_PRIORITIES; p++) {
        if (!(cev & mask & (1u << p))) {
            continue;
        }
        /* close an interval that ended by itself */
        if (ps->until[p] <= now && ps->until[p] > ps->since[p]) {
            ps->paused_ns[p] += ps->until[p] - ps->since[p];
            ps->since[p] = ps->until[p];
        }
        if (ps->until[p] > now) {
            if (!quanta[p]) {           /* XON: the interval ends now */
                ps->paused_ns[p] += now - ps->since[p];
                ps->since[p] = ps->until[p] = now;
            } else {                    /* the new time replaces the old */
                ps->until[p] = now + snic_sim_pfc_quanta_ns(quanta[p], bps);
            }
        } else if (quanta[p]) {
            ps->since[p] = now;
            ps->until[p] = now + snic_sim_pfc_quanta_ns(quanta[p], bps);
        }
    }
}

bool snic_sim_pause_active(const SnicSimPause *ps, uint64_t now, unsigned p)
{
    return ps->until[p] > now;
}

uint64_t snic_sim_pause_time(const SnicSimPause *ps, uint64_t now,
                             unsigned p)
{
    uint64_t t = ps->paused_ns[p];

    if (ps->until[p] > ps->since[p]) {
        t += MIN(ps->until[p], now) - ps->since[p];
    }
    return t;
}
