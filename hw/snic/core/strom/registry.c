/*
 * snic core: the kernel registry. The kernels the device has (built in,
 * with fixed ids; a future loadable kernel plugs in here) and the table
 * DEPLOY_KERNEL fills: which RPC op-code of which context runs which
 * kernel (StRoM section 5.1: RPCs are matched against the deployed
 * kernels by their RPC op-code, as in Portals).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "strom/kernel.h"
#include "strom/rpc.h"

static const SnicKernelOps *const builtin[] = {
    &snic_kernel_traversal,
    &snic_kernel_consistency,
    &snic_kernel_shuffle,
};

/* A built-in kernel the device can run: the shuffle needs its units. */
static bool present(const SnicCore *c, const SnicKernelOps *k)
{
    return k != &snic_kernel_shuffle || c->cfg.shuffle_units;
}

/* Kernels added at run time (snic_kernel_register), for every device */
static const SnicKernelOps *added[SNIC_KERNEL_MAX_ADDED];

static const SnicKernelOps *kernel_by_id(uint16_t id)
{
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(builtin); i++) {
        if (builtin[i]->id == id) {
            return builtin[i];
        }
    }
    for (i = 0; i < SNIC_KERNEL_MAX_ADDED; i++) {
        if (added[i] && added[i]->id == id) {
            return added[i];
        }
    }
    return NULL;
}

bool snic_kernel_register(const SnicKernelOps *ops)
{
    unsigned i;

    if (ops->id < SNIC_KERNEL_FIRST_ADDED || kernel_by_id(ops->id) ||
        !ops->start || !ops->step) {
        return false;
    }
    for (i = 0; i < SNIC_KERNEL_MAX_ADDED; i++) {
        if (!added[i]) {
            added[i] = ops;
            return true;
        }
    }
    return false;
}

uint32_t snic_kernel_builtin_mask(const SnicCore *c)
{
    uint32_t mask = 0;
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(builtin); i++) {
        if (present(c, builtin[i])) {
            mask |= 1u << builtin[i]->id;
        }
    }
    return mask;
}

unsigned snic_kernel_max_deployed(void)
{
    return SNIC_KERNEL_MAX_DEPLOYED;
}

static SnicKernelEntry *entry_find(SnicCore *c, uint16_t ctx,
                                   uint64_t rpc_opcode)
{
    unsigned i;

    for (i = 0; i < SNIC_KERNEL_MAX_DEPLOYED; i++) {
        SnicKernelEntry *e = &c->rpc->deployed[i];

        if (e->valid && e->ctx == ctx && e->rpc_opcode == rpc_opcode) {
            return e;
        }
    }
    return NULL;
}

const SnicKernelOps *snic_kernel_lookup(SnicCore *c, uint16_t ctx,
                                        uint64_t rpc_opcode)
{
    SnicKernelEntry *e = entry_find(c, ctx, rpc_opcode);

    return e ? kernel_by_id(e->kernel_id) : NULL;
}

uint16_t snic_cmd_deploy_kernel(SnicCore *c, const struct snic_admin_cmd *cmd,
                                uint64_t *result)
{
    const struct snic_admin_deploy_kernel *a = &cmd->deploy_kernel;
    uint16_t ctx = GUINT16_FROM_LE(a->ctx);
    uint16_t id = GUINT16_FROM_LE(a->kernel_id);
    uint64_t rpc_opcode = GUINT64_FROM_LE(a->rpc_opcode);
    const SnicKernelOps *k = kernel_by_id(id);
    unsigned i, held = 0;

    if (ctx >= c->cfg.num_db_pages || !k || !present(c, k) || a->rsvd) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (entry_find(c, ctx, rpc_opcode)) {
        return SNIC_ADMIN_BAD_STATE;
    }
    /* the table is every context's: one holds its share at most */
    for (i = 0; i < SNIC_KERNEL_MAX_DEPLOYED; i++) {
        held += c->rpc->deployed[i].valid && c->rpc->deployed[i].ctx == ctx;
    }
    if (held >= snic_ctx_share(SNIC_KERNEL_MAX_DEPLOYED)) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    for (i = 0; i < SNIC_KERNEL_MAX_DEPLOYED; i++) {
        SnicKernelEntry *e = &c->rpc->deployed[i];

        if (!e->valid) {
            *e = (SnicKernelEntry) {
                .valid = true,
                .ctx = ctx,
                .kernel_id = id,
                .rpc_opcode = rpc_opcode,
            };
            *result = i;
            return SNIC_ADMIN_OK;
        }
    }
    return SNIC_ADMIN_NO_RESOURCES;
}

uint16_t snic_cmd_undeploy_kernel(SnicCore *c,
                                  const struct snic_admin_cmd *cmd,
                                  uint64_t *result)
{
    const struct snic_admin_deploy_kernel *a = &cmd->deploy_kernel;
    SnicKernelEntry *e;

    if (a->kernel_id || a->rsvd) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    e = entry_find(c, GUINT16_FROM_LE(a->ctx),
                   GUINT64_FROM_LE(a->rpc_opcode));
    if (!e) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* RPCs already running keep their kernel (built in: never goes) */
    memset(e, 0, sizeof(*e));
    return SNIC_ADMIN_OK;
}
