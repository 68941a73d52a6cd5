// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * snic Ethernet function: one TX and one RX descriptor ring on MSI-X
 * vector 1, served by NAPI. RoCEv2 frames (UDP 4791) never reach the RX
 * ring: the device hands them to its RDMA engine.
 *
 * Frames are linear (no scatter-gather: the device offloads no checksum,
 * and the stack drops SG without one), so one frame is one descriptor.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>

#include "snic.h"

#define SNIC_TX_DEPTH		(1u << SNIC_ETH_TX_LOG2_DEPTH)
#define SNIC_RX_DEPTH		(1u << SNIC_ETH_RX_LOG2_DEPTH)
#define SNIC_TX_WAKE_THRESH	(SNIC_TX_DEPTH / 4)

static u32 snic_ring_used(const struct snic_eth_ring *r)
{
	return r->prod - r->cons;
}

static u32 snic_tx_free(const struct snic_eth_ring *r)
{
	return r->mask + 1 - snic_ring_used(r);
}

static struct snic_netdev_priv *snic_priv(struct net_device *nd)
{
	return netdev_priv(nd);
}

/* --- device queue commands --------------------------------------------- */

static int snic_eth_queue_create(struct snic_dev *sdev,
				 struct snic_eth_ring *r, u8 type, u8 log2)
{
	struct snic_com_create_eth_queue_params params = {
		.ring_dma = r->dma,
		.type = type,
		.log2_depth = log2,
		.vector = SNIC_VEC_ETH,
	};
	int err;

	err = snic_com_create_eth_queue(sdev, &params, &r->qid);
	if (err)
		return err;
	r->created = true;
	return 0;
}

/* False if the device may still use the ring: then it must not be freed. */
static bool snic_eth_queue_destroy(struct snic_dev *sdev,
				   struct snic_eth_ring *r, u8 type)
{
	int err;

	if (!r->created)
		return true;
	/* After these the device no longer reads or writes the ring */
	err = snic_com_stop_eth_queue(sdev, type, r->qid);
	if (!err)
		err = snic_com_destroy_eth_queue(sdev, type, r->qid);
	r->created = false;
	return snic_com_destroyed(sdev, err, "Ethernet queue", r->qid);
}

static int snic_ring_alloc(struct snic_dev *sdev, struct snic_eth_ring *r,
			   u8 log2)
{
	u32 depth = 1u << log2;

	r->desc = dma_alloc_coherent(&sdev->pdev->dev,
				     depth * SNIC_ETH_DESC_SIZE, &r->dma,
				     GFP_KERNEL);
	r->bufs = kcalloc(depth, sizeof(*r->bufs), GFP_KERNEL);
	if (!r->desc || !r->bufs) {
		kfree(r->bufs);
		if (r->desc)
			dma_free_coherent(&sdev->pdev->dev,
					  depth * SNIC_ETH_DESC_SIZE, r->desc,
					  r->dma);
		r->desc = NULL;
		r->bufs = NULL;
		return -ENOMEM;
	}
	r->mask = depth - 1;
	r->prod = 0;
	r->cons = 0;
	return 0;
}

static void snic_ring_free(struct snic_dev *sdev, struct snic_eth_ring *r,
			   enum dma_data_direction dir)
{
	struct snic_eth_buf *b;
	u32 i;

	if (!r->desc)
		return;
	for (i = 0; i <= r->mask; i++) {
		b = &r->bufs[i];
		if (!b->skb)
			continue;
		dma_unmap_single(&sdev->pdev->dev, b->dma, b->len, dir);
		dev_kfree_skb_any(b->skb);
		b->skb = NULL;
	}
	kfree(r->bufs);
	dma_free_coherent(&sdev->pdev->dev, (r->mask + 1) * SNIC_ETH_DESC_SIZE,
			  r->desc, r->dma);
	r->desc = NULL;
	r->bufs = NULL;
}

/* --- RX ----------------------------------------------------------------- */

static int snic_rx_post(struct snic_netdev_priv *np, u32 slot, gfp_t gfp)
{
	struct device *dev = &np->sdev->pdev->dev;
	struct snic_eth_buf *b = &np->rx.bufs[slot];
	struct snic_eth_desc *d = &np->rx.desc[slot];
	struct sk_buff *skb;
	dma_addr_t dma;

	skb = __netdev_alloc_skb_ip_align(np->netdev, np->rx_buf_len, gfp);
	if (!skb)
		return -ENOMEM;
	dma = dma_map_single(dev, skb->data, np->rx_buf_len, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	b->skb = skb;
	b->dma = dma;
	b->len = np->rx_buf_len;
	d->addr = cpu_to_le64(dma);
	d->len = cpu_to_le16(np->rx_buf_len);
	d->flags = 0;
	return 0;
}

/* Give every free slot a buffer; returns how many were posted. */
static u32 snic_rx_refill(struct snic_netdev_priv *np, gfp_t gfp)
{
	struct snic_eth_ring *r = &np->rx;
	u32 n = 0;

	while (snic_ring_used(r) <= r->mask) {
		if (snic_rx_post(np, r->prod & r->mask, gfp)) {
			atomic64_inc(&np->rx_alloc_failed);
			break;
		}
		r->prod++;
		n++;
	}
	if (n) {
		dma_wmb();
		snic_ring_db(np->sdev, SNIC_DB_ETH_RX, r->qid, r->prod);
	}
	return n;
}

static int snic_rx_poll(struct snic_netdev_priv *np, int budget)
{
	struct device *dev = &np->sdev->pdev->dev;
	struct snic_eth_ring *r = &np->rx;
	struct snic_eth_desc *d;
	struct snic_eth_buf *b;
	struct sk_buff *skb;
	int done = 0;
	u16 flags;
	u32 len;

	while (done < budget && r->cons != r->prod) {
		d = &r->desc[r->cons & r->mask];
		flags = le16_to_cpu(READ_ONCE(d->flags));
		if (!(flags & SNIC_ETH_DESC_DONE))
			break;
		dma_rmb();
		b = &r->bufs[r->cons & r->mask];
		len = le16_to_cpu(d->len);
		dma_unmap_single(dev, b->dma, b->len, DMA_FROM_DEVICE);
		skb = b->skb;
		b->skb = NULL;
		r->cons++;
		done++;
		if ((flags & SNIC_ETH_DESC_ERR) || len < ETH_HLEN ||
		    len > b->len) {
			atomic64_inc(&np->rx_dropped);
			dev_kfree_skb_any(skb);
			continue;
		}
		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, np->netdev);
		u64_stats_update_begin(&np->syncp);
		np->rx_packets++;
		np->rx_bytes += len;
		u64_stats_update_end(&np->syncp);
		napi_gro_receive(&np->napi, skb);
	}
	snic_rx_refill(np, GFP_ATOMIC);
	return done;
}

/* --- TX ----------------------------------------------------------------- */

static netdev_tx_t snic_start_xmit(struct sk_buff *skb, struct net_device *nd)
{
	struct snic_netdev_priv *np = snic_priv(nd);
	struct device *dev = &np->sdev->pdev->dev;
	struct snic_eth_ring *r = &np->tx;
	struct snic_eth_desc *d;
	struct snic_eth_buf *b;
	dma_addr_t dma;
	u32 slot;

	if (skb_linearize(skb) || skb->len > nd->mtu + VLAN_ETH_HLEN) {
		atomic64_inc(&np->tx_dropped);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	if (unlikely(!snic_tx_free(r))) {
		/* The queue is stopped before the ring fills: a bug */
		netif_stop_queue(nd);
		netdev_err(nd, "TX ring full with the queue running\n");
		return NETDEV_TX_BUSY;
	}
	dma = dma_map_single(dev, skb->data, skb->len, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, dma)) {
		atomic64_inc(&np->tx_dropped);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	slot = r->prod & r->mask;
	b = &r->bufs[slot];
	b->skb = skb;
	b->dma = dma;
	b->len = skb->len;
	d = &r->desc[slot];
	d->addr = cpu_to_le64(dma);
	d->len = cpu_to_le16(skb->len);
	d->rsvd = 0;
	/* flags last: the device reads the descriptor after the doorbell */
	d->flags = cpu_to_le16(SNIC_ETH_DESC_EOP);
	/* Release: snic_tx_reclaim() sees the new flags with the new prod */
	smp_store_release(&r->prod, r->prod + 1);
	skb_tx_timestamp(skb);
	dma_wmb();
	snic_ring_db(np->sdev, SNIC_DB_ETH_TX, r->qid, r->prod);

	if (snic_tx_free(r) == 0) {
		netif_stop_queue(nd);
		/* Pairs with the barrier in snic_tx_reclaim() */
		smp_mb();
		if (snic_tx_free(r) >= SNIC_TX_WAKE_THRESH)
			netif_wake_queue(nd);
	}
	return NETDEV_TX_OK;
}

static void snic_tx_reclaim(struct snic_netdev_priv *np, int budget)
{
	struct device *dev = &np->sdev->pdev->dev;
	struct snic_eth_ring *r = &np->tx;
	struct snic_eth_desc *d;
	struct snic_eth_buf *b;
	u32 packets = 0, bytes = 0;
	u16 flags;

	while (r->cons != smp_load_acquire(&r->prod)) {
		d = &r->desc[r->cons & r->mask];
		flags = le16_to_cpu(READ_ONCE(d->flags));
		if (!(flags & SNIC_ETH_DESC_DONE))
			break;
		dma_rmb();
		b = &r->bufs[r->cons & r->mask];
		dma_unmap_single(dev, b->dma, b->len, DMA_TO_DEVICE);
		if (flags & SNIC_ETH_DESC_ERR) {
			atomic64_inc(&np->tx_errors);
		} else {
			packets++;
			bytes += b->len;
		}
		napi_consume_skb(b->skb, budget);
		b->skb = NULL;
		r->cons++;
	}
	if (!packets && !bytes)
		goto wake;
	u64_stats_update_begin(&np->syncp);
	np->tx_packets += packets;
	np->tx_bytes += bytes;
	u64_stats_update_end(&np->syncp);
wake:
	/* Pairs with the barrier in snic_start_xmit() */
	smp_mb();
	if (netif_queue_stopped(np->netdev) &&
	    snic_tx_free(r) >= SNIC_TX_WAKE_THRESH)
		netif_wake_queue(np->netdev);
}

/* --- NAPI and interrupt ------------------------------------------------- */

static int snic_napi_poll(struct napi_struct *napi, int budget)
{
	struct snic_netdev_priv *np =
		container_of(napi, struct snic_netdev_priv, napi);
	int done;

	snic_tx_reclaim(np, budget);
	done = snic_rx_poll(np, budget);
	/*
	 * Refill failed with the ring empty: the device has nowhere to put a
	 * frame and raises no interrupt, so keep polling until memory comes.
	 */
	if (unlikely(snic_ring_used(&np->rx) == 0))
		return budget;
	/*
	 * The device raises the vector for every completion, so a frame that
	 * lands after this check schedules NAPI again: nothing to re-arm.
	 */
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

static irqreturn_t snic_eth_irq(int irq, void *data)
{
	struct snic_netdev_priv *np = data;

	napi_schedule_irqoff(&np->napi);
	return IRQ_HANDLED;
}

/* --- open / stop -------------------------------------------------------- */

static void snic_eth_teardown(struct snic_netdev_priv *np)
{
	struct snic_dev *sdev = np->sdev;

	if (snic_eth_queue_destroy(sdev, &np->rx, SNIC_ETH_QUEUE_RX))
		snic_ring_free(sdev, &np->rx, DMA_FROM_DEVICE);
	else
		np->rx.desc = NULL;	/* leaked: the device may write it */
	if (snic_eth_queue_destroy(sdev, &np->tx, SNIC_ETH_QUEUE_TX))
		snic_ring_free(sdev, &np->tx, DMA_TO_DEVICE);
	else
		np->tx.desc = NULL;
}

static int snic_eth_up(struct snic_netdev_priv *np)
{
	struct net_device *nd = np->netdev;
	struct snic_dev *sdev = np->sdev;
	int err;

	err = snic_com_set_mtu(sdev, nd->mtu);
	if (err)
		return err;
	np->rx_buf_len = nd->mtu + VLAN_ETH_HLEN;
	err = snic_ring_alloc(sdev, &np->tx, SNIC_ETH_TX_LOG2_DEPTH);
	if (err)
		return err;
	err = snic_ring_alloc(sdev, &np->rx, SNIC_ETH_RX_LOG2_DEPTH);
	if (err)
		goto err_teardown;
	err = snic_eth_queue_create(sdev, &np->tx, SNIC_ETH_QUEUE_TX,
				    SNIC_ETH_TX_LOG2_DEPTH);
	if (err)
		goto err_teardown;
	err = snic_eth_queue_create(sdev, &np->rx, SNIC_ETH_QUEUE_RX,
				    SNIC_ETH_RX_LOG2_DEPTH);
	if (err)
		goto err_teardown;
	err = snic_com_start_eth_queue(sdev, SNIC_ETH_QUEUE_TX, np->tx.qid);
	if (err)
		goto err_teardown;
	err = snic_com_start_eth_queue(sdev, SNIC_ETH_QUEUE_RX, np->rx.qid);
	if (err)
		goto err_teardown;

	/* NAPI is off, so the ring is ours alone here */
	snic_rx_refill(np, GFP_KERNEL);
	if (snic_ring_used(&np->rx) == 0) {
		err = -ENOMEM;
		goto err_teardown;
	}
	napi_enable(&np->napi);
	/* A frame that landed before NAPI was on raised no poll: look now */
	local_bh_disable();
	napi_schedule(&np->napi);
	local_bh_enable();
	if (readl(sdev->regs + SNIC_REG_DEV_STATUS) & SNIC_STATUS_LINK_UP)
		netif_carrier_on(nd);
	else
		netif_carrier_off(nd);
	netif_start_queue(nd);
	np->up = true;
	snic_ib_port_event(sdev, netif_carrier_ok(nd));
	return 0;

err_teardown:
	snic_eth_teardown(np);
	return err;
}

/* Rings and NAPI down (only if up: a failed reopen left them down). */
static void snic_eth_down(struct snic_netdev_priv *np)
{
	if (!np->up)
		return;
	np->up = false;
	/* Waits for a snic_start_xmit() running on another CPU */
	netif_tx_disable(np->netdev);
	netif_carrier_off(np->netdev);
	snic_ib_port_event(np->sdev, false);
	napi_disable(&np->napi);
	/* Stops the device's DMA on the rings before they are freed */
	snic_eth_teardown(np);
}

static int snic_stop(struct net_device *nd)
{
	snic_eth_down(snic_priv(nd));
	return 0;
}

static int snic_open(struct net_device *nd)
{
	return snic_eth_up(snic_priv(nd));
}

static int snic_change_mtu(struct net_device *nd, int mtu)
{
	struct snic_netdev_priv *np = snic_priv(nd);
	int old = nd->mtu;
	int err;

	if (!netif_running(nd)) {
		err = snic_com_set_mtu(np->sdev, mtu);
		if (!err)
			nd->mtu = mtu;
		return err;
	}
	/* RX buffers are sized by the MTU: rebuild the rings around it */
	snic_eth_down(np);
	nd->mtu = mtu;
	err = snic_eth_up(np);
	if (err) {
		netdev_err(nd, "reopening with MTU %d failed (%d), back to %d\n",
			   mtu, err, old);
		nd->mtu = old;
		if (snic_eth_up(np))
			netdev_err(nd, "reopening with MTU %d failed too: down\n",
				   old);
	}
	return err;
}

static int snic_set_mac_address(struct net_device *nd, void *p)
{
	struct snic_netdev_priv *np = snic_priv(nd);
	struct sockaddr *sa = p;
	int err;

	if (!is_valid_ether_addr(sa->sa_data))
		return -EADDRNOTAVAIL;
	err = snic_com_set_mac(np->sdev, sa->sa_data);
	if (err)
		return err;
	eth_hw_addr_set(nd, sa->sa_data);
	return 0;
}

static void snic_get_stats64(struct net_device *nd,
			     struct rtnl_link_stats64 *s)
{
	struct snic_netdev_priv *np = snic_priv(nd);
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&np->syncp);
		s->rx_packets = np->rx_packets;
		s->rx_bytes = np->rx_bytes;
		s->tx_packets = np->tx_packets;
		s->tx_bytes = np->tx_bytes;
	} while (u64_stats_fetch_retry(&np->syncp, start));
	s->rx_dropped = atomic64_read(&np->rx_dropped) +
			atomic64_read(&np->rx_alloc_failed);
	s->tx_dropped = atomic64_read(&np->tx_dropped);
	s->tx_errors = atomic64_read(&np->tx_errors);
}

static const struct net_device_ops snic_netdev_ops = {
	.ndo_open = snic_open,
	.ndo_stop = snic_stop,
	.ndo_start_xmit = snic_start_xmit,
	.ndo_change_mtu = snic_change_mtu,
	.ndo_set_mac_address = snic_set_mac_address,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_get_stats64 = snic_get_stats64,
};

/* --- ethtool ------------------------------------------------------------ */

/* Device counters (those of rdma statistic), then the driver's own */
#define SNIC_STAT_NAME(field) #field,
static const char snic_stat_names[][ETH_GSTRING_LEN] = {
	SNIC_DEV_STATS(SNIC_STAT_NAME)
};

static const char snic_drv_stat_names[][ETH_GSTRING_LEN] = {
	"rx_alloc_failed",
};

#define SNIC_NUM_STATS		(SNIC_NUM_DEV_STATS + \
				 ARRAY_SIZE(snic_drv_stat_names))

static int snic_get_sset_count(struct net_device *nd, int sset)
{
	return sset == ETH_SS_STATS ? SNIC_NUM_STATS : -EOPNOTSUPP;
}

static void snic_get_strings(struct net_device *nd, u32 sset, u8 *data)
{
	if (sset != ETH_SS_STATS)
		return;
	memcpy(data, snic_stat_names, sizeof(snic_stat_names));
	memcpy(data + sizeof(snic_stat_names), snic_drv_stat_names,
	       sizeof(snic_drv_stat_names));
}

static void snic_get_ethtool_stats(struct net_device *nd,
				   struct ethtool_stats *stats, u64 *data)
{
	struct snic_netdev_priv *np = snic_priv(nd);

	/* A device that cannot answer has no counters to show */
	if (snic_read_dev_stats(np->sdev, data))
		memset(data, 0, SNIC_NUM_DEV_STATS * sizeof(*data));
	data[SNIC_NUM_DEV_STATS] = atomic64_read(&np->rx_alloc_failed);
}

static void snic_get_drvinfo(struct net_device *nd,
			     struct ethtool_drvinfo *info)
{
	struct snic_netdev_priv *np = snic_priv(nd);

	strscpy(info->driver, DRV_MODULE_NAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(np->sdev->pdev),
		sizeof(info->bus_info));
	snic_fw_version_str(np->sdev, info->fw_version,
			    sizeof(info->fw_version));
}

static int snic_get_link_ksettings(struct net_device *nd,
				   struct ethtool_link_ksettings *ks)
{
	struct snic_netdev_priv *np = snic_priv(nd);

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.speed = netif_carrier_ok(nd) ?
			 le32_to_cpu(np->sdev->attr.link_speed_mbps) :
			 SPEED_UNKNOWN;
	ks->base.duplex = netif_carrier_ok(nd) ? DUPLEX_FULL : DUPLEX_UNKNOWN;
	ks->base.port = PORT_OTHER;
	ks->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static const struct ethtool_ops snic_ethtool_ops = {
	.get_drvinfo = snic_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = snic_get_link_ksettings,
	.get_sset_count = snic_get_sset_count,
	.get_strings = snic_get_strings,
	.get_ethtool_stats = snic_get_ethtool_stats,
};

/* --- creation ----------------------------------------------------------- */

/* Link change from the AEQ (hard IRQ context) */
void snic_netdev_link_event(struct snic_dev *sdev, bool up)
{
	struct net_device *nd = READ_ONCE(sdev->netdev);

	if (!nd || !READ_ONCE(snic_priv(nd)->up))
		return;
	if (up)
		netif_carrier_on(nd);
	else
		netif_carrier_off(nd);
	snic_ib_port_event(sdev, up);
}

int snic_netdev_create(struct snic_dev *sdev)
{
	struct snic_netdev_priv *np;
	struct net_device *nd;
	int err;

	nd = alloc_etherdev(sizeof(*np));
	if (!nd)
		return -ENOMEM;
	SET_NETDEV_DEV(nd, &sdev->pdev->dev);
	np = netdev_priv(nd);
	np->sdev = sdev;
	np->netdev = nd;
	u64_stats_init(&np->syncp);
	nd->netdev_ops = &snic_netdev_ops;
	nd->ethtool_ops = &snic_ethtool_ops;
	nd->min_mtu = max_t(u32, ETH_MIN_MTU,
			    le32_to_cpu(sdev->attr.min_mtu));
	nd->max_mtu = min_t(u32, SNIC_ETH_MAX_MTU,
			    le32_to_cpu(sdev->attr.max_mtu));
	nd->mtu = clamp_t(u32, le32_to_cpu(sdev->attr.mtu), nd->min_mtu,
			  nd->max_mtu);
	eth_hw_addr_set(nd, sdev->attr.mac);
	if (!is_valid_ether_addr(nd->dev_addr)) {
		dev_err(&sdev->pdev->dev, "device MAC %pM is not valid\n",
			sdev->attr.mac);
		err = -EINVAL;
		goto err_free;
	}
	netif_napi_add(nd, &np->napi, snic_napi_poll);
	netif_carrier_off(nd);

	err = request_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ETH),
			  snic_eth_irq, 0, "snic-eth", np);
	if (err)
		goto err_napi;
	err = register_netdev(nd);
	if (err)
		goto err_irq;
	sdev->netdev = nd;
	return 0;

err_irq:
	free_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ETH), np);
err_napi:
	netif_napi_del(&np->napi);
err_free:
	free_netdev(nd);
	return err;
}

void snic_netdev_destroy(struct snic_dev *sdev)
{
	struct net_device *nd = sdev->netdev;
	struct snic_netdev_priv *np = netdev_priv(nd);

	unregister_netdev(nd);	/* runs snic_stop() if it was up */
	WRITE_ONCE(sdev->netdev, NULL);
	/* A link event handler that still saw the netdev is done with it */
	synchronize_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ADMIN));
	free_irq(pci_irq_vector(sdev->pdev, SNIC_VEC_ETH), np);
	netif_napi_del(&np->napi);
	free_netdev(nd);
}
