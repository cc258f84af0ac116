// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_srq.c - shared receive queues (CREATE_SRQ, CREATE_XSRQ, MODIFY_SRQ,
 * QUERY_SRQ, DESTROY_SRQ).
 */
#include <linux/module.h>
#include "core_priv.h"

#define IBX_SRQ_MAX_WR	(1 << 0)	/* IB_SRQ_MAX_WR */
#define IBX_SRQ_LIMIT	(1 << 1)	/* IB_SRQ_LIMIT */

static void ibx_srq_destroy_hw(struct ibx_uobj *uo)
{
	if (ibx_uobj_ops(uo)->destroy_srq)
		ibx_uobj_ops(uo)->destroy_srq(uo->obj);
}

static const struct ibx_uobj_type ibx_srq_type = {
	.type = IBX_OBJ_SRQ,
	.destroy_hw = ibx_srq_destroy_hw,
};

static int ibx_create_srq(struct ibx_cmd *c, struct ib_uverbs_create_xsrq *cmd)
{
	struct ibx_device *dev = c->uf->core->ibdev;
	const struct ibx_device_ops *ops = dev->ops;
	struct ib_uverbs_create_srq_resp resp = {};
	struct ibx_srq_attr attr = {};
	struct ibx_ucontext *uctx;
	struct ibx_uobj *uo, *pd_uo, *xrcd_uo = NULL, *cq_uo = NULL;
	struct ibx_srq *srq;
	int ret;

	uctx = ibx_cmd_ucontext(c);
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	switch (cmd->srq_type) {
	case IB_UVERBS_SRQT_BASIC:
		break;
	case IB_UVERBS_SRQT_XRC:
		/* An XRC SRQ has its domain and its own CQ (IBA A14.4.1). */
		xrcd_uo = ibx_uobj_lookup(c->uf, cmd->xrcd_handle,
					  IBX_OBJ_XRCD);
		cq_uo = ibx_uobj_lookup(c->uf, cmd->cq_handle, IBX_OBJ_CQ);
		if (!xrcd_uo || !cq_uo)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	pd_uo = ibx_uobj_lookup(c->uf, cmd->pd_handle, IBX_OBJ_PD);
	if (!pd_uo)
		return -EINVAL;
	if ((dev->attr.base.max_srq_wr && cmd->max_wr > dev->attr.base.max_srq_wr) ||
	    (dev->attr.base.max_srq_sge &&
	     cmd->max_sge > dev->attr.base.max_srq_sge))
		return -EINVAL;
	if (!ops->create_srq)
		return -EOPNOTSUPP;

	uo = ibx_uobj_alloc(c->uf, &ibx_srq_type, max(ops->size_srq, sizeof(*srq)));
	if (!uo)
		return -ENOMEM;
	uo->user_handle = cmd->user_handle;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	ibx_uobj_add_dep(uo, pd_uo);
	ibx_uobj_add_dep(uo, xrcd_uo);
	ibx_uobj_add_dep(uo, cq_uo);
	srq = uo->obj;
	srq->dev = dev;
	srq->uctx = uctx;
	srq->pd = pd_uo->obj;
	srq->xrcd = xrcd_uo ? xrcd_uo->obj : NULL;
	srq->cq = cq_uo ? cq_uo->obj : NULL;
	srq->srq_type = cmd->srq_type;
	srq->user_handle = cmd->user_handle;
	srq->core_priv = uo;
	attr.max_wr = cmd->max_wr;
	attr.max_sge = cmd->max_sge;
	attr.srq_limit = cmd->srq_limit;
	ret = ops->create_srq(srq, &attr, &c->udata);
	if (ret)
		goto err;
	resp.srq_handle = uo->handle;
	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srqn = srq->srq_num;
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
err:
	ibx_uobj_free_uncreated(uo);
	return ret;
}

IBX_CMD(create_srq)
{
	struct ib_uverbs_create_xsrq x = {};
	struct ib_uverbs_create_srq cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	x.user_handle = cmd.user_handle;
	x.srq_type = IB_UVERBS_SRQT_BASIC;
	x.pd_handle = cmd.pd_handle;
	x.max_wr = cmd.max_wr;
	x.max_sge = cmd.max_sge;
	x.srq_limit = cmd.srq_limit;
	return ibx_create_srq(c, &x);
}

IBX_CMD(create_xsrq)
{
	struct ib_uverbs_create_xsrq cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	return ibx_create_srq(c, &cmd);
}

IBX_CMD(modify_srq)
{
	const struct ibx_device_ops *ops = c->uf->core->ibdev->ops;
	struct ib_uverbs_modify_srq cmd;
	struct ibx_srq_attr attr = {};
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uo = ibx_uobj_lookup(c->uf, cmd.srq_handle, IBX_OBJ_SRQ);
	if (!uo)
		return -EINVAL;
	if (cmd.attr_mask & ~(IBX_SRQ_MAX_WR | IBX_SRQ_LIMIT))
		return -EINVAL;
	if (!ops->modify_srq)
		return -EOPNOTSUPP;
	attr.max_wr = cmd.max_wr;
	attr.srq_limit = cmd.srq_limit;
	return ops->modify_srq(uo->obj, &attr, cmd.attr_mask, &c->udata);
}

IBX_CMD(query_srq)
{
	const struct ibx_device_ops *ops = c->uf->core->ibdev->ops;
	struct ib_uverbs_query_srq_resp resp = {};
	struct ib_uverbs_query_srq cmd;
	struct ibx_srq_attr attr = {};
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uo = ibx_uobj_lookup(c->uf, cmd.srq_handle, IBX_OBJ_SRQ);
	if (!uo)
		return -EINVAL;
	if (!ops->query_srq)
		return -EOPNOTSUPP;
	ret = ops->query_srq(uo->obj, &attr);
	if (ret)
		return ret;
	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srq_limit = attr.srq_limit;
	return ibx_cmd_out(c, &resp, sizeof(resp));
}

IBX_CMD(destroy_srq)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct ib_uverbs_destroy_srq cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	ret = ibx_uobj_destroy_cmd(c->uf, cmd.srq_handle, IBX_OBJ_SRQ, NULL,
				   &resp.events_reported);
	if (ret)
		return ret;
	return ibx_cmd_out(c, &resp, sizeof(resp));
}
