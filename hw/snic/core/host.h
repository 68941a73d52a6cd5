/*
 * snic core: the host interface.
 *
 * The core never includes a QEMU header. Everything it needs from the
 * outside world comes through these operations, implemented by the QEMU
 * glue (hw/snic/snic.c: pci_dma_*, qemu_send_packet, msix_notify, BHs and
 * virtual-clock timers) and by the unit tests and the simulator (plain
 * memory, captured frames and interrupts, virtual time).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_HOST_H
#define SNIC_CORE_HOST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Trace points the core reports; the glue maps each to a trace event. */
typedef enum SnicTracePoint {
    SNIC_TRACE_REG_READ,        /* a = offset, b = value */
    SNIC_TRACE_REG_WRITE,       /* a = offset, b = value */
    SNIC_TRACE_DOORBELL,        /* a = page, b = type, c = qid, d = index */
    SNIC_TRACE_ADMIN_CMD,       /* a = opcode, b = cmd_id, c = sq slot */
    SNIC_TRACE_ADMIN_DONE,      /* a = opcode, b = cmd_id, c = status */
    SNIC_TRACE_ASYNC_EVENT,     /* a = event, b = data */
    SNIC_TRACE_DMA_ERROR,       /* a = addr, b = len, c = is_write */
    SNIC_TRACE_IRQ,             /* a = vector */
    SNIC_TRACE_ETH_TX,          /* a = qid, b = len */
    SNIC_TRACE_ETH_RX,          /* a = qid, b = len */
    SNIC_TRACE_ETH_DROP,        /* a = is_rx, b = len, c = SnicDropReason */
    SNIC_TRACE_RESET,           /* a = 1 disable, 2 full reset */
} SnicTracePoint;

/* Why the Ethernet function dropped a frame (SNIC_TRACE_ETH_DROP). */
typedef enum SnicDropReason {
    SNIC_DROP_NOT_READY,        /* RX: device or RX ring not running */
    SNIC_DROP_ROCEV2,           /* RX: UDP/4791, for the RDMA engine */
    SNIC_DROP_MAC_FILTER,       /* RX: unicast to another MAC */
    SNIC_DROP_OVER_MTU,         /* longer than MTU + header */
    SNIC_DROP_BUFFER_SMALL,     /* RX: longer than the posted buffer */
    SNIC_DROP_BAD_RX_RING,      /* RX: descriptor not readable */
    SNIC_DROP_BAD_TX,           /* TX: bad descriptor/buffer/length */
    SNIC_DROP_LINK_DOWN,        /* TX: link down */
} SnicDropReason;

typedef struct SnicHostOps {
    /*
     * Device-initiated DMA. Return 0 on success, -1 if any byte of the
     * range could not be accessed (the core then reports the error the
     * ABI defines; nothing is partially trusted).
     */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
                     size_t len);

    /* Hand one complete Ethernet frame to the wire. */
    void (*tx_frame)(void *opaque, const void *frame, size_t len);

    /* Raise an MSI-X vector (vector < configured vectors). */
    void (*raise_irq)(void *opaque, unsigned vector);
    /* Drop a pending (not yet delivered) message of a vector. */
    void (*clear_irq)(void *opaque, unsigned vector);

    /* Schedule snic_core_run() soon; never call it synchronously. */
    void (*kick)(void *opaque);
    /* RX buffers were posted: retry frames the core refused earlier. */
    void (*rx_resume)(void *opaque);
    /* Reset: drop frames held back for the device (never delivered). */
    void (*rx_purge)(void *opaque);

    /* Current time on the device's (virtual) clock, in nanoseconds. */
    uint64_t (*now_ns)(void *opaque);
    /*
     * Arm the core's single timer to call snic_core_timer() at deadline_ns
     * (now_ns clock), replacing any earlier deadline; UINT64_MAX disarms.
     */
    void (*timer_mod)(void *opaque, uint64_t deadline_ns);

    /* A driver mistake, as a one-line message naming the rule broken. */
    void (*guest_error)(void *opaque, const char *fmt, va_list ap)
        __attribute__((format(printf, 2, 0)));
    /* Structured trace point (may be NULL). */
    void (*trace)(void *opaque, SnicTracePoint tp, uint64_t a, uint64_t b,
                  uint64_t c, uint64_t d);
} SnicHostOps;

#endif /* SNIC_CORE_HOST_H */
