// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic admin queue and async event queue (MSI-X vector 0).
 *
 * Commands are submitted by any number of sleeping callers; each takes a
 * context slot, rings the SQ doorbell and sleeps until the vector-0
 * handler matches the completion's cmd_id. A command that does not
 * complete within admin_timeout_ms is looked for in the completion queue
 * once more: if it is there, only the interrupt was lost and the command
 * succeeds (efa tells the two apart the same way, but then fails the
 * command anyway). If not, the queue is dead: a device that lost one
 * command cannot be trusted with the next. The commands themselves are
 * built in snic_com.c.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/moduleparam.h>

#include "snic.h"

#define SNIC_ADMIN_DEPTH	(1u << SNIC_ADMIN_LOG2_DEPTH)
#define SNIC_ADMIN_MASK		(SNIC_ADMIN_DEPTH - 1)
#define SNIC_AEQ_DEPTH		(1u << SNIC_AEQ_LOG2_DEPTH)
#define SNIC_READY_TIMEOUT_US	(1000 * 1000)

static unsigned int admin_timeout_ms = 10000;
module_param(admin_timeout_ms, uint, 0444);
MODULE_PARM_DESC(admin_timeout_ms,
		 "Admin command timeout in ms (default 10000)");

static const char *const snic_admin_status_str[] = {
	[SNIC_ADMIN_OK] = "ok",
	[SNIC_ADMIN_BAD_OPCODE] = "bad opcode",
	[SNIC_ADMIN_BAD_VERSION] = "bad version",
	[SNIC_ADMIN_BAD_LENGTH] = "bad length",
	[SNIC_ADMIN_BAD_PARAM] = "bad parameter",
	[SNIC_ADMIN_BAD_ADDRESS] = "bad address",
	[SNIC_ADMIN_BAD_STATE] = "bad state",
	[SNIC_ADMIN_NO_RESOURCES] = "no resources",
	[SNIC_ADMIN_NOT_SUPPORTED] = "not supported",
};

static int snic_admin_errno(u16 status)
{
	switch (status) {
	case SNIC_ADMIN_OK:
		return 0;
	case SNIC_ADMIN_BAD_PARAM:
	case SNIC_ADMIN_BAD_STATE:
	case SNIC_ADMIN_BAD_ADDRESS:
		return -EINVAL;
	case SNIC_ADMIN_NO_RESOURCES:
		return -ENOMEM;
	/* a command this device does not have, or a variant it lacks */
	case SNIC_ADMIN_BAD_OPCODE:
	case SNIC_ADMIN_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

/* Take a free context and post the command; returns the context index. */
static int snic_admin_submit(struct snic_admin *aq, struct snic_dev *sdev,
			     struct snic_admin_cmd *cmd)
{
	struct snic_admin_ctx *ctx = NULL;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&aq->lock, flags);
	if (aq->dead) {
		spin_unlock_irqrestore(&aq->lock, flags);
		return -EIO;
	}
	for (i = 0; i < SNIC_ADMIN_DEPTH; i++) {
		if (!aq->ctx[i].busy) {
			ctx = &aq->ctx[i];
			break;
		}
	}
	/* The semaphore counts free contexts: one is always found. */
	if (WARN_ON(!ctx)) {
		spin_unlock_irqrestore(&aq->lock, flags);
		return -EIO;
	}
	ctx->busy = true;
	ctx->cmd_id = i | (aq->generation++ << SNIC_ADMIN_LOG2_DEPTH);
	reinit_completion(&ctx->done);
	cmd->hdr.cmd_id = cpu_to_le16(ctx->cmd_id);
	memcpy(&aq->sq[aq->sq_tail & SNIC_ADMIN_MASK], cmd, sizeof(*cmd));
	aq->sq_tail++;
	/* writeq orders the command's memory writes before the doorbell */
	snic_ring_db(sdev, SNIC_DB_ADMIN_SQ, 0, aq->sq_tail);
	spin_unlock_irqrestore(&aq->lock, flags);
	return i;
}

/*
 * The device stopped answering. A command it did not complete may still
 * run later and touch memory its caller frees, so disable the device:
 * that destroys every queue and stops all DMA, and every later command
 * fails at once. Callers may then free what they gave the device.
 */
static void snic_admin_kill(struct snic_dev *sdev, const char *why)
{
	struct snic_admin *aq = &sdev->admin;
	unsigned long flags;
	bool was_dead;

	spin_lock_irqsave(&aq->lock, flags);
	was_dead = aq->dead;
	aq->dead = true;
	spin_unlock_irqrestore(&aq->lock, flags);
	if (was_dead)
		return;
	writel(0, sdev->regs + SNIC_REG_DEV_CTRL);
	dev_err(&sdev->pdev->dev, "%s: device disabled; reload the driver\n",
		why);
}

/* True once the device was disabled for not answering: no DMA any more. */
bool snic_admin_dead(struct snic_dev *sdev)
{
	return READ_ONCE(sdev->admin.dead);
}

/* Hand every new completion to its waiter. Called with aq->lock held. */
static void snic_admin_process_cq_locked(struct snic_dev *sdev)
{
	struct snic_admin *aq = &sdev->admin;
	struct snic_admin_cqe *cqe;
	struct snic_admin_ctx *ctx;
	u32 n = 0;
	u16 id;

	lockdep_assert_held(&aq->lock);
	while ((cqe = snic_ring_next(aq->cq, aq->cq_head,
				     SNIC_ADMIN_LOG2_DEPTH))) {
		id = le16_to_cpu(cqe->cmd_id);
		ctx = &aq->ctx[id & SNIC_ADMIN_MASK];
		if (ctx->busy && ctx->cmd_id == id &&
		    !completion_done(&ctx->done)) {
			ctx->status = le16_to_cpu(cqe->status);
			ctx->result = le64_to_cpu(cqe->result);
			complete(&ctx->done);
		} else {
			dev_warn_ratelimited(&sdev->pdev->dev,
					     "admin completion for unknown command id %#x\n",
					     id);
		}
		aq->cq_head++;
		n++;
	}
	if (n)
		snic_ring_db(sdev, SNIC_DB_ADMIN_CQ, 0, aq->cq_head);
}

static void snic_admin_process_cq(struct snic_dev *sdev)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->admin.lock, flags);
	snic_admin_process_cq_locked(sdev);
	spin_unlock_irqrestore(&sdev->admin.lock, flags);
}

/*
 * A command's wait timed out: is its completion in the queue all the same?
 * Then only its interrupt was lost (an MSI-X message can be), and the
 * device is fine.
 */
static bool snic_admin_repoll(struct snic_dev *sdev,
			      struct snic_admin_ctx *ctx)
{
	struct snic_admin *aq = &sdev->admin;
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&aq->lock, flags);
	snic_admin_process_cq_locked(sdev);
	done = completion_done(&ctx->done);
	spin_unlock_irqrestore(&aq->lock, flags);
	if (done)
		dev_warn_once(&sdev->pdev->dev,
			      "admin completion without interrupt (lost MSI-X?)\n");
	return done;
}

/*
 * Run one admin command and wait for it. Returns 0 or a negative errno
 * (device status mapped); *result gets the completion's result, *status
 * the device's status (if the device answered) for callers whose errno
 * depends on it.
 */
int snic_admin_exec_status(struct snic_dev *sdev, struct snic_admin_cmd *cmd,
			   u64 *result, u16 *status_out)
{
	struct snic_admin *aq = &sdev->admin;
	struct snic_admin_ctx *ctx;
	unsigned long timeout;
	unsigned long flags;
	u16 status;
	u64 res;
	int i;

	might_sleep();
	timeout = msecs_to_jiffies(max(admin_timeout_ms, 1u));
	if (down_timeout(&aq->slots, timeout)) {
		/* Every slot held this long: the device stopped answering */
		snic_admin_kill(sdev, "no admin slot freed in time");
		return -ETIMEDOUT;
	}
	i = snic_admin_submit(aq, sdev, cmd);
	if (i < 0) {
		up(&aq->slots);
		return i;
	}
	ctx = &aq->ctx[i];
	if (!wait_for_completion_timeout(&ctx->done, timeout) &&
	    !snic_admin_repoll(sdev, ctx)) {
		/*
		 * The slot stays busy: a late completion must not be
		 * mistaken for a later command's.
		 */
		snic_admin_kill(sdev, "admin command timed out");
		return -ETIMEDOUT;
	}
	spin_lock_irqsave(&aq->lock, flags);
	status = ctx->status;
	res = ctx->result;
	ctx->busy = false;
	spin_unlock_irqrestore(&aq->lock, flags);
	up(&aq->slots);

	if (result)
		*result = res;
	if (status_out)
		*status_out = status;
	if (status != SNIC_ADMIN_OK)
		dev_dbg(&sdev->pdev->dev, "admin command 0x%02x: %s (%u)\n",
			cmd->hdr.opcode,
			status < ARRAY_SIZE(snic_admin_status_str) ?
			snic_admin_status_str[status] : "unknown status",
			status);
	return snic_admin_errno(status);
}

int snic_admin_exec(struct snic_dev *sdev, struct snic_admin_cmd *cmd,
		    u64 *result)
{
	return snic_admin_exec_status(sdev, cmd, result, NULL);
}

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

static void snic_aeq_event(struct snic_dev *sdev, u32 event, u64 data)
{
	switch (event) {
	case SNIC_EVENT_LINK_CHANGE:
		snic_netdev_link_event(sdev, data != 0);
		break;
	case SNIC_EVENT_CQ_ERROR:
		snic_cq_event(sdev, data);
		break;
	case SNIC_EVENT_EQ_OVERFLOW:
		snic_eq_overflow(sdev, data);
		break;
	case SNIC_EVENT_QP_FATAL:
		snic_qp_event(sdev, data, IB_EVENT_QP_FATAL);
		break;
	case SNIC_EVENT_QP_REQ_ERR:
		snic_qp_event(sdev, data, IB_EVENT_QP_REQ_ERR);
		break;
	case SNIC_EVENT_QP_ACCESS_ERR:
		snic_qp_event(sdev, data, IB_EVENT_QP_ACCESS_ERR);
		break;
	case SNIC_EVENT_SRQ_LIMIT:
		snic_srq_event(sdev, data);
		break;
	case SNIC_EVENT_QP_LAST_WQE:
		snic_qp_event(sdev, data, IB_EVENT_QP_LAST_WQE_REACHED);
		break;
	case SNIC_EVENT_QP_COMM_EST:
		snic_qp_event(sdev, data, IB_EVENT_COMM_EST);
		break;
	case SNIC_EVENT_SR_CTRLQ_OVERFLOW:
		snic_sr_overflow(sdev, data);
		break;
	default:
		dev_warn_ratelimited(&sdev->pdev->dev,
				     "unknown async event %u (data %#llx)\n",
				     event, data);
	}
}

static void snic_aeq_process(struct snic_dev *sdev)
{
	struct snic_aeq *aeq = &sdev->aeq;
	struct snic_aeqe *e;
	u32 n = 0;

	while ((e = snic_ring_next(aeq->ring, aeq->head,
				   SNIC_AEQ_LOG2_DEPTH))) {
		snic_aeq_event(sdev, le32_to_cpu(e->event),
			       le64_to_cpu(e->data));
		aeq->head++;
		n++;
	}
	if (n)
		snic_ring_db(sdev, SNIC_DB_AEQ, 0, aeq->head);
}

static irqreturn_t snic_admin_irq(int irq, void *data)
{
	struct snic_dev *sdev = data;
	u32 cause;

	/* Clear first: an entry written after this raises the vector again */
	cause = readl(sdev->regs + SNIC_REG_INTR_CAUSE);
	if (cause)
		writel(cause, sdev->regs + SNIC_REG_INTR_CAUSE);
	snic_admin_process_cq(sdev);
	snic_aeq_process(sdev);
	return IRQ_HANDLED;
}

static void snic_admin_free_rings(struct snic_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snic_admin *aq = &sdev->admin;

	if (aq->resp)
		dma_free_coherent(dev, PAGE_SIZE, aq->resp, aq->resp_dma);
	if (sdev->aeq.ring)
		dma_free_coherent(dev, SNIC_AEQ_DEPTH * SNIC_AEQE_SIZE,
				  sdev->aeq.ring, sdev->aeq.dma);
	if (aq->cq)
		dma_free_coherent(dev, SNIC_ADMIN_DEPTH * SNIC_ADMIN_CQE_SIZE,
				  aq->cq, aq->cq_dma);
	if (aq->sq)
		dma_free_coherent(dev, SNIC_ADMIN_DEPTH * SNIC_ADMIN_CMD_SIZE,
				  aq->sq, aq->sq_dma);
	aq->resp = NULL;
	sdev->aeq.ring = NULL;
	aq->cq = NULL;
	aq->sq = NULL;
}

static void snic_write_addr(struct snic_dev *sdev, u32 lo, dma_addr_t addr)
{
	writel(lower_32_bits(addr), sdev->regs + lo);
	writel(upper_32_bits(addr), sdev->regs + lo + 4);
}

/*
 * Allocate the admin rings and the AEQ, hook vector 0 and enable the
 * device. The caller reset the device and allocated the vectors.
 */
int snic_admin_init(struct snic_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snic_admin *aq = &sdev->admin;
	u32 status, i;
	int err;

	spin_lock_init(&aq->lock);
	mutex_init(&aq->resp_lock);
	sema_init(&aq->slots, SNIC_ADMIN_DEPTH);
	for (i = 0; i < SNIC_ADMIN_DEPTH; i++)
		init_completion(&aq->ctx[i].done);

	/* Coherent memory is zeroed: the phase bits start at 0 */
	aq->sq = dma_alloc_coherent(dev, SNIC_ADMIN_DEPTH * SNIC_ADMIN_CMD_SIZE,
				    &aq->sq_dma, GFP_KERNEL);
	aq->cq = dma_alloc_coherent(dev, SNIC_ADMIN_DEPTH * SNIC_ADMIN_CQE_SIZE,
				    &aq->cq_dma, GFP_KERNEL);
	sdev->aeq.ring = dma_alloc_coherent(dev, SNIC_AEQ_DEPTH * SNIC_AEQE_SIZE,
					    &sdev->aeq.dma, GFP_KERNEL);
	aq->resp = dma_alloc_coherent(dev, PAGE_SIZE, &aq->resp_dma,
				      GFP_KERNEL);
	if (!aq->sq || !aq->cq || !sdev->aeq.ring || !aq->resp) {
		err = -ENOMEM;
		goto err_free;
	}

	err = request_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN),
			  snic_admin_irq, 0, "snic-admin", sdev);
	if (err)
		goto err_free;

	snic_write_addr(sdev, SNIC_REG_ADMIN_SQ_BASE_LO, aq->sq_dma);
	snic_write_addr(sdev, SNIC_REG_ADMIN_CQ_BASE_LO, aq->cq_dma);
	writel(SNIC_ADMIN_LOG2_DEPTH, sdev->regs + SNIC_REG_ADMIN_DEPTH);
	snic_write_addr(sdev, SNIC_REG_AEQ_BASE_LO, sdev->aeq.dma);
	writel(SNIC_AEQ_LOG2_DEPTH, sdev->regs + SNIC_REG_AEQ_DEPTH);
	writel(0, sdev->regs + SNIC_REG_INTR_MASK);
	writel(SNIC_CTRL_ENABLE, sdev->regs + SNIC_REG_DEV_CTRL);
	err = readl_poll_timeout(sdev->regs + SNIC_REG_DEV_STATUS, status,
				 status & (SNIC_STATUS_READY | SNIC_STATUS_FATAL),
				 100, SNIC_READY_TIMEOUT_US);
	if (err || !(status & SNIC_STATUS_READY)) {
		dev_err(dev, "device did not become ready (status %#x, error %u)\n",
			status, readl(sdev->regs + SNIC_REG_ERROR));
		err = -EIO;
		goto err_irq;
	}
	return 0;

err_irq:
	writel(0, sdev->regs + SNIC_REG_DEV_CTRL);
	free_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN), sdev);
err_free:
	snic_admin_free_rings(sdev);
	return err;
}

/* Disable the device (it drops every queue and stops all DMA), then free. */
void snic_admin_destroy(struct snic_dev *sdev)
{
	writel(0, sdev->regs + SNIC_REG_DEV_CTRL);
	free_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN), sdev);
	snic_admin_free_rings(sdev);
}
