// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uverbs-check: what a hostile process may hand snic.ko through its uverbs
 * file, built as raw commands from the kernel's uapi headers
 * (rdma/ib_user_verbs.h for write(), rdma/ib_user_ioctl_cmds.h and
 * rdma_user_ioctl_cmds.h for the ioctl methods) and snic's driver data
 * (include/snic/snic-abi.h), past libsnic, which would never send them.
 *
 *   uverbs-check [-d DEV] [-g GIDX]          the malformed commands
 *   uverbs-check [-d DEV] -M                 DEREG_MR with a window bound
 *   uverbs-check [-d DEV] -c N [-x] [-H S]   open N contexts
 *
 * Default: each malformed command must fail with an errno, and beside
 * each a well-formed one (the same command, one field right) must pass:
 * rings of 0, odd and huge sizes, reserved fields and unknown comp_mask
 * bits set, CQ, QP and SRQ rings unaligned, unmapped or read-only;
 * reg_user_mr with an iova whose offset in its page is not the address's
 * (refused), with an iova != address at the same offset (accepted: an RDMA
 * WRITE through it lands at the address; -g names the port's RoCE v2 GID
 * for the loopback QPs that WRITE), with length 0, lengths that wrap,
 * access flags the device lacks, another object's handle for its PD; the
 * snic methods (SET_QP_TRANSPORT, whose SRNIC selection is SET_QP_SR,
 * SET_QP_RPC, DEPLOY_KERNEL, QUERY_PROGRAM) with out-of-range arguments,
 * on QPs of the wrong type or state, with another object's handle. Then
 * everything is freed and the device's object gauges (hw_counters obj_*)
 * must be where they started: nothing leaked.
 *
 * -M: an RC QP connected to itself binds a type 2 memory window in an MR;
 * ibv_dereg_mr must then fail with EBUSY and the window still work; after
 * the window is deallocated the MR deregisters. A second MR with a bound
 * window is left to the process's exit (the caller checks the gauges).
 *
 * -c N: opens N contexts of DEV (each an ibv_open_device); with -x one
 * more must then fail (the rdma cgroup's hca_handle limit). -H S holds
 * them S seconds after saying "holding".
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "../../include/snic/snic-abi.h"
#include "../../include/snic/snic_admin.h"

#define N_ELEM(a)       (sizeof(a) / sizeof((a)[0]))
#define PAGE            4096ul
#define CQE_SIZE        32u     /* struct snic_cqe */
#define SQ_WQE_SIZE     256u    /* struct snic_sq_wqe */
#define RQ_WQE_SIZE     64u     /* struct snic_rq_wqe */

static const char *dev_name = "snic_0";
static int gidx = -1;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;               /* the QPs' CQ (libibverbs') */
static int fd;                          /* the context's uverbs file */
static unsigned failures, cases;

static void die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    printf("uverbs-check: FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    exit(1);
}

/* One case: a malformed call that must fail (want_err) or a control */
static void check(const char *name, int err, bool want_err)
{
    cases++;
    if (want_err ? err == 0 : err != 0) {
        failures++;
        printf("uverbs-check: %-44s FAIL (%s, expected %s)\n", name,
               err ? strerror(err) : "accepted",
               want_err ? "an errno" : "success");
    } else {
        printf("uverbs-check: %-44s ok (%s)\n", name,
               err ? strerror(err) : "accepted");
    }
}

/* ---- write() commands -------------------------------------------------- */

/*
 * A legacy command: header, the command (cmd_len bytes, its response
 * field set by the caller), the driver's data (drv_len bytes) after it.
 * The response buffer takes resp_len bytes. Returns 0 or the errno.
 */
static int cmd_write(uint32_t command, void *cmd, size_t cmd_len,
                     const void *drv, size_t drv_len, size_t resp_len)
{
    uint8_t buf[512];
    struct ib_uverbs_cmd_hdr h = {
        .command = command,
        .in_words = (sizeof(h) + cmd_len + drv_len) / 4,
        .out_words = resp_len / 4,
    };

    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), cmd, cmd_len);
    if (drv_len) {
        memcpy(buf + sizeof(h) + cmd_len, drv, drv_len);
    }
    return write(fd, buf, sizeof(h) + cmd_len + drv_len) < 0 ? errno : 0;
}

/* An extended command (IB_USER_VERBS_CMD_FLAG_EXTENDED) */
static int cmd_write_ex(uint32_t command, void *cmd, size_t cmd_len,
                        void *resp, size_t resp_len)
{
    uint8_t buf[512];
    struct ib_uverbs_cmd_hdr h = {
        .command = IB_USER_VERBS_CMD_FLAG_EXTENDED | command,
        .in_words = cmd_len / 8,
        .out_words = resp_len / 8,
    };
    struct ib_uverbs_ex_cmd_hdr x = {
        .response = (uintptr_t)resp,
    };

    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), &x, sizeof(x));
    memcpy(buf + sizeof(h) + sizeof(x), cmd, cmd_len);
    return write(fd, buf, sizeof(h) + sizeof(x) + cmd_len) < 0 ? errno : 0;
}

static void destroy_cq(uint32_t handle)
{
    struct ib_uverbs_destroy_cq_resp r;
    struct ib_uverbs_destroy_cq c = {
        .response = (uintptr_t)&r, .cq_handle = handle,
    };

    if (cmd_write(IB_USER_VERBS_CMD_DESTROY_CQ, &c, sizeof(c), NULL, 0,
                  sizeof(r))) {
        die("DESTROY_CQ %u: %s", handle, strerror(errno));
    }
}

static void destroy_qp(uint32_t handle)
{
    struct ib_uverbs_destroy_qp_resp r;
    struct ib_uverbs_destroy_qp c = {
        .response = (uintptr_t)&r, .qp_handle = handle,
    };

    if (cmd_write(IB_USER_VERBS_CMD_DESTROY_QP, &c, sizeof(c), NULL, 0,
                  sizeof(r))) {
        die("DESTROY_QP %u: %s", handle, strerror(errno));
    }
}

static void destroy_srq(uint32_t handle)
{
    struct ib_uverbs_destroy_srq_resp r;
    struct ib_uverbs_destroy_srq c = {
        .response = (uintptr_t)&r, .srq_handle = handle,
    };

    if (cmd_write(IB_USER_VERBS_CMD_DESTROY_SRQ, &c, sizeof(c), NULL, 0,
                  sizeof(r))) {
        die("DESTROY_SRQ %u: %s", handle, strerror(errno));
    }
}

static void dereg_mr(uint32_t handle)
{
    struct ib_uverbs_dereg_mr c = { .mr_handle = handle };

    if (cmd_write(IB_USER_VERBS_CMD_DEREG_MR, &c, sizeof(c), NULL, 0, 0)) {
        die("DEREG_MR %u: %s", handle, strerror(errno));
    }
}

/* Pages for rings: zeroed, page-aligned; a read-only one; an unmapped one */
static void *ring_mem;
static void *ro_mem;
static void *hole_mem;
#define RING_BYTES      (64 * PAGE)

static void map_rings(void)
{
    ring_mem = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ro_mem = mmap(NULL, RING_BYTES, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
                  -1, 0);
    hole_mem = mmap(NULL, RING_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
    if (ring_mem == MAP_FAILED || ro_mem == MAP_FAILED ||
        hole_mem == MAP_FAILED || munmap(hole_mem, RING_BYTES)) {
        die("mmap: %s", strerror(errno));
    }
}

/* ---- CQs ---------------------------------------------------------------- */

struct cq_cmd {
    struct ib_uverbs_create_cq c;
    struct snic_ib_create_cq d;
};

/* A well-formed CREATE_CQ: 15 CQEs in a ring of 16 at ring_mem */
static void cq_good(struct cq_cmd *m)
{
    memset(m, 0, sizeof(*m));
    m->c.user_handle = 1;
    m->c.cqe = 15;
    m->c.comp_channel = -1;
    m->d.buf_va = (uintptr_t)ring_mem;
    m->d.log2_depth = 4;
    m->d.buf_len = CQE_SIZE << 4;
}

/* CREATE_CQ: 0 or the errno; the CQ is destroyed, or kept in *keep */
static int cq_make(struct cq_cmd *m, uint32_t *keep)
{
    struct {
        struct ib_uverbs_create_cq_resp r;
        struct snic_ib_create_cq_resp d;
    } resp;
    int err;

    memset(&resp, 0, sizeof(resp));
    m->c.response = (uintptr_t)&resp;
    err = cmd_write(IB_USER_VERBS_CMD_CREATE_CQ, &m->c, sizeof(m->c), &m->d,
                    sizeof(m->d), sizeof(resp));
    if (!err && keep) {
        *keep = resp.r.cq_handle;
    } else if (!err) {
        destroy_cq(resp.r.cq_handle);
    }
    return err;
}

static int cq_try(struct cq_cmd *m)
{
    return cq_make(m, NULL);
}

/* RESIZE_CQ of CQ 'handle' to cqe CQEs in a ring of 2^log2 at page 'page' */
static int cq_resize(uint32_t handle, uint32_t cqe, uint8_t log2,
                     unsigned page)
{
    struct {
        struct ib_uverbs_resize_cq_resp r;
        struct snic_ib_resize_cq_resp d;
    } resp;
    struct ib_uverbs_resize_cq c = {
        .response = (uintptr_t)&resp, .cq_handle = handle, .cqe = cqe,
    };
    struct snic_ib_resize_cq d = {
        .buf_va = (uintptr_t)ring_mem + page * PAGE,
        .buf_len = CQE_SIZE << log2,
        .log2_depth = log2,
    };

    return cmd_write(IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c), &d,
                     sizeof(d), sizeof(resp));
}

static void cq_cases(void)
{
    struct ib_uverbs_ex_create_cq x;
    struct ib_uverbs_ex_create_cq_resp xr;
    struct cq_cmd m;
    uint32_t h;

    cq_good(&m);
    check("cq: well-formed (control)", cq_try(&m), false);
    cq_good(&m);
    m.c.cqe = 0;
    check("cq: 0 CQEs", cq_try(&m), true);
    cq_good(&m);
    m.c.cqe = 16;
    check("cq: 16 CQEs in a ring of 16", cq_try(&m), true);
    cq_good(&m);
    m.c.cqe = 0x7fffffff;
    m.d.log2_depth = 31;
    m.d.buf_len = 0;
    check("cq: 2^31 - 1 CQEs, ring 2^31", cq_try(&m), true);
    cq_good(&m);
    m.c.cqe = 0xffffffff;
    check("cq: -1 CQEs", cq_try(&m), true);
    cq_good(&m);
    m.d.log2_depth = 0;
    m.d.buf_len = CQE_SIZE;
    m.c.cqe = 0;
    check("cq: ring of 1", cq_try(&m), true);
    cq_good(&m);
    m.d.log2_depth = 24;
    m.d.buf_len = CQE_SIZE << 24;
    check("cq: ring of 2^24 (past max_cqe)", cq_try(&m), true);
    cq_good(&m);
    m.d.buf_len += 1;
    check("cq: ring length odd", cq_try(&m), true);
    cq_good(&m);
    m.d.buf_len = 0;
    check("cq: ring length 0", cq_try(&m), true);
    cq_good(&m);
    m.d.reserved[1] = 1;
    check("cq: reserved byte set", cq_try(&m), true);
    cq_good(&m);
    m.d.buf_va += 8;
    check("cq: ring unaligned", cq_try(&m), true);
    cq_good(&m);
    m.d.buf_va = (uintptr_t)hole_mem;
    check("cq: ring unmapped", cq_try(&m), true);
    cq_good(&m);
    m.d.buf_va = (uintptr_t)ro_mem;
    check("cq: ring read-only", cq_try(&m), true);
    cq_good(&m);
    m.c.comp_vector = 1000;
    check("cq: comp_vector 1000", cq_try(&m), true);
    cq_good(&m);
    m.c.comp_channel = 1000;
    check("cq: comp_channel not a channel", cq_try(&m), true);

    /* a CQ resized: to 0 CQEs, past its ring, to a ring of its own */
    cq_good(&m);
    m.d.buf_va = (uintptr_t)ring_mem + 40 * PAGE;
    if (cq_make(&m, &h)) {
        die("CREATE_CQ for the resize cases: %s", strerror(errno));
    }
    check("cq resize: 0 CQEs", cq_resize(h, 0, 4, 42), true);
    check("cq resize: 64 CQEs in a ring of 64", cq_resize(h, 64, 6, 42), true);
    check("cq resize: ring of 2^31", cq_resize(h, 15, 31, 42), true);
    check("cq resize: 31 CQEs in a ring of 64 (control)",
          cq_resize(h, 31, 6, 42), false);
    destroy_cq(h);

    /* the extended command: unknown comp_mask and flags bits */
    memset(&x, 0, sizeof(x));
    x.cqe = 15;
    x.comp_channel = -1;
    x.comp_mask = 1u << 31;
    check("cq ex: unknown comp_mask bit",
          cmd_write_ex(IB_USER_VERBS_EX_CMD_CREATE_CQ, &x, sizeof(x), &xr,
                       sizeof(xr)), true);
    x.comp_mask = 0;
    x.flags = 1u << 30;
    check("cq ex: unknown flags bit",
          cmd_write_ex(IB_USER_VERBS_EX_CMD_CREATE_CQ, &x, sizeof(x), &xr,
                       sizeof(xr)), true);
    x.flags = 0;
    x.reserved = 1;
    check("cq ex: reserved field set",
          cmd_write_ex(IB_USER_VERBS_EX_CMD_CREATE_CQ, &x, sizeof(x), &xr,
                       sizeof(xr)), true);
}

/* ---- SRQs ---------------------------------------------------------------- */

struct srq_cmd {
    struct ib_uverbs_create_srq c;
    struct snic_ib_create_srq d;
};

static void srq_good(struct srq_cmd *m)
{
    memset(m, 0, sizeof(*m));
    m->c.pd_handle = pd->handle;
    m->c.max_wr = 16;
    m->c.max_sge = 1;
    m->d.buf_va = (uintptr_t)ring_mem;
    m->d.log2_depth = 4;
    m->d.buf_len = RQ_WQE_SIZE << 4;
}

/* CREATE_SRQ (an SRQ it made is destroyed again, or kept in *keep) */
static int srq_make(struct srq_cmd *m, uint32_t *keep)
{
    struct {
        struct ib_uverbs_create_srq_resp r;
        struct snic_ib_create_srq_resp d;
    } resp;
    int err;

    memset(&resp, 0, sizeof(resp));
    m->c.response = (uintptr_t)&resp;
    err = cmd_write(IB_USER_VERBS_CMD_CREATE_SRQ, &m->c, sizeof(m->c), &m->d,
                    sizeof(m->d), sizeof(resp));
    if (!err && keep) {
        *keep = resp.r.srq_handle;
    } else if (!err) {
        destroy_srq(resp.r.srq_handle);
    }
    return err;
}

static int srq_try(struct srq_cmd *m)
{
    return srq_make(m, NULL);
}

static void srq_cases(void)
{
    struct srq_cmd m;

    srq_good(&m);
    check("srq: well-formed (control)", srq_try(&m), false);
    srq_good(&m);
    m.c.max_wr = 0;
    check("srq: 0 WRs", srq_try(&m), true);
    srq_good(&m);
    m.c.max_wr = 17;
    check("srq: 17 WRs in a ring of 16", srq_try(&m), true);
    srq_good(&m);
    m.c.max_wr = 0xffffffff;
    m.d.log2_depth = 31;
    m.d.buf_len = 0;
    check("srq: 2^32 - 1 WRs", srq_try(&m), true);
    srq_good(&m);
    m.d.log2_depth = 1;
    m.d.buf_len = RQ_WQE_SIZE << 1;
    m.c.max_wr = 1;
    check("srq: ring of 2", srq_try(&m), true);
    srq_good(&m);
    m.d.buf_len -= 1;
    check("srq: ring length odd", srq_try(&m), true);
    srq_good(&m);
    m.d.reserved[2] = 0x80;
    check("srq: reserved byte set", srq_try(&m), true);
    srq_good(&m);
    m.c.max_sge = 1000;
    check("srq: 1000 SGEs", srq_try(&m), true);
    srq_good(&m);
    m.c.srq_limit = 17;
    check("srq: limit above its WRs", srq_try(&m), true);
    srq_good(&m);
    m.d.buf_va += PAGE / 2;
    check("srq: ring unaligned", srq_try(&m), true);
    srq_good(&m);
    m.d.buf_va = (uintptr_t)hole_mem;
    check("srq: ring unmapped", srq_try(&m), true);
    srq_good(&m);
    m.d.buf_va = (uintptr_t)ro_mem;
    check("srq: ring read-only", srq_try(&m), true);
    srq_good(&m);
    m.c.pd_handle = cq->handle;
    check("srq: a CQ's handle for its PD", srq_try(&m), true);
}

/* ---- QPs ----------------------------------------------------------------- */

struct qp_cmd {
    struct ib_uverbs_create_qp c;
    struct snic_ib_create_qp d;
};

/* A well-formed RC QP: 16 WRs each way, rings in ring_mem */
static void qp_good(struct qp_cmd *m, uint8_t type)
{
    memset(m, 0, sizeof(*m));
    m->c.pd_handle = pd->handle;
    m->c.send_cq_handle = cq->handle;
    m->c.recv_cq_handle = cq->handle;
    m->c.max_send_wr = 16;
    m->c.max_recv_wr = 16;
    m->c.max_send_sge = 1;
    m->c.max_recv_sge = 1;
    m->c.qp_type = type;
    m->d.sq_buf_va = (uintptr_t)ring_mem;
    m->d.sq_buf_len = SQ_WQE_SIZE << 4;
    m->d.sq_log2_depth = 4;
    m->d.rq_buf_va = (uintptr_t)ring_mem + 2 * PAGE;
    m->d.rq_buf_len = RQ_WQE_SIZE << 4;
    m->d.rq_log2_depth = 4;
}

/* CREATE_QP: 0 or the errno; the QP is destroyed, or kept in *keep */
static int qp_make(struct qp_cmd *m, uint32_t *keep, uint32_t *qpn)
{
    struct {
        struct ib_uverbs_create_qp_resp r;
        struct snic_ib_create_qp_resp d;
    } resp;
    int err;

    memset(&resp, 0, sizeof(resp));
    m->c.response = (uintptr_t)&resp;
    err = cmd_write(IB_USER_VERBS_CMD_CREATE_QP, &m->c, sizeof(m->c), &m->d,
                    sizeof(m->d), sizeof(resp));
    if (!err && keep) {
        *keep = resp.r.qp_handle;
        if (qpn) {
            *qpn = resp.r.qpn;
        }
    } else if (!err) {
        destroy_qp(resp.r.qp_handle);
    }
    return err;
}

static int qp_try(struct qp_cmd *m)
{
    return qp_make(m, NULL, NULL);
}

static void qp_cases(void)
{
    struct srq_cmd s;
    struct qp_cmd m;
    uint32_t srq;

    qp_good(&m, IBV_QPT_RC);
    check("qp: well-formed RC (control)", qp_try(&m), false);
    qp_good(&m, IBV_QPT_RC);
    m.d.sq_log2_depth = 0;
    m.d.sq_buf_len = SQ_WQE_SIZE;
    m.c.max_send_wr = 1;
    check("qp: send ring of 1", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.d.sq_buf_len = 0;
    check("qp: send ring length 0", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.d.rq_buf_len = RQ_WQE_SIZE * 15;
    check("qp: receive ring length odd", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.c.max_send_wr = 17;
    check("qp: 17 send WRs in a ring of 16", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.c.max_send_wr = 0xffffffff;
    m.d.sq_log2_depth = 32;
    m.d.sq_buf_len = 0;
    check("qp: 2^32 - 1 send WRs", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.c.max_recv_wr = 1u << 30;
    m.d.rq_log2_depth = 30;
    m.d.rq_buf_len = 0;
    check("qp: 2^30 receive WRs", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.c.max_send_sge = 1000;
    check("qp: 1000 send SGEs", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.c.max_inline_data = 1u << 20;
    check("qp: 1 MiB inline data", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.d.reserved[5] = 1;
    check("qp: reserved byte set", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.c.qp_type = 0x7f;
    check("qp: type 0x7f", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.d.sq_buf_va += 64;
    check("qp: send ring unaligned", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.d.rq_buf_va = (uintptr_t)hole_mem;
    check("qp: receive ring unmapped", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.d.sq_buf_va = (uintptr_t)ro_mem;
    check("qp: send ring read-only", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.c.send_cq_handle = pd->handle;
    check("qp: a PD's handle for its CQ", qp_try(&m), true);
    qp_good(&m, IBV_QPT_RC);
    m.c.pd_handle = 0x7fffffff;
    check("qp: a PD handle that names nothing", qp_try(&m), true);

    /* on an SRQ: no receive ring may come with it */
    srq_good(&s);
    s.d.buf_va = (uintptr_t)ring_mem + 4 * PAGE;
    if (srq_make(&s, &srq)) {
        die("CREATE_SRQ for the QP cases: %s", strerror(errno));
    }
    qp_good(&m, IBV_QPT_RC);
    m.c.is_srq = 1;
    m.c.srq_handle = srq;
    m.c.max_recv_wr = 0;
    m.d.rq_buf_va = m.d.rq_buf_len = m.d.rq_log2_depth = 0;
    check("qp: on an SRQ (control)", qp_try(&m), false);
    m.d.rq_buf_va = (uintptr_t)ring_mem + 2 * PAGE;
    m.d.rq_buf_len = RQ_WQE_SIZE << 4;
    m.d.rq_log2_depth = 4;
    check("qp: on an SRQ with a receive ring", qp_try(&m), true);
    destroy_srq(srq);

    /* the extended command: an unknown comp_mask bit */
    {
        struct ib_uverbs_ex_create_qp x;
        struct ib_uverbs_ex_create_qp_resp xr;

        memset(&x, 0, sizeof(x));
        x.pd_handle = pd->handle;
        x.send_cq_handle = x.recv_cq_handle = cq->handle;
        x.max_send_wr = x.max_recv_wr = 16;
        x.max_send_sge = x.max_recv_sge = 1;
        x.qp_type = IBV_QPT_RC;
        x.comp_mask = 1u << 31;
        check("qp ex: unknown comp_mask bit",
              cmd_write_ex(IB_USER_VERBS_EX_CMD_CREATE_QP, &x, sizeof(x),
                           &xr, sizeof(xr)), true);
        x.comp_mask = 0;
        x.reserved = 1;
        check("qp ex: reserved field set",
              cmd_write_ex(IB_USER_VERBS_EX_CMD_CREATE_QP, &x, sizeof(x),
                           &xr, sizeof(xr)), true);
    }
}

/* ---- MRs ----------------------------------------------------------------- */

struct mr_reply {
    struct ib_uverbs_reg_mr_resp r;
    uint64_t drv[2];
};

/* REG_MR: 0 or the errno; the MR is deregistered, or kept in *out */
static int mr_make(uint64_t start, uint64_t length, uint64_t iova,
                   uint32_t pd_handle, uint32_t access, const void *drv,
                   size_t drv_len, struct mr_reply *out)
{
    struct mr_reply resp;
    struct ib_uverbs_reg_mr c = {
        .response = (uintptr_t)&resp, .start = start, .length = length,
        .hca_va = iova, .pd_handle = pd_handle, .access_flags = access,
    };
    int err;

    memset(&resp, 0, sizeof(resp));
    err = cmd_write(IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c), drv, drv_len,
                    sizeof(resp.r));
    if (!err && out) {
        *out = resp;
    } else if (!err) {
        dereg_mr(resp.r.mr_handle);
    }
    return err;
}

#define RW      (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

/* Two RC QPs of this context connected to each other through the port */
static struct ibv_qp *loop_qp[2];

static void qp_connect_loop(void)
{
    struct ibv_qp_init_attr ia = {
        .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
                 .max_recv_sge = 1 },
    };
    struct ibv_port_attr port;
    union ibv_gid gid;
    int i;

    if (gidx < 0) {
        die("-g GIDX (the port's RoCE v2 GID) is needed for the WRITE");
    }
    if (ibv_query_port(ctx, 1, &port) || ibv_query_gid(ctx, 1, gidx, &gid)) {
        die("query port/GID: %s", strerror(errno));
    }
    for (i = 0; i < 2; i++) {
        loop_qp[i] = ibv_create_qp(pd, &ia);
        if (!loop_qp[i]) {
            die("ibv_create_qp: %s", strerror(errno));
        }
    }
    for (i = 0; i < 2; i++) {
        struct ibv_qp_attr a = {
            .qp_state = IBV_QPS_INIT, .port_num = 1,
            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
                               IBV_ACCESS_REMOTE_READ,
        };

        if (ibv_modify_qp(loop_qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                          IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
            die("INIT: %s", strerror(errno));
        }
        memset(&a, 0, sizeof(a));
        a.qp_state = IBV_QPS_RTR;
        a.path_mtu = port.active_mtu;
        a.dest_qp_num = loop_qp[!i]->qp_num;
        a.rq_psn = 100;
        a.max_dest_rd_atomic = 1;
        a.min_rnr_timer = 12;
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = gid;
        a.ah_attr.grh.sgid_index = gidx;
        a.ah_attr.grh.hop_limit = 64;
        a.ah_attr.port_num = 1;
        if (ibv_modify_qp(loop_qp[i], &a, IBV_QP_STATE | IBV_QP_AV |
                          IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC |
                          IBV_QP_MIN_RNR_TIMER)) {
            die("RTR: %s", strerror(errno));
        }
        memset(&a, 0, sizeof(a));
        a.qp_state = IBV_QPS_RTS;
        a.timeout = 14;
        a.retry_cnt = 7;
        a.rnr_retry = 7;
        a.sq_psn = 100;
        a.max_rd_atomic = 1;
        if (ibv_modify_qp(loop_qp[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
                          IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                          IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
            die("RTS: %s", strerror(errno));
        }
    }
}

static void qp_free_loop(void)
{
    if (ibv_destroy_qp(loop_qp[0]) || ibv_destroy_qp(loop_qp[1])) {
        die("ibv_destroy_qp: %s", strerror(errno));
    }
}

/* The next completion (10 s at most): its status */
static enum ibv_wc_status wait_wc(void)
{
    struct timespec t0, t;
    struct ibv_wc wc;
    int n;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        n = ibv_poll_cq(cq, 1, &wc);
        if (n < 0) {
            die("ibv_poll_cq");
        }
        if (n) {
            return wc.status;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 10) {
            die("no completion in 10 s");
        }
    }
}

/*
 * An RDMA WRITE of len bytes from src (lkey) to the remote address raddr
 * (rkey) on loop_qp[0]: the completion's status
 */
static enum ibv_wc_status write_once(void *src, uint32_t lkey, uint32_t len,
                                     uint64_t raddr, uint32_t rkey)
{
    struct ibv_sge sge = {
        .addr = (uintptr_t)src, .length = len, .lkey = lkey,
    };
    struct ibv_send_wr wr = {
        .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
        .send_flags = IBV_SEND_SIGNALED,
        .wr.rdma = { .remote_addr = raddr, .rkey = rkey },
    }, *bad;

    if (ibv_post_send(loop_qp[0], &wr, &bad)) {
        die("ibv_post_send: %s", strerror(errno));
    }
    return wait_wc();
}

static void mr_cases(void)
{
    static const uint64_t garbage[2] = { 0x1234, 0 };
    uint8_t *buf = (uint8_t *)ring_mem + 8 * PAGE, *src;
    uint64_t start = (uintptr_t)buf + 0x100, iova;
    struct ibv_mr *smr;
    struct mr_reply mr;
    unsigned i;
    int err;

    check("mr: well-formed, iova = address (control)",
          mr_make(start, 2 * PAGE, start, pd->handle, RW, NULL, 0, NULL),
          false);
    check("mr: iova's page offset not the address's",
          mr_make(start, 2 * PAGE, start + 8, pd->handle, RW, NULL, 0, NULL),
          true);
    check("mr: length 0",
          mr_make(start, 0, start, pd->handle, RW, NULL, 0, NULL), true);
    check("mr: address + length wraps",
          mr_make(start, ~0ull - 0x100, start, pd->handle, RW, NULL, 0, NULL),
          true);
    check("mr: iova + length wraps",
          mr_make(start, 2 * PAGE, ~0ull - PAGE + 0x101, pd->handle, RW, NULL,
                  0, NULL), true);
    check("mr: length past the device's page list",
          mr_make(start, 1ull << 40, start, pd->handle, RW, NULL, 0, NULL),
          true);
    check("mr: unmapped",
          mr_make((uintptr_t)hole_mem, PAGE, (uintptr_t)hole_mem, pd->handle,
                  RW, NULL, 0, NULL), true);
    check("mr: remote write without local write",
          mr_make(start, PAGE, start, pd->handle, IBV_ACCESS_REMOTE_WRITE,
                  NULL, 0, NULL), true);
    check("mr: zero-based access",
          mr_make(start, PAGE, start, pd->handle,
                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ZERO_BASED, NULL, 0,
                  NULL), true);
    check("mr: on-demand paging",
          mr_make(start, PAGE, start, pd->handle,
                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND, NULL, 0,
                  NULL), true);
    check("mr: an unknown access bit",
          mr_make(start, PAGE, start, pd->handle,
                  IBV_ACCESS_LOCAL_WRITE | 1u << 19, NULL, 0, NULL), true);
    check("mr: a CQ's handle for its PD",
          mr_make(start, PAGE, start, cq->handle, RW, NULL, 0, NULL), true);
    check("mr: driver data that is not zero",
          mr_make(start, PAGE, start, pd->handle, RW, garbage,
                  sizeof(garbage), NULL), true);

    /*
     * An iova elsewhere at the same page offset is the MR's own address
     * space: a WRITE to iova + 0x40 lands at start + 0x40
     */
    iova = 0x7e0000000000ull + (start & (PAGE - 1));
    err = mr_make(start, 2 * PAGE, iova, pd->handle, RW, NULL, 0, &mr);
    check("mr: iova != address, same page offset", err, false);
    if (err) {
        return;
    }
    qp_connect_loop();
    src = (uint8_t *)ring_mem + 12 * PAGE;
    for (i = 0; i < 256; i++) {
        src[i] = (uint8_t)(i * 7 + 1);
    }
    smr = ibv_reg_mr(pd, src, PAGE, IBV_ACCESS_LOCAL_WRITE);
    if (!smr) {
        die("ibv_reg_mr: %s", strerror(errno));
    }
    memset(buf, 0, 3 * PAGE);
    cases++;
    if (write_once(src, smr->lkey, 256, iova + 0x40, mr.r.rkey) !=
        IBV_WC_SUCCESS || memcmp(buf + 0x140, src, 256) ||
        buf[0x13f] || buf[0x240]) {
        failures++;
        printf("uverbs-check: %-44s FAIL (the data is not at start + 0x40)\n",
               "mr: a WRITE to iova + 0x40");
    } else {
        printf("uverbs-check: %-44s ok (256 bytes at start + 0x40)\n",
               "mr: a WRITE to iova + 0x40");
    }
    /* and one to the address itself (not in the MR's space) is refused */
    check("mr: a WRITE to the address, not the iova",
          write_once(src, smr->lkey, 8, start + 0x40, mr.r.rkey) ==
          IBV_WC_SUCCESS ? 0 : EACCES, true);
    if (ibv_dereg_mr(smr)) {
        die("ibv_dereg_mr: %s", strerror(errno));
    }
    qp_free_loop();
    dereg_mr(mr.r.mr_handle);
}

/* ---- the snic methods (ioctl) --------------------------------------------- */

struct method {
    struct ib_uverbs_ioctl_hdr h;
    struct ib_uverbs_attr a[4];
};

static void method_init(struct method *m, uint16_t object, uint16_t method)
{
    memset(m, 0, sizeof(*m));
    m->h.object_id = object;
    m->h.method_id = method;
}

/* An attribute holding an object's handle (UVERBS_ATTR_IDR) */
static void attr_obj(struct method *m, uint16_t id, uint32_t handle)
{
    struct ib_uverbs_attr *a = &m->a[m->h.num_attrs++];

    a->attr_id = id;
    a->flags = UVERBS_ATTR_F_MANDATORY;
    a->data = handle;
}

/* An input of len bytes (at most 8: inline) */
static void attr_in(struct method *m, uint16_t id, uint64_t v, uint16_t len)
{
    struct ib_uverbs_attr *a = &m->a[m->h.num_attrs++];

    a->attr_id = id;
    a->len = len;
    a->data = v;
}

static void attr_out(struct method *m, uint16_t id, void *p, uint16_t len)
{
    struct ib_uverbs_attr *a = &m->a[m->h.num_attrs++];

    a->attr_id = id;
    a->len = len;
    a->data = (uintptr_t)p;
}

static int method_run(struct method *m)
{
    m->h.length = sizeof(m->h) + m->h.num_attrs * sizeof(m->a[0]);
    return ioctl(fd, RDMA_VERBS_IOCTL, m) ? errno : 0;
}

/* SET_QP_TRANSPORT of the QP with handle qp */
static int set_transport(uint32_t qp, uint64_t program, uint16_t plen,
                         int64_t ack_every)
{
    struct method m;

    method_init(&m, UVERBS_OBJECT_QP, SNIC_IB_METHOD_QP_SET_TRANSPORT);
    attr_obj(&m, SNIC_IB_ATTR_TRANSPORT_QP_HANDLE, qp);
    if (plen) {
        attr_in(&m, SNIC_IB_ATTR_TRANSPORT_PROGRAM, program, plen);
    }
    if (ack_every >= 0) {
        attr_in(&m, SNIC_IB_ATTR_TRANSPORT_ACK_EVERY, ack_every, 4);
    }
    return method_run(&m);
}

static int set_rpc(uint32_t qp, uint32_t flags)
{
    struct method m;

    method_init(&m, UVERBS_OBJECT_QP, SNIC_IB_METHOD_QP_SET_RPC);
    attr_obj(&m, SNIC_IB_ATTR_QP_SET_RPC_HANDLE, qp);
    attr_in(&m, SNIC_IB_ATTR_QP_SET_RPC_FLAGS, flags, 4);
    return method_run(&m);
}

static int deploy(uint16_t method, uint64_t opcode, int64_t kernel)
{
    struct method m;

    method_init(&m, UVERBS_OBJECT_DEVICE, method);
    attr_in(&m, SNIC_IB_ATTR_DEPLOY_RPC_OPCODE, opcode, 8);
    if (kernel >= 0) {
        attr_in(&m, SNIC_IB_ATTR_DEPLOY_KERNEL_ID, kernel, 4);
    }
    return method_run(&m);
}

static int query_program(uint32_t program)
{
    struct snic_transport_info info;
    struct method m;

    method_init(&m, UVERBS_OBJECT_DEVICE, SNIC_IB_METHOD_QUERY_PROGRAM);
    attr_in(&m, SNIC_IB_ATTR_TRANSPORT_PROGRAM, program, 4);
    attr_out(&m, SNIC_IB_ATTR_TRANSPORT_INFO, &info, sizeof(info));
    return method_run(&m);
}

/* A QP of type 'type' made here, moved to RTS if rts (RC: to itself) */
static uint32_t method_qp(uint8_t type, uint32_t *qpn)
{
    struct qp_cmd m;
    uint32_t h;

    qp_good(&m, type);
    m.d.sq_buf_va = (uintptr_t)ring_mem + (type == IBV_QPT_RC ? 16 : 20) * PAGE;
    m.d.rq_buf_va = m.d.sq_buf_va + 2 * PAGE;
    if (qp_make(&m, &h, qpn)) {
        die("CREATE_QP (type %u) for the method cases: %s", type,
            strerror(errno));
    }
    return h;
}

static void qp_modify_init(uint32_t handle, uint8_t type)
{
    struct ib_uverbs_modify_qp c;

    memset(&c, 0, sizeof(c));
    c.qp_handle = handle;
    c.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                  (type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
    c.qp_state = IBV_QPS_INIT;
    c.port_num = 1;
    c.qkey = 0x11111111;
    if (cmd_write(IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c), NULL, 0, 0)) {
        die("MODIFY_QP to INIT: %s", strerror(errno));
    }
}

static void method_cases(void)
{
    uint32_t rc, ud, rc_qpn;
    int err;

    rc = method_qp(IBV_QPT_RC, &rc_qpn);
    ud = method_qp(IBV_QPT_UD, NULL);
    qp_modify_init(ud, IBV_QPT_UD);

    check("set_transport: DCQCN on RC in RESET (control)",
          set_transport(rc, SNIC_TRANSPORT_DCQCN, 4, -1), false);
    check("set_transport: program 200",
          set_transport(rc, 200, 4, -1), true);
    check("set_transport: program 2^32 - 1",
          set_transport(rc, 0xffffffff, 4, -1), true);
    check("set_transport: program in 2 bytes",
          set_transport(rc, SNIC_TRANSPORT_SACK, 2, -1), true);
    check("set_transport: no program",
          set_transport(rc, 0, 0, -1), true);
    check("set_transport: ack_every 256",
          set_transport(rc, SNIC_TRANSPORT_RENO, 4, 256), true);
    check("set_transport: on a UD QP",
          set_transport(ud, SNIC_TRANSPORT_SACK, 4, -1), true);
    check("set_transport: SRNIC (SET_QP_SR) on a UD QP",
          set_transport(ud, SNIC_TRANSPORT_SRNIC, 4, -1), true);
    check("set_transport: a CQ's handle for the QP",
          set_transport(cq->handle, SNIC_TRANSPORT_SACK, 4, -1), true);
    check("set_transport: a PD's handle for the QP",
          set_transport(pd->handle, SNIC_TRANSPORT_SACK, 4, -1), true);
    check("set_transport: a QP handle that names nothing",
          set_transport(0x7ffffff0, SNIC_TRANSPORT_SACK, 4, -1), true);
    check("query_program: SACK (control)", query_program(SNIC_TRANSPORT_SACK),
          false);
    check("query_program: program 99", query_program(99), true);
    check("query_program: program 2^16", query_program(1u << 16), true);

    check("set_rpc: on RC in RESET (control)",
          set_rpc(rc, SNIC_QP_RPC_ENABLE), false);
    check("set_rpc: fallback without enable",
          set_rpc(rc, SNIC_QP_RPC_FALLBACK), true);
    check("set_rpc: an unknown flag", set_rpc(rc, 1u << 7), true);
    check("set_rpc: on a UD QP", set_rpc(ud, SNIC_QP_RPC_ENABLE), true);
    check("set_rpc: a CQ's handle for the QP",
          set_rpc(cq->handle, SNIC_QP_RPC_ENABLE), true);

    err = deploy(SNIC_IB_METHOD_DEPLOY_KERNEL, 0x7e01, SNIC_KERNEL_TRAVERSAL);
    check("deploy: traversal at op-code 0x7e01 (control)", err, false);
    check("deploy: the same op-code again",
          deploy(SNIC_IB_METHOD_DEPLOY_KERNEL, 0x7e01, SNIC_KERNEL_TRAVERSAL),
          true);
    check("deploy: kernel 0",
          deploy(SNIC_IB_METHOD_DEPLOY_KERNEL, 0x7e02, 0), true);
    check("deploy: kernel 99",
          deploy(SNIC_IB_METHOD_DEPLOY_KERNEL, 0x7e02, 99), true);
    check("deploy: kernel 2^32 - 1",
          deploy(SNIC_IB_METHOD_DEPLOY_KERNEL, 0x7e02, 0xffffffff), true);
    check("deploy: no kernel",
          deploy(SNIC_IB_METHOD_DEPLOY_KERNEL, 0x7e02, -1), true);
    check("undeploy: an op-code never deployed",
          deploy(SNIC_IB_METHOD_UNDEPLOY_KERNEL, 0x7e03, -1), true);
    if (!err) {
        check("undeploy: 0x7e01 (control)",
              deploy(SNIC_IB_METHOD_UNDEPLOY_KERNEL, 0x7e01, -1), false);
    }

    {
        struct method m;

        method_init(&m, UVERBS_OBJECT_QP, 0x1fff);
        attr_obj(&m, SNIC_IB_ATTR_TRANSPORT_QP_HANDLE, rc);
        check("a driver method that does not exist", method_run(&m), true);
    }

    /* past INIT the transport and RPCs are fixed (SET_QP_SR included) */
    qp_modify_init(rc, IBV_QPT_RC);
    {
        struct ib_uverbs_modify_qp c;

        memset(&c, 0, sizeof(c));
        c.qp_handle = rc;
        c.attr_mask = IBV_QP_STATE;
        c.qp_state = IBV_QPS_ERR;
        if (cmd_write(IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c), NULL, 0,
                      0)) {
            die("MODIFY_QP to ERR: %s", strerror(errno));
        }
    }
    check("set_transport: SRNIC (SET_QP_SR) on a QP in ERR",
          set_transport(rc, SNIC_TRANSPORT_SRNIC, 4, -1), true);
    check("set_rpc: on a QP in ERR", set_rpc(rc, SNIC_QP_RPC_ENABLE), true);
    destroy_qp(rc);
    destroy_qp(ud);
    check("set_transport: a destroyed QP's handle",
          set_transport(rc, SNIC_TRANSPORT_SACK, 4, -1), true);
}

/* ---- the device's object gauges ------------------------------------------ */

static const char *const gauges[] = {
    "obj_qps", "obj_cqs", "obj_srqs", "obj_mrs", "obj_mws", "obj_pds",
};

static long long gauge(const char *name)
{
    char path[256];
    long long v = -1;
    FILE *f;

    snprintf(path, sizeof(path),
             "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev_name,
             name);
    f = fopen(path, "r");
    if (!f || fscanf(f, "%lld", &v) != 1) {
        die("cannot read %s", path);
    }
    fclose(f);
    return v;
}

static void open_dev(void)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    int i;

    for (i = 0; list && list[i]; i++) {
        if (!strcmp(ibv_get_device_name(list[i]), dev_name)) {
            ctx = ibv_open_device(list[i]);
            break;
        }
    }
    if (!ctx) {
        die("cannot open %s", dev_name);
    }
    ibv_free_device_list(list);
    fd = ctx->cmd_fd;
    pd = ibv_alloc_pd(ctx);
    cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    if (!pd || !cq) {
        die("PD/CQ: %s", strerror(errno));
    }
}

static void close_dev(void)
{
    if (ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) || ibv_close_device(ctx)) {
        die("freeing the context: %s", strerror(errno));
    }
}

static int hostile(void)
{
    long long before[N_ELEM(gauges)], after;
    bool leak = false;
    unsigned i;

    for (i = 0; i < N_ELEM(gauges); i++) {
        before[i] = gauge(gauges[i]);
    }
    open_dev();
    map_rings();
    cq_cases();
    srq_cases();
    qp_cases();
    mr_cases();
    method_cases();
    close_dev();
    for (i = 0; i < N_ELEM(gauges); i++) {
        after = gauge(gauges[i]);
        printf("uverbs-check: %s %lld -> %lld\n", gauges[i], before[i],
               after);
        leak |= after != before[i];
    }
    printf("uverbs-check: %u cases, %u failed%s\n", cases, failures,
           leak ? "; the device holds objects it did not before" : "");
    return failures || leak;
}

/* ---- DEREG_MR with a window bound ---------------------------------------- */

/* An MR of 2 pages at b with a type 1 window bound over it: the window */
static struct ibv_mw *bound_window(uint8_t *b, struct ibv_mr **mr)
{
    struct ibv_mw_bind bind = { .send_flags = IBV_SEND_SIGNALED };
    struct ibv_mw *mw;

    *mr = ibv_reg_mr(pd, b, 2 * PAGE, RW | IBV_ACCESS_MW_BIND);
    mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
    if (!*mr || !mw) {
        die("MR or window: %s", strerror(errno));
    }
    bind.bind_info.mr = *mr;
    bind.bind_info.addr = (uintptr_t)b;
    bind.bind_info.length = 2 * PAGE;
    bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
    if (ibv_bind_mw(loop_qp[0], mw, &bind) || wait_wc() != IBV_WC_SUCCESS) {
        die("ibv_bind_mw: %s", strerror(errno));
    }
    return mw;
}

static int dereg_refused(void)
{
    uint8_t *b1, *b2, *src;
    struct ibv_mr *mr1, *mr2, *smr;
    struct ibv_mw *mw1;
    int err;

    open_dev();
    map_rings();
    qp_connect_loop();
    b1 = (uint8_t *)ring_mem + 24 * PAGE;
    b2 = b1 + 4 * PAGE;
    src = b2 + 4 * PAGE;
    memset(src, 0x5c, 64);
    smr = ibv_reg_mr(pd, src, PAGE, IBV_ACCESS_LOCAL_WRITE);
    if (!smr) {
        die("ibv_reg_mr: %s", strerror(errno));
    }
    mw1 = bound_window(b1, &mr1);
    err = ibv_dereg_mr(mr1);
    check("dereg_mr with a window bound: EBUSY", err == EBUSY ? EBUSY : 0,
          true);
    if (err != EBUSY) {
        printf("uverbs-check: ibv_dereg_mr returned %d (%s)\n", err,
               strerror(err));
        return 1;
    }
    /* the MR is whole: the window still reaches its pages */
    check("a WRITE through the window after it",
          write_once(src, smr->lkey, 64, (uintptr_t)b1 + 8, mw1->rkey) ==
          IBV_WC_SUCCESS && b1[8] == 0x5c && b1[71] == 0x5c ? 0 : EIO, false);
    check("dealloc_mw", ibv_dealloc_mw(mw1), false);
    check("dereg_mr once the window is gone", ibv_dereg_mr(mr1), false);

    /* a second one is left bound: the process's exit must free it all */
    bound_window(b2, &mr2);
    check("dereg_mr of the second: EBUSY",
          ibv_dereg_mr(mr2) == EBUSY ? EBUSY : 0, true);
    printf("uverbs-check: exit with MR %#x, its window and QPs in place\n",
           mr2->lkey);
    printf("uverbs-check: %u cases, %u failed\n", cases, failures);
    return failures != 0;
}

/* ---- contexts ------------------------------------------------------------ */

static int contexts(int n, bool one_more_fails, int hold)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_device *dev = NULL;
    struct ibv_context *c[64], *extra;
    int i, opened = 0, err;

    for (i = 0; list && list[i]; i++) {
        if (!strcmp(ibv_get_device_name(list[i]), dev_name)) {
            dev = list[i];
        }
    }
    if (!dev || n > (int)N_ELEM(c)) {
        die("no device %s (or more than %zu contexts)", dev_name, N_ELEM(c));
    }
    for (i = 0; i < n; i++) {
        c[i] = ibv_open_device(dev);
        if (!c[i]) {
            printf("uverbs-check: context %d of %d: %s\n", i + 1, n,
                   strerror(errno));
            break;
        }
        opened++;
    }
    printf("uverbs-check: %d of %d contexts opened\n", opened, n);
    cases++;
    failures += opened != n;
    if (one_more_fails) {
        errno = 0;
        extra = ibv_open_device(dev);
        err = extra ? 0 : errno ? errno : EIO;
        check("one more context", err, true);
        if (extra) {
            ibv_close_device(extra);
        }
    }
    if (hold) {
        printf("uverbs-check: holding %d contexts for %d s\n", opened, hold);
        fflush(stdout);
        sleep(hold);
    }
    for (i = 0; i < opened; i++) {
        ibv_close_device(c[i]);
    }
    ibv_free_device_list(list);
    printf("uverbs-check: %u cases, %u failed\n", cases, failures);
    return failures != 0;
}

int main(int argc, char **argv)
{
    int opt, n = 0, hold = 0;
    bool mw = false, one_more = false;

    while ((opt = getopt(argc, argv, "d:g:Mc:xH:")) != -1) {
        switch (opt) {
        case 'd':
            dev_name = optarg;
            break;
        case 'g':
            gidx = atoi(optarg);
            break;
        case 'M':
            mw = true;
            break;
        case 'c':
            n = atoi(optarg);
            break;
        case 'x':
            one_more = true;
            break;
        case 'H':
            hold = atoi(optarg);
            break;
        default:
            fprintf(stderr, "usage: uverbs-check [-d DEV] [-g GIDX] "
                    "[-M | -c N [-x] [-H SECONDS]]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (n) {
        return contexts(n, one_more, hold);
    }
    return mw ? dereg_refused() : hostile();
}
