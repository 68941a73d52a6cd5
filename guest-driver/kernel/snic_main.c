// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic: PCI driver for the snic RoCEv2 NIC (QEMU device "snic").
 *
 * Probe is two halves (efa's shape): snic_probe_device() brings the device
 * up (BARs, reset, MSI-X, admin queue + AEQ, device limits, completion
 * EQs), snic_ib_device_add() puts the stack on it (netdev, ib_device).
 * Remove undoes them with snic_ib_device_remove() and
 * snic_remove_device(); a probe failing in the second half unwinds with
 * snic_remove_device() too.
 */
#include <linux/module.h>
#include <linux/pci.h>

#include "snic.h"

MODULE_AUTHOR("snic developers");
MODULE_DESCRIPTION("snic RoCEv2 NIC driver");
MODULE_LICENSE("Dual BSD/GPL");

static const struct pci_device_id snic_pci_tbl[] = {
	{ PCI_DEVICE(SNIC_PCI_VENDOR_ID, SNIC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, snic_pci_tbl);

/* An affiliated async event to the QP's or CQ's consumer */
static void snic_qp_event(struct snic_dev *sdev, u64 qpn,
			  enum ib_event_type type)
{
	struct ib_qp *qp = xa_load(&sdev->qp_xa, (unsigned long)qpn);
	struct ib_event ev = { .event = type };

	if (!qp) {
		dev_warn_ratelimited(&sdev->pdev->dev,
				     "%s for unknown QP %llu\n",
				     ib_event_msg(type), qpn);
		return;
	}
	if (qp->event_handler) {
		ev.device = qp->device;
		ev.element.qp = qp;
		qp->event_handler(&ev, qp->qp_context);
	}
}

static void snic_cq_event(struct snic_dev *sdev, u64 cqn)
{
	struct ib_cq *cq = xa_load(&sdev->cq_xa, (unsigned long)cqn);
	struct ib_event ev = { .event = IB_EVENT_CQ_ERR };

	if (!cq) {
		dev_warn_ratelimited(&sdev->pdev->dev,
				     "CQ error event for unknown CQ %llu\n",
				     cqn);
		return;
	}
	if (cq->event_handler) {
		ev.device = cq->device;
		ev.element.cq = cq;
		cq->event_handler(&ev, cq->cq_context);
	}
}

/* The SRQ's armed limit was reached (the device disarmed it) */
static void snic_srq_event(struct snic_dev *sdev, u64 srqn)
{
	struct ib_srq *srq = xa_load(&sdev->srq_xa, (unsigned long)srqn);
	struct ib_event ev = { .event = IB_EVENT_SRQ_LIMIT_REACHED };

	if (!srq) {
		dev_warn_ratelimited(&sdev->pdev->dev,
				     "SRQ limit event for unknown SRQ %llu\n",
				     srqn);
		return;
	}
	if (srq->event_handler) {
		ev.device = srq->device;
		ev.element.srq = srq;
		srq->event_handler(&ev, srq->srq_context);
	}
}

static void snic_aeq_link(struct snic_dev *sdev, u64 up)
{
	snic_netdev_link_event(sdev, up != 0);
}

static void snic_aeq_qp_fatal(struct snic_dev *sdev, u64 qpn)
{
	snic_qp_event(sdev, qpn, IB_EVENT_QP_FATAL);
}

static void snic_aeq_qp_req_err(struct snic_dev *sdev, u64 qpn)
{
	snic_qp_event(sdev, qpn, IB_EVENT_QP_REQ_ERR);
}

static void snic_aeq_qp_access_err(struct snic_dev *sdev, u64 qpn)
{
	snic_qp_event(sdev, qpn, IB_EVENT_QP_ACCESS_ERR);
}

static void snic_aeq_qp_last_wqe(struct snic_dev *sdev, u64 qpn)
{
	snic_qp_event(sdev, qpn, IB_EVENT_QP_LAST_WQE_REACHED);
}

static void snic_aeq_qp_comm_est(struct snic_dev *sdev, u64 qpn)
{
	snic_qp_event(sdev, qpn, IB_EVENT_COMM_EST);
}

/*
 * What each async event means (SNIC_EVENT_*), passed to the admin queue
 * as efa passes its aenq_handlers to efa_com_admin_init(): the admin
 * queue calls up into no other part of the driver.
 */
static const struct snic_aeq_handlers snic_aeq_handlers = {
	.handler = {
		[SNIC_EVENT_LINK_CHANGE] = snic_aeq_link,
		[SNIC_EVENT_CQ_ERROR] = snic_cq_event,
		[SNIC_EVENT_EQ_OVERFLOW] = snic_eq_overflow,
		[SNIC_EVENT_QP_FATAL] = snic_aeq_qp_fatal,
		[SNIC_EVENT_QP_REQ_ERR] = snic_aeq_qp_req_err,
		[SNIC_EVENT_QP_ACCESS_ERR] = snic_aeq_qp_access_err,
		[SNIC_EVENT_SRQ_LIMIT] = snic_srq_event,
		[SNIC_EVENT_QP_LAST_WQE] = snic_aeq_qp_last_wqe,
		[SNIC_EVENT_QP_COMM_EST] = snic_aeq_qp_comm_est,
		[SNIC_EVENT_SR_CTRLQ_OVERFLOW] = snic_sr_overflow,
	},
};

/* Identify the device and bring it to power-on state. */
static int snic_check_device(struct snic_dev *sdev)
{
	struct pci_dev *pdev = sdev->pdev;
	u32 magic = readl(sdev->regs + SNIC_REG_MAGIC);
	u32 abi = readl(sdev->regs + SNIC_REG_ABI_VERSION);

	if (magic != SNIC_MAGIC || abi >> 16 != SNIC_ABI_VERSION_MAJOR) {
		dev_err(&pdev->dev,
			"not a snic of ABI %u (magic %#x, ABI %u.%u)\n",
			SNIC_ABI_VERSION_MAJOR, magic, abi >> 16, abi & 0xffff);
		return -ENODEV;
	}
	sdev->abi_minor = abi & 0xffff;
	sdev->num_db_pages = readl(sdev->regs + SNIC_REG_DB_PAGES);
	if (!sdev->num_db_pages ||
	    (u64)sdev->num_db_pages * SNIC_DB_PAGE_SIZE >
	    pci_resource_len(pdev, SNIC_BAR_DOORBELL)) {
		dev_err(&pdev->dev, "%u doorbell pages do not fit BAR%d\n",
			sdev->num_db_pages, SNIC_BAR_DOORBELL);
		return -ENODEV;
	}
	/* Whatever a previous driver left running is dropped here */
	writel(SNIC_CTRL_RESET, sdev->regs + SNIC_REG_DEV_CTRL);
	return 0;
}

/*
 * Vectors for the admin queue, Ethernet and one completion EQ per CPU, and
 * with SRNIC (ABI 3.5) one more for its CtrlQ, if the device has them.
 */
static int snic_alloc_vectors(struct snic_dev *sdev)
{
	u32 dev_vecs = readl(sdev->regs + SNIC_REG_NUM_VECTORS);
	bool sr = sdev->abi_minor >= 5;
	int want, nvec;

	want = min_t(u32, dev_vecs,
		     SNIC_VEC_COMP_BASE + num_online_cpus() + sr);
	if (want < SNIC_MIN_VECTORS) {
		dev_err(&sdev->pdev->dev,
			"device offers %u MSI-X vectors, %d needed\n",
			dev_vecs, SNIC_MIN_VECTORS);
		return -ENOSPC;
	}
	nvec = pci_alloc_irq_vectors(sdev->pdev, SNIC_MIN_VECTORS, want,
				     PCI_IRQ_MSIX);
	if (nvec < 0)
		return nvec;
	sdev->num_vectors = nvec;
	if (sr && nvec > SNIC_MIN_VECTORS)
		sdev->sr.vector = --nvec;
	sdev->ibdev.num_comp_vectors = nvec - SNIC_VEC_COMP_BASE;
	return 0;
}

/* What snic_probe_device() set up before it had BARs and vectors */
static void snic_free_dev(struct snic_dev *sdev)
{
	struct pci_dev *pdev = sdev->pdev;

	if (sdev->db)
		pci_iounmap(pdev, sdev->db);
	if (sdev->regs)
		pci_iounmap(pdev, sdev->regs);
	xa_destroy(&sdev->cq_xa);
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->srq_xa);
	ida_destroy(&sdev->db_page_ida);
	ib_dealloc_device(&sdev->ibdev);
}

/*
 * The device half of probe: PCI function, BARs, reset, MSI-X vectors,
 * admin queue + AEQ, the device's limits (QUERY_DEVICE) and the
 * completion EQs. snic_remove_device() undoes it.
 */
static struct snic_dev *snic_probe_device(struct pci_dev *pdev)
{
	struct snic_dev *sdev;
	int err;

	err = pci_enable_device_mem(pdev);
	if (err)
		return ERR_PTR(err);
	err = pci_request_mem_regions(pdev, DRV_MODULE_NAME);
	if (err)
		goto err_disable;
	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_regions;
	/* Lets ib_umem merge pinned pages into long DMA segments */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);

	sdev = ib_alloc_device(snic_dev, ibdev);
	if (!sdev) {
		err = -ENOMEM;
		goto err_regions;
	}
	sdev->pdev = pdev;
	pci_set_drvdata(pdev, sdev);
	ida_init(&sdev->db_page_ida);
	xa_init(&sdev->cq_xa);
	xa_init(&sdev->qp_xa);
	xa_init(&sdev->srq_xa);

	sdev->regs = pci_iomap(pdev, SNIC_BAR_REGS, SNIC_BAR0_SIZE);
	sdev->db = pci_iomap(pdev, SNIC_BAR_DOORBELL, SNIC_DB_PAGE_SIZE);
	if (!sdev->regs || !sdev->db) {
		err = -ENOMEM;
		goto err_free_dev;
	}
	sdev->db_bar_start = pci_resource_start(pdev, SNIC_BAR_DOORBELL);
	err = snic_check_device(sdev);
	if (err)
		goto err_free_dev;
	err = snic_alloc_vectors(sdev);
	if (err)
		goto err_free_dev;
	err = snic_admin_init(sdev, &snic_aeq_handlers);
	if (err)
		goto err_vectors;
	err = snic_com_query_device(sdev, &sdev->attr);
	if (err)
		goto err_admin;
	err = snic_eqs_create(sdev);
	if (err)
		goto err_admin;
	snic_sr_init(sdev);
	return sdev;

err_admin:
	snic_admin_destroy(sdev);
err_vectors:
	pci_free_irq_vectors(pdev);
err_free_dev:
	snic_free_dev(sdev);
err_regions:
	pci_release_mem_regions(pdev);
err_disable:
	pci_disable_device(pdev);
	return ERR_PTR(err);
}

/* Undoes snic_probe_device(), once snic_ib_device_remove() ran. */
static void snic_remove_device(struct pci_dev *pdev)
{
	struct snic_dev *sdev = pci_get_drvdata(pdev);

	snic_sr_destroy(sdev);
	snic_eqs_destroy(sdev);
	snic_admin_destroy(sdev);
	pci_free_irq_vectors(pdev);
	WARN_ON(!xa_empty(&sdev->cq_xa) || !xa_empty(&sdev->qp_xa));
	snic_free_dev(sdev);
	pci_release_mem_regions(pdev);
	pci_disable_device(pdev);
}

/*
 * The stack half: the netdev, then the ib_device on it (registration
 * queries the port through the netdev). snic_ib_device_remove() undoes
 * it; a failure here leaves nothing behind.
 */
static int snic_ib_device_add(struct snic_dev *sdev)
{
	int err;

	err = snic_netdev_create(sdev);
	if (err)
		return err;
	err = snic_ib_register(sdev);
	if (err) {
		snic_netdev_destroy(sdev);
		return err;
	}
	return 0;
}

static void snic_ib_device_remove(struct snic_dev *sdev)
{
	snic_ib_unregister(sdev);
	snic_netdev_destroy(sdev);
	/* an ip link up/down racing the unregister may have queued it */
	cancel_work_sync(&sdev->port_work);
}

static int snic_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct snic_dev *sdev;
	int err;

	sdev = snic_probe_device(pdev);
	if (IS_ERR(sdev))
		return PTR_ERR(sdev);
	snic_fault_add(sdev);		/* before the first MR can come */
	err = snic_ib_device_add(sdev);
	if (err) {
		snic_fault_remove(sdev);
		snic_remove_device(pdev);
		return err;
	}
	dev_info(&pdev->dev, "%s / %s: MAC %pM, %u MSI-X vectors, %u doorbell pages\n",
		 dev_name(&sdev->ibdev.dev), netdev_name(sdev->netdev),
		 sdev->netdev->dev_addr, sdev->num_vectors, sdev->num_db_pages);
	return 0;
}

static void snic_remove(struct pci_dev *pdev)
{
	snic_ib_device_remove(pci_get_drvdata(pdev));
	snic_fault_remove(pci_get_drvdata(pdev));
	snic_remove_device(pdev);
}

/* Reboot/kexec: stop all DMA without tearing the stack down */
static void snic_shutdown(struct pci_dev *pdev)
{
	struct snic_dev *sdev = pci_get_drvdata(pdev);

	writel(0, sdev->regs + SNIC_REG_DEV_CTRL);
}

static struct pci_driver snic_pci_driver = {
	.name = DRV_MODULE_NAME,
	.id_table = snic_pci_tbl,
	.probe = snic_probe,
	.remove = snic_remove,
	.shutdown = snic_shutdown,
};

static int __init snic_init(void)
{
	int err;

	snic_fault_init();
	err = pci_register_driver(&snic_pci_driver);
	if (err)
		snic_fault_exit();
	return err;
}

static void __exit snic_exit(void)
{
	pci_unregister_driver(&snic_pci_driver);
	snic_fault_exit();
}

module_init(snic_init);
module_exit(snic_exit);
