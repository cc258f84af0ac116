// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_ops sections of the error completions of docs/prm.md section 8 and
 * their flushes, of an MR deregistered under a waiting WQE, and of a WQE
 * parsed out of its slot again to be sent again.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mlx_hw-abi.h>
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
 * once; when the WQE resumes it completes with a protection error.  The
 * responder's RNR timer is the longest (code 0, 655 ms), so that the WQE
 * is waiting when the MR goes: with the 10 us of ut_connect() its retries
 * come back to back, and one built before the deregistration may carry
 * the data still (a WQE in flight on a deregistered MR: either outcome).
 */
int test_dereg_waiting(struct ut_ctx *c)
{
	struct ibv_qp_attr qa = {.min_rnr_timer = 0};
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
	CHECK(!ibv_modify_qp(p.b, &qa, IBV_QP_MIN_RNR_TIMER),
	      "RTS min_rnr_timer: %s", strerror(errno));
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

/*
 * Two SENDs in one post to a QP with no receive: the first is RNR NAKed
 * (timer code 0, 655 ms) after both went out, so the requester holds the
 * second's body and must parse the first out of SQ slot 0 again to send it
 * again (docs/prm.md 3.1).  Receives are posted during the wait.  With
 * @rewrite the first WQE's opcode is changed in its slot meanwhile.
 */
static int rnr_two_sends(struct ut_ctx *c, bool rewrite)
{
	struct ibv_qp_cap cap = {.max_send_wr = 8, .max_recv_wr = 8,
				 .max_send_sge = 1, .max_recv_sge = 1};
	struct ibv_qp_attr qa = {.min_rnr_timer = 0};
	struct ibv_sge sge[2] = {
		{(uintptr_t)c->buf + UT_SRC, 64, c->mr->lkey},
		{(uintptr_t)c->buf + UT_SRC + 64, 64, c->mr->lkey},
	};
	struct ibv_send_wr wr[2] = {
		{.wr_id = 1, .next = &wr[1], .sg_list = &sge[0], .num_sge = 1,
		 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED},
		{.wr_id = 2, .sg_list = &sge[1], .num_sge = 1,
		 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED},
	}, *bad;
	struct mlx_hw_wqe_ctrl *slot0;
	struct ibv_wc wc;
	struct pair p = {0};
	struct ut_qp_mem mem;
	unsigned int seen = 0;
	long long rnr;
	int i;

	p.a = ut_qp_cap(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE, &cap);
	p.b = ut_qp_cap(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE, &cap);
	CHECK(p.a && p.b, "create_qp: %s", strerror(errno));
	ut_qp_mem(p.a, &mem);
	slot0 = (struct mlx_hw_wqe_ctrl *)mem.sq;
	CHECK(!ut_connect(c, p.a, p.b, 7), "connect: %s", strerror(errno));
	CHECK(!ibv_modify_qp(p.b, &qa, IBV_QP_MIN_RNR_TIMER),
	      "RTS min_rnr_timer: %s", strerror(errno));
	ut_fill(c->buf + UT_SRC, 128, 9);
	memset(c->buf + UT_DST, 0, 128);
	rnr = ut_counter(c, "rcvd_rnr_err");
	SETUP(rnr >= 0, "no rcvd_rnr_err counter");
	CHECK(!ibv_post_send(p.a, wr, &bad), "post");
	for (i = 0; i < 500 && ut_counter(c, "rcvd_rnr_err") == rnr; i++)
		usleep(1000);
	CHECK(ut_counter(c, "rcvd_rnr_err") > rnr, "no RNR NAK in 0.5 s");
	CHECK(le64toh(slot0->wr_id) == 1 && slot0->opcode == MLX_HW_OP_SEND,
	      "SQ slot 0: wr_id %llu opcode %u",
	      (unsigned long long)le64toh(slot0->wr_id), slot0->opcode);
	if (rewrite)
		slot0->opcode = MLX_HW_OP_SEND_IMM;
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 11) &&
		      !ut_post_recv(c, p.b, NULL, UT_DST + 64, 64, 12),
	      "post_recv");
	if (rewrite) {
		CHECK(!ut_expect_op(c, 1, IBV_WC_LOC_QP_OP_ERR, 0, -1, NULL),
		      "rewritten WQE");
		CHECK(!ut_expect_op(c, 2, IBV_WC_WR_FLUSH_ERR, 0, -1, NULL),
		      "flush behind it");
		CHECK(!ut_expect_event(c, IBV_EVENT_QP_FATAL, p.a), "QP_FATAL");
		CHECK(!ut_no_wc(c, 100), "a receive completed");
	} else {
		for (i = 0; i < 4; i++) {
			CHECK(!ut_poll_one(c->cq, &wc), "completion %d of 4", i);
			CHECK(wc.status == IBV_WC_SUCCESS, "wr_id %llu: %s",
			      (unsigned long long)wc.wr_id,
			      ibv_wc_status_str(wc.status));
			CHECK(wc.wr_id < 32, "wr_id %llu",
			      (unsigned long long)wc.wr_id);
			seen |= 1u << wc.wr_id;
		}
		CHECK(seen == (1u << 1 | 1u << 2 | 1u << 11 | 1u << 12),
		      "completions %#x", seen);
		CHECK(!memcmp(c->buf + UT_DST, c->buf + UT_SRC, 128),
		      "data sent again differs");
	}
	pair_destroy(&p);
	ut_drain_cq(c);
	return 0;
}

int test_resend_parse(struct ut_ctx *c)
{
	if (rnr_two_sends(c, false))
		return -1;
	return rnr_two_sends(c, true);
}
