// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * resp_tx.c - what a responder sends back: ACKs (coalesced) and NAKs,
 * atomic ACKs, and READ responses, packet by packet within a budget,
 * resolving the R_Key again for each (the region may go away between
 * them); and the answers to duplicate requests (IBA 9.9.2.1).  The answer
 * to a request handed over directly (direct.c) goes into its requester's
 * mailbox instead of a packet.  With qp->recv_side owned.
 */
#include <linux/ktime.h>
#include "mlx_hw.h"
#include "responder.h"

/* Counts @rx, handed over directly, as the packet it stands for, at both ends. */
void mlx_hw_direct_count(struct mlx_hw_dev *src, struct mlx_hw_dev *dst,
				const struct mlx_hw_rx *rx, bool ack)
{
	mlx_hw_count(src, ack ? MLX_HW_CNT_TX_ACKS : MLX_HW_CNT_TX_REQUESTS, 1);
	mlx_hw_count(src, MLX_HW_CNT_TX_PACKETS, 1);
	mlx_hw_count(src, MLX_HW_CNT_TX_BYTES, rx->pkt.paylen);
	mlx_hw_count(dst, ack ? MLX_HW_CNT_RX_ACKS : MLX_HW_CNT_RX_REQUESTS, 1);
	mlx_hw_count(dst, MLX_HW_CNT_RX_PACKETS, 1);
	mlx_hw_count(dst, MLX_HW_CNT_RX_BYTES, rx->pkt.paylen);
}

/*
 * A responder's ACK or NAK for the direct request it is executing: into
 * the requester's mailbox, the latest replacing any earlier one.  The
 * requester's send side is owned by the context that runs this.
 */
static void mlx_hw_direct_answer(struct mlx_hw_qp *qp, u8 syndrome, u32 psn,
			  u32 msn)
{
	struct mlx_hw_qp *to = qp->resp.answer_to;
	struct mlx_hw_rx ack = {};
	enum mlx_hw_counter why;
	struct mlx_hw_av av;

	mlx_hw_side_assert_owned(&to->send_side);
	mlx_hw_qp_dbg(qp, "direct answer 0x%x psn %u\n", syndrome, psn);
	/* What recv.c checks of an ACK: it comes from the peer's address. */
	mlx_hw_qp_av(qp, &av);
	why = mlx_hw_apm_rcv(to, &av.sgid, mlx_hw_apm_migreq(qp));
	if (why) {
		mlx_hw_count(to_mdev(to->ibx.dev), why, 1);
		return;
	}
	to->comp.direct.syndrome = syndrome;
	to->comp.direct.psn = psn;
	to->comp.direct.msn = msn;
	to->comp.direct.valid = true;
	mlx_hw_direct_count(to_mdev(qp->ibx.dev), to_mdev(to->ibx.dev), &ack,
			    true);
}

/*
 * An ACK or NAK (AETH @syndrome, @msn) for PSN @psn: a packet, or for a
 * request handed over directly the answer in its requester's mailbox.
 */
static void mlx_hw_resp_send_aeth(struct mlx_hw_qp *qp, u8 syndrome, u32 psn,
				  u32 msn)
{
	u8 tp = mlx_hw_qp_transport(qp->ibx.qp_type);
	struct mlx_hw_av av;
	struct sk_buff *skb;

	if (qp->resp.answer_to) {
		mlx_hw_direct_answer(qp, syndrome, psn, msn);
		return;
	}
	skb = mlx_hw_pkt_alloc(qp, tp | MLX_HW_OPC_ACK, 0, false);
	if (!skb)
		return;		/* as if lost: the requester times out */
	mlx_hw_aeth_set(mlx_hw_pkt_hdr(skb, MLX_HW_AETH), syndrome, msn);
	mlx_hw_pkt_bth(skb, qp, qp->dest_qpn, false, false, psn);
	mlx_hw_qp_av(qp, &av);
	mlx_hw_pkt_xmit(qp, &av, skb);
}

/* An ACK or NAK (AETH @syndrome) for PSN @psn, the MSN of now. */
void mlx_hw_resp_send_ack(struct mlx_hw_qp *qp, u8 syndrome, u32 psn)
{
	mlx_hw_resp_send_aeth(qp, syndrome, psn, qp->resp.msn);
}

/*
 * Sends the coalesced ACK, if one is due, before any other response: for
 * the PSN ack_guard.c allows, with the MSN of the messages done up to it.
 */
void mlx_hw_resp_flush_ack(struct mlx_hw_qp *qp)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	u32 msn = r->msn, psn;

	if (!r->ack_pending)
		return;
	r->ack_pending = false;
	psn = mlx_hw_ackg_psn(qp, r->ack_psn, r->ack_floor, &msn);
	mlx_hw_resp_send_aeth(qp, MLX_HW_AETH_ACK | MLX_HW_AETH_NO_CREDIT,
			      psn, msn);
}

void mlx_hw_resp_send_atomic_ack(struct mlx_hw_qp *qp, u32 psn,
					u64 orig)
{
	u8 tp = mlx_hw_qp_transport(qp->ibx.qp_type);
	struct mlx_hw_av av;
	struct sk_buff *skb;

	/* Only SEND and WRITE segments are handed over directly. */
	WARN_ON_ONCE(qp->resp.answer_to);
	mlx_hw_resp_flush_ack(qp);
	skb = mlx_hw_pkt_alloc(qp, tp | MLX_HW_OPC_ATOMIC_ACK, 0,
			       false);
	if (!skb)
		return;
	mlx_hw_aeth_set(mlx_hw_pkt_hdr(skb, MLX_HW_AETH),
			MLX_HW_AETH_ACK | MLX_HW_AETH_NO_CREDIT, qp->resp.msn);
	mlx_hw_atmack_set(mlx_hw_pkt_hdr(skb, MLX_HW_ATMACK), orig);
	mlx_hw_pkt_bth(skb, qp, qp->dest_qpn, false, false, psn);
	mlx_hw_qp_av(qp, &av);
	mlx_hw_pkt_xmit(qp, &av, skb);
}

/* The opcode of response packet @i of @n (as rxe: resuming = MIDDLE). */
static u8 mlx_hw_read_resp_opcode(struct mlx_hw_qp *qp, u32 i, u32 n)
{
	u8 op;

	if (n == 1)
		op = MLX_HW_OPC_READ_RESP_ONLY;
	else if (i == 0)
		op = MLX_HW_OPC_READ_RESP_FIRST;
	else if (i == n - 1)
		op = MLX_HW_OPC_READ_RESP_LAST;
	else
		op = MLX_HW_OPC_READ_RESP_MIDDLE;
	return mlx_hw_qp_transport(qp->ibx.qp_type) | op;
}

/*
 * ODP (odp.c): the pages of the READ response to send are not mapped.  The
 * stream stops while the rest of the READ is faulted in (the worker runs
 * the QP again): -EAGAIN; or -EACCES if that fault could not map them.
 */
static int mlx_hw_resp_read_fault(struct mlx_hw_qp *qp,
				  const struct mlx_hw_sgl *rest)
{
	return mlx_hw_odp_wait(qp, &qp->resp.odp_fault, rest, 0,
			       rest->total) == -EFAULT ? -EACCES : -EAGAIN;
}

/*
 * Sends the next READ response packet of resp.read.  Returns 0, -ENOBUFS
 * (try again later), -EAGAIN (ODP pages being faulted in) or -EACCES (the
 * key no longer grants the range).
 */
static int mlx_hw_resp_read_pkt(struct mlx_hw_qp *qp, struct mlx_hw_res *res)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	u32 n = mlx_hw_psn_diff(res->read.end_psn, res->first_psn) + 1;
	u32 i = mlx_hw_psn_diff(res->read.next_psn, res->first_psn);
	u32 off = i * qp->mtu, len = min(qp->mtu, res->read.length - off);
	struct mlx_hw_sgl *src = &qp->resp_scratch; /* wr_dst may hold a WRITE */
	struct mlx_hw_cursor cur;
	struct mlx_hw_av av;
	struct sk_buff *skb;
	bool zcopy;
	int err = 0;

	/* The rest of the READ: an ODP fault maps all of it at once. */
	mlx_hw_sgl_init(src);
	if (len && mlx_hw_sgl_set_remote(dev, qp, src, res->read.rkey,
					 res->read.va + off,
					 res->read.length - off,
					 IB_UVERBS_ACCESS_REMOTE_READ))
		return -EACCES;
	if (len && !mlx_hw_sgl_mapped(src, 0, len)) {
		err = mlx_hw_resp_read_fault(qp, src);
		goto out;
	}
	mlx_hw_cursor_init(&cur, src);
	mlx_hw_qp_av(qp, &av);
	zcopy = av.loopback && len && mlx_hw_can_zcopy(&cur, len);
	skb = mlx_hw_pkt_alloc(qp, mlx_hw_read_resp_opcode(qp, i, n),
			       len, zcopy);
	if (!skb) {
		err = -ENOBUFS;
		goto out;
	}
	if (mlx_hw_pkt(skb)->mask & MLX_HW_M_AETH)
		mlx_hw_aeth_set(mlx_hw_pkt_hdr(skb, MLX_HW_AETH),
				MLX_HW_AETH_ACK | MLX_HW_AETH_NO_CREDIT,
				qp->resp.msn);
	err = len ? mlx_hw_skb_add_data(skb, &cur, len, zcopy) : 0;
	if (err) {
		kfree_skb(skb);
		err = err == -EAGAIN ? mlx_hw_resp_read_fault(qp, src) :
				       -EACCES;
		goto out;
	}
	mlx_hw_pkt_bth(skb, qp, qp->dest_qpn, false, false,
		       res->read.next_psn);
	err = mlx_hw_pkt_xmit(qp, &av, skb);
out:
	mlx_hw_sgl_release(src);
	return err;
}

/*
 * Sends READ responses within @budget packets.  True when the READ is
 * answered (or failed), false when it must go on later.
 */
static bool mlx_hw_resp_read_burst(struct mlx_hw_qp *qp,
				   struct mlx_hw_res *res,
				   unsigned int *budget)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	int err;

	while (*budget) {
		err = mlx_hw_resp_read_pkt(qp, res);
		if (err == -ENOBUFS) {
			r->wait_until = ktime_get_ns() + 50 * NSEC_PER_USEC;
			mlx_hw_qp_arm_timer(qp, r->wait_until);
			return false;
		}
		if (err == -EAGAIN)	/* the ODP worker runs the QP again */
			return false;
		if (err) {
			/* IBA 9.7.5.2.4: the range became inaccessible. */
			r->read = NULL;
			mlx_hw_resp_send_ack(qp, MLX_HW_AETH_NAK |
					     MLX_HW_NAK_REM_ACCESS,
					     res->read.next_psn);
			mlx_hw_qp_fatal(qp, IBX_EVENT_QP_ACCESS_ERR);
			return true;
		}
		(*budget)--;
		if (res->read.next_psn == res->read.end_psn) {
			r->read = NULL;
			return true;
		}
		res->read.next_psn = mlx_hw_psn_add(res->read.next_psn, 1);
	}
	return false;
}

/* The READ responses due, within @budget; see mlx_hw_resp_read_burst(). */
bool mlx_hw_resp_read_send(struct mlx_hw_qp *qp, unsigned int *budget)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	struct mlx_hw_res *res = r->read;
	bool done;

	/* XRC: the R_Key is checked against the PD of the request's SRQ. */
	if (qp->ibx.qp_type == IB_UVERBS_QPT_XRC_TGT)
		r->xsrq = mlx_hw_srq_get(to_mdev(qp->ibx.dev),
					 res->xrc_srqn);
	done = mlx_hw_resp_read_burst(qp, res, budget);
	mlx_hw_resp_put_xrc_srq(qp);
	return done;
}

/* The resource a duplicate READ or atomic of PSN @psn asks for again. */
static struct mlx_hw_res *mlx_hw_resp_find_res(struct mlx_hw_qp *qp, u32 psn,
					       enum mlx_hw_res_type type)
{
	struct mlx_hw_res *res;
	u32 i;

	for (i = 0; i < qp->resp.res_cnt; i++) {
		res = &qp->resp.res[i];
		if (res->type == type &&
		    mlx_hw_psn_diff(psn, res->first_psn) >= 0 &&
		    mlx_hw_psn_diff(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

/*
 * IBA 9.9.2.1: a duplicate SEND or WRITE is acknowledged again (newest
 * PSN done), a duplicate READ executed again from the PSN it asks for to
 * the end it asks for (within the READ it repeats, as rxe: a requester that
 * splits a READ asks again for one of its parts), a duplicate atomic
 * answered from its saved result.
 */
enum mlx_hw_resp_state mlx_hw_resp_duplicate(struct mlx_hw_qp *qp,
					     const struct mlx_hw_rx *rx)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_resp_side *r = &qp->resp;
	struct mlx_hw_res *res;
	u32 n;

	if (pkt->mask & MLX_HW_M_READ) {
		res = mlx_hw_resp_find_res(qp, pkt->psn, MLX_HW_RES_READ);
		if (!res)
			return MLX_HW_RESP_DROP;
		mlx_hw_resp_flush_ack(qp);
		n = DIV_ROUND_UP(mlx_hw_reth_len(mlx_hw_rx_hdr(rx, MLX_HW_RETH)),
				 qp->mtu);
		res->read.next_psn = pkt->psn;
		res->read.end_psn = mlx_hw_psn_add(pkt->psn, max(n, 1u) - 1);
		if (mlx_hw_psn_diff(res->read.end_psn, res->last_psn) > 0)
			res->read.end_psn = res->last_psn;
		r->read = res;
		return MLX_HW_RESP_CLEANUP;
	}
	if (pkt->mask & MLX_HW_M_ATOMIC) {
		res = mlx_hw_resp_find_res(qp, pkt->psn, MLX_HW_RES_ATOMIC);
		if (!res)
			return MLX_HW_RESP_DROP;
		mlx_hw_resp_send_atomic_ack(qp, pkt->psn, res->atomic.orig);
		return MLX_HW_RESP_CLEANUP;
	}
	/*
	 * The newest PSN taken, but no message end past the duplicate, which
	 * the requester may not have sent again yet (ack_guard.c); an ACK
	 * already due in this pass keeps what it may name.
	 */
	mlx_hw_ackg_duplicate(qp, pkt->psn);
	if (!r->ack_pending || mlx_hw_psn_diff(pkt->psn, r->ack_floor) > 0)
		r->ack_floor = pkt->psn;
	r->ack_pending = true;
	r->ack_psn = mlx_hw_psn_add(r->psn, MLX_HW_PSN_MASK);
	return MLX_HW_RESP_CLEANUP;
}

/*
 * True if the request at the head of the input queue is a duplicate READ
 * for a PSN before the READ response to be sent next.  It takes over the
 * responses under way: the requester lost one of them, or an earlier one,
 * and discards everything after it, so streaming the rest first would
 * only delay the answer it waits for (by a whole MiB at a small MTU).  A
 * duplicate READ for a later PSN (go-back-N sends the READs after the lost
 * one again too) waits its turn.  Only this thread dequeues, so the head
 * stays valid after the lock.
 */
bool mlx_hw_resp_read_restart_queued(struct mlx_hw_qp *qp)
{
	u32 next = qp->resp.read->read.next_psn;
	struct sk_buff *skb;
	unsigned long flags;
	bool restart = false;

	spin_lock_irqsave(&qp->resp_pkts.lock, flags);
	skb = skb_peek(&qp->resp_pkts);
	if (skb)
		restart = (mlx_hw_pkt(skb)->mask & MLX_HW_M_READ) &&
			  mlx_hw_psn_diff(mlx_hw_pkt(skb)->psn, next) < 0;
	spin_unlock_irqrestore(&qp->resp_pkts.lock, flags);
	return restart;
}
