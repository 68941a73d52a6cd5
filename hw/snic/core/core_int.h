/*
 * snic core: internal state shared by the core's files.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_INT_H
#define SNIC_CORE_INT_H

#include <glib.h>
#include <inttypes.h>

/*
 * What SnicCore holds by value comes from types-only headers; a unit's
 * functions are in its own header, which its callers include.
 */
#include "snic_core.h"
#include "engine/sched_types.h"
#include "objects/mcast_types.h"
#include "objects/table.h"
#include "port/link_types.h"
#include "srnic/sr_types.h"
#include "snic/snic_admin.h"
#include "snic/snic_eth.h"

/* The objects SnicCore points to (objects/, the engine, StRoM) */
typedef struct SnicPd SnicPd;
typedef struct SnicMr SnicMr;
typedef struct SnicMw SnicMw;
typedef struct SnicEq SnicEq;
typedef struct SnicCq SnicCq;
typedef struct SnicSrq SnicSrq;
typedef struct SnicQp SnicQp;
typedef struct SnicQpHooks SnicQpHooks;
typedef struct SnicTransportHooks SnicTransportHooks;
typedef struct SnicRpcDev SnicRpcDev;
struct snic_rq_wqe;

/* Capabilities this core implements (SNIC_REG_CAPS_*, QUERY_DEVICE). */
#define SNIC_CAPS (SNIC_CAP_ADMINQ | SNIC_CAP_AEQ | SNIC_CAP_ETH | \
                   SNIC_CAP_RDMA_MR | SNIC_CAP_LOOPBACK | SNIC_CAP_INLINE | \
                   SNIC_CAP_UC | SNIC_CAP_SRQ | \
                   SNIC_CAP_MW | SNIC_CAP_CQ_MODERATION | SNIC_CAP_MCAST | \
                   SNIC_CAP_FRWR | SNIC_CAP_RPC)

/* The largest frame the Ethernet function moves in either direction. */
#define SNIC_ETH_MAX_FRAME  (SNIC_ETH_MAX_MTU + SNIC_ETH_HLEN_MAX)
/* Ethernet frames the port holds while the host posts no RX buffer */
#define SNIC_ETH_RX_FIFO    16

typedef struct SnicEthQueue {
    bool created;
    bool started;
    bool tx_discard;            /* TX: drop descriptors up to next EOP */
    uint8_t log2_depth;
    uint16_t vector;
    uint16_t irq_delay_us;
    uint64_t ring;              /* guest address of descriptor 0 */
    uint32_t head;              /* device consumer index */
    uint32_t tail;              /* driver producer index (doorbell) */
    bool irq_pending;           /* moderated interrupt waiting for timer */
    uint64_t irq_deadline;
} SnicEthQueue;

/* Deferred resets, in increasing strength (see snic_request_reset). */
typedef enum SnicResetKind {
    SNIC_RESET_NONE,
    SNIC_RESET_DISABLE,         /* DEV_CTRL.ENABLE 1 -> 0: runtime state */
    SNIC_RESET_FULL,            /* power-on state */
} SnicResetKind;

typedef struct SnicTlbEntry SnicTlbEntry;

struct SnicCore {
    SnicCoreConfig cfg;
    const SnicHostOps *ops;
    void *opaque;
    bool link_up;               /* physical link: survives every reset */
    unsigned busy;              /* nesting depth of core entry points */
    /* WQEs the outermost entry point may still flush (engine/wq.h) */
    unsigned wqe_left;
    SnicResetKind reset_pending;
    SnicLink link;              /* capture and fault injection */
    SnicAdminFail admin_fail;   /* admin commands to fail, as the host set */

    /* Object tables, sized by cfg; their contents are reset by hand. */
    SnicPd *pds;                /* [FIRST_HANDLE, max_pd] */
    SnicMr *mrs;                /* [FIRST_HANDLE, max_mr] */
    SnicTlbEntry *tlb;          /* translation cache, tlb_mask + 1 lines */
    uint32_t tlb_mask;
    SnicEq *eqs;                /* [1, max_eq] */
    SnicCq *cqs;                /* [1, max_cq] */
    uint32_t *cq_timers;        /* CQNs, a min-heap on their mod_deadline */
    uint32_t cq_timers_len;
    SnicSrq *srqs;              /* [1, max_srq] */
    SnicMw *mws;                /* [1, max_mw] */
    /* the tables' free handles and counts in use (the stats' gauges) */
    SnicSlots pd_slots, mr_slots, eq_slots, cq_slots, srq_slots, mw_slots;
    SnicQp *qps;                /* 1 = GSI, [2, max_qp + 1] */
    /* the engine's hooks (engine/rdma.c) */
    const SnicQpHooks *qp_hooks;
    const SnicTransportHooks *transport_hooks;
    SnicRpcDev *rpc;            /* StRoM RPC slots and kernels (rpc.h) */
    struct SnicHllSketch *hll;  /* cfg.hll_sketches sketches (hll.h) */
    struct SnicClDev *cl;       /* the connectionless transport (cl/) */
    /* frames of the Ethernet receive FIFO (rx_fifo_head/tail below) */
    uint8_t (*rx_fifo)[SNIC_ETH_MAX_FRAME];
    /*
     * Free RC/UD QP numbers in the order they were freed (a FIFO of
     * max_qp entries, free-running indices): O(1) to take and give back,
     * and a destroyed QP's number is the last to come back, so a late
     * packet or completion of the old QP is not taken for the new one's.
     */
    uint32_t *free_qpns;
    uint32_t free_qpn_head;
    uint32_t free_qpn_tail;
    SnicSched sched;            /* schedule queues and timer heap */
    /* SRQ receive WQEs in progress (engine/wq.c), and the free entries */
    struct snic_rq_wqe *recv_pool;
    uint16_t *recv_free;
    uint32_t recv_free_n;
    /*
     * The receive WQE read for the packet being placed, on the stack of
     * snic_rdma_receive() (engine/wq.h), NULL outside it
     */
    struct SnicRecvWqe *rx_wqe;
    /*
     * ... for each entry, when its holder lets go of it if its message
     * does not continue (UINT64_MAX: not armed): kept with the entry, not
     * in the QP context, as the pool's WQE copies are
     */
    uint64_t *recv_hold_at;
    /* ... entries each context holds (by doorbell page): its share */
    uint16_t *recv_ctx_held;
    /* what each context holds of SRNIC's CtrlQ (srnic/sr.c): its share */
    SnicSrCtrlHold *sr_ctx_hold;

    /*
     * Configuration: back to power-on values by a full reset, kept across
     * disable (like NVMe's AQA/ASQ/ACQ across CC.EN = 0).
     */
    uint64_t admin_sq_base;
    uint64_t admin_cq_base;
    uint32_t admin_log2_depth;
    uint64_t aeq_base;
    uint32_t aeq_log2_depth;
    uint32_t intr_mask;
    uint8_t mac[6];
    uint32_t mtu;
    struct snic_stats stats;    /* little-endian, as the guest reads it */
    /*
     * The last DMA the host refused (services.c), as an IOMMU refuses an
     * address the driver never mapped or has unmapped, and the rate limit
     * of the guest error that names it.
     */
    struct {
        uint64_t addr;
        bool write;
        uint64_t quiet_until;   /* no message before this (now_ns) */
        uint64_t unlogged;      /* faults since the last message */
    } dma_fault;

    /* Runtime state from here on: cleared by disable and by reset. */
    uint32_t ctrl;
    uint32_t status;            /* without SNIC_STATUS_LINK_UP (derived) */
    uint32_t error;
    uint32_t intr_cause;

    /* Admin queue indices (free-running) */
    uint32_t sq_head;           /* next command the device fetches */
    uint32_t sq_tail;           /* producer index from the doorbell */
    uint32_t cq_head;           /* consumer index from the doorbell */
    uint32_t cq_tail;           /* next completion slot */

    /* Async event queue indices */
    uint32_t aeq_head;
    uint32_t aeq_tail;

    SnicEthQueue txq[SNIC_ETH_MAX_TXQS];
    SnicEthQueue rxq[SNIC_ETH_MAX_RXQS];
    /*
     * The port's receive FIFO for Ethernet frames that found no RX buffer
     * (free-running indices): the wire never waits for the host's buffers,
     * so RoCE behind them is never held up; full, the MAC drops.
     */
    uint32_t rx_fifo_head;
    uint32_t rx_fifo_tail;
    uint16_t rx_fifo_len[SNIC_ETH_RX_FIFO];
    uint64_t timer_deadline;    /* armed host timer, UINT64_MAX if none */
    uint16_t ip_id;             /* IPv4 identification of RDMA packets */
    uint64_t pull_next;         /* NDP's pull queue: the next PULL's turn */
    SnicSrCtrlq sr_ctrlq;       /* SRNIC's CtrlQ (srnic/sr.c) */
    uint32_t gid_valid;         /* bit n: gids[n] is a source address */
    uint8_t gids[SNIC_MAX_GIDS][16];
    SnicMcastGroup mcast[SNIC_MAX_MCAST_GRP];
    uint8_t frame[SNIC_ETH_MAX_FRAME];  /* TX gather buffer */
    uint8_t rdma_frame[SNIC_ETH_MAX_FRAME];
    uint8_t rdma_payload[4096]; /* one segment at the largest path MTU */
};

static inline void snic_stat_add(__le64 *counter, uint64_t n)
{
    *counter = GUINT64_TO_LE(GUINT64_FROM_LE(*counter) + n);
}

static inline void snic_stat_inc(__le64 *counter)
{
    snic_stat_add(counter, 1);
}

/*
 * SNIC_EVENT(c, NAME, args...) reports event NAME of events.h;
 * SNIC_GUEST_ERROR(c, GE_NAME, args...) counts and logs a guest error too.
 * Both check at compile time that the arguments are those of the entry
 * (SNIC_EV_*, events.h).
 */
#define SNIC_EVENT(c, name, ...) do { \
        _Static_assert(SNIC_EV_NARGS_(__VA_ARGS__) == SNIC_EV_ARGC_##name, \
                       #name ": arguments differ from events.h"); \
        snic_trace((c), SNIC_TRACE_##name, \
                   (const uint64_t[4])SNIC_EV_ARGS4_(__VA_ARGS__)); \
    } while (0)

#define SNIC_GUEST_ERROR(c, name, ...) do { \
        _Static_assert(SNIC_EV_NARGS_(__VA_ARGS__) == SNIC_EV_ARGC_##name, \
                       #name ": arguments differ from events.h"); \
        snic_guest_error((c), SNIC_TRACE_##name, \
                         (const uint64_t[4])SNIC_EV_ARGS4_(__VA_ARGS__)); \
    } while (0)

/* The longest frame the port's MTU lets through, either way */
static inline size_t snic_max_frame(const SnicCore *c)
{
    return c->mtu + SNIC_ETH_HLEN_MAX;
}

/* Enabled, not fatal, and no reset waiting to happen. */
static inline bool snic_ready(const SnicCore *c)
{
    return (c->status & SNIC_STATUS_READY) &&
           !(c->status & SNIC_STATUS_FATAL) && !c->reset_pending;
}

/* core.c: the hub */
void snic_enter(SnicCore *c);
void snic_leave(SnicCore *c);
void snic_request_reset(SnicCore *c, SnicResetKind kind);

/* services.c: what every unit calls */
void snic_trace(SnicCore *c, SnicTracePoint tp, const uint64_t a[4]);
/* Count a guest error, report its event, log its message. */
void snic_guest_error(SnicCore *c, SnicTracePoint ge, const uint64_t a[4]);
/* admin.c: the stats' object gauges, copied from the counts kept */
void snic_stats_objects(SnicCore *c);
int snic_dma_read(SnicCore *c, uint64_t addr, void *buf, size_t len);
int snic_dma_write(SnicCore *c, uint64_t addr, const void *buf, size_t len);
/*
 * ... either, with nothing counted or reported if it fails: the caller
 * does it again through the two above, in the pieces it is made of
 */
int snic_dma_try(SnicCore *c, uint64_t addr, void *buf, size_t len,
                 bool write);
/*
 * QP qpn's data buffer access failed on the DMA the host just refused:
 * a guest error names the QP and the address, at most one a second.
 */
void snic_dma_fault_report(SnicCore *c, uint32_t qpn);
void snic_raise_irq(SnicCore *c, unsigned vector);
void snic_intr_cause(SnicCore *c, uint32_t cause);
void snic_timer_hint(SnicCore *c, uint64_t deadline);
/* an async event (SNIC_EVENT_*) for the guest's AEQ; the device fails */
void snic_aeq_post(SnicCore *c, uint32_t event, uint64_t data);
void snic_fatal(SnicCore *c, uint32_t err);

/* admin.c */
bool snic_admin_config_ok(SnicCore *c);
/* An admin failure to arm is valid (else the error names the property) */
bool snic_admin_fail_check(const SnicAdminFail *fail, GError **errp);
void snic_admin_doorbell(SnicCore *c, uint8_t type, uint32_t qid,
                         uint32_t index);
bool snic_admin_run(SnicCore *c, unsigned budget);

/* eth.c */
SnicEthQueue *snic_eth_queue(SnicCore *c, uint8_t type, uint32_t qid);
uint16_t snic_eth_create_queue(SnicCore *c,
                               const struct snic_admin_create_eth_queue *p,
                               uint64_t *qid);
uint16_t snic_eth_destroy_queue(SnicCore *c,
                                const struct snic_admin_eth_queue_ref *p);
uint16_t snic_eth_start_queue(SnicCore *c,
                              const struct snic_admin_eth_queue_ref *p);
uint16_t snic_eth_stop_queue(SnicCore *c,
                             const struct snic_admin_eth_queue_ref *p);
void snic_eth_doorbell(SnicCore *c, uint8_t type, uint32_t qid,
                       uint32_t index);
bool snic_eth_run(SnicCore *c, unsigned budget);
void snic_eth_rx_drop(SnicCore *c, __le64 *counter, size_t len,
                      SnicDropReason reason);
void snic_eth_receive(SnicCore *c, const uint8_t *f, size_t len);
uint64_t snic_eth_irq_timer(SnicCore *c, uint64_t now);

/*
 * A context's share of a pool every context draws from (the SRQ receive
 * pool, RPC slots and staging buffers, the kernel table, the multicast
 * table and each group's QP slots): a quarter, at
 * least one, so that no process leaves the others without room. Counted
 * by doorbell page, the device's name for a context.
 */
#define SNIC_CTX_POOL_DIV   4

static inline uint32_t snic_ctx_share(uint32_t pool)
{
    return pool / SNIC_CTX_POOL_DIV ? pool / SNIC_CTX_POOL_DIV : 1;
}

#endif /* SNIC_CORE_INT_H */
