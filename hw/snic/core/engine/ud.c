/*
 * snic core: UD and GSI queue pairs: datagrams with a DETH (Q_Key, source
 * QP), one packet per work request, no acknowledgements. A user context's
 * datagrams carry a source address from the port's GID table. Received
 * datagrams are placed after a 40-byte GRH slot holding the packet's IP
 * header (IPv4 in bytes 20-39), as the Linux RoCE GSI path expects. A
 * datagram to a multicast group goes to each QP attached to it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "port/gid.h"
#include "objects/mcast.h"
#include "objects/qp.h"

#define SNIC_GRH_LEN    40
/* One UD send WQE to the wire; returns its completion status. */
static uint8_t ud_send(SnicCore *c, SnicQp *qp, const struct snic_sq_wqe *w,
                       uint32_t *len)
{
    const struct snic_av *av = &w->ud.av;
    uint32_t qkey = GUINT32_FROM_LE(w->ud.remote_qkey);
    uint64_t total;
    SnicPkt p;
    uint8_t st;

    if ((w->opcode != SNIC_WR_SEND && w->opcode != SNIC_WR_SEND_IMM) ||
        w->num_sge > SNIC_SQ_WQE_MAX_SGE) {
        SNIC_GUEST_ERROR(c, GE_WQE_INVALID, qp - c->qps, qp->sq_comp,
                         w->opcode, w->num_sge);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    if (av->flags & ~SNIC_AV_IPV6 || w->flags & ~SNIC_WQE_FLAGS_ALL) {
        /* address vector flags above the WQE's */
        SNIC_GUEST_ERROR(c, GE_WQE_FLAGS, qp - c->qps, qp->sq_comp,
                         av->flags << 8 | w->flags);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    /* A user context sends only from an address the port owns */
    if (qp->ctx != SNIC_DB_KERNEL_PAGE && !snic_av_source_owned(c, av)) {
        SNIC_GUEST_ERROR(c, GE_UD_SOURCE, qp - c->qps, qp->sq_comp);
        return SNIC_WC_LOC_PROT_ERR;
    }
    st = snic_wqe_payload_len(c, qp, qp->sq_comp, w, &total);
    if (st != SNIC_WC_SUCCESS) {
        return st;
    }
    if (total > snic_port_mtu(c)) {
        return SNIC_WC_LOC_LEN_ERR;     /* a datagram is one packet */
    }
    *len = total;
    st = snic_wqe_gather(c, qp, w, 0, c->rdma_payload, total);
    if (st != SNIC_WC_SUCCESS) {
        return st;
    }
    memset(&p, 0, sizeof(p));
    snic_rdma_av_addr(c, av, qp - c->qps, GUINT32_FROM_LE(w->ud.remote_qpn),
                      &p.addr);
    p.opcode = w->opcode == SNIC_WR_SEND_IMM ? SNIC_OP_UD_SEND_ONLY_IMM :
                                               SNIC_OP_UD_SEND_ONLY;
    p.se = w->flags & SNIC_WQE_SOLICITED;
    p.pkey = SNIC_DEFAULT_PKEY;
    p.dqpn = GUINT32_FROM_LE(w->ud.remote_qpn) & SNIC_QPN_MASK;
    p.psn = qp->req.next_psn;
    /* IBA: a Q_Key with the high bit set means "use the QP's own" */
    p.deth.qkey = qkey & 0x80000000u ? qp->attr.qkey : qkey;
    p.deth.sqpn = qp - c->qps;
    p.imm = GUINT32_FROM_BE(w->imm);
    p.payload = c->rdma_payload;
    p.payload_len = total;
    snic_rdma_xmit(c, &p, snic_wqe_host_bytes(w, total));
    qp->req.next_psn = (qp->req.next_psn + 1) & SNIC_PSN_MASK;
    return SNIC_WC_SUCCESS;
}

bool snic_ud_run(SnicCore *c, SnicQp *qp, unsigned budget)
{
    unsigned done = 0;

    while (done < budget && qp->state == SNIC_QPS_RTS &&
           qp->sq_comp != qp->sq_tail && snic_ready(c)) {
        SnicSendWqe info = { .opcode = SNIC_WR_SEND };
        struct snic_sq_wqe w = { 0 };   /* no stack bytes in a CQE */
        uint32_t len = 0;
        uint8_t st;

        st = snic_sq_fetch(c, qp, qp->sq_comp, &w) ? SNIC_WC_LOC_QP_OP_ERR :
             ud_send(c, qp, &w, &len);
        info.len = len;
        if (st != SNIC_WC_SUCCESS || w.flags & SNIC_WQE_SIGNALED) {
            snic_post_send_cqe(c, qp, &info, GUINT64_FROM_LE(w.wr_id), st);
        }
        qp->sq_comp++;
        qp->req.sq_head = qp->sq_comp;
        if (st != SNIC_WC_SUCCESS) {
            snic_wq_error(c, qp);
            break;
        }
        done++;
    }
    return done == budget;
}

void snic_ud_receive(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    uint8_t grh[SNIC_GRH_LEN];
    int64_t room;
    uint8_t st;

    /*
     * What the sender got wrong only costs the datagram (IBA class D):
     * a Q_Key violation, no receive WQE, more than a path MTU of payload,
     * a buffer too small. The QP carries on.
     */
    if (p->deth.qkey != qp->attr.qkey || p->payload_len > SNIC_IB_MAX_MTU ||
        !snic_recv_take(c, qp)) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    room = snic_recv_room(c, qp);
    if (room >= 0 && room < SNIC_GRH_LEN + p->payload_len) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    /* from here on a failure is the receiver's own: error the QP */
    st = room < 0 ? SNIC_WC_LOC_QP_OP_ERR : SNIC_WC_SUCCESS;
    memset(grh, 0, sizeof(grh));
    if (p->addr.ipv6) {
        memcpy(grh, p->l3, SNIC_GRH_LEN);
    } else {
        memcpy(grh + 20, p->l3, 20);
    }
    if (st == SNIC_WC_SUCCESS) {
        st = snic_rq_scatter(c, qp, 0, grh, sizeof(grh));
    }
    if (st == SNIC_WC_SUCCESS) {
        st = snic_rq_scatter(c, qp, sizeof(grh), p->payload, p->payload_len);
    }
    snic_rq_complete(c, qp, st, SNIC_WC_RECV, sizeof(grh) + p->payload_len,
                     p);
    if (st != SNIC_WC_SUCCESS) {
        snic_wq_error(c, qp);
    }
}

void snic_ud_mcast_receive(SnicCore *c, const SnicPkt *p)
{
    const SnicMcastGroup *g = snic_mcast_group(c, p->addr.ipv6, p->addr.dip);
    unsigned i;

    if (!g || p->dqpn != SNIC_MCAST_QPN ||
        !(snic_opcode_info(p->opcode)->flags & SNIC_OPF_UD)) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    for (i = 0; i < g->nqp; i++) {
        SnicQp *qp = snic_qp_get(c, g->qpn[i]);

        if (qp && (qp->state == SNIC_QPS_RTR || qp->state == SNIC_QPS_RTS)) {
            snic_ud_receive(c, qp, p);
        }
    }
}
