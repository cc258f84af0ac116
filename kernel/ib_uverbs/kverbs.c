// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kverbs.c - verbs for kernel consumers (the MAD layer, the CM): PDs, MRs
 * over kernel memory, CQs with a completion handler, QPs (RC, UD, GSI),
 * AHs, and the data path (post_send/post_recv/poll_cq), on the driver ops
 * of ibx_core.h.  Kernel objects have no uobject and no handle: the
 * consumer holds the pointers, and the use counts below refuse destroying
 * an object another one still depends on (upstream ib_core WARNs there;
 * we return -EBUSY and keep the object).
 */
#include <linux/module.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include "core_priv.h"
#include "ibx_kverbs.h"

#define IBX_PSN_MASK		0xffffff	/* BTH PSN is 24 bits (IBA 9.2) */
#define IBX_QPN_MASK		0xffffff	/* BTH DestQP is 24 bits */

/* Allocates a zeroed driver object of the driver's size for @core_size. */
static void *ibx_kobj_alloc(size_t drv_size, size_t core_size)
{
	return kzalloc(max(drv_size, core_size), GFP_KERNEL);
}

/**
 * ibx_query_port - port attributes of a device
 * @dev: the device
 * @port: port number, 1..phys_port_cnt
 * @attr: filled as the QUERY_PORT command would
 *
 * Return: 0 or -EINVAL for a port the device does not have.
 */
int ibx_query_port(struct ibx_device *dev, u32 port,
		   struct ib_uverbs_query_port_resp *attr)
{
	return ibx_port_query(dev, port, attr);
}
EXPORT_SYMBOL_GPL(ibx_query_port);

/**
 * ibx_alloc_pd - allocates a kernel protection domain
 * @dev: the device
 *
 * Return: the PD or an ERR_PTR().
 */
struct ibx_pd *ibx_alloc_pd(struct ibx_device *dev)
{
	const struct ibx_device_ops *ops = dev->ops;
	struct ibx_pd *pd;
	int ret;

	if (!ops->alloc_pd || !ops->post_send)
		return ERR_PTR(-EOPNOTSUPP);
	pd = ibx_kobj_alloc(ops->size_pd, sizeof(*pd));
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->dev = dev;
	atomic_set(&pd->usecnt, 0);
	ret = ops->alloc_pd(pd, NULL);
	if (ret) {
		kfree(pd);
		return ERR_PTR(ret);
	}
	return pd;
}
EXPORT_SYMBOL_GPL(ibx_alloc_pd);

/**
 * ibx_dealloc_pd - frees a kernel PD
 * @pd: the PD, from ibx_alloc_pd()
 *
 * Return: 0, or -EBUSY while MRs, QPs or AHs of it exist.
 */
int ibx_dealloc_pd(struct ibx_pd *pd)
{
	if (atomic_read(&pd->usecnt))
		return -EBUSY;
	pd->dev->ops->dealloc_pd(pd);
	kfree(pd);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_dealloc_pd);

static struct ibx_mr *ibx_kmr_create(struct ibx_pd *pd, u64 iova, u64 length,
				     u32 access)
{
	const struct ibx_device_ops *ops = pd->dev->ops;
	struct ibx_mr *mr;
	int ret;

	if (!ops->reg_mr)
		return ERR_PTR(-EOPNOTSUPP);
	mr = ibx_kobj_alloc(ops->size_mr, sizeof(*mr));
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dev = pd->dev;
	mr->pd = pd;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	ret = ops->reg_mr(mr, NULL);
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return mr;
}

/**
 * ibx_get_dma_mr - the local key for all kernel memory of a PD
 * @pd: a kernel PD
 * @access: 0 or IB_UVERBS_ACCESS_LOCAL_WRITE
 *
 * SGEs with this lkey carry kernel virtual addresses; the device checks
 * each page is linear-map or vmalloc memory, and fails the work request
 * with a protection error otherwise.  Remote access is refused: it would
 * expose all of kernel memory to the network.
 *
 * Return: the MR or an ERR_PTR().
 */
struct ibx_mr *ibx_get_dma_mr(struct ibx_pd *pd, u32 access)
{
	if (pd->uctx || (access & ~IB_UVERBS_ACCESS_LOCAL_WRITE))
		return ERR_PTR(-EINVAL);
	return ibx_kmr_create(pd, 0, U64_MAX, access);
}
EXPORT_SYMBOL_GPL(ibx_get_dma_mr);

/**
 * ibx_reg_kernel_mr - registers a range of kernel virtual memory
 * @pd: a kernel PD
 * @addr: start (kmalloc, vmalloc or page-backed memory)
 * @length: bytes, > 0
 * @access: IB_UVERBS_ACCESS_* (remote write/atomic need local write)
 *
 * The keys name [@addr, @addr + @length); addresses in SGEs and RDMA
 * requests are kernel virtual addresses in that range.
 *
 * Return: the MR or an ERR_PTR().
 */
struct ibx_mr *ibx_reg_kernel_mr(struct ibx_pd *pd, void *addr, u64 length,
				 u32 access)
{
	u64 va = (u64)(uintptr_t)addr;

	if (pd->uctx || !addr || !length || va + length < va)
		return ERR_PTR(-EINVAL);
	return ibx_kmr_create(pd, va, length, access);
}
EXPORT_SYMBOL_GPL(ibx_reg_kernel_mr);

/**
 * ibx_dereg_mr - deregisters a kernel MR
 * @mr: from ibx_get_dma_mr() or ibx_reg_kernel_mr()
 *
 * Returns once the device no longer uses the memory.
 *
 * Return: 0 or the driver's refusal (e.g. -EINVAL with windows bound).
 */
int ibx_dereg_mr(struct ibx_mr *mr)
{
	const struct ibx_device_ops *ops = mr->dev->ops;
	struct ibx_pd *pd = mr->pd;
	int ret;

	if (ops->begin_dereg_mr) {
		ret = ops->begin_dereg_mr(mr);
		if (ret)
			return ret;
	}
	ops->dereg_mr(mr);
	kfree(mr);
	atomic_dec(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_dereg_mr);

/**
 * ibx_create_cq - creates a kernel completion queue
 * @dev: the device
 * @comp_handler: called when an armed CQ gets a completion (may be NULL)
 * @cq_context: passed to @comp_handler
 * @cqe: minimum number of entries
 *
 * Return: the CQ (cq->cqe is its capacity) or an ERR_PTR().
 */
struct ibx_cq *ibx_create_cq(struct ibx_device *dev,
			     ibx_comp_handler comp_handler, void *cq_context,
			     int cqe)
{
	const struct ibx_device_ops *ops = dev->ops;
	struct ibx_cq_init_attr attr = { .cqe = cqe };
	struct ibx_cq *cq;
	int ret;

	if (!ops->create_cq || !ops->poll_cq)
		return ERR_PTR(-EOPNOTSUPP);
	if (cqe < 1)
		return ERR_PTR(-EINVAL);
	cq = ibx_kobj_alloc(ops->size_cq, sizeof(*cq));
	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->dev = dev;
	cq->cqe = cqe;
	cq->comp_handler = comp_handler;
	cq->cq_context = cq_context;
	atomic_set(&cq->usecnt, 0);
	ret = ops->create_cq(cq, &attr, NULL);
	if (ret) {
		kfree(cq);
		return ERR_PTR(ret);
	}
	return cq;
}
EXPORT_SYMBOL_GPL(ibx_create_cq);

/**
 * ibx_destroy_cq - destroys a kernel CQ
 * @cq: from ibx_create_cq()
 *
 * Once it returns, @cq's comp_handler is not running and will not run.
 *
 * Return: 0, or -EBUSY while QPs use it.
 */
int ibx_destroy_cq(struct ibx_cq *cq)
{
	if (atomic_read(&cq->usecnt))
		return -EBUSY;
	cq->dev->ops->destroy_cq(cq);
	kfree(cq);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_destroy_cq);

/**
 * ibx_req_notify_cq - arms a kernel CQ
 * @cq: the CQ
 * @flags: IBX_CQ_NEXT_COMP or IBX_CQ_SOLICITED, optionally
 *	   IBX_CQ_REPORT_MISSED_EVENTS
 *
 * Return: 0; 1 with IBX_CQ_REPORT_MISSED_EVENTS if completions may be
 * waiting already (the consumer polls again; the CQ stays armed).
 */
int ibx_req_notify_cq(struct ibx_cq *cq, u32 flags)
{
	int ret;

	if (!cq->dev->ops->req_notify_cq)
		return -EOPNOTSUPP;
	ret = cq->dev->ops->req_notify_cq(cq, flags & IBX_CQ_SOLICITED);
	if (ret > 0 && !(flags & IBX_CQ_REPORT_MISSED_EVENTS))
		ret = 0;
	return ret;
}
EXPORT_SYMBOL_GPL(ibx_req_notify_cq);

/**
 * ibx_poll_cq - takes completions from a kernel CQ
 * @cq: the CQ
 * @num: at most this many
 * @wc: array of @num
 *
 * Return: the number of completions written to @wc.
 */
int ibx_poll_cq(struct ibx_cq *cq, int num, struct ibx_wc *wc)
{
	return cq->dev->ops->poll_cq(cq, num, wc);
}
EXPORT_SYMBOL_GPL(ibx_poll_cq);

/**
 * ibx_create_qp - creates a kernel QP
 * @pd: a kernel PD
 * @init: type, CQs, capacities (adjusted to the actual ones), context
 *
 * RC and UD QPs get a number of the device's space; an IBX_QPT_GSI QP is
 * QP1 of @init->port_num (one per port: -EBUSY if it exists).  The QP
 * starts in RESET.
 *
 * Return: the QP or an ERR_PTR().
 */
struct ibx_qp *ibx_create_qp(struct ibx_pd *pd, struct ibx_kqp_init_attr *init)
{
	struct ibx_device *dev = pd->dev;
	const struct ibx_device_ops *ops = dev->ops;
	struct ibx_qp_init_attr dinit = {};
	struct ibx_qp *qp;
	int ret;

	if (pd->uctx || !init->send_cq || !init->recv_cq ||
	    init->send_cq->uctx || init->recv_cq->uctx ||
	    init->send_cq->dev != dev || init->recv_cq->dev != dev)
		return ERR_PTR(-EINVAL);
	if (init->qp_type != IB_UVERBS_QPT_RC &&
	    init->qp_type != IB_UVERBS_QPT_UD && init->qp_type != IBX_QPT_GSI)
		return ERR_PTR(-EOPNOTSUPP);
	if (init->qp_type == IBX_QPT_GSI && !ibx_port_valid(dev, init->port_num))
		return ERR_PTR(-EINVAL);
	if (!ops->create_qp || !ops->post_send || !ops->post_recv)
		return ERR_PTR(-EOPNOTSUPP);
	qp = ibx_qp_obj_alloc(ops);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	qp->dev = dev;
	qp->pd = pd;
	qp->send_cq = init->send_cq;
	qp->recv_cq = init->recv_cq;
	qp->qp_type = init->qp_type;
	qp->sq_sig_all = init->sq_sig_all;
	qp->qp_context = init->qp_context;
	qp->attr.qp_state = IBX_QPS_RESET;
	qp->attr.port_num = init->port_num;
	dinit.qp_type = init->qp_type;
	dinit.cap = init->cap;
	dinit.sq_sig_all = init->sq_sig_all;
	ret = ops->create_qp(qp, &dinit, NULL);
	if (ret) {
		ibx_qp_obj_free(ops, qp);
		return ERR_PTR(ret);
	}
	init->cap = dinit.cap;
	qp->attr.cap = dinit.cap;
	atomic_inc(&pd->usecnt);
	atomic_inc(&qp->send_cq->usecnt);
	atomic_inc(&qp->recv_cq->usecnt);
	return qp;
}
EXPORT_SYMBOL_GPL(ibx_create_qp);

/* Range checks of the attributes @mask names (IBA 11.2.5 field widths). */
static int ibx_kqp_check_attr(struct ibx_qp *qp, const struct ibx_qp_attr *a,
			      u32 mask)
{
	struct ibx_device *dev = qp->dev;
	struct ib_uverbs_query_port_resp p;
	u32 port = (mask & IBX_QP_PORT) ? a->port_num :
		   (qp->attr.port_num ? qp->attr.port_num : 1);

	if ((mask & ~((IBX_QP_RATE_LIMIT << 1) - 1)) ||
	    ((mask & IBX_QP_STATE) && a->qp_state > IBX_QPS_ERR))
		return -EINVAL;
	if (ibx_port_query(dev, port, &p))
		return -EINVAL;
	if ((mask & IBX_QP_PKEY_INDEX) && a->pkey_index >= p.pkey_tbl_len)
		return -EINVAL;
	if (mask & IBX_QP_AV) {
		if (!a->ah_attr.is_global || a->ah_attr.port_num != port ||
		    !ibx_gid_valid(dev, port, a->ah_attr.sgid_index))
			return -EINVAL;
	}
	/* The alternate path: the same rules as the primary (IBA 17.2.8). */
	if (mask & IBX_QP_ALT_PATH) {
		const struct ibx_ah_attr *alt = &a->alt_ah_attr;
		struct ib_uverbs_query_port_resp ap;

		if (!ibx_port_valid(dev, a->alt_port_num) ||
		    ibx_port_query(dev, a->alt_port_num, &ap) ||
		    a->alt_pkey_index >= ap.pkey_tbl_len ||
		    !alt->is_global || alt->port_num != a->alt_port_num ||
		    !ibx_gid_valid(dev, a->alt_port_num, alt->sgid_index) ||
		    a->alt_timeout > 31)
			return -EINVAL;
	}
	if ((mask & IBX_QP_PATH_MIG_STATE) &&
	    !ibx_qp_mig_state_ok(a->path_mig_state))
		return -EINVAL;
	if ((mask & IBX_QP_PATH_MTU) &&
	    (a->path_mtu < IBX_MTU_256 || a->path_mtu > IBX_MTU_4096 ||
	     (p.active_mtu && a->path_mtu > p.active_mtu)))
		return -EINVAL;
	if (((mask & IBX_QP_TIMEOUT) && a->timeout > 31) ||
	    ((mask & IBX_QP_RETRY_CNT) && a->retry_cnt > 7) ||
	    ((mask & IBX_QP_RNR_RETRY) && a->rnr_retry > 7) ||
	    ((mask & IBX_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31) ||
	    ((mask & IBX_QP_MAX_QP_RD_ATOMIC) &&
	     a->max_rd_atomic > dev->attr.base.max_qp_init_rd_atom) ||
	    ((mask & IBX_QP_MAX_DEST_RD_ATOMIC) &&
	     a->max_dest_rd_atomic > dev->attr.base.max_qp_rd_atom))
		return -EINVAL;
	/* QP1's Q_Key is fixed (IBA 13.5.1 / C9-...: 0x80010000). */
	if (qp->qp_type == IBX_QPT_GSI && (mask & IBX_QP_QKEY) &&
	    a->qkey != IBX_GSI_QKEY)
		return -EINVAL;
	return 0;
}

/* Copies the attributes @mask names from @a into @to. */
static void ibx_kqp_merge_attr(struct ibx_qp_attr *to,
			       const struct ibx_qp_attr *a, u32 mask)
{
	static const struct {
		u32 bit;
		size_t off, len;
	} fields[] = {
#define F(b, f) { IBX_QP_##b, offsetof(struct ibx_qp_attr, f), \
		  sizeof_field(struct ibx_qp_attr, f) }
		F(STATE, qp_state), F(EN_SQD_ASYNC_NOTIFY, en_sqd_async_notify),
		F(ACCESS_FLAGS, qp_access_flags), F(PKEY_INDEX, pkey_index),
		F(PORT, port_num), F(QKEY, qkey), F(AV, ah_attr),
		F(PATH_MTU, path_mtu), F(TIMEOUT, timeout),
		F(RETRY_CNT, retry_cnt), F(RNR_RETRY, rnr_retry),
		F(RQ_PSN, rq_psn), F(MAX_QP_RD_ATOMIC, max_rd_atomic),
		F(ALT_PATH, alt_ah_attr), F(ALT_PATH, alt_port_num),
		F(ALT_PATH, alt_pkey_index), F(ALT_PATH, alt_timeout),
		F(MIN_RNR_TIMER, min_rnr_timer),
		F(SQ_PSN, sq_psn), F(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic),
		F(PATH_MIG_STATE, path_mig_state), F(DEST_QPN, dest_qp_num),
		F(RATE_LIMIT, rate_limit),
#undef F
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (mask & fields[i].bit)
			memcpy((u8 *)to + fields[i].off,
			       (const u8 *)a + fields[i].off, fields[i].len);
	to->rq_psn &= IBX_PSN_MASK;
	to->sq_psn &= IBX_PSN_MASK;
	to->dest_qp_num &= IBX_QPN_MASK;
}

/**
 * ibx_modify_qp - changes a kernel QP's state and attributes
 * @qp: the QP
 * @attr: the attributes @mask names
 * @mask: enum ibx_qp_attr_mask bits
 *
 * The transition and the required/optional attributes follow the IBA
 * table of qp_state.c, the same as the MODIFY_QP command.  Not to be
 * called concurrently for one QP.
 *
 * Return: 0 or -EINVAL (illegal transition, attribute out of range).
 */
int ibx_modify_qp(struct ibx_qp *qp, struct ibx_qp_attr *attr, u32 mask)
{
	struct ibx_qp_attr next;
	enum ibx_qp_state cur;
	int ret;

	ret = ibx_kqp_check_attr(qp, attr, mask);
	if (ret)
		return ret;
	cur = (mask & IBX_QP_CUR_STATE) ? attr->cur_qp_state :
					  READ_ONCE(qp->attr.qp_state);
	if (!ibx_qp_transition_ok(cur, (mask & IBX_QP_STATE) ? attr->qp_state :
				  cur, qp->qp_type, mask))
		return -EINVAL;
	ibx_qp_attr_current(qp, &next);
	ibx_kqp_merge_attr(&next, attr, mask);
	next.cur_qp_state = cur;
	if (!(mask & IBX_QP_STATE))
		next.qp_state = cur;
	ret = qp->dev->ops->modify_qp(qp, &next, mask, NULL);
	if (ret)
		return ret;
	next.cur_qp_state = next.qp_state;
	qp->attr = next;
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_modify_qp);

/**
 * ibx_destroy_qp - destroys a kernel QP
 * @qp: the QP
 *
 * Outstanding work requests are dropped without completions; once it
 * returns the device no longer touches the QP's buffers.
 *
 * Return: 0.
 */
int ibx_destroy_qp(struct ibx_qp *qp)
{
	const struct ibx_device_ops *ops = qp->dev->ops;
	struct ibx_pd *pd = qp->pd;
	struct ibx_cq *scq = qp->send_cq, *rcq = qp->recv_cq;

	ops->destroy_qp(qp);
	ibx_qp_obj_free(ops, qp);
	atomic_dec(&scq->usecnt);
	atomic_dec(&rcq->usecnt);
	atomic_dec(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_destroy_qp);

/**
 * ibx_post_send - posts send work requests to a kernel QP
 * @qp: the QP
 * @wr: a list of work requests
 * @bad_wr: on error, the first one not posted (may be NULL)
 *
 * Return: 0, -EINVAL (QP in RESET/INIT/RTR, bad WR), -ENOMEM (queue full).
 */
int ibx_post_send(struct ibx_qp *qp, const struct ibx_send_wr *wr,
		  const struct ibx_send_wr **bad_wr)
{
	const struct ibx_send_wr *dummy;

	return qp->dev->ops->post_send(qp, wr, bad_wr ? bad_wr : &dummy);
}
EXPORT_SYMBOL_GPL(ibx_post_send);

/**
 * ibx_post_recv - posts receive work requests to a kernel QP
 * @qp: the QP
 * @wr: a list of work requests
 * @bad_wr: on error, the first one not posted (may be NULL)
 *
 * Return: 0, -EINVAL (QP in RESET, bad WR), -ENOMEM (queue full).
 */
int ibx_post_recv(struct ibx_qp *qp, const struct ibx_recv_wr *wr,
		  const struct ibx_recv_wr **bad_wr)
{
	const struct ibx_recv_wr *dummy;

	return qp->dev->ops->post_recv(qp, wr, bad_wr ? bad_wr : &dummy);
}
EXPORT_SYMBOL_GPL(ibx_post_recv);

/**
 * ibx_create_ah - creates an address handle for UD/GSI sends
 * @pd: a kernel PD
 * @attr: the address vector; is_global must be set (RoCE) and the source
 *	  GID index valid
 *
 * Return: the AH or an ERR_PTR().
 */
struct ibx_ah *ibx_create_ah(struct ibx_pd *pd, const struct ibx_ah_attr *attr)
{
	struct ibx_device *dev = pd->dev;
	const struct ibx_device_ops *ops = dev->ops;
	struct ibx_ah *ah;
	int ret;

	if (pd->uctx || !ibx_port_valid(dev, attr->port_num) ||
	    !attr->is_global ||
	    !ibx_gid_valid(dev, attr->port_num, attr->sgid_index))
		return ERR_PTR(-EINVAL);
	if (!ops->create_ah)
		return ERR_PTR(-EOPNOTSUPP);
	ah = ibx_kobj_alloc(ops->size_ah, sizeof(*ah));
	if (!ah)
		return ERR_PTR(-ENOMEM);
	ah->dev = dev;
	ah->pd = pd;
	ah->attr = *attr;
	ah->attr.flow_label &= 0xfffff;
	/* The device resolves the MAC when it sends, as for user AHs. */
	eth_zero_addr(ah->attr.dmac);
	ret = ops->create_ah(ah, NULL);
	if (ret) {
		kfree(ah);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return ah;
}
EXPORT_SYMBOL_GPL(ibx_create_ah);

/**
 * ibx_destroy_ah - destroys an address handle
 * @ah: from ibx_create_ah()
 *
 * Work requests already posted with it keep their own copy of the path.
 *
 * Return: 0.
 */
int ibx_destroy_ah(struct ibx_ah *ah)
{
	struct ibx_pd *pd = ah->pd;

	if (ah->dev->ops->destroy_ah)
		ah->dev->ops->destroy_ah(ah);
	kfree(ah);
	atomic_dec(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_destroy_ah);
