// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * queue.c - CQ, QP and SRQ objects: ring geometry (docs/prm.md sections
 * 4-6), their mmap regions, numbering, and the QP attribute copy the data
 * path works from.
 */
#include <linux/slab.h>
#include <linux/log2.h>
#include "mlx_hw.h"

#define MLX_HW_UD_HDR	(sizeof(struct mlx_hw_wqe_ctrl) + \
			 sizeof(struct mlx_hw_wqe_ud))
/* RC/UC: raddr + atomic, or bind, after ctrl (both 32 bytes). */
#define MLX_HW_RC_HDR	(sizeof(struct mlx_hw_wqe_ctrl) + 32)
/* XRC INI: the xrc segment, then as RC. */
#define MLX_HW_XRC_HDR	(MLX_HW_RC_HDR + sizeof(struct mlx_hw_wqe_xrc))

static_assert(sizeof(struct mlx_hw_wqe_ctrl) == 16);
static_assert(sizeof(struct mlx_hw_wqe_ud) == 48);
static_assert(sizeof(struct mlx_hw_wqe_raddr) + sizeof(struct mlx_hw_wqe_atomic) == 32);
static_assert(sizeof(struct mlx_hw_wqe_bind) == 32);
static_assert(sizeof(struct mlx_hw_wqe_xrc) == 16);
static_assert(sizeof(struct mlx_hw_wqe_data) == 16);
static_assert(sizeof(struct mlx_hw_rwqe) == 16);

/* ---------------- CQ ---------------- */

int mlx_hw_create_cq(struct ibx_cq *ibcq, const struct ibx_cq_init_attr *attr,
		     struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(ibcq->dev);
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	struct mlx_hw_create_cq_resp resp = {};
	u32 cqn;
	int err;

	if (!ibcq->uctx || attr->cqe < 1 || attr->cqe > MLX_HW_MAX_CQE ||
	    attr->flags)
		return -EINVAL;
	cq->entries = roundup_pow_of_two(attr->cqe);
	cq->log_entries = ilog2(cq->entries);
	spin_lock_init(&cq->lock);
	mlx_hw_obj_init(&cq->obj);

	cq->region = mlx_hw_region_alloc(MLX_HW_DB_PAGE +
					 (size_t)cq->entries * sizeof(struct mlx_hw_cqe),
					 false);
	if (!cq->region)
		return -ENOMEM;
	cq->db = cq->region->vaddr;
	cq->ring = cq->region->vaddr + MLX_HW_DB_PAGE;

	err = mlx_hw_mmap_insert(to_muctx(ibcq->uctx), cq->region,
				 &cq->mmap_key);
	if (err)
		goto err_region;
	err = xa_alloc_cyclic(&dev->cq_xa, &cqn, NULL,
			      XA_LIMIT(1, MLX_HW_MAX_CQ), &dev->cq_next,
			      GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_mmap;
	}
	cq->cqn = cqn;

	resp.mmap_key = cq->mmap_key;
	resp.mmap_len = cq->region->size;
	resp.cqn = cq->cqn;
	resp.ring_offset = MLX_HW_DB_PAGE;
	resp.entries = cq->entries;
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	ibcq->cqe = cq->entries;
	/* Published last: from now on the engine scans its arm word. */
	xa_store(&dev->cq_xa, cq->cqn, cq, GFP_KERNEL);
	return 0;

err_xa:
	xa_erase(&dev->cq_xa, cq->cqn);
err_mmap:
	mlx_hw_mmap_remove(to_muctx(ibcq->uctx), cq->mmap_key);
err_region:
	mlx_hw_region_put(cq->region);
	return err;
}

void mlx_hw_destroy_cq(struct ibx_cq *ibcq)
{
	struct mlx_hw_dev *dev = to_mdev(ibcq->dev);
	struct mlx_hw_cq *cq = to_mcq(ibcq);

	xa_erase(&dev->cq_xa, cq->cqn);
	mlx_hw_obj_drain(&cq->obj);
	mlx_hw_mmap_remove(to_muctx(ibcq->uctx), cq->mmap_key);
	mlx_hw_region_put(cq->region);
}

/*
 * RESIZE_CQ (docs/prm.md, "Resizing a CQ").  The engine produces CQEs only
 * under cq->lock, so switching region, ring and doorbell record under it
 * is atomic for the engine: a CQE lands either in the old ring before the
 * copy or in the new one after.  The provider holds its CQ lock across the
 * command (nothing polls or arms meanwhile) and switches to the new region
 * the response names; the old one lives on until it unmaps it.
 */
int mlx_hw_resize_cq(struct ibx_cq *ibcq, int cqe, struct ibx_udata *udata)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	struct mlx_hw_ucontext *uctx = to_muctx(ibcq->uctx);
	struct mlx_hw_resize_cq_resp resp = {};
	struct mlx_hw_region *region, *old_region;
	u32 entries, n, i, ci;
	struct mlx_hw_cq_db *db;
	struct mlx_hw_cqe *ring;
	u64 key, old_key;
	int err;

	if (cqe < 1 || cqe > MLX_HW_MAX_CQE)
		return -EINVAL;
	/* Without the new region's key the provider could not follow. */
	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	entries = roundup_pow_of_two(cqe);
	region = mlx_hw_region_alloc(MLX_HW_DB_PAGE +
				     (size_t)entries * sizeof(*ring), false);
	if (!region)
		return -ENOMEM;
	db = region->vaddr;
	ring = region->vaddr + MLX_HW_DB_PAGE;
	err = mlx_hw_mmap_insert(uctx, region, &key);
	if (err)
		goto err_region;
	/* Told before the switch: a failed copy leaves the CQ as it was. */
	resp.mmap_key = key;
	resp.mmap_len = region->size;
	resp.ring_offset = MLX_HW_DB_PAGE;
	resp.entries = entries;
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_mmap;

	spin_lock_bh(&cq->lock);
	ci = le32_to_cpu(READ_ONCE(cq->db->ci));
	n = cq->pi - ci;
	/* Fewer entries than completions waiting (or a bogus ci). */
	if (n > (u32)cqe || n > cq->entries) {
		spin_unlock_bh(&cq->lock);
		err = -EINVAL;
		goto err_mmap;
	}
	for (i = 0; i < n; i++) {
		memcpy(&ring[i], &cq->ring[(ci + i) & (cq->entries - 1)],
		       offsetof(struct mlx_hw_cqe, owner));
		/* Index i of a fresh ring is in pass 0: owner 1. */
		ring[i].owner = 1;
	}
	db->arm = cq->db->arm;
	db->pi = cpu_to_le32(n);
	old_region = cq->region;
	old_key = cq->mmap_key;
	cq->region = region;
	cq->mmap_key = key;
	cq->db = db;
	cq->ring = ring;
	cq->entries = entries;
	cq->log_entries = ilog2(entries);
	cq->pi = n;
	spin_unlock_bh(&cq->lock);

	ibcq->cqe = entries;
	mlx_hw_mmap_remove(uctx, old_key);
	mlx_hw_region_put(old_region);
	return 0;

err_mmap:
	mlx_hw_mmap_remove(uctx, key);
err_region:
	mlx_hw_region_put(region);
	return err;
}

/* The REQ_NOTIFY_CQ command: same as an arm word with a new sn. */
int mlx_hw_req_notify_cq(struct ibx_cq *ibcq, bool solicited_only)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	bool fire;

	spin_lock_bh(&cq->lock);
	cq->armed = solicited_only ? MLX_HW_CQ_ARM_SOLICITED :
				     MLX_HW_CQ_ARM_NEXT;
	fire = cq->pi != le32_to_cpu(READ_ONCE(cq->db->ci));
	if (fire)
		cq->armed = 0;
	spin_unlock_bh(&cq->lock);
	if (fire)
		ibx_cq_completion(&cq->ibx);
	return 0;
}

/* ---------------- QP ---------------- */

struct mlx_hw_qp *mlx_hw_qp_get(struct mlx_hw_dev *dev, u32 qpn)
{
	return mlx_hw_xa_get(&dev->qp_xa, qpn, struct mlx_hw_qp);
}

/* Computes ring geometry from the requested caps (docs/prm.md 4.1, 5). */
static int mlx_hw_qp_geometry(struct mlx_hw_qp *qp,
			      struct ibx_qp_init_attr *init, bool has_srq)
{
	struct ibx_qp_cap *cap = &init->cap;
	u32 data, stride;

	if (cap->max_send_wr > MLX_HW_MAX_QP_WR ||
	    cap->max_send_sge > MLX_HW_MAX_SGE ||
	    cap->max_inline_data > MLX_HW_MAX_INLINE)
		return -EINVAL;
	if (!has_srq && (cap->max_recv_wr > MLX_HW_MAX_QP_WR ||
			 cap->max_recv_sge > MLX_HW_MAX_SGE))
		return -EINVAL;

	qp->sq_hdr = init->qp_type == IB_UVERBS_QPT_UD ? MLX_HW_UD_HDR :
		     init->qp_type == IB_UVERBS_QPT_XRC_INI ? MLX_HW_XRC_HDR :
							      MLX_HW_RC_HDR;
	data = max3(cap->max_send_sge * MLX_HW_WQE_SEG,
		    ALIGN(4 + cap->max_inline_data, MLX_HW_WQE_SEG),
		    (u32)MLX_HW_WQE_SEG);
	stride = roundup_pow_of_two(max_t(u32, qp->sq_hdr + data,
					  MLX_HW_SQ_MIN_STRIDE));
	if (stride > MLX_HW_SQ_MAX_STRIDE)
		return -EINVAL;
	qp->sq_stride = stride;
	qp->sq_wqe_cnt = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1));
	qp->max_send_sge = min_t(u32, MLX_HW_MAX_SGE,
				 (stride - qp->sq_hdr) / MLX_HW_WQE_SEG);
	qp->max_inline = min_t(u32, MLX_HW_MAX_INLINE, stride - qp->sq_hdr - 4);

	if (has_srq) {
		qp->rq_wqe_cnt = 0;
		qp->rq_stride = 0;
		qp->max_recv_sge = 0;
	} else {
		qp->rq_stride = roundup_pow_of_two(max_t(u32,
			sizeof(struct mlx_hw_rwqe) +
			cap->max_recv_sge * MLX_HW_WQE_SEG,
			MLX_HW_RQ_MIN_STRIDE));
		qp->rq_wqe_cnt = roundup_pow_of_two(max_t(u32,
							  cap->max_recv_wr, 1));
		qp->max_recv_sge = min_t(u32, MLX_HW_MAX_SGE,
			(qp->rq_stride - sizeof(struct mlx_hw_rwqe)) /
			MLX_HW_WQE_SEG);
	}

	cap->max_send_wr = qp->sq_wqe_cnt;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_inline_data = qp->max_inline;
	cap->max_recv_wr = qp->rq_wqe_cnt;
	cap->max_recv_sge = qp->max_recv_sge;
	return 0;
}

static void mlx_hw_qp_init_common(struct mlx_hw_qp *qp)
{
	mlx_hw_obj_init(&qp->obj);
	mutex_init(&qp->sq_lock);
	mutex_init(&qp->rq_lock);
	qp->state = IBX_QPS_RESET;
	qp->mtu = 256;
}

/*
 * An XRC TGT QP has no queues and no mapping: only its number and the
 * responder state.  It still gets a kernel-only doorbell page that stays
 * zero, so the engine's queue scans find nothing to do on it.
 */
static int mlx_hw_create_xrc_tgt(struct mlx_hw_qp *qp,
				 struct ibx_qp_init_attr *init,
				 struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(qp->ibx.dev);
	struct mlx_hw_create_qp_resp resp = {};
	u32 qpn;
	int err;

	if (!qp->ibx.xrcd || init->create_flags)
		return -EINVAL;
	memset(&init->cap, 0, sizeof(init->cap));
	mlx_hw_qp_init_common(qp);
	qp->region = mlx_hw_region_alloc(MLX_HW_DB_PAGE, false);
	if (!qp->region)
		return -ENOMEM;
	qp->db = qp->region->vaddr;
	err = xa_alloc_cyclic(&dev->qp_xa, &qpn, NULL,
			      XA_LIMIT(MLX_HW_MIN_QPN, MLX_HW_MAX_QPN),
			      &dev->qp_next, GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_region;
	}
	qp->ibx.qp_num = qpn;
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	/* Published last: loopback senders find it from now on. */
	xa_store(&dev->qp_xa, qpn, qp, GFP_KERNEL);
	return 0;
err_xa:
	xa_erase(&dev->qp_xa, qpn);
err_region:
	mlx_hw_region_put(qp->region);
	return err;
}

int mlx_hw_create_qp(struct ibx_qp *ibqp, struct ibx_qp_init_attr *init,
		     struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(ibqp->dev);
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	struct mlx_hw_create_qp_resp resp = {};
	size_t sq_size, rq_size;
	u32 qpn;
	int err;

	switch (init->qp_type) {
	case IB_UVERBS_QPT_RC:
	case IB_UVERBS_QPT_UC:
	case IB_UVERBS_QPT_UD:
	case IB_UVERBS_QPT_XRC_INI:
		if (!ibqp->uctx)
			return -EINVAL;
		break;
	case IB_UVERBS_QPT_XRC_TGT:
		return mlx_hw_create_xrc_tgt(qp, init, udata);
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	/* An XRC initiator has no receive queue (IBA A14). */
	err = mlx_hw_qp_geometry(qp, init, ibqp->srq ||
				 init->qp_type == IB_UVERBS_QPT_XRC_INI);
	if (err)
		return err;

	mlx_hw_qp_init_common(qp);
	qp->wqe_buf = kmalloc(qp->sq_stride, GFP_KERNEL);
	if (!qp->wqe_buf)
		return -ENOMEM;
	sq_size = (size_t)qp->sq_wqe_cnt * qp->sq_stride;
	rq_size = (size_t)qp->rq_wqe_cnt * qp->rq_stride;
	qp->region = mlx_hw_region_alloc(MLX_HW_DB_PAGE + sq_size + rq_size,
					 false);
	err = -ENOMEM;
	if (!qp->region)
		goto err_buf;
	qp->db = qp->region->vaddr;
	qp->sq = qp->region->vaddr + MLX_HW_DB_PAGE;
	qp->rq = rq_size ? qp->sq + sq_size : NULL;

	err = mlx_hw_mmap_insert(to_muctx(ibqp->uctx), qp->region,
				 &qp->mmap_key);
	if (err)
		goto err_region;
	err = xa_alloc_cyclic(&dev->qp_xa, &qpn, NULL,
			      XA_LIMIT(MLX_HW_MIN_QPN, MLX_HW_MAX_QPN),
			      &dev->qp_next, GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_mmap;
	}
	ibqp->qp_num = qpn;

	resp.mmap_key = qp->mmap_key;
	resp.mmap_len = qp->region->size;
	resp.sq_offset = MLX_HW_DB_PAGE;
	resp.sq_wqe_cnt = qp->sq_wqe_cnt;
	resp.sq_stride = qp->sq_stride;
	resp.rq_offset = MLX_HW_DB_PAGE + sq_size;
	resp.rq_wqe_cnt = qp->rq_wqe_cnt;
	resp.rq_stride = qp->rq_stride;
	resp.max_inline_data = qp->max_inline;
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	/* Published last: the engine and loopback find it from now on. */
	xa_store(&dev->qp_xa, qpn, qp, GFP_KERNEL);
	return 0;

err_xa:
	xa_erase(&dev->qp_xa, qpn);
err_mmap:
	mlx_hw_mmap_remove(to_muctx(ibqp->uctx), qp->mmap_key);
err_region:
	mlx_hw_region_put(qp->region);
err_buf:
	kfree(qp->wqe_buf);
	return err;
}

/* Moves a QP to ERR from the data path; the engine flushes its queues. */
void mlx_hw_qp_to_err(struct mlx_hw_qp *qp)
{
	if (READ_ONCE(qp->state) == IBX_QPS_ERR)
		return;
	WRITE_ONCE(qp->state, IBX_QPS_ERR);
	/* QUERY_QP must report the state the QP is really in. */
	WRITE_ONCE(qp->ibx.attr.qp_state, IBX_QPS_ERR);
	mlx_hw_engine_kick(to_mdev(qp->ibx.dev));
}

/* Forgets all transport state; both locks held. */
static void mlx_hw_qp_reset(struct mlx_hw_qp *qp)
{
	mlx_hw_req_release(qp);
	mlx_hw_resp_release(qp);
	qp->sq_ci = 0;
	qp->rq_ci = 0;
	qp->db_corrupt = false;
	qp->last_wqe_reached = false;
	memset(qp->db, 0, sizeof(*qp->db));
}

int mlx_hw_modify_qp(struct ibx_qp *ibqp, const struct ibx_qp_attr *attr,
		     u32 mask, struct ibx_udata *udata)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	int err = 0;

	if ((mask & IBX_QP_PATH_MTU) &&
	    (attr->path_mtu < IBX_MTU_256 || attr->path_mtu > IBX_MTU_4096))
		return -EINVAL;
	if ((mask & IBX_QP_AV) &&
	    attr->ah_attr.sgid_index >= IBX_GID_TABLE_LEN)
		return -EINVAL;
	if ((mask & IBX_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > MLX_HW_MAX_RD_ATOM)
		return -EINVAL;
	if ((mask & IBX_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > MLX_HW_MAX_RD_ATOM)
		return -EINVAL;
	if ((mask & IBX_QP_PORT) && attr->port_num != 1)
		return -EINVAL;

	mutex_lock(&qp->sq_lock);
	mutex_lock(&qp->rq_lock);
	/*
	 * The engine may have moved the QP to ERR after the core checked the
	 * transition against its copy: from ERR only RESET is legal (IBA
	 * 10.3.1).
	 */
	if ((mask & IBX_QP_STATE) && READ_ONCE(qp->state) == IBX_QPS_ERR &&
	    attr->qp_state != IBX_QPS_RESET && attr->qp_state != IBX_QPS_ERR) {
		err = -EINVAL;
		goto out;
	}
	if (mask & IBX_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IBX_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num & 0xffffff;
	if (mask & IBX_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn & 0xffffff;
	if (mask & IBX_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn & 0xffffff;
	if (mask & IBX_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IBX_QP_PATH_MTU)
		qp->mtu = ibx_mtu_to_bytes(attr->path_mtu);
	if (mask & IBX_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer & 0x1f;
	if (mask & IBX_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry & 7;
	if (mask & IBX_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt & 7;
	if (mask & IBX_QP_TIMEOUT)
		qp->timeout = attr->timeout & 0x1f;
	if (mask & IBX_QP_AV) {
		qp->dgid = attr->ah_attr.dgid;
		qp->sgid_index = attr->ah_attr.sgid_index;
		qp->hop_limit = attr->ah_attr.hop_limit;
		qp->traffic_class = attr->ah_attr.traffic_class;
		qp->flow_label = attr->ah_attr.flow_label;
	}
	if (mask & IBX_QP_STATE) {
		if (attr->qp_state == IBX_QPS_RESET)
			mlx_hw_qp_reset(qp);
		if (attr->qp_state == IBX_QPS_RTR)
			qp->comm_est = false;
		/* IBA 11.6.3: SQ_DRAINED when the send queue has drained. */
		qp->sqd_notify = attr->qp_state == IBX_QPS_SQD &&
				 (mask & IBX_QP_EN_SQD_ASYNC_NOTIFY) &&
				 attr->en_sqd_async_notify;
		/*
		 * ERR (and SQE, which this model treats as ERR): the engine
		 * flushes the outstanding WQEs after the kick below.
		 */
		WRITE_ONCE(qp->state, attr->qp_state == IBX_QPS_SQE ?
				      IBX_QPS_ERR : attr->qp_state);
	}
out:
	mutex_unlock(&qp->rq_lock);
	mutex_unlock(&qp->sq_lock);
	mlx_hw_engine_kick(to_mdev(ibqp->dev));
	return err;
}

void mlx_hw_destroy_qp(struct ibx_qp *ibqp)
{
	struct mlx_hw_dev *dev = to_mdev(ibqp->dev);
	struct mlx_hw_qp *qp = to_mqp(ibqp);

	xa_erase(&dev->qp_xa, ibqp->qp_num);
	/* Wait for the engine and loopback senders to let go of it. */
	mlx_hw_obj_drain(&qp->obj);
	mutex_lock(&qp->sq_lock);
	mutex_lock(&qp->rq_lock);
	mlx_hw_req_release(qp);
	mlx_hw_resp_release(qp);
	mutex_unlock(&qp->rq_lock);
	mutex_unlock(&qp->sq_lock);
	if (ibqp->uctx)		/* XRC TGT QPs are not mapped */
		mlx_hw_mmap_remove(to_muctx(ibqp->uctx), qp->mmap_key);
	mlx_hw_region_put(qp->region);
	kfree(qp->wqe_buf);
}

/* ---------------- SRQ ---------------- */

int mlx_hw_create_srq(struct ibx_srq *ibsrq, struct ibx_srq_attr *attr,
		      struct ibx_udata *udata)
{
	struct mlx_hw_dev *dev = to_mdev(ibsrq->dev);
	struct mlx_hw_srq *srq = to_msrq(ibsrq);
	struct mlx_hw_create_srq_resp resp = {};
	u32 srqn;
	int err;

	if (!ibsrq->uctx || (ibsrq->srq_type != IB_UVERBS_SRQT_BASIC &&
			     ibsrq->srq_type != IB_UVERBS_SRQT_XRC))
		return -EOPNOTSUPP;
	if (attr->max_wr < 1 || attr->max_wr > MLX_HW_MAX_QP_WR ||
	    attr->max_sge > MLX_HW_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	srq->stride = roundup_pow_of_two(max_t(u32,
		sizeof(struct mlx_hw_rwqe) + attr->max_sge * MLX_HW_WQE_SEG,
		MLX_HW_RQ_MIN_STRIDE));
	srq->wqe_cnt = roundup_pow_of_two(attr->max_wr);
	srq->max_sge = min_t(u32, MLX_HW_MAX_SGE,
			     (srq->stride - sizeof(struct mlx_hw_rwqe)) /
			     MLX_HW_WQE_SEG);
	srq->limit = attr->srq_limit;
	mutex_init(&srq->lock);
	mlx_hw_obj_init(&srq->obj);

	srq->region = mlx_hw_region_alloc(MLX_HW_DB_PAGE +
					  (size_t)srq->wqe_cnt * srq->stride,
					  false);
	if (!srq->region)
		return -ENOMEM;
	srq->db = srq->region->vaddr;
	srq->ring = srq->region->vaddr + MLX_HW_DB_PAGE;
	err = mlx_hw_mmap_insert(to_muctx(ibsrq->uctx), srq->region,
				 &srq->mmap_key);
	if (err)
		goto err_region;
	err = xa_alloc_cyclic(&dev->srq_xa, &srqn, NULL,
			      XA_LIMIT(1, MLX_HW_MAX_SRQ), &dev->srq_next,
			      GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_mmap;
	}
	srq->srqn = srqn;
	ibsrq->srq_num = srqn;

	resp.mmap_key = srq->mmap_key;
	resp.mmap_len = srq->region->size;
	resp.srqn = srqn;
	resp.ring_offset = MLX_HW_DB_PAGE;
	resp.wqe_cnt = srq->wqe_cnt;
	resp.stride = srq->stride;
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	attr->max_wr = srq->wqe_cnt;
	attr->max_sge = srq->max_sge;
	/* Published last: XRC responders find it from now on. */
	xa_store(&dev->srq_xa, srqn, srq, GFP_KERNEL);
	return 0;

err_xa:
	xa_erase(&dev->srq_xa, srqn);
err_mmap:
	mlx_hw_mmap_remove(to_muctx(ibsrq->uctx), srq->mmap_key);
err_region:
	mlx_hw_region_put(srq->region);
	return err;
}

/* The SRQ numbered @srqn, referenced, for XRC TGT responders. */
struct mlx_hw_srq *mlx_hw_srq_get(struct mlx_hw_dev *dev, u32 srqn)
{
	return mlx_hw_xa_get(&dev->srq_xa, srqn, struct mlx_hw_srq);
}

/* Mask bits of ibv_srq_attr_mask. */
#define MLX_HW_SRQ_MAX_WR	(1 << 0)
#define MLX_HW_SRQ_LIMIT	(1 << 1)

int mlx_hw_modify_srq(struct ibx_srq *ibsrq, const struct ibx_srq_attr *attr,
		      u32 mask, struct ibx_udata *udata)
{
	struct mlx_hw_srq *srq = to_msrq(ibsrq);

	if (mask & MLX_HW_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* no SRQ resize */
	if (mask & MLX_HW_SRQ_LIMIT) {
		if (attr->srq_limit > srq->wqe_cnt)
			return -EINVAL;
		mutex_lock(&srq->lock);
		srq->limit = attr->srq_limit;
		mutex_unlock(&srq->lock);
	}
	return 0;
}

int mlx_hw_query_srq(struct ibx_srq *ibsrq, struct ibx_srq_attr *attr)
{
	struct mlx_hw_srq *srq = to_msrq(ibsrq);

	attr->max_wr = srq->wqe_cnt;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

void mlx_hw_destroy_srq(struct ibx_srq *ibsrq)
{
	struct mlx_hw_dev *dev = to_mdev(ibsrq->dev);
	struct mlx_hw_srq *srq = to_msrq(ibsrq);

	/*
	 * The core destroys QPs using it first; XRC TGT QPs of any process
	 * may still be executing a request that names it.
	 */
	xa_erase(&dev->srq_xa, srq->srqn);
	mlx_hw_obj_drain(&srq->obj);
	mlx_hw_mmap_remove(to_muctx(ibsrq->uctx), srq->mmap_key);
	mlx_hw_region_put(srq->region);
}
