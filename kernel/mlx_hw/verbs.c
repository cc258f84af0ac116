// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs.c - the driver ops of the simple objects (context, PD, XRC domain,
 * AH) and the ops table.  The others have files of their own.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "mlx_hw.h"

/* ---------------- context ---------------- */

static int mlx_hw_alloc_ucontext(struct ibx_ucontext *ibuctx,
				 struct ibx_udata *udata)
{
	struct mlx_hw_ucontext *uctx = to_muctx(ibuctx);
	struct mlx_hw_dev *dev = to_mdev(ibuctx->dev);
	struct mlx_hw_alloc_ucontext_resp resp = {};
	int err;

	xa_init_flags(&uctx->mmap_xa, XA_FLAGS_ALLOC1);
	mlx_hw_dbrec_ctx_init(uctx);
	err = mlx_hw_mmap_insert(uctx, dev->engine_region,
				 &resp.engine_page_key);
	if (err)
		return err;
	err = mlx_hw_db_ctx_init(uctx, &resp.db_ring_key);
	if (err)
		goto err_mmap;
	mlx_hw_db_ctx_resp(&resp);
	resp.abi_version = MLX_HW_ABI_VERSION;
	resp.engine_page_size = PAGE_SIZE;
	resp.max_inline_data = MLX_HW_MAX_INLINE;
	BUILD_BUG_ON(sizeof(struct mlx_hw_cqe) != 32);
	resp.cqe_size = sizeof(struct mlx_hw_cqe);
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_db;
	return 0;
err_db:
	mlx_hw_db_ctx_fini(uctx);
err_mmap:
	mlx_hw_mmap_remove_all(uctx);
	return err;
}

static void mlx_hw_dealloc_ucontext(struct ibx_ucontext *ibuctx)
{
	mlx_hw_db_ctx_fini(to_muctx(ibuctx));
	mlx_hw_dbrec_ctx_fini(to_muctx(ibuctx));
	mlx_hw_mmap_remove_all(to_muctx(ibuctx));
}

static long mlx_hw_ioctl(struct ibx_ucontext *ibuctx, unsigned int cmd,
			 unsigned long arg)
{
	struct mlx_hw_dev *dev = to_mdev(ibuctx->dev);
	struct mlx_hw_advise_mr advise;

	switch (cmd) {
	case MLX_HW_IOCTL_WAKE:
		mlx_hw_engine_wake(dev, to_muctx(ibuctx), 0);
		return 0;
	case MLX_HW_IOCTL_WAKE_DB:
		if (arg > U32_MAX)
			return -EINVAL;
		mlx_hw_engine_wake(dev, to_muctx(ibuctx), arg);
		return 0;
	case MLX_HW_IOCTL_ADVISE_MR:
		if (copy_from_user(&advise, (void __user *)arg, sizeof(advise)))
			return -EFAULT;
		return mlx_hw_advise_mr(to_muctx(ibuctx), &advise);
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

/* ---------------- AH (UD WQEs carry the address vector) ---------------- */

/* Kernel AHs (udata NULL) come checked by the core the same way. */
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
	.alloc_qp_obj = mlx_hw_alloc_qp_obj,
	.free_qp_obj = mlx_hw_free_qp_obj,
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
	.query_qp = mlx_hw_query_qp,
	.destroy_qp = mlx_hw_destroy_qp,
	.post_send = mlx_hw_post_send,
	.post_recv = mlx_hw_post_recv,
	.poll_cq = mlx_hw_poll_cq,
	.create_srq = mlx_hw_create_srq,
	.modify_srq = mlx_hw_modify_srq,
	.query_srq = mlx_hw_query_srq,
	.destroy_srq = mlx_hw_destroy_srq,
	.create_ah = mlx_hw_create_ah,
	.destroy_ah = mlx_hw_destroy_ah,
	.attach_mcast = mlx_hw_attach_mcast,
	.detach_mcast = mlx_hw_detach_mcast,
	.fill_res_qp_entry = mlx_hw_fill_res_qp_entry,

	.hw_counter_names = mlx_hw_counter_names,
	.num_hw_counters = MLX_HW_NUM_COUNTERS,
	.get_hw_counters = mlx_hw_get_hw_counters,
};
