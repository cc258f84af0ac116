// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_ah.c - address handles (CREATE_AH, DESTROY_AH) and the check of a
 * user's address vector, which MODIFY_QP shares.
 */
#include <linux/module.h>
#include "core_priv.h"

/*
 * RoCE carries every packet in a GRH-equivalent IP header, so an address
 * vector must be global with a valid source GID (IBA annexes A16/A17).
 */
int ibx_ah_attr_from_user(struct ibx_device *dev, struct ibx_ah_attr *ah,
			  const struct ib_uverbs_qp_dest *d)
{
	if (!ibx_port_valid(dev, d->port_num))
		return -EINVAL;
	if (!d->is_global)
		return -EINVAL;
	if (!ibx_gid_valid(dev, d->port_num, d->sgid_index))
		return -EINVAL;
	memset(ah, 0, sizeof(*ah));
	memcpy(ah->dgid.raw, d->dgid, sizeof(ah->dgid.raw));
	ah->flow_label = d->flow_label & 0xfffff;	/* 20 bits */
	ah->dlid = d->dlid;
	ah->sgid_index = d->sgid_index;
	ah->hop_limit = d->hop_limit;
	ah->traffic_class = d->traffic_class;
	ah->sl = d->sl;
	ah->src_path_bits = d->src_path_bits;
	ah->static_rate = d->static_rate;
	ah->is_global = d->is_global;
	ah->port_num = d->port_num;
	return 0;
}

static void ibx_ah_destroy_hw(struct ibx_uobj *uo)
{
	if (ibx_uobj_ops(uo)->destroy_ah)
		ibx_uobj_ops(uo)->destroy_ah(uo->obj);
}

static const struct ibx_uobj_type ibx_ah_type = {
	.type = IBX_OBJ_AH,
	.destroy_hw = ibx_ah_destroy_hw,
};

IBX_CMD(create_ah)
{
	struct ibx_device *dev = c->uf->core->ibdev;
	const struct ibx_device_ops *ops = dev->ops;
	struct ib_uverbs_create_ah_resp resp = {};
	struct ib_uverbs_qp_dest dest = {};
	struct ib_uverbs_create_ah cmd;
	struct ibx_uobj *uo, *pd_uo;
	struct ibx_ah_attr attr;
	struct ibx_ah *ah;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (IS_ERR(ibx_cmd_ucontext(c)))
		return -EINVAL;
	pd_uo = ibx_uobj_lookup(c->uf, cmd.pd_handle, IBX_OBJ_PD);
	if (!pd_uo)
		return -EINVAL;
	memcpy(dest.dgid, cmd.attr.grh.dgid, sizeof(dest.dgid));
	dest.flow_label = cmd.attr.grh.flow_label;
	dest.sgid_index = cmd.attr.grh.sgid_index;
	dest.hop_limit = cmd.attr.grh.hop_limit;
	dest.traffic_class = cmd.attr.grh.traffic_class;
	dest.dlid = cmd.attr.dlid;
	dest.sl = cmd.attr.sl;
	dest.src_path_bits = cmd.attr.src_path_bits;
	dest.static_rate = cmd.attr.static_rate;
	dest.is_global = cmd.attr.is_global;
	dest.port_num = cmd.attr.port_num;
	ret = ibx_ah_attr_from_user(dev, &attr, &dest);
	if (ret)
		return ret;
	if (!ops->create_ah)
		return -EOPNOTSUPP;

	uo = ibx_uobj_alloc(c->uf, &ibx_ah_type, max(ops->size_ah, sizeof(*ah)));
	if (!uo)
		return -ENOMEM;
	uo->user_handle = cmd.user_handle;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	ibx_uobj_add_dep(uo, pd_uo);
	ah = uo->obj;
	ah->dev = dev;
	ah->pd = pd_uo->obj;
	ah->attr = attr;
	ret = ops->create_ah(ah, &c->udata);
	if (ret)
		goto err;
	resp.ah_handle = uo->handle;
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
err:
	ibx_uobj_free_uncreated(uo);
	return ret;
}

IBX_CMD(destroy_ah)
{
	struct ib_uverbs_destroy_ah cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	return ibx_uobj_destroy_cmd(c->uf, cmd.ah_handle, IBX_OBJ_AH, NULL,
				    NULL);
}
