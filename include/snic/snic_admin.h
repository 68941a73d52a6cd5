/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snic admin queue and async event queue formats.
 *
 * The admin submission queue (SQ) is a ring of 64-byte commands in guest
 * memory; the completion queue (CQ) a ring of 16-byte entries with a phase
 * bit, of the same depth. The driver writes commands, rings an
 * SNIC_DB_ADMIN_SQ doorbell with the new producer index, and returns CQ
 * slots with SNIC_DB_ADMIN_CQ (consumer index). The device never overwrites
 * an unconsumed completion: it stops fetching commands while the CQ is
 * full. Completions raise MSI-X vector 0 (cause SNIC_INTR_ADMIN).
 *
 * Phase: the CQ memory starts zeroed; on the first pass the device writes
 * entries with SNIC_CQE_PHASE set, on the second pass clear, and so on.
 * The device writes the entry body before the byte holding the phase bit.
 */
#ifndef SNIC_ADMIN_H
#define SNIC_ADMIN_H

#include <linux/types.h>

#include "snic_cl.h"
#include "snic_rpc.h"
#include "snic_sr.h"
#include "snic_verbs.h"

#define SNIC_ADMIN_CMD_SIZE         64
#define SNIC_ADMIN_CQE_SIZE         16
#define SNIC_AEQE_SIZE              16
#define SNIC_ADMIN_PAYLOAD_SIZE     56

/* Admin command version understood by this ABI */
#define SNIC_ADMIN_CMD_VERSION      1

enum snic_admin_opcode {
    SNIC_ADMIN_NOP = 0x00,
    SNIC_ADMIN_QUERY_DEVICE = 0x01,     /* -> struct snic_device_attr */
    SNIC_ADMIN_GET_STATS = 0x02,        /* -> struct snic_stats */
    SNIC_ADMIN_SET_MTU = 0x03,
    SNIC_ADMIN_GET_MTU = 0x04,          /* result = MTU */
    SNIC_ADMIN_SET_MAC = 0x05,
    SNIC_ADMIN_CREATE_ETH_QUEUE = 0x10, /* result = queue id */
    SNIC_ADMIN_DESTROY_ETH_QUEUE = 0x11,
    SNIC_ADMIN_START_ETH_QUEUE = 0x12,
    SNIC_ADMIN_STOP_ETH_QUEUE = 0x13,
    /* RDMA objects: payloads in snic_verbs.h */
    SNIC_ADMIN_ALLOC_PD = 0x20,         /* result = PD number */
    SNIC_ADMIN_DEALLOC_PD = 0x21,
    SNIC_ADMIN_REG_MR = 0x22,           /* result = lkey (= rkey) */
    SNIC_ADMIN_DEREG_MR = 0x23,
    SNIC_ADMIN_CREATE_EQ = 0x24,        /* result = EQ number */
    SNIC_ADMIN_DESTROY_EQ = 0x25,
    SNIC_ADMIN_CREATE_CQ = 0x26,        /* result = CQ number */
    SNIC_ADMIN_DESTROY_CQ = 0x27,
    SNIC_ADMIN_CREATE_QP = 0x28,        /* result = QP number */
    SNIC_ADMIN_MODIFY_QP = 0x29,
    SNIC_ADMIN_QUERY_QP = 0x2a,
    SNIC_ADMIN_DESTROY_QP = 0x2b,
    SNIC_ADMIN_SET_GID = 0x2c,          /* ABI 1.3 */
    /* ABI 2.0 */
    SNIC_ADMIN_ALLOC_MW = 0x2d,         /* result = R_Key */
    SNIC_ADMIN_DEALLOC_MW = 0x2e,       /* handle = R_Key */
    SNIC_ADMIN_REREG_MR = 0x2f,
    SNIC_ADMIN_CREATE_SRQ = 0x30,       /* result = SRQ number */
    SNIC_ADMIN_MODIFY_SRQ = 0x31,
    SNIC_ADMIN_QUERY_SRQ = 0x32,        /* result = limit */
    SNIC_ADMIN_DESTROY_SRQ = 0x33,
    SNIC_ADMIN_RESIZE_CQ = 0x34,        /* result = old ring's tail */
    SNIC_ADMIN_MODIFY_CQ = 0x35,
    SNIC_ADMIN_ATTACH_MCAST = 0x36,
    SNIC_ADMIN_DETACH_MCAST = 0x37,
    /* ABI 2.1: StRoM RPCs and kernels (snic_rpc.h) */
    SNIC_ADMIN_SET_QP_RPC = 0x40,
    SNIC_ADMIN_DEPLOY_KERNEL = 0x41,
    SNIC_ADMIN_UNDEPLOY_KERNEL = 0x42,
    /* ABI 2.2: Tonic transport programs */
    SNIC_ADMIN_SET_QP_TRANSPORT = 0x43,
    SNIC_ADMIN_QUERY_TRANSPORT = 0x44,
    /* ABI 3.5: SRNIC selective repeat (snic_sr.h) */
    SNIC_ADMIN_CREATE_SR_CTRLQ = 0x45,
    SNIC_ADMIN_SET_QP_SR = 0x46,
    /* ABI 3.10: HyperLogLog sketches on a QP's RDMA WRITEs */
    SNIC_ADMIN_ATTACH_HLL = 0x47,
    SNIC_ADMIN_QUERY_HLL = 0x48,
    SNIC_ADMIN_RESET_HLL = 0x49,
    SNIC_ADMIN_DETACH_HLL = 0x4a,
    /* ABI 3.11: the connectionless transport (snic_cl.h) */
    SNIC_ADMIN_SET_QP_CL = 0x4b,
};

enum snic_admin_status {
    SNIC_ADMIN_OK = 0,
    SNIC_ADMIN_BAD_OPCODE = 1,      /* unknown opcode */
    SNIC_ADMIN_BAD_VERSION = 2,     /* command version not supported */
    SNIC_ADMIN_BAD_LENGTH = 3,      /* payload length wrong for opcode */
    SNIC_ADMIN_BAD_PARAM = 4,       /* a field is out of range */
    SNIC_ADMIN_BAD_ADDRESS = 5,     /* misaligned or failing DMA address */
    SNIC_ADMIN_BAD_STATE = 6,       /* object in the wrong state */
    SNIC_ADMIN_NO_RESOURCES = 7,    /* limit reached */
    SNIC_ADMIN_NOT_SUPPORTED = 8,   /* valid request the device lacks */
};

/* Every command starts with this header; flags must be zero. */
struct snic_admin_hdr {
    __u8 opcode;
    __u8 version;       /* SNIC_ADMIN_CMD_VERSION */
    __le16 cmd_id;      /* echoed in the completion */
    __le16 len;         /* payload bytes: the opcode's payload size */
    __le16 flags;
};
_Static_assert(sizeof(struct snic_admin_hdr) == 8, "admin hdr is 8 bytes");

/*
 * QUERY_DEVICE, GET_STATS: resp_len is 1..4096 (else BAD_LENGTH); the
 * device writes min(resp_len, size) bytes and returns the full size as the
 * completion's result.
 */
struct snic_admin_resp_buf {
    __le64 resp_addr;   /* 8-byte aligned DMA address */
    __le32 resp_len;
    __le32 rsvd;
};
_Static_assert(sizeof(struct snic_admin_resp_buf) == 16, "resp_buf size");

struct snic_admin_set_mtu {
    __le32 mtu;
    __le32 rsvd;
};
_Static_assert(sizeof(struct snic_admin_set_mtu) == 8, "set_mtu size");

struct snic_admin_set_mac {
    __u8 mac[6];
    __u8 rsvd[2];
};
_Static_assert(sizeof(struct snic_admin_set_mac) == 8, "set_mac size");

enum snic_eth_queue_type {
    SNIC_ETH_QUEUE_TX = 0,
    SNIC_ETH_QUEUE_RX = 1,
};

struct snic_admin_create_eth_queue {
    __le64 ring_addr;   /* contiguous ring, SNIC_ETH_DESC_SIZE aligned */
    __u8 type;          /* enum snic_eth_queue_type */
    __u8 log2_depth;    /* SNIC_ETH_{MIN,MAX}_LOG2_DEPTH */
    __le16 vector;      /* MSI-X vector for completions */
    __le16 irq_delay_us; /* moderation: 0 = interrupt at once */
    __le16 rsvd;
};
_Static_assert(sizeof(struct snic_admin_create_eth_queue) == 16,
               "create_eth_queue size");

/* DESTROY/START/STOP_ETH_QUEUE */
struct snic_admin_eth_queue_ref {
    __u8 type;          /* enum snic_eth_queue_type */
    __u8 rsvd[3];
    __le32 qid;
};
_Static_assert(sizeof(struct snic_admin_eth_queue_ref) == 8,
               "eth_queue_ref size");

/*
 * SET_GID: entry 'index' of the port's source address table (the RDMA
 * core's RoCE v2 GID table, IPv4-mapped or IPv6 as in struct snic_av), or
 * its removal when SNIC_GID_VALID is clear. A UD WQE of a user context may
 * only carry a source address in this table (else LOC_PROT_ERR): a process
 * cannot send datagrams from an address the port does not own. Emptied by
 * disable and reset.
 */
#define SNIC_MAX_GIDS               16
#define SNIC_GID_VALID              (1u << 0)

struct snic_admin_set_gid {
    __u8 index;
    __u8 flags;         /* SNIC_GID_VALID */
    __u8 rsvd[6];
    __u8 gid[16];
};
_Static_assert(sizeof(struct snic_admin_set_gid) == 24, "set_gid size");

/*
 * SET_QP_RPC (ABI 2.1): RPC on a QP in RESET or INIT (else BAD_STATE);
 * both ends must enable it (the applications agree out of band, as on
 * QPN and PSN). A move to RESET clears it. SNIC_QP_RPC_ENABLE lets the QP
 * send SNIC_WR_RPC/RPC_WRITE and accept RPC op-codes; SNIC_QP_RPC_FALLBACK
 * (with ENABLE) delivers RPCs that no deployed kernel serves to the QP's
 * receive queue (SNIC_WC_RECV_RPC) instead of answering NO_KERNEL.
 * NOT_SUPPORTED: ENABLE on a QP whose transport program numbers its
 * messages (the selective ones and SRNIC's): answers carry no number.
 */
#define SNIC_QP_RPC_ENABLE          (1u << 0)
#define SNIC_QP_RPC_FALLBACK        (1u << 1)

struct snic_admin_set_qp_rpc {
    __le32 qpn;
    __le32 flags;       /* SNIC_QP_RPC_* */
};
_Static_assert(sizeof(struct snic_admin_set_qp_rpc) == 8, "set_qp_rpc size");

/*
 * DEPLOY_KERNEL (ABI 2.1): RPCs with RPC op-code rpc_opcode arriving on
 * QPs of context ctx run kernel kernel_id (enum snic_kernel_id; QUERY_DEVICE
 * builtin_kernels lists them). BAD_PARAM: unknown kernel or context;
 * BAD_STATE: that op-code of that context is deployed already;
 * NO_RESOURCES: all max_kernels entries in use. UNDEPLOY_KERNEL (same
 * struct, kernel_id 0) removes the entry (BAD_PARAM if there is none):
 * RPCs then in flight finish; later ones go to the fallback. The driver
 * undeploys a context's kernels when it destroys the context.
 */
struct snic_admin_deploy_kernel {
    __le64 rpc_opcode;  /* the RETH address field that selects it */
    __le16 ctx;         /* owning context (doorbell page) */
    __le16 kernel_id;
    __le32 rsvd;
};
_Static_assert(sizeof(struct snic_admin_deploy_kernel) == 16,
               "deploy_kernel size");

/*
 * Transport programs (ABI 2.2; Tonic, hw/snic/core/transport/): the
 * protocol an RC QP runs. SET_QP_TRANSPORT selects it on a QP in RESET or
 * INIT (else BAD_STATE; BAD_PARAM: no such program or not an RC QP;
 * NOT_SUPPORTED: one numbering its messages on a QP with RPC on); both
 * ends must select the same one (agreed out of band, as the QPN and PSN).
 * A move to RESET returns the QP to go-back-N. Go-back-N and DCQCN are
 * standard RoCEv2 on the wire (DCQCN: ECT(0), CNPs); Reno and NewReno's
 * responder acknowledges as TCP does: every ack_every-th packet (0 means
 * 1) and a duplicate ACK of the cumulative PSN for every out-of-order
 * one, which it keeps (placed with the selective-transport extension).
 */
enum snic_transport_id {
    SNIC_TRANSPORT_GBN = 0,         /* IBA go-back-N (the default) */
    SNIC_TRANSPORT_RENO = 1,
    SNIC_TRANSPORT_NEWRENO = 2,
    SNIC_TRANSPORT_DCQCN = 3,       /* RoCEv2 + DCQCN */
    SNIC_TRANSPORT_SACK = 4,        /* RFC 6675; struct snic_xeth (3.1) */
    SNIC_TRANSPORT_DCTCP = 5,       /* RFC 8257; ECE in snic_xeth (3.2) */
    SNIC_TRANSPORT_NDP = 6,         /* receiver-driven; snic_xeth (3.3) */
    SNIC_TRANSPORT_IRN = 7,         /* selective repeat; snic_xeth (3.3) */
    SNIC_TRANSPORT_SRNIC = 8,       /* SRNIC; snic_xeth, snic_sr.h (3.5) */
    SNIC_TRANSPORT_SRNIC_DCTCP = 9, /* SRNIC with DCTCP's window (3.6) */
};

/* How a program's credit engine limits what a QP sends (Tonic 3.3.1) */
enum snic_credit_type {
    SNIC_CREDIT_TYPE_WINDOW = 0,
    SNIC_CREDIT_TYPE_RATE = 1,
    SNIC_CREDIT_TYPE_TOKEN = 2,
};

#define SNIC_TRANSPORT_F_ECN        (1u << 0)   /* ECT(0) out, CNPs */
#define SNIC_TRANSPORT_F_TCP_ACKS   (1u << 1)   /* TCP's ACK policy */
#define SNIC_TRANSPORT_F_XPORT      (1u << 2)   /* selective extension */
#define SNIC_TRANSPORT_F_ECE        (1u << 3)   /* ECT(0) out, CE in ACKs */
#define SNIC_TRANSPORT_F_SR         (1u << 4)   /* bitmaps onloaded (3.5) */

struct snic_admin_set_qp_transport {
    __le32 qpn;
    __u8 program;       /* enum snic_transport_id */
    __u8 ack_every;     /* TCP's ACK policy: every k-th packet; 0: 1 */
    __le16 rsvd;
};
_Static_assert(sizeof(struct snic_admin_set_qp_transport) == 8,
               "set_qp_transport size");

/*
 * QUERY_TRANSPORT: with qpn 0, what program 'program' is (BAD_PARAM past
 * QUERY_DEVICE num_transports); else the program QP qpn runs and its
 * counters. The device writes struct snic_transport_info to resp_addr.
 */
struct snic_admin_query_transport {
    __le32 qpn;
    __u8 program;
    __u8 rsvd[3];
    __le64 resp_addr;   /* 8-byte aligned */
};
_Static_assert(sizeof(struct snic_admin_query_transport) == 16,
               "query_transport size");

struct snic_transport_info {
    char name[16];              /* NUL-terminated */
    __u8 program;               /* enum snic_transport_id */
    __u8 credit;                /* enum snic_credit_type */
    __u8 flags;                 /* SNIC_TRANSPORT_F_* */
    __u8 ack_every;             /* the QP's (qpn != 0) */
    __le16 state_bytes;         /* the program's own per-QP state */
    __le16 state_max;           /* Tonic's limit for its credit type */
    __le32 qpc_bytes;           /* on-NIC state of a QP running it */
    /* the QP's, with qpn != 0 (else 0) */
    __le32 qpn;
    __le32 window;              /* segments it may have in flight */
    __le32 rate_mbps;           /* rate credit: its rate */
    __le32 rtx_segments;        /* segments marked for retransmission */
    __le32 cnp_rx;              /* CNPs received (reaction point) */
    __le32 cnp_tx;              /* CNPs sent (notification point) */
    __u8 rsvd[12];
};
_Static_assert(sizeof(struct snic_transport_info) == 64,
               "transport_info size");

/*
 * HyperLogLog sketches (ABI 3.10; StRoM, EuroSys'20, section 7.2): a
 * sketch attached to an RC or UC QP counts the distinct 4-byte items of
 * every RDMA WRITE and WRITE with immediate payload the QP places. Each
 * placed packet's payload is read as little-endian 32-bit items from its
 * first byte (a trailing partial word is not an item); item x goes to
 * register h1 >> 48 with rank clz(h1 & (2^48 - 1)) - 15 (49 for 0), h1 the
 * low half of MurmurHash3_x64_128(x, seed 0xbaadf00d); a register keeps
 * its maximum, so placing a packet again changes nothing. The device has
 * QUERY_DEVICE hll_sketches of them. ATTACH_HLL takes one, cleared
 * (NO_RESOURCES: none free; BAD_STATE: the QP has one; BAD_PARAM: no such
 * RC/UC QP); it counts from the next packet placed. QUERY_HLL writes
 * struct snic_hll_info to resp_addr and, if regs_addr is not 0, the
 * SNIC_HLL_REGISTERS one-byte registers to regs_addr. RESET_HLL clears
 * the sketch; DETACH_HLL gives it back, as do the QP's move to RESET and
 * its destruction (BAD_STATE: the QP has no sketch).
 */
#define SNIC_HLL_P              16
#define SNIC_HLL_REGISTERS      (1u << SNIC_HLL_P)
#define SNIC_HLL_SEED           0xbaadf00du

struct snic_admin_hll {
    __le32 qpn;
    __le32 rsvd;        /* zero */
    __le64 resp_addr;   /* QUERY_HLL: struct snic_hll_info, 8-byte aligned */
    __le64 regs_addr;   /* QUERY_HLL: 0, or the registers' buffer */
};
_Static_assert(sizeof(struct snic_admin_hll) == 24, "admin_hll size");

struct snic_hll_info {
    __le64 estimate;    /* the estimate, an IEEE-754 double's bits */
    __le64 items;       /* items hashed since ATTACH or RESET (placed
                         * again: counted again) */
    __le32 qpn;
    __le32 zero_regs;   /* registers still 0 */
};
_Static_assert(sizeof(struct snic_hll_info) == 24, "hll_info size");

struct snic_admin_cmd {
    struct snic_admin_hdr hdr;
    union {
        __u8 raw[SNIC_ADMIN_PAYLOAD_SIZE];
        struct snic_admin_resp_buf resp;
        struct snic_admin_set_mtu set_mtu;
        struct snic_admin_set_mac set_mac;
        struct snic_admin_create_eth_queue create_eth_queue;
        struct snic_admin_eth_queue_ref eth_queue;
        struct snic_admin_alloc_pd alloc_pd;
        struct snic_admin_obj_ref obj;
        struct snic_admin_reg_mr reg_mr;
        struct snic_admin_create_eq create_eq;
        struct snic_admin_create_cq create_cq;
        struct snic_admin_create_qp create_qp;
        struct snic_admin_modify_qp modify_qp;
        struct snic_admin_query_qp query_qp;
        struct snic_admin_set_gid set_gid;
        struct snic_admin_create_sr_ctrlq create_sr_ctrlq;
        struct snic_admin_set_qp_sr set_qp_sr;
        struct snic_admin_alloc_mw alloc_mw;
        struct snic_admin_rereg_mr rereg_mr;
        struct snic_admin_create_srq create_srq;
        struct snic_admin_modify_srq modify_srq;
        struct snic_admin_resize_cq resize_cq;
        struct snic_admin_modify_cq modify_cq;
        struct snic_admin_mcast mcast;
        struct snic_admin_set_qp_rpc set_qp_rpc;
        struct snic_admin_set_qp_transport set_qp_transport;
        struct snic_admin_query_transport query_transport;
        struct snic_admin_deploy_kernel deploy_kernel;
        struct snic_admin_hll hll;
        struct snic_admin_set_qp_cl set_qp_cl;
    };
};
_Static_assert(sizeof(struct snic_admin_cmd) == SNIC_ADMIN_CMD_SIZE,
               "admin command is 64 bytes");

/*
 * A command of 'opcode' with a payload of 'len' bytes, every other byte
 * zero (cmd_id is the submitter's). The length is stored byte by byte so
 * this header needs no byte-order helper in the kernel, QEMU or user space.
 */
static inline void snic_admin_cmd_init(struct snic_admin_cmd *cmd,
                                       __u8 opcode, __u16 len)
{
    *cmd = (struct snic_admin_cmd) {
        .hdr = { .opcode = opcode, .version = SNIC_ADMIN_CMD_VERSION },
    };
    ((__u8 *)&cmd->hdr.len)[0] = len & 0xff;
    ((__u8 *)&cmd->hdr.len)[1] = len >> 8;
}

#define SNIC_CQE_PHASE              (1u << 0)

/*
 * The phase rule of every ring the device writes (admin CQ, AEQ, EQs,
 * CQs): the entry at free-running index i carries SNIC_CQE_PHASE while
 * i / depth is even and 0 while it is odd. The ring starts zeroed, so a
 * consumer at index i has a new entry when its phase bit equals this.
 */
static inline __u8 snic_ring_phase(__u32 index, unsigned int log2_depth)
{
    return (index >> log2_depth) & 1 ? 0 : SNIC_CQE_PHASE;
}

/* Did the device write the entry at index i (its flags byte given)? */
static inline int snic_ring_entry_new(__u8 flags, __u32 index,
                                      unsigned int log2_depth)
{
    return (flags & SNIC_CQE_PHASE) == snic_ring_phase(index, log2_depth);
}

struct snic_admin_cqe {
    __le64 result;      /* opcode-specific value */
    __le16 cmd_id;
    __le16 status;      /* enum snic_admin_status */
    __le16 sq_head;     /* device SQ consumer index after this command */
    __u8 opcode;
    __u8 flags;         /* SNIC_CQE_PHASE; written last */
};
_Static_assert(sizeof(struct snic_admin_cqe) == SNIC_ADMIN_CQE_SIZE,
               "admin completion is 16 bytes");

/* Limits and identity, returned by SNIC_ADMIN_QUERY_DEVICE */
struct snic_device_attr {
    __le32 magic;
    __le32 abi_version;
    __le64 caps;
    __le32 fw_version;
    __le16 num_db_pages;
    __le16 num_vectors;
    __u8 mac[6];
    __u8 link_up;
    __u8 rsvd0;
    __le32 mtu;
    __le32 min_mtu;
    __le32 max_mtu;
    __le16 max_eth_txqs;
    __le16 max_eth_rxqs;
    __u8 eth_min_log2_depth;
    __u8 eth_max_log2_depth;
    __u8 admin_max_log2_depth;
    __u8 aeq_max_log2_depth;
    __le32 link_speed_mbps;
    /* ABI 1.1: RDMA object limits (enforced by the create commands) */
    __le32 max_pd;
    __le32 max_mr;
    __le32 max_mr_pages;        /* page-list entries per MR */
    __le32 tlb_entries;         /* on-device translation cache */
    __le64 page_size_cap;       /* bit n: 2^n-byte pages supported */
    __le32 max_qp;
    __le32 max_cq;
    __le32 max_eq;
    __le32 max_cqe;             /* CQ/EQ depth */
    __le32 max_qp_wr;           /* SQ/RQ depth */
    __u8 max_rd_atomic;         /* per QP, both directions */
    __u8 max_send_sge;
    __u8 max_recv_sge;
    __u8 hll_sketches;          /* ABI 3.10: HyperLogLog sketches */
    __le32 qp_state_bytes;      /* on-NIC state per QP (transport + queues) */
    /* ABI 2.0 */
    __le32 max_srq;
    __le32 max_srq_wr;          /* SRQ depth */
    __le32 max_mw;
    __le16 max_inline_data;     /* bytes of a send WQE's inline data */
    __le16 max_cq_moderation;   /* MODIFY_CQ count and period (us) */
    __le16 max_mcast_grp;       /* multicast groups of the port */
    __le16 max_mcast_qp_attach; /* QPs attached to one group */
    /* ABI 2.1: StRoM RPCs and kernels (SNIC_CAP_RPC, snic_rpc.h) */
    __le32 rpc_slots;           /* RPCs executing or answering at once */
    __le32 rpc_slot_bytes;      /* on-chip bytes of one slot (its kernel
                                 * state and response record) */
    __le16 max_rpc_per_qp;      /* slots one QP may hold (then RNR NAKs) */
    __le16 max_kernels;         /* DEPLOY_KERNEL table entries */
    __le32 builtin_kernels;     /* bit n: enum snic_kernel_id n */
    __le32 max_rpc_response;    /* bytes one answer may take */
    __le32 kernel_max_steps;    /* steps of one RPC, then STEP_LIMIT */
    __u8 rpc_opmap;             /* enum snic_rpc_opmap of the wire */
    __u8 num_transports;        /* transport programs, 0 .. n - 1 */
    /*
     * ABI 3.10: what one context (doorbell page) may hold of the pools
     * every context draws from, a quarter of each (at least 1)
     */
    __le16 ctx_recv_pool;       /* SRQ receives in progress (then RNR) */
    __u8 ctx_rpc_slots;         /* of rpc_slots (then RNR NAKs) */
    __u8 ctx_rpc_stage;         /* RPC staging buffers (then RNR NAKs) */
    __u8 qp_rpc_stage;          /* ... of them one QP may hold */
    __u8 ctx_kernels;           /* of max_kernels (then NO_RESOURCES) */
    /* ABI 3.0: the on-chip memory budget (SRNIC section 3.2) */
    __le32 onchip_bytes;        /* the budget (onchip-kb) */
    __le32 onchip_fixed_bytes;  /* of it, structures not per QP */
    __le32 qp_onchip_bytes;     /* per QP: qp_state_bytes + its scheduler
                                 * entries */
    __le32 performant_qps;      /* QPs whose state fits what is left */
    /*
     * ABI 3.11: a context's shares of the multicast table; every share
     * is its pool over ctx_pool_div, at least 1 (so a user context's of
     * SRNIC's CtrlQ is the ring's depth, which the driver sets, over it)
     */
    __u8 ctx_mcast_grp;         /* groups a context's QPs may be in */
    __u8 ctx_mcast_qp_attach;   /* ... its QPs in one group */
    __u8 ctx_pool_div;          /* 4 */
    __u8 rsvd3[5];
    /* ABI 3.11: the connectionless transport's tables (snic_cl.h) */
    __le32 cl_table;            /* registration table entries */
    __le16 cl_mask_bits;        /* bits of a mask: packets of the largest
                                 * registered operation */
    __le16 cl_packet;           /* payload bytes of a CL packet */
    __le16 cl_escape;           /* escape channel packets */
    __le16 cl_endpoints;        /* endpoints at once */
    __le32 cl_done;             /* completed-operations cache entries */
    __le32 cl_ops;              /* the sender's DMA-operation table */
    __le32 cl_txns;             /* ... and transaction table */
    __le32 cl_onchip_bytes;     /* of onchip_fixed_bytes, these tables */
    __le32 rsvd_cl;
};
_Static_assert(sizeof(struct snic_device_attr) == 216, "device attr size");

/*
 * Async event queue (AEQ): device-produced ring of 16-byte entries with a
 * phase bit like the admin CQ; the driver returns slots with an SNIC_DB_AEQ
 * doorbell. When the AEQ is full the event is dropped, counted in
 * snic_stats.async_events_lost and SNIC_STATUS_AEQ_OVERFLOW is set.
 * Events raise MSI-X vector 0 (cause SNIC_INTR_AEQ).
 */
enum snic_async_event_type {
    SNIC_EVENT_LINK_CHANGE = 1,     /* data: 1 = up, 0 = down */
    SNIC_EVENT_CQ_ERROR = 2,        /* data: CQN (overrun or bad ring) */
    SNIC_EVENT_EQ_OVERFLOW = 3,     /* data: EQN (an event was lost) */
    /*
     * A QP went to the error state for a reason no completion reports
     * (IBA 11.6.3 affiliated asynchronous errors); data: QPN.
     */
    SNIC_EVENT_QP_FATAL = 4,        /* local work queue catastrophic error:
                                     * e.g. its CQ overran */
    SNIC_EVENT_QP_REQ_ERR = 5,      /* ABI 1.4: as responder it received an
                                     * invalid request (NAKed) */
    SNIC_EVENT_QP_ACCESS_ERR = 6,   /* ABI 1.4: as responder it refused a
                                     * remote access (NAKed) */
    SNIC_EVENT_SRQ_LIMIT = 7,       /* ABI 2.0: data: SRQN; its WQEs fell
                                     * below the armed limit (disarmed) */
    SNIC_EVENT_QP_LAST_WQE = 8,     /* ABI 2.0: data: QPN; a QP of an SRQ
                                     * entered ERR and takes no more */
    SNIC_EVENT_QP_COMM_EST = 9,     /* ABI 3.8: data: QPN; the first packet
                                     * arrived at an RC QP in RTR (once
                                     * per entry into RTR) */
    SNIC_EVENT_QP_RPC_ERR = 16,     /* ABI 2.1: data: QPN; the requester
                                     * refused an RPC response the device
                                     * sent (NAK): the QP entered ERR */
    SNIC_EVENT_SR_CTRLQ_OVERFLOW = 17,  /* ABI 3.5: data: QPN whose packet
                                         * found the CtrlQ full (dropped);
                                         * once until the next doorbell */
};

struct snic_aeqe {
    __le64 data;
    __le32 event;       /* enum snic_async_event_type */
    __le16 rsvd;
    __u8 rsvd1;
    __u8 flags;         /* SNIC_CQE_PHASE; written last */
};
_Static_assert(sizeof(struct snic_aeqe) == SNIC_AEQE_SIZE, "aeqe is 16 bytes");

#endif /* SNIC_ADMIN_H */
