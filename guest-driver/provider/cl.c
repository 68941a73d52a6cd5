// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: connectionless endpoints ("Connectionless Transport with
 * Receiver Registration", sections 3-3.4) as snic direct verbs
 * (snicdv.h), in the manner of mlx5dv's DC QPs: snicdv_create_qp makes a
 * UD QP whose RDMA WRITEs are the device's CL WRITEs (qp.c builds them)
 * and switches it to an endpoint through snic.ko's driver method
 * (snic-abi.h, snic_cl.c of the driver), which issues SET_QP_CL, before
 * the application sees it. Receive notifications come as CQEs of the
 * device's own op-code (cq.c takes no receive WQE for them).
 */

#include <errno.h>

#include <infiniband/cmd_ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "snic.h"
#include "snic-abi.h"
#include "snicdv.h"

static_assert(SNICDV_CL_UNREGISTERED == SNIC_WR_CL_UNREGISTERED,
	      "snicdv CL flags are the provider's");
static_assert((int)SNICDV_WC_CL_WRITE == SNIC_WC_CL_WRITE &&
	      (int)SNICDV_WC_CL_RECV == SNIC_WC_CL_RECV,
	      "snicdv CL op-codes are the device's");
static_assert(SNIC_IB_METHOD_QP_SET_CL == (1U << UVERBS_ID_NS_SHIFT) + 7,
	      "driver methods are in the driver namespace");

static int snic_set_qp_cl(struct ibv_qp *ibvqp,
			  const struct snicdv_qp_init_attr *dv)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_QP, SNIC_IB_METHOD_QP_SET_CL,
			       5);
	int err;

	fill_attr_in_obj(cmd, SNIC_IB_ATTR_CL_QP_HANDLE, ibvqp->handle);
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_CL_SEG_THRESHOLD,
			    dv->cl_seg_threshold);
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_CL_SEG_SIZE, dv->cl_seg_size);
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_CL_TIMEOUT_US,
			    dv->cl_timeout_us);
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_CL_RETRIES, dv->cl_retries);
	err = execute_ioctl(ibvqp->context, cmd);
	/* an old kernel has no such method: say so as the call documents */
	return err == EPROTONOSUPPORT || err == ENOENT ? EOPNOTSUPP : err;
}

struct ibv_qp *snicdv_create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr,
				struct snicdv_qp_init_attr *dv)
{
	struct snic_qp *qp;
	unsigned int i;
	int err;

	if (!snic_is_snic_dev(ctx->device) ||
	    verbs_get_device(ctx->device)->sysfs->abi_ver < 3) {
		errno = EOPNOTSUPP;     /* not snic's, or a kernel without SET_CL */
		return NULL;
	}
	if (!dv || !(dv->comp_mask & SNICDV_QP_INIT_ATTR_MASK_QP_TYPE)) {
		if (dv && dv->comp_mask) {
			errno = EINVAL;
			return NULL;
		}
		return ibv_create_qp_ex(ctx, attr);
	}
	for (i = 0; i < sizeof(dv->reserved); i++)
		if (dv->reserved[i])
			break;
	if (dv->comp_mask & ~(uint64_t)SNICDV_QP_INIT_ATTR_MASK_QP_TYPE ||
	    dv->qp_type != SNICDV_QP_CL || attr->qp_type != IBV_QPT_UD ||
	    i < sizeof(dv->reserved)) {
		errno = EINVAL;
		return NULL;
	}
	qp = snic_qp_create(ctx, attr, true);
	if (!qp) {
		/* WRITE on a UD QP is what this call is for: EINVAL, as said */
		if (errno == EOPNOTSUPP)
			errno = EINVAL;
		return NULL;
	}
	err = snic_set_qp_cl(&qp->vqp.qp, dv);
	if (err) {
		snic_destroy_qp(&qp->vqp.qp);
		errno = err;
		return NULL;
	}
	return &qp->vqp.qp;
}

void snicdv_wr_set_cl_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			   uint32_t remote_endpoint, uint32_t flags)
{
	/* another provider's QP is not ours to write into: nothing done */
	if (snic_is_snic_dev(qpx->qp_base.context->device))
		snic_wr_set_cl_addr(qpx, ah, remote_endpoint, flags);
}
