// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * resp.c - the responder (IBA 9.7.4 and 9.9): it takes the requests queued
 * on its QP in PSN order and, for each, checks sequence, operation,
 * resources, length and keys, executes it (receive WQEs from the RQ or an
 * SRQ, data placement, RDMA WRITE, READ, atomics) and answers: coalesced
 * ACKs where the requester asked (AckReq), READ response packets, atomic
 * ACKs, and NAKs.  Duplicates are answered again, a duplicate READ
 * re-executed and a duplicate atomic answered from its saved result (the
 * resources of max_dest_rd_atomic).  Runs with qp->recv_side owned.
 *
 * The receive WQE itself (taking, flushing, its CQE) is in resp_rq.c,
 * the packets the responder sends in resp_tx.c.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include "mlx_hw.h"
#include "responder.h"

static const char *const mlx_hw_resp_state_names[] = {
	[MLX_HW_RESP_CHECK_PSN] = "CHECK_PSN",
	[MLX_HW_RESP_CHECK_OP_SEQ] = "CHECK_OP_SEQ",
	[MLX_HW_RESP_CHECK_OP_VALID] = "CHECK_OP_VALID",
	[MLX_HW_RESP_CHECK_RESOURCE] = "CHECK_RESOURCE",
	[MLX_HW_RESP_CHECK_LENGTH] = "CHECK_LENGTH",
	[MLX_HW_RESP_CHECK_RKEY] = "CHECK_RKEY",
	[MLX_HW_RESP_CHECK_PAGES] = "CHECK_PAGES",
	[MLX_HW_RESP_EXECUTE] = "EXECUTE",
	[MLX_HW_RESP_READ_REPLY] = "READ_REPLY",
	[MLX_HW_RESP_ATOMIC_REPLY] = "ATOMIC_REPLY",
	[MLX_HW_RESP_COMPLETE] = "COMPLETE",
	[MLX_HW_RESP_ACKNOWLEDGE] = "ACKNOWLEDGE",
	[MLX_HW_RESP_CLEANUP] = "CLEANUP",
	[MLX_HW_RESP_DUPLICATE] = "DUPLICATE",
	[MLX_HW_RESP_NAK] = "NAK",
	[MLX_HW_RESP_DROP] = "DROP",
	[MLX_HW_RESP_UNDONE] = "UNDONE",
	[MLX_HW_RESP_ERR_PSN_OUT_OF_SEQ] = "ERR_PSN_OUT_OF_SEQ",
	[MLX_HW_RESP_ERR_RNR] = "ERR_RNR",
	[MLX_HW_RESP_ERR_MISSING_FIRST] = "ERR_MISSING_FIRST",
	[MLX_HW_RESP_ERR_MISSING_LAST] = "ERR_MISSING_LAST",
	[MLX_HW_RESP_ERR_UNSUPPORTED_OP] = "ERR_UNSUPPORTED_OP",
	[MLX_HW_RESP_ERR_XRC_SRQ] = "ERR_XRC_SRQ",
	[MLX_HW_RESP_ERR_LENGTH] = "ERR_LENGTH",
	[MLX_HW_RESP_ERR_TOO_LONG] = "ERR_TOO_LONG",
	[MLX_HW_RESP_ERR_MISALIGNED_ATOMIC] = "ERR_MISALIGNED_ATOMIC",
	[MLX_HW_RESP_ERR_RKEY_VIOLATION] = "ERR_RKEY_VIOLATION",
	[MLX_HW_RESP_ERR_WRITE_FAULT] = "ERR_WRITE_FAULT",
	[MLX_HW_RESP_ERR_ATOMIC_FAULT] = "ERR_ATOMIC_FAULT",
	[MLX_HW_RESP_ERR_BAD_RWQE] = "ERR_BAD_RWQE",
	[MLX_HW_RESP_ERR_RECV_FAULT] = "ERR_RECV_FAULT",
	[MLX_HW_RESP_ERR_PAGE_FAULT] = "ERR_PAGE_FAULT",
};
static_assert(ARRAY_SIZE(mlx_hw_resp_state_names) == MLX_HW_RESP_NUM_STATES);

/* ---------------- checks ---------------- */

/*
 * A failed request (ERR_ state @err): the NAK state answers @nak_code (RC;
 * UC drops) and moves the QP to ERR with @event; a receive WQE completes
 * with resp.recv_status if the check set one.  It ends the connection, so
 * it says which check failed, and on what (ratelimited).
 */
static enum mlx_hw_resp_state mlx_hw_resp_fail(struct mlx_hw_qp *qp,
					       const struct mlx_hw_rx *rx,
					       enum mlx_hw_resp_state err,
					       u8 nak_code,
					       enum ibx_event_type event)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_resp_side *r = &qp->resp;

	pr_info_ratelimited("%s qp %u: responder %s: psn %u (expected %u) opcode 0x%x paylen %u, message at %u of %u (%s)\n",
			    qp->ibx.dev->name, qp->ibx.qp_num,
			    mlx_hw_resp_state_names[err], pkt->psn, r->psn,
			    pkt->opcode, pkt->paylen, r->offset,
			    r->in_write ? r->length : r->rwqe.total,
			    r->in_msg ? "open" : "none");
	r->nak_syndrome = MLX_HW_AETH_NAK | nak_code;
	r->nak_fatal = true;
	r->event = event;
	return MLX_HW_RESP_NAK;
}

/* RC only: a request the responder cannot take yet (RNR, PSN gap). */
static enum mlx_hw_resp_state mlx_hw_resp_retry_nak(struct mlx_hw_qp *qp,
						    u8 syndrome)
{
	qp->resp.nak_syndrome = syndrome;
	qp->resp.nak_fatal = false;
	qp->resp.recv_status = 0;
	return MLX_HW_RESP_NAK;
}

/* What each error state answers (IBA 9.9.3; 9.7.4 for sequence NAK and RNR). */
static enum mlx_hw_resp_state mlx_hw_resp_error(struct mlx_hw_qp *qp,
						const struct mlx_hw_rx *rx,
						enum mlx_hw_resp_state err)
{
	switch (err) {
	case MLX_HW_RESP_ERR_PSN_OUT_OF_SEQ:
		return mlx_hw_resp_retry_nak(qp, MLX_HW_AETH_NAK |
					     MLX_HW_NAK_PSN_SEQ);
	case MLX_HW_RESP_ERR_RNR:
		return mlx_hw_resp_retry_nak(qp, MLX_HW_AETH_RNR_NAK |
					     qp->min_rnr_timer);
	case MLX_HW_RESP_ERR_PAGE_FAULT:
		mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_RNR_NAKS_SENT, 1);
		return mlx_hw_resp_retry_nak(qp, MLX_HW_AETH_RNR_NAK |
					     mlx_hw_odp_rnr_timer(qp));
	case MLX_HW_RESP_ERR_RKEY_VIOLATION:
		/* Class C: Remote Access Error. */
		return mlx_hw_resp_fail(qp, rx, err, MLX_HW_NAK_REM_ACCESS,
					IBX_EVENT_QP_ACCESS_ERR);
	case MLX_HW_RESP_ERR_BAD_RWQE:
	case MLX_HW_RESP_ERR_RECV_FAULT:
		/* Class A: the receive WQE failed, Remote Operational Error. */
		return mlx_hw_resp_fail(qp, rx, err, MLX_HW_NAK_REM_OP,
					IBX_EVENT_QP_FATAL);
	default:
		/* Class C: Invalid Request. */
		return mlx_hw_resp_fail(qp, rx, err, MLX_HW_NAK_INV_REQ,
					IBX_EVENT_QP_REQ_ERR);
	}
}

static enum mlx_hw_resp_state mlx_hw_resp_check_psn(struct mlx_hw_qp *qp,
						    const struct mlx_hw_rx *rx)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_resp_side *r = &qp->resp;
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	int diff;

	switch (qp->ibx.qp_type) {
	case IB_UVERBS_QPT_UD:
	case IBX_QPT_GSI:
		return MLX_HW_RESP_CHECK_RESOURCE;
	case IB_UVERBS_QPT_UC:
		/* A gap loses the message in progress (IBA 9.8.2). */
		if (pkt->psn != r->psn) {
			mlx_hw_count(dev, MLX_HW_CNT_OUT_OF_SEQ, 1);
			mlx_hw_resp_abort_msg(qp);
			if (!(pkt->mask & MLX_HW_M_FIRST))
				return MLX_HW_RESP_DROP;
			r->psn = pkt->psn;
		}
		return MLX_HW_RESP_CHECK_OP_SEQ;
	default:
		break;
	}
	diff = mlx_hw_psn_diff(pkt->psn, r->psn);
	if (diff > 0) {
		/* IBA 9.7.4.1.2: one NAK per gap, until the retry comes. */
		mlx_hw_count(dev, MLX_HW_CNT_OUT_OF_SEQ, 1);
		if (r->nak_sent) {
			mlx_hw_ackg_gap(qp, r->psn, pkt->psn, false);
			return MLX_HW_RESP_DROP;
		}
		mlx_hw_count(dev, MLX_HW_CNT_SEQ_NAKS_SENT, 1);
		return MLX_HW_RESP_ERR_PSN_OUT_OF_SEQ;
	}
	if (diff < 0) {
		mlx_hw_count(dev, MLX_HW_CNT_DUPLICATES, 1);
		return MLX_HW_RESP_DUPLICATE;
	}
	r->nak_sent = false;
	return MLX_HW_RESP_CHECK_OP_SEQ;
}

/* FIRST opens a message, MIDDLE/LAST continue the one open (IBA 9.7.4.1.3). */
static enum mlx_hw_resp_state mlx_hw_resp_check_op_seq(struct mlx_hw_qp *qp,
						       const struct mlx_hw_rx *rx)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	u32 mask = rx->pkt.mask;
	bool reliable = qp->ibx.qp_type != IB_UVERBS_QPT_UC;

	if (mask & MLX_HW_M_FIRST) {
		if (r->in_msg) {
			if (reliable)
				return MLX_HW_RESP_ERR_MISSING_LAST;
			mlx_hw_resp_abort_msg(qp);
		}
		return MLX_HW_RESP_CHECK_OP_VALID;
	}
	if (r->in_msg && r->in_write == !!(mask & MLX_HW_M_WRITE))
		return MLX_HW_RESP_CHECK_OP_VALID;
	return reliable ? MLX_HW_RESP_ERR_MISSING_FIRST : MLX_HW_RESP_DROP;
}

/*
 * RDMA and atomic requests must be enabled by the QP's access flags; a
 * request the QP does not support is an invalid request (IBA responder
 * class C: RC answers an Invalid Request NAK, UC drops it), not an R_Key
 * violation.  An XRC request must name a usable XRC SRQ (IBA A14).
 */
static enum mlx_hw_resp_state mlx_hw_resp_check_op_valid(struct mlx_hw_qp *qp,
							 const struct mlx_hw_rx *rx)
{
	u32 mask = rx->pkt.mask, need = 0;

	if (qp->ibx.qp_type == IB_UVERBS_QPT_XRC_TGT &&
	    !mlx_hw_resp_xrc_srq(qp, rx))
		return MLX_HW_RESP_ERR_XRC_SRQ;
	if (mask & MLX_HW_M_WRITE)
		need = IB_UVERBS_ACCESS_REMOTE_WRITE;
	else if (mask & MLX_HW_M_READ)
		need = IB_UVERBS_ACCESS_REMOTE_READ;
	else if (mask & MLX_HW_M_ATOMIC)
		need = IB_UVERBS_ACCESS_REMOTE_ATOMIC;
	if ((qp->access & need) == need)
		return MLX_HW_RESP_CHECK_RESOURCE;
	if (qp->ibx.qp_type == IB_UVERBS_QPT_UC)
		return MLX_HW_RESP_DROP;
	return MLX_HW_RESP_ERR_UNSUPPORTED_OP;
}

/*
 * The receive WQE a SEND (from its first packet) or a WRITE with immediate
 * (at its last) consumes; the buffers of a message in progress, again.
 */
static enum mlx_hw_resp_state mlx_hw_resp_check_resource(struct mlx_hw_qp *qp,
							 const struct mlx_hw_rx *rx)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_resp_side *r = &qp->resp;
	u32 mask = rx->pkt.mask;
	bool reliable = mlx_hw_qp_reliable(qp->ibx.qp_type);
	int ret;

	if ((mask & MLX_HW_M_SEND) ? (mask & MLX_HW_M_FIRST) :
	    (mask & MLX_HW_M_RWQE)) {
		ret = mlx_hw_resp_get_rwqe(qp);
		if (ret == -EAGAIN) {
			if (!reliable)
				return MLX_HW_RESP_DROP;
			mlx_hw_count(dev, MLX_HW_CNT_RNR_NAKS_SENT, 1);
			return MLX_HW_RESP_ERR_RNR;
		}
		if (ret) {	/* IBA responder class A: the WQE is bad */
			r->recv_status = ret;
			return MLX_HW_RESP_ERR_BAD_RWQE;
		}
	}
	if ((mask & MLX_HW_M_FIRST) || !r->in_msg)
		return MLX_HW_RESP_CHECK_LENGTH;
	/* A message in progress: its buffers' MRs are looked up again. */
	if (!r->in_write && mlx_hw_sgl_unpark(dev, qp, &r->rwqe)) {
		r->recv_status = MLX_HW_WC_LOC_PROT_ERR;
		return MLX_HW_RESP_ERR_BAD_RWQE;
	}
	if (r->in_write && mlx_hw_sgl_unpark(dev, qp, &r->wr_dst))
		return reliable ? MLX_HW_RESP_ERR_RKEY_VIOLATION :
				  MLX_HW_RESP_DROP;
	return MLX_HW_RESP_CHECK_LENGTH;
}

/* Packet sizes a connected message must have (IBA 9.7.4.1.6 / C9-..). */
static bool mlx_hw_resp_pkt_len_ok(struct mlx_hw_qp *qp,
				   const struct mlx_hw_pkt *pkt)
{
	u32 mask = pkt->mask;

	if (!(mask & (MLX_HW_M_SEND | MLX_HW_M_WRITE)))
		return true;
	if ((mask & MLX_HW_M_ONLY) == MLX_HW_M_ONLY)
		return pkt->paylen <= qp->mtu;
	if (mask & (MLX_HW_M_FIRST | MLX_HW_M_MIDDLE))
		return pkt->paylen == qp->mtu;
	return pkt->paylen && pkt->paylen <= qp->mtu;
}

/*
 * Where a request goes once its buffers are known.  A READ's pages are
 * checked whole before its first response, and an atomic's before it
 * runs.  A SEND or WRITE goes straight to EXECUTE: its copy finds an
 * unmapped ODP page itself, undoes what it placed and comes to CHECK_PAGES
 * then, so a walk of its pages first would look each one up twice.
 */
static enum mlx_hw_resp_state mlx_hw_resp_place(const struct mlx_hw_rx *rx)
{
	return (rx->pkt.mask & (MLX_HW_M_READ | MLX_HW_M_ATOMIC)) ?
	       MLX_HW_RESP_CHECK_PAGES : MLX_HW_RESP_EXECUTE;
}

static enum mlx_hw_resp_state mlx_hw_resp_check_length(struct mlx_hw_qp *qp,
						       const struct mlx_hw_rx *rx)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_resp_side *r = &qp->resp;
	bool reliable = mlx_hw_qp_reliable(qp->ibx.qp_type);
	u32 off = (pkt->mask & MLX_HW_M_FIRST) ? 0 : r->offset;
	u64 end = (u64)off + pkt->paylen;

	if (mlx_hw_qp_is_ud(qp->ibx.qp_type)) {
		if (end + MLX_HW_GRH_LEN > r->rwqe.total)
			return mlx_hw_resp_too_long(qp);
		return mlx_hw_resp_place(rx);
	}
	if (!mlx_hw_resp_pkt_len_ok(qp, pkt))
		goto invalid;
	if (pkt->mask & MLX_HW_M_SEND) {
		if (end <= r->rwqe.total)
			return MLX_HW_RESP_CHECK_RKEY;
		if (!reliable)
			return mlx_hw_resp_too_long(qp);
		/* IBA 9.9.3.1.2: the receive buffers are too small. */
		r->recv_status = MLX_HW_WC_LOC_LEN_ERR;
		return MLX_HW_RESP_ERR_TOO_LONG;
	}
	if (pkt->mask & (MLX_HW_M_WRITE | MLX_HW_M_READ)) {
		u32 len = (pkt->mask & MLX_HW_M_RETH) ?
			  mlx_hw_reth_len(mlx_hw_rx_hdr(rx, MLX_HW_RETH)) :
			  r->length;

		/* The DMA length bounds the data, and the last packet meets it. */
		if (len > MLX_HW_MAX_MSG_SZ || end > len ||
		    ((pkt->mask & MLX_HW_M_WRITE) &&
		     (pkt->mask & MLX_HW_M_LAST) && end != len))
			goto invalid;
	}
	return MLX_HW_RESP_CHECK_RKEY;
invalid:
	return reliable ? MLX_HW_RESP_ERR_LENGTH : MLX_HW_RESP_DROP;
}

/* The R_Key of a WRITE (first packet), READ or atomic (IBA 9.7.4.1.5). */
static enum mlx_hw_resp_state mlx_hw_resp_check_rkey(struct mlx_hw_qp *qp,
						     const struct mlx_hw_rx *rx)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_resp_side *r = &qp->resp;
	u32 mask = rx->pkt.mask, len = 8, rkey, access;
	struct mlx_hw_mr *mr;
	const u8 *h;
	u64 va;

	if (mask & MLX_HW_M_ATMETH) {
		h = mlx_hw_rx_hdr(rx, MLX_HW_ATMETH);
		va = mlx_hw_atmeth_va(h);
		rkey = mlx_hw_atmeth_rkey(h);
		access = IB_UVERBS_ACCESS_REMOTE_ATOMIC;
		/* IBA 9.4.5: the address must be 8-byte aligned. */
		if (va & 7)
			return MLX_HW_RESP_ERR_MISALIGNED_ATOMIC;
	} else if (mask & MLX_HW_M_RETH) {
		h = mlx_hw_rx_hdr(rx, MLX_HW_RETH);
		va = mlx_hw_reth_va(h);
		rkey = mlx_hw_reth_rkey(h);
		len = mlx_hw_reth_len(h);
		access = (mask & MLX_HW_M_WRITE) ? IB_UVERBS_ACCESS_REMOTE_WRITE :
						   IB_UVERBS_ACCESS_REMOTE_READ;
		r->length = len;
		/* A zero-length transfer checks no key (IBA 9.7.4.1.5). */
		if (!len)
			return mlx_hw_resp_place(rx);
	} else {
		return mlx_hw_resp_place(rx);
	}
	/* A READ's range is held only for its page check: each response
	 * packet resolves the key again (resp_tx.c). */
	mr = mlx_hw_sgl_set_remote(dev, qp, &r->wr_dst, rkey, va, len,
				   access) ? NULL : r->wr_dst.seg[0].mr;
	if (mr)
		return mlx_hw_resp_place(rx);
	if (qp->ibx.qp_type == IB_UVERBS_QPT_UC)
		return MLX_HW_RESP_DROP;
	return MLX_HW_RESP_ERR_RKEY_VIOLATION;
}

/*
 * ODP (odp.c): the pages a request reads or writes must be mapped for the
 * device now.  If not, they are faulted in while an RNR NAK makes the
 * requester send the packet again after the RNR timer, as ConnectX
 * answers its page faults (UC and UD have no NAK: the packet is dropped).
 * A READ is checked whole, before its first response, an atomic before it
 * runs; a SEND or WRITE comes here only when its copy found a page
 * missing (mlx_hw_resp_place()).  A fault that could not map them refuses
 * the request as an access to an unregistered range: REM_ACCESS_ERR for a
 * WRITE, READ or atomic, a local protection error on the receive WQE of a
 * SEND.
 */
static enum mlx_hw_resp_state mlx_hw_resp_check_pages(struct mlx_hw_qp *qp,
						      const struct mlx_hw_rx *rx)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_resp_side *r = &qp->resp;
	bool reliable = mlx_hw_qp_reliable(qp->ibx.qp_type);
	u64 off = (pkt->mask & MLX_HW_M_FIRST) ? 0 : r->offset;
	u64 len = pkt->paylen, end;
	const struct mlx_hw_sgl *sgl = &r->wr_dst;
	int err;

	if (pkt->mask & MLX_HW_M_READ) {
		off = 0;
		len = end = r->length;
	} else if (pkt->mask & MLX_HW_M_ATOMIC) {
		len = end = sizeof(u64);
	} else if (pkt->mask & MLX_HW_M_WRITE) {
		end = r->length;
	} else {
		sgl = &r->rwqe;
		if (mlx_hw_qp_is_ud(qp->ibx.qp_type))
			len += MLX_HW_GRH_LEN;
		end = r->rwqe.total;
	}
	if (!len || mlx_hw_sgl_mapped(sgl, off, len))
		return MLX_HW_RESP_EXECUTE;
	err = mlx_hw_odp_wait(qp, &r->odp_fault, sgl, off, end - off);
	if (pkt->mask & MLX_HW_M_READ)
		mlx_hw_sgl_release(&r->wr_dst);
	if (err != -EFAULT)
		return reliable ? MLX_HW_RESP_ERR_PAGE_FAULT : MLX_HW_RESP_DROP;
	if (sgl == &r->wr_dst)
		return reliable ? MLX_HW_RESP_ERR_RKEY_VIOLATION :
				  MLX_HW_RESP_DROP;
	r->recv_status = MLX_HW_WC_LOC_PROT_ERR;
	return MLX_HW_RESP_ERR_RECV_FAULT;
}

/* ---------------- execution ---------------- */

/*
 * The 40 bytes a UD receive gets in front of the payload: the IP header of
 * the packet (datagrams always come as packets).
 */
static void mlx_hw_resp_grh(const struct mlx_hw_rx *rx, u8 *grh)
{
	memset(grh, 0, MLX_HW_GRH_LEN);
	if (rx->pkt.flags & MLX_HW_PKT_IPV6)
		memcpy(grh, ipv6_hdr(rx->skb), sizeof(struct ipv6hdr));
	else	/* IPv4: in the last 20 bytes, as rxe delivers it */
		memcpy(grh + 20, ip_hdr(rx->skb), sizeof(struct iphdr));
}

static enum mlx_hw_resp_state mlx_hw_resp_execute(struct mlx_hw_qp *qp,
						  const struct mlx_hw_rx *rx)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_resp_side *r = &qp->resp;
	struct mlx_hw_cursor saved;
	u8 grh[MLX_HW_GRH_LEN];
	int err;

	if (pkt->mask & MLX_HW_M_READ)
		return MLX_HW_RESP_READ_REPLY;
	if (pkt->mask & MLX_HW_M_ATOMIC)
		return MLX_HW_RESP_ATOMIC_REPLY;
	if (pkt->mask & MLX_HW_M_FIRST) {
		mlx_hw_cursor_init(&r->cur, (pkt->mask & MLX_HW_M_SEND) ?
					    &r->rwqe : &r->wr_dst);
		r->offset = 0;
		r->in_msg = true;
		r->in_write = pkt->mask & MLX_HW_M_WRITE;
	}
	saved = r->cur;
	if (mlx_hw_qp_is_ud(qp->ibx.qp_type)) {
		mlx_hw_resp_grh(rx, grh);
		err = mlx_hw_copy_from_kbuf(&r->cur, grh, sizeof(grh));
		if (err)
			goto fault;
		r->offset = MLX_HW_GRH_LEN;
	}
	err = pkt->paylen ? mlx_hw_rx_copy(&r->cur, rx) : 0;
	if (err)
		goto fault;
	r->offset += pkt->paylen;
	r->psn = mlx_hw_psn_add(r->psn, 1);
	if (mlx_hw_qp_reliable(qp->ibx.qp_type))
		mlx_hw_ackg_took(qp, pkt->psn, 1, pkt->mask & MLX_HW_M_LAST,
				 false);
	if (!(pkt->mask & MLX_HW_M_LAST))
		return MLX_HW_RESP_ACKNOWLEDGE;
	r->in_msg = false;
	r->msn = (r->msn + 1) & 0xffffff;
	if (r->in_write)
		mlx_hw_sgl_release(&r->wr_dst);
	return (pkt->mask & MLX_HW_M_RWQE) ? MLX_HW_RESP_COMPLETE :
					     MLX_HW_RESP_ACKNOWLEDGE;
fault:
	if (err == -EAGAIN || err == -ENODATA) {
		/*
		 * ODP pages unmapped since the check, ours (-EAGAIN): the
		 * packet is NAKed and comes again, a FIRST opening its
		 * message again then.  Those of the sender of a direct
		 * request (-ENODATA): undone as if it had never come; the
		 * requester sends it as a packet, whose build faults the
		 * page in (direct.c).  No NAK: the fault is not ours.
		 */
		r->cur = saved;
		if (pkt->mask & MLX_HW_M_FIRST) {
			r->offset = 0;
			r->in_msg = false;
		}
		return err == -EAGAIN ? MLX_HW_RESP_CHECK_PAGES :
					MLX_HW_RESP_UNDONE;
	}
	/* The pages went away under the message (a deregistration raced). */
	if (pkt->mask & MLX_HW_M_WRITE)
		return MLX_HW_RESP_ERR_WRITE_FAULT;
	r->recv_status = MLX_HW_WC_LOC_PROT_ERR;
	return MLX_HW_RESP_ERR_RECV_FAULT;
}

/* The next responder resource, the oldest one overwritten. */
static struct mlx_hw_res *mlx_hw_resp_new_res(struct mlx_hw_qp *qp)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	struct mlx_hw_res *res = &r->res[r->res_next];

	r->res_next = (r->res_next + 1) % r->res_cnt;
	if (r->read == res)
		r->read = NULL;
	return res;
}

/* A new READ: its resource, then responses from the main loop. */
static enum mlx_hw_resp_state mlx_hw_resp_read_reply(struct mlx_hw_qp *qp,
						     const struct mlx_hw_rx *rx)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_resp_side *r = &qp->resp;
	const u8 *reth = mlx_hw_rx_hdr(rx, MLX_HW_RETH);
	struct mlx_hw_res *res = mlx_hw_resp_new_res(qp);
	u32 len = mlx_hw_reth_len(reth);
	u32 n = max_t(u32, 1, DIV_ROUND_UP(len, qp->mtu));

	mlx_hw_sgl_release(&r->wr_dst);	/* its page check is done */
	res->type = MLX_HW_RES_READ;
	res->first_psn = pkt->psn;
	res->last_psn = mlx_hw_psn_add(pkt->psn, n - 1);
	res->read.va = mlx_hw_reth_va(reth);
	res->read.rkey = mlx_hw_reth_rkey(reth);
	res->read.length = len;
	res->read.next_psn = pkt->psn;
	res->read.end_psn = res->last_psn;
	res->xrc_srqn = qp->resp.xrc_srqn;
	/* A READ uses one PSN per response packet (IBA 9.7.4.1.4). */
	r->psn = mlx_hw_psn_add(pkt->psn, n);
	r->msn = (r->msn + 1) & 0xffffff;
	mlx_hw_ackg_took(qp, pkt->psn, n, true, true);
	mlx_hw_resp_flush_ack(qp);
	r->read = res;
	return MLX_HW_RESP_CLEANUP;
}

static enum mlx_hw_resp_state mlx_hw_resp_atomic_reply(struct mlx_hw_qp *qp,
						       const struct mlx_hw_rx *rx)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_resp_side *r = &qp->resp;
	const u8 *h = mlx_hw_rx_hdr(rx, MLX_HW_ATMETH);
	struct mlx_hw_res *res;
	u64 orig;
	int err;

	err = mlx_hw_atomic(&r->wr_dst.seg[0], pkt->mask & MLX_HW_M_CMPSWP,
			    mlx_hw_atmeth_swap_add(h), mlx_hw_atmeth_compare(h),
			    &orig);
	if (err == -EAGAIN)	/* ODP: unmapped since the check */
		return MLX_HW_RESP_CHECK_PAGES;
	mlx_hw_sgl_release(&r->wr_dst);
	if (err)
		return MLX_HW_RESP_ERR_ATOMIC_FAULT;
	res = mlx_hw_resp_new_res(qp);
	res->type = MLX_HW_RES_ATOMIC;
	res->first_psn = res->last_psn = pkt->psn;
	res->atomic.orig = orig;
	r->psn = mlx_hw_psn_add(pkt->psn, 1);
	r->msn = (r->msn + 1) & 0xffffff;
	mlx_hw_ackg_took(qp, pkt->psn, 1, true, true);
	mlx_hw_resp_send_atomic_ack(qp, pkt->psn, orig);
	return MLX_HW_RESP_CLEANUP;
}

/*
 * What a UD receive CQE says in its sl field on RoCE: the network header
 * type of the packet, as a ConnectX CQE reports it (bit 3: UDP, that is
 * RoCEv2; bits 2:0: 1 IPv6, 2 IPv4).  UCX's ud_verbs reads it there to find
 * the destination address in the 40 bytes in front of the payload.
 */
static u8 mlx_hw_resp_ud_sl(const struct mlx_hw_rx *rx)
{
	return MLX_HW_CQE_SL_ROCE_UDP |
	       ((rx->pkt.flags & MLX_HW_PKT_IPV6) ?
		MLX_HW_CQE_SL_L3_IPV6 : MLX_HW_CQE_SL_L3_IPV4);
}

/* The receive CQE of a SEND or a WRITE with immediate. */
static enum mlx_hw_resp_state mlx_hw_resp_complete(struct mlx_hw_qp *qp,
						   const struct mlx_hw_rx *rx)
{
	const struct mlx_hw_pkt *pkt = &rx->pkt;
	struct mlx_hw_cqe cqe = { .opcode = MLX_HW_WC_RECV };
	u8 flags = 0;

	cqe.byte_len = cpu_to_le32(qp->resp.offset);
	if (pkt->mask & MLX_HW_M_IMMDT) {
		flags |= MLX_HW_WC_WITH_IMM;
		cqe.imm_data = mlx_hw_immdt(mlx_hw_rx_hdr(rx, MLX_HW_IMMDT));
		if (pkt->mask & MLX_HW_M_WRITE)
			cqe.opcode = MLX_HW_WC_RECV_RDMA_WITH_IMM;
	}
	if (pkt->mask & MLX_HW_M_IETH) {
		u32 inv = mlx_hw_ieth_rkey(mlx_hw_rx_hdr(rx, MLX_HW_IETH));

		/* An invalid key is ignored: the CQE still says so. */
		mlx_hw_invalidate(to_mdev(qp->ibx.dev), mlx_hw_resp_pd(qp), inv);
		flags |= MLX_HW_WC_WITH_INV;
		cqe.invalidated_rkey = cpu_to_le32(inv);
	}
	if (pkt->mask & MLX_HW_M_DETH) {
		flags |= MLX_HW_WC_GRH;
		cqe.src_qp = cpu_to_le32(mlx_hw_deth_sqpn(
					 mlx_hw_rx_hdr(rx, MLX_HW_DETH)));
		cqe.sl = mlx_hw_resp_ud_sl(rx);
	}
	cqe.wc_flags = flags;
	mlx_hw_recv_cqe(qp, &cqe, mlx_hw_bth_se(rx->hdr));
	return MLX_HW_RESP_ACKNOWLEDGE;
}

/* ---------------- answers ---------------- */

static enum mlx_hw_resp_state mlx_hw_resp_acknowledge(struct mlx_hw_qp *qp,
						      const struct mlx_hw_rx *rx)
{
	struct mlx_hw_resp_side *r = &qp->resp;

	/* Coalesced: one ACK for the newest PSN that asked (IBA 9.7.5.1.2). */
	if (mlx_hw_qp_reliable(qp->ibx.qp_type) &&
	    mlx_hw_bth_ackreq(rx->hdr)) {
		r->ack_pending = true;
		r->ack_psn = rx->pkt.psn;
		r->ack_floor = r->ack_psn;
	}
	return MLX_HW_RESP_CLEANUP;
}

/*
 * Sends a NAK (RC; PSN as IBA 9.7.5.2 says) and, for an error, moves the
 * QP to ERR with its affiliated event (before the receive CQE: completing
 * a WQE in error moves the QP to ERR, which would suppress the event).  UC
 * sends nothing: it drops the message, or for a bad receive WQE (class A)
 * moves to ERR without an event.
 */
static enum mlx_hw_resp_state mlx_hw_resp_nak(struct mlx_hw_qp *qp,
					      const struct mlx_hw_rx *rx)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	u8 type = r->nak_syndrome & MLX_HW_AETH_TYPE_MASK;
	bool seq = type == MLX_HW_AETH_NAK &&
		   (r->nak_syndrome & MLX_HW_AETH_VALUE_MASK) == MLX_HW_NAK_PSN_SEQ;

	/* RNR and PSN NAKs keep the message: its retry continues it. */
	if (r->nak_fatal)
		mlx_hw_resp_abort_msg(qp);
	if (mlx_hw_qp_reliable(qp->ibx.qp_type)) {
		/*
		 * The NAK names the expected PSN, so it acknowledges every
		 * PSN before it (IBA 9.7.5.1) and replaces the coalesced ACK.
		 * Sent both, an ACK naming the last PSN of a message rxe is
		 * resending makes rxe skip the message's PSNs and then ignore
		 * the NAK; its next retry shifts the PSNs (docs/wire.md
		 * 14.3.3).
		 */
		r->ack_pending = false;
		mlx_hw_resp_send_ack(qp, r->nak_syndrome,
				     seq ? r->psn : rx->pkt.psn);
		r->nak_sent = true;
		if (seq)
			mlx_hw_ackg_gap(qp, r->psn, rx->pkt.psn, true);
		if (r->nak_fatal)
			mlx_hw_qp_fatal(qp, r->event);
	} else if (r->recv_status) {
		mlx_hw_qp_to_err(qp);
	} else {
		return MLX_HW_RESP_DROP;
	}
	if (r->recv_status)
		mlx_hw_recv_complete(qp, r->recv_status, MLX_HW_WC_RECV);
	return MLX_HW_RESP_CLEANUP;
}

/* ---------------- the loop ---------------- */

/* IBA 11.6.3: the first packet in RTR raises Communication Established. */
static void mlx_hw_resp_comm_est(struct mlx_hw_qp *qp)
{
	if (READ_ONCE(qp->state) != IBX_QPS_RTR ||
	    mlx_hw_qp_is_ud(qp->ibx.qp_type) || qp->comm_est)
		return;
	qp->comm_est = true;
	ibx_qp_event(&qp->ibx, IBX_EVENT_COMM_EST);
}

/*
 * Executes one request (the state machine), a packet or a direct one
 * (direct.c); the receive side owned.  False only if a direct request was
 * undone (MLX_HW_RESP_UNDONE), as if it had never come.
 */
bool mlx_hw_resp_request(struct mlx_hw_qp *qp, const struct mlx_hw_rx *rx)
{
	enum mlx_hw_resp_state state = MLX_HW_RESP_CHECK_PSN;

	mlx_hw_side_assert_owned(&qp->recv_side);
	qp->resp.recv_status = 0;
	mlx_hw_resp_comm_est(qp);
	for (;;) {
		mlx_hw_qp_dbg(qp, "resp %s psn %u exp %u\n",
			      mlx_hw_resp_state_names[state],
			      rx->pkt.psn, qp->resp.psn);
		switch (state) {
		case MLX_HW_RESP_CHECK_PSN:
			state = mlx_hw_resp_check_psn(qp, rx);
			break;
		case MLX_HW_RESP_CHECK_OP_SEQ:
			state = mlx_hw_resp_check_op_seq(qp, rx);
			break;
		case MLX_HW_RESP_CHECK_OP_VALID:
			state = mlx_hw_resp_check_op_valid(qp, rx);
			break;
		case MLX_HW_RESP_CHECK_RESOURCE:
			state = mlx_hw_resp_check_resource(qp, rx);
			break;
		case MLX_HW_RESP_CHECK_LENGTH:
			state = mlx_hw_resp_check_length(qp, rx);
			break;
		case MLX_HW_RESP_CHECK_RKEY:
			state = mlx_hw_resp_check_rkey(qp, rx);
			break;
		case MLX_HW_RESP_CHECK_PAGES:
			state = mlx_hw_resp_check_pages(qp, rx);
			break;
		case MLX_HW_RESP_EXECUTE:
			state = mlx_hw_resp_execute(qp, rx);
			break;
		case MLX_HW_RESP_READ_REPLY:
			state = mlx_hw_resp_read_reply(qp, rx);
			break;
		case MLX_HW_RESP_ATOMIC_REPLY:
			state = mlx_hw_resp_atomic_reply(qp, rx);
			break;
		case MLX_HW_RESP_COMPLETE:
			state = mlx_hw_resp_complete(qp, rx);
			break;
		case MLX_HW_RESP_ACKNOWLEDGE:
			state = mlx_hw_resp_acknowledge(qp, rx);
			break;
		case MLX_HW_RESP_DUPLICATE:
			state = mlx_hw_resp_duplicate(qp, rx);
			break;
		case MLX_HW_RESP_NAK:
			state = mlx_hw_resp_nak(qp, rx);
			break;
		case MLX_HW_RESP_DROP:
			state = MLX_HW_RESP_CLEANUP;
			break;
		case MLX_HW_RESP_CLEANUP:
		case MLX_HW_RESP_UNDONE:
			mlx_hw_resp_put_xrc_srq(qp);
			qp->resp.state = state;
			return state == MLX_HW_RESP_CLEANUP;
		default:	/* MLX_HW_RESP_ERR_* */
			state = mlx_hw_resp_error(qp, rx, state);
			break;
		}
	}
}

/*
 * Runs the responder of a QP in RTR, RTS or SQD within the packet budget:
 * READ responses under way first (responses go out in request order; a
 * duplicate READ request is the exception), then the queued requests;
 * the receive side owned.
 */
void mlx_hw_responder(struct mlx_hw_qp *qp)
{
	struct mlx_hw_resp_side *r = &qp->resp;
	unsigned int budget = MLX_HW_PKT_BUDGET;
	struct sk_buff *skb;
	struct mlx_hw_rx rx;

	mlx_hw_side_assert_owned(&qp->recv_side);
	if (r->wait_until) {
		if (ktime_get_ns() < r->wait_until) {
			mlx_hw_qp_arm_timer(qp, r->wait_until);
			return;
		}
		r->wait_until = 0;
	}
	while (budget) {
		if (r->read && !mlx_hw_resp_read_restart_queued(qp)) {
			if (!mlx_hw_resp_read_send(qp, &budget))
				break;
			continue;
		}
		skb = skb_dequeue(&qp->resp_pkts);
		if (!skb)
			break;
		budget--;
		mlx_hw_rx_init_skb(&rx, skb);
		mlx_hw_ecn_answer(qp, &rx);
		mlx_hw_resp_request(qp, &rx);
		consume_skb(skb);
		if (READ_ONCE(qp->state) == IBX_QPS_ERR)
			break;
	}
	if (!budget && (r->read || !skb_queue_empty(&qp->resp_pkts)))
		mlx_hw_qp_schedule(qp);
	mlx_hw_resp_flush_ack(qp);
	/* Between packets nothing pins an MR (deregistration must not wait). */
	mlx_hw_sgl_park(&r->rwqe);
	mlx_hw_sgl_park(&r->wr_dst);
}
