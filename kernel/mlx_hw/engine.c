// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * engine.c - the "hardware": one kernel thread per device that scans the
 * doorbell records of its queues, runs requesters, flushes QPs in error,
 * processes CQ arm requests and writes CQEs.  The sleep/wake protocol is
 * the NEED_WAKEUP handshake of docs/prm.md section 2.
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

/* ---------------- CQ ---------------- */

/* Processes a new arm word, if any; cq->lock held.  True: fire now. */
static bool mlx_hw_cq_arm_locked(struct mlx_hw_cq *cq)
{
	u32 arm = le32_to_cpu(READ_ONCE(cq->db->arm));
	u32 sn = arm >> MLX_HW_CQ_ARM_SN_SHIFT;
	u8 cmd = arm & (MLX_HW_CQ_ARM_NEXT | MLX_HW_CQ_ARM_SOLICITED);

	if (sn == cq->arm_sn)
		return false;
	cq->arm_sn = sn;
	if (!cmd)
		return false;
	cq->armed = cmd;
	/* CQEs the consumer has not polled yet: report them at once. */
	if (cq->pi != le32_to_cpu(READ_ONCE(cq->db->ci))) {
		cq->armed = 0;
		return true;
	}
	return false;
}

void mlx_hw_cq_check_arm(struct mlx_hw_cq *cq)
{
	bool fire;

	spin_lock_bh(&cq->lock);
	fire = mlx_hw_cq_arm_locked(cq);
	spin_unlock_bh(&cq->lock);
	if (fire)
		ibx_cq_completion(&cq->ibx);
}

/*
 * Writes one CQE (all fields but owner taken from @in).  Returns
 * -EOVERFLOW if the CQ is (or just became) in error.
 */
int mlx_hw_cq_post(struct mlx_hw_cq *cq, const struct mlx_hw_cqe *in,
		   bool solicited)
{
	struct mlx_hw_cqe *slot;
	bool fire, overrun = false;
	u32 ci;

	spin_lock_bh(&cq->lock);
	if (cq->error) {
		spin_unlock_bh(&cq->lock);
		return -EOVERFLOW;
	}
	ci = le32_to_cpu(READ_ONCE(cq->db->ci));
	if (cq->pi - ci >= cq->entries) {
		cq->error = true;
		overrun = true;
		spin_unlock_bh(&cq->lock);
		ibx_cq_event(&cq->ibx, IBX_EVENT_CQ_ERR);
		return -EOVERFLOW;
	}
	slot = &cq->ring[cq->pi & (cq->entries - 1)];
	memcpy(slot, in, offsetof(struct mlx_hw_cqe, owner));
	/* The CQE body must be visible before the owner byte validates it. */
	smp_wmb();
	WRITE_ONCE(slot->owner, 1 ^ ((cq->pi >> cq->log_entries) & 1));
	cq->pi++;
	WRITE_ONCE(cq->db->pi, cpu_to_le32(cq->pi));
	/*
	 * The CQE store must precede the arm word load: if the consumer's
	 * new arm is missed here, the scan sees it later with pi != ci.
	 */
	smp_mb();
	fire = mlx_hw_cq_arm_locked(cq);
	if (!fire && cq->armed &&
	    (cq->armed == MLX_HW_CQ_ARM_NEXT || solicited || in->status)) {
		cq->armed = 0;
		fire = true;
	}
	spin_unlock_bh(&cq->lock);
	if (fire)
		ibx_cq_completion(&cq->ibx);
	return overrun ? -EOVERFLOW : 0;
}

/* ---------------- flushing QPs in error ---------------- */

static u8 mlx_hw_wc_opcode(u8 wqe_opcode)
{
	switch (wqe_opcode) {
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
		return 1;	/* IBV_WC_RDMA_WRITE */
	case MLX_HW_OP_RDMA_READ:
		return 2;	/* IBV_WC_RDMA_READ */
	case MLX_HW_OP_ATOMIC_CS:
		return 3;	/* IBV_WC_COMP_SWAP */
	case MLX_HW_OP_ATOMIC_FA:
		return 4;	/* IBV_WC_FETCH_ADD */
	case MLX_HW_OP_BIND_MW:
		return 5;	/* IBV_WC_BIND_MW */
	case MLX_HW_OP_LOCAL_INV:
		return 6;	/* IBV_WC_LOCAL_INV */
	default:
		return 0;	/* IBV_WC_SEND */
	}
}

/*
 * Frees the SQ slot at sq_ci.  The index is published before the WQE's
 * CQE, so a consumer that polled a completion may reuse that slot and all
 * earlier ones, as applications that count completions expect.  Release:
 * the slot's reads are done before the provider may rewrite it.
 */
void mlx_hw_sq_free_slot(struct mlx_hw_qp *qp)
{
	qp->sq_ci++;
	smp_store_release(&qp->db->sq_ci, cpu_to_le32(qp->sq_ci));
}

/* Writes a send CQE for @wqe; used by the requester and the flush. */
int mlx_hw_send_cqe(struct mlx_hw_qp *qp, const struct mlx_hw_send_wqe *wqe,
		    u8 status, u32 byte_len)
{
	struct mlx_hw_cqe cqe = {};
	int err;

	cqe.wr_id = cpu_to_le64(wqe->wr_id);
	cqe.status = status;
	cqe.opcode = mlx_hw_wc_opcode(wqe->opcode);
	cqe.qp_num = cpu_to_le32(qp->ibx.qp_num);
	cqe.byte_len = cpu_to_le32(byte_len);
	if (status)
		mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_ERR_CQES, 1);
	err = mlx_hw_cq_post(to_mcq(qp->ibx.send_cq), &cqe, false);
	if (err && READ_ONCE(qp->state) != IBX_QPS_ERR) {
		mlx_hw_qp_to_err(qp);
		ibx_qp_event(&qp->ibx, IBX_EVENT_QP_FATAL);
	}
	return err;
}

/* Validates a user producer index against the private consumer index. */
static bool mlx_hw_db_ok(struct mlx_hw_qp *qp, u32 pi, u32 ci, u32 cnt)
{
	if (pi - ci <= cnt)
		return true;
	if (!qp->db_corrupt) {
		qp->db_corrupt = true;
		mlx_hw_qp_to_err(qp);
		ibx_qp_event(&qp->ibx, IBX_EVENT_QP_FATAL);
	}
	return false;
}

/* Flushes outstanding SQ WQEs of a QP in ERR; sq_lock held. */
static bool mlx_hw_flush_sq(struct mlx_hw_qp *qp)
{
	struct mlx_hw_send_wqe *wqe = &qp->req.wqe;
	unsigned int budget = MLX_HW_WQE_BUDGET * 4;
	struct mlx_hw_wqe_ctrl ctrl;
	bool did = false;
	u32 pi;

	if (qp->req.have_wqe) {
		mlx_hw_sq_free_slot(qp);
		mlx_hw_send_cqe(qp, wqe, MLX_HW_WC_WR_FLUSH_ERR, 0);
		mlx_hw_req_release(qp);
		did = true;
	}
	pi = le32_to_cpu(READ_ONCE(qp->db->sq_pi));
	if (qp->db_corrupt || !mlx_hw_db_ok(qp, pi, qp->sq_ci, qp->sq_wqe_cnt))
		return did;
	/* The index is read before the WQEs it publishes. */
	smp_rmb();
	while (qp->sq_ci != pi && budget--) {
		memcpy(&ctrl, qp->sq + (qp->sq_ci & (qp->sq_wqe_cnt - 1)) *
			      qp->sq_stride, sizeof(ctrl));
		wqe->wr_id = le64_to_cpu(ctrl.wr_id);
		wqe->opcode = ctrl.opcode;
		mlx_hw_sq_free_slot(qp);
		mlx_hw_send_cqe(qp, wqe, MLX_HW_WC_WR_FLUSH_ERR, 0);
		did = true;
	}
	return did;
}

/* ---------------- the engine thread ---------------- */

/* Runs one QP: requester, or flush in ERR.  True if it did anything. */
static bool mlx_hw_service_qp(struct mlx_hw_qp *qp, u64 *next_timer)
{
	bool did = false;

	mutex_lock(&qp->sq_lock);
	switch (READ_ONCE(qp->state)) {
	case IBX_QPS_RTS:
		did = mlx_hw_requester(qp, next_timer);
		break;
	case IBX_QPS_SQD:
		did = mlx_hw_requester(qp, next_timer);
		if (!qp->req.have_wqe && qp->sqd_notify) {
			qp->sqd_notify = false;
			ibx_qp_event(&qp->ibx, IBX_EVENT_SQ_DRAINED);
			did = true;
		}
		break;
	case IBX_QPS_ERR:
		did = mlx_hw_flush_sq(qp);
		mutex_lock(&qp->rq_lock);
		did |= mlx_hw_recv_flush(qp) > 0;
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
			did = true;
		}
		mutex_unlock(&qp->rq_lock);
		break;
	default:
		break;
	}
	mutex_unlock(&qp->sq_lock);
	return did;
}

/* One pass over all queues of the device; true if work was found. */
static bool mlx_hw_engine_pass(struct mlx_hw_dev *dev, u64 *next_timer)
{
	unsigned long start = READ_ONCE(dev->next_qpn_scan), idx;
	struct mlx_hw_qp *qp;
	struct mlx_hw_cq *cq;
	bool did = false, wrapped = false;
	u32 old_sn;

	/* Round robin: each pass starts one QP further. */
	idx = start;
	for (;;) {
		xa_lock(&dev->qp_xa);
		qp = xa_find(&dev->qp_xa, &idx, ULONG_MAX, XA_PRESENT);
		if (qp && !mlx_hw_obj_get(&qp->obj))
			qp = NULL;
		xa_unlock(&dev->qp_xa);
		if (!qp) {
			if (wrapped || !start)
				break;
			wrapped = true;
			idx = 0;
			continue;
		}
		if (wrapped && idx >= start) {
			mlx_hw_qp_put(qp);
			break;
		}
		did |= mlx_hw_service_qp(qp, next_timer);
		mlx_hw_qp_put(qp);
		idx++;
		cond_resched();
	}
	/* Racy between the thread and WAKE callers, which is harmless. */
	idx = start + 1;
	if (!xa_find(&dev->qp_xa, &idx, ULONG_MAX, XA_PRESENT))
		idx = 0;
	WRITE_ONCE(dev->next_qpn_scan, idx);

	idx = 0;
	for (;;) {
		xa_lock(&dev->cq_xa);
		cq = xa_find(&dev->cq_xa, &idx, ULONG_MAX, XA_PRESENT);
		if (cq && !mlx_hw_obj_get(&cq->obj))
			cq = NULL;
		xa_unlock(&dev->cq_xa);
		if (!cq)
			break;
		old_sn = READ_ONCE(cq->arm_sn);
		mlx_hw_cq_check_arm(cq);
		did |= READ_ONCE(cq->arm_sn) != old_sn;
		mlx_hw_obj_put(&cq->obj);
		idx++;
	}
	return did;
}

static void mlx_hw_engine_set_flags(struct mlx_hw_dev *dev, u32 flags)
{
	WRITE_ONCE(dev->engine_page->flags, cpu_to_le32(flags));
}

static int mlx_hw_engine_thread(void *arg)
{
	struct mlx_hw_dev *dev = arg;
	u64 idle_since = local_clock(), now, next_timer;
	long timeout;

	while (!kthread_should_stop()) {
		atomic_set(&dev->kick, 0);
		next_timer = U64_MAX;
		if (mlx_hw_engine_pass(dev, &next_timer)) {
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
		 */
		now = local_clock();
		if (!single_task_running()) {
			WRITE_ONCE(dev->engine_contended, true);
		} else if (now - idle_since <
			   (u64)READ_ONCE(spin_us) * NSEC_PER_USEC) {
			cond_resched();
			continue;
		} else {
			WRITE_ONCE(dev->engine_contended, false);
		}

		mlx_hw_engine_set_flags(dev, MLX_HW_ENGINE_NEED_WAKEUP);
		/*
		 * The flag store must be visible before the doorbells are
		 * re-read (pairs with the provider's barrier between its
		 * doorbell store and its flags load).
		 */
		smp_mb();
		next_timer = U64_MAX;
		if (mlx_hw_engine_pass(dev, &next_timer)) {
			mlx_hw_engine_set_flags(dev, 0);
			idle_since = local_clock();
			continue;
		}
		if (next_timer == U64_MAX) {
			timeout = MAX_SCHEDULE_TIMEOUT;
		} else {
			now = local_clock();
			timeout = next_timer > now ?
				  nsecs_to_jiffies(next_timer - now) + 1 : 1;
		}
		wait_event_interruptible_timeout(dev->engine_wq,
						 atomic_read(&dev->kick) ||
						 kthread_should_stop(),
						 timeout);
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

	t = kthread_run(mlx_hw_engine_thread, dev, "mlx_hw_eng/%s",
			dev->ndev->name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	dev->engine = t;
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
 * MLX_HW_IOCTL_WAKE: the doorbells that were rung are served right here, in
 * the caller's context, so the first work request after an idle period does
 * not wait for the thread to win a CPU against the busy-polling processes
 * that rang.  Then the thread is woken: awake, it clears NEED_WAKEUP and
 * polls, so that the posts of a busy stream that follow need no system
 * call (the SQPOLL contract of docs/prm.md section 2).
 *
 * Except when the thread last found its CPU wanted by another task and
 * this call left no work behind: every CPU is busy (typically with the
 * processes polling for our completions), a woken thread would preempt one
 * of them, and the next doorbell is better served here again, as rxe
 * serves every post.  Such a thread is still woken once per probe period,
 * to notice when a CPU is free again.
 */
void mlx_hw_engine_wake(struct mlx_hw_dev *dev)
{
	u64 next_timer = U64_MAX, now;
	int pass;

	for (pass = 0; pass < 4; pass++)
		if (!mlx_hw_engine_pass(dev, &next_timer))
			break;
	if (READ_ONCE(dev->engine_contended) && pass < 4 &&
	    next_timer == U64_MAX) {
		now = local_clock();
		if (now - READ_ONCE(dev->engine_probe) < MLX_HW_ENGINE_PROBE_NS) {
			mlx_hw_count(dev, MLX_HW_CNT_INLINE_WAKES, 1);
			return;
		}
		WRITE_ONCE(dev->engine_probe, now);
	}
	mlx_hw_engine_kick(dev);
}

void mlx_hw_engine_kick(struct mlx_hw_dev *dev)
{
	atomic_set(&dev->kick, 1);
	wake_up(&dev->engine_wq);
}
