// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_qp.c - ibx_cmd_* for SRQs, QPs, address handles, multicast and XRC
 * domains (the write() commands of <rdma/ib_user_verbs.h>).
 */
#include <errno.h>
#include <string.h>
#include <rdma/ib_user_verbs.h>

#include "ibverbs.h"

static void init_srq_common(struct ibv_srq *srq, struct ibv_context *context,
			    struct ibv_pd *pd, void *srq_context,
			    uint32_t handle)
{
	srq->context = context;
	srq->srq_context = srq_context;
	srq->pd = pd;
	srq->handle = handle;
	srq->events_completed = 0;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
}

__ibx_export
int ibx_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr, const void *drv_in,
		       size_t drv_in_len, void *drv_out, size_t drv_out_len)
{
	struct ib_uverbs_create_srq req = {
		.user_handle = (uintptr_t)srq,
		.pd_handle = pd->handle,
		.max_wr = attr->attr.max_wr,
		.max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
	};
	struct ib_uverbs_create_srq_resp resp;
	int ret;

	ret = ibx_write_cmd(pd->context->cmd_fd, IB_USER_VERBS_CMD_CREATE_SRQ,
			    &req, sizeof(req), drv_in, drv_in_len, &resp,
			    sizeof(resp), drv_out, drv_out_len);
	if (ret)
		return ret;

	init_srq_common(srq, pd->context, pd, attr->srq_context,
			resp.srq_handle);
	attr->attr.max_wr = resp.max_wr;
	attr->attr.max_sge = resp.max_sge;
	return 0;
}

__ibx_export
int ibx_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr, const void *drv_in,
			  size_t drv_in_len, void *drv_out, size_t drv_out_len)
{
	struct ib_uverbs_create_xsrq req = {
		.user_handle = (uintptr_t)&srq->srq,
		.srq_type = IBV_SRQT_BASIC,
		.max_wr = attr->attr.max_wr,
		.max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
	};
	struct ib_uverbs_create_srq_resp resp;
	int ret;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD))
		return EINVAL;
	if (attr->comp_mask & ~(IBV_SRQ_INIT_ATTR_RESERVED - 1))
		return EOPNOTSUPP;
	req.pd_handle = attr->pd->handle;

	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		req.srq_type = attr->srq_type;
	if (req.srq_type == IBV_SRQT_XRC) {
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) ||
		    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ))
			return EINVAL;
		req.xrcd_handle =
			((struct verbs_xrcd *)attr->xrcd)->handle;
		req.cq_handle = attr->cq->handle;
	} else if (req.srq_type == IBV_SRQT_TM) {
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) ||
		    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_TM))
			return EINVAL;
		req.cq_handle = attr->cq->handle;
		req.max_num_tags = attr->tm_cap.max_num_tags;
	}

	ret = ibx_write_cmd(context->cmd_fd, IB_USER_VERBS_CMD_CREATE_XSRQ,
			    &req, sizeof(req), drv_in, drv_in_len, &resp,
			    sizeof(resp), drv_out, drv_out_len);
	if (ret)
		return ret;

	init_srq_common(&srq->srq, context, attr->pd, attr->srq_context,
			resp.srq_handle);
	srq->comp_mask = IBX_SRQ_TYPE;
	srq->srq_type = req.srq_type;
	if (req.srq_type == IBV_SRQT_XRC) {
		srq->comp_mask |= IBX_SRQ_XRCD | IBX_SRQ_CQ | IBX_SRQ_NUM;
		srq->xrcd = (struct verbs_xrcd *)attr->xrcd;
		srq->cq = attr->cq;
		srq->srq_num = resp.srqn;
	} else if (req.srq_type == IBV_SRQT_TM) {
		srq->comp_mask |= IBX_SRQ_CQ | IBX_SRQ_NUM;
		srq->cq = attr->cq;
		srq->srq_num = resp.srqn;
	}
	attr->attr.max_wr = resp.max_wr;
	attr->attr.max_sge = resp.max_sge;
	return 0;
}

__ibx_export
int ibx_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		       int attr_mask, const void *drv_in, size_t drv_in_len)
{
	struct ib_uverbs_modify_srq req = {
		.srq_handle = srq->handle,
		.attr_mask = attr_mask,
		.max_wr = attr->max_wr,
		.srq_limit = attr->srq_limit,
	};

	return ibx_write_cmd(srq->context->cmd_fd, IB_USER_VERBS_CMD_MODIFY_SRQ,
			     &req, sizeof(req), drv_in, drv_in_len, NULL, 0,
			     NULL, 0);
}

__ibx_export
int ibx_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ib_uverbs_query_srq req = { .srq_handle = srq->handle };
	struct ib_uverbs_query_srq_resp resp;
	int ret;

	ret = ibx_write_cmd(srq->context->cmd_fd, IB_USER_VERBS_CMD_QUERY_SRQ,
			    &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			    NULL, 0);
	if (ret)
		return ret;
	attr->max_wr = resp.max_wr;
	attr->max_sge = resp.max_sge;
	attr->srq_limit = resp.srq_limit;
	return 0;
}

__ibx_export
int ibx_cmd_destroy_srq(struct ibv_srq *srq)
{
	struct ib_uverbs_destroy_srq req = { .srq_handle = srq->handle };
	struct ib_uverbs_destroy_srq_resp resp;
	int ret;

	ret = ibx_write_cmd(srq->context->cmd_fd, IB_USER_VERBS_CMD_DESTROY_SRQ,
			    &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			    NULL, 0);
	if (ret)
		return ret;

	ibx_wait_events_acked(&srq->mutex, &srq->cond, &srq->events_completed,
			      resp.events_reported);
	return 0;
}

static void init_qp_common(struct ibv_qp *qp, struct ibv_context *context,
			   const struct ibv_qp_init_attr_ex *attr,
			   const struct ib_uverbs_create_qp_resp *resp)
{
	qp->context = context;
	qp->qp_context = attr->qp_context;
	qp->pd = attr->pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_type = attr->qp_type;
	qp->handle = resp->qp_handle;
	qp->qp_num = resp->qpn;
	qp->state = IBV_QPS_RESET;
	qp->events_completed = 0;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
}

static void copy_caps_back(struct ibv_qp_cap *cap,
			   const struct ib_uverbs_create_qp_resp *resp)
{
	cap->max_send_wr = resp->max_send_wr;
	cap->max_recv_wr = resp->max_recv_wr;
	cap->max_send_sge = resp->max_send_sge;
	cap->max_recv_sge = resp->max_recv_sge;
	cap->max_inline_data = resp->max_inline_data;
}

__ibx_export
int ibx_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, const void *drv_in,
		      size_t drv_in_len, void *drv_out, size_t drv_out_len)
{
	struct ib_uverbs_create_qp req = {
		.user_handle = (uintptr_t)qp,
		.pd_handle = pd->handle,
		.send_cq_handle = attr->send_cq ? attr->send_cq->handle : 0,
		.recv_cq_handle = attr->recv_cq ? attr->recv_cq->handle : 0,
		.srq_handle = attr->srq ? attr->srq->handle : 0,
		.max_send_wr = attr->cap.max_send_wr,
		.max_recv_wr = attr->cap.max_recv_wr,
		.max_send_sge = attr->cap.max_send_sge,
		.max_recv_sge = attr->cap.max_recv_sge,
		.max_inline_data = attr->cap.max_inline_data,
		.sq_sig_all = !!attr->sq_sig_all,
		.qp_type = attr->qp_type,
		.is_srq = !!attr->srq,
	};
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.qp_type = attr->qp_type,
		.pd = pd,
	};
	int ret;

	ret = ibx_write_cmd(pd->context->cmd_fd, IB_USER_VERBS_CMD_CREATE_QP,
			    &req, sizeof(req), drv_in, drv_in_len, &resp,
			    sizeof(resp), drv_out, drv_out_len);
	if (ret)
		return ret;

	init_qp_common(qp, pd->context, &ex, &resp);
	copy_caps_back(&attr->cap, &resp);
	return 0;
}

__ibx_export
int ibx_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr, const void *drv_in,
			 size_t drv_in_len, void *drv_out, size_t drv_out_len)
{
	struct ib_uverbs_ex_create_qp req = {
		.user_handle = (uintptr_t)&qp->qp,
		.send_cq_handle = attr->send_cq ? attr->send_cq->handle : 0,
		.recv_cq_handle = attr->recv_cq ? attr->recv_cq->handle : 0,
		.srq_handle = attr->srq ? attr->srq->handle : 0,
		.max_send_wr = attr->cap.max_send_wr,
		.max_recv_wr = attr->cap.max_recv_wr,
		.max_send_sge = attr->cap.max_send_sge,
		.max_recv_sge = attr->cap.max_recv_sge,
		.max_inline_data = attr->cap.max_inline_data,
		.sq_sig_all = !!attr->sq_sig_all,
		.qp_type = attr->qp_type,
		.is_srq = !!attr->srq,
	};
	struct ib_uverbs_ex_create_qp_resp resp;
	int ret;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) {
		if (!attr->xrcd)
			return EINVAL;
		/* An XRC target QP hangs off the XRC domain, not a PD. */
		req.pd_handle = ((struct verbs_xrcd *)attr->xrcd)->handle;
	} else {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
			return EINVAL;
		req.pd_handle = attr->pd->handle;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS)
		req.create_flags = attr->create_flags;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) {
		req.rwq_ind_tbl_handle = attr->rwq_ind_tbl->ind_tbl_handle;
		req.comp_mask |= IB_UVERBS_CREATE_QP_MASK_IND_TABLE;
	}
	if (attr->create_flags & IBV_QP_CREATE_SOURCE_QPN)
		req.source_qpn = attr->source_qpn;

	ret = ibx_write_ex_cmd(context->cmd_fd, IB_USER_VERBS_EX_CMD_CREATE_QP,
			       &req, sizeof(req), drv_in, drv_in_len, &resp,
			       sizeof(resp), drv_out, drv_out_len);
	if (ret)
		return ret;

	init_qp_common(&qp->qp, context, attr, &resp.base);
	copy_caps_back(&attr->cap, &resp.base);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) {
		qp->comp_mask |= IBX_QP_XRCD;
		qp->xrcd = (struct verbs_xrcd *)attr->xrcd;
	}
	return 0;
}

__ibx_export
int ibx_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_open_qp req = {
		.user_handle = (uintptr_t)&qp->qp,
		.qpn = attr->qp_num,
		.qp_type = attr->qp_type,
	};
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_qp_init_attr_ex ex = {};
	int ret;

	if ((attr->comp_mask & IBV_QP_OPEN_ATTR_RESERVED) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_NUM) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE) || !attr->xrcd)
		return EINVAL;
	req.pd_handle = ((struct verbs_xrcd *)attr->xrcd)->handle;

	ret = ibx_write_cmd(context->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &req,
			    sizeof(req), NULL, 0, &resp, sizeof(resp), NULL, 0);
	if (ret)
		return ret;

	ex.qp_type = attr->qp_type;
	if (attr->comp_mask & IBV_QP_OPEN_ATTR_CONTEXT)
		ex.qp_context = attr->qp_context;
	init_qp_common(&qp->qp, context, &ex, &resp);
	qp->comp_mask |= IBX_QP_XRCD;
	qp->xrcd = (struct verbs_xrcd *)attr->xrcd;
	return 0;
}

static void dest_to_ah_attr(struct ibv_ah_attr *ah,
			    const struct ib_uverbs_qp_dest *d)
{
	memcpy(ah->grh.dgid.raw, d->dgid, sizeof(d->dgid));
	ah->grh.flow_label = d->flow_label;
	ah->grh.sgid_index = d->sgid_index;
	ah->grh.hop_limit = d->hop_limit;
	ah->grh.traffic_class = d->traffic_class;
	ah->dlid = d->dlid;
	ah->sl = d->sl;
	ah->src_path_bits = d->src_path_bits;
	ah->static_rate = d->static_rate;
	ah->is_global = d->is_global;
	ah->port_num = d->port_num;
}

static void ah_attr_to_dest(struct ib_uverbs_qp_dest *d,
			    const struct ibv_ah_attr *ah)
{
	memcpy(d->dgid, ah->grh.dgid.raw, sizeof(d->dgid));
	d->flow_label = ah->grh.flow_label;
	d->sgid_index = ah->grh.sgid_index;
	d->hop_limit = ah->grh.hop_limit;
	d->traffic_class = ah->grh.traffic_class;
	d->dlid = ah->dlid;
	d->sl = ah->sl;
	d->src_path_bits = ah->src_path_bits;
	d->static_rate = ah->static_rate;
	d->is_global = ah->is_global;
	d->port_num = ah->port_num;
}

__ibx_export
int ibx_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ib_uverbs_query_qp req = {
		.qp_handle = qp->handle,
		.attr_mask = attr_mask,
	};
	struct ib_uverbs_query_qp_resp r;
	int ret;

	ret = ibx_write_cmd(qp->context->cmd_fd, IB_USER_VERBS_CMD_QUERY_QP,
			    &req, sizeof(req), NULL, 0, &r, sizeof(r), NULL, 0);
	if (ret)
		return ret;

	memset(attr, 0, sizeof(*attr));
	attr->qkey = r.qkey;
	attr->rq_psn = r.rq_psn;
	attr->sq_psn = r.sq_psn;
	attr->dest_qp_num = r.dest_qp_num;
	attr->qp_access_flags = r.qp_access_flags;
	attr->pkey_index = r.pkey_index;
	attr->alt_pkey_index = r.alt_pkey_index;
	attr->qp_state = r.qp_state;
	attr->cur_qp_state = r.cur_qp_state;
	attr->path_mtu = r.path_mtu;
	attr->path_mig_state = r.path_mig_state;
	attr->sq_draining = r.sq_draining;
	attr->max_rd_atomic = r.max_rd_atomic;
	attr->max_dest_rd_atomic = r.max_dest_rd_atomic;
	attr->min_rnr_timer = r.min_rnr_timer;
	attr->port_num = r.port_num;
	attr->timeout = r.timeout;
	attr->retry_cnt = r.retry_cnt;
	attr->rnr_retry = r.rnr_retry;
	attr->alt_port_num = r.alt_port_num;
	attr->alt_timeout = r.alt_timeout;
	attr->cap.max_send_wr = r.max_send_wr;
	attr->cap.max_recv_wr = r.max_recv_wr;
	attr->cap.max_send_sge = r.max_send_sge;
	attr->cap.max_recv_sge = r.max_recv_sge;
	attr->cap.max_inline_data = r.max_inline_data;
	dest_to_ah_attr(&attr->ah_attr, &r.dest);
	dest_to_ah_attr(&attr->alt_ah_attr, &r.alt_dest);

	if (init_attr) {
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->qp_type = qp->qp_type;
		init_attr->cap = attr->cap;
		init_attr->sq_sig_all = r.sq_sig_all;
	}
	return 0;
}

static void fill_modify_qp(struct ib_uverbs_modify_qp *c, struct ibv_qp *qp,
			   const struct ibv_qp_attr *attr, int mask)
{
	c->qp_handle = qp->handle;
	c->attr_mask = mask;
	c->qkey = attr->qkey;
	c->rq_psn = attr->rq_psn;
	c->sq_psn = attr->sq_psn;
	c->dest_qp_num = attr->dest_qp_num;
	c->qp_access_flags = attr->qp_access_flags;
	c->pkey_index = attr->pkey_index;
	c->alt_pkey_index = attr->alt_pkey_index;
	c->qp_state = attr->qp_state;
	c->cur_qp_state = attr->cur_qp_state;
	c->path_mtu = attr->path_mtu;
	c->path_mig_state = attr->path_mig_state;
	c->en_sqd_async_notify = attr->en_sqd_async_notify;
	c->max_rd_atomic = attr->max_rd_atomic;
	c->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	c->min_rnr_timer = attr->min_rnr_timer;
	c->port_num = attr->port_num;
	c->timeout = attr->timeout;
	c->retry_cnt = attr->retry_cnt;
	c->rnr_retry = attr->rnr_retry;
	c->alt_port_num = attr->alt_port_num;
	c->alt_timeout = attr->alt_timeout;
	if (mask & IBV_QP_AV)
		ah_attr_to_dest(&c->dest, &attr->ah_attr);
	if (mask & IBV_QP_ALT_PATH)
		ah_attr_to_dest(&c->alt_dest, &attr->alt_ah_attr);
}

__ibx_export
int ibx_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask)
{
	int ret;

	if (attr_mask & ~((IBV_QP_RATE_LIMIT << 1) - 1))
		return EOPNOTSUPP;

	if (attr_mask & IBV_QP_RATE_LIMIT) {
		struct ib_uverbs_ex_modify_qp ex = {};
		struct ib_uverbs_ex_modify_qp_resp resp;

		fill_modify_qp(&ex.base, qp, attr, attr_mask);
		ex.rate_limit = attr->rate_limit;
		ret = ibx_write_ex_cmd(qp->context->cmd_fd,
				       IB_USER_VERBS_EX_CMD_MODIFY_QP, &ex,
				       sizeof(ex), NULL, 0, &resp,
				       sizeof(resp), NULL, 0);
	} else {
		struct ib_uverbs_modify_qp req = {};

		fill_modify_qp(&req, qp, attr, attr_mask);
		ret = ibx_write_cmd(qp->context->cmd_fd,
				    IB_USER_VERBS_CMD_MODIFY_QP, &req,
				    sizeof(req), NULL, 0, NULL, 0, NULL, 0);
	}
	if (!ret && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

__ibx_export
int ibx_cmd_destroy_qp(struct ibv_qp *qp)
{
	struct ib_uverbs_destroy_qp req = { .qp_handle = qp->handle };
	struct ib_uverbs_destroy_qp_resp resp;
	int ret;

	ret = ibx_write_cmd(qp->context->cmd_fd, IB_USER_VERBS_CMD_DESTROY_QP,
			    &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			    NULL, 0);
	if (ret)
		return ret;

	ibx_wait_events_acked(&qp->mutex, &qp->cond, &qp->events_completed,
			      resp.events_reported);
	return 0;
}

__ibx_export
int ibx_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr)
{
	struct ib_uverbs_create_ah req = {
		.user_handle = (uintptr_t)ah,
		.pd_handle = pd->handle,
		.attr = {
			.dlid = attr->dlid,
			.sl = attr->sl,
			.src_path_bits = attr->src_path_bits,
			.static_rate = attr->static_rate,
			.is_global = attr->is_global,
			.port_num = attr->port_num,
			.grh = {
				.flow_label = attr->grh.flow_label,
				.sgid_index = attr->grh.sgid_index,
				.hop_limit = attr->grh.hop_limit,
				.traffic_class = attr->grh.traffic_class,
			},
		},
	};
	struct ib_uverbs_create_ah_resp resp;
	int ret;

	memcpy(req.attr.grh.dgid, attr->grh.dgid.raw, 16);
	ret = ibx_write_cmd(pd->context->cmd_fd, IB_USER_VERBS_CMD_CREATE_AH,
			    &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			    NULL, 0);
	if (ret)
		return ret;
	ah->handle = resp.ah_handle;
	ah->context = pd->context;
	ah->pd = pd;
	return 0;
}

__ibx_export
int ibx_cmd_destroy_ah(struct ibv_ah *ah)
{
	struct ib_uverbs_destroy_ah req = { .ah_handle = ah->handle };

	return ibx_write_cmd(ah->context->cmd_fd, IB_USER_VERBS_CMD_DESTROY_AH,
			     &req, sizeof(req), NULL, 0, NULL, 0, NULL, 0);
}

static int mcast_cmd(struct ibv_qp *qp, uint32_t command,
		     const union ibv_gid *gid, uint16_t lid)
{
	struct ib_uverbs_attach_mcast req = {
		.qp_handle = qp->handle,
		.mlid = lid,
	};

	memcpy(req.gid, gid->raw, sizeof(req.gid));
	return ibx_write_cmd(qp->context->cmd_fd, command, &req, sizeof(req),
			     NULL, 0, NULL, 0, NULL, 0);
}

__ibx_export
int ibx_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid)
{
	return mcast_cmd(qp, IB_USER_VERBS_CMD_ATTACH_MCAST, gid, lid);
}

__ibx_export
int ibx_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid)
{
	return mcast_cmd(qp, IB_USER_VERBS_CMD_DETACH_MCAST, gid, lid);
}

__ibx_export
int ibx_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd req = {};
	struct ib_uverbs_open_xrcd_resp resp;
	int ret;

	if ((size_t)vxrcd_size < sizeof(*xrcd) ||
	    (attr->comp_mask & ~(IBV_XRCD_INIT_ATTR_RESERVED - 1)) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS))
		return EINVAL;
	req.fd = attr->fd;
	req.oflags = attr->oflags;

	ret = ibx_write_cmd(context->cmd_fd, IB_USER_VERBS_CMD_OPEN_XRCD, &req,
			    sizeof(req), NULL, 0, &resp, sizeof(resp), NULL, 0);
	if (ret)
		return ret;
	xrcd->xrcd.context = context;
	xrcd->comp_mask = 0;
	xrcd->handle = resp.xrcd_handle;
	return 0;
}

__ibx_export
int ibx_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	struct ib_uverbs_close_xrcd req = { .xrcd_handle = xrcd->handle };

	return ibx_write_cmd(xrcd->xrcd.context->cmd_fd,
			     IB_USER_VERBS_CMD_CLOSE_XRCD, &req, sizeof(req),
			     NULL, 0, NULL, 0, NULL, 0);
}
