/*
 * snic core: the multicast groups as SnicCore holds them (objects/mcast.c):
 * types and limits only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_MCAST_TYPES_H
#define SNIC_CORE_MCAST_TYPES_H

#include <stdint.h>

#define SNIC_MAX_MCAST_GRP          32
#define SNIC_MAX_MCAST_QP_ATTACH    16
#define SNIC_MCAST_QPN              0xffffffu

typedef struct SnicMcastGroup {
    uint8_t gid[16];
    uint8_t nqp;                /* 0: the entry is free */
    uint32_t qpn[SNIC_MAX_MCAST_QP_ATTACH];
} SnicMcastGroup;

#endif /* SNIC_CORE_MCAST_TYPES_H */
