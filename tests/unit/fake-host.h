/*
 * A fake host for the snic core: guest memory is one plain buffer, frames
 * and interrupts are captured, time is a variable the test moves.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_TEST_FAKE_HOST_H
#define SNIC_TEST_FAKE_HOST_H

#include <glib.h>

#include "sim-port.h"
#include "snic_core.h"
#include "snic/snic_admin.h"
#include "snic/snic_eth.h"
#include "snic/snic_regs.h"

#define FAKE_MEM_BASE       0x200000ull
#define FAKE_MEM_SIZE       (8u << 20)
#define FAKE_VECTORS        4
#define FAKE_DB_PAGES       8

/* Guest memory layout used by the helpers */
#define FAKE_ADMIN_SQ       (FAKE_MEM_BASE + 0x0000)
#define FAKE_ADMIN_CQ       (FAKE_MEM_BASE + 0x4000)
#define FAKE_AEQ            (FAKE_MEM_BASE + 0x6000)
#define FAKE_RESP           (FAKE_MEM_BASE + 0x8000)
#define FAKE_TX_RING        (FAKE_MEM_BASE + 0x10000)
#define FAKE_RX_RING        (FAKE_MEM_BASE + 0x20000)
#define FAKE_BUFS           (FAKE_MEM_BASE + 0x40000)

typedef struct FakeDmaWrite {
    uint64_t addr;
    uint32_t len;
    bool ok;                    /* the host took it */
} FakeDmaWrite;

typedef struct FakeHost {
    SnicCore *core;
    SnicHostOps ops;            /* the core's: fake_ops, timed or not */
    uint8_t *mem;
    size_t mem_size;            /* FAKE_MEM_SIZE, or more: fake_host_grow */
    GPtrArray *frames;          /* GByteArray per transmitted frame */
    unsigned irqs[FAKE_VECTORS];
    unsigned irq_clears[FAKE_VECTORS];
    unsigned kicks;
    unsigned rx_purges;
    /* A DMA write covering this address resets the device (like FLR). */
    uint64_t reset_on_write;
    /* A DMA read covering this address fails (memory gone under it). */
    uint64_t fail_read_at;
    /*
     * An IOMMU's unmapped range: every DMA read or write touching
     * [unmapped_at, unmapped_at + unmapped_len) fails, as a translation
     * fault does; the refused accesses are counted.
     */
    uint64_t unmapped_at;
    uint64_t unmapped_len;
    unsigned unmapped_refused;
    /*
     * Called before every DMA read of the device (after the bounds check
     * of host memory): tests watch what the device reads and change
     * memory under it, as a racing writer does.
     */
    void (*read_hook)(struct FakeHost *h, uint64_t addr, size_t len);
    void *hook_opaque;
    /*
     * Called when the device raises an MSI-X vector (from inside the
     * core: it may only schedule work, e.g. an interrupt handler's run).
     */
    void (*irq_hook)(struct FakeHost *h, unsigned vector);
    void *irq_opaque;
    /*
     * The DMA-write log: with log_writes set, every DMA write of the
     * device (one per range the MTT found contiguous) is appended as a
     * FakeDmaWrite, failed ones included.
     */
    bool log_writes;
    GArray *writes;             /* FakeDmaWrite */
    /* every DMA access the device made, refused ones included: its cost */
    uint64_t dma_ops;
    uint64_t dma_bytes;
    GPtrArray *guest_errors;    /* char * */
    /* how often each event (events.h) was reported, its last arguments */
    unsigned events[SNIC_TRACE__MAX];
    uint64_t event_args[SNIC_TRACE__MAX][4];
    /* clock, timer, engine runs; the wire once fake_host_attach_sim() */
    SnicSimPort port;

    /* admin helper state */
    uint32_t admin_log2;
    uint32_t sq_tail;
    uint32_t cq_head;
    uint16_t next_cmd_id;
    uint32_t aeq_log2;
    uint32_t aeq_head;
} FakeHost;

FakeHost *fake_host_new(void);
/*
 * ... with limits, link faults and MAC from 'cfg' (doorbells and vectors:
 * ours; a MAC left zero: fake_mac)
 */
FakeHost *fake_host_new_cfg(const SnicCoreConfig *cfg);
/*
 * ... whose device reads take dma_rtt_ns (SnicHostOps.dma_read_done), so
 * the scheduler parks QPs on their WQE fetches; 0: untimed, as above.
 * The timing model below with only pcie_rtt_ns set.
 */
FakeHost *fake_host_new_timed(const SnicCoreConfig *cfg, uint64_t dma_rtt_ns);
/*
 * ... with the NIC timing model 'timing' (tests/sim/README.md; NULL: none,
 * the core then has no dma_read_done, as in QEMU). Reads are timed alone
 * too; transmit and receive on the simulator only.
 */
FakeHost *fake_host_new_model(const SnicCoreConfig *cfg,
                              const SnicSimNicTiming *timing);

/*
 * Put the host on a simulated wire: frames go to 'peer' (an endpoint id),
 * time, timers and engine runs come from the simulator. Returns the
 * host's endpoint id.
 */
unsigned fake_host_attach_sim(FakeHost *h, SnicSim *sim);
void fake_host_free(FakeHost *h);
/*
 * 'extra' bytes of guest memory more, zeroed, from FAKE_MEM_BASE +
 * FAKE_MEM_SIZE on (before the device uses any pointer into memory)
 */
void fake_host_grow(FakeHost *h, size_t extra);

/* Guest memory access by guest address (asserts the range is valid). */
void *fake_ptr(FakeHost *h, uint64_t addr, size_t len);
void fake_write(FakeHost *h, uint64_t addr, const void *buf, size_t len);
void fake_read(FakeHost *h, uint64_t addr, void *buf, size_t len);

uint32_t fake_reg_read(FakeHost *h, uint64_t off);
void fake_reg_write(FakeHost *h, uint64_t off, uint32_t v);
void fake_doorbell(FakeHost *h, unsigned page, uint8_t type, uint32_t qid,
                   uint32_t index);
/* Run the core until it reports no more work (bounded). */
void fake_run(FakeHost *h);
/* Advance virtual time, firing the core's timer when it is due. */
void fake_advance(FakeHost *h, uint64_t ns);

/* Program the admin queue (depth 2^log2) and an AEQ, then enable. */
void fake_enable(FakeHost *h, uint32_t admin_log2, uint32_t aeq_log2);

/* The next async event, if the device wrote one (consumed). */
bool fake_aeq_poll(FakeHost *h, struct snic_aeqe *e);
/* Post without running; returns the command id. */
uint16_t fake_admin_post(FakeHost *h, struct snic_admin_cmd *cmd);
/*
 * Read the completion at the CQ head if its phase says it is new; on
 * success consume it (CQ doorbell) and return true.
 */
bool fake_admin_poll(FakeHost *h, struct snic_admin_cqe *cqe);
/* Post, run, poll: returns the completion status, result in *result. */
uint16_t fake_admin(FakeHost *h, struct snic_admin_cmd *cmd, uint64_t *result);
/* An admin command whose payload is an object handle: its status. */
uint16_t fake_obj_cmd(FakeHost *h, uint8_t opcode, uint32_t handle);

/* Create + start an Ethernet queue on the fake ring area; returns qid. */
uint32_t fake_eth_queue(FakeHost *h, uint8_t type, uint8_t log2,
                        uint16_t vector, uint16_t irq_delay_us);

/* A minimal frame: dst, src, ethertype, payload of n bytes of 'fill'. */
size_t fake_frame(uint8_t *buf, const uint8_t dst[6], uint16_t ethertype,
                  size_t payload, uint8_t fill);

/* The logged DMA writes touching [addr, addr + len): how many. */
unsigned fake_writes_in(FakeHost *h, uint64_t addr, uint64_t len);

/* Number of captured guest errors whose text contains 'needle'. */
unsigned fake_guest_errors_matching(FakeHost *h, const char *needle);

uint64_t fake_stat(FakeHost *h, size_t offset);
#define FAKE_STAT(h, field) \
    fake_stat((h), offsetof(struct snic_stats, field))

extern const uint8_t fake_mac[6];

#endif /* SNIC_TEST_FAKE_HOST_H */
