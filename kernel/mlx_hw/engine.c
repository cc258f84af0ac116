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
#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif
#include "mlx_hw.h"

static unsigned int spin_us = 50;
module_param(spin_us, uint, 0644);
MODULE_PARM_DESC(spin_us, "engine idle spin before sleeping (microseconds)");

static unsigned int stale_us = 1000;
module_param(stale_us, uint, 0644);
MODULE_PARM_DESC(stale_us, "an awake engine thread whose heartbeat is this old (microseconds) is not running: posts serve themselves (0: never)");

/*
 * Records that the thread should look and wakes it if it sleeps; an awake
 * thread sees the kick at its next look without a trip through the wait
 * queue lock.  wq_has_sleeper()'s barrier orders the kick store before the
 * sleeper check, pairing with the one in prepare_to_wait().
 */
void mlx_hw_engine_kick(struct mlx_hw_dev *dev)
{
	atomic_set(&dev->kick, 1);
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
static void mlx_hw_engine_beat(struct mlx_hw_dev *dev)
{
	struct mlx_hw_engine_page *page = dev->engine_page;

	WRITE_ONCE(page->heartbeat,
		   cpu_to_le32(le32_to_cpu(page->heartbeat) + 1));
}

/* The heartbeat's parameters, for the provider's side of it. */
static void mlx_hw_engine_publish(struct mlx_hw_dev *dev)
{
	struct mlx_hw_engine_page *page = dev->engine_page;

	WRITE_ONCE(page->stale_us, cpu_to_le32(READ_ONCE(stale_us)));
#ifdef CONFIG_X86
	/* The provider's clock: rdtsc is cheap where the clocksource is not. */
	WRITE_ONCE(page->tsc_khz, cpu_to_le32(tsc_khz));
#endif
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

static void mlx_hw_helper_wake(struct mlx_hw_dev *dev);

/*
 * Runs the QPs of the run list (and a packet loopback held back) until
 * none is left or the budget is spent; ends the pass begun by
 * mlx_hw_engine_pass().  True if it ran any.
 */
static bool mlx_hw_run(struct mlx_hw_dev *dev)
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
			mlx_hw_loopback_flush(dev);
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
	return mlx_hw_run(dev);
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
				 (u64)READ_ONCE(spin_us) * NSEC_PER_USEC)
				break;
			cond_resched();
		}
		/*
		 * A QP scheduled while this helper was a runner kicked nobody
		 * (a runner drains the list); one still there is the thread's.
		 */
		if (!list_empty_careful(&dev->run_list))
			mlx_hw_engine_kick(dev);
	}
	return 0;
}

/* Starts the helpers: one per online CPU beyond the first, at most as many as asked. */
static void mlx_hw_helpers_start(struct mlx_hw_dev *dev)
{
	unsigned int n = min3(READ_ONCE(engine_helpers),
			      (unsigned int)MLX_HW_MAX_HELPERS,
			      num_online_cpus() - 1);
	struct task_struct *t;

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

static void mlx_hw_helpers_stop(struct mlx_hw_dev *dev)
{
	while (dev->nhelpers)
		kthread_stop(dev->helper[--dev->nhelpers]);
}

/* ---------------- the thread ---------------- */

static void mlx_hw_engine_set_flags(struct mlx_hw_dev *dev, u32 flags)
{
	WRITE_ONCE(dev->engine_page->flags, cpu_to_le32(flags));
}

/* Sleeps until kicked for work (a WAKE, a timer, a packet, a state change). */
static void mlx_hw_engine_sleep(struct mlx_hw_dev *dev)
{
	wait_event_interruptible(dev->engine_wq,
				 atomic_read(&dev->kick) || kthread_should_stop());
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
 * How long WAKE leaves the thread asleep after it went to sleep because
 * its CPU was wanted: every CPU is busy (typically with the processes
 * polling for our completions), a thread woken by each doorbell would only
 * preempt one of them, and posts are served in their own calls meanwhile.
 * Once it has passed, the next stream of doorbells wakes the thread again
 * to look whether a CPU is free (so nothing about contention sticks).
 */
#define MLX_HW_BACKOFF_NS	NSEC_PER_MSEC

/*
 * Leaves the CPU to the task that wants it for up to MLX_HW_YIELD_NS, with
 * NEED_WAKEUP clear: posts meanwhile make no call, their ring entries wait
 * for the look that follows (the heartbeat goes on at every step, so posts
 * see the thread alive).  A kick (work from the kernel side) ends it early.
 * True if the thread then had its CPU to itself (the other task ran and
 * went, or the scheduler woke the thread on a CPU nobody wanted).
 */
static bool mlx_hw_engine_yield(struct mlx_hw_dev *dev)
{
	unsigned int step;

	for (step = 0; step < MLX_HW_YIELD_NS / MLX_HW_YIELD_STEP_NS; step++) {
		if (wait_event_interruptible_hrtimeout(dev->engine_wq,
				atomic_read(&dev->kick) || kthread_should_stop(),
				ns_to_ktime(MLX_HW_YIELD_STEP_NS)) != -ETIME)
			return false;
		mlx_hw_engine_beat(dev);
		if (single_task_running())
			return true;
	}
	return false;
}

/*
 * Idle: whether the thread goes on spinning for the next doorbell (true)
 * or goes to sleep.  It spins while its CPU is its own, up to spin_us: a
 * task waiting for this CPU ends the spin (as KVM's halt polling does),
 * since the spin would only delay the processes that ring our doorbells,
 * and WAKE serves them in their own context instead.
 *
 * But a task that wants the CPU for a moment (a kworker, RCU; in a 6.12
 * guest with KFENCE one every few milliseconds) is no contender: taken for
 * one, a stream's engine went to sleep, and every WR of the stream paid a
 * call until the thread was woken again (tests/provider/no-syscall.vmtest).
 * So the thread first leaves the CPU to that task for a moment, once per
 * idle period, and sleeps only if the CPU is still wanted after it, with
 * WAKE's back-off set.
 */
static bool mlx_hw_engine_idle_spin(struct mlx_hw_dev *dev, u64 idle_since,
				    bool *yielded)
{
	u64 now = local_clock();

	if (single_task_running()) {
		*yielded = false;
		return now - idle_since < (u64)READ_ONCE(spin_us) * NSEC_PER_USEC;
	}
	if (!*yielded) {
		mlx_hw_count(dev, MLX_HW_CNT_YIELDS, 1);
		/* Had the CPU to itself after it: as if never wanted. */
		*yielded = !mlx_hw_engine_yield(dev);
		return true;
	}
	WRITE_ONCE(dev->engine_backoff, now + MLX_HW_BACKOFF_NS);
	return false;
}

static int mlx_hw_engine_thread(void *arg)
{
	struct mlx_hw_dev *dev = arg;
	u64 idle_since = local_clock();
	bool yielded = false;

	while (!kthread_should_stop()) {
		atomic_set(&dev->kick, 0);
		mlx_hw_engine_beat(dev);
		if (mlx_hw_engine_pass(dev)) {
			idle_since = local_clock();
			cond_resched();
			continue;
		}
		if (mlx_hw_engine_idle_spin(dev, idle_since, &yielded)) {
			cond_resched();
			continue;
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
		mlx_hw_engine_publish(dev);
		mlx_hw_engine_set_flags(dev, 0);
		le64_add_cpu(&dev->engine_page->wakeups, 1);
		mlx_hw_count(dev, MLX_HW_CNT_WAKEUPS, 1);
		/*
		 * A thread that slept because its CPU was wanted stays
		 * yielded: woken by a stream after the back-off, it looks
		 * whether its CPU is free now and, if not, sleeps again at
		 * once instead of leaving the stream's posts waiting (no call:
		 * NEED_WAKEUP clear) through another yield.
		 */
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
	mlx_hw_engine_publish(dev);
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
	mlx_hw_helpers_start(dev);
	return 0;
}

void mlx_hw_engine_stop(struct mlx_hw_dev *dev)
{
	mlx_hw_helpers_stop(dev);
	if (dev->engine) {
		kthread_stop(dev->engine);
		dev->engine = NULL;
	}
}

/*
 * Whether a WAKE that served its context and left nothing behind should
 * also wake the sleeping thread, so that the posts that follow need no
 * call (the SQPOLL contract of docs/prm.md 2): only for a stream, whose
 * doorbells come faster than the WAKEs that serve them, and only when the
 * thread did not just find every CPU busy (the back-off above).
 *
 * A stream: the caller rang again sooner after its previous WAKE returned
 * than half the time that WAKE took.  A request-response exchange (a
 * ping-pong, here or across a wire) rings again only after the peer's
 * answer, which costs the peer a WAKE of the same length at least: there a
 * thread woken per message buys no call and costs an IPI and a spin of CPU
 * the guest believes spare, which under a VM is often its host's and its
 * peer's, and the next doorbell is better served in its own call again,
 * as rxe serves every post.  The measure is the caller's own, so another
 * process's doorbells do not make its exchange look like a stream.
 */
static bool mlx_hw_engine_wake_wanted(struct mlx_hw_dev *dev,
				      struct mlx_hw_ucontext *uctx, u64 start)
{
	s64 gap = start - READ_ONCE(uctx->wake_end);

	if (gap < 0)	/* another thread of the context is in a WAKE */
		return false;
	if ((s64)(start - READ_ONCE(dev->engine_backoff)) < 0)
		return false;
	return gap < READ_ONCE(uctx->wake_len) / 2;
}

/*
 * MLX_HW_IOCTL_WAKE: the doorbells the caller's context rang (its ring, not
 * the other contexts', and never a scan) are served right here, in the
 * caller's context, so the first work request after an idle period does
 * not wait for the thread to win a CPU against the busy-polling processes
 * that rang.  Then, for a stream (mlx_hw_engine_wake_wanted()), the thread
 * is woken: awake, it clears NEED_WAKEUP and polls, so that the posts that
 * follow need no system call.  Work left behind is the thread's.
 *
 * The provider also calls WAKE while the thread is awake but its heartbeat
 * stands still (docs/prm.md 2.4): it has not looked for stale_us, its CPU
 * taken, and the post serves itself here.  That thread needs no kick.
 */
void mlx_hw_engine_wake(struct mlx_hw_dev *dev, struct mlx_hw_ucontext *uctx,
			u32 rung)
{
	bool awake = !(le32_to_cpu(READ_ONCE(dev->engine_page->flags)) &
		       MLX_HW_ENGINE_NEED_WAKEUP);
	u64 start = local_clock(), end;
	int pass;

	for (pass = 0; pass < 4; pass++, rung = 0)
		if (!mlx_hw_wake_pass(uctx, rung))
			break;
	end = local_clock();
	if (awake) {
		mlx_hw_count(dev, MLX_HW_CNT_STALL_WAKES, 1);
	} else if (mlx_hw_engine_busy(dev) || mlx_hw_db_hint(uctx) ||
		   mlx_hw_engine_wake_wanted(dev, uctx, start)) {
		/*
		 * Woken already (by an earlier call or the kernel side) but
		 * not yet running: NEED_WAKEUP stays set until the thread gets
		 * a CPU, and each doorbell meanwhile costs a call.  Counted,
		 * since how long that lasts is the scheduler's doing (and a
		 * host's, under a VM).
		 */
		if (atomic_read(&dev->kick))
			mlx_hw_count(dev, MLX_HW_CNT_LATE_WAKES, 1);
		mlx_hw_engine_kick(dev);
	} else {
		mlx_hw_count(dev, MLX_HW_CNT_INLINE_WAKES, 1);
	}
	/* Racing threads of one context: a lost update shifts one decision. */
	WRITE_ONCE(uctx->wake_len, end - start);
	WRITE_ONCE(uctx->wake_end, end);
}
