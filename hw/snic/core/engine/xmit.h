/*
 * snic core: the engine's transmit (xmit.c), a shared layer of the
 * engine: SRNIC, StRoM and the transport's credit engine send through it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_XMIT_H
#define SNIC_CORE_XMIT_H

#include <stdint.h>

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
struct SnicPkt;
struct SnicWireAddr;
struct snic_av;

/* The addresses of a packet on the path an address vector describes */
void snic_rdma_av_addr(SnicCore *c, const struct snic_av *av, uint32_t lqpn,
                       uint32_t rqpn, struct SnicWireAddr *a);
/* ... of an RC or UC QP's packet to its connected peer */
void snic_rdma_fill_addr(SnicCore *c, SnicQp *qp, struct SnicPkt *p);
void snic_rdma_xmit(SnicCore *c, const struct SnicPkt *p);
/* The RC op-code of packet 'seg' of 'nseg' of a SEND or WRITE message */
uint8_t snic_seg_opcode(uint8_t wr, uint32_t seg, uint32_t nseg);

#endif /* SNIC_CORE_XMIT_H */
