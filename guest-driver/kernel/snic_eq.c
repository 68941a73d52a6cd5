// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic completion event queues: one EQ per completion vector. The device
 * writes an EQE when an armed CQ gets a completion; the handler calls
 * that CQ's comp_handler (ib_uverbs' for user CQs, which wakes the
 * completion channel).
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>

#include "snic.h"

#define SNIC_EQ_DEPTH		(1u << SNIC_EQ_LOG2_DEPTH)
#define SNIC_EQ_BYTES		(SNIC_EQ_DEPTH * SNIC_EQE_SIZE)

static irqreturn_t snic_eq_irq(int irq, void *data)
{
	struct snic_eq *eq = data;
	struct snic_dev *sdev = eq->sdev;
	struct snic_eqe *e;
	struct ib_cq *cq;
	u32 n = 0;

	while ((e = snic_ring_next((struct snic_eqe *)eq->ring.buf, eq->head,
				   SNIC_EQ_LOG2_DEPTH))) {
		if (le32_to_cpu(e->type) == SNIC_EQE_COMPLETION) {
			/* xa_load is RCU-safe; CQ destroy waits for this IRQ */
			cq = xa_load(&sdev->cq_xa, le32_to_cpu(e->cqn));
			if (cq && cq->comp_handler)
				cq->comp_handler(cq, cq->cq_context);
		}
		eq->head++;
		n++;
	}
	if (n)
		snic_ring_db(sdev, SNIC_DB_EQ, eq->eqn, eq->head);
	return IRQ_HANDLED;
}

/*
 * The EQ was full and the device dropped events. Which CQs lost one is
 * unknown, so every CQ on that EQ gets an event: a spurious completion
 * event is allowed, a lost one leaves a waiter asleep for good.
 */
void snic_eq_overflow(struct snic_dev *sdev, u64 eqn)
{
	unsigned long cqn;
	struct ib_cq *cq;

	dev_warn_ratelimited(&sdev->pdev->dev,
			     "EQ %llu overflowed: waking every CQ on it\n", eqn);
	xa_for_each(&sdev->cq_xa, cqn, cq) {
		if (to_scq(cq)->eq->eqn == eqn && cq->comp_handler)
			cq->comp_handler(cq, cq->cq_context);
	}
}

static int snic_eq_create(struct snic_dev *sdev, struct snic_eq *eq, u16 vec)
{
	struct snic_com_create_eq_params params = {
		.ring = &eq->ring,
		.log2_depth = SNIC_EQ_LOG2_DEPTH,
		.vector = vec,
	};
	int err;

	eq->sdev = sdev;
	eq->vector = vec;
	eq->head = 0;
	err = snic_queue_alloc(sdev, SNIC_EQ_BYTES, &eq->ring);
	if (err)
		return err;

	err = snic_com_create_eq(sdev, &params, &eq->eqn);
	if (err)
		goto err_free;

	snprintf(eq->irq_name, sizeof(eq->irq_name), "snic-comp%u@%s",
		 vec - SNIC_VEC_COMP_BASE, pci_name(sdev->pdev));
	err = request_irq(pci_irq_vector(sdev->pdev, vec), snic_eq_irq, 0,
			  eq->irq_name, eq);
	if (err)
		goto err_destroy;
	eq->created = true;
	return 0;

err_destroy:
	/* A ring the device may still write stays allocated */
	if (!snic_com_destroyed(sdev, snic_com_destroy_eq(sdev, eq->eqn), "EQ",
				eq->eqn))
		return err;
err_free:
	snic_queue_put(sdev, &eq->ring);
	return err;
}

static void snic_eq_destroy(struct snic_dev *sdev, struct snic_eq *eq)
{
	int err;

	if (!eq->created)
		return;
	/* The device stops writing before the ring goes away */
	err = snic_com_destroy_eq(sdev, eq->eqn);
	free_irq(pci_irq_vector(sdev->pdev, eq->vector), eq);
	eq->created = false;
	if (snic_com_destroyed(sdev, err, "EQ", eq->eqn))
		snic_queue_put(sdev, &eq->ring);
}

int snic_eqs_create(struct snic_dev *sdev)
{
	int n = sdev->ibdev.num_comp_vectors;
	int i, err;

	sdev->eqs = kcalloc(n, sizeof(*sdev->eqs), GFP_KERNEL);
	if (!sdev->eqs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		err = snic_eq_create(sdev, &sdev->eqs[i], SNIC_VEC_COMP_BASE + i);
		if (err) {
			dev_err(&sdev->pdev->dev, "creating EQ %d failed: %d\n",
				i, err);
			while (--i >= 0)
				snic_eq_destroy(sdev, &sdev->eqs[i]);
			kfree(sdev->eqs);
			sdev->eqs = NULL;
			return err;
		}
	}
	return 0;
}

void snic_eqs_destroy(struct snic_dev *sdev)
{
	int i;

	for (i = 0; i < sdev->ibdev.num_comp_vectors; i++)
		snic_eq_destroy(sdev, &sdev->eqs[i]);
	kfree(sdev->eqs);
	sdev->eqs = NULL;
}
