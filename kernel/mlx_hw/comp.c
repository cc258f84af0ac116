// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * comp.c - the completer (IBA 9.7.5, requester side).  Responses are
 * matched against the send window: ACKs retire SEND and WRITE WQEs up to
 * their PSN (coalesced ACKs and the implicit ACK of a later response
 * included), READ responses and atomic ACKs bring the data their WQE
 * waits for, NAKs and the ACK timeout send the requester back to a PSN
 * (go-back-N, bounded by retry_cnt and rnr_retry), and the other NAKs
 * complete a WQE in error.  The WQEs done then retire from the window in
 * SQ order (send_window.c).  Runs with qp->send_side owned (side.c).
 */
#include <linux/ktime.h>
#include "mlx_hw.h"

static const char *const mlx_hw_comp_state_names[] = {
	[MLX_HW_COMP_GET_WQE] = "GET_WQE",
	[MLX_HW_COMP_CHECK_PSN] = "CHECK_PSN",
	[MLX_HW_COMP_CHECK_ACK] = "CHECK_ACK",
	[MLX_HW_COMP_READ] = "READ",
	[MLX_HW_COMP_ATOMIC] = "ATOMIC",
	[MLX_HW_COMP_WRITE_SEND] = "WRITE_SEND",
	[MLX_HW_COMP_WQE_DONE] = "WQE_DONE",
	[MLX_HW_COMP_DONE] = "DONE",
	[MLX_HW_COMP_RETRY] = "RETRY",
	[MLX_HW_COMP_RNR_RETRY] = "RNR_RETRY",
	[MLX_HW_COMP_ERROR] = "ERROR",
};
static_assert(ARRAY_SIZE(mlx_hw_comp_state_names) == MLX_HW_COMP_NUM_STATES);

/* IBA table 45: RNR NAK timer field -> microseconds (0: 655.36 ms). */
static const u32 mlx_hw_rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* The response being matched, and what the states found out. */
struct mlx_hw_comp_ctx {
	const struct mlx_hw_rx *rx;	/* the response */
	const struct mlx_hw_pkt *pkt;	/* what its headers say */
	struct mlx_hw_swqe *w;		/* the WQE it concerns */
	u32 retry_psn;			/* RETRY / RNR_RETRY: send again from */
	bool timeout;			/* RETRY: the ACK timer fired */
};

/*
 * Progress: comp.psn moved on from @old_psn.  The retry counts start over,
 * the ACK timer runs anew, the congestion window may grow.
 */
static void mlx_hw_comp_progress(struct mlx_hw_qp *qp, u32 old_psn)
{
	struct mlx_hw_comp *comp = &qp->comp;

	mlx_hw_cwnd_acked(qp, mlx_hw_psn_diff(comp->psn, old_psn));
	comp->retries = 0;
	comp->rnr_retries = 0;
	comp->retry_pending = false;
	/*
	 * Nothing outstanding: the timer is left to expire, and finds no
	 * deadline (mlx_hw_comp_timeout()).  Cancelled here and started again
	 * by the next message, it cost two hrtimer calls per message of a
	 * ping-pong.
	 */
	if (mlx_hw_psn_diff(qp->req.psn_max, comp->psn) > 0) {
		comp->timeout_at = mlx_hw_ack_deadline(qp);
		mlx_hw_qp_arm_timer(qp, comp->timeout_at);
	} else {
		comp->timeout_at = 0;
	}
}

/*
 * Retires the SEND and WRITE WQEs an acknowledgement of PSN @a covers
 * (IBA 9.7.5.1.2, coalesced ACKs), advancing comp.psn also within a
 * message.  Stops at a READ or atomic: only its own response retires it.
 */
static void mlx_hw_comp_ack_upto(struct mlx_hw_qp *qp, u32 a)
{
	struct mlx_hw_comp *comp = &qp->comp;
	u32 idx, last, old_psn = comp->psn;
	bool progress = false;
	struct mlx_hw_swqe *w;

	for (idx = qp->sq_ci; idx != qp->req.fetch_idx; idx++) {
		w = mlx_hw_swqe(qp, idx);
		if (w->done)
			continue;
		if (!w->npsn || mlx_hw_swqe_rd_atomic(w) ||
		    mlx_hw_psn_diff(w->first_psn, a) > 0)
			break;
		last = mlx_hw_psn_add(w->first_psn, w->npsn - 1);
		if (mlx_hw_psn_diff(last, a) > 0) {
			comp->psn = mlx_hw_psn_add(a, 1);	/* within it */
			progress = true;
			break;
		}
		w->done = true;
		comp->psn = mlx_hw_psn_add(last, 1);
		progress = true;
	}
	if (progress)
		mlx_hw_comp_progress(qp, old_psn);
}

static enum mlx_hw_comp_state mlx_hw_comp_get_wqe(struct mlx_hw_qp *qp,
						  struct mlx_hw_comp_ctx *c)
{
	c->w = mlx_hw_window_oldest(qp);
	/* Nothing outstanding: a late or stray response. */
	if (!c->w || !c->w->npsn ||
	    mlx_hw_psn_diff(c->w->first_psn, qp->req.psn_max) >= 0)
		return MLX_HW_COMP_DONE;
	return MLX_HW_COMP_CHECK_PSN;
}

static enum mlx_hw_comp_state mlx_hw_comp_check_psn(struct mlx_hw_qp *qp,
						    struct mlx_hw_comp_ctx *c)
{
	u32 p = c->pkt->psn;

	/* Older than what is acknowledged, or for a PSN never sent. */
	if (mlx_hw_psn_diff(p, qp->comp.psn) < 0 ||
	    mlx_hw_psn_diff(p, qp->req.psn_max) >= 0)
		return MLX_HW_COMP_DONE;
	/*
	 * The responder is at work on the window: the ACK timer starts over,
	 * as rxe's does, even for a response past a gap.  Else a long READ
	 * that lost an early packet times out while the rest of it streams
	 * in, and each timeout queues one more replay of the whole READ at
	 * the responder, ahead of the requests that follow.  Only progress
	 * resets the retry count.  (A deadline moved later is re-armed when
	 * the timer fires; mlx_hw_comp_timeout().)
	 */
	if (qp->comp.timeout_at)
		qp->comp.timeout_at = mlx_hw_ack_deadline(qp);
	if (!(c->pkt->mask & (MLX_HW_M_READ_RESP | MLX_HW_M_ATOMIC_ACK)))
		return MLX_HW_COMP_CHECK_ACK;
	/* A READ response or atomic ACK implicitly acknowledges all before. */
	mlx_hw_comp_ack_upto(qp, mlx_hw_psn_add(p, MLX_HW_PSN_MASK));
	c->w = mlx_hw_window_oldest(qp);
	if (!c->w || !mlx_hw_swqe_rd_atomic(c->w) ||
	    mlx_hw_psn_diff(p, c->w->first_psn) < 0 ||
	    mlx_hw_psn_diff(p, c->w->first_psn) >= (int)c->w->npsn)
		return MLX_HW_COMP_DONE;
	/* Responses went missing before this one: ask again. */
	if (p != qp->comp.psn) {
		c->retry_psn = qp->comp.psn;
		return MLX_HW_COMP_RETRY;
	}
	return MLX_HW_COMP_CHECK_ACK;
}

/* The WQE the NAK of @p concerns, the ones before it acknowledged. */
static struct mlx_hw_swqe *mlx_hw_comp_nak_wqe(struct mlx_hw_qp *qp, u32 p)
{
	mlx_hw_comp_ack_upto(qp, mlx_hw_psn_add(p, MLX_HW_PSN_MASK));
	return mlx_hw_window_oldest(qp);
}

static enum mlx_hw_comp_state mlx_hw_comp_check_ack(struct mlx_hw_qp *qp,
						    struct mlx_hw_comp_ctx *c)
{
	u32 mask = c->pkt->mask, p = c->pkt->psn;
	u8 syndrome;

	if (mask & MLX_HW_M_READ_RESP)
		return c->w->opcode == MLX_HW_OP_RDMA_READ ? MLX_HW_COMP_READ :
							     MLX_HW_COMP_DONE;
	if (mask & MLX_HW_M_ATOMIC_ACK)
		return c->w->opcode != MLX_HW_OP_RDMA_READ &&
		       p == c->w->first_psn ? MLX_HW_COMP_ATOMIC :
					      MLX_HW_COMP_DONE;
	syndrome = mlx_hw_aeth_syndrome(mlx_hw_rx_hdr(c->rx, MLX_HW_AETH));
	switch (syndrome & MLX_HW_AETH_TYPE_MASK) {
	case MLX_HW_AETH_ACK:
		return MLX_HW_COMP_WRITE_SEND;
	case MLX_HW_AETH_RNR_NAK:
		c->w = mlx_hw_comp_nak_wqe(qp, p);
		c->retry_psn = p;
		return c->w ? MLX_HW_COMP_RNR_RETRY : MLX_HW_COMP_DONE;
	case MLX_HW_AETH_NAK:
		break;
	default:
		return MLX_HW_COMP_DONE;	/* reserved syndrome */
	}
	c->w = mlx_hw_comp_nak_wqe(qp, p);
	if (!c->w)
		return MLX_HW_COMP_DONE;
	switch (syndrome & MLX_HW_AETH_VALUE_MASK) {
	case MLX_HW_NAK_PSN_SEQ:
		mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_SEQ_NAKS_RCVD, 1);
		c->retry_psn = p;
		return MLX_HW_COMP_RETRY;
	case MLX_HW_NAK_REM_ACCESS:
		qp->comp.status = MLX_HW_WC_REM_ACCESS_ERR;
		break;
	case MLX_HW_NAK_REM_OP:
		qp->comp.status = MLX_HW_WC_REM_OP_ERR;
		break;
	default:	/* invalid request, invalid RD request */
		qp->comp.status = MLX_HW_WC_REM_INV_REQ_ERR;
		break;
	}
	return MLX_HW_COMP_ERROR;
}

/*
 * The body of @w: the requester's, when it still holds it (a READ or
 * atomic sent last), else parsed into comp.body; NULL if the ring no
 * longer holds @w (swqe.c).
 */
static const struct mlx_hw_swqe_body *mlx_hw_comp_body(struct mlx_hw_qp *qp,
							struct mlx_hw_swqe *w)
{
	u32 idx = mlx_hw_swqe_idx(qp, w);

	if (mlx_hw_swqe_body_is(qp->req.body, idx))
		return qp->req.body;
	return mlx_hw_swqe_body(qp, idx, qp->comp.body) ? NULL : qp->comp.body;
}

/*
 * Resolves the local data of @w into qp->comp_scratch for writing (READ
 * data, atomic result) and places a cursor @off bytes in.  0, -EACCES, or
 * -EBADMSG for a WQE rewritten in the ring.
 */
static int mlx_hw_comp_local(struct mlx_hw_qp *qp, struct mlx_hw_swqe *w,
			     u32 off, struct mlx_hw_cursor *cur)
{
	const struct mlx_hw_swqe_body *b = mlx_hw_comp_body(qp, w);
	struct mlx_hw_sgl *sgl = &qp->comp_scratch;
	u32 i;

	mlx_hw_sgl_init(sgl);
	if (!b)
		return -EBADMSG;
	for (i = 0; i < b->nsge; i++)
		if (mlx_hw_sgl_add(to_mdev(qp->ibx.dev), to_mpd(qp->ibx.pd),
				   sgl, b->sge[i].lkey, b->sge[i].addr,
				   b->sge[i].len, IB_UVERBS_ACCESS_LOCAL_WRITE))
			return -EACCES;
	mlx_hw_cursor_init(cur, sgl);
	mlx_hw_cursor_skip(cur, off);
	return 0;
}

/* The status of a WQE whose answer could not be placed (mlx_hw_comp_local). */
static enum mlx_hw_comp_state mlx_hw_comp_local_err(struct mlx_hw_qp *qp,
						    int err)
{
	qp->comp.status = err == -EBADMSG ? MLX_HW_WC_LOC_QP_OP_ERR :
					   MLX_HW_WC_LOC_PROT_ERR;
	return MLX_HW_COMP_ERROR;
}

/*
 * ODP (odp.c): a READ response or atomic result found its local pages
 * unmapped after the request was sent (the process's mappings changed).
 * The response is dropped while the pages are faulted in, and the
 * requester asks again from its PSN, once they are mapped (the request
 * waits for the fault), as after an RNR NAK: no retry is used up, and the
 * responses behind it rewind nothing more.
 */
static enum mlx_hw_comp_state mlx_hw_comp_page_fault(struct mlx_hw_qp *qp,
						     u32 psn, u32 off)
{
	struct mlx_hw_sgl *sgl = &qp->comp_scratch;

	mlx_hw_odp_wait(qp, &qp->req.odp_fault, sgl, off, sgl->total - off);
	mlx_hw_sgl_release(sgl);
	mlx_hw_window_rewind(qp, psn);
	qp->comp.retry_pending = true;
	return MLX_HW_COMP_DONE;
}

/* READ response data goes to its place in the WQE's local buffers. */
static enum mlx_hw_comp_state mlx_hw_comp_read(struct mlx_hw_qp *qp,
					       struct mlx_hw_comp_ctx *c)
{
	const struct mlx_hw_pkt *pkt = c->pkt;
	struct mlx_hw_swqe *w = c->w;
	u32 i = mlx_hw_psn_diff(pkt->psn, w->first_psn), off = i * qp->mtu;
	bool last = pkt->mask & MLX_HW_M_LAST;
	struct mlx_hw_cursor cur;
	int err;

	/*
	 * Full-MTU packets but the last, which ends the message exactly; a
	 * READ sent as several requests (req.c) has a LAST at the end of
	 * each, and only there.
	 */
	if (off + pkt->paylen > w->length ||
	    (pkt->paylen != qp->mtu &&
	     (!last || off + pkt->paylen != w->length)) ||
	    last != (mlx_hw_split_end(qp, w, pkt->psn) ==
		     mlx_hw_psn_add(pkt->psn, 1))) {
		qp->comp.status = MLX_HW_WC_BAD_RESP_ERR;
		return MLX_HW_COMP_ERROR;
	}
	err = mlx_hw_comp_local(qp, w, off, &cur);
	if (!err && pkt->paylen)
		err = mlx_hw_rx_copy(&cur, c->rx);
	if (err == -EAGAIN)
		return mlx_hw_comp_page_fault(qp, pkt->psn, off);
	mlx_hw_sgl_release(&qp->comp_scratch);
	if (err)
		return mlx_hw_comp_local_err(qp, err);
	qp->comp.psn = mlx_hw_psn_add(pkt->psn, 1);
	mlx_hw_comp_progress(qp, pkt->psn);
	return i + 1 == w->npsn ? MLX_HW_COMP_WQE_DONE : MLX_HW_COMP_DONE;
}

/* An atomic ACK: the original remote value, host order, to the buffer. */
static enum mlx_hw_comp_state mlx_hw_comp_atomic(struct mlx_hw_qp *qp,
						 struct mlx_hw_comp_ctx *c)
{
	u64 orig = mlx_hw_atmack_orig(mlx_hw_rx_hdr(c->rx, MLX_HW_ATMACK));
	struct mlx_hw_cursor cur;
	int err;

	err = mlx_hw_comp_local(qp, c->w, 0, &cur);
	if (!err)
		err = mlx_hw_copy_from_kbuf(&cur, &orig, sizeof(orig));
	if (err == -EAGAIN)
		return mlx_hw_comp_page_fault(qp, c->pkt->psn, 0);
	mlx_hw_sgl_release(&qp->comp_scratch);
	if (err)
		return mlx_hw_comp_local_err(qp, err);
	qp->comp.psn = mlx_hw_psn_add(c->pkt->psn, 1);
	mlx_hw_comp_progress(qp, c->pkt->psn);
	return MLX_HW_COMP_WQE_DONE;
}

/*
 * An ACK: SEND and WRITE WQEs up to its PSN are done.  If it covers a READ
 * or atomic whose response never came, that response was lost: ask again
 * (IBA 9.7.5.1.3, implied NAK).
 */
static enum mlx_hw_comp_state mlx_hw_comp_write_send(struct mlx_hw_qp *qp,
						     struct mlx_hw_comp_ctx *c)
{
	struct mlx_hw_swqe *w;

	mlx_hw_comp_ack_upto(qp, c->pkt->psn);
	w = mlx_hw_window_oldest(qp);
	if (w && mlx_hw_swqe_rd_atomic(w) &&
	    mlx_hw_psn_diff(w->first_psn, c->pkt->psn) <= 0 &&
	    mlx_hw_psn_diff(w->first_psn, qp->req.psn_max) < 0) {
		c->retry_psn = qp->comp.psn;
		return MLX_HW_COMP_RETRY;
	}
	return MLX_HW_COMP_DONE;
}

/*
 * Sends the requester back to c->retry_psn, once per loss: until a
 * response makes progress, the rest of the responses that saw the same
 * loss (the burst behind a lost READ response, the ACKs behind a lost
 * atomic ACK, a NAK duplicated on the way) must not rewind again nor use
 * up retry_cnt.  A lost retransmission is the ACK timer's to find.
 */
static enum mlx_hw_comp_state mlx_hw_comp_retry(struct mlx_hw_qp *qp,
						struct mlx_hw_comp_ctx *c)
{
	struct mlx_hw_comp *comp = &qp->comp;

	if (comp->retry_pending && !c->timeout)
		return MLX_HW_COMP_DONE;
	if (++comp->retries > qp->retry_cnt) {
		/* An ARMED QP tries again on its alternate path. */
		if (!mlx_hw_apm_retries_exhausted(qp)) {
			c->w = mlx_hw_window_oldest(qp);
			comp->status = MLX_HW_WC_RETRY_EXC_ERR;
			return c->w ? MLX_HW_COMP_ERROR : MLX_HW_COMP_DONE;
		}
		comp->retries = 0;
	}
	mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_RETRANSMITS, 1);
	mlx_hw_cwnd_loss(qp, c->timeout);
	mlx_hw_window_rewind(qp, c->retry_psn);
	comp->retry_pending = true;
	return MLX_HW_COMP_DONE;
}

static enum mlx_hw_comp_state mlx_hw_comp_rnr_retry(struct mlx_hw_qp *qp,
						    struct mlx_hw_comp_ctx *c)
{
	struct mlx_hw_comp *comp = &qp->comp;
	u8 timer = mlx_hw_aeth_syndrome(mlx_hw_rx_hdr(c->rx, MLX_HW_AETH)) &
		   MLX_HW_AETH_VALUE_MASK;

	mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_RNR_NAKS_RCVD, 1);
	/* rnr_retry 7 means retry forever (IBA 9.7.5.2.8). */
	if (qp->rnr_retry != 7 && ++comp->rnr_retries > qp->rnr_retry) {
		comp->status = MLX_HW_WC_RNR_RETRY_EXC_ERR;
		return MLX_HW_COMP_ERROR;
	}
	mlx_hw_window_rewind(qp, c->retry_psn);
	mlx_hw_cwnd_rnr(qp);
	qp->req.wait_until = ktime_get_ns() +
			     (u64)mlx_hw_rnr_timer_us[timer] * NSEC_PER_USEC;
	mlx_hw_qp_arm_timer(qp, qp->req.wait_until);
	return MLX_HW_COMP_DONE;
}

/*
 * Matches one response against the window (the state machine): a packet,
 * or one a responder of this host handed over directly (direct.c).
 */
static void mlx_hw_comp_response(struct mlx_hw_qp *qp,
				 const struct mlx_hw_rx *rx)
{
	struct mlx_hw_comp_ctx c = { .rx = rx, .pkt = &rx->pkt };
	enum mlx_hw_comp_state state = MLX_HW_COMP_GET_WQE;

	if (c.pkt->mask & MLX_HW_M_CNP) {
		mlx_hw_cwnd_cnp(qp);
		return;
	}

	for (;;) {
		mlx_hw_qp_dbg(qp, "comp %s psn %u comp.psn %u\n",
			      mlx_hw_comp_state_names[state], c.pkt->psn,
			      qp->comp.psn);
		switch (state) {
		case MLX_HW_COMP_GET_WQE:
			state = mlx_hw_comp_get_wqe(qp, &c);
			break;
		case MLX_HW_COMP_CHECK_PSN:
			state = mlx_hw_comp_check_psn(qp, &c);
			break;
		case MLX_HW_COMP_CHECK_ACK:
			state = mlx_hw_comp_check_ack(qp, &c);
			break;
		case MLX_HW_COMP_READ:
			state = mlx_hw_comp_read(qp, &c);
			break;
		case MLX_HW_COMP_ATOMIC:
			state = mlx_hw_comp_atomic(qp, &c);
			break;
		case MLX_HW_COMP_WRITE_SEND:
			state = mlx_hw_comp_write_send(qp, &c);
			break;
		case MLX_HW_COMP_WQE_DONE:
			c.w->done = true;
			state = MLX_HW_COMP_DONE;
			break;
		case MLX_HW_COMP_RETRY:
			state = mlx_hw_comp_retry(qp, &c);
			break;
		case MLX_HW_COMP_RNR_RETRY:
			state = mlx_hw_comp_rnr_retry(qp, &c);
			break;
		case MLX_HW_COMP_ERROR:
			c.w->status = qp->comp.status;
			c.w->done = true;
			state = MLX_HW_COMP_DONE;
			break;
		default:	/* MLX_HW_COMP_DONE */
			qp->comp.state = state;
			return;
		}
	}
}

/*
 * The answer a responder of this host gave the last segment handed over
 * directly (direct.c), taken as the ACK or NAK packet it stands for.
 * True if there was one.  The send side owned.
 */
bool mlx_hw_comp_direct(struct mlx_hw_qp *qp)
{
	struct mlx_hw_direct_ack *a = &qp->comp.direct;
	u8 opcode = mlx_hw_qp_transport(qp->ibx.qp_type) | MLX_HW_OPC_ACK;
	const struct mlx_hw_opcode_info *info = &mlx_hw_opcode[opcode];
	int state = READ_ONCE(qp->state);
	struct mlx_hw_rx rx = {};
	u8 hdr[MLX_HW_HDR_MAX];

	mlx_hw_side_assert_owned(&qp->send_side);
	if (!a->valid)
		return false;
	a->valid = false;
	/* Leaving RTS and SQD, the QP flushes all it has sent. */
	if (state != IBX_QPS_RTS && state != IBX_QPS_SQD)
		return true;
	memset(hdr, 0, info->length);
	rx.hdr = hdr;
	rx.pkt.opcode = opcode;
	rx.pkt.mask = info->mask;
	rx.pkt.hdrlen = info->length;
	rx.pkt.flags = MLX_HW_PKT_LOOPBACK;
	mlx_hw_hdr_bth(hdr, &rx.pkt, qp, qp->ibx.qp_num, false, false, a->psn);
	mlx_hw_aeth_set(hdr + info->off[MLX_HW_AETH], a->syndrome, a->msn);
	mlx_hw_comp_response(qp, &rx);
	return true;
}

/* No response in time (IBA 9.7.6.1.3): send again from the oldest PSN. */
static void mlx_hw_comp_timeout(struct mlx_hw_qp *qp)
{
	struct mlx_hw_comp_ctx c = { .timeout = true };
	struct mlx_hw_comp *comp = &qp->comp;

	u64 armed = READ_ONCE(qp->timer_at);

	if (!comp->timeout_at)
		return;
	/*
	 * A timer still pending for this deadline or an earlier one has not
	 * expired, and its expiry runs the QP again: no clock to read.
	 */
	if (armed && armed <= comp->timeout_at)
		return;
	/* The timer may have fired for an earlier deadline: set it again. */
	if (ktime_get_ns() < comp->timeout_at) {
		mlx_hw_qp_arm_timer(qp, comp->timeout_at);
		return;
	}
	comp->timeout_at = 0;
	if (mlx_hw_psn_diff(qp->req.psn_max, comp->psn) <= 0)
		return;
	mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_ACK_TIMEOUTS, 1);
	c.retry_psn = comp->psn;
	if (mlx_hw_comp_retry(qp, &c) == MLX_HW_COMP_ERROR) {
		c.w->status = comp->status;
		c.w->done = true;
	}
}

/*
 * Runs the completer: the responses that arrived, the ACK timer, and the
 * completion of what is done; the send side owned, QP in RTS or SQD.
 */
void mlx_hw_completer(struct mlx_hw_qp *qp)
{
	unsigned int budget = MLX_HW_PKT_BUDGET;
	struct sk_buff *skb;
	struct mlx_hw_rx rx;

	mlx_hw_side_assert_owned(&qp->send_side);
	while (budget && (skb = skb_dequeue(&qp->comp_pkts))) {
		mlx_hw_rx_init_skb(&rx, skb);
		mlx_hw_ecn_answer(qp, &rx);
		mlx_hw_comp_response(qp, &rx);
		consume_skb(skb);
		budget--;
	}
	mlx_hw_comp_direct(qp);
	if (!budget && !skb_queue_empty(&qp->comp_pkts))
		mlx_hw_qp_schedule(qp);
	mlx_hw_comp_timeout(qp);
	mlx_hw_window_retire(qp);
}
