// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * responder.c - the receive side of a QP (IBA 9.7.4, 9.9): executes one
 * packet descriptor against the destination QP: PSN check, receive WQE
 * consumption (RQ or SRQ), data placement, RDMA WRITE/READ, atomics, and
 * the ACK/NAK answered to the requester.  Called with qp->rq_lock held.
 */
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ip.h>
#include "mlx_hw.h"

/* Signed distance of two 24-bit PSNs. */
static int mlx_hw_psn_diff(u32 a, u32 b)
{
	return ((s32)((a - b) << 8)) >> 8;
}

/*
 * Writes a receive CQE for the current receive WQE and releases it, the
 * QP state unchanged.  An XRC TGT QP completes to the CQ of the XRC SRQ
 * (IBA A14), with its own QP number in the CQE.
 */
static void mlx_hw_recv_cqe(struct mlx_hw_qp *qp, u8 status, u8 opcode,
			    u32 byte_len, u32 wc_flags, __be32 imm,
			    u32 inv_rkey, u32 src_qp, bool solicited)
{
	struct ibx_cq *cq = qp->resp.xsrq ? qp->resp.xsrq->ibx.cq :
					    qp->ibx.recv_cq;
	struct mlx_hw_cqe cqe = {};

	cqe.wr_id = cpu_to_le64(qp->resp.rwqe.wr_id);
	cqe.status = status;
	cqe.opcode = opcode;
	cqe.qp_num = cpu_to_le32(qp->ibx.qp_num);
	if (!status) {
		cqe.byte_len = cpu_to_le32(byte_len);
		cqe.wc_flags = cpu_to_le32(wc_flags);
		cqe.src_qp = cpu_to_le32(src_qp);
		if (wc_flags & MLX_HW_WC_WITH_IMM)
			cqe.imm_data = imm;
		else if (wc_flags & MLX_HW_WC_WITH_INV)
			cqe.invalidated_rkey = cpu_to_le32(inv_rkey);
	} else {
		mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_ERR_CQES, 1);
	}
	mlx_hw_sgl_release(&qp->resp.rwqe.sgl);
	qp->resp.have_rwqe = false;
	if (mlx_hw_cq_post(to_mcq(cq), &cqe, solicited) &&
	    READ_ONCE(qp->state) != IBX_QPS_ERR) {
		mlx_hw_qp_to_err(qp);
		ibx_qp_event(&qp->ibx, IBX_EVENT_QP_FATAL);
	}
}

/* As mlx_hw_recv_cqe(); an error completion moves the QP to ERR. */
static void mlx_hw_recv_complete(struct mlx_hw_qp *qp, u8 status, u8 opcode,
				 u32 byte_len, u32 wc_flags, __be32 imm,
				 u32 inv_rkey, u32 src_qp, bool solicited)
{
	mlx_hw_recv_cqe(qp, status, opcode, byte_len, wc_flags, imm, inv_rkey,
			src_qp, solicited);
	if (status)
		mlx_hw_qp_to_err(qp);
}

/*
 * Parses a receive WQE at @slot into qp->resp.rwqe.  Each field is read
 * once from the ring.  Returns 0 or the ibv_wc_status it completes with.
 */
static u8 mlx_hw_parse_rwqe(struct mlx_hw_qp *qp, const void *slot,
			    u32 max_sge, struct mlx_hw_pd *pd)
{
	struct mlx_hw_recv_wqe *rwqe = &qp->resp.rwqe;
	const struct mlx_hw_wqe_data *d = slot + sizeof(struct mlx_hw_rwqe);
	struct mlx_hw_rwqe hdr;
	struct mlx_hw_wqe_data seg;
	u32 num, i;
	int err;

	memcpy(&hdr, slot, sizeof(hdr));
	rwqe->wr_id = le64_to_cpu(hdr.wr_id);
	mlx_hw_sgl_init(&rwqe->sgl);
	qp->resp.have_rwqe = true;
	num = le32_to_cpu(hdr.num_sge);
	if (num > max_sge)
		return MLX_HW_WC_LOC_QP_OP_ERR;
	for (i = 0; i < num; i++) {
		memcpy(&seg, &d[i], sizeof(seg));
		err = mlx_hw_sgl_add(to_mdev(qp->ibx.dev), pd, &rwqe->sgl,
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

	mutex_lock(&srq->lock);
	pi = le32_to_cpu(READ_ONCE(srq->db->pi));
	if (pi == srq->ci || pi - srq->ci > srq->wqe_cnt) {
		mutex_unlock(&srq->lock);
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
	mutex_unlock(&srq->lock);
	if (limit_event)
		ibx_srq_event(&srq->ibx, IBX_EVENT_SRQ_LIMIT_REACHED);
	return status;
}

/*
 * Takes the next receive WQE into qp->resp.rwqe.  Returns 0, -EAGAIN if
 * none is posted, or a positive ibv_wc_status for a malformed WQE (the
 * WQE is then taken and must be completed with that status).
 */
static int mlx_hw_take_rwqe(struct mlx_hw_qp *qp)
{
	u32 pi;
	int status;

	if (qp->resp.xsrq)
		return mlx_hw_take_srq(qp, qp->resp.xsrq);
	if (qp->ibx.srq)
		return mlx_hw_take_srq(qp, to_msrq(qp->ibx.srq));
	pi = le32_to_cpu(READ_ONCE(qp->db->rq_pi));
	if (pi == qp->rq_ci)
		return -EAGAIN;
	if (pi - qp->rq_ci > qp->rq_wqe_cnt) {
		if (!qp->db_corrupt) {
			qp->db_corrupt = true;
			mlx_hw_qp_to_err(qp);
			ibx_qp_event(&qp->ibx, IBX_EVENT_QP_FATAL);
		}
		return -EAGAIN;
	}
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

void mlx_hw_resp_release(struct mlx_hw_qp *qp)
{
	mlx_hw_sgl_release(&qp->resp.rwqe.sgl);
	mlx_hw_sgl_release(&qp->resp.wr_dst);
	qp->resp.have_rwqe = false;
	qp->resp.in_msg = false;
}

/* Flushes receive WQEs of a QP in ERR; rq_lock held.  Returns the count. */
int mlx_hw_recv_flush(struct mlx_hw_qp *qp)
{
	unsigned int budget = MLX_HW_WQE_BUDGET * 4;
	struct mlx_hw_rwqe hdr;
	int n = 0;
	u32 pi;

	if (qp->ibx.qp_type == IB_UVERBS_QPT_XRC_TGT) {
		/* The WQE of a message in progress goes back to its SRQ's CQ. */
		if (qp->resp.have_rwqe)
			qp->resp.xsrq = mlx_hw_srq_get(to_mdev(qp->ibx.dev),
						       qp->resp.xrc_srqn);
		if (qp->resp.xsrq) {
			mlx_hw_recv_complete(qp, MLX_HW_WC_WR_FLUSH_ERR,
					     MLX_HW_WC_RECV, 0, 0, 0, 0, 0,
					     false);
			mlx_hw_srq_put(qp->resp.xsrq);
			qp->resp.xsrq = NULL;
			n++;
		}
		mlx_hw_resp_release(qp);
		return n;
	}
	if (qp->resp.have_rwqe) {
		mlx_hw_recv_complete(qp, MLX_HW_WC_WR_FLUSH_ERR, MLX_HW_WC_RECV,
				     0, 0, 0, 0, 0, false);
		n++;
	}
	mlx_hw_resp_release(qp);
	if (qp->ibx.srq || qp->db_corrupt)
		return n;
	pi = le32_to_cpu(READ_ONCE(qp->db->rq_pi));
	if (pi - qp->rq_ci > qp->rq_wqe_cnt)
		return n;
	/* The index is read before the WQEs it publishes. */
	smp_rmb();
	while (qp->rq_ci != pi && budget--) {
		memcpy(&hdr, qp->rq + (qp->rq_ci & (qp->rq_wqe_cnt - 1)) *
			     qp->rq_stride, sizeof(hdr));
		qp->resp.rwqe.wr_id = le64_to_cpu(hdr.wr_id);
		mlx_hw_sgl_init(&qp->resp.rwqe.sgl);
		qp->resp.have_rwqe = true;
		qp->rq_ci++;
		/* Slot free before its CQE (as a taken WQE's, docs/prm.md 3.1). */
		smp_store_release(&qp->db->rq_ci, cpu_to_le32(qp->rq_ci));
		mlx_hw_recv_complete(qp, MLX_HW_WC_WR_FLUSH_ERR, MLX_HW_WC_RECV,
				     0, 0, 0, 0, 0, false);
		n++;
	}
	return n;
}

/* Responder errors: the QP goes to ERR with an affiliated event. */
static void mlx_hw_resp_error(struct mlx_hw_qp *qp, struct mlx_hw_resp *resp,
			      enum mlx_hw_resp_kind kind,
			      enum ibx_event_type event)
{
	resp->kind = kind;
	mlx_hw_sgl_release(&qp->resp.wr_dst);
	qp->resp.in_msg = false;
	/* UC: a broken message is dropped silently (IBA 9.9.1). */
	if (!mlx_hw_qp_reliable(qp->ibx.qp_type)) {
		resp->kind = MLX_HW_RESP_NONE;
		return;
	}
	if (READ_ONCE(qp->state) != IBX_QPS_ERR) {
		mlx_hw_qp_to_err(qp);
		ibx_qp_event(&qp->ibx, event);
	}
}

/*
 * A receive WQE that cannot take the message: the event first (completing
 * the WQE in error moves the QP to ERR, which would suppress it).
 */
static void mlx_hw_resp_recv_error(struct mlx_hw_qp *qp,
				   struct mlx_hw_resp *resp, u8 status,
				   enum mlx_hw_resp_kind kind,
				   enum ibx_event_type event)
{
	mlx_hw_resp_error(qp, resp, kind, event);
	mlx_hw_recv_complete(qp, status, MLX_HW_WC_RECV, 0, 0, 0, 0, 0, false);
}

/*
 * A UC or UD message longer than its receive WQE.  IBA 9.9.3 (responder
 * error classes D and E; rxe alike): no NAK, no affiliated event, and the
 * QP stays in its state.  A WQE of the QP's own RQ is not consumed (class
 * D): the message is dropped and the WQE waits, rewound, for the next
 * one.  A WQE taken from an SRQ cannot be given back (class E): it
 * completes with IBV_WC_LOC_LEN_ERR.  Either way the rest of a UC message
 * is dropped (it is no longer in progress).
 */
static void mlx_hw_resp_unreliable_too_long(struct mlx_hw_qp *qp)
{
	qp->resp.in_msg = false;
	if (qp->ibx.srq)
		mlx_hw_recv_cqe(qp, MLX_HW_WC_LOC_LEN_ERR, MLX_HW_WC_RECV, 0, 0,
				0, 0, 0, false);
}

/* Takes a receive WQE or answers RNR NAK (RC) / drops (UC, UD). */
static bool mlx_hw_resp_get_rwqe(struct mlx_hw_qp *qp, struct mlx_hw_resp *resp)
{
	int ret;

	if (qp->resp.have_rwqe)
		return true;
	ret = mlx_hw_take_rwqe(qp);
	if (ret == -EAGAIN) {
		if (mlx_hw_qp_reliable(qp->ibx.qp_type)) {
			resp->kind = MLX_HW_RESP_RNR_NAK;
			resp->rnr_timer = qp->min_rnr_timer;
			mlx_hw_count(to_mdev(qp->ibx.dev),
				     MLX_HW_CNT_RNR_NAKS_SENT, 1);
		}
		return false;
	}
	if (ret) {
		mlx_hw_resp_recv_error(qp, resp, ret, MLX_HW_RESP_NAK_REM_OP,
				       IBX_EVENT_QP_FATAL);
		return false;
	}
	return true;
}

/* SEND FIRST/MIDDLE/LAST/ONLY on RC/UC. */
static void mlx_hw_resp_send(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt,
			     struct mlx_hw_resp *resp)
{
	u32 flags = 0;

	if (pkt->flags & MLX_HW_PKT_FIRST) {
		if (qp->resp.in_msg && mlx_hw_qp_reliable(qp->ibx.qp_type)) {
			mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
					  IBX_EVENT_QP_REQ_ERR);
			return;
		}
		if (!mlx_hw_resp_get_rwqe(qp, resp))
			return;
		qp->resp.in_msg = true;
		qp->resp.op = MLX_HW_PKT_SEND;
		qp->resp.offset = 0;
		qp->resp.cur.sgl = &qp->resp.rwqe.sgl;
		qp->resp.cur.idx = 0;
		qp->resp.cur.off = 0;
	} else if (!qp->resp.in_msg || qp->resp.op != MLX_HW_PKT_SEND) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
				  IBX_EVENT_QP_REQ_ERR);
		return;
	}

	if ((u64)qp->resp.offset + pkt->paylen > qp->resp.rwqe.sgl.total) {
		if (!mlx_hw_qp_reliable(qp->ibx.qp_type)) {
			mlx_hw_resp_unreliable_too_long(qp);
			return;
		}
		/* IBA 9.9.3.1.2: receive buffer too small. */
		mlx_hw_resp_recv_error(qp, resp, MLX_HW_WC_LOC_LEN_ERR,
				       MLX_HW_RESP_NAK_INV_REQ,
				       IBX_EVENT_QP_REQ_ERR);
		return;
	}
	if (mlx_hw_copy(&qp->resp.cur, &pkt->payload, pkt->paylen)) {
		mlx_hw_resp_recv_error(qp, resp, MLX_HW_WC_LOC_PROT_ERR,
				       MLX_HW_RESP_NAK_REM_OP,
				       IBX_EVENT_QP_FATAL);
		return;
	}
	qp->resp.offset += pkt->paylen;
	if (pkt->flags & MLX_HW_PKT_LAST) {
		if (pkt->flags & MLX_HW_PKT_IMM)
			flags |= MLX_HW_WC_WITH_IMM;
		if (pkt->flags & MLX_HW_PKT_INV) {
			/* An invalid key is ignored: the CQE still says so. */
			mlx_hw_invalidate(to_mdev(qp->ibx.dev),
					  mlx_hw_resp_pd(qp), pkt->inv_rkey);
			flags |= MLX_HW_WC_WITH_INV;
		}
		mlx_hw_recv_complete(qp, 0, MLX_HW_WC_RECV, qp->resp.offset,
				     flags, pkt->imm_data, pkt->inv_rkey, 0,
				     pkt->flags & MLX_HW_PKT_SOLICITED);
		qp->resp.in_msg = false;
	}
	qp->rq_psn = (qp->rq_psn + 1) & 0xffffff;
	resp->kind = MLX_HW_RESP_ACK;
}

/* RDMA WRITE FIRST/MIDDLE/LAST/ONLY (with immediate on the last). */
static void mlx_hw_resp_write(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt,
			      struct mlx_hw_resp *resp)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	bool imm = pkt->flags & MLX_HW_PKT_IMM;

	if (pkt->flags & MLX_HW_PKT_FIRST) {
		if (qp->resp.in_msg && mlx_hw_qp_reliable(qp->ibx.qp_type)) {
			mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
					  IBX_EVENT_QP_REQ_ERR);
			return;
		}
		mlx_hw_sgl_release(&qp->resp.wr_dst);
		/* A zero-length WRITE checks no key (IBA 9.7.4.1.5). */
		if (pkt->dma_len &&
		    mlx_hw_sgl_set_remote(dev, qp, &qp->resp.wr_dst, pkt->rkey,
					  pkt->va, pkt->dma_len,
					  IB_UVERBS_ACCESS_REMOTE_WRITE)) {
			mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_REM_ACCESS,
					  IBX_EVENT_QP_ACCESS_ERR);
			return;
		}
		qp->resp.in_msg = true;
		qp->resp.op = MLX_HW_PKT_WRITE;
		qp->resp.offset = 0;
		qp->resp.cur.sgl = &qp->resp.wr_dst;
		qp->resp.cur.idx = 0;
		qp->resp.cur.off = 0;
	} else if (!qp->resp.in_msg || qp->resp.op != MLX_HW_PKT_WRITE) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
				  IBX_EVENT_QP_REQ_ERR);
		return;
	}

	/* WRITE with immediate consumes a receive WQE, on its last packet. */
	if ((pkt->flags & MLX_HW_PKT_LAST) && imm &&
	    !mlx_hw_resp_get_rwqe(qp, resp))
		return;
	if ((u64)qp->resp.offset + pkt->paylen > qp->resp.wr_dst.total ||
	    mlx_hw_copy(&qp->resp.cur, &pkt->payload, pkt->paylen)) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
				  IBX_EVENT_QP_REQ_ERR);
		return;
	}
	qp->resp.offset += pkt->paylen;
	if (pkt->flags & MLX_HW_PKT_LAST) {
		if (imm)
			mlx_hw_recv_complete(qp, 0, MLX_HW_WC_RECV_RDMA_WITH_IMM,
					     qp->resp.offset, MLX_HW_WC_WITH_IMM,
					     pkt->imm_data, 0, 0,
					     pkt->flags & MLX_HW_PKT_SOLICITED);
		mlx_hw_sgl_release(&qp->resp.wr_dst);
		qp->resp.in_msg = false;
	}
	qp->rq_psn = (qp->rq_psn + 1) & 0xffffff;
	resp->kind = MLX_HW_RESP_ACK;
}

/* RDMA READ request: the response references the source range. */
static void mlx_hw_resp_read(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt,
			     struct mlx_hw_resp *resp)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);

	mlx_hw_sgl_release(&resp->read_src);
	if (pkt->dma_len &&
	    mlx_hw_sgl_set_remote(dev, qp, &resp->read_src, pkt->rkey, pkt->va,
				  pkt->dma_len, IB_UVERBS_ACCESS_REMOTE_READ)) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_REM_ACCESS,
				  IBX_EVENT_QP_ACCESS_ERR);
		return;
	}
	/* A READ consumes one PSN per response packet (IBA 9.7.4.1.4). */
	resp->psn_span = max_t(u32, 1, DIV_ROUND_UP(pkt->dma_len, qp->mtu));
	qp->rq_psn = (qp->rq_psn + resp->psn_span) & 0xffffff;
	resp->kind = MLX_HW_RESP_ACK;
}

static void mlx_hw_resp_atomic(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt,
			       struct mlx_hw_resp *resp)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_sgl *dst = &qp->resp.wr_dst;
	int err;

	/* IBA 9.4.5: the address must be 8-byte aligned. */
	if (pkt->va & 7) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
				  IBX_EVENT_QP_REQ_ERR);
		return;
	}
	mlx_hw_sgl_release(dst);
	if (mlx_hw_sgl_set_remote(dev, qp, dst, pkt->rkey, pkt->va, 8,
				  IB_UVERBS_ACCESS_REMOTE_ATOMIC)) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_REM_ACCESS,
				  IBX_EVENT_QP_ACCESS_ERR);
		return;
	}
	err = mlx_hw_atomic(&dst->seg[0], pkt->op == MLX_HW_PKT_CMP_SWP,
			    pkt->swap_add, pkt->compare, &resp->atomic_orig);
	mlx_hw_sgl_release(dst);
	if (err) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
				  IBX_EVENT_QP_REQ_ERR);
		return;
	}
	resp->psn_span = 1;
	qp->rq_psn = (qp->rq_psn + 1) & 0xffffff;
	resp->kind = MLX_HW_RESP_ACK;
}

/* Builds the 40 bytes a UD receive gets in front of the payload. */
static void mlx_hw_build_grh(const struct mlx_hw_pkt *pkt, u8 *grh)
{
	memset(grh, 0, MLX_HW_GRH_LEN);
	if (ipv6_addr_v4mapped((const struct in6_addr *)pkt->sgid.raw)) {
		/* RoCEv2 over IPv4: the IPv4 header in the last 20 bytes. */
		struct iphdr *iph = (struct iphdr *)(grh + 20);

		iph->version = 4;
		iph->ihl = 5;
		iph->tos = pkt->traffic_class;
		/* IP + UDP + BTH + DETH + payload + ICRC */
		iph->tot_len = htons(20 + 8 + 12 + 8 + pkt->paylen + 4);
		iph->ttl = pkt->hop_limit;
		iph->protocol = IPPROTO_UDP;
		memcpy(&iph->saddr, &pkt->sgid.raw[12], 4);
		memcpy(&iph->daddr, &pkt->dgid.raw[12], 4);
		iph->check = ip_fast_csum((u8 *)iph, iph->ihl);
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)grh;

		ip6h->version = 6;
		ip6h->priority = pkt->traffic_class >> 4;
		ip6h->flow_lbl[0] = ((pkt->traffic_class & 0xf) << 4) |
				    ((pkt->flow_label >> 16) & 0xf);
		ip6h->flow_lbl[1] = pkt->flow_label >> 8;
		ip6h->flow_lbl[2] = pkt->flow_label;
		ip6h->payload_len = htons(8 + 12 + 8 + pkt->paylen + 4);
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = pkt->hop_limit;
		memcpy(&ip6h->saddr, pkt->sgid.raw, 16);
		memcpy(&ip6h->daddr, pkt->dgid.raw, 16);
	}
}

/* UD SEND ONLY: Q_Key check, GRH, payload. */
static void mlx_hw_resp_ud(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt,
			   struct mlx_hw_resp *resp)
{
	u8 grh[MLX_HW_GRH_LEN];
	u32 flags = MLX_HW_WC_GRH;

	/* IBA C10-102: a wrong Q_Key drops the datagram silently. */
	if (pkt->qkey != qp->qkey)
		return;
	/* A WQE kept from a dropped datagram: take its MR references again. */
	if (qp->resp.have_rwqe &&
	    mlx_hw_sgl_unpark(to_mdev(qp->ibx.dev), qp, &qp->resp.rwqe.sgl)) {
		mlx_hw_recv_complete(qp, MLX_HW_WC_LOC_PROT_ERR, MLX_HW_WC_RECV,
				     0, 0, 0, 0, 0, false);
		return;
	}
	if (!mlx_hw_resp_get_rwqe(qp, resp))
		return;
	qp->resp.cur.sgl = &qp->resp.rwqe.sgl;
	qp->resp.cur.idx = 0;
	qp->resp.cur.off = 0;
	if ((u64)pkt->paylen + MLX_HW_GRH_LEN > qp->resp.rwqe.sgl.total) {
		mlx_hw_resp_unreliable_too_long(qp);
		/* Nothing pins an MR while the WQE waits. */
		mlx_hw_sgl_park(&qp->resp.rwqe.sgl);
		return;
	}
	mlx_hw_build_grh(pkt, grh);
	if (mlx_hw_copy_from_kbuf(&qp->resp.cur, grh, sizeof(grh)) ||
	    mlx_hw_copy(&qp->resp.cur, &pkt->payload, pkt->paylen)) {
		mlx_hw_recv_complete(qp, MLX_HW_WC_LOC_PROT_ERR, MLX_HW_WC_RECV,
				     0, 0, 0, 0, 0, false);
		return;
	}
	if (pkt->flags & MLX_HW_PKT_IMM)
		flags |= MLX_HW_WC_WITH_IMM;
	mlx_hw_recv_complete(qp, 0, MLX_HW_WC_RECV,
			     pkt->paylen + MLX_HW_GRH_LEN, flags,
			     pkt->imm_data, 0, pkt->src_qpn,
			     pkt->flags & MLX_HW_PKT_SOLICITED);
}

/*
 * RDMA and atomic requests must be enabled by the QP's access flags; a
 * request the QP does not support is an invalid request (IBA ch. 9
 * responder error class C: RC answers an Invalid Request NAK, UC drops
 * it), not an R_Key violation.
 */
static bool mlx_hw_resp_op_enabled(struct mlx_hw_qp *qp,
				   const struct mlx_hw_pkt *pkt)
{
	switch (pkt->op) {
	case MLX_HW_PKT_WRITE:
		return qp->access & IB_UVERBS_ACCESS_REMOTE_WRITE;
	case MLX_HW_PKT_READ_REQ:
		return qp->access & IB_UVERBS_ACCESS_REMOTE_READ;
	case MLX_HW_PKT_CMP_SWP:
	case MLX_HW_PKT_FETCH_ADD:
		return qp->access & IB_UVERBS_ACCESS_REMOTE_ATOMIC;
	default:
		return true;
	}
}

/*
 * IBA 11.6.3: the first packet a connected QP receives while in RTR raises
 * the affiliated event Communication Established (once per entry to RTR).
 */
static void mlx_hw_resp_comm_est(struct mlx_hw_qp *qp, int state)
{
	if (state != IBX_QPS_RTR || qp->ibx.qp_type == IB_UVERBS_QPT_UD ||
	    qp->comm_est)
		return;
	qp->comm_est = true;
	ibx_qp_event(&qp->ibx, IBX_EVENT_COMM_EST);
}

/* Which sender's packets a QP accepts: its own type, XRC INI for TGT. */
static bool mlx_hw_pkt_type_ok(u32 qp_type, u32 pkt_type)
{
	if (qp_type == IB_UVERBS_QPT_XRC_TGT)
		return pkt_type == IB_UVERBS_QPT_XRC_INI;
	return qp_type == pkt_type;
}

/*
 * XRC TGT: the XRCETH names the XRC SRQ that receives (IBA A14.4.1); it
 * must be an XRC SRQ of the TGT QP's domain, and stay the same within a
 * message.  Otherwise the request is invalid.  Takes a reference for the
 * duration of the packet.
 */
static bool mlx_hw_resp_xrc_srq(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt)
{
	struct mlx_hw_srq *srq;

	if (qp->resp.in_msg && pkt->xrc_srqn != qp->resp.xrc_srqn)
		return false;
	srq = mlx_hw_srq_get(to_mdev(qp->ibx.dev), pkt->xrc_srqn);
	if (!srq)
		return false;
	if (srq->ibx.srq_type != IB_UVERBS_SRQT_XRC ||
	    srq->ibx.xrcd != qp->ibx.xrcd) {
		mlx_hw_srq_put(srq);
		return false;
	}
	qp->resp.xsrq = srq;
	qp->resp.xrc_srqn = pkt->xrc_srqn;
	return true;
}

static void mlx_hw_responder_packet(struct mlx_hw_qp *qp,
				    struct mlx_hw_pkt *pkt,
				    struct mlx_hw_resp *resp)
{
	int state = READ_ONCE(qp->state);
	int diff;

	resp->kind = MLX_HW_RESP_NONE;
	/* IBA 10.3.1: only RTR, RTS and SQD QPs accept packets. */
	if (state != IBX_QPS_RTR && state != IBX_QPS_RTS &&
	    state != IBX_QPS_SQD)
		return;
	if (!mlx_hw_pkt_type_ok(qp->ibx.qp_type, pkt->qp_type))
		return;
	mlx_hw_resp_comm_est(qp, state);
	if (qp->ibx.qp_type == IB_UVERBS_QPT_XRC_TGT &&
	    !mlx_hw_resp_xrc_srq(qp, pkt)) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
				  IBX_EVENT_QP_REQ_ERR);
		return;
	}

	switch (qp->ibx.qp_type) {
	case IB_UVERBS_QPT_UD:
		if (pkt->op == MLX_HW_PKT_SEND)
			mlx_hw_resp_ud(qp, pkt, resp);
		return;
	case IB_UVERBS_QPT_UC:
		/* No PSN tracking beyond following the sender. */
		qp->rq_psn = pkt->psn;
		break;
	default:
		diff = mlx_hw_psn_diff(pkt->psn, qp->rq_psn);
		if (diff < 0) {
			/* Duplicate (IBA 9.9.2.1): acknowledge again. */
			if (pkt->op == MLX_HW_PKT_READ_REQ) {
				u32 saved = qp->rq_psn;

				mlx_hw_resp_read(qp, pkt, resp);
				qp->rq_psn = saved;
			} else {
				resp->kind = MLX_HW_RESP_ACK;
			}
			return;
		}
		if (diff > 0) {
			resp->kind = MLX_HW_RESP_NAK_SEQ;
			return;
		}
		break;
	}

	/* A message in progress: take its MR references again. */
	if (qp->resp.have_rwqe &&
	    mlx_hw_sgl_unpark(to_mdev(qp->ibx.dev), qp, &qp->resp.rwqe.sgl)) {
		mlx_hw_resp_recv_error(qp, resp, MLX_HW_WC_LOC_PROT_ERR,
				       MLX_HW_RESP_NAK_REM_OP,
				       IBX_EVENT_QP_FATAL);
		goto out;
	}
	if (qp->resp.in_msg &&
	    mlx_hw_sgl_unpark(to_mdev(qp->ibx.dev), qp, &qp->resp.wr_dst)) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_REM_ACCESS,
				  IBX_EVENT_QP_ACCESS_ERR);
		goto out;
	}

	if (!mlx_hw_resp_op_enabled(qp, pkt)) {
		mlx_hw_resp_error(qp, resp, MLX_HW_RESP_NAK_INV_REQ,
				  IBX_EVENT_QP_REQ_ERR);
		goto out;
	}
	switch (pkt->op) {
	case MLX_HW_PKT_SEND:
		mlx_hw_resp_send(qp, pkt, resp);
		break;
	case MLX_HW_PKT_WRITE:
		mlx_hw_resp_write(qp, pkt, resp);
		break;
	case MLX_HW_PKT_READ_REQ:
		mlx_hw_resp_read(qp, pkt, resp);
		break;
	case MLX_HW_PKT_CMP_SWP:
	case MLX_HW_PKT_FETCH_ADD:
		mlx_hw_resp_atomic(qp, pkt, resp);
		break;
	}
out:
	/* Between packets nothing pins an MR (deregistration must not wait). */
	mlx_hw_sgl_park(&qp->resp.rwqe.sgl);
	mlx_hw_sgl_park(&qp->resp.wr_dst);
	if (qp->ibx.qp_type == IB_UVERBS_QPT_UC)
		resp->kind = MLX_HW_RESP_NONE;
}

void mlx_hw_responder(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt,
		      struct mlx_hw_resp *resp)
{
	mlx_hw_responder_packet(qp, pkt, resp);
	if (qp->resp.xsrq) {
		mlx_hw_srq_put(qp->resp.xsrq);
		qp->resp.xsrq = NULL;
	}
}
