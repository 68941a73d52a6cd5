/*
 * snic core: the admin commands of transport programs (include/snic/
 * snic_admin.h, ABI 2.2): select a QP's program before the connection
 * runs, and tell what a program is and how a QP running it fares (Tonic's
 * Table 3 columns: credit type, state bytes; and the QPC bytes it costs).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "objects/qp.h"

uint16_t snic_cmd_set_qp_transport(SnicCore *c,
                                   const struct snic_admin_cmd *cmd,
                                   uint64_t *result)
{
    const struct snic_admin_set_qp_transport *a = &cmd->set_qp_transport;
    SnicQp *qp = snic_qp_get(c, GUINT32_FROM_LE(a->qpn));

    if (!qp || qp->type != SNIC_QPT_RC) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* agreed before the connection runs, like its QPN and PSNs */
    if (qp->state != SNIC_QPS_RESET && qp->state != SNIC_QPS_INIT) {
        return SNIC_ADMIN_BAD_STATE;
    }
    /* StRoM's answers carry no message number (snic_program_numbered()) */
    if (qp->rpc.flags & SNIC_QP_RPC_ENABLE && a->program < SNIC_PROGRAMS &&
        snic_program_numbered(snic_programs[a->program])) {
        return SNIC_ADMIN_NOT_SUPPORTED;
    }
    return snic_transport_select(qp, a->program, a->ack_every) ?
           SNIC_ADMIN_OK : SNIC_ADMIN_BAD_PARAM;
}

uint16_t snic_cmd_query_transport(SnicCore *c,
                                  const struct snic_admin_cmd *cmd,
                                  uint64_t *result)
{
    const struct snic_admin_query_transport *q = &cmd->query_transport;
    uint32_t qpn = GUINT32_FROM_LE(q->qpn);
    uint64_t addr = GUINT64_FROM_LE(q->resp_addr);
    SnicQp *qp = qpn ? snic_qp_get(c, qpn) : NULL;
    uint8_t program = qp ? qp->program : q->program;
    struct snic_transport_info t;
    const SnicProgram *p;

    if ((qpn && !qp) || program >= SNIC_PROGRAMS) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    p = snic_programs[program];
    memset(&t, 0, sizeof(t));
    g_strlcpy(t.name, p->name, sizeof(t.name));
    t.program = program;
    t.credit = p->credit;
    t.flags = (p->flags & SNIC_PROG_ECN ? SNIC_TRANSPORT_F_ECN : 0) |
              (p->ack_policy == SNIC_ACK_TCP ? SNIC_TRANSPORT_F_TCP_ACKS : 0) |
              (p->flags & (SNIC_PROG_XPORT | SNIC_PROG_SR) ?
               SNIC_TRANSPORT_F_XPORT : 0) |
              (p->flags & SNIC_PROG_SR ? SNIC_TRANSPORT_F_SR : 0) |
              (p->flags & SNIC_PROG_ECE ? SNIC_TRANSPORT_F_ECE : 0);
    t.state_bytes = GUINT16_TO_LE(p->state_bytes);
    t.state_max = GUINT16_TO_LE(snic_program_state_max(p));
    t.qpc_bytes = GUINT32_TO_LE(sizeof(SnicQp) + snic_program_area_bytes(p));
    if (qp) {
        const SnicRateCredit *rc = snic_rate_credit(qp);

        t.ack_every = qp->resp.ack_every;
        t.qpn = GUINT32_TO_LE(qpn);
        t.window = GUINT32_TO_LE(qp->req.credit.window);
        t.rate_mbps = GUINT32_TO_LE(rc ? rc->mbps : 0);
        t.rtx_segments = GUINT32_TO_LE(qp->rtx_segments);
        if (qp->pstate) {
            t.cnp_rx = GUINT32_TO_LE(snic_prog_head(qp)->cnp_rx);
            t.cnp_tx = GUINT32_TO_LE(snic_prog_head(qp)->cnp_tx);
        }
    }
    if (addr % 8 || snic_dma_write(c, addr, &t, sizeof(t))) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    *result = sizeof(t);
    return SNIC_ADMIN_OK;
}
