// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * engine.c - when the "hardware" runs.  A packet from the wire runs the
 * side of its QP that takes it (the completer and requester for a
 * response, the responder for a request) in the softirq that received it
 * (mlx_hw_qp_offer()).  The rest is done in passes, by one kernel thread
 * per device and by the callers of MLX_HW_IOCTL_WAKE: a pass consumes the
 * doorbell rings (doorbell.c: the thread every context's, a WAKE caller
 * its own), which name the QPs that were rung and the CQs that were
 * armed, and runs each QP on the run list: completer and requester, then
 * responder, or the flush of a QP in ERR.  QPs join the run list when
 * their doorbell is consumed, a packet arrives for them where they cannot
 * run, their timer fires, their state changes, or a run leaves work for
 * later; a pass never looks at an idle QP.  A side runs in one context at
 * a time (side.c).  The sleep/wake protocol is the NEED_WAKEUP handshake
 * of docs/prm.md section 2.
 */
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>
#include <linux/moduleparam.h>
#include "mlx_hw.h"

static unsigned int spin_us = 50;
module_param(spin_us, uint, 0644);
MODULE_PARM_DESC(spin_us, "engine idle spin before sleeping (microseconds)");

/* Kick reasons: work to do, or a contended thread's probe for a free CPU. */
#define MLX_HW_KICK_WORK	1
#define MLX_HW_KICK_PROBE	2

/*
 * Records why the thread should look and wakes it if it sleeps; an awake
 * thread sees @why at its next look without a trip through the wait queue
 * lock.  wq_has_sleeper()'s barrier orders the @why store before the
 * sleeper check, pairing with the one in prepare_to_wait().
 */
static void mlx_hw_engine_wake_thread(struct mlx_hw_dev *dev, int why)
{
	atomic_or(why, &dev->kick);
	if (wq_has_sleeper(&dev->engine_wq))
		wake_up(&dev->engine_wq);
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
 * it; from any context.  A QP being run is not queued again but marked to
 * run once more when that run ends, so no two contexts ever run one QP at
 * a time.  A pass under way drains the list before it ends, so only when
 * none is does the thread need a kick.
 */
void mlx_hw_qp_schedule(struct mlx_hw_qp *qp)
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
		mlx_hw_engine_kick(dev);
}

/* The send side's run: what the QP's state asks of it; true if it flushed. */
static bool mlx_hw_run_send_side(struct mlx_hw_qp *qp)
{
	bool flushed = false;
	int state;

	state = READ_ONCE(qp->state);
	if (!qp->sq) {
		/* XRC TGT: a responder only. */
	} else if (state == IBX_QPS_RTS || state == IBX_QPS_SQD) {
		mlx_hw_completer(qp);
		mlx_hw_requester(qp);
		/* IBA 11.6.3: drained once nothing started is outstanding. */
		if (READ_ONCE(qp->state) == IBX_QPS_SQD && qp->sqd_notify &&
		    qp->sq_ci == qp->req.fetch_idx) {
			qp->sqd_notify = false;
			ibx_qp_event(&qp->ibx, IBX_EVENT_SQ_DRAINED);
		}
	} else if (state == IBX_QPS_ERR) {
		flushed = mlx_hw_sq_flush(qp);
	} else {
		skb_queue_purge(&qp->comp_pkts);
	}
	return flushed;
}

/* The receive side's run; true if it flushed. */
static bool mlx_hw_run_recv_side(struct mlx_hw_qp *qp)
{
	bool flushed = false;
	int state;

	state = READ_ONCE(qp->state);
	if (state == IBX_QPS_RTR || state == IBX_QPS_RTS ||
	    state == IBX_QPS_SQD) {
		mlx_hw_responder(qp);
	} else if (state == IBX_QPS_ERR) {
		flushed |= mlx_hw_resp_flush(qp);
		/*
		 * IBA 11.6.3: a QP of an SRQ in ERR takes no more WQEs from
		 * it once the one it held is flushed: Last WQE Reached.  An
		 * XRC TGT QP takes its WQEs from XRC SRQs (IBA A14), so it
		 * is such a QP too.
		 */
		if ((qp->ibx.srq || qp->ibx.qp_type == IB_UVERBS_QPT_XRC_TGT) &&
		    !qp->last_wqe_reached) {
			qp->last_wqe_reached = true;
			ibx_qp_event(&qp->ibx, IBX_EVENT_QP_LAST_WQE_REACHED);
		}
	} else {
		skb_queue_purge(&qp->resp_pkts);
	}
	return flushed;
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

	__this_cpu_inc(mlx_hw_inline_depth);
	mlx_hw_apm_service(qp);
	more = send ? mlx_hw_run_side(qp, &qp->send_side, mlx_hw_run_send_side,
				      true) :
		      mlx_hw_run_side(qp, &qp->recv_side, mlx_hw_run_recv_side,
				      true);
	__this_cpu_dec(mlx_hw_inline_depth);
	if (more)
		mlx_hw_qp_schedule(qp);
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
		mlx_hw_qp_schedule(qp);
}

/*
 * A WAKE caller rang @qp: both its sides run now, in the caller's context
 * (the receive side for the flush of receives posted in ERR, or requests
 * that wait).  Process context.
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
	bool again;

	mlx_hw_apm_service(qp);
	again = mlx_hw_run_side(qp, &qp->send_side, mlx_hw_run_send_side,
				false);
	again |= mlx_hw_run_side(qp, &qp->recv_side, mlx_hw_run_recv_side,
				 false);
	/*
	 * Work offered while it ran, and a flush, which works within a
	 * budget and goes on while it makes progress (no doorbell announces
	 * what is left): the QP runs again, behind the others.
	 */
	if (again)
		mlx_hw_qp_schedule(qp);
}

/*
 * Runs the QPs of the run list (and a packet loopback held back) until
 * none is left or the budget is spent; ends the pass begun by
 * mlx_hw_engine_pass().  True if it ran any.
 */
static bool mlx_hw_run(struct mlx_hw_dev *dev)
{
	unsigned int budget = MLX_HW_RUN_BUDGET;
	struct mlx_hw_qp *qp;
	bool did = false;

	for (;;) {
		spin_lock_irq(&dev->run_lock);
		qp = budget ? list_first_entry_or_null(&dev->run_list,
						       struct mlx_hw_qp,
						       run_node) : NULL;
		if (qp) {
			list_del_init(&qp->run_node);
			qp->running = true;
		} else if (!budget || !READ_ONCE(dev->lo_held)) {
			dev->runners--;
			spin_unlock_irq(&dev->run_lock);
			return did;
		}
		spin_unlock_irq(&dev->run_lock);
		if (!qp) {
			mlx_hw_loopback_flush(dev);
			continue;
		}
		mlx_hw_service_qp(qp);
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

/*
 * The thread's pass (see the top of the file): the doorbells of every
 * context, then the run list.  True if it found any work.
 */
static bool mlx_hw_engine_pass(struct mlx_hw_dev *dev)
{
	bool did;

	spin_lock_irq(&dev->run_lock);
	dev->runners++;
	spin_unlock_irq(&dev->run_lock);
	/* A runner now: scheduling a QP rung does not wake the thread. */
	did = mlx_hw_db_consume_all(dev);
	did |= mlx_hw_run(dev);
	return did;
}

/*
 * A WAKE caller's pass: the object named by WAKE_DB, then the rest of its
 * context's ring, each QP run in the caller's context; never the run
 * list, which holds other contexts' work.  True if it found any.
 */
static bool mlx_hw_wake_pass(struct mlx_hw_ucontext *uctx, u32 rung)
{
	bool did = false;

	if (rung) {
		mlx_hw_db_serve(uctx, rung, true);
		did = true;
	}
	return mlx_hw_db_consume(uctx) || did;
}

/* Work is waiting for the next pass. */
static bool mlx_hw_engine_busy(struct mlx_hw_dev *dev)
{
	return !list_empty_careful(&dev->run_list);
}

/* ---------------- the thread ---------------- */

static void mlx_hw_engine_set_flags(struct mlx_hw_dev *dev, u32 flags)
{
	WRITE_ONCE(dev->engine_page->flags, cpu_to_le32(flags));
}

/*
 * Sleeps until kicked for work, or probed while a CPU is free for it: a
 * probe that finds the CPU still wanted by another task goes back to sleep
 * without touching a QP, so that the thread never holds a QP while it
 * waits for a CPU the pollers keep busy.
 */
static void mlx_hw_engine_sleep(struct mlx_hw_dev *dev)
{
	for (;;) {
		wait_event_interruptible(dev->engine_wq,
					 atomic_read(&dev->kick) ||
					 kthread_should_stop());
		if (atomic_read(&dev->kick) != MLX_HW_KICK_PROBE ||
		    single_task_running() || kthread_should_stop())
			return;
		atomic_andnot(MLX_HW_KICK_PROBE, &dev->kick);
	}
}

/*
 * How long the thread, idle and finding its CPU wanted, lets the other task
 * run before it decides whether that task is a contender (still runnable)
 * or was passing through (a kworker, RCU, a timer's work: gone), in steps
 * of MLX_HW_YIELD_STEP_NS.  Under TCG such a kernel task runs 50-150 us.
 */
#define MLX_HW_YIELD_NS		(200 * NSEC_PER_USEC)
#define MLX_HW_YIELD_STEP_NS	(50 * NSEC_PER_USEC)

/*
 * Leaves the CPU to the task that wants it for up to MLX_HW_YIELD_NS, with
 * NEED_WAKEUP clear: posts meanwhile make no call, their ring entries wait
 * for the look that follows.  A kick (work from the kernel side) ends it
 * early.  True if the thread then had its CPU to itself (the other task
 * ran and went, or the scheduler woke the thread on a CPU nobody wanted).
 */
static bool mlx_hw_engine_yield(struct mlx_hw_dev *dev)
{
	unsigned int step;

	for (step = 0; step < MLX_HW_YIELD_NS / MLX_HW_YIELD_STEP_NS; step++) {
		if (wait_event_interruptible_hrtimeout(dev->engine_wq,
				atomic_read(&dev->kick) || kthread_should_stop(),
				ns_to_ktime(MLX_HW_YIELD_STEP_NS)) != -ETIME)
			return false;
		if (single_task_running())
			return true;
	}
	return false;
}

static int mlx_hw_engine_thread(void *arg)
{
	struct mlx_hw_dev *dev = arg;
	u64 idle_since = local_clock(), now;
	bool yielded = false;

	while (!kthread_should_stop()) {
		atomic_set(&dev->kick, 0);
		if (mlx_hw_engine_pass(dev)) {
			idle_since = local_clock();
			cond_resched();
			continue;
		}
		/*
		 * Idle: spin for the next doorbell while the CPU is ours.  A
		 * task waiting for this CPU ends the spin (as KVM's halt
		 * polling does): the spin would only delay the processes that
		 * ring our doorbells, and WAKE serves them in their own context
		 * instead (see mlx_hw_engine_wake()).
		 *
		 * But a task that wants the CPU for a moment (a kworker, RCU;
		 * in a 6.12 guest with KFENCE one every few milliseconds) is
		 * no contender.  Taken for one, it left a stream's engine
		 * asleep in contended mode, a call per WR until a probe found
		 * the CPU free, thousands of calls in a 20000-WR stream
		 * (tests/provider/no-syscall.vmtest).  So the thread first
		 * leaves the CPU to that task for a moment, and is contended
		 * only if the CPU is still wanted after it (or a kick cut the
		 * pause short).  Once until an idle look finds the CPU free
		 * again: pollers that keep it busy cost one pause, not one per
		 * look.
		 */
		now = local_clock();
		if (single_task_running()) {
			yielded = false;
			if (now - idle_since <
			    (u64)READ_ONCE(spin_us) * NSEC_PER_USEC) {
				cond_resched();
				continue;
			}
			WRITE_ONCE(dev->engine_contended, false);
		} else if (!yielded) {
			yielded = true;
			mlx_hw_count(dev, MLX_HW_CNT_YIELDS, 1);
			if (mlx_hw_engine_yield(dev))
				yielded = false;
			continue;
		} else {
			WRITE_ONCE(dev->engine_contended, true);
		}

		mlx_hw_engine_set_flags(dev, MLX_HW_ENGINE_NEED_WAKEUP);
		/*
		 * The flag store must be visible before the rings are
		 * re-read (pairs with the provider's barrier between its
		 * ring entry store and its flags load).
		 */
		smp_mb();
		/*
		 * Only a look, not a pass: the flag must not stay set while
		 * QPs run, or every doorbell meanwhile costs a system call.
		 */
		if (mlx_hw_db_pending_any(dev) || mlx_hw_engine_busy(dev)) {
			mlx_hw_engine_set_flags(dev, 0);
			idle_since = local_clock();
			continue;
		}
		mlx_hw_engine_sleep(dev);
		mlx_hw_engine_set_flags(dev, 0);
		le64_add_cpu(&dev->engine_page->wakeups, 1);
		mlx_hw_count(dev, MLX_HW_CNT_WAKEUPS, 1);
		idle_since = local_clock();
	}
	return 0;
}

int mlx_hw_engine_start(struct mlx_hw_dev *dev)
{
	struct task_struct *t;

	t = kthread_create(mlx_hw_engine_thread, dev, "mlx_hw_eng/%s",
			   dev->ndev->name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	/*
	 * The thread is the device: processes busy-polling its CQs must not
	 * starve it.  At nice 0 it would get one poller's share, so with N
	 * pollers every completion would wait N times longer; nice -20
	 * weighs about 87 nice-0 tasks, yet (unlike a real-time class) it
	 * cannot lock the rest of the system out.
	 */
	set_user_nice(t, MIN_NICE);
	dev->engine = t;
	wake_up_process(t);
	return 0;
}

void mlx_hw_engine_stop(struct mlx_hw_dev *dev)
{
	if (dev->engine) {
		kthread_stop(dev->engine);
		dev->engine = NULL;
	}
}

/*
 * How often a contended engine still wakes its thread, to learn whether a
 * CPU has become free for it.
 */
#define MLX_HW_ENGINE_PROBE_NS	NSEC_PER_MSEC

/*
 * MLX_HW_IOCTL_WAKE: the doorbells the caller's context rang (its ring, not
 * the other contexts', and never a scan) are served right here, in the
 * caller's context, so the first work request after an idle period does
 * not wait for the thread to win a CPU against the busy-polling processes
 * that rang.  Then the thread is woken: awake, it clears NEED_WAKEUP and
 * polls, so that the posts of a busy stream that follow need no system
 * call (the SQPOLL contract of docs/prm.md section 2).
 *
 * Unless this call left no work behind and a woken thread would only
 * cost: either it last found its CPU wanted by another task (every CPU is
 * busy, typically with the processes polling for our completions, and a
 * woken thread would preempt one of them), or the doorbells come further
 * apart than its idle spin, so it would spin for nothing and sleep again
 * before the next one.  The second is a request-response exchange slower
 * than the spin, such as a ping-pong across a wire: there a thread woken
 * per message buys no call and costs an IPI and a spin of CPU the guest
 * believes spare, which under a VM is often its host's and its peer's.
 * Then the next doorbell is better served here again, as rxe serves every
 * post.  A contended thread is still probed once per probe period: it
 * looks whether a CPU is free again and, if not, sleeps on without running
 * anything.  Timers (ACK timeout, RNR) kick the thread themselves when
 * they fire.
 */
void mlx_hw_engine_wake(struct mlx_hw_dev *dev, struct mlx_hw_ucontext *uctx,
			u32 rung)
{
	u64 now = local_clock();
	s64 gap;
	int pass;

	/*
	 * The time since the previous WAKE ended: how long a thread woken
	 * then would have spun before this doorbell came.  Callers race on
	 * engine_last_wake; a lost update only shifts one decision.
	 */
	gap = now - READ_ONCE(dev->engine_last_wake);
	for (pass = 0; pass < 4; pass++, rung = 0)
		if (!mlx_hw_wake_pass(uctx, rung))
			break;
	WRITE_ONCE(dev->engine_last_wake, local_clock());
	/* Entries beyond the caller's share are the thread's (2.3). */
	if (!mlx_hw_engine_busy(dev) && !mlx_hw_db_hint(uctx)) {
		if (READ_ONCE(dev->engine_contended)) {
			/* Served here, the thread at most probed. */
			mlx_hw_count(dev, MLX_HW_CNT_INLINE_WAKES, 1);
			if (now - READ_ONCE(dev->engine_probe) <
			    MLX_HW_ENGINE_PROBE_NS)
				return;
			WRITE_ONCE(dev->engine_probe, now);
			mlx_hw_engine_wake_thread(dev, MLX_HW_KICK_PROBE);
			return;
		}
		if (gap >= (s64)READ_ONCE(spin_us) * NSEC_PER_USEC) {
			mlx_hw_count(dev, MLX_HW_CNT_INLINE_WAKES, 1);
			return;
		}
	}
	/*
	 * Woken already (by an earlier call, a probe or the kernel side) but
	 * not yet running: NEED_WAKEUP stays set until the thread gets a CPU,
	 * and each doorbell meanwhile costs a call.  Counted, since how long
	 * that lasts is the scheduler's doing (and a host's, under a VM).
	 */
	if (atomic_read(&dev->kick))
		mlx_hw_count(dev, MLX_HW_CNT_LATE_WAKES, 1);
	mlx_hw_engine_kick(dev);
}

void mlx_hw_engine_kick(struct mlx_hw_dev *dev)
{
	mlx_hw_engine_wake_thread(dev, MLX_HW_KICK_WORK);
}
