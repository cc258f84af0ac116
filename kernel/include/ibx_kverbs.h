/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibx_kverbs.h - the verbs of kernel consumers (kernel/ib_uverbs/kverbs.c):
 * the MAD layer, the CM and test modules drive the HCA through these, with
 * the data path types of ibx_core.h (ibx_sge, ibx_send_wr, ibx_wc, ...).
 */
#ifndef IBX_KVERBS_H
#define IBX_KVERBS_H

#include "ibx_core.h"

/*
 * Objects created here are "kernel objects": uctx NULL, udata NULL to the
 * driver, rings in kernel memory in the formats of docs/prm.md, worked
 * through post/poll instead of mmapped doorbells.  Create calls may sleep;
 * post, poll and req_notify may be called from any context but hard IRQ.
 * A kernel client destroys its objects in its remove() callback, before
 * the device unregisters.  Destroying an object still used by another
 * (a PD with QPs, a CQ with QPs) fails with -EBUSY.
 */
struct ibx_pd *ibx_alloc_pd(struct ibx_device *dev);
int ibx_dealloc_pd(struct ibx_pd *pd);

/*
 * The DMA key of @pd: an lkey covering all kernel memory that has a
 * struct page (the linear map and vmalloc); ibx_sge.addr is the kernel
 * virtual address.  @access may only be IB_UVERBS_ACCESS_LOCAL_WRITE (or
 * 0): remote keys come from ibx_reg_kernel_mr(), which bounds them.
 */
struct ibx_mr *ibx_get_dma_mr(struct ibx_pd *pd, u32 access);
/*
 * A kernel MR over [@addr, @addr + @length) of kernel virtual memory
 * (kmalloc, vmalloc or page-backed); iova = @addr, lkey/rkey checked
 * against that range.  @access: IB_UVERBS_ACCESS_*.
 */
struct ibx_mr *ibx_reg_kernel_mr(struct ibx_pd *pd, void *addr, u64 length,
				 u32 access);
int ibx_dereg_mr(struct ibx_mr *mr);

/*
 * @comp_handler runs (from the device's context; it must not sleep) when
 * the CQ was armed with ibx_req_notify_cq() and a completion arrives.
 */
struct ibx_cq *ibx_create_cq(struct ibx_device *dev,
			     ibx_comp_handler comp_handler, void *cq_context,
			     int cqe);
int ibx_destroy_cq(struct ibx_cq *cq);
/*
 * Arms the CQ for the next (or next solicited) completion.  With
 * IBX_CQ_REPORT_MISSED_EVENTS returns 1 if completions may be waiting
 * already (poll again), else 0.
 */
int ibx_req_notify_cq(struct ibx_cq *cq, u32 flags);
int ibx_poll_cq(struct ibx_cq *cq, int num, struct ibx_wc *wc);

struct ibx_kqp_init_attr {
	u32 qp_type;		/* IB_UVERBS_QPT_RC, _UD, or IBX_QPT_GSI */
	struct ibx_cq *send_cq;
	struct ibx_cq *recv_cq;
	struct ibx_qp_cap cap;	/* in: requested; out: actual */
	u8 sq_sig_all;
	u8 port_num;		/* GSI: the port whose QP1 this is */
	void *qp_context;
};

/* A GSI QP has qp_num 1; one per port and device. */
struct ibx_qp *ibx_create_qp(struct ibx_pd *pd,
			     struct ibx_kqp_init_attr *init);
/* The IBA transition and attribute rules of MODIFY_QP (qp_state.c). */
int ibx_modify_qp(struct ibx_qp *qp, struct ibx_qp_attr *attr, u32 mask);
int ibx_destroy_qp(struct ibx_qp *qp);
int ibx_post_send(struct ibx_qp *qp, const struct ibx_send_wr *wr,
		  const struct ibx_send_wr **bad_wr);
int ibx_post_recv(struct ibx_qp *qp, const struct ibx_recv_wr *wr,
		  const struct ibx_recv_wr **bad_wr);

/*
 * An address handle for UD/GSI sends.  The destination MAC is resolved
 * by the device from the neighbour table when it sends, as for user AHs.
 */
struct ibx_ah *ibx_create_ah(struct ibx_pd *pd, const struct ibx_ah_attr *attr);
int ibx_destroy_ah(struct ibx_ah *ah);
/* The IBA port state / active MTU of @port (IB_PORT_* / enum ibx_mtu). */
int ibx_query_port(struct ibx_device *dev, u32 port,
		   struct ib_uverbs_query_port_resp *attr);

#endif /* IBX_KVERBS_H */
