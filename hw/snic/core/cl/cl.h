/*
 * snic core: the connectionless reliable transport with receiver
 * registration (cl/README.md): what the shell and the engine call.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_CL_H
#define SNIC_CORE_CL_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "cl/cl_types.h"
#include "snic_core.h"

typedef struct SnicCore SnicCore;
typedef struct SnicQp SnicQp;
struct SnicPkt;
struct snic_admin_cmd;
struct SnicOnchip;

/* Defaults of the device's tables (properties cl-*) */
#define SNIC_CL_DEF_TABLE       256     /* registration table entries */
#define SNIC_CL_DEF_MASK_BITS   128     /* bits of a registration mask */
#define SNIC_CL_DEF_PACKET      512     /* payload bytes of a CL packet */
#define SNIC_CL_DEF_ESCAPE      64      /* escape channel packets */
#define SNIC_CL_DEF_DONE        256     /* completed-operations cache */
#define SNIC_CL_DEF_OPS         256     /* sender's DMA-operation table */
#define SNIC_CL_DEF_TXNS        256     /* sender's transaction table */
#define SNIC_CL_DEF_ENDPOINTS   64      /* endpoints (SET_QP_CL) */
#define SNIC_CL_MAX_ENDPOINTS   255     /* SnicQp.cl_ep is 8 bits */
#define SNIC_CL_DEF_TIMEOUT_US  100
#define SNIC_CL_DEF_RETRIES     7
#define SNIC_CL_MAX_TIMEOUT_US  1000000 /* SET_QP_CL's, a peer's */
#define SNIC_CL_MAX_RETRIES     7
#define SNIC_CL_RNR_RETRIES     7       /* NOT_READYs waited out a packet */
#define SNIC_CL_MAX_MASK_BITS   1024
#define SNIC_CL_MAX_ENTRIES     65535   /* op ids: slot | generation << 16 */

void snic_cl_init(SnicCore *c);
void snic_cl_free(SnicCore *c);
void snic_cl_reset(SnicCore *c);
/* On-chip bytes of the tables (onchip.c) */
uint64_t snic_cl_onchip_bytes(const SnicCore *c);
/* Their sizes, for QUERY_DEVICE */
struct snic_device_attr;
void snic_cl_attr(const SnicCore *c, struct snic_device_attr *a);

/* Is the QP a connectionless endpoint? */
bool snic_cl_on(const SnicQp *qp);

/* An endpoint's packets from the wire (a CL op-code, its QP an endpoint) */
void snic_cl_receive(SnicCore *c, SnicQp *qp, const struct SnicPkt *p);
/* Has the endpoint WQEs it has not started (timing model: a fetch)? */
bool snic_cl_wants_fetch(SnicCore *c, const SnicQp *qp);
/* One scheduling iteration of an endpoint; true if it has more to send */
bool snic_cl_run(SnicCore *c, SnicQp *qp, unsigned budget);
/* Its timer: the oldest packet's deadline, its escape-channel packets' */
uint64_t snic_cl_deadline(SnicCore *c, SnicQp *qp);
void snic_cl_timer(SnicCore *c, SnicQp *qp, uint64_t now);
/* The QP goes to RESET or is destroyed: its entries are let go of */
void snic_cl_qp_reset(SnicCore *c, SnicQp *qp);
/* ... goes to ERR: its operations in flight end */
void snic_cl_qp_error(SnicCore *c, SnicQp *qp);

/*
 * The initial mask of a registered operation of 'npkts' packets in a
 * mask of 'bits' bits (section 3.2: a barrel shifter shifts in zeroes
 * for the packets expected, above them ones, and packet 0 has arrived),
 * as bits / 64 little-endian 64-bit words. False if npkts is 0 or more
 * than bits.
 */
bool snic_cl_initial_mask(uint32_t bits, uint32_t npkts, uint64_t *mask);

/* The cl-* properties in range; else false with an error naming one */
bool snic_cl_config_check(const SnicCoreConfig *cfg, GError **errp);

uint16_t snic_cmd_set_qp_cl(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result);

#endif /* SNIC_CORE_CL_H */
