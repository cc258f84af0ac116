/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mlx_hw.h - the userspace provider of the mlx_hw HCA.
 *
 * The device is a model executed by engine threads in the kernel: it reads
 * the WQE rings and doorbell records that this provider writes into memory
 * mapped from the driver, and writes CQEs and consumer indices back.  The
 * "hardware" is therefore another CPU: every publication towards it is a
 * release store (or a fence) and every observation of it an acquire load,
 * expressed with the compiler's __atomic builtins.  The data path makes no
 * system call unless the engine has gone to sleep (NEED_WAKEUP in the
 * engine page), in the style of io_uring's SQPOLL.
 *
 * Formats and protocols: kernel/include/uapi/mlx_hw-abi.h and docs/prm.md.
 */
#ifndef MLX_HW_H
#define MLX_HW_H

#include <endian.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/ibx_driver.h>
#include <mlx_hw-abi.h>

#ifdef IBX_VALGRIND
#include <valgrind/memcheck.h>
/* Memory the engine wrote is invisible to valgrind's definedness tracking. */
#define mlx_hw_mem_defined(p, len) VALGRIND_MAKE_MEM_DEFINED(p, len)
#else
#define mlx_hw_mem_defined(p, len) do { } while (0)
#endif

struct mlx_hw_context {
	struct verbs_context vctx;	/* what libibverbs sees; must embed */
	const struct mlx_hw_engine_page *engine;	/* read-only mapping */
	size_t engine_page_size;	/* length of that mapping */
	struct mlx_hw_db_ring *db_ring;	/* the doorbell ring (PRM 2.1) */
	__le32 *db_entry;		/* its slots */
	uint32_t db_entries;		/* power of two */
	size_t db_ring_size;		/* length of that mapping */
	uint32_t max_inline_data;	/* device limit, from GET_CONTEXT */
	/*
	 * The engine thread's heartbeat as last seen (PRM 2.4), and when by
	 * mlx_hw_clock(); any thread may update them (a race costs at most
	 * one early or late WAKE).
	 */
	uint32_t hb_seen;
	uint64_t hb_since;
	/* Pages of doorbell records (PRM 1.2), each mapped once. */
	pthread_mutex_t dbpage_lock;	/* protects the three below */
	struct mlx_hw_dbpage *dbpages;	/* mapped pages, by mmap key */
	unsigned int n_dbpages, max_dbpages;
};

/* A page of doorbell records: the kernel never reuses its key. */
struct mlx_hw_dbpage {
	uint64_t key;
	void *addr;
};

struct mlx_hw_cq {
	union {				/* ibv_cq is the prefix of ibv_cq_ex */
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
	pthread_spinlock_t lock;	/* serialises pollers of this CQ */
	int single_threaded;		/* IBV_CREATE_CQ_ATTR_SINGLE_THREADED */
	void *region;			/* CQE ring mapping */
	size_t region_len;
	struct mlx_hw_cq_db *db;	/* in a shared doorbell page */
	struct mlx_hw_cqe *ring;	/* entries CQEs */
	uint32_t entries;		/* power of two */
	uint32_t log_entries;		/* log2(entries), for the owner rule */
	uint32_t ci;			/* next CQE index to poll (free-running) */
	uint32_t arm_sn;		/* last arm sequence number written */
	uint32_t cqn;
	struct mlx_hw_cqe *cur;		/* extended polling: CQE being read */
};

/* One work queue ring (SQ or RQ) of a QP, or the ring of an SRQ. */
struct mlx_hw_wq {
	pthread_spinlock_t lock;	/* serialises posters on this ring */
	uint8_t *buf;			/* first slot */
	uint32_t wqe_cnt;		/* slots, power of two; 0 = no ring */
	uint32_t stride;		/* bytes per slot, power of two */
	uint32_t max_sge;		/* scatter/gather entries we accept */
	uint32_t pi;			/* shadow of the producer index */
	__le32 *db_pi;			/* user-written producer index */
	__le32 *db_ci;			/* engine-written consumer index */
};

/* Where the segments of one send WQE lie in its slot (PRM 4.2). */
struct mlx_hw_sq_wqe {
	struct mlx_hw_wqe_ctrl *ctrl;	/* NULL: no WQE is being built */
	struct mlx_hw_wqe_ud *ud;	/* UD QPs, else NULL */
	struct mlx_hw_wqe_xrc *xrc;	/* XRC INI (XRC_SEND) QPs, else NULL */
	struct mlx_hw_wqe_raddr *raddr;	/* RDMA and atomic ops, else NULL */
	struct mlx_hw_wqe_atomic *atomic;	/* atomic ops, else NULL */
	struct mlx_hw_wqe_bind *bind;	/* BIND_MW, else NULL */
	uint8_t *data;			/* first data or inline segment */
	uint8_t *end;			/* end of the slot */
};

struct mlx_hw_qp {
	struct verbs_qp vqp;		/* ibv_qp / ibv_qp_ex; must be first */
	void *region;			/* SQ + RQ mapping */
	size_t region_len;
	struct mlx_hw_qp_db *db;	/* in a shared doorbell page */
	struct mlx_hw_wq sq;
	struct mlx_hw_wq rq;		/* wqe_cnt == 0 when an SRQ is used */
	uint32_t max_inline_data;	/* per-WQE inline limit of this QP */
	/* State of the ibv_qp_ex wr_* builder between wr_start/complete. */
	uint32_t wr_start_pi;		/* sq.pi at wr_start(), for wr_abort */
	int wr_err;			/* first error of this batch, or 0 */
	struct mlx_hw_sq_wqe wr;	/* the WQE being built */
};

struct mlx_hw_srq {
	struct verbs_srq vsrq;		/* must be first */
	void *region;			/* receive ring mapping */
	size_t region_len;
	struct mlx_hw_wq wq;		/* the receive ring */
	uint32_t srqn;
};

/* A userspace address handle: the UD segment copied into each WQE. */
struct mlx_hw_ah {
	struct ibv_ah ibv_ah;		/* must be first */
	struct mlx_hw_wqe_ud av;	/* remote_qpn/qkey filled per WQE */
};

static inline struct mlx_hw_context *to_mctx(struct ibv_context *ibctx)
{
	return (struct mlx_hw_context *)((char *)ibctx -
		offsetof(struct mlx_hw_context, vctx.context));
}

static inline struct mlx_hw_cq *to_mcq(struct ibv_cq *cq)
{
	return (struct mlx_hw_cq *)cq;
}

static inline struct mlx_hw_cq *to_mcq_ex(struct ibv_cq_ex *cq)
{
	return (struct mlx_hw_cq *)cq;
}

static inline struct mlx_hw_qp *to_mqp(struct ibv_qp *qp)
{
	return (struct mlx_hw_qp *)qp;
}

static inline struct mlx_hw_srq *to_msrq(struct ibv_srq *srq)
{
	return (struct mlx_hw_srq *)srq;
}

static inline struct mlx_hw_ah *to_mah(struct ibv_ah *ah)
{
	return (struct mlx_hw_ah *)ah;
}

/*
 * Rings a doorbell whose record the caller has just published: if the
 * engine went to sleep, wake it.  The ioctl is the only system call of the
 * data path.
 */
void mlx_hw_kick_engine(struct ibv_context *ibctx);
/*
 * Tells the engine which object was rung (PRM 2.1): pushes (kind, number)
 * to the context's doorbell ring, then kicks the engine.  Lock-free: any
 * thread, any lock held or not.
 */
void mlx_hw_ring_doorbell(struct ibv_context *ibctx, uint32_t kind,
			  uint32_t num);

/* Maps a queue's region (its rings) from the cmd fd. */
void *mlx_hw_mmap_region(struct ibv_context *ibctx, uint64_t key, size_t len,
			 int writable);
/*
 * The doorbell record at @offset of the page under @key, mapping the page
 * on first use; NULL with errno set.
 */
void *mlx_hw_dbrec(struct ibv_context *ibctx, uint64_t key, uint32_t offset);

/* Writes @wr into the next free slot of receive ring @wq (lock held). */
int mlx_hw_write_rwqe(struct mlx_hw_wq *wq, const struct ibv_recv_wr *wr);
/* Publishes the producer index of @wq to the engine (lock held). */
void mlx_hw_wq_publish(struct mlx_hw_wq *wq);

/* Send WQE building, shared by post_send and the wr_* API (lock held). */
int mlx_hw_sq_begin(struct mlx_hw_qp *qp, uint8_t opcode, uint64_t wr_id,
		    unsigned int send_flags, struct mlx_hw_sq_wqe *w);
int mlx_hw_sq_add_sge(struct mlx_hw_qp *qp, struct mlx_hw_sq_wqe *w,
		      uint32_t lkey, uint64_t addr, uint32_t length);
int mlx_hw_sq_add_inline(struct mlx_hw_qp *qp, struct mlx_hw_sq_wqe *w,
			 const void *addr, size_t length);
void mlx_hw_sq_set_ud(struct mlx_hw_sq_wqe *w, struct ibv_ah *ah,
		      uint32_t remote_qpn, uint32_t remote_qkey);
void mlx_hw_sq_set_bind(struct mlx_hw_sq_wqe *w, struct ibv_mw *mw,
			uint32_t rkey, const struct ibv_mw_bind_info *bi);

/* cq.c */
struct ibv_cq *mlx_hw_create_cq(struct ibv_context *ibctx, int cqe,
				struct ibv_comp_channel *channel,
				int comp_vector);
struct ibv_cq_ex *mlx_hw_create_cq_ex(struct ibv_context *ibctx,
				      struct ibv_cq_init_attr_ex *attr);
int mlx_hw_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int mlx_hw_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void mlx_hw_cq_clean(struct mlx_hw_cq *cq, uint32_t qpn);
int mlx_hw_resize_cq(struct ibv_cq *cq, int cqe);
int mlx_hw_destroy_cq(struct ibv_cq *cq);

/* qp.c */
struct ibv_qp *mlx_hw_create_qp(struct ibv_pd *pd,
				struct ibv_qp_init_attr *attr);
struct ibv_qp *mlx_hw_create_qp_ex(struct ibv_context *ibctx,
				   struct ibv_qp_init_attr_ex *attr);
int mlx_hw_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr);
int mlx_hw_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask);
int mlx_hw_destroy_qp(struct ibv_qp *qp);
struct ibv_qp *mlx_hw_open_qp(struct ibv_context *ibctx,
			      struct ibv_qp_open_attr *attr);
struct ibv_xrcd *mlx_hw_open_xrcd(struct ibv_context *ibctx,
				  struct ibv_xrcd_init_attr *attr);
int mlx_hw_close_xrcd(struct ibv_xrcd *xrcd);
int mlx_hw_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr);
int mlx_hw_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
int mlx_hw_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind);

/* qp_ex.c */
void mlx_hw_init_qp_ex(struct mlx_hw_qp *qp, uint64_t send_ops_flags);

/* srq.c */
struct ibv_srq *mlx_hw_create_srq(struct ibv_pd *pd,
				  struct ibv_srq_init_attr *attr);
struct ibv_srq *mlx_hw_create_srq_ex(struct ibv_context *ibctx,
				     struct ibv_srq_init_attr_ex *attr);
int mlx_hw_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		      int attr_mask);
int mlx_hw_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int mlx_hw_destroy_srq(struct ibv_srq *srq);
int mlx_hw_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);

#endif /* MLX_HW_H */
