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
