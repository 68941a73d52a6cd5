/*
 * A device core's clock, timer, engine runs and wire (see sim-port.h),
 * and the NIC timing model (tests/sim/README.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "sim-port.h"
#include "snic/snic_opcodes.h"
#include "snic/snic_verbs.h"

/* Work items per snic_core_run() call, as the QEMU device's bottom half */
#define PORT_RUN_BUDGET 16

const SnicSimNicTiming snic_sim_srnic_timing = {
    .pcie_rtt_ns = SNIC_SIM_SRNIC_PCIE_RTT_NS,
    .pcie_bps = SNIC_SIM_SRNIC_PCIE_BPS,
    .pipeline_ns = SNIC_SIM_SRNIC_PIPELINE_NS,
    .line_rate_bps = SNIC_SIM_SRNIC_LINE_RATE_BPS,
    .desc_priority = true,
    .untagged_priority = SNIC_SIM_ROCE_PRIORITY,
};

/*
 * A frame in the receive pipeline, due at the core at 'ready'. Its link
 * puts it on the port's queue or, done, on its free list: a port in its
 * steady state allocates nothing.
 */
typedef struct RxFrame {
    GList link;
    uint64_t ready;
    size_t len;
    size_t cap;
    uint8_t *data;
} RxFrame;

/* A frame buffer for len bytes, from the free list if it holds one */
static RxFrame *rx_frame_new(SnicSimPort *p, size_t len)
{
    GList *l = g_queue_pop_head_link(&p->rx_free);
    RxFrame *f = l ? l->data : g_new0(RxFrame, 1);

    f->link.data = f;
    if (f->cap < len) {
        g_free(f->data);
        f->cap = MAX(len, 2048);
        f->data = g_malloc(f->cap);
    }
    f->len = len;
    return f;
}

static void rx_frame_free(SnicSimPort *p, RxFrame *f)
{
    g_queue_push_head_link(&p->rx_free, &f->link);
}

void snic_sim_port_init(SnicSimPort *p, unsigned run_rounds)
{
    *p = (SnicSimPort) {
        .run_rounds = run_rounds,
        .now = 1000,
        .timer_deadline = UINT64_MAX,
        .rx_queue = G_QUEUE_INIT,
        .rx_free = G_QUEUE_INIT,
    };
}

void snic_sim_port_destroy(SnicSimPort *p)
{
    GList *l;

    snic_sim_port_rx_purge(p);
    while ((l = g_queue_pop_head_link(&p->rx_free))) {
        RxFrame *f = l->data;

        g_free(f->data);
        g_free(f);
    }
    if (p->timing.qpc_cache_entries) {
        snic_sim_qpc_cache_destroy(&p->qpc);
    }
    if (p->sim && p->timed) {      /* the MAC is made on attach */
        snic_sim_mac_destroy(&p->mac);
    }
}

void snic_sim_port_set_timing(SnicSimPort *p, const SnicSimNicTiming *t)
{
    g_assert(!p->sim);
    g_assert(!t->obey_pause || t->line_rate_bps);
    g_assert(t->untagged_priority < SNIC_SIM_PRIORITIES);
    /* a miss costs a round trip: the model must have one */
    g_assert(!t->qpc_cache_entries || t->pcie_rtt_ns);
    p->timing = *t;
    p->timed = t->pcie_rtt_ns || t->pcie_bps || t->pipeline_ns ||
               t->line_rate_bps;
    if (t->qpc_cache_entries) {
        snic_sim_qpc_cache_init(&p->qpc, t->qpc_cache_entries);
    }
}

void snic_sim_port_set_tx_qpn(SnicSimPort *p, SnicSimTxQpnFn fn,
                              void *opaque)
{
    p->tx_qpn = fn;
    p->tx_qpn_opaque = opaque;
}

unsigned snic_sim_port_run(SnicSimPort *p)
{
    unsigned i;

    for (i = 0; i < p->run_rounds && snic_core_run(p->core, PORT_RUN_BUDGET);
         i++) {
        /* the core said more work remains */
    }
    return i;
}

static void port_sim_run(void *opaque)
{
    SnicSimPort *p = opaque;

    p->run_scheduled = false;
    /*
     * A full transmit FIFO holds the engine until its room() kicks it
     * again (a host's own run, fake_run's admin commands, does not wait)
     */
    if (p->timed && snic_sim_mac_full(&p->mac)) {
        return;
    }
    snic_sim_port_run(p);
}

static void port_sim_timer(void *opaque)
{
    SnicSimPort *p = opaque;

    p->timer_id = 0;
    p->timer_deadline = UINT64_MAX;     /* one-shot, like QEMU timers */
    snic_core_timer(p->core);
}

static uint64_t ns_up(uint64_t ps)
{
    return (ps + 999) / 1000;
}

static uint64_t pcie_ps(const SnicSimPort *p, uint64_t bytes)
{
    return p->timing.pcie_bps ?
           (uint64_t)(bytes * 8e12 / p->timing.pcie_bps) : 0;
}

/*
 * A read issued at 'at': its completions queue for the read direction's
 * bandwidth behind earlier reads (FIFO), then the round trip. Reads in
 * flight overlap; only their data shares the link.
 */
static uint64_t pcie_read(SnicSimPort *p, uint64_t at, uint64_t bytes)
{
    p->rd_free_ps = MAX(p->rd_free_ps, at * 1000) + pcie_ps(p, bytes);
    p->stats.pcie_reads++;
    p->stats.pcie_read_bytes += bytes;
    return ns_up(p->rd_free_ps) + p->timing.pcie_rtt_ns;
}

/* A posted write from 'at': done when its data has crossed the link. */
static uint64_t pcie_write(SnicSimPort *p, uint64_t at, uint64_t bytes)
{
    p->wr_free_ps = MAX(p->wr_free_ps, at * 1000) + pcie_ps(p, bytes);
    p->stats.pcie_writes++;
    p->stats.pcie_write_bytes += bytes;
    return ns_up(p->wr_free_ps);
}

/*
 * Cached-QPC mode: a RoCE frame needs QPC 'key' when its pipeline reaches
 * it (at *pipe_free, or now if that is idle). On a miss (true) the
 * pipeline, which works in order, stalls until the QPC has been read
 * (the new *pipe_free): what follows waits behind it.
 */
static bool qpc_miss(SnicSimPort *p, uint32_t key, uint64_t now,
                     uint64_t *pipe_free)
{
    if (!p->timing.qpc_cache_entries) {
        return false;
    }
    if (snic_sim_qpc_cache_use(&p->qpc, key)) {
        p->stats.qpc_hits++;
        return false;
    }
    p->stats.qpc_misses++;
    *pipe_free = pcie_read(p, MAX(now, *pipe_free), p->timing.qpc_bytes);
    return true;
}

/*
 * A descriptor read with desc_priority: the NIC keeps descriptor and data
 * reads in separate queues and its read arbiter serves descriptors
 * first (they are small, and the pipeline stalls without them), so one
 * waits only for the descriptor reads before it, not for payload reads
 * still queued. Its bytes still take the channel: every read issued
 * after it queues behind them too. (The data reads already queued keep
 * the times they were given: the model lets the two overlap by at most
 * the descriptor's bytes, a few percent of one burst.)
 */
static uint64_t pcie_read_desc(SnicSimPort *p, uint64_t at, uint64_t bytes)
{
    uint64_t ps = pcie_ps(p, bytes);

    p->desc_free_ps = MAX(p->desc_free_ps, at * 1000) + ps;
    p->rd_free_ps = MAX(p->rd_free_ps, at * 1000) + ps;
    p->stats.pcie_reads++;
    p->stats.pcie_read_bytes += bytes;
    return ns_up(p->desc_free_ps) + p->timing.pcie_rtt_ns;
}

uint64_t snic_sim_port_dma_read_done(SnicSimPort *p, size_t len)
{
    uint64_t now = snic_sim_port_now(p);

    if (!p->timed) {
        return now;
    }
    return p->timing.desc_priority ? pcie_read_desc(p, now, len) :
                                     pcie_read(p, now, len);
}

uint64_t snic_sim_port_dma_write_done(SnicSimPort *p, size_t len)
{
    uint64_t tlps = (len + SNIC_SIM_PCIE_MAX_PAYLOAD - 1) /
                    SNIC_SIM_PCIE_MAX_PAYLOAD;
    uint64_t bytes = len + tlps * SNIC_SIM_PCIE_WRITE_TLP_BYTES;

    if (!p->timed) {
        return snic_sim_port_now(p);
    }
    p->stats.kernel_writes++;
    p->stats.kernel_write_bytes += bytes;
    return pcie_write(p, snic_sim_port_now(p), bytes);
}

/* An RPC WRITE's payload goes to its kernel, not to host memory. */
static bool to_kernel(const SnicSimPort *p, uint8_t op)
{
    switch (snic_rpc_op_of(p->rpc_opmap, op)) {
    case SNIC_RPC_WRITE_FIRST:
    case SNIC_RPC_WRITE_MIDDLE:
    case SNIC_RPC_WRITE_LAST:
    case SNIC_RPC_WRITE_ONLY:
        return true;
    default:
        return false;
    }
}

/* RC/UC op-codes (UC's are RC's + 0x20) that take a receive WQE. */
static bool is_write(uint8_t op)
{
    return (op >= SNIC_OP_RC_WRITE_FIRST && op <= SNIC_OP_RC_WRITE_ONLY_IMM) ||
           (op >= SNIC_OP_UC_WRITE_FIRST && op <= SNIC_OP_UC_WRITE_ONLY_IMM);
}

/*
 * The stream unit's time for a WRITE packet's payload: whole beats of
 * its width at its clock, in ns rounded up (0 without a unit)
 */
static uint64_t stream_ns(SnicSimPort *p, uint8_t op, uint32_t payload)
{
    const SnicSimNicTiming *t = &p->timing;
    uint64_t beats;

    if (!t->stream_beat_bytes || !t->stream_clock_hz || !is_write(op)) {
        return 0;
    }
    beats = (payload + t->stream_beat_bytes - 1) / t->stream_beat_bytes;
    p->stats.stream_beats += beats;
    return (beats * 1000000000ull + t->stream_clock_hz - 1) /
           t->stream_clock_hz;
}

static bool takes_recv_wqe(const SnicSimPort *p, uint8_t op)
{
    if (op == SNIC_OP_UD_SEND_ONLY || op == SNIC_OP_UD_SEND_ONLY_IMM) {
        return true;
    }
    if (op >= 0x40) {
        return false;
    }
    switch (op & 0x1f) {
    case SNIC_OP_RC_SEND_FIRST:
    case SNIC_OP_RC_SEND_ONLY:
    case SNIC_OP_RC_SEND_ONLY_IMM:
    case SNIC_OP_RC_SEND_ONLY_INV:
    case SNIC_OP_RC_WRITE_LAST_IMM:     /* the immediate completes one */
    case SNIC_OP_RC_WRITE_ONLY_IMM:
        return !p->timing.write_imm_no_recv_wqe;
    default:
        return false;
    }
}

static void port_rx_run(void *opaque);

static void rx_schedule(SnicSimPort *p)
{
    GList *l = g_queue_peek_head_link(&p->rx_queue);
    RxFrame *f = l ? l->data : NULL;

    if (f && !p->rx_timer_id) {
        p->rx_timer_id = snic_sim_timer_add(p->sim, f->ready, port_rx_run, p);
    }
}

static void port_rx_run(void *opaque)
{
    SnicSimPort *p = opaque;
    uint64_t now = snic_sim_now(p->sim);
    GList *l;

    p->rx_timer_id = 0;
    while ((l = g_queue_peek_head_link(&p->rx_queue)) &&
           ((RxFrame *)l->data)->ready <= now) {
        RxFrame *f = l->data;

        g_queue_unlink(&p->rx_queue, l);
        snic_core_receive(p->core, f->data, f->len);
        rx_frame_free(p, f);
    }
    rx_schedule(p);
}

/*
 * A frame reached the MAC: the receive WQE it needs is fetched, the
 * pipeline takes it, its data is written; the core gets it then, in order.
 */
static void timed_receive(SnicSimPort *p, const uint8_t *frame, size_t len)
{
    uint64_t now = snic_sim_now(p->sim), t = now, wr = 0;
    SnicSimFrameInfo fi;
    uint64_t unit = 0;
    RxFrame *f;

    snic_sim_frame_info(frame, len, &fi);
    if (fi.roce) {
        /* a miss costs the pipeline one round trip, nothing else */
        qpc_miss(p, fi.dqpn, now, &p->rx_pipe_free);
        if (takes_recv_wqe(p, fi.opcode)) {
            t = pcie_read(p, now, SNIC_RQ_WQE_SIZE);
            p->stats.rq_wqe_fetches++;
        } else if (fi.opcode == SNIC_OP_RC_CMP_SWAP ||
                   fi.opcode == SNIC_OP_RC_FETCH_ADD) {
            t = pcie_read(p, now, 8);       /* the target's old value */
            wr = 8;
        }
        wr = fi.opcode == SNIC_OP_RC_ATOMIC_ACK ? 8 :
             to_kernel(p, fi.opcode) ? 0 : wr + fi.payload_len;
        unit = stream_ns(p, fi.opcode, fi.payload_len);
    } else if (fi.ethertype != SNIC_SIM_ETH_P_MAC_CTRL) {
        wr = len;           /* the Ethernet function's receive buffer */
    }
    t = MAX(t, p->rx_pipe_free) + p->timing.pipeline_ns + unit;
    p->rx_pipe_free = t;
    if (wr) {
        t = pcie_write(p, t, wr);
    }
    p->rx_last = t = MAX(t, p->rx_last);
    if (t <= now && g_queue_is_empty(&p->rx_queue)) {
        snic_core_receive(p->core, frame, len);
        return;
    }
    f = rx_frame_new(p, len);
    f->ready = t;
    memcpy(f->data, frame, len);
    g_queue_push_tail_link(&p->rx_queue, &f->link);
    rx_schedule(p);
}

void snic_sim_port_rx_purge(SnicSimPort *p)
{
    GList *l;

    while ((l = g_queue_pop_head_link(&p->rx_queue))) {
        rx_frame_free(p, l->data);
    }
    if (p->rx_timer_id) {
        snic_sim_timer_cancel(p->sim, p->rx_timer_id);
        p->rx_timer_id = 0;
    }
}

static void port_sim_recv(void *opaque, unsigned src, const uint8_t *frame,
                          size_t len)
{
    SnicSimPort *p = opaque;

    if (!p->timed) {
        snic_core_receive(p->core, frame, len);
    } else if (len >= 14 && (frame[12] << 8 | frame[13]) ==
               SNIC_SIM_ETH_P_MAC_CTRL) {
        /*
         * A MAC control frame never crosses PCIe: the MAC holds what
         * waits in it (if it obeys PAUSE), and the core's own PFC
         * (link.c) stops its scheduler; both see the frame at once.
         */
        snic_sim_mac_receive(&p->mac, frame, len);
        snic_core_receive(p->core, frame, len);
    } else {
        timed_receive(p, frame, len);
    }
}

static void port_mac_room(void *opaque)
{
    snic_sim_port_kick(opaque);
}

unsigned snic_sim_port_attach(SnicSimPort *p, SnicSim *sim)
{
    const SnicSimNicTiming *t = &p->timing;

    p->sim = sim;
    p->ep = snic_sim_add_endpoint(sim, port_sim_recv, p);
    if (p->timed) {
        snic_sim_mac_init(&p->mac, sim, p->ep, p->peer, t->line_rate_bps,
                          t->obey_pause, t->untagged_priority);
        snic_sim_mac_set_fifo(&p->mac, t->tx_fifo_bytes, port_mac_room, p);
    }
    return p->ep;
}

void snic_sim_port_connect(SnicSimPort *a, SnicSimPort *b,
                           const SnicSimLinkConfig *cfg)
{
    a->peer = a->mac.peer = b->ep;
    b->peer = b->mac.peer = a->ep;
    snic_sim_connect(a->sim, a->ep, b->ep, cfg);
}

unsigned snic_sim_port_connect_switch(SnicSimPort *p, SnicSimSwitch *sw,
                                      const SnicSimLinkConfig *cfg)
{
    p->peer = p->mac.peer = snic_sim_switch_endpoint(sw);
    return snic_sim_switch_add_port(sw, p->ep, cfg);
}

uint64_t snic_sim_port_now(const SnicSimPort *p)
{
    return p->sim ? snic_sim_now(p->sim) : p->now;
}

void snic_sim_port_timer_mod(SnicSimPort *p, uint64_t deadline)
{
    p->timer_deadline = deadline;
    if (!p->sim) {
        return;
    }
    if (p->timer_id) {
        snic_sim_timer_cancel(p->sim, p->timer_id);
        p->timer_id = 0;
    }
    if (deadline != UINT64_MAX) {
        p->timer_id = snic_sim_timer_add(p->sim, deadline, port_sim_timer, p);
    }
}

void snic_sim_port_kick(SnicSimPort *p)
{
    if (p->sim && !p->run_scheduled) {
        p->run_scheduled = true;
        snic_sim_timer_add(p->sim, snic_sim_now(p->sim), port_sim_run, p);
    }
}

/*
 * Timed: what the core read from host memory for the frame is read (the
 * core says how much: a payload from SGEs, not inline data or a staged
 * answer), the pipeline takes it, and the MAC sends it at the line rate;
 * frames keep their order.
 */
bool snic_sim_port_tx(SnicSimPort *p, const void *frame, size_t len,
                      size_t host_bytes)
{
    uint64_t now, t;
    SnicSimFrameInfo fi;

    if (!p->sim) {
        return false;
    }
    if (!p->timed) {
        snic_sim_send(p->sim, p->ep, p->peer, frame, len);
        return true;
    }
    now = snic_sim_now(p->sim);
    snic_sim_frame_info(frame, len, &fi);
    t = host_bytes ? pcie_read(p, now, host_bytes) : now;
    if (fi.roce && p->timing.qpc_cache_entries) {
        uint32_t key = p->tx_qpn ? p->tx_qpn(p->tx_qpn_opaque, fi.dqpn) :
                                   fi.dqpn + (1u << 24);

        /* the payload's address came with the WQE: it is read meanwhile */
        qpc_miss(p, key, now, &p->tx_pipe_free);
    }
    p->tx_pipe_free = MAX(t, p->tx_pipe_free) + p->timing.pipeline_ns;
    snic_sim_mac_send(&p->mac, p->tx_pipe_free, frame, len);
    return true;
}

void snic_sim_port_advance(SnicSimPort *p, uint64_t ns)
{
    p->now += ns;
    if (p->timer_deadline != UINT64_MAX && p->timer_deadline <= p->now) {
        p->timer_deadline = UINT64_MAX;     /* one-shot */
        snic_core_timer(p->core);
    }
}
