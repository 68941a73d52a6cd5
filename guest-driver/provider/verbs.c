// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: verbs. Only ibv_cmd_* calls that exist with the same
 * signature in rdma-core 44 (Debian 12's libibverbs) through 56.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snic.h"
#include "snic-abi.h"

int snic_query_device_ex(struct ibv_context *ibvctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int err;

	err = ibv_cmd_query_device_any(ibvctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (err) {
		verbs_err(verbs_get_ctx(ibvctx), "QUERY_DEVICE failed: %s\n",
			  strerror(err));
		return err;
	}

	/* fw_ver is major:16 minor:16 sub_minor:16 in bits 47..0 */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);

	return 0;
}

int snic_query_port(struct ibv_context *ibvctx, uint8_t port,
		    struct ibv_port_attr *port_attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibvctx, port, port_attr, &cmd, sizeof(cmd));
}

struct ibv_pd *snic_alloc_pd(struct ibv_context *ibvctx)
{
	struct snic_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct snic_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	err = ibv_cmd_alloc_pd(ibvctx, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(verbs_get_ctx(ibvctx), "ALLOC_PD failed: %s\n",
			  strerror(err));
		free(pd);
		errno = err;
		return NULL;
	}

	pd->pdn = resp.pdn;

	return &pd->ibvpd;
}

int snic_dealloc_pd(struct ibv_pd *ibvpd)
{
	struct snic_pd *pd = to_spd(ibvpd);
	int err;

	err = ibv_cmd_dealloc_pd(ibvpd);
	if (err) {
		verbs_err(verbs_get_ctx(ibvpd->context),
			  "DEALLOC_PD of pdn %u failed: %s\n", pd->pdn,
			  strerror(err));
		return err;
	}

	free(pd);

	return 0;
}
