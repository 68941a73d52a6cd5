/*
 * N engine nodes on one simulated switch (see fabric.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "fabric.h"

void fabric_new(Fabric *f, const FabricConfig *cfg)
{
    unsigned i;

    g_assert(cfg->nodes > 0 && cfg->nodes < 250);
    /* a MAC paces for a link of its rate (tests/sim/README.md) */
    g_assert(!cfg->timing || !cfg->timing->line_rate_bps ||
             cfg->timing->line_rate_bps == cfg->link.bandwidth_bps);
    memset(f, 0, sizeof(*f));
    f->n = cfg->nodes;
    f->ack_timeout = cfg->ack_timeout ? cfg->ack_timeout : 8;
    f->sim = snic_sim_new(cfg->seed);
    f->sw = snic_sim_switch_new(f->sim, &cfg->sw);
    f->node = g_new0(Node, f->n);
    f->sending = g_new0(bool, f->n);
    for (i = 0; i < f->n; i++) {
        SnicCoreConfig core = {
            .mac = { 0x52, 0x54, 0x00, 0x00, 0x01, i + 1 },
            /* the priority the switch gives untagged RoCE */
            .pfc_priority = cfg->sw.default_priority,
            /* the port's speed is its link's */
            .link_speed_mbps = node_link_mbps(&cfg->link),
            .sched_burst = cfg->sched_burst,
        };
        Node *n = &f->node[i];
        unsigned port;

        node_init_host(n, fake_host_new_model(&core, cfg->timing), f->sim,
                       i + 1, SNIC_QPT_RC, SNIC_DB_KERNEL_PAGE);
        port = snic_sim_port_connect_switch(&n->h->port, f->sw, &cfg->link);
        g_assert_cmpuint(port, ==, i);
        snic_sim_switch_add_mac(f->sw, core.mac, port);
        node_create_srq(n, 0);
    }
}

void fabric_free(Fabric *f)
{
    unsigned i;

    for (i = 0; i < f->n; i++) {
        fake_host_free(f->node[i].h);
    }
    snic_sim_switch_free(f->sw);
    snic_sim_free(f->sim);
    g_free(f->node);
    g_free(f->sending);
}

void fabric_flow(Fabric *f, unsigned s, unsigned d, uint8_t mtu, Node *rx)
{
    fabric_flow_program(f, s, d, mtu, rx, SNIC_TRANSPORT_GBN);
}

void fabric_flow_program(Fabric *f, unsigned s, unsigned d, uint8_t mtu,
                         Node *rx, uint8_t program)
{
    g_assert(s < f->n && d < f->n && s != d);
    g_assert(!f->sending[s]);
    f->sending[s] = true;
    /* receivers never post sends: their QPs may share one SQ ring */
    node_add_qp(rx, &f->node[d]);
    g_assert_cmpuint(node_set_transport(&f->node[s], program, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(rx, program, 0), ==, SNIC_ADMIN_OK);
    node_connect(&f->node[s], rx, mtu, 7, 7);
    node_connect(rx, &f->node[s], mtu, 7, 7);
}

void fabric_flows(Fabric *f, unsigned s, unsigned d, unsigned n,
                  uint8_t mtu, uint8_t program, Node *tx, Node *rx)
{
    Node *src = &f->node[s];
    uint64_t area = FAKE_MEM_BASE + src->h->mem_size;
    unsigned i;

    g_assert(s < f->n && d < f->n && s != d);
    g_assert(!f->sending[s]);
    f->sending[s] = true;
    fake_host_grow(src->h, (size_t)n * NODE_QP_AREA);
    for (i = 0; i < n; i++) {
        node_add_qp_at(&tx[i], src, area + (uint64_t)i * NODE_QP_AREA);
        node_add_qp(&rx[i], &f->node[d]);
        g_assert_cmpuint(node_set_transport(&tx[i], program, 0), ==,
                         SNIC_ADMIN_OK);
        g_assert_cmpuint(node_set_transport(&rx[i], program, 0), ==,
                         SNIC_ADMIN_OK);
        node_connect_rtr(&tx[i], &rx[i], mtu);
        node_connect_rts_timeout(&tx[i], 7, 7, f->ack_timeout);
        node_connect_rtr(&rx[i], &tx[i], mtu);
        node_connect_rts_timeout(&rx[i], 7, 7, f->ack_timeout);
    }
}
