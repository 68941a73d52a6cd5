// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsnic-transport.so: run an unmodified RDMA application (perftest, verbs-check) with a
 * transport program chosen through libsnic's direct verbs, the way an application that knows
 * snicdv would choose it: LD_PRELOAD'ed, it wraps ibv_modify_qp and calls
 * snicdv_set_transport on each RC QP just before its move to RTR (the QP in INIT, where the
 * selection is allowed), then checks with snicdv_query_transport that the QP runs it.
 *
 *   SNIC_TRANSPORT=SRNIC LD_PRELOAD=/usr/local/lib/libsnic-transport.so ib_write_bw ...
 *
 * SNIC_TRANSPORT is a program's name as snicdv_query_program gives it (transport-check -l)
 * or its number. Both ends must run with the same program, as with transport-check. A QP
 * the selection fails on fails its move to RTR (the application stops with that error):
 * nothing runs on go-back-N unnoticed. Each selected QP is logged once on stderr:
 *   snic-transport: QP 17 runs SRNIC
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/snicdv.h>

typedef int (*modify_fn)(struct ibv_qp *, struct ibv_qp_attr *, int);

/* SNIC_TRANSPORT as a program number of qp's device, or -1 with errno */
static long program_of(struct ibv_qp *qp, const char *want)
{
    struct snicdv_transport_info t;
    char *end;
    unsigned long v = strtoul(want, &end, 0);
    uint32_t i;
    int r;

    if (*want && !*end)
        return (long)v;
    for (i = 0; !(r = snicdv_query_program(qp->context, i, &t, sizeof(t))); i++) {
        if (!strcasecmp(t.name, want))
            return i;
    }
    errno = r == EINVAL ? ENOENT : r;
    return -1;
}

static int select_program(struct ibv_qp *qp, const char *want)
{
    struct snicdv_transport_info t;
    long prog = program_of(qp, want);
    int r;

    if (prog < 0) {
        r = errno;
        fprintf(stderr, "snic-transport: no program '%s' for QP %u: %s\n", want, qp->qp_num,
                strerror(r));
        return r;
    }
    r = snicdv_set_transport(qp, (uint32_t)prog, NULL);
    if (!r)
        r = snicdv_query_transport(qp, &t, sizeof(t));
    if (!r && t.program != (uint32_t)prog)
        r = EPROTO;
    if (r) {
        fprintf(stderr, "snic-transport: selecting program %s on QP %u failed: %s\n", want,
                qp->qp_num, strerror(r));
        return r;
    }
    fprintf(stderr, "snic-transport: QP %u runs %s\n", qp->qp_num, t.name);
    return 0;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
    static modify_fn real;
    const char *want = getenv("SNIC_TRANSPORT");
    int r;

    if (!real) {
        real = (modify_fn)dlsym(RTLD_NEXT, "ibv_modify_qp");
        if (!real)
            return ENOSYS;
    }
    if (want && *want && qp->qp_type == IBV_QPT_RC && attr_mask & IBV_QP_STATE &&
        attr->qp_state == IBV_QPS_RTR) {
        r = select_program(qp, want);
        if (r)
            return r;
    }
    return real(qp, attr, attr_mask);
}
