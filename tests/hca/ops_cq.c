// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_ops sections of the CQ: completion events through the channel,
 * overrun and resize.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include "hca_ops.h"

/* Completion events through the channel (arm protocol). */
int test_events(struct ut_ctx *c)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct pair p;
	struct ibv_wc wc;
	struct pollfd pfd = {.fd = c->ch->fd, .events = POLLIN};

	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	CHECK(!ibv_req_notify_cq(c->cq, 0), "arm");
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 9), "post_recv");
	CHECK(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 10, 1, 0, 0), "post");
	CHECK(poll(&pfd, 1, 5000) == 1, "no completion event");
	CHECK(!ibv_get_cq_event(c->ch, &ev_cq, &ev_ctx) && ev_cq == c->cq,
	      "get_cq_event");
	ibv_ack_cq_events(ev_cq, 1);
	CHECK(!ut_poll_one(c->cq, &wc) && !ut_poll_one(c->cq, &wc), "2 CQEs");

	/* Arming with unpolled CQEs fires at once. */
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 10), "post_recv");
	CHECK(!ut_post_send(c, p.a, IBV_WR_SEND, UT_SRC, 10, 2, 0, 0), "post");
	usleep(50000);
	CHECK(!ibv_req_notify_cq(c->cq, 0), "arm");
	CHECK(poll(&pfd, 1, 5000) == 1, "no event for unpolled CQEs");
	CHECK(!ibv_get_cq_event(c->ch, &ev_cq, &ev_ctx), "get_cq_event");
	ibv_ack_cq_events(ev_cq, 1);
	ut_drain_cq(c);

	/* Solicited-only: an unsolicited message does not fire, one does. */
	CHECK(!ibv_req_notify_cq(c->cq, 1), "arm solicited");
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 11), "post_recv");
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 12), "post_recv");
	CHECK(!ut_post(c, p.a,
		       &(struct ut_send){.op = IBV_WR_SEND,
					 .off = UT_SRC,
					 .len = 10,
					 .wr_id = 3}),
	      "post");
	CHECK(poll(&pfd, 1, 300) == 0, "event for an unsolicited message");
	CHECK(!ut_expect_op(c, 11, IBV_WC_SUCCESS, IBV_WC_RECV, 10, NULL),
	      "recv");
	CHECK(!ut_post(c, p.a,
		       &(struct ut_send){.op = IBV_WR_SEND,
					 .off = UT_SRC,
					 .len = 10,
					 .flags = IBV_SEND_SOLICITED,
					 .wr_id = 4}),
	      "post");
	CHECK(poll(&pfd, 1, 5000) == 1, "no event for a solicited message");
	CHECK(!ibv_get_cq_event(c->ch, &ev_cq, &ev_ctx), "get_cq_event");
	ibv_ack_cq_events(ev_cq, 1);
	CHECK(!ut_expect_op(c, 12, IBV_WC_SUCCESS, IBV_WC_RECV, 10, NULL),
	      "recv");
	ut_drain_cq(c);
	pair_destroy(&p);
	return 0;
}

/*
 * Replaces p->a by an RC QP whose sends complete on @send_cq, connected to
 * p->b (which only responds: its own destination does not matter).
 */
static int pair_use_send_cq(struct ut_ctx *c, struct pair *p,
			    struct ibv_cq *send_cq, uint32_t max_send_wr)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = send_cq,
		.recv_cq = c->cq,
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = max_send_wr,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};

	struct ibv_qp_attr reset = {.qp_state = IBV_QPS_RESET};

	ibv_destroy_qp(p->a);
	p->a = ibv_create_qp(c->pd, &ia);
	CHECK(p->a, "create_qp");
	CHECK(!ut_init(p->a, IBV_ACCESS_REMOTE_WRITE), "init");
	/* b answers to a's QP number: connect it to the new a. */
	CHECK(!ibv_modify_qp(p->b, &reset, IBV_QP_STATE) &&
	      !ut_init(p->b, UT_ACCESS_REMOTE), "reset b");
	CHECK(!ut_rtr(c, p->a, p->b->qp_num) && !ut_rtr(c, p->b, p->a->qp_num) &&
	      !ut_rts(p->a, 2, 7) && !ut_rts(p->b, 2, 7), "connect");
	return 0;
}

/* CQ overrun raises IBV_EVENT_CQ_ERR. */
int test_cq_overrun(struct ut_ctx *c)
{
	struct ibv_cq *small = ibv_create_cq(c->ctx, 4, NULL, NULL, 0);
	struct pair p;
	int i;

	CHECK(small, "create_cq");
	if (pair_create(c, &p, IBV_QPT_RC, false, 7) ||
	    pair_use_send_cq(c, &p, small, 16))
		return -1;
	for (i = 0; i < 12; i++)
		CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, 8, i,
				    (uintptr_t)c->buf + UT_DST, c->mr->rkey),
		      "post %d", i);
	if (ut_wait_event(c, IBV_EVENT_CQ_ERR))
		return -1;
	pair_destroy(&p);
	ibv_destroy_cq(small);
	ut_drain_cq(c);
	return 0;
}

/* Posts @n signaled 1-byte RDMA WRITEs, wr_id first.., byte i = wr_id. */
static int post_writes(struct ut_ctx *c, struct ibv_qp *qp, int first, int n)
{
	int i;

	for (i = first; i < first + n; i++) {
		c->buf[UT_SRC + i] = (uint8_t)(i + 1);
		CHECK(!ut_post_send(c, qp, IBV_WR_RDMA_WRITE, UT_SRC + i, 1, i,
				    (uintptr_t)c->buf + UT_DST + i,
				    c->mr->rkey),
		      "post %d", i);
	}
	return 0;
}

/* Polls wr_ids first..first+n-1, in order, all successful. */
static int poll_writes(struct ibv_cq *cq, int first, int n)
{
	struct ibv_wc wc;
	int i;

	for (i = first; i < first + n; i++) {
		CHECK(!ut_poll_one(cq, &wc), "completion %d missing", i);
		CHECK(wc.wr_id == (uint64_t)i && wc.status == IBV_WC_SUCCESS,
		      "wr_id %llu status %s, expected %d",
		      (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status), i);
	}
	return ut_poll_none(cq, 50);
}

/*
 * Resizing a CQ keeps the unpolled completions, in order, whether the
 * engine wrote them before or after the switch; fewer entries than are
 * outstanding and more than max_cqe are EINVAL.
 */
int test_cq_resize(struct ut_ctx *c)
{
	struct ibv_cq *cq = ibv_create_cq(c->ctx, 4, NULL, NULL, 0);
	struct ibv_device_attr da;
	struct pair p;
	int i;

	CHECK(cq && cq->cqe == 4, "create_cq");
	CHECK(!ibv_query_device(c->ctx, &da), "query_device");
	if (pair_create(c, &p, IBV_QPT_RC, false, 7) ||
	    pair_use_send_cq(c, &p, cq, 128))
		return -1;

	/* Three completions waiting: two entries are too few. */
	memset(c->buf + UT_DST, 0, 256);
	if (post_writes(c, p.a, 0, 3))
		return -1;
	for (i = 0; i < 5000 && c->buf[UT_DST + 2] != 3; i++)
		usleep(1000);
	/* The CQEs follow the ACK, right after the data. */
	usleep(100000);
	CHECK(ibv_resize_cq(cq, 2) == EINVAL, "resize below outstanding");
	CHECK(ibv_resize_cq(cq, da.max_cqe + 1) == EINVAL, "resize > max");
	CHECK(cq->cqe == 4, "cqe %d after failed resizes", cq->cqe);
	CHECK(ibv_resize_cq(cq, 33) == 0 && cq->cqe == 64, "grow: cqe %d",
	      cq->cqe);
	if (poll_writes(cq, 0, 3))
		return -1;
	/* More than the old ring held, without an overrun. */
	if (post_writes(c, p.a, 3, 40) || poll_writes(cq, 3, 40))
		return -1;
	/* Resize while the engine is writing completions. */
	if (post_writes(c, p.a, 43, 50))
		return -1;
	CHECK(ibv_resize_cq(cq, 100) == 0 && cq->cqe == 128, "grow busy");
	if (poll_writes(cq, 43, 50))
		return -1;
	/* Shrink an empty CQ; it still works. */
	CHECK(ibv_resize_cq(cq, 5) == 0 && cq->cqe == 8, "shrink: cqe %d",
	      cq->cqe);
	if (post_writes(c, p.a, 93, 8) || poll_writes(cq, 93, 8))
		return -1;
	for (i = 0; i < 101; i++)
		CHECK(c->buf[UT_DST + i] == (uint8_t)(i + 1), "byte %d", i);
	pair_destroy(&p);
	CHECK(!ibv_destroy_cq(cq), "destroy_cq");
	ut_drain_cq(c);
	return 0;
}
