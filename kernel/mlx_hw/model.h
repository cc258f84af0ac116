/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * model.h - the engine's data model: a queue pair as the packet machine
 * sees it.  Where its packets go (address vectors), what it knows of a
 * packet (skb->cb), its send window, and the state of its requester,
 * completer and responder.
 * Included by mlx_hw.h after the objects it refers to.
 */
#ifndef MLX_HW_MODEL_H
#define MLX_HW_MODEL_H

/* ---------------- packets ---------------- */

/*
 * Where a packet goes: the network half of an address vector (the QP's
 * primary path for RC/UC/XRC, a UD WQE's AH), resolved from the GID table
 * when the QP or the WQE is set up.
 */
struct mlx_hw_av {
	union ibx_gid sgid;		/* source GID (from sgid_index) */
	union ibx_gid dgid;		/* destination GID */
	bool ipv4;			/* both GIDs IPv4-mapped: IPv4 */
	bool loopback;			/* dgid is a GID of a local device */
	u8 traffic_class;		/* IPv4 TOS / IPv6 traffic class */
	u8 hop_limit;			/* TTL / hop limit */
	u32 flow_label;			/* IPv6 flow label (20 bits) */
	u16 sport;			/* UDP source port, from the flow */
	u8 dmac[ETH_ALEN];		/* zero: the neighbour table's */
};

#define MLX_HW_PKT_LOOPBACK	(1 << 0)	/* no ICRC: never on a wire */
#define MLX_HW_PKT_IPV6		(1 << 1)	/* network header is IPv6 */
#define MLX_HW_PKT_CE		(1 << 2)	/* arrived marked CE (ecn.c) */

/*
 * What the engine knows of a packet it works on, kept in skb->cb.  For a
 * packet being received, skb->data is at the BTH and the headers
 * (hdrlen bytes) are linear; the payload follows, paylen bytes, without
 * pad and ICRC (trimmed off by recv.c).
 */
struct mlx_hw_pkt {
	u32 mask;			/* mlx_hw_opcode[opcode].mask */
	u32 psn;			/* BTH PSN */
	u32 qpn;			/* BTH destination QP */
	u16 paylen;			/* payload bytes */
	u8 opcode;			/* BTH opcode */
	u8 hdrlen;			/* BTH + extension headers */
	u8 flags;			/* MLX_HW_PKT_* */
};

static inline struct mlx_hw_pkt *mlx_hw_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mlx_hw_pkt) > sizeof(skb->cb));
	return (struct mlx_hw_pkt *)skb->cb;
}

/* Header @h of a received packet (present per its opcode). */
static inline u8 *mlx_hw_pkt_hdr(struct sk_buff *skb, enum mlx_hw_hdr h)
{
	return skb->data + mlx_hw_opcode[mlx_hw_pkt(skb)->opcode].off[h];
}

/* The BTH and extension headers of the longest request (DETH... IETH). */
#define MLX_HW_HDR_MAX	64

/*
 * A request as the responder takes it, or a response as the completer
 * does: a packet (recv.c queued it), or a message segment a requester of
 * this host hands over directly, without a packet (direct.c).  Either way
 * the headers are the bytes a packet would carry, so that the state
 * machines read one format.
 */
struct mlx_hw_rx {
	struct mlx_hw_pkt pkt;		/* what the headers say (skb->cb's) */
	const u8 *hdr;			/* BTH, then the extension headers */
	struct sk_buff *skb;		/* the packet; NULL: direct */
	struct mlx_hw_cursor *src;	/* direct: the payload, pkt.paylen */
};

/* Header @h of @rx (present per its opcode). */
static inline const u8 *mlx_hw_rx_hdr(const struct mlx_hw_rx *rx,
				      enum mlx_hw_hdr h)
{
	return rx->hdr + mlx_hw_opcode[rx->pkt.opcode].off[h];
}

/* @rx for the packet @skb (skb->data at the BTH). */
static inline void mlx_hw_rx_init_skb(struct mlx_hw_rx *rx,
				      struct sk_buff *skb)
{
	rx->pkt = *mlx_hw_pkt(skb);
	rx->hdr = skb->data;
	rx->skb = skb;
	rx->src = NULL;
}

/* ---------------- QPs ---------------- */

/* Who runs a side of a QP (side.c): bits of state, never a lock. */
struct mlx_hw_side {
	atomic_t state;			/* MLX_HW_SIDE_* of side.c */
};

/*
 * A path of a connected QP as the data path uses it: the address vector
 * and the attributes that go with it (IBA 11.2.5: the primary path and
 * the alternate one of Automatic Path Migration, 17.2.8).
 */
struct mlx_hw_path {
	struct ibx_ah_attr ah;		/* as the consumer gave it */
	struct mlx_hw_av av;		/* ah, resolved */
	u16 pkey_index;
	u8 port;
	u8 timeout;			/* local ACK timeout code */
};

/* mlx_hw_qp.mig_flags */
enum {
	MLX_HW_MIG_PEER,		/* the peer migrated: follow it */
};

/*
 * A send WQE, split in two (swqe.c).  Its entry in the send window holds
 * what ordering, acknowledgement and its CQE need; the window keeps one
 * for each WQE between sq_ci and the next to fetch.  Its body holds what
 * only building its packets or placing its answer needs, and is parsed
 * out of the ring again when needed after the next WQE took the body's
 * place (docs/prm.md 3.1).
 */
struct mlx_hw_swqe {
	u64 wr_id;			/* returned in the CQE */
	u32 length;			/* message bytes */
	u32 first_psn;			/* PSN of its first packet */
	u32 npsn;			/* PSNs it uses (0 for local ops) */
	u8 opcode;			/* enum mlx_hw_wqe_opcode */
	u8 flags;			/* enum mlx_hw_wqe_flags (+ sq_sig_all) */
	u8 status;			/* completion status once done */
	bool done;			/* executed and acknowledged */
};

struct mlx_hw_sge {
	u32 lkey;
	u32 len;
	u64 addr;
};

/*
 * The body of the send WQE at SQ index @idx, validated; local data follows
 * as @nsge SGEs or the WQE's length in inline bytes (mlx_hw_qp_alloc_bufs).
 */
struct mlx_hw_swqe_body {
	u32 idx;			/* SQ index parsed from */
	bool valid;			/* idx is meaningful */
	bool inline_data;		/* data is inline, not SGEs */
	u8 nsge;			/* SGEs that follow */
	__be32 imm_data;		/* *_IMM: network order */
	u32 invalidate_rkey;		/* SEND_INV, LOCAL_INV */
	u32 xrc_srqn;			/* XRC INI: the target's XRC SRQ */
	union {
		struct {		/* RDMA and atomics */
			u64 raddr;
			u32 rkey;
			u64 swap_add;
			u64 compare;
		};
		struct mlx_hw_wqe_bind bind;	/* BIND_MW: the raw segment */
		struct {		/* UD */
			u32 remote_qpn;
			u32 remote_qkey;
			struct mlx_hw_av av;
		} ud;
	};
	union {
		DECLARE_FLEX_ARRAY(struct mlx_hw_sge, sge);	/* nsge */
		DECLARE_FLEX_ARRAY(u8, data);	/* inline bytes */
	};
};

/* Requester states (req.c), one per decision; names in req.c. */
enum mlx_hw_req_state {
	MLX_HW_REQ_NEXT_WQE,		/* pick the WQE to send */
	MLX_HW_REQ_FETCH,		/* copy a new WQE into the window */
	MLX_HW_REQ_CHECK_LIMITS,	/* fence, rd_atomic, PSN window */
	MLX_HW_REQ_LOCAL_OP,		/* BIND_MW / LOCAL_INV */
	MLX_HW_REQ_SEND_PKT,		/* build and send one packet */
	MLX_HW_REQ_WAIT,		/* nothing to do until an event */
	MLX_HW_REQ_YIELD,		/* budget used, more to do */
	MLX_HW_REQ_ERROR,		/* the WQE failed locally */
	MLX_HW_REQ_NUM_STATES
};

/*
 * The congestion window of a reliable requester (cwnd.c, docs/wire.md
 * 14.3.1): PSNs it may have sent and not seen acknowledged.
 */
struct mlx_hw_cwnd {
	u32 pkts;			/* the window, MLX_HW_CWND_MIN.. */
	u32 ssthresh;			/* below it, grow by what is acked */
	u32 acked;			/* PSNs acked toward the next +1 */
	u32 cnp_psn;			/* a CNP shrinks again once it is acked */
	bool cnp_psn_valid;		/* a CNP shrank the window */
	bool rnr_probe;			/* after an RNR wait: one PSN out */
};

/* Send side: requester and completer, owned through qp->send_side. */
struct mlx_hw_req {
	enum mlx_hw_req_state state;	/* last state (traces) */
	u32 fetch_idx;			/* next SQ index to fetch */
	u32 send_idx;			/* SQ index of the WQE being sent */
	u32 send_pkt;			/* its next packet, from 0 */
	u32 next_psn;			/* PSN the next fetched WQE starts at */
	u32 psn_max;			/* one past the newest PSN ever sent */
	u32 noack_pkts;			/* packets since the last AckReq */
	struct mlx_hw_swqe_body *body;	/* of the WQE fetched or sent last */
	struct mlx_hw_sgl sgl;		/* local data of body (parked) */
	bool sgl_valid;			/* sgl holds body's data */
	struct mlx_hw_cwnd cwnd;	/* unacknowledged PSNs allowed */
	u64 wait_until;			/* ktime ns: no send before (RNR) */
	u32 tx_backoff;			/* consecutive local tx congestion */
	bool wait_db;			/* stopped for want of posted WQEs */
	u32 sq_pi;			/* SQ producer index as this run began */
	u8 odp_fault;			/* enum mlx_hw_odp_fault_state (odp.c) */
	/*
	 * READ requests sent that do not end their WQE and are not all
	 * answered, oldest first: the PSN after the last each asks for
	 * (send_window.c).  A ring from split_head, split_cnt of them.
	 */
	u8 split_head;
	u8 split_cnt;
	u32 split_end[MLX_HW_READ_SPLITS];
};

/* Completer states (comp.c); names in comp.c. */
enum mlx_hw_comp_state {
	MLX_HW_COMP_GET_WQE,		/* the oldest outstanding WQE */
	MLX_HW_COMP_CHECK_PSN,		/* response vs. that WQE's PSNs */
	MLX_HW_COMP_CHECK_ACK,		/* what the response says */
	MLX_HW_COMP_READ,		/* READ response data */
	MLX_HW_COMP_ATOMIC,		/* atomic ACK: original value */
	MLX_HW_COMP_WRITE_SEND,		/* a SEND/WRITE is acknowledged */
	MLX_HW_COMP_WQE_DONE,		/* mark the WQE done */
	MLX_HW_COMP_DONE,		/* the response is used up */
	MLX_HW_COMP_RETRY,		/* go back to a PSN */
	MLX_HW_COMP_RNR_RETRY,		/* go back after the RNR timer */
	MLX_HW_COMP_ERROR,		/* complete the WQE in error */
	MLX_HW_COMP_NUM_STATES
};

/*
 * The answer a responder of this host gave a request handed over directly
 * (direct.c), left for the completer: the latest only, since an ACK or NAK
 * says all that came before it (IBA 9.7.5.1).
 */
struct mlx_hw_direct_ack {
	bool valid;			/* one waits */
	u8 syndrome;			/* AETH syndrome */
	u32 psn;			/* BTH PSN */
	u32 msn;			/* AETH MSN */
};

struct mlx_hw_comp {
	enum mlx_hw_comp_state state;	/* last state (traces) */
	u32 psn;			/* oldest PSN not yet acknowledged */
	u32 retries;			/* transport retries since progress */
	u32 rnr_retries;		/* RNR retries since progress */
	bool retry_pending;		/* rewound; no progress seen since */
	u64 timeout_at;			/* ktime ns of the ACK timeout, 0 off */
	u8 status;			/* error status in COMP_ERROR */
	/* A READ or atomic whose answer lands, if not req.body's WQE. */
	struct mlx_hw_swqe_body *body;
	struct mlx_hw_direct_ack direct;	/* a direct answer to take */
};

/*
 * Responder resources (IBA 9.7.5.1.5, max_dest_rd_atomic of them): the
 * READ and atomic requests a duplicate may ask for again.
 */
enum mlx_hw_res_type {
	MLX_HW_RES_NONE,
	MLX_HW_RES_READ,
	MLX_HW_RES_ATOMIC,
};

struct mlx_hw_res {
	enum mlx_hw_res_type type;
	u32 first_psn;			/* first PSN of the request */
	u32 last_psn;			/* last PSN of its responses */
	u32 xrc_srqn;			/* XRC READ: the SRQ whose PD grants it
					 * (here, not in read: 40 bytes, not 48) */
	union {
		struct {		/* READ */
			u64 va;		/* request's start address */
			u32 rkey;
			u32 length;	/* request's bytes */
			u32 next_psn;	/* next response packet to send */
			u32 end_psn;	/* the last to send: last_psn, or
					 * where a duplicate asks to stop */
		} read;
		struct {		/* atomic */
			u64 orig;	/* original remote data */
		} atomic;
	};
};

/*
 * Responder states (resp.c); names in resp.c.  A failed check goes to an
 * ERR_ state, which decides the answer (IBA 9.9.3) and goes on to NAK.
 */
enum mlx_hw_resp_state {
	MLX_HW_RESP_CHECK_PSN,		/* in sequence, duplicate, ahead */
	MLX_HW_RESP_CHECK_OP_SEQ,	/* FIRST/MIDDLE/LAST order */
	MLX_HW_RESP_CHECK_OP_VALID,	/* enabled by the QP's access */
	MLX_HW_RESP_CHECK_RESOURCE,	/* receive WQE for SEND/IMM */
	MLX_HW_RESP_CHECK_LENGTH,	/* payload against MTU and buffers */
	MLX_HW_RESP_CHECK_RKEY,		/* RETH/AtomicETH key and range */
	MLX_HW_RESP_CHECK_PAGES,	/* ODP: the pages are mapped */
	MLX_HW_RESP_EXECUTE,		/* place the data */
	MLX_HW_RESP_READ_REPLY,		/* send READ response packets */
	MLX_HW_RESP_ATOMIC_REPLY,	/* execute, answer the atomic */
	MLX_HW_RESP_COMPLETE,		/* receive CQE */
	MLX_HW_RESP_ACKNOWLEDGE,	/* ACK if asked */
	MLX_HW_RESP_CLEANUP,		/* the request is used up */
	MLX_HW_RESP_DUPLICATE,		/* answer a duplicate again */
	MLX_HW_RESP_NAK,		/* NAK and, RC, ERR */
	MLX_HW_RESP_DROP,		/* silently dropped */
	MLX_HW_RESP_UNDONE,		/* a direct request's ODP source page was
					 * unmapped: undone, to come as a packet */
	MLX_HW_RESP_ERR_PSN_OUT_OF_SEQ,	/* a PSN gap: one sequence NAK */
	MLX_HW_RESP_ERR_RNR,		/* no receive WQE: RNR NAK */
	MLX_HW_RESP_ERR_MISSING_FIRST,	/* MIDDLE or LAST, no message open */
	MLX_HW_RESP_ERR_MISSING_LAST,	/* FIRST, a message still open */
	MLX_HW_RESP_ERR_UNSUPPORTED_OP,	/* not enabled by the QP's access */
	MLX_HW_RESP_ERR_XRC_SRQ,	/* XRCETH names no usable XRC SRQ */
	MLX_HW_RESP_ERR_LENGTH,		/* packet or DMA length inconsistent */
	MLX_HW_RESP_ERR_TOO_LONG,	/* a SEND beyond its receive buffers */
	MLX_HW_RESP_ERR_MISALIGNED_ATOMIC, /* atomic VA not 8-byte aligned */
	MLX_HW_RESP_ERR_RKEY_VIOLATION,	/* R_Key, range or access refused */
	MLX_HW_RESP_ERR_WRITE_FAULT,	/* WRITE target pages went away */
	MLX_HW_RESP_ERR_ATOMIC_FAULT,	/* atomic target page went away */
	MLX_HW_RESP_ERR_BAD_RWQE,	/* the receive WQE is unusable */
	MLX_HW_RESP_ERR_RECV_FAULT,	/* receive buffer pages went away */
	MLX_HW_RESP_ERR_PAGE_FAULT,	/* ODP pages being faulted in: RNR NAK */
	MLX_HW_RESP_NUM_STATES
};

/*
 * What a responder's ACK may name (ack_guard.c, docs/wire.md 14.3.3): the
 * kind of each of the last MLX_HW_ACKG_PSNS PSNs taken, and, after a
 * sequence NAK, which PSNs may have come from packets the requester sent
 * before it went back.  Bit (psn % MLX_HW_ACKG_PSNS) of each map.
 */
#define MLX_HW_ACKG_PSNS 128
struct mlx_hw_ack_guard {
	DECLARE_BITMAP(msg_end, MLX_HW_ACKG_PSNS); /* a message ended here */
	DECLARE_BITMAP(rd_atomic, MLX_HW_ACKG_PSNS); /* a READ's or atomic's */
	bool active;		/* a sequence NAK's resend not past fence yet */
	u32 nak_psn;		/* the PSN that NAK named */
	u32 fence;		/* lowest PSN received beyond the gap since */
	u32 resent;		/* newest duplicate >= nak_psn since (else -1) */
};

/* Receive side of a QP, owned through qp->recv_side. */
struct mlx_hw_resp_side {
	enum mlx_hw_resp_state state;	/* last state (traces) */
	u32 psn;			/* expected PSN */
	u32 msn;			/* messages completed (AETH MSN) */
	bool nak_sent;			/* a NAK or RNR NAK awaits a retry */
	bool ack_pending;		/* coalesced ACK for ack_psn to send */
	u32 ack_psn;			/* PSN the pending ACK acknowledges */
	u32 ack_floor;			/* it may name no older one (a dup's) */
	struct mlx_hw_ack_guard ackg;	/* what it may name (ack_guard.c) */
	/* The message in progress (SEND or WRITE). */
	bool in_msg;			/* between FIRST and LAST */
	bool in_write;			/* it is an RDMA WRITE */
	bool have_rwqe;			/* rwqe holds a taken receive WQE */
	u64 rwqe_id;			/* its wr_id */
	struct mlx_hw_sgl rwqe;		/* its buffers (parked) */
	struct mlx_hw_sgl wr_dst;	/* RDMA WRITE target (parked) */
	struct mlx_hw_cursor cur;	/* where the next payload goes */
	u32 offset;			/* bytes received so far */
	u32 length;			/* RETH DMA length of that message */
	/* What a failed check answers (state NAK). */
	u8 nak_syndrome;		/* AETH syndrome of the NAK (RC) */
	bool nak_fatal;			/* an error: the QP goes to ERR */
	u8 recv_status;			/* receive CQE status, 0 none */
	enum ibx_event_type event;	/* affiliated event of the error */
	u64 wait_until;			/* ktime ns: no send before (congestion) */
	u8 odp_fault;			/* enum mlx_hw_odp_fault_state (odp.c) */
	/* The requester of the direct request being executed: it gets the answers. */
	struct mlx_hw_qp *answer_to;
	/*
	 * XRC TGT: the XRC SRQ the packet being executed names (referenced
	 * only while it is), and the SRQ number of the message in progress.
	 */
	struct mlx_hw_srq *xsrq;
	u32 xrc_srqn;
	/*
	 * READ and atomic resources, a ring of res_cnt: allocated by
	 * modify_qp, sized to max_dest_rd_atomic, before a reliable QP
	 * enters RTR (the responder runs only in RTR, RTS and SQD, so it
	 * always has them there); freed at RESET.  NULL before, and for
	 * the QP types that answer no READ or atomic.
	 */
	struct mlx_hw_res *res;
	u32 res_next;			/* slot the next request takes */
	u32 res_cnt;			/* ring size, >= 1 */
	struct mlx_hw_res *read;	/* READ whose responses are going out */
};

struct mlx_hw_qp {
	struct ibx_qp ibx;		/* must be first */
	struct mlx_hw_obj_ref obj;	/* engine and packet users */
	struct mlx_hw_region *region;	/* SQ + RQ; NULL for XRC TGT */
	u64 mmap_key;			/* of region in the owner's context */
	struct mlx_hw_dbrec dbrec;	/* where db lives */
	struct mlx_hw_qp_db *db;	/* dbrec.vaddr */
	void *sq;			/* ring base */
	void *rq;			/* ring base, NULL with an SRQ */
	u32 sq_wqe_cnt, sq_stride;	/* SQ geometry (docs/prm.md 4.1) */
	u32 rq_wqe_cnt, rq_stride;	/* RQ geometry (0 with an SRQ) */
	u32 max_send_sge, max_recv_sge;	/* capacities reported back */
	u32 max_inline;			/* inline bytes a WQE may carry */
	struct mlx_hw_swqe *window;	/* win_size entries, SQ order */
	void *wqe_buf;			/* sq_stride bytes: a WQE copied out */
	u32 win_size;			/* power of two */
	struct mlx_hw_seg *segs;	/* the segments of its five sgls */

	/*
	 * send_side: requester and completer (req, comp, sq_ci, scratch
	 * while completing).  recv_side: the responder (resp, rq_ci).  A
	 * context runs a side only while it owns it (side.c); modify and
	 * destroy pause both, under ctrl_lock, which orders the control
	 * paths among themselves.  Packets queue on resp_pkts (requests) and
	 * comp_pkts (responses) without either.
	 */
	struct mlx_hw_side send_side;
	struct mlx_hw_side recv_side;
	struct mutex ctrl_lock;
	struct sk_buff_head resp_pkts;	/* requests for the responder */
	struct sk_buff_head comp_pkts;	/* responses for the completer */
	struct list_head run_node;	/* on dev->run_list, under run_lock */
	bool running;			/* a pass runs it, under run_lock */
	bool rerun;			/* scheduled meanwhile: run again */
	struct hrtimer timer;		/* ACK timeout, RNR wait, back-off */
	spinlock_t timer_lock;		/* serializes timer_at writers */
	u64 timer_at;			/* ktime ns it is set for, 0; READ_ONCE */
	/* Kernel QPs: serializes posters writing the rings (kverbs.c). */
	spinlock_t kpost_lock;

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
	u32 access;			/* IB_UVERBS_ACCESS_* of the QP */
	u32 mtu;			/* path MTU, bytes */
	u8 min_rnr_timer;		/* RNR NAK timer code we answer with */
	u8 rnr_retry;			/* RNR retries (7 = forever) */
	u8 retry_cnt;			/* transport retries */
	u8 timeout;			/* local ACK timeout code */
	u8 max_rd_atomic;		/* outstanding READ/atomics we send */
	u8 sgid_index;			/* RC/UC: source GID index */
	struct ibx_ah_attr ah;		/* RC/UC: the primary path */
	struct mlx_hw_av av;		/* RC/UC: ah, resolved at RTR */
	u16 pkey_index;			/* of the primary path */
	u8 port;			/* of the primary path */

	/*
	 * The paths: the primary (ah, av, pkey_index, port, timeout) and
	 * the alternate of Automatic Path Migration (IBA 17.2.8, apm.c),
	 * allocated when a modify_qp first loads one and kept until the QP
	 * is destroyed, so that a reader never sees it go (RESET only
	 * clears has_alt).  They change under path_lock, inside a path_seq
	 * write section:
	 * modify_qp, and a migration, which either side may make.  The data
	 * path reads them by copying within a path_seq read section
	 * (mlx_hw_qp_av()); timeout alone is read with READ_ONCE.  recv.c
	 * moves mig_state REARM to ARMED with a cmpxchg, and asks for the
	 * migration the peer made through mig_flags, which the next service
	 * of the QP carries out.
	 */
	spinlock_t path_lock;
	seqcount_spinlock_t path_seq;
	int mig_state;			/* enum ibx_mig_state, READ/WRITE_ONCE */
	bool has_alt;			/* an alternate path since RESET */
	unsigned long mig_flags;	/* MLX_HW_MIG_* bits */
	struct mlx_hw_path *alt;	/* the alternate path, or NULL */

	/*
	 * Memory resolved and released within one call, never held across
	 * calls: the completer writes READ data and atomic results through
	 * it, the responder reads READ response data.  Each side has its own:
	 * the two sides may run at once, in two contexts.
	 */
	struct mlx_hw_sgl comp_scratch;	/* send side */
	struct mlx_hw_sgl resp_scratch;	/* receive side */

	/* ecn.c: no CNP before this ktime (ns); READ/WRITE_ONCE. */
	u64 cnp_next_ns;

	struct mlx_hw_req req;		/* send_side's */
	struct mlx_hw_comp comp;	/* send_side's */
	struct mlx_hw_resp_side resp;	/* recv_side's */
};

static inline struct mlx_hw_qp *to_mqp(struct ibx_qp *q)
{
	return container_of(q, struct mlx_hw_qp, ibx);
}

/* The window slot of SQ index @idx. */
static inline struct mlx_hw_swqe *mlx_hw_swqe(struct mlx_hw_qp *qp, u32 idx)
{
	return &qp->window[idx & (qp->win_size - 1)];
}

/* The SQ index of window entry @w (between sq_ci and req.fetch_idx). */
static inline u32 mlx_hw_swqe_idx(struct mlx_hw_qp *qp,
				  const struct mlx_hw_swqe *w)
{
	u32 slot = w - qp->window;

	return qp->sq_ci + ((slot - qp->sq_ci) & (qp->win_size - 1));
}

/* @b holds the parsed body of the WQE at SQ index @idx. */
static inline bool mlx_hw_swqe_body_is(const struct mlx_hw_swqe_body *b,
				       u32 idx)
{
	return b->valid && b->idx == idx;
}

/* BIND_MW and LOCAL_INV: executed here, no packet. */
static inline bool mlx_hw_swqe_is_local(const struct mlx_hw_swqe *w)
{
	return w->opcode == MLX_HW_OP_LOCAL_INV ||
	       w->opcode == MLX_HW_OP_BIND_MW;
}

/* A READ or atomic: answered with data, limited by max_rd_atomic. */
static inline bool mlx_hw_swqe_rd_atomic(const struct mlx_hw_swqe *w)
{
	return w->opcode == MLX_HW_OP_RDMA_READ ||
	       w->opcode == MLX_HW_OP_ATOMIC_CS ||
	       w->opcode == MLX_HW_OP_ATOMIC_FA;
}

/* RC and both halves of XRC: acknowledged, PSN-checked, RNR NAKs. */
static inline bool mlx_hw_qp_reliable(u32 qp_type)
{
	return qp_type == IB_UVERBS_QPT_RC ||
	       qp_type == IB_UVERBS_QPT_XRC_INI ||
	       qp_type == IB_UVERBS_QPT_XRC_TGT;
}

/*
 * Datagram QPs: UD, and the GSI QP (QP1, kernel only), which is UD with
 * number 1 and the fixed Q_Key 0x80010000 (IBA 13.5.1).
 */
static inline bool mlx_hw_qp_is_ud(u32 qp_type)
{
	return qp_type == IB_UVERBS_QPT_UD || qp_type == IBX_QPT_GSI;
}

/* The transport bits of the opcodes a QP of @qp_type sends. */
static inline u8 mlx_hw_qp_transport(u32 qp_type)
{
	switch (qp_type) {
	case IB_UVERBS_QPT_UC:
		return MLX_HW_TP_UC;
	case IB_UVERBS_QPT_UD:
	case IBX_QPT_GSI:
		return MLX_HW_TP_UD;
	case IB_UVERBS_QPT_XRC_INI:
	case IB_UVERBS_QPT_XRC_TGT:
		return MLX_HW_TP_XRC;
	default:
		return MLX_HW_TP_RC;
	}
}

/*
 * The PD a responder checks receive buffers and remote keys against: an
 * XRC TGT QP has none, the XRC SRQ of the request gives it (IBA A14).
 */
static inline struct ibx_pd *mlx_hw_resp_pd(struct mlx_hw_qp *qp)
{
	return qp->resp.xsrq ? qp->resp.xsrq->ibx.pd : qp->ibx.pd;
}

/*
 * Per-QP trace through dynamic debug (docs/prm.md 13; trace.c).  Each line
 * names the task whose context ran it, 0 in a softirq: which context runs
 * a QP is what the run-to-completion rules are about (own-context.vmtest).
 * Dynamic debug's own +t cannot tell, as it calls BH-disabled code
 * interrupt context.
 */
extern unsigned int mlx_hw_trace_qpn;
#define mlx_hw_qp_dbg(qp, fmt, ...)					\
	do {								\
		if (!mlx_hw_trace_qpn ||				\
		    mlx_hw_trace_qpn == (qp)->ibx.qp_num)		\
			pr_debug("%s qp %u task %d: " fmt,		\
				 (qp)->ibx.dev->name, (qp)->ibx.qp_num,	\
				 in_task() ? task_pid_nr(current) : 0,	\
				 ##__VA_ARGS__);			\
	} while (0)

#endif /* MLX_HW_MODEL_H */
