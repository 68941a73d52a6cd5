/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsnic: rdma-core provider for snic, the QEMU-emulated RoCEv2 NIC.
 *
 * The data path is all here: the provider allocates the SQ, RQ and CQ
 * rings (the kernel only pins them), writes WQEs, polls CQEs and rings
 * the context's doorbell page. WQE, CQE and doorbell formats are the
 * device's own headers (include/snic/, copied next to this file).
 */
#ifndef __SNIC_H__
#define __SNIC_H__

#include <endian.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>
#include <util/util.h>

#include "snic_admin.h" /* SNIC_CQE_PHASE */
#include "snic_regs.h"
#include "snic_verbs.h"
#include "snic_cl.h"

#define PCI_VENDOR_ID_SNIC 0x1af4 /* QEMU's range for experimental devices */
#define PCI_DEVICE_ID_SNIC 0x10f0

#define SNIC_MIN_LOG2_DEPTH 2 /* rings have at least 4 entries */
/* CQEs name their WQE by 16 bits of its index: no deeper work queues */
#define SNIC_MAX_WQ_DEPTH (1u << 16)

struct snic_device {
	struct verbs_device vdev;
	size_t page_size; /* host page size: doorbell mappings are multiples */
};

struct snic_qp;

struct snic_context {
	struct verbs_context ibvctx;
	/*
	 * This context's BAR2 doorbell page (write-only, uncached). The
	 * device ignores doorbells for queues another context owns.
	 */
	void *db;
	size_t db_size;
	uint32_t db_page;
	size_t page_size;
	/* limits reported by GET_CONTEXT */
	uint32_t max_qp_wr;
	uint32_t max_cqe;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data; /* 0: the device has no inline sends */
	uint32_t max_srq_wr;      /* 0: no SRQs */
	bool mw;                  /* memory windows: BIND_MW, LOCAL_INV, SEND_INV */
	/* StRoM RPCs (SNIC_IB_UCONTEXT_RPC): the device's limits, for snicdv */
	bool rpc;
	uint32_t rpc_builtin_kernels;
	uint32_t rpc_max_response;
	uint32_t rpc_kernel_max_steps;
	uint32_t rpc_slots;
	uint16_t rpc_max_per_qp;
	uint16_t rpc_max_kernels;
	/* a context's share of the device's pools (0: an older kernel) */
	uint8_t rpc_ctx_slots, rpc_ctx_stage, rpc_qp_stage, rpc_ctx_kernels;
	uint16_t ctx_recv_pool;
	uint8_t ctx_mcast_grp, ctx_mcast_qp_attach;
	uint16_t ctx_sr_ctrlq;
	/*
	 * QPN -> QP, so poll_cq finds the work queue a CQE completes.
	 * Written under qp_table_mutex; removal also holds the QP's CQ
	 * locks, so poll_cq (under a CQ lock only) never sees a freed QP.
	 * A new QP has no CQEs yet, so its insertion needs no CQ lock.
	 */
	struct snic_qp **qp_table;
	uint32_t qp_table_mask;
	pthread_mutex_t qp_table_mutex;
};

struct snic_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

struct snic_ah {
	struct ibv_ah ibvah;
	struct snic_av av; /* copied whole into every UD WQE */
};

/* A ring in provider memory that the kernel pinned for the device */
struct snic_ring {
	void *buf;
	size_t size; /* entry size << log2_depth */
	uint8_t log2_depth;
};

static inline uint32_t snic_ring_depth(const struct snic_ring *ring)
{
	return 1u << ring->log2_depth;
}

/* The slot of free-running index idx */
static inline uint32_t snic_ring_slot(const struct snic_ring *ring,
				      uint32_t idx)
{
	return idx & (snic_ring_depth(ring) - 1);
}

struct snic_cq {
	struct verbs_cq vcq; /* ibv_cq, and ibv_cq_ex for create_cq_ex */
	struct snic_ring ring;
	uint32_t cqn;
	uint32_t cons;     /* free-running consumer index */
	uint32_t cons_db;  /* consumer index the device was last told */
	pthread_spinlock_t lock;
	/* ibv_cq_ex: the CQE start_poll/next_poll returned (CQ locked) */
	struct snic_cqe *cur;
	/*
	 * After ibv_resize_cq: the ring the device left, whose CQEs
	 * [old_cons, old_tail) come before the new ring's (buf NULL: none).
	 */
	struct snic_ring old;
	uint32_t old_cons;
	uint32_t old_tail;
};

/*
 * A send or receive queue. Indices run freely modulo 2^32, slot = index &
 * (depth - 1). Slots [cons, prod) hold WQEs the device has not completed:
 * it reads their wr_id back at completion time, so they are not reused
 * before their (or a later) CQE was polled.
 */
struct snic_wq {
	struct snic_ring ring;
	uint32_t prod; /* post_* under lock, stored before the doorbell */
	uint32_t cons; /* poll_cq, under the CQ's lock (an SRQ's: under lock) */
	uint32_t max_sge;
	pthread_spinlock_t lock;
};

/*
 * A shared receive queue: a ring of struct snic_rq_wqe rung with
 * SNIC_DB_SRQ. The device takes WQEs in ring order, copying each when a
 * message starts, so a slot is free once taken; receive CQEs name the
 * WQE's SRQ index, and one naming index i proves every WQE up to i taken
 * (messages complete out of order, so later CQEs may name earlier ones).
 * Posting and polling threads share wq under lock.
 */
struct snic_srq {
	struct ibv_srq ibvsrq;
	struct snic_wq wq; /* prod: posted; cons: known taken */
	uint32_t srqn;
};

struct snic_qp {
	struct verbs_qp vqp; /* ibv_qp, and ibv_qp_ex for the ibv_wr_* calls */
	struct snic_wq sq;
	struct snic_wq rq;   /* no ring with an SRQ */
	struct snic_srq *srq;
	uint64_t send_ops;   /* 1 << IBV_WR_* the QP takes */
	uint32_t max_inline;
	bool sq_sig_all;
	uint32_t rpc_flags;  /* SNICDV_QP_RPC_* set on the device (rpc.c) */
	bool cl;             /* a connectionless endpoint (cl.c) */
	/* ibv_wr_*: between wr_start and wr_complete/abort, SQ locked */
	uint32_t wr_prod;              /* next slot a builder takes */
	struct snic_sq_wqe *wr_cur;    /* the WQE setters complete */
	int wr_err;                    /* first error, for wr_complete */
	bool wr_cl_addr_due;           /* wr_cur: a CL WRITE with no address */
};

static inline struct snic_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct snic_device, vdev.device);
}

static inline struct snic_context *to_sctx(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct snic_context, ibvctx.context);
}

static inline struct snic_pd *to_spd(struct ibv_pd *ibvpd)
{
	return container_of(ibvpd, struct snic_pd, ibvpd);
}

static inline struct snic_ah *to_sah(struct ibv_ah *ibvah)
{
	return container_of(ibvah, struct snic_ah, ibvah);
}

static inline struct snic_cq *to_scq(struct ibv_cq *ibvcq)
{
	return container_of(ibvcq, struct snic_cq, vcq.cq);
}

static inline struct snic_cq *to_scq_ex(struct ibv_cq_ex *ibvcqx)
{
	return container_of(ibvcqx, struct snic_cq, vcq.cq_ex);
}

static inline struct snic_srq *to_ssrq(struct ibv_srq *ibvsrq)
{
	return container_of(ibvsrq, struct snic_srq, ibvsrq);
}

static inline struct snic_qp *to_sqp(struct ibv_qp *ibvqp)
{
	return container_of(ibvqp, struct snic_qp, vqp.qp);
}

/* log2 of the ring depth holding at least n entries (n <= 2^31) */
static inline uint8_t snic_log2_depth(uint64_t n)
{
	return n <= 1u << SNIC_MIN_LOG2_DEPTH ? SNIC_MIN_LOG2_DEPTH :
						ilog64(n - 1);
}

/*
 * Publish a queue's new index to the device: every access to the ring
 * before it (WQEs written, CQEs read) is ordered before the doorbell.
 */
static inline void snic_ring_db(struct snic_context *ctx, uint8_t type,
				uint32_t qid, uint32_t index)
{
	udma_to_device_barrier();
	mmio_write64_le(ctx->db, htole64(snic_db_make(type, qid, index)));
}

static inline struct snic_sq_wqe *snic_sq_wqe(struct snic_wq *sq,
					      uint32_t idx)
{
	return (struct snic_sq_wqe *)sq->ring.buf +
	       snic_ring_slot(&sq->ring, idx);
}

static inline struct snic_rq_wqe *snic_rq_wqe(struct snic_wq *rq,
					      uint32_t idx)
{
	return (struct snic_rq_wqe *)rq->ring.buf +
	       snic_ring_slot(&rq->ring, idx);
}

static inline bool snic_wq_full(struct snic_wq *wq, uint32_t prod)
{
	return prod - wq->cons >= snic_ring_depth(&wq->ring);
}

/*
 * A CQE for the WQE whose index is wqe_index modulo 2^16 frees every slot
 * up to and including it (unsignaled sends get no CQE of their own). That
 * WQE lies in [cons, prod), a window of at most depth <= 2^16 slots, so
 * its distance from cons is unambiguous. A CQE naming a slot outside the
 * window (a duplicate, or one of a QP reset since) frees nothing.
 */
static inline void snic_wq_complete(struct snic_wq *wq, uint16_t wqe_index)
{
	uint32_t ahead = (uint16_t)(wqe_index - (uint16_t)wq->cons);

	if (ahead < wq->prod - wq->cons)
		wq->cons += ahead + 1;
}

/* snic.c */
struct snic_qp *snic_qp_lookup(struct snic_context *ctx, uint32_t qpn);
bool snic_is_snic_dev(struct ibv_device *ibdev);

/* verbs.c */
int snic_query_device_ex(struct ibv_context *ibvctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int snic_query_port(struct ibv_context *ibvctx, uint8_t port,
		    struct ibv_port_attr *port_attr);
struct ibv_pd *snic_alloc_pd(struct ibv_context *ibvctx);
int snic_dealloc_pd(struct ibv_pd *ibvpd);
struct ibv_mr *snic_reg_mr(struct ibv_pd *ibvpd, void *addr, size_t len,
			   uint64_t hca_va, int access);
int snic_dereg_mr(struct verbs_mr *vmr);
int snic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);
struct ibv_mw *snic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int snic_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid);
int snic_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid);
int snic_dealloc_mw(struct ibv_mw *mw);
struct ibv_ah *snic_create_ah(struct ibv_pd *ibvpd, struct ibv_ah_attr *attr);
int snic_destroy_ah(struct ibv_ah *ibvah);
int snic_ring_alloc(struct snic_context *ctx, struct snic_ring *ring,
		    size_t entry_size, uint8_t log2_depth);
void snic_ring_free(struct snic_ring *ring);

/* cq.c */
struct ibv_cq *snic_create_cq(struct ibv_context *ibvctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
struct ibv_cq_ex *snic_create_cq_ex(struct ibv_context *ibvctx,
				   struct ibv_cq_init_attr_ex *attr);
int snic_destroy_cq(struct ibv_cq *ibvcq);
int snic_poll_cq(struct ibv_cq *ibvcq, int num_entries, struct ibv_wc *wc);
int snic_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only);
int snic_resize_cq(struct ibv_cq *ibvcq, int cqe);
int snic_modify_cq(struct ibv_cq *ibvcq, struct ibv_modify_cq_attr *attr);
void snic_cq_discard_qp(struct snic_cq *cq, struct snic_qp *qp);

/* srq.c */
struct ibv_srq *snic_create_srq(struct ibv_pd *ibvpd,
				struct ibv_srq_init_attr *attr);
int snic_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int snic_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr);
int snic_destroy_srq(struct ibv_srq *ibvsrq);
int snic_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
void snic_srq_complete(struct snic_srq *srq, uint16_t wqe_index);

/* qp.c */
struct ibv_qp *snic_create_qp(struct ibv_pd *ibvpd,
			      struct ibv_qp_init_attr *attr);
/* cl: a connectionless endpoint, whose RDMA WRITEs are CL WRITEs */
struct snic_qp *snic_qp_create(struct ibv_context *ibvctx,
			       struct ibv_qp_init_attr_ex *attr, bool cl);
/* snicdv_wr_set_cl_addr's flags (= SNICDV_CL_*, cl.c) */
#define SNIC_WR_CL_UNREGISTERED (1u << 0)
#define SNIC_WR_CL_FLAGS SNIC_WR_CL_UNREGISTERED
void snic_wr_set_cl_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			 uint32_t remote_ep, uint32_t flags);
struct ibv_qp *snic_create_qp_ex(struct ibv_context *ibvctx,
				 struct ibv_qp_init_attr_ex *attr);
int snic_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int snic_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int snic_destroy_qp(struct ibv_qp *ibvqp);
int snic_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int snic_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
int snic_bind_mw(struct ibv_qp *ibvqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
void snic_set_rq_wqe(struct snic_rq_wqe *wqe, const struct ibv_recv_wr *wr);
void snic_set_sges(struct snic_sge *dst, const struct ibv_sge *sg,
		   size_t num_sge);
bool snic_qp_can_send(struct snic_qp *qp);
void snic_wqe_init(struct snic_qp *qp, struct snic_sq_wqe *wqe,
		   uint64_t wr_id, uint8_t opcode, unsigned int send_flags);
int snic_wqe_set_inline(struct snic_qp *qp, struct snic_sq_wqe *wqe,
			const struct ibv_data_buf *bufs, size_t n);
void snic_wq_publish(struct ibv_qp *ibvqp, struct snic_wq *wq,
		     uint8_t db_type, uint32_t prod);

#endif /* __SNIC_H__ */
