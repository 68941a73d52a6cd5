// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: completion queues. The device writes struct snic_cqe into the
 * provider's ring, the body first and then the byte holding the phase
 * bit (1 on the first pass over the ring, 0 on the second, ...). It never
 * overwrites a CQE the provider has not returned with a SNIC_DB_CQ*
 * doorbell; it raises a CQ error instead.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snic.h"
#include "snic-abi.h"

/* The device reports IB numbers: copied into ibv_wc unchanged */
static_assert((int)SNIC_WC_SUCCESS == IBV_WC_SUCCESS &&
	      (int)SNIC_WC_LOC_LEN_ERR == IBV_WC_LOC_LEN_ERR &&
	      (int)SNIC_WC_LOC_QP_OP_ERR == IBV_WC_LOC_QP_OP_ERR &&
	      (int)SNIC_WC_LOC_PROT_ERR == IBV_WC_LOC_PROT_ERR &&
	      (int)SNIC_WC_WR_FLUSH_ERR == IBV_WC_WR_FLUSH_ERR &&
	      (int)SNIC_WC_BAD_RESP_ERR == IBV_WC_BAD_RESP_ERR &&
	      (int)SNIC_WC_LOC_ACCESS_ERR == IBV_WC_LOC_ACCESS_ERR &&
	      (int)SNIC_WC_REM_INV_REQ_ERR == IBV_WC_REM_INV_REQ_ERR &&
	      (int)SNIC_WC_REM_ACCESS_ERR == IBV_WC_REM_ACCESS_ERR &&
	      (int)SNIC_WC_REM_OP_ERR == IBV_WC_REM_OP_ERR &&
	      (int)SNIC_WC_RETRY_EXC_ERR == IBV_WC_RETRY_EXC_ERR &&
	      (int)SNIC_WC_RNR_RETRY_EXC_ERR == IBV_WC_RNR_RETRY_EXC_ERR,
	      "snic WC status != IBV_WC status");
static_assert((int)SNIC_WC_SEND == IBV_WC_SEND &&
	      (int)SNIC_WC_RDMA_WRITE == IBV_WC_RDMA_WRITE &&
	      (int)SNIC_WC_RDMA_READ == IBV_WC_RDMA_READ &&
	      (int)SNIC_WC_COMP_SWAP == IBV_WC_COMP_SWAP &&
	      (int)SNIC_WC_FETCH_ADD == IBV_WC_FETCH_ADD &&
	      (int)SNIC_WC_RECV == IBV_WC_RECV &&
	      (int)SNIC_WC_RECV_RDMA_WITH_IMM == IBV_WC_RECV_RDMA_WITH_IMM,
	      "snic WC op-code != IBV_WC op-code");

/*
 * ring depth = 2 * (cqe + 1) rounded up, of which the application may use
 * depth / 2 - 1: the device learns of consumed CQEs late (fewer than
 * depth / 4 behind after each poll, see snic_poll_cq), and even then the
 * ring cannot overrun.
 */
struct ibv_cq *snic_create_cq(struct ibv_context *ibvctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct snic_context *ctx = to_sctx(ibvctx);
	struct snic_create_cq_resp resp = {};
	struct snic_create_cq cmd = {};
	struct snic_cq *cq;
	uint8_t log2_depth;
	int err;

	/* max_cqe is a power of two (snic.c) */
	if (cqe < 0 || cqe >= ctx->max_cqe / 2) {
		errno = EINVAL;
		return NULL;
	}
	log2_depth = snic_log2_depth(2 * (cqe + 1));

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	err = snic_ring_alloc(ctx, &cq->ring, sizeof(struct snic_cqe),
			      log2_depth);
	if (err)
		goto err_free_cq;

	cmd.buf_va = (uintptr_t)cq->ring.buf;
	cmd.buf_len = cq->ring.size;
	cmd.log2_depth = log2_depth;
	err = ibv_cmd_create_cq(ibvctx, snic_ring_depth(&cq->ring) / 2 - 1,
				channel, comp_vector, &cq->ibvcq, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "CREATE_CQ of depth %u failed: %s\n",
			  snic_ring_depth(&cq->ring), strerror(err));
		goto err_free_ring;
	}

	cq->ibvcq.cqe = snic_ring_depth(&cq->ring) / 2 - 1;
	cq->cqn = resp.cqn;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);

	return &cq->ibvcq;

err_free_ring:
	snic_ring_free(&cq->ring);
err_free_cq:
	free(cq);
	errno = err;
	return NULL;
}

int snic_destroy_cq(struct ibv_cq *ibvcq)
{
	struct snic_cq *cq = to_scq(ibvcq);
	int err;

	err = ibv_cmd_destroy_cq(ibvcq);
	if (err)
		return err;

	pthread_spin_destroy(&cq->lock);
	snic_ring_free(&cq->ring);
	free(cq);

	return 0;
}

/* The CQE at the consumer index if the device has written it, else NULL */
static struct snic_cqe *snic_cq_peek(struct snic_cq *cq, uint32_t idx)
{
	struct snic_cqe *cqe = (struct snic_cqe *)cq->ring.buf +
			       snic_ring_slot(&cq->ring, idx);

	if (!snic_ring_entry_new(cqe->flags, idx, cq->ring.log2_depth))
		return NULL;
	/* the body was written before the phase bit */
	udma_from_device_barrier();
	return cqe;
}

static void snic_cq_update_db(struct snic_cq *cq, uint8_t type)
{
	/* every read of the returned CQEs is done before the device reuses them */
	snic_ring_db(to_sctx(cq->ibvcq.context), type, cq->cqn, cq->cons);
	cq->cons_db = cq->cons;
}

static void snic_fill_wc(struct ibv_wc *wc, const struct snic_cqe *cqe,
			 uint32_t qpn)
{
	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = 0;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->imm_data = cqe->imm; /* network order on both sides */
	wc->qp_num = qpn;
	wc->src_qp = le32toh(cqe->src_qp);
	wc->wc_flags = 0;
	if (cqe->wc_flags & SNIC_WC_F_IMM)
		wc->wc_flags |= IBV_WC_WITH_IMM;
	if (cqe->wc_flags & SNIC_WC_F_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
}

int snic_poll_cq(struct ibv_cq *ibvcq, int num_entries, struct ibv_wc *wc)
{
	struct snic_context *ctx = to_sctx(ibvcq->context);
	struct snic_cq *cq = to_scq(ibvcq);
	struct snic_cqe *cqe;
	struct snic_qp *qp;
	uint32_t qpn;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	while (n < num_entries && (cqe = snic_cq_peek(cq, cq->cons))) {
		cq->cons++;
		qpn = le32toh(cqe->qpn);
		qp = snic_qp_lookup(ctx, qpn);
		/* a QP destroyed or reset since: its CQEs are void */
		if (!qp)
			continue;
		if (cqe->opcode & IBV_WC_RECV)
			snic_wq_complete(&qp->rq, le16toh(cqe->wqe_index));
		else
			snic_wq_complete(&qp->sq, le16toh(cqe->wqe_index));
		snic_fill_wc(&wc[n++], cqe, qpn);
	}
	/* Keep the device's view of free slots at most depth / 4 - 1 behind */
	if (cq->cons - cq->cons_db >= snic_ring_depth(&cq->ring) / 4)
		snic_cq_update_db(cq, SNIC_DB_CQ);
	pthread_spin_unlock(&cq->lock);

	return n;
}

/*
 * The device raises one event per arm, at once if CQEs past the consumer
 * index are already there; the kernel turns it into the channel's event.
 */
int snic_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only)
{
	struct snic_cq *cq = to_scq(ibvcq);

	pthread_spin_lock(&cq->lock);
	snic_cq_update_db(cq, solicited_only ? SNIC_DB_CQ_ARM_SOL :
					       SNIC_DB_CQ_ARM);
	pthread_spin_unlock(&cq->lock);

	return 0;
}

/*
 * Void the CQEs a destroyed or reset QP left in the ring: they would
 * complete slots of a later QP with the same number. The device writes
 * no more for the QP and never touches unconsumed CQEs, so they can be
 * edited in place. Called with the CQ locked.
 */
void snic_cq_discard_qp(struct snic_cq *cq, uint32_t qpn)
{
	struct snic_cqe *cqe;
	uint32_t idx;

	for (idx = cq->cons; (cqe = snic_cq_peek(cq, idx)); idx++)
		if (le32toh(cqe->qpn) == qpn)
			cqe->qpn = htole32(0); /* no QP has number 0 */
}
