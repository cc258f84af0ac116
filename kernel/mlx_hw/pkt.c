// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pkt.c - the making of an outgoing packet, shared by the requester and the
 * responder: an sk_buff with headroom for the Ethernet, IP and UDP headers
 * a transport pushes, the BTH and extension headers of its opcode (zeroed
 * here, filled by the caller with the hdr.h encoders), then the payload
 * (data.c), and finally its hand-over to the transport the address vector
 * names: loopback.c for a GID of this host, net.c for the wire, both for a
 * multicast group.
 */
#include <linux/ipv6.h>
#include <linux/udp.h>
#include "mlx_hw.h"

/* Headroom for what net.c and loopback.c push in front of the BTH. */
#define MLX_HW_NET_HEADROOM	(sizeof(struct ipv6hdr) + sizeof(struct udphdr))

/*
 * A packet of @opcode for @qp with the headers zeroed; @paylen bytes of
 * payload are expected next, with linear room for them unless @zcopy (page
 * frags), and tailroom for pad and ICRC.  NULL when memory is short (the
 * caller backs off as for a congested link).
 */
struct sk_buff *mlx_hw_pkt_alloc(struct mlx_hw_qp *qp, u8 opcode, u32 paylen,
				 bool zcopy)
{
	const struct mlx_hw_opcode_info *info = &mlx_hw_opcode[opcode];
	struct net_device *ndev = to_mdev(qp->ibx.dev)->ndev;
	unsigned int head = LL_RESERVED_SPACE(ndev) + MLX_HW_NET_HEADROOM;
	unsigned int tail = 3 + MLX_HW_ICRC_LEN + ndev->needed_tailroom;
	struct mlx_hw_pkt *pkt;
	struct sk_buff *skb;

	skb = alloc_skb(head + info->length + (zcopy ? 0 : paylen) + tail,
			GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb_put_zero(skb, info->length);
	pkt = mlx_hw_pkt(skb);
	memset(pkt, 0, sizeof(*pkt));
	pkt->opcode = opcode;
	pkt->mask = info->mask;
	pkt->hdrlen = info->length;
	pkt->paylen = paylen;
	return skb;
}

/*
 * Writes the BTH @hdr of a packet of @qp whose opcode @pkt has, and the
 * PSN and destination there: a packet's, or a request's handed over
 * directly (direct.c).  A packet's pad count is set when it is sent, once
 * the transport is known.
 */
void mlx_hw_hdr_bth(u8 *hdr, struct mlx_hw_pkt *pkt, struct mlx_hw_qp *qp,
		    u32 dest_qpn, bool se, bool ackreq, u32 psn)
{
	pkt->psn = psn & MLX_HW_PSN_MASK;
	pkt->qpn = dest_qpn & MLX_HW_QPN_MASK;
	mlx_hw_bth_set(hdr, pkt->opcode, se, mlx_hw_apm_migreq(qp), 0,
		       MLX_HW_DEFAULT_PKEY, dest_qpn, ackreq, psn);
}

/* Writes the BTH of a packet built by mlx_hw_pkt_alloc(). */
void mlx_hw_pkt_bth(struct sk_buff *skb, struct mlx_hw_qp *qp, u32 dest_qpn,
		    bool se, bool ackreq, u32 psn)
{
	mlx_hw_hdr_bth(skb->data, mlx_hw_pkt(skb), qp, dest_qpn, se, ackreq,
		       psn);
}

/* What each kind of packet adds to the tx counters. */
static void mlx_hw_count_tx(struct mlx_hw_dev *dev, const struct mlx_hw_pkt *pkt)
{
	enum mlx_hw_counter kind = MLX_HW_CNT_TX_REQUESTS;

	if (pkt->mask & MLX_HW_M_READ_RESP)
		kind = MLX_HW_CNT_TX_READ_RESPONSES;
	else if (pkt->mask & (MLX_HW_M_ACK | MLX_HW_M_ATOMIC_ACK))
		kind = MLX_HW_CNT_TX_ACKS;
	if (!(pkt->mask & MLX_HW_M_CNP))	/* counted by ecn.c */
		mlx_hw_count(dev, kind, 1);
	mlx_hw_count(dev, MLX_HW_CNT_TX_PACKETS, 1);
	mlx_hw_count(dev, MLX_HW_CNT_TX_BYTES, pkt->paylen);
}

/*
 * Sends a finished packet (consumed in every case).  Returns 0 when it
 * left (or was lost as on any network: no carrier, no route, a full
 * neighbour queue), or -ENOBUFS when the local link is congested or memory
 * is short and the caller should try this packet again a little later.
 */
int mlx_hw_pkt_xmit(struct mlx_hw_qp *qp, const struct mlx_hw_av *av,
		    struct sk_buff *skb)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_pkt *pkt = mlx_hw_pkt(skb);
	bool mcast = mlx_hw_gid_is_mcast(&av->dgid);
	u8 pad;

	if (!READ_ONCE(dev->port_active)) {
		kfree_skb(skb);
		return 0;
	}
	mlx_hw_count_tx(dev, pkt);
	mlx_hw_qp_dbg(qp, "tx %s psn %u qpn %u len %u\n",
		      mlx_hw_opcode[pkt->opcode].name, pkt->psn, pkt->qpn,
		      pkt->paylen);
	/*
	 * Multicast reaches the local members through loopback and the
	 * other hosts through the wire.
	 */
	if (mcast) {
		struct sk_buff *copy = skb_copy(skb, GFP_ATOMIC);

		if (copy)
			mlx_hw_loopback_xmit(dev, av, copy);
	} else if (av->loopback) {
		return mlx_hw_loopback_xmit(dev, av, skb);
	}
	/* IBA 9.3: the payload is padded to a multiple of 4 bytes. */
	pad = (-pkt->paylen) & 3;
	if (pad) {
		skb->data[1] |= pad << MLX_HW_BTH_PAD_SHIFT;
		skb_put_zero(skb, pad);
	}
	return mlx_hw_net_xmit(dev, av, skb);
}
