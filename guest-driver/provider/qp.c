// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: RC and UD queue pairs. The provider owns the SQ and RQ rings:
 * it writes struct snic_sq_wqe / snic_rq_wqe and rings SNIC_DB_SQ /
 * SNIC_DB_RQ with the new producer index; slots come back through the
 * CQEs (snic_wq_complete).
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
	      (int)IBV_WR_ATOMIC_FETCH_AND_ADD == SNIC_WR_ATOMIC_FETCH_ADD,
	      "IBV_WR op-code != snic op-code");

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
	struct ibv_qp *ibvqp = &qp->ibvqp;

	snic_cq_discard_qp(to_scq(ibvqp->send_cq), ibvqp->qp_num);
	if (ibvqp->recv_cq != ibvqp->send_cq)
		snic_cq_discard_qp(to_scq(ibvqp->recv_cq), ibvqp->qp_num);
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
	pthread_spin_destroy(&wq->lock);
	snic_ring_free(&wq->ring);
}

struct ibv_qp *snic_create_qp(struct ibv_pd *ibvpd,
			      struct ibv_qp_init_attr *attr)
{
	struct snic_context *ctx = to_sctx(ibvpd->context);
	struct snic_create_qp_resp resp = {};
	struct snic_create_qp cmd = {};
	struct ibv_qp_init_attr kattr;
	struct ibv_qp_cap cap;
	struct snic_qp *qp;
	uint32_t slot;
	int err;

	if ((attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD) ||
	    attr->srq) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cap.max_send_wr > ctx->max_qp_wr ||
	    attr->cap.max_recv_wr > ctx->max_qp_wr ||
	    attr->cap.max_send_sge > ctx->max_send_sge ||
	    attr->cap.max_recv_sge > ctx->max_recv_sge ||
	    attr->cap.max_inline_data) {
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	err = snic_wq_init(ctx, &qp->sq, sizeof(struct snic_sq_wqe),
			   attr->cap.max_send_wr, ctx->max_send_sge);
	if (err)
		goto err_free_qp;
	err = snic_wq_init(ctx, &qp->rq, sizeof(struct snic_rq_wqe),
			   attr->cap.max_recv_wr, ctx->max_recv_sge);
	if (err)
		goto err_free_sq;

	/* What the QP holds; the kernel checks it against the rings */
	cap = (struct ibv_qp_cap){
		.max_send_wr = snic_ring_depth(&qp->sq.ring),
		.max_recv_wr = snic_ring_depth(&qp->rq.ring),
		.max_send_sge = ctx->max_send_sge,
		.max_recv_sge = ctx->max_recv_sge,
	};
	kattr = *attr;
	kattr.cap = cap;
	qp->sq_sig_all = attr->sq_sig_all;

	cmd.sq_buf_va = (uintptr_t)qp->sq.ring.buf;
	cmd.rq_buf_va = (uintptr_t)qp->rq.ring.buf;
	cmd.sq_buf_len = qp->sq.ring.size;
	cmd.rq_buf_len = qp->rq.ring.size;
	cmd.sq_log2_depth = qp->sq.ring.log2_depth;
	cmd.rq_log2_depth = qp->rq.ring.log2_depth;

	/*
	 * Held from CREATE_QP to the table insert, and by destroy from
	 * DESTROY_QP to the removal: a QPN the kernel hands out again is
	 * stored only once its previous owner is gone.
	 */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	err = ibv_cmd_create_qp(ibvpd, &qp->ibvqp, &kattr, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		verbs_err(&ctx->ibvctx,
			  "CREATE_QP (type %d, SQ %u, RQ %u) failed: %s\n",
			  attr->qp_type, snic_ring_depth(&qp->sq.ring),
			  snic_ring_depth(&qp->rq.ring),
			  strerror(err));
		goto err_free_rq;
	}

	slot = qp->ibvqp.qp_num & ctx->qp_table_mask;
	if (ctx->qp_table[slot]) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		verbs_err(&ctx->ibvctx, "QPN %u: table slot of QPN %u\n",
			  qp->ibvqp.qp_num, ctx->qp_table[slot]->ibvqp.qp_num);
		err = EBUSY;
		goto err_destroy;
	}
	ctx->qp_table[slot] = qp;
	pthread_mutex_unlock(&ctx->qp_table_mutex);

	/* Ours, not the kernel's answer: these are the limits post_* applies */
	attr->cap = cap;

	return &qp->ibvqp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->ibvqp);
err_free_rq:
	snic_wq_destroy(&qp->rq);
err_free_sq:
	snic_wq_destroy(&qp->sq);
err_free_qp:
	free(qp);
	errno = err;
	return NULL;
}

/*
 * RESET empties both queues: the device restarts its indices at 0 and
 * drops the QP's outstanding WQEs without completing them.
 */
static void snic_qp_reset(struct snic_qp *qp)
{
	pthread_spin_lock(&qp->sq.lock);
	pthread_spin_lock(&qp->rq.lock);
	snic_lock_cqs(&qp->ibvqp);
	snic_discard_cqes(qp);
	qp->sq.prod = qp->sq.cons = 0;
	qp->rq.prod = qp->rq.cons = 0;
	snic_unlock_cqs(&qp->ibvqp);
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

static void snic_set_sges(struct snic_sge *dst, const struct ibv_sge *sg,
			  int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = htole64(sg[i].addr);
		dst[i].length = htole32(sg[i].length);
		dst[i].lkey = htole32(sg[i].lkey);
	}
}

/*
 * Hand the WQEs up to prod (exclusive) to the device. prod is stored
 * first: a CQE for these WQEs is checked against it.
 */
static void snic_wq_publish(struct ibv_qp *ibvqp, struct snic_wq *wq,
			    uint8_t db_type, uint32_t prod)
{
	if (prod == wq->prod)
		return;
	wq->prod = prod;
	snic_ring_db(to_sctx(ibvqp->context), db_type, ibvqp->qp_num, prod);
}

static int snic_set_sq_wqe(struct snic_qp *qp, const struct ibv_send_wr *wr,
			   struct snic_sq_wqe *wqe)
{
	bool ud = qp->ibvqp.qp_type == IBV_QPT_UD;

	/* No inline data: max_inline_data is 0 */
	if (wr->send_flags & ~(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
			       IBV_SEND_FENCE) ||
	    wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		if (ud && !wr->wr.ud.ah)
			return EINVAL;
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (ud)
			return EINVAL;
		break;
	default:
		return EINVAL;
	}

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(wr->wr_id);
	wqe->opcode = wr->opcode;
	if (wr->send_flags & IBV_SEND_SIGNALED || qp->sq_sig_all)
		wqe->flags |= SNIC_WQE_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		wqe->flags |= SNIC_WQE_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		wqe->flags |= SNIC_WQE_FENCE;
	if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		wqe->imm = wr->imm_data; /* network order on both sides */

	if (ud) {
		memcpy(&wqe->ud.av, &to_sah(wr->wr.ud.ah)->av,
		       sizeof(wqe->ud.av));
		wqe->ud.remote_qpn = htole32(wr->wr.ud.remote_qpn);
		wqe->ud.remote_qkey = htole32(wr->wr.ud.remote_qkey);
	} else if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		   wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wqe->rdma.remote_addr = htole64(wr->wr.atomic.remote_addr);
		wqe->rdma.rkey = htole32(wr->wr.atomic.rkey);
		wqe->rdma.compare_add = htole64(wr->wr.atomic.compare_add);
		wqe->rdma.swap = htole64(wr->wr.atomic.swap);
	} else if (wr->opcode != IBV_WR_SEND &&
		   wr->opcode != IBV_WR_SEND_WITH_IMM) {
		wqe->rdma.remote_addr = htole64(wr->wr.rdma.remote_addr);
		wqe->rdma.rkey = htole32(wr->wr.rdma.rkey);
	}

	wqe->num_sge = wr->num_sge;
	snic_set_sges(wqe->sge, wr->sg_list, wr->num_sge);

	return 0;
}

int snic_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct snic_qp *qp = to_sqp(ibvqp);
	struct snic_wq *sq = &qp->sq;
	uint32_t prod;
	int err = 0;

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
	struct snic_rq_wqe *wqe;
	uint32_t prod;
	int err = 0;

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
		wqe = snic_rq_wqe(rq, prod);
		memset(wqe, 0, sizeof(*wqe));
		wqe->wr_id = htole64(wr->wr_id);
		wqe->num_sge = wr->num_sge;
		snic_set_sges(wqe->sge, wr->sg_list, wr->num_sge);
	}
	snic_wq_publish(ibvqp, rq, SNIC_DB_RQ, prod);
	pthread_spin_unlock(&rq->lock);

	if (err)
		*bad_wr = wr;
	return err;
}
