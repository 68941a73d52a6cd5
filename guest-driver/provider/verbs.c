// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsnic: device queries, PDs, MRs, AHs and ring memory. Only ibv_cmd_*
 * calls that exist with the same signature in rdma-core 44 (Debian 12's
 * libibverbs) through 56.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

struct ibv_mr *snic_reg_mr(struct ibv_pd *ibvpd, void *addr, size_t len,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ibv_reg_mr cmd = {};
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	err = ibv_cmd_reg_mr(ibvpd, addr, len, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}

	return &vmr->ibv_mr;
}

int snic_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;

	free(vmr);

	return 0;
}

/*
 * ibv_rereg_mr: the kernel changes the MR in place (REREG_MR keeps the
 * keys); libibverbs updates the ibv_mr's PD, address and length.
 */
int snic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct ibv_rereg_mr cmd = {};

	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

/* UD multicast: the kernel attaches the QP to the group (or refuses) */
int snic_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	return ibv_cmd_attach_mcast(qp, gid, lid);
}

int snic_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	return ibv_cmd_detach_mcast(qp, gid, lid);
}

/* Memory windows of type 1 and 2: the kernel allocates the R_Key */
struct ibv_mw *snic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;

	err = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}

	return mw;
}

int snic_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;

	free(mw);

	return 0;
}

struct ibv_ah *snic_create_ah(struct ibv_pd *ibvpd, struct ibv_ah_attr *attr)
{
	struct snic_create_ah_resp resp = {};
	struct snic_ah *ah;
	int err;

	static_assert(sizeof(resp.av) == sizeof(ah->av), "AV size");

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	err = ibv_cmd_create_ah(ibvpd, &ah->ibvah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}

	memcpy(&ah->av, resp.av, sizeof(ah->av));

	return &ah->ibvah;
}

int snic_destroy_ah(struct ibv_ah *ibvah)
{
	int err;

	err = ibv_cmd_destroy_ah(ibvah);
	if (err)
		return err;

	free(to_sah(ibvah));

	return 0;
}

/*
 * Rings are whole anonymous pages: zeroed, page-aligned, shared with no
 * other allocation, so the kernel's pin and DONTFORK (for applications
 * that called ibv_fork_init) affect nothing else.
 */
int snic_ring_alloc(struct snic_context *ctx, struct snic_ring *ring,
		    size_t entry_size, uint8_t log2_depth)
{
	void *buf;

	ring->log2_depth = log2_depth;
	ring->size = entry_size << log2_depth;
	buf = mmap(NULL, align(ring->size, ctx->page_size),
		   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return errno;

	if (ibv_dontfork_range(buf, ring->size)) {
		munmap(buf, ring->size);
		return ENOMEM;
	}
	ring->buf = buf;

	return 0;
}

/* Only once the kernel destroyed the queue: the device may write it until then */
void snic_ring_free(struct snic_ring *ring)
{
	ibv_dofork_range(ring->buf, ring->size);
	munmap(ring->buf, ring->size);
}
