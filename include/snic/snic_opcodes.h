/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snic wire op-codes: the one table of RoCEv2 BTH op-codes the device
 * speaks (IBA 1.4 RC and UD, CNP) plus StRoM's RPC op-codes, with the
 * extended headers each carries after the BTH.
 *
 * StRoM (EuroSys'20, Table 1) numbers RPC Params 0x18 and RPC WRITE
 * First/Middle/Last/Only 0x19-0x1C. IBA 1.5 has since given 0x1C to FLUSH,
 * so where they sit on the wire is one table below (snic_rpc_opcode()),
 * chosen per device. These op-codes are only ever sent on QPs that
 * negotiated them (SNIC_OPF_EXT), never to a stock peer, and carry BTH
 * TVer SNIC_BTH_TVER_EXT, which a standard stack drops at header
 * validation, so a one-sided setting fails cleanly (ABI 2.1).
 */
#ifndef SNIC_OPCODES_H
#define SNIC_OPCODES_H

#include <linux/types.h>

#include "snic_cl.h"

enum snic_opcode {
    /* RC (transport class 000) */
    SNIC_OP_RC_SEND_FIRST = 0x00,
    SNIC_OP_RC_SEND_MIDDLE = 0x01,
    SNIC_OP_RC_SEND_LAST = 0x02,
    SNIC_OP_RC_SEND_LAST_IMM = 0x03,
    SNIC_OP_RC_SEND_ONLY = 0x04,
    SNIC_OP_RC_SEND_ONLY_IMM = 0x05,
    SNIC_OP_RC_WRITE_FIRST = 0x06,
    SNIC_OP_RC_WRITE_MIDDLE = 0x07,
    SNIC_OP_RC_WRITE_LAST = 0x08,
    SNIC_OP_RC_WRITE_LAST_IMM = 0x09,
    SNIC_OP_RC_WRITE_ONLY = 0x0a,
    SNIC_OP_RC_WRITE_ONLY_IMM = 0x0b,
    SNIC_OP_RC_READ_REQUEST = 0x0c,
    SNIC_OP_RC_READ_RESP_FIRST = 0x0d,
    SNIC_OP_RC_READ_RESP_MIDDLE = 0x0e,
    SNIC_OP_RC_READ_RESP_LAST = 0x0f,
    SNIC_OP_RC_READ_RESP_ONLY = 0x10,
    SNIC_OP_RC_ACK = 0x11,
    SNIC_OP_RC_ATOMIC_ACK = 0x12,
    SNIC_OP_RC_CMP_SWAP = 0x13,
    SNIC_OP_RC_FETCH_ADD = 0x14,
    SNIC_OP_RC_SEND_LAST_INV = 0x16,
    SNIC_OP_RC_SEND_ONLY_INV = 0x17,
    /* StRoM RPC (negotiated per QP) */
    SNIC_OP_RC_RPC_PARAMS = 0x18,
    SNIC_OP_RC_RPC_WRITE_FIRST = 0x19,
    SNIC_OP_RC_RPC_WRITE_MIDDLE = 0x1a,
    SNIC_OP_RC_RPC_WRITE_LAST = 0x1b,
    SNIC_OP_RC_RPC_WRITE_ONLY = 0x1c,
    SNIC_OP_RC_RPC_WRITE_ONLY_ALT = 0x1e,   /* SNIC_RPC_OPMAP_IBA15 */
    /* UC (transport class 001): RC's SEND and WRITE op-codes + 0x20 */
    SNIC_OP_UC_SEND_FIRST = 0x20,
    SNIC_OP_UC_SEND_MIDDLE = 0x21,
    SNIC_OP_UC_SEND_LAST = 0x22,
    SNIC_OP_UC_SEND_LAST_IMM = 0x23,
    SNIC_OP_UC_SEND_ONLY = 0x24,
    SNIC_OP_UC_SEND_ONLY_IMM = 0x25,
    SNIC_OP_UC_WRITE_FIRST = 0x26,
    SNIC_OP_UC_WRITE_MIDDLE = 0x27,
    SNIC_OP_UC_WRITE_LAST = 0x28,
    SNIC_OP_UC_WRITE_LAST_IMM = 0x29,
    SNIC_OP_UC_WRITE_ONLY = 0x2a,
    SNIC_OP_UC_WRITE_ONLY_IMM = 0x2b,
    /* UD (transport class 011) */
    SNIC_OP_UD_SEND_ONLY = 0x64,
    SNIC_OP_UD_SEND_ONLY_IMM = 0x65,
    /* RoCEv2 congestion notification packet */
    SNIC_OP_CNP = 0x81,
};

/* Extended headers after the BTH, in wire order of the flags below. */
#define SNIC_HDR_DETH           (1u << 0)   /*  8: Q_Key, source QP */
#define SNIC_HDR_RETH           (1u << 1)   /* 16: VA, R_Key, DMA length */
#define SNIC_HDR_ATOMIC_ETH     (1u << 2)   /* 28: VA, R_Key, swap/add, cmp */
#define SNIC_HDR_AETH           (1u << 3)   /*  4: syndrome, MSN */
#define SNIC_HDR_ATOMIC_ACK_ETH (1u << 4)   /*  8: original remote data */
#define SNIC_HDR_IMMDT          (1u << 5)   /*  4: immediate data */
#define SNIC_HDR_IETH           (1u << 6)   /*  4: R_Key to invalidate */
#define SNIC_HDR_CNP            (1u << 7)   /* 16: reserved zeros */
#define SNIC_HDR_CLETH          (1u << 8)   /* 48: struct snic_cleth */

#define SNIC_DETH_LEN           8
#define SNIC_RETH_LEN           16
#define SNIC_ATOMIC_ETH_LEN     28
#define SNIC_AETH_LEN           4
#define SNIC_ATOMIC_ACK_ETH_LEN 8
#define SNIC_IMMDT_LEN          4
#define SNIC_IETH_LEN           4
#define SNIC_CNP_LEN            16
#define SNIC_BTH_LEN            12
#define SNIC_ICRC_LEN           4

/*
 * AETH syndrome (IBA 9.7.5.1): bits 6:5 say what the response is, bits 4:0
 * carry its value (credit count, RNR timer code or NAK code).
 */
#define SNIC_AETH_KIND(syn)         (((syn) >> 5) & 3)
#define SNIC_AETH_VALUE(syn)        ((syn) & 0x1f)
enum snic_aeth_kind {
    SNIC_AETH_KIND_ACK = 0,
    SNIC_AETH_KIND_RNR = 1,
    SNIC_AETH_KIND_RESERVED = 2,
    SNIC_AETH_KIND_NAK = 3,
};

#define SNIC_AETH_ACK               0x1f    /* ACK, credit count invalid */
#define SNIC_AETH_RNR               0x20    /* | RNR timer code */
#define SNIC_AETH_NAK_SEQ           0x60    /* PSN sequence error */
#define SNIC_AETH_NAK_INV_REQ       0x61    /* invalid request */
#define SNIC_AETH_NAK_REM_ACCESS    0x62    /* remote access error */
#define SNIC_AETH_NAK_REM_OP        0x63    /* remote operational error */

/* Op-code properties */
#define SNIC_OPF_PAYLOAD        (1u << 0)   /* may carry payload */
#define SNIC_OPF_FIRST          (1u << 1)   /* starts a message */
#define SNIC_OPF_LAST           (1u << 2)   /* ends a message */
#define SNIC_OPF_REQUEST        (1u << 3)   /* requester -> responder */
#define SNIC_OPF_RESPONSE       (1u << 4)   /* responder -> requester */
#define SNIC_OPF_EXT            (1u << 5)   /* snic extension: negotiate */
#define SNIC_OPF_UD             (1u << 6)   /* datagram */
#define SNIC_OPF_UC             (1u << 7)   /* unreliable connected */
#define SNIC_OPF_CL             (1u << 8)   /* connectionless: TVer 3 */
#define SNIC_OP_UC_OFFSET       0x20        /* UC op-code = RC's + this */

struct snic_opcode_info {
    const char *name;
    __u16 headers;      /* SNIC_HDR_* */
    __u16 flags;        /* SNIC_OPF_* */
};

/* The table; an op-code with name == NULL is not spoken by snic. */
static inline const struct snic_opcode_info *snic_opcode_info(__u8 op)
{
#define SNIC_OP_(o, n, h, f) [o] = { n, h, f }
#define F_ SNIC_OPF_FIRST
#define L_ SNIC_OPF_LAST
#define P_ SNIC_OPF_PAYLOAD
#define RQ_ SNIC_OPF_REQUEST
#define RS_ SNIC_OPF_RESPONSE
#define UC_ SNIC_OPF_UC
    static const struct snic_opcode_info table[256] = {
        SNIC_OP_(0x00, "RC SEND First", 0, F_ | P_ | RQ_),
        SNIC_OP_(0x01, "RC SEND Middle", 0, P_ | RQ_),
        SNIC_OP_(0x02, "RC SEND Last", 0, L_ | P_ | RQ_),
        SNIC_OP_(0x03, "RC SEND Last Imm", SNIC_HDR_IMMDT, L_ | P_ | RQ_),
        SNIC_OP_(0x04, "RC SEND Only", 0, F_ | L_ | P_ | RQ_),
        SNIC_OP_(0x05, "RC SEND Only Imm", SNIC_HDR_IMMDT,
                 F_ | L_ | P_ | RQ_),
        SNIC_OP_(0x06, "RC WRITE First", SNIC_HDR_RETH, F_ | P_ | RQ_),
        SNIC_OP_(0x07, "RC WRITE Middle", 0, P_ | RQ_),
        SNIC_OP_(0x08, "RC WRITE Last", 0, L_ | P_ | RQ_),
        SNIC_OP_(0x09, "RC WRITE Last Imm", SNIC_HDR_IMMDT, L_ | P_ | RQ_),
        SNIC_OP_(0x0a, "RC WRITE Only", SNIC_HDR_RETH, F_ | L_ | P_ | RQ_),
        SNIC_OP_(0x0b, "RC WRITE Only Imm", SNIC_HDR_RETH | SNIC_HDR_IMMDT,
                 F_ | L_ | P_ | RQ_),
        SNIC_OP_(0x0c, "RC READ Request", SNIC_HDR_RETH, F_ | L_ | RQ_),
        SNIC_OP_(0x0d, "RC READ Response First", SNIC_HDR_AETH,
                 F_ | P_ | RS_),
        SNIC_OP_(0x0e, "RC READ Response Middle", 0, P_ | RS_),
        SNIC_OP_(0x0f, "RC READ Response Last", SNIC_HDR_AETH,
                 L_ | P_ | RS_),
        SNIC_OP_(0x10, "RC READ Response Only", SNIC_HDR_AETH,
                 F_ | L_ | P_ | RS_),
        SNIC_OP_(0x11, "RC Acknowledge", SNIC_HDR_AETH, F_ | L_ | RS_),
        SNIC_OP_(0x12, "RC Atomic Acknowledge",
                 SNIC_HDR_AETH | SNIC_HDR_ATOMIC_ACK_ETH, F_ | L_ | RS_),
        SNIC_OP_(0x13, "RC CmpSwap", SNIC_HDR_ATOMIC_ETH, F_ | L_ | RQ_),
        SNIC_OP_(0x14, "RC FetchAdd", SNIC_HDR_ATOMIC_ETH, F_ | L_ | RQ_),
        SNIC_OP_(0x16, "RC SEND Last Inv", SNIC_HDR_IETH, L_ | P_ | RQ_),
        SNIC_OP_(0x17, "RC SEND Only Inv", SNIC_HDR_IETH,
                 F_ | L_ | P_ | RQ_),
        SNIC_OP_(0x18, "RC RPC Params", SNIC_HDR_RETH,
                 F_ | L_ | P_ | RQ_ | SNIC_OPF_EXT),
        SNIC_OP_(0x19, "RC RPC WRITE First", SNIC_HDR_RETH,
                 F_ | P_ | RQ_ | SNIC_OPF_EXT),
        SNIC_OP_(0x1a, "RC RPC WRITE Middle", 0, P_ | RQ_ | SNIC_OPF_EXT),
        SNIC_OP_(0x1b, "RC RPC WRITE Last", 0,
                 L_ | P_ | RQ_ | SNIC_OPF_EXT),
        SNIC_OP_(0x1c, "RC RPC WRITE Only", SNIC_HDR_RETH,
                 F_ | L_ | P_ | RQ_ | SNIC_OPF_EXT),
        SNIC_OP_(0x1e, "RC RPC WRITE Only (IBA 1.5 map)", SNIC_HDR_RETH,
                 F_ | L_ | P_ | RQ_ | SNIC_OPF_EXT),
        SNIC_OP_(0x20, "UC SEND First", 0, F_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x21, "UC SEND Middle", 0, P_ | RQ_ | UC_),
        SNIC_OP_(0x22, "UC SEND Last", 0, L_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x23, "UC SEND Last Imm", SNIC_HDR_IMMDT,
                 L_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x24, "UC SEND Only", 0, F_ | L_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x25, "UC SEND Only Imm", SNIC_HDR_IMMDT,
                 F_ | L_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x26, "UC WRITE First", SNIC_HDR_RETH, F_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x27, "UC WRITE Middle", 0, P_ | RQ_ | UC_),
        SNIC_OP_(0x28, "UC WRITE Last", 0, L_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x29, "UC WRITE Last Imm", SNIC_HDR_IMMDT,
                 L_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x2a, "UC WRITE Only", SNIC_HDR_RETH,
                 F_ | L_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x2b, "UC WRITE Only Imm", SNIC_HDR_RETH | SNIC_HDR_IMMDT,
                 F_ | L_ | P_ | RQ_ | UC_),
        SNIC_OP_(0x64, "UD SEND Only", SNIC_HDR_DETH,
                 F_ | L_ | P_ | RQ_ | SNIC_OPF_UD),
        SNIC_OP_(0x65, "UD SEND Only Imm", SNIC_HDR_DETH | SNIC_HDR_IMMDT,
                 F_ | L_ | P_ | RQ_ | SNIC_OPF_UD),
        SNIC_OP_(0x81, "CNP", SNIC_HDR_CNP, F_ | L_),
        SNIC_OP_(0xc0, "CL REGISTER", SNIC_HDR_CLETH,
                 F_ | P_ | RQ_ | SNIC_OPF_CL),
        SNIC_OP_(0xc1, "CL WRITE", SNIC_HDR_CLETH, P_ | RQ_ | SNIC_OPF_CL),
        SNIC_OP_(0xc2, "CL ACK", SNIC_HDR_CLETH, RS_ | SNIC_OPF_CL),
        SNIC_OP_(0xc3, "CL NOTIFY", SNIC_HDR_CLETH,
                 L_ | RQ_ | SNIC_OPF_CL),
    };
#undef SNIC_OP_
#undef F_
#undef L_
#undef P_
#undef RQ_
#undef RS_
#undef UC_
    return table[op].name ? &table[op] : 0;
}

/*
 * StRoM's RPC operations and the one table of where they sit on the wire.
 * SNIC_RPC_OPMAP_STROM is the paper's numbering (Table 1); IBA15 moves
 * RPC WRITE Only off 0x1C, which IBA 1.5 gave to FLUSH. A device uses one
 * map (its rpc-opcodes property, QUERY_DEVICE rpc_opmap); both ends of a
 * connection must use the same. Under a map, a wire op-code of the other
 * map is not an RPC: it is refused like any unsupported request.
 */
enum snic_rpc_op {
    SNIC_RPC_PARAMS = 0,        /* RETH + params: one packet */
    SNIC_RPC_WRITE_FIRST = 1,   /* RETH + payload */
    SNIC_RPC_WRITE_MIDDLE = 2,
    SNIC_RPC_WRITE_LAST = 3,
    SNIC_RPC_WRITE_ONLY = 4,    /* RETH + payload: one packet */
    SNIC_RPC_OPS = 5,
};

enum snic_rpc_opmap {
    SNIC_RPC_OPMAP_STROM = 0,
    SNIC_RPC_OPMAP_IBA15 = 1,
    SNIC_RPC_OPMAPS = 2,
};

/* BTH TVer of every packet of an SNIC_OPF_EXT op-code (0 on all others) */
#define SNIC_BTH_TVER_EXT       1

/*
 * The selective-transport extension (Tonic programs SACK, IRN, NDP; ABI
 * 3.1): on a QP whose both ends selected such a program, its RC SEND,
 * WRITE and ACK packets carry BTH TVer SNIC_BTH_TVER_XPORT and this
 * header right after the BTH, before the op-code's own headers. Data
 * packets say where they go (WRITE: R_Key and the address of their first
 * byte; SEND: message number and offset), so the responder places each
 * as it arrives; ACKs carry one SACK block or a NACK. A message number
 * (ABI 3.4; SRNIC's SSN) counts the QP's messages that take a receive
 * WQE - SEND, SEND with Immediate or Invalidate, RDMA WRITE with
 * Immediate - from 0 at RTS: message n takes the responder's n-th. A DCTCP QP (ABI
 * 3.2) carries it on its ACKs only: the running count of CE-marked data
 * packets its responder received (ECE). An SRNIC QP's READ responses
 * (ABI 3.6) echo their request (SRNIC 4.4.1): its PSN in msg and the
 * response's PSN_OFFSET from it in offset, so the requester places one
 * that arrives ahead of the expected response at once; its READ requests,
 * and ACKs it sends the responder of them, carry SNIC_XETH_F_RESP with
 * msg its lACK (every response below it arrived): the responder keeps at
 * most its window of responses in flight past it. Since ABI 3.12 a READ
 * request names its WQE's SQ index in sq_index and every response echoes
 * it, with va the address its data was read from: the requester reads
 * that one WQE to place the response, whatever is in flight before it.
 * Little-endian.
 */
#define SNIC_BTH_TVER_XPORT     2
#define SNIC_XETH_LEN           32
#define SNIC_XETH_F_PLACE       (1u << 0)   /* WRITE: rkey, va valid */
#define SNIC_XETH_F_MSG         (1u << 1)   /* SEND, WRITE_IMM: msg, off */
#define SNIC_XETH_F_SACK        (1u << 2)   /* ACK: [sack_lo, sack_hi) */
#define SNIC_XETH_F_NACK        (1u << 3)   /* ACK: PSN sack_lo was lost */
#define SNIC_XETH_F_PULL        (1u << 4)   /* ACK: pull counter in msg */
#define SNIC_XETH_F_TRIMMED     (1u << 5)   /* NACK: it arrived trimmed */
#define SNIC_XETH_F_ECE         (1u << 6)   /* ACK: CE count in offset */
#define SNIC_XETH_F_RESP        (1u << 7)   /* READ resp: msg req PSN, off; */
                                            /* READ req, ACK: msg lACK */

struct snic_xeth {
    __u8 flags;             /* SNIC_XETH_F_* */
    __u8 rsvd;
    __le16 sq_index;        /* RESP READ req, resp: the READ's SQ index */
    __le32 rkey;            /* PLACE: the message's R_Key */
    __le64 va;              /* PLACE: where this packet's payload goes; */
                            /* RESP READ resp: where its data came from */
    __le32 msg;             /* MSG: message number; PULL: counter; */
                            /* RESP: the READ request's PSN */
    __le32 offset;          /* MSG: byte offset; ECE: CE-marked count; */
                            /* RESP: PSN_OFFSET (response PSN - msg) */
    __le32 sack_lo;         /* SACK: first PSN of the block; NACK: PSN */
    __le32 sack_hi;         /* SACK: the PSN after the block */
};
_Static_assert(sizeof(struct snic_xeth) == SNIC_XETH_LEN, "xeth size");

static inline __u8 snic_rpc_opcode(unsigned int map, enum snic_rpc_op op)
{
    static const __u8 table[SNIC_RPC_OPMAPS][SNIC_RPC_OPS] = {
        [SNIC_RPC_OPMAP_STROM] = { 0x18, 0x19, 0x1a, 0x1b, 0x1c },
        [SNIC_RPC_OPMAP_IBA15] = { 0x18, 0x19, 0x1a, 0x1b, 0x1e },
    };

    return table[map < SNIC_RPC_OPMAPS ? map : 0][op];
}

/* The RPC operation the wire op-code is under 'map', or -1. */
static inline int snic_rpc_op_of(unsigned int map, __u8 opcode)
{
    int op;

    for (op = 0; op < SNIC_RPC_OPS; op++) {
        if (snic_rpc_opcode(map, (enum snic_rpc_op)op) == opcode) {
            return op;
        }
    }
    return -1;
}

/* Bytes of extended headers an op-code carries after the BTH. */
static inline unsigned snic_opcode_hdr_len(__u16 headers)
{
    return (headers & SNIC_HDR_DETH ? SNIC_DETH_LEN : 0) +
           (headers & SNIC_HDR_RETH ? SNIC_RETH_LEN : 0) +
           (headers & SNIC_HDR_ATOMIC_ETH ? SNIC_ATOMIC_ETH_LEN : 0) +
           (headers & SNIC_HDR_AETH ? SNIC_AETH_LEN : 0) +
           (headers & SNIC_HDR_ATOMIC_ACK_ETH ? SNIC_ATOMIC_ACK_ETH_LEN : 0) +
           (headers & SNIC_HDR_IMMDT ? SNIC_IMMDT_LEN : 0) +
           (headers & SNIC_HDR_IETH ? SNIC_IETH_LEN : 0) +
           (headers & SNIC_HDR_CNP ? SNIC_CNP_LEN : 0) +
           (headers & SNIC_HDR_CLETH ? SNIC_CLETH_LEN : 0);
}

#endif /* SNIC_OPCODES_H */
