// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs.c - the object verbs (PD, MR, completion channel, CQ, SRQ, QP, AH,
 * multicast): argument checks, the provider's operation, and the generic
 * fields of the new object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "ibverbs.h"

__ibx_export
struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	const struct ibx_context_ops *ops = ctx_ops(context);
	struct ibv_pd *pd;

	if (!ops->alloc_pd) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	pd = ops->alloc_pd(context);
	if (pd)
		pd->context = context;
	return pd;
}

__ibx_export
int ibv_dealloc_pd(struct ibv_pd *pd)
{
	const struct ibx_context_ops *ops = ctx_ops(pd->context);

	if (!ops->dealloc_pd)
		return EOPNOTSUPP;
	return ops->dealloc_pd(pd);
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t iova, unsigned int access)
{
	const struct ibx_context_ops *ops = ctx_ops(pd->context);
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	struct ibv_mr *mr;
	int err;

	if (!ops->reg_mr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* An ODP MR pins nothing, so fork needs no care (rdma-core alike). */
	if (!odp && ibx_dontfork_range(addr, length))
		return NULL;

	mr = ops->reg_mr(pd, addr, length, iova, access);
	if (!mr) {
		err = errno;
		if (!odp)
			ibx_dofork_range(addr, length);
		errno = err;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	return mr;
}

__ibx_export
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, access);
}

__ibx_export
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	return reg_mr(pd, addr, length, iova, access);
}

/* Optional access flags the device lacks are dropped, not refused. */
__ibx_export
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	return reg_mr(pd, addr, length, iova,
		      access & ~IBV_ACCESS_OPTIONAL_RANGE);
}

__ibx_export
struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				 size_t length, uint64_t iova, int fd,
				 int access)
{
	errno = EOPNOTSUPP;
	return NULL;
}

__ibx_export
int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access)
{
	const struct ibx_context_ops *ops = ctx_ops(mr->context);
	bool change_addr = flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	void *old_addr = mr->addr;
	size_t old_len = mr->length;
	int ret;

	if (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED ||
	    (change_addr && (!addr || !length)) ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && !pd) || !flags) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (!ops->rereg_mr) {
		errno = EOPNOTSUPP;
		return IBV_REREG_MR_ERR_INPUT;
	}

	if (change_addr && ibx_dontfork_range(addr, length))
		return IBV_REREG_MR_ERR_DONT_FORK_NEW;

	ret = ops->rereg_mr((struct verbs_mr *)mr, flags, pd, addr, length,
			    access);
	if (ret) {
		errno = ret;
		if (change_addr && ibx_dofork_range(addr, length))
			return IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
		return IBV_REREG_MR_ERR_CMD;
	}

	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (change_addr) {
		mr->addr = addr;
		mr->length = length;
		if (ibx_dofork_range(old_addr, old_len))
			return IBV_REREG_MR_ERR_DO_FORK_OLD;
	}
	return 0;
}

__ibx_export
int ibv_dereg_mr(struct ibv_mr *mr)
{
	const struct ibx_context_ops *ops = ctx_ops(mr->context);
	bool odp = ((struct verbs_mr *)mr)->access & IBV_ACCESS_ON_DEMAND;
	void *addr = mr->addr;
	size_t length = mr->length;
	int ret;

	if (!ops->dereg_mr)
		return EOPNOTSUPP;
	ret = ops->dereg_mr((struct verbs_mr *)mr);
	if (ret)
		return ret;
	if (!odp)
		ibx_dofork_range(addr, length);
	return 0;
}

__ibx_export
struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct ib_uverbs_create_comp_channel req = {};
	struct ib_uverbs_create_comp_channel_resp resp;
	struct ibv_comp_channel *channel;
	int ret;

	channel = calloc(1, sizeof(*channel));
	if (!channel) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibx_write_cmd(context->cmd_fd,
			    IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			    sizeof(req), NULL, 0, &resp, sizeof(resp), NULL, 0);
	if (ret) {
		free(channel);
		errno = ret;
		return NULL;
	}
	channel->context = context;
	channel->fd = resp.fd;
	channel->refcnt = 0;
	return channel;
}

__ibx_export
int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *context = channel->context;
	int ret = 0;

	pthread_mutex_lock(&context->mutex);
	if (channel->refcnt) {
		ret = EBUSY;
	} else {
		close(channel->fd);
		free(channel);
	}
	pthread_mutex_unlock(&context->mutex);
	return ret;
}

__ibx_export
struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
			     void *cq_context,
			     struct ibv_comp_channel *channel,
			     int comp_vector)
{
	const struct ibx_context_ops *ops = ctx_ops(context);
	struct ibv_cq *cq;

	if (!ops->create_cq) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (cqe <= 0 || comp_vector < 0 ||
	    comp_vector >= (context->num_comp_vectors ?
			    context->num_comp_vectors : 1)) {
		errno = EINVAL;
		return NULL;
	}

	cq = ops->create_cq(context, cqe, channel, comp_vector);
	if (!cq)
		return NULL;
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	if (channel) {
		/* Pins the channel until the CQ is destroyed. */
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	return cq;
}

__ibx_export
int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	const struct ibx_context_ops *ops = ctx_ops(cq->context);

	if (!ops->resize_cq)
		return EOPNOTSUPP;
	if (cqe <= 0)
		return EINVAL;
	return ops->resize_cq(cq, cqe);
}

__ibx_export
int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ibv_context *context = cq->context;
	const struct ibx_context_ops *ops = ctx_ops(context);
	struct ibv_comp_channel *channel = cq->channel;
	int ret;

	if (!ops->destroy_cq)
		return EOPNOTSUPP;
	ret = ops->destroy_cq(cq);
	if (!ret && channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt--;
		pthread_mutex_unlock(&context->mutex);
	}
	return ret;
}

__ibx_export
int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	struct ib_uverbs_comp_event_desc ev;
	const struct ibx_context_ops *ops;

	if (read(channel->fd, &ev, sizeof(ev)) != sizeof(ev))
		return -1;

	*cq = (struct ibv_cq *)(uintptr_t)ev.cq_handle;
	*cq_context = (*cq)->cq_context;
	ops = ctx_ops((*cq)->context);
	if (ops->cq_event)
		ops->cq_event(*cq);
	return 0;
}

__ibx_export
void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

__ibx_export
struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *srq_init_attr)
{
	const struct ibx_context_ops *ops = ctx_ops(pd->context);
	struct ibv_srq *srq;

	if (!ops->create_srq) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = ops->create_srq(pd, srq_init_attr);
	if (srq) {
		srq->context = pd->context;
		srq->srq_context = srq_init_attr->srq_context;
		srq->pd = pd;
	}
	return srq;
}

__ibx_export
int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		   int srq_attr_mask)
{
	const struct ibx_context_ops *ops = ctx_ops(srq->context);

	if (!ops->modify_srq)
		return EOPNOTSUPP;
	return ops->modify_srq(srq, srq_attr, srq_attr_mask);
}

__ibx_export
int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	const struct ibx_context_ops *ops = ctx_ops(srq->context);

	if (!ops->query_srq)
		return EOPNOTSUPP;
	return ops->query_srq(srq, srq_attr);
}

__ibx_export
int ibv_destroy_srq(struct ibv_srq *srq)
{
	const struct ibx_context_ops *ops = ctx_ops(srq->context);

	if (!ops->destroy_srq)
		return EOPNOTSUPP;
	return ops->destroy_srq(srq);
}

__ibx_export
struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	const struct ibx_context_ops *ops = ctx_ops(pd->context);
	struct ibv_qp *qp;

	if (ops->create_qp) {
		qp = ops->create_qp(pd, qp_init_attr);
	} else if (ops->create_qp_ex) {
		struct ibv_qp_init_attr_ex ex = {
			.qp_context = qp_init_attr->qp_context,
			.send_cq = qp_init_attr->send_cq,
			.recv_cq = qp_init_attr->recv_cq,
			.srq = qp_init_attr->srq,
			.cap = qp_init_attr->cap,
			.qp_type = qp_init_attr->qp_type,
			.sq_sig_all = qp_init_attr->sq_sig_all,
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = pd,
		};

		qp = ops->create_qp_ex(pd->context, &ex);
		if (qp)
			qp_init_attr->cap = ex.cap;
	} else {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (qp) {
		qp->context = pd->context;
		qp->qp_context = qp_init_attr->qp_context;
		qp->pd = pd;
		qp->send_cq = qp_init_attr->send_cq;
		qp->recv_cq = qp_init_attr->recv_cq;
		qp->srq = qp_init_attr->srq;
		qp->qp_type = qp_init_attr->qp_type;
	}
	return qp;
}

__ibx_export
struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct verbs_qp *vqp = (struct verbs_qp *)qp;

	if (vqp->comp_mask & IBX_QP_EX)
		return &vqp->qp_ex;
	return NULL;
}

__ibx_export
int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	const struct ibx_context_ops *ops = ctx_ops(qp->context);
	int ret;

	if (!ops->query_qp)
		return EOPNOTSUPP;
	ret = ops->query_qp(qp, attr, attr_mask, init_attr);
	if (!ret && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

__ibx_export
int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	const struct ibx_context_ops *ops = ctx_ops(qp->context);
	int ret;

	if (!ops->modify_qp)
		return EOPNOTSUPP;
	ret = ops->modify_qp(qp, attr, attr_mask);
	if (!ret && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

/*
 * Without a device answer nothing is promised: 0 means "not known to be
 * in order", which every caller must handle anyway.
 */
__ibx_export
int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			       uint32_t flags)
{
	return 0;
}

__ibx_export
int ibv_destroy_qp(struct ibv_qp *qp)
{
	const struct ibx_context_ops *ops = ctx_ops(qp->context);

	if (!ops->destroy_qp)
		return EOPNOTSUPP;
	return ops->destroy_qp(qp);
}

__ibx_export
struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	const struct ibx_context_ops *ops = ctx_ops(pd->context);
	struct ibv_ah *ah;

	if (!ops->create_ah) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ah = ops->create_ah(pd, attr);
	if (ah) {
		ah->context = pd->context;
		ah->pd = pd;
	}
	return ah;
}

__ibx_export
int ibv_destroy_ah(struct ibv_ah *ah)
{
	const struct ibx_context_ops *ops = ctx_ops(ah->context);

	if (!ops->destroy_ah)
		return EOPNOTSUPP;
	return ops->destroy_ah(ah);
}

__ibx_export
int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	const struct ibx_context_ops *ops = ctx_ops(qp->context);

	if (!ops->attach_mcast)
		return EOPNOTSUPP;
	return ops->attach_mcast(qp, gid, lid);
}

__ibx_export
int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	const struct ibx_context_ops *ops = ctx_ops(qp->context);

	if (!ops->detach_mcast)
		return EOPNOTSUPP;
	return ops->detach_mcast(qp, gid, lid);
}

__ibx_export
int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return EOPNOTSUPP;
}

__ibx_export
int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return EOPNOTSUPP;
}

/* Sharing objects between processes needs the ioctl interface we lack. */
__ibx_export
struct ibv_context *ibv_import_device(int cmd_fd)
{
	errno = EOPNOTSUPP;
	return NULL;
}

__ibx_export
struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	errno = EOPNOTSUPP;
	return NULL;
}

__ibx_export
void ibv_unimport_pd(struct ibv_pd *pd)
{
}

__ibx_export
struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	errno = EOPNOTSUPP;
	return NULL;
}

__ibx_export
void ibv_unimport_mr(struct ibv_mr *mr)
{
}

__ibx_export
struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	errno = EOPNOTSUPP;
	return NULL;
}

__ibx_export
void ibv_unimport_dm(struct ibv_dm *dm)
{
}
