/*
 * UD multicast: attaching and detaching QPs, a datagram to a group fanned
 * out to every attached QP with the right Q_Key (an SRQ-fed one too), the
 * port's own datagrams coming back to it, the group MAC checked, and the
 * table's limits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"

#define QKEY        0x4242u
#define GROUP_IP    0xef010203u     /* 239.1.2.3 */

static const SnicSimLinkConfig clean = { .delay_ns = 1000 };

static void group_gid(uint8_t gid[16], uint32_t ip)
{
    memset(gid, 0, 16);
    gid[10] = gid[11] = 0xff;
    gid[12] = ip >> 24;
    gid[13] = ip >> 16;
    gid[14] = ip >> 8;
    gid[15] = ip;
}

static uint16_t mcast_cmd(Node *n, uint8_t opcode, uint32_t qpn, uint32_t ip)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, opcode, sizeof(cmd.mcast));
    cmd.mcast.qpn = GUINT32_TO_LE(qpn);
    group_gid(cmd.mcast.gid, ip);
    return fake_admin(n->h, &cmd, NULL);
}

/* A datagram from n to the group, to the given MAC (NULL: the group's) */
static void post_group(Node *n, uint64_t wr_id, uint32_t len,
                       const uint8_t *mac)
{
    static const uint8_t group_mac[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
    struct snic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.opcode = SNIC_WR_SEND;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    group_gid(w.ud.av.dgid, GROUP_IP);
    w.ud.av.sgid[10] = w.ud.av.sgid[11] = 0xff;
    w.ud.av.sgid[12] = 10;
    w.ud.av.sgid[15] = n->ip;
    memcpy(w.ud.av.dmac, mac ? mac : group_mac, 6);
    w.ud.av.hop_limit = 1;
    w.ud.remote_qpn = GUINT32_TO_LE(SNIC_MCAST_QPN);
    w.ud.remote_qkey = GUINT32_TO_LE(QKEY);
    w.sge[0].addr = GUINT64_TO_LE(BUF);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(n->lkey);
    node_post_wqe(n, &w);
}

/* Receive completions on n's CQ, by QP: counts[qp index in qpns] */
static unsigned drain(Node *n, const uint64_t *qpns, unsigned nqp,
                      unsigned *counts)
{
    struct snic_cqe c;
    unsigned total = 0, i;

    memset(counts, 0, nqp * sizeof(*counts));
    while (node_poll_cq(n, &c)) {
        if (c.opcode != SNIC_WC_RECV) {
            continue;
        }
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        for (i = 0; i < nqp; i++) {
            if (GUINT32_FROM_LE(c.qpn) == qpns[i]) {
                counts[i]++;
            }
        }
        total++;
    }
    return total;
}

/*
 * b's two attached QPs (one on an RQ, one on an SRQ) get the group's
 * datagrams; a third with another Q_Key and b's unattached ones do not;
 * a, attached too, gets its own; a wrong MAC reaches nobody; after a
 * detach the QP gets nothing more.
 */
static void test_fanout(void)
{
    SnicSim *sim = snic_sim_new(3);
    Node a, b, b2, b3;
    uint64_t qpns[4];
    unsigned counts[4], i;

    node_init_type(&a, sim, 1, SNIC_QPT_UD);
    node_init_type(&b, sim, 2, SNIC_QPT_UD);
    snic_sim_port_connect(&a.h->port, &b.h->port, &clean);
    node_create_srq(&b, 0);
    node_add_qp(&b2, &b);
    node_add_qp(&b3, &b);
    node_ud_up(&a, QKEY, false);
    node_ud_up(&b, QKEY, false);
    node_ud_up(&b2, QKEY, false);
    node_ud_up(&b3, QKEY + 1, false);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, a.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mcast_cmd(&b, SNIC_ADMIN_ATTACH_MCAST, b.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mcast_cmd(&b, SNIC_ADMIN_ATTACH_MCAST, b2.qpn,
                               GROUP_IP), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mcast_cmd(&b, SNIC_ADMIN_ATTACH_MCAST, b3.qpn,
                               GROUP_IP), ==, SNIC_ADMIN_OK);
    for (i = 0; i < 4; i++) {
        node_post_recv(&a, 10 + i, BUF + 0x10000 + i * 0x1000, 0x1000);
        node_post_recv(&b, 20 + i, BUF + 0x10000 + i * 0x1000, 0x1000);
        node_post_srq_recv(&b, 30 + i, BUF + 0x20000 + i * 0x1000, 0x1000,
                           b.lkey);
    }
    node_fill(&a, BUF, 500, 7);
    post_group(&a, 1, 500, NULL);
    snic_sim_run(sim, 1000000);
    qpns[0] = b.qpn;
    qpns[1] = b2.qpn;
    qpns[2] = b3.qpn;
    g_assert_cmpuint(drain(&b, qpns, 3, counts), ==, 2);
    g_assert_cmpuint(counts[0], ==, 1);
    g_assert_cmpuint(counts[1], ==, 1);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x10000 + 40, 500), 500,
                    fake_ptr(a.h, BUF, 500), 500);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x20000 + 40, 500), 500,
                    fake_ptr(a.h, BUF, 500), 500);
    qpns[0] = a.qpn;
    g_assert_cmpuint(drain(&a, qpns, 1, counts), ==, 1);  /* its own */

    /* a unicast MAC under the group address: dropped */
    post_group(&a, 2, 100, fake_mac);
    snic_sim_run(sim, 1000000);
    qpns[0] = b.qpn;
    g_assert_cmpuint(drain(&b, qpns, 3, counts), ==, 0);

    /* detached, b no longer receives; b2 still does */
    g_assert_cmpuint(mcast_cmd(&b, SNIC_ADMIN_DETACH_MCAST, b.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_OK);
    post_group(&a, 3, 100, NULL);
    snic_sim_run(sim, 1000000);
    g_assert_cmpuint(drain(&b, qpns, 3, counts), ==, 1);
    g_assert_cmpuint(counts[1], ==, 1);
    node_pair_free(sim, &a, &b);
}

/* What the table refuses and its limits; a destroyed QP leaves. */
static void test_admin(void)
{
    SnicSim *sim = snic_sim_new(4);
    struct snic_admin_cmd cmd;
    Node a, rc, q[SNIC_MAX_MCAST_QP_ATTACH + 1];
    unsigned i;

    node_init_type(&a, sim, 1, SNIC_QPT_UD);
    node_init(&rc, sim, 2);
    g_assert_cmpuint(mcast_cmd(&rc, SNIC_ADMIN_ATTACH_MCAST, rc.qpn,
                               GROUP_IP), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, a.qpn,
                               0x0a000001), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, a.qpn + 9,
                               GROUP_IP), ==, SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_DETACH_MCAST, a.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_BAD_PARAM);     /* not attached */
    /* IPv6 groups are ff00::/8 */
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ATTACH_MCAST, sizeof(cmd.mcast));
    cmd.mcast.qpn = GUINT32_TO_LE(a.qpn);
    cmd.mcast.gid[0] = 0xff;
    cmd.mcast.gid[15] = 5;
    g_assert_cmpuint(fake_admin(a.h, &cmd, NULL), ==, SNIC_ADMIN_OK);

    /* attaching twice is one attachment */
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, a.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, a.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_DETACH_MCAST, a.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_DETACH_MCAST, a.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_BAD_PARAM);

    /*
     * groups: the IPv6 one and 7 more of a's context (its share), 8 of
     * each of three more contexts, then the table is full
     */
    for (i = 1; i < SNIC_MAX_MCAST_GRP / 4; i++) {
        g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, a.qpn,
                                   GROUP_IP + i), ==, SNIC_ADMIN_OK);
    }
    for (; i < SNIC_MAX_MCAST_GRP; i++) {
        if (i % (SNIC_MAX_MCAST_GRP / 4) == 0) {
            node_add_ctx(&q[i / (SNIC_MAX_MCAST_GRP / 4)], &a,
                         i / (SNIC_MAX_MCAST_GRP / 4));
        }
        g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST,
                                   q[i / (SNIC_MAX_MCAST_GRP / 4)].qpn,
                                   GROUP_IP + i), ==, SNIC_ADMIN_OK);
    }
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, q[3].qpn,
                               GROUP_IP + 100), ==, SNIC_ADMIN_NO_RESOURCES);
    /* destroying the QPs empties every group they were in */
    for (i = 0; i < 4; i++) {
        snic_admin_cmd_init(&cmd, SNIC_ADMIN_DESTROY_QP, sizeof(cmd.obj));
        cmd.obj.handle = GUINT32_TO_LE(i ? q[i].qpn : a.qpn);
        node_admin_ok(a.h, &cmd);
    }
    for (i = 0; i < SNIC_MAX_MCAST_GRP; i++) {
        g_assert_cmpuint(a.h->core->mcast[i].nqp, ==, 0);
    }

    /* QPs per group: four contexts' shares of 4 */
    node_create_srq(&a, 0);
    for (i = 0; i <= SNIC_MAX_MCAST_QP_ATTACH; i++) {
        unsigned ctx = MIN(i / 4, 3);

        if (ctx) {
            node_add_ctx(&q[i], &a, ctx);
        } else {
            node_add_qp(&q[i], &a);
        }
        g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, q[i].qpn,
                                   GROUP_IP), ==,
                         i < SNIC_MAX_MCAST_QP_ATTACH ?
                         SNIC_ADMIN_OK : SNIC_ADMIN_NO_RESOURCES);
    }
    fake_host_free(rc.h);
    fake_host_free(a.h);
    snic_sim_free(sim);
}

/*
 * One context holds at most its share of the group table (8 of 32) and
 * of a group's QP slots (4 of 16): a process that joins groups, or fills
 * one with its QPs, leaves room for another's; what it already holds it
 * may attach to again.
 */
static void test_ctx_share(void)
{
    SnicSim *sim = snic_sim_new(5);
    const unsigned grp_share = SNIC_MAX_MCAST_GRP / 4;
    const unsigned qp_share = SNIC_MAX_MCAST_QP_ATTACH / 4;
    Node a, p1, p2, q[SNIC_MAX_MCAST_QP_ATTACH / 4 + 1];
    unsigned i;

    node_init_type(&a, sim, 1, SNIC_QPT_UD);
    node_add_ctx(&p1, &a, 1);
    node_add_ctx(&p2, &a, 2);
    for (i = 0; i < grp_share; i++) {
        g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, p1.qpn,
                                   GROUP_IP + i), ==, SNIC_ADMIN_OK);
    }
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, p1.qpn,
                               GROUP_IP + i), ==, SNIC_ADMIN_NO_RESOURCES);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, p1.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_OK);        /* attached already */
    /* the other process: a new group, and one of p1's */
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, p2.qpn,
                               GROUP_IP + i), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, p2.qpn, GROUP_IP),
                     ==, SNIC_ADMIN_OK);
    /* p1's second QP joins a group p1 is in: no new group of its share */
    node_add_qp(&q[0], &p1);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, q[0].qpn,
                               GROUP_IP), ==, SNIC_ADMIN_OK);
    /* p1's QPs fill its share of the group's slots, then are refused */
    for (i = 1; i <= qp_share; i++) {
        node_add_qp(&q[i], &p1);
        g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, q[i].qpn,
                                   GROUP_IP), ==,
                         i + 2 <= qp_share ? SNIC_ADMIN_OK :
                         SNIC_ADMIN_NO_RESOURCES);
    }
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_DETACH_MCAST, p1.qpn,
                               GROUP_IP + 1), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(mcast_cmd(&a, SNIC_ADMIN_ATTACH_MCAST, p1.qpn,
                               GROUP_IP + 50), ==, SNIC_ADMIN_OK);
    fake_host_free(a.h);
    snic_sim_free(sim);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/mcast/fanout", test_fanout);
    g_test_add_func("/mcast/admin", test_admin);
    g_test_add_func("/mcast/ctx-share", test_ctx_share);
    return g_test_run();
}
