/*
 * snic core: HyperLogLog sketches on the RDMA WRITE stream (hll.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_HLL_H
#define SNIC_CORE_HLL_H

#include <stdbool.h>
#include <stdint.h>

#include "snic/snic_admin.h"

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;

#define SNIC_HLL_MAX_SKETCHES   16      /* hll-sketches */

/*
 * One sketch: the registers of StRoM's HLL kernel and what the device
 * keeps beside them. A device unit: the QP context holds nothing of it,
 * the sketch names its QP.
 */
typedef struct SnicHllSketch {
    uint8_t regs[SNIC_HLL_REGISTERS];
    uint64_t items;             /* items hashed since attach or reset */
    uint32_t qpn;               /* its QP; 0: free */
    uint32_t rsvd;
} SnicHllSketch;
_Static_assert(sizeof(SnicHllSketch) == SNIC_HLL_REGISTERS + 16,
               "a sketch: 64 KiB of registers and 16 bytes");

/* The algorithm (StRoM's HLL: MurmurHash3_x64_128's h1, p = 16) */
uint64_t snic_hll_hash(uint32_t item);
void snic_hll_add(uint8_t *regs, uint32_t item);
double snic_hll_estimate(const uint8_t *regs);

/* The pool (cfg.hll_sketches) */
void snic_hll_init(SnicCore *c);
void snic_hll_free(SnicCore *c);
void snic_hll_reset(SnicCore *c);
/* The QP goes to RESET or is destroyed: its sketch goes back to the pool */
void snic_hll_qp_gone(SnicCore *c, const SnicQp *qp);
/*
 * A WRITE packet's payload placed for qp: hashed into its sketch, if it
 * has one (4-byte little-endian items from the first byte; a trailing
 * partial word is not an item).
 */
void snic_hll_feed(SnicCore *c, const SnicQp *qp, const uint8_t *data,
                   uint32_t len);

uint16_t snic_cmd_attach_hll(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);
uint16_t snic_cmd_query_hll(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_reset_hll(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);
uint16_t snic_cmd_detach_hll(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result);

#endif /* SNIC_CORE_HLL_H */
