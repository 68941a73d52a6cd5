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

/* ---- data-delivery engine: a 128-segment window of bitmaps ---- */

static bool bit_test(const uint64_t *bm, uint32_t s)
{
    return bm[s / 64] >> (s % 64) & 1;
}

static void bit_set(uint64_t *bm, uint32_t s)
{
    bm[s / 64] |= 1ull << (s % 64);
}

static void bit_clear(uint64_t *bm, uint32_t s)
{
    bm[s / 64] &= ~(1ull << (s % 64));
}

/* Drop the n lowest segments of a 128-bit map. */
static void bits_shift(uint64_t *bm, uint32_t n)
{
    if (n >= 128) {
        bm[0] = bm[1] = 0;
    } else if (n >= 64) {
        bm[0] = bm[1] >> (n - 64);
        bm[1] = 0;
    } else if (n) {
        bm[0] = bm[0] >> n | bm[1] << (64 - n);
        bm[1] >>= n;
    }
}

bool snic_dde_rtx_pending(const SnicReq *r)
{
    return r->dde.rtx[0] || r->dde.rtx[1];
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
    bits_shift(d->acked, n);
    bits_shift(d->rtx, n);
    memmove(d->rtx_cnt, d->rtx_cnt + n, SNIC_TX_WINDOW - n);
    memset(d->rtx_cnt + SNIC_TX_WINDOW - n, 0, n);
    d->wnd_start = (d->wnd_start + n) & SNIC_PSN_MASK;
    d->sent -= n;
}

/* Mark every sent segment from psn on for retransmission. */
void snic_dde_mark_from(SnicReq *r, uint32_t psn)
{
    SnicDde *d = &r->dde;
    uint32_t s = (psn - d->wnd_start) & SNIC_PSN_MASK;

    for (; s < d->sent; s++) {
        bit_set(d->rtx, s);
        bit_clear(d->acked, s);
        if (d->rtx_cnt[s] < UINT8_MAX) {
            d->rtx_cnt[s]++;
        }
    }
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
 * The segment to send next: the lowest one marked for retransmission, or a
 * new one if the credit engine allows it.
 */
bool snic_dde_next(const SnicReq *r, uint32_t *psn, bool *retransmit)
{
    const SnicDde *d = &r->dde;
    uint32_t s;

    for (s = 0; s < d->sent; s++) {
        if (bit_test(d->rtx, s)) {
            *psn = (d->wnd_start + s) & SNIC_PSN_MASK;
            *retransmit = true;
            return true;
        }
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
    uint32_t s = (psn - d->wnd_start) & SNIC_PSN_MASK, i;

    if (!retransmit) {
        d->sent = MIN(s + count, SNIC_TX_WINDOW);
        return;
    }
    for (i = s; i < s + count && i < SNIC_TX_WINDOW; i++) {
        bit_clear(d->rtx, i);
    }
}
