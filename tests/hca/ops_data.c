// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_ops sections of the data path: SEND (RC, UC, SRQ) of every size,
 * RDMA WRITE (with immediate) and READ, atomics, inline and unsignaled
 * WQEs, UD with its GRH and Q_Key, MRs at an iova other than their
 * address; data verified byte for byte.
 */
#include <string.h>
#include <arpa/inet.h>
#include <unistd.h>
#include "hca_ops.h"

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

int test_rc_send(struct ut_ctx *c)
{
	return send_sizes(c, IBV_QPT_RC, false);
}
int test_uc_send(struct ut_ctx *c)
{
	return send_sizes(c, IBV_QPT_UC, false);
}
int test_srq_send(struct ut_ctx *c)
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
	/*
	 * RC completes after the responder's ACK, so the data is there; UC
	 * completes once sent, before the responder may have placed it.
	 */
	for (int i = 0; type == IBV_QPT_UC && i < 2000 &&
	     memcmp(c->buf + UT_SRC, c->buf + UT_DST, n); i++)
		usleep(1000);
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

int test_rc_rdma(struct ut_ctx *c)
{
	return rdma_ops(c, IBV_QPT_RC);
}
int test_uc_rdma(struct ut_ctx *c)
{
	return rdma_ops(c, IBV_QPT_UC);
}

int test_atomics(struct ut_ctx *c)
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
int test_inline_unsignaled(struct ut_ctx *c)
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
int test_ud(struct ut_ctx *c)
{
	struct ibv_qp_attr qa = {.qkey = UT_QKEY + 1};
	struct ibv_ah *ah;
	struct ibv_wc swc, wc;
	struct pair p;
	uint32_t n = 512;

	if (pair_create(c, &p, IBV_QPT_UD, false, 7))
		return -1;
	ah = ut_self_ah(c);
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

/*
 * An AH without a GRH (docs/prm.md 4.3): RoCE has no LRH, the port's LID
 * is 0, and such an AH names no destination, so it is refused with EINVAL
 * whatever its DLID, the port's own included (which an IB port takes as
 * itself), as Linux's core and mlx5 refuse it.
 */
int test_ud_local_ah(struct ut_ctx *c)
{
	struct ibv_ah_attr aa = {.port_num = 1, .dlid = 0};
	struct ibv_port_attr pa;
	struct ibv_ah *ah;

	SETUP(!ibv_query_port(c->ctx, 1, &pa), "query port");
	CHECK(pa.link_layer == IBV_LINK_LAYER_ETHERNET && pa.lid == 0,
	      "link layer %u, LID %u", pa.link_layer, pa.lid);
	aa.dlid = pa.lid + 1;
	ah = ibv_create_ah(c->pd, &aa);
	CHECK(!ah && errno == EINVAL, "non-GRH AH to DLID %u: %s", aa.dlid,
	      ah ? "created" : strerror(errno));
	if (ah)
		ibv_destroy_ah(ah);
	aa.dlid = pa.lid;
	ah = ibv_create_ah(c->pd, &aa);
	CHECK(!ah && errno == EINVAL, "non-GRH AH to our LID %u: %s", aa.dlid,
	      ah ? "created" : strerror(errno));
	if (ah)
		ibv_destroy_ah(ah);
	return 0;
}

/*
 * MRs addressed by an I/O virtual address other than their user address
 * (ibv_reg_mr_iova): one zero-based, one at a high iova of the same page
 * offset.  Remote addresses and local SGEs are in the MR's iova space, and
 * a range past the end of the MR is refused.
 */
int test_iova(struct ut_ctx *c)
{
	const unsigned int access = IBV_ACCESS_LOCAL_WRITE | UT_ACCESS_REMOTE;
	const uint64_t iova = 0x7f0000000000ull + 100;
	const uint32_t len = 65536, n = 10000;
	uint8_t *zero_based = c->buf + UT_DST + len;	/* page aligned */
	uint8_t *high = c->buf + UT_DST + 2 * len + 100;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_mr *mz, *mh;
	struct ibv_wc wc, rwc;
	struct pair p;

	mz = ibv_reg_mr_iova(c->pd, zero_based, len, 0, access);
	mh = ibv_reg_mr_iova(c->pd, high, len, iova, access);
	CHECK(mz && mh, "reg_mr_iova: %s", strerror(errno));
	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;

	/* RDMA WRITE to offset 256 of the zero-based MR. */
	ut_fill(c->buf + UT_SRC, n, 21);
	memset(zero_based, 0, len);
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, n, 1, 256,
			    mz->rkey),
	      "post write");
	CHECK(!ut_expect_op(c, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, -1, NULL),
	      "write to a zero-based MR");
	CHECK(!memcmp(zero_based + 256, c->buf + UT_SRC, n) &&
	      !zero_based[255] && !zero_based[256 + n],
	      "zero-based write landed elsewhere");

	/* RDMA READ from iova + 50 of the high MR. */
	ut_fill(high + 50, n, 22);
	memset(c->buf + UT_SRC, 0, n);
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_READ, UT_SRC, n, 2, iova + 50,
			    mh->rkey),
	      "post read");
	CHECK(!ut_expect_op(c, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, n, NULL),
	      "read from an iova MR");
	CHECK(!memcmp(c->buf + UT_SRC, high + 50, n), "iova read data");

	/* A local SGE in iova space: SEND 64 bytes from iova + 1000. */
	sge = (struct ibv_sge){ .addr = iova + 1000, .length = 64,
				.lkey = mh->lkey };
	memset(c->buf + UT_DST, 0, 64);
	CHECK(!ut_post_recv(c, p.b, NULL, UT_DST, 64, 4), "post_recv");
	CHECK(!ibv_post_send(p.a, &wr, &bad), "post send");
	if (ut_poll_two(c, 3, 4, &wc, &rwc))
		return -1;
	CHECK_WC(wc, IBV_WC_SUCCESS, IBV_WC_SEND, -1);
	CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, 64);
	CHECK(!memcmp(c->buf + UT_DST, high + 1000, 64), "iova SGE data");

	/* 16 bytes at len - 8: past the end of the zero-based MR. */
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_WRITE, UT_SRC, 16, 5, len - 8,
			    mz->rkey),
	      "post write");
	CHECK(!ut_expect(c, 5, IBV_WC_REM_ACCESS_ERR, NULL),
	      "write past the end of a zero-based MR");
	ut_drain_cq(c);
	pair_destroy(&p);
	CHECK(!ibv_dereg_mr(mz) && !ibv_dereg_mr(mh), "dereg");
	return 0;
}

/*
 * FENCE (IBA 10.8.3.3): a WRITE fenced behind a READ sends the data the
 * READ brought, though the READ's responses come after the WRITE could
 * have left (many WQEs are in flight); and a fenced UD send behind another
 * one posted with it is not held forever (UD WQEs are done when sent, with
 * no ACK to come).
 */
int test_fence(struct ut_ctx *c)
{
	uint32_t n = 100000, far = UT_BUF_SIZE / 2;
	struct ibv_sge sge = {(uintptr_t)c->buf + UT_SRC, 64, c->mr->lkey};
	struct ibv_send_wr wr[2], *bad;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	struct pair p;
	int i;

	if (pair_create(c, &p, IBV_QPT_RC, false, 7))
		return -1;
	/* READ remote DST -> local SRC, then WRITE local SRC -> remote far. */
	ut_fill(c->buf + UT_DST, n, 21);
	memset(c->buf + UT_SRC, 0, n);
	memset(c->buf + UT_DST + far, 0, n);
	CHECK(!ut_post_send(c, p.a, IBV_WR_RDMA_READ, UT_SRC, n, 1,
			    (uintptr_t)c->buf + UT_DST, c->mr->rkey),
	      "post read");
	CHECK(!ut_post(c, p.a,
		       &(struct ut_send){.op = IBV_WR_RDMA_WRITE,
					 .off = UT_SRC,
					 .len = n,
					 .flags = IBV_SEND_SIGNALED |
						  IBV_SEND_FENCE,
					 .wr_id = 2,
					 .raddr = (uintptr_t)c->buf + UT_DST +
						  far,
					 .rkey = c->mr->rkey}),
	      "post fenced write");
	CHECK(!ut_expect_op(c, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, n, NULL),
	      "read");
	CHECK(!ut_expect_op(c, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, -1, NULL),
	      "fenced write");
	CHECK(!memcmp(c->buf + UT_DST, c->buf + UT_DST + far, n),
	      "the fenced WRITE did not carry the READ's data");
	pair_destroy(&p);

	if (pair_create(c, &p, IBV_QPT_UD, false, 7))
		return -1;
	ah = ut_self_ah(c);
	CHECK(ah, "create_ah: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		CHECK(!ut_post_recv(c, p.b, NULL, UT_DST + i * 256, 256,
				    60 + i),
		      "post_recv");
	/* One doorbell for both, so the requester meets them in one run. */
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		wr[i].wr_id = 10 + i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED | (i ? IBV_SEND_FENCE : 0);
		wr[i].wr.ud.ah = ah;
		wr[i].wr.ud.remote_qpn = p.b->qp_num;
		wr[i].wr.ud.remote_qkey = UT_QKEY;
	}
	wr[0].next = &wr[1];
	CHECK(!ibv_post_send(p.a, wr, &bad), "post two UD sends");
	for (i = 0; i < 4; i++) {
		CHECK(!ut_poll_one(c->cq, &wc), "completion %d of 4 missing", i);
		CHECK(wc.status == IBV_WC_SUCCESS, "wr %llu: %s",
		      (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status));
	}
	ibv_destroy_ah(ah);
	pair_destroy(&p);
	return 0;
}
