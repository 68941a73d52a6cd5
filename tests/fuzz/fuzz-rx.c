/*
 * libFuzzer target: RoCEv2 frames (and MAC control frames: PFC) into the
 * receive path of a node with RC SEND/WRITE/READ/atomic requests in
 * flight, a UD and the GSI QP, a UC QP on an SRQ, receive WQEs posted;
 * the UD QP is a connectionless endpoint too (its CL packets and UD
 * datagrams take different paths);
 * the RC QP runs the transport program the input's first byte picks and,
 * unless that program numbers its messages (the device refuses the pair),
 * takes StRoM RPCs (traversal, consistency and shuffle kernels deployed,
 * others to its receive queue); an SRNIC QP has the node's CtrlQ and its
 * RetryQ, served by snic.ko's recovery logic when a record says so, and
 * records may write RetryQ entries themselves. Record flags fix lengths,
 * IPv4 checksum and ICRC after mutation so frames reach the transport,
 * or trim a data packet to its headers as an NDP switch does. Rebuilt
 * per input: exact replay.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "fuzz-host.h"
#include "port/wire.h"
#include "objects/qp.h"
#include "objects/srq.h"

#define MAX_FRAME       (SNIC_ETH_MAX_FRAME + 64)
#define RQ_KEEP         8       /* receive WQEs kept posted per QP */


static void deploy(FuzzNode *n, uint64_t rpc_opcode, uint16_t kernel)
{
    struct snic_admin_cmd cmd;
    uint64_t result;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_DEPLOY_KERNEL,
                        sizeof(cmd.deploy_kernel));
    cmd.deploy_kernel.rpc_opcode = GUINT64_TO_LE(rpc_opcode);
    cmd.deploy_kernel.kernel_id = GUINT16_TO_LE(kernel);
    if (fz_admin(n->h, &cmd, &result) != SNIC_ADMIN_OK) {
        abort();    /* the harness itself is broken */
    }
}

/* QP q a connectionless endpoint (before RTR), the defaults */
static void set_qp_cl(FuzzNode *n, unsigned q)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_CL, sizeof(cmd.set_qp_cl));
    cmd.set_qp_cl.qpn = GUINT32_TO_LE(n->qpn[q]);
    if (fz_admin(n->h, &cmd, NULL) != SNIC_ADMIN_OK) {
        abort();    /* the harness itself is broken */
    }
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * The frame cut after its RoCE headers (BTH, the extension header of
 * TVer 2, the op-code's own), as an NDP switch trims: its new length, or
 * 'len' if it has no such headers to keep.
 */
static size_t trim(const uint8_t *f, size_t len, size_t udp)
{
    const uint8_t *bth = f + udp + SNIC_UDP_HDR_LEN;
    const struct snic_opcode_info *op;
    size_t keep;

    if (len < udp + SNIC_UDP_HDR_LEN + SNIC_BTH_LEN) {
        return len;
    }
    op = snic_opcode_info(bth[0]);
    if (!op) {
        return len;
    }
    keep = bth + SNIC_BTH_LEN - f + snic_opcode_hdr_len(op->headers) +
           ((bth[1] & 0x0f) == SNIC_BTH_TVER_XPORT ? SNIC_XETH_LEN : 0);
    return MIN(keep, len);
}

/*
 * Make a mutated frame consistent again: IP and UDP lengths from the
 * frame length (RX_FIX_LEN), the IPv4 header checksum and the ICRC
 * (RX_FIX_CRC); or trim it (RX_TRIM: lengths and checksum fixed, no
 * ICRC). Frames too broken to locate the datagram stay as they are.
 * Returns the frame's length.
 */
static size_t fix_frame(uint8_t *f, size_t len, uint8_t flags)
{
    size_t off = SNIC_ETH_HLEN, hlen, ip_len;
    uint16_t type;
    bool v6;
    uint8_t *ip;
    uint32_t crc;

    if (len < SNIC_ETH_HLEN + SNIC_VLAN_TAG_LEN) {
        return len;
    }
    type = get16(f + 12);
    if (type == 0x8100) {
        type = get16(f + 16);
        off += SNIC_VLAN_TAG_LEN;
    }
    if (type != 0x0800 && type != 0x86dd) {
        return len;
    }
    v6 = type == 0x86dd;
    hlen = v6 ? SNIC_IPV6_HDR_LEN : SNIC_IPV4_HDR_LEN;
    if (len < off + hlen + SNIC_UDP_HDR_LEN) {
        return len;
    }
    ip = f + off;
    if (flags & RX_TRIM) {
        len = trim(f, len, off + hlen);
        flags |= RX_FIX_LEN;
    }
    if (flags & RX_FIX_LEN) {
        ip_len = MIN(len - off, 0xffff);
        put16(ip + (v6 ? 4 : 2), v6 ? ip_len - hlen : ip_len);
        put16(ip + hlen + 4, ip_len - hlen);
    }
    if (!v6 && flags & (RX_FIX_CRC | RX_TRIM)) {
        put16(ip + 10, 0);
        put16(ip + 10, snic_ipv4_checksum(ip));
    }
    ip_len = v6 ? hlen + get16(ip + 4) : get16(ip + 2);
    if (!(flags & RX_FIX_CRC) || flags & RX_TRIM || ip_len > len - off ||
        ip_len < hlen + SNIC_UDP_HDR_LEN + SNIC_BTH_LEN + SNIC_ICRC_LEN) {
        return len;
    }
    crc = snic_icrc(ip, ip_len - SNIC_ICRC_LEN, v6);
    ip[ip_len - 4] = crc;
    ip[ip_len - 3] = crc >> 8;
    ip[ip_len - 2] = crc >> 16;
    ip[ip_len - 1] = crc >> 24;
    return len;
}

static void post_recv(FuzzNode *n, unsigned q)
{
    struct snic_rq_wqe w;
    uint32_t slot = n->rq_pi[q] % (1u << FZ_RQ_LOG2);

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(0x100 * (q + 1) + n->rq_pi[q]);
    w.num_sge = 2;
    /* 2 x 2 KiB per WQE; QP q, slot s own [(q * 16 + s) * 1 KiB, + 4 KiB) */
    w.sge[0].addr = GUINT64_TO_LE(FZ_MR_IOVA + (q * 16 + slot) * 1024);
    w.sge[0].length = GUINT32_TO_LE(2048);
    w.sge[0].lkey = GUINT32_TO_LE(FZ_LKEY);
    w.sge[1] = w.sge[0];
    w.sge[1].addr = GUINT64_TO_LE(FZ_MR_IOVA + (q * 16 + slot) * 1024 +
                                  2048);
    fz_post_recv(n, q, &w);
}

/* Keep RQ_KEEP receive WQEs posted on every QP that takes them. */
static void refill(FuzzNode *n)
{
    SnicCore *c = n->h->core;
    unsigned q;

    for (q = 0; q < n->nqp; q++) {
        const SnicQp *qp = &c->qps[n->qpn[q]];
        const SnicSrq *srq = snic_srq_get(c, qp->srqn);
        if (qp->state == SNIC_QPS_ERR || qp->state == SNIC_QPS_RESET) {
            continue;   /* posting there flushes: no progress */
        }
        /* a QP keeps its indices modulo 2^16 (SnicQp), an SRQ in full */
        while ((uint16_t)((srq ? srq->tail : qp->rq_tail) -
                          (srq ? srq->head : qp->rq_head)) < RQ_KEEP) {
            post_recv(n, q);
            if ((uint16_t)((srq ? srq->tail : qp->rq_tail) - n->rq_pi[q])) {
                break;  /* refused */
            }
        }
    }
}

static void post_send(FuzzNode *n, uint64_t wr_id, uint8_t opcode,
                      uint32_t off, uint32_t len, uint32_t roff)
{
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = opcode;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    w.imm = GUINT32_TO_BE(0xabcd0000u + wr_id);
    w.rdma.remote_addr = GUINT64_TO_LE(FZ_MR_IOVA + roff);
    w.rdma.rkey = GUINT32_TO_LE(FZ_LKEY);
    w.rdma.compare_add = GUINT64_TO_LE(5);
    w.rdma.swap = GUINT64_TO_LE(7);
    w.sge[0].addr = GUINT64_TO_LE(FZ_MR_IOVA + off);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(FZ_LKEY);
    fz_post_send(n, 0, &w);
}

static void poll_all(FuzzNode *n)
{
    struct snic_cqe c;
    unsigned i;

    for (i = 0; i < (1u << FZ_CQ_LOG2) && fz_poll_cq(n, &c); i++) {
        /* consumed so the CQ keeps going */
    }
}

/*
 * RetryQ entries of a record (16 bytes each, at most 16), the RC QP's
 * number in them with RX_FIX_LEN; rung with the producer index moved by
 * their count, or by the u16 (little-endian) after them if there is one
 */
static void retryq_record(FuzzSrHost *sr, const uint8_t *b, size_t len,
                          uint8_t flags)
{
    struct snic_sr_retry e[16];
    unsigned n = MIN(len / sizeof(e[0]), G_N_ELEMENTS(e)), i;
    size_t used = n * sizeof(e[0]);
    uint16_t ahead = n;

    memcpy(e, b, used);
    for (i = 0; flags & RX_FIX_LEN && i < n; i++) {
        e[i].qpn = GUINT32_TO_LE(sr->n->qpn[sr->q]);
    }
    if (len - used >= 2) {
        ahead = b[used] | b[used + 1] << 8;
    }
    fz_sr_host_post(sr, e, n, ahead);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t frame[MAX_FRAME];
    static FuzzSrHost sr;
    FuzzNode n;
    unsigned records = 0;
    uint8_t first = size ? data[0] : 0;
    uint8_t program = fz_programs[(first & 0x7f) % FZ_NUM_PROGRAMS];
    /* RPC and a program that numbers its messages: the device refuses both */
    bool rpc = !(first & RX_NO_RPC) && !fz_program_numbered(program);
    uint8_t types[FZ_MAX_NODE_QP] = {
        SNIC_QPT_RC | (rpc ? FZ_RPC : 0), SNIC_QPT_UD,
        SNIC_QPT_GSI, SNIC_QPT_UC | FZ_ON_SRQ,
    };

    data += !!size;
    size -= !!size;
    fz_node_init(&n, NULL, NULL, FZ_IP(1), types, FZ_MAX_NODE_QP);
    deploy(&n, RX_RPC_TRAV, SNIC_KERNEL_TRAVERSAL);
    deploy(&n, RX_RPC_CONS, SNIC_KERNEL_CONSISTENCY);
    deploy(&n, RX_RPC_SHUF, SNIC_KERNEL_SHUFFLE);
    fz_node_set_transport(&n, 0, program);
    if (fz_program_sr(program)) {
        fz_sr_host_init(&sr, &n, 0, RX_SR_WINDOW);
    } else {
        /* the rings' memory and doorbells, for records that use them */
        memset(&sr, 0, sizeof(sr));
        sr.n = &n;
    }
    fz_node_connect(&n, 0, FZ_IP(2), RX_PEER_QPN, false);
    set_qp_cl(&n, 1);
    fz_node_ud_up(&n, 1, FZ_QKEY);
    fz_node_attach_mcast(&n, 1);
    fz_node_ud_up(&n, 2, SNIC_GSI_QKEY);
    fz_node_connect(&n, 3, FZ_IP(2), RX_PEER_QPN, false);
    refill(&n);
    /* requests in flight: see RX_REQ_* for the PSNs they occupy */
    post_send(&n, 1, SNIC_WR_SEND, 0x8000, RX_SEND_LEN, 0);
    post_send(&n, 2, SNIC_WR_RDMA_WRITE, 0x9000, RX_WRITE_LEN, 0x100);
    post_send(&n, 3, SNIC_WR_RDMA_READ, 0xa000, RX_READ_LEN, 0x200);
    post_send(&n, 4, SNIC_WR_ATOMIC_FETCH_ADD, 0xc000, 8, 0x300);
    fz_run(n.h);

    while (size >= 3 && records++ < 64) {
        uint8_t flags = data[0];
        size_t len = MIN(get16(data + 1), size - 3);

        len = MIN(len, sizeof(frame));
        memcpy(frame, data + 3, len);
        data += 3 + len;
        size -= 3 + len;
        if (flags & RX_RETRYQ) {
            retryq_record(&sr, frame, len, flags);
        } else {
            len = fix_frame(frame, len, flags);
            snic_core_receive(n.h->core, frame, len);
        }
        if (flags & RX_TIMER && n.h->port.timer_deadline != UINT64_MAX) {
            fz_advance(n.h, n.h->port.timer_deadline > n.h->port.now ?
                            n.h->port.timer_deadline - n.h->port.now : 0);
        }
        if (flags & (RX_RUN | RX_TIMER)) {
            fz_run(n.h);
        }
        if (flags & RX_HOST && n.h->sr) {
            fz_sr_host_poll(&sr);
            fz_run(n.h);
        }
        poll_all(&n);
        refill(&n);
        fz_check(n.h);
    }
    fz_run(n.h);
    poll_all(&n);
    fz_node_free(&n);
    return 0;
}
