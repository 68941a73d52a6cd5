/*
 * SRNIC's memory-free selective repeat with bitmap onloading
 * (hw/snic/core/srnic/sr.c, guest-driver/common/snic_sr_recovery.c):
 * selection and commands; the responder's loss recovery fed by hand
 * (entry, exit by itself and by the host's ePSN, Fig. 8's race,
 * duplicates and very late packets, an ePSN update 202 PSNs late, a
 * CtrlQ overflow, the CtrlQ removed in recovery, its interrupt
 * coalesced, a hostile QP held to its quota); the requester's
 * (hostile and stale RetryQ entries, the host's resends after the
 * device left recovery by itself, a RetryQ overflow, a lost
 * retransmission); SENDs placed by SSN and completed in order (by the
 * device, or by the host's RECV_DONE), hostile RECV_DONEs; WRITEs with
 * immediate placed by address and completed as SENDs (in order, out of
 * order before an earlier SEND's completion, hostile RECV_DONEs with the
 * WRITE flag); and 64 KiB WRITEs, 16 KiB SENDs and 16 KiB SENDs mixed
 * with WRITEs with immediate checked by content (and immediate, and CQE
 * order) over a lossy, reordering wire with the host software
 * interrupt-driven (SNIC_TRANSPORT_WRITES=1000 for more than 48 WRITEs,
 * 4 times as many SENDs, a run); READ responses placed out of order
 * (SRNIC 4.4.1, sr_read.c), hostile ones refused, and 64 KiB READs over
 * the same wire, SRNIC's against go-back-N's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "engine-node.h"
#include "sr-host.h"
#include "port/wire.h"
#include "engine/xmit.h"
#include "objects/qp.h"
#include "srnic/sr.h"
#include "transport/transport.h"

#define psn_add(psn, n)     (((psn) + (n)) & SNIC_PSN_MASK)

static uint16_t set_qp_sr(Node *n, uint64_t ring, uint8_t log2,
                          uint16_t window)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_SR, sizeof(cmd.set_qp_sr));
    cmd.set_qp_sr.qpn = GUINT32_TO_LE(n->qpn);
    cmd.set_qp_sr.log2_depth = log2;
    cmd.set_qp_sr.window = GUINT16_TO_LE(window);
    cmd.set_qp_sr.ring_addr = GUINT64_TO_LE(ring);
    return fake_admin(n->h, &cmd, NULL);
}

/* Selection, QUERY_TRANSPORT, and the commands' checks */
static void test_select(void)
{
    struct snic_admin_cmd cmd;
    struct snic_transport_info t;
    Node a;

    node_init(&a, NULL, 1);
    /* a go-back-N QP has no RetryQ */
    g_assert_cmpuint(set_qp_sr(&a, SR_RETRYQ, 4, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    g_assert_cmpuint(node_set_transport(&a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(set_qp_sr(&a, SR_RETRYQ, 1, 0), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_qp_sr(&a, SR_RETRYQ, 4, SNIC_SR_SPAN + 1), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_qp_sr(&a, SR_RETRYQ + 4, 4, 0), ==,
                     SNIC_ADMIN_BAD_ADDRESS);
    /* no ring: its depth is not looked at (any value, no overflow) */
    g_assert_cmpuint(set_qp_sr(&a, 0, 200, 0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(set_qp_sr(&a, SR_RETRYQ, 4, 16), ==, SNIC_ADMIN_OK);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SR_CTRLQ,
                        sizeof(cmd.create_sr_ctrlq));
    cmd.create_sr_ctrlq.ring_addr = GUINT64_TO_LE(SR_CTRLQ);
    cmd.create_sr_ctrlq.log2_depth = 3;
    g_assert_cmpuint(fake_admin(a.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    cmd.create_sr_ctrlq.log2_depth = 4;
    cmd.create_sr_ctrlq.vector = GUINT16_TO_LE(FAKE_VECTORS);
    g_assert_cmpuint(fake_admin(a.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_PARAM);
    cmd.create_sr_ctrlq.vector = GUINT16_TO_LE(SR_CTRLQ_VECTOR);
    g_assert_cmpuint(fake_admin(a.h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(fake_admin(a.h, &cmd, NULL), ==, SNIC_ADMIN_BAD_STATE);
    cmd.create_sr_ctrlq.ring_addr = 0;
    g_assert_cmpuint(fake_admin(a.h, &cmd, NULL), ==, SNIC_ADMIN_OK);

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_TRANSPORT,
                        sizeof(cmd.query_transport));
    cmd.query_transport.qpn = GUINT32_TO_LE(a.qpn);
    cmd.query_transport.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    g_assert_cmpuint(fake_admin(a.h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_read(a.h, FAKE_RESP, &t, sizeof(t));
    g_assert_cmpstr(t.name, ==, "SRNIC");
    g_assert_cmpuint(t.flags, ==, SNIC_TRANSPORT_F_XPORT |
                     SNIC_TRANSPORT_F_SR);
    /* the QPC counts its state: ePSN's recovery, the range, the RetryQ */
    g_assert_cmpuint(GUINT16_FROM_LE(t.state_bytes), ==, sizeof(SnicSrQp));
    g_assert_cmpuint(GUINT32_FROM_LE(t.qpc_bytes), ==,
                     sizeof(SnicQp) + sizeof(SnicProgHead) + sizeof(SnicSrQp));
    fake_host_free(a.h);
}

/* ---- the responder, fed by hand ---- */

typedef struct Resp {
    Node a, b;
    SrHost hb;
    SnicQp *qb;
    uint32_t e;             /* b's ePSN at the start */
} Resp;

static void resp_init(Resp *r, uint8_t ctrlq_log2)
{
    node_init(&r->a, NULL, 1);
    node_init(&r->b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&r->a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&r->b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&r->hb, &r->b, NULL, ctrlq_log2, 4, 0);
    node_connect(&r->a, &r->b, SNIC_MTU_1024, 7, 7);
    node_connect(&r->b, &r->a, SNIC_MTU_1024, 7, 7);
    r->qb = snic_qp_get(r->b.h->core, r->b.qpn);
    r->e = r->qb->resp.epsn;
}

static void resp_free(Resp *r)
{
    fake_host_free(r->a.h);
    fake_host_free(r->b.h);
}

/*
 * a 1 KiB WRITE Only for PSN e + i to b's BUF + i KiB, filled with 'fill',
 * received; the engine's pass (its ACKs, the CtrlQ's interrupt) not run
 */
static void wr_in(Resp *r, uint32_t i, uint8_t fill)
{
    uint8_t data[1024], frame[2048];
    SnicPkt p;
    size_t n;

    memset(data, fill, sizeof(data));
    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(r->a.h->core, snic_qp_get(r->a.h->core, r->a.qpn),
                        &p);
    p.opcode = SNIC_OP_RC_WRITE_ONLY;
    p.psn = psn_add(r->e, i);
    p.reth.va = BUF + i * 1024ull;
    p.reth.rkey = r->b.lkey;
    p.reth.len = sizeof(data);
    p.payload = data;
    p.payload_len = sizeof(data);
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_PLACE;
    p.xeth.rkey = r->b.lkey;
    p.xeth.va = p.reth.va;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&r->b, frame, n);
}

/* ... and the engine run */
static void wr(Resp *r, uint32_t i, uint8_t fill)
{
    wr_in(r, i, fill);
    fake_run(r->b.h);
}

static uint8_t at(Resp *r, uint32_t i)
{
    return *(uint8_t *)fake_ptr(r->b.h, BUF + i * 1024ull + 1023, 1);
}

/* b's last ACK on the wire */
static void last_ack(Resp *r, SnicPkt *p)
{
    GByteArray *f;

    g_assert_cmpuint(r->b.h->frames->len, >, 0);
    f = g_ptr_array_index(r->b.h->frames, r->b.h->frames->len - 1);
    g_assert_cmpint(snic_wire_parse(f->data, f->len, p), ==, SNIC_PARSE_OK);
    g_assert_cmpuint(p->opcode, ==, SNIC_OP_RC_ACK);
}

static void next_entry(Resp *r, uint8_t type, uint32_t psn, uint32_t epsn)
{
    struct snic_sr_ctrl e;

    g_assert_true(sr_host_peek(&r->hb, &e));
    g_assert_cmpuint(e.type, ==, type);
    g_assert_cmpuint(GUINT32_FROM_LE(e.qpn), ==, r->b.qpn);
    g_assert_cmpuint(GUINT32_FROM_LE(e.psn), ==, psn);
    g_assert_cmpuint(GUINT32_FROM_LE(e.epsn), ==, epsn);
    snic_sr_sw_entry(&r->hb.sw, &e);
    r->hb.ci++;
}

/*
 * Entry on the first packet ahead of ePSN, a report and a SACK of the
 * fast-exit range for each packet, exit by itself when the packet at
 * ePSN reaches the range; every packet placed where it belongs.
 */
static void test_resp_enter_exit(void)
{
    SnicSrQp *s;
    SnicPkt p;
    Resp r;

    resp_init(&r, 6);
    s = snic_sr_qp(r.qb);
    wr(&r, 1, 0xa1);
    g_assert_true(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, r.e);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 1), r.e);
    last_ack(&r, &p);
    g_assert_cmpuint(p.psn, ==, psn_add(r.e, -1));
    g_assert_true(p.xport && p.xeth.flags & SNIC_XETH_F_SACK);
    g_assert_cmpuint(p.xeth.sack_lo, ==, psn_add(r.e, 1));
    g_assert_cmpuint(p.xeth.sack_hi, ==, psn_add(r.e, 2));
    wr(&r, 2, 0xa2);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 2), r.e);
    last_ack(&r, &p);
    g_assert_cmpuint(p.xeth.sack_hi, ==, psn_add(r.e, 3));
    g_assert_cmpuint(at(&r, 1), ==, 0xa1);
    g_assert_cmpuint(at(&r, 2), ==, 0xa2);
    /* the hole filled: ePSN reaches the range, leaves recovery */
    wr(&r, 0, 0xa0);
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 3));
    next_entry(&r, SNIC_SR_CTRL_RESP_EXIT, r.e, psn_add(r.e, 3));
    last_ack(&r, &p);
    g_assert_cmpuint(p.psn, ==, psn_add(r.e, 2));
    g_assert_false(p.xeth.flags & SNIC_XETH_F_SACK);
    g_assert_cmpuint(at(&r, 0), ==, 0xa0);
    /* in order again: no report */
    wr(&r, 3, 0xa3);
    g_assert_false(sr_host_peek(&r.hb, &(struct snic_sr_ctrl){ 0 }));
    g_assert_cmpuint(at(&r, 3), ==, 0xa3);
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/*
 * Fig. 8's race: the host computes ePSN e + 3 from what it saw, and
 * while its update is on its way e + 3 and e + 5 arrive and are placed.
 * The update falls in the fast-exit range [e + 3, e + 5]: ePSN becomes
 * e + 6 and recovery ends at once. An update below the range is taken
 * and recovery goes on.
 */
static void test_resp_fig8_race(void)
{
    SnicSrQp *s;
    Resp r;
    uint32_t i;

    resp_init(&r, 6);
    s = snic_sr_qp(r.qb);
    wr(&r, 1, 0xb1);
    wr(&r, 2, 0xb2);
    wr(&r, 4, 0xb4);                    /* the range restarts: [e+4] */
    g_assert_cmpuint(s->psn_left, ==, psn_add(r.e, 4));
    wr(&r, 0, 0xb0);                    /* ePSN e + 1, not the range */
    g_assert_true(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 1));
    g_assert_cmpuint(sr_host_take(&r.hb), ==, 4);
    g_assert_cmpuint(r.hb.nout, ==, 1);  /* ePSN e + 3 */
    g_assert_cmpuint(r.hb.out[0].type, ==, SNIC_SR_RETRY_EPSN);
    g_assert_cmpuint(GUINT32_FROM_LE(r.hb.out[0].psn_from), ==,
                     psn_add(r.e, 3));
    /* on their way while the update is */
    wr(&r, 3, 0xb3);                    /* [e+3, e+4] */
    wr(&r, 5, 0xb5);                    /* [e+3, e+5] */
    g_assert_cmpuint(s->psn_left, ==, psn_add(r.e, 3));
    g_assert_cmpuint(s->psn_right, ==, psn_add(r.e, 5));
    sr_host_commit(&r.hb);
    fake_run(r.b.h);
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 6));
    for (i = 0; i < 6; i++) {
        g_assert_cmpuint(at(&r, i), ==, 0xb0 + i);
    }
    /* a new loss; an update below the range: taken, recovery goes on */
    wr(&r, 7, 0xb7);
    wr(&r, 9, 0xb9);
    g_assert_cmpuint(sr_host_poll(&r.hb), >=, 3);    /* exit entry too */
    wr(&r, 6, 0xb6);
    sr_host_poll(&r.hb);                /* ePSN e + 8: below [e+9] */
    fake_run(r.b.h);
    g_assert_true(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 8));
    wr(&r, 8, 0xb8);                    /* reaches the range: out */
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 10));
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 0);
    for (i = 6; i < 10; i++) {
        g_assert_cmpuint(at(&r, i), ==, 0xb0 + i);
    }
    resp_free(&r);
}

/*
 * A duplicate in recovery of a PSN in the fast-exit range is acknowledged
 * but neither placed nor reported again (counted in sr_ctrlq_refused);
 * after ePSN passed it, a very late copy is never placed; one beyond
 * the window neither. An update claiming PSNs never placed is refused.
 */
static void test_resp_duplicates(void)
{
    struct snic_sr_retry e = { .type = SNIC_SR_RETRY_EPSN };
    unsigned frames;
    SnicSrQp *s;
    SnicPkt p;
    Resp r;

    resp_init(&r, 6);
    s = snic_sr_qp(r.qb);
    wr(&r, 1, 0xc1);
    frames = r.b.h->frames->len;
    wr(&r, 1, 0xee);
    g_assert_cmpuint(r.b.h->frames->len, ==, frames + 1);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_ACK);
    g_assert_true(p.xeth.flags & SNIC_XETH_F_SACK);
    g_assert_cmpuint(at(&r, 1), ==, 0xc1);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_refused), ==, 1);
    g_assert_cmpuint(s->psn_left, ==, psn_add(r.e, 1));
    g_assert_cmpuint(s->psn_right, ==, psn_add(r.e, 1));
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 1);
    /* e + 3 was never placed: the host may not claim it */
    e.qpn = GUINT32_TO_LE(r.b.qpn);
    e.psn_from = GUINT32_TO_LE(psn_add(r.e, 3));
    sr_host_post(&r.hb, &e);
    fake_run(r.b.h);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 1);
    g_assert_cmpuint(r.qb->resp.epsn, ==, r.e);
    g_assert_true(s->resp_recovery);
    wr(&r, 0, 0xc0);
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 2));
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 1);     /* the exit */
    /* the application reuses its buffer: a late copy must not land */
    memset(fake_ptr(r.b.h, BUF + 1024, 1024), 0x55, 1024);
    wr(&r, 1, 0xee);
    wr(&r, 0, 0xee);
    g_assert_cmpuint(at(&r, 1), ==, 0x55);
    g_assert_cmpuint(at(&r, 0), ==, 0xc0);
    wr(&r, 2 + SNIC_SR_SPAN, 0xee);     /* beyond the host's bitmaps */
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(at(&r, 2 + SNIC_SR_SPAN), ==, 0);
    g_assert_false(sr_host_peek(&r.hb, &(struct snic_sr_ctrl){ 0 }));
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/*
 * Every PSN of the window is here: the host's ePSN is ePSN + window, one
 * past the highest PSN the device can have placed, and is taken (it was
 * refused as a guest error, the QP then waiting for the sender's timeout).
 */
static void test_resp_epsn_whole_window(void)
{
    SnicSrQp *s;
    uint32_t i;
    Resp r;

    resp_init(&r, 6);
    g_assert_cmpuint(set_qp_sr(&r.b, SR_RETRYQ, 4, 4), ==, SNIC_ADMIN_OK);
    s = snic_sr_qp(r.qb);
    wr(&r, 1, 0xd1);
    wr(&r, 3, 0xd3);                    /* the range restarts: [e+3] */
    wr(&r, 2, 0xd2);                    /* [e+2, e+3] */
    wr(&r, 0, 0xd0);                    /* ePSN e + 1, below the range */
    wr(&r, 4, 0xd4);                    /* ePSN + 3: [e+2, e+4] */
    g_assert_true(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 1));
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 5);
    g_assert_cmpuint(r.hb.sw.epsn_posted, ==, 1);      /* e + 5 */
    fake_run(r.b.h);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 0);
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 5));
    for (i = 0; i <= 4; i++) {
        g_assert_cmpuint(at(&r, i), ==, 0xd0 + i);
    }
    resp_free(&r);
}

/*
 * The host's ePSN arrives late: meanwhile the device left recovery by
 * itself and took 200 more PSNs in order, so the update is 202 PSNs
 * behind ePSN. Stale, not hostile: skipped quietly, ePSN stays. One more
 * than half the PSN space behind reads as ahead and is refused.
 */
static void test_resp_epsn_far_behind(void)
{
    struct snic_sr_retry e = { .type = SNIC_SR_RETRY_EPSN };
    SnicSrQp *s;
    uint32_t i;
    Resp r;

    resp_init(&r, 6);
    s = snic_sr_qp(r.qb);
    wr(&r, 1, 0xe1);
    wr(&r, 2, 0xe2);
    wr(&r, 4, 0xe4);                    /* the range restarts: [e+4] */
    wr(&r, 0, 0xe0);                    /* ePSN e + 1 */
    g_assert_cmpuint(sr_host_take(&r.hb), ==, 4);
    g_assert_cmpuint(r.hb.nout, ==, 1);  /* ePSN e + 3, not posted yet */
    g_assert_cmpuint(GUINT32_FROM_LE(r.hb.out[0].psn_from), ==,
                     psn_add(r.e, 3));
    /* the sender resends 1-3: ePSN reaches the range, recovery ends */
    for (i = 1; i <= 3; i++) {
        wr(&r, i, 0xe0 + i);
    }
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 5));
    for (i = 5; i < 205; i++) {
        wr(&r, i, (uint8_t)i);
    }
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 205));
    sr_host_commit(&r.hb);
    fake_run(r.b.h);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 0);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_stale), ==, 1);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 205));
    g_assert_false(s->resp_recovery);
    /* 2^23 + 10 behind is 2^23 - 10 ahead: beyond the window */
    e.qpn = GUINT32_TO_LE(r.b.qpn);
    e.psn_from = GUINT32_TO_LE(psn_add(r.e, 205 - (1u << 23) - 10));
    sr_host_post(&r.hb, &e);
    fake_run(r.b.h);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 1);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 205));
    for (i = 0; i < 5; i++) {
        g_assert_cmpuint(at(&r, i), ==, 0xe0 + i);
    }
    for (i = 5; i < 205; i++) {
        g_assert_cmpuint(at(&r, i), ==, i & 0xff);
    }
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/*
 * A full CtrlQ: the packets it could not report (ahead of ePSN and at
 * it) are dropped unplaced, counted, and one async event says so (once
 * until the host frees slots); the first draws a sequence NAK so the
 * peer goes back N at once, not at its timeout. Once the host frees
 * slots, the peer's resends are placed, and the transfer ends with
 * every byte right and the QP in RTS.
 */
static void test_ctrlq_overflow(void)
{
    struct snic_aeqe ev;
    unsigned i, events = 0, frames;
    SnicPkt p;
    Resp r;

    resp_init(&r, SNIC_SR_CTRLQ_MIN_LOG2);
    for (i = 1; i <= 16; i++) {
        wr(&r, i, 0x10 + i);
    }
    frames = r.b.h->frames->len;
    wr(&r, 17, 0x10 + 17);
    /* dropped: go-back-N's NAK asks for ePSN on at once, once a gap */
    g_assert_cmpuint(r.b.h->frames->len, ==, frames + 1);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_NAK_SEQ);
    g_assert_cmpuint(p.psn, ==, r.e);
    for (i = 18; i <= 20; i++) {
        wr(&r, i, 0x10 + i);
    }
    wr(&r, 0, 0x10);                    /* at ePSN too: no slot, dropped */
    g_assert_cmpuint(r.b.h->frames->len, ==, frames + 1);
    g_assert_cmpuint(r.qb->resp.epsn, ==, r.e);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, 16);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_drops), ==, 5);
    for (i = 17; i <= 20; i++) {
        g_assert_cmpuint(at(&r, i), ==, 0);     /* never placed */
    }
    g_assert_cmpuint(at(&r, 0), ==, 0);
    while (fake_aeq_poll(r.b.h, &ev)) {
        if (GUINT32_FROM_LE(ev.event) == SNIC_EVENT_SR_CTRLQ_OVERFLOW) {
            g_assert_cmpuint(GUINT64_FROM_LE(ev.data), ==, r.b.qpn);
            events++;
        }
    }
    g_assert_cmpuint(events, ==, 1);
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 16);
    /* the peer went back N: all of it again, placed now */
    for (i = 0; i <= 20; i++) {
        wr(&r, i, 0x10 + i);
    }
    g_assert_false(snic_sr_qp(r.qb)->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 21));
    for (i = 0; i <= 20; i++) {
        g_assert_cmpuint(at(&r, i), ==, 0x10 + i);
    }
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

static uint16_t remove_ctrlq(Node *n)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SR_CTRLQ,
                        sizeof(cmd.create_sr_ctrlq));
    return fake_admin(n->h, &cmd, NULL);
}

/*
 * The CtrlQ removed while a WRITE's responder is in recovery: it leaves
 * it as go-back-N would (ePSN stays, a sequence NAK for it at once; the
 * host's ePSN already rung is stale, not a guest error), and the peer's
 * resends, the PSNs placed ahead of ePSN among them, complete the
 * transfer byte for byte. Without a CtrlQ a new gap draws a NAK, no
 * recovery.
 */
static void test_ctrlq_removed_resp(void)
{
    SnicSrQp *s;
    SnicPkt p;
    unsigned i;
    Resp r;

    resp_init(&r, 6);
    s = snic_sr_qp(r.qb);
    wr(&r, 1, 0x31);
    wr(&r, 2, 0x32);
    wr(&r, 4, 0x34);
    wr(&r, 0, 0x30);
    g_assert_true(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 1));
    g_assert_cmpuint(sr_host_take(&r.hb), ==, 4);
    g_assert_cmpuint(r.hb.nout, ==, 1);         /* ePSN e + 3 */
    /* rung, not yet read by the device when the CtrlQ goes */
    fake_write(r.b.h, SR_RETRYQ, &r.hb.out[0], sizeof(r.hb.out[0]));
    r.hb.retry_pi++;
    fake_doorbell(r.b.h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_RETRYQ, r.b.qpn,
                  r.hb.retry_pi);
    g_assert_cmpuint(remove_ctrlq(&r.b), ==, SNIC_ADMIN_OK);
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 1));
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_NAK_SEQ);
    g_assert_cmpuint(p.psn, ==, psn_add(r.e, 1));
    fake_run(r.b.h);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 0);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_stale), ==, 1);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 1));
    /* the peer goes back N from e + 1 */
    for (i = 1; i <= 5; i++) {
        wr(&r, i, 0x30 + i);
    }
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 6));
    for (i = 0; i <= 5; i++) {
        g_assert_cmpuint(at(&r, i), ==, 0x30 + i);
    }
    /* no CtrlQ: a gap is go-back-N's */
    wr(&r, 7, 0x37);
    g_assert_false(s->resp_recovery);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_NAK_SEQ);
    g_assert_cmpuint(p.psn, ==, psn_add(r.e, 6));
    g_assert_cmpuint(at(&r, 7), ==, 0);
    wr(&r, 6, 0x36);
    wr(&r, 7, 0x37);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 8));
    g_assert_cmpuint(at(&r, 6), ==, 0x36);
    g_assert_cmpuint(at(&r, 7), ==, 0x37);
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/*
 * The CtrlQ's interrupt is coalesced: the entries written in one pass
 * of the engine raise its vector once; the next pass's entries once more.
 */
static void test_ctrlq_irq_coalesced(void)
{
    unsigned irqs, i;
    Resp r;

    resp_init(&r, 6);
    irqs = r.b.h->irqs[SR_CTRLQ_VECTOR];
    for (i = 1; i <= 4; i++) {
        wr_in(&r, i, 0x60 + i);
    }
    fake_run(r.b.h);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, 4);
    g_assert_cmpuint(r.b.h->irqs[SR_CTRLQ_VECTOR], ==, irqs + 1);
    fake_run(r.b.h);                    /* nothing new: no interrupt */
    g_assert_cmpuint(r.b.h->irqs[SR_CTRLQ_VECTOR], ==, irqs + 1);
    wr(&r, 6, 0x66);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, 5);
    g_assert_cmpuint(r.b.h->irqs[SR_CTRLQ_VECTOR], ==, irqs + 2);
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 5);
    resp_free(&r);
}

/* a WRITE Only for PSN psn from QP 'from' to b's 'to' at BUF + slot KiB */
static void wr_qp(Node *from, Node *to, uint32_t psn, uint32_t slot,
                  uint8_t fill)
{
    uint8_t data[1024], frame[2048];
    SnicPkt p;
    size_t n;

    memset(data, fill, sizeof(data));
    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(from->h->core, snic_qp_get(from->h->core,
                                                   from->qpn), &p);
    p.opcode = SNIC_OP_RC_WRITE_ONLY;
    p.psn = psn;
    p.reth.va = BUF + slot * 1024ull;
    p.reth.rkey = to->lkey;
    p.reth.len = sizeof(data);
    p.payload = data;
    p.payload_len = sizeof(data);
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_PLACE;
    p.xeth.rkey = to->lkey;
    p.xeth.va = p.reth.va;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(to, frame, n);
    fake_run(to->h);
}

/*
 * One process's QPs share a quarter of the CtrlQ, however many it opens:
 * four QPs of context 1 (quota 8 each, window 4) flooded with duplicates
 * hold 16 of the 64 entries together, not 32; a QP of context 2 entering
 * recovery meanwhile is reported, its WRITE placed.
 */
static void test_ctrlq_ctx_share(void)
{
    enum { NQP = 4 };
    Node c[NQP], d[NQP], e, f;
    SnicQp *qc, *qe;
    uint64_t entries;
    uint32_t ce, i, k;
    Resp r;

    node_init(&r.a, NULL, 1);
    node_init(&r.b, NULL, 2);
    node_add_ctx(&c[0], &r.b, 1);
    node_add_ctx(&e, &r.b, 2);
    /* the host's CtrlQ (64 entries) and b's own QP's RetryQ */
    g_assert_cmpuint(node_set_transport(&r.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&r.hb, &r.b, NULL, 6, 4, 0);
    for (k = 0; k < NQP + 1; k++) {
        Node *to = k < NQP ? &c[k] : &e, *from = k < NQP ? &d[k] : &f;

        if (k && k < NQP) {
            node_add_qp(&c[k], &c[0]);
        }
        node_add_qp(from, &r.a);
        g_assert_cmpuint(node_set_transport(from, SNIC_TRANSPORT_SRNIC, 0),
                         ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(node_set_transport(to, SNIC_TRANSPORT_SRNIC, 0),
                         ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(set_qp_sr(to, 0, 0, 4), ==, SNIC_ADMIN_OK);
        node_connect(from, to, SNIC_MTU_1024, 7, 7);
        node_connect(to, from, SNIC_MTU_1024, 7, 7);
    }
    for (k = 0; k < NQP; k++) {
        qc = snic_qp_get(r.b.h->core, c[k].qpn);
        ce = qc->resp.epsn;
        wr_qp(&d[k], &c[k], psn_add(ce, 3), 100 + k, 0xd3);
        for (i = 0; i < 20; i++) {
            wr_qp(&d[k], &c[k], psn_add(ce, 1), 110 + k, 0xee);
        }
    }
    entries = FAKE_STAT(r.b.h, sr_ctrlq_entries);
    g_assert_cmpuint(entries, ==, 16);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_drops), ==, 0);
    /* context 2's QP still finds room */
    qe = snic_qp_get(r.b.h->core, e.qpn);
    ce = qe->resp.epsn;
    wr_qp(&f, &e, psn_add(ce, 3), 200, 0xe3);
    g_assert_true(snic_sr_qp(qe)->resp_recovery);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), >, entries);
    g_assert_cmpuint(at(&r, 200), ==, 0xe3);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_drops), ==, 0);
    resp_free(&r);
}

/*
 * A hostile peer QP (d -> c, window 4) floods b's device: duplicates of
 * a PSN in c's fast-exit range (acknowledged, never reported) and of one
 * below it (reported until c's quota, twice its window, is spent; then
 * dropped unplaced). The CtrlQ (64 entries) keeps room for the honest
 * QP b on the same device, which recovers and completes, byte for byte.
 */
static void test_ctrlq_hostile_qp(void)
{
    uint64_t refused, entries;
    uint32_t ce, i;
    SnicQp *qc;
    Node c, d;
    Resp r;

    node_init(&r.a, NULL, 1);
    node_init(&r.b, NULL, 2);
    node_add_qp(&d, &r.a);
    node_add_qp(&c, &r.b);
    g_assert_cmpuint(node_set_transport(&r.a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&r.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&c, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&d, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&r.hb, &r.b, NULL, 6, 4, 0);
    g_assert_cmpuint(set_qp_sr(&c, 0, 0, 4), ==, SNIC_ADMIN_OK);
    node_connect(&r.a, &r.b, SNIC_MTU_1024, 7, 7);
    node_connect(&r.b, &r.a, SNIC_MTU_1024, 7, 7);
    node_connect(&d, &c, SNIC_MTU_1024, 7, 7);
    node_connect(&c, &d, SNIC_MTU_1024, 7, 7);
    r.qb = snic_qp_get(r.b.h->core, r.b.qpn);
    r.e = r.qb->resp.epsn;
    qc = snic_qp_get(r.b.h->core, c.qpn);
    ce = qc->resp.epsn;
    /* c enters recovery: [ce + 3] placed; ce + 1 placed below it */
    wr_qp(&d, &c, psn_add(ce, 3), 100, 0xd3);
    wr_qp(&d, &c, psn_add(ce, 1), 101, 0xd1);
    g_assert_true(snic_sr_qp(qc)->resp_recovery);
    for (i = 0; i < 100; i++) {
        wr_qp(&d, &c, psn_add(ce, 3), 100, 0xee);
        wr_qp(&d, &c, psn_add(ce, 1), 101, 0xee);
    }
    /* at most its quota in the ring; the rest refused, counted */
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, 8);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_refused), ==, 200 - 6);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_drops), ==, 0);
    g_assert_cmpuint(at(&r, 100), ==, 0xd3);
    g_assert_cmpuint(qc->state, ==, SNIC_QPS_RTS);
    /* b, honest, recovers meanwhile: its reports find room */
    for (i = 1; i <= 20; i++) {
        wr(&r, i, 0x70 + i);
    }
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_drops), ==, 0);
    wr(&r, 0, 0x70);
    g_assert_false(snic_sr_qp(r.qb)->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 21));
    for (i = 0; i <= 20; i++) {
        g_assert_cmpuint(at(&r, i), ==, 0x70 + i);
    }
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    /*
     * the host took every entry: c holds none of the ring, its next
     * reports are taken (they were refused: the 8 of its last
     * generation counted again at the generations' turn)
     */
    sr_host_poll(&r.hb);
    /* (its entries as one generation, the quota's worth: white box) */
    snic_sr_qp(qc)->ctrl.prev = 0;
    snic_sr_qp(qc)->ctrl.cur = 8;
    snic_sr_qp(qc)->ctrl.mark = r.b.h->core->sr_ctrlq.tail - 8;
    refused = FAKE_STAT(r.b.h, sr_ctrlq_refused);
    entries = FAKE_STAT(r.b.h, sr_ctrlq_entries);
    wr_qp(&d, &c, psn_add(ce, 5), 102, 0xd5);
    wr_qp(&d, &c, psn_add(ce, 7), 103, 0xd7);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_refused), ==, refused);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, entries + 2);
    g_assert_cmpuint(at(&r, 102), ==, 0xd5);
    g_assert_cmpuint(at(&r, 103), ==, 0xd7);
    resp_free(&r);
}

/* ---- SENDs placed by SSN (section 4.4.1) ---- */

#define RBUF        (BUF + 0x100000)    /* b's receive buffers, 8 KiB each */

/* A SEND packet op from's QP to to's, for PSN psn: snd()'s */
static void snd_qp(Node *from, Node *to, uint32_t psn, uint8_t op,
                   uint32_t ssn, uint32_t off, uint32_t len, uint8_t fill,
                   uint32_t imm)
{
    uint8_t data[1024], frame[2048];
    SnicPkt p;
    size_t n;

    memset(data, fill, sizeof(data));
    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(from->h->core, snic_qp_get(from->h->core,
                                                   from->qpn), &p);
    p.opcode = op;
    p.psn = psn;
    p.imm = imm;
    p.payload = data;
    p.payload_len = len;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_MSG;
    p.xeth.msg = ssn;
    p.xeth.offset = off;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(to, frame, n);
    fake_run(to->h);
}

/*
 * A SEND packet op for PSN e + i of message ssn, at byte off of it:
 * len bytes of 'fill'
 */
static void snd(Resp *r, uint32_t i, uint8_t op, uint32_t ssn, uint32_t off,
                uint32_t len, uint8_t fill, uint32_t imm)
{
    snd_qp(&r->a, &r->b, psn_add(r->e, i), op, ssn, off, len, fill, imm);
}

/* b's next CQE: a successful receive of wr_id, len bytes */
static void recv_cqe(Resp *r, uint64_t wr_id, uint32_t len, uint8_t flags,
                     uint32_t imm)
{
    struct snic_cqe c;

    g_assert_true(node_poll_cq(&r->b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, wr_id);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, len);
    g_assert_cmpuint(c.wc_flags, ==, flags);
    if (flags & SNIC_WC_F_IMM) {
        g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, imm);
    }
}

/* bytes [from, from + len) of receive buffer k hold 'fill' */
static void assert_filled(Resp *r, unsigned k, uint32_t from, uint32_t len,
                          uint8_t fill)
{
    const uint8_t *b = fake_ptr(r->b.h, RBUF + k * 8192ull + from, len);
    uint32_t i;

    for (i = 0; i < len; i++) {
        g_assert_cmpuint(b[i], ==, fill);
    }
}

static void post_recvs(Resp *r, unsigned n)
{
    unsigned k;

    memset(fake_ptr(r->b.h, RBUF, n * 8192), 0, n * 8192);
    for (k = 0; k < n; k++) {
        node_post_recv(&r->b, 100 + k, RBUF + k * 8192ull, 8192);
    }
}

/*
 * Three messages: SEND Only (SSN 0, PSN e), a 3-packet SEND (SSN 1,
 * e + 1 .. e + 3, whose First and Last come late: the Last ahead of ePSN,
 * the First last of all) and a SEND Only with Immediate (SSN 2, e + 4),
 * arriving e + 2, e + 4, e, e + 3, e + 1. Each packet lands in the
 * receive WQE its SSN names, at its offset; the device leaves the three
 * completions to the host, whose RECV_DONEs complete them in order once
 * ePSN passed them; then a SEND in order completes on the device alone.
 */
static void test_send_ooo(void)
{
    struct snic_cqe c;
    SnicSrQp *s;
    Resp r;

    resp_init(&r, 6);
    s = snic_sr_qp(r.qb);
    post_recvs(&r, 4);
    snd(&r, 2, SNIC_OP_RC_SEND_MIDDLE, 1, 1024, 1024, 0xb2, 0);
    g_assert_true(s->resp_recovery);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 2), r.e);
    snd(&r, 4, SNIC_OP_RC_SEND_ONLY_IMM, 2, 0, 500, 0xc0, 0x1234);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 4), r.e);
    next_entry(&r, SNIC_SR_CTRL_RESP_RECV, psn_add(r.e, 4), r.e);
    /* the packets are where they belong; nothing completes ahead */
    assert_filled(&r, 1, 1024, 1024, 0xb2);
    assert_filled(&r, 2, 0, 500, 0xc0);
    assert_filled(&r, 2, 500, 1, 0);
    g_assert_false(node_poll_cq(&r.b, &c));
    /*
     * SSN 0 at ePSN: placed, but the device told the host of SSN 2
     * already, so it leaves SSN 0 to the host too (it keeps no record
     * of which SSNs it told: only the one after the highest)
     */
    snd(&r, 0, SNIC_OP_RC_SEND_ONLY, 0, 0, 1000, 0xa0, 0);
    next_entry(&r, SNIC_SR_CTRL_RESP, r.e, psn_add(r.e, 1));
    next_entry(&r, SNIC_SR_CTRL_RESP_RECV, r.e, psn_add(r.e, 1));
    assert_filled(&r, 0, 0, 1000, 0xa0);
    g_assert_false(node_poll_cq(&r.b, &c));
    snd(&r, 3, SNIC_OP_RC_SEND_LAST, 1, 2048, 700, 0xb3, 0);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 3), psn_add(r.e, 1));
    next_entry(&r, SNIC_SR_CTRL_RESP_RECV, psn_add(r.e, 3), psn_add(r.e, 1));
    /*
     * The First at ePSN: ePSN e + 2 is below the fast-exit range
     * [e + 3, e + 4] (e + 2 is in the host's bitmap only), so the host's
     * ePSN e + 5 ends recovery, and its RECV_DONEs follow
     */
    snd(&r, 1, SNIC_OP_RC_SEND_FIRST, 1, 0, 1024, 0xb1, 0);
    g_assert_true(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 2));
    g_assert_false(node_poll_cq(&r.b, &c));     /* the host's to finish */
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 1);
    fake_run(r.b.h);
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 5));
    g_assert_cmpuint(r.hb.sw.recv_posted, ==, 3);
    next_entry(&r, SNIC_SR_CTRL_RESP_EXIT, psn_add(r.e, 5),
               psn_add(r.e, 5));
    recv_cqe(&r, 100, 1000, 0, 0);
    recv_cqe(&r, 101, 2748, 0, 0);
    recv_cqe(&r, 102, 500, SNIC_WC_F_IMM, 0x1234);
    g_assert_false(node_poll_cq(&r.b, &c));
    assert_filled(&r, 1, 0, 1024, 0xb1);
    assert_filled(&r, 1, 1024, 1024, 0xb2);
    assert_filled(&r, 1, 2048, 700, 0xb3);
    assert_filled(&r, 1, 2748, 1, 0);
    /* in order again, nothing owed: the device completes it, no report */
    snd(&r, 5, SNIC_OP_RC_SEND_ONLY, 3, 0, 10, 0xd0, 0);
    recv_cqe(&r, 103, 10, 0, 0);
    g_assert_false(sr_host_peek(&r.hb, &(struct snic_sr_ctrl){ 0 }));
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 0);
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

static void post_recv_done(Resp *r, uint16_t ssn, uint32_t len)
{
    struct snic_sr_retry_recv e = {
        .type = SNIC_SR_RETRY_RECV_DONE,
        .ssn = GUINT16_TO_LE(ssn),
        .qpn = GUINT32_TO_LE(r->b.qpn),
        .byte_len = GUINT32_TO_LE(len),
    };

    sr_host_post(&r->hb, (struct snic_sr_retry *)&e);
    fake_run(r->b.h);
}

/*
 * Hostile RECV_DONE entries are refused as guest errors and complete
 * nothing: none owed, an SSN not the next one, a length beyond the
 * receive WQE's buffers; the host's own then complete both in order.
 */
static void test_send_recv_done_hostile(void)
{
    struct snic_cqe c;
    Resp r;

    resp_init(&r, 6);
    post_recvs(&r, 2);
    post_recv_done(&r, 0, 10);      /* nothing reported yet */
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 1);
    snd(&r, 1, SNIC_OP_RC_SEND_ONLY, 1, 0, 1024, 0xe1, 0);
    snd(&r, 0, SNIC_OP_RC_SEND_ONLY, 0, 0, 1024, 0xe0, 0);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 2));
    g_assert_false(node_poll_cq(&r.b, &c));     /* SSN 0: the host's too */
    post_recv_done(&r, 1, 1024);    /* not the next message */
    post_recv_done(&r, 0, 8193);    /* beyond the WQE */
    post_recv_done(&r, 0x100, 1024); /* another SSN modulo 2^16 */
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 4);
    g_assert_false(node_poll_cq(&r.b, &c));
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    sr_host_poll(&r.hb);
    fake_run(r.b.h);
    recv_cqe(&r, 100, 1024, 0, 0);
    recv_cqe(&r, 101, 1024, 0, 0);
    assert_filled(&r, 0, 0, 1024, 0xe0);
    assert_filled(&r, 1, 0, 1024, 0xe1);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 4);
    /* given back once only: again, it is refused */
    post_recv_done(&r, 1, 1024);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 5);
    g_assert_false(node_poll_cq(&r.b, &c));
    resp_free(&r);
}

/*
 * A SEND at ePSN with no receive WQE posted for it draws an RNR NAK and
 * is taken when it comes again; one whose SSN names a message beyond the
 * first not passed is the peer's error (NAK invalid request).
 */
static void test_send_rnr_and_bad_ssn(void)
{
    SnicPkt p;
    Resp r;

    resp_init(&r, 6);
    snd(&r, 0, SNIC_OP_RC_SEND_ONLY, 0, 0, 100, 0xf0, 0);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome & 0xe0, ==, SNIC_AETH_RNR);
    g_assert_cmpuint(r.qb->resp.epsn, ==, r.e);
    post_recvs(&r, 1);
    snd(&r, 0, SNIC_OP_RC_SEND_ONLY, 0, 0, 100, 0xf0, 0);
    recv_cqe(&r, 100, 100, 0, 0);
    assert_filled(&r, 0, 0, 100, 0xf0);
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    post_recvs(&r, 1);
    snd(&r, 1, SNIC_OP_RC_SEND_ONLY, 3, 0, 100, 0xf1, 0);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_NAK_INV_REQ);
    resp_free(&r);
}

/* ---- RDMA WRITE with immediate: placed by address, numbered by SSN ---- */

/*
 * A WRITE packet op (First, Middle, Last/Only with immediate) of message
 * ssn, for PSN e + i at byte off of it: len bytes of 'fill' to b's
 * BUF + at + off (a WRITE with immediate's packets carry both their
 * address and their SSN)
 */
static void wimm(Resp *r, uint32_t i, uint8_t op, uint32_t ssn, uint64_t at,
                 uint32_t off, uint32_t len, uint8_t fill, uint32_t imm)
{
    uint8_t data[1024], frame[2048];
    SnicPkt p;
    size_t n;

    memset(data, fill, sizeof(data));
    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(r->a.h->core, snic_qp_get(r->a.h->core, r->a.qpn),
                        &p);
    p.opcode = op;
    p.psn = psn_add(r->e, i);
    p.reth.va = BUF + at;
    p.reth.rkey = r->b.lkey;
    p.reth.len = off + len;
    p.imm = imm;
    p.payload = data;
    p.payload_len = len;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_PLACE | SNIC_XETH_F_MSG;
    p.xeth.rkey = r->b.lkey;
    p.xeth.va = BUF + at + off;
    p.xeth.msg = ssn;
    p.xeth.offset = off;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&r->b, frame, n);
    fake_run(r->b.h);
}

/* b's next CQE: a successful WRITE with immediate of wr_id's WQE */
static void wimm_cqe(Resp *r, uint64_t wr_id, uint32_t len, uint32_t imm)
{
    struct snic_cqe c;

    g_assert_true(node_poll_cq(&r->b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, wr_id);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, len);
    g_assert_cmpuint(c.wc_flags, ==, SNIC_WC_F_IMM);
    g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, imm);
}

/* bytes [at, at + len) of b's BUF hold 'fill' */
static void assert_buf(Resp *r, uint64_t at, uint32_t len, uint8_t fill)
{
    const uint8_t *b = fake_ptr(r->b.h, BUF + at, len);
    uint32_t i;

    for (i = 0; i < len; i++) {
        g_assert_cmpuint(b[i], ==, fill);
    }
}

/* the next CtrlQ entry is the RESP_RECV of a WRITE with immediate */
static void wimm_entry(Resp *r, uint32_t i, uint32_t epsn, uint32_t ssn,
                       uint32_t len, uint32_t imm)
{
    struct snic_sr_ctrl_recv e;

    g_assert_true(sr_host_peek(&r->hb, (struct snic_sr_ctrl *)&e));
    g_assert_cmpuint(e.recv_flags, ==, SNIC_SR_RECV_F_IMM |
                     SNIC_SR_RECV_F_WRITE);
    g_assert_cmpuint(GUINT32_FROM_LE(e.ssn), ==, ssn);
    g_assert_cmpuint(GUINT32_FROM_LE(e.byte_len), ==, len);
    g_assert_cmpuint(GUINT32_FROM_LE(e.data), ==, imm);
    next_entry(r, SNIC_SR_CTRL_RESP_RECV, psn_add(r->e, i), epsn);
}

/*
 * In order, with every message before it complete, the device completes
 * a WRITE with immediate itself (RECV_RDMA_WITH_IMM, byte_len the
 * WRITE's length, nothing written to the receive WQE's buffer) and tells
 * the host nothing; it is numbered among the SENDs; with no receive WQE
 * posted for it, its Last draws an RNR NAK and places nothing until it
 * comes again; a number beyond the next message is the peer's error.
 */
static void test_write_imm_in_order(void)
{
    struct snic_sr_ctrl e;
    SnicPkt p;
    Resp r;

    resp_init(&r, 6);
    memset(fake_ptr(r.b.h, BUF, 16384), 0, 16384);
    post_recvs(&r, 2);
    wimm(&r, 0, SNIC_OP_RC_WRITE_ONLY_IMM, 0, 0, 0, 600, 0x11, 0xabc);
    wimm_cqe(&r, 100, 600, 0xabc);
    assert_buf(&r, 0, 600, 0x11);
    assert_buf(&r, 600, 1, 0);
    wimm(&r, 1, SNIC_OP_RC_WRITE_FIRST, 1, 4096, 0, 1024, 0x21, 0);
    wimm(&r, 2, SNIC_OP_RC_WRITE_MIDDLE, 1, 4096, 1024, 1024, 0x22, 0);
    wimm(&r, 3, SNIC_OP_RC_WRITE_LAST_IMM, 1, 4096, 2048, 700, 0x23, 7);
    wimm_cqe(&r, 101, 2748, 7);
    assert_buf(&r, 4096, 1024, 0x21);
    assert_buf(&r, 5120, 1024, 0x22);
    assert_buf(&r, 6144, 700, 0x23);
    assert_buf(&r, 6844, 1, 0);
    assert_filled(&r, 0, 0, 2 * 8192, 0);   /* the receive buffers */
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 4));
    /* no receive WQE for SSN 2: RNR, nothing placed, ePSN stays */
    wimm(&r, 4, SNIC_OP_RC_WRITE_ONLY_IMM, 2, 8192, 0, 100, 0x31, 9);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome & 0xe0, ==, SNIC_AETH_RNR);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 4));
    assert_buf(&r, 8192, 100, 0);
    node_post_recv(&r.b, 102, RBUF + 2 * 8192ull, 8192);
    wimm(&r, 4, SNIC_OP_RC_WRITE_ONLY_IMM, 2, 8192, 0, 100, 0x31, 9);
    wimm_cqe(&r, 102, 100, 9);
    assert_buf(&r, 8192, 100, 0x31);
    /* a SEND after them: SSN 3 */
    node_post_recv(&r.b, 103, RBUF + 3 * 8192ull, 8192);
    snd(&r, 5, SNIC_OP_RC_SEND_ONLY, 3, 0, 10, 0xd0, 0);
    recv_cqe(&r, 103, 10, 0, 0);
    g_assert_false(sr_host_peek(&r.hb, &e));    /* the device's alone */
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    /* SSN 9 when 4 is next: NAK invalid request, nothing placed */
    node_post_recv(&r.b, 104, RBUF + 4 * 8192ull, 8192);
    wimm(&r, 6, SNIC_OP_RC_WRITE_ONLY_IMM, 9, 12288, 0, 100, 0x41, 0);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_NAK_INV_REQ);
    assert_buf(&r, 12288, 100, 0);
    resp_free(&r);
}

/*
 * A SEND Only (SSN 0, PSN e), a 3-packet WRITE with immediate (SSN 1,
 * e + 1 .. e + 3, into a receive WQE without buffers) and a SEND Only
 * with immediate (SSN 2, e + 4) arrive e + 2, e + 4, e + 3 (the WRITE's
 * Last before its First), e, e + 1: every packet lands where it belongs,
 * the WRITE's Last is reported to the host as the SENDs' are (flagged a
 * WRITE, its length the WRITE's), and the host's ePSN and RECV_DONEs
 * complete all three in order, the WRITE with RECV_RDMA_WITH_IMM.
 */
static void test_write_imm_ooo(void)
{
    struct snic_sr_ctrl e;
    struct snic_cqe c;
    SnicSrQp *s;
    Resp r;

    resp_init(&r, 6);
    s = snic_sr_qp(r.qb);
    memset(fake_ptr(r.b.h, BUF, 8192), 0, 8192);
    memset(fake_ptr(r.b.h, RBUF, 3 * 8192), 0, 3 * 8192);
    node_post_recv(&r.b, 100, RBUF, 8192);
    node_post_recv(&r.b, 101, RBUF + 8192, 0);
    node_post_recv(&r.b, 102, RBUF + 2 * 8192, 8192);
    wimm(&r, 2, SNIC_OP_RC_WRITE_MIDDLE, 1, 4096, 1024, 1024, 0xb2, 0);
    g_assert_true(s->resp_recovery);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 2), r.e);
    snd(&r, 4, SNIC_OP_RC_SEND_ONLY_IMM, 2, 0, 500, 0xc0, 0x1234);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 4), r.e);
    next_entry(&r, SNIC_SR_CTRL_RESP_RECV, psn_add(r.e, 4), r.e);
    wimm(&r, 3, SNIC_OP_RC_WRITE_LAST_IMM, 1, 4096, 2048, 700, 0xb3,
         0x5678);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 3), r.e);
    wimm_entry(&r, 3, r.e, 1, 2748, 0x5678);
    assert_buf(&r, 4096 + 1024, 1024, 0xb2);
    assert_buf(&r, 4096 + 2048, 700, 0xb3);
    assert_buf(&r, 4096, 1024, 0);
    g_assert_false(node_poll_cq(&r.b, &c));
    /* SSN 0 at ePSN: messages after it were told, so the host's too */
    snd(&r, 0, SNIC_OP_RC_SEND_ONLY, 0, 0, 1000, 0xa0, 0);
    next_entry(&r, SNIC_SR_CTRL_RESP, r.e, psn_add(r.e, 1));
    next_entry(&r, SNIC_SR_CTRL_RESP_RECV, r.e, psn_add(r.e, 1));
    wimm(&r, 1, SNIC_OP_RC_WRITE_FIRST, 1, 4096, 0, 1024, 0xb1, 0);
    /* e + 2 is in the host's bitmap only: its ePSN ends recovery */
    g_assert_true(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 2));
    g_assert_false(node_poll_cq(&r.b, &c));
    g_assert_true(sr_host_peek(&r.hb, &e));
    g_assert_cmpuint(e.type, ==, SNIC_SR_CTRL_RESP);
    g_assert_cmpuint(GUINT32_FROM_LE(e.psn), ==, psn_add(r.e, 1));
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 1);
    g_assert_cmpuint(r.hb.sw.recv_posted, ==, 3);
    fake_run(r.b.h);
    g_assert_false(s->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 5));
    next_entry(&r, SNIC_SR_CTRL_RESP_EXIT, psn_add(r.e, 5),
               psn_add(r.e, 5));
    recv_cqe(&r, 100, 1000, 0, 0);
    wimm_cqe(&r, 101, 2748, 0x5678);
    recv_cqe(&r, 102, 500, SNIC_WC_F_IMM, 0x1234);
    g_assert_false(node_poll_cq(&r.b, &c));
    assert_buf(&r, 4096, 1024, 0xb1);
    assert_buf(&r, 4096 + 1024, 1024, 0xb2);
    assert_buf(&r, 4096 + 2048, 700, 0xb3);
    assert_buf(&r, 4096 + 2748, 1, 0);
    assert_filled(&r, 0, 0, 1000, 0xa0);
    assert_filled(&r, 0, 1000, 1, 0);
    assert_filled(&r, 1, 0, 8192, 0);       /* nothing in the WRITE's */
    assert_filled(&r, 2, 0, 500, 0xc0);
    /* in order again, nothing owed: the device completes it alone */
    node_post_recv(&r.b, 103, RBUF + 3 * 8192ull, 8192);
    wimm(&r, 5, SNIC_OP_RC_WRITE_ONLY_IMM, 3, 0, 0, 64, 0xd1, 3);
    wimm_cqe(&r, 103, 64, 3);
    assert_buf(&r, 0, 64, 0xd1);
    g_assert_false(sr_host_peek(&r.hb, &e));
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 0);
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/*
 * On an SRQ a receive WQE cannot be picked by number: a WRITE with
 * immediate's Last ahead of ePSN draws a sequence NAK and is not placed;
 * at ePSN the engine takes the SRQ's WQE and places it at its address,
 * after its First and Middle placed by SRNIC.
 */
static void test_write_imm_srq(void)
{
    Node base;
    SnicPkt p;
    Resp r;

    node_init(&r.a, NULL, 1);
    node_init(&base, NULL, 2);
    node_create_srq(&base, 0);
    node_add_qp(&r.b, &base);
    g_assert_cmpuint(node_set_transport(&r.a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&r.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&r.hb, &r.b, NULL, 6, 4, 0);
    node_connect(&r.a, &r.b, SNIC_MTU_1024, 7, 7);
    node_connect(&r.b, &r.a, SNIC_MTU_1024, 7, 7);
    r.qb = snic_qp_get(r.b.h->core, r.b.qpn);
    r.e = r.qb->resp.epsn;
    memset(fake_ptr(r.b.h, BUF, 4096), 0, 4096);
    memset(fake_ptr(r.b.h, RBUF, 8192), 0, 8192);
    node_post_srq_recv(&base, 100, RBUF, 8192, r.b.lkey);
    wimm(&r, 0, SNIC_OP_RC_WRITE_FIRST, 0, 0, 0, 1024, 0x51, 0);
    wimm(&r, 2, SNIC_OP_RC_WRITE_LAST_IMM, 0, 0, 2048, 700, 0x53, 0x99);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_NAK_SEQ);
    assert_buf(&r, 2048, 700, 0);
    wimm(&r, 1, SNIC_OP_RC_WRITE_MIDDLE, 0, 0, 1024, 1024, 0x52, 0);
    wimm(&r, 2, SNIC_OP_RC_WRITE_LAST_IMM, 0, 0, 2048, 700, 0x53, 0x99);
    wimm_cqe(&r, 100, 2748, 0x99);
    assert_buf(&r, 0, 1024, 0x51);
    assert_buf(&r, 1024, 1024, 0x52);
    assert_buf(&r, 2048, 700, 0x53);
    assert_buf(&r, 2748, 1, 0);
    assert_filled(&r, 0, 0, 8192, 0);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 3));
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/*
 * b's QP on an SRQ (SRNIC's SENDs there run in order, held from the
 * device's pool of SRQ receives) with two receives of RBUF posted
 */
static void resp_init_srq(Resp *r, Node *base)
{
    node_init(&r->a, NULL, 1);
    node_init(base, NULL, 2);
    node_create_srq(base, 0);
    node_add_qp(&r->b, base);
    g_assert_cmpuint(node_set_transport(&r->a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&r->b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&r->hb, &r->b, NULL, 6, 4, 0);
    node_connect(&r->a, &r->b, SNIC_MTU_1024, 7, 7);
    node_connect(&r->b, &r->a, SNIC_MTU_1024, 7, 7);
    r->qb = snic_qp_get(r->b.h->core, r->b.qpn);
    r->e = r->qb->resp.epsn;
    memset(fake_ptr(r->b.h, RBUF, 2 * 8192), 0, 2 * 8192);
    node_post_srq_recv(base, 100, RBUF, 8192, r->b.lkey);
    node_post_srq_recv(base, 101, RBUF + 8192, 8192, r->b.lkey);
}

/* b's QP lets go of the receive it holds after (4.096 us << 8) * 8 */
#define SRQ_HOLD_NS         ((4096ull << 8) * 8)

/*
 * A sender that stopped after its SEND First no longer holds b's SRQ
 * pool entry for good under SRNIC either: after as long as it would
 * retry, the receive completes with REM_ABORT_ERR and the entry is free.
 * ePSN goes back to the message's First; the recovery a WRITE placed
 * beyond it began ends, and the host hears so (its bitmap must not move
 * ePSN past the message sent again). The late Last draws a sequence NAK
 * for the First, never a fatal one; the message sent again lands, and
 * the WRITE placed beyond, forgotten, is taken again in order.
 */
static void test_srq_dead_sender(void)
{
    uint32_t pool;
    struct snic_cqe c;
    SnicSrQp *s;
    Node base;
    SnicPkt p;
    Resp r;

    resp_init_srq(&r, &base);
    s = snic_sr_qp(r.qb);
    pool = r.b.h->core->recv_free_n;
    snd(&r, 0, SNIC_OP_RC_SEND_FIRST, 0, 0, 1024, 0x41, 0);
    g_assert_true(r.qb->resp.in_send);
    g_assert_cmpuint(r.b.h->core->recv_free_n, ==, pool - 1);
    wr(&r, 2, 0xa2);                    /* beyond the message: placed */
    g_assert_true(s->resp_recovery);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 2), psn_add(r.e, 1));
    fake_advance(r.b.h, SRQ_HOLD_NS - 1000);
    g_assert_false(node_poll_cq(&r.b, &c));     /* not yet */
    fake_advance(r.b.h, 2000);
    g_assert_true(node_poll_cq(&r.b, &c));
    g_assert_cmpuint(c.status, ==, SNIC_WC_REM_ABORT_ERR);
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 100);
    g_assert_cmpuint(r.b.h->core->recv_free_n, ==, pool);
    g_assert_cmpuint(r.qb->resp.epsn, ==, r.e);
    g_assert_false(s->resp_recovery);
    next_entry(&r, SNIC_SR_CTRL_RESP_EXIT, r.e, r.e);
    g_assert_false(r.hb.sw.r_active);

    /* its late Last: a sequence NAK for the First */
    snd(&r, 1, SNIC_OP_RC_SEND_LAST, 0, 1024, 500, 0x42, 0);
    last_ack(&r, &p);
    g_assert_cmpuint(p.aeth.syndrome, ==, SNIC_AETH_NAK_SEQ);
    g_assert_cmpuint(p.psn, ==, r.e);
    g_assert_false(r.qb->resp.fatal);
    /* sent again from its First, then the WRITE after it */
    snd(&r, 0, SNIC_OP_RC_SEND_FIRST, 0, 0, 1024, 0x51, 0);
    snd(&r, 1, SNIC_OP_RC_SEND_LAST, 0, 1024, 500, 0x52, 0);
    recv_cqe(&r, 101, 1524, 0, 0);
    assert_filled(&r, 1, 0, 1024, 0x51);
    assert_filled(&r, 1, 1024, 500, 0x52);
    wr(&r, 2, 0xa2);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 3));
    g_assert_false(sr_host_peek(&r.hb, &(struct snic_sr_ctrl){ 0 }));
    g_assert_cmpuint(r.b.h->core->recv_free_n, ==, pool);
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/* Under SRNIC too, a sender quiet for less than the hold keeps its SEND */
static void test_srq_paused_sender(void)
{
    struct snic_cqe c;
    Node base;
    Resp r;

    resp_init_srq(&r, &base);
    snd(&r, 0, SNIC_OP_RC_SEND_FIRST, 0, 0, 1024, 0x41, 0);
    fake_advance(r.b.h, SRQ_HOLD_NS * 3 / 4);
    snd(&r, 1, SNIC_OP_RC_SEND_MIDDLE, 0, 1024, 1024, 0x42, 0);
    fake_advance(r.b.h, SRQ_HOLD_NS * 3 / 4);   /* 1.5 holds in all */
    g_assert_false(node_poll_cq(&r.b, &c));
    snd(&r, 2, SNIC_OP_RC_SEND_LAST, 0, 2048, 100, 0x43, 0);
    recv_cqe(&r, 100, 2148, 0, 0);
    assert_filled(&r, 0, 1024, 1024, 0x42);
    g_assert_cmpuint(r.b.h->events[SNIC_TRACE_RESP_HOLD_EXPIRED], ==, 0);
    fake_advance(r.b.h, 2 * SRQ_HOLD_NS);
    g_assert_false(node_poll_cq(&r.b, &c));
    resp_free(&r);
}

/*
 * A WRITE with immediate's Last ahead of ePSN needs two CtrlQ slots (its
 * PSN, its completion): with one free it is dropped unplaced, a loss;
 * sent again once the host returned the slots, it is placed, and its
 * completion comes back through the host.
 */
static void test_write_imm_ctrlq_full(void)
{
    const uint64_t to = 64 * 1024;
    unsigned i;
    Resp r;

    resp_init(&r, SNIC_SR_CTRLQ_MIN_LOG2);
    memset(fake_ptr(r.b.h, BUF + to, 1024), 0, 1024);
    post_recvs(&r, 1);
    for (i = 2; i <= 16; i++) {
        wr(&r, i, 0x10 + i);
    }
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, 15);
    wimm(&r, 1, SNIC_OP_RC_WRITE_ONLY_IMM, 0, to, 0, 1024, 0x61, 0x42);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, 15);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_drops), ==, 1);
    assert_buf(&r, to, 1024, 0);                /* never placed */
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 15);
    wimm(&r, 1, SNIC_OP_RC_WRITE_ONLY_IMM, 0, to, 0, 1024, 0x61, 0x42);
    next_entry(&r, SNIC_SR_CTRL_RESP, psn_add(r.e, 1), r.e);
    wimm_entry(&r, 1, r.e, 0, 1024, 0x42);
    assert_buf(&r, to, 1024, 0x61);
    wr(&r, 0, 0x10);
    g_assert_false(snic_sr_qp(r.qb)->resp_recovery);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 17));
    g_assert_cmpuint(sr_host_poll(&r.hb), ==, 1);
    fake_run(r.b.h);
    wimm_cqe(&r, 100, 1024, 0x42);
    assert_filled(&r, 0, 0, 8192, 0);
    for (i = 0; i <= 16; i += i ? 1 : 2) {     /* e + 1 was the WRITE's */
        g_assert_cmpuint(at(&r, i), ==, 0x10 + i);
    }
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 0);
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

static void post_recv_done_flags(Resp *r, uint16_t ssn, uint32_t len,
                                 uint8_t flags, uint32_t data)
{
    struct snic_sr_retry_recv e = {
        .type = SNIC_SR_RETRY_RECV_DONE,
        .flags = flags,
        .ssn = GUINT16_TO_LE(ssn),
        .qpn = GUINT32_TO_LE(r->b.qpn),
        .byte_len = GUINT32_TO_LE(len),
        .data = GUINT32_TO_LE(data),
    };

    sr_host_post(&r->hb, (struct snic_sr_retry *)&e);
    fake_run(r->b.h);
}

/*
 * Hostile RECV_DONE entries with the WRITE flag are refused and complete
 * nothing: not the next SSN, a WRITE without its immediate, with an
 * R_Key to invalidate too, a length beyond IBA's 2^31, none owed; the
 * host's own complete the SEND and the WRITE in order.
 */
static void test_write_imm_recv_done_hostile(void)
{
    const uint8_t wf = SNIC_SR_RECV_F_WRITE | SNIC_SR_RECV_F_IMM;
    struct snic_cqe c;
    Resp r;

    resp_init(&r, 6);
    memset(fake_ptr(r.b.h, BUF, 4096), 0, 4096);
    post_recvs(&r, 2);
    post_recv_done_flags(&r, 0, 0, wf, 0);      /* nothing reported yet */
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 1);
    wimm(&r, 1, SNIC_OP_RC_WRITE_ONLY_IMM, 1, 0, 0, 1024, 0xe1, 0x77);
    snd(&r, 0, SNIC_OP_RC_SEND_ONLY, 0, 0, 1024, 0xe0, 0);
    g_assert_cmpuint(r.qb->resp.epsn, ==, psn_add(r.e, 2));
    g_assert_false(node_poll_cq(&r.b, &c));     /* both the host's */
    post_recv_done_flags(&r, 1, 1024, wf, 0x77);    /* not the next */
    post_recv_done_flags(&r, 0, 1024, SNIC_SR_RECV_F_WRITE, 0);
    post_recv_done_flags(&r, 0, 1024, wf | SNIC_SR_RECV_F_INV, 0);
    post_recv_done_flags(&r, 0, (1u << 31) + 1, wf, 0);
    post_recv_done_flags(&r, 0, 8193, 0, 0);    /* a SEND's: beyond it */
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 6);
    g_assert_false(node_poll_cq(&r.b, &c));
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    sr_host_poll(&r.hb);
    fake_run(r.b.h);
    recv_cqe(&r, 100, 1024, 0, 0);
    wimm_cqe(&r, 101, 1024, 0x77);
    assert_filled(&r, 0, 0, 1024, 0xe0);
    assert_filled(&r, 1, 0, 8192, 0);
    assert_buf(&r, 0, 1024, 0xe1);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 6);
    /* given back once only: again, it is refused */
    post_recv_done_flags(&r, 1, 1024, wf, 0x77);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_retry_refused), ==, 7);
    g_assert_false(node_poll_cq(&r.b, &c));
    resp_free(&r);
}

/*
 * The device keeps no record of the SEND completions it left to the
 * host: while one is owed, removing the CtrlQ (which the host needs to
 * learn when ePSN passes them) is refused and changes nothing; once the
 * host gave them back, the CtrlQ may go.
 */
static void test_ctrlq_removed_send(void)
{
    Resp r;

    resp_init(&r, 6);
    post_recvs(&r, 2);
    snd(&r, 1, SNIC_OP_RC_SEND_ONLY, 1, 0, 1024, 0x41, 0);
    g_assert_cmpuint(remove_ctrlq(&r.b), ==, SNIC_ADMIN_BAD_STATE);
    g_assert_true(snic_sr_qp(r.qb)->resp_recovery);
    snd(&r, 0, SNIC_OP_RC_SEND_ONLY, 0, 0, 1024, 0x40, 0);
    g_assert_false(snic_sr_qp(r.qb)->resp_recovery);
    g_assert_cmpuint(remove_ctrlq(&r.b), ==, SNIC_ADMIN_BAD_STATE);
    sr_host_poll(&r.hb);
    fake_run(r.b.h);
    recv_cqe(&r, 100, 1024, 0, 0);
    recv_cqe(&r, 101, 1024, 0, 0);
    assert_filled(&r, 0, 0, 1024, 0x40);
    assert_filled(&r, 1, 0, 1024, 0x41);
    g_assert_cmpuint(remove_ctrlq(&r.b), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(r.qb->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/*
 * A peer numbering a SEND SNIC_SR_SPAN messages or more past the RQ's
 * head (an RQ of 1024, 600 receives posted, 500 completions already
 * with the host: white box) is refused, nothing placed, nothing told the
 * host, whose table holds SNIC_SR_SPAN of them (before: placed and
 * reported, a completion the host could not keep); one within it is
 * taken.
 */
static void test_send_ssn_past_host_table(void)
{
    uint64_t dropped;
    uint32_t ce, k;
    SnicSrQp *s;
    SnicQp *qc;
    Node c, d;
    Resp r;

    node_init(&r.a, NULL, 1);
    node_init(&r.b, NULL, 2);
    node_add_qp(&d, &r.a);
    node_add_qp_rq(&c, &r.b, 10);
    g_assert_cmpuint(node_set_transport(&r.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&c, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&d, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&r.hb, &r.b, NULL, 6, 4, 0);
    node_connect(&d, &c, SNIC_MTU_1024, 7, 7);
    node_connect(&c, &d, SNIC_MTU_1024, 7, 7);
    qc = snic_qp_get(r.b.h->core, c.qpn);
    s = snic_sr_qp(qc);
    ce = qc->resp.epsn;
    memset(fake_ptr(r.b.h, BUF, 0x100000), 0, 0x100000);
    for (k = 0; k < 600; k++) {
        node_post_recv(&c, k, BUF + k * 1024ull, 1024);
    }
    s->recv_told = s->msg.resp + 500;
    dropped = FAKE_STAT(r.b.h, rdma_rx_dropped);
    snd_qp(&d, &c, psn_add(ce, 30), SNIC_OP_RC_SEND_ONLY,
           s->msg.resp + SNIC_SR_SPAN + 8, 0, 1024, 0xab, 0);
    g_assert_cmpuint(FAKE_STAT(r.b.h, rdma_rx_dropped), ==, dropped + 1);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, 0);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(r.b.h, BUF + 520 * 1024ull, 1),
                     ==, 0);
    g_assert_false(s->resp_recovery);
    /* within the span: placed, reported (its placement and completion) */
    snd_qp(&d, &c, psn_add(ce, 31), SNIC_OP_RC_SEND_ONLY,
           s->msg.resp + 505, 0, 1024, 0xcd, 0);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_ctrlq_entries), ==, 2);
    g_assert_cmpuint(*(uint8_t *)fake_ptr(r.b.h, BUF + 505 * 1024ull, 1),
                     ==, 0xcd);
    g_assert_cmpuint(qc->state, ==, SNIC_QPS_RTS);
    resp_free(&r);
}

/* ---- the requester, fed by hand ---- */

typedef struct Req {
    Node a, b;
    SrHost ha;
    SnicQp *qa;
    uint32_t psn0;          /* a's first PSN */
    unsigned seen;          /* a's frames looked at */
} Req;

/*
 * a, running 'program' with a window (SET_QP_SR), sends 'bytes' in one
 * WRITE to b, which is never reached
 */
static void req_init_program(Req *q, uint8_t program, uint16_t window,
                             uint32_t bytes)
{
    node_init(&q->a, NULL, 1);
    node_init(&q->b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&q->a, program, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&q->b, program, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&q->ha, &q->a, NULL, 6, 2, window);
    node_connect(&q->a, &q->b, SNIC_MTU_1024, 7, 7);
    node_connect(&q->b, &q->a, SNIC_MTU_1024, 7, 7);
    q->qa = snic_qp_get(q->a.h->core, q->a.qpn);
    q->psn0 = q->qa->req.next_psn;
    node_fill(&q->a, BUF, bytes, 5);
    node_post_send(&q->a, 1, SNIC_WR_RDMA_WRITE, BUF, bytes, BUF, q->b.lkey,
                   0, q->a.lkey);
    fake_run(q->a.h);
    q->seen = 0;
}

/* a sends 8 KiB (8 packets) to b, which is never reached */
static void req_init(Req *q)
{
    req_init_program(q, SNIC_TRANSPORT_SRNIC, 0, 8192);
    g_assert_cmpuint(snic_transport_outstanding(q->qa), ==, 8);
    q->seen = q->a.h->frames->len;
}

/*
 * b's ACK for psn0 + cum with the block [psn0 + lo, psn0 + hi); ece: it
 * echoes 'ce' CE-marked packets (SNIC_PROG_ECE programs)
 */
static void ack_with(Req *q, uint32_t cum, uint32_t lo, uint32_t hi,
                     bool ece, uint32_t ce)
{
    uint8_t frame[256];
    SnicPkt p;
    size_t n;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(q->b.h->core, snic_qp_get(q->b.h->core, q->b.qpn),
                        &p);
    p.opcode = SNIC_OP_RC_ACK;
    p.psn = psn_add(q->psn0, cum);
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.xport = true;
    if (ece) {
        p.xeth.flags = SNIC_XETH_F_ECE;
        p.xeth.offset = ce;
    }
    if (lo != hi) {
        p.xeth.flags |= SNIC_XETH_F_SACK;
        p.xeth.sack_lo = psn_add(q->psn0, lo);
        p.xeth.sack_hi = psn_add(q->psn0, hi);
    }
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&q->a, frame, n);
    fake_run(q->a.h);
}

static void ack(Req *q, uint32_t cum, uint32_t lo, uint32_t hi)
{
    ack_with(q, cum, lo, hi, false, 0);
}

static void ack_ece(Req *q, uint32_t cum, uint32_t lo, uint32_t hi,
                    uint32_t ce)
{
    ack_with(q, cum, lo, hi, true, ce);
}

/* PSNs (from psn0) of a's data frames since the last call, in a bitmask */
static uint32_t sent_since(Req *q)
{
    uint32_t m = 0;
    SnicPkt p;

    for (; q->seen < q->a.h->frames->len; q->seen++) {
        GByteArray *f = g_ptr_array_index(q->a.h->frames, q->seen);

        g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==,
                        SNIC_PARSE_OK);
        if (p.opcode != SNIC_OP_RC_ACK) {
            m |= 1u << ((p.psn - q->psn0) & SNIC_PSN_MASK);
        }
    }
    return m;
}

/* the host takes the CtrlQ's entries; the device runs what it posted */
static unsigned req_poll(Req *q)
{
    unsigned n = sr_host_poll(&q->ha);

    fake_run(q->a.h);
    return n;
}

static void post(Req *q, uint8_t type, uint32_t qpn, uint32_t from,
                 uint32_t to)
{
    struct snic_sr_retry e = {
        .type = type,
        .qpn = GUINT32_TO_LE(qpn),
        .psn_from = GUINT32_TO_LE(psn_add(q->psn0, from)),
        .psn_to = GUINT32_TO_LE(psn_add(q->psn0, to)),
    };

    sr_host_post(&q->ha, &e);
    fake_run(q->a.h);
}

/*
 * The host's decision (packets 1 and 4 lost: holes resent once each),
 * hostile entries refused as guest errors with no effect, a stale one
 * skipped quietly, a RetryQ overflow refused at the doorbell, a destroyed
 * QP's number refused.
 */
static void test_req_retryq(void)
{
    uint64_t ge;
    Node c;
    Req q;

    req_init(&q);
    /* cumulative up to 0; SACKs 2-3, then 5-7: 1 and 4 are holes */
    ack(&q, 0, 2, 4);
    g_assert_true(snic_sr_qp(q.qa)->req_recovery);
    ack(&q, 0, 5, 8);
    g_assert_cmpuint(req_poll(&q), ==, 2);
    g_assert_cmpuint(q.ha.sw.rtx_posted, ==, 2);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 1 | 1u << 4);
    ge = FAKE_STAT(q.a.h, guest_errors);
    /* outside the window (never sent), reversed, another QP's number */
    post(&q, SNIC_SR_RETRY_RTX, q.a.qpn, 8, 9);
    post(&q, SNIC_SR_RETRY_RTX, q.a.qpn, 3, 2);
    post(&q, SNIC_SR_RETRY_RTX, q.a.qpn + 1, 2, 3);
    post(&q, 7, q.a.qpn, 2, 3);
    /* its responder is not in recovery: no ePSN to move */
    post(&q, SNIC_SR_RETRY_EPSN, q.a.qpn, 3, 0);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_refused), ==, 5);
    g_assert_cmpuint(FAKE_STAT(q.a.h, guest_errors), ==, ge + 5);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    /* acknowledged meanwhile: skipped, not an error */
    ack(&q, 2, 5, 8);
    post(&q, SNIC_SR_RETRY_RTX, q.a.qpn, 1, 2);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_refused), ==, 5);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_stale), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    /* more than the ring holds: the doorbell is refused */
    fake_doorbell(q.a.h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_RETRYQ, q.a.qpn,
                  q.ha.retry_pi + 5);
    g_assert_cmpuint(FAKE_STAT(q.a.h, doorbells_invalid), ==, 1);
    /* an index past 16 bits: refused, not cut to its low half */
    fake_doorbell(q.a.h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_RETRYQ, q.a.qpn,
                  q.ha.retry_pi + 0x10000);
    g_assert_cmpuint(FAKE_STAT(q.a.h, doorbells_invalid), ==, 2);
    /* a destroyed QP: its number names no ring, nor another QP's */
    node_add_qp(&c, &q.a);
    g_assert_cmpuint(fake_obj_cmd(q.a.h, SNIC_ADMIN_DESTROY_QP, c.qpn), ==,
                     SNIC_ADMIN_OK);
    fake_doorbell(q.a.h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_RETRYQ, c.qpn, 1);
    g_assert_cmpuint(FAKE_STAT(q.a.h, doorbells_invalid), ==, 3);
    post(&q, SNIC_SR_RETRY_RTX, c.qpn, 4, 5);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_refused), ==, 6);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    /* what is left ends recovery and completes */
    ack(&q, 7, 0, 0);
    g_assert_false(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(req_poll(&q), >=, 1);
    g_assert_false(q.ha.sw.q_active);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * The window counts what is in flight, not what lies beyond lACK: SACKed
 * PSNs let new ones go while a hole is repaired, so a window of one BDP
 * keeps the link busy through a loss. It errs low, never high: a
 * duplicate or reordered ACK opens nothing, and a cumulative ACK takes
 * away every PSN it covers, including the ones it covers as the host's
 * ePSN move over SACKed PSNs (not a repaired hole). W = 4 here; at
 * every step no more than 4 PSNs are neither acknowledged nor SACKed.
 */
static void test_req_window_in_flight(void)
{
    Req q;

    req_init_program(&q, SNIC_TRANSPORT_SRNIC, 4, 16384);
    g_assert_cmpuint(sent_since(&q), ==, 0xf);
    ack(&q, -1, 1, 2);                  /* 0 lost: recovery, 1 SACKed */
    g_assert_true(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 4);
    ack(&q, -1, 1, 3);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 5);
    ack(&q, -1, 1, 3);                  /* a duplicate */
    ack(&q, -1, 1, 2);                  /* an older ACK, late */
    g_assert_cmpuint(sent_since(&q), ==, 0);
    ack(&q, -1, 1, 4);                  /* in flight: 0, 4, 5, 6 */
    g_assert_cmpuint(sent_since(&q), ==, 1u << 6);
    g_assert_cmpuint(req_poll(&q), ==, 5);              /* five ACKs */
    g_assert_cmpuint(sent_since(&q), ==, 1u << 0);      /* the hole */
    /* 0 repaired (ePSN 4), 4 lost, 5 here: in flight 4, 6, 7, 8 */
    ack(&q, 3, 5, 6);
    g_assert_true(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 7 | 1u << 8);
    /* 6 lost, 7 here (a new run): in flight 4, 6, 8, 9 */
    ack(&q, 3, 7, 8);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 9);
    /* 4 repaired: lACK 5 (5 and 7 SACKed; counted 1: errs low) */
    ack(&q, 4, 7, 8);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    /* the host's ePSN passes 5: lACK 6, in flight 6, 8, 9 */
    ack(&q, 5, 7, 8);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    /* everything up to 9: out of recovery, W from lACK again */
    ack(&q, 9, 0, 0);
    g_assert_false(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(sent_since(&q), ==, 0xfu << 10);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * SRNIC with DCTCP's window (SNIC_TRANSPORT_SRNIC_DCTCP, SRNIC section
 * 5): slow start from 10 segments, echoed CE marks cut the window by
 * alpha / 2 once a round trip, a loss in the same round trip does not cut
 * again, and SACKed PSNs still count out of it; a later loss halves it.
 */
static void test_req_dctcp(void)
{
    Req q;

    req_init_program(&q, SNIC_TRANSPORT_SRNIC_DCTCP, 0, 65536);
    g_assert_cmpuint(sent_since(&q), ==, 0x3ff);        /* IW 10 */
    ack_ece(&q, 9, 0, 0, 0);
    g_assert_cmpuint(q.qa->req.credit.window, ==, 20);  /* slow start */
    g_assert_cmpuint(sent_since(&q), ==, 0xfffffu << 10);
    /* 5 of 10 marked: alpha 59648/65536, 20 x (1 - alpha / 2) */
    ack_ece(&q, 19, 0, 0, 5);
    g_assert_cmpuint(q.qa->req.credit.window, ==, 10);
    g_assert_cmpuint(sent_since(&q), ==, 0);            /* 10 out */
    /* the same count again: no new marks, congestion avoidance */
    ack_ece(&q, 20, 0, 0, 5);
    g_assert_cmpuint(q.qa->req.credit.window, ==, 10);
    /* 21 lost, 22 SACKed: recovery, no second cut this round trip */
    ack_ece(&q, 20, 22, 23, 5);
    g_assert_true(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(q.qa->req.credit.window, ==, 11);  /* 10 + 1 SACKed */
    /* repaired past the cut's round trip; then 31 lost: halved */
    ack_ece(&q, 30, 0, 0, 5);
    g_assert_false(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(q.qa->req.credit.window, ==, 10);  /* held */
    ack_ece(&q, 30, 32, 33, 5);
    g_assert_cmpuint(q.qa->req.credit.window, ==, 5 + 1);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * A retransmission lost too: the timer expires, the device goes back N
 * from lACK and tells the host (SNIC_SR_CTRL_REQ_RTO), which forgets the
 * recovery; a later SACK starts a new one and the hole goes once more.
 */
static void test_req_lost_retransmission(void)
{
    Req q;

    req_init(&q);
    ack(&q, 0, 2, 8);
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 1);     /* lost again */
    fake_advance(q.a.h, 4096ull << 7);                  /* > timeout 14 */
    fake_advance(q.a.h, 4096ull << 14);
    fake_run(q.a.h);
    g_assert_false(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(sent_since(&q) & 0xfe, ==, 0xfe);  /* back N from 1 */
    g_assert_cmpuint(req_poll(&q), ==, 1);       /* the RTO entry */
    g_assert_false(q.ha.sw.q_active);
    ack(&q, 0, 3, 8);
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 1 | 1u << 2);
    ack(&q, 7, 0, 0);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    g_assert_cmpuint(q.qa->sq_comp, ==, 1);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * The host's resends race the device's own exit from recovery: it
 * decided holes 1 and 4 from the SACKs, and before its entries reach the
 * device the timer expired (the device went back N and left recovery;
 * the host has not read that yet). The entries are stale, not hostile:
 * skipped quietly, nothing sent again. After the exit a range never sent
 * and one more than half the PSN space behind are still refused; one
 * acknowledged long ago (beyond the window) is stale.
 */
static void test_req_rtx_after_exit(void)
{
    Req q;

    req_init(&q);
    ack(&q, 0, 2, 4);
    ack(&q, 0, 5, 8);
    g_assert_cmpuint(sr_host_take(&q.ha), ==, 2);
    g_assert_cmpuint(q.ha.nout, ==, 2);         /* [1, 2), [4, 5) */
    fake_advance(q.a.h, 4096ull << 7);
    fake_advance(q.a.h, 4096ull << 14);
    fake_run(q.a.h);
    g_assert_false(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(sent_since(&q) & 0xfe, ==, 0xfe);  /* back N from 1 */
    sr_host_commit(&q.ha);
    fake_run(q.a.h);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_refused), ==, 0);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_stale), ==, 2);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    /* out of recovery: never sent, or too far behind, is still hostile */
    post(&q, SNIC_SR_RETRY_RTX, q.a.qpn, 7, 9);
    post(&q, SNIC_SR_RETRY_RTX, q.a.qpn, -(1 << 23) - 2, -(1 << 23));
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_refused), ==, 2);
    post(&q, SNIC_SR_RETRY_RTX, q.a.qpn, -1000, -999);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_stale), ==, 3);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    g_assert_cmpuint(req_poll(&q), ==, 1);      /* the RTO entry */
    g_assert_false(q.ha.sw.q_active);
    ack(&q, 7, 0, 0);
    g_assert_cmpuint(q.qa->sq_comp, ==, 1);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * Data sent during recovery is lost too: the cumulative ACK passes the
 * recovery point while it still SACKs PSNs above a new hole. The device
 * stays in recovery (a new point), so the host's entry for that hole,
 * decided from SACKs it holds, is taken, not refused as a guest error.
 */
static void test_req_loss_past_recovery_point(void)
{
    Req q;

    req_init(&q);
    ack(&q, 0, 2, 8);                   /* 1 lost; recovery to PSN 7 */
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 1);
    node_post_send(&q.a, 2, SNIC_WR_RDMA_WRITE, BUF, 8192, BUF, q.b.lkey,
                   0, q.a.lkey);
    fake_run(q.a.h);
    g_assert_cmpuint(sent_since(&q), ==, 0xff00);      /* PSNs 8-15 */
    /* all up to 9 in; 10 lost, 11-13 here: past the point, a block */
    ack(&q, 9, 11, 14);
    g_assert_true(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(q.ha.sw.rtx_posted, ==, 2);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_refused), ==, 0);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 10);
    /* the rest: out of recovery, both WRITEs complete */
    ack(&q, 15, 0, 0);
    g_assert_false(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(q.qa->sq_comp, ==, 2);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * The retransmission of the first hole is lost: once three PSNs sent
 * after it are SACKed while lACK stays, the host sends it again (before
 * the timeout); two are not enough. A hole whose PSN the responder holds
 * already (SACKed, its host not having moved ePSN yet) is not sent.
 */
static void test_req_lost_retransmission_again(void)
{
    Req q;

    req_init(&q);
    ack(&q, 0, 2, 8);                   /* 1 lost */
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 1);     /* lost again */
    node_post_send(&q.a, 2, SNIC_WR_RDMA_WRITE, BUF, 8192, BUF, q.b.lkey,
                   0, q.a.lkey);
    fake_run(q.a.h);
    g_assert_cmpuint(sent_since(&q), ==, 0xff00);      /* after it */
    ack(&q, 0, 2, 10);                  /* 8, 9: two after it */
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    ack(&q, 0, 2, 11);                  /* a third: 1 is lost again */
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 1);
    g_assert_cmpuint(q.ha.sw.rtx_again, ==, 1);
    /* 1 arrives; ePSN at 2, which is here already: nothing to send */
    ack(&q, 1, 2, 12);
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_refused), ==, 0);
    ack(&q, 15, 0, 0);
    g_assert_cmpuint(q.qa->sq_comp, ==, 2);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * Which PSNs were sent after a retransmission is known per hole: a later
 * hole resent meanwhile does not hide that the first one's retransmission
 * was lost.
 */
static void test_req_lost_retransmission_per_hole(void)
{
    Req q;

    req_init(&q);
    ack(&q, 0, 2, 5);                   /* 1 lost, resent (PSNs 0-7 out) */
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 1);     /* lost again */
    node_post_send(&q.a, 2, SNIC_WR_RDMA_WRITE, BUF, 8192, BUF, q.b.lkey,
                   0, q.a.lkey);
    fake_run(q.a.h);
    g_assert_cmpuint(sent_since(&q), ==, 0xff00);
    ack(&q, 0, 6, 9);                   /* 5 lost, resent (0-15 out) */
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 5);
    ack(&q, 0, 9, 11);                  /* 8-10: sent after 1's copy */
    g_assert_cmpuint(req_poll(&q), ==, 1);
    g_assert_cmpuint(sent_since(&q), ==, 1u << 1);
    g_assert_cmpuint(q.ha.sw.rtx_again, ==, 1);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_retry_refused), ==, 0);
    ack(&q, 15, 0, 0);
    g_assert_cmpuint(q.qa->sq_comp, ==, 2);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * The CtrlQ removed while the requester is in recovery: no host decides
 * its resends any more, so it goes back N from lACK at once, as on its
 * timeout, and the rest completes by the cumulative ACK.
 */
static void test_ctrlq_removed_req(void)
{
    Req q;

    req_init(&q);
    ack(&q, 0, 2, 4);
    g_assert_true(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(sent_since(&q), ==, 0);
    g_assert_cmpuint(remove_ctrlq(&q.a), ==, SNIC_ADMIN_OK);
    g_assert_false(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(sent_since(&q) & 0xfe, ==, 0xfe);  /* back N from 1 */
    ack(&q, 7, 0, 0);
    g_assert_cmpuint(q.qa->sq_comp, ==, 1);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/* ---- 64 KiB WRITEs over a lossy, reordering wire ---- */

/*
 * SEND packets carry their SSN (SRNIC section 4.4.1): the count of the
 * messages before them that take a receive WQE (WRITE with Immediate
 * included, which carries its own number too), and their offset; the
 * counters live in SRNIC's state.
 */
static void test_req_ssn(void)
{
    static const uint8_t ops[] = {
        SNIC_WR_SEND, SNIC_WR_RDMA_WRITE_IMM, SNIC_WR_RDMA_WRITE,
        SNIC_WR_SEND_IMM, SNIC_WR_SEND,
    };
    static const uint32_t ssn[] = { 0, 1, 0, 2, 3 };
    SnicPkt p;
    unsigned i, k = 0;
    Req q;

    req_init(&q);
    ack(&q, 7, 0, 0);               /* the 8 KiB WRITE completes */
    for (i = 0; i < G_N_ELEMENTS(ops); i++) {
        node_post_send(&q.a, 10 + i, ops[i], BUF, 2048, BUF, q.b.lkey, 0,
                       q.a.lkey);
    }
    fake_run(q.a.h);
    g_assert_cmpuint(snic_sr_qp(q.qa)->msg.req_head, ==, 4);
    for (; q.seen < q.a.h->frames->len; q.seen++) {
        GByteArray *f = g_ptr_array_index(q.a.h->frames, q.seen);

        g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==,
                        SNIC_PARSE_OK);
        if (p.opcode == SNIC_OP_RC_ACK) {
            continue;
        }
        g_assert_true(p.xport);
        i = k++ / 2;                /* 2 KiB: two packets a message */
        g_assert_cmpuint(p.xeth.msg, ==, ssn[i]);
        if (ops[i] != SNIC_WR_RDMA_WRITE) {     /* WRITE_IMM: a number too */
            g_assert_true(p.xeth.flags & SNIC_XETH_F_MSG);
            g_assert_cmpuint(p.xeth.offset, ==, (k - 1) % 2 * 1024);
        }
    }
    g_assert_cmpuint(k, ==, 2 * G_N_ELEMENTS(ops));
    /* the requester's oldest: completed messages counted */
    g_assert_cmpuint(snic_sr_qp(q.qa)->msg.req_comp, ==, 0);
    ack(&q, 8 + 5, 0, 0);           /* three messages: two take a WQE */
    g_assert_cmpuint(snic_sr_qp(q.qa)->msg.req_comp, ==, 2);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

static unsigned writes_per_run(void)
{
    const char *env = g_getenv("SNIC_TRANSPORT_WRITES");

    return env ? MAX(g_ascii_strtoull(env, NULL, 0), 1) : 48;
}

/*
 * WRITEs (or SENDs, 'send') of 64 KiB (16 KiB) from a to b over a wire
 * losing and reordering 'loss' of its packets, the host software
 * interrupt-driven on both: every WR completes, in order, and every byte
 * of its target (receive buffer, zeroed before each use) is checked.
 * 'mix': every other SEND is an RDMA WRITE with immediate (its bytes to
 * a target of its own, its immediate its WR's number), which takes its
 * receive WQE in turn: b's completions come in post order, each of its
 * kind, and the WRITE's receive buffer stays untouched.
 */
static void lossy_run(unsigned pct, bool send, bool mix, uint8_t program,
                      bool small)
{
    double loss = pct / 100.0;
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 5000,
        .loss = loss, .reorder = loss, .reorder_ns = 3000,
        .eth_framing = true,
    };
    SnicSim *sim = snic_sim_new(77 + pct + (send ? 1000 : 0) +
                                (mix ? 2000 : 0));
    /*
     * as many bytes either way; small: one-packet SENDs 200 deep, so
     * hundreds of completions wait for the host behind a hole
     */
    const unsigned n = writes_per_run() * (small ? 42 : send ? 4 : 1);
    const unsigned len = small ? 4096 : send ? 16384 : 65536;
    const unsigned depth = small ? 200 : 16, slots = small ? 250 : 32;
    const uint64_t dst = BUF + 0x200000, wdst = BUF + 0x300000;
    unsigned posted = 0, done = 0, recvs = 0, got = 0, wimms = 0;
    const SnicSimLinkStats *st;
    SrHost ha, hb;
    struct snic_cqe c;
    Node a, b;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    g_assert_cmpuint(node_set_transport(&a, program, 0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&b, program, 0), ==, SNIC_ADMIN_OK);
    /* RetryQs as snic.ko's: room for all the host may decide at once */
    sr_host_init(&ha, &a, sim, 10, 12, 0);
    sr_host_init(&hb, &b, sim, 10, 12, 0);
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_4096, 7, 7);
    node_fill(&a, BUF, 2 * 1024 * 1024, 9);
    while (done < n || (send && got < n)) {
        /* b's receive buffers, zeroed, ahead of the SENDs */
        while (send && recvs < n && recvs - got < slots) {
            uint64_t off = (uint64_t)(recvs % slots) * len;

            memset(fake_ptr(b.h, dst + off, len), 0, len);
            node_post_recv(&b, recvs, dst + off, len);
            recvs++;
        }
        while (posted < n && posted - done < depth) {
            uint64_t off = (uint64_t)(posted % slots) * len;
            bool imm = mix && posted % 2;

            if (!send || imm) {
                memset(fake_ptr(b.h, (imm ? wdst : dst) + off, len), 0,
                       len);
            }
            node_post_send(&a, posted, imm ? SNIC_WR_RDMA_WRITE_IMM :
                           send ? SNIC_WR_SEND : SNIC_WR_RDMA_WRITE,
                           BUF + off, len, (imm ? wdst : dst) + off,
                           b.lkey, imm ? 0x1000000 + posted : 0, a.lkey);
            posted++;
        }
        snic_sim_run(sim, 1000000);
        while (node_poll_cq(&a, &c)) {
            uint64_t off = (uint64_t)(done % slots) * len;

            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, done);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            if (!send) {
                g_assert_cmpmem(fake_ptr(b.h, dst + off, len), len,
                                fake_ptr(a.h, BUF + off, len), len);
            }
            done++;
        }
        while (send && node_poll_cq(&b, &c)) {
            uint64_t off = (uint64_t)(got % slots) * len;
            bool imm = mix && got % 2;

            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, got);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            g_assert_cmpuint(c.opcode, ==, imm ? SNIC_WC_RECV_RDMA_WITH_IMM :
                             SNIC_WC_RECV);
            g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, len);
            g_assert_cmpmem(fake_ptr(b.h, (imm ? wdst : dst) + off, len),
                            len, fake_ptr(a.h, BUF + off, len), len);
            if (imm) {
                const uint8_t *rb = fake_ptr(b.h, dst + off, len);
                unsigned i;

                g_assert_cmpuint(c.wc_flags, ==, SNIC_WC_F_IMM);
                g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==,
                                 0x1000000 + got);
                for (i = 0; i < len; i++) {
                    g_assert_cmpuint(rb[i], ==, 0);
                }
                wimms++;
            }
            got++;
        }
        g_assert_cmpuint(snic_sim_now(sim), <, 100000000000ull);
    }
    st = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep);
    g_assert_cmpuint(st->lost, >, 0);
    /* recovery went through the host: reports, ePSNs, ranges resent */
    g_assert_cmpuint(hb.entries, >, 0);
    g_assert_cmpuint(hb.sw.epsn_posted, >, 0);
    g_assert_cmpuint(ha.sw.rtx_posted, >, 0);
    if (send) {
        /* SENDs completed by the host's word: some were out of order */
        g_assert_cmpuint(hb.sw.recv_posted, >, 0);
    }
    g_assert_cmpuint(wimms, ==, mix ? n / 2 : 0);
    if (mix) {
        /* WRITEs with immediate completed by the host's word too */
        g_assert_cmpuint(hb.write_imms, >, 0);
    }
    g_assert_cmpuint(FAKE_STAT(a.h, sr_retry_refused) +
                     FAKE_STAT(b.h, sr_retry_refused), ==, 0);
    g_test_message("SR-LOSS op=%s loss=%.2f wrs=%u sent=%" G_GUINT64_FORMAT
                   " lost=%" G_GUINT64_FORMAT " ctrlq_entries=%" G_GUINT64_FORMAT
                   " epsn_posted=%u rtx_posted=%u recv_posted=%u"
                   " write_imm_recvs=%" G_GUINT64_FORMAT
                   " rtx_segments=%u time_ns=%" G_GUINT64_FORMAT,
                   mix ? "send+write_imm" : send ? "send" : "write", loss,
                   n, st->sent, st->lost,
                   ha.entries + hb.entries, hb.sw.epsn_posted,
                   ha.sw.rtx_posted, hb.sw.recv_posted, hb.write_imms,
                   snic_qp_get(a.h->core, a.qpn)->rtx_segments,
                   snic_sim_now(sim));
    sr_host_free(&ha);
    sr_host_free(&hb);
    node_pair_free(sim, &a, &b);
}

static void test_lossy(gconstpointer data)
{
    lossy_run(GPOINTER_TO_UINT(data), false, false, SNIC_TRANSPORT_SRNIC,
              false);
}

/* DCTCP's window: loss halves it (RFC 8257 3.5), SRNIC repairs it */
static void test_lossy_dctcp(gconstpointer data)
{
    lossy_run(GPOINTER_TO_UINT(data), false, false,
              SNIC_TRANSPORT_SRNIC_DCTCP, false);
}

static void test_lossy_send(gconstpointer data)
{
    lossy_run(GPOINTER_TO_UINT(data), true, false, SNIC_TRANSPORT_SRNIC,
              false);
}

/*
 * One-packet SENDs 200 deep: a hole leaves hundreds of completions to
 * the host, more than one chunk of its decisions (the test host posted
 * the first 64 and left the rest for an entry that never came: the
 * receives stopped, the sender's retries ran out)
 */
static void test_lossy_send_small(gconstpointer data)
{
    lossy_run(GPOINTER_TO_UINT(data), true, false, SNIC_TRANSPORT_SRNIC,
              true);
}

static void test_lossy_write_imm(gconstpointer data)
{
    lossy_run(GPOINTER_TO_UINT(data), true, true, SNIC_TRANSPORT_SRNIC,
              false);
}

/*
 * b's READ response for a's psn0 + i, echoing request psn0 + req, off;
 * of the READ that is a's first WQE, reading from b's BUF
 */
static void read_resp(Req *q, uint32_t i, uint32_t req, uint32_t off,
                      uint32_t len, bool xport)
{
    uint8_t frame[2048];
    SnicPkt p;
    size_t n;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(q->b.h->core, snic_qp_get(q->b.h->core, q->b.qpn),
                        &p);
    p.opcode = SNIC_OP_RC_READ_RESP_MIDDLE;
    p.psn = psn_add(q->psn0, i);
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.payload = fake_ptr(q->b.h, BUF + i * 1024ull, len);
    p.payload_len = len;
    p.xport = xport;
    p.xeth.flags = SNIC_XETH_F_RESP;
    p.xeth.sq_index = 0;
    p.xeth.va = BUF + i * 1024ull;
    p.xeth.msg = psn_add(q->psn0, req);
    p.xeth.offset = off;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&q->a, frame, n);
    fake_run(q->a.h);
}

/*
 * SRNIC 4.4.1's READ responses (sr_read.c): a response ahead of lACK is
 * placed at its final address and reported; malformed or hostile ones (a
 * PSN offset that does not lead to the response, a request outside the
 * READ, a WRITE's PSN, a short payload, no extension) are dropped and
 * counted, with nothing written; lACK jumps the placed run and the READ
 * completes, its content the responder's, before the WRITE after it.
 */
static void test_read_hostile(void)
{
    const uint64_t dst = BUF + 0x200000;
    uint8_t *local;
    struct snic_sr_ctrl e;
    struct snic_cqe cqe;
    unsigned i;
    Req q;

    node_init(&q.a, NULL, 1);
    node_init(&q.b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&q.a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&q.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&q.ha, &q.a, NULL, 6, 2, 0);
    node_connect(&q.a, &q.b, SNIC_MTU_1024, 7, 7);
    node_connect(&q.b, &q.a, SNIC_MTU_1024, 7, 7);
    q.qa = snic_qp_get(q.a.h->core, q.a.qpn);
    q.psn0 = q.qa->req.next_psn;
    node_fill(&q.b, BUF, 8192, 3);
    local = fake_ptr(q.a.h, dst - 1024, 8192 + 2048);
    memset(local, 0xee, 8192 + 2048);
    /* an 8 KiB READ (PSNs 0-7), then a 1 KiB WRITE (PSN 8) */
    node_post_send(&q.a, 1, SNIC_WR_RDMA_READ, dst, 8192, BUF, q.b.lkey, 0,
                   q.a.lkey);
    node_post_send(&q.a, 2, SNIC_WR_RDMA_WRITE, BUF, 1024, BUF, q.b.lkey, 0,
                   q.a.lkey);
    fake_run(q.a.h);
    g_assert_cmpuint(snic_transport_outstanding(q.qa), ==, 9);

    read_resp(&q, 3, 0, 3, 1024, true);         /* ahead: placed */
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_read_placed), ==, 1);
    g_assert_cmpmem(local + 1024 + 3 * 1024, 1024,
                    fake_ptr(q.b.h, BUF + 3 * 1024, 1024), 1024);
    g_assert_true(sr_host_peek(&q.ha, &e));
    g_assert_cmpuint(e.type, ==, SNIC_SR_CTRL_REQ_ACK);
    g_assert_cmpuint(e.flags & SNIC_SR_CTRL_F_READ, ==, SNIC_SR_CTRL_F_READ);
    g_assert_cmpuint(GUINT32_FROM_LE(e.psn), ==, psn_add(q.psn0, 3));
    g_assert_cmpuint(sr_host_poll(&q.ha), ==, 1);

    read_resp(&q, 5, 0, 9, 1024, true);         /* offset: not to PSN 5 */
    read_resp(&q, 5, (uint32_t)-4, 9, 1024, true);  /* request before it */
    read_resp(&q, 4, 6, (uint32_t)-2, 1024, true);  /* ... after it */
    read_resp(&q, 8, 8, 0, 1024, true);         /* the WRITE's PSN */
    read_resp(&q, 6, 0, 6, 100, true);          /* short */
    read_resp(&q, 7, 0, 7, 1024, false);        /* no extension */
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_read_refused), ==, 6);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_read_placed), ==, 1);
    /* nothing written but PSN 3's */
    for (i = 0; i < 8192 + 2048; i++) {
        if (i < 1024 + 3 * 1024 || i >= 1024 + 4 * 1024) {
            g_assert_cmpuint(local[i], ==, 0xee);
        }
    }
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    g_assert_false(node_poll_cq(&q.a, &cqe));

    /* 0-2 in order: lACK jumps the run [3, 3]; 4-7: the READ completes */
    for (i = 0; i < 8; i++) {
        if (i != 3) {
            read_resp(&q, i, 0, i, 1024, true);
        }
        if (i == 2) {
            g_assert_cmpuint(snic_transport_wnd_start(q.qa), ==,
                             psn_add(q.psn0, 4));
        }
    }
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_read_placed), ==, 1);
    g_assert_true(node_poll_cq(&q.a, &cqe));
    g_assert_cmpuint(GUINT64_FROM_LE(cqe.wr_id), ==, 1);
    g_assert_cmpuint(cqe.status, ==, SNIC_WC_SUCCESS);
    g_assert_false(node_poll_cq(&q.a, &cqe));   /* the WRITE: not ACKed */
    g_assert_cmpmem(local + 1024, 8192, fake_ptr(q.b.h, BUF, 8192), 8192);
    g_assert_cmpuint(local[0], ==, 0xee);
    g_assert_cmpuint(local[1024 + 8192], ==, 0xee);
    sr_host_free(&q.ha);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * A READ response ahead of lACK is placed only with room for its report
 * in the CtrlQ's ring and in its QP's quota (twice its window): beyond
 * the quota it is not placed (a loss the peer repairs), so the host's
 * bitmap misses no PSN placed. Once the host took the reports, it is.
 */
static void test_read_resp_quota(void)
{
    const uint64_t dst = BUF + 0x200000;
    const uint32_t window = 4, quota = 2 * window;
    uint8_t *local;
    struct snic_sr_ctrl e;
    unsigned i;
    Req q;

    node_init(&q.a, NULL, 1);
    node_init(&q.b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&q.a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&q.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&q.ha, &q.a, NULL, 6, 2, window);  /* a ring of 64 */
    node_connect(&q.a, &q.b, SNIC_MTU_1024, 7, 7);
    node_connect(&q.b, &q.a, SNIC_MTU_1024, 7, 7);
    q.qa = snic_qp_get(q.a.h->core, q.a.qpn);
    q.psn0 = q.qa->req.next_psn;
    node_fill(&q.b, BUF, 16384, 3);
    local = fake_ptr(q.a.h, dst, 16384);
    memset(local, 0xee, 16384);
    /* 16 KiB: one request, 16 PSNs in flight whatever the window */
    node_post_send(&q.a, 1, SNIC_WR_RDMA_READ, dst, 16384, BUF, q.b.lkey, 0,
                   q.a.lkey);
    fake_run(q.a.h);
    g_assert_cmpuint(snic_transport_outstanding(q.qa), ==, 16);

    /* 1 .. quota + 1 ahead of lACK, the host away */
    for (i = 1; i <= quota + 1; i++) {
        read_resp(&q, i, 0, i, 1024, true);
    }
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_read_placed), ==, quota);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_ctrlq_refused), ==, 1);
    for (i = 0; i < 1024; i++) {
        g_assert_cmpuint(local[(quota + 1) * 1024 + i], ==, 0xee);
    }
    g_assert_true(sr_host_peek(&q.ha, &e));
    g_assert_cmpuint(GUINT32_FROM_LE(e.psn), ==, psn_add(q.psn0, 1));
    /* every one placed is reported, no more */
    g_assert_cmpuint(sr_host_poll(&q.ha), ==, quota);
    /* the host took them: the same response again is placed */
    read_resp(&q, quota + 1, 0, quota + 1, 1024, true);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_read_placed), ==, quota + 1);
    g_assert_cmpmem(local + (quota + 1) * 1024, 1024,
                    fake_ptr(q.b.h, BUF + (quota + 1) * 1024, 1024), 1024);
    g_assert_cmpuint(q.qa->state, ==, SNIC_QPS_RTS);
    sr_host_free(&q.ha);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * a's READ requests since the last look: PSN (from psn0) and length; each
 * carries a's lACK, the last one a's ACK of responses told: in *lack
 */
static uint32_t read_lack, read_acked;

static unsigned read_reqs(Req *q, uint32_t *psn, uint32_t *len, unsigned max)
{
    unsigned k = 0;
    SnicPkt p;

    for (; q->seen < q->a.h->frames->len; q->seen++) {
        GByteArray *f = g_ptr_array_index(q->a.h->frames, q->seen);

        g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==,
                        SNIC_PARSE_OK);
        if (p.opcode == SNIC_OP_RC_READ_REQUEST && k < max) {
            g_assert_true(p.xport);
            g_assert_cmpuint(p.xeth.flags, ==, SNIC_XETH_F_RESP);
            read_lack = (p.xeth.msg - q->psn0) & SNIC_PSN_MASK;
            psn[k] = (p.psn - q->psn0) & SNIC_PSN_MASK;
            len[k++] = p.reth.len;
        } else if (p.opcode == SNIC_OP_RC_ACK) {
            /* SRNIC 4.4.1: the READ responses acknowledged */
            g_assert_true(p.xport);
            g_assert_cmpuint(p.xeth.flags, ==, SNIC_XETH_F_RESP);
            g_assert_cmpuint(p.xeth.msg, ==, psn_add(p.psn, 1));
            read_acked = (p.xeth.msg - q->psn0) & SNIC_PSN_MASK;
        }
    }
    return k;
}

/*
 * Holes alone asked for again: responses 1 and 4 of an 8 KiB READ lost,
 * the rest placed; the host asks for [1, 2) and [4, 5) (READ requests of
 * 1 KiB each, nothing more, carrying lACK), moves lACK over 2-3
 * (SNIC_SR_RETRY_LACK) once 1 came, and 4 lets lACK jump the run 5-7:
 * the READ completes with the responder's bytes, recovery over, and the
 * responder is told (an ACK of the responses, SRNIC 4.4.1).
 */
static void test_read_holes(void)
{
    const uint64_t dst = BUF + 0x200000;
    static const unsigned got[] = { 0, 2, 3, 5, 6, 7 };
    uint32_t psn[4], len[4];
    struct snic_cqe cqe;
    unsigned i;
    Req q;

    node_init(&q.a, NULL, 1);
    node_init(&q.b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&q.a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&q.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&q.ha, &q.a, NULL, 6, 2, 0);
    node_connect(&q.a, &q.b, SNIC_MTU_1024, 7, 7);
    node_connect(&q.b, &q.a, SNIC_MTU_1024, 7, 7);
    q.qa = snic_qp_get(q.a.h->core, q.a.qpn);
    q.psn0 = q.qa->req.next_psn;
    q.seen = q.a.h->frames->len;
    node_fill(&q.b, BUF, 8192, 21);
    memset(fake_ptr(q.a.h, dst, 8192), 0, 8192);
    node_post_send(&q.a, 1, SNIC_WR_RDMA_READ, dst, 8192, BUF, q.b.lkey, 0,
                   q.a.lkey);
    fake_run(q.a.h);
    g_assert_cmpuint(read_reqs(&q, psn, len, 4), ==, 1);
    g_assert_cmpuint(len[0], ==, 8192);

    for (i = 0; i < G_N_ELEMENTS(got); i++) {
        read_resp(&q, got[i], 0, got[i], 1024, true);
    }
    g_assert_cmpuint(snic_transport_wnd_start(q.qa), ==, psn_add(q.psn0, 1));
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_read_placed), ==, 5);
    req_poll(&q);
    g_assert_cmpuint(q.ha.sw.rtx_posted, ==, 2);
    g_assert_cmpuint(read_reqs(&q, psn, len, 4), ==, 2);
    g_assert_cmpuint(psn[0], ==, 1);
    g_assert_cmpuint(len[0], ==, 1024);
    g_assert_cmpuint(psn[1], ==, 4);
    g_assert_cmpuint(len[1], ==, 1024);
    g_assert_cmpuint(read_lack, ==, 1);     /* response 0 arrived */

    read_resp(&q, 1, 0, 1, 1024, true);     /* the hole at lACK */
    g_assert_cmpuint(snic_transport_wnd_start(q.qa), ==, psn_add(q.psn0, 2));
    req_poll(&q);                           /* LACK over 2-3 */
    g_assert_cmpuint(q.ha.sw.lack_posted, ==, 1);
    g_assert_cmpuint(snic_transport_wnd_start(q.qa), ==, psn_add(q.psn0, 4));
    g_assert_false(node_poll_cq(&q.a, &cqe));

    read_resp(&q, 4, 0, 4, 1024, true);     /* the run 5-7 jumped */
    g_assert_cmpuint(snic_transport_wnd_start(q.qa), ==, psn_add(q.psn0, 8));
    /* the responder heard of it: every response arrived */
    read_reqs(&q, psn, len, 4);
    g_assert_cmpuint(read_acked, ==, 8);
    g_assert_true(node_poll_cq(&q.a, &cqe));
    g_assert_cmpuint(GUINT64_FROM_LE(cqe.wr_id), ==, 1);
    g_assert_cmpuint(cqe.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(q.a.h, dst, 8192), 8192,
                    fake_ptr(q.b.h, BUF, 8192), 8192);
    g_assert_false(snic_sr_qp(q.qa)->req_recovery);
    g_assert_cmpuint(FAKE_STAT(q.a.h, sr_read_refused) +
                     FAKE_STAT(q.a.h, sr_retry_refused), ==, 0);
    sr_host_free(&q.ha);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/*
 * A hole's request or response lost again: holes 1, 4, 6 and 8 of a
 * 16 KiB READ asked for in that order; 4, 6 and 8 come back, 1 does not:
 * with the window stuck at lACK nothing new goes out, yet the host asks
 * for 1 once more at once (the responder answers holes in order), not
 * after a timeout.
 */
static void test_read_hole_lost_again(void)
{
    const uint64_t dst = BUF + 0x200000;
    uint32_t psn[8], len[8];
    struct snic_cqe cqe;
    unsigned i;
    Req q;

    node_init(&q.a, NULL, 1);
    node_init(&q.b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&q.a, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&q.b, SNIC_TRANSPORT_SRNIC, 0), ==,
                     SNIC_ADMIN_OK);
    sr_host_init(&q.ha, &q.a, NULL, 6, 3, 0);
    node_connect(&q.a, &q.b, SNIC_MTU_1024, 7, 7);
    node_connect(&q.b, &q.a, SNIC_MTU_1024, 7, 7);
    q.qa = snic_qp_get(q.a.h->core, q.a.qpn);
    q.psn0 = q.qa->req.next_psn;
    q.seen = q.a.h->frames->len;
    node_fill(&q.b, BUF, 16384, 23);
    node_post_send(&q.a, 1, SNIC_WR_RDMA_READ, dst, 16384, BUF, q.b.lkey, 0,
                   q.a.lkey);
    fake_run(q.a.h);
    g_assert_cmpuint(read_reqs(&q, psn, len, 8), ==, 1);
    for (i = 0; i < 16; i++) {
        if (i != 1 && i != 4 && i != 6 && i != 8) {
            read_resp(&q, i, 0, i, 1024, true);
        }
    }
    req_poll(&q);
    g_assert_cmpuint(read_reqs(&q, psn, len, 8), ==, 4);
    g_assert_cmpuint(psn[0], ==, 1);
    g_assert_cmpuint(psn[3], ==, 8);
    g_assert_cmpuint(q.ha.sw.rtx_again, ==, 0);
    read_resp(&q, 4, 0, 4, 1024, true);
    read_resp(&q, 6, 0, 6, 1024, true);
    req_poll(&q);
    g_assert_cmpuint(read_reqs(&q, psn, len, 8), ==, 0);   /* two: wait */
    read_resp(&q, 8, 0, 8, 1024, true);
    req_poll(&q);
    g_assert_cmpuint(q.ha.sw.rtx_again, ==, 1);
    g_assert_cmpuint(read_reqs(&q, psn, len, 8), ==, 1);
    g_assert_cmpuint(psn[0], ==, 1);
    g_assert_cmpuint(len[0], ==, 1024);
    read_resp(&q, 1, 0, 1, 1024, true);
    req_poll(&q);                           /* LACK over 2-8 */
    g_assert_cmpuint(snic_transport_wnd_start(q.qa), ==, psn_add(q.psn0, 16));
    g_assert_true(node_poll_cq(&q.a, &cqe));
    g_assert_cmpuint(cqe.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpmem(fake_ptr(q.a.h, dst, 16384), 16384,
                    fake_ptr(q.b.h, BUF, 16384), 16384);
    sr_host_free(&q.ha);
    fake_host_free(q.a.h);
    fake_host_free(q.b.h);
}

/* b's responses since the last look: PSN (from e), op-code, echo */
static unsigned resps(Resp *r, unsigned *seen, uint32_t *psn, uint8_t *op,
                      uint32_t *off, unsigned max)
{
    unsigned k = 0;
    SnicPkt p;

    for (; *seen < r->b.h->frames->len; (*seen)++) {
        GByteArray *f = g_ptr_array_index(r->b.h->frames, *seen);

        g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==,
                        SNIC_PARSE_OK);
        if (p.opcode != SNIC_OP_RC_ACK && k < max) {
            g_assert_true(p.xport);
            g_assert_cmpuint(p.xeth.flags, ==, SNIC_XETH_F_RESP);
            g_assert_cmpuint(p.xeth.msg, ==, r->e);
            psn[k] = (p.psn - r->e) & SNIC_PSN_MASK;
            op[k] = p.opcode;
            off[k++] = p.xeth.offset;
        }
    }
    return k;
}

/* a READ request to b for PSNs e + i on, 'len' bytes from BUF + i KiB */
static void read_req(Resp *r, uint32_t i, uint32_t len)
{
    uint8_t frame[256];
    SnicPkt p;
    size_t n;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(r->a.h->core, snic_qp_get(r->a.h->core, r->a.qpn),
                        &p);
    p.opcode = SNIC_OP_RC_READ_REQUEST;
    p.psn = psn_add(r->e, i);
    p.reth.va = BUF + i * 1024ull;
    p.reth.rkey = r->b.lkey;
    p.reth.len = len;
    p.ackreq = true;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&r->b, frame, n);
    fake_run(r->b.h);
}

/*
 * The responder: responses echo their request (SRNIC 4.4.1); a duplicate
 * READ request for responses 3-4 gets those two alone, as First and Last
 * (go-back-N's answer: 3-7), counted in sr_read_resent.
 */
static void test_read_resp_hole(void)
{
    uint32_t psn[16], off[16];
    uint8_t op[16];
    unsigned seen, i;
    Resp r;

    resp_init(&r, 6);
    seen = r.b.h->frames->len;
    read_req(&r, 0, 8192);
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 16), ==, 8);
    for (i = 0; i < 8; i++) {
        g_assert_cmpuint(psn[i], ==, i);
        g_assert_cmpuint(off[i], ==, i);
    }
    read_req(&r, 3, 2048);
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 16), ==, 2);
    g_assert_cmpuint(psn[0], ==, 3);
    g_assert_cmpuint(off[0], ==, 3);
    g_assert_cmpuint(op[0], ==, SNIC_OP_RC_READ_RESP_FIRST);
    g_assert_cmpuint(psn[1], ==, 4);
    g_assert_cmpuint(op[1], ==, SNIC_OP_RC_READ_RESP_LAST);
    g_assert_cmpuint(FAKE_STAT(r.b.h, sr_read_resent), ==, 2);
    /* a request past the entry's end: what the entry has, no more */
    read_req(&r, 6, 8192);
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 16), ==, 2);
    g_assert_cmpuint(psn[1], ==, 7);
    resp_free(&r);
}

/* a's ACK of b's READ responses: every one below e + i arrived */
static void read_ack(Resp *r, uint32_t i)
{
    uint8_t frame[256];
    SnicPkt p;
    size_t n;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(r->a.h->core, snic_qp_get(r->a.h->core, r->a.qpn),
                        &p);
    p.opcode = SNIC_OP_RC_ACK;
    p.psn = psn_add(r->e, i - 1);
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_RESP;
    p.xeth.msg = psn_add(r->e, i);
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&r->b, frame, n);
    fake_run(r->b.h);
}

/*
 * READ responses self-clocked (SRNIC 4.4.1): a responder with a window of
 * 16 sends 16 of a 64-response READ, then as many more as the
 * requester's ACKs (or the lACK its next READ request carries) say
 * arrived; an ACK for PSNs never asked for is dropped, opens nothing.
 */
static void test_read_resp_window(void)
{
    uint32_t psn[64], off[64];
    uint8_t op[64];
    uint64_t dropped;
    unsigned seen;
    Resp r;

    resp_init(&r, 6);
    g_assert_cmpuint(set_qp_sr(&r.b, SR_RETRYQ, 4, 16), ==, SNIC_ADMIN_OK);
    seen = r.b.h->frames->len;
    read_req(&r, 0, 65536);
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 64), ==, 16);
    g_assert_cmpuint(psn[15], ==, 15);
    read_ack(&r, 8);
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 64), ==, 8);
    g_assert_cmpuint(psn[0], ==, 16);
    read_ack(&r, 4);                        /* old: nothing */
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 64), ==, 0);
    dropped = FAKE_STAT(r.b.h, rdma_rx_dropped);
    read_ack(&r, 65);                       /* beyond what was asked */
    g_assert_cmpuint(FAKE_STAT(r.b.h, rdma_rx_dropped), ==, dropped + 1);
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 64), ==, 0);
    read_ack(&r, 24);
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 64), ==, 16);
    g_assert_cmpuint(psn[15], ==, 39);
    read_ack(&r, 64);                       /* the rest */
    g_assert_cmpuint(resps(&r, &seen, psn, op, off, 64), ==, 24);
    g_assert_cmpuint(psn[23], ==, 63);
    g_assert_cmpuint(op[23], ==, SNIC_OP_RC_READ_RESP_LAST);
    resp_free(&r);
}

/*
 * 'n' READs of 64 KiB (64 responses each at MTU 1024) from b into a over
 * a wire losing and reordering 'pct' % of its packets: SRNIC's (both
 * ends, host software interrupt-driven; the responder's window 'rwin',
 * 0 the largest) or go-back-N's. Every READ
 * completes in post order with the responder's bytes; the packets b sent
 * beyond the responses needed (resent) are returned.
 */
static uint64_t read_run(unsigned pct, bool sr, unsigned n, uint8_t rwin)
{
    double loss = pct / 100.0;
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 5000,
        .loss = loss, .reorder = loss, .reorder_ns = 3000,
        .eth_framing = true,
    };
    SnicSim *sim = snic_sim_new(177 + pct);
    const unsigned len = 65536, depth = 8, slots = 16;
    const uint64_t dst = BUF + 0x200000;
    unsigned posted = 0, done = 0;
    const SnicSimLinkStats *st;
    SrHost ha, hb;
    struct snic_cqe c;
    uint64_t extra;
    Node a, b;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    if (sr) {
        g_assert_cmpuint(node_set_transport(&a, SNIC_TRANSPORT_SRNIC, 0),
                         ==, SNIC_ADMIN_OK);
        g_assert_cmpuint(node_set_transport(&b, SNIC_TRANSPORT_SRNIC, 0),
                         ==, SNIC_ADMIN_OK);
        sr_host_init(&ha, &a, sim, 10, 8, 0);
        sr_host_init(&hb, &b, sim, 10, 8, rwin);
    }
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    node_fill(&b, BUF, slots * len, 11);
    while (done < n) {
        while (posted < n && posted - done < depth) {
            uint64_t off = (uint64_t)(posted % slots) * len;

            memset(fake_ptr(a.h, dst + off, len), 0, len);
            node_post_send(&a, posted, SNIC_WR_RDMA_READ, dst + off, len,
                           BUF + off, b.lkey, 0, a.lkey);
            posted++;
        }
        snic_sim_run(sim, 1000000);
        while (node_poll_cq(&a, &c)) {
            uint64_t off = (uint64_t)(done % slots) * len;

            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, done);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            g_assert_cmpmem(fake_ptr(a.h, dst + off, len), len,
                            fake_ptr(b.h, BUF + off, len), len);
            done++;
        }
        g_assert_cmpuint(snic_sim_now(sim), <, 100000000000ull);
    }
    st = snic_sim_link_stats(sim, b.h->port.ep, a.h->port.ep);
    g_assert_cmpuint(st->lost, >, 0);
    extra = st->sent - (uint64_t)n * (len / 1024);
    g_test_message("SR-READ %s rwin=%u loss=%u%% reads=%u b_sent=%" G_GUINT64_FORMAT
                   " b_lost=%" G_GUINT64_FORMAT " extra=%" G_GUINT64_FORMAT
                   " placed_ooo=%" G_GUINT64_FORMAT
                   " resent_holes=%" G_GUINT64_FORMAT " rtx_posted=%u"
                   " lack_posted=%u time_ns=%" G_GUINT64_FORMAT,
                   sr ? "srnic" : "gbn", rwin, pct, n, st->sent, st->lost, extra,
                   FAKE_STAT(a.h, sr_read_placed),
                   FAKE_STAT(b.h, sr_read_resent),
                   sr ? ha.sw.rtx_posted : 0, sr ? ha.sw.lack_posted : 0,
                   snic_sim_now(sim));
    if (sr) {
        /* placed out of order, holes asked for again and sent again */
        g_assert_cmpuint(FAKE_STAT(a.h, sr_read_placed), >, 0);
        g_assert_cmpuint(ha.sw.rtx_posted, >, 0);
        g_assert_cmpuint(FAKE_STAT(b.h, sr_read_resent), >, 0);
        g_assert_cmpuint(FAKE_STAT(a.h, sr_read_refused), ==, 0);
        g_assert_cmpuint(FAKE_STAT(a.h, sr_retry_refused) +
                         FAKE_STAT(b.h, sr_retry_refused), ==, 0);
        sr_host_free(&ha);
        sr_host_free(&hb);
    } else {
        g_assert_cmpuint(FAKE_STAT(a.h, sr_read_placed), ==, 0);
    }
    node_pair_free(sim, &a, &b);
    return extra;
}

/*
 * A READ of 256 KiB asks for 64 responses a request, more than a window
 * of 10 (DCTCP's initial) or 16 holds: with nothing in flight the request
 * goes anyway (before, the QP waited forever with nothing outstanding).
 * SRNIC-DCTCP, SRNIC with a window of 16, and DCTCP over go-back-N.
 */
static void test_read_small_window(void)
{
    static const struct { uint8_t program; uint16_t window; } runs[] = {
        { SNIC_TRANSPORT_SRNIC_DCTCP, 0 },
        { SNIC_TRANSPORT_SRNIC, 16 },
        { SNIC_TRANSPORT_DCTCP, 0 },
    };
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 5000,
        .eth_framing = true,
    };
    const uint32_t len = 256 * 1024;
    const uint64_t dst = BUF + 0x200000;
    struct snic_cqe c;
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(runs); i++) {
        SnicSim *sim = snic_sim_new(5);
        bool sr = runs[i].program != SNIC_TRANSPORT_DCTCP;
        SrHost ha, hb;
        Node a, b;

        node_init(&a, sim, 1);
        node_init(&b, sim, 2);
        snic_sim_port_connect(&a.h->port, &b.h->port, &link);
        g_assert_cmpuint(node_set_transport(&a, runs[i].program, 0), ==,
                         SNIC_ADMIN_OK);
        g_assert_cmpuint(node_set_transport(&b, runs[i].program, 0), ==,
                         SNIC_ADMIN_OK);
        if (sr) {
            sr_host_init(&ha, &a, sim, 10, 8, runs[i].window);
            sr_host_init(&hb, &b, sim, 10, 8, runs[i].window);
        }
        node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
        node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
        node_fill(&b, BUF, len, 21);
        memset(fake_ptr(a.h, dst, len), 0, len);
        node_post_send(&a, 7, SNIC_WR_RDMA_READ, dst, len, BUF, b.lkey, 0,
                       a.lkey);
        snic_sim_run(sim, 100000000);
        g_assert_true(node_poll_cq(&a, &c));
        g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
        g_assert_cmpmem(fake_ptr(a.h, dst, len), len,
                        fake_ptr(b.h, BUF, len), len);
        if (sr) {
            sr_host_free(&ha);
            sr_host_free(&hb);
        }
        node_pair_free(sim, &a, &b);
    }
}

/* the same READs, the same wire: SRNIC resends fewer than go-back-N */
static void test_lossy_read(gconstpointer data)
{
    unsigned pct = GPOINTER_TO_UINT(data), n = writes_per_run();
    uint64_t sr = read_run(pct, true, n, 0), gbn = read_run(pct, false, n, 0);

    g_assert_cmpuint(sr, <, gbn);
}

/* ... the responder's window (16) below the requester's: it clocks them */
static void test_lossy_read_clocked(gconstpointer data)
{
    read_run(GPOINTER_TO_UINT(data), true, writes_per_run(), 16);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sr/select", test_select);
    g_test_add_func("/sr/resp/enter-exit", test_resp_enter_exit);
    g_test_add_func("/sr/resp/fig8-race", test_resp_fig8_race);
    g_test_add_func("/sr/resp/duplicates", test_resp_duplicates);
    g_test_add_func("/sr/resp/epsn-whole-window",
                    test_resp_epsn_whole_window);
    g_test_add_func("/sr/resp/epsn-far-behind", test_resp_epsn_far_behind);
    g_test_add_func("/sr/ctrlq-overflow", test_ctrlq_overflow);
    g_test_add_func("/sr/ctrlq-irq-coalesced", test_ctrlq_irq_coalesced);
    g_test_add_func("/sr/ctrlq-hostile-qp", test_ctrlq_hostile_qp);
    g_test_add_func("/sr/ctrlq-ctx-share", test_ctrlq_ctx_share);
    g_test_add_func("/sr/ctrlq-removed/resp", test_ctrlq_removed_resp);
    g_test_add_func("/sr/ctrlq-removed/send", test_ctrlq_removed_send);
    g_test_add_func("/sr/ctrlq-removed/req", test_ctrlq_removed_req);
    g_test_add_func("/sr/send/ooo", test_send_ooo);
    g_test_add_func("/sr/send/recv-done-hostile",
                    test_send_recv_done_hostile);
    g_test_add_func("/sr/send/rnr-and-bad-ssn", test_send_rnr_and_bad_ssn);
    g_test_add_func("/sr/send/ssn-past-host-table",
                    test_send_ssn_past_host_table);
    g_test_add_func("/sr/write-imm/in-order", test_write_imm_in_order);
    g_test_add_func("/sr/write-imm/ooo", test_write_imm_ooo);
    g_test_add_func("/sr/write-imm/srq", test_write_imm_srq);
    g_test_add_func("/sr/srq/dead-sender", test_srq_dead_sender);
    g_test_add_func("/sr/srq/paused-sender", test_srq_paused_sender);
    g_test_add_func("/sr/write-imm/ctrlq-full", test_write_imm_ctrlq_full);
    g_test_add_func("/sr/write-imm/recv-done-hostile",
                    test_write_imm_recv_done_hostile);
    g_test_add_func("/sr/req/retryq", test_req_retryq);
    g_test_add_func("/sr/req/window-in-flight", test_req_window_in_flight);
    g_test_add_func("/sr/req/dctcp", test_req_dctcp);
    g_test_add_func("/sr/read/small-window", test_read_small_window);
    g_test_add_func("/sr/req/lost-retransmission",
                    test_req_lost_retransmission);
    g_test_add_func("/sr/req/rtx-after-exit", test_req_rtx_after_exit);
    g_test_add_func("/sr/req/loss-past-recovery-point",
                    test_req_loss_past_recovery_point);
    g_test_add_func("/sr/req/lost-retransmission-again",
                    test_req_lost_retransmission_again);
    g_test_add_func("/sr/req/lost-retransmission-per-hole",
                    test_req_lost_retransmission_per_hole);
    g_test_add_func("/sr/req/ssn", test_req_ssn);
    g_test_add_func("/sr/read/hostile", test_read_hostile);
    g_test_add_func("/sr/read/resp-quota", test_read_resp_quota);
    g_test_add_func("/sr/read/holes", test_read_holes);
    g_test_add_func("/sr/read/hole-lost-again", test_read_hole_lost_again);
    g_test_add_func("/sr/read/resp-hole", test_read_resp_hole);
    g_test_add_func("/sr/read/resp-window", test_read_resp_window);
    g_test_add_data_func("/sr/lossy/1", GUINT_TO_POINTER(1), test_lossy);
    g_test_add_data_func("/sr/lossy-read/1", GUINT_TO_POINTER(1),
                         test_lossy_read);
    g_test_add_data_func("/sr/lossy-read/5", GUINT_TO_POINTER(5),
                         test_lossy_read);
    g_test_add_data_func("/sr/lossy-read-clocked/2", GUINT_TO_POINTER(2),
                         test_lossy_read_clocked);
    g_test_add_data_func("/sr/lossy/5", GUINT_TO_POINTER(5), test_lossy);
    g_test_add_data_func("/sr/lossy-dctcp/1", GUINT_TO_POINTER(1),
                         test_lossy_dctcp);
    g_test_add_data_func("/sr/lossy-dctcp/5", GUINT_TO_POINTER(5),
                         test_lossy_dctcp);
    g_test_add_data_func("/sr/lossy-send/1", GUINT_TO_POINTER(1),
                         test_lossy_send);
    g_test_add_data_func("/sr/lossy-send/5", GUINT_TO_POINTER(5),
                         test_lossy_send);
    g_test_add_data_func("/sr/lossy-send-small/1", GUINT_TO_POINTER(1),
                         test_lossy_send_small);
    g_test_add_data_func("/sr/lossy-write-imm/1", GUINT_TO_POINTER(1),
                         test_lossy_write_imm);
    g_test_add_data_func("/sr/lossy-write-imm/5", GUINT_TO_POINTER(5),
                         test_lossy_write_imm);
    return g_test_run();
}
