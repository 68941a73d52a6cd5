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

#include <stddef.h>
#include <stdint.h>

#include "events.h"

/*
 * The events the core reports (events.h); the glue maps each to the QEMU
 * trace event of the same name. SNIC_TRACE_<NAME> numbers them from 0 in
 * list order: one enum per entry, counted by __COUNTER__ from a base
 * taken just before (QEMU's checkpatch refuses a macro that expands to a
 * comma-terminated enumerator, so the list cannot fill one enum).
 */
typedef unsigned SnicTracePoint;
enum { SNIC_TRACE_BASE_ = __COUNTER__ + 1 };
#define SNIC_TRACE_NUMBER_(name, ...) \
    enum { SNIC_TRACE_##name = __COUNTER__ - SNIC_TRACE_BASE_ };
SNIC_EVENTS(SNIC_TRACE_NUMBER_)
#undef SNIC_TRACE_NUMBER_
enum { SNIC_TRACE__MAX = __COUNTER__ - SNIC_TRACE_BASE_ };

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
    SNIC_DROP_NO_BUFFER,        /* RX: no buffer and the receive FIFO full */
    SNIC_DROP_MAC_CONTROL,      /* RX: MAC control, not a well-formed PFC */
    SNIC_DROP_RX_BUFFER,        /* RX: no room in the port's receive buffer */
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

    /*
     * The timing model's cost of a device read, or NULL: QEMU's device is
     * functional and its DMA completes at once. When a read of 'len' bytes
     * issued now would complete (now_ns clock). The scheduler issues an
     * SQ's WQE fetch, parks the QP until then and serves others meanwhile,
     * so many fetches are in flight as on pipelined hardware; the host
     * charges payload reads, DMA writes and the pipeline in its own TX and
     * RX paths (tests/sim documents the model).
     */
    uint64_t (*dma_read_done)(void *opaque, size_t len);
    /*
     * ... and of a device write the core times itself, or NULL (at once):
     * when a posted write of 'len' bytes issued now is done. StRoM's
     * kernels call it for their writes to host memory (the host's receive
     * path charges the writes of received payloads).
     */
    uint64_t (*dma_write_done)(void *opaque, size_t len);

    /*
     * Hand one complete Ethernet frame to the wire. 'host_bytes': how many
     * of its bytes the device read from host memory to build it (a
     * payload gathered from SGEs, a READ response's data, an answer read
     * from a region; the whole frame of the Ethernet function), 0 for what
     * the device makes itself (headers, ACKs, inline WQE data, answers
     * from its staging buffers): what a timing model charges as a read.
     */
    void (*tx_frame)(void *opaque, const void *frame, size_t len,
                     size_t host_bytes);

    /* Raise an MSI-X vector (vector < configured vectors). */
    void (*raise_irq)(void *opaque, unsigned vector);
    /* Drop a pending (not yet delivered) message of a vector. */
    void (*clear_irq)(void *opaque, unsigned vector);

    /* Schedule snic_core_run() soon; never call it synchronously. */
    void (*kick)(void *opaque);
    /* Reset: drop frames held back for the device (never delivered). */
    void (*rx_purge)(void *opaque);

    /* Current time on the device's (virtual) clock, in nanoseconds. */
    uint64_t (*now_ns)(void *opaque);
    /*
     * Arm the core's single timer to call snic_core_timer() at deadline_ns
     * (now_ns clock), replacing any earlier deadline; UINT64_MAX disarms.
     */
    void (*timer_mod)(void *opaque, uint64_t deadline_ns);

    /*
     * A driver mistake of kind 'ge' (an SNIC_TRACE_GE_* event, already
     * reported through trace), as a one-line message naming the rule
     * broken.
     */
    void (*guest_error)(void *opaque, SnicTracePoint ge, const char *msg);
    /* An event of events.h with its arguments (may be NULL). */
    void (*trace)(void *opaque, SnicTracePoint tp, const uint64_t a[4]);
} SnicHostOps;

#endif /* SNIC_CORE_HOST_H */
