// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * completer.c - the requester's handling of responses (IBA 9.7.5): ACKs
 * complete WQEs (copying READ data and atomic results into the local
 * buffers), NAKs complete them in error, RNR NAKs and missing responses
 * schedule retries bounded by rnr_retry / retry_cnt.
 */
#include <linux/sched/clock.h>
#include "mlx_hw.h"

/* IBA table 45: RNR NAK timer field -> microseconds (x100 to stay integer). */
static const u32 mlx_hw_rnr_timer_us100[32] = {
	6553600, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

/* Local ACK timeout: 4.096 us * 2^timeout (IBA 9.7.6.1.3); 0 = infinite. */
static u64 mlx_hw_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return NSEC_PER_SEC;	/* "infinite": retry slowly */
	return 4096ull << min_t(u8, timeout, 31);
}

static enum mlx_hw_comp_result mlx_hw_fail(struct mlx_hw_qp *qp, u8 status)
{
	mlx_hw_complete_wqe(qp, status, 0);
	return MLX_HW_COMP_ERROR;
}

static enum mlx_hw_comp_result mlx_hw_retry_after(struct mlx_hw_qp *qp,
						  u64 ns)
{
	qp->req.wait_until = local_clock() + ns;
	qp->req.waiting = true;
	return MLX_HW_COMP_RETRY;
}

/* Finishes an acknowledged WQE: read data / atomic result, then the CQE. */
static enum mlx_hw_comp_result mlx_hw_ack_done(struct mlx_hw_qp *qp,
					       struct mlx_hw_pkt *pkt,
					       struct mlx_hw_resp *resp)
{
	struct mlx_hw_send_wqe *wqe = &qp->req.wqe;
	struct mlx_hw_cursor dst = { .sgl = &wqe->sgl };
	struct mlx_hw_cursor src = { .sgl = &resp->read_src };
	u32 span = qp->req.npkts, len = wqe->sgl.total;
	__le64 orig;
	int err = 0;

	switch (pkt->op) {
	case MLX_HW_PKT_READ_REQ:
		if (resp->read_src.total != len)
			err = -EMSGSIZE;
		else if (len)
			err = mlx_hw_copy(&dst, &src, len);
		mlx_hw_sgl_release(&resp->read_src);
		span = resp->psn_span;
		break;
	case MLX_HW_PKT_CMP_SWP:
	case MLX_HW_PKT_FETCH_ADD:
		orig = cpu_to_le64(resp->atomic_orig);
		err = mlx_hw_copy_from_kbuf(&dst, &orig, sizeof(orig));
		span = 1;
		break;
	default:
		break;
	}
	if (err)
		return mlx_hw_fail(qp, MLX_HW_WC_LOC_PROT_ERR);
	qp->sq_psn = (qp->sq_psn + span) & 0xffffff;
	mlx_hw_complete_wqe(qp, 0, len);
	return MLX_HW_COMP_DONE;
}

enum mlx_hw_comp_result mlx_hw_completer(struct mlx_hw_qp *qp,
					 struct mlx_hw_pkt *pkt,
					 struct mlx_hw_resp *resp)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);

	switch (resp->kind) {
	case MLX_HW_RESP_ACK:
		qp->req.retries = 0;
		qp->req.rnr_retries = 0;
		if (!(pkt->flags & MLX_HW_PKT_LAST))
			return MLX_HW_COMP_NEXT;
		return mlx_hw_ack_done(qp, pkt, resp);

	case MLX_HW_RESP_RNR_NAK:
		mlx_hw_count(dev, MLX_HW_CNT_RNR_NAKS_RCVD, 1);
		/* rnr_retry 7 means retry forever (IBA 9.7.5.2.8). */
		if (qp->rnr_retry != 7 && ++qp->req.rnr_retries > qp->rnr_retry)
			return mlx_hw_fail(qp, MLX_HW_WC_RNR_RETRY_EXC_ERR);
		return mlx_hw_retry_after(qp,
			(u64)mlx_hw_rnr_timer_us100[resp->rnr_timer & 31] *
			NSEC_PER_USEC / 100);

	case MLX_HW_RESP_NONE:
	case MLX_HW_RESP_NAK_SEQ:
		mlx_hw_count(dev, MLX_HW_CNT_RETRANSMITS, 1);
		if (++qp->req.retries > qp->retry_cnt)
			return mlx_hw_fail(qp, MLX_HW_WC_RETRY_EXC_ERR);
		return mlx_hw_retry_after(qp, mlx_hw_ack_timeout_ns(qp->timeout));

	case MLX_HW_RESP_NAK_INV_REQ:
		return mlx_hw_fail(qp, MLX_HW_WC_REM_INV_REQ_ERR);
	case MLX_HW_RESP_NAK_REM_ACCESS:
		return mlx_hw_fail(qp, MLX_HW_WC_REM_ACCESS_ERR);
	case MLX_HW_RESP_NAK_REM_OP:
	default:
		return mlx_hw_fail(qp, MLX_HW_WC_REM_OP_ERR);
	}
}
