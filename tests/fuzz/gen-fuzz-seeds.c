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
#include "objects/qp.h"

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

/* An input's byte that picks transport program 'program' (fz_programs) */
static uint8_t prog(uint8_t program)
{
    uint8_t i;

    for (i = 0; i < FZ_NUM_PROGRAMS; i++) {
        if (fz_programs[i] == program) {
            return i;
        }
    }
    fprintf(stderr, "program %u is not in fz_programs\n", program);
    exit(1);
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

    /*
     * The extension commands: a QP's transport program (SRNIC, its CtrlQ
     * and RetryQ), queried; StRoM's SET_QP_RPC and kernels; the port's
     * GID table; each also refused (state, range, twice, removal)
     */
    memset(&s, 0, sizeof(s));
    adm_pd(&s, 0);
    adm_eq(&s, 0, 4);
    adm_cq(&s, 1, 1, 0);
    adm_qp(&s, SNIC_QPT_RC, 2, 3, 1, 1, 0);
    adm_qp(&s, SNIC_QPT_UD, 5, 6, 1, 1, 0);
    for (i = 0; i < 3; i++) {
        cmd_init(&c, SNIC_ADMIN_SET_QP_TRANSPORT);
        c.set_qp_transport.qpn = GUINT32_TO_LE(i ? 2 : 3);
        c.set_qp_transport.program = i == 2 ? 99 : SNIC_TRANSPORT_SRNIC;
        adm_cmd(&s, 0, &c);
    }
    cmd_init(&c, SNIC_ADMIN_CREATE_SR_CTRLQ);
    c.create_sr_ctrlq.ring_addr = GUINT64_TO_LE(FZ_SCRATCH + 0x4000);
    c.create_sr_ctrlq.log2_depth = 5;
    c.create_sr_ctrlq.vector = GUINT16_TO_LE(2);
    adm_cmd(&s, 0, &c);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_SET_QP_SR);
    c.set_qp_sr.qpn = GUINT32_TO_LE(2);
    c.set_qp_sr.log2_depth = 6;
    c.set_qp_sr.window = GUINT16_TO_LE(64);
    c.set_qp_sr.ring_addr = GUINT64_TO_LE(FZ_SCRATCH + 0x6000);
    adm_cmd(&s, 0, &c);
    c.set_qp_sr.qpn = GUINT32_TO_LE(3);
    adm_cmd(&s, 0, &c);
    c.set_qp_sr.qpn = GUINT32_TO_LE(2);
    c.set_qp_sr.window = GUINT16_TO_LE(SNIC_SR_SPAN + 1);
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_SET_QP_RPC);
    c.set_qp_rpc.qpn = GUINT32_TO_LE(2);
    c.set_qp_rpc.flags = GUINT32_TO_LE(SNIC_QP_RPC_ENABLE |
                                       SNIC_QP_RPC_FALLBACK);
    adm_cmd(&s, 0, &c);
    c.set_qp_rpc.flags = GUINT32_TO_LE(SNIC_QP_RPC_FALLBACK);
    adm_cmd(&s, 0, &c);
    c.set_qp_rpc.qpn = GUINT32_TO_LE(3);
    adm_cmd(&s, 0, &c);
    adm_mr(&s, 4, 1, 0x4000, FZ_MR_KEY);
    adm_modify(&s, 2, RC_INIT, 0);
    adm_modify(&s, 2, RC_RTR, 1);
    adm_modify(&s, 2, RC_RTS, 2);
    cmd_init(&c, SNIC_ADMIN_SET_QP_TRANSPORT);
    c.set_qp_transport.qpn = GUINT32_TO_LE(2);
    c.set_qp_transport.program = SNIC_TRANSPORT_SACK;
    adm_cmd(&s, 0, &c);
    adm_doorbell(&s, 0, SNIC_DB_SR_RETRYQ, 2, 1);
    adm_doorbell(&s, 1, SNIC_DB_SR_RETRYQ, 2, 1);
    adm_doorbell(&s, 0, SNIC_DB_SR_CTRLQ, 0, 40);
    adm_doorbell(&s, 0, SNIC_DB_SR_RETRYQ, 2, 0x9000);
    for (i = 0; i < 3; i++) {
        cmd_init(&c, SNIC_ADMIN_QUERY_TRANSPORT);
        c.query_transport.qpn = GUINT32_TO_LE(i == 0 ? 2 : 0);
        c.query_transport.program = i == 2 ? 200 : SNIC_TRANSPORT_NDP;
        c.query_transport.resp_addr = GUINT64_TO_LE(FZ_SCRATCH + 0x8000 +
                                                    (i == 2 ? 4 : 0));
        adm_cmd(&s, 0, &c);
    }
    for (i = 0; i < 4; i++) {
        cmd_init(&c, i < 3 ? SNIC_ADMIN_DEPLOY_KERNEL :
                 SNIC_ADMIN_UNDEPLOY_KERNEL);
        c.deploy_kernel.rpc_opcode = GUINT64_TO_LE(5);
        c.deploy_kernel.kernel_id = GUINT16_TO_LE(i == 2 ? 9 :
                                                  i < 3 ? SNIC_KERNEL_TRAVERSAL
                                                        : 0);
        adm_cmd(&s, 0, &c);
    }
    adm_cmd(&s, 0, &c);
    for (i = 0; i < 3; i++) {
        struct snic_av av;

        fz_av(&av, 1, 2, i == 1);
        cmd_init(&c, SNIC_ADMIN_SET_GID);
        c.set_gid.index = i == 2 ? SNIC_MAX_GIDS : 3;
        c.set_gid.flags = SNIC_GID_VALID;
        memcpy(c.set_gid.gid, av.sgid, 16);
        adm_cmd(&s, 0, &c);
    }
    c.set_gid.index = 3;
    c.set_gid.flags = 0;
    adm_cmd(&s, 0, &c);
    cmd_init(&c, SNIC_ADMIN_CREATE_SR_CTRLQ);
    adm_cmd(&s, 0, &c);
    adm_modify(&s, 2, SNIC_QP_ATTR_STATE, 5);
    adm_obj(&s, SNIC_ADMIN_DESTROY_QP, 2);
    save("admin", "extensions", &s);

    /* fixed-up commands from patterned bytes */
    for (i = 0; i < 7; i++) {
        char name[32];
        unsigned k, j;

        memset(&s, 0, sizeof(s));
        for (k = 0; k < (i == 6 ? 14u : 12u); k++) {
            memset(&c, 0, sizeof(c));
            for (j = 0; j < sizeof(c); j++) {
                ((uint8_t *)&c)[j] = (uint8_t)(i * 37 + k * 11 + j * 7);
            }
            /* walk the opcode table: creates first, then the rest */
            c.hdr.opcode = (uint8_t)(k < 6 ? k * 2 + (k == 5 ? 6 : 0) :
                                     i * 5 + k);
            /* the last input: the extensions' commands (the table's end) */
            if (i == 6 && k >= 6) {
                c.hdr.opcode = FZ_ADMIN_NUM_OPCODES - 8 + k - 6;
            }
            adm_cmd(&s, ADM_FIX_HDR | ADM_FIX_FIELDS, &c);
        }
        snprintf(name, sizeof(name), "fixed-%u", i);
        save("admin", name, &s);
    }
}

/* ---- fuzz-wqe ---- */

/* A new input: its link and fault profile, the RC pair's program */
static void wqe_begin(Seed *s, uint8_t profile, uint8_t program)
{
    memset(s, 0, sizeof(*s));
    put8(s, profile);
    put8(s, prog(program));
}

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
    wqe_begin(&s, 0, SNIC_TRANSPORT_GBN);
    wqe_recv(&s, 1, 0x4000, 0x2000);
    rc_wqe(&w, SNIC_WR_SEND, 0, 1500, 0);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 60);
    wqe_poll(&s, 0);
    wqe_poll(&s, 1);
    save("wqe", "rc-send", &s);

    /* WRITE, WRITE with immediate, READ, both atomics */
    wqe_begin(&s, 0, SNIC_TRANSPORT_GBN);
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
    wqe_begin(&s, 1, SNIC_TRANSPORT_GBN);
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
    wqe_begin(&s, 2, SNIC_TRANSPORT_GBN);
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
    wqe_begin(&s, 0, SNIC_TRANSPORT_GBN);
    rc_wqe(&w, SNIC_WR_SEND_IMM, 0, 64, 0);
    wqe_send(&s, 0, &w);
    wqe_run(&s, 10);
    wqe_recv(&s, 1, 0x4000, 64);
    wqe_run(&s, 100);
    wqe_poll(&s, 0);
    wqe_poll(&s, 1);
    save("wqe", "rc-rnr", &s);

    /* bad WQEs: unknown opcode, too many SGEs, bad key, SEND_INV */
    wqe_begin(&s, 0, SNIC_TRANSPORT_GBN);
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
    wqe_begin(&s, 0, SNIC_TRANSPORT_GBN);
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
    wqe_begin(&s, 0, SNIC_TRANSPORT_GBN);
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
    wqe_begin(&s, 0x80, SNIC_TRANSPORT_GBN);
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

    /*
     * Each transport program under loss (10 %), reordering or ECN
     * marking: WRITEs, SENDs, a READ and a WRITE with immediate both
     * ways; SRNIC's hosts serve their CtrlQs
     */
    {
        static const struct {
            uint8_t program, profile;
            const char *name;
        } runs[] = {
            { SNIC_TRANSPORT_SACK, 1, "prog-sack" },
            { SNIC_TRANSPORT_NDP, 1, "prog-ndp" },
            { SNIC_TRANSPORT_IRN, 2, "prog-irn" },
            { SNIC_TRANSPORT_SRNIC, 1, "prog-srnic" },
            { SNIC_TRANSPORT_SRNIC, 2 | 1 << 2, "prog-srnic-faults" },
            { SNIC_TRANSPORT_SRNIC_DCTCP, 3, "prog-srnic-dctcp" },
            { SNIC_TRANSPORT_RENO, 1, "prog-reno" },
            { SNIC_TRANSPORT_NEWRENO, 2, "prog-newreno" },
            { SNIC_TRANSPORT_DCQCN, 3, "prog-dcqcn" },
            { SNIC_TRANSPORT_DCTCP, 3, "prog-dctcp" },
        };
        unsigned i;

        for (i = 0; i < G_N_ELEMENTS(runs); i++) {
            wqe_begin(&s, runs[i].profile, runs[i].program);
            wqe_recv(&s, 1, 0x4000, 0x2000);
            wqe_recv(&s, 1, 0x6000, 0x1000);
            wqe_recv(&s, 0, 0x4000, 0x2000);
            rc_wqe(&w, SNIC_WR_RDMA_WRITE, 0, 8000, 0x2000);
            wqe_send(&s, 0, &w);
            rc_wqe(&w, SNIC_WR_SEND, 0, 3000, 0);
            wqe_send(&s, 0, &w);
            rc_wqe(&w, SNIC_WR_RDMA_READ, 0x8000, 4000, 0);
            wqe_send(&s, 0, &w);
            rc_wqe(&w, SNIC_WR_RDMA_WRITE_IMM, 0x1000, 100, 0x3000);
            wqe_send(&s, 0, &w);
            rc_wqe(&w, SNIC_WR_SEND_IMM, 0, 2000, 0);
            wqe_send(&s, 1, &w);
            wqe_run(&s, 255);
            wqe_poll(&s, 0);
            wqe_poll(&s, 1);
            wqe_run(&s, 255);
            wqe_poll(&s, 0);
            wqe_poll(&s, 1);
            save("wqe", runs[i].name, &s);
        }
    }
}

/* ---- fuzz-rx ---- */

/* A new input whose RC QP runs 'program' (and takes StRoM RPCs or not) */
static void rx_begin(Seed *s, uint8_t program, bool rpc)
{
    memset(s, 0, sizeof(*s));
    put8(s, prog(program) | (rpc ? 0 : RX_NO_RPC));
}

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
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
    rx_pkt(&p, SNIC_OP_RC_SEND_ONLY, RX_RC_QPN, e);
    rx_payload(&p, 64);
    p.ackreq = true;
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "send-only", &s);

    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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

    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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

    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
    rx_pkt(&p, SNIC_OP_CNP, RX_RC_QPN, 0);
    rx_record(&s, FIX | RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    save("rx", "timeouts", &s);

    /*
     * The UD QP is a connectionless endpoint: a registered operation of
     * three packets out of order (two parked before their REGISTER), a
     * duplicate, a non-registered packet and its NOTIFY twice, an ACK of
     * nothing, the escape channel's timer
     */
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
    for (unsigned i = 0; i < 8; i++) {
        static const uint8_t op[8] = {
            SNIC_OP_CL_WRITE, SNIC_OP_CL_WRITE, SNIC_OP_CL_REGISTER,
            SNIC_OP_CL_WRITE, SNIC_OP_CL_WRITE, SNIC_OP_CL_NOTIFY,
            SNIC_OP_CL_NOTIFY, SNIC_OP_CL_ACK,
        };
        static const uint8_t index[8] = { 2, 1, 0, 1, 0, 1, 1, 0 };
        bool reg = i < 4;

        rx_pkt(&p, op[i], RX_UD_QPN, i);
        p.cl.flags = reg ? SNIC_CL_F_REGISTERED : 0;
        p.cl.src_ep = 5;
        p.cl.op_id = reg ? 0x10003 : 0x10004;
        p.cl.index = index[i];
        p.cl.rkey = FZ_LKEY;
        p.cl.len = reg ? 2 * 512 + 100 : 512;
        p.cl.npkts = reg ? 3 : 1;
        p.cl.va = FZ_MR_IOVA + (reg ? 0 : 0x2000) +
                  (op[i] == SNIC_OP_CL_NOTIFY ? 0 : 512 * p.cl.index);
        p.cl.tag = 77;
        p.cl.timeout_us = 100;
        p.cl.retries = 7;
        if (op[i] != SNIC_OP_CL_NOTIFY && op[i] != SNIC_OP_CL_ACK) {
            rx_payload(&p, reg && p.cl.index == 2 ? 100 : 512);
        }
        rx_record(&s, FIX | (i == 7 ? RX_TIMER : RX_RUN), &p);
    }
    save("rx", "cl", &s);

    /* UD and GSI datagrams, a wrong Q_Key, IPv6 */
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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

    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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
    rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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

        rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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
     * The shuffle kernel: an RPC WRITE of two packets (parameters, a
     * histogram of four partitions in the node's MR, 200 tuples), then the
     * same with a partition too small (PARTITION_FULL)
     */
    {
        struct snic_rpc_hdr h = {
            .resp_addr = GUINT64_TO_LE(0x7000),
            .resp_rkey = GUINT32_TO_LE(0x100),
            .resp_len = GUINT32_TO_LE(16),
            .tag = GUINT32_TO_LE(9),
        };
        struct snic_shuffle_params sp = { .bits = 2, .shift = 1 };
        static uint8_t msg[2048];
        size_t off = 0, len;
        unsigned i, round;

        rx_begin(&s, SNIC_TRANSPORT_GBN, true);
        for (round = 0; round < 2; round++) {
            off = 0;
            memcpy(msg + off, &h, sizeof(h));
            off += sizeof(h);
            memcpy(msg + off, &sp, sizeof(sp));
            off += sizeof(sp);
            for (i = 0; i < 4; i++) {
                struct snic_shuffle_part pt = {
                    .base = GUINT64_TO_LE(FZ_MR_IOVA + 0x3000 + i * 0x200),
                    .capacity = GUINT32_TO_LE(round && !i ? 8 : 64),
                };

                memcpy(msg + off, &pt, sizeof(pt));
                off += sizeof(pt);
            }
            for (i = 0; i < 200; i++) {
                uint64_t v = GUINT64_TO_LE((uint64_t)i * 0x9e3779b97f4a7c15ull);

                memcpy(msg + off, &v, 8);
                off += 8;
            }
            len = off;
            rx_pkt(&p, SNIC_OP_RC_RPC_WRITE_FIRST, RX_RC_QPN, e + 2 * round);
            p.reth.va = RX_RPC_SHUF;
            p.reth.rkey = FZ_LKEY;
            p.reth.len = len - sizeof(h);
            p.payload = msg;
            p.payload_len = 1024;
            rx_record(&s, FIX, &p);
            rx_pkt(&p, SNIC_OP_RC_RPC_WRITE_LAST, RX_RC_QPN, e + 2 * round + 1);
            p.payload = msg + 1024;
            p.payload_len = len - 1024;
            rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
        }
        save("rx", "rpc-shuffle", &s);
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

        rx_begin(&s, SNIC_TRANSPORT_SACK, true);
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

        rx_begin(&s, SNIC_TRANSPORT_GBN, true);
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

/* A WRITE packet with its own target (the extension's PLACE): MR offset */
static void rx_xwrite(SnicPkt *p, uint8_t opcode, uint32_t psn, uint32_t off,
                      uint32_t len, uint32_t msg_len)
{
    rx_pkt(p, opcode, RX_RC_QPN, psn);
    rx_payload(p, len);
    p->reth.va = FZ_MR_IOVA + off;
    p->reth.rkey = FZ_LKEY;
    p->reth.len = msg_len;
    p->xport = true;
    p->xeth.flags = SNIC_XETH_F_PLACE;
    p->xeth.rkey = FZ_LKEY;
    p->xeth.va = FZ_MR_IOVA + off;
}

/* A SEND packet of message 'msg' at byte 'off' of it (the extension's MSG) */
static void rx_xsend(SnicPkt *p, uint8_t opcode, uint32_t psn, uint32_t msg,
                     uint32_t off, uint32_t len)
{
    rx_pkt(p, opcode, RX_RC_QPN, psn);
    rx_payload(p, len);
    p->xport = true;
    p->xeth.flags = SNIC_XETH_F_MSG;
    p->xeth.msg = msg;
    p->xeth.offset = off;
}

/* An ACK of PSN psn to the requester with the extension's 'flags' */
static void rx_xack(SnicPkt *p, uint32_t psn, uint8_t flags, uint32_t lo,
                    uint32_t hi)
{
    rx_pkt(p, SNIC_OP_RC_ACK, RX_RC_QPN, psn);
    p->aeth.syndrome = SNIC_AETH_ACK;
    p->xport = true;
    p->xeth.flags = flags;
    p->xeth.sack_lo = lo & SNIC_PSN_MASK;
    p->xeth.sack_hi = hi & SNIC_PSN_MASK;
}

/* RetryQ entries as a record (RX_FIX_LEN: the QP's number in them) */
static void rx_retry(Seed *s, uint8_t flags, const struct snic_sr_retry *e,
                     unsigned n, const uint16_t *ahead)
{
    size_t len = n * sizeof(*e) + (ahead ? 2 : 0);

    put8(s, RX_RETRYQ | flags);
    put8(s, len >> 8);
    put8(s, len);
    put(s, e, n * sizeof(*e));
    if (ahead) {
        put8(s, *ahead);
        put8(s, *ahead >> 8);
    }
}

static void retry_entry(struct snic_sr_retry *e, uint8_t type, uint32_t from,
                        uint32_t to)
{
    memset(e, 0, sizeof(*e));
    e->type = type;
    e->psn_from = GUINT32_TO_LE(from & SNIC_PSN_MASK);
    e->psn_to = GUINT32_TO_LE(to & SNIC_PSN_MASK);
}

/*
 * Each transport program with the extension its peer would send: data
 * placed ahead of ePSN, SACK blocks, NACKs, PULLs, trimmed headers, ECN
 * echoes; SRNIC's CtrlQ served by the host software, and RetryQ entries
 * right and wrong
 */
static void gen_rx_programs(void)
{
    const uint32_t e = RX_EPSN, r = RX_REQ_PSN;
    struct snic_sr_retry q[8];
    uint16_t ahead;
    SnicPkt p;
    Seed s;
    unsigned i;

    /* SACK: WRITE and SEND placed out of order, SACKs and dup ACKs */
    rx_begin(&s, SNIC_TRANSPORT_SACK, false);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_MIDDLE, e + 1, 0x1400, 1024, 0);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_LAST, e + 2, 0x1800, 100, 0);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_FIRST, e, 0x1000, 1024, 2148);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xsend(&p, SNIC_OP_RC_SEND_LAST, e + 4, 0, 1024, 200);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xsend(&p, SNIC_OP_RC_SEND_ONLY_IMM, e + 6, 2, 0, 64);
    p.imm = 0x1234;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xsend(&p, SNIC_OP_RC_SEND_FIRST, e + 3, 0, 0, 1024);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xsend(&p, SNIC_OP_RC_SEND_ONLY, e + 5, 1, 0, 300);
    p.ackreq = true;
    rx_record(&s, FIX | RX_RUN, &p);
    for (i = 0; i < 4; i++) {
        rx_xack(&p, r, SNIC_XETH_F_SACK, r + 2, r + 3 + i);
        rx_record(&s, FIX | RX_RUN, &p);
    }
    rx_record(&s, RX_TIMER, &p);
    rx_xack(&p, r + 6, 0, 0, 0);
    rx_record(&s, FIX | RX_RUN, &p);
    save("rx", "sack", &s);

    /* NDP: a trimmed WRITE (NACKed at once), then whole; PULLs, NACKs */
    rx_begin(&s, SNIC_TRANSPORT_NDP, false);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e, 0x2000, 512, 512);
    rx_record(&s, RX_TRIM | RX_RUN, &p);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + 2, 0x2400, 256, 256);
    rx_record(&s, RX_TRIM | RX_RUN, &p);
    rx_xsend(&p, SNIC_OP_RC_SEND_ONLY, e + 1, 0, 0, 128);
    rx_record(&s, RX_TRIM | RX_RUN, &p);
    rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
    rx_xack(&p, r, SNIC_XETH_F_PULL, 0, 0);
    p.xeth.msg = 3;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xack(&p, r, SNIC_XETH_F_NACK | SNIC_XETH_F_TRIMMED, r + 2, 0);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xack(&p, r + 1, SNIC_XETH_F_NACK | SNIC_XETH_F_PULL, r + 3, 0);
    p.xeth.msg = 6;
    rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
    rx_xack(&p, r + 6, SNIC_XETH_F_PULL, 0, 0);
    p.xeth.msg = 9;
    rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
    save("rx", "ndp", &s);

    /* IRN: out of order, a NACK, SACK blocks, the timeout */
    rx_begin(&s, SNIC_TRANSPORT_IRN, false);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + 1, 0x3000, 64, 64);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY_IMM, e + 2, 0x3100, 64, 64);
    p.xeth.flags |= SNIC_XETH_F_MSG;
    p.imm = 5;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e, 0x3200, 64, 64);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xack(&p, r, SNIC_XETH_F_NACK, r + 1, 0);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xack(&p, r, SNIC_XETH_F_SACK, r + 2, r + 4);
    rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    save("rx", "irn", &s);

    /* Reno and NewReno: TCP's ACKs, three duplicates, a partial ACK */
    for (i = 0; i < 2; i++) {
        unsigned k;

        rx_begin(&s, i ? SNIC_TRANSPORT_NEWRENO : SNIC_TRANSPORT_RENO,
                 false);
        rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + 1, 0x3000, 64, 64);
        rx_record(&s, FIX | RX_RUN, &p);
        rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e, 0x3100, 64, 64);
        rx_record(&s, FIX | RX_RUN, &p);
        for (k = 0; k < 4; k++) {
            rx_xack(&p, r - 1, 0, 0, 0);
            rx_record(&s, FIX | RX_RUN, &p);
        }
        rx_xack(&p, r + 2, 0, 0, 0);
        rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
        rx_xack(&p, r + 6, 0, 0, 0);
        rx_record(&s, FIX | RX_RUN, &p);
        save("rx", i ? "newreno" : "reno", &s);
    }

    /* DCQCN: CE-marked data (a CNP back), CNPs, the rate timer */
    rx_begin(&s, SNIC_TRANSPORT_DCQCN, true);
    rx_pkt(&p, SNIC_OP_RC_SEND_ONLY, RX_RC_QPN, e);
    p.addr.tclass = 3;
    rx_payload(&p, 64);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_pkt(&p, SNIC_OP_CNP, RX_RC_QPN, 0);
    p.becn = true;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    rx_record(&s, RX_TIMER, &p);
    save("rx", "dcqcn", &s);

    /* DCTCP: CE-marked data, ACKs echoing CE counts */
    rx_begin(&s, SNIC_TRANSPORT_DCTCP, false);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e, 0x3000, 64, 64);
    p.addr.tclass = 3;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xack(&p, r + 1, SNIC_XETH_F_ECE, 0, 0);
    p.xeth.offset = 1;
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xack(&p, r + 6, SNIC_XETH_F_ECE, 0, 0);
    p.xeth.offset = 3;
    rx_record(&s, FIX | RX_RUN | RX_TIMER, &p);
    save("rx", "dctcp", &s);

    /*
     * SRNIC's responder: WRITEs and SENDs ahead of ePSN reported on the
     * CtrlQ, the host's new ePSN and completions back on the RetryQ; a
     * duplicate in the fast-exit range; one beyond the bitmaps
     */
    for (i = 0; i < 2; i++) {
        rx_begin(&s, i ? SNIC_TRANSPORT_SRNIC_DCTCP : SNIC_TRANSPORT_SRNIC,
                 false);
        rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + 2, 0x800, 64, 64);
        rx_record(&s, FIX | RX_RUN, &p);
        rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + 1, 0x900, 64, 64);
        rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
        rx_record(&s, FIX | RX_RUN, &p);
        rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e, 0xa00, 64, 64);
        rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
        rx_xsend(&p, SNIC_OP_RC_SEND_ONLY, e + 4, 1, 0, 100);
        rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
        rx_xsend(&p, SNIC_OP_RC_SEND_ONLY_IMM, e + 3, 0, 0, 100);
        p.imm = 9;
        rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
        rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY_IMM, e + 6, 0xb00, 32, 32);
        p.xeth.flags |= SNIC_XETH_F_MSG;
        p.xeth.msg = 3;
        p.imm = 10;
        rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
        rx_record(&s, FIX | RX_RUN, &p);
        rx_xsend(&p, SNIC_OP_RC_SEND_ONLY, e + 5, 2, 0, 100);
        p.addr.tclass = i ? 3 : 0;
        rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
        rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + 600, 0xc00, 64, 64);
        rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
        save("rx", i ? "srnic-dctcp-responder" : "srnic-responder", &s);
    }

    /*
     * SRNIC's requester: SACK blocks (the host resends the holes), READ
     * responses placed ahead of lACK (the host moves lACK over them), the
     * timeout, the end of recovery
     */
    rx_begin(&s, SNIC_TRANSPORT_SRNIC, false);
    for (i = 0; i < 4; i++) {
        rx_xack(&p, r, SNIC_XETH_F_SACK, r + 2, r + 3 + i);
        rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
    }
    rx_pkt(&p, SNIC_OP_RC_READ_RESP_MIDDLE, RX_RC_QPN, r + 4);
    rx_payload(&p, 1024);
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_RESP;
    p.xeth.sq_index = RX_READ_SQ_INDEX;
    p.xeth.va = RX_READ_VA + 1024;
    p.xeth.msg = (r + 3) & SNIC_PSN_MASK;
    p.xeth.offset = 1;
    rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
    rx_pkt(&p, SNIC_OP_RC_READ_RESP_LAST, RX_RC_QPN, r + 5);
    p.aeth.syndrome = SNIC_AETH_ACK;
    rx_payload(&p, RX_READ_LEN - 2048);
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_RESP;
    p.xeth.sq_index = RX_READ_SQ_INDEX;
    p.xeth.va = RX_READ_VA + 2048;
    p.xeth.msg = (r + 3) & SNIC_PSN_MASK;
    p.xeth.offset = 2;
    rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
    rx_record(&s, RX_TIMER | RX_HOST, &p);
    rx_pkt(&p, SNIC_OP_RC_READ_RESP_FIRST, RX_RC_QPN, r + 3);
    p.aeth.syndrome = SNIC_AETH_ACK;
    rx_payload(&p, 1024);
    p.xport = true;
    p.xeth.flags = SNIC_XETH_F_RESP;
    p.xeth.sq_index = RX_READ_SQ_INDEX;
    p.xeth.va = RX_READ_VA;
    p.xeth.msg = (r + 3) & SNIC_PSN_MASK;
    rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
    rx_xack(&p, r + 6, 0, 0, 0);
    rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
    save("rx", "srnic-requester", &s);

    /* SRNIC's CtrlQ full: 40 WRITEs ahead before the host looks */
    rx_begin(&s, SNIC_TRANSPORT_SRNIC, false);
    for (i = 1; i <= 40; i++) {
        rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + i, 0x40 * i, 64, 64);
        rx_record(&s, FIX | RX_RUN, &p);
    }
    rx_record(&s, RX_RUN | RX_HOST, &p);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e, 0, 64, 64);
    rx_record(&s, FIX | RX_RUN | RX_HOST, &p);
    rx_record(&s, RX_RUN | RX_HOST, &p);
    save("rx", "srnic-ctrlq-full", &s);

    /*
     * RetryQ entries a host writes, right and wrong: ePSN forward, back,
     * far ahead; a resend of PSNs never sent and one outside recovery;
     * a completion of no message; lACK; unknown types; another QP's
     * number; a producer index far ahead of the ring
     */
    rx_begin(&s, SNIC_TRANSPORT_SRNIC, false);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + 1, 0x800, 64, 64);
    rx_record(&s, FIX | RX_RUN, &p);
    rx_xwrite(&p, SNIC_OP_RC_WRITE_ONLY, e + 3, 0x900, 64, 64);
    rx_record(&s, FIX | RX_RUN, &p);
    retry_entry(&q[0], SNIC_SR_RETRY_EPSN, e + 2, 0);
    retry_entry(&q[1], SNIC_SR_RETRY_EPSN, e - 5, 0);
    retry_entry(&q[2], SNIC_SR_RETRY_EPSN, e + 300, 0);
    retry_entry(&q[3], SNIC_SR_RETRY_RTX, r, r + 20);
    retry_entry(&q[4], SNIC_SR_RETRY_RTX, r + 1, r + 2);
    retry_entry(&q[5], SNIC_SR_RETRY_RECV_DONE, 7, 0);
    retry_entry(&q[6], SNIC_SR_RETRY_LACK, r + 4, 0);
    retry_entry(&q[7], 9, 0, 0);
    rx_retry(&s, RX_FIX_LEN | RX_RUN, q, 8, NULL);
    retry_entry(&q[0], SNIC_SR_RETRY_EPSN, e + 4, 0);
    q[0].flags = SNIC_SR_RETRY_F_IN_MSG;
    rx_retry(&s, RX_RUN, q, 1, NULL);
    rx_retry(&s, RX_FIX_LEN | RX_RUN, q, 1, NULL);
    ahead = 0x1000;
    rx_retry(&s, RX_FIX_LEN | RX_RUN | RX_HOST, q, 1, &ahead);
    rx_xack(&p, r, SNIC_XETH_F_SACK, r + 2, r + 4);
    rx_record(&s, FIX | RX_RUN, &p);
    retry_entry(&q[0], SNIC_SR_RETRY_RTX, r, r + 1);
    retry_entry(&q[1], SNIC_SR_RETRY_RTX, r + 5, r + 4);
    retry_entry(&q[2], SNIC_SR_RETRY_LACK, r + 9, 0);
    rx_retry(&s, RX_FIX_LEN | RX_RUN | RX_HOST, q, 3, NULL);
    save("rx", "srnic-retryq", &s);
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
    gen_rx_programs();
    return 0;
}
