// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qp_data.c - what the data path asks of a QP, below the layers that ask:
 * the per-QP timer (ACK timeout, RNR wait, congestion back-off), the state
 * changes the device makes on its own (ERR), and the address vectors of
 * its paths, which modify (qp.c) and path migration (apm.c) rewrite.
 */
#include <linux/etherdevice.h>
#include <net/ipv6.h>
#include "mlx_hw.h"

/* The earliest deadline set (ACK timeout, RNR wait, back-off), 0 if none. */
static u64 mlx_hw_qp_next_deadline(struct mlx_hw_qp *qp)
{
	return min_not_zero(min_not_zero(READ_ONCE(qp->comp.timeout_at),
					 READ_ONCE(qp->req.wait_until)),
			    READ_ONCE(qp->resp.wait_until));
}

/*
 * The timer only puts the QP on the run list; the engine checks why.  The
 * data path moves deadlines later without moving the timer (comp.c stops
 * cancelling it: two hrtimer calls per message of a ping-pong), so the
 * timer often fires before any deadline is due.  It then sets itself for
 * the earliest one again here, in the timer's own context: scheduling the
 * QP for that woke the engine thread once per ACK timeout of every busy
 * QP, and each such wake-up takes a vCPU a polling application holds.
 * With no deadline left it wakes nobody.
 */
static enum hrtimer_restart mlx_hw_qp_timer_fn(struct hrtimer *timer)
{
	struct mlx_hw_qp *qp = container_of(timer, struct mlx_hw_qp, timer);
	unsigned long flags;
	bool later;
	u64 next;

	spin_lock_irqsave(&qp->timer_lock, flags);
	WRITE_ONCE(qp->timer_at, 0);
	/*
	 * timer_at cleared before the deadlines are read: pairs with the
	 * barrier in mlx_hw_qp_arm_timer() between a deadline's store and
	 * its look at timer_at, so that either this sees the deadline or the
	 * arming sees the timer gone (or set later than it needs, below:
	 * the lock orders that) and starts it again.
	 */
	smp_mb();
	next = mlx_hw_qp_next_deadline(qp);
	later = next && next > ktime_get_ns();
	if (later) {
		WRITE_ONCE(qp->timer_at, next);
		hrtimer_set_expires(timer, ns_to_ktime(next));
	}
	spin_unlock_irqrestore(&qp->timer_lock, flags);
	if (later)
		return HRTIMER_RESTART;
	if (next)
		mlx_hw_qp_schedule_for(qp, MLX_HW_KICK_TIMER);
	return HRTIMER_NORESTART;
}

/*
 * Makes the engine run the QP at ktime ns @deadline at the latest.  One
 * timer serves every deadline: it is moved only earlier, and the service
 * it triggers arms it again for whatever is still pending.
 */
void mlx_hw_qp_arm_timer(struct mlx_hw_qp *qp, u64 deadline)
{
	unsigned long flags;
	u64 armed;

	/*
	 * Pending for this deadline or an earlier one: nothing to do (the
	 * case of every message of a stream).  The caller's deadline store
	 * before the look at timer_at: pairs with the barrier in
	 * mlx_hw_qp_timer_fn(), so a timer seen here just before it expires
	 * sees the deadline and schedules the run that arms it again.
	 */
	smp_mb();
	armed = READ_ONCE(qp->timer_at);
	if (armed && armed <= deadline)
		return;
	spin_lock_irqsave(&qp->timer_lock, flags);
	if (!qp->timer_at || deadline < qp->timer_at) {
		WRITE_ONCE(qp->timer_at, deadline);
		hrtimer_start(&qp->timer, ns_to_ktime(deadline),
			      HRTIMER_MODE_ABS);
	}
	spin_unlock_irqrestore(&qp->timer_lock, flags);
}

void mlx_hw_qp_timer_init(struct mlx_hw_qp *qp)
{
	spin_lock_init(&qp->timer_lock);
	hrtimer_init(&qp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	qp->timer.function = mlx_hw_qp_timer_fn;
}

/*
 * Sets the state the data path reads.  In ERR the flush must see every
 * receive posted from then on, so the provider is told to ring for RQ
 * posts (MLX_HW_QP_DB_RING_RQ; RESET zeroes the doorbell record again).
 */
static void mlx_hw_qp_ring_rq_in_err(struct mlx_hw_qp *qp)
{
	if (qp->rq)
		WRITE_ONCE(qp->db->flags, cpu_to_le32(MLX_HW_QP_DB_RING_RQ));
}

void mlx_hw_qp_set_state(struct mlx_hw_qp *qp, int state)
{
	WRITE_ONCE(qp->state, state);
	if (state == IBX_QPS_ERR)
		mlx_hw_qp_ring_rq_in_err(qp);
}

/*
 * Moves a QP to ERR from the data path; the engine flushes its queues.
 * Both sides may fail at once, in two contexts: one of them moves the QP,
 * and only that one returns true.
 */
bool mlx_hw_qp_to_err(struct mlx_hw_qp *qp)
{
	int old = READ_ONCE(qp->state);

	do {
		if (old == IBX_QPS_ERR)
			return false;
	} while (!try_cmpxchg(&qp->state, &old, IBX_QPS_ERR));
	mlx_hw_qp_ring_rq_in_err(qp);
	/* QUERY_QP must report the state the QP is really in. */
	WRITE_ONCE(qp->ibx.attr.qp_state, IBX_QPS_ERR);
	mlx_hw_qp_schedule(qp);
	return true;
}

/* An error with an affiliated event: ERR, then the event, once. */
void mlx_hw_qp_fatal(struct mlx_hw_qp *qp, enum ibx_event_type event)
{
	if (mlx_hw_qp_to_err(qp))
		ibx_qp_event(&qp->ibx, event);
}

/*
 * Validates a user producer index against a private consumer index; an
 * impossible one is a catastrophic error of the QP (docs/prm.md 8).
 */
bool mlx_hw_db_ok(struct mlx_hw_qp *qp, u32 pi, u32 ci, u32 cnt)
{
	if (pi - ci <= cnt)
		return true;
	if (!qp->db_corrupt) {
		qp->db_corrupt = true;
		mlx_hw_qp_fatal(qp, IBX_EVENT_QP_FATAL);
	}
	return false;
}

/*
 * Resolves an address vector: the source GID from the table, IPv4 or
 * IPv6, whether the destination is a device of this host, and the UDP
 * source port, from the flow label or, without one, from a hash of the
 * two QP numbers, as upstream does (so that ECMP spreads connections but
 * keeps each on one path).  -ENOENT if the source GID is not set: packets
 * to this vector then have no route.
 */
int mlx_hw_av_set(struct mlx_hw_dev *dev, struct mlx_hw_av *av,
		  u8 sgid_index, const union ibx_gid *dgid, u8 traffic_class,
		  u8 hop_limit, u32 flow_label, u32 lqpn, u32 rqpn,
		  const u8 *dmac)
{
	u32 fl = flow_label & 0xfffff;
	u64 h;
	int err;

	memset(av, 0, sizeof(*av));
	av->dgid = *dgid;
	av->traffic_class = traffic_class;
	av->hop_limit = hop_limit;
	av->flow_label = fl;
	if (dmac && !is_multicast_ether_addr(dmac))
		ether_addr_copy(av->dmac, dmac);
	err = mlx_hw_dev_get_gid(dev, sgid_index, &av->sgid);
	av->ipv4 = ipv6_addr_v4mapped((struct in6_addr *)av->sgid.raw) &&
		   ipv6_addr_v4mapped((struct in6_addr *)dgid->raw);
	av->loopback = mlx_hw_gid_is_local(dev, dgid);
	if (!fl) {
		h = (u64)lqpn * rqpn;
		h ^= h >> 20;
		h ^= h >> 40;
		fl = h & 0xfffff;
	}
	/* RoCEv2 source ports are 0xc000..0xffff (IANA dynamic range). */
	av->sport = 0xc000 | ((fl ^ (fl >> 14)) & 0x3fff);
	return err;
}

/* A copy of the primary path's address vector, consistent (path_seq). */
void mlx_hw_qp_av(struct mlx_hw_qp *qp, struct mlx_hw_av *av)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&qp->path_seq);
		*av = qp->av;
	} while (read_seqcount_retry(&qp->path_seq, seq));
}

/* Starts a change of the paths (model.h); any context. */
void mlx_hw_path_write_begin(struct mlx_hw_qp *qp)
{
	spin_lock_bh(&qp->path_lock);
	write_seqcount_begin(&qp->path_seq);
}

void mlx_hw_path_write_end(struct mlx_hw_qp *qp)
{
	write_seqcount_end(&qp->path_seq);
	spin_unlock_bh(&qp->path_lock);
}
