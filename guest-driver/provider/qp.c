// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: RC, UC and UD queue pairs. The provider owns the SQ and RQ
 * rings: it writes struct snic_sq_wqe / snic_rq_wqe and rings SNIC_DB_SQ /
 * SNIC_DB_RQ with the new producer index; slots come back through the
 * CQEs (snic_wq_complete). Work requests are posted with ibv_post_send
 * or, on QPs made by ibv_create_qp_ex with send_ops_flags, with the
 * ibv_wr_* calls; both build the same WQEs.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ccan/minmax.h>

#include "snic.h"
#include "snic-abi.h"

/* Work request op-codes go to the device unchanged */
static_assert((int)IBV_WR_RDMA_WRITE == SNIC_WR_RDMA_WRITE &&
	      (int)IBV_WR_RDMA_WRITE_WITH_IMM == SNIC_WR_RDMA_WRITE_IMM &&
	      (int)IBV_WR_SEND == SNIC_WR_SEND &&
	      (int)IBV_WR_SEND_WITH_IMM == SNIC_WR_SEND_IMM &&
	      (int)IBV_WR_RDMA_READ == SNIC_WR_RDMA_READ &&
	      (int)IBV_WR_ATOMIC_CMP_AND_SWP == SNIC_WR_ATOMIC_CMP_SWAP &&
	      (int)IBV_WR_ATOMIC_FETCH_AND_ADD == SNIC_WR_ATOMIC_FETCH_ADD &&
	      (int)IBV_WR_LOCAL_INV == SNIC_WR_LOCAL_INV &&
	      (int)IBV_WR_BIND_MW == SNIC_WR_BIND_MW &&
	      (int)IBV_WR_SEND_WITH_INV == SNIC_WR_SEND_INV,
	      "IBV_WR op-code != snic op-code");
/* ... and IBV_QP_EX_WITH_<op> is 1 << IBV_WR_<op> for all of them */
static_assert(IBV_QP_EX_WITH_RDMA_WRITE == 1 << IBV_WR_RDMA_WRITE &&
	      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM ==
		      1 << IBV_WR_RDMA_WRITE_WITH_IMM &&
	      IBV_QP_EX_WITH_SEND == 1 << IBV_WR_SEND &&
	      IBV_QP_EX_WITH_SEND_WITH_IMM == 1 << IBV_WR_SEND_WITH_IMM &&
	      IBV_QP_EX_WITH_RDMA_READ == 1 << IBV_WR_RDMA_READ &&
	      IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP ==
		      1 << IBV_WR_ATOMIC_CMP_AND_SWP &&
	      IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD ==
		      1 << IBV_WR_ATOMIC_FETCH_AND_ADD &&
	      IBV_QP_EX_WITH_LOCAL_INV == 1 << IBV_WR_LOCAL_INV &&
	      IBV_QP_EX_WITH_BIND_MW == 1 << IBV_WR_BIND_MW &&
	      IBV_QP_EX_WITH_SEND_WITH_INV == 1 << IBV_WR_SEND_WITH_INV,
	      "IBV_QP_EX_WITH_* != 1 << IBV_WR_*");
static_assert(IBV_ACCESS_REMOTE_WRITE == SNIC_ACCESS_REMOTE_WRITE &&
	      IBV_ACCESS_REMOTE_READ == SNIC_ACCESS_REMOTE_READ &&
	      IBV_ACCESS_REMOTE_ATOMIC == SNIC_ACCESS_REMOTE_ATOMIC,
	      "IBV_ACCESS_* != SNIC_ACCESS_*");

#define SNIC_OPS_SEND (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define SNIC_OPS_WRITE (IBV_QP_EX_WITH_RDMA_WRITE | \
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define SNIC_OPS_RC (SNIC_OPS_SEND | SNIC_OPS_WRITE | \
		     IBV_QP_EX_WITH_RDMA_READ | \
		     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
/* memory window binds and invalidation, when the device has windows (RC) */
#define SNIC_OPS_MW (IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV | \
		     IBV_QP_EX_WITH_SEND_WITH_INV)

#define SNIC_SEND_FLAGS (IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | \
			 IBV_SEND_FENCE | IBV_SEND_INLINE)

/* The work requests a QP of this type takes on this device */
static uint64_t snic_qp_send_ops(struct snic_context *ctx,
				 enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return SNIC_OPS_RC | (ctx->mw ? SNIC_OPS_MW : 0);
	case IBV_QPT_UC:
		/* local work requests on UC too; no SEND with Invalidate */
		return SNIC_OPS_SEND | SNIC_OPS_WRITE |
		       (ctx->mw ? IBV_QP_EX_WITH_BIND_MW |
				  IBV_QP_EX_WITH_LOCAL_INV : 0);
	case IBV_QPT_UD:
		return SNIC_OPS_SEND;
	default:
		return 0;
	}
}

static void snic_lock_cqs(struct ibv_qp *ibvqp)
{
	struct snic_cq *send_cq = to_scq(ibvqp->send_cq);
	struct snic_cq *recv_cq = to_scq(ibvqp->recv_cq);

	/* in CQN order, so two QPs sharing both CQs cannot deadlock */
	if (send_cq == recv_cq) {
		pthread_spin_lock(&send_cq->lock);
	} else if (send_cq->cqn < recv_cq->cqn) {
		pthread_spin_lock(&send_cq->lock);
		pthread_spin_lock(&recv_cq->lock);
	} else {
		pthread_spin_lock(&recv_cq->lock);
		pthread_spin_lock(&send_cq->lock);
	}
}

static void snic_unlock_cqs(struct ibv_qp *ibvqp)
{
	struct snic_cq *send_cq = to_scq(ibvqp->send_cq);
	struct snic_cq *recv_cq = to_scq(ibvqp->recv_cq);

	pthread_spin_unlock(&send_cq->lock);
	if (send_cq != recv_cq)
		pthread_spin_unlock(&recv_cq->lock);
}

/* Drop the QP's CQEs still in its CQs. Called with the CQs locked. */
static void snic_discard_cqes(struct snic_qp *qp)
{
	struct ibv_qp *ibvqp = &qp->vqp.qp;

	snic_cq_discard_qp(to_scq(ibvqp->send_cq), qp);
	if (ibvqp->recv_cq != ibvqp->send_cq)
		snic_cq_discard_qp(to_scq(ibvqp->recv_cq), qp);
}

static int snic_wq_init(struct snic_context *ctx, struct snic_wq *wq,
			size_t wqe_size, uint32_t max_wr, uint32_t max_sge)
{
	uint8_t log2_depth = snic_log2_depth(max_wr);
	int err;

	err = snic_ring_alloc(ctx, &wq->ring, wqe_size, log2_depth);
	if (err)
		return err;
	wq->max_sge = max_sge;
	pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);

	return 0;
}

static void snic_wq_destroy(struct snic_wq *wq)
{
	if (!wq->ring.buf)
		return;
	pthread_spin_destroy(&wq->lock);
	snic_ring_free(&wq->ring);
}

static void snic_qp_set_wr_ops(struct snic_qp *qp, uint64_t ops);

/*
 * ibv_qp_to_qp_ex() finds the ibv_wr_* interface by VERBS_QP_EX in
 * verbs_qp.comp_mask, which follows the union with struct ibv_qp_ex. The
 * guest's libibverbs (rdma-core 44) has an ibv_qp_ex that ends with
 * wr_atomic_write; rdma-core 45 appended wr_flush, so in a newer tree's
 * layout 44's comp_mask is where wr_flush is. Mark both places: a
 * libibverbs of either age sees the flag, and wr_flush (which this
 * provider never offers) is not a function any caller may use.
 */
#define SNIC_QP_EX_44_SIZE (offsetof(struct ibv_qp_ex, wr_atomic_write) + \
			    sizeof(void (*)(void)))

static void snic_qp_mark_ex(struct snic_qp *qp)
{
	char *vqp = (char *)&qp->vqp;
	uint32_t mask44;

	qp->vqp.comp_mask |= VERBS_QP_EX;
	if (SNIC_QP_EX_44_SIZE == offsetof(struct verbs_qp, comp_mask))
		return;
	memcpy(&mask44, vqp + SNIC_QP_EX_44_SIZE, sizeof(mask44));
	mask44 |= VERBS_QP_EX;
	memcpy(vqp + SNIC_QP_EX_44_SIZE, &mask44, sizeof(mask44));
}

/*
 * What ibv_create_qp_ex may ask of this provider: a PD, send_ops_flags
 * for the ibv_wr_* interface and no create flags. XRC, RSS, TSO and
 * source QPNs are not offered. A connectionless endpoint (cl.c) is a UD
 * QP that may also write.
 */
static int snic_check_qp_attr(struct snic_context *ctx,
			      const struct ibv_qp_init_attr_ex *attr, bool cl)
{
	/* an endpoint takes CL WRITEs only: the device fails a UD SEND on it */
	uint64_t ops = cl ? SNIC_OPS_WRITE : snic_qp_send_ops(ctx, attr->qp_type);

	if (!check_comp_mask(attr->comp_mask,
			     IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_CREATE_FLAGS |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_PD) ||
	    (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS &&
	     attr->create_flags))
		return EOPNOTSUPP;
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS &&
	    !check_comp_mask(attr->send_ops_flags,
			     ops))
		return EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return EINVAL;
	if (attr->cap.max_send_wr > ctx->max_qp_wr ||
	    attr->cap.max_send_sge > ctx->max_send_sge ||
	    attr->cap.max_inline_data > ctx->max_inline_data)
		return EINVAL;
	/* with an SRQ the receive side is the SRQ's: no RQ */
	if (!attr->srq && (attr->cap.max_recv_wr > ctx->max_qp_wr ||
			   attr->cap.max_recv_sge > ctx->max_recv_sge))
		return EINVAL;
	return 0;
}

struct snic_qp *snic_qp_create(struct ibv_context *ibvctx,
			       struct ibv_qp_init_attr_ex *attr, bool cl)
{
	struct snic_context *ctx = to_sctx(ibvctx);
	struct snic_create_qp_resp resp = {};
	struct snic_create_qp cmd = {};
	struct ibv_qp_init_attr_ex kattr;
	struct ibv_qp_cap cap;
	struct snic_qp *qp;
	uint32_t slot;
	int err;

	err = snic_check_qp_attr(ctx, attr, cl);
	if (err) {
		verbs_debug(&ctx->ibvctx,
			    "create_qp: type %d, comp_mask %#x, create_flags %#x, send_ops %#llx, caps wr %u/%u sge %u/%u inline %u not supported\n",
			    attr->qp_type, attr->comp_mask, attr->create_flags,
			    (unsigned long long)attr->send_ops_flags,
			    attr->cap.max_send_wr, attr->cap.max_recv_wr,
			    attr->cap.max_send_sge, attr->cap.max_recv_sge,
			    attr->cap.max_inline_data);
		errno = err;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	err = snic_wq_init(ctx, &qp->sq, sizeof(struct snic_sq_wqe),
			   attr->cap.max_send_wr, ctx->max_send_sge);
	if (err)
		goto err_free_qp;
	if (!attr->srq) {
		err = snic_wq_init(ctx, &qp->rq, sizeof(struct snic_rq_wqe),
				   attr->cap.max_recv_wr, ctx->max_recv_sge);
		if (err)
			goto err_free_sq;
	}

	/*
	 * What the QP holds; the kernel checks it against the rings. Every
	 * send WQE has room for the device's inline data.
	 */
	cap = (struct ibv_qp_cap){
		.max_send_wr = snic_ring_depth(&qp->sq.ring),
		.max_send_sge = ctx->max_send_sge,
		.max_inline_data = ctx->max_inline_data,
	};
	if (!attr->srq) {
		cap.max_recv_wr = snic_ring_depth(&qp->rq.ring);
		cap.max_recv_sge = ctx->max_recv_sge;
	}
	kattr = *attr;
	kattr.cap = cap;
	/* create_flags are 0 (checked); ibv_cmd_create_qp_ex refuses the bit */
	kattr.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->max_inline = cap.max_inline_data;
	qp->srq = attr->srq ? to_ssrq(attr->srq) : NULL;
	/*
	 * ibv_post_send has no place for an endpoint's address, and an
	 * endpoint sends nothing else: none through it
	 */
	qp->send_ops = cl ? 0 : snic_qp_send_ops(ctx, attr->qp_type);
	qp->cl = cl;

	cmd.sq_buf_va = (uintptr_t)qp->sq.ring.buf;
	cmd.sq_buf_len = qp->sq.ring.size;
	cmd.sq_log2_depth = qp->sq.ring.log2_depth;
	if (!attr->srq) {
		cmd.rq_buf_va = (uintptr_t)qp->rq.ring.buf;
		cmd.rq_buf_len = qp->rq.ring.size;
		cmd.rq_log2_depth = qp->rq.ring.log2_depth;
	}

	/*
	 * Held from CREATE_QP to the table insert, and by destroy from
	 * DESTROY_QP to the removal: a QPN the kernel hands out again is
	 * stored only once its previous owner is gone.
	 */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	err = ibv_cmd_create_qp_ex(ibvctx, &qp->vqp, &kattr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		verbs_err(&ctx->ibvctx,
			  "CREATE_QP (type %d, SQ %u, RQ %u%s) failed: %s\n",
			  attr->qp_type, snic_ring_depth(&qp->sq.ring),
			  attr->srq ? 0 : snic_ring_depth(&qp->rq.ring),
			  attr->srq ? ", SRQ" : "", strerror(err));
		goto err_free_rq;
	}

	slot = qp->vqp.qp.qp_num & ctx->qp_table_mask;
	if (ctx->qp_table[slot]) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		verbs_err(&ctx->ibvctx, "QPN %u: table slot of QPN %u\n",
			  qp->vqp.qp.qp_num,
			  ctx->qp_table[slot]->vqp.qp.qp_num);
		err = EBUSY;
		goto err_destroy;
	}
	ctx->qp_table[slot] = qp;
	pthread_mutex_unlock(&ctx->qp_table_mutex);

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		snic_qp_set_wr_ops(qp, attr->send_ops_flags);
		snic_qp_mark_ex(qp);
	}

	/* Ours, not the kernel's answer: these are the limits post_* applies */
	attr->cap = cap;

	return qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free_rq:
	snic_wq_destroy(&qp->rq);
err_free_sq:
	snic_wq_destroy(&qp->sq);
err_free_qp:
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *snic_create_qp(struct ibv_pd *ibvpd,
			      struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {};
	struct snic_qp *qp;

	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = ibvpd;
	qp = snic_qp_create(ibvpd->context, &attr_ex, false);
	if (!qp)
		return NULL;
	attr->cap = attr_ex.cap;

	return &qp->vqp.qp;
}

struct ibv_qp *snic_create_qp_ex(struct ibv_context *ibvctx,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct snic_qp *qp = snic_qp_create(ibvctx, attr, false);

	return qp ? &qp->vqp.qp : NULL;
}

/*
 * RESET empties both queues: the device restarts its indices at 0 and
 * drops the QP's outstanding WQEs without completing them.
 */
static void snic_qp_reset(struct snic_qp *qp)
{
	pthread_spin_lock(&qp->sq.lock);
	if (qp->rq.ring.buf)
		pthread_spin_lock(&qp->rq.lock);
	snic_lock_cqs(&qp->vqp.qp);
	snic_discard_cqes(qp);
	qp->sq.prod = qp->sq.cons = 0;
	qp->rq.prod = qp->rq.cons = 0;
	qp->rpc_flags = 0;	/* the device's SET_QP_RPC is cleared too */
	snic_unlock_cqs(&qp->vqp.qp);
	if (qp->rq.ring.buf)
		pthread_spin_unlock(&qp->rq.lock);
	pthread_spin_unlock(&qp->sq.lock);
}

int snic_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibvqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err)
		return err;

	if (attr_mask & IBV_QP_STATE && attr->qp_state == IBV_QPS_RESET)
		snic_qp_reset(to_sqp(ibvqp));

	return 0;
}

int snic_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibvqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int snic_destroy_qp(struct ibv_qp *ibvqp)
{
	struct snic_context *ctx = to_sctx(ibvqp->context);
	struct snic_qp *qp = to_sqp(ibvqp);
	int err;

	pthread_mutex_lock(&ctx->qp_table_mutex);
	err = ibv_cmd_destroy_qp(ibvqp);
	if (err) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		return err;
	}
	snic_lock_cqs(ibvqp);
	snic_discard_cqes(qp);
	ctx->qp_table[ibvqp->qp_num & ctx->qp_table_mask] = NULL;
	snic_unlock_cqs(ibvqp);
	pthread_mutex_unlock(&ctx->qp_table_mutex);

	snic_wq_destroy(&qp->rq);
	snic_wq_destroy(&qp->sq);
	free(qp);

	return 0;
}

/* ---- building send WQEs ------------------------------------------------ */

void snic_set_sges(struct snic_sge *dst, const struct ibv_sge *sg,
		   size_t num_sge)
{
	size_t i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = htole64(sg[i].addr);
		dst[i].length = htole32(sg[i].length);
		dst[i].lkey = htole32(sg[i].lkey);
	}
}

/*
 * Send work requests are refused (EINVAL, IBA 11.4.1.1) before the QP
 * can send: in RESET, INIT and RTR. libibverbs keeps ibv_qp.state.
 */
bool snic_qp_can_send(struct snic_qp *qp)
{
	switch (qp->vqp.qp.state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		return false;
	default:
		return true;
	}
}

/* A zeroed WQE with the header of a work request */
void snic_wqe_init(struct snic_qp *qp, struct snic_sq_wqe *wqe,
		   uint64_t wr_id, uint8_t opcode, unsigned int send_flags)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(wr_id);
	wqe->opcode = opcode;
	if (send_flags & IBV_SEND_SIGNALED || qp->sq_sig_all)
		wqe->flags |= SNIC_WQE_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		wqe->flags |= SNIC_WQE_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		wqe->flags |= SNIC_WQE_FENCE;
}

/* The WQE's payload copied in: up to qp->max_inline bytes */
int snic_wqe_set_inline(struct snic_qp *qp, struct snic_sq_wqe *wqe,
			const struct ibv_data_buf *bufs, size_t n)
{
	size_t i, len = 0;

	for (i = 0; i < n; i++) {
		if (bufs[i].length > qp->max_inline - len)
			return EINVAL;
		memcpy(wqe->inline_data + len, bufs[i].addr, bufs[i].length);
		len += bufs[i].length;
	}
	wqe->flags |= SNIC_WQE_INLINE;
	wqe->inline_len = len;
	wqe->num_sge = 0;

	return 0;
}

static void snic_wqe_set_bind(struct snic_sq_wqe *wqe, struct ibv_mw *mw,
			      uint32_t rkey,
			      const struct ibv_mw_bind_info *info)
{
	wqe->bind.addr = htole64(info->addr);
	wqe->bind.length = htole64(info->length);
	wqe->bind.mw_rkey = htole32(mw->rkey);
	wqe->bind.new_rkey = htole32(rkey);
	wqe->bind.mr_lkey = htole32(info->mr ? info->mr->lkey : 0);
	/* a window grants remote access only; local rights are the MR's */
	wqe->bind.access = htole32(info->mw_access_flags &
				   (IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC));
}

static int snic_check_bind(const struct ibv_mw_bind_info *info)
{
	/* zero-based windows are not offered; an unbind names no MR */
	if (info->mw_access_flags & IBV_ACCESS_ZERO_BASED ||
	    (!info->mr && info->length))
		return EINVAL;
	return 0;
}

static int snic_set_sq_wqe(struct snic_qp *qp, const struct ibv_send_wr *wr,
			   struct snic_sq_wqe *wqe)
{
	bool ud = qp->vqp.qp.qp_type == IBV_QPT_UD;
	struct ibv_data_buf bufs[SNIC_SQ_WQE_MAX_SGE];
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	int i, err;

	if (wr->opcode >= 32 || !(qp->send_ops & 1ull << wr->opcode) ||
	    wr->send_flags & ~SNIC_SEND_FLAGS || wr->num_sge < 0 ||
	    (!inl && wr->num_sge > qp->sq.max_sge) ||
	    (inl && wr->num_sge > SNIC_SQ_WQE_MAX_SGE))
		return EINVAL;
	if (ud && !wr->wr.ud.ah)
		return EINVAL;

	snic_wqe_init(qp, wqe, wr->wr_id, wr->opcode, wr->send_flags);
	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm = wr->imm_data; /* network order on both sides */
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->imm = htobe32(wr->invalidate_rkey);
		break;
	default:
		break;
	}

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		wqe->rdma.remote_addr = htole64(wr->wr.rdma.remote_addr);
		wqe->rdma.rkey = htole32(wr->wr.rdma.rkey);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe->rdma.remote_addr = htole64(wr->wr.atomic.remote_addr);
		wqe->rdma.rkey = htole32(wr->wr.atomic.rkey);
		wqe->rdma.compare_add = htole64(wr->wr.atomic.compare_add);
		wqe->rdma.swap = htole64(wr->wr.atomic.swap);
		break;
	case IBV_WR_BIND_MW:
		err = snic_check_bind(&wr->bind_mw.bind_info);
		if (err)
			return err;
		snic_wqe_set_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				  &wr->bind_mw.bind_info);
		return 0;
	case IBV_WR_LOCAL_INV:
		return 0;
	default:
		break;
	}
	if (ud) {
		memcpy(&wqe->ud.av, &to_sah(wr->wr.ud.ah)->av,
		       sizeof(wqe->ud.av));
		wqe->ud.remote_qpn = htole32(wr->wr.ud.remote_qpn);
		wqe->ud.remote_qkey = htole32(wr->wr.ud.remote_qkey);
	}

	/* Inline data only where the WR carries a payload of its own */
	if (inl && wr->opcode != IBV_WR_RDMA_READ &&
	    wr->opcode != IBV_WR_ATOMIC_CMP_AND_SWP &&
	    wr->opcode != IBV_WR_ATOMIC_FETCH_AND_ADD) {
		for (i = 0; i < wr->num_sge; i++) {
			bufs[i].addr = (void *)(uintptr_t)wr->sg_list[i].addr;
			bufs[i].length = wr->sg_list[i].length;
		}
		return snic_wqe_set_inline(qp, wqe, bufs, wr->num_sge);
	}
	if (wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	wqe->num_sge = wr->num_sge;
	snic_set_sges(wqe->sge, wr->sg_list, wr->num_sge);

	return 0;
}

/* A receive WQE (QP or SRQ); num_sge was checked */
void snic_set_rq_wqe(struct snic_rq_wqe *wqe, const struct ibv_recv_wr *wr)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(wr->wr_id);
	wqe->num_sge = wr->num_sge;
	snic_set_sges(wqe->sge, wr->sg_list, wr->num_sge);
}

/*
 * Hand the WQEs up to prod (exclusive) to the device. prod is stored
 * first: a CQE for these WQEs is checked against it.
 */
void snic_wq_publish(struct ibv_qp *ibvqp, struct snic_wq *wq,
		     uint8_t db_type, uint32_t prod)
{
	if (prod == wq->prod)
		return;
	wq->prod = prod;
	snic_ring_db(to_sctx(ibvqp->context), db_type, ibvqp->qp_num, prod);
}

int snic_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct snic_qp *qp = to_sqp(ibvqp);
	struct snic_wq *sq = &qp->sq;
	uint32_t prod;
	int err = 0;

	if (!snic_qp_can_send(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&sq->lock);
	for (prod = sq->prod; wr; wr = wr->next, prod++) {
		if (snic_wq_full(sq, prod)) {
			err = ENOMEM;
			break;
		}
		err = snic_set_sq_wqe(qp, wr, snic_sq_wqe(sq, prod));
		if (err)
			break;
	}
	snic_wq_publish(ibvqp, sq, SNIC_DB_SQ, prod);
	pthread_spin_unlock(&sq->lock);

	if (err)
		*bad_wr = wr;
	return err;
}

int snic_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct snic_qp *qp = to_sqp(ibvqp);
	struct snic_wq *rq = &qp->rq;
	uint32_t prod;
	int err = 0;

	/* A QP on an SRQ has no RQ of its own; none is used in RESET */
	if (!rq->ring.buf || ibvqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&rq->lock);
	for (prod = rq->prod; wr; wr = wr->next, prod++) {
		if (snic_wq_full(rq, prod)) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > rq->max_sge) {
			err = EINVAL;
			break;
		}
		snic_set_rq_wqe(snic_rq_wqe(rq, prod), wr);
	}
	snic_wq_publish(ibvqp, rq, SNIC_DB_RQ, prod);
	pthread_spin_unlock(&rq->lock);

	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * ibv_bind_mw (type 1 windows): a BIND_MW work request on the QP, under
 * the window's next R_Key (ibv_inc_rkey, as rdma-core's providers do; the
 * device takes the binder's key byte). mw->rkey is the new key once the
 * request is posted; a failed bind (an error completion) leaves the caller
 * to undo that, as libibverbs documents.
 */
int snic_bind_mw(struct ibv_qp *ibvqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = mw_bind->bind_info,
		},
	};
	struct ibv_send_wr *bad;
	int err;

	err = snic_post_send(ibvqp, &wr, &bad);
	if (err)
		return err;
	mw->rkey = wr.bind_mw.rkey;

	return 0;
}

/* ---- ibv_wr_*: the extended QP's post interface ----------------------- */

/*
 * wr_start takes the SQ lock, each builder takes the next free slot and
 * each setter completes the WQE just built; wr_complete rings the
 * doorbell once for all of them, wr_abort forgets them (the device never
 * saw them). The first error sticks until wr_complete reports it.
 */
static inline struct snic_qp *qpx_to_sqp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct snic_qp, vqp.qp_ex);
}

/* An endpoint's WRITE is complete only with its address (cl.c) */
static void snic_wr_check_cl_addr(struct snic_qp *qp)
{
	if (qp->wr_cl_addr_due && !qp->wr_err)
		qp->wr_err = EINVAL;
	qp->wr_cl_addr_due = false;
}

static struct snic_sq_wqe *snic_wr_new(struct ibv_qp_ex *qpx,
				       uint8_t opcode)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);
	struct snic_sq_wqe *wqe;

	snic_wr_check_cl_addr(qp);
	qp->wr_cur = NULL;
	if (qp->wr_err)
		return NULL;
	if (snic_wq_full(&qp->sq, qp->wr_prod)) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	if (qpx->wr_flags & ~SNIC_SEND_FLAGS) {
		qp->wr_err = EINVAL;
		return NULL;
	}
	wqe = snic_sq_wqe(&qp->sq, qp->wr_prod++);
	snic_wqe_init(qp, wqe, qpx->wr_id, opcode, qpx->wr_flags);
	qp->wr_cur = wqe;

	return wqe;
}

static void snic_wr_rdma(struct ibv_qp_ex *qpx, uint8_t opcode,
			 uint32_t rkey, uint64_t remote_addr)
{
	struct snic_sq_wqe *wqe = snic_wr_new(qpx, opcode);

	if (!wqe)
		return;
	wqe->rdma.remote_addr = htole64(remote_addr);
	wqe->rdma.rkey = htole32(rkey);
}

static void snic_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	snic_wr_rdma(qpx, SNIC_WR_RDMA_WRITE, rkey, remote_addr);
}

static void snic_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, __be32 imm_data)
{
	snic_wr_rdma(qpx, SNIC_WR_RDMA_WRITE_IMM, rkey, remote_addr);
	if (qpx_to_sqp(qpx)->wr_cur)
		qpx_to_sqp(qpx)->wr_cur->imm = imm_data;
}

/*
 * An endpoint's RDMA WRITE is the device's CL WRITE: the base and R_Key
 * in the WQE's cl member, the tag in imm (0 without an immediate), the
 * destination from snicdv_wr_set_cl_addr.
 */
static void snic_wr_cl_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	struct snic_sq_wqe *wqe = snic_wr_new(qpx, SNIC_WR_CL_WRITE);

	if (!wqe)
		return;
	wqe->cl.remote_addr = htole64(remote_addr);
	wqe->cl.rkey = htole32(rkey);
	qpx_to_sqp(qpx)->wr_cl_addr_due = true;
}

static void snic_wr_cl_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t remote_addr, __be32 imm_data)
{
	snic_wr_cl_write(qpx, rkey, remote_addr);
	if (qpx_to_sqp(qpx)->wr_cur)
		qpx_to_sqp(qpx)->wr_cur->imm = imm_data;
}

void snic_wr_set_cl_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			 uint32_t remote_ep, uint32_t flags)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);
	struct snic_sq_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (wqe->opcode != SNIC_WR_CL_WRITE ||
	    flags & ~SNIC_WR_CL_FLAGS) {
		if (!qp->wr_err)
			qp->wr_err = EINVAL;
		return;
	}
	memcpy(&wqe->cl.av, &to_sah(ah)->av, sizeof(wqe->cl.av));
	wqe->cl.remote_ep = htole32(remote_ep);
	if (flags & SNIC_WR_CL_UNREGISTERED)
		wqe->flags |= SNIC_WQE_CL_UNREGISTERED;
	qp->wr_cl_addr_due = false;
}

static void snic_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	snic_wr_rdma(qpx, SNIC_WR_RDMA_READ, rkey, remote_addr);
}

static void snic_wr_atomic(struct ibv_qp_ex *qpx, uint8_t opcode,
			   uint32_t rkey, uint64_t remote_addr,
			   uint64_t compare_add, uint64_t swap)
{
	struct snic_sq_wqe *wqe = snic_wr_new(qpx, opcode);

	if (!wqe)
		return;
	wqe->rdma.remote_addr = htole64(remote_addr);
	wqe->rdma.rkey = htole32(rkey);
	wqe->rdma.compare_add = htole64(compare_add);
	wqe->rdma.swap = htole64(swap);
}

static void snic_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	snic_wr_atomic(qpx, SNIC_WR_ATOMIC_CMP_SWAP, rkey, remote_addr,
		       compare, swap);
}

static void snic_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				     uint64_t remote_addr, uint64_t add)
{
	snic_wr_atomic(qpx, SNIC_WR_ATOMIC_FETCH_ADD, rkey, remote_addr, add,
		       0);
}

static void snic_wr_send(struct ibv_qp_ex *qpx)
{
	snic_wr_new(qpx, SNIC_WR_SEND);
}

static void snic_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct snic_sq_wqe *wqe = snic_wr_new(qpx, SNIC_WR_SEND_IMM);

	if (wqe)
		wqe->imm = imm_data;
}

static void snic_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct snic_sq_wqe *wqe = snic_wr_new(qpx, SNIC_WR_SEND_INV);

	if (wqe)
		wqe->imm = htobe32(invalidate_rkey);
}

static void snic_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct snic_sq_wqe *wqe = snic_wr_new(qpx, SNIC_WR_LOCAL_INV);

	if (wqe)
		wqe->imm = htobe32(invalidate_rkey);
}

static void snic_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			    uint32_t rkey,
			    const struct ibv_mw_bind_info *info)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);
	struct snic_sq_wqe *wqe;
	int err;

	err = snic_check_bind(info);
	if (err) {
		if (!qp->wr_err)
			qp->wr_err = err;
		return;
	}
	wqe = snic_wr_new(qpx, SNIC_WR_BIND_MW);
	if (wqe)
		snic_wqe_set_bind(wqe, mw, rkey, info);
}

/* Setters: they complete the WQE the last builder made */
static void snic_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);
	struct snic_sq_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (wqe->opcode == SNIC_WR_CL_WRITE) {
		/* its layout is the cl member's: snicdv_wr_set_cl_addr */
		if (!qp->wr_err)
			qp->wr_err = EINVAL;
		return;
	}
	memcpy(&wqe->ud.av, &to_sah(ah)->av, sizeof(wqe->ud.av));
	wqe->ud.remote_qpn = htole32(remote_qpn);
	wqe->ud.remote_qkey = htole32(remote_qkey);
}

static void snic_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				 const struct ibv_sge *sg_list)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);
	struct snic_sq_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (num_sge > qp->sq.max_sge) {
		qp->wr_err = EINVAL;
		return;
	}
	wqe->flags &= ~SNIC_WQE_INLINE;
	wqe->inline_len = 0;
	wqe->num_sge = num_sge;
	snic_set_sges(wqe->sge, sg_list, num_sge);
}

static void snic_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	snic_wr_set_sge_list(qpx, 1, &sge);
}

static void snic_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					 size_t num_buf,
					 const struct ibv_data_buf *buf_list)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);
	int err;

	if (!qp->wr_cur)
		return;
	err = snic_wqe_set_inline(qp, qp->wr_cur, buf_list, num_buf);
	if (err)
		qp->wr_err = err;
}

static void snic_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				    size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	snic_wr_set_inline_data_list(qpx, 1, &buf);
}

static void snic_wr_start(struct ibv_qp_ex *qpx)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_prod = qp->sq.prod;
	qp->wr_cur = NULL;
	qp->wr_cl_addr_due = false;
	qp->wr_err = snic_qp_can_send(qp) ? 0 : EINVAL;
}

static int snic_wr_complete(struct ibv_qp_ex *qpx)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);
	int err;

	snic_wr_check_cl_addr(qp);
	err = qp->wr_err;
	if (!err)
		snic_wq_publish(&qp->vqp.qp, &qp->sq, SNIC_DB_SQ, qp->wr_prod);
	qp->wr_cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);

	return err;
}

static void snic_wr_abort(struct ibv_qp_ex *qpx)
{
	struct snic_qp *qp = qpx_to_sqp(qpx);

	qp->wr_cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

/* The ibv_wr_* builders of the op-codes asked for (all checked) */
static void snic_qp_set_wr_ops(struct snic_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = qp->cl ? snic_wr_cl_write :
					      snic_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = qp->cl ? snic_wr_cl_write_imm :
						  snic_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = snic_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = snic_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = snic_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = snic_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = snic_wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = snic_wr_local_inv;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = snic_wr_bind_mw;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = snic_wr_send_inv;

	qpx->wr_set_ud_addr = snic_wr_set_ud_addr;
	qpx->wr_set_sge = snic_wr_set_sge;
	qpx->wr_set_sge_list = snic_wr_set_sge_list;
	qpx->wr_set_inline_data = snic_wr_set_inline_data;
	qpx->wr_set_inline_data_list = snic_wr_set_inline_data_list;
	qpx->wr_start = snic_wr_start;
	qpx->wr_complete = snic_wr_complete;
	qpx->wr_abort = snic_wr_abort;
}
