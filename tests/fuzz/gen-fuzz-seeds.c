/*
 * Writes the seed corpora of fuzz-admin, fuzz-wqe and fuzz-rx: small
 * valid inputs in the formats of fuzz-host.h (admin command sequences,
 * WQE posting scripts, RoCEv2 frames built with the wire codec to match
 * the fuzz-rx node's QPs and PSNs, and PFC frames from the partner). Regenerate after changing a format:
 *
 *   build/fuzz/tests/fuzz/gen-fuzz-seeds tests/fuzz/corpus
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz-host.h"
#include "port/wire.h"

static const char *out_dir;

typedef struct Seed {
    uint8_t b[16384];
    size_t len;
} Seed;

static void put(Seed *s, const void *p, size_t n)
{
    if (s->len + n > sizeof(s->b)) {
        fprintf(stderr, "seed too long\n");
        exit(1);
    }
    memcpy(s->b + s->len, p, n);
    s->len += n;
}

static void put8(Seed *s, uint8_t v)
{
    put(s, &v, 1);
}

static void put32le(Seed *s, uint32_t v)
{
    v = GUINT32_TO_LE(v);
    put(s, &v, 4);
}

static void save(const char *target, const char *name, const Seed *s)
{
    char *dir = g_strdup_printf("%s/%s", out_dir, target);
    char *path = g_strdup_printf("%s/%s", dir, name);
    FILE *f;

    if (mkdir(dir, 0755) && errno != EEXIST) {
        perror(dir);
        exit(1);
    }
    f = fopen(path, "wb");
    if (!f || fwrite(s->b, 1, s->len, f) != s->len || fclose(f)) {
        perror(path);
        exit(1);
    }
    g_free(path);
    g_free(dir);
}

/* ---- fuzz-admin ---- */

static void adm_cmd(Seed *s, uint8_t fix, const struct snic_admin_cmd *cmd)
{
    put8(s, ADM_OP_CMD);
    put8(s, fix);
    put(s, cmd, sizeof(*cmd));
}

static void adm_ctrl(Seed *s, uint8_t what)
{
    put8(s, ADM_OP_CTRL);
    put8(s, what);
}

static void adm_mem(Seed *s, uint16_t off, const void *p, uint8_t n)
{
    put8(s, ADM_OP_MEM);
    off = GUINT16_TO_LE(off);
    put(s, &off, 2);
    put8(s, n);
    put(s, p, n);
}

static void adm_doorbell(Seed *s, uint8_t page, uint8_t type, uint32_t qid,
                         uint32_t index)
{
    uint64_t v = GUINT64_TO_LE(snic_db_make(type, qid, index));

    put8(s, ADM_OP_DOORBELL);
    put8(s, page);
    put(s, &v, 8);
}

static void cmd_init(struct snic_admin_cmd *c, uint8_t op)
{
    snic_admin_cmd_init(c, op, fz_admin_payload_len(op));
}

static void adm_obj(Seed *s, uint8_t op, uint32_t handle)
{
    struct snic_admin_cmd c;

    cmd_init(&c, op);
    c.obj.handle = GUINT32_TO_LE(handle);
    adm_cmd(s, 0, &c);
}

static void adm_pd(Seed *s, uint16_t ctx)
{
    struct snic_admin_cmd c;

    cmd_init(&c, SNIC_ADMIN_ALLOC_PD);
    c.alloc_pd.ctx = GUINT16_TO_LE(ctx);
    adm_cmd(s, 0, &c);
}

static void adm_eq(Seed *s, unsigned list, uint8_t log2)
{
    struct snic_admin_cmd c;

    cmd_init(&c, SNIC_ADMIN_CREATE_EQ);
    c.create_eq.pbl_addr = GUINT64_TO_LE(ADM_LIST_AT(list));
    c.create_eq.npages = GUINT32_TO_LE(1);
    c.create_eq.log2_depth = log2;
    c.create_eq.vector = GUINT16_TO_LE(1);
    adm_cmd(s, 0, &c);
}

static void adm_cq(Seed *s, unsigned list, uint32_t eqn, uint16_t ctx)
{
    struct snic_admin_cmd c;

    cmd_init(&c, SNIC_ADMIN_CREATE_CQ);
    c.create_cq.pbl_addr = GUINT64_TO_LE(ADM_LIST_AT(list));
    c.create_cq.npages = GUINT32_TO_LE(1);
    c.create_cq.log2_depth = 6;
    c.create_cq.eqn = GUINT32_TO_LE(eqn);
    c.create_cq.ctx = GUINT16_TO_LE(ctx);
    adm_cmd(s, 0, &c);
}

static void adm_qp(Seed *s, uint8_t type, unsigned sq_list, unsigned rq_list,
                   uint32_t pdn, uint32_t cqn, uint16_t ctx)
{
    struct snic_admin_cmd c;

    cmd_init(&c, SNIC_ADMIN_CREATE_QP);
    c.create_qp.sq_pbl_addr = GUINT64_TO_LE(ADM_LIST_AT(sq_list));
    c.create_qp.rq_pbl_addr = GUINT64_TO_LE(ADM_LIST_AT(rq_list));
    c.create_qp.sq_npages = GUINT32_TO_LE(1);
    c.create_qp.rq_npages = GUINT32_TO_LE(1);
    c.create_qp.pdn = GUINT32_TO_LE(pdn);
    c.create_qp.send_cqn = GUINT32_TO_LE(cqn);
    c.create_qp.recv_cqn = GUINT32_TO_LE(cqn);
    c.create_qp.type = type;
    c.create_qp.sq_log2_depth = 4;
    c.create_qp.rq_log2_depth = 4;
    c.create_qp.ctx = GUINT16_TO_LE(ctx);
    adm_cmd(s, 0, &c);
}

static void adm_mr(Seed *s, unsigned list, uint32_t pdn, uint64_t len,
                   uint8_t key)
{
    struct snic_admin_cmd c;

    cmd_init(&c, SNIC_ADMIN_REG_MR);
    c.reg_mr.iova = GUINT64_TO_LE(FZ_MR_IOVA);
    c.reg_mr.length = GUINT64_TO_LE(len);
    c.reg_mr.pbl_addr = GUINT64_TO_LE(ADM_LIST_AT(list));
    c.reg_mr.npages = GUINT32_TO_LE((len + 4095) / 4096);
    c.reg_mr.pdn = GUINT32_TO_LE(pdn);
    c.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                    SNIC_ACCESS_REMOTE_WRITE |
                                    SNIC_ACCESS_REMOTE_READ |
                                    SNIC_ACCESS_REMOTE_ATOMIC);
    c.reg_mr.page_shift = SNIC_PAGE_SHIFT_4K;
    c.reg_mr.key = key;
    adm_cmd(s, 0, &c);
}

/* MODIFY_QP with one of the prepared attribute blocks */
static void adm_modify(Seed *s, uint32_t qpn, uint32_t mask, unsigned attr)
{
    struct snic_admin_cmd c;

    cmd_init(&c, SNIC_ADMIN_MODIFY_QP);
    c.modify_qp.qpn = GUINT32_TO_LE(qpn);
    c.modify_qp.attr_mask = GUINT32_TO_LE(mask);
    c.modify_qp.attr_addr = GUINT64_TO_LE(ADM_ATTR_AT(attr));
    adm_cmd(s, 0, &c);
}

static void adm_query_qp(Seed *s, uint32_t qpn)
{
    struct snic_admin_cmd c;

    cmd_init(&c, SNIC_ADMIN_QUERY_QP);
    c.query_qp.qpn = GUINT32_TO_LE(qpn);
    c.query_qp.resp_addr = GUINT64_TO_LE(FZ_SCRATCH + 0x8000);
    adm_cmd(s, 0, &c);
}

#define RC_INIT (SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX | \
                 SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_ACCESS_FLAGS)
#define UD_INIT (SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX | \
                 SNIC_QP_ATTR_PORT | SNIC_QP_ATTR_QKEY)
#define GSI_INIT (SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_PKEY_INDEX | \
                  SNIC_QP_ATTR_QKEY)
#define RC_RTR (SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_AV | \
                SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN | \
                SNIC_QP_ATTR_RQ_PSN | SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | \
                SNIC_QP_ATTR_MIN_RNR_TIMER)
#define RC_RTS (SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_TIMEOUT | \
                SNIC_QP_ATTR_RETRY_CNT | SNIC_QP_ATTR_RNR_RETRY | \
                SNIC_QP_ATTR_SQ_PSN | SNIC_QP_ATTR_MAX_QP_RD_ATOMIC)

/* PD 1, EQ 1, CQ 1 (ctx 0), an RC QP 2 in RTS, MR 0x133 */
static void adm_rc_setup(Seed *s)
{
    adm_pd(s, 0);
    adm_eq(s, 0, 4);
    adm_cq(s, 1, 1, 0);
    adm_qp(s, SNIC_QPT_RC, 2, 3, 1, 1, 0);
    adm_mr(s, 4, 1, 0x4000, FZ_MR_KEY);
    adm_modify(s, 2, RC_INIT, 0);
    adm_modify(s, 2, RC_RTR, 1);
    adm_modify(s, 2, RC_RTS, 2);
}

static void gen_admin(void)
{
    struct snic_admin_cmd c;
    struct snic_sq_wqe w;
    Seed s;
    unsigned i;

    /* full lifecycle of an RC QP, then everything torn down in order */
    memset(&s, 0, sizeof(s));
    adm_rc_setup(&s);
    adm_query_qp(&s, 2);
    adm_modify(&s, 2, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_CUR_STATE, 3);
    adm_modify(&s, 2, SNIC_QP_ATTR_STATE, 4);
    adm_modify(&s, 2, SNIC_QP_ATTR_STATE, 5);
    adm_obj(&s, SNIC_ADMIN_DESTROY_QP, 2);
    adm_obj(&s, SNIC_ADMIN_DEREG_MR, FZ_LKEY);
    adm_obj(&s, SNIC_ADMIN_DESTROY_CQ, 1);
    adm_obj(&s, SNIC_ADMIN_DESTROY_EQ, 1);
    adm_obj(&s, SNIC_ADMIN_DEALLOC_PD, 1);
    save("admin", "rc-lifecycle", &s);

    /* teardown in the wrong order: BAD_STATE until the users go */
    memset(&s, 0, sizeof(s));
    adm_rc_setup(&s);
    adm_obj(&s, SNIC_ADMIN_DEALLOC_PD, 1);
    adm_obj(&s, SNIC_ADMIN_DESTROY_EQ, 1);
    adm_obj(&s, SNIC_ADMIN_DESTROY_CQ, 1);
    adm_obj(&s, SNIC_ADMIN_DESTROY_QP, 2);
    adm_obj(&s, SNIC_ADMIN_DESTROY_CQ, 1);
    adm_obj(&s, SNIC_ADMIN_DEALLOC_PD, 1);
    adm_obj(&s, SNIC_ADMIN_DEREG_MR, FZ_LKEY);
    adm_obj(&s, SNIC_ADMIN_DEALLOC_PD, 1);
    save("admin", "wrong-order", &s);

    /* UD and GSI QPs, a user context (page 1) */
    memset(&s, 0, sizeof(s));
    adm_pd(&s, 0);
    adm_pd(&s, 1);
    adm_eq(&s, 0, 4);
    adm_cq(&s, 1, 1, 0);
    adm_cq(&s, 2, 1, 1);
    adm_qp(&s, SNIC_QPT_UD, 3, 4, 1, 1, 0);
    adm_qp(&s, SNIC_QPT_GSI, 5, 6, 1, 1, 0);
    adm_qp(&s, SNIC_QPT_UD, 7, 0, 2, 2, 1);
    adm_modify(&s, 2, UD_INIT, 0);
    adm_modify(&s, 1, GSI_INIT, 0);
    adm_modify(&s, 3, UD_INIT, 0);
    adm_modify(&s, 2, SNIC_QP_ATTR_STATE, 1);
    adm_modify(&s, 1, SNIC_QP_ATTR_STATE, 1);
    adm_modify(&s, 2, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN, 2);
    adm_modify(&s, 1, SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_SQ_PSN, 2);
    adm_query_qp(&s, 1);
    adm_obj(&s, SNIC_ADMIN_DESTROY_QP, 1);
    adm_obj(&s, SNIC_ADMIN_DESTROY_QP, 3);
    save("admin", "ud-gsi", &s);

    /* device-level commands and Ethernet queues */
    memset(&s, 0, sizeof(s));
    cmd_init(&c, SNIC_ADMIN_QUERY_DEVICE);
    c.resp.resp_addr = GUINT64_TO_LE(FZ_SCRATCH);
    c.resp.resp_len = GUINT32_TO_LE(128);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_GET_STATS);
    c.resp.resp_addr = GUINT64_TO_LE(FZ_SCRATCH + 0x100);
    c.resp.resp_len = GUINT32_TO_LE(256);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_SET_MTU);
    c.set_mtu.mtu = GUINT32_TO_LE(9000);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_GET_MTU);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_SET_MAC);
    memcpy(c.set_mac.mac, "\x52\x54\x00\xab\xcd\xef", 6);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_CREATE_ETH_QUEUE);
    c.create_eth_queue.ring_addr = GUINT64_TO_LE(FZ_SCRATCH + 0x1000);
    c.create_eth_queue.type = SNIC_ETH_QUEUE_TX;
    c.create_eth_queue.log2_depth = 4;
    c.create_eth_queue.vector = GUINT16_TO_LE(2);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_START_ETH_QUEUE);
    c.eth_queue.type = SNIC_ETH_QUEUE_TX;
    adm_cmd(&s, 0, &c);
    adm_doorbell(&s, 0, SNIC_DB_ETH_TX, 0, 1);
    adm_ctrl(&s, 0);
    cmd_init(&c, SNIC_ADMIN_STOP_ETH_QUEUE);
    c.eth_queue.type = SNIC_ETH_QUEUE_TX;
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_DESTROY_ETH_QUEUE);
    c.eth_queue.type = SNIC_ETH_QUEUE_TX;
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_NOP);
    c.hdr.version = 2;
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_NOP);
    c.hdr.flags = GUINT16_TO_LE(1);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, 0x7f);
    adm_cmd(&s, 0, &c);
    save("admin", "device", &s);

    /* a batch of commands in one doorbell run */
    memset(&s, 0, sizeof(s));
    adm_pd(&s, 0);
    s.b[s.len - sizeof(c) - 1] = ADM_FIX_BATCH;
    adm_eq(&s, 0, 4);
    s.b[s.len - sizeof(c) - 1] = ADM_FIX_BATCH;
    adm_cq(&s, 1, 1, 0);
    s.b[s.len - sizeof(c) - 1] = ADM_FIX_BATCH;
    adm_qp(&s, SNIC_QPT_RC, 2, 3, 1, 1, 0);
    save("admin", "batch", &s);

    /* a QP in RTS with a WQE rung from a raw doorbell, then resets */
    memset(&s, 0, sizeof(s));
    adm_rc_setup(&s);
    memset(&w, 0, sizeof(w));
    w.opcode = SNIC_WR_RDMA_WRITE;
    w.flags = SNIC_WQE_SIGNALED;
    w.num_sge = 1;
    w.rdma.remote_addr = GUINT64_TO_LE(FZ_MR_IOVA);
    w.rdma.rkey = GUINT32_TO_LE(FZ_LKEY);
    w.sge[0].addr = GUINT64_TO_LE(FZ_MR_IOVA + 8);
    w.sge[0].length = GUINT32_TO_LE(2000);
    w.sge[0].lkey = GUINT32_TO_LE(FZ_LKEY);
    /* into the SQ: page 0 of list 2 (the WQE up to its third SGE) */
    adm_mem(&s, (FZ_MEM_BASE + 0x6000 - FZ_ATTR) / 4, &w,
            offsetof(struct snic_sq_wqe, sge[3]));
    adm_doorbell(&s, 0, SNIC_DB_SQ, 2, 1);
    adm_doorbell(&s, 0, SNIC_DB_CQ_ARM, 1, 0);
    adm_ctrl(&s, 0);
    adm_ctrl(&s, 1 | 10 << 3);
    adm_ctrl(&s, 7);
    adm_ctrl(&s, 2);
    adm_ctrl(&s, 2 | 0x80);
    adm_ctrl(&s, 3);
    adm_rc_setup(&s);
    adm_ctrl(&s, 4);
    adm_rc_setup(&s);
    save("admin", "doorbell-reset", &s);

    /* AEQ layouts: none, then one running off guest memory (fatal) */
    memset(&s, 0, sizeof(s));
    adm_ctrl(&s, 6 | 0 << 3);
    adm_rc_setup(&s);
    adm_ctrl(&s, 2);
    adm_ctrl(&s, 6 | 2 << 3 | 2 << 5);
    adm_ctrl(&s, 2 | 0x80);
    adm_ctrl(&s, 2);
    adm_ctrl(&s, 2 | 0x80);
    adm_ctrl(&s, 2);
    adm_ctrl(&s, 2 | 0x80);
    adm_pd(&s, 0);
    save("admin", "aeq-layout", &s);

    /* fixed-up commands from patterned bytes */
    for (i = 0; i < 6; i++) {
        char name[32];
        unsigned k, j;

        memset(&s, 0, sizeof(s));
        for (k = 0; k < 12; k++) {
            memset(&c, 0, sizeof(c));
            for (j = 0; j < sizeof(c); j++) {
                ((uint8_t *)&c)[j] = (uint8_t)(i * 37 + k * 11 + j * 7);
            }
            /* walk the opcode table: creates first, then the rest */
            c.hdr.opcode = (uint8_t)(k < 6 ? k * 2 + (k == 5 ? 6 : 0) :
                                     i * 5 + k);
            adm_cmd(&s, ADM_FIX_HDR | ADM_FIX_FIELDS, &c);
        }
        snprintf(name, sizeof(name), "fixed-%u", i);
        save("admin", name, &s);
    }
}

/* ---- fuzz-wqe ---- */

static void wqe_send(Seed *s, uint8_t sel, const struct snic_sq_wqe *w)
{
    put8(s, WQE_OP_SQ);
    put8(s, sel);
    put(s, w, sizeof(*w));
}

static void wqe_recv(Seed *s, uint8_t sel, uint32_t off, uint32_t len)
{
    struct snic_rq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = GUINT64_TO_LE(0x5000 + off);
    w.num_sge = 1;
    w.sge[0].addr = GUINT64_TO_LE(FZ_MR_IOVA + off);
    w.sge[0].length = GUINT32_TO_LE(len);
    w.sge[0].lkey = GUINT32_TO_LE(FZ_LKEY);
    put8(s, WQE_OP_RQ);
    put8(s, sel);
    put(s, &w, sizeof(w));
}

static void wqe_run(Seed *s, uint8_t n)
{
    put8(s, WQE_OP_RUN);
    put8(s, n);
}

static void wqe_poll(Seed *s, uint8_t node)
{
    put8(s, WQE_OP_POLL);
    put8(s, node);
}

static void wqe_ctrl(Seed *s, uint8_t sel, uint8_t what)
{
    put8(s, WQE_OP_CTRL);
    put8(s, sel);
    put8(s, what);
}

static void wqe_doorbell(Seed *s, uint8_t sel, uint8_t type, uint32_t index)
{
    put8(s, WQE_OP_DOORBELL);
    put8(s, sel);
    put8(s, type);
    put32le(s, index);
}

/* An RC WQE of node 0 (sel 0) towards node 1's MR */
static void rc_wqe(struct snic_sq_wqe *w, uint8_t opcode, uint32_t off,
                   uint32_t len, uint32_t roff)
{
    memset(w, 0, sizeof(*w));
    w->wr_id = GUINT64_TO_LE(0x1000 + opcode);
    w->opcode = opcode;
    w->flags = SNIC_WQE_SIGNALED;
    w->num_sge = 1;
    w->imm = GUINT32_TO_BE(0x12345678);
    w->rdma.remote_addr = GUINT64_TO_LE(FZ_MR_IOVA + roff);
    w->rdma.rkey = GUINT32_TO_LE(FZ_LKEY);
    w->rdma.compare_add = GUINT64_TO_LE(1);
    w->rdma.swap = GUINT64_TO_LE(2);
    w->sge[0].addr = GUINT64_TO_LE(FZ_MR_IOVA + off);
    w->sge[0].length = GUINT32_TO_LE(len);
    w->sge[0].lkey = GUINT32_TO_LE(FZ_LKEY);
}

/* A UD WQE from node 'from' to the other node's UD QP (3) */
static void ud_wqe(struct snic_sq_wqe *w, uint8_t from, uint32_t len,
                   uint32_t qkey)
{
    memset(w, 0, sizeof(*w));
    w->wr_id = GUINT64_TO_LE(0x2000 + len);
    w->opcode = SNIC_WR_SEND;
    w->flags = SNIC_WQE_SIGNALED;
    w->num_sge = 1;
    fz_av(&w->ud.av, FZ_IP(from + 1), FZ_IP(2 - from), false);
    w->ud.remote_qpn = GUINT32_TO_LE(3);
    w->ud.remote_qkey = GUINT32_TO_LE(qkey);
    w->sge[0].addr = GUINT64_TO_LE(FZ_MR_IOVA + 0x100);
    w->sge[0].length = GUINT32_TO_LE(len);
    w->sge[0].lkey = GUINT32_TO_LE(FZ_LKEY);
}

#define SEL_UD  (1 << 1)

static void gen_wqe(void)
{
    struct snic_sq_wqe w;
    Seed s;

    /* SEND of two segments into a posted receive */
    memset(&s, 0, sizeof(s));
    put8(&s, 0);
    wqe_recv(&s, 1, 0x4000, 0x2000);
    rc_wqe(&w, SNIC_WR_SEND, 0, 1500, 0);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 60);
    wqe_poll(&s, 0);
    wqe_poll(&s, 1);
    save("wqe", "rc-send", &s);

    /* WRITE, WRITE with immediate, READ, both atomics */
    memset(&s, 0, sizeof(s));
    put8(&s, 0);
    wqe_recv(&s, 1, 0x6000, 0x1000);
    rc_wqe(&w, SNIC_WR_RDMA_WRITE, 0x1000, 3000, 0x2000);
    wqe_send(&s, 0, &w);
    rc_wqe(&w, SNIC_WR_RDMA_WRITE_IMM, 0x1000, 100, 0x3000);
    wqe_send(&s, 0, &w);
    rc_wqe(&w, SNIC_WR_RDMA_READ, 0x8000, 5000, 0);
    wqe_send(&s, 0, &w);
    rc_wqe(&w, SNIC_WR_ATOMIC_CMP_SWAP, 0x9000, 8, 0x40);
    wqe_send(&s, 0, &w);
    rc_wqe(&w, SNIC_WR_ATOMIC_FETCH_ADD, 0x9008, 8, 0x48);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 100);
    wqe_poll(&s, 0);
    wqe_poll(&s, 1);
    save("wqe", "rc-rdma", &s);

    /* the same on a lossy link, and both directions at once */
    memset(&s, 0, sizeof(s));
    put8(&s, 1);
    wqe_recv(&s, 0, 0x4000, 0x2000);
    wqe_recv(&s, 1, 0x4000, 0x2000);
    rc_wqe(&w, SNIC_WR_RDMA_WRITE, 0, 8000, 0x2000);
    wqe_send(&s, 0, &w);
    rc_wqe(&w, SNIC_WR_SEND, 0, 3000, 0);
    wqe_send(&s, 1, &w);
    rc_wqe(&w, SNIC_WR_RDMA_READ, 0x8000, 4000, 0);
    wqe_send(&s, 1, &w);
    wqe_run(&s, 255);
    wqe_poll(&s, 0);
    wqe_poll(&s, 1);
    save("wqe", "rc-lossy", &s);

    /* reordering and corrupting links, the devices' fault injection */
    memset(&s, 0, sizeof(s));
    put8(&s, 2);
    rc_wqe(&w, SNIC_WR_RDMA_WRITE, 0, 6000, 0x2000);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 200);
    save("wqe", "rc-reorder", &s);
    s.b[0] = 3;
    save("wqe", "rc-corrupt", &s);
    s.b[0] = 4 << 2;
    save("wqe", "rc-faults", &s);
    s.b[0] = 5 << 2;
    save("wqe", "rc-reorder-all", &s);

    /* SEND without a receive WQE: RNR, then one is posted */
    memset(&s, 0, sizeof(s));
    put8(&s, 0);
    rc_wqe(&w, SNIC_WR_SEND_IMM, 0, 64, 0);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 10);
    wqe_recv(&s, 1, 0x4000, 64);
    wqe_run(&s, 100);
    wqe_poll(&s, 0);
    wqe_poll(&s, 1);
    save("wqe", "rc-rnr", &s);

    /* bad WQEs: unknown opcode, too many SGEs, bad key, SEND_INV */
    memset(&s, 0, sizeof(s));
    put8(&s, 0);
    rc_wqe(&w, SNIC_WR_RDMA_WRITE, 0, 64, 0);
    w.sge[0].lkey = GUINT32_TO_LE(0x200 | FZ_MR_KEY);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 20);
    rc_wqe(&w, SNIC_WR_SEND_INV, 0, 64, 0);
    wqe_send(&s, 1, &w);
    rc_wqe(&w, 0x42, 0, 64, 0);
    w.num_sge = 7;
    wqe_send(&s, 1, &w);
    wqe_run(&s, 50);
    wqe_poll(&s, 0);
    wqe_poll(&s, 1);
    save("wqe", "rc-errors", &s);

    /* UD both ways, a wrong Q_Key, arming and EQ doorbells */
    memset(&s, 0, sizeof(s));
    put8(&s, 0);
    wqe_recv(&s, 1 | SEL_UD, 0x4000, 0x1000);
    wqe_recv(&s, 0 | SEL_UD, 0x4000, 0x1000);
    wqe_doorbell(&s, 1, 3, 0);
    ud_wqe(&w, 0, 1000, FZ_QKEY);
    wqe_send(&s, 0 | SEL_UD, &w);
    ud_wqe(&w, 0, 10, 0x9999);
    wqe_send(&s, 0 | SEL_UD, &w);
    ud_wqe(&w, 1, 500, FZ_QKEY);
    w.opcode = SNIC_WR_SEND_IMM;
    wqe_send(&s, 1 | SEL_UD, &w);
    wqe_run(&s, 40);
    wqe_poll(&s, 1);
    wqe_doorbell(&s, 1, 5, 1);
    wqe_poll(&s, 0);
    save("wqe", "ud", &s);

    /* fixed-up WQEs, a rewritten slot, raw doorbells */
    memset(&s, 0, sizeof(s));
    put8(&s, 0);
    wqe_recv(&s, 1 | WQE_SEL_FIX, 0x123, 0x777);
    memset(&w, 0x5a, sizeof(w));
    w.opcode = 2;
    w.num_sge = 1;
    wqe_send(&s, 0 | WQE_SEL_FIX, &w);
    put8(&s, WQE_OP_SLOT);
    put8(&s, 0 | WQE_SEL_FIX);
    put8(&s, 1);
    w.opcode = 4;
    put(&s, &w, sizeof(w));
    wqe_doorbell(&s, 0, 0, 1);
    wqe_doorbell(&s, 0, 1, 0x80000005u);
    wqe_doorbell(&s, 0 | WQE_SEL_PAGE1, 0, 1);
    wqe_run(&s, 100);
    wqe_poll(&s, 0);
    save("wqe", "fixed", &s);

    /* IPv6 RC; QP state changes, link down, a broken ring, mid-transfer */
    memset(&s, 0, sizeof(s));
    put8(&s, 0x80);
    wqe_recv(&s, 1, 0x4000, 0x2000);
    rc_wqe(&w, SNIC_WR_SEND, 0, 3000, 0);
    wqe_send(&s, 0, &w);
    rc_wqe(&w, SNIC_WR_RDMA_WRITE, 0, 3000, 0);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 3);
    wqe_ctrl(&s, 1, 0);             /* node 1 link down */
    wqe_run(&s, 20);
    wqe_ctrl(&s, 1, 0x80);          /* and up */
    wqe_ctrl(&s, 1, 3 | 0x10 << 3); /* RTS -> RTS: no remote write */
    wqe_run(&s, 60);
    wqe_ctrl(&s, 0, 1);             /* node 0 QP to ERR */
    wqe_ctrl(&s, 0, 2 | 0x80);      /* RESET and back to RTS */
    rc_wqe(&w, SNIC_WR_RDMA_READ, 0x8000, 2000, 0);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 60);
    wqe_ctrl(&s, 1, 4 | 0x10);      /* node 1 RQ page list broken */
    rc_wqe(&w, SNIC_WR_SEND, 0, 100, 0);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 100);
    wqe_poll(&s, 0);
    wqe_poll(&s, 1);
    save("wqe", "ctrl-ipv6", &s);
}

/* ---- fuzz-rx ---- */

static void rx_record(Seed *s, uint8_t flags, const SnicPkt *p)
{
    uint8_t frame[SNIC_ETH_MAX_FRAME];
    size_t len = snic_wire_build(p, frame, sizeof(frame));

    if (!len) {
        fprintf(stderr, "cannot build op-code 0x%02x\n", p->opcode);
        exit(1);
    }
    put8(s, flags);
    put8(s, len >> 8);
    put8(s, len);
    put(s, frame, len);
}

/* A frame as it is (no fix-up applies to what is not IP) */
static void rx_raw(Seed *s, uint8_t flags, const uint8_t *f, size_t len)
{
    put8(s, flags);
    put8(s, len >> 8);
    put8(s, len);
    put(s, f, len);
}

/* A packet from the peer 10.0.0.2 to the node 10.0.0.1 */
static void rx_pkt(SnicPkt *p, uint8_t opcode, uint32_t dqpn, uint32_t psn)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
    static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };

    memset(p, 0, sizeof(*p));
    memcpy(p->addr.dmac, mac, 6);
    memcpy(p->addr.smac, peer_mac, 6);
    p->addr.sip[0] = 10;
    p->addr.sip[3] = FZ_IP(2);
    p->addr.dip[0] = 10;
    p->addr.dip[3] = FZ_IP(1);
    p->addr.hop_limit = 64;
    p->addr.sport = snic_wire_udp_sport(RX_PEER_QPN, dqpn);
    p->opcode = opcode;
    p->pkey = SNIC_DEFAULT_PKEY;
    p->dqpn = dqpn;
    p->psn = psn & SNIC_PSN_MASK;
}

static void ipv6_addr(SnicPkt *p)
{
    p->addr.ipv6 = true;
    memset(p->addr.sip, 0, 16);
    memset(p->addr.dip, 0, 16);
    p->addr.sip[10] = p->addr.sip[11] = 0xff;
    p->addr.dip[10] = p->addr.dip[11] = 0xff;
    p->addr.sip[12] = p->addr.dip[12] = 10;
    p->addr.sip[15] = FZ_IP(2);
    p->addr.dip[15] = FZ_IP(1);
}

static const uint8_t payload[4096] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static void rx_payload(SnicPkt *p, uint32_t len)
{
    p->payload = payload;
    p->payload_len = len;
}

#define FIX (RX_FIX_CRC | RX_FIX_LEN)

static void gen_rx(void)
{
    uint32_t e = RX_EPSN, r = RX_REQ_PSN;
    SnicPkt p;
    Seed s;

    /* responder: SEND Only, SEND First/Middle/Last */
    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_RC_SEND_ONLY, RX_RC_QPN, e);
    rx_payload(&p, 64);
    p.ackreq = true;
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "send-only", &s);

    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_RC_SEND_FIRST, RX_RC_QPN, e);
    rx_payload(&p, 1024);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_SEND_MIDDLE, RX_RC_QPN, e + 1);
    rx_payload(&p, 1024);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_SEND_LAST_IMM, RX_RC_QPN, e + 2);
    rx_payload(&p, 100);
    p.imm = 0xfeedf00d;
    p.se = true;
    p.ackreq = true;
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "send-multi", &s);

    /* WRITE Only, WRITE First/Last with immediate, READ, atomics */
    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_RC_WRITE_ONLY, RX_RC_QPN, e);
    p.reth.va = FZ_MR_IOVA + 0x100;
    p.reth.rkey = FZ_LKEY;
    p.reth.len = 200;
    rx_payload(&p, 200);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_WRITE_FIRST, RX_RC_QPN, e + 1);
    p.reth.va = FZ_MR_IOVA + 0x2000;
    p.reth.rkey = FZ_LKEY;
    p.reth.len = 1030;
    rx_payload(&p, 1024);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_WRITE_LAST_IMM, RX_RC_QPN, e + 2);
    rx_payload(&p, 6);
    p.imm = 7;
    p.ackreq = true;
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "write", &s);

    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_RC_READ_REQUEST, RX_RC_QPN, e);
    p.reth.va = FZ_MR_IOVA + 0x10;
    p.reth.rkey = FZ_LKEY;
    p.reth.len = 3000;
    p.ackreq = true;
    rx_record(&s, FIX | RX_RUN, &p);
    /* the same READ again: a duplicate, answered again */
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_RC_CMP_SWAP, RX_RC_QPN, e + 3);
    p.atomic.va = FZ_MR_IOVA + 0x40;
    p.atomic.rkey = FZ_LKEY;
    p.atomic.compare = 0;
    p.atomic.swap_add = 99;
    p.ackreq = true;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_RC_FETCH_ADD, RX_RC_QPN, e + 4);
    p.atomic.va = FZ_MR_IOVA + 0x48;
    p.atomic.rkey = FZ_LKEY;
    p.atomic.swap_add = 5;
    p.ackreq = true;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "read-atomic", &s);

    /* out of order (NAK), duplicate (re-ACK), bad key (fatal NAK) */
    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_RC_SEND_ONLY, RX_RC_QPN, e + 5);
    rx_payload(&p, 8);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_RC_SEND_ONLY, RX_RC_QPN, e - 3);
    rx_payload(&p, 8);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_RC_WRITE_ONLY, RX_RC_QPN, e);
    p.reth.va = FZ_MR_IOVA;
    p.reth.rkey = 0x233;
    p.reth.len = 4;
    rx_payload(&p, 4);
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "sequence-errors", &s);

    /* requester: ACKs, NAKs, READ responses, atomic ACK */
    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_RC_ACK, RX_RC_QPN, r + 2);
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.aeth.msn = 2;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_RC_READ_RESP_FIRST, RX_RC_QPN, r + 3);
    p.aeth.syndrome = SNIC_AETH_ACK;
    rx_payload(&p, 1024);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_READ_RESP_MIDDLE, RX_RC_QPN, r + 4);
    rx_payload(&p, 1024);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_READ_RESP_LAST, RX_RC_QPN, r + 5);
    p.aeth.syndrome = SNIC_AETH_ACK;
    rx_payload(&p, RX_READ_LEN - 2048);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_RC_ATOMIC_ACK, RX_RC_QPN, r + 6);
    p.aeth.syndrome = SNIC_AETH_ACK;
    p.atomic_ack = 0x1234;
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "responses", &s);

    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_RC_ACK, RX_RC_QPN, r);
    p.aeth.syndrome = SNIC_AETH_NAK_SEQ;   /* go back */
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_RC_ACK, RX_RC_QPN, r + 1);
    p.aeth.syndrome = SNIC_AETH_RNR | 1;
    rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
    rx_record(&s, FIX | RX_TIMER, &p);
    rx_pkt(&p, SNIC_OP_RC_ACK, RX_RC_QPN, r + 2);
    p.aeth.syndrome = SNIC_AETH_NAK_REM_ACCESS;    /* fatal */
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "naks", &s);

    /* nothing answers: retransmission timeouts until retries run out */
    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_CNP, RX_RC_QPN, 0);
    rx_record(&s, FIX | RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    save("rx", "timeouts", &s);

    /* UD and GSI datagrams, a wrong Q_Key, IPv6 */
    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_UD_SEND_ONLY, RX_UD_QPN, 0);
    p.deth.qkey = FZ_QKEY;
    p.deth.sqpn = 3;
    rx_payload(&p, 256);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_UD_SEND_ONLY_IMM, RX_UD_QPN, 1);
    p.deth.qkey = FZ_QKEY;
    p.deth.sqpn = 3;
    p.imm = 42;
    rx_payload(&p, 4000);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_UD_SEND_ONLY, SNIC_GSI_QPN, 2);
    p.deth.qkey = SNIC_GSI_QKEY;
    p.deth.sqpn = 1;
    rx_payload(&p, 256);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_UD_SEND_ONLY, RX_UD_QPN, 3);
    p.deth.qkey = 0x5555;
    rx_payload(&p, 16);
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "ud-gsi", &s);

    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_UD_SEND_ONLY, RX_UD_QPN, 0);
    ipv6_addr(&p);
    p.deth.qkey = FZ_QKEY;
    p.deth.sqpn = 3;
    rx_payload(&p, 100);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_SEND_ONLY_IMM, RX_RC_QPN, e);
    ipv6_addr(&p);
    rx_payload(&p, 100);
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "ipv6", &s);

    /* a datagram to the UD QP's multicast group, and one to another */
    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_UD_SEND_ONLY, SNIC_MCAST_QPN, 0);
    p.addr.dip[0] = (uint8_t)(FZ_MCAST_IP >> 24);
    p.addr.dip[1] = (uint8_t)(FZ_MCAST_IP >> 16);
    p.addr.dip[2] = (uint8_t)(FZ_MCAST_IP >> 8);
    p.addr.dip[3] = (uint8_t)FZ_MCAST_IP;
    memcpy(p.addr.dmac, (uint8_t[6]){ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 },
           6);
    p.deth.qkey = FZ_QKEY;
    p.deth.sqpn = 3;
    rx_payload(&p, 300);
    rx_record(&s, FIX, &p);
    p.addr.dip[3] = 2;
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "multicast", &s);

    /* VLAN tag, SEND with Invalidate, CNP, a frame without fix-up */
    memset(&s, 0, sizeof(s));
    rx_pkt(&p, SNIC_OP_RC_SEND_ONLY, RX_RC_QPN, e);
    p.addr.vlan = true;
    p.addr.vlan_tci = 5;
    rx_payload(&p, 32);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_SEND_ONLY_INV, RX_RC_QPN, e + 1);
    p.ieth_rkey = FZ_LKEY;
    rx_payload(&p, 32);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_CNP, RX_RC_QPN, 0);
    rx_record(&s, FIX, &p);
    rx_pkt(&p, SNIC_OP_RC_WRITE_ONLY_IMM, RX_RC_QPN, e);
    p.reth.va = FZ_MR_IOVA;
    p.reth.rkey = FZ_LKEY;
    p.reth.len = 4;
    rx_payload(&p, 4);
    rx_record(&s, 0, &p);
    save("rx", "misc", &s);

    /*
     * StRoM RPCs: a traversal and a consistency RPC (kernels walk the
     * node's memory), an RPC WRITE of three packets and an RPC of an
     * op-code no kernel serves (both to the receive queue)
     */
    {
        struct snic_traversal_params tp = {
            .remote_address = GUINT64_TO_LE(FZ_MR_IOVA + 0x100),
            .value_size = GUINT32_TO_LE(64),
            .key_mask = GUINT16_TO_LE(1),
            .value_ptr_pos = 4,
            .flags = SNIC_TRAV_NEXT_VALID,
            .next_ptr_pos = 2,
        };
        struct snic_consistency_params cp = {
            .remote_address = GUINT64_TO_LE(FZ_MR_IOVA + 0x2000),
            .object_size = GUINT32_TO_LE(3000),
            .max_retries = GUINT16_TO_LE(2),
        };
        struct snic_rpc_hdr h = {
            .resp_addr = GUINT64_TO_LE(0x7000),
            .resp_rkey = GUINT32_TO_LE(0x100),
            .resp_len = GUINT32_TO_LE(4096),
            .tag = GUINT32_TO_LE(7),
        };
        static uint8_t msg[1024];

        memset(&s, 0, sizeof(s));
        memcpy(msg, &h, sizeof(h));
        memcpy(msg + sizeof(h), &tp, sizeof(tp));
        rx_pkt(&p, SNIC_OP_RC_RPC_PARAMS, RX_RC_QPN, e);
        p.reth.va = RX_RPC_TRAV;
        p.reth.rkey = FZ_LKEY;
        p.reth.len = sizeof(tp);
        p.payload = msg;
        p.payload_len = sizeof(h) + sizeof(tp);
        rx_record(&s, FIX | RX_RUN, &p);
        memcpy(msg + sizeof(h), &cp, sizeof(cp));
        rx_pkt(&p, SNIC_OP_RC_RPC_PARAMS, RX_RC_QPN, e + 1);
        p.reth.va = RX_RPC_CONS;
        p.reth.rkey = FZ_LKEY;
        p.reth.len = sizeof(cp);
        p.payload = msg;
        p.payload_len = sizeof(h) + sizeof(cp);
        rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
        rx_pkt(&p, SNIC_OP_RC_RPC_WRITE_FIRST, RX_RC_QPN, e + 2);
        p.reth.va = 0x55;
        p.reth.rkey = FZ_LKEY;
        p.reth.len = 2 * 1024 + 100 - sizeof(h);
        p.payload = msg;
        p.payload_len = 1024;
        rx_record(&s, FIX, &p);
        rx_pkt(&p, SNIC_OP_RC_RPC_WRITE_MIDDLE, RX_RC_QPN, e + 3);
        rx_payload(&p, 1024);
        rx_record(&s, FIX, &p);
        rx_pkt(&p, SNIC_OP_RC_RPC_WRITE_LAST, RX_RC_QPN, e + 4);
        rx_payload(&p, 100);
        rx_record(&s, FIX | RX_RUN, &p);
        memcpy(msg + sizeof(h), &tp, sizeof(tp));
        rx_pkt(&p, SNIC_OP_RC_RPC_WRITE_ONLY, RX_RC_QPN, e + 5);
        p.reth.va = RX_RPC_TRAV;
        p.reth.rkey = FZ_LKEY;
        p.reth.len = 40;
        p.payload = msg;
        p.payload_len = sizeof(h) + 40;
        rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
        save("rx", "rpc", &s);
    }

    /*
     * The selective-transport extension (TVer 2): WRITE packets carrying
     * their own target, out of order, and an ACK with a SACK block; the
     * same WRITE Middle as a raw frame for the wire parser
     */
    {
        uint8_t f[SNIC_ETH_MAX_FRAME];
        Seed w;
        size_t n;

        memset(&s, 0, sizeof(s));
        rx_pkt(&p, SNIC_OP_RC_WRITE_MIDDLE, RX_RC_QPN, e + 1);
        rx_payload(&p, 1024);
        p.xport = true;
        p.xeth.flags = SNIC_XETH_F_PLACE;
        p.xeth.rkey = FZ_LKEY;
        p.xeth.va = RX_RPC_TRAV + 1024;
        rx_record(&s, FIX, &p);
        memset(&w, 0, sizeof(w));
        n = snic_wire_build(&p, f, sizeof(f));
        put(&w, f, n);
        save("wire", "xport-write-middle", &w);
        rx_pkt(&p, SNIC_OP_RC_WRITE_FIRST, RX_RC_QPN, e);
        rx_payload(&p, 1024);
        p.reth.va = RX_RPC_TRAV;
        p.reth.rkey = FZ_LKEY;
        p.reth.len = 2048;
        p.xport = true;
        p.xeth.flags = SNIC_XETH_F_PLACE;
        p.xeth.rkey = FZ_LKEY;
        p.xeth.va = RX_RPC_TRAV;
        rx_record(&s, FIX | RX_RUN, &p);
        rx_pkt(&p, SNIC_OP_RC_ACK, RX_RC_QPN, e);
        p.aeth.syndrome = SNIC_AETH_ACK;
        p.xport = true;
        p.xeth.flags = SNIC_XETH_F_SACK;
        p.xeth.sack_lo = e + 2;
        p.xeth.sack_hi = e + 4;
        rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
        save("rx", "xport", &s);
    }

    /*
     * 802.1Qbb PFC from the link partner (sim-eth builds them as the
     * switch does): a pause of the RoCE priority while requests are in
     * flight, its expiry (timer), a pause and an XON, a pause of another
     * priority, an 802.3x PAUSE (not PFC), a PFC frame cut short
     */
    {
        static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb,
                                             0xcc };
        uint16_t q[SNIC_SIM_PRIORITIES] = { 0 };
        uint8_t f[SNIC_SIM_PFC_FRAME_LEN];

        memset(&s, 0, sizeof(s));
        q[SNIC_DEFAULT_PFC_PRIORITY] = 1000;
        snic_sim_pfc_build(f, peer_mac, 1u << SNIC_DEFAULT_PFC_PRIORITY, q);
        rx_raw(&s, RX_RUN, f, sizeof(f));
        rx_raw(&s, RX_TIMER, f, sizeof(f));
        q[SNIC_DEFAULT_PFC_PRIORITY] = 0xffff;
        snic_sim_pfc_build(f, peer_mac, 1u << SNIC_DEFAULT_PFC_PRIORITY, q);
        rx_raw(&s, RX_RUN, f, sizeof(f));
        q[SNIC_DEFAULT_PFC_PRIORITY] = 0;
        snic_sim_pfc_build(f, peer_mac, 1u << SNIC_DEFAULT_PFC_PRIORITY, q);
        rx_raw(&s, RX_RUN, f, sizeof(f));
        q[1] = 0xffff;
        snic_sim_pfc_build(f, peer_mac, 1u << 1, q);
        rx_raw(&s, RX_RUN, f, sizeof(f));
        f[14] = 0x00;   /* opcode 0x0001 */
        rx_raw(&s, RX_RUN, f, sizeof(f));
        f[14] = 0x01;
        rx_raw(&s, RX_RUN | RX_TIMER, f, 20);
        save("rx", "pfc", &s);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS-DIR (tests/fuzz/corpus)\n",
                argv[0]);
        return 2;
    }
    out_dir = argv[1];
    gen_admin();
    gen_wqe();
    gen_rx();
    return 0;
}
