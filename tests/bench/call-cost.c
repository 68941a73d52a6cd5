/*
 * What one guest action costs the device at two sizes: a device with
 * small tables and 10 objects of each kind ("small"), and one with large
 * tables (65536 QPs, 4096 PDs and CQs) and 1000 QPs and PDs ("large").
 * Each measured call sits in a function of its own, cost_window_*(), so
 * scripts/bench-engine.sh --call-cost counts its instructions with
 * valgrind's callgrind (--toggle-collect) and fails if the large device's
 * count exceeds twice the small one's: the work of a call must not grow
 * with the tables or with the objects in them. The windows: an ALLOC_PD
 * through the admin queue (a free handle found), a read of the stats'
 * object gauges from BAR0, the device's timer with nothing due, and two
 * engine runs (the bottom half's call) that flush: one in the middle of
 * a QP's flush after MODIFY_QP to ERR (1024 WQEs posted on the small
 * device, 32768 on the large), one while every QP of the device is in
 * ERR with 64 WQEs each to flush (10 QPs, 1000 QPs). The unit tests
 * (tests/unit/test-bound.c) bound the same calls' DMA and frames; these
 * counts cover what touches no guest memory (the scans for work).
 * Build without sanitizers (scripts/bench-engine.sh builds build/bench).
 *
 *   call-cost small|large
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "engine-node.h"
#include "engine/wq.h"
#include "objects/qpc.h"


/* one call each, out of line so callgrind can name them */
__attribute__((noinline)) void cost_window_alloc_pd(FakeHost *h);
__attribute__((noinline)) uint32_t cost_window_stats(FakeHost *h);
__attribute__((noinline)) void cost_window_timer(FakeHost *h);
__attribute__((noinline)) bool cost_window_flush(FakeHost *h);
__attribute__((noinline)) bool cost_window_err_qps(FakeHost *h);

void cost_window_alloc_pd(FakeHost *h)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    node_admin_ok(h, &cmd);
}

uint32_t cost_window_stats(FakeHost *h)
{
    return fake_reg_read(h, SNIC_REG_STATS +
                         offsetof(struct snic_stats, obj_qps));
}

void cost_window_timer(FakeHost *h)
{
    snic_core_timer(h->core);
}

bool cost_window_flush(FakeHost *h)
{
    return snic_core_run(h->core, SNIC_CORE_RUN_BUDGET);
}

bool cost_window_err_qps(FakeHost *h)
{
    return snic_core_run(h->core, SNIC_CORE_RUN_BUDGET);
}

/*
 * The consumer's side after a run: the completions taken (-1 if one is
 * not a flush), the admin answers counted into *answered
 */
static int drain(Node *n, unsigned *answered)
{
    struct snic_admin_cqe ac;
    struct snic_cqe c;
    int got = 0;

    while (node_poll_cq(n, &c)) {
        if (c.status != SNIC_WC_WR_FLUSH_ERR) {
            return -1;
        }
        got++;
    }
    while (fake_admin_poll(n->h, &ac)) {
        ++*answered;
    }
    return got;
}

/* Runs until the 'posted' admin commands are answered, drained */
static void run_until_answered(Node *n, unsigned posted)
{
    unsigned answered = 0;

    do {
        snic_core_run(n->h->core, SNIC_CORE_RUN_BUDGET);
        if (drain(n, &answered) < 0) {
            g_error("call-cost: a completion other than a flush");
        }
    } while (answered < posted);
}

/* The measured run 'window', drained: true if it flushed WQEs */
static bool window_flushed(Node *n, bool (*window)(FakeHost *h))
{
    unsigned answered = 0;

    window(n->h);
    return drain(n, &answered) > 0;
}

/* Runs until no flush is left */
static void run_to_idle(Node *n)
{
    unsigned answered = 0;
    bool more;

    do {
        more = snic_core_run(n->h->core, SNIC_CORE_RUN_BUDGET);
        if (drain(n, &answered) < 0) {
            g_error("call-cost: a completion other than a flush");
        }
    } while (more);
}

/* 2^log2 WQEs posted on one new QP, moved to ERR, one run in its flush */
static bool flush_one_qp(Node *n, uint8_t log2)
{
    const uint64_t pbl = FAKE_MEM_BASE + FAKE_MEM_SIZE;
    const uint64_t ring = pbl + 0x10000;
    const unsigned depth = 1u << log2;
    uint32_t qpn;
    unsigned i;
    bool flushed;

    fake_host_grow(n->h, 0x10000 + (size_t)SNIC_SQ_WQE_SIZE * depth);
    node_pbl(n->h, pbl, ring, SNIC_SQ_WQE_SIZE * depth / 4096);
    qpn = node_qp_in_init(n, pbl, log2);
    for (i = 0; i < depth; i++) {
        node_write_wqe_at(n->h, ring + (uint64_t)i * SNIC_SQ_WQE_SIZE, i);
    }
    fake_doorbell(n->h, n->ctx, SNIC_DB_SQ, qpn, depth);
    node_post_to_err(n, qpn);
    run_until_answered(n, 1);
    flushed = window_flushed(n, cost_window_flush);
    run_to_idle(n);
    return flushed;
}

/*
 * 'nqp' new QPs with 64 WQEs each, all moved to ERR (a full admin queue
 * at a time, run until answered), then one run while their flushes wait
 */
static bool flush_many_qps(Node *n, unsigned nqp)
{
    const unsigned batch = (1u << 4) - 1;   /* node_init's admin queue */
    uint32_t *qpns = g_new(uint32_t, nqp);
    unsigned i, done, posted;
    bool flushed;

    for (i = 0; i < 64; i++) {
        node_write_wqe_at(n->h, SQ_RING + i * SNIC_SQ_WQE_SIZE, i);
    }
    for (i = 0; i < nqp; i++) {
        qpns[i] = node_qp_in_init(n, PBL_SQ, SQ_LOG2);
        fake_doorbell(n->h, n->ctx, SNIC_DB_SQ, qpns[i], 64);
    }
    for (done = 0; done < nqp; done += posted) {
        posted = MIN(batch, nqp - done);
        for (i = 0; i < posted; i++) {
            node_post_to_err(n, qpns[done + i]);
        }
        run_until_answered(n, posted);
    }
    flushed = window_flushed(n, cost_window_err_qps);
    g_free(qpns);
    return flushed;
}

int main(int argc, char **argv)
{
    bool large = argc == 2 && !strcmp(argv[1], "large");
    SnicCoreConfig cfg = {
        .max_qp = large ? 65536 : 64,
        .max_pd = large ? 4096 : 64,
        .max_cq = large ? 4096 : 64,
    };
    unsigned i, objects = large ? 1000 : 10;
    struct snic_admin_cmd cmd;
    Node n;

    if (argc != 2 || (!large && strcmp(argv[1], "small"))) {
        fprintf(stderr, "usage: call-cost small|large\n");
        return 2;
    }
    node_init_host(&n, fake_host_new_cfg(&cfg), NULL, 1, SNIC_QPT_RC,
                   SNIC_DB_KERNEL_PAGE);
    /* node_init made one QP and one PD */
    for (i = 1; i < objects; i++) {
        node_qp_in_init(&n, PBL_SQ, SQ_LOG2);
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
        node_admin_ok(n.h, &cmd);
    }
    cost_window_alloc_pd(n.h);
    /* the gauges: every QP and the PDs, the one just allocated too */
    if (cost_window_stats(n.h) != objects ||
        fake_stat(n.h, offsetof(struct snic_stats, obj_pds)) !=
        objects + 1) {
        fprintf(stderr, "call-cost: the gauges are wrong\n");
        return 1;
    }
    cost_window_timer(n.h);
    if (!flush_one_qp(&n, large ? SNIC_MAX_QP_WR_LOG2 : 10) ||
        !flush_many_qps(&n, objects)) {
        fprintf(stderr, "call-cost: a measured run flushed nothing\n");
        return 1;
    }
    fake_host_free(n.h);
    return 0;
}
