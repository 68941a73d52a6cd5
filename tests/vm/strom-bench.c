// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strom-bench: StRoM (EuroSys'20) Fig. 7 between two hosts: the latency of looking a key up
 * in a remote linked list of 64-byte values, by three methods, on the same RC QP:
 *   READ    a chain of RDMA READs, one per element, then one for the value (Pilaf, FaRM);
 *   kernel  one RPC to the responder's traversal kernel (snicdv_post_rpc), answered by an
 *           RDMA WRITE with immediate;
 *   2sided  a SEND of the key; the server's CPU walks its list and SENDs the value back
 *           (the paper's baseline is rpcgen over TCP; this is its RDMA form, as the issue
 *           asks).
 * The list has 32 elements ([K 0][N 2][V 4], the paper's Fig. 6 layout: keyMask 1,
 * valuePtrPosition 4, nextElementPtrPosition 2); a lookup of length L asks for the key of
 * element L (the walk visits L elements). Every answer is checked by content.
 *
 *   server:  strom-bench [-d DEV] -g GIDX [-p PORT] [-i IBPORT] [-t SECS]
 *   client:  strom-bench [same options] [-n ITERS] [-L LEN,LEN,...] SERVER-IP
 *
 * The client also measures one 64-byte READ (the network round trip it is made of), and
 * prints per length a CSV row, "strom-bench[client]: fig7,L,read_med_us,read_p1_us,
 * read_p99_us,strom_med_us,...,rpc_p99_us" (columns as tests/bench/strom-repro.c's
 * fig7.csv: medians and 1st/99th percentiles in microseconds) then the RoCE frames per
 * lookup, "read_frames,strom_frames,rpc_frames": the client port's rdma_tx_packets +
 * rdma_rx_packets (sysfs hw_counters) over FRAME_RUNS untimed lookups of each kind, which
 * counts the network round trips whatever the host's speed; and "rtt,..." for the single
 * READ. scripts/repro/strom.sh --vm collects them. Benchmark figures, not checks: the run
 * fails only on a wrong answer, an error completion or a deadline (-t, default 30 s).
 * Exits 0 when every lookup was answered correctly, 1 on a failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/snicdv.h>

#include "vmtool.h"

#define OP_TRAV 0x7e11ull       /* the traversal kernel's RPC op-code (ours to choose) */
#define LIST_N 32
#define ELEM 64                 /* bytes per list element */
#define VAL_LEN 64              /* Fig. 7's value size */
#define VAL_OFF 0x1000          /* values after the list, one per element */
#define STORE_LEN 0x2000
#define SLOT 256                /* client: receive slots and the landing area */
#define RECVS 16
#define MAX_LENS 32
#define FRAME_RUNS 8            /* untimed lookups per kind whose frames are counted */

const char tool_name[] = "strom-bench";

static uint64_t list_key(int i) { return 7000 + (uint64_t)i; }
static uint8_t val_byte(uint64_t k, unsigned i) { return (uint8_t)(k * 131 + i * 7 + 1); }

struct ctx {
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;               /* server: the store + a reply slot; client: slots */
    int ib_port, gidx;
    enum ibv_mtu mtu;
    union ibv_gid gid;
};

struct peer {
    uint32_t qpn, psn, rkey;
    uint64_t addr;
    union ibv_gid gid;
};

static void setup(struct ctx *c, const char *dev, size_t len)
{
    c->vctx = open_rdma_device(dev);
    query_port_gid(c->vctx, c->ib_port, c->gidx, &c->mtu, &c->gid);
    struct snicdv_device_attr da;
    int r = snicdv_query_device(c->vctx, &da, sizeof(da));
    if (r)
        fail("snicdv_query_device: %s (not a snic device?)", strerror(r));
    if (!(da.flags & SNICDV_DEVICE_RPC) || !(da.builtin_kernels & (1u << SNIC_KERNEL_TRAVERSAL)))
        fail("the device has no RPCs or no traversal kernel");
    c->pd = ibv_alloc_pd(c->vctx);
    c->cq = ibv_create_cq(c->vctx, 4 * RECVS, NULL, NULL, 0);
    if (!c->pd || !c->cq)
        fail("ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
    c->buf = aligned_alloc(4096, len);
    if (!c->buf)
        fail("out of memory");
    memset(c->buf, 0, len);
    c->mr = ibv_reg_mr(c->pd, c->buf, len,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
    if (!c->mr)
        fail("ibv_reg_mr: %s", strerror(errno));
    struct ibv_qp_init_attr ia = {
        .send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 16, .max_recv_wr = RECVS, .max_send_sge = 1, .max_recv_sge = 1 },
    };
    c->qp = ibv_create_qp(c->pd, &ia);
    if (!c->qp)
        fail("ibv_create_qp: %s", strerror(errno));
    qp_to_init(c->qp, c->ib_port, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    /* both ends, before RTR: the RPC extension is used only on such QPs */
    if ((r = snicdv_qp_set_rpc(c->qp, SNICDV_QP_RPC_ENABLE)))
        fail("snicdv_qp_set_rpc: %s", strerror(r));
}

static void post_recv(struct ctx *c, uint8_t *slot)
{
    struct ibv_sge sge = { .addr = (uintptr_t)slot, .length = SLOT, .lkey = c->mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = (uintptr_t)slot, .sg_list = &sge, .num_sge = 1 }, *bad;
    int r = ibv_post_recv(c->qp, &wr, &bad);
    if (r)
        fail("ibv_post_recv: %s", strerror(r));
}

/* Exchange QP, PSN, GID and the memory each side offers, then connect. */
static void connect_peer(struct ctx *c, struct peer *p)
{
    char m[MSG_LEN], gs[33], pg[33];
    gid_to_hex(&c->gid, gs);
    send_msg("INFO %06x %06x %s %016" PRIx64 " %08x", c->qp->qp_num, 0x100u, gs, (uint64_t)(uintptr_t)c->buf,
             c->mr->rkey);
    recv_msg(m, "INFO ");
    if (sscanf(m + 5, "%x %x %32s %" SCNx64 " %x", &p->qpn, &p->psn, pg, &p->addr, &p->rkey) != 5 ||
        strlen(pg) != 32)
        fail("cannot parse the peer's INFO '%.100s'", m);
    gid_from_hex(pg, &p->gid);
    struct rc_conn rc = { .ib_port = c->ib_port, .gidx = c->gidx, .mtu = c->mtu, .rd_atomic = 1, .timeout = 16,
                          .sq_psn = 0x100, .dest_qpn = p->qpn, .rq_psn = p->psn, .dgid = p->gid };
    qp_to_rts(c->qp, &rc);
}

/* One completion within the deadline; fails on an error status. */
static void poll_one(struct ctx *c, struct ibv_wc *wc, const char *what)
{
    int n;
    for (double end = now_s() + timeout_s; !(n = ibv_poll_cq(c->cq, 1, wc));)
        if (now_s() > end)
            fail("%s: no completion within %d s", what, timeout_s);
    if (n < 0)
        fail("%s: ibv_poll_cq: %d", what, n);
    if (wc->status != IBV_WC_SUCCESS)
        fail("%s: completion opcode %#x wr_id %#" PRIx64 ": %s", what, wc->opcode, wc->wr_id,
             ibv_wc_status_str(wc->status));
}

/* ---- server: the list, the kernel, and the two-sided handler ---------------------------- */

static void run_server(struct ctx *c)
{
    uint8_t *reply = c->buf + STORE_LEN;        /* the two-sided answer */
    uint8_t *rx = reply + SLOT;                 /* RECVS receive slots */
    struct peer p;
    char m[MSG_LEN];
    int r, served = 0;

    for (int i = 0; i < LIST_N; i++) {
        uint64_t *e = (uint64_t *)(c->buf + ELEM * i);
        uint8_t *v = c->buf + VAL_OFF + VAL_LEN * i;
        e[0] = htole64(list_key(i));
        e[1] = htole64(i + 1 < LIST_N ? (uintptr_t)(e + ELEM / 8) : 0);
        e[2] = htole64((uintptr_t)v);
        for (unsigned b = 0; b < VAL_LEN; b++)
            v[b] = val_byte(list_key(i), b);
    }
    if ((r = snicdv_deploy_kernel(c->vctx, OP_TRAV, SNIC_KERNEL_TRAVERSAL)))
        fail("snicdv_deploy_kernel(traversal): %s", strerror(r));
    for (int i = 0; i < RECVS; i++)
        post_recv(c, rx + SLOT * i);
    connect_peer(c, &p);
    send_msg("READY");
    say("list of %d elements, %d-byte values; traversal kernel on RPC op-code %#llx", LIST_N, VAL_LEN, OP_TRAV);

    /* The two-sided baseline's server: a key in, the CPU walks the list, the value out. */
    for (;;) {
        struct ibv_wc wc;
        int n = ibv_poll_cq(c->cq, 1, &wc);
        if (n < 0)
            fail("ibv_poll_cq: %d", n);
        if (n) {
            if (wc.status != IBV_WC_SUCCESS)
                fail("completion opcode %#x: %s", wc.opcode, ibv_wc_status_str(wc.status));
            if (wc.opcode == IBV_WC_SEND)
                continue;
            if (wc.opcode != IBV_WC_RECV || wc.byte_len != 8)
                fail("unexpected completion opcode %#x, %u bytes", wc.opcode, wc.byte_len);
            uint8_t *slot = (uint8_t *)(uintptr_t)wc.wr_id;
            uint64_t key, *e = (uint64_t *)c->buf;
            memcpy(&key, slot, 8);
            post_recv(c, slot);
            while (e && le64toh(e[0]) != le64toh(key))
                e = (uint64_t *)(uintptr_t)le64toh(e[1]);
            uint32_t len = e ? VAL_LEN : 0;
            if (e)
                memcpy(reply, (void *)(uintptr_t)le64toh(e[2]), VAL_LEN);
            struct ibv_sge sge = { .addr = (uintptr_t)reply, .length = len, .lkey = c->mr->lkey };
            struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = len ? 1 : 0, .opcode = IBV_WR_SEND,
                                      .send_flags = IBV_SEND_SIGNALED }, *bad;
            if ((r = ibv_post_send(c->qp, &wr, &bad)))
                fail("ibv_post_send(SEND): %s", strerror(r));
            served++;
            continue;
        }
        struct pollfd pfd = { .fd = sock, .events = POLLIN };
        if (poll(&pfd, 1, 0) <= 0)
            continue;
        recv_msg(m, "DONE ");
        if (atoi(m + 5) != served)
            fail("the client sent %d two-sided requests, the server served %d", atoi(m + 5), served);
        say("served %d two-sided requests", served);
        send_msg("BYE");
        return;
    }
}

/* ---- client ----------------------------------------------------------------------------- */

struct client {
    struct ctx *c;
    struct peer p;
    uint8_t *land;              /* READs and the kernel's answers land here */
    uint8_t *rx;                /* RECVS receive slots */
    uint32_t tag;
    int two_sided;
};

static void check_value(const uint8_t *b, uint64_t key, const char *what)
{
    for (unsigned i = 0; i < VAL_LEN; i++)
        if (b[i] != val_byte(key, i))
            fail("%s: value byte %u of key %" PRIu64 " is %#x, expected %#x", what, i, key, b[i],
                 val_byte(key, i));
}

static void rdma_read(struct client *cl, uint64_t addr, uint32_t len)
{
    struct ctx *c = cl->c;
    struct ibv_sge sge = { .addr = (uintptr_t)cl->land, .length = len, .lkey = c->mr->lkey };
    struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
                              .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = { .remote_addr = addr, .rkey = cl->p.rkey } }, *bad;
    struct ibv_wc wc;
    int r = ibv_post_send(c->qp, &wr, &bad);
    if (r)
        fail("ibv_post_send(READ): %s", strerror(r));
    poll_one(c, &wc, "READ");
    if (wc.opcode != IBV_WC_RDMA_READ)
        fail("READ: completion opcode %#x", wc.opcode);
}

/* A: follow the list element by element, then read the value. */
static double by_reads(struct client *cl, int len)
{
    uint64_t at = cl->p.addr, key = list_key(len - 1), e[3];
    double t0 = now_s();
    for (int i = 0; i < len; i++) {
        rdma_read(cl, at, ELEM);
        memcpy(e, cl->land, sizeof(e));
        at = le64toh(e[1]);
    }
    rdma_read(cl, le64toh(e[2]), VAL_LEN);
    double t = now_s() - t0;
    if (le64toh(e[0]) != key)
        fail("READ chain: element %d has key %" PRIu64 ", expected %" PRIu64, len, le64toh(e[0]), key);
    check_value(cl->land, key, "READ chain");
    return t;
}

/* B: one RPC; the kernel walks, the answer is a WRITE with immediate (status, tag). */
static double by_kernel(struct client *cl, int len)
{
    struct ctx *c = cl->c;
    uint64_t key = list_key(len - 1);
    struct snic_traversal_params tp = {
        .remote_address = htole64(cl->p.addr), .key = htole64(key), .value_size = htole32(VAL_LEN),
        .key_mask = htole16(1), .predicate = SNIC_TRAV_EQUAL, .value_ptr_pos = 4,
        .flags = SNIC_TRAV_NEXT_VALID, .next_ptr_pos = 2,
    };
    uint8_t *params = cl->land + SLOT;
    memcpy(params, &tp, sizeof(tp));
    memset(cl->land, 0, VAL_LEN);
    uint32_t tag = ++cl->tag & 0xffffff;
    struct ibv_sge sge = { .addr = (uintptr_t)params, .length = sizeof(tp), .lkey = c->mr->lkey };
    struct snicdv_rpc_wr w = {
        .wr_id = 2, .rpc_opcode = OP_TRAV, .rkey = cl->p.rkey, .resp_rkey = c->mr->rkey,
        .resp_addr = (uintptr_t)cl->land, .resp_len = SLOT, .tag = tag, .sg_list = &sge, .num_sge = 1,
        .send_flags = IBV_SEND_SIGNALED,
    };
    double t0 = now_s();
    int r = snicdv_post_rpc(c->qp, &w);
    if (r)
        fail("snicdv_post_rpc: %s", strerror(r));
    bool sent = false, answered = false;
    while (!sent || !answered) {
        struct ibv_wc wc;
        poll_one(c, &wc, "RPC");
        if (wc.opcode == SNICDV_WC_RPC) {
            sent = true;
        } else if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.wc_flags & IBV_WC_WITH_IMM) {
            if (snicdv_rpc_tag(&wc) != tag || snicdv_rpc_status(&wc) != SNIC_RPC_OK || wc.byte_len != VAL_LEN)
                fail("RPC: answer tag %#x status %u, %u bytes (expected tag %#x, OK, %d)", snicdv_rpc_tag(&wc),
                     snicdv_rpc_status(&wc), wc.byte_len, tag, VAL_LEN);
            post_recv(c, (uint8_t *)(uintptr_t)wc.wr_id);
            answered = true;
        } else {
            fail("RPC: unexpected completion opcode %#x", wc.opcode);
        }
    }
    double t = now_s() - t0;
    check_value(cl->land, key, "kernel");
    return t;
}

/* C: SEND the key, the server's CPU walks, the value comes back in a SEND. */
static double by_two_sided(struct client *cl, int len)
{
    struct ctx *c = cl->c;
    uint64_t key = htole64(list_key(len - 1));
    uint8_t *msg = cl->land + 2 * SLOT - sizeof(key);     /* after the RPC's parameters */
    memcpy(msg, &key, sizeof(key));
    struct ibv_sge sge = { .addr = (uintptr_t)msg, .length = sizeof(key), .lkey = c->mr->lkey };
    struct ibv_send_wr wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                              .send_flags = IBV_SEND_SIGNALED }, *bad;
    double t0 = now_s();
    int r = ibv_post_send(c->qp, &wr, &bad);
    if (r)
        fail("ibv_post_send(SEND): %s", strerror(r));
    bool sent = false;
    uint8_t *answer = NULL;
    while (!sent || !answer) {
        struct ibv_wc wc;
        poll_one(c, &wc, "two-sided");
        if (wc.opcode == IBV_WC_SEND) {
            sent = true;
        } else if (wc.opcode == IBV_WC_RECV && !(wc.wc_flags & IBV_WC_WITH_IMM)) {
            if (wc.byte_len != VAL_LEN)
                fail("two-sided: a %u-byte answer, expected %d", wc.byte_len, VAL_LEN);
            answer = (uint8_t *)(uintptr_t)wc.wr_id;
        } else {
            fail("two-sided: unexpected completion opcode %#x", wc.opcode);
        }
    }
    double t = now_s() - t0;
    check_value(answer, le64toh(key), "two-sided");
    post_recv(c, answer);
    cl->two_sided++;
    return t;
}

/*
 * RoCE frames the client's port sent and received so far (the device's counters). The RDMA
 * core caches hw_counters for RDMA_HW_STATS_DEFAULT_LIFESPAN (10 ms): waiting 20 ms first
 * gets a fresh value, and lets the last ACK of what came before arrive.
 */
static uint64_t port_frames(struct ctx *c)
{
    static const char *const names[] = { "rdma_tx_packets", "rdma_rx_packets" };
    uint64_t sum = 0;
    usleep(20000);
    for (int i = 0; i < 2; i++) {
        char path[256];
        unsigned long long v;
        snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/hw_counters/%s",
                 ibv_get_device_name(c->vctx->device), c->ib_port, names[i]);
        FILE *f = fopen(path, "r");
        if (!f || fscanf(f, "%llu", &v) != 1)
            fail("cannot read %s: %s", path, f ? "not a number" : strerror(errno));
        fclose(f);
        sum += v;
    }
    return sum;
}

/* Frames per lookup of one kind: counted over FRAME_RUNS lookups, nothing else in flight. */
static double frames_per(struct client *cl, double (*by)(struct client *, int), int len)
{
    uint64_t f0 = port_frames(cl->c);
    for (int i = 0; i < FRAME_RUNS; i++)
        by(cl, len);
    return (double)(port_frames(cl->c) - f0) / FRAME_RUNS;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median, 1st and 99th percentile in microseconds, as strom-repro's fig7.csv */
static void stats(char *out, size_t n, double *t, int iters)
{
    qsort(t, (size_t)iters, sizeof(*t), cmp_double);
    snprintf(out, n, "%.3f,%.3f,%.3f", t[iters / 2] * 1e6, t[iters / 100] * 1e6,
             t[iters - 1 - iters / 100] * 1e6);
}

static void run_client(struct ctx *c, const int *lens, int nlens, int iters)
{
    struct client cl = { .c = c, .land = c->buf, .rx = c->buf + 2 * SLOT };
    double *rd = calloc((size_t)iters, sizeof(double)), *kn = calloc((size_t)iters, sizeof(double)),
           *ts = calloc((size_t)iters, sizeof(double));
    char m[MSG_LEN], a[64], b[64], d[64];
    if (!rd || !kn || !ts)
        fail("out of memory");
    for (int i = 0; i < RECVS; i++)
        post_recv(c, cl.rx + SLOT * i);
    connect_peer(c, &cl.p);
    recv_msg(m, "READY");

    /* the network round trip everything is made of: one 64-byte READ */
    for (int i = 0; i < iters; i++) {
        double t0 = now_s();
        rdma_read(&cl, cl.p.addr, ELEM);
        rd[i] = now_s() - t0;
    }
    stats(a, sizeof(a), rd, iters);
    say("rtt,%s", a);
    say("fig7,length,read_med_us,read_p1_us,read_p99_us,strom_med_us,strom_p1_us,strom_p99_us,rpc_med_us,"
        "rpc_p1_us,rpc_p99_us,read_frames,strom_frames,rpc_frames");
    for (int l = 0; l < nlens; l++) {
        /* interleaved, so that a slow phase of the host skews the three alike */
        for (int i = 0; i < iters; i++) {
            rd[i] = by_reads(&cl, lens[l]);
            kn[i] = by_kernel(&cl, lens[l]);
            ts[i] = by_two_sided(&cl, lens[l]);
        }
        stats(a, sizeof(a), rd, iters);
        stats(b, sizeof(b), kn, iters);
        stats(d, sizeof(d), ts, iters);
        double fr = frames_per(&cl, by_reads, lens[l]), fk = frames_per(&cl, by_kernel, lens[l]),
               ft = frames_per(&cl, by_two_sided, lens[l]);
        say("fig7,%d,%s,%s,%s,%.2f,%.2f,%.2f", lens[l], a, b, d, fr, fk, ft);
    }
    send_msg("DONE %d", cl.two_sided);
    recv_msg(m, "BYE");
    say("%d lookups of each kind answered with the right value", (iters + FRAME_RUNS) * nlens);
    free(rd);
    free(kn);
    free(ts);
}

static int parse_lens(const char *s, int *lens)
{
    int n = 0;
    for (char *end; *s && n < MAX_LENS; s = *end ? end + 1 : end) {
        long v = strtol(s, &end, 10);
        if (end == s || (*end && *end != ',') || v < 1 || v > LIST_N)
            return -1;
        lens[n++] = (int)v;
    }
    return *s ? -1 : n;
}

int main(int argc, char **argv)
{
    struct ctx c = { .ib_port = 1, .gidx = -1 };
    const char *dev = NULL;
    int port = 18540, iters = 100, lens[MAX_LENS], nlens = 0, opt;
    while ((opt = getopt(argc, argv, "d:g:p:i:t:n:L:h")) != -1) {
        switch (opt) {
        case 'd': dev = optarg; break;
        case 'g': c.gidx = atoi(optarg); break;
        case 'p': port = atoi(optarg); break;
        case 'i': c.ib_port = atoi(optarg); break;
        case 't': timeout_s = atoi(optarg); break;
        case 'n': iters = atoi(optarg); break;
        case 'L': nlens = parse_lens(optarg, lens); break;
        default:
            goto usage;
        }
    }
    if (!nlens) {
        static const int def[] = { 1, 2, 4, 8, 16, 32 };
        memcpy(lens, def, sizeof(def));
        nlens = 6;
    }
    if (c.gidx < 0 || timeout_s <= 0 || iters < 1 || nlens < 0 || optind < argc - 1)
        goto usage;
    bool client = optind == argc - 1;
    role = client ? "client" : "server";
    arm_alarm((unsigned)(20 * timeout_s));
    if (client) {
        setup(&c, dev, 2 * SLOT + RECVS * SLOT);
        tcp_client(argv[optind], port);
        run_client(&c, lens, nlens, iters);
    } else {
        setup(&c, dev, STORE_LEN + SLOT + RECVS * SLOT);
        tcp_server(port);
        run_server(&c);
    }
    say("PASS");
    return 0;
usage:
    fprintf(stderr, "usage: %s [-d DEV] -g GID-INDEX [-p TCP-PORT (18540)] [-i IB-PORT (1)] [-t SECS (30)] "
                    "[-n ITERS (100)] [-L LENGTHS (1,2,4,8,16,32; each 1..%d)] [SERVER-IPv4]\n"
                    "  without SERVER-IPv4: the server; with it: the client\n", argv[0], LIST_N);
    return 2;
}
