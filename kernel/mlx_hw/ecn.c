// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ecn.c - explicit congestion notification for RoCEv2 (IBA annex A17.9,
 * RFC 3168), as a ConnectX does it (docs/wire.md 14.3.2): packets leave
 * ECN-capable (ECT(0)); a router or qdisc under pressure marks them CE
 * instead of dropping them; the QP that receives a CE-marked packet answers
 * the sending QP with a congestion notification packet (CNP), at most one
 * per MLX_HW_CNP_INTERVAL_NS; and a CNP shrinks the sender's congestion
 * window (cwnd.c), so it slows down before anything is lost.
 *
 * recv.c notes the mark (mlx_hw_ecn_rcv()) and queues CNPs for the
 * completer; the responder and the completer answer marks as they take
 * packets (mlx_hw_ecn_answer), in their own contexts, which may allocate.
 */
#include <net/inet_ecn.h>
#include <linux/ipv6.h>
#include "mlx_hw.h"

/* As mlx5's default min_time_between_cnps (4 us), rounded up. */
#define MLX_HW_CNP_INTERVAL_NS	(4 * NSEC_PER_USEC)

/*
 * Answers a CE-marked packet of a connected QP with a CNP to its peer QP:
 * BTH with opcode CNP, the peer's QP number, PSN 0 and no AckReq, then 16
 * reserved bytes (A17.9.3).  A QP sends at most one per interval, which
 * the responder and the completer share: a race between them sends one
 * more, which does no harm.  Lost CNPs are not sent again.
 */
void mlx_hw_ecn_answer(struct mlx_hw_qp *qp, const struct mlx_hw_rx *marked)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_av av;
	struct sk_buff *skb;
	u64 now;

	if (!(marked->pkt.flags & MLX_HW_PKT_CE) ||
	    !mlx_hw_qp_reliable(qp->ibx.qp_type))
		return;
	now = ktime_get_ns();
	if (now < READ_ONCE(qp->cnp_next_ns))
		return;
	WRITE_ONCE(qp->cnp_next_ns, now + MLX_HW_CNP_INTERVAL_NS);
	skb = mlx_hw_pkt_alloc(qp, MLX_HW_OPC_CNP, 0, false);
	if (!skb)
		return;
	mlx_hw_pkt_bth(skb, qp, qp->dest_qpn, false, false, 0);
	mlx_hw_qp_av(qp, &av);
	if (!mlx_hw_pkt_xmit(qp, &av, skb))
		mlx_hw_count(dev, MLX_HW_CNT_CNP_SENT, 1);
}
