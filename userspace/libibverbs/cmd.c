// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd.c - the write() command channel to ib_uverbs and the context-level
 * ibx_cmd_* helpers (device, port, PD, MR, MW, CQ).
 *
 * A legacy command is struct ib_uverbs_cmd_hdr, the core request and the
 * provider's request; in_words counts all of it in 32-bit words.  The core
 * request starts with the user address of the response buffer, which is
 * the core response followed by the provider's response (out_words, 32-bit
 * words).  An extended command adds struct ib_uverbs_ex_cmd_hdr, which
 * carries the response address and the provider lengths, and counts in
 * 64-bit words without the headers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <alloca.h>
#include <rdma/ib_user_verbs.h>

#include "ibverbs.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((size_t)(a) - 1))

/* Kernel structures are small; bigger commands are malformed. */
#define IBX_MAX_CMD_BYTES 4096

static int write_all(int fd, const void *buf, size_t len)
{
	ssize_t ret = write(fd, buf, len);

	if (ret < 0)
		return errno ? errno : EIO;
	if ((size_t)ret != len)
		return EIO;
	return 0;
}

int ibx_write_cmd(int fd, uint32_t command, void *req, size_t req_len,
		  const void *drv_in, size_t drv_in_len,
		  void *resp, size_t resp_len, void *drv_out,
		  size_t drv_out_len)
{
	size_t in_len = sizeof(struct ib_uverbs_cmd_hdr) + req_len +
			ALIGN_UP(drv_in_len, 4);
	size_t out_len = resp_len + ALIGN_UP(drv_out_len, 4);
	struct ib_uverbs_cmd_hdr *hdr;
	uint8_t *in, *out = NULL;
	int ret;

	if (in_len > IBX_MAX_CMD_BYTES || out_len > IBX_MAX_CMD_BYTES ||
	    (req_len & 3) || (resp_len & 3))
		return EINVAL;

	in = alloca(in_len);
	memset(in, 0, in_len);
	hdr = (struct ib_uverbs_cmd_hdr *)in;
	hdr->command = command;
	hdr->in_words = in_len / 4;
	hdr->out_words = out_len / 4;
	memcpy(in + sizeof(*hdr), req, req_len);
	if (drv_in_len)
		memcpy(in + sizeof(*hdr) + req_len, drv_in, drv_in_len);

	if (out_len) {
		uint64_t addr;

		out = alloca(out_len);
		memset(out, 0, out_len);
		/* Every command with a response starts with its address. */
		addr = (uintptr_t)out;
		memcpy(in + sizeof(*hdr), &addr, sizeof(addr));
	}

	ret = write_all(fd, in, in_len);
	if (ret)
		return ret;

	if (resp_len)
		memcpy(resp, out, resp_len);
	if (drv_out_len)
		memcpy(drv_out, out + resp_len, drv_out_len);
	return 0;
}

int ibx_write_ex_cmd(int fd, uint32_t command, const void *req,
		     size_t req_len, const void *drv_in, size_t drv_in_len,
		     void *resp, size_t resp_len, void *drv_out,
		     size_t drv_out_len)
{
	size_t drv_in_al = ALIGN_UP(drv_in_len, 8);
	size_t drv_out_al = ALIGN_UP(drv_out_len, 8);
	size_t in_len = sizeof(struct ib_uverbs_cmd_hdr) +
			sizeof(struct ib_uverbs_ex_cmd_hdr) + req_len +
			drv_in_al;
	size_t out_len = resp_len + drv_out_al;
	struct ib_uverbs_cmd_hdr *hdr;
	struct ib_uverbs_ex_cmd_hdr *ex;
	uint8_t *in, *out = NULL, *p;
	int ret;

	if (in_len > IBX_MAX_CMD_BYTES || out_len > IBX_MAX_CMD_BYTES ||
	    (req_len & 7) || (resp_len & 7))
		return EINVAL;

	in = alloca(in_len);
	memset(in, 0, in_len);
	hdr = (struct ib_uverbs_cmd_hdr *)in;
	ex = (struct ib_uverbs_ex_cmd_hdr *)(hdr + 1);
	p = (uint8_t *)(ex + 1);

	hdr->command = IB_USER_VERBS_CMD_FLAG_EXTENDED | command;
	hdr->in_words = req_len / 8;
	hdr->out_words = resp_len / 8;
	ex->provider_in_words = drv_in_al / 8;
	ex->provider_out_words = drv_out_al / 8;
	if (out_len) {
		out = alloca(out_len);
		memset(out, 0, out_len);
		ex->response = (uintptr_t)out;
	}
	memcpy(p, req, req_len);
	if (drv_in_len)
		memcpy(p + req_len, drv_in, drv_in_len);

	ret = write_all(fd, in, in_len);
	if (ret)
		return ret;

	if (resp_len)
		memcpy(resp, out, resp_len);
	if (drv_out_len)
		memcpy(drv_out, out + resp_len, drv_out_len);
	return 0;
}

__ibx_export
int ibx_cmd_get_context(struct verbs_context *vctx, const void *drv_in,
			size_t drv_in_len, void *drv_out, size_t drv_out_len)
{
	struct ibv_context *ctx = &vctx->context;
	struct ib_uverbs_get_context req = {};
	struct ib_uverbs_get_context_resp resp;
	int ret;

	ret = ibx_write_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_GET_CONTEXT, &req,
			    sizeof(req), drv_in, drv_in_len, &resp,
			    sizeof(resp), drv_out, drv_out_len);
	if (ret)
		return ret;

	ctx->async_fd = resp.async_fd;
	ctx->num_comp_vectors = resp.num_comp_vectors;
	return 0;
}

static void fw_ver_str(uint64_t fw_ver, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%03d", (int)(fw_ver >> 32) & 0xffff,
		 (int)(fw_ver >> 16) & 0xffff, (int)fw_ver & 0xffff);
}

static void copy_device_attr(struct ibv_device_attr *attr,
			     const struct ib_uverbs_query_device_resp *r)
{
	memset(attr, 0, sizeof(*attr));
	fw_ver_str(r->fw_ver, attr->fw_ver, sizeof(attr->fw_ver));
	attr->node_guid = r->node_guid;
	attr->sys_image_guid = r->sys_image_guid;
	attr->max_mr_size = r->max_mr_size;
	attr->page_size_cap = r->page_size_cap;
	attr->vendor_id = r->vendor_id;
	attr->vendor_part_id = r->vendor_part_id;
	attr->hw_ver = r->hw_ver;
	attr->max_qp = r->max_qp;
	attr->max_qp_wr = r->max_qp_wr;
	attr->device_cap_flags = r->device_cap_flags;
	attr->max_sge = r->max_sge;
	attr->max_sge_rd = r->max_sge_rd;
	attr->max_cq = r->max_cq;
	attr->max_cqe = r->max_cqe;
	attr->max_mr = r->max_mr;
	attr->max_pd = r->max_pd;
	attr->max_qp_rd_atom = r->max_qp_rd_atom;
	attr->max_ee_rd_atom = r->max_ee_rd_atom;
	attr->max_res_rd_atom = r->max_res_rd_atom;
	attr->max_qp_init_rd_atom = r->max_qp_init_rd_atom;
	attr->max_ee_init_rd_atom = r->max_ee_init_rd_atom;
	attr->atomic_cap = r->atomic_cap;
	attr->max_ee = r->max_ee;
	attr->max_rdd = r->max_rdd;
	attr->max_mw = r->max_mw;
	attr->max_raw_ipv6_qp = r->max_raw_ipv6_qp;
	attr->max_raw_ethy_qp = r->max_raw_ethy_qp;
	attr->max_mcast_grp = r->max_mcast_grp;
	attr->max_mcast_qp_attach = r->max_mcast_qp_attach;
	attr->max_total_mcast_qp_attach = r->max_total_mcast_qp_attach;
	attr->max_ah = r->max_ah;
	attr->max_fmr = r->max_fmr;
	attr->max_map_per_fmr = r->max_map_per_fmr;
	attr->max_srq = r->max_srq;
	attr->max_srq_wr = r->max_srq_wr;
	attr->max_srq_sge = r->max_srq_sge;
	attr->max_pkeys = r->max_pkeys;
	attr->local_ca_ack_delay = r->local_ca_ack_delay;
	attr->phys_port_cnt = r->phys_port_cnt;
}

/* Copies @len bytes of @src into the first @attr_size bytes of @dst. */
#define COPY_IF_FITS(attr_size, dst, field, val)			\
	do {								\
		if (offsetof(struct ibv_device_attr_ex, field) +	\
		    sizeof((dst)->field) <= (attr_size))		\
			(dst)->field = (val);				\
	} while (0)

__ibx_export
int ibx_cmd_query_device_ex(struct ibv_context *context,
			    struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device req = {};
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct ib_uverbs_query_device legacy = {};
	struct ib_uverbs_query_device_resp base;
	int ret;

	if (attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	memset(attr, 0, attr_size);

	ret = ibx_write_ex_cmd(context->cmd_fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
			       &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			       NULL, 0);
	if (!ret) {
		copy_device_attr(&attr->orig_attr, &resp.base);
		COPY_IF_FITS(attr_size, attr, odp_caps.general_caps,
			     resp.odp_caps.general_caps);
		COPY_IF_FITS(attr_size, attr, odp_caps.per_transport_caps.rc_odp_caps,
			     resp.odp_caps.per_transport_caps.rc_odp_caps);
		COPY_IF_FITS(attr_size, attr, odp_caps.per_transport_caps.uc_odp_caps,
			     resp.odp_caps.per_transport_caps.uc_odp_caps);
		COPY_IF_FITS(attr_size, attr, odp_caps.per_transport_caps.ud_odp_caps,
			     resp.odp_caps.per_transport_caps.ud_odp_caps);
		COPY_IF_FITS(attr_size, attr, completion_timestamp_mask,
			     resp.timestamp_mask);
		COPY_IF_FITS(attr_size, attr, hca_core_clock,
			     resp.hca_core_clock);
		COPY_IF_FITS(attr_size, attr, device_cap_flags_ex,
			     resp.device_cap_flags_ex);
		COPY_IF_FITS(attr_size, attr, rss_caps.supported_qpts,
			     resp.rss_caps.supported_qpts);
		COPY_IF_FITS(attr_size, attr, rss_caps.max_rwq_indirection_tables,
			     resp.rss_caps.max_rwq_indirection_tables);
		COPY_IF_FITS(attr_size, attr, rss_caps.max_rwq_indirection_table_size,
			     resp.rss_caps.max_rwq_indirection_table_size);
		COPY_IF_FITS(attr_size, attr, max_wq_type_rq,
			     resp.max_wq_type_rq);
		COPY_IF_FITS(attr_size, attr, raw_packet_caps,
			     resp.raw_packet_caps);
		COPY_IF_FITS(attr_size, attr, tm_caps.max_rndv_hdr_size,
			     resp.tm_caps.max_rndv_hdr_size);
		COPY_IF_FITS(attr_size, attr, tm_caps.max_num_tags,
			     resp.tm_caps.max_num_tags);
		COPY_IF_FITS(attr_size, attr, tm_caps.flags, resp.tm_caps.flags);
		COPY_IF_FITS(attr_size, attr, tm_caps.max_ops,
			     resp.tm_caps.max_ops);
		COPY_IF_FITS(attr_size, attr, tm_caps.max_sge,
			     resp.tm_caps.max_sge);
		COPY_IF_FITS(attr_size, attr, cq_mod_caps.max_cq_count,
			     resp.cq_moderation_caps.max_cq_moderation_count);
		COPY_IF_FITS(attr_size, attr, cq_mod_caps.max_cq_period,
			     resp.cq_moderation_caps.max_cq_moderation_period);
		COPY_IF_FITS(attr_size, attr, max_dm_size, resp.max_dm_size);
		COPY_IF_FITS(attr_size, attr, xrc_odp_caps, resp.xrc_odp_caps);
		COPY_IF_FITS(attr_size, attr, phys_port_cnt_ex,
			     resp.base.phys_port_cnt);
		return 0;
	}
	if (ret != ENOSYS && ret != EOPNOTSUPP && ret != EINVAL)
		return ret;

	/* A core without the extended query: the IBA attributes only. */
	ret = ibx_write_cmd(context->cmd_fd, IB_USER_VERBS_CMD_QUERY_DEVICE,
			    &legacy, sizeof(legacy), NULL, 0, &base,
			    sizeof(base), NULL, 0);
	if (ret)
		return ret;
	copy_device_attr(&attr->orig_attr, &base);
	COPY_IF_FITS(attr_size, attr, phys_port_cnt_ex, base.phys_port_cnt);
	return 0;
}

__ibx_export
int ibx_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr)
{
	struct ib_uverbs_query_port req = { .port_num = port_num };
	struct ib_uverbs_query_port_resp r;
	int ret;

	ret = ibx_write_cmd(context->cmd_fd, IB_USER_VERBS_CMD_QUERY_PORT,
			    &req, sizeof(req), NULL, 0, &r, sizeof(r), NULL, 0);
	if (ret)
		return ret;

	memset(port_attr, 0, sizeof(*port_attr));
	port_attr->state = r.state;
	port_attr->max_mtu = r.max_mtu;
	port_attr->active_mtu = r.active_mtu;
	port_attr->gid_tbl_len = r.gid_tbl_len;
	port_attr->port_cap_flags = r.port_cap_flags;
	port_attr->max_msg_sz = r.max_msg_sz;
	port_attr->bad_pkey_cntr = r.bad_pkey_cntr;
	port_attr->qkey_viol_cntr = r.qkey_viol_cntr;
	port_attr->pkey_tbl_len = r.pkey_tbl_len;
	port_attr->lid = r.lid;
	port_attr->sm_lid = r.sm_lid;
	port_attr->lmc = r.lmc;
	port_attr->max_vl_num = r.max_vl_num;
	port_attr->sm_sl = r.sm_sl;
	port_attr->subnet_timeout = r.subnet_timeout;
	port_attr->init_type_reply = r.init_type_reply;
	port_attr->active_width = r.active_width;
	port_attr->active_speed = r.active_speed;
	port_attr->phys_state = r.phys_state;
	port_attr->link_layer = r.link_layer;
	port_attr->flags = r.flags;
	return 0;
}

__ibx_export
int ibx_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     void *drv_out, size_t drv_out_len)
{
	struct ib_uverbs_alloc_pd req = {};
	struct ib_uverbs_alloc_pd_resp resp;
	int ret;

	ret = ibx_write_cmd(context->cmd_fd, IB_USER_VERBS_CMD_ALLOC_PD, &req,
			    sizeof(req), NULL, 0, &resp, sizeof(resp), drv_out,
			    drv_out_len);
	if (ret)
		return ret;
	pd->handle = resp.pd_handle;
	pd->context = context;
	return 0;
}

__ibx_export
int ibx_cmd_dealloc_pd(struct ibv_pd *pd)
{
	struct ib_uverbs_dealloc_pd req = { .pd_handle = pd->handle };

	return ibx_write_cmd(pd->context->cmd_fd, IB_USER_VERBS_CMD_DEALLOC_PD,
			     &req, sizeof(req), NULL, 0, NULL, 0, NULL, 0);
}

__ibx_export
int ibx_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr)
{
	struct ib_uverbs_reg_mr req = {
		.start = (uintptr_t)addr,
		.length = length,
		.hca_va = hca_va,
		.pd_handle = pd->handle,
		.access_flags = access,
	};
	struct ib_uverbs_reg_mr_resp resp;
	int ret;

	ret = ibx_write_cmd(pd->context->cmd_fd, IB_USER_VERBS_CMD_REG_MR,
			    &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			    NULL, 0);
	if (ret)
		return ret;

	vmr->ibv_mr.handle = resp.mr_handle;
	vmr->ibv_mr.lkey = resp.lkey;
	vmr->ibv_mr.rkey = resp.rkey;
	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.pd = pd;
	vmr->ibv_mr.addr = addr;
	vmr->ibv_mr.length = length;
	vmr->mr_type = IBX_MR_TYPE_MR;
	vmr->access = access;
	return 0;
}

__ibx_export
int ibx_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd)
{
	struct ib_uverbs_rereg_mr req = {
		.mr_handle = vmr->ibv_mr.handle,
		.flags = flags,
		.start = (uintptr_t)addr,
		.length = length,
		.hca_va = hca_va,
		.pd_handle = (flags & IBV_REREG_MR_CHANGE_PD) ? pd->handle : 0,
		.access_flags = access,
	};
	struct ib_uverbs_rereg_mr_resp resp;
	int ret;

	ret = ibx_write_cmd(vmr->ibv_mr.context->cmd_fd,
			    IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			    NULL, 0, &resp, sizeof(resp), NULL, 0);
	if (ret)
		return ret;

	vmr->ibv_mr.lkey = resp.lkey;
	vmr->ibv_mr.rkey = resp.rkey;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		vmr->ibv_mr.pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		vmr->access = access;
	return 0;
}

__ibx_export
int ibx_cmd_dereg_mr(struct verbs_mr *vmr)
{
	struct ib_uverbs_dereg_mr req = { .mr_handle = vmr->ibv_mr.handle };

	return ibx_write_cmd(vmr->ibv_mr.context->cmd_fd,
			     IB_USER_VERBS_CMD_DEREG_MR, &req, sizeof(req),
			     NULL, 0, NULL, 0, NULL, 0);
}

__ibx_export
int ibx_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw)
{
	struct ib_uverbs_alloc_mw req = {
		.pd_handle = pd->handle,
		.mw_type = type,
	};
	struct ib_uverbs_alloc_mw_resp resp;
	int ret;

	ret = ibx_write_cmd(pd->context->cmd_fd, IB_USER_VERBS_CMD_ALLOC_MW,
			    &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			    NULL, 0);
	if (ret)
		return ret;
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = resp.rkey;
	mw->handle = resp.mw_handle;
	mw->type = type;
	return 0;
}

__ibx_export
int ibx_cmd_dealloc_mw(struct ibv_mw *mw)
{
	struct ib_uverbs_dealloc_mw req = { .mw_handle = mw->handle };

	return ibx_write_cmd(mw->context->cmd_fd, IB_USER_VERBS_CMD_DEALLOC_MW,
			     &req, sizeof(req), NULL, 0, NULL, 0, NULL, 0);
}

/* The fields every CQ gets, whoever created it. */
static void init_cq_common(struct ibv_cq *cq, struct ibv_context *context,
			   struct ibv_comp_channel *channel, uint32_t handle,
			   int cqe)
{
	cq->context = context;
	cq->channel = channel;
	cq->handle = handle;
	cq->cqe = cqe;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
}

__ibx_export
int ibx_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, const void *drv_in, size_t drv_in_len,
		      void *drv_out, size_t drv_out_len)
{
	struct ib_uverbs_create_cq req = {
		.user_handle = (uintptr_t)cq,
		.cqe = cqe,
		.comp_vector = comp_vector,
		.comp_channel = channel ? channel->fd : -1,
	};
	struct ib_uverbs_create_cq_resp resp;
	int ret;

	ret = ibx_write_cmd(context->cmd_fd, IB_USER_VERBS_CMD_CREATE_CQ, &req,
			    sizeof(req), drv_in, drv_in_len, &resp,
			    sizeof(resp), drv_out, drv_out_len);
	if (ret)
		return ret;
	init_cq_common(cq, context, channel, resp.cq_handle, resp.cqe);
	return 0;
}

__ibx_export
int ibx_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *attr,
			 struct ibv_cq_ex *cq, const void *drv_in,
			 size_t drv_in_len, void *drv_out, size_t drv_out_len)
{
	struct ib_uverbs_ex_create_cq req = {
		.user_handle = (uintptr_t)cq,
		.cqe = attr->cqe,
		.comp_vector = attr->comp_vector,
		.comp_channel = attr->channel ? attr->channel->fd : -1,
	};
	struct ib_uverbs_ex_create_cq_resp resp;
	int ret;

	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		if (attr->flags & ~(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
				    IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
			return EOPNOTSUPP;
		/* Single-threaded is a userspace matter only. */
		if (attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)
			req.flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
	}

	ret = ibx_write_ex_cmd(context->cmd_fd, IB_USER_VERBS_EX_CMD_CREATE_CQ,
			       &req, sizeof(req), drv_in, drv_in_len, &resp,
			       sizeof(resp), drv_out, drv_out_len);
	if (ret)
		return ret;
	init_cq_common(ibv_cq_ex_to_cq(cq), context, attr->channel,
		       resp.base.cq_handle, resp.base.cqe);
	cq->cq_context = attr->cq_context;
	return 0;
}

__ibx_export
int ibx_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct ib_uverbs_req_notify_cq req = {
		.cq_handle = cq->handle,
		.solicited_only = !!solicited_only,
	};

	return ibx_write_cmd(cq->context->cmd_fd,
			     IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &req, sizeof(req),
			     NULL, 0, NULL, 0, NULL, 0);
}

__ibx_export
int ibx_cmd_resize_cq(struct ibv_cq *cq, int cqe, void *drv_out,
		      size_t drv_out_len)
{
	struct ib_uverbs_resize_cq req = {
		.cq_handle = cq->handle,
		.cqe = cqe,
	};
	struct ib_uverbs_resize_cq_resp resp;
	int ret;

	ret = ibx_write_cmd(cq->context->cmd_fd, IB_USER_VERBS_CMD_RESIZE_CQ,
			    &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			    drv_out, drv_out_len);
	if (ret)
		return ret;
	cq->cqe = resp.cqe;
	return 0;
}

__ibx_export
int ibx_cmd_destroy_cq(struct ibv_cq *cq)
{
	struct ib_uverbs_destroy_cq req = { .cq_handle = cq->handle };
	struct ib_uverbs_destroy_cq_resp resp;
	int ret;

	ret = ibx_write_cmd(cq->context->cmd_fd, IB_USER_VERBS_CMD_DESTROY_CQ,
			    &req, sizeof(req), NULL, 0, &resp, sizeof(resp),
			    NULL, 0);
	if (ret)
		return ret;

	ibx_wait_events_acked(&cq->mutex, &cq->cond, &cq->comp_events_completed,
			      resp.comp_events_reported);
	ibx_wait_events_acked(&cq->mutex, &cq->cond, &cq->async_events_completed,
			      resp.async_events_reported);
	return 0;
}
