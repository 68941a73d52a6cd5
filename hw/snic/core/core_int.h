/*
 * snic core: internal state shared by the core's files.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_INT_H
#define SNIC_CORE_INT_H

#include <glib.h>
#include <inttypes.h>

#include "snic_core.h"
#include "snic/snic_admin.h"
#include "snic/snic_eth.h"

/* The largest frame the Ethernet function moves in either direction. */
#define SNIC_ETH_MAX_FRAME  (SNIC_ETH_MAX_MTU + SNIC_ETH_HLEN_MAX)

typedef struct SnicEthQueue {
    bool created;
    bool started;
    uint8_t type;               /* enum snic_eth_queue_type */
    uint8_t log2_depth;
    uint16_t vector;
    uint16_t irq_delay_us;
    uint64_t ring;              /* guest address of descriptor 0 */
    uint32_t head;              /* device consumer index */
    uint32_t tail;              /* driver producer index (doorbell) */
    bool irq_pending;           /* moderated interrupt waiting for timer */
    uint64_t irq_deadline;
} SnicEthQueue;

struct SnicCore {
    SnicCoreConfig cfg;
    const SnicHostOps *ops;
    void *opaque;

    /* Device state from here on: snic_core_reset() zeroes it. */
    uint32_t ctrl;
    uint32_t status;
    uint32_t error;
    uint32_t intr_cause;
    uint32_t intr_mask;
    uint64_t admin_sq_base;
    uint64_t admin_cq_base;
    uint32_t admin_log2_depth;
    uint64_t aeq_base;
    uint32_t aeq_log2_depth;

    /* Admin queue indices (free-running) */
    uint32_t sq_head;           /* next command the device fetches */
    uint32_t sq_tail;           /* producer index from the doorbell */
    uint32_t cq_head;           /* consumer index from the doorbell */
    uint32_t cq_tail;           /* next completion slot */

    /* Async event queue indices */
    uint32_t aeq_head;
    uint32_t aeq_tail;

    /* Ethernet function */
    bool link_up;
    uint8_t mac[6];
    uint32_t mtu;
    SnicEthQueue txq[SNIC_ETH_MAX_TXQS];
    SnicEthQueue rxq[SNIC_ETH_MAX_RXQS];
    uint8_t frame[SNIC_ETH_MAX_FRAME];  /* TX gather buffer */

    uint64_t timer_deadline;    /* armed host timer, UINT64_MAX if none */

    struct snic_stats stats;    /* little-endian, as the guest reads it */
};

static inline void snic_stat_add(__le64 *counter, uint64_t n)
{
    *counter = GUINT64_TO_LE(GUINT64_FROM_LE(*counter) + n);
}

static inline void snic_stat_inc(__le64 *counter)
{
    snic_stat_add(counter, 1);
}

static inline bool snic_ready(const SnicCore *c)
{
    return (c->status & SNIC_STATUS_READY) &&
           !(c->status & SNIC_STATUS_FATAL);
}

/* core.c */
void snic_trace(SnicCore *c, SnicTracePoint tp, uint64_t a0, uint64_t a1,
                uint64_t a2, uint64_t a3);
void G_GNUC_PRINTF(2, 3) snic_guest_error(SnicCore *c, const char *fmt, ...);
int snic_dma_read(SnicCore *c, uint64_t addr, void *buf, size_t len);
int snic_dma_write(SnicCore *c, uint64_t addr, const void *buf, size_t len);
void snic_raise_irq(SnicCore *c, unsigned vector);
void snic_intr_cause(SnicCore *c, uint32_t cause);
void snic_timer_update(SnicCore *c);

/* admin.c */
bool snic_admin_config_ok(SnicCore *c);
void snic_admin_doorbell(SnicCore *c, uint8_t type, uint32_t qid,
                         uint32_t index);
bool snic_admin_run(SnicCore *c, unsigned budget);
void snic_aeq_post(SnicCore *c, uint32_t event, uint64_t data);

/* eth.c */
SnicEthQueue *snic_eth_queue(SnicCore *c, uint8_t type, uint32_t qid);
uint16_t snic_eth_create_queue(SnicCore *c,
                               const struct snic_admin_create_eth_queue *p,
                               uint64_t *qid);
uint16_t snic_eth_queue_cmd(SnicCore *c, uint8_t opcode,
                            const struct snic_admin_eth_queue_ref *p);
void snic_eth_doorbell(SnicCore *c, uint8_t type, uint32_t qid,
                       uint32_t index);
bool snic_eth_run(SnicCore *c, unsigned budget);
void snic_eth_timer(SnicCore *c, uint64_t now);
uint64_t snic_eth_next_deadline(SnicCore *c);
bool snic_frame_is_rocev2(const uint8_t *frame, size_t len);

#endif /* SNIC_CORE_INT_H */
