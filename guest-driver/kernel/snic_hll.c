// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic HyperLogLog sketches (StRoM, EuroSys'20, section 7.2): the driver
 * methods through which libsnic's snicdv_qp_attach_hll, _query_hll,
 * _reset_hll and _detach_hll reach the device's ATTACH_HLL, QUERY_HLL,
 * RESET_HLL and DETACH_HLL (include/snic/snic-abi.h, snic_admin.h).
 *
 * Methods beside snic_transport.c's: the driver passes the QP's number
 * (the QP handle is checked by uverbs, so a process reaches no QP but its
 * own) and the device checks the rest. The estimate comes back as the
 * bits of a double the device computed: this module does no floating
 * point. A QP's sketch goes back to the device's pool when the QP is
 * destroyed or moved to RESET, so the driver keeps nothing.
 */
#define UVERBS_MODULE_NAME snic_ib

#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"
#include "snic_com.h"

static_assert(SNIC_IB_METHOD_QP_ATTACH_HLL ==
	      (1U << UVERBS_ID_NS_SHIFT) + 3);
static_assert(SNIC_IB_ATTR_HLL_QP_HANDLE == 1U << UVERBS_ID_NS_SHIFT);

static int snic_hll_qp_cmd(struct uverbs_attr_bundle *attrs, u8 opcode)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
						 SNIC_IB_ATTR_HLL_QP_HANDLE);

	return snic_com_hll(to_sdev(ibqp->device), opcode, to_sqp(ibqp)->qpn);
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QP_ATTACH_HLL)(
	struct uverbs_attr_bundle *attrs)
{
	return snic_hll_qp_cmd(attrs, SNIC_ADMIN_ATTACH_HLL);
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QP_RESET_HLL)(
	struct uverbs_attr_bundle *attrs)
{
	return snic_hll_qp_cmd(attrs, SNIC_ADMIN_RESET_HLL);
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QP_DETACH_HLL)(
	struct uverbs_attr_bundle *attrs)
{
	return snic_hll_qp_cmd(attrs, SNIC_ADMIN_DETACH_HLL);
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QP_QUERY_HLL)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
						 SNIC_IB_ATTR_HLL_QP_HANDLE);
	struct snic_hll_info info;
	u8 *regs = NULL;
	u64 uaddr = 0;
	int err;

	if (uverbs_attr_is_valid(attrs, SNIC_IB_ATTR_HLL_REGS)) {
		err = uverbs_copy_from(&uaddr, attrs, SNIC_IB_ATTR_HLL_REGS);
		if (err)
			return err;
		/* 64 KiB: more than a method attribute carries (u16 length) */
		regs = kvmalloc(SNIC_HLL_REGISTERS, GFP_KERNEL);
		if (!regs)
			return -ENOMEM;
	}
	err = snic_com_query_hll(to_sdev(ibqp->device), to_sqp(ibqp)->qpn,
				 &info, regs);
	if (!err && regs &&
	    copy_to_user(u64_to_user_ptr(uaddr), regs, SNIC_HLL_REGISTERS))
		err = -EFAULT;
	kvfree(regs);
	if (err)
		return err;
	return uverbs_copy_to(attrs, SNIC_IB_ATTR_HLL_INFO, &info,
			      sizeof(info));
}

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QP_ATTACH_HLL,
	UVERBS_ATTR_IDR(SNIC_IB_ATTR_HLL_QP_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_WRITE, UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QP_RESET_HLL,
	UVERBS_ATTR_IDR(SNIC_IB_ATTR_HLL_QP_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_WRITE, UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QP_DETACH_HLL,
	UVERBS_ATTR_IDR(SNIC_IB_ATTR_HLL_QP_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_WRITE, UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QP_QUERY_HLL,
	UVERBS_ATTR_IDR(SNIC_IB_ATTR_HLL_QP_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SNIC_IB_ATTR_HLL_INFO,
			    UVERBS_ATTR_TYPE(struct snic_hll_info),
			    UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_HLL_REGS, UVERBS_ATTR_TYPE(u64),
			   UA_OPTIONAL));

ADD_UVERBS_METHODS(snic_hll_qp, UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(SNIC_IB_METHOD_QP_ATTACH_HLL),
		   &UVERBS_METHOD(SNIC_IB_METHOD_QP_QUERY_HLL),
		   &UVERBS_METHOD(SNIC_IB_METHOD_QP_RESET_HLL),
		   &UVERBS_METHOD(SNIC_IB_METHOD_QP_DETACH_HLL));

const struct uapi_definition snic_hll_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &snic_hll_qp),
	UAPI_DEF_CHAIN(snic_cl_uapi_defs),
	{}
};
