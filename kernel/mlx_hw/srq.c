// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srq.c - shared receive queues (docs/prm.md 5): geometry, the region, the
 * limit event's arming, and lookup by number for XRC responders.
 */
#include <linux/log2.h>
#include "mlx_hw.h"

int mlx_hw_create_srq(struct ibx_srq *ibsrq, struct ibx_srq_attr *attr,
		      struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(ibsrq->dev);
	struct mlx_hw_srq *srq = to_msrq(ibsrq);
	struct mlx_hw_create_srq_resp resp = {};
	u32 srqn;
	int err;

	if (!ibsrq->uctx || (ibsrq->srq_type != IB_UVERBS_SRQT_BASIC &&
			     ibsrq->srq_type != IB_UVERBS_SRQT_XRC))
		return -EOPNOTSUPP;
	if (attr->max_wr < 1 || attr->max_wr > MLX_HW_MAX_QP_WR ||
	    attr->max_sge > MLX_HW_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	srq->stride = roundup_pow_of_two(max_t(u32,
		sizeof(struct mlx_hw_rwqe) + attr->max_sge * MLX_HW_WQE_SEG,
		MLX_HW_RQ_MIN_STRIDE));
	srq->wqe_cnt = roundup_pow_of_two(attr->max_wr);
	srq->max_sge = min_t(u32, MLX_HW_MAX_SGE,
			     (srq->stride - sizeof(struct mlx_hw_rwqe)) /
			     MLX_HW_WQE_SEG);
	srq->limit = attr->srq_limit;
	mutex_init(&srq->lock);
	mlx_hw_obj_init(&srq->obj);

	srq->region = mlx_hw_region_alloc(MLX_HW_DB_PAGE +
					  (size_t)srq->wqe_cnt * srq->stride,
					  false);
	if (!srq->region)
		return -ENOMEM;
	srq->db = srq->region->vaddr;
	srq->ring = srq->region->vaddr + MLX_HW_DB_PAGE;
	err = mlx_hw_mmap_insert(to_muctx(ibsrq->uctx), srq->region,
				 &srq->mmap_key);
	if (err)
		goto err_region;
	err = xa_alloc_cyclic(&dev->srq_xa, &srqn, NULL,
			      XA_LIMIT(1, MLX_HW_MAX_SRQ), &dev->srq_next,
			      GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_mmap;
	}
	srq->srqn = srqn;
	ibsrq->srq_num = srqn;

	resp.mmap_key = srq->mmap_key;
	resp.mmap_len = srq->region->size;
	resp.srqn = srqn;
	resp.ring_offset = MLX_HW_DB_PAGE;
	resp.wqe_cnt = srq->wqe_cnt;
	resp.stride = srq->stride;
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	attr->max_wr = srq->wqe_cnt;
	attr->max_sge = srq->max_sge;
	/* Published last: XRC responders find it from now on. */
	xa_store(&dev->srq_xa, srqn, srq, GFP_KERNEL);
	return 0;

err_xa:
	xa_erase(&dev->srq_xa, srqn);
err_mmap:
	mlx_hw_mmap_remove(to_muctx(ibsrq->uctx), srq->mmap_key);
err_region:
	mlx_hw_region_put(srq->region);
	return err;
}

/* The SRQ numbered @srqn, referenced, for XRC TGT responders. */
struct mlx_hw_srq *mlx_hw_srq_get(struct mlx_hw_dev *dev, u32 srqn)
{
	return mlx_hw_xa_get(&dev->srq_xa, srqn, struct mlx_hw_srq);
}

/* Mask bits of ibv_srq_attr_mask. */
#define MLX_HW_SRQ_MAX_WR	(1 << 0)
#define MLX_HW_SRQ_LIMIT	(1 << 1)

int mlx_hw_modify_srq(struct ibx_srq *ibsrq, const struct ibx_srq_attr *attr,
		      u32 mask, struct ibx_udata *udata)
{
	struct mlx_hw_srq *srq = to_msrq(ibsrq);

	if (mask & MLX_HW_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* no SRQ resize */
	if (mask & MLX_HW_SRQ_LIMIT) {
		if (attr->srq_limit > srq->wqe_cnt)
			return -EINVAL;
		mutex_lock(&srq->lock);
		srq->limit = attr->srq_limit;
		mutex_unlock(&srq->lock);
	}
	return 0;
}

int mlx_hw_query_srq(struct ibx_srq *ibsrq, struct ibx_srq_attr *attr)
{
	struct mlx_hw_srq *srq = to_msrq(ibsrq);

	attr->max_wr = srq->wqe_cnt;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

void mlx_hw_destroy_srq(struct ibx_srq *ibsrq)
{
	struct mlx_hw_dev *dev = to_mdev(ibsrq->dev);
	struct mlx_hw_srq *srq = to_msrq(ibsrq);

	/*
	 * The core destroys QPs using it first; XRC TGT QPs of any process
	 * may still be executing a request that names it.
	 */
	xa_erase(&dev->srq_xa, srq->srqn);
	mlx_hw_obj_drain(&srq->obj);
	mlx_hw_mmap_remove(to_muctx(ibsrq->uctx), srq->mmap_key);
	mlx_hw_region_put(srq->region);
}
