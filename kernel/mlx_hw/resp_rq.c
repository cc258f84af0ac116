// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * resp_rq.c - the receive queue side of the responder: taking receive WQEs
 * from the QP's RQ or an SRQ (the XRC SRQ a request names, for XRC TGT
 * QPs), their completions, the flush of a QP in ERR, and the IBA 9.9.3
 * rules for messages that do not fit.  With qp->recv_side owned.
 */
#include "mlx_hw.h"
#include "responder.h"

/*
 * Writes a receive CQE for the current receive WQE and releases it, the
 * QP state unchanged.  @cqe carries the status, the opcode and, on
 * success, what the message set (byte_len, wc_flags, imm or invalidated
 * rkey, src_qp, sl); the WQE's identity is added here.  An XRC TGT QP
 * completes to the CQ of the XRC SRQ (IBA A14), with its own QP number in
 * the CQE.
 */
void mlx_hw_recv_cqe(struct mlx_hw_qp *qp, struct mlx_hw_cqe *cqe,
		     bool solicited)
{
	struct ibx_cq *cq = qp->resp.xsrq ? qp->resp.xsrq->ibx.cq :
					    qp->ibx.recv_cq;

	cqe->wr_id = cpu_to_le64(qp->resp.rwqe_id);
	cqe->qp_num = cpu_to_le32(qp->ibx.qp_num);
	if (cqe->status)
		mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_ERR_CQES, 1);
	mlx_hw_sgl_release(&qp->resp.rwqe);
	qp->resp.have_rwqe = false;
	if (mlx_hw_cq_post(to_mcq(cq), cqe, solicited))
		mlx_hw_qp_fatal(qp, IBX_EVENT_QP_FATAL);
}

/* A receive CQE that carries only a status and an opcode. */
static void mlx_hw_recv_cqe_status(struct mlx_hw_qp *qp, u8 status,
				   u8 opcode)
{
	struct mlx_hw_cqe cqe = { .status = status, .opcode = opcode };

	mlx_hw_recv_cqe(qp, &cqe, false);
}

/* An error completion of the receive WQE; the QP goes to ERR. */
void mlx_hw_recv_complete(struct mlx_hw_qp *qp, u8 status, u8 opcode)
{
	mlx_hw_recv_cqe_status(qp, status, opcode);
	mlx_hw_qp_to_err(qp);
}

/*
 * Parses a receive WQE at @slot into resp.rwqe.  Each field is read once
 * from the ring.  Returns 0 or the ibv_wc_status it completes with.
 */
static u8 mlx_hw_parse_rwqe(struct mlx_hw_qp *qp, const void *slot,
			    u32 max_sge, struct mlx_hw_pd *pd)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	const struct mlx_hw_wqe_data *d = slot + sizeof(struct mlx_hw_rwqe);
	struct mlx_hw_rwqe hdr;
	struct mlx_hw_wqe_data seg;
	u32 num, i;
	int err;

	memcpy(&hdr, slot, sizeof(hdr));
	r->rwqe_id = le64_to_cpu(hdr.wr_id);
	mlx_hw_sgl_init(&r->rwqe);
	r->have_rwqe = true;
	num = le32_to_cpu(hdr.num_sge);
	if (num > max_sge)
		return MLX_HW_WC_LOC_QP_OP_ERR;
	for (i = 0; i < num; i++) {
		memcpy(&seg, &d[i], sizeof(seg));
		err = mlx_hw_sgl_add(to_mdev(qp->ibx.dev), pd, &r->rwqe,
				     le32_to_cpu(seg.lkey),
				     le64_to_cpu(seg.addr),
				     le32_to_cpu(seg.byte_count),
				     IB_UVERBS_ACCESS_LOCAL_WRITE);
		if (err == -EACCES)
			return MLX_HW_WC_LOC_PROT_ERR;
		if (err)
			return MLX_HW_WC_LOC_LEN_ERR;
	}
	return 0;
}

/* Takes the next SRQ WQE (strict ring order, docs/prm.md 3.1). */
static int mlx_hw_take_srq(struct mlx_hw_qp *qp, struct mlx_hw_srq *srq)
{
	bool limit_event = false;
	u32 pi;
	u8 status;

	spin_lock_bh(&srq->lock);
	pi = le32_to_cpu(READ_ONCE(srq->db->pi));
	if (pi == srq->ci || pi - srq->ci > srq->wqe_cnt) {
		spin_unlock_bh(&srq->lock);
		return -EAGAIN;
	}
	/* The index is read before the WQE it publishes. */
	smp_rmb();
	status = mlx_hw_parse_rwqe(qp,
				   srq->ring + (srq->ci & (srq->wqe_cnt - 1)) *
					       srq->stride,
				   srq->max_sge, to_mpd(srq->ibx.pd));
	srq->ci++;
	/* Our reads of the slot happen before the slot is handed back. */
	smp_store_release(&srq->db->ci, cpu_to_le32(srq->ci));
	/* IBA 10.2.9.5: the limit event fires once when the level drops. */
	if (srq->limit && pi - srq->ci < srq->limit) {
		srq->limit = 0;
		limit_event = true;
	}
	spin_unlock_bh(&srq->lock);
	if (limit_event)
		ibx_srq_event(&srq->ibx, IBX_EVENT_SRQ_LIMIT_REACHED);
	return status;
}

/* Takes the next WQE of the QP's own RQ into resp.rwqe. */
static int mlx_hw_take_rq(struct mlx_hw_qp *qp)
{
	u32 pi;
	int status;

	pi = le32_to_cpu(READ_ONCE(qp->db->rq_pi));
	if (pi == qp->rq_ci || !mlx_hw_db_ok(qp, pi, qp->rq_ci, qp->rq_wqe_cnt))
		return -EAGAIN;
	/* The index is read before the WQE it publishes. */
	smp_rmb();
	status = mlx_hw_parse_rwqe(qp, qp->rq + (qp->rq_ci &
						 (qp->rq_wqe_cnt - 1)) *
					     qp->rq_stride,
				   qp->max_recv_sge, to_mpd(qp->ibx.pd));
	qp->rq_ci++;
	/* Our reads of the slot happen before the slot is handed back. */
	smp_store_release(&qp->db->rq_ci, cpu_to_le32(qp->rq_ci));
	return status;
}

/*
 * The receive WQE for a new message in resp.rwqe: one kept from a message
 * that was dropped (its MR references taken again), or the next one of
 * the XRC SRQ, SRQ or RQ.  Returns 0, -EAGAIN if none is posted, or a
 * positive ibv_wc_status when the WQE is unusable (it is then taken and
 * must complete with that status).
 */
int mlx_hw_resp_get_rwqe(struct mlx_hw_qp *qp)
{
	if (qp->resp.have_rwqe)
		return mlx_hw_sgl_unpark(to_mdev(qp->ibx.dev), qp,
					 &qp->resp.rwqe) ?
		       MLX_HW_WC_LOC_PROT_ERR : 0;
	if (qp->resp.xsrq)
		return mlx_hw_take_srq(qp, qp->resp.xsrq);
	if (qp->ibx.srq)
		return mlx_hw_take_srq(qp, to_msrq(qp->ibx.srq));
	return mlx_hw_take_rq(qp);
}

/*
 * A UC or UD message longer than its receive WQE.  IBA 9.9.3 (responder
 * error classes D and E; rxe alike): no NAK, no affiliated event, and the
 * QP stays in its state.  A WQE of the QP's own RQ is not consumed (class
 * D): the message is dropped and the WQE waits for the next one.  A WQE
 * taken from an SRQ cannot be given back (class E): it completes with
 * IBV_WC_LOC_LEN_ERR.  Either way the rest of a UC message is dropped.
 */
enum mlx_hw_resp_state mlx_hw_resp_too_long(struct mlx_hw_qp *qp)
{
	qp->resp.in_msg = false;
	if (qp->ibx.srq)
		mlx_hw_recv_cqe_status(qp, MLX_HW_WC_LOC_LEN_ERR,
				       MLX_HW_WC_RECV);
	return MLX_HW_RESP_DROP;
}

/* Gives up the message in progress; a receive WQE taken stays for the next. */
void mlx_hw_resp_abort_msg(struct mlx_hw_qp *qp)
{
	qp->resp.in_msg = false;
	mlx_hw_sgl_release(&qp->resp.wr_dst);
}

/*
 * XRC TGT: the XRCETH names the XRC SRQ that receives (IBA A14.4.1); it
 * must be an XRC SRQ of the TGT QP's domain, and stay the same within a
 * message.  Takes a reference for the duration of the packet.
 */
bool mlx_hw_resp_xrc_srq(struct mlx_hw_qp *qp, const struct mlx_hw_rx *rx)
{
	u32 srqn = mlx_hw_xrceth_srqn(mlx_hw_rx_hdr(rx, MLX_HW_XRCETH));
	struct mlx_hw_srq *srq;

	if (qp->resp.in_msg && !(rx->pkt.mask & MLX_HW_M_FIRST) &&
	    srqn != qp->resp.xrc_srqn)
		return false;
	srq = mlx_hw_srq_get(to_mdev(qp->ibx.dev), srqn);
	if (!srq)
		return false;
	if (srq->ibx.srq_type != IB_UVERBS_SRQT_XRC ||
	    srq->ibx.xrcd != qp->ibx.xrcd) {
		mlx_hw_srq_put(srq);
		return false;
	}
	qp->resp.xsrq = srq;
	qp->resp.xrc_srqn = srqn;
	return true;
}

void mlx_hw_resp_put_xrc_srq(struct mlx_hw_qp *qp)
{
	if (qp->resp.xsrq) {
		mlx_hw_srq_put(qp->resp.xsrq);
		qp->resp.xsrq = NULL;
	}
}

/* Forgets all receive-side transport state (RESET, creation, destroy). */
void mlx_hw_resp_reset(struct mlx_hw_qp *qp)
{
	struct mlx_hw_resp_side *r = &qp->resp;

	mlx_hw_sgl_release(&r->rwqe);
	mlx_hw_sgl_release(&r->wr_dst);
	skb_queue_purge(&qp->resp_pkts);
	r->have_rwqe = false;
	r->in_msg = false;
	r->nak_sent = false;
	r->ack_pending = false;
	r->read = NULL;
	r->wait_until = 0;
	/* A fault under way keeps PENDING; its worker ends it. */
	if (r->odp_fault == MLX_HW_ODP_FAULT_FAILED)
		r->odp_fault = MLX_HW_ODP_FAULT_IDLE;
	r->msn = 0;
	r->res_next = 0;
	if (r->res)
		memset(r->res, 0, r->res_cnt * sizeof(*r->res));
	mlx_hw_ackg_reset(qp);
}

/*
 * Puts @table, @cnt responder resources, in place of the QP's and returns
 * the old table for the caller to free.  A new size (max_dest_rd_atomic
 * changed in SQD) keeps the newest resources that fit, so that duplicates
 * of the requests they answered are still answered, and the READ whose
 * responses are going out if it is among them.  Both sides paused.
 */
struct mlx_hw_res *mlx_hw_resp_res_replace(struct mlx_hw_qp *qp,
					   struct mlx_hw_res *table, u32 cnt)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	struct mlx_hw_res *old = r->res, *read = r->read;
	u32 keep = old ? min(cnt, r->res_cnt) : 0, i, from;

	r->read = NULL;
	for (i = 0; i < keep; i++) {
		/* The ring's newest @keep, oldest first. */
		from = (r->res_next + r->res_cnt - keep + i) % r->res_cnt;
		table[i] = old[from];
		if (read == &old[from])
			r->read = &table[i];
	}
	r->res = table;
	r->res_cnt = cnt;
	r->res_next = keep % cnt;
	return old;
}

/* XRC TGT: the WQE of a message in progress goes back to its SRQ's CQ. */
static bool mlx_hw_resp_flush_xrc(struct mlx_hw_qp *qp)
{
	bool did = false;

	if (qp->resp.have_rwqe)
		qp->resp.xsrq = mlx_hw_srq_get(to_mdev(qp->ibx.dev),
					       qp->resp.xrc_srqn);
	if (qp->resp.xsrq) {
		mlx_hw_recv_complete(qp, MLX_HW_WC_WR_FLUSH_ERR,
				     MLX_HW_WC_RECV);
		mlx_hw_resp_put_xrc_srq(qp);
		did = true;
	}
	mlx_hw_resp_reset(qp);
	return did;
}

/* Flushes the receive WQEs of a QP in ERR; true if it flushed any. */
bool mlx_hw_resp_flush(struct mlx_hw_qp *qp)
{
	unsigned int budget = MLX_HW_WQE_BUDGET * 4;
	struct mlx_hw_rwqe hdr;
	bool did = false;
	u32 pi;

	if (qp->ibx.qp_type == IB_UVERBS_QPT_XRC_TGT)
		return mlx_hw_resp_flush_xrc(qp);
	if (qp->resp.have_rwqe) {
		mlx_hw_recv_complete(qp, MLX_HW_WC_WR_FLUSH_ERR,
				     MLX_HW_WC_RECV);
		did = true;
	}
	mlx_hw_resp_reset(qp);
	if (qp->ibx.srq || qp->db_corrupt)
		return did;
	/*
	 * MLX_HW_QP_DB_RING_RQ, set when the QP entered ERR, is visible
	 * before rq_pi is read: pairs with the provider's full barrier
	 * between its rq_pi store and its flags load, so a post this read
	 * misses rings the doorbell and runs the flush again.
	 */
	smp_mb();
	pi = le32_to_cpu(READ_ONCE(qp->db->rq_pi));
	if (pi - qp->rq_ci > qp->rq_wqe_cnt)
		return did;
	/* The index is read before the WQEs it publishes. */
	smp_rmb();
	while (qp->rq_ci != pi && budget--) {
		memcpy(&hdr, qp->rq + (qp->rq_ci & (qp->rq_wqe_cnt - 1)) *
			     qp->rq_stride, sizeof(hdr));
		qp->resp.rwqe_id = le64_to_cpu(hdr.wr_id);
		mlx_hw_sgl_init(&qp->resp.rwqe);
		qp->resp.have_rwqe = true;
		qp->rq_ci++;
		/* Slot free before its CQE (as a taken WQE's, docs/prm.md 3.1). */
		smp_store_release(&qp->db->rq_ci, cpu_to_le32(qp->rq_ci));
		mlx_hw_recv_complete(qp, MLX_HW_WC_WR_FLUSH_ERR,
				     MLX_HW_WC_RECV);
		did = true;
	}
	return did;
}
