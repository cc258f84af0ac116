// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr.c - memory regions: registration under a key of the shared MR/MW key
 * space (docs/prm.md 10) and re-registration that keeps the keys.  The
 * lookups the data path makes are inlines of mlx_hw.h (mlx_hw_mr_get(),
 * mlx_hw_mr_covers()).
 */
#include "mlx_hw.h"

#define MLX_HW_ACCESS_ALL (IB_UVERBS_ACCESS_LOCAL_WRITE | \
			   IB_UVERBS_ACCESS_REMOTE_WRITE | \
			   IB_UVERBS_ACCESS_REMOTE_READ | \
			   IB_UVERBS_ACCESS_REMOTE_ATOMIC | \
			   IB_UVERBS_ACCESS_MW_BIND | \
			   IB_UVERBS_ACCESS_ZERO_BASED | \
			   IB_UVERBS_ACCESS_ON_DEMAND | \
			   IB_UVERBS_ACCESS_HUGETLB | \
			   IB_UVERBS_ACCESS_RELAXED_ORDERING)

/* The attributes of a user MR the device can register. */
static int mlx_hw_mr_check(const struct ibx_mr *ibmr)
{
	u32 access = ibmr->access;

	/* Unknown optional bits are ignored, as IB_UVERBS_ACCESS_OPTIONAL_*. */
	if (access & ~MLX_HW_ACCESS_ALL &
	    ~GENMASK(29, 20))
		return -EINVAL;
	/* IBA 10.6.3.1: remote write/atomic require local write. */
	if ((access & (IB_UVERBS_ACCESS_REMOTE_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_UVERBS_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	/*
	 * A kernel MR (kverbs.c) has no pages pinned: its iova is a kernel
	 * virtual address, translated page by page when used (data.c); the
	 * DMA MR covers the whole address space, local access only.
	 */
	if (!ibmr->umem) {
		if (ibmr->pd->uctx)
			return -EINVAL;
		if (ibmr->length == U64_MAX && ibmr->iova == 0)
			return (access & ~IB_UVERBS_ACCESS_LOCAL_WRITE) ?
			       -EINVAL : 0;
		if (ibmr->length > MLX_HW_MAX_MR_SIZE ||
		    ibmr->iova + ibmr->length < ibmr->iova)
			return -EINVAL;
		return 0;
	}
	/* An implicit ODP MR covers the whole address space. */
	if (ibmr->length > MLX_HW_MAX_MR_SIZE &&
	    !(ibmr->umem->odp && ibmr->length == U64_MAX))
		return -EINVAL;
	/* Remote/local writes need writable pages. */
	if ((access & (IB_UVERBS_ACCESS_LOCAL_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_ATOMIC)) && !ibmr->umem->writable)
		return -EINVAL;
	return 0;
}

int mlx_hw_reg_mr(struct ibx_mr *ibmr, struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(ibmr->dev);
	struct mlx_hw_mr *mr = to_mmr(ibmr);
	u32 index;
	int err;

	err = mlx_hw_mr_check(ibmr);
	if (err)
		return err;
	mr->key.kind = MLX_HW_KEY_MR;
	mlx_hw_obj_init(&mr->key.obj);
	spin_lock_init(&mr->mw_lock);
	err = xa_alloc_cyclic_bh(&dev->mr_xa, &index, &mr->key,
				 XA_LIMIT(1, MLX_HW_MAX_MR), &dev->mr_next,
				 GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	mr->key.index = index;
	mlx_hw_odp_mr_init(dev, mr);
	ibmr->lkey = (index << 8) |
		     ((u32)atomic_inc_return(&dev->mr_keybyte) & 0xff);
	ibmr->rkey = ibmr->lkey;
	return 0;
}

static void mlx_hw_sgl_report(struct mlx_hw_qp *qp, const char *list,
			      const struct mlx_hw_sgl *sgl,
			      const struct mlx_hw_mr *mr)
{
	u32 i;

	for (i = 0; sgl->seg && i < sgl->num; i++)
		if (sgl->seg[i].mr == mr)
			pr_warn("mlx_hw: QP %u (state %d) %s segment %u holds it%s; sides %#x %#x\n",
				qp->ibx.qp_num, READ_ONCE(qp->state), list, i,
				sgl->parked ? " (parked!)" : "",
				atomic_read(&qp->send_side.state),
				atomic_read(&qp->recv_side.state));
}

/*
 * For a deregistration that waits too long (mlx_hw_obj_drain): the QP
 * lists that still point at the MR.  A racy look, only for the log.
 */
static void mlx_hw_mr_holders(struct mlx_hw_obj_ref *obj)
{
	struct mlx_hw_mr *mr = container_of(obj, struct mlx_hw_mr, key.obj);
	struct mlx_hw_dev *dev = to_mdev(mr->ibx.dev);
	struct mlx_hw_qp *qp;
	unsigned long qpn;

	xa_lock_bh(&dev->qp_xa);
	xa_for_each(&dev->qp_xa, qpn, qp) {
		mlx_hw_sgl_report(qp, "send WQE", &qp->req.sgl, mr);
		mlx_hw_sgl_report(qp, "READ/atomic result", &qp->comp_scratch, mr);
		mlx_hw_sgl_report(qp, "receive WQE", &qp->resp.rwqe, mr);
		mlx_hw_sgl_report(qp, "WRITE target", &qp->resp.wr_dst, mr);
		mlx_hw_sgl_report(qp, "READ source", &qp->resp_scratch, mr);
	}
	xa_unlock_bh(&dev->qp_xa);
}

void mlx_hw_dereg_mr(struct ibx_mr *ibmr)
{
	struct mlx_hw_dev *dev = to_mdev(ibmr->dev);
	struct mlx_hw_mr *mr = to_mmr(ibmr);

	xa_erase_bh(&dev->mr_xa, mr->key.index);
	/* The engine may be copying from/to it: wait until it is done. */
	mlx_hw_obj_drain(&mr->key.obj, "an MR", mlx_hw_mr_holders);
}

/*
 * Re-registration keeping the keys: the engine finds MRs only through
 * mr_xa, so replacing the entry (under its lock) switches every later
 * lookup to @ibnew at once, and draining @ibmr waits for the users that
 * resolved the key before.  No MR is ever modified in place.  A region
 * with windows bound is refused with -EINVAL, as deregistration is with
 * type 2 windows (IBA 10.6.7.2.6): since the keys stay, a type 1 window
 * would otherwise silently cover the new translation.  bind_lock keeps a
 * bind from slipping in between the check and the swap.
 */
int mlx_hw_rereg_mr(struct ibx_mr *ibmr, struct ibx_mr *ibnew,
			   u32 flags, struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(ibmr->dev);
	struct mlx_hw_mr *old = to_mmr(ibmr), *mr = to_mmr(ibnew);
	int err;

	err = mlx_hw_mr_check(ibnew);
	if (err)
		return err;
	mr->key.kind = MLX_HW_KEY_MR;
	mlx_hw_obj_init(&mr->key.obj);
	spin_lock_init(&mr->mw_lock);
	mr->key.index = old->key.index;
	mlx_hw_odp_mr_init(dev, mr);
	ibnew->lkey = ibmr->lkey;
	ibnew->rkey = ibmr->rkey;

	spin_lock_bh(&dev->bind_lock);
	if (mlx_hw_mr_has_windows(dev, ibmr->lkey)) {
		spin_unlock_bh(&dev->bind_lock);
		return -EINVAL;
	}
	/* Replacing a present entry allocates nothing: cannot fail. */
	xa_store(&dev->mr_xa, mr->key.index, &mr->key, GFP_ATOMIC);
	spin_unlock_bh(&dev->bind_lock);
	/* Users that resolved the key before the swap still hold @old. */
	mlx_hw_obj_drain(&old->key.obj, "a re-registered MR",
			 mlx_hw_mr_holders);
	return 0;
}
