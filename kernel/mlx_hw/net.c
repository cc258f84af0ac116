// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * net.c - the RoCEv2 wire (IBA annex A17): UDP port 4791 over IPv4 or
 * IPv6, the ICRC, and the kernel's route and neighbour tables.
 *
 * Transmit: the packet gets its UDP and IP headers and ICRC here, a route
 * through the bound netdev, and Ethernet framing either from the
 * destination MAC userspace resolved for a UD address handle or from the
 * neighbour table, which queues the packet while it resolves the address
 * (ARP/ND, with the neighbour subsystem's own bounded retries) and drops it
 * if that fails; RC then retransmits.  Going through dev_queue_xmit keeps
 * the netdev's qdisc (netem in the tests) and packet taps in the path.
 *
 * Receive: one kernel UDP socket per address family takes port 4791 in
 * each network namespace that has a device on one of its netdevs (made for
 * the first one, released with the last: a namespace without a device
 * keeps the port free, as for rxe); its encap hook runs in softirq, checks
 * the ICRC, strips UDP and ICRC and hands the packet to recv.c for the
 * device of the netdev it arrived on, which runs the QP's side that takes
 * it right there (sched.c).  Routes and neighbours are the netdev's
 * namespace's.
 */
#include <linux/crc32.h>
#include <linux/if_ether.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/ndisc.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/sch_generic.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include "mlx_hw.h"

/* The wire of one network namespace (net_generic). */
struct mlx_hw_netns {
	struct socket *sock4, *sock6;	/* UDP 4791, or NULL if it was taken */
	unsigned int users;		/* devices counting on them (bind mutex) */
};

static unsigned int mlx_hw_net_id;

static struct mlx_hw_netns *mlx_hw_netns(struct net *net)
{
	return net_generic(net, mlx_hw_net_id);
}

/* ---------------- ICRC ---------------- */

/*
 * The CRC-32 of 8 bytes of 0xff (the LRH a RoCEv2 packet lacks, all
 * fields masked) started from all ones: the seed of every ICRC.
 */
#define MLX_HW_ICRC_SEED	0xdebb20e3

/*
 * The ECN field a packet leaves with (ecn.c): ECN-capable, but CNPs not,
 * as mlx5's.
 */
static u8 mlx_hw_ecn_tos(struct sk_buff *skb, u8 traffic_class)
{
	u8 ecn = mlx_hw_pkt(skb)->opcode == MLX_HW_OPC_CNP ?
		 INET_ECN_NOT_ECT : INET_ECN_ECT_0;

	return (traffic_class & ~INET_ECN_MASK) | ecn;
}

/*
 * The ICRC of a packet whose skb->data is at its IP header, over the first
 * @len bytes (everything but the ICRC itself).  The variant fields are
 * masked to ones as IBA A17.4 says: IPv4 TOS, TTL and checksum; IPv6
 * traffic class, flow label and hop limit; the UDP checksum; and the BTH
 * reserved byte before the QPN.
 */
static u32 mlx_hw_icrc(struct sk_buff *skb, bool ipv6, unsigned int len)
{
	u8 ph[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + MLX_HW_BTH_LEN];
	unsigned int iplen = ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	unsigned int phlen = iplen + sizeof(struct udphdr) + MLX_HW_BTH_LEN;
	struct skb_seq_state st;
	unsigned int consumed;
	const u8 *data;
	u32 crc, n;

	if (len < phlen || skb_copy_bits(skb, 0, ph, phlen))
		return 0;
	if (ipv6) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)ph;

		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	} else {
		struct iphdr *iph = (struct iphdr *)ph;

		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = htons(0xffff);
	}
	((struct udphdr *)(ph + iplen))->check = htons(0xffff);
	ph[iplen + sizeof(struct udphdr) + 4] = 0xff;	/* BTH resv8a */
	crc = crc32_le(MLX_HW_ICRC_SEED, ph, phlen);

	/*
	 * The rest, wherever the skb keeps it (linear part or frags).  A
	 * block skb_seq_read() returns may reach past @len (it stops only at
	 * the next block): clamp it, and unmap what stopping early leaves.
	 */
	skb_prepare_seq_read(skb, phlen, len, &st);
	for (consumed = 0; consumed < len - phlen; consumed += n) {
		n = skb_seq_read(consumed, &data, &st);
		if (!n)
			break;
		n = min(n, len - phlen - consumed);
		crc = crc32_le(crc, data, n);
	}
	skb_abort_seq_read(&st);
	return ~crc;
}

/* ---------------- transmit ---------------- */

/* Pushes the UDP and IP headers of @av in front of the BTH at skb->data. */
void mlx_hw_push_ip_udp(struct sk_buff *skb, const struct mlx_hw_av *av)
{
	u8 ttl = av->hop_limit ? av->hop_limit : 64;
	struct udphdr *udph;

	udph = skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph->source = htons(av->sport);
	udph->dest = htons(MLX_HW_ROCE_PORT);
	udph->len = htons(skb->len);
	udph->check = 0;	/* A17.4.5: the ICRC protects the packet */

	if (av->ipv4) {
		struct iphdr *iph = skb_push(skb, sizeof(*iph));

		skb_reset_network_header(skb);
		iph->version = 4;
		iph->ihl = sizeof(*iph) / 4;
		iph->tos = mlx_hw_ecn_tos(skb, av->traffic_class);
		iph->tot_len = htons(skb->len);
		iph->id = 0;	/* DF set: an atomic datagram (RFC 6864) */
		iph->frag_off = htons(IP_DF);
		iph->ttl = ttl;
		iph->protocol = IPPROTO_UDP;
		memcpy(&iph->saddr, &av->sgid.raw[12], 4);
		memcpy(&iph->daddr, &av->dgid.raw[12], 4);
		ip_send_check(iph);
		skb->protocol = htons(ETH_P_IP);
	} else {
		struct ipv6hdr *ip6h = skb_push(skb, sizeof(*ip6h));

		skb_reset_network_header(skb);
		ip6_flow_hdr(ip6h, mlx_hw_ecn_tos(skb, av->traffic_class),
			     htonl(av->flow_label));
		ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = ttl;
		memcpy(&ip6h->saddr, av->sgid.raw, 16);
		memcpy(&ip6h->daddr, av->dgid.raw, 16);
		skb->protocol = htons(ETH_P_IPV6);
	}
}

/* The route to @av's destination out of @ndev, or NULL. */
static struct dst_entry *mlx_hw_route(struct net_device *ndev,
				      const struct mlx_hw_av *av)
{
	struct dst_entry *dst;

	if (av->ipv4) {
		struct flowi4 fl4 = {
			.flowi4_oif = ndev->ifindex,
			.flowi4_proto = IPPROTO_UDP,
		};
		struct rtable *rt;

		memcpy(&fl4.saddr, &av->sgid.raw[12], 4);
		memcpy(&fl4.daddr, &av->dgid.raw[12], 4);
		rt = ip_route_output_key(dev_net(ndev), &fl4);
		if (IS_ERR(rt))
			return NULL;
		dst = &rt->dst;
	} else {
		struct flowi6 fl6 = {
			.flowi6_oif = ndev->ifindex,
			.flowi6_proto = IPPROTO_UDP,
		};
		struct socket *sock6;

		/* The device's namespace keeps its socket while it lives. */
		sock6 = READ_ONCE(mlx_hw_netns(dev_net(ndev))->sock6);
		if (!sock6)
			return NULL;
		memcpy(&fl6.saddr, av->sgid.raw, 16);
		memcpy(&fl6.daddr, av->dgid.raw, 16);
		dst = ipv6_stub->ipv6_dst_lookup_flow(dev_net(ndev), sock6->sk,
						      &fl6, NULL);
		if (IS_ERR(dst))
			return NULL;
	}
	/* Only the bound port: a route elsewhere (lo) is no route. */
	if (dst->error || dst->dev != ndev) {
		dst_release(dst);
		return NULL;
	}
	return dst;
}

/* Frames and queues a packet with its route attached; NET_XMIT_* or errno. */
static int mlx_hw_xmit_l2(struct net_device *ndev, const struct mlx_hw_av *av,
			  struct sk_buff *skb)
{
	struct dst_entry *dst = skb_dst(skb);
	struct neighbour *neigh;
	int rc;

	if (!is_zero_ether_addr(av->dmac)) {
		if (dev_hard_header(skb, ndev, ntohs(skb->protocol), av->dmac,
				    ndev->dev_addr, skb->len) < 0) {
			kfree_skb(skb);
			return -EINVAL;
		}
		return dev_queue_xmit(skb);
	}
	rcu_read_lock_bh();
	if (av->ipv4) {
		bool is_v6gw = false;

		neigh = ip_neigh_for_gw(container_of(dst, struct rtable, dst),
					 skb, &is_v6gw);
	} else {
		struct rt6_info *rt6 = container_of(dst, struct rt6_info, dst);

		neigh = ip_neigh_gw6(ndev, rt6_nexthop(rt6,
						       &ipv6_hdr(skb)->daddr));
	}
	if (IS_ERR_OR_NULL(neigh)) {
		rcu_read_unlock_bh();
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	/* Resolved: sent; resolving: queued on the neighbour (bounded). */
	rc = neigh_output(neigh, skb, false);
	rcu_read_unlock_bh();
	return rc;
}

/*
 * Whether the netdev's queue is long enough that more packets would only
 * wait in it or overflow it: a burst (a long READ response, a window of
 * requests) then pauses rather than have the qdisc drop its tail, which
 * would cost a retransmission round trip.  A heuristic: the qdisc
 * lengths, read without their locks.
 */
#define MLX_HW_TX_QUEUE_MAX	256

static bool mlx_hw_net_congested(struct net_device *ndev)
{
	bool full = false;
	struct Qdisc *q;
	unsigned int i;

	/*
	 * Per TX queue: a multiqueue root (mq) does not keep a live
	 * length; a single root (netem) is every queue's qdisc.
	 */
	rcu_read_lock_bh();
	for (i = 0; i < ndev->real_num_tx_queues && !full; i++) {
		q = rcu_dereference_bh(netdev_get_tx_queue(ndev, i)->qdisc);
		full = q && qdisc_qlen(q) > MLX_HW_TX_QUEUE_MAX;
	}
	rcu_read_unlock_bh();
	return full;
}

/*
 * Sends a packet (skb->data at the BTH, payload and pad linear) on the
 * wire.  See mlx_hw_pkt_xmit() for the return value.
 */
int mlx_hw_net_xmit(struct mlx_hw_dev *dev, const struct mlx_hw_av *av,
		    struct sk_buff *skb)
{
	struct net_device *ndev = dev->ndev;
	struct dst_entry *dst;
	u32 icrc;
	int rc;

	if (mlx_hw_net_congested(ndev)) {
		mlx_hw_count(dev, MLX_HW_CNT_TX_BACKOFF, 1);
		kfree_skb(skb);
		return -ENOBUFS;
	}

	/* The ICRC is part of the UDP datagram: room first, then lengths. */
	skb_put(skb, MLX_HW_ICRC_LEN);
	mlx_hw_push_ip_udp(skb, av);
	icrc = mlx_hw_icrc(skb, !av->ipv4, skb->len - MLX_HW_ICRC_LEN);
	put_unaligned_le32(icrc, skb_tail_pointer(skb) - MLX_HW_ICRC_LEN);
	dst = mlx_hw_route(ndev, av);
	if (!dst) {
		mlx_hw_count(dev, MLX_HW_CNT_TX_NO_ROUTE, 1);
		kfree_skb(skb);
		return 0;
	}
	skb_dst_set(skb, dst);
	skb->dev = ndev;
	skb->priority = rt_tos2priority(av->traffic_class);
	/* net_xmit_eval() evaluates its argument twice: not a call. */
	rc = mlx_hw_xmit_l2(ndev, av, skb);
	rc = net_xmit_eval(rc);
	if (rc == NET_XMIT_DROP || rc == -ENOBUFS || rc == -ENOMEM) {
		/* Our own queue overflowed: worth trying again soon. */
		mlx_hw_count(dev, MLX_HW_CNT_TX_BACKOFF, 1);
		return -ENOBUFS;
	}
	if (rc)
		mlx_hw_count(dev, MLX_HW_CNT_TX_NO_ROUTE, 1);
	return 0;
}

/* ---------------- receive ---------------- */

/*
 * The UDP encap hook (softirq, skb->data at the UDP header, the UDP
 * length already trimmed to): check, strip and receive.  Returns 0: the
 * packet is always consumed.
 */
static int mlx_hw_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	bool ipv6 = skb->protocol == htons(ETH_P_IPV6);
	unsigned int iplen = skb_network_header_len(skb);
	struct mlx_hw_dev *dev;
	struct mlx_hw_pkt *pkt;
	__le32 icrc;

	rcu_read_lock();
	dev = mlx_hw_dev_by_ndev_rcu(skb->dev);
	if (!dev)
		goto drop;
	if (skb->len < sizeof(struct udphdr) + MLX_HW_BTH_LEN + MLX_HW_ICRC_LEN ||
	    iplen != (ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr))) {
		mlx_hw_count(dev, MLX_HW_CNT_DROP_TRUNCATED, 1);
		goto drop;
	}
	/* From the IP header (still in the linear head) to the ICRC. */
	__skb_push(skb, iplen);
	if (skb_copy_bits(skb, skb->len - MLX_HW_ICRC_LEN, &icrc, sizeof(icrc)) ||
	    le32_to_cpu(icrc) !=
	    mlx_hw_icrc(skb, ipv6, skb->len - MLX_HW_ICRC_LEN)) {
		mlx_hw_count(dev, MLX_HW_CNT_ICRC_ERR, 1);
		goto drop;
	}
	if (pskb_trim(skb, skb->len - MLX_HW_ICRC_LEN))
		goto drop;
	__skb_pull(skb, iplen + sizeof(struct udphdr));
	pkt = mlx_hw_pkt(skb);
	memset(pkt, 0, sizeof(*pkt));
	pkt->flags = ipv6 ? MLX_HW_PKT_IPV6 : 0;
	/* RCU keeps @dev; its QPs are looked up with references. */
	mlx_hw_rcv(dev, skb);
	rcu_read_unlock();
	return 0;
drop:
	rcu_read_unlock();
	kfree_skb(skb);
	return 0;
}

static struct socket *mlx_hw_udp_sock(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl = {
		.encap_type = 1,
		.encap_rcv = mlx_hw_udp_encap_rcv,
	};
	struct udp_port_cfg cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.local_udp_port = htons(MLX_HW_ROCE_PORT),
		.ipv6_v6only = 1,
		/* RoCEv2 sends UDP checksum 0, also over IPv6. */
		.use_udp6_rx_checksums = 0,
	};
	struct socket *sock;
	int err;

	/* A kernel socket holds no reference: our pernet exit ends it. */
	err = udp_sock_create(net, &cfg, &sock);
	if (err) {
		pr_warn("no IPv%d UDP socket on port %d (%d): that wire stays down\n",
			ipv6 ? 6 : 4, MLX_HW_ROCE_PORT, err);
		return NULL;
	}
	setup_udp_tunnel_sock(net, sock, &tnl);
	return sock;
}

/**
 * mlx_hw_net_get() - the wire of the namespace of @dev's netdev
 * @dev: a device being bound; its ndev is set
 *
 * The namespace's sockets are made for its first device.  Called under
 * the bind mutex, as mlx_hw_net_put().
 */
void mlx_hw_net_get(struct mlx_hw_dev *dev)
{
	struct net *net = dev_net(dev->ndev);
	struct mlx_hw_netns *mn = mlx_hw_netns(net);

	if (!mn->users++) {
		mn->sock4 = mlx_hw_udp_sock(net, false);
		if (IS_ENABLED(CONFIG_IPV6))
			mn->sock6 = mlx_hw_udp_sock(net, true);
	}
	dev->net = net;
}

/* Once the device's data path has stopped; the last one frees the port. */
void mlx_hw_net_put(struct mlx_hw_dev *dev)
{
	struct mlx_hw_netns *mn;
	struct socket *s4, *s6;

	if (!dev->net)
		return;
	mn = mlx_hw_netns(dev->net);
	dev->net = NULL;
	if (--mn->users)
		return;
	s4 = mn->sock4;
	s6 = mn->sock6;
	WRITE_ONCE(mn->sock4, NULL);
	WRITE_ONCE(mn->sock6, NULL);
	/* Each waits for the receive hooks running on it (RCU). */
	if (s6)
		udp_tunnel_sock_release(s6);
	if (s4)
		udp_tunnel_sock_release(s4);
}

static void (*mlx_hw_net_gone)(struct net *net);	/* mlx_hw_net_init() */

/*
 * A namespace goes away: its netdevs went first (unregistering them waits
 * for our devices to drop them), but a device on a netdev that moved back
 * to init_net may still count on its sockets; main.c destroys those.
 */
static void __net_exit mlx_hw_netns_exit(struct net *net)
{
	mlx_hw_net_gone(net);
	WARN_ON(mlx_hw_netns(net)->users);
}

static struct pernet_operations mlx_hw_net_ops = {
	.exit = mlx_hw_netns_exit,
	.id = &mlx_hw_net_id,
	.size = sizeof(struct mlx_hw_netns),
};

/* @gone destroys a namespace's devices (main.c) when it goes away. */
int mlx_hw_net_init(void (*gone)(struct net *net))
{
	mlx_hw_net_gone = gone;
	return register_pernet_subsys(&mlx_hw_net_ops);
}

/* After every device is gone. */
void mlx_hw_net_exit(void)
{
	unregister_pernet_subsys(&mlx_hw_net_ops);
}
