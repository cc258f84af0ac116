// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs.c - QP objects: create (command + mapping of the doorbell record and
 * rings), modify, query, destroy.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "mlx_hw.h"

static int wq_init(struct mlx_hw_wq *wq)
{
	return pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

static int ring_ok(uint32_t offset, uint32_t cnt, uint32_t stride,
		   uint32_t len)
{
	if (!cnt)
		return 1;
	return !(cnt & (cnt - 1)) && stride && !(stride % 16) &&
	       offset + (uint64_t)cnt * stride <= len;
}

static struct mlx_hw_qp *qp_alloc(void)
{
	struct mlx_hw_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	if (wq_init(&qp->sq)) {
		free(qp);
		return NULL;
	}
	if (wq_init(&qp->rq)) {
		pthread_spin_destroy(&qp->sq.lock);
		free(qp);
		return NULL;
	}
	return qp;
}

static void qp_free(struct mlx_hw_qp *qp)
{
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	free(qp);
}

/*
 * Maps the rings and finds the doorbell record the create response
 * describes; caps are the actual.
 */
static int qp_map(struct ibv_context *ibctx, struct mlx_hw_qp *qp,
		  const struct mlx_hw_create_qp_resp *r,
		  const struct ibv_qp_cap *cap)
{
	uint8_t *base;

	mlx_hw_mem_defined(r, sizeof(*r));
	if (!r->sq_wqe_cnt ||
	    !ring_ok(r->sq_offset, r->sq_wqe_cnt, r->sq_stride, r->mmap_len) ||
	    !ring_ok(r->rq_offset, r->rq_wqe_cnt, r->rq_stride, r->mmap_len))
		return EPROTO;
	qp->db = mlx_hw_dbrec(ibctx, r->db_key, r->db_offset);
	if (!qp->db)
		return errno;
	base = mlx_hw_mmap_region(ibctx, r->mmap_key,
				  r->mmap_len, 1);
	if (!base)
		return errno;
	qp->region = base;
	qp->region_len = r->mmap_len;

	qp->sq.buf = base + r->sq_offset;
	qp->sq.wqe_cnt = r->sq_wqe_cnt;
	qp->sq.stride = r->sq_stride;
	qp->sq.max_sge = cap->max_send_sge;
	qp->sq.db_pi = &qp->db->sq_pi;
	qp->sq.db_ci = &qp->db->sq_ci;
	qp->max_inline_data = r->max_inline_data;

	qp->rq.buf = base + r->rq_offset;
	qp->rq.wqe_cnt = r->rq_wqe_cnt;
	qp->rq.stride = r->rq_stride;
	qp->rq.max_sge = cap->max_recv_sge;
	qp->rq.db_pi = &qp->db->rq_pi;
	qp->rq.db_ci = &qp->db->rq_ci;
	return 0;
}

struct ibv_qp *mlx_hw_create_qp(struct ibv_pd *pd,
				struct ibv_qp_init_attr *attr)
{
	struct mlx_hw_create_qp_resp resp = {};
	struct mlx_hw_qp *qp;
	int ret;

	qp = qp_alloc();
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibx_cmd_create_qp(pd, &qp->vqp.qp, attr, NULL, 0, &resp,
				sizeof(resp));
	if (ret)
		goto err;
	ret = qp_map(pd->context, qp, &resp, &attr->cap);
	if (ret) {
		ibx_cmd_destroy_qp(&qp->vqp.qp);
		goto err;
	}
	return &qp->vqp.qp;
err:
	qp_free(qp);
	errno = ret;
	return NULL;
}

#define MLX_HW_SEND_OPS_UD (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define MLX_HW_SEND_OPS_UC (MLX_HW_SEND_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE | \
			    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define MLX_HW_SEND_OPS_RC (MLX_HW_SEND_OPS_UC | IBV_QP_EX_WITH_RDMA_READ | \
			    IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			    IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW | \
			    IBV_QP_EX_WITH_SEND_WITH_INV)

static int send_ops_supported(enum ibv_qp_type type, uint64_t ops)
{
	uint64_t sup = type == IBV_QPT_RC ? MLX_HW_SEND_OPS_RC :
		       type == IBV_QPT_XRC_SEND ? MLX_HW_SEND_OPS_RC :
		       type == IBV_QPT_UC ? MLX_HW_SEND_OPS_UC :
		       type == IBV_QPT_UD ? MLX_HW_SEND_OPS_UD : 0;

	return !(ops & ~sup);
}

struct ibv_qp *mlx_hw_create_qp_ex(struct ibv_context *ibctx,
				   struct ibv_qp_init_attr_ex *attr)
{
	struct mlx_hw_create_qp_resp resp = {};
	struct ibv_qp_init_attr_ex cmd_attr = *attr;
	uint64_t ops = 0;
	struct mlx_hw_qp *qp;
	int ret;

	/* An XRC receive QP hangs off its XRC domain, every other off a PD. */
	if (!(attr->comp_mask & (attr->qp_type == IBV_QPT_XRC_RECV ?
				 IBV_QP_INIT_ATTR_XRCD : IBV_QP_INIT_ATTR_PD)) ||
	    (attr->comp_mask & ~(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
				 IBV_QP_INIT_ATTR_CREATE_FLAGS |
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ops = attr->send_ops_flags;
		if (!send_ops_supported(attr->qp_type, ops)) {
			errno = EOPNOTSUPP;
			return NULL;
		}
	}
	qp = qp_alloc();
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	/* send_ops_flags are the provider's business, not the kernel's. */
	cmd_attr.comp_mask &= ~IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ret = ibx_cmd_create_qp_ex(ibctx, &qp->vqp, &cmd_attr, NULL, 0, &resp,
				   sizeof(resp));
	if (ret)
		goto err;
	attr->cap = cmd_attr.cap;
	/* An XRC receive QP has no queues of its own: nothing to map. */
	ret = attr->qp_type == IBV_QPT_XRC_RECV ? 0 :
	      qp_map(ibctx, qp, &resp, &attr->cap);
	if (ret) {
		ibx_cmd_destroy_qp(&qp->vqp.qp);
		goto err;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		mlx_hw_init_qp_ex(qp, ops);
	return &qp->vqp.qp;
err:
	qp_free(qp);
	errno = ret;
	return NULL;
}

int mlx_hw_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	return ibx_cmd_query_qp(qp, attr, attr_mask, init_attr);
}

/*
 * Drops the unpolled completions of @ibqp.  Receive completions of a QP on
 * an SRQ stay (and its send completions with them, in a CQ they share):
 * each consumed an SRQ WQE, which only its completion hands back to the
 * application.
 */
static void qp_clean_cqs(struct ibv_qp *ibqp)
{
	if (ibqp->recv_cq && !ibqp->srq)
		mlx_hw_cq_clean(to_mcq(ibqp->recv_cq), ibqp->qp_num);
	if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
		mlx_hw_cq_clean(to_mcq(ibqp->send_cq), ibqp->qp_num);
}

int mlx_hw_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		     int attr_mask)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	int ret;

	ret = ibx_cmd_modify_qp(ibqp, attr, attr_mask);
	if (ret || !(attr_mask & IBV_QP_STATE))
		return ret;
	/* The kernel zeroed the doorbell record: restart at 0 (PRM 3.2). */
	if (attr->qp_state == IBV_QPS_RESET) {
		pthread_spin_lock(&qp->sq.lock);
		qp->sq.pi = 0;
		pthread_spin_unlock(&qp->sq.lock);
		pthread_spin_lock(&qp->rq.lock);
		qp->rq.pi = 0;
		pthread_spin_unlock(&qp->rq.lock);
		/* Completions of the old incarnation go too (as mlx5). */
		qp_clean_cqs(ibqp);
	}
	ibqp->state = attr->qp_state;
	return 0;
}

int mlx_hw_destroy_qp(struct ibv_qp *ibqp)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	int ret;

	ret = ibx_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	/* No completion names a QP that is gone (as mlx5). */
	qp_clean_cqs(ibqp);
	if (qp->region)
		munmap(qp->region, qp->region_len);
	qp_free(qp);
	return 0;
}

/* A handle of an XRC TGT QP that another context may have created. */
struct ibv_qp *mlx_hw_open_qp(struct ibv_context *ibctx,
			      struct ibv_qp_open_attr *attr)
{
	struct mlx_hw_qp *qp = qp_alloc();
	int ret;

	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibx_cmd_open_qp(ibctx, &qp->vqp, attr);
	if (ret) {
		qp_free(qp);
		errno = ret;
		return NULL;
	}
	return &qp->vqp.qp;
}

struct ibv_xrcd *mlx_hw_open_xrcd(struct ibv_context *ibctx,
				  struct ibv_xrcd_init_attr *attr)
{
	struct verbs_xrcd *xrcd = calloc(1, sizeof(*xrcd));
	int ret;

	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibx_cmd_open_xrcd(ibctx, xrcd, sizeof(*xrcd), attr);
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->xrcd;
}

int mlx_hw_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = (struct verbs_xrcd *)ibxrcd;
	int ret = ibx_cmd_close_xrcd(xrcd);

	if (!ret)
		free(xrcd);
	return ret;
}
