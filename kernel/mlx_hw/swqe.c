// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * swqe.c - a send WQE out of the ring (docs/prm.md 4.2 and 9): copied into
 * kernel memory, validated there, and parsed into its entry in the send
 * window (what ordering, acknowledgement and the CQE need) and a body
 * (what its packets and its answer need).
 *
 * The requester parses a WQE when it fetches it.  The window keeps only
 * the entries, so a body is parsed again when a WQE whose body was
 * replaced is needed once more: sent again after a loss, or a READ
 * response or atomic ACK to place.  The slot is the engine's until sq_ci
 * passes it (3.1), so the second parse finds what the first did, unless
 * the process rewrote a posted WQE.  That is found here and completes
 * the WQE with LOC_QP_OP_ERR, which harms only that QP.
 * Runs with qp->send_side owned (side.c).
 */
#include "mlx_hw.h"

static bool mlx_hw_op_valid(u32 qp_type, u8 opcode)
{
	switch (opcode) {
	case MLX_HW_OP_SEND:
	case MLX_HW_OP_SEND_IMM:
		return true;
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
	case MLX_HW_OP_LOCAL_INV:
	case MLX_HW_OP_BIND_MW:
		return !mlx_hw_qp_is_ud(qp_type);
	case MLX_HW_OP_SEND_INV:
	case MLX_HW_OP_RDMA_READ:
	case MLX_HW_OP_ATOMIC_CS:
	case MLX_HW_OP_ATOMIC_FA:
		return mlx_hw_qp_reliable(qp_type);
	default:
		return false;
	}
}

/* The path MTU a WQE's packets use. */
u32 mlx_hw_req_mtu(struct mlx_hw_qp *qp)
{
	if (mlx_hw_qp_is_ud(qp->ibx.qp_type))
		return READ_ONCE(to_mdev(qp->ibx.dev)->mtu);
	return qp->mtu;
}

/* The PSNs a message uses: its packets, or a READ's response packets. */
static u32 mlx_hw_swqe_npsn(struct mlx_hw_qp *qp, const struct mlx_hw_swqe *w)
{
	if (mlx_hw_swqe_is_local(w))
		return 0;
	if (w->opcode == MLX_HW_OP_ATOMIC_CS || w->opcode == MLX_HW_OP_ATOMIC_FA)
		return 1;
	return max_t(u32, 1, DIV_ROUND_UP(w->length, mlx_hw_req_mtu(qp)));
}

/* Parses the UD segment: destination and the resolved address vector. */
static void mlx_hw_parse_ud(struct mlx_hw_qp *qp, struct mlx_hw_swqe_body *b,
			    const struct mlx_hw_wqe_ud *ud)
{
	u32 qkey = le32_to_cpu(ud->remote_qkey);
	union ibx_gid dgid;

	memcpy(dgid.raw, ud->dgid, sizeof(dgid.raw));
	b->ud.remote_qpn = le32_to_cpu(ud->remote_qpn) & MLX_HW_QPN_MASK;
	/* IBA C10-15: a Q_Key with the high bit set means the QP's. */
	b->ud.remote_qkey = (qkey & 0x80000000u) ? qp->qkey : qkey;
	/*
	 * An unknown source GID leaves no usable route: the datagram is
	 * lost on the way, as on a network.
	 */
	mlx_hw_av_set(to_mdev(qp->ibx.dev), &b->ud.av, ud->sgid_index, &dgid,
		      ud->traffic_class, ud->hop_limit,
		      le32_to_cpu(ud->flow_label), qp->ibx.qp_num,
		      b->ud.remote_qpn, ud->dmac);
}

/* Copies the data segments or inline data of a WQE into @b. */
static u8 mlx_hw_parse_data(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
			    struct mlx_hw_swqe_body *b, u32 off, u8 num_sge)
{
	const u8 *buf = qp->wqe_buf;
	const struct mlx_hw_wqe_data *d = (const void *)(buf + off);
	u64 total = 0;
	u32 i, len;

	if (w->flags & MLX_HW_WQE_INLINE) {
		const struct mlx_hw_wqe_inline *inl = (const void *)(buf + off);

		len = le32_to_cpu(inl->byte_count);
		if (len > qp->max_inline ||
		    off + sizeof(*inl) + len > qp->sq_stride)
			return MLX_HW_WC_LOC_QP_OP_ERR;
		memcpy(b->data, inl->data, len);
		b->inline_data = true;
		w->length = len;
		return 0;
	}
	if (num_sge > qp->max_send_sge ||
	    off + num_sge * sizeof(*d) > qp->sq_stride)
		return MLX_HW_WC_LOC_QP_OP_ERR;
	for (i = 0; i < num_sge; i++) {
		len = le32_to_cpu(d[i].byte_count);
		if (!len)
			continue;	/* an empty segment is skipped */
		b->sge[b->nsge].lkey = le32_to_cpu(d[i].lkey);
		b->sge[b->nsge].addr = le64_to_cpu(d[i].addr);
		b->sge[b->nsge].len = len;
		b->nsge++;
		total += len;
	}
	if (total > MLX_HW_MAX_MSG_SZ)
		return MLX_HW_WC_LOC_LEN_ERR;
	w->length = total;
	return 0;
}

/*
 * Parses the WQE in qp->wqe_buf into @w (all but the PSNs) and @b.
 * Returns 0 or the ibv_wc_status the WQE completes with.
 */
static u8 mlx_hw_parse_wqe(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
			   struct mlx_hw_swqe_body *b)
{
	const u8 *buf = qp->wqe_buf;
	const struct mlx_hw_wqe_ctrl *ctrl = (const void *)buf;
	u32 type = qp->ibx.qp_type, off = sizeof(*ctrl);
	bool rdma = false, atomic = false;
	u8 status;

	memset(w, 0, sizeof(*w));
	memset(b, 0, offsetof(struct mlx_hw_swqe_body, sge));
	w->wr_id = le64_to_cpu(ctrl->wr_id);
	w->opcode = ctrl->opcode;
	w->flags = ctrl->flags;
	if (qp->ibx.sq_sig_all)
		w->flags |= MLX_HW_WQE_SIGNALED;
	b->imm_data = ctrl->imm_data;
	b->invalidate_rkey = le32_to_cpu(ctrl->invalidate_rkey);
	if (type == IB_UVERBS_QPT_XRC_INI) {
		/* Every XRC WQE names the target's SRQ, right after ctrl. */
		const struct mlx_hw_wqe_xrc *xrc = (const void *)(buf + off);

		b->xrc_srqn = le32_to_cpu(xrc->remote_srqn) & 0xffffff;
		off += sizeof(*xrc);
	}
	if (!mlx_hw_op_valid(type, w->opcode))
		return MLX_HW_WC_LOC_QP_OP_ERR;
	switch (w->opcode) {
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
	case MLX_HW_OP_RDMA_READ:
		rdma = true;
		break;
	case MLX_HW_OP_ATOMIC_CS:
	case MLX_HW_OP_ATOMIC_FA:
		rdma = true;
		atomic = true;
		break;
	case MLX_HW_OP_LOCAL_INV:
		return 0;
	case MLX_HW_OP_BIND_MW:
		/* ctrl, then the bind segment, no data (docs/prm.md 4.2). */
		memcpy(&b->bind, buf + off, sizeof(b->bind));
		return 0;
	default:
		break;
	}
	if (mlx_hw_qp_is_ud(type)) {
		mlx_hw_parse_ud(qp, b, (const void *)(buf + off));
		off += sizeof(struct mlx_hw_wqe_ud);
	}
	if (rdma) {
		const struct mlx_hw_wqe_raddr *ra = (const void *)(buf + off);

		b->raddr = le64_to_cpu(ra->raddr);
		b->rkey = le32_to_cpu(ra->rkey);
		off += sizeof(*ra);
	}
	if (atomic) {
		const struct mlx_hw_wqe_atomic *at = (const void *)(buf + off);

		b->swap_add = le64_to_cpu(at->swap_add);
		b->compare = le64_to_cpu(at->compare);
		off += sizeof(*at);
	}
	if ((w->flags & MLX_HW_WQE_INLINE) &&
	    (w->opcode == MLX_HW_OP_RDMA_READ || atomic))
		return MLX_HW_WC_LOC_QP_OP_ERR;	/* nowhere to put the data */
	status = mlx_hw_parse_data(qp, w, b, off, ctrl->num_sge);
	if (status)
		return status;
	if (atomic && w->length != 8)
		return MLX_HW_WC_LOC_LEN_ERR;
	if (mlx_hw_qp_is_ud(type) && w->length > mlx_hw_req_mtu(qp))
		return MLX_HW_WC_LOC_LEN_ERR;
	return 0;
}

/* Copies the WQE at SQ index @idx out of the ring and parses it. */
static u8 mlx_hw_swqe_parse(struct mlx_hw_qp *qp, u32 idx,
			    struct mlx_hw_swqe *w, struct mlx_hw_swqe_body *b)
{
	u8 status;

	memcpy(qp->wqe_buf, qp->sq + (idx & (qp->sq_wqe_cnt - 1)) *
			    qp->sq_stride, qp->sq_stride);
	status = mlx_hw_parse_wqe(qp, w, b);
	b->idx = idx;
	b->valid = !status;
	return status;
}

/*
 * Fetches the WQE at SQ index @idx, published by an sq_pi read before this
 * (smp_rmb() between): @w, its window entry, gets all but first_psn, and
 * @b its body.  Returns 0 or the status it completes with.
 */
u8 mlx_hw_swqe_fetch(struct mlx_hw_qp *qp, u32 idx, struct mlx_hw_swqe *w,
		     struct mlx_hw_swqe_body *b)
{
	u8 status = mlx_hw_swqe_parse(qp, idx, w, b);

	w->npsn = status ? 0 : mlx_hw_swqe_npsn(qp, w);
	return status;
}

/*
 * Makes @b the body of the fetched WQE at SQ index @idx, parsing it again
 * unless it is.  Returns 0, or LOC_QP_OP_ERR when the ring no longer holds
 * the WQE that was fetched there.
 */
u8 mlx_hw_swqe_body(struct mlx_hw_qp *qp, u32 idx, struct mlx_hw_swqe_body *b)
{
	const struct mlx_hw_swqe *w = mlx_hw_swqe(qp, idx);
	struct mlx_hw_swqe now;

	if (mlx_hw_swqe_body_is(b, idx))
		return 0;
	if (mlx_hw_swqe_parse(qp, idx, &now, b) || now.opcode != w->opcode ||
	    now.length != w->length || mlx_hw_swqe_npsn(qp, &now) != w->npsn) {
		b->valid = false;
		mlx_hw_qp_dbg(qp, "sq wqe %u rewritten while posted\n", idx);
		return MLX_HW_WC_LOC_QP_OP_ERR;
	}
	return 0;
}
