// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic admin commands: one typed function per command (efa_com_cmd.c's
 * shape). This file alone builds struct snic_admin_cmd; the queue that
 * runs them is snic_admin.c, the callers are the verbs and the netdev,
 * which also share the firmware version and the device counters here.
 */
#include <linux/dma-mapping.h>

#include "snic.h"

/* A command whose only argument is an object handle (DEALLOC_PD, ...) */
static int snic_com_obj_cmd(struct snic_dev *sdev, u8 opcode, u32 handle)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, opcode, sizeof(cmd.obj));
	cmd.obj.handle = cpu_to_le32(handle);
	return snic_admin_exec(sdev, &cmd, NULL);
}

/*
 * A command whose result is a 32-bit value: a created object's number
 * (snic_com_create), an SRQ's limit, the old tail of a resized CQ.
 */
static int snic_com_value(struct snic_dev *sdev, struct snic_admin_cmd *cmd,
			  u32 *value)
{
	u64 result;
	int err;

	err = snic_admin_exec(sdev, cmd, &result);
	if (!err)
		*value = result;
	return err;
}

/* A command that creates an object: *handle gets the device's number. */
static int snic_com_create(struct snic_dev *sdev, struct snic_admin_cmd *cmd,
			   u32 *handle)
{
	return snic_com_value(sdev, cmd, handle);
}

/* --- device ------------------------------------------------------------- */

/* QUERY_DEVICE and GET_STATS write into the shared response buffer. */
static int snic_com_read(struct snic_dev *sdev, u8 opcode, void *out,
			 size_t len)
{
	struct snic_admin *aq = &sdev->admin;
	struct snic_admin_cmd cmd;
	int err;

	snic_admin_cmd_init(&cmd, opcode, sizeof(cmd.resp));
	cmd.resp.resp_addr = cpu_to_le64(aq->resp_dma);
	cmd.resp.resp_len = cpu_to_le32(len);
	mutex_lock(&aq->resp_lock);
	memset(aq->resp, 0, len);
	err = snic_admin_exec(sdev, &cmd, NULL);
	if (!err)
		memcpy(out, aq->resp, len);
	mutex_unlock(&aq->resp_lock);
	return err;
}

int snic_com_query_device(struct snic_dev *sdev, struct snic_device_attr *a)
{
	int err;

	err = snic_com_read(sdev, SNIC_ADMIN_QUERY_DEVICE, a, sizeof(*a));
	if (err)
		return err;
	if (le32_to_cpu(a->magic) != SNIC_MAGIC ||
	    le32_to_cpu(a->abi_version) >> 16 != SNIC_ABI_VERSION_MAJOR) {
		dev_err(&sdev->pdev->dev, "QUERY_DEVICE: bad magic/ABI %#x/%#x\n",
			le32_to_cpu(a->magic), le32_to_cpu(a->abi_version));
		return -ENODEV;
	}
	return 0;
}

int snic_com_get_stats(struct snic_dev *sdev, struct snic_stats *stats)
{
	return snic_com_read(sdev, SNIC_ADMIN_GET_STATS, stats, sizeof(*stats));
}

/* --- Ethernet function -------------------------------------------------- */

int snic_com_set_mtu(struct snic_dev *sdev, u32 mtu)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MTU, sizeof(cmd.set_mtu));
	cmd.set_mtu.mtu = cpu_to_le32(mtu);
	return snic_admin_exec(sdev, &cmd, NULL);
}

int snic_com_set_mac(struct snic_dev *sdev, const u8 *mac)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_MAC, sizeof(cmd.set_mac));
	memcpy(cmd.set_mac.mac, mac, sizeof(cmd.set_mac.mac));
	return snic_admin_exec(sdev, &cmd, NULL);
}

int snic_com_create_eth_queue(struct snic_dev *sdev,
			      const struct snic_com_create_eth_queue_params *p,
			      u32 *qid)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_ETH_QUEUE,
			    sizeof(cmd.create_eth_queue));
	cmd.create_eth_queue.ring_addr = cpu_to_le64(p->ring_dma);
	cmd.create_eth_queue.type = p->type;
	cmd.create_eth_queue.log2_depth = p->log2_depth;
	cmd.create_eth_queue.vector = cpu_to_le16(p->vector);
	return snic_com_create(sdev, &cmd, qid);
}

/* DESTROY/START/STOP_ETH_QUEUE */
static int snic_com_eth_queue_cmd(struct snic_dev *sdev, u8 opcode, u8 type,
				  u32 qid)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, opcode, sizeof(cmd.eth_queue));
	cmd.eth_queue.type = type;
	cmd.eth_queue.qid = cpu_to_le32(qid);
	return snic_admin_exec(sdev, &cmd, NULL);
}

int snic_com_start_eth_queue(struct snic_dev *sdev, u8 type, u32 qid)
{
	return snic_com_eth_queue_cmd(sdev, SNIC_ADMIN_START_ETH_QUEUE, type,
				      qid);
}

int snic_com_stop_eth_queue(struct snic_dev *sdev, u8 type, u32 qid)
{
	return snic_com_eth_queue_cmd(sdev, SNIC_ADMIN_STOP_ETH_QUEUE, type,
				      qid);
}

int snic_com_destroy_eth_queue(struct snic_dev *sdev, u8 type, u32 qid)
{
	return snic_com_eth_queue_cmd(sdev, SNIC_ADMIN_DESTROY_ETH_QUEUE, type,
				      qid);
}

/* --- RDMA objects ------------------------------------------------------- */

/* Entry 'index' of the port's source address table, or its removal. */
int snic_com_set_gid(struct snic_dev *sdev, u8 index, const u8 *gid,
		     bool valid)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_GID, sizeof(cmd.set_gid));
	cmd.set_gid.index = index;
	cmd.set_gid.flags = valid ? SNIC_GID_VALID : 0;
	memcpy(cmd.set_gid.gid, gid, sizeof(cmd.set_gid.gid));
	return snic_admin_exec(sdev, &cmd, NULL);
}

int snic_com_alloc_pd(struct snic_dev *sdev, u16 ctx, u32 *pdn)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_PD, sizeof(cmd.alloc_pd));
	cmd.alloc_pd.ctx = cpu_to_le16(ctx);
	return snic_com_create(sdev, &cmd, pdn);
}

int snic_com_dealloc_pd(struct snic_dev *sdev, u32 pdn)
{
	return snic_com_obj_cmd(sdev, SNIC_ADMIN_DEALLOC_PD, pdn);
}

int snic_com_reg_mr(struct snic_dev *sdev,
		    const struct snic_com_reg_mr_params *p, u32 *key)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
	cmd.reg_mr.iova = cpu_to_le64(p->iova);
	cmd.reg_mr.length = cpu_to_le64(p->length);
	cmd.reg_mr.pbl_addr = cpu_to_le64(p->pbl_dma);
	cmd.reg_mr.npages = cpu_to_le32(p->npages);
	cmd.reg_mr.pdn = cpu_to_le32(p->pdn);
	cmd.reg_mr.access = cpu_to_le32(p->access);
	cmd.reg_mr.page_shift = p->page_shift;
	cmd.reg_mr.key = p->key;
	cmd.reg_mr.flags = cpu_to_le16(p->flags);
	return snic_com_create(sdev, &cmd, key);
}

int snic_com_dereg_mr(struct snic_dev *sdev, u32 key)
{
	struct snic_admin_cmd cmd;
	u16 status = SNIC_ADMIN_OK;
	int err;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_DEREG_MR, sizeof(cmd.obj));
	cmd.obj.handle = cpu_to_le32(key);
	err = snic_admin_exec_status(sdev, &cmd, NULL, &status);
	/* the one refusal a correct driver meets: a window is bound in it */
	return status == SNIC_ADMIN_BAD_STATE ? -EBUSY : err;
}

int snic_com_create_eq(struct snic_dev *sdev,
		       const struct snic_com_create_eq_params *p, u32 *eqn)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_EQ, sizeof(cmd.create_eq));
	cmd.create_eq.pbl_addr = cpu_to_le64(p->ring->pbl_dma);
	cmd.create_eq.npages = cpu_to_le32(p->ring->npages);
	cmd.create_eq.log2_depth = p->log2_depth;
	cmd.create_eq.vector = cpu_to_le16(p->vector);
	return snic_com_create(sdev, &cmd, eqn);
}

int snic_com_destroy_eq(struct snic_dev *sdev, u32 eqn)
{
	return snic_com_obj_cmd(sdev, SNIC_ADMIN_DESTROY_EQ, eqn);
}

int snic_com_create_cq(struct snic_dev *sdev,
		       const struct snic_com_create_cq_params *p, u32 *cqn)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_CQ, sizeof(cmd.create_cq));
	cmd.create_cq.pbl_addr = cpu_to_le64(p->ring->pbl_dma);
	cmd.create_cq.npages = cpu_to_le32(p->ring->npages);
	cmd.create_cq.log2_depth = p->log2_depth;
	cmd.create_cq.ctx = cpu_to_le16(p->ctx);
	cmd.create_cq.eqn = cpu_to_le32(p->eqn);
	return snic_com_create(sdev, &cmd, cqn);
}

int snic_com_destroy_cq(struct snic_dev *sdev, u32 cqn)
{
	return snic_com_obj_cmd(sdev, SNIC_ADMIN_DESTROY_CQ, cqn);
}

int snic_com_create_qp(struct snic_dev *sdev,
		       const struct snic_com_create_qp_params *p, u32 *qpn)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_QP, sizeof(cmd.create_qp));
	cmd.create_qp.sq_pbl_addr = cpu_to_le64(p->sq->pbl_dma);
	cmd.create_qp.rq_pbl_addr = cpu_to_le64(p->rq->pbl_dma);
	cmd.create_qp.sq_npages = cpu_to_le32(p->sq->npages);
	cmd.create_qp.rq_npages = cpu_to_le32(p->rq->npages);
	cmd.create_qp.pdn = cpu_to_le32(p->pdn);
	cmd.create_qp.send_cqn = cpu_to_le32(p->send_cqn);
	cmd.create_qp.recv_cqn = cpu_to_le32(p->recv_cqn);
	cmd.create_qp.type = p->type;
	cmd.create_qp.sq_log2_depth = p->sq_log2_depth;
	cmd.create_qp.rq_log2_depth = p->rq_log2_depth;
	cmd.create_qp.ctx = cpu_to_le16(p->ctx);
	cmd.create_qp.srqn = cpu_to_le32(p->srqn);
	cmd.create_qp.rdb_addr = cpu_to_le64(p->rdb);
	return snic_com_create(sdev, &cmd, qpn);
}

/* MODIFY_QP and QUERY_QP pass struct snic_qp_attr through DMA memory. */
int snic_com_modify_qp(struct snic_dev *sdev, u32 qpn, u32 mask,
		       const struct snic_qp_attr *attr)
{
	struct device *dev = &sdev->pdev->dev;
	struct snic_admin_cmd cmd;
	struct snic_qp_attr *a;
	dma_addr_t a_dma;
	int err;

	a = dma_alloc_coherent(dev, sizeof(*a), &a_dma, GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	*a = *attr;
	snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_QP, sizeof(cmd.modify_qp));
	cmd.modify_qp.qpn = cpu_to_le32(qpn);
	cmd.modify_qp.attr_mask = cpu_to_le32(mask);
	cmd.modify_qp.attr_addr = cpu_to_le64(a_dma);
	err = snic_admin_exec(sdev, &cmd, NULL);
	dma_free_coherent(dev, sizeof(*a), a, a_dma);
	return err;
}

int snic_com_query_qp(struct snic_dev *sdev, u32 qpn,
		      struct snic_qp_attr *attr)
{
	struct device *dev = &sdev->pdev->dev;
	struct snic_admin_cmd cmd;
	struct snic_qp_attr *a;
	dma_addr_t a_dma;
	int err;

	a = dma_alloc_coherent(dev, sizeof(*a), &a_dma, GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_QP, sizeof(cmd.query_qp));
	cmd.query_qp.qpn = cpu_to_le32(qpn);
	cmd.query_qp.resp_addr = cpu_to_le64(a_dma);
	err = snic_admin_exec(sdev, &cmd, NULL);
	if (!err)
		*attr = *a;
	dma_free_coherent(dev, sizeof(*a), a, a_dma);
	return err;
}

int snic_com_destroy_qp(struct snic_dev *sdev, u32 qpn)
{
	return snic_com_obj_cmd(sdev, SNIC_ADMIN_DESTROY_QP, qpn);
}

/* --- memory windows, REREG_MR -------------------------------------------- */

int snic_com_alloc_mw(struct snic_dev *sdev, u32 pdn, u8 type, u8 key,
		      u32 *rkey)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_ALLOC_MW, sizeof(cmd.alloc_mw));
	cmd.alloc_mw.pdn = cpu_to_le32(pdn);
	cmd.alloc_mw.type = type;
	cmd.alloc_mw.key = key;
	return snic_com_create(sdev, &cmd, rkey);
}

int snic_com_dealloc_mw(struct snic_dev *sdev, u32 rkey)
{
	return snic_com_obj_cmd(sdev, SNIC_ADMIN_DEALLOC_MW, rkey);
}

int snic_com_rereg_mr(struct snic_dev *sdev, u32 lkey, u32 rereg_flags,
		      const struct snic_com_reg_mr_params *p)
{
	struct snic_admin_cmd cmd;
	struct snic_admin_reg_mr *mr = &cmd.rereg_mr.mr;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_REREG_MR, sizeof(cmd.rereg_mr));
	if (rereg_flags & SNIC_REREG_TRANS) {
		mr->iova = cpu_to_le64(p->iova);
		mr->length = cpu_to_le64(p->length);
		mr->pbl_addr = cpu_to_le64(p->pbl_dma);
		mr->npages = cpu_to_le32(p->npages);
		mr->page_shift = p->page_shift;
	}
	if (rereg_flags & SNIC_REREG_PD)
		mr->pdn = cpu_to_le32(p->pdn);
	if (rereg_flags & SNIC_REREG_ACCESS)
		mr->access = cpu_to_le32(p->access);
	cmd.rereg_mr.lkey = cpu_to_le32(lkey);
	cmd.rereg_mr.rereg_flags = cpu_to_le32(rereg_flags);
	return snic_admin_exec(sdev, &cmd, NULL);
}

/* --- shared receive queues ----------------------------------------------- */

int snic_com_create_srq(struct snic_dev *sdev,
			const struct snic_com_create_srq_params *p, u32 *srqn)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SRQ,
			    sizeof(cmd.create_srq));
	cmd.create_srq.pbl_addr = cpu_to_le64(p->ring->pbl_dma);
	cmd.create_srq.npages = cpu_to_le32(p->ring->npages);
	cmd.create_srq.pdn = cpu_to_le32(p->pdn);
	cmd.create_srq.limit = cpu_to_le32(p->limit);
	cmd.create_srq.log2_depth = p->log2_depth;
	cmd.create_srq.ctx = cpu_to_le16(p->ctx);
	return snic_com_create(sdev, &cmd, srqn);
}

/* Arm the limit (0: disarm) */
int snic_com_modify_srq(struct snic_dev *sdev, u32 srqn, u32 limit)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_SRQ,
			    sizeof(cmd.modify_srq));
	cmd.modify_srq.srqn = cpu_to_le32(srqn);
	cmd.modify_srq.limit = cpu_to_le32(limit);
	return snic_admin_exec(sdev, &cmd, NULL);
}

/* The armed limit (0: not armed) */
int snic_com_query_srq(struct snic_dev *sdev, u32 srqn, u32 *limit)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_SRQ, sizeof(cmd.obj));
	cmd.obj.handle = cpu_to_le32(srqn);
	return snic_com_value(sdev, &cmd, limit);
}

int snic_com_destroy_srq(struct snic_dev *sdev, u32 srqn)
{
	return snic_com_obj_cmd(sdev, SNIC_ADMIN_DESTROY_SRQ, srqn);
}

/* --- CQ resize and moderation -------------------------------------------- */

/* The CQ continues in ring; *old_tail: where the old ring's CQEs end */
int snic_com_resize_cq(struct snic_dev *sdev, u32 cqn,
		       const struct snic_queue *ring, u8 log2_depth,
		       u32 *old_tail)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_RESIZE_CQ, sizeof(cmd.resize_cq));
	cmd.resize_cq.pbl_addr = cpu_to_le64(ring->pbl_dma);
	cmd.resize_cq.npages = cpu_to_le32(ring->npages);
	cmd.resize_cq.cqn = cpu_to_le32(cqn);
	cmd.resize_cq.log2_depth = log2_depth;
	return snic_com_value(sdev, &cmd, old_tail);
}

int snic_com_modify_cq(struct snic_dev *sdev, u32 cqn, u16 count,
		       u16 period_us)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_MODIFY_CQ, sizeof(cmd.modify_cq));
	cmd.modify_cq.cqn = cpu_to_le32(cqn);
	cmd.modify_cq.count = cpu_to_le16(count);
	cmd.modify_cq.period_us = cpu_to_le16(period_us);
	return snic_admin_exec(sdev, &cmd, NULL);
}

/* --- UD multicast -------------------------------------------------------- */

int snic_com_mcast(struct snic_dev *sdev, bool attach, u32 qpn,
		   const u8 *gid)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, attach ? SNIC_ADMIN_ATTACH_MCAST :
				  SNIC_ADMIN_DETACH_MCAST, sizeof(cmd.mcast));
	cmd.mcast.qpn = cpu_to_le32(qpn);
	memcpy(cmd.mcast.gid, gid, sizeof(cmd.mcast.gid));
	return snic_admin_exec(sdev, &cmd, NULL);
}

/* --- StRoM RPCs (ABI 2.1) ------------------------------------------------ */

int snic_com_set_qp_rpc(struct snic_dev *sdev, u32 qpn, u32 flags)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_RPC, sizeof(cmd.set_qp_rpc));
	cmd.set_qp_rpc.qpn = cpu_to_le32(qpn);
	cmd.set_qp_rpc.flags = cpu_to_le32(flags);
	return snic_admin_exec(sdev, &cmd, NULL);
}

int snic_com_deploy_kernel(struct snic_dev *sdev, u16 ctx, u64 rpc_opcode,
			   u16 kernel_id)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, kernel_id ? SNIC_ADMIN_DEPLOY_KERNEL :
				  SNIC_ADMIN_UNDEPLOY_KERNEL,
			    sizeof(cmd.deploy_kernel));
	cmd.deploy_kernel.rpc_opcode = cpu_to_le64(rpc_opcode);
	cmd.deploy_kernel.ctx = cpu_to_le16(ctx);
	cmd.deploy_kernel.kernel_id = cpu_to_le16(kernel_id);
	return snic_admin_exec(sdev, &cmd, NULL);
}

/* --- transport programs (Tonic) ----------------------------------------- */

int snic_com_set_qp_transport(struct snic_dev *sdev, u32 qpn, u8 program,
			      u8 ack_every)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_TRANSPORT,
			    sizeof(cmd.set_qp_transport));
	cmd.set_qp_transport.qpn = cpu_to_le32(qpn);
	cmd.set_qp_transport.program = program;
	cmd.set_qp_transport.ack_every = ack_every;
	return snic_admin_exec(sdev, &cmd, NULL);
}

int snic_com_query_transport(struct snic_dev *sdev, u32 qpn, u8 program,
			     struct snic_transport_info *info)
{
	struct device *dev = &sdev->pdev->dev;
	struct snic_admin_cmd cmd;
	struct snic_transport_info *t;
	dma_addr_t t_dma;
	int err;

	t = dma_alloc_coherent(dev, sizeof(*t), &t_dma, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_TRANSPORT,
			    sizeof(cmd.query_transport));
	cmd.query_transport.qpn = cpu_to_le32(qpn);
	cmd.query_transport.program = program;
	cmd.query_transport.resp_addr = cpu_to_le64(t_dma);
	err = snic_admin_exec(sdev, &cmd, NULL);
	if (!err)
		*info = *t;
	dma_free_coherent(dev, sizeof(*t), t, t_dma);
	return err;
}

/* --- HyperLogLog sketches (ABI 3.10) ------------------------------------- */

int snic_com_hll(struct snic_dev *sdev, u8 opcode, u32 qpn)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, opcode, sizeof(cmd.hll));
	cmd.hll.qpn = cpu_to_le32(qpn);
	return snic_admin_exec(sdev, &cmd, NULL);
}

/*
 * QUERY_HLL: the information, and with regs the SNIC_HLL_REGISTERS
 * registers, through one coherent buffer (64 KiB + the information)
 */
int snic_com_query_hll(struct snic_dev *sdev, u32 qpn,
		       struct snic_hll_info *info, u8 *regs)
{
	struct device *dev = &sdev->pdev->dev;
	size_t len = sizeof(*info) + (regs ? SNIC_HLL_REGISTERS : 0);
	struct snic_admin_cmd cmd;
	dma_addr_t dma;
	u8 *buf;
	int err;

	buf = dma_alloc_coherent(dev, len, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	snic_admin_cmd_init(&cmd, SNIC_ADMIN_QUERY_HLL, sizeof(cmd.hll));
	cmd.hll.qpn = cpu_to_le32(qpn);
	cmd.hll.resp_addr = cpu_to_le64(dma);
	if (regs)
		cmd.hll.regs_addr = cpu_to_le64(dma + sizeof(*info));
	err = snic_admin_exec(sdev, &cmd, NULL);
	if (!err) {
		memcpy(info, buf, sizeof(*info));
		if (regs)
			memcpy(regs, buf + sizeof(*info), SNIC_HLL_REGISTERS);
	}
	dma_free_coherent(dev, len, buf, dma);
	return err;
}

/* --- SRNIC selective repeat (ABI 3.4) ------------------------------------ */

int snic_com_create_sr_ctrlq(struct snic_dev *sdev, dma_addr_t ring,
			     u8 log2_depth, u16 vector)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SR_CTRLQ,
			    sizeof(cmd.create_sr_ctrlq));
	cmd.create_sr_ctrlq.ring_addr = cpu_to_le64(ring);
	cmd.create_sr_ctrlq.log2_depth = log2_depth;
	cmd.create_sr_ctrlq.vector = cpu_to_le16(vector);
	return snic_admin_exec(sdev, &cmd, NULL);
}

int snic_com_set_qp_sr(struct snic_dev *sdev, u32 qpn, dma_addr_t ring,
		       u8 log2_depth, u16 window)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_SR, sizeof(cmd.set_qp_sr));
	cmd.set_qp_sr.qpn = cpu_to_le32(qpn);
	cmd.set_qp_sr.log2_depth = log2_depth;
	cmd.set_qp_sr.window = cpu_to_le16(window);
	cmd.set_qp_sr.ring_addr = cpu_to_le64(ring);
	return snic_admin_exec(sdev, &cmd, NULL);
}

/* --- after a destroy command --------------------------------------------- */

/*
 * May the memory a device object used (ring, page list, pinned pages) be
 * freed after its destroy command returned err? Yes if the device
 * destroyed it, or if the device was disabled for not answering (its DMA
 * stopped). Otherwise only a broken device refused: it may still read or
 * write that memory, so the caller leaves it allocated and pinned (leaked)
 * rather than free it under the device. Create paths unwind through this
 * too.
 */
bool snic_com_destroyed(struct snic_dev *sdev, int err, const char *obj,
			u32 handle)
{
	if (!err || snic_admin_dead(sdev))
		return true;
	dev_err(&sdev->pdev->dev,
		"%s %u not destroyed (%d): its memory stays allocated\n",
		obj, handle, err);
	return false;
}

/* "major.minor": ethtool's and the ib_device's firmware version */
void snic_fw_version_str(const struct snic_dev *sdev, char *str, size_t len)
{
	snprintf(str, len, "%u.%u", snic_fw_major(sdev), snic_fw_minor(sdev));
}

#define SNIC_DEV_STAT_OFFSET(field) offsetof(struct snic_stats, field),
static const u16 snic_dev_stat_offsets[] = {
	SNIC_DEV_STATS(SNIC_DEV_STAT_OFFSET)
};
static_assert(ARRAY_SIZE(snic_dev_stat_offsets) == SNIC_NUM_DEV_STATS);

/*
 * The device counters (GET_STATS) in SNIC_DEV_STATS order, values having
 * SNIC_NUM_DEV_STATS entries: rdma statistic and ethtool -S read them here.
 */
int snic_read_dev_stats(struct snic_dev *sdev, u64 *values)
{
	struct snic_stats *s;
	int i, err;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	err = snic_com_get_stats(sdev, s);
	if (!err) {
		for (i = 0; i < SNIC_NUM_DEV_STATS; i++)
			values[i] = le64_to_cpup((__le64 *)
				((u8 *)s + snic_dev_stat_offsets[i]));
	}
	kfree(s);
	return err;
}

/* --- the connectionless transport (ABI 3.11) ------------------------------ */

int snic_com_set_qp_cl(struct snic_dev *sdev, u32 qpn, u32 seg_threshold,
		       u32 seg_size, u32 timeout_us, u8 retries)
{
	struct snic_admin_cmd cmd;

	snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_CL, sizeof(cmd.set_qp_cl));
	cmd.set_qp_cl.qpn = cpu_to_le32(qpn);
	cmd.set_qp_cl.seg_threshold = cpu_to_le32(seg_threshold);
	cmd.set_qp_cl.seg_size = cpu_to_le32(seg_size);
	cmd.set_qp_cl.timeout_us = cpu_to_le32(timeout_us);
	cmd.set_qp_cl.retries = retries;
	return snic_admin_exec(sdev, &cmd, NULL);
}
