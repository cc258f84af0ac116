// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* hca_ops sections of async events: SRQ limit reached, SQ drained. */
#include <errno.h>
#include <string.h>
#include "hca_ops.h"

/* The SRQ limit event fires once when the level drops below the limit. */
int test_srq_limit(struct ut_ctx *c)
{
	struct ibv_srq_attr sa = {.srq_limit = 2};
	struct ibv_wc wc, rwc;
	struct pair p;
	int i;

	if (pair_create(c, &p, IBV_QPT_RC, true, 7))
		return -1;
	for (i = 0; i < 3; i++)
		CHECK(!ut_post_recv(c, NULL, p.srq, UT_DST + i * 64, 64,
				    100 + i),
		      "r");
	CHECK(!ibv_modify_srq(p.srq, &sa, IBV_SRQ_LIMIT), "modify_srq");
	for (i = 0; i < 2; i++) {
		CHECK(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 10, i, 0, 0),
		      "post");
		if (ut_poll_two(c, i, 100 + i, &wc, &rwc))
			return -1;
		CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, 10);
	}
	if (ut_wait_event(c, IBV_EVENT_SRQ_LIMIT_REACHED))
		return -1;
	pair_destroy(&p);
	ut_drain_cq(c);
	return 0;
}

/* RTS -> SQD raises SQ_DRAINED; WQEs posted in SQD run after SQD -> RTS. */
int test_sqd(struct ut_ctx *c)
{
	struct ibv_qp_attr qa = {.qp_state = IBV_QPS_SQD,
				 .en_sqd_async_notify = 1};
	struct ibv_wc wc, rwc;
	struct pair p;

	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	CHECK(!ibv_modify_qp(p.a, &qa,
			     IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY),
	      "to SQD: %s", strerror(errno));
	if (ut_wait_event(c, IBV_EVENT_SQ_DRAINED))
		return -1;
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 9), "post_recv");
	CHECK(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 10, 1, 0, 0), "post");
	CHECK(!ut_poll_none(c->cq, 50), "a WQE ran in SQD");
	qa.qp_state = IBV_QPS_RTS;
	CHECK(!ibv_modify_qp(p.a, &qa, IBV_QP_STATE), "to RTS: %s",
	      strerror(errno));
	if (ut_poll_two(c, 1, 9, &wc, &rwc))
		return -1;
	CHECK_WC(wc, IBV_WC_SUCCESS, IBV_WC_SEND, -1);
	CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, 10);
	pair_destroy(&p);
	return 0;
}

/*
 * MODIFY_SRQ with IBV_SRQ_MAX_WR (PRM 5.1): WQEs posted before a resize
 * are taken after it, in order; the grown SRQ holds more than the old
 * size; a size below the WQEs waiting, or below an armed limit, is refused
 * and leaves the SRQ as it was; a shrunk SRQ refuses the post beyond it.
 */
int test_srq_resize(struct ut_ctx *c)
{
	struct ibv_srq_attr sa = {};
	struct ibv_wc wc, rwc;
	struct pair p;
	int i;

	if (pair_create(c, &p, IBV_QPT_RC, true, 7)) /* SRQ of 64 */
		return -1;
	for (i = 0; i < 40; i++)
		SETUP(!ut_post_recv(c, NULL, p.srq, UT_DST + i * 64, 64,
				       1000 + i), "post_recv %d", i);
	sa.max_wr = 16;
	CHECK(ibv_modify_srq(p.srq, &sa, IBV_SRQ_MAX_WR) == EINVAL,
	      "shrink below the 40 waiting");
	sa.max_wr = 200;
	CHECK(!ibv_modify_srq(p.srq, &sa, IBV_SRQ_MAX_WR), "grow: %s",
	      strerror(errno));
	CHECK(!ibv_query_srq(p.srq, &sa) && sa.max_wr == 256,
	      "max_wr %u after growing to 200", sa.max_wr);
	for (i = 40; i < 190; i++)
		CHECK(!ut_post_recv(c, NULL, p.srq, UT_DST + i * 64, 64,
				    1000 + i), "post_recv %d of 190", i);
	for (i = 0; i < 190; i++) {
		SETUP(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 8, i, 0, 0),
			 "post_send %d", i);
		if (ut_poll_two(c, i, 1000 + i, &wc, &rwc))
			return -1;
		CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, 8);
	}
	sa.max_wr = 32;
	sa.srq_limit = 64;
	CHECK(ibv_modify_srq(p.srq, &sa, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT) ==
	      EINVAL, "limit above the new size");
	sa.srq_limit = 0;
	CHECK(!ibv_modify_srq(p.srq, &sa, IBV_SRQ_MAX_WR), "shrink: %s",
	      strerror(errno));
	CHECK(!ibv_query_srq(p.srq, &sa) && sa.max_wr == 32,
	      "max_wr %u after shrinking to 32", sa.max_wr);
	for (i = 0; i < 32; i++)
		CHECK(!ut_post_recv(c, NULL, p.srq, UT_DST + i * 64, 64,
				    2000 + i), "post_recv %d of 32", i);
	{
		struct ibv_sge sge = {(uintptr_t)c->buf + UT_DST, 64,
				      c->mr->lkey};
		struct ibv_recv_wr wr = {.wr_id = 3000, .sg_list = &sge,
					 .num_sge = 1}, *bad;

		CHECK(ibv_post_srq_recv(p.srq, &wr, &bad) == ENOMEM,
		      "a 33rd WQE fit in an SRQ of 32");
	}
	SETUP(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 8, 500, 0, 0),
		 "post_send");
	if (ut_poll_two(c, 500, 2000, &wc, &rwc))
		return -1;
	CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, 8);
	pair_destroy(&p);
	ut_drain_cq(c);
	return 0;
}
