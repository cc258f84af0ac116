// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * odp.c - on-demand paging in the engine (docs/prm.md 10.4).  An ODP MR
 * pins nothing: the core's umem (umem_odp.c) maps pages for the device
 * when asked and forgets them when the process's mappings change.
 *
 * The data path runs where no page can be faulted in (softirq, or holding
 * a QP side), so it only checks that the pages a step touches are mapped
 * (mlx_hw_sgl_mapped) and, when they are not, hands the fault to a
 * worker and waits, as a ConnectX QP waits for its page-fault handler:
 * - the requester stops before the packet (the WQE waits; other QPs run);
 * - the responder answers a SEND, WRITE or atomic with an RNR NAK, which
 *   makes the requester send it again after the RNR timer, as ConnectX
 *   does, and stops a READ response stream until the pages are there.
 * The worker maps the pages and schedules the QP.  A fault that cannot
 * map them (the range is not mapped in the process, or not writable)
 * makes the next attempt fail as an access to unregistered memory does:
 * a local protection error, or a NAK that gives the requester
 * REM_ACCESS_ERR.
 *
 * One fault per QP side at a time (req.odp_fault, resp.odp_fault), owned
 * by that side: FAULT_IDLE -> FAULT_PENDING (the side, queuing the work)
 * -> FAULT_IDLE or FAULT_FAILED (the worker) -> FAULT_IDLE (the side,
 * after using the result).
 */
#include <linux/workqueue.h>
#include "mlx_hw.h"

/* One fault asks for at most this much (a longer message asks again). */
#define MLX_HW_ODP_FAULT_MAX	(4u << 20)

static struct workqueue_struct *mlx_hw_odp_wq;

struct mlx_hw_odp_work {
	struct work_struct work;
	struct mlx_hw_dev *dev;
	struct mlx_hw_qp *qp;		/* referenced; NULL for a prefetch */
	u8 *state;			/* the side's odp_fault */
	bool fault;			/* false: PREFETCH_NO_FAULT */
	u32 n;
	struct {
		struct mlx_hw_mr *mr;	/* referenced */
		u64 va;			/* user address */
		u64 len;
	} seg[MLX_HW_MAX_SGE];
};

/* Counts what an invalidation took away (umem_odp.c calls it). */
static void mlx_hw_odp_invalidated(void *arg, unsigned long npages)
{
	mlx_hw_count(arg, MLX_HW_CNT_ODP_INVALIDATIONS, npages);
}

void mlx_hw_odp_mr_init(struct mlx_hw_dev *dev, struct mlx_hw_mr *mr)
{
	if (mlx_hw_mr_odp(mr))
		ibx_umem_odp_set_notify(mr->ibx.umem, mlx_hw_odp_invalidated,
					dev);
}

/* The user address of byte @off of segment @seg. */
static u64 mlx_hw_seg_va(const struct mlx_hw_seg *seg, u64 off)
{
	return seg->mr->ibx.umem->address + seg->off + off;
}

/*
 * Calls @fn(seg, offset in seg, length) for the pieces of [off, off + len)
 * of @sgl that lie in ODP MRs; stops at a nonzero return and returns it.
 */
static int mlx_hw_sgl_for_odp(const struct mlx_hw_sgl *sgl, u64 off, u64 len,
			      int (*fn)(const struct mlx_hw_seg *seg, u64 o,
					u64 n, void *arg),
			      void *arg)
{
	const struct mlx_hw_seg *seg;
	u32 i;
	u64 n;
	int ret;

	for (i = 0; i < sgl->num && len; i++) {
		seg = &sgl->seg[i];
		if (off >= seg->len) {
			off -= seg->len;
			continue;
		}
		n = min_t(u64, len, seg->len - off);
		if (seg->mr && mlx_hw_mr_odp(seg->mr)) {
			ret = fn(seg, off, n, arg);
			if (ret)
				return ret;
		}
		len -= n;
		off = 0;
	}
	return 0;
}

static int mlx_hw_seg_unmapped(const struct mlx_hw_seg *seg, u64 off, u64 n,
			       void *arg)
{
	return !ibx_umem_odp_mapped(seg->mr->ibx.umem,
				    mlx_hw_seg_va(seg, off), n);
}

/*
 * Whether the bytes [off, off + len) of @sgl (MR references held) are
 * all in pages the device may use now.  A hint: the access checks again.
 */
bool mlx_hw_sgl_mapped(const struct mlx_hw_sgl *sgl, u64 off, u64 len)
{
	if (!sgl->odp || sgl->kbuf)
		return true;
	return !mlx_hw_sgl_for_odp(sgl, off, len, mlx_hw_seg_unmapped, NULL);
}

/*
 * Maps the work's ranges (process context), drops its MR references and
 * frees it; the first error, or 0.
 */
static int mlx_hw_odp_run(struct mlx_hw_odp_work *w)
{
	unsigned long mapped, pages = 0;
	int err = 0;
	u32 i;

	for (i = 0; i < w->n; i++) {
		if (!err) {
			err = ibx_umem_odp_fault(w->seg[i].mr->ibx.umem,
						 w->seg[i].va, w->seg[i].len,
						 w->fault, &mapped);
			pages += mapped;
		}
		mlx_hw_mr_put(w->seg[i].mr);
	}
	mlx_hw_count(w->dev, MLX_HW_CNT_ODP_FAULT_PAGES, pages);
	if (err)
		mlx_hw_count(w->dev, MLX_HW_CNT_ODP_FAULT_ERRORS, 1);
	kfree(w);
	return err;
}

static void mlx_hw_odp_work_fn(struct work_struct *work)
{
	struct mlx_hw_odp_work *w = container_of(work, struct mlx_hw_odp_work,
						 work);
	struct mlx_hw_qp *qp = w->qp;
	u8 *state = w->state;
	int err = mlx_hw_odp_run(w);

	if (!qp)
		return;
	/* The pages are in the table before the side reads IDLE. */
	smp_store_release(state, err ? MLX_HW_ODP_FAULT_FAILED :
				       MLX_HW_ODP_FAULT_IDLE);
	mlx_hw_qp_schedule(qp);
	mlx_hw_qp_put(qp);
}

/* Drops a work that will not run. */
static void mlx_hw_odp_work_free(struct mlx_hw_odp_work *w)
{
	u32 i;

	for (i = 0; i < w->n; i++)
		mlx_hw_mr_put(w->seg[i].mr);
	kfree(w);
}

static int mlx_hw_odp_add_seg(const struct mlx_hw_seg *seg, u64 off, u64 n,
			      void *arg)
{
	struct mlx_hw_odp_work *w = arg;

	if (w->n == ARRAY_SIZE(w->seg) || !mlx_hw_obj_get(&seg->mr->key.obj))
		return 0;
	w->seg[w->n].mr = seg->mr;
	w->seg[w->n].va = mlx_hw_seg_va(seg, off);
	w->seg[w->n].len = n;
	w->n++;
	return 0;
}

/* A work mapping [off, off + len) of @sgl; NULL if memory is short. */
static struct mlx_hw_odp_work *mlx_hw_odp_work_new(struct mlx_hw_dev *dev,
						   const struct mlx_hw_sgl *sgl,
						   u64 off, u64 len, gfp_t gfp)
{
	struct mlx_hw_odp_work *w = kzalloc(sizeof(*w), gfp);

	if (!w)
		return NULL;
	INIT_WORK(&w->work, mlx_hw_odp_work_fn);
	w->dev = dev;
	w->fault = true;
	mlx_hw_sgl_for_odp(sgl, off, len, mlx_hw_odp_add_seg, w);
	return w;
}

/*
 * A side of @qp found part of [off, off + len) of @sgl unmapped (@state is
 * that side's odp_fault).  Returns -EAGAIN while a fault maps the pages
 * (the side stops; the worker schedules the QP when done), or -EFAULT when
 * the last fault could not map them (the access fails).  @len may reach
 * past what the step needs: the rest of the message is faulted in with it.
 */
int mlx_hw_odp_wait(struct mlx_hw_qp *qp, u8 *state,
		    const struct mlx_hw_sgl *sgl, u64 off, u64 len)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_odp_work *w;

	switch (smp_load_acquire(state)) {
	case MLX_HW_ODP_FAULT_PENDING:
		return -EAGAIN;
	case MLX_HW_ODP_FAULT_FAILED:
		WRITE_ONCE(*state, MLX_HW_ODP_FAULT_IDLE);
		return -EFAULT;
	}
	w = mlx_hw_odp_work_new(dev, sgl, off,
				min_t(u64, len, MLX_HW_ODP_FAULT_MAX),
				GFP_ATOMIC);
	if (!w) {	/* no memory now: the side tries again when run */
		mlx_hw_qp_schedule(qp);
		return -EAGAIN;
	}
	if (!mlx_hw_obj_get(&qp->obj)) {	/* being destroyed */
		mlx_hw_odp_work_free(w);
		return -EAGAIN;
	}
	w->qp = qp;
	w->state = state;
	WRITE_ONCE(*state, MLX_HW_ODP_FAULT_PENDING);
	mlx_hw_count(dev, MLX_HW_CNT_ODP_FAULTS, 1);
	queue_work(mlx_hw_odp_wq, &w->work);
	return -EAGAIN;
}

/* The RNR NAK timer of a fault: the QP's, but not longer than 1.28 ms. */
u8 mlx_hw_odp_rnr_timer(const struct mlx_hw_qp *qp)
{
	/* IBA 9.7.5.2.8: codes 1-31 grow with the time; 0 is the longest. */
	return qp->min_rnr_timer && qp->min_rnr_timer < 14 ?
	       qp->min_rnr_timer : 14;
}

/*
 * ibv_advise_mr (MLX_HW_IOCTL_ADVISE_MR): maps the ranges of @sge in the
 * caller's ODP MRs, in this call when @flags has FLUSH (ibv_advise_mr's
 * synchronous form), else in the background.
 */
int mlx_hw_advise_mr(struct mlx_hw_ucontext *uctx,
		     const struct mlx_hw_advise_mr *args)
{
	struct mlx_hw_dev *dev = to_mdev(uctx->ibx.dev);
	struct mlx_hw_advise_sge __user *usge = u64_to_user_ptr(args->sg_list);
	struct mlx_hw_odp_work *w;
	struct mlx_hw_seg segs[MLX_HW_MAX_SGE];
	struct mlx_hw_sgl sgl;
	struct mlx_hw_advise_sge sge;
	struct mlx_hw_mr *mr;
	int err = 0;
	u32 i;

	if (args->advice > MLX_HW_ADVISE_PREFETCH_NO_FAULT ||
	    (args->flags & ~MLX_HW_ADVISE_FLAG_FLUSH) || !args->num_sge ||
	    args->num_sge > MLX_HW_MAX_SGE || args->reserved)
		return -EINVAL;
	mlx_hw_sgl_attach(&sgl, segs, ARRAY_SIZE(segs));
	for (i = 0; i < args->num_sge; i++) {
		if (copy_from_user(&sge, &usge[i], sizeof(sge))) {
			err = -EFAULT;
			break;
		}
		mr = mlx_hw_mr_get(dev, sge.lkey);
		if (!mr) {
			err = -ENOENT;
			break;
		}
		sgl.seg[sgl.num].mr = mr;
		sgl.num++;
		if (mr->ibx.pd->uctx != &uctx->ibx || !mlx_hw_mr_odp(mr) ||
		    !mlx_hw_mr_covers(mr, sge.addr, sge.length) ||
		    (args->advice == MLX_HW_ADVISE_PREFETCH_WRITE &&
		     !mr->ibx.umem->writable)) {
			err = -EINVAL;
			break;
		}
		sgl.seg[sgl.num - 1].off = sge.addr - mr->ibx.iova;
		sgl.seg[sgl.num - 1].len = sge.length;
		sgl.total += sge.length;
	}
	sgl.odp = true;
	w = err ? NULL : mlx_hw_odp_work_new(dev, &sgl, 0, sgl.total,
					     GFP_KERNEL);
	if (!err && !w)
		err = -ENOMEM;
	if (w) {
		w->fault = args->advice != MLX_HW_ADVISE_PREFETCH_NO_FAULT;
		mlx_hw_count(dev, MLX_HW_CNT_ODP_PREFETCHES, 1);
		if (args->flags & MLX_HW_ADVISE_FLAG_FLUSH)
			err = mlx_hw_odp_run(w);
		else
			queue_work(mlx_hw_odp_wq, &w->work);
	}
	for (i = 0; i < sgl.num; i++)
		mlx_hw_mr_put(sgl.seg[i].mr);
	return err;
}

int mlx_hw_odp_init(void)
{
	mlx_hw_odp_wq = alloc_workqueue("mlx_hw_odp", WQ_UNBOUND, 0);
	return mlx_hw_odp_wq ? 0 : -ENOMEM;
}

/* After every device is gone: no fault can be queued any more. */
void mlx_hw_odp_exit(void)
{
	destroy_workqueue(mlx_hw_odp_wq);
}
