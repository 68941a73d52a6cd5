/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * snic kernel <-> user-space provider ABI (uverbs driver data).
 *
 * Shared byte for byte by guest-driver/kernel (snic.ko) and
 * guest-driver/provider (libsnic, copied to rdma-core's
 * kernel-headers/rdma/snic-abi.h). rdma-core's make_abi_structs.py reads it
 * line by line: one member per line, "struct x {" and "};" on their own
 * lines. Fields are only ever appended; every response carries comp_mask.
 * Sizes are checked with static asserts in both users.
 */
#ifndef SNIC_ABI_USER_H
#define SNIC_ABI_USER_H

#include <linux/types.h>

/*
 * ops.uverbs_abi_ver; the provider accepts SNIC_UVERBS_ABI_MIN up to it.
 * 2: 256-byte send WQEs (device ABI 2.0), SRQs, RESIZE_CQ; extended by
 * appended fields and comp_mask bits (SNIC_IB_UCONTEXT_RPC: device ABI
 * 2.1, StRoM RPCs and kernels) and driver methods (the transport
 * programs', the HyperLogLog sketches').
 * 3: SNIC_IB_METHOD_QP_SET_CL (device ABI 3.11, connectionless
 * endpoints); with a version-2 kernel libsnic has no endpoints.
 */
#define SNIC_UVERBS_ABI_VERSION 3
#define SNIC_UVERBS_ABI_MIN 2

/*
 * GET_CONTEXT response. Each user context owns one BAR2 doorbell page;
 * the provider maps it with mmap(db_mmap_key, db_page_size) and rings
 * its queues there. The device ignores doorbells for queues that other
 * contexts own. With SNIC_IB_UCONTEXT_RPC in comp_mask the device has
 * StRoM RPCs (SNIC_CAP_RPC, snic_rpc.h), the rpc_* fields hold its
 * limits and the driver methods below exist; without it (an older
 * kernel or device) there are no RPCs.
 */
#define SNIC_IB_UCONTEXT_RPC (1u << 0)

struct snic_ib_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 db_page;
	__aligned_u64 db_mmap_key;
	__u32 db_page_size;
	__u32 max_qp_wr;
	__u32 max_cqe;
	__u32 sq_wqe_size;
	__u32 rq_wqe_size;
	__u32 cqe_size;
	__u16 max_send_sge;
	__u16 max_recv_sge;
	__u16 max_inline_data;
	__u16 reserved;
	__u32 max_srq_wr;
	__u32 reserved1;
	__u32 rpc_builtin_kernels;
	__u32 rpc_max_response;
	__u32 rpc_kernel_max_steps;
	__u32 rpc_slots;
	__u16 rpc_max_per_qp;
	__u16 rpc_max_kernels;
	__u8 rpc_opmap;
	/* device ABI 3.10: a context's share of the device's pools */
	__u8 rpc_ctx_slots;
	__u8 rpc_ctx_stage;
	__u8 rpc_qp_stage;
	__u16 ctx_recv_pool;
	__u8 rpc_ctx_kernels;
	/* device ABI 3.11: the multicast table's shares, the CtrlQ's */
	__u8 ctx_mcast_grp;
	__u8 ctx_mcast_qp_attach;
	__u8 reserved3;
	__u16 ctx_sr_ctrlq;
};

/* ALLOC_PD response: the device's PD number */
struct snic_ib_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

/*
 * CREATE_CQ request. The provider allocates the ring: page-aligned,
 * zeroed, cqe_size << log2_depth bytes (struct snic_cqe, include/snic/
 * snic_verbs.h); the kernel pins it and hands the device its pages.
 */
struct snic_ib_create_cq {
	__aligned_u64 buf_va;
	__u32 buf_len;
	__u8 log2_depth;
	__u8 reserved[3];
};

/* CREATE_CQ response: the device's CQ number, for SNIC_DB_CQ* doorbells */
struct snic_ib_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
};

/*
 * RESIZE_CQ request: a new ring as for CREATE_CQ. The response names the
 * old ring's producer index at the switch: the provider polls the old
 * ring up to there, then the new one from index 0.
 */
struct snic_ib_resize_cq {
	__aligned_u64 buf_va;
	__u32 buf_len;
	__u8 log2_depth;
	__u8 reserved[3];
};

struct snic_ib_resize_cq_resp {
	__u32 comp_mask;
	__u32 old_tail;
};

/*
 * CREATE_SRQ request: the provider's ring of struct snic_rq_wqe, as for
 * a QP's RQ. The response carries the SRQ number for SNIC_DB_SRQ.
 */
struct snic_ib_create_srq {
	__aligned_u64 buf_va;
	__u32 buf_len;
	__u8 log2_depth;
	__u8 reserved[3];
};

struct snic_ib_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
};

/*
 * CREATE_QP request (RC, UC and UD; with an SRQ, no RQ ring: rq_* zero). Both rings come from the provider like
 * the CQ's: SQ of sq_wqe_size << sq_log2_depth bytes, RQ of rq_wqe_size <<
 * rq_log2_depth bytes, each page-aligned. The QP number for doorbells is
 * the base response's qpn.
 */
struct snic_ib_create_qp {
	__aligned_u64 sq_buf_va;
	__aligned_u64 rq_buf_va;
	__u32 sq_buf_len;
	__u32 rq_buf_len;
	__u8 sq_log2_depth;
	__u8 rq_log2_depth;
	__u8 reserved[6];
};

struct snic_ib_create_qp_resp {
	__u32 comp_mask;
	__u32 reserved;
};

/*
 * CREATE_AH response: the resolved RoCEv2 path as the device's struct
 * snic_av (48 bytes: destination and source IP, destination MAC, hop
 * limit, traffic class, flow label), copied as is into UD WQEs.
 */
struct snic_ib_create_ah_resp {
	__u32 comp_mask;
	__u32 reserved;
	__u8 av[48];
};

/*
 * Driver-specific uverbs methods (ioctl), present with SNIC_IB_UCONTEXT_RPC.
 * Their ids carry the driver namespace bit (1 << UVERBS_ID_NS_SHIFT, 12),
 * as efa's and mlx5's do; both users assert that value.
 *
 * SNIC_IB_METHOD_QP_SET_RPC, on a QP object: SET_QP_RPC of that QP with
 * the flags SNIC_QP_RPC_ENABLE / SNIC_QP_RPC_FALLBACK (snic_admin.h); an
 * RC QP in RESET or INIT only (else EINVAL).
 */
enum snic_ib_qp_methods {
	SNIC_IB_METHOD_QP_SET_RPC = 0x1000,
	SNIC_IB_METHOD_QP_SET_TRANSPORT = 0x1001,
	SNIC_IB_METHOD_QP_QUERY_TRANSPORT = 0x1002,
	SNIC_IB_METHOD_QP_ATTACH_HLL = 0x1003,
	SNIC_IB_METHOD_QP_QUERY_HLL = 0x1004,
	SNIC_IB_METHOD_QP_RESET_HLL = 0x1005,
	SNIC_IB_METHOD_QP_DETACH_HLL = 0x1006,
	SNIC_IB_METHOD_QP_SET_CL = 0x1007,
};

enum snic_ib_qp_set_rpc_attrs {
	SNIC_IB_ATTR_QP_SET_RPC_HANDLE = 0x1000,
	SNIC_IB_ATTR_QP_SET_RPC_FLAGS = 0x1001,
};

/*
 * SNIC_IB_METHOD_DEPLOY_KERNEL, on the device: DEPLOY_KERNEL of kernel
 * KERNEL_ID (enum snic_kernel_id, a __u32) for RPC op-code RPC_OPCODE (a
 * __u64) on the calling context's QPs; EEXIST if the op-code is deployed
 * already, ENOSPC if the device's table is full. UNDEPLOY_KERNEL takes
 * RPC_OPCODE alone (ENOENT if this context did not deploy it). A
 * context's kernels are undeployed when it is destroyed.
 */
enum snic_ib_device_methods {
	SNIC_IB_METHOD_DEPLOY_KERNEL = 0x1000,
	SNIC_IB_METHOD_UNDEPLOY_KERNEL = 0x1001,
	SNIC_IB_METHOD_QUERY_PROGRAM = 0x1002,
};

enum snic_ib_deploy_kernel_attrs {
	SNIC_IB_ATTR_DEPLOY_RPC_OPCODE = 0x1000,
	SNIC_IB_ATTR_DEPLOY_KERNEL_ID = 0x1001,
};

/*
 * Transport programs (snic_admin.h, Tonic): methods present whatever the
 * device's capabilities (every ABI 3 device has them).
 * SNIC_IB_METHOD_QP_SET_TRANSPORT, on a QP object: SET_QP_TRANSPORT of
 * the QP with PROGRAM (enum snic_transport_id, a __u32) and ACK_EVERY (a
 * __u32, 0..255); an RC QP in RESET or INIT running a program the device
 * has (else EINVAL).
 * SNIC_IB_METHOD_QP_QUERY_TRANSPORT, on a QP object: QUERY_TRANSPORT of
 * the QP; INFO receives the device's struct snic_transport_info as is.
 * SNIC_IB_METHOD_QUERY_PROGRAM, on the device: QUERY_TRANSPORT with qpn 0
 * of PROGRAM; INFO as above; EINVAL past the device's last program.
 */
enum snic_ib_transport_attrs {
	SNIC_IB_ATTR_TRANSPORT_QP_HANDLE = 0x1000,
	SNIC_IB_ATTR_TRANSPORT_PROGRAM = 0x1001,
	SNIC_IB_ATTR_TRANSPORT_ACK_EVERY = 0x1002,
	SNIC_IB_ATTR_TRANSPORT_INFO = 0x1003,
};

/*
 * HyperLogLog sketches (snic_admin.h ATTACH_HLL .. DETACH_HLL): methods
 * on a QP object, present whatever the device's capabilities (a device
 * without sketches answers ATTACH with ENOMEM, as when all are taken).
 * SNIC_IB_METHOD_QP_ATTACH_HLL, RESET_HLL and DETACH_HLL take the QP
 * alone (EINVAL: not RC or UC, ATTACH with a sketch there, the others
 * without one). SNIC_IB_METHOD_QP_QUERY_HLL: INFO receives the device's
 * struct snic_hll_info as is; with REGS (a __u64, the address of
 * SNIC_HLL_REGISTERS bytes of the caller's memory) the registers are
 * copied there too (EFAULT if they cannot be).
 */
enum snic_ib_hll_attrs {
	SNIC_IB_ATTR_HLL_QP_HANDLE = 0x1000,
	SNIC_IB_ATTR_HLL_INFO = 0x1001,
	SNIC_IB_ATTR_HLL_REGS = 0x1002,
};

/*
 * The connectionless transport (snic_cl.h): SNIC_IB_METHOD_QP_SET_CL, on a
 * QP object, present whatever the device's capabilities: SET_QP_CL of the
 * QP with SEG_THRESHOLD, SEG_SIZE, TIMEOUT_US (each a __u32, optional, 0)
 * and RETRIES (a __u32, optional, 0); a UD QP in RESET or INIT with
 * parameters SET_QP_CL takes (else EINVAL), ENOMEM when every endpoint of
 * the device is taken.
 */
enum snic_ib_cl_attrs {
	SNIC_IB_ATTR_CL_QP_HANDLE = 0x1000,
	SNIC_IB_ATTR_CL_SEG_THRESHOLD = 0x1001,
	SNIC_IB_ATTR_CL_SEG_SIZE = 0x1002,
	SNIC_IB_ATTR_CL_TIMEOUT_US = 0x1003,
	SNIC_IB_ATTR_CL_RETRIES = 0x1004,
};

#endif /* SNIC_ABI_USER_H */
