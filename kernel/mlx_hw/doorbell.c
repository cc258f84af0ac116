// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * doorbell.c - how the engine learns which QPs and CQs were rung: one
 * doorbell ring per user context (docs/prm.md 2.1), a page the provider
 * maps read/write and pushes the number of every QP whose producer index
 * and every CQ whose arm word it published.  The engine consumes the
 * entries, so a pass costs the objects that were rung, never the idle
 * ones, as the doorbell-record pages of mlx5 or io_uring's SQ ring do.
 *
 * Nothing in the page is trusted: the engine keeps its own consumer
 * index, ignores the user's pi, and looks every number up among the
 * context's own objects (a bad one is counted and skipped).  A full ring
 * makes the provider set the overflow word instead, and the engine then
 * looks at every object of that context once.
 */
#include "mlx_hw.h"

/* Entries start on their own cache lines, after the two of the header. */
#define MLX_HW_DB_RING_OFFSET	128
#define MLX_HW_DB_RING_ENTRIES	512
/* Entries a WAKE caller serves per pass (docs/prm.md 2.3). */
#define MLX_HW_DB_WAKE_ENTRIES	32

static_assert(sizeof(struct mlx_hw_db_ring) <= MLX_HW_DB_RING_OFFSET);
static_assert(MLX_HW_DB_RING_OFFSET + MLX_HW_DB_RING_ENTRIES * 4 <= PAGE_SIZE);

/*
 * Allocates the context's ring and its mmap key, and makes the engine
 * thread look at it.
 */
int mlx_hw_db_ctx_init(struct mlx_hw_ucontext *uctx, u64 *key)
{
	struct mlx_hw_dev *dev = to_mdev(uctx->ibx.dev);
	int err;

	uctx->db_region = mlx_hw_region_alloc(PAGE_SIZE, false);
	if (!uctx->db_region)
		return -ENOMEM;
	err = mlx_hw_mmap_insert(uctx, uctx->db_region, key);
	if (err) {
		mlx_hw_region_put(uctx->db_region);
		return err;
	}
	uctx->db_ring = uctx->db_region->vaddr;
	uctx->db_entry = uctx->db_region->vaddr + MLX_HW_DB_RING_OFFSET;
	uctx->db_ci = 0;
	mutex_init(&uctx->db_lock);
	mutex_lock(&dev->ctx_lock);
	list_add_tail(&uctx->ctx_node, &dev->ctx_list);
	mutex_unlock(&dev->ctx_lock);
	return 0;
}

/* Response fields of GET_CONTEXT that describe the ring. */
void mlx_hw_db_ctx_resp(struct mlx_hw_alloc_ucontext_resp *resp)
{
	resp->db_ring_size = PAGE_SIZE;
	resp->db_ring_offset = MLX_HW_DB_RING_OFFSET;
	resp->db_ring_entries = MLX_HW_DB_RING_ENTRIES;
}

/*
 * Takes the ring out of the thread's sight; the thread looks at it only
 * under ctx_lock, and WAKE callers of the context are gone (the context
 * is being destroyed).  Mappings keep the page until they are unmapped.
 */
void mlx_hw_db_ctx_fini(struct mlx_hw_ucontext *uctx)
{
	struct mlx_hw_dev *dev = to_mdev(uctx->ibx.dev);

	if (!uctx->db_region)
		return;
	mutex_lock(&dev->ctx_lock);
	list_del(&uctx->ctx_node);
	mutex_unlock(&dev->ctx_lock);
	mlx_hw_region_put(uctx->db_region);
	uctx->db_region = NULL;
}

/*
 * A QP of the context was rung: it runs, and its service decides; @here,
 * in the caller's context (a WAKE), else on the run list (the thread).
 * Here, the receive side runs too only in ERR, where receives posted ring
 * for their flush: in the other states its work comes as packets, which
 * run it where they arrive.  Run for nothing, it would be held against a
 * segment a QP of this host hands over directly (direct.c), which then goes
 * as a packet: up to 1 in 9 of a loopback ping-pong's, when it ran.
 */
static bool mlx_hw_db_ring_qp(struct mlx_hw_ucontext *uctx, u32 qpn,
			      bool here)
{
	struct mlx_hw_qp *qp = mlx_hw_qp_get(to_mdev(uctx->ibx.dev), qpn);
	bool ours = qp && qp->ibx.uctx == &uctx->ibx && qp->sq;

	/*
	 * Scheduled whatever the requester's wait_db says: a requester that
	 * is running has not yet decided to wait, and a QP that is running
	 * is only marked to run once more.
	 */
	if (ours && here && READ_ONCE(qp->state) == IBX_QPS_ERR)
		mlx_hw_qp_run_here(qp);
	else if (ours && here)
		mlx_hw_qp_send_here(qp);
	else if (ours)
		mlx_hw_qp_schedule(qp);
	if (qp)
		mlx_hw_qp_put(qp);
	return ours;
}

/* A CQ of the context was armed. */
static bool mlx_hw_db_ring_cq(struct mlx_hw_ucontext *uctx, u32 cqn)
{
	struct mlx_hw_cq *cq = mlx_hw_xa_get(&to_mdev(uctx->ibx.dev)->cq_xa,
					     cqn, struct mlx_hw_cq);
	bool ours = cq && cq->ibx.uctx == &uctx->ibx;

	if (ours)
		mlx_hw_cq_check_arm(cq);
	if (cq)
		mlx_hw_obj_put(&cq->obj);
	return ours;
}

/*
 * The ring overflowed: every object of the context may have been rung.
 * The walk covers the device's objects and skips the others' (a full
 * ring is rare: 512 doorbells the engine has not yet taken).
 */
static void mlx_hw_db_fallback(struct mlx_hw_ucontext *uctx)
{
	struct mlx_hw_dev *dev = to_mdev(uctx->ibx.dev);
	unsigned long idx;
	u64 examined = 0;
	void *entry;

	mlx_hw_count(dev, MLX_HW_CNT_DB_FALLBACKS, 1);
	/* Only the index is used: the lookups take the references. */
	xa_for_each(&dev->qp_xa, idx, entry) {
		mlx_hw_db_ring_qp(uctx, idx, false);
		examined++;
		cond_resched();
	}
	mlx_hw_count(dev, MLX_HW_CNT_QPS_EXAMINED, examined);
	xa_for_each(&dev->cq_xa, idx, entry) {
		mlx_hw_db_ring_cq(uctx, idx);
		cond_resched();
	}
}

/*
 * One entry of the ring, or of MLX_HW_IOCTL_WAKE_DB: what it names, if it
 * is the context's (else counted: corruption, or an object destroyed since
 * it was rung).  A QP runs @here (see mlx_hw_db_ring_qp()).
 */
void mlx_hw_db_serve(struct mlx_hw_ucontext *uctx, u32 e, bool here)
{
	struct mlx_hw_dev *dev = to_mdev(uctx->ibx.dev);
	u32 num = e & MLX_HW_DB_NUM_MASK;
	bool ok = false;

	switch (e >> MLX_HW_DB_KIND_SHIFT) {
	case MLX_HW_DB_KIND_QP:
		mlx_hw_count(dev, MLX_HW_CNT_QPS_EXAMINED, 1);
		ok = mlx_hw_db_ring_qp(uctx, num, here);
		break;
	case MLX_HW_DB_KIND_CQ:
		ok = mlx_hw_db_ring_cq(uctx, num);
		break;
	}
	if (!ok)
		mlx_hw_count(dev, MLX_HW_CNT_DB_BAD, 1);
}

/*
 * Consumes what the ring holds, its QPs run @here or scheduled; db_lock
 * held.  True if it found any.
 */
static bool mlx_hw_db_drain(struct mlx_hw_ucontext *uctx, bool here)
{
	/*
	 * A WAKE caller serves a bounded share: other threads of the process
	 * may keep ringing, and the rest is the thread's (kicked after).
	 */
	unsigned int max = here ? MLX_HW_DB_WAKE_ENTRIES : MLX_HW_DB_RING_ENTRIES;
	struct mlx_hw_db_ring *ring = uctx->db_ring;
	unsigned int n = 0;
	u32 ci = uctx->db_ci, e;
	__le32 *slot;
	bool did = false;

	lockdep_assert_held(&uctx->db_lock);
	/*
	 * Cleared before the look, and the look ordered after the clear: a
	 * doorbell that overflows meanwhile sets the word again.  Acquire:
	 * the doorbell records published before the overflow store are seen.
	 */
	if (smp_load_acquire(&ring->overflow)) {
		WRITE_ONCE(ring->overflow, 0);
		smp_mb();	/* the clear before the records are read */
		mlx_hw_db_fallback(uctx);
		did = true;
	}
	while (n < max) {
		slot = &uctx->db_entry[ci & (MLX_HW_DB_RING_ENTRIES - 1)];
		/* Acquire: the record the provider published before the entry. */
		e = le32_to_cpu(smp_load_acquire(slot));
		if (!e)
			break;	/* empty, or claimed and not yet written */
		WRITE_ONCE(*slot, 0);
		ci++;
		n++;
		/* Release: the zeroed slot before the ci that frees it. */
		smp_store_release(&ring->ci, cpu_to_le32(ci));
		WRITE_ONCE(uctx->db_ci, ci);
		mlx_hw_db_serve(uctx, e, here);
	}
	if (n)
		mlx_hw_count(to_mdev(uctx->ibx.dev), MLX_HW_CNT_DB_ENTRIES, n);
	return did || n;
}

/* The ring may hold something (a lockless hint). */
bool mlx_hw_db_hint(struct mlx_hw_ucontext *uctx)
{
	u32 ci = READ_ONCE(uctx->db_ci);

	return READ_ONCE(uctx->db_entry[ci & (MLX_HW_DB_RING_ENTRIES - 1)]) ||
	       READ_ONCE(uctx->db_ring->overflow);
}

/*
 * Consumes the ring of @uctx, from MLX_HW_IOCTL_WAKE: its QPs run in the
 * caller's context.  It never waits for the lock: a consumer that holds it
 * (the thread, or another thread of the process) may have looked at the
 * slot before it was written, so the thread is kicked to look again.
 * True if it found work.
 */
bool mlx_hw_db_consume(struct mlx_hw_ucontext *uctx)
{
	bool did;

	if (!uctx->db_region)
		return false;
	if (!mutex_trylock(&uctx->db_lock)) {
		mlx_hw_engine_kick(to_mdev(uctx->ibx.dev), MLX_HW_KICK_OTHER);
		return false;
	}
	did = mlx_hw_db_drain(uctx, true);
	mutex_unlock(&uctx->db_lock);
	return did;
}

/*
 * Consumes the rings of every context, from the thread: O(contexts) to
 * look, O(entries) to serve.  A ring whose lock a WAKE caller holds is
 * left to it (the thread looks again at its next pass, and before it
 * sleeps).
 */
bool mlx_hw_db_consume_all(struct mlx_hw_dev *dev)
{
	struct mlx_hw_ucontext *uctx;
	bool did = false;

	mutex_lock(&dev->ctx_lock);
	list_for_each_entry(uctx, &dev->ctx_list, ctx_node) {
		if (!mlx_hw_db_hint(uctx) || !mutex_trylock(&uctx->db_lock))
			continue;
		did |= mlx_hw_db_drain(uctx, false);
		mutex_unlock(&uctx->db_lock);
	}
	mutex_unlock(&dev->ctx_lock);
	return did;
}

/*
 * The thread's look before it sleeps, after it set NEED_WAKEUP and issued
 * a full barrier: whether any ring holds an entry at its consumer index,
 * or overflowed.  It reads the slot the next doorbell's producer writes
 * before its own barrier and flags load (docs/prm.md 2.1), so either this
 * look sees the entry or the producer sees NEED_WAKEUP.  A ring being
 * consumed by a WAKE caller counts as pending: the thread does not sleep
 * on an index that may be stale.
 */
bool mlx_hw_db_pending_any(struct mlx_hw_dev *dev)
{
	struct mlx_hw_ucontext *uctx;
	bool pending = false;

	mutex_lock(&dev->ctx_lock);
	list_for_each_entry(uctx, &dev->ctx_list, ctx_node) {
		if (!mutex_trylock(&uctx->db_lock)) {
			pending = true;
			break;
		}
		pending = mlx_hw_db_hint(uctx);
		mutex_unlock(&uctx->db_lock);
		if (pending)
			break;
	}
	mutex_unlock(&dev->ctx_lock);
	return pending;
}
