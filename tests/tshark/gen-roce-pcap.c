/*
 * Write RoCEv2 frames built by the snic codec to pcaps for the tshark
 * check (check-tshark.sh):
 *
 *   OUTDIR/all.pcap       one frame of every op-code x {IPv4, IPv6} x
 *                         payload sizes {0, 1, 3, 1024} where allowed
 *   OUTDIR/expected.csv   frame,opcode,qpn,psn,reth_va,reth_rkey,reth_len,
 *                         aeth_syndrome,aeth_msn ('-': not decoded by
 *                         Wireshark, '': header absent)
 *   OUTDIR/corrupt.pcap   three frames, the second with one payload bit
 *                         flipped after its ICRC was computed
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "port/pcap.h"
#include "port/wire.h"

static void die(const char *what, const char *path)
{
    fprintf(stderr, "gen-roce-pcap: %s %s: %s\n", what, path,
            strerror(errno));
    exit(1);
}

static void make_pkt(SnicPkt *p, uint8_t op, bool v6, const uint8_t *payload,
                     uint32_t len, unsigned n)
{
    static const uint8_t m1[6] = { 2, 0, 0, 0, 0, 1 };
    static const uint8_t m2[6] = { 2, 0, 0, 0, 0, 2 };

    memset(p, 0, sizeof(*p));
    memcpy(p->addr.dmac, m2, 6);
    memcpy(p->addr.smac, m1, 6);
    p->addr.ipv6 = v6;
    if (v6) {
        p->addr.sip[0] = p->addr.dip[0] = 0xfd;
        p->addr.sip[15] = 1;
        p->addr.dip[15] = 2;
    } else {
        static const uint8_t a[4] = { 10, 0, 0, 1 }, b[4] = { 10, 0, 0, 2 };

        memcpy(p->addr.sip, a, 4);
        memcpy(p->addr.dip, b, 4);
    }
    p->addr.tclass = 0x02;
    p->addr.hop_limit = 64;
    p->addr.flow_label = v6 ? 0x1234 + n : 0;
    p->addr.ip_id = n;
    p->addr.sport = snic_wire_udp_sport(0x11 + n, 0x22);
    p->opcode = op;
    p->pkey = SNIC_DEFAULT_PKEY;
    p->dqpn = 0x000100 + n;
    p->ackreq = n & 1;
    p->psn = (0xfffff0 + n * 3) & SNIC_PSN_MASK;     /* crosses the wrap */
    p->reth.va = 0x7f0000001000ull + n * 0x1000;
    p->reth.rkey = 0x1000 + n;
    p->reth.len = len ? len * 3 : 0;
    p->aeth.syndrome = (n % 3 == 0) ? 0x1f : (n % 3 == 1) ? 0x60 : 0x20 | 12;
    p->aeth.msn = n;
    p->atomic.va = 0x7f0000002000ull;
    p->atomic.rkey = 0x2000 + n;
    p->atomic.swap_add = 1;
    p->atomic.compare = 0;
    p->atomic_ack = 0x1122334455667788ull;
    p->imm = 0xcafe0000 + n;
    p->ieth_rkey = 0x3000 + n;
    p->deth.qkey = 0x80010000;
    p->deth.sqpn = 1;
    p->payload = payload;
    p->payload_len = len;
}

int main(int argc, char **argv)
{
    static const uint32_t sizes[] = { 0, 1, 3, 1024 };
    static uint8_t payload[1024], frame[2048];
    g_autofree char *all = NULL, *csv = NULL, *bad = NULL;
    SnicPcap *pc;
    FILE *out;
    unsigned op, v6, s, n = 0, i;
    SnicPkt p;
    size_t len;

    if (argc != 2) {
        fprintf(stderr, "usage: gen-roce-pcap OUTDIR\n");
        return 2;
    }
    all = g_build_filename(argv[1], "all.pcap", NULL);
    csv = g_build_filename(argv[1], "expected.csv", NULL);
    bad = g_build_filename(argv[1], "corrupt.pcap", NULL);
    for (i = 0; i < sizeof(payload); i++) {
        payload[i] = 'A' + i % 26;
    }

    pc = snic_pcap_open(all);
    if (!pc) {
        die("cannot create", all);
    }
    out = fopen(csv, "w");
    if (!out) {
        die("cannot create", csv);
    }
    for (op = 0; op < 256; op++) {
        const struct snic_opcode_info *info = snic_opcode_info(op);

        if (!info) {
            continue;
        }
        for (v6 = 0; v6 < 2; v6++) {
            for (s = 0; s < G_N_ELEMENTS(sizes); s++) {
                bool reth = info->headers & SNIC_HDR_RETH;
                /* Wireshark files AtomicETH's VA and R_Key as reth.* */
                bool atomic = info->headers & SNIC_HDR_ATOMIC_ETH;
                bool aeth = info->headers & SNIC_HDR_AETH;
                /* Wireshark 4.0 knows no RETH on StRoM's op-codes */
                bool ext = info->flags & SNIC_OPF_EXT;

                if (sizes[s] && !(info->flags & SNIC_OPF_PAYLOAD)) {
                    continue;
                }
                make_pkt(&p, op, v6, payload, sizes[s], n);
                len = snic_wire_build(&p, frame, sizeof(frame));
                if (!len || snic_pcap_write(pc, n * 1000ull, frame, len)) {
                    die("cannot write frame to", all);
                }
                n++;
                fprintf(out, "%u,%u,%u,%u,", n, op, p.dqpn, p.psn);
                if (reth && !ext) {
                    fprintf(out, "%llu,%u,%u,",
                            (unsigned long long)p.reth.va, p.reth.rkey,
                            p.reth.len);
                } else if (atomic) {
                    fprintf(out, "%llu,%u,,",
                            (unsigned long long)p.atomic.va, p.atomic.rkey);
                } else {
                    fprintf(out, ext ? "-,-,-," : ",,,");
                }
                if (aeth) {
                    fprintf(out, "%u,%u\n", p.aeth.syndrome, p.aeth.msn);
                } else {
                    fprintf(out, ",\n");
                }
            }
        }
    }
    if (snic_pcap_close(pc) || fclose(out)) {
        die("cannot finish", all);
    }

    pc = snic_pcap_open(bad);
    if (!pc) {
        die("cannot create", bad);
    }
    for (i = 0; i < 3; i++) {
        make_pkt(&p, SNIC_OP_RC_SEND_ONLY, i == 2, payload, 100, i);
        len = snic_wire_build(&p, frame, sizeof(frame));
        if (i == 1) {
            frame[len - 20] ^= 0x04;    /* a payload bit, after the ICRC */
        }
        if (snic_pcap_write(pc, i * 1000ull, frame, len)) {
            die("cannot write frame to", bad);
        }
    }
    if (snic_pcap_close(pc)) {
        die("cannot finish", bad);
    }
    /*
     * The selective-transport extension (TVer 2): a WRITE Middle with its
     * target, a SEND First with its message number and offset, an ACK
     * with a SACK block, an SRNIC READ response echoing its request's PSN,
     * PSN_OFFSET and SQ index, over IPv4 and IPv6; xport.csv holds its
     * fields
     */
    {
        static const uint8_t ops[] = { SNIC_OP_RC_WRITE_MIDDLE,
                                       SNIC_OP_RC_SEND_FIRST, SNIC_OP_RC_ACK,
                                       SNIC_OP_RC_READ_RESP_MIDDLE };
        g_autofree char *xp = g_build_filename(argv[1], "xport.pcap", NULL);
        g_autofree char *xc = g_build_filename(argv[1], "xport.csv", NULL);

        pc = snic_pcap_open(xp);
        out = fopen(xc, "w");
        if (!pc || !out) {
            die("cannot create", xp);
        }
        for (i = 0; i < 8; i++) {
            uint8_t xop = ops[i % 4];

            make_pkt(&p, xop, i >= 4, payload, xop == SNIC_OP_RC_ACK ? 0 : 1024,
                     i);
            p.xport = true;
            p.xeth.flags = xop == SNIC_OP_RC_ACK ? SNIC_XETH_F_SACK :
                           xop == SNIC_OP_RC_SEND_FIRST ? SNIC_XETH_F_MSG :
                           xop == SNIC_OP_RC_READ_RESP_MIDDLE ?
                           SNIC_XETH_F_RESP : SNIC_XETH_F_PLACE;
            p.xeth.sq_index = 0xfff0 + i;     /* both bytes non-zero */
            p.xeth.rkey = 0x4000 + i;
            p.xeth.va = 0x7f0000003000ull + i * 1024;
            p.xeth.msg = 7 + i;
            p.xeth.offset = i * 1024;
            p.xeth.sack_lo = (p.psn + 2) & SNIC_PSN_MASK;
            p.xeth.sack_hi = (p.psn + 5) & SNIC_PSN_MASK;
            len = snic_wire_build(&p, frame, sizeof(frame));
            if (!len || snic_pcap_write(pc, i * 1000ull, frame, len)) {
                die("cannot write frame to", xp);
            }
            fprintf(out, "%u,0x%02x,%u,0x%08x,0x%016llx,%u,%u,%u,%u,1\n",
                    i + 1, p.xeth.flags, p.xeth.sq_index, p.xeth.rkey,
                    (unsigned long long)p.xeth.va, p.xeth.msg, p.xeth.offset,
                    p.xeth.sack_lo, p.xeth.sack_hi);
        }
        if (snic_pcap_close(pc) || fclose(out)) {
            die("cannot finish", xp);
        }
    }
    printf("gen-roce-pcap: %u frames in %s, 3 in %s\n", n, all, bad);
    return 0;
}
