// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_cq.c - completion queues: CREATE_CQ, EX_CREATE_CQ, RESIZE_CQ,
 * REQ_NOTIFY_CQ, DESTROY_CQ.
 */
#include <linux/module.h>
#include "core_priv.h"

#define IBX_CQ_FLAGS_SUPPORTED	(IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION | \
				 IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN)

static void ibx_cq_destroy_hw(struct ibx_uobj *uo)
{
	if (ibx_uobj_ops(uo)->destroy_cq)
		ibx_uobj_ops(uo)->destroy_cq(uo->obj);
}

static const struct ibx_uobj_type ibx_cq_type = {
	.type = IBX_OBJ_CQ,
	.destroy_hw = ibx_cq_destroy_hw,
};

static bool ibx_cqe_ok(struct ibx_device *dev, u32 cqe)
{
	return cqe && (!dev->attr.base.max_cqe || cqe <= dev->attr.base.max_cqe);
}

/* Creates the CQ; the caller writes its response and commits @out. */
static int ibx_do_create_cq(struct ibx_cmd *c, struct ib_uverbs_ex_create_cq *cmd,
			 struct ibx_uobj **out)
{
	struct ibx_device *dev = c->uf->core->ibdev;
	const struct ibx_device_ops *ops = dev->ops;
	struct ibx_cq_init_attr attr = {};
	struct ibx_event_file *ef = NULL;
	struct ibx_ucontext *uctx;
	struct ibx_uobj *uo;
	struct ibx_cq *cq;
	int ret;

	uctx = ibx_cmd_ucontext(c);
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	if (cmd->comp_vector >= max(dev->num_comp_vectors, 1u))
		return -EINVAL;
	if (!ibx_cqe_ok(dev, cmd->cqe))
		return -EINVAL;
	if (!ops->create_cq)
		return -EOPNOTSUPP;
	if (cmd->comp_channel >= 0) {
		ef = ibx_comp_channel_get(cmd->comp_channel, c->uf);
		if (!ef)
			return -EINVAL;
	}
	uo = ibx_uobj_alloc(c->uf, &ibx_cq_type, max(ops->size_cq, sizeof(*cq)));
	if (!uo) {
		ibx_event_file_put(ef);
		return -ENOMEM;
	}
	uo->comp_file = ef;
	uo->user_handle = cmd->user_handle;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	cq = uo->obj;
	cq->dev = dev;
	cq->uctx = uctx;
	cq->cqe = cmd->cqe;
	cq->user_handle = cmd->user_handle;
	cq->core_priv = uo;
	attr.cqe = cmd->cqe;
	attr.comp_vector = cmd->comp_vector;
	attr.flags = cmd->flags;
	ret = ops->create_cq(cq, &attr, &c->udata);
	if (ret)
		goto err;
	*out = uo;
	return 0;
err:
	ibx_uobj_free_uncreated(uo);
	return ret;
}

IBX_CMD(create_cq)
{
	struct ib_uverbs_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq ex = {};
	struct ib_uverbs_create_cq cmd;
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ex.user_handle = cmd.user_handle;
	ex.cqe = cmd.cqe;
	ex.comp_vector = cmd.comp_vector;
	ex.comp_channel = cmd.comp_channel;
	ret = ibx_do_create_cq(c, &ex, &uo);
	if (ret)
		return ret;
	resp.cq_handle = uo->handle;
	resp.cqe = ((struct ibx_cq *)uo->obj)->cqe;
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
}

IBX_CMD(ex_create_cq)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq cmd;
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;
	if (cmd.flags & ~IBX_CQ_FLAGS_SUPPORTED)
		return -EOPNOTSUPP;
	ret = ibx_do_create_cq(c, &cmd, &uo);
	if (ret)
		return ret;
	resp.base.cq_handle = uo->handle;
	resp.base.cqe = ((struct ibx_cq *)uo->obj)->cqe;
	resp.response_length = ibx_cmd_resp_len(c, sizeof(resp));
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
}

IBX_CMD(resize_cq)
{
	struct ibx_device *dev = c->uf->core->ibdev;
	struct ib_uverbs_resize_cq_resp resp = {};
	struct ib_uverbs_resize_cq cmd;
	struct ibx_uobj *uo;
	struct ibx_cq *cq;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uo = ibx_uobj_lookup(c->uf, cmd.cq_handle, IBX_OBJ_CQ);
	if (!uo)
		return -EINVAL;
	if (!ibx_cqe_ok(dev, cmd.cqe))
		return -EINVAL;
	if (!dev->ops->resize_cq)
		return -EOPNOTSUPP;
	cq = uo->obj;
	ret = dev->ops->resize_cq(cq, cmd.cqe, &c->udata);
	if (ret)
		return ret;
	resp.cqe = cq->cqe;
	return ibx_cmd_out(c, &resp, sizeof(resp));
}

IBX_CMD(req_notify_cq)
{
	const struct ibx_device_ops *ops = c->uf->core->ibdev->ops;
	struct ib_uverbs_req_notify_cq cmd;
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uo = ibx_uobj_lookup(c->uf, cmd.cq_handle, IBX_OBJ_CQ);
	if (!uo)
		return -EINVAL;
	if (!ops->req_notify_cq)
		return -EOPNOTSUPP;
	return ops->req_notify_cq(uo->obj, cmd.solicited_only);
}

IBX_CMD(destroy_cq)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct ib_uverbs_destroy_cq cmd;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = ibx_uobj_destroy_cmd(c->uf, cmd.cq_handle, IBX_OBJ_CQ,
				   &resp.comp_events_reported,
				   &resp.async_events_reported);
	if (ret)
		return ret;
	return ibx_cmd_out(c, &resp, sizeof(resp));
}
