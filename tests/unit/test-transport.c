/*
 * Tonic transport programs (hw/snic/core/transport/): registration and
 * the per-QP area, selection by admin command, the rate credit's
 * precisions and pacing, the exact reaction of NewReno, Reno, SACK,
 * DCQCN and DCTCP to each feedback, DCTCP's CE echo on the wire, the
 * responder's out-of-order placement of WRITE and SEND packets, and
 * every program moving 64 KiB WRITEs (the selective ones SENDs too),
 * checked by content, over a lossy and reordering wire (48 a run;
 * SNIC_TRANSPORT_WRITES=1000 for more).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "engine-node.h"
#include "fabric.h"
#include "port/wire.h"
#include "engine/rdma.h"
#include "engine/xmit.h"
#include "objects/qp.h"
#include "transport/transport.h"

static void query(Node *n, uint32_t qpn, uint8_t program,
                  struct snic_transport_info *t)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_TRANSPORT,
                        sizeof(cmd.query_transport));
    cmd.query_transport.qpn = GUINT32_TO_LE(qpn);
    cmd.query_transport.program = program;
    cmd.query_transport.resp_addr = GUINT64_TO_LE(FAKE_RESP);
    g_assert_cmpuint(fake_admin(n->h, &cmd, NULL), ==, SNIC_ADMIN_OK);
    fake_read(n->h, FAKE_RESP, t, sizeof(*t));
}

static void noop_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb)
{
}

static void noop_periodic(SnicCore *c, SnicQp *qp, uint64_t now)
{
}

/* Tonic's limits per credit scheme; areas sized by the QP's program. */
static void test_registration(void)
{
    SnicProgram p = {
        .name = "test", .incoming = noop_incoming, .periodic = noop_periodic,
    };
    struct snic_transport_info t;
    Node a;
    unsigned i;

    p.credit = SNIC_CREDIT_WINDOW;
    p.state_bytes = 448;
    g_assert_true(snic_program_fits(&p));
    p.state_bytes = 449;
    g_assert_false(snic_program_fits(&p));
    p.credit = SNIC_CREDIT_RATE;
    p.state_bytes = 340;
    g_assert_true(snic_program_fits(&p));
    p.state_bytes = 341;
    g_assert_false(snic_program_fits(&p));
    p.credit = SNIC_CREDIT_TOKEN;
    p.state_bytes = 256;
    g_assert_true(snic_program_fits(&p));
    p.state_bytes = 257;
    g_assert_false(snic_program_fits(&p));
    p.credit = SNIC_CREDIT_SCHEMES;
    p.state_bytes = 0;
    g_assert_false(snic_program_fits(&p));

    node_init(&a, NULL, 1);
    for (i = 0; i < SNIC_PROGRAMS; i++) {
        const SnicProgram *q = snic_programs[i];

        g_assert_true(snic_program_fits(q));
        query(&a, 0, i, &t);
        g_assert_cmpstr(t.name, ==, q->name);
        g_assert_cmpuint(t.credit, ==, q->credit);
        g_assert_cmpuint(GUINT16_FROM_LE(t.state_bytes), ==, q->state_bytes);
        /* the QPC bytes of a QP running it: the context + its own area */
        g_assert_cmpuint(GUINT32_FROM_LE(t.qpc_bytes), ==,
                         sizeof(SnicQp) + snic_program_area_bytes(q));
        g_test_message("%-10s credit %u state %2u B qpc %u B", t.name,
                       t.credit, GUINT16_FROM_LE(t.state_bytes),
                       GUINT32_FROM_LE(t.qpc_bytes));
    }
    /*
     * go-back-N costs nothing beyond the context; DCQCN its rate state;
     * NewReno its placement map and window, less than SACK's scoreboard
     */
    g_assert_cmpuint(snic_program_area_bytes(&snic_program_gbn), ==, 0);
    g_assert_cmpuint(snic_program_area_bytes(&snic_program_dcqcn), ==,
                     sizeof(SnicProgHead) + sizeof(SnicRateCredit) +
                     snic_program_dcqcn.state_bytes);
    g_assert_cmpuint(snic_program_area_bytes(&snic_program_newreno), ==,
                     sizeof(SnicProgHead) + snic_program_newreno.state_bytes);
    g_assert_cmpuint(snic_program_area_bytes(&snic_program_newreno), <,
                     snic_program_area_bytes(&snic_program_sack));
    fake_host_free(a.h);
}

/* SET_QP_TRANSPORT: before RTR only; RESET returns to go-back-N. */
static void test_select(void)
{
    struct snic_transport_info t;
    struct snic_qp_attr attr;
    Node a, b;

    node_init(&a, NULL, 1);
    node_init(&b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&a, SNIC_PROGRAMS, 0), ==,
                     SNIC_ADMIN_BAD_PARAM);
    g_assert_cmpuint(node_set_transport(&a, SNIC_TRANSPORT_NEWRENO, 4), ==,
                     SNIC_ADMIN_OK);
    query(&a, a.qpn, 0, &t);
    g_assert_cmpuint(t.program, ==, SNIC_TRANSPORT_NEWRENO);
    g_assert_cmpuint(t.ack_every, ==, 4);
    g_assert_cmpuint(t.flags, ==,
                     SNIC_TRANSPORT_F_TCP_ACKS | SNIC_TRANSPORT_F_XPORT);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    g_assert_cmpuint(node_set_transport(&a, SNIC_TRANSPORT_DCQCN, 0), ==,
                     SNIC_ADMIN_BAD_STATE);
    query(&a, a.qpn, 0, &t);
    g_assert_cmpuint(GUINT32_FROM_LE(t.window), ==, 10);   /* its IW */
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = GUINT32_TO_LE(SNIC_QPS_RESET);
    node_modify(&a, SNIC_QP_ATTR_STATE, &attr);
    query(&a, a.qpn, 0, &t);
    g_assert_cmpuint(t.program, ==, SNIC_TRANSPORT_GBN);
    g_assert_null(snic_qp_get(a.h->core, a.qpn)->pstate);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * The selective-transport extension reaches only QPs whose program speaks
 * it: a go-back-N QP drops a TVer-2 WRITE unexecuted, and executes the
 * same WRITE without the extension. A DCTCP QP takes the extension on
 * ACKs only (its CE echo): it drops the TVer-2 WRITE too.
 */
static void xport_refused(uint8_t program)
{
    static const uint8_t data[64] = "placed";
    uint8_t frame[256];
    SnicQp *qa, *qb;
    SnicPkt p;
    size_t n;
    Node a, b;

    node_init(&a, NULL, 1);
    node_init(&b, NULL, 2);
    g_assert_cmpuint(node_set_transport(&a, program, 0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&b, program, 0), ==, SNIC_ADMIN_OK);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    qa = snic_qp_get(a.h->core, a.qpn);
    qb = snic_qp_get(b.h->core, b.qpn);
    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(a.h->core, qa, &p);
    p.opcode = SNIC_OP_RC_WRITE_ONLY;
    p.psn = qb->resp.epsn;
    p.reth.va = BUF + 0x1000;
    p.reth.rkey = b.lkey;
    p.reth.len = sizeof(data);
    p.payload = data;
    p.payload_len = sizeof(data);
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_PLACE;
    p.xeth.rkey = b.lkey;
    p.xeth.va = BUF + 0x1000;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&b, frame, n);
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_rx_dropped), ==, 1);
    g_assert_cmpuint(qb->resp.epsn, ==, p.psn);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1000, 6), 6, "\0\0\0\0\0\0", 6);
    p.xport = false;
    n = snic_wire_build(&p, frame, sizeof(frame));
    node_inject(&b, frame, n);
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_rx_dropped), ==, 1);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1000, 6), 6, "placed", 6);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/* ---- the responder's out-of-order placement, fed by hand ---- */

/* a's QP and b's, both running 'program'; b's left in RTR if !rts */
static void xpair(Node *a, Node *b, uint8_t program, bool rts)
{
    node_init(a, NULL, 1);
    node_init(b, NULL, 2);
    g_assert_cmpuint(node_set_transport(a, program, 1), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(b, program, 1), ==, SNIC_ADMIN_OK);
    node_connect(a, b, SNIC_MTU_1024, 7, 7);
    if (rts) {
        node_connect(b, a, SNIC_MTU_1024, 7, 7);
    } else {
        node_connect_rtr(b, a, SNIC_MTU_1024);
    }
}

/* Send b the request p from a's QP */
static void xsend(Node *a, Node *b, SnicPkt *p)
{
    uint8_t frame[2048];
    size_t n;

    snic_rdma_fill_addr(a->h->core, snic_qp_get(a->h->core, a->qpn), p);
    n = snic_wire_build(p, frame, sizeof(frame));
    g_assert_cmpuint(n, >, 0);
    node_inject(b, frame, n);
}

/* A placed WRITE packet (the extension) of 'len' bytes to BUF + off */
static void xwrite(Node *a, Node *b, uint8_t op, uint32_t psn, uint64_t off,
                   const void *data, uint32_t len)
{
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    p.opcode = op;
    p.psn = psn & SNIC_PSN_MASK;
    p.reth.va = BUF + off;
    p.reth.rkey = b->lkey;
    p.reth.len = len;
    p.payload = data;
    p.payload_len = len;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_PLACE;
    p.xeth.rkey = b->lkey;
    p.xeth.va = BUF + off;
    xsend(a, b, &p);
}

/* A READ request for npsn MTUs (1 KiB) at psn */
static void xread(Node *a, Node *b, uint32_t psn, uint32_t npsn)
{
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    p.opcode = SNIC_OP_RC_READ_REQUEST;
    p.psn = psn & SNIC_PSN_MASK;
    p.reth.va = BUF;
    p.reth.rkey = b->lkey;
    p.reth.len = npsn * 1024;
    p.ackreq = true;
    xsend(a, b, &p);
}

/*
 * A READ request moves ePSN over its PSNs at once: a packet placed out
 * of order among them (a peer's error) must not stay in the map, where
 * it would stand for the PSN a window later.
 */
static void test_ooo_read_clears(void)
{
    static const uint8_t data[64] = "early";
    SnicQp *qb;
    uint32_t e;
    Node a, b;

    xpair(&a, &b, SNIC_TRANSPORT_SACK, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    xwrite(&a, &b, SNIC_OP_RC_WRITE_ONLY, e + 1, 0x1000, data, sizeof(data));
    g_assert_cmpuint(qb->resp.epsn, ==, e);
    xread(&a, &b, e, 2);                /* covers e + 1 */
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 2) & SNIC_PSN_MASK);
    /* up to e + 129, which shares e + 1's bit: never placed */
    xread(&a, &b, e + 2, SNIC_TX_WINDOW - 1);
    g_assert_cmpuint(qb->resp.epsn, ==,
                     (e + 1 + SNIC_TX_WINDOW) & SNIC_PSN_MASK);
    g_assert_cmpuint(qb->state, ==, SNIC_QPS_RTS);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * TCP's ACK policy holds with placement (Reno, NewReno place out of
 * order): each packet placed beyond a hole is answered by its own
 * duplicate ACK, even when several arrive before the engine sends one,
 * since the sender counts them (RFC 5681 4.2); the packet that fills
 * the hole is answered by one ACK for everything placed.
 */
static void test_ooo_dup_acks(void)
{
    static const uint8_t data[64] = "beyond";
    GByteArray *f;
    GPtrArray *fr;
    SnicQp *qb;
    uint32_t e, i;
    Node a, b;
    SnicPkt p;

    xpair(&a, &b, SNIC_TRANSPORT_NEWRENO, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    fr = b.h->frames;
    e = qb->resp.epsn;
    for (i = 1; i <= 3; i++) {
        xwrite(&a, &b, SNIC_OP_RC_WRITE_ONLY, e + i, 0x1000 * i, data,
               sizeof(data));
    }
    g_assert_cmpuint(qb->resp.epsn, ==, e);
    fake_run(b.h);
    g_assert_cmpuint(fr->len, ==, 3);
    for (i = 0; i < fr->len; i++) {
        f = g_ptr_array_index(fr, i);
        g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==,
                        SNIC_PARSE_OK);
        g_assert_cmpuint(p.opcode, ==, SNIC_OP_RC_ACK);
        g_assert_cmpuint(p.psn, ==, (e - 1) & SNIC_PSN_MASK);
        g_assert_true(p.xport && p.xeth.flags & SNIC_XETH_F_SACK);
    }
    g_ptr_array_set_size(fr, 0);
    xwrite(&a, &b, SNIC_OP_RC_WRITE_ONLY, e, 0, data, sizeof(data));
    fake_run(b.h);
    g_assert_cmpuint(fr->len, ==, 1);
    f = g_ptr_array_index(fr, 0);
    g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==, SNIC_PARSE_OK);
    g_assert_cmpuint(p.psn, ==, (e + 3) & SNIC_PSN_MASK);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x3000, sizeof(data)), sizeof(data),
                    data, sizeof(data));
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * Packets placed while the responder is in RTR stay placed when it moves
 * to RTS: the map is the peer's, not reset with the requester's start.
 */
static void test_ooo_rtr_kept(void)
{
    static const uint8_t one[1024] = "one", two[64] = "two";
    SnicQp *qb;
    uint32_t e;
    Node a, b;

    xpair(&a, &b, SNIC_TRANSPORT_SACK, false);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    xwrite(&a, &b, SNIC_OP_RC_WRITE_LAST, e + 1, 0x1400, two, sizeof(two));
    node_connect_rts(&b, 7, 7);
    xwrite(&a, &b, SNIC_OP_RC_WRITE_FIRST, e, 0x1000, one, sizeof(one));
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 2) & SNIC_PSN_MASK);
    g_assert_false(qb->resp.in_write);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1400, 3), 3, "two", 3);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * A placed WRITE_FIRST at ePSN while a SEND is open breaks the op-code
 * sequence as it does in order (IBA 9.7.5.1.1): NAK Invalid Request,
 * nothing placed.
 */
static void test_ooo_first_in_send(void)
{
    static const uint8_t part[1024] = "send", data[1024] = "write";
    SnicQp *qb;
    SnicPkt p;
    uint32_t e;
    Node a, b;

    xpair(&a, &b, SNIC_TRANSPORT_SACK, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    node_post_recv(&b, 1, BUF + 0x8000, 4096);
    memset(&p, 0, sizeof(p));
    p.opcode = SNIC_OP_RC_SEND_FIRST;
    p.psn = e;
    p.payload = part;
    p.payload_len = sizeof(part);
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_MSG;
    xsend(&a, &b, &p);
    g_assert_true(qb->resp.in_send);
    xwrite(&a, &b, SNIC_OP_RC_WRITE_FIRST, e + 1, 0x1000, data,
           sizeof(data));
    g_assert_true(qb->resp.fatal);
    g_assert_cmpuint(qb->resp.ack_syndrome, ==, SNIC_AETH_NAK_INV_REQ);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1000, 5), 5, "\0\0\0\0\0", 5);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

static void test_xport_refused(void)
{
    xport_refused(SNIC_TRANSPORT_GBN);
    xport_refused(SNIC_TRANSPORT_DCTCP);
}

/* ---- SEND packets placed out of order ---- */

/* A SEND packet of the extension: message 'msg', 'off' bytes into it */
static void xsendmsg(Node *a, Node *b, uint8_t op, uint32_t psn, uint32_t msg,
                     uint32_t off, const void *data, uint32_t len,
                     uint32_t imm)
{
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    p.opcode = op;
    p.psn = psn & SNIC_PSN_MASK;
    p.payload = data;
    p.payload_len = len;
    p.imm = p.ieth_rkey = imm;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_MSG;
    p.xeth.msg = msg;
    p.xeth.offset = off;
    xsend(a, b, &p);
}

static uint8_t pat[4096];

static void pat_init(void)
{
    unsigned i;

    for (i = 0; i < sizeof(pat); i++) {
        pat[i] = i * 7 + 1;
    }
}

/* b's next completion: a receive of wr_id, len bytes, 'status' */
static void recv_done(Node *b, uint64_t wr_id, uint8_t status, uint32_t len)
{
    struct snic_cqe c;

    g_assert_true(node_poll_cq(b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, wr_id);
    g_assert_cmpuint(c.status, ==, status);
    if (status == SNIC_WC_SUCCESS) {
        g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV);
        g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, len);
    }
}

/* [addr, addr + len) of b is zero */
static void assert_zero(Node *b, uint64_t addr, uint32_t len)
{
    static const uint8_t zero[4096];
    uint32_t n;

    for (; len; addr += n, len -= n) {
        n = MIN(len, sizeof(zero));
        g_assert_cmpmem(fake_ptr(b->h, addr, n), n, zero, n);
    }
}

/*
 * One message of four packets, partly in order, partly placed ahead of
 * ePSN: each lands at its offset, a duplicate of a placed one is not
 * placed again, and the receive completes once, when the in-order
 * packet fills the gap, with the whole length.
 */
static void test_ooo_send_mixed(void)
{
    static const uint8_t other[1024] = "other";
    struct snic_cqe c;
    SnicQp *qb;
    uint32_t e;
    Node a, b;

    pat_init();
    xpair(&a, &b, SNIC_TRANSPORT_SACK, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    node_post_recv(&b, 7, BUF + 0x8000, 4096);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 2, 0, 2048, pat + 2048,
             1024, 0);
    g_assert_cmpuint(qb->resp.epsn, ==, e);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x8000 + 2048, 1024), 1024,
                    pat + 2048, 1024);
    assert_zero(&b, BUF + 0x8000, 2048);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_FIRST, e, 0, 0, pat, 1024, 0);
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 1) & SNIC_PSN_MASK);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_LAST, e + 3, 0, 3072, pat + 3072, 100,
             0);
    /* a duplicate of a placed packet: acknowledged, not placed again */
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 2, 0, 2048, other,
             sizeof(other), 0);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x8000 + 2048, 1024), 1024,
                    pat + 2048, 1024);
    g_assert_false(node_poll_cq(&b, &c));
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 1, 0, 1024, pat + 1024,
             1024, 0);
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 4) & SNIC_PSN_MASK);
    recv_done(&b, 7, SNIC_WC_SUCCESS, 3172);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_false(qb->resp.in_send);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x8000, 3172), 3172, pat, 3172);
    assert_zero(&b, BUF + 0x8000 + 3172, 4096 - 3172);
    g_assert_cmpuint(qb->state, ==, SNIC_QPS_RTS);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * The first packet lost, the second message (with immediate data)
 * complete before the first: nothing completes until the first packet
 * comes, then both do, in order, each into the receive WQE its number
 * names; and the last packet lost: the message before it waits in
 * order, the next one completes after it.
 */
static void test_ooo_send_two(void)
{
    struct snic_cqe c;
    SnicQp *qb;
    uint32_t e;
    Node a, b;

    pat_init();
    xpair(&a, &b, SNIC_TRANSPORT_IRN, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    node_post_recv(&b, 1, BUF + 0x8000, 4096);
    node_post_recv(&b, 2, BUF + 0x9000, 4096);
    node_post_recv(&b, 3, BUF + 0xa000, 4096);
    node_post_recv(&b, 4, BUF + 0xb000, 4096);
    /* message 0: e .. e + 2, message 1: e + 3, Only with Immediate */
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_ONLY_IMM, e + 3, 1, 0, pat + 100, 300,
             0xabc);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_LAST, e + 2, 0, 2048, pat + 2048, 500,
             0);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 1, 0, 1024, pat + 1024,
             1024, 0);
    g_assert_cmpuint(qb->resp.epsn, ==, e);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x9000, 300), 300, pat + 100, 300);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_FIRST, e, 0, 0, pat, 1024, 0);
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 4) & SNIC_PSN_MASK);
    recv_done(&b, 1, SNIC_WC_SUCCESS, 2548);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 2);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 300);
    g_assert_true(c.wc_flags & SNIC_WC_F_IMM);
    g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, 0xabc);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x8000, 2548), 2548, pat, 2548);
    /* message 2: e + 4 .. e + 6, its last lost; message 3: e + 7, e + 8 */
    e = (e + 4) & SNIC_PSN_MASK;
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_FIRST, e, 2, 0, pat, 1024, 0);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 1, 2, 1024, pat + 1024,
             1024, 0);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_LAST, e + 4, 3, 1024, pat + 1024, 10,
             0);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_FIRST, e + 3, 3, 0, pat, 1024, 0);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 2) & SNIC_PSN_MASK);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_LAST, e + 2, 2, 2048, pat + 2048, 1,
             0);
    recv_done(&b, 3, SNIC_WC_SUCCESS, 2049);
    recv_done(&b, 4, SNIC_WC_SUCCESS, 1034);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 5) & SNIC_PSN_MASK);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0xa000, 2049), 2049, pat, 2049);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0xb000, 1034), 1034, pat, 1034);
    assert_zero(&b, BUF + 0xb000 + 1034, 4096 - 1034);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * A SEND with Invalidate placed ahead of ePSN whose R_Key names no
 * memory window: completed, in order, as the in-order path does it
 * (Remote Invalid Request, NAK Invalid Request), after the message
 * before it completed.
 */
static void test_ooo_send_inv(void)
{
    SnicQp *qb;
    uint32_t e;
    Node a, b;

    pat_init();
    xpair(&a, &b, SNIC_TRANSPORT_SACK, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    node_post_recv(&b, 1, BUF + 0x8000, 4096);
    node_post_recv(&b, 2, BUF + 0x9000, 4096);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_ONLY_INV, e + 1, 1, 0, pat, 64,
             0x12345678);
    g_assert_false(qb->resp.fatal);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_ONLY, e, 0, 0, pat, 32, 0);
    recv_done(&b, 1, SNIC_WC_SUCCESS, 32);
    recv_done(&b, 2, SNIC_WC_REM_INV_REQ_ERR, 0);
    g_assert_true(qb->resp.fatal);
    g_assert_cmpuint(qb->resp.ack_syndrome, ==, SNIC_AETH_NAK_INV_REQ);
    g_assert_cmpuint(qb->resp.ack_psn, ==, (e + 1) & SNIC_PSN_MASK);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/* Is psn recorded as placed in the QP's map? */
static bool placed(SnicQp *qp, uint32_t psn)
{
    return snic_psnmap_get(snic_prog_ooo(qp)->placed, psn & SNIC_PSN_MASK);
}

/*
 * A WRITE with immediate packet (the extension): placed at BUF + off of
 * b, 'moff' bytes into message 'msg'
 */
static void xwimm(Node *a, Node *b, uint8_t op, uint32_t psn, uint32_t msg,
                  uint32_t moff, uint64_t off, const void *data, uint32_t len,
                  uint32_t imm)
{
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    p.opcode = op;
    p.psn = psn & SNIC_PSN_MASK;
    p.reth.va = BUF + off - moff;
    p.reth.rkey = b->lkey;
    p.reth.len = moff + len;
    p.payload = data;
    p.payload_len = len;
    p.imm = imm;
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_PLACE | SNIC_XETH_F_MSG;
    p.xeth.rkey = b->lkey;
    p.xeth.va = BUF + off;
    p.xeth.msg = msg;
    p.xeth.offset = moff;
    xsend(a, b, &p);
}

/* b's next completion: the WRITE with immediate of wr_id, len bytes */
static void write_imm_done(Node *b, uint64_t wr_id, uint32_t len,
                           uint32_t imm)
{
    struct snic_cqe c;

    g_assert_true(node_poll_cq(b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, wr_id);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, len);
    g_assert_true(c.wc_flags & SNIC_WC_F_IMM);
    g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, imm);
}

/*
 * A WRITE with immediate between two SENDs, its Middle lost: a hostile
 * Last (message number, offset) is refused without a trace; its Last
 * (and the SEND after it) are placed ahead of ePSN, a duplicate of the
 * Last is not placed again, nothing completes until the holes fill, then
 * the three complete in order, each taking its receive WQE once, the
 * WRITE's with its immediate data and length; a duplicate after that
 * completes nothing. A Last finding every completion slot taken is not
 * placed (it comes again).
 */
static void test_ooo_write_imm(void)
{
    static const uint8_t other[1024] = "other";
    struct snic_cqe c;
    SnicQp *qb;
    uint32_t e, i;
    Node a, b;

    pat_init();
    xpair(&a, &b, SNIC_TRANSPORT_SACK, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    node_post_recv(&b, 1, BUF + 0x8000, 4096);
    node_post_recv(&b, 2, BUF + 0x9000, 4096);
    node_post_recv(&b, 3, BUF + 0xa000, 4096);
    /* e: SEND (lost); e + 1 .. e + 3: WRITE_IMM (e + 2 lost); e + 4 SEND */
    xwimm(&a, &b, SNIC_OP_RC_WRITE_FIRST, e + 1, 1, 0, 0x1000, pat, 1024, 0);
    /* refused: a number more messages ahead than PSNs, an Only not at 0 */
    xwimm(&a, &b, SNIC_OP_RC_WRITE_LAST_IMM, e + 3, 1000, 2048, 0x1800,
          pat + 2048, 100, 0xabc);
    xwimm(&a, &b, SNIC_OP_RC_WRITE_ONLY_IMM, e + 3, 1, 2048, 0x1800,
          pat + 2048, 100, 0xabc);
    g_assert_false(placed(qb, e + 3));
    assert_zero(&b, BUF + 0x1800, 100);
    xwimm(&a, &b, SNIC_OP_RC_WRITE_LAST_IMM, e + 3, 1, 2048, 0x1800,
          pat + 2048, 100, 0xabc);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_ONLY_IMM, e + 4, 2, 0, pat + 7, 200,
             0x55);
    g_assert_true(placed(qb, e + 3));
    g_assert_true(placed(qb, e + 4));
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1800, 100), 100, pat + 2048, 100);
    /* a duplicate of the placed Last: not placed again */
    xwimm(&a, &b, SNIC_OP_RC_WRITE_LAST_IMM, e + 3, 1, 2048, 0x1800, other,
          100, 0xdead);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1800, 100), 100, pat + 2048, 100);
    g_assert_cmpuint(qb->resp.epsn, ==, e);
    g_assert_false(node_poll_cq(&b, &c));
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_ONLY, e, 0, 0, pat + 3, 50, 0);
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 2) & SNIC_PSN_MASK);
    recv_done(&b, 1, SNIC_WC_SUCCESS, 50);
    g_assert_false(node_poll_cq(&b, &c));
    xwimm(&a, &b, SNIC_OP_RC_WRITE_MIDDLE, e + 2, 1, 1024, 0x1400,
          pat + 1024, 1024, 0);
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 5) & SNIC_PSN_MASK);
    write_imm_done(&b, 2, 2148, 0xabc);
    g_assert_true(node_poll_cq(&b, &c));
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 3);
    g_assert_cmpuint(c.opcode, ==, SNIC_WC_RECV);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 200);
    g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, 0x55);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1000, 2148), 2148, pat, 2148);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x8000, 50), 50, pat + 3, 50);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0xa000, 200), 200, pat + 7, 200);
    assert_zero(&b, BUF + 0x9000, 4096);
    /* the duplicate again, now behind ePSN: acknowledged only */
    xwimm(&a, &b, SNIC_OP_RC_WRITE_LAST_IMM, e + 3, 1, 2048, 0x1800, other,
          100, 0xdead);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1800, 100), 100, pat + 2048, 100);

    /* messages 4 .. 10 ahead of a hole at ePSN take every completion slot */
    e = qb->resp.epsn;
    for (i = 0; i < 9; i++) {
        node_post_recv(&b, 10 + i, BUF + 0x8000, 4096);
    }
    for (i = 1; i <= SNIC_OOO_LASTS; i++) {
        xsendmsg(&a, &b, SNIC_OP_RC_SEND_ONLY, e + i, 3 + i, 0, pat, 8, 0);
        g_assert_true(placed(qb, e + i));
    }
    /* the eighth Last: no slot, not placed, nothing written */
    xwimm(&a, &b, SNIC_OP_RC_WRITE_ONLY_IMM, e + 8, 11, 0, 0x3000, pat, 64,
          7);
    g_assert_false(placed(qb, e + 8));
    assert_zero(&b, BUF + 0x3000, 64);
    /* in order, message 3 (a WRITE_IMM at ePSN) completes at once */
    xwimm(&a, &b, SNIC_OP_RC_WRITE_ONLY_IMM, e, 3, 0, 0x2000, pat, 64, 9);
    write_imm_done(&b, 10, 64, 9);
    for (i = 1; i <= SNIC_OOO_LASTS; i++) {
        recv_done(&b, 10 + i, SNIC_WC_SUCCESS, 8);
    }
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 8) & SNIC_PSN_MASK);
    /* and the eighth, sent again, now at ePSN */
    xwimm(&a, &b, SNIC_OP_RC_WRITE_ONLY_IMM, e + 8, 11, 0, 0x3000, pat, 64,
          7);
    write_imm_done(&b, 18, 64, 7);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x3000, 64), 64, pat, 64);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpuint(qb->state, ==, SNIC_QPS_RTS);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * A WRITE with immediate on a QP that takes its receive WQEs from an SRQ:
 * its Last ahead of ePSN is not placed (as a SEND's: the WQE cannot be
 * picked by number), and comes again; at ePSN it completes from the SRQ.
 */
static void test_ooo_write_imm_srq(void)
{
    struct snic_cqe c;
    SnicQp *qb;
    uint32_t e;
    Node a0, b0, a, b;

    pat_init();
    xpair(&a0, &b0, SNIC_TRANSPORT_IRN, true);
    node_create_srq(&b0, 0);
    node_add_qp(&b, &b0);
    node_add_qp(&a, &a0);
    g_assert_cmpuint(node_set_transport(&a, SNIC_TRANSPORT_IRN, 1), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&b, SNIC_TRANSPORT_IRN, 1), ==,
                     SNIC_ADMIN_OK);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    qb = snic_qp_get(b.h->core, b.qpn);
    g_assert_cmpuint(qb->srqn, !=, 0);
    e = qb->resp.epsn;
    node_post_srq_recv(&b, 9, BUF + 0xc000, 4096, b.lkey);
    xwimm(&a, &b, SNIC_OP_RC_WRITE_LAST_IMM, e + 1, 0, 1024, 0x1400,
          pat + 1024, 8, 0x77);
    g_assert_false(placed(qb, e + 1));
    assert_zero(&b, BUF + 0x1400, 8);
    xwimm(&a, &b, SNIC_OP_RC_WRITE_FIRST, e, 0, 0, 0x1000, pat, 1024, 0);
    xwimm(&a, &b, SNIC_OP_RC_WRITE_LAST_IMM, e + 1, 0, 1024, 0x1400,
          pat + 1024, 8, 0x77);
    g_assert_cmpuint(qb->resp.epsn, ==, (e + 2) & SNIC_PSN_MASK);
    write_imm_done(&b, 9, 1032, 0x77);
    g_assert_false(node_poll_cq(&b, &c));
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0x1000, 1032), 1032, pat, 1032);
    g_assert_cmpuint(qb->state, ==, SNIC_QPS_RTS);
    fake_host_free(a0.h);
    fake_host_free(b0.h);
}

/*
 * Hostile SEND packets ahead of ePSN are refused without a trace: a
 * message number far outside the window (or more messages ahead than
 * PSNs), an offset beyond the receive buffer (its error comes when the
 * packet arrives in order: Local Length Error, NAK Invalid Request, as
 * without placement), a SEND on an SRQ QP (not placed: it comes again),
 * a SEND with the extension on a QP that did not select it. Nothing is
 * written outside the buffers; the SRQ QP on the same device, and then
 * the go-back-N one, work on.
 */
static void test_ooo_send_hostile(void)
{
    static const uint32_t far[] = { 1000, 0x80000000u, 0xffffffffu, 2 };
    struct snic_cqe c;
    SnicQp *qb, *qb2;
    uint32_t e, i;
    Node a, b, a2, b2;

    pat_init();
    xpair(&a, &b, SNIC_TRANSPORT_SACK, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    node_post_recv(&b, 1, BUF + 0x8000, 2048);
    node_post_recv(&b, 2, BUF + 0x9000, 2048);
    node_post_recv(&b, 3, BUF + 0xa000, 2048);
    for (i = 0; i < G_N_ELEMENTS(far); i++) {
        /* message 'far' at e + 1: at most 1 message ahead there */
        xsendmsg(&a, &b, SNIC_OP_RC_SEND_ONLY, e + 1, far[i], 0, pat, 64, 0);
        g_assert_false(placed(qb, e + 1));
    }
    /* offset beyond the 2048-byte buffer, straddling its end */
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 2, 0, 2048, pat, 1024, 0);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_LAST, e + 2, 0, 1024 * 1024, pat, 1, 0);
    /* an offset that is no multiple of the MTU, a First not at 0 */
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 1, 0, 1000, pat, 1024, 0);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_FIRST, e + 1, 1, 1024, pat, 1024, 0);
    g_assert_false(placed(qb, e + 1));
    g_assert_false(placed(qb, e + 2));
    g_assert_cmpuint(qb->resp.epsn, ==, e);
    g_assert_cmpuint(qb->state, ==, SNIC_QPS_RTS);
    g_assert_false(qb->resp.fatal);
    g_assert_false(node_poll_cq(&b, &c));
    assert_zero(&b, BUF + 0x8000, 0x3000);
    /* in order, the packet beyond the buffer fails as IBA says */
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_FIRST, e, 0, 0, pat, 1024, 0);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 1, 0, 1024, pat, 1024, 0);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_MIDDLE, e + 2, 0, 2048, pat, 1024, 0);
    recv_done(&b, 1, SNIC_WC_LOC_LEN_ERR, 0);
    g_assert_true(qb->resp.fatal);
    g_assert_cmpuint(qb->resp.ack_syndrome, ==, SNIC_AETH_NAK_INV_REQ);
    assert_zero(&b, BUF + 0x8800, 0x2800);

    /* a QP on an SRQ of the same device: not placed, in order it is */
    node_create_srq(&b, 0);
    node_add_qp(&b2, &b);
    node_add_qp(&a2, &a);
    g_assert_cmpuint(node_set_transport(&a2, SNIC_TRANSPORT_SACK, 1), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&b2, SNIC_TRANSPORT_SACK, 1), ==,
                     SNIC_ADMIN_OK);
    node_connect(&a2, &b2, SNIC_MTU_1024, 7, 7);
    node_connect(&b2, &a2, SNIC_MTU_1024, 7, 7);
    qb2 = snic_qp_get(b2.h->core, b2.qpn);
    e = qb2->resp.epsn;
    node_post_srq_recv(&b, 9, BUF + 0xc000, 4096, b.lkey);
    xsendmsg(&a2, &b2, SNIC_OP_RC_SEND_LAST, e + 1, 0, 1024, pat + 1024, 8,
             0);
    g_assert_false(placed(qb2, e + 1));
    assert_zero(&b, BUF + 0xc000, 4096);
    xsendmsg(&a2, &b2, SNIC_OP_RC_SEND_FIRST, e, 0, 0, pat, 1024, 0);
    xsendmsg(&a2, &b2, SNIC_OP_RC_SEND_LAST, e + 1, 0, 1024, pat + 1024, 8,
             0);
    while (node_poll_cq(&b, &c) && GUINT64_FROM_LE(c.wr_id) != 9) {
        /* b's first QP's flushed receives */
    }
    g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, 9);
    g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
    g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, 1032);
    g_assert_cmpmem(fake_ptr(b.h, BUF + 0xc000, 1032), 1032, pat, 1032);
    fake_host_free(a.h);
    fake_host_free(b.h);

    /* the extension on a go-back-N QP: dropped, then without it, taken */
    xpair(&a, &b, SNIC_TRANSPORT_GBN, true);
    qb = snic_qp_get(b.h->core, b.qpn);
    e = qb->resp.epsn;
    node_post_recv(&b, 1, BUF + 0x8000, 4096);
    xsendmsg(&a, &b, SNIC_OP_RC_SEND_ONLY, e, 0, 0, pat, 64, 0);
    g_assert_cmpuint(FAKE_STAT(b.h, rdma_rx_dropped), ==, 1);
    g_assert_cmpuint(qb->resp.epsn, ==, e);
    g_assert_false(node_poll_cq(&b, &c));
    assert_zero(&b, BUF + 0x8000, 64);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/*
 * The requester numbers the messages that take a receive WQE (SEND,
 * SEND with Immediate, WRITE with Immediate: its packets carry their
 * number besides their address), not WRITEs, and a SEND
 * sent again carries its number again: counted from the oldest WQE not
 * completed, after others completed.
 */
static void test_ooo_send_numbers(void)
{
    static const uint8_t wrs[] = {
        SNIC_WR_RDMA_WRITE, SNIC_WR_SEND, SNIC_WR_RDMA_WRITE_IMM,
        SNIC_WR_SEND_IMM, SNIC_WR_SEND,
    };
    static const int32_t want[] = { -1, 0, 1, 2, 3 };
    uint32_t i, psn0 = 0, seen = 0;
    SnicPkt ack;
    Node a, b;

    xpair(&a, &b, SNIC_TRANSPORT_SACK, true);
    for (i = 0; i < G_N_ELEMENTS(wrs); i++) {
        node_post_send(&a, i, wrs[i], BUF, 100, BUF + 0x10000, b.lkey, 0,
                       a.lkey);
    }
    fake_run(a.h);
    g_assert_cmpuint(a.h->frames->len, ==, G_N_ELEMENTS(wrs));
    for (i = 0; i < 2 * G_N_ELEMENTS(wrs) && i < a.h->frames->len; i++) {
        GByteArray *f = g_ptr_array_index(a.h->frames, i);
        SnicPkt p;
        uint32_t k;

        g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==,
                        SNIC_PARSE_OK);
        psn0 = i ? psn0 : p.psn;
        k = (p.psn - psn0) & SNIC_PSN_MASK;
        g_assert_cmpuint(k, <, G_N_ELEMENTS(wrs));
        g_assert_true(p.xport);
        if (want[k] < 0) {
            g_assert_false(p.xeth.flags & SNIC_XETH_F_MSG);
        } else {
            g_assert_true(p.xeth.flags & SNIC_XETH_F_MSG);
            g_assert_cmpuint(p.xeth.msg, ==, want[k]);
            g_assert_cmpuint(p.xeth.offset, ==, 0);
            seen += i >= G_N_ELEMENTS(wrs) && k == 3;
        }
        if (i == G_N_ELEMENTS(wrs) - 1) {
            /* the first three acknowledged, the rest sent again */
            memset(&ack, 0, sizeof(ack));
            ack.opcode = SNIC_OP_RC_ACK;
            ack.psn = (psn0 + 2) & SNIC_PSN_MASK;
            ack.aeth.syndrome = SNIC_AETH_ACK;
            xsend(&b, &a, &ack);
            fake_advance(a.h, 2000000);
            fake_run(a.h);
        }
    }
    g_assert_cmpuint(seen, ==, 1);
    fake_host_free(a.h);
    fake_host_free(b.h);
}

/* App. B: the finest unit whose rate keeps 7 significant bits. */
static void test_rate_precision(void)
{
    SnicRateCredit rc = { 0 };

    snic_rate_set(&rc, 100000);     /* 12.5 B/ns: per 16 ns */
    g_assert_cmpuint(rc.level, ==, 1);
    g_assert_cmpuint(rc.r[1], ==, 200);
    snic_rate_set(&rc, 10000);      /* per 256 ns */
    g_assert_cmpuint(rc.level, ==, 2);
    g_assert_cmpuint(rc.r[2], ==, 320);
    snic_rate_set(&rc, 1000);       /* per 4096 ns */
    g_assert_cmpuint(rc.level, ==, 3);
    g_assert_cmpuint(rc.r[3], ==, 512);
    snic_rate_set(&rc, 40);         /* DCQCN's R_AI: per 65536 ns */
    g_assert_cmpuint(rc.level, ==, 4);
    g_assert_cmpuint(rc.r[4], ==, 327);
}

/*
 * Pacing on the virtual clock: a flow sending 1000-byte packets whenever
 * its one timer says it may keeps the rate within its representation's
 * rounding, at 40 Mb/s as at 100 Gb/s, and at rates whose unit earns
 * more than the 1000-byte bucket (185 Mb/s: 1515 bytes per 65.5 us;
 * 3 Gb/s: 1536 per 4 us; 50 Gb/s: 1600 per 256 ns), whose credit beyond
 * the bucket once was lost (185 Mb/s was 1.2 % slow).
 */
static void test_rate_pacing(void)
{
    static const uint32_t rates[] = { 40, 185, 1000, 3000, 25000, 50000,
                                      100000 };
    unsigned i, k;

    for (i = 0; i < G_N_ELEMENTS(rates); i++) {
        SnicRateCredit rc = { .burst = 1000, .ready_at = UINT64_MAX };
        uint64_t now = 0, timers = 0;
        double ideal, err;

        snic_rate_set(&rc, rates[i]);
        for (k = 0; k < 1000; k++) {
            g_assert_true(snic_rate_ready(&rc, now));
            snic_rate_spend(&rc, now, 1000);
            if (rc.ready_at != UINT64_MAX) {
                timers++;
                g_assert_false(snic_rate_ready(&rc, rc.ready_at - 1) &&
                               rc.ready_at - 1 > now);
                now = rc.ready_at;
                rc.ready_at = UINT64_MAX;
            }
        }
        /* the first packet used the full bucket: 999 were paced */
        ideal = 999.0 * 1000 * 8 / (rates[i] * 1e-3);
        err = fabs((double)now - ideal) / ideal;
        g_test_message("%6u Mb/s: 1000 packets in %" G_GUINT64_FORMAT
                       " ns (ideal %.0f, error %.4f), %" G_GUINT64_FORMAT
                       " timers", rates[i], now, ideal, err, timers);
        g_assert_cmpfloat(err, <, 1.0 / SNIC_RATE_MIN_PRECISION);
        g_assert_cmpuint(timers, <=, 1000);
    }
}

/*
 * A backlogged flow among many: the scheduler offers it a turn every
 * quarter of its packet time, and it sends one packet when it has credit
 * (its timer unused). Over 2000 packet times it keeps its rate within 1 %
 * (185 Mb/s ran at 123.4 before the bucket kept a unit's credit more
 * than the burst).
 */
static void test_rate_pacing_turns(void)
{
    static const uint32_t rates[] = { 40, 185, 1000, 3000, 25000, 50000 };
    const uint32_t pkt = 1024 + SNIC_RATE_HDR_BYTES;
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(rates); i++) {
        SnicRateCredit rc = { .burst = 1024, .ready_at = UINT64_MAX };
        uint64_t gap = (uint64_t)pkt * 8000 / rates[i];     /* ns */
        uint64_t now, end = 2000 * gap, sent = 0;
        double got;

        snic_rate_set(&rc, rates[i]);
        for (now = 0; now < end; now += gap / 4) {
            if (snic_rate_ready(&rc, now)) {
                snic_rate_spend(&rc, now, pkt);
                sent++;
            }
        }
        got = sent * pkt * 8e3 / end;
        g_test_message("%6u Mb/s: %" G_GUINT64_FORMAT " packets, %.1f Mb/s",
                       rates[i], sent, got);
        g_assert_cmpfloat(fabs(got - rates[i]) / rates[i], <, 0.01);
    }
}

/* ---- one QP alone, fed ACKs as the completer would get them ---- */

typedef struct Solo {
    Node a, b;
    SnicCore *c;
    SnicQp *qp;
    uint32_t p0;                /* its first PSN */
} Solo;

/* ... on ports of 'mbps' (link-speed-mbps; 0: the default) */
static void solo_new_speed(Solo *s, uint8_t program, uint32_t mbps)
{
    NodeDev dev = { .cfg.link_speed_mbps = mbps };

    node_init_dev(&s->a, NULL, 1, &dev);
    node_init_dev(&s->b, NULL, 2, &dev);
    g_assert_cmpuint(node_set_transport(&s->a, program, 1), ==,
                     SNIC_ADMIN_OK);
    node_connect(&s->a, &s->b, SNIC_MTU_1024, 7, 7);
    s->c = s->a.h->core;
    s->qp = snic_qp_get(s->c, s->a.qpn);
    s->p0 = s->qp->req.dde.wnd_start;
}

static void solo_new(Solo *s, uint8_t program)
{
    solo_new_speed(s, program, 0);
}

static void solo_free(Solo *s)
{
    fake_host_free(s->a.h);
    fake_host_free(s->b.h);
}

/* The engine sent segments up to n (from p0) */
static void solo_sent(Solo *s, uint32_t n)
{
    s->qp->req.dde.sent = (s->p0 + n - s->qp->req.dde.wnd_start) &
                          SNIC_PSN_MASK;
}

/* An ACK for p0 + i arrives */
static void solo_ack(Solo *s, uint32_t i)
{
    SnicPkt p = {
        .opcode = SNIC_OP_RC_ACK,
        .psn = (s->p0 + i) & SNIC_PSN_MASK,
        .aeth = { .syndrome = SNIC_AETH_ACK },
    };

    snic_req_response(s->c, s->qp, &p);
}

static uint32_t window(Solo *s)
{
    return s->qp->req.credit.window;
}

/* RFC 6582: halving on three duplicate ACKs, inflation, deflation. */
static void test_newreno(void)
{
    Solo s;
    SnicDde *d;

    solo_new(&s, SNIC_TRANSPORT_NEWRENO);
    d = &s.qp->req.dde;
    g_assert_cmpuint(window(&s), ==, 10);
    solo_sent(&s, 10);
    solo_ack(&s, 9);                    /* slow start: +10 */
    g_assert_cmpuint(window(&s), ==, 20);
    solo_sent(&s, 30);                  /* 20 in flight, 10..29 */
    solo_ack(&s, 9);
    solo_ack(&s, 9);
    g_assert_cmpuint(window(&s), ==, 20);
    g_assert_false(snic_dde_rtx_pending(s.qp));
    solo_ack(&s, 9);                    /* the third: fast retransmit */
    g_assert_cmpuint(window(&s), ==, 10 + 3);   /* ssthresh 20 / 2, + 3 */
    g_assert_cmpuint(d->rtx_from, ==, 0);       /* segment 10 alone */
    g_assert_cmpuint(d->rtx_to, ==, 1);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 1);
    solo_ack(&s, 9);                    /* inflation */
    solo_ack(&s, 9);
    g_assert_cmpuint(window(&s), ==, 15);
    solo_ack(&s, 14);                   /* partial: 5 acked, recover 29 */
    g_assert_cmpuint(window(&s), ==, 15 - 5 + 1);
    g_assert_cmpuint(d->rtx_from, ==, 0);       /* segment 15 next */
    g_assert_cmpuint(d->rtx_to, ==, 1);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 2);
    solo_ack(&s, 29);                   /* full ACK: deflate to ssthresh */
    g_assert_cmpuint(window(&s), ==, 10);
    g_assert_false(snic_dde_rtx_pending(s.qp));
    solo_sent(&s, 40);
    solo_ack(&s, 31);                   /* congestion avoidance: +0 */
    g_assert_cmpuint(window(&s), ==, 10);
    /* a timeout: cwnd 1, everything in flight again, recover = 39 */
    fake_advance(s.a.h, 2000000);
    g_assert_cmpuint(window(&s), ==, 1);
    g_assert_cmpuint(d->rtx_to - d->rtx_from, ==, 8);
    /* duplicates for what the timeout already resends start nothing */
    d->rtx_from = d->rtx_to = 0;
    solo_ack(&s, 31);
    solo_ack(&s, 31);
    solo_ack(&s, 31);
    g_assert_false(snic_dde_rtx_pending(s.qp));
    g_assert_cmpuint(window(&s), ==, 1);
    solo_free(&s);
}

/* Reno: the first new ACK ends recovery, partial or not. */
static void test_reno(void)
{
    Solo s;

    solo_new(&s, SNIC_TRANSPORT_RENO);
    solo_sent(&s, 10);
    solo_ack(&s, 9);
    solo_sent(&s, 30);
    solo_ack(&s, 9);
    solo_ack(&s, 9);
    solo_ack(&s, 9);
    g_assert_cmpuint(window(&s), ==, 13);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 1);
    solo_ack(&s, 9);
    g_assert_cmpuint(window(&s), ==, 14);
    solo_ack(&s, 14);                   /* partial, but Reno exits */
    g_assert_cmpuint(window(&s), ==, 10);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 1);
    solo_free(&s);
}

/* An ACK for p0 + i with the SACK block [p0 + lo, p0 + hi) */
static void solo_sack(Solo *s, uint32_t i, uint32_t lo, uint32_t hi)
{
    SnicPkt p = {
        .opcode = SNIC_OP_RC_ACK,
        .psn = (s->p0 + i) & SNIC_PSN_MASK,
        .aeth = { .syndrome = SNIC_AETH_ACK },
        .xport = true,
        .xeth = {
            .flags = SNIC_XETH_F_SACK,
            .sack_lo = (s->p0 + lo) & SNIC_PSN_MASK,
            .sack_hi = (s->p0 + hi) & SNIC_PSN_MASK,
        },
    };

    snic_req_response(s->c, s->qp, &p);
}

/*
 * Reno and NewReno place out of order (SNIC_PROG_XPORT), so their ACKs
 * carry SACK blocks, which RFC 6582 does not use: one that does not move
 * the cumulative PSN counts as a duplicate ACK, one that does as an ACK,
 * and only the oldest segment is resent, never the holes the blocks show.
 */
static void test_newreno_sack_blocks(void)
{
    Solo s;
    SnicDde *d;

    solo_new(&s, SNIC_TRANSPORT_NEWRENO);
    d = &s.qp->req.dde;
    solo_sent(&s, 10);
    solo_sack(&s, 9, 0, 0);             /* slow start: +10 */
    g_assert_cmpuint(window(&s), ==, 20);
    solo_sent(&s, 30);
    solo_sack(&s, 9, 11, 12);           /* 10 lost, 12 too */
    solo_sack(&s, 9, 11, 12);
    g_assert_false(snic_dde_rtx_pending(s.qp));
    solo_sack(&s, 9, 13, 14);           /* the third: fast retransmit */
    g_assert_cmpuint(window(&s), ==, 10 + 3);
    g_assert_cmpuint(d->rtx_from, ==, 0);       /* segment 10 alone */
    g_assert_cmpuint(d->rtx_to, ==, 1);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 1);
    solo_sack(&s, 9, 13, 16);           /* inflation */
    g_assert_cmpuint(window(&s), ==, 14);
    d->rtx_from = d->rtx_to = 0;        /* the engine sent segment 10 */
    solo_sack(&s, 11, 13, 16);          /* partial: 12 next, 2 acked */
    g_assert_cmpuint(window(&s), ==, 14 - 2 + 1);
    g_assert_cmpuint(d->rtx_to - d->rtx_from, ==, 1);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 2);
    solo_sack(&s, 29, 0, 0);            /* full ACK: deflate */
    g_assert_cmpuint(window(&s), ==, 10);
    solo_free(&s);

    solo_new(&s, SNIC_TRANSPORT_RENO);  /* Reno: the same evidence */
    solo_sent(&s, 10);
    solo_sack(&s, 9, 0, 0);
    solo_sent(&s, 30);
    solo_sack(&s, 9, 11, 12);
    solo_sack(&s, 9, 11, 13);
    solo_sack(&s, 9, 11, 14);
    g_assert_cmpuint(window(&s), ==, 13);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 1);
    solo_sack(&s, 11, 13, 14);          /* a new ACK ends recovery */
    g_assert_cmpuint(window(&s), ==, 10);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 1);
    solo_free(&s);
}

/*
 * The data packets the engine sent since the last call, as offsets of
 * their PSNs from p0 into psn[] (at most max); forgets them.
 */
static unsigned solo_tx(Solo *s, uint32_t *psn, unsigned max)
{
    GPtrArray *fr = s->a.h->frames;
    unsigned i, n = 0;

    for (i = 0; i < fr->len; i++) {
        GByteArray *f = g_ptr_array_index(fr, i);
        SnicPkt p;

        g_assert_cmpint(snic_wire_parse(f->data, f->len, &p), ==,
                        SNIC_PARSE_OK);
        g_assert_cmpuint(n, <, max);
        psn[n++] = (p.psn - s->p0) & SNIC_PSN_MASK;
    }
    g_ptr_array_set_size(fr, 0);
    return n;
}

/*
 * Retransmissions obey the window (Tonic 3.3.1: nothing beyond the first
 * unacknowledged segment + W goes out, resent or new): after a timeout
 * with 20 segments out, NewReno's and Reno's cwnd of one lets exactly one
 * go, the oldest; each ACK then grows the window as slow start does and
 * the marked segments go in order, as many as it allows.
 */
static void rto_one_segment(uint8_t program)
{
    uint32_t psn[64];
    unsigned i;
    Solo s;

    solo_new(&s, program);
    node_post_send(&s.a, 1, SNIC_WR_RDMA_WRITE, BUF, 40 * 1024,
                   BUF, s.b.lkey, 0, s.a.lkey);
    fake_run(s.a.h);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 10);     /* IW */
    solo_ack(&s, 9);                    /* slow start: cwnd 20 */
    fake_run(s.a.h);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 20);
    g_assert_cmpuint(psn[0], ==, 10);
    g_assert_cmpuint(psn[19], ==, 29);
    fake_advance(s.a.h, 2000000);       /* the RTO: 10..29 are lost */
    fake_run(s.a.h);
    g_assert_cmpuint(window(&s), ==, 1);
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 1);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 1);
    g_assert_cmpuint(psn[0], ==, 10);
    fake_run(s.a.h);                    /* nothing more until an ACK */
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 0);
    solo_ack(&s, 10);                   /* cwnd 2: 11, 12 */
    fake_run(s.a.h);
    g_assert_cmpuint(window(&s), ==, 2);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 2);
    g_assert_cmpuint(psn[0], ==, 11);
    g_assert_cmpuint(psn[1], ==, 12);
    solo_ack(&s, 12);                   /* cwnd 4: 13 .. 16 */
    fake_run(s.a.h);
    g_assert_cmpuint(window(&s), ==, 4);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 4);
    for (i = 0; i < 4; i++) {
        g_assert_cmpuint(psn[i], ==, 13 + i);
    }
    g_assert_true(snic_dde_rtx_pending(s.qp));    /* 17 .. 29 */
    solo_free(&s);
}

static void test_rto_one_segment(void)
{
    rto_one_segment(SNIC_TRANSPORT_NEWRENO);
    rto_one_segment(SNIC_TRANSPORT_RENO);
}

/*
 * RFC 6675 with one block per ACK: recovery starts when DupThresh
 * segments above a hole are SACKed, and only holes are resent, each once.
 */
static void test_sack(void)
{
    Solo s;
    SnicDde *d;

    solo_new(&s, SNIC_TRANSPORT_SACK);
    d = &s.qp->req.dde;
    g_assert_cmpuint(window(&s), ==, 10);
    solo_sent(&s, 10);
    solo_ack(&s, 9);                    /* slow start: +10 */
    g_assert_cmpuint(window(&s), ==, 20);
    solo_sent(&s, 30);                  /* 10..29 in flight */
    solo_sack(&s, 9, 11, 12);
    solo_sack(&s, 9, 11, 13);
    g_assert_false(snic_dde_rtx_pending(s.qp));
    g_assert_cmpuint(window(&s), ==, 20 + 2);   /* SACKed: left the net */
    solo_sack(&s, 9, 11, 14);           /* 3 above segment 10: lost */
    /* ssthresh = (20 - 3 SACKed) / 2; cwnd = ssthresh, + the SACKed */
    g_assert_cmpuint(window(&s), ==, 8 + 3);
    g_assert_cmpuint(d->rtx_from, ==, 0);       /* segment 10 alone */
    g_assert_cmpuint(d->rtx_to, ==, 1);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 1);
    d->rtx_from = d->rtx_to = 0;        /* the engine resent it */
    solo_sack(&s, 9, 15, 17);           /* 14 has only two above it */
    g_assert_false(snic_dde_rtx_pending(s.qp));
    solo_sack(&s, 9, 15, 18);           /* now three: 14, never 11..13 */
    g_assert_cmpuint(d->rtx_from, ==, 4);
    g_assert_cmpuint(d->rtx_to, ==, 5);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 2);
    d->rtx_from = d->rtx_to = 0;
    solo_sack(&s, 9, 15, 18);           /* the same block: nothing new */
    g_assert_false(snic_dde_rtx_pending(s.qp));
    solo_ack(&s, 17);                   /* partial: still recovering */
    g_assert_cmpuint(window(&s), ==, 8);
    solo_ack(&s, 29);                   /* recover reached: cwnd 8 */
    g_assert_cmpuint(window(&s), ==, 8);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 2);
    solo_free(&s);
}

/* An ACK for p0 + i echoing the responder's CE count 'ce' (DCTCP) */
static void solo_ece(Solo *s, uint32_t i, uint32_t ce)
{
    SnicPkt p = {
        .opcode = SNIC_OP_RC_ACK,
        .psn = (s->p0 + i) & SNIC_PSN_MASK,
        .aeth = { .syndrome = SNIC_AETH_ACK },
        .xport = true,
        .xeth = { .flags = SNIC_XETH_F_ECE, .offset = ce },
    };

    snic_req_response(s->c, s->qp, &p);
}

/*
 * DCTCP's sender (RFC 8257 3.3, g = 1/16, alpha from 1) against the
 * paper's rules in floating point: at the end of each window of data
 * alpha = (1 - g) alpha + g F with F its marked fraction; marks cut the
 * window to cwnd (1 - alpha / 2) once a round trip; unmarked ACKs grow it
 * (slow start, then one segment a window). Windows (marked / acked):
 * 0/10, 5/10 (cut), 5/10 (more marks in the same round trip: no cut),
 * 0/11 (no marks: no cut, growth), 3/12 (cut), then a loss.
 */
static void test_dctcp(void)
{
    const double g = 1.0 / 16;
    double alpha = 1, cwnd = 10, ssthresh = 128;
    struct snic_transport_info t;
    Solo s;
    SnicDde *d;

    solo_new(&s, SNIC_TRANSPORT_DCTCP);
    d = &s.qp->req.dde;
    query(&s.a, s.a.qpn, 0, &t);
    g_assert_cmpuint(t.flags, ==, SNIC_TRANSPORT_F_TCP_ACKS |
                     SNIC_TRANSPORT_F_ECE);
    g_assert_cmpuint(window(&s), ==, 10);
    /* 0 of 10 marked: a window ends (alpha decays), slow start +10 */
    solo_sent(&s, 10);
    solo_ece(&s, 9, 0);
    alpha = (1 - g) * alpha;
    cwnd += 10;
    g_assert_cmpuint(window(&s), ==, 20);
    /* 20 in flight; 5 of the first 10 marked: alpha, then a cut */
    solo_sent(&s, 30);
    solo_ece(&s, 19, 5);
    alpha = (1 - g) * alpha + g * 5 / 10;
    cwnd = ssthresh = cwnd * (1 - alpha / 2);
    g_test_message("alpha %.4f: cwnd %.3f, window %u", alpha, cwnd,
                   window(&s));
    g_assert_cmpuint(window(&s), ==, (unsigned)cwnd);
    g_assert_cmpuint(window(&s), ==, 10);               /* 20 * 279/512 */
    /* more marks before what the cut saw in flight is acked: no cut */
    solo_ece(&s, 24, 10);
    g_assert_cmpuint(window(&s), ==, 10);
    /* the window ends (5 of 10 marked over it); unmarked: it grows */
    solo_ece(&s, 29, 10);
    alpha = (1 - g) * alpha + g * 5 / 10;
    cwnd += 5 / cwnd;
    g_assert_cmpuint(window(&s), ==, (unsigned)cwnd);
    g_assert_cmpuint(window(&s), ==, 11);
    /* a window without marks: alpha decays, no cut, one more segment */
    solo_sent(&s, 41);
    solo_ece(&s, 40, 10);
    alpha = (1 - g) * alpha;
    cwnd += 11 / cwnd;
    g_assert_cmpuint(window(&s), ==, (unsigned)cwnd);
    g_assert_cmpuint(window(&s), ==, 12);
    /* an older count (a reordered ACK) brings no marks */
    solo_sent(&s, 53);
    solo_ece(&s, 41, 9);
    cwnd += 1 / cwnd;
    g_assert_cmpuint(window(&s), ==, (unsigned)cwnd);
    /* 3 of the window's 12 marked: F = 1/4, and a cut with that alpha */
    solo_ece(&s, 52, 13);
    alpha = (1 - g) * alpha + g * 3 / 12;
    cwnd = ssthresh = cwnd * (1 - alpha / 2);
    g_test_message("alpha %.4f: cwnd %.3f, window %u", alpha, cwnd,
                   window(&s));
    g_assert_cmpuint(window(&s), ==, (unsigned)cwnd);
    g_assert_cmpuint(window(&s), ==, 7);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 0);
    /* a loss: the third duplicate halves and goes back N from the hole */
    solo_sent(&s, 60);
    solo_ece(&s, 52, 13);
    solo_ece(&s, 52, 13);
    g_assert_false(snic_dde_rtx_pending(s.qp));
    solo_ece(&s, 52, 13);
    g_assert_cmpuint(window(&s), ==, (unsigned)(cwnd / 2));
    g_assert_cmpuint(d->rtx_from, ==, 0);
    g_assert_cmpuint(d->rtx_to, ==, 7);                 /* 53 .. 59 */
    /* duplicates for what went back already start nothing more */
    d->rtx_from = d->rtx_to = 0;
    solo_ece(&s, 52, 13);
    solo_ece(&s, 52, 13);
    solo_ece(&s, 52, 13);
    g_assert_false(snic_dde_rtx_pending(s.qp));
    g_assert_cmpuint(s.qp->rtx_segments, ==, 7);
    /*
     * a peer's count leaping by 2^31 - 1: marks count for no more than
     * the segments acknowledged (F <= 1, alpha <= 1), so it cuts the
     * window by half at most, never below DCTCP's two segments
     */
    solo_ece(&s, 59, 13 + 0x7fffffffu);
    g_assert_cmpuint(window(&s), ==, 2);
    solo_free(&s);
}

/* An ACK of p0 + i carrying only the extension flags 'f' (PULL, NACK) */
static void solo_xack(Solo *s, uint32_t i, uint8_t f, uint32_t psn)
{
    SnicPkt p = {
        .opcode = SNIC_OP_RC_ACK,
        .psn = (s->p0 + i) & SNIC_PSN_MASK,
        .aeth = { .syndrome = SNIC_AETH_ACK },
        .xport = true,
        .xeth = { .flags = f, .msg = psn, .sack_lo = psn },
    };

    snic_req_response(s->c, s->qp, &p);
}

/*
 * Each program takes only its own feedback: NDP's PULLs and NACKs are
 * dropped on DCTCP's and IRN's QPs; a SACK block counts only where the
 * program places out of order (IRN resends the hole below it at once),
 * while DCTCP, which delivers in order, takes the ACK as a duplicate and
 * goes back N on the third.
 */
static void test_foreign_feedback(void)
{
    static const uint8_t progs[] = {
        SNIC_TRANSPORT_DCTCP, SNIC_TRANSPORT_IRN,
    };
    unsigned i;
    Solo s;

    for (i = 0; i < G_N_ELEMENTS(progs); i++) {
        uint64_t dropped;

        solo_new(&s, progs[i]);
        solo_sent(&s, 8);
        dropped = FAKE_STAT(s.a.h, rdma_rx_dropped);
        solo_xack(&s, 0, SNIC_XETH_F_PULL, 5);
        solo_xack(&s, 0, SNIC_XETH_F_NACK | SNIC_XETH_F_TRIMMED,
                  (s.p0 + 1) & SNIC_PSN_MASK);
        solo_xack(&s, 0, SNIC_XETH_F_NACK, (s.p0 + 2) & SNIC_PSN_MASK);
        g_assert_cmpuint(FAKE_STAT(s.a.h, rdma_rx_dropped), ==, dropped + 3);
        g_assert_cmpuint(s.qp->req.dde.wnd_start, ==, s.p0);
        g_assert_false(snic_dde_rtx_pending(s.qp));
        solo_ack(&s, 0);
        solo_sack(&s, 0, 3, 4);             /* 1, 2 missing */
        if (progs[i] == SNIC_TRANSPORT_IRN) {
            g_assert_cmpuint(s.qp->req.dde.rtx_from, ==, 0);
            g_assert_cmpuint(s.qp->req.dde.rtx_to, ==, 2);
        } else {
            g_assert_false(snic_dde_rtx_pending(s.qp));
            solo_sack(&s, 0, 3, 5);
            solo_sack(&s, 0, 3, 6);
            g_assert_cmpuint(s.qp->req.dde.rtx_from, ==, 0);
            g_assert_cmpuint(s.qp->req.dde.rtx_to, ==, 7);   /* 1 .. 7 */
        }
        solo_free(&s);
    }
}

/*
 * NDP through a trimming switch: two senders' first windows meet at one
 * receiver's port, the switch cuts what its queue cannot take to the
 * headers, the receiver NACKs each trimmed PSN it lacks and pulls, and
 * the senders resend those segments on the NACKs: everything arrives,
 * content checked, and no retransmission timer ever expires.
 */
static void test_ndp_trimmed(void)
{
    const FabricConfig cfg = {
        .nodes = 3,
        .seed = 11,
        .sw = {
            .buffer_bytes = 4 << 20,
            .default_priority = 3,
            .trim_threshold = 16384,
            .trim_dscp = SNIC_SIM_TRIM_DSCP_DEFAULT,
        },
        .link = {
            .bandwidth_bps = 100000000000ull, .delay_ns = 1000,
            .eth_framing = true,
        },
    };
    const unsigned writes = 4, len = 65536;
    const SnicSimSwitchPortStats *st;
    struct snic_transport_info t;
    uint32_t rtx = 0;
    unsigned i, k, done = 0;
    struct snic_cqe c;
    Node rx[2];
    Fabric f;

    fabric_new(&f, &cfg);
    for (i = 0; i < 2; i++) {
        fabric_flow_program(&f, i, 2, SNIC_MTU_4096, &rx[i],
                            SNIC_TRANSPORT_NDP);
        node_fill(&f.node[i], BUF, writes * len, i + 1);
        for (k = 0; k < writes; k++) {
            node_post_send(&f.node[i], k, SNIC_WR_RDMA_WRITE,
                           BUF + k * len, len,
                           BUF + (uint64_t)(i * writes + k) * len,
                           f.node[2].lkey, 0, f.node[i].lkey);
        }
    }
    while (done < 2 * writes) {
        snic_sim_run(f.sim, 100000);
        for (i = 0; i < 2; i++) {
            while (node_poll_cq(&f.node[i], &c)) {
                g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
                done++;
            }
        }
        g_assert_cmpuint(snic_sim_now(f.sim), <, 1000000000ull);
    }
    st = snic_sim_switch_port_stats(f.sw, 2);
    for (i = 0; i < 2; i++) {
        g_assert_cmpmem(fake_ptr(f.node[2].h, BUF + i * writes * len,
                                 writes * len), writes * len,
                        fake_ptr(f.node[i].h, BUF, writes * len),
                        writes * len);
        query(&f.node[i], f.node[i].qpn, 0, &t);
        g_assert_cmpuint(t.program, ==, SNIC_TRANSPORT_NDP);
        rtx += GUINT32_FROM_LE(t.rtx_segments);
        g_assert_cmpuint(f.node[i].h->events[SNIC_TRACE_TIMEOUT], ==, 0);
    }
    g_test_message("NDP: %" G_GUINT64_FORMAT " packets trimmed, %u "
                   "segments resent on NACKs", st->trimmed, rtx);
    g_assert_cmpuint(st->trimmed, >, 0);
    g_assert_cmpuint(rtx, >, 0);
    g_assert_cmpuint(rtx, <=, st->trimmed);     /* only what was trimmed */
    fabric_free(&f);
}

/*
 * NDP's timeout (NDP 3.2): only the segments neither ACKed nor NACKed go
 * again, not everything from the oldest: what the ACKs' SACK blocks said
 * the receiver holds stays, and the holes go one run at a time.
 */
static void test_ndp_timeout(void)
{
    Solo s;
    SnicDde *d;

    solo_new(&s, SNIC_TRANSPORT_NDP);
    d = &s.qp->req.dde;
    solo_sent(&s, 8);
    solo_sack(&s, 0, 3, 5);             /* 1, 2 missing; 3, 4 in; 5.. ? */
    g_assert_false(snic_dde_rtx_pending(s.qp));
    fake_advance(s.a.h, 2000000);       /* the RTO */
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 1);
    g_assert_cmpuint(d->rtx_from, ==, 0);       /* 1, 2: the first hole */
    g_assert_cmpuint(d->rtx_to, ==, 2);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 2);
    g_assert_cmpuint(snic_transport_tokens(s.qp), >=, 2);
    d->rtx_from = d->rtx_to = 0;        /* the engine resent them */
    solo_ack(&s, 4);                    /* they and 3, 4 are in */
    g_assert_cmpuint(d->rtx_from, ==, 0);       /* then 5 .. 7, never 3, 4 */
    g_assert_cmpuint(d->rtx_to, ==, 3);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 5);
    d->rtx_from = d->rtx_to = 0;
    solo_ack(&s, 7);
    g_assert_false(snic_dde_rtx_pending(s.qp));
    g_assert_cmpuint(s.qp->rtx_segments, ==, 5);
    solo_free(&s);
}

/*
 * NDP: a timeout with every segment in flight SACKed (the cumulative ACK
 * that would cover them was lost) still resends the oldest, for the
 * duplicate's ACK; without it nothing goes and the QP times out for good.
 */
static void test_ndp_timeout_all_sacked(void)
{
    Solo s;
    SnicDde *d;

    solo_new(&s, SNIC_TRANSPORT_NDP);
    d = &s.qp->req.dde;
    solo_sent(&s, 4);
    solo_sack(&s, 0, 1, 4);             /* 1 .. 3 in, their ACK not */
    fake_advance(s.a.h, 2000000);       /* the RTO */
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 1);
    g_assert_cmpuint(d->rtx_from, ==, 0);       /* the oldest alone */
    g_assert_cmpuint(d->rtx_to, ==, 1);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 1);
    solo_free(&s);
}

/*
 * IRN: the first out-of-order arrival's SACK (IRN's NACK) resends the
 * hole below it at once, with no DupThresh; later ones resend only the
 * holes not resent yet; at most a BDP of segments in flight throughout.
 */
static void test_irn(void)
{
    Solo s;
    SnicDde *d;

    solo_new(&s, SNIC_TRANSPORT_IRN);
    d = &s.qp->req.dde;
    g_assert_cmpuint(window(&s), ==, 16);       /* BDP-FC */
    solo_sent(&s, 16);
    solo_sack(&s, 9, 12, 13);           /* 10, 11 missing: resent now */
    g_assert_cmpuint(d->rtx_from, ==, 0);
    g_assert_cmpuint(d->rtx_to, ==, 2);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 2);
    d->rtx_from = d->rtx_to = 0;        /* the engine resent them */
    solo_sack(&s, 9, 12, 14);           /* the same run grew: nothing */
    g_assert_false(snic_dde_rtx_pending(s.qp));
    solo_sack(&s, 9, 15, 16);           /* 14 only, never 10..13 again */
    g_assert_cmpuint(d->rtx_from, ==, 4);
    g_assert_cmpuint(d->rtx_to, ==, 5);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 3);
    d->rtx_from = d->rtx_to = 0;
    solo_ack(&s, 15);                   /* all in: recovery over */
    g_assert_cmpuint(window(&s), ==, 16);
    solo_sent(&s, 32);
    solo_sack(&s, 15, 17, 18);          /* a new loss: 16 at once */
    g_assert_cmpuint(d->rtx_from, ==, 0);
    g_assert_cmpuint(d->rtx_to, ==, 1);
    g_assert_cmpuint(s.qp->rtx_segments, ==, 4);
    solo_free(&s);
}

/*
 * IRN's two timeouts: two segments in flight (at most N = 3) time out
 * after RTO_low, 100 us; sixteen only after RTO_high, the QP's local ACK
 * timeout (4.096 us * 2^8 here), as do go-back-N's; both from when the
 * timer was armed, by the first segment out or by progress.
 */
static void irn_timeout(uint8_t program, uint32_t segments,
                        uint64_t quiet_ns, uint64_t fires_ns)
{
    uint32_t psn[64];
    uint64_t t;
    Solo s;

    solo_new(&s, program);
    node_post_send(&s.a, 1, SNIC_WR_RDMA_WRITE, BUF, segments * 1024,
                   BUF, s.b.lkey, 0, s.a.lkey);
    fake_run(s.a.h);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, segments);
    for (t = 1000; t <= fires_ns; t += 1000) {  /* timers fire on time */
        fake_advance(s.a.h, 1000);
        if (t <= quiet_ns) {
            g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 0);
        }
    }
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 1);
    fake_run(s.a.h);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, segments);  /* back N */
    g_assert_cmpuint(psn[0], ==, 0);
    solo_free(&s);
}

static void test_irn_timeouts(void)
{
    const uint64_t rto_high = 4096ull << 8;
    uint32_t psn[64];
    unsigned t;
    Solo s;

    irn_timeout(SNIC_TRANSPORT_IRN, 2, 99000, 101000);          /* low */
    irn_timeout(SNIC_TRANSPORT_IRN, 3, 99000, 101000);
    irn_timeout(SNIC_TRANSPORT_IRN, 16, rto_high - 1000, rto_high + 1000);
    irn_timeout(SNIC_TRANSPORT_GBN, 2, rto_high - 1000, rto_high + 1000);

    /* progress arms it again: an ACK leaving two out starts RTO_low */
    solo_new(&s, SNIC_TRANSPORT_IRN);
    node_post_send(&s.a, 1, SNIC_WR_RDMA_WRITE, BUF, 16 * 1024,
                   BUF, s.b.lkey, 0, s.a.lkey);
    fake_run(s.a.h);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 16);
    for (t = 0; t < 200; t++) {
        fake_advance(s.a.h, 1000);
    }
    solo_ack(&s, 13);                   /* at 200 us */
    for (t = 0; t < 99; t++) {
        fake_advance(s.a.h, 1000);
    }
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 0);
    fake_advance(s.a.h, 2000);          /* 301 us */
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 1);
    fake_run(s.a.h);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 2);
    g_assert_cmpuint(psn[0], ==, 14);
    /* no ACK for those either: RTO_high next, RTO_low once a progress */
    for (t = 0; t < rto_high / 1000 - 2; t++) {
        fake_advance(s.a.h, 1000);
    }
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 1);
    fake_advance(s.a.h, 4000);
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 2);
    fake_run(s.a.h);
    g_assert_cmpuint(solo_tx(&s, psn, 64), ==, 2);
    solo_ack(&s, 14);                   /* progress: RTO_low again */
    for (t = 0; t < 101; t++) {
        fake_advance(s.a.h, 1000);
    }
    g_assert_cmpuint(s.a.h->events[SNIC_TRACE_TIMEOUT], ==, 3);
    solo_free(&s);
}

/*
 * DCQCN's reaction point, five CNPs 200 us apart: between them the alpha
 * timer (55 us) and the rate timer (60 us) fire three times each. The
 * device's integers follow the DCQCN paper's rules computed in floating
 * point here, in the paper's order (cut with alpha, then update alpha).
 * The rate starts at the port's speed: 100 Gb/s by default, 40 Gb/s
 * with link-speed-mbps=40000.
 */
static void dcqcn_five_cnps(uint32_t mbps)
{
    double rc = mbps, rt = rc, alpha = 1, g = 1.0 / 256;
    struct snic_transport_info t;
    Solo s;
    unsigned i, k;

    solo_new_speed(&s, SNIC_TRANSPORT_DCQCN, mbps);
    query(&s.a, s.a.qpn, 0, &t);
    g_assert_cmpuint(GUINT32_FROM_LE(t.rate_mbps), ==, mbps);
    for (i = 0; i < 5; i++) {
        double ta = 55, tr = 60;
        unsigned stage = 0;

        snic_req_cnp(s.c, s.qp);
        rt = rc;
        rc = MAX(rc * (1 - alpha / 2), SNIC_DCQCN_R_MIN);
        alpha = (1 - g) * alpha + g;
        query(&s.a, s.a.qpn, 0, &t);
        g_test_message("CNP %u: rate %u Mb/s, model %.1f", i + 1,
                       GUINT32_FROM_LE(t.rate_mbps), rc);
        if (i == 0) {
            /* alpha starts at 1: the first CNP halves the rate exactly */
            g_assert_cmpuint(GUINT32_FROM_LE(t.rate_mbps), ==, mbps / 2);
        }
        g_assert_cmpfloat(fabs(GUINT32_FROM_LE(t.rate_mbps) - rc), <=,
                          rc * 1e-3 + 1);
        g_assert_cmpuint(GUINT32_FROM_LE(t.cnp_rx), ==, i + 1);
        /* 200 us without CNP: the timers in time order */
        for (k = 0; k < 6; k++) {
            if (ta < tr) {
                alpha *= 1 - g;
                ta += 55;
            } else {
                stage++;        /* below F: fast recovery */
                rc = (rt + rc) / 2;
                tr += 60;
            }
        }
        g_assert_cmpuint(stage, ==, 3);
        for (k = 0; k < 200; k++) {
            fake_advance(s.a.h, 1000);  /* the timers fire on time */
        }
        query(&s.a, s.a.qpn, 0, &t);
        g_test_message("  +200 us: rate %u Mb/s, model %.1f",
                       GUINT32_FROM_LE(t.rate_mbps), rc);
        g_assert_cmpfloat(fabs(GUINT32_FROM_LE(t.rate_mbps) - rc), <=,
                          rc * 1e-3 + 1);
    }
    solo_free(&s);
}

static void test_dcqcn_five_cnps(void)
{
    dcqcn_five_cnps(SNIC_DEFAULT_LINK_SPEED_MBPS);
    dcqcn_five_cnps(40000);
}

/*
 * DCQCN's notification point over a wire that marks CE above a queue of
 * 8 KB: ECT(0) data gets marked, the responder answers with CNPs at most
 * one per 50 us, the requester cuts its rate. Go-back-N sends Not-ECT:
 * never marked, no CNP.
 */
static void ecn_run(uint8_t program, uint32_t *cnp_tx, uint32_t *cnp_rx,
                    uint32_t *rate, uint64_t *ns)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 2000,
        .ecn_threshold = 8192, .eth_framing = true,
    };
    SnicSim *sim = snic_sim_new(5);
    struct snic_transport_info t;
    struct snic_cqe c;
    Node a, b;
    unsigned i, done = 0;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    g_assert_cmpuint(node_set_transport(&a, program, 0), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&b, program, 0), ==, SNIC_ADMIN_OK);
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_4096, 7, 7);
    for (i = 0; i < 16; i++) {
        node_post_send(&a, i, SNIC_WR_RDMA_WRITE, BUF, 65536,
                       BUF + 0x200000, b.lkey, 0, a.lkey);
    }
    while (done < 16) {
        snic_sim_run(sim, 100000);      /* events, not time */
        while (node_poll_cq(&a, &c)) {
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            done++;
        }
        g_assert_cmpuint(snic_sim_now(sim), <, 1000000000ull);
    }
    query(&b, b.qpn, 0, &t);
    *cnp_tx = GUINT32_FROM_LE(t.cnp_tx);
    query(&a, a.qpn, 0, &t);
    *cnp_rx = GUINT32_FROM_LE(t.cnp_rx);
    *rate = GUINT32_FROM_LE(t.rate_mbps);
    *ns = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep)->ecn_marked;
    node_pair_free(sim, &a, &b);
}

/*
 * The frames a simulator's capture holds: RoCE data frames and ACKs, and
 * of each how many carry the selective extension (and with ECE).
 */
typedef struct WireCount {
    unsigned data, data_xport, acks, acks_ece, other;
} WireCount;

static void pcap_count(const char *path, WireCount *w)
{
    g_autofree char *data = NULL;
    gsize len, off = 24;

    memset(w, 0, sizeof(*w));
    g_assert_true(g_file_get_contents(path, &data, &len, NULL));
    while (off + 16 <= len) {
        uint32_t cap;
        SnicPkt p;

        memcpy(&cap, data + off + 8, 4);
        off += 16;
        g_assert_cmpuint(off + cap, <=, len);
        g_assert_cmpint(snic_wire_parse((uint8_t *)data + off, cap, &p), ==,
                        SNIC_PARSE_OK);
        off += cap;
        if (p.opcode == SNIC_OP_RC_ACK) {
            w->acks++;
            w->acks_ece += p.xport && p.xeth.flags == SNIC_XETH_F_ECE;
        } else if (p.payload_len) {
            w->data++;
            w->data_xport += p.xport;
        } else {
            w->other++;
        }
    }
}

/*
 * DCTCP over a wire marking CE above 8 KB: its responder counts every
 * marked data packet and echoes the count in its ACKs (no CNP), and the
 * requester's window comes down from its maximum. On the wire its data
 * is standard RoCEv2 (ECT(0), TVer 0) and every ACK carries the
 * extension with ECE alone.
 */
static void test_dctcp_echo(void)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 2000,
        .ecn_threshold = 8192, .eth_framing = true,
    };
    g_autofree char *dir = g_dir_make_tmp("snic-dctcp-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "dctcp.pcap", NULL);
    SnicSim *sim = snic_sim_new(5);
    struct snic_transport_info t;
    uint64_t marked;
    struct snic_cqe c;
    WireCount w;
    Node a, b;
    unsigned i, done = 0;

    g_assert_cmpint(snic_sim_capture(sim, path), ==, 0);
    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    g_assert_cmpuint(node_set_transport(&a, SNIC_TRANSPORT_DCTCP, 0), ==,
                     SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&b, SNIC_TRANSPORT_DCTCP, 0), ==,
                     SNIC_ADMIN_OK);
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_4096, 7, 7);
    for (i = 0; i < 64; i++) {
        node_post_send(&a, i, SNIC_WR_RDMA_WRITE, BUF, 65536,
                       BUF + 0x200000, b.lkey, 0, a.lkey);
    }
    while (done < 64) {
        snic_sim_run(sim, 100000);      /* events, not time */
        while (node_poll_cq(&a, &c)) {
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            done++;
        }
        g_assert_cmpuint(snic_sim_now(sim), <, 1000000000ull);
    }
    marked = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep)->ecn_marked;
    query(&a, a.qpn, 0, &t);
    g_test_message("DCTCP: %" G_GUINT64_FORMAT " CE marks, %u counted, "
                   "window now %u", marked,
                   snic_prog_ece(snic_qp_get(b.h->core, b.qpn))->ce_rx,
                   GUINT32_FROM_LE(t.window));
    g_assert_cmpuint(marked, >, 0);
    g_assert_cmpuint(snic_prog_ece(snic_qp_get(b.h->core, b.qpn))->ce_rx, ==,
                     marked);
    g_assert_cmpuint(GUINT32_FROM_LE(t.cnp_rx), ==, 0);
    g_assert_cmpuint(GUINT32_FROM_LE(t.window), <, SNIC_TX_WINDOW);
    g_assert_cmpuint(GUINT32_FROM_LE(t.rtx_segments), ==, 0);
    query(&b, b.qpn, 0, &t);
    g_assert_cmpuint(GUINT32_FROM_LE(t.cnp_tx), ==, 0);
    node_pair_free(sim, &a, &b);    /* closes the capture */
    pcap_count(path, &w);
    g_test_message("wire: %u data frames (%u with the extension), %u ACKs "
                   "(%u with ECE), %u others", w.data, w.data_xport, w.acks,
                   w.acks_ece, w.other);
    g_assert_cmpuint(w.data, ==, 64 * 16);
    g_assert_cmpuint(w.data_xport, ==, 0);
    g_assert_cmpuint(w.acks, >, 0);
    g_assert_cmpuint(w.acks_ece, ==, w.acks);
    g_assert_cmpuint(w.other, ==, 0);
    g_unlink(path);
    g_rmdir(dir);
}

static void test_dcqcn_np(void)
{
    uint32_t tx, rx, rate;
    uint64_t marked;

    ecn_run(SNIC_TRANSPORT_DCQCN, &tx, &rx, &rate, &marked);
    g_test_message("DCQCN: %" G_GUINT64_FORMAT " CE marks, %u CNPs sent, "
                   "%u received, rate now %u Mb/s", marked, tx, rx, rate);
    g_assert_cmpuint(marked, >, 0);
    g_assert_cmpuint(tx, >, 0);
    g_assert_cmpuint(tx, <, marked);    /* at most one per 50 us */
    g_assert_cmpuint(rx, ==, tx);       /* the reverse path is clean */
    ecn_run(SNIC_TRANSPORT_GBN, &tx, &rx, &rate, &marked);
    g_assert_cmpuint(marked, ==, 0);
    g_assert_cmpuint(tx, ==, 0);
    g_assert_cmpuint(rx, ==, 0);
}

/* ---- every program over a lossy, reordering wire ---- */

static unsigned writes_per_run(void)
{
    const char *env = g_getenv("SNIC_TRANSPORT_WRITES");

    return env ? MAX(g_ascii_strtoull(env, NULL, 0), 1) : 48;
}

static void lossy(uint8_t program, double loss)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 5000,
        .loss = loss, .reorder = loss, .reorder_ns = 3000,
        .eth_framing = true,
    };
    SnicSim *sim = snic_sim_new(16 + program * 7 + (uint64_t)(loss * 100));
    const unsigned n = writes_per_run(), len = 65536, depth = 16;
    unsigned posted = 0, done = 0;
    struct snic_transport_info t;
    const SnicSimLinkStats *st;
    struct snic_cqe c;
    Node a, b;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    g_assert_cmpuint(node_set_transport(&a, program, 1), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&b, program, 1), ==, SNIC_ADMIN_OK);
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_4096, 7, 7);
    node_fill(&a, BUF, 2 * 1024 * 1024, program + 1);
    while (done < n) {
        while (posted < n && posted - done < depth) {
            uint64_t off = (uint64_t)(posted % 32) * len;

            node_post_send(&a, posted, SNIC_WR_RDMA_WRITE, BUF + off, len,
                           BUF + 0x200000 + off, b.lkey, 0, a.lkey);
            posted++;
        }
        snic_sim_run(sim, 1000000);
        while (node_poll_cq(&a, &c)) {
            uint64_t off = (uint64_t)(done % 32) * len;

            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, done);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            g_assert_cmpmem(fake_ptr(b.h, BUF + 0x200000 + off, len), len,
                            fake_ptr(a.h, BUF + off, len), len);
            done++;
        }
        g_assert_cmpuint(snic_sim_now(sim), <, 100000000000ull);
    }
    st = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep);
    query(&a, a.qpn, 0, &t);
    g_assert_cmpuint(t.program, ==, program);
    if (loss == 0) {
        g_assert_cmpuint(GUINT32_FROM_LE(t.rtx_segments), ==, 0);
    } else {
        g_assert_cmpuint(st->lost, >, 0);
        g_assert_cmpuint(GUINT32_FROM_LE(t.rtx_segments), >, 0);
    }
    g_test_message("TRANSPORT-LOSS program=%s loss=%.2f writes=%u "
                   "sent=%" G_GUINT64_FORMAT " lost=%" G_GUINT64_FORMAT
                   " reordered=%" G_GUINT64_FORMAT " retransmitted=%u "
                   "ratio=%.2f time_ns=%" G_GUINT64_FORMAT, t.name, loss, n,
                   st->sent, st->lost, st->reordered,
                   GUINT32_FROM_LE(t.rtx_segments),
                   st->lost ? (double)GUINT32_FROM_LE(t.rtx_segments) /
                              st->lost : 0.0, snic_sim_now(sim));
    node_pair_free(sim, &a, &b);
}

static void test_lossy(gconstpointer data)
{
    unsigned program = GPOINTER_TO_UINT(data) >> 8;
    unsigned pct = GPOINTER_TO_UINT(data) & 0xff;

    lossy(program, pct / 100.0);
}

/*
 * A receive WQE of two SGEs (10000 bytes, then the rest of 'len') at
 * 'addr', the buffer cleared first: a SEND placed out of order crosses
 * from one to the other, and every byte of the buffer can be checked.
 */
static void post_recv2(Node *n, uint64_t wr_id, uint64_t addr, uint32_t len)
{
    struct snic_rq_wqe w;
    uint64_t slot = RQ_RING +
                    (n->rq_pi & ((1u << RQ_LOG2) - 1)) * SNIC_RQ_WQE_SIZE;

    memset(fake_ptr(n->h, addr, len), 0, len);
    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(wr_id);
    w.num_sge = 2;
    w.sge[0].addr = GUINT64_TO_LE(addr);
    w.sge[0].length = GUINT32_TO_LE(10000);
    w.sge[0].lkey = GUINT32_TO_LE(n->lkey);
    w.sge[1].addr = GUINT64_TO_LE(addr + 10000);
    w.sge[1].length = GUINT32_TO_LE(len - 10000);
    w.sge[1].lkey = GUINT32_TO_LE(n->lkey);
    fake_write(n->h, slot, &w, sizeof(w));
    fake_doorbell(n->h, n->ctx, SNIC_DB_RQ, n->qpn, ++n->rq_pi);
}

/*
 * lossy_send's message i: a SEND, every third with immediate data, and
 * with wimm every fifth a WRITE with immediate (it takes a receive WQE)
 */
static uint8_t lossy_send_op(unsigned i, bool wimm)
{
    return wimm && i % 5 == 4 ? SNIC_WR_RDMA_WRITE_IMM :
           i % 3 ? SNIC_WR_SEND : SNIC_WR_SEND_IMM;
}

/*
 * SENDs (and with wimm WRITEs with immediate data) of up to 64 KiB
 * (lengths not multiples of the MTU) over the lossy, reordering wire:
 * the responder
 * places their packets out of order, a SEND's into the receive WQE its
 * message number names, a WRITE's at its address. Every receive
 * completes once, in order, with its op-code, length and immediate data;
 * every byte of every 64 KiB receive buffer and WRITE target is checked,
 * the message's and the zeros after it (a WRITE's receive buffer stays
 * all zeros). Retransmissions stay
 * near the losses (selective repeat with placement: were the SEND
 * packets after a hole dropped, every one would be sent again).
 */
static void lossy_send(uint8_t program, double loss, bool wimm)
{
    const SnicSimLinkConfig link = {
        .bandwidth_bps = 10000000000ull, .delay_ns = 5000,
        .loss = loss, .reorder = loss, .reorder_ns = 3000,
        .eth_framing = true,
    };
    SnicSim *sim = snic_sim_new(17 + program * 7 + (uint64_t)(loss * 100));
    const unsigned n = writes_per_run(), room = 65536, depth = 16;
    unsigned posted = 0, done = 0, recvd = 0;
    struct snic_transport_info t;
    const SnicSimLinkStats *st;
    struct snic_cqe c;
    Node a, b;

    node_init(&a, sim, 1);
    node_init(&b, sim, 2);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    g_assert_cmpuint(node_set_transport(&a, program, 1), ==, SNIC_ADMIN_OK);
    g_assert_cmpuint(node_set_transport(&b, program, 1), ==, SNIC_ADMIN_OK);
    node_connect(&a, &b, SNIC_MTU_4096, 7, 7);
    node_connect(&b, &a, SNIC_MTU_4096, 7, 7);
    node_fill(&a, BUF, 2 * 1024 * 1024, program + 1);
    while (recvd < n) {
        while (posted < n && posted - done < depth) {
            uint64_t off = (uint64_t)(posted % 32) * room;
            uint32_t len = room - (posted % 7) * 1000;

            post_recv2(&b, posted, BUF + 0x200000 + off, room);
            memset(fake_ptr(b.h, BUF + off, room), 0, room);
            node_post_send(&a, posted, lossy_send_op(posted, wimm), BUF + off,
                           len, BUF + off, b.lkey, 0x1000 + posted, a.lkey);
            posted++;
        }
        snic_sim_run(sim, 1000000);
        while (node_poll_cq(&b, &c)) {
            uint64_t off = (uint64_t)(recvd % 32) * room;
            uint32_t len = room - (recvd % 7) * 1000;
            const uint8_t *got = fake_ptr(b.h, BUF + 0x200000 + off, room);
            uint8_t op = lossy_send_op(recvd, wimm);

            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, recvd);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            g_assert_cmpuint(c.opcode, ==, op == SNIC_WR_RDMA_WRITE_IMM ?
                             SNIC_WC_RECV_RDMA_WITH_IMM : SNIC_WC_RECV);
            g_assert_cmpuint(GUINT32_FROM_LE(c.byte_len), ==, len);
            if (op == SNIC_WR_RDMA_WRITE_IMM) {
                /* the receive buffer untouched, the data at its target */
                g_assert_true(!got[0] && !memcmp(got, got + 1, room - 1));
                got = fake_ptr(b.h, BUF + off, room);
            }
            if (op == SNIC_WR_SEND) {
                g_assert_false(c.wc_flags & SNIC_WC_F_IMM);
            } else {
                g_assert_true(c.wc_flags & SNIC_WC_F_IMM);
                g_assert_cmpuint(GUINT32_FROM_BE(c.imm), ==, 0x1000 + recvd);
            }
            g_assert_cmpmem(got, len, fake_ptr(a.h, BUF + off, len), len);
            g_assert_true(len == room ||
                          (!got[len] && !memcmp(got + len, got + len + 1,
                                                room - len - 1)));
            recvd++;
        }
        while (node_poll_cq(&a, &c)) {
            g_assert_cmpuint(GUINT64_FROM_LE(c.wr_id), ==, done);
            g_assert_cmpuint(c.status, ==, SNIC_WC_SUCCESS);
            done++;
            g_assert_cmpuint(done, <=, recvd);
        }
        g_assert_cmpuint(snic_sim_now(sim), <, 100000000000ull);
    }
    st = snic_sim_link_stats(sim, a.h->port.ep, b.h->port.ep);
    query(&a, a.qpn, 0, &t);
    g_assert_cmpuint(st->lost, >, 0);
    g_assert_cmpuint(GUINT32_FROM_LE(t.rtx_segments), >, 0);
    if (program == SNIC_TRANSPORT_SACK || program == SNIC_TRANSPORT_IRN) {
        /*
         * SACK and IRN resend holes: measured 1.0 .. 4.0 segments per
         * loss; with the SEND packets after a hole dropped, 8 .. 25
         * (NDP resends on its own terms, as with WRITEs; Reno and
         * NewReno, which place too, resend one hole per recovery and go
         * back N on a timeout)
         */
        g_assert_cmpuint(GUINT32_FROM_LE(t.rtx_segments), <, 6 * st->lost);
    }
    g_test_message("TRANSPORT-LOSS-SEND program=%s loss=%.2f sends=%u "
                   "sent=%" G_GUINT64_FORMAT " lost=%" G_GUINT64_FORMAT
                   " reordered=%" G_GUINT64_FORMAT " retransmitted=%u "
                   "ratio=%.2f time_ns=%" G_GUINT64_FORMAT, t.name, loss, n,
                   st->sent, st->lost, st->reordered,
                   GUINT32_FROM_LE(t.rtx_segments),
                   (double)GUINT32_FROM_LE(t.rtx_segments) / st->lost,
                   snic_sim_now(sim));
    node_pair_free(sim, &a, &b);
}

static void test_lossy_send(gconstpointer data)
{
    unsigned program = GPOINTER_TO_UINT(data) >> 8;
    unsigned pct = GPOINTER_TO_UINT(data) & 0xff;

    lossy_send(program & 0xff, pct / 100.0, program >> 8);
}

int main(int argc, char **argv)
{
    static const unsigned pcts[] = { 0, 1, 5 };
    unsigned p, i;

    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/transport/registration", test_registration);
    g_test_add_func("/transport/select", test_select);
    g_test_add_func("/transport/xport-refused", test_xport_refused);
    g_test_add_func("/transport/ooo-read-clears", test_ooo_read_clears);
    g_test_add_func("/transport/ooo-rtr-kept", test_ooo_rtr_kept);
    g_test_add_func("/transport/ooo-first-in-send", test_ooo_first_in_send);
    g_test_add_func("/transport/ooo-send-mixed", test_ooo_send_mixed);
    g_test_add_func("/transport/ooo-send-two", test_ooo_send_two);
    g_test_add_func("/transport/ooo-send-inv", test_ooo_send_inv);
    g_test_add_func("/transport/ooo-send-hostile", test_ooo_send_hostile);
    g_test_add_func("/transport/ooo-send-numbers", test_ooo_send_numbers);
    g_test_add_func("/transport/ooo-write-imm", test_ooo_write_imm);
    g_test_add_func("/transport/ooo-write-imm-srq", test_ooo_write_imm_srq);
    g_test_add_func("/transport/rate-precision", test_rate_precision);
    g_test_add_func("/transport/rate-pacing", test_rate_pacing);
    g_test_add_func("/transport/rate-pacing-turns", test_rate_pacing_turns);
    g_test_add_func("/transport/newreno", test_newreno);
    g_test_add_func("/transport/reno", test_reno);
    g_test_add_func("/transport/ooo-dup-acks", test_ooo_dup_acks);
    g_test_add_func("/transport/newreno-sack-blocks",
                    test_newreno_sack_blocks);
    g_test_add_func("/transport/rto-one-segment", test_rto_one_segment);
    g_test_add_func("/transport/sack", test_sack);
    g_test_add_func("/transport/irn", test_irn);
    g_test_add_func("/transport/irn-timeouts", test_irn_timeouts);
    g_test_add_func("/transport/ndp-trimmed", test_ndp_trimmed);
    g_test_add_func("/transport/ndp-timeout", test_ndp_timeout);
    g_test_add_func("/transport/ndp-timeout-all-sacked",
                    test_ndp_timeout_all_sacked);
    g_test_add_func("/transport/dcqcn-five-cnps", test_dcqcn_five_cnps);
    g_test_add_func("/transport/dcqcn-np", test_dcqcn_np);
    g_test_add_func("/transport/dctcp", test_dctcp);
    g_test_add_func("/transport/dctcp-echo", test_dctcp_echo);
    g_test_add_func("/transport/foreign-feedback", test_foreign_feedback);
    for (p = 0; p < SNIC_PROGRAMS; p++) {
        for (i = 0; i < G_N_ELEMENTS(pcts); i++) {
            g_autofree char *name = g_strdup_printf("/transport/lossy/%s/%u",
                snic_programs[p]->name, pcts[i]);

            g_test_add_data_func(name, GUINT_TO_POINTER(p << 8 | pcts[i]),
                                 test_lossy);
        }
    }
    for (p = 0; p < SNIC_PROGRAMS; p++) {
        if (!(snic_programs[p]->flags & SNIC_PROG_XPORT)) {
            continue;
        }
        for (i = 1; i < G_N_ELEMENTS(pcts); i++) {
            g_autofree char *name = g_strdup_printf(
                "/transport/lossy-send/%s/%u", snic_programs[p]->name,
                pcts[i]);

            g_test_add_data_func(name, GUINT_TO_POINTER(p << 8 | pcts[i]),
                                 test_lossy_send);
        }
    }
    /* WRITEs with immediate among the SENDs: IRN at 5 % */
    g_test_add_data_func("/transport/lossy-send-wimm/IRN/5",
                         GUINT_TO_POINTER(1u << 16 | SNIC_TRANSPORT_IRN << 8 |
                                          5), test_lossy_send);
    return g_test_run();
}
