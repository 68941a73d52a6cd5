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
	      (int)SNIC_WC_MW_BIND_ERR == IBV_WC_MW_BIND_ERR &&
	      (int)SNIC_WC_BAD_RESP_ERR == IBV_WC_BAD_RESP_ERR &&
	      (int)SNIC_WC_LOC_ACCESS_ERR == IBV_WC_LOC_ACCESS_ERR &&
	      (int)SNIC_WC_REM_INV_REQ_ERR == IBV_WC_REM_INV_REQ_ERR &&
	      (int)SNIC_WC_REM_ACCESS_ERR == IBV_WC_REM_ACCESS_ERR &&
	      (int)SNIC_WC_REM_OP_ERR == IBV_WC_REM_OP_ERR &&
	      (int)SNIC_WC_RETRY_EXC_ERR == IBV_WC_RETRY_EXC_ERR &&
	      (int)SNIC_WC_RNR_RETRY_EXC_ERR == IBV_WC_RNR_RETRY_EXC_ERR &&
	      (int)SNIC_WC_REM_ABORT_ERR == IBV_WC_REM_ABORT_ERR,
	      "snic WC status != IBV_WC status");
static_assert((int)SNIC_WC_SEND == IBV_WC_SEND &&
	      (int)SNIC_WC_RDMA_WRITE == IBV_WC_RDMA_WRITE &&
	      (int)SNIC_WC_RDMA_READ == IBV_WC_RDMA_READ &&
	      (int)SNIC_WC_COMP_SWAP == IBV_WC_COMP_SWAP &&
	      (int)SNIC_WC_FETCH_ADD == IBV_WC_FETCH_ADD &&
	      (int)SNIC_WC_BIND_MW == IBV_WC_BIND_MW &&
	      (int)SNIC_WC_LOCAL_INV == IBV_WC_LOCAL_INV &&
	      (int)SNIC_WC_RECV == IBV_WC_RECV &&
	      (int)SNIC_WC_RECV_RDMA_WITH_IMM == IBV_WC_RECV_RDMA_WITH_IMM,
	      "snic WC op-code != IBV_WC op-code");

/* What ibv_cq_ex can report: everything but time stamps, CVLAN, flow tags */
#define SNIC_CQ_EX_WC_FLAGS IBV_WC_STANDARD_FLAGS

/*
 * ring depth = 2 * (cqe + 1) rounded up, of which the application may use
 * depth / 2 - 1: the device learns of consumed CQEs late (fewer than
 * depth / 4 behind after each poll, see snic_cq_poll_done), and even then
 * the ring cannot overrun. Both create verbs end here; attr->comp_mask and
 * wc_flags were checked by the caller.
 */
static struct snic_cq *snic_cq_create(struct ibv_context *ibvctx,
				      struct ibv_cq_init_attr_ex *attr,
				      bool ex)
{
	struct snic_context *ctx = to_sctx(ibvctx);
	struct snic_create_cq_ex_resp resp_ex = {};
	struct snic_create_cq_ex cmd_ex = {};
	struct snic_create_cq_resp resp = {};
	struct snic_create_cq cmd = {};
	struct snic_ib_create_cq *drv;
	struct snic_cq *cq;
	uint8_t log2_depth;
	int cqe, err;

	/* max_cqe is a power of two (snic.c) */
	if (attr->cqe >= ctx->max_cqe / 2) {
		errno = EINVAL;
		return NULL;
	}
	log2_depth = snic_log2_depth(2 * ((uint64_t)attr->cqe + 1));

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	err = snic_ring_alloc(ctx, &cq->ring, sizeof(struct snic_cqe),
			      log2_depth);
	if (err)
		goto err_free_cq;

	drv = ex ? &cmd_ex.drv_payload : &cmd.drv_payload;
	drv->buf_va = (uintptr_t)cq->ring.buf;
	drv->buf_len = cq->ring.size;
	drv->log2_depth = log2_depth;
	cqe = snic_ring_depth(&cq->ring) / 2 - 1;
	if (ex) {
		struct ibv_cq_init_attr_ex kattr = *attr;

		kattr.cqe = cqe;
		err = ibv_cmd_create_cq_ex(ibvctx, &kattr, &cq->vcq,
					   &cmd_ex.ibv_cmd, sizeof(cmd_ex),
					   &resp_ex.ibv_resp, sizeof(resp_ex),
					   0);
		cq->cqn = resp_ex.cqn;
	} else {
		err = ibv_cmd_create_cq(ibvctx, cqe, attr->channel,
					attr->comp_vector, &cq->vcq.cq,
					&cmd.ibv_cmd, sizeof(cmd),
					&resp.ibv_resp, sizeof(resp));
		cq->cqn = resp.cqn;
	}
	if (err) {
		verbs_err(&ctx->ibvctx, "CREATE_CQ of depth %u failed: %s\n",
			  snic_ring_depth(&cq->ring), strerror(err));
		goto err_free_ring;
	}

	cq->vcq.cq.cqe = cqe;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);

	return cq;

err_free_ring:
	snic_ring_free(&cq->ring);
err_free_cq:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *snic_create_cq(struct ibv_context *ibvctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.channel = channel,
		.comp_vector = comp_vector,
	};
	struct snic_cq *cq;

	if (cqe < 0) {
		errno = EINVAL;
		return NULL;
	}
	attr.cqe = cqe;
	cq = snic_cq_create(ibvctx, &attr, false);

	return cq ? &cq->vcq.cq : NULL;
}

static int snic_start_poll(struct ibv_cq_ex *ibvcqx,
			   struct ibv_poll_cq_attr *attr);
static int snic_next_poll(struct ibv_cq_ex *ibvcqx);
static void snic_end_poll(struct ibv_cq_ex *ibvcqx);
static enum ibv_wc_opcode snic_wc_read_opcode(struct ibv_cq_ex *ibvcqx);
static uint32_t snic_wc_read_vendor_err(struct ibv_cq_ex *ibvcqx);
static unsigned int snic_wc_read_wc_flags(struct ibv_cq_ex *ibvcqx);
static uint32_t snic_wc_read_byte_len(struct ibv_cq_ex *ibvcqx);
static __be32 snic_wc_read_imm_data(struct ibv_cq_ex *ibvcqx);
static uint32_t snic_wc_read_qp_num(struct ibv_cq_ex *ibvcqx);
static uint32_t snic_wc_read_src_qp(struct ibv_cq_ex *ibvcqx);
static uint32_t snic_wc_read_slid(struct ibv_cq_ex *ibvcqx);
static uint8_t snic_wc_read_sl(struct ibv_cq_ex *ibvcqx);
static uint8_t snic_wc_read_dlid_path_bits(struct ibv_cq_ex *ibvcqx);

/*
 * The extended CQ: same ring, polled one CQE at a time through the
 * ibv_cq_ex callbacks. Only the accessors for the requested wc_flags are
 * set (as in rdma-core's other providers); a flag this device cannot fill
 * (completion time stamps, CVLAN, flow tag, tag matching) is EOPNOTSUPP.
 */
struct ibv_cq_ex *snic_create_cq_ex(struct ibv_context *ibvctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cqx;
	struct snic_cq *cq;

	if (!check_comp_mask(attr->comp_mask, IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    !check_comp_mask(attr->wc_flags, SNIC_CQ_EX_WC_FLAGS) ||
	    (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
	     !check_comp_mask(attr->flags,
			      IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		verbs_debug(verbs_get_ctx(ibvctx),
			    "create_cq_ex: comp_mask %#x, wc_flags %#llx, flags %#x not supported\n",
			    attr->comp_mask,
			    (unsigned long long)attr->wc_flags, attr->flags);
		errno = EOPNOTSUPP;
		return NULL;
	}

	cq = snic_cq_create(ibvctx, attr, true);
	if (!cq)
		return NULL;

	cqx = &cq->vcq.cq_ex;
	cqx->start_poll = snic_start_poll;
	cqx->next_poll = snic_next_poll;
	cqx->end_poll = snic_end_poll;
	cqx->read_opcode = snic_wc_read_opcode;
	cqx->read_vendor_err = snic_wc_read_vendor_err;
	cqx->read_wc_flags = snic_wc_read_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = snic_wc_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = snic_wc_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = snic_wc_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = snic_wc_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = snic_wc_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = snic_wc_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = snic_wc_read_dlid_path_bits;

	return cqx;
}

int snic_destroy_cq(struct ibv_cq *ibvcq)
{
	struct snic_cq *cq = to_scq(ibvcq);
	int err;

	err = ibv_cmd_destroy_cq(ibvcq);
	if (err)
		return err;

	pthread_spin_destroy(&cq->lock);
	if (cq->old.buf)
		snic_ring_free(&cq->old);
	snic_ring_free(&cq->ring);
	free(cq);

	return 0;
}

/* The CQE at index idx if the device has written it, else NULL */
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

/*
 * The next CQE, consumed: first what a resize left in the old ring (all
 * written before the switch), then the ring's own. An old ring read to
 * its end is freed (the caller is done with its last CQE by now).
 */
static struct snic_cqe *snic_cq_take(struct snic_cq *cq)
{
	struct snic_cqe *cqe;

	if (cq->old.buf) {
		if (cq->old_cons != cq->old_tail) {
			cqe = (struct snic_cqe *)cq->old.buf +
			      snic_ring_slot(&cq->old, cq->old_cons++);
			udma_from_device_barrier();
			return cqe;
		}
		snic_ring_free(&cq->old);
		cq->old.buf = NULL;
	}
	cqe = snic_cq_peek(cq, cq->cons);
	if (cqe)
		cq->cons++;
	return cqe;
}

/*
 * Does the CQE complete a receive WQE? An endpoint's receive notification
 * has the receive bit but takes none: the device reserved its CQE when
 * the operation came, and no receive WQE is posted for it.
 */
static bool snic_cqe_takes_recv(const struct snic_cqe *cqe)
{
	return cqe->opcode & IBV_WC_RECV && cqe->opcode != SNIC_WC_CL_RECV;
}

/* The slots a CQE of the QP completes are free again */
static void snic_qp_cqe_done(struct snic_qp *qp, const struct snic_cqe *cqe)
{
	uint16_t wqe_index = le16toh(cqe->wqe_index);

	if (cqe->opcode == SNIC_WC_CL_RECV)
		return;
	if (!snic_cqe_takes_recv(cqe))
		snic_wq_complete(&qp->sq, wqe_index);
	else if (qp->srq)
		snic_srq_complete(qp->srq, wqe_index);
	else
		snic_wq_complete(&qp->rq, wqe_index);
}

/*
 * The next CQE of a live QP, consumed: the work queue slots it completes
 * are free again. CQEs of QPs destroyed or reset since are skipped. NULL
 * when the device has written no more. Called with the CQ locked; the
 * CQE stays valid until the device hears of the new consumer index.
 */
static struct snic_cqe *snic_cq_next(struct snic_cq *cq)
{
	struct snic_context *ctx = to_sctx(cq->vcq.cq.context);
	struct snic_cqe *cqe;
	struct snic_qp *qp;

	while ((cqe = snic_cq_take(cq))) {
		qp = snic_qp_lookup(ctx, le32toh(cqe->qpn));
		if (!qp)
			continue;
		snic_qp_cqe_done(qp, cqe);
		return cqe;
	}
	return NULL;
}

static void snic_cq_update_db(struct snic_cq *cq, uint8_t type)
{
	/* every read of the returned CQEs is done before the device reuses them */
	snic_ring_db(to_sctx(cq->vcq.cq.context), type, cq->cqn, cq->cons);
	cq->cons_db = cq->cons;
}

/* After polling: keep the device's view of free slots < depth / 4 behind */
static void snic_cq_poll_done(struct snic_cq *cq)
{
	if (cq->cons - cq->cons_db >= snic_ring_depth(&cq->ring) / 4)
		snic_cq_update_db(cq, SNIC_DB_CQ);
}

static unsigned int snic_cqe_wc_flags(const struct snic_cqe *cqe)
{
	unsigned int flags = 0;

	if (cqe->wc_flags & SNIC_WC_F_IMM)
		flags |= IBV_WC_WITH_IMM;
	if (cqe->wc_flags & SNIC_WC_F_INV)
		flags |= IBV_WC_WITH_INV;
	if (cqe->wc_flags & SNIC_WC_F_GRH)
		flags |= IBV_WC_GRH;
	return flags;
}

/* ibv_wc's union: immediate data as sent, or the invalidated R_Key */
static __be32 snic_cqe_imm(const struct snic_cqe *cqe)
{
	if (cqe->wc_flags & SNIC_WC_F_INV)
		return (__force __be32)be32toh(cqe->imm);
	return cqe->imm;
}

/*
 * RoCE has no service level. A datagram's completion says in sl which L3
 * header fills its 40-byte GRH slot, as mlx5 devices do (bit 3: a UDP
 * header follows, RoCE v2; bits 2:0: 1 IPv6, 2 IPv4): UCX's UD transport
 * before 1.19 reads it there to find the destination address it checks,
 * and drops every datagram whose sl says neither.
 */
static uint8_t snic_cqe_sl(const struct snic_cqe *cqe)
{
	if (!(cqe->wc_flags & SNIC_WC_F_GRH))
		return 0;
	return 0x8 | (cqe->wc_flags & SNIC_WC_F_IPV6 ? 0x1 : 0x2);
}

static void snic_fill_wc(struct ibv_wc *wc, const struct snic_cqe *cqe)
{
	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = 0;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->imm_data = snic_cqe_imm(cqe);
	wc->qp_num = le32toh(cqe->qpn);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->wc_flags = snic_cqe_wc_flags(cqe);
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = snic_cqe_sl(cqe);
	wc->dlid_path_bits = 0;
}

int snic_poll_cq(struct ibv_cq *ibvcq, int num_entries, struct ibv_wc *wc)
{
	struct snic_cq *cq = to_scq(ibvcq);
	struct snic_cqe *cqe;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	while (n < num_entries && (cqe = snic_cq_next(cq)))
		snic_fill_wc(&wc[n++], cqe);
	snic_cq_poll_done(cq);
	pthread_spin_unlock(&cq->lock);

	return n;
}

/* ---- ibv_cq_ex: start_poll, next_poll*, end_poll, CQ locked between ---- */

static void snic_cq_set_cur(struct snic_cq *cq, struct snic_cqe *cqe)
{
	cq->cur = cqe;
	cq->vcq.cq_ex.wr_id = le64toh(cqe->wr_id);
	cq->vcq.cq_ex.status = cqe->status;
}

static int snic_start_poll(struct ibv_cq_ex *ibvcqx,
			   struct ibv_poll_cq_attr *attr)
{
	struct snic_cq *cq = to_scq_ex(ibvcqx);
	struct snic_cqe *cqe;

	if (attr->comp_mask)
		return EINVAL;

	pthread_spin_lock(&cq->lock);
	cqe = snic_cq_next(cq);
	if (!cqe) {
		/* no end_poll follows an empty start_poll */
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	snic_cq_set_cur(cq, cqe);

	return 0;
}

static int snic_next_poll(struct ibv_cq_ex *ibvcqx)
{
	struct snic_cq *cq = to_scq_ex(ibvcqx);
	struct snic_cqe *cqe;

	cqe = snic_cq_next(cq);
	if (!cqe)
		return ENOENT;
	snic_cq_set_cur(cq, cqe);

	return 0;
}

static void snic_end_poll(struct ibv_cq_ex *ibvcqx)
{
	struct snic_cq *cq = to_scq_ex(ibvcqx);

	cq->cur = NULL;
	snic_cq_poll_done(cq);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode snic_wc_read_opcode(struct ibv_cq_ex *ibvcqx)
{
	return to_scq_ex(ibvcqx)->cur->opcode;
}

static uint32_t snic_wc_read_vendor_err(struct ibv_cq_ex *ibvcqx)
{
	return 0;
}

static unsigned int snic_wc_read_wc_flags(struct ibv_cq_ex *ibvcqx)
{
	return snic_cqe_wc_flags(to_scq_ex(ibvcqx)->cur);
}

static uint32_t snic_wc_read_byte_len(struct ibv_cq_ex *ibvcqx)
{
	return le32toh(to_scq_ex(ibvcqx)->cur->byte_len);
}

static __be32 snic_wc_read_imm_data(struct ibv_cq_ex *ibvcqx)
{
	return snic_cqe_imm(to_scq_ex(ibvcqx)->cur);
}

static uint32_t snic_wc_read_qp_num(struct ibv_cq_ex *ibvcqx)
{
	return le32toh(to_scq_ex(ibvcqx)->cur->qpn);
}

static uint32_t snic_wc_read_src_qp(struct ibv_cq_ex *ibvcqx)
{
	return le32toh(to_scq_ex(ibvcqx)->cur->src_qp);
}

/* RoCE: no LIDs or path bits; sl: the L3 header type (snic_cqe_sl()) */
static uint32_t snic_wc_read_slid(struct ibv_cq_ex *ibvcqx)
{
	return 0;
}

static uint8_t snic_wc_read_sl(struct ibv_cq_ex *ibvcqx)
{
	return snic_cqe_sl(to_scq_ex(ibvcqx)->cur);
}

static uint8_t snic_wc_read_dlid_path_bits(struct ibv_cq_ex *ibvcqx)
{
	return 0;
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

/* Void CQE cqe if it is the QP's; its SRQ slot is free again */
static void snic_cqe_discard(struct snic_cqe *cqe, struct snic_qp *qp)
{
	if (le32toh(cqe->qpn) != qp->vqp.qp.qp_num)
		return;
	if (qp->srq && snic_cqe_takes_recv(cqe))
		snic_srq_complete(qp->srq, le16toh(cqe->wqe_index));
	cqe->qpn = htole32(0); /* no QP has number 0 */
}

/*
 * Void the CQEs a destroyed or reset QP left in the ring: they would
 * complete slots of a later QP with the same number. The device writes
 * no more for the QP and never touches unconsumed CQEs, so they can be
 * edited in place. SRQ slots they name are free again. Called with the
 * CQ locked.
 */
void snic_cq_discard_qp(struct snic_cq *cq, struct snic_qp *qp)
{
	struct snic_cqe *cqe;
	uint32_t idx;

	if (cq->old.buf)
		for (idx = cq->old_cons; idx != cq->old_tail; idx++)
			snic_cqe_discard((struct snic_cqe *)cq->old.buf +
					 snic_ring_slot(&cq->old, idx), qp);
	for (idx = cq->cons; (cqe = snic_cq_peek(cq, idx)); idx++)
		snic_cqe_discard(cqe, qp);
}

/* CQEs written and not yet polled (the old ring's too). CQ locked. */
static uint32_t snic_cq_pending(struct snic_cq *cq)
{
	uint32_t n = cq->old.buf ? cq->old_tail - cq->old_cons : 0;
	uint32_t idx;

	for (idx = cq->cons; snic_cq_peek(cq, idx); idx++)
		n++;
	return n;
}

/*
 * ibv_resize_cq: a new ring; the device continues in it at index 0 and
 * answers where its CQEs in the current ring end. Those are polled first
 * (snic_cq_take), then the old ring is freed. The CQ stays locked across
 * the command, so no consumer index reaches the device for the wrong
 * ring. One resize at a time: while the previous one's old CQEs are
 * unpolled, EBUSY. Fewer entries than the CQ holds unpolled: EINVAL.
 */
int snic_resize_cq(struct ibv_cq *ibvcq, int cqe)
{
	struct snic_context *ctx = to_sctx(ibvcq->context);
	struct snic_resize_cq_resp resp = {};
	struct snic_resize_cq cmd = {};
	struct snic_cq *cq = to_scq(ibvcq);
	struct snic_ring ring;
	uint8_t log2_depth;
	int err;

	if (cqe < 0 || (uint32_t)cqe >= ctx->max_cqe / 2)
		return EINVAL;
	log2_depth = snic_log2_depth(2 * ((uint64_t)cqe + 1));
	err = snic_ring_alloc(ctx, &ring, sizeof(struct snic_cqe), log2_depth);
	if (err)
		return err;
	cmd.buf_va = (uintptr_t)ring.buf;
	cmd.buf_len = ring.size;
	cmd.log2_depth = log2_depth;

	pthread_spin_lock(&cq->lock);
	if (cq->old.buf && cq->old_cons != cq->old_tail) {
		err = EBUSY;
		goto err_unlock;
	}
	/* IBA: fewer entries than the CQ holds now is an error */
	if ((uint32_t)cqe < snic_cq_pending(cq)) {
		err = EINVAL;
		goto err_unlock;
	}
	err = ibv_cmd_resize_cq(ibvcq, snic_ring_depth(&ring) / 2 - 1,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "RESIZE_CQ %u to depth %u failed: %s\n",
			  cq->cqn, snic_ring_depth(&ring), strerror(err));
		goto err_unlock;
	}
	if (cq->old.buf)
		snic_ring_free(&cq->old);
	cq->old = cq->ring;
	cq->old_cons = cq->cons;
	cq->old_tail = resp.old_tail;
	cq->ring = ring;
	cq->cons = 0;
	cq->cons_db = 0;
	ibvcq->cqe = snic_ring_depth(&ring) / 2 - 1;
	pthread_spin_unlock(&cq->lock);

	return 0;

err_unlock:
	pthread_spin_unlock(&cq->lock);
	snic_ring_free(&ring);
	return err;
}

/* Completion event moderation (the kernel checks the device's limits) */
int snic_modify_cq(struct ibv_cq *ibvcq, struct ibv_modify_cq_attr *attr)
{
	struct ibv_modify_cq cmd = {};

	return ibv_cmd_modify_cq(ibvcq, attr, &cmd, sizeof(cmd));
}
