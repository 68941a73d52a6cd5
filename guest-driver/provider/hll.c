// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: HyperLogLog sketches on a QP's RDMA WRITEs (StRoM, EuroSys'20,
 * section 7.2) as snic direct verbs (snicdv.h). Each call is one of
 * snic.ko's driver methods (snic-abi.h, snic_hll.c of the driver), which
 * issues ATTACH_HLL, QUERY_HLL, RESET_HLL or DETACH_HLL; the device's
 * struct snic_hll_info comes back as the device wrote it (little-endian,
 * the estimate a double's bits) and is unpacked here.
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

static_assert(SNICDV_HLL_REGISTERS == SNIC_HLL_REGISTERS,
	      "snicdv's registers are the device's");

/* An old kernel has no such method: say so as the calls document */
static int snic_hll_err(int err)
{
	return err == EPROTONOSUPPORT || err == ENOENT ? EOPNOTSUPP : err;
}

static int snic_hll_check(struct ibv_qp *ibvqp)
{
	if (!snic_is_snic_dev(ibvqp->context->device))
		return EOPNOTSUPP;
	if (ibvqp->qp_type != IBV_QPT_RC && ibvqp->qp_type != IBV_QPT_UC)
		return EINVAL;
	return 0;
}

static int snic_hll_cmd(struct ibv_qp *ibvqp, uint16_t method)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_QP, method, 1);
	int err = snic_hll_check(ibvqp);

	if (err)
		return err;
	fill_attr_in_obj(cmd, SNIC_IB_ATTR_HLL_QP_HANDLE, ibvqp->handle);
	return snic_hll_err(execute_ioctl(ibvqp->context, cmd));
}

int snicdv_qp_attach_hll(struct ibv_qp *qp)
{
	return snic_hll_cmd(qp, SNIC_IB_METHOD_QP_ATTACH_HLL);
}

int snicdv_qp_reset_hll(struct ibv_qp *qp)
{
	return snic_hll_cmd(qp, SNIC_IB_METHOD_QP_RESET_HLL);
}

int snicdv_qp_detach_hll(struct ibv_qp *qp)
{
	return snic_hll_cmd(qp, SNIC_IB_METHOD_QP_DETACH_HLL);
}

int snicdv_qp_query_hll(struct ibv_qp *ibvqp, struct snicdv_hll_info *info,
			uint32_t inlen, uint8_t *regs)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_QP,
			       SNIC_IB_METHOD_QP_QUERY_HLL, 3);
	struct snicdv_hll_info i = {};
	struct snic_hll_info t;
	uint64_t bits;
	int err = snic_hll_check(ibvqp);

	if (err)
		return err;
	fill_attr_in_obj(cmd, SNIC_IB_ATTR_HLL_QP_HANDLE, ibvqp->handle);
	fill_attr_out_ptr(cmd, SNIC_IB_ATTR_HLL_INFO, &t);
	if (regs)
		fill_attr_in_uint64(cmd, SNIC_IB_ATTR_HLL_REGS,
				    (uintptr_t)regs);
	err = execute_ioctl(ibvqp->context, cmd);
	if (err)
		return snic_hll_err(err);
	bits = le64toh(t.estimate);
	memcpy(&i.estimate, &bits, sizeof(i.estimate));
	i.items = le64toh(t.items);
	i.qp_num = le32toh(t.qpn);
	i.zero_regs = le32toh(t.zero_regs);
	memset(info, 0, inlen);
	memcpy(info, &i, inlen < sizeof(i) ? inlen : sizeof(i));
	return 0;
}
