// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic transport programs (Tonic, NSDI'20, section 3): the driver methods
 * through which libsnic's snicdv_set_transport / snicdv_query_transport
 * reach the device's SET_QP_TRANSPORT and QUERY_TRANSPORT admin commands
 * (include/snic/snic-abi.h, snic_admin.h).
 *
 * Methods, as snic_rpc.c's: a QP's program is chosen between create and
 * RTR, when no verb carries it. The device checks the rest (RC, RESET or
 * INIT, a program it has: EINVAL; a program numbering its messages on a
 * QP with RPCs on: EOPNOTSUPP); the driver only passes the QP's number, so a
 * process reaches no QP but its own (the QP handle is checked by uverbs).
 * SRNIC's QPs get their host half from the driver (snic_sr.c).
 */
#define UVERBS_MODULE_NAME snic_ib

#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"

static_assert(SNIC_IB_METHOD_QP_SET_TRANSPORT ==
	      (1U << UVERBS_ID_NS_SHIFT) + 1);
static_assert(SNIC_IB_ATTR_TRANSPORT_QP_HANDLE == 1U << UVERBS_ID_NS_SHIFT);

/*
 * QP qpn runs program from now on (kernel and user QPs alike). SRNIC's
 * RetryQ and bitmaps come with it (SET_QP_SR, before RTR: the selection
 * is refused past INIT); another program's selection, or a failure to
 * set them up (the QP back on go-back-N), lets them go.
 */
int snic_qp_set_transport(struct snic_dev *sdev, u32 qpn, u8 program,
			  u8 ack_every)
{
	bool sr = program == SNIC_TRANSPORT_SRNIC ||
		  program == SNIC_TRANSPORT_SRNIC_DCTCP;
	int err;

	if (sr && !snic_sr_enabled(sdev))
		return -EINVAL;		/* as for a program it lacks */
	err = snic_com_set_qp_transport(sdev, qpn, program, ack_every);
	if (err)
		return err;
	if (sr) {
		err = snic_sr_qp_enable(sdev, qpn);
		if (err)
			snic_com_set_qp_transport(sdev, qpn, SNIC_TRANSPORT_GBN,
						  0);
	}
	if (!sr || err)
		snic_sr_qp_put(sdev, snic_sr_qp_take(sdev, qpn));
	return err;
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QP_SET_TRANSPORT)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
					SNIC_IB_ATTR_TRANSPORT_QP_HANDLE);
	u32 program, ack_every = 0;
	int err;

	err = uverbs_copy_from(&program, attrs,
			       SNIC_IB_ATTR_TRANSPORT_PROGRAM);
	if (err)
		return err;
	if (uverbs_attr_is_valid(attrs, SNIC_IB_ATTR_TRANSPORT_ACK_EVERY)) {
		err = uverbs_copy_from(&ack_every, attrs,
				       SNIC_IB_ATTR_TRANSPORT_ACK_EVERY);
		if (err)
			return err;
	}
	if (program > U8_MAX || ack_every > U8_MAX)
		return -EINVAL;
	return snic_qp_set_transport(to_sdev(ibqp->device), to_sqp(ibqp)->qpn,
				     program, ack_every);
}

static int snic_transport_reply(struct uverbs_attr_bundle *attrs,
				struct snic_dev *sdev, u32 qpn, u32 program)
{
	struct snic_transport_info info;
	int err;

	err = snic_com_query_transport(sdev, qpn, program, &info);
	if (err)
		return err;
	return uverbs_copy_to(attrs, SNIC_IB_ATTR_TRANSPORT_INFO, &info,
			      sizeof(info));
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QP_QUERY_TRANSPORT)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
					SNIC_IB_ATTR_TRANSPORT_QP_HANDLE);

	return snic_transport_reply(attrs, to_sdev(ibqp->device),
				    to_sqp(ibqp)->qpn, 0);
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QUERY_PROGRAM)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ibuc = ib_uverbs_get_ucontext(attrs);
	u32 program;
	int err;

	if (IS_ERR(ibuc))
		return PTR_ERR(ibuc);
	err = uverbs_copy_from(&program, attrs,
			       SNIC_IB_ATTR_TRANSPORT_PROGRAM);
	if (err)
		return err;
	if (program > U8_MAX)
		return -EINVAL;
	/* qpn 0: the program itself, not a QP's */
	return snic_transport_reply(attrs, to_sdev(ibuc->device), 0, program);
}

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QP_SET_TRANSPORT,
	UVERBS_ATTR_IDR(SNIC_IB_ATTR_TRANSPORT_QP_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_WRITE, UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_TRANSPORT_PROGRAM,
			   UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_TRANSPORT_ACK_EVERY,
			   UVERBS_ATTR_TYPE(u32), UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QP_QUERY_TRANSPORT,
	UVERBS_ATTR_IDR(SNIC_IB_ATTR_TRANSPORT_QP_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SNIC_IB_ATTR_TRANSPORT_INFO,
			    UVERBS_ATTR_TYPE(struct snic_transport_info),
			    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QUERY_PROGRAM,
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_TRANSPORT_PROGRAM,
			   UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SNIC_IB_ATTR_TRANSPORT_INFO,
			    UVERBS_ATTR_TYPE(struct snic_transport_info),
			    UA_MANDATORY));

ADD_UVERBS_METHODS(snic_transport_qp, UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(SNIC_IB_METHOD_QP_SET_TRANSPORT),
		   &UVERBS_METHOD(SNIC_IB_METHOD_QP_QUERY_TRANSPORT));

ADD_UVERBS_METHODS(snic_transport_device, UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(SNIC_IB_METHOD_QUERY_PROGRAM));

const struct uapi_definition snic_transport_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &snic_transport_qp),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &snic_transport_device),
	UAPI_DEF_CHAIN(snic_hll_uapi_defs),
	{}
};
