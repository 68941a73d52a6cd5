// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verbs-check: end-to-end checks of an RDMA device's RC data path, by content, between two
 * hosts (libibverbs only; the out-of-band exchange goes over TCP like ibv_rc_pingpong).
 *
 *   server:  verbs-check [-d DEV] [-g GIDX] [-p PORT] [-i IBPORT] [-t SECS] [-s BYTES]
 *   client:  verbs-check [same options] SERVER-IP
 *
 * Checks (the client drives, the server verifies what lands in its memory):
 *   a. RDMA WRITE of BYTES (1 MiB) client -> server on QP A, then a SEND on the same QP:
 *      when the server's RECV completes, the WRITE's data must be in place (RC ordering);
 *      the server checks the SEND's bytes and the whole written pattern.
 *   b. RDMA READ of BYTES by the client from a server buffer holding another pattern;
 *      the client checks every byte.
 *   c. a second RC QP (QP B) to the server in the same process: a WRITE whose local SGE
 *      lies outside its MR (address past the end, valid lkey) must complete with
 *      IBV_WC_LOC_PROT_ERR, QP B must then be in the error state and a further WR on it
 *      must complete with IBV_WC_WR_FLUSH_ERR; QP A keeps working: a WRITE, a READ back of
 *      it, and a READ of a third pattern all succeed with the right bytes, and the server
 *      finds the WRITE's bytes in its memory.
 *   d. extended verbs on QP C (ibv_create_qp_ex with send_ops_flags, ibv_cq_ex on both
 *      sides): one ibv_wr_start..ibv_wr_complete batch of an unsignaled RDMA WRITE with a
 *      two-SGE list and a SEND with immediate data; then FETCH_ADD, CMP_SWAP and a READ of
 *      the same word, polled with start_poll/next_poll/end_poll. The server
 *      checks its receive completion through the ibv_wc_read_* accessors (opcode, IMM flag
 *      and value, byte_len, qp_num) and the WRITE's bytes; the client checks the atomics'
 *      results. After check e, a batch dropped with ibv_wr_abort must never complete. Where
 *      the device reports CQ moderation (ibv_query_device_ex), the client's ibv_modify_cq
 *      takes values within it and refuses max_cq_count + 1 with EINVAL.
 *   e. inline data (when both devices take max_inline_data >= 128 on QP C): a 100-byte SEND
 *      with IBV_SEND_INLINE from an unregistered buffer cleared right after posting, and an
 *      RDMA WRITE whose payload is ibv_wr_set_inline_data_list of two pieces (not on rxe,
 *      whose provider completes it with wr_id 0); the server checks both by content.
 *   f. a shared receive queue (when both devices report max_srq > 0): the server's QPs S1
 *      and S2 receive from one SRQ of 8 WQEs, reposted as they complete; the client sends 40
 *      SENDs with immediate data over both, in batches of 8; the server checks every
 *      payload against its sequence number and QP. Before the last batch it arms the SRQ
 *      limit at 4 and must then get IBV_EVENT_SRQ_LIMIT_REACHED, after which the limit
 *      reads back as 0 (disarmed).
 *
 * Many QPs (-Q N, instead of the checks above): N RC QPs on each side, one CQ and one MR;
 * the client WRITEs a 64-byte pattern of its own into QP i's slot of the server's buffer
 * and SENDs a second one into QP i's receive buffer, on every QP; the server checks every
 * QP's two patterns and that each QP received exactly once; then both destroy everything.
 * (Connection scalability: the device must hold N QPs at once, keep each one's
 * data apart, and give every one back.)
 *
 * Self-test (-X a|b|c, server side): the server corrupts one word of what check a, b or c
 * verifies, so that check must fail; proves the checks can fail.
 *
 * Faults from outside (the VM tests take the port down with QEMU's set_link and arm
 * failing admin commands with qom-set; the role says when):
 *   -W (client): once the QPs are connected, wait for a line on standard input before the
 *      checks, so that they run while the link is down for a while (their QPs retry until
 *      it is back: every check must still pass by content).
 *   -E SECS (both sides): instead of the checks, the client waits for a line on standard
 *      input (the link is down), posts a 64 KiB WRITE on QP A, which must complete with
 *      IBV_WC_RETRY_EXC_ERR no sooner than 0.9 times the QP's retry budget ((retry_cnt + 1)
 *      local ACK timeouts) and no later than the budget + SECS; then it waits for a second
 *      line (the link is back) and tells the server, which waited for it.
 *   -C N (alone, no peer): the device fails the next N CREATE_QP commands: N ibv_create_qp
 *      calls must each fail with an errno, the next one must succeed; all is given back.
 *
 * Use after unmap (-U FILE, client side; behind an IOMMU in translating, strict mode with
 * snic.ko's fault_inject=1): check c's bad WRITE comes instead from a fresh MR registered
 * right after writing 1 to FILE (debugfs snic/<pci-name>/mr_use_after_unmap), which makes
 * the driver list as that MR's first page a DMA address it has already unmapped. The
 * WRITE, inside the MR, must complete with IBV_WC_LOC_PROT_ERR; FILE's report of the
 * address is printed as "use-after-unmap: iova=... unmapped=1". The rest of check c is
 * unchanged.
 *
 * RoCE: every QP is addressed with a GRH (sgid_index = -g, the peer's GID from the
 * exchange); the path MTU is the port's active_mtu. Every verbs call is checked; every wait
 * has a deadline (-t, default 30 s per completion or message; the whole run is bounded by
 * an alarm too), so it never hangs. Prints each check; exits 0 when all passed, 1 on any
 * failure (with a message saying what and where), 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vmtool.h"

#define SMALL (64 * 1024)       /* size of the check (c) transfers */
#define SEND_LEN 64             /* the SEND of check (a) */
#define NQP 5                   /* QP A, B, C (extended), S1, S2 (SRQ) */
enum { QA, QB, QC, QS1, QS2 };
#define INL_MAX 128             /* check (e) needs this much inline data */
#define INL_SEND 100            /* check (e)'s inline SEND */
#define SRQ_WR 8                /* check (f): the SRQ's max_wr, and a batch */
#define SRQ_MSGS 40             /* check (f): SENDs in all */
#define SRQ_LEN 64              /* check (f): bytes of each */
#define SRQ_LIMIT 4
#define IMM_D 0xc0de0001u
#define ATOM0 0x1000ull         /* check (d): the server's word before the atomics */
#define ATOM_ADD 0x23ull
#define ATOM_SWAP 0xfeedull
/* Optional checks, run when both sides' devices can (FEAT message) */
#define F_INLINE 1u
#define F_SRQ 2u

const char tool_name[] = "verbs-check";

/* ---- patterns ------------------------------------------------------------------------- */

/* Word i of pattern `seed`: a 32-bit mix of both, so shifted or stale data never matches. */
static uint32_t pat_word(uint32_t seed, uint64_t i)
{
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 32 | seed);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    return (uint32_t)x;
}

static void pat_fill(void *buf, size_t len, uint32_t seed)
{
    uint32_t *w = buf;
    for (size_t i = 0; i < len / 4; i++)
        w[i] = pat_word(seed, i);
}

/* 0 when buf holds pattern seed; else describes the first mismatch in why. */
static int pat_check(const void *buf, size_t len, uint32_t seed, char *why, size_t whylen)
{
    const uint32_t *w = buf;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < len / 4; i++) {
        if (w[i] != pat_word(seed, i)) {
            if (!bad)
                first = i;
            bad++;
        }
    }
    if (!bad)
        return 0;
    snprintf(why, whylen, "%zu of %zu words differ; first at byte offset %zu: got 0x%08x, expected 0x%08x%s",
             bad, len / 4, first * 4, w[first], pat_word(seed, first),
             w[first] == 0 ? " (never written?)" : "");
    return -1;
}

enum { PAT_A = 0xa11ce, PAT_B = 0xb0b, PAT_C = 0xc0ffee, PAT_D = 0xd00d, PAT_SEND = 0x5e4d, PAT_E = 0xe1e,
       PAT_G = 0x9a9, PAT_H = 0x4a4, PAT_SRQ = 0x5a0 };

/* ---- verbs ---------------------------------------------------------------------------- */

struct peer_info {
    uint32_t qpn[NQP], psn[NQP];
    union ibv_gid gid;
    uint64_t addr;
    uint32_t rkey;
    uint64_t len;
};

struct ctx {
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq[NQP];     /* cq[QC] is cqx's; S1 and S2 share cq[QS1] */
    struct ibv_qp *qp[NQP];     /* NULL: not created (no SRQ) */
    struct ibv_cq_ex *cqx;      /* QP C's send and receive CQ */
    struct ibv_qp_ex *qpx;      /* QP C's ibv_wr_* interface */
    struct ibv_srq *srq;        /* the server's, for QP S1 and S2 */
    unsigned features;          /* F_*: what this device can */
    int max_srq;
    struct ibv_mr *mr;
    char *buf;
    size_t buflen;
    int ib_port, gidx;
    enum ibv_mtu mtu;
    uint8_t rd_atom;
    union ibv_gid gid;
};

static void gid_str(const union ibv_gid *g, char *s, size_t n)
{
    if (!inet_ntop(AF_INET6, g->raw, s, (socklen_t)n))
        snprintf(s, n, "?");
}

static void open_device(struct ctx *c, const char *devname)
{
    c->vctx = open_rdma_device(devname);
    say("device %s", ibv_get_device_name(c->vctx->device));

    struct ibv_device_attr da;
    int r = ibv_query_device(c->vctx, &da);
    if (r)
        fail("ibv_query_device: %s", strerror(r));
    c->max_srq = da.max_srq;
    /* Outstanding READs: what both ends allow (each side uses the smaller of its limits). */
    int atom = da.max_qp_rd_atom < da.max_qp_init_rd_atom ? da.max_qp_rd_atom : da.max_qp_init_rd_atom;
    c->rd_atom = (uint8_t)(atom > 16 ? 16 : atom < 1 ? 1 : atom);
    if (da.max_qp_rd_atom < 1 || da.max_qp_init_rd_atom < 1)
        fail("device reports max_qp_rd_atom %d, max_qp_init_rd_atom %d: RDMA READ is impossible",
             da.max_qp_rd_atom, da.max_qp_init_rd_atom);
    if ((uint64_t)da.max_mr_size < c->buflen)
        fail("device max_mr_size %" PRIu64 " < the %zu-byte buffer", (uint64_t)da.max_mr_size, c->buflen);

    query_port_gid(c->vctx, c->ib_port, c->gidx, &c->mtu, &c->gid);
    char gs[64];
    gid_str(&c->gid, gs, sizeof(gs));
    say("port %d ACTIVE, active_mtu %s, GID[%d] %s, max_rd_atomic %u", c->ib_port, mtu_str(c->mtu), c->gidx,
        gs, c->rd_atom);
}

/* QP C: ibv_create_qp_ex with the ibv_wr_* op-codes of check (d), on an ibv_cq_ex; with
 * INL_MAX bytes of inline data if the device takes them (check (e)). */
static void create_ex_qp(struct ctx *c)
{
    struct ibv_cq_init_attr_ex cia = { .cqe = 32, .wc_flags = IBV_WC_STANDARD_FLAGS };
    c->cqx = ibv_create_cq_ex(c->vctx, &cia);
    if (!c->cqx)
        fail("ibv_create_cq_ex (IBV_WC_STANDARD_FLAGS): %s", strerror(errno));
    c->cq[QC] = ibv_cq_ex_to_cq(c->cqx);
    struct ibv_qp_init_attr_ex ia = {
        .send_cq = c->cq[QC], .recv_cq = c->cq[QC], .qp_type = IBV_QPT_RC, .pd = c->pd,
        .cap = { .max_send_wr = 16, .max_recv_wr = 8, .max_send_sge = 2, .max_recv_sge = 1,
                 .max_inline_data = INL_MAX },
        .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
        .send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_SEND |
                          IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
                          IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
    };
    c->qp[QC] = ibv_create_qp_ex(c->vctx, &ia);
    if (c->qp[QC]) {
        c->features |= F_INLINE;
    } else {
        say("note: no QP with %d bytes of inline data (%s): check e will not run", INL_MAX, strerror(errno));
        ia.cap.max_inline_data = 0;
        c->qp[QC] = ibv_create_qp_ex(c->vctx, &ia);
    }
    if (!c->qp[QC])
        fail("ibv_create_qp_ex (RC, send_ops_flags %#" PRIx64 "): %s", (uint64_t)ia.send_ops_flags,
             strerror(errno));
    c->qpx = ibv_qp_to_qp_ex(c->qp[QC]);
    if (!c->qpx)
        fail("ibv_qp_to_qp_ex(QP C) returned NULL");
    qp_to_init(c->qp[QC], c->ib_port, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
}

static void create_resources(struct ctx *c, int access)
{
    c->pd = ibv_alloc_pd(c->vctx);
    if (!c->pd)
        fail("ibv_alloc_pd: %s", strerror(errno));
    if (posix_memalign((void **)&c->buf, 4096, c->buflen))
        fail("cannot allocate %zu bytes", c->buflen);
    memset(c->buf, 0, c->buflen);
    c->mr = ibv_reg_mr(c->pd, c->buf, c->buflen, access);
    if (!c->mr)
        fail("ibv_reg_mr(%zu bytes): %s", c->buflen, strerror(errno));
    for (int i = QA; i <= QB; i++) {
        c->cq[i] = ibv_create_cq(c->vctx, 16, NULL, NULL, 0);
        if (!c->cq[i])
            fail("ibv_create_cq: %s", strerror(errno));
        struct ibv_qp_init_attr ia = {
            .send_cq = c->cq[i], .recv_cq = c->cq[i], .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
            .cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
        };
        c->qp[i] = ibv_create_qp(c->pd, &ia);
        if (!c->qp[i])
            fail("ibv_create_qp (RC) #%d: %s", i, strerror(errno));
        qp_to_init(c->qp[i], c->ib_port, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    }
    create_ex_qp(c);
    if (c->max_srq > 0)
        c->features |= F_SRQ;
}

/* Check (d), local part: completion moderation where the device reports it */
static void check_cq_moderation(struct ctx *c)
{
    struct ibv_device_attr_ex dx;
    int r = ibv_query_device_ex(c->vctx, NULL, &dx);
    if (r)
        fail("ibv_query_device_ex: %s", strerror(r));
    struct ibv_cq_moderation_caps *mc = &dx.cq_mod_caps;
    if (!mc->max_cq_count || !mc->max_cq_period) {
        say("check d: no CQ moderation offered (ibv_modify_cq not tried)");
        return;
    }
    struct ibv_modify_cq_attr ma = { .attr_mask = IBV_CQ_ATTR_MODERATE,
                                     .moderate = { .cq_count = 4, .cq_period = 10 } };
    if ((r = ibv_modify_cq(c->cq[QC], &ma)))
        fail("check d: ibv_modify_cq(count 4, period 10 us): %s", strerror(r));
    if (mc->max_cq_count < 0xffff) {
        ma.moderate.cq_count = (uint16_t)(mc->max_cq_count + 1);
        if ((r = ibv_modify_cq(c->cq[QC], &ma)) != EINVAL)
            fail("check d: ibv_modify_cq(count %u > max_cq_count %u) gave %s, expected EINVAL",
                 ma.moderate.cq_count, mc->max_cq_count, r ? strerror(r) : "success");
    }
    ma.moderate.cq_count = 0;
    ma.moderate.cq_period = 0;
    if ((r = ibv_modify_cq(c->cq[QC], &ma)))
        fail("check d: ibv_modify_cq(0, 0): %s", strerror(r));
    say("check d: ibv_modify_cq takes moderation within max_cq_count %u / max_cq_period %u us and refuses more",
        mc->max_cq_count, mc->max_cq_period);
}

/* Check (f)'s QPs S1 and S2: on the server they receive from one SRQ. */
static void create_srq_qps(struct ctx *c, bool server)
{
    c->cq[QS1] = c->cq[QS2] = ibv_create_cq(c->vctx, 64, NULL, NULL, 0);
    if (!c->cq[QS1])
        fail("ibv_create_cq: %s", strerror(errno));
    if (server) {
        struct ibv_srq_init_attr sa = { .attr = { .max_wr = SRQ_WR, .max_sge = 1 } };
        c->srq = ibv_create_srq(c->pd, &sa);
        if (!c->srq)
            fail("ibv_create_srq (max_wr %d): %s", SRQ_WR, strerror(errno));
        if (sa.attr.max_wr < SRQ_WR)
            fail("ibv_create_srq: max_wr %u < the %d asked for", sa.attr.max_wr, SRQ_WR);
    }
    for (int i = QS1; i <= QS2; i++) {
        struct ibv_qp_init_attr ia = {
            .send_cq = c->cq[i], .recv_cq = c->cq[i], .srq = c->srq, .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
            .cap = { .max_send_wr = SRQ_WR, .max_recv_wr = server ? 0 : 1, .max_send_sge = 1,
                     .max_recv_sge = server ? 0 : 1 },
        };
        c->qp[i] = ibv_create_qp(c->pd, &ia);
        if (!c->qp[i])
            fail("ibv_create_qp (RC%s) S%d: %s", server ? " on the SRQ" : "", i - QS1 + 1, strerror(errno));
        qp_to_init(c->qp[i], c->ib_port, IBV_ACCESS_REMOTE_WRITE);
    }
}

static void connect_qp(struct ctx *c, int i, const struct peer_info *p, uint32_t my_psn)
{
    struct rc_conn rc = { .ib_port = c->ib_port, .gidx = c->gidx, .mtu = c->mtu, .rd_atomic = c->rd_atom,
                          .timeout = 16 /* 268 ms: TCG guests are slow */, .sq_psn = my_psn,
                          .dest_qpn = p->qpn[i], .rq_psn = p->psn[i], .dgid = p->gid };
    qp_to_rts(c->qp[i], &rc);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    int r = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);
    if (r)
        fail("ibv_query_qp(QP %#x): %s", qp->qp_num, strerror(r));
    return a.qp_state;
}

static const char *state_str(enum ibv_qp_state s)
{
    static const char *n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
    return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

/* Wait for one completion on cq (deadline -t); it must be wr_id with status want. */
static void expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status want, const char *what)
{
    struct ibv_wc wc;
    double t0 = now_s(), end = t0 + timeout_s;
    int n;
    for (;;) {
        n = ibv_poll_cq(cq, 1, &wc);
        if (n < 0)
            fail("ibv_poll_cq (%s): returned %d", what, n);
        if (n > 0)
            break;
        if (now_s() > end)
            fail("%s: no completion within %d s", what, timeout_s);
        sched_yield();
    }
    if (wc.wr_id != wr_id)
        fail("%s: completion for wr_id %" PRIu64 " (status %s), expected wr_id %" PRIu64, what, wc.wr_id,
             ibv_wc_status_str(wc.status), wr_id);
    if (wc.status != want)
        fail("%s: completion status %s (%d, vendor_err %#x), expected %s", what, ibv_wc_status_str(wc.status),
             wc.status, wc.vendor_err, ibv_wc_status_str(want));
}

static void post_rdma(struct ctx *c, int qi, enum ibv_wr_opcode op, uint64_t wr_id, uint64_t laddr, uint32_t len,
                      uint64_t raddr, uint32_t rkey, const char *what)
{
    struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = c->mr->lkey };
    struct ibv_send_wr wr = {
        .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op, .send_flags = IBV_SEND_SIGNALED,
        .wr.rdma = { .remote_addr = raddr, .rkey = rkey },
    }, *bad = NULL;
    int r = ibv_post_send(c->qp[qi], &wr, &bad);
    if (r)
        fail("ibv_post_send (%s): %s", what, strerror(r));
}

/*
 * Check c's bad WRITE with -U: from a 64 KiB MR registered right after arming the driver's
 * mr_use_after_unmap hook (path), whose first page the driver has unmapped; the hook must
 * report the IOVA unmapped. Returns the MR (its buffer in *bufp), to free after the check.
 */
static struct ibv_mr *poisoned_write(struct ctx *c, const char *path, uint64_t wr_id, uint64_t raddr,
                                     uint32_t rkey, void **bufp)
{
    char report[128] = "";
    void *buf;
    FILE *f;

    if (posix_memalign(&buf, 4096, SMALL))
        fail("posix_memalign %d bytes failed", SMALL);
    pat_fill(buf, SMALL, PAT_C);
    if (!(f = fopen(path, "w")) || fputs("1\n", f) == EOF || fclose(f))
        fail("arming %s: %s", path, strerror(errno));
    struct ibv_mr *mr = ibv_reg_mr(c->pd, buf, SMALL, IBV_ACCESS_LOCAL_WRITE);
    if (!mr)
        fail("ibv_reg_mr of the poisoned MR: %s", strerror(errno));
    if (!(f = fopen(path, "r")) || !fgets(report, sizeof(report), f))
        fail("reading %s: %s", path, strerror(errno));
    fclose(f);
    report[strcspn(report, "\n")] = 0;
    say("use-after-unmap: %s (lkey %#x)", report, mr->lkey);
    if (!strstr(report, "armed=0 iova=0x") || !strstr(report, " unmapped=1"))
        fail("%s: the driver did not poison the MR or the IOVA is still mapped: '%s'", path, report);
    struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 4096, .lkey = mr->lkey };
    struct ibv_send_wr wr = {
        .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
        .send_flags = IBV_SEND_SIGNALED, .wr.rdma = { .remote_addr = raddr, .rkey = rkey },
    }, *bad = NULL;
    int r = ibv_post_send(c->qp[1], &wr, &bad);
    if (r)
        fail("ibv_post_send (check c WRITE from the poisoned MR): %s", strerror(r));
    *bufp = buf;
    return mr;
}

static void post_recv(struct ctx *c, int qi, uint64_t wr_id, uint64_t laddr, uint32_t len)
{
    struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = c->mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad = NULL;
    int r = ibv_post_recv(c->qp[qi], &wr, &bad);
    if (r)
        fail("ibv_post_recv: %s", strerror(r));
}

static void post_srq(struct ctx *c, uint64_t wr_id, uint64_t laddr, uint32_t len)
{
    struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = c->mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad = NULL;
    int r = ibv_post_srq_recv(c->srq, &wr, &bad);
    if (r)
        fail("ibv_post_srq_recv (wr_id %" PRIu64 "): %s", wr_id, strerror(r));
}

/* Wait for the SRQ's limit event on the context's async FD (deadline -t) */
static void expect_srq_limit_event(struct ctx *c)
{
    struct pollfd pfd = { .fd = c->vctx->async_fd, .events = POLLIN };
    struct ibv_async_event ev;
    int r;
    for (;;) {
        do
            r = poll(&pfd, 1, timeout_s * 1000);
        while (r < 0 && errno == EINTR);
        if (r <= 0)
            fail("check f: no async event within %d s (the SRQ limit was reached)", timeout_s);
        if (ibv_get_async_event(c->vctx, &ev))
            fail("check f: ibv_get_async_event: %s", strerror(errno));
        enum ibv_event_type t = ev.event_type;
        bool ours = t == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == c->srq;
        ibv_ack_async_event(&ev);
        if (ours)
            return;
        say("check f: async event %s while waiting for the SRQ limit", ibv_event_type_str(t));
        if (t == IBV_EVENT_SRQ_ERR || t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_CQ_ERR)
            fail("check f: async event %s", ibv_event_type_str(t));
    }
}

static void destroy_resources(struct ctx *c)
{
    int r;
    for (int i = 0; i < NQP; i++)
        if (c->qp[i] && (r = ibv_destroy_qp(c->qp[i])))
            fail("ibv_destroy_qp: %s", strerror(r));
    if (c->srq && (r = ibv_destroy_srq(c->srq)))
        fail("ibv_destroy_srq: %s", strerror(r));
    for (int i = 0; i < NQP; i++)
        if (c->cq[i] && (i != QS2 || c->cq[i] != c->cq[QS1]) && (r = ibv_destroy_cq(c->cq[i])))
            fail("ibv_destroy_cq: %s", strerror(r));
    if ((r = ibv_dereg_mr(c->mr)))
        fail("ibv_dereg_mr: %s", strerror(r));
    if ((r = ibv_dealloc_pd(c->pd)))
        fail("ibv_dealloc_pd: %s", strerror(r));
    if ((r = ibv_close_device(c->vctx)))
        fail("ibv_close_device: %s", strerror(r));
    free(c->buf);
}

/* ---- exchange ------------------------------------------------------------------------- */

static void exchange(struct ctx *c, struct peer_info *me, struct peer_info *peer)
{
    char m[MSG_LEN], gs[33], *p = m;
    gid_to_hex(&me->gid, gs);
    p += sprintf(p, "INFO");
    for (int i = 0; i < NQP; i++)
        p += sprintf(p, " %06x %06x", me->qpn[i], me->psn[i]);
    sprintf(p, " %s %016" PRIx64 " %08x %016" PRIx64, gs, me->addr, me->rkey, me->len);
    send_msg("%s", m);
    recv_msg(m, "INFO ");
    char pg[33];
    int pos = 4, used;
    for (int i = 0; i < NQP; i++, pos += used)
        if (sscanf(m + pos, " %x %x%n", &peer->qpn[i], &peer->psn[i], &used) != 2)
            fail("cannot parse QP %d of the peer's INFO message '%.100s'", i, m);
    if (sscanf(m + pos, " %32s %" SCNx64 " %x %" SCNx64, pg, &peer->addr, &peer->rkey, &peer->len) != 4 ||
        strlen(pg) != 32)
        fail("cannot parse the peer's INFO message '%.100s'", m);
    gid_from_hex(pg, &peer->gid);
    char g[64];
    gid_str(&peer->gid, g, sizeof(g));
    say("peer: QP A %#x, B %#x, C %#x, S1 %#x, S2 %#x, GID %s, buffer %" PRIu64 " bytes rkey %#x", peer->qpn[QA],
        peer->qpn[QB], peer->qpn[QC], peer->qpn[QS1], peer->qpn[QS2], g, peer->len, peer->rkey);
    (void)c;
}

/* ---- extended CQ polling --------------------------------------------------------------- */

struct wcx {
    uint64_t wr_id;
    enum ibv_wc_status status;
    enum ibv_wc_opcode opcode;
    unsigned wc_flags;
    uint32_t byte_len, qp_num;
    uint32_t imm;               /* host order, when IBV_WC_WITH_IMM */
};

/* n completions from an ibv_cq_ex, through start_poll, next_poll and end_poll (deadline -t) */
static void poll_wcx(struct ibv_cq_ex *cq, int n, struct wcx *out, const char *what)
{
    struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
    double end = now_s() + timeout_s;
    int got = 0;
    while (got < n) {
        int r = ibv_start_poll(cq, &pa);
        if (r == ENOENT) {
            if (now_s() > end)
                fail("%s: %d of %d completions within %d s", what, got, n, timeout_s);
            sched_yield();
            continue;
        }
        if (r)
            fail("%s: ibv_start_poll: %s", what, strerror(r));
        do {
            struct wcx *w = &out[got++];
            w->wr_id = cq->wr_id;
            w->status = cq->status;
            w->opcode = ibv_wc_read_opcode(cq);
            w->wc_flags = ibv_wc_read_wc_flags(cq);
            w->byte_len = ibv_wc_read_byte_len(cq);
            w->qp_num = ibv_wc_read_qp_num(cq);
            w->imm = w->wc_flags & IBV_WC_WITH_IMM ? be32toh(ibv_wc_read_imm_data(cq)) : 0;
        } while (got < n && (r = ibv_next_poll(cq)) == 0);
        if (got < n && r != ENOENT)
            fail("%s: ibv_next_poll: %s", what, strerror(r));
        ibv_end_poll(cq);
    }
}

/* One completion must be wr_id, successful, of opcode op. */
static void check_wcx(const struct wcx *w, uint64_t wr_id, enum ibv_wc_opcode op, const char *what)
{
    if (w->wr_id != wr_id)
        fail("%s: completion for wr_id %" PRIu64 " (status %s), expected wr_id %" PRIu64, what, w->wr_id,
             ibv_wc_status_str(w->status), wr_id);
    if (w->status != IBV_WC_SUCCESS)
        fail("%s: completion status %s (%d)", what, ibv_wc_status_str(w->status), w->status);
    if (w->opcode != op)
        fail("%s: completion op-code %d, expected %d", what, w->opcode, op);
}

/* Nothing may complete on cq for a while (an aborted batch) */
static void expect_no_wcx(struct ibv_cq_ex *cq, double secs, const char *what)
{
    struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
    double end = now_s() + secs;
    while (now_s() < end) {
        int r = ibv_start_poll(cq, &pa);
        if (r == 0) {
            uint64_t id = cq->wr_id;
            ibv_end_poll(cq);
            fail("%s: a completion (wr_id %" PRIu64 ") arrived", what, id);
        }
        if (r != ENOENT)
            fail("%s: ibv_start_poll: %s", what, strerror(r));
        usleep(10000);
    }
}

/* Server buffer: [W: n][R: n][W2: SMALL][R2: SMALL][recv: SEND_LEN], W* zero, R* patterns.
 * Client buffer: [src A: n][dst B: n][src C: SMALL][dst: SMALL][dst: SMALL][send: SEND_LEN].
 * Then both: [D: SMALL][atomics: 4096][inline: 4096][SRQ: 4096][D's SEND: 4096] (check d, e, f). */
static size_t layout_len(size_t n) { return 2 * n + 3 * SMALL + 4096 + SMALL + 4 * 4096; }

/* ---- many QPs (-Q) ---------------------------------------------------------------------- */

#define MQ_SLOT 64      /* bytes of each QP's WRITE and SEND */

static void mq_wait(struct ibv_cq *cq, int n, struct ibv_wc *out, const char *what)
{
    double end = now_s() + timeout_s;
    int got = 0;
    while (got < n) {
        int r = ibv_poll_cq(cq, n - got > 64 ? 64 : n - got, out + got);
        if (r < 0)
            fail("ibv_poll_cq (%s): %d", what, r);
        for (int i = got; i < got + r; i++)
            if (out[i].status != IBV_WC_SUCCESS)
                fail("%s: completion %d of QP %#x: %s", what, i, out[i].qp_num, ibv_wc_status_str(out[i].status));
        got += r;
        if (!r && now_s() > end)
            fail("%s: %d of %d completions within %d s", what, got, n, timeout_s);
    }
}

/* -W, -E: a line on standard input says the fault the role waited for is there */
static void wait_stdin_line(const char *why)
{
    char line[64];

    say("waiting for a line on standard input (%s)", why);
    if (!fgets(line, sizeof(line), stdin))
        fail("standard input ended before the line (%s)", why);
}

/* -C N: see the header comment */
static int create_failures(struct ctx *c, int n)
{
    struct ibv_qp_init_attr ia = {
        .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
    };
    struct ibv_qp *qp;
    int r;

    c->pd = ibv_alloc_pd(c->vctx);
    if (!c->pd)
        fail("ibv_alloc_pd: %s", strerror(errno));
    c->cq[0] = ibv_create_cq(c->vctx, 16, NULL, NULL, 0);
    if (!c->cq[0])
        fail("ibv_create_cq: %s", strerror(errno));
    ia.send_cq = ia.recv_cq = c->cq[0];
    for (int i = 1; i <= n; i++) {
        errno = 0;
        qp = ibv_create_qp(c->pd, &ia);
        if (qp)
            fail("ibv_create_qp %d of %d succeeded (QP %#x): the device was to fail it", i, n, qp->qp_num);
        if (!errno)
            fail("ibv_create_qp %d of %d failed without an errno", i, n);
        say("ibv_create_qp %d of %d failed, as the device was told: %s (errno %d)", i, n, strerror(errno), errno);
    }
    qp = ibv_create_qp(c->pd, &ia);
    if (!qp)
        fail("ibv_create_qp after the %d failures: %s", n, strerror(errno));
    say("ibv_create_qp after them: QP %#x", qp->qp_num);
    if ((r = ibv_destroy_qp(qp)) || (r = ibv_destroy_cq(c->cq[0])) || (r = ibv_dealloc_pd(c->pd)) ||
        (r = ibv_close_device(c->vctx)))
        fail("teardown: %s", strerror(r));
    say("PASS");
    return 0;
}

/* -E SECS, the client: see the header comment */
static void retry_exceeded(struct ctx *c, uint64_t base, uint64_t raddr, uint32_t rkey, int slack)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    int r = ibv_query_qp(c->qp[QA], &a, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT, &ia);
    if (r)
        fail("ibv_query_qp(QP A): %s", strerror(r));
    double budget = (a.retry_cnt + 1) * 4.096e-6 * (double)(1u << a.timeout);

    wait_stdin_line("the link is down");
    say("check E: WRITE of %d bytes on QP A with the link down: retry_cnt %u, timeout %u: budget %.3f s", SMALL,
        a.retry_cnt, a.timeout, budget);
    double t = now_s();
    post_rdma(c, QA, IBV_WR_RDMA_WRITE, 1, base, SMALL, raddr, rkey, "check E WRITE");
    expect_wc(c->cq[QA], 1, IBV_WC_RETRY_EXC_ERR, "check E: WRITE with the link down");
    t = now_s() - t;
    if (t < 0.9 * budget || t > budget + slack)
        fail("check E: %s after %.3f s, outside [0.9 x the budget, the budget + %d s] = [%.3f, %.3f] s",
             ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR), t, slack, 0.9 * budget, budget + slack);
    say("check E: PASS (%s after %.3f s: the budget is %.3f s)", ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR), t,
        budget);
    wait_stdin_line("the link is back");
}

/* Layout of each side's buffer: N WRITE slots, then N receive (server) or source (client) slots. */
static int many_qps(struct ctx *c, int nq, bool client, const char *server_ip, int tcp_port)
{
    size_t len = 2 * (size_t)nq * MQ_SLOT;
    uint32_t *qpn = calloc(2 * (size_t)nq, sizeof(uint32_t)), *peer = qpn + nq;
    struct ibv_qp **qp = calloc((size_t)nq, sizeof(*qp));
    struct ibv_wc *wc = calloc(2 * (size_t)nq, sizeof(*wc));
    char m[MSG_LEN];
    int r;

    if (!qpn || !qp || !wc || posix_memalign((void **)&c->buf, 4096, len))
        fail("cannot allocate the state of %d QPs", nq);
    memset(c->buf, 0, len);
    c->pd = ibv_alloc_pd(c->vctx);
    if (!c->pd)
        fail("ibv_alloc_pd: %s", strerror(errno));
    c->mr = ibv_reg_mr(c->pd, c->buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!c->mr)
        fail("ibv_reg_mr(%zu bytes): %s", len, strerror(errno));
    c->cq[0] = ibv_create_cq(c->vctx, 2 * nq, NULL, NULL, 0);
    if (!c->cq[0])
        fail("ibv_create_cq(%d): %s", 2 * nq, strerror(errno));
    double t0 = now_s();
    for (int i = 0; i < nq; i++) {
        struct ibv_qp_init_attr ia = {
            .send_cq = c->cq[0], .recv_cq = c->cq[0], .qp_type = IBV_QPT_RC,
            .cap = { .max_send_wr = 2, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
        };
        qp[i] = ibv_create_qp(c->pd, &ia);
        if (!qp[i])
            fail("ibv_create_qp: QP %d of %d: %s", i + 1, nq, strerror(errno));
        qp_to_init(qp[i], c->ib_port, IBV_ACCESS_REMOTE_WRITE);
        qpn[i] = qp[i]->qp_num;
    }
    say("%d RC QPs created in %.2f s", nq, now_s() - t0);
    if (client)
        tcp_client(server_ip, tcp_port);
    else
        tcp_server(tcp_port);
    char gs[33];
    gid_to_hex(&c->gid, gs);
    send_msg("MANY %d %s %016" PRIx64 " %08x", nq, gs, (uint64_t)(uintptr_t)c->buf, c->mr->rkey);
    recv_msg(m, "MANY ");
    int pn;
    char pg[33];
    uint64_t paddr;
    uint32_t prkey;
    if (sscanf(m + 5, "%d %32s %" SCNx64 " %x", &pn, pg, &paddr, &prkey) != 4 || pn != nq)
        fail("the peer's MANY message '%.80s' (both sides need the same -Q)", m);
    struct peer_info pi = { 0 };
    gid_from_hex(pg, &pi.gid);
    xfer_all(true, qpn, (size_t)nq * sizeof(uint32_t), "QP numbers");
    xfer_all(false, peer, (size_t)nq * sizeof(uint32_t), "QP numbers");
    t0 = now_s();
    for (int i = 0; i < nq; i++) {
        /* connect_qp() works on c->qp[0]: lend it QP i */
        c->qp[0] = qp[i];
        pi.qpn[0] = peer[i];
        pi.psn[0] = 0;
        connect_qp(c, 0, &pi, 0);
    }
    c->qp[0] = NULL;
    say("%d QPs connected in %.2f s", nq, now_s() - t0);
    if (!client) {
        for (int i = 0; i < nq; i++) {
            struct ibv_sge sge = { .addr = (uintptr_t)(c->buf + (size_t)(nq + i) * MQ_SLOT), .length = MQ_SLOT,
                                   .lkey = c->mr->lkey };
            struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;
            if ((r = ibv_post_recv(qp[i], &wr, &bad)))
                fail("ibv_post_recv on QP %d: %s", i, strerror(r));
        }
    }
    send_msg("READY");
    recv_msg(m, "READY");
    if (client) {
        t0 = now_s();
        for (int i = 0; i < nq; i++) {
            char *src = c->buf + (size_t)i * 2 * MQ_SLOT;
            pat_fill(src, MQ_SLOT, PAT_G + (uint32_t)i);
            pat_fill(src + MQ_SLOT, MQ_SLOT, PAT_H + (uint32_t)i);
            struct ibv_sge s1 = { .addr = (uintptr_t)src, .length = MQ_SLOT, .lkey = c->mr->lkey };
            struct ibv_sge s2 = { .addr = (uintptr_t)(src + MQ_SLOT), .length = MQ_SLOT, .lkey = c->mr->lkey };
            struct ibv_send_wr send = { .wr_id = 2 * (uint64_t)i + 1, .sg_list = &s2, .num_sge = 1,
                                        .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
            struct ibv_send_wr wr = { .wr_id = 2 * (uint64_t)i, .sg_list = &s1, .num_sge = 1,
                                      .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
                                      .next = &send }, *bad;
            wr.wr.rdma.remote_addr = paddr + (uint64_t)i * MQ_SLOT;
            wr.wr.rdma.rkey = prkey;
            if ((r = ibv_post_send(qp[i], &wr, &bad)))
                fail("ibv_post_send on QP %d: %s", i, strerror(r));
        }
        mq_wait(c->cq[0], 2 * nq, wc, "WRITE and SEND on every QP");
        say("check g: %d WRITEs and %d SENDs on %d QPs completed in %.2f s", nq, nq, nq, now_s() - t0);
        recv_msg(m, "CHECKED");
    } else {
        char why[200];
        unsigned char *seen = calloc((size_t)nq, 1);
        mq_wait(c->cq[0], nq, wc, "a SEND on every QP");
        for (int k = 0; k < nq; k++) {
            int i = (int)wc[k].wr_id;
            if (i < 0 || i >= nq || wc[k].opcode != IBV_WC_RECV || wc[k].byte_len != MQ_SLOT ||
                wc[k].qp_num != qpn[i] || seen[i]++)
                fail("check g: receive completion %d: wr_id %d, opcode %d, %u bytes, QP %#x: not QP %d's one SEND",
                     k, i, wc[k].opcode, wc[k].byte_len, wc[k].qp_num, i);
        }
        for (int i = 0; i < nq; i++) {
            if (pat_check(c->buf + (size_t)i * MQ_SLOT, MQ_SLOT, PAT_G + (uint32_t)i, why, sizeof(why)))
                fail("check g: QP %d's WRITE: %s", i, why);
            if (pat_check(c->buf + (size_t)(nq + i) * MQ_SLOT, MQ_SLOT, PAT_H + (uint32_t)i, why, sizeof(why)))
                fail("check g: QP %d's SEND: %s", i, why);
        }
        free(seen);
        say("check g: PASS: %d QPs, each QP's WRITE and SEND by content", nq);
        send_msg("CHECKED");
    }
    t0 = now_s();
    for (int i = 0; i < nq; i++)
        if ((r = ibv_destroy_qp(qp[i])))
            fail("ibv_destroy_qp: QP %d: %s", i, strerror(r));
    say("%d QPs destroyed in %.2f s", nq, now_s() - t0);
    if ((r = ibv_destroy_cq(c->cq[0])) || (r = ibv_dereg_mr(c->mr)) || (r = ibv_dealloc_pd(c->pd)) ||
        (r = ibv_close_device(c->vctx)))
        fail("teardown: %s", strerror(r));
    free(c->buf);
    free(qp);
    free(qpn);
    free(wc);
    say("PASS");
    return 0;
}

int main(int argc, char **argv)
{
    struct vm_opts o = { .gidx = -1, .port = 18516, .ib_port = 1 };
    int opt, corrupt = 0, many = 0, retry_exc = 0, creates = 0;
    bool wait_first = false;
    const char *uau = NULL;
    size_t n = 1 << 20;
    while ((opt = getopt(argc, argv, VM_OPTS "s:X:Q:WE:C:U:h")) != -1) {
        if (vm_opt(&o, opt, optarg))
            continue;
        switch (opt) {
        case 's': n = strtoull(optarg, NULL, 0); break;
        case 'X': corrupt = optarg[0]; break;
        case 'Q': many = atoi(optarg); break;
        case 'W': wait_first = true; break;
        case 'E': retry_exc = atoi(optarg); break;
        case 'C': creates = atoi(optarg); break;
        case 'U': uau = optarg; break;
        default:
            fprintf(stderr,
                    "usage: %s [-d DEV] -g GID-INDEX [-p TCP-PORT (18516)] [-i IB-PORT (1)] [-t SECS (30)]\n"
                    "          [-s BYTES (1048576)] [-X a|b|c] [-Q QPS] [-W] [-E SECS] [-C N] [-U FILE]\n"
                    "          [SERVER-IPv4]\n"
                    "  without SERVER-IPv4: the server (listens); with it: the client (drives the checks)\n"
                    "  -X CHECK (server): self-test, corrupt one word of what CHECK verifies: it must fail\n"
                    "  -Q QPS: only check g, a WRITE and a SEND by content on each of QPS RC QPs\n"
                    "  -W (client): wait for a line on standard input before the checks\n"
                    "  -E SECS: a WRITE posted after a line on standard input must fail with RETRY_EXC\n"
                    "     within the QP's retry budget + SECS\n"
                    "  -C N (no peer): N ibv_create_qp must fail, the next one succeed\n"
                    "  -U FILE (client): check c's bad WRITE from an MR poisoned through snic.ko's debugfs\n"
                    "          FILE (snic/<pci-name>/mr_use_after_unmap, fault_inject=1), behind an IOMMU\n",
                    argv[0]);
            return 2;
        }
    }
    const char *server_ip = optind < argc ? argv[optind] : NULL;
    if (optind + 1 < argc || o.gidx < 0 || timeout_s < 1 || o.port < 1 || o.port > 65535 || n < SMALL ||
        n % 4096 || n > (1u << 30) || (corrupt && (server_ip || !strchr("abc", corrupt))) || many < 0 ||
        many > 65536 || retry_exc < 0 || creates < 0 || (creates && server_ip) ||
        (uau && (!server_ip || many || retry_exc))) {
        fprintf(stderr, "verbs-check: usage error: need -g GID-INDEX, at most one SERVER-IPv4, -t >= 1, "
                        "-s a multiple of 4096 in [%d, 1 GiB], -X a|b|c on the server only, -U on the "
                        "client only (try -h)\n", SMALL);
        return 2;
    }
    bool client = server_ip != NULL;
    role = creates ? "creates" : client ? "client" : "server";
    arm_alarm((unsigned)(20 * timeout_s));
    double t_start = now_s();

    struct ctx c = { .ib_port = o.ib_port, .gidx = o.gidx, .buflen = layout_len(n) };
    open_device(&c, o.dev);
    if (creates)
        return create_failures(&c, creates);
    if (many)
        return many_qps(&c, many, client, server_ip, o.port);
    create_resources(&c, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                             IBV_ACCESS_REMOTE_ATOMIC);
    char *b = c.buf;
    uint64_t base = (uint64_t)(uintptr_t)b;
    char m[MSG_LEN], why[200];

    if (client)
        tcp_client(server_ip, o.port);
    else
        tcp_server(o.port);
    /* The optional checks both devices can run */
    send_msg("FEAT %u", c.features);
    recv_msg(m, "FEAT ");
    unsigned peer_features = (unsigned)strtoul(m + 5, NULL, 0), features = c.features & peer_features;
    say("optional checks: e (inline) %s, f (SRQ) %s", features & F_INLINE ? "run" : "not run (a device lacks it)",
        features & F_SRQ ? "run" : "not run (a device lacks it)");
    if (features & F_SRQ)
        create_srq_qps(&c, !client);

    struct peer_info me = { .gid = c.gid, .addr = base, .rkey = c.mr->rkey, .len = c.buflen }, peer;
    srand48((long)getpid() ^ (long)time(NULL));
    for (int i = 0; i < NQP; i++) {
        me.qpn[i] = c.qp[i] ? c.qp[i]->qp_num : 0;
        me.psn[i] = (uint32_t)lrand48() & 0xffffff;
    }
    exchange(&c, &me, &peer);
    if (peer.len != c.buflen)
        fail("the peer's buffer is %" PRIu64 " bytes, ours %zu: both sides must use the same -s", peer.len, c.buflen);

    size_t off_w = 0, off_r = n, off_w2 = 2 * n, off_r2 = 2 * n + SMALL, off_msg = 2 * n + 3 * SMALL;
    size_t off_d = off_msg + 4096, off_atom = off_d + SMALL, off_inl = off_atom + 4096, off_srq = off_inl + 4096,
           off_dsend = off_srq + 4096;
    uint64_t *atom = (uint64_t *)(b + off_atom);
    if (!client) {
        pat_fill(b + off_r, n, PAT_B);
        pat_fill(b + off_r2, SMALL, PAT_D);
        if (corrupt == 'b')
            b[off_r + n / 2 + 1] ^= 0x40;
        if (corrupt == 'c')
            b[off_r2 + SMALL - 1] ^= 0x01;
        if (corrupt)
            say("self-test: corrupting one word of what check %c verifies: that check must FAIL", corrupt);
        post_recv(&c, 0, 100, base + off_msg, SEND_LEN);   /* for check (a)'s SEND */
        post_recv(&c, QC, 200, base + off_dsend, SEND_LEN);  /* check (d)'s SEND */
        post_recv(&c, QC, 201, base + off_inl + 2048, 2048);  /* check (e)'s inline SEND */
        atom[0] = ATOM0;
        if (features & F_SRQ)
            for (int k = 0; k < SRQ_WR; k++)
                post_srq(&c, 300 + k, base + off_srq + (k % 16) * 256, 256);
    } else {
        pat_fill(b + 0, n, PAT_A);
        memset(b + n, 0xee, n);
        pat_fill(b + 2 * n, SMALL, PAT_C);
        pat_fill(b + off_msg, SEND_LEN, PAT_SEND);
        pat_fill(b + off_d, SMALL, PAT_E);
        pat_fill(b + off_dsend, SEND_LEN, PAT_SEND);
        memset(atom, 0xee, 4096);
    }
    for (int i = 0; i < NQP; i++)
        if (c.qp[i] && peer.qpn[i])
            connect_qp(&c, i, &peer, me.psn[i]);
    say("QP A %#x and QP B %#x connected (RTS), path MTU %s", c.qp[0]->qp_num, c.qp[1]->qp_num, mtu_str(c.mtu));
    /* Both sides are at RTR (RECV posted) before the client sends anything. */
    send_msg("READY");
    recv_msg(m, "READY");

    uint64_t rb = peer.addr;
    int checks = 0;
    double t;
    if (retry_exc) {
        if (client) {
            retry_exceeded(&c, base, rb + off_w, peer.rkey, retry_exc);
            send_msg("DONE");
        } else {
            recv_msg(m, "DONE");
        }
        checks++;
    } else if (client) {
        if (wait_first)
            wait_stdin_line("the checks start");
        /* (a) */
        say("check a: RDMA WRITE %zu bytes (pattern A) to the server on QP A, then a %d-byte SEND", n, SEND_LEN);
        t = now_s();
        post_rdma(&c, 0, IBV_WR_RDMA_WRITE, 1, base + 0, (uint32_t)n, rb + off_w, peer.rkey, "check a WRITE");
        expect_wc(c.cq[0], 1, IBV_WC_SUCCESS, "check a: RDMA WRITE");
        double tw = now_s() - t;
        struct ibv_sge sge = { .addr = base + off_msg, .length = SEND_LEN, .lkey = c.mr->lkey };
        struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                                  .send_flags = IBV_SEND_SIGNALED }, *bad;
        int r = ibv_post_send(c.qp[0], &wr, &bad);
        if (r)
            fail("ibv_post_send (check a SEND): %s", strerror(r));
        expect_wc(c.cq[0], 2, IBV_WC_SUCCESS, "check a: SEND");
        recv_msg(m, "A-OK");
        say("check a: PASS (WRITE completed in %.3f s, %.1f MB/s; the server verified all %zu bytes)", tw,
            n / tw / 1e6, n);
        checks++;

        /* (b) */
        say("check b: RDMA READ %zu bytes (pattern B) from the server on QP A", n);
        t = now_s();
        post_rdma(&c, 0, IBV_WR_RDMA_READ, 3, base + n, (uint32_t)n, rb + off_r, peer.rkey, "check b READ");
        expect_wc(c.cq[0], 3, IBV_WC_SUCCESS, "check b: RDMA READ");
        double tr = now_s() - t;
        if (pat_check(b + n, n, PAT_B, why, sizeof(why)))
            fail("check b: the READ's data is wrong: %s", why);
        say("check b: PASS (READ completed in %.3f s, %.1f MB/s; all %zu bytes match)", tr, n / tr / 1e6, n);
        checks++;

        /* (c) */
        struct ibv_mr *pmr = NULL;
        void *pbuf = NULL;
        if (uau) {
            say("check c: WRITE on QP B from an MR whose first page the driver unmapped (%s)", uau);
            pmr = poisoned_write(&c, uau, 4, rb + off_w2, peer.rkey, &pbuf);
            expect_wc(c.cq[1], 4, IBV_WC_LOC_PROT_ERR, "check c: WRITE from the poisoned MR on QP B");
        } else {
            say("check c: WRITE on QP B with its local SGE outside the MR (addr = MR end + 4096, len 4096, "
                "valid lkey)");
            post_rdma(&c, 1, IBV_WR_RDMA_WRITE, 4, base + c.buflen + 4096, 4096, rb + off_w2, peer.rkey,
                      "check c bad WRITE");
            expect_wc(c.cq[1], 4, IBV_WC_LOC_PROT_ERR, "check c: out-of-MR WRITE on QP B");
        }
        say("check c: the bad WRITE completed with %s", ibv_wc_status_str(IBV_WC_LOC_PROT_ERR));
        enum ibv_qp_state s = qp_state(c.qp[1]);
        if (s != IBV_QPS_ERR)
            fail("check c: QP B is in state %s after the protection error, expected ERR", state_str(s));
        post_rdma(&c, 1, IBV_WR_RDMA_WRITE, 5, base + 2 * n, 4096, rb + off_w2, peer.rkey, "check c WRITE on QP B in ERR");
        expect_wc(c.cq[1], 5, IBV_WC_WR_FLUSH_ERR, "check c: WRITE posted to QP B in ERR");
        say("check c: QP B is in ERR; a WR posted after it completed with %s", ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR));
        s = qp_state(c.qp[0]);
        if (s != IBV_QPS_RTS)
            fail("check c: QP A is in state %s, expected RTS (QP B's error must not touch it)", state_str(s));
        post_rdma(&c, 0, IBV_WR_RDMA_WRITE, 6, base + 2 * n, SMALL, rb + off_w2, peer.rkey, "check c WRITE on QP A");
        expect_wc(c.cq[0], 6, IBV_WC_SUCCESS, "check c: WRITE on QP A");
        post_rdma(&c, 0, IBV_WR_RDMA_READ, 7, base + 2 * n + SMALL, SMALL, rb + off_w2, peer.rkey,
                  "check c READ back on QP A");
        expect_wc(c.cq[0], 7, IBV_WC_SUCCESS, "check c: READ back on QP A");
        if (pat_check(b + 2 * n + SMALL, SMALL, PAT_C, why, sizeof(why)))
            fail("check c: reading back QP A's WRITE gave wrong data: %s", why);
        post_rdma(&c, 0, IBV_WR_RDMA_READ, 8, base + 2 * n + 2 * SMALL, SMALL, rb + off_r2, peer.rkey,
                  "check c READ on QP A");
        expect_wc(c.cq[0], 8, IBV_WC_SUCCESS, "check c: READ on QP A");
        if (pat_check(b + 2 * n + 2 * SMALL, SMALL, PAT_D, why, sizeof(why)))
            fail("check c: QP A's READ gave wrong data: %s", why);
        if (pmr) {
            if ((r = ibv_dereg_mr(pmr)))
                fail("ibv_dereg_mr of the poisoned MR: %s", strerror(r));
            free(pbuf);
        }
        send_msg("C-DONE");
        recv_msg(m, "C-OK");
        say("check c: PASS (QP A still works: WRITE %d bytes, READ back and READ %d bytes of pattern D, all "
            "correct; the server found the WRITE's bytes)", SMALL, SMALL);
        checks++;

        /* (d) */
        struct ibv_qp_ex *qx = c.qpx;
        struct wcx w[4];
        check_cq_moderation(&c);
        say("check d: ibv_wr_* batch on QP C: unsignaled WRITE of %d bytes (2 SGEs), SEND with IMM; then "
            "FETCH_ADD, CMP_SWAP, READ", SMALL);
        ibv_wr_start(qx);
        qx->wr_id = 20;
        qx->wr_flags = 0;
        ibv_wr_rdma_write(qx, peer.rkey, rb + off_d);
        struct ibv_sge sl[2] = {
            { .addr = base + off_d, .length = SMALL / 2, .lkey = c.mr->lkey },
            { .addr = base + off_d + SMALL / 2, .length = SMALL / 2, .lkey = c.mr->lkey },
        };
        ibv_wr_set_sge_list(qx, 2, sl);
        qx->wr_id = 21;
        qx->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_send_imm(qx, htobe32(IMM_D));
        ibv_wr_set_sge(qx, c.mr->lkey, base + off_dsend, SEND_LEN);
        if ((r = ibv_wr_complete(qx)))
            fail("check d: ibv_wr_complete (WRITE + SEND_IMM): %s", strerror(r));
        poll_wcx(c.cqx, 1, w, "check d: WRITE + SEND_IMM");
        check_wcx(&w[0], 21, IBV_WC_SEND, "check d: SEND_IMM (the unsignaled WRITE has no completion)");
        recv_msg(m, "D-OK");
        /* One at a time: rdma-core 44's rxe loses a completion of back-to-back atomics */
        ibv_wr_start(qx);
        qx->wr_flags = IBV_SEND_SIGNALED;
        qx->wr_id = 22;
        ibv_wr_atomic_fetch_add(qx, peer.rkey, rb + off_atom, ATOM_ADD);
        ibv_wr_set_sge(qx, c.mr->lkey, base + off_atom, 8);
        if ((r = ibv_wr_complete(qx)))
            fail("check d: ibv_wr_complete (FETCH_ADD): %s", strerror(r));
        poll_wcx(c.cqx, 1, w, "check d: FETCH_ADD");
        check_wcx(&w[0], 22, IBV_WC_FETCH_ADD, "check d: FETCH_ADD");
        ibv_wr_start(qx);
        qx->wr_id = 23;
        ibv_wr_atomic_cmp_swp(qx, peer.rkey, rb + off_atom, ATOM0 + ATOM_ADD, ATOM_SWAP);
        ibv_wr_set_sge(qx, c.mr->lkey, base + off_atom + 8, 8);
        if ((r = ibv_wr_complete(qx)))
            fail("check d: ibv_wr_complete (CMP_SWAP): %s", strerror(r));
        poll_wcx(c.cqx, 1, w, "check d: CMP_SWAP");
        check_wcx(&w[0], 23, IBV_WC_COMP_SWAP, "check d: CMP_SWAP");
        ibv_wr_start(qx);
        qx->wr_id = 24;
        ibv_wr_rdma_read(qx, peer.rkey, rb + off_atom);
        ibv_wr_set_sge(qx, c.mr->lkey, base + off_atom + 16, 8);
        if ((r = ibv_wr_complete(qx)))
            fail("check d: ibv_wr_complete (READ): %s", strerror(r));
        poll_wcx(c.cqx, 1, w, "check d: READ");
        check_wcx(&w[0], 24, IBV_WC_RDMA_READ, "check d: READ");
        if (atom[0] != ATOM0 || atom[1] != ATOM0 + ATOM_ADD || atom[2] != ATOM_SWAP)
            fail("check d: FETCH_ADD returned %#" PRIx64 " (expected %#llx), CMP_SWAP %#" PRIx64
                 " (expected %#llx), the READ %#" PRIx64 " (expected %#llx)", atom[0], ATOM0, atom[1],
                 ATOM0 + ATOM_ADD, atom[2], ATOM_SWAP);
        send_msg("D2-DONE");
        recv_msg(m, "D2-OK");
        say("check d: PASS (ibv_wr_* WRITE + SEND_IMM landed and completed as the server saw it through "
            "ibv_cq_ex; FETCH_ADD, CMP_SWAP, READ returned the right words)");
        checks++;

        /* (e) */
        if (features & F_INLINE) {
            say("check e: %d-byte inline SEND (legacy post_send, buffer cleared after posting), inline WRITE "
                "of 60 + 40 bytes (ibv_wr_set_inline_data_list)", INL_SEND);
            uint32_t inl[INL_SEND / 4];
            pat_fill(inl, sizeof(inl), PAT_G);
            struct ibv_sge isge = { .addr = (uintptr_t)inl, .length = sizeof(inl), .lkey = 0 };
            struct ibv_send_wr iwr = { .wr_id = 30, .sg_list = &isge, .num_sge = 1, .opcode = IBV_WR_SEND,
                                       .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE }, *ibad;
            if ((r = ibv_post_send(c.qp[QC], &iwr, &ibad)))
                fail("check e: ibv_post_send (inline SEND): %s", strerror(r));
            memset(inl, 0, sizeof(inl));
            pat_fill(inl, sizeof(inl), PAT_H);
            struct ibv_data_buf pieces[2] = { { .addr = inl, .length = 60 }, { .addr = (char *)inl + 60,
                                                                            .length = 40 } };
            /* rdma-core 44's rxe completes inline WRITEs after an inline SEND with wr_id 0 */
            bool inl_write = strncmp(ibv_get_device_name(c.vctx->device), "rxe", 3) != 0;
            if (inl_write) {
                ibv_wr_start(qx);
                qx->wr_id = 31;
                qx->wr_flags = IBV_SEND_SIGNALED;
                ibv_wr_rdma_write(qx, peer.rkey, rb + off_inl);
                ibv_wr_set_inline_data_list(qx, 2, pieces);
                if ((r = ibv_wr_complete(qx)))
                    fail("check e: ibv_wr_complete (inline WRITE): %s", strerror(r));
            }
            memset(inl, 0, sizeof(inl));
            poll_wcx(c.cqx, inl_write ? 2 : 1, w, "check e: inline SEND + WRITE");
            check_wcx(&w[0], 30, IBV_WC_SEND, "check e: inline SEND");
            if (inl_write)
                check_wcx(&w[1], 31, IBV_WC_RDMA_WRITE, "check e: inline WRITE");
            else
                say("check e: no inline WRITE on rxe (its provider completes it with wr_id 0)");
            send_msg("E-DONE %d", inl_write);
            recv_msg(m, "E-OK");
            say("check e: PASS (the server found both inline payloads)");
            checks++;
        }

        /* (d, last on QP C: rxe's ibv_wr_abort leaves its send sequence numbers behind) */
        ibv_wr_start(qx);
        qx->wr_id = 99;
        qx->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_rdma_write(qx, peer.rkey, rb + off_d);
        ibv_wr_set_sge(qx, c.mr->lkey, base + off_msg, 8);
        ibv_wr_abort(qx);
        expect_no_wcx(c.cqx, 0.3, "check d: a batch dropped with ibv_wr_abort");
        say("check d: a batch dropped with ibv_wr_abort never completed");

        /* (f) */
        if (features & F_SRQ) {
            say("check f: %d SENDs with IMM over QP S1 and S2 to the server's SRQ of %d, in batches of %d",
                SRQ_MSGS, SRQ_WR, SRQ_WR);
            for (int i = 0; i < SRQ_MSGS; i += SRQ_WR) {
                recv_msg(m, "F-GO");
                for (int k = i; k < i + SRQ_WR; k++) {
                    char *src = b + off_srq + (k % 16) * 256;
                    pat_fill(src, SRQ_LEN, PAT_SRQ + k);
                    struct ibv_sge fs = { .addr = (uintptr_t)src, .length = SRQ_LEN, .lkey = c.mr->lkey };
                    struct ibv_send_wr fw = { .wr_id = 400 + k, .sg_list = &fs, .num_sge = 1,
                                              .opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htobe32(k) }, *fbad;
                    if ((r = ibv_post_send(c.qp[QS1 + k % 2], &fw, &fbad)))
                        fail("check f: ibv_post_send (SEND %d): %s", k, strerror(r));
                }
                for (int k = 0; k < SRQ_WR; k++) {
                    struct ibv_wc wc;
                    double end = now_s() + timeout_s;
                    while (!(r = ibv_poll_cq(c.cq[QS1], 1, &wc))) {
                        if (now_s() > end)
                            fail("check f: SEND %d of batch %d: no completion within %d s", k, i / SRQ_WR,
                                 timeout_s);
                        sched_yield();
                    }
                    if (r < 0 || wc.status != IBV_WC_SUCCESS)
                        fail("check f: SEND completion %s (wr_id %" PRIu64 ")",
                             r < 0 ? "poll error" : ibv_wc_status_str(wc.status), wc.wr_id);
                }
            }
            recv_msg(m, "F-OK");
            say("check f: PASS (the server got all %d SENDs through its SRQ, by content, and the limit event)",
                SRQ_MSGS);
            checks++;
        }
        send_msg("BYE");
    } else {
        /* (a): the SEND arrives after the WRITE on the same QP. */
        say("check a: waiting for the client's RDMA WRITE + SEND");
        expect_wc(c.cq[0], 100, IBV_WC_SUCCESS, "check a: RECV of the client's SEND");
        if (pat_check(b + off_msg, SEND_LEN, PAT_SEND, why, sizeof(why)))
            fail("check a: the SEND's payload is wrong: %s", why);
        if (corrupt == 'a')
            b[off_w + 4096] ^= 0x80;
        if (pat_check(b + off_w, n, PAT_A, why, sizeof(why)))
            fail("check a: the RDMA WRITE's data is wrong when its following SEND arrived: %s", why);
        say("check a: PASS (SEND payload and all %zu WRITE bytes match)", n);
        send_msg("A-OK");
        checks++;
        say("check b: the client READs our pattern B (nothing to do here)");
        recv_msg(m, "C-DONE");
        if (pat_check(b + off_w2, SMALL, PAT_C, why, sizeof(why)))
            fail("check c: QP A's WRITE after QP B's error left wrong data: %s", why);
        if (pat_check(b + off_w, n, PAT_A, why, sizeof(why)))
            fail("check c: check a's data changed afterwards: %s", why);
        if (pat_check(b + off_r, n, PAT_B, why, sizeof(why)) || pat_check(b + off_r2, SMALL, PAT_D, why, sizeof(why)))
            fail("check c: the READ sources changed: %s", why);
        send_msg("C-OK");
        say("check c: PASS on our side (QP A's WRITE after QP B's error landed correctly; nothing else changed)");
        checks++;

        /* (d) */
        struct wcx w[2];
        say("check d: waiting for the client's ibv_wr_* WRITE + SEND_IMM on QP C");
        poll_wcx(c.cqx, 1, w, "check d: RECV of the SEND_IMM");
        check_wcx(&w[0], 200, IBV_WC_RECV, "check d: RECV");
        if (!(w[0].wc_flags & IBV_WC_WITH_IMM) || w[0].imm != IMM_D)
            fail("check d: the RECV's wc_flags %#x / immediate %#x, expected IBV_WC_WITH_IMM / %#x", w[0].wc_flags,
                 w[0].imm, IMM_D);
        if (w[0].byte_len != SEND_LEN || w[0].qp_num != c.qp[QC]->qp_num)
            fail("check d: the RECV's byte_len %u / qp_num %#x, expected %d / %#x", w[0].byte_len, w[0].qp_num,
                 SEND_LEN, c.qp[QC]->qp_num);
        if (pat_check(b + off_dsend, SEND_LEN, PAT_SEND, why, sizeof(why)))
            fail("check d: the SEND_IMM's payload is wrong: %s", why);
        if (pat_check(b + off_d, SMALL, PAT_E, why, sizeof(why)))
            fail("check d: the ibv_wr_rdma_write's data is wrong: %s", why);
        send_msg("D-OK");
        recv_msg(m, "D2-DONE");
        if (atom[0] != ATOM_SWAP)
            fail("check d: after FETCH_ADD and CMP_SWAP our word is %#" PRIx64 ", expected %#llx", atom[0],
                 ATOM_SWAP);
        send_msg("D2-OK");
        say("check d: PASS (RECV read through ibv_cq_ex: opcode, IMM, byte_len, qp_num; WRITE bytes; atomics)");
        checks++;

        /* (e) */
        if (features & F_INLINE) {
            poll_wcx(c.cqx, 1, w, "check e: RECV of the inline SEND");
            check_wcx(&w[0], 201, IBV_WC_RECV, "check e: RECV of the inline SEND");
            if (w[0].byte_len != INL_SEND)
                fail("check e: the inline SEND's byte_len is %u, expected %d", w[0].byte_len, INL_SEND);
            if (pat_check(b + off_inl + 2048, INL_SEND, PAT_G, why, sizeof(why)))
                fail("check e: the inline SEND's payload is wrong: %s", why);
            recv_msg(m, "E-DONE");
            if (atoi(m + 7) && pat_check(b + off_inl, INL_SEND, PAT_H, why, sizeof(why)))
                fail("check e: the inline WRITE's data is wrong: %s", why);
            send_msg("E-OK");
            say("check e: PASS (inline SEND and inline WRITE landed by content)");
            checks++;
        }

        /* (f) */
        if (features & F_SRQ) {
            int reposted = SRQ_WR;
            for (int i = 0; i < SRQ_MSGS; i += SRQ_WR) {
                bool last = i + SRQ_WR >= SRQ_MSGS;
                if (last) {
                    struct ibv_srq_attr sa = { .srq_limit = SRQ_LIMIT };
                    int r = ibv_modify_srq(c.srq, &sa, IBV_SRQ_LIMIT);
                    if (r)
                        fail("check f: ibv_modify_srq (limit %d): %s", SRQ_LIMIT, strerror(r));
                }
                send_msg("F-GO");
                for (int k = 0; k < SRQ_WR; k++) {
                    struct ibv_wc wc;
                    double end = now_s() + timeout_s;
                    int r;
                    while (!(r = ibv_poll_cq(c.cq[QS1], 1, &wc))) {
                        if (now_s() > end)
                            fail("check f: batch %d: %d of %d RECVs within %d s", i / SRQ_WR, k, SRQ_WR, timeout_s);
                        sched_yield();
                    }
                    if (r < 0 || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
                        !(wc.wc_flags & IBV_WC_WITH_IMM))
                        fail("check f: RECV completion %s, op-code %d, flags %#x (wr_id %" PRIu64 ")",
                             r < 0 ? "poll error" : ibv_wc_status_str(wc.status), wc.opcode, wc.wc_flags, wc.wr_id);
                    uint32_t seq = be32toh(wc.imm_data), slot = (uint32_t)(wc.wr_id - 300) % 16;
                    if (seq >= SRQ_MSGS || wc.byte_len != SRQ_LEN ||
                        wc.qp_num != c.qp[QS1 + seq % 2]->qp_num)
                        fail("check f: RECV of SEND %u: %u bytes on QP %#x, expected %d bytes on QP %#x", seq,
                             wc.byte_len, wc.qp_num, SRQ_LEN, seq < SRQ_MSGS ? c.qp[QS1 + seq % 2]->qp_num : 0);
                    if (pat_check(b + off_srq + slot * 256, SRQ_LEN, PAT_SRQ + seq, why, sizeof(why)))
                        fail("check f: SEND %u's payload (SRQ WQE %" PRIu64 ") is wrong: %s", seq, wc.wr_id, why);
                    if (!last) {
                        post_srq(&c, 300 + reposted, base + off_srq + (reposted % 16) * 256, 256);
                        reposted++;
                    }
                }
                if (last) {
                    expect_srq_limit_event(&c);
                    struct ibv_srq_attr qa;
                    int r = ibv_query_srq(c.srq, &qa);
                    if (r)
                        fail("check f: ibv_query_srq: %s", strerror(r));
                    if (qa.srq_limit != 0 || qa.max_wr < SRQ_WR)
                        fail("check f: after the limit event ibv_query_srq gave limit %u (expected 0: disarmed), "
                             "max_wr %u", qa.srq_limit, qa.max_wr);
                }
            }
            send_msg("F-OK");
            say("check f: PASS (%d RECVs through the SRQ by content and QP, reposted as they came; limit event)",
                SRQ_MSGS);
            checks++;
        }
        recv_msg(m, "BYE");
    }
    destroy_resources(&c);
    close(sock);
    sock = -1;
    say("PASS: %d checks in %.1f s", checks, now_s() - t_start);
    return 0;
}
