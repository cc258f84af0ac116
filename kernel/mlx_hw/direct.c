// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * direct.c - the device's internal loopback: a segment of a SEND or RDMA
 * WRITE for a QP of this host goes to that QP's responder without a
 * packet.  The requester (req.c) writes the headers the packet would
 * carry into a buffer and points at its payload in the sender's buffers;
 * the responder runs its state machine on that, in the requester's
 * context, and copies the payload straight from the sender's memory into
 * the receive buffers or the WRITE's target: one copy, no sk_buff, no IP
 * or UDP header, no queue.  Its ACK or NAK goes back the same way
 * (resp_tx.c), into the requester's mailbox (qp->comp.direct), which the
 * completer takes before the requester sends on (comp.c).
 *
 * The responder executes exactly what a packet would make it execute, so
 * the semantics are the packet path's; this is only a shorter way there.
 * It is taken only where the packet path would deliver at once and in
 * order: the responder's receive side free to take here and now, nothing
 * queued before the segment, the PSN the one expected.  Otherwise the
 * segment goes as a packet, and so do READ and atomic requests (their
 * answers carry data), datagrams (UD has a GRH to build), XRC, and
 * everything while the loopback injects faults, which the reliability
 * tests run on.  An ODP source page that is invalidated between the
 * requester's page check and the responder's copy undoes the segment at
 * the responder, and it goes as a packet, whose build finds the page
 * missing and waits for its fault as any packet does (req.c).
 *
 * The requester owns its send side; taking the responder's receive side
 * is only tried (side.c), so two QPs sending to each other at once never
 * wait for each other: whichever finds the other's side taken sends a
 * packet.
 */
#include <linux/moduleparam.h>
#include "mlx_hw.h"
#include "responder.h"

static bool lo_direct = true;
module_param(lo_direct, bool, 0644);
MODULE_PARM_DESC(lo_direct, "hand SEND and WRITE segments to QPs of this host without packets");

/*
 * Whether @qp sends @w directly where it can (its segments still go as
 * packets where the responder is not ready): SEND and WRITE of RC and UC,
 * while the loopback injects no faults.
 */
bool mlx_hw_direct_sends(struct mlx_hw_qp *qp, const struct mlx_hw_swqe *w)
{
	u32 type = qp->ibx.qp_type;

	if (type != IB_UVERBS_QPT_RC && type != IB_UVERBS_QPT_UC)
		return false;
	switch (w->opcode) {
	case MLX_HW_OP_SEND:
	case MLX_HW_OP_SEND_IMM:
	case MLX_HW_OP_SEND_INV:
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
		break;
	default:
		return false;
	}
	return READ_ONCE(lo_direct) && !mlx_hw_loopback_faults();
}

/*
 * What recv.c checks of a packet for @peer, and what the packet path would
 * deliver at once: a state that takes requests (IBA 10.3.1), the same
 * transport, the address of its path (apm.c: also what MigReq says), and a
 * responder with nothing queued or under way before this segment, which
 * is the PSN it expects.  The receive side owned.
 */
static bool mlx_hw_direct_ready(struct mlx_hw_qp *peer, struct mlx_hw_qp *from,
				const struct mlx_hw_av *av,
				const struct mlx_hw_rx *rx)
{
	struct mlx_hw_resp_side *r = &peer->resp;
	int state = READ_ONCE(peer->state);

	mlx_hw_side_assert_owned(&peer->recv_side);
	if ((state != IBX_QPS_RTR && state != IBX_QPS_RTS &&
	     state != IBX_QPS_SQD) ||
	    peer->ibx.qp_type != from->ibx.qp_type)
		return false;
	if (!skb_queue_empty(&peer->resp_pkts) || r->read || r->nak_sent ||
	    r->wait_until || r->psn != rx->pkt.psn)
		return false;
	return !mlx_hw_apm_rcv(peer, &av->sgid, mlx_hw_bth_mig(rx->hdr));
}

/*
 * Executes the request segment @rx of @from at the QP of this host it is
 * for (@av names its device), if that QP's responder is ready for it;
 * true if it was executed (its answer is in from->comp.direct), false if
 * the segment must go as a packet.  The send side of @from owned.
 */
bool mlx_hw_direct_deliver(struct mlx_hw_qp *from, const struct mlx_hw_av *av,
			   const struct mlx_hw_rx *rx)
{
	struct mlx_hw_dev *dev = NULL;
	struct mlx_hw_qp *peer = NULL;
	bool done = false;

	mlx_hw_side_assert_owned(&from->send_side);
	rcu_read_lock();
	dev = mlx_hw_local_dev(to_mdev(from->ibx.dev), &av->dgid, true);
	if (dev)
		peer = mlx_hw_qp_get(dev, rx->pkt.qpn);
	rcu_read_unlock();
	if (!peer)
		return false;
	if (!mlx_hw_side_begin(&peer->recv_side))
		goto out;
	if (mlx_hw_direct_ready(peer, from, av, rx)) {
		mlx_hw_qp_dbg(from, "direct %s psn %u qpn %u len %u\n",
			      mlx_hw_opcode[rx->pkt.opcode].name, rx->pkt.psn,
			      rx->pkt.qpn, rx->pkt.paylen);
		peer->resp.answer_to = from;
		/* False: an ODP source page unmapped under the copy. */
		done = mlx_hw_resp_request(peer, rx);
		mlx_hw_resp_flush_ack(peer);
		peer->resp.answer_to = NULL;
		/* As after a responder's run: nothing pins an MR between. */
		mlx_hw_sgl_park(&peer->resp.rwqe);
		mlx_hw_sgl_park(&peer->resp.wr_dst);
	}
	if (done) {
		mlx_hw_direct_count(to_mdev(from->ibx.dev), dev, rx, false);
		mlx_hw_count(dev, MLX_HW_CNT_DIRECT_SEGMENTS, 1);
	}
	/*
	 * Work offered to it meanwhile (packets, a WAKE of its own process,
	 * a fault) runs as a packet's would: here if this context may go one
	 * level down, else by its owner or the run list.  Scheduled from here
	 * always, it woke the thread for up to one in six messages of a
	 * loopback ping-pong.
	 */
	if (mlx_hw_side_end(&peer->recv_side, false))
		mlx_hw_qp_offer(peer, false);
out:
	mlx_hw_qp_put(peer);
	return done;
}
