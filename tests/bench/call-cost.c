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
 * object gauges from BAR0, and the device's timer with nothing due.
 * Build without sanitizers (scripts/bench-engine.sh builds build/bench).
 *
 *   call-cost small|large
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "engine-node.h"

/* one call each, out of line so callgrind can name them */
__attribute__((noinline)) void cost_window_alloc_pd(FakeHost *h);
__attribute__((noinline)) uint32_t cost_window_stats(FakeHost *h);
__attribute__((noinline)) void cost_window_timer(FakeHost *h);

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

/* A QP of n's PD and CQ on n's rings (the device reads only at work) */
static void add_qp(Node *n)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(PBL_SQ);
    cmd.create_qp.sq_npages =
        GUINT32_TO_LE((SNIC_SQ_WQE_SIZE << SQ_LOG2) / 4096);
    cmd.create_qp.sq_log2_depth = SQ_LOG2;
    cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(PBL_RQ);
    cmd.create_qp.rq_npages =
        GUINT32_TO_LE((SNIC_RQ_WQE_SIZE << RQ_LOG2) / 4096);
    cmd.create_qp.rq_log2_depth = RQ_LOG2;
    cmd.create_qp.pdn = GUINT32_TO_LE(n->pdn);
    cmd.create_qp.send_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.recv_cqn = GUINT32_TO_LE(n->cqn);
    cmd.create_qp.type = SNIC_QPT_RC;
    cmd.create_qp.ctx = GUINT16_TO_LE(n->ctx);
    node_admin_ok(n->h, &cmd);
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
        add_qp(&n);
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
    fake_host_free(n.h);
    return 0;
}
