// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * srq-hold: one process holds its whole share of the device's SRQ receive
 * pool mid-message, so that another process's SRQ traffic can show it
 * still gets receives meanwhile.
 *
 *   srq-hold [-d DEV] [-g GIDX] [-r READY_FILE] [-T TIMEOUT]
 *
 * It connects share + 1 pairs of RC QPs through the port's own address
 * (the device loops them back), the receivers on one SRQ; share is what
 * snicdv_query_device says one context may hold (ctx_recv_pool). Each of
 * the first share senders posts a two-SGE SEND whose second SGE has an
 * invalid lkey: its first packet (SEND First, one path MTU from the first
 * SGE) leaves, the second cannot be gathered (the sender completes with
 * LOC_PROT_ERR), and its receiver holds a pool entry for a message that
 * never continues. The last pair's one-packet SEND then finds none of
 * this context's entries left and waits (RNR NAKs) while the holds last.
 * Then it writes READY_FILE and waits: each receiver lets go of its entry
 * once the message has not continued for its QP's retry time (4.096 us *
 * 2^TIMEOUT * 8; TIMEOUT 18 by default: 8.6 s), the held receives
 * complete with IBV_WC_REM_ABORT_ERR, and the last SEND lands. Exit 0
 * when all of that happened in that order.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/snicdv.h>
#include <infiniband/verbs.h>

#define MTU_BYTES   1024
#define BUF_BYTES   (64 * 1024)

static void __attribute__((format(printf, 1, 2), noreturn))
fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "srq-hold: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
                   const char *what)
{
    int err = ibv_modify_qp(qp, a, mask);

    if (err) {
        fail("ibv_modify_qp to %s: errno %d", what, err);
    }
}

/* RESET -> INIT -> RTR -> RTS towards 'dest' on this port's own GID */
static void connect_qp(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid,
                       int gidx, uint8_t timeout, uint8_t min_rnr_timer)
{
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
    modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
           IBV_QP_ACCESS_FLAGS, "INIT");
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dest;
    a.min_rnr_timer = min_rnr_timer;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = *gid;
    a.ah_attr.grh.sgid_index = gidx;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.port_num = 1;
    modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
           IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
           IBV_QP_MIN_RNR_TIMER, "RTR");
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = timeout;
    a.retry_cnt = 7;
    a.rnr_retry = 7;        /* RNR: retried for ever */
    modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
           IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}

int main(int argc, char **argv)
{
    const char *dev_name = "snic_0", *ready = NULL;
    int gidx = 1, opt, timeout = 18;
    struct snicdv_device_attr da;
    struct ibv_device **list;
    struct ibv_context *ctx = NULL;
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    struct ibv_cq *scq, *rcq;
    struct ibv_srq *srq;
    struct ibv_srq_init_attr sa;
    struct ibv_qp **snd, **rcv;
    union ibv_gid gid;
    struct ibv_wc wc;
    unsigned share, i, aborted = 0, sender_errs = 0;
    bool landed = false, sent = false;
    double t0, held_at;
    char *buf;
    FILE *f;

    while ((opt = getopt(argc, argv, "d:g:r:T:")) != -1) {
        switch (opt) {
        case 'd':
            dev_name = optarg;
            break;
        case 'g':
            gidx = atoi(optarg);
            break;
        case 'r':
            ready = optarg;
            break;
        case 'T':
            timeout = atoi(optarg);
            break;
        default:
            fprintf(stderr, "usage: srq-hold [-d DEV] [-g GIDX] [-r READY_FILE] "
                    "[-T TIMEOUT]\n");
            return 2;
        }
    }
    list = ibv_get_device_list(NULL);
    for (i = 0; list && list[i]; i++) {
        if (!strcmp(ibv_get_device_name(list[i]), dev_name)) {
            ctx = ibv_open_device(list[i]);
        }
    }
    if (!ctx) {
        fail("cannot open %s", dev_name);
    }
    if (snicdv_query_device(ctx, &da, sizeof(da)) || !da.ctx_recv_pool) {
        fail("snicdv_query_device: no ctx_recv_pool");
    }
    share = da.ctx_recv_pool;
    if (ibv_query_gid(ctx, 1, gidx, &gid)) {
        fail("ibv_query_gid %d", gidx);
    }
    buf = calloc(1, BUF_BYTES);
    pd = ibv_alloc_pd(ctx);
    mr = pd ? ibv_reg_mr(pd, buf, BUF_BYTES, IBV_ACCESS_LOCAL_WRITE) : NULL;
    scq = ibv_create_cq(ctx, 2 * share + 8, NULL, NULL, 0);
    rcq = ibv_create_cq(ctx, 2 * share + 8, NULL, NULL, 0);
    memset(&sa, 0, sizeof(sa));
    sa.attr.max_wr = 2 * share + 8;
    sa.attr.max_sge = 1;
    srq = pd ? ibv_create_srq(pd, &sa) : NULL;
    if (!buf || !mr || !scq || !rcq || !srq) {
        fail("PD, MR, CQs or SRQ not created: errno %d", errno);
    }
    snd = calloc(share + 1, sizeof(*snd));
    rcv = calloc(share + 1, sizeof(*rcv));
    for (i = 0; i <= share; i++) {
        struct ibv_qp_init_attr qa = {
            .send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
            .cap = { .max_send_wr = 1, .max_send_sge = 2,
                     .max_recv_wr = 1, .max_recv_sge = 1 },
        };

        snd[i] = ibv_create_qp(pd, &qa);
        qa.srq = srq;
        qa.cap.max_recv_wr = qa.cap.max_recv_sge = 0;
        rcv[i] = ibv_create_qp(pd, &qa);
        if (!snd[i] || !rcv[i]) {
            fail("ibv_create_qp of pair %u: errno %d", i, errno);
        }
    }
    for (i = 0; i <= share; i++) {
        /* receivers: RNR waits of 15 ms; their retry time is the hold's */
        connect_qp(rcv[i], snd[i]->qp_num, &gid, gidx, timeout, 22);
        connect_qp(snd[i], rcv[i]->qp_num, &gid, gidx, 14, 22);
    }
    for (i = 0; i < share + 8; i++) {
        struct ibv_sge s = {
            .addr = (uintptr_t)buf + (i % 8) * 4096, .length = 4096,
            .lkey = mr->lkey,
        };
        struct ibv_recv_wr w = { .wr_id = i, .sg_list = &s, .num_sge = 1 }, *bad;

        if (ibv_post_srq_recv(srq, &w, &bad)) {
            fail("ibv_post_srq_recv %u", i);
        }
    }
    /* share messages that stop after their first packet */
    for (i = 0; i < share; i++) {
        struct ibv_sge s[2] = {
            { .addr = (uintptr_t)buf, .length = MTU_BYTES, .lkey = mr->lkey },
            { .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey ^ 0x5a5a00 },
        };
        struct ibv_send_wr w = {
            .wr_id = i, .sg_list = s, .num_sge = 2, .opcode = IBV_WR_SEND,
            .send_flags = IBV_SEND_SIGNALED,
        }, *bad;

        if (ibv_post_send(snd[i], &w, &bad)) {
            fail("ibv_post_send %u", i);
        }
    }
    t0 = now();
    while (sender_errs < share) {
        int n = ibv_poll_cq(scq, 1, &wc);

        if (n < 0 || now() - t0 > 120) {
            fail("senders completed %u of the %u broken SENDs", sender_errs, share);
        }
        if (n && wc.status != IBV_WC_LOC_PROT_ERR) {
            fail("a broken SEND completed with status %d", wc.status);
        }
        sender_errs += n;
    }
    if (ibv_poll_cq(rcq, 1, &wc)) {
        fail("a receive completed (status %d) while its message was cut",
             wc.status);
    }
    /* one whole SEND more: this context has no pool entry left for it */
    {
        struct ibv_sge s = { .addr = (uintptr_t)buf, .length = 64,
                             .lkey = mr->lkey };
        struct ibv_send_wr w = {
            .wr_id = share, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
            .send_flags = IBV_SEND_SIGNALED,
        }, *bad;

        if (ibv_post_send(snd[share], &w, &bad)) {
            fail("ibv_post_send of the whole SEND");
        }
    }
    usleep(500000);
    if (ibv_poll_cq(rcq, 1, &wc)) {
        fail("a receive completed (status %d) beyond the share", wc.status);
    }
    held_at = now();
    printf("srq-hold: holding %u SRQ receives mid-message (the context's share); "
           "one more SEND waits\n", share);
    fflush(stdout);
    if (ready) {
        f = fopen(ready, "w");
        if (!f || fclose(f)) {
            fail("cannot write %s", ready);
        }
    }
    /* the receivers let go: aborted receives, then the last SEND lands */
    while (aborted < share || !landed || !sent) {
        int n = ibv_poll_cq(rcq, 1, &wc);

        if (n < 0 || now() - held_at > 300) {
            fail("after 300 s: %u of %u held receives aborted, last SEND %s",
                 aborted, share, landed ? "landed" : "not landed");
        }
        if (n && wc.status == IBV_WC_REM_ABORT_ERR) {
            if (!aborted++) {
                /* the role checks the other process finished before this */
                printf("srq-hold: first hold let go after %.1f s\n",
                       now() - held_at);
                fflush(stdout);
            }
        } else if (n && wc.status == IBV_WC_SUCCESS && wc.byte_len == 64 &&
                   wc.qp_num == rcv[share]->qp_num) {
            if (!aborted) {
                fail("the last SEND landed before any hold was let go");
            }
            landed = true;
        } else if (n) {
            fail("unexpected receive completion, status %d", wc.status);
        }
        n = ibv_poll_cq(scq, 1, &wc);
        if (n && (wc.status != IBV_WC_SUCCESS || wc.wr_id != share)) {
            fail("the whole SEND completed with status %d", wc.status);
        }
        sent |= n > 0;
        if (!n) {
            usleep(1000);
        }
    }
    printf("srq-hold: PASS: %u held receives aborted (IBV_WC_REM_ABORT_ERR) %.1f s "
           "after the hold began; then the waiting SEND landed\n", share,
           now() - held_at);
    return 0;
}
