/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibx_core.h - the contract between the verbs core (ibx_uverbs.ko) and the
 * HCA drivers that register with it (mlx_hw.ko is the first).
 *
 * The core owns everything generic: the character device, sysfs, the
 * write() command ABI of <rdma/ib_user_verbs.h>, object handles and their
 * lifetime, memory pinning, the IBA QP state machine and event delivery.
 * A driver owns the hardware (here: a device model) and implements the ops
 * below.  All exported symbols use the ibx_ prefix so nothing collides with
 * the in-tree ib_core/ib_uverbs.
 *
 * Object allocation is two-phase and done by the core: a driver declares the
 * size of its private object (which embeds the core struct as its FIRST
 * member), the core kzalloc()s it, fills the core part, calls the driver's
 * create op, and only then publishes a handle to userspace.  Destroy ops are
 * called exactly once, after the core guaranteed that no command and no
 * dependent object (e.g. a QP on a CQ) still uses the object.
 *
 * Locking: ops are called in process context and may sleep.  Events
 * (ibx_cq_completion, ibx_*_event) may be raised from any context,
 * including the driver's kernel threads and softirq.
 */
#ifndef IBX_CORE_H
#define IBX_CORE_H

#include <linux/types.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

#define IBX_DEVICE_NAME_MAX	64
#define IBX_MAX_PORTS		1	/* ports are numbered 1..phys_port_cnt */
#define IBX_GID_TABLE_LEN	16

struct ibx_device;
struct ibx_ucontext;

/* Driver-private input/output of a command (the bytes after the core's). */
struct ibx_udata {
	const void __user *inbuf;
	void __user *outbuf;
	size_t inlen;
	size_t outlen;
};

/* Copies min(len, udata->inlen); the rest of @dst is zeroed. */
int ibx_udata_copy_from(void *dst, const struct ibx_udata *udata, size_t len);
/* Copies min(len, udata->outlen). */
int ibx_udata_copy_to(struct ibx_udata *udata, const void *src, size_t len);

union ibx_gid {
	u8 raw[16];
	struct {
		__be64 subnet_prefix;
		__be64 interface_id;
	} global;
};

/* Values as in sysfs gid_attrs/types and ibv_query_gid_type(). */
enum ibx_gid_type {
	IBX_GID_TYPE_IB = 0,
	IBX_GID_TYPE_ROCE_V1 = 1,
	IBX_GID_TYPE_ROCE_V2 = 2,
};

/* Values of enum ibv_event_type. */
enum ibx_event_type {
	IBX_EVENT_CQ_ERR = 0,
	IBX_EVENT_QP_FATAL = 1,
	IBX_EVENT_QP_REQ_ERR = 2,
	IBX_EVENT_QP_ACCESS_ERR = 3,
	IBX_EVENT_COMM_EST = 4,
	IBX_EVENT_SQ_DRAINED = 5,
	IBX_EVENT_PATH_MIG = 6,
	IBX_EVENT_PATH_MIG_ERR = 7,
	IBX_EVENT_DEVICE_FATAL = 8,
	IBX_EVENT_PORT_ACTIVE = 9,
	IBX_EVENT_PORT_ERR = 10,
	IBX_EVENT_LID_CHANGE = 11,
	IBX_EVENT_PKEY_CHANGE = 12,
	IBX_EVENT_SM_CHANGE = 13,
	IBX_EVENT_SRQ_ERR = 14,
	IBX_EVENT_SRQ_LIMIT_REACHED = 15,
	IBX_EVENT_QP_LAST_WQE_REACHED = 16,
	IBX_EVENT_CLIENT_REREGISTER = 17,
	IBX_EVENT_GID_CHANGE = 18,
};

/* Values of enum ibv_qp_state. */
enum ibx_qp_state {
	IBX_QPS_RESET = 0,
	IBX_QPS_INIT = 1,
	IBX_QPS_RTR = 2,
	IBX_QPS_RTS = 3,
	IBX_QPS_SQD = 4,
	IBX_QPS_SQE = 5,
	IBX_QPS_ERR = 6,
};

/* Values of enum ibv_qp_attr_mask. */
enum ibx_qp_attr_mask {
	IBX_QP_STATE = 1 << 0,
	IBX_QP_CUR_STATE = 1 << 1,
	IBX_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	IBX_QP_ACCESS_FLAGS = 1 << 3,
	IBX_QP_PKEY_INDEX = 1 << 4,
	IBX_QP_PORT = 1 << 5,
	IBX_QP_QKEY = 1 << 6,
	IBX_QP_AV = 1 << 7,
	IBX_QP_PATH_MTU = 1 << 8,
	IBX_QP_TIMEOUT = 1 << 9,
	IBX_QP_RETRY_CNT = 1 << 10,
	IBX_QP_RNR_RETRY = 1 << 11,
	IBX_QP_RQ_PSN = 1 << 12,
	IBX_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	IBX_QP_ALT_PATH = 1 << 14,
	IBX_QP_MIN_RNR_TIMER = 1 << 15,
	IBX_QP_SQ_PSN = 1 << 16,
	IBX_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	IBX_QP_PATH_MIG_STATE = 1 << 18,
	IBX_QP_CAP = 1 << 19,
	IBX_QP_DEST_QPN = 1 << 20,
	IBX_QP_RATE_LIMIT = 1 << 25,
};

/*
 * Values of enum ibv_mig_state: the path migration state of a connected QP
 * (IBA 17.2.8).  A consumer may ask only for MIGRATED (a migration, from
 * ARMED) or REARM; the device moves REARM to ARMED on its own.
 */
enum ibx_mig_state {
	IBX_MIG_MIGRATED = 0,
	IBX_MIG_REARM = 1,
	IBX_MIG_ARMED = 2,
};

/* Values of enum ibv_mtu (1 = 256 ... 5 = 4096). */
enum ibx_mtu {
	IBX_MTU_256 = 1,
	IBX_MTU_512 = 2,
	IBX_MTU_1024 = 3,
	IBX_MTU_2048 = 4,
	IBX_MTU_4096 = 5,
};

static inline unsigned int ibx_mtu_to_bytes(enum ibx_mtu mtu)
{
	return 128u << mtu;
}

/* Address vector (ibv_ah_attr with its GRH); dmac is resolved by the driver. */
struct ibx_ah_attr {
	union ibx_gid dgid;
	u32 flow_label;
	u16 dlid;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	u8 src_path_bits;
	u8 static_rate;
	u8 is_global;
	u8 port_num;
	u8 dmac[ETH_ALEN];	/* resolved by the driver for RoCE */
};

struct ibx_qp_cap {
	u32 max_send_wr;
	u32 max_recv_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
};

/* The full attribute set of a QP, as ibv_qp_attr. */
struct ibx_qp_attr {
	enum ibx_qp_state qp_state;
	enum ibx_qp_state cur_qp_state;
	enum ibx_mtu path_mtu;
	u32 path_mig_state;
	u32 qkey;
	u32 rq_psn;		/* 24 bits */
	u32 sq_psn;		/* 24 bits */
	u32 dest_qp_num;	/* 24 bits */
	u32 qp_access_flags;	/* IB_UVERBS_ACCESS_* */
	struct ibx_qp_cap cap;
	struct ibx_ah_attr ah_attr;
	struct ibx_ah_attr alt_ah_attr;
	u16 pkey_index;
	u16 alt_pkey_index;
	u8 en_sqd_async_notify;
	u8 sq_draining;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 min_rnr_timer;
	u8 port_num;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 alt_port_num;
	u8 alt_timeout;
	u32 rate_limit;
};

/* ---- objects: drivers embed these as the first member of their own ---- */

struct ibx_ucontext {
	struct ibx_device *dev;
	void *core_priv;		/* the open file; opaque to drivers */
};

struct ibx_pd {
	struct ibx_device *dev;
	struct ibx_ucontext *uctx;	/* NULL: a kernel PD (ibx_alloc_pd) */
	atomic_t usecnt;		/* kernel PDs: objects using it */
};

/*
 * An XRC domain (IBA annex A14).  It belongs to no context: processes that
 * open the same file share it, and it lives while any of them holds it or
 * an XRC TGT QP of it exists.
 */
struct ibx_xrcd {
	struct ibx_device *dev;
	void *core_priv;
};

/*
 * User memory of an MR: pinned by the core (pin_user_pages, FOLL_LONGTERM),
 * or with odp set, resolved on demand (umem_odp.c: pages and npages stay
 * empty, and the device looks pages up by user address).
 */
struct ibx_umem {
	u64 address;			/* user virtual address of byte 0 */
	u64 length;			/* bytes (U64_MAX: implicit ODP) */
	unsigned int offset;		/* offset of byte 0 in pages[0] */
	unsigned long npages;
	struct page **pages;
	bool writable;
	bool odp;			/* IB_UVERBS_ACCESS_ON_DEMAND */
};

/*
 * attr.odp_caps bits (upstream's IB_ODP_SUPPORT*, the values of
 * libibverbs' IBV_ODP_SUPPORT*): general caps, then per transport.
 */
#define IBX_ODP_SUPPORT			(1u << 0)
#define IBX_ODP_SUPPORT_IMPLICIT	(1u << 1)
#define IBX_ODP_SUPPORT_SEND		(1u << 0)
#define IBX_ODP_SUPPORT_RECV		(1u << 1)
#define IBX_ODP_SUPPORT_WRITE		(1u << 2)
#define IBX_ODP_SUPPORT_READ		(1u << 3)
#define IBX_ODP_SUPPORT_ATOMIC		(1u << 4)
#define IBX_ODP_SUPPORT_SRQ_RECV	(1u << 5)

/* On-demand paging umems (umem_odp.c): the driver's side. */
void ibx_umem_odp_set_notify(struct ibx_umem *umem,
			     void (*fn)(void *arg, unsigned long npages),
			     void *arg);
struct page *ibx_umem_odp_lock_page(struct ibx_umem *umem, u64 va);
void ibx_umem_odp_unlock(struct ibx_umem *umem);
bool ibx_umem_odp_mapped(struct ibx_umem *umem, u64 va, u64 len);
int ibx_umem_odp_fault(struct ibx_umem *umem, u64 va, u64 len, bool fault,
		       unsigned long *mapped);

struct ibx_mr {
	struct ibx_device *dev;
	struct ibx_pd *pd;
	struct ibx_umem *umem;		/* NULL only for kernel-internal MRs */
	u64 iova;			/* address the keys expose */
	u64 length;
	u32 access;			/* IB_UVERBS_ACCESS_* */
	u32 lkey;			/* set by the driver's reg_mr */
	u32 rkey;			/* set by the driver's reg_mr */
};

struct ibx_mw {
	struct ibx_device *dev;
	struct ibx_pd *pd;
	u32 type;			/* 1 or 2 (IB_MW_TYPE_1/2) */
	u32 rkey;			/* set by the driver */
};

struct ibx_cq;
typedef void (*ibx_comp_handler)(struct ibx_cq *cq, void *cq_context);

struct ibx_cq {
	struct ibx_device *dev;
	struct ibx_ucontext *uctx;	/* NULL: a kernel CQ (ibx_create_cq) */
	int cqe;			/* capacity; the driver may round up */
	u64 user_handle;		/* cq_context of ibv_cq */
	void *core_priv;
	/* Kernel CQs: called by ibx_cq_completion() instead of a channel. */
	ibx_comp_handler comp_handler;
	void *cq_context;
	atomic_t usecnt;		/* kernel CQs: QPs using it */
};

struct ibx_cq_init_attr {
	u32 cqe;
	u32 comp_vector;
	u32 flags;			/* IB_UVERBS_CQ_FLAGS_* */
};

struct ibx_srq_attr {
	u32 max_wr;
	u32 max_sge;
	u32 srq_limit;
};

struct ibx_srq {
	struct ibx_device *dev;
	struct ibx_ucontext *uctx;
	struct ibx_pd *pd;
	u32 srq_type;			/* IB_UVERBS_SRQT_* */
	u32 srq_num;			/* XRC SRQ number, set by the driver */
	struct ibx_cq *cq;		/* XRC only */
	struct ibx_xrcd *xrcd;		/* XRC only */
	u64 user_handle;
	void *core_priv;
};

struct ibx_qp_init_attr {
	u32 qp_type;			/* IB_UVERBS_QPT_* */
	struct ibx_qp_cap cap;		/* in: requested; out: actual */
	u8 sq_sig_all;
	u32 create_flags;
};

/*
 * XRC TGT QPs belong to their XRC domain, not to a context: uctx, pd, the
 * CQs and srq are NULL and xrcd is set.  They have no work queues; their
 * receives consume WQEs of the XRC SRQ each request names, and complete to
 * that SRQ's CQ.  destroy_qp comes when the last handle (the creator's or
 * one of OPEN_QP) is closed, possibly from another process than the
 * creator.
 */
struct ibx_qp {
	struct ibx_device *dev;
	struct ibx_ucontext *uctx;
	struct ibx_xrcd *xrcd;		/* XRC TGT only */
	struct ibx_pd *pd;
	struct ibx_cq *send_cq;
	struct ibx_cq *recv_cq;
	struct ibx_srq *srq;
	u32 qp_type;			/* IB_UVERBS_QPT_* */
	u32 qp_num;			/* set by the driver's create_qp */
	u8 sq_sig_all;
	/*
	 * Current attributes, owned by the core: updated after a successful
	 * modify_qp, read by QUERY_QP.  Drivers keep their own copy of what
	 * their data path needs.  The one exception: a driver whose device
	 * moves a QP to error on its own stores IBX_QPS_ERR into
	 * attr.qp_state (WRITE_ONCE) so that QUERY_QP and the state machine
	 * see it (the IBA lets the CI move a QP to Error by itself).
	 */
	struct ibx_qp_attr attr;
	u64 user_handle;
	void *core_priv;
	/*
	 * Core: how the QP's affiliated events are delivered (an XRC TGT
	 * QP's to each handle of it); NULL: to the uobject in core_priv.
	 */
	void (*event_handler)(struct ibx_qp *qp, enum ibx_event_type type);
	void *qp_context;		/* kernel QPs: the consumer's */
};

struct ibx_ah {
	struct ibx_device *dev;
	struct ibx_pd *pd;
	struct ibx_ah_attr attr;
};

/* ---- the kernel data path (kverbs.c; docs/wire.md "Kernel consumers") ---- */

/*
 * QP type of the per-port GSI QP (QP1, IBA 13.5.1), which only kernel
 * consumers create (the MAD layer).  Same value as upstream IB_QPT_GSI;
 * the uverbs types (IB_UVERBS_QPT_*) never use it.
 */
#define IBX_QPT_GSI		1
#define IBX_GSI_QPN		1
#define IBX_GSI_QKEY		0x80010000u
#define IBX_DEFAULT_PKEY	0xffff

/* Work request opcodes: the values of enum ibv_wr_opcode. */
enum ibx_wr_opcode {
	IBX_WR_RDMA_WRITE = 0,
	IBX_WR_RDMA_WRITE_WITH_IMM = 1,
	IBX_WR_SEND = 2,
	IBX_WR_SEND_WITH_IMM = 3,
	IBX_WR_RDMA_READ = 4,
	IBX_WR_ATOMIC_CMP_AND_SWP = 5,
	IBX_WR_ATOMIC_FETCH_AND_ADD = 6,
	IBX_WR_LOCAL_INV = 7,
	IBX_WR_SEND_WITH_INV = 9,
};

/* send_flags: the values of enum ibv_send_flags. */
enum ibx_send_flags {
	IBX_SEND_FENCE = 1 << 0,
	IBX_SEND_SIGNALED = 1 << 1,
	IBX_SEND_SOLICITED = 1 << 2,
	IBX_SEND_INLINE = 1 << 3,
};

/*
 * A scatter/gather element of a kernel work request.  @addr is a kernel
 * virtual address when @lkey is the DMA key of ibx_get_dma_mr() (any
 * kmalloc, vmalloc or page-backed memory), or an address inside the range
 * an ibx_reg_kernel_mr() key covers.
 */
struct ibx_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

struct ibx_send_wr {
	struct ibx_send_wr *next;
	u64 wr_id;
	struct ibx_sge *sg_list;
	int num_sge;
	enum ibx_wr_opcode opcode;
	u32 send_flags;			/* enum ibx_send_flags */
	union {
		__be32 imm_data;	/* *_WITH_IMM, network order */
		u32 invalidate_rkey;	/* SEND_WITH_INV, LOCAL_INV */
	} ex;
	union {
		struct {		/* RDMA WRITE/READ */
			u64 remote_addr;
			u32 rkey;
		} rdma;
		struct {		/* atomics */
			u64 remote_addr;
			u64 compare_add;
			u64 swap;
			u32 rkey;
		} atomic;
		struct {		/* UD and GSI */
			struct ibx_ah *ah;
			u32 remote_qpn;
			u32 remote_qkey;	/* bit 31 set: the QP's own */
		} ud;
	} wr;
};

struct ibx_recv_wr {
	struct ibx_recv_wr *next;
	u64 wr_id;
	struct ibx_sge *sg_list;
	int num_sge;
};

/* Completion status: the values of enum ibv_wc_status. */
enum ibx_wc_status {
	IBX_WC_SUCCESS = 0,
	IBX_WC_LOC_LEN_ERR = 1,
	IBX_WC_LOC_QP_OP_ERR = 2,
	IBX_WC_LOC_PROT_ERR = 4,
	IBX_WC_WR_FLUSH_ERR = 5,
	IBX_WC_REM_INV_REQ_ERR = 9,
	IBX_WC_REM_ACCESS_ERR = 10,
	IBX_WC_REM_OP_ERR = 11,
	IBX_WC_RETRY_EXC_ERR = 12,
	IBX_WC_RNR_RETRY_EXC_ERR = 13,
	IBX_WC_GENERAL_ERR = 21,
};

/* Completion opcodes: the values of enum ibv_wc_opcode. */
enum ibx_wc_opcode {
	IBX_WC_SEND = 0,
	IBX_WC_RDMA_WRITE = 1,
	IBX_WC_RDMA_READ = 2,
	IBX_WC_COMP_SWAP = 3,
	IBX_WC_FETCH_ADD = 4,
	IBX_WC_LOCAL_INV = 6,
	IBX_WC_RECV = 128,
	IBX_WC_RECV_RDMA_WITH_IMM = 129,
};

/* wc_flags: the values of enum ibv_wc_flags. */
#define IBX_WC_GRH		(1 << 0)
#define IBX_WC_WITH_IMM		(1 << 1)
#define IBX_WC_WITH_INV		(1 << 3)

struct ibx_wc {
	u64 wr_id;
	enum ibx_wc_status status;
	enum ibx_wc_opcode opcode;	/* defined for errors on sends only */
	u32 vendor_err;
	u32 byte_len;			/* UD/GSI receives: + 40 (GRH) */
	struct ibx_qp *qp;		/* NULL if destroyed meanwhile */
	u32 qp_num;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	u32 src_qp;			/* UD/GSI receives */
	u32 wc_flags;			/* IBX_WC_* */
	u16 pkey_index;
	u8 sl;
	u8 port_num;
};

/* ibx_req_notify_cq() flags, as upstream's ib_cq_notify_flags. */
enum ibx_cq_notify_flags {
	IBX_CQ_SOLICITED = 1 << 0,
	IBX_CQ_NEXT_COMP = 1 << 1,
	IBX_CQ_REPORT_MISSED_EVENTS = 1 << 2,
};

/* ---- the driver ops ---- */

struct ibx_device_ops {
	struct module *owner;

	/* Sizes of the driver objects (>= the core struct they embed). */
	size_t size_ucontext, size_pd, size_mr, size_mw, size_cq, size_qp,
		size_srq, size_ah, size_xrcd;
	/*
	 * Optional, both or neither: where QP objects (size_qp bytes,
	 * zeroed) come from and go back to, e.g. a slab cache of their exact
	 * size, as kmalloc rounds them up to a power of two and a process
	 * may hold thousands.  Without them, kzalloc() and kfree().
	 */
	void *(*alloc_qp_obj)(void);
	void (*free_qp_obj)(void *obj);

	int (*query_port)(struct ibx_device *dev, u32 port,
			  struct ib_uverbs_query_port_resp *attr);

	int (*alloc_ucontext)(struct ibx_ucontext *uctx, struct ibx_udata *udata);
	void (*dealloc_ucontext)(struct ibx_ucontext *uctx);
	int (*mmap)(struct ibx_ucontext *uctx, struct vm_area_struct *vma);
	/* Driver-private ioctls on the uverbs fd (not RDMA_VERBS_IOCTL). */
	long (*ioctl)(struct ibx_ucontext *uctx, unsigned int cmd,
		      unsigned long arg);

	int (*alloc_pd)(struct ibx_pd *pd, struct ibx_udata *udata);
	void (*dealloc_pd)(struct ibx_pd *pd);

	/* Optional; without it OPEN_XRCD fails with -EOPNOTSUPP. */
	int (*alloc_xrcd)(struct ibx_xrcd *xrcd, struct ibx_udata *udata);
	void (*dealloc_xrcd)(struct ibx_xrcd *xrcd);

	/*
	 * mr->umem, iova, length, access are set; assign lkey and rkey.
	 * Kernel MRs (pd->uctx NULL) have no umem: iova is a kernel virtual
	 * address (0 and length U64_MAX for the DMA MR), udata is NULL.
	 */
	int (*reg_mr)(struct ibx_mr *mr, struct ibx_udata *udata);
	/*
	 * Optional, asked before a consumer's DEREG_MR: an error refuses it
	 * and the MR stays usable (-EINVAL: type 2 memory windows are bound
	 * to it, IBA 10.6.7.2.6); 0 commits, dereg_mr follows.  Not asked at
	 * teardown, where windows are freed before MRs.
	 */
	int (*begin_dereg_mr)(struct ibx_mr *mr);
	void (*dereg_mr)(struct ibx_mr *mr);
	/*
	 * REREG_MR keeping the keys.  @new is a zeroed driver MR that the
	 * core filled with the merged attributes (dev, pd, umem, iova,
	 * length, access); @flags are the IB_MR_REREG_* being changed.  The
	 * driver gives @new the keys of @mr, makes the device see @new
	 * instead of @mr in one step and returns once the device no longer
	 * uses @mr; the core then frees @mr without calling dereg_mr (and
	 * releases its umem if @new has another).  On error @mr is untouched
	 * and still registered.
	 */
	int (*rereg_mr)(struct ibx_mr *mr, struct ibx_mr *new, u32 flags,
			struct ibx_udata *udata);

	int (*alloc_mw)(struct ibx_mw *mw, struct ibx_udata *udata);
	void (*dealloc_mw)(struct ibx_mw *mw);

	int (*create_cq)(struct ibx_cq *cq, const struct ibx_cq_init_attr *attr,
			 struct ibx_udata *udata);
	/*
	 * RESIZE_CQ: @cqe is in 1..max_cqe; fewer than the outstanding
	 * completions is -EINVAL.  Sets cq->cqe to the new capacity.
	 */
	int (*resize_cq)(struct ibx_cq *cq, int cqe, struct ibx_udata *udata);
	void (*destroy_cq)(struct ibx_cq *cq);
	/*
	 * The REQ_NOTIFY_CQ command (userspace providers usually arm
	 * directly), and ibx_req_notify_cq() for kernel CQs.  A user CQ with
	 * completions pending raises the event at once; a kernel CQ stays
	 * armed and the op returns 1 instead (upstream's
	 * IB_CQ_REPORT_MISSED_EVENTS), so that no comp_handler runs inside
	 * the consumer's own call.
	 */
	int (*req_notify_cq)(struct ibx_cq *cq, bool solicited_only);

	/*
	 * The kernel data path, for objects created with udata == NULL
	 * (kernel objects).  From any context but hard IRQ; they do not
	 * sleep.  post_*: 0, or an errno with *bad_wr the first WR not
	 * posted.  poll_cq: completions polled (0..num).
	 */
	int (*post_send)(struct ibx_qp *qp, const struct ibx_send_wr *wr,
			 const struct ibx_send_wr **bad_wr);
	int (*post_recv)(struct ibx_qp *qp, const struct ibx_recv_wr *wr,
			 const struct ibx_recv_wr **bad_wr);
	int (*poll_cq)(struct ibx_cq *cq, int num, struct ibx_wc *wc);

	/*
	 * qp->pd, cqs, srq, qp_type are set (XRC TGT: qp->xrcd only); assign
	 * qp_num, adjust init->cap.
	 */
	int (*create_qp)(struct ibx_qp *qp, struct ibx_qp_init_attr *init,
			 struct ibx_udata *udata);
	/*
	 * Called after the core validated the transition and the attribute
	 * mask against the IBA tables; on success the core merges @attr into
	 * qp->attr.  A move to ERR must flush all outstanding WQEs.
	 */
	int (*modify_qp)(struct ibx_qp *qp, const struct ibx_qp_attr *attr,
			 u32 mask, struct ibx_udata *udata);
	/*
	 * Optional; process context.  @attr is a copy of qp->attr: the
	 * driver overwrites what its device changes on its own besides ERR,
	 * i.e. the path migration state and, once the device migrated (IBA
	 * 17.2.8), the primary path (address vector, port, P_Key index,
	 * timeout) it now uses.  QUERY_QP reports it, and a MODIFY_QP starts
	 * from it.
	 */
	void (*query_qp)(struct ibx_qp *qp, struct ibx_qp_attr *attr);
	void (*destroy_qp)(struct ibx_qp *qp);

	int (*create_srq)(struct ibx_srq *srq, struct ibx_srq_attr *attr,
			  struct ibx_udata *udata);
	int (*modify_srq)(struct ibx_srq *srq, const struct ibx_srq_attr *attr,
			  u32 mask, struct ibx_udata *udata);
	int (*query_srq)(struct ibx_srq *srq, struct ibx_srq_attr *attr);
	void (*destroy_srq)(struct ibx_srq *srq);

	int (*create_ah)(struct ibx_ah *ah, struct ibx_udata *udata);
	void (*destroy_ah)(struct ibx_ah *ah);

	int (*attach_mcast)(struct ibx_qp *qp, const union ibx_gid *gid, u16 lid);
	int (*detach_mcast)(struct ibx_qp *qp, const union ibx_gid *gid, u16 lid);

	/*
	 * Optional: the driver's own attributes of a QP, which `rdma res show
	 * qp -dd` prints (RDMA_NLDEV_ATTR_DRIVER), each added with
	 * ibx_nl_put_driver_u32().  Under the QP file's cmd_mutex: the QP
	 * stays, its data path runs on.  0, or -EMSGSIZE when @msg is full.
	 */
	int (*fill_res_qp_entry)(struct sk_buff *msg, struct ibx_qp *qp);

	/* Optional sysfs ports/N/hw_counters: names, and a snapshot of values. */
	const char *const *hw_counter_names;
	unsigned int num_hw_counters;
	int (*get_hw_counters)(struct ibx_device *dev, u32 port, u64 *values);
};

struct ibx_port_gids {
	struct {
		union ibx_gid gid;
		enum ibx_gid_type type;
		struct net_device *ndev;	/* held (dev_hold) while valid */
		bool valid;
	} entry[IBX_GID_TABLE_LEN];
};

struct ibx_device {
	/* Set by the driver before ibx_register_device(). */
	char name[IBX_DEVICE_NAME_MAX];		/* may contain one %d */
	const struct ibx_device_ops *ops;
	/*
	 * Optional: a device bound to the driver, made the ibdev's "device"
	 * in sysfs (else the core makes one, without a driver).  Must stay
	 * registered until ibx_unregister_device() returns.
	 */
	struct device *parent;
	/*
	 * Device attributes as reported by (EX_)QUERY_DEVICE; the driver
	 * fills attr.base including node_guid, sys_image_guid, vendor ids,
	 * limits and phys_port_cnt.
	 */
	struct ib_uverbs_ex_query_device_resp attr;
	char fw_ver[32];
	char hca_type[32];			/* sysfs hca_type (ibstat's CA type) */
	char board_id[64];			/* sysfs board_id */
	u32 node_type;				/* 1 = CA */
	u32 num_comp_vectors;
	u32 driver_abi_version;			/* reported to providers */
	char driver_id[16];			/* provider name, e.g. "mlx_hw" */
	/*
	 * Optional: the network namespace that owns the device in exclusive
	 * mode (`rdma system set netns exclusive`), as the one of its netdev;
	 * NULL or a namespace that is going away: init_net.  In shared mode
	 * every device belongs to init_net and every namespace sees it.
	 */
	struct net *net;

	/* Owned by the core. */
	struct net_device *netdev[IBX_MAX_PORTS + 1];
	struct ibx_port_gids gids[IBX_MAX_PORTS + 1];
	void *core_priv;
};

/* Allocates a zeroed driver device of @size bytes embedding ibx_device first. */
struct ibx_device *ibx_alloc_device(size_t size);
void ibx_dealloc_device(struct ibx_device *dev);
int ibx_register_device(struct ibx_device *dev);
/*
 * Unregisters: open contexts get IBX_EVENT_DEVICE_FATAL and are
 * disassociated (their objects destroyed through the ops, later commands
 * fail with -EIO).  Returns once no op of @dev runs or will run.
 */
void ibx_unregister_device(struct ibx_device *dev);

/* The uverbsN number = ibv_get_device_index() = the netlink ibdev index. */
int ibx_device_index(struct ibx_device *dev);

/*
 * Whether processes of @net may see and use @dev: always in shared mode,
 * in exclusive mode only from the namespace that owns it (upstream's
 * rdma_dev_access_netns).
 */
bool ibx_dev_access_netns(struct ibx_device *dev, const struct net *net);
/*
 * The netdev of GID entry @index, held (dev_put() it), or NULL for an
 * empty entry or one without a netdev.  Any context.
 */
struct net_device *ibx_get_gid_ndev(struct ibx_device *dev, u32 port,
				    unsigned int index);

/* The netdev a port is bound to (device/net link, gid ndevs); NULL unbinds. */
int ibx_set_netdev(struct ibx_device *dev, u32 port, struct net_device *ndev);
/* Sets or (gid == NULL) clears a GID entry and raises IBX_EVENT_GID_CHANGE. */
int ibx_set_gid(struct ibx_device *dev, u32 port, unsigned int index,
		const union ibx_gid *gid, enum ibx_gid_type type,
		struct net_device *ndev);
/* Copies GID entry @index; -ENOENT if empty.  Usable from any context. */
int ibx_get_gid(struct ibx_device *dev, u32 port, unsigned int index,
		union ibx_gid *gid, enum ibx_gid_type *type);

/* Events, from any context. */
/* One driver attribute of a resource (ops->fill_res_qp_entry). */
int ibx_nl_put_driver_u32(struct sk_buff *msg, const char *name, u32 value);

void ibx_cq_completion(struct ibx_cq *cq);	/* completion channel event */
void ibx_cq_event(struct ibx_cq *cq, enum ibx_event_type type);
void ibx_qp_event(struct ibx_qp *qp, enum ibx_event_type type);
void ibx_srq_event(struct ibx_srq *srq, enum ibx_event_type type);
void ibx_port_event(struct ibx_device *dev, u32 port, enum ibx_event_type type);

/*
 * Kernel clients of the core (the CM, netlink answers): told of every
 * registered device, the ones present at ibx_register_client() included.
 * add() and remove() may sleep; they run serialized with each other and
 * with device registration.  remove() runs before the device's user
 * contexts are disassociated, so a client's kernel objects (QP1, CM ids)
 * go first, as upstream ib_core orders it.
 */
struct ibx_client_nl_info {
	struct device *cdev;	/* out: the client's character device */
	u64 abi;		/* out: its ABI version */
};

struct ibx_client {
	const char *name;
	/* Return 0 or an errno; a failed add() gets no remove(). */
	int (*add)(struct ibx_device *dev);
	void (*remove)(struct ibx_device *dev, void *client_data);
	/*
	 * Optional: netlink GET_CHARDEV for this client's name (dev NULL:
	 * the global device, as rdma_cm's /dev/infiniband/rdma_cm).  Called
	 * with the core's client and device locks held: it must only fill
	 * @res (a cdev that lives while the client is registered), not call
	 * back into the core.
	 */
	int (*get_nl_info)(struct ibx_device *dev,
			   struct ibx_client_nl_info *res);

	/* Owned by the core. */
	u32 client_id;
	struct list_head node;
};

int ibx_register_client(struct ibx_client *client);
void ibx_unregister_client(struct ibx_client *client);
/* Per-(device, client) pointer; set it in add(), it is passed to remove(). */
void ibx_set_client_data(struct ibx_device *dev, struct ibx_client *client,
			 void *data);
void *ibx_get_client_data(struct ibx_device *dev, struct ibx_client *client);

/*
 * `rdma link add NAME type TYPE netdev NETDEV` and `rdma link delete NAME`
 * (netlink NEWLINK/DELLINK, CAP_NET_ADMIN), as rxe registers its type.
 * newlink() creates and registers a device named @ibdev_name (no '%')
 * bound to @ndev, which the core holds for the call: -EEXIST if @ndev is
 * already bound or the name taken.  dellink() removes the registered
 * device of that name (unregister, then dealloc), -ENODEV if it has none.
 * Both run serialized with ibx_unregister_link_ops(), which a driver calls
 * first in its module exit.
 */
struct ibx_link_ops {
	const char *type;
	struct module *owner;
	int (*newlink)(const char *ibdev_name, struct net_device *ndev);
	int (*dellink)(const char *ibdev_name);

	/* Owned by the core. */
	struct list_head node;
};

int ibx_register_link_ops(struct ibx_link_ops *ops);
void ibx_unregister_link_ops(struct ibx_link_ops *ops);

#endif /* IBX_CORE_H */
