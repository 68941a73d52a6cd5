/*
 * SRNIC's host half alone (guest-driver/common/snic_sr_recovery.c, the
 * code snic.ko runs in its CtrlQ interrupt handler): the decisions for
 * the SACK pattern that costs them most, and their cost, counted in
 * bitmap bits read (built with SNIC_SR_COUNT_PROBES), which must grow
 * linearly with the window, not with its square.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "snic_sr_recovery.h"

unsigned long snic_sr_probes;

#define QPN     17
#define UNA     0xfffe00u       /* lACK just below the 24-bit wrap */
#define PSN(n)  ((UNA + (n)) & 0xffffffu)

static void put32(__le32 *p, uint32_t v)
{
    *p = GUINT32_TO_LE(v);
}

/* An ACK of the requester in recovery: lACK UNA, SACK block [lo, hi) */
static void req_ack(struct snic_sr_sw_qp *q, uint32_t lo, uint32_t hi,
                    uint32_t sent_end)
{
    struct snic_sr_ctrl e;

    memset(&e, 0, sizeof(e));
    e.type = SNIC_SR_CTRL_REQ_ACK;
    put32(&e.qpn, QPN);
    put32(&e.psn, PSN(-1u));
    put32(&e.epsn, UNA);
    put32(&e.sack_lo, lo);
    put32(&e.sack_hi, hi);
    put32(&e.sent_end, sent_end);
    snic_sr_sw_entry(q, &e);
}

/*
 * The worst SACK pattern over the first 'span' PSNs sent: every other
 * PSN SACKed, a hole between each two, each hole with SACKed PSNs above
 * it. Returns the bits read by the one flush that decides them all.
 */
static unsigned long worst_pattern(struct snic_sr_sw_qp *q, uint32_t span,
                                   struct snic_sr_retry *out, unsigned *n)
{
    uint32_t k;

    snic_sr_sw_init(q, QPN);
    for (k = 1; k < span; k += 2) {
        req_ack(q, PSN(k), PSN(k + 1), PSN(span));
    }
    snic_sr_probes = 0;
    *n = snic_sr_sw_flush(q, out, SNIC_SR_SW_WINDOW);
    return snic_sr_probes;
}

/*
 * Every hole with SNIC_SR_DUPTHRESH SACKed PSNs above it is resent once,
 * oldest first, each alone
 */
static void test_worst_decisions(void)
{
    static struct snic_sr_sw_qp q;
    static struct snic_sr_retry out[SNIC_SR_SW_WINDOW];
    unsigned n, i;

    worst_pattern(&q, SNIC_SR_SW_WINDOW, out, &n);
    /* holes 0, 2, ..., W - 2; the last DUPTHRESH - 1 lack SACKs above */
    g_assert_cmpuint(n, ==, SNIC_SR_SW_WINDOW / 2 - (SNIC_SR_DUPTHRESH - 1));
    for (i = 0; i < n; i++) {
        g_assert_cmpuint(out[i].type, ==, SNIC_SR_RETRY_RTX);
        g_assert_cmpuint(GUINT32_FROM_LE(out[i].qpn), ==, QPN);
        g_assert_cmpuint(GUINT32_FROM_LE(out[i].psn_from), ==, PSN(2 * i));
        g_assert_cmpuint(GUINT32_FROM_LE(out[i].psn_to), ==, PSN(2 * i + 1));
    }
    g_assert_cmpuint(q.rtx_posted, ==, n);
    /* decided once: nothing more until new SACKs come */
    g_assert_cmpuint(snic_sr_sw_flush(&q, out, SNIC_SR_SW_WINDOW), ==, 0);
}

/*
 * Its cost: a few bits read per PSN of the window (the quadratic search
 * read ~W^2/4 at W = 512: 65536), and twice the span costs about twice
 */
static void test_worst_cost_linear(void)
{
    static struct snic_sr_sw_qp q;
    static struct snic_sr_retry out[SNIC_SR_SW_WINDOW];
    unsigned long half, full;
    unsigned n;

    half = worst_pattern(&q, SNIC_SR_SW_WINDOW / 2, out, &n);
    full = worst_pattern(&q, SNIC_SR_SW_WINDOW, out, &n);
    g_test_message("bits read: %lu for %u PSNs, %lu for %u", half,
                   SNIC_SR_SW_WINDOW / 2, full, SNIC_SR_SW_WINDOW);
    g_assert_cmpuint(full, <=, 8 * SNIC_SR_SW_WINDOW);
    g_assert_cmpuint(full, <=, half * 5 / 2);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sr-recovery/worst-sack/decisions", test_worst_decisions);
    g_test_add_func("/sr-recovery/worst-sack/cost-linear",
                    test_worst_cost_linear);
    return g_test_run();
}
