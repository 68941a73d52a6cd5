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

#include "snic.h"
#include "snic-abi.h"

static void snic_free_context(struct ibv_context *ibvctx);

static const struct verbs_match_ent snic_match_table[] = {
	VERBS_PCI_MATCH(PCI_VENDOR_ID_SNIC, PCI_DEVICE_ID_SNIC, NULL),
	{}
};

/*
 * First stage: control path only. Everything left unset (CQ, QP, MR, AH,
 * post/poll) is answered by libibverbs' dummy ops with EOPNOTSUPP.
 */
static const struct verbs_context_ops snic_ctx_ops = {
	.alloc_pd = snic_alloc_pd,
	.dealloc_pd = snic_dealloc_pd,
	.free_context = snic_free_context,
	.query_device_ex = snic_query_device_ex,
	.query_port = snic_query_port,
};

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

	ctx->max_qp_wr = resp.max_qp_wr;
	ctx->max_cqe = resp.max_cqe;
	ctx->sq_wqe_size = resp.sq_wqe_size;
	ctx->rq_wqe_size = resp.rq_wqe_size;
	ctx->cqe_size = resp.cqe_size;
	ctx->max_send_sge = resp.max_send_sge;
	ctx->max_recv_sge = resp.max_recv_sge;

	verbs_set_ops(&ctx->ibvctx, &snic_ctx_ops);
	verbs_debug(&ctx->ibvctx, "context on doorbell page %u\n",
		    ctx->db_page);

	return &ctx->ibvctx;

err_free_ctx:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void snic_free_context(struct ibv_context *ibvctx)
{
	struct snic_context *ctx = to_sctx(ibvctx);

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
	.match_min_abi_version = SNIC_UVERBS_ABI_VERSION,
	.match_max_abi_version = SNIC_UVERBS_ABI_VERSION,
	.match_table = snic_match_table,
	.alloc_device = snic_alloc_device,
	.uninit_device = snic_uninit_device,
	.alloc_context = snic_alloc_context,
};

PROVIDER_DRIVER(snic, snic_dev_ops);
