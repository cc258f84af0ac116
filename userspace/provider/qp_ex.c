// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qp_ex.c - the ibv_qp_ex work request builder (ibv_wr_*): wr_start takes
 * the SQ lock, each wr_<opcode> starts a WQE in the next slot, the setters
 * fill its segments, wr_complete publishes the batch with one doorbell.
 * The first error poisons the batch: wr_complete then discards it all and
 * returns that error.
 */
#include <errno.h>

#include "mlx_hw.h"

static struct mlx_hw_qp *qpx_to_mqp(struct ibv_qp_ex *qpx)
{
	return (struct mlx_hw_qp *)qpx;
}

static void wr_fail(struct mlx_hw_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr.ctrl = NULL;
}

/* Starts the next WQE; NULL if the batch already failed or this fails. */
static struct mlx_hw_sq_wqe *wr_begin(struct ibv_qp_ex *qpx, uint8_t opcode)
{
	struct mlx_hw_qp *qp = qpx_to_mqp(qpx);
	int ret;

	if (qp->wr_err)
		return NULL;
	ret = mlx_hw_sq_begin(qp, opcode, qpx->wr_id, qpx->wr_flags, &qp->wr);
	if (ret) {
		wr_fail(qp, ret);
		return NULL;
	}
	return &qp->wr;
}

/* The WQE a setter applies to; NULL (batch failed) if there is none. */
static struct mlx_hw_sq_wqe *wr_cur(struct ibv_qp_ex *qpx)
{
	struct mlx_hw_qp *qp = qpx_to_mqp(qpx);

	if (qp->wr_err)
		return NULL;
	if (!qp->wr.ctrl) {
		wr_fail(qp, EINVAL);
		return NULL;
	}
	return &qp->wr;
}

static void wr_raddr(struct mlx_hw_sq_wqe *w, uint32_t rkey, uint64_t raddr)
{
	w->raddr->raddr = htole64(raddr);
	w->raddr->rkey = htole32(rkey);
}

static void wr_send(struct ibv_qp_ex *qpx)
{
	wr_begin(qpx, MLX_HW_OP_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_SEND_IMM);

	if (w)
		w->ctrl->imm_data = imm_data;
}

static void wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_SEND_INV);

	if (w)
		w->ctrl->invalidate_rkey = htole32(invalidate_rkey);
}

static void wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			  uint64_t remote_addr)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_RDMA_WRITE);

	if (w)
		wr_raddr(w, rkey, remote_addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_RDMA_WRITE_IMM);

	if (w) {
		wr_raddr(w, rkey, remote_addr);
		w->ctrl->imm_data = imm_data;
	}
}

static void wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			 uint64_t remote_addr)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_RDMA_READ);

	if (w)
		wr_raddr(w, rkey, remote_addr);
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_ATOMIC_CS);

	if (w) {
		wr_raddr(w, rkey, remote_addr);
		w->atomic->swap_add = htole64(swap);
		w->atomic->compare = htole64(compare);
	}
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_ATOMIC_FA);

	if (w) {
		wr_raddr(w, rkey, remote_addr);
		w->atomic->swap_add = htole64(add);
	}
}

static void wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_BIND_MW);

	if (w && !mw)
		wr_fail(qpx_to_mqp(qpx), EINVAL);
	else if (w)
		mlx_hw_sq_set_bind(w, mw, rkey, bind_info);
}

static void wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct mlx_hw_sq_wqe *w = wr_begin(qpx, MLX_HW_OP_LOCAL_INV);

	if (w)
		w->ctrl->invalidate_rkey = htole32(invalidate_rkey);
}

static void wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct mlx_hw_sq_wqe *w = wr_cur(qpx);

	if (!w)
		return;
	if (!w->ud || !ah) {
		wr_fail(qpx_to_mqp(qpx), EINVAL);
		return;
	}
	mlx_hw_sq_set_ud(w, ah, remote_qpn, remote_qkey);
}

static void wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct mlx_hw_sq_wqe *w = wr_cur(qpx);

	if (!w)
		return;
	if (!w->xrc) {
		wr_fail(qpx_to_mqp(qpx), EINVAL);
		return;
	}
	w->xrc->remote_srqn = htole32(remote_srqn);
}

static void wr_check(struct ibv_qp_ex *qpx, int ret)
{
	if (ret)
		wr_fail(qpx_to_mqp(qpx), ret);
}

static void wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct mlx_hw_sq_wqe *w = wr_cur(qpx);

	if (w)
		wr_check(qpx, mlx_hw_sq_add_sge(qpx_to_mqp(qpx), w, lkey, addr,
						length));
}

static void wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct mlx_hw_sq_wqe *w = wr_cur(qpx);
	size_t i;

	for (i = 0; w && i < num_sge; i++) {
		wr_check(qpx, mlx_hw_sq_add_sge(qpx_to_mqp(qpx), w,
						sg_list[i].lkey,
						sg_list[i].addr,
						sg_list[i].length));
		w = wr_cur(qpx);
	}
}

static void wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
			       size_t length)
{
	struct mlx_hw_sq_wqe *w = wr_cur(qpx);

	if (w)
		wr_check(qpx, mlx_hw_sq_add_inline(qpx_to_mqp(qpx), w, addr,
						   length));
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct mlx_hw_sq_wqe *w = wr_cur(qpx);
	size_t i;

	if (w)	/* sets INLINE even for an empty list */
		wr_check(qpx, mlx_hw_sq_add_inline(qpx_to_mqp(qpx), w, NULL, 0));
	for (i = 0; i < num_buf && (w = wr_cur(qpx)); i++)
		wr_check(qpx, mlx_hw_sq_add_inline(qpx_to_mqp(qpx), w,
						   buf_list[i].addr,
						   buf_list[i].length));
}

static void wr_start(struct ibv_qp_ex *qpx)
{
	struct mlx_hw_qp *qp = qpx_to_mqp(qpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_start_pi = qp->sq.pi;
	qp->wr_err = 0;
	qp->wr.ctrl = NULL;
	/* IBA 10.8.2.3: the SQ takes requests from RTS on. */
	if (qpx->qp_base.state < IBV_QPS_RTS)
		qp->wr_err = EINVAL;
}

static int wr_complete(struct ibv_qp_ex *qpx)
{
	struct mlx_hw_qp *qp = qpx_to_mqp(qpx);
	int ret = qp->wr_err, posted;

	if (ret)
		qp->sq.pi = qp->wr_start_pi;
	posted = qp->sq.pi != qp->wr_start_pi;
	if (posted)
		mlx_hw_wq_publish(&qp->sq);
	qp->wr.ctrl = NULL;
	pthread_spin_unlock(&qp->sq.lock);
	if (posted)
		mlx_hw_ring_doorbell(qpx->qp_base.context, MLX_HW_DB_KIND_QP,
				     qpx->qp_base.qp_num);
	return ret;
}

static void wr_abort(struct ibv_qp_ex *qpx)
{
	struct mlx_hw_qp *qp = qpx_to_mqp(qpx);

	qp->sq.pi = qp->wr_start_pi;
	qp->wr.ctrl = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

void mlx_hw_init_qp_ex(struct mlx_hw_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qpx->wr_start = wr_start;
	qpx->wr_complete = wr_complete;
	qpx->wr_abort = wr_abort;
	qpx->wr_set_ud_addr = wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = wr_set_xrc_srqn;
	qpx->wr_set_sge = wr_set_sge;
	qpx->wr_set_sge_list = wr_set_sge_list;
	qpx->wr_set_inline_data = wr_set_inline_data;
	qpx->wr_set_inline_data_list = wr_set_inline_data_list;
	if (ops & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = wr_send_imm;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = wr_send_inv;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = wr_bind_mw;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = wr_local_inv;
	qp->vqp.comp_mask |= IBX_QP_EX;
}
