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
	uo = ibx_uobj_alloc(c->uf, IBX_OBJ_PD, max(ops->size_pd, sizeof(*pd)));
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

/* IBA 10.6.3 memory access rights: remote write/atomic need local write. */
static int ibx_check_mr_access(u32 access)
{
	if (access & ~IBX_ACCESS_SUPPORTED)
		return -EINVAL;
	if ((access & (IB_UVERBS_ACCESS_REMOTE_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_UVERBS_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	/* No on-demand paging in this core. */
	if (access & IB_UVERBS_ACCESS_ON_DEMAND)
		return -EOPNOTSUPP;
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
	ret = ibx_check_mr_access(cmd.access_flags);
	if (ret)
		return ret;
	pd_uo = ibx_uobj_lookup(c->uf, cmd.pd_handle, IBX_OBJ_PD);
	if (!pd_uo)
		return -EINVAL;
	if (!ops->reg_mr)
		return -EOPNOTSUPP;

	uo = ibx_uobj_alloc(c->uf, IBX_OBJ_MR, max(ops->size_mr, sizeof(*mr)));
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
	uo = ibx_uobj_alloc(c->uf, IBX_OBJ_MW, max(ops->size_mw, sizeof(*mw)));
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
#define IBX_MR_REREG_ALL	(IBX_MR_REREG_TRANS | IBX_MR_REREG_PD | \
				 IBX_MR_REREG_ACCESS)

/*
 * The driver API has no rereg op, so the core registers a new driver MR
 * with the merged attributes and, once that succeeded, releases the old
 * one behind the same handle.  The keys may change, which the response
 * reports (as ib_uverbs does when a driver re-creates the MR).
 */
IBX_CMD(rereg_mr)
{
	const struct ibx_device_ops *ops = ibx_dev(c)->ops;
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct ibx_uobj *uo, *pd_uo = NULL;
	struct ib_uverbs_rereg_mr cmd;
	struct ibx_mr *old, *mr;
	u64 start, length, iova;
	u32 access;
	int ret, i;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!cmd.flags || (cmd.flags & ~IBX_MR_REREG_ALL))
		return -EINVAL;
	if ((cmd.flags & IBX_MR_REREG_TRANS) &&
	    (cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK))
		return -EINVAL;
	uo = ibx_uobj_lookup(c->uf, cmd.mr_handle, IBX_OBJ_MR);
	if (!uo)
		return -EINVAL;
	old = uo->obj;
	if (cmd.flags & IBX_MR_REREG_ACCESS) {
		ret = ibx_check_mr_access(cmd.access_flags);
		if (ret)
			return ret;
	}
	if (cmd.flags & IBX_MR_REREG_PD) {
		pd_uo = ibx_uobj_lookup(c->uf, cmd.pd_handle, IBX_OBJ_PD);
		if (!pd_uo)
			return -EINVAL;
	}
	if (!ops->reg_mr)
		return -EOPNOTSUPP;

	start = (cmd.flags & IBX_MR_REREG_TRANS) ? cmd.start :
						    old->umem->address;
	length = (cmd.flags & IBX_MR_REREG_TRANS) ? cmd.length : old->length;
	iova = (cmd.flags & IBX_MR_REREG_TRANS) ? cmd.hca_va : old->iova;
	access = (cmd.flags & IBX_MR_REREG_ACCESS) ? cmd.access_flags :
						      old->access;

	mr = kzalloc(max(ops->size_mr, sizeof(*mr)), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	ret = ibx_umem_get(start, length, access, &mr->umem);
	if (ret)
		goto err_free;
	mr->dev = ibx_dev(c);
	mr->pd = pd_uo ? pd_uo->obj : old->pd;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	ret = ops->reg_mr(mr, &c->udata);
	if (ret)
		goto err_umem;

	if (ops->dereg_mr)
		ops->dereg_mr(old);
	ibx_umem_release(old->umem);
	kfree(old);
	uo->obj = mr;
	if (pd_uo) {
		/* deps[0] is the PD (the only dependency of an MR). */
		for (i = 0; i < IBX_MAX_DEPS; i++)
			if (uo->deps[i])
				uo->deps[i]->usecnt--;
		memset(uo->deps, 0, sizeof(uo->deps));
		ibx_uobj_add_dep(uo, pd_uo);
	}
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	return ibx_cmd_out(c, &resp, sizeof(resp));

err_umem:
	ibx_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ret;
}
