/*
 * snic core: BAR0 registers and BAR2 doorbell decoding.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/cq.h"
#include "objects/qp.h"
#include "objects/srq.h"
#include "srnic/sr.h"

static void snic_set_enable(SnicCore *c, bool enable)
{
    if (!enable) {
        if (c->ctrl & SNIC_CTRL_ENABLE) {
            snic_request_reset(c, SNIC_RESET_DISABLE);
        }
        return;
    }
    if (c->status & SNIC_STATUS_READY) {
        return;
    }
    /* Runtime state is all zero here: disable and reset cleared it. */
    if (!snic_admin_config_ok(c)) {
        return;     /* SNIC_REG_ERROR says why; READY stays clear */
    }
    c->ctrl |= SNIC_CTRL_ENABLE;
    c->status |= SNIC_STATUS_READY;
    c->error = SNIC_ERR_NONE;
}

static uint32_t snic_reg_read32(SnicCore *c, uint64_t off)
{
    if (off >= SNIC_REG_STATS && off < SNIC_REG_STATS + sizeof(c->stats)) {
        uint32_t v;

        /* the gauges obj_qps .. obj_pds: the counts kept, copied in */
        if (off >= SNIC_REG_STATS + offsetof(struct snic_stats, obj_qps) &&
            off < SNIC_REG_STATS + offsetof(struct snic_stats, obj_pds) +
                  sizeof(c->stats.obj_pds)) {
            snic_stats_objects(c);
        }
        memcpy(&v, (uint8_t *)&c->stats + (off - SNIC_REG_STATS), 4);
        return GUINT32_FROM_LE(v);
    }
    switch (off) {
    case SNIC_REG_MAGIC:
        return SNIC_MAGIC;
    case SNIC_REG_ABI_VERSION:
        return SNIC_ABI_VERSION;
    case SNIC_REG_CAPS_LO:
        return (uint32_t)SNIC_CAPS;
    case SNIC_REG_CAPS_HI:
        return (uint32_t)(SNIC_CAPS >> 32);
    case SNIC_REG_DB_PAGES:
        return c->cfg.num_db_pages;
    case SNIC_REG_NUM_VECTORS:
        return c->cfg.num_vectors;
    case SNIC_REG_DEV_CTRL:
        return c->ctrl;
    case SNIC_REG_DEV_STATUS:
        return c->status | (c->link_up ? SNIC_STATUS_LINK_UP : 0);
    case SNIC_REG_ERROR:
        return c->error;
    case SNIC_REG_INTR_CAUSE:
        return c->intr_cause;
    case SNIC_REG_INTR_MASK:
        return c->intr_mask;
    case SNIC_REG_ADMIN_SQ_BASE_LO:
        return (uint32_t)c->admin_sq_base;
    case SNIC_REG_ADMIN_SQ_BASE_HI:
        return c->admin_sq_base >> 32;
    case SNIC_REG_ADMIN_CQ_BASE_LO:
        return (uint32_t)c->admin_cq_base;
    case SNIC_REG_ADMIN_CQ_BASE_HI:
        return c->admin_cq_base >> 32;
    case SNIC_REG_ADMIN_DEPTH:
        return c->admin_log2_depth;
    case SNIC_REG_ADMIN_SQ_HEAD:
        return c->sq_head;
    case SNIC_REG_ADMIN_SQ_TAIL:
        return c->sq_tail;
    case SNIC_REG_ADMIN_CQ_TAIL:
        return c->cq_tail;
    case SNIC_REG_AEQ_BASE_LO:
        return (uint32_t)c->aeq_base;
    case SNIC_REG_AEQ_BASE_HI:
        return c->aeq_base >> 32;
    case SNIC_REG_AEQ_DEPTH:
        return c->aeq_log2_depth;
    case SNIC_REG_AEQ_TAIL:
        return c->aeq_tail;
    default:
        SNIC_GUEST_ERROR(c, GE_REG_READ, off);
        return 0;
    }
}

/* The admin/AEQ layout may only change while the device is disabled. */
static bool snic_config_writable(SnicCore *c, uint64_t off)
{
    if (c->status & SNIC_STATUS_READY) {
        SNIC_GUEST_ERROR(c, GE_REG_LOCKED, off);
        return false;
    }
    return true;
}

static void snic_set_lo(uint64_t *reg, uint32_t v)
{
    *reg = (*reg & ~0xffffffffull) | v;
}

static void snic_set_hi(uint64_t *reg, uint32_t v)
{
    *reg = (*reg & 0xffffffffull) | ((uint64_t)v << 32);
}

static void snic_reg_write32(SnicCore *c, uint64_t off, uint32_t v)
{
    switch (off) {
    case SNIC_REG_DEV_CTRL:
        if (v & ~(SNIC_CTRL_ENABLE | SNIC_CTRL_RESET)) {
            SNIC_GUEST_ERROR(c, GE_REG_RESERVED, v, off);
        }
        if (v & SNIC_CTRL_RESET) {
            snic_core_reset(c);     /* takes effect when this write ends */
            return;
        }
        snic_set_enable(c, v & SNIC_CTRL_ENABLE);
        return;
    case SNIC_REG_ERROR:
        /* Any write acknowledges the error; FATAL needs a reset. */
        c->error = SNIC_ERR_NONE;
        return;
    case SNIC_REG_INTR_CAUSE:
        c->intr_cause &= ~v;
        if (!(c->intr_cause & ~c->intr_mask)) {
            c->ops->clear_irq(c->opaque, 0);
        }
        return;
    case SNIC_REG_INTR_MASK: {
        uint32_t unmasked = c->intr_mask & ~v;

        c->intr_mask = v & (SNIC_INTR_ADMIN | SNIC_INTR_AEQ);
        if (c->intr_cause & unmasked) {
            snic_raise_irq(c, 0);   /* a cause held back by the mask */
        }
        return;
    }
    case SNIC_REG_ADMIN_SQ_BASE_LO:
        if (snic_config_writable(c, off)) {
            snic_set_lo(&c->admin_sq_base, v);
        }
        return;
    case SNIC_REG_ADMIN_SQ_BASE_HI:
        if (snic_config_writable(c, off)) {
            snic_set_hi(&c->admin_sq_base, v);
        }
        return;
    case SNIC_REG_ADMIN_CQ_BASE_LO:
        if (snic_config_writable(c, off)) {
            snic_set_lo(&c->admin_cq_base, v);
        }
        return;
    case SNIC_REG_ADMIN_CQ_BASE_HI:
        if (snic_config_writable(c, off)) {
            snic_set_hi(&c->admin_cq_base, v);
        }
        return;
    case SNIC_REG_ADMIN_DEPTH:
        if (snic_config_writable(c, off)) {
            c->admin_log2_depth = v;    /* range-checked at enable */
        }
        return;
    case SNIC_REG_AEQ_BASE_LO:
        if (snic_config_writable(c, off)) {
            snic_set_lo(&c->aeq_base, v);
        }
        return;
    case SNIC_REG_AEQ_BASE_HI:
        if (snic_config_writable(c, off)) {
            snic_set_hi(&c->aeq_base, v);
        }
        return;
    case SNIC_REG_AEQ_DEPTH:
        if (snic_config_writable(c, off)) {
            c->aeq_log2_depth = v;
        }
        return;
    default:
        SNIC_GUEST_ERROR(c, GE_REG_WRITE, v, off);
        return;
    }
}

static bool snic_reg_access_ok(SnicCore *c, uint64_t off, unsigned size,
                               bool is_write)
{
    if ((size != 4 && size != 8) || (off & (size - 1)) ||
        off > SNIC_BAR0_SIZE - size) {
        SNIC_GUEST_ERROR(c, GE_REG_ACCESS, size, off, is_write);
        return false;
    }
    return true;
}

uint64_t snic_core_reg_read(SnicCore *c, uint64_t off, unsigned size)
{
    uint64_t v;

    if (!snic_reg_access_ok(c, off, size, false)) {
        return 0;
    }
    v = snic_reg_read32(c, off);
    if (size == 8) {
        v |= (uint64_t)snic_reg_read32(c, off + 4) << 32;
    }
    SNIC_EVENT(c, REG_READ, off, v, size);
    return v;
}

void snic_core_reg_write(SnicCore *c, uint64_t off, uint64_t v, unsigned size)
{
    SNIC_EVENT(c, REG_WRITE, off, v, size);
    if (!snic_reg_access_ok(c, off, size, true)) {
        return;
    }
    snic_enter(c);
    snic_reg_write32(c, off, (uint32_t)v);
    if (size == 8) {
        snic_reg_write32(c, off + 4, v >> 32);
    }
    snic_leave(c);
}

void snic_core_doorbell(SnicCore *c, uint64_t off, uint64_t value,
                        unsigned size)
{
    uint64_t page = off / SNIC_DB_PAGE_SIZE;
    uint8_t type = value >> SNIC_DB_TYPE_SHIFT;
    uint32_t qid = (value >> SNIC_DB_QID_SHIFT) & SNIC_DB_QID_MASK;
    uint32_t index = value & SNIC_DB_INDEX_MASK;

    SNIC_EVENT(c, DOORBELL, page, type, qid, index);
    snic_enter(c);
    if (size != 8 || off % SNIC_DB_PAGE_SIZE) {
        SNIC_GUEST_ERROR(c, GE_DB_ACCESS, page, size,
                         off % SNIC_DB_PAGE_SIZE);
        goto invalid;
    }
    if (page >= c->cfg.num_db_pages) {
        SNIC_GUEST_ERROR(c, GE_DB_PAGE, page, c->cfg.num_db_pages);
        goto invalid;
    }
    if (!snic_ready(c)) {
        SNIC_GUEST_ERROR(c, GE_DB_DISABLED, type, qid);
        goto invalid;
    }
    switch (type) {
    case SNIC_DB_SQ:
    case SNIC_DB_RQ:
        snic_qp_doorbell(c, page, type, qid, index);
        goto out;
    case SNIC_DB_CQ:
    case SNIC_DB_CQ_ARM:
    case SNIC_DB_CQ_ARM_SOL:
        snic_cq_doorbell(c, page, type, qid, index);
        goto out;
    case SNIC_DB_SRQ:
        snic_srq_doorbell(c, page, qid, index);
        goto out;
    case SNIC_DB_EQ:
        snic_eq_doorbell(c, page, qid, index);
        goto out;
    }
    /* The admin queue, AEQ and Ethernet rings belong to the kernel. */
    if (page != SNIC_DB_KERNEL_PAGE) {
        SNIC_GUEST_ERROR(c, GE_DB_KERNEL_QUEUE, page, type, qid);
        goto invalid;
    }
    switch (type) {
    case SNIC_DB_ADMIN_SQ:
    case SNIC_DB_ADMIN_CQ:
    case SNIC_DB_AEQ:
        snic_admin_doorbell(c, type, qid, index);
        goto out;
    case SNIC_DB_ETH_TX:
    case SNIC_DB_ETH_RX:
        snic_eth_doorbell(c, type, qid, index);
        goto out;
    case SNIC_DB_SR_CTRLQ:
    case SNIC_DB_SR_RETRYQ:
        snic_sr_doorbell(c, type, qid, index);
        goto out;
    default:
        SNIC_GUEST_ERROR(c, GE_DB_TYPE, page, type);
        goto invalid;
    }

invalid:
    snic_stat_inc(&c->stats.doorbells_invalid);
out:
    snic_leave(c);
}
