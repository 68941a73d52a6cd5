/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsnic: uverbs command/response wrappers around the kernel ABI
 * (include/snic/snic-abi.h, copied to kernel-headers/rdma/snic-abi.h).
 * Names must differ from the kernel ABI struct names: DECLARE_DRV_CMD
 * defines struct X and struct X_resp.
 */
#ifndef __SNIC_ABI_H__
#define __SNIC_ABI_H__

#include <assert.h>
#include <stddef.h>

#include <infiniband/kern-abi.h>
#include <rdma/snic-abi.h>
#include <kernel-abi/snic-abi.h>

DECLARE_DRV_CMD(snic_alloc_context, IB_USER_VERBS_CMD_GET_CONTEXT, empty,
		snic_ib_alloc_ucontext_resp);
DECLARE_DRV_CMD(snic_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD, empty,
		snic_ib_alloc_pd_resp);
DECLARE_DRV_CMD(snic_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		snic_ib_create_cq, snic_ib_create_cq_resp);
DECLARE_DRV_CMD(snic_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		snic_ib_create_cq, snic_ib_create_cq_resp);
DECLARE_DRV_CMD(snic_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		snic_ib_resize_cq, snic_ib_resize_cq_resp);
DECLARE_DRV_CMD(snic_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		snic_ib_create_srq, snic_ib_create_srq_resp);
DECLARE_DRV_CMD(snic_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		snic_ib_create_qp, snic_ib_create_qp_resp);
DECLARE_DRV_CMD(snic_create_ah, IB_USER_VERBS_CMD_CREATE_AH, empty,
		snic_ib_create_ah_resp);

/* The kernel (snic.ko) asserts the same sizes; fields are only appended. */
static_assert(sizeof(struct snic_ib_alloc_ucontext_resp) == 88,
	      "snic_ib_alloc_ucontext_resp changed size");
static_assert(offsetof(struct snic_ib_alloc_ucontext_resp, db_mmap_key) == 8,
	      "snic_ib_alloc_ucontext_resp.db_mmap_key moved");
static_assert(offsetof(struct snic_ib_alloc_ucontext_resp, db_page_size) == 16,
	      "snic_ib_alloc_ucontext_resp.db_page_size moved");
static_assert(sizeof(struct snic_ib_alloc_pd_resp) == 8,
	      "snic_ib_alloc_pd_resp changed size");
static_assert(offsetof(struct snic_ib_alloc_pd_resp, pdn) == 4,
	      "snic_ib_alloc_pd_resp.pdn moved");
static_assert(sizeof(struct snic_ib_create_cq) == 16,
	      "snic_ib_create_cq changed size");
static_assert(offsetof(struct snic_ib_create_cq, log2_depth) == 12,
	      "snic_ib_create_cq.log2_depth moved");
static_assert(sizeof(struct snic_ib_create_cq_resp) == 8,
	      "snic_ib_create_cq_resp changed size");
static_assert(sizeof(struct snic_ib_resize_cq) == 16,
	      "snic_ib_resize_cq changed size");
static_assert(sizeof(struct snic_ib_resize_cq_resp) == 8,
	      "snic_ib_resize_cq_resp changed size");
static_assert(sizeof(struct snic_ib_create_srq) == 16,
	      "snic_ib_create_srq changed size");
static_assert(sizeof(struct snic_ib_create_srq_resp) == 8,
	      "snic_ib_create_srq_resp changed size");
static_assert(offsetof(struct snic_ib_alloc_ucontext_resp, max_inline_data) ==
		      44 &&
	      offsetof(struct snic_ib_alloc_ucontext_resp, max_srq_wr) == 48,
	      "snic_ib_alloc_ucontext_resp limits moved");
static_assert(offsetof(struct snic_ib_alloc_ucontext_resp,
		       rpc_builtin_kernels) == 56 &&
	      offsetof(struct snic_ib_alloc_ucontext_resp, rpc_opmap) == 76,
	      "snic_ib_alloc_ucontext_resp RPC fields moved");
static_assert(sizeof(struct snic_ib_create_qp) == 32,
	      "snic_ib_create_qp changed size");
static_assert(offsetof(struct snic_ib_create_qp, rq_log2_depth) == 25,
	      "snic_ib_create_qp.rq_log2_depth moved");
static_assert(sizeof(struct snic_ib_create_qp_resp) == 8,
	      "snic_ib_create_qp_resp changed size");
static_assert(sizeof(struct snic_ib_create_ah_resp) == 56,
	      "snic_ib_create_ah_resp changed size");
static_assert(offsetof(struct snic_ib_create_ah_resp, av) == 8,
	      "snic_ib_create_ah_resp.av moved");

#endif /* __SNIC_ABI_H__ */
