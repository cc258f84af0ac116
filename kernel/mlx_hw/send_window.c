// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * send_window.c - the send window that the requester and the completer
 * share: the entries of the send WQEs from sq_ci (the oldest not
 * completed) to req.fetch_idx (the next to fetch), in SQ order.  The
 * requester (req.c) fetches WQEs into it and sends from req.send_idx; the
 * completer (comp.c) marks them done as responses acknowledge them, and
 * here they retire from the old end, each with its CQE, strictly in SQ
 * order.  A loss rewinds req.send_idx (go-back-N); ERR flushes the window
 * and then the ring.  How many PSNs may be unacknowledged is cwnd.c's.
 * Runs with qp->send_side owned (side.c).
 */
#include "mlx_hw.h"

/* ---------------- send completions ---------------- */

static u8 mlx_hw_wc_opcode(u8 wqe_opcode)
{
	switch (wqe_opcode) {
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
		return 1;	/* IBV_WC_RDMA_WRITE */
	case MLX_HW_OP_RDMA_READ:
		return 2;	/* IBV_WC_RDMA_READ */
	case MLX_HW_OP_ATOMIC_CS:
		return 3;	/* IBV_WC_COMP_SWAP */
	case MLX_HW_OP_ATOMIC_FA:
		return 4;	/* IBV_WC_FETCH_ADD */
	case MLX_HW_OP_BIND_MW:
		return 5;	/* IBV_WC_BIND_MW */
	case MLX_HW_OP_LOCAL_INV:
		return 6;	/* IBV_WC_LOCAL_INV */
	default:
		return 0;	/* IBV_WC_SEND */
	}
}

/* Writes a send CQE (wqe_opcode: enum mlx_hw_wqe_opcode). */
int mlx_hw_send_cqe(struct mlx_hw_qp *qp, u64 wr_id, u8 wqe_opcode, u8 status,
		    u32 byte_len)
{
	struct mlx_hw_cqe cqe = {};
	int err;

	cqe.wr_id = cpu_to_le64(wr_id);
	cqe.status = status;
	cqe.opcode = mlx_hw_wc_opcode(wqe_opcode);
	cqe.qp_num = cpu_to_le32(qp->ibx.qp_num);
	cqe.byte_len = cpu_to_le32(byte_len);
	if (status)
		mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_ERR_CQES, 1);
	err = mlx_hw_cq_post(to_mcq(qp->ibx.send_cq), &cqe, false);
	if (err)
		mlx_hw_qp_fatal(qp, IBX_EVENT_QP_FATAL);
	return err;
}

/* ---------------- the window ---------------- */

/*
 * Local ACK timeout: 4.096 us * 2^timeout (IBA 9.7.6.1.3).  0 means
 * "infinite"; retrying once a second instead still detects a dead peer.
 */
static u64 mlx_hw_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return NSEC_PER_SEC;
	return 4096ull << min_t(u8, timeout, 31);
}

/*
 * When the ACK timer of @qp expires if it starts now: set for every
 * message sent and moved for every response, so it reads the coarse clock
 * (the time of the last tick: no clocksource read, which in a TCG guest of
 * 6.1, whose clocksource is the HPET, takes a microsecond) wherever the
 * timeout is long against a tick, and adds a tick so that the timer never
 * expires before the timeout (IBA 9.7.6.1.3).
 */
u64 mlx_hw_ack_deadline(struct mlx_hw_qp *qp)
{
	u64 t = mlx_hw_ack_timeout_ns(READ_ONCE(qp->timeout));

	if (t >= 4 * TICK_NSEC)
		return ktime_get_coarse_ns() + t + TICK_NSEC;
	return ktime_get_ns() + t;
}

/* The oldest WQE not done, or NULL. */
struct mlx_hw_swqe *mlx_hw_window_oldest(struct mlx_hw_qp *qp)
{
	struct mlx_hw_swqe *w;
	u32 idx;

	for (idx = qp->sq_ci; idx != qp->req.fetch_idx; idx++) {
		w = mlx_hw_swqe(qp, idx);
		if (!w->done)
			return w;
	}
	return NULL;
}

/*
 * Frees the SQ slot at sq_ci.  The index is published before the WQE's
 * CQE, so a consumer that polled a completion may reuse that slot and all
 * earlier ones, as applications that count completions expect.  Release:
 * the slot's reads are done before the provider may rewrite it.
 */
static void mlx_hw_sq_free_slot(struct mlx_hw_qp *qp)
{
	qp->sq_ci++;
	smp_store_release(&qp->db->sq_ci, cpu_to_le32(qp->sq_ci));
}

/*
 * Completes the WQEs at the old end of the window that are done, in SQ
 * order: CQE if signaled or in error; an error moves the QP to ERR (IBA
 * 10.7.3.1), and a WQE no provider writes also raises QP_FATAL.
 */
void mlx_hw_window_retire(struct mlx_hw_qp *qp)
{
	struct mlx_hw_req *req = &qp->req;
	struct mlx_hw_swqe *w;

	while (qp->sq_ci != req->fetch_idx) {
		w = mlx_hw_swqe(qp, qp->sq_ci);
		if (!w->done)
			break;
		if (req->send_idx == qp->sq_ci) {
			/* The requester stopped at this failed WQE. */
			req->send_idx++;
			req->send_pkt = 0;
		}
		mlx_hw_sq_free_slot(qp);
		if (w->status || (w->flags & MLX_HW_WQE_SIGNALED))
			mlx_hw_send_cqe(qp, w->wr_id, w->opcode, w->status,
					w->status ? 0 : w->length);
		if (w->status) {
			if (w->status == MLX_HW_WC_LOC_QP_OP_ERR)
				mlx_hw_qp_fatal(qp, IBX_EVENT_QP_FATAL);
			else
				mlx_hw_qp_to_err(qp);
			break;
		}
	}
}

/*
 * Makes the requester send again from @psn (go-back-N): from the oldest
 * WQE not completed, at the packet holding @psn; a READ asks again only
 * for the responses not received.  Called by the completer.
 */
void mlx_hw_window_rewind(struct mlx_hw_qp *qp, u32 psn)
{
	struct mlx_hw_req *req = &qp->req;
	struct mlx_hw_swqe *w;
	u32 idx;
	int k;

	for (idx = qp->sq_ci; idx != req->fetch_idx; idx++) {
		w = mlx_hw_swqe(qp, idx);
		if (!w->done)
			break;
	}
	if (idx == req->fetch_idx)
		return;
	/*
	 * A READ or atomic still waits for responses from comp.psn on, even
	 * when a NAK for a later request asks for @psn: ask for them again.
	 */
	if (mlx_hw_swqe_rd_atomic(w) && mlx_hw_psn_diff(psn, qp->comp.psn) > 0)
		psn = qp->comp.psn;
	k = mlx_hw_psn_diff(psn, w->first_psn);
	req->send_idx = idx;
	req->send_pkt = clamp_t(int, k, 0, max_t(int, w->npsn, 1) - 1);
	req->noack_pkts = 0;
	mlx_hw_sgl_release(&req->sgl);
	req->sgl_valid = false;
	qp->comp.timeout_at = 0;
	mlx_hw_qp_dbg(qp, "req rewind to psn %u (wqe %u pkt %u)\n", psn, idx,
		      req->send_pkt);
}

/* ---------------- READs sent as several requests ---------------- */

/*
 * A READ longer than the congestion window has room for goes as several
 * READ requests (req.c), each for the PSNs the window had room for.  Sent
 * again after a loss, a request must ask for the same PSNs, no more: the
 * responder keeps a resource per request, and rxe drops a repeat that asks
 * past the end of the one it repeats.  So the end of each request that does
 * not end its WQE is noted until all its responses are in; one that ends
 * its WQE needs no note.
 */

/* The @k-th oldest noted end. */
static u32 *mlx_hw_split_slot(struct mlx_hw_req *req, u32 k)
{
	return &req->split_end[(req->split_head + k) % MLX_HW_READ_SPLITS];
}

/* Forgets the requests whose responses are all in. */
static void mlx_hw_split_retire(struct mlx_hw_qp *qp)
{
	struct mlx_hw_req *req = &qp->req;

	while (req->split_cnt &&
	       mlx_hw_psn_diff(*mlx_hw_split_slot(req, 0), qp->comp.psn) <= 0) {
		req->split_head = (req->split_head + 1) % MLX_HW_READ_SPLITS;
		req->split_cnt--;
	}
}

/* Noted requests outstanding: each holds a resource of the responder. */
u32 mlx_hw_split_outstanding(struct mlx_hw_qp *qp)
{
	mlx_hw_split_retire(qp);
	return qp->req.split_cnt;
}

/* A request that does not end its WQE went, for the PSNs before @end. */
void mlx_hw_split_add(struct mlx_hw_qp *qp, u32 end)
{
	struct mlx_hw_req *req = &qp->req;

	/* req.c sends none without room (mlx_hw_split_outstanding()). */
	if (WARN_ON_ONCE(req->split_cnt == MLX_HW_READ_SPLITS))
		return;
	*mlx_hw_split_slot(req, req->split_cnt++) = end;
}

/*
 * Where the request sent before for @psn of READ @w ends (the PSN after
 * its last): the first noted end after @psn if it is within @w, else the
 * end of @w.
 */
u32 mlx_hw_split_end(struct mlx_hw_qp *qp, const struct mlx_hw_swqe *w,
		     u32 psn)
{
	struct mlx_hw_req *req = &qp->req;
	u32 wend = mlx_hw_psn_add(w->first_psn, w->npsn), end, k;

	for (k = 0; k < req->split_cnt; k++) {
		end = *mlx_hw_split_slot(req, k);
		if (mlx_hw_psn_diff(end, psn) > 0)
			return mlx_hw_psn_diff(end, wend) < 0 ? end : wend;
	}
	return wend;
}

/* Forgets every noted request (RESET, ERR). */
void mlx_hw_split_reset(struct mlx_hw_qp *qp)
{
	qp->req.split_head = 0;
	qp->req.split_cnt = 0;
}

/* Flushes outstanding SQ WQEs of a QP in ERR; true if it did any. */
bool mlx_hw_sq_flush(struct mlx_hw_qp *qp)
{
	struct mlx_hw_req *req = &qp->req;
	unsigned int budget = MLX_HW_WQE_BUDGET * 4;
	struct mlx_hw_wqe_ctrl ctrl;
	struct mlx_hw_swqe *w;
	bool did = false;
	u32 pi;

	mlx_hw_sgl_release(&req->sgl);
	req->sgl_valid = false;
	qp->comp.timeout_at = 0;
	skb_queue_purge(&qp->comp_pkts);
	qp->comp.direct.valid = false;
	mlx_hw_split_reset(qp);
	/* The window first: its entries know the WQEs. */
	while (qp->sq_ci != req->fetch_idx && budget--) {
		w = mlx_hw_swqe(qp, qp->sq_ci);
		mlx_hw_sq_free_slot(qp);
		mlx_hw_send_cqe(qp, w->wr_id, w->opcode,
				MLX_HW_WC_WR_FLUSH_ERR, 0);
		did = true;
	}
	if (qp->sq_ci != req->fetch_idx)
		return did;
	req->send_idx = req->fetch_idx;
	pi = le32_to_cpu(READ_ONCE(qp->db->sq_pi));
	if (qp->db_corrupt || !mlx_hw_db_ok(qp, pi, qp->sq_ci, qp->sq_wqe_cnt))
		return did;
	/* The index is read before the WQEs it publishes. */
	smp_rmb();
	while (qp->sq_ci != pi && budget--) {
		memcpy(&ctrl, qp->sq + (qp->sq_ci & (qp->sq_wqe_cnt - 1)) *
			      qp->sq_stride, sizeof(ctrl));
		mlx_hw_sq_free_slot(qp);
		mlx_hw_send_cqe(qp, le64_to_cpu(ctrl.wr_id), ctrl.opcode,
				MLX_HW_WC_WR_FLUSH_ERR, 0);
		did = true;
	}
	req->fetch_idx = req->send_idx = qp->sq_ci;
	return did;
}
