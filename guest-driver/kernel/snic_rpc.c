// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic StRoM RPCs (StRoM, EuroSys'20, sections 4-5): the driver methods
 * through which libsnic's snicdv calls reach the device's ABI 2.1 admin
 * commands (include/snic/snic-abi.h, snic_rpc.h).
 *
 * Methods rather than udata on standard verbs, as efa and mlx5 do for what
 * the verbs lack: RPC is switched on per QP between create and RTR (no
 * verb carries it then), and a kernel is deployed for the whole context.
 * The device keys deployed kernels by (context, RPC op-code), so a process
 * can only ever deploy for, and reach, its own QPs; the driver keeps each
 * context's op-codes to answer EEXIST/ENOENT and to undeploy them when the
 * context goes, whatever way the process ended.
 */
#define UVERBS_MODULE_NAME snic_ib

#include <linux/list.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"

/* snic-abi.h spells the driver namespace out; it must be the core's */
static_assert(SNIC_IB_METHOD_QP_SET_RPC == 1U << UVERBS_ID_NS_SHIFT);
static_assert(SNIC_IB_METHOD_DEPLOY_KERNEL == 1U << UVERBS_ID_NS_SHIFT);
static_assert(SNIC_IB_ATTR_QP_SET_RPC_HANDLE == 1U << UVERBS_ID_NS_SHIFT);
static_assert(SNIC_IB_ATTR_DEPLOY_RPC_OPCODE == 1U << UVERBS_ID_NS_SHIFT);

struct snic_deployed {
	struct list_head list;
	u64 rpc_opcode;
};

void snic_rpc_ucontext_init(struct snic_ucontext *uc)
{
	mutex_init(&uc->kernels_lock);
	INIT_LIST_HEAD(&uc->kernels);
}

/*
 * The context is going: nothing it deployed may serve a later context.
 * False if the device refused an undeploy: that kernel may still answer
 * RPCs through this context's doorbell page, so the caller must not give
 * the page to another context (as snic_com_destroyed() keeps a ring).
 */
bool snic_rpc_ucontext_fini(struct snic_dev *sdev, struct snic_ucontext *uc)
{
	struct snic_deployed *d, *tmp;
	bool undeployed = true;
	int err;

	list_for_each_entry_safe(d, tmp, &uc->kernels, list) {
		err = snic_com_deploy_kernel(sdev, uc->db_page, d->rpc_opcode,
					     0);
		/* any error counts as still deployed (even "not deployed"
		 * after a reset): the page is kept, never reused wrongly
		 */
		if (!snic_com_destroyed(sdev, err,
					"RPC kernel (doorbell page kept) of context",
					uc->db_page))
			undeployed = false;
		list_del(&d->list);
		kfree(d);
	}
	mutex_destroy(&uc->kernels_lock);
	return undeployed;
}

static struct snic_deployed *snic_deployed_find(struct snic_ucontext *uc,
						u64 rpc_opcode)
{
	struct snic_deployed *d;

	list_for_each_entry(d, &uc->kernels, list)
		if (d->rpc_opcode == rpc_opcode)
			return d;
	return NULL;
}

static struct snic_ucontext *snic_attrs_ucontext(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ibuc = ib_uverbs_get_ucontext(attrs);

	return IS_ERR(ibuc) ? ERR_CAST(ibuc) : to_sucontext(ibuc);
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_QP_SET_RPC)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
						 SNIC_IB_ATTR_QP_SET_RPC_HANDLE);
	struct snic_dev *sdev = to_sdev(ibqp->device);
	u32 flags;
	int err;

	err = uverbs_copy_from(&flags, attrs, SNIC_IB_ATTR_QP_SET_RPC_FLAGS);
	if (err)
		return err;
	if (flags & ~(SNIC_QP_RPC_ENABLE | SNIC_QP_RPC_FALLBACK))
		return -EINVAL;
	/*
	 * The device checks the rest: RC, RESET or INIT (else EINVAL), and a
	 * transport program without message numbers (else EOPNOTSUPP)
	 */
	return snic_com_set_qp_rpc(sdev, to_sqp(ibqp)->qpn, flags);
}

/*
 * The device's kernel table (max_kernels entries) is shared by every
 * process: one context may hold a quarter of it, so no process can
 * leave the others without room. The device enforces it too and says
 * how much (ctx_kernels, ABI 3.10); before that, the same rule here.
 */
static unsigned int snic_kernels_per_context(struct snic_dev *sdev)
{
	return sdev->attr.ctx_kernels ?:
	       max(le16_to_cpu(sdev->attr.max_kernels) / 4, 1);
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_DEPLOY_KERNEL)(
	struct uverbs_attr_bundle *attrs)
{
	struct snic_ucontext *uc = snic_attrs_ucontext(attrs);
	struct snic_deployed *d;
	struct snic_dev *sdev;
	u32 kernel_id;
	u64 opcode;
	int err;

	if (IS_ERR(uc))
		return PTR_ERR(uc);
	sdev = to_sdev(uc->ibucontext.device);
	err = uverbs_copy_from(&opcode, attrs, SNIC_IB_ATTR_DEPLOY_RPC_OPCODE);
	if (!err)
		err = uverbs_copy_from(&kernel_id, attrs,
				       SNIC_IB_ATTR_DEPLOY_KERNEL_ID);
	if (err)
		return err;
	/* 0 would be an undeploy; ids are 16-bit on the device */
	if (!kernel_id || kernel_id > U16_MAX)
		return -EINVAL;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->rpc_opcode = opcode;
	mutex_lock(&uc->kernels_lock);
	if (snic_deployed_find(uc, opcode)) {
		err = -EEXIST;
		goto out;
	}
	if (uc->nr_kernels >= snic_kernels_per_context(sdev)) {
		err = -ENOSPC;
		goto out;
	}
	err = snic_com_deploy_kernel(sdev, uc->db_page, opcode, kernel_id);
	if (err == -ENOMEM)
		err = -ENOSPC;	/* the device's table, not our memory */
	if (!err) {
		list_add(&d->list, &uc->kernels);
		uc->nr_kernels++;
		d = NULL;
	}
out:
	mutex_unlock(&uc->kernels_lock);
	kfree(d);
	return err;
}

static int UVERBS_HANDLER(SNIC_IB_METHOD_UNDEPLOY_KERNEL)(
	struct uverbs_attr_bundle *attrs)
{
	struct snic_ucontext *uc = snic_attrs_ucontext(attrs);
	struct snic_deployed *d;
	u64 opcode;
	int err;

	if (IS_ERR(uc))
		return PTR_ERR(uc);
	err = uverbs_copy_from(&opcode, attrs, SNIC_IB_ATTR_DEPLOY_RPC_OPCODE);
	if (err)
		return err;
	mutex_lock(&uc->kernels_lock);
	d = snic_deployed_find(uc, opcode);
	if (!d) {
		err = -ENOENT;
	} else {
		err = snic_com_deploy_kernel(to_sdev(uc->ibucontext.device),
					     uc->db_page, opcode, 0);
		if (!err) {
			list_del(&d->list);
			uc->nr_kernels--;
			kfree(d);
		}
	}
	mutex_unlock(&uc->kernels_lock);
	return err;
}

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_QP_SET_RPC,
	UVERBS_ATTR_IDR(SNIC_IB_ATTR_QP_SET_RPC_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_WRITE, UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_QP_SET_RPC_FLAGS,
			   UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_DEPLOY_KERNEL,
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_DEPLOY_RPC_OPCODE,
			   UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_DEPLOY_KERNEL_ID,
			   UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(SNIC_IB_METHOD_UNDEPLOY_KERNEL,
	UVERBS_ATTR_PTR_IN(SNIC_IB_ATTR_DEPLOY_RPC_OPCODE,
			   UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

ADD_UVERBS_METHODS(snic_rpc_qp, UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(SNIC_IB_METHOD_QP_SET_RPC));

ADD_UVERBS_METHODS(snic_rpc_device, UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(SNIC_IB_METHOD_DEPLOY_KERNEL),
		   &UVERBS_METHOD(SNIC_IB_METHOD_UNDEPLOY_KERNEL));

static const struct uapi_definition snic_rpc_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &snic_rpc_qp),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &snic_rpc_device),
	UAPI_DEF_CHAIN(snic_transport_uapi_defs),
	{}
};

/*
 * Before registration: the RPC methods exist only where the device has
 * RPCs; the transport methods (snic_transport.c) on every device.
 */
void snic_rpc_set_methods(struct snic_dev *sdev)
{
	sdev->ibdev.driver_def = snic_has(sdev, SNIC_CAP_RPC) ?
				 snic_rpc_uapi_defs : snic_transport_uapi_defs;
}
