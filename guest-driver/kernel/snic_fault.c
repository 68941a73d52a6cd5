// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic fault injection, for driver development only: with the module
 * parameter fault_inject=1 each device gets debugfs hooks in
 * snic/<pci-name>/ that make the driver commit a bug on purpose, so that
 * what the device and the IOMMU report for it can be seen and tested.
 *
 * mr_use_after_unmap: writing 1 arms it; the next user MR then lists as
 * its first page the IOVA of a 64 KiB buffer that the driver has just
 * mapped with dma_map_single() and unmapped again, the way a driver that
 * keeps a stale DMA address would. 64 KiB is a size no other snic.ko
 * mapping uses, so the IOVA allocator, which hands freed IOVAs out again
 * by size, gives that IOVA to nobody else meanwhile. Behind an IOMMU in
 * translating, strict mode the device's access to it is refused (a DMAR
 * fault) and the work request fails with a local protection error.
 * Reading the file gives the IOVA and whether iommu_iova_to_phys() still
 * found it unmapped when the MR was registered. Without such an IOMMU the
 * address would reach freed memory: arming is refused.
 */
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "snic.h"

static bool fault_inject;
module_param(fault_inject, bool, 0444);
MODULE_PARM_DESC(fault_inject,
		 "debugfs hooks that inject driver bugs (driver development only)");

#define SNIC_UAU_BYTES	SZ_64K

static struct dentry *snic_debugfs_root;

void snic_fault_init(void)
{
	if (fault_inject)
		snic_debugfs_root = debugfs_create_dir(DRV_MODULE_NAME, NULL);
}

void snic_fault_exit(void)
{
	debugfs_remove_recursive(snic_debugfs_root);
	snic_debugfs_root = NULL;
}

/* The device's DMA goes through an IOMMU domain that unmaps at once */
static bool snic_fault_strict_dma(struct snic_dev *sdev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(&sdev->pdev->dev);

	return dom && dom->type == IOMMU_DOMAIN_DMA;
}

static ssize_t snic_uau_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct snic_dev *sdev = file->private_data;
	bool on;
	int err;

	err = kstrtobool_from_user(ubuf, count, &on);
	if (err)
		return err;
	if (on && !snic_fault_strict_dma(sdev)) {
		dev_warn(&sdev->pdev->dev,
			 "mr_use_after_unmap needs an IOMMU in translating, strict mode (iommu.passthrough=0 iommu.strict=1): not armed\n");
		return -EOPNOTSUPP;
	}
	mutex_lock(&sdev->fault.lock);
	sdev->fault.uau_armed = on;
	mutex_unlock(&sdev->fault.lock);
	return count;
}

static ssize_t snic_uau_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct snic_dev *sdev = file->private_data;
	char buf[96];
	int n;

	mutex_lock(&sdev->fault.lock);
	if (sdev->fault.uau_used)
		n = scnprintf(buf, sizeof(buf), "armed=%d iova=%#llx unmapped=%d\n",
			      sdev->fault.uau_armed,
			      (u64)sdev->fault.uau_iova,
			      sdev->fault.uau_unmapped);
	else
		n = scnprintf(buf, sizeof(buf), "armed=%d iova=none\n",
			      sdev->fault.uau_armed);
	mutex_unlock(&sdev->fault.lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations snic_uau_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = snic_uau_read,
	.write = snic_uau_write,
	.llseek = default_llseek,
};

void snic_fault_add(struct snic_dev *sdev)
{
	mutex_init(&sdev->fault.lock);
	if (!snic_debugfs_root)
		return;
	sdev->fault.dir = debugfs_create_dir(pci_name(sdev->pdev),
					     snic_debugfs_root);
	debugfs_create_file("mr_use_after_unmap", 0600, sdev->fault.dir, sdev,
			    &snic_uau_fops);
}

void snic_fault_remove(struct snic_dev *sdev)
{
	debugfs_remove_recursive(sdev->fault.dir);
	sdev->fault.dir = NULL;
	mutex_destroy(&sdev->fault.lock);
}

/* The page sizes a user MR may use: 4 KiB only when it will be poisoned */
unsigned long snic_fault_mr_pgsz(struct snic_dev *sdev, unsigned long pgsz)
{
	return READ_ONCE(sdev->fault.uau_armed) ? pgsz & SZ_4K : pgsz;
}

/*
 * A user MR's page list is complete: if armed, its first entry becomes
 * the IOVA of a buffer mapped and unmapped right here (once).
 */
void snic_fault_mr_pbl(struct snic_dev *sdev, __le64 *pbl, unsigned int shift)
{
	struct device *dev = &sdev->pdev->dev;
	dma_addr_t iova;
	void *buf;

	mutex_lock(&sdev->fault.lock);
	if (!sdev->fault.uau_armed || shift != ilog2(SZ_4K))
		goto out;
	buf = kmalloc(SNIC_UAU_BYTES, GFP_KERNEL);
	if (!buf)
		goto out;
	iova = dma_map_single(dev, buf, SNIC_UAU_BYTES, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, iova)) {
		kfree(buf);
		goto out;
	}
	dma_unmap_single(dev, iova, SNIC_UAU_BYTES, DMA_BIDIRECTIONAL);
	kfree(buf);
	pbl[0] = cpu_to_le64(iova);
	sdev->fault.uau_iova = iova;
	sdev->fault.uau_unmapped =
		!iommu_iova_to_phys(iommu_get_domain_for_dev(dev), iova);
	sdev->fault.uau_armed = false;
	sdev->fault.uau_used = true;
	dev_info(dev, "fault injection: a user MR's first page is IOVA %#llx, unmapped%s\n",
		 (u64)iova, sdev->fault.uau_unmapped ? "" :
		 " (but the IOMMU still translates it)");
out:
	mutex_unlock(&sdev->fault.lock);
}
