/*
 * snic core: UD multicast, on RoCE's IP multicast addresses. The
 * port keeps a table of groups, each a GID and the UD QPs attached to it;
 * a datagram to a group's address fans out to them (engine/ud.c), and
 * the port's own datagrams to a group come back to its QPs as well as
 * going out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_MCAST_H
#define SNIC_CORE_MCAST_H

#include <stdbool.h>
#include <stdint.h>

#include "objects/mcast_types.h"
#include "snic/snic_admin.h"

typedef struct SnicCore SnicCore;

/* Is this destination address (IPv4 or IPv6) a multicast one? */
bool snic_ip_is_mcast(bool ipv6, const uint8_t *ip);
/* Is 'mac' the Ethernet address IP multicast maps 'ip' to? */
bool snic_mcast_mac_ok(bool ipv6, const uint8_t *ip, const uint8_t *mac);

/* The group of a multicast address, or NULL (no QP attached) */
const SnicMcastGroup *snic_mcast_group(SnicCore *c, bool ipv6,
                                       const uint8_t *ip);

/* A destroyed QP leaves every group */
void snic_mcast_qp_destroyed(SnicCore *c, uint32_t qpn);

/* Admin commands */
uint16_t snic_cmd_attach_mcast(SnicCore *c, const struct snic_admin_cmd *cmd,
                               uint64_t *result);
uint16_t snic_cmd_detach_mcast(SnicCore *c, const struct snic_admin_cmd *cmd,
                               uint64_t *result);

#endif /* SNIC_CORE_MCAST_H */
