/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * snicdv: snic direct verbs (libsnic.so.1, installed as infiniband/snicdv.h),
 * in the style of mlx5dv and efadv: what the snic device offers beyond the
 * verbs, used next to libibverbs on a snic device's ibv_context and QPs.
 *
 * StRoM RPCs (StRoM, EuroSys'20): a client posts one RPC on an RC QP; a
 * kernel on the remote NIC walks the remote application's memory and
 * writes the answer back into the client's response buffer. The formats
 * the device, the kernels and applications share (parameter structs,
 * statuses, kernel ids) are the device's own header
 * <infiniband/snic_rpc.h>, included here.
 *
 * Transport programs (Tonic, NSDI'20): the protocol each RC QP runs,
 * chosen before RTR, and its counters.
 *
 * Connectionless endpoints ("Connectionless Transport with Receiver
 * Registration", an FPGA HPC network interface, sections 3-3.4): a UD QP
 * that writes reliably into any other endpoint's memory with no
 * connection, created with snicdv_create_qp as mlx5dv creates DC QPs.
 *
 * Link with -lsnic (libsnic.so.1, which is also libibverbs' provider for
 * snic: one library, so these calls and the verbs share state).
 */
#ifndef __SNICDV_H__
#define __SNICDV_H__

#include <endian.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/snic_rpc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- device ---------------------------------------------------------- */

enum snicdv_device_attr_flags {
	SNICDV_DEVICE_RPC = 1 << 0, /* StRoM RPCs and kernels */
};

struct snicdv_device_attr {
	uint64_t comp_mask;          /* 0 */
	uint32_t flags;              /* enum snicdv_device_attr_flags */
	uint32_t builtin_kernels;    /* bit n: enum snic_kernel_id n */
	uint32_t max_rpc_response;   /* bytes one answer may take */
	uint32_t kernel_max_steps;   /* steps of one RPC, then STEP_LIMIT */
	uint32_t rpc_slots;          /* RPCs the device runs at once */
	uint16_t max_rpc_per_qp;     /* of them on one QP (then RNR NAKs) */
	uint16_t max_kernels;        /* deployments of the whole device */
	/*
	 * What one context (this one, or another process's) may hold of the
	 * pools every context shares, a quarter of each: beyond it, RNR NAKs
	 * (receives, RPCs) or ENOMEM (kernels). 0 from an older kernel.
	 */
	uint16_t ctx_recv_pool;      /* SRQ receives in progress at once */
	uint8_t ctx_rpc_slots;       /* of rpc_slots */
	uint8_t ctx_rpc_stage;       /* RPC staging buffers (16 KiB) */
	uint8_t qp_rpc_stage;        /* ... of them one QP may hold */
	uint8_t ctx_kernels;         /* of max_kernels */
	uint8_t ctx_mcast_grp;       /* multicast groups its QPs may be in */
	uint8_t ctx_mcast_qp_attach; /* ... its QPs in one group (ENOMEM) */
	uint16_t ctx_sr_ctrlq;       /* SRNIC CtrlQ entries its QPs hold */
	uint16_t reserved[3];
};

/*
 * snicdv_query_device - what the device offers beyond the verbs
 *
 * SYNOPSIS: int snicdv_query_device(struct ibv_context *ctx,
 *                                   struct snicdv_device_attr *attr,
 *                                   uint32_t inlen);
 *
 * Fills the first inlen bytes of *attr (sizeof(*attr) from this header);
 * flags is 0 and the limits are 0 where the device, the kernel driver or
 * this library has no RPCs. Returns 0, or EOPNOTSUPP if ctx is not a snic
 * device, EINVAL if inlen is too small for comp_mask and flags.
 */
int snicdv_query_device(struct ibv_context *ctx,
			struct snicdv_device_attr *attr, uint32_t inlen);

/* ---- RPC on a QP ------------------------------------------------------- */

enum snicdv_qp_rpc_flags {
	SNICDV_QP_RPC_ENABLE = 1 << 0,   /* = SNIC_QP_RPC_ENABLE */
	SNICDV_QP_RPC_FALLBACK = 1 << 1, /* = SNIC_QP_RPC_FALLBACK */
};

/*
 * snicdv_qp_set_rpc - enable (or disable) StRoM RPCs on an RC QP
 *
 * SYNOPSIS: int snicdv_qp_set_rpc(struct ibv_qp *qp, uint32_t flags);
 *
 * Call between ibv_create_qp and the move to RTR (the QP in RESET or
 * INIT), on BOTH ends: the applications agree on it out of band, as on
 * QPNs and PSNs. An RPC op-code is never sent on a QP without
 * SNICDV_QP_RPC_ENABLE (snicdv_post_rpc refuses), and a QP without it
 * refuses one with an invalid request NAK; the extension's packets carry
 * BTH TVer 1, which stock stacks drop. A move to RESET clears the flags.
 *
 * SNICDV_QP_RPC_ENABLE: the QP may post RPCs and accepts them (as the
 * responder, each RPC runs the kernel snicdv_deploy_kernel deployed for
 * its op-code in the responder's context).
 * SNICDV_QP_RPC_FALLBACK (with ENABLE): the responder's user-space
 * fallback handler. An RPC whose op-code has no kernel is delivered to
 * the QP's receive queue like a SEND: a receive completion with opcode
 * SNICDV_WC_RECV_RPC whose buffer starts with struct snic_rpc_recv (the
 * RPC op-code, R_Key, parameter length and the requester's response
 * buffer) followed by the parameters; the application answers with
 * snicdv_rpc_reply. Without the flag such an RPC is answered by the
 * device with status SNIC_RPC_NO_KERNEL.
 * flags 0 disables RPC again (in RESET or INIT).
 *
 * Returns 0, or EOPNOTSUPP (no RPCs on this device/driver, or the QP runs
 * a transport program that numbers its messages: the selective ones and
 * SRNIC's, whose responders an RPC answer would not satisfy), EINVAL (not
 * an RC QP, past INIT, unknown flags), or another errno of the kernel.
 */
int snicdv_qp_set_rpc(struct ibv_qp *qp, uint32_t flags);

/* ---- kernels ------------------------------------------------------------ */

/*
 * snicdv_deploy_kernel - run a NIC kernel for an RPC op-code
 *
 * SYNOPSIS: int snicdv_deploy_kernel(struct ibv_context *ctx,
 *                                    uint64_t rpc_opcode, uint32_t kernel_id);
 *
 * From now on RPCs with op-code rpc_opcode arriving on this context's QPs
 * run kernel kernel_id (enum snic_kernel_id: SNIC_KERNEL_TRAVERSAL,
 * SNIC_KERNEL_CONSISTENCY, SNIC_KERNEL_SHUFFLE on a device with shuffle
 * units; snicdv_device_attr.builtin_kernels lists what the device has) on
 * the device. The kernel reads and writes only memory
 * of the MR the RPC's R_Key names, with that MR's rights. RPC op-codes
 * are the application's names: each context has its own.
 *
 * Returns 0, or EEXIST (op-code deployed already in this context), ENOSPC
 * (this context holds a quarter of the device's max_kernels already, or
 * the device's table is full), EINVAL (unknown kernel), EOPNOTSUPP (no
 * RPCs). A context's kernels are undeployed when it is closed.
 */
int snicdv_deploy_kernel(struct ibv_context *ctx, uint64_t rpc_opcode,
			 uint32_t kernel_id);

/*
 * snicdv_undeploy_kernel - stop serving an RPC op-code by a kernel
 *
 * SYNOPSIS: int snicdv_undeploy_kernel(struct ibv_context *ctx,
 *                                      uint64_t rpc_opcode);
 *
 * RPCs already running finish; later ones go to the fallback handler or
 * get SNIC_RPC_NO_KERNEL. Returns 0, ENOENT (not deployed by this
 * context) or EOPNOTSUPP.
 */
int snicdv_undeploy_kernel(struct ibv_context *ctx, uint64_t rpc_opcode);

/* ---- posting RPCs ------------------------------------------------------- */

/*
 * One RPC. The response buffer [resp_addr, resp_addr + resp_len) lies in
 * an MR of the requester registered with IBV_ACCESS_REMOTE_WRITE; resp_rkey
 * is its R_Key. rkey names the responder's memory the kernel may use.
 */
struct snicdv_rpc_wr {
	uint64_t wr_id;
	uint64_t rpc_opcode;    /* selects the responder's kernel */
	uint32_t rkey;          /* responder's MR the kernel works in */
	uint32_t resp_rkey;
	uint64_t resp_addr;
	uint32_t resp_len;
	uint32_t tag;           /* bits 23:0 return in the answer */
	struct ibv_sge *sg_list; /* the parameters (or payload) */
	int num_sge;
	unsigned int send_flags; /* IBV_SEND_SIGNALED, _FENCE, _INLINE */
};

/*
 * snicdv_post_rpc - post an RPC (StRoM's RPC Params: one packet)
 *
 * SYNOPSIS: int snicdv_post_rpc(struct ibv_qp *qp,
 *                               const struct snicdv_rpc_wr *wr);
 *
 * The parameters (for the built-in kernels a struct
 * snic_traversal_params or snic_consistency_params) must fit one packet
 * of the path MTU with the 24-byte RPC header (else the send completes
 * with IBV_WC_LOC_LEN_ERR).
 *
 * Two completions follow:
 *  - on the send CQ, when the responder acknowledged the request (only if
 *    signaled): opcode SNICDV_WC_RPC;
 *  - the answer: the responder's device writes the response into the
 *    response buffer with an RDMA WRITE with immediate, which takes a
 *    receive WQE of the requesting QP (post receives for the answers):
 *    opcode IBV_WC_RECV_RDMA_WITH_IMM, byte_len = the answer's length,
 *    and snicdv_rpc_status(wc) / snicdv_rpc_tag(wc) the kernel's status
 *    (enum snic_rpc_status: SNIC_RPC_OK, SNIC_RPC_NOT_FOUND,
 *    SNIC_RPC_PROT_ERR, SNIC_RPC_STEP_LIMIT, ...) and the request's tag.
 *    An error status answers with no data. Answers may complete in
 *    another order than their requests: the tag tells them apart.
 *
 * Returns 0, or EINVAL (QP without SNICDV_QP_RPC_ENABLE, not able to send,
 * too many SGEs), ENOMEM (send queue full).
 */
int snicdv_post_rpc(struct ibv_qp *qp, const struct snicdv_rpc_wr *wr);

/*
 * snicdv_post_rpc_write - post an RPC WRITE (a payload of any length)
 *
 * SYNOPSIS: int snicdv_post_rpc_write(struct ibv_qp *qp,
 *                                     const struct snicdv_rpc_wr *wr);
 *
 * As snicdv_post_rpc, but the SGEs are a payload of up to 2 GiB sent as
 * RPC WRITE First/Middle/Last (the kernel consumes it as it streams in);
 * a kernel that takes no payload answers SNIC_RPC_BAD_PARAMS, and the
 * fallback handler receives it like the parameters.
 */
int snicdv_post_rpc_write(struct ibv_qp *qp, const struct snicdv_rpc_wr *wr);

/* Work completion op-codes of RPCs (outside enum ibv_wc_opcode's range) */
#define SNICDV_WC_RPC ((enum ibv_wc_opcode)0x20)       /* request acked */
#define SNICDV_WC_RECV_RPC ((enum ibv_wc_opcode)0xa0)  /* for the fallback */

/* The status and tag of an RPC's answer (IBV_WC_RECV_RDMA_WITH_IMM) */
static inline uint32_t snicdv_rpc_status(const struct ibv_wc *wc)
{
	return SNIC_RPC_IMM_STATUS(be32toh(wc->imm_data));
}

static inline uint32_t snicdv_rpc_tag(const struct ibv_wc *wc)
{
	return SNIC_RPC_IMM_TAG(be32toh(wc->imm_data));
}

/*
 * snicdv_rpc_reply - the fallback handler's answer to an RPC
 *
 * SYNOPSIS: int snicdv_rpc_reply(struct ibv_qp *qp,
 *                                const struct snic_rpc_recv *req,
 *                                uint64_t wr_id, struct ibv_sge *sg_list,
 *                                int num_sge, uint32_t status,
 *                                unsigned int send_flags);
 *
 * req is the start of a SNICDV_WC_RECV_RPC receive buffer. Posts an
 * ordinary RDMA WRITE with immediate of the SGEs (none for an error
 * status) into the requester's response buffer under its R_Key, with the
 * immediate SNIC_RPC_IMM(status, tag): the requester sees the same
 * completion as for a kernel's answer. Returns EINVAL if the SGEs exceed
 * the buffer's resp_len, else what ibv_post_send returns.
 */
int snicdv_rpc_reply(struct ibv_qp *qp, const struct snic_rpc_recv *req,
		     uint64_t wr_id, struct ibv_sge *sg_list, int num_sge,
		     uint32_t status, unsigned int send_flags);

/* ---- transport programs (Tonic) --------------------------------------- */

/*
 * The protocols an RC QP can run (the device's enum snic_transport_id;
 * a device may have more: snicdv_query_program lists them). Go-back-N is
 * the default; go-back-N and DCQCN are standard RoCEv2 on the wire.
 */
enum snicdv_transport {
	SNICDV_TRANSPORT_GBN = 0,       /* IBA go-back-N */
	SNICDV_TRANSPORT_RENO = 1,      /* TCP Reno on a window; out-of-
					 * order data kept: extension */
	SNICDV_TRANSPORT_NEWRENO = 2,   /* RFC 6582; extension as Reno */
	SNICDV_TRANSPORT_DCQCN = 3,     /* RoCEv2 + DCQCN on a rate */
	SNICDV_TRANSPORT_SACK = 4,      /* RFC 6675; snic's wire extension:
					 * both ends must select it */
	SNICDV_TRANSPORT_DCTCP = 5,     /* RFC 8257; ACKs echo CE marks in
					 * the extension: both ends */
	SNICDV_TRANSPORT_NDP = 6,       /* receiver-driven (PULLs, NACKs
					 * of trimmed packets); extension */
	SNICDV_TRANSPORT_IRN = 7,       /* selective repeat, BDP-FC;
					 * extension */
	SNICDV_TRANSPORT_SRNIC = 8,     /* SRNIC's selective repeat, bitmaps
					 * in the host (the kernel driver's
					 * CtrlQ/RetryQ); extension */
	SNICDV_TRANSPORT_SRNIC_DCTCP = 9, /* SRNIC with DCTCP's window */
};

enum snicdv_transport_credit {
	SNICDV_CREDIT_WINDOW = 0,
	SNICDV_CREDIT_RATE = 1,
	SNICDV_CREDIT_TOKEN = 2,
};

enum snicdv_transport_flags {
	SNICDV_TRANSPORT_ECN = 1 << 0,      /* ECT(0) out, CNPs back */
	SNICDV_TRANSPORT_TCP_ACKS = 1 << 1, /* responder ACKs as TCP does */
	SNICDV_TRANSPORT_XPORT = 1 << 2,    /* uses snic's wire extension */
	SNICDV_TRANSPORT_ECE = 1 << 3,      /* ECT(0) out, CE echoed in ACKs */
	SNICDV_TRANSPORT_SR = 1 << 4,       /* SRNIC: host-kept bitmaps */
};

struct snicdv_transport_params {
	uint64_t comp_mask;     /* 0 */
	uint32_t ack_every;     /* TCP_ACKS programs: ACK every k-th packet
				 * (0 or 1: every one; at most 255) */
};

/*
 * snicdv_set_transport - choose the protocol an RC QP runs
 *
 * SYNOPSIS: int snicdv_set_transport(struct ibv_qp *qp, uint32_t program,
 *                        const struct snicdv_transport_params *params);
 *
 * Call between ibv_create_qp and the move to RTR (the QP in RESET or
 * INIT) on BOTH ends, with the same program (agreed out of band, as the
 * QPNs and PSNs). params may be NULL. A move to RESET returns the QP to
 * go-back-N. Returns 0, or EINVAL (not RC, past INIT, a program the device
 * does not have, ack_every > 255, comp_mask not 0), EOPNOTSUPP (not a
 * snic device, a driver without transport programs, or a program that
 * numbers its messages on a QP with RPCs enabled, snicdv_qp_set_rpc).
 */
int snicdv_set_transport(struct ibv_qp *qp, uint32_t program,
			 const struct snicdv_transport_params *params);

/* A program, and with snicdv_query_transport how one QP fares with it */
struct snicdv_transport_info {
	char name[16];          /* "gbn", "dcqcn", ... */
	uint32_t program;       /* enum snicdv_transport */
	uint32_t credit;        /* enum snicdv_transport_credit */
	uint32_t flags;         /* enum snicdv_transport_flags */
	uint32_t ack_every;     /* the QP's */
	uint32_t state_bytes;   /* the program's own per-QP state */
	uint32_t state_max;     /* Tonic's limit for its credit type */
	uint32_t qpc_bytes;     /* on-NIC state of a QP running it */
	/* the QP's (snicdv_query_transport only, else 0) */
	uint32_t qp_num;
	uint32_t window;        /* segments it may have in flight */
	uint32_t rate_mbps;     /* rate credit: its current rate */
	uint32_t rtx_segments;  /* segments marked for retransmission */
	uint32_t cnp_rx;        /* CNPs received (reaction point) */
	uint32_t cnp_tx;        /* CNPs sent (notification point) */
};

/*
 * snicdv_query_transport - the program a QP runs and its counters
 *
 * SYNOPSIS: int snicdv_query_transport(struct ibv_qp *qp,
 *                                      struct snicdv_transport_info *info,
 *                                      uint32_t inlen);
 *
 * Fills the first inlen bytes of *info (sizeof(*info) from this header).
 * Returns 0, EINVAL, or EOPNOTSUPP as snicdv_set_transport.
 */
int snicdv_query_transport(struct ibv_qp *qp,
			   struct snicdv_transport_info *info, uint32_t inlen);

/*
 * snicdv_query_program - what program number 'program' of the device is
 *
 * SYNOPSIS: int snicdv_query_program(struct ibv_context *ctx,
 *                                    uint32_t program,
 *                                    struct snicdv_transport_info *info,
 *                                    uint32_t inlen);
 *
 * As snicdv_query_transport without a QP (its QP fields 0). Programs are
 * numbered from 0 without gaps: EINVAL past the device's last one.
 */
int snicdv_query_program(struct ibv_context *ctx, uint32_t program,
			 struct snicdv_transport_info *info, uint32_t inlen);

/* ---- connectionless endpoints ----------------------------------------- */

enum snicdv_qp_type {
	SNICDV_QP_CL = 1,       /* a connectionless endpoint (a UD QP) */
};

enum snicdv_qp_init_attr_mask {
	SNICDV_QP_INIT_ATTR_MASK_QP_TYPE = 1 << 0,  /* qp_type is valid */
};

/*
 * What snicdv_create_qp makes beyond ibv_create_qp_ex. An endpoint cuts
 * an operation over cl_seg_threshold bytes (0: never) into segments of
 * cl_seg_size bytes, a multiple of the device's CL packet size (512) of
 * at most one registration mask's packets (128, so 64 KiB): each segment
 * is an operation of its own, with its own receive notification. A
 * packet not acknowledged within cl_timeout_us (0: 100 us) is sent again,
 * cl_retries times (0: 7, at most 7). A wire with a millisecond-scale
 * round trip (an emulated one) needs a timeout of a few milliseconds.
 */
struct snicdv_qp_init_attr {
	uint64_t comp_mask;     /* enum snicdv_qp_init_attr_mask */
	uint32_t qp_type;       /* enum snicdv_qp_type */
	uint32_t cl_seg_threshold;
	uint32_t cl_seg_size;
	uint32_t cl_timeout_us; /* at most 1000000 */
	uint8_t cl_retries;
	uint8_t reserved[7];
};

/*
 * snicdv_create_qp - create a QP of a snic kind: a connectionless endpoint
 *
 * SYNOPSIS: struct ibv_qp *snicdv_create_qp(struct ibv_context *ctx,
 *                             struct ibv_qp_init_attr_ex *attr,
 *                             struct snicdv_qp_init_attr *dv_attr);
 *
 * Without SNICDV_QP_INIT_ATTR_MASK_QP_TYPE in dv_attr->comp_mask (or with
 * dv_attr NULL) the same as ibv_create_qp_ex. With qp_type SNICDV_QP_CL,
 * attr->qp_type must be IBV_QPT_UD and attr->send_ops_flags (with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS; the provider fixes a QP's send
 * operations at creation) may hold IBV_QP_EX_WITH_RDMA_WRITE and
 * IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM and nothing else: an endpoint sends
 * CL WRITEs only (ibv_post_send takes none, having no place for the
 * endpoint's address). The QP is made an endpoint before it is returned
 * (in RESET); move it to INIT, RTR and RTS as any UD QP. Moving it to
 * RESET again ends the endpoint (the device forgets it, as a reset QP's
 * state): its writes then fail; destroy it and create another. There is nothing to negotiate: an endpoint sends only
 * where the application addresses it (snicdv_wr_set_cl_addr).
 *
 * Posting, on the extended QP (ibv_qp_to_qp_ex):
 *     ibv_wr_start(qpx);
 *     qpx->wr_id = ...; qpx->wr_flags = IBV_SEND_SIGNALED;
 *     ibv_wr_rdma_write_imm(qpx, rkey, remote_addr, htobe32(tag));
 *     snicdv_wr_set_cl_addr(qpx, ah, remote_endpoint, 0);
 *     ibv_wr_set_sge(qpx, lkey, addr, length);
 *     ibv_wr_complete(qpx);
 * writes length bytes to remote_addr under rkey at the endpoint whose QP
 * number is remote_endpoint, on the path of ah. The tag is the immediate
 * (ibv_wr_rdma_write: tag 0). The send completion (opcode
 * SNICDV_WC_CL_WRITE) comes once every packet is acknowledged, so the
 * source may be reused only then; a peer that has no such endpoint (a
 * standard RoCE stack drops the packets, whose BTH TVer is 3) completes
 * it with IBV_WC_RETRY_EXC_ERR after the retries, a range the R_Key does
 * not allow with IBV_WC_REM_ACCESS_ERR, a receiver out of room eight
 * times a packet with IBV_WC_RNR_RETRY_EXC_ERR.
 *
 * Receiving: the receiving endpoint posts nothing; each operation (each
 * segment) written into its memory gives one completion on its receive
 * CQ with opcode SNICDV_WC_CL_RECV: wr_id = the operation's base address
 * at the receiver, byte_len = its length, imm_data = the tag (network
 * order, IBV_WC_WITH_IMM), src_qp = the sending endpoint's QP number.
 * That number is not unique across nodes (RoCE's ibv_wc carries no GID):
 * an application with several senders tells them apart by the tag.
 * ibv_poll_cq returning 0 means nothing yet; ibv_req_notify_cq with
 * ibv_get_cq_event is the blocking receive, as for any completion (the
 * notifications are not solicited: arm with solicited_only 0).
 *
 * Returns the QP, or NULL with errno EOPNOTSUPP (not a snic device, or a
 * driver without endpoints), EINVAL (not UD, send_ops_flags beyond those
 * above, parameters the device does not take, unknown comp_mask bits),
 * ENOMEM (every endpoint of the device taken) or another errno of
 * ibv_create_qp_ex.
 */
struct ibv_qp *snicdv_create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr,
				struct snicdv_qp_init_attr *dv_attr);

enum snicdv_cl_flags {
	/*
	 * A non-registered operation (section 3.4): its packets are
	 * written where they say and the receiver is told once all are
	 * acknowledged (one more round trip). Without it the operation is
	 * registered at the receiver by its first packet (section 3.2).
	 */
	SNICDV_CL_UNREGISTERED = 1 << 0,
};

/*
 * snicdv_wr_set_cl_addr - the destination of an endpoint's RDMA WRITE
 *
 * SYNOPSIS: void snicdv_wr_set_cl_addr(struct ibv_qp_ex *qpx,
 *                                      struct ibv_ah *ah,
 *                                      uint32_t remote_endpoint,
 *                                      uint32_t flags);
 *
 * After ibv_wr_rdma_write or ibv_wr_rdma_write_imm on an endpoint of
 * snicdv_create_qp, as ibv_wr_set_ud_addr after a UD SEND: the path (ah),
 * the destination endpoint's QP number and enum snicdv_cl_flags. A WRITE
 * without it, or unknown flags, make ibv_wr_complete fail with EINVAL.
 * On a QP of another provider it does nothing.
 */
void snicdv_wr_set_cl_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			   uint32_t remote_endpoint, uint32_t flags);

/* Work completion op-codes of endpoints (beside the RPC ones) */
#define SNICDV_WC_CL_WRITE ((enum ibv_wc_opcode)0x21)  /* all acknowledged */
#define SNICDV_WC_CL_RECV ((enum ibv_wc_opcode)0xa1)   /* an operation in */

/* ---- HyperLogLog sketches on a QP's RDMA WRITEs ----------------------- */

#define SNICDV_HLL_REGISTERS 65536

/*
 * snicdv_qp_attach_hll - count the distinct items a QP receives
 *
 * SYNOPSIS: int snicdv_qp_attach_hll(struct ibv_qp *qp);
 *
 * Attaches one of the device's HyperLogLog sketches, cleared, to an RC or
 * UC QP: from the next packet it places, every RDMA WRITE and WRITE with
 * immediate payload the QP receives is read as 4-byte little-endian items
 * (a message's trailing partial word is none) and each is hashed into the
 * sketch. Only this end decides: the sender may be any RoCE device. The
 * sketch stays until snicdv_qp_detach_hll, the QP's move to RESET or its
 * destruction. Returns 0, or ENOMEM (no sketch free, or the device has
 * none), EINVAL (not RC or UC, or the QP has one), EOPNOTSUPP (not a
 * snic device, or a driver without sketches).
 */
int snicdv_qp_attach_hll(struct ibv_qp *qp);

struct snicdv_hll_info {
	double estimate;        /* distinct items, estimated */
	uint64_t items;         /* items hashed since attach or reset; a
				 * packet placed again counts again */
	uint32_t qp_num;
	uint32_t zero_regs;     /* registers still 0 */
};

/*
 * snicdv_qp_query_hll - read a QP's sketch
 *
 * SYNOPSIS: int snicdv_qp_query_hll(struct ibv_qp *qp,
 *                                   struct snicdv_hll_info *info,
 *                                   uint32_t inlen, uint8_t *regs);
 *
 * Fills the first inlen bytes of *info (sizeof(*info) from this header)
 * and, if regs is not NULL, the SNICDV_HLL_REGISTERS one-byte registers
 * (register j: the largest rank of the items whose hash's top 16 bits
 * are j). Returns 0, EINVAL (no sketch on the QP), EFAULT, or EOPNOTSUPP.
 */
int snicdv_qp_query_hll(struct ibv_qp *qp, struct snicdv_hll_info *info,
			uint32_t inlen, uint8_t *regs);

/*
 * snicdv_qp_reset_hll - clear a QP's sketch (registers and count)
 * snicdv_qp_detach_hll - give a QP's sketch back to the device
 *
 * SYNOPSIS: int snicdv_qp_reset_hll(struct ibv_qp *qp);
 *           int snicdv_qp_detach_hll(struct ibv_qp *qp);
 *
 * Return 0, EINVAL (no sketch on the QP) or EOPNOTSUPP.
 */
int snicdv_qp_reset_hll(struct ibv_qp *qp);
int snicdv_qp_detach_hll(struct ibv_qp *qp);

#ifdef __cplusplus
}
#endif

#endif /* __SNICDV_H__ */
