// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_ops - data-path tests of the mlx_hw device through our libibverbs:
 * every opcode and QP type over loopback between two QPs of one device,
 * data verified byte for byte, and the error completions of docs/prm.md
 * section 8.
 *
 *   hca_ops [-d DEV] [-g GID_INDEX] [TEST...]     (default: all tests)
 *
 * Exit 0 if every test passed.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "hca_util.h"

struct pair {
	struct ibv_qp *a, *b; /* a sends to b and b to a */
	struct ibv_srq *srq;
};

static int pair_create(struct ut_ctx *c, struct pair *p, enum ibv_qp_type type,
		       bool use_srq, uint8_t rnr_retry)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 64,
		.max_recv_wr = 64,
		.max_send_sge = 4,
		.max_recv_sge = 4,
		.max_inline_data = 64,
	};
	unsigned int access =
		type == IBV_QPT_UC ? IBV_ACCESS_REMOTE_WRITE : UT_ACCESS_REMOTE;

	memset(p, 0, sizeof(*p));
	if (use_srq) {
		struct ibv_srq_init_attr sa = {
			.attr = {.max_wr = 64, .max_sge = 4}};

		p->srq = ibv_create_srq(c->pd, &sa);
		CHECK(p->srq, "create_srq: %s", strerror(errno));
	}
	p->a = ut_qp_cap(c, type, NULL, access, &cap);
	p->b = ut_qp_cap(c, type, p->srq, access, &cap);
	CHECK(p->a && p->b, "create_qp: %s", strerror(errno));
	CHECK(!ut_connect(c, p->a, p->b, rnr_retry), "connect: %s",
	      strerror(errno));
	return 0;
}

static void pair_destroy(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->srq)
		ibv_destroy_srq(p->srq);
}

/* RC/UC SEND of several sizes (multi-packet at MTU 1024), with and w/o SRQ. */
static int send_sizes(struct ut_ctx *c, enum ibv_qp_type type, bool srq)
{
	static const uint32_t sizes[] = {0,    1,    63,    1024,
					 1025, 4096, 65536, 300000};
	struct pair p;
	struct ibv_wc wc, rwc;
	unsigned int i;

	if (pair_create(c, &p, type, srq, 7))
		return -1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];

		ut_fill(c->buf + UT_SRC, n, i + 1);
		memset(c->buf + UT_DST, 0xee, n + 16);
		CHECK(!ut_post_recv(c, p.b, p.srq, UT_DST, UT_BUF_SIZE / 2,
				    1000 + i),
		      "post_recv");
		CHECK(!ut_post_send(c, p.a,
				    i & 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
				    UT_SRC, n, i, 0, 0),
		      "post_send");
		if (ut_poll_two(c, i, 1000 + i, &wc, &rwc))
			return -1;
		CHECK_WC(wc, IBV_WC_SUCCESS, IBV_WC_SEND, -1);
		CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, n);
		CHECK(!(i & 1) || ((rwc.wc_flags & IBV_WC_WITH_IMM) &&
				   ntohl(rwc.imm_data) == UT_IMM),
		      "immediate data");
		CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, n),
		      "data size %u", n);
		CHECK(c->buf[UT_DST + n] == 0xee, "overrun after %u", n);
	}
	pair_destroy(&p);
	return 0;
}

static int test_rc_send(struct ut_ctx *c)
{
	return send_sizes(c, IBV_QPT_RC, false);
}
static int test_uc_send(struct ut_ctx *c)
{
	return send_sizes(c, IBV_QPT_UC, false);
}
static int test_srq_send(struct ut_ctx *c)
{
	return send_sizes(c, IBV_QPT_RC, true);
}

/* RDMA WRITE, WRITE with immediate, READ; RC and (WRITE) UC. */
static int rdma_ops(struct ut_ctx *c, enum ibv_qp_type type)
{
	struct pair p;
	struct ibv_wc wc, rwc;
	uint32_t n = 200000;

	if (pair_create(c, &p, type, false, 7))
		return -1;
	ut_fill(c->buf + UT_SRC, n, 3);
	memset(c->buf + UT_DST, 0, n);
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, n, 1,
			    (uintptr_t)c->buf + UT_DST, c->mr->rkey),
	      "post");
	CHECK(!ut_expect_op(c, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, -1, NULL),
	      "w");
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, n), "write data");

	ut_fill(c->buf + UT_SRC, n, 4);
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST + n, 16, 77), "post_recv");
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE_WITH_IMM, UT_SRC, n, 2,
			    (uintptr_t)c->buf + UT_DST, c->mr->rkey),
	      "post");
	if (ut_poll_two(c, 2, 77, &wc, &rwc))
		return -1;
	CHECK_WC(wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, -1);
	CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, n);
	CHECK((rwc.wc_flags & IBV_WC_WITH_IMM) && ntohl(rwc.imm_data) == UT_IMM,
	      "write immediate");
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, n), "write imm data");

	if (type == IBV_QPT_RC) {
		ut_fill(c->buf + UT_DST, n, 5);
		memset(c->buf + UT_SRC, 0, n);
		CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_READ, UT_SRC, n, 3,
				    (uintptr_t)c->buf + UT_DST, c->mr->rkey),
		      "post");
		CHECK(!ut_expect_op(c, 3, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, n,
				    NULL),
		      "read");
		CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, n),
		      "read data");
	}
	ut_drain_cq(c);
	pair_destroy(&p);
	return 0;
}

static int test_rc_rdma(struct ut_ctx *c)
{
	return rdma_ops(c, IBV_QPT_RC);
}
static int test_uc_rdma(struct ut_ctx *c)
{
	return rdma_ops(c, IBV_QPT_UC);
}

static int test_atomics(struct ut_ctx *c)
{
	uint64_t *target = (uint64_t *)(c->buf + UT_DST),
		 *res = (uint64_t *)c->buf;
	struct ibv_sge sge = {(uintptr_t)res, 8, c->mr->lkey};
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct pair p;

	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	*target = 40;
	wr.wr_id = 1;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = c->mr->rkey;
	wr.wr.atomic.compare_add = 2;
	CHECK(!ibv_post_send(p.a, &wr, &bad), "post");
	CHECK(!ut_expect_op(c, 1, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, -1, NULL),
	      "fa");
	CHECK(*res == 40 && *target == 42, "fetch_add %llu %llu",
	      (unsigned long long)*res, (unsigned long long)*target);

	wr.wr_id = 2;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 0x1122334455667788ull;
	CHECK(!ibv_post_send(p.a, &wr, &bad), "post");
	CHECK(!ut_expect_op(c, 2, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, -1, NULL),
	      "cs");
	CHECK(*res == 42 && *target == 0x1122334455667788ull, "cmp_swp hit");

	wr.wr_id = 3; /* compare fails: no swap */
	wr.wr.atomic.swap = 7;
	CHECK(!ibv_post_send(p.a, &wr, &bad), "post");
	CHECK(!ut_expect_op(c, 3, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, -1, NULL),
	      "cs");
	CHECK(*res == 0x1122334455667788ull && *target == 0x1122334455667788ull,
	      "cmp_swp miss");

	wr.wr_id = 4; /* misaligned: remote invalid request */
	wr.wr.atomic.remote_addr = (uintptr_t)target + 4;
	CHECK(!ibv_post_send(p.a, &wr, &bad), "post");
	CHECK(!ut_expect_op(c, 4, IBV_WC_REM_INV_REQ_ERR, 0, -1, NULL),
	      "misaligned");
	ut_drain_cq(c);
	pair_destroy(&p);
	return 0;
}

/* Inline sends and unsignaled WQEs (only the signaled one completes). */
static int test_inline_unsignaled(struct ut_ctx *c)
{
	struct pair p;
	int i;

	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	for (i = 0; i < 3; i++)
		CHECK(!ut_post_recv(c, p.b, NULL, UT_DST + i * 64, 64, 100 + i),
		      "r");
	ut_fill(c->buf + UT_SRC, 64, 9);
	CHECK(!ut_post(c, p.a,
		       &(struct ut_send){.op = IBV_WR_SEND,
					 .off = UT_SRC,
					 .len = 50,
					 .flags = IBV_SEND_INLINE,
					 .wr_id = 1}),
	      "post");
	CHECK(!ut_post(c, p.a,
		       &(struct ut_send){.op = IBV_WR_SEND,
					 .off = UT_SRC,
					 .len = 60,
					 .flags = IBV_SEND_INLINE,
					 .wr_id = 2}),
	      "post");
	/* The source changes after posting: inline data was copied. */
	CHECK(!ut_post(c, p.a,
		       &(struct ut_send){.op = IBV_WR_SEND,
					 .off = UT_SRC,
					 .len = 64,
					 .flags = IBV_SEND_INLINE |
						  IBV_SEND_SIGNALED,
					 .wr_id = 3}),
	      "post");
	memset(c->buf + UT_SRC, 0, 64);
	for (i = 0; i < 4; i++) {
		struct ibv_wc wc;

		CHECK(!ut_poll_one(c->cq, &wc), "completion %d", i);
		CHECK(wc.status == IBV_WC_SUCCESS, "status %s",
		      ibv_wc_status_str(wc.status));
		CHECK(wc.wr_id == 3 || (wc.wr_id >= 100 && wc.wr_id < 103),
		      "unexpected wr_id %llu", (unsigned long long)wc.wr_id);
	}
	ut_fill(c->buf + UT_SRC, 64, 9);
	CHECK(!memcmp(c->buf + UT_DST, c->buf + UT_SRC, 50) &&
		      !memcmp(c->buf + UT_DST + 64, c->buf + UT_SRC, 60) &&
		      !memcmp(c->buf + UT_DST + 128, c->buf + UT_SRC, 64),
	      "inline data");
	CHECK(!ut_poll_none(c->cq, 50), "extra completion");
	pair_destroy(&p);
	return 0;
}

/* UD: GRH in front of the payload, source QP, Q_Key mismatch dropped. */
static int test_ud(struct ut_ctx *c)
{
	struct ibv_ah_attr aa = {.is_global = 1,
				 .port_num = 1,
				 .grh = {.dgid = c->gid,
					 .sgid_index = c->gid_index,
					 .hop_limit = 64}};
	struct ibv_qp_attr qa = {.qkey = UT_QKEY + 1};
	struct ibv_ah *ah;
	struct ibv_wc swc, wc;
	struct pair p;
	uint32_t n = 512;

	if (pair_create(c, &p, IBV_QPT_UD, false, 7))
		return -1;
	ah = ibv_create_ah(c->pd, &aa);
	CHECK(ah, "create_ah: %s", strerror(errno));
	ut_fill(c->buf + UT_SRC, n, 11);
	memset(c->buf + UT_DST, 0, n + 40);
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, n + 40, 50), "post_recv");
	CHECK(!ut_post(c, p.a,
		       &(struct ut_send){.op = IBV_WR_SEND_WITH_IMM,
					 .off = UT_SRC,
					 .len = n,
					 .flags = IBV_SEND_SIGNALED,
					 .wr_id = 1,
					 .ah = ah,
					 .dqpn = p.b->qp_num}),
	      "post");
	if (ut_poll_two(c, 1, 50, &swc, &wc))
		return -1;
	CHECK_WC(swc, IBV_WC_SUCCESS, IBV_WC_SEND, -1);
	CHECK_WC(wc, IBV_WC_SUCCESS, IBV_WC_RECV, n + 40);
	CHECK(wc.wc_flags & IBV_WC_GRH, "no GRH flag");
	CHECK(wc.src_qp == p.a->qp_num, "src_qp %u", wc.src_qp);
	CHECK(!memcmp(c->buf + UT_DST + 40, c->buf + UT_SRC, n), "ud payload");
	if (c->gid.raw[10] == 0xff && c->gid.raw[11] == 0xff) {
		/* IPv4-mapped: IPv4 header at byte 20, addresses our own. */
		CHECK(c->buf[UT_DST + 20] == 0x45, "IPv4 header %#x",
		      c->buf[UT_DST + 20]);
		CHECK(!memcmp(c->buf + UT_DST + 32, &c->gid.raw[12], 4) &&
			      !memcmp(c->buf + UT_DST + 36, &c->gid.raw[12], 4),
		      "IPv4 addresses");
	}

	/* Wrong Q_Key: silently dropped, the receive stays posted. */
	CHECK(!ibv_modify_qp(p.b, &qa, IBV_QP_QKEY), "modify qkey");
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, n + 40, 51), "post_recv");
	CHECK(!ut_post(c, p.a,
		       &(struct ut_send){.op = IBV_WR_SEND,
					 .off = UT_SRC,
					 .len = n,
					 .flags = IBV_SEND_SIGNALED,
					 .wr_id = 2,
					 .ah = ah,
					 .dqpn = p.b->qp_num}),
	      "post");
	CHECK(!ut_expect_op(c, 2, IBV_WC_SUCCESS, IBV_WC_SEND, -1, NULL),
	      "send");
	CHECK(!ut_poll_none(c->cq, 50),
	      "datagram with a wrong Q_Key delivered");
	ibv_destroy_ah(ah);
	pair_destroy(&p);
	ut_drain_cq(c);
	return 0;
}

/* Error completions and flushes. */
static int test_errors(struct ut_ctx *c)
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
	CHECK(!ut_expect_op(c, 1, IBV_WC_REM_ACCESS_ERR, 0, -1, NULL),
	      "bad rkey");
	CHECK(!ut_expect_op(c, 9, IBV_WC_WR_FLUSH_ERR, 0, -1, NULL),
	      "resp flush");
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
	pair_destroy(&p);
	ut_drain_cq(c);
	return 0;
}

/* Completion events through the channel (arm protocol). */
static int test_events(struct ut_ctx *c)
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

/* Memory windows: type 1 (ibv_bind_mw) and type 2 (BIND_MW, LOCAL_INV). */
static int test_mw(struct ut_ctx *c)
{
	struct ibv_mr *mr =
		ibv_reg_mr(c->pd, c->buf + UT_DST, UT_BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw1, *mw2;
	struct ibv_mw_bind mb = {
		.wr_id = 5,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {.mr = mr,
			      .addr = (uintptr_t)c->buf + UT_DST + 4096,
			      .length = 8192,
			      .mw_access_flags = IBV_ACCESS_REMOTE_WRITE},
	};
	struct ibv_send_wr wr = {.wr_id = 6,
				 .opcode = IBV_WR_BIND_MW,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct pair p;

	CHECK(mr, "reg_mr MW_BIND: %s", strerror(errno));
	mw1 = ibv_alloc_mw(c->pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(c->pd, IBV_MW_TYPE_2);
	CHECK(mw1 && mw2, "alloc_mw: %s", strerror(errno));
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;

	CHECK(!ibv_bind_mw(p.b, mw1, &mb), "bind_mw: %s", strerror(errno));
	CHECK(!ut_expect_op(c, 5, IBV_WC_SUCCESS, IBV_WC_BIND_MW, -1, NULL),
	      "bind");
	ut_fill(c->buf + UT_SRC, 8192, 21);
	memset(c->buf + UT_DST, 0, 3 * 4096);
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, 8192, 1,
			    (uintptr_t)c->buf + UT_DST + 4096, mw1->rkey),
	      "post");
	CHECK(!ut_expect_op(c, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, -1, NULL),
	      "w");
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST + 4096, 8192),
	      "mw data");

	/* Type 2: bound to the responder QP p.b by a BIND_MW WQE. */
	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = ibv_inc_rkey(mw2->rkey);
	wr.bind_mw.bind_info = mb.bind_info;
	CHECK(!ibv_post_send(p.b, &wr, &bad), "post bind");
	CHECK(!ut_expect_op(c, 6, IBV_WC_SUCCESS, IBV_WC_BIND_MW, -1, NULL),
	      "bind2");
	ut_fill(c->buf + UT_SRC, 100, 22);
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, 100, 2,
			    (uintptr_t)c->buf + UT_DST + 4096, wr.bind_mw.rkey),
	      "post");
	CHECK(!ut_expect_op(c, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, -1, NULL),
	      "w2");
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST + 4096, 100),
	      "mw2 data");

	/* Outside the window: remote access error. */
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, 100, 3,
			    (uintptr_t)c->buf + UT_DST, mw1->rkey),
	      "post");
	CHECK(!ut_expect_op(c, 3, IBV_WC_REM_ACCESS_ERR, 0, -1, NULL),
	      "outside");
	pair_destroy(&p);
	ut_drain_cq(c);

	/* LOCAL_INV of the type 2 window: later use fails. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	{
		struct ibv_send_wr inv = {.wr_id = 7,
					  .opcode = IBV_WR_LOCAL_INV,
					  .send_flags = IBV_SEND_SIGNALED,
					  .invalidate_rkey = wr.bind_mw.rkey};

		CHECK(!ibv_post_send(p.b, &inv, &bad), "post inv");
		CHECK(!ut_expect_op(c, 7, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, -1,
				    NULL),
		      "local inv");
	}
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, 100, 8,
			    (uintptr_t)c->buf + UT_DST + 4096, wr.bind_mw.rkey),
	      "post");
	CHECK(!ut_expect_op(c, 8, IBV_WC_REM_ACCESS_ERR, 0, -1, NULL),
	      "after inv");
	pair_destroy(&p);
	ut_drain_cq(c);

	/* Bound again, then invalidated remotely by SEND_WITH_INV. */
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	wr.wr_id = 9;
	wr.bind_mw.rkey = ibv_inc_rkey(wr.bind_mw.rkey);
	CHECK(!ibv_post_send(p.b, &wr, &bad), "post bind");
	CHECK(!ut_expect_op(c, 9, IBV_WC_SUCCESS, IBV_WC_BIND_MW, -1, NULL),
	      "rebind");
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 10), "post_recv");
	{
		struct ibv_sge sge = {(uintptr_t)c->buf + UT_SRC, 16,
				      c->mr->lkey};
		struct ibv_send_wr sw = {.wr_id = 11,
					 .sg_list = &sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_SEND_WITH_INV,
					 .send_flags = IBV_SEND_SIGNALED,
					 .invalidate_rkey = wr.bind_mw.rkey};
		struct ibv_wc swc, rwc;

		CHECK(!ibv_post_send(p.a, &sw, &bad), "post send_inv");
		if (ut_poll_two(c, 11, 10, &swc, &rwc))
			return -1;
		CHECK_WC(swc, IBV_WC_SUCCESS, IBV_WC_SEND, -1);
		CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, 16);
		CHECK((rwc.wc_flags & IBV_WC_WITH_INV) &&
			      rwc.invalidated_rkey == wr.bind_mw.rkey,
		      "invalidated rkey %#x flags %#x", rwc.invalidated_rkey,
		      rwc.wc_flags);
	}
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, 100, 12,
			    (uintptr_t)c->buf + UT_DST + 4096, wr.bind_mw.rkey),
	      "post");
	CHECK(!ut_expect_op(c, 12, IBV_WC_REM_ACCESS_ERR, 0, -1, NULL),
	      "after send_inv");
	pair_destroy(&p);
	ut_drain_cq(c);
	CHECK(!ibv_dealloc_mw(mw1) && !ibv_dealloc_mw(mw2), "dealloc_mw");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	return 0;
}

/* CQ overrun raises IBV_EVENT_CQ_ERR. */
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

	ibv_destroy_qp(p->a);
	p->a = ibv_create_qp(c->pd, &ia);
	CHECK(p->a, "create_qp");
	CHECK(!ut_init(p->a, IBV_ACCESS_REMOTE_WRITE), "init");
	CHECK(!ut_rtr(c, p->a, p->b->qp_num) && !ut_rts(p->a, 2, 7), "connect");
	return 0;
}

static int test_cq_overrun(struct ut_ctx *c)
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

/* Posts @n signaled 8-byte RDMA WRITEs, wr_id first.., byte i = wr_id. */
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
static int test_cq_resize(struct ut_ctx *c)
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
	/* Loopback writes the CQE right after executing the WRITE. */
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

/* The SRQ limit event fires once when the level drops below the limit. */
static int test_srq_limit(struct ut_ctx *c)
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

/*
 * Deregistering an MR used by a WQE waiting for RNR retries returns at
 * once; when the WQE resumes it completes with a protection error.
 */
static int test_dereg_waiting(struct ut_ctx *c)
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

	CHECK(mr, "reg_mr");
	sge.lkey = mr->lkey;
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	CHECK(!ibv_post_send(p.a, &wr, &bad), "post");
	usleep(20000); /* RNR NAKed, waiting */
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

/* RTS -> SQD raises SQ_DRAINED; WQEs posted in SQD run after SQD -> RTS. */
static int test_sqd(struct ut_ctx *c)
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

/* Counters of sysfs hw_counters move with traffic. */
static int test_counters(struct ut_ctx *c)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/sent_pkts",
		 c->dev_name);
	f = fopen(path, "r");
	CHECK(f, "%s: %s", path, strerror(errno));
	CHECK(fscanf(f, "%llu", &v) == 1, "read %s", path);
	fclose(f);
	CHECK(v > 0, "sent_pkts is 0 after traffic");
	return 0;
}

static const struct ut_test tests[] = {
	{"rc_send", test_rc_send},
	{"uc_send", test_uc_send},
	{"srq_send", test_srq_send},
	{"rc_rdma", test_rc_rdma},
	{"uc_rdma", test_uc_rdma},
	{"atomics", test_atomics},
	{"inline_unsignaled", test_inline_unsignaled},
	{"ud", test_ud},
	{"errors", test_errors},
	{"events", test_events},
	{"mw", test_mw},
	{"cq_overrun", test_cq_overrun},
	{"cq_resize", test_cq_resize},
	{"srq_limit", test_srq_limit},
	{"dereg_waiting", test_dereg_waiting},
	{"sqd", test_sqd},
	{"counters", test_counters},
};

int main(int argc, char **argv)
{
	return ut_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
