/*
 * snic core: the engine's transmit: a packet's addresses (an RC QP's
 * connected peer, or a datagram's address vector) and its way out, to
 * the port or, for the port's own addresses, back in through it; and the
 * one builder of an RC SEND or WRITE message's packets, for the
 * requester's WQEs and StRoM's answers alike.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/wq.h"
#include "engine/xmit.h"
#include "port/gid.h"
#include "port/wire.h"
#include "objects/mcast.h"
#include "objects/qp.h"
#include "port/link.h"
#include "transport/transport.h"

/*
 * Addressing of a packet on the path an address vector describes: the
 * connected peer of an RC QP, or a UD WQE's destination.
 */
bool snic_av_source_owned(SnicCore *c, const struct snic_av *av)
{
    return av->flags & SNIC_AV_IPV6 ? snic_port_owns(c, true, av->sgid) :
                                      snic_port_owns(c, false, av->sgid + 12);
}

void snic_rdma_av_addr(SnicCore *c, const struct snic_av *av, uint32_t lqpn,
                       uint32_t rqpn, SnicWireAddr *a)
{
    memcpy(a->dmac, av->dmac, 6);
    memcpy(a->smac, c->mac, 6);
    a->ipv6 = av->flags & SNIC_AV_IPV6;
    if (a->ipv6) {
        memcpy(a->sip, av->sgid, 16);
        memcpy(a->dip, av->dgid, 16);
    } else {
        memcpy(a->sip, av->sgid + 12, 4);
        memcpy(a->dip, av->dgid + 12, 4);
    }
    a->tclass = av->traffic_class;
    a->hop_limit = av->hop_limit ? av->hop_limit : 64;
    a->flow_label = GUINT32_FROM_LE(av->flow_label) & 0xfffff;
    a->ip_id = c->ip_id++;
    a->sport = snic_wire_udp_sport(lqpn, rqpn);
}

/* A packet of an RC QP to its connected peer. */
void snic_rdma_fill_addr(SnicCore *c, SnicQp *qp, SnicPkt *p)
{
    const SnicQpAv *qav = &qp->attr.av;
    struct snic_av av = {
        .hop_limit = qav->hop_limit,
        .traffic_class = qav->traffic_class,
        .flow_label = GUINT32_TO_LE(qav->flow_label),
        .flags = qav->flags,
    };

    memcpy(av.dgid, qav->dgid, 16);
    snic_gid_get(c, qav->sgid_index, av.sgid);
    memcpy(av.dmac, qav->dmac, 6);
    snic_rdma_av_addr(c, &av, qp - c->qps, qp->attr.dest_qpn, &p->addr);
    if (snic_qp_program(qp)->flags & (SNIC_PROG_ECN | SNIC_PROG_ECE)) {
        /* ECN-capable transport, so switches mark instead of dropping */
        p->addr.tclass = (p->addr.tclass & ~SNIC_ECN_MASK) | SNIC_ECN_ECT0;
    }
    p->pkey = SNIC_DEFAULT_PKEY;
    p->dqpn = qp->attr.dest_qpn;
}

uint8_t *snic_rdma_payload_buf(SnicCore *c, const SnicPkt *p)
{
    size_t off = snic_wire_payload_off(p, sizeof(c->rdma_frame));

    return off ? c->rdma_frame + off : c->rdma_payload;
}

void snic_rdma_xmit(SnicCore *c, const SnicPkt *p, uint32_t host_bytes)
{
    size_t len = snic_wire_build(p, c->rdma_frame, sizeof(c->rdma_frame));
    bool mcast;

    if (!len) {
        return;     /* built from validated state: cannot happen */
    }
    if (!c->link_up) {
        snic_stat_inc(&c->stats.tx_dropped);
        return;
    }
    if (len > snic_max_frame(c)) {
        /*
         * A path MTU the port's Ethernet MTU cannot carry: the MAC does
         * not send it, and the transport sees a loss, as on a real network
         */
        snic_stat_inc(&c->stats.tx_dropped);
        SNIC_EVENT(c, ETH_DROP, 0, len, SNIC_DROP_OVER_MTU);
        return;
    }
    snic_stat_inc(&c->stats.rdma_tx_packets);
    mcast = snic_ip_is_mcast(p->addr.ipv6, p->addr.dip);
    if (mcast || snic_port_owns(c, p->addr.ipv6, p->addr.dip)) {
        /* for QPs of this port: it turns around inside the port */
        if (!snic_link_loop(c, c->rdma_frame, len)) {
            snic_stat_inc(&c->stats.tx_dropped);
        }
        c->ops->kick(c->opaque);
        if (!mcast) {
            return;
        }
    }
    snic_link_tx(c, c->rdma_frame, len, host_bytes);
}

uint8_t snic_seg_opcode(uint8_t wr, uint32_t seg, uint32_t nseg)
{
    bool first = seg == 0, last = seg == nseg - 1;
    bool send = wr == SNIC_WR_SEND || wr == SNIC_WR_SEND_IMM ||
                wr == SNIC_WR_SEND_INV;
    bool imm = wr == SNIC_WR_SEND_IMM || wr == SNIC_WR_RDMA_WRITE_IMM;
    bool inv = wr == SNIC_WR_SEND_INV;

    if (send) {
        return first && last ? (imm ? SNIC_OP_RC_SEND_ONLY_IMM :
                                inv ? SNIC_OP_RC_SEND_ONLY_INV :
                                SNIC_OP_RC_SEND_ONLY) :
               first ? SNIC_OP_RC_SEND_FIRST :
               last ? (imm ? SNIC_OP_RC_SEND_LAST_IMM :
                       inv ? SNIC_OP_RC_SEND_LAST_INV :
                       SNIC_OP_RC_SEND_LAST) :
               SNIC_OP_RC_SEND_MIDDLE;
    }
    return first && last ? (imm ? SNIC_OP_RC_WRITE_ONLY_IMM :
                                  SNIC_OP_RC_WRITE_ONLY) :
           first ? SNIC_OP_RC_WRITE_FIRST :
           last ? (imm ? SNIC_OP_RC_WRITE_LAST_IMM : SNIC_OP_RC_WRITE_LAST) :
           SNIC_OP_RC_WRITE_MIDDLE;
}

void snic_rc_segment(const SnicQp *qp, const SnicRcMsg *m, uint32_t seg,
                     const uint8_t *payload, uint32_t len, bool ackreq,
                     SnicPkt *p)
{
    uint32_t off = seg * snic_qp_mtu_bytes(qp);
    bool last = seg == m->npsn - 1;

    p->opcode = snic_seg_opcode(m->wr, seg, m->npsn);
    p->ackreq = last || (p->psn % SNIC_ACKREQ_EVERY) == 0 || ackreq;
    p->se = last && (m->flags & SNIC_WQE_SOLICITED) &&
            m->wr != SNIC_WR_RDMA_WRITE;
    if (m->numbered &&
        snic_qp_program(qp)->flags & (SNIC_PROG_XPORT | SNIC_PROG_SR)) {
        /*
         * every packet says where it goes: placed as it arrives; a
         * message taking a receive WQE (a WRITE with immediate too) says
         * which, and where in the message the packet is
         */
        bool send = m->wr != SNIC_WR_RDMA_WRITE &&
                    m->wr != SNIC_WR_RDMA_WRITE_IMM;
        bool msg = snic_wr_takes_recv(m->wr);

        p->xport = true;
        p->xeth.flags = (send ? 0 : SNIC_XETH_F_PLACE) |
                        (msg ? SNIC_XETH_F_MSG : 0);
        p->xeth.rkey = send ? 0 : m->rkey;
        p->xeth.va = send ? 0 : m->va + off;
        p->xeth.msg = msg ? m->msg : 0;
        p->xeth.offset = msg ? off : 0;
    }
    p->reth.va = m->va;         /* RETH names the whole message */
    p->reth.rkey = m->rkey;
    p->reth.len = m->len;
    p->imm = m->imm;
    p->ieth_rkey = m->imm;      /* SEND with Invalidate: the R_Key to drop */
    p->payload = payload;
    p->payload_len = len;
}
