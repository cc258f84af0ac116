// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * requester.c - the send side of a QP: fetches SQ WQEs out of the ring into
 * a private copy, validates them, and turns them into packet descriptors
 * (IBA 9.2-9.4 headers, payload referencing the source pages) that the
 * transport (loopback.c for now) carries to the responder.
 */
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include "mlx_hw.h"

/* Releases the current WQE (its MR references) and any response data. */
void mlx_hw_req_release(struct mlx_hw_qp *qp)
{
	mlx_hw_sgl_release(&qp->req.wqe.sgl);
	mlx_hw_sgl_release(&qp->req.resp.read_src);
	qp->req.have_wqe = false;
	qp->req.waiting = false;
	qp->req.retries = 0;
	qp->req.rnr_retries = 0;
	qp->req.pkt_idx = 0;
}

/*
 * Completes the current WQE: frees its slot, then writes its CQE if it is
 * signaled or in error (the private copy is all the CQE needs).  An error
 * moves the QP to ERR (IBA 10.7.3.1).
 */
int mlx_hw_complete_wqe(struct mlx_hw_qp *qp, u8 status, u32 byte_len)
{
	struct mlx_hw_send_wqe *wqe = &qp->req.wqe;

	mlx_hw_sq_free_slot(qp);
	if (status || (wqe->flags & MLX_HW_WQE_SIGNALED))
		mlx_hw_send_cqe(qp, wqe, status, byte_len);
	mlx_hw_req_release(qp);
	if (status)
		mlx_hw_qp_to_err(qp);
	return status;
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
		return qp_type != IB_UVERBS_QPT_UD;
	case MLX_HW_OP_BIND_MW:
		return qp_type != IB_UVERBS_QPT_UD;
	case MLX_HW_OP_SEND_INV:
	case MLX_HW_OP_RDMA_READ:
	case MLX_HW_OP_ATOMIC_CS:
	case MLX_HW_OP_ATOMIC_FA:
		return mlx_hw_qp_reliable(qp_type);
	default:
		return false;
	}
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
 * Parses the WQE copied to qp->wqe_buf into qp->req.wqe (docs/prm.md 4.2).
 * Returns 0 or the ibv_wc_status the WQE completes with.
 */
static u8 mlx_hw_parse_wqe(struct mlx_hw_qp *qp)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	const u8 *buf = qp->wqe_buf;
	const struct mlx_hw_wqe_ctrl *ctrl = (const void *)buf;
	struct mlx_hw_send_wqe *wqe = &qp->req.wqe;
	u32 type = qp->ibx.qp_type, off = sizeof(*ctrl), access = 0, i;
	bool rdma = false, atomic = false;
	int err;

	wqe->wr_id = le64_to_cpu(ctrl->wr_id);
	wqe->opcode = ctrl->opcode;
	wqe->flags = ctrl->flags;
	if (qp->ibx.sq_sig_all)
		wqe->flags |= MLX_HW_WQE_SIGNALED;
	wqe->imm_data = ctrl->imm_data;
	wqe->invalidate_rkey = le32_to_cpu(ctrl->invalidate_rkey);
	mlx_hw_sgl_init(&wqe->sgl);
	wqe->xrc_srqn = 0;
	if (type == IB_UVERBS_QPT_XRC_INI) {
		/* Every XRC WQE names the target's SRQ, right after ctrl. */
		const struct mlx_hw_wqe_xrc *xrc = (const void *)(buf + off);

		wqe->xrc_srqn = le32_to_cpu(xrc->remote_srqn) & 0xffffff;
		off += sizeof(*xrc);
	}

	if (!mlx_hw_op_valid(type, wqe->opcode))
		return MLX_HW_WC_LOC_QP_OP_ERR;
	switch (wqe->opcode) {
	case MLX_HW_OP_RDMA_WRITE:
	case MLX_HW_OP_RDMA_WRITE_IMM:
		rdma = true;
		break;
	case MLX_HW_OP_RDMA_READ:
		rdma = true;
		access = IB_UVERBS_ACCESS_LOCAL_WRITE;
		break;
	case MLX_HW_OP_ATOMIC_CS:
	case MLX_HW_OP_ATOMIC_FA:
		rdma = true;
		atomic = true;
		access = IB_UVERBS_ACCESS_LOCAL_WRITE;
		break;
	case MLX_HW_OP_LOCAL_INV:
		return 0;
	case MLX_HW_OP_BIND_MW:
		/* ctrl, then the bind segment, no data (docs/prm.md 4.2). */
		memcpy(&wqe->bind, buf + off, sizeof(wqe->bind));
		return 0;
	default:
		break;
	}

	if (type == IB_UVERBS_QPT_UD) {
		const struct mlx_hw_wqe_ud *ud = (const void *)(buf + off);
		u32 qkey = le32_to_cpu(ud->remote_qkey);

		memcpy(wqe->dgid.raw, ud->dgid, sizeof(wqe->dgid.raw));
		wqe->remote_qpn = le32_to_cpu(ud->remote_qpn) & 0xffffff;
		/* IBA C10-15: a Q_Key with the high bit set means the QP's. */
		wqe->remote_qkey = (qkey & 0x80000000u) ? qp->qkey : qkey;
		wqe->sgid_index = ud->sgid_index;
		wqe->hop_limit = ud->hop_limit;
		wqe->traffic_class = ud->traffic_class;
		wqe->flow_label = le32_to_cpu(ud->flow_label);
		off += sizeof(*ud);
	}
	if (rdma) {
		const struct mlx_hw_wqe_raddr *ra = (const void *)(buf + off);

		wqe->raddr = le64_to_cpu(ra->raddr);
		wqe->rkey = le32_to_cpu(ra->rkey);
		off += sizeof(*ra);
	}
	if (atomic) {
		const struct mlx_hw_wqe_atomic *at = (const void *)(buf + off);

		wqe->swap_add = le64_to_cpu(at->swap_add);
		wqe->compare = le64_to_cpu(at->compare);
		off += sizeof(*at);
	}

	if (wqe->flags & MLX_HW_WQE_INLINE) {
		const struct mlx_hw_wqe_inline *inl = (const void *)(buf + off);
		u32 len = le32_to_cpu(inl->byte_count);

		if (access || len > qp->max_inline ||
		    off + sizeof(*inl) + len > qp->sq_stride)
			return MLX_HW_WC_LOC_QP_OP_ERR;
		memcpy(wqe->inline_data, inl->data, len);
		wqe->sgl.kbuf = wqe->inline_data;
		wqe->sgl.total = len;
	} else {
		const struct mlx_hw_wqe_data *d = (const void *)(buf + off);
		u32 num = ctrl->num_sge;

		if (num > qp->max_send_sge ||
		    off + num * sizeof(*d) > qp->sq_stride)
			return MLX_HW_WC_LOC_QP_OP_ERR;
		for (i = 0; i < num; i++) {
			err = mlx_hw_sgl_add(dev, to_mpd(qp->ibx.pd), &wqe->sgl,
					     le32_to_cpu(d[i].lkey),
					     le64_to_cpu(d[i].addr),
					     le32_to_cpu(d[i].byte_count), access);
			if (err)
				return mlx_hw_sgl_err_status(err);
		}
	}
	if (atomic && wqe->sgl.total != 8)
		return MLX_HW_WC_LOC_LEN_ERR;
	if (type == IB_UVERBS_QPT_UD && wqe->sgl.total > READ_ONCE(dev->mtu))
		return MLX_HW_WC_LOC_LEN_ERR;
	return 0;
}

/* LOCAL_INV: invalidates a key of the QP's PD. */
static u8 mlx_hw_local_inv(struct mlx_hw_qp *qp)
{
	if (mlx_hw_invalidate(to_mdev(qp->ibx.dev), qp->ibx.pd,
			      qp->req.wqe.invalidate_rkey))
		return MLX_HW_WC_LOC_PROT_ERR;
	return 0;
}

/* Moves a cursor forward by @len bytes. */
static void mlx_hw_cursor_skip(struct mlx_hw_cursor *c, u32 len)
{
	const struct mlx_hw_sgl *sgl = c->sgl;

	if (sgl->kbuf) {
		c->off += len;
		return;
	}
	while (len && c->idx < sgl->num) {
		u32 n = min(len, sgl->seg[c->idx].len - c->off);

		c->off += n;
		len -= n;
		if (c->off == sgl->seg[c->idx].len) {
			c->idx++;
			c->off = 0;
		}
	}
}

/* Fills the addressing part of a packet; false if the SGID is unknown. */
static bool mlx_hw_pkt_address(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt)
{
	struct mlx_hw_send_wqe *wqe = &qp->req.wqe;
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	u8 sgid_index;

	memset(pkt, 0, sizeof(*pkt));
	pkt->qp_type = qp->ibx.qp_type;
	pkt->src_qpn = qp->ibx.qp_num;
	if (qp->ibx.qp_type == IB_UVERBS_QPT_UD) {
		pkt->dgid = wqe->dgid;
		pkt->dest_qpn = wqe->remote_qpn;
		pkt->qkey = wqe->remote_qkey;
		pkt->hop_limit = wqe->hop_limit;
		pkt->traffic_class = wqe->traffic_class;
		pkt->flow_label = wqe->flow_label;
		sgid_index = wqe->sgid_index;
	} else {
		pkt->dgid = qp->dgid;
		pkt->dest_qpn = qp->dest_qpn;
		pkt->xrc_srqn = wqe->xrc_srqn;
		pkt->hop_limit = qp->hop_limit;
		pkt->traffic_class = qp->traffic_class;
		pkt->flow_label = qp->flow_label;
		sgid_index = qp->sgid_index;
	}
	return !mlx_hw_dev_get_gid(dev, sgid_index, &pkt->sgid);
}

/* Sends the packets of a SEND or RDMA WRITE, from req.pkt_idx on. */
static enum mlx_hw_comp_result mlx_hw_req_message(struct mlx_hw_qp *qp,
						  struct mlx_hw_pkt *pkt)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_send_wqe *wqe = &qp->req.wqe;
	struct mlx_hw_resp *resp = &qp->req.resp;
	u32 mtu = qp->ibx.qp_type == IB_UVERBS_QPT_UD ? READ_ONCE(dev->mtu) :
							 qp->mtu;
	u32 total = wqe->sgl.total, last = qp->req.npkts - 1;
	u32 first = qp->req.pkt_idx;
	struct mlx_hw_cursor src = { .sgl = &wqe->sgl };
	enum mlx_hw_comp_result res;
	bool write = wqe->opcode == MLX_HW_OP_RDMA_WRITE ||
		     wqe->opcode == MLX_HW_OP_RDMA_WRITE_IMM;
	u32 i;

	pkt->op = write ? MLX_HW_PKT_WRITE : MLX_HW_PKT_SEND;
	pkt->va = wqe->raddr;
	pkt->rkey = wqe->rkey;
	pkt->dma_len = total;
	mlx_hw_cursor_skip(&src, qp->req.pkt_idx * mtu);

	for (i = first; i <= last; i++) {
		/* Long messages yield to other QPs; pkt_idx resumes them. */
		if (i - first >= MLX_HW_PKT_BUDGET) {
			qp->req.pkt_idx = i;
			return MLX_HW_COMP_YIELD;
		}
		pkt->flags = 0;
		if (i == 0)
			pkt->flags |= MLX_HW_PKT_FIRST;
		if (i == last) {
			pkt->flags |= MLX_HW_PKT_LAST;
			if (wqe->opcode == MLX_HW_OP_SEND_IMM ||
			    wqe->opcode == MLX_HW_OP_RDMA_WRITE_IMM)
				pkt->flags |= MLX_HW_PKT_IMM;
			if (wqe->opcode == MLX_HW_OP_SEND_INV)
				pkt->flags |= MLX_HW_PKT_INV;
			if (wqe->flags & MLX_HW_WQE_SOLICITED)
				pkt->flags |= MLX_HW_PKT_SOLICITED;
		}
		pkt->imm_data = wqe->imm_data;
		pkt->inv_rkey = wqe->invalidate_rkey;
		pkt->psn = (qp->sq_psn + i) & 0xffffff;
		pkt->paylen = min(mtu, total - i * mtu);
		pkt->payload = src;
		mlx_hw_cursor_skip(&src, pkt->paylen);

		mlx_hw_loopback_xmit(dev, pkt, resp);
		if (mlx_hw_qp_reliable(qp->ibx.qp_type)) {
			res = mlx_hw_completer(qp, pkt, resp);
			if (res != MLX_HW_COMP_NEXT)
				return res;
			qp->req.pkt_idx = i + 1;	/* acknowledged */
		}
		cond_resched();
	}
	/* UC and UD: done once sent. */
	qp->sq_psn = (qp->sq_psn + qp->req.npkts) & 0xffffff;
	mlx_hw_complete_wqe(qp, 0, total);
	return MLX_HW_COMP_DONE;
}

/* Executes (or resumes) the current WQE. */
static enum mlx_hw_comp_result mlx_hw_req_execute(struct mlx_hw_qp *qp)
{
	struct mlx_hw_send_wqe *wqe = &qp->req.wqe;
	struct mlx_hw_pkt pkt;
	u8 status;

	if (wqe->opcode == MLX_HW_OP_LOCAL_INV ||
	    wqe->opcode == MLX_HW_OP_BIND_MW) {
		status = wqe->opcode == MLX_HW_OP_LOCAL_INV ?
			 mlx_hw_local_inv(qp) : mlx_hw_bind_mw(qp, &wqe->bind);
		mlx_hw_complete_wqe(qp, status, 0);
		return status ? MLX_HW_COMP_ERROR : MLX_HW_COMP_DONE;
	}
	if (!mlx_hw_pkt_address(qp, &pkt)) {
		/* No source GID: the packet cannot leave the port. */
		if (!mlx_hw_qp_reliable(qp->ibx.qp_type)) {
			mlx_hw_complete_wqe(qp, 0, wqe->sgl.total);
			return MLX_HW_COMP_DONE;
		}
		qp->req.resp.kind = MLX_HW_RESP_NONE;
		return mlx_hw_completer(qp, &pkt, &qp->req.resp);
	}

	switch (wqe->opcode) {
	case MLX_HW_OP_RDMA_READ:
		pkt.op = MLX_HW_PKT_READ_REQ;
		break;
	case MLX_HW_OP_ATOMIC_CS:
		pkt.op = MLX_HW_PKT_CMP_SWP;
		break;
	case MLX_HW_OP_ATOMIC_FA:
		pkt.op = MLX_HW_PKT_FETCH_ADD;
		break;
	default:
		return mlx_hw_req_message(qp, &pkt);
	}
	/* Single-packet requests: READ and atomics (RC only). */
	pkt.flags = MLX_HW_PKT_FIRST | MLX_HW_PKT_LAST;
	pkt.psn = qp->sq_psn;
	pkt.va = wqe->raddr;
	pkt.rkey = wqe->rkey;
	pkt.dma_len = wqe->sgl.total;
	pkt.swap_add = wqe->swap_add;
	pkt.compare = wqe->compare;
	mlx_hw_loopback_xmit(to_mdev(qp->ibx.dev), &pkt, &qp->req.resp);
	return mlx_hw_completer(qp, &pkt, &qp->req.resp);
}

/* Copies the WQE at sq_ci out of the ring and validates it. */
static void mlx_hw_fetch_wqe(struct mlx_hw_qp *qp)
{
	u32 mtu;
	u8 status;

	memcpy(qp->wqe_buf,
	       qp->sq + (qp->sq_ci & (qp->sq_wqe_cnt - 1)) * qp->sq_stride,
	       qp->sq_stride);
	qp->req.have_wqe = true;
	qp->req.pkt_idx = 0;
	qp->req.retries = 0;
	qp->req.rnr_retries = 0;
	qp->req.waiting = false;
	status = mlx_hw_parse_wqe(qp);
	if (status) {
		mlx_hw_complete_wqe(qp, status, 0);
		/*
		 * A WQE no provider writes (unknown opcode or one the QP type
		 * lacks, impossible segment count or inline length): a local
		 * work queue catastrophic error besides the completion.
		 */
		if (status == MLX_HW_WC_LOC_QP_OP_ERR)
			ibx_qp_event(&qp->ibx, IBX_EVENT_QP_FATAL);
		return;
	}
	mtu = qp->ibx.qp_type == IB_UVERBS_QPT_UD ?
	      READ_ONCE(to_mdev(qp->ibx.dev)->mtu) : qp->mtu;
	qp->req.npkts = max_t(u32, 1, DIV_ROUND_UP(qp->req.wqe.sgl.total, mtu));
}

/*
 * Runs up to MLX_HW_WQE_BUDGET WQEs of a QP in RTS (in SQD: only the one in
 * flight); sq_lock held.
 * Returns true if it did anything; lowers *next_timer to the time a
 * waiting retry is due.
 */
bool mlx_hw_requester(struct mlx_hw_qp *qp, u64 *next_timer)
{
	unsigned int budget = MLX_HW_WQE_BUDGET;
	bool did = false;
	u32 pi;

	while (budget--) {
		int state = READ_ONCE(qp->state);

		/* SQD finishes the message in flight but starts no new one. */
		if (state != IBX_QPS_RTS &&
		    !(state == IBX_QPS_SQD && qp->req.have_wqe))
			break;
		if (!qp->req.have_wqe) {
			if (qp->db_corrupt)
				break;
			pi = le32_to_cpu(READ_ONCE(qp->db->sq_pi));
			if (pi == qp->sq_ci)
				break;
			if (pi - qp->sq_ci > qp->sq_wqe_cnt) {
				qp->db_corrupt = true;
				mlx_hw_qp_to_err(qp);
				ibx_qp_event(&qp->ibx, IBX_EVENT_QP_FATAL);
				break;
			}
			/* The index is read before the WQE it publishes. */
			smp_rmb();
			mlx_hw_fetch_wqe(qp);
			did = true;
			if (!qp->req.have_wqe)
				continue;	/* completed in error */
		}
		if (qp->req.waiting) {
			if (local_clock() < qp->req.wait_until) {
				*next_timer = min(*next_timer, qp->req.wait_until);
				break;
			}
			qp->req.waiting = false;
		}
		did = true;
		/* Keys are looked up again after a wait (MRs may be gone). */
		if (mlx_hw_sgl_unpark(to_mdev(qp->ibx.dev), qp,
				      &qp->req.wqe.sgl)) {
			mlx_hw_complete_wqe(qp, MLX_HW_WC_LOC_PROT_ERR, 0);
			continue;
		}
		switch (mlx_hw_req_execute(qp)) {
		case MLX_HW_COMP_RETRY:
			mlx_hw_sgl_park(&qp->req.wqe.sgl);
			*next_timer = min(*next_timer, qp->req.wait_until);
			return did;
		case MLX_HW_COMP_YIELD:
			mlx_hw_sgl_park(&qp->req.wqe.sgl);
			return did;
		default:
			break;
		}
	}
	return did;
}
