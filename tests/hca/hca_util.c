// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* hca_util - see hca_util.h. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hca_util.h"

unsigned int ut_checks;

int ut_open(struct ut_ctx *c, const char *dev_name, int gid_index)
{
	struct ibv_device **list;
	int i, n;

	memset(c, 0, sizeof(*c));
	c->dev_name = dev_name;
	c->gid_index = gid_index;
	list = ibv_get_device_list(&n);
	UT_SETUP(list, "get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			c->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	UT_SETUP(c->ctx, "cannot open %s", dev_name);
	UT_SETUP(!ibv_query_gid(c->ctx, 1, gid_index, &c->gid), "query_gid");
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = ibv_create_cq(c->ctx, 256, NULL, NULL, 0);
	UT_SETUP(c->pd && c->cq, "pd/cq: %s", strerror(errno));
	c->buf = aligned_alloc(4096, 2 * UT_BUF_SIZE);
	UT_SETUP(c->buf, "alloc");
	memset(c->buf, 0, 2 * UT_BUF_SIZE);
	c->mr = ibv_reg_mr(c->pd, c->buf, 2 * UT_BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | UT_ACCESS_REMOTE);
	UT_SETUP(c->mr, "reg_mr: %s", strerror(errno));
	return 0;
}

void ut_fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

struct ibv_qp *ut_qp(struct ut_ctx *c, enum ibv_qp_type type,
		     struct ibv_srq *srq, unsigned int access)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.srq = srq,
		.cap = {.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 1,
			.max_recv_sge = 1},
		.qp_type = type,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};
	struct ibv_qp *qp = ibv_create_qp(c->pd, &ia);

	if (!qp) {
		fprintf(stderr, "create_qp: %s\n", strerror(errno));
		return NULL;
	}
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS)) {
		fprintf(stderr, "to INIT: %s\n", strerror(errno));
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

int ut_rtr(struct ut_ctx *c, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn,
		.rq_psn = 100,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.ah_attr = {.is_global = 1,
			    .port_num = 1,
			    .grh = {.dgid = c->gid,
				    .sgid_index = c->gid_index,
				    .hop_limit = 1}},
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	UT_SETUP(!ibv_modify_qp(qp, &a, mask), "to RTR: %s", strerror(errno));
	return 0;
}

int ut_rts(struct ibv_qp *qp, uint8_t retry_cnt, uint8_t rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = 100,
		.timeout = 10,
		.retry_cnt = retry_cnt,
		.rnr_retry = rnr_retry,
		.max_rd_atomic = 4,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	UT_SETUP(!ibv_modify_qp(qp, &a, mask), "to RTS: %s", strerror(errno));
	return 0;
}

int ut_connect(struct ut_ctx *c, struct ibv_qp *a, struct ibv_qp *b,
	       uint8_t rnr_retry)
{
	if (ut_rtr(c, a, b->qp_num) || ut_rtr(c, b, a->qp_num) ||
	    ut_rts(a, 2, rnr_retry) || ut_rts(b, 2, rnr_retry))
		return -1;
	return 0;
}

enum ibv_qp_state ut_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state) - 1;
	return a.qp_state;
}

int ut_post_recv(struct ut_ctx *c, struct ibv_qp *qp, struct ibv_srq *srq,
		 uint64_t off, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {(uintptr_t)c->buf + off, len, c->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1},
			   *bad;
	int ret = srq ? ibv_post_srq_recv(srq, &wr, &bad)
		      : ibv_post_recv(qp, &wr, &bad);

	UT_SETUP(!ret, "post_recv: %s", strerror(ret));
	return 0;
}

int ut_post_send(struct ut_ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
		 uint64_t off, uint32_t len, uint64_t wr_id, uint64_t raddr,
		 uint32_t rkey)
{
	struct ibv_sge sge = {(uintptr_t)c->buf + off, len, c->mr->lkey};
	struct ibv_send_wr wr =
				   {
					   .wr_id = wr_id,
					   .sg_list = &sge,
					   .num_sge = len ? 1 : 0,
					   .opcode = op,
					   .send_flags = IBV_SEND_SIGNALED,
				   },
			   *bad;
	int ret;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	ret = ibv_post_send(qp, &wr, &bad);
	UT_SETUP(!ret, "post_send: %s", strerror(ret));
	return 0;
}

static long long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int ut_expect(struct ut_ctx *c, uint64_t wr_id, enum ibv_wc_status status,
	      struct ibv_wc *out)
{
	struct timespec t0;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(n = ibv_poll_cq(c->cq, 1, &wc)) && ms_since(&t0) < 5000)
		usleep(100);
	CHECK(n == 1, "no completion for wr_id %llu (poll %d)",
	      (unsigned long long)wr_id, n);
	CHECK(wc.wr_id == wr_id, "wr_id %llu (%s), expected %llu",
	      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
	      (unsigned long long)wr_id);
	CHECK(wc.status == status, "wr_id %llu: %s, expected %s",
	      (unsigned long long)wr_id, ibv_wc_status_str(wc.status),
	      ibv_wc_status_str(status));
	if (out)
		*out = wc;
	return 0;
}

int ut_no_wc(struct ut_ctx *c, int ms)
{
	struct ibv_wc wc;
	int n;

	usleep(ms * 1000);
	n = ibv_poll_cq(c->cq, 1, &wc);
	CHECK(n == 0, "unexpected completion wr_id %llu %s",
	      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	return 0;
}

static bool port_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_PORT_ACTIVE || t == IBV_EVENT_PORT_ERR ||
	       t == IBV_EVENT_GID_CHANGE;
}

/* Reads the next non-port event within @ms; 1 if none came. */
static int next_event(struct ut_ctx *c, int ms, enum ibv_event_type *type,
		      const void **element)
{
	struct pollfd pfd = {.fd = c->ctx->async_fd, .events = POLLIN};
	struct ibv_async_event ev;
	struct timespec t0;
	long long left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		left = ms - ms_since(&t0);
		if (left < 0)
			left = 0;
		if (poll(&pfd, 1, (int)left) != 1)
			return 1;
		CHECK(!ibv_get_async_event(c->ctx, &ev), "get_async_event: %s",
		      strerror(errno));
		*type = ev.event_type;
		/* The union's members alias: any of them is the object. */
		*element = ev.element.qp;
		ibv_ack_async_event(&ev);
		if (!port_event(*type))
			return 0;
	}
}

int ut_expect_event(struct ut_ctx *c, enum ibv_event_type type,
		    const void *element)
{
	enum ibv_event_type got;
	const void *el;
	int ret = next_event(c, 5000, &got, &el);

	CHECK(ret <= 0, "no async event (expected %s)",
	      ibv_event_type_str(type));
	if (ret < 0)
		return -1;
	CHECK(got == type, "async event %s, expected %s",
	      ibv_event_type_str(got), ibv_event_type_str(type));
	CHECK(el == element, "%s for element %p, expected %p",
	      ibv_event_type_str(got), el, element);
	return 0;
}

int ut_no_event(struct ut_ctx *c, int ms)
{
	enum ibv_event_type got;
	const void *el;
	int ret = next_event(c, ms, &got, &el);

	if (ret < 0)
		return -1;
	CHECK(ret == 1, "unexpected async event %s (element %p)",
	      ibv_event_type_str(got), el);
	return 0;
}

/* Empties the CQ and the event queue between tests. */
static void settle(struct ut_ctx *c)
{
	enum ibv_event_type t;
	const void *el;
	struct ibv_wc wc;

	usleep(20000);
	while (ibv_poll_cq(c->cq, 1, &wc) > 0)
		;
	while (next_event(c, 0, &t, &el) == 0)
		;
}

void ut_summary(unsigned int passed, unsigned int failed, unsigned int checks)
{
	/* Not "N passed, N failed" alone: that line is the test runner's. */
	printf("sections: %u passed, %u failed; %u checks\n", passed, failed,
	       checks);
}

int ut_main(int argc, char **argv, const struct ut_test *tests, unsigned int n)
{
	const char *dev_name = "mlx_hw0";
	unsigned int i, checks, total = 0, passed = 0, failures = 0;
	int gid_index = 1, opt, j, run;
	struct ut_ctx c;

	while ((opt = getopt(argc, argv, "d:g:")) != -1) {
		if (opt == 'd')
			dev_name = optarg;
		else if (opt == 'g')
			gid_index = atoi(optarg);
		else
			return 2;
	}
	if (ut_open(&c, dev_name, gid_index))
		return 1;
	for (i = 0; i < n; i++) {
		run = optind == argc;
		for (j = optind; j < argc; j++)
			run |= !strcmp(argv[j], tests[i].name);
		if (!run)
			continue;
		checks = ut_checks;
		if (tests[i].fn(&c)) {
			printf("FAIL %s (%u checks)\n", tests[i].name,
			       ut_checks - checks);
			failures++;
		} else {
			printf("PASS %s (%u checks)\n", tests[i].name,
			       ut_checks - checks);
			passed++;
		}
		total += ut_checks - checks;
		fflush(stdout);
		settle(&c);
	}
	ut_summary(passed, failures, total);
	return failures ? 1 : 0;
}
