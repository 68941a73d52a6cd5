/*
 * snic core: the port's addresses (its GID table, SET_GID) and its
 * active IB MTU.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_GID_H
#define SNIC_CORE_GID_H

#include <stdbool.h>
#include <stdint.h>

typedef struct SnicCore SnicCore;
struct snic_admin_cmd;

#define SNIC_IB_MAX_MTU         4096    /* the largest IB path MTU */
/* RoCE headers Linux reserves below the Ethernet MTU (iboe_get_mtu()) */
#define SNIC_ROCE_HDR_MAX       96

uint16_t snic_cmd_set_gid(SnicCore *c, const struct snic_admin_cmd *cmd,
                          uint64_t *result);
bool snic_port_owns(const SnicCore *c, bool ipv6, const uint8_t *ip);
/* A source address's GID table index (-1: none); an index's address */
int snic_gid_index(const SnicCore *c, bool ipv6, const uint8_t gid[16]);
void snic_gid_get(const SnicCore *c, uint8_t index, uint8_t gid[16]);
/* The port's active MTU: the largest IB MTU its Ethernet MTU carries */
uint32_t snic_port_mtu(const SnicCore *c);

#endif /* SNIC_CORE_GID_H */
