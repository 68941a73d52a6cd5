// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic queue rings: user rings pinned with ib_umem, kernel rings in
 * coherent memory, each described to the device by a contiguous list of
 * little-endian 4 KiB page addresses that must stay unchanged until the
 * device object using the ring is destroyed.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "snic.h"

/* The ring's 4 KiB pages, for the device. */
static int snic_queue_list(struct snic_dev *sdev, struct snic_queue *q,
			   u32 len)
{
	q->npages = len >> SNIC_QUEUE_PAGE_SHIFT;
	q->pbl = dma_alloc_coherent(&sdev->pdev->dev, q->npages * sizeof(u64),
				    &q->pbl_dma, GFP_KERNEL);
	return q->pbl ? 0 : -ENOMEM;
}

/*
 * Pin a user ring (page-aligned; a ring smaller than a page owns the whole
 * page) and list its 4 KiB pages for the device.
 */
int snic_queue_get_user(struct snic_dev *sdev, u64 va, u32 len,
			struct snic_queue *q)
{
	struct ib_block_iter biter;
	u32 i = 0;
	int err;

	if (!len || !IS_ALIGNED(va, SZ_4K)) {
		ibdev_dbg(&sdev->ibdev, "ring at %#llx (%u bytes) refused\n",
			  va, len);
		return -EINVAL;
	}
	len = round_up(len, SZ_4K);
	q->umem = ib_umem_get(&sdev->ibdev, va, len, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(q->umem)) {
		err = PTR_ERR(q->umem);
		q->umem = NULL;
		return err;
	}
	err = snic_queue_list(sdev, q, len);
	if (err)
		goto err_release;
	rdma_umem_for_each_dma_block(q->umem, &biter, SZ_4K) {
		if (i == q->npages)
			break;
		q->pbl[i++] = cpu_to_le64(rdma_block_iter_dma_address(&biter));
	}
	if (i != q->npages) {
		err = -EINVAL;
		goto err_free;
	}
	return 0;

err_free:
	dma_free_coherent(&sdev->pdev->dev, q->npages * sizeof(u64), q->pbl,
			  q->pbl_dma);
	q->pbl = NULL;
err_release:
	ib_umem_release(q->umem);
	q->umem = NULL;
	return err;
}

/* A kernel ring: zeroed coherent memory (CQ phase bits start at 0). */
int snic_queue_alloc(struct snic_dev *sdev, u32 len, struct snic_queue *q)
{
	u32 i;

	len = round_up(len, SZ_4K);
	q->buf = dma_alloc_coherent(&sdev->pdev->dev, len, &q->buf_dma,
				    GFP_KERNEL);
	if (!q->buf)
		return -ENOMEM;
	if (snic_queue_list(sdev, q, len)) {
		dma_free_coherent(&sdev->pdev->dev, len, q->buf, q->buf_dma);
		q->buf = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < q->npages; i++)
		q->pbl[i] = cpu_to_le64(q->buf_dma +
					((u64)i << SNIC_QUEUE_PAGE_SHIFT));
	return 0;
}

/* After the device object using the ring is gone. */
void snic_queue_put(struct snic_dev *sdev, struct snic_queue *q)
{
	struct device *dev = &sdev->pdev->dev;

	if (q->pbl)
		dma_free_coherent(dev, q->npages * sizeof(u64), q->pbl,
				  q->pbl_dma);
	if (q->buf)
		dma_free_coherent(dev, (size_t)q->npages << SNIC_QUEUE_PAGE_SHIFT,
				  q->buf, q->buf_dma);
	if (q->umem)
		ib_umem_release(q->umem);
	q->pbl = NULL;
	q->buf = NULL;
	q->umem = NULL;
}
