/*
 * snic core: the port's addresses. The GID table (SET_GID) holds the
 * addresses the port owns: RoCE is taken only for them, a user
 * context's datagrams carry only them, a connection's source is an index
 * into it, and a packet to one of them turns around inside the port. The
 * port's active MTU is the largest IB MTU its Ethernet MTU carries.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "port/gid.h"

/*
 * The port's GID table (SET_GID): the addresses the port owns. RoCE is
 * taken only for them, a user context's datagrams carry only them, and a
 * packet to one of them turns around inside the port (loopback).
 */
uint16_t snic_cmd_set_gid(SnicCore *c, const struct snic_admin_cmd *cmd,
                          uint64_t *result)
{
    const struct snic_admin_set_gid *p = &cmd->set_gid;
    static const uint8_t zero[6];

    if (p->index >= SNIC_MAX_GIDS || p->flags & ~SNIC_GID_VALID ||
        memcmp(p->rsvd, zero, sizeof(p->rsvd))) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (p->flags & SNIC_GID_VALID) {
        memcpy(c->gids[p->index], p->gid, 16);
        c->gid_valid |= 1u << p->index;
    } else {
        c->gid_valid &= ~(1u << p->index);
    }
    return SNIC_ADMIN_OK;
}

/*
 * Is this address the port's? IPv6: its 16 bytes; IPv4: its 4 bytes, as
 * the IPv4-mapped GID made of them (whatever else the caller's GID holds).
 */
bool snic_port_owns(const SnicCore *c, bool ipv6, const uint8_t *ip)
{
    uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };
    unsigned i;

    uint32_t valid;

    memcpy(ipv6 ? gid : gid + 12, ip, ipv6 ? 16 : 4);
    /* the valid entries only: every packet sent asks */
    for (valid = c->gid_valid; valid; valid &= valid - 1) {
        i = __builtin_ctz(valid);
        if (!memcmp(c->gids[i], gid, 16)) {
            return true;
        }
    }
    return false;
}

/* The GID table's index of a source address; -1 if it is not there. */
int snic_gid_index(const SnicCore *c, bool ipv6, const uint8_t gid[16])
{
    static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
    unsigned i;

    for (i = 0; i < SNIC_MAX_GIDS; i++) {
        if (c->gid_valid & (1u << i) &&
            (ipv6 ? !memcmp(c->gids[i], gid, 16) :
             !memcmp(c->gids[i], v4mapped, 12) &&
             !memcmp(c->gids[i] + 12, gid + 12, 4))) {
            return i;
        }
    }
    return -1;
}

void snic_gid_get(const SnicCore *c, uint8_t index, uint8_t gid[16])
{
    memcpy(gid, c->gids[index % SNIC_MAX_GIDS], 16);
}

/*
 * The port's active MTU, which bounds a datagram and an RC path MTU: the
 * largest IB MTU that fits the Ethernet MTU with the headers, derived as
 * Linux derives it.
 */
uint32_t snic_port_mtu(const SnicCore *c)
{
    uint32_t mtu = SNIC_IB_MAX_MTU;

    while (mtu > 256 && mtu + SNIC_ROCE_HDR_MAX > c->mtu) {
        mtu >>= 1;
    }
    return mtu;
}
