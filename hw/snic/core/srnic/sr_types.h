/*
 * snic core: SRNIC's device-wide state as SnicCore holds it (srnic/sr.c's
 * CtrlQ): types only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_SR_TYPES_H
#define SNIC_CORE_SR_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The CtrlQ entries a holder (a QP, a context) may still have in the
 * ring, counted in two generations (sr.c, ctrl_held())
 */
typedef struct SnicSrCtrlHold {
    uint32_t mark;              /* CtrlQ tail when cur began */
    uint32_t end;               /* CtrlQ tail after its last entry */
    uint16_t cur;               /* its entries since mark */
    uint16_t prev;              /* ... before it, maybe not all taken */
} SnicSrCtrlHold;

/* The device's CtrlQ (CREATE_SR_CTRLQ); in SnicCore, runtime state */
typedef struct SnicSrCtrlq {
    uint64_t base;              /* 0: none */
    uint32_t head;              /* consumer (doorbell), free-running */
    uint32_t tail;              /* next slot the device writes */
    uint16_t vector;
    uint8_t log2_depth;
    bool overflow_told;         /* async event posted since the doorbell */
    bool irq_pending;           /* entries written since the vector rose */
} SnicSrCtrlq;

#endif /* SNIC_CORE_SR_TYPES_H */
