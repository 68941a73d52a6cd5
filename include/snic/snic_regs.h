/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snic hardware interface: PCI identity, BAR layout, BAR0 registers and the
 * doorbell format.
 *
 * This file is the hardware: it is shared verbatim by the QEMU device, the
 * Linux driver, the rdma-core provider and the tests. Changing a layout
 * means bumping SNIC_ABI_VERSION_MAJOR.
 *
 * All registers are little-endian. Nothing on a data path reads BAR0:
 * it is read at init only; indices and completions travel by DMA.
 */
#ifndef SNIC_REGS_H
#define SNIC_REGS_H

#include <linux/types.h>

/* PCI identity (1af4:10f0-10ff is QEMU's range for experimental devices) */
#define SNIC_PCI_VENDOR_ID          0x1af4
#define SNIC_PCI_DEVICE_ID          0x10f0
#define SNIC_PCI_CLASS              0x0200  /* Ethernet controller */
#define SNIC_PCI_REVISION           0x01

/* BARs: all memory, 64-bit, non-prefetchable (every access has effects) */
#define SNIC_BAR_REGS               0
#define SNIC_BAR_DOORBELL           2
#define SNIC_BAR_MSIX               4
#define SNIC_BAR0_SIZE              0x1000

#define SNIC_MAGIC                  0x43494e53u  /* "SNIC" */
/*
 * Major 3: CREATE_QP's rdb_addr, the responder database in host memory
 * (struct snic_rdb_entry); an RC QP without one answers no READ/atomic.
 * QUERY_DEVICE's on-chip budget; the receive buffer and PFC counters in
 * struct snic_stats.
 * Major 2: 256-byte send WQEs (inline data, 11 SGEs, memory window binds).
 * Minor 0: SRQs, UC, memory windows, REREG_MR, RESIZE_CQ, MODIFY_CQ, UD
 * multicast.
 * Minor 1: StRoM RPCs and kernels (snic_rpc.h): SET_QP_RPC,
 * DEPLOY/UNDEPLOY_KERNEL, RPC WQEs and CQEs, QUERY_DEVICE's RPC fields,
 * SNIC_EVENT_QP_RPC_ERR, BTH TVer 1 on extension op-codes.
 * Minor 2: transport programs: SET_QP_TRANSPORT, QUERY_TRANSPORT,
 * QUERY_DEVICE num_transports.
 * Minor 1 (of major 3): struct snic_stats wire_ce_marked; the selective-
 * transport extension (struct snic_xeth, BTH TVer 2), SNIC_TRANSPORT_SACK.
 * Minor 2 (of major 3): SNIC_TRANSPORT_DCTCP, SNIC_TRANSPORT_F_ECE and
 * SNIC_XETH_F_ECE (ACKs echo the CE-marked count).
 * Minor 3 (of major 3): SNIC_TRANSPORT_NDP, _IRN; the extension's NACKs
 * (SNIC_XETH_F_NACK | SNIC_XETH_F_TRIMMED), PULLs and trimmed headers.
 * Minor 4 (of major 3): SEND packets are placed out of order too; struct
 * snic_xeth msg of a SEND is its message number (SRNIC's SSN: the count of
 * the QP's earlier messages that take a receive WQE), no longer the SQ
 * index of its WQE (which no responder read).
 * Minor 5 (of major 3): SNIC_TRANSPORT_SRNIC (snic_sr.h): CREATE_SR_CTRLQ,
 * SET_QP_SR, SNIC_DB_SR_CTRLQ/_RETRYQ, SNIC_EVENT_SR_CTRLQ_OVERFLOW,
 * SNIC_TRANSPORT_F_SR and struct snic_stats sr_* counters; Reno and
 * NewReno speak the selective-transport extension (SNIC_TRANSPORT_F_XPORT:
 * their responders keep out-of-order data, as TCP's receivers); RDMA WRITE
 * with Immediate packets carry SNIC_XETH_F_MSG too, and are placed.
 * Minor 6 (of major 3): SET_QP_SR's window is 16 bits at offset 6 and
 * counts segments in flight (not SACKed), up to SNIC_SR_SPAN PSNs beyond
 * lACK (it was 8 bits at offset 5, counted from lACK); SRNIC
 * takes RDMA WRITE with Immediate (no longer NAKed): its completion may
 * go through the host, SNIC_SR_RECV_F_WRITE; SNIC_TRANSPORT_SRNIC_DCTCP;
 * struct snic_stats sr_ctrlq_refused (the CtrlQ quota per QP);
 * an SRNIC QP's READ responses carry struct snic_xeth SNIC_XETH_F_RESP
 * (the request's PSN, PSN_OFFSET) and are placed out of order;
 * SNIC_SR_CTRL_F_READ, SNIC_SR_RETRY_LACK; struct snic_stats
 * sr_read_placed, sr_read_refused, sr_read_resent.
 * Minor 7 (of major 3): struct snic_stats wire_corrupts_injected,
 * rdma_rx_icrc_errors and admin_fails_injected (faults injected at run time).
 * Minor 8 (of major 3): fast registration (SNIC_CAP_FRWR): REG_MR's
 * SNIC_MR_FRWR, the REG_MR work request (struct snic_reg_mr_wr,
 * SNIC_WR_REG_MR, SNIC_WC_REG_MR), LOCAL_INV and SEND with Invalidate of
 * FRWR MRs; SNIC_EVENT_QP_COMM_EST; struct snic_stats frwr_registered,
 * frwr_invalidated.
 * Minor 9 (of major 3): the shuffle kernel, SNIC_KERNEL_SHUFFLE, struct
 * snic_shuffle_params and snic_shuffle_part, SNIC_RPC_PARTITION_FULL.
 * Minor 10 (of major 3): struct snic_stats rdma_timeouts,
 * rdma_rtx_segments and rdma_rx_stale (why a requester resent, and the
 * duplicate responses that came back for it); struct snic_device_attr
 * link_speed_mbps (the port's speed, which DCQCN, IRN, NDP and PFC time by);
 * HyperLogLog sketches: ATTACH_HLL, QUERY_HLL, RESET_HLL, DETACH_HLL (struct
 * snic_admin_hll, snic_hll_info), struct snic_device_attr hll_sketches (a
 * reserved byte); SNIC_WC_REM_ABORT_ERR (a held SRQ receive let go of);
 * struct snic_device_attr ctx_recv_pool, ctx_rpc_slots, ctx_rpc_stage,
 * qp_rpc_stage and ctx_kernels (a context's share of the shared pools).
 * Minor 11 (of major 3): struct snic_device_attr ctx_mcast_grp,
 * ctx_mcast_qp_attach and ctx_pool_div (a context's share of the multicast
 * table and of one group; a user context's QPs hold a quarter of the
 * CtrlQ at most); the connectionless transport (snic_cl.h):
 * SET_QP_CL, BTH TVer 3 and the CL op-codes with struct snic_cleth,
 * SNIC_WR_CL_WRITE and its WQE layout, SNIC_WC_CL_WRITE, SNIC_WC_CL_RECV;
 * struct snic_stats cl_* counters; struct snic_device_attr cl_* limits
 * (the struct 216 bytes). 12: an SRNIC READ request names its WQE's SQ
 * index (struct snic_xeth sq_index), its responses echo it with the
 * address their data was read from (va); struct snic_rdb_entry sq_index.
 * (Major 1 minors: 1 PD/MR commands, limits; 2 CQE wqe_index; 3 SET_GID;
 * 4 QP_REQ_ERR and QP_ACCESS_ERR async events.)
 */
#define SNIC_ABI_VERSION_MAJOR      3
#define SNIC_ABI_VERSION_MINOR      12
#define SNIC_ABI_VERSION \
    ((SNIC_ABI_VERSION_MAJOR << 16) | SNIC_ABI_VERSION_MINOR)

/* BAR0 register offsets */
#define SNIC_REG_MAGIC              0x000   /* RO  SNIC_MAGIC */
#define SNIC_REG_ABI_VERSION        0x004   /* RO  major << 16 | minor */
#define SNIC_REG_CAPS_LO            0x008   /* RO  SNIC_CAP_* bits 31:0 */
#define SNIC_REG_CAPS_HI            0x00c   /* RO  SNIC_CAP_* bits 63:32 */
#define SNIC_REG_DB_PAGES           0x010   /* RO  number of doorbell pages */
#define SNIC_REG_NUM_VECTORS        0x014   /* RO  number of MSI-X vectors */
#define SNIC_REG_DEV_CTRL           0x018   /* RW  SNIC_CTRL_* */
#define SNIC_REG_DEV_STATUS         0x01c   /* RO  SNIC_STATUS_* */
#define SNIC_REG_ERROR              0x020   /* RW  SNIC_ERR_*; write clears */
#define SNIC_REG_INTR_CAUSE         0x024   /* RW1C SNIC_INTR_* (vector 0) */
#define SNIC_REG_INTR_MASK          0x028   /* RW  SNIC_INTR_*: 1 = masked */
#define SNIC_REG_ADMIN_SQ_BASE_LO   0x030   /* RW  while disabled */
#define SNIC_REG_ADMIN_SQ_BASE_HI   0x034
#define SNIC_REG_ADMIN_CQ_BASE_LO   0x038
#define SNIC_REG_ADMIN_CQ_BASE_HI   0x03c
#define SNIC_REG_ADMIN_DEPTH        0x040   /* RW  log2 entries, SQ and CQ */
#define SNIC_REG_ADMIN_SQ_HEAD      0x044   /* RO  device consumer index */
#define SNIC_REG_ADMIN_SQ_TAIL      0x048   /* RO  last producer index rung */
#define SNIC_REG_ADMIN_CQ_TAIL      0x04c   /* RO  device producer index */
#define SNIC_REG_AEQ_BASE_LO        0x050   /* RW  while disabled */
#define SNIC_REG_AEQ_BASE_HI        0x054
#define SNIC_REG_AEQ_DEPTH          0x058   /* RW  log2 entries */
#define SNIC_REG_AEQ_TAIL           0x05c   /* RO  device producer index */
#define SNIC_REG_STATS              0x400   /* RO  struct snic_stats, 64-bit */

/*
 * SNIC_REG_DEV_CTRL. ENABLE 0 -> 1 validates the admin/AEQ layout (failure:
 * SNIC_REG_ERROR, READY stays clear). ENABLE 1 -> 0 destroys every queue
 * and clears indices, status and interrupt causes, but keeps the layout
 * registers, interrupt mask, MAC, MTU and counters. RESET returns
 * everything to power-on values. Zero the CQ and AEQ memory before each
 * enable: the phase bit starts at 1 again.
 */
#define SNIC_CTRL_ENABLE            (1u << 0)  /* admin queue + AEQ live */
#define SNIC_CTRL_RESET             (1u << 1)  /* write 1: device reset */

/* SNIC_REG_DEV_STATUS */
#define SNIC_STATUS_READY           (1u << 0)  /* enabled, queues valid */
/* FATAL and AEQ_OVERFLOW stay set until disable or reset. */
#define SNIC_STATUS_FATAL           (1u << 1)  /* see SNIC_REG_ERROR */
#define SNIC_STATUS_LINK_UP         (1u << 2)
#define SNIC_STATUS_AEQ_OVERFLOW    (1u << 3)  /* an event was lost */

/* SNIC_REG_ERROR: why enabling failed or why the device went fatal */
enum snic_dev_error {
    SNIC_ERR_NONE = 0,
    SNIC_ERR_ADMIN_CONFIG = 1,      /* bad admin SQ/CQ base or depth */
    SNIC_ERR_AEQ_CONFIG = 2,        /* bad AEQ base or depth */
    SNIC_ERR_ADMIN_SQ_DMA = 3,      /* admin command fetch failed */
    SNIC_ERR_ADMIN_CQ_DMA = 4,      /* admin completion write failed */
    SNIC_ERR_AEQ_DMA = 5,           /* async event write failed */
};

/*
 * SNIC_REG_INTR_CAUSE / SNIC_REG_INTR_MASK (both on MSI-X vector 0). A cause
 * is recorded even while masked; unmasking a recorded cause raises the
 * vector.
 */
#define SNIC_INTR_ADMIN             (1u << 0)
#define SNIC_INTR_AEQ               (1u << 1)

/* Capabilities (SNIC_REG_CAPS_*, struct snic_device_attr.caps) */
#define SNIC_CAP_ADMINQ             (1ull << 0)
#define SNIC_CAP_AEQ                (1ull << 1)
#define SNIC_CAP_ETH                (1ull << 2)
#define SNIC_CAP_RDMA_MR            (1ull << 3)  /* PDs, MRs, translation */
#define SNIC_CAP_SRQ                (1ull << 4)  /* shared receive queues */
#define SNIC_CAP_UC                 (1ull << 5)  /* unreliable connected QPs */
#define SNIC_CAP_MW                 (1ull << 6)  /* memory windows, types 1+2 */
#define SNIC_CAP_INLINE             (1ull << 7)  /* inline send data */
#define SNIC_CAP_LOOPBACK           (1ull << 8)  /* QPs of one port connect */
#define SNIC_CAP_CQ_MODERATION      (1ull << 9)  /* MODIFY_CQ */
#define SNIC_CAP_MCAST              (1ull << 10) /* UD multicast groups */
#define SNIC_CAP_FRWR               (1ull << 11) /* fast registration */
#define SNIC_CAP_RPC                (1ull << 16) /* StRoM RPCs, kernels */

/* Queue depths are powers of two within these bounds */
#define SNIC_ADMIN_MIN_LOG2_DEPTH   2
#define SNIC_ADMIN_MAX_LOG2_DEPTH   12
#define SNIC_AEQ_MIN_LOG2_DEPTH     2
#define SNIC_AEQ_MAX_LOG2_DEPTH     12

/*
 * Doorbells: BAR2 holds one 4 KiB page per context; page 0 belongs to the
 * kernel driver. A doorbell is a single 64-bit write at a page's offset 0:
 *
 *   63      56 55            32 31                     0
 *  +----------+----------------+------------------------+
 *  |  type    |    queue id    |  index (free-running)  |
 *  +----------+----------------+------------------------+
 *
 * For producer queues (admin SQ, Ethernet TX/RX) the index is the new
 * producer index; for device-produced queues (admin CQ, AEQ) it is the
 * driver's new consumer index. Indices run freely modulo 2^32; the slot is
 * index & (depth - 1). A producer index may only move forward from the
 * last one rung, at most a ring ahead of the device's consumer index; a
 * consumer index only up to what the device produced. A doorbell naming
 * a queue that the page's context does not own, or breaking these rules,
 * is ignored and counted as a guest error.
 */
#define SNIC_DB_PAGE_SIZE           0x1000
#define SNIC_DB_KERNEL_PAGE         0
#define SNIC_DB_MAX_PAGES           4096

enum snic_db_type {
    SNIC_DB_ADMIN_SQ = 1,
    SNIC_DB_ADMIN_CQ = 2,
    SNIC_DB_AEQ = 3,
    SNIC_DB_ETH_TX = 4,
    SNIC_DB_ETH_RX = 5,
    SNIC_DB_SQ = 6,             /* qid = QPN, index = SQ producer */
    SNIC_DB_RQ = 7,             /* qid = QPN, index = RQ producer */
    SNIC_DB_CQ = 8,             /* qid = CQN, index = consumer */
    SNIC_DB_CQ_ARM = 9,         /* ... and arm for the next completion */
    SNIC_DB_CQ_ARM_SOL = 10,    /* ... for the next solicited one */
    SNIC_DB_EQ = 11,            /* qid = EQN, index = consumer */
    SNIC_DB_SRQ = 12,           /* qid = SRQN, index = SRQ producer */
    SNIC_DB_SR_CTRLQ = 13,      /* qid 0, index = CtrlQ consumer (3.5) */
    SNIC_DB_SR_RETRYQ = 14,     /* qid = QPN, index = RetryQ producer */
};

#define SNIC_DB_INDEX_MASK          0xffffffffull
#define SNIC_DB_QID_SHIFT           32
#define SNIC_DB_QID_MASK            0xffffffull
#define SNIC_DB_TYPE_SHIFT          56

static inline __u64 snic_db_make(__u8 type, __u32 qid, __u32 index)
{
    return ((__u64)type << SNIC_DB_TYPE_SHIFT) |
           (((__u64)qid & SNIC_DB_QID_MASK) << SNIC_DB_QID_SHIFT) | index;
}

/*
 * Device statistics, readable at SNIC_REG_STATS and by SNIC_ADMIN_GET_STATS.
 * New counters are only ever appended.
 */
struct snic_stats {
    __le64 admin_cmds;          /* admin commands executed */
    __le64 admin_errors;        /* ... that completed with an error */
    __le64 async_events;        /* events written to the AEQ */
    __le64 async_events_lost;   /* AEQ full or not set up */
    __le64 guest_errors;        /* driver mistakes the device saw */
    __le64 doorbells;           /* valid doorbells */
    __le64 doorbells_invalid;   /* ignored doorbells */
    __le64 dma_errors;          /* DMA reads/writes that failed */
    __le64 tx_frames;           /* Ethernet frames sent to the wire */
    __le64 tx_bytes;
    __le64 tx_dropped;          /* bad descriptor, too long, link down */
    __le64 rx_frames;           /* frames delivered to the RX ring */
    __le64 rx_bytes;
    __le64 rx_dropped;          /* no RX ring started, DMA error */
    __le64 rx_too_long;         /* larger than the posted buffer / MTU */
    __le64 rx_filtered;         /* unicast to another MAC */
    __le64 rx_rdma_reserved;    /* UDP/4791: for the RDMA engine */
    __le64 rx_no_buffer;        /* frames that waited for an RX buffer */
    __le64 irqs;                /* MSI-X messages requested */
    __le64 tlb_hits;            /* translations found in the cache */
    __le64 tlb_misses;          /* ... read from the MTT in host memory */
    __le64 rdma_tx_packets;     /* RoCEv2 packets sent */
    __le64 rdma_rx_packets;     /* RoCEv2 packets received */
    __le64 rdma_rx_dropped;     /* ... malformed, for no QP, stale */
    __le64 wire_drops_injected;     /* fault injection properties */
    __le64 wire_dups_injected;
    __le64 wire_reorders_injected;
    /* ABI 3.0: the port's receive buffer and 802.1Qbb PFC */
    __le64 pfc_pause_sent;      /* PFC frames sent: pauses and resumes */
    __le64 pfc_pause_recv;      /* well-formed PFC frames received */
    __le64 pfc_paused_ns;       /* time the partner paused our RoCE */
    __le64 rx_buffer_max;       /* receive buffer high-water mark, bytes */
    __le64 rx_buffer_drops;     /* RoCE frames it had no room for */
    /* ABI 3.0: objects the device holds now (they fall: not counters) */
    __le64 obj_qps;             /* RC, UC and UD QPs (not the GSI QP) */
    __le64 obj_cqs;
    __le64 obj_srqs;
    __le64 obj_mrs;
    __le64 obj_mws;
    __le64 obj_pds;
    /* ABI 3.1 */
    __le64 wire_ce_marked;      /* received frames marked CE (wire-ecn-mark) */
    /* ABI 3.5: SRNIC selective repeat (snic_sr.h) */
    __le64 sr_ctrlq_entries;    /* CtrlQ entries written */
    __le64 sr_ctrlq_drops;      /* packets dropped: CtrlQ full or absent */
    __le64 sr_retry_refused;    /* RetryQ entries refused (guest errors) */
    __le64 sr_retry_stale;      /* ... skipped: overtaken by the device */
    /* ABI 3.6 */
    __le64 sr_ctrlq_refused;    /* CtrlQ reports refused: dup, QP quota */
    /* ABI 3.6: SRNIC's READs (SNIC_XETH_F_RESP) */
    __le64 sr_read_placed;      /* READ responses placed ahead of lACK */
    __le64 sr_read_refused;     /* ... dropped: malformed, no READ WQE */
    __le64 sr_read_resent;      /* READ responses sent again for a hole */
    /* ABI 3.7: faults injected at run time */
    __le64 wire_corrupts_injected;  /* RoCE frames sent with a byte flipped */
    __le64 rdma_rx_icrc_errors;     /* RoCE frames dropped: bad ICRC */
    __le64 admin_fails_injected;    /* admin commands failed, not executed */
    /* ABI 3.8: fast registration (SNIC_CAP_FRWR) */
    __le64 frwr_registered;     /* REG_MR work requests that mapped an MR */
    __le64 frwr_invalidated;    /* FRWR MRs invalidated: LOCAL_INV, IETH */
    /* ABI 3.10: the requester's retransmissions and what they cost */
    __le64 rdma_timeouts;       /* retransmission timer expirations */
    __le64 rdma_rtx_segments;   /* segments marked to send again */
    __le64 rdma_rx_stale;       /* responses dropped: already taken */
    /* ABI 3.11: the connectionless transport (snic_cl.h) */
    __le64 cl_retransmits;      /* CL packets sent again */
    __le64 cl_dup_dropped;      /* ... received with their mask bit set */
    __le64 cl_dup_acked;        /* ... of a completed operation: ACKed */
    __le64 cl_escape_parked;    /* packets parked before their REGISTER */
    __le64 cl_escape_replayed;  /* ... taken when it came */
    __le64 cl_escape_timeouts;  /* ... dropped: it did not come in time */
    __le64 cl_escape_full;      /* packets dropped: the channel was full */
    __le64 cl_reg_refused;      /* REGISTERs and NOTIFYs NACKed NOT_READY */
    __le64 cl_notify_sent;      /* NOTIFYs sent */
};
_Static_assert(sizeof(struct snic_stats) == 512, "snic_stats is 512 bytes");

#endif /* SNIC_REGS_H */
