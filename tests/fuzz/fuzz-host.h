/*
 * A small host for the snic fuzz targets. Like tests/unit/fake-host, but
 * the core has only a few objects of each kind and guest memory is 192 KiB,
 * so a fuzz input builds its devices from scratch in microseconds (the
 * unit-test host allocates 8 MiB and megabytes of object tables per core).
 * A host runs alone (time is a variable) or on the wire simulator.
 *
 * Also the layout of the nodes the targets build and the input formats
 * shared by the targets and the seed generator (gen-fuzz-seeds.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_FUZZ_HOST_H
#define SNIC_FUZZ_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_int.h"
#include "sim-port.h"
#include "snic_sr_recovery.h"

#define FZ_MEM_BASE     0x200000ull
#define FZ_MEM_SIZE     0x30000u
#define FZ_VECTORS      4
#define FZ_DB_PAGES     2
#define FZ_ADMIN_LOG2   4
#define FZ_AEQ_LOG2     4

/* Core limits: small, so tables are tiny and handles easy to hit */
#define FZ_MAX_PD       4
#define FZ_MAX_MR       4
#define FZ_MAX_QP       4
#define FZ_MAX_CQ       4
#define FZ_MAX_EQ       2
#define FZ_MAX_SRQ      2
#define FZ_MAX_MW       2
#define FZ_MAX_MR_PAGES 64
#define FZ_TLB_ENTRIES  16

/* Guest memory layout */
#define FZ_ADMIN_SQ     (FZ_MEM_BASE + 0x0000)  /* 16 x 64 bytes */
#define FZ_ADMIN_CQ     (FZ_MEM_BASE + 0x0400)  /* 16 x 16 bytes */
#define FZ_AEQ          (FZ_MEM_BASE + 0x0800)  /* 16 x 16 bytes */
#define FZ_ADMIN_END    (FZ_MEM_BASE + 0x0900)
#define FZ_ATTR         (FZ_MEM_BASE + 0x0c00)  /* MODIFY_QP attributes */
#define FZ_PBL          (FZ_MEM_BASE + 0x1000)  /* page lists */
#define FZ_PBL_EQ       (FZ_PBL + 0x000)
#define FZ_PBL_CQ       (FZ_PBL + 0x040)
#define FZ_PBL_SQ(q)    (FZ_PBL + 0x100 + (q) * 0x40)
#define FZ_PBL_RQ(q)    (FZ_PBL + 0x200 + (q) * 0x40)
#define FZ_PBL_MR       (FZ_PBL + 0x400)        /* 16 entries */
#define FZ_RDB(q)       (FZ_PBL + 0x800 + (q) * SNIC_RDB_BYTES) /* RC QPs' */
#define FZ_EQ_RING      (FZ_MEM_BASE + 0x2000)
#define FZ_CQ_RING      (FZ_MEM_BASE + 0x3000)
#define FZ_SQ_RING(q)   (FZ_MEM_BASE + 0x4000 + (q) * 0x2000)
#define FZ_RQ_RING(q)   (FZ_MEM_BASE + 0x5000 + (q) * 0x2000)
#define FZ_BUF          (FZ_MEM_BASE + 0x10000) /* the node's MR */
#define FZ_BUF_LEN      0x10000u
#define FZ_SCRATCH      (FZ_MEM_BASE + 0x20000) /* 64 KiB, free */
/* A node's SRNIC rings (fuzz-admin's commands use the scratch area) */
#define FZ_SR_CTRLQ     (FZ_SCRATCH + 0x0000)   /* 2^FZ_SR_CTRLQ_LOG2 x 32 */
#define FZ_SR_RETRYQ    (FZ_SCRATCH + 0x1000)   /* 2^FZ_SR_RETRYQ_LOG2 x 16 */
#define FZ_SR_CTRLQ_LOG2  5
#define FZ_SR_RETRYQ_LOG2 8
#define FZ_SR_VECTOR    2

/* Node objects */
#define FZ_MAX_NODE_QP  4
#define FZ_EQ_LOG2      4
#define FZ_CQ_LOG2      6
#define FZ_SQ_LOG2      4
#define FZ_RQ_LOG2      4
#define FZ_MR_IOVA      0x10000000ull   /* pages mapped in reverse order */
#define FZ_MR_KEY       0x33
#define FZ_LKEY         (1u << SNIC_KEY_INDEX_SHIFT | FZ_MR_KEY)
/* every node's memory windows, types 1 and 2, as allocated */
#define FZ_MW_RKEY(t)   (SNIC_KEY_MW | (t) << SNIC_KEY_INDEX_SHIFT | 0x40)
#define FZ_QKEY         0x1111u
#define FZ_MTU          SNIC_MTU_1024
#define FZ_IP(n)        (n)             /* node n is 10.0.0.n */
/* PSNs start just below the 24-bit wrap, like the engine tests */
#define FZ_SQ_PSN(ip)   (0xfffff0u + (ip))

/* A fuzz input, read front to back; zeros once it runs out. */
typedef struct FzInput {
    const uint8_t *p;
    size_t left;
} FzInput;

/* Next n bytes of input (zeros past its end). */
void fz_take(FzInput *in, void *buf, size_t n);
uint8_t fz_take8(FzInput *in);

/* The libFuzzer entry point of each target */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct FuzzSrHost FuzzSrHost;

typedef struct FuzzHost {
    SnicCore *core;
    uint8_t *mem;               /* FZ_MEM_SIZE bytes at FZ_MEM_BASE */
    unsigned kicks;
    unsigned tx_frames;
    /* a DMA write touched the admin rings (not an admin completion) */
    bool admin_clobbered;

    /* clock, timer, engine runs and, given a simulator, the wire */
    SnicSimPort port;

    /* admin queue, driver side */
    uint32_t sq_tail;
    uint32_t cq_head;
    uint16_t next_cmd_id;

    /* SRNIC's host software, if a QP of this host runs it */
    FuzzSrHost *sr;
} FuzzHost;

/*
 * A host, enabled (admin queue + AEQ); on 'sim' if it is not NULL, with
 * the core's own transmit fault injection if 'faults' is not NULL.
 */
FuzzHost *fz_host_new(SnicSim *sim, const SnicLinkFaults *faults);
void fz_host_free(FuzzHost *h);

/* Is [addr, addr + len) guest memory? The accessors abort if it is not. */
bool fz_in_mem(uint64_t addr, size_t len);
void *fz_ptr(FuzzHost *h, uint64_t addr, size_t len);
void fz_write(FuzzHost *h, uint64_t addr, const void *buf, size_t len);
void fz_read(FuzzHost *h, uint64_t addr, void *buf, size_t len);

/* Program the admin queue and AEQ (zeroing them) and enable. */
void fz_enable(FuzzHost *h);
/*
 * The same with another admin depth (the helpers need FZ_ADMIN_LOG2 to
 * work) and AEQ; returns whether the device became ready.
 */
bool fz_enable_layout(FuzzHost *h, uint32_t admin_log2, uint64_t aeq,
                      uint32_t aeq_log2);
void fz_doorbell(FuzzHost *h, unsigned page, uint8_t type, uint32_t qid,
                 uint32_t index);
/* Run the core until it has no more work (64 runs at most). */
void fz_run(FuzzHost *h);
/* Move the host clock (no simulator) and fire the timer when due. */
void fz_advance(FuzzHost *h, uint64_t ns);

/* Payload length of an admin opcode, or -1 if there is no such opcode. */
int fz_admin_payload_len(uint8_t opcode);
/* Post one command (the SQ must have room); returns its id. */
uint16_t fz_admin_post(FuzzHost *h, struct snic_admin_cmd *cmd);
bool fz_admin_poll(FuzzHost *h, struct snic_admin_cqe *cqe);
/*
 * Post, run, poll. Aborts if the device does not complete the command
 * properly (unless something overwrote the admin rings: then returns
 * UINT16_MAX).
 */
uint16_t fz_admin(FuzzHost *h, struct snic_admin_cmd *cmd, uint64_t *result);

/*
 * Aborts unless the device's queue indices are consistent: every consumer
 * within a ring of its producer, no more segments in flight than the window.
 */
void fz_check(FuzzHost *h);

/* A page list of n 4 KiB pages from 'first' (backwards if 'reverse'). */
void fz_pbl(FuzzHost *h, uint64_t at, uint64_t first, unsigned n,
            bool reverse);

/*
 * A node: one host with a PD, an EQ, a CQ, an MR over FZ_BUF and up to
 * FZ_MAX_NODE_QP QPs (index q: rings FZ_SQ_RING(q), FZ_RQ_RING(q)). A type
 * with FZ_ON_SRQ makes that QP take from the node's SRQ, whose ring is
 * the one FZ_RQ_RING(q) the QP does not need (one such QP per node); an
 * RC type with FZ_RPC takes StRoM RPCs (SNIC_QP_RPC_ENABLE | FALLBACK).
 */
#define FZ_ON_SRQ       0x80
#define FZ_RPC          0x40
#define FZ_TYPE(t)      ((t) & ~(FZ_ON_SRQ | FZ_RPC))
typedef struct FuzzNode {
    FuzzHost *h;
    uint8_t ip;
    uint32_t pdn, eqn, cqn, lkey;
    unsigned nqp;
    uint8_t type[FZ_MAX_NODE_QP];
    uint32_t qpn[FZ_MAX_NODE_QP];
    uint32_t sq_pi[FZ_MAX_NODE_QP], rq_pi[FZ_MAX_NODE_QP];
    uint32_t cq_ci;
    uint32_t srqn;              /* its SRQ, for QP srq_q; 0: none */
    unsigned srq_q;
} FuzzNode;

void fz_node_init(FuzzNode *n, SnicSim *sim, const SnicLinkFaults *faults,
                  uint8_t ip, const uint8_t *types, unsigned nqp);
void fz_node_free(FuzzNode *n);
/* MODIFY_QP of QP q; returns the admin status. */
uint16_t fz_node_modify(FuzzNode *n, unsigned q, uint32_t mask,
                        const struct snic_qp_attr *a);
/* RC QP q of n to RTS, connected to QP peer_qpn of node peer_ip. */
void fz_node_connect(FuzzNode *n, unsigned q, uint8_t peer_ip,
                     uint32_t peer_qpn, bool ipv6);
/* UD QP q joins the multicast group FZ_MCAST_IP (239.0.0.1). */
#define FZ_MCAST_IP     0xef000001u
void fz_node_attach_mcast(FuzzNode *n, unsigned q);
/* UD or GSI QP q to RTS with Q_Key qkey. */
void fz_node_ud_up(FuzzNode *n, unsigned q, uint32_t qkey);
/*
 * Transport program 'program' (enum snic_transport_id) on QP q, in RESET
 * or INIT: before fz_node_connect(), as on both ends of a connection.
 */
void fz_node_set_transport(FuzzNode *n, unsigned q, uint8_t program);
/* Does the program run SRNIC (a CtrlQ and the QP's RetryQ needed)? */
bool fz_program_sr(uint8_t program);
/* Does the program number its messages (then the device refuses RPC)? */
bool fz_program_numbered(uint8_t program);

/*
 * SRNIC's host software for QP q of a node: the node's CtrlQ at
 * FZ_SR_CTRLQ (vector FZ_SR_VECTOR), the QP's RetryQ at FZ_SR_RETRYQ,
 * and the recovery logic snic.ko runs (guest-driver/common). On the
 * simulator the CtrlQ's interrupt runs it 2 us later (as tests/unit's
 * sr-host); alone, the target calls fz_sr_host_poll().
 */
struct FuzzSrHost {
    FuzzNode *n;
    unsigned q;
    uint32_t ci;                /* CtrlQ consumer index */
    uint16_t retry_pi;          /* RetryQ producer index */
    uint16_t retry_ci;          /* its consumer, as the last entry said */
    bool armed;                 /* the handler is due (simulator) */
    struct snic_sr_sw_qp sw;
    uint64_t entries, posted;
};

void fz_sr_host_init(FuzzSrHost *s, FuzzNode *n, unsigned q, uint16_t window);
/* SET_QP_SR again (the QP selected SRNIC anew after RESET), state reset */
void fz_sr_host_qp(FuzzSrHost *s, uint16_t window);
/* Take every new CtrlQ entry, post the decisions: entries taken */
unsigned fz_sr_host_poll(FuzzSrHost *s);
/*
 * Write n RetryQ entries as they are at the producer index and ring the
 * RetryQ with producer index + 'ahead' (n for a driver that counts right)
 */
void fz_sr_host_post(FuzzSrHost *s, const struct snic_sr_retry *e,
                     unsigned n, uint16_t ahead);

/* Write a WQE at the producer slot of QP q and ring its doorbell. */
void fz_post_send(FuzzNode *n, unsigned q, const struct snic_sq_wqe *w);
/* ... to its RQ, or for the SRQ's QP to the SRQ */
void fz_post_recv(FuzzNode *n, unsigned q, const struct snic_rq_wqe *w);
/* Next completion of the node's CQ, if any (consumed). */
bool fz_poll_cq(FuzzNode *n, struct snic_cqe *c);
/* Address vector from node 'from' to node 'to': 10.0.0.n or fd00::n. */
void fz_av(struct snic_av *av, uint8_t from, uint8_t to, bool ipv6);

/* The transport programs an input picks: fz_programs[byte % N] */
#define FZ_NUM_PROGRAMS 10
extern const uint8_t fz_programs[FZ_NUM_PROGRAMS];

/* ---- fuzz-wqe input format ---- */
/*
 * u8 profile: bits 0-1 simulated link, bits 2-4 the devices' own fault
 * injection, bit 7 the RC pair talks IPv6. u8: the RC pair's transport
 * program (fz_programs; an SRNIC QP's CtrlQ and RetryQ served by the
 * host software on each node, WQE_SR_WINDOW). Then ops: u8 op, u8 sel,
 * operands. sel: bit 0 node, bits 1-2 QP index (mod 2: 0 RC, 1 UD), bit 3
 * fix up keys, addresses and peers, bit 6 ring from doorbell page 1 (not
 * the QP's).
 */
enum {
    WQE_OP_SQ,          /* 128 bytes: SQ WQE at the producer, ring */
    WQE_OP_RQ,          /* 64 bytes: RQ WQE at the producer, ring */
    WQE_OP_SLOT,        /* u8 slot, 128 bytes: SQ slot, no doorbell */
    WQE_OP_DOORBELL,    /* u8 type, u32 index (little-endian) */
    WQE_OP_RUN,         /* run (sel + 1) * 4 simulator events */
    WQE_OP_POLL,        /* poll the node's CQ empty */
    WQE_OP_CTRL,        /* u8 what: link, QP state changes, page lists */
    WQE_OP_COUNT
};
#define WQE_SR_WINDOW   32
#define WQE_SEL_FIX     0x08
#define WQE_SEL_PAGE1   0x40

/* ---- fuzz-rx input format ---- */
/*
 * u8: the RC QP's transport program, fz_programs[(byte & 0x7f) %
 * FZ_NUM_PROGRAMS] (both ends run it: the peer's frames carry what it
 * sends); with RX_NO_RPC the QP takes no StRoM RPCs (the selective
 * programs and SRNIC place SENDs out of order only on such a QP). Then
 * records: u8 flags, u16 length (big-endian), bytes: a
 * frame, or with RX_RETRYQ RetryQ entries. Flag bits: fix the IP/UDP
 * lengths, the IPv4 checksum and the ICRC after mutation; run the engine
 * after the record; move the clock past the next timer; run SRNIC's host
 * software (take the CtrlQ, post its decisions); the record's bytes are
 * RetryQ entries (fuzz-rx.c: retryq_record()); trim the frame to its
 * headers (lengths and IPv4 checksum fixed, no ICRC), as an NDP switch.
 */
#define RX_FIX_CRC      0x01
#define RX_FIX_LEN      0x02
#define RX_RUN          0x04
#define RX_TIMER        0x08
#define RX_HOST         0x10
#define RX_RETRYQ       0x20
#define RX_TRIM         0x40
#define RX_NO_RPC       0x80    /* in the first byte */
/* An SRNIC QP's window (SET_QP_SR): its segments in flight */
#define RX_SR_WINDOW    64
/*
 * The node: 10.0.0.1 with RC QP 2 (connected to QP RX_PEER_QPN of
 * 10.0.0.2), UD QP 3 (Q_Key FZ_QKEY) and the GSI QP 1. The RC responder
 * expects PSN RX_EPSN; the requester has sent, from PSN RX_REQ_PSN: a
 * SEND of RX_SEND_LEN (2 PSNs), an RDMA WRITE of RX_WRITE_LEN (1), an
 * RDMA READ of RX_READ_LEN (3) and a FETCH_ADD (1).
 */
#define RX_RC_QPN       2
#define RX_UD_QPN       3
#define RX_PEER_QPN     2
#define RX_EPSN         FZ_SQ_PSN(2)
#define RX_REQ_PSN      FZ_SQ_PSN(1)
#define RX_SEND_LEN     1500
#define RX_WRITE_LEN    100
#define RX_READ_LEN     3000
/* ... the READ's SQ index and remote address (fuzz-rx.c posts it) */
#define RX_READ_SQ_INDEX    2
#define RX_READ_VA      (FZ_MR_IOVA + 0x200)
/*
 * The RC QP takes RPCs (FZ_RPC, unless RX_NO_RPC): RPC op-code
 * RX_RPC_TRAV runs the traversal kernel, RX_RPC_CONS the consistency
 * kernel, RX_RPC_SHUF the shuffle, any other goes to its receive queue.
 */
#define RX_RPC_TRAV     1
#define RX_RPC_CONS     2
#define RX_RPC_SHUF     3

/* ---- fuzz-admin input format ---- */
enum {
    ADM_OP_CMD,         /* u8 fix, 64-byte command */
    ADM_OP_MEM,         /* u16 offset / 4 from FZ_ATTR, u8 n, n bytes */
    ADM_OP_DOORBELL,    /* u8 page, u64 value (little-endian) */
    ADM_OP_CTRL,        /* u8 what */
    ADM_OP_COUNT
};
#define ADM_FIX_HDR     0x01    /* opcode from the table, version, length */
#define ADM_FIX_FIELDS  0x02    /* small handles, addresses in memory */
#define ADM_FIX_BATCH   0x04    /* post only: run with the next command */
/* Guest memory the target prepares: page lists and MODIFY_QP attributes */
#define ADM_NUM_LISTS   8
#define ADM_LIST_AT(i)  (FZ_PBL + (i) * 0x80)   /* 16 pages each */
#define ADM_ATTR_AT(i)  (FZ_ATTR + (i) * 0x80)  /* see prepare_memory() */
/* ADM_FIX_HDR: opcode = fz_admin_opcodes[byte % FZ_ADMIN_NUM_OPCODES] */
#define FZ_ADMIN_NUM_OPCODES 53
extern const uint8_t fz_admin_opcodes[FZ_ADMIN_NUM_OPCODES];

#endif /* SNIC_FUZZ_HOST_H */
