// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mw.c - remote keys: MRs and memory windows (IBA 10.6.7) share one key
 * space; a key is (index << 8) | key byte, and for windows the key byte is
 * the consumer's (ibv_inc_rkey), chosen anew by every bind.
 */
#include <linux/random.h>
#include "mlx_hw.h"

#define MLX_HW_REMOTE_ACCESS (IB_UVERBS_ACCESS_REMOTE_WRITE | \
			      IB_UVERBS_ACCESS_REMOTE_READ | \
			      IB_UVERBS_ACCESS_REMOTE_ATOMIC)

int mlx_hw_alloc_mw(struct ibx_mw *ibmw, struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(ibmw->dev);
	struct mlx_hw_mw *mw = to_mmw(ibmw);
	u32 index;
	int err;

	if (ibmw->type != 1 && ibmw->type != 2)
		return -EINVAL;
	mw->key.kind = MLX_HW_KEY_MW;
	mlx_hw_obj_init(&mw->key.obj);
	spin_lock_init(&mw->lock);
	err = xa_alloc_cyclic_bh(&dev->mr_xa, &index, &mw->key,
				 XA_LIMIT(1, MLX_HW_MAX_MR), &dev->mr_next,
				 GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	mw->key.index = index;
	ibmw->rkey = (index << 8) |
		     ((u32)atomic_inc_return(&dev->mr_keybyte) & 0xff);
	return 0;
}

/*
 * IBA 10.6.7.2.6 and the Deregister Memory Region verb (ch. 11): an MR
 * with windows bound to it, of either type, cannot be deregistered (rxe
 * alike).  Binds count on the MR and a deregistration that began refuses
 * new binds, so the check and the bind cannot cross.
 */
static bool mlx_hw_mr_bind_mw(struct mlx_hw_mr *mr)
{
	bool ok;

	spin_lock_bh(&mr->mw_lock);
	ok = !mr->dereg_begun;
	if (ok)
		mr->mw_bound++;
	spin_unlock_bh(&mr->mw_lock);
	return ok;
}

/* A window bound to the MR @lkey was unbound, rebound, invalidated or freed. */
static void mlx_hw_mr_unbind_mw(struct mlx_hw_dev *dev, u32 lkey)
{
	struct mlx_hw_mr *mr = mlx_hw_mr_get(dev, lkey);

	if (!mr)
		return;
	spin_lock_bh(&mr->mw_lock);
	if (!WARN_ON_ONCE(!mr->mw_bound))
		mr->mw_bound--;
	spin_unlock_bh(&mr->mw_lock);
	mlx_hw_mr_put(mr);
}

int mlx_hw_begin_dereg_mr(struct ibx_mr *ibmr)
{
	struct mlx_hw_mr *mr = to_mmr(ibmr);
	int err = 0;

	spin_lock_bh(&mr->mw_lock);
	if (mr->mw_bound)
		err = -EINVAL;
	else
		mr->dereg_begun = true;
	spin_unlock_bh(&mr->mw_lock);
	return err;
}

void mlx_hw_dealloc_mw(struct ibx_mw *ibmw)
{
	struct mlx_hw_dev *dev = to_mdev(ibmw->dev);
	struct mlx_hw_mw *mw = to_mmw(ibmw);

	xa_erase_bh(&dev->mr_xa, mw->key.index);
	mlx_hw_obj_drain(&mw->key.obj, "an MW", NULL);
	/* No engine user is left: the binding is stable. */
	if (mw->bound)
		mlx_hw_mr_unbind_mw(dev, mw->mr_lkey);
}

/*
 * Whether a window is bound to the MR of @lkey.  Called with bind_lock
 * held, so no bind completes meanwhile.
 */
bool mlx_hw_mr_has_windows(struct mlx_hw_dev *dev, u32 lkey)
{
	struct mlx_hw_key *k;
	unsigned long index;
	bool found = false;

	lockdep_assert_held(&dev->bind_lock);
	xa_lock(&dev->mr_xa);
	xa_for_each(&dev->mr_xa, index, k) {
		struct mlx_hw_mw *mw;

		if (k->kind != MLX_HW_KEY_MW)
			continue;
		mw = container_of(k, struct mlx_hw_mw, key);
		spin_lock(&mw->lock);
		found = mw->bound && mw->mr_lkey == lkey;
		spin_unlock(&mw->lock);
		if (found)
			break;
	}
	xa_unlock(&dev->mr_xa);
	return found;
}

/* Looks up the MR or MW of a key index with an engine reference. */
static struct mlx_hw_key *mlx_hw_key_get(struct mlx_hw_dev *dev, u32 key)
{
	return mlx_hw_xa_get(&dev->mr_xa, key >> 8, struct mlx_hw_key);
}

/*
 * Resolves an rkey for @access to [va, va + len) on behalf of @qp (IBA
 * 10.6.7.2, C10-39..): an MR of the QP's PD (XRC TGT: the PD of the XRC
 * SRQ the request names) with the access, or a window
 * bound with it (type 1: same PD; type 2: bound to this QP).  Returns the
 * MR holding the bytes with a reference, or NULL.
 */
struct mlx_hw_mr *mlx_hw_rkey_resolve(struct mlx_hw_dev *dev,
				      struct mlx_hw_qp *qp, u32 rkey, u64 va,
				      u64 len, u32 access)
{
	struct mlx_hw_key *k = mlx_hw_key_get(dev, rkey);
	struct mlx_hw_mr *mr;
	struct mlx_hw_mw *mw;
	bool ok;
	u32 lkey;

	if (!k)
		return NULL;
	if (k->kind == MLX_HW_KEY_MR) {
		mr = container_of(k, struct mlx_hw_mr, key);
		if (mr->ibx.rkey == rkey && mr->ibx.pd == mlx_hw_resp_pd(qp) &&
		    !READ_ONCE(mr->invalid) && !(access & ~mr->ibx.access) &&
		    mlx_hw_mr_covers(mr, va, len))
			return mr;
		mlx_hw_mr_put(mr);
		return NULL;
	}

	mw = container_of(k, struct mlx_hw_mw, key);
	spin_lock_bh(&mw->lock);
	ok = mw->bound && mw->ibx.rkey == rkey &&
	     mw->ibx.pd == mlx_hw_resp_pd(qp) && !(access & ~mw->access) &&
	     (mw->ibx.type == 1 || mw->qpn == qp->ibx.qp_num) &&
	     va >= mw->addr && len <= mw->length &&
	     va - mw->addr <= mw->length - len;
	lkey = mw->mr_lkey;
	spin_unlock_bh(&mw->lock);
	mlx_hw_obj_put(&k->obj);
	if (!ok)
		return NULL;
	/* The MR may be gone since the bind: then the window is unusable. */
	mr = mlx_hw_mr_get(dev, lkey);
	if (mr && (READ_ONCE(mr->invalid) || !mlx_hw_mr_covers(mr, va, len))) {
		mlx_hw_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

/* LOCAL_INV / SEND_INV: invalidates an MR or a type 2 window of @pd. */
int mlx_hw_invalidate(struct mlx_hw_dev *dev, struct ibx_pd *pd, u32 key)
{
	struct mlx_hw_key *k = mlx_hw_key_get(dev, key);
	struct mlx_hw_mr *mr;
	struct mlx_hw_mw *mw;
	int err = -EINVAL;
	u32 mr_lkey = 0;

	if (!k)
		return -EINVAL;
	if (k->kind == MLX_HW_KEY_MR) {
		mr = container_of(k, struct mlx_hw_mr, key);
		if (mr->ibx.lkey == key && mr->ibx.pd == pd) {
			WRITE_ONCE(mr->invalid, true);
			err = 0;
		}
	} else {
		mw = container_of(k, struct mlx_hw_mw, key);
		spin_lock_bh(&mw->lock);
		/* IBA 10.6.7.2.6: only type 2 windows are invalidated. */
		if (mw->ibx.type == 2 && mw->ibx.rkey == key &&
		    mw->ibx.pd == pd && mw->bound) {
			mw->bound = false;
			mr_lkey = mw->mr_lkey;
			err = 0;
		}
		spin_unlock_bh(&mw->lock);
		if (mr_lkey)
			mlx_hw_mr_unbind_mw(dev, mr_lkey);
	}
	mlx_hw_obj_put(&k->obj);
	return err;
}

/*
 * Executes a BIND_MW WQE of @qp (docs/prm.md 4.2): new_rkey names the
 * window by its index and carries the new key byte.  Returns 0 or
 * IBV_WC_MW_BIND_ERR.
 */
u8 mlx_hw_bind_mw(struct mlx_hw_qp *qp, const struct mlx_hw_wqe_bind *bind)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	u32 new_rkey = le32_to_cpu(bind->new_rkey);
	u32 access = le32_to_cpu(bind->access);
	u64 addr = le64_to_cpu(bind->addr), len = le64_to_cpu(bind->length);
	struct mlx_hw_mr *mr = NULL;
	struct mlx_hw_key *k;
	struct mlx_hw_mw *mw;
	u8 status = MLX_HW_WC_MW_BIND_ERR;
	u32 old_lkey = 0;

	k = mlx_hw_key_get(dev, new_rkey);
	if (!k)
		return status;
	if (k->kind != MLX_HW_KEY_MW)
		goto out;
	mw = container_of(k, struct mlx_hw_mw, key);
	if (mw->ibx.pd != qp->ibx.pd || (access & ~MLX_HW_REMOTE_ACCESS))
		goto out;
	/* Type 1 with length 0 unbinds (IBA 10.6.7.2.1). */
	if (mw->ibx.type == 1 && !len) {
		spin_lock_bh(&mw->lock);
		if (mw->bound)
			old_lkey = mw->mr_lkey;
		mw->bound = false;
		mw->ibx.rkey = new_rkey;
		spin_unlock_bh(&mw->lock);
		status = 0;
		goto out;
	}
	mr = mlx_hw_mr_get(dev, le32_to_cpu(bind->mr_lkey));
	if (!mr || mr->ibx.pd != qp->ibx.pd ||
	    !(mr->ibx.access & IB_UVERBS_ACCESS_MW_BIND) ||
	    !mlx_hw_mr_covers(mr, addr, len))
		goto out;
	/* Remote write/atomic through a window need local write (C10-..). */
	if ((access & (IB_UVERBS_ACCESS_REMOTE_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->ibx.access & IB_UVERBS_ACCESS_LOCAL_WRITE))
		goto out;
	/*
	 * The checks above were against @mr: bind only if a rereg has not
	 * replaced it since (mlx_hw_rereg_mr swaps under bind_lock).
	 */
	spin_lock_bh(&dev->bind_lock);
	if (xa_load(&dev->mr_xa, mr->key.index) != &mr->key)
		goto out_unlock;
	spin_lock(&mw->lock);
	/* A type 2 window must be invalidated before it is bound again. */
	if ((mw->ibx.type == 2 && mw->bound) || !mlx_hw_mr_bind_mw(mr)) {
		spin_unlock(&mw->lock);
		goto out_unlock;
	}
	/* A type 1 window moves: its old MR is released below. */
	if (mw->bound)
		old_lkey = mw->mr_lkey;
	mw->bound = true;
	mw->mr_lkey = mr->ibx.lkey;
	mw->addr = addr;
	mw->length = len;
	mw->access = access;
	mw->qpn = qp->ibx.qp_num;
	mw->ibx.rkey = new_rkey;
	spin_unlock(&mw->lock);
	status = 0;
out_unlock:
	spin_unlock_bh(&dev->bind_lock);
out:
	/* Outside bind_lock and mw->lock: the MR lookup takes the xa_lock. */
	if (old_lkey)
		mlx_hw_mr_unbind_mw(dev, old_lkey);
	if (mr)
		mlx_hw_mr_put(mr);
	mlx_hw_obj_put(&k->obj);
	return status;
}
