/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snic RDMA object model: QP types and states, modify-QP attribute bits,
 * memory access flags, path MTUs and completion statuses.
 *
 * The numbers are the verbs numbers (Linux include/rdma/ib_verbs.h), so
 * the driver passes requests through unchanged and the device answers in
 * the terms the RDMA core uses.
 */
#ifndef SNIC_VERBS_H
#define SNIC_VERBS_H

#include <linux/types.h>

enum snic_qp_type {
    SNIC_QPT_GSI = 1,           /* QP1: UD semantics, Q_Key 0x80010000 */
    SNIC_QPT_RC = 2,
    SNIC_QPT_UC = 3,            /* ABI 2.0 */
    SNIC_QPT_UD = 4,
};

enum snic_qp_state {
    SNIC_QPS_RESET = 0,
    SNIC_QPS_INIT = 1,
    SNIC_QPS_RTR = 2,
    SNIC_QPS_RTS = 3,
    SNIC_QPS_SQD = 4,
    SNIC_QPS_SQE = 5,
    SNIC_QPS_ERR = 6,
};
#define SNIC_QPS_COUNT          7

/* Modify-QP attribute mask (IB_QP_*) */
#define SNIC_QP_ATTR_STATE              (1u << 0)
#define SNIC_QP_ATTR_CUR_STATE          (1u << 1)
#define SNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY (1u << 2)
#define SNIC_QP_ATTR_ACCESS_FLAGS       (1u << 3)
#define SNIC_QP_ATTR_PKEY_INDEX         (1u << 4)
#define SNIC_QP_ATTR_PORT               (1u << 5)
#define SNIC_QP_ATTR_QKEY               (1u << 6)
#define SNIC_QP_ATTR_AV                 (1u << 7)
#define SNIC_QP_ATTR_PATH_MTU           (1u << 8)
#define SNIC_QP_ATTR_TIMEOUT            (1u << 9)
#define SNIC_QP_ATTR_RETRY_CNT          (1u << 10)
#define SNIC_QP_ATTR_RNR_RETRY          (1u << 11)
#define SNIC_QP_ATTR_RQ_PSN             (1u << 12)
#define SNIC_QP_ATTR_MAX_QP_RD_ATOMIC   (1u << 13)
#define SNIC_QP_ATTR_ALT_PATH           (1u << 14)
#define SNIC_QP_ATTR_MIN_RNR_TIMER      (1u << 15)
#define SNIC_QP_ATTR_SQ_PSN             (1u << 16)
#define SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC (1u << 17)
#define SNIC_QP_ATTR_PATH_MIG_STATE     (1u << 18)
#define SNIC_QP_ATTR_CAP                (1u << 19)
#define SNIC_QP_ATTR_DEST_QPN           (1u << 20)

/* Memory access flags (IB_ACCESS_*) */
#define SNIC_ACCESS_LOCAL_WRITE         (1u << 0)
#define SNIC_ACCESS_REMOTE_WRITE        (1u << 1)
#define SNIC_ACCESS_REMOTE_READ         (1u << 2)
#define SNIC_ACCESS_REMOTE_ATOMIC       (1u << 3)
#define SNIC_ACCESS_MW_BIND             (1u << 4)   /* MRs: MWs may bind */

/* Path MTU (IB_MTU_*): bytes = 128 << mtu */
enum snic_mtu {
    SNIC_MTU_256 = 1,
    SNIC_MTU_512 = 2,
    SNIC_MTU_1024 = 3,
    SNIC_MTU_2048 = 4,
    SNIC_MTU_4096 = 5,
};

/* Completion status (IB_WC_*) */
enum snic_wc_status {
    SNIC_WC_SUCCESS = 0,
    SNIC_WC_LOC_LEN_ERR = 1,
    SNIC_WC_LOC_QP_OP_ERR = 2,
    SNIC_WC_LOC_PROT_ERR = 4,
    SNIC_WC_WR_FLUSH_ERR = 5,
    SNIC_WC_MW_BIND_ERR = 6,    /* ABI 2.0 */
    SNIC_WC_BAD_RESP_ERR = 7,
    SNIC_WC_LOC_ACCESS_ERR = 8,
    SNIC_WC_REM_INV_REQ_ERR = 9,
    SNIC_WC_REM_ACCESS_ERR = 10,
    SNIC_WC_REM_OP_ERR = 11,
    SNIC_WC_RETRY_EXC_ERR = 12,
    SNIC_WC_RNR_RETRY_EXC_ERR = 13,
    SNIC_WC_REM_ABORT_ERR = 16,     /* ABI 3.10 */
};

/* Page sizes for MRs and queue page lists */
#define SNIC_PAGE_SHIFT_4K              12
#define SNIC_PAGE_SHIFT_2M              21

/*
 * Memory keys: lkey = rkey = index << 8 | key byte. The driver picks the
 * key byte so a re-registered index does not accept stale keys. A memory
 * window's R_Key has SNIC_KEY_MW set; its key byte changes with every
 * type 2 bind (the binder chooses it, as IBA says).
 */
#define SNIC_KEY_INDEX_SHIFT            8
#define SNIC_KEY_BYTE_MASK              0xffu
#define SNIC_KEY_MW                     (1u << 31)

/* ALLOC_PD: the context (doorbell page) the PD belongs to; 0 = kernel */
struct snic_admin_alloc_pd {
    __le16 ctx;
    __le16 rsvd;
    __le32 rsvd1;
};
_Static_assert(sizeof(struct snic_admin_alloc_pd) == 8, "alloc_pd size");

/* DEALLOC_PD (handle = PD number), DEREG_MR (handle = lkey) */
struct snic_admin_obj_ref {
    __le32 handle;
    __le32 rsvd;
};
_Static_assert(sizeof(struct snic_admin_obj_ref) == 8, "obj_ref size");

#define SNIC_MR_PHYS    (1u << 0)   /* iova is the DMA address (kernel only) */
#define SNIC_MR_FRWR    (1u << 1)   /* ABI 3.8: for fast registration */

/*
 * REG_MR: [iova, iova + length) is mapped page by page through a page list
 * (MTT) in host memory: npages little-endian 64-bit page addresses at
 * pbl_addr, each aligned to 2^page_shift, the first page holding iova.
 * The device reads the list through its translation cache, never copies
 * it, so it must stay unchanged until DEREG_MR. SNIC_MR_PHYS registers
 * an identity mapping for the kernel's local DMA key: no page list, local
 * access only, PDs of context 0 only.
 *
 * SNIC_MR_FRWR (SNIC_CAP_FRWR, kernel PDs only) allocates an MR for fast
 * registration: npages is the most pages a registration may list (its
 * max_num_sg, 1..SNIC_FRWR_MAX_PAGES); iova, length, pbl_addr, access
 * and page_shift are zero. It maps nothing (the MR is free) until a
 * REG_MR work request (struct snic_reg_mr_wr) on a QP of its PD maps it
 * (valid); LOCAL_INV or a SEND with Invalidate of its key frees it
 * again. Each registration gives it a new key byte; DEREG_MR names it by
 * its index, whatever its key byte.
 */
#define SNIC_FRWR_MAX_PAGES     512     /* one 4 KiB page list */

struct snic_admin_reg_mr {
    __le64 iova;
    __le64 length;
    __le64 pbl_addr;
    __le32 npages;
    __le32 pdn;
    __le32 access;      /* SNIC_ACCESS_* */
    __u8 page_shift;    /* SNIC_PAGE_SHIFT_4K or _2M */
    __u8 key;           /* low byte of the keys */
    __le16 flags;       /* SNIC_MR_* */
};
_Static_assert(sizeof(struct snic_admin_reg_mr) == 40, "reg_mr size");

/*
 * Queues (EQ, CQ, SQ, RQ) live in host memory described by a page list of
 * 4 KiB pages (little-endian 64-bit addresses), like MR page lists: user
 * queues are pinned process memory, never contiguous.
 */
#define SNIC_QUEUE_PAGE_SHIFT           12

#define SNIC_EQE_SIZE                   16
#define SNIC_CQE_SIZE                   32
#define SNIC_SQ_WQE_SIZE                256
#define SNIC_RQ_WQE_SIZE                64

/*
 * Address vector: the RoCEv2 path to the peer. The driver resolves GIDs
 * to IP addresses and the neighbour's MAC; the device only builds frames.
 */
#define SNIC_AV_IPV6            (1u << 0)   /* else IPv4 in gid[12..15] */

struct snic_av {
    __u8 dgid[16];      /* destination IP (IPv4-mapped or IPv6) */
    __u8 sgid[16];      /* source IP, same form */
    __u8 dmac[6];
    __u8 hop_limit;
    __u8 traffic_class;
    __le32 flow_label;
    __u8 flags;         /* SNIC_AV_* */
    __u8 rsvd[3];
};
_Static_assert(sizeof(struct snic_av) == 48, "av size");

/* Scatter/gather element: local buffer [addr, addr + length) of lkey */
struct snic_sge {
    __le64 addr;
    __le32 length;
    __le32 lkey;
};
_Static_assert(sizeof(struct snic_sge) == 16, "sge size");

/* Send work request op-codes (IB_WR_* order) */
enum snic_wr_opcode {
    SNIC_WR_RDMA_WRITE = 0,
    SNIC_WR_RDMA_WRITE_IMM = 1,
    SNIC_WR_SEND = 2,
    SNIC_WR_SEND_IMM = 3,
    SNIC_WR_RDMA_READ = 4,
    SNIC_WR_ATOMIC_CMP_SWAP = 5,
    SNIC_WR_ATOMIC_FETCH_ADD = 6,
    SNIC_WR_LOCAL_INV = 7,      /* ABI 2.0: imm = the R_Key to invalidate */
    SNIC_WR_BIND_MW = 8,        /* ABI 2.0: 'bind' */
    SNIC_WR_SEND_INV = 9,       /* imm = the R_Key the responder drops */
    SNIC_WR_REG_MR = 0x10,      /* ABI 3.8: 'reg' (SNIC_CAP_FRWR) */
    /* ABI 2.1, on QPs with SNIC_QP_RPC_ENABLE (snic_rpc.h): 'rpc' */
    SNIC_WR_RPC = 0x20,         /* RPC Params: the SGEs are the params */
    SNIC_WR_RPC_WRITE = 0x21,   /* RPC WRITE: the SGEs are the payload */
};

#define SNIC_WQE_SIGNALED       (1u << 0)   /* completion even on success */
#define SNIC_WQE_SOLICITED      (1u << 1)
#define SNIC_WQE_FENCE          (1u << 2)   /* after earlier READ/atomic */
#define SNIC_WQE_INLINE         (1u << 3)   /* payload in inline_data */
#define SNIC_WQE_FLAGS_ALL      (SNIC_WQE_SIGNALED | SNIC_WQE_SOLICITED | \
                                 SNIC_WQE_FENCE | SNIC_WQE_INLINE)

#define SNIC_SQ_WQE_MAX_SGE     11
#define SNIC_MAX_INLINE_DATA    176     /* = the SGE array's bytes */
#define SNIC_RQ_WQE_MAX_SGE     3

/* Memory window types (IBV_MW_TYPE_*) */
#define SNIC_MW_TYPE_1                  1   /* bound by ibv_bind_mw */
#define SNIC_MW_TYPE_2                  2   /* bound to one QP by a WR */

/*
 * A BIND_MW work request (RC and UC QPs): window 'mw_rkey' (its current
 * R_Key) covers [addr, addr + length) of the MR 'mr_lkey' (of the QP's PD,
 * with SNIC_ACCESS_MW_BIND) with 'access' (REMOTE_*) from now on, under
 * R_Key 'new_rkey': the same window index with the key byte the binder
 * chose (libibverbs' ibv_inc_rkey). A type 1 window may be re-bound, and
 * length 0 unbinds it; a type 2 window binds only when free (after an
 * invalidate), to the posting QP, with length > 0. Failures complete with
 * SNIC_WC_MW_BIND_ERR. LOCAL_INV (imm = R_Key) frees a bound type 2 window
 * of the QP's PD, or (ABI 3.8) an FRWR MR of the QP's PD that no window
 * is bound in; a SEND with Invalidate does so at the responder.
 */
struct snic_bind_mw {
    __le64 addr;
    __le64 length;
    __le32 mw_rkey;
    __le32 new_rkey;
    __le32 mr_lkey;
    __le32 access;      /* SNIC_ACCESS_REMOTE_* */
    __u8 rsvd[32];
};
_Static_assert(sizeof(struct snic_bind_mw) == 64, "bind_mw size");

/*
 * A REG_MR work request (fast registration, RC and UC QPs): the FRWR MR
 * whose L_Key is now 'mr_key' (of the QP's PD, free: not mapped) maps
 * [iova, iova + length) from now on through the npages page addresses at
 * pbl_addr (little-endian, each 2^page_shift aligned; the first holds
 * iova, whose offset in it is iova mod 2^page_shift; any upper bits),
 * with 'access' (SNIC_ACCESS_*), under the key 'new_key': the same index
 * with the key byte the consumer chose (lkey = rkey). The device reads
 * the page list whole when it executes the request, and its entries
 * again on each later use; the list may be reused for another
 * registration once the MR is invalidated. Page sizes: those of
 * page_size_cap; npages at most the MR's. Failures complete with
 * SNIC_WC_LOC_QP_OP_ERR and map nothing; the QP enters ERR.
 */
struct snic_reg_mr_wr {
    __le64 iova;
    __le64 length;
    __le64 pbl_addr;
    __le32 mr_key;
    __le32 new_key;
    __le32 npages;
    __le32 access;      /* SNIC_ACCESS_* */
    __u8 page_shift;
    __u8 rsvd[23];
};
_Static_assert(sizeof(struct snic_reg_mr_wr) == 64, "reg_mr_wr size");

/*
 * Send queue entry (SNIC_SQ_WQE_SIZE bytes). RC/UC use 'rdma' (WRITE/READ:
 * remote_addr, rkey; atomics also compare_add and swap); UD uses 'ud'
 * with the whole address vector inline, so posting needs no device AH
 * object and kernel callers never wait; BIND_MW uses 'bind', REG_MR
 * 'reg'. The payload
 * is num_sge SGEs, or with SNIC_WQE_INLINE the inline_len bytes of
 * inline_data (up to SNIC_MAX_INLINE_DATA), read when the WQE is.
 */
struct snic_sq_wqe {
    __le64 wr_id;
    __u8 opcode;        /* enum snic_wr_opcode */
    __u8 flags;         /* SNIC_WQE_* */
    __u8 num_sge;
    __u8 inline_len;    /* SNIC_WQE_INLINE: bytes of inline_data */
    __be32 imm;         /* immediate data as sent, or rkey to invalidate */
    union {
        struct {
            __le64 remote_addr;
            __le32 rkey;
            __le32 rsvd;
            __le64 compare_add;
            __le64 swap;
            __u8 rsvd1[32];
        } rdma;
        struct {
            struct snic_av av;
            __le32 remote_qpn;
            __le32 remote_qkey;
            __le64 rsvd;
        } ud;
        struct snic_bind_mw bind;
        struct snic_reg_mr_wr reg;
        /*
         * RPC and RPC WRITE (snic_rpc.h): the RPC op-code and R_Key the
         * RETH carries, and the response buffer the header names. Params
         * of an RPC take at most path MTU - SNIC_RPC_HDR_LEN bytes.
         */
        struct {
            __le64 rpc_opcode;  /* selects the remote kernel */
            __le32 rkey;        /* responder memory the kernel may use */
            __le32 resp_rkey;   /* R_Key of the response buffer */
            __le64 resp_addr;   /* response buffer (this side's MR) */
            __le32 resp_len;    /* its capacity */
            __le32 tag;         /* bits 23:0: the response immediate's */
            __u8 rsvd[32];
        } rpc;
        /*
         * CL WRITE (snic_cl.h, ABI 3.11): the destination endpoint's
         * path, the operation's base address there and its R_Key; the
         * tag in imm, SNIC_WQE_CL_UNREGISTERED in flags
         */
        struct {
            struct snic_av av;
            __le64 remote_addr;
            __le32 remote_ep;
            __le32 rkey;
        } cl;
    };
    union {
        struct snic_sge sge[SNIC_SQ_WQE_MAX_SGE];
        __u8 inline_data[SNIC_MAX_INLINE_DATA];
    };
};
_Static_assert(sizeof(struct snic_sq_wqe) == SNIC_SQ_WQE_SIZE, "sq wqe");

/* Receive queue entry (SNIC_RQ_WQE_SIZE bytes) */
struct snic_rq_wqe {
    __le64 wr_id;
    __u8 num_sge;
    __u8 rsvd[7];
    struct snic_sge sge[SNIC_RQ_WQE_MAX_SGE];
};
_Static_assert(sizeof(struct snic_rq_wqe) == SNIC_RQ_WQE_SIZE, "rq wqe");

/* Work completion op-codes (IB_WC_*) */
enum snic_wc_opcode {
    SNIC_WC_SEND = 0,
    SNIC_WC_RDMA_WRITE = 1,
    SNIC_WC_RDMA_READ = 2,
    SNIC_WC_COMP_SWAP = 3,
    SNIC_WC_FETCH_ADD = 4,
    SNIC_WC_BIND_MW = 5,        /* ABI 2.0 */
    SNIC_WC_LOCAL_INV = 6,      /* ABI 2.0 */
    SNIC_WC_REG_MR = 8,         /* ABI 3.8 */
    SNIC_WC_RPC = 0x20,         /* ABI 2.1: an RPC or RPC WRITE was acked */
    SNIC_WC_RECV = 128,
    SNIC_WC_RECV_RDMA_WITH_IMM = 129,
    /*
     * ABI 2.1: an RPC no kernel serves, for the fallback handler: the
     * buffer holds struct snic_rpc_recv and the params (byte_len both)
     */
    SNIC_WC_RECV_RPC = 0xa0,
};

#define SNIC_WC_F_IMM           (1u << 0)   /* imm valid */
#define SNIC_WC_F_GRH           (1u << 1)   /* UD: 40-byte GRH first */
#define SNIC_WC_F_IPV6          (1u << 2)   /* ... of an IPv6 packet */
#define SNIC_WC_F_INV           (1u << 3)   /* imm: the R_Key invalidated */

/*
 * Completion queue entry. The CQ memory starts zeroed; the device writes
 * the body, then the last byte with the phase bit (1 on the first pass).
 */
struct snic_cqe {
    __le64 wr_id;
    __le32 byte_len;
    __be32 imm;         /* immediate data, or with F_INV the R_Key */
    __le32 qpn;
    __le32 src_qp;      /* UD */
    __u8 status;        /* enum snic_wc_status */
    __u8 opcode;        /* enum snic_wc_opcode (RECV bit 7) */
    __u8 wc_flags;      /* SNIC_WC_F_* */
    __u8 rsvd;
    /*
     * The completed WQE's index (SQ or RQ producer index) modulo 2^16:
     * successful unsignaled sends write no CQE, so a send CQE frees every
     * SQ slot up to and including this one.
     */
    __le16 wqe_index;
    __u8 rsvd1;
    __u8 flags;         /* SNIC_CQE_PHASE, written last */
};
_Static_assert(sizeof(struct snic_cqe) == SNIC_CQE_SIZE, "cqe size");

/* Event queue entry: a completion event for an armed CQ */
enum snic_eqe_type {
    SNIC_EQE_COMPLETION = 1,
};

struct snic_eqe {
    __le32 cqn;
    __le32 type;        /* enum snic_eqe_type */
    __u8 rsvd[7];
    __u8 flags;         /* SNIC_CQE_PHASE, written last */
};
_Static_assert(sizeof(struct snic_eqe) == SNIC_EQE_SIZE, "eqe size");

/* CREATE_EQ (kernel only): completion events for CQs -> one MSI-X vector */
struct snic_admin_create_eq {
    __le64 pbl_addr;
    __le32 npages;
    __u8 log2_depth;
    __u8 rsvd;
    __le16 vector;
    __le32 rsvd1;
};
_Static_assert(sizeof(struct snic_admin_create_eq) == 24, "create_eq size");

/* CREATE_CQ */
struct snic_admin_create_cq {
    __le64 pbl_addr;
    __le32 npages;
    __u8 log2_depth;
    __u8 rsvd;
    __le16 ctx;         /* owning context (doorbell page) */
    __le32 eqn;         /* completion events go to this EQ */
    __le32 rsvd1;
};
_Static_assert(sizeof(struct snic_admin_create_cq) == 24, "create_cq size");

/*
 * CREATE_QP: result = QP number (1 for the GSI QP). With srqn != 0 the QP
 * takes its receive WQEs from that SRQ (of its context; not GSI) and has
 * no RQ of its own (rq_* are zero); in ERR it posts SNIC_EVENT_QP_LAST_WQE.
 * rdb_addr: an RC QP's responder database (struct snic_rdb_entry), or 0
 * for a QP that answers no READ or atomic (max_dest_rd_atomic stays 0).
 */
struct snic_admin_create_qp {
    __le64 sq_pbl_addr;
    __le64 rq_pbl_addr;
    __le32 sq_npages;
    __le32 rq_npages;
    __le32 pdn;
    __le32 send_cqn;
    __le32 recv_cqn;
    __u8 type;          /* enum snic_qp_type */
    __u8 sq_log2_depth;
    __u8 rq_log2_depth;
    __u8 rsvd;
    __le16 ctx;
    __le16 rsvd1;
    __le32 srqn;        /* ABI 2.0 */
    __le64 rdb_addr;    /* ABI 3.0; SNIC_RDB_ALIGN aligned */
};
_Static_assert(sizeof(struct snic_admin_create_qp) == 56, "create_qp size");

/*
 * The responder database (RDB): an RC QP's responder resources, one entry
 * per RDMA READ or atomic it executed, kept in host memory as SRNIC keeps
 * only what the pipeline needs on chip (NSDI'23 section 3). The driver
 * allocates SNIC_RDB_BYTES of DMA-able memory per RC QP (zeroed; the
 * device owns it from CREATE_QP to DESTROY_QP and zeroes it at RTR). The
 * device writes an entry when it executes a request, reads the next one
 * back when it starts answering it and reads them all only when a
 * duplicate request must be matched against what was executed. Entries
 * are used as a ring of max_dest_rd_atomic slots.
 */
#define SNIC_RDB_ENTRIES        16      /* the most max_dest_rd_atomic */
#define SNIC_RDB_BYTES          512
#define SNIC_RDB_ALIGN          512     /* the RDB never crosses a page */

enum snic_rdb_kind {
    SNIC_RDB_EMPTY = 0,
    SNIC_RDB_READ = 1,
    SNIC_RDB_ATOMIC = 2,
};

struct snic_rdb_entry {
    __le64 va;          /* READ: first byte; atomic: the original value */
    __le32 rkey;        /* READ */
    __le32 len;         /* READ: bytes (at most 2^31) */
    __le32 first_psn;   /* its first response PSN (24 bits) */
    __u8 kind;          /* enum snic_rdb_kind */
    __u8 rsvd;
    __le16 sq_index;    /* READ of SRNIC: its SQ index at the requester */
    __u8 rsvd1[8];
};
_Static_assert(sizeof(struct snic_rdb_entry) == 32, "rdb entry size");
_Static_assert(SNIC_RDB_ENTRIES * sizeof(struct snic_rdb_entry) ==
               SNIC_RDB_BYTES, "rdb size");

/* MODIFY_QP: attributes in host memory (struct snic_qp_attr) */
struct snic_admin_modify_qp {
    __le32 qpn;
    __le32 attr_mask;   /* SNIC_QP_ATTR_* */
    __le64 attr_addr;   /* 8-byte aligned */
};
_Static_assert(sizeof(struct snic_admin_modify_qp) == 16, "modify_qp size");

/* QUERY_QP: the device writes struct snic_qp_attr to resp_addr */
struct snic_admin_query_qp {
    __le32 qpn;
    __le32 rsvd;
    __le64 resp_addr;
};
_Static_assert(sizeof(struct snic_admin_query_qp) == 16, "query_qp size");


struct snic_qp_attr {
    __le32 qp_state;
    __le32 cur_qp_state;
    __le32 path_mtu;            /* enum snic_mtu */
    __le32 qkey;
    __le32 rq_psn;
    __le32 sq_psn;
    __le32 dest_qp_num;
    __le32 qp_access_flags;     /* SNIC_ACCESS_REMOTE_* */
    __le16 pkey_index;
    __u8 port_num;
    __u8 timeout;               /* 4.096 us * 2^timeout, 0 = infinite */
    __u8 retry_cnt;
    __u8 rnr_retry;             /* 7 = infinite */
    __u8 min_rnr_timer;
    __u8 max_rd_atomic;
    __u8 max_dest_rd_atomic;
    __u8 en_sqd_async_notify;
    __u8 rsvd[6];
    struct snic_av av;
    __u8 rsvd1[32];
};
_Static_assert(sizeof(struct snic_qp_attr) == 128, "qp_attr size");

/*
 * ALLOC_MW: a window of 'type' in PD pdn; result = its R_Key (SNIC_KEY_MW
 * set). DEALLOC_MW's handle is an R_Key of it: the key byte is ignored,
 * as type 2 binds change it without the kernel knowing.
 */
struct snic_admin_alloc_mw {
    __le32 pdn;
    __u8 type;          /* SNIC_MW_TYPE_* */
    __u8 key;           /* its first key byte */
    __le16 rsvd;
};
_Static_assert(sizeof(struct snic_admin_alloc_mw) == 8, "alloc_mw size");

/*
 * REREG_MR: change the MR 'lkey' in place, keeping its keys: with
 * SNIC_REREG_TRANS its translation (iova .. page_shift, as REG_MR), with
 * SNIC_REREG_PD its PD, with SNIC_REREG_ACCESS its rights. Refused while
 * a memory window is bound to it.
 */
#define SNIC_REREG_TRANS        (1u << 0)
#define SNIC_REREG_PD           (1u << 1)
#define SNIC_REREG_ACCESS       (1u << 2)

struct snic_admin_rereg_mr {
    struct snic_admin_reg_mr mr;    /* key and flags must be zero */
    __le32 lkey;
    __le32 rereg_flags; /* SNIC_REREG_* */
};
_Static_assert(sizeof(struct snic_admin_rereg_mr) == 48, "rereg_mr size");

/*
 * CREATE_SRQ: a shared receive queue of 2^log2_depth struct snic_rq_wqe
 * in host memory behind a page list, of context ctx and PD pdn; limit
 * armed (0: not armed). Its producer index is rung with SNIC_DB_SRQ. The
 * device takes WQEs in ring order and copies each when a message starts,
 * so a slot may be reposted once taken; the CQE carries the WQE's wr_id
 * and its SRQ index (wqe_index). Messages complete out of order. The
 * WQEs' lkeys are checked against the SRQ's PD, not the QP's.
 */
struct snic_admin_create_srq {
    __le64 pbl_addr;
    __le32 npages;
    __le32 pdn;
    __le32 limit;
    __u8 log2_depth;
    __u8 rsvd;
    __le16 ctx;
};
_Static_assert(sizeof(struct snic_admin_create_srq) == 24, "create_srq size");

/*
 * MODIFY_SRQ: arm the limit: when fewer than 'limit' WQEs are posted and
 * not taken, the device posts SNIC_EVENT_SRQ_LIMIT once and disarms.
 * QUERY_SRQ (obj_ref) returns the armed limit (0: not armed).
 */
struct snic_admin_modify_srq {
    __le32 srqn;
    __le32 limit;
};
_Static_assert(sizeof(struct snic_admin_modify_srq) == 8, "modify_srq size");

/*
 * RESIZE_CQ: the CQ continues in a new zeroed ring at index 0; the result
 * is the old ring's producer index at the switch, up to which the old
 * ring's CQEs stay valid for the consumer to poll.
 */
struct snic_admin_resize_cq {
    __le64 pbl_addr;
    __le32 npages;
    __le32 cqn;
    __u8 log2_depth;
    __u8 rsvd[7];
};
_Static_assert(sizeof(struct snic_admin_resize_cq) == 24, "resize_cq size");

/*
 * MODIFY_CQ (moderation): once an armed CQ's event is due it waits until
 * 'count' CQEs are queued (0: no count limit) or 'period_us' passed since
 * the first (0: no period); both 0 (the default): at once.
 */
struct snic_admin_modify_cq {
    __le32 cqn;
    __le16 count;
    __le16 period_us;
};
_Static_assert(sizeof(struct snic_admin_modify_cq) == 8, "modify_cq size");

/*
 * ATTACH_MCAST / DETACH_MCAST: UD QP qpn joins or leaves the multicast
 * group of GID gid (an IPv4-mapped 224.0.0.0/4 address or an IPv6
 * ff00::/8 one). RoCE to the group's IP address, its MAC (01:00:5e or
 * 33:33 mapped) and QPN 0xffffff reaches every attached QP whose Q_Key
 * matches, including the port's own datagrams. Attaching twice is a
 * no-op; destroying a QP detaches it.
 */
struct snic_admin_mcast {
    __le32 qpn;
    __le32 rsvd;
    __u8 gid[16];
};
_Static_assert(sizeof(struct snic_admin_mcast) == 24, "mcast size");

#endif /* SNIC_VERBS_H */
