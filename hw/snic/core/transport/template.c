/*
 * snic core: the fixed-function half of the Tonic transport template
 * (Tonic, NSDI'20, section 3): the data-delivery engine's window of
 * segment bitmaps and the credit it is given (transport.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "rdma.h"
#include "wire.h"

/*
 * ---- data-delivery engine: go-back-N's window ----
 * Segments [0, sent) of the window went out; those from rtx_from on are
 * to be sent again. A range, not bitmaps: what go-back-N needs, in the
 * QP context (selective programs keep their maps in their own state).
 */

bool snic_dde_rtx_pending(const SnicReq *r)
{
    return r->dde.rtx_from < r->dde.sent;
}

uint32_t snic_dde_outstanding(const SnicReq *r)
{
    return r->dde.sent;
}

/* Cumulative acknowledgement of every PSN up to and including psn. */
void snic_dde_ack_upto(SnicReq *r, uint32_t psn)
{
    SnicDde *d = &r->dde;
    uint32_t n = (psn - d->wnd_start + 1) & SNIC_PSN_MASK;

    if (snic_psn_cmp(psn, d->wnd_start) < 0 || n > d->sent) {
        return;     /* old, or for segments never sent: ignore */
    }
    d->wnd_start = (d->wnd_start + n) & SNIC_PSN_MASK;
    d->sent -= n;
    d->rtx_from = d->rtx_from > n ? d->rtx_from - n : 0;
}

/* Mark every sent segment from psn on for retransmission. */
void snic_dde_mark_from(SnicReq *r, uint32_t psn)
{
    SnicDde *d = &r->dde;
    uint32_t s = (psn - d->wnd_start) & SNIC_PSN_MASK;

    d->rtx_from = MIN(d->rtx_from, s);
}

void snic_transport_retransmit(SnicCore *c, SnicQp *qp, uint32_t psn,
                               SnicRtxReason why)
{
    SnicDde *d = &qp->req.dde;
    uint32_t s = (psn - d->wnd_start) & SNIC_PSN_MASK;

    SNIC_EVENT(c, RETRANSMIT, qp - c->qps, psn, s < d->sent ? d->sent - s : 0,
               why);
    snic_dde_mark_from(&qp->req, psn);
}

/*
 * The segment to send next: the first one marked for retransmission, or a
 * new one if the credit engine allows it.
 */
bool snic_dde_next(const SnicReq *r, uint32_t *psn, bool *retransmit)
{
    const SnicDde *d = &r->dde;

    if (d->rtx_from < d->sent) {
        *psn = (d->wnd_start + d->rtx_from) & SNIC_PSN_MASK;
        *retransmit = true;
        return true;
    }
    if (d->sent < MIN(r->credit.window, SNIC_TX_WINDOW)) {
        *psn = (d->wnd_start + d->sent) & SNIC_PSN_MASK;
        *retransmit = false;
        return true;
    }
    return false;
}

/* A packet covering count PSNs from psn went out. */
void snic_dde_sent(SnicReq *r, uint32_t psn, uint32_t count, bool retransmit)
{
    SnicDde *d = &r->dde;
    uint32_t s = (psn - d->wnd_start) & SNIC_PSN_MASK;

    if (!retransmit) {
        d->sent = MIN(s + count, SNIC_TX_WINDOW);
        d->rtx_from = d->sent;
        return;
    }
    d->rtx_from = MAX(d->rtx_from, MIN(s + count, d->sent));
}
