// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cq.c - completion queues (docs/prm.md 6), their verbs: the ring and its
 * region, created, resized and destroyed.  What the device does with a CQ
 * is cqe.c.
 */
#include <linux/log2.h>
#include "mlx_hw.h"

int mlx_hw_create_cq(struct ibx_cq *ibcq, const struct ibx_cq_init_attr *attr,
		     struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(ibcq->dev);
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	struct mlx_hw_create_cq_resp resp = {};
	u32 cqn;
	int err;

	if (attr->cqe < 1 || attr->cqe > MLX_HW_MAX_CQE || attr->flags)
		return -EINVAL;
	cq->entries = roundup_pow_of_two(attr->cqe);
	cq->log_entries = ilog2(cq->entries);
	spin_lock_init(&cq->lock);
	mlx_hw_obj_init(&cq->obj);

	err = mlx_hw_dbrec_alloc(mlx_hw_uctx(ibcq->uctx), &cq->dbrec);
	if (err)
		return err;
	cq->db = cq->dbrec.vaddr;
	err = -ENOMEM;
	cq->region = mlx_hw_region_alloc((size_t)cq->entries *
					 sizeof(struct mlx_hw_cqe), false);
	if (!cq->region)
		goto err_dbrec;
	cq->ring = cq->region->vaddr;
	spin_lock_init(&cq->poll_lock);

	/* A kernel CQ (kverbs.c) is polled in place: no mapping, no udata. */
	if (ibcq->uctx) {
		err = mlx_hw_mmap_insert(to_muctx(ibcq->uctx), cq->region,
					 &cq->mmap_key);
		if (err)
			goto err_region;
	}
	err = xa_alloc_cyclic_bh(&dev->cq_xa, &cqn, NULL,
				 XA_LIMIT(1, MLX_HW_MAX_CQ), &dev->cq_next,
				 GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_mmap;
	}
	cq->cqn = cqn;

	resp.mmap_key = cq->mmap_key;
	resp.mmap_len = cq->region->size;
	resp.cqn = cq->cqn;
	resp.ring_offset = 0;
	resp.entries = cq->entries;
	mlx_hw_dbrec_resp(&cq->dbrec, &resp.db_key, &resp.db_offset);
	err = udata ? ibx_udata_copy_to(udata, &resp, sizeof(resp)) : 0;
	if (err)
		goto err_xa;
	ibcq->cqe = cq->entries;
	/* Published last: from now on its ring entries find it. */
	xa_store_bh(&dev->cq_xa, cq->cqn, cq, GFP_KERNEL);
	return 0;

err_xa:
	xa_erase_bh(&dev->cq_xa, cq->cqn);
err_mmap:
	if (ibcq->uctx)
		mlx_hw_mmap_remove(to_muctx(ibcq->uctx), cq->mmap_key);
err_region:
	mlx_hw_region_put(cq->region);
err_dbrec:
	mlx_hw_dbrec_free(mlx_hw_uctx(ibcq->uctx), &cq->dbrec);
	return err;
}

void mlx_hw_destroy_cq(struct ibx_cq *ibcq)
{
	struct mlx_hw_dev *dev = to_mdev(ibcq->dev);
	struct mlx_hw_cq *cq = to_mcq(ibcq);

	xa_erase_bh(&dev->cq_xa, cq->cqn);
	mlx_hw_obj_drain(&cq->obj, "a CQ", NULL);
	if (ibcq->uctx)
		mlx_hw_mmap_remove(to_muctx(ibcq->uctx), cq->mmap_key);
	mlx_hw_region_put(cq->region);
	mlx_hw_dbrec_free(mlx_hw_uctx(ibcq->uctx), &cq->dbrec);
}

/*
 * RESIZE_CQ (docs/prm.md, "Resizing a CQ").  The engine produces CQEs only
 * under cq->lock, so switching the ring and rewriting the doorbell record
 * under it is atomic for the engine: a CQE lands either in the old ring
 * before the copy or in the new one after.  The provider holds its CQ lock
 * across the command (nothing polls or arms meanwhile) and switches to the
 * new region the response names; the old one lives on until it unmaps it.
 */
int mlx_hw_resize_cq(struct ibx_cq *ibcq, int cqe, struct ibx_udata *udata)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	struct mlx_hw_ucontext *uctx = to_muctx(ibcq->uctx);
	struct mlx_hw_resize_cq_resp resp = {};
	struct mlx_hw_region *region, *old_region;
	u32 entries, n, i, ci;
	struct mlx_hw_cqe *ring;
	u64 key, old_key;
	int err;

	if (!ibcq->uctx)
		return -EOPNOTSUPP;	/* kernel CQs are not resized */
	if (cqe < 1 || cqe > MLX_HW_MAX_CQE)
		return -EINVAL;
	/*
	 * The work this context has rung completes first, as on hardware
	 * that would have finished it by now: the completions it makes
	 * count against the new size (rdma-core's test_resize_cq fills the
	 * CQ with sends, then expects EINVAL from a resize below that).
	 */
	mlx_hw_engine_wake(to_mdev(ibcq->dev), uctx, 0);
	/* Without the new region's key the provider could not follow. */
	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	entries = roundup_pow_of_two(cqe);
	region = mlx_hw_region_alloc_mapped(uctx, (size_t)entries * sizeof(*ring),
					    &key);
	if (IS_ERR(region))
		return PTR_ERR(region);
	ring = region->vaddr;
	/* Told before the switch: a failed copy leaves the CQ as it was. */
	resp.mmap_key = key;
	resp.mmap_len = region->size;
	resp.ring_offset = 0;
	resp.entries = entries;
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_mmap;

	spin_lock_bh(&cq->lock);
	ci = le32_to_cpu(READ_ONCE(cq->db->ci));
	n = cq->pi - ci;
	/* Fewer entries than completions waiting (or a bogus ci). */
	if (n > (u32)cqe || n > cq->entries) {
		spin_unlock_bh(&cq->lock);
		err = -EINVAL;
		goto err_mmap;
	}
	for (i = 0; i < n; i++) {
		memcpy(&ring[i], &cq->ring[(ci + i) & (cq->entries - 1)],
		       offsetof(struct mlx_hw_cqe, owner));
		/* Index i of a fresh ring is in pass 0: owner 1. */
		ring[i].owner = 1;
	}
	/* The arm word stays; the indices restart with the ring. */
	WRITE_ONCE(cq->db->ci, 0);
	WRITE_ONCE(cq->db->pi, cpu_to_le32(n));
	old_region = cq->region;
	old_key = cq->mmap_key;
	cq->region = region;
	cq->mmap_key = key;
	cq->ring = ring;
	cq->entries = entries;
	cq->log_entries = ilog2(entries);
	cq->pi = n;
	spin_unlock_bh(&cq->lock);

	ibcq->cqe = entries;
	mlx_hw_mmap_remove(uctx, old_key);
	mlx_hw_region_put(old_region);
	return 0;

err_mmap:
	mlx_hw_mmap_remove(uctx, key);
	mlx_hw_region_put(region);
	return err;
}
