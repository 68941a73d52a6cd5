/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * snic Linux driver: device, queue and verbs object structures.
 *
 * The hardware interface (registers, admin commands, rings) is
 * include/snic/ of the snic repository, used unchanged.
 */
#ifndef _SNIC_H_
#define _SNIC_H_

#include <linux/completion.h>
#include <linux/idr.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/semaphore.h>
#include <linux/u64_stats_sync.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <snic/snic_regs.h>
#include <snic/snic_admin.h>
#include <snic/snic_eth.h>
#include <snic/snic_verbs.h>
#include <snic/snic_sr.h>

#include "snic_com.h"

#define DRV_MODULE_NAME         "snic"

/* Doorbells are single 64-bit MMIO writes */
#ifndef CONFIG_64BIT
#error "snic needs a 64-bit kernel"
#endif

/*
 * MSI-X: 0 = admin queue + AEQ, 1 = Ethernet queues, 2.. = completion EQs;
 * a device with SRNIC (ABI 3.5) and a vector to spare: the last one its
 * CtrlQ's (snic_sr.c)
 */
#define SNIC_VEC_ADMIN          0
#define SNIC_VEC_ETH            1
#define SNIC_VEC_COMP_BASE      2
#define SNIC_MIN_VECTORS        3

#define SNIC_ADMIN_LOG2_DEPTH   5
#define SNIC_AEQ_LOG2_DEPTH     8
#define SNIC_EQ_LOG2_DEPTH      10
#define SNIC_ETH_TX_LOG2_DEPTH  8
#define SNIC_ETH_RX_LOG2_DEPTH  8

/* GID table size: perftest walks every index, rxe's 1024 makes it slow */
#define SNIC_GID_TABLE_LEN      16

struct snic_dev;

/*
 * Device counters shown by ethtool -S and rdma statistic, by their
 * struct snic_stats field names (read by offset, so order is free).
 */
#define SNIC_DEV_STATS(X) \
	X(admin_cmds) X(admin_errors) X(async_events) X(async_events_lost) \
	X(guest_errors) X(doorbells) X(doorbells_invalid) X(dma_errors) \
	X(tx_frames) X(tx_bytes) X(tx_dropped) X(rx_frames) X(rx_bytes) \
	X(rx_dropped) X(rx_too_long) X(rx_filtered) X(rx_rdma_reserved) \
	X(rx_no_buffer) X(irqs) X(tlb_hits) X(tlb_misses) \
	X(rdma_tx_packets) X(rdma_rx_packets) X(rdma_rx_dropped) \
	X(wire_drops_injected) X(wire_dups_injected) \
	X(wire_reorders_injected) X(pfc_pause_sent) X(pfc_pause_recv) \
	X(pfc_paused_ns) X(rx_buffer_max) X(rx_buffer_drops) \
	X(obj_qps) X(obj_cqs) X(obj_srqs) X(obj_mrs) X(obj_mws) X(obj_pds) \
	X(wire_ce_marked) X(sr_ctrlq_entries) X(sr_ctrlq_drops) \
	X(sr_retry_refused) X(sr_retry_stale) X(sr_ctrlq_refused) \
	X(sr_read_placed) X(sr_read_refused) X(sr_read_resent) \
	X(wire_corrupts_injected) X(rdma_rx_icrc_errors) \
	X(admin_fails_injected) X(frwr_registered) X(frwr_invalidated) \
	X(rdma_timeouts) X(rdma_rtx_segments) X(rdma_rx_stale) \
	X(cl_retransmits) X(cl_dup_dropped) X(cl_dup_acked) \
	X(cl_escape_parked) X(cl_escape_replayed) X(cl_escape_timeouts) \
	X(cl_escape_full) X(cl_reg_refused) X(cl_notify_sent)

#define SNIC_DEV_STAT_INDEX(field) SNIC_DEV_STAT_##field,
enum { SNIC_DEV_STATS(SNIC_DEV_STAT_INDEX) SNIC_NUM_DEV_STATS };

/*
 * A queue ring and its 4 KiB page list: pinned process memory (umem) for
 * user queues, coherent memory (buf) for the kernel's own.
 */
struct snic_queue {
	struct ib_umem *umem;
	void *buf;
	dma_addr_t buf_dma;
	__le64 *pbl;
	dma_addr_t pbl_dma;
	u32 npages;
};

/* One admin command in flight; cmd_id = index | generation << depth */
struct snic_admin_ctx {
	struct completion done;
	u64 result;
	u16 status;
	u16 cmd_id;
	bool busy;
};

struct snic_admin {
	struct snic_admin_cmd *sq;
	dma_addr_t sq_dma;
	struct snic_admin_cqe *cq;
	dma_addr_t cq_dma;
	u32 sq_tail;
	u32 cq_head;
	u16 generation;
	bool dead;		/* a command timed out: stop using the device */
	spinlock_t lock;	/* sq_tail, cq_head, ctx[], dead */
	struct semaphore slots;	/* free ctx[] entries */
	struct snic_admin_ctx ctx[1 << SNIC_ADMIN_LOG2_DEPTH];
	/* DMA buffer for QUERY_DEVICE / GET_STATS responses */
	struct mutex resp_lock;
	void *resp;
	dma_addr_t resp_dma;
};

/*
 * The async events' handlers, by event (SNIC_EVENT_*; data: the event's
 * word): snic_main.c's table, which snic_admin_init() is given
 */
struct snic_aeq_handlers {
	void (*handler[SNIC_EVENT_SR_CTRLQ_OVERFLOW + 1])(struct snic_dev *sdev,
							  u64 data);
};

struct snic_aeq {
	struct snic_aeqe *ring;
	dma_addr_t dma;
	u32 head;
	const struct snic_aeq_handlers *handlers;
};

/* A completion event queue on its own MSI-X vector */
struct snic_eq {
	struct snic_dev *sdev;
	struct snic_queue ring;	/* struct snic_eqe entries */
	u32 head;
	u32 eqn;
	u16 vector;
	bool created;
	char irq_name[32];
};

struct snic_eth_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	u32 len;
};

struct snic_eth_ring {
	struct snic_eth_desc *desc;
	dma_addr_t dma;
	struct snic_eth_buf *bufs;
	u32 mask;
	u32 prod;		/* next descriptor the driver fills */
	u32 cons;		/* next descriptor the device completes */
	u32 qid;
	bool created;
};

struct snic_netdev_priv {
	struct snic_dev *sdev;
	struct net_device *netdev;
	struct napi_struct napi;
	struct snic_eth_ring tx;
	struct snic_eth_ring rx;
	u32 rx_buf_len;
	bool up;		/* rings and NAPI live (under RTNL) */
	struct u64_stats_sync syncp;	/* the counters below, NAPI only */
	u64 rx_packets;
	u64 rx_bytes;
	u64 tx_packets;
	u64 tx_bytes;
	atomic64_t rx_dropped;
	atomic64_t tx_dropped;
	atomic64_t tx_errors;
	atomic64_t rx_alloc_failed;
};

/*
 * SRNIC's host half (snic_sr.c): the device's CtrlQ and the SRNIC QPs'
 * bitmaps and RetryQs; the counters are rdma statistic's sr_host_*.
 */
struct snic_sr {
	struct snic_sr_ctrl *ring;	/* NULL: SRNIC not offered */
	dma_addr_t dma;
	u32 head;		/* consumer: the handler's alone */
	u16 vector;		/* 0: none kept for it */
	struct xarray qps;	/* QPN -> struct snic_sr_qp */
	char irq_name[32];
	atomic64_t entries;	/* CtrlQ entries taken */
	atomic64_t stale;	/* ... of no SRNIC QP (destroyed meanwhile) */
	atomic64_t epsn_posted;	/* RetryQ entries: new ePSN (responder) */
	atomic64_t rtx_posted;	/* ... ranges to resend (requester) */
	atomic64_t lack_posted;	/* ... lACK over READ responses placed */
	atomic64_t retry_full;	/* decisions put off: RetryQ full */
	atomic64_t overflows;	/* SNIC_EVENT_SR_CTRLQ_OVERFLOW events */
};

/* Fault injection hooks (snic_fault.c, module parameter fault_inject) */
struct snic_fault {
	struct dentry *dir;		/* debugfs snic/<pci-name>/ */
	struct mutex lock;
	bool uau_armed;			/* mr_use_after_unmap: the next MR */
	bool uau_used;			/* ... it poisoned one: */
	bool uau_unmapped;		/* its IOVA untranslated at the time */
	dma_addr_t uau_iova;
};

struct snic_dev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	struct pci_dev *pdev;
	void __iomem *regs;		/* BAR0 */
	void __iomem *db;		/* BAR2 page 0: the kernel's doorbells */
	resource_size_t db_bar_start;
	u32 num_db_pages;
	u32 num_vectors;
	u16 abi_minor;
	struct snic_device_attr attr;	/* from QUERY_DEVICE, little-endian */
	struct snic_admin admin;
	struct snic_aeq aeq;
	struct snic_eq *eqs;		/* num_comp_vectors entries */
	struct snic_sr sr;
	struct net_device *netdev;
	struct ida db_page_ida;		/* user contexts' doorbell pages */
	struct xarray cq_xa;		/* CQN -> struct ib_cq, for events */
	struct xarray qp_xa;		/* QPN -> struct ib_qp, for events */
	struct xarray srq_xa;		/* SRQN -> struct ib_srq, for events */
	atomic_t mr_key;		/* low byte of the next MR's keys */
	struct work_struct port_work;	/* reports port_active to the core */
	bool port_active;
	bool ib_registered;
	struct snic_fault fault;
};

struct snic_ucontext {
	struct ib_ucontext ibucontext;
	u32 db_page;
	struct rdma_user_mmap_entry *db_entry;
	/* RPC op-codes with a kernel deployed (snic_rpc.c), undeployed at
	 * the end: at most SNIC_KERNELS_PER_CONTEXT of them
	 */
	struct mutex kernels_lock;
	struct list_head kernels;
	unsigned int nr_kernels;
};

struct snic_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	u64 address;		/* bus address of the mapped page */
	u32 page;		/* doorbell page index */
	bool keep_page;		/* a kernel may still be deployed on it */
};

struct snic_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/* Driver-side indices of a kernel work queue (user ones are libsnic's) */
struct snic_kwq {
	spinlock_t lock;
	u32 prod;		/* next WQE to post */
	u32 cons;		/* oldest WQE not completed */
	u32 log2_depth;
};

struct snic_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	__le64 *pbl;
	dma_addr_t pbl_dma;
	size_t pbl_bytes;
	int access;		/* IB_ACCESS_* it was registered with */
	/*
	 * Fast registration (alloc_mr): the page list map_mr_sg fills (of
	 * max_pages entries, npages used), and the key the device knows the
	 * MR by, the one of its last REG_MR work request (ib_mr's keys move
	 * on before the next is posted: ib_update_fast_reg_key())
	 */
	u32 npages;
	u32 max_pages;
	u32 hw_key;
};

struct snic_mw {
	struct ib_mw ibmw;
	u32 handle;		/* the R_Key ALLOC_MW returned */
};

/*
 * A shared receive queue. The device takes its WQEs in ring order, copying
 * each when a message starts, so a slot is free once taken; a receive CQE
 * names the WQE's SRQ index, which proves it and every WQE before it
 * taken (messages complete out of order). Kernel SRQs only: kwq.
 */
struct snic_srq {
	struct ib_srq ibsrq;
	struct snic_queue ring;	/* struct snic_rq_wqe entries */
	u32 srqn;
	struct snic_kwq kwq;	/* prod: posted; cons: known taken */
};

struct snic_cq {
	struct ib_cq ibcq;
	struct snic_queue ring;
	u32 cqn;
	struct snic_eq *eq;	/* its completion events go there */
	/* kernel CQs */
	spinlock_t lock;	/* cons, reported; polling */
	u32 cons;
	u32 reported;		/* consumer index the device last heard */
	u32 log2_depth;
	struct mutex resize_lock;	/* user CQs: one RESIZE_CQ at a time */
};

struct snic_qp {
	struct ib_qp ibqp;
	struct snic_queue sq;
	struct snic_queue rq;
	/* RC: the device's responder database (struct snic_rdb_entry) */
	void *rdb;
	dma_addr_t rdb_dma;
	struct ib_qp_cap cap;
	u32 qpn;
	bool sig_all;		/* IB_SIGNAL_ALL_WR */
	/* the source GID index of the last IB_QP_AV, for query_qp */
	bool av_set;
	u8 sgid_index;
	/* kernel QPs */
	struct snic_kwq ksq;
	struct snic_kwq krq;
};

struct snic_ah {
	struct ib_ah ibah;
	struct snic_av av;
};

static inline struct snic_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct snic_dev, ibdev);
}

static inline struct snic_ucontext *to_sucontext(struct ib_ucontext *uc)
{
	return container_of(uc, struct snic_ucontext, ibucontext);
}

static inline struct snic_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct snic_pd, ibpd);
}

static inline struct snic_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct snic_mr, ibmr);
}

static inline struct snic_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct snic_cq, ibcq);
}

static inline struct snic_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct snic_qp, ibqp);
}

static inline struct snic_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct snic_mw, ibmw);
}

static inline struct snic_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct snic_srq, ibsrq);
}

static inline struct snic_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct snic_ah, ibah);
}

static inline struct snic_user_mmap_entry *
to_smmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct snic_user_mmap_entry, rdma_entry);
}

/* QUERY_DEVICE's firmware version is major << 16 | minor */
static inline u16 snic_fw_major(const struct snic_dev *sdev)
{
	return le32_to_cpu(sdev->attr.fw_version) >> 16;
}

static inline u16 snic_fw_minor(const struct snic_dev *sdev)
{
	return le32_to_cpu(sdev->attr.fw_version) & 0xffff;
}

/* Does the device offer SNIC_CAP_x? Nothing it lacks is advertised. */
static inline bool snic_has(const struct snic_dev *sdev, u64 cap)
{
	return le64_to_cpu(sdev->attr.caps) & cap;
}

/* Inline send data the QPs take: 0 without SNIC_CAP_INLINE */
static inline u32 snic_max_inline(const struct snic_dev *sdev)
{
	if (!snic_has(sdev, SNIC_CAP_INLINE))
		return 0;
	return min_t(u32, le16_to_cpu(sdev->attr.max_inline_data),
		     SNIC_MAX_INLINE_DATA);
}

static inline void snic_ring_db(struct snic_dev *sdev, u8 type, u32 qid,
				u32 index)
{
	writeq(snic_db_make(type, qid, index), sdev->db);
}

/*
 * The phase-bit ring walker of every ring the device writes (admin CQ,
 * AEQ, EQs, kernel CQs): the entry at free-running index head of a ring of
 * 2^log2_depth entries, or NULL if the device has not written it yet. Its
 * body may be read once this returned it.
 */
static inline void *__snic_ring_next(void *ring, u32 head,
				     unsigned int log2_depth,
				     size_t entry_size, size_t flags_offset)
{
	u8 *e = (u8 *)ring + (head & ((1u << log2_depth) - 1)) * entry_size;

	if (!snic_ring_entry_new(READ_ONCE(e[flags_offset]), head, log2_depth))
		return NULL;
	dma_rmb();	/* the body after the phase byte */
	return e;
}

/* ring: a pointer to the ring's entry type, which has the phase in flags */
#define snic_ring_next(ring, head, log2_depth)				\
	((typeof(ring))__snic_ring_next(ring, head, log2_depth,		\
					sizeof(*(ring)),		\
					offsetof(typeof(*(ring)), flags)))

/* snic_admin.c: the admin queue; commands are built in snic_com.c */
int snic_admin_exec(struct snic_dev *sdev, struct snic_admin_cmd *cmd,
		    u64 *result);
int snic_admin_exec_status(struct snic_dev *sdev, struct snic_admin_cmd *cmd,
			   u64 *result, u16 *status);
int snic_admin_init(struct snic_dev *sdev,
		    const struct snic_aeq_handlers *handlers);
void snic_admin_destroy(struct snic_dev *sdev);
bool snic_admin_dead(struct snic_dev *sdev);

/* snic_com.c: for the netdev and the ib_device alike */
void snic_fw_version_str(const struct snic_dev *sdev, char *str, size_t len);
int snic_read_dev_stats(struct snic_dev *sdev, u64 *values);

/* snic_eq.c */
int snic_eqs_create(struct snic_dev *sdev);
void snic_eqs_destroy(struct snic_dev *sdev);
void snic_eq_overflow(struct snic_dev *sdev, u64 eqn);

/* snic_sr.c: SRNIC's CtrlQ and RetryQs */
struct snic_sr_qp;
void snic_sr_init(struct snic_dev *sdev);
void snic_sr_destroy(struct snic_dev *sdev);
bool snic_sr_enabled(const struct snic_dev *sdev);
u16 snic_sr_ctx_share(const struct snic_dev *sdev);
int snic_sr_qp_enable(struct snic_dev *sdev, u32 qpn);
struct snic_sr_qp *snic_sr_qp_take(struct snic_dev *sdev, u32 qpn);
void snic_sr_qp_put(struct snic_dev *sdev, struct snic_sr_qp *q);
void snic_sr_overflow(struct snic_dev *sdev, u64 qpn);
#define SNIC_SR_HOST_STATS(X) \
	X(entries) X(stale) X(epsn_posted) X(rtx_posted) X(retry_full) \
	X(overflows) X(lack_posted)
void snic_sr_read_stats(struct snic_dev *sdev, u64 *values);

/* snic_netdev.c */
int snic_netdev_create(struct snic_dev *sdev);
void snic_netdev_destroy(struct snic_dev *sdev);
void snic_netdev_link_event(struct snic_dev *sdev, bool up);

/* snic_fault.c: fault injection for driver development */
void snic_fault_init(void);
void snic_fault_exit(void);
void snic_fault_add(struct snic_dev *sdev);
void snic_fault_remove(struct snic_dev *sdev);
unsigned long snic_fault_mr_pgsz(struct snic_dev *sdev, unsigned long pgsz);
void snic_fault_mr_pbl(struct snic_dev *sdev, __le64 *pbl,
		       unsigned int shift);

/* snic_queue.c: queue rings described to the device */
int snic_queue_get_user(struct snic_dev *sdev, u64 va, u32 len,
			struct snic_queue *q);
int snic_queue_alloc(struct snic_dev *sdev, u32 len, struct snic_queue *q);
void snic_queue_put(struct snic_dev *sdev, struct snic_queue *q);
struct ib_mr *snic_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *snic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access,
			       struct ib_udata *udata);
int snic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *snic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 virt_addr, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *snic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int snic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
int snic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int snic_dealloc_mw(struct ib_mw *ibmw);

/* snic_cq.c */
int snic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata);
int snic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int snic_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int snic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int snic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int snic_modify_cq(struct ib_cq *ibcq, u16 count, u16 period);
void snic_cq_clean(struct snic_cq *cq, struct snic_qp *qp);

/* snic_srq.c */
int snic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		    struct ib_udata *udata);
int snic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int snic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int snic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int snic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
void snic_srq_complete(struct snic_srq *srq, u16 wqe_index);

/* snic_qp.c */
int snic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata);
int snic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int snic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int snic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int snic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int snic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
void snic_kwq_complete(struct snic_kwq *wq, u16 wqe_index);
void snic_set_rq_wqe(struct snic_rq_wqe *w, const struct ib_recv_wr *wr);
int snic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata);
int snic_destroy_ah(struct ib_ah *ibah, u32 flags);
int snic_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int snic_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* snic_rpc.c: StRoM RPCs, the driver methods of snic-abi.h */
void snic_rpc_set_methods(struct snic_dev *sdev);
/* snic_transport.c: the transport programs' driver methods */
extern const struct uapi_definition snic_transport_uapi_defs[];
/* snic_hll.c: the HyperLogLog sketches' driver methods */
extern const struct uapi_definition snic_hll_uapi_defs[];
/* snic_cl.c: the connectionless transport's driver method */
extern const struct uapi_definition snic_cl_uapi_defs[];
int snic_qp_set_transport(struct snic_dev *sdev, u32 qpn, u8 program,
			  u8 ack_every);
void snic_rpc_ucontext_init(struct snic_ucontext *uc);
bool snic_rpc_ucontext_fini(struct snic_dev *sdev, struct snic_ucontext *uc);

/*
 * Copy the provider's driver data into cmd (len bytes, of which the first
 * min_len are required). A newer provider may send more, but only zeros
 * (efa's rule): a field this driver does not know must not be ignored. A
 * command without driver data is cmd NULL, len 0.
 */
static inline int snic_udata_cmd(struct ib_udata *udata, void *cmd,
				 size_t len, size_t min_len)
{
	if (!udata)
		return 0;
	if (udata->inlen < min_len) {
		pr_debug("snic: %zu bytes of driver data, %zu needed\n",
			 udata->inlen, min_len);
		return -EINVAL;
	}
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EINVAL;
	return len ? ib_copy_from_udata(cmd, udata, min(len, udata->inlen)) : 0;
}

/* snic_verbs.c */
int snic_ib_register(struct snic_dev *sdev);
void snic_ib_unregister(struct snic_dev *sdev);
void snic_ib_port_event(struct snic_dev *sdev, bool active);

#endif /* _SNIC_H_ */
