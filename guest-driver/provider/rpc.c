// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: StRoM RPCs (StRoM, EuroSys'20, sections 4-5) as snic direct
 * verbs (snicdv.h): switching RPC on for a QP, deploying kernels, posting
 * RPC and RPC WRITE work requests, and the fallback handler's answer.
 *
 * The QP switch and the deployments go to snic.ko's driver methods
 * (snic-abi.h, snic_rpc.c of the driver), which issue the device's ABI
 * 2.1 admin commands; RPC WQEs go straight to the send queue like any
 * other work request. Answers come back as RDMA WRITEs with immediate,
 * ordinary receive completions: nothing here touches the CQ path.
 */

#include <errno.h>
#include <string.h>

#include <infiniband/cmd_ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "snic.h"
#include "snic-abi.h"
#include "snic_admin.h"
#include "snicdv.h"

static_assert(SNICDV_QP_RPC_ENABLE == SNIC_QP_RPC_ENABLE &&
	      SNICDV_QP_RPC_FALLBACK == SNIC_QP_RPC_FALLBACK,
	      "snicdv QP RPC flags are the device's");
static_assert((int)SNICDV_WC_RPC == SNIC_WC_RPC &&
	      (int)SNICDV_WC_RECV_RPC == SNIC_WC_RECV_RPC,
	      "snicdv completion op-codes are the device's");
/* the provider reports CQE op-codes as they are: RECV_RPC is a receive */
static_assert(SNIC_WC_RECV_RPC & IBV_WC_RECV && !(SNIC_WC_RPC & IBV_WC_RECV),
	      "RPC completion op-codes and IBV_WC_RECV");
static_assert(SNIC_IB_METHOD_QP_SET_RPC == 1U << UVERBS_ID_NS_SHIFT &&
	      SNIC_IB_METHOD_DEPLOY_KERNEL == 1U << UVERBS_ID_NS_SHIFT,
	      "driver methods are in the driver namespace");

/* The context's, or NULL (errno set) if it is not a snic one with RPCs */
static struct snic_context *snic_rpc_ctx(struct ibv_context *ibvctx)
{
	if (!snic_is_snic_dev(ibvctx->device) || !to_sctx(ibvctx)->rpc) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return to_sctx(ibvctx);
}

int snicdv_query_device(struct ibv_context *ibvctx,
			struct snicdv_device_attr *attr, uint32_t inlen)
{
	struct snicdv_device_attr a = {};
	struct snic_context *ctx;

	if (!snic_is_snic_dev(ibvctx->device))
		return EOPNOTSUPP;
	if (inlen < offsetof(struct snicdv_device_attr, builtin_kernels))
		return EINVAL;
	ctx = to_sctx(ibvctx);
	if (ctx->rpc) {
		a.flags = SNICDV_DEVICE_RPC;
		a.builtin_kernels = ctx->rpc_builtin_kernels;
		a.max_rpc_response = ctx->rpc_max_response;
		a.kernel_max_steps = ctx->rpc_kernel_max_steps;
		a.rpc_slots = ctx->rpc_slots;
		a.max_rpc_per_qp = ctx->rpc_max_per_qp;
		a.max_kernels = ctx->rpc_max_kernels;
		a.ctx_rpc_slots = ctx->rpc_ctx_slots;
		a.ctx_rpc_stage = ctx->rpc_ctx_stage;
		a.qp_rpc_stage = ctx->rpc_qp_stage;
		a.ctx_kernels = ctx->rpc_ctx_kernels;
	}
	a.ctx_recv_pool = ctx->ctx_recv_pool;
	a.ctx_mcast_grp = ctx->ctx_mcast_grp;
	a.ctx_mcast_qp_attach = ctx->ctx_mcast_qp_attach;
	a.ctx_sr_ctrlq = ctx->ctx_sr_ctrlq;
	memset(attr, 0, inlen);
	memcpy(attr, &a, inlen < sizeof(a) ? inlen : sizeof(a));
	return 0;
}

int snicdv_qp_set_rpc(struct ibv_qp *ibvqp, uint32_t flags)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_QP,
			       SNIC_IB_METHOD_QP_SET_RPC, 2);
	struct snic_qp *qp;
	int err;

	if (!snic_rpc_ctx(ibvqp->context))
		return EOPNOTSUPP;
	if (ibvqp->qp_type != IBV_QPT_RC ||
	    flags & ~(SNICDV_QP_RPC_ENABLE | SNICDV_QP_RPC_FALLBACK))
		return EINVAL;
	qp = to_sqp(ibvqp);
	fill_attr_in_obj(cmd, SNIC_IB_ATTR_QP_SET_RPC_HANDLE, ibvqp->handle);
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_QP_SET_RPC_FLAGS, flags);
	err = execute_ioctl(ibvqp->context, cmd);
	if (err)
		return err;
	/* under the SQ lock: snicdv_post_rpc reads it there */
	pthread_spin_lock(&qp->sq.lock);
	qp->rpc_flags = flags;
	pthread_spin_unlock(&qp->sq.lock);
	return 0;
}

int snicdv_deploy_kernel(struct ibv_context *ibvctx, uint64_t rpc_opcode,
			 uint32_t kernel_id)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_DEVICE,
			       SNIC_IB_METHOD_DEPLOY_KERNEL, 2);

	if (!snic_rpc_ctx(ibvctx))
		return EOPNOTSUPP;
	fill_attr_in_uint64(cmd, SNIC_IB_ATTR_DEPLOY_RPC_OPCODE, rpc_opcode);
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_DEPLOY_KERNEL_ID, kernel_id);
	return execute_ioctl(ibvctx, cmd);
}

int snicdv_undeploy_kernel(struct ibv_context *ibvctx, uint64_t rpc_opcode)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_DEVICE,
			       SNIC_IB_METHOD_UNDEPLOY_KERNEL, 1);

	if (!snic_rpc_ctx(ibvctx))
		return EOPNOTSUPP;
	fill_attr_in_uint64(cmd, SNIC_IB_ATTR_DEPLOY_RPC_OPCODE, rpc_opcode);
	return execute_ioctl(ibvctx, cmd);
}

/* One RPC or RPC WRITE WQE (SNIC_WR_RPC*, snic_verbs.h's 'rpc') */
static int snic_set_rpc_wqe(struct snic_qp *qp, uint8_t opcode,
			    const struct snicdv_rpc_wr *wr,
			    struct snic_sq_wqe *wqe)
{
	struct ibv_data_buf bufs[SNIC_SQ_WQE_MAX_SGE];
	int i;

	if (wr->send_flags & ~(IBV_SEND_SIGNALED | IBV_SEND_FENCE |
			       IBV_SEND_INLINE) ||
	    wr->num_sge < 0 || wr->num_sge > SNIC_SQ_WQE_MAX_SGE ||
	    (!(wr->send_flags & IBV_SEND_INLINE) &&
	     wr->num_sge > (int)qp->sq.max_sge))
		return EINVAL;

	snic_wqe_init(qp, wqe, wr->wr_id, opcode, wr->send_flags);
	wqe->rpc.rpc_opcode = htole64(wr->rpc_opcode);
	wqe->rpc.rkey = htole32(wr->rkey);
	wqe->rpc.resp_rkey = htole32(wr->resp_rkey);
	wqe->rpc.resp_addr = htole64(wr->resp_addr);
	wqe->rpc.resp_len = htole32(wr->resp_len);
	wqe->rpc.tag = htole32(wr->tag & 0xffffff);
	if (wr->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++) {
			bufs[i].addr = (void *)(uintptr_t)wr->sg_list[i].addr;
			bufs[i].length = wr->sg_list[i].length;
		}
		return snic_wqe_set_inline(qp, wqe, bufs, wr->num_sge);
	}
	wqe->num_sge = wr->num_sge;
	snic_set_sges(wqe->sge, wr->sg_list, wr->num_sge);
	return 0;
}

static int snic_post_rpc(struct ibv_qp *ibvqp, uint8_t opcode,
			 const struct snicdv_rpc_wr *wr)
{
	struct snic_qp *qp;
	struct snic_wq *sq;
	uint32_t prod;
	int err;

	if (!snic_is_snic_dev(ibvqp->context->device) ||
	    ibvqp->qp_type != IBV_QPT_RC)
		return EINVAL;
	qp = to_sqp(ibvqp);
	sq = &qp->sq;
	if (!snic_qp_can_send(qp))
		return EINVAL;

	pthread_spin_lock(&sq->lock);
	prod = sq->prod;
	/* never on the wire of a connection that did not agree to RPCs */
	if (!(qp->rpc_flags & SNICDV_QP_RPC_ENABLE))
		err = EINVAL;
	else if (snic_wq_full(sq, prod))
		err = ENOMEM;
	else
		err = snic_set_rpc_wqe(qp, opcode, wr, snic_sq_wqe(sq, prod));
	if (!err)
		snic_wq_publish(ibvqp, sq, SNIC_DB_SQ, prod + 1);
	pthread_spin_unlock(&sq->lock);
	return err;
}

int snicdv_post_rpc(struct ibv_qp *qp, const struct snicdv_rpc_wr *wr)
{
	return snic_post_rpc(qp, SNIC_WR_RPC, wr);
}

int snicdv_post_rpc_write(struct ibv_qp *qp, const struct snicdv_rpc_wr *wr)
{
	return snic_post_rpc(qp, SNIC_WR_RPC_WRITE, wr);
}

int snicdv_rpc_reply(struct ibv_qp *qp, const struct snic_rpc_recv *req,
		     uint64_t wr_id, struct ibv_sge *sg_list, int num_sge,
		     uint32_t status, unsigned int send_flags)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = sg_list,
		.num_sge = num_sge,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = send_flags,
		.imm_data = htobe32(SNIC_RPC_IMM(status,
						 le32toh(req->hdr.tag))),
		.wr.rdma = {
			.remote_addr = le64toh(req->hdr.resp_addr),
			.rkey = le32toh(req->hdr.resp_rkey),
		},
	}, *bad;
	uint64_t len = 0;
	int i;

	if (num_sge < 0 || (num_sge && !sg_list) || status > 0xff)
		return EINVAL;
	for (i = 0; i < num_sge; i++)
		len += sg_list[i].length;
	/* the requester's buffer: a longer answer would be its error */
	if (len > le32toh(req->hdr.resp_len))
		return EINVAL;
	return ibv_post_send(qp, &wr, &bad);
}
