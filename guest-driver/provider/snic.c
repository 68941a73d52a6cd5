// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: device matching and user contexts.
 *
 * The kernel driver (snic.ko) registers its ib_device with
 * RDMA_DRIVER_UNKNOWN, so libibverbs finds this provider by the PCI IDs in
 * the device's modalias only.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ccan/minmax.h>

#include "snic.h"
#include "snic-abi.h"

static void snic_free_context(struct ibv_context *ibvctx);

static const struct verbs_match_ent snic_match_table[] = {
	VERBS_PCI_MATCH(PCI_VENDOR_ID_SNIC, PCI_DEVICE_ID_SNIC, NULL),
	{}
};

static const struct verbs_context_ops snic_ctx_ops = {
	.alloc_mw = snic_alloc_mw,
	.alloc_pd = snic_alloc_pd,
	.attach_mcast = snic_attach_mcast,
	.bind_mw = snic_bind_mw,
	.create_ah = snic_create_ah,
	.create_cq = snic_create_cq,
	.create_cq_ex = snic_create_cq_ex,
	.create_qp = snic_create_qp,
	.create_qp_ex = snic_create_qp_ex,
	.create_srq = snic_create_srq,
	.dealloc_mw = snic_dealloc_mw,
	.dealloc_pd = snic_dealloc_pd,
	.dereg_mr = snic_dereg_mr,
	.destroy_ah = snic_destroy_ah,
	.destroy_cq = snic_destroy_cq,
	.destroy_qp = snic_destroy_qp,
	.destroy_srq = snic_destroy_srq,
	.detach_mcast = snic_detach_mcast,
	.free_context = snic_free_context,
	.modify_cq = snic_modify_cq,
	.modify_qp = snic_modify_qp,
	.modify_srq = snic_modify_srq,
	.poll_cq = snic_poll_cq,
	.post_recv = snic_post_recv,
	.post_send = snic_post_send,
	.post_srq_recv = snic_post_srq_recv,
	.query_device_ex = snic_query_device_ex,
	.query_port = snic_query_port,
	.query_qp = snic_query_qp,
	.query_srq = snic_query_srq,
	.reg_mr = snic_reg_mr,
	.req_notify_cq = snic_req_notify_cq,
	.rereg_mr = snic_rereg_mr,
	.resize_cq = snic_resize_cq,
};

static const struct verbs_device_ops snic_dev_ops;

/* snicdv calls take any ibv_context: is it one of ours? */
bool snic_is_snic_dev(struct ibv_device *ibdev)
{
	return verbs_get_device(ibdev)->ops == &snic_dev_ops;
}

struct snic_qp *snic_qp_lookup(struct snic_context *ctx, uint32_t qpn)
{
	struct snic_qp *qp = ctx->qp_table[qpn & ctx->qp_table_mask];

	return qp && qp->vqp.qp.qp_num == qpn ? qp : NULL;
}

/*
 * The device's limits the provider applies itself, from QUERY_DEVICE.
 * The device numbers QPs 1 (GSI) .. max_qp + 1: a table of that size
 * indexed by QPN never collides (create_qp refuses a QPN whose slot is
 * taken, should a kernel number them otherwise).
 */
static int snic_query_limits(struct snic_context *ctx)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	struct ibv_device_attr_ex attr = {};
	uint64_t size;
	int err;

	err = ibv_cmd_query_device_any(&ctx->ibvctx.context, NULL, &attr,
				       sizeof(attr), &resp, &resp_size);
	if (err)
		return err;

	ctx->mw = attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW;
	size = roundup_pow_of_two((uint64_t)attr.orig_attr.max_qp + 2);
	ctx->qp_table = calloc(size, sizeof(*ctx->qp_table));
	if (!ctx->qp_table)
		return ENOMEM;
	ctx->qp_table_mask = size - 1;

	return 0;
}

static struct verbs_context *snic_alloc_context(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct snic_device *dev = to_sdev(ibdev);
	struct snic_alloc_context_resp resp = {};
	struct ibv_get_context cmd = {};
	struct snic_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	err = ibv_cmd_get_context(&ctx->ibvctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "GET_CONTEXT failed: %s\n",
			  strerror(err));
		goto err_free_ctx;
	}

	/* An older or broken kernel that leaves these zero cannot be used. */
	if (!resp.db_page_size || resp.db_page_size % dev->page_size) {
		verbs_err(&ctx->ibvctx,
			  "kernel gave doorbell page size %u (page size %zu)\n",
			  resp.db_page_size, dev->page_size);
		err = EPROTO;
		goto err_free_ctx;
	}

	ctx->db_page = resp.db_page;
	ctx->db_size = resp.db_page_size;
	ctx->db = mmap(NULL, ctx->db_size, PROT_WRITE, MAP_SHARED, cmd_fd,
		       (off_t)resp.db_mmap_key);
	if (ctx->db == MAP_FAILED) {
		err = errno;
		verbs_err(&ctx->ibvctx,
			  "mmap of doorbell page %u (key 0x%llx, %zu bytes) failed: %s\n",
			  ctx->db_page, (unsigned long long)resp.db_mmap_key,
			  ctx->db_size, strerror(err));
		goto err_free_ctx;
	}

	/* The rings are laid out with this provider's copy of the formats */
	if (resp.sq_wqe_size != sizeof(struct snic_sq_wqe) ||
	    resp.rq_wqe_size != sizeof(struct snic_rq_wqe) ||
	    resp.cqe_size != sizeof(struct snic_cqe) ||
	    resp.max_qp_wr < 1u << SNIC_MIN_LOG2_DEPTH ||
	    resp.max_cqe < 1u << SNIC_MIN_LOG2_DEPTH) {
		verbs_err(&ctx->ibvctx,
			  "kernel gave WQE/CQE sizes %u/%u/%u, depths %u/%u (want %zu/%zu/%zu, >= 4)\n",
			  resp.sq_wqe_size, resp.rq_wqe_size, resp.cqe_size,
			  resp.max_qp_wr, resp.max_cqe,
			  sizeof(struct snic_sq_wqe), sizeof(struct snic_rq_wqe),
			  sizeof(struct snic_cqe));
		err = EPROTO;
		goto err_unmap;
	}
	ctx->page_size = dev->page_size;
	/* Depths are powers of two: round the limits down to one */
	ctx->max_qp_wr = min_t(uint32_t, 1u << (ilog32(resp.max_qp_wr) - 1),
			       SNIC_MAX_WQ_DEPTH);
	ctx->max_cqe = 1u << (ilog32(resp.max_cqe) - 1);
	ctx->max_send_sge = min_t(uint32_t, resp.max_send_sge,
				  SNIC_SQ_WQE_MAX_SGE);
	ctx->max_recv_sge = min_t(uint32_t, resp.max_recv_sge,
				  SNIC_RQ_WQE_MAX_SGE);

	ctx->max_inline_data = min_t(uint32_t, resp.max_inline_data,
				     SNIC_MAX_INLINE_DATA);
	/* A kernel without RPCs leaves comp_mask and these fields zero */
	if (resp.comp_mask & SNIC_IB_UCONTEXT_RPC) {
		ctx->rpc = true;
		ctx->rpc_builtin_kernels = resp.rpc_builtin_kernels;
		ctx->rpc_max_response = resp.rpc_max_response;
		ctx->rpc_kernel_max_steps = resp.rpc_kernel_max_steps;
		ctx->rpc_slots = resp.rpc_slots;
		ctx->rpc_max_per_qp = resp.rpc_max_per_qp;
		ctx->rpc_max_kernels = resp.rpc_max_kernels;
		ctx->rpc_ctx_slots = resp.rpc_ctx_slots;
		ctx->rpc_ctx_stage = resp.rpc_ctx_stage;
		ctx->rpc_qp_stage = resp.rpc_qp_stage;
		ctx->rpc_ctx_kernels = resp.rpc_ctx_kernels;
	}
	ctx->ctx_recv_pool = resp.ctx_recv_pool;
	ctx->ctx_mcast_grp = resp.ctx_mcast_grp;
	ctx->ctx_mcast_qp_attach = resp.ctx_mcast_qp_attach;
	ctx->ctx_sr_ctrlq = resp.ctx_sr_ctrlq;
	/* SRQ slots are named by 16 bits of CQE, like work queue slots */
	ctx->max_srq_wr = resp.max_srq_wr ?
		min_t(uint32_t, 1u << (ilog32(resp.max_srq_wr) - 1),
		      SNIC_MAX_WQ_DEPTH) : 0;

	err = snic_query_limits(ctx);
	if (err) {
		verbs_err(&ctx->ibvctx, "QP table: %s\n", strerror(err));
		goto err_unmap;
	}
	pthread_mutex_init(&ctx->qp_table_mutex, NULL);

	verbs_set_ops(&ctx->ibvctx, &snic_ctx_ops);
	verbs_debug(&ctx->ibvctx, "context on doorbell page %u\n",
		    ctx->db_page);

	return &ctx->ibvctx;

err_unmap:
	munmap(ctx->db, ctx->db_size);
err_free_ctx:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void snic_free_context(struct ibv_context *ibvctx)
{
	struct snic_context *ctx = to_sctx(ibvctx);

	pthread_mutex_destroy(&ctx->qp_table_mutex);
	free(ctx->qp_table);
	munmap(ctx->db, ctx->db_size);
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static struct verbs_device *snic_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct snic_device *dev;
	long pg;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	pg = sysconf(_SC_PAGESIZE);
	dev->page_size = pg > 0 ? (size_t)pg : 4096;

	return &dev->vdev;
}

static void snic_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct snic_device, vdev));
}

static const struct verbs_device_ops snic_dev_ops = {
	.name = "snic",
	.match_min_abi_version = SNIC_UVERBS_ABI_MIN,
	.match_max_abi_version = SNIC_UVERBS_ABI_VERSION,
	.match_table = snic_match_table,
	.alloc_device = snic_alloc_device,
	.uninit_device = snic_uninit_device,
	.alloc_context = snic_alloc_context,
};

PROVIDER_DRIVER(snic, snic_dev_ops);
