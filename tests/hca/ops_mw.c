// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_ops sections of memory windows, type 1 and type 2: their use, and
 * the deregistration of an MR they are bound to.
 */
#include <errno.h>
#include <string.h>
#include "hca_ops.h"

/* Memory windows: type 1 (ibv_bind_mw) and type 2 (BIND_MW, LOCAL_INV). */
int test_mw(struct ut_ctx *c)
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

static int bind_mw2(struct ut_ctx *c, struct ibv_qp *qp, struct ibv_mw *mw,
		    struct ibv_mr *mr, uint32_t *rkey, uint64_t wr_id)
{
	struct ibv_send_wr wr = { .wr_id = wr_id, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	*rkey = ibv_inc_rkey(*rkey);
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = *rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)mr->addr;
	wr.bind_mw.bind_info.length = 8192;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK(!ibv_post_send(qp, &wr, &bad), "post bind");
	return ut_expect(c, wr_id, IBV_WC_SUCCESS, NULL);
}

/* ibv_bind_mw of type 1 window @mw to @len bytes of @mr (0: unbind). */
static int bind_mw1(struct ut_ctx *c, struct ibv_qp *qp, struct ibv_mw *mw,
		    struct ibv_mr *mr, uint64_t len, uint64_t wr_id)
{
	struct ibv_mw_bind mb = { .wr_id = wr_id,
				  .send_flags = IBV_SEND_SIGNALED };

	mb.bind_info.mr = mr;
	mb.bind_info.addr = (uintptr_t)mr->addr;
	mb.bind_info.length = len;
	mb.bind_info.mw_access_flags = len ? IBV_ACCESS_REMOTE_WRITE : 0;
	CHECK(!ibv_bind_mw(qp, mw, &mb), "bind_mw: %s", strerror(errno));
	return ut_expect(c, wr_id, IBV_WC_SUCCESS, NULL);
}

static struct ibv_mr *mw_mr(struct ut_ctx *c)
{
	return ibv_reg_mr(c->pd, c->buf + UT_DST, 16384,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_MW_BIND);
}

/* An RDMA WRITE a -> rkey at the start of UT_DST, data checked. */
static int write_ok(struct ut_ctx *c, struct ibv_qp *a, uint32_t rkey,
		    uint64_t wr_id)
{
	ut_fill(c->buf + UT_SRC, 100, (unsigned int)wr_id);
	memset(c->buf + UT_DST, 0, 100);
	if (ut_post_send(c, a, IBV_WR_RDMA_WRITE, UT_SRC, 100, wr_id,
			 (uintptr_t)c->buf + UT_DST, rkey) ||
	    ut_expect(c, wr_id, IBV_WC_SUCCESS, NULL))
		return -1;
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, 100), "data");
	return 0;
}

/*
 * IBA 10.6.7.2.6 (Deregister Memory Region): dereg_mr fails with EINVAL
 * while a window of either type is bound to the MR (which stays usable), succeeds once
 * the window is invalidated (type 2), unbound or bound elsewhere (type 1)
 * or deallocated.
 */
int test_mw_dereg(struct ut_ctx *c)
{
	struct ibv_qp *a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	struct ibv_qp *b = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	struct ibv_mw *mw2 = ibv_alloc_mw(c->pd, IBV_MW_TYPE_2);
	struct ibv_mw *mw1 = ibv_alloc_mw(c->pd, IBV_MW_TYPE_1);
	struct ibv_mr *mr = mw_mr(c);
	struct ibv_send_wr inv = { .wr_id = 3, .opcode = IBV_WR_LOCAL_INV,
				   .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_mr *mr2;
	uint32_t rkey;

	CHECK(a && b && mw1 && mw2 && mr, "setup: %s", strerror(errno));
	if (ut_connect(c, a, b, 7))
		return -1;
	rkey = mw2->rkey;
	if (bind_mw2(c, b, mw2, mr, &rkey, 1))
		return -1;
	CHECK(ibv_dereg_mr(mr) == EINVAL, "dereg_mr with a bound type 2 MW");
	/* Still registered: through the window and by its own key. */
	if (write_ok(c, a, rkey, 10) || write_ok(c, a, mr->rkey, 11))
		return -1;
	inv.invalidate_rkey = rkey;
	CHECK(!ibv_post_send(b, &inv, &bad), "post local_inv");
	if (ut_expect(c, 3, IBV_WC_SUCCESS, NULL))
		return -1;
	CHECK(!ibv_dereg_mr(mr), "dereg_mr after LOCAL_INV: %s",
	      strerror(errno));

	/* Bound again to a new MR, then the window is deallocated. */
	mr = mw_mr(c);
	CHECK(mr, "reg_mr");
	if (bind_mw2(c, b, mw2, mr, &rkey, 4))
		return -1;
	CHECK(ibv_dereg_mr(mr) == EINVAL, "dereg_mr with a bound type 2 MW");
	CHECK(!ibv_dealloc_mw(mw2), "dealloc_mw");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr after dealloc_mw: %s",
	      strerror(errno));

	/* Type 1 likewise (as rxe): refused while bound. */
	mr = mw_mr(c);
	mr2 = mw_mr(c);
	CHECK(mr && mr2, "reg_mr");
	if (bind_mw1(c, b, mw1, mr, 8192, 6) || write_ok(c, a, mw1->rkey, 12))
		return -1;
	CHECK(ibv_dereg_mr(mr) == EINVAL, "dereg_mr with a bound type 1 MW");
	if (write_ok(c, a, mw1->rkey, 13))
		return -1;
	/* Rebound elsewhere: the first MR is free, the second held. */
	if (bind_mw1(c, b, mw1, mr2, 8192, 7))
		return -1;
	CHECK(!ibv_dereg_mr(mr), "dereg_mr after the MW moved: %s",
	      strerror(errno));
	CHECK(ibv_dereg_mr(mr2) == EINVAL, "dereg_mr with a bound type 1 MW");
	/* Unbound by a zero-length bind (IBA 10.6.7.2.1). */
	if (bind_mw1(c, b, mw1, mr2, 0, 8))
		return -1;
	CHECK(!ibv_dereg_mr(mr2), "dereg_mr after unbind: %s",
	      strerror(errno));
	/* Bound, then deallocated. */
	mr = mw_mr(c);
	CHECK(mr, "reg_mr");
	if (bind_mw1(c, b, mw1, mr, 8192, 9))
		return -1;
	CHECK(ibv_dereg_mr(mr) == EINVAL, "dereg_mr with a bound type 1 MW");
	CHECK(!ibv_dealloc_mw(mw1), "dealloc_mw");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr after dealloc_mw: %s",
	      strerror(errno));
	if (ut_no_event(c, 50))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}
