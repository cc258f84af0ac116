// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srq.c - shared receive queues: a plain receive ring the engine consumes
 * strictly in order (PRM 3.1), so posting is the same as on a QP's RQ.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "mlx_hw.h"

static int srq_map(struct ibv_context *ibctx, struct mlx_hw_srq *srq,
		   const struct mlx_hw_create_srq_resp *r)
{
	struct mlx_hw_srq_db *db;
	uint8_t *base;

	mlx_hw_mem_defined(r, sizeof(*r));
	if (!r->wqe_cnt || (r->wqe_cnt & (r->wqe_cnt - 1)) ||
	    r->stride < sizeof(struct mlx_hw_rwqe) || (r->stride % 16) ||
	    r->ring_offset + (uint64_t)r->wqe_cnt * r->stride > r->mmap_len)
		return EPROTO;
	db = mlx_hw_dbrec(ibctx, r->db_key, r->db_offset);
	if (!db)
		return errno;
	base = mlx_hw_mmap_region(ibctx, r->mmap_key,
				  r->mmap_len, 1);
	if (!base)
		return errno;
	srq->region = base;
	srq->region_len = r->mmap_len;
	srq->srqn = r->srqn;
	srq->wq.buf = base + r->ring_offset;
	srq->wq.wqe_cnt = r->wqe_cnt;
	srq->wq.stride = r->stride;
	/* PRM 5: max_sge = (stride - 16) / 16, capped at 32. */
	srq->wq.max_sge = (r->stride - sizeof(struct mlx_hw_rwqe)) /
			  sizeof(struct mlx_hw_wqe_data);
	if (srq->wq.max_sge > 32)
		srq->wq.max_sge = 32;
	srq->wq.db_pi = &db->pi;
	srq->wq.db_ci = &db->ci;
	return 0;
}

/* A zeroed SRQ with its lock initialised, or NULL with errno set. */
static struct mlx_hw_srq *srq_alloc(void)
{
	struct mlx_hw_srq *srq = calloc(1, sizeof(*srq));
	int ret;

	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = pthread_spin_init(&srq->wq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret) {
		free(srq);
		errno = ret;
		return NULL;
	}
	return srq;
}

/*
 * Ends a create: maps the ring the command (status @ret) described, or
 * undoes the command and the allocation.
 */
static struct ibv_srq *srq_finish(struct ibv_context *ibctx,
				  struct mlx_hw_srq *srq, int ret,
				  const struct mlx_hw_create_srq_resp *resp)
{
	if (!ret) {
		ret = srq_map(ibctx, srq, resp);
		if (!ret)
			return &srq->vsrq.srq;
		ibx_cmd_destroy_srq(&srq->vsrq.srq);
	}
	pthread_spin_destroy(&srq->wq.lock);
	free(srq);
	errno = ret;
	return NULL;
}

struct ibv_srq *mlx_hw_create_srq(struct ibv_pd *pd,
				  struct ibv_srq_init_attr *attr)
{
	struct mlx_hw_create_srq_resp resp = {};
	struct mlx_hw_srq *srq = srq_alloc();
	int ret;

	if (!srq)
		return NULL;
	ret = ibx_cmd_create_srq(pd, &srq->vsrq.srq, attr, NULL, 0, &resp,
				 sizeof(resp));
	return srq_finish(pd->context, srq, ret, &resp);
}

/* Basic or XRC SRQs; an XRC SRQ's number goes into senders' WQEs. */
struct ibv_srq *mlx_hw_create_srq_ex(struct ibv_context *ibctx,
				     struct ibv_srq_init_attr_ex *attr)
{
	struct mlx_hw_create_srq_resp resp = {};
	struct mlx_hw_srq *srq;
	int ret;

	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    attr->srq_type != IBV_SRQT_BASIC && attr->srq_type != IBV_SRQT_XRC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = srq_alloc();
	if (!srq)
		return NULL;
	ret = ibx_cmd_create_srq_ex(ibctx, &srq->vsrq, attr, NULL, 0, &resp,
				    sizeof(resp));
	return srq_finish(ibctx, srq, ret, &resp);
}

/*
 * Moves the ring to the region a resize returned (PRM 5.1): the kernel
 * copied the WQEs not yet taken to the start of the new ring and set pi
 * in the doorbell record, which stays; our producer index restarts there.
 */
static int srq_use_region(struct ibv_context *ibctx, struct mlx_hw_srq *srq,
			  const struct mlx_hw_resize_srq_resp *r)
{
	uint8_t *base;

	mlx_hw_mem_defined(r, sizeof(*r));
	if (!r->wqe_cnt || (r->wqe_cnt & (r->wqe_cnt - 1)) ||
	    r->ring_offset + (uint64_t)r->wqe_cnt * srq->wq.stride >
	    r->mmap_len)
		return EPROTO;
	base = mlx_hw_mmap_region(ibctx, r->mmap_key, r->mmap_len, 1);
	if (!base)
		return errno;
	munmap(srq->region, srq->region_len);
	srq->region = base;
	srq->region_len = r->mmap_len;
	srq->wq.buf = base + r->ring_offset;
	srq->wq.wqe_cnt = r->wqe_cnt;
	srq->wq.pi = le32toh(*srq->wq.db_pi);
	return 0;
}

int mlx_hw_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		      int attr_mask)
{
	struct mlx_hw_srq *srq = to_msrq(ibsrq);
	struct mlx_hw_resize_srq_resp resp = {};
	struct mlx_hw_modify_srq_cmd cmd = {
		.resp_addr = (uintptr_t)&resp,
	};
	int ret;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibx_cmd_modify_srq(ibsrq, attr, attr_mask, NULL, 0);
	/* No post may move pi while the kernel copies the ring. */
	pthread_spin_lock(&srq->wq.lock);
	ret = ibx_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
	if (!ret)
		ret = srq_use_region(ibsrq->context, srq, &resp);
	pthread_spin_unlock(&srq->wq.lock);
	return ret;
}

int mlx_hw_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	return ibx_cmd_query_srq(srq, attr);
}

int mlx_hw_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mlx_hw_srq *srq = to_msrq(ibsrq);
	int ret;

	ret = ibx_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	munmap(srq->region, srq->region_len);
	pthread_spin_destroy(&srq->wq.lock);
	free(srq);
	return 0;
}

int mlx_hw_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct mlx_hw_srq *srq = to_msrq(ibsrq);
	int posted = 0, ret = 0;

	pthread_spin_lock(&srq->wq.lock);
	for (; wr; wr = wr->next, posted++) {
		ret = mlx_hw_write_rwqe(&srq->wq, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	if (posted)
		mlx_hw_wq_publish(&srq->wq);
	pthread_spin_unlock(&srq->wq.lock);
	if (posted)
		mlx_hw_kick_engine(ibsrq->context);
	return ret;
}
