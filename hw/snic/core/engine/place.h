/*
 * snic core: the responder's placement layer (place.c), a shared layer of
 * the engine: the in-order responder, its placement ahead of ePSN and
 * SRNIC place through it and queue their ACKs with it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_PLACE_H
#define SNIC_CORE_PLACE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
struct SnicPkt;

/*
 * The ACK/NAK to send (one slot: a fatal NAK is never replaced, an RNR
 * NAK waits for its turn); a fatal NAK, after which the QP fails; a
 * duplicate ACK (SNIC_ACK_TCP), one owed for every packet out of order
 */
void snic_place_queue_ack(SnicCore *c, SnicQp *qp, uint8_t syn,
                          uint32_t psn);
void snic_place_nak_fatal(SnicCore *c, SnicQp *qp, uint8_t syn,
                          uint32_t psn);
void snic_place_dup_ack(SnicCore *c, SnicQp *qp);

/* Between the First and the Last of a multi-packet message */
bool snic_place_in_message(const SnicQp *qp);
/* ePSN moves over n PSNs executed in order (their map bits with them) */
void snic_place_epsn_advance(SnicQp *qp, uint32_t n);
/* ePSN goes back n PSNs to a message's first, the message forgotten */
void snic_place_epsn_rewind(SnicQp *qp, uint32_t n);
/* A message that took a receive WQE completed: the next message number */
void snic_place_msg_done(SnicQp *qp);

/* A WRITE packet's payload at its message's next address (in order) */
uint8_t snic_place_write(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                         bool first, bool last);
/* ... where its extension header says: SNIC_AETH_ACK or the NAK */
uint8_t snic_place_write_at(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                            bool at_epsn);
/*
 * A SEND packet d PSNs from ePSN into the receive WQE its message number
 * names ('lag': messages below ePSN still uncompleted); true if placed.
 * snic_place_msg_posted(): is that WQE posted (a WRITE with immediate's,
 * whose bytes go to its address)?
 */
bool snic_place_send(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                     uint32_t d, uint32_t lag);
bool snic_place_msg_posted(SnicCore *c, SnicQp *qp, const struct SnicPkt *p,
                           uint32_t d, uint32_t lag);

/*
 * At the requester, an SRNIC READ response placed at its final address
 * whatever its order, after checking it against its WQE and the request
 * it echoes: 1 placed, 0 refused (nothing written), -1 the QP failed (its
 * WQE unreadable, its own buffer gone).
 */
int snic_place_read_response(SnicCore *c, SnicQp *qp,
                             const struct SnicPkt *p);

#endif /* SNIC_CORE_PLACE_H */
