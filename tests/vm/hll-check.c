/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hll-check: a HyperLogLog sketch on a QP's RDMA WRITEs between two hosts. The server
 * (a snic device) attaches a sketch to its RC QP with snicdv_qp_attach_hll; the client,
 * any RoCE device (rxe included: the sketch needs no agreement), RDMA WRITEs -m MiB of
 * 4-byte items, -u distinct values among them, into the server's buffer. The server then
 * reads the sketch (snicdv_qp_query_hll with its 65536 registers) and compares the
 * registers and the estimate with its own computation over the bytes it received:
 * MurmurHash3_x64_128 (seed 0xbaadf00d, h1) and the raw estimator with linear counting,
 * written here from the algorithms, not the device's code; both must be bit-identical,
 * and the items hashed at least the items written (a retransmitted packet is hashed
 * again). Then snicdv_qp_reset_hll and an empty query (estimate 0, no item), and
 * snicdv_qp_detach_hll (a query then fails with EINVAL).
 *
 *   hll-check [-d DEV] -g GIDX [-p PORT] [-t SECS] [-m MIB (64)] [-u DISTINCT (1000000)]
 *             [SERVER-IPv4]
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/snicdv.h>

#include "vmtool.h"

const char tool_name[] = "hll-check";

#define M           65536u
#define CHUNK       (1u << 20)      /* one WRITE */
#define DEPTH       16              /* WRITEs in flight */

struct ctx {
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
    size_t len;
    int ib_port, gidx;
    enum ibv_mtu mtu;
    union ibv_gid gid;
};

static void setup(struct ctx *c, const char *dev)
{
    c->vctx = open_rdma_device(dev);
    query_port_gid(c->vctx, c->ib_port, c->gidx, &c->mtu, &c->gid);
    c->pd = ibv_alloc_pd(c->vctx);
    c->cq = ibv_create_cq(c->vctx, 2 * DEPTH, NULL, NULL, 0);
    if (!c->pd || !c->cq)
        fail("ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
    struct ibv_qp_init_attr ia = {
        .send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = DEPTH, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
    };
    c->qp = ibv_create_qp(c->pd, &ia);
    if (!c->qp)
        fail("ibv_create_qp: %s", strerror(errno));
    qp_to_init(c->qp, c->ib_port, IBV_ACCESS_REMOTE_WRITE);
    c->buf = aligned_alloc(4096, c->len);
    if (!c->buf)
        fail("out of memory (%zu bytes)", c->len);
    memset(c->buf, 0, c->len);
    c->mr = ibv_reg_mr(c->pd, c->buf, c->len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!c->mr)
        fail("ibv_reg_mr(%zu): %s", c->len, strerror(errno));
}

/* Exchange QPN, PSN, GID, buffer and R_Key; connect */
static void connect_peer(struct ctx *c, uint64_t *raddr, uint32_t *rkey)
{
    char m[MSG_LEN], gs[33], pg[33];
    uint32_t qpn, psn;

    gid_to_hex(&c->gid, gs);
    send_msg("INFO %06x %06x %s %016" PRIx64 " %08x", c->qp->qp_num, 0x300u, gs,
             (uint64_t)(uintptr_t)c->buf, c->mr->rkey);
    recv_msg(m, "INFO ");
    if (sscanf(m + 5, "%x %x %32s %" SCNx64 " %x", &qpn, &psn, pg, raddr, rkey) != 5 ||
        strlen(pg) != 32)
        fail("cannot parse the peer's INFO '%.100s'", m);
    struct rc_conn rc = { .ib_port = c->ib_port, .gidx = c->gidx, .mtu = c->mtu, .rd_atomic = 1,
                          .timeout = 16, .sq_psn = 0x300, .dest_qpn = qpn, .rq_psn = psn };
    gid_from_hex(pg, &rc.dgid);
    qp_to_rts(c->qp, &rc);
}

/* ---- the reference: MurmurHash3_x64_128 of a 4-byte key, and HLL ---- */

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
}

static uint64_t murmur_h1(uint32_t key)
{
    uint64_t h1 = 0xbaadf00d, h2 = 0xbaadf00d, k1 = key;

    k1 *= 0x87c37b91114253d5ull;
    k1 = (k1 << 31) | (k1 >> 33);
    k1 *= 0x4cf5ad432745937full;
    h1 ^= k1 ^ 4;
    h2 ^= 4;
    h1 += h2;
    h2 += h1;
    return fmix64(h1) + fmix64(h2);
}

static void hll_add(uint8_t *regs, uint32_t key)
{
    uint64_t x = murmur_h1(key), w = x & ((1ull << 48) - 1);
    uint8_t rank = 1;

    while (rank <= 48 && !(w & (1ull << (48 - rank))))
        rank++;
    if (rank > regs[x >> 48])
        regs[x >> 48] = rank;
}

/* alpha m^2 / sum 2^-M[j], in register order; linear counting at or below 2.5 m */
static double hll_estimate(const uint8_t *regs)
{
    double m = M, sum = 0, e;
    unsigned zeros = 0;

    for (unsigned j = 0; j < M; j++) {
        sum += ldexp(1.0, -regs[j]);
        zeros += !regs[j];
    }
    e = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
    return e <= 2.5 * m && zeros ? m * log(m / zeros) : e;
}

/* ---- the two sides ---- */

static void run_server(struct ctx *c)
{
    struct snicdv_hll_info info;
    uint64_t raddr, items = c->len / 4;
    uint32_t rkey, v;
    char m[MSG_LEN];
    uint8_t *regs = malloc(M), *ref = calloc(1, M);
    int r;

    if (!regs || !ref)
        fail("out of memory");
    r = snicdv_qp_attach_hll(c->qp);
    if (r)
        fail("snicdv_qp_attach_hll: %s", strerror(r));
    r = snicdv_qp_attach_hll(c->qp);
    if (r != EINVAL)
        fail("a second snicdv_qp_attach_hll on the QP: %s, not EINVAL", strerror(r));
    connect_peer(c, &raddr, &rkey);
    recv_msg(m, "DONE");
    r = snicdv_qp_query_hll(c->qp, &info, sizeof(info), regs);
    if (r)
        fail("snicdv_qp_query_hll: %s", strerror(r));
    for (uint64_t i = 0; i < items; i++) {
        memcpy(&v, c->buf + 4 * i, 4);
        hll_add(ref, le32toh(v));
    }
    double e = hll_estimate(ref);
    unsigned diff = 0;
    for (unsigned j = 0; j < M; j++)
        diff += regs[j] != ref[j];
    say("sketch: estimate %.1f, items hashed %" PRIu64 " (%" PRIu64 " written), %u registers 0, %u of %u "
        "registers differ from ours (estimate %.1f)", info.estimate, info.items, items, info.zero_regs, diff, M, e);
    if (diff)
        fail("%u registers differ from this host's computation over the received bytes", diff);
    if (memcmp(&info.estimate, &e, sizeof(e)))
        fail("the device's estimate %.17g is not ours, %.17g", info.estimate, e);
    if (info.items < items || info.qp_num != c->qp->qp_num)
        fail("items hashed %" PRIu64 " < %" PRIu64 " written, or QP %u not %u", info.items, items, info.qp_num,
             c->qp->qp_num);
    r = snicdv_qp_reset_hll(c->qp);
    if (r)
        fail("snicdv_qp_reset_hll: %s", strerror(r));
    r = snicdv_qp_query_hll(c->qp, &info, sizeof(info), NULL);
    if (r || info.estimate != 0 || info.items || info.zero_regs != M)
        fail("after the reset: %s, estimate %g, items %" PRIu64 ", %u registers 0", strerror(r), info.estimate,
             info.items, info.zero_regs);
    say("after snicdv_qp_reset_hll: estimate 0, no item");
    r = snicdv_qp_detach_hll(c->qp);
    if (r)
        fail("snicdv_qp_detach_hll: %s", strerror(r));
    r = snicdv_qp_query_hll(c->qp, &info, sizeof(info), NULL);
    if (r != EINVAL)
        fail("a query after the detach: %s, not EINVAL", strerror(r));
    send_msg("RESULT ok");
    free(regs);
    free(ref);
}

static void run_client(struct ctx *c, uint32_t distinct)
{
    uint64_t raddr, items = c->len / 4;
    uint32_t rkey;
    char m[MSG_LEN];
    size_t posted = 0, done = 0, n = c->len / CHUNK;
    double t0;

    /* item i: (i mod distinct) times an odd constant, a bijection of 32-bit words */
    for (uint64_t i = 0; i < items; i++) {
        uint32_t v = htole32((uint32_t)(i % distinct) * 2654435761u);
        memcpy(c->buf + 4 * i, &v, 4);
    }
    connect_peer(c, &raddr, &rkey);
    t0 = now_s();
    while (done < n) {
        while (posted < n && posted - done < DEPTH) {
            struct ibv_sge sge = { .addr = (uintptr_t)(c->buf + posted * CHUNK), .length = CHUNK,
                                   .lkey = c->mr->lkey };
            struct ibv_send_wr wr = { .wr_id = posted, .sg_list = &sge, .num_sge = 1,
                                      .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
                                      .wr.rdma = { .remote_addr = raddr + posted * CHUNK, .rkey = rkey } }, *bad;
            int r = ibv_post_send(c->qp, &wr, &bad);
            if (r)
                fail("ibv_post_send: %s", strerror(r));
            posted++;
        }
        struct ibv_wc wc;
        int k = ibv_poll_cq(c->cq, 1, &wc);
        if (k < 0)
            fail("ibv_poll_cq");
        if (k && wc.status != IBV_WC_SUCCESS)
            fail("WRITE %" PRIu64 ": %s", wc.wr_id, ibv_wc_status_str(wc.status));
        done += k;
        if (now_s() - t0 > timeout_s * 10)
            fail("the WRITEs took more than %d s", timeout_s * 10);
    }
    say("wrote %zu MiB (%" PRIu64 " items, %u distinct) in %.1f s", c->len >> 20, items, distinct, now_s() - t0);
    send_msg("DONE");
    recv_msg(m, "RESULT ok");
}

int main(int argc, char **argv)
{
    struct vm_opts o = { .gidx = -1, .port = 18570, .ib_port = 1 };
    unsigned long mib = 64, distinct = 1000000;
    int opt;

    while ((opt = getopt(argc, argv, VM_OPTS "m:u:h")) != -1) {
        if (opt == 'm')
            mib = strtoul(optarg, NULL, 0);
        else if (opt == 'u')
            distinct = strtoul(optarg, NULL, 0);
        else if (!vm_opt(&o, opt, optarg)) {
            fprintf(stderr, "usage: %s [-d DEV] -g GID-INDEX [-p TCP-PORT (18570)] [-i IB-PORT (1)] [-t SECS (30)] "
                            "[-m MIB (64)] [-u DISTINCT (1000000)] [SERVER-IPv4]\n"
                            "  without SERVER-IPv4: the server (a snic device); with it: the client\n", argv[0]);
            return 2;
        }
    }
    struct ctx c = { .ib_port = o.ib_port, .gidx = o.gidx, .len = (size_t)mib << 20 };
    if (c.gidx < 0 || timeout_s <= 0 || optind < argc - 1 || !mib || mib > 1024 || !distinct ||
        distinct > UINT32_MAX) {
        fprintf(stderr, "%s: -g GID-INDEX is required, -m 1..1024, -u 1..2^32-1 (see -h)\n", argv[0]);
        return 2;
    }
    bool client = optind == argc - 1;
    role = client ? "client" : "server";
    arm_alarm((unsigned)(20 * timeout_s));
    setup(&c, o.dev);
    if (client) {
        tcp_client(argv[optind], o.port);
        run_client(&c, (uint32_t)distinct);
    } else {
        tcp_server(o.port);
        run_server(&c);
    }
    say("PASS");
    return 0;
}
