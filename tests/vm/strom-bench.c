// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strom-bench: StRoM (EuroSys'20) Fig. 7-10 between two hosts, each method on the same RC
 * QP, every answer checked by content:
 *   Fig. 7  a key in a remote linked list of 64-byte values, by
 *           READ    a chain of RDMA READs, one per element, then one for the value
 *                   (Pilaf, FaRM);
 *           kernel  one RPC to the responder's traversal kernel (snicdv_post_rpc), answered
 *                   by an RDMA WRITE with immediate;
 *           2sided  a SEND of the key; the server's CPU walks its list and SENDs the value
 *                   back (the paper's baseline is rpcgen over TCP; this is its RDMA form, as
 *                   the issue asks).
 *           The list has 32 elements ([K 0][N 2][V 4], the paper's Fig. 6 layout: keyMask
 *           1, valuePtrPosition 4, nextElementPtrPosition 2); a lookup of length L asks for
 *           the key of element L (the walk visits L elements).
 *   Fig. 8  a hash table GET, values of 64 B .. 4 KiB: the client has hashed the key to its
 *           Pilaf-style entry ([K 0][V 2]); two READs (entry, value), the traversal kernel,
 *           two-sided.
 *   Fig. 9  an object of 64 B .. 16 KiB whose last 8 bytes are the CRC-64/XZ of the rest:
 *           one READ (no check), READ + the CRC checked on the client's CPU (liblzma), and
 *           the consistency kernel (reads, checks, answers).
 *   Fig. 10 the same two checked methods' average latency when reads race a writer: the
 *           server's device tears that share of its host reads (QEMU property
 *           x-torn-reads=PCT on VM b, which -P names for the rows; a guest cannot tear
 *           reads at a chosen rate itself). The client's READ + CRC reads again until the
 *           CRC matches; a kernel that runs out of retries (CHECKSUM) is asked again.
 *   Fig. 11 moving N 8-byte tuples into the server's memory (the server's device needs a
 *           shuffle unit: -global snic.shuffle-units=1), by
 *           write   one RDMA WRITE of the tuples, unpartitioned;
 *           kernel  the client's histogram pass (1024 partitions, radix bits 0..9), then
 *                   one RPC WRITE of parameters, histogram and tuples to the shuffle kernel
 *                   (snicdv_post_rpc_write), which partitions them into the server's memory;
 *           sw      the histogram pass, then the client copies each tuple into its
 *                   partition's 16-tuple buffer and posts a 128-byte RDMA WRITE whenever one
 *                   fills (two buffers per partition: one is written while the other
 *                   fills), the partly filled ones at the end (Barthels et al.'s scheme).
 *           The server clears its region before each operation and checks it after: the
 *           tuples in order (write) or a stable radix partition (kernel, sw), byte for byte.
 *
 *   server:  strom-bench [-d DEV] -g GIDX [-p PORT] [-i IBPORT] [-t SECS]
 *   client:  strom-bench [same options] [-n ITERS] [-L LENGTHS] [-V SIZES] [-O SIZES]
 *                        [-T SIZES -P PCT] [-S TUPLES] SERVER-IP
 *
 * -L the list lengths (default 1,2,4,8,16,32), -V Fig. 8's value sizes (64,256,1024,4096),
 * -O Fig. 9's object sizes (64,256,1024,4096,16384), -T Fig. 10's (default none), -S Fig.
 * 11's tuple counts (default none; powers of two up to 1048576, 8 MiB); sizes
 * are powers of two; an empty list ("-V ''") skips that figure. The client first times one 64-byte READ (the network
 * round trip everything is made of; ITERS of them after as many untimed) and prints
 * "strom-bench[client]: rtt,MED,P1,P99",
 * then per point a CSV row "figN,X,..." with the median, 1st and 99th percentile in
 * microseconds of each method, columns as tests/bench/strom-repro.c's figN.csv (each
 * figure's header row first). Fig. 7's rows end with the RoCE frames per lookup of each
 * method, "read_frames,strom_frames,rpc_frames": the client port's rdma_tx_packets +
 * rdma_rx_packets (sysfs hw_counters) over FRAME_RUNS untimed lookups, which counts the
 * network round trips whatever the host's speed. Fig. 10's rows are "fig10,SIZE,PCT,
 * readsw_avg_us,strom_avg_us,readsw_reads,strom_asks": average latencies, the client's
 * READs per checked read and the RPCs per checked kernel read (more than 1 only when a
 * kernel ran out of retries). scripts/repro/strom-vm.sh collects the
 * rows. Benchmark figures, not checks: the run fails only on a wrong answer, an error
 * completion or a deadline (-t, default 30 s). Exits 0 when every lookup was answered
 * correctly, 1 on a failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <lzma.h>
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
#define OP_CONS 0x7e12ull       /* the consistency kernel's */
#define LIST_N 32
#define ELEM 64                 /* bytes per list element */
#define LIST_VAL 64             /* Fig. 7's value size */
#define HASH_KEY 4242ull        /* Fig. 8's key, in the entry the client hashed to */
#define MAX_VAL 4096            /* Fig. 8's largest value */
#define MAX_OBJ SNIC_CONSISTENCY_MAX_OBJECT     /* Fig. 9's largest object, 16 KiB */
#define OBJ_KEY 9999ull
#define MIN_SIZE 64
/* the server's store: list, list values, hash entry, hash value, one object per size */
#define LIST_OFF 0x0
#define LVAL_OFF 0x1000
#define HT_OFF 0x2000
#define HVAL_OFF 0x3000
#define OBJ_OFF 0x4000          /* the object of size 64 << k at OBJ_OFF + k * MAX_OBJ */
#define OBJ_SIZES 9             /* 64 .. 16384 */
#define STORE_LEN (OBJ_OFF + OBJ_SIZES * MAX_OBJ)
#define SLOT MAX_VAL            /* receive slots: the largest two-sided answer */
#define RECVS 16
#define MAX_POINTS 32
#define FRAME_RUNS 8            /* untimed lookups per kind whose frames are counted */
#define MAX_TRIES 1000          /* Fig. 10: reads of one object that may all be torn */
#define OP_SHUF 0x7e13ull       /* the shuffle kernel's */
#define SH_BITS 10              /* Fig. 11: 1024 partitions, the kernel's most */
#define SH_PARTS (1u << SH_BITS)
#define SH_BUF SNIC_SHUFFLE_BUF_TUPLES      /* tuples per software buffer: 128 bytes */
#define SH_MAX (1u << 20)       /* tuples: 8 MiB */
#define SH_HEAD (sizeof(struct snic_shuffle_params) + SH_PARTS * sizeof(struct snic_shuffle_part))
#define SH_CLEAR 0xee
#define SH_SQ 256               /* the shuffle QP's send queue: the software scheme's WRITEs */

const char tool_name[] = "strom-bench";

static uint64_t list_key(int i) { return 7000 + (uint64_t)i; }

/* Fig. 11's tuple i (splitmix64) and its partition */
static uint64_t sh_tuple(uint32_t i)
{
    uint64_t z = i + 0x9e3779b97f4a7c15ull * 3;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned sh_part(uint64_t v) { return (unsigned)v & (SH_PARTS - 1); }
static uint8_t val_byte(uint64_t k, unsigned i) { return (uint8_t)(k * 131 + i * 7 + (i >> 8) + 1); }

/* The two-sided request: look key up (list: kind 7; hash entry: kind 8), answer size bytes */
struct request {
    uint64_t key;
    uint32_t kind, size;
};

struct ctx {
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_comp_channel *ch;        /* server: it sleeps on CQ events */
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;               /* server: store, reply, receive slots; client: see below */
    struct ibv_mr *sh;          /* Fig. 11: server: the region; client: payload, buffers */
    uint8_t *shbuf;
    int ib_port, gidx;
    enum ibv_mtu mtu;
    union ibv_gid gid;
};

struct peer {
    uint32_t qpn, psn, rkey;
    uint64_t addr;
    union ibv_gid gid;
    uint64_t sh_addr;           /* Fig. 11: the server's region, 0 without a shuffle unit */
    uint32_t sh_rkey;
};

static void setup(struct ctx *c, const char *dev, size_t len, bool server)
{
    c->vctx = open_rdma_device(dev);
    query_port_gid(c->vctx, c->ib_port, c->gidx, &c->mtu, &c->gid);
    struct snicdv_device_attr da;
    int r = snicdv_query_device(c->vctx, &da, sizeof(da));
    if (r)
        fail("snicdv_query_device: %s (not a snic device?)", strerror(r));
    if (!(da.flags & SNICDV_DEVICE_RPC) ||
        (da.builtin_kernels & (1u << SNIC_KERNEL_TRAVERSAL | 1u << SNIC_KERNEL_CONSISTENCY)) !=
            (1u << SNIC_KERNEL_TRAVERSAL | 1u << SNIC_KERNEL_CONSISTENCY))
        fail("the device has no RPCs or lacks the traversal or consistency kernel");
    if (da.max_rpc_response < MAX_OBJ)
        fail("answers up to %u bytes: Fig. 9 needs %d", da.max_rpc_response, MAX_OBJ);
    c->pd = ibv_alloc_pd(c->vctx);
    c->ch = server ? ibv_create_comp_channel(c->vctx) : NULL;
    c->cq = ibv_create_cq(c->vctx, SH_SQ + 4 * RECVS, NULL, c->ch, 0);
    if (!c->pd || (server && !c->ch) || !c->cq)
        fail("ibv_alloc_pd/ibv_create_comp_channel/ibv_create_cq: %s", strerror(errno));
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
        .cap = { .max_send_wr = SH_SQ, .max_recv_wr = RECVS, .max_send_sge = 1, .max_recv_sge = 1 },
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
    send_msg("INFO %06x %06x %s %016" PRIx64 " %08x %016" PRIx64 " %08x", c->qp->qp_num, 0x100u, gs,
             (uint64_t)(uintptr_t)c->buf, c->mr->rkey, (uint64_t)(uintptr_t)c->shbuf, c->sh ? c->sh->rkey : 0);
    recv_msg(m, "INFO ");
    if (sscanf(m + 5, "%x %x %32s %" SCNx64 " %x %" SCNx64 " %x", &p->qpn, &p->psn, pg, &p->addr, &p->rkey,
               &p->sh_addr, &p->sh_rkey) != 7 || strlen(pg) != 32)
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

static void fill(uint8_t *b, uint64_t key, unsigned len)
{
    for (unsigned i = 0; i < len; i++)
        b[i] = val_byte(key, i);
}

/* An object of size bytes: its data, then the CRC-64/XZ of the data (little-endian) */
static void build_object(uint8_t *o, uint32_t size)
{
    fill(o, OBJ_KEY + size, size - 8);
    uint64_t crc = htole64(lzma_crc64(o, size - 8, 0));
    memcpy(o + size - 8, &crc, 8);
}

static bool object_ok(const uint8_t *o, uint32_t size)
{
    uint64_t crc;
    memcpy(&crc, o + size - 8, 8);
    return lzma_crc64(o, size - 8, 0) == le64toh(crc);
}

/* ---- server: the structures, the kernels, and the two-sided handler ------------------- */

static void build_store(struct ctx *c)
{
    uint8_t *s = c->buf;
    for (int i = 0; i < LIST_N; i++) {
        uint64_t *e = (uint64_t *)(s + LIST_OFF + ELEM * i);
        uint8_t *v = s + LVAL_OFF + LIST_VAL * i;
        e[0] = htole64(list_key(i));
        e[1] = htole64(i + 1 < LIST_N ? (uintptr_t)(e + ELEM / 8) : 0);
        e[2] = htole64((uintptr_t)v);
        fill(v, list_key(i), LIST_VAL);
    }
    uint64_t *h = (uint64_t *)(s + HT_OFF);
    h[0] = htole64(HASH_KEY);
    h[1] = htole64((uintptr_t)(s + HVAL_OFF));
    fill(s + HVAL_OFF, HASH_KEY, MAX_VAL);
    for (int k = 0; k < OBJ_SIZES; k++)
        build_object(s + OBJ_OFF + (size_t)k * MAX_OBJ, MIN_SIZE << k);
}

/* The two-sided server's work: find the value (the CPU walks the list), or NULL. */
static const uint8_t *serve(struct ctx *c, const struct request *rq, uint32_t *len)
{
    uint64_t key = le64toh(rq->key);
    if (le32toh(rq->kind) == 8) {
        const uint64_t *h = (const uint64_t *)(c->buf + HT_OFF);
        *len = le32toh(rq->size);
        return le64toh(h[0]) == key && *len <= MAX_VAL ? (const uint8_t *)(uintptr_t)le64toh(h[1]) : NULL;
    }
    const uint64_t *e = (const uint64_t *)(c->buf + LIST_OFF);
    while (e && le64toh(e[0]) != key)
        e = (const uint64_t *)(uintptr_t)le64toh(e[1]);
    *len = LIST_VAL;
    return e ? (const uint8_t *)(uintptr_t)le64toh(e[2]) : NULL;
}

/* Fig. 11, the server's side: "CLEAR" fills the region; "CHECK KIND N" checks it holds N
 * tuples in order (KIND 0) or partitioned, stable, each partition after the one before. */
static void shuffle_region(struct ctx *c, const char *m)
{
    unsigned kind, n;
    if (!c->sh)
        fail("Fig. 11: the client shuffles, but this device has no shuffle unit");
    if (!strncmp(m, "CLEAR", 5)) {
        memset(c->shbuf, SH_CLEAR, SH_MAX * 8);
        send_msg("CLEARED");
        return;
    }
    if (sscanf(m + 6, "%u %u", &kind, &n) != 2 || n > SH_MAX)
        fail("protocol: '%.60s'", m);
    static uint32_t at[SH_PARTS];
    uint32_t o = 0;
    if (kind) {
        memset(at, 0, sizeof(at));
        for (uint32_t i = 0; i < n; i++)
            at[sh_part(sh_tuple(i))]++;
        for (unsigned p = 0; p < SH_PARTS; p++) {
            uint32_t k = at[p];
            at[p] = o;
            o += k;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = sh_tuple(i), got;
        uint32_t slot = kind ? at[sh_part(v)]++ : i;
        memcpy(&got, c->shbuf + (size_t)slot * 8, 8);
        if (le64toh(got) != v)
            fail("Fig. 11 (%s): tuple %u at slot %u is %#" PRIx64 ", expected %#" PRIx64,
                 kind ? "partitioned" : "written", i, slot, (uint64_t)le64toh(got), v);
    }
    for (size_t b = (size_t)n * 8; b < (size_t)SH_MAX * 8; b++)
        if (c->shbuf[b] != SH_CLEAR)
            fail("Fig. 11: byte %zu past the %u tuples was written", b, n);
    send_msg("CHECKED");
}

static void run_server(struct ctx *c)
{
    uint8_t *reply = c->buf + STORE_LEN;        /* the two-sided answer */
    uint8_t *rx = reply + SLOT;                 /* RECVS receive slots */
    struct peer p;
    char m[MSG_LEN];
    int r, served = 0;

    build_store(c);
    if ((r = snicdv_deploy_kernel(c->vctx, OP_TRAV, SNIC_KERNEL_TRAVERSAL)) ||
        (r = snicdv_deploy_kernel(c->vctx, OP_CONS, SNIC_KERNEL_CONSISTENCY)))
        fail("snicdv_deploy_kernel: %s", strerror(r));
    struct snicdv_device_attr da;
    if ((r = snicdv_query_device(c->vctx, &da, sizeof(da))))
        fail("snicdv_query_device: %s", strerror(r));
    if (da.builtin_kernels & (1u << SNIC_KERNEL_SHUFFLE)) {
        /* Fig. 11's region: the tuples, unpartitioned or partitioned */
        c->shbuf = aligned_alloc(4096, SH_MAX * 8);
        if (!c->shbuf)
            fail("out of memory");
        c->sh = ibv_reg_mr(c->pd, c->shbuf, SH_MAX * 8, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
        if (!c->sh)
            fail("ibv_reg_mr(%u): %s", SH_MAX * 8, strerror(errno));
        if ((r = snicdv_deploy_kernel(c->vctx, OP_SHUF, SNIC_KERNEL_SHUFFLE)))
            fail("snicdv_deploy_kernel(shuffle): %s", strerror(r));
    }
    for (int i = 0; i < RECVS; i++)
        post_recv(c, rx + SLOT * i);
    connect_peer(c, &p);
    send_msg("READY");
    say("list of %d elements, hash entry, objects of 64 B .. 16 KiB; kernels on op-codes %#llx, %#llx",
        LIST_N, OP_TRAV, OP_CONS);

    /*
     * The two-sided baseline's server: a request in, the CPU finds the value, it goes out.
     * It sleeps on CQ events between requests, as an RPC server on a socket does (rpcgen in
     * the paper), rather than spin: a spinning guest CPU would take a host core from the
     * device emulation that serves the other methods' READs and RPCs.
     */
    if ((r = ibv_req_notify_cq(c->cq, 0)))
        fail("ibv_req_notify_cq: %s", strerror(r));
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
            if (wc.opcode != IBV_WC_RECV || wc.byte_len != sizeof(struct request))
                fail("unexpected completion opcode %#x, %u bytes", wc.opcode, wc.byte_len);
            uint8_t *slot = (uint8_t *)(uintptr_t)wc.wr_id;
            struct request rq;
            uint32_t len;
            memcpy(&rq, slot, sizeof(rq));
            post_recv(c, slot);
            const uint8_t *v = serve(c, &rq, &len);
            if (v)
                memcpy(reply, v, len);
            struct ibv_sge sge = { .addr = (uintptr_t)reply, .length = v ? len : 0, .lkey = c->mr->lkey };
            struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = v ? 1 : 0, .opcode = IBV_WR_SEND,
                                      .send_flags = IBV_SEND_SIGNALED }, *bad;
            if ((r = ibv_post_send(c->qp, &wr, &bad)))
                fail("ibv_post_send(SEND): %s", strerror(r));
            served++;
            continue;
        }
        struct pollfd pfd[2] = { { .fd = c->ch->fd, .events = POLLIN }, { .fd = sock, .events = POLLIN } };
        /* no timeout: READs and kernels leave the server CPU idle for whole phases; the
         * alarm bounds the run, and a client gone ends the socket */
        if (poll(pfd, 2, -1) < 0)
            fail("poll: %s", strerror(errno));
        if (pfd[0].revents) {
            struct ibv_cq *ev_cq;
            void *ev_ctx;
            if (ibv_get_cq_event(c->ch, &ev_cq, &ev_ctx))
                fail("ibv_get_cq_event: %s", strerror(errno));
            ibv_ack_cq_events(ev_cq, 1);
            /* re-armed before the CQ is drained: nothing completes unseen */
            if ((r = ibv_req_notify_cq(c->cq, 0)))
                fail("ibv_req_notify_cq: %s", strerror(r));
            continue;
        }
        if (!pfd[1].revents)
            continue;
        recv_msg(m, "");
        if (!strncmp(m, "CLEAR", 5) || !strncmp(m, "CHECK ", 6)) {
            shuffle_region(c, m);
            continue;
        }
        if (strncmp(m, "DONE ", 5))
            fail("protocol: unexpected message '%.60s'", m);
        if (atoi(m + 5) != served)
            fail("the client sent %d two-sided requests, the server served %d", atoi(m + 5), served);
        say("served %d two-sided requests", served);
        send_msg("BYE");
        return;
    }
}

/* ---- client ----------------------------------------------------------------------------- */

/* The client's buffer: READs and the kernels' answers land at land (MAX_OBJ bytes), the
 * RPC parameters and the two-sided request go in msg, then RECVS receive slots. */
struct client {
    struct ctx *c;
    struct peer p;
    uint8_t *land, *msg, *rx;
    uint32_t tag;
    int two_sided;
    uint64_t reads, asks;       /* Fig. 10: READs and RPCs its checked reads took */
    double hist;                /* Fig. 11: the last histogram pass, seconds */
};

static uint64_t remote(const struct client *cl, uint64_t off) { return cl->p.addr + off; }

static void check_value(const uint8_t *b, uint64_t key, unsigned len, const char *what)
{
    for (unsigned i = 0; i < len; i++)
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

/*
 * One RPC; its answer (a WRITE with immediate: status, tag) lands at land. Returns when the
 * answer arrived: the application has what it asked for then, whether or not the ACK of its
 * request (the send completion, drained here too) came first.
 */
static double rpc_status(struct client *cl, uint64_t op, const void *params, uint32_t plen, uint32_t want_len,
                         uint32_t *status)
{
    struct ctx *c = cl->c;
    memcpy(cl->msg, params, plen);
    uint32_t tag = ++cl->tag & 0xffffff;
    struct ibv_sge sge = { .addr = (uintptr_t)cl->msg, .length = plen, .lkey = c->mr->lkey };
    struct snicdv_rpc_wr w = {
        .wr_id = 2, .rpc_opcode = op, .rkey = cl->p.rkey, .resp_rkey = c->mr->rkey,
        .resp_addr = (uintptr_t)cl->land, .resp_len = MAX_OBJ, .tag = tag, .sg_list = &sge, .num_sge = 1,
        .send_flags = IBV_SEND_SIGNALED,
    };
    int r = snicdv_post_rpc(c->qp, &w);
    if (r)
        fail("snicdv_post_rpc: %s", strerror(r));
    bool sent = false;
    double answered = 0;
    while (!sent || !answered) {
        struct ibv_wc wc;
        poll_one(c, &wc, "RPC");
        if (wc.opcode == SNICDV_WC_RPC) {
            sent = true;
        } else if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.wc_flags & IBV_WC_WITH_IMM) {
            *status = snicdv_rpc_status(&wc);
            /* CHECKSUM with no data (the kernel ran out of retries): the caller decides */
            bool checksum = *status == SNIC_RPC_CHECKSUM && op == OP_CONS && !wc.byte_len;
            if (snicdv_rpc_tag(&wc) != tag || (!checksum && (*status != SNIC_RPC_OK || wc.byte_len != want_len)))
                fail("RPC %#" PRIx64 ": answer tag %#x status %u, %u bytes (expected tag %#x, OK, %u)", op,
                     snicdv_rpc_tag(&wc), *status, wc.byte_len, tag, want_len);
            answered = now_s();
            post_recv(c, (uint8_t *)(uintptr_t)wc.wr_id);
        } else {
            fail("RPC: unexpected completion opcode %#x", wc.opcode);
        }
    }
    return answered;
}

static double rpc(struct client *cl, uint64_t op, const void *params, uint32_t plen, uint32_t want_len)
{
    uint32_t status;
    double t = rpc_status(cl, op, params, plen, want_len, &status);
    if (status != SNIC_RPC_OK)
        fail("RPC %#" PRIx64 ": status %u", op, status);
    return t;
}

static double traverse(struct client *cl, uint64_t start, uint64_t key, uint32_t vsize, uint8_t npos)
{
    struct snic_traversal_params tp = {
        .remote_address = htole64(start), .key = htole64(key), .value_size = htole32(vsize),
        .key_mask = htole16(1), .predicate = SNIC_TRAV_EQUAL, .value_ptr_pos = npos ? 4 : 2,
        .flags = npos ? SNIC_TRAV_NEXT_VALID : 0, .next_ptr_pos = npos,
    };
    return rpc(cl, OP_TRAV, &tp, sizeof(tp), vsize);
}

/* Two-sided: SEND the request; the server's CPU answers with a SEND of len bytes. The
 * answer's slot; *at: when it arrived (as rpc()'s). */
static const uint8_t *ask(struct client *cl, uint64_t key, uint32_t kind, uint32_t len, double *at)
{
    struct ctx *c = cl->c;
    struct request rq = { .key = htole64(key), .kind = htole32(kind), .size = htole32(len) };
    memcpy(cl->msg, &rq, sizeof(rq));
    struct ibv_sge sge = { .addr = (uintptr_t)cl->msg, .length = sizeof(rq), .lkey = c->mr->lkey };
    struct ibv_send_wr wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                              .send_flags = IBV_SEND_SIGNALED }, *bad;
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
            if (wc.byte_len != len)
                fail("two-sided: a %u-byte answer, expected %u", wc.byte_len, len);
            answer = (uint8_t *)(uintptr_t)wc.wr_id;
            *at = now_s();
        } else {
            fail("two-sided: unexpected completion opcode %#x", wc.opcode);
        }
    }
    cl->two_sided++;
    return answer;
}

/* The methods; each returns its latency in seconds after checking the answer. */
static double list_by_reads(struct client *cl, int len)
{
    uint64_t at = remote(cl, LIST_OFF), key = list_key(len - 1), e[3];
    double t0 = now_s();
    for (int i = 0; i < len; i++) {
        rdma_read(cl, at, ELEM);
        memcpy(e, cl->land, sizeof(e));
        at = le64toh(e[1]);
    }
    rdma_read(cl, le64toh(e[2]), LIST_VAL);
    double t = now_s() - t0;
    if (le64toh(e[0]) != key)
        fail("READ chain: element %d has key %" PRIu64 ", expected %" PRIu64, len, le64toh(e[0]), key);
    check_value(cl->land, key, LIST_VAL, "READ chain");
    return t;
}

static double list_by_kernel(struct client *cl, int len)
{
    double t0 = now_s();
    double t = traverse(cl, remote(cl, LIST_OFF), list_key(len - 1), LIST_VAL, 2) - t0;
    check_value(cl->land, list_key(len - 1), LIST_VAL, "list kernel");
    return t;
}

static double list_two_sided(struct client *cl, int len)
{
    double t0 = now_s(), at;
    const uint8_t *a = ask(cl, list_key(len - 1), 7, LIST_VAL, &at);
    double t = at - t0;
    check_value(a, list_key(len - 1), LIST_VAL, "list two-sided");
    post_recv(cl->c, (uint8_t *)a);
    return t;
}

static double get_by_reads(struct client *cl, int size)
{
    uint64_t e[2];
    double t0 = now_s();
    rdma_read(cl, remote(cl, HT_OFF), ELEM);
    memcpy(e, cl->land, sizeof(e));
    rdma_read(cl, le64toh(e[1]), (uint32_t)size);
    double t = now_s() - t0;
    if (le64toh(e[0]) != HASH_KEY)
        fail("two READs: the entry has key %" PRIu64, le64toh(e[0]));
    check_value(cl->land, HASH_KEY, (unsigned)size, "two READs");
    return t;
}

static double get_by_kernel(struct client *cl, int size)
{
    double t0 = now_s();
    double t = traverse(cl, remote(cl, HT_OFF), HASH_KEY, (uint32_t)size, 0) - t0;
    check_value(cl->land, HASH_KEY, (unsigned)size, "GET kernel");
    return t;
}

static double get_two_sided(struct client *cl, int size)
{
    double t0 = now_s(), at;
    const uint8_t *a = ask(cl, HASH_KEY, 8, (uint32_t)size, &at);
    double t = at - t0;
    check_value(a, HASH_KEY, (unsigned)size, "GET two-sided");
    post_recv(cl->c, (uint8_t *)a);
    return t;
}

static uint64_t object_at(const struct client *cl, int size)
{
    return remote(cl, OBJ_OFF + (uint64_t)(__builtin_ctz((unsigned)size) - __builtin_ctz(MIN_SIZE)) * MAX_OBJ);
}

static void check_object(const struct client *cl, int size, const char *what)
{
    check_value(cl->land, OBJ_KEY + (unsigned)size, (unsigned)size - 8, what);
    if (!object_ok(cl->land, (uint32_t)size))
        fail("%s: the %d-byte object's CRC does not match", what, size);
}

static double obj_read(struct client *cl, int size)
{
    double t0 = now_s();
    rdma_read(cl, object_at(cl, size), (uint32_t)size);
    double t = now_s() - t0;
    check_object(cl, size, "READ");
    return t;
}

/* READ, then the client's CPU checks the CRC (reading again on a mismatch, as a reader
 * racing a writer must; nothing writes here, so once) */
static double obj_read_crc(struct client *cl, int size)
{
    double t0 = now_s();
    for (int n = 0;; n++) {
        if (n == MAX_TRIES)
            fail("READ + CRC: the %d-byte object still torn after %d READs", size, n);
        rdma_read(cl, object_at(cl, size), (uint32_t)size);
        cl->reads++;
        if (object_ok(cl->land, (uint32_t)size))
            break;
    }
    double t = now_s() - t0;
    check_object(cl, size, "READ + CRC");
    return t;
}

static double obj_kernel(struct client *cl, int size)
{
    struct snic_consistency_params cp = {
        .remote_address = htole64(object_at(cl, size)), .object_size = htole32((uint32_t)size),
        .max_retries = htole16(SNIC_CONSISTENCY_MAX_RETRIES),
    };
    uint32_t status;
    double t0 = now_s(), t;
    for (int n = 0;; n++) {
        if (n == MAX_TRIES)
            fail("consistency kernel: the %d-byte object still torn after %d RPCs", size, n);
        t = rpc_status(cl, OP_CONS, &cp, sizeof(cp), (uint32_t)size, &status) - t0;
        cl->asks++;
        if (status != SNIC_RPC_CHECKSUM)
            break;
    }
    check_object(cl, size, "consistency kernel");
    return t;
}

/* Fig. 10: average latency of the two checked reads, the server's device tearing pct % */
static void fig10(struct client *cl, const int *sizes, int n, int iters, int pct)
{
    if (n)
        say("fig10,object_bytes,failure_pct,readsw_avg_us,strom_avg_us,readsw_reads,strom_asks");
    for (int p = 0; p < n; p++) {
        double sw = 0, st = 0;
        cl->reads = cl->asks = 0;
        for (int i = 0; i < iters; i++)
            sw += obj_read_crc(cl, sizes[p]);
        for (int i = 0; i < iters; i++)
            st += obj_kernel(cl, sizes[p]);
        say("fig10,%d,%d,%.3f,%.3f,%.3f,%.3f", sizes[p], pct, sw / iters * 1e6, st / iters * 1e6,
            (double)cl->reads / iters, (double)cl->asks / iters);
    }
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

typedef double method_fn(struct client *cl, int x);

/* Frames per operation of one method: counted over FRAME_RUNS, nothing else in flight. */
static double frames_per(struct client *cl, method_fn *m, int x)
{
    uint64_t f0 = port_frames(cl->c);
    for (int i = 0; i < FRAME_RUNS; i++)
        m(cl, x);
    return (double)(port_frames(cl->c) - f0) / FRAME_RUNS;
}

/* ---- Fig. 11 ---- */

/* The client's shuffle memory (c->shbuf): the RPC WRITE's payload (parameters, histogram,
 * the tuples: the plain WRITE sends these alone), then two 16-tuple buffers per partition. */
static uint8_t *sh_tuples(struct ctx *c) { return c->shbuf + SH_HEAD; }
static uint64_t *sh_swbuf(struct ctx *c, unsigned p, unsigned k)
{
    return (uint64_t *)(c->shbuf + SH_HEAD + (size_t)SH_MAX * 8) + ((size_t)p * 2 + k) * SH_BUF;
}

static void sh_server(const char *msg, const char *want)
{
    char m[MSG_LEN];
    send_msg("%s", msg);
    recv_msg(m, want);
}

/* The client's histogram pass: tuples per partition, and each partition's first slot. */
static void sh_histogram(const uint64_t *t, uint32_t n, uint32_t *count, uint32_t *start)
{
    memset(count, 0, SH_PARTS * sizeof(*count));
    for (uint32_t i = 0; i < n; i++)
        count[sh_part(le64toh(t[i]))]++;
    for (uint32_t p = 0, o = 0; p < SH_PARTS; p++) {
        start[p] = o;
        o += count[p];
    }
}

static void sh_post_write(struct client *cl, uint64_t wr_id, const void *from, uint32_t len, uint64_t to)
{
    struct ctx *c = cl->c;
    struct ibv_sge sge = { .addr = (uintptr_t)from, .length = len, .lkey = c->sh->lkey };
    struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                              .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = { .remote_addr = to, .rkey = cl->p.sh_rkey } }, *bad;
    int r = ibv_post_send(c->qp, &wr, &bad);
    if (r)
        fail("ibv_post_send(WRITE): %s", strerror(r));
}

/* The methods, each between the server's CLEAR and CHECK (untimed) */
static double sh_write(struct client *cl, int n)
{
    struct ibv_wc wc;
    sh_server("CLEAR", "CLEARED");
    double t0 = now_s();
    sh_post_write(cl, 11, sh_tuples(cl->c), (uint32_t)n * 8, cl->p.sh_addr);
    poll_one(cl->c, &wc, "Fig. 11 WRITE");
    double t = now_s() - t0;
    char m[32];
    snprintf(m, sizeof(m), "CHECK 0 %d", n);
    sh_server(m, "CHECKED");
    return t;
}

static double sh_kernel(struct client *cl, int n)
{
    struct ctx *c = cl->c;
    uint32_t count[SH_PARTS], start[SH_PARTS], tag = ++cl->tag & 0xffffff;
    sh_server("CLEAR", "CLEARED");
    double t0 = now_s();
    sh_histogram((const uint64_t *)sh_tuples(c), (uint32_t)n, count, start);
    cl->hist = now_s() - t0;
    struct snic_shuffle_params prm = { .bits = SH_BITS, .shift = 0 };
    memcpy(c->shbuf, &prm, sizeof(prm));
    struct snic_shuffle_part *h = (struct snic_shuffle_part *)(c->shbuf + sizeof(prm));
    for (unsigned p = 0; p < SH_PARTS; p++)
        h[p] = (struct snic_shuffle_part) { .base = htole64(cl->p.sh_addr + (uint64_t)start[p] * 8),
                                            .capacity = htole32(count[p]) };
    struct ibv_sge sge = { .addr = (uintptr_t)c->shbuf, .length = SH_HEAD + (uint32_t)n * 8, .lkey = c->sh->lkey };
    struct snicdv_rpc_wr w = {
        .wr_id = 12, .rpc_opcode = OP_SHUF, .rkey = cl->p.sh_rkey, .resp_rkey = c->mr->rkey,
        .resp_addr = (uintptr_t)cl->land, .resp_len = SH_PARTS * 4, .tag = tag, .sg_list = &sge, .num_sge = 1,
        .send_flags = IBV_SEND_SIGNALED,
    };
    int r = snicdv_post_rpc_write(c->qp, &w);
    if (r)
        fail("snicdv_post_rpc_write: %s", strerror(r));
    bool sent = false;
    double answered = 0;
    while (!sent || !answered) {
        struct ibv_wc wc;
        poll_one(c, &wc, "Fig. 11 shuffle");
        if (wc.opcode == SNICDV_WC_RPC) {
            sent = true;
        } else if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.wc_flags & IBV_WC_WITH_IMM) {
            if (snicdv_rpc_tag(&wc) != tag || snicdv_rpc_status(&wc) != SNIC_RPC_OK ||
                wc.byte_len != SH_PARTS * 4)
                fail("shuffle: answer tag %#x status %u, %u bytes (expected tag %#x, OK, %u)",
                     snicdv_rpc_tag(&wc), snicdv_rpc_status(&wc), wc.byte_len, tag, SH_PARTS * 4);
            answered = now_s();
            post_recv(c, (uint8_t *)(uintptr_t)wc.wr_id);
        } else {
            fail("shuffle: unexpected completion opcode %#x", wc.opcode);
        }
    }
    double t = answered - t0;
    for (unsigned p = 0; p < SH_PARTS; p++) {
        uint32_t f;
        memcpy(&f, cl->land + 4 * p, 4);
        if (le32toh(f) != count[p])
            fail("shuffle: partition %u's fill is %u, expected %u", p, le32toh(f), count[p]);
    }
    char m[32];
    snprintf(m, sizeof(m), "CHECK 1 %d", n);
    sh_server(m, "CHECKED");
    return t;
}

/* Fig. 11's software scheme: its WRITEs carry their number from 1 as wr_id and complete in
 * order; done is the last completed. */
struct sh_sw {
    uint32_t count[SH_PARTS], start[SH_PARTS], fill[SH_PARTS], written[SH_PARTS];
    uint64_t busy[SH_PARTS][2];     /* the WRITE that last took each buffer */
    uint64_t posted, done;
};

static void sh_sw_wait(struct client *cl, struct sh_sw *w, uint64_t upto)
{
    struct ibv_wc wc;
    while (w->done < upto) {
        poll_one(cl->c, &wc, "Fig. 11 software WRITE");
        w->done = wc.wr_id;
    }
}

/* WRITE partition p's current buffer (f tuples) to where its next tuples go */
static void sh_sw_flush(struct client *cl, struct sh_sw *w, unsigned p, uint32_t f)
{
    unsigned k = (w->written[p] / SH_BUF) & 1;
    if (w->posted - w->done >= SH_SQ)
        sh_sw_wait(cl, w, w->posted - SH_SQ + 1);
    sh_post_write(cl, ++w->posted, sh_swbuf(cl->c, p, k), f * 8,
                  cl->p.sh_addr + (uint64_t)(w->start[p] + w->written[p]) * 8);
    w->busy[p][k] = w->posted;
    w->written[p] += f;
}

static double sh_sw(struct client *cl, int n)
{
    const uint64_t *t = (const uint64_t *)sh_tuples(cl->c);
    static struct sh_sw w;
    sh_server("CLEAR", "CLEARED");
    double t0 = now_s();
    memset(&w, 0, sizeof(w));
    sh_histogram(t, (uint32_t)n, w.count, w.start);
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        unsigned p = sh_part(le64toh(t[i]));
        unsigned k = (w.written[p] / SH_BUF) & 1;
        uint32_t f = w.fill[p] - w.written[p];
        if (!f)
            sh_sw_wait(cl, &w, w.busy[p][k]);  /* the buffer's last WRITE has read it */
        sh_swbuf(cl->c, p, k)[f] = t[i];
        w.fill[p]++;
        if (f + 1 == SH_BUF)
            sh_sw_flush(cl, &w, p, SH_BUF);
    }
    for (unsigned p = 0; p < SH_PARTS; p++)
        if (w.fill[p] > w.written[p])
            sh_sw_flush(cl, &w, p, w.fill[p] - w.written[p]);
    sh_sw_wait(cl, &w, w.posted);
    double el = now_s() - t0;
    char m[32];
    snprintf(m, sizeof(m), "CHECK 1 %d", n);
    sh_server(m, "CHECKED");
    return el;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ",median,1st,99th percentile" in microseconds, as strom-repro's CSVs */
static void stats(char *out, size_t n, double *t, int iters)
{
    qsort(t, (size_t)iters, sizeof(*t), cmp_double);
    snprintf(out, n, ",%.3f,%.3f,%.3f", t[iters / 2] * 1e6, t[iters / 100] * 1e6,
             t[iters - 1 - iters / 100] * 1e6);
}

/* One figure: per point, each method's iterations in turn (as the paper measures them),
 * a CSV row of their statistics, and for Fig. 7 their frames. */
static void figure(struct client *cl, const char *header, int fig, const int *xs, int nx, int iters,
                   method_fn *m[3], bool frames)
{
    double *t[3];
    for (int k = 0; k < 3; k++)
        if (!(t[k] = calloc((size_t)iters, sizeof(double))))
            fail("out of memory");
    if (nx)
        say("fig%d,%s", fig, header);
    for (int p = 0; p < nx; p++) {
        char row[256], *at = row;
        at += snprintf(row, sizeof(row), "fig%d,%d", fig, xs[p]);
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < iters; i++)
                t[k][i] = m[k](cl, xs[p]);
        for (int k = 0; k < 3; k++) {
            stats(at, sizeof(row) - (size_t)(at - row), t[k], iters);
            at += strlen(at);
        }
        for (int k = 0; frames && k < 3; k++)
            at += snprintf(at, sizeof(row) - (size_t)(at - row), ",%.2f", frames_per(cl, m[k], xs[p]));
        say("%s", row);
    }
    for (int k = 0; k < 3; k++)
        free(t[k]);
}

/* Fig. 11: as figure(), and the median of the kernel method's histogram pass */
static void fig11(struct client *cl, const int *xs, int nx, int iters)
{
    method_fn *m[3] = { sh_write, sh_kernel, sh_sw };
    double *t[4];
    for (int k = 0; k < 4; k++)
        if (!(t[k] = calloc((size_t)iters, sizeof(double))))
            fail("out of memory");
    say("fig11,tuples,write_med_us,write_p1_us,write_p99_us,strom_med_us,strom_p1_us,strom_p99_us,"
        "sw_write_med_us,sw_write_p1_us,sw_write_p99_us,hist_med_us");
    for (int p = 0; p < nx; p++) {
        char row[256], *at = row;
        at += snprintf(row, sizeof(row), "fig11,%d", xs[p]);
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < iters; i++) {
                t[k][i] = m[k](cl, xs[p]);
                if (k == 1)
                    t[3][i] = cl->hist;
            }
        for (int k = 0; k < 3; k++) {
            stats(at, sizeof(row) - (size_t)(at - row), t[k], iters);
            at += strlen(at);
        }
        qsort(t[3], (size_t)iters, sizeof(double), cmp_double);
        snprintf(at, sizeof(row) - (size_t)(at - row), ",%.3f", t[3][iters / 2] * 1e6);
        say("%s", row);
    }
    for (int k = 0; k < 4; k++)
        free(t[k]);
}

struct points {
    int l[MAX_POINTS], v[MAX_POINTS], o[MAX_POINTS], t[MAX_POINTS], s[MAX_POINTS];
    int nl, nv, no, nt, ns;
    int torn_pct;               /* -P: VM b's x-torn-reads, for Fig. 10's rows */
};

static void run_client(struct ctx *c, const struct points *pt, int iters)
{
    struct client cl = { .c = c, .land = c->buf, .msg = c->buf + MAX_OBJ, .rx = c->buf + MAX_OBJ + 4096 };
    char m[MSG_LEN], s[64];
    double *t = calloc((size_t)iters, sizeof(double));
    if (!t)
        fail("out of memory");
    for (int i = 0; i < RECVS; i++)
        post_recv(c, cl.rx + SLOT * i);
    connect_peer(c, &cl.p);
    recv_msg(m, "READY");

    /* after a warm-up (the first operations of a run fault pages in and fill caches) */
    for (int i = 0; i < 2 * iters; i++) {
        double t0 = now_s();
        rdma_read(&cl, remote(&cl, LIST_OFF), ELEM);
        t[i % iters] = now_s() - t0;
    }
    stats(s, sizeof(s), t, iters);
    say("rtt%s", s);
    free(t);

    method_fn *f7[3] = { list_by_reads, list_by_kernel, list_two_sided };
    method_fn *f8[3] = { get_by_reads, get_by_kernel, get_two_sided };
    method_fn *f9[3] = { obj_read, obj_read_crc, obj_kernel };
    figure(&cl, "length,read_med_us,read_p1_us,read_p99_us,strom_med_us,strom_p1_us,strom_p99_us,"
           "rpc_med_us,rpc_p1_us,rpc_p99_us,read_frames,strom_frames,rpc_frames", 7, pt->l, pt->nl, iters, f7, true);
    figure(&cl, "value_bytes,read2_med_us,read2_p1_us,read2_p99_us,strom_med_us,strom_p1_us,strom_p99_us,"
           "rpc_med_us,rpc_p1_us,rpc_p99_us", 8, pt->v, pt->nv, iters, f8, false);
    figure(&cl, "object_bytes,read_med_us,read_p1_us,read_p99_us,readsw_med_us,readsw_p1_us,readsw_p99_us,"
           "strom_med_us,strom_p1_us,strom_p99_us", 9, pt->o, pt->no, iters, f9, false);
    fig10(&cl, pt->t, pt->nt, iters, pt->torn_pct);
    if (pt->ns) {
        if (!cl.p.sh_rkey)
            fail("Fig. 11: the server's device has no shuffle unit (-global snic.shuffle-units=1)");
        for (uint32_t i = 0; i < SH_MAX; i++)
            ((uint64_t *)sh_tuples(c))[i] = htole64(sh_tuple(i));
        fig11(&cl, pt->s, pt->ns, iters);
    }
    send_msg("DONE %d", cl.two_sided);
    recv_msg(m, "BYE");
    say("%d operations of each method answered with the right data",
        (iters + FRAME_RUNS) * pt->nl + iters * (pt->nv + pt->no + pt->nt + pt->ns));
}

/* "1,2,4": each in lo..hi, powers of two if pow2; "" is no point. -1 on a bad list. */
static int parse_list(const char *s, int *out, int lo, int hi, bool pow2)
{
    int n = 0;
    for (char *end; *s; s = *end ? end + 1 : end) {
        long v = strtol(s, &end, 10);
        if (n == MAX_POINTS || end == s || (*end && *end != ',') || v < lo || v > hi ||
            (pow2 && (v & (v - 1))))
            return -1;
        out[n++] = (int)v;
    }
    return n;
}

int main(int argc, char **argv)
{
    struct vm_opts o = { .gidx = -1, .port = 18540, .ib_port = 1 };
    struct points pt;
    const char *L = "1,2,4,8,16,32", *V = "64,256,1024,4096", *O = "64,256,1024,4096,16384", *T = "", *S = "";
    int iters = 100, opt;
    pt.torn_pct = 0;
    while ((opt = getopt(argc, argv, VM_OPTS "n:L:V:O:T:P:S:h")) != -1) {
        if (vm_opt(&o, opt, optarg))
            continue;
        switch (opt) {
        case 'n': iters = atoi(optarg); break;
        case 'L': L = optarg; break;
        case 'V': V = optarg; break;
        case 'O': O = optarg; break;
        case 'T': T = optarg; break;
        case 'P': pt.torn_pct = atoi(optarg); break;
        case 'S': S = optarg; break;
        default:
            goto usage;
        }
    }
    pt.nl = parse_list(L, pt.l, 1, LIST_N, false);
    pt.nv = parse_list(V, pt.v, MIN_SIZE, MAX_VAL, true);
    pt.no = parse_list(O, pt.o, MIN_SIZE, MAX_OBJ, true);
    pt.nt = parse_list(T, pt.t, MIN_SIZE, MAX_OBJ, true);
    pt.ns = parse_list(S, pt.s, 1, SH_MAX, true);
    struct ctx c = { .ib_port = o.ib_port, .gidx = o.gidx };
    if (c.gidx < 0 || timeout_s <= 0 || iters < 1 || pt.nl < 0 || pt.nv < 0 || pt.no < 0 || pt.nt < 0 || pt.ns < 0 ||
        pt.torn_pct < 0 || pt.torn_pct > 100 || optind < argc - 1)
        goto usage;
    bool client = optind == argc - 1;
    role = client ? "client" : "server";
    arm_alarm((unsigned)(20 * timeout_s));
    if (client) {
        setup(&c, o.dev, MAX_OBJ + 4096 + RECVS * SLOT, false);
        if (pt.ns) {
            size_t len = SH_HEAD + (size_t)SH_MAX * 8 + (size_t)SH_PARTS * 2 * SH_BUF * 8;
            c.shbuf = aligned_alloc(4096, len);
            if (!c.shbuf)
                fail("out of memory");
            c.sh = ibv_reg_mr(c.pd, c.shbuf, len, IBV_ACCESS_LOCAL_WRITE);
            if (!c.sh)
                fail("ibv_reg_mr(%zu): %s", len, strerror(errno));
        }
        tcp_client(argv[optind], o.port);
        run_client(&c, &pt, iters);
    } else {
        setup(&c, o.dev, STORE_LEN + SLOT + RECVS * SLOT, true);
        tcp_server(o.port);
        run_server(&c);
    }
    say("PASS");
    return 0;
usage:
    fprintf(stderr, "usage: %s [-d DEV] -g GID-INDEX [-p TCP-PORT (18540)] [-i IB-PORT (1)] [-t SECS (30)] "
                    "[-n ITERS (100)] [-L LENGTHS (1,2,4,8,16,32; 1..%d)] [-V SIZES (64,256,1024,4096)] "
                    "[-O SIZES (64,256,1024,4096,16384)] [-T SIZES (none) -P PCT (0)] [-S TUPLES (none)] "
                    "[SERVER-IPv4]\n"
                    "  without SERVER-IPv4: the server; with it: the client\n", argv[0], LIST_N);
    return 2;
}
