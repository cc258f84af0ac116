/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibx_driver.h - the private interface between our libibverbs and the
 * providers it loads from its own provider directory
 * (<dir of libibverbs.so.1>/ibx-verbs/lib<name>-ibx.so).
 *
 * Exported by libibverbs under the version node IBX_PRIVATE_1; nothing here
 * is part of the public verbs API and rdma-core's providers never see it.
 *
 * The model is rdma-core's: a provider registers itself from an ELF
 * constructor, libibverbs matches it to sysfs devices by name, the provider
 * allocates its context with the verbs_context embedded, issues the
 * GET_CONTEXT command through ibx_cmd_get_context() and installs its ops
 * with ibx_set_context_ops().  The ibx_cmd_* helpers issue one write()
 * command each: the core part of the command is built from their arguments,
 * the provider's driver-private request and response (udata) follow it.
 * They return 0 or an errno value (positive), as the verbs do.
 */
#ifndef IBX_DRIVER_H
#define IBX_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Provider-side wrappers of the public objects (the names are those of
 * rdma-core's driver.h, the layouts ours).  The public object comes first
 * so that a pointer to it is a pointer to the wrapper.
 */
enum ibx_mr_type {
	IBX_MR_TYPE_MR,
	IBX_MR_TYPE_NULL_MR,
	IBX_MR_TYPE_IMPORTED_MR,
	IBX_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibx_mr_type mr_type;
	int access;
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

enum ibx_srq_mask {
	IBX_SRQ_TYPE	= 1 << 0,
	IBX_SRQ_XRCD	= 1 << 1,
	IBX_SRQ_CQ	= 1 << 2,
	IBX_SRQ_NUM	= 1 << 3,
};

struct verbs_srq {
	struct ibv_srq srq;
	uint32_t comp_mask;		/* enum ibx_srq_mask */
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

enum ibx_qp_mask {
	IBX_QP_XRCD	= 1 << 0,
	IBX_QP_EX	= 1 << 1,
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;	/* valid when IBX_QP_EX is set */
	};
	uint32_t comp_mask;		/* enum ibx_qp_mask */
	struct verbs_xrcd *xrcd;
};

struct ibx_provider {
	const char *name;		/* "mlx_hw" */
	const char *ibdev_prefix;	/* matches sysfs ibdev names, "mlx_hw" */
	/* Returns a context from ibx_alloc_context(), or NULL with errno set. */
	struct ibv_context *(*alloc_context)(struct ibv_device *device,
					     int cmd_fd);
	/* Called by ibv_close_device() before the cmd fd is closed. */
	void (*free_context)(struct ibv_context *context);
};

/* Registers a provider; call from __attribute__((constructor)). */
void ibx_register_provider(const struct ibx_provider *provider);

/* What libibverbs knows of a device (ibv_device is embedded). */
const char *ibx_device_sysfs_path(struct ibv_device *device); /* /sys/class/infiniband/<ibdev> */

/*
 * Allocates @size zeroed bytes whose verbs_context lies at @vctx_offset and
 * initialises it (sz, device, cmd_fd, mutexes, default ops that fail with
 * EOPNOTSUPP).  Returns the start of the allocation.
 */
void *ibx_alloc_context(struct ibv_device *device, int cmd_fd, size_t size,
			size_t vctx_offset);
void ibx_free_context(struct ibv_context *context); /* frees the allocation */

/*
 * The provider's implementations.  A NULL member keeps the default, which
 * fails with EOPNOTSUPP (or returns NULL with errno = EOPNOTSUPP).
 * ibx_set_context_ops() installs them into ibv_context.ops and the
 * verbs_context extension slots.
 */
struct ibx_context_ops {
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);

	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*dereg_mr)(struct verbs_mr *vmr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sge);

	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	void (*cq_event)(struct ibv_cq *cq);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);

	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);

	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);

	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);

	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);

	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
};

void ibx_set_context_ops(struct verbs_context *vctx,
			 const struct ibx_context_ops *ops);

/* ---- write() commands; drv_in/drv_out are the provider's udata ---- */

int ibx_cmd_get_context(struct verbs_context *vctx, const void *drv_in,
			size_t drv_in_len, void *drv_out, size_t drv_out_len);
int ibx_cmd_query_device_ex(struct ibv_context *context,
			    struct ibv_device_attr_ex *attr, size_t attr_size);
int ibx_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr);

/* Fill pd->handle and pd->context on success. */
int ibx_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     void *drv_out, size_t drv_out_len);
int ibx_cmd_dealloc_pd(struct ibv_pd *pd);

/* Fills vmr->ibv_mr (handle, lkey, rkey, context, pd, addr, length). */
int ibx_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr);
int ibx_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd);
int ibx_cmd_dereg_mr(struct verbs_mr *vmr);
int ibx_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw);
int ibx_cmd_dealloc_mw(struct ibv_mw *mw);

/* Fills cq->handle, cqe, context, channel, cq_context, the event counts. */
int ibx_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, const void *drv_in, size_t drv_in_len,
		      void *drv_out, size_t drv_out_len);
int ibx_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *attr,
			 struct ibv_cq_ex *cq, const void *drv_in,
			 size_t drv_in_len, void *drv_out, size_t drv_out_len);
int ibx_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibx_cmd_resize_cq(struct ibv_cq *cq, int cqe, void *drv_out,
		      size_t drv_out_len);
int ibx_cmd_destroy_cq(struct ibv_cq *cq);

int ibx_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr, const void *drv_in,
		       size_t drv_in_len, void *drv_out, size_t drv_out_len);
int ibx_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr, const void *drv_in,
			  size_t drv_in_len, void *drv_out, size_t drv_out_len);
int ibx_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		       int attr_mask, const void *drv_in, size_t drv_in_len);
int ibx_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int ibx_cmd_destroy_srq(struct ibv_srq *srq);

/*
 * Fills qp->handle, qp_num, context, pd, cqs, srq, qp_type, state and the
 * actual capabilities into attr->cap.
 */
int ibx_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, const void *drv_in,
		      size_t drv_in_len, void *drv_out, size_t drv_out_len);
int ibx_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr, const void *drv_in,
			 size_t drv_in_len, void *drv_out, size_t drv_out_len);
int ibx_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    struct ibv_qp_open_attr *attr);
int ibx_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct ibv_qp_init_attr *init_attr);
int ibx_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask);
int ibx_cmd_destroy_qp(struct ibv_qp *qp);

int ibx_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr);
int ibx_cmd_destroy_ah(struct ibv_ah *ah);
int ibx_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibx_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibx_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr);
int ibx_cmd_close_xrcd(struct verbs_xrcd *xrcd);

/*
 * Resolves the destination MAC of a RoCE address vector through the
 * kernel neighbour table (libnl-route-3), triggering resolution when the
 * entry is missing.  0 or an errno value.
 */
int ibx_resolve_roce_dmac(struct ibv_context *context, uint8_t port_num,
			  const struct ibv_ah_attr *attr, uint8_t dmac[6]);

#ifdef __cplusplus
}
#endif

#endif /* IBX_DRIVER_H */
