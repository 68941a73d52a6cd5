// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic shared receive queues (SNIC_CAP_SRQ). Like a QP's receive queue, an
 * SRQ is a ring of struct snic_rq_wqe in host memory: the provider's
 * (pinned here) for user SRQs, coherent memory for kernel ones, rung with
 * SNIC_DB_SRQ. The device takes WQEs in ring order for any QP attached to
 * the SRQ and names the WQE's index in the receive CQE; the owner of the
 * ring (libsnic, or this file for kernel SRQs) frees slots up to it. The
 * limit event (SNIC_EVENT_SRQ_LIMIT) arrives on the AEQ (snic_admin.c).
 */
#include <linux/interrupt.h>
#include <rdma/uverbs_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"

/* A kernel SRQ's ring: max_wr rounded up to a power of two */
static int snic_srq_kernel_ring(struct snic_dev *sdev, struct snic_srq *srq,
				u32 max_srq_wr, u32 max_wr)
{
	srq->kwq.log2_depth = ilog2(roundup_pow_of_two(max(max_wr, 4u)));
	if (1u << srq->kwq.log2_depth > max_srq_wr)
		return -EINVAL;
	spin_lock_init(&srq->kwq.lock);
	return snic_queue_alloc(sdev, SNIC_RQ_WQE_SIZE << srq->kwq.log2_depth,
				&srq->ring);
}

/* A user SRQ's ring, described by the provider's command */
static int snic_srq_user_ring(struct snic_dev *sdev, struct snic_srq *srq,
			      u32 max_srq_wr, u32 max_wr,
			      struct ib_udata *udata, u16 *ctx)
{
	struct snic_ib_create_srq ucmd = {};
	struct snic_ucontext *uc;
	int err;

	err = snic_udata_cmd(udata, &ucmd, sizeof(ucmd),
			     offsetofend(typeof(ucmd), log2_depth));
	if (err)
		return err;
	if (memchr_inv(ucmd.reserved, 0, sizeof(ucmd.reserved)) ||
	    ucmd.log2_depth < 2 || ucmd.log2_depth > 30 ||
	    (1u << ucmd.log2_depth) > max_srq_wr ||
	    (1u << ucmd.log2_depth) < max_wr ||
	    ucmd.buf_len != (u64)SNIC_RQ_WQE_SIZE << ucmd.log2_depth) {
		ibdev_dbg(&sdev->ibdev,
			  "create_srq: %u WRs in a ring of log2 %u, %u bytes refused\n",
			  max_wr, ucmd.log2_depth, ucmd.buf_len);
		return -EINVAL;
	}
	uc = rdma_udata_to_drv_context(udata, struct snic_ucontext, ibucontext);
	*ctx = uc->db_page;
	srq->kwq.log2_depth = ucmd.log2_depth;
	return snic_queue_get_user(sdev, ucmd.buf_va, ucmd.buf_len, &srq->ring);
}

/* Destroy the device SRQ; free its ring unless the device may still use it */
static void snic_srq_release(struct snic_dev *sdev, struct snic_srq *srq)
{
	if (snic_com_destroyed(sdev, snic_com_destroy_srq(sdev, srq->srqn),
			       "SRQ", srq->srqn))
		snic_queue_put(sdev, &srq->ring);
}

int snic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		    struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibsrq->device);
	u32 max_srq_wr = min_t(u32, le32_to_cpu(sdev->attr.max_srq_wr),
			       1u << 16);
	struct snic_ib_create_srq_resp resp = {};
	struct snic_srq *srq = to_ssrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct snic_com_create_srq_params params = {
		.ring = &srq->ring,
		.ctx = SNIC_DB_KERNEL_PAGE,
		.pdn = to_spd(ibsrq->pd)->pdn,
	};
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > max_srq_wr ||
	    attr->max_sge > sdev->attr.max_recv_sge ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata)
		err = snic_srq_user_ring(sdev, srq, max_srq_wr, attr->max_wr,
					 udata, &params.ctx);
	else
		err = snic_srq_kernel_ring(sdev, srq, max_srq_wr,
					   attr->max_wr);
	if (err) {
		snic_queue_put(sdev, &srq->ring);
		return err;
	}

	params.log2_depth = srq->kwq.log2_depth;
	params.limit = attr->srq_limit;
	err = snic_com_create_srq(sdev, &params, &srq->srqn);
	if (err) {
		snic_queue_put(sdev, &srq->ring);
		return err;
	}
	/* A handle the device gave twice must not replace a live SRQ */
	err = xa_insert(&sdev->srq_xa, srq->srqn, ibsrq, GFP_KERNEL);
	if (err)
		goto err_destroy;
	/* What the SRQ holds */
	attr->max_wr = 1u << srq->kwq.log2_depth;
	attr->max_sge = sdev->attr.max_recv_sge;
	if (!udata)
		return 0;
	resp.srqn = srq->srqn;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase(&sdev->srq_xa, srq->srqn);
err_destroy:
	snic_srq_release(sdev, srq);
	return err;
}

/* Only the limit can change (no IB_DEVICE_SRQ_RESIZE) */
int snic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibsrq->device);
	struct snic_srq *srq = to_ssrq(ibsrq);
	int err;

	err = snic_udata_cmd(udata, NULL, 0, 0);
	if (err)
		return err;
	if (mask & ~IB_SRQ_LIMIT ||
	    attr->srq_limit > 1u << srq->kwq.log2_depth)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	return snic_com_modify_srq(sdev, srq->srqn, attr->srq_limit);
}

int snic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct snic_dev *sdev = to_sdev(ibsrq->device);
	struct snic_srq *srq = to_ssrq(ibsrq);
	u32 limit;
	int err;

	err = snic_com_query_srq(sdev, srq->srqn, &limit);
	if (err)
		return err;
	attr->max_wr = 1u << srq->kwq.log2_depth;
	attr->max_sge = sdev->attr.max_recv_sge;
	attr->srq_limit = limit;
	return 0;
}

int snic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibsrq->device);
	struct snic_srq *srq = to_ssrq(ibsrq);

	xa_erase(&sdev->srq_xa, srq->srqn);
	/* An AEQ handler that found this SRQ has finished with it */
	synchronize_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN));
	snic_srq_release(sdev, srq);
	return 0;
}

/*
 * A receive CQE of a kernel SRQ named index wqe_index: it and the WQEs
 * before it were taken, their slots are free again.
 */
void snic_srq_complete(struct snic_srq *srq, u16 wqe_index)
{
	if (srq->ring.buf)	/* a user SRQ is libsnic's business */
		snic_kwq_complete(&srq->kwq, wqe_index);
}

/* Kernel SRQs only: user SRQs post in libsnic. */
int snic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct snic_dev *sdev = to_sdev(ibsrq->device);
	struct snic_srq *srq = to_ssrq(ibsrq);
	struct snic_kwq *wq = &srq->kwq;
	u32 mask = (1u << wq->log2_depth) - 1;
	unsigned long flags;
	u32 prod;
	int err = 0;

	if (!srq->ring.buf) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&wq->lock, flags);
	prod = wq->prod;
	for (; wr; wr = wr->next) {
		if (prod - wq->cons > mask) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > sdev->attr.max_recv_sge) {
			err = -EINVAL;
			break;
		}
		snic_set_rq_wqe((struct snic_rq_wqe *)srq->ring.buf +
				(prod & mask), wr);
		prod++;
	}
	if (prod != wq->prod) {
		wq->prod = prod;
		/* writeq orders the WQE writes before the doorbell */
		snic_ring_db(sdev, SNIC_DB_SRQ, srq->srqn, prod);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
