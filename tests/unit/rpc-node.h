/*
 * StRoM RPC helpers for the two-node harness (engine-node.h), shared by
 * the RPC and kernel tests and the StRoM reproduction (tests/bench):
 * enabling RPC on a node's QP, deploying kernels, posting RPCs, taking
 * their completions, and laying out the remote data structures the
 * traversal and consistency kernels read.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_TESTS_RPC_NODE_H
#define SNIC_TESTS_RPC_NODE_H

#include "engine-node.h"
#include "snic/snic_rpc.h"

/* SET_QP_RPC on the node's QP: the admin status */
uint16_t rpc_set(Node *n, uint32_t flags);
/*
 * Two connected RC nodes (10.0.0.1 and .2) whose QPs got RPC flags before
 * RTR; dev_a/dev_b (NULL: defaults) are their devices.
 */
void rpc_pair_new(SnicSim *sim, Node *a, Node *b,
                  const SnicSimLinkConfig *link, uint8_t mtu,
                  uint32_t flags_a, uint32_t flags_b,
                  const NodeDev *dev_a, const NodeDev *dev_b);

/* DEPLOY_KERNEL / UNDEPLOY_KERNEL for the node's context: admin status */
uint16_t rpc_deploy(Node *n, uint64_t rpc_opcode, uint16_t kernel_id);
uint16_t rpc_undeploy(Node *n, uint64_t rpc_opcode);

typedef struct RpcReq {
    uint8_t wr;                 /* SNIC_WR_RPC or SNIC_WR_RPC_WRITE */
    uint64_t rpc_opcode;
    uint32_t rkey;              /* the responder's memory */
    const void *params;         /* inline if <= SNIC_MAX_INLINE_DATA ... */
    uint64_t src;               /* ... else from here, in the node's MR */
    uint32_t lkey;              /* ... or in this one's (0: the node's) */
    uint32_t len;
    uint64_t resp_addr;         /* in the node's MR ... */
    uint32_t resp_rkey;         /* ... (0: the node's R_Key) */
    uint32_t resp_len;
    uint32_t tag;
} RpcReq;

void rpc_post(Node *n, uint64_t wr_id, const RpcReq *r);

/* Completions of a requester, sorted out */
typedef struct RpcCqes {
    unsigned sends;             /* send CQEs (SNIC_WC_RPC and others) */
    unsigned send_errors;
    uint8_t send_status;        /* the last failed one's */
    unsigned answers;           /* receive CQEs: answers and fallbacks */
    struct snic_cqe answer[256];
} RpcCqes;

/* Take every new completion of the node into q. */
void rpc_drain(Node *n, RpcCqes *q);
/*
 * Run the simulator until the node has 'answers' receive CQEs in q (or
 * 'max_events' ran); true if they came.
 */
bool rpc_run_until_answers(SnicSim *sim, Node *n, RpcCqes *q,
                           unsigned answers, uint64_t max_events);

static inline uint32_t rpc_cqe_status(const struct snic_cqe *c)
{
    return SNIC_RPC_IMM_STATUS(GUINT32_FROM_BE(c->imm));
}

static inline uint32_t rpc_cqe_tag(const struct snic_cqe *c)
{
    return SNIC_RPC_IMM_TAG(GUINT32_FROM_BE(c->imm));
}

/* ---- remote data structures in a node's memory ---- */

/*
 * A linked list of n elements at 'at' (64 bytes apart): element i is
 * [key 0][next 2][value pointer 4] with key keys[i], its value of
 * value_size bytes at values + i * value_size filled from seed + i.
 * The last element's next is 0.
 */
void rpc_build_list(Node *n, uint64_t at, const uint64_t *keys, unsigned len,
                    uint64_t values, uint32_t value_size, uint32_t seed);
/* Parameters that look key up in such a list. */
struct snic_traversal_params rpc_list_params(uint64_t head, uint64_t key,
                                             uint32_t value_size);

/* An object of size bytes (checksum included) filled from seed. */
void rpc_build_object(Node *n, uint64_t at, uint32_t size, uint32_t seed);

#endif
