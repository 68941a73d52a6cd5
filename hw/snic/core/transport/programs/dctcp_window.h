/*
 * snic core: DCTCP's congestion window (DCTCP, SIGCOMM'10, section 3.1;
 * RFC 8257 section 3.3), shared by the DCTCP program over go-back-N
 * (dctcp.c) and SRNIC's selective repeat with DCTCP (SRNIC, NSDI'23,
 * section 5; srnic/sr.c). Each keeps its own loss recovery.
 *
 * The responder counts CE-marked data packets and every ACK echoes the
 * count (SNIC_PROG_ECE); the sender:
 *  - counts the segments acknowledged and the marks echoed; once per
 *    window of data (when the cumulative ACK passes the PSN that was next
 *    to send when the window began), F = marked / acked and
 *    alpha = (1 - g) alpha + g F;
 *  - an ACK bringing new marks cuts cwnd = cwnd (1 - alpha / 2), at most
 *    once a round trip (no cut until the ACK passes what was sent by the
 *    last cut, as RFC 3168 6.1.2); it does not grow the window;
 *  - any other ACK grows it: slow start below ssthresh, else one segment
 *    a window (cwnd += acked / cwnd).
 * The window is kept in 1/256 segments: with 16 flows sharing one link a
 * window is a few segments, and a cut of alpha / 2 of it must not round
 * to nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_DCTCP_WINDOW_H
#define SNIC_CORE_DCTCP_WINDOW_H

#include "transport/transport.h"

#define DCTCP_IW            10                  /* RFC 6928, as TCP's */
/* g = 1/16: the DCTCP paper's gain (section 3.4), RFC 8257's example */
#define DCTCP_G_SHIFT       4
#define DCTCP_ALPHA_ONE     (1u << 16)          /* alpha in Q16 */
#define DCTCP_SEG           256u                /* cwnd in 1/256 segments */
#define DCTCP_MIN_CWND      (2 * DCTCP_SEG)     /* RFC 8257 3.3: 2 MSS */

typedef struct SnicDctcpWindow {
    uint32_t cwnd;              /* 1/256 segments */
    uint32_t ssthresh;          /* 1/256 segments */
    uint32_t alpha;             /* Q16, 0 .. DCTCP_ALPHA_ONE */
    uint32_t ce_seen;           /* the peer's CE count, as last echoed */
    uint32_t win_acked;         /* this observation window: segments */
    uint32_t win_marked;        /* ... and the marks echoed for them */
    uint32_t win_end;           /* PSN: the window ends when una passes */
    uint32_t cut_end;           /* PSN: no cut until una passes it */
} SnicDctcpWindow;

static inline void snic_dctcp_init(const SnicQp *qp, SnicDctcpWindow *w,
                                   uint32_t max_segments)
{
    w->cwnd = DCTCP_IW * DCTCP_SEG;
    w->ssthresh = max_segments * DCTCP_SEG;
    /* 1: the first marked window halves, as standard ECN would */
    w->alpha = DCTCP_ALPHA_ONE;
    w->win_end = w->cut_end = snic_transport_wnd_start(qp);
}

/* The window in whole segments */
static inline uint32_t snic_dctcp_segments(const SnicDctcpWindow *w)
{
    return w->cwnd / DCTCP_SEG;
}

/* The one window reduction a round trip may have (marks or loss) */
static inline void snic_dctcp_cut(const SnicQp *qp, SnicDctcpWindow *w,
                                  uint32_t cwnd)
{
    if (snic_psn_cmp(snic_transport_wnd_start(qp), w->cut_end) >= 0) {
        w->cwnd = w->ssthresh = MAX(cwnd, DCTCP_MIN_CWND);
        w->cut_end = snic_transport_snd_nxt(qp);
    }
}

/* The marks an ACK brings that earlier ones did not (older: reordered) */
static inline uint32_t snic_dctcp_marks(SnicDctcpWindow *w,
                                        const SnicFeedback *fb)
{
    uint32_t marks = 0;

    if (fb->ece && (int32_t)(fb->ce_count - w->ce_seen) > 0) {
        marks = fb->ce_count - w->ce_seen;
        w->ce_seen = fb->ce_count;
    }
    return marks;
}

/* RFC 8257 3.3 steps 4-9: at a window's end, alpha from its fraction */
static inline void snic_dctcp_observe(const SnicQp *qp, SnicDctcpWindow *w)
{
    uint32_t f;

    if (snic_psn_cmp(snic_transport_wnd_start(qp), w->win_end) < 0) {
        return;
    }
    if (w->win_acked) {
        /* marks may exceed what they acknowledge (resent segments) */
        f = (uint64_t)MIN(w->win_marked, w->win_acked) * DCTCP_ALPHA_ONE /
            w->win_acked;
        w->alpha = w->alpha - (w->alpha >> DCTCP_G_SHIFT) +
                   (f >> DCTCP_G_SHIFT);
    }
    w->win_acked = w->win_marked = 0;
    w->win_end = snic_transport_snd_nxt(qp);
}

/* New marks: cut by alpha / 2, once a round trip */
static inline void snic_dctcp_marked(const SnicQp *qp, SnicDctcpWindow *w)
{
    snic_dctcp_cut(qp, w, w->cwnd -
                   (uint32_t)(((uint64_t)w->cwnd * w->alpha) >> 17));
}

/* An ACK without marks: slow start, else congestion avoidance */
static inline void snic_dctcp_grow(SnicDctcpWindow *w, uint32_t acked,
                                   uint32_t max_segments)
{
    if (w->cwnd < w->ssthresh) {
        w->cwnd += acked * DCTCP_SEG;
    } else {
        w->cwnd += (uint64_t)acked * DCTCP_SEG * DCTCP_SEG / w->cwnd;
    }
    w->cwnd = MIN(w->cwnd, max_segments * DCTCP_SEG);
}

/*
 * A cumulative ACK: what it acknowledged and the marks it brought count
 * toward alpha; marks cut, else new data grows (grow: false in loss
 * recovery, which holds the window as RFC 6675 does)
 */
static inline void snic_dctcp_ack(const SnicQp *qp, SnicDctcpWindow *w,
                                  const SnicFeedback *fb, uint32_t marks,
                                  bool grow, uint32_t max_segments)
{
    w->win_marked += marks;
    w->win_acked += fb->newly_acked;
    snic_dctcp_observe(qp, w);
    if (marks) {
        snic_dctcp_marked(qp, w);
    } else if (fb->progress && grow) {
        snic_dctcp_grow(w, fb->newly_acked, max_segments);
    }
}

/* RFC 5681 (4): a retransmission timeout with 'flight' segments out */
static inline void snic_dctcp_timeout(const SnicQp *qp, SnicDctcpWindow *w,
                                      uint32_t flight)
{
    w->ssthresh = MAX(flight * DCTCP_SEG / 2, DCTCP_MIN_CWND);
    w->cwnd = DCTCP_SEG;
    w->cut_end = snic_transport_snd_nxt(qp);
}

#endif /* SNIC_CORE_DCTCP_WINDOW_H */
