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

/* The kernel (snic.ko) asserts the same sizes; fields are only appended. */
static_assert(sizeof(struct snic_ib_alloc_ucontext_resp) == 48,
	      "snic_ib_alloc_ucontext_resp changed size");
static_assert(offsetof(struct snic_ib_alloc_ucontext_resp, db_mmap_key) == 8,
	      "snic_ib_alloc_ucontext_resp.db_mmap_key moved");
static_assert(offsetof(struct snic_ib_alloc_ucontext_resp, db_page_size) == 16,
	      "snic_ib_alloc_ucontext_resp.db_page_size moved");
static_assert(sizeof(struct snic_ib_alloc_pd_resp) == 8,
	      "snic_ib_alloc_pd_resp changed size");
static_assert(offsetof(struct snic_ib_alloc_pd_resp, pdn) == 4,
	      "snic_ib_alloc_pd_resp.pdn moved");

#endif /* __SNIC_ABI_H__ */
