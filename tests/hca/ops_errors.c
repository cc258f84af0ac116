// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_ops sections of the error completions of docs/prm.md section 8 and
 * their flushes, and of an MR deregistered under a waiting WQE.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hca_ops.h"

/* Error completions and flushes. */
int test_errors(struct ut_ctx *c)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;
	struct ibv_wc wc, rwc;
	struct pair p;

	/* Bad lkey: local protection error; later WQEs flush. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	{
		struct ibv_sge sge = {(uintptr_t)c->buf, 8,
				      c->mr->lkey + 0x100};
		struct ibv_send_wr wr = {.wr_id = 1,
					 .sg_list = &sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_SEND},
				   *bad;

		CHECK(!ibv_post_send(p.a, &wr, &bad), "post");
		wr.wr_id = 2;
		sge.lkey = c->mr->lkey;
		CHECK(!ibv_post_send(p.a, &wr, &bad), "post");
	}
	CHECK(!ut_expect_op(c, 1, IBV_WC_LOC_PROT_ERR, 0, -1, NULL),
	      "bad lkey");
	CHECK(!ut_expect_op(c, 2, IBV_WC_WR_FLUSH_ERR, 0, -1, NULL), "flush");
	CHECK(!ibv_query_qp(p.a, &qa, IBV_QP_STATE, &ia) &&
		      qa.qp_state == IBV_QPS_ERR,
	      "qp state %d", qa.qp_state);
	pair_destroy(&p);

	/* Bad rkey: remote access error; the responder goes to ERR. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 9), "post_recv");
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, 64, 1,
			    (uintptr_t)c->buf + UT_DST, c->mr->rkey ^ 0x55),
	      "post");
	/* Two QPs' completions: in either order. */
	CHECK(!ut_poll_two(c, 1, 9, &wc, &rwc), "bad rkey: two completions");
	CHECK(wc.status == IBV_WC_REM_ACCESS_ERR, "bad rkey: %s",
	      ibv_wc_status_str(wc.status));
	CHECK(rwc.status == IBV_WC_WR_FLUSH_ERR, "resp flush: %s",
	      ibv_wc_status_str(rwc.status));
	/*
	 * Receives posted to a QP the engine moved to ERR are flushed (PRM
	 * 8), also when the post finds the engine asleep.
	 */
	usleep(100000);
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 10), "post_recv err");
	CHECK(!ut_expect_op(c, 10, IBV_WC_WR_FLUSH_ERR, 0, -1, NULL),
	      "flush of a receive posted in ERR");
	pair_destroy(&p);

	/* Out of bounds: remote access error too. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_READ, UT_SRC, 64, 1,
			    (uintptr_t)c->buf + 2 * UT_BUF_SIZE - 32,
			    c->mr->rkey),
	      "post");
	CHECK(!ut_expect_op(c, 1, IBV_WC_REM_ACCESS_ERR, 0, -1, NULL),
	      "bounds");
	pair_destroy(&p);

	/* Receive buffer too small. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 100, 9), "post_recv");
	CHECK(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 200, 1, 0, 0), "post");
	if (ut_poll_two(c, 1, 9, &wc, &rwc))
		return -1;
	CHECK_WC(wc, IBV_WC_REM_INV_REQ_ERR, 0, -1);
	CHECK_WC(rwc, IBV_WC_LOC_LEN_ERR, 0, -1);
	pair_destroy(&p);

	/* No receive posted: RNR NAKs, then RNR retry exceeded. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 2))
		return -1;
	CHECK(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 10, 1, 0, 0), "post");
	CHECK(!ut_expect_op(c, 1, IBV_WC_RNR_RETRY_EXC_ERR, 0, -1, NULL),
	      "rnr");
	pair_destroy(&p);

	/* RNR then a receive arrives: the retry succeeds. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	CHECK(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 10, 1, 0, 0), "post");
	usleep(10000);
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 9), "post_recv");
	if (ut_poll_two(c, 1, 9, &wc, &rwc))
		return -1;
	CHECK_WC(wc, IBV_WC_SUCCESS, IBV_WC_SEND, -1);
	CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, 10);
	pair_destroy(&p);

	/* Peer QP gone: transport retries exceeded. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	ibv_destroy_qp(p.b);
	p.b = NULL;
	CHECK(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 10, 1, 0, 0), "post");
	CHECK(!ut_expect_op(c, 1, IBV_WC_RETRY_EXC_ERR, 0, -1, NULL),
	      "retry exc");
	pair_destroy(&p);

	/* modify to ERR flushes posted receives. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 21), "post_recv");
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 22), "post_recv");
	qa.qp_state = IBV_QPS_ERR;
	CHECK(!ibv_modify_qp(p.b, &qa, IBV_QP_STATE), "modify err");
	CHECK(!ut_expect_op(c, 21, IBV_WC_WR_FLUSH_ERR, 0, -1, NULL),
	      "flush 1");
	CHECK(!ut_expect_op(c, 22, IBV_WC_WR_FLUSH_ERR, 0, -1, NULL),
	      "flush 2");
	usleep(100000);
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 23), "post_recv err");
	CHECK(!ut_expect_op(c, 23, IBV_WC_WR_FLUSH_ERR, 0, -1, NULL),
	      "flush of a receive posted after modify to ERR");
	pair_destroy(&p);
	ut_drain_cq(c);
	return 0;
}

/*
 * Deregistering an MR used by a WQE waiting for RNR retries returns at
 * once; when the WQE resumes it completes with a protection error.
 */
int test_dereg_waiting(struct ut_ctx *c)
{
	struct ibv_mr *mr = ibv_reg_mr(c->pd, c->buf + UT_SRC, 4096,
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = {(uintptr_t)c->buf + UT_SRC, 64, 0};
	struct ibv_send_wr wr = {.wr_id = 1,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct timespec t0, t1;
	struct pair p;
	long long rnr;
	int i;

	CHECK(mr, "reg_mr");
	sge.lkey = mr->lkey;
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	rnr = ut_counter(c, "rcvd_rnr_err");
	SETUP(rnr >= 0, "no rcvd_rnr_err counter");
	CHECK(!ibv_post_send(p.a, &wr, &bad), "post");
	/* Deregister only once the SEND was RNR NAKed and waits to resume. */
	for (i = 0; i < 500 && ut_counter(c, "rcvd_rnr_err") == rnr; i++)
		usleep(10000);
	CHECK(ut_counter(c, "rcvd_rnr_err") > rnr, "no RNR NAK in 5 s");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(!ibv_dereg_mr(mr), "dereg_mr: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec < 2, "dereg_mr waited for the RNR timer");
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 9), "post_recv");
	CHECK(!ut_expect_op(c, 1, IBV_WC_LOC_PROT_ERR, 0, -1, NULL),
	      "resumed WQE");
	pair_destroy(&p);
	ut_drain_cq(c);
	return 0;
}
