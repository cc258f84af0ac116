// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qp.c - queue pairs, their control path: create (ring geometry,
 * docs/prm.md 4-5, and the region), modify (the attribute copy the data
 * path works from, quiescing its sides first) and destroy.  What the data
 * path asks of a QP (its timer, its move to ERR, its paths) is qp_data.c.
 */
#include <linux/etherdevice.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include "mlx_hw.h"

static_assert(sizeof(struct mlx_hw_wqe_ctrl) == 16);
static_assert(sizeof(struct mlx_hw_wqe_ud) == 48);
static_assert(sizeof(struct mlx_hw_wqe_raddr) + sizeof(struct mlx_hw_wqe_atomic) == 32);
static_assert(sizeof(struct mlx_hw_wqe_bind) == 32);
static_assert(sizeof(struct mlx_hw_wqe_xrc) == 16);
static_assert(sizeof(struct mlx_hw_wqe_data) == 16);
static_assert(sizeof(struct mlx_hw_rwqe) == 16);

/*
 * QP objects come from a cache of their size (ops alloc_qp_obj): kmalloc
 * would round a struct mlx_hw_qp up to the next power of two, and the
 * footprint target counts every QP (docs/performance.md 7).
 */
static struct kmem_cache *mlx_hw_qp_cache;

void *mlx_hw_alloc_qp_obj(void)
{
	return kmem_cache_zalloc(mlx_hw_qp_cache, GFP_KERNEL);
}

void mlx_hw_free_qp_obj(void *obj)
{
	kmem_cache_free(mlx_hw_qp_cache, obj);
}

int mlx_hw_qp_cache_init(void)
{
	mlx_hw_qp_cache = KMEM_CACHE(mlx_hw_qp, 0);
	return mlx_hw_qp_cache ? 0 : -ENOMEM;
}

/* After every device is gone, and with it every QP. */
void mlx_hw_qp_cache_exit(void)
{
	kmem_cache_destroy(mlx_hw_qp_cache);
}

/*
 * The SQ stride: room for the largest WQE the QP may post, 16-byte
 * aligned (docs/prm.md 4.1).  A WQE has only the segments its opcode
 * needs (4.2): after ctrl and the UD or XRC segment, an atomic's remote
 * address and operands (RC, XRC) or a WRITE's remote address, then the
 * SGEs; or for inline data a WRITE's remote address, the byte count and
 * the bytes; a BIND_MW's segment.  Inline data holds at least what the
 * gather list does, as on rxe: programs post small sends IBV_SEND_INLINE
 * on QPs created without asking for inline (rdma_xclient sends 16 bytes
 * with one SGE).  Sets max_send_sge and max_inline to what every opcode
 * can carry in that stride.
 */
static void mlx_hw_sq_geometry(struct mlx_hw_qp *qp, u32 type,
			       const struct ibx_qp_cap *cap)
{
	bool ud = mlx_hw_qp_is_ud(type);
	u32 pre = sizeof(struct mlx_hw_wqe_ctrl), gather_hdr, inline_hdr;
	u32 sge_bytes = max_t(u32, cap->max_send_sge, 1) * MLX_HW_WQE_SEG;
	u32 inl = max(cap->max_inline_data, cap->max_send_sge * MLX_HW_WQE_SEG);
	u32 wqe;

	if (ud)
		pre += sizeof(struct mlx_hw_wqe_ud);
	else if (type == IB_UVERBS_QPT_XRC_INI)
		pre += sizeof(struct mlx_hw_wqe_xrc);
	if (ud)
		gather_hdr = 0;
	else if (type == IB_UVERBS_QPT_UC)
		gather_hdr = sizeof(struct mlx_hw_wqe_raddr);
	else
		gather_hdr = sizeof(struct mlx_hw_wqe_raddr) +
			     sizeof(struct mlx_hw_wqe_atomic);
	inline_hdr = ud ? 0 : sizeof(struct mlx_hw_wqe_raddr);
	wqe = max3(pre + gather_hdr + sge_bytes,
		   pre + inline_hdr + 4 + inl,
		   ud ? 0 : pre + (u32)sizeof(struct mlx_hw_wqe_bind));
	qp->sq_stride = ALIGN(max_t(u32, wqe, MLX_HW_SQ_MIN_STRIDE),
			      MLX_HW_WQE_SEG);
	qp->max_send_sge = min_t(u32, MLX_HW_MAX_SGE,
				 (qp->sq_stride - pre - gather_hdr) /
				 MLX_HW_WQE_SEG);
	qp->max_inline = min_t(u32, MLX_HW_MAX_INLINE,
			       qp->sq_stride - pre - inline_hdr - 4);
}

/* Computes ring geometry from the requested caps (docs/prm.md 4.1, 5). */
static int mlx_hw_qp_geometry(struct mlx_hw_qp *qp,
			      struct ibx_qp_init_attr *init, bool has_srq)
{
	struct ibx_qp_cap *cap = &init->cap;

	if (cap->max_send_wr > MLX_HW_MAX_QP_WR ||
	    cap->max_send_sge > MLX_HW_MAX_SGE ||
	    cap->max_inline_data > MLX_HW_MAX_INLINE)
		return -EINVAL;
	if (!has_srq && (cap->max_recv_wr > MLX_HW_MAX_QP_WR ||
			 cap->max_recv_sge > MLX_HW_MAX_SGE))
		return -EINVAL;

	mlx_hw_sq_geometry(qp, init->qp_type, cap);
	if (qp->sq_stride > MLX_HW_SQ_MAX_STRIDE)
		return -EINVAL;
	qp->sq_wqe_cnt = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1));

	if (has_srq) {
		qp->rq_wqe_cnt = 0;
		qp->rq_stride = 0;
		qp->max_recv_sge = 0;
	} else {
		qp->rq_stride = mlx_hw_rq_stride(cap->max_recv_sge);
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
	mlx_hw_side_init(&qp->send_side);
	mlx_hw_side_init(&qp->recv_side);
	mutex_init(&qp->ctrl_lock);
	spin_lock_init(&qp->path_lock);
	seqcount_spinlock_init(&qp->path_seq, &qp->path_lock);
	skb_queue_head_init(&qp->resp_pkts);
	skb_queue_head_init(&qp->comp_pkts);
	INIT_LIST_HEAD(&qp->run_node);
	mlx_hw_qp_timer_init(qp);
	qp->state = IBX_QPS_RESET;
	qp->mig_state = IBX_MIG_MIGRATED;
	qp->port = qp->ibx.attr.port_num;	/* kernel QPs: set at creation */
	qp->mtu = 256;
	qp->resp.res_cnt = 1;
	mlx_hw_req_reset(qp);
}

/*
 * The segments of the QP's resolved lists, as many as its WQEs may have
 * (a list of 32 in the QP itself made every QP 8 KiB of slab): the send
 * WQE being sent and the local buffers a READ response or atomic result
 * lands in hold up to max_send_sge; a receive WQE up to @recv_sge; the
 * target of a WRITE and the source of a READ response, one rkey range.
 */
static int mlx_hw_qp_alloc_segs(struct mlx_hw_qp *qp, u32 recv_sge)
{
	u32 send = max_t(u32, qp->max_send_sge, 1);
	struct mlx_hw_seg *seg;

	recv_sge = max_t(u32, recv_sge, 1);
	seg = kcalloc(2 * send + recv_sge + 2, sizeof(*seg), GFP_KERNEL);
	if (!seg)
		return -ENOMEM;
	qp->segs = seg;
	mlx_hw_sgl_attach(&qp->req.sgl, seg, send);
	mlx_hw_sgl_attach(&qp->comp_scratch, seg += send, send);
	mlx_hw_sgl_attach(&qp->resp.rwqe, seg += send, recv_sge);
	mlx_hw_sgl_attach(&qp->resp.wr_dst, seg += recv_sge, 1);
	mlx_hw_sgl_attach(&qp->resp_scratch, seg + 1, 1);
	return 0;
}

/*
 * The send window: min(SQ size, MLX_HW_SEND_WINDOW) entries; the bodies of
 * the WQE the requester sends and of the one whose READ response or
 * atomic result the completer places, each with room for the QP's SGEs or
 * inline data; the buffer a WQE is copied into to be parsed (swqe.c); and
 * the segments (mlx_hw_qp_alloc_segs).
 */
static int mlx_hw_qp_alloc_bufs(struct mlx_hw_qp *qp, u32 recv_sge)
{
	u32 data = max_t(u32, qp->max_send_sge * sizeof(struct mlx_hw_sge),
			 qp->max_inline);
	size_t win, body;

	qp->win_size = min_t(u32, qp->sq_wqe_cnt, MLX_HW_SEND_WINDOW);
	win = qp->win_size * sizeof(*qp->window);
	body = ALIGN(sizeof(struct mlx_hw_swqe_body) + data, 8);
	qp->window = kvzalloc(win + 2 * body + qp->sq_stride, GFP_KERNEL);
	if (!qp->window)
		return -ENOMEM;
	qp->req.body = (void *)qp->window + win;
	qp->comp.body = (void *)qp->req.body + body;
	qp->wqe_buf = (void *)qp->comp.body + body;
	if (mlx_hw_qp_alloc_segs(qp, recv_sge)) {
		kvfree(qp->window);
		return -ENOMEM;
	}
	return 0;
}

static void mlx_hw_qp_free_bufs(struct mlx_hw_qp *qp)
{
	kvfree(qp->window);
	kfree(qp->segs);
}

/*
 * An XRC TGT QP has no queues and no mapping: only its number and the
 * responder state.  It still gets a doorbell record, never mapped, that
 * stays zero, so the engine's queue scans find nothing to do on it.
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
	/* A receive WQE may come from any XRC SRQ the sender names. */
	if (mlx_hw_qp_alloc_segs(qp, MLX_HW_MAX_SGE))
		return -ENOMEM;
	err = mlx_hw_dbrec_alloc(NULL, &qp->dbrec);
	if (err) {
		kfree(qp->segs);
		return err;
	}
	qp->db = qp->dbrec.vaddr;
	err = xa_alloc_cyclic_bh(&dev->qp_xa, &qpn, NULL,
				 XA_LIMIT(MLX_HW_MIN_QPN, MLX_HW_MAX_QPN),
				 &dev->qp_next, GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_dbrec;
	}
	qp->ibx.qp_num = qpn;
	err = ibx_udata_copy_to(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	/* Published last: loopback senders find it from now on. */
	xa_store_bh(&dev->qp_xa, qpn, qp, GFP_KERNEL);
	return 0;
err_xa:
	xa_erase_bh(&dev->qp_xa, qpn);
err_dbrec:
	mlx_hw_dbrec_free(NULL, &qp->dbrec);
	kfree(qp->segs);
	return err;
}

/*
 * A QP number: the next free one of the device's space, or 1 for the GSI
 * QP, which each device (one port) has at most once.  The entry is
 * reserved (NULL) until the QP is published.
 */
static int mlx_hw_qp_alloc_qpn(struct mlx_hw_dev *dev, u32 qp_type, u32 *qpn)
{
	int err;

	if (qp_type == IBX_QPT_GSI) {
		*qpn = IBX_GSI_QPN;
		err = xa_insert_bh(&dev->qp_xa, IBX_GSI_QPN, NULL, GFP_KERNEL);
		return err == -EBUSY ? -EBUSY : err;
	}
	err = xa_alloc_cyclic_bh(&dev->qp_xa, qpn, NULL,
				 XA_LIMIT(MLX_HW_MIN_QPN, MLX_HW_MAX_QPN),
				 &dev->qp_next, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	return 0;
}

int mlx_hw_create_qp(struct ibx_qp *ibqp, struct ibx_qp_init_attr *init,
		     struct ibx_udata *udata)
{
	struct mlx_hw_ucontext *uctx = mlx_hw_uctx(ibqp->uctx);
	struct mlx_hw_dev *dev = to_mdev(ibqp->dev);
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	struct mlx_hw_create_qp_resp resp = {};
	size_t sq_size, rq_size;
	u32 qpn;
	int err;

	switch (init->qp_type) {
	case IB_UVERBS_QPT_RC:
	case IB_UVERBS_QPT_UD:
		break;
	case IB_UVERBS_QPT_UC:
	case IB_UVERBS_QPT_XRC_INI:
		if (!ibqp->uctx)
			return -EOPNOTSUPP;	/* no kernel consumer needs them */
		break;
	case IBX_QPT_GSI:
		/* QP1 belongs to the MAD layer: never a user's. */
		if (ibqp->uctx)
			return -EOPNOTSUPP;
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
	err = mlx_hw_qp_alloc_bufs(qp, ibqp->srq ? to_msrq(ibqp->srq)->max_sge :
						   qp->max_recv_sge);
	if (err)
		return err;
	sq_size = (size_t)qp->sq_wqe_cnt * qp->sq_stride;
	rq_size = (size_t)qp->rq_wqe_cnt * qp->rq_stride;
	err = mlx_hw_dbrec_alloc(uctx, &qp->dbrec);
	if (err)
		goto err_buf;
	qp->db = qp->dbrec.vaddr;
	qp->region = mlx_hw_region_alloc(sq_size + rq_size, false);
	err = -ENOMEM;
	if (!qp->region)
		goto err_dbrec;
	qp->sq = qp->region->vaddr;
	qp->rq = rq_size ? qp->sq + sq_size : NULL;

	spin_lock_init(&qp->kpost_lock);
	/* A kernel QP (kverbs.c) is posted to in place: no mapping. */
	if (uctx) {
		err = mlx_hw_mmap_insert(uctx, qp->region, &qp->mmap_key);
		if (err)
			goto err_region;
	}
	err = mlx_hw_qp_alloc_qpn(dev, init->qp_type, &qpn);
	if (err)
		goto err_mmap;
	ibqp->qp_num = qpn;
	/* QP1's Q_Key is fixed: GSI datagrams carry 0x80010000 (IBA 13.5.1). */
	if (init->qp_type == IBX_QPT_GSI)
		qp->qkey = IBX_GSI_QKEY;

	resp.mmap_key = qp->mmap_key;
	resp.mmap_len = qp->region->size;
	resp.sq_offset = 0;
	resp.sq_wqe_cnt = qp->sq_wqe_cnt;
	resp.sq_stride = qp->sq_stride;
	resp.rq_offset = sq_size;
	resp.rq_wqe_cnt = qp->rq_wqe_cnt;
	resp.rq_stride = qp->rq_stride;
	resp.max_inline_data = qp->max_inline;
	mlx_hw_dbrec_resp(&qp->dbrec, &resp.db_key, &resp.db_offset);
	err = udata ? ibx_udata_copy_to(udata, &resp, sizeof(resp)) : 0;
	if (err)
		goto err_xa;
	/* Published last: the engine and loopback find it from now on. */
	xa_store_bh(&dev->qp_xa, qpn, qp, GFP_KERNEL);
	return 0;

err_xa:
	xa_erase_bh(&dev->qp_xa, qpn);
err_mmap:
	if (uctx)
		mlx_hw_mmap_remove(uctx, qp->mmap_key);
err_region:
	mlx_hw_region_put(qp->region);
err_dbrec:
	mlx_hw_dbrec_free(uctx, &qp->dbrec);
err_buf:
	mlx_hw_qp_free_bufs(qp);
	return err;
}

/*
 * Takes both sides from the data path, for a change of what they work
 * from: no context runs either when this returns.  ctrl_lock held.
 */
static void mlx_hw_qp_pause(struct mlx_hw_qp *qp)
{
	lockdep_assert_held(&qp->ctrl_lock);
	mlx_hw_side_pause(&qp->send_side);
	mlx_hw_side_pause(&qp->recv_side);
}

/* Gives both sides back; work offered meanwhile runs at once. */
static void mlx_hw_qp_resume(struct mlx_hw_qp *qp)
{
	bool pending = mlx_hw_side_resume(&qp->recv_side);

	if (mlx_hw_side_resume(&qp->send_side) || pending)
		mlx_hw_qp_schedule(qp);
}

/* Forgets all transport state; both sides paused. */
static void mlx_hw_qp_reset(struct mlx_hw_qp *qp)
{
	mlx_hw_req_reset(qp);
	mlx_hw_resp_reset(qp);
	skb_queue_purge(&qp->comp_pkts);
	qp->comp.direct.valid = false;
	qp->comp.timeout_at = 0;
	qp->comp.retries = 0;
	qp->comp.rnr_retries = 0;
	qp->sq_ci = 0;
	qp->rq_ci = 0;
	qp->db_corrupt = false;
	qp->last_wqe_reached = false;
	/* RTR allocates them again (mlx_hw_qp_new_res). */
	kfree(qp->resp.res);
	qp->resp.res = NULL;
	mlx_hw_apm_reset(qp);
	memset(qp->db, 0, sizeof(*qp->db));
}

/* The attributes the data path copies; both sides paused. */
static void mlx_hw_qp_copy_attr(struct mlx_hw_qp *qp,
				const struct ibx_qp_attr *attr, u32 mask)
{
	if (mask & IBX_QP_QKEY)
		WRITE_ONCE(qp->qkey, attr->qkey);
	if (mask & IBX_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num & MLX_HW_QPN_MASK;
	if (mask & IBX_QP_SQ_PSN) {
		qp->req.next_psn = attr->sq_psn & MLX_HW_PSN_MASK;
		qp->req.psn_max = qp->req.next_psn;
		qp->comp.psn = qp->req.next_psn;
	}
	if (mask & IBX_QP_RQ_PSN)
		qp->resp.psn = attr->rq_psn & MLX_HW_PSN_MASK;
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
		WRITE_ONCE(qp->timeout, attr->timeout & 0x1f);
	if (mask & IBX_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (!(mask & (IBX_QP_AV | IBX_QP_DEST_QPN)))
		return;
	/* recv.c compares packets with the path meanwhile: a write section. */
	mlx_hw_path_write_begin(qp);
	if (mask & IBX_QP_AV)
		qp->ah = attr->ah_attr;
	mlx_hw_av_set(to_mdev(qp->ibx.dev), &qp->av, qp->ah.sgid_index,
		      &qp->ah.dgid, qp->ah.traffic_class, qp->ah.hop_limit,
		      qp->ah.flow_label, qp->ibx.qp_num, qp->dest_qpn, NULL);
	mlx_hw_path_write_end(qp);
}

/*
 * The responder resources a modify_qp leaves the QP with (IBA 9.7.5.1.5):
 * max_dest_rd_atomic of them, at least one, for a reliable QP once it is
 * in RTR, RTS or SQD, where the responder runs (an XRC INI QP too, for a
 * request misrouted to it).  Returns a new table to put in place, NULL if
 * the QP keeps what it has, or an ERR_PTR; @cnt gets the size.  Allocated
 * here, so that the data path never allocates and never lacks them.
 * ctrl_lock held.
 */
static struct mlx_hw_res *mlx_hw_qp_new_res(struct mlx_hw_qp *qp,
					    const struct ibx_qp_attr *attr,
					    u32 mask, u32 *cnt)
{
	int next = (mask & IBX_QP_STATE) ? attr->qp_state :
					   READ_ONCE(qp->state);
	struct mlx_hw_res *res;

	lockdep_assert_held(&qp->ctrl_lock);
	*cnt = (mask & IBX_QP_MAX_DEST_RD_ATOMIC) ?
	       max_t(u32, 1, attr->max_dest_rd_atomic) : qp->resp.res_cnt;
	if (!mlx_hw_qp_reliable(qp->ibx.qp_type) || next == IBX_QPS_RESET)
		return NULL;
	/* A table the QP has keeps its size in every state. */
	if (qp->resp.res ? *cnt == qp->resp.res_cnt :
	    next != IBX_QPS_RTR && next != IBX_QPS_RTS && next != IBX_QPS_SQD)
		return NULL;
	res = kcalloc(*cnt, sizeof(*res), GFP_KERNEL);
	return res ?: ERR_PTR(-ENOMEM);
}

int mlx_hw_modify_qp(struct ibx_qp *ibqp, const struct ibx_qp_attr *attr,
		     u32 mask, struct ibx_udata *udata)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);
	struct mlx_hw_res *res = NULL;
	u32 res_cnt;
	int err = 0;

	if ((mask & IBX_QP_PATH_MTU) &&
	    (attr->path_mtu < IBX_MTU_256 || attr->path_mtu > IBX_MTU_4096))
		return -EINVAL;
	if ((mask & IBX_QP_AV) &&
	    attr->ah_attr.sgid_index >= IBX_GID_TABLE_LEN)
		return -EINVAL;
	if ((mask & IBX_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > MLX_HW_MAX_INIT_RD_ATOM)
		return -EINVAL;
	if ((mask & IBX_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > MLX_HW_MAX_RD_ATOM)
		return -EINVAL;
	if ((mask & IBX_QP_PORT) && attr->port_num != 1)
		return -EINVAL;

	mutex_lock(&qp->ctrl_lock);
	mlx_hw_qp_pause(qp);
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
	err = mlx_hw_apm_check(qp, attr, mask);
	if (err)
		goto out;
	res = mlx_hw_qp_new_res(qp, attr, mask, &res_cnt);
	if (IS_ERR(res)) {
		err = PTR_ERR(res);
		res = NULL;
		goto out;
	}
	if (res)
		res = mlx_hw_resp_res_replace(qp, res, res_cnt);
	else
		qp->resp.res_cnt = res_cnt;
	mlx_hw_qp_copy_attr(qp, attr, mask);
	mlx_hw_apm_modify(qp, attr, mask);
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
		 * flushes the outstanding WQEs once it runs the QP.
		 */
		mlx_hw_qp_set_state(qp, attr->qp_state == IBX_QPS_SQE ?
					IBX_QPS_ERR : attr->qp_state);
	}
out:
	mlx_hw_qp_resume(qp);
	mutex_unlock(&qp->ctrl_lock);
	kfree(res);	/* the table replaced */
	mlx_hw_qp_schedule(qp);
	return err;
}

void mlx_hw_destroy_qp(struct ibx_qp *ibqp)
{
	struct mlx_hw_dev *dev = to_mdev(ibqp->dev);
	struct mlx_hw_qp *qp = to_mqp(ibqp);

	/*
	 * The WQEs posted before the destroy go out first, as on a HCA,
	 * where the doorbell reaches the hardware before the destroy command
	 * does.  Here the doorbell may still wait in the ring for the engine
	 * thread, and applications count on the sends: rdma-core's mckey
	 * posts its datagrams unsignaled and destroys the QP at once.
	 */
	if (READ_ONCE(qp->state) == IBX_QPS_RTS)
		mlx_hw_qp_send_here(qp);
	xa_erase_bh(&dev->qp_xa, ibqp->qp_num);
	/*
	 * Wait for the engine and packet senders to let go of it; after
	 * that nothing schedules it (no reference can be taken), so the
	 * timer can be stopped for good.
	 */
	mlx_hw_obj_drain(&qp->obj, "a QP", NULL);
	hrtimer_cancel(&qp->timer);
	/* For good: nothing can offer it work now, so no resume. */
	mutex_lock(&qp->ctrl_lock);
	mlx_hw_qp_pause(qp);
	mlx_hw_qp_reset(qp);
	mutex_unlock(&qp->ctrl_lock);
	if (qp->region) {	/* XRC TGT QPs have none */
		if (ibqp->uctx)
			mlx_hw_mmap_remove(to_muctx(ibqp->uctx), qp->mmap_key);
		mlx_hw_region_put(qp->region);
	}
	mlx_hw_dbrec_free(mlx_hw_uctx(ibqp->uctx), &qp->dbrec);
	mlx_hw_qp_free_bufs(qp);
	kfree(qp->alt);		/* kept across RESET (model.h) */
}
