// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SRNIC's selective repeat with bitmap onloading (SRNIC, NSDI'23, section
 * 4.4.2, Fig. 7 and 8): the driver is the host software the device
 * onloads its bitmaps to (include/snic/snic_sr.h).
 *
 * One CtrlQ for the device, created at probe on an MSI-X vector of its
 * own, and handled in hard interrupt context: recovery must not wait for
 * the application, which may never call into libibverbs during a
 * transfer (ib_write_bw's server). Each QP that selects
 * SNIC_TRANSPORT_SRNIC, a user QP as well as a kernel one, gets a RetryQ
 * from the kernel (coherent memory, rung on the kernel's doorbell page:
 * a process cannot post retransmissions for its QP) and the bitmaps of
 * guest-driver/common/snic_sr_recovery.c, the logic the simulator runs
 * too. The handler feeds each CtrlQ entry to its QP's bitmaps, posts
 * what they decide on the QP's RetryQ, and returns the CtrlQ's slots.
 *
 * Lifetime: the QPs are found by QPN in an xarray. Removing one and then
 * synchronize_irq() on the CtrlQ's vector means no handler still uses
 * it; its RetryQ is freed once the device no longer reads it (the QP
 * destroyed, moved to RESET, or given another program). An entry whose
 * QP is not in the xarray (destroyed meanwhile) is only counted.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>

#include "snic.h"
#include "snic_sr_recovery.h"

/*
 * 2048 CtrlQ entries (64 KiB): a BDP window of metadata for 16 QPs in
 * recovery at once before the device drops what it cannot report.
 */
#define SNIC_SR_CTRLQ_LOG2	11
#define SNIC_SR_CTRLQ_BYTES	(SNIC_SR_CTRLQ_ENTRY << SNIC_SR_CTRLQ_LOG2)
/*
 * 4096 RetryQ entries (64 KiB), the device's largest: room for all the
 * host can have decided at once (a completion for each of the
 * SNIC_SR_SW_RECVS SSNs it holds, a range for each hole of the
 * SNIC_SR_SPAN PSNs, ePSN and lACK moves) twice over, since the consumer
 * index it knows comes with the CtrlQ entries and may lag. A full ring
 * would leave decisions to the QP's next entry, which an idle sender
 * never sends.
 */
#define SNIC_SR_RETRYQ_LOG2	12
#define SNIC_SR_RETRYQ_DEPTH	(1u << SNIC_SR_RETRYQ_LOG2)
#define SNIC_SR_RETRYQ_BYTES	(SNIC_SR_RETRYQ_ENTRY << SNIC_SR_RETRYQ_LOG2)
/* CtrlQ slots returned (and decisions posted) at least this often */
#define SNIC_SR_BATCH		64

/* An SRNIC QP's host half */
struct snic_sr_qp {
	struct snic_sr_sw_qp sw;	/* the bitmaps (handler only) */
	struct snic_sr_retry *ring;	/* RetryQ */
	dma_addr_t ring_dma;
	u16 pi;			/* RetryQ producer, as rung */
	u16 ci;			/* ... consumer, as the CtrlQ last said */
	struct snic_sr_qp *next;	/* the handler's batch */
	bool queued;		/* on it */
};

bool snic_sr_enabled(const struct snic_dev *sdev)
{
	return sdev->sr.ring;
}

/*
 * Whatever the QP decided, onto its RetryQ: written in place, in at most
 * two runs of free slots (before and after the ring's end), so that the
 * decisions take one pass over the QP's bitmaps, not one per chunk
 */
static void snic_sr_post(struct snic_dev *sdev, struct snic_sr_qp *q)
{
	struct snic_sr *sr = &sdev->sr;
	unsigned int room, run, slot, n, i;
	bool posted = false;

	do {
		room = SNIC_SR_RETRYQ_DEPTH - (u16)(q->pi - q->ci);
		if (!room) {
			/* decided again at the QP's next entry */
			atomic64_inc(&sr->retry_full);
			break;
		}
		slot = q->pi & (SNIC_SR_RETRYQ_DEPTH - 1);
		run = min(room, SNIC_SR_RETRYQ_DEPTH - slot);
		n = snic_sr_sw_flush(&q->sw, &q->ring[slot], run);
		for (i = 0; i < n; i++) {
			if (q->ring[slot + i].type == SNIC_SR_RETRY_EPSN)
				atomic64_inc(&sr->epsn_posted);
			else if (q->ring[slot + i].type == SNIC_SR_RETRY_RTX)
				atomic64_inc(&sr->rtx_posted);
			else if (q->ring[slot + i].type == SNIC_SR_RETRY_LACK)
				atomic64_inc(&sr->lack_posted);
		}
		q->pi += n;
		posted |= n;
	} while (n == run);
	/* writeq orders the entries before the doorbell */
	if (posted)
		snic_ring_db(sdev, SNIC_DB_SR_RETRYQ, q->sw.qpn, q->pi);
}

static void snic_sr_flush_batch(struct snic_dev *sdev,
				struct snic_sr_qp **batch)
{
	struct snic_sr_qp *q;

	while ((q = *batch)) {
		*batch = q->next;
		q->queued = false;
		snic_sr_post(sdev, q);
	}
}

/*
 * The CtrlQ's interrupt: every new entry to its QP's bitmaps; every
 * SNIC_SR_BATCH entries and at the end, the decisions out and the slots
 * back. An interrupt finding nothing new (its entries were taken by the
 * previous run) is still ours.
 */
static irqreturn_t snic_sr_irq(int irq, void *data)
{
	struct snic_dev *sdev = data;
	struct snic_sr *sr = &sdev->sr;
	struct snic_sr_qp *batch = NULL, *q;
	struct snic_sr_ctrl *e;
	u32 n = 0;
	u16 ci;

	while ((e = snic_ring_next(sr->ring, sr->head, SNIC_SR_CTRLQ_LOG2))) {
		q = xa_load(&sr->qps, le32_to_cpu(e->qpn));
		if (q) {
			snic_sr_sw_entry(&q->sw, e);
			/* the consumer only moves up to what was posted */
			ci = le16_to_cpu(e->retry_ci);
			if ((u16)(ci - q->ci) <= (u16)(q->pi - q->ci))
				q->ci = ci;
			if (!q->queued) {
				q->queued = true;
				q->next = batch;
				batch = q;
			}
		} else {
			atomic64_inc(&sr->stale);
		}
		sr->head++;
		if (++n % SNIC_SR_BATCH == 0) {
			snic_sr_flush_batch(sdev, &batch);
			snic_ring_db(sdev, SNIC_DB_SR_CTRLQ, 0, sr->head);
		}
	}
	if (n % SNIC_SR_BATCH) {
		snic_sr_flush_batch(sdev, &batch);
		snic_ring_db(sdev, SNIC_DB_SR_CTRLQ, 0, sr->head);
	}
	atomic64_add(n, &sr->entries);
	return IRQ_HANDLED;
}

/*
 * The device found the CtrlQ full and dropped a packet of QP qpn unplaced
 * (the selective repeat resends it). Told once until the next CtrlQ
 * doorbell: the handler draining the ring is all the cure there is.
 */
void snic_sr_overflow(struct snic_dev *sdev, u64 qpn)
{
	atomic64_inc(&sdev->sr.overflows);
	dev_warn_ratelimited(&sdev->pdev->dev,
			     "SRNIC CtrlQ overflowed (QP %llu's packet dropped)\n",
			     qpn);
}

/* Once the device no longer reads the QP's RetryQ (q may be NULL) */
void snic_sr_qp_put(struct snic_dev *sdev, struct snic_sr_qp *q)
{
	if (!q)
		return;
	dma_free_coherent(&sdev->pdev->dev, SNIC_SR_RETRYQ_BYTES, q->ring,
			  q->ring_dma);
	kfree(q);
}

/*
 * QP qpn's host half out of the handler's reach: NULL if it had none.
 * The device may still read its RetryQ: snic_sr_qp_put() once it cannot.
 */
struct snic_sr_qp *snic_sr_qp_take(struct snic_dev *sdev, u32 qpn)
{
	struct snic_sr_qp *q;

	if (!snic_sr_enabled(sdev))
		return NULL;
	q = xa_erase(&sdev->sr.qps, qpn);
	if (q)
		synchronize_irq(pci_irq_vector(sdev->pdev, sdev->sr.vector));
	return q;
}

/*
 * QP qpn selected SNIC_TRANSPORT_SRNIC (before RTR): its RetryQ and
 * bitmaps, given to the device (SET_QP_SR) and then to the handler. A
 * previous selection's are replaced (the command restarts the indices).
 */
int snic_sr_qp_enable(struct snic_dev *sdev, u32 qpn)
{
	struct snic_sr_qp *q, *old;
	int err;

	if (!snic_sr_enabled(sdev))
		return -EOPNOTSUPP;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	snic_sr_sw_init(&q->sw, qpn);
	q->ring = dma_alloc_coherent(&sdev->pdev->dev, SNIC_SR_RETRYQ_BYTES,
				     &q->ring_dma, GFP_KERNEL);
	if (!q->ring) {
		kfree(q);
		return -ENOMEM;
	}
	/* window 0: 128 segments in flight */
	err = snic_com_set_qp_sr(sdev, qpn, q->ring_dma, SNIC_SR_RETRYQ_LOG2,
				 0);
	if (err) {
		snic_sr_qp_put(sdev, q);
		return err;
	}
	old = xa_store(&sdev->sr.qps, qpn, q, GFP_KERNEL);
	if (xa_is_err(old)) {
		/* the device forgets the ring before it goes */
		if (!snic_com_set_qp_sr(sdev, qpn, 0, 0, 0))
			snic_sr_qp_put(sdev, q);
		return xa_err(old);
	}
	if (old) {
		/* the device reads the new ring since SET_QP_SR */
		synchronize_irq(pci_irq_vector(sdev->pdev, sdev->sr.vector));
		snic_sr_qp_put(sdev, old);
	}
	return 0;
}

/*
 * At probe, if the device has SRNIC (ABI 3.5) and a vector was kept for
 * it: the CtrlQ. Without it, SRNIC cannot be selected; nothing else
 * changes, so a failure here only logs.
 */
void snic_sr_init(struct snic_dev *sdev)
{
	struct snic_sr *sr = &sdev->sr;
	struct device *dev = &sdev->pdev->dev;
	int err;

	xa_init(&sr->qps);
	if (!sr->vector)
		return;
	sr->ring = dma_alloc_coherent(dev, SNIC_SR_CTRLQ_BYTES, &sr->dma,
				      GFP_KERNEL);
	if (!sr->ring)
		goto err_log;
	sr->head = 0;
	snprintf(sr->irq_name, sizeof(sr->irq_name), "snic-srnic@%s",
		 pci_name(sdev->pdev));
	err = request_irq(pci_irq_vector(sdev->pdev, sr->vector), snic_sr_irq,
			  0, sr->irq_name, sdev);
	if (err)
		goto err_free;
	err = snic_com_create_sr_ctrlq(sdev, sr->dma, SNIC_SR_CTRLQ_LOG2,
				       sr->vector);
	if (err)
		goto err_irq;
	return;

err_irq:
	free_irq(pci_irq_vector(sdev->pdev, sr->vector), sdev);
err_free:
	dma_free_coherent(dev, SNIC_SR_CTRLQ_BYTES, sr->ring, sr->dma);
	sr->ring = NULL;
err_log:
	dev_warn(dev, "no SRNIC CtrlQ: SNIC_TRANSPORT_SRNIC not offered\n");
}

/*
 * CtrlQ entries one user context's QPs may hold together: the ring's
 * depth over the device's ctx_pool_div (ABI 3.11); 0 without a CtrlQ, or
 * from a device that does not say.
 */
u16 snic_sr_ctx_share(const struct snic_dev *sdev)
{
	u8 div = sdev->attr.ctx_pool_div;

	if (!snic_sr_enabled(sdev) || !div)
		return 0;
	return max(1u, (1u << SNIC_SR_CTRLQ_LOG2) / div);
}

/* At remove, every QP gone: the CtrlQ, unless the device may still write it */
void snic_sr_destroy(struct snic_dev *sdev)
{
	struct snic_sr *sr = &sdev->sr;
	int err;

	WARN_ON(!xa_empty(&sr->qps));
	xa_destroy(&sr->qps);
	if (!sr->ring)
		return;
	err = snic_com_create_sr_ctrlq(sdev, 0, 0, 0);
	free_irq(pci_irq_vector(sdev->pdev, sr->vector), sdev);
	if (snic_com_destroyed(sdev, err, "SRNIC CtrlQ", 0))
		dma_free_coherent(&sdev->pdev->dev, SNIC_SR_CTRLQ_BYTES,
				  sr->ring, sr->dma);
	sr->ring = NULL;
}

/* The counters of struct snic_sr, in SNIC_SR_HOST_STATS order */
void snic_sr_read_stats(struct snic_dev *sdev, u64 *values)
{
	unsigned int i = 0;

#define SNIC_SR_STAT_READ(field) \
	values[i++] = atomic64_read(&sdev->sr.field);
	SNIC_SR_HOST_STATS(SNIC_SR_STAT_READ)
#undef SNIC_SR_STAT_READ
}
