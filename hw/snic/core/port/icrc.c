/*
 * snic core: RoCEv2 ICRC.
 *
 * CRC-32 (IEEE 802.3, zlib's crc32) over 8 bytes of 0xFF standing for the
 * masked LRH, then the IP, UDP and BTH headers with their variant fields
 * set to all-ones, then the rest of the packet up to the ICRC.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#ifdef SNIC_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include "port/wire.h"

uint32_t snic_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
#ifdef SNIC_HAVE_ISAL
    /*
     * ISA-L's crc32_gzip_refl is zlib's crc32 (the same reflected
     * polynomial, initial value and chaining) computed with PCLMUL or
     * VPCLMUL: the ICRC covers every byte sent and received, and zlib's
     * table-driven loop was most of the engine's time per byte.
     */
    return crc32_gzip_refl(crc, buf, len);
#else
    return (uint32_t)crc32(crc, buf, (uInt)len);
#endif
}

/*
 * snic_crc32(0) of the masked LRH's eight 0xFF bytes: every ICRC starts
 * from it (tests/unit/test-wire.c's ICRC vectors fail otherwise)
 */
#define SNIC_ICRC_LRH_CRC   0x2144df1cu

uint32_t snic_icrc(const uint8_t *ip, size_t len, bool ipv6)
{
    size_t ip_len = ipv6 ? SNIC_IPV6_HDR_LEN : SNIC_IPV4_HDR_LEN;
    size_t hdr = ip_len + SNIC_UDP_HDR_LEN + SNIC_BTH_LEN;
    uint8_t m[SNIC_IPV6_HDR_LEN + SNIC_UDP_HDR_LEN + SNIC_BTH_LEN];
    uint32_t crc;

    if (len < hdr) {
        return 0;   /* callers check lengths; never read past 'len' */
    }
    memcpy(m, ip, hdr);
    if (ipv6) {
        m[0] |= 0x0f;                       /* traffic class, flow label */
        m[1] = m[2] = m[3] = 0xff;
        m[7] = 0xff;                        /* hop limit */
    } else {
        m[1] = 0xff;                        /* TOS */
        m[8] = 0xff;                        /* TTL */
        m[10] = m[11] = 0xff;               /* header checksum */
    }
    m[ip_len + 6] = m[ip_len + 7] = 0xff;   /* UDP checksum */
    m[ip_len + SNIC_UDP_HDR_LEN + 4] = 0xff; /* BTH FECN/BECN/resv6 */

    crc = snic_crc32(SNIC_ICRC_LRH_CRC, m, hdr);
    return snic_crc32(crc, ip + hdr, len - hdr);
}
