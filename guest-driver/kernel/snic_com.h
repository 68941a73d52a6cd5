/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * snic admin commands, one typed function each (efa_com_cmd.h's shape).
 *
 * Parameters are CPU-endian; each function builds its command, runs it on
 * the admin queue (snic_admin_exec()) and returns 0 or a negative errno.
 * A created object's handle comes back through the last argument.
 */
#ifndef _SNIC_COM_H_
#define _SNIC_COM_H_

#include <linux/types.h>

struct snic_dev;
struct snic_queue;
struct snic_device_attr;
struct snic_qp_attr;
struct snic_stats;

/* --- device ------------------------------------------------------------- */

int snic_com_query_device(struct snic_dev *sdev,
			  struct snic_device_attr *attr);
int snic_com_get_stats(struct snic_dev *sdev, struct snic_stats *stats);

/* --- Ethernet function -------------------------------------------------- */

int snic_com_set_mtu(struct snic_dev *sdev, u32 mtu);
int snic_com_set_mac(struct snic_dev *sdev, const u8 *mac);

struct snic_com_create_eth_queue_params {
	dma_addr_t ring_dma;	/* contiguous descriptor ring */
	u8 type;		/* enum snic_eth_queue_type */
	u8 log2_depth;
	u16 vector;		/* MSI-X vector of its completions */
};

int snic_com_create_eth_queue(struct snic_dev *sdev,
			      const struct snic_com_create_eth_queue_params *p,
			      u32 *qid);
int snic_com_start_eth_queue(struct snic_dev *sdev, u8 type, u32 qid);
int snic_com_stop_eth_queue(struct snic_dev *sdev, u8 type, u32 qid);
int snic_com_destroy_eth_queue(struct snic_dev *sdev, u8 type, u32 qid);

/* --- RDMA objects ------------------------------------------------------- */

int snic_com_set_gid(struct snic_dev *sdev, u8 index, const u8 *gid,
		     bool valid);

int snic_com_alloc_pd(struct snic_dev *sdev, u16 ctx, u32 *pdn);
int snic_com_dealloc_pd(struct snic_dev *sdev, u32 pdn);

struct snic_com_reg_mr_params {
	u64 iova;
	u64 length;
	dma_addr_t pbl_dma;	/* page list; none for SNIC_MR_PHYS */
	u32 npages;
	u32 pdn;
	u32 access;		/* IB_ACCESS_* numbers */
	u8 page_shift;		/* SNIC_PAGE_SHIFT_* */
	u8 key;			/* low byte of the keys */
	u16 flags;		/* SNIC_MR_* */
};

int snic_com_reg_mr(struct snic_dev *sdev,
		    const struct snic_com_reg_mr_params *p, u32 *key);
/* -EBUSY: the device keeps the MR, a memory window is bound in it */
int snic_com_dereg_mr(struct snic_dev *sdev, u32 key);

struct snic_com_create_eq_params {
	const struct snic_queue *ring;	/* struct snic_eqe entries */
	u8 log2_depth;
	u16 vector;
};

int snic_com_create_eq(struct snic_dev *sdev,
		       const struct snic_com_create_eq_params *p, u32 *eqn);
int snic_com_destroy_eq(struct snic_dev *sdev, u32 eqn);

struct snic_com_create_cq_params {
	const struct snic_queue *ring;	/* struct snic_cqe entries */
	u8 log2_depth;
	u16 ctx;		/* owning context (doorbell page) */
	u32 eqn;
};

int snic_com_create_cq(struct snic_dev *sdev,
		       const struct snic_com_create_cq_params *p, u32 *cqn);
int snic_com_destroy_cq(struct snic_dev *sdev, u32 cqn);

struct snic_com_create_qp_params {
	const struct snic_queue *sq;
	const struct snic_queue *rq;
	u8 sq_log2_depth;
	u8 rq_log2_depth;
	u8 type;		/* enum snic_qp_type (IB_QPT_* numbers) */
	u16 ctx;
	u32 pdn;
	u32 send_cqn;
	u32 recv_cqn;
	u32 srqn;		/* 0: the QP's own RQ */
	dma_addr_t rdb;		/* RC: SNIC_RDB_BYTES, SNIC_RDB_ALIGN aligned */
};

int snic_com_create_qp(struct snic_dev *sdev,
		       const struct snic_com_create_qp_params *p, u32 *qpn);
int snic_com_modify_qp(struct snic_dev *sdev, u32 qpn, u32 mask,
		       const struct snic_qp_attr *attr);
int snic_com_query_qp(struct snic_dev *sdev, u32 qpn,
		      struct snic_qp_attr *attr);
int snic_com_destroy_qp(struct snic_dev *sdev, u32 qpn);

int snic_com_alloc_mw(struct snic_dev *sdev, u32 pdn, u8 type, u8 key,
		      u32 *rkey);
int snic_com_dealloc_mw(struct snic_dev *sdev, u32 rkey);

/* REREG_MR: rereg_flags SNIC_REREG_*; mr's key and flags are ignored */
int snic_com_rereg_mr(struct snic_dev *sdev, u32 lkey, u32 rereg_flags,
		      const struct snic_com_reg_mr_params *mr);

struct snic_com_create_srq_params {
	const struct snic_queue *ring;	/* struct snic_rq_wqe entries */
	u8 log2_depth;
	u16 ctx;
	u32 pdn;
	u32 limit;		/* armed limit, 0: not armed */
};

int snic_com_create_srq(struct snic_dev *sdev,
			const struct snic_com_create_srq_params *p, u32 *srqn);
int snic_com_modify_srq(struct snic_dev *sdev, u32 srqn, u32 limit);
int snic_com_query_srq(struct snic_dev *sdev, u32 srqn, u32 *limit);
int snic_com_destroy_srq(struct snic_dev *sdev, u32 srqn);

int snic_com_resize_cq(struct snic_dev *sdev, u32 cqn,
		       const struct snic_queue *ring, u8 log2_depth,
		       u32 *old_tail);
int snic_com_modify_cq(struct snic_dev *sdev, u32 cqn, u16 count,
		       u16 period_us);

/* ATTACH_MCAST (attach) or DETACH_MCAST: UD QP qpn and the group's GID */
int snic_com_mcast(struct snic_dev *sdev, bool attach, u32 qpn,
		   const u8 *gid);

/* --- StRoM RPCs (ABI 2.1) ------------------------------------------------ */

/* SET_QP_RPC: flags SNIC_QP_RPC_* */
int snic_com_set_qp_rpc(struct snic_dev *sdev, u32 qpn, u32 flags);
/* Transport programs: a QP's (qpn != 0) or program's (qpn 0) information */
int snic_com_set_qp_transport(struct snic_dev *sdev, u32 qpn, u8 program,
			      u8 ack_every);
int snic_com_query_transport(struct snic_dev *sdev, u32 qpn, u8 program,
			     struct snic_transport_info *info);
/* DEPLOY_KERNEL of kernel_id, or UNDEPLOY_KERNEL with kernel_id 0 */
int snic_com_deploy_kernel(struct snic_dev *sdev, u16 ctx, u64 rpc_opcode,
			   u16 kernel_id);

/* --- HyperLogLog sketches (ABI 3.10) ------------------------------------- */

/* ATTACH_HLL, RESET_HLL or DETACH_HLL (opcode) of QP qpn */
int snic_com_hll(struct snic_dev *sdev, u8 opcode, u32 qpn);
/* QUERY_HLL: its information and, with regs, its SNIC_HLL_REGISTERS bytes */
int snic_com_query_hll(struct snic_dev *sdev, u32 qpn,
		       struct snic_hll_info *info, u8 *regs);

/* --- the connectionless transport (ABI 3.11) ------------------------------ */

/* SET_QP_CL: UD QP qpn, in RESET or INIT, an endpoint */
int snic_com_set_qp_cl(struct snic_dev *sdev, u32 qpn, u32 seg_threshold,
		       u32 seg_size, u32 timeout_us, u8 retries);

/* --- SRNIC selective repeat (ABI 3.4) ------------------------------------ */

/* CREATE_SR_CTRLQ; ring 0 removes the CtrlQ */
int snic_com_create_sr_ctrlq(struct snic_dev *sdev, dma_addr_t ring,
			     u8 log2_depth, u16 vector);
/* SET_QP_SR: an SRNIC QP's RetryQ (ring 0: none) and window (0: 128) */
int snic_com_set_qp_sr(struct snic_dev *sdev, u32 qpn, dma_addr_t ring,
		       u8 log2_depth, u16 window);

/* --- after a destroy command --------------------------------------------- */

bool snic_com_destroyed(struct snic_dev *sdev, int err, const char *obj,
			u32 handle);

#endif /* _SNIC_COM_H_ */
