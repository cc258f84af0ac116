// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kverbs.c - the kernel data path: post_send, post_recv and poll_cq for
 * kernel QPs and CQs (created with udata == NULL).  The kernel is just
 * another "provider" here: it writes WQEs into the QP's rings and reads
 * CQEs from the CQ's ring in the formats of docs/prm.md, so the engine
 * runs them unchanged.  Instead of the NEED_WAKEUP handshake it tells
 * the engine through mlx_hw_qp_schedule(), which runs the QP for sure.
 */
#include "mlx_hw.h"

/* Writes one data segment per non-empty SGE; returns the bytes used. */
static u32 mlx_hw_kwqe_sges(void *seg, const struct ibx_sge *sg, int num)
{
	struct mlx_hw_wqe_data *d = seg;
	int i;

	for (i = 0; i < num; i++) {
		d[i].byte_count = cpu_to_le32(sg[i].length);
		d[i].lkey = cpu_to_le32(sg[i].lkey);
		d[i].addr = cpu_to_le64(sg[i].addr);
	}
	return num * sizeof(*d);
}

/*
 * Inline data: the SGEs' bytes (kernel virtual addresses, no key needed)
 * copied into the WQE.  -EINVAL if they exceed the QP's inline capacity.
 */
static int mlx_hw_kwqe_inline(struct mlx_hw_qp *qp, void *seg,
			      const struct ibx_send_wr *wr)
{
	struct mlx_hw_wqe_inline *inl = seg;
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > qp->max_inline - len)
			return -EINVAL;
		memcpy(inl->data + len,
		       (const void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	inl->byte_count = cpu_to_le32(len);
	return 0;
}

/* The UD segment from an AH (the device resolves the MAC, as for users). */
static void mlx_hw_kwqe_ud(struct mlx_hw_qp *qp, struct mlx_hw_wqe_ud *ud,
			   const struct ibx_send_wr *wr)
{
	const struct ibx_ah_attr *ah = &wr->wr.ud.ah->attr;
	u32 qkey = wr->wr.ud.remote_qkey;

	/* GSI datagrams always carry the well-known Q_Key (IBA 13.5.1). */
	if (qp->ibx.qp_type == IBX_QPT_GSI)
		qkey = IBX_GSI_QKEY;
	memcpy(ud->dgid, ah->dgid.raw, sizeof(ud->dgid));
	ud->remote_qpn = cpu_to_le32(wr->wr.ud.remote_qpn & MLX_HW_QPN_MASK);
	ud->remote_qkey = cpu_to_le32(qkey);
	ud->flow_label = cpu_to_le32(ah->flow_label);
	ud->sgid_index = ah->sgid_index;
	ud->hop_limit = ah->hop_limit;
	ud->traffic_class = ah->traffic_class;
	ud->sl = ah->sl;
	ud->is_global = 1;
}

/* Writes @wr as a WQE into @slot (docs/prm.md 4.2); -EINVAL if malformed. */
static int mlx_hw_kwqe_send(struct mlx_hw_qp *qp, void *slot,
			    const struct ibx_send_wr *wr)
{
	struct mlx_hw_wqe_ctrl *ctrl = slot;
	u8 *seg = slot + sizeof(*ctrl);
	bool ud = mlx_hw_qp_is_ud(qp->ibx.qp_type);
	u8 op = wr->opcode;	/* ibx_wr_opcode values are the device's */

	if (wr->num_sge < 0 || (u32)wr->num_sge > qp->max_send_sge ||
	    (wr->num_sge && !wr->sg_list) || op == MLX_HW_OP_BIND_MW ||
	    (ud && (!wr->wr.ud.ah || wr->wr.ud.ah->dev != qp->ibx.dev)))
		return -EINVAL;
	memset(slot, 0, qp->sq_stride);
	ctrl->wr_id = cpu_to_le64(wr->wr_id);
	ctrl->opcode = op;
	ctrl->flags = wr->send_flags & (MLX_HW_WQE_FENCE | MLX_HW_WQE_SIGNALED |
					MLX_HW_WQE_SOLICITED |
					MLX_HW_WQE_INLINE);
	ctrl->num_sge = wr->num_sge;
	if (op == MLX_HW_OP_SEND_INV || op == MLX_HW_OP_LOCAL_INV)
		ctrl->invalidate_rkey = cpu_to_le32(wr->ex.invalidate_rkey);
	else
		ctrl->imm_data = wr->ex.imm_data;

	if (ud) {
		mlx_hw_kwqe_ud(qp, (void *)seg, wr);
		seg += sizeof(struct mlx_hw_wqe_ud);
	}
	switch (op) {
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
	case MLX_HW_OP_RDMA_READ: {
		struct mlx_hw_wqe_raddr *ra = (void *)seg;

		ra->raddr = cpu_to_le64(wr->wr.rdma.remote_addr);
		ra->rkey = cpu_to_le32(wr->wr.rdma.rkey);
		seg += sizeof(*ra);
		break;
	}
	case MLX_HW_OP_ATOMIC_CS:
	case MLX_HW_OP_ATOMIC_FA: {
		struct mlx_hw_wqe_raddr *ra = (void *)seg;
		struct mlx_hw_wqe_atomic *at = (void *)(seg + sizeof(*ra));

		ra->raddr = cpu_to_le64(wr->wr.atomic.remote_addr);
		ra->rkey = cpu_to_le32(wr->wr.atomic.rkey);
		at->swap_add = cpu_to_le64(op == MLX_HW_OP_ATOMIC_CS ?
					   wr->wr.atomic.swap :
					   wr->wr.atomic.compare_add);
		at->compare = cpu_to_le64(wr->wr.atomic.compare_add);
		seg += sizeof(*ra) + sizeof(*at);
		break;
	}
	default:
		/* Invalid opcodes reach the engine: LOC_QP_OP_ERR, as a user's. */
		break;
	}
	if (wr->send_flags & IBX_SEND_INLINE)
		return mlx_hw_kwqe_inline(qp, seg, wr);
	mlx_hw_kwqe_sges(seg, wr->sg_list, wr->num_sge);
	return 0;
}

int mlx_hw_post_send(struct ibx_qp *ibqp, const struct ibx_send_wr *wr,
		     const struct ibx_send_wr **bad_wr)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	int state = READ_ONCE(qp->state), err = 0;
	unsigned long flags;
	u32 pi, start;

	*bad_wr = wr;
	/* IBA 10.8.2.1: no send WQE before RTS (ERR takes them to flush). */
	if (ibqp->uctx || !qp->sq || state == IBX_QPS_RESET ||
	    state == IBX_QPS_INIT || state == IBX_QPS_RTR)
		return -EINVAL;
	spin_lock_irqsave(&qp->kpost_lock, flags);
	start = pi = le32_to_cpu(qp->db->sq_pi);
	for (; wr; wr = wr->next) {
		if (pi - le32_to_cpu(READ_ONCE(qp->db->sq_ci)) >= qp->sq_wqe_cnt) {
			err = -ENOMEM;
			break;
		}
		err = mlx_hw_kwqe_send(qp, qp->sq + (size_t)(pi &
				       (qp->sq_wqe_cnt - 1)) * qp->sq_stride, wr);
		if (err)
			break;
		pi++;
	}
	/* The WQEs must be visible before the index that publishes them. */
	if (pi != start)
		smp_store_release(&qp->db->sq_pi, cpu_to_le32(pi));
	spin_unlock_irqrestore(&qp->kpost_lock, flags);
	*bad_wr = wr;
	if (pi != start)
		mlx_hw_qp_schedule(qp);
	return err;
}

int mlx_hw_post_recv(struct ibx_qp *ibqp, const struct ibx_recv_wr *wr,
		     const struct ibx_recv_wr **bad_wr)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	unsigned long flags;
	struct mlx_hw_rwqe *rwqe;
	u32 pi, start;
	int err = 0;

	*bad_wr = wr;
	if (ibqp->uctx || !qp->rq || READ_ONCE(qp->state) == IBX_QPS_RESET)
		return -EINVAL;
	spin_lock_irqsave(&qp->kpost_lock, flags);
	start = pi = le32_to_cpu(qp->db->rq_pi);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (u32)wr->num_sge > qp->max_recv_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			err = -EINVAL;
			break;
		}
		if (pi - le32_to_cpu(READ_ONCE(qp->db->rq_ci)) >= qp->rq_wqe_cnt) {
			err = -ENOMEM;
			break;
		}
		rwqe = qp->rq + (size_t)(pi & (qp->rq_wqe_cnt - 1)) *
			qp->rq_stride;
		rwqe->wr_id = cpu_to_le64(wr->wr_id);
		rwqe->num_sge = cpu_to_le32(wr->num_sge);
		rwqe->reserved = 0;
		mlx_hw_kwqe_sges(rwqe + 1, wr->sg_list, wr->num_sge);
		pi++;
	}
	/* As for sends: the WQEs before the index. */
	if (pi != start)
		smp_store_release(&qp->db->rq_pi, cpu_to_le32(pi));
	spin_unlock_irqrestore(&qp->kpost_lock, flags);
	*bad_wr = wr;
	/* A responder that RNR-NAKed or holds a datagram may go on now. */
	if (pi != start)
		mlx_hw_qp_schedule(qp);
	return err;
}

/* The QP a CQE names; the consumer keeps its QPs alive while it polls. */
static struct ibx_qp *mlx_hw_kwc_qp(struct mlx_hw_dev *dev, u32 qpn)
{
	struct mlx_hw_qp *qp;

	xa_lock_bh(&dev->qp_xa);
	qp = xa_load(&dev->qp_xa, qpn);
	xa_unlock_bh(&dev->qp_xa);
	return qp ? &qp->ibx : NULL;
}

static void mlx_hw_kwc(struct mlx_hw_dev *dev, const struct mlx_hw_cqe *cqe,
		       struct ibx_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64_to_cpu(cqe->wr_id);
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->qp_num = le32_to_cpu(cqe->qp_num);
	wc->qp = mlx_hw_kwc_qp(dev, wc->qp_num);
	wc->wc_flags = cqe->wc_flags;
	if (wc->wc_flags & MLX_HW_WC_WITH_INV)
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->invalidated_rkey);
	else
		wc->ex.imm_data = cqe->imm_data;
	wc->src_qp = le32_to_cpu(cqe->src_qp);
	wc->pkey_index = le16_to_cpu(cqe->pkey_index);
	wc->sl = 0;	/* RoCE has no SL; cqe.sl is the UD header type */
	wc->port_num = 1;
}

int mlx_hw_poll_cq(struct ibx_cq *ibcq, int num, struct ibx_wc *wc)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	struct mlx_hw_dev *dev = to_mdev(ibcq->dev);
	const struct mlx_hw_cqe *cqe;
	unsigned long flags;
	int n = 0;
	u32 ci;

	if (ibcq->uctx)
		return -EINVAL;
	spin_lock_irqsave(&cq->poll_lock, flags);
	ci = le32_to_cpu(cq->db->ci);
	while (n < num) {
		/* cq->ring may move only on resize, which kernel CQs lack. */
		cqe = &cq->ring[ci & (cq->entries - 1)];
		if ((READ_ONCE(cqe->owner) & 1) !=
		    (1 ^ ((ci >> cq->log_entries) & 1)))
			break;
		/* The body must not be read before the owner validated it. */
		smp_rmb();
		mlx_hw_kwc(dev, cqe, &wc[n++]);
		ci++;
	}
	/* The slots were read before the engine may reuse them. */
	if (n)
		smp_store_release(&cq->db->ci, cpu_to_le32(ci));
	spin_unlock_irqrestore(&cq->poll_lock, flags);
	return n;
}
