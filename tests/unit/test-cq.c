/*
 * Unit tests of completion and event queues at run time: CQE phase bits,
 * arming (next / solicited / already pending), EQEs and their vector, CQ
 * overrun as an async error, and the consumer/producer doorbells with
 * their ownership rules.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "fake-host.h"
#include "objects/cq.h"
#include "objects/qp.h"

#define PBL         (FAKE_MEM_BASE + 0x3000)
#define EQ_PAGE     (FAKE_MEM_BASE + 0x100000)
#define CQ_PAGE     (FAKE_MEM_BASE + 0x101000)
#define WQ_PAGE     (FAKE_MEM_BASE + 0x102000)
#define NEW_CQ_PAGE (FAKE_MEM_BASE + 0x104000)
#define EQ_VECTOR   2

typedef struct Env {
    FakeHost *h;
    uint64_t pdn, eqn, cqn, qpn;
} Env;

static uint64_t admin_ok(FakeHost *h, struct snic_admin_cmd *cmd)
{
    uint64_t r;

    g_assert_cmpuint(fake_admin(h, cmd, &r), ==, SNIC_ADMIN_OK);
    return r;
}

/* EQ (depth 4), CQ (depth 4) of context 'ctx', one RC QP using it. */
static Env env_new(uint16_t ctx)
{
    Env e = { .h = fake_host_new() };
    struct snic_admin_cmd cmd;
    __le64 pages[3] = {
        GUINT64_TO_LE(EQ_PAGE), GUINT64_TO_LE(CQ_PAGE),
        GUINT64_TO_LE(WQ_PAGE),
    };

    fake_enable(e.h, 4, 4);
    fake_write(e.h, PBL, pages, sizeof(pages));
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
    cmd.alloc_pd.ctx = GUINT16_TO_LE(ctx);
    e.pdn = admin_ok(e.h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
    cmd.create_eq.pbl_addr = GUINT64_TO_LE(PBL);
    cmd.create_eq.npages = GUINT32_TO_LE(1);
    cmd.create_eq.log2_depth = 2;
    cmd.create_eq.vector = GUINT16_TO_LE(EQ_VECTOR);
    e.eqn = admin_ok(e.h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(PBL + 8);
    cmd.create_cq.npages = GUINT32_TO_LE(1);
    cmd.create_cq.log2_depth = 2;
    cmd.create_cq.ctx = GUINT16_TO_LE(ctx);
    cmd.create_cq.eqn = GUINT32_TO_LE(e.eqn);
    e.cqn = admin_ok(e.h, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
    cmd.create_qp.sq_pbl_addr = GUINT64_TO_LE(PBL + 16);
    cmd.create_qp.rq_pbl_addr = GUINT64_TO_LE(PBL + 16);
    cmd.create_qp.sq_npages = GUINT32_TO_LE(1);
    cmd.create_qp.rq_npages = GUINT32_TO_LE(1);
    cmd.create_qp.pdn = GUINT32_TO_LE(e.pdn);
    cmd.create_qp.send_cqn = GUINT32_TO_LE(e.cqn);
    cmd.create_qp.recv_cqn = GUINT32_TO_LE(e.cqn);
    cmd.create_qp.type = SNIC_QPT_RC;
    cmd.create_qp.sq_log2_depth = 3;
    cmd.create_qp.rq_log2_depth = 3;
    cmd.create_qp.ctx = GUINT16_TO_LE(ctx);
    e.qpn = admin_ok(e.h, &cmd);
    return e;
}

static int post(Env *e, uint64_t wr_id, uint8_t status, bool solicited)
{
    struct snic_cqe cqe = {
        .wr_id = GUINT64_TO_LE(wr_id),
        .byte_len = GUINT32_TO_LE(100),
        .qpn = GUINT32_TO_LE(e->qpn),
        .status = status,
        .opcode = SNIC_WC_RECV,
    };

    return snic_cq_post(e->h->core, e->cqn, &cqe, solicited);
}

static struct snic_cqe cqe_at(Env *e, unsigned slot)
{
    struct snic_cqe c;

    fake_read(e->h, CQ_PAGE + slot * SNIC_CQE_SIZE, &c, sizeof(c));
    return c;
}

static void test_cqe_phase_and_overrun(void)
{
    Env e = env_new(0);
    unsigned i;

    for (i = 0; i < 4; i++) {
        g_assert_cmpint(post(&e, 100 + i, SNIC_WC_SUCCESS, false), ==, 0);
        g_assert_cmpuint(GUINT64_FROM_LE(cqe_at(&e, i).wr_id), ==, 100 + i);
        g_assert_cmpuint(cqe_at(&e, i).flags, ==, SNIC_CQE_PHASE);
    }
    /* full: the next completion is an overrun -> async error, CQ stops */
    g_assert_cmpint(post(&e, 104, SNIC_WC_SUCCESS, false), ==, -1);
    g_assert_cmpuint(GUINT64_FROM_LE(cqe_at(&e, 0).wr_id), ==, 100);
    g_assert_cmpuint(fake_guest_errors_matching(e.h, "overrun, 4 CQEs not "
                                                "consumed"), ==, 1);
    {
        struct snic_aeqe a;

        fake_read(e.h, FAKE_AEQ, &a, sizeof(a));
        g_assert_cmpuint(GUINT32_FROM_LE(a.event), ==, SNIC_EVENT_CQ_ERROR);
        g_assert_cmpuint(GUINT64_FROM_LE(a.data), ==, e.cqn);
    }
    fake_doorbell(e.h, 0, SNIC_DB_CQ, e.cqn, 4);
    g_assert_cmpint(post(&e, 105, SNIC_WC_SUCCESS, false), ==, -1);
    fake_host_free(e.h);
}

static void test_phase_second_lap(void)
{
    Env e = env_new(0);
    unsigned i;

    for (i = 0; i < 6; i++) {
        g_assert_cmpint(post(&e, i, SNIC_WC_SUCCESS, false), ==, 0);
        fake_doorbell(e.h, 0, SNIC_DB_CQ, e.cqn, i + 1);
    }
    g_assert_cmpuint(cqe_at(&e, 1).flags, ==, 0);       /* index 5 */
    g_assert_cmpuint(GUINT64_FROM_LE(cqe_at(&e, 1).wr_id), ==, 5);
    g_assert_cmpuint(cqe_at(&e, 2).flags, ==, SNIC_CQE_PHASE);  /* old */
    fake_host_free(e.h);
}

static unsigned eqes(Env *e)
{
    unsigned n = 0, i;

    for (i = 0; i < 4; i++) {
        struct snic_eqe q;

        fake_read(e->h, EQ_PAGE + i * SNIC_EQE_SIZE, &q, sizeof(q));
        n += q.flags == SNIC_CQE_PHASE;
    }
    return n;
}

static void test_arming(void)
{
    Env e = env_new(0);
    struct snic_eqe q;

    /* not armed: no event */
    post(&e, 1, SNIC_WC_SUCCESS, false);
    g_assert_cmpuint(eqes(&e), ==, 0);
    /* armed for any: one event, then disarmed */
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, e.cqn, 1);
    post(&e, 2, SNIC_WC_SUCCESS, false);
    post(&e, 3, SNIC_WC_SUCCESS, false);
    g_assert_cmpuint(eqes(&e), ==, 1);
    g_assert_cmpuint(e.h->irqs[EQ_VECTOR], ==, 1);
    fake_read(e.h, EQ_PAGE, &q, sizeof(q));
    g_assert_cmpuint(GUINT32_FROM_LE(q.cqn), ==, e.cqn);
    g_assert_cmpuint(GUINT32_FROM_LE(q.type), ==, SNIC_EQE_COMPLETION);
    /* armed for solicited: a plain completion passes, a solicited fires */
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM_SOL, e.cqn, 3);
    post(&e, 4, SNIC_WC_SUCCESS, false);
    g_assert_cmpuint(eqes(&e), ==, 1);
    fake_doorbell(e.h, 0, SNIC_DB_CQ, e.cqn, 4);
    post(&e, 5, SNIC_WC_SUCCESS, true);
    g_assert_cmpuint(eqes(&e), ==, 2);
    /* ... and so does an error completion */
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM_SOL, e.cqn, 5);
    post(&e, 6, SNIC_WC_REM_ACCESS_ERR, false);
    g_assert_cmpuint(eqes(&e), ==, 3);
    /* arming while completions wait raises the event at once */
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, e.cqn, 5);
    g_assert_cmpuint(eqes(&e), ==, 4);
    g_assert_cmpuint(e.h->irqs[EQ_VECTOR], ==, 4);
    fake_host_free(e.h);
}

static void test_eq_overflow(void)
{
    Env e = env_new(0);
    unsigned i;

    for (i = 0; i < 5; i++) {
        fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, e.cqn, i);
        post(&e, i, SNIC_WC_SUCCESS, false);
    }
    g_assert_cmpuint(eqes(&e), ==, 4);
    g_assert_cmpuint(FAKE_STAT(e.h, async_events_lost), ==, 1);
    fake_doorbell(e.h, 0, SNIC_DB_EQ, e.eqn, 4);
    fake_doorbell(e.h, 0, SNIC_DB_EQ, e.eqn, 5);    /* past the tail */
    g_assert_cmpuint(FAKE_STAT(e.h, doorbells_invalid), ==, 1);
    fake_host_free(e.h);
}

static void test_doorbell_ownership(void)
{
    Env e = env_new(3);
    uint64_t invalid;

    /* the CQ and QP of context 3 only take doorbells from page 3 */
    fake_doorbell(e.h, 0, SNIC_DB_SQ, e.qpn, 1);
    fake_doorbell(e.h, 2, SNIC_DB_RQ, e.qpn, 1);
    fake_doorbell(e.h, 4, SNIC_DB_CQ_ARM, e.cqn, 0);
    fake_doorbell(e.h, 3, SNIC_DB_EQ, e.eqn, 0);    /* EQs: kernel only */
    invalid = FAKE_STAT(e.h, doorbells_invalid);
    g_assert_cmpuint(invalid, ==, 4);
    g_assert_cmpuint(fake_guest_errors_matching(e.h, "not owned"), ==, 3);
    g_assert_cmpuint(e.h->core->qps[e.qpn].sq_tail, ==, 0);
    /* the owner's page works; producers stay within the ring */
    fake_doorbell(e.h, 3, SNIC_DB_SQ, e.qpn, 8);
    fake_doorbell(e.h, 3, SNIC_DB_RQ, e.qpn, 5);
    g_assert_cmpuint(e.h->core->qps[e.qpn].sq_tail, ==, 8);
    g_assert_cmpuint(e.h->core->qps[e.qpn].rq_tail, ==, 5);
    fake_doorbell(e.h, 3, SNIC_DB_SQ, e.qpn, 9);    /* a ring and one */
    fake_doorbell(e.h, 3, SNIC_DB_RQ, e.qpn, 4);    /* backwards */
    fake_doorbell(e.h, 3, SNIC_DB_CQ, e.cqn, 1);    /* nothing produced */
    g_assert_cmpuint(FAKE_STAT(e.h, doorbells_invalid), ==, invalid + 3);
    g_assert_cmpuint(e.h->core->qps[e.qpn].sq_tail, ==, 8);
    g_assert_cmpuint(e.h->core->qps[e.qpn].rq_tail, ==, 5);
    fake_host_free(e.h);
}

/*
 * RESIZE_CQ: the device reports how far the old ring was written and goes
 * on at index 0 of the new one; arming survives.
 */
static void test_resize(void)
{
    Env e = env_new(0);
    struct snic_admin_cmd cmd;
    __le64 page = GUINT64_TO_LE(NEW_CQ_PAGE);
    uint64_t old_tail;
    struct snic_cqe c;
    unsigned i;

    post(&e, 1, SNIC_WC_SUCCESS, false);
    post(&e, 2, SNIC_WC_SUCCESS, false);
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, e.cqn, 1);
    fake_write(e.h, PBL + 24, &page, 8);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_RESIZE_CQ, sizeof(cmd.resize_cq));
    cmd.resize_cq.pbl_addr = GUINT64_TO_LE(PBL + 24);
    cmd.resize_cq.npages = GUINT32_TO_LE(1);
    cmd.resize_cq.cqn = GUINT32_TO_LE(e.cqn);
    cmd.resize_cq.log2_depth = 3;
    /* refused: depth, a CQ that does not exist */
    cmd.resize_cq.log2_depth = SNIC_MAX_CQE_LOG2 + 1;
    g_assert_cmpuint(fake_admin(e.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    cmd.resize_cq.log2_depth = 3;
    cmd.resize_cq.cqn = GUINT32_TO_LE(e.cqn + 1);
    g_assert_cmpuint(fake_admin(e.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    cmd.resize_cq.cqn = GUINT32_TO_LE(e.cqn);
    g_assert_cmpuint(fake_admin(e.h, &cmd, &old_tail), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(old_tail, ==, 2);
    /* 8 more fit the new ring (4 did before); the first one fires */
    for (i = 0; i < 8; i++) {
        g_assert_cmpint(post(&e, 10 + i, SNIC_WC_SUCCESS, false), ==, 0);
    }
    g_assert_cmpint(post(&e, 18, SNIC_WC_SUCCESS, false), ==, -1);
    g_assert_cmpuint(eqes(&e), ==, 1);
    fake_read(e.h, NEW_CQ_PAGE, &c, sizeof(c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 10);
    g_assert_cmpuint(c.flags, ==, SNIC_CQE_PHASE);
    g_assert_cmpuint(GUINT64_FROM_LE(cqe_at(&e, 1).wr_id), ==, 2);
    fake_host_free(e.h);
}

static void modify_cq(Env *e, uint16_t count, uint16_t period_us)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_CQ, sizeof(cmd.modify_cq));
    cmd.modify_cq.cqn = GUINT32_TO_LE(e->cqn);
    cmd.modify_cq.count = GUINT16_TO_LE(count);
    cmd.modify_cq.period_us = GUINT16_TO_LE(period_us);
    admin_ok(e->h, &cmd);
}

/* Moderation: the event waits for 'count' CQEs or 'period' after one. */
static void test_moderation(void)
{
    Env e = env_new(0);

    modify_cq(&e, 3, 0);
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, e.cqn, 0);
    post(&e, 1, SNIC_WC_SUCCESS, false);
    post(&e, 2, SNIC_WC_SUCCESS, false);
    g_assert_cmpuint(eqes(&e), ==, 0);
    post(&e, 3, SNIC_WC_SUCCESS, false);
    g_assert_cmpuint(eqes(&e), ==, 1);
    fake_doorbell(e.h, 0, SNIC_DB_CQ, e.cqn, 3);

    /* count 100, period 50 us: the period ends the wait */
    modify_cq(&e, 100, 50);
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, e.cqn, 3);
    post(&e, 4, SNIC_WC_SUCCESS, false);
    fake_advance(e.h, 49000);
    g_assert_cmpuint(eqes(&e), ==, 1);
    fake_advance(e.h, 2000);
    g_assert_cmpuint(eqes(&e), ==, 2);
    fake_doorbell(e.h, 0, SNIC_DB_CQ, e.cqn, 4);
    /* not armed: the period does not start */
    post(&e, 5, SNIC_WC_SUCCESS, false);
    fake_advance(e.h, 100000);
    g_assert_cmpuint(eqes(&e), ==, 2);
    /* back to none: at once */
    modify_cq(&e, 0, 0);
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, e.cqn, 5);
    post(&e, 6, SNIC_WC_SUCCESS, false);
    g_assert_cmpuint(eqes(&e), ==, 3);
    fake_host_free(e.h);
}

/* A CQ of 4 CQEs on e's EQ, every one on the page PBL + 8 names: its CQN */
static uint32_t four_cqes_cq(Env *e)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
    cmd.create_cq.pbl_addr = GUINT64_TO_LE(PBL + 8);
    cmd.create_cq.npages = GUINT32_TO_LE(1);
    cmd.create_cq.log2_depth = 2;
    cmd.create_cq.eqn = GUINT32_TO_LE(e->eqn);
    return admin_ok(e->h, &cmd);
}

/*
 * 300 CQs whose moderation periods end at once: one call of the device's
 * timer raises at most SNIC_CQ_EVENTS_PER_CALL of their events and asks
 * to be called again at once for the rest; the timer never walks the CQs
 * that wait for nothing (their deadlines are in a heap).
 */
static void test_moderation_per_call(void)
{
    enum { NCQ = 300 };
    Env e = env_new(0);
    SnicCore *c = e.h->core;
    unsigned i, left = NCQ;
    uint64_t cqn;

    for (i = 0; i < NCQ; i++) {
        cqn = e.cqn = four_cqes_cq(&e);
        modify_cq(&e, 100, 10);
        fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, cqn, 0);
        post(&e, i, SNIC_WC_SUCCESS, false);
    }
    g_assert_cmpuint(c->cq_timers_len, ==, NCQ);
    /* the periods end; the timer is called as the host's would be */
    e.h->port.now += 10000;
    while (left) {
        snic_core_timer(c);
        g_assert_cmpuint(left - c->cq_timers_len, ==,
                         MIN(left, SNIC_CQ_EVENTS_PER_CALL));
        left = c->cq_timers_len;
        /* more due: called again at once; none: no deadline */
        g_assert_cmpuint(c->timer_deadline, ==,
                         left ? e.h->port.now : UINT64_MAX);
    }
    fake_host_free(e.h);
}

/* The moderation heap is one: each parent due first, positions kept */
static void timers_check(SnicCore *c)
{
    uint32_t i;

    for (i = 0; i < c->cq_timers_len; i++) {
        const SnicCq *cq = &c->cqs[c->cq_timers[i]];

        g_assert_cmpuint(cq->mod_pos, ==, i + 1);
        if (i) {
            uint32_t up = c->cq_timers[(i - 1) / 2];

            g_assert_true(c->cqs[up].mod_deadline < cq->mod_deadline ||
                          (c->cqs[up].mod_deadline == cq->mod_deadline &&
                           up < c->cq_timers[i]));
        }
    }
}

/* A CQ at a slot of the heap with a parent and children */
static uint32_t timers_mid(SnicCore *c)
{
    g_assert_cmpuint(c->cq_timers_len, >=, 7);
    return c->cq_timers[c->cq_timers_len / 2 - 1];
}

/*
 * CQs leave the moderation heap from its middle: one destroyed, one whose
 * count of CQEs raised its event first (then re-armed, its next period
 * added anew). The heap stays one, and the periods left end in the order
 * of their deadlines (ties by CQN), each CQ's event at its own, the
 * departed ones' never.
 */
static void test_moderation_heap_middle(void)
{
    enum { NCQ = 15 };
    Env e = env_new(0);
    struct snic_admin_cmd cmd;
    SnicCore *c = e.h->core;
    uint32_t cqns[NCQ], want[NCQ], gone, early;
    uint64_t start = e.h->port.now, want_due[NCQ];
    unsigned i, left;

    for (i = 0; i < NCQ; i++) {
        e.cqn = cqns[i] = four_cqes_cq(&e);
        /* periods 1..15 us, not in CQN order; two events at 2 CQEs */
        modify_cq(&e, 2, 1 + (i * 7) % NCQ);
        fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, e.cqn, 0);
        post(&e, i, SNIC_WC_SUCCESS, false);
    }
    g_assert_cmpuint(c->cq_timers_len, ==, NCQ);
    timers_check(c);

    gone = timers_mid(c);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_DESTROY_CQ, sizeof(cmd.obj));
    cmd.obj.handle = GUINT32_TO_LE(gone);
    admin_ok(e.h, &cmd);
    g_assert_cmpuint(c->cq_timers_len, ==, NCQ - 1);
    timers_check(c);

    /* the second CQE: its event now, its period ends early */
    early = timers_mid(c);
    e.cqn = early;
    post(&e, 100, SNIC_WC_SUCCESS, false);
    g_assert_cmpuint(c->cqs[early].mod_pos, ==, 0);
    g_assert_cmpuint(c->cq_timers_len, ==, NCQ - 2);
    timers_check(c);
    /* re-armed, 1 us on: its next period ends after the others' */
    e.h->port.now += 1000;
    fake_doorbell(e.h, 0, SNIC_DB_CQ, early, 2);     /* both consumed */
    fake_doorbell(e.h, 0, SNIC_DB_CQ_ARM, early, 2);
    post(&e, 101, SNIC_WC_SUCCESS, false);
    g_assert_cmpuint(c->cq_timers_len, ==, NCQ - 1);
    timers_check(c);

    /*
     * due in the order of their deadlines (ties by CQN): a period of p us
     * ends at start + p us, the re-armed CQ's 1 us later
     */
    for (i = 0, left = 0; i < NCQ; i++) {
        uint64_t due = start + (1 + (i * 7) % NCQ) * 1000ull;
        unsigned k = left++;

        if (cqns[i] == gone) {
            left--;
            continue;
        }
        due += cqns[i] == early ? 1000 : 0;
        for (; k && (want_due[k - 1] > due ||
                     (want_due[k - 1] == due && want[k - 1] > cqns[i]));
             k--) {
            want[k] = want[k - 1];
            want_due[k] = want_due[k - 1];
        }
        want[k] = cqns[i];
        want_due[k] = due;
    }
    g_assert_cmpuint(left, ==, c->cq_timers_len);
    for (i = 0; i < left;) {
        g_assert_cmpuint(c->cq_timers[0], ==, want[i]);
        g_assert_cmpuint(c->timer_deadline, ==, want_due[i]);
        e.h->port.now = want_due[i];
        snic_core_timer(c);
        /* every period that ended by now, and none later */
        for (; i < left && want_due[i] == e.h->port.now; i++) {
            g_assert_cmpuint(c->cqs[want[i]].mod_pos, ==, 0);
            g_assert_cmpuint(c->cqs[want[i]].armed, ==, SNIC_CQ_DISARMED);
        }
        g_assert_cmpuint(c->cq_timers_len, ==, left - i);
        timers_check(c);
    }
    g_assert_cmpuint(c->cq_timers_len, ==, 0);
    g_assert_cmpuint(c->timer_deadline, ==, UINT64_MAX);
    fake_host_free(e.h);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/cq/resize", test_resize);
    g_test_add_func("/cq/moderation", test_moderation);
    g_test_add_func("/cq/moderation-per-call", test_moderation_per_call);
    g_test_add_func("/cq/moderation-heap-middle",
                    test_moderation_heap_middle);
    g_test_add_func("/cq/phase-and-overrun", test_cqe_phase_and_overrun);
    g_test_add_func("/cq/phase-second-lap", test_phase_second_lap);
    g_test_add_func("/cq/arming", test_arming);
    g_test_add_func("/cq/eq-overflow", test_eq_overflow);
    g_test_add_func("/cq/doorbell-ownership", test_doorbell_ownership);
    return g_test_run();
}
