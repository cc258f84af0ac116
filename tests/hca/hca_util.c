// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* hca_util - see hca_util.h. */
#include <errno.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hca_util.h"
/* The provider's QP, for ut_qp_mem: our tests, built with our provider. */
#include "../../userspace/provider/mlx_hw.h"


int ut_open(struct ut_ctx *c, const char *dev_name, int gid_index)
{
	struct ibv_device **list;
	int i, n;

	memset(c, 0, sizeof(*c));
	c->dev_name = dev_name;
	c->gid_index = gid_index;
	list = ibv_get_device_list(&n);
	SETUP(list, "get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			c->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	SETUP(c->ctx, "cannot open %s", dev_name);
	SETUP(!ibv_query_gid(c->ctx, 1, gid_index, &c->gid), "query_gid");
	c->pd = ibv_alloc_pd(c->ctx);
	c->ch = ibv_create_comp_channel(c->ctx);
	c->cq = ibv_create_cq(c->ctx, 256, NULL, c->ch, 0);
	SETUP(c->pd && c->ch && c->cq, "pd/channel/cq: %s", strerror(errno));
	c->buf = aligned_alloc(4096, 2 * UT_BUF_SIZE);
	SETUP(c->buf, "alloc");
	memset(c->buf, 0, 2 * UT_BUF_SIZE);
	c->mr = ibv_reg_mr(c->pd, c->buf, 2 * UT_BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | UT_ACCESS_REMOTE);
	SETUP(c->mr, "reg_mr: %s", strerror(errno));
	return 0;
}

void ut_fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

int ut_init(struct ibv_qp *qp, unsigned int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = UT_QKEY,
		.qp_access_flags = access,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	SETUP(!ibv_modify_qp(qp, &a, mask), "to INIT: %s", strerror(errno));
	return 0;
}

struct ibv_qp *ut_qp_cap(struct ut_ctx *c, enum ibv_qp_type type,
			 struct ibv_srq *srq, unsigned int access,
			 const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.srq = srq,
		.cap = *cap,
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(c->pd, &ia);

	if (!qp) {
		fprintf(stderr, "create_qp: %s\n", strerror(errno));
		return NULL;
	}
	if (ia.cap.max_inline_data < cap->max_inline_data) {
		fprintf(stderr, "max_inline_data %u < %u\n",
			ia.cap.max_inline_data, cap->max_inline_data);
	} else if (!ut_init(qp, access)) {
		return qp;
	}
	ibv_destroy_qp(qp);
	return NULL;
}

struct ibv_qp *ut_qp(struct ut_ctx *c, enum ibv_qp_type type,
		     struct ibv_srq *srq, unsigned int access)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 16,
		.max_recv_wr = 16,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};

	return ut_qp_cap(c, type, srq, access, &cap);
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
	int mask = IBV_QP_STATE;

	if (qp->qp_type != IBV_QPT_UD)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	SETUP(!ibv_modify_qp(qp, &a, mask), "to RTR: %s", strerror(errno));
	return 0;
}

uint8_t ut_ack_timeout = 10;
uint8_t ut_max_rd_atomic = 4;

int ut_rts(struct ibv_qp *qp, uint8_t retry_cnt, uint8_t rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = 100,
		.timeout = ut_ack_timeout,
		.retry_cnt = retry_cnt,
		.rnr_retry = rnr_retry,
		.max_rd_atomic = ut_max_rd_atomic,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	SETUP(!ibv_modify_qp(qp, &a, mask), "to RTS: %s", strerror(errno));
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

struct ibv_ah *ut_self_ah(struct ut_ctx *c)
{
	struct ibv_ah_attr aa = {.is_global = 1,
				 .port_num = 1,
				 .grh = {.dgid = c->gid,
					 .sgid_index = c->gid_index,
					 .hop_limit = 64}};

	return ibv_create_ah(c->pd, &aa);
}

int ut_post_recv(struct ut_ctx *c, struct ibv_qp *qp, struct ibv_srq *srq,
		 uint64_t off, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {(uintptr_t)c->buf + off, len, c->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1},
			   *bad;
	int ret = srq ? ibv_post_srq_recv(srq, &wr, &bad)
		      : ibv_post_recv(qp, &wr, &bad);

	SETUP(!ret, "post_recv: %s", strerror(ret));
	return 0;
}

int ut_post(struct ut_ctx *c, struct ibv_qp *qp, const struct ut_send *s)
{
	struct ibv_sge sge = {(uintptr_t)c->buf + s->off, s->len, c->mr->lkey};
	struct ibv_send_wr wr = {
		.wr_id = s->wr_id,
		.sg_list = &sge,
		.num_sge = s->len ? 1 : 0,
		.opcode = s->op,
		.send_flags = s->flags,
		.imm_data = htonl(UT_IMM),
	};
	struct ibv_send_wr *bad;
	int ret;

	if (s->op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    s->op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = s->raddr;
		wr.wr.atomic.rkey = s->rkey;
		wr.wr.atomic.compare_add = 1;
	} else if (s->ah) {
		wr.wr.ud.ah = s->ah;
		wr.wr.ud.remote_qpn = s->dqpn;
		wr.wr.ud.remote_qkey = UT_QKEY;
	} else {
		wr.wr.rdma.remote_addr = s->raddr;
		wr.wr.rdma.rkey = s->rkey;
	}
	ret = ibv_post_send(qp, &wr, &bad);
	SETUP(!ret, "post_send: %s", strerror(ret));
	return 0;
}

int ut_post_send(struct ut_ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
		 uint64_t off, uint32_t len, uint64_t wr_id, uint64_t raddr,
		 uint32_t rkey)
{
	struct ut_send s = {
		.op = op,
		.off = off,
		.len = len,
		.flags = IBV_SEND_SIGNALED,
		.wr_id = wr_id,
		.raddr = raddr,
		.rkey = rkey,
	};

	return ut_post(c, qp, &s);
}

long long ut_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int ut_poll_ms = 5000;

int ut_poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(n = ibv_poll_cq(cq, 1, wc)) && ut_ms_since(&t0) < ut_poll_ms)
		usleep(100);
	return n == 1 ? 0 : -1;
}

int ut_poll_none(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;

	usleep(ms * 1000);
	return ibv_poll_cq(cq, 1, &wc) == 0 ? 0 : -1;
}

/* @check_op: on success also @opcode and @byte_len (< 0: any). */
static int expect_wc(struct ut_ctx *c, uint64_t wr_id,
		     enum ibv_wc_status status, bool check_op,
		     enum ibv_wc_opcode opcode, int byte_len,
		     struct ibv_wc *out)
{
	struct ibv_wc wc;

	CHECK(!ut_poll_one(c->cq, &wc), "no completion for wr_id %llu",
	      (unsigned long long)wr_id);
	CHECK(wc.wr_id == wr_id, "wr_id %llu (%s), expected %llu",
	      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
	      (unsigned long long)wr_id);
	CHECK(wc.status == status, "wr_id %llu: %s, expected %s",
	      (unsigned long long)wr_id, ibv_wc_status_str(wc.status),
	      ibv_wc_status_str(status));
	if (check_op && status == IBV_WC_SUCCESS) {
		CHECK(wc.opcode == opcode, "wr_id %llu: opcode %d, expected %d",
		      (unsigned long long)wr_id, wc.opcode, opcode);
		CHECK(ut_len_ok(wc.byte_len, byte_len),
		      "wr_id %llu: byte_len %u, expected %d",
		      (unsigned long long)wr_id, wc.byte_len, byte_len);
	}
	if (out)
		*out = wc;
	return 0;
}

int ut_expect(struct ut_ctx *c, uint64_t wr_id, enum ibv_wc_status status,
	      struct ibv_wc *out)
{
	return expect_wc(c, wr_id, status, false, 0, -1, out);
}

int ut_expect_op(struct ut_ctx *c, uint64_t wr_id, enum ibv_wc_status status,
		 enum ibv_wc_opcode opcode, int byte_len, struct ibv_wc *out)
{
	return expect_wc(c, wr_id, status, true, opcode, byte_len, out);
}

int ut_poll_two(struct ut_ctx *c, uint64_t id1, uint64_t id2, struct ibv_wc *w1,
		struct ibv_wc *w2)
{
	struct ibv_wc wc[2], t;
	int i;

	for (i = 0; i < 2; i++)
		CHECK(!ut_poll_one(c->cq, &wc[i]),
		      "completion %d of wr_ids %llu/%llu missing", i,
		      (unsigned long long)id1, (unsigned long long)id2);
	if (wc[0].wr_id == id2) {
		t = wc[0];
		wc[0] = wc[1];
		wc[1] = t;
	}
	CHECK(wc[0].wr_id == id1 && wc[1].wr_id == id2,
	      "wr_ids %llu %llu, expected %llu %llu",
	      (unsigned long long)wc[0].wr_id, (unsigned long long)wc[1].wr_id,
	      (unsigned long long)id1, (unsigned long long)id2);
	if (w1)
		*w1 = wc[0];
	if (w2)
		*w2 = wc[1];
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
		left = ms - ut_ms_since(&t0);
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

int ut_wait_event(struct ut_ctx *c, enum ibv_event_type type)
{
	enum ibv_event_type got;
	const void *el;
	int ret;

	do {
		ret = next_event(c, 5000, &got, &el);
		if (ret < 0)
			return -1;
		CHECK(ret == 0, "no async event %s", ibv_event_type_str(type));
	} while (got != type);
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

void ut_drain_cq(struct ut_ctx *c)
{
	struct ibv_wc wc;

	usleep(20000);
	while (ibv_poll_cq(c->cq, 1, &wc) > 0)
		;
}

long long ut_counter(struct ut_ctx *c, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", c->dev_name,
		 name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void ut_settle(struct ut_ctx *c)
{
	enum ibv_event_type t;
	const void *el;

	ut_drain_cq(c);
	while (next_event(c, 0, &t, &el) == 0)
		;
}

int ut_main(int argc, char **argv, const struct ut_test *tests, unsigned int n)
{
	const char *dev_name = "mlx_hw0";
	unsigned int i, passed = 0, failed = 0;
	int gid_index = 1, opt, j;
	struct ut_ctx c;

	while ((opt = getopt(argc, argv, "d:g:")) != -1) {
		if (opt == 'd')
			dev_name = optarg;
		else if (opt == 'g')
			gid_index = atoi(optarg);
		else
			return 2;
	}
	for (j = optind; j < argc; j++) {
		for (i = 0; i < n && strcmp(tests[i].name, argv[j]); i++)
			;
		if (i == n) {
			printf("FAIL unknown section '%s'\n", argv[j]);
			return 1;
		}
	}
	if (ut_open(&c, dev_name, gid_index))
		return 1;
	for (i = 0; i < n; i++) {
		struct check_mark m = check_begin();

		if (!check_wanted(tests[i].name, argv + optind, argc - optind,
				  true))
			continue;
		if (check_end(tests[i].name, m, tests[i].fn(&c)))
			passed++;
		else
			failed++;
		ut_settle(&c);
	}
	return check_summary(passed, failed);
}

int ut_uverbs_maps(struct ut_map *m)
{
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long s, e;
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < UT_MAX_MAPS) {
		if (!strstr(line, "uverbs") ||
		    sscanf(line, "%lx-%lx %7s", &s, &e, perms) != 3)
			continue;
		m[n].start = s;
		m[n].end = e;
		m[n].writable = perms[1] == 'w';
		n++;
	}
	fclose(f);
	return n;
}

void ut_qp_mem(struct ibv_qp *ibqp, struct ut_qp_mem *m)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);

	m->db = qp->db;
	m->sq = qp->sq.buf;
	m->sq_stride = qp->sq.stride;
	m->rq = qp->rq.wqe_cnt ? qp->rq.buf : NULL;
	m->rq_stride = qp->rq.stride;
}
