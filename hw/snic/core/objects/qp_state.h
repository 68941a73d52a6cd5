/*
 * snic core: QP state machine rules.
 *
 * The (current, next) state table with required and optional attribute
 * masks per QP type, the same rules as Linux's ib_modify_qp_is_ok(), so a
 * driver can pass the verbs request through and the device judges it the
 * way the RDMA core does. States, types and mask bits use the verbs
 * numbering (include/snic/snic_verbs.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_QP_STATE_H
#define SNIC_CORE_QP_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "snic/snic_verbs.h"

/*
 * True if a QP of 'type' may go from 'cur' to 'next' with exactly the
 * attributes in 'mask' (SNIC_QP_ATTR_*): every required attribute given,
 * nothing outside required | optional | STATE. Out-of-range states or
 * types are simply not allowed.
 */
bool snic_qp_modify_is_ok(uint32_t cur, uint32_t next, uint32_t type,
                          uint32_t mask);

/* Required and optional masks of a transition (0 if it is not valid). */
uint32_t snic_qp_modify_required(uint32_t cur, uint32_t next, uint32_t type);
uint32_t snic_qp_modify_optional(uint32_t cur, uint32_t next, uint32_t type);

#endif /* SNIC_CORE_QP_STATE_H */
