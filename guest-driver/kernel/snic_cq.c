// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic completion queues. User CQs live in the provider's memory: the
 * provider polls them directly and arms them with its own doorbell page;
 * the kernel pins the ring, creates the device CQ on an EQ, and turns that
 * EQ's events into the CQ's completion events (snic_eq.c). Kernel CQs
 * (the MAD layer's, rdma_cm's, ULPs') are polled and armed here, through
 * the kernel's doorbell page.
 */
#include <linux/interrupt.h>
#include <rdma/uverbs_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"

/*
 * A user ring of 2^log2_depth CQEs, buf_len bytes at buf_va, for a CQ
 * of cqe entries, at least one (create and resize; a CQ that can hold
 * no completion is refused, as rxe refuses it): pinned into *ring.
 */
static int snic_cq_user_ring(struct snic_dev *sdev, u64 buf_va, u32 buf_len,
			     u8 log2_depth, const u8 *reserved, int cqe,
			     struct snic_queue *ring)
{
	if (memchr_inv(reserved, 0, 3) ||
	    log2_depth < 2 || log2_depth > 30 ||
	    (1ull << log2_depth) > le32_to_cpu(sdev->attr.max_cqe) ||
	    cqe < 1 || (1u << log2_depth) <= cqe ||
	    buf_len != (u64)SNIC_CQE_SIZE << log2_depth) {
		ibdev_dbg(&sdev->ibdev, "CQ of %d CQEs in a ring of log2 %u, %u bytes refused\n",
			  cqe, log2_depth, buf_len);
		return -EINVAL;
	}
	return snic_queue_get_user(sdev, buf_va, buf_len, ring);
}

/* A user CQ's ring, described by the provider's command. */
static int snic_cq_user_create(struct snic_dev *sdev, struct snic_cq *cq,
			       const struct ib_cq_init_attr *attr,
			       struct ib_udata *udata, u16 *ctx)
{
	struct snic_ib_create_cq ucmd = {};
	struct snic_ucontext *uc;
	int err;

	err = snic_udata_cmd(udata, &ucmd, sizeof(ucmd),
			     offsetofend(typeof(ucmd), log2_depth));
	if (err)
		return err;
	err = snic_cq_user_ring(sdev, ucmd.buf_va, ucmd.buf_len,
				ucmd.log2_depth, ucmd.reserved, attr->cqe,
				&cq->ring);
	if (err)
		return err;
	uc = rdma_udata_to_drv_context(udata, struct snic_ucontext, ibucontext);
	*ctx = uc->db_page;
	cq->log2_depth = ucmd.log2_depth;
	return 0;
}

/*
 * A kernel CQ's ring: twice the CQEs asked for, so that the consumer index
 * the device sees may lag a quarter ring behind (see snic_poll_cq()).
 */
static int snic_cq_kernel_ring(struct snic_dev *sdev, struct snic_cq *cq,
			       const struct ib_cq_init_attr *attr)
{
	u64 depth = roundup_pow_of_two(max(2ull * (attr->cqe + 1), 4ull));

	if (depth > le32_to_cpu(sdev->attr.max_cqe))
		return -EINVAL;
	cq->log2_depth = ilog2(depth);
	return snic_queue_alloc(sdev, SNIC_CQE_SIZE << cq->log2_depth,
				&cq->ring);
}

/*
 * Destroy the device CQ, then free its ring unless the device may still
 * write it (snic_com_destroyed()). Create's unwinding and destroy.
 */
static void snic_cq_release(struct snic_dev *sdev, struct snic_cq *cq)
{
	if (snic_com_destroyed(sdev, snic_com_destroy_cq(sdev, cq->cqn), "CQ",
			       cq->cqn))
		snic_queue_put(sdev, &cq->ring);
}

int snic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibcq->device);
	struct snic_ib_create_cq_resp resp = {};
	struct snic_cq *cq = to_scq(ibcq);
	struct snic_com_create_cq_params params = {
		.ring = &cq->ring,
		.ctx = SNIC_DB_KERNEL_PAGE,
	};
	struct snic_eq *eq;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_lock);
	if (udata)
		err = snic_cq_user_create(sdev, cq, attr, udata, &params.ctx);
	else
		err = snic_cq_kernel_ring(sdev, cq, attr);
	if (err)
		return err;

	eq = &sdev->eqs[attr->comp_vector % sdev->ibdev.num_comp_vectors];
	params.log2_depth = cq->log2_depth;
	params.eqn = eq->eqn;
	err = snic_com_create_cq(sdev, &params, &cq->cqn);
	if (err)
		goto err_ring;
	cq->eq = eq;
	ibcq->cqe = (1u << cq->log2_depth) / 2 - 1;

	/* A handle the device gave twice must not replace a live CQ */
	err = xa_insert(&sdev->cq_xa, cq->cqn, ibcq, GFP_KERNEL);
	if (err)
		goto err_destroy;
	if (!udata)
		return 0;
	resp.cqn = cq->cqn;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase(&sdev->cq_xa, cq->cqn);
err_destroy:
	snic_cq_release(sdev, cq);
	return err;
err_ring:
	snic_queue_put(sdev, &cq->ring);
	return err;
}

int snic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibcq->device);
	struct snic_cq *cq = to_scq(ibcq);

	xa_erase(&sdev->cq_xa, cq->cqn);
	/* An EQ or AEQ handler that found this CQ has finished with it */
	synchronize_irq(pci_irq_vector(sdev->pdev, cq->eq->vector));
	synchronize_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN));
	snic_cq_release(sdev, cq);
	return 0;
}

static struct snic_cqe *snic_cq_peek(struct snic_cq *cq)
{
	return snic_ring_next((struct snic_cqe *)cq->ring.buf, cq->cons,
			      cq->log2_depth);
}

/* Completion op-codes are IB_WC_* numbers */
static_assert((int)IB_WC_LOCAL_INV == (int)SNIC_WC_LOCAL_INV &&
	      (int)IB_WC_REG_MR == (int)SNIC_WC_REG_MR &&
	      (int)IB_WC_RECV == (int)SNIC_WC_RECV);

/*
 * One CQE into an ib_wc; false if its QP is gone (destroyed meanwhile) or
 * is not a kernel QP of this CQ (only those have kernel queues to free).
 */
static bool snic_cqe_to_wc(struct snic_dev *sdev, struct snic_cq *cq,
			   const struct snic_cqe *cqe, struct ib_wc *wc)
{
	struct ib_qp *ibqp = xa_load(&sdev->qp_xa, le32_to_cpu(cqe->qpn));
	struct snic_qp *qp;

	if (!ibqp || ibqp->uobject ||
	    (cqe->opcode & SNIC_WC_RECV ? ibqp->recv_cq : ibqp->send_cq) !=
	    &cq->ibcq)
		return false;
	qp = to_sqp(ibqp);
	/*
	 * Every slot up to this WQE is free again (an SRQ's too: the device
	 * takes its WQEs in ring order, copying each)
	 */
	if (!(cqe->opcode & SNIC_WC_RECV))
		snic_kwq_complete(&qp->ksq, le16_to_cpu(cqe->wqe_index));
	else if (ibqp->srq)
		snic_srq_complete(to_ssrq(ibqp->srq),
				  le16_to_cpu(cqe->wqe_index));
	else
		snic_kwq_complete(&qp->krq, le16_to_cpu(cqe->wqe_index));

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64_to_cpu(cqe->wr_id);
	wc->status = cqe->status;	/* IB_WC_* numbers */
	wc->opcode = cqe->opcode;
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->qp = ibqp;
	wc->src_qp = le32_to_cpu(cqe->src_qp);
	wc->port_num = 1;
	if (cqe->wc_flags & SNIC_WC_F_IMM) {
		wc->ex.imm_data = cqe->imm;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (cqe->wc_flags & SNIC_WC_F_INV) {
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->imm);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (cqe->wc_flags & SNIC_WC_F_GRH) {
		/* ib_init_ah_attr_from_wc() reads the header type */
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = cqe->wc_flags & SNIC_WC_F_IPV6 ?
				       RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4;
	}
	return true;
}

int snic_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct snic_dev *sdev = to_sdev(ibcq->device);
	struct snic_cq *cq = to_scq(ibcq);
	u32 depth = 1u << cq->log2_depth;
	struct snic_cqe *cqe;
	unsigned long flags;
	int n = 0;

	if (!cq->ring.buf)	/* a user CQ: libsnic polls it */
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && (cqe = snic_cq_peek(cq))) {
		cq->cons++;
		if (snic_cqe_to_wc(sdev, cq, cqe, &wc[n]))
			n++;
	}
	/* The device may use what we consumed once it knows */
	if (cq->cons - cq->reported >= depth / 4) {
		cq->reported = cq->cons;
		snic_ring_db(sdev, SNIC_DB_CQ, cq->cqn, cq->cons);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * Forget a destroyed kernel QP's CQEs not yet polled: they keep their
 * slots (the device's view of the ring does not change) but name no QP,
 * so snic_cqe_to_wc() drops them. The SRQ WQEs its receive CQEs name
 * were taken: their slots are free again. Takes the CQ's lock.
 */
void snic_cq_clean(struct snic_cq *cq, struct snic_qp *qp)
{
	struct ib_srq *srq = qp->ibqp.srq;
	struct snic_cqe *cqe;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&cq->lock, flags);
	for (i = cq->cons; (cqe = snic_ring_next((struct snic_cqe *)cq->ring.buf,
						  i, cq->log2_depth)); i++) {
		if (le32_to_cpu(cqe->qpn) != qp->qpn)
			continue;
		if (srq && cqe->opcode & SNIC_WC_RECV)
			snic_srq_complete(to_ssrq(srq),
					  le16_to_cpu(cqe->wqe_index));
		cqe->qpn = cpu_to_le32(0);	/* no QP has number 0 */
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

int snic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct snic_dev *sdev = to_sdev(ibcq->device);
	struct snic_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int missed = 0;
	u8 type;

	if (!cq->ring.buf)
		return -EOPNOTSUPP;
	type = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	       SNIC_DB_CQ_ARM_SOL : SNIC_DB_CQ_ARM;
	spin_lock_irqsave(&cq->lock, irqflags);
	/* Arming with CQEs pending raises the event at once (device rule) */
	cq->reported = cq->cons;
	snic_ring_db(sdev, type, cq->cqn, cq->cons);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS && snic_cq_peek(cq))
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/*
 * RESIZE_CQ of a user CQ: the provider's new ring is pinned, the device
 * continues in it at index 0 and answers where the old ring's CQEs end;
 * the provider polls the old ring up to there (its copy of the ring stays
 * mapped in the process) and the kernel lets go of the old pages. Kernel
 * CQs keep their size.
 */
int snic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibcq->device);
	struct snic_ib_resize_cq_resp resp = {};
	struct snic_cq *cq = to_scq(ibcq);
	struct snic_ib_resize_cq ucmd = {};
	struct snic_queue ring = {}, old;
	u32 old_tail;
	int err;

	if (!udata)
		return -EOPNOTSUPP;
	err = snic_udata_cmd(udata, &ucmd, sizeof(ucmd),
			     offsetofend(typeof(ucmd), log2_depth));
	if (err)
		return err;
	err = snic_cq_user_ring(sdev, ucmd.buf_va, ucmd.buf_len,
				ucmd.log2_depth, ucmd.reserved, cqe, &ring);
	if (err)
		return err;

	mutex_lock(&cq->resize_lock);
	err = snic_com_resize_cq(sdev, cq->cqn, &ring, ucmd.log2_depth,
				 &old_tail);
	if (err) {
		/* the device kept the old ring (or, dead, uses neither) */
		mutex_unlock(&cq->resize_lock);
		snic_queue_put(sdev, &ring);
		return err;
	}
	old = cq->ring;
	cq->ring = ring;
	cq->log2_depth = ucmd.log2_depth;
	ibcq->cqe = (1u << cq->log2_depth) / 2 - 1;
	mutex_unlock(&cq->resize_lock);
	snic_queue_put(sdev, &old);

	resp.old_tail = old_tail;
	return ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
}

/* Moderation of the CQ's completion events (SNIC_CAP_CQ_MODERATION) */
int snic_modify_cq(struct ib_cq *ibcq, u16 count, u16 period)
{
	struct snic_dev *sdev = to_sdev(ibcq->device);
	u16 max = le16_to_cpu(sdev->attr.max_cq_moderation);

	if (count > max || period > max)
		return -EINVAL;
	return snic_com_modify_cq(sdev, to_scq(ibcq)->cqn, count, period);
}
