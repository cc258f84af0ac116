// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cqe.c - what the device does with a completion queue (docs/prm.md 6):
 * writing CQEs with the owner bit, overrun detection, and the arm word
 * (or a kernel consumer's REQ_NOTIFY_CQ) that turns a completion into an
 * event on the completion channel.
 */
#include "mlx_hw.h"

/* Processes a new arm word, if any; cq->lock held.  True: fire now. */
static bool mlx_hw_cq_arm_locked(struct mlx_hw_cq *cq)
{
	/*
	 * Acquire: pairs with the provider's release store of the arm word,
	 * so the ci it stored before arming is the one read below.
	 */
	u32 arm = le32_to_cpu(smp_load_acquire(&cq->db->arm));
	u32 sn = arm >> MLX_HW_CQ_ARM_SN_SHIFT;
	u8 cmd = arm & (MLX_HW_CQ_ARM_NEXT | MLX_HW_CQ_ARM_SOLICITED);

	lockdep_assert_held(&cq->lock);
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
	 * new arm is missed here, its doorbell ring entry, consumed later,
	 * sees pi != ci.
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

/*
 * The REQ_NOTIFY_CQ command: same as an arm word with a new sn.  A kernel
 * CQ with completions waiting stays armed and reports them by returning 1
 * (ibx_req_notify_cq's missed events): its comp_handler must not run
 * inside the consumer's call, which may hold the consumer's locks.
 */
int mlx_hw_req_notify_cq(struct ibx_cq *ibcq, bool solicited_only)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	bool pending;

	spin_lock_bh(&cq->lock);
	cq->armed = solicited_only ? MLX_HW_CQ_ARM_SOLICITED :
				     MLX_HW_CQ_ARM_NEXT;
	pending = cq->pi != le32_to_cpu(READ_ONCE(cq->db->ci));
	if (pending && ibcq->uctx)
		cq->armed = 0;
	spin_unlock_bh(&cq->lock);
	if (!ibcq->uctx)
		return pending;
	if (pending)
		ibx_cq_completion(&cq->ibx);
	return 0;
}

