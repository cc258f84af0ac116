// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs.c - the driver ops of the simple objects (context, PD, MR, AH) and
 * the ops table.  Queues are in queue.c.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "mlx_hw.h"

/* ---------------- engine references on objects ---------------- */

void mlx_hw_obj_init(struct mlx_hw_obj_ref *obj)
{
	refcount_set(&obj->ref, 1);
	init_completion(&obj->free);
}

bool mlx_hw_obj_get(struct mlx_hw_obj_ref *obj)
{
	return refcount_inc_not_zero(&obj->ref);
}

void mlx_hw_obj_put(struct mlx_hw_obj_ref *obj)
{
	if (refcount_dec_and_test(&obj->ref))
		complete(&obj->free);
}

/* Drops the object's own reference and waits for the engine's to go. */
void mlx_hw_obj_drain(struct mlx_hw_obj_ref *obj)
{
	mlx_hw_obj_put(obj);
	wait_for_completion(&obj->free);
}

/* ---------------- context ---------------- */

static int mlx_hw_alloc_ucontext(struct ibx_ucontext *ibuctx,
				 struct ibx_udata *udata)
{
	struct mlx_hw_ucontext *uctx = to_muctx(ibuctx);
	struct mlx_hw_dev *dev = to_mdev(ibuctx->dev);
	struct mlx_hw_alloc_ucontext_resp resp = {};
	int err;

	xa_init_flags(&uctx->mmap_xa, XA_FLAGS_ALLOC1);
	err = mlx_hw_mmap_insert(uctx, dev->engine_region,
				 &resp.engine_page_key);
	if (err)
		return err;
	resp.abi_version = MLX_HW_ABI_VERSION;
	resp.engine_page_size = PAGE_SIZE;
	resp.max_inline_data = MLX_HW_MAX_INLINE;
	resp.cqe_size = sizeof(struct mlx_hw_cqe);
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		mlx_hw_mmap_remove_all(uctx);
	return err;
}

static void mlx_hw_dealloc_ucontext(struct ibx_ucontext *ibuctx)
{
	mlx_hw_mmap_remove_all(to_muctx(ibuctx));
}

static long mlx_hw_ioctl(struct ibx_ucontext *ibuctx, unsigned int cmd,
			 unsigned long arg)
{
	struct mlx_hw_dev *dev = to_mdev(ibuctx->dev);

	switch (cmd) {
	case MLX_HW_IOCTL_WAKE:
		mlx_hw_engine_wake(dev);
		return 0;
	default:
		return -ENOTTY;
	}
}

/* ---------------- PD ---------------- */

static int mlx_hw_alloc_pd(struct ibx_pd *pd, struct ibx_udata *udata)
{
	return 0;
}

static void mlx_hw_dealloc_pd(struct ibx_pd *pd)
{
}

/*
 * An XRC domain needs no device state: responders compare the domain of
 * the XRC SRQ a request names with their own by identity.
 */
static int mlx_hw_alloc_xrcd(struct ibx_xrcd *xrcd, struct ibx_udata *udata)
{
	return 0;
}

static void mlx_hw_dealloc_xrcd(struct ibx_xrcd *xrcd)
{
}

/* ---------------- MR ---------------- */

#define MLX_HW_ACCESS_ALL (IB_UVERBS_ACCESS_LOCAL_WRITE | \
			   IB_UVERBS_ACCESS_REMOTE_WRITE | \
			   IB_UVERBS_ACCESS_REMOTE_READ | \
			   IB_UVERBS_ACCESS_REMOTE_ATOMIC | \
			   IB_UVERBS_ACCESS_MW_BIND | \
			   IB_UVERBS_ACCESS_ZERO_BASED | \
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
	if (!ibmr->umem || ibmr->length > MLX_HW_MAX_MR_SIZE)
		return -EINVAL;
	/* Remote/local writes need writable pages. */
	if ((access & (IB_UVERBS_ACCESS_LOCAL_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_ATOMIC)) && !ibmr->umem->writable)
		return -EINVAL;
	return 0;
}

static int mlx_hw_reg_mr(struct ibx_mr *ibmr, struct ibx_udata *udata)
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
	err = xa_alloc_cyclic(&dev->mr_xa, &index, &mr->key,
			      XA_LIMIT(1, MLX_HW_MAX_MR), &dev->mr_next,
			      GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	mr->key.index = index;
	ibmr->lkey = (index << 8) |
		     ((u32)atomic_inc_return(&dev->mr_keybyte) & 0xff);
	ibmr->rkey = ibmr->lkey;
	return 0;
}

static void mlx_hw_dereg_mr(struct ibx_mr *ibmr)
{
	struct mlx_hw_dev *dev = to_mdev(ibmr->dev);
	struct mlx_hw_mr *mr = to_mmr(ibmr);

	xa_erase(&dev->mr_xa, mr->key.index);
	/* The engine may be copying from/to it: wait until it is done. */
	mlx_hw_obj_drain(&mr->key.obj);
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
static int mlx_hw_rereg_mr(struct ibx_mr *ibmr, struct ibx_mr *ibnew,
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
	mlx_hw_obj_drain(&old->key.obj);
	return 0;
}

/* Looks up a key and takes an engine reference; NULL if stale/unknown. */
struct mlx_hw_mr *mlx_hw_mr_get(struct mlx_hw_dev *dev, u32 key)
{
	struct mlx_hw_mr *mr = NULL;
	struct mlx_hw_key *k;

	xa_lock(&dev->mr_xa);
	k = xa_load(&dev->mr_xa, key >> 8);
	if (k && k->kind == MLX_HW_KEY_MR) {
		mr = container_of(k, struct mlx_hw_mr, key);
		if (mr->ibx.lkey != key || !mlx_hw_obj_get(&k->obj))
			mr = NULL;
	}
	xa_unlock(&dev->mr_xa);
	return mr;
}

/* ---------------- AH (UD WQEs carry the address vector) ---------------- */

static int mlx_hw_create_ah(struct ibx_ah *ah, struct ibx_udata *udata)
{
	if (ah->attr.sgid_index >= IBX_GID_TABLE_LEN)
		return -EINVAL;
	return 0;
}

static void mlx_hw_destroy_ah(struct ibx_ah *ah)
{
}

const struct ibx_device_ops mlx_hw_ops = {
	.owner = THIS_MODULE,
	.size_ucontext = sizeof(struct mlx_hw_ucontext),
	.size_pd = sizeof(struct mlx_hw_pd),
	.size_mr = sizeof(struct mlx_hw_mr),
	.size_mw = sizeof(struct mlx_hw_mw),
	.size_cq = sizeof(struct mlx_hw_cq),
	.size_qp = sizeof(struct mlx_hw_qp),
	.size_srq = sizeof(struct mlx_hw_srq),
	.size_ah = sizeof(struct ibx_ah),

	.query_port = mlx_hw_query_port,
	.alloc_ucontext = mlx_hw_alloc_ucontext,
	.dealloc_ucontext = mlx_hw_dealloc_ucontext,
	.mmap = mlx_hw_mmap,
	.ioctl = mlx_hw_ioctl,
	.alloc_pd = mlx_hw_alloc_pd,
	.dealloc_pd = mlx_hw_dealloc_pd,
	.alloc_xrcd = mlx_hw_alloc_xrcd,
	.dealloc_xrcd = mlx_hw_dealloc_xrcd,
	.reg_mr = mlx_hw_reg_mr,
	.begin_dereg_mr = mlx_hw_begin_dereg_mr,
	.dereg_mr = mlx_hw_dereg_mr,
	.rereg_mr = mlx_hw_rereg_mr,
	.alloc_mw = mlx_hw_alloc_mw,
	.dealloc_mw = mlx_hw_dealloc_mw,
	.create_cq = mlx_hw_create_cq,
	.resize_cq = mlx_hw_resize_cq,
	.destroy_cq = mlx_hw_destroy_cq,
	.req_notify_cq = mlx_hw_req_notify_cq,
	.create_qp = mlx_hw_create_qp,
	.modify_qp = mlx_hw_modify_qp,
	.destroy_qp = mlx_hw_destroy_qp,
	.create_srq = mlx_hw_create_srq,
	.modify_srq = mlx_hw_modify_srq,
	.query_srq = mlx_hw_query_srq,
	.destroy_srq = mlx_hw_destroy_srq,
	.create_ah = mlx_hw_create_ah,
	.destroy_ah = mlx_hw_destroy_ah,

	.hw_counter_names = mlx_hw_counter_names,
	.num_hw_counters = MLX_HW_NUM_COUNTERS,
	.get_hw_counters = mlx_hw_get_hw_counters,
};
