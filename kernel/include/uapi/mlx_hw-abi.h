/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * mlx_hw-abi.h - the mlx_hw HCA's interface to userspace: the driver-private
 * parts of the uverbs commands (udata) and the memory formats of the device
 * (doorbell records, WQEs, CQEs).  Shared verbatim by kernel/mlx_hw and the
 * userspace provider.  docs/prm.md is the prose reference of everything here.
 *
 * All multi-byte fields of device memory are little-endian, except
 * imm_data, which carries the network-order value of ibv_send_wr.imm_data.
 */
#ifndef MLX_HW_ABI_H
#define MLX_HW_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define MLX_HW_ABI_VERSION	4	/* 4: shared doorbell pages, 32-byte CQE */

/* ---------------- the engine's wake-up handshake ---------------- */

/*
 * One read-only page per device, mapped by every context: the engine sets
 * NEED_WAKEUP before it sleeps.  After publishing a doorbell record a
 * provider issues a full barrier, reads flags, and calls
 * ioctl(cmd_fd, MLX_HW_IOCTL_WAKE) if NEED_WAKEUP is set, or if the
 * thread, though awake, has not looked for work in stale_us: its
 * heartbeat has not moved (docs/prm.md 2.4).  A kernel that leaves
 * stale_us 0 has no heartbeat.
 */
struct mlx_hw_engine_page {
	__le32 flags;
	__le32 heartbeat;	/* +1 at each look of the awake thread (wraps) */
	__le64 wakeups;		/* statistics: wake-ups since load */
	__le32 stale_us;	/* heartbeat this still: the thread is not running */
	__le32 tsc_khz;		/* x86: TSC rate for the provider's clock, 0 none */
};

#define MLX_HW_ENGINE_NEED_WAKEUP	(1u << 0)

#define MLX_HW_IOCTL_MAGIC	0xb7	/* not RDMA_IOCTL_MAGIC (0x1b) */
#define MLX_HW_IOCTL_WAKE	_IO(MLX_HW_IOCTL_MAGIC, 1)
/*
 * WAKE that names the object just rung: the argument (by value) is the
 * doorbell ring entry (kind << 24 | number, see below).  That object is
 * served first, then the caller's ring, as WAKE does.
 */
#define MLX_HW_IOCTL_WAKE_DB	_IO(MLX_HW_IOCTL_MAGIC, 2)

/* ---------------- ibv_advise_mr ---------------- */

/* One range, laid out as struct ibv_sge. */
struct mlx_hw_advise_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * MLX_HW_IOCTL_ADVISE_MR's argument: prefetch ranges of the caller's ODP
 * MRs (docs/prm.md 10.4).  With FLUSH the pages are mapped when the call
 * returns, else in the background.
 */
struct mlx_hw_advise_mr {
	__u32 advice;		/* MLX_HW_ADVISE_* (ibv_advise_mr_advice) */
	__u32 flags;		/* MLX_HW_ADVISE_FLAG_* */
	__u32 num_sge;		/* 1 .. max_sge */
	__u32 reserved;		/* 0 */
	__aligned_u64 sg_list;	/* user pointer: struct mlx_hw_advise_sge[] */
};

#define MLX_HW_ADVISE_PREFETCH		0
#define MLX_HW_ADVISE_PREFETCH_WRITE	1
#define MLX_HW_ADVISE_PREFETCH_NO_FAULT	2
#define MLX_HW_ADVISE_FLAG_FLUSH	(1u << 0)

#define MLX_HW_IOCTL_ADVISE_MR	_IOW(MLX_HW_IOCTL_MAGIC, 3, struct mlx_hw_advise_mr)

/* ---------------- the doorbell ring (one per context) ---------------- */

/*
 * Tells the engine which objects were rung, so that it never looks at the
 * others (docs/prm.md 2.1).  After publishing a QP's producer index or a
 * CQ's arm word, the provider claims a slot (compare-and-swap on pi, only
 * while pi - ci < entries) and stores (kind << 24 | number) into it with
 * release ordering; when the ring is full it sets overflow instead.  The
 * engine consumes from its own private index, zeroes each slot it takes,
 * then publishes ci.  A zero slot is one not yet written.
 */
struct mlx_hw_db_ring {
	__le32 pi;		/* user: next slot to be claimed */
	__le32 overflow;	/* user: nonzero: a doorbell found no slot */
	__le32 reserved0[14];	/* keeps ci on its own cache line */
	__le32 ci;		/* engine: slots below this are free again */
	__le32 reserved1[15];
	/* __le32 entry[entries] at db_ring_offset */
};

#define MLX_HW_DB_KIND_SHIFT	24
#define MLX_HW_DB_NUM_MASK	0xffffffu
#define MLX_HW_DB_KIND_QP	1	/* a QP's sq_pi or rq_pi was published */
#define MLX_HW_DB_KIND_CQ	2	/* a CQ's arm word was published */

/* ---------------- doorbell records ---------------- */

/*
 * Each queue object has a doorbell record of MLX_HW_DBREC_SIZE bytes (one
 * cache line, so that two objects' indices never share one) in a page the
 * objects of its context share: the create response gives the page's mmap
 * key (db_key) and the record's offset in it (db_offset).  The rings are a
 * separate mapping (mmap_key), starting at the offsets the response gives.
 * Fields marked "user" are written by the provider only, "engine" by the
 * device only.  All indices are free-running 32-bit counters (ring slot =
 * index & (n-1)).
 */
#define MLX_HW_DBREC_SIZE	64

struct mlx_hw_qp_db {
	__le32 sq_pi;		/* user: next SQ WQE index to be written */
	__le32 rq_pi;		/* user: next RQ WQE index to be written */
	__le32 sq_ci;		/* engine: SQ slots below this are free again */
	__le32 rq_ci;		/* engine: RQ slots below this are free again */
	__le32 flags;		/* engine: MLX_HW_QP_DB_* */
};

/*
 * flags: an RQ post must ring the doorbell (push a ring entry, then the
 * NEED_WAKEUP check) only while this is set, that is while the QP is in
 * ERR and the engine flushes what is posted.  Otherwise the engine reads
 * rq_pi when a message arrives, and a receive post makes no system call.
 */
#define MLX_HW_QP_DB_RING_RQ	(1u << 0)

struct mlx_hw_srq_db {
	__le32 pi;		/* user */
	__le32 ci;		/* engine */
};

/*
 * CQ arming: the provider writes ci, then the arm word with a new sequence
 * number.  The engine, on seeing a new arm_sn, arms the CQ; if CQEs beyond
 * ci already exist it fires the completion event at once.
 */
struct mlx_hw_cq_db {
	__le32 ci;		/* user: next CQE index to be polled */
	__le32 arm;		/* user: MLX_HW_CQ_ARM_* */
	__le32 pi;		/* engine: next CQE index to be written */
	__le32 reserved;
};

#define MLX_HW_CQ_ARM_SN_SHIFT	8	/* arm sequence number, bits 8..31 */
#define MLX_HW_CQ_ARM_NEXT	1	/* any next completion */
#define MLX_HW_CQ_ARM_SOLICITED	2	/* next solicited or error completion */

/* ---------------- send queue WQE ---------------- */

/* Opcodes: the values of enum ibv_wr_opcode. */
enum mlx_hw_wqe_opcode {
	MLX_HW_OP_RDMA_WRITE = 0,
	MLX_HW_OP_RDMA_WRITE_IMM = 1,
	MLX_HW_OP_SEND = 2,
	MLX_HW_OP_SEND_IMM = 3,
	MLX_HW_OP_RDMA_READ = 4,
	MLX_HW_OP_ATOMIC_CS = 5,
	MLX_HW_OP_ATOMIC_FA = 6,
	MLX_HW_OP_LOCAL_INV = 7,
	MLX_HW_OP_BIND_MW = 8,
	MLX_HW_OP_SEND_INV = 9,
};

/* Flags: the values of enum ibv_send_flags. */
enum mlx_hw_wqe_flags {
	MLX_HW_WQE_FENCE = 1 << 0,
	MLX_HW_WQE_SIGNALED = 1 << 1,
	MLX_HW_WQE_SOLICITED = 1 << 2,
	MLX_HW_WQE_INLINE = 1 << 3,
};

/*
 * A send WQE occupies one fixed-size slot (sq_stride bytes) and is laid out
 * as: ctrl, then [ud] for UD QPs or [xrc] for XRC INI QPs, then [raddr] for RDMA and atomic ops,
 * then [atomic] for atomics, then [bind] for BIND_MW, then either num_sge
 * data segments or (MLX_HW_WQE_INLINE) one inline segment.
 */
struct mlx_hw_wqe_ctrl {
	__le64 wr_id;
	__u8 opcode;		/* enum mlx_hw_wqe_opcode */
	__u8 flags;		/* enum mlx_hw_wqe_flags */
	__u8 num_sge;
	__u8 reserved;
	union {
		__be32 imm_data;	/* *_IMM */
		__le32 invalidate_rkey;	/* SEND_INV, LOCAL_INV */
	};
};

/* UD address vector: everything the engine needs, no kernel AH object. */
struct mlx_hw_wqe_ud {
	__u8 dgid[16];
	__le32 remote_qpn;
	__le32 remote_qkey;
	__le32 flow_label;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sl;
	__u8 dmac[6];
	__u8 is_global;
	__u8 reserved[9];
};

/* XRC INI QPs, every WQE: the XRC SRQ at the target (XRCETH). */
struct mlx_hw_wqe_xrc {
	__le32 remote_srqn;	/* 24 bits */
	__le32 reserved[3];
};

struct mlx_hw_wqe_raddr {
	__le64 raddr;
	__le32 rkey;
	__le32 reserved;
};

struct mlx_hw_wqe_atomic {
	__le64 swap_add;	/* swap value (CS) or add value (FA) */
	__le64 compare;		/* CS only */
};

struct mlx_hw_wqe_bind {
	__le64 addr;
	__le64 length;
	__le32 mr_lkey;
	__le32 new_rkey;	/* rkey the bound window takes */
	__le32 access;		/* IB_UVERBS_ACCESS_* */
	__le32 reserved;
};

struct mlx_hw_wqe_data {
	__le32 byte_count;
	__le32 lkey;
	__le64 addr;
};

struct mlx_hw_wqe_inline {
	__le32 byte_count;	/* bytes of data that follow */
	__u8 data[];
};

/* ---------------- receive queue / SRQ WQE ---------------- */

/* A receive WQE: this header, then num_sge data segments, in rq_stride. */
struct mlx_hw_rwqe {
	__le64 wr_id;
	__le32 num_sge;
	__le32 reserved;
};

/* ---------------- completion queue entry ---------------- */

/* opcode: enum ibv_wc_opcode; status: enum ibv_wc_status. */
/*
 * cqe.sl of a UD receive: the packet's network header type, as a ConnectX
 * CQE has it on RoCE (docs/prm.md 6.2).  RoCE has no service level on the
 * wire; consumers such as UCX read this to find the addresses in the 40
 * bytes in front of the payload.
 */
#define MLX_HW_CQE_SL_L3_IPV6	0x1	/* a 40-byte IPv6 header */
#define MLX_HW_CQE_SL_L3_IPV4	0x2	/* an IPv4 header in bytes 20..39 */
#define MLX_HW_CQE_SL_ROCE_UDP	0x8	/* UDP-encapsulated: RoCEv2 */

/*
 * 32 bytes.  RoCE has no LIDs, so a CQE has no slid or dlid_path_bits
 * (the provider reports 0); vendor_err is 8 bits, as a ConnectX's
 * vendor syndrome is.
 */
struct mlx_hw_cqe {
	__le64 wr_id;
	__le32 byte_len;
	union {
		__be32 imm_data;
		__le32 invalidated_rkey;
	};
	__le32 qp_num;
	__le32 src_qp;
	__le16 pkey_index;
	__u8 opcode;
	__u8 status;
	__u8 wc_flags;		/* IBV_WC_GRH | IBV_WC_WITH_IMM | IBV_WC_WITH_INV */
	__u8 sl;
	__u8 vendor_err;
	/*
	 * Bit 0 flips on every pass over the ring.  The engine writes the
	 * CQE at index i with owner = 1 ^ ((i >> log2(entries)) & 1), after
	 * the rest of the CQE; the ring starts zeroed, so a CQE is valid for
	 * the consumer at index c iff owner == 1 ^ ((c >> log2(entries)) & 1).
	 */
	__u8 owner;
};

/* ---------------- command udata ---------------- */

struct mlx_hw_alloc_ucontext_resp {
	__u32 abi_version;		/* MLX_HW_ABI_VERSION */
	__u32 engine_page_size;
	__aligned_u64 engine_page_key;	/* mmap offset of the engine page */
	__u32 max_inline_data;
	__u32 cqe_size;			/* sizeof(struct mlx_hw_cqe) */
	__aligned_u64 db_ring_key;	/* mmap offset of the doorbell ring */
	__u32 db_ring_size;		/* bytes to map (read/write) */
	__u32 db_ring_offset;		/* of entry[0] within the mapping */
	__u32 db_ring_entries;		/* power of two */
	__u32 reserved;
};

struct mlx_hw_create_cq_resp {
	__aligned_u64 mmap_key;		/* mmap offset of the CQE ring */
	__u32 mmap_len;
	__u32 cqn;
	__u32 ring_offset;		/* of the CQE ring within the region */
	__u32 entries;			/* power of two */
	__aligned_u64 db_key;		/* mmap offset of the doorbell page */
	__u32 db_offset;		/* of the doorbell record in it */
	__u32 reserved;
};

/*
 * RESIZE_CQ: a new ring region replaces the old one; the CQEs not yet
 * polled were copied to indices 0.. of the new ring, and the doorbell
 * record, which stays, restarts with ci = 0 (docs/prm.md, "Resizing a CQ").
 */
struct mlx_hw_resize_cq_resp {
	__aligned_u64 mmap_key;		/* mmap offset of the new region */
	__u32 mmap_len;
	__u32 ring_offset;		/* of the CQE ring within the region */
	__u32 entries;			/* power of two */
	__u32 reserved;
};

struct mlx_hw_create_qp_resp {
	__aligned_u64 mmap_key;		/* mmap offset of the rings */
	__u32 mmap_len;
	__u32 sq_offset;
	__u32 sq_wqe_cnt;		/* power of two */
	__u32 sq_stride;		/* bytes, a multiple of 16 */
	__u32 rq_offset;
	__u32 rq_wqe_cnt;		/* power of two; 0 with an SRQ */
	__u32 rq_stride;
	__u32 max_inline_data;
	__aligned_u64 db_key;		/* mmap offset of the doorbell page */
	__u32 db_offset;		/* of the doorbell record in it */
	__u32 reserved;
};

/*
 * MODIFY_SRQ has no response buffer in the uverbs ABI, so a resize
 * (IBV_SRQ_MAX_WR) names in its driver input where the kernel writes the
 * new region (rxe's provider does the same, for the same reason).
 */
struct mlx_hw_modify_srq_cmd {
	__aligned_u64 resp_addr;	/* user address of mlx_hw_resize_srq_resp */
};

struct mlx_hw_resize_srq_resp {
	__aligned_u64 mmap_key;		/* mmap offset of the new region */
	__u32 mmap_len;
	__u32 ring_offset;
	__u32 wqe_cnt;			/* power of two; the stride is unchanged */
	__u32 reserved;
};

struct mlx_hw_create_srq_resp {
	__aligned_u64 mmap_key;
	__u32 mmap_len;
	__u32 srqn;
	__u32 ring_offset;
	__u32 wqe_cnt;
	__u32 stride;
	__u32 db_offset;		/* of the doorbell record in its page */
	__aligned_u64 db_key;		/* mmap offset of the doorbell page */
};

#endif /* MLX_HW_ABI_H */
