/*
 * The connectionless transport across a sprayed, lossy two-switch fabric
 * (see cl-fabric.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include "cl-fabric.h"
#include "engine-node.h"
#include "sim-switch.h"

#define NICS            8               /* four on each switch */
#define SEG             (64u << 10)     /* 128-bit masks of 512 B packets */
#define MAX_LEN         (1u << 20)
#define MIN_LEN         64
#define SRC_LEN         MAX_LEN         /* BUF's first MiB: the sources */
#define REG_LO          (BUF + MAX_LEN) /* the rest: registered ops' ... */
#define REG_HI          (BUF + BUF_LEN) /* ... buffers, used again */
/* non-registered ops' buffers, never used again: a second MR past */
#define NR_BASE         ((uint64_t)FAKE_MEM_BASE + FAKE_MEM_SIZE)
#define NR_LEN          (16u << 20)
#define NR_PBL          (FAKE_MEM_BASE + 0x600000)
#define NR_KEY          0x55
#define MAX_OUT         4               /* a sender's ops in flight */
#define POLL_NS         1000            /* the hosts poll their CQs */
#define LIMIT_NS        (2ull * 1000 * 1000 * 1000)
#define TIMEOUT_US      100
#define ALIGN64(x)      (((x) + 63) & ~(uint64_t)63)

typedef struct ClOp {
    unsigned src, dst;
    uint32_t len, src_off;
    uint64_t dst_addr;
    bool unreg;
    bool posted, sent;
    uint32_t segs, seen;        /* segments, and their notifications */
} ClOp;

typedef struct ClFabric {
    SnicSim *sim;
    SnicSimSwitch *sw[2];
    Node nic[NICS];
    uint32_t nr_key[NICS];
    uint64_t nr_next[NICS];     /* the next non-registered buffer */
    GArray *live[NICS];         /* registered buffers in use: ClOp index */
    ClOp *op;
    unsigned nops, done;
    unsigned next[NICS];        /* a sender's next op: k = next * 8 + src */
    unsigned out[NICS];
    ClFabricResult *r;
} ClFabric;

static void fail(ClFabric *f, char *msg)
{
    if (!f->r->error) {
        f->r->error = msg;
    } else {
        g_free(msg);
    }
}

/*
 * NIC i's sources: every 32-bit word of them different (an odd multiplier
 * is a bijection), so bytes taken from a wrong offset never compare equal
 */
static void fill_sources(Node *n, uint32_t i)
{
    uint8_t *p = fake_ptr(n->h, BUF, SRC_LEN);
    uint32_t w, v;

    for (w = 0; w < SRC_LEN / 4; w++) {
        v = (w + i * (SRC_LEN / 4)) * 2654435761u;
        memcpy(p + 4 * w, &v, 4);
    }
}

/* Op k's whole destination holds its source */
static bool op_in_place(ClFabric *f, const ClOp *o)
{
    return !memcmp(fake_ptr(f->nic[o->dst].h, o->dst_addr, o->len),
                   fake_ptr(f->nic[o->src].h, BUF + o->src_off, o->len),
                   o->len);
}

static uint16_t set_qp_cl(Node *n, uint32_t thr, uint32_t seg)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_CL, sizeof(cmd.set_qp_cl));
    cmd.set_qp_cl.qpn = GUINT32_TO_LE(n->qpn);
    cmd.set_qp_cl.seg_threshold = GUINT32_TO_LE(thr);
    cmd.set_qp_cl.seg_size = GUINT32_TO_LE(seg);
    cmd.set_qp_cl.timeout_us = GUINT32_TO_LE(TIMEOUT_US);
    cmd.set_qp_cl.retries = 7;
    return fake_admin(n->h, &cmd, NULL);
}

/* The second MR, over the grown memory in 2 MiB pages: its key */
static uint32_t reg_nr_mr(Node *n)
{
    struct snic_admin_cmd cmd;
    unsigned i;

    for (i = 0; i < NR_LEN >> 21; i++) {
        node_wr64(n, NR_PBL + i * 8, NR_BASE + ((uint64_t)i << 21));
    }
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(NR_BASE);
    cmd.reg_mr.length = GUINT64_TO_LE(NR_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(NR_PBL);
    cmd.reg_mr.npages = GUINT32_TO_LE(NR_LEN >> 21);
    cmd.reg_mr.pdn = GUINT32_TO_LE(n->pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                      SNIC_ACCESS_REMOTE_WRITE);
    cmd.reg_mr.page_shift = 21;
    cmd.reg_mr.key = NR_KEY;
    return node_admin_ok(n->h, &cmd);
}

static SnicCoreConfig nic_config(unsigned i)
{
    SnicCoreConfig core = {
        .mac = { 0x52, 0x54, 0x00, 0x00, 0x02, i + 1 },
        .pfc_priority = SNIC_SIM_ROCE_PRIORITY,
        .link_speed_mbps = 100000,
        /* one endpoint a NIC: a small QP table makes a host cheap */
        .max_qp = 16,
    };

    return core;
}

static void fabric_new(ClFabric *f, uint64_t seed)
{
    const SnicSimSwitchConfig swc = {
        .buffer_bytes = 8u << 20,
        .default_priority = SNIC_SIM_ROCE_PRIORITY,
        .pfc_priorities = 1u << SNIC_SIM_ROCE_PRIORITY,
        .pfc_xoff = 64 << 10,
        .pfc_xon = 32 << 10,
    };
    /* adjacent reordering: held back about two full frames' time */
    const SnicSimLinkConfig nic_link = {
        .bandwidth_bps = 100000000000ull, .delay_ns = 500,
        .loss = 0.01, .dup = 0.01, .reorder = 0.05, .reorder_ns = 100,
        .eth_framing = true,
    };
    SnicSimLinkConfig trunk = nic_link, lanes[4];
    SnicSimNicTiming timing = snic_sim_srnic_timing;
    unsigned i, k, tp[2];

    memset(f, 0, sizeof(*f));
    timing.obey_pause = true;
    f->sim = snic_sim_new(seed);
    for (i = 0; i < 2; i++) {
        f->sw[i] = snic_sim_switch_new(f->sim, &swc);
    }
    for (i = 0; i < NICS; i++) {
        SnicCoreConfig core = nic_config(i);
        FakeHost *h = fake_host_new_model(&core, &timing);
        Node *n = &f->nic[i];
        unsigned port;

        fake_host_grow(h, NR_LEN);
        node_init_host(n, h, f->sim, i + 1, SNIC_QPT_UD, SNIC_DB_KERNEL_PAGE);
        port = snic_sim_port_connect_switch(&h->port, f->sw[i / 4], &nic_link);
        g_assert_cmpuint(port, ==, i % 4);
        snic_sim_switch_add_mac(f->sw[i / 4], core.mac, port);
        g_assert_cmpuint(set_qp_cl(n, SEG, SEG), ==, SNIC_ADMIN_OK);
        node_ud_up(n, 1, false);
        f->nr_key[i] = reg_nr_mr(n);
        f->nr_next[i] = NR_BASE;
        f->live[i] = g_array_new(false, false, sizeof(unsigned));
        fill_sources(n, i);
    }
    /* the trunk: a port each way at the lanes' sum, sprayed over four */
    trunk.bandwidth_bps = 4 * nic_link.bandwidth_bps;
    tp[0] = snic_sim_switch_add_port(f->sw[0],
                                     snic_sim_switch_endpoint(f->sw[1]), &trunk);
    tp[1] = snic_sim_switch_add_port(f->sw[1],
                                     snic_sim_switch_endpoint(f->sw[0]), &trunk);
    for (k = 0; k < 4; k++) {
        lanes[k] = nic_link;
        lanes[k].delay_ns = 1000u << k;
    }
    for (i = 0; i < 2; i++) {
        snic_sim_spray(f->sim, snic_sim_switch_endpoint(f->sw[i]),
                       snic_sim_switch_endpoint(f->sw[!i]), lanes, 4,
                       SNIC_SIM_SPRAY_RANDOM);
    }
    for (i = 0; i < NICS; i++) {
        SnicCoreConfig core = nic_config(i);

        snic_sim_switch_add_mac(f->sw[!(i / 4)], core.mac, tp[!(i / 4)]);
    }
}

static void fabric_free(ClFabric *f)
{
    unsigned i;

    for (i = 0; i < NICS; i++) {
        fake_host_free(f->nic[i].h);
        g_array_free(f->live[i], true);
    }
    for (i = 0; i < 2; i++) {
        snic_sim_switch_free(f->sw[i]);
    }
    snic_sim_free(f->sim);
    g_free(f->op);
}

/* The operations: sizes log-uniform in [64 B, 1 MiB], peers uniform */
static void make_ops(ClFabric *f, uint64_t seed, unsigned n)
{
    GRand *g = g_rand_new_with_seed((guint32)seed ^ 0xc1c1);
    unsigned k;

    f->op = g_new0(ClOp, n);
    f->nops = n;
    for (k = 0; k < n; k++) {
        ClOp *o = &f->op[k];
        double u = g_rand_double(g);

        o->src = k % NICS;
        o->dst = (o->src + 1 + g_rand_int_range(g, 0, NICS - 1)) % NICS;
        o->len = (uint32_t)exp(log(MIN_LEN) + u * (log(MAX_LEN) -
                                                   log(MIN_LEN)));
        o->len = CLAMP(o->len, MIN_LEN, MAX_LEN);
        o->src_off = g_rand_int_range(g, 0, SRC_LEN - o->len + 1);
        o->unreg = k % 10 == 9;
        o->segs = o->len > SEG ? (o->len + SEG - 1) / SEG : 1;
    }
    g_rand_free(g);
}

/* First fit in [REG_LO, REG_HI) among d's registered buffers in use */
static bool reg_alloc(ClFabric *f, ClOp *o, unsigned k)
{
    GArray *live = f->live[o->dst];
    uint64_t at = REG_LO;
    unsigned i, j;

    for (i = 0; i <= live->len; i++) {
        const ClOp *x = NULL;

        for (j = 0; j < live->len; j++) {
            const ClOp *y = &f->op[g_array_index(live, unsigned, j)];

            if (y->dst_addr >= at && (!x || y->dst_addr < x->dst_addr)) {
                x = y;
            }
        }
        if ((x ? x->dst_addr : REG_HI) - at >= o->len) {
            o->dst_addr = at;
            g_array_append_val(live, k);
            return true;
        }
        if (!x) {
            break;
        }
        at = ALIGN64(x->dst_addr + x->len);
    }
    return false;
}

static void reg_release(ClFabric *f, const ClOp *o, unsigned k)
{
    GArray *live = f->live[o->dst];
    unsigned j;

    for (j = 0; j < live->len; j++) {
        if (g_array_index(live, unsigned, j) == k) {
            g_array_remove_index_fast(live, j);
            return;
        }
    }
    g_assert_not_reached();
}

static bool post(ClFabric *f, unsigned k)
{
    ClOp *o = &f->op[k];
    Node *s = &f->nic[o->src], *d = &f->nic[o->dst];
    struct snic_sq_wqe w;

    if (o->unreg) {
        if (f->nr_next[o->dst] + o->len > NR_BASE + NR_LEN) {
            fail(f, g_strdup("non-registered buffers exhausted"));
            return false;
        }
        o->dst_addr = f->nr_next[o->dst];
        f->nr_next[o->dst] = ALIGN64(o->dst_addr + o->len);
    } else if (!reg_alloc(f, o, k)) {
        return false;       /* later, when buffers are back */
    }
    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(k);
    w.opcode = SNIC_WR_CL_WRITE;
    w.flags = SNIC_WQE_SIGNALED | (o->unreg ? SNIC_WQE_CL_UNREGISTERED : 0);
    w.num_sge = 1;
    w.imm = GUINT32_TO_BE(k);
    node_av(&w.cl.av, s->ip, d->h, d->ip);
    w.cl.remote_addr = GUINT64_TO_LE(o->dst_addr);
    w.cl.remote_ep = GUINT32_TO_LE(d->qpn);
    w.cl.rkey = GUINT32_TO_LE(o->unreg ? f->nr_key[o->dst] : d->lkey);
    w.sge[0].addr = GUINT64_TO_LE(BUF + o->src_off);
    w.sge[0].length = GUINT32_TO_LE(o->len);
    w.sge[0].lkey = GUINT32_TO_LE(s->lkey);
    node_post_wqe(s, &w);
    o->posted = true;
    f->out[o->src]++;
    return true;
}

static void post_more(ClFabric *f)
{
    unsigned i, k;

    for (i = 0; i < NICS; i++) {
        while (f->out[i] < MAX_OUT &&
               (k = f->next[i] * NICS + i) < f->nops && post(f, k)) {
            f->next[i]++;
        }
    }
}

static void op_done(ClFabric *f, ClOp *o, unsigned k)
{
    if (!o->sent || o->seen != (1u << o->segs) - 1) {
        return;
    }
    f->out[o->src]--;
    f->done++;
    f->r->end_ns = snic_sim_now(f->sim);
    /* a late packet of a segment notified before must not have rewritten it */
    if (!op_in_place(f, o)) {
        fail(f, g_strdup_printf("op %u: not in place once complete", k));
    }
    if (!o->unreg) {
        reg_release(f, o, k);
    }
}

/* A receive notification at d: a segment of an op to d, once, in place */
static void take_recv(ClFabric *f, unsigned d, const struct snic_cqe *c)
{
    unsigned k = GUINT32_FROM_BE(c->imm);
    uint64_t base = GUINT64_FROM_LE(c->wr_id);
    uint32_t len = GUINT32_FROM_LE(c->byte_len), seg, want;
    ClOp *o = k < f->nops ? &f->op[k] : NULL;

    if (!o || !o->posted || o->dst != d || c->status != SNIC_WC_SUCCESS ||
        GUINT32_FROM_LE(c->src_qp) != f->nic[o->src].qpn ||
        base < o->dst_addr || base >= o->dst_addr + o->len ||
        (base - o->dst_addr) % SEG) {
        fail(f, g_strdup_printf("NIC %u: a notification of no segment "
                                "(tag %u, status %u, base 0x%" PRIx64 ")",
                                d, k, c->status, base));
        return;
    }
    seg = (base - o->dst_addr) / SEG;
    want = MIN(SEG, o->len - seg * SEG);
    if (o->seen & 1u << seg) {
        fail(f, g_strdup_printf("op %u: segment %u notified twice", k, seg));
        return;
    }
    if (len != want ||
        memcmp(fake_ptr(f->nic[d].h, base, len),
               fake_ptr(f->nic[o->src].h, BUF + o->src_off + seg * SEG, len),
               len)) {
        fail(f, g_strdup_printf("op %u (%u bytes%s): segment %u of %u bytes "
                                "not in place at its notification", k, o->len,
                                o->unreg ? ", non-registered" : "", seg, len));
        return;
    }
    o->seen |= 1u << seg;
    f->r->segments++;
    op_done(f, o, k);
}

static void take_send(ClFabric *f, unsigned s, const struct snic_cqe *c)
{
    uint64_t k = GUINT64_FROM_LE(c->wr_id);
    ClOp *o = k < f->nops ? &f->op[k] : NULL;

    if (!o || !o->posted || o->src != s || o->sent ||
        c->status != SNIC_WC_SUCCESS) {
        fail(f, g_strdup_printf("NIC %u: send completion of op %" PRIu64
                                " (status %u) unexpected or repeated", s, k,
                                c->status));
        return;
    }
    o->sent = true;
    op_done(f, o, k);
}

static void poll_all(ClFabric *f)
{
    struct snic_cqe c;
    unsigned i;

    for (i = 0; i < NICS; i++) {
        while (node_poll_cq(&f->nic[i], &c)) {
            if (c.opcode == SNIC_WC_CL_RECV) {
                take_recv(f, i, &c);
            } else if (c.opcode == SNIC_WC_CL_WRITE) {
                take_send(f, i, &c);
            } else {
                fail(f, g_strdup_printf("NIC %u: a CQE of op-code 0x%x", i,
                                        c.opcode));
            }
        }
    }
}

static void count(ClFabric *f)
{
    ClFabricResult *r = f->r;
    unsigned i, j, p;

    for (i = 0; i < NICS; i++) {
        FakeHost *h = f->nic[i].h;
        unsigned sw = snic_sim_switch_endpoint(f->sw[i / 4]);
        unsigned ends[2][2] = { { h->port.ep, sw }, { sw, h->port.ep } };

        r->retransmits += FAKE_STAT(h, cl_retransmits);
        r->dup_dropped += FAKE_STAT(h, cl_dup_dropped);
        r->dup_acked += FAKE_STAT(h, cl_dup_acked);
        r->escape_parked += FAKE_STAT(h, cl_escape_parked);
        r->escape_replayed += FAKE_STAT(h, cl_escape_replayed);
        r->escape_full += FAKE_STAT(h, cl_escape_full);
        r->escape_timeouts += FAKE_STAT(h, cl_escape_timeouts);
        r->reg_refused += FAKE_STAT(h, cl_reg_refused);
        r->notify_sent += FAKE_STAT(h, cl_notify_sent);
        for (j = 0; j < 2; j++) {
            const SnicSimLinkStats *l = snic_sim_link_stats(f->sim, ends[j][0],
                                                            ends[j][1]);
            r->lost += l->lost;
            r->duplicated += l->duplicated;
            r->reordered += l->reordered;
        }
    }
    for (i = 0; i < 2; i++) {
        const SnicSimLinkStats *l = snic_sim_link_stats(
            f->sim, snic_sim_switch_endpoint(f->sw[i]),
            snic_sim_switch_endpoint(f->sw[!i]));

        r->lost += l->lost;
        r->duplicated += l->duplicated;
        r->reordered += l->reordered;
        for (p = 0; p < 5; p++) {
            r->pause_sent += snic_sim_switch_port_stats(f->sw[i], p)->pause_sent;
        }
    }
}

void cl_fabric_run(uint64_t seed, unsigned ops, ClFabricResult *r)
{
    ClFabric f;
    unsigned k;

    memset(r, 0, sizeof(*r));
    fabric_new(&f, seed);
    f.r = r;
    make_ops(&f, seed, ops);
    post_more(&f);
    while (f.done < f.nops && !r->error && snic_sim_now(f.sim) < LIMIT_NS) {
        snic_sim_run_until(f.sim, snic_sim_now(f.sim) + POLL_NS);
        poll_all(&f);
        post_more(&f);
    }
    if (!r->error && f.done < f.nops) {
        fail(&f, g_strdup_printf("%u of %u operations complete at both ends "
                                 "after %" PRIu64 " ns", f.done, f.nops,
                                 snic_sim_now(f.sim)));
    }
    /* what is still in flight lands; nothing may complete again */
    snic_sim_run(f.sim, UINT64_MAX);
    poll_all(&f);
    /* late duplicates rewrite non-registered buffers with the same bytes */
    for (k = 0; k < f.nops && !r->error; k++) {
        if (f.op[k].unreg && f.op[k].sent && !op_in_place(&f, &f.op[k])) {
            fail(&f, g_strdup_printf("op %u: non-registered, not in place "
                                     "after the drain", k));
        }
    }
    for (k = 0; k < f.nops; k++) {
        r->unregistered += f.op[k].unreg && f.op[k].sent;
        r->bytes += f.op[k].len;
    }
    r->ops = f.done;
    count(&f);
    fabric_free(&f);
}

void cl_fabric_result_free(ClFabricResult *r)
{
    g_free(r->error);
    r->error = NULL;
}

uint32_t cl_fabric_onchip_with_peers(unsigned peers)
{
    const SnicSimSwitchConfig swc = {
        .buffer_bytes = 8u << 20,
        .default_priority = SNIC_SIM_ROCE_PRIORITY,
    };
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 100000000000ull, .delay_ns = 500,
    };
    SnicSim *sim = snic_sim_new(1);
    SnicSimSwitch *sw = snic_sim_switch_new(sim, &swc);
    Node *n = g_new0(Node, peers + 1);
    struct snic_admin_cmd cmd;
    struct snic_device_attr a;
    struct snic_cqe c;
    unsigned i, got = 0;

    g_assert(peers + 1 < 250);
    for (i = 0; i <= peers; i++) {
        SnicCoreConfig core = nic_config(i);
        FakeHost *h = fake_host_new_cfg(&core);

        node_init_host(&n[i], h, sim, i + 1, SNIC_QPT_UD,
                       SNIC_DB_KERNEL_PAGE);
        snic_sim_switch_add_mac(sw, core.mac,
                                snic_sim_port_connect_switch(&h->port, sw,
                                                             &link));
        g_assert_cmpuint(set_qp_cl(&n[i], 0, 0), ==, SNIC_ADMIN_OK);
        node_ud_up(&n[i], 1, false);
    }
    /* every peer writes 4 KiB into the receiver, n[0], at once */
    for (i = 1; i <= peers; i++) {
        struct snic_sq_wqe w;

        memset(&w, 0, sizeof(w));
        w.wr_id = GUINT64_TO_LE(i);
        w.opcode = SNIC_WR_CL_WRITE;
        w.flags = SNIC_WQE_SIGNALED;
        w.num_sge = 1;
        node_av(&w.cl.av, n[i].ip, n[0].h, n[0].ip);
        w.cl.remote_addr = GUINT64_TO_LE(BUF + i * 4096);
        w.cl.remote_ep = GUINT32_TO_LE(n[0].qpn);
        w.cl.rkey = GUINT32_TO_LE(n[0].lkey);
        w.sge[0].addr = GUINT64_TO_LE(BUF);
        w.sge[0].length = GUINT32_TO_LE(4096);
        w.sge[0].lkey = GUINT32_TO_LE(n[i].lkey);
        node_post_wqe(&n[i], &w);
    }
    snic_sim_run(sim, UINT64_MAX);
    while (node_poll_cq(&n[0], &c)) {
        g_assert_cmpuint(c.opcode, ==, SNIC_WC_CL_RECV);
        got++;
    }
    g_assert_cmpuint(got, ==, peers);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_DEVICE, sizeof(cmd.resp));
    cmd.resp.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    cmd.resp.resp_len = GUINT32_TO_LE(sizeof(a));
    node_admin_ok(n[0].h, &cmd);
    fake_read(n[0].h, FAKE_RESP, &a, sizeof(a));
    for (i = 0; i <= peers; i++) {
        fake_host_free(n[i].h);
    }
    g_free(n);
    snic_sim_switch_free(sw);
    snic_sim_free(sim);
    return GUINT32_FROM_LE(a.cl_onchip_bytes);
}
