// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic queue pairs and address handles.
 *
 * User QPs (RC, UD) keep their send and receive rings in the provider's
 * memory; the kernel pins them and creates the device QP on the context's
 * doorbell page. Modify and query pass struct snic_qp_attr through DMA
 * memory; the device judges state transitions by the same table as
 * ib_modify_qp_is_ok(). The device keeps no GID table: the address
 * vector (source and destination IP, destination MAC) is resolved here
 * from the core's GID attributes and handed over whole, in MODIFY_QP for
 * connected QPs and in every UD WQE (the AH's, returned to the provider).
 */
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"

/* The IB_QP_* bits the device understands (same numbers as SNIC_QP_ATTR_*) */
#define SNIC_QP_ATTR_MASK	(IB_QP_STATE | IB_QP_CUR_STATE | \
				 IB_QP_EN_SQD_ASYNC_NOTIFY | \
				 IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | \
				 IB_QP_PORT | IB_QP_QKEY | IB_QP_AV | \
				 IB_QP_PATH_MTU | IB_QP_TIMEOUT | \
				 IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
				 IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC | \
				 IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | \
				 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_DEST_QPN)

static_assert(IB_QP_DEST_QPN == SNIC_QP_ATTR_DEST_QPN);
static_assert((int)IB_QPS_ERR == (int)SNIC_QPS_ERR);
static_assert((int)IB_QPT_GSI == (int)SNIC_QPT_GSI &&
	      (int)IB_QPT_RC == (int)SNIC_QPT_RC &&
	      (int)IB_QPT_UC == (int)SNIC_QPT_UC &&
	      (int)IB_QPT_UD == (int)SNIC_QPT_UD);
static_assert(IB_ACCESS_REMOTE_ATOMIC == SNIC_ACCESS_REMOTE_ATOMIC);

static void snic_kwq_reset(struct snic_kwq *wq)
{
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	wq->prod = 0;
	wq->cons = 0;
	spin_unlock_irqrestore(&wq->lock, flags);
}

/* The RoCEv2 path of an AH attribute, as the device builds frames. */
static int snic_av_from_ah_attr(struct snic_av *av,
				const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;

	/* RoCE always carries a GRH; the core resolved the source GID */
	u16 vlan_id = 0xffff;
	u8 smac[ETH_ALEN];

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) || !sgid_attr ||
	    sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	/* The core also lists VLAN uppers' addresses; frames go untagged */
	if (rdma_read_gid_l2_fields(sgid_attr, &vlan_id, smac) ||
	    vlan_id < VLAN_CFI_MASK)
		return -EOPNOTSUPP;
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->sgid, sgid_attr->gid.raw, sizeof(av->sgid));
	memcpy(av->dmac, ah->roce.dmac, ETH_ALEN);
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	/*
	 * A flow label is 20 bits; consumers may set the ones above (UCX
	 * sets all 32), which the core's UDP source port ignores too
	 */
	av->flow_label = cpu_to_le32(grh->flow_label & IB_GRH_FLOWLABEL_MASK);
	if (rdma_gid_attr_network_type(sgid_attr) == RDMA_NETWORK_IPV6)
		av->flags = SNIC_AV_IPV6;
	else if (!ipv6_addr_v4mapped((const struct in6_addr *)av->dgid))
		return -EINVAL;		/* an IPv4 source needs an IPv4 peer */
	return 0;
}

/* A work queue ring of 2^log2 WQEs of wqe_size holding max_wr, len bytes */
static bool snic_wq_ring_ok(struct snic_dev *sdev, u8 log2, u32 len,
			    u32 wqe_size, u32 max_wr)
{
	return log2 >= 2 && log2 <= 30 &&
	       (1u << log2) <= le32_to_cpu(sdev->attr.max_qp_wr) &&
	       (1u << log2) >= max_wr && len == (u64)wqe_size << log2;
}

/*
 * The caps of a QP against the device's, and what the QP really holds.
 * Every send WQE has room for the device's inline data; a QP on an SRQ
 * has no receive queue.
 */
static int snic_qp_fix_caps(struct snic_dev *sdev, struct ib_qp_cap *cap,
			    bool srq)
{
	if (cap->max_send_sge > sdev->attr.max_send_sge ||
	    cap->max_inline_data > snic_max_inline(sdev) ||
	    (!srq && cap->max_recv_sge > sdev->attr.max_recv_sge))
		return -EINVAL;
	cap->max_send_sge = sdev->attr.max_send_sge;
	cap->max_inline_data = snic_max_inline(sdev);
	cap->max_recv_sge = srq ? 0 : sdev->attr.max_recv_sge;
	if (srq)
		cap->max_recv_wr = 0;
	return 0;
}

static int snic_qp_check_caps(struct snic_dev *sdev, struct ib_qp_cap *cap,
			      const struct snic_ib_create_qp *ucmd, bool srq)
{
	int err;

	if (memchr_inv(ucmd->reserved, 0, sizeof(ucmd->reserved)) ||
	    !snic_wq_ring_ok(sdev, ucmd->sq_log2_depth, ucmd->sq_buf_len,
			     SNIC_SQ_WQE_SIZE, cap->max_send_wr))
		return -EINVAL;
	if (srq ? ucmd->rq_buf_va || ucmd->rq_buf_len ||
		  ucmd->rq_log2_depth :
		  !snic_wq_ring_ok(sdev, ucmd->rq_log2_depth, ucmd->rq_buf_len,
				   SNIC_RQ_WQE_SIZE, cap->max_recv_wr))
		return -EINVAL;
	err = snic_qp_fix_caps(sdev, cap, srq);
	if (err)
		return err;
	cap->max_send_wr = 1u << ucmd->sq_log2_depth;
	if (!srq)
		cap->max_recv_wr = 1u << ucmd->rq_log2_depth;
	return 0;
}

/* A user QP's rings, described by the provider's command. */
static int snic_qp_user_rings(struct snic_dev *sdev, struct snic_qp *qp,
			      struct ib_qp_init_attr *init_attr,
			      struct ib_udata *udata, u8 *log2, u16 *ctx)
{
	struct snic_ib_create_qp ucmd = {};
	struct snic_ucontext *uc;
	int err;

	if (init_attr->qp_type == IB_QPT_GSI)
		return -EOPNOTSUPP;	/* QP1 is the kernel's */
	err = snic_udata_cmd(udata, &ucmd, sizeof(ucmd),
			     offsetofend(typeof(ucmd), rq_log2_depth));
	if (err)
		return err;
	err = snic_qp_check_caps(sdev, &init_attr->cap, &ucmd,
				 !!init_attr->srq);
	if (err) {
		ibdev_dbg(&sdev->ibdev,
			  "create_qp: caps wr %u/%u sge %u/%u inline %u vs ring log2 %u/%u len %u/%u refused\n",
			  init_attr->cap.max_send_wr, init_attr->cap.max_recv_wr,
			  init_attr->cap.max_send_sge,
			  init_attr->cap.max_recv_sge,
			  init_attr->cap.max_inline_data, ucmd.sq_log2_depth,
			  ucmd.rq_log2_depth, ucmd.sq_buf_len, ucmd.rq_buf_len);
		return err;
	}
	uc = rdma_udata_to_drv_context(udata, struct snic_ucontext, ibucontext);
	*ctx = uc->db_page;
	log2[0] = ucmd.sq_log2_depth;
	log2[1] = ucmd.rq_log2_depth;
	err = snic_queue_get_user(sdev, ucmd.sq_buf_va, ucmd.sq_buf_len,
				  &qp->sq);
	if (err || init_attr->srq)
		return err;
	err = snic_queue_get_user(sdev, ucmd.rq_buf_va, ucmd.rq_buf_len,
				  &qp->rq);
	if (err)
		snic_queue_put(sdev, &qp->sq);
	return err;
}

static u8 snic_wq_log2(u32 wr)
{
	return ilog2(roundup_pow_of_two(max(wr, 4u)));
}

/* A kernel QP's rings (the MAD layer's GSI QP, rdma_cm's, ULPs'). */
static int snic_qp_kernel_rings(struct snic_dev *sdev, struct snic_qp *qp,
				struct ib_qp_init_attr *init_attr, u8 *log2)
{
	struct ib_qp_cap *cap = &init_attr->cap;
	u32 max_wr = le32_to_cpu(sdev->attr.max_qp_wr);
	bool srq = !!init_attr->srq;
	int err;

	if (cap->max_send_wr > max_wr || (!srq && cap->max_recv_wr > max_wr))
		return -EINVAL;
	err = snic_qp_fix_caps(sdev, cap, srq);
	if (err)
		return err;
	log2[0] = snic_wq_log2(cap->max_send_wr);
	log2[1] = srq ? 0 : snic_wq_log2(cap->max_recv_wr);
	cap->max_send_wr = 1u << log2[0];
	if (!srq)
		cap->max_recv_wr = 1u << log2[1];
	spin_lock_init(&qp->ksq.lock);
	spin_lock_init(&qp->krq.lock);
	qp->ksq.log2_depth = log2[0];
	qp->krq.log2_depth = log2[1];
	err = snic_queue_alloc(sdev, SNIC_SQ_WQE_SIZE << log2[0], &qp->sq);
	if (err || srq)
		return err;
	err = snic_queue_alloc(sdev, SNIC_RQ_WQE_SIZE << log2[1], &qp->rq);
	if (err)
		snic_queue_put(sdev, &qp->sq);
	return err;
}

/* The QP's host memory (rings, RDB), once the device no longer uses it. */
static void snic_qp_put_rings(struct snic_dev *sdev, struct snic_qp *qp)
{
	if (qp->rdb)
		dma_free_coherent(&sdev->pdev->dev, SNIC_RDB_BYTES, qp->rdb,
				  qp->rdb_dma);
	qp->rdb = NULL;
	snic_queue_put(sdev, &qp->rq);
	snic_queue_put(sdev, &qp->sq);
}

/*
 * Destroy the device QP, then free its rings (and SRNIC's RetryQ, sr)
 * unless the device may still use them (snic_com_destroyed()). Create's
 * unwinding and destroy.
 */
static void snic_qp_release(struct snic_dev *sdev, struct snic_qp *qp,
			    struct snic_sr_qp *sr)
{
	if (snic_com_destroyed(sdev, snic_com_destroy_qp(sdev, qp->qpn), "QP",
			       qp->qpn)) {
		snic_qp_put_rings(sdev, qp);
		snic_sr_qp_put(sdev, sr);
	}
}

int snic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibqp->device);
	struct snic_ib_create_qp_resp resp = {};
	struct snic_qp *qp = to_sqp(ibqp);
	struct snic_com_create_qp_params params = {
		.sq = &qp->sq,
		.rq = &qp->rq,
		.ctx = SNIC_DB_KERNEL_PAGE,
	};
	u8 log2[2];
	int err;

	if ((init_attr->qp_type != IB_QPT_RC &&
	     init_attr->qp_type != IB_QPT_UD &&
	     init_attr->qp_type != IB_QPT_GSI &&
	     (init_attr->qp_type != IB_QPT_UC ||
	      !snic_has(sdev, SNIC_CAP_UC))) ||
	    init_attr->create_flags)
		return -EOPNOTSUPP;
	/* QP1 (the MAD layer's) has its own receive queue */
	if (init_attr->srq && init_attr->qp_type == IB_QPT_GSI)
		return -EINVAL;
	if (udata)
		err = snic_qp_user_rings(sdev, qp, init_attr, udata, log2,
					 &params.ctx);
	else
		err = snic_qp_kernel_rings(sdev, qp, init_attr, log2);
	if (err)
		return err;
	qp->sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;

	params.pdn = to_spd(ibqp->pd)->pdn;
	params.send_cqn = to_scq(init_attr->send_cq)->cqn;
	params.recv_cqn = to_scq(init_attr->recv_cq)->cqn;
	params.type = init_attr->qp_type;
	params.sq_log2_depth = log2[0];
	params.rq_log2_depth = log2[1];
	if (init_attr->srq)
		params.srqn = to_ssrq(init_attr->srq)->srqn;
	/*
	 * An RC responder keeps its READ/atomic resources in host memory, as
	 * mlx5 does its RDB; coherent memory is page aligned, so within one
	 * page as the device requires.
	 */
	if (init_attr->qp_type == IB_QPT_RC) {
		BUILD_BUG_ON(SNIC_RDB_BYTES > PAGE_SIZE);
		qp->rdb = dma_alloc_coherent(&sdev->pdev->dev, SNIC_RDB_BYTES,
					     &qp->rdb_dma, GFP_KERNEL);
		if (!qp->rdb) {
			err = -ENOMEM;
			goto err_rings;
		}
		params.rdb = qp->rdb_dma;
	}
	err = snic_com_create_qp(sdev, &params, &qp->qpn);
	if (err)
		goto err_rings;
	qp->cap = init_attr->cap;
	ibqp->qp_num = qp->qpn;

	/* A handle the device gave twice must not replace a live QP */
	err = xa_insert(&sdev->qp_xa, qp->qpn, ibqp, GFP_KERNEL);
	if (err)
		goto err_destroy;
	if (!udata)
		return 0;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase(&sdev->qp_xa, qp->qpn);
err_destroy:
	snic_qp_release(sdev, qp, NULL);
	return err;
err_rings:
	snic_qp_put_rings(sdev, qp);
	return err;
}

int snic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibqp->device);
	struct snic_qp_attr a = {};
	int err;

	if (mask & ~SNIC_QP_ATTR_MASK)
		return -EOPNOTSUPP;
	err = snic_udata_cmd(udata, NULL, 0, 0);
	if (err)
		return err;
	/*
	 * IBA controlled Q_Keys (high bit set, e.g. QP1's 0x80010000) are for
	 * privileged consumers: an ordinary process must not send CM MADs.
	 */
	if (udata && mask & IB_QP_QKEY && attr->qkey & 0x80000000 &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC &&
	     attr->max_rd_atomic > sdev->attr.max_rd_atomic) ||
	    (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	     attr->max_dest_rd_atomic > sdev->attr.max_rd_atomic))
		return -EINVAL;

	if (mask & IB_QP_AV) {
		err = snic_av_from_ah_attr(&a.av, &attr->ah_attr);
		if (err)
			return err;
	}
	a.qp_state = cpu_to_le32(attr->qp_state);
	a.cur_qp_state = cpu_to_le32(attr->cur_qp_state);
	a.path_mtu = cpu_to_le32(attr->path_mtu);
	a.qkey = cpu_to_le32(attr->qkey);
	a.rq_psn = cpu_to_le32(attr->rq_psn);
	a.sq_psn = cpu_to_le32(attr->sq_psn);
	a.dest_qp_num = cpu_to_le32(attr->dest_qp_num);
	a.qp_access_flags = cpu_to_le32(attr->qp_access_flags);
	a.pkey_index = cpu_to_le16(attr->pkey_index);
	a.port_num = attr->port_num;
	a.timeout = attr->timeout;
	a.retry_cnt = attr->retry_cnt;
	a.rnr_retry = attr->rnr_retry;
	a.min_rnr_timer = attr->min_rnr_timer;
	a.max_rd_atomic = attr->max_rd_atomic;
	a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	a.en_sqd_async_notify = attr->en_sqd_async_notify;

	err = snic_com_modify_qp(sdev, to_sqp(ibqp)->qpn, mask, &a);
	if (!err && mask & IB_QP_AV) {
		to_sqp(ibqp)->sgid_index = rdma_ah_read_grh(&attr->ah_attr)->sgid_index;
		to_sqp(ibqp)->av_set = true;
	}
	/*
	 * RESET empties the device's queues and restarts their indices; the
	 * QP is back on go-back-N, its SRNIC RetryQ forgotten
	 */
	if (!err && mask & IB_QP_STATE && attr->qp_state == IB_QPS_RESET) {
		snic_sr_qp_put(sdev, snic_sr_qp_take(sdev, to_sqp(ibqp)->qpn));
		if (!ibqp->uobject) {
			snic_kwq_reset(&to_sqp(ibqp)->ksq);
			snic_kwq_reset(&to_sqp(ibqp)->krq);
		}
	}
	return err;
}

int snic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr)
{
	struct snic_dev *sdev = to_sdev(ibqp->device);
	struct snic_qp *qp = to_sqp(ibqp);
	struct snic_qp_attr a;
	int err;

	err = snic_com_query_qp(sdev, qp->qpn, &a);
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = le32_to_cpu(a.qp_state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = le32_to_cpu(a.path_mtu);
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = le32_to_cpu(a.qkey);
	attr->rq_psn = le32_to_cpu(a.rq_psn);
	attr->sq_psn = le32_to_cpu(a.sq_psn);
	attr->dest_qp_num = le32_to_cpu(a.dest_qp_num);
	attr->qp_access_flags = le32_to_cpu(a.qp_access_flags);
	attr->pkey_index = le16_to_cpu(a.pkey_index);
	attr->port_num = a.port_num;
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	attr->en_sqd_async_notify = a.en_sqd_async_notify;
	attr->cap = qp->cap;
	/* The path as the device holds it (what a later modify may re-use) */
	if (qp->av_set) {
		attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&attr->ah_attr, 1);
		rdma_ah_set_grh(&attr->ah_attr, (union ib_gid *)a.av.dgid,
				le32_to_cpu(a.av.flow_label), qp->sgid_index,
				a.av.hop_limit, a.av.traffic_class);
		memcpy(attr->ah_attr.roce.dmac, a.av.dmac, ETH_ALEN);
	}

	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_type = ibqp->qp_type;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = qp->cap;
	init_attr->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR :
					      IB_SIGNAL_REQ_WR;
	return 0;
}

int snic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibqp->device);
	struct snic_qp *qp = to_sqp(ibqp);
	/* The CtrlQ's handler posts no more for it (its late entries: stale) */
	struct snic_sr_qp *sr = snic_sr_qp_take(sdev, qp->qpn);

	if (ibqp->uobject) {
		xa_erase(&sdev->qp_xa, qp->qpn);	/* libsnic cleans its CQs */
	} else {
		/*
		 * As mlx4: the QP goes to RESET, so the device writes no more
		 * of its CQEs; those not yet polled are cleaned from its CQs,
		 * else a QP that later takes its number would be handed them.
		 * snic_poll_cq() looks QPs up and uses them under its CQ's
		 * lock: after the erase and the cleaning under each lock, none
		 * holds this one. One lock at a time: two QPs whose send and
		 * receive CQs are crossed must not take them in opposite orders.
		 */
		struct snic_qp_attr reset = {
			.qp_state = cpu_to_le32(SNIC_QPS_RESET),
		};

		snic_com_modify_qp(sdev, qp->qpn, SNIC_QP_ATTR_STATE, &reset);
		xa_erase(&sdev->qp_xa, qp->qpn);
		snic_cq_clean(to_scq(ibqp->send_cq), qp);
		if (ibqp->recv_cq != ibqp->send_cq)
			snic_cq_clean(to_scq(ibqp->recv_cq), qp);
	}
	/* An async event handler that found this QP has finished with it */
	synchronize_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN));
	snic_qp_release(sdev, qp, sr);
	return 0;
}

/*
 * AHs are software only: no admin command, so creation never sleeps and
 * kernel callers in atomic context are served too.
 */
int snic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct snic_ib_create_ah_resp resp = {};
	struct snic_ah *ah = to_sah(ibah);
	int err;

	BUILD_BUG_ON(sizeof(resp.av) != sizeof(ah->av));
	err = snic_av_from_ah_attr(&ah->av, init_attr->ah_attr);
	if (err)
		return err;
	if (!udata)
		return 0;
	memcpy(resp.av, &ah->av, sizeof(resp.av));
	return ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
}

int snic_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

/*
 * A CQE for WQE wqe_index (its producer index modulo 2^16) completes every
 * WQE up to it: unsignaled sends before it completed silently. Indices
 * outside the outstanding window (a stale CQE) change nothing.
 */
void snic_kwq_complete(struct snic_kwq *wq, u16 wqe_index)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&wq->lock, flags);
	n = (u16)(wqe_index - (u16)wq->cons) + 1;
	if (n <= wq->prod - wq->cons)
		wq->cons += n;
	spin_unlock_irqrestore(&wq->lock, flags);
}

static void snic_fill_sges(struct snic_sge *dst, const struct ib_sge *sg,
			   int n)
{
	int i;

	for (i = 0; i < n; i++) {
		dst[i].addr = cpu_to_le64(sg[i].addr);
		dst[i].length = cpu_to_le32(sg[i].length);
		dst[i].lkey = cpu_to_le32(sg[i].lkey);
	}
}

/*
 * The IB_WR_* numbers the device shares; IB_WR_REG_MR (0x20) it has as
 * SNIC_WR_REG_MR (it has no LSO, ...)
 */
static_assert((int)IB_WR_RDMA_WRITE == (int)SNIC_WR_RDMA_WRITE &&
	      (int)IB_WR_RDMA_WRITE_WITH_IMM == (int)SNIC_WR_RDMA_WRITE_IMM &&
	      (int)IB_WR_SEND == (int)SNIC_WR_SEND &&
	      (int)IB_WR_SEND_WITH_IMM == (int)SNIC_WR_SEND_IMM &&
	      (int)IB_WR_RDMA_READ == (int)SNIC_WR_RDMA_READ &&
	      (int)IB_WR_ATOMIC_CMP_AND_SWP == (int)SNIC_WR_ATOMIC_CMP_SWAP &&
	      (int)IB_WR_ATOMIC_FETCH_AND_ADD == (int)SNIC_WR_ATOMIC_FETCH_ADD &&
	      (int)IB_WR_LOCAL_INV == (int)SNIC_WR_LOCAL_INV &&
	      (int)IB_WR_SEND_WITH_INV == (int)SNIC_WR_SEND_INV);

#define SNIC_KOPS_SEND	(BIT(IB_WR_SEND) | BIT(IB_WR_SEND_WITH_IMM))
#define SNIC_KOPS_WRITE	(BIT(IB_WR_RDMA_WRITE) | BIT(IB_WR_RDMA_WRITE_WITH_IMM))
#define SNIC_KOPS_RC	(SNIC_KOPS_SEND | SNIC_KOPS_WRITE | \
			 BIT(IB_WR_RDMA_READ) | BIT(IB_WR_ATOMIC_CMP_AND_SWP) | \
			 BIT(IB_WR_ATOMIC_FETCH_AND_ADD))
/*
 * Invalidation of memory window R_Keys (SNIC_CAP_MW) and FRWR MR keys
 * (SNIC_CAP_FRWR): RC; UC local only
 */
#define SNIC_KOPS_INV	(BIT(IB_WR_LOCAL_INV) | BIT(IB_WR_SEND_WITH_INV))

/* Does a kernel QP take this work request? */
static bool snic_kqp_takes(struct snic_qp *qp, enum ib_wr_opcode op)
{
	struct snic_dev *sdev = to_sdev(qp->ibqp.device);
	bool inv = snic_has(sdev, SNIC_CAP_MW) || snic_has(sdev, SNIC_CAP_FRWR);
	u32 ops;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		ops = SNIC_KOPS_RC | (inv ? SNIC_KOPS_INV : 0);
		break;
	case IB_QPT_UC:
		ops = SNIC_KOPS_SEND | SNIC_KOPS_WRITE |
		      (inv ? BIT(IB_WR_LOCAL_INV) : 0);
		break;
	default:
		return op < 32 && SNIC_KOPS_SEND & BIT(op);
	}
	if (op == IB_WR_REG_MR)
		return snic_has(sdev, SNIC_CAP_FRWR);
	return op < 32 && ops & BIT(op);
}

/*
 * IB_WR_REG_MR: what map_mr_sg() left in the MR (its page list, iova,
 * length, page size) under the key the consumer gave it; the device knows
 * the MR by the key of its last registration and judges the rest.
 */
static void snic_set_reg_wqe(struct snic_sq_wqe *w, const struct ib_reg_wr *wr)
{
	struct snic_mr *mr = to_smr(wr->mr);

	w->opcode = SNIC_WR_REG_MR;
	w->reg.iova = cpu_to_le64(mr->ibmr.iova);
	w->reg.length = cpu_to_le64(mr->ibmr.length);
	w->reg.pbl_addr = cpu_to_le64(mr->pbl_dma);
	w->reg.mr_key = cpu_to_le32(mr->hw_key);
	w->reg.new_key = cpu_to_le32(wr->key);
	w->reg.npages = cpu_to_le32(mr->npages);
	/* IB_ACCESS_* numbers; optional bits (relaxed ordering) may go */
	w->reg.access = cpu_to_le32(wr->access & ~IB_ACCESS_OPTIONAL);
	w->reg.page_shift = ilog2(mr->ibmr.page_size);
	mr->hw_key = wr->key;
}

/* IB_SEND_INLINE: the payload (kernel virtual addresses) into the WQE */
static int snic_copy_inline(struct snic_qp *qp, struct snic_sq_wqe *w,
			    const struct ib_send_wr *wr)
{
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > qp->cap.max_inline_data - len)
			return -EINVAL;
		memcpy(w->inline_data + len,
		       (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	w->flags |= SNIC_WQE_INLINE;
	w->inline_len = len;
	return 0;
}

static int snic_build_send_wqe(struct snic_qp *qp, struct snic_sq_wqe *w,
			       const struct ib_send_wr *wr)
{
	bool datagram = qp->ibqp.qp_type == IB_QPT_UD ||
			qp->ibqp.qp_type == IB_QPT_GSI;
	bool inl = wr->send_flags & IB_SEND_INLINE;

	if (!snic_kqp_takes(qp, wr->opcode) || wr->num_sge < 0 ||
	    wr->num_sge > (inl ? SNIC_SQ_WQE_MAX_SGE : qp->cap.max_send_sge))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->wr_id = cpu_to_le64(wr->wr_id);
	w->opcode = wr->opcode;		/* same numbers (asserted above) */
	if (wr->send_flags & IB_SEND_SIGNALED || qp->sig_all)
		w->flags |= SNIC_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		w->flags |= SNIC_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		w->flags |= SNIC_WQE_FENCE;
	if (wr->opcode == IB_WR_LOCAL_INV ||
	    wr->opcode == IB_WR_SEND_WITH_INV)
		w->imm = cpu_to_be32(wr->ex.invalidate_rkey);
	else
		w->imm = wr->ex.imm_data;	/* big-endian as sent */
	if (wr->opcode == IB_WR_LOCAL_INV)
		return 0;
	if (wr->opcode == IB_WR_REG_MR) {
		snic_set_reg_wqe(w, reg_wr(wr));
		return 0;
	}
	if (datagram) {
		if (!ud_wr(wr)->ah)
			return -EINVAL;
		w->ud.av = to_sah(ud_wr(wr)->ah)->av;
		w->ud.remote_qpn = cpu_to_le32(ud_wr(wr)->remote_qpn);
		w->ud.remote_qkey = cpu_to_le32(ud_wr(wr)->remote_qkey);
	} else if (wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
		   wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		w->rdma.remote_addr = cpu_to_le64(atomic_wr(wr)->remote_addr);
		w->rdma.rkey = cpu_to_le32(atomic_wr(wr)->rkey);
		w->rdma.compare_add = cpu_to_le64(atomic_wr(wr)->compare_add);
		w->rdma.swap = cpu_to_le64(atomic_wr(wr)->swap);
	} else if (SNIC_KOPS_WRITE & BIT(wr->opcode) ||
		   wr->opcode == IB_WR_RDMA_READ) {
		w->rdma.remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		w->rdma.rkey = cpu_to_le32(rdma_wr(wr)->rkey);
	}
	/* Inline data where the WR carries a payload of its own */
	if (inl && (SNIC_KOPS_SEND & BIT(wr->opcode) ||
		    SNIC_KOPS_WRITE & BIT(wr->opcode) ||
		    wr->opcode == IB_WR_SEND_WITH_INV))
		return snic_copy_inline(qp, w, wr);
	if (wr->num_sge > qp->cap.max_send_sge)
		return -EINVAL;
	w->num_sge = wr->num_sge;
	snic_fill_sges(w->sge, wr->sg_list, wr->num_sge);
	return 0;
}

/* A receive WQE (QP or SRQ); num_sge was checked */
void snic_set_rq_wqe(struct snic_rq_wqe *w, const struct ib_recv_wr *wr)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = cpu_to_le64(wr->wr_id);
	w->num_sge = wr->num_sge;
	snic_fill_sges(w->sge, wr->sg_list, wr->num_sge);
}

/* Kernel QPs only: user QPs post in libsnic. */
int snic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct snic_dev *sdev = to_sdev(ibqp->device);
	struct snic_qp *qp = to_sqp(ibqp);
	struct snic_kwq *sq = &qp->ksq;
	u32 mask = (1u << sq->log2_depth) - 1;
	unsigned long flags;
	u32 prod;
	int err = 0;

	if (!qp->sq.buf)	/* a user QP: uverbs never routes it here */
		return -EOPNOTSUPP;
	spin_lock_irqsave(&sq->lock, flags);
	prod = sq->prod;
	for (; wr; wr = wr->next) {
		if (prod - sq->cons > mask) {
			err = -ENOMEM;
			break;
		}
		err = snic_build_send_wqe(qp, (struct snic_sq_wqe *)qp->sq.buf +
					  (prod & mask), wr);
		if (err)
			break;
		prod++;
	}
	if (prod != sq->prod) {
		sq->prod = prod;
		/* writeq orders the WQE writes before the doorbell */
		snic_ring_db(sdev, SNIC_DB_SQ, qp->qpn, prod);
	}
	spin_unlock_irqrestore(&sq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

int snic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct snic_dev *sdev = to_sdev(ibqp->device);
	struct snic_qp *qp = to_sqp(ibqp);
	struct snic_kwq *rq = &qp->krq;
	u32 mask = (1u << rq->log2_depth) - 1;
	unsigned long flags;
	u32 prod;
	int err = 0;

	if (!qp->rq.buf)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&rq->lock, flags);
	prod = rq->prod;
	for (; wr; wr = wr->next) {
		if (prod - rq->cons > mask) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge > qp->cap.max_recv_sge) {
			err = -EINVAL;
			break;
		}
		snic_set_rq_wqe((struct snic_rq_wqe *)qp->rq.buf + (prod & mask),
				wr);
		prod++;
	}
	if (prod != rq->prod) {
		rq->prod = prod;
		snic_ring_db(sdev, SNIC_DB_RQ, qp->qpn, prod);
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * UD multicast (SNIC_CAP_MCAST): the device fans RoCE to the group's
 * address out to its attached UD QPs (Q_Key checked), the port's own
 * datagrams included. The LID means nothing on RoCE.
 */
int snic_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	return snic_com_mcast(to_sdev(ibqp->device), true, to_sqp(ibqp)->qpn,
			      gid->raw);
}

int snic_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	return snic_com_mcast(to_sdev(ibqp->device), false, to_sqp(ibqp)->qpn,
			      gid->raw);
}
