/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snic StRoM RPCs and NIC kernels (ABI 2.1, SNIC_CAP_RPC; the shuffle 3.9):
 * the formats the device, the driver, the provider and the applications
 * share.
 *
 * An RPC (StRoM, EuroSys'20, section 5.1) is one RC message with an RPC
 * op-code (snic_opcodes.h): RPC Params (one packet) or RPC WRITE
 * First/Middle/Last/Only. Its RETH carries the RPC op-code that selects
 * the kernel (address field), the R_Key of the responder's memory the
 * kernel may use, and the length of the parameters or payload; the
 * message starts with struct snic_rpc_hdr, which names the requester's
 * response buffer. The responding device answers with one RDMA WRITE with
 * immediate into that buffer, which it sends itself on the same QP: the
 * immediate holds the status and the requester's tag (SNIC_RPC_IMM), so
 * the requester's application sees an ordinary receive completion
 * (SNIC_WC_RECV_RDMA_WITH_IMM, byte_len = the response's length). Errors
 * (no kernel, a protection error, ...) answer the same way with no data.
 *
 * Both ends enable RPC on their QP (SNIC_ADMIN_SET_QP_RPC) before RTR; a
 * QP without it never sends an RPC op-code and refuses one with an
 * invalid request NAK. Kernels are deployed per context
 * (SNIC_ADMIN_DEPLOY_KERNEL); an RPC op-code with no kernel goes to the
 * receive queue of a QP with SNIC_QP_RPC_FALLBACK (SNIC_WC_RECV_RPC, the
 * buffer starting with struct snic_rpc_recv), else gets SNIC_RPC_NO_KERNEL.
 *
 * Every struct here is little-endian and fixed-size, like every other
 * struct of include/snic/ (the headers of the wire, BTH and RETH, stay
 * big-endian).
 */
#ifndef SNIC_RPC_H
#define SNIC_RPC_H

#include <linux/types.h>

/*
 * The first bytes of every RPC message, before its parameters (RPC Params)
 * or payload (RPC WRITE). Built by the requesting device from the WQE.
 */
struct snic_rpc_hdr {
    __le64 resp_addr;   /* requester's response buffer (VA in its MR) */
    __le32 resp_rkey;   /* its R_Key: needs REMOTE_WRITE on that QP */
    __le32 resp_len;    /* its capacity: a longer answer is an error */
    __le32 tag;         /* bits 23:0 return in the response immediate */
    __le32 rsvd;        /* zero */
};
_Static_assert(sizeof(struct snic_rpc_hdr) == 24, "rpc_hdr size");

/* RPC Params: header + parameters fit one packet of the path MTU. */
#define SNIC_RPC_HDR_LEN            24

/*
 * What a fallback handler receives (SNIC_WC_RECV_RPC): the receive buffer
 * starts with this, followed by param_len bytes of parameters or payload.
 * The handler answers with an RDMA WRITE with immediate SNIC_RPC_IMM(status,
 * hdr.tag) to hdr.resp_addr under hdr.resp_rkey (at most hdr.resp_len).
 */
struct snic_rpc_recv {
    __le64 rpc_opcode;  /* RETH address field */
    __le32 rkey;        /* RETH R_Key: this side's memory it names */
    __le32 param_len;   /* bytes after this struct */
    struct snic_rpc_hdr hdr;
};
_Static_assert(sizeof(struct snic_rpc_recv) == 40, "rpc_recv size");

/*
 * Response status: bits 31:24 of the response's immediate (host order);
 * bits 23:0 are the request's tag.
 */
enum snic_rpc_status {
    SNIC_RPC_OK = 0,
    SNIC_RPC_NO_KERNEL = 1,     /* none deployed, no fallback handler */
    SNIC_RPC_BAD_PARAMS = 2,    /* parameters malformed for the kernel */
    SNIC_RPC_PROT_ERR = 3,      /* an access outside the R_Key's MR, of
                                 * another PD, or without the right */
    SNIC_RPC_NOT_FOUND = 4,     /* traversal: no element matched */
    SNIC_RPC_STEP_LIMIT = 5,    /* the walk exceeded the device's bound
                                 * (e.g. a cycle) */
    SNIC_RPC_CHECKSUM = 6,      /* consistency: still inconsistent after
                                 * the re-reads */
    SNIC_RPC_RESP_TOO_LONG = 7, /* answer longer than resp_len */
    SNIC_RPC_DMA_ERR = 8,       /* host memory behind the MR unreadable */
    SNIC_RPC_PARTITION_FULL = 9,    /* shuffle: a tuple found its partition
                                     * full; the answer carries the fills */
};

#define SNIC_RPC_IMM(status, tag) \
    (((__u32)(status) << 24) | ((__u32)(tag) & 0xffffffu))
#define SNIC_RPC_IMM_STATUS(imm)    ((__u32)(imm) >> 24)
#define SNIC_RPC_IMM_TAG(imm)       ((__u32)(imm) & 0xffffffu)

/*
 * Built-in kernels (fixed ids; bit n of QUERY_DEVICE builtin_kernels).
 * 4 (HyperLogLog) is kept for StRoM's other kernel.
 */
enum snic_kernel_id {
    SNIC_KERNEL_TRAVERSAL = 1,
    SNIC_KERNEL_CONSISTENCY = 2,
    SNIC_KERNEL_SHUFFLE = 3,
};

/* ---- traversal kernel (StRoM section 6.2, Table 2) ---- */

/*
 * Element fields are 4-byte words of an element of up to 64 bytes; keys
 * and pointers are 8 bytes (little-endian), so a field at word w takes
 * words w and w + 1 (w <= 14). Pointers are addresses in the MR of the
 * RPC's R_Key; 0 is the null pointer.
 */
enum snic_trav_predicate {
    SNIC_TRAV_EQUAL = 0,            /* element key == key */
    SNIC_TRAV_LESS_THAN = 1,        /* element key < key */
    SNIC_TRAV_GREATER_THAN = 2,     /* element key > key */
    SNIC_TRAV_NOT_EQUAL = 3,        /* element key != key */
    /* snic: for route_predicate */
    SNIC_TRAV_LESS_EQUAL = 4,       /* element key <= key */
    SNIC_TRAV_GREATER_EQUAL = 5,    /* element key >= key */
    SNIC_TRAV_PREDICATES = 6,
};

#define SNIC_TRAV_RELATIVE      (1u << 0)   /* isRelativePosition */
#define SNIC_TRAV_NEXT_VALID    (1u << 1)   /* nextElementPtrValid */
#define SNIC_TRAV_FLAGS_ALL     (SNIC_TRAV_RELATIVE | SNIC_TRAV_NEXT_VALID)

/*
 * One element visited (StRoM's kernel, all fields from Table 2):
 *  1. the key slots of key_mask, lowest word first: the first whose key
 *     satisfies 'predicate' matches, and the value pointer is at word
 *     value_ptr_pos (plus the slot's word with SNIC_TRAV_RELATIVE); the
 *     kernel answers with value_size bytes read there;
 *  2. else (snic's ordered search, off while route_mask is 0) the first
 *     slot of route_mask whose key satisfies route_predicate routes the
 *     walk to the pointer at its word + route_ptr_offset;
 *  3. else with SNIC_TRAV_NEXT_VALID the walk goes on at the pointer at
 *     word next_ptr_pos; a null pointer, or no SNIC_TRAV_NEXT_VALID,
 *     answers SNIC_RPC_NOT_FOUND.
 * Linked lists and hash chains use 1 and 3, a Pilaf-style hash table
 * entry with several buckets 1 with relative positions; binary and
 * B-trees and skip lists (with their forward keys kept in each node) add
 * 2: see hw/snic/core/strom/traversal.c for the layouts.
 */
struct snic_traversal_params {
    __le64 remote_address;  /* remoteAddress: the first element */
    __le64 key;             /* key: the lookup key */
    __le32 value_size;      /* valueSize: bytes of the value answered */
    __le16 key_mask;        /* keyMask: bit w = a key at word w */
    __u8 predicate;         /* predicateOpCode: enum snic_trav_predicate,
                             * one of the first four */
    __u8 value_ptr_pos;     /* valuePtrPosition (words) */
    __u8 flags;             /* SNIC_TRAV_*: isRelativePosition,
                             * nextElementPtrValid */
    __u8 next_ptr_pos;      /* nextElementPtrPosition (words) */
    __le16 route_mask;      /* snic: bit w = a routing key at word w */
    __u8 route_predicate;   /* snic: enum snic_trav_predicate */
    __u8 route_ptr_offset;  /* snic: words from a routing key to its
                             * pointer */
    __le16 rsvd;            /* zero */
};
_Static_assert(sizeof(struct snic_traversal_params) == 32,
               "traversal_params size");

/* ---- consistency kernel (StRoM section 6.3) ---- */

/*
 * The object at remote_address is object_size bytes whose last 8 hold the
 * CRC-64/XZ (little-endian) of the bytes before them, as a Pilaf-style
 * store keeps it. The kernel reads the object, checks it, reads it again
 * on a mismatch (at most max_retries times), and answers with the whole
 * object or SNIC_RPC_CHECKSUM.
 */
#define SNIC_CONSISTENCY_MAX_OBJECT     16384
#define SNIC_CONSISTENCY_MAX_RETRIES    15

struct snic_consistency_params {
    __le64 remote_address;
    __le32 object_size;     /* 9 .. SNIC_CONSISTENCY_MAX_OBJECT */
    __le16 max_retries;     /* 0 .. SNIC_CONSISTENCY_MAX_RETRIES */
    __le16 rsvd;            /* zero */
};
_Static_assert(sizeof(struct snic_consistency_params) == 16,
               "consistency_params size");

/* ---- shuffle kernel (StRoM section 6.4) ---- */

/*
 * Radix partitioning of the tuples an RPC WRITE carries into partitions
 * of the responder's memory. The payload is this struct, then the
 * histogram (2^bits struct snic_shuffle_part), then the tuples: 8-byte
 * little-endian values, tuple v going to partition
 * (v >> shift) & (2^bits - 1), appended in payload order. Every partition
 * lies in the region of the RPC's R_Key with REMOTE_WRITE, 8-byte aligned,
 * no two overlapping, and the bytes after the histogram are a whole
 * number of tuples; otherwise the answer is SNIC_RPC_BAD_PARAMS or
 * SNIC_RPC_PROT_ERR and nothing is written. The answer is the fill of
 * each partition (__le32 tuples, 4 * 2^bits bytes: resp_len at least
 * that); a tuple whose partition is full ends the RPC: the tuples before
 * it are written, none after it, and the answer SNIC_RPC_PARTITION_FULL
 * carries the fills.
 */
#define SNIC_SHUFFLE_MAX_BITS       10
#define SNIC_SHUFFLE_MAX_SHIFT      56
#define SNIC_SHUFFLE_BUF_TUPLES     16  /* a partition's on-chip buffer */

struct snic_shuffle_params {
    __u8 bits;              /* 0..SNIC_SHUFFLE_MAX_BITS: 2^bits partitions */
    __u8 shift;             /* 0..SNIC_SHUFFLE_MAX_SHIFT */
    __le16 rsvd0;           /* zero */
    __le32 rsvd1;           /* zero */
};
_Static_assert(sizeof(struct snic_shuffle_params) == 8,
               "shuffle_params size");

/* One partition of the histogram: StRoM's location and size */
struct snic_shuffle_part {
    __le64 base;            /* its first tuple, 8-byte aligned */
    __le32 capacity;        /* tuples it holds */
    __le32 rsvd;            /* zero */
};
_Static_assert(sizeof(struct snic_shuffle_part) == 16, "shuffle_part size");

#endif /* SNIC_RPC_H */
