// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srq.c - shared receive queues (docs/prm.md 5): geometry, the region, the
 * limit event's arming, resizing, and lookup by number for XRC responders.
 */
#include <linux/log2.h>
#include <linux/uaccess.h>
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
	srq->stride = mlx_hw_rq_stride(attr->max_sge);
	srq->wqe_cnt = roundup_pow_of_two(attr->max_wr);
	srq->max_sge = min_t(u32, MLX_HW_MAX_SGE,
			     (srq->stride - sizeof(struct mlx_hw_rwqe)) /
			     MLX_HW_WQE_SEG);
	srq->limit = attr->srq_limit;
	spin_lock_init(&srq->lock);
	mlx_hw_obj_init(&srq->obj);

	err = mlx_hw_dbrec_alloc(to_muctx(ibsrq->uctx), &srq->dbrec);
	if (err)
		return err;
	srq->db = srq->dbrec.vaddr;
	err = -ENOMEM;
	srq->region = mlx_hw_region_alloc((size_t)srq->wqe_cnt * srq->stride,
					  false);
	if (!srq->region)
		goto err_dbrec;
	srq->ring = srq->region->vaddr;
	err = mlx_hw_mmap_insert(to_muctx(ibsrq->uctx), srq->region,
				 &srq->mmap_key);
	if (err)
		goto err_region;
	err = xa_alloc_cyclic_bh(&dev->srq_xa, &srqn, NULL,
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
	resp.ring_offset = 0;
	resp.wqe_cnt = srq->wqe_cnt;
	resp.stride = srq->stride;
	mlx_hw_dbrec_resp(&srq->dbrec, &resp.db_key, &resp.db_offset);
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	attr->max_wr = srq->wqe_cnt;
	attr->max_sge = srq->max_sge;
	/* Published last: XRC responders find it from now on. */
	xa_store_bh(&dev->srq_xa, srqn, srq, GFP_KERNEL);
	return 0;

err_xa:
	xa_erase_bh(&dev->srq_xa, srqn);
err_mmap:
	mlx_hw_mmap_remove(to_muctx(ibsrq->uctx), srq->mmap_key);
err_region:
	mlx_hw_region_put(srq->region);
err_dbrec:
	mlx_hw_dbrec_free(to_muctx(ibsrq->uctx), &srq->dbrec);
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

/*
 * The resize half of MODIFY_SRQ (docs/prm.md 5.1).  The engine takes SRQ
 * WQEs only under srq->lock, so switching ring and doorbell record under
 * it is atomic for the engine: a WQE is taken from the old ring before the
 * copy or from the new one after.  The provider holds its SRQ lock across
 * the command, so the old producer index is stable.  The response is
 * written before the switch: a failed command leaves the SRQ as it was.
 */
static int mlx_hw_resize_srq(struct mlx_hw_srq *srq, u32 max_wr, u32 limit,
			     struct ibx_udata *udata)
{
	struct mlx_hw_ucontext *uctx = to_muctx(srq->ibx.uctx);
	struct mlx_hw_resize_srq_resp resp = {};
	struct mlx_hw_modify_srq_cmd cmd;
	struct mlx_hw_region *region, *old_region;
	u32 wqe_cnt, n, i, pi;
	u64 key, old_key;
	void *ring;
	int err;

	if (max_wr < 1 || max_wr > MLX_HW_MAX_QP_WR)
		return -EINVAL;
	wqe_cnt = roundup_pow_of_two(max_wr);
	if (limit > wqe_cnt)
		return -EINVAL;
	/* Without a place for the new region's key the provider can't follow. */
	if (udata->inlen < sizeof(cmd))
		return -EINVAL;
	err = ibx_udata_copy_from(&cmd, udata, sizeof(cmd));
	if (err)
		return err;
	region = mlx_hw_region_alloc_mapped(uctx, (size_t)wqe_cnt * srq->stride,
					    &key);
	if (IS_ERR(region))
		return PTR_ERR(region);
	ring = region->vaddr;
	resp.mmap_key = key;
	resp.mmap_len = region->size;
	resp.ring_offset = 0;
	resp.wqe_cnt = wqe_cnt;
	if (copy_to_user(u64_to_user_ptr(cmd.resp_addr), &resp,
			 sizeof(resp))) {
		err = -EFAULT;
		goto err_mmap;
	}

	spin_lock_bh(&srq->lock);
	pi = le32_to_cpu(READ_ONCE(srq->db->pi));
	n = pi - srq->ci;
	/* Fewer slots than WQEs posted and not yet taken (or a bogus pi). */
	if (n > wqe_cnt || n > srq->wqe_cnt) {
		spin_unlock_bh(&srq->lock);
		err = -EINVAL;
		goto err_mmap;
	}
	for (i = 0; i < n; i++)
		memcpy(ring + (size_t)i * srq->stride,
		       srq->ring + ((srq->ci + i) & (srq->wqe_cnt - 1)) *
				   srq->stride, srq->stride);
	/*
	 * The record stays; its indices restart with the ring.  The
	 * provider restarts its producer index from the new pi.
	 */
	WRITE_ONCE(srq->db->pi, cpu_to_le32(n));
	WRITE_ONCE(srq->db->ci, 0);
	old_region = srq->region;
	old_key = srq->mmap_key;
	srq->region = region;
	srq->mmap_key = key;
	srq->ring = ring;
	srq->wqe_cnt = wqe_cnt;
	srq->ci = 0;
	srq->limit = limit;
	spin_unlock_bh(&srq->lock);

	mlx_hw_mmap_remove(uctx, old_key);
	mlx_hw_region_put(old_region);
	return 0;

err_mmap:
	mlx_hw_mmap_remove(uctx, key);
	mlx_hw_region_put(region);
	return err;
}

int mlx_hw_modify_srq(struct ibx_srq *ibsrq, const struct ibx_srq_attr *attr,
		      u32 mask, struct ibx_udata *udata)
{
	struct mlx_hw_srq *srq = to_msrq(ibsrq);
	u32 limit = (mask & MLX_HW_SRQ_LIMIT) ? attr->srq_limit :
						READ_ONCE(srq->limit);

	if (mask & MLX_HW_SRQ_MAX_WR)
		return mlx_hw_resize_srq(srq, attr->max_wr, limit, udata);
	if (mask & MLX_HW_SRQ_LIMIT) {
		if (attr->srq_limit > srq->wqe_cnt)
			return -EINVAL;
		spin_lock_bh(&srq->lock);
		srq->limit = attr->srq_limit;
		spin_unlock_bh(&srq->lock);
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
	xa_erase_bh(&dev->srq_xa, srq->srqn);
	mlx_hw_obj_drain(&srq->obj, "an SRQ", NULL);
	mlx_hw_mmap_remove(to_muctx(ibsrq->uctx), srq->mmap_key);
	mlx_hw_region_put(srq->region);
	mlx_hw_dbrec_free(to_muctx(ibsrq->uctx), &srq->dbrec);
}
