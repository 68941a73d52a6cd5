/*
 * snic core: the engine's transmit (xmit.c), a shared layer of the
 * engine: SRNIC, StRoM and the transport's credit engine send through it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_XMIT_H
#define SNIC_CORE_XMIT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
struct SnicPkt;
struct SnicWireAddr;
struct snic_av;

/* Is an address vector's source one of the port's addresses? */
bool snic_av_source_owned(SnicCore *c, const struct snic_av *av);
/* The addresses of a packet on the path an address vector describes */
void snic_rdma_av_addr(SnicCore *c, const struct snic_av *av, uint32_t lqpn,
                       uint32_t rqpn, struct SnicWireAddr *a);
/* ... of an RC or UC QP's packet to its connected peer */
void snic_rdma_fill_addr(SnicCore *c, SnicQp *qp, struct SnicPkt *p);
/* host_bytes: of the payload, read from host memory (SnicHostOps.tx_frame) */
void snic_rdma_xmit(SnicCore *c, const struct SnicPkt *p, uint32_t host_bytes);
/*
 * Where to read the payload of 'p' (its headers and payload_len set) so
 * that snic_rdma_xmit() sends it without copying it: its place in the
 * frame the engine builds next; the staging buffer if it would not fit.
 * Valid until the next snic_rdma_xmit().
 */
uint8_t *snic_rdma_payload_buf(SnicCore *c, const struct SnicPkt *p);
/* The RC op-code of packet 'seg' of 'nseg' of a SEND or WRITE message */
uint8_t snic_seg_opcode(uint8_t wr, uint32_t seg, uint32_t nseg);

#define SNIC_ACKREQ_EVERY       32      /* AckReq at least this often */

/*
 * An RC SEND or RDMA WRITE (with immediate) message, as its packets
 * carry it: the requester's WQEs and StRoM's answers alike. A numbered
 * message (the SQ's: SnicOooMsg counts the ones taking a receive WQE)
 * carries the selective-transport extension on a QP whose program speaks
 * it; StRoM's answers are not numbered among the QP's messages, so they
 * go without it.
 */
typedef struct SnicRcMsg {
    uint8_t wr;                 /* SNIC_WR_SEND*, SNIC_WR_RDMA_WRITE* */
    uint8_t flags;              /* SNIC_WQE_SOLICITED: SE on its Last */
    bool numbered;
    uint32_t msg;               /* its number, if it takes a receive WQE */
    uint32_t len;               /* message bytes */
    uint32_t npsn;              /* its packets */
    uint64_t va;                /* RETH: where the message goes */
    uint32_t rkey;
    uint32_t imm;               /* immediate data or R_Key to invalidate */
} SnicRcMsg;

/*
 * The one builder of those packets: segment 'seg' of 'm', payload 'len'
 * bytes, on a packet already addressed with its PSN
 * (snic_rdma_fill_addr()): its op-code, RETH, immediate data, SE on a
 * solicited Last, AckReq on the Last, every SNIC_ACKREQ_EVERY PSNs and
 * when 'ackreq' asks, and the extension saying where it goes.
 */
void snic_rc_segment(const SnicQp *qp, const SnicRcMsg *m, uint32_t seg,
                     const uint8_t *payload, uint32_t len, bool ackreq,
                     struct SnicPkt *p);

#endif /* SNIC_CORE_XMIT_H */
