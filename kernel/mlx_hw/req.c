// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * req.c - the requester (IBA 9.7.1-9.7.4, send side).  It copies each send
 * WQE out of the ring into its send window (a private, validated copy with
 * the PSNs the message will use), then sends its packets: many WQEs may be
 * in flight, bounded by the window, by the unacknowledged PSNs, by
 * max_rd_atomic for READ and atomics, and by fences.  Local operations
 * (BIND_MW, LOCAL_INV) execute in SQ order.  The completer (comp.c)
 * retires WQEs from the oldest end of the window and rewinds the requester
 * when a packet must be sent again (send_window.c).  Runs with
 * qp->send_side owned (side.c).
 */
#include <linux/ktime.h>
#include "mlx_hw.h"

static const char *const mlx_hw_req_state_names[] = {
	[MLX_HW_REQ_NEXT_WQE] = "NEXT_WQE",
	[MLX_HW_REQ_FETCH] = "FETCH",
	[MLX_HW_REQ_CHECK_LIMITS] = "CHECK_LIMITS",
	[MLX_HW_REQ_LOCAL_OP] = "LOCAL_OP",
	[MLX_HW_REQ_SEND_PKT] = "SEND_PKT",
	[MLX_HW_REQ_WAIT] = "WAIT",
	[MLX_HW_REQ_YIELD] = "YIELD",
	[MLX_HW_REQ_ERROR] = "ERROR",
};
static_assert(ARRAY_SIZE(mlx_hw_req_state_names) == MLX_HW_REQ_NUM_STATES);

/* Forgets all send-side transport state (RESET, creation). */
void mlx_hw_req_reset(struct mlx_hw_qp *qp)
{
	struct mlx_hw_req *req = &qp->req;

	mlx_hw_sgl_release(&req->sgl);
	req->sgl_valid = false;
	req->state = MLX_HW_REQ_NEXT_WQE;
	req->fetch_idx = 0;
	req->send_idx = 0;
	req->send_pkt = 0;
	req->next_psn = 0;
	req->psn_max = 0;
	req->noack_pkts = 0;
	req->wait_until = 0;
	req->tx_backoff = 0;
	/* A fault under way keeps PENDING; its worker ends it. */
	if (req->odp_fault == MLX_HW_ODP_FAULT_FAILED)
		req->odp_fault = MLX_HW_ODP_FAULT_IDLE;
	mlx_hw_cwnd_reset(qp);
	/* The doorbell ring entry of the next post runs the QP. */
	req->wait_db = true;
}

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

static bool mlx_hw_swqe_is_local(const struct mlx_hw_swqe *w)
{
	return w->opcode == MLX_HW_OP_LOCAL_INV ||
	       w->opcode == MLX_HW_OP_BIND_MW;
}

/*
 * Where a WQE's packets go: the UD WQE's own AH, else the QP's path, which
 * a migration may change meanwhile (copied to @path).
 */
static const struct mlx_hw_av *mlx_hw_req_av(struct mlx_hw_qp *qp,
					     const struct mlx_hw_swqe *w,
					     struct mlx_hw_av *path)
{
	if (mlx_hw_qp_is_ud(qp->ibx.qp_type))
		return &w->ud.av;
	mlx_hw_qp_av(qp, path);
	return path;
}

/* The path MTU a WQE's packets use. */
static u32 mlx_hw_req_mtu(struct mlx_hw_qp *qp)
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
static void mlx_hw_parse_ud(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
			    const struct mlx_hw_wqe_ud *ud)
{
	u32 qkey = le32_to_cpu(ud->remote_qkey);
	union ibx_gid dgid;

	memcpy(dgid.raw, ud->dgid, sizeof(dgid.raw));
	w->ud.remote_qpn = le32_to_cpu(ud->remote_qpn) & MLX_HW_QPN_MASK;
	/* IBA C10-15: a Q_Key with the high bit set means the QP's. */
	w->ud.remote_qkey = (qkey & 0x80000000u) ? qp->qkey : qkey;
	/*
	 * An unknown source GID leaves no usable route: the datagram is
	 * lost on the way, as on a network.
	 */
	mlx_hw_av_set(to_mdev(qp->ibx.dev), &w->ud.av, ud->sgid_index, &dgid,
		      ud->traffic_class, ud->hop_limit,
		      le32_to_cpu(ud->flow_label), qp->ibx.qp_num,
		      w->ud.remote_qpn, ud->dmac);
}

/* Copies the data segments or inline data of a WQE into @w. */
static u8 mlx_hw_parse_data(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
			    const u8 *buf, u32 off, u8 num_sge)
{
	const struct mlx_hw_wqe_data *d = (const void *)(buf + off);
	u64 total = 0;
	u32 i, len;

	if (w->flags & MLX_HW_WQE_INLINE) {
		const struct mlx_hw_wqe_inline *inl = (const void *)(buf + off);

		len = le32_to_cpu(inl->byte_count);
		if (len > qp->max_inline ||
		    off + sizeof(*inl) + len > qp->sq_stride)
			return MLX_HW_WC_LOC_QP_OP_ERR;
		memcpy(w->data, inl->data, len);
		w->inline_data = true;
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
		w->sge[w->nsge].lkey = le32_to_cpu(d[i].lkey);
		w->sge[w->nsge].addr = le64_to_cpu(d[i].addr);
		w->sge[w->nsge].len = len;
		w->nsge++;
		total += len;
	}
	if (total > MLX_HW_MAX_MSG_SZ)
		return MLX_HW_WC_LOC_LEN_ERR;
	w->length = total;
	return 0;
}

/*
 * Parses the WQE copied to qp->wqe_buf into @w (docs/prm.md 4.2).
 * Returns 0 or the ibv_wc_status the WQE completes with.
 */
static u8 mlx_hw_parse_wqe(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w)
{
	const u8 *buf = qp->wqe_buf;
	const struct mlx_hw_wqe_ctrl *ctrl = (const void *)buf;
	u32 type = qp->ibx.qp_type, off = sizeof(*ctrl);
	bool rdma = false, atomic = false;
	u8 status;

	memset(w, 0, offsetof(struct mlx_hw_swqe, sge));
	w->wr_id = le64_to_cpu(ctrl->wr_id);
	w->opcode = ctrl->opcode;
	w->flags = ctrl->flags;
	if (qp->ibx.sq_sig_all)
		w->flags |= MLX_HW_WQE_SIGNALED;
	w->imm_data = ctrl->imm_data;
	w->invalidate_rkey = le32_to_cpu(ctrl->invalidate_rkey);
	if (type == IB_UVERBS_QPT_XRC_INI) {
		/* Every XRC WQE names the target's SRQ, right after ctrl. */
		const struct mlx_hw_wqe_xrc *xrc = (const void *)(buf + off);

		w->xrc_srqn = le32_to_cpu(xrc->remote_srqn) & 0xffffff;
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
		memcpy(&w->bind, buf + off, sizeof(w->bind));
		return 0;
	default:
		break;
	}
	if (mlx_hw_qp_is_ud(type)) {
		mlx_hw_parse_ud(qp, w, (const void *)(buf + off));
		off += sizeof(struct mlx_hw_wqe_ud);
	}
	if (rdma) {
		const struct mlx_hw_wqe_raddr *ra = (const void *)(buf + off);

		w->raddr = le64_to_cpu(ra->raddr);
		w->rkey = le32_to_cpu(ra->rkey);
		off += sizeof(*ra);
	}
	if (atomic) {
		const struct mlx_hw_wqe_atomic *at = (const void *)(buf + off);

		w->swap_add = le64_to_cpu(at->swap_add);
		w->compare = le64_to_cpu(at->compare);
		off += sizeof(*at);
	}
	if ((w->flags & MLX_HW_WQE_INLINE) &&
	    (w->opcode == MLX_HW_OP_RDMA_READ || atomic))
		return MLX_HW_WC_LOC_QP_OP_ERR;	/* nowhere to put the data */
	status = mlx_hw_parse_data(qp, w, buf, off, ctrl->num_sge);
	if (status)
		return status;
	if (atomic && w->length != 8)
		return MLX_HW_WC_LOC_LEN_ERR;
	if (mlx_hw_qp_is_ud(type) && w->length > mlx_hw_req_mtu(qp))
		return MLX_HW_WC_LOC_LEN_ERR;
	return 0;
}

static u8 mlx_hw_sgl_err_status(int err)
{
	switch (err) {
	case -EACCES:
		return MLX_HW_WC_LOC_PROT_ERR;
	case -EMSGSIZE:
		return MLX_HW_WC_LOC_LEN_ERR;
	default:
		return MLX_HW_WC_LOC_QP_OP_ERR;
	}
}

/*
 * Resolves the local data of @w, the WQE at SQ index @idx, into req.sgl (MR
 * references, keys checked against the PD, bounds and access).  Returns 0
 * or a completion status.
 */
static u8 mlx_hw_req_load_sgl(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
			      u32 idx)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_sgl *sgl = &qp->req.sgl;
	u32 access = 0, i;
	int err;

	mlx_hw_sgl_release(sgl);
	qp->req.sgl_valid = false;
	if (w->inline_data) {
		sgl->kbuf = w->data;
		sgl->total = w->length;
	} else {
		/* READ and atomic results are written into the local data. */
		if (mlx_hw_swqe_rd_atomic(w))
			access = IB_UVERBS_ACCESS_LOCAL_WRITE;
		for (i = 0; i < w->nsge; i++) {
			err = mlx_hw_sgl_add(dev, to_mpd(qp->ibx.pd), sgl,
					     w->sge[i].lkey, w->sge[i].addr,
					     w->sge[i].len, access);
			if (err) {
				mlx_hw_sgl_release(sgl);
				return mlx_hw_sgl_err_status(err);
			}
		}
	}
	qp->req.sgl_valid = true;
	qp->req.sgl_idx = idx;
	return 0;
}

/*
 * Makes req.sgl the usable local data of @w (send_idx); 0 or a status.
 * The sgl is another WQE's when the requester moved on without finishing
 * it: a late ACK for its first transmission retired the WQE being sent
 * again after a rewind (mlx_hw_window_retire), or it was done already.
 * Sending that data under this WQE's PSNs would corrupt the message.
 */
static u8 mlx_hw_req_sgl(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w)
{
	if (!qp->req.sgl_valid || qp->req.sgl_idx != qp->req.send_idx)
		return mlx_hw_req_load_sgl(qp, w, qp->req.send_idx);
	/* Keys are looked up again after a wait (MRs may be gone). */
	if (mlx_hw_sgl_unpark(to_mdev(qp->ibx.dev), qp, &qp->req.sgl))
		return MLX_HW_WC_LOC_PROT_ERR;
	return 0;
}

/* A WQE that failed locally: the completer completes it in order. */
static enum mlx_hw_req_state mlx_hw_req_fail(struct mlx_hw_swqe *w, u8 status)
{
	w->status = status;
	w->done = true;
	return MLX_HW_REQ_ERROR;
}

static enum mlx_hw_req_state mlx_hw_req_next_wqe(struct mlx_hw_qp *qp,
						 struct mlx_hw_swqe **w)
{
	struct mlx_hw_req *req = &qp->req;
	int state = READ_ONCE(qp->state);
	u64 now;

	if (state != IBX_QPS_RTS && state != IBX_QPS_SQD)
		return MLX_HW_REQ_WAIT;
	if (req->wait_until) {
		now = ktime_get_ns();
		if (now < req->wait_until) {
			mlx_hw_qp_arm_timer(qp, req->wait_until);
			return MLX_HW_REQ_WAIT;
		}
		req->wait_until = 0;
	}
	/* Done WQEs past a rewind (local ops) are not executed twice. */
	while (req->send_idx != req->fetch_idx) {
		*w = mlx_hw_swqe(qp, req->send_idx);
		if (!(*w)->done || (*w)->status)
			return MLX_HW_REQ_CHECK_LIMITS;
		req->send_idx++;
		req->send_pkt = 0;
	}
	return MLX_HW_REQ_FETCH;
}

/*
 * Copies the next posted WQE out of the ring, only as it is about to be
 * sent: the window holds the WQEs started and not completed, so in SQD
 * (which starts no new WQE) nothing is fetched.
 */
static enum mlx_hw_req_state mlx_hw_req_fetch(struct mlx_hw_qp *qp,
					      struct mlx_hw_swqe **w)
{
	struct mlx_hw_req *req = &qp->req;
	u32 pi;
	u8 status;

	if (READ_ONCE(qp->state) != IBX_QPS_RTS || qp->db_corrupt)
		return MLX_HW_REQ_WAIT;
	/* A full window may only hold WQEs that are done (local, UC, UD). */
	if (req->fetch_idx - qp->sq_ci >= qp->win_size)
		mlx_hw_window_retire(qp);
	if (req->fetch_idx - qp->sq_ci >= qp->win_size)
		return MLX_HW_REQ_WAIT;
	pi = req->sq_pi;
	if (pi == req->fetch_idx) {
		req->wait_db = true;	/* the next doorbell runs it again */
		return MLX_HW_REQ_WAIT;
	}
	if (!mlx_hw_db_ok(qp, pi, qp->sq_ci, qp->sq_wqe_cnt))
		return MLX_HW_REQ_WAIT;
	/* The index is read before the WQE it publishes. */
	smp_rmb();
	memcpy(qp->wqe_buf, qp->sq + (req->fetch_idx & (qp->sq_wqe_cnt - 1)) *
			    qp->sq_stride, qp->sq_stride);
	*w = mlx_hw_swqe(qp, req->fetch_idx);
	status = mlx_hw_parse_wqe(qp, *w);
	(*w)->first_psn = req->next_psn;
	(*w)->npsn = status ? 0 : mlx_hw_swqe_npsn(qp, *w);
	req->next_psn = mlx_hw_psn_add(req->next_psn, (*w)->npsn);
	req->fetch_idx++;
	if (!status && !mlx_hw_swqe_is_local(*w))
		status = mlx_hw_req_load_sgl(qp, *w, req->fetch_idx - 1);
	if (status)
		return mlx_hw_req_fail(*w, status);
	return MLX_HW_REQ_CHECK_LIMITS;
}

/* READ and atomic WQEs sent and not answered yet. */
static u32 mlx_hw_req_rd_atomic_out(struct mlx_hw_qp *qp)
{
	struct mlx_hw_swqe *w;
	u32 idx, n = 0;

	for (idx = qp->sq_ci; idx != qp->req.send_idx; idx++) {
		w = mlx_hw_swqe(qp, idx);
		n += !w->done && mlx_hw_swqe_rd_atomic(w);
	}
	return n;
}

/*
 * What may hold a WQE back (IBA 10.8.3.3 fence; max_rd_atomic, where 0
 * allows one as on mlx5; the congestion window of unacknowledged PSNs).
 */
static enum mlx_hw_req_state mlx_hw_req_check_limits(struct mlx_hw_qp *qp,
						     struct mlx_hw_swqe *w)
{
	struct mlx_hw_req *req = &qp->req;

	if (w->done)
		return MLX_HW_REQ_WAIT;	/* failed: waits for its turn */
	if ((w->flags & MLX_HW_WQE_FENCE) && req->send_idx != qp->sq_ci) {
		/* What is done (UC, UD, local) retires now; nothing else would. */
		mlx_hw_window_retire(qp);
		if (req->send_idx != qp->sq_ci)
			return MLX_HW_REQ_WAIT;
	}
	if (mlx_hw_swqe_rd_atomic(w) &&
	    mlx_hw_req_rd_atomic_out(qp) >= max_t(u32, 1, qp->max_rd_atomic))
		return MLX_HW_REQ_WAIT;
	if (mlx_hw_qp_reliable(qp->ibx.qp_type) &&
	    !mlx_hw_cwnd_room(qp, mlx_hw_psn_add(w->first_psn, req->send_pkt)))
		return MLX_HW_REQ_WAIT;
	return mlx_hw_swqe_is_local(w) ? MLX_HW_REQ_LOCAL_OP :
					 MLX_HW_REQ_SEND_PKT;
}

/* BIND_MW and LOCAL_INV take effect when their turn to be sent comes. */
static enum mlx_hw_req_state mlx_hw_req_local_op(struct mlx_hw_qp *qp,
						 struct mlx_hw_swqe *w)
{
	u8 status;

	if (w->opcode == MLX_HW_OP_LOCAL_INV)
		status = mlx_hw_invalidate(to_mdev(qp->ibx.dev), qp->ibx.pd,
					   w->invalidate_rkey) ?
			 MLX_HW_WC_LOC_PROT_ERR : 0;
	else
		status = mlx_hw_bind_mw(qp, &w->bind);
	if (status)
		return mlx_hw_req_fail(w, status);
	w->done = true;
	qp->req.send_idx++;
	return MLX_HW_REQ_NEXT_WQE;
}

/* The BTH opcode of packet @i of @n of a SEND or WRITE message. */
static u8 mlx_hw_req_opcode(struct mlx_hw_qp *qp, const struct mlx_hw_swqe *w,
			    u32 i, u32 n)
{
	bool first = i == 0, last = i == n - 1;
	u8 tp = mlx_hw_qp_transport(qp->ibx.qp_type), op;

	switch (w->opcode) {
	case MLX_HW_OP_RDMA_READ:
		return tp | MLX_HW_OPC_READ_REQ;
	case MLX_HW_OP_ATOMIC_CS:
		return tp | MLX_HW_OPC_CMP_SWAP;
	case MLX_HW_OP_ATOMIC_FA:
		return tp | MLX_HW_OPC_FETCH_ADD;
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
		if (first && last)
			op = MLX_HW_OPC_WRITE_ONLY;
		else if (first)
			op = MLX_HW_OPC_WRITE_FIRST;
		else if (last)
			op = MLX_HW_OPC_WRITE_LAST;
		else
			op = MLX_HW_OPC_WRITE_MIDDLE;
		/* ONLY/LAST + 1 = the "with immediate" variant. */
		if (last && w->opcode == MLX_HW_OP_RDMA_WRITE_IMM)
			op++;
		return tp | op;
	default:
		if (first && last)
			op = MLX_HW_OPC_SEND_ONLY;
		else if (first)
			op = MLX_HW_OPC_SEND_FIRST;
		else if (last)
			op = MLX_HW_OPC_SEND_LAST;
		else
			op = MLX_HW_OPC_SEND_MIDDLE;
		if (last && w->opcode == MLX_HW_OP_SEND_IMM)
			op++;
		else if (last && w->opcode == MLX_HW_OP_SEND_INV)
			op = first ? MLX_HW_OPC_SEND_ONLY_INV :
				     MLX_HW_OPC_SEND_LAST_INV;
		return tp | op;
	}
}

/* Fills the extension headers the opcode of @skb carries. */
static void mlx_hw_req_ext_hdrs(struct mlx_hw_qp *qp,
				const struct mlx_hw_swqe *w,
				struct sk_buff *skb, u32 off)
{
	u32 mask = mlx_hw_pkt(skb)->mask;

	if (mask & MLX_HW_M_XRCETH)
		mlx_hw_xrceth_set(mlx_hw_pkt_hdr(skb, MLX_HW_XRCETH),
				  w->xrc_srqn);
	if (mask & MLX_HW_M_DETH)
		mlx_hw_deth_set(mlx_hw_pkt_hdr(skb, MLX_HW_DETH),
				w->ud.remote_qkey, qp->ibx.qp_num);
	/* A READ sent again asks only for the data not yet received. */
	if (mask & MLX_HW_M_RETH)
		mlx_hw_reth_set(mlx_hw_pkt_hdr(skb, MLX_HW_RETH),
				w->raddr + off, w->rkey, w->length - off);
	if (mask & MLX_HW_M_ATMETH)
		mlx_hw_atmeth_set(mlx_hw_pkt_hdr(skb, MLX_HW_ATMETH),
				  w->raddr, w->rkey, w->swap_add, w->compare);
	if (mask & MLX_HW_M_IMMDT)
		mlx_hw_immdt_set(mlx_hw_pkt_hdr(skb, MLX_HW_IMMDT), w->imm_data);
	if (mask & MLX_HW_M_IETH)
		mlx_hw_ieth_set(mlx_hw_pkt_hdr(skb, MLX_HW_IETH),
				w->invalidate_rkey);
}

/*
 * Builds packet send_pkt of @w, to @av; NULL when memory is short.  The
 * payload comes from req.sgl, as page frags when the packet stays on this
 * host and is reliable (an unreliable sender may reuse its buffer at once).
 */
static struct sk_buff *mlx_hw_req_build(struct mlx_hw_qp *qp,
					struct mlx_hw_swqe *w,
					const struct mlx_hw_av *av, bool *last)
{
	struct mlx_hw_req *req = &qp->req;
	bool reliable = mlx_hw_qp_reliable(qp->ibx.qp_type);
	u32 mtu = mlx_hw_req_mtu(qp), i = req->send_pkt, off = i * mtu, n;
	u32 paylen = 0, dest;
	struct mlx_hw_cursor src;
	struct sk_buff *skb;
	bool zcopy = false, ackreq;
	int err;

	n = mlx_hw_swqe_rd_atomic(w) ? i + 1 : w->npsn;
	*last = i == n - 1;
	if (!mlx_hw_swqe_rd_atomic(w)) {
		paylen = min(mtu, w->length - off);
		mlx_hw_cursor_init(&src, &req->sgl);
		mlx_hw_cursor_skip(&src, off);
		zcopy = av->loopback && reliable && paylen &&
			mlx_hw_can_zcopy(&src, paylen);
	}
	skb = mlx_hw_pkt_alloc(qp, mlx_hw_req_opcode(qp, w, i, n), paylen,
			       zcopy);
	if (!skb)
		return NULL;
	mlx_hw_req_ext_hdrs(qp, w, skb, off);
	err = paylen ? mlx_hw_skb_add_data(skb, &src, paylen, zcopy) : 0;
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	/* IBA 9.7.2: ask for an ACK at the end and now and then within. */
	ackreq = reliable &&
		 (*last || mlx_hw_cwnd_ackreq(qp, mlx_hw_psn_add(w->first_psn, i)));
	if (ackreq)
		req->noack_pkts = 0;
	dest = mlx_hw_qp_is_ud(qp->ibx.qp_type) ? w->ud.remote_qpn :
						     qp->dest_qpn;
	mlx_hw_pkt_bth(skb, qp, dest,
		       *last && (w->flags & MLX_HW_WQE_SOLICITED), ackreq,
		       mlx_hw_psn_add(w->first_psn, i));
	return skb;
}

/*
 * The local bytes packet send_pkt of @w uses: its payload, or for a READ
 * or an atomic the whole list, which the answer fills.
 */
static void mlx_hw_req_pkt_data(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
				u64 *off, u64 *len)
{
	u32 mtu = mlx_hw_req_mtu(qp);

	if (mlx_hw_swqe_rd_atomic(w)) {
		*off = 0;
		*len = qp->req.sgl.total;
	} else {
		*off = (u64)qp->req.send_pkt * mtu;
		*len = min_t(u64, mtu, w->length - *off);
	}
}

/*
 * ODP (odp.c): some of those bytes are not mapped for the device.  The
 * WQE waits while the rest of the message is faulted in; if that failed,
 * it completes with a local protection error, as an unregistered range.
 */
static enum mlx_hw_req_state mlx_hw_req_page_fault(struct mlx_hw_qp *qp,
						   struct mlx_hw_swqe *w)
{
	u64 off, len;

	mlx_hw_req_pkt_data(qp, w, &off, &len);
	if (mlx_hw_odp_wait(qp, &qp->req.odp_fault, &qp->req.sgl, off,
			    qp->req.sgl.total - off) == -EFAULT)
		return mlx_hw_req_fail(w, MLX_HW_WC_LOC_PROT_ERR);
	return MLX_HW_REQ_WAIT;
}

static bool mlx_hw_req_pages_mapped(struct mlx_hw_qp *qp,
				    struct mlx_hw_swqe *w)
{
	u64 off, len;

	if (!qp->req.sgl.odp)
		return true;
	mlx_hw_req_pkt_data(qp, w, &off, &len);
	return mlx_hw_sgl_mapped(&qp->req.sgl, off, len);
}

/* Local congestion: try this packet again after a growing pause. */
static enum mlx_hw_req_state mlx_hw_req_backoff(struct mlx_hw_qp *qp)
{
	struct mlx_hw_req *req = &qp->req;
	u32 shift = min_t(u32, req->tx_backoff++, 10);

	req->wait_until = ktime_get_ns() + (NSEC_PER_USEC * 20 << shift);
	mlx_hw_qp_arm_timer(qp, req->wait_until);
	return MLX_HW_REQ_WAIT;
}

static enum mlx_hw_req_state mlx_hw_req_send_pkt(struct mlx_hw_qp *qp,
						 struct mlx_hw_swqe *w)
{
	struct mlx_hw_req *req = &qp->req;
	bool reliable = mlx_hw_qp_reliable(qp->ibx.qp_type), last;
	const struct mlx_hw_av *av;
	struct mlx_hw_av path;
	struct sk_buff *skb;
	u32 psn;
	u8 status;

	status = mlx_hw_req_sgl(qp, w);
	if (status)
		return mlx_hw_req_fail(w, status);
	if (!mlx_hw_req_pages_mapped(qp, w))
		return mlx_hw_req_page_fault(qp, w);
	av = mlx_hw_req_av(qp, w, &path);
	skb = mlx_hw_req_build(qp, w, av, &last);
	if (IS_ERR(skb))	/* -EAGAIN: unmapped since the check */
		return PTR_ERR(skb) == -EAGAIN ?
		       mlx_hw_req_page_fault(qp, w) :
		       mlx_hw_req_fail(w, MLX_HW_WC_LOC_PROT_ERR);
	if (!skb)
		return mlx_hw_req_backoff(qp);
	psn = mlx_hw_pkt(skb)->psn;
	if (mlx_hw_pkt_xmit(qp, av, skb))
		return mlx_hw_req_backoff(qp);
	req->tx_backoff = 0;
	if (mlx_hw_psn_diff(psn, req->psn_max) >= 0)
		req->psn_max = mlx_hw_psn_add(psn, mlx_hw_swqe_rd_atomic(w) ?
					      w->npsn - req->send_pkt : 1);
	if (reliable && !qp->comp.timeout_at) {
		qp->comp.timeout_at = ktime_get_ns() +
				      mlx_hw_ack_timeout_ns(READ_ONCE(qp->timeout));
		mlx_hw_qp_arm_timer(qp, qp->comp.timeout_at);
	}
	if (!last) {
		req->send_pkt++;
		return MLX_HW_REQ_NEXT_WQE;
	}
	if (!reliable)
		w->done = true;		/* UC and UD: done once sent */
	req->send_idx++;
	req->send_pkt = 0;
	mlx_hw_sgl_release(&req->sgl);
	req->sgl_valid = false;
	return MLX_HW_REQ_NEXT_WQE;
}

/*
 * Runs the requester of a QP in RTS (in SQD: only what was started),
 * within the per-QP budgets; the send side owned.
 */
void mlx_hw_requester(struct mlx_hw_qp *qp)
{
	unsigned int wqes = MLX_HW_WQE_BUDGET, pkts = MLX_HW_PKT_BUDGET;
	enum mlx_hw_req_state state = MLX_HW_REQ_NEXT_WQE;
	struct mlx_hw_swqe *w = NULL;

	mlx_hw_side_assert_owned(&qp->send_side);
	qp->req.wait_db = false;
	/*
	 * A run starts only what was posted before it began (docs/prm.md
	 * 2.2).  What is posted meanwhile waits for its doorbell, behind the
	 * QPs rung before it: otherwise a QP whose completions are reposted
	 * while it runs would go round again at once and outpace the others
	 * (2.4x in tests/hca/fairness.vmtest).
	 */
	qp->req.sq_pi = le32_to_cpu(READ_ONCE(qp->db->sq_pi));
	for (;;) {
		mlx_hw_qp_dbg(qp, "req %s idx %u pkt %u\n",
			      mlx_hw_req_state_names[state], qp->req.send_idx,
			      qp->req.send_pkt);
		switch (state) {
		case MLX_HW_REQ_NEXT_WQE:
			state = mlx_hw_req_next_wqe(qp, &w);
			break;
		case MLX_HW_REQ_FETCH:
			state = wqes-- ? mlx_hw_req_fetch(qp, &w) :
					 MLX_HW_REQ_YIELD;
			break;
		case MLX_HW_REQ_CHECK_LIMITS:
			state = mlx_hw_req_check_limits(qp, w);
			break;
		case MLX_HW_REQ_LOCAL_OP:
			state = mlx_hw_req_local_op(qp, w);
			break;
		case MLX_HW_REQ_SEND_PKT:
			state = pkts-- ? mlx_hw_req_send_pkt(qp, w) :
					 MLX_HW_REQ_YIELD;
			break;
		case MLX_HW_REQ_ERROR:
			/* The completer moves the QP to ERR in its turn. */
			state = MLX_HW_REQ_WAIT;
			break;
		case MLX_HW_REQ_YIELD:
			mlx_hw_qp_schedule(qp);
			goto out;
		default:
			goto out;
		}
	}
out:
	qp->req.state = state;
	/* Nothing pins an MR while the requester is not running. */
	mlx_hw_sgl_park(&qp->req.sgl);
	mlx_hw_window_retire(qp);
}
