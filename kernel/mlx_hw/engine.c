// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * engine.c - what the "hardware" does when it runs, and its thread.  A run
 * of a QP's side (sched.c says when, and in which context) does what the
 * QP's state asks: the completer and requester for the send side, the
 * responder for the receive side, or their flush in ERR.  The rest is
 * done in passes, by one kernel thread per device and by the callers of
 * MLX_HW_IOCTL_WAKE: a pass consumes the doorbell rings (doorbell.c: the
 * thread every context's, a WAKE caller its own), which name the QPs that
 * were rung and the CQs that were armed; the thread then drains the run
 * list.  QPs join the run list when their doorbell is consumed, a packet
 * arrives for them where they cannot run, their timer fires, their state
 * changes, or a run leaves work for later; a pass never looks at an idle
 * QP.  The sleep/wake protocol is the NEED_WAKEUP handshake of
 * docs/prm.md section 2.
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

static unsigned int stale_us = 1000;
module_param(stale_us, uint, 0644);
MODULE_PARM_DESC(stale_us, "an awake engine thread whose heartbeat is this old (microseconds) is not running: posts serve themselves (0: never)");

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

/* What a run does, for the scheduler (sched.c). */
static const struct mlx_hw_sched_ops mlx_hw_engine_sched_ops = {
	.prepare	= mlx_hw_apm_service,
	.run_send	= mlx_hw_run_send_side,
	.run_recv	= mlx_hw_run_recv_side,
	.flush_held	= mlx_hw_loopback_flush,
};

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
 * The thread's pass (see the top of the file): the doorbells of every
 * context, then the run list.  True if it found any work.
 */
static bool mlx_hw_engine_pass(struct mlx_hw_dev *dev)
{
	bool did;

	mlx_hw_sched_enter(dev);
	/* A runner now: scheduling a QP rung does not wake the thread. */
	did = mlx_hw_db_consume_all(dev);
	did |= mlx_hw_sched_run(dev);
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

/* ---------------- the thread ---------------- */

static void mlx_hw_engine_set_flags(struct mlx_hw_dev *dev, u32 flags)
{
	WRITE_ONCE(dev->engine_page->flags, cpu_to_le32(flags));
}

static_assert(MLX_HW_CNT_WAKE_OTHER - MLX_HW_CNT_WAKE_STREAM ==
	      MLX_HW_KICK_OTHER - MLX_HW_KICK_STREAM);

/* A wake-up from sleep, counted with the kick that asked for it. */
static void mlx_hw_engine_count_wakeup(struct mlx_hw_dev *dev)
{
	int why = atomic_read(&dev->kick);

	mlx_hw_count(dev, MLX_HW_CNT_WAKEUPS, 1);
	if (why >= MLX_HW_KICK_STREAM && why <= MLX_HW_KICK_OTHER)
		mlx_hw_count(dev, MLX_HW_CNT_WAKE_STREAM + why -
			     MLX_HW_KICK_STREAM, 1);
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
		return now - idle_since < (u64)READ_ONCE(mlx_hw_spin_us) * NSEC_PER_USEC;
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
		if (mlx_hw_db_pending_any(dev) || mlx_hw_sched_busy(dev)) {
			mlx_hw_engine_set_flags(dev, 0);
			idle_since = local_clock();
			continue;
		}
		mlx_hw_engine_sleep(dev);
		mlx_hw_engine_publish(dev);
		mlx_hw_engine_set_flags(dev, 0);
		le64_add_cpu(&dev->engine_page->wakeups, 1);
		mlx_hw_engine_count_wakeup(dev);
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

	mlx_hw_sched_start(dev, &mlx_hw_engine_sched_ops);
	t = kthread_create(mlx_hw_engine_thread, dev, "mlx_hw_eng/%s",
			   dev->ndev->name);
	if (IS_ERR(t)) {
		mlx_hw_sched_stop(dev);
		return PTR_ERR(t);
	}
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
	return 0;
}

void mlx_hw_engine_stop(struct mlx_hw_dev *dev)
{
	mlx_hw_sched_stop(dev);
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
 * process's doorbells do not make its exchange look like a stream.  The
 * time a WAKE took is the shorter of the last two: one preempted call
 * (its vCPU taken by the host, say) would otherwise make the next doorbell
 * of an exchange look like a stream's, which woke the thread about once a
 * millisecond in a ping-pong, one VM or two.
 */
static bool mlx_hw_engine_wake_wanted(struct mlx_hw_dev *dev,
				      struct mlx_hw_ucontext *uctx, u64 start)
{
	s64 gap = start - READ_ONCE(uctx->wake_end);

	if (gap < 0)	/* another thread of the context is in a WAKE */
		return false;
	if ((s64)(start - READ_ONCE(dev->engine_backoff)) < 0)
		return false;
	return gap < min(READ_ONCE(uctx->wake_len),
			 READ_ONCE(uctx->wake_len_prev)) / 2;
}

/* Why a WAKE that served its context wakes the thread, or 0: it does not. */
static enum mlx_hw_kick mlx_hw_engine_wake_why(struct mlx_hw_dev *dev,
					       struct mlx_hw_ucontext *uctx,
					       u64 start)
{
	if (mlx_hw_sched_busy(dev))
		return MLX_HW_KICK_WAKE_RUN_LIST;
	if (mlx_hw_db_hint(uctx))
		return MLX_HW_KICK_WAKE_RING;
	if (mlx_hw_engine_wake_wanted(dev, uctx, start))
		return MLX_HW_KICK_STREAM;
	return 0;
}

/*
 * A WAKE kicks the thread for @why.  If it was kicked already (by an earlier
 * call or the kernel side) but is not yet running, NEED_WAKEUP stays set
 * until it gets a CPU, and each doorbell meanwhile costs a call.  Counted,
 * since how long that lasts is the scheduler's doing (and a host's, under a
 * VM).
 */
static void mlx_hw_engine_wake_kick(struct mlx_hw_dev *dev,
				    enum mlx_hw_kick why)
{
	if (atomic_read(&dev->kick))
		mlx_hw_count(dev, MLX_HW_CNT_LATE_WAKES, 1);
	mlx_hw_engine_kick(dev, why);
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
	enum mlx_hw_kick why;
	int pass;

	for (pass = 0; pass < 4; pass++, rung = 0)
		if (!mlx_hw_wake_pass(uctx, rung))
			break;
	end = local_clock();
	if (awake) {
		mlx_hw_count(dev, MLX_HW_CNT_STALL_WAKES, 1);
	} else {
		why = mlx_hw_engine_wake_why(dev, uctx, start);
		if (why)
			mlx_hw_engine_wake_kick(dev, why);
		else
			mlx_hw_count(dev, MLX_HW_CNT_INLINE_WAKES, 1);
	}
	/* Racing threads of one context: a lost update shifts one decision. */
	WRITE_ONCE(uctx->wake_len_prev, READ_ONCE(uctx->wake_len));
	WRITE_ONCE(uctx->wake_len, end - start);
	WRITE_ONCE(uctx->wake_end, end);
}
