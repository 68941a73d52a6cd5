/*
 * snic core: the Ethernet function (TX/RX descriptor rings, MAC filter,
 * counters, interrupt moderation). Formats in include/snic/snic_eth.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"

static uint16_t rd16be(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * True for IPv4/IPv6 UDP datagrams to the RoCEv2 port: those belong to the
 * RDMA engine, not to the Ethernet RX ring. Non-first IPv4 fragments carry
 * no UDP header and stay on the Ethernet path.
 */
bool snic_frame_is_rocev2(const uint8_t *f, size_t len)
{
    size_t off = SNIC_ETH_HLEN;
    uint16_t proto;
    const uint8_t *l4;

    if (len < SNIC_ETH_HLEN) {
        return false;
    }
    proto = rd16be(f + 12);
    if (proto == SNIC_ETH_P_8021Q) {
        if (len < SNIC_ETH_HLEN + 4) {
            return false;
        }
        proto = rd16be(f + 16);
        off += 4;
    }
    if (proto == SNIC_ETH_P_IPV4) {
        const uint8_t *ip = f + off;
        size_t ihl;

        if (len < off + 20 || (ip[0] >> 4) != 4) {
            return false;
        }
        ihl = (size_t)(ip[0] & 0xf) * 4;
        if (ihl < 20 || ip[9] != SNIC_IPPROTO_UDP ||
            (rd16be(ip + 6) & 0x1fff)) {
            return false;
        }
        l4 = ip + ihl;
    } else if (proto == SNIC_ETH_P_IPV6) {
        const uint8_t *ip = f + off;

        if (len < off + 40 || (ip[0] >> 4) != 6 || ip[6] != SNIC_IPPROTO_UDP) {
            return false;
        }
        l4 = ip + 40;
    } else {
        return false;
    }
    if ((size_t)(l4 - f) + 8 > len) {
        return false;
    }
    return rd16be(l4 + 2) == SNIC_ROCEV2_UDP_PORT;
}

SnicEthQueue *snic_eth_queue(SnicCore *c, uint8_t type, uint32_t qid)
{
    if (type == SNIC_ETH_QUEUE_TX && qid < SNIC_ETH_MAX_TXQS) {
        return &c->txq[qid];
    }
    if (type == SNIC_ETH_QUEUE_RX && qid < SNIC_ETH_MAX_RXQS) {
        return &c->rxq[qid];
    }
    return NULL;
}

static uint64_t desc_addr(const SnicEthQueue *q, uint32_t index)
{
    return q->ring +
        (uint64_t)(index & ((1u << q->log2_depth) - 1)) * SNIC_ETH_DESC_SIZE;
}

uint16_t snic_eth_create_queue(SnicCore *c,
                               const struct snic_admin_create_eth_queue *p,
                               uint64_t *qid)
{
    uint64_t ring = GUINT64_FROM_LE(p->ring_addr);
    uint16_t vector = GUINT16_FROM_LE(p->vector);
    SnicEthQueue *q = NULL;
    struct snic_eth_desc probe;
    uint32_t i, max;
    uint64_t bytes;

    if (p->type != SNIC_ETH_QUEUE_TX && p->type != SNIC_ETH_QUEUE_RX) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (p->log2_depth < SNIC_ETH_MIN_LOG2_DEPTH ||
        p->log2_depth > SNIC_ETH_MAX_LOG2_DEPTH ||
        vector >= c->cfg.num_vectors) {
        SNIC_GUEST_ERROR(c, GE_ETH_QUEUE_PARAM, p->log2_depth, vector);
        return SNIC_ADMIN_BAD_PARAM;
    }
    bytes = (uint64_t)SNIC_ETH_DESC_SIZE << p->log2_depth;
    if (ring % SNIC_ETH_DESC_SIZE || ring + bytes < ring) {
        SNIC_GUEST_ERROR(c, GE_ETH_QUEUE_RING, ring, bytes);
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    max = p->type == SNIC_ETH_QUEUE_TX ? SNIC_ETH_MAX_TXQS : SNIC_ETH_MAX_RXQS;
    for (i = 0; i < max; i++) {
        if (!snic_eth_queue(c, p->type, i)->created) {
            q = snic_eth_queue(c, p->type, i);
            break;
        }
    }
    if (!q) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    /* Catch a ring outside guest memory now, not at the first doorbell. */
    if (snic_dma_read(c, ring, &probe, sizeof(probe)) ||
        snic_dma_read(c, ring + bytes - sizeof(probe), &probe,
                      sizeof(probe))) {
        SNIC_GUEST_ERROR(c, GE_ETH_QUEUE_RING, ring, bytes);
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    memset(q, 0, sizeof(*q));
    q->created = true;
    q->log2_depth = p->log2_depth;
    q->vector = vector;
    q->irq_delay_us = GUINT16_FROM_LE(p->irq_delay_us);
    q->ring = ring;
    *qid = i;
    return SNIC_ADMIN_OK;
}

static void snic_eth_signal(SnicCore *c, SnicEthQueue *q)
{
    if (!q->irq_delay_us) {
        snic_raise_irq(c, q->vector);
        return;
    }
    if (!q->irq_pending) {
        q->irq_pending = true;
        q->irq_deadline = c->ops->now_ns(c->opaque) +
                          (uint64_t)q->irq_delay_us * 1000;
        snic_timer_hint(c, q->irq_deadline);
    }
}

static SnicEthQueue *
snic_eth_queue_ref(SnicCore *c, const struct snic_admin_eth_queue_ref *p)
{
    return snic_eth_queue(c, p->type, GUINT32_FROM_LE(p->qid));
}

uint16_t snic_eth_destroy_queue(SnicCore *c,
                                const struct snic_admin_eth_queue_ref *p)
{
    SnicEthQueue *q = snic_eth_queue_ref(c, p);

    if (!q) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (!q->created || q->started) {
        return SNIC_ADMIN_BAD_STATE;    /* stop it first */
    }
    memset(q, 0, sizeof(*q));
    return SNIC_ADMIN_OK;
}

uint16_t snic_eth_start_queue(SnicCore *c,
                              const struct snic_admin_eth_queue_ref *p)
{
    SnicEthQueue *q = snic_eth_queue_ref(c, p);

    if (!q) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (!q->created || q->started) {
        return SNIC_ADMIN_BAD_STATE;
    }
    q->started = true;
    c->ops->kick(c->opaque);    /* frames to send, or waiting for buffers */
    return SNIC_ADMIN_OK;
}

uint16_t snic_eth_stop_queue(SnicCore *c,
                             const struct snic_admin_eth_queue_ref *p)
{
    SnicEthQueue *q = snic_eth_queue_ref(c, p);

    if (!q) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (!q->started) {
        return SNIC_ADMIN_BAD_STATE;
    }
    q->started = false;
    if (p->type == SNIC_ETH_QUEUE_RX) {
        /* frames waiting for this ring are the host's no more */
        while (c->rx_fifo_head != c->rx_fifo_tail) {
            snic_eth_rx_drop(c, &c->stats.rx_dropped,
                             c->rx_fifo_len[c->rx_fifo_head++ %
                                            SNIC_ETH_RX_FIFO],
                             SNIC_DROP_NOT_READY);
        }
    }
    if (q->irq_pending) {
        q->irq_pending = false;     /* deliver what completed */
        snic_raise_irq(c, q->vector);
    }
    return SNIC_ADMIN_OK;
}

void snic_eth_doorbell(SnicCore *c, uint8_t type, uint32_t qid, uint32_t index)
{
    bool tx = type == SNIC_DB_ETH_TX;
    SnicEthQueue *q = snic_eth_queue(c, tx ? SNIC_ETH_QUEUE_TX :
                                     SNIC_ETH_QUEUE_RX, qid);

    if (!q || !q->created) {
        SNIC_GUEST_ERROR(c, GE_DB_QUEUE, type, qid);
        goto invalid;
    }
    /* forward from the last tail, at most a ring ahead of the head */
    if ((uint32_t)(index - q->tail) >
        (uint32_t)(q->head + (1u << q->log2_depth) - q->tail)) {
        SNIC_GUEST_ERROR(c, GE_DB_INDEX, type, qid, index,
                         q->head + (1u << q->log2_depth));
        goto invalid;
    }
    q->tail = index;
    snic_stat_inc(&c->stats.doorbells);
    if (q->started) {
        c->ops->kick(c->opaque);
    }
    return;

invalid:
    snic_stat_inc(&c->stats.doorbells_invalid);
}

/* Write back a descriptor's flags (and first its length, for RX). */
static void snic_eth_writeback(SnicCore *c, SnicEthQueue *q, uint32_t index,
                               const struct snic_eth_desc *d, bool with_len)
{
    uint64_t addr = desc_addr(q, index);

    if (with_len) {
        snic_dma_write(c, addr + offsetof(struct snic_eth_desc, len),
                       &d->len, sizeof(d->len));
    }
    snic_dma_write(c, addr + offsetof(struct snic_eth_desc, flags),
                   &d->flags, sizeof(d->flags));
}

/* Complete descriptors [head, head + n) with DONE (+ ERR) and consume them. */
static void snic_eth_tx_complete(SnicCore *c, SnicEthQueue *q,
                                 struct snic_eth_desc *d, uint32_t n, bool err)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint16_t f = GUINT16_FROM_LE(d[i].flags) & SNIC_ETH_DESC_EOP;

        f |= SNIC_ETH_DESC_DONE | (err ? SNIC_ETH_DESC_ERR : 0);
        d[i].flags = GUINT16_TO_LE(f);
        snic_eth_writeback(c, q, q->head + i, &d[i], false);
    }
    q->head += n;
}

/*
 * Send (or drop) the next frame of a TX queue. Returns false if there is no
 * complete frame posted.
 */
static bool snic_eth_tx_one(SnicCore *c, SnicEthQueue *q, uint32_t qid)
{
    struct snic_eth_desc d[SNIC_ETH_MAX_TX_DESCS];
    uint32_t avail = q->tail - q->head;
    uint32_t gather = MIN(SNIC_ETH_MAX_TX_DESCS, 1u << q->log2_depth);
    size_t max_frame = snic_max_frame(c);
    /* a bad frame: the guest error that says why, and its third argument */
    SnicTracePoint why = SNIC_TRACE__MAX;
    uint64_t why_arg = 0;
    bool eop = false;
    uint32_t n = 0, i;
    size_t len = 0;

    while (n < avail && n < gather && !eop) {
        if (snic_dma_read(c, desc_addr(q, q->head + n), &d[n], sizeof(d[n]))) {
            /* Consume the bad slot with the frame: never spin on it. */
            memset(&d[n++], 0, sizeof(d[0]));
            why = SNIC_TRACE_GE_ETH_TX_RING;
            break;
        }
        eop = GUINT16_FROM_LE(d[n].flags) & SNIC_ETH_DESC_EOP;
        n++;
    }
    if (q->tx_discard) {
        /* the tail of a frame already dropped: consume through its EOP */
        q->tx_discard = !eop;
        snic_eth_tx_complete(c, q, d, n, true);
        return true;
    }
    if (!eop && why == SNIC_TRACE__MAX) {
        if (n < gather) {
            return false;   /* the rest of the frame is not posted yet */
        }
        /* A frame the device can never gather (or the ring can never hold). */
        why = SNIC_TRACE_GE_ETH_TX_GATHER;
        q->tx_discard = true;
    }
    for (i = 0; i < n && why == SNIC_TRACE__MAX; i++) {
        size_t l = GUINT16_FROM_LE(d[i].len);

        if (len + l > max_frame) {
            why = SNIC_TRACE_GE_ETH_TX_LONG;
            why_arg = len + l;
        } else if (snic_dma_read(c, GUINT64_FROM_LE(d[i].addr),
                                 c->frame + len, l)) {
            why = SNIC_TRACE_GE_ETH_TX_BUFFER;
            why_arg = GUINT64_FROM_LE(d[i].addr);
        }
        len += l;
    }
    if (why == SNIC_TRACE__MAX && len < SNIC_ETH_HLEN) {
        why = SNIC_TRACE_GE_ETH_TX_SHORT;
        why_arg = len;
    }
    if (why != SNIC_TRACE__MAX) {
        snic_guest_error(c, why, (const uint64_t[4]) { qid, q->head, why_arg });
        snic_stat_inc(&c->stats.tx_dropped);
        SNIC_EVENT(c, ETH_DROP, 0, len, SNIC_DROP_BAD_TX);
    } else if (!c->link_up) {
        snic_stat_inc(&c->stats.tx_dropped);    /* like a cable pulled */
        SNIC_EVENT(c, ETH_DROP, 0, len, SNIC_DROP_LINK_DOWN);
    } else {
        SNIC_EVENT(c, ETH_TX, qid, len);
        snic_link_tx(c, c->frame, len, len);   /* from the host's buffers */
        snic_stat_inc(&c->stats.tx_frames);
        snic_stat_add(&c->stats.tx_bytes, len);
    }
    snic_eth_tx_complete(c, q, d, n, why != SNIC_TRACE__MAX);
    return true;
}

void snic_eth_rx_drop(SnicCore *c, __le64 *counter, size_t len,
                      SnicDropReason reason)
{
    snic_stat_inc(counter);
    SNIC_EVENT(c, ETH_DROP, 1, len, reason);
}

/*
 * Place a frame in the next RX buffer, which the caller saw posted. The
 * buffer is used up unless the frame is too long for it.
 */
static void snic_eth_rx_place(SnicCore *c, const uint8_t *f, size_t len)
{
    SnicEthQueue *q = &c->rxq[0];
    struct snic_eth_desc d;
    uint64_t addr;
    uint16_t flags;

    addr = desc_addr(q, q->head);
    if (snic_dma_read(c, addr, &d, sizeof(d))) {
        SNIC_GUEST_ERROR(c, GE_ETH_RX_RING, q->head, addr);
        q->head++;
        snic_eth_rx_drop(c, &c->stats.rx_dropped, len, SNIC_DROP_BAD_RX_RING);
        return;
    }
    if (GUINT16_FROM_LE(d.len) < len) {
        /* The buffer stays posted for a frame that fits. */
        snic_eth_rx_drop(c, &c->stats.rx_too_long, len,
                         SNIC_DROP_BUFFER_SMALL);
        return;
    }
    flags = SNIC_ETH_DESC_DONE;
    if (snic_dma_write(c, GUINT64_FROM_LE(d.addr), f, len)) {
        SNIC_GUEST_ERROR(c, GE_ETH_RX_BUFFER, q->head,
                         GUINT64_FROM_LE(d.addr));
        flags |= SNIC_ETH_DESC_ERR;
        d.len = 0;
        snic_stat_inc(&c->stats.rx_dropped);
    } else {
        d.len = GUINT16_TO_LE(len);
        snic_stat_inc(&c->stats.rx_frames);
        snic_stat_add(&c->stats.rx_bytes, len);
        SNIC_EVENT(c, ETH_RX, 0, len);
    }
    d.flags = GUINT16_TO_LE(flags);
    snic_eth_writeback(c, q, q->head, &d, true);
    q->head++;
    snic_eth_signal(c, q);
}

/*
 * A frame for the host: into the next RX buffer, or, with none posted (or
 * frames already waiting, which go first), into the receive FIFO.
 */
void snic_eth_receive(SnicCore *c, const uint8_t *f, size_t len)
{
    SnicEthQueue *q = &c->rxq[0];
    uint32_t slot;

    if (!q->started) {
        snic_eth_rx_drop(c, &c->stats.rx_dropped, len, SNIC_DROP_NOT_READY);
    } else if (q->head != q->tail && c->rx_fifo_head == c->rx_fifo_tail) {
        snic_eth_rx_place(c, f, len);
    } else if (c->rx_fifo_tail - c->rx_fifo_head < SNIC_ETH_RX_FIFO) {
        snic_stat_inc(&c->stats.rx_no_buffer);
        slot = c->rx_fifo_tail++ % SNIC_ETH_RX_FIFO;
        memcpy(c->rx_fifo[slot], f, len);
        c->rx_fifo_len[slot] = len;
    } else {
        snic_eth_rx_drop(c, &c->stats.rx_dropped, len, SNIC_DROP_NO_BUFFER);
    }
}

/* Frames waiting in the receive FIFO into the buffers posted since. */
static bool snic_eth_rx_fifo_run(SnicCore *c, unsigned budget)
{
    SnicEthQueue *q = &c->rxq[0];
    unsigned done = 0;

    while (done < budget && q->started && q->head != q->tail &&
           c->rx_fifo_head != c->rx_fifo_tail && snic_ready(c)) {
        uint32_t slot = c->rx_fifo_head++ % SNIC_ETH_RX_FIFO;

        snic_eth_rx_place(c, c->rx_fifo[slot], c->rx_fifo_len[slot]);
        done++;
    }
    return done == budget;
}

bool snic_eth_run(SnicCore *c, unsigned budget)
{
    bool more = snic_eth_rx_fifo_run(c, budget);
    uint32_t qid;

    for (qid = 0; qid < SNIC_ETH_MAX_TXQS; qid++) {
        SnicEthQueue *q = &c->txq[qid];
        unsigned done = 0;

        if (!q->started) {
            continue;
        }
        while (done < budget && q->head != q->tail && snic_ready(c) &&
               snic_eth_tx_one(c, q, qid)) {
            done++;
        }
        if (done) {
            snic_eth_signal(c, q);
        }
        more |= done == budget && q->head != q->tail;
    }
    return more;
}

/*
 * Raise the moderated interrupts due at 'now' and return the next deadline
 * (UINT64_MAX: none). Deadlines lie after the time they were armed, so
 * now = 0 only computes the next one.
 */
uint64_t snic_eth_irq_timer(SnicCore *c, uint64_t now)
{
    SnicEthQueue *qs[] = { c->txq, c->rxq };
    unsigned counts[] = { SNIC_ETH_MAX_TXQS, SNIC_ETH_MAX_RXQS };
    uint64_t next = UINT64_MAX;
    unsigned i, j;

    for (i = 0; i < G_N_ELEMENTS(qs); i++) {
        for (j = 0; j < counts[i]; j++) {
            SnicEthQueue *q = &qs[i][j];

            if (!q->irq_pending) {
                continue;
            }
            if (q->irq_deadline <= now) {
                q->irq_pending = false;
                snic_raise_irq(c, q->vector);
            } else {
                next = MIN(next, q->irq_deadline);
            }
        }
    }
    return next;
}
