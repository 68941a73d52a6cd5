/*
 * snic core: the RDMA engine. RC requester and completer (req.c), RC
 * responder (resp.c), UC (uc.c), UD/GSI datagrams (ud.c) on the transport
 * template (transport/); receive dispatch, one scheduling iteration and
 * the QP state changes (rdma.c); its shared layers, work queues (wq.h)
 * and transmit (xmit.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_RDMA_H
#define SNIC_CORE_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snic/snic_verbs.h"
#include "engine/place.h"
#include "engine/wq.h"
#include "engine/xmit.h"
#include "transport/transport.h"


struct SnicPkt;
struct snic_admin_cmd;
struct SnicWireAddr;


/* rdma.c: receive dispatch, scheduling iterations, QP state changes */
/* the engine registers its hooks: the QP objects', the scheduler's, the
 * template's */
void snic_rdma_init(SnicCore *c);
void snic_rdma_receive(SnicCore *c, const uint8_t *frame, size_t len);
/* Will its next iteration fetch WQEs (timing model: park it first)? */
bool snic_rdma_wants_fetch(SnicCore *c, const SnicQp *qp);
bool snic_rdma_iteration(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_reset(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_rtr(SnicCore *c, SnicQp *qp);
void snic_rdma_qp_rts(SnicCore *c, SnicQp *qp);

/* req.c: requester */
/* up to 'budget' segments of at most 'wqes' WQEs started or resent */
bool snic_req_run(SnicCore *c, SnicQp *qp, unsigned budget, unsigned wqes);

/* comp.c: completer (responses, a CNP from the peer) */
void snic_req_response(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_req_cnp(SnicCore *c, SnicQp *qp);

/* resp.c: responder */
void snic_resp_request(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_resp_send_ack(SnicCore *c, SnicQp *qp);
bool snic_resp_run(SnicCore *c, SnicQp *qp, unsigned budget);
/* The SRQ receive a SEND holds, let go of once its deadline passed */
void snic_resp_hold_expired(SnicCore *c, SnicQp *qp, uint64_t now);

/*
 * resp_ooo.c: placement ahead of ePSN (SNIC_PROG_XPORT programs): a
 * request carrying the extension, d PSNs from ePSN (true: taken there);
 * ePSN over the PSNs placed ahead of it (true if it moved); an ACK's
 * SACK block; a receiver-driven program's trimmed packets and NACKs.
 */
bool snic_resp_ooo(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                   int32_t d);
bool snic_resp_ooo_sweep(SnicCore *c, SnicQp *qp);
void snic_resp_ooo_sack(SnicQp *qp, struct SnicPkt *p);
void snic_resp_trimmed(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
void snic_resp_send_nacks(SnicCore *c, SnicQp *qp);

/* uc.c: unreliable connected QPs */
bool snic_uc_run(SnicCore *c, SnicQp *qp, unsigned budget);
void snic_uc_request(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);

/* ud.c: datagrams */
bool snic_ud_run(SnicCore *c, SnicQp *qp, unsigned budget);
void snic_ud_receive(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
/* a datagram to a multicast address: to each QP of its group */
void snic_ud_mcast_receive(SnicCore *c, const struct SnicPkt *p);

#endif /* SNIC_CORE_RDMA_H */
