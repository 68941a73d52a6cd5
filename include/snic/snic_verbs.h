/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snic RDMA object model: QP types and states, modify-QP attribute bits,
 * memory access flags, path MTUs and completion statuses.
 *
 * The numbers are the verbs numbers (Linux include/rdma/ib_verbs.h), so
 * the driver passes requests through unchanged and the device answers in
 * the terms the RDMA core uses.
 */
#ifndef SNIC_VERBS_H
#define SNIC_VERBS_H

#include <linux/types.h>

enum snic_qp_type {
    SNIC_QPT_GSI = 1,           /* QP1: UD semantics, Q_Key 0x80010000 */
    SNIC_QPT_RC = 2,
    SNIC_QPT_UD = 4,
};

enum snic_qp_state {
    SNIC_QPS_RESET = 0,
    SNIC_QPS_INIT = 1,
    SNIC_QPS_RTR = 2,
    SNIC_QPS_RTS = 3,
    SNIC_QPS_SQD = 4,
    SNIC_QPS_SQE = 5,
    SNIC_QPS_ERR = 6,
};
#define SNIC_QPS_COUNT          7

/* Modify-QP attribute mask (IB_QP_*) */
#define SNIC_QP_ATTR_STATE              (1u << 0)
#define SNIC_QP_ATTR_CUR_STATE          (1u << 1)
#define SNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY (1u << 2)
#define SNIC_QP_ATTR_ACCESS_FLAGS       (1u << 3)
#define SNIC_QP_ATTR_PKEY_INDEX         (1u << 4)
#define SNIC_QP_ATTR_PORT               (1u << 5)
#define SNIC_QP_ATTR_QKEY               (1u << 6)
#define SNIC_QP_ATTR_AV                 (1u << 7)
#define SNIC_QP_ATTR_PATH_MTU           (1u << 8)
#define SNIC_QP_ATTR_TIMEOUT            (1u << 9)
#define SNIC_QP_ATTR_RETRY_CNT          (1u << 10)
#define SNIC_QP_ATTR_RNR_RETRY          (1u << 11)
#define SNIC_QP_ATTR_RQ_PSN             (1u << 12)
#define SNIC_QP_ATTR_MAX_QP_RD_ATOMIC   (1u << 13)
#define SNIC_QP_ATTR_ALT_PATH           (1u << 14)
#define SNIC_QP_ATTR_MIN_RNR_TIMER      (1u << 15)
#define SNIC_QP_ATTR_SQ_PSN             (1u << 16)
#define SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC (1u << 17)
#define SNIC_QP_ATTR_PATH_MIG_STATE     (1u << 18)
#define SNIC_QP_ATTR_CAP                (1u << 19)
#define SNIC_QP_ATTR_DEST_QPN           (1u << 20)

/* Memory access flags (IB_ACCESS_*) */
#define SNIC_ACCESS_LOCAL_WRITE         (1u << 0)
#define SNIC_ACCESS_REMOTE_WRITE        (1u << 1)
#define SNIC_ACCESS_REMOTE_READ         (1u << 2)
#define SNIC_ACCESS_REMOTE_ATOMIC       (1u << 3)

/* Path MTU (IB_MTU_*): bytes = 128 << mtu */
enum snic_mtu {
    SNIC_MTU_256 = 1,
    SNIC_MTU_512 = 2,
    SNIC_MTU_1024 = 3,
    SNIC_MTU_2048 = 4,
    SNIC_MTU_4096 = 5,
};

/* Completion status (IB_WC_*) */
enum snic_wc_status {
    SNIC_WC_SUCCESS = 0,
    SNIC_WC_LOC_LEN_ERR = 1,
    SNIC_WC_LOC_QP_OP_ERR = 2,
    SNIC_WC_LOC_PROT_ERR = 4,
    SNIC_WC_WR_FLUSH_ERR = 5,
    SNIC_WC_LOC_ACCESS_ERR = 8,
    SNIC_WC_REM_INV_REQ_ERR = 9,
    SNIC_WC_REM_ACCESS_ERR = 10,
    SNIC_WC_REM_OP_ERR = 11,
    SNIC_WC_RETRY_EXC_ERR = 12,
    SNIC_WC_RNR_RETRY_EXC_ERR = 13,
};

#endif /* SNIC_VERBS_H */
