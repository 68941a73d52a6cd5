// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cl-receive: one connectionless endpoint receives registered RDMA WRITEs from
 * several senders, with no connection set up between them (docs/connectionless.md).
 *
 *   cl-receive                   receiver: one endpoint, one 1 MiB buffer; waits for
 *                                SENDERS x 16 writes, then prints who wrote what
 *   cl-receive RECEIVER-IPv4     sender: SENDERS (2) endpoints, 16 writes each
 *
 * Both run on a snic device (snic_0, GID index 1: ::ffff:<own IPv4>). The receiver hands
 * out its GID, endpoint number, buffer address and R_Key over TCP (port 18600) to
 * whoever asks; it keeps nothing per sender, and neither does its NIC. Build it with
 * `scripts/vm.sh cc docs/examples/cl-receive.c`.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/snicdv.h>

#define SENDERS 2
#define WRITES  16              /* per sender */
#define SLOT    (32 << 10)      /* bytes of one write: its own slot of the buffer */
#define BUF     (SENDERS * WRITES * SLOT)
#define PORT    18600

struct endpoint_info {          /* what a sender needs, sent as is over TCP */
    union ibv_gid gid;
    uint32_t qpn, rkey;
    uint64_t addr;
};

static void die(const char *what)
{
    fprintf(stderr, "cl-receive: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* A UD QP made a connectionless endpoint, moved to RTS as any UD QP */
static struct ibv_qp *endpoint(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq)
{
    struct ibv_qp_init_attr_ex attr = {
        .qp_type = IBV_QPT_UD, .send_cq = cq, .recv_cq = cq, .pd = pd,
        .cap = { .max_send_wr = WRITES, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
        .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
        /* RDMA WRITE on a UD QP: what only an endpoint may do */
        .send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
    };
    struct snicdv_qp_init_attr dv = {
        .comp_mask = SNICDV_QP_INIT_ATTR_MASK_QP_TYPE, .qp_type = SNICDV_QP_CL,
        /* an emulated wire's round trip has millisecond jitter: resend after 5 ms */
        .cl_timeout_us = 5000,
    };
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111 };
    struct ibv_qp *qp = snicdv_create_qp(ctx, &attr, &dv);

    if (!qp)
        die("snicdv_create_qp");
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
        die("INIT");
    a.qp_state = IBV_QPS_RTR;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
        die("RTR");
    a.qp_state = IBV_QPS_RTS;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
        die("RTS");
    return qp;
}

static struct endpoint_info me;

/* Hand the endpoint's numbers to each sender that asks */
static void *serve_info(void *arg)
{
    int ls = *(int *)arg;

    for (;;) {
        int s = accept(ls, NULL, NULL);

        if (s >= 0 && write(s, &me, sizeof(me)) != sizeof(me))
            perror("cl-receive: write");
        close(s);
    }
    return NULL;
}

static void receiver(struct ibv_context *ctx, struct ibv_pd *pd)
{
    struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
    struct ibv_cq *cq = ch ? ibv_create_cq(ctx, 1024, NULL, ch, 0) : NULL;
    char *buf = calloc(1, BUF);
    struct ibv_mr *mr;
    pthread_t t;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
    int ls, one = 1, got = 0, from[SENDERS] = {};

    if (!cq || !buf)
        die("ibv_create_cq");
    mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!mr)
        die("ibv_reg_mr");
    me.qpn = endpoint(ctx, pd, cq)->qp_num;
    me.rkey = mr->rkey;
    me.addr = (uintptr_t)buf;
    if (ibv_query_gid(ctx, 1, 1, &me.gid))
        die("ibv_query_gid");

    ls = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 8))
        die("listen");
    printf("endpoint %u waiting for %d writes\n", me.qpn, SENDERS * WRITES);
    fflush(stdout);
    if (pthread_create(&t, NULL, serve_info, &ls))
        die("pthread_create");

    /* Each write that lands is one completion on the endpoint's CQ: block for them */
    while (got < SENDERS * WRITES) {
        struct ibv_wc wc;
        struct ibv_cq *ecq;
        void *ectx;
        int n = ibv_poll_cq(cq, 1, &wc);

        if (n == 0) {                   /* nothing yet: arm, look once more, sleep */
            ibv_req_notify_cq(cq, 0);
            if (ibv_poll_cq(cq, 1, &wc) == 0) {
                if (ibv_get_cq_event(ch, &ecq, &ectx))
                    die("ibv_get_cq_event");
                ibv_ack_cq_events(ecq, 1);
                continue;
            }
        }
        if (wc.status != IBV_WC_SUCCESS || wc.opcode != SNICDV_WC_CL_RECV) {
            fprintf(stderr, "cl-receive: completion %s\n", ibv_wc_status_str(wc.status));
            exit(1);
        }
        /*
         * wr_id: where the write landed; imm_data: its tag. src_qp is the sending
         * endpoint's number, which two hosts may share: the tag says who it was.
         */
        uint32_t tag = be32toh(wc.imm_data), sender = tag >> 16;
        char *at = (char *)(uintptr_t)wc.wr_id;

        if (sender >= SENDERS || wc.byte_len != SLOT || at[0] != (char)tag) {
            fprintf(stderr, "cl-receive: a write with tag %#x of %u bytes at %p is not one of ours\n",
                    tag, wc.byte_len, at);
            exit(1);
        }
        from[sender]++;
        got++;
    }
    for (int s = 0; s < SENDERS; s++)
        printf("sender %d: %d writes of %d bytes\n", s, from[s], SLOT);
    printf("cl-receive: OK\n");
    exit(0);
}

static void sender(struct ibv_context *ctx, struct ibv_pd *pd, const char *host)
{
    struct ibv_cq *cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
    char *buf = malloc(SLOT);
    struct ibv_mr *mr = buf ? ibv_reg_mr(pd, buf, SLOT, IBV_ACCESS_LOCAL_WRITE) : NULL;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
    struct endpoint_info peer;
    struct ibv_qp *qp[SENDERS];
    int s = socket(AF_INET, SOCK_STREAM, 0), done = 0;

    if (!cq || !mr)
        die("ibv_create_cq/ibv_reg_mr");
    inet_pton(AF_INET, host, &sa.sin_addr);
    if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) || read(s, &peer, sizeof(peer)) != sizeof(peer))
        die("the receiver's numbers");
    close(s);

    /* The path to the receiver; the endpoint number goes with each write */
    struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
                              .grh = { .dgid = peer.gid, .sgid_index = 1, .hop_limit = 64 } };
    struct ibv_ah *ah = ibv_create_ah(pd, &aa);
    if (!ah)
        die("ibv_create_ah");
    for (int e = 0; e < SENDERS; e++)
        qp[e] = endpoint(ctx, pd, cq);

    for (int i = 0; i < WRITES; i++) {
        for (int e = 0; e < SENDERS; e++) {
            struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp[e]);
            uint32_t tag = (uint32_t)e << 16 | i;
            uint64_t slot = peer.addr + (uint64_t)(e * WRITES + i) * SLOT;

            /* the source is read until the write is acknowledged: one at a time here */
            memset(buf, (char)tag, SLOT);
            ibv_wr_start(qx);
            qx->wr_id = tag;
            qx->wr_flags = IBV_SEND_SIGNALED;
            ibv_wr_rdma_write_imm(qx, peer.rkey, slot, htobe32(tag));
            snicdv_wr_set_cl_addr(qx, ah, peer.qpn, 0);     /* registered */
            ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)buf, SLOT);
            if (ibv_wr_complete(qx))
                die("ibv_wr_complete");

            struct ibv_wc wc;
            int n;
            while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
                ;
            if (n < 0 || wc.status != IBV_WC_SUCCESS) {
                fprintf(stderr, "cl-receive: write %#x: %s\n", tag, ibv_wc_status_str(wc.status));
                exit(1);
            }
            done++;
        }
    }
    printf("cl-receive: %d writes from %d endpoints acknowledged\n", done, SENDERS);
}

int main(int argc, char **argv)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_context *ctx = list && list[0] ? ibv_open_device(list[0]) : NULL;
    struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;

    if (!pd)
        die("no RDMA device");
    if (argc > 1)
        sender(ctx, pd, argv[1]);
    else
        receiver(ctx, pd);
    return 0;
}
