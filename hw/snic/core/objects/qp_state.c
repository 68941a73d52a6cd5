/*
 * snic core: QP state machine rules (see qp_state.h).
 *
 * The table follows the IBA state diagram as the Linux RDMA core encodes
 * it (ib_modify_qp_is_ok() in drivers/infiniband/core/verbs.c): which
 * transitions exist and, per QP type, which attributes they require and
 * which they accept. The GSI QP follows the same rules as Linux's GSI/SMI.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>

#include "objects/qp_state.h"

#define A(x) SNIC_QP_ATTR_##x

/* Index of a QP type in the table's per-type arrays. */
enum { T_UD, T_RC, T_UC, T_GSI, T_COUNT };

typedef struct Transition {
    bool valid;
    uint32_t req[T_COUNT];
    uint32_t opt[T_COUNT];
} Transition;

/* UC, as Linux: no RNR timer, no retries, no atomics */
#define UC_PATH_OPT \
    (A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PATH_MIG_STATE))
#define RC_PATH_OPT \
    (A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) | \
     A(PATH_MIG_STATE))

static const Transition table[SNIC_QPS_COUNT][SNIC_QPS_COUNT] = {
    [SNIC_QPS_RESET] = {
        [SNIC_QPS_RESET] = { .valid = true },
        [SNIC_QPS_INIT] = {
            .valid = true,
            .req = {
                [T_UD] = A(PKEY_INDEX) | A(PORT) | A(QKEY),
                [T_RC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
                [T_UC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
                [T_GSI] = A(PKEY_INDEX) | A(QKEY),
            },
        },
    },
    [SNIC_QPS_INIT] = {
        [SNIC_QPS_RESET] = { .valid = true },
        [SNIC_QPS_ERR] = { .valid = true },
        [SNIC_QPS_INIT] = {
            .valid = true,
            .opt = {
                [T_UD] = A(PKEY_INDEX) | A(PORT) | A(QKEY),
                [T_RC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
                [T_UC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
                [T_GSI] = A(PKEY_INDEX) | A(QKEY),
            },
        },
        [SNIC_QPS_RTR] = {
            .valid = true,
            .req = {
                [T_RC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
                         A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
                [T_UC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN),
            },
            .opt = {
                [T_UD] = A(PKEY_INDEX) | A(QKEY),
                [T_RC] = A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX),
                [T_UC] = A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX),
                [T_GSI] = A(PKEY_INDEX) | A(QKEY),
            },
        },
    },
    [SNIC_QPS_RTR] = {
        [SNIC_QPS_RESET] = { .valid = true },
        [SNIC_QPS_ERR] = { .valid = true },
        [SNIC_QPS_RTS] = {
            .valid = true,
            .req = {
                [T_UD] = A(SQ_PSN),
                [T_RC] = A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
                         A(SQ_PSN) | A(MAX_QP_RD_ATOMIC),
                [T_UC] = A(SQ_PSN),
                [T_GSI] = A(SQ_PSN),
            },
            .opt = {
                [T_UD] = A(CUR_STATE) | A(QKEY),
                [T_RC] = RC_PATH_OPT,
                [T_UC] = UC_PATH_OPT,
                [T_GSI] = A(CUR_STATE) | A(QKEY),
            },
        },
    },
    [SNIC_QPS_RTS] = {
        [SNIC_QPS_RESET] = { .valid = true },
        [SNIC_QPS_ERR] = { .valid = true },
        [SNIC_QPS_RTS] = {
            .valid = true,
            .opt = {
                [T_UD] = A(CUR_STATE) | A(QKEY),
                [T_RC] = RC_PATH_OPT,
                [T_UC] = UC_PATH_OPT,
                [T_GSI] = A(CUR_STATE) | A(QKEY),
            },
        },
        [SNIC_QPS_SQD] = {
            .valid = true,
            .opt = {
                [T_UD] = A(EN_SQD_ASYNC_NOTIFY),
                [T_RC] = A(EN_SQD_ASYNC_NOTIFY),
                [T_UC] = A(EN_SQD_ASYNC_NOTIFY),
                [T_GSI] = A(EN_SQD_ASYNC_NOTIFY),
            },
        },
    },
    [SNIC_QPS_SQD] = {
        [SNIC_QPS_RESET] = { .valid = true },
        [SNIC_QPS_ERR] = { .valid = true },
        [SNIC_QPS_RTS] = {
            .valid = true,
            .opt = {
                [T_UD] = A(CUR_STATE) | A(QKEY),
                [T_RC] = RC_PATH_OPT,
                [T_UC] = UC_PATH_OPT,
                [T_GSI] = A(CUR_STATE) | A(QKEY),
            },
        },
        [SNIC_QPS_SQD] = {
            .valid = true,
            .opt = {
                [T_UD] = A(PKEY_INDEX) | A(QKEY),
                [T_RC] = A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) |
                         A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC) |
                         A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
                         A(ACCESS_FLAGS) | A(PKEY_INDEX) |
                         A(MIN_RNR_TIMER) | A(PATH_MIG_STATE),
                [T_UC] = A(AV) | A(ALT_PATH) | A(ACCESS_FLAGS) |
                         A(PKEY_INDEX) | A(PATH_MIG_STATE),
                [T_GSI] = A(PKEY_INDEX) | A(QKEY),
            },
        },
    },
    [SNIC_QPS_SQE] = {
        [SNIC_QPS_RESET] = { .valid = true },
        [SNIC_QPS_ERR] = { .valid = true },
        [SNIC_QPS_RTS] = {
            .valid = true,
            /* RC has no entry here: only STATE is accepted */
            .opt = {
                [T_UD] = A(CUR_STATE) | A(QKEY),
                [T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
                [T_GSI] = A(CUR_STATE) | A(QKEY),
            },
        },
    },
    [SNIC_QPS_ERR] = {
        [SNIC_QPS_RESET] = { .valid = true },
        [SNIC_QPS_ERR] = { .valid = true },
    },
};

static int type_index(uint32_t type)
{
    switch (type) {
    case SNIC_QPT_UD:
        return T_UD;
    case SNIC_QPT_RC:
        return T_RC;
    case SNIC_QPT_UC:
        return T_UC;
    case SNIC_QPT_GSI:
        return T_GSI;
    default:
        return -1;
    }
}

static const Transition *lookup(uint32_t cur, uint32_t next, uint32_t type,
                                int *t)
{
    *t = type_index(type);
    if (cur >= SNIC_QPS_COUNT || next >= SNIC_QPS_COUNT || *t < 0 ||
        !table[cur][next].valid) {
        return NULL;
    }
    return &table[cur][next];
}

uint32_t snic_qp_modify_required(uint32_t cur, uint32_t next, uint32_t type)
{
    int t;
    const Transition *tr = lookup(cur, next, type, &t);

    return tr ? tr->req[t] : 0;
}

uint32_t snic_qp_modify_optional(uint32_t cur, uint32_t next, uint32_t type)
{
    int t;
    const Transition *tr = lookup(cur, next, type, &t);

    return tr ? tr->opt[t] : 0;
}

bool snic_qp_modify_is_ok(uint32_t cur, uint32_t next, uint32_t type,
                          uint32_t mask)
{
    int t;
    const Transition *tr = lookup(cur, next, type, &t);

    if ((mask & A(CUR_STATE)) && cur != SNIC_QPS_RTR &&
        cur != SNIC_QPS_RTS && cur != SNIC_QPS_SQD && cur != SNIC_QPS_SQE) {
        return false;
    }
    if (!tr) {
        return false;
    }
    if ((mask & tr->req[t]) != tr->req[t]) {
        return false;
    }
    return !(mask & ~(tr->req[t] | tr->opt[t] | A(STATE)));
}
