/*
 * snic core: the schedule queues, their policies and the timer heap
 * (scheduler.h); the engine says what one iteration of a QP does and the
 * transport what its timers are (SnicSchedOps).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/scheduler.h"
#include "engine/wq.h"
#include "objects/qp.h"
#include "port/link.h"

void snic_sched_init(SnicCore *c)
{
    c->sched.heap = g_new(uint32_t, (size_t)c->cfg.max_qp + SNIC_FIRST_QPN);
}

void snic_sched_free(SnicCore *c)
{
    g_free(c->sched.heap);
}

/* The QPCs' scheduling state is cleared with the QPCs (snic_qp_reset). */
void snic_sched_reset(SnicCore *c)
{
    memset(c->sched.queue, 0, sizeof(c->sched.queue));
    memset(&c->sched.fetched, 0, sizeof(c->sched.fetched));
    c->sched.fetch_head = 0;
    c->sched.fetches = 0;
    c->sched.heap_len = 0;
}

static uint32_t qpn_of(SnicCore *c, const SnicQp *qp)
{
    return qp - c->qps;
}

static unsigned qp_class(const SnicQp *qp)
{
    return qp->attr.av.traffic_class >> 5;
}

/*
 * The queue a QP is (or goes) in: the fetched queue, or its policy's:
 * strict priority keeps a queue per class, the others one queue.
 */
static SnicSchedQueue *queue_of(SnicCore *c, const SnicQp *qp)
{
    if (qp->sched.in_fetched) {
        return &c->sched.fetched;
    }
    return &c->sched.queue[c->cfg.sched_policy == SNIC_SCHED_SP ?
                           qp_class(qp) : 0];
}

static void enqueue(SnicCore *c, SnicQp *qp)
{
    SnicSchedQueue *q = queue_of(c, qp);
    uint32_t qpn = qpn_of(c, qp);

    qp->sched.queued = true;
    qp->sched.prev = q->tail;
    qp->sched.next = 0;
    if (q->tail) {
        c->qps[q->tail].sched.next = qpn;
    } else {
        q->head = qpn;
    }
    q->tail = qpn;
}

/* WRR: a QP with iterations left in its turn goes back to the head. */
static void enqueue_head(SnicCore *c, SnicQp *qp)
{
    SnicSchedQueue *q = queue_of(c, qp);
    uint32_t qpn = qpn_of(c, qp);

    qp->sched.queued = true;
    qp->sched.prev = 0;
    qp->sched.next = q->head;
    if (q->head) {
        c->qps[q->head].sched.prev = qpn;
    } else {
        q->tail = qpn;
    }
    q->head = qpn;
}

static void dequeue(SnicCore *c, SnicQp *qp)
{
    SnicSchedQueue *q = queue_of(c, qp);

    if (qp->sched.prev) {
        c->qps[qp->sched.prev].sched.next = qp->sched.next;
    } else {
        q->head = qp->sched.next;
    }
    if (qp->sched.next) {
        c->qps[qp->sched.next].sched.prev = qp->sched.prev;
    } else {
        q->tail = qp->sched.prev;
    }
    qp->sched.queued = false;
    qp->sched.in_fetched = false;
    qp->sched.prev = qp->sched.next = 0;
}

void snic_sched_notify(SnicCore *c, SnicQp *qp)
{
    if (!qp->sched.queued && !qp->sched.fetching) {
        enqueue(c, qp);
    }
    c->ops->kick(c->opaque);
}

/* The queue the policy serves next: the highest class for strict
 * priority, else the one queue; NULL if all are empty. */
static SnicSchedQueue *next_queue(SnicCore *c)
{
    int i;

    for (i = SNIC_SCHED_CLASSES - 1; i >= 0; i--) {
        if (c->sched.queue[i].head) {
            return &c->sched.queue[i];
        }
    }
    return NULL;
}

_Static_assert(SNIC_SCHED_MAX_WQES <= UINT8_MAX, "SnicFetchTag.count");

/* A new tag at the FIFO's tail (one is free) */
static SnicFetchTag *tag_take(SnicCore *c, SnicQp *qp)
{
    SnicFetchTag *t = &c->sched.tags[(c->sched.fetch_head +
                                      c->sched.fetches) %
                                     SNIC_SCHED_MAX_FETCHES];

    c->sched.fetches++;
    t->qpn = qpn_of(c, qp);
    qp->sched.fetching = true;
    return t;
}

/*
 * Timing model: issue the QP's WQE fetch and park it; false if no tag.
 * It reads the WQEs its iteration starts with, as many as are posted up
 * to n (the producer index says how many; the last fetch does not read
 * empty slots), or for a retransmission the oldest one: each WQE's first
 * part (wq.h), reads issued back to back whose round trips overlap.
 */
static bool issue_fetch(SnicCore *c, SnicQp *qp)
{
    uint16_t first = qp->type == SNIC_QPT_RC ? qp->req.sq_head : qp->sq_comp;
    unsigned i, n = MIN((uint16_t)(qp->sq_tail - first), c->cfg.sched_wqes);
    SnicFetchTag *t;

    if (c->sched.fetches >= SNIC_SCHED_MAX_FETCHES) {
        return false;
    }
    if (!n) {
        first = qp->sq_comp;
        n = 1;
    }
    t = tag_take(c, qp);
    t->first = first;
    t->count = n;
    t->rest = false;
    for (i = 0; i < n; i++) {
        t->due = c->ops->dma_read_done(c->opaque, SNIC_SQ_WQE_FIRST);
    }
    snic_timer_hint(c, t->due);
    return true;
}

/*
 * The first parts of a fetch arrived: read the rest of the WQEs that go
 * beyond it, the QP staying parked on a second tag (the first one just
 * retired, so one is free). False if none does.
 */
static bool fetch_rest(SnicCore *c, SnicQp *qp, const SnicFetchTag *done)
{
    uint64_t due = 0;
    unsigned i;

    for (i = 0; i < done->count; i++) {
        /* 0 if unreadable: the iteration reports it */
        uint32_t used = c->sched.ops->wqe_bytes(c, qp, done->first + i);

        if (used > SNIC_SQ_WQE_FIRST) {
            due = c->ops->dma_read_done(c->opaque, used - SNIC_SQ_WQE_FIRST);
        }
    }
    if (!due) {
        return false;
    }
    *tag_take(c, qp) = (SnicFetchTag) {
        .qpn = qpn_of(c, qp), .first = done->first, .count = done->count,
        .rest = true, .due = due,
    };
    snic_timer_hint(c, due);
    return true;
}

/* Retire the fetch tags due at 'now': their QPs' iterations run next. */
static void fetches_arrived(SnicCore *c, uint64_t now)
{
    while (c->sched.fetches &&
           c->sched.tags[c->sched.fetch_head].due <= now) {
        SnicFetchTag t = c->sched.tags[c->sched.fetch_head];
        SnicQp *qp = &c->qps[t.qpn];

        c->sched.fetch_head = (c->sched.fetch_head + 1) %
                              SNIC_SCHED_MAX_FETCHES;
        c->sched.fetches--;
        if (!t.qpn) {
            continue;       /* its QP went away: the data is dropped */
        }
        qp->sched.fetching = false;
        if (!t.rest && fetch_rest(c, qp, &t)) {
            continue;
        }
        qp->sched.fetched = true;
        if (!qp->sched.queued) {
            qp->sched.in_fetched = true;
            enqueue(c, qp);
        }
        c->ops->kick(c->opaque);
    }
}

bool snic_sched_run(SnicCore *c, unsigned budget)
{
    unsigned done = 0;
    bool tags_out = false;

    while (done < budget && snic_ready(c)) {
        /* QPs whose WQEs arrived first: nothing else uses them */
        SnicSchedQueue *q = c->sched.fetched.head ? &c->sched.fetched :
                                                    next_queue(c);
        bool from_fetched = q == &c->sched.fetched;
        SnicQp *qp;
        bool more;

        if (!q) {
            break;
        }
        switch (snic_link_roce_tx(c)) {
        case SNIC_LINK_TX_OK:
            break;
        case SNIC_LINK_TX_PAUSED:
            /*
             * Every RoCE frame the port sends is of the RoCE priority
             * (link.h): PFC holds all queues as they are until the link
             * kicks the engine.
             */
            return false;
        case SNIC_LINK_TX_RUN_DONE:
            return true;
        }
        qp = &c->qps[q->head];
        if (c->ops->dma_read_done && !qp->sched.fetched &&
            c->sched.ops->wants_fetch(c, qp)) {
            if (!issue_fetch(c, qp)) {
                /*
                 * Every tag in flight: nothing to do until a fetch
                 * completes, which kicks the engine (snic_sched_timer)
                 */
                tags_out = true;
                break;
            }
            dequeue(c, qp);
            done++;
            continue;
        }
        qp->sched.fetched = false;
        more = c->sched.ops->iteration(c, qp);
        done++;
        if (!qp->valid || !qp->sched.queued) {
            continue;       /* destroyed, or reset, meanwhile */
        }
        if (more && c->cfg.sched_policy == SNIC_SCHED_WRR) {
            /* its weight: class + 1 iterations per turn */
            if (!qp->sched.turns) {
                qp->sched.turns = qp_class(qp) + 1;
            }
            if (--qp->sched.turns) {
                /* its next iteration comes next (after its fetch) */
                if (from_fetched) {
                    dequeue(c, qp);
                    enqueue_head(c, qp);
                }
                continue;
            }
        }
        dequeue(c, qp);
        if (more) {
            enqueue(c, qp);
        }
    }
    return !tags_out && next_queue(c) != NULL;
}

/* ---- the timer heap: QPNs ordered by their QPC's timer_at ---- */

static uint64_t key(SnicCore *c, uint32_t slot)
{
    return c->qps[c->sched.heap[slot]].sched.timer_at;
}

static void heap_place(SnicCore *c, uint32_t slot, uint32_t qpn)
{
    c->sched.heap[slot] = qpn;
    c->qps[qpn].sched.timer_pos = slot + 1;
}

static void sift_up(SnicCore *c, uint32_t slot)
{
    uint32_t qpn = c->sched.heap[slot];
    uint64_t k = c->qps[qpn].sched.timer_at;

    while (slot && key(c, (slot - 1) / 2) > k) {
        heap_place(c, slot, c->sched.heap[(slot - 1) / 2]);
        slot = (slot - 1) / 2;
    }
    heap_place(c, slot, qpn);
}

static void sift_down(SnicCore *c, uint32_t slot)
{
    uint32_t qpn = c->sched.heap[slot], n = c->sched.heap_len;
    uint64_t k = c->qps[qpn].sched.timer_at;

    for (;;) {
        uint32_t child = 2 * slot + 1;

        if (child >= n) {
            break;
        }
        if (child + 1 < n && key(c, child + 1) < key(c, child)) {
            child++;
        }
        if (key(c, child) >= k) {
            break;
        }
        heap_place(c, slot, c->sched.heap[child]);
        slot = child;
    }
    heap_place(c, slot, qpn);
}

static void heap_remove(SnicCore *c, SnicQp *qp)
{
    uint32_t slot = qp->sched.timer_pos - 1;
    uint32_t last = c->sched.heap[--c->sched.heap_len];

    qp->sched.timer_pos = 0;
    if (slot == c->sched.heap_len) {
        return;
    }
    heap_place(c, slot, last);
    sift_down(c, slot);
    sift_up(c, c->qps[last].sched.timer_pos - 1);
}

void snic_qp_timer_sync(SnicCore *c, SnicQp *qp)
{
    uint64_t t = c->sched.ops->deadline(c, qp);

    if (qp->sched.timer_pos) {
        if (t == qp->sched.timer_at) {
            return;
        }
        heap_remove(c, qp);
    }
    if (t == UINT64_MAX) {
        return;
    }
    qp->sched.timer_at = t;
    c->sched.heap_len++;
    heap_place(c, c->sched.heap_len - 1, qpn_of(c, qp));
    sift_up(c, c->sched.heap_len - 1);
    snic_timer_hint(c, t);
}

void snic_sched_remove(SnicCore *c, SnicQp *qp)
{
    if (qp->sched.queued) {
        dequeue(c, qp);
    }
    if (qp->sched.timer_pos) {
        heap_remove(c, qp);
    }
    if (qp->sched.fetching) {
        /*
         * The read cannot be called back: its tag stays taken until the
         * data arrives, and is dropped then (a QP created meanwhile under
         * this QPN must not take it for its own). Bounded: 64 tags.
         */
        uint32_t i, qpn = qpn_of(c, qp);

        for (i = 0; i < c->sched.fetches; i++) {
            SnicFetchTag *t = &c->sched.tags[(c->sched.fetch_head + i) %
                                             SNIC_SCHED_MAX_FETCHES];

            if (t->qpn == qpn) {
                t->qpn = 0;
            }
        }
    }
    memset(&qp->sched, 0, sizeof(qp->sched));
}

uint64_t snic_sched_timer(SnicCore *c, uint64_t now)
{
    unsigned fired = 0;
    uint64_t next;

    if (now) {
        fetches_arrived(c, now);
    }
    while (c->sched.heap_len && now && key(c, 0) <= now) {
        SnicQp *qp = &c->qps[c->sched.heap[0]];

        if (fired++ == SNIC_SCHED_TIMERS_PER_CALL) {
            return now;         /* the rest in the next call, at once */
        }
        heap_remove(c, qp);
        c->sched.ops->timer(c, qp, now);
        if (qp->valid) {
            snic_qp_timer_sync(c, qp);
        }
    }
    next = c->sched.heap_len ? key(c, 0) : UINT64_MAX;
    if (c->sched.fetches) {
        next = MIN(next, c->sched.tags[c->sched.fetch_head].due);
    }
    return next;
}
