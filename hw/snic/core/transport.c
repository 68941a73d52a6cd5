/*
 * snic core: the Tonic transport template (data-delivery engine and
 * credit engine, see rdma.h) and its first program, IBA go-back-N.
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

/* ---- the go-back-N program ---- */

/* RNR NAK timer field -> delay in units of 10 us (IBA 9.7.5.2.8) */
static const uint32_t rnr_delay_10us[32] = {
    65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
    384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
    24576, 32768, 49152,
};

static uint64_t rnr_delay_ns(uint8_t code)
{
    return (uint64_t)rnr_delay_10us[code & 31] * 10000;
}

static void gbn_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
    SnicReq *r = &qp->req;

    /*
     * The retry counters count retries without forward progress. A
     * sequence NAK past the oldest unacknowledged PSN is progress too: a
     * responder that takes packets in bursts answers a whole burst with
     * one NAK, so on a lossy wire NAKs can follow each other with no ACK
     * between them while the transfer still moves on.
     */
    if (fb->progress) {
        r->retry_left = qp->attr.retry_cnt;
        r->rnr_left = qp->attr.rnr_retry;
    }
    switch (fb->kind) {
    case SNIC_FB_ACK:
        break;
    case SNIC_FB_NAK_SEQ:
        if (!r->retry_left) {
            snic_req_fail(c, qp, SNIC_WC_RETRY_EXC_ERR);
            return;
        }
        r->retry_left--;
        snic_dde_mark_from(r, fb->psn);
        break;
    case SNIC_FB_RNR:
        if (qp->attr.rnr_retry != 7) {      /* 7 means retry for ever */
            if (!r->rnr_left) {
                snic_req_fail(c, qp, SNIC_WC_RNR_RETRY_EXC_ERR);
                return;
            }
            r->rnr_left--;
        }
        r->rnr_psn = fb->psn;
        r->rnr_deadline = c->ops->now_ns(c->opaque) +
                          rnr_delay_ns(fb->syndrome);
        /* waiting out an RNR is not a timeout: no retransmit timer */
        r->rto_deadline = UINT64_MAX;
        snic_timer_hint(c, r->rnr_deadline);
        return;
    case SNIC_FB_CNP:
        break;      /* go-back-N has no congestion control */
    }
    snic_req_arm_rto(c, qp);
}

static void gbn_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SnicReq *r = &qp->req;

    if (r->rnr_deadline != UINT64_MAX && now >= r->rnr_deadline) {
        r->rnr_deadline = UINT64_MAX;
        snic_dde_mark_from(r, r->rnr_psn);
        snic_req_arm_rto(c, qp);
    }
    if (r->rto_deadline != UINT64_MAX && now >= r->rto_deadline) {
        r->rto_deadline = UINT64_MAX;
        if (!snic_dde_outstanding(r)) {
            return;
        }
        if (!r->retry_left) {
            snic_req_fail(c, qp, SNIC_WC_RETRY_EXC_ERR);
            return;
        }
        r->retry_left--;
        snic_dde_mark_from(r, r->dde.wnd_start);
        snic_req_arm_rto(c, qp);
    }
}

const SnicProgram snic_program_gbn = {
    .name = "go-back-N",
    .incoming = gbn_incoming,
    .periodic = gbn_periodic,
};
