/*
 * snic core: the device's end of the wire, the port's MAC. Every frame the
 * device sends or receives passes here: it is captured (pcap= property)
 * and, when configured, dropped, duplicated or reordered to test
 * transports in QEMU without an external impairment tool. The MAC also
 * holds the port's receive buffer, where RoCE frames wait for the engine,
 * and runs IEEE 802.1Qbb priority flow control (PFC) for the RoCE
 * priority: lossless RoCE, as RoCE fabrics are deployed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_LINK_H
#define SNIC_CORE_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port/link_types.h"

typedef struct SnicCore SnicCore;


/*
 * Fault injection for StRoM Fig. 10 (x-torn-reads): a host read of
 * 'total' bytes, whose bytes [off, off + len) are in buf, comes back torn
 * torn_pct percent of the time, as a read that races a writer in the
 * object does: its middle byte differs. One draw per read, made by the
 * part that holds that byte (an RDMA READ response packet, a kernel's
 * chunk); memory itself is not touched. Here, with the wire's faults,
 * for their seed and PRNG: one property seeds every injected fault.
 */
void snic_fault_tear(SnicCore *c, uint8_t *buf, uint64_t off, uint32_t len,
                     uint64_t total);
void snic_link_init(SnicCore *c, const SnicLinkFaults *faults);
/* Bytes of the port's receive buffer (on-chip memory) */
size_t snic_link_rx_buffer_bytes(const SnicCore *c);
/*
 * New faults from now on: the PRNG keeps its state, unless reseed (the
 * seed was set), which starts it over from faults->seed.
 */
void snic_link_set_faults(SnicCore *c, const SnicLinkFaults *faults,
                          bool reseed);
void snic_link_free(SnicCore *c);
/*
 * Reset: forget a held frame and the received ones (the wire does not
 * remember them either), and both directions' pause state.
 */
void snic_link_reset(SnicCore *c);

/* Send a frame the link is up for; 'frame' may be reused on return. */
void snic_link_tx(SnicCore *c, const void *frame, size_t len,
                  size_t host_bytes);
/*
 * Turn a RoCE frame for the port's own address around (captured as sent
 * and as received) into the receive buffer; false if it has no room (the
 * frame is lost, as on a wire).
 */
bool snic_link_loop(SnicCore *c, const void *frame, size_t len);
/* Capture a frame arriving from the wire. */
void snic_link_rx(SnicCore *c, const void *frame, size_t len);
/* End of a burst: a frame still held back goes out now. */
void snic_link_flush(SnicCore *c);

/* A MAC control frame (EtherType 0x8808): the MAC's, never the host's */
bool snic_link_is_mac_control(const uint8_t *frame, size_t len);
/* Act on one (PFC) and consume it; it passed the MAC filter. */
void snic_link_mac_control(SnicCore *c, const uint8_t *frame, size_t len);

/* Queue a received RoCE frame for the engine (or drop it, counted). */
void snic_link_rx_queue(SnicCore *c, const uint8_t *frame, size_t len);
/*
 * The engine's share of the receive buffer: hand up to 'budget' frames to
 * 'deliver' in arrival order, send a due PFC frame. True if frames remain.
 */
bool snic_link_rx_run(SnicCore *c, unsigned budget,
                      void (*deliver)(SnicCore *c, const uint8_t *frame,
                                      size_t len));
/*
 * The engine may let frames wait in the receive buffer while the wire
 * brings more: no PFC frame waits to go out, and the buffer is below 7/8.
 */
bool snic_link_rx_can_wait(const SnicCore *c);

/*
 * Start of an engine run: its RoCE frames are counted afresh. The QP
 * scheduler asks before each iteration whether the port may send RoCE
 * (an iteration that starts may finish its burst, scheduler.h).
 */
void snic_link_run_start(SnicCore *c);
typedef enum SnicLinkTx {
    SNIC_LINK_TX_OK,
    /*
     * The partner pauses the RoCE priority (PFC). A resume or the
     * pause's end kicks the engine. (The port's own receive buffer above
     * XOFF pauses only the partner: the ACKs and READ responses the
     * engine owes it still go out. A frame the port turns around for
     * itself that finds no room is lost, as on a wire.)
     */
    SNIC_LINK_TX_PAUSED,
    /* The run sent its SNIC_PORT_RUN_FRAMES: the next run goes on. */
    SNIC_LINK_TX_RUN_DONE,
} SnicLinkTx;
SnicLinkTx snic_link_roce_tx(SnicCore *c);

/*
 * Frames pile up before the port (true) or no longer (false): a host
 * whose wire has its own queue that PFC cannot see (QEMU's socket
 * backends) reports it, and the port pauses the partner for it as for a
 * buffer above XOFF, until it drained (and the buffer is at XON).
 */
void snic_link_wire_backlog(SnicCore *c, bool backlog);

/* Pause expiry and XOFF refresh due at 'now'; the next deadline. */
uint64_t snic_link_timer(SnicCore *c, uint64_t now);

#endif /* SNIC_CORE_LINK_H */
