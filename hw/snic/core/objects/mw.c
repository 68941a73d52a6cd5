/*
 * snic core: memory window objects, their binding and invalidation, and
 * remote key checks through them (mw.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/table.h"
#include "objects/mw.h"
#include "objects/qp.h"

SNIC_TABLE_ENTRY(SnicMw);

#define REMOTE_RIGHTS   (SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_READ | \
                         SNIC_ACCESS_REMOTE_ATOMIC)

void snic_mw_init(SnicCore *c)
{
    c->mws = g_new0(SnicMw, (size_t)c->cfg.max_mw + SNIC_FIRST_HANDLE);
    snic_slots_init(&c->mw_slots, c->cfg.max_mw);
}

void snic_mw_free(SnicCore *c)
{
    g_free(c->mws);
    snic_slots_free(&c->mw_slots);
}

void snic_mw_reset(SnicCore *c)
{
    memset(c->mws, 0,
           sizeof(*c->mws) * (c->cfg.max_mw + SNIC_FIRST_HANDLE));
    snic_slots_reset(&c->mw_slots);
}

static uint32_t mw_index(uint32_t rkey)
{
    return (rkey & ~SNIC_KEY_MW) >> SNIC_KEY_INDEX_SHIFT;
}

/* The window an R_Key names, whatever its key byte; NULL if none. */
static SnicMw *mw_slot(SnicCore *c, uint32_t rkey)
{
    uint32_t idx = mw_index(rkey);

    if (!(rkey & SNIC_KEY_MW) || idx < SNIC_FIRST_HANDLE ||
        idx >= c->cfg.max_mw + SNIC_FIRST_HANDLE || !c->mws[idx].valid) {
        return NULL;
    }
    return &c->mws[idx];
}

/* ... and only with its current key byte */
static SnicMw *mw_get(SnicCore *c, uint32_t rkey)
{
    SnicMw *mw = mw_slot(c, rkey);

    return mw && mw->key == (rkey & SNIC_KEY_BYTE_MASK) ? mw : NULL;
}

static void unbind(SnicCore *c, SnicMw *mw)
{
    if (mw->bound) {
        c->mrs[mw->mr].mw_refs--;
        mw->bound = false;
    }
}

SnicMr *snic_rkey_check(SnicCore *c, const SnicQp *qp, uint32_t rkey,
                        uint32_t access, uint64_t va, uint64_t len,
                        SnicMrCheck *why)
{
    uint32_t qpn = qp - c->qps;
    SnicMw *mw;

    if (!(rkey & SNIC_KEY_MW)) {
        return snic_mr_check(c, rkey, qp->pdn, access, va, len, why);
    }
    mw = mw_get(c, rkey);
    if (!mw || !mw->bound ||
        (mw->type == SNIC_MW_TYPE_2 && mw->qpn != qpn)) {
        *why = SNIC_MR_BAD_KEY;     /* type 2: only through its own QP */
    } else if (mw->pdn != qp->pdn) {
        *why = SNIC_MR_BAD_PD;
    } else if ((mw->access & access) != access) {
        *why = SNIC_MR_NO_ACCESS;
    } else if (va < mw->va || len > mw->length ||
               va - mw->va > mw->length - len) {
        *why = SNIC_MR_BOUNDS;
    } else {
        *why = SNIC_MR_OK;
        return &c->mrs[mw->mr];     /* held valid by the binding */
    }
    SNIC_EVENT(c, MR_FAULT, rkey, va, len, *why);
    return NULL;
}

uint8_t snic_mw_bind(SnicCore *c, const SnicQp *qp,
                     const struct snic_bind_mw *b)
{
    uint32_t rkey = GUINT32_FROM_LE(b->mw_rkey);
    uint32_t new_rkey = GUINT32_FROM_LE(b->new_rkey);
    uint32_t access = GUINT32_FROM_LE(b->access);
    uint64_t va = GUINT64_FROM_LE(b->addr), len = GUINT64_FROM_LE(b->length);
    SnicMw *mw = mw_get(c, rkey);
    SnicMr *mr = NULL;
    SnicMrCheck why;

    /* the window, of the QP's PD, keeps its index under the new key */
    if (!mw || mw->pdn != qp->pdn || !(new_rkey & SNIC_KEY_MW) ||
        mw_index(new_rkey) != mw_index(rkey) || access & ~REMOTE_RIGHTS) {
        return SNIC_WC_MW_BIND_ERR;
    }
    /* a type 2 window binds only when free, and never empty */
    if (mw->type == SNIC_MW_TYPE_2 && (mw->bound || !len)) {
        return SNIC_WC_MW_BIND_ERR;
    }
    if (len) {
        /*
         * Inside an MR of the QP's PD that allows binding; remote write
         * or atomic rights need the MR's local write, as for an MR.
         */
        mr = snic_mr_check(c, GUINT32_FROM_LE(b->mr_lkey), qp->pdn,
                           SNIC_ACCESS_MW_BIND, va, len, &why);
        if (!mr || mr->mtt.phys ||
            (access & (SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_ATOMIC) &&
             !(mr->access & SNIC_ACCESS_LOCAL_WRITE))) {
            return SNIC_WC_MW_BIND_ERR;
        }
    }
    unbind(c, mw);          /* a type 1 window may be re-bound */
    mw->key = new_rkey & SNIC_KEY_BYTE_MASK;
    if (!len) {
        return SNIC_WC_SUCCESS;     /* type 1, length 0: unbound */
    }
    mw->bound = true;
    mw->qpn = qp - c->qps;
    mw->mr = mr - c->mrs;
    mw->access = access;
    mw->va = va;
    mw->length = len;
    mr->mw_refs++;
    return SNIC_WC_SUCCESS;
}

bool snic_mw_invalidate(SnicCore *c, const SnicQp *qp, uint32_t rkey)
{
    SnicMw *mw = mw_get(c, rkey);

    /* only a bound type 2 window of the QP's PD (type 1 never) */
    if (!mw || mw->type != SNIC_MW_TYPE_2 || !mw->bound ||
        mw->pdn != qp->pdn) {
        return false;
    }
    unbind(c, mw);
    return true;
}

void snic_mw_qp_destroyed(SnicCore *c, uint32_t qpn)
{
    uint32_t i;

    for (i = SNIC_FIRST_HANDLE; i < c->cfg.max_mw + SNIC_FIRST_HANDLE; i++) {
        if (c->mws[i].bound && c->mws[i].type == SNIC_MW_TYPE_2 &&
            c->mws[i].qpn == qpn) {
            unbind(c, &c->mws[i]);
        }
    }
}

uint16_t snic_cmd_alloc_mw(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result)
{
    const struct snic_admin_alloc_mw *p = &cmd->alloc_mw;
    uint32_t pdn = GUINT32_FROM_LE(p->pdn);
    SnicPd *pd = snic_pd_get(c, pdn);
    uint32_t i;

    if (!pd || (p->type != SNIC_MW_TYPE_1 && p->type != SNIC_MW_TYPE_2)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    i = snic_slots_take(&c->mw_slots);
    if (!i) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    c->mws[i] = (SnicMw) {
        .valid = true,
        .type = p->type,
        .key = p->key,
        .pdn = pdn,
    };
    pd->refs++;
    *result = SNIC_KEY_MW | i << SNIC_KEY_INDEX_SHIFT | p->key;
    return SNIC_ADMIN_OK;
}

/* The handle is an R_Key of the window; type 2 binds change its key byte. */
uint16_t snic_cmd_dealloc_mw(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    SnicMw *mw = mw_slot(c, GUINT32_FROM_LE(cmd->obj.handle));

    if (!mw) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    unbind(c, mw);
    c->pds[mw->pdn].refs--;
    snic_slots_put(&c->mw_slots, mw - c->mws);
    memset(mw, 0, sizeof(*mw));
    return SNIC_ADMIN_OK;
}
