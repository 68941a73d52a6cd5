// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic's connectionless transport ("Connectionless Transport with Receiver
 * Registration", sections 3-3.4): the driver method through which
 * libsnic's snicdv_create_qp makes a UD QP an endpoint, the device's
 * SET_QP_CL (include/snic/snic-abi.h, snic_cl.h).
 *
 * A method beside snic_transport.c's: an endpoint is chosen between
 * create and RTR, when no verb carries it. The driver passes the QP's
 * number (the QP handle is checked by uverbs, so a process reaches no QP
 * but its own) and the device checks the rest: a UD QP, in RESET or
 * INIT, segments and timeouts it can keep. The endpoint's work requests
 * and receive notifications go through the QP's own rings and CQs, so
 * the driver keeps nothing for it.
 */
#define UVERBS_MODULE_NAME snic_ib

#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"
#include "snic_com.h"

static_assert(SNIC_IB_METHOD_QP_SET_CL == (1U << UVERBS_ID_NS_SHIFT) + 7);
static_assert(SNIC_IB_ATTR_CL_QP_HANDLE == 1U << UVERBS_ID_NS_SHIFT);

/* An optional __u32 attribute: 0 when absent */
static int snic_cl_attr(struct uverbs_attr_bundle *attrs, u16 id, u32 *val)
{
	*val = 0;
	if (!uverbs_attr_is_valid(attrs, id))
		return 0;
	return uverbs_copy_from(val, attrs, id);
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QP_SET_CL)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
						 SNIC_IB_ATTR_CL_QP_HANDLE);
	u32 thr, seg, tmo, retries;
	int err;

	err = snic_cl_attr(attrs, SNIC_IB_ATTR_CL_SEG_THRESHOLD, &thr) ?:
	      snic_cl_attr(attrs, SNIC_IB_ATTR_CL_SEG_SIZE, &seg) ?:
	      snic_cl_attr(attrs, SNIC_IB_ATTR_CL_TIMEOUT_US, &tmo) ?:
	      snic_cl_attr(attrs, SNIC_IB_ATTR_CL_RETRIES, &retries);
	if (err)
		return err;
	if (ibqp->qp_type != IB_QPT_UD || retries > U8_MAX)
		return -EINVAL;
	return snic_com_set_qp_cl(to_sdev(ibqp->device), to_sqp(ibqp)->qpn,
				  thr, seg, tmo, retries);
}

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QP_SET_CL,
	UVERBS_ATTR_IDR(SNIC_IB_ATTR_CL_QP_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_WRITE, UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_CL_SEG_THRESHOLD,
			   UVERBS_ATTR_TYPE(u32), UA_OPTIONAL),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_CL_SEG_SIZE,
			   UVERBS_ATTR_TYPE(u32), UA_OPTIONAL),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_CL_TIMEOUT_US,
			   UVERBS_ATTR_TYPE(u32), UA_OPTIONAL),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_CL_RETRIES,
			   UVERBS_ATTR_TYPE(u32), UA_OPTIONAL));

ADD_UVERBS_METHODS(snic_cl_qp, UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(SNIC_IB_METHOD_QP_SET_CL));

const struct uapi_definition snic_cl_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &snic_cl_qp),
	{}
};
