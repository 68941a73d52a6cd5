/*
 * Unit tests of the QP state machine rules against an independent
 * statement of Linux's ib_modify_qp_is_ok() table: every (current, next)
 * pair for RC, UD, GSI and UC, valid and invalid, every required attribute
 * left out, every attribute outside the allowed set added.
 *
 * The expected masks are the hex values of the Linux table's entries
 * (drivers/infiniband/core/verbs.c, 6.x), written independently of the
 * flag expressions in qp_state.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "objects/qp_state.h"

typedef struct Expect {
    uint32_t cur, next;
    uint32_t req[4], opt[4];    /* RC, UD, GSI, UC */
} Expect;

enum { RC, UD, GSI, UC, NTYPES };
static const uint32_t types[NTYPES] = {
    SNIC_QPT_RC, SNIC_QPT_UD, SNIC_QPT_GSI, SNIC_QPT_UC,
};

#define R SNIC_QPS_RESET
#define I SNIC_QPS_INIT
#define RTR SNIC_QPS_RTR
#define RTS SNIC_QPS_RTS
#define SQD SNIC_QPS_SQD
#define SQE SNIC_QPS_SQE
#define E SNIC_QPS_ERR

/* Every valid transition; all others are invalid. */
static const Expect valid[] = {
    { R, R },
    { R, I, { 0x38, 0x70, 0x50, 0x38 } },
    { I, R }, { I, E },
    { I, I, { 0 }, { 0x38, 0x70, 0x50, 0x38 } },
    { I, RTR, { 0x129180, 0, 0, 0x101180 }, { 0x4018, 0x50, 0x50, 0x4018 } },
    { RTR, R }, { RTR, E },
    { RTR, RTS, { 0x12e00, 0x10000, 0x10000, 0x10000 },
      { 0x4c00a, 0x42, 0x42, 0x4400a } },
    { RTS, R }, { RTS, E },
    { RTS, RTS, { 0 }, { 0x4c00a, 0x42, 0x42, 0x4400a } },
    { RTS, SQD, { 0 }, { 0x4, 0x4, 0x4, 0x4 } },
    { SQD, R }, { SQD, E },
    { SQD, RTS, { 0 }, { 0x4c00a, 0x42, 0x42, 0x4400a } },
    { SQD, SQD, { 0 }, { 0x6eeb8, 0x50, 0x50, 0x44098 } },
    { SQE, R }, { SQE, E },
    { SQE, RTS, { 0 }, { 0, 0x42, 0x42, 0xa } },
    { E, R }, { E, E },
};

static const Expect *find(uint32_t cur, uint32_t next)
{
    size_t i;

    for (i = 0; i < G_N_ELEMENTS(valid); i++) {
        if (valid[i].cur == cur && valid[i].next == next) {
            return &valid[i];
        }
    }
    return NULL;
}

static bool cur_state_allowed(uint32_t cur)
{
    return cur == RTR || cur == RTS || cur == SQD || cur == SQE;
}

static void test_every_pair(void)
{
    uint32_t cur, next, bit;
    unsigned t, checked = 0;

    for (cur = 0; cur < SNIC_QPS_COUNT; cur++) {
        for (next = 0; next < SNIC_QPS_COUNT; next++) {
            const Expect *e = find(cur, next);

            for (t = 0; t < NTYPES; t++) {
                uint32_t type = types[t];
                uint32_t req = e ? e->req[t] : 0, opt = e ? e->opt[t] : 0;
                uint32_t all = req | opt | SNIC_QP_ATTR_STATE;

                g_assert_cmphex(snic_qp_modify_required(cur, next, type), ==,
                                req);
                g_assert_cmphex(snic_qp_modify_optional(cur, next, type), ==,
                                opt);
                if (!e) {
                    g_assert_false(snic_qp_modify_is_ok(cur, next, type,
                                                        SNIC_QP_ATTR_STATE));
                    g_assert_false(snic_qp_modify_is_ok(cur, next, type,
                                                        0x1fffff));
                    checked++;
                    continue;
                }
                g_assert_true(snic_qp_modify_is_ok(cur, next, type,
                                                   req | SNIC_QP_ATTR_STATE));
                g_assert_true(snic_qp_modify_is_ok(cur, next, type, all));
                for (bit = 1; bit < (1u << 21); bit <<= 1) {
                    if (req & bit) {
                        /* a required attribute left out */
                        g_assert_false(snic_qp_modify_is_ok(cur, next, type,
                                                            all & ~bit));
                    } else if (!(all & bit)) {
                        /* an attribute this transition does not take */
                        g_assert_false(snic_qp_modify_is_ok(cur, next, type,
                                                            req | bit));
                    }
                }
                checked++;
            }
        }
    }
    g_assert_cmpuint(checked, ==, SNIC_QPS_COUNT * SNIC_QPS_COUNT * NTYPES);
}

static void test_cur_state_rule(void)
{
    uint32_t cur;

    /* CUR_STATE is accepted on X -> RTS only from RTR, RTS, SQD and SQE */
    for (cur = 0; cur < SNIC_QPS_COUNT; cur++) {
        uint32_t mask = SNIC_QP_ATTR_STATE | SNIC_QP_ATTR_CUR_STATE |
                        snic_qp_modify_required(cur, RTS, SNIC_QPT_UD);

        g_assert_cmpint(snic_qp_modify_is_ok(cur, RTS, SNIC_QPT_UD, mask), ==,
                        cur_state_allowed(cur));
    }
    /* and never where the transition does not list it */
    g_assert_false(snic_qp_modify_is_ok(I, I, SNIC_QPT_UD,
                                        SNIC_QP_ATTR_STATE |
                                        SNIC_QP_ATTR_CUR_STATE));
    g_assert_false(snic_qp_modify_is_ok(RTS, E, SNIC_QPT_RC,
                                        SNIC_QP_ATTR_STATE |
                                        SNIC_QP_ATTR_CUR_STATE));
}

static void test_out_of_range(void)
{
    g_assert_false(snic_qp_modify_is_ok(7, R, SNIC_QPT_RC,
                                        SNIC_QP_ATTR_STATE));
    g_assert_false(snic_qp_modify_is_ok(R, 0xffffffff, SNIC_QPT_RC,
                                        SNIC_QP_ATTR_STATE));
    g_assert_false(snic_qp_modify_is_ok(R, R, 5 /* not a type */,
                                        SNIC_QP_ATTR_STATE));
    g_assert_false(snic_qp_modify_is_ok(R, R, 0xff, SNIC_QP_ATTR_STATE));
    g_assert_cmphex(snic_qp_modify_required(R, I, 0), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/qp-state/every-pair", test_every_pair);
    g_test_add_func("/qp-state/cur-state-rule", test_cur_state_rule);
    g_test_add_func("/qp-state/out-of-range", test_out_of_range);
    return g_test_run();
}
