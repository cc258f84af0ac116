/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * hca_util - small helpers shared by the mlx_hw test programs that need
 * connected QP pairs over loopback, their completions and async events,
 * and the main loop that runs their sections.  Every helper returns 0 on
 * success and -1 after printing why (ut_poll_one and ut_poll_none only
 * return -1: their callers say why).
 */
#ifndef HCA_UTIL_H
#define HCA_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <mlx_hw-abi.h>

#include "check.h"

#define UT_BUF_SIZE (1 << 20) /* each half of ut_ctx.buf */
#define UT_SRC 0	      /* offsets into ut_ctx.buf */
#define UT_DST UT_BUF_SIZE

#define UT_ACCESS_REMOTE                                                       \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                    \
	 IBV_ACCESS_REMOTE_ATOMIC)
#define UT_QKEY 0x11111111 /* of every UD QP */
#define UT_IMM 0x12345678  /* immediate data of every send WQE */

struct ut_ctx {
	const char *dev_name;
	int gid_index;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch; /* of cq */
	struct ibv_cq *cq;	     /* send and receive CQ of every QP */
	union ibv_gid gid;
	uint8_t *buf;	   /* 2 * UT_BUF_SIZE, registered as mr */
	struct ibv_mr *mr; /* local write + all remote access */
};

int ut_open(struct ut_ctx *c, const char *dev_name, int gid_index);
void ut_fill(uint8_t *p, size_t n, unsigned int seed);

/* RESET -> INIT on port 1 with @access (RC/UC) or UT_QKEY (UD). */
int ut_init(struct ibv_qp *qp, unsigned int access);
/* A QP on c->cq with @cap (max_inline_data at least as asked), in INIT. */
struct ibv_qp *ut_qp_cap(struct ut_ctx *c, enum ibv_qp_type type,
			 struct ibv_srq *srq, unsigned int access,
			 const struct ibv_qp_cap *cap);
/* The same with 16 WRs of one SGE each way and no inline data. */
struct ibv_qp *ut_qp(struct ut_ctx *c, enum ibv_qp_type type,
		     struct ibv_srq *srq, unsigned int access);
/* INIT -> RTR towards @dqpn (rnr timer code 1, MTU 1024); UD: state only. */
int ut_rtr(struct ut_ctx *c, struct ibv_qp *qp, uint32_t dqpn);
/*
 * RTR -> RTS with @retry_cnt and @rnr_retry, the ACK timeout code
 * ut_ack_timeout (default 10, 4 ms: loopback answers at once) and
 * ut_max_rd_atomic (default 4).
 */
extern uint8_t ut_ack_timeout;
extern uint8_t ut_max_rd_atomic;
int ut_rts(struct ibv_qp *qp, uint8_t retry_cnt, uint8_t rnr_retry);
/* Both QPs INIT -> RTR -> RTS towards each other. */
int ut_connect(struct ut_ctx *c, struct ibv_qp *a, struct ibv_qp *b,
	       uint8_t rnr_retry);
enum ibv_qp_state ut_state(struct ibv_qp *qp);
/* A UD address handle to this port's own GID (GRH, hop limit 64), or NULL. */
struct ibv_ah *ut_self_ah(struct ut_ctx *c);

int ut_post_recv(struct ut_ctx *c, struct ibv_qp *qp, struct ibv_srq *srq,
		 uint64_t off, uint32_t len, uint64_t wr_id);

/* One send WQE: @len bytes at buf + @off (lkey of c->mr), imm UT_IMM. */
struct ut_send {
	enum ibv_wr_opcode op;
	uint64_t off;
	uint32_t len;
	unsigned int flags; /* IBV_SEND_* */
	uint64_t wr_id;
	uint64_t raddr; /* RDMA and atomics */
	uint32_t rkey;
	struct ibv_ah *ah; /* UD: the destination, with UT_QKEY */
	uint32_t dqpn;
};
int ut_post(struct ut_ctx *c, struct ibv_qp *qp, const struct ut_send *s);
/* A signaled WQE (atomics: compare_add 1). */
int ut_post_send(struct ut_ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
		 uint64_t off, uint32_t len, uint64_t wr_id, uint64_t raddr,
		 uint32_t rkey);

/* One completion of @cq within 5 s, or -1 (not a check). */
int ut_poll_one(struct ibv_cq *cq, struct ibv_wc *wc);
/* No completion of @cq after @ms milliseconds, or -1 (not a check). */
int ut_poll_none(struct ibv_cq *cq, int ms);
/* The next completion within 5 s, checked for wr_id and status. */
int ut_expect(struct ut_ctx *c, uint64_t wr_id, enum ibv_wc_status status,
	      struct ibv_wc *out);
/* The same, and on success also for @opcode and @byte_len (< 0: any). */
int ut_expect_op(struct ut_ctx *c, uint64_t wr_id, enum ibv_wc_status status,
		 enum ibv_wc_opcode opcode, int byte_len, struct ibv_wc *out);
/* The next two completions, in either order, returned by wr_id. */
int ut_poll_two(struct ut_ctx *c, uint64_t id1, uint64_t id2, struct ibv_wc *w1,
		struct ibv_wc *w2);
/* No completion for @ms milliseconds. */
int ut_no_wc(struct ut_ctx *c, int ms);

/* @want < 0: any length. */
static inline bool ut_len_ok(uint32_t got, long long want)
{
	return want < 0 || got == want;
}

/* A completion's status and, on success, opcode and byte_len (< 0: any). */
#define CHECK_WC(wc, st, op, len)                                              \
	do {                                                                   \
		CHECK((wc).status == (st),                                     \
		      "wr_id %llu: status %s, expected %s",                    \
		      (unsigned long long)(wc).wr_id,                          \
		      ibv_wc_status_str((wc).status), ibv_wc_status_str(st));  \
		CHECK((st) != IBV_WC_SUCCESS || (wc).opcode == (op),           \
		      "opcode %d, expected %d", (wc).opcode, (op));            \
		CHECK((st) != IBV_WC_SUCCESS ||                                \
			      ut_len_ok((wc).byte_len, (len)),                 \
		      "byte_len %u, expected %lld", (wc).byte_len,             \
		      (long long)(len));                                       \
	} while (0)

/*
 * The next async event (port and GID events are skipped) within 5 s must
 * be @type for @element (a QP, CQ or SRQ pointer).
 */
int ut_expect_event(struct ut_ctx *c, enum ibv_event_type type,
		    const void *element);
/* An async event of @type within 5 s, whatever comes before it. */
int ut_wait_event(struct ut_ctx *c, enum ibv_event_type type);
/* No async event (but port/GID events) for @ms milliseconds. */
int ut_no_event(struct ut_ctx *c, int ms);
/* Milliseconds of CLOCK_MONOTONIC since @t0. */
long long ut_ms_since(const struct timespec *t0);
/* How long ut_poll_one waits for a completion (default 5000 ms). */
extern int ut_poll_ms;
/* Port 1's hw counter @name (docs/prm.md 12), or -1 if unreadable. */
long long ut_counter(struct ut_ctx *c, const char *name);
/* Empties the CQ, after 20 ms for completions on their way. */
void ut_drain_cq(struct ut_ctx *c);
/* Empties the CQ and the async event queue. */
void ut_settle(struct ut_ctx *c);

/* Mappings of /dev/infiniband/uverbs* (UT_MAX_MAPS at most). */
#define UT_MAX_MAPS 256
struct ut_map {
	uintptr_t start, end;
	bool writable;
};
int ut_uverbs_maps(struct ut_map *m);

/*
 * Where a QP's doorbell record and rings are (docs/prm.md 1), as our
 * provider mapped them: for tests that write WQEs or indices behind the
 * provider's back.
 */
struct ut_qp_mem {
	volatile struct mlx_hw_qp_db *db;
	uint8_t *sq, *rq;		/* rq: NULL with an SRQ */
	uint32_t sq_stride, rq_stride;
};
void ut_qp_mem(struct ibv_qp *qp, struct ut_qp_mem *m);

/*
 * Runs the named sections (all without names) as check.h sections, the
 * device settled after each; an unknown name fails.  Exit status for main().
 */
struct ut_test {
	const char *name;
	int (*fn)(struct ut_ctx *c);
};
int ut_main(int argc, char **argv, const struct ut_test *tests, unsigned int n);

#endif /* HCA_UTIL_H */
