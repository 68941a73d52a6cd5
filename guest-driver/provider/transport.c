// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: transport programs (Tonic, NSDI'20, section 3) as snic direct
 * verbs (snicdv.h): choosing a QP's protocol before RTR, and reading what
 * a program is and how a QP running it fares.
 *
 * Both go to snic.ko's driver methods (snic-abi.h, snic_transport.c of
 * the driver), which issue SET_QP_TRANSPORT and QUERY_TRANSPORT; the
 * device's struct snic_transport_info comes back as the device wrote it
 * (little-endian) and is unpacked here.
 */

#include <endian.h>
#include <errno.h>
#include <string.h>

#include <infiniband/cmd_ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "snic.h"
#include "snic-abi.h"
#include "snic_admin.h"
#include "snicdv.h"

static_assert((int)SNICDV_TRANSPORT_GBN == SNIC_TRANSPORT_GBN &&
	      (int)SNICDV_TRANSPORT_RENO == SNIC_TRANSPORT_RENO &&
	      (int)SNICDV_TRANSPORT_NEWRENO == SNIC_TRANSPORT_NEWRENO &&
	      (int)SNICDV_TRANSPORT_DCQCN == SNIC_TRANSPORT_DCQCN &&
	      (int)SNICDV_TRANSPORT_SACK == SNIC_TRANSPORT_SACK &&
	      (int)SNICDV_TRANSPORT_DCTCP == SNIC_TRANSPORT_DCTCP &&
	      (int)SNICDV_TRANSPORT_NDP == SNIC_TRANSPORT_NDP &&
	      (int)SNICDV_TRANSPORT_IRN == SNIC_TRANSPORT_IRN &&
	      (int)SNICDV_TRANSPORT_SRNIC == SNIC_TRANSPORT_SRNIC &&
	      (int)SNICDV_TRANSPORT_SRNIC_DCTCP == SNIC_TRANSPORT_SRNIC_DCTCP,
	      "snicdv programs are the device's");
static_assert((int)SNICDV_CREDIT_WINDOW == SNIC_CREDIT_TYPE_WINDOW &&
	      (int)SNICDV_CREDIT_RATE == SNIC_CREDIT_TYPE_RATE &&
	      (int)SNICDV_CREDIT_TOKEN == SNIC_CREDIT_TYPE_TOKEN,
	      "snicdv credit types are the device's");
static_assert(SNICDV_TRANSPORT_ECN == SNIC_TRANSPORT_F_ECN &&
	      SNICDV_TRANSPORT_TCP_ACKS == SNIC_TRANSPORT_F_TCP_ACKS &&
	      SNICDV_TRANSPORT_XPORT == SNIC_TRANSPORT_F_XPORT &&
	      SNICDV_TRANSPORT_ECE == SNIC_TRANSPORT_F_ECE &&
	      SNICDV_TRANSPORT_SR == SNIC_TRANSPORT_F_SR,
	      "snicdv transport flags are the device's");
static_assert(SNIC_IB_METHOD_QP_SET_TRANSPORT ==
	      (1U << UVERBS_ID_NS_SHIFT) + 1,
	      "driver methods are in the driver namespace");

/* An old kernel has no such method: say so as the calls document */
static int snic_transport_err(int err)
{
	return err == EPROTONOSUPPORT || err == ENOENT ? EOPNOTSUPP : err;
}

int snicdv_set_transport(struct ibv_qp *ibvqp, uint32_t program,
			 const struct snicdv_transport_params *params)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_QP,
			       SNIC_IB_METHOD_QP_SET_TRANSPORT, 3);
	uint32_t ack_every = params ? params->ack_every : 0;

	if (!snic_is_snic_dev(ibvqp->context->device))
		return EOPNOTSUPP;
	if (ibvqp->qp_type != IBV_QPT_RC || program > UINT8_MAX ||
	    ack_every > UINT8_MAX || (params && params->comp_mask))
		return EINVAL;
	fill_attr_in_obj(cmd, SNIC_IB_ATTR_TRANSPORT_QP_HANDLE, ibvqp->handle);
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_TRANSPORT_PROGRAM, program);
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_TRANSPORT_ACK_EVERY, ack_every);
	return snic_transport_err(execute_ioctl(ibvqp->context, cmd));
}

static void snic_unpack_info(const struct snic_transport_info *t,
			     struct snicdv_transport_info *info,
			     uint32_t inlen)
{
	struct snicdv_transport_info i = {};

	memcpy(i.name, t->name, sizeof(i.name));
	i.name[sizeof(i.name) - 1] = '\0';
	i.program = t->program;
	i.credit = t->credit;
	i.flags = t->flags;
	i.ack_every = t->ack_every;
	i.state_bytes = le16toh(t->state_bytes);
	i.state_max = le16toh(t->state_max);
	i.qpc_bytes = le32toh(t->qpc_bytes);
	i.qp_num = le32toh(t->qpn);
	i.window = le32toh(t->window);
	i.rate_mbps = le32toh(t->rate_mbps);
	i.rtx_segments = le32toh(t->rtx_segments);
	i.cnp_rx = le32toh(t->cnp_rx);
	i.cnp_tx = le32toh(t->cnp_tx);
	memset(info, 0, inlen);
	memcpy(info, &i, inlen < sizeof(i) ? inlen : sizeof(i));
}

int snicdv_query_transport(struct ibv_qp *ibvqp,
			   struct snicdv_transport_info *info, uint32_t inlen)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_QP,
			       SNIC_IB_METHOD_QP_QUERY_TRANSPORT, 2);
	struct snic_transport_info t;
	int err;

	if (!snic_is_snic_dev(ibvqp->context->device))
		return EOPNOTSUPP;
	if (ibvqp->qp_type != IBV_QPT_RC)
		return EINVAL;
	fill_attr_in_obj(cmd, SNIC_IB_ATTR_TRANSPORT_QP_HANDLE, ibvqp->handle);
	fill_attr_out_ptr(cmd, SNIC_IB_ATTR_TRANSPORT_INFO, &t);
	err = execute_ioctl(ibvqp->context, cmd);
	if (err)
		return snic_transport_err(err);
	snic_unpack_info(&t, info, inlen);
	return 0;
}

int snicdv_query_program(struct ibv_context *ctx, uint32_t program,
			 struct snicdv_transport_info *info, uint32_t inlen)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_DEVICE,
			       SNIC_IB_METHOD_QUERY_PROGRAM, 2);
	struct snic_transport_info t;
	int err;

	if (!snic_is_snic_dev(ctx->device))
		return EOPNOTSUPP;
	if (program > UINT8_MAX)
		return EINVAL;
	fill_attr_in_uint32(cmd, SNIC_IB_ATTR_TRANSPORT_PROGRAM, program);
	fill_attr_out_ptr(cmd, SNIC_IB_ATTR_TRANSPORT_INFO, &t);
	err = execute_ioctl(ctx, cmd);
	if (err)
		return snic_transport_err(err);
	snic_unpack_info(&t, info, inlen);
	return 0;
}
