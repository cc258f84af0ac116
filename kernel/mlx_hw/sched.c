// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sched.c - when a QP runs, and in which context.  The run list of a
 * device, which its engine thread (engine.c) and helper threads drain;
 * the runs of a side in the context that has its work (run to completion,
 * docs/prm.md 2.3): a WAKE caller's, the wire's softirq; and the kick and
 * heartbeat of the thread.  What a run does is the engine's, reached
 * through the device's mlx_hw_sched_ops, so this file is a leaf: it calls
 * nothing of the engine's by name, as rxe_task.c calls its task's func,
 * and by name only side.c, which makes a side run in one context at a
 * time.
 */
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>
#include <linux/moduleparam.h>
#include "mlx_hw.h"

unsigned int mlx_hw_spin_us = 50;
module_param_named(spin_us, mlx_hw_spin_us, uint, 0644);
MODULE_PARM_DESC(spin_us, "engine idle spin before sleeping (microseconds)");

/*
 * Records that the thread should look, and why, and wakes it if it sleeps;
 * an awake thread sees the kick at its next look without a trip through
 * the wait queue lock.  Only the first cause since that look is kept: it
 * is the one that woke a sleeping thread.  wq_has_sleeper()'s barrier
 * orders the kick store before the sleeper check, pairing with the one in
 * prepare_to_wait().
 */
void mlx_hw_engine_kick(struct mlx_hw_dev *dev, enum mlx_hw_kick why)
{
	if (!atomic_read(&dev->kick))
		atomic_cmpxchg(&dev->kick, 0, why);
	if (wq_has_sleeper(&dev->engine_wq))
		wake_up(&dev->engine_wq);
}

/*
 * The engine's heartbeat (docs/prm.md 2.4): one more look at the work.
 * The thread and its helpers write it (an increment lost between two of
 * them still moves it); the provider reads it when NEED_WAKEUP is clear,
 * and a heartbeat that stands still for stale_us tells it that the
 * thread, though awake, is not running (its vCPU preempted, its CPU
 * taken), so the post calls WAKE and serves itself.
 */
void mlx_hw_engine_beat(struct mlx_hw_dev *dev)
{
	struct mlx_hw_engine_page *page = dev->engine_page;

	WRITE_ONCE(page->heartbeat,
		   cpu_to_le32(le32_to_cpu(page->heartbeat) + 1));
}

/*
 * Services per pass, so that new doorbells are looked at in between.  A QP
 * already on the run list (an ACK arrived for it) finds the WQEs posted
 * before its run begins by itself, while one that went idle waits for the
 * pass that reads its ring entry; with 256, 64 streaming QPs split into
 * some served every round and others every other round or worse (3.5x
 * apart in tests/hca/fairness.vmtest).  32 keeps the wait for the ring
 * under a quarter of such a round; a pass costs one look per context more.
 */
#define MLX_HW_RUN_BUDGET	32

/* ---------------- the run list ---------------- */

/*
 * Puts @qp on its device's run list (with a reference) so that a pass runs
 * it, kicking the thread for @why if that is needed; from any context.  A
 * QP being run is not queued again but marked to run once more when that
 * run ends, so no two contexts ever run one QP at a time.  A pass under way
 * drains the list before it ends, so only when none is does the thread
 * need a kick.
 */
void mlx_hw_qp_schedule_for(struct mlx_hw_qp *qp, enum mlx_hw_kick why)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	bool kick = false;
	unsigned long flags;

	spin_lock_irqsave(&dev->run_lock, flags);
	if (qp->running) {
		qp->rerun = true;
	} else if (list_empty(&qp->run_node) && mlx_hw_obj_get(&qp->obj)) {
		list_add_tail(&qp->run_node, &dev->run_list);
		kick = !dev->runners;
	}
	spin_unlock_irqrestore(&dev->run_lock, flags);
	if (kick)
		mlx_hw_engine_kick(dev, why);
}

/*
 * Runs an inline context gives one side: the work it found and the answers
 * that work brought back (a loopback ACK, the next READ responses), not a
 * stream that another thread keeps posting to, which would hold the
 * caller's system call (or the softirq, BH off) for as long as it lasts.
 */
#define MLX_HW_INLINE_RUNS	4

/*
 * Runs one side of a QP if no other context does (side.c); one that does
 * runs it again for us.  Work offered during the run is run at once if
 * @to_completion (an inline run; up to MLX_HW_INLINE_RUNS runs), else left
 * for the run list, behind the QPs that wait there (the thread: fairness,
 * docs/prm.md 2.2).  True if the QP must run again later (a flush in
 * progress, work left).
 */
static bool mlx_hw_run_side(struct mlx_hw_qp *qp, struct mlx_hw_side *side,
			    bool (*run)(struct mlx_hw_qp *qp),
			    bool to_completion)
{
	unsigned int runs = 0;
	bool again = false, offered, keep;

	if (!mlx_hw_side_begin(side))
		return false;
	do {
		again |= run(qp);
		keep = to_completion && ++runs < MLX_HW_INLINE_RUNS;
		offered = mlx_hw_side_end(side, keep);
	} while (offered && keep);
	return again || offered;
}

/*
 * Run to completion (docs/prm.md 2.3).  Work runs in the context that has
 * it, without waiting for the thread to win a CPU from the processes that
 * poll: a WAKE caller runs the QPs it rang, the softirq of the wire runs
 * the side a packet is for, and either runs, one level down, the side of
 * a QP of this host its packets reach: the peer's responder of a loopback
 * ping-pong.  Deeper than that, work for a side some context runs (the
 * ACK for the requester below us) is left to that owner, which runs once
 * more, and other work goes on the run list: two QPs that answer each
 * other never recurse.  An inline run has BH off, so the per-CPU depth is
 * its own.  What a run leaves (budgets, a long READ response stream, a
 * flush, timers) goes on the run list.
 */
#define MLX_HW_INLINE_DEPTH	2
static DEFINE_PER_CPU(unsigned int, mlx_hw_inline_depth);

/* Runs what @send (else the receive side) of @qp has; BH off. */
static void mlx_hw_run_inline(struct mlx_hw_qp *qp, bool send)
{
	bool more;

	const struct mlx_hw_sched_ops *ops = to_mdev(qp->ibx.dev)->sched_ops;

	__this_cpu_inc(mlx_hw_inline_depth);
	ops->prepare(qp);
	more = send ? mlx_hw_run_side(qp, &qp->send_side, ops->run_send,
				      true) :
		      mlx_hw_run_side(qp, &qp->recv_side, ops->run_recv,
				      true);
	__this_cpu_dec(mlx_hw_inline_depth);
	if (more)
		mlx_hw_qp_schedule_for(qp, MLX_HW_KICK_LEFTOVER);
}

/* Whether a packet's side may run here (see above). */
static bool mlx_hw_may_run_inline(void)
{
	unsigned int depth;

	if (in_hardirq() || !in_softirq())
		return false;
	depth = __this_cpu_read(mlx_hw_inline_depth);
	return depth ? depth < MLX_HW_INLINE_DEPTH : in_serving_softirq();
}

/*
 * A packet was queued for a side of @qp: a response for the send side
 * (@send), a request for the receive side.  It runs here if this is the
 * wire's softirq or an inline run that may go one level down; else its
 * owner runs it once more, or the QP goes on the run list.  Any context.
 */
void mlx_hw_qp_offer(struct mlx_hw_qp *qp, bool send)
{
	if (mlx_hw_may_run_inline())
		mlx_hw_run_inline(qp, send);
	else if (!mlx_hw_side_again(send ? &qp->send_side : &qp->recv_side))
		mlx_hw_qp_schedule_for(qp, MLX_HW_KICK_OFFER);
}

/*
 * Both sides of @qp run now, in the caller's context (a WAKE caller rang a
 * QP in ERR: the receive side flushes the receives it posted).  Process
 * context.
 */
void mlx_hw_qp_run_here(struct mlx_hw_qp *qp)
{
	local_bh_disable();
	mlx_hw_run_inline(qp, true);
	mlx_hw_run_inline(qp, false);
	local_bh_enable();
}

/*
 * The send side of @qp runs now, in the caller's context, whatever its
 * doorbells (still in the ring, say) have asked so far.  What it leaves
 * goes on the run list.  Process context.
 */
void mlx_hw_qp_send_here(struct mlx_hw_qp *qp)
{
	local_bh_disable();
	mlx_hw_run_inline(qp, true);
	local_bh_enable();
}

/* Runs one QP on the run list: what its state asks of each side. */
static void mlx_hw_service_qp(struct mlx_hw_qp *qp)
{
	const struct mlx_hw_sched_ops *ops = to_mdev(qp->ibx.dev)->sched_ops;
	bool again;

	ops->prepare(qp);
	again = mlx_hw_run_side(qp, &qp->send_side, ops->run_send, false);
	again |= mlx_hw_run_side(qp, &qp->recv_side, ops->run_recv, false);
	/*
	 * Work offered while it ran, and a flush, which works within a
	 * budget and goes on while it makes progress (no doorbell announces
	 * what is left): the QP runs again, behind the others.
	 */
	if (again)
		mlx_hw_qp_schedule(qp);
}

static void mlx_hw_helper_wake(struct mlx_hw_dev *dev);

/*
 * A context starts a pass over the run list (mlx_hw_sched_run() ends it):
 * while one is under way, scheduling a QP kicks nobody, since the pass
 * drains the list before it ends.
 */
void mlx_hw_sched_enter(struct mlx_hw_dev *dev)
{
	spin_lock_irq(&dev->run_lock);
	dev->runners++;
	spin_unlock_irq(&dev->run_lock);
}

/*
 * Runs the QPs of the run list (and a packet loopback held back) until
 * none is left or the budget is spent; ends the pass begun by
 * mlx_hw_sched_enter().  True if it ran any.
 */
bool mlx_hw_sched_run(struct mlx_hw_dev *dev)
{
	unsigned int budget = MLX_HW_RUN_BUDGET;
	struct mlx_hw_qp *qp;
	bool did = false, more;

	for (;;) {
		spin_lock_irq(&dev->run_lock);
		qp = budget ? list_first_entry_or_null(&dev->run_list,
						       struct mlx_hw_qp,
						       run_node) : NULL;
		if (qp) {
			list_del_init(&qp->run_node);
			qp->running = true;
			more = !list_empty(&dev->run_list);
		} else if (!budget || !READ_ONCE(dev->lo_held)) {
			dev->runners--;
			spin_unlock_irq(&dev->run_lock);
			return did;
		}
		spin_unlock_irq(&dev->run_lock);
		if (!qp) {
			dev->sched_ops->flush_held(dev);
			continue;
		}
		/* More QPs wait while this one runs: a helper takes some. */
		if (more)
			mlx_hw_helper_wake(dev);
		mlx_hw_service_qp(qp);
		mlx_hw_engine_beat(dev);
		mlx_hw_count(dev, MLX_HW_CNT_QP_RUNS, 1);
		/* Scheduled while it ran: back on the list, the ref with it. */
		spin_lock_irq(&dev->run_lock);
		qp->running = false;
		if (qp->rerun) {
			qp->rerun = false;
			list_add_tail(&qp->run_node, &dev->run_list);
			qp = NULL;
		}
		spin_unlock_irq(&dev->run_lock);
		if (qp)
			mlx_hw_qp_put(qp);
		budget--;
		did = true;
		cond_resched();
	}
}

/* Work is waiting for the next pass. */
bool mlx_hw_sched_busy(struct mlx_hw_dev *dev)
{
	return !list_empty_careful(&dev->run_list);
}

/* ---------------- helper threads ---------------- */

/*
 * Helper threads, opt-in (engine_helpers): while the thread runs one QP
 * and more wait on the run list, a helper (one per further CPU, up to
 * MLX_HW_MAX_HELPERS) takes them, on another CPU.  Helpers run only the
 * run list: the doorbell rings, the NEED_WAKEUP handshake and the
 * heartbeat's promise are the thread's.  A side of a QP still runs in one
 * context at a time (side.c), and a QP is on the list once, so two
 * runners never run one QP.  A helper spins for the next QP as the
 * thread does, while its CPU is free and the thread awake, for at most
 * spin_us, then sleeps until the thread finds more work than it can run
 * alone.
 *
 * Off by default: where the processes busy-poll every CPU, a helper has no
 * CPU of its own, and at nice -20 it takes one from a poller.  In
 * tests/hca/fairness.vmtest (two processes of 32 QPs on a 2-vCPU 6.12
 * guest) one helper made the processes serve their own posts (0.5 s of
 * system time each, against 0.03 s without) and split their completions
 * up to 3.5x apart, against 1.02-1.21x without.
 */
static unsigned int engine_helpers;
module_param(engine_helpers, uint, 0444);
MODULE_PARM_DESC(engine_helpers, "helper threads per device, besides the engine thread, at most one per further CPU (load time; default 0)");

/*
 * Wakes one sleeping helper, if the device has one: the token is taken by
 * the helper that wakes (the barrier of wq_has_sleeper() orders the token
 * before the sleeper check, as in mlx_hw_engine_kick()).
 */
static void mlx_hw_helper_wake(struct mlx_hw_dev *dev)
{
	if (!dev->nhelpers)
		return;
	atomic_set(&dev->helper_kick, 1);
	if (wq_has_sleeper(&dev->helper_wq))
		wake_up(&dev->helper_wq);
}

/* One helper's pass: the run list, if it holds anything.  True if it did. */
static bool mlx_hw_helper_pass(struct mlx_hw_dev *dev)
{
	spin_lock_irq(&dev->run_lock);
	if (list_empty(&dev->run_list)) {
		spin_unlock_irq(&dev->run_lock);
		return false;
	}
	dev->runners++;
	spin_unlock_irq(&dev->run_lock);
	return mlx_hw_sched_run(dev);
}

/*
 * A helper spins while its CPU is its own and the thread is awake.  The
 * thread asleep (NEED_WAKEUP set) is woken by the next doorbell, and the
 * scheduler places it on an idle CPU, as long as a spinning helper does
 * not make that CPU look busy: else it waits behind the poster that woke
 * it, and every post meanwhile costs a call (the CPU hog stream of
 * tests/provider/no-syscall.vmtest on 6.12).
 */
static bool mlx_hw_helper_may_spin(struct mlx_hw_dev *dev)
{
	return single_task_running() &&
	       !(le32_to_cpu(READ_ONCE(dev->engine_page->flags)) &
		 MLX_HW_ENGINE_NEED_WAKEUP);
}

static int mlx_hw_helper_thread(void *arg)
{
	struct mlx_hw_dev *dev = arg;
	u64 idle_since;

	while (!kthread_should_stop()) {
		/* Exclusive, and one token: more work wakes one helper. */
		wait_event_interruptible_exclusive(dev->helper_wq,
			atomic_xchg(&dev->helper_kick, 0) ||
			kthread_should_stop());
		idle_since = local_clock();
		while (!kthread_should_stop()) {
			if (mlx_hw_helper_pass(dev))
				idle_since = local_clock();
			else if (!mlx_hw_helper_may_spin(dev) ||
				 local_clock() - idle_since >=
				 (u64)READ_ONCE(mlx_hw_spin_us) * NSEC_PER_USEC)
				break;
			cond_resched();
		}
		/*
		 * A QP scheduled while this helper was a runner kicked nobody
		 * (a runner drains the list); one still there is the thread's.
		 */
		if (!list_empty_careful(&dev->run_list))
			mlx_hw_engine_kick(dev, MLX_HW_KICK_OTHER);
	}
	return 0;
}

/*
 * The device's scheduling starts: runs call @ops (engine.c), and the
 * helpers start, one per online CPU beyond the first, at most as many as
 * asked.  Before anything can schedule a QP of the device.
 */
void mlx_hw_sched_start(struct mlx_hw_dev *dev,
			const struct mlx_hw_sched_ops *ops)
{
	unsigned int n = min3(READ_ONCE(engine_helpers),
			      (unsigned int)MLX_HW_MAX_HELPERS,
			      num_online_cpus() - 1);
	struct task_struct *t;

	dev->sched_ops = ops;
	init_waitqueue_head(&dev->helper_wq);
	for (dev->nhelpers = 0; dev->nhelpers < n; dev->nhelpers++) {
		t = kthread_run(mlx_hw_helper_thread, dev, "mlx_hw_help/%s",
				dev->ndev->name);
		if (IS_ERR(t))
			break;	/* fewer helpers: only the rate suffers */
		set_user_nice(t, MIN_NICE);
		dev->helper[dev->nhelpers] = t;
	}
}

/* Stops the helpers; the engine thread is stopped already. */
void mlx_hw_sched_stop(struct mlx_hw_dev *dev)
{
	while (dev->nhelpers)
		kthread_stop(dev->helper[--dev->nhelpers]);
}
