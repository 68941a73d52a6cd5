/*
 * snic core: the device behind BAR0, the doorbells and the wire, free of
 * QEMU. The glue (hw/snic/snic.c) and the tests drive it through this API;
 * the core reaches out only through SnicHostOps (host.h).
 *
 * Threading: every entry point must be called from one context at a time
 * (QEMU: the main loop with the BQL held).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_H
#define SNIC_CORE_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"
#include "port/link_types.h"
#include "port/pcap.h"
#include "snic/snic_regs.h"

/* Limits left 0 take the defaults below. */
#define SNIC_DEFAULT_MAX_PD         1024
#define SNIC_DEFAULT_MAX_MR         4096
#define SNIC_DEFAULT_MAX_MR_PAGES   (1u << 20)  /* 4 GiB of 4 KiB pages */
#define SNIC_DEFAULT_TLB_ENTRIES    4096
#define SNIC_DEFAULT_MAX_QP         65536
#define SNIC_DEFAULT_MAX_CQ         1024
/* SRNIC's FPGA has 4.4 MB (NSDI'23 section 6.1) */
#define SNIC_DEFAULT_ONCHIP_KB      4096
#define SNIC_DEFAULT_MAX_EQ         64
#define SNIC_DEFAULT_MAX_SRQ        1024
#define SNIC_DEFAULT_MAX_MW         1024
#define SNIC_DEFAULT_RECV_POOL      1024
/* resp-hold-ms: a held SRQ receive let go of (QP timeout 0), <= 1 hour */
#define SNIC_DEFAULT_RESP_HOLD_MS   1000
#define SNIC_MAX_RESP_HOLD_MS       3600000
/* The scheduler (SRNIC, NSDI'23, section 4.3.1): its n and burst_size */
#define SNIC_SCHED_DEFAULT_WQES     8           /* SRNIC's n */
#define SNIC_SCHED_DEFAULT_BURST    (16 * 1024) /* SRNIC's burst_size */

typedef enum SnicSchedPolicy {
    SNIC_SCHED_RR,
    SNIC_SCHED_WRR,
    SNIC_SCHED_SP,
} SnicSchedPolicy;

#define SNIC_SCHED_MAX_WQES         64
#define SNIC_SCHED_MAX_BURST        (1u << 20)
#define SNIC_MAX_OBJECTS            (1u << 20)
#define SNIC_MAX_VECTORS            64

/*
 * Failing admin commands on purpose (x-admin-fail-count, -status,
 * -opcode), to test a driver's error paths: the next 'count' commands
 * of 'opcode' complete with 'status' without executing, counted in
 * admin_fails_injected (and admin_cmds, admin_errors).
 */
#define SNIC_ADMIN_FAIL_CREATE  0x100   /* opcode: every CREATE, ALLOC, REG */
typedef struct SnicAdminFail {
    uint32_t count;             /* commands still to fail; 0 = off */
    uint16_t status;            /* enum snic_admin_status, not OK */
    uint16_t opcode;            /* enum snic_admin_opcode, or the above */
} SnicAdminFail;

/*
 * The device's configuration (QEMU: its properties, named in errors).
 * Validated in one place, snic_core_config_check().
 */
typedef struct SnicCoreConfig {
    uint32_t num_db_pages;      /* 1..SNIC_DB_MAX_PAGES */
    uint32_t num_vectors;       /* 1..SNIC_MAX_VECTORS; 0 = admin + AEQ */
    uint8_t mac[6];             /* power-on MAC address */
    uint32_t max_pd;            /* 1..SNIC_MAX_OBJECTS */
    uint32_t max_mr;            /* 1..SNIC_MAX_OBJECTS */
    uint32_t max_mr_pages;      /* page-list entries per MR */
    uint32_t tlb_entries;       /* translation cache lines, power of 2 */
    uint32_t max_qp;            /* RC/UD QPs besides the GSI QP */
    uint32_t max_cq;
    uint32_t max_eq;
    uint32_t max_srq;
    uint32_t max_mw;
    uint32_t recv_pool;         /* SRQ receive WQEs in progress at once */
    /*
     * How long a responder holds an SRQ receive WQE for a message whose
     * next packet does not come, when its QP's timeout is 0 (infinite);
     * else 4.096 us * 2^timeout * (retry_cnt + 1). 0: the default.
     */
    uint32_t resp_hold_ms;
    uint32_t onchip_kb;         /* on-chip memory budget (onchip.h) */
    /* the QP scheduler (engine/scheduler.h); 0: its default */
    uint32_t sched_policy;      /* SnicSchedPolicy */
    uint32_t sched_wqes;        /* WQEs fetched per iteration */
    uint32_t sched_burst;       /* bytes sent per iteration */
    SnicLinkFaults faults;      /* each percentage 0..100 */
    SnicAdminFail admin_fail;   /* none: count 0 */
    uint8_t rpc_opmap;          /* enum snic_rpc_opmap: RPC op-codes */
    uint32_t shuffle_units;     /* StRoM shuffle units (0: no shuffle) */
    uint32_t hll_sketches;      /* HyperLogLog sketches (0: none) */
    /* the port's receive buffer and PFC (link.h) */
    uint32_t rx_buffer_kb;      /* SNIC_RX_BUFFER_{MIN,MAX}_KB; 0 default */
    uint32_t pfc_priority;      /* 0..7: the RoCE priority PFC pauses */
    bool lossy;                 /* pfc=off: no PAUSE sent, none obeyed */
    /* SNIC_{MIN,MAX}_LINK_SPEED_MBPS (link_types.h); 0: the default */
    uint32_t link_speed_mbps;
    /* the connectionless transport's tables (cl/cl.h); 0: the default */
    uint32_t cl_table;          /* registration table entries */
    uint32_t cl_mask_bits;      /* bits of a registration mask */
    uint32_t cl_packet;         /* payload bytes of a CL packet */
    uint32_t cl_escape;         /* escape channel packets */
    uint32_t cl_done;           /* completed-operations cache entries */
    uint32_t cl_ops;            /* the sender's DMA-operation table */
    uint32_t cl_txns;           /* ... and transaction table */
    uint32_t cl_endpoints;      /* endpoints at once (SET_QP_CL) */
} SnicCoreConfig;

typedef struct SnicCore SnicCore;

/*
 * True if every field is in range; else false with an error that names
 * the field by its device property (e.g. "vectors=0 is out of range").
 */
bool snic_core_config_check(const SnicCoreConfig *cfg, GError **errp);

/*
 * A device with this configuration; limits left 0 take the defaults
 * above. NULL (and the error) if the configuration is out of range.
 */
SnicCore *snic_core_new(const SnicCoreConfig *cfg, const SnicHostOps *ops,
                        void *opaque, GError **errp);
void snic_core_free(SnicCore *c);

/* Back to power-on state (device reset, FLR, SNIC_CTRL_RESET). */
void snic_core_reset(SnicCore *c);

/* BAR0: size is 4 or 8; offsets outside BAR0 are guest errors. */
uint64_t snic_core_reg_read(SnicCore *c, uint64_t offset, unsigned size);
void snic_core_reg_write(SnicCore *c, uint64_t offset, uint64_t value,
                         unsigned size);

/* BAR2: validates, records the index and kicks; does no queue work. */
void snic_core_doorbell(SnicCore *c, uint64_t offset, uint64_t value,
                        unsigned size);

/*
 * Do up to 'budget' units of queued work (admin commands, TX frames,
 * received RoCE frames). Returns true if work remains: the caller runs it
 * again later.
 */
bool snic_core_run(SnicCore *c, unsigned budget);
/*
 * The budget QEMU's device passes per run (one bottom half): small enough
 * to keep vCPUs fed; the bounds on one call's work are set from it.
 */
#define SNIC_CORE_RUN_BUDGET    64

/*
 * Frames may wait in the port's receive buffer while the wire brings more
 * (no PFC frame to send, room left): a host whose wire hands over one
 * frame at a time may receive what waits there before it runs the engine.
 */
bool snic_core_rx_can_wait(SnicCore *c);

/*
 * The host's wire holds frames for the port (true) or is empty again
 * (false): with PFC the port pauses its partner meanwhile (link.h).
 */
void snic_core_wire_backlog(SnicCore *c, bool backlog);

/* The deadline set through SnicHostOps.timer_mod has passed. */
void snic_core_timer(SnicCore *c);

/*
 * Deliver one frame from the wire. The device always takes it (returns
 * len): RoCE waits in the port's receive buffer for the RDMA engine (PFC
 * pauses the partner before it fills), a PFC frame is the MAC's, and an
 * Ethernet frame with no RX buffer posted waits in the port's receive FIFO
 * or, that full, is dropped and counted, as on a real MAC. Nothing the
 * wire brings waits for the host's Ethernet buffers.
 */
ssize_t snic_core_receive(SnicCore *c, const void *frame, size_t len);
void snic_core_set_link(SnicCore *c, bool up);

/*
 * Faults at run time (QEMU: qom-set of wire-drop, wire-dup, wire-reorder,
 * wire-ecn-mark, x-torn-reads, x-wire-corrupt, wire-seed). The PRNG that
 * draws them keeps its state, so a change of percentages does not replay
 * the faults already drawn; reseed (the seed was set) starts it over from
 * faults->seed: same seed, same faults from here on. False, with an
 * error naming the property, for a value out of range (nothing changes).
 */
bool snic_core_set_faults(SnicCore *c, const SnicLinkFaults *faults,
                          bool reseed, GError **errp);

/* Arm (count > 0) or disarm admin command failures (SnicAdminFail) */
bool snic_core_set_admin_fail(SnicCore *c, const SnicAdminFail *fail,
                              GError **errp);
/* What is armed now: count is the commands still to fail */
void snic_core_get_admin_fail(SnicCore *c, SnicAdminFail *fail);

/*
 * Admin op-codes and statuses by name (e.g. "CREATE_QP", "NO_RESOURCES":
 * the enumerators without SNIC_ADMIN_, any case, the prefix allowed) or
 * number; op-code "create" is SNIC_ADMIN_FAIL_CREATE. False if unknown.
 */
bool snic_admin_opcode_parse(const char *s, uint16_t *opcode);
bool snic_admin_status_parse(const char *s, uint16_t *status);
/* Their names ("CREATE_QP", "create"), or NULL for a number without one */
const char *snic_admin_opcode_name(uint16_t opcode);
const char *snic_admin_status_name(uint16_t status);

/* Current MAC address (it changes with SNIC_ADMIN_SET_MAC). */
void snic_core_get_mac(SnicCore *c, uint8_t mac[6]);

/* Capture every frame sent and received into 'pcap' (the core owns it). */
void snic_core_set_pcap(SnicCore *c, SnicPcap *pcap);

/* Name ("GE_CQ_RING") and formatted text of an event (g_free the text) */
const char *snic_event_name(SnicTracePoint tp);
char *snic_event_text(SnicTracePoint tp, const uint64_t a[4]);

/* Little-endian snapshot of the device counters. */
void snic_core_get_stats(SnicCore *c, struct snic_stats *out);

#endif /* SNIC_CORE_H */
