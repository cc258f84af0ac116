// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * recv.c - an arriving packet, from the wire (net.c, in its softirq) or
 * from loopback, is checked against what the headers say and
 * against its destination QP, then queued for that QP's responder
 * (requests) or completer (responses), and that side of the QP is offered
 * the work (sched.c: run here, or by the thread).  A packet that fails a
 * check is dropped and counted by the reason (hw_counters rx_drop_*);
 * nothing here answers the sender: NAKs are the responder's.
 *
 * mlx_hw_rcv() runs in the softirq of the wire (net.c) or in a loopback
 * sender, under RCU, and never sleeps.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include "mlx_hw.h"

/*
 * Notes a CE mark on an arriving packet (its IP header at the network
 * header), for the CNP its QP answers with (ecn.c).
 */
static void mlx_hw_ecn_rcv(struct mlx_hw_dev *dev, struct sk_buff *skb)
{
	struct mlx_hw_pkt *pkt = mlx_hw_pkt(skb);
	u8 ecn;

	if (pkt->flags & MLX_HW_PKT_IPV6)
		ecn = ipv6_get_dsfield(ipv6_hdr(skb)) & INET_ECN_MASK;
	else
		ecn = ip_hdr(skb)->tos & INET_ECN_MASK;
	if (ecn != INET_ECN_CE)
		return;
	pkt->flags |= MLX_HW_PKT_CE;
	mlx_hw_count(dev, MLX_HW_CNT_ECN_MARKED, 1);
}

/* The source and destination GIDs of a packet, from its IP header. */
void mlx_hw_pkt_gids(struct sk_buff *skb, union ibx_gid *sgid,
		     union ibx_gid *dgid)
{
	if (mlx_hw_pkt(skb)->flags & MLX_HW_PKT_IPV6) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		if (sgid)
			memcpy(sgid->raw, &ip6h->saddr, sizeof(sgid->raw));
		if (dgid)
			memcpy(dgid->raw, &ip6h->daddr, sizeof(dgid->raw));
	} else {
		const struct iphdr *iph = ip_hdr(skb);

		if (sgid)
			ipv6_addr_set_v4mapped(iph->saddr,
					       (struct in6_addr *)sgid->raw);
		if (dgid)
			ipv6_addr_set_v4mapped(iph->daddr,
					       (struct in6_addr *)dgid->raw);
	}
}

/*
 * The transport headers on their own (IBA 9.6 "packet checks" up to the
 * QP): a known opcode, transport version 0, the headers and pad present,
 * no payload where the opcode has none, and the default P_Key (ours is the
 * only table entry).  Fills skb->cb and strips the pad.  Returns 0 or the
 * drop counter.
 */
static enum mlx_hw_counter mlx_hw_rcv_check_hdr(struct sk_buff *skb)
{
	struct mlx_hw_pkt *pkt = mlx_hw_pkt(skb);
	const struct mlx_hw_opcode_info *info;
	unsigned int pad, paylen;
	const u8 *bth;

	if (!pskb_may_pull(skb, MLX_HW_BTH_LEN))
		return MLX_HW_CNT_DROP_TRUNCATED;
	info = &mlx_hw_opcode[mlx_hw_bth_opcode(skb->data)];
	if (!info->name)
		return MLX_HW_CNT_DROP_OPCODE;
	if (mlx_hw_bth_tver(skb->data))
		return MLX_HW_CNT_DROP_VERSION;
	if (!pskb_may_pull(skb, info->length))
		return MLX_HW_CNT_DROP_TRUNCATED;
	bth = skb->data;
	pad = mlx_hw_bth_pad(bth);
	if (skb->len < info->length + pad)
		return MLX_HW_CNT_DROP_TRUNCATED;
	paylen = skb->len - info->length - pad;
	if (paylen > ibx_mtu_to_bytes(IBX_MTU_4096) ||
	    ((paylen || pad) && !(info->mask & MLX_HW_M_PAYLOAD)))
		return MLX_HW_CNT_DROP_LENGTH;
	if ((mlx_hw_bth_pkey(bth) & MLX_HW_PKEY_MASK) !=
	    (MLX_HW_DEFAULT_PKEY & MLX_HW_PKEY_MASK))
		return MLX_HW_CNT_DROP_PKEY;
	if (pad && pskb_trim(skb, skb->len - pad))
		return MLX_HW_CNT_DROP_TRUNCATED;
	pkt->opcode = mlx_hw_bth_opcode(bth);
	pkt->mask = info->mask;
	pkt->hdrlen = info->length;
	pkt->paylen = paylen;
	pkt->psn = mlx_hw_bth_psn(bth);
	pkt->qpn = mlx_hw_bth_qpn(bth);
	return 0;
}

/* The address check of a connected QP (apm.c) for a packet. */
static enum mlx_hw_counter mlx_hw_rcv_check_addr(struct mlx_hw_qp *qp,
						 struct sk_buff *skb)
{
	union ibx_gid sgid;

	mlx_hw_pkt_gids(skb, &sgid, NULL);
	return mlx_hw_apm_rcv(qp, &sgid, mlx_hw_bth_mig(skb->data));
}

/*
 * The packet against its QP: a state that takes it (IBA 10.3.1: requests
 * from RTR on, responses in RTS/SQD), the QP's transport (XRC requests go
 * to TGT QPs, their responses to INI QPs), the Q_Key of a datagram (IBA
 * C10-102) and, on a connection, the peer's address.
 */
static enum mlx_hw_counter mlx_hw_rcv_check_qp(struct mlx_hw_qp *qp,
					       struct sk_buff *skb)
{
	struct mlx_hw_pkt *pkt = mlx_hw_pkt(skb);
	u32 type = qp->ibx.qp_type;
	int state = READ_ONCE(qp->state);

	if (state != IBX_QPS_RTS && state != IBX_QPS_SQD &&
	    !(state == IBX_QPS_RTR && (pkt->mask & MLX_HW_M_REQ)))
		return MLX_HW_CNT_DROP_STATE;
	/* A CNP is for a requester's congestion window (ecn.c). */
	if (pkt->mask & MLX_HW_M_CNP) {
		if (type != IB_UVERBS_QPT_RC && type != IB_UVERBS_QPT_XRC_INI)
			return MLX_HW_CNT_DROP_TRANSPORT;
		return mlx_hw_rcv_check_addr(qp, skb);
	}
	if (MLX_HW_OPC_TRANSPORT(pkt->opcode) != mlx_hw_qp_transport(type) ||
	    (type == IB_UVERBS_QPT_XRC_INI && (pkt->mask & MLX_HW_M_REQ)) ||
	    (type == IB_UVERBS_QPT_XRC_TGT && !(pkt->mask & MLX_HW_M_REQ)))
		return MLX_HW_CNT_DROP_TRANSPORT;
	if (mlx_hw_qp_is_ud(type)) {
		if (mlx_hw_deth_qkey(mlx_hw_pkt_hdr(skb, MLX_HW_DETH)) !=
		    READ_ONCE(qp->qkey))
			return MLX_HW_CNT_DROP_QKEY;
		return 0;
	}
	/* The peer's address, on either path while migration is armed. */
	return mlx_hw_rcv_check_addr(qp, skb);
}

/* Queues an accepted packet for its QP's responder or completer. */
static enum mlx_hw_counter mlx_hw_qp_enqueue(struct mlx_hw_dev *dev,
					     struct mlx_hw_qp *qp,
					     struct sk_buff *skb)
{
	struct mlx_hw_pkt *pkt = mlx_hw_pkt(skb);
	bool req = pkt->mask & MLX_HW_M_REQ;
	struct sk_buff_head *q = req ? &qp->resp_pkts : &qp->comp_pkts;
	enum mlx_hw_counter kind = MLX_HW_CNT_RX_REQUESTS;

	if (skb_queue_len(q) >= MLX_HW_QP_QUEUE_LEN)
		return MLX_HW_CNT_DROP_QUEUE_FULL;
	if (pkt->mask & MLX_HW_M_READ_RESP)
		kind = MLX_HW_CNT_RX_READ_RESPONSES;
	else if (!req)
		kind = MLX_HW_CNT_RX_ACKS;
	if (!(pkt->mask & MLX_HW_M_CNP))	/* counted when handled */
		mlx_hw_count(dev, kind, 1);
	mlx_hw_count(dev, MLX_HW_CNT_RX_PACKETS, 1);
	mlx_hw_count(dev, MLX_HW_CNT_RX_BYTES, pkt->paylen);
	mlx_hw_qp_dbg(qp, "rx %s psn %u len %u\n",
		      mlx_hw_opcode[pkt->opcode].name, pkt->psn, pkt->paylen);
	skb_queue_tail(q, skb);
	mlx_hw_qp_offer(qp, !req);
	return 0;
}

/* A datagram to a group goes to each attached QP that takes it. */
static void mlx_hw_rcv_mcast(struct mlx_hw_dev *dev, struct sk_buff *skb,
			     const union ibx_gid *mgid)
{
	struct mlx_hw_qp *qps[MLX_HW_MAX_MCAST_ATTACH];
	enum mlx_hw_counter why;
	struct sk_buff *copy;
	unsigned int i, n;

	n = mlx_hw_mcast_get_qps(dev, mgid, qps);
	for (i = 0; i < n; i++) {
		why = mlx_hw_rcv_check_qp(qps[i], skb);
		copy = why ? NULL : skb_clone(skb, GFP_ATOMIC);
		if (copy) {
			why = mlx_hw_qp_enqueue(dev, qps[i], copy);
			if (why)
				kfree_skb(copy);
		}
		if (why)
			mlx_hw_count(dev, why, 1);
		mlx_hw_qp_put(qps[i]);
	}
}

/*
 * Takes a packet (skb->data at the BTH, its IP header reachable through
 * the network header, ICRC already checked and removed) for device @dev.
 * Consumes the packet.
 */
void mlx_hw_rcv(struct mlx_hw_dev *dev, struct sk_buff *skb)
{
	struct mlx_hw_pkt *pkt = mlx_hw_pkt(skb);
	enum mlx_hw_counter why;
	struct mlx_hw_qp *qp;
	union ibx_gid dgid;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "mlx_hw_rcv() without RCU");
	why = mlx_hw_rcv_check_hdr(skb);
	if (why)
		goto drop;
	mlx_hw_ecn_rcv(dev, skb);
	if (pkt->qpn == MLX_HW_MCAST_QPN) {
		mlx_hw_pkt_gids(skb, NULL, &dgid);
		if (!(pkt->mask & MLX_HW_M_UD) || !mlx_hw_gid_is_mcast(&dgid)) {
			why = MLX_HW_CNT_DROP_QPN;
			goto drop;
		}
		mlx_hw_rcv_mcast(dev, skb, &dgid);
		consume_skb(skb);
		return;
	}
	qp = mlx_hw_qp_get(dev, pkt->qpn);
	if (!qp) {
		why = MLX_HW_CNT_DROP_QPN;
		goto drop;
	}
	why = mlx_hw_rcv_check_qp(qp, skb);
	if (!why)
		why = mlx_hw_qp_enqueue(dev, qp, skb);
	mlx_hw_qp_put(qp);
	if (!why)
		return;
drop:
	mlx_hw_count(dev, why, 1);
	kfree_skb(skb);
}

