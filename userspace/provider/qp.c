// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qp.c - the posting paths: send WQEs (PRM 4) and receive WQEs (PRM 5)
 * written into their fixed-stride ring slots, and the doorbell records that
 * publish them to the engine.
 */
#include <errno.h>
#include <string.h>

#include "mlx_hw.h"

/* Free slots of @wq, as far as the engine's consumer index tells. */
static uint32_t wq_room(struct mlx_hw_wq *wq)
{
	/* Acquire: the engine is done with the slots below ci before reuse. */
	uint32_t ci = le32toh(__atomic_load_n(wq->db_ci, __ATOMIC_ACQUIRE));

	return wq->wqe_cnt - (wq->pi - ci);
}

void mlx_hw_wq_publish(struct mlx_hw_wq *wq)
{
	/* Write barrier: the WQEs must be visible before the pi that posts them. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(wq->db_pi, htole32(wq->pi), __ATOMIC_RELAXED);
}

int mlx_hw_write_rwqe(struct mlx_hw_wq *wq, const struct ibv_recv_wr *wr)
{
	struct mlx_hw_rwqe *rwqe;
	struct mlx_hw_wqe_data *seg;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge ||
	    sizeof(*rwqe) + wr->num_sge * sizeof(*seg) > wq->stride)
		return EINVAL;
	if (!wq_room(wq))
		return ENOMEM;

	rwqe = (void *)(wq->buf + (wq->pi & (wq->wqe_cnt - 1)) * wq->stride);
	rwqe->wr_id = htole64(wr->wr_id);
	rwqe->num_sge = htole32(wr->num_sge);
	rwqe->reserved = 0;
	seg = (struct mlx_hw_wqe_data *)(rwqe + 1);
	for (i = 0; i < wr->num_sge; i++) {
		seg[i].byte_count = htole32(wr->sg_list[i].length);
		seg[i].lkey = htole32(wr->sg_list[i].lkey);
		seg[i].addr = htole64(wr->sg_list[i].addr);
	}
	wq->pi++;
	return 0;
}

int mlx_hw_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	int posted = 0, ret = 0;

	if (!qp->rq.wqe_cnt || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq.lock);
	for (; wr; wr = wr->next, posted++) {
		ret = mlx_hw_write_rwqe(&qp->rq, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	if (posted)
		mlx_hw_wq_publish(&qp->rq);
	pthread_spin_unlock(&qp->rq.lock);
	if (!posted)
		return ret;
	/*
	 * The engine reads rq_pi when a message arrives: no doorbell, no
	 * system call.  Only a QP in ERR wants one, for its flush (PRM 3).
	 * Full barrier: the rq_pi store before the flags load; pairs with
	 * the engine's barrier between setting the flag and reading rq_pi.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (le32toh(__atomic_load_n(&qp->db->flags, __ATOMIC_RELAXED)) &
	    MLX_HW_QP_DB_RING_RQ)
		mlx_hw_ring_doorbell(ibqp->context, MLX_HW_DB_KIND_QP,
				     ibqp->qp_num);
	return ret;
}

/* Opcodes each transport may post (PRM 7). */
static int sq_opcode_valid(enum ibv_qp_type type, uint8_t opcode)
{
	switch (type) {
	case IBV_QPT_RC:
		return opcode <= MLX_HW_OP_SEND_INV;
	case IBV_QPT_UC:
		return opcode == MLX_HW_OP_SEND || opcode == MLX_HW_OP_SEND_IMM ||
		       opcode == MLX_HW_OP_RDMA_WRITE ||
		       opcode == MLX_HW_OP_RDMA_WRITE_IMM;
	case IBV_QPT_UD:
		return opcode == MLX_HW_OP_SEND || opcode == MLX_HW_OP_SEND_IMM;
	case IBV_QPT_XRC_SEND:
		/* The requester half of XRC is RC's (IBA A14). */
		return opcode <= MLX_HW_OP_SEND_INV;
	default:
		return 0;
	}
}

int mlx_hw_sq_begin(struct mlx_hw_qp *qp, uint8_t opcode, uint64_t wr_id,
		    unsigned int send_flags, struct mlx_hw_sq_wqe *w)
{
	uint8_t *slot, *p;

	w->ctrl = NULL;
	if (!sq_opcode_valid(qp->vqp.qp.qp_type, opcode))
		return EINVAL;
	if (!wq_room(&qp->sq))
		return ENOMEM;

	slot = qp->sq.buf + (qp->sq.pi & (qp->sq.wqe_cnt - 1)) * qp->sq.stride;
	p = slot + sizeof(*w->ctrl);
	w->ud = NULL;
	w->xrc = NULL;
	w->raddr = NULL;
	w->atomic = NULL;
	w->bind = NULL;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		w->ud = (void *)p;
		p += sizeof(*w->ud);
	} else if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND) {
		w->xrc = (void *)p;
		p += sizeof(*w->xrc);
	}
	switch (opcode) {
	case MLX_HW_OP_ATOMIC_CS:
	case MLX_HW_OP_ATOMIC_FA:
		w->raddr = (void *)p;
		w->atomic = (void *)(p + sizeof(*w->raddr));
		p += sizeof(*w->raddr) + sizeof(*w->atomic);
		break;
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
	case MLX_HW_OP_RDMA_READ:
		w->raddr = (void *)p;
		p += sizeof(*w->raddr);
		break;
	case MLX_HW_OP_BIND_MW:
		w->bind = (void *)p;
		p += sizeof(*w->bind);
		break;
	}
	/* Zero the headers: reserved fields and unset segment fields. */
	memset(slot, 0, p - slot);
	w->ctrl = (void *)slot;
	w->data = p;
	w->end = slot + qp->sq.stride;
	w->ctrl->wr_id = htole64(wr_id);
	w->ctrl->opcode = opcode;
	w->ctrl->flags = send_flags & (MLX_HW_WQE_FENCE | MLX_HW_WQE_SIGNALED |
				       MLX_HW_WQE_SOLICITED);
	qp->sq.pi++;
	return 0;
}

int mlx_hw_sq_add_sge(struct mlx_hw_qp *qp, struct mlx_hw_sq_wqe *w,
		      uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct mlx_hw_wqe_data *seg;
	unsigned int n = w->ctrl->num_sge;

	seg = (struct mlx_hw_wqe_data *)w->data + n;
	if (n >= qp->sq.max_sge || (uint8_t *)(seg + 1) > w->end ||
	    (w->ctrl->flags & MLX_HW_WQE_INLINE))
		return EINVAL;
	seg->byte_count = htole32(length);
	seg->lkey = htole32(lkey);
	seg->addr = htole64(addr);
	w->ctrl->num_sge = n + 1;
	return 0;
}

int mlx_hw_sq_add_inline(struct mlx_hw_qp *qp, struct mlx_hw_sq_wqe *w,
			 const void *addr, size_t length)
{
	struct mlx_hw_wqe_inline *inl = (void *)w->data;
	uint32_t used;

	if (!(w->ctrl->flags & MLX_HW_WQE_INLINE)) {
		if (w->ctrl->num_sge)
			return EINVAL;
		w->ctrl->flags |= MLX_HW_WQE_INLINE;
		inl->byte_count = 0;
	}
	used = le32toh(inl->byte_count);
	if (length > qp->max_inline_data - used ||
	    length > (size_t)(w->end - inl->data) - used)
		return EINVAL;
	if (length)
		memcpy(inl->data + used, addr, length);
	inl->byte_count = htole32(used + length);
	return 0;
}

void mlx_hw_sq_set_ud(struct mlx_hw_sq_wqe *w, struct ibv_ah *ah,
		      uint32_t remote_qpn, uint32_t remote_qkey)
{
	*w->ud = to_mah(ah)->av;
	w->ud->remote_qpn = htole32(remote_qpn);
	/* Bit 31 set: the engine uses the QP's own Q_Key (IBA C10-15). */
	w->ud->remote_qkey = htole32(remote_qkey);
}

/*
 * The window is named by the index part of its current rkey; the consumer
 * chooses only the key byte of the new one (IBA 10.6.7.2: the "key" part of
 * an R_Key belongs to the consumer), as rdma-core's hardware providers do.
 * Window rights are remote rights: local-only bits are dropped.
 */
void mlx_hw_sq_set_bind(struct mlx_hw_sq_wqe *w, struct ibv_mw *mw,
			uint32_t rkey, const struct ibv_mw_bind_info *bi)
{
	w->bind->addr = htole64(bi->addr);
	w->bind->length = htole64(bi->length);
	w->bind->mr_lkey = htole32(bi->mr ? bi->mr->lkey : 0);
	w->bind->new_rkey = htole32((mw->rkey & ~0xffu) | (rkey & 0xff));
	w->bind->access = htole32(bi->mw_access_flags &
				  ~(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND));
}

/* Builds one ibv_send_wr at sq.pi; on failure sq.pi is left unchanged. */
static int sq_post_one(struct mlx_hw_qp *qp, struct ibv_send_wr *wr)
{
	struct mlx_hw_sq_wqe w;
	int i, ret;

	if (wr->opcode > IBV_WR_SEND_WITH_INV ||
	    (qp->vqp.qp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah))
		return EINVAL;
	ret = mlx_hw_sq_begin(qp, wr->opcode, wr->wr_id, wr->send_flags, &w);
	if (ret)
		return ret;

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		w.ctrl->imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		w.ctrl->invalidate_rkey = htole32(wr->invalidate_rkey);
		break;
	default:
		break;
	}
	if (w.ud)
		mlx_hw_sq_set_ud(&w, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				 wr->wr.ud.remote_qkey);
	if (w.xrc)
		w.xrc->remote_srqn = htole32(wr->qp_type.xrc.remote_srqn);
	if (w.atomic) {
		w.raddr->raddr = htole64(wr->wr.atomic.remote_addr);
		w.raddr->rkey = htole32(wr->wr.atomic.rkey);
		w.atomic->swap_add = htole64(wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ?
					     wr->wr.atomic.swap :
					     wr->wr.atomic.compare_add);
		w.atomic->compare = htole64(wr->wr.atomic.compare_add);
	} else if (w.raddr) {
		w.raddr->raddr = htole64(wr->wr.rdma.remote_addr);
		w.raddr->rkey = htole32(wr->wr.rdma.rkey);
	}
	if (w.bind && !wr->bind_mw.mw) {
		qp->sq.pi--;
		return EINVAL;
	}
	if (w.bind)
		mlx_hw_sq_set_bind(&w, wr->bind_mw.mw, wr->bind_mw.rkey,
				   &wr->bind_mw.bind_info);

	ret = wr->num_sge < 0 ? EINVAL : 0;
	/* Inline only makes sense where the local data is a source. */
	if (!ret && (wr->send_flags & IBV_SEND_INLINE) && !w.atomic &&
	    wr->opcode != IBV_WR_RDMA_READ) {
		ret = mlx_hw_sq_add_inline(qp, &w, NULL, 0);
		for (i = 0; !ret && i < wr->num_sge; i++)
			ret = mlx_hw_sq_add_inline(qp, &w,
					(void *)(uintptr_t)wr->sg_list[i].addr,
					wr->sg_list[i].length);
	} else {
		for (i = 0; !ret && i < wr->num_sge; i++)
			ret = mlx_hw_sq_add_sge(qp, &w, wr->sg_list[i].lkey,
						wr->sg_list[i].addr,
						wr->sg_list[i].length);
	}
	if (ret)
		qp->sq.pi--;
	return ret;
}

int mlx_hw_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	int posted = 0, ret = 0;

	/* IBA 10.8.2.3: the SQ takes requests from RTS on (and flushes in ERR). */
	if (ibqp->state < IBV_QPS_RTS) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq.lock);
	for (; wr; wr = wr->next, posted++) {
		ret = sq_post_one(qp, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	if (posted)
		mlx_hw_wq_publish(&qp->sq);
	pthread_spin_unlock(&qp->sq.lock);
	if (posted)
		mlx_hw_ring_doorbell(ibqp->context, MLX_HW_DB_KIND_QP,
				     ibqp->qp_num);
	return ret;
}

/* ibv_bind_mw() of a type 1 window: a BIND_MW WQE with the next rkey. */
int mlx_hw_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad_wr;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = mlx_hw_post_send(qp, &wr, &bad_wr);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}
