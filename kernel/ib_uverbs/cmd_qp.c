// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_qp.c - queue pairs: CREATE_QP / EX_CREATE_QP, QUERY_QP, MODIFY_QP /
 * EX_MODIFY_QP (checked against the IBA state table of qp_state.c before
 * the driver sees it), DESTROY_QP, ATTACH_MCAST / DETACH_MCAST.
 */
#include <linux/module.h>
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/in.h>
#include "core_priv.h"

#define IBX_PSN_MASK		0xffffff	/* BTH PSN is 24 bits (IBA 9.2) */
#define IBX_QPN_MASK		0xffffff	/* BTH DestQP is 24 bits (IBA 9.2) */

#define IBX_CREATE_QP_FLAGS	(IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK | \
				 IB_UVERBS_QP_CREATE_SCATTER_FCS |	\
				 IB_UVERBS_QP_CREATE_CVLAN_STRIPPING |	\
				 IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING | \
				 IB_UVERBS_QP_CREATE_SQ_SIG_ALL)

/* Leaves the groups it joined, then the driver destroys it. */
static void ibx_qp_destroy_hw(struct ibx_uobj *uo)
{
	const struct ibx_device_ops *ops = ibx_uobj_ops(uo);
	struct ibx_mcast *m, *tmp;

	list_for_each_entry_safe(m, tmp, &uo->mcast, list) {
		if (ops->detach_mcast)
			ops->detach_mcast(uo->obj, &m->gid, m->lid);
		list_del(&m->list);
		kfree(m);
	}
	if (ops->destroy_qp)
		ops->destroy_qp(uo->obj);
}

static void *ibx_qp_alloc_obj(struct ibx_ufile *uf)
{
	return ibx_qp_obj_alloc(uf->core->ibdev->ops);
}

static void ibx_qp_free_obj(struct ibx_uobj *uo)
{
	ibx_qp_obj_free(ibx_uobj_ops(uo), uo->obj);
}

static const struct ibx_uobj_type ibx_qp_type = {
	.type = IBX_OBJ_QP,
	.alloc_obj = ibx_qp_alloc_obj,
	.free_obj = ibx_qp_free_obj,
	.destroy_hw = ibx_qp_destroy_hw,
};

static int ibx_do_create_qp(struct ibx_cmd *c, struct ib_uverbs_ex_create_qp *cmd,
			 struct ibx_uobj **out)
{
	struct ibx_device *dev = c->uf->core->ibdev;
	const struct ibx_device_ops *ops = dev->ops;
	struct ibx_uobj *uo, *pd_uo, *scq_uo, *rcq_uo = NULL, *srq_uo = NULL;
	struct ibx_qp_init_attr init = {};
	struct ibx_ucontext *uctx;
	struct ibx_qp *qp;
	int ret;

	uctx = ibx_cmd_ucontext(c);
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);

	switch (cmd->qp_type) {
	case IB_UVERBS_QPT_RAW_PACKET:
		if (!capable(CAP_NET_RAW))
			return -EPERM;
		break;
	case IB_UVERBS_QPT_RC:
	case IB_UVERBS_QPT_UC:
	case IB_UVERBS_QPT_UD:
	case IB_UVERBS_QPT_XRC_INI:
	case IB_UVERBS_QPT_XRC_TGT:
		break;
	default:
		return -EINVAL;
	}
	if (cmd->comp_mask)	/* only the RSS indirection table exists */
		return -EINVAL;
	if (cmd->create_flags & ~IBX_CREATE_QP_FLAGS)
		return -EINVAL;
	if (cmd->qp_type == IB_UVERBS_QPT_XRC_TGT)
		return ibx_xrc_tgt_create(c, cmd, out);

	pd_uo = ibx_uobj_lookup(c->uf, cmd->pd_handle, IBX_OBJ_PD);
	scq_uo = ibx_uobj_lookup(c->uf, cmd->send_cq_handle, IBX_OBJ_CQ);
	if (!pd_uo || !scq_uo)
		return -EINVAL;
	if (cmd->qp_type == IB_UVERBS_QPT_XRC_INI) {
		/* An XRC initiator has no receive side (IBA XRC annex). */
		cmd->max_recv_wr = 0;
		cmd->max_recv_sge = 0;
	} else {
		if (cmd->recv_cq_handle == cmd->send_cq_handle)
			rcq_uo = scq_uo;
		else
			rcq_uo = ibx_uobj_lookup(c->uf, cmd->recv_cq_handle,
						 IBX_OBJ_CQ);
		if (!rcq_uo)
			return -EINVAL;
		if (cmd->is_srq) {
			srq_uo = ibx_uobj_lookup(c->uf, cmd->srq_handle,
						 IBX_OBJ_SRQ);
			if (!srq_uo || ((struct ibx_srq *)srq_uo->obj)->srq_type !=
				       IB_UVERBS_SRQT_BASIC)
				return -EINVAL;
		}
	}
	if (!ops->create_qp)
		return -EOPNOTSUPP;

	uo = ibx_uobj_alloc(c->uf, &ibx_qp_type, 0);	/* ibx_qp_alloc_obj */
	if (!uo)
		return -ENOMEM;
	uo->user_handle = cmd->user_handle;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	ibx_uobj_add_dep(uo, pd_uo);
	ibx_uobj_add_dep(uo, scq_uo);
	ibx_uobj_add_dep(uo, rcq_uo);
	ibx_uobj_add_dep(uo, srq_uo);

	qp = uo->obj;
	qp->dev = dev;
	qp->uctx = uctx;
	qp->pd = pd_uo->obj;
	qp->send_cq = scq_uo->obj;
	qp->recv_cq = rcq_uo ? rcq_uo->obj : NULL;
	qp->srq = srq_uo ? srq_uo->obj : NULL;
	qp->qp_type = cmd->qp_type;
	qp->sq_sig_all = !!cmd->sq_sig_all;
	qp->user_handle = cmd->user_handle;
	qp->core_priv = uo;
	qp->attr.qp_state = IBX_QPS_RESET;

	init.qp_type = cmd->qp_type;
	init.cap.max_send_wr = cmd->max_send_wr;
	init.cap.max_recv_wr = cmd->max_recv_wr;
	init.cap.max_send_sge = cmd->max_send_sge;
	init.cap.max_recv_sge = cmd->max_recv_sge;
	init.cap.max_inline_data = cmd->max_inline_data;
	init.sq_sig_all = qp->sq_sig_all;
	init.create_flags = cmd->create_flags;
	ret = ops->create_qp(qp, &init, &c->udata);
	if (ret)
		goto err;
	qp->attr.cap = init.cap;
	*out = uo;
	return 0;
err:
	ibx_uobj_free_uncreated(uo);
	return ret;
}

static void ibx_qp_resp_fill(struct ibx_uobj *uo,
			     struct ib_uverbs_create_qp_resp *resp)
{
	struct ibx_qp *qp = uo->obj;

	resp->qp_handle = uo->handle;
	resp->qpn = qp->qp_num;
	resp->max_send_wr = qp->attr.cap.max_send_wr;
	resp->max_recv_wr = qp->attr.cap.max_recv_wr;
	resp->max_send_sge = qp->attr.cap.max_send_sge;
	resp->max_recv_sge = qp->attr.cap.max_recv_sge;
	resp->max_inline_data = qp->attr.cap.max_inline_data;
}

IBX_CMD(create_qp)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp ex = {};
	struct ib_uverbs_create_qp cmd;
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ex.user_handle = cmd.user_handle;
	ex.pd_handle = cmd.pd_handle;
	ex.send_cq_handle = cmd.send_cq_handle;
	ex.recv_cq_handle = cmd.recv_cq_handle;
	ex.srq_handle = cmd.srq_handle;
	ex.max_send_wr = cmd.max_send_wr;
	ex.max_recv_wr = cmd.max_recv_wr;
	ex.max_send_sge = cmd.max_send_sge;
	ex.max_recv_sge = cmd.max_recv_sge;
	ex.max_inline_data = cmd.max_inline_data;
	ex.sq_sig_all = cmd.sq_sig_all;
	ex.qp_type = cmd.qp_type;
	ex.is_srq = cmd.is_srq;
	ret = ibx_do_create_qp(c, &ex, &uo);
	if (ret)
		return ret;
	ibx_qp_resp_fill(uo, &resp);
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
}

IBX_CMD(ex_create_qp)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp cmd;
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = ibx_do_create_qp(c, &cmd, &uo);
	if (ret)
		return ret;
	ibx_qp_resp_fill(uo, &resp.base);
	resp.response_length = ibx_cmd_resp_len(c, sizeof(resp));
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
}

static void ibx_dest_from_ah(struct ib_uverbs_qp_dest *d,
			     const struct ibx_ah_attr *ah)
{
	memcpy(d->dgid, ah->dgid.raw, sizeof(d->dgid));
	d->flow_label = ah->flow_label;
	d->dlid = ah->dlid;
	d->sgid_index = ah->sgid_index;
	d->hop_limit = ah->hop_limit;
	d->traffic_class = ah->traffic_class;
	d->sl = ah->sl;
	d->src_path_bits = ah->src_path_bits;
	d->static_rate = ah->static_rate;
	d->is_global = ah->is_global;
	d->port_num = ah->port_num;
}

IBX_CMD(query_qp)
{
	struct ib_uverbs_query_qp_resp resp = {};
	struct ib_uverbs_query_qp cmd;
	struct ibx_qp_attr cur, *a = &cur;
	struct ibx_uobj *uo;
	struct ibx_qp *qp;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uo = ibx_uobj_lookup(c->uf, cmd.qp_handle, IBX_OBJ_QP);
	if (!uo)
		return -EINVAL;
	qp = uo->obj;
	/* The device may have migrated the QP to its alternate path. */
	ibx_qp_attr_current(qp, &cur);
	ibx_dest_from_ah(&resp.dest, &a->ah_attr);
	ibx_dest_from_ah(&resp.alt_dest, &a->alt_ah_attr);
	resp.max_send_wr = a->cap.max_send_wr;
	resp.max_recv_wr = a->cap.max_recv_wr;
	resp.max_send_sge = a->cap.max_send_sge;
	resp.max_recv_sge = a->cap.max_recv_sge;
	resp.max_inline_data = a->cap.max_inline_data;
	resp.qkey = a->qkey;
	resp.rq_psn = a->rq_psn;
	resp.sq_psn = a->sq_psn;
	resp.dest_qp_num = a->dest_qp_num;
	resp.qp_access_flags = a->qp_access_flags;
	resp.pkey_index = a->pkey_index;
	resp.alt_pkey_index = a->alt_pkey_index;
	resp.qp_state = a->qp_state;
	resp.cur_qp_state = a->qp_state;
	resp.path_mtu = a->path_mtu;
	resp.path_mig_state = a->path_mig_state;
	resp.sq_draining = a->sq_draining;
	resp.max_rd_atomic = a->max_rd_atomic;
	resp.max_dest_rd_atomic = a->max_dest_rd_atomic;
	resp.min_rnr_timer = a->min_rnr_timer;
	resp.port_num = a->port_num;
	resp.timeout = a->timeout;
	resp.retry_cnt = a->retry_cnt;
	resp.rnr_retry = a->rnr_retry;
	resp.alt_port_num = a->alt_port_num;
	resp.alt_timeout = a->alt_timeout;
	resp.sq_sig_all = qp->sq_sig_all;
	return ibx_cmd_out(c, &resp, sizeof(resp));
}

static int ibx_pkey_index_ok(struct ibx_device *dev, u32 port, u32 index)
{
	struct ib_uverbs_query_port_resp p;

	if (ibx_port_query(dev, port, &p))
		return false;
	return index < p.pkey_tbl_len;
}

/* Builds the new attributes from the command and checks their ranges. */
static int ibx_modify_attrs(struct ibx_device *dev, struct ibx_qp *qp,
			    const struct ib_uverbs_ex_modify_qp *cmd,
			    struct ibx_qp_attr *attr)
{
	const struct ib_uverbs_modify_qp *b = &cmd->base;
	u32 mask = b->attr_mask;
	u32 port;
	int ret;

	if ((mask & IBX_QP_PORT) && !ibx_port_valid(dev, b->port_num))
		return -EINVAL;
	port = (mask & IBX_QP_PORT) ? b->port_num :
	       (qp->attr.port_num ? qp->attr.port_num : 1);

	if (mask & IBX_QP_PORT)
		attr->port_num = b->port_num;
	if (mask & IBX_QP_PKEY_INDEX) {
		if (!ibx_pkey_index_ok(dev, port, b->pkey_index))
			return -EINVAL;
		attr->pkey_index = b->pkey_index;
	}
	if (mask & IBX_QP_QKEY)
		attr->qkey = b->qkey;
	if (mask & IBX_QP_ACCESS_FLAGS)
		attr->qp_access_flags = b->qp_access_flags;
	if (mask & IBX_QP_AV) {
		ret = ibx_ah_attr_from_user(dev, &attr->ah_attr, &b->dest);
		if (ret)
			return ret;
		if (attr->ah_attr.port_num != port)
			return -EINVAL;
	}
	if (mask & IBX_QP_PATH_MTU) {
		struct ib_uverbs_query_port_resp p;

		if (b->path_mtu < IBX_MTU_256 || b->path_mtu > IBX_MTU_4096)
			return -EINVAL;
		ret = ibx_port_query(dev, port, &p);
		if (ret)
			return ret;
		if (p.active_mtu && b->path_mtu > p.active_mtu)
			return -EINVAL;
		attr->path_mtu = b->path_mtu;
	}
	/* Field widths of IBA 11.2.5 (5-bit timers, 3-bit retry counts). */
	if (mask & IBX_QP_TIMEOUT) {
		if (b->timeout > 31)
			return -EINVAL;
		attr->timeout = b->timeout;
	}
	if (mask & IBX_QP_RETRY_CNT) {
		if (b->retry_cnt > 7)
			return -EINVAL;
		attr->retry_cnt = b->retry_cnt;
	}
	if (mask & IBX_QP_RNR_RETRY) {
		if (b->rnr_retry > 7)
			return -EINVAL;
		attr->rnr_retry = b->rnr_retry;
	}
	if (mask & IBX_QP_MIN_RNR_TIMER) {
		if (b->min_rnr_timer > 31)
			return -EINVAL;
		attr->min_rnr_timer = b->min_rnr_timer;
	}
	if (mask & IBX_QP_RQ_PSN)
		attr->rq_psn = b->rq_psn & IBX_PSN_MASK;
	if (mask & IBX_QP_SQ_PSN)
		attr->sq_psn = b->sq_psn & IBX_PSN_MASK;
	if (mask & IBX_QP_DEST_QPN)
		attr->dest_qp_num = b->dest_qp_num & IBX_QPN_MASK;
	if (mask & IBX_QP_MAX_QP_RD_ATOMIC) {
		if (b->max_rd_atomic > dev->attr.base.max_qp_init_rd_atom)
			return -EINVAL;
		attr->max_rd_atomic = b->max_rd_atomic;
	}
	if (mask & IBX_QP_MAX_DEST_RD_ATOMIC) {
		if (b->max_dest_rd_atomic > dev->attr.base.max_qp_rd_atom)
			return -EINVAL;
		attr->max_dest_rd_atomic = b->max_dest_rd_atomic;
	}
	if (mask & IBX_QP_ALT_PATH) {
		ret = ibx_ah_attr_from_user(dev, &attr->alt_ah_attr,
					    &b->alt_dest);
		if (ret)
			return ret;
		if (!ibx_port_valid(dev, b->alt_port_num) ||
		    b->alt_port_num != b->alt_dest.port_num ||
		    !ibx_pkey_index_ok(dev, b->alt_port_num,
				       b->alt_pkey_index) ||
		    b->alt_timeout > 31)
			return -EINVAL;
		attr->alt_port_num = b->alt_port_num;
		attr->alt_pkey_index = b->alt_pkey_index;
		attr->alt_timeout = b->alt_timeout;
	}
	if (mask & IBX_QP_PATH_MIG_STATE) {
		if (!ibx_qp_mig_state_ok(b->path_mig_state))
			return -EINVAL;
		attr->path_mig_state = b->path_mig_state;
	}
	if (mask & IBX_QP_EN_SQD_ASYNC_NOTIFY)
		attr->en_sqd_async_notify = !!b->en_sqd_async_notify;
	if (mask & IBX_QP_RATE_LIMIT)
		attr->rate_limit = cmd->rate_limit;
	return 0;
}

static int ibx_modify_qp_locked(struct ibx_cmd *c,
				struct ib_uverbs_ex_modify_qp *cmd)
{
	struct ibx_device *dev = c->uf->core->ibdev;
	u32 mask = cmd->base.attr_mask;
	enum ibx_qp_state cur, next;
	struct ibx_qp_attr attr;
	struct ibx_uobj *uo;
	struct ibx_qp *qp;
	int ret;

	if (mask & ~((IBX_QP_RATE_LIMIT << 1) - 1))
		return -EOPNOTSUPP;
	uo = ibx_uobj_lookup(c->uf, cmd->base.qp_handle, IBX_OBJ_QP);
	if (!uo)
		return -EINVAL;
	qp = uo->obj;
	if (((mask & IBX_QP_CUR_STATE) && cmd->base.cur_qp_state > IBX_QPS_ERR) ||
	    ((mask & IBX_QP_STATE) && cmd->base.qp_state > IBX_QPS_ERR))
		return -EINVAL;
	cur = (mask & IBX_QP_CUR_STATE) ? cmd->base.cur_qp_state :
					  qp->attr.qp_state;
	next = (mask & IBX_QP_STATE) ? cmd->base.qp_state : cur;
	if (!ibx_qp_transition_ok(cur, next, qp->qp_type, mask)) {
		pr_debug("QP 0x%x: illegal %s->%s mask 0x%x\n",
			 qp->qp_num, ibx_qp_state_name(cur),
			 ibx_qp_state_name(next), mask);
		return -EINVAL;
	}
	/* Changes apply to the paths the device uses now (IBA 17.2.8). */
	ibx_qp_attr_current(qp, &attr);
	ret = ibx_modify_attrs(dev, qp, cmd, &attr);
	if (ret)
		return ret;
	attr.cur_qp_state = cur;
	attr.qp_state = next;
	if (!dev->ops->modify_qp)
		return -EOPNOTSUPP;
	ret = dev->ops->modify_qp(qp, &attr, mask, &c->udata);
	if (ret)
		return ret;
	attr.cur_qp_state = next;
	qp->attr = attr;
	return 0;
}

static int ibx_do_modify_qp(struct ibx_cmd *c, struct ib_uverbs_ex_modify_qp *cmd)
{
	struct ibx_uobj *uo = ibx_uobj_lookup(c->uf, cmd->base.qp_handle,
					      IBX_OBJ_QP);
	struct mutex *shared = NULL;
	int ret;

	/* Handles of other files may modify an XRC TGT QP concurrently. */
	if (uo && ((struct ibx_qp *)uo->obj)->qp_type == IB_UVERBS_QPT_XRC_TGT)
		shared = &c->uf->core->xrcd_lock;
	if (shared)
		mutex_lock(shared);
	ret = ibx_modify_qp_locked(c, cmd);
	if (shared)
		mutex_unlock(shared);
	return ret;
}

IBX_CMD(modify_qp)
{
	struct ib_uverbs_ex_modify_qp cmd = {};
	int ret = ibx_cmd_in(c, &cmd.base, sizeof(cmd.base));

	if (ret)
		return ret;
	/* The legacy command ends at DEST_QPN; RATE_LIMIT is extended only. */
	if (cmd.base.attr_mask & ~((IBX_QP_DEST_QPN << 1) - 1))
		return -EOPNOTSUPP;
	return ibx_do_modify_qp(c, &cmd);
}

IBX_CMD(ex_modify_qp)
{
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct ib_uverbs_ex_modify_qp cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	if (cmd.reserved)
		return -EINVAL;
	ret = ibx_do_modify_qp(c, &cmd);
	if (ret)
		return ret;
	resp.response_length = ibx_cmd_resp_len(c, sizeof(resp));
	return ibx_cmd_out(c, &resp, sizeof(resp));
}

IBX_CMD(destroy_qp)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct ib_uverbs_destroy_qp cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	ret = ibx_uobj_destroy_cmd(c->uf, cmd.qp_handle, IBX_OBJ_QP, NULL,
				   &resp.events_reported);
	if (ret)
		return ret;
	return ibx_cmd_out(c, &resp, sizeof(resp));
}

/* IB multicast GIDs start with 0xff; RoCE also maps IPv4 multicast. */
static bool ibx_is_mcast_gid(const u8 *gid)
{
	static const u8 v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (gid[0] == 0xff)
		return true;
	return !memcmp(gid, v4mapped, sizeof(v4mapped)) &&
	       (gid[12] & 0xf0) == 0xe0;
}

static struct ibx_mcast *ibx_mcast_find(struct ibx_uobj *uo, const u8 *gid,
					u16 lid)
{
	struct ibx_mcast *m;

	list_for_each_entry(m, &uo->mcast, list)
		if (m->lid == lid && !memcmp(m->gid.raw, gid, 16))
			return m;
	return NULL;
}

IBX_CMD(attach_mcast)
{
	const struct ibx_device_ops *ops = c->uf->core->ibdev->ops;
	struct ib_uverbs_attach_mcast cmd;
	struct ibx_mcast *m;
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uo = ibx_uobj_lookup(c->uf, cmd.qp_handle, IBX_OBJ_QP);
	if (!uo)
		return -EINVAL;
	if (((struct ibx_qp *)uo->obj)->qp_type != IB_UVERBS_QPT_UD ||
	    !ibx_is_mcast_gid(cmd.gid))
		return -EINVAL;
	if (ibx_mcast_find(uo, cmd.gid, cmd.mlid))
		return 0;	/* attached already */
	if (!ops->attach_mcast)
		return -EOPNOTSUPP;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	memcpy(m->gid.raw, cmd.gid, 16);
	m->lid = cmd.mlid;
	ret = ops->attach_mcast(uo->obj, &m->gid, m->lid);
	if (ret) {
		kfree(m);
		return ret;
	}
	list_add_tail(&m->list, &uo->mcast);
	return 0;
}

IBX_CMD(detach_mcast)
{
	const struct ibx_device_ops *ops = c->uf->core->ibdev->ops;
	struct ib_uverbs_detach_mcast cmd;
	struct ibx_mcast *m;
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uo = ibx_uobj_lookup(c->uf, cmd.qp_handle, IBX_OBJ_QP);
	if (!uo)
		return -EINVAL;
	m = ibx_mcast_find(uo, cmd.gid, cmd.mlid);
	if (!m)
		return -EINVAL;
	if (ops->detach_mcast) {
		ret = ops->detach_mcast(uo->obj, &m->gid, m->lid);
		if (ret)
			return ret;
	}
	list_del(&m->list);
	kfree(m);
	return 0;
}
