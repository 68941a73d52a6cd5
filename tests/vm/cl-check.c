/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cl-check: snic's connectionless transport between two hosts, through snicdv only
 * (snicdv_create_qp with SNICDV_QP_CL, ibv_wr_rdma_write[_imm] with snicdv_wr_set_cl_addr).
 *
 * The server (receiver) makes one endpoint and one memory region and tells the client
 * nothing but their numbers: no per-peer set-up. The client makes two endpoints and posts,
 * alternating between them, -n registered operations (1-64 KiB; the ones over 32 KiB cut
 * into 16 KiB segments by the endpoint) and -u non-registered ones, each to its own range
 * of the server's region, with a tag naming the sender and the operation (every tenth
 * registered one written without an immediate: tag 0). The server blocks on
 * ibv_get_cq_event and takes every receive notification (SNICDV_WC_CL_RECV): exactly one
 * per operation or segment, with its base (wr_id), length, tag and sending endpoint
 * (src_qp), the data in place when it comes. Then the client writes to a UD QP of the
 * server that is no endpoint, which drops the packets: the write must fail with
 * IBV_WC_RETRY_EXC_ERR after its retries, and the server sees nothing of it; a last
 * batch of 20 operations must then pass as the first. No notification may come after.
 *
 * -R (server) / -O (client): the server is any RoCE device (rxe) with a plain UD QP and a
 * buffer of 0xa5; the client's CL write to it must fail with IBV_WC_RETRY_EXC_ERR and the
 * buffer stay untouched (rxe drops BTH TVer 3), the server's QP still in RTS.
 *
 *   cl-check [-d DEV] -g GIDX [-p PORT] [-t SECS] [-n REG (1000)] [-u UNREG (100)]
 *            [-T TIMEOUT-US (5000)] [-s SEED] [-w WINDOW (2)] [-R | -O] [SERVER-IPv4]
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/snicdv.h>

#include "vmtool.h"

const char tool_name[] = "cl-check";

#define QKEY        0x11111111u
#define SEG_THR     (32u << 10)     /* operations over this are segmented ... */
#define SEG_SIZE    (16u << 10)     /* ... into segments of this */
#define LAST_BATCH  20              /* operations after the missing endpoint's */
/*
 * Operations in flight per endpoint (-w). There is no congestion control (the paper's
 * network is lossless and its delay bounded): an endpoint sends what it is given at
 * once, so what is in flight must cross the wire within the per-packet timeout, or every
 * packet is resent and the queues only grow. The emulated wire carries some ten MB/s.
 */
static uint32_t window = 2;
#define RETRIES     7

struct op {
    uint64_t off;       /* in both buffers */
    uint32_t len, tag;
    uint8_t sender;     /* the client's endpoint 0 or 1 */
    bool registered, imm;
};

struct seg {
    uint64_t off;
    uint32_t len, op;
    unsigned seen;
};

static struct op *ops;
static struct seg *segs;
static uint32_t nops, nsegs;
static uint64_t total;

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* The operations both sides derive from the seed: phase 1 (reg + unreg), then LAST_BATCH */
static void make_ops(uint64_t seed, uint32_t reg, uint32_t unreg)
{
    uint64_t s = seed;
    uint32_t i;

    nops = reg + unreg + LAST_BATCH;
    ops = calloc(nops, sizeof(*ops));
    segs = calloc((size_t)nops * 4, sizeof(*segs));
    if (!ops || !segs)
        fail("out of memory");
    for (i = 0; i < nops; i++) {
        struct op *o = &ops[i];
        bool unreg_op = i >= reg && i < reg + unreg;

        /* 1-64 KiB, a quarter of them over the segmentation threshold */
        o->len = (rnd(&s) & 3) ? 1024 + rnd(&s) % (SEG_THR - 1024 + 1)
                               : SEG_THR + 1 + rnd(&s) % (SEG_THR * 2 - SEG_THR);
        o->off = total;
        total += (o->len + 63) & ~63u;
        o->sender = i & 1;
        o->registered = !unreg_op;
        o->imm = unreg_op || i % 10;
        o->tag = o->imm ? (uint32_t)o->sender << 24 | (i + 1) : 0;
        /* as the endpoint cuts it (SET_QP_CL's threshold and size) */
        for (uint32_t done = 0; done < o->len; ) {
            uint32_t l = o->len > SEG_THR ? SEG_SIZE : o->len;

            if (l > o->len - done)
                l = o->len - done;
            segs[nsegs++] = (struct seg){ .off = o->off + done, .len = l, .op = i };
            done += l;
        }
    }
}

/* Byte j of operation i */
static uint8_t pat(uint32_t i, uint32_t j)
{
    uint32_t x = (i + 1) * 0x9e3779b1u ^ (j >> 2) * 0x85ebca77u;

    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return (uint8_t)(x >> ((j & 3) * 8));
}

static void fill(uint8_t *buf, uint32_t i)
{
    for (uint32_t j = 0; j < ops[i].len; j++)
        buf[ops[i].off + j] = pat(i, j);
}

static void check_data(const uint8_t *buf, const struct seg *sg)
{
    uint32_t base = (uint32_t)(sg->off - ops[sg->op].off);

    for (uint32_t j = 0; j < sg->len; j++)
        if (buf[sg->off + j] != pat(sg->op, base + j))
            fail("operation %u (tag %#x): byte %u of its segment at +%u is %#x, not %#x", sg->op,
                 ops[sg->op].tag, j, base, buf[sg->off + j], pat(sg->op, base + j));
}

struct ctx {
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_comp_channel *ch;
    struct ibv_cq *cq;
    struct ibv_qp *ep[2], *ud;
    struct ibv_mr *mr;
    uint8_t *buf;
    int ib_port, gidx;
    enum ibv_mtu mtu;
    union ibv_gid gid;
    uint32_t timeout_us;
};

static void to_rts(struct ibv_qp *qp, int ib_port)
{
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = (uint8_t)ib_port, .qkey = QKEY };

    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
        fail("QP %#x -> INIT: %s", qp->qp_num, strerror(errno));
    a.qp_state = IBV_QPS_RTR;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
        fail("QP %#x -> RTR: %s", qp->qp_num, strerror(errno));
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 0;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
        fail("QP %#x -> RTS: %s", qp->qp_num, strerror(errno));
}

static struct ibv_qp *make_qp(struct ctx *c, bool cl, bool writes)
{
    struct ibv_qp_init_attr_ex ia = {
        .qp_type = IBV_QPT_UD, .send_cq = c->cq, .recv_cq = c->cq, .pd = c->pd,
        .cap = { .max_send_wr = 64, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
        .comp_mask = IBV_QP_INIT_ATTR_PD,
    };
    struct snicdv_qp_init_attr dv = {
        .comp_mask = SNICDV_QP_INIT_ATTR_MASK_QP_TYPE, .qp_type = SNICDV_QP_CL,
        .cl_seg_threshold = SEG_THR, .cl_seg_size = SEG_SIZE,
        .cl_timeout_us = c->timeout_us, .cl_retries = RETRIES,
    };
    struct ibv_qp *qp;

    if (writes && cl) {
        /* an endpoint sends CL WRITEs only: UD SENDs are refused at creation */
        ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND;
        qp = snicdv_create_qp(c->vctx, &ia, &dv);
        if (qp || errno != EINVAL)
            fail("an endpoint with UD SENDs: %s, not EINVAL", qp ? "created" : strerror(errno));
    }
    if (writes) {
        ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
    }
    qp = cl ? snicdv_create_qp(c->vctx, &ia, &dv) : ibv_create_qp_ex(c->vctx, &ia);
    if (!qp)
        fail("%s: %s", cl ? "snicdv_create_qp(SNICDV_QP_CL)" : "ibv_create_qp_ex(UD)", strerror(errno));
    to_rts(qp, c->ib_port);
    return qp;
}

static void setup(struct ctx *c, const char *dev, size_t len, int access)
{
    c->vctx = open_rdma_device(dev);
    query_port_gid(c->vctx, c->ib_port, c->gidx, &c->mtu, &c->gid);
    c->pd = ibv_alloc_pd(c->vctx);
    c->ch = ibv_create_comp_channel(c->vctx);
    if (!c->pd || !c->ch)
        fail("ibv_alloc_pd/ibv_create_comp_channel: %s", strerror(errno));
    c->cq = ibv_create_cq(c->vctx, 4096, NULL, c->ch, 0);
    if (!c->cq)
        fail("ibv_create_cq: %s", strerror(errno));
    c->buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
    if (!c->buf)
        fail("out of memory for %zu bytes", len);
    memset(c->buf, 0, len);
    c->mr = ibv_reg_mr(c->pd, c->buf, len, access);
    if (!c->mr)
        fail("ibv_reg_mr(%zu): %s", len, strerror(errno));
}

/* ---- server ---------------------------------------------------------------------- */

/*
 * Wait (blocking, ibv_get_cq_event) until every segment of operations [from, to) was
 * notified, each once. Returns the completion events taken.
 */
static unsigned recv_notifications(struct ctx *c, const uint32_t *ep_of, uint32_t from, uint32_t to)
{
    uint32_t first = 0, last, want = 0, got = 0;
    unsigned events = 0;
    struct ibv_wc wc[32];

    while (first < nsegs && segs[first].op < from)
        first++;
    for (last = first; last < nsegs && segs[last].op < to; last++)
        want++;
    while (got < want) {
        int n = ibv_poll_cq(c->cq, 32, wc);

        if (n < 0)
            fail("ibv_poll_cq: %d", n);
        if (n == 0) {
            struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
            struct ibv_cq *ecq;
            void *ectx;

            /* armed, then polled once more: a CQE written meanwhile is not missed */
            if (ibv_req_notify_cq(c->cq, 0))
                fail("ibv_req_notify_cq: %s", strerror(errno));
            n = ibv_poll_cq(c->cq, 32, wc);
            if (n == 0) {
                int r = poll(&pfd, 1, timeout_s * 1000);

                if (r <= 0)
                    fail("no notification in %d s: %u of %u segments of operations %u..%u in",
                         timeout_s, got, want, from, to - 1);
                if (ibv_get_cq_event(c->ch, &ecq, &ectx))
                    fail("ibv_get_cq_event: %s", strerror(errno));
                ibv_ack_cq_events(ecq, 1);
                events++;
                continue;
            }
            if (n < 0)
                fail("ibv_poll_cq: %d", n);
        }
        for (int k = 0; k < n; k++) {
            struct ibv_wc *w = &wc[k];
            uint32_t lo = first, hi = last;

            if (w->status != IBV_WC_SUCCESS || w->opcode != SNICDV_WC_CL_RECV)
                fail("completion status %s (%d), opcode %#x on QP %#x: not a notification",
                     ibv_wc_status_str(w->status), w->status, w->opcode, w->qp_num);
            if (w->qp_num != c->ep[0]->qp_num)
                fail("a notification on QP %#x, not the endpoint %#x", w->qp_num, c->ep[0]->qp_num);
            while (lo < hi) {       /* segments ascend by offset */
                uint32_t mid = lo + (hi - lo) / 2;

                if ((uintptr_t)c->buf + segs[mid].off < w->wr_id)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == last || (uintptr_t)c->buf + segs[lo].off != w->wr_id)
                fail("a notification for base %#" PRIx64 ", which no operation of %u..%u starts",
                     w->wr_id, from, to - 1);
            struct seg *sg = &segs[lo];
            struct op *o = &ops[sg->op];
            if (sg->seen++)
                fail("a second notification for operation %u's segment at +%" PRIu64, sg->op, sg->off - o->off);
            if (w->byte_len != sg->len)
                fail("operation %u: byte_len %u, not %u", sg->op, w->byte_len, sg->len);
            if (!(w->wc_flags & IBV_WC_WITH_IMM) || be32toh(w->imm_data) != o->tag)
                fail("operation %u: tag %#x (flags %#x), not %#x", sg->op, be32toh(w->imm_data),
                     w->wc_flags, o->tag);
            if (w->src_qp != ep_of[o->sender])
                fail("operation %u: from endpoint %#x, not %#x", sg->op, w->src_qp, ep_of[o->sender]);
            check_data(c->buf, sg);
            got++;
        }
    }
    return events;
}

static void run_server(struct ctx *c, uint32_t reg, uint32_t unreg)
{
    char m[MSG_LEN], gs[33];
    uint32_t ep_of[2], per[2] = { 0, 0 }, nseg1 = 0;
    unsigned ev;
    double t0;

    c->ep[0] = make_qp(c, true, false);
    c->ud = make_qp(c, false, false);   /* a QP that is no endpoint: CL packets dropped */
    gid_to_hex(&c->gid, gs);
    send_msg("EP %06x %06x %s %016" PRIx64 " %08x %016" PRIx64, c->ep[0]->qp_num, c->ud->qp_num, gs,
             (uint64_t)(uintptr_t)c->buf, c->mr->rkey, total);
    say("endpoint %#x, UD QP %#x (no endpoint), %" PRIu64 " bytes registered for %u operations, %u notifications",
        c->ep[0]->qp_num, c->ud->qp_num, total, nops, nsegs);
    recv_msg(m, "GO ");
    if (sscanf(m, "GO %x %x", &ep_of[0], &ep_of[1]) != 2)
        fail("bad GO message: %s", m);
    t0 = now_s();
    ev = recv_notifications(c, ep_of, 0, reg + unreg);
    for (uint32_t i = 0; i < reg + unreg; i++)
        per[ops[i].sender]++;
    while (nseg1 < nsegs && segs[nseg1].op < reg + unreg)
        nseg1++;
    say("check notifications: PASS: %u operations (%u registered, %u not), one notification per operation or "
        "segment (%u), data and tags checked, in %.1f s, %u completion events",
        reg + unreg, reg, unreg, nseg1, now_s() - t0, ev);
    say("check two-senders: PASS: %u operations from endpoint %#x and %u from %#x of one host, told apart by "
        "tag, none set up here", per[0], ep_of[0], per[1], ep_of[1]);
    send_msg("PHASE1");
    recv_msg(m, "PHASE2");
    recv_notifications(c, ep_of, reg + unreg, nops);
    say("check after-missing-endpoint: PASS: the %u operations after it notified and checked", LAST_BATCH);
    /* Everything the client's endpoints could still resend has expired: nothing more comes */
    usleep((useconds_t)(RETRIES + 2) * c->timeout_us * 2);
    struct ibv_wc wc;
    int n = ibv_poll_cq(c->cq, 1, &wc);
    if (n != 0)
        fail("a completion after the last notification (status %d, opcode %#x, wr_id %#" PRIx64 ")",
             n < 0 ? n : (int)wc.status, n < 0 ? 0 : wc.opcode, n < 0 ? 0 : wc.wr_id);
    send_msg("DONE");
}

/* -R: a plain UD QP and a buffer of 0xa5 that a CL write must not touch */
static void run_server_plain(struct ctx *c)
{
    char m[MSG_LEN], gs[33];
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    struct ibv_wc wc;
    size_t i;

    memset(c->buf, 0xa5, 65536);
    c->ud = make_qp(c, false, false);
    gid_to_hex(&c->gid, gs);
    send_msg("EP %06x %06x %s %016" PRIx64 " %08x %016" PRIx64, c->ud->qp_num, c->ud->qp_num, gs,
             (uint64_t)(uintptr_t)c->buf, c->mr->rkey, (uint64_t)65536);
    recv_msg(m, "DONE");
    for (i = 0; i < 65536 && c->buf[i] == 0xa5; i++)
        ;
    if (i < 65536)
        fail("byte %zu of the buffer is %#x: the CL write touched it", i, c->buf[i]);
    if (ibv_query_qp(c->ud, &a, IBV_QP_STATE, &ia) || a.qp_state != IBV_QPS_RTS)
        fail("UD QP %#x not in RTS after the CL write", c->ud->qp_num);
    if (ibv_poll_cq(c->cq, 1, &wc) != 0)
        fail("a completion on the UD QP's CQ after the CL write");
    say("check plain-peer: PASS: the buffer untouched (64 KiB of 0xa5), UD QP %#x in RTS, no completion",
        c->ud->qp_num);
    send_msg("RESULT ok");
}

/* ---- client ---------------------------------------------------------------------- */

static uint32_t inflight[2];

static void post_op(struct ctx *c, struct ibv_ah *ah, uint32_t dest, uint64_t raddr, uint32_t rkey,
                    uint32_t i, uint32_t ep, uint64_t loff, uint32_t len, bool registered, uint32_t tag,
                    bool imm)
{
    struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(c->ep[ep]);
    int r;

    ibv_wr_start(qx);
    qx->wr_id = i;
    qx->wr_flags = IBV_SEND_SIGNALED;
    if (imm)
        ibv_wr_rdma_write_imm(qx, rkey, raddr, htobe32(tag));
    else
        ibv_wr_rdma_write(qx, rkey, raddr);
    snicdv_wr_set_cl_addr(qx, ah, dest, registered ? 0 : SNICDV_CL_UNREGISTERED);
    ibv_wr_set_sge(qx, c->mr->lkey, (uintptr_t)c->buf + loff, len);
    r = ibv_wr_complete(qx);
    if (r)
        fail("operation %u: ibv_wr_complete: %s", i, strerror(r));
    inflight[ep]++;
}

/* One completion; fails unless it is operation want's (any if want < 0) with status st */
static uint64_t reap(struct ctx *c, enum ibv_wc_status st, double deadline)
{
    struct ibv_wc wc;
    int n;

    while ((n = ibv_poll_cq(c->cq, 1, &wc)) == 0)
        if (now_s() > deadline)
            fail("no send completion in time");
    if (n < 0)
        fail("ibv_poll_cq: %d", n);
    if (wc.status != st || (st == IBV_WC_SUCCESS && wc.opcode != SNICDV_WC_CL_WRITE))
        fail("operation %" PRIu64 ": status %s (%d), opcode %#x; wanted %s", wc.wr_id,
             ibv_wc_status_str(wc.status), wc.status, wc.opcode, ibv_wc_status_str(st));
    inflight[wc.qp_num == c->ep[0]->qp_num ? 0 : 1]--;
    return wc.wr_id;
}

static void send_ops(struct ctx *c, struct ibv_ah *ah, uint32_t dest, uint64_t rbase, uint32_t rkey,
                     uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++) {
        struct op *o = &ops[i];

        while (inflight[o->sender] >= window)
            reap(c, IBV_WC_SUCCESS, now_s() + timeout_s);
        post_op(c, ah, dest, rbase + o->off, rkey, i, o->sender, o->off, o->len, o->registered, o->tag,
                o->imm);
    }
    while (inflight[0] + inflight[1])
        reap(c, IBV_WC_SUCCESS, now_s() + timeout_s);
}

static struct ibv_ah *make_ah(struct ctx *c, const union ibv_gid *dgid)
{
    struct ibv_ah_attr aa = {
        .is_global = 1, .port_num = (uint8_t)c->ib_port,
        .grh = { .dgid = *dgid, .sgid_index = (uint8_t)c->gidx, .hop_limit = 64 },
    };
    struct ibv_ah *ah = ibv_create_ah(c->pd, &aa);

    if (!ah)
        fail("ibv_create_ah: %s", strerror(errno));
    return ah;
}

/* A CL write to QP dest, which is no endpoint: RETRY_EXC_ERR after the retries */
static void write_to_nowhere(struct ctx *c, struct ibv_ah *ah, uint32_t dest, uint64_t raddr, uint32_t rkey)
{
    double t0 = now_s(), bound = (RETRIES + 1) * c->timeout_us / 1e6;

    post_op(c, ah, dest, raddr, rkey, 0xdead, 0, 0, 4096, true, 0xdead, true);
    if (reap(c, IBV_WC_RETRY_EXC_ERR, t0 + timeout_s) != 0xdead)
        fail("the failed write's completion names another work request");
    say("check missing-endpoint: PASS: a CL write to QP %#x (no endpoint) failed with %s after %.3f s "
        "(%d retries of %u us: at least %.3f s)", dest, ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR), now_s() - t0,
        RETRIES, c->timeout_us, bound);
    if (now_s() - t0 < bound)
        fail("it failed before its retries could have been made");
}

/* A port counter of the device (rdma statistic's, in sysfs) */
static unsigned long port_counter(struct ctx *c, const char *name)
{
    char path[256];
    unsigned long v;
    FILE *f;

    snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/hw_counters/%s",
             ibv_get_device_name(c->vctx->device), (unsigned)c->ib_port, name);
    f = fopen(path, "r");
    if (!f || fscanf(f, "%lu", &v) != 1)
        fail("%s: %s", path, f ? "not a number" : strerror(errno));
    fclose(f);
    return v;
}

static void run_client(struct ctx *c, uint32_t reg, uint32_t unreg, bool plain)
{
    char m[MSG_LEN], gs[33];
    unsigned ep, ud;
    uint64_t rbase, rtotal;
    uint32_t rkey;
    union ibv_gid dgid;
    struct ibv_ah *ah;
    unsigned long rtx;
    double t0;

    c->ep[0] = make_qp(c, true, true);
    c->ep[1] = make_qp(c, true, true);
    recv_msg(m, "EP ");
    if (sscanf(m, "EP %x %x %32s %" SCNx64 " %x %" SCNx64, &ep, &ud, gs, &rbase, &rkey, &rtotal) != 6 ||
        strlen(gs) != 32)
        fail("bad EP message: %s", m);
    gid_from_hex(gs, &dgid);
    ah = make_ah(c, &dgid);
    if (plain) {
        say("CL endpoint %u writes to peer QP %u", c->ep[0]->qp_num, ud);
        write_to_nowhere(c, ah, ud, rbase, rkey);
        send_msg("DONE");
        recv_msg(m, "RESULT ok");
        return;
    }
    if (rtotal != total)
        fail("the server's operations take %" PRIu64 " bytes, ours %" PRIu64 ": not the same seed?", rtotal, total);
    for (uint32_t i = 0; i < nops; i++)
        fill(c->buf, i);
    send_msg("GO %06x %06x", c->ep[0]->qp_num, c->ep[1]->qp_num);
    rtx = port_counter(c, "cl_retransmits");
    t0 = now_s();
    send_ops(c, ah, ep, rbase, rkey, 0, reg + unreg);
    /* the lossy wire's losses were made good (the missing endpoint's later) */
    rtx = port_counter(c, "cl_retransmits") - rtx;
    say("check lossy-wire-resends: %s: %lu packets resent", rtx ? "PASS" : "FAIL", rtx);
    if (!rtx)
        fail("nothing resent on a wire dropping packets");
    say("%u operations (%u registered, %u not; %" PRIu64 " bytes) from endpoints %#x and %#x to %#x "
        "acknowledged in %.1f s", reg + unreg, reg, unreg, ops[reg + unreg].off, c->ep[0]->qp_num,
        c->ep[1]->qp_num, ep, now_s() - t0);
    recv_msg(m, "PHASE1");
    write_to_nowhere(c, ah, ud, rbase, rkey);
    send_msg("PHASE2");
    send_ops(c, ah, ep, rbase, rkey, reg + unreg, nops);
    recv_msg(m, "DONE");
}

int main(int argc, char **argv)
{
    struct vm_opts o = { .gidx = -1, .port = 18580, .ib_port = 1 };
    unsigned long reg = 1000, unreg = 100, tmo = 5000;
    uint64_t seed = 0x5eed;
    bool plain = false;
    int opt;

    while ((opt = getopt(argc, argv, VM_OPTS "n:u:T:s:w:ROh")) != -1) {
        if (opt == 'n')
            reg = strtoul(optarg, NULL, 0);
        else if (opt == 'u')
            unreg = strtoul(optarg, NULL, 0);
        else if (opt == 'T')
            tmo = strtoul(optarg, NULL, 0);
        else if (opt == 's')
            seed = strtoull(optarg, NULL, 0);
        else if (opt == 'w')
            window = (uint32_t)strtoul(optarg, NULL, 0);
        else if (opt == 'R' || opt == 'O')
            plain = true;
        else if (!vm_opt(&o, opt, optarg)) {
            fprintf(stderr, "usage: %s [-d DEV] -g GID-INDEX [-p TCP-PORT (18580)] [-i IB-PORT (1)] [-t SECS (30)] "
                            "[-n REGISTERED (1000)] [-u UNREGISTERED (100)] [-T TIMEOUT-US (5000)] [-s SEED] [-w WINDOW (2)] "
                            "[-R | -O] [SERVER-IPv4]\n"
                            "  without SERVER-IPv4: the receiver; with it: the sender (snic)\n"
                            "  -R: the receiver is a plain UD QP (any RoCE device); -O: the sender's side of it\n",
                    argv[0]);
            return 2;
        }
    }
    if (o.gidx < 0 || timeout_s <= 0 || optind < argc - 1 || !reg || reg > 100000 || unreg > 100000 || !tmo ||
        tmo > 1000000 || !window || window > 32) {
        fprintf(stderr, "%s: -g GID-INDEX is required, -n 1..100000, -u 0..100000, -T 1..1000000, -w 1..32 (see -h)\n",
                argv[0]);
        return 2;
    }
    bool client = optind == argc - 1;
    role = client ? "client" : "server";
    arm_alarm((unsigned)(20 * timeout_s));
    struct ctx c = { .ib_port = o.ib_port, .gidx = o.gidx, .timeout_us = (uint32_t)tmo };
    make_ops(seed, (uint32_t)reg, (uint32_t)unreg);
    setup(&c, o.dev, plain ? 65536 : total,
          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (client) {
        tcp_client(argv[optind], o.port);
        run_client(&c, (uint32_t)reg, (uint32_t)unreg, plain);
    } else {
        tcp_server(o.port);
        if (plain)
            run_server_plain(&c);
        else
            run_server(&c, (uint32_t)reg, (uint32_t)unreg);
    }
    say("PASS");
    return 0;
}
