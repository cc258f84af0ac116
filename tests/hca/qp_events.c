// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qp_events - the affiliated asynchronous events of docs/prm.md 8.1, each
 * triggered by real traffic between QPs of one mlx_hw device and checked
 * for its type, its element (the QP pointer), the QP state and the
 * completions that go with it (data verified byte for byte); and UC and
 * UD local receive errors, which raise none.
 *
 *   qp_events [-d DEV] [-g GID_INDEX] [TEST...]     (default: all tests)
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <mlx_hw-abi.h>
#include "hca_util.h"


/* Two completions in either order, checked by wr_id and status. */
static int expect_two(struct ut_ctx *c, uint64_t id1, enum ibv_wc_status st1,
		      uint64_t id2, enum ibv_wc_status st2, struct ibv_wc *w1,
		      struct ibv_wc *w2)
{
	struct ibv_wc wc[2];

	if (ut_poll_two(c, id1, id2, &wc[0], &wc[1]))
		return -1;
	CHECK(wc[0].status == st1 && wc[1].status == st2,
	      "statuses %s / %s, expected %s / %s",
	      ibv_wc_status_str(wc[0].status), ibv_wc_status_str(wc[1].status),
	      ibv_wc_status_str(st1), ibv_wc_status_str(st2));
	if (w1)
		*w1 = wc[0];
	if (w2)
		*w2 = wc[1];
	return 0;
}

/* A SEND of @len bytes a -> b into the receive @rid, data checked. */
static int send_ok(struct ut_ctx *c, struct ibv_qp *a, struct ibv_qp *b,
		   struct ibv_srq *srq, uint32_t len, uint64_t dst_off,
		   uint64_t sid, uint64_t rid, unsigned int seed, bool post)
{
	struct ibv_wc rwc;

	ut_fill(c->buf + UT_SRC, len, seed);
	memset(c->buf + dst_off, 0, len);
	if (post && ut_post_recv(c, b, srq, dst_off, len, rid))
		return -1;
	if (ut_post_send(c, a, IBV_WR_SEND, UT_SRC, len, sid, 0, 0) ||
	    expect_two(c, sid, IBV_WC_SUCCESS, rid, IBV_WC_SUCCESS, NULL, &rwc))
		return -1;
	CHECK(rwc.opcode == IBV_WC_RECV && rwc.byte_len == len,
	      "recv opcode %d byte_len %u, expected %u", rwc.opcode,
	      rwc.byte_len, len);
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + dst_off, len),
	      "received data differs");
	return 0;
}

/* IBV_EVENT_COMM_EST: first packet to an RC/UC QP in RTR, once. */
static int comm_est(struct ut_ctx *c, enum ibv_qp_type type)
{
	unsigned int acc = type == IBV_QPT_RC ? UT_ACCESS_REMOTE :
						 IBV_ACCESS_REMOTE_WRITE;
	struct ibv_qp *a = ut_qp(c, type, NULL, acc);
	struct ibv_qp *b = ut_qp(c, type, NULL, acc);

	CHECK(a && b, "QPs");
	if (ut_rtr(c, a, b->qp_num) || ut_rts(a, 2, 7) ||
	    ut_rtr(c, b, a->qp_num))
		return -1;
	if (ut_no_event(c, 50))
		return -1;
	/* Three packets at MTU 1024: one event. */
	if (send_ok(c, a, b, NULL, 3000, UT_DST, 1, 10, 1, true) ||
	    ut_expect_event(c, IBV_EVENT_COMM_EST, b) || ut_no_event(c, 100))
		return -1;
	CHECK(ut_state(b) == IBV_QPS_RTR, "responder state %d", ut_state(b));
	/* Still in RTR: later messages raise nothing. */
	if (send_ok(c, a, b, NULL, 100, UT_DST, 2, 11, 2, true) ||
	    ut_no_event(c, 100))
		return -1;
	/* A QP that reached RTS before its first packet gets no event. */
	if (ut_rts(b, 2, 7) ||
	    send_ok(c, b, a, NULL, 200, UT_DST, 3, 12, 3, true) ||
	    ut_no_event(c, 100))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

static int test_comm_est_rc(struct ut_ctx *c)
{
	return comm_est(c, IBV_QPT_RC);
}

static int test_comm_est_uc(struct ut_ctx *c)
{
	return comm_est(c, IBV_QPT_UC);
}

static struct ibv_srq *make_srq(struct ut_ctx *c)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16,
						  .max_sge = 1 } };

	return ibv_create_srq(c->pd, &sa);
}

/*
 * IBV_EVENT_QP_LAST_WQE_REACHED after modify to ERR: the SRQ's WQEs stay
 * for the other QP of the SRQ, the QP in ERR takes none.
 */
static int test_last_wqe_modify(struct ut_ctx *c)
{
	struct ibv_srq *srq = make_srq(c);
	struct ibv_qp *a1, *b1, *a2, *b2;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

	CHECK(srq, "create_srq: %s", strerror(errno));
	a1 = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	b1 = ut_qp(c, IBV_QPT_RC, srq, UT_ACCESS_REMOTE);
	a2 = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	b2 = ut_qp(c, IBV_QPT_RC, srq, UT_ACCESS_REMOTE);
	CHECK(a1 && b1 && a2 && b2, "QPs");
	if (ut_rtr(c, a1, b1->qp_num) || ut_rtr(c, b1, a1->qp_num) ||
	    ut_rts(a1, 1, 7) || ut_rts(b1, 1, 7) || ut_connect(c, a2, b2, 7))
		return -1;
	if (ut_post_recv(c, NULL, srq, UT_DST, 1024, 100) ||
	    ut_post_recv(c, NULL, srq, UT_DST + 1024, 1024, 101))
		return -1;

	CHECK(!ibv_modify_qp(b1, &qa, IBV_QP_STATE), "to ERR: %s",
	      strerror(errno));
	if (ut_expect_event(c, IBV_EVENT_QP_LAST_WQE_REACHED, b1) ||
	    ut_no_wc(c, 50))
		return -1;
	CHECK(ut_state(b1) == IBV_QPS_ERR, "state %d", ut_state(b1));
	/* b1 answers nothing now: a1 runs out of transport retries. */
	if (ut_post_send(c, a1, IBV_WR_SEND, UT_SRC, 100, 1, 0, 0) ||
	    ut_expect(c, 1, IBV_WC_RETRY_EXC_ERR, NULL))
		return -1;
	/* Both SRQ WQEs are still there, in order, for b2. */
	if (send_ok(c, a2, b2, srq, 500, UT_DST, 2, 100, 4, false) ||
	    send_ok(c, a2, b2, srq, 700, UT_DST + 1024, 3, 101, 5, false) ||
	    ut_no_event(c, 50))
		return -1;
	CHECK(!ibv_destroy_qp(a1) && !ibv_destroy_qp(b1) &&
	      !ibv_destroy_qp(a2) && !ibv_destroy_qp(b2) &&
	      !ibv_destroy_srq(srq), "destroy");
	return 0;
}

/*
 * An error on a QP of an SRQ: the invalid request event, then Last WQE
 * Reached; RESET rearms it.
 */
static int test_last_wqe_error(struct ut_ctx *c)
{
	struct ibv_srq *srq = make_srq(c);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp *a, *b;

	CHECK(srq, "create_srq: %s", strerror(errno));
	a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	b = ut_qp(c, IBV_QPT_RC, srq, UT_ACCESS_REMOTE);
	CHECK(a && b, "QPs");
	if (ut_connect(c, a, b, 7) ||
	    ut_post_recv(c, NULL, srq, UT_DST, 64, 100) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 200, 1, 0, 0) ||
	    expect_two(c, 100, IBV_WC_LOC_LEN_ERR, 1, IBV_WC_REM_INV_REQ_ERR,
		       NULL, NULL) ||
	    ut_expect_event(c, IBV_EVENT_QP_REQ_ERR, b) ||
	    ut_expect_event(c, IBV_EVENT_QP_LAST_WQE_REACHED, b) ||
	    ut_no_event(c, 50))
		return -1;
	CHECK(ut_state(a) == IBV_QPS_ERR && ut_state(b) == IBV_QPS_ERR,
	      "states %d %d", ut_state(a), ut_state(b));
	CHECK(!ibv_modify_qp(b, &qa, IBV_QP_STATE), "to RESET");
	qa.qp_state = IBV_QPS_ERR;
	CHECK(!ibv_modify_qp(b, &qa, IBV_QP_STATE), "to ERR");
	if (ut_expect_event(c, IBV_EVENT_QP_LAST_WQE_REACHED, b))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) &&
	      !ibv_destroy_srq(srq), "destroy");
	return 0;
}

/*
 * IBV_EVENT_SQ_DRAINED: not while the WQE in flight waits for RNR
 * retries, right after it completes; nothing new starts in SQD.
 */
static int test_sq_drained(struct ut_ctx *c)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_SQD,
				  .en_sqd_async_notify = 1 };
	struct ibv_qp *a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	struct ibv_qp *b = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);

	CHECK(a && b, "QPs");
	if (ut_connect(c, a, b, 7))
		return -1;
	ut_fill(c->buf + UT_SRC, 100, 6);
	if (ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 100, 1, 0, 0))
		return -1;
	usleep(20000);	/* RNR NAKed, retrying */
	CHECK(!ibv_modify_qp(a, &qa, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY),
	      "to SQD: %s", strerror(errno));
	if (ut_no_event(c, 200) || ut_no_wc(c, 1))
		return -1;
	CHECK(ut_state(a) == IBV_QPS_SQD, "state %d", ut_state(a));
	memset(c->buf + UT_DST, 0, 100);
	if (ut_post_recv(c, b, NULL, UT_DST, 100, 10) ||
	    expect_two(c, 1, IBV_WC_SUCCESS, 10, IBV_WC_SUCCESS, NULL, NULL) ||
	    ut_expect_event(c, IBV_EVENT_SQ_DRAINED, a))
		return -1;
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, 100), "data");
	/* Posted in SQD: waits for RTS. */
	if (ut_post_recv(c, b, NULL, UT_DST, 100, 11) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 50, 2, 0, 0) ||
	    ut_no_wc(c, 100))
		return -1;
	qa.qp_state = IBV_QPS_RTS;
	CHECK(!ibv_modify_qp(a, &qa, IBV_QP_STATE), "to RTS: %s",
	      strerror(errno));
	if (expect_two(c, 2, IBV_WC_SUCCESS, 11, IBV_WC_SUCCESS, NULL, NULL) ||
	    ut_no_event(c, 50))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/*
 * A failing RC request: the requester's completion @st, the responder's
 * event @ev, both QPs in ERR, the responder's posted receive flushed and
 * the target bytes untouched.  @acc: the responder's QP access flags.
 */
static int rc_request_error(struct ut_ctx *c, unsigned int acc,
			    enum ibv_wr_opcode op, uint32_t len, uint64_t raddr,
			    uint32_t rkey, enum ibv_wc_status st,
			    enum ibv_event_type ev)
{
	struct ibv_qp *a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	struct ibv_qp *b = ut_qp(c, IBV_QPT_RC, NULL, acc);
	uint8_t before[256];

	CHECK(a && b, "QPs");
	if (ut_connect(c, a, b, 7))
		return -1;
	ut_fill(c->buf + UT_SRC, len, 7);
	ut_fill(c->buf + UT_DST, sizeof(before), 8);
	memcpy(before, c->buf + UT_DST, sizeof(before));
	if (ut_post_recv(c, b, NULL, UT_DST + 4096, 64, 9) ||
	    ut_post_send(c, a, op, UT_SRC, len, 1, raddr, rkey) ||
	    /* The engine may flush b before a's completion is written. */
	    expect_two(c, 1, st, 9, IBV_WC_WR_FLUSH_ERR, NULL, NULL) ||
	    ut_expect_event(c, ev, b) || ut_no_event(c, 50))
		return -1;
	CHECK(ut_state(a) == IBV_QPS_ERR && ut_state(b) == IBV_QPS_ERR,
	      "states %d %d", ut_state(a), ut_state(b));
	CHECK(!memcmp(before, c->buf + UT_DST, sizeof(before)),
	      "target memory changed");
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/* IBV_EVENT_QP_ACCESS_ERR: R_Key, bounds and MR access violations. */
static int test_access_err(struct ut_ctx *c)
{
	uintptr_t dst = (uintptr_t)c->buf + UT_DST;
	struct ibv_mr *no_atomic;

	if (rc_request_error(c, UT_ACCESS_REMOTE, IBV_WR_RDMA_WRITE, 64, dst,
			     c->mr->rkey ^ 0x55, IBV_WC_REM_ACCESS_ERR,
			     IBV_EVENT_QP_ACCESS_ERR))
		return -1;
	if (rc_request_error(c, UT_ACCESS_REMOTE, IBV_WR_RDMA_READ, 64,
			     (uintptr_t)c->buf + 2 * UT_BUF_SIZE - 32,
			     c->mr->rkey, IBV_WC_REM_ACCESS_ERR,
			     IBV_EVENT_QP_ACCESS_ERR))
		return -1;
	no_atomic = ibv_reg_mr(c->pd, c->buf + UT_DST, 4096,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(no_atomic, "reg_mr: %s", strerror(errno));
	if (rc_request_error(c, UT_ACCESS_REMOTE, IBV_WR_ATOMIC_FETCH_AND_ADD,
			     8, dst, no_atomic->rkey, IBV_WC_REM_ACCESS_ERR,
			     IBV_EVENT_QP_ACCESS_ERR))
		return -1;
	CHECK(!ibv_dereg_mr(no_atomic), "dereg_mr");
	return 0;
}

/*
 * IBV_EVENT_QP_REQ_ERR: operations the responder QP does not enable, a
 * misaligned atomic, a message longer than the receive buffer.
 */
static int test_req_err(struct ut_ctx *c)
{
	uintptr_t dst = (uintptr_t)c->buf + UT_DST;
	uint32_t rkey = c->mr->rkey;
	struct ibv_qp *a, *b;

	if (rc_request_error(c, IBV_ACCESS_REMOTE_READ, IBV_WR_RDMA_WRITE, 64,
			     dst, rkey, IBV_WC_REM_INV_REQ_ERR,
			     IBV_EVENT_QP_REQ_ERR) ||
	    rc_request_error(c, IBV_ACCESS_REMOTE_WRITE, IBV_WR_RDMA_READ, 64,
			     dst, rkey, IBV_WC_REM_INV_REQ_ERR,
			     IBV_EVENT_QP_REQ_ERR) ||
	    rc_request_error(c, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
			     IBV_WR_ATOMIC_FETCH_AND_ADD, 8, dst, rkey,
			     IBV_WC_REM_INV_REQ_ERR, IBV_EVENT_QP_REQ_ERR) ||
	    rc_request_error(c, UT_ACCESS_REMOTE, IBV_WR_ATOMIC_CMP_AND_SWP, 8,
			     dst + 4, rkey, IBV_WC_REM_INV_REQ_ERR,
			     IBV_EVENT_QP_REQ_ERR))
		return -1;

	/* SEND longer than the receive buffer. */
	a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	b = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	CHECK(a && b, "QPs");
	if (ut_connect(c, a, b, 7) ||
	    ut_post_recv(c, b, NULL, UT_DST, 100, 9) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 200, 1, 0, 0) ||
	    expect_two(c, 9, IBV_WC_LOC_LEN_ERR, 1, IBV_WC_REM_INV_REQ_ERR,
		       NULL, NULL) ||
	    ut_expect_event(c, IBV_EVENT_QP_REQ_ERR, b) || ut_no_event(c, 50))
		return -1;
	CHECK(ut_state(b) == IBV_QPS_ERR, "state %d", ut_state(b));
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");

	/* UC drops a WRITE its responder does not enable, silently. */
	a = ut_qp(c, IBV_QPT_UC, NULL, IBV_ACCESS_REMOTE_WRITE);
	b = ut_qp(c, IBV_QPT_UC, NULL, 0);
	CHECK(a && b, "UC QPs");
	if (ut_connect(c, a, b, 7))
		return -1;
	ut_fill(c->buf + UT_SRC, 64, 9);
	memset(c->buf + UT_DST, 0, 64);
	if (ut_post_send(c, a, IBV_WR_RDMA_WRITE, UT_SRC, 64, 1, dst, rkey) ||
	    ut_expect(c, 1, IBV_WC_SUCCESS, NULL) || ut_no_event(c, 100))
		return -1;
	CHECK(ut_state(b) == IBV_QPS_RTS, "UC state %d", ut_state(b));
	CHECK(c->buf[UT_DST] == 0 && !memcmp(c->buf + UT_DST,
					     c->buf + UT_DST + 1, 63),
	      "UC WRITE landed without REMOTE_WRITE");
	if (send_ok(c, a, b, NULL, 32, UT_DST, 2, 10, 10, true))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/*
 * Writes a send WQE the provider would refuse straight into SQ slot 0 of
 * a fresh QP and rings: LOC_QP_OP_ERR completion, IBV_EVENT_QP_FATAL.
 */
static int malformed_wqe(struct ut_ctx *c, enum ibv_qp_type type,
			 uint8_t opcode, uint8_t num_sge)
{
	struct ibv_qp *b = ut_qp(c, type, NULL, IBV_ACCESS_REMOTE_WRITE);
	struct ibv_qp *a = ut_qp(c, type, NULL, IBV_ACCESS_REMOTE_WRITE);
	struct mlx_hw_wqe_ctrl *ctrl;
	volatile struct mlx_hw_qp_db *db;
	struct ut_qp_mem mem;
	struct ibv_wc wc;

	CHECK(a && b, "QPs: %s", strerror(errno));
	if (ut_connect(c, a, b, 7))
		return -1;
	ut_qp_mem(a, &mem);
	ctrl = (struct mlx_hw_wqe_ctrl *)mem.sq;
	db = mem.db;
	memset(ctrl, 0, 64);
	ctrl->wr_id = htole64(0x1234);
	ctrl->opcode = opcode;
	ctrl->flags = MLX_HW_WQE_SIGNALED;
	ctrl->num_sge = num_sge;
	/* The WQE before the index that publishes it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	db->sq_pi = htole32(1);
	/*
	 * The doorbell store before the engine is woken, naming the QP rung
	 * (prm.md 2.1: the provider's ring is not ours to push to).
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	CHECK(!ioctl(c->ctx->cmd_fd, MLX_HW_IOCTL_WAKE_DB,
		     (unsigned long)(MLX_HW_DB_KIND_QP << MLX_HW_DB_KIND_SHIFT |
				     a->qp_num)),
	      "WAKE_DB: %s", strerror(errno));
	if (ut_expect(c, 0x1234, IBV_WC_LOC_QP_OP_ERR, &wc) ||
	    ut_expect_event(c, IBV_EVENT_QP_FATAL, a) || ut_no_event(c, 50))
		return -1;
	CHECK(wc.qp_num == a->qp_num, "qp_num %u", wc.qp_num);
	CHECK(ut_state(a) == IBV_QPS_ERR, "state %d", ut_state(a));
	CHECK(ut_state(b) == IBV_QPS_RTS, "peer state %d", ut_state(b));
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/*
 * A receive WQE with an impossible segment count in the RQ of an RC
 * responder: the message's receive completes with LOC_QP_OP_ERR, the
 * responder gets IBV_EVENT_QP_FATAL, the requester REM_OP_ERR.
 */
static int malformed_rwqe(struct ut_ctx *c)
{
	struct ibv_qp *a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	struct ibv_qp *b = ut_qp(c, IBV_QPT_RC, NULL, IBV_ACCESS_REMOTE_WRITE);
	struct mlx_hw_rwqe *rwqe;
	struct ut_qp_mem mem;

	CHECK(a && b, "QPs: %s", strerror(errno));
	if (ut_connect(c, a, b, 7))
		return -1;
	ut_qp_mem(b, &mem);
	CHECK(mem.rq, "b has no RQ");
	rwqe = (struct mlx_hw_rwqe *)mem.rq;
	memset(rwqe, 0, 32);
	rwqe->wr_id = htole64(0x5678);
	rwqe->num_sge = htole32(200);
	/* The WQE before the index that publishes it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mem.db->rq_pi = htole32(1);
	if (ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 10, 1, 0, 0) ||
	    expect_two(c, 0x5678, IBV_WC_LOC_QP_OP_ERR, 1, IBV_WC_REM_OP_ERR,
		       NULL, NULL) ||
	    ut_expect_event(c, IBV_EVENT_QP_FATAL, b) || ut_no_event(c, 50))
		return -1;
	CHECK(ut_state(a) == IBV_QPS_ERR && ut_state(b) == IBV_QPS_ERR,
	      "states %d %d", ut_state(a), ut_state(b));
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/* IBV_EVENT_QP_FATAL: malformed WQEs written into the rings. */
static int test_qp_fatal(struct ut_ctx *c)
{
	if (malformed_wqe(c, IBV_QPT_RC, 0x7f, 0) ||		/* unknown */
	    malformed_wqe(c, IBV_QPT_RC, MLX_HW_OP_SEND, 200) ||	/* sges */
	    malformed_wqe(c, IBV_QPT_UC, MLX_HW_OP_RDMA_READ, 1) ||	/* type */
	    malformed_rwqe(c))
		return -1;
	return 0;
}

#define UD_QKEY		0x11110000u

/* A UD QP in RTS (Q_Key UD_QKEY), receiving from @srq if not NULL. */
static struct ibv_qp *ud_qp(struct ut_ctx *c, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = c->cq, .recv_cq = c->cq, .srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = UD_QKEY };
	struct ibv_qp *qp = ibv_create_qp(c->pd, &ia);

	if (!qp ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY)) {
		fprintf(stderr, "UD QP: %s\n", strerror(errno));
		return NULL;
	}
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return NULL;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return NULL;
	return qp;
}

/* A signaled UD SEND of @len bytes from UT_SRC to @dst. */
static int ud_send(struct ut_ctx *c, struct ibv_qp *qp, struct ibv_ah *ah,
		   struct ibv_qp *dst, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)c->buf + UT_SRC, len, c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dst->qp_num;
	wr.wr.ud.remote_qkey = UD_QKEY;
	CHECK(!ibv_post_send(qp, &wr, &bad), "post UD send");
	return 0;
}

/* A receive at UT_DST whose SGE names no MR. */
static int post_recv_bad_lkey(struct ut_ctx *c, struct ibv_qp *qp,
			      uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)c->buf + UT_DST, 256,
			       c->mr->lkey + 0x100 };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	CHECK(!ibv_post_recv(qp, &wr, &bad), "post_recv");
	return 0;
}

/*
 * UC: a message longer than the receive WQE is dropped, no event, the QP
 * stays in RTS (IBA 9.9.3 class D: the RQ WQE is kept for the next
 * message, which may span packets; class E: an SRQ WQE completes with
 * LOC_LEN_ERR).  A receive SGE with a bad lkey (class A): the receive
 * completes with LOC_PROT_ERR and the QP moves to ERR, no event either.
 */
static int test_uc_recv_errors(struct ut_ctx *c)
{
	struct ibv_srq *srq = make_srq(c);
	unsigned int acc = IBV_ACCESS_REMOTE_WRITE;
	struct ibv_qp *a = ut_qp(c, IBV_QPT_UC, NULL, acc);
	struct ibv_qp *b = ut_qp(c, IBV_QPT_UC, NULL, acc);
	struct ibv_qp *sa = ut_qp(c, IBV_QPT_UC, NULL, acc);
	struct ibv_qp *sb = ut_qp(c, IBV_QPT_UC, srq, acc);

	CHECK(srq && a && b && sa && sb, "setup: %s", strerror(errno));
	if (ut_connect(c, a, b, 7) || ut_connect(c, sa, sb, 7))
		return -1;
	/* Overflow in the last packet, then in the middle of 3 packets. */
	if (ut_post_recv(c, b, NULL, UT_DST, 1500, 10) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 1600, 1, 0, 0) ||
	    ut_expect(c, 1, IBV_WC_SUCCESS, NULL) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 3000, 2, 0, 0) ||
	    ut_expect(c, 2, IBV_WC_SUCCESS, NULL) || ut_no_wc(c, 100) ||
	    ut_no_event(c, 50))
		return -1;
	CHECK(ut_state(b) == IBV_QPS_RTS, "UC state %d", ut_state(b));
	/* The same receive WQE takes the next message that fits. */
	if (send_ok(c, a, b, NULL, 1400, UT_DST, 3, 10, 21, false) ||
	    ut_no_event(c, 50))
		return -1;

	/* SRQ: the WQE completes in error, the next one works. */
	if (ut_post_recv(c, NULL, srq, UT_DST, 100, 20) ||
	    ut_post_send(c, sa, IBV_WR_SEND, UT_SRC, 200, 4, 0, 0) ||
	    expect_two(c, 4, IBV_WC_SUCCESS, 20, IBV_WC_LOC_LEN_ERR, NULL,
		       NULL) || ut_no_event(c, 100))
		return -1;
	CHECK(ut_state(sb) == IBV_QPS_RTS, "UC SRQ state %d", ut_state(sb));
	if (send_ok(c, sa, sb, srq, 60, UT_DST, 5, 21, 22, true))
		return -1;

	/* Bad lkey in the receive: LOC_PROT_ERR, ERR, nothing raised. */
	if (post_recv_bad_lkey(c, b, 30) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 50, 6, 0, 0) ||
	    expect_two(c, 6, IBV_WC_SUCCESS, 30, IBV_WC_LOC_PROT_ERR, NULL,
		       NULL) || ut_no_event(c, 100))
		return -1;
	CHECK(ut_state(b) == IBV_QPS_ERR, "UC state %d", ut_state(b));
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_destroy_qp(sa) &&
	      !ibv_destroy_qp(sb) && !ibv_destroy_srq(srq), "destroy");
	return 0;
}

/*
 * UD: the same classes.  A datagram longer than the receive WQE (40 GRH
 * bytes + payload) is dropped and the RQ WQE kept; an SRQ WQE completes
 * with LOC_LEN_ERR; the QP stays in RTS.  A bad receive lkey completes
 * with LOC_PROT_ERR and moves the QP to ERR.  No event in any case.
 */
static int test_ud_recv_errors(struct ut_ctx *c)
{
	struct ibv_srq *srq = make_srq(c);
	struct ibv_qp *a = ud_qp(c, NULL), *b = ud_qp(c, NULL);
	struct ibv_qp *sb = ud_qp(c, srq);
	struct ibv_ah *ah = ut_self_ah(c);
	struct ibv_wc rwc;

	CHECK(srq && a && b && sb && ah, "setup: %s", strerror(errno));
	if (ut_post_recv(c, b, NULL, UT_DST, 40 + 100, 10) ||
	    ud_send(c, a, ah, b, 101, 1) ||
	    ut_expect(c, 1, IBV_WC_SUCCESS, NULL) || ut_no_wc(c, 100) ||
	    ut_no_event(c, 50))
		return -1;
	CHECK(ut_state(b) == IBV_QPS_RTS, "UD state %d", ut_state(b));
	ut_fill(c->buf + UT_SRC, 100, 31);
	memset(c->buf + UT_DST, 0, 140);
	if (ud_send(c, a, ah, b, 100, 2) ||
	    expect_two(c, 2, IBV_WC_SUCCESS, 10, IBV_WC_SUCCESS, NULL, &rwc))
		return -1;
	CHECK(rwc.byte_len == 140 && rwc.src_qp == a->qp_num,
	      "byte_len %u src_qp %u", rwc.byte_len, rwc.src_qp);
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST + 40, 100), "data");

	if (ut_post_recv(c, NULL, srq, UT_DST, 40 + 100, 20) ||
	    ud_send(c, a, ah, sb, 200, 3) ||
	    expect_two(c, 3, IBV_WC_SUCCESS, 20, IBV_WC_LOC_LEN_ERR, NULL,
		       &rwc) || ut_no_event(c, 100))
		return -1;
	CHECK(rwc.qp_num == sb->qp_num, "qp_num %u", rwc.qp_num);
	CHECK(ut_state(sb) == IBV_QPS_RTS, "UD SRQ state %d", ut_state(sb));
	if (ut_post_recv(c, NULL, srq, UT_DST, 40 + 100, 21) ||
	    ud_send(c, a, ah, sb, 60, 4) ||
	    expect_two(c, 4, IBV_WC_SUCCESS, 21, IBV_WC_SUCCESS, NULL, &rwc))
		return -1;
	CHECK(rwc.byte_len == 100, "byte_len %u", rwc.byte_len);

	if (post_recv_bad_lkey(c, b, 30) || ud_send(c, a, ah, b, 50, 5) ||
	    expect_two(c, 5, IBV_WC_SUCCESS, 30, IBV_WC_LOC_PROT_ERR, NULL,
		       NULL) || ut_no_event(c, 100))
		return -1;
	CHECK(ut_state(b) == IBV_QPS_ERR, "UD state %d", ut_state(b));
	CHECK(!ibv_destroy_ah(ah) && !ibv_destroy_qp(a) &&
	      !ibv_destroy_qp(b) && !ibv_destroy_qp(sb) &&
	      !ibv_destroy_srq(srq), "destroy");
	return 0;
}

static const struct ut_test tests[] = {
	{ "comm_est_rc", test_comm_est_rc },
	{ "comm_est_uc", test_comm_est_uc },
	{ "last_wqe_modify", test_last_wqe_modify },
	{ "last_wqe_error", test_last_wqe_error },
	{ "sq_drained", test_sq_drained },
	{ "access_err", test_access_err },
	{ "req_err", test_req_err },
	{ "qp_fatal", test_qp_fatal },
	{ "uc_recv_errors", test_uc_recv_errors },
	{ "ud_recv_errors", test_ud_recv_errors },
};

int main(int argc, char **argv)
{
	return ut_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
