// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hello-verbs: the smallest program that goes through snic's whole verbs
 * stack: open the first RDMA device, then a PD, an MR, a CQ and an RC QP
 * moved to INIT (admin commands by the kernel driver, rings and doorbell
 * page mapped by libsnic), and print what the device reports.
 *
 * Build on the host: scripts/vm.sh cc docs/examples/hello-verbs.c
 * Run in the guest:  /mnt/snic/build/guest-user/hello-verbs
 */
#include <stdio.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

static int fail(const char *what)
{
    perror(what);
    return 1;
}

int main(void)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_qp_init_attr init = {
        .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 16, .max_recv_wr = 16,
                 .max_send_sge = 1, .max_recv_sge = 1 },
    };
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_INIT, .port_num = 1,
        .qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
    };
    struct ibv_device_attr dev;
    struct ibv_port_attr port;
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    static char buf[4096];

    if (!list || !list[0]) {
        fprintf(stderr, "hello-verbs: no RDMA device (is snic.ko loaded?)\n");
        return 1;
    }
    ctx = ibv_open_device(list[0]);
    if (!ctx) {
        return fail("ibv_open_device");
    }
    if (ibv_query_device(ctx, &dev) || ibv_query_port(ctx, 1, &port)) {
        return fail("ibv_query_device/port");
    }
    printf("%s: fw %s, vendor %#x part %#x, %d QPs, port 1 %s, active MTU %d\n",
           ibv_get_device_name(list[0]), dev.fw_ver, dev.vendor_id,
           dev.vendor_part_id, dev.max_qp, ibv_port_state_str(port.state),
           128 << port.active_mtu);
    pd = ibv_alloc_pd(ctx);
    mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
                         IBV_ACCESS_REMOTE_WRITE) : NULL;
    cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    if (!pd || !mr || !cq) {
        return fail("ibv_alloc_pd/reg_mr/create_cq");
    }
    init.send_cq = init.recv_cq = cq;
    qp = ibv_create_qp(pd, &init);
    if (!qp) {
        return fail("ibv_create_qp");
    }
    if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
        return fail("ibv_modify_qp(INIT)");
    }
    printf("QP %u in INIT, MR lkey %#x rkey %#x: hello from %s\n",
           qp->qp_num, mr->lkey, mr->rkey, ibv_get_device_name(list[0]));
    ibv_destroy_qp(qp);
    ibv_destroy_cq(cq);
    ibv_dereg_mr(mr);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    return 0;
}
