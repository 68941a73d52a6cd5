/*
 * snic core: the Tonic transport template (Tonic, NSDI'20, sections 3-4).
 *
 * A fixed-function data-delivery engine keeps a window of SNIC_TX_WINDOW
 * segments per QP: how many went out, and from where they are to be sent
 * again (go-back-N's range; selective programs will keep their bitmaps
 * in their own state area); a credit engine decides
 * how many segments may be in flight; a per-QP *program* with an incoming
 * hook (ACK, NAK, RNR, CNP) and a periodic hook (timers) marks segments
 * for retransmission and adjusts credit. Programs live in programs/, one
 * file each; IBA go-back-N (programs/gbn.c) is the first.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_TRANSPORT_H
#define SNIC_CORE_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#define SNIC_TX_WINDOW          128     /* segments (= PSNs) per QP */

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
typedef struct SnicReq SnicReq;

/* Tonic data-delivery engine: the window of one QP. */
typedef struct SnicDde {
    uint32_t wnd_start;         /* PSN of segment 0, the oldest unacked */
    uint32_t sent;              /* segments [0, sent) went out at least once */
    uint32_t rtx_from;          /* [rtx_from, sent) are to be sent again */
} SnicDde;

/* Credit engine: how many segments may be outstanding. */
typedef enum SnicCreditScheme {
    SNIC_CREDIT_WINDOW,         /* used now: a window of segments */
    SNIC_CREDIT_RATE,           /* interface for rate-based programs */
    SNIC_CREDIT_TOKEN,          /* interface for grant-token programs */
} SnicCreditScheme;

typedef struct SnicCredit {
    SnicCreditScheme scheme;
    uint32_t window;            /* segments, <= SNIC_TX_WINDOW */
} SnicCredit;

/* What the incoming hook is told. */
typedef enum SnicFeedbackKind {
    SNIC_FB_ACK,                /* everything up to psn acked */
    SNIC_FB_NAK_SEQ,            /* psn is what the responder expects */
    SNIC_FB_RNR,                /* psn found no receive WQE */
    SNIC_FB_CNP,                /* congestion notification */
} SnicFeedbackKind;

typedef struct SnicFeedback {
    SnicFeedbackKind kind;
    uint32_t psn;
    uint8_t syndrome;
    bool progress;              /* it acknowledged PSNs not acked before */
} SnicFeedback;

typedef struct SnicProgram {
    const char *name;
    void (*incoming)(SnicCore *c, SnicQp *qp, const SnicFeedback *fb);
    void (*periodic)(SnicCore *c, SnicQp *qp, uint64_t now);
} SnicProgram;

/* Why segments are sent again (the RETRANSMIT event's reason). */
typedef enum SnicRtxReason {
    SNIC_RTX_NAK_SEQ,           /* a sequence NAK, or a lost response */
    SNIC_RTX_TIMEOUT,           /* the retransmission timer expired */
    SNIC_RTX_RNR,               /* an RNR wait ended */
} SnicRtxReason;

/* Programs (programs/, one file each) */
extern const SnicProgram snic_program_gbn;

/* template.c: what programs call */
/* Send every segment from psn on again (a go-back-N step). */
void snic_transport_retransmit(SnicCore *c, SnicQp *qp, uint32_t psn,
                               SnicRtxReason why);

/* template.c: the data-delivery engine */
void snic_dde_ack_upto(SnicReq *r, uint32_t psn);
void snic_dde_mark_from(SnicReq *r, uint32_t psn);
bool snic_dde_next(const SnicReq *r, uint32_t *psn, bool *retransmit);
void snic_dde_sent(SnicReq *r, uint32_t psn, uint32_t count,
                   bool retransmit);
uint32_t snic_dde_outstanding(const SnicReq *r);
/* Are segments marked for retransmission? */
bool snic_dde_rtx_pending(const SnicReq *r);

#endif /* SNIC_CORE_TRANSPORT_H */
