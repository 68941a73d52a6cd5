// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic completion queues. User CQs live in the provider's memory: the
 * provider polls them directly and arms them with its own doorbell page;
 * the kernel pins the ring, creates the device CQ on an EQ, and turns that
 * EQ's events into the CQ's completion events (snic_eq.c).
 */
#include <linux/interrupt.h>
#include <rdma/uverbs_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"

int snic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibcq->device);
	struct snic_ib_create_cq_resp resp = {};
	struct snic_cq *cq = to_scq(ibcq);
	struct snic_ib_create_cq ucmd = {};
	struct snic_ucontext *uc;
	struct snic_admin_cmd cmd;
	struct snic_eq *eq;
	u64 cqn;
	int err;

	/* Kernel CQs come with the kernel verbs (GSI, rdma_cm) */
	if (!udata)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (udata->inlen < offsetofend(typeof(ucmd), log2_depth)) {
		ibdev_dbg(&sdev->ibdev, "create_cq: %zu bytes of driver data\n",
			  udata->inlen);
		return -EINVAL;
	}
	if (udata->inlen > sizeof(ucmd) &&
	    !ib_is_udata_cleared(udata, sizeof(ucmd),
				 udata->inlen - sizeof(ucmd)))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata,
				 min(sizeof(ucmd), udata->inlen));
	if (err)
		return err;
	if (memchr_inv(ucmd.reserved, 0, sizeof(ucmd.reserved)) ||
	    ucmd.log2_depth < 2 || ucmd.log2_depth > 30 ||
	    (1ull << ucmd.log2_depth) > le32_to_cpu(sdev->attr.max_cqe) ||
	    (1u << ucmd.log2_depth) <= attr->cqe ||
	    ucmd.buf_len != (u64)SNIC_CQE_SIZE << ucmd.log2_depth) {
		ibdev_dbg(&sdev->ibdev, "create_cq: %u CQEs in a ring of log2 %u, %u bytes refused\n",
			  attr->cqe, ucmd.log2_depth, ucmd.buf_len);
		return -EINVAL;
	}

	uc = rdma_udata_to_drv_context(udata, struct snic_ucontext, ibucontext);
	err = snic_uqueue_get(sdev, ucmd.buf_va, ucmd.buf_len, &cq->ring);
	if (err)
		return err;

	eq = &sdev->eqs[attr->comp_vector % sdev->ibdev.num_comp_vectors];
	snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
	cmd.create_cq.pbl_addr = cpu_to_le64(cq->ring.pbl_dma);
	cmd.create_cq.npages = cpu_to_le32(cq->ring.npages);
	cmd.create_cq.log2_depth = ucmd.log2_depth;
	cmd.create_cq.ctx = cpu_to_le16(uc->db_page);
	cmd.create_cq.eqn = cpu_to_le32(eq->eqn);
	err = snic_admin_exec(sdev, &cmd, &cqn);
	if (err)
		goto err_ring;
	cq->cqn = cqn;
	cq->vector = eq->vector;
	ibcq->cqe = (1u << ucmd.log2_depth) - 1;

	err = xa_err(xa_store(&sdev->cq_xa, cqn, ibcq, GFP_KERNEL));
	if (err)
		goto err_destroy;
	resp.cqn = cqn;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase(&sdev->cq_xa, cqn);
err_destroy:
	snic_admin_obj_cmd(sdev, SNIC_ADMIN_DESTROY_CQ, cqn);
err_ring:
	snic_uqueue_put(sdev, &cq->ring);
	return err;
}

int snic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibcq->device);
	struct snic_cq *cq = to_scq(ibcq);
	int err;

	xa_erase(&sdev->cq_xa, cq->cqn);
	/* An EQ or AEQ handler that found this CQ has finished with it */
	synchronize_irq(pci_irq_vector(sdev->pdev, cq->vector));
	synchronize_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN));
	err = snic_admin_obj_cmd(sdev, SNIC_ADMIN_DESTROY_CQ, cq->cqn);
	if (err) {
		/* A broken device may still write the ring: leave it pinned */
		ibdev_err(&sdev->ibdev, "DESTROY_CQ %u failed (%d): ring stays pinned\n",
			  cq->cqn, err);
		return 0;
	}
	snic_uqueue_put(sdev, &cq->ring);
	return 0;
}
