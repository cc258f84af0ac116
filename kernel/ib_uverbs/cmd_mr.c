// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_mr.c - protection domains, memory regions and memory windows.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include "core_priv.h"

#define IBX_ACCESS_SUPPORTED	(((IB_UVERBS_ACCESS_HUGETLB << 1) - 1) | \
				 IB_UVERBS_ACCESS_OPTIONAL_RANGE)

static struct ibx_device *ibx_dev(struct ibx_cmd *c)
{
	return c->uf->core->ibdev;
}

static void ibx_pd_destroy_hw(struct ibx_uobj *uo)
{
	if (ibx_uobj_ops(uo)->dealloc_pd)
		ibx_uobj_ops(uo)->dealloc_pd(uo->obj);
}

static const struct ibx_uobj_type ibx_pd_type = {
	.type = IBX_OBJ_PD,
	.destroy_hw = ibx_pd_destroy_hw,
};

/* The driver may refuse (upstream's ib_dereg_mr_user can fail). */
static int ibx_mr_begin_destroy(struct ibx_uobj *uo)
{
	if (!ibx_uobj_ops(uo)->begin_dereg_mr)
		return 0;
	return ibx_uobj_ops(uo)->begin_dereg_mr(uo->obj);
}

/* The pages stay pinned until the driver no longer maps them. */
static void ibx_mr_free_umem(struct ibx_uobj *uo)
{
	ibx_umem_release(((struct ibx_mr *)uo->obj)->umem);
}

static void ibx_mr_destroy_hw(struct ibx_uobj *uo)
{
	if (ibx_uobj_ops(uo)->dereg_mr)
		ibx_uobj_ops(uo)->dereg_mr(uo->obj);
	ibx_mr_free_umem(uo);
}

static const struct ibx_uobj_type ibx_mr_type = {
	.type = IBX_OBJ_MR,
	.begin_destroy = ibx_mr_begin_destroy,
	.destroy_hw = ibx_mr_destroy_hw,
	.free_uncreated = ibx_mr_free_umem,
};

static void ibx_mw_destroy_hw(struct ibx_uobj *uo)
{
	if (ibx_uobj_ops(uo)->dealloc_mw)
		ibx_uobj_ops(uo)->dealloc_mw(uo->obj);
}

static const struct ibx_uobj_type ibx_mw_type = {
	.type = IBX_OBJ_MW,
	.destroy_hw = ibx_mw_destroy_hw,
};

IBX_CMD(alloc_pd)
{
	const struct ibx_device_ops *ops = ibx_dev(c)->ops;
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ib_uverbs_alloc_pd cmd;
	struct ibx_ucontext *uctx;
	struct ibx_uobj *uo;
	struct ibx_pd *pd;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uctx = ibx_cmd_ucontext(c);
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	if (!ops->alloc_pd)
		return -EOPNOTSUPP;
	uo = ibx_uobj_alloc(c->uf, &ibx_pd_type, max(ops->size_pd, sizeof(*pd)));
	if (!uo)
		return -ENOMEM;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	pd = uo->obj;
	pd->dev = ibx_dev(c);
	pd->uctx = uctx;
	ret = ops->alloc_pd(pd, &c->udata);
	if (ret)
		goto err;
	resp.pd_handle = uo->handle;
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
err:
	ibx_uobj_free_uncreated(uo);
	return ret;
}

IBX_CMD(dealloc_pd)
{
	struct ib_uverbs_dealloc_pd cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	return ibx_uobj_destroy_cmd(c->uf, cmd.pd_handle, IBX_OBJ_PD, NULL,
				    NULL);
}

/*
 * IBA 10.6.3 memory access rights: remote write/atomic need local write.
 * On-demand paging only where the device reports it; an implicit MR
 * (start 0, length U64_MAX: the whole address space, at iova 0) only
 * where it reports that too, as upstream's ib_uverbs and mlx5 do.
 */
static int ibx_check_mr_access(struct ibx_device *dev, u32 access, u64 start,
			       u64 length, u64 iova)
{
	u64 odp = dev->attr.odp_caps.general_caps;

	if (access & ~IBX_ACCESS_SUPPORTED)
		return -EINVAL;
	if ((access & (IB_UVERBS_ACCESS_REMOTE_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_UVERBS_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (!(access & IB_UVERBS_ACCESS_ON_DEMAND))
		return 0;
	if (!(odp & IBX_ODP_SUPPORT))
		return -EOPNOTSUPP;
	if (!start && length == U64_MAX &&
	    (iova || !(odp & IBX_ODP_SUPPORT_IMPLICIT)))
		return -EINVAL;
	return 0;
}

IBX_CMD(reg_mr)
{
	const struct ibx_device_ops *ops = ibx_dev(c)->ops;
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uverbs_reg_mr cmd;
	struct ibx_uobj *uo, *pd_uo;
	struct ibx_mr *mr;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if ((cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK))
		return -EINVAL;
	ret = ibx_check_mr_access(ibx_dev(c), cmd.access_flags, cmd.start,
				  cmd.length, cmd.hca_va);
	if (ret)
		return ret;
	pd_uo = ibx_uobj_lookup(c->uf, cmd.pd_handle, IBX_OBJ_PD);
	if (!pd_uo)
		return -EINVAL;
	if (!ops->reg_mr)
		return -EOPNOTSUPP;

	uo = ibx_uobj_alloc(c->uf, &ibx_mr_type, max(ops->size_mr, sizeof(*mr)));
	if (!uo)
		return -ENOMEM;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	mr = uo->obj;
	ret = ibx_umem_get(cmd.start, cmd.length, cmd.access_flags, &mr->umem);
	if (ret)
		goto err;
	mr->dev = ibx_dev(c);
	mr->pd = pd_uo->obj;
	mr->iova = cmd.hca_va;
	mr->length = cmd.length;
	mr->access = cmd.access_flags;
	ibx_uobj_add_dep(uo, pd_uo);
	ret = ops->reg_mr(mr, &c->udata);
	if (ret)
		goto err;
	resp.mr_handle = uo->handle;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
err:
	ibx_uobj_free_uncreated(uo);
	return ret;
}

IBX_CMD(dereg_mr)
{
	struct ib_uverbs_dereg_mr cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	return ibx_uobj_destroy_cmd(c->uf, cmd.mr_handle, IBX_OBJ_MR, NULL,
				    NULL);
}

IBX_CMD(alloc_mw)
{
	const struct ibx_device_ops *ops = ibx_dev(c)->ops;
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ib_uverbs_alloc_mw cmd;
	struct ibx_uobj *uo, *pd_uo;
	struct ibx_mw *mw;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	pd_uo = ibx_uobj_lookup(c->uf, cmd.pd_handle, IBX_OBJ_PD);
	if (!pd_uo)
		return -EINVAL;
	if (cmd.mw_type != 1 && cmd.mw_type != 2)
		return -EINVAL;
	if (!ops->alloc_mw)
		return -EOPNOTSUPP;
	uo = ibx_uobj_alloc(c->uf, &ibx_mw_type, max(ops->size_mw, sizeof(*mw)));
	if (!uo)
		return -ENOMEM;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	mw = uo->obj;
	mw->dev = ibx_dev(c);
	mw->pd = pd_uo->obj;
	mw->type = cmd.mw_type;
	ibx_uobj_add_dep(uo, pd_uo);
	ret = ops->alloc_mw(mw, &c->udata);
	if (ret)
		goto err;
	resp.mw_handle = uo->handle;
	resp.rkey = mw->rkey;
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
err:
	ibx_uobj_free_uncreated(uo);
	return ret;
}

IBX_CMD(dealloc_mw)
{
	struct ib_uverbs_dealloc_mw cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	return ibx_uobj_destroy_cmd(c->uf, cmd.mw_handle, IBX_OBJ_MW, NULL,
				    NULL);
}

#define IBX_MR_REREG_TRANS	(1 << 0)	/* IB_MR_REREG_TRANS */
#define IBX_MR_REREG_PD		(1 << 1)	/* IB_MR_REREG_PD */
#define IBX_MR_REREG_ACCESS	(1 << 2)	/* IB_MR_REREG_ACCESS */
#define IBX_MR_REREG_SUPPORTED	(IBX_MR_REREG_TRANS | IBX_MR_REREG_PD | \
				 IBX_MR_REREG_ACCESS)

/* Moves the MR's single dependency (its PD) to @pd_uo. */
static void ibx_mr_move_pd(struct ibx_uobj *uo, struct ibx_uobj *pd_uo)
{
	int i;

	for (i = 0; i < IBX_MAX_DEPS; i++) {
		if (uo->deps[i]) {
			uo->deps[i]->usecnt--;
			uo->deps[i] = NULL;
		}
	}
	ibx_uobj_add_dep(uo, pd_uo);
}

/*
 * REREG_MR as ib_uverbs_rereg_mr: the checks in its order, then the
 * driver swaps in a new driver MR with the same keys (ops->rereg_mr).  A
 * new translation is pinned before the old one is released, so for a
 * moment both count against RLIMIT_MEMLOCK, as upstream.  The pages are
 * also pinned again when new access rights need them writable.
 */
IBX_CMD(rereg_mr)
{
	const struct ibx_device_ops *ops = ibx_dev(c)->ops;
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct ibx_uobj *uo, *pd_uo = NULL;
	struct ib_uverbs_rereg_mr cmd;
	struct ibx_mr *old, *mr;
	bool repin;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!cmd.flags || (cmd.flags & ~IBX_MR_REREG_SUPPORTED))
		return -EINVAL;
	if ((cmd.flags & IBX_MR_REREG_TRANS) &&
	    (cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK))
		return -EINVAL;
	uo = ibx_uobj_lookup_write(c->uf, cmd.mr_handle, IBX_OBJ_MR);
	if (IS_ERR(uo))
		return PTR_ERR(uo);
	old = uo->obj;
	if (cmd.flags & IBX_MR_REREG_ACCESS) {
		ret = (cmd.flags & IBX_MR_REREG_TRANS) ?
		      ibx_check_mr_access(ibx_dev(c), cmd.access_flags,
					  cmd.start, cmd.length, cmd.hca_va) :
		      ibx_check_mr_access(ibx_dev(c), cmd.access_flags,
					  old->umem->address,
					  old->umem->length, old->iova);
		if (ret)
			return ret;
	}
	if (cmd.flags & IBX_MR_REREG_PD) {
		pd_uo = ibx_uobj_lookup(c->uf, cmd.pd_handle, IBX_OBJ_PD);
		if (!pd_uo)
			return -EINVAL;
	}
	if (!ops->rereg_mr)
		return -EOPNOTSUPP;

	mr = kzalloc(max(ops->size_mr, sizeof(*mr)), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	mr->dev = old->dev;
	mr->pd = pd_uo ? pd_uo->obj : old->pd;
	mr->access = (cmd.flags & IBX_MR_REREG_ACCESS) ? cmd.access_flags :
							  old->access;
	if (cmd.flags & IBX_MR_REREG_TRANS) {
		mr->iova = cmd.hca_va;
		mr->length = cmd.length;
		repin = true;
	} else {
		mr->iova = old->iova;
		mr->length = old->length;
		/* New rights may need writable pages, or none pinned. */
		repin = (ibx_umem_access_writable(mr->access) &&
			 !old->umem->writable) ||
			((mr->access ^ old->access) &
			 IB_UVERBS_ACCESS_ON_DEMAND);
	}
	if (repin) {
		ret = ibx_umem_get((cmd.flags & IBX_MR_REREG_TRANS) ?
				   cmd.start : old->umem->address,
				   mr->length, mr->access, &mr->umem);
		if (ret)
			goto err_free;
	} else {
		mr->umem = old->umem;
	}

	ret = ops->rereg_mr(old, mr, cmd.flags, &c->udata);
	if (ret)
		goto err_umem;
	/* The device sees only @mr now. */
	if (repin)
		ibx_umem_release(old->umem);
	kfree(old);
	uo->obj = mr;
	if (pd_uo)
		ibx_mr_move_pd(uo, pd_uo);
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	return ibx_cmd_out(c, &resp, sizeof(resp));

err_umem:
	if (repin)
		ibx_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ret;
}
