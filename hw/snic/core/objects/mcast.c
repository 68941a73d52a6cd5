/*
 * snic core: multicast groups (mcast.h); UD fans datagrams out to them
 * (engine/ud.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/mcast.h"
#include "port/wire.h"
#include "objects/qp.h"

bool snic_ip_is_mcast(bool ipv6, const uint8_t *ip)
{
    return ipv6 ? ip[0] == 0xff : (ip[0] & 0xf0) == 0xe0;
}

/* RFC 1112 (01:00:5e + 23 bits) and RFC 2464 (33:33 + 32 bits) */
bool snic_mcast_mac_ok(bool ipv6, const uint8_t *ip, const uint8_t *mac)
{
    if (ipv6) {
        return mac[0] == 0x33 && mac[1] == 0x33 && !memcmp(mac + 2, ip + 12, 4);
    }
    return mac[0] == 0x01 && mac[1] == 0x00 && mac[2] == 0x5e &&
           mac[3] == (ip[1] & 0x7f) && mac[4] == ip[2] && mac[5] == ip[3];
}

/* A group's GID from an address: IPv6 as is, IPv4 mapped */
static void ip_gid(bool ipv6, const uint8_t *ip, uint8_t gid[16])
{
    memset(gid, 0, 16);
    if (ipv6) {
        memcpy(gid, ip, 16);
    } else {
        gid[10] = gid[11] = 0xff;
        memcpy(gid + 12, ip, 4);
    }
}

static bool gid_is_mcast(const uint8_t gid[16])
{
    static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

    return !memcmp(gid, v4mapped, 12) ? snic_ip_is_mcast(false, gid + 12) :
                                        snic_ip_is_mcast(true, gid);
}

static SnicMcastGroup *group_find(SnicCore *c, const uint8_t gid[16])
{
    unsigned i;

    for (i = 0; i < SNIC_MAX_MCAST_GRP; i++) {
        if (c->mcast[i].nqp && !memcmp(c->mcast[i].gid, gid, 16)) {
            return &c->mcast[i];
        }
    }
    return NULL;
}

static int group_slot(const SnicMcastGroup *g, uint32_t qpn)
{
    unsigned i;

    for (i = 0; i < g->nqp; i++) {
        if (g->qpn[i] == qpn) {
            return i;
        }
    }
    return -1;
}

static void group_remove(SnicMcastGroup *g, unsigned slot)
{
    g->qpn[slot] = g->qpn[--g->nqp];    /* order does not matter */
}

const SnicMcastGroup *snic_mcast_group(SnicCore *c, bool ipv6,
                                       const uint8_t *ip)
{
    uint8_t gid[16];

    ip_gid(ipv6, ip, gid);
    return group_find(c, gid);
}

void snic_mcast_qp_destroyed(SnicCore *c, uint32_t qpn)
{
    unsigned i;
    int slot;

    for (i = 0; i < SNIC_MAX_MCAST_GRP; i++) {
        slot = c->mcast[i].nqp ? group_slot(&c->mcast[i], qpn) : -1;
        if (slot >= 0) {
            group_remove(&c->mcast[i], slot);
        }
    }
}

/* QPs of context 'ctx' (a doorbell page) attached to group 'g' */
static unsigned ctx_attached(SnicCore *c, const SnicMcastGroup *g,
                             uint16_t ctx)
{
    unsigned i, n = 0;

    for (i = 0; i < g->nqp; i++) {
        n += c->qps[g->qpn[i]].ctx == ctx;
    }
    return n;
}

/* Groups a QP of context 'ctx' is attached to */
static unsigned ctx_groups(SnicCore *c, uint16_t ctx)
{
    unsigned i, n = 0;

    for (i = 0; i < SNIC_MAX_MCAST_GRP; i++) {
        n += c->mcast[i].nqp && ctx_attached(c, &c->mcast[i], ctx);
    }
    return n;
}

uint16_t snic_cmd_attach_mcast(SnicCore *c, const struct snic_admin_cmd *cmd,
                               uint64_t *result)
{
    const struct snic_admin_mcast *p = &cmd->mcast;
    uint32_t qpn = GUINT32_FROM_LE(p->qpn);
    SnicQp *qp = snic_qp_get(c, qpn);
    SnicMcastGroup *g;
    unsigned i;

    if (!qp || qp->type != SNIC_QPT_UD || !gid_is_mcast(p->gid)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    g = group_find(c, p->gid);
    if (g && group_slot(g, qpn) >= 0) {
        return SNIC_ADMIN_OK;
    }
    /*
     * The table and each group's QP slots are every context's: one holds
     * its share of each at most (snic_ctx_share), so a process joining
     * groups, or filling one, leaves room for the others
     */
    if ((!g || !ctx_attached(c, g, qp->ctx)) &&
        ctx_groups(c, qp->ctx) >= snic_ctx_share(SNIC_MAX_MCAST_GRP)) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    if (g && ctx_attached(c, g, qp->ctx) >=
             snic_ctx_share(SNIC_MAX_MCAST_QP_ATTACH)) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    if (!g) {
        for (i = 0; i < SNIC_MAX_MCAST_GRP && c->mcast[i].nqp; i++) {
            continue;
        }
        if (i == SNIC_MAX_MCAST_GRP) {
            return SNIC_ADMIN_NO_RESOURCES;
        }
        g = &c->mcast[i];
        memcpy(g->gid, p->gid, 16);
    }
    if (g->nqp == SNIC_MAX_MCAST_QP_ATTACH) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    g->qpn[g->nqp++] = qpn;
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_detach_mcast(SnicCore *c, const struct snic_admin_cmd *cmd,
                               uint64_t *result)
{
    const struct snic_admin_mcast *p = &cmd->mcast;
    SnicMcastGroup *g = group_find(c, p->gid);
    int slot = g ? group_slot(g, GUINT32_FROM_LE(p->qpn)) : -1;

    if (slot < 0) {
        return SNIC_ADMIN_BAD_PARAM;    /* not attached */
    }
    group_remove(g, slot);
    return SNIC_ADMIN_OK;
}
