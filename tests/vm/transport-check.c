// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport-check: Tonic transport programs chosen from user space through libsnic's direct
 * verbs (snicdv.h: snicdv_set_transport before RTR, snicdv_query_transport,
 * snicdv_query_program), and an ib_write_bw-like WRITE test between two hosts with the
 * chosen program on both ends, content-checked. The out-of-band exchange goes over TCP like
 * ibv_rc_pingpong's.
 *
 *   list:    transport-check [-d DEV] -l
 *   server:  transport-check [-d DEV] -g GIDX -P PROGRAM [-n ITERS] [-s SIZE] [-e] [-p PORT]
 *   client:  transport-check [same options] SERVER-IP
 *
 * -l prints every program of the device (snicdv_query_program from 0 until EINVAL): name,
 * credit type, own state bytes and Tonic's limit for its credit type, QPC bytes, flags (ecn,
 * tcp-acks, xport: the wire extension, ece, sr: SRNIC's host-kept bitmaps).
 * Otherwise both ends create an RC QP, check that it runs go-back-N by default, select
 * PROGRAM (a name from the list or a number) with snicdv_set_transport in INIT, check that a
 * program the device lacks is refused (EINVAL), connect, and check that the selection is
 * refused once the QP is past INIT. The client then writes ITERS (default 1000) messages of
 * SIZE bytes (default 65536) with RDMA WRITE into the server's buffer (16 slots, message i
 * into slot i % 16, its bytes a function of i), up to 16 outstanding, and prints the
 * bandwidth; the server checks every slot's content against the last message written there.
 * Both ends then query their QP: the program must be the one chosen; the counters
 * (retransmitted segments, CNPs received and sent, window, rate) are printed, the server's
 * beside the client's. With -e (the wire marks ECN: the device's wire-ecn-mark) the
 * program must be an ECN one and CNPs must have flowed: the server (notification point)
 * sent some and the client (reaction point) received some.
 *
 * Interop with a standard RoCE stack (-O, one-sided, both ends): only an end whose device is
 * a snic selects PROGRAM; an end on another device (rxe: snicdv says EOPNOTSUPP) runs plain
 * verbs. Exactly one end may select; that end writes, whichever end is the TCP client, and
 * the other checks the content; the counters printed are the writer's alone. With -f too
 * the program is one the standard peer cannot take (an extension program: its packets
 * carry BTH TVer 2, which a standard stack drops at header validation): the writer's first
 * completion must be RETRY_EXC within the deadline, and the other end's buffer must be
 * untouched and its QP still in RTS. The selecting end prints the peer's QP number
 * ("selected QP ... to peer QP N") so that a capture of its frames can be checked.
 *
 * Every wait has a deadline (-t, default 60 s); exits 0 when all passed, 1 on any failure,
 * 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/snicdv.h>

#include "vmtool.h"

#define SLOTS 16
#define DEPTH 16

const char tool_name[] = "transport-check";

/* ---- verbs ----------------------------------------------------------------------------- */

struct ctx {
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
    size_t size;
    int ib_port, gidx;
    enum ibv_mtu mtu;
    union ibv_gid gid;
};

static const char *credit_str(uint32_t c)
{
    return c == SNICDV_CREDIT_WINDOW ? "window" : c == SNICDV_CREDIT_RATE ? "rate"
         : c == SNICDV_CREDIT_TOKEN ? "tokens" : "?";
}

/* Every program of the device, numbered from 0 without gaps; how many */
static unsigned list_programs(struct ctx *c, bool print)
{
    struct snicdv_transport_info t;
    unsigned n;
    int r;

    for (n = 0; !(r = snicdv_query_program(c->vctx, n, &t, sizeof(t))); n++) {
        if (t.program != n)
            fail("program %u reports number %u", n, t.program);
        if (t.state_bytes > t.state_max)
            fail("program %s keeps %u bytes, over its limit %u", t.name, t.state_bytes, t.state_max);
        if (print)
            printf("%u %-10s credit=%-6s state=%u/%u qpc=%u%s%s%s%s%s\n", n, t.name,
                   credit_str(t.credit), t.state_bytes, t.state_max, t.qpc_bytes,
                   t.flags & SNICDV_TRANSPORT_ECN ? " ecn" : "",
                   t.flags & SNICDV_TRANSPORT_TCP_ACKS ? " tcp-acks" : "",
                   t.flags & SNICDV_TRANSPORT_XPORT ? " xport" : "",
                   t.flags & SNICDV_TRANSPORT_ECE ? " ece" : "",
                   t.flags & SNICDV_TRANSPORT_SR ? " sr" : "");
    }
    if (r != EINVAL)
        fail("snicdv_query_program(%u): %s (want EINVAL past the last)", n, strerror(r));
    if (!n)
        fail("the device lists no transport programs");
    return n;
}

/* PROGRAM as a number or a listed name */
static uint32_t find_program(struct ctx *c, const char *want, unsigned n)
{
    struct snicdv_transport_info t;
    char *end;
    unsigned long v = strtoul(want, &end, 0);

    if (*want && !*end && v < n)
        return (uint32_t)v;
    for (unsigned i = 0; i < n; i++)
        if (!snicdv_query_program(c->vctx, i, &t, sizeof(t)) && !strcmp(t.name, want))
            return i;
    fail("no transport program '%s' on this device (transport-check -l lists them)", want);
}

static void query(struct ctx *c, struct snicdv_transport_info *t)
{
    int r = snicdv_query_transport(c->qp, t, sizeof(*t));
    if (r)
        fail("snicdv_query_transport: %s", strerror(r));
    if (t->qp_num != c->qp->qp_num)
        fail("snicdv_query_transport: QP %u, want %u", t->qp_num, c->qp->qp_num);
}

static void create_qp(struct ctx *c, uint32_t program, unsigned nprog, bool select)
{
    struct snicdv_transport_info t;
    int r;

    c->pd = ibv_alloc_pd(c->vctx);
    c->cq = ibv_create_cq(c->vctx, 4 * DEPTH, NULL, NULL, 0);
    if (!c->pd || !c->cq)
        fail("ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
    c->buf = aligned_alloc(4096, c->size * SLOTS);
    if (!c->buf)
        fail("out of memory");
    memset(c->buf, 0, c->size * SLOTS);
    c->mr = ibv_reg_mr(c->pd, c->buf, c->size * SLOTS, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!c->mr)
        fail("ibv_reg_mr: %s", strerror(errno));
    struct ibv_qp_init_attr ia = {
        .send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = DEPTH, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
    };
    c->qp = ibv_create_qp(c->pd, &ia);
    if (!c->qp)
        fail("ibv_create_qp: %s", strerror(errno));
    if (!select) {      /* -O on a standard device: plain verbs */
        r = ibv_modify_qp(c->qp, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = (uint8_t)c->ib_port,
                                                        .qp_access_flags = IBV_ACCESS_REMOTE_WRITE },
                          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
        if (r)
            fail("ibv_modify_qp(INIT): %s", strerror(r));
        say("QP %u on a device without snicdv: plain verbs", c->qp->qp_num);
        return;
    }
    query(c, &t);
    if (t.program != SNICDV_TRANSPORT_GBN)
        fail("a new QP runs %s (%u), not go-back-N", t.name, t.program);
    qp_to_init(c->qp, c->ib_port, IBV_ACCESS_REMOTE_WRITE);
    r = snicdv_set_transport(c->qp, nprog, NULL);
    if (r != EINVAL)
        fail("snicdv_set_transport(%u, a program the device lacks): %s, want EINVAL", nprog, strerror(r));
    r = snicdv_set_transport(c->qp, program, NULL);
    if (r)
        fail("snicdv_set_transport(%u): %s", program, strerror(r));
    query(c, &t);
    if (t.program != program)
        fail("the QP runs program %u after selecting %u", t.program, program);
    say("QP %u runs %s (credit %s, %u state bytes, QPC %u bytes)", c->qp->qp_num, t.name,
        credit_str(t.credit), t.state_bytes, t.qpc_bytes);
}

static void connect_qp(struct ctx *c, uint32_t qpn, const union ibv_gid *gid, bool select)
{
    struct rc_conn rc = { .ib_port = c->ib_port, .gidx = c->gidx, .mtu = c->mtu, .rd_atomic = 1, .timeout = 14,
                          .sq_psn = 0x100, .dest_qpn = qpn, .rq_psn = 0x100, .dgid = *gid };
    qp_to_rts(c->qp, &rc);
    if (!select)
        return;
    int r = snicdv_set_transport(c->qp, SNICDV_TRANSPORT_GBN, NULL);
    if (r != EINVAL)
        fail("snicdv_set_transport in RTS: %s, want EINVAL", strerror(r));
}

/* Byte j of message i */
static uint8_t pattern(uint32_t i, size_t j)
{
    return (uint8_t)((i * 0x9e3779b1u) >> (j % 23)) ^ (uint8_t)(j * 13 + i);
}

static void print_info(const char *who, const struct snicdv_transport_info *t)
{
    say("%s: %s window=%u rate=%u Mb/s rtx_segments=%u cnp_rx=%u cnp_tx=%u", who, t->name, t->window,
        t->rate_mbps, t->rtx_segments, t->cnp_rx, t->cnp_tx);
}

/* ---- main ------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    struct vm_opts o = { .gidx = -1, .port = 18540, .ib_port = 1 };
    struct ctx c = { .size = 65536 };
    const char *prog = NULL;
    int opt, iters = 1000;
    bool list = false, ecn = false, one_sided = false, must_fail = false;
    role = "list";
    timeout_s = 60;
    while ((opt = getopt(argc, argv, VM_OPTS "P:n:s:elOfh")) != -1) {
        if (vm_opt(&o, opt, optarg))
            continue;
        switch (opt) {
        case 'P': prog = optarg; break;
        case 'n': iters = atoi(optarg); break;
        case 's': c.size = strtoul(optarg, NULL, 0); break;
        case 'e': ecn = true; break;
        case 'l': list = true; break;
        case 'O': one_sided = true; break;
        case 'f': must_fail = true; break;
        default:
            fprintf(stderr, "usage: %s [-d DEV] -l\n"
                            "       %s [-d DEV] -g GID-INDEX -P PROGRAM [-n ITERS (1000)] [-s SIZE (65536)] [-e] [-O [-f]] "
                            "[-p TCP-PORT (18540)] [-i IB-PORT (1)] [-t SECS (60)] [SERVER-IPv4]\n"
                            "  -l: list the device's transport programs; else without SERVER-IPv4 the server,\n"
                            "  with it the client; -e: CNPs must flow (the wire marks ECN); -O: only a snic end\n"
                            "  selects PROGRAM and writes; -f: its WRITEs must fail with RETRY_EXC\n", argv[0], argv[0]);
            return 2;
        }
    }
    c.ib_port = o.ib_port;
    c.gidx = o.gidx;
    if (list) {
        c.vctx = open_rdma_device(o.dev);
        list_programs(&c, true);
        return 0;
    }
    if (c.gidx < 0 || !prog || timeout_s <= 0 || iters <= 0 || c.size == 0 || c.size > (1u << 24) ||
        optind < argc - 1 || (must_fail && !one_sided) || (one_sided && ecn)) {
        fprintf(stderr, "%s: -g GID-INDEX and -P PROGRAM are required (see -h)\n", argv[0]);
        return 2;
    }
    bool client = optind == argc - 1;
    role = client ? "client" : "server";
    arm_alarm((unsigned)(4 * timeout_s));
    c.vctx = open_rdma_device(o.dev);
    query_port_gid(c.vctx, c.ib_port, c.gidx, &c.mtu, &c.gid);
    /* -O: does this end's device take snicdv calls? (rxe: EOPNOTSUPP) */
    struct snicdv_transport_info probe;
    bool select = !one_sided || snicdv_query_program(c.vctx, 0, &probe, sizeof(probe)) != EOPNOTSUPP;
    unsigned nprog = 0;
    uint32_t program = 0;
    if (select) {
        nprog = list_programs(&c, false);
        program = find_program(&c, prog, nprog);
    }
    create_qp(&c, program, nprog, select);

    char m[MSG_LEN], gs[33], pg[33];
    uint32_t pqpn, prkey;
    uint64_t paddr;
    union ibv_gid pgid;
    if (client)
        tcp_client(argv[optind], o.port);
    else
        tcp_server(o.port);
    gid_to_hex(&c.gid, gs);
    /* the program selected, -1 for none (-O on a standard device) */
    send_msg("INFO %06x %d %s %016" PRIx64 " %08x", c.qp->qp_num, select ? (int)program : -1, gs,
             (uint64_t)(uintptr_t)c.buf, c.mr->rkey);
    recv_msg(m, "INFO ");
    int pprog;
    if (sscanf(m + 5, "%x %d %32s %" SCNx64 " %x", &pqpn, &pprog, pg, &paddr, &prkey) != 5 || strlen(pg) != 32)
        fail("cannot parse the peer's INFO '%.100s'", m);
    if (one_sided && (pprog >= 0) == select)
        fail("-O: exactly one end must select a program; here %s, the peer %s", select ? "yes" : "no",
             pprog >= 0 ? "yes" : "no");
    if (!one_sided && pprog != (int)program)
        fail("the peer selected program %d, we %u", pprog, program);
    /* the writer: the client, or with -O the end that selected */
    bool writer = one_sided ? select : client;
    gid_from_hex(pg, &pgid);
    connect_qp(&c, pqpn, &pgid, select);
    if (one_sided && select)
        say("selected QP %u (%s) to peer QP %u", c.qp->qp_num, prog, pqpn);
    send_msg("READY");
    recv_msg(m, "READY");

    struct snicdv_transport_info t, pt;
    if (writer) {
        uint8_t *src = c.buf;   /* the client's buffer: the messages' source */
        int posted = 0, done = 0;
        bool failed = false;
        double t0 = now_s(), end = t0 + timeout_s;
        while (done < iters) {
            while (posted < iters && posted - done < DEPTH) {
                uint8_t *s = src + (size_t)(posted % SLOTS) * c.size;
                for (size_t j = 0; j < c.size; j++)
                    s[j] = pattern((uint32_t)posted, j);
                struct ibv_sge sge = { .addr = (uintptr_t)s, .length = (uint32_t)c.size, .lkey = c.mr->lkey };
                struct ibv_send_wr wr = {
                    .wr_id = (uint64_t)posted, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                    .send_flags = IBV_SEND_SIGNALED,
                    .wr.rdma = { .remote_addr = paddr + (uint64_t)(posted % SLOTS) * c.size, .rkey = prkey },
                }, *bad;
                int r = ibv_post_send(c.qp, &wr, &bad);
                if (r)
                    fail("ibv_post_send: %s", strerror(r));
                posted++;
            }
            struct ibv_wc wc;
            int n = ibv_poll_cq(c.cq, 1, &wc);
            if (n < 0)
                fail("ibv_poll_cq: %d", n);
            if (n == 0) {
                if (now_s() > end)
                    fail("%d of %d WRITEs completed within %d s", done, iters, timeout_s);
                continue;
            }
            if (must_fail) {
                if (wc.status != IBV_WC_RETRY_EXC_ERR)
                    fail("WRITE %" PRIu64 ": %s, want %s", wc.wr_id, ibv_wc_status_str(wc.status),
                         ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
                say("WRITE %" PRIu64 " failed as it must after %.3f s: %s", wc.wr_id, now_s() - t0,
                    ibv_wc_status_str(wc.status));
                failed = true;
                break;
            }
            if (wc.status != IBV_WC_SUCCESS)
                fail("WRITE %" PRIu64 ": %s", wc.wr_id, ibv_wc_status_str(wc.status));
            if (wc.wr_id != (uint64_t)done)
                fail("WRITE %" PRIu64 " completed, %d expected", wc.wr_id, done);
            done++;
        }
        if (must_fail) {
            if (!failed)
                fail("all %d WRITEs completed, want RETRY_EXC", iters);
            send_msg("DONE -1");
            query(&c, &t);
            print_info("writer", &t);
            recv_msg(m, "OK");
            send_msg("BYE");
            say("PASS");
            return 0;
        }
        double secs = now_s() - t0;
        say("%s: %d WRITEs of %zu bytes in %.3f s: %.1f MB/s", prog, iters, c.size, secs,
            (double)iters * (double)c.size / secs / 1e6);
        send_msg("DONE %d", iters);
        query(&c, &t);
        if (one_sided) {
            recv_msg(m, "OK");
            print_info("writer", &t);
            if (t.program != program)
                fail("the QP ran program %u, not %u", t.program, program);
            send_msg("BYE");
            say("PASS");
            return 0;
        }
        recv_msg(m, "INFO ");
        if (sscanf(m + 5, "%u %u %u %u %u %u", &pt.window, &pt.rate_mbps, &pt.rtx_segments, &pt.cnp_rx,
                   &pt.cnp_tx, &pt.program) != 6)
            fail("cannot parse the server's counters '%.100s'", m);
        memcpy(pt.name, t.name, sizeof(pt.name));
        print_info("client (requester)", &t);
        print_info("server (responder)", &pt);
        if (pt.program != program || t.program != program)
            fail("the QPs ran programs %u and %u, not %u", t.program, pt.program, program);
        if (ecn) {
            if (!(t.flags & SNICDV_TRANSPORT_ECN))
                fail("-e with %s, which does not use ECN", t.name);
            if (!pt.cnp_tx || !t.cnp_rx)
                fail("no CNPs under ECN marking: server sent %u, client received %u", pt.cnp_tx, t.cnp_rx);
            say("CNPs: server sent %u, client received %u", pt.cnp_tx, t.cnp_rx);
        }
        send_msg("BYE");
    } else {
        recv_msg(m, "DONE ");
        int n = atoi(m + 5), bad = 0;
        if (must_fail) {
            /* the writer's packets never reached us: nothing written, our QP unharmed */
            struct ibv_qp_attr qa;
            struct ibv_qp_init_attr qia;
            size_t j;
            if (n != -1)
                fail("the writer reports %d WRITEs done, want its failure (-1)", n);
            for (j = 0; j < c.size * SLOTS && !c.buf[j]; j++)
                ;
            if (j < c.size * SLOTS)
                fail("byte %zu of our buffer was written (%#x) by WRITEs that must not arrive", j, c.buf[j]);
            int r = ibv_query_qp(c.qp, &qa, IBV_QP_STATE, &qia);
            if (r || qa.qp_state != IBV_QPS_RTS)
                fail("our QP after the peer's failed WRITEs: %s, state %d (want RTS)", strerror(r), qa.qp_state);
            say("the writer failed; our buffer is untouched and our QP still in RTS");
            send_msg("OK");
            recv_msg(m, "BYE");
            say("PASS");
            return 0;
        }
        if (n != iters)
            fail("the client wrote %d messages, we expect %d", n, iters);
        for (int s = 0; s < SLOTS && s < n; s++) {
            uint32_t last = (uint32_t)(n - 1 - ((n - 1 - s) % SLOTS));
            const uint8_t *d = c.buf + (size_t)s * c.size;
            for (size_t j = 0; j < c.size; j++)
                if (d[j] != pattern(last, j)) {
                    if (!bad++)
                        say("slot %d byte %zu: %#x, message %u has %#x", s, j, d[j], last, pattern(last, j));
                    break;
                }
        }
        if (bad)
            fail("%d of %d slots hold other bytes than the last message written there", bad, SLOTS);
        say("%d WRITEs: every slot holds its last message's bytes", n);
        if (one_sided) {
            send_msg("OK");
            recv_msg(m, "BYE");
            say("PASS");
            return 0;
        }
        query(&c, &t);
        print_info("server (responder)", &t);
        send_msg("INFO %u %u %u %u %u %u", t.window, t.rate_mbps, t.rtx_segments, t.cnp_rx, t.cnp_tx,
                 t.program);
        recv_msg(m, "BYE");
    }
    say("PASS");
    return 0;
}
