/*
 * snic core: RFC 5681's congestion window, in segments, for the TCP-like
 * transport programs (Reno, NewReno, SACK; Tonic, NSDI'20, section 6.1.1):
 * the state they share and the three rules that are the same in all of
 * them. Each program keeps its own loss recovery.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_TCP_WINDOW_H
#define SNIC_CORE_TCP_WINDOW_H

#include "transport/transport.h"

#define SNIC_TCP_IW         10      /* initial window (RFC 6928) */

typedef struct SnicTcpWindow {
    uint32_t cwnd;              /* segments */
    uint32_t ssthresh;
    uint32_t ca_acked;          /* congestion avoidance: acked this round */
} SnicTcpWindow;

static inline void snic_tcp_window_init(SnicTcpWindow *w)
{
    w->cwnd = SNIC_TCP_IW;
    w->ssthresh = SNIC_TX_WINDOW;
    w->ca_acked = 0;
}

/* New data acknowledged outside recovery: slow start, else one a round */
static inline void snic_tcp_window_grow(SnicTcpWindow *w, uint32_t acked)
{
    if (w->cwnd < w->ssthresh) {
        w->cwnd += acked;
        return;
    }
    w->ca_acked += acked;
    if (w->ca_acked >= w->cwnd) {
        w->ca_acked -= w->cwnd;
        w->cwnd++;
    }
}

/* RFC 5681 (4): a retransmission timeout with 'flight' segments out */
static inline void snic_tcp_window_timeout(SnicTcpWindow *w, uint32_t flight)
{
    w->ssthresh = flight / 2 > 2 ? flight / 2 : 2;
    w->cwnd = 1;
    w->ca_acked = 0;
}

/*
 * Feedback as a TCP sender without SACK sees it (Reno, NewReno: RFC 6582
 * uses no SACK): their responder places out of order and its ACKs carry
 * a SACK block (SNIC_PROG_XPORT), which they ignore; one that moved the
 * cumulative PSN is an ACK, one that did not a duplicate ACK.
 */
static inline SnicFeedback snic_tcp_nosack(const SnicFeedback *fb)
{
    SnicFeedback f = *fb;

    if (f.kind == SNIC_FB_SACK) {
        f.kind = f.progress ? SNIC_FB_ACK : SNIC_FB_DUP_ACK;
    }
    return f;
}

#endif /* SNIC_CORE_TCP_WINDOW_H */
