/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * hca_util - small helpers shared by the mlx_hw test programs that need
 * connected QP pairs over loopback and their async events.  Every helper
 * returns 0 on success and -1 after printing why.
 */
#ifndef HCA_UTIL_H
#define HCA_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <infiniband/verbs.h>

/*
 * CHECK is an assertion of a test: ut_checks counts every one evaluated, so
 * that a run reports how many assertions each section made.  UT_SETUP is a
 * step that only prepares one (open, create, connect, post): it fails the
 * same way but is not counted.
 */
extern unsigned int ut_checks;

#define UT_SETUP(cond, ...)                                                    \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL %s:%d: ", __func__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                          \
			fprintf(stderr, "\n");                                 \
			return -1;                                             \
		}                                                              \
	} while (0)

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		ut_checks++;                                                   \
		UT_SETUP(cond, __VA_ARGS__);                                   \
	} while (0)

#define UT_BUF_SIZE (1 << 16) /* each half of ut_ctx.buf */
#define UT_SRC 0	      /* offsets into ut_ctx.buf */
#define UT_DST UT_BUF_SIZE

#define UT_ACCESS_REMOTE                                                       \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                    \
	 IBV_ACCESS_REMOTE_ATOMIC)

struct ut_ctx {
	const char *dev_name;
	int gid_index;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq; /* send and receive CQ of every QP */
	union ibv_gid gid;
	uint8_t *buf;	   /* 2 * UT_BUF_SIZE, registered as mr */
	struct ibv_mr *mr; /* local write + all remote access */
};

int ut_open(struct ut_ctx *c, const char *dev_name, int gid_index);
void ut_fill(uint8_t *p, size_t n, unsigned int seed);

/* A QP in INIT; access: its qp_access_flags (RC/UC). */
struct ibv_qp *ut_qp(struct ut_ctx *c, enum ibv_qp_type type,
		     struct ibv_srq *srq, unsigned int access);
/* INIT -> RTR towards @dqpn (rnr timer code 1, MTU 1024). */
int ut_rtr(struct ut_ctx *c, struct ibv_qp *qp, uint32_t dqpn);
/* RTR -> RTS with @retry_cnt and @rnr_retry. */
int ut_rts(struct ibv_qp *qp, uint8_t retry_cnt, uint8_t rnr_retry);
/* Both QPs INIT -> RTR -> RTS towards each other. */
int ut_connect(struct ut_ctx *c, struct ibv_qp *a, struct ibv_qp *b,
	       uint8_t rnr_retry);
enum ibv_qp_state ut_state(struct ibv_qp *qp);

int ut_post_recv(struct ut_ctx *c, struct ibv_qp *qp, struct ibv_srq *srq,
		 uint64_t off, uint32_t len, uint64_t wr_id);
/* A signaled WQE of @len bytes at buf + @off (lkey of c->mr). */
int ut_post_send(struct ut_ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
		 uint64_t off, uint32_t len, uint64_t wr_id, uint64_t raddr,
		 uint32_t rkey);

/* The next completion within 5 s, checked for wr_id and status. */
int ut_expect(struct ut_ctx *c, uint64_t wr_id, enum ibv_wc_status status,
	      struct ibv_wc *out);
/* No completion for @ms milliseconds. */
int ut_no_wc(struct ut_ctx *c, int ms);

/*
 * The next async event (port and GID events are skipped) within 5 s must
 * be @type for @element (a QP, CQ or SRQ pointer).
 */
int ut_expect_event(struct ut_ctx *c, enum ibv_event_type type,
		    const void *element);
/* No async event (but port/GID events) for @ms milliseconds. */
int ut_no_event(struct ut_ctx *c, int ms);

/*
 * Runs the named tests (all without names), each reported as PASS or FAIL
 * with the number of checks it made; exit status for main().
 */
struct ut_test {
	const char *name;
	int (*fn)(struct ut_ctx *c);
};
int ut_main(int argc, char **argv, const struct ut_test *tests, unsigned int n);
/* The line ut_main ends with: sections and the checks they made. */
void ut_summary(unsigned int passed, unsigned int failed, unsigned int checks);

#endif /* HCA_UTIL_H */
