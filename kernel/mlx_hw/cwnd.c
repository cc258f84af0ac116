// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cwnd.c - the congestion window of a reliable requester (docs/wire.md
 * 14.3.1): how many PSNs it may have sent and not seen acknowledged, and
 * where it asks for an ACK.  A leaf: req.c asks it for room, comp.c tells it
 * of progress and loss; it calls neither back.  The send side owned;
 * `rdma res show qp -dd` reads it without.
 *
 * A link without flow control (a virtual NIC, a socket between two QEMUs,
 * a netem qdisc) drops what overflows its buffers, and go-back-N answers
 * each loss by sending the whole window behind it again: a fixed window
 * larger than the buffers loses part of every retransmission, and enough
 * fruitless ACK timeouts in a row end the QP with RETRY_EXC_ERR.  So the
 * window follows TCP's rule (RFC 5681): it starts at its ceiling, as a
 * fixed window would; a loss, found by a NAK or by the ACK timer, halves
 * it, down to a floor of 8; below the threshold of the last loss it grows by
 * each PSN acknowledged, above it by one PSN per window acknowledged.  A
 * CNP (ecn.c) halves it too, once per window.  After an RNR wait, one
 * packet probes the responder before the window goes out again.
 */
#include "mlx_hw.h"

static unsigned int tx_window_max = MLX_HW_MAX_UNACKED_PSNS;

static int mlx_hw_set_tx_window_max(const char *val,
				    const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, MLX_HW_CWND_MIN,
				     MLX_HW_MAX_UNACKED_PSNS);
}

static const struct kernel_param_ops mlx_hw_tx_window_max_ops = {
	.set = mlx_hw_set_tx_window_max,
	.get = param_get_uint,
};
module_param_cb(tx_window_max, &mlx_hw_tx_window_max_ops, &tx_window_max,
		0644);
MODULE_PARM_DESC(tx_window_max,
		 "most PSNs a reliable QP leaves unacknowledged (8..128, default 128)");

/* The ceiling now: the parameter may change under running QPs. */
static u32 mlx_hw_cwnd_max(void)
{
	return READ_ONCE(tx_window_max);
}

/* The window in force: the ceiling may have been lowered since it grew. */
static u32 mlx_hw_cwnd_pkts(struct mlx_hw_qp *qp)
{
	return min(qp->req.cwnd.pkts, mlx_hw_cwnd_max());
}

/* What may be out now: the window, or the probe after an RNR wait. */
static u32 mlx_hw_cwnd_send_limit(struct mlx_hw_qp *qp)
{
	return qp->req.cwnd.rnr_probe ? 1 : mlx_hw_cwnd_pkts(qp);
}

/* A new connection starts with the whole window (RESET, creation). */
void mlx_hw_cwnd_reset(struct mlx_hw_qp *qp)
{
	struct mlx_hw_cwnd *cw = &qp->req.cwnd;

	cw->pkts = mlx_hw_cwnd_max();
	cw->ssthresh = cw->pkts;
	cw->acked = 0;
	cw->cnp_psn_valid = false;
	cw->rnr_probe = false;
}

/* May the packet of @psn be sent now? */
bool mlx_hw_cwnd_room(struct mlx_hw_qp *qp, u32 psn)
{
	return mlx_hw_psn_diff(psn, qp->comp.psn) <
	       (int)mlx_hw_cwnd_send_limit(qp);
}

/*
 * How many response PSNs a new READ request from @psn on may ask for, of
 * the @rest its READ still needs (req.c): what the window has room for,
 * so that it bounds READ responses as it bounds a WRITE's packets.  0
 * while that is less than @rest and less than a max_rd_atomic'th share of
 * the window (at least MLX_HW_CWND_MIN), so that the requests a responder
 * takes at once can fill the window; with nothing outstanding, any room.
 */
u32 mlx_hw_cwnd_read_room(struct mlx_hw_qp *qp, u32 psn, u32 rest)
{
	u32 limit = mlx_hw_cwnd_send_limit(qp);
	int out = mlx_hw_psn_diff(psn, qp->comp.psn);
	u32 room = out < (int)limit ? limit - out : 0;
	u32 share = max_t(u32, MLX_HW_CWND_MIN,
			  limit / max_t(u32, 1, qp->max_rd_atomic));

	if (room >= rest)
		return rest;
	return out && room < share ? 0 : room;
}

/*
 * Does the packet of @psn, not the last of its message, ask for an ACK
 * (IBA 9.7.2)?  The one that fills the window must, or the requester would
 * wait for the ACK timer; and one half-way through the window does, so that
 * the ACK for the first half comes back while the second is on its way.
 * Counts the packets since the last AckReq in req.noack_pkts.
 */
bool mlx_hw_cwnd_ackreq(struct mlx_hw_qp *qp, u32 psn)
{
	u32 win = mlx_hw_cwnd_send_limit(qp);
	u32 every = min_t(u32, MLX_HW_PKTS_PER_ACKREQ, max(win / 2, 1u));

	return ++qp->req.noack_pkts >= every ||
	       mlx_hw_psn_diff(psn, qp->comp.psn) + 1 >= (int)win;
}

/* @npsn PSNs were acknowledged for the first time. */
void mlx_hw_cwnd_acked(struct mlx_hw_qp *qp, u32 npsn)
{
	struct mlx_hw_cwnd *cw = &qp->req.cwnd;
	u32 max = mlx_hw_cwnd_max();

	cw->rnr_probe = false;
	if (cw->pkts >= max) {
		cw->pkts = max;
		return;
	}
	if (cw->pkts < cw->ssthresh) {
		/* Slow start: one more per PSN acknowledged. */
		cw->pkts = min(cw->pkts + npsn, cw->ssthresh);
		return;
	}
	/* Congestion avoidance: one more per window acknowledged. */
	cw->acked += npsn;
	if (cw->acked >= cw->pkts) {
		cw->acked -= cw->pkts;
		cw->pkts = min(cw->pkts + 1, max);
	}
}

/* Halves the window (not below the floor) and sets the threshold there. */
static void mlx_hw_cwnd_halve(struct mlx_hw_qp *qp, const char *why)
{
	struct mlx_hw_cwnd *cw = &qp->req.cwnd;
	u32 was = mlx_hw_cwnd_pkts(qp);

	cw->ssthresh = max_t(u32, was / 2, MLX_HW_CWND_MIN);
	cw->pkts = cw->ssthresh;
	cw->acked = 0;
	if (cw->pkts < was)
		mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_CWND_SHRINKS, 1);
	mlx_hw_qp_dbg(qp, "cwnd %u -> %u (%s)\n", was, cw->pkts, why);
}

/*
 * A loss: the completer is about to go back (a NAK, a response that shows
 * one lost, or the ACK timer).  Halve the window.  Not TCP's collapse to
 * the floor on a timeout: the timer here is the QP's ACK timeout, often
 * hundreds of milliseconds, and regrowing from 8 PSNs after it, a round
 * trip per doubling, made a loaded host's completions wait seconds
 * (tests/load/load.vmtest failed 3 of 5, then passed 3 of 3).
 */
void mlx_hw_cwnd_loss(struct mlx_hw_qp *qp, bool timeout)
{
	mlx_hw_cwnd_halve(qp, timeout ? "timeout" : "nak");
}

/*
 * An RNR NAK: the responder takes nothing from the NAKed PSN on until it is
 * ready (IBA 9.7.5.2.8: it drops the packets behind the NAK), and it may
 * still not be when the timer ends: a receive queue still empty, an ODP
 * fault not done or its pages taken away again.  Sending the whole window
 * after each wait would lose all of it each time, and the NAK for the next
 * try would queue behind the lost packets at the responder.  So the first
 * packet after the wait goes alone and asks for an ACK; the window, which
 * the NAK did not shrink (not congestion), opens when it is acknowledged.
 * Costs one round trip per RNR wait.
 */
void mlx_hw_cwnd_rnr(struct mlx_hw_qp *qp)
{
	qp->req.cwnd.rnr_probe = true;
}

/*
 * A CNP: the peer saw our packets marked CE (ecn.c).  Halve the window, as
 * for a loss, but once per window of PSNs (RFC 3168 6.1.2: one reduction
 * per round trip): the CNPs for packets sent before the last reduction
 * tell of the congestion it already answered.
 */
void mlx_hw_cwnd_cnp(struct mlx_hw_qp *qp)
{
	struct mlx_hw_cwnd *cw = &qp->req.cwnd;
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);

	if (cw->cnp_psn_valid && mlx_hw_psn_diff(qp->comp.psn, cw->cnp_psn) < 0) {
		mlx_hw_count(dev, MLX_HW_CNT_CNP_IGNORED, 1);
		return;
	}
	mlx_hw_count(dev, MLX_HW_CNT_CNP_HANDLED, 1);
	cw->cnp_psn = qp->req.psn_max;
	cw->cnp_psn_valid = true;
	mlx_hw_cwnd_halve(qp, "cnp");
}

/* The PSNs a requester has out unacknowledged; read without owning. */
static u32 mlx_hw_cwnd_unacked(struct mlx_hw_qp *qp)
{
	return (READ_ONCE(qp->req.psn_max) - READ_ONCE(qp->comp.psn)) &
	       MLX_HW_PSN_MASK;
}

/*
 * hw_counters' tx_window_smallest, a gauge: the smallest window in force
 * among the device's reliable requesters that have PSNs out
 * unacknowledged (an idle QP keeps the window of its last loss), 0 when
 * none has.  Walks the QP table under its lock: a QP is erased from it
 * before it is freed (qp.c), so none goes away while it is read.
 */
u32 mlx_hw_cwnd_smallest(struct mlx_hw_dev *dev)
{
	u32 smallest = 0, win;
	struct mlx_hw_qp *qp;
	unsigned long qpn;

	xa_lock_bh(&dev->qp_xa);
	xa_for_each(&dev->qp_xa, qpn, qp) {
		if ((qp->ibx.qp_type != IB_UVERBS_QPT_RC &&
		     qp->ibx.qp_type != IB_UVERBS_QPT_XRC_INI) ||
		    !mlx_hw_cwnd_unacked(qp))
			continue;
		win = min(READ_ONCE(qp->req.cwnd.pkts), mlx_hw_cwnd_max());
		if (!smallest || win < smallest)
			smallest = win;
	}
	xa_unlock_bh(&dev->qp_xa);
	return smallest;
}

/*
 * `rdma res show qp -dd` (ops->fill_res_qp_entry): a requester's window in
 * force, its threshold, the PSNs it has out unacknowledged and the
 * retries it has spent since the last progress.  Read without owning:
 * a snapshot, which the next packet may change.
 */
int mlx_hw_fill_res_qp_entry(struct sk_buff *msg, struct ibx_qp *ibqp)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);

	if (ibqp->qp_type != IB_UVERBS_QPT_RC &&
	    ibqp->qp_type != IB_UVERBS_QPT_XRC_INI)
		return 0;
	if (ibx_nl_put_driver_u32(msg, "tx_window",
				  min(READ_ONCE(qp->req.cwnd.pkts),
				      mlx_hw_cwnd_max())) ||
	    ibx_nl_put_driver_u32(msg, "tx_ssthresh",
				  READ_ONCE(qp->req.cwnd.ssthresh)) ||
	    ibx_nl_put_driver_u32(msg, "tx_unacked",
				  mlx_hw_cwnd_unacked(qp)) ||
	    ibx_nl_put_driver_u32(msg, "retries", READ_ONCE(qp->comp.retries)))
		return -EMSGSIZE;
	return 0;
}
