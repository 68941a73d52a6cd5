// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rpc-check: StRoM RPCs and NIC kernels end to end between two hosts through libsnic's
 * direct verbs (snicdv.h): the server builds data structures in registered memory, the
 * client looks keys up with snicdv_post_rpc and checks every answer by content. The
 * out-of-band exchange goes over TCP like ibv_rc_pingpong's.
 *
 *   server:  rpc-check [-d DEV] -g GIDX [-p PORT] [-i IBPORT] [-t SECS]
 *   client:  rpc-check [same options] SERVER-IP
 *
 * The server's memory (one MR, "store", REMOTE_READ) holds a linked list of 32 elements
 * ([K 0][N 2][V 4], 64-byte values), a Pilaf-style hash table of 16 buckets with three
 * key slots each and overflow chains ([K 0][V 2][K 4][V 6][K 8][V 10][N 12], relative
 * value positions, 128-byte values) holding 100 keys, and a three-level skip list of 48
 * keys ([K 0][V 2][FK2 4][FK1 6][FK0 8][F2 10][F1 12][F0 14], routing by LESS_EQUAL; see
 * hw/snic/core/strom/traversal.c); plus a cycle of 8 elements and elements pointing into
 * a second MR ("secret", also REMOTE_READ, another R_Key). The server deploys the
 * traversal kernel for RPC op-code OP_TRAV and enables RPC on two QPs before RTR: QP 1
 * with the user-space fallback handler, QP 2 without. Checks (client side, each RPC
 * answered by an RDMA WRITE with immediate whose status and tag are checked):
 *   a. list: every element 1..32 by key (a walk of 1..32 elements), value by content;
 *      a missing key -> SNIC_RPC_NOT_FOUND.
 *   b. hash table: 34 of its keys, value by content; a missing key -> NOT_FOUND.
 *   c. skip list: 16 of its keys, the parameters posted inline from an unregistered buffer
 *      cleared after posting; a key between two -> NOT_FOUND.
 *   d. malicious parameters: the first element in the secret MR, a next pointer into it, a
 *      value pointer into it -> SNIC_RPC_PROT_ERR with no byte written (the response slot
 *      keeps its fill, none of the secret's bytes arrive); the cycle -> STEP_LIMIT; a
 *      valueSize of 1 GiB -> BAD_PARAMS; one longer than the response buffer ->
 *      RESP_TOO_LONG; then a valid lookup still answers (the server keeps serving).
 *   e. fallback: an op-code with no kernel on QP 1 is answered by the server's handler
 *      (SNICDV_WC_RECV_RPC with struct snic_rpc_recv, answered with snicdv_rpc_reply):
 *      data and status OK for one key, NOT_FOUND for another; on QP 2 (no handler) the
 *      device answers SNIC_RPC_NO_KERNEL.
 *   f. undeploy: after the server's snicdv_undeploy_kernel(OP_TRAV), a list lookup on QP 2
 *      gets NO_KERNEL.
 *   g. QP 3, connected without RPC on either end: snicdv_post_rpc refuses it (EINVAL, the
 *      extension never reaches that wire); an RDMA READ on it reads the list's head.
 *   h. shuffle (when the server's device has a shuffle unit, as -global snic.shuffle-units=1
 *      gives it; -S requires one): the server deploys the shuffle kernel and a third MR
 *      ("parts", REMOTE_WRITE) for 64 partitions with an 8-byte canary before, between and
 *      after them; the client sends 12000 tuples in one RPC WRITE (snicdv_post_rpc_write:
 *      parameters, histogram, tuples) three times: partition 0 one tuple short ->
 *      SNIC_RPC_PARTITION_FULL with the fills; the right histogram -> OK with every
 *      partition's fill; other tuples with a partition in the secret MR -> PROT_ERR, no
 *      byte written. The server then checks every partition byte for byte against a
 *      stable software radix partition and every canary.
 * The server checks the API's errors too: a second deploy of OP_TRAV -> EEXIST, an unknown
 * kernel -> EINVAL, undeploying an op-code never deployed -> ENOENT, snicdv_qp_set_rpc on a
 * connected QP -> EINVAL; and that it served
 * exactly the fallback RPCs the client sent.
 *
 * Every wait has a deadline (-t, default 30 s); prints each check; exits 0 when all passed,
 * 1 on any failure, 2 on a usage error.
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
#define OP_FB 0x5eedull         /* an op-code with no kernel: the fallback's */
#define STORE_LEN (256 * 1024)
#define SECRET_LEN 4096
#define SECRET_BYTE 0x5a
#define LIST_N 32
#define LIST_OFF 0x0
#define CYCLE_OFF 0x1000
#define EVIL_NEXT_OFF 0x2000
#define EVIL_VAL_OFF 0x3000
#define HASH_OFF 0x4000
#define HASH_BUCKETS 16
#define HASH_OVF_OFF 0x6000
#define HASH_N 100
#define SKIP_OFF 0x8000
#define SKIP_N 48
#define VAL_OFF 0x10000
#define VAL_SLOT 256
#define LIST_VAL 64
#define HASH_VAL 128
#define SKIP_VAL 64
#define NONE UINT64_MAX         /* an empty key slot / no forward node */
#define RESP_SLOT 4096
#define RESP_SLOTS 8
#define FILL 0xee
#define RECVS 64
#define FB_ANSWER 48
#define OP_SHUF 0x5bffull       /* the shuffle kernel's RPC op-code */
#define SH_BITS 6
#define SH_PARTS (1u << SH_BITS)
#define SH_SHIFT 3
#define SH_N 12000              /* tuples: 96000 bytes, many packets */
#define SH_CANARY 0xc3
#define SH_PAYLOAD (sizeof(struct snic_shuffle_params) + SH_PARTS * sizeof(struct snic_shuffle_part) + SH_N * 8)

const char tool_name[] = "rpc-check";

/* ---- the data both sides know ---------------------------------------------------------- */

/* Byte i of key k's value */
static uint8_t val_byte(uint64_t k, unsigned i)
{
    return (uint8_t)((k * 0x9e3779b1u) >> (i % 24)) ^ (uint8_t)(i * 7);
}

static uint64_t list_key(int i) { return 1000 + (uint64_t)i; }
static uint64_t hash_key(int i) { return 5000 + 7 * (uint64_t)i; }
static uint64_t skip_key(int i) { return 20000 + 3 * (uint64_t)i; }     /* i = 1 .. SKIP_N */
static unsigned hash_bucket(uint64_t k) { return (unsigned)(((uint32_t)k * 2654435761u) >> 28); }

/* The shuffle's tuple i of a set (splitmix64) and its partition */
static uint64_t sh_tuple(uint64_t set, uint32_t i)
{
    uint64_t z = set * 0x100000000ull + i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned sh_part(uint64_t v) { return (unsigned)(v >> SH_SHIFT) & (SH_PARTS - 1); }

/* Tuples per partition, and each partition's offset in the parts region: a canary of 8
 * bytes before each partition and after the last. Returns the region's length. */
static size_t sh_layout(uint32_t count[SH_PARTS], size_t off[SH_PARTS])
{
    size_t o = 8;
    memset(count, 0, SH_PARTS * sizeof(*count));
    for (uint32_t i = 0; i < SH_N; i++)
        count[sh_part(sh_tuple(1, i))]++;
    for (unsigned p = 0; p < SH_PARTS; p++) {
        off[p] = o;
        o += (size_t)count[p] * 8 + 8;
    }
    return o;
}

/* ---- verbs ------------------------------------------------------------------------------ */

#define NQP 3                   /* QP 1: RPC + fallback, QP 2: RPC, QP 3: no RPC */
struct ctx {
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp[NQP];
    struct ibv_mr *mr;          /* server: store; client: params + responses */
    struct ibv_mr *mr2;         /* server: secret; client: unused */
    struct ibv_mr *io;          /* server: fallback receive and reply buffers */
    struct ibv_mr *sh;          /* server: the shuffle's partitions; client: its payload */
    uint8_t *buf, *buf2, *iobuf, *shbuf;
    bool shuffle;               /* the device has a shuffle unit */
    int ib_port, gidx;
    enum ibv_mtu mtu;
    union ibv_gid gid;
};

struct peer {
    uint32_t qpn[NQP], psn[NQP];
    union ibv_gid gid;
    uint64_t store, secret;
    uint32_t rkey;
};

static void open_device(struct ctx *c, const char *devname)
{
    int r;
    c->vctx = open_rdma_device(devname);
    query_port_gid(c->vctx, c->ib_port, c->gidx, &c->mtu, &c->gid);

    struct snicdv_device_attr da;
    r = snicdv_query_device(c->vctx, &da, sizeof(da));
    if (r)
        fail("snicdv_query_device: %s (not a snic device?)", strerror(r));
    if (!(da.flags & SNICDV_DEVICE_RPC) || !(da.builtin_kernels & (1u << SNIC_KERNEL_TRAVERSAL)))
        fail("the device has no RPCs or no traversal kernel (flags %#x, kernels %#x)", da.flags,
             da.builtin_kernels);
    say("RPCs: kernels %#x, %u slots (%u per QP), %u deployments, answers up to %u bytes, %u steps",
        da.builtin_kernels, da.rpc_slots, da.max_rpc_per_qp, da.max_kernels, da.max_rpc_response,
        da.kernel_max_steps);
    if (da.max_rpc_response < RESP_SLOT || da.max_rpc_response >= (1u << 30))
        fail("max_rpc_response %u: this test needs %d .. 1 GiB", da.max_rpc_response, RESP_SLOT);
    c->shuffle = da.builtin_kernels & (1u << SNIC_KERNEL_SHUFFLE);
}

static struct ibv_mr *reg(struct ctx *c, uint8_t **buf, size_t len, int access)
{
    *buf = aligned_alloc(4096, len);
    if (!*buf)
        fail("out of memory");
    memset(*buf, 0, len);
    struct ibv_mr *mr = ibv_reg_mr(c->pd, *buf, len, access);
    if (!mr)
        fail("ibv_reg_mr(%zu): %s", len, strerror(errno));
    return mr;
}

static void create_qps(struct ctx *c)
{
    c->pd = ibv_alloc_pd(c->vctx);
    c->cq = ibv_create_cq(c->vctx, 256, NULL, NULL, 0);
    if (!c->pd || !c->cq)
        fail("ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
    for (int i = 0; i < NQP; i++) {
        struct ibv_qp_init_attr ia = {
            .send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_RC,
            .cap = { .max_send_wr = 16, .max_recv_wr = RECVS, .max_send_sge = 1, .max_recv_sge = 1,
                     .max_inline_data = sizeof(struct snic_traversal_params) },
        };
        c->qp[i] = ibv_create_qp(c->pd, &ia);
        if (!c->qp[i])
            fail("ibv_create_qp: %s", strerror(errno));
        qp_to_init(c->qp[i], c->ib_port, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    }
}

static void connect_qp(struct ctx *c, int i, const struct peer *p)
{
    struct rc_conn rc = { .ib_port = c->ib_port, .gidx = c->gidx, .mtu = c->mtu, .rd_atomic = 1, .timeout = 16,
                          .sq_psn = 0x100 + (uint32_t)i, .dest_qpn = p->qpn[i], .rq_psn = p->psn[i],
                          .dgid = p->gid };
    qp_to_rts(c->qp[i], &rc);
}

static void exchange(struct ctx *c, struct peer *me, struct peer *peer)
{
    char m[MSG_LEN], gs[33], pg[33];
    gid_to_hex(&me->gid, gs);
    send_msg("INFO %06x %06x %06x %06x %06x %06x %s %016" PRIx64 " %016" PRIx64 " %08x", me->qpn[0], me->psn[0],
             me->qpn[1], me->psn[1], me->qpn[2], me->psn[2], gs, me->store, me->secret, me->rkey);
    recv_msg(m, "INFO ");
    if (sscanf(m + 5, "%x %x %x %x %x %x %32s %" SCNx64 " %" SCNx64 " %x", &peer->qpn[0], &peer->psn[0],
               &peer->qpn[1], &peer->psn[1], &peer->qpn[2], &peer->psn[2], pg, &peer->store, &peer->secret,
               &peer->rkey) != 10 || strlen(pg) != 32)
        fail("cannot parse the peer's INFO '%.100s'", m);
    gid_from_hex(pg, &peer->gid);
    (void)c;
}

static void post_recvs(struct ctx *c, int qi, int n, bool with_buf)
{
    for (int i = 0; i < n; i++) {
        struct ibv_sge sge = { .addr = (uintptr_t)(c->iobuf + (size_t)i * 256), .length = 256,
                               .lkey = with_buf ? c->io->lkey : 0 };
        struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = with_buf ? 1 : 0 }, *bad;
        int r = ibv_post_recv(c->qp[qi], &wr, &bad);
        if (r)
            fail("ibv_post_recv: %s", strerror(r));
    }
}

/* ---- server ----------------------------------------------------------------------------- */

static uint64_t *elem(struct ctx *c, size_t off) { return (uint64_t *)(c->buf + off); }
static uint64_t addr_of(struct ctx *c, size_t off) { return (uintptr_t)(c->buf + off); }

static uint64_t put_value(struct ctx *c, int *slot, uint64_t k, unsigned len)
{
    size_t off = VAL_OFF + (size_t)(*slot)++ * VAL_SLOT;
    if (off + VAL_SLOT > STORE_LEN)
        fail("store too small");
    for (unsigned i = 0; i < len; i++)
        c->buf[off + i] = val_byte(k, i);
    return addr_of(c, off);
}

/* Words are 4 bytes: an 8-byte field at word w is elem[w / 2] (w even in our layouts). */
static void build_store(struct ctx *c)
{
    int vs = 0;
    /* a. list [K 0][N 2][V 4] */
    for (int i = 0; i < LIST_N; i++) {
        uint64_t *e = elem(c, LIST_OFF + 64 * (size_t)i);
        e[0] = list_key(i);
        e[1] = i + 1 < LIST_N ? addr_of(c, LIST_OFF + 64 * (size_t)(i + 1)) : 0;
        e[2] = put_value(c, &vs, list_key(i), LIST_VAL);
    }
    /* d. a cycle of 8, an element whose next is in the secret MR, one whose value is */
    for (int i = 0; i < 8; i++) {
        uint64_t *e = elem(c, CYCLE_OFF + 64 * (size_t)i);
        e[0] = 3000 + (uint64_t)i;
        e[1] = addr_of(c, CYCLE_OFF + 64 * (size_t)((i + 1) % 8));
        e[2] = put_value(c, &vs, e[0], LIST_VAL);
    }
    uint64_t *e = elem(c, EVIL_NEXT_OFF);
    e[0] = 1;
    e[1] = (uintptr_t)c->buf2;
    e[2] = put_value(c, &vs, 1, LIST_VAL);
    e = elem(c, EVIL_VAL_OFF);
    e[0] = 77;
    e[1] = 0;
    e[2] = (uintptr_t)c->buf2;
    /* b. hash table: entries [K 0][V 2][K 4][V 6][K 8][V 10][N 12], empty slots NONE */
    int ovf = 0;
    for (int b = 0; b < HASH_BUCKETS; b++) {
        e = elem(c, HASH_OFF + 64 * (size_t)b);
        e[0] = e[2] = e[4] = NONE;
    }
    for (int i = 0; i < HASH_N; i++) {
        uint64_t k = hash_key(i);
        e = elem(c, HASH_OFF + 64 * (size_t)hash_bucket(k));
        for (;;) {
            int s = e[0] == NONE ? 0 : e[2] == NONE ? 2 : e[4] == NONE ? 4 : -1;
            if (s >= 0) {
                e[s] = k;
                e[s + 1] = put_value(c, &vs, k, HASH_VAL);
                break;
            }
            if (!e[6]) {
                size_t off = HASH_OVF_OFF + 64 * (size_t)ovf++;
                if (off + 64 > SKIP_OFF)
                    fail("hash overflow area full");
                uint64_t *n = elem(c, off);
                n[0] = n[2] = n[4] = NONE;
                e[6] = addr_of(c, off);
            }
            e = (uint64_t *)(uintptr_t)e[6];
        }
    }
    /* c. skip list: node 0 the head (key 0, every level), node j at level 1 if j % 2 == 0
     * and 2 if j % 4 == 0; [K 0][V 2][FK2 4][FK1 6][FK0 8][F2 10][F1 12][F0 14] */
    for (int j = 0; j <= SKIP_N; j++) {
        e = elem(c, SKIP_OFF + 64 * (size_t)j);
        e[0] = j ? skip_key(j) : 0;
        e[1] = j ? put_value(c, &vs, skip_key(j), SKIP_VAL) : 0;
        for (int lvl = 0; lvl < 3; lvl++) {
            int step = 1 << lvl, next = -1;
            if (j % step == 0)
                for (int n = j + 1; n <= SKIP_N; n++)
                    if (n % step == 0) {
                        next = n;
                        break;
                    }
            e[4 - lvl] = next > 0 ? skip_key(next) : NONE;     /* FK<lvl>: word 8 - 2 lvl */
            e[7 - lvl] = next > 0 ? addr_of(c, SKIP_OFF + 64 * (size_t)next) : 0;
        }
    }
    memset(c->buf2, SECRET_BYTE, SECRET_LEN);
    say("store: list %d, cycle 8, hash %d keys in %d buckets + %d overflow entries, skip list %d, %d values",
        LIST_N, HASH_N, HASH_BUCKETS, ovf, SKIP_N, vs);
}

static void expect_err(int got, int want, const char *what)
{
    if (got != want)
        fail("%s: returned %d (%s), expected %s", what, got, strerror(got), strerror(want));
    say("%s: %s as it must", what, strerror(want));
}

/* Fallback handler: one SNICDV_WC_RECV_RPC. Key 4242 gets its value, others NOT_FOUND. */
static void serve_fallback(struct ctx *c, const struct ibv_wc *wc, int *served)
{
    const struct snic_rpc_recv *req = (const void *)(c->iobuf + wc->wr_id * 256);
    uint64_t key;
    if (wc->qp_num != c->qp[0]->qp_num)
        fail("fallback RPC on QP %#x, which has no handler", wc->qp_num);
    if (wc->byte_len != sizeof(*req) + 8 || le64toh(req->rpc_opcode) != OP_FB || le32toh(req->param_len) != 8)
        fail("fallback RPC: byte_len %u, op-code %#" PRIx64 ", param_len %u (want %zu, %#llx, 8)", wc->byte_len,
             (uint64_t)le64toh(req->rpc_opcode), le32toh(req->param_len), sizeof(*req) + 8, OP_FB);
    memcpy(&key, req + 1, 8);
    key = le64toh(key);
    uint8_t *out = c->iobuf + RECVS * 256;
    for (unsigned i = 0; i < FB_ANSWER; i++)
        out[i] = val_byte(key, i);
    struct ibv_sge sge = { .addr = (uintptr_t)out, .length = FB_ANSWER, .lkey = c->io->lkey };
    bool found = key == 4242;
    int r = snicdv_rpc_reply(c->qp[0], req, 0xfb, &sge, found ? 1 : 0, found ? SNIC_RPC_OK : SNIC_RPC_NOT_FOUND,
                             IBV_SEND_SIGNALED);
    if (r)
        fail("snicdv_rpc_reply: %s", strerror(r));
    struct ibv_sge rs = { .addr = wc->wr_id * 256 + (uintptr_t)c->iobuf, .length = 256, .lkey = c->io->lkey };
    struct ibv_recv_wr rwr = { .wr_id = wc->wr_id, .sg_list = &rs, .num_sge = 1 }, *bad;
    r = ibv_post_recv(c->qp[0], &rwr, &bad);
    if (r)
        fail("ibv_post_recv: %s", strerror(r));
    (*served)++;
    say("fallback handler: RPC op-code %#llx key %" PRIu64 " answered %s", OP_FB, key,
        found ? "with its value" : "NOT_FOUND");
}

/* Check h, the server's side: every partition holds its tuples in payload order (a stable
 * radix partition of set 1), and every canary is intact. */
static void check_partitions(struct ctx *c, const uint32_t count[SH_PARTS], const size_t off[SH_PARTS],
                             size_t len)
{
    uint32_t fill[SH_PARTS] = { 0 };
    if (!c->shuffle)
        fail("check h: the client shuffled, but this device has no shuffle unit");
    for (uint32_t i = 0; i < SH_N; i++) {
        uint64_t v = sh_tuple(1, i), got;
        unsigned p = sh_part(v);
        memcpy(&got, c->shbuf + off[p] + (size_t)fill[p]++ * 8, 8);
        if (le64toh(got) != v)
            fail("check h: partition %u tuple %u is %#" PRIx64 ", expected %#" PRIx64, p, fill[p] - 1,
                 (uint64_t)le64toh(got), v);
    }
    for (unsigned p = 0; p <= SH_PARTS; p++) {
        size_t at = p < SH_PARTS ? off[p] - 8 : len - 8;
        for (unsigned b = 0; b < 8; b++)
            if (c->shbuf[at + b] != SH_CANARY)
                fail("check h: canary byte %zu (before partition %u) is %#x", at + b, p, c->shbuf[at + b]);
    }
    say("check h: every one of %u partitions byte for byte (%u tuples) and %u canaries intact", SH_PARTS, SH_N,
        SH_PARTS + 1);
    (void)count;
}

static void run_server(struct ctx *c)
{
    struct peer me = { 0 }, peer;
    int r, served = 0;
    char m[MSG_LEN];

    c->mr = reg(c, &c->buf, STORE_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    c->mr2 = reg(c, &c->buf2, SECRET_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    c->io = reg(c, &c->iobuf, (RECVS + 1) * 256, IBV_ACCESS_LOCAL_WRITE);
    build_store(c);

    r = snicdv_deploy_kernel(c->vctx, OP_TRAV, SNIC_KERNEL_TRAVERSAL);
    if (r)
        fail("snicdv_deploy_kernel(traversal): %s", strerror(r));
    say("deployed the traversal kernel for RPC op-code %#llx", OP_TRAV);
    expect_err(snicdv_deploy_kernel(c->vctx, OP_TRAV, SNIC_KERNEL_TRAVERSAL), EEXIST, "deploying it again");
    expect_err(snicdv_deploy_kernel(c->vctx, 0x999, 99), EINVAL, "deploying kernel 99");
    expect_err(snicdv_undeploy_kernel(c->vctx, 0x999), ENOENT, "undeploying an op-code never deployed");
    /* a context holds a quarter of the device's table, so none can fill it for the others */
    struct snicdv_device_attr da;
    if ((r = snicdv_query_device(c->vctx, &da, sizeof(da))))
        fail("snicdv_query_device: %s", strerror(r));
    unsigned quota = da.max_kernels / 4 > 1 ? da.max_kernels / 4 : 1;
    for (unsigned k = 1; k < quota; k++)
        if ((r = snicdv_deploy_kernel(c->vctx, OP_TRAV + k, SNIC_KERNEL_CONSISTENCY)))
            fail("deploying kernel %u of the context's %u: %s", k + 1, quota, strerror(r));
    expect_err(snicdv_deploy_kernel(c->vctx, OP_TRAV + quota, SNIC_KERNEL_CONSISTENCY), ENOSPC,
               "deploying one more than the context's quarter of the table");
    for (unsigned k = 1; k < quota; k++)
        if ((r = snicdv_undeploy_kernel(c->vctx, OP_TRAV + k)))
            fail("undeploying op-code %#llx: %s", OP_TRAV + k, strerror(r));
    uint32_t sh_count[SH_PARTS];
    size_t sh_off[SH_PARTS], sh_len = sh_layout(sh_count, sh_off);
    if (c->shuffle) {
        c->sh = reg(c, &c->shbuf, sh_len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
        memset(c->shbuf, SH_CANARY, sh_len);
        if ((r = snicdv_deploy_kernel(c->vctx, OP_SHUF, SNIC_KERNEL_SHUFFLE)))
            fail("snicdv_deploy_kernel(shuffle): %s", strerror(r));
        say("deployed the shuffle kernel for RPC op-code %#llx: %u partitions, %zu bytes", OP_SHUF, SH_PARTS,
            sh_len);
    }
    /* before RTR, on both ends: QP 1 with the fallback handler, QP 2 without */
    r = snicdv_qp_set_rpc(c->qp[0], SNICDV_QP_RPC_ENABLE | SNICDV_QP_RPC_FALLBACK);  /* QP 3: none */
    if (!r)
        r = snicdv_qp_set_rpc(c->qp[1], SNICDV_QP_RPC_ENABLE);
    if (r)
        fail("snicdv_qp_set_rpc: %s", strerror(r));
    post_recvs(c, 0, RECVS, true);

    for (int i = 0; i < NQP; i++) {
        me.qpn[i] = c->qp[i]->qp_num;
        me.psn[i] = 0x100 + (uint32_t)i;
    }
    me.gid = c->gid;
    me.store = (uintptr_t)c->buf;
    me.secret = (uintptr_t)c->buf2;
    me.rkey = c->mr->rkey;
    exchange(c, &me, &peer);
    for (int i = 0; i < NQP; i++)
        connect_qp(c, i, &peer);
    expect_err(snicdv_qp_set_rpc(c->qp[1], 0), EINVAL, "snicdv_qp_set_rpc on a connected QP");
    send_msg("READY %016" PRIx64 " %08x", c->shuffle ? (uint64_t)(uintptr_t)c->shbuf : 0,
             c->shuffle ? c->sh->rkey : 0);

    /* Serve: the kernel answers lookups without us; we handle fallback RPCs and messages. */
    for (double end = now_s() + 10 * timeout_s;;) {
        struct ibv_wc wc;
        int n = ibv_poll_cq(c->cq, 1, &wc);
        if (n < 0)
            fail("ibv_poll_cq: %d", n);
        if (n) {
            if (wc.status != IBV_WC_SUCCESS)
                fail("completion wr_id %" PRIu64 " opcode %d: %s", wc.wr_id, wc.opcode,
                     ibv_wc_status_str(wc.status));
            if (wc.opcode == SNICDV_WC_RECV_RPC)
                serve_fallback(c, &wc, &served);
            else if (wc.opcode != IBV_WC_RDMA_WRITE || wc.wr_id != 0xfb)
                fail("unexpected completion: opcode %d wr_id %" PRIu64, wc.opcode, wc.wr_id);
            continue;
        }
        struct pollfd pfd = { .fd = sock, .events = POLLIN };
        if (poll(&pfd, 1, 1) <= 0) {
            if (now_s() > end)
                fail("the client did not finish within %d s", 10 * timeout_s);
            continue;
        }
        recv_msg(m, "");
        if (!strncmp(m, "UNDEPLOY", 8)) {
            r = snicdv_undeploy_kernel(c->vctx, OP_TRAV);
            if (r)
                fail("snicdv_undeploy_kernel: %s", strerror(r));
            say("undeployed the traversal kernel");
            send_msg("UNDEPLOYED");
        } else if (!strncmp(m, "SHUFFLED", 8)) {
            check_partitions(c, sh_count, sh_off, sh_len);
            send_msg("PARTITIONS-OK");
        } else if (!strncmp(m, "DONE ", 5)) {
            if (atoi(m + 5) != served)
                fail("the client sent %d fallback RPCs, the handler served %d", atoi(m + 5), served);
            say("served %d fallback RPCs, as many as the client sent", served);
            send_msg("BYE");
            break;
        } else {
            fail("protocol: unexpected message '%.60s'", m);
        }
    }
}

/* ---- client ---------------------------------------------------------------------------- */

struct client {
    struct ctx *c;
    struct peer peer;
    uint32_t tag;
    int rpcs, fallbacks;
    bool inline_params;         /* post the parameters inline, from an unregistered buffer */
};

static uint32_t rpc_wait(struct client *cl, int qi, const struct snicdv_rpc_wr *w, uint32_t *byte_len,
                         const char *what);

/* One RPC on QP qi; waits for its send completion and its answer. Returns the status. */
static uint32_t rpc(struct client *cl, int qi, uint64_t op, const void *params, uint32_t plen, uint32_t resp_len,
                    uint32_t *byte_len, const char *what)
{
    struct ctx *c = cl->c;
    uint8_t *pbuf = c->buf + RESP_SLOT * RESP_SLOTS, ubuf[64];
    if (cl->inline_params && plen <= sizeof(ubuf))
        pbuf = ubuf;    /* not in any MR: copied into the WQE, cleared right after posting */
    memcpy(pbuf, params, plen);
    memset(c->buf, FILL, RESP_SLOT);
    uint32_t tag = ++cl->tag & 0xffffff;
    struct ibv_sge sge = { .addr = (uintptr_t)pbuf, .length = plen, .lkey = c->mr->lkey };
    struct snicdv_rpc_wr w = {
        .wr_id = 0x1000 + tag, .rpc_opcode = op, .rkey = cl->peer.rkey, .resp_rkey = c->mr->rkey,
        .resp_addr = (uintptr_t)c->buf, .resp_len = resp_len, .tag = tag, .sg_list = &sge, .num_sge = 1,
        .send_flags = IBV_SEND_SIGNALED | (pbuf == ubuf ? IBV_SEND_INLINE : 0),
    };
    int r = snicdv_post_rpc(c->qp[qi], &w);
    if (r)
        fail("%s: snicdv_post_rpc: %s", what, strerror(r));
    memset(ubuf, 0, sizeof(ubuf));
    return rpc_wait(cl, qi, &w, byte_len, what);
}

/* One RPC WRITE of the client's shuffle payload (c->shbuf, len bytes) to the kernel of op,
 * working in the memory of rkey; the answer (resp_len bytes at most) lands in c->buf. */
static uint32_t rpc_write(struct client *cl, int qi, uint64_t op, uint32_t rkey, uint32_t len, uint32_t resp_len,
                          uint32_t *byte_len, const char *what)
{
    struct ctx *c = cl->c;
    memset(c->buf, FILL, RESP_SLOT);
    uint32_t tag = ++cl->tag & 0xffffff;
    struct ibv_sge sge = { .addr = (uintptr_t)c->shbuf, .length = len, .lkey = c->sh->lkey };
    struct snicdv_rpc_wr w = {
        .wr_id = 0x1000 + tag, .rpc_opcode = op, .rkey = rkey, .resp_rkey = c->mr->rkey,
        .resp_addr = (uintptr_t)c->buf, .resp_len = resp_len, .tag = tag, .sg_list = &sge, .num_sge = 1,
        .send_flags = IBV_SEND_SIGNALED,
    };
    int r = snicdv_post_rpc_write(c->qp[qi], &w);
    if (r)
        fail("%s: snicdv_post_rpc_write: %s", what, strerror(r));
    return rpc_wait(cl, qi, &w, byte_len, what);
}

/* Waits for an RPC's send completion and its answer. Returns the status. */
static uint32_t rpc_wait(struct client *cl, int qi, const struct snicdv_rpc_wr *w, uint32_t *byte_len,
                         const char *what)
{
    struct ctx *c = cl->c;
    uint32_t tag = w->tag;
    int r;
    cl->rpcs++;
    bool sent = false, answered = false;
    uint32_t status = 0;
    for (double end = now_s() + timeout_s; !sent || !answered;) {
        struct ibv_wc wc;
        int n = ibv_poll_cq(c->cq, 1, &wc);
        if (n < 0)
            fail("ibv_poll_cq: %d", n);
        if (!n) {
            if (now_s() > end)
                fail("%s: no %s within %d s", what, sent ? "answer" : "send completion", timeout_s);
            sched_yield();
            continue;
        }
        if (wc.status != IBV_WC_SUCCESS)
            fail("%s: completion wr_id %#" PRIx64 " opcode %#x: %s", what, wc.wr_id, wc.opcode,
                 ibv_wc_status_str(wc.status));
        if (wc.opcode == SNICDV_WC_RPC && wc.wr_id == w->wr_id) {
            sent = true;
        } else if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.qp_num == c->qp[qi]->qp_num &&
                   wc.wc_flags & IBV_WC_WITH_IMM) {
            if (snicdv_rpc_tag(&wc) != tag)
                fail("%s: answer with tag %#x, expected %#x", what, snicdv_rpc_tag(&wc), tag);
            status = snicdv_rpc_status(&wc);
            *byte_len = wc.byte_len;
            answered = true;
            struct ibv_recv_wr rwr = { .wr_id = 0 }, *bad;
            if ((r = ibv_post_recv(c->qp[qi], &rwr, &bad)))
                fail("ibv_post_recv: %s", strerror(r));
        } else {
            fail("%s: unexpected completion opcode %#x wr_id %#" PRIx64 " QP %#x", what, wc.opcode, wc.wr_id,
                 wc.qp_num);
        }
    }
    return status;
}

static const char *status_str(uint32_t s)
{
    static const char *n[] = { "OK", "NO_KERNEL", "BAD_PARAMS", "PROT_ERR", "NOT_FOUND",
                               "STEP_LIMIT", "CHECKSUM", "RESP_TOO_LONG", "DMA_ERR", "PARTITION_FULL" };
    return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

static void check_answer(struct client *cl, uint32_t status, uint32_t want, uint32_t byte_len, uint64_t key,
                         uint32_t vlen, const char *what)
{
    const uint8_t *b = cl->c->buf;
    if (status != want)
        fail("%s: status %u (%s), expected %s", what, status, status_str(status), status_str(want));
    if (want != SNIC_RPC_OK) {
        if (byte_len)
            fail("%s: an error answer with %u bytes", what, byte_len);
        for (unsigned i = 0; i < RESP_SLOT; i++)
            if (b[i] != FILL)
                fail("%s: response byte %u changed to %#x by an error answer%s", what, i, b[i],
                     b[i] == SECRET_BYTE ? " (the secret's byte!)" : "");
        return;
    }
    if (byte_len != vlen)
        fail("%s: %u bytes answered, expected %u", what, byte_len, vlen);
    for (unsigned i = 0; i < vlen; i++)
        if (b[i] != val_byte(key, i))
            fail("%s: value byte %u is %#x, expected %#x", what, i, b[i], val_byte(key, i));
    for (unsigned i = vlen; i < RESP_SLOT; i++)
        if (b[i] != FILL)
            fail("%s: byte %u past the %u-byte value was written", what, i, vlen);
}

static struct snic_traversal_params trav(uint64_t start, uint64_t key, uint32_t vsize, uint16_t key_mask,
                                         uint8_t vpos, uint8_t flags, uint8_t npos)
{
    return (struct snic_traversal_params) {
        .remote_address = htole64(start), .key = htole64(key), .value_size = htole32(vsize),
        .key_mask = htole16(key_mask), .predicate = SNIC_TRAV_EQUAL, .value_ptr_pos = vpos, .flags = flags,
        .next_ptr_pos = npos,
    };
}

static struct snic_traversal_params list_params(uint64_t start, uint64_t key, uint32_t vsize)
{
    return trav(start, key, vsize, 1, 4, SNIC_TRAV_NEXT_VALID, 2);
}

static uint32_t lookup(struct client *cl, int qi, const struct snic_traversal_params *p, uint32_t resp_len,
                       uint32_t *byte_len, const char *what)
{
    return rpc(cl, qi, OP_TRAV, p, sizeof(*p), resp_len, byte_len, what);
}

/* The shuffle payload in c->shbuf: parameters, the histogram (partition p at base + off[p],
 * holding cap[p] tuples; partition bad_p, if below SH_PARTS, at bad_base instead), the
 * tuples of set. */
static void sh_payload(struct ctx *c, uint64_t set, uint64_t base, const size_t off[SH_PARTS],
                       const uint32_t cap[SH_PARTS], unsigned bad_p, uint64_t bad_base)
{
    struct snic_shuffle_params prm = { .bits = SH_BITS, .shift = SH_SHIFT };
    uint8_t *b = c->shbuf;
    memcpy(b, &prm, sizeof(prm));
    b += sizeof(prm);
    for (unsigned p = 0; p < SH_PARTS; p++, b += sizeof(struct snic_shuffle_part)) {
        struct snic_shuffle_part h = { .base = htole64(p == bad_p ? bad_base : base + off[p]),
                                       .capacity = htole32(cap[p]) };
        memcpy(b, &h, sizeof(h));
    }
    for (uint32_t i = 0; i < SH_N; i++, b += 8) {
        uint64_t v = htole64(sh_tuple(set, i));
        memcpy(b, &v, 8);
    }
}

/* The answer's fills in c->buf against want[] (partition 0 against want0) */
static void sh_check_fills(struct ctx *c, const uint32_t want[SH_PARTS], uint32_t want0, uint32_t byte_len,
                           const char *what)
{
    if (byte_len != SH_PARTS * 4)
        fail("%s: %u bytes answered, expected the %u fills", what, byte_len, SH_PARTS * 4);
    for (unsigned p = 0; p < SH_PARTS; p++) {
        uint32_t f;
        memcpy(&f, c->buf + 4 * p, 4);
        if (le32toh(f) != (p ? want[p] : want0))
            fail("%s: partition %u's fill is %u, expected %u", what, p, le32toh(f), p ? want[p] : want0);
    }
}

/* h. shuffle: see the head of this file */
static void check_shuffle(struct client *cl, uint64_t base, uint32_t rkey)
{
    struct ctx *c = cl->c;
    uint32_t count[SH_PARTS], cap[SH_PARTS], st, bl;
    size_t off[SH_PARTS];
    char m[MSG_LEN];

    sh_layout(count, off);
    c->sh = reg(c, &c->shbuf, SH_PAYLOAD, IBV_ACCESS_LOCAL_WRITE);
    /* partition 0 one tuple short, placed so that its end is where it always ends: a tuple
     * written past its capacity would overwrite the canary after it */
    memcpy(cap, count, sizeof(cap));
    cap[0] = count[0] - 1;
    sh_payload(c, 1, base, off, cap, 0, base + off[0] + 8);
    st = rpc_write(cl, 1, OP_SHUF, rkey, SH_PAYLOAD, SH_PARTS * 4, &bl, "check h: partition 0 too small");
    if (st != SNIC_RPC_PARTITION_FULL)
        fail("check h: partition 0 too small: status %u (%s), expected PARTITION_FULL", st, status_str(st));
    uint32_t f0;
    memcpy(&f0, c->buf, 4);
    if (le32toh(f0) != cap[0] || bl != SH_PARTS * 4)
        fail("check h: partition 0 too small: fill %u of %u bytes, expected %u of %u", le32toh(f0), bl, cap[0],
             SH_PARTS * 4);
    /* the histogram that fits */
    sh_payload(c, 1, base, off, count, SH_PARTS, 0);
    st = rpc_write(cl, 1, OP_SHUF, rkey, SH_PAYLOAD, SH_PARTS * 4, &bl, "check h: shuffle");
    if (st != SNIC_RPC_OK)
        fail("check h: shuffle: status %u (%s), expected OK", st, status_str(st));
    sh_check_fills(c, count, count[0], bl, "check h: shuffle");
    /* other tuples, partition 5 in the secret MR (another R_Key, no REMOTE_WRITE) */
    sh_payload(c, 2, base, off, count, 5, cl->peer.secret);
    for (unsigned p = 0; p < SH_PARTS; p++)
        cap[p] = SH_N;      /* any partition may get any number of set 2's tuples */
    st = rpc_write(cl, 1, OP_SHUF, rkey, SH_PAYLOAD, SH_PARTS * 4, &bl, "check h: partition outside the MR");
    check_answer(cl, st, SNIC_RPC_PROT_ERR, bl, 0, 0, "check h: partition outside the MR");
    send_msg("SHUFFLED");
    recv_msg(m, "PARTITIONS-OK");
    say("check h: PASS (shuffle of %u tuples into %u partitions: one short -> PARTITION_FULL with the fills, "
        "then OK with every fill; a partition outside the MR -> PROT_ERR, nothing written; the server found "
        "every partition byte for byte and every canary)", SH_N, SH_PARTS);
}

static void run_client(struct ctx *c, bool need_shuffle)
{
    struct client cl = { .c = c };
    struct peer me = { 0 };
    struct snic_traversal_params p;
    uint32_t st, bl;
    char m[MSG_LEN], what[96];

    c->mr = reg(c, &c->buf, RESP_SLOT * (RESP_SLOTS + 1), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    c->iobuf = c->buf;
    for (int i = 0; i < NQP; i++) {
        int r = i < 2 ? snicdv_qp_set_rpc(c->qp[i], SNICDV_QP_RPC_ENABLE) : 0;
        if (r)
            fail("snicdv_qp_set_rpc: %s", strerror(r));
        if (i < 2)
            post_recvs(c, i, RECVS / 2, false);     /* answers take a receive WQE, no buffer */
        me.qpn[i] = c->qp[i]->qp_num;
        me.psn[i] = 0x100 + (uint32_t)i;
    }
    me.gid = c->gid;
    exchange(c, &me, &cl.peer);
    for (int i = 0; i < NQP; i++)
        connect_qp(c, i, &cl.peer);
    recv_msg(m, "READY");
    uint64_t S = cl.peer.store, sh_base;
    uint32_t sh_rkey;
    if (sscanf(m + 5, "%" SCNx64 " %x", &sh_base, &sh_rkey) != 2)
        fail("cannot parse the server's READY '%.100s'", m);

    /* a. linked list: element i is found after a walk of i + 1 elements */
    double t0 = now_s();
    for (int i = 0; i < LIST_N; i++) {
        p = list_params(S + LIST_OFF, list_key(i), LIST_VAL);
        snprintf(what, sizeof(what), "check a: list element %d (key %" PRIu64 ")", i + 1, list_key(i));
        st = lookup(&cl, 0, &p, RESP_SLOT, &bl, what);
        check_answer(&cl, st, SNIC_RPC_OK, bl, list_key(i), LIST_VAL, what);
    }
    double dt = now_s() - t0;
    p = list_params(S + LIST_OFF, 999, LIST_VAL);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check a: missing key");
    check_answer(&cl, st, SNIC_RPC_NOT_FOUND, bl, 0, 0, "check a: missing key");
    say("check a: PASS (list of %d: every element by key, %.2f ms per lookup; a missing key NOT_FOUND)", LIST_N,
        dt * 1000 / LIST_N);

    /* b. hash table: the bucket by the client's hash, its chain by the kernel */
    int nb = 0;
    for (int i = 0; i < HASH_N; i += 3, nb++) {
        uint64_t k = hash_key(i);
        p = trav(S + HASH_OFF + 64 * hash_bucket(k), k, HASH_VAL, 0x111, 2,
                 SNIC_TRAV_RELATIVE | SNIC_TRAV_NEXT_VALID, 12);
        snprintf(what, sizeof(what), "check b: hash key %" PRIu64, k);
        st = lookup(&cl, 0, &p, RESP_SLOT, &bl, what);
        check_answer(&cl, st, SNIC_RPC_OK, bl, k, HASH_VAL, what);
    }
    p = trav(S + HASH_OFF + 64 * hash_bucket(4999), 4999, HASH_VAL, 0x111, 2,
             SNIC_TRAV_RELATIVE | SNIC_TRAV_NEXT_VALID, 12);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check b: missing key");
    check_answer(&cl, st, SNIC_RPC_NOT_FOUND, bl, 0, 0, "check b: missing key");
    say("check b: PASS (hash table: %d keys by content through their buckets and chains; a missing key "
        "NOT_FOUND)", nb);

    /* c. skip list from the head: routing keys FK2..FK0 at words 4, 6, 8, LESS_EQUAL, +6;
     * parameters inline (IBV_SEND_INLINE) */
    int ns = 0;
    cl.inline_params = true;
    for (int j = 1; j <= SKIP_N; j += 3, ns++) {
        p = trav(S + SKIP_OFF, skip_key(j), SKIP_VAL, 1, 2, 0, 0);
        p.route_mask = htole16(1u << 4 | 1u << 6 | 1u << 8);
        p.route_predicate = SNIC_TRAV_LESS_EQUAL;
        p.route_ptr_offset = 6;
        snprintf(what, sizeof(what), "check c: skip list key %" PRIu64, skip_key(j));
        st = lookup(&cl, 0, &p, RESP_SLOT, &bl, what);
        check_answer(&cl, st, SNIC_RPC_OK, bl, skip_key(j), SKIP_VAL, what);
    }
    p.key = htole64(skip_key(7) + 1);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check c: key between two");
    check_answer(&cl, st, SNIC_RPC_NOT_FOUND, bl, 0, 0, "check c: key between two");
    cl.inline_params = false;
    say("check c: PASS (skip list: %d keys by content, parameters inline; a key between two NOT_FOUND)", ns);

    /* d. malicious parameters */
    p = list_params(cl.peer.secret, list_key(0), LIST_VAL);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check d: first element outside the MR");
    check_answer(&cl, st, SNIC_RPC_PROT_ERR, bl, 0, 0, "check d: first element outside the MR");
    p = list_params(S + EVIL_NEXT_OFF, 2, LIST_VAL);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check d: next pointer outside the MR");
    check_answer(&cl, st, SNIC_RPC_PROT_ERR, bl, 0, 0, "check d: next pointer outside the MR");
    p = list_params(S + EVIL_VAL_OFF, 77, LIST_VAL);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check d: value pointer outside the MR");
    check_answer(&cl, st, SNIC_RPC_PROT_ERR, bl, 0, 0, "check d: value pointer outside the MR");
    p = list_params(S + CYCLE_OFF, 2999, LIST_VAL);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check d: a cycle");
    check_answer(&cl, st, SNIC_RPC_STEP_LIMIT, bl, 0, 0, "check d: a cycle");
    p = list_params(S + LIST_OFF, list_key(3), 1u << 30);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check d: valueSize 1 GiB");
    check_answer(&cl, st, SNIC_RPC_BAD_PARAMS, bl, 0, 0, "check d: valueSize 1 GiB");
    p = list_params(S + LIST_OFF, list_key(3), RESP_SLOT);
    st = lookup(&cl, 0, &p, 64, &bl, "check d: valueSize > response buffer");
    check_answer(&cl, st, SNIC_RPC_RESP_TOO_LONG, bl, 0, 0, "check d: valueSize > response buffer");
    p = list_params(S + LIST_OFF, list_key(LIST_N - 1), LIST_VAL);
    st = lookup(&cl, 0, &p, RESP_SLOT, &bl, "check d: a lookup after them");
    check_answer(&cl, st, SNIC_RPC_OK, bl, list_key(LIST_N - 1), LIST_VAL, "check d: a lookup after them");
    say("check d: PASS (pointers outside the MR: PROT_ERR, nothing written; cycle: STEP_LIMIT; huge "
        "valueSize: BAD_PARAMS, RESP_TOO_LONG; the server still answers)");

    /* e. fallback */
    uint64_t key = htole64(4242);
    st = rpc(&cl, 0, OP_FB, &key, 8, RESP_SLOT, &bl, "check e: fallback handler");
    cl.fallbacks++;
    check_answer(&cl, st, SNIC_RPC_OK, bl, 4242, FB_ANSWER, "check e: fallback handler");
    key = htole64(4243);
    st = rpc(&cl, 0, OP_FB, &key, 8, RESP_SLOT, &bl, "check e: fallback handler's NOT_FOUND");
    cl.fallbacks++;
    check_answer(&cl, st, SNIC_RPC_NOT_FOUND, bl, 0, 0, "check e: fallback handler's NOT_FOUND");
    st = rpc(&cl, 1, OP_FB, &key, 8, RESP_SLOT, &bl, "check e: no handler");
    check_answer(&cl, st, SNIC_RPC_NO_KERNEL, bl, 0, 0, "check e: no handler");
    say("check e: PASS (no kernel: the handler answered with data and with NOT_FOUND; without a handler "
        "NO_KERNEL)");

    /* f. undeploy */
    p = list_params(S + LIST_OFF, list_key(0), LIST_VAL);
    st = lookup(&cl, 1, &p, RESP_SLOT, &bl, "check f: before undeploy");
    check_answer(&cl, st, SNIC_RPC_OK, bl, list_key(0), LIST_VAL, "check f: before undeploy");
    send_msg("UNDEPLOY");
    recv_msg(m, "UNDEPLOYED");
    st = lookup(&cl, 1, &p, RESP_SLOT, &bl, "check f: after undeploy");
    check_answer(&cl, st, SNIC_RPC_NO_KERNEL, bl, 0, 0, "check f: after undeploy");
    say("check f: PASS (after undeploy: NO_KERNEL)");

    /* g. QP 3 never enabled RPC: snicdv_post_rpc refuses, its ordinary verbs work */
    struct snicdv_rpc_wr w = { .rpc_opcode = OP_TRAV, .send_flags = IBV_SEND_SIGNALED };
    int r = snicdv_post_rpc(c->qp[2], &w);
    if (r != EINVAL)
        fail("check g: snicdv_post_rpc on a QP without RPC returned %d, expected EINVAL", r);
    memset(c->buf, FILL, 64);
    struct ibv_sge sge = { .addr = (uintptr_t)c->buf, .length = 64, .lkey = c->mr->lkey };
    struct ibv_send_wr rd = { .wr_id = 0x3ead, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
                              .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = { .remote_addr = S + LIST_OFF, .rkey = cl.peer.rkey } }, *bad;
    if ((r = ibv_post_send(c->qp[2], &rd, &bad)))
        fail("check g: ibv_post_send(READ): %s", strerror(r));
    struct ibv_wc wc;
    double end = now_s() + timeout_s;
    while (!(r = ibv_poll_cq(c->cq, 1, &wc)))
        if (now_s() > end)
            fail("check g: no READ completion within %d s", timeout_s);
    if (r < 0 || wc.status != IBV_WC_SUCCESS || wc.wr_id != 0x3ead)
        fail("check g: READ completion %d: %s wr_id %#" PRIx64, r, ibv_wc_status_str(wc.status), wc.wr_id);
    uint64_t e0[2];
    memcpy(e0, c->buf, sizeof(e0));
    if (le64toh(e0[0]) != list_key(0) || le64toh(e0[1]) != S + LIST_OFF + 64)
        fail("check g: READ of the list's first element gave key %" PRIu64 " next %#" PRIx64, le64toh(e0[0]),
             le64toh(e0[1]));
    say("check g: PASS (a QP without RPC: snicdv_post_rpc EINVAL; an RDMA READ on it reads the list's head)");

    /* h. shuffle, if the server's device has the unit */
    if (sh_rkey)
        check_shuffle(&cl, sh_base, sh_rkey);
    else if (need_shuffle)
        fail("check h: the server's device has no shuffle unit (-S requires one: -global snic.shuffle-units=1)");
    else
        say("check h: not run: the server's device has no shuffle unit (-global snic.shuffle-units=1 gives one)");

    send_msg("DONE %d", cl.fallbacks);
    recv_msg(m, "BYE");
    say("%d RPCs answered as expected", cl.rpcs);
}

int main(int argc, char **argv)
{
    struct vm_opts o = { .gidx = -1, .port = 18530, .ib_port = 1 };
    int opt;
    bool need_shuffle = false;
    while ((opt = getopt(argc, argv, VM_OPTS "Sh")) != -1) {
        if (opt == 'S') {
            need_shuffle = true;
        } else if (!vm_opt(&o, opt, optarg)) {
            fprintf(stderr, "usage: %s [-d DEV] -g GID-INDEX [-p TCP-PORT (18530)] [-i IB-PORT (1)] [-t SECS (30)] "
                            "[-S] [SERVER-IPv4]\n  without SERVER-IPv4: the server; with it: the client\n"
                            "  -S: the shuffle check must run (the server's device has a shuffle unit)\n", argv[0]);
            return 2;
        }
    }
    struct ctx c = { .ib_port = o.ib_port, .gidx = o.gidx };
    if (c.gidx < 0 || timeout_s <= 0 || optind < argc - 1) {
        fprintf(stderr, "%s: -g GID-INDEX is required (see -h)\n", argv[0]);
        return 2;
    }
    bool client = optind == argc - 1;
    role = client ? "client" : "server";
    arm_alarm((unsigned)(20 * timeout_s));
    open_device(&c, o.dev);
    create_qps(&c);
    if (client) {
        tcp_client(argv[optind], o.port);
        run_client(&c, need_shuffle);
    } else {
        tcp_server(o.port);
        run_server(&c);
    }
    say("PASS");
    return 0;
}
