// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loopback.c - the transport between mlx_hw devices of this host whose
 * netdevs share a network namespace.  A packet whose destination GID
 * belongs to such a device skips the network: it
 * gets the same IP and UDP headers as on the wire (a UD receiver copies the
 * IP header into its GRH), but no ICRC and no Ethernet header, and goes
 * straight to recv.c of that device.  Reliable packets may carry their
 * payload as frags of the sender's pinned pages (zero-copy, data.c).
 *
 * Fault injection, for testing retransmission on one host: the module
 * parameters lo_drop_ppm, lo_dup_ppm and lo_reorder_ppm make loopback drop,
 * duplicate, or hold back until the next packet (reorder) that many
 * packets per million.  Counters lo_dropped, lo_duplicated, lo_reordered.
 */
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/udp.h>
#include "mlx_hw.h"

static unsigned int lo_drop_ppm, lo_dup_ppm, lo_reorder_ppm;
module_param(lo_drop_ppm, uint, 0644);
MODULE_PARM_DESC(lo_drop_ppm, "loopback: drop this many packets per million");
module_param(lo_dup_ppm, uint, 0644);
MODULE_PARM_DESC(lo_dup_ppm, "loopback: duplicate this many packets per million");
module_param(lo_reorder_ppm, uint, 0644);
MODULE_PARM_DESC(lo_reorder_ppm, "loopback: delay this many packets per million past the next");

static bool mlx_hw_lo_roll(unsigned int ppm)
{
	return ppm && get_random_u32_below(1000000) < ppm;
}

/*
 * Whether loopback injects faults: then every packet takes the packet
 * path, which the injection works on (direct.c hands messages over only
 * without it).
 */
bool mlx_hw_loopback_faults(void)
{
	return READ_ONCE(lo_drop_ppm) || READ_ONCE(lo_dup_ppm) ||
	       READ_ONCE(lo_reorder_ppm);
}

/*
 * Hands a packet (skb->data at the BTH) to the device of @src's namespace
 * owning its destination GID, or to every device of the namespace for a
 * multicast group (each keeps what its attached QPs want).  A GID nobody
 * owns loses the packet.
 */
static void mlx_hw_loopback_deliver(struct mlx_hw_dev *src,
				    struct sk_buff *skb)
{
	struct net *net = mlx_hw_dev_net(src);
	struct mlx_hw_dev *dev;
	struct sk_buff *copy;
	union ibx_gid dgid;

	mlx_hw_pkt_gids(skb, NULL, &dgid);

	/* Under RCU the device cannot be freed; mlx_hw_rcv() never sleeps. */
	rcu_read_lock();
	if (!mlx_hw_gid_is_mcast(&dgid)) {
		dev = mlx_hw_local_dev(src, &dgid, true);
		if (dev) {
			mlx_hw_rcv(dev, skb);
			skb = NULL;
		}
	} else {
		list_for_each_entry_rcu(dev, &mlx_hw_devices, list) {
			if (!READ_ONCE(dev->port_active) ||
			    !net_eq(mlx_hw_dev_net(dev), net))
				continue;
			copy = skb_clone(skb, GFP_ATOMIC);
			if (copy)
				mlx_hw_rcv(dev, copy);
		}
	}
	rcu_read_unlock();
	kfree_skb(skb);
}

/* Delivers the packet held back for reordering, if any. */
void mlx_hw_loopback_flush(struct mlx_hw_dev *dev)
{
	struct sk_buff *held;

	if (!READ_ONCE(dev->lo_held))
		return;
	spin_lock_bh(&dev->lo_lock);
	held = dev->lo_held;
	dev->lo_held = NULL;
	spin_unlock_bh(&dev->lo_lock);
	if (held)
		mlx_hw_loopback_deliver(dev, held);
}

/*
 * Sends a packet (skb->data at the BTH) to a local device.  Always returns
 * 0: the packet is delivered, or lost as on a network.
 */
int mlx_hw_loopback_xmit(struct mlx_hw_dev *src, const struct mlx_hw_av *av,
			 struct sk_buff *skb)
{
	struct mlx_hw_pkt *pkt;
	struct sk_buff *dup, *held = NULL;

	mlx_hw_push_ip_udp(skb, av);
	__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
	pkt = mlx_hw_pkt(skb);
	pkt->flags = MLX_HW_PKT_LOOPBACK | (av->ipv4 ? 0 : MLX_HW_PKT_IPV6);

	if (mlx_hw_lo_roll(READ_ONCE(lo_drop_ppm))) {
		mlx_hw_count(src, MLX_HW_CNT_LO_DROPPED, 1);
		kfree_skb(skb);
		return 0;
	}
	if (mlx_hw_lo_roll(READ_ONCE(lo_dup_ppm))) {
		dup = skb_clone(skb, GFP_ATOMIC);
		if (dup) {
			mlx_hw_count(src, MLX_HW_CNT_LO_DUPLICATED, 1);
			mlx_hw_loopback_deliver(src, dup);
		}
	}
	spin_lock_bh(&src->lo_lock);
	if (!src->lo_held && mlx_hw_lo_roll(READ_ONCE(lo_reorder_ppm))) {
		/* Held until the next packet has gone (or a thread's pass). */
		src->lo_held = skb;
		skb = NULL;
		mlx_hw_count(src, MLX_HW_CNT_LO_REORDERED, 1);
	} else {
		held = src->lo_held;
		src->lo_held = NULL;
	}
	spin_unlock_bh(&src->lo_lock);
	if (skb)
		mlx_hw_loopback_deliver(src, skb);
	else	/* held: the thread's next pass delivers it if nothing else */
		mlx_hw_engine_kick(src, MLX_HW_KICK_OTHER);
	if (held)
		mlx_hw_loopback_deliver(src, held);
	return 0;
}
