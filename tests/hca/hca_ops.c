// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_ops - data-path tests of the mlx_hw device through our libibverbs:
 * every opcode and QP type over loopback between two QPs of one device,
 * data verified byte for byte, and the error completions of docs/prm.md
 * section 8.
 *
 *   hca_ops [-d DEV] [-g GID_INDEX] [TEST...]     (default: all tests)
 *
 * Exit 0 if every test passed.  The sections live in ops_*.c by topic.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "hca_ops.h"

int pair_create(struct ut_ctx *c, struct pair *p, enum ibv_qp_type type,
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

void pair_destroy(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->srq)
		ibv_destroy_srq(p->srq);
}

/* Counters of sysfs hw_counters move with traffic. */
static int test_counters(struct ut_ctx *c)
{
	CHECK(ut_counter(c, "sent_pkts") > 0, "sent_pkts is %lld after traffic",
	      ut_counter(c, "sent_pkts"));
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
	{"ud_local_ah", test_ud_local_ah},
	{"ud_destroy_sends", test_ud_destroy_sends},
	{"fence", test_fence},
	{"iova", test_iova},
	{"errors", test_errors},
	{"events", test_events},
	{"mw", test_mw},
	{"mw_dereg", test_mw_dereg},
	{"cq_overrun", test_cq_overrun},
	{"cq_resize", test_cq_resize},
	{"srq_limit", test_srq_limit},
	{"srq_resize", test_srq_resize},
	{"dereg_waiting", test_dereg_waiting},
	{"resend_parse", test_resend_parse},
	{"sqd", test_sqd},
	{"counters", test_counters},
};

int main(int argc, char **argv)
{
	return ut_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
