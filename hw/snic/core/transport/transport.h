/*
 * snic core: the Tonic transport template (Tonic, NSDI'20, sections 3-4).
 *
 * A fixed-function data-delivery engine keeps a window of SNIC_TX_WINDOW
 * segments per QP: how many went out, and which range is to be sent again
 * (one range: go-back-N marks everything from a PSN, NewReno one segment);
 * a credit engine (credit.c) decides what may go out: a window, a rate or
 * grant tokens; a per-QP *program* with an incoming hook (feedback: ACKs,
 * duplicate ACKs, NAKs, RNR, CNPs, ...) and a periodic hook (its timers)
 * marks segments for retransmission and sets the credit, through the
 * template's calls declared below, and nothing else.
 *
 * Writing a program: one file in programs/ defining a SnicProgram (credit
 * scheme, ACK policy, state bytes, hooks), its number in the enum below
 * and one line in snic_programs[] (template.c) and in meson.build. Its
 * state is the struct behind snic_prog_state(); registration refuses a
 * program whose state exceeds Tonic's limit for its credit scheme.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_TRANSPORT_H
#define SNIC_CORE_TRANSPORT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "snic/snic_admin.h"
#include "host.h"
#include "psn.h"

#define SNIC_TX_WINDOW          128     /* segments (= PSNs) per QP */

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
typedef struct SnicReq SnicReq;

/*
 * The most segments a QP may have outstanding beyond the oldest
 * unacknowledged one, whatever its program (SnicProgram.span): a Tonic
 * program's on-device maps cover SNIC_TX_WINDOW, a program whose maps
 * are the host's (SRNIC's bitmaps) may ask for up to this.
 */
#define SNIC_DDE_SPAN           512

/*
 * Tonic data-delivery engine: the window of one QP. Offsets into the
 * window are below snic_dde_span(), so 10 bits each; packed with the PSN
 * into the 8 bytes the context had for 8-bit offsets.
 */
typedef struct SnicDde {
    uint64_t wnd_start:24;      /* PSN of segment 0, the oldest unacked */
    uint64_t sent:10;           /* segments [0, sent) went out at least once */
    uint64_t rtx_from:10;       /* [rtx_from, rtx_to) are to be sent */
    uint64_t rtx_to:10;         /* again (rtx_from == rtx_to: none) */
    /*
     * The requester's oldest READ/atomic started and not complete: how
     * far its first PSN lies ahead of wnd_start, 0 if at or behind it, so
     * an ACK finds where the responses it may imply lost begin without
     * reading the WQEs before it. Started, it was sent: below
     * wnd_start + sent, within the span.
     */
    uint64_t rd_off:10;
} SnicDde;
_Static_assert(SNIC_TX_WINDOW <= SNIC_DDE_SPAN &&
               SNIC_DDE_SPAN < 1u << 10, "window offsets take 10 bits");

/*
 * Credit engine (Tonic section 3.3.1): how much a QP may send. The window
 * is in the QP context; rate and token credit live at the head of the
 * QP's program state area (SnicRateCredit, SnicTokenCredit below), so a
 * go-back-N QP pays nothing for them.
 */
typedef enum SnicCreditScheme {
    SNIC_CREDIT_WINDOW = SNIC_CREDIT_TYPE_WINDOW,   /* segments in flight */
    SNIC_CREDIT_RATE = SNIC_CREDIT_TYPE_RATE,       /* paced (credit.c) */
    SNIC_CREDIT_TOKEN = SNIC_CREDIT_TYPE_TOKEN,     /* a token a segment */
    SNIC_CREDIT_SCHEMES,
} SnicCreditScheme;

/* The scheme is the QP's program's (SnicProgram.credit): not kept. */
typedef struct SnicCredit {
    uint16_t window;            /* segments, <= snic_dde_span() */
} SnicCredit;

/*
 * Rate credit with Tonic's multi-precision representation (App. B): the
 * rate is kept as r[k] bytes per 2^(4k) ns for every level k; the most
 * precise level whose r[k] has at least SNIC_RATE_MIN_PRECISION (the
 * rate's rounding error under 1/128) computes T = ceil(C / r[k]), the
 * time at which a flow lacking C bytes has credit again. One timer per
 * flow (ready_at), never one per packet: when it fires the flow is ready.
 */
#define SNIC_RATE_LEVELS        5       /* 1, 16, 256, 4096, 65536 ns */
#define SNIC_RATE_LEVEL_SHIFT   4
#define SNIC_RATE_MIN_PRECISION 128
#define SNIC_RATE_HDR_BYTES     58      /* Eth + IPv4 + UDP + BTH + ICRC */

typedef struct SnicRateCredit {
    uint32_t r[SNIC_RATE_LEVELS];
    uint32_t mbps;              /* the rate the program set */
    uint32_t burst;             /* the bucket (D): the credit kept at
                                 * most is this and one unit's r */
    int32_t credit;             /* bytes; may go below 0 by one packet */
    uint8_t level;
    uint64_t t_last;            /* credit counted up to here */
    uint64_t ready_at;          /* the flow's credit timer; MAX: none */
    uint64_t tx_bytes;          /* bytes sent (a byte counter's input) */
} SnicRateCredit;

/*
 * Grant tokens: segments the receiver granted that were not yet sent, and
 * the receiver's side of the scheme, its PULLs (grants) for the peer:
 * owed one per data packet that arrived (NDP), sent one path-MTU time at
 * the link rate apart for the whole device (snic_pull_run).
 */
typedef struct SnicTokenCredit {
    uint64_t pull_at;           /* the next PULL's turn; MAX: no timer */
    uint32_t tokens;
    uint32_t pulls;             /* PULLs sent: the cumulative counter */
    uint32_t owed;              /* PULLs owed, not yet sent */
} SnicTokenCredit;

/*
 * Tonic's limits on a program's own state (section 6.1.2, Table 4): what
 * still meets timing with each credit scheme's fixed state beside it.
 */
#define SNIC_PROG_STATE_MAX_WINDOW  448
#define SNIC_PROG_STATE_MAX_RATE    340
#define SNIC_PROG_STATE_MAX_TOKEN   256

/* What the incoming hook is told (Tonic's pkt_type and its inputs). */
typedef enum SnicFeedbackKind {
    SNIC_FB_ACK,                /* cumulative: everything up to psn */
    SNIC_FB_DUP_ACK,            /* an ACK for psn = wnd_start - 1 again */
    SNIC_FB_SACK,               /* cumulative psn + block [sack, sack_end) */
    SNIC_FB_NACK,               /* segment psn was lost (NDP, IRN) */
    SNIC_FB_NAK_SEQ,            /* psn is what the responder expects */
    SNIC_FB_RNR,                /* psn found no receive WQE */
    SNIC_FB_CNP,                /* congestion notification */
    SNIC_FB_PULL,               /* grant: pull counter in psn */
    SNIC_FB_TRIMMED,            /* segment psn reached the peer trimmed */
} SnicFeedbackKind;

typedef struct SnicFeedback {
    SnicFeedbackKind kind;
    uint32_t psn;
    uint32_t sack, sack_end;    /* SNIC_FB_SACK: the selective block */
    uint8_t syndrome;
    bool progress;              /* it acknowledged PSNs not acked before */
    uint32_t newly_acked;       /* segments it acknowledged (Tonic's cnt) */
    uint32_t old_wnd_start;     /* wnd_start before it */
    bool ece;                   /* the ACK carried the responder's ... */
    uint32_t ce_count;          /* ... count of CE-marked data packets */
} SnicFeedback;

/* How the responder of a QP running the program acknowledges. */
typedef enum SnicAckPolicy {
    SNIC_ACK_IBA,               /* AckReq'd packets; one NAK per gap */
    SNIC_ACK_TCP,               /* every k-th packet; dup ACK per gap pkt */
} SnicAckPolicy;

#define SNIC_PROG_ECN           (1u << 0)   /* ECT(0) out, CNPs back */
/* its QPs speak the selective-transport extension (struct snic_xeth) */
#define SNIC_PROG_XPORT         (1u << 1)
/*
 * ECT(0) out; its responder counts CE-marked data (SnicCeEcho) and every
 * ACK carries the count (struct snic_xeth, SNIC_XETH_F_ECE): DCTCP's ECE
 */
#define SNIC_PROG_ECE           (1u << 2)
/* receiver-driven: its responder NACKs trimmed headers and owes PULLs */
#define SNIC_PROG_PULL          (1u << 3)
/*
 * SRNIC's selective repeat (sr.h): its QPs speak struct snic_xeth with no
 * placement map on the device; the bitmaps are the host's
 */
#define SNIC_PROG_SR            (1u << 4)

/* IP ECN field (RFC 3168) and the notification point's CNP spacing */
#define SNIC_ECN_MASK           3
#define SNIC_ECN_ECT0           2
#define SNIC_ECN_CE             3
#define SNIC_NP_CNP_INTERVAL_NS 50000   /* DCQCN's N = 50 us */

/*
 * A transport program (Tonic section 3.5): the credit scheme it uses, the
 * bytes of per-QP state it keeps (checked against Tonic's limit for that
 * scheme when it is registered), and its hooks:
 *  - init: the QP enters RTS; set the credit and the state;
 *  - incoming: feedback for the QP's requests (after the fixed-function
 *    stage slid the window and completed WQEs);
 *  - periodic: the QP's timers are due: the retransmission timer, the RNR
 *    wait, or the program's own (snic_transport_arm_timer);
 *  - rto (optional): the retransmission timer's period, each time the
 *    engine arms it (a first segment out, progress, a timeout), given the
 *    QP's local ACK timeout (Tonic's rtx_timer_amnt; NULL: that timeout).
 * Hooks act on the engine only through the template's calls below.
 */
typedef struct SnicProgram {
    const char *name;
    uint8_t credit;             /* SnicCreditScheme */
    uint8_t ack_policy;         /* SnicAckPolicy of the responder */
    uint8_t flags;              /* SNIC_PROG_* */
    uint16_t state_bytes;       /* its own per-QP state */
    uint16_t span;              /* PSNs beyond the oldest unacked; 0: */
                                /* SNIC_TX_WINDOW (<= SNIC_DDE_SPAN) */
    void (*init)(SnicCore *c, SnicQp *qp);
    void (*incoming)(SnicCore *c, SnicQp *qp, const SnicFeedback *fb);
    void (*periodic)(SnicCore *c, SnicQp *qp, uint64_t now);
    uint64_t (*rto)(SnicQp *qp, uint64_t timeout_ns);
    /* where it keeps the QP's message numbers, if not in a placement map */
    struct SnicOooMsg *(*msg)(SnicQp *qp);
} SnicProgram;

/*
 * Does a QP running p number its messages (a selective program's SSN in
 * its placement map, SRNIC's)? StRoM's RPC answers carry no message
 * number nor the extension header such a responder needs, so a QP runs
 * RPCs or such a program, not both (SET_QP_RPC and SET_QP_TRANSPORT
 * refuse the pair).
 */
static inline bool snic_program_numbered(const SnicProgram *p)
{
    return (p->flags & (SNIC_PROG_XPORT | SNIC_PROG_SR)) || p->msg;
}

/*
 * The area a QP's program owns, behind SnicQp.pstate: the template's head
 * (the program timer, the notification point's last CNP), the credit
 * scheme's state, then the program's own bytes. Sized by the program.
 */
typedef struct SnicProgHead {
    uint64_t timer_at;          /* the program's timer; MAX: not armed */
    uint64_t cnp_at;            /* responder: when it last sent a CNP */
    /*
     * Counters of congestion notification: only a program with an area
     * reacts to CNPs (SNIC_PROG_ECN), so a go-back-N QP keeps none.
     */
    uint32_t cnp_rx;            /* CNPs received (reaction point) */
    uint32_t cnp_tx;            /* CNPs sent (notification point) */
} SnicProgHead;

/*
 * Message numbers (SRNIC's SSN), both ends of the QP: a SEND, SEND with
 * Immediate, SEND with Invalidate and RDMA WRITE with Immediate each take
 * the next receive WQE at the responder, so each takes the next number
 * (WRITE with Immediate counts although it is not placed out of order:
 * else a SEND after it would name the receive WQE the WRITE takes). The
 * requester keeps the number of its oldest uncompleted WQE and of the one
 * it sends next, and finds a resent segment's by counting from the first;
 * the responder the number of the receive WQE at its RQ's head.
 */
typedef struct SnicOooMsg {
    uint32_t req_comp;          /* requester: number of WQE sq_comp */
    uint32_t req_head;          /* requester: number of WQE sq_head */
    uint32_t resp;              /* responder: number of the RQ's head */
} SnicOooMsg;

/*
 * Out-of-order placement (SNIC_PROG_XPORT: the selective programs, and
 * Reno and NewReno, whose responder keeps out-of-order data as TCP's): the
 * responder's record of which PSNs of [ePSN, ePSN + SNIC_TX_WINDOW) it
 * placed already, and which of them ended their message, by PSN modulo
 * the window. It heads such a program's own state, so a QP pays for it
 * only when its program places out of order, and the QP context keeps
 * nothing of it. sack_at: the PSN the last out-of-order packet had (the
 * next ACK's SACK block is the run of placed PSNs holding it, RFC 2018);
 * msg: the QP's message numbers.
 *
 * SEND packets are placed too, into the receive WQE their message number
 * names (struct snic_xeth msg: the count of the requester's messages that
 * take a receive WQE before it, SRNIC's SSN; see SnicOooMsg): 'send' and
 * 'first' say which placed PSNs are SEND packets and which of those start
 * their message, and what the completion of a SEND Last placed ahead of
 * ePSN needs (its length, immediate data or R_Key to invalidate, SE) is
 * kept in one of SNIC_OOO_LASTS slots until ePSN reaches it, as is an
 * RDMA WRITE with immediate's Last (a placed WRITE packet, 'last' and not
 * 'send', with a slot): a Last finding no free slot is not placed (the
 * program's selective recovery sends it again), so completions stay in
 * order without a reorder buffer.
 */
#define SNIC_OOO_LASTS          7

typedef struct SnicOooLast {
    uint32_t psn:24;
    uint32_t opcode:8;          /* its SEND/WRITE_IMM Last/Only; 0: free */
    uint32_t off;               /* byte offset of the packet in its message */
    uint32_t data;              /* IMM (host order) or IETH R_Key */
    uint16_t len;               /* its payload bytes */
    uint8_t se;                 /* BTH SE */
    uint8_t rsvd;
} SnicOooLast;
_Static_assert(sizeof(SnicOooLast) == 16, "a completion slot is 16 bytes");

typedef struct SnicOooMap {
    uint32_t placed[SNIC_TX_WINDOW / 32];
    uint32_t last[SNIC_TX_WINDOW / 32];
    uint32_t send[SNIC_TX_WINDOW / 32];
    uint32_t first[SNIC_TX_WINDOW / 32];
    uint32_t sack_at;
    SnicOooMsg msg;
    SnicOooLast lasts[SNIC_OOO_LASTS];
} SnicOooMap;

/*
 * Receiver-driven programs (SNIC_PROG_PULL) keep, after the placement
 * map, the PSNs of [ePSN, ePSN + SNIC_TX_WINDOW) that arrived trimmed and
 * are still to be NACKed (the engine sends the NACKs, resp.c).
 */
typedef struct SnicTrimMap {
    uint32_t nack[SNIC_TX_WINDOW / 32];
} SnicTrimMap;

/*
 * CE echo (SNIC_PROG_ECE programs): the responder's count of CE-marked
 * data packets received since RTR, which each of its ACKs carries. It
 * heads such a program's own state (after a selective program's map and
 * a receiver-driven one's NACK map), so only its QPs pay for it.
 */
typedef struct SnicCeEcho {
    uint32_t ce_rx;
} SnicCeEcho;

/* A bit per PSN of a window, by PSN modulo SNIC_TX_WINDOW */
static inline bool snic_psnmap_get(const uint32_t *m, uint32_t psn)
{
    return m[psn % SNIC_TX_WINDOW / 32] >> (psn % 32) & 1;
}

static inline void snic_psnmap_set(uint32_t *m, uint32_t psn, bool on)
{
    uint32_t *w = &m[psn % SNIC_TX_WINDOW / 32];

    *w = (*w & ~(1u << (psn % 32))) | (uint32_t)on << (psn % 32);
}

/* Why segments are sent again (the RETRANSMIT event's reason). */
typedef enum SnicRtxReason {
    SNIC_RTX_NAK_SEQ,           /* a sequence NAK, or a lost response */
    SNIC_RTX_TIMEOUT,           /* the retransmission timer expired */
    SNIC_RTX_RNR,               /* an RNR wait ended */
    SNIC_RTX_DUP_ACKS,          /* duplicate ACKs (fast retransmit) */
    SNIC_RTX_PARTIAL_ACK,       /* a partial ACK in recovery (RFC 6582) */
    SNIC_RTX_SACK,              /* a hole below SACKed segments (RFC 6675) */
    SNIC_RTX_TRIMMED,           /* the peer NACKed it: it arrived trimmed */
} SnicRtxReason;

/* DCQCN's constants (docs/wire.md: Tonic's values, the paper's g) */
#define SNIC_DCQCN_ALPHA_Q      20              /* alpha in Q20 */
#define SNIC_DCQCN_G_SHIFT      8               /* g = 1/256 */
#define SNIC_DCQCN_R_AI         40              /* Mb/s */
#define SNIC_DCQCN_R_HAI        200             /* Mb/s */
#define SNIC_DCQCN_R_MIN        100             /* Mb/s */
#define SNIC_DCQCN_ALPHA_NS     55000           /* alpha timer */
#define SNIC_DCQCN_RATE_NS      60000           /* rate-increase timer */
#define SNIC_DCQCN_BYTES        (10u * 1000 * 1000)     /* byte counter */
#define SNIC_DCQCN_F            5               /* fast recovery steps */

/* Programs (programs/, one file each), by their number in a QP context */
enum {
    SNIC_PROGRAM_GBN = SNIC_TRANSPORT_GBN,
    SNIC_PROGRAM_RENO = SNIC_TRANSPORT_RENO,
    SNIC_PROGRAM_NEWRENO = SNIC_TRANSPORT_NEWRENO,
    SNIC_PROGRAM_DCQCN = SNIC_TRANSPORT_DCQCN,
    SNIC_PROGRAM_SACK = SNIC_TRANSPORT_SACK,
    SNIC_PROGRAM_DCTCP = SNIC_TRANSPORT_DCTCP,
    SNIC_PROGRAM_NDP = SNIC_TRANSPORT_NDP,
    SNIC_PROGRAM_IRN = SNIC_TRANSPORT_IRN,
    SNIC_PROGRAM_SRNIC = SNIC_TRANSPORT_SRNIC,
    SNIC_PROGRAM_SRNIC_DCTCP = SNIC_TRANSPORT_SRNIC_DCTCP,
    SNIC_PROGRAMS
};
extern const SnicProgram snic_program_gbn;
extern const SnicProgram snic_program_reno;
extern const SnicProgram snic_program_newreno;
extern const SnicProgram snic_program_dcqcn;
extern const SnicProgram snic_program_sack;
extern const SnicProgram snic_program_dctcp;
extern const SnicProgram snic_program_srnic_dctcp;
extern const SnicProgram snic_program_ndp;
extern const SnicProgram snic_program_irn;
extern const SnicProgram snic_program_srnic;       /* sr.c */
extern const SnicProgram *const snic_programs[SNIC_PROGRAMS];

/*
 * Selection (SET_QP_TRANSPORT, before RTR): the QP runs 'program' with
 * its area allocated; false if there is no such program. Release: back
 * to go-back-N (RESET, destroy). Start: the QP enters RTS.
 */
bool snic_transport_select(SnicQp *qp, uint8_t program, uint8_t ack_every);
void snic_transport_release(SnicQp *qp);
void snic_transport_start(SnicCore *c, SnicQp *qp);
/* Every QP's program area goes (device reset, teardown) */
void snic_transport_release_all(SnicCore *c);
/*
 * The QP's timers, kept by the scheduler's heap: the earliest of the
 * transport deadline (RTO or RNR wait), the program's own timer and the
 * credit engine's (UINT64_MAX: none); fire those due at 'now'.
 */
uint64_t snic_transport_deadline(SnicQp *qp);
void snic_transport_timer(SnicCore *c, SnicQp *qp, uint64_t now);

/* commands.c: the admin commands */
struct snic_admin_cmd;
uint16_t snic_cmd_set_qp_transport(SnicCore *c,
                                   const struct snic_admin_cmd *cmd,
                                   uint64_t *result);
uint16_t snic_cmd_query_transport(SnicCore *c,
                                  const struct snic_admin_cmd *cmd,
                                  uint64_t *result);

/* Registration: does the program fit Tonic's limits? (template.c) */
bool snic_program_fits(const SnicProgram *p);
/* Tonic's limit on its own state for the program's credit scheme */
uint16_t snic_program_state_max(const SnicProgram *p);
/* Bytes of its per-QP area (head + credit state + its own state) */
uint32_t snic_program_area_bytes(const SnicProgram *p);
/* The QP's program; its own state in its area (NULL: it keeps none) */
const SnicProgram *snic_qp_program(const SnicQp *qp);
void *snic_prog_state(SnicQp *qp);
SnicProgHead *snic_prog_head(SnicQp *qp);
SnicRateCredit *snic_rate_credit(const SnicQp *qp);
SnicTokenCredit *snic_token_credit(const SnicQp *qp);
/* The responder's placement map of a selective program's QP, or NULL */
SnicOooMap *snic_prog_ooo(SnicQp *qp);
/*
 * The QP's message numbers (SRNIC's SSN): a selective program's (in its
 * map) or where its program's msg hook says, or NULL if it keeps none
 */
SnicOooMsg *snic_prog_msg(SnicQp *qp);
/* ... and its NACKs owed, if the program is receiver-driven, or NULL */
SnicTrimMap *snic_prog_trim(SnicQp *qp);
/* The responder's CE count of an SNIC_PROG_ECE program's QP, or NULL */
SnicCeEcho *snic_prog_ece(SnicQp *qp);

/*
 * ---- template.c: what programs call (Tonic's outputs) ----
 */
/* Mark segments [from, to) for retransmission (Tonic's mark_for_rtx). */
void snic_transport_mark_rtx(SnicCore *c, SnicQp *qp, uint32_t from,
                             uint32_t to, SnicRtxReason why);
/* Is segment psn marked for retransmission and not resent yet? */
bool snic_transport_rtx_marked(const SnicQp *qp, uint32_t psn);
/* Send every segment from psn on again (a go-back-N step). */
void snic_transport_retransmit(SnicCore *c, SnicQp *qp, uint32_t psn,
                               SnicRtxReason why);
/* The congestion window, in segments (1 .. snic_dde_span()). */
void snic_transport_set_window(SnicCore *c, SnicQp *qp, uint32_t segments);
/* The rate, in Mb/s (rate-credit programs). */
void snic_transport_set_rate(SnicCore *c, SnicQp *qp, uint32_t mbps);
/* Grant tokens for this many more segments (token-credit programs). */
void snic_transport_grant(SnicCore *c, SnicQp *qp, uint32_t segments);
/* The tokens a token-credit QP holds */
uint32_t snic_transport_tokens(const SnicQp *qp);
/* Arm the program's timer at 'at' ns (UINT64_MAX: disarm). */
void snic_transport_arm_timer(SnicCore *c, SnicQp *qp, uint64_t at);
/* Is the retransmission timer due at 'now'? (periodic hooks) */
bool snic_transport_rto_expired(const SnicQp *qp, uint64_t now);
/*
 * (Re)arm the retransmission timer: the local ACK timeout from now (the
 * program's rto hook may scale it); disarmed with nothing in flight. An
 * RNR wait, while it runs, stands in for it.
 */
void snic_transport_arm_rto(SnicCore *c, SnicQp *qp);
/* Segments in flight (sent, not acknowledged) and the oldest's PSN. */
uint32_t snic_transport_outstanding(const SnicQp *qp);
uint32_t snic_transport_wnd_start(const SnicQp *qp);
/* The PSN of the next new segment (Tonic's highest_sent + 1, SND.NXT) */
uint32_t snic_transport_snd_nxt(const SnicQp *qp);
/* Bytes a rate-credit QP has sent since RTS, headers included. */
uint64_t snic_transport_tx_bytes(const SnicQp *qp);
/* Now, on the device's clock (ns). */
uint64_t snic_transport_now(SnicCore *c);
/* The port's line rate, Mb/s (property link-speed-mbps) */
uint32_t snic_transport_line_rate(SnicCore *c);
/* The QP's number (an event's argument) */
uint32_t snic_transport_qpn(SnicCore *c, const SnicQp *qp);
/*
 * Report event NAME of events.h: SNIC_TRANSPORT_EVENT(c, NAME, args...)
 * checks the arguments against the entry at compile time.
 */
void snic_transport_event(SnicCore *c, SnicTracePoint tp, const uint64_t a[4]);
#define SNIC_TRANSPORT_EVENT(c, name, ...) do { \
        _Static_assert(SNIC_EV_NARGS_(__VA_ARGS__) == SNIC_EV_ARGC_##name, \
                       #name ": arguments differ from events.h"); \
        snic_transport_event((c), SNIC_TRACE_##name, \
                             (const uint64_t[4])SNIC_EV_ARGS4_(__VA_ARGS__)); \
    } while (0)
/* Fail the oldest send WQE with an SNIC_WC_* status; the QP goes to ERR */
void snic_transport_fail(SnicCore *c, SnicQp *qp, uint8_t status);

/*
 * IBA's reliability (IBA 9.7.5.2), for programs that keep it: the retry
 * counters of the QP's attributes, reloaded on progress, one used by
 * each retry (an RNR retry count of 7 retries for ever: none is used);
 * the RNR wait, which holds everything for 'ns', then sends from 'psn'
 * again, and stands in for the retransmission timer while it runs.
 */
typedef enum SnicRetryKind {
    SNIC_RETRY_TRANSPORT,       /* retry_cnt: timeouts, sequence NAKs */
    SNIC_RETRY_RNR,             /* rnr_retry: RNR NAKs */
} SnicRetryKind;

void snic_transport_retries_reload(SnicQp *qp);
uint32_t snic_transport_retries_left(const SnicQp *qp, SnicRetryKind kind);
void snic_transport_retry_used(SnicQp *qp, SnicRetryKind kind);
void snic_transport_rnr_wait(SnicCore *c, SnicQp *qp, uint32_t psn,
                             uint64_t ns);
/* Is an RNR wait running? One that ended by 'now' sends again (false). */
bool snic_transport_rnr_waiting(SnicCore *c, SnicQp *qp, uint64_t now);
/* Did the retransmission timer expire by 'now'? It is disarmed then. */
bool snic_transport_rto_fired(SnicQp *qp, uint64_t now);

/* IBA go-back-N's reliability, for programs that keep it (gbn.c) */
void snic_gbn_incoming(SnicCore *c, SnicQp *qp, const SnicFeedback *fb);
void snic_gbn_periodic(SnicCore *c, SnicQp *qp, uint64_t now);
/*
 * ... its timers without going back N: an RNR wait's end resends from the
 * NAKed PSN; true if the retransmission timer expired with segments in
 * flight and a retry left (counted, the timer armed again): the caller
 * marks what to resend (snic_gbn_periodic: everything).
 */
bool snic_gbn_timeout(SnicCore *c, SnicQp *qp, uint64_t now);

/* ---- credit.c: the credit engine ---- */
/* Rate r[] of every level for mbps, and the level T is computed with */
void snic_rate_set(SnicRateCredit *rc, uint32_t mbps);
/* Credit counted up to 'now'; true if a packet may go now */
bool snic_rate_ready(SnicRateCredit *rc, uint64_t now);
/* A packet of 'bytes' went out at 'now'; arms ready_at if credit ran out */
void snic_rate_spend(SnicRateCredit *rc, uint64_t now, uint32_t bytes);
/* Is the QP waiting for rate credit or a token? */
bool snic_credit_blocked(const SnicQp *qp);
/* May the QP send a segment now? (window checked by the DDE) */
bool snic_credit_ready(SnicCore *c, SnicQp *qp);
void snic_credit_spend(SnicCore *c, SnicQp *qp, uint32_t bytes);
/* The credit engine's timer of a QP (UINT64_MAX: none); fire it. */
uint64_t snic_credit_deadline(const SnicQp *qp);
void snic_credit_timer(SnicCore *c, SnicQp *qp, uint64_t now);
/* Token scheme, receiver: a data packet arrived, a PULL is owed for it */
void snic_pull_owe(SnicCore *c, SnicQp *qp);
/* Send the PULL owed if its turn came (engine context) */
void snic_pull_run(SnicCore *c, SnicQp *qp);

/* template.c: the data-delivery engine */
void snic_dde_ack_upto(SnicQp *qp, uint32_t psn);
bool snic_dde_next(const SnicQp *qp, uint32_t *psn, bool *retransmit);
void snic_dde_sent(SnicQp *qp, uint32_t psn, uint32_t count,
                   bool retransmit);
uint32_t snic_dde_outstanding(const SnicQp *qp);
/* How far beyond the oldest unacknowledged PSN a QP may send (span) */
uint32_t snic_dde_span(const SnicQp *qp);
/* Are segments marked for retransmission? */
bool snic_dde_rtx_pending(const SnicQp *qp);

/*
 * What the template asks of the engine, which registers it
 * (engine/rdma.c): fail the oldest send WQE with an SNIC_WC_* status,
 * the QP going to ERR (snic_transport_fail()).
 */
typedef struct SnicTransportHooks {
    void (*fail)(SnicCore *c, SnicQp *qp, uint8_t status);
} SnicTransportHooks;

#endif /* SNIC_CORE_TRANSPORT_H */
