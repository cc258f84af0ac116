/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mlx_hw.h - private declarations of the mlx_hw HCA driver.
 *
 * The driver models a ConnectX-style HCA: queues live in memory shared with
 * userspace (docs/prm.md), and the "engine" plays the role of the
 * hardware: in the wire's softirq, in the system call that rang a
 * doorbell, or in a per-device kernel thread (docs/prm.md 2.3; sched.c
 * decides when and where a QP runs, engine.c what a run does, and side.c
 * makes one context at a time run a side of a QP).  It is a packet
 * machine: every message moves as RoCEv2 packets (sk_buffs starting at the
 * BTH), over the wire or through the loopback transport, and one SEND is
 * followed through the files in this order:
 *
 *   req.c       the requester fetches the WQE into its send window (swqe.c
 *               parses it out of the ring) and builds the packets (pkt.c
 *               encodes headers and payload), or direct.c hands a segment
 *               for a QP of this host straight to its responder,
 *   net.c       hands them to the UDP/IP stack, or loopback.c to a local
 *               device (with optional fault injection),
 *   recv.c      validates an arriving packet and queues it on its QP,
 *   resp.c      the responder executes requests (resp_rq.c: receive WQEs)
 *               and answers ACK/NAK, READ responses and atomic ACKs
 *               (resp_tx.c),
 *   comp.c      the completer matches responses against the send window
 *               (send_window.c), retransmits, and completes WQEs,
 *   cqe.c       writes CQEs and raises completion events.
 *
 * The files are layers, listed here from the top down.  A file calls only
 * files of its own layer or of the layers below it, and none calls,
 * directly or through others, a file that calls it back: both are checked
 * on the built objects (nm) by tests/hca/layers.unittest, which reads this
 * list.
 *
 *   module:     main.c debugfs.c
 *   verbs:      verbs.c kverbs.c qp.c cq.c mr.c
 *   engine:     engine.c doorbell.c
 *   requester:  req.c direct.c
 *   runs:       comp.c resp.c
 *   answers:    resp_tx.c ecn.c
 *   packets:    pkt.c
 *   transport:  loopback.c net.c recv.c
 *   windows:    swqe.c send_window.c resp_rq.c ack_guard.c apm.c
 *   state:      qp_data.c device.c data.c odp.c cwnd.c
 *   objects:    srq.c mw.c mcast.c cqe.c
 *   services:   sched.c side.c obj.c mmap.c opcode.c trace.c
 *
 * At the top the module (netdev binding, debugfs) and the verbs (kverbs.c:
 * the kernel consumers' data path); then the engine (what a run does, and
 * the doorbells that ask for runs); then the packet machine from the
 * sending end down to the receive path, responder and completer above
 * the making of packets since they send too: the requester (and direct.c,
 * which runs a local responder on a segment), completer and responder,
 * what they send back (resp_tx.c, and ecn.c's CNPs), the making of
 * packets (pkt.c), the transports and the receive path (recv.c).  Below
 * them what the sides keep (the send window and its parsed WQEs, receive
 * WQEs, the PSN an ACK names, the paths and migration state of APM); the
 * state of QPs and devices and the data they move (the QP timer and
 * address vectors, the device list and counters, scatter/gather lists and
 * copies, ODP, the congestion window); the objects the data path looks up
 * (SRQs, remote keys, multicast groups) and the CQ ring it writes; and at
 * the bottom what all of them use: when and where a QP runs (sched.c,
 * side.c), the end of objects (obj.c), mmap regions, the opcode table and
 * the trace.
 *
 * Three calls go back up, through pointers, which nm does not see: the
 * scheduler calls a QP's run through the device's struct
 * mlx_hw_sched_ops (engine.c's side runs, apm.c's service, loopback.c's
 * held packet), as rxe_task.c calls its task's function; net.c calls
 * main.c's mlx_hw_destroy_net_devices() when a namespace goes away,
 * through the mlx_hw_net_gone hook that main.c hands to mlx_hw_net_init();
 * and obj.c calls mr.c's mlx_hw_mr_holders() through mlx_hw_obj_drain()'s
 * @holders, to log who still holds an MR whose deregistration waits long.
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
#include <linux/skbuff.h>
#include <linux/hrtimer.h>
#include <net/ipv6.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include "ibx_core.h"
#include "uapi/mlx_hw-abi.h"
#include "hdr.h"

#define MLX_HW_VENDOR_ID	0x0b7a5e
#define MLX_HW_VENDOR_PART_ID	0x4d48
#define MLX_HW_HW_VER		1

#define MLX_HW_MAX_HELPERS	3	/* engine threads beside the first */
#define MLX_HW_MAX_QP		65536
#define MLX_HW_MAX_QP_WR	16384
#define MLX_HW_MAX_SGE		32
#define MLX_HW_MAX_INLINE	512
#define MLX_HW_MAX_CQ		65536
#define MLX_HW_MAX_CQE		((1 << 22) - 1)	/* as a ConnectX reports */
#define MLX_HW_MAX_MR		65536
#define MLX_HW_MAX_PD		4096
#define MLX_HW_MAX_SRQ		4096
#define MLX_HW_MAX_RD_ATOM	16	/* responder resources per QP */
/*
 * READ/atomics a QP may have outstanding: only a count, so as many as
 * rxe's responders take.  perftest sets max_rd_atomic to the peer's
 * max_qp_rd_atom, which is 128 on rxe.
 */
#define MLX_HW_MAX_INIT_RD_ATOM	128
#define MLX_HW_MAX_MSG_SZ	0x80000000u
#define MLX_HW_MAX_MR_SIZE	(1ull << 40)
#define MLX_HW_MIN_QPN		0x11
#define MLX_HW_MAX_QPN		0xffffff
#define MLX_HW_MAX_MCAST_GRP	1024
#define MLX_HW_MAX_MCAST_ATTACH	64	/* QPs per group */

#define MLX_HW_SQ_MIN_STRIDE	64
#define MLX_HW_SQ_MAX_STRIDE	1024
#define MLX_HW_RQ_MIN_STRIDE	32
#define MLX_HW_WQE_SEG		16	/* segment alignment */
#define MLX_HW_GRH_LEN		40

/*
 * Fairness (docs/prm.md 9): what one QP may do each time the engine runs
 * it before the others get their turn.
 */
#define MLX_HW_WQE_BUDGET	16	/* WQEs started or flushed */
#define MLX_HW_PKT_BUDGET	64	/* packets sent or received */

/*
 * Transport limits of a requester: WQEs it keeps in its send window (read
 * from the ring, not yet completed), the bounds of its congestion window
 * of unacknowledged PSNs (cwnd.c; the module parameter tx_window_max lowers
 * the ceiling), and how often it asks for an ACK within a long message.
 */
#define MLX_HW_SEND_WINDOW	64
#define MLX_HW_MAX_UNACKED_PSNS	128
#define MLX_HW_CWND_MIN		8
#define MLX_HW_PKTS_PER_ACKREQ	32

/*
 * READ requests that do not end their WQE (a READ longer than the
 * congestion window has room for goes as several) a requester keeps track
 * of at once (send_window.c).
 */
#define MLX_HW_READ_SPLITS	16

/* Packets an input queue holds before arrivals are dropped (congestion). */
#define MLX_HW_QP_QUEUE_LEN	4096

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

/*
 * Port counters of sysfs hw_counters, in the order of
 * mlx_hw_counter_names (docs/prm.md 12).
 */
enum mlx_hw_counter {
	MLX_HW_CNT_TX_PACKETS,
	MLX_HW_CNT_TX_BYTES,
	MLX_HW_CNT_RX_PACKETS,
	MLX_HW_CNT_RX_BYTES,
	MLX_HW_CNT_TX_REQUESTS,
	MLX_HW_CNT_TX_READ_RESPONSES,
	MLX_HW_CNT_TX_ACKS,
	MLX_HW_CNT_RX_REQUESTS,
	MLX_HW_CNT_RX_READ_RESPONSES,
	MLX_HW_CNT_RX_ACKS,
	MLX_HW_CNT_RNR_NAKS_SENT,
	MLX_HW_CNT_RNR_NAKS_RCVD,
	MLX_HW_CNT_SEQ_NAKS_SENT,
	MLX_HW_CNT_SEQ_NAKS_RCVD,
	MLX_HW_CNT_DUPLICATES,
	MLX_HW_CNT_OUT_OF_SEQ,
	MLX_HW_CNT_RETRANSMITS,
	MLX_HW_CNT_ACK_TIMEOUTS,
	MLX_HW_CNT_ERR_CQES,
	MLX_HW_CNT_ICRC_ERR,
	MLX_HW_CNT_DROP_TRUNCATED,
	MLX_HW_CNT_DROP_OPCODE,
	MLX_HW_CNT_DROP_VERSION,
	MLX_HW_CNT_DROP_PKEY,
	MLX_HW_CNT_DROP_QKEY,
	MLX_HW_CNT_DROP_QPN,
	MLX_HW_CNT_DROP_TRANSPORT,
	MLX_HW_CNT_DROP_ADDR,
	MLX_HW_CNT_DROP_STATE,
	MLX_HW_CNT_DROP_LENGTH,
	MLX_HW_CNT_DROP_QUEUE_FULL,
	MLX_HW_CNT_TX_BACKOFF,
	MLX_HW_CNT_CWND_SHRINKS,
	MLX_HW_CNT_ACKS_LOWERED,
	MLX_HW_CNT_CWND_SMALLEST,	/* a gauge, read from the QPs */
	MLX_HW_CNT_ECN_MARKED,
	MLX_HW_CNT_CNP_SENT,
	MLX_HW_CNT_CNP_HANDLED,
	MLX_HW_CNT_CNP_IGNORED,
	MLX_HW_CNT_TX_NO_ROUTE,
	MLX_HW_CNT_LO_DROPPED,
	MLX_HW_CNT_LO_DUPLICATED,
	MLX_HW_CNT_LO_REORDERED,
	MLX_HW_CNT_DIRECT_SEGMENTS,
	MLX_HW_CNT_WAKEUPS,
	MLX_HW_CNT_INLINE_WAKES,
	MLX_HW_CNT_DB_ENTRIES,
	MLX_HW_CNT_DB_BAD,
	MLX_HW_CNT_DB_FALLBACKS,
	MLX_HW_CNT_QPS_EXAMINED,
	MLX_HW_CNT_QP_RUNS,
	MLX_HW_CNT_YIELDS,
	MLX_HW_CNT_LATE_WAKES,
	MLX_HW_CNT_STALL_WAKES,
	MLX_HW_CNT_WAKE_STREAM,		/* engine_wakeups by enum mlx_hw_kick, */
	MLX_HW_CNT_WAKE_RUN_LIST,	/* in its order */
	MLX_HW_CNT_WAKE_RING,
	MLX_HW_CNT_WAKE_TIMER,
	MLX_HW_CNT_WAKE_OFFER,
	MLX_HW_CNT_WAKE_LEFTOVER,
	MLX_HW_CNT_WAKE_OTHER,
	MLX_HW_CNT_ODP_FAULTS,
	MLX_HW_CNT_ODP_FAULT_PAGES,
	MLX_HW_CNT_ODP_FAULT_ERRORS,
	MLX_HW_CNT_ODP_INVALIDATIONS,
	MLX_HW_CNT_ODP_PREFETCHES,
	MLX_HW_NUM_COUNTERS
};

/*
 * A block of kernel memory that can be mapped into userspace (an object's
 * rings, a page of doorbell records, the engine page).  Refcounted because
 * a user mapping may outlive the object that allocated it.
 */
struct mlx_hw_region {
	struct kref ref;		/* owner + each mapping + each key */
	void *vaddr;		/* vmalloc_user() memory, page aligned */
	size_t size;		/* bytes, multiple of PAGE_SIZE */
	bool read_only;		/* mapped without write permission */
};

/*
 * A page of doorbell records (docs/prm.md 1.2) shared by the objects of
 * one context.  Pages live until the context goes: the provider maps each
 * once and keeps the mapping, so a page is never handed out twice.
 */
#define MLX_HW_DBRECS_PER_PAGE	(PAGE_SIZE / MLX_HW_DBREC_SIZE)

struct mlx_hw_dbrec_page {
	struct list_head node;		/* in the context's dbrec_pages */
	struct mlx_hw_region *region;	/* one page, mapped read/write */
	u64 key;			/* its mmap key in the context */
	DECLARE_BITMAP(used, MLX_HW_DBRECS_PER_PAGE);	/* records taken */
};

/*
 * An object's doorbell record: in a context's page, or a kernel object's.
 * Two pointers only: a CQ stays a kmalloc-192 object.
 */
struct mlx_hw_dbrec {
	void *vaddr;			/* the MLX_HW_DBREC_SIZE bytes */
	struct mlx_hw_dbrec_page *page;	/* NULL: kzalloc'd, never mapped */
};

/* Private bookkeeping common to objects the engine looks up by number. */
struct mlx_hw_obj_ref {
	refcount_t ref;		/* 1 for the object itself + engine users */
	struct completion free;	/* completed when ref drops to 0 */
};

/* A multicast group the device's UD QPs are attached to (mcast.c). */
struct mlx_hw_mcast_grp;

struct mlx_hw_dev {
	struct ibx_device ibx;		/* must be first */
	struct list_head list;		/* in mlx_hw_devices (RCU) */
	struct net_device *ndev;	/* bound netdev, held */
	struct net *net;		/* whose UDP sockets it counts on (net.c) */
	struct platform_device *pdev;	/* sysfs parent, bound to our driver */
	u8 mac[ETH_ALEN];		/* MAC when bound */
	bool port_active;		/* last reported port state */
	u8 active_speed;		/* IB speed/width from the netdev's */
	u8 active_width;		/* link speed (mlx_hw_set_speed) */
	bool registered;		/* ibx_register_device() succeeded */
	bool removing;			/* removal queued or in progress */
	struct work_struct gid_work;	/* rebuilds the GID table */
	struct work_struct remove_work;	/* removal after NETDEV_UNREGISTER */

	/* Copy of the GID table for the data path. */
	spinlock_t gid_lock;		/* protects gid, gid_valid */
	union ibx_gid gid[IBX_GID_TABLE_LEN];	/* port 1 GIDs */
	bool gid_valid[IBX_GID_TABLE_LEN];	/* entry in use */
	unsigned int mtu;		/* active path MTU bytes (from netdev) */

	/* Engine thread, its shared page and the run list (engine.c, sched.c). */
	struct mlx_hw_region *engine_region;	/* mapped read-only */
	struct mlx_hw_engine_page *engine_page;	/* engine_region->vaddr */
	struct task_struct *engine;	/* the engine thread */
	wait_queue_head_t engine_wq;	/* where it sleeps */
	atomic_t kick;			/* enum mlx_hw_kick: the first since a look */
	u64 engine_backoff;		/* local_clock(): WAKE leaves it be till */
	struct task_struct *helper[MLX_HW_MAX_HELPERS];	/* run list helpers */
	unsigned int nhelpers;		/* started */
	wait_queue_head_t helper_wq;	/* where idle helpers sleep */
	atomic_t helper_kick;		/* a helper is wanted */
	const struct mlx_hw_sched_ops *sched_ops; /* what a run does */
	spinlock_t run_lock;		/* protects run_list, runners */
	struct list_head run_list;	/* QPs with work, in arrival order */
	unsigned int runners;		/* contexts in a pass: they drain it */
	struct mutex ctx_lock;		/* protects ctx_list */
	struct list_head ctx_list;	/* user contexts: their doorbell rings */

	/* Loopback fault injection: the packet held back to reorder. */
	spinlock_t lo_lock;		/* protects lo_held */
	struct sk_buff *lo_held;	/* delivered after the next packet */

	/*
	 * Objects the engine walks or looks up; values hold obj refs.  The
	 * data path looks them up from any context: the locks are _bh.
	 */
	struct xarray qp_xa;		/* qpn -> mlx_hw_qp */
	struct xarray cq_xa;		/* cqn -> mlx_hw_cq */
	struct xarray mr_xa;		/* key index -> mlx_hw_mr */
	u32 qp_next, cq_next, mr_next;	/* xa_alloc_cyclic cursors */
	atomic_t mr_keybyte;		/* low byte of the next key */
	spinlock_t bind_lock;		/* window binds vs. MR rereg */
	u32 srq_next;			/* xa_alloc_cyclic cursor */
	struct xarray srq_xa;		/* srqn -> mlx_hw_srq (obj refs) */

	/* Multicast groups (mcast.c). */
	struct mutex mcast_lock;	/* attach/detach; groups' QP lists */
	struct list_head mcast_list;	/* mlx_hw_mcast_grp, RCU readers */
	unsigned int mcast_groups;	/* groups in the list */

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
	struct mutex dbrec_lock;	/* protects dbrec_pages, their bitmaps */
	struct list_head dbrec_pages;	/* mlx_hw_dbrec_page */

	/* The doorbell ring (doorbell.c, docs/prm.md 2.1). */
	struct list_head ctx_node;	/* in dev->ctx_list */
	struct mlx_hw_region *db_region;	/* the ring's page, mapped r/w */
	struct mlx_hw_db_ring *db_ring;	/* db_region->vaddr */
	__le32 *db_entry;		/* the slots */
	struct mutex db_lock;		/* one consumer at a time */
	u32 db_ci;			/* private consumer index */
	/* The context's last MLX_HW_IOCTL_WAKEs (engine.c), local_clock(). */
	u64 wake_end;			/* when the last returned */
	u64 wake_len;			/* how long the last ran */
	u64 wake_len_prev;		/* how long the one before ran */
};

static inline struct mlx_hw_ucontext *to_muctx(struct ibx_ucontext *u)
{
	return container_of(u, struct mlx_hw_ucontext, ibx);
}

/* The owner's context of an object, or NULL for a kernel consumer's. */
static inline struct mlx_hw_ucontext *mlx_hw_uctx(struct ibx_ucontext *u)
{
	return u ? to_muctx(u) : NULL;
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
	struct mlx_hw_region *region;	/* the CQE ring */
	u64 mmap_key;			/* of region in the owner's context */
	struct mlx_hw_dbrec dbrec;	/* where db lives */
	struct mlx_hw_cq_db *db;	/* dbrec.vaddr */
	struct mlx_hw_cqe *ring;	/* region->vaddr */
	u32 entries;			/* power of two */
	u32 log_entries;		/* log2(entries), for the owner bit */
	spinlock_t lock;		/* serializes CQE production */
	u32 pi;				/* private producer index */
	u32 arm_sn;			/* last arm sequence number seen */
	u8 armed;			/* MLX_HW_CQ_ARM_* or 0 */
	bool error;			/* overrun happened */
	spinlock_t poll_lock;		/* kernel CQs: serializes pollers */
};

static inline struct mlx_hw_cq *to_mcq(struct ibx_cq *c)
{
	return container_of(c, struct mlx_hw_cq, ibx);
}

/* ---------------- memory the packets come from and go to ---------------- */

/* A validated scatter/gather element: a range of a referenced MR. */
struct mlx_hw_seg {
	struct mlx_hw_mr *mr;		/* holds an obj ref; NULL when parked */
	u64 off;			/* from the MR's iova */
	u32 key;			/* lkey (local lists) */
	u32 len;			/* bytes */
};

/*
 * A list of segments, or a kernel buffer (inline data).  A list that waits
 * (RNR/retry timers, a message spanning packets) is "parked": its MR
 * references are dropped so that deregistration never waits on a timer,
 * and the keys are looked up again when work resumes.
 */
struct mlx_hw_sgl {
	u32 num;			/* segments used */
	u32 total;			/* bytes */
	const u8 *kbuf;			/* if set: the data, segs unused */
	bool parked;			/* MR references dropped */
	bool odp;			/* a segment is in an ODP MR (odp.c) */
	bool remote;			/* one rkey range: rkey, va, access */
	u32 rkey;			/* remote: the key it was resolved from */
	u64 va;				/* remote: start address */
	u32 access;			/* remote: access it was checked for */
	u32 cap;			/* room in seg[] */
	struct mlx_hw_seg *seg;		/* the ranges, in order: cap of them,
					 * the owner's storage (sized to what
					 * the QP allows, mlx_hw_qp_alloc_segs) */
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
	struct mlx_hw_region *region;	/* the receive ring */
	u64 mmap_key;			/* of region in the owner's context */
	struct mlx_hw_dbrec dbrec;	/* where db lives */
	struct mlx_hw_srq_db *db;	/* dbrec.vaddr */
	void *ring;			/* region->vaddr */
	u32 wqe_cnt;			/* power of two */
	u32 stride;			/* bytes per receive WQE */
	u32 max_sge;			/* data segments a WQE may have */
	spinlock_t lock;		/* taking WQEs, modify (any context) */
	u32 ci;				/* private consumer index */
	u32 limit;			/* 0 = limit event disarmed */
};

static inline struct mlx_hw_srq *to_msrq(struct ibx_srq *s)
{
	return container_of(s, struct mlx_hw_srq, ibx);
}

#include "model.h"

/* debugfs.c: objects alive, for leak checks */
void mlx_hw_debugfs_init(void);
void mlx_hw_debugfs_exit(void);

/* device.c */
extern struct list_head mlx_hw_devices;
extern spinlock_t mlx_hw_devices_lock;
struct mlx_hw_dev *mlx_hw_dev_by_ndev_rcu(struct net_device *ndev);
struct mlx_hw_dev *mlx_hw_local_dev(struct mlx_hw_dev *src,
				    const union ibx_gid *gid, bool active);
bool mlx_hw_gid_is_local(struct mlx_hw_dev *src, const union ibx_gid *gid);
void mlx_hw_dev_init_attr(struct mlx_hw_dev *dev);
int mlx_hw_query_port(struct ibx_device *ibx, u32 port,
		      struct ib_uverbs_query_port_resp *attr);
void mlx_hw_update_port_state(struct mlx_hw_dev *dev);
void mlx_hw_update_mtu(struct mlx_hw_dev *dev);
void mlx_hw_eth_speed(struct net_device *ndev, u8 *speed, u8 *width);
void mlx_hw_set_speed(struct mlx_hw_dev *dev, u8 speed, u8 width);
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
extern atomic_t mlx_hw_region_count;
struct mlx_hw_region *mlx_hw_region_alloc(size_t size, bool read_only);
void mlx_hw_region_put(struct mlx_hw_region *region);
struct mlx_hw_region *mlx_hw_region_alloc_mapped(struct mlx_hw_ucontext *uctx,
						 size_t size, u64 *key);
int mlx_hw_mmap_insert(struct mlx_hw_ucontext *uctx,
		       struct mlx_hw_region *region, u64 *key);
void mlx_hw_mmap_remove(struct mlx_hw_ucontext *uctx, u64 key);
void mlx_hw_dbrec_ctx_init(struct mlx_hw_ucontext *uctx);
void mlx_hw_dbrec_ctx_fini(struct mlx_hw_ucontext *uctx);
int mlx_hw_dbrec_alloc(struct mlx_hw_ucontext *uctx, struct mlx_hw_dbrec *rec);
void mlx_hw_dbrec_free(struct mlx_hw_ucontext *uctx, struct mlx_hw_dbrec *rec);
void mlx_hw_dbrec_resp(const struct mlx_hw_dbrec *rec, __u64 *key,
		       __u32 *offset);
void mlx_hw_mmap_remove_all(struct mlx_hw_ucontext *uctx);
int mlx_hw_mmap(struct ibx_ucontext *ibuctx, struct vm_area_struct *vma);

/* engine references on objects; obj.c */
static inline void mlx_hw_obj_init(struct mlx_hw_obj_ref *obj)
{
	refcount_set(&obj->ref, 1);
	init_completion(&obj->free);
}

static inline bool mlx_hw_obj_get(struct mlx_hw_obj_ref *obj)
{
	return refcount_inc_not_zero(&obj->ref);
}

static inline void mlx_hw_obj_put(struct mlx_hw_obj_ref *obj)
{
	if (refcount_dec_and_test(&obj->ref))
		complete(&obj->free);
}

void mlx_hw_obj_drain(struct mlx_hw_obj_ref *obj, const char *what,
		      void (*holders)(struct mlx_hw_obj_ref *obj));

/*
 * The object stored at @idx of @xa (a type with a struct mlx_hw_obj_ref
 * named obj), with a reference taken under the xarray lock so that a
 * concurrent destroy cannot free it in between; NULL if absent or dying.
 */
#define mlx_hw_xa_get(xa, idx, type)					\
	({								\
		type *__o;						\
									\
		xa_lock_bh(xa);						\
		__o = xa_load(xa, idx);					\
		if (__o && !mlx_hw_obj_get(&__o->obj))			\
			__o = NULL;					\
		xa_unlock_bh(xa);					\
		__o;							\
	})

/* verbs.c */
extern const struct ibx_device_ops mlx_hw_ops;

/* mr.c */
int mlx_hw_reg_mr(struct ibx_mr *ibmr, struct ibx_udata *udata);
void mlx_hw_dereg_mr(struct ibx_mr *ibmr);
int mlx_hw_rereg_mr(struct ibx_mr *ibmr, struct ibx_mr *ibnew, u32 flags,
		    struct ibx_udata *udata);

/* Looks up a key and takes an engine reference; NULL if stale/unknown. */
static inline struct mlx_hw_mr *mlx_hw_mr_get(struct mlx_hw_dev *dev, u32 key)
{
	struct mlx_hw_mr *mr = NULL;
	struct mlx_hw_key *k;

	xa_lock_bh(&dev->mr_xa);
	k = xa_load(&dev->mr_xa, key >> 8);
	if (k && k->kind == MLX_HW_KEY_MR) {
		mr = container_of(k, struct mlx_hw_mr, key);
		if (mr->ibx.lkey != key || !mlx_hw_obj_get(&k->obj))
			mr = NULL;
	}
	xa_unlock_bh(&dev->mr_xa);
	return mr;
}

static inline void mlx_hw_mr_put(struct mlx_hw_mr *mr)
{
	mlx_hw_obj_put(&mr->key.obj);
}

/* Checks that [addr, addr + len) lies inside the MR. */
static inline bool mlx_hw_mr_covers(const struct mlx_hw_mr *mr, u64 addr,
				    u64 len)
{
	u64 iova = mr->ibx.iova;

	return addr >= iova && len <= mr->ibx.length &&
	       addr - iova <= mr->ibx.length - len;
}

/* An on-demand paging MR: pages are mapped as the engine touches them. */
static inline bool mlx_hw_mr_odp(const struct mlx_hw_mr *mr)
{
	return mr->ibx.umem && mr->ibx.umem->odp;
}

/* odp.c */
enum mlx_hw_odp_fault_state {
	MLX_HW_ODP_FAULT_IDLE,		/* no fault of the side under way */
	MLX_HW_ODP_FAULT_PENDING,	/* the worker is mapping pages */
	MLX_HW_ODP_FAULT_FAILED,	/* it could not: the next access fails */
};
void mlx_hw_odp_mr_init(struct mlx_hw_dev *dev, struct mlx_hw_mr *mr);
bool mlx_hw_sgl_mapped(const struct mlx_hw_sgl *sgl, u64 off, u64 len);
int mlx_hw_odp_wait(struct mlx_hw_qp *qp, u8 *state,
		    const struct mlx_hw_sgl *sgl, u64 off, u64 len);
u8 mlx_hw_odp_rnr_timer(const struct mlx_hw_qp *qp);
int mlx_hw_advise_mr(struct mlx_hw_ucontext *uctx,
		     const struct mlx_hw_advise_mr *args);
int mlx_hw_odp_init(void);
void mlx_hw_odp_exit(void);

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

/* cq.c */
int mlx_hw_create_cq(struct ibx_cq *ibcq, const struct ibx_cq_init_attr *attr,
		     struct ibx_udata *udata);
void mlx_hw_destroy_cq(struct ibx_cq *ibcq);
int mlx_hw_resize_cq(struct ibx_cq *ibcq, int cqe, struct ibx_udata *udata);

/* cqe.c */
int mlx_hw_req_notify_cq(struct ibx_cq *ibcq, bool solicited_only);
struct mlx_hw_cqe;
int mlx_hw_cq_post(struct mlx_hw_cq *cq, const struct mlx_hw_cqe *cqe,
		   bool solicited);
void mlx_hw_cq_check_arm(struct mlx_hw_cq *cq);

/* qp.c */
void *mlx_hw_alloc_qp_obj(void);
void mlx_hw_free_qp_obj(void *obj);
int mlx_hw_qp_cache_init(void);
void mlx_hw_qp_cache_exit(void);
int mlx_hw_create_qp(struct ibx_qp *ibqp, struct ibx_qp_init_attr *init,
		     struct ibx_udata *udata);
int mlx_hw_modify_qp(struct ibx_qp *ibqp, const struct ibx_qp_attr *attr,
		     u32 mask, struct ibx_udata *udata);
void mlx_hw_destroy_qp(struct ibx_qp *ibqp);

/* The QP numbered @qpn, with an engine reference (mlx_hw_qp_put()). */
static inline struct mlx_hw_qp *mlx_hw_qp_get(struct mlx_hw_dev *dev, u32 qpn)
{
	return mlx_hw_xa_get(&dev->qp_xa, qpn, struct mlx_hw_qp);
}

static inline void mlx_hw_qp_put(struct mlx_hw_qp *qp)
{
	mlx_hw_obj_put(&qp->obj);
}

/* The stride of an RQ or SRQ of @max_sge (docs/prm.md 5). */
static inline u32 mlx_hw_rq_stride(u32 max_sge)
{
	return ALIGN(max_t(u32, sizeof(struct mlx_hw_rwqe) +
				max_sge * MLX_HW_WQE_SEG,
			   MLX_HW_RQ_MIN_STRIDE), MLX_HW_WQE_SEG);
}

/* qp_data.c */
void mlx_hw_qp_timer_init(struct mlx_hw_qp *qp);
void mlx_hw_qp_set_state(struct mlx_hw_qp *qp, int state);
bool mlx_hw_qp_to_err(struct mlx_hw_qp *qp);
void mlx_hw_qp_fatal(struct mlx_hw_qp *qp, enum ibx_event_type event);
bool mlx_hw_db_ok(struct mlx_hw_qp *qp, u32 pi, u32 ci, u32 cnt);
int mlx_hw_av_set(struct mlx_hw_dev *dev, struct mlx_hw_av *av,
		  u8 sgid_index, const union ibx_gid *dgid, u8 traffic_class,
		  u8 hop_limit, u32 flow_label, u32 lqpn, u32 rqpn,
		  const u8 *dmac);
void mlx_hw_qp_av(struct mlx_hw_qp *qp, struct mlx_hw_av *av);
void mlx_hw_path_write_begin(struct mlx_hw_qp *qp);
void mlx_hw_path_write_end(struct mlx_hw_qp *qp);
void mlx_hw_qp_arm_timer(struct mlx_hw_qp *qp, u64 deadline);

/* kverbs.c */
int mlx_hw_post_send(struct ibx_qp *ibqp, const struct ibx_send_wr *wr,
		     const struct ibx_send_wr **bad_wr);
int mlx_hw_post_recv(struct ibx_qp *ibqp, const struct ibx_recv_wr *wr,
		     const struct ibx_recv_wr **bad_wr);
int mlx_hw_poll_cq(struct ibx_cq *ibcq, int num, struct ibx_wc *wc);

/* srq.c */
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

/* doorbell.c */
int mlx_hw_db_ctx_init(struct mlx_hw_ucontext *uctx, u64 *key);
void mlx_hw_db_ctx_fini(struct mlx_hw_ucontext *uctx);
void mlx_hw_db_ctx_resp(struct mlx_hw_alloc_ucontext_resp *resp);
bool mlx_hw_db_consume(struct mlx_hw_ucontext *uctx);
bool mlx_hw_db_hint(struct mlx_hw_ucontext *uctx);
void mlx_hw_db_serve(struct mlx_hw_ucontext *uctx, u32 e, bool here);
bool mlx_hw_db_consume_all(struct mlx_hw_dev *dev);
bool mlx_hw_db_pending_any(struct mlx_hw_dev *dev);

/* engine.c */
int mlx_hw_engine_start(struct mlx_hw_dev *dev);
void mlx_hw_engine_stop(struct mlx_hw_dev *dev);
void mlx_hw_engine_wake(struct mlx_hw_dev *dev, struct mlx_hw_ucontext *uctx,
			u32 rung);

/*
 * sched.c: when a QP runs.  What a run does is the engine's (engine.c),
 * which the scheduler reaches only through these, so that nothing it
 * runs is called by name from below.
 */
struct mlx_hw_sched_ops {
	void (*prepare)(struct mlx_hw_qp *qp);	/* before a run: path migration */
	bool (*run_send)(struct mlx_hw_qp *qp);	/* true: a flush goes on */
	bool (*run_recv)(struct mlx_hw_qp *qp);	/* true: a flush goes on */
	void (*flush_held)(struct mlx_hw_dev *dev); /* the loopback's held packet */
};
extern unsigned int mlx_hw_spin_us;
void mlx_hw_sched_start(struct mlx_hw_dev *dev,
			const struct mlx_hw_sched_ops *ops);
void mlx_hw_sched_stop(struct mlx_hw_dev *dev);
void mlx_hw_sched_enter(struct mlx_hw_dev *dev);
bool mlx_hw_sched_run(struct mlx_hw_dev *dev);
bool mlx_hw_sched_busy(struct mlx_hw_dev *dev);
/*
 * Why the thread is kicked.  The first kick since its last look is kept, and
 * a sleeping thread it woke counts its wake-up under that cause (hw_counters
 * engine_wake_*, docs/prm.md 12), so the wake-ups of a run say what asked
 * for them.  0 is "not kicked".
 */
enum mlx_hw_kick {
	MLX_HW_KICK_STREAM = 1,	/* WAKE: the caller's doorbells are a stream */
	MLX_HW_KICK_WAKE_RUN_LIST, /* WAKE: QPs wait on the run list */
	MLX_HW_KICK_WAKE_RING,	/* WAKE: its ring holds entries it left */
	MLX_HW_KICK_TIMER,	/* a QP's deadline (ACK timeout, RNR wait) */
	MLX_HW_KICK_OFFER,	/* a packet whose side could not run where it came */
	MLX_HW_KICK_LEFTOVER,	/* an inline run left work (budgets, a flush) */
	MLX_HW_KICK_OTHER,	/* verbs, errors, faults, a locked ring, helpers */
};
void mlx_hw_engine_kick(struct mlx_hw_dev *dev, enum mlx_hw_kick why);
void mlx_hw_engine_beat(struct mlx_hw_dev *dev);
void mlx_hw_qp_schedule_for(struct mlx_hw_qp *qp, enum mlx_hw_kick why);

/* Puts @qp on the run list for a reason of no counter's own. */
static inline void mlx_hw_qp_schedule(struct mlx_hw_qp *qp)
{
	mlx_hw_qp_schedule_for(qp, MLX_HW_KICK_OTHER);
}
void mlx_hw_qp_offer(struct mlx_hw_qp *qp, bool send);
void mlx_hw_qp_run_here(struct mlx_hw_qp *qp);
void mlx_hw_qp_send_here(struct mlx_hw_qp *qp);

/* data.c */
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
	sgl->odp = false;
	sgl->remote = false;
}

/* Gives @sgl its storage for @cap segments (once, before first use). */
static inline void mlx_hw_sgl_attach(struct mlx_hw_sgl *sgl,
				     struct mlx_hw_seg *seg, u32 cap)
{
	sgl->seg = seg;
	sgl->cap = cap;
	mlx_hw_sgl_init(sgl);
}

static inline void mlx_hw_cursor_init(struct mlx_hw_cursor *c,
				      const struct mlx_hw_sgl *sgl)
{
	c->sgl = sgl;
	c->idx = 0;
	c->off = 0;
}
void mlx_hw_sgl_park(struct mlx_hw_sgl *sgl);
int mlx_hw_sgl_unpark(struct mlx_hw_dev *dev, struct mlx_hw_qp *qp,
		      struct mlx_hw_sgl *sgl);
void mlx_hw_cursor_skip(struct mlx_hw_cursor *c, u32 len);
int mlx_hw_copy_from_skb(struct mlx_hw_cursor *dst, const struct sk_buff *skb,
			 u32 off, u32 len);
int mlx_hw_copy_from_kbuf(struct mlx_hw_cursor *dst, const void *buf,
			  u32 len);
int mlx_hw_rx_copy(struct mlx_hw_cursor *dst, const struct mlx_hw_rx *rx);
bool mlx_hw_can_zcopy(const struct mlx_hw_cursor *src, u32 len);
int mlx_hw_skb_add_data(struct sk_buff *skb, struct mlx_hw_cursor *src,
			u32 len, bool zcopy);
int mlx_hw_atomic(struct mlx_hw_seg *seg, bool cmp_swp, u64 swap_add,
		  u64 compare, u64 *orig);

/* side.c */
void mlx_hw_side_init(struct mlx_hw_side *s);
bool mlx_hw_side_begin(struct mlx_hw_side *s);
bool mlx_hw_side_again(struct mlx_hw_side *s);
bool mlx_hw_side_end(struct mlx_hw_side *s, bool keep);
void mlx_hw_side_pause(struct mlx_hw_side *s);
bool mlx_hw_side_resume(struct mlx_hw_side *s);
bool mlx_hw_side_held(struct mlx_hw_side *s);
/* What lockdep_assert_held() is for a lock (lockdep kernels only). */
#define mlx_hw_side_assert_owned(s)	lockdep_assert(mlx_hw_side_held(s))

/* cwnd.c */
void mlx_hw_cwnd_reset(struct mlx_hw_qp *qp);
bool mlx_hw_cwnd_room(struct mlx_hw_qp *qp, u32 psn);
u32 mlx_hw_cwnd_read_room(struct mlx_hw_qp *qp, u32 psn, u32 rest);
bool mlx_hw_cwnd_ackreq(struct mlx_hw_qp *qp, u32 psn);
void mlx_hw_cwnd_acked(struct mlx_hw_qp *qp, u32 npsn);
void mlx_hw_cwnd_loss(struct mlx_hw_qp *qp, bool timeout);
void mlx_hw_cwnd_cnp(struct mlx_hw_qp *qp);
void mlx_hw_cwnd_rnr(struct mlx_hw_qp *qp);
u32 mlx_hw_cwnd_smallest(struct mlx_hw_dev *dev);
int mlx_hw_fill_res_qp_entry(struct sk_buff *msg, struct ibx_qp *ibqp);

/* ecn.c */
void mlx_hw_ecn_answer(struct mlx_hw_qp *qp, const struct mlx_hw_rx *marked);

/* req.c */
void mlx_hw_requester(struct mlx_hw_qp *qp);
void mlx_hw_req_reset(struct mlx_hw_qp *qp);

/* swqe.c */
u32 mlx_hw_req_mtu(struct mlx_hw_qp *qp);
u8 mlx_hw_swqe_fetch(struct mlx_hw_qp *qp, u32 idx, struct mlx_hw_swqe *w,
		     struct mlx_hw_swqe_body *b);
u8 mlx_hw_swqe_body(struct mlx_hw_qp *qp, u32 idx, struct mlx_hw_swqe_body *b);

/* pkt.c */
struct sk_buff *mlx_hw_pkt_alloc(struct mlx_hw_qp *qp, u8 opcode, u32 paylen,
				 bool zcopy);
void mlx_hw_hdr_bth(u8 *hdr, struct mlx_hw_pkt *pkt, struct mlx_hw_qp *qp,
		    u32 dest_qpn, bool se, bool ackreq, u32 psn);
void mlx_hw_pkt_bth(struct sk_buff *skb, struct mlx_hw_qp *qp, u32 dest_qpn,
		    bool se, bool ackreq, u32 psn);
int mlx_hw_pkt_xmit(struct mlx_hw_qp *qp, const struct mlx_hw_av *av,
		    struct sk_buff *skb);

/* net.c */
int mlx_hw_net_init(void (*gone)(struct net *net));
void mlx_hw_net_exit(void);
void mlx_hw_net_get(struct mlx_hw_dev *dev);
void mlx_hw_net_put(struct mlx_hw_dev *dev);

/* The namespace of the device's wire (its netdev's). */
static inline struct net *mlx_hw_dev_net(struct mlx_hw_dev *dev)
{
	return dev_net(dev->ndev);
}
int mlx_hw_net_xmit(struct mlx_hw_dev *dev, const struct mlx_hw_av *av,
		    struct sk_buff *skb);
void mlx_hw_push_ip_udp(struct sk_buff *skb, const struct mlx_hw_av *av);

/* loopback.c */
int mlx_hw_loopback_xmit(struct mlx_hw_dev *src, const struct mlx_hw_av *av,
			 struct sk_buff *skb);
void mlx_hw_loopback_flush(struct mlx_hw_dev *dev);
bool mlx_hw_loopback_faults(void);

/* direct.c */
bool mlx_hw_direct_sends(struct mlx_hw_qp *qp, const struct mlx_hw_swqe *w);
bool mlx_hw_direct_deliver(struct mlx_hw_qp *from, const struct mlx_hw_av *av,
			   const struct mlx_hw_rx *rx);

/* recv.c */
void mlx_hw_pkt_gids(struct sk_buff *skb, union ibx_gid *sgid,
		     union ibx_gid *dgid);
void mlx_hw_rcv(struct mlx_hw_dev *dev, struct sk_buff *skb);

/* resp.c */
void mlx_hw_responder(struct mlx_hw_qp *qp);
bool mlx_hw_resp_request(struct mlx_hw_qp *qp, const struct mlx_hw_rx *rx);
void mlx_hw_resp_reset(struct mlx_hw_qp *qp);
struct mlx_hw_res *mlx_hw_resp_res_replace(struct mlx_hw_qp *qp,
					   struct mlx_hw_res *table, u32 cnt);
bool mlx_hw_resp_flush(struct mlx_hw_qp *qp);

/* send_window.c */
int mlx_hw_send_cqe(struct mlx_hw_qp *qp, u64 wr_id, u8 opcode, u8 status,
		    u32 byte_len);
u64 mlx_hw_ack_deadline(struct mlx_hw_qp *qp);
struct mlx_hw_swqe *mlx_hw_window_oldest(struct mlx_hw_qp *qp);
void mlx_hw_window_retire(struct mlx_hw_qp *qp);
void mlx_hw_window_rewind(struct mlx_hw_qp *qp, u32 psn);
u32 mlx_hw_split_outstanding(struct mlx_hw_qp *qp);
void mlx_hw_split_add(struct mlx_hw_qp *qp, u32 end);
u32 mlx_hw_split_end(struct mlx_hw_qp *qp, const struct mlx_hw_swqe *w,
		     u32 psn);
void mlx_hw_split_reset(struct mlx_hw_qp *qp);
bool mlx_hw_sq_flush(struct mlx_hw_qp *qp);

/* comp.c */
void mlx_hw_completer(struct mlx_hw_qp *qp);
bool mlx_hw_comp_direct(struct mlx_hw_qp *qp);

/* apm.c */
int mlx_hw_apm_check(struct mlx_hw_qp *qp, const struct ibx_qp_attr *attr,
		     u32 mask);
void mlx_hw_apm_modify(struct mlx_hw_qp *qp, const struct ibx_qp_attr *attr,
		       u32 mask);
void mlx_hw_apm_reset(struct mlx_hw_qp *qp);
enum mlx_hw_counter mlx_hw_apm_rcv(struct mlx_hw_qp *qp,
				   const union ibx_gid *sgid, bool migreq);
void mlx_hw_apm_service(struct mlx_hw_qp *qp);
bool mlx_hw_apm_retries_exhausted(struct mlx_hw_qp *qp);
bool mlx_hw_apm_migreq(struct mlx_hw_qp *qp);
void mlx_hw_query_qp(struct ibx_qp *ibqp, struct ibx_qp_attr *attr);

/* mcast.c */
int mlx_hw_attach_mcast(struct ibx_qp *ibqp, const union ibx_gid *gid,
			u16 lid);
int mlx_hw_detach_mcast(struct ibx_qp *ibqp, const union ibx_gid *gid,
			u16 lid);
unsigned int mlx_hw_mcast_get_qps(struct mlx_hw_dev *dev,
				  const union ibx_gid *mgid,
				  struct mlx_hw_qp **qps);
void mlx_hw_mcast_cleanup(struct mlx_hw_dev *dev);

/* A multicast GID: IPv4-mapped 224/4 or IPv6 ff00::/8. */
static inline bool mlx_hw_gid_is_mcast(const union ibx_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

#endif /* MLX_HW_H */
