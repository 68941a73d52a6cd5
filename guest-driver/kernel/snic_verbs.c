// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic ib_device: a RoCEv2 port on the snic netdev, user contexts with a
 * doorbell page each, protection domains and hardware counters.
 *
 * GIDs are the RDMA core's: with RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP and the
 * netdev attached before registration, the core fills the RoCE v2 table
 * from the netdev's addresses and mirrors it into the device (add_gid /
 * del_gid), which lets user datagrams leave only from those addresses. The
 * source address itself travels in each QP's or WQE's address vector.
 */
#include <linux/dma-mapping.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include <snic/snic-abi.h>

#include "snic.h"

static_assert(sizeof(struct snic_ib_alloc_ucontext_resp) == 88);
static_assert(sizeof(struct snic_ib_alloc_pd_resp) == 8);
static_assert(SNIC_GID_TABLE_LEN <= SNIC_MAX_GIDS);
/* One mmap page is exactly one doorbell page: no context sees another's */
static_assert(PAGE_SIZE == SNIC_DB_PAGE_SIZE);

/* --- device and port queries -------------------------------------------- */

static int snic_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *props,
			     struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibdev);
	const struct snic_device_attr *a = &sdev->attr;
	u32 max_qp = le32_to_cpu(a->max_qp);

	/* No driver-specific query data in this ABI */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(props, 0, sizeof(*props));
	/* major.minor.0, the packing rdma-core's providers print */
	props->fw_ver = (u64)snic_fw_major(sdev) << 32 |
			(u64)snic_fw_minor(sdev) << 16;
	props->sys_image_guid = ibdev->node_guid;
	props->max_mr_size = (u64)le32_to_cpu(a->max_mr_pages) << PAGE_SHIFT;
	props->page_size_cap = le64_to_cpu(a->page_size_cap);
	props->vendor_id = sdev->pdev->vendor;
	props->vendor_part_id = sdev->pdev->device;
	props->hw_ver = sdev->pdev->revision;
	props->max_qp = max_qp;
	props->max_qp_wr = le32_to_cpu(a->max_qp_wr);
	props->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
				  IB_DEVICE_PORT_ACTIVE_EVENT;
	/* What the device lacks stays zero, so consumers and tests skip it */
	if (snic_has(sdev, SNIC_CAP_MW)) {
		props->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					   IB_DEVICE_MEM_WINDOW_TYPE_2B;
		props->max_mw = le32_to_cpu(a->max_mw);
	}
	/* Fast registration: the kernel's storage protocols need it */
	if (snic_has(sdev, SNIC_CAP_FRWR)) {
		props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		props->max_fast_reg_page_list_len = SNIC_FRWR_MAX_PAGES;
	}
	if (snic_has(sdev, SNIC_CAP_SRQ)) {
		/* CQEs name SRQ slots by 16 bits, like work queue slots */
		props->max_srq = le32_to_cpu(a->max_srq);
		props->max_srq_wr = min_t(u32, le32_to_cpu(a->max_srq_wr),
					  1u << 16);
		props->max_srq_sge = a->max_recv_sge;
	}
	if (snic_has(sdev, SNIC_CAP_MCAST)) {
		props->max_mcast_grp = le16_to_cpu(a->max_mcast_grp);
		props->max_mcast_qp_attach = le16_to_cpu(a->max_mcast_qp_attach);
		props->max_total_mcast_qp_attach = props->max_mcast_grp *
						   props->max_mcast_qp_attach;
	}
	if (snic_has(sdev, SNIC_CAP_CQ_MODERATION)) {
		props->cq_caps.max_cq_moderation_count =
			le16_to_cpu(a->max_cq_moderation);
		props->cq_caps.max_cq_moderation_period =
			le16_to_cpu(a->max_cq_moderation);
	}
	props->max_send_sge = a->max_send_sge;
	props->max_recv_sge = a->max_recv_sge;
	props->max_sge_rd = a->max_send_sge;
	props->max_cq = le32_to_cpu(a->max_cq);
	/* Providers size rings at twice the CQEs asked for (snic-abi.h) */
	props->max_cqe = le32_to_cpu(a->max_cqe) / 2 - 1;
	props->max_mr = le32_to_cpu(a->max_mr);
	props->max_pd = le32_to_cpu(a->max_pd);
	props->max_qp_rd_atom = a->max_rd_atomic;
	props->max_qp_init_rd_atom = a->max_rd_atomic;
	props->max_res_rd_atom = a->max_rd_atomic * max_qp;
	props->atomic_cap = IB_ATOMIC_HCA;
	/* UD address vectors travel in the WQE: AHs cost the device nothing */
	props->max_ah = max_qp * 64;
	props->max_pkeys = 1;
	props->local_ca_ack_delay = 15;
	return 0;
}

static int snic_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	struct snic_dev *sdev = to_sdev(ibdev);
	struct net_device *nd = sdev->netdev;
	int err;

	/* The core zeroed *attr */
	attr->gid_tbl_len = SNIC_GID_TABLE_LEN;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = 1u << 31;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = nd ? iboe_get_mtu(nd->mtu) : IB_MTU_1024;
	attr->max_vl_num = 1;
	if (nd && netif_running(nd) && netif_carrier_ok(nd)) {
		attr->state = IB_PORT_ACTIVE;
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	} else {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	}
	err = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	return err;
}

static int snic_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer snic_get_link_layer(struct ib_device *ibdev,
						u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int snic_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/*
 * The core's GID table mirrored into the device: a UD WQE of a user
 * context may only use one of these as its source address.
 */
static int snic_set_gid(const struct ib_gid_attr *attr, bool valid)
{
	if (attr->index >= SNIC_MAX_GIDS)
		return -EINVAL;
	return snic_com_set_gid(to_sdev(attr->device), attr->index,
				attr->gid.raw, valid);
}

static int snic_add_gid(const struct ib_gid_attr *attr, void **context)
{
	return snic_set_gid(attr, true);
}

static int snic_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return snic_set_gid(attr, false);
}

/* The RoCE GID table is the core's cache (see the top of this file). */
static int snic_query_gid(struct ib_device *ibdev, u32 port, int index,
			  union ib_gid *gid)
{
	return rdma_query_gid(ibdev, port, index, gid);
}

static void snic_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snic_fw_version_str(to_sdev(ibdev), str, IB_FW_VERSION_NAME_MAX);
}

/* --- user contexts and doorbell pages ------------------------------------ */

static int snic_alloc_ucontext(struct ib_ucontext *ibuc,
			       struct ib_udata *udata)
{
	struct snic_ucontext *uc = to_sucontext(ibuc);
	struct snic_dev *sdev = to_sdev(ibuc->device);
	const struct snic_device_attr *a = &sdev->attr;
	struct snic_ib_alloc_ucontext_resp resp = {};
	struct snic_user_mmap_entry *e;
	int page, err;

	err = snic_udata_cmd(udata, NULL, 0, 0);
	if (err)
		return err;

	page = ida_alloc_range(&sdev->db_page_ida, 1, sdev->num_db_pages - 1,
			       GFP_KERNEL);
	if (page < 0) {
		ibdev_dbg(&sdev->ibdev, "all %u doorbell pages in use\n",
			  sdev->num_db_pages - 1);
		return page == -ENOSPC ? -ENOMEM : page;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		ida_free(&sdev->db_page_ida, page);
		return -ENOMEM;
	}
	e->address = sdev->db_bar_start + (u64)page * SNIC_DB_PAGE_SIZE;
	e->page = page;
	err = rdma_user_mmap_entry_insert(ibuc, &e->rdma_entry,
					  SNIC_DB_PAGE_SIZE);
	if (err) {
		kfree(e);
		ida_free(&sdev->db_page_ida, page);
		return err;
	}
	uc->db_page = page;
	uc->db_entry = &e->rdma_entry;

	resp.db_page = page;
	resp.db_mmap_key = rdma_user_mmap_get_offset(uc->db_entry);
	resp.db_page_size = SNIC_DB_PAGE_SIZE;
	resp.max_qp_wr = le32_to_cpu(a->max_qp_wr);
	resp.max_cqe = le32_to_cpu(a->max_cqe);
	resp.sq_wqe_size = SNIC_SQ_WQE_SIZE;
	resp.rq_wqe_size = SNIC_RQ_WQE_SIZE;
	resp.cqe_size = SNIC_CQE_SIZE;
	resp.max_send_sge = a->max_send_sge;
	resp.max_recv_sge = a->max_recv_sge;
	resp.max_inline_data = snic_max_inline(sdev);
	if (snic_has(sdev, SNIC_CAP_SRQ))
		resp.max_srq_wr = min_t(u32, le32_to_cpu(a->max_srq_wr),
					1u << 16);
	if (snic_has(sdev, SNIC_CAP_RPC)) {
		resp.comp_mask |= SNIC_IB_UCONTEXT_RPC;
		resp.rpc_builtin_kernels = le32_to_cpu(a->builtin_kernels);
		resp.rpc_max_response = le32_to_cpu(a->max_rpc_response);
		resp.rpc_kernel_max_steps = le32_to_cpu(a->kernel_max_steps);
		resp.rpc_slots = le32_to_cpu(a->rpc_slots);
		resp.rpc_max_per_qp = le16_to_cpu(a->max_rpc_per_qp);
		resp.rpc_max_kernels = le16_to_cpu(a->max_kernels);
		resp.rpc_opmap = a->rpc_opmap;
		resp.rpc_ctx_slots = a->ctx_rpc_slots;
		resp.rpc_ctx_stage = a->ctx_rpc_stage;
		resp.rpc_qp_stage = a->qp_rpc_stage;
		resp.rpc_ctx_kernels = a->ctx_kernels;
	}
	resp.ctx_recv_pool = le16_to_cpu(a->ctx_recv_pool);
	resp.ctx_mcast_grp = a->ctx_mcast_grp;
	resp.ctx_mcast_qp_attach = a->ctx_mcast_qp_attach;
	resp.ctx_sr_ctrlq = snic_sr_ctx_share(sdev);
	snic_rpc_ucontext_init(uc);
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err) {
		/* mmap_free returns the page once the entry is gone */
		rdma_user_mmap_entry_remove(uc->db_entry);
		return err;
	}
	return 0;
}

static void snic_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct snic_ucontext *uc = to_sucontext(ibuc);

	if (!snic_rpc_ucontext_fini(to_sdev(ibuc->device), uc))
		to_smmap(uc->db_entry)->keep_page = true;
	rdma_user_mmap_entry_remove(uc->db_entry);
}

/* The core zaps the context's mappings; nothing else to revoke. */
static void snic_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int snic_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *re;
	struct snic_user_mmap_entry *e;
	int err;

	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	/* Only this context's entries are found: another's page is -EINVAL */
	re = rdma_user_mmap_entry_get(ibuc, vma);
	if (!re)
		return -EINVAL;
	e = to_smmap(re);
	err = rdma_user_mmap_io(ibuc, vma, PFN_DOWN(e->address),
				re->npages << PAGE_SHIFT,
				pgprot_noncached(vma->vm_page_prot), re);
	rdma_user_mmap_entry_put(re);
	return err;
}

/*
 * The last reference to a doorbell entry is gone: no process can still
 * have the page mapped, so it may go to the next context, unless a kernel
 * the device refused to undeploy still listens on it (leaked instead).
 */
static void snic_mmap_free(struct rdma_user_mmap_entry *re)
{
	struct snic_user_mmap_entry *e = to_smmap(re);
	struct snic_dev *sdev = to_sdev(re->ucontext->device);

	if (!e->keep_page)
		ida_free(&sdev->db_page_ida, e->page);
	kfree(e);
}

/* --- protection domains ------------------------------------------------- */

static int snic_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibpd->device);
	struct snic_ib_alloc_pd_resp resp = {};
	struct snic_pd *pd = to_spd(ibpd);
	struct snic_ucontext *uc;
	u16 ctx = SNIC_DB_KERNEL_PAGE;
	u32 pdn;
	int err;

	err = snic_udata_cmd(udata, NULL, 0, 0);
	if (err)
		return err;
	if (udata) {
		uc = rdma_udata_to_drv_context(udata, struct snic_ucontext,
					       ibucontext);
		ctx = uc->db_page;
	}
	err = snic_com_alloc_pd(sdev, ctx, &pdn);
	if (err)
		return err;
	pd->pdn = pdn;
	if (udata && udata->outlen) {
		resp.pdn = pdn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err) {
			snic_com_dealloc_pd(sdev, pdn);
			return err;
		}
	}
	return 0;
}

static int snic_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibpd->device);
	int err;

	/*
	 * The core has destroyed every object of the PD; a failure here is
	 * a dead device, and refusing would only leak the core's object.
	 */
	err = snic_com_dealloc_pd(sdev, to_spd(ibpd)->pdn);
	if (err)
		ibdev_warn(&sdev->ibdev, "DEALLOC_PD %u failed: %d\n",
			   to_spd(ibpd)->pdn, err);
	return 0;
}

/* --- hardware counters (rdma statistic) ---------------------------------- */

/* The device's counters, then the driver's SRNIC host half (sr_host_*) */
#define SNIC_STAT_DESC(field) { .name = #field },
#define SNIC_SR_STAT_DESC(field) { .name = "sr_host_" #field },
static const struct rdma_stat_desc snic_hw_stat_descs[] = {
	SNIC_DEV_STATS(SNIC_STAT_DESC)
	SNIC_SR_HOST_STATS(SNIC_SR_STAT_DESC)
};

static struct rdma_hw_stats *snic_alloc_hw_port_stats(struct ib_device *ibdev,
						       u32 port)
{
	return rdma_alloc_hw_stats_struct(snic_hw_stat_descs,
					  ARRAY_SIZE(snic_hw_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int snic_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	int err;

	err = snic_read_dev_stats(to_sdev(ibdev), stats->value);
	if (err)
		return err;
	snic_sr_read_stats(to_sdev(ibdev), stats->value + SNIC_NUM_DEV_STATS);
	return ARRAY_SIZE(snic_hw_stat_descs);
}

/* --- port events and registration ---------------------------------------- */

/* ib_dispatch_event() may sleep: port changes are reported from a work. */
static void snic_port_event_work(struct work_struct *work)
{
	struct snic_dev *sdev = container_of(work, struct snic_dev, port_work);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
		.event = READ_ONCE(sdev->port_active) ? IB_EVENT_PORT_ACTIVE :
							IB_EVENT_PORT_ERR,
	};

	ib_dispatch_event(&ev);
}

void snic_ib_port_event(struct snic_dev *sdev, bool active)
{
	WRITE_ONCE(sdev->port_active, active);
	if (READ_ONCE(sdev->ib_registered))
		schedule_work(&sdev->port_work);
}

/*
 * The QP context size and on-chip budget QUERY_DEVICE reports (SRNIC's
 * figures of merit), read-only under /sys/class/infiniband/<dev>/.
 */
#define SNIC_ATTR_SHOW(name, field)					\
static ssize_t name##_show(struct device *device,			\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct snic_dev *sdev =						\
		rdma_device_to_drv_device(device, struct snic_dev, ibdev); \
									\
	return sysfs_emit(buf, "%u\n", le32_to_cpu(sdev->attr.field));	\
}									\
static DEVICE_ATTR_RO(name)

SNIC_ATTR_SHOW(qpc_bytes, qp_state_bytes);
SNIC_ATTR_SHOW(qp_onchip_bytes, qp_onchip_bytes);
SNIC_ATTR_SHOW(onchip_bytes, onchip_bytes);
SNIC_ATTR_SHOW(onchip_fixed_bytes, onchip_fixed_bytes);
SNIC_ATTR_SHOW(performant_qps, performant_qps);

static struct attribute *snic_dev_attrs[] = {
	&dev_attr_qpc_bytes.attr,
	&dev_attr_qp_onchip_bytes.attr,
	&dev_attr_onchip_bytes.attr,
	&dev_attr_onchip_fixed_bytes.attr,
	&dev_attr_performant_qps.attr,
	NULL,
};

static const struct attribute_group snic_dev_attr_group = {
	.attrs = snic_dev_attrs,
};

static const struct ib_device_ops snic_dev_ops = {
	.device_group = &snic_dev_attr_group,
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SNIC_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = snic_alloc_hw_port_stats,
	.alloc_pd = snic_alloc_pd,
	.add_gid = snic_add_gid,
	.alloc_ucontext = snic_alloc_ucontext,
	.create_ah = snic_create_ah,
	.create_cq = snic_create_cq,
	.create_qp = snic_create_qp,
	.create_user_ah = snic_create_ah,
	.dealloc_pd = snic_dealloc_pd,
	.dealloc_ucontext = snic_dealloc_ucontext,
	.del_gid = snic_del_gid,
	.dereg_mr = snic_dereg_mr,
	.destroy_ah = snic_destroy_ah,
	.destroy_cq = snic_destroy_cq,
	.destroy_qp = snic_destroy_qp,
	.disassociate_ucontext = snic_disassociate_ucontext,
	.get_dev_fw_str = snic_get_dev_fw_str,
	.get_dma_mr = snic_get_dma_mr,
	.get_hw_stats = snic_get_hw_stats,
	.get_link_layer = snic_get_link_layer,
	.get_port_immutable = snic_get_port_immutable,
	.mmap = snic_mmap,
	.mmap_free = snic_mmap_free,
	.modify_qp = snic_modify_qp,
	.poll_cq = snic_poll_cq,
	.post_recv = snic_post_recv,
	.post_send = snic_post_send,
	.query_device = snic_query_device,
	.query_gid = snic_query_gid,
	.query_pkey = snic_query_pkey,
	.query_port = snic_query_port,
	.query_qp = snic_query_qp,
	.reg_user_mr = snic_reg_user_mr,
	.req_notify_cq = snic_req_notify_cq,
	.rereg_user_mr = snic_rereg_user_mr,
	.resize_cq = snic_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, snic_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, snic_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, snic_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, snic_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, snic_ucontext, ibucontext),
};

/*
 * Verbs for what only some devices offer (capability bits): set only
 * when the device has them, so the RDMA core and libibverbs report the
 * rest as unsupported. REREG_MR and RESIZE_CQ are ABI 2.0 commands every
 * device has (a device without them answers EOPNOTSUPP).
 */
static const struct ib_device_ops snic_srq_ops = {
	.create_srq = snic_create_srq,
	.destroy_srq = snic_destroy_srq,
	.modify_srq = snic_modify_srq,
	.post_srq_recv = snic_post_srq_recv,
	.query_srq = snic_query_srq,

	INIT_RDMA_OBJ_SIZE(ib_srq, snic_srq, ibsrq),
};

static const struct ib_device_ops snic_mw_ops = {
	.alloc_mw = snic_alloc_mw,
	.dealloc_mw = snic_dealloc_mw,

	INIT_RDMA_OBJ_SIZE(ib_mw, snic_mw, ibmw),
};

static const struct ib_device_ops snic_frwr_ops = {
	.alloc_mr = snic_alloc_mr,
	.map_mr_sg = snic_map_mr_sg,
};

static const struct ib_device_ops snic_mcast_ops = {
	.attach_mcast = snic_attach_mcast,
	.detach_mcast = snic_detach_mcast,
};

static const struct ib_device_ops snic_cq_moderation_ops = {
	.modify_cq = snic_modify_cq,
};

int snic_ib_register(struct snic_dev *sdev)
{
	struct ib_device *ibdev = &sdev->ibdev;
	int err;

	ibdev->node_type = RDMA_NODE_IB_CA;
	strscpy(ibdev->node_desc, "snic RoCEv2 NIC", sizeof(ibdev->node_desc));
	ibdev->phys_port_cnt = 1;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, sdev->attr.mac);
	/* Gives the device a modalias: the provider matches on PCI ids */
	ibdev->dev.parent = &sdev->pdev->dev;
	ib_set_device_ops(ibdev, &snic_dev_ops);
	if (snic_has(sdev, SNIC_CAP_SRQ))
		ib_set_device_ops(ibdev, &snic_srq_ops);
	if (snic_has(sdev, SNIC_CAP_MW))
		ib_set_device_ops(ibdev, &snic_mw_ops);
	if (snic_has(sdev, SNIC_CAP_FRWR))
		ib_set_device_ops(ibdev, &snic_frwr_ops);
	if (snic_has(sdev, SNIC_CAP_CQ_MODERATION))
		ib_set_device_ops(ibdev, &snic_cq_moderation_ops);
	if (snic_has(sdev, SNIC_CAP_MCAST))
		ib_set_device_ops(ibdev, &snic_mcast_ops);
	snic_rpc_set_methods(sdev);
	INIT_WORK(&sdev->port_work, snic_port_event_work);

	/* Before registering: registration queries the port's speed */
	err = ib_device_set_netdev(ibdev, sdev->netdev, 1);
	if (err)
		return err;
	err = ib_register_device(ibdev, "snic_%d", &sdev->pdev->dev);
	if (err) {
		ib_device_set_netdev(ibdev, NULL, 1);
		return err;
	}
	WRITE_ONCE(sdev->ib_registered, true);
	return 0;
}

void snic_ib_unregister(struct snic_dev *sdev)
{
	WRITE_ONCE(sdev->ib_registered, false);
	/* No link event handler can schedule the work after this */
	synchronize_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN));
	cancel_work_sync(&sdev->port_work);
	ib_unregister_device(&sdev->ibdev);
}
