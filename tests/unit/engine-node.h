/*
 * Test harness shared by the engine tests and benchmark: a "node" is one
 * device core on the simulated wire with one PD, EQ, CQ, QP and a 4 MiB
 * registered buffer, driven through its admin queue, doorbells and rings
 * like a driver would.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_TESTS_ENGINE_NODE_H
#define SNIC_TESTS_ENGINE_NODE_H

#include "core_int.h"
#include "fake-host.h"
#include "sim.h"

#define PBL_EQ      (FAKE_MEM_BASE + 0x20000)
#define PBL_CQ      (FAKE_MEM_BASE + 0x20100)
#define PBL_SQ      (FAKE_MEM_BASE + 0x20200)
#define PBL_RQ      (FAKE_MEM_BASE + 0x20300)
#define PBL_SQ2     (FAKE_MEM_BASE + 0x20400)
#define PBL_SRQ     (FAKE_MEM_BASE + 0x20500)
#define RDB         (FAKE_MEM_BASE + 0x20600)   /* an RC QP's RDB (512 B) */
#define RDB2        (FAKE_MEM_BASE + 0x20800)   /* ... node_add_qp()'s */
#define PBL_RQ2     (FAKE_MEM_BASE + 0x20a00)   /* node_add_qp_rq()'s RQ */
#define RQ2_RING    (FAKE_MEM_BASE + 0x520000)  /* ... <= 64 KiB (log2 10) */
#define PBL_MR      (FAKE_MEM_BASE + 0x22000)   /* 1024 entries */
#define RINGS       (FAKE_MEM_BASE + 0x30000)   /* 29 pages of queues: */
#define EQ_RING     RINGS                       /* 1 page */
#define CQ_RING     (RINGS + 0x1000)            /* 8 pages */
#define SQ_RING     (RINGS + 0x9000)            /* 16 pages */
#define RQ_RING     (RINGS + 0x19000)           /* 4 pages */
#define BUF         (FAKE_MEM_BASE + 0x100000)  /* 4 MiB, registered */
#define BUF_LEN     (4u << 20)
#define SQ2_RING    (FAKE_MEM_BASE + 0x500000)  /* 16 pages: node_add_qp() */
#define SRQ_RING    (FAKE_MEM_BASE + 0x510000)  /* 4 pages */
/* node_add_ctx()'s CQ and SRQ */
#define PBL_CQ2     (FAKE_MEM_BASE + 0x20c00)
#define PBL_SRQ2    (FAKE_MEM_BASE + 0x20d00)
#define CQ2_RING    (FAKE_MEM_BASE + 0x540000)  /* 8 pages */
#define SRQ2_RING   (FAKE_MEM_BASE + 0x548000)  /* 4 pages */
#define SRQ_LOG2    8
#define EQ_LOG2     4
#define CQ_LOG2     10
#define SQ_LOG2     8
#define RQ_LOG2     8

typedef struct Node {
    FakeHost *h;
    uint64_t pdn, eqn, cqn, qpn;
    uint32_t lkey;
    uint32_t sq_pi, rq_pi, cq_ci;
    uint64_t sq_ring;           /* its SQ: SQ_RING, or SQ2_RING */
    uint8_t sq_log2;            /* ... of 2^sq_log2 WQEs (SQ_LOG2) */
    uint64_t rq_ring;           /* its RQ: RQ_RING, or RQ2_RING */
    uint8_t rq_log2;            /* ... of 2^rq_log2 WQEs */
    uint64_t rdb;               /* its RDB: RDB, or RDB2; 0 unless RC */
    uint64_t srqn;              /* the device's SRQ (node_create_srq()) */
    uint32_t srq_pi;
    uint64_t cq_ring, srq_ring; /* CQ_RING, SRQ_RING; node_add_ctx(): 2 */
    uint8_t ip;                 /* 10.0.0.ip */
    uint16_t ctx;               /* owning context (doorbell page); 0 = kernel */
    uint8_t type;               /* of its QP: SNIC_QPT_* */
} Node;

/* Run an admin command that must succeed; its result. */
uint64_t node_admin_ok(FakeHost *h, struct snic_admin_cmd *cmd);

/* A page list of n contiguous 4 KiB pages from 'first'. */
void node_pbl(FakeHost *h, uint64_t at, uint64_t first, unsigned n);

/*
 * A QP of n's device, PD and CQ in INIT with an SQ of 2^sq_log2 WQEs
 * through the page list at 'pbl' and n's RQ; its QPN.
 */
uint32_t node_qp_in_init(Node *n, uint64_t pbl, uint8_t sq_log2);

/* A signaled zero-length RDMA WRITE WQE at 'slot' (wr_id as given) */
void node_write_wqe_at(FakeHost *h, uint64_t slot, uint64_t wr_id);

/* MODIFY_QP of 'qpn' to ERR posted, not waited for: the next run does it */
void node_post_to_err(Node *n, uint32_t qpn);
/* ... to 'state' (one at a time: its attributes sit at one place) */
void node_post_to_state(Node *n, uint32_t qpn, uint32_t state);

/*
 * Node 10.0.0.ip with a QP of 'type' (SNIC_QPT_*); node_init: RC. With
 * sim NULL the node is alone: its frames collect in n->h->frames and
 * its clock moves only when the test says.
 */
void node_init_type(Node *n, SnicSim *sim, uint8_t ip, uint8_t type);
/* ... with PD, CQ and QP owned by context 'ctx' (a user process's page) */
void node_init_ctx(Node *n, SnicSim *sim, uint8_t ip, uint8_t type,
                   uint16_t ctx);
/*
 * ... on the given host (fake_host_new_cfg/_timed/_model: its MAC, its
 * timing), which it then owns
 */
void node_init_host(Node *n, FakeHost *h, SnicSim *sim, uint8_t ip,
                    uint8_t type, uint16_t ctx);
void node_init(Node *n, SnicSim *sim, uint8_t ip);
/* A node's device: its configuration and its NIC timing model (all 0: none) */
typedef struct NodeDev {
    SnicCoreConfig cfg;
    SnicSimNicTiming timing;
} NodeDev;

/*
 * The port speed (link-speed-mbps) of a device on 'link': its bandwidth,
 * or 0 (the default) on an unlimited link
 */
uint32_t node_link_mbps(const SnicSimLinkConfig *link);

/* ... an RC node with this device (NULL: the defaults) */
void node_init_dev(Node *n, SnicSim *sim, uint8_t ip, const NodeDev *dev);
/* ... with a QP of 'type' */
void node_init_dev_type(Node *n, SnicSim *sim, uint8_t ip, uint8_t type,
                        const NodeDev *dev);

/*
 * An SRQ of 2^SRQ_LOG2 WQEs at SRQ_RING for the node's PD and context
 * (limit 0: not armed); sets n->srqn.
 */
void node_create_srq(Node *n, uint32_t limit);
/* Post one single-SGE receive WQE (lkey) to the SRQ and ring it. */
void node_post_srq_recv(Node *n, uint64_t wr_id, uint64_t addr, uint32_t len,
                        uint32_t lkey);
/*
 * q: a second QP of n's type on n's device, PD and CQ, with its own SQ
 * (SQ2_RING) and n's SRQ for receive WQEs. Poll completions through n.
 */
void node_add_qp(Node *q, const Node *n);
/*
 * ... with its SQ (16 pages), page list and RDB in NODE_QP_AREA bytes of
 * n's memory at 'area' (4 KiB aligned, e.g. past FAKE_MEM_SIZE after
 * fake_host_grow): as many QPs with sends of their own as areas
 */
#define NODE_QP_AREA    0x11000
void node_add_qp_at(Node *q, const Node *n, uint64_t area);
/*
 * ... with an SQ of 2^sq_log2 WQEs (SNIC_SQ_WQE_SIZE << sq_log2 bytes
 * from area + 4 KiB on, its page list at area: sq_log2 up to 11)
 */
void node_add_qp_sq_at(Node *q, const Node *n, uint64_t area,
                       uint8_t sq_log2);
/* ... with an RQ of its own instead, 2^rq_log2 WQEs (at most 1024) */
void node_add_qp_rq(Node *q, const Node *n, uint8_t rq_log2);
/*
 * q: a QP of n's type on n's device owned by another context, 'ctx' (a
 * second process): its own PD, MR over BUF, CQ (CQ2_RING) and SRQ
 * (SRQ2_RING, taken by the QP) on n's EQ. Poll its completions through q.
 */
void node_add_ctx(Node *q, const Node *n, uint16_t ctx);

/* The port's Ethernet MTU (SET_MTU); nodes start with 9000. */
void node_set_mtu(Node *n, uint32_t mtu);

/* MODIFY_QP of the node's QP with 'a' under 'mask'. */
void node_modify(Node *n, uint32_t mask, const struct snic_qp_attr *a);

/* SET_QP_TRANSPORT on the node's QP (before node_connect): its status */
uint16_t node_set_transport(Node *n, uint8_t program, uint8_t ack_every);

/* SET_GID: the port's address 10.0.0.ip (IPv4-mapped), as drivers list it */
void node_set_gid(FakeHost *h, uint8_t ip);

/* The RoCE v2 path from 10.0.0.ip to 10.0.0.peer_ip at peer_h's MAC */
void node_av(struct snic_av *av, uint8_t ip, FakeHost *peer_h,
             uint8_t peer_ip);

/* node_connect()'s steps: RESET -> INIT -> RTR (a responder), -> RTS */
void node_connect_rtr(Node *n, const Node *peer, uint8_t mtu);
void node_connect_rts(Node *n, uint8_t retry_cnt, uint8_t rnr_retry);
/* ... with local ACK timeout 'timeout' (4.096 us << timeout; the above: 8) */
void node_connect_rts_timeout(Node *n, uint8_t retry_cnt, uint8_t rnr_retry,
                              uint8_t timeout);

/* Connect n to peer (at peer's MAC): RESET -> INIT -> RTR -> RTS. */
void node_connect(Node *n, const Node *peer, uint8_t mtu,
                  uint8_t retry_cnt, uint8_t rnr_retry);

/* UD or GSI QP: RESET -> INIT (Q_Key) -> RTR -> RTS. */
void node_ud_up(Node *n, uint32_t qkey, bool gsi);

/* Post one signaled single-SGE send WQE and ring the SQ doorbell. */
/* Write a send WQE at the SQ's producer index and ring the doorbell */
void node_post_wqe(Node *n, const struct snic_sq_wqe *w);
void node_post_send(Node *n, uint64_t wr_id, uint8_t opcode, uint64_t addr,
                    uint32_t len, uint64_t raddr, uint32_t rkey,
                    uint32_t imm, uint32_t lkey);

/* Post one single-SGE receive WQE (the node's MR) and ring the RQ. */
void node_post_recv(Node *n, uint64_t wr_id, uint64_t addr, uint32_t len);

/* Post an atomic whose 8-byte result lands at 'result'. */
void node_post_atomic(Node *n, uint64_t wr_id, uint8_t opcode,
                      uint64_t result, uint64_t raddr, uint32_t rkey,
                      uint64_t compare_add, uint64_t swap);

/*
 * A frame from the wire, through the port's receive buffer into the
 * engine at once, before the engine runs (and transmits) anything else.
 */
void node_inject(Node *to, const void *frame, size_t len);

/* Little-endian 64-bit access to node memory. */
uint64_t node_rd64(Node *n, uint64_t addr);
void node_wr64(Node *n, uint64_t addr, uint64_t v);

/* Next completion, if any. */
bool node_poll_cq(Node *n, struct snic_cqe *c);

/* Fill [addr, addr + len) with a pattern derived from 'seed'. */
void node_fill(Node *n, uint64_t addr, uint32_t len, uint32_t seed);

/* Two connected RC nodes (10.0.0.1 and .2) on 'link'. */
void node_pair_new(SnicSim *sim, Node *a, Node *b,
                   const SnicSimLinkConfig *link, uint8_t mtu,
                   uint8_t retry_cnt, uint8_t rnr_retry);

/* Free both nodes and the simulator. */
void node_pair_free(SnicSim *sim, Node *a, Node *b);

#endif
