/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsnic: rdma-core provider for snic, the QEMU-emulated RoCEv2 NIC.
 */
#ifndef __SNIC_H__
#define __SNIC_H__

#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/util.h>

#define PCI_VENDOR_ID_SNIC 0x1af4 /* QEMU's range for experimental devices */
#define PCI_DEVICE_ID_SNIC 0x10f0

struct snic_device {
	struct verbs_device vdev;
	size_t page_size; /* host page size: doorbell mappings are multiples */
};

struct snic_context {
	struct verbs_context ibvctx;
	/*
	 * This context's BAR2 doorbell page (write-only, uncached). The
	 * device ignores doorbells for queues another context owns.
	 */
	void *db;
	size_t db_size;
	uint32_t db_page;
	/* limits and ring formats reported by GET_CONTEXT */
	uint32_t max_qp_wr;
	uint32_t max_cqe;
	uint32_t sq_wqe_size;
	uint32_t rq_wqe_size;
	uint32_t cqe_size;
	uint16_t max_send_sge;
	uint16_t max_recv_sge;
};

struct snic_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

static inline struct snic_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct snic_device, vdev.device);
}

static inline struct snic_context *to_sctx(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct snic_context, ibvctx.context);
}

static inline struct snic_pd *to_spd(struct ibv_pd *ibvpd)
{
	return container_of(ibvpd, struct snic_pd, ibvpd);
}

/* verbs.c */
int snic_query_device_ex(struct ibv_context *ibvctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int snic_query_port(struct ibv_context *ibvctx, uint8_t port,
		    struct ibv_port_attr *port_attr);
struct ibv_pd *snic_alloc_pd(struct ibv_context *ibvctx);
int snic_dealloc_pd(struct ibv_pd *ibvpd);

#endif /* __SNIC_H__ */
