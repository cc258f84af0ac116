/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mlx_hw.h - private declarations of the mlx_hw HCA driver.
 *
 * The driver models a ConnectX-style HCA: queues live in memory shared with
 * userspace (docs/prm.md), and a per-device kernel thread (the "engine",
 * engine.c) plays the role of the hardware.  The transport is split by
 * direction so the same code can later drive a RoCEv2 wire:
 *   requester.c  turns send WQEs into packet descriptors,
 *   responder.c  executes packets against a destination QP,
 *   completer.c  handles the responses (ACK/NAK/read data) at the requester,
 *   loopback.c   carries a packet to a local destination device.
 */
#ifndef MLX_HW_H
#define MLX_HW_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/netdevice.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include "ibx_core.h"
#include "uapi/mlx_hw-abi.h"

#define MLX_HW_VENDOR_ID	0x0b7a5e
#define MLX_HW_VENDOR_PART_ID	0x4d48
#define MLX_HW_HW_VER		1

#define MLX_HW_MAX_QP		4096
#define MLX_HW_MAX_QP_WR	16384
#define MLX_HW_MAX_SGE		32
#define MLX_HW_MAX_INLINE	512
#define MLX_HW_MAX_CQ		4096
#define MLX_HW_MAX_CQE		65536
#define MLX_HW_MAX_MR		65536
#define MLX_HW_MAX_PD		4096
#define MLX_HW_MAX_SRQ		4096
#define MLX_HW_MAX_RD_ATOM	16
#define MLX_HW_MAX_MSG_SZ	0x80000000u
#define MLX_HW_MAX_MR_SIZE	(1ull << 40)
#define MLX_HW_MIN_QPN		0x11
#define MLX_HW_MAX_QPN		0xffffff

#define MLX_HW_DB_PAGE		4096	/* doorbell page at offset 0 of a region */
#define MLX_HW_SQ_MIN_STRIDE	64
#define MLX_HW_SQ_MAX_STRIDE	1024
#define MLX_HW_RQ_MIN_STRIDE	32
#define MLX_HW_WQE_SEG		16	/* segment alignment */
#define MLX_HW_GRH_LEN		40

/* WQEs, and packets of one message, per QP and pass (fairness). */
#define MLX_HW_WQE_BUDGET	16
#define MLX_HW_PKT_BUDGET	64

/* enum ibv_wc_status values written to CQEs. */
enum mlx_hw_wc_status {
	MLX_HW_WC_SUCCESS = 0,
	MLX_HW_WC_LOC_LEN_ERR = 1,
	MLX_HW_WC_LOC_QP_OP_ERR = 2,
	MLX_HW_WC_LOC_PROT_ERR = 4,
	MLX_HW_WC_WR_FLUSH_ERR = 5,
	MLX_HW_WC_MW_BIND_ERR = 6,
	MLX_HW_WC_BAD_RESP_ERR = 7,
	MLX_HW_WC_LOC_ACCESS_ERR = 8,
	MLX_HW_WC_REM_INV_REQ_ERR = 9,
	MLX_HW_WC_REM_ACCESS_ERR = 10,
	MLX_HW_WC_REM_OP_ERR = 11,
	MLX_HW_WC_RETRY_EXC_ERR = 12,
	MLX_HW_WC_RNR_RETRY_EXC_ERR = 13,
	MLX_HW_WC_GENERAL_ERR = 21,
};

/* enum ibv_wc_opcode values of receive completions; wc_flags bits. */
#define MLX_HW_WC_RECV			128
#define MLX_HW_WC_RECV_RDMA_WITH_IMM	129
#define MLX_HW_WC_GRH			(1 << 0)
#define MLX_HW_WC_WITH_IMM		(1 << 1)
#define MLX_HW_WC_WITH_INV		(1 << 3)

/* Port counters of sysfs hw_counters (order of mlx_hw_counter_names). */
enum mlx_hw_counter {
	MLX_HW_CNT_TX_PACKETS,
	MLX_HW_CNT_TX_BYTES,
	MLX_HW_CNT_RX_PACKETS,
	MLX_HW_CNT_RX_BYTES,
	MLX_HW_CNT_RNR_NAKS_SENT,
	MLX_HW_CNT_RNR_NAKS_RCVD,
	MLX_HW_CNT_RETRANSMITS,
	MLX_HW_CNT_ERR_CQES,
	MLX_HW_CNT_WAKEUPS,
	MLX_HW_CNT_INLINE_WAKES,
	MLX_HW_NUM_COUNTERS
};

/*
 * A block of kernel memory that can be mapped into userspace (doorbell page
 * and rings, or the engine page).  Refcounted because a user mapping may
 * outlive the object that allocated it.
 */
struct mlx_hw_region {
	struct kref ref;		/* owner + each mapping + each key */
	void *vaddr;		/* vmalloc_user() memory, page aligned */
	size_t size;		/* bytes, multiple of PAGE_SIZE */
	bool read_only;		/* mapped without write permission */
};

/* Private bookkeeping common to objects the engine looks up by number. */
struct mlx_hw_obj_ref {
	refcount_t ref;		/* 1 for the object itself + engine users */
	struct completion free;	/* completed when ref drops to 0 */
};

struct mlx_hw_dev {
	struct ibx_device ibx;		/* must be first */
	struct list_head list;		/* in mlx_hw_devices */
	struct net_device *ndev;	/* bound netdev, held */
	u8 mac[ETH_ALEN];		/* MAC when bound */
	bool port_active;		/* last reported port state */
	bool registered;		/* ibx_register_device() succeeded */
	bool removing;			/* removal queued or in progress */
	struct work_struct gid_work;	/* rebuilds the GID table */
	struct work_struct remove_work;	/* removal after NETDEV_UNREGISTER */

	/* Copy of the GID table for loopback lookups from the engine. */
	spinlock_t gid_lock;		/* protects gid, gid_valid */
	union ibx_gid gid[IBX_GID_TABLE_LEN];	/* port 1 GIDs */
	bool gid_valid[IBX_GID_TABLE_LEN];	/* entry in use */
	unsigned int mtu;		/* active path MTU bytes (from netdev) */

	/* Engine thread and its shared page. */
	struct mlx_hw_region *engine_region;	/* mapped read-only */
	struct mlx_hw_engine_page *engine_page;	/* engine_region->vaddr */
	struct task_struct *engine;	/* the engine thread */
	wait_queue_head_t engine_wq;	/* where it sleeps */
	atomic_t kick;			/* set by WAKE / kernel events */
	bool engine_contended;		/* its CPU was wanted when it idled */
	u64 engine_probe;		/* local_clock() of the last probe */
	unsigned long next_qpn_scan;	/* round-robin position */

	/* Objects the engine walks or looks up; values hold obj refs. */
	struct xarray qp_xa;		/* qpn -> mlx_hw_qp */
	struct xarray cq_xa;		/* cqn -> mlx_hw_cq */
	struct xarray mr_xa;		/* key index -> mlx_hw_mr */
	u32 qp_next, cq_next, mr_next;	/* xa_alloc_cyclic cursors */
	atomic_t mr_keybyte;		/* low byte of the next key */
	spinlock_t bind_lock;		/* window binds vs. MR rereg */
	u32 srq_next;			/* xa_alloc_cyclic cursor */
	struct xarray srq_xa;		/* srqn -> mlx_hw_srq (obj refs) */

	atomic64_t counters[MLX_HW_NUM_COUNTERS];	/* hw_counters */
};

static inline struct mlx_hw_dev *to_mdev(struct ibx_device *ibx)
{
	return container_of(ibx, struct mlx_hw_dev, ibx);
}

struct mlx_hw_ucontext {
	struct ibx_ucontext ibx;	/* must be first */
	struct xarray mmap_xa;		/* key >> PAGE_SHIFT -> region (ref) */
	u32 mmap_next;			/* xa_alloc_cyclic cursor */
};

static inline struct mlx_hw_ucontext *to_muctx(struct ibx_ucontext *u)
{
	return container_of(u, struct mlx_hw_ucontext, ibx);
}

struct mlx_hw_pd {
	struct ibx_pd ibx;		/* must be first */
};

static inline struct mlx_hw_pd *to_mpd(struct ibx_pd *p)
{
	return container_of(p, struct mlx_hw_pd, ibx);
}

/* MRs and MWs share one key space (docs/prm.md section 10). */
enum mlx_hw_key_kind {
	MLX_HW_KEY_MR,
	MLX_HW_KEY_MW,
};

/* What mr_xa stores: the part common to MRs and MWs. */
struct mlx_hw_key {
	enum mlx_hw_key_kind kind;	/* which object embeds it */
	struct mlx_hw_obj_ref obj;	/* engine users */
	u32 index;			/* slot in mr_xa = key >> 8 */
};

struct mlx_hw_mr {
	struct ibx_mr ibx;		/* must be first */
	struct mlx_hw_key key;		/* in dev->mr_xa */
	bool invalid;			/* invalidated by SEND_INV/LOCAL_INV */
	spinlock_t mw_lock;		/* protects mw_bound, dereg_begun */
	u32 mw_bound;			/* windows (type 1 or 2) bound to it */
	bool dereg_begun;		/* being deregistered: no new binds */
};

/*
 * A memory window.  Its binding is read by responders and written by the
 * binding QP's requester, under @lock.  The MR is remembered by key and
 * looked up again on every use, so deregistering it just makes the window
 * unusable.
 */
struct mlx_hw_mw {
	struct ibx_mw ibx;		/* must be first; ibx.rkey is current */
	struct mlx_hw_key key;		/* in dev->mr_xa */
	spinlock_t lock;		/* protects the binding below */
	bool bound;			/* usable for remote access */
	u32 mr_lkey;			/* the MR the window is bound to */
	u64 addr;			/* window start (virtual address) */
	u64 length;			/* window bytes */
	u32 access;			/* IB_UVERBS_ACCESS_REMOTE_* */
	u32 qpn;			/* type 2: the QP it is bound to */
};

static inline struct mlx_hw_mw *to_mmw(struct ibx_mw *m)
{
	return container_of(m, struct mlx_hw_mw, ibx);
}

static inline struct mlx_hw_mr *to_mmr(struct ibx_mr *m)
{
	return container_of(m, struct mlx_hw_mr, ibx);
}

struct mlx_hw_cq {
	struct ibx_cq ibx;		/* must be first */
	struct mlx_hw_obj_ref obj;	/* engine users (arm scans) */
	u32 cqn;			/* index in dev->cq_xa */
	struct mlx_hw_region *region;	/* doorbell page + ring */
	u64 mmap_key;			/* of region in the owner's context */
	struct mlx_hw_cq_db *db;	/* in region */
	struct mlx_hw_cqe *ring;	/* in region */
	u32 entries;			/* power of two */
	u32 log_entries;		/* log2(entries), for the owner bit */
	spinlock_t lock;		/* serializes CQE production */
	u32 pi;				/* private producer index */
	u32 arm_sn;			/* last arm sequence number seen */
	u8 armed;			/* MLX_HW_CQ_ARM_* or 0 */
	bool error;			/* overrun happened */
};

static inline struct mlx_hw_cq *to_mcq(struct ibx_cq *c)
{
	return container_of(c, struct mlx_hw_cq, ibx);
}

/* A validated scatter/gather element: a range of a referenced MR. */
struct mlx_hw_seg {
	struct mlx_hw_mr *mr;		/* holds an obj ref; NULL when parked */
	u32 key;			/* lkey (local lists) */
	u64 off;			/* from the MR's iova */
	u32 len;			/* bytes */
};

/*
 * A list of segments, or a kernel buffer (inline data).  A list that waits
 * (RNR/retry timers, a message spanning calls) is "parked": its MR
 * references are dropped so that deregistration never waits on a timer,
 * and the keys are looked up again when work resumes.
 */
struct mlx_hw_sgl {
	u32 num;			/* segments used */
	u32 total;			/* bytes */
	const u8 *kbuf;			/* if set: the data, segs unused */
	bool parked;			/* MR references dropped */
	bool remote;			/* one rkey range: rkey, va, access */
	u32 rkey;			/* remote: the key it was resolved from */
	u64 va;				/* remote: start address */
	u32 access;			/* remote: access it was checked for */
	struct mlx_hw_seg seg[MLX_HW_MAX_SGE];	/* the ranges, in order */
};

/* A position inside an sgl. */
struct mlx_hw_cursor {
	const struct mlx_hw_sgl *sgl;	/* the list walked */
	u32 idx;			/* current segment */
	u32 off;			/* offset in it (or in kbuf) */
};

struct mlx_hw_srq {
	struct ibx_srq ibx;		/* must be first */
	struct mlx_hw_obj_ref obj;	/* XRC responders using it */
	u32 srqn;			/* index in dev->srq_xa */
	struct mlx_hw_region *region;	/* doorbell page + ring */
	u64 mmap_key;			/* of region in the owner's context */
	struct mlx_hw_srq_db *db;	/* in region */
	void *ring;			/* in region */
	u32 wqe_cnt;			/* power of two */
	u32 stride;			/* bytes per receive WQE, power of two */
	u32 max_sge;			/* data segments a WQE may have */
	struct mutex lock;		/* taking WQEs, modify */
	u32 ci;				/* private consumer index */
	u32 limit;			/* 0 = limit event disarmed */
};

static inline struct mlx_hw_srq *to_msrq(struct ibx_srq *s)
{
	return container_of(s, struct mlx_hw_srq, ibx);
}

/* The private, validated copy of a send WQE. */
struct mlx_hw_send_wqe {
	u64 wr_id;			/* returned in the CQE */
	u8 opcode;			/* enum mlx_hw_wqe_opcode */
	u8 flags;			/* enum mlx_hw_wqe_flags (+ sq_sig_all) */
	__be32 imm_data;		/* *_IMM: network order */
	u32 invalidate_rkey;		/* SEND_INV, LOCAL_INV */
	union ibx_gid dgid;		/* UD: destination GID */
	u32 remote_qpn;			/* UD: destination QP */
	u32 remote_qkey;		/* UD: Q_Key (QP's if bit 31 was set) */
	u32 xrc_srqn;			/* XRC INI: the target's XRC SRQ */
	u8 sgid_index;			/* UD: source GID index */
	u8 hop_limit;			/* UD: GRH hop limit */
	u8 traffic_class;		/* UD: GRH traffic class */
	u32 flow_label;			/* UD: GRH flow label */
	struct mlx_hw_wqe_bind bind;	/* BIND_MW: the raw bind segment */
	u64 raddr;			/* RDMA/atomic: remote address */
	u32 rkey;			/* RDMA/atomic: remote key */
	u64 swap_add;			/* atomics: swap or add value */
	u64 compare;			/* CMP_SWP: compare value */
	struct mlx_hw_sgl sgl;		/* local data (or inline_data) */
	u8 inline_data[MLX_HW_MAX_INLINE]; /* INLINE: copied from the WQE */
};

/* The private copy of a taken receive WQE. */
struct mlx_hw_recv_wqe {
	u64 wr_id;			/* returned in the CQE */
	struct mlx_hw_sgl sgl;		/* validated receive buffers */
};

/* Transport operations of a packet (kinds of IBA BTH opcodes). */
enum mlx_hw_pkt_op {
	MLX_HW_PKT_SEND,
	MLX_HW_PKT_WRITE,
	MLX_HW_PKT_READ_REQ,
	MLX_HW_PKT_CMP_SWP,
	MLX_HW_PKT_FETCH_ADD,
};

#define MLX_HW_PKT_FIRST	(1 << 0)	/* first packet of a message */
#define MLX_HW_PKT_LAST		(1 << 1)	/* last packet of a message */
#define MLX_HW_PKT_IMM		(1 << 2)	/* carries ImmDt */
#define MLX_HW_PKT_INV		(1 << 3)	/* carries IETH (SEND_INV) */
#define MLX_HW_PKT_SOLICITED	(1 << 4)	/* BTH SE bit */

/*
 * A packet descriptor: the headers of one IBA packet (BTH, RETH, ImmDt,
 * IETH, AtomicETH, DETH, GRH) with its payload referencing the source
 * pages instead of carrying them.
 */
struct mlx_hw_pkt {
	enum mlx_hw_pkt_op op;		/* BTH opcode kind */
	u32 flags;			/* MLX_HW_PKT_*: position, SE, headers */
	u32 qp_type;			/* IB_UVERBS_QPT_* of the sender */
	u32 psn;			/* BTH PSN, 24 bits */
	u32 dest_qpn;			/* BTH destination QP */
	u32 src_qpn;			/* DETH source QP / sender's QPN */
	u32 xrc_srqn;			/* XRCETH: XRC SRQ (XRC INI senders) */
	u64 va;				/* RETH/AtomicETH virtual address */
	u32 rkey;			/* RETH/AtomicETH remote key */
	u32 dma_len;			/* RETH DMA length (whole message) */
	__be32 imm_data;		/* ImmDt, network order */
	u32 inv_rkey;			/* IETH: key to invalidate */
	u64 swap_add;			/* AtomicETH swap or add data */
	u64 compare;			/* AtomicETH compare data */
	u32 qkey;			/* DETH Q_Key */
	union ibx_gid sgid;		/* GRH source GID */
	union ibx_gid dgid;		/* GRH destination GID */
	u8 traffic_class;		/* GRH traffic class */
	u8 hop_limit;			/* GRH hop limit */
	u32 flow_label;			/* GRH flow label */
	struct mlx_hw_cursor payload;	/* where the payload bytes are */
	u32 paylen;			/* payload bytes of this packet */
};

/* What a responder answers (AETH syndromes and response payloads). */
enum mlx_hw_resp_kind {
	MLX_HW_RESP_NONE,		/* dropped, no response (UD/UC, bad QP) */
	MLX_HW_RESP_ACK,
	MLX_HW_RESP_RNR_NAK,
	MLX_HW_RESP_NAK_SEQ,
	MLX_HW_RESP_NAK_INV_REQ,
	MLX_HW_RESP_NAK_REM_ACCESS,
	MLX_HW_RESP_NAK_REM_OP,
};

struct mlx_hw_resp {
	enum mlx_hw_resp_kind kind;	/* ACK, NAK kind or no response */
	u8 rnr_timer;			/* RNR NAK: the responder's min_rnr_timer */
	u32 psn_span;			/* PSNs the request consumed */
	u64 atomic_orig;		/* atomic ACK: original value */
	struct mlx_hw_sgl read_src;	/* READ response data (one seg, ref) */
};

/* Requester state of a QP (one WQE in flight in this model). */
struct mlx_hw_req {
	bool have_wqe;			/* wqe holds the current SQ WQE */
	struct mlx_hw_send_wqe wqe;	/* private copy of the WQE at sq_ci */
	u32 npkts;			/* packets of the current message */
	u32 pkt_idx;			/* next packet to (re)send */
	struct mlx_hw_resp resp;	/* response to the last packet */
	u32 retries;			/* transport retries of the current WQE */
	u32 rnr_retries;		/* RNR retries of the current WQE */
	u64 wait_until;			/* local_clock() ns; retry not before */
	bool waiting;			/* wait_until is armed */
};

/* Responder state of a QP. */
struct mlx_hw_resp_state {
	bool in_msg;			/* a multi-packet message is in progress */
	enum mlx_hw_pkt_op op;		/* of the message in progress */
	bool have_rwqe;			/* rwqe taken for the message */
	struct mlx_hw_recv_wqe rwqe;	/* the receive WQE taken */
	struct mlx_hw_cursor cur;	/* where the next payload goes */
	u32 offset;			/* bytes received so far */
	struct mlx_hw_sgl wr_dst;	/* RDMA WRITE target (one seg, ref) */
	/*
	 * XRC TGT: the XRC SRQ the packet being executed names (referenced
	 * only during the responder call), and the SRQ number of the
	 * message in progress.
	 */
	struct mlx_hw_srq *xsrq;
	u32 xrc_srqn;
};

struct mlx_hw_qp {
	struct ibx_qp ibx;		/* must be first */
	struct mlx_hw_obj_ref obj;	/* engine and loopback users */
	struct mlx_hw_region *region;	/* doorbell page + SQ + RQ */
	u64 mmap_key;			/* of region in the owner's context */
	struct mlx_hw_qp_db *db;	/* in region */
	void *sq;			/* ring base */
	void *rq;			/* ring base, NULL with an SRQ */
	u32 sq_wqe_cnt, sq_stride;	/* SQ geometry (docs/prm.md 4.1) */
	u32 sq_hdr;			/* header bytes the stride reserves */
	u32 rq_wqe_cnt, rq_stride;	/* RQ geometry (0 with an SRQ) */
	u32 max_send_sge, max_recv_sge;	/* capacities reported back */
	u32 max_inline;			/* inline bytes a WQE may carry */
	void *wqe_buf;			/* sq_stride bytes: fetched WQE copy */

	/*
	 * sq_lock: held by the engine while it runs this QP's requester and
	 * by modify/destroy.  rq_lock: held while a responder executes a
	 * packet on this QP and by modify/destroy.  Order: any sq_lock
	 * before any rq_lock.
	 */
	struct mutex sq_lock;		/* requester side, see above */
	struct mutex rq_lock;		/* responder side, see above */

	int state;			/* enum ibx_qp_state, READ/WRITE_ONCE */
	u32 sq_ci;			/* private SQ consumer index */
	u32 rq_ci;			/* private RQ consumer index */
	bool db_corrupt;		/* a doorbell was out of range */
	bool sqd_notify;		/* raise SQ_DRAINED once drained */
	bool comm_est;			/* COMM_EST raised since entering RTR */
	bool last_wqe_reached;		/* SRQ: LAST_WQE_REACHED raised in ERR */

	/* Attributes the data path uses (copied in modify_qp). */
	u32 qkey;			/* UD: Q_Key received datagrams need */
	u32 dest_qpn;			/* RC/UC: the connected QP */
	u32 sq_psn;			/* next PSN to send */
	u32 rq_psn;			/* expected PSN */
	u32 access;			/* IB_UVERBS_ACCESS_* of the QP */
	u32 mtu;			/* path MTU, bytes */
	u8 min_rnr_timer;		/* RNR NAK timer code we answer with */
	u8 rnr_retry;			/* RNR retries (7 = forever) */
	u8 retry_cnt;			/* transport retries */
	u8 timeout;			/* local ACK timeout code */
	union ibx_gid dgid;		/* RC/UC: destination GID */
	u8 sgid_index;			/* RC/UC: source GID index */
	u8 hop_limit, traffic_class;	/* RC/UC: GRH fields */
	u32 flow_label;			/* RC/UC: GRH flow label */

	struct mlx_hw_req req;		/* send side, under sq_lock */
	struct mlx_hw_resp_state resp;	/* receive side, under rq_lock */
};

static inline struct mlx_hw_qp *to_mqp(struct ibx_qp *q)
{
	return container_of(q, struct mlx_hw_qp, ibx);
}

/* RC and both halves of XRC: acknowledged, PSN-checked, RNR NAKs. */
static inline bool mlx_hw_qp_reliable(u32 qp_type)
{
	return qp_type == IB_UVERBS_QPT_RC ||
	       qp_type == IB_UVERBS_QPT_XRC_INI ||
	       qp_type == IB_UVERBS_QPT_XRC_TGT;
}

/*
 * The PD a responder checks receive buffers and remote keys against: an
 * XRC TGT QP has none, the XRC SRQ of the request gives it (IBA A14).
 */
static inline struct ibx_pd *mlx_hw_resp_pd(struct mlx_hw_qp *qp)
{
	return qp->resp.xsrq ? qp->resp.xsrq->ibx.pd : qp->ibx.pd;
}

/* main.c */
extern struct list_head mlx_hw_devices;
extern spinlock_t mlx_hw_devices_lock;

/* device.c */
void mlx_hw_dev_init_attr(struct mlx_hw_dev *dev);
int mlx_hw_query_port(struct ibx_device *ibx, u32 port,
		      struct ib_uverbs_query_port_resp *attr);
void mlx_hw_update_port_state(struct mlx_hw_dev *dev);
void mlx_hw_update_mtu(struct mlx_hw_dev *dev);
void mlx_hw_gid_work(struct work_struct *work);
void mlx_hw_clear_gids(struct mlx_hw_dev *dev);
bool mlx_hw_dev_has_gid(struct mlx_hw_dev *dev, const union ibx_gid *gid);
int mlx_hw_dev_get_gid(struct mlx_hw_dev *dev, unsigned int index,
		       union ibx_gid *gid);
int mlx_hw_register_notifiers(void);
void mlx_hw_unregister_notifiers(void);
extern const char *const mlx_hw_counter_names[];
int mlx_hw_get_hw_counters(struct ibx_device *ibx, u32 port, u64 *values);

static inline void mlx_hw_count(struct mlx_hw_dev *dev, enum mlx_hw_counter c,
				u64 n)
{
	atomic64_add(n, &dev->counters[c]);
}

/* mmap.c */
struct mlx_hw_region *mlx_hw_region_alloc(size_t size, bool read_only);
void mlx_hw_region_put(struct mlx_hw_region *region);
int mlx_hw_mmap_insert(struct mlx_hw_ucontext *uctx,
		       struct mlx_hw_region *region, u64 *key);
void mlx_hw_mmap_remove(struct mlx_hw_ucontext *uctx, u64 key);
void mlx_hw_mmap_remove_all(struct mlx_hw_ucontext *uctx);
int mlx_hw_mmap(struct ibx_ucontext *ibuctx, struct vm_area_struct *vma);

/* obj refs (verbs.c) */
void mlx_hw_obj_init(struct mlx_hw_obj_ref *obj);
bool mlx_hw_obj_get(struct mlx_hw_obj_ref *obj);
void mlx_hw_obj_put(struct mlx_hw_obj_ref *obj);
void mlx_hw_obj_drain(struct mlx_hw_obj_ref *obj);

/*
 * The object stored at @idx of @xa (a type with a struct mlx_hw_obj_ref
 * named obj), with a reference taken under the xarray lock so that a
 * concurrent destroy cannot free it in between; NULL if absent or dying.
 */
#define mlx_hw_xa_get(xa, idx, type)					\
	({								\
		type *__o;						\
									\
		xa_lock(xa);						\
		__o = xa_load(xa, idx);					\
		if (__o && !mlx_hw_obj_get(&__o->obj))			\
			__o = NULL;					\
		xa_unlock(xa);						\
		__o;							\
	})

/* verbs.c */
extern const struct ibx_device_ops mlx_hw_ops;
struct mlx_hw_mr *mlx_hw_mr_get(struct mlx_hw_dev *dev, u32 key);
static inline void mlx_hw_mr_put(struct mlx_hw_mr *mr)
{
	mlx_hw_obj_put(&mr->key.obj);
}

/* mw.c */
int mlx_hw_alloc_mw(struct ibx_mw *ibmw, struct ibx_udata *udata);
void mlx_hw_dealloc_mw(struct ibx_mw *ibmw);
struct mlx_hw_mr *mlx_hw_rkey_resolve(struct mlx_hw_dev *dev,
				      struct mlx_hw_qp *qp, u32 rkey, u64 va,
				      u64 len, u32 access);
int mlx_hw_invalidate(struct mlx_hw_dev *dev, struct ibx_pd *pd, u32 key);
u8 mlx_hw_bind_mw(struct mlx_hw_qp *qp, const struct mlx_hw_wqe_bind *bind);
int mlx_hw_begin_dereg_mr(struct ibx_mr *ibmr);
bool mlx_hw_mr_has_windows(struct mlx_hw_dev *dev, u32 lkey);

/* queue.c */
int mlx_hw_create_cq(struct ibx_cq *ibcq, const struct ibx_cq_init_attr *attr,
		     struct ibx_udata *udata);
void mlx_hw_destroy_cq(struct ibx_cq *ibcq);
int mlx_hw_resize_cq(struct ibx_cq *ibcq, int cqe, struct ibx_udata *udata);
int mlx_hw_req_notify_cq(struct ibx_cq *ibcq, bool solicited_only);
int mlx_hw_create_qp(struct ibx_qp *ibqp, struct ibx_qp_init_attr *init,
		     struct ibx_udata *udata);
int mlx_hw_modify_qp(struct ibx_qp *ibqp, const struct ibx_qp_attr *attr,
		     u32 mask, struct ibx_udata *udata);
void mlx_hw_destroy_qp(struct ibx_qp *ibqp);
int mlx_hw_create_srq(struct ibx_srq *ibsrq, struct ibx_srq_attr *attr,
		      struct ibx_udata *udata);
int mlx_hw_modify_srq(struct ibx_srq *ibsrq, const struct ibx_srq_attr *attr,
		      u32 mask, struct ibx_udata *udata);
int mlx_hw_query_srq(struct ibx_srq *ibsrq, struct ibx_srq_attr *attr);
void mlx_hw_destroy_srq(struct ibx_srq *ibsrq);
struct mlx_hw_srq *mlx_hw_srq_get(struct mlx_hw_dev *dev, u32 srqn);
static inline void mlx_hw_srq_put(struct mlx_hw_srq *srq)
{
	mlx_hw_obj_put(&srq->obj);
}
struct mlx_hw_qp *mlx_hw_qp_get(struct mlx_hw_dev *dev, u32 qpn);
static inline void mlx_hw_qp_put(struct mlx_hw_qp *qp)
{
	mlx_hw_obj_put(&qp->obj);
}
void mlx_hw_qp_to_err(struct mlx_hw_qp *qp);

/* engine.c */
int mlx_hw_engine_start(struct mlx_hw_dev *dev);
void mlx_hw_engine_stop(struct mlx_hw_dev *dev);
void mlx_hw_engine_kick(struct mlx_hw_dev *dev);
void mlx_hw_engine_wake(struct mlx_hw_dev *dev);
struct mlx_hw_cqe;
int mlx_hw_cq_post(struct mlx_hw_cq *cq, const struct mlx_hw_cqe *cqe,
		   bool solicited);
void mlx_hw_cq_check_arm(struct mlx_hw_cq *cq);

/* data.c */
bool mlx_hw_mr_covers(const struct mlx_hw_mr *mr, u64 addr, u64 len);
int mlx_hw_sgl_add(struct mlx_hw_dev *dev, struct mlx_hw_pd *pd,
		   struct mlx_hw_sgl *sgl, u32 lkey, u64 addr, u32 len,
		   u32 access);
int mlx_hw_sgl_set_remote(struct mlx_hw_dev *dev, struct mlx_hw_qp *qp,
			  struct mlx_hw_sgl *sgl, u32 rkey, u64 va, u32 len,
			  u32 access);
void mlx_hw_sgl_release(struct mlx_hw_sgl *sgl);

/* Starts an empty local list (references none). */
static inline void mlx_hw_sgl_init(struct mlx_hw_sgl *sgl)
{
	sgl->num = 0;
	sgl->total = 0;
	sgl->kbuf = NULL;
	sgl->parked = false;
	sgl->remote = false;
}
void mlx_hw_sgl_park(struct mlx_hw_sgl *sgl);
int mlx_hw_sgl_unpark(struct mlx_hw_dev *dev, struct mlx_hw_qp *qp,
		      struct mlx_hw_sgl *sgl);
int mlx_hw_copy(struct mlx_hw_cursor *dst, struct mlx_hw_cursor *src,
		u32 len);
int mlx_hw_copy_from_kbuf(struct mlx_hw_cursor *dst, const void *buf,
			  u32 len);
int mlx_hw_atomic(struct mlx_hw_seg *seg, bool cmp_swp, u64 swap_add,
		  u64 compare, u64 *orig);

/* requester.c */
bool mlx_hw_requester(struct mlx_hw_qp *qp, u64 *next_timer);
void mlx_hw_req_release(struct mlx_hw_qp *qp);
void mlx_hw_sq_free_slot(struct mlx_hw_qp *qp);
int mlx_hw_send_cqe(struct mlx_hw_qp *qp, const struct mlx_hw_send_wqe *wqe,
		    u8 status, u32 byte_len);

/* responder.c */
void mlx_hw_responder(struct mlx_hw_qp *qp, struct mlx_hw_pkt *pkt,
		      struct mlx_hw_resp *resp);
void mlx_hw_resp_release(struct mlx_hw_qp *qp);
int mlx_hw_recv_flush(struct mlx_hw_qp *qp);

/* completer.c */
enum mlx_hw_comp_result {
	MLX_HW_COMP_NEXT,		/* packet acknowledged, go on */
	MLX_HW_COMP_DONE,		/* WQE completed (CQE written if any) */
	MLX_HW_COMP_RETRY,		/* retry the WQE later (timer armed) */
	MLX_HW_COMP_ERROR,		/* WQE completed in error, QP in ERR */
	MLX_HW_COMP_YIELD,		/* packet budget used, resume later */
};
enum mlx_hw_comp_result mlx_hw_completer(struct mlx_hw_qp *qp,
					 struct mlx_hw_pkt *pkt,
					 struct mlx_hw_resp *resp);
int mlx_hw_complete_wqe(struct mlx_hw_qp *qp, u8 status, u32 byte_len);

/* loopback.c */
void mlx_hw_loopback_xmit(struct mlx_hw_dev *dev, struct mlx_hw_pkt *pkt,
			  struct mlx_hw_resp *resp);

#endif /* MLX_HW_H */
