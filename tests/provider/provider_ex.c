// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * provider_ex - tests of the mlx_hw provider's own logic, over loopback
 * between QPs of one context: the extended CQ (start/next/end_poll and the
 * read_* accessors), the ibv_wr_* builder (batches, inline lists, abort,
 * poisoned batches), queue-full handling, owner-bit wrap of a small CQ,
 * SRQ ring wrap, UD with a userspace AH, solicited-only arming,
 * receive posts that make no system call, and a WAKE that serves only its
 * caller's context.
 *
 *   provider_ex [-d DEV] [-g GID_INDEX] [SECTION...]  exit 0 iff all passed
 *   provider_ex [-d DEV] [-g GID_INDEX] -s N   stream N RDMA WRITEs
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <infiniband/verbs.h>
#include "check.h"

#define BUF	65536
#define QKEY	0x1234

static const char *dev_name = "mlx_hw0";
static int gid_index = 1;


static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *buf;
static union ibv_gid gid;

static struct ibv_cq_ex *cq_ex(int cqe, struct ibv_comp_channel *ch)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe, .channel = ch,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};

	return ibv_create_cq_ex(ctx, &a);
}

static struct ibv_qp *qp_ex(struct ibv_cq *cq, enum ibv_qp_type type,
			    uint32_t wr, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = type == IBV_QPT_UD ?
			IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM :
			IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			IBV_QP_EX_WITH_RDMA_READ,
	};
	struct ibv_qp_attr m = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);

	if (!qp || ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | (type == IBV_QPT_UD ?
				 IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS)))
		return NULL;
	return qp;
}

static int qp_connect(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = gid, .sgid_index = gid_index,
				      .hop_limit = 1 } },
	};
	int ud = qp->qp_type == IBV_QPT_UD;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | (ud ? 0 : IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 10;
	a.retry_cnt = 2;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     (ud ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC));
}

static int post_recv(struct ibv_qp *qp, struct ibv_srq *srq, uint32_t off,
		     uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return srq ? ibv_post_srq_recv(srq, &wr, &bad) :
		     ibv_post_recv(qp, &wr, &bad);
}

struct cqe {
	uint64_t wr_id;
	int status, opcode;
	uint32_t byte_len, qp_num, src_qp, wc_flags;
	__be32 imm;
};

/* Collects @n completions through the extended API (5 s limit). */
static int poll_ex(struct ibv_cq_ex *cq, struct cqe *out, int n)
{
	struct ibv_poll_cq_attr attr = {};
	time_t end = time(NULL) + 5;
	int got = 0, ret;

	while (got < n && time(NULL) <= end) {
		ret = ibv_start_poll(cq, &attr);
		if (ret == ENOENT)
			continue;
		if (ret)
			return -1;
		do {
			struct cqe *e = &out[got++];

			e->wr_id = cq->wr_id;
			e->status = cq->status;
			e->opcode = ibv_wc_read_opcode(cq);
			e->byte_len = ibv_wc_read_byte_len(cq);
			e->qp_num = ibv_wc_read_qp_num(cq);
			e->src_qp = ibv_wc_read_src_qp(cq);
			e->wc_flags = ibv_wc_read_wc_flags(cq);
			e->imm = ibv_wc_read_imm_data(cq);
		} while (got < n && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return got == n ? 0 : -1;
}

static int expect_empty(struct ibv_cq_ex *cq)
{
	struct ibv_poll_cq_attr attr = {};

	usleep(50000);
	return ibv_start_poll(cq, &attr) == ENOENT ? 0 : -1;
}

static int test_cq_ex_flags(void *arg)
{
	(void)arg;
	struct ibv_cq_init_attr_ex a = {
		.cqe = 4, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};

	errno = 0;
	CHECK(!ibv_create_cq_ex(ctx, &a) && errno == EOPNOTSUPP,
	      "timestamp CQ: errno %d", errno);
	return 0;
}

/* One wr_start/wr_complete batch of three requests, checked in order. */
static int test_wr_batch(void *arg)
{
	(void)arg;
	struct ibv_cq_ex *cq = cq_ex(16, NULL);
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *x;
	struct ibv_data_buf inl[2] = { { "inline-", 7 }, { "list", 4 } };
	struct cqe e[6];
	int i;

	CHECK(cq, "cq_ex");
	a = qp_ex(ibv_cq_ex_to_cq(cq), IBV_QPT_RC, 8, NULL);
	b = qp_ex(ibv_cq_ex_to_cq(cq), IBV_QPT_RC, 8, NULL);
	CHECK(a && b && !qp_connect(a, b->qp_num) && !qp_connect(b, a->qp_num),
	      "qp pair: %s", strerror(errno));
	for (i = 0; i < 3; i++)
		CHECK(!post_recv(b, NULL, 4096 * (i + 1), 4096, 100 + i), "recv");
	memcpy(buf, "sge-data", 8);
	memcpy(buf + 512, "written", 7);

	x = ibv_qp_to_qp_ex(a);
	CHECK(x, "qp_to_qp_ex");
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	x->wr_id = 2;
	ibv_wr_send_imm(x, htonl(0xabcd));
	ibv_wr_set_inline_data_list(x, 2, inl);
	x->wr_id = 3;
	ibv_wr_rdma_write_imm(x, mr->rkey, (uintptr_t)buf + 3 * 4096 + 100,
			      htonl(7));
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf + 512, 7);
	CHECK(!ibv_wr_complete(x), "wr_complete");

	CHECK(!poll_ex(cq, e, 6), "6 completions");
	int sends = 0, recvs = 0;
	for (i = 0; i < 6; i++) {
		CHECK(e[i].status == IBV_WC_SUCCESS, "status %d", e[i].status);
		if (e[i].qp_num == a->qp_num) {
			CHECK(e[i].wr_id == (uint64_t)++sends, "send order");
			continue;
		}
		CHECK(e[i].qp_num == b->qp_num, "qp_num");
		CHECK(e[i].wr_id == 100u + recvs, "recv order");
		switch (recvs++) {
		case 0:
			CHECK(e[i].opcode == IBV_WC_RECV && e[i].byte_len == 8 &&
			      !(e[i].wc_flags & IBV_WC_WITH_IMM) &&
			      !memcmp(buf + 4096, "sge-data", 8), "recv 1");
			break;
		case 1:
			CHECK(e[i].opcode == IBV_WC_RECV && e[i].byte_len == 11 &&
			      (e[i].wc_flags & IBV_WC_WITH_IMM) &&
			      ntohl(e[i].imm) == 0xabcd &&
			      !memcmp(buf + 8192, "inline-list", 11), "recv 2");
			break;
		case 2:
			CHECK(e[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
			      ntohl(e[i].imm) == 7 &&
			      !memcmp(buf + 3 * 4096 + 100, "written", 7),
			      "write imm");
			break;
		}
	}

	/* wr_abort discards; a poisoned batch posts nothing. */
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	ibv_wr_abort(x);
	ibv_wr_start(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);	/* no opcode yet */
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	CHECK(ibv_wr_complete(x) == EINVAL, "poisoned batch");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, buf, 4096);		/* beyond the slot */
	CHECK(ibv_wr_complete(x) == EINVAL, "oversized inline");
	CHECK(!expect_empty(cq), "nothing after abort/poison");

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	return 0;
}

/* A send list one longer than the SQ fails at its last element. */
static int test_sq_full(void *arg)
{
	(void)arg;
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_send_wr wr[65], *bad = NULL;
	struct ibv_sge sge = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_qp *a, *b;
	uint32_t n, i;

	CHECK(cq, "cq");
	a = qp_ex(cq, IBV_QPT_RC, 4, NULL);
	b = qp_ex(cq, IBV_QPT_RC, 4, NULL);
	CHECK(a && b && !ibv_query_qp(a, &qa, IBV_QP_CAP, &ia), "qps");
	n = ia.cap.max_send_wr;
	CHECK(n >= 4 && n < 64, "max_send_wr %u", n);
	CHECK(!qp_connect(a, b->qp_num) && !qp_connect(b, a->qp_num), "connect");
	memset(wr, 0, sizeof(wr));
	for (i = 0; i <= n; i++) {
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].wr.rdma.remote_addr = (uintptr_t)buf + 1024;
		wr[i].wr.rdma.rkey = mr->rkey;
		wr[i].next = i < n ? &wr[i + 1] : NULL;
	}
	CHECK(ibv_post_send(a, wr, &bad) == ENOMEM && bad == &wr[n],
	      "full SQ: bad_wr %td", bad ? bad - wr : -1);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(cq);
	return 0;
}

/*
 * Many passes over a 4-entry CQ, a 4-slot RQ and a 4-slot SRQ: the owner
 * bit and the free-running indices must survive wrapping.  Uses the
 * classic poll_cq on a CQ created with ibv_create_cq_ex.
 */
static int test_wrap(int use_srq)
{
	struct ibv_cq_ex *cqx = cq_ex(4, NULL);
	struct ibv_cq *cq = ibv_cq_ex_to_cq(cqx);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = use_srq ? ibv_create_srq(pd, &sa) : NULL;
	struct ibv_qp *a, *b;
	struct ibv_wc wc;
	int i, got, n;

	CHECK(cqx && (srq || !use_srq), "cq/srq");
	a = qp_ex(cq, IBV_QPT_RC, 4, NULL);
	b = qp_ex(cq, IBV_QPT_RC, 4, srq);
	CHECK(a && b && !qp_connect(a, b->qp_num) && !qp_connect(b, a->qp_num),
	      "qps");
	for (i = 0; i < 40; i++) {
		struct ibv_sge sge = { (uintptr_t)buf + 64, 4, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		time_t end = time(NULL) + 5;

		memcpy(buf + 64, &i, 4);
		CHECK(!post_recv(b, srq, 128 + 4 * (i % 8), 4, 1000 + i), "recv");
		CHECK(!ibv_post_send(a, &wr, &bad), "send %d", i);
		for (got = 0; got < 2 && time(NULL) <= end; got += n) {
			n = ibv_poll_cq(cq, 1, &wc);
			CHECK(n >= 0, "poll");
			if (!n)
				continue;
			CHECK(wc.status == IBV_WC_SUCCESS, "status %d", wc.status);
			CHECK(wc.wr_id == (wc.opcode == IBV_WC_RECV ? 1000u + i :
					   (uint64_t)i), "wr_id %llu at %d",
			      (unsigned long long)wc.wr_id, i);
		}
		CHECK(got == 2 && !memcmp(buf + 128 + 4 * (i % 8), &i, 4),
		      "iteration %d", i);
	}
	if (srq) {
		struct ibv_srq_attr q;

		CHECK(!ibv_query_srq(srq, &q) && q.max_wr >= 4, "query_srq");
	}
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	if (srq)
		ibv_destroy_srq(srq);
	ibv_destroy_cq(cq);
	return 0;
}

/* UD through a userspace AH and wr_set_ud_addr; the GRH comes first. */
static int test_wrap_cq(void *arg)
{
	(void)arg;
	return test_wrap(0);
}

static int test_wrap_srq(void *arg)
{
	(void)arg;
	return test_wrap(1);
}

static int test_ud(void *arg)
{
	(void)arg;
	struct ibv_cq_ex *cq = cq_ex(8, NULL);
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = gid, .sgid_index = gid_index, .hop_limit = 1 },
	};
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *x;
	struct ibv_ah *ah;
	struct cqe e[2];
	int i;

	CHECK(cq, "cq");
	a = qp_ex(ibv_cq_ex_to_cq(cq), IBV_QPT_UD, 4, NULL);
	b = qp_ex(ibv_cq_ex_to_cq(cq), IBV_QPT_UD, 4, NULL);
	CHECK(a && b && !qp_connect(a, 0) && !qp_connect(b, 0), "ud qps");
	ah = ibv_create_ah(pd, &aa);
	CHECK(ah, "create_ah: %s", strerror(errno));
	CHECK(!post_recv(b, NULL, 2048, 40 + 16, 7), "recv");
	memcpy(buf, "ud-datagram-0123", 16);
	x = ibv_qp_to_qp_ex(a);
	ibv_wr_start(x);
	x->wr_id = 5;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(x, htonl(42));
	ibv_wr_set_ud_addr(x, ah, b->qp_num, QKEY);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 16);
	CHECK(!ibv_wr_complete(x), "wr_complete");
	CHECK(!poll_ex(cq, e, 2), "ud completions");
	for (i = 0; i < 2; i++) {
		CHECK(e[i].status == IBV_WC_SUCCESS, "status %d", e[i].status);
		if (e[i].wr_id != 7)
			continue;
		CHECK(e[i].byte_len == 56 && e[i].src_qp == a->qp_num &&
		      (e[i].wc_flags & IBV_WC_GRH) && ntohl(e[i].imm) == 42 &&
		      !memcmp(buf + 2048 + 40, "ud-datagram-0123", 16),
		      "ud recv: len %u src 0x%x", e[i].byte_len, e[i].src_qp);
	}
	ibv_destroy_ah(ah);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	return 0;
}

/* Solicited-only arming ignores an unsolicited receive, fires on one. */
static int test_solicited(void *arg)
{
	(void)arg;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = ch ? ibv_create_cq(ctx, 8, NULL, ch, 0) : NULL;
	struct ibv_cq *scq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *a, *b;
	struct pollfd pfd;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct ibv_wc wc;
	int i;

	CHECK(cq && scq, "cqs");
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	CHECK(a && b, "qps");
	{
		struct ibv_qp_attr m = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

		CHECK(!ibv_modify_qp(a, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) &&
		      !ibv_modify_qp(b, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), "init");
	}
	CHECK(!qp_connect(a, b->qp_num) && !qp_connect(b, a->qp_num), "connect");
	CHECK(!ibv_req_notify_cq(cq, 1), "arm solicited");
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	for (i = 0; i < 2; i++) {
		struct ibv_sge sge = { (uintptr_t)buf, 4, mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = i ? IBV_SEND_SOLICITED : 0 },
				   *bad;

		CHECK(!post_recv(b, NULL, 256, 4, i), "recv");
		CHECK(!ibv_post_send(a, &wr, &bad), "send");
		usleep(100000);
		if (!i)	/* spurious events are allowed (PRM 6.3) but rare */
			fprintf(stderr, "unsolicited: %s\n",
				poll(&pfd, 1, 0) > 0 ? "event (spurious)" :
						       "no event");
	}
	CHECK(poll(&pfd, 1, 5000) == 1, "no event for the solicited message");
	CHECK(!ibv_get_cq_event(ch, &ev_cq, &ev_ctx) && ev_cq == cq, "event");
	ibv_ack_cq_events(cq, 1);
	for (i = 0; i < 2; i++)
		CHECK(ibv_poll_cq(cq, 1, &wc) == 1 && wc.wr_id == (uint64_t)i,
		      "recv %d", i);
	while (ibv_poll_cq(scq, 1, &wc) > 0)
		;
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(cq);
	ibv_destroy_cq(scq);
	ibv_destroy_comp_channel(ch);
	return 0;
}

/*
 * Traps the calling thread's ioctl(), write() and writev() from now on (the
 * calls a provider could make into the kernel on a post): each raises
 * SIGSYS, counted by on_sigsys(), and fails without reaching the kernel.
 * For good, and for this thread only: a thread that exits after the calls
 * it checks.
 */
static volatile sig_atomic_t calls_trapped;

static void on_sigsys(int sig)
{
	(void)sig;
	calls_trapped++;
}

static int forbid_calls(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_writev, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Posts 8 receives to @arg (a QP) with calls into the kernel trapped. */
static void *post_without_calls(void *arg)
{
	int i;

	if (forbid_calls())
		return (void *)1;
	for (i = 0; i < 8; i++)
		if (post_recv(arg, NULL, 256 * i, 256, 200 + i))
			return (void *)2;
	return NULL;
}

/*
 * A receive post makes no system call (PRM 3.3): the engine reads rq_pi
 * when a message arrives.  A thread posts receives with its calls into
 * the kernel trapped (seccomp, that thread only; a fork would not do: the
 * rings are not copied into a child), after the engine had time to fall
 * asleep, so that a post that rang would call WAKE.  The receives are
 * real, as the flush at ERR shows.  In ERR a post must reach the engine
 * (MLX_HW_QP_DB_RING_RQ): a QP already in ERR flushes what is posted.
 */
static int test_rq_no_call(void *arg)
{
	(void)arg;
	struct ibv_cq_ex *cq = cq_ex(64, NULL);
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct sigaction sa = { .sa_handler = on_sigsys };
	struct ibv_qp *a, *b, *c;
	struct cqe e[8];
	pthread_t t;
	void *ret;
	int i;

	CHECK(cq, "cq_ex");
	a = qp_ex(ibv_cq_ex_to_cq(cq), IBV_QPT_RC, 8, NULL);
	b = qp_ex(ibv_cq_ex_to_cq(cq), IBV_QPT_RC, 8, NULL);
	c = qp_ex(ibv_cq_ex_to_cq(cq), IBV_QPT_RC, 8, NULL);
	SETUP(a && b && c && !qp_connect(a, b->qp_num) &&
	      !qp_connect(b, a->qp_num), "qps: %s", strerror(errno));
	SETUP(!sigaction(SIGSYS, &sa, NULL), "sigaction");
	usleep(100000);		/* past any engine's idle spin: it sleeps */
	calls_trapped = 0;
	SETUP(!pthread_create(&t, NULL, post_without_calls, b), "thread");
	SETUP(!pthread_join(t, &ret), "join");
	SETUP(!ret, "posting thread: step %ld failed", (long)ret);
	CHECK(!calls_trapped, "8 receive posts made %d calls into the kernel",
	      (int)calls_trapped);
	CHECK(!ibv_modify_qp(b, &err, IBV_QP_STATE), "b to ERR");
	CHECK(!poll_ex(cq, e, 8), "flush of the child's receives");
	for (i = 0; i < 8; i++)
		CHECK(e[i].status == IBV_WC_WR_FLUSH_ERR &&
		      e[i].wr_id == (uint64_t)(200 + i) && e[i].qp_num == b->qp_num,
		      "flushed %d: wr_id %llu status %d", i,
		      (unsigned long long)e[i].wr_id, e[i].status);

	CHECK(!ibv_modify_qp(c, &err, IBV_QP_STATE), "c to ERR");
	usleep(100000);
	for (i = 0; i < 4; i++)
		SETUP(!post_recv(c, NULL, 0, 64, 300 + i), "recv in ERR");
	CHECK(!poll_ex(cq, e, 4), "flush of receives posted in ERR");
	for (i = 0; i < 4; i++)
		CHECK(e[i].status == IBV_WC_WR_FLUSH_ERR &&
		      e[i].wr_id == (uint64_t)(300 + i), "flushed in ERR %d", i);
	CHECK(!expect_empty(cq), "more completions than receives");
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_qp(c);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	return 0;
}

/* The device's port counter @name (docs/prm.md 12), or -1. */
static long long hw_counter(const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 ibv_get_device_name(ctx->device), name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int post_send(struct ibv_qp *qp, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Posts one SEND on @arg (a QP) with calls into the kernel trapped. */
static void *send_without_calls(void *arg)
{
	if (forbid_calls())
		return (void *)1;
	return post_send(arg, 1) ? (void *)2 : NULL;
}

/* The globals the helpers use: a second context swaps its own in. */
struct verbs_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static void env_swap(struct verbs_env *e)
{
	struct verbs_env t = { ctx, pd, mr, buf };

	ctx = e->ctx, pd = e->pd, mr = e->mr, buf = e->buf;
	*e = t;
}

/* Collects @n successful completions of a classic CQ (5 s limit). */
static int poll_ok(struct ibv_cq *cq, int n)
{
	time_t end = time(NULL) + 5;
	struct ibv_wc wc;
	int k;

	while (n > 0 && time(NULL) <= end) {
		k = ibv_poll_cq(cq, 1, &wc);
		CHECK(k >= 0, "poll");
		CHECK(!k || wc.status == IBV_WC_SUCCESS, "wr_id %llu: %s",
		      (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status));
		n -= k;
	}
	CHECK(!n, "%d completions missing", n);
	return 0;
}

/*
 * One try of test_wake_own: 1 if it proved the rule, 0 if the thread woke
 * meanwhile (it may serve any context: nothing shown), -1 on failure.
 */
static int wake_own_try(struct ibv_cq *acq, struct ibv_qp *a1,
			struct ibv_qp *a2, struct ibv_cq *bcq,
			struct ibv_qp *b1, struct ibv_qp *b2,
			struct verbs_env *b)
{
	long long w0, w1;
	struct ibv_wc wc;
	pthread_t t;
	void *ret;
	int i, a_done;

	SETUP(!post_recv(a2, NULL, 4096, 64, 10) &&
	      !post_recv(a2, NULL, 4096, 64, 11), "a's receives");
	usleep(100000);		/* past the engine's idle spin: it sleeps */
	w0 = hw_counter("engine_wakeups");
	SETUP(w0 >= 0, "engine_wakeups: %s", strerror(errno));
	calls_trapped = 0;
	SETUP(!pthread_create(&t, NULL, send_without_calls, a1), "thread");
	SETUP(!pthread_join(t, &ret), "join");
	SETUP(!ret, "posting thread: step %ld failed", (long)ret);
	/* Context b's own doorbells, each served by its own WAKE. */
	for (i = 0; i < 5; i++) {
		env_swap(b);
		SETUP(!post_recv(b2, NULL, 4096, 64, 20 + i) &&
		      !post_send(b1, 30 + i), "b's post %d", i);
		env_swap(b);
		if (poll_ok(bcq, 2))
			return -1;
		usleep(2000);	/* apart by more than the thread's spin */
	}
	w1 = hw_counter("engine_wakeups");
	a_done = ibv_poll_cq(acq, 1, &wc);
	if (w1 != w0)
		return 0;
	CHECK(calls_trapped == 1,
	      "a's post made %d calls (1: the WAKE of a sleeping engine)",
	      (int)calls_trapped);
	CHECK(!a_done, "b's WAKEs ran a's QP (the thread never woke)");
	/* a's own WAKE serves a's ring: both SENDs go, both arrive. */
	SETUP(!post_send(a1, 2), "a's second post");
	return poll_ok(acq, 4) ? -1 : 1;
}

/*
 * A WAKE serves its caller's context, never another's (PRM 2).  Context a
 * rings a doorbell whose WAKE is trapped (seccomp, as test_rq_no_call), so
 * only the sleeping thread could serve it; context b then makes WAKEs of
 * its own, further apart than the thread's spin, so that none wakes the
 * thread.  a's SEND must not have gone until a calls WAKE itself, and
 * engine_wakeups shows the thread slept throughout.  A thread that woke
 * anyway (to look for a free CPU, or for a timer) proves nothing: up to 3
 * tries.
 */
static int test_wake_own(void *arg)
{
	(void)arg;
	struct sigaction sa = { .sa_handler = on_sigsys };
	struct ibv_qp *a1, *a2, *b1, *b2;
	struct ibv_cq *acq, *bcq;
	struct verbs_env b = {};
	int try, r = 0;

	SETUP(!sigaction(SIGSYS, &sa, NULL), "sigaction");
	b.ctx = ibv_open_device(ctx->device);
	b.pd = b.ctx ? ibv_alloc_pd(b.ctx) : NULL;
	b.buf = calloc(1, BUF);
	b.mr = b.pd && b.buf ? ibv_reg_mr(b.pd, b.buf, BUF,
					  IBV_ACCESS_LOCAL_WRITE) : NULL;
	SETUP(b.mr, "second context: %s", strerror(errno));
	for (try = 0; try < 3 && !r; try++) {
		acq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		a1 = acq ? qp_ex(acq, IBV_QPT_RC, 8, NULL) : NULL;
		a2 = acq ? qp_ex(acq, IBV_QPT_RC, 8, NULL) : NULL;
		env_swap(&b);
		bcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		b1 = bcq ? qp_ex(bcq, IBV_QPT_RC, 8, NULL) : NULL;
		b2 = bcq ? qp_ex(bcq, IBV_QPT_RC, 8, NULL) : NULL;
		SETUP(b1 && b2 && !qp_connect(b1, b2->qp_num) &&
		      !qp_connect(b2, b1->qp_num), "b's QPs");
		env_swap(&b);
		SETUP(a1 && a2 && !qp_connect(a1, a2->qp_num) &&
		      !qp_connect(a2, a1->qp_num), "a's QPs");
		r = wake_own_try(acq, a1, a2, bcq, b1, b2, &b);
		if (!r)
			printf("wake_own: the thread woke in try %d\n", try + 1);
		ibv_destroy_qp(a1);
		ibv_destroy_qp(a2);
		ibv_destroy_qp(b1);
		ibv_destroy_qp(b2);
		ibv_destroy_cq(acq);
		ibv_destroy_cq(bcq);
	}
	ibv_dereg_mr(b.mr);
	ibv_dealloc_pd(b.pd);
	ibv_close_device(b.ctx);
	free(b.buf);
	CHECK(r, "the engine thread woke in all 3 tries: nothing shown");
	return r < 0 ? -1 : 0;
}

/*
 * Streams @n RDMA WRITEs, every 16th signaled, keeping up to 64 in flight:
 * with work always queued the engine never sleeps, so the posting path
 * should make (almost) no system call; the caller counts them with strace.
 */
static int stream(unsigned int n)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
	}, *bad;
	unsigned int posted = 0, done = 0;
	struct ibv_qp *a, *b;
	struct ibv_wc wc[8];
	struct timespec t0, t1;
	int i, k;

	CHECK(cq, "cq");
	a = qp_ex(cq, IBV_QPT_RC, 64, NULL);
	b = qp_ex(cq, IBV_QPT_RC, 64, NULL);
	CHECK(a && b && !qp_connect(a, b->qp_num) && !qp_connect(b, a->qp_num),
	      "qps");
	wr.wr.rdma.remote_addr = (uintptr_t)buf + 4096;
	wr.wr.rdma.rkey = mr->rkey;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done < n) {
		while (posted < n && posted - done < 64) {
			wr.wr_id = posted;
			wr.send_flags = (posted % 16 == 15 || posted == n - 1) ?
					IBV_SEND_SIGNALED : 0;
			CHECK(!ibv_post_send(a, &wr, &bad), "post %u", posted);
			posted++;
		}
		k = ibv_poll_cq(cq, 8, wc);
		CHECK(k >= 0, "poll");
		for (i = 0; i < k; i++) {
			CHECK(wc[i].status == IBV_WC_SUCCESS, "status %d",
			      wc[i].status);
			done = wc[i].wr_id + 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%u RDMA WRITEs in %.3f s\n", n, (t1.tv_sec - t0.tv_sec) +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(cq);
	return 0;
}

int main(int argc, char *argv[])
{
	static const struct check_section tests[] = {
		{ "cq_ex_flags", test_cq_ex_flags, true },
		{ "wr_batch", test_wr_batch, true },
		{ "sq_full", test_sq_full, true },
		{ "wrap", test_wrap_cq, true },
		{ "wrap_srq", test_wrap_srq, true },
		{ "ud", test_ud, true },
		{ "solicited", test_solicited, true },
		{ "rq_no_call", test_rq_no_call, true },
		{ "wake_own", test_wake_own, true },
	};
	struct ibv_device **list;
	int opt, i, ret, n_stream = 0;

	while ((opt = getopt(argc, argv, "d:g:s:")) != -1) {
		if (opt == 'd')
			dev_name = optarg;
		else if (opt == 'g')
			gid_index = atoi(optarg);
		else if (opt == 's')
			n_stream = atoi(optarg);
		else
			return 2;
	}
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx || ibv_query_gid(ctx, 1, gid_index, &gid)) {
		fprintf(stderr, "cannot open %s\n", dev_name);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	buf = calloc(1, BUF);
	mr = pd && buf ? ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ) : NULL;
	if (!mr) {
		perror("pd/mr");
		return 1;
	}
	if (n_stream > 0)
		return stream(n_stream) ? 1 : 0;
	ret = check_run(tests, sizeof(tests) / sizeof(tests[0]), argv + optind,
			argc - optind, NULL, NULL);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	return ret;
}
