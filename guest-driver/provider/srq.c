// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: shared receive queues. The provider owns the ring of struct
 * snic_rq_wqe, posts into it and rings SNIC_DB_SRQ with the new producer
 * index; the device hands its WQEs to the QPs attached to the SRQ in ring
 * order and names the WQE's index in each receive CQE, which poll_cq
 * passes to snic_srq_complete(). See struct snic_srq.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snic.h"
#include "snic-abi.h"

struct ibv_srq *snic_create_srq(struct ibv_pd *ibvpd,
				struct ibv_srq_init_attr *attr)
{
	struct snic_context *ctx = to_sctx(ibvpd->context);
	struct snic_create_srq_resp resp = {};
	struct snic_create_srq cmd = {};
	struct snic_srq *srq;
	uint8_t log2_depth;
	int err;

	if (!ctx->max_srq_wr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* max_srq_wr is a power of two (snic.c) */
	if (!attr->attr.max_wr || attr->attr.max_wr > ctx->max_srq_wr ||
	    attr->attr.max_sge > ctx->max_recv_sge ||
	    attr->attr.srq_limit > attr->attr.max_wr) {
		errno = EINVAL;
		return NULL;
	}
	log2_depth = snic_log2_depth(attr->attr.max_wr);

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	err = snic_ring_alloc(ctx, &srq->wq.ring, sizeof(struct snic_rq_wqe),
			      log2_depth);
	if (err)
		goto err_free_srq;
	srq->wq.max_sge = ctx->max_recv_sge;

	cmd.buf_va = (uintptr_t)srq->wq.ring.buf;
	cmd.buf_len = srq->wq.ring.size;
	cmd.log2_depth = log2_depth;
	err = ibv_cmd_create_srq(ibvpd, &srq->ibvsrq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "CREATE_SRQ of depth %u failed: %s\n",
			  snic_ring_depth(&srq->wq.ring), strerror(err));
		goto err_free_ring;
	}

	srq->srqn = resp.srqn;
	pthread_spin_init(&srq->wq.lock, PTHREAD_PROCESS_PRIVATE);
	/* What the SRQ holds (the kernel says the same) */
	attr->attr.max_wr = snic_ring_depth(&srq->wq.ring);
	attr->attr.max_sge = srq->wq.max_sge;

	return &srq->ibvsrq;

err_free_ring:
	snic_ring_free(&srq->wq.ring);
err_free_srq:
	free(srq);
	errno = err;
	return NULL;
}

/* The limit can be armed; the size cannot change (no SRQ resize) */
int snic_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	if (attr_mask & ~IBV_SRQ_LIMIT)
		return EINVAL;
	return ibv_cmd_modify_srq(ibvsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int snic_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibvsrq, attr, &cmd, sizeof(cmd));
}

int snic_destroy_srq(struct ibv_srq *ibvsrq)
{
	struct snic_srq *srq = to_ssrq(ibvsrq);
	int err;

	/* The QPs on it are gone: the kernel refuses otherwise (EBUSY) */
	err = ibv_cmd_destroy_srq(ibvsrq);
	if (err)
		return err;

	pthread_spin_destroy(&srq->wq.lock);
	snic_ring_free(&srq->wq.ring);
	free(srq);

	return 0;
}

/*
 * A receive CQE named SRQ index wqe_index: it and every WQE before it
 * were taken, so their slots may be posted again. Called with a CQ
 * locked; CQs of several QPs share the SRQ, hence its lock.
 */
void snic_srq_complete(struct snic_srq *srq, uint16_t wqe_index)
{
	pthread_spin_lock(&srq->wq.lock);
	snic_wq_complete(&srq->wq, wqe_index);
	pthread_spin_unlock(&srq->wq.lock);
}

int snic_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct snic_context *ctx = to_sctx(ibvsrq->context);
	struct snic_srq *srq = to_ssrq(ibvsrq);
	struct snic_wq *wq = &srq->wq;
	uint32_t prod;
	int err = 0;

	pthread_spin_lock(&wq->lock);
	for (prod = wq->prod; wr; wr = wr->next, prod++) {
		if (snic_wq_full(wq, prod)) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge) {
			err = EINVAL;
			break;
		}
		snic_set_rq_wqe(snic_rq_wqe(wq, prod), wr);
	}
	if (prod != wq->prod) {
		wq->prod = prod;
		snic_ring_db(ctx, SNIC_DB_SRQ, srq->srqn, prod);
	}
	pthread_spin_unlock(&wq->lock);

	if (err)
		*bad_wr = wr;
	return err;
}
