// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * req.c - the requester (IBA 9.7.1-9.7.4, send side).  It fetches each send
 * WQE out of the ring into its send window (an entry with the PSNs the
 * message will use; swqe.c parses it, and its body stays in req.body while
 * its packets go out), then sends its packets: many WQEs may be in
 * flight, bounded by the window, by the unacknowledged PSNs, by
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
	/* SQ indices start again at 0: no body parsed before names a WQE. */
	if (req->body) {
		req->body->valid = false;
		qp->comp.body->valid = false;
	}
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
	mlx_hw_split_reset(qp);
	/* The doorbell ring entry of the next post runs the QP. */
	req->wait_db = true;
}

/*
 * Where a WQE's packets go: the UD WQE's own AH, else the QP's path, which
 * a migration may change meanwhile (copied to @path).
 */
static const struct mlx_hw_av *mlx_hw_req_av(struct mlx_hw_qp *qp,
					     struct mlx_hw_av *path)
{
	if (mlx_hw_qp_is_ud(qp->ibx.qp_type))
		return &qp->req.body->ud.av;
	mlx_hw_qp_av(qp, path);
	return path;
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
 * Resolves the local data of @w, whose body req.body is, into req.sgl (MR
 * references, keys checked against the PD, bounds and access).  Returns 0
 * or a completion status.
 */
static u8 mlx_hw_req_load_sgl(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	const struct mlx_hw_swqe_body *b = qp->req.body;
	struct mlx_hw_sgl *sgl = &qp->req.sgl;
	u32 access = 0, i;
	int err;

	mlx_hw_sgl_release(sgl);
	qp->req.sgl_valid = false;
	if (b->inline_data) {
		sgl->kbuf = b->data;
		sgl->total = w->length;
	} else {
		/* READ and atomic results are written into the local data. */
		if (mlx_hw_swqe_rd_atomic(w))
			access = IB_UVERBS_ACCESS_LOCAL_WRITE;
		for (i = 0; i < b->nsge; i++) {
			err = mlx_hw_sgl_add(dev, to_mpd(qp->ibx.pd), sgl,
					     b->sge[i].lkey, b->sge[i].addr,
					     b->sge[i].len, access);
			if (err) {
				mlx_hw_sgl_release(sgl);
				return mlx_hw_sgl_err_status(err);
			}
		}
	}
	qp->req.sgl_valid = true;
	return 0;
}

/*
 * Makes req.body the body of the WQE being sent (send_idx); 0 or a status.
 * The body, and the sgl made of it, are another WQE's when the requester
 * moved on since: a rewind, or a late ACK for the first transmission that
 * retired the WQE being sent again (mlx_hw_window_retire).  Sending that
 * data under this WQE's PSNs would corrupt the message.
 */
static u8 mlx_hw_req_body(struct mlx_hw_qp *qp)
{
	struct mlx_hw_req *req = &qp->req;

	if (mlx_hw_swqe_body_is(req->body, req->send_idx))
		return 0;
	mlx_hw_sgl_release(&req->sgl);
	req->sgl_valid = false;
	return mlx_hw_swqe_body(qp, req->send_idx, req->body);
}

/* Makes req.sgl the usable local data of @w (send_idx); 0 or a status. */
static u8 mlx_hw_req_sgl(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w)
{
	u8 status = mlx_hw_req_body(qp);

	if (status)
		return status;
	if (!qp->req.sgl_valid)
		return mlx_hw_req_load_sgl(qp, w);
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

/*
 * A limit holds the requester back (a full send window, a fence, the
 * congestion window).  If the answer to a segment handed over directly
 * waits (direct.c), the completer takes it now, as the ACK that lifts
 * the limit, or the NAK that sends the requester back: decide again.
 */
static enum mlx_hw_req_state mlx_hw_req_blocked(struct mlx_hw_qp *qp)
{
	return mlx_hw_comp_direct(qp) ? MLX_HW_REQ_NEXT_WQE : MLX_HW_REQ_WAIT;
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
		return mlx_hw_req_blocked(qp);
	pi = req->sq_pi;
	if (pi == req->fetch_idx) {
		req->wait_db = true;	/* the next doorbell runs it again */
		return MLX_HW_REQ_WAIT;
	}
	if (!mlx_hw_db_ok(qp, pi, qp->sq_ci, qp->sq_wqe_cnt))
		return MLX_HW_REQ_WAIT;
	/* The index is read before the WQE it publishes. */
	smp_rmb();
	mlx_hw_sgl_release(&req->sgl);
	req->sgl_valid = false;
	*w = mlx_hw_swqe(qp, req->fetch_idx);
	status = mlx_hw_swqe_fetch(qp, req->fetch_idx, *w, req->body);
	(*w)->first_psn = req->next_psn;
	req->next_psn = mlx_hw_psn_add(req->next_psn, (*w)->npsn);
	req->fetch_idx++;
	if (!status && !mlx_hw_swqe_is_local(*w))
		status = mlx_hw_req_load_sgl(qp, *w);
	if (status)
		return mlx_hw_req_fail(*w, status);
	return MLX_HW_REQ_CHECK_LIMITS;
}

/*
 * READ requests and atomics sent and not all answered: each holds one of
 * the responder's max_dest_rd_atomic resources.  A READ or atomic WQE
 * before the one being sent counts for its last request, and the READ
 * requests that do not end their WQE count each (send_window.c).
 */
static u32 mlx_hw_req_rd_atomic_out(struct mlx_hw_qp *qp)
{
	u32 idx, n = mlx_hw_split_outstanding(qp);
	struct mlx_hw_swqe *w;

	for (idx = qp->sq_ci; idx != qp->req.send_idx; idx++) {
		w = mlx_hw_swqe(qp, idx);
		n += !w->done && mlx_hw_swqe_rd_atomic(w);
	}
	return n;
}

/*
 * Where the READ request for packet send_pkt of READ @w ends (the index of
 * the packet after its last), or 0 while it must wait.  Sent before, it
 * asks for what it asked for then (send_window.c); new, for what the
 * congestion window has room for (cwnd.c), and if that is not the rest of
 * the READ, only while the split can be noted.
 */
static u32 mlx_hw_req_read_end(struct mlx_hw_qp *qp,
			       const struct mlx_hw_swqe *w)
{
	struct mlx_hw_req *req = &qp->req;
	u32 i = req->send_pkt, psn = mlx_hw_psn_add(w->first_psn, i), room;

	if (mlx_hw_psn_diff(psn, req->psn_max) < 0)
		return mlx_hw_psn_diff(mlx_hw_split_end(qp, w, psn),
				       w->first_psn);
	room = mlx_hw_cwnd_read_room(qp, psn, w->npsn - i);
	if (!room || (i + room < w->npsn &&
		      mlx_hw_split_outstanding(qp) == MLX_HW_READ_SPLITS))
		return 0;
	return i + room;
}

/*
 * What may hold a WQE back (IBA 10.8.3.3 fence; max_rd_atomic, where 0
 * allows one as on mlx5; the congestion window of unacknowledged PSNs).
 */
static enum mlx_hw_req_state mlx_hw_req_check_limits(struct mlx_hw_qp *qp,
						     struct mlx_hw_swqe *w)
{
	struct mlx_hw_req *req = &qp->req;
	u32 psn = mlx_hw_psn_add(w->first_psn, req->send_pkt);

	if (w->done)
		return MLX_HW_REQ_WAIT;	/* failed: waits for its turn */
	if ((w->flags & MLX_HW_WQE_FENCE) && req->send_idx != qp->sq_ci) {
		/* What is done (UC, UD, local) retires now; nothing else would. */
		mlx_hw_window_retire(qp);
		if (req->send_idx != qp->sq_ci)
			return mlx_hw_req_blocked(qp);
	}
	/* A request sent again holds the resource it held. */
	if (mlx_hw_swqe_rd_atomic(w) && mlx_hw_psn_diff(psn, req->psn_max) >= 0 &&
	    mlx_hw_req_rd_atomic_out(qp) >= max_t(u32, 1, qp->max_rd_atomic))
		return MLX_HW_REQ_WAIT;
	if (mlx_hw_qp_reliable(qp->ibx.qp_type) &&
	    (!mlx_hw_cwnd_room(qp, psn) ||
	     (w->opcode == MLX_HW_OP_RDMA_READ && !mlx_hw_req_read_end(qp, w))))
		return mlx_hw_req_blocked(qp);
	return mlx_hw_swqe_is_local(w) ? MLX_HW_REQ_LOCAL_OP :
					 MLX_HW_REQ_SEND_PKT;
}

/* BIND_MW and LOCAL_INV take effect when their turn to be sent comes. */
static enum mlx_hw_req_state mlx_hw_req_local_op(struct mlx_hw_qp *qp,
						 struct mlx_hw_swqe *w)
{
	const struct mlx_hw_swqe_body *b = qp->req.body;
	u8 status = mlx_hw_req_body(qp);

	if (!status && w->opcode == MLX_HW_OP_LOCAL_INV)
		status = mlx_hw_invalidate(to_mdev(qp->ibx.dev), qp->ibx.pd,
					   b->invalidate_rkey) ?
			 MLX_HW_WC_LOC_PROT_ERR : 0;
	else if (!status)
		status = mlx_hw_bind_mw(qp, &b->bind);
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

/* Packet send_pkt of @w, as it will go (mlx_hw_req_seg()). */
struct mlx_hw_req_seg {
	u8 opcode;			/* BTH opcode */
	bool last;			/* ends the message, or is the request */
	bool ackreq;			/* asks for an ACK */
	u32 psn;			/* BTH PSN */
	u32 off;			/* message offset of its payload */
	u32 paylen;			/* payload bytes */
	u32 next_pkt;			/* the WQE's packet index after it */
};

/*
 * What packet send_pkt of @w is.  Asking for an ACK counts in the
 * congestion window's tally (cwnd.c), so a packet is worked out once.
 */
static void mlx_hw_req_seg(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
			   struct mlx_hw_req_seg *seg)
{
	struct mlx_hw_req *req = &qp->req;
	bool reliable = mlx_hw_qp_reliable(qp->ibx.qp_type);
	bool rd_atomic = mlx_hw_swqe_rd_atomic(w);
	u32 mtu = mlx_hw_req_mtu(qp), i = req->send_pkt;
	u32 n = rd_atomic ? i + 1 : w->npsn;

	/* A READ request stands for the response PSNs it asks for. */
	seg->next_pkt = w->opcode == MLX_HW_OP_RDMA_READ ?
			mlx_hw_req_read_end(qp, w) : i + 1;
	seg->last = i == n - 1;
	seg->off = i * mtu;
	seg->paylen = rd_atomic ? 0 : min(mtu, w->length - seg->off);
	seg->opcode = mlx_hw_req_opcode(qp, w, i, n);
	seg->psn = mlx_hw_psn_add(w->first_psn, i);
	/* IBA 9.7.2: ask for an ACK at the end and now and then within. */
	seg->ackreq = reliable &&
		      (seg->last || mlx_hw_cwnd_ackreq(qp, seg->psn));
	if (seg->ackreq)
		req->noack_pkts = 0;
}

/*
 * Writes the headers of @seg (req.body's WQE) to @hdr, zeroed and as long
 * as its opcode's, and the PSN and destination to @pkt.
 */
static void mlx_hw_req_hdrs(struct mlx_hw_qp *qp, const struct mlx_hw_swqe *w,
			    const struct mlx_hw_req_seg *seg, u8 *hdr,
			    struct mlx_hw_pkt *pkt)
{
	const struct mlx_hw_opcode_info *info = &mlx_hw_opcode[seg->opcode];
	const struct mlx_hw_swqe_body *b = qp->req.body;
	u32 mask = info->mask, dest;
	u64 end;

	if (mask & MLX_HW_M_XRCETH)
		mlx_hw_xrceth_set(hdr + info->off[MLX_HW_XRCETH], b->xrc_srqn);
	if (mask & MLX_HW_M_DETH)
		mlx_hw_deth_set(hdr + info->off[MLX_HW_DETH],
				b->ud.remote_qkey, qp->ibx.qp_num);
	/*
	 * A WRITE's DMA length is the message's; a READ's, the data of the
	 * PSNs it asks for (sent again, only those not received yet).
	 */
	if (mask & MLX_HW_M_RETH) {
		end = w->length;
		if (w->opcode == MLX_HW_OP_RDMA_READ)
			end = min_t(u64, end,
				    (u64)seg->next_pkt * mlx_hw_req_mtu(qp));
		mlx_hw_reth_set(hdr + info->off[MLX_HW_RETH], b->raddr + seg->off,
				b->rkey, end - seg->off);
	}
	if (mask & MLX_HW_M_ATMETH)
		mlx_hw_atmeth_set(hdr + info->off[MLX_HW_ATMETH], b->raddr,
				  b->rkey, b->swap_add, b->compare);
	if (mask & MLX_HW_M_IMMDT)
		mlx_hw_immdt_set(hdr + info->off[MLX_HW_IMMDT], b->imm_data);
	if (mask & MLX_HW_M_IETH)
		mlx_hw_ieth_set(hdr + info->off[MLX_HW_IETH],
				b->invalidate_rkey);
	dest = mlx_hw_qp_is_ud(qp->ibx.qp_type) ? b->ud.remote_qpn :
						   qp->dest_qpn;
	mlx_hw_hdr_bth(hdr, pkt, qp, dest,
		       seg->last && (w->flags & MLX_HW_WQE_SOLICITED),
		       seg->ackreq, seg->psn);
}

/*
 * Builds the packet of @seg, to @av; NULL when memory is short.  The
 * payload comes from req.sgl, as page frags when the packet stays on this
 * host and is reliable (an unreliable sender may reuse its buffer at once).
 */
static struct sk_buff *mlx_hw_req_build(struct mlx_hw_qp *qp,
					struct mlx_hw_swqe *w,
					const struct mlx_hw_av *av,
					const struct mlx_hw_req_seg *seg)
{
	bool reliable = mlx_hw_qp_reliable(qp->ibx.qp_type);
	struct mlx_hw_cursor src;
	struct sk_buff *skb;
	bool zcopy = false;
	int err;

	if (seg->paylen) {
		mlx_hw_cursor_init(&src, &qp->req.sgl);
		mlx_hw_cursor_skip(&src, seg->off);
		zcopy = av->loopback && reliable &&
			mlx_hw_can_zcopy(&src, seg->paylen);
	}
	skb = mlx_hw_pkt_alloc(qp, seg->opcode, seg->paylen, zcopy);
	if (!skb)
		return NULL;
	mlx_hw_req_hdrs(qp, w, seg, skb->data, mlx_hw_pkt(skb));
	err = seg->paylen ? mlx_hw_skb_add_data(skb, &src, seg->paylen,
						zcopy) : 0;
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	return skb;
}

/*
 * Hands @seg to the QP of this host it is for, without a packet
 * (direct.c); false if that QP is not ready to take it that way, and the
 * packet goes instead.
 */
static bool mlx_hw_req_direct(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
			      const struct mlx_hw_av *av,
			      const struct mlx_hw_req_seg *seg)
{
	const struct mlx_hw_opcode_info *info = &mlx_hw_opcode[seg->opcode];
	u8 hdr[MLX_HW_HDR_MAX];
	struct mlx_hw_cursor src;
	struct mlx_hw_rx rx = { .hdr = hdr, .src = &src };

	if (!av->loopback || !mlx_hw_direct_sends(qp, w) ||
	    WARN_ON_ONCE(info->length > sizeof(hdr)))
		return false;
	memset(hdr, 0, info->length);
	rx.pkt.opcode = seg->opcode;
	rx.pkt.mask = info->mask;
	rx.pkt.hdrlen = info->length;
	rx.pkt.paylen = seg->paylen;
	rx.pkt.flags = MLX_HW_PKT_LOOPBACK | (av->ipv4 ? 0 : MLX_HW_PKT_IPV6);
	mlx_hw_req_hdrs(qp, w, seg, hdr, &rx.pkt);
	mlx_hw_cursor_init(&src, &qp->req.sgl);
	mlx_hw_cursor_skip(&src, seg->off);
	return mlx_hw_direct_deliver(qp, av, &rx);
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

/*
 * Only a READ's or an atomic's pages are looked at before: the answer
 * fills them.  A SEND's or WRITE's payload is read by the packet build or
 * the direct copy, each of which finds an unmapped page itself (-EAGAIN,
 * or the direct request undone), and a walk first would look each page
 * up twice.
 */
static bool mlx_hw_req_pages_mapped(struct mlx_hw_qp *qp,
				    struct mlx_hw_swqe *w)
{
	u64 off, len;

	if (!qp->req.sgl.odp || !mlx_hw_swqe_rd_atomic(w))
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
	bool reliable = mlx_hw_qp_reliable(qp->ibx.qp_type);
	struct mlx_hw_req_seg seg;
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
	av = mlx_hw_req_av(qp, &path);
	mlx_hw_req_seg(qp, w, &seg);
	psn = seg.psn;
	if (!mlx_hw_req_direct(qp, w, av, &seg)) {
		skb = mlx_hw_req_build(qp, w, av, &seg);
		if (IS_ERR(skb))	/* -EAGAIN: unmapped since the check */
			return PTR_ERR(skb) == -EAGAIN ?
			       mlx_hw_req_page_fault(qp, w) :
			       mlx_hw_req_fail(w, MLX_HW_WC_LOC_PROT_ERR);
		if (!skb)
			return mlx_hw_req_backoff(qp);
		if (mlx_hw_pkt_xmit(qp, av, skb))
			return mlx_hw_req_backoff(qp);
	}
	req->tx_backoff = 0;
	if (mlx_hw_psn_diff(psn, req->psn_max) >= 0) {
		if (w->opcode == MLX_HW_OP_RDMA_READ && seg.next_pkt < w->npsn)
			mlx_hw_split_add(qp, mlx_hw_psn_add(w->first_psn,
							    seg.next_pkt));
		req->psn_max = mlx_hw_psn_add(w->first_psn, seg.next_pkt);
	}
	if (reliable && !qp->comp.timeout_at) {
		qp->comp.timeout_at = mlx_hw_ack_deadline(qp);
		mlx_hw_qp_arm_timer(qp, qp->comp.timeout_at);
	}
	if (seg.next_pkt < w->npsn) {
		req->send_pkt = seg.next_pkt;
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
	u32 idx, pkt;

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
	/*
	 * The answer to the last segment handed over directly (direct.c),
	 * taken as the completer takes an ACK: once the requester has sent
	 * what it could, as a packet's answer would arrive.  A NAK that sends
	 * the requester back makes the send side go round again.
	 */
	idx = qp->req.send_idx;
	pkt = qp->req.send_pkt;
	if (mlx_hw_comp_direct(qp) &&
	    (qp->req.send_idx != idx || qp->req.send_pkt != pkt))
		mlx_hw_side_again(&qp->send_side);
	mlx_hw_window_retire(qp);
}
