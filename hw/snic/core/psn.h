/*
 * snic core: PSN arithmetic, 24 bits modulo (IBA 9.7.1), for the codec,
 * the engine and the transport programs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_PSN_H
#define SNIC_CORE_PSN_H

#include <stdint.h>

#define SNIC_PSN_MASK           0xffffffu

/* 24-bit PSN order: > 0 if a is after b, 0 if equal, < 0 if before. */
static inline int32_t snic_psn_cmp(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << 8);
}

#endif /* SNIC_CORE_PSN_H */
