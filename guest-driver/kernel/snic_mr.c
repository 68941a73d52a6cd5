// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic memory: memory regions and windows, described to the device by
 * page lists.
 *
 * Memory regions are pinned with ib_umem and described by a contiguous
 * list of little-endian page addresses that the device reads through its
 * translation cache (queue rings likewise: snic_queue.c). The list must
 * stay unchanged until the device object is destroyed. The kernel's DMA
 * MRs are the device's identity mapping.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "snic.h"

#define SNIC_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/*
 * The kernel's local DMA key for a kernel PD: the device's identity
 * mapping (SNIC_MR_PHYS), local access only, no page list.
 */
struct ib_mr *snic_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct snic_dev *sdev = to_sdev(ibpd->device);
	struct snic_com_reg_mr_params params = {
		.length = U64_MAX,
		.pdn = to_spd(ibpd)->pdn,
		.access = access,
		.flags = SNIC_MR_PHYS,
	};
	struct snic_mr *mr;
	u32 key;
	int err;

	if (access & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	params.key = atomic_inc_return(&sdev->mr_key);
	err = snic_com_reg_mr(sdev, &params, &key);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return &mr->ibmr;
}

/* The access bits a user MR may have; optional ones were dropped */
static int snic_mr_access_check(struct snic_dev *sdev, int access)
{
	int ok = SNIC_MR_ACCESS;

	if (snic_has(sdev, SNIC_CAP_MW))
		ok |= IB_ACCESS_MW_BIND;
	return access & ~ok ? -EOPNOTSUPP : 0;
}

/*
 * Pin [start, start + length) for access, mapped at virt_addr, and list
 * its 4 KiB or 2 MiB pages in one contiguous page list (the device reads
 * it in place): into mr->umem, mr->pbl*, and the translation in p.
 */
static int snic_mr_map(struct snic_dev *sdev, struct snic_mr *mr, u64 start,
		       u64 length, u64 virt_addr, int access,
		       struct snic_com_reg_mr_params *p)
{
	struct device *dev = &sdev->pdev->dev;
	struct ib_block_iter biter;
	unsigned long pgsz;
	u64 npages, i = 0;
	int err;

	mr->umem = ib_umem_get(&sdev->ibdev, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		mr->umem = NULL;
		return err;
	}
	pgsz = ib_umem_find_best_pgsz(mr->umem,
				      snic_fault_mr_pgsz(sdev,
					le64_to_cpu(sdev->attr.page_size_cap) &
					(SZ_4K | SZ_2M)), virt_addr);
	npages = pgsz ? ib_umem_num_dma_blocks(mr->umem, pgsz) : 0;
	if (!npages || npages > le32_to_cpu(sdev->attr.max_mr_pages)) {
		err = -EINVAL;
		goto err_umem;
	}
	mr->pbl_bytes = npages * sizeof(u64);
	mr->pbl = dma_alloc_coherent(dev, mr->pbl_bytes, &mr->pbl_dma,
				     GFP_KERNEL | __GFP_NOWARN);
	if (!mr->pbl) {
		err = -ENOMEM;
		goto err_umem;
	}
	rdma_umem_for_each_dma_block(mr->umem, &biter, pgsz)
		mr->pbl[i++] = cpu_to_le64(rdma_block_iter_dma_address(&biter));
	snic_fault_mr_pbl(sdev, mr->pbl, ilog2(pgsz));

	p->iova = virt_addr;
	p->length = length;
	p->pbl_dma = mr->pbl_dma;
	p->npages = npages;
	p->page_shift = ilog2(pgsz);
	return 0;

err_umem:
	ib_umem_release(mr->umem);
	mr->umem = NULL;
	return err;
}

/* The pages and page list of snic_mr_map(), once the device let go */
static void snic_mr_unmap(struct snic_dev *sdev, struct snic_mr *mr)
{
	if (mr->pbl)
		dma_free_coherent(&sdev->pdev->dev, mr->pbl_bytes, mr->pbl,
				  mr->pbl_dma);
	if (mr->umem)		/* none for a DMA MR */
		ib_umem_release(mr->umem);
	mr->pbl = NULL;
	mr->umem = NULL;
}

struct ib_mr *snic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access,
			       struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibpd->device);
	struct snic_com_reg_mr_params params = {
		.pdn = to_spd(ibpd)->pdn,
	};
	struct snic_mr *mr;
	u32 key;
	int err;

	/* Optional access bits (relaxed ordering, ...) may be ignored */
	access &= ~IB_ACCESS_OPTIONAL;
	err = snic_mr_access_check(sdev, access);
	if (err)
		return ERR_PTR(err);
	err = snic_udata_cmd(udata, NULL, 0, 0);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = snic_mr_map(sdev, mr, start, length, virt_addr, access, &params);
	if (err)
		goto err_free;

	params.access = access;		/* IB_ACCESS_* numbers */
	params.key = atomic_inc_return(&sdev->mr_key);
	err = snic_com_reg_mr(sdev, &params, &key);
	if (err)
		goto err_unmap;
	mr->access = access;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return &mr->ibmr;

err_unmap:
	snic_mr_unmap(sdev, mr);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * ibv_rereg_mr: REREG_MR changes the MR in place and keeps its keys (the
 * device refuses while a memory window is bound to it). A new
 * translation, or rights that now include writing, pin the range anew;
 * the old pages go once the device has switched. Returns NULL: the core
 * keeps this ib_mr and moves it to the new PD itself.
 */
struct ib_mr *snic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 virt_addr, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibmr->device);
	struct snic_com_reg_mr_params params = {};
	struct snic_mr *mr = to_smr(ibmr);
	struct snic_mr old, new = {};
	u32 rereg = 0;
	int err;

	if (flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_PD |
		      IB_MR_REREG_ACCESS) || !mr->umem)
		return ERR_PTR(-EOPNOTSUPP);
	err = snic_udata_cmd(udata, NULL, 0, 0);
	if (err)
		return ERR_PTR(err);
	if (flags & IB_MR_REREG_ACCESS) {
		access &= ~IB_ACCESS_OPTIONAL;
		err = snic_mr_access_check(sdev, access);
		if (err)
			return ERR_PTR(err);
		params.access = access;
		rereg |= SNIC_REREG_ACCESS;
		/* pages pinned read-only cannot become writable in place */
		if (!(flags & IB_MR_REREG_TRANS) && !mr->umem->writable &&
		    ib_access_writable(access)) {
			flags |= IB_MR_REREG_TRANS;
			start = mr->umem->address;
			length = mr->umem->length;
			virt_addr = ibmr->iova;
		}
	} else {
		access = mr->access;
	}
	if (flags & IB_MR_REREG_PD) {
		params.pdn = to_spd(ibpd)->pdn;
		rereg |= SNIC_REREG_PD;
	}
	if (flags & IB_MR_REREG_TRANS) {
		err = snic_mr_map(sdev, &new, start, length, virt_addr, access,
				  &params);
		if (err)
			return ERR_PTR(err);
		rereg |= SNIC_REREG_TRANS;
	}
	if (!rereg)
		return NULL;

	err = snic_com_rereg_mr(sdev, ibmr->lkey, rereg, &params);
	if (err) {
		/* the device kept the old translation (or, dead, uses none) */
		snic_mr_unmap(sdev, &new);
		return ERR_PTR(err);
	}
	mr->access = access;
	if (rereg & SNIC_REREG_TRANS) {
		old = *mr;
		mr->umem = new.umem;
		mr->pbl = new.pbl;
		mr->pbl_dma = new.pbl_dma;
		mr->pbl_bytes = new.pbl_bytes;
		snic_mr_unmap(sdev, &old);
	}
	return NULL;
}

/* --- fast registration (SNIC_CAP_FRWR) ------------------------------------ */

/*
 * An MR for fast registration (IB_MR_TYPE_MEM_REG): the device holds its
 * index in the PD and maps nothing until a REG_MR work request
 * (snic_qp.c) hands it the page list map_mr_sg() wrote; that list is the
 * MR's own coherent buffer, which the device reads in place, and is
 * rewritten only once the MR was invalidated.
 */
struct ib_mr *snic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct snic_dev *sdev = to_sdev(ibpd->device);
	struct snic_com_reg_mr_params params = {
		.npages = max_num_sg,
		.pdn = to_spd(ibpd)->pdn,
		.flags = SNIC_MR_FRWR,
	};
	struct snic_mr *mr;
	u32 key;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SNIC_FRWR_MAX_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = max_num_sg;
	mr->pbl_bytes = max_num_sg * sizeof(u64);
	mr->pbl = dma_alloc_coherent(&sdev->pdev->dev, mr->pbl_bytes,
				     &mr->pbl_dma, GFP_KERNEL);
	if (!mr->pbl) {
		err = -ENOMEM;
		goto err_free;
	}
	params.key = atomic_inc_return(&sdev->mr_key);
	err = snic_com_reg_mr(sdev, &params, &key);
	if (err)
		goto err_pbl;
	mr->hw_key = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return &mr->ibmr;

err_pbl:
	dma_free_coherent(&sdev->pdev->dev, mr->pbl_bytes, mr->pbl,
			  mr->pbl_dma);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int snic_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct snic_mr *mr = to_smr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pbl[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/*
 * The pages of a DMA-mapped scatterlist into the MR's page list, at the
 * page size the consumer chose (ib_map_mr_sg()): one the device has.
 */
int snic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct snic_dev *sdev = to_sdev(ibmr->device);

	if (!(le64_to_cpu(sdev->attr.page_size_cap) & ibmr->page_size) ||
	    !(ibmr->page_size & (SZ_4K | SZ_2M)))
		return -EINVAL;
	to_smr(ibmr)->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, snic_set_page);
}

/* --- memory windows (SNIC_CAP_MW) ----------------------------------------- */

/*
 * A window of type 1 or 2 in the PD; its R_Key has SNIC_KEY_MW set. The
 * R_Key of a type 2 window changes with every bind (the binder picks the
 * key byte); the device keeps its number in the rest of the key.
 */
int snic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibmw->device);
	struct snic_mw *mw = to_smw(ibmw);
	u32 rkey;
	int err;

	static_assert(IB_MW_TYPE_1 == SNIC_MW_TYPE_1 &&
		      IB_MW_TYPE_2 == SNIC_MW_TYPE_2);
	err = snic_udata_cmd(udata, NULL, 0, 0);
	if (err)
		return err;
	err = snic_com_alloc_mw(sdev, to_spd(ibmw->pd)->pdn, ibmw->type,
				atomic_inc_return(&sdev->mr_key), &rkey);
	if (err)
		return err;
	mw->handle = rkey;
	ibmw->rkey = rkey;
	return 0;
}

int snic_dealloc_mw(struct ib_mw *ibmw)
{
	struct snic_dev *sdev = to_sdev(ibmw->device);
	int err;

	/* like DEALLOC_PD: refusing would only leak the core's object */
	err = snic_com_dealloc_mw(sdev, to_smw(ibmw)->handle);
	if (err)
		ibdev_warn(&sdev->ibdev, "DEALLOC_MW %#x failed: %d\n",
			   to_smw(ibmw)->handle, err);
	return 0;
}

/*
 * ibv_dereg_mr. The device refuses while a memory window is bound in the
 * MR (the window would reach freed pages): the MR, its pages and its page
 * list stay, the window keeps reaching them, and the caller gets EBUSY (Linux rxe says EINVAL;
 * EBUSY is the RDMA core's answer for an object still in use, a PD with
 * MRs). It may try again once the window is deallocated or invalidated;
 * at process exit the RDMA core destroys the windows and retries, so the
 * MR goes then. Any other failure is a broken device: the list and the
 * pages stay pinned (leaked) and the core is told the MR is gone, since
 * failing would only make it warn and leak too.
 */
int snic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct snic_dev *sdev = to_sdev(ibmr->device);
	struct snic_mr *mr = to_smr(ibmr);
	int err;

	/* The device stops using the page list before it is freed */
	err = snic_com_dereg_mr(sdev, ibmr->lkey);
	if (err == -EBUSY && !snic_admin_dead(sdev))
		return err;
	if (snic_com_destroyed(sdev, err, "MR", ibmr->lkey))
		snic_mr_unmap(sdev, mr);
	kfree(mr);
	return 0;
}
