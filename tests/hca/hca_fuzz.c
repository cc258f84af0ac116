// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_fuzz - the trust rules of docs/prm.md section 9: a process scribbles
 * garbage into its own rings and doorbell records (random WQEs, receive
 * WQEs, out-of-range producer indices, engine-owned fields, CQ arm words)
 * and the device must answer with error completions, flushes or
 * IBV_EVENT_QP_FATAL, never hang or fault (the VM runner checks the kernel
 * log).  Afterwards a fresh QP pair must still work.
 *
 *   hca_fuzz [-d DEV] [-g GID_INDEX] [-n ROUNDS]
 *
 * The rings are found by their mmap in /proc/self/maps (the QP region is
 * the uverbs mapping that appears with the QP, the context's doorbell ring
 * the writable one that appears with the context), laid out as the PRM
 * says.  The doorbell ring gets garbage entries, pi/ci words and overflow
 * flags too (PRM 2.1).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <infiniband/verbs.h>
#include "hca_util.h"


static const char *dev_name = "mlx_hw0";
static int gid_index = 1;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	union ibv_gid gid;
	uint8_t *buf;
	volatile uint32_t *dbr;		/* the context's doorbell ring page */
};

/* An RC QP with 8 SQ slots of 64 bytes and 8 RQ slots of 32 (one SGE). */
static struct ibv_qp *make_qp(struct env *e, struct ut_qp_mem *mem)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &ia);

	if (qp)
		ut_qp_mem(qp, mem);
	return qp;
}

static int connect_qp(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = e->gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 8;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Drains completions until none arrives for 100 ms (at most 5 s). */
static int settle(struct env *e)
{
	struct ibv_wc wc[16];
	int idle = 0, total = 0, n;

	while (idle < 100 && total < 5000) {
		n = ibv_poll_cq(e->cq, 16, wc);
		if (n < 0)
			return -1;
		if (n) {
			idle = 0;
		} else {
			usleep(1000);
			idle++;
			total++;
		}
	}
	return 0;
}

/*
 * Rings the doorbell of a hand-made WQE and wakes the engine, naming the
 * QP: MLX_HW_IOCTL_WAKE_DB = _IO(0xb7, 2), argument (1 << 24 | qpn).
 */
static void ring(struct ibv_context *ctx, volatile uint32_t *db, uint32_t v,
		 uint32_t qpn)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*db = v;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ioctl(ctx->cmd_fd, (0xb7 << 8) | 2, (unsigned long)(1u << 24 | qpn));
}

/*
 * Garbage in the doorbell ring (PRM 2.1: header words pi, overflow at 0
 * and 4, ci at 64, 512 entries from byte 128): entries naming no object,
 * objects of no kind, real QPs, the CQ; random overflow and ci words.  The
 * entries are pushed as a producer would (at pi, then pi advanced), so that
 * the provider's own doorbells still reach the engine afterwards; ci is put
 * back once the engine has consumed everything.
 */
static void scribble_ring(struct env *e, uint32_t qpa, uint32_t qpb)
{
	volatile uint32_t *r = e->dbr, *slot = e->dbr + 32;
	uint32_t pi = r[0], k = 1 + rnd() % 16, j, v;

	for (j = 0; j < k; j++) {
		switch (rnd() % 6) {
		case 0: v = 1u << 24 | qpa; break;
		case 1: v = 1u << 24 | qpb; break;
		case 2: v = 2u << 24 | (uint32_t)(rnd() % 8); break;
		case 3: v = 1u << 24 | (uint32_t)(rnd() & 0xffffff); break;
		default: v = (uint32_t)rnd(); break;
		}
		slot[(pi + j) & 511] = v ? v : 0xff000000u;
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	r[0] = pi + k;
	if (rnd() & 1)
		r[1] = (uint32_t)rnd();		/* overflow: a scan of ours */
	if (rnd() & 1)
		r[16] = (uint32_t)rnd();	/* ci is the engine's */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ioctl(e->ctx->cmd_fd, (0xb7 << 8) | 1);
}

static int round_(struct env *e, int r)
{
	struct ut_qp_mem ma, mb;
	struct ibv_qp *a, *b;
	volatile uint32_t *dba, *dbb;
	int i, k;

	a = make_qp(e, &ma);
	b = make_qp(e, &mb);
	if (!a || !b || ma.sq_stride != 64 || !mb.rq || mb.rq_stride != 32) {
		fprintf(stderr, "round %d: QP or its rings not as expected\n",
			r);
		return -1;
	}
	if (connect_qp(e, a, b->qp_num) || connect_qp(e, b, a->qp_num)) {
		fprintf(stderr, "round %d: connect: %s\n", r, strerror(errno));
		return -1;
	}
	dba = (volatile uint32_t *)ma.db;
	dbb = (volatile uint32_t *)mb.db;

	/* Receive WQEs on b, some sane. */
	for (i = 0; i < 4; i++) {
		uint8_t *slot = mb.rq + i * 32;

		for (k = 0; k < 32; k += 8)
			*(uint64_t *)(slot + k) = rnd();
		if (rnd() & 3) {
			*(uint32_t *)(slot + 8) = 1;		/* num_sge */
			*(uint32_t *)(slot + 16) = 4096;	/* byte_count */
			*(uint32_t *)(slot + 20) = e->mr->lkey;
			*(uint64_t *)(slot + 24) = (uintptr_t)e->buf + 4096;
		}
	}
	ring(e->ctx, &dbb[1], 4, b->qp_num);

	/* Garbage send WQEs on a, with plausible opcodes now and then. */
	for (i = 0; i < 8; i++) {
		uint8_t *slot = ma.sq + i * 64;

		for (k = 0; k < 64; k += 8)
			*(uint64_t *)(slot + k) = rnd();
		if (rnd() & 3)
			slot[8] = rnd() % 8;		/* opcode */
		if (rnd() & 1)
			slot[10] = rnd() % 3;		/* num_sge */
		if (rnd() & 3) {
			/* Plausible: signaled, one SGE, remote address on our MR. */
			slot[9] = 2 | (rnd() & 4);	/* SIGNALED, SOLICITED */
			slot[10] = 1;
			*(uint64_t *)(slot + 16) = (uintptr_t)e->buf +
						   (rnd() % 4096 & ~7ull);
			*(uint32_t *)(slot + 24) = (rnd() & 7) ? e->mr->rkey :
							       (uint32_t)rnd();
		}
		if (rnd() & 3) {
			/* A data segment on our MR, maybe out of bounds, after
			 * the raddr/atomic segments the opcode has (PRM 4.2).
			 */
			uint8_t op = slot[8];
			int off = 16 + (op <= 1 || (op >= 4 && op <= 6) ? 16 : 0) +
				  (op == 5 || op == 6 ? 16 : 0);
			uint32_t *d = (uint32_t *)(slot + off);

			d[0] = rnd() % ((rnd() & 3) ? 4096 : 65536);
			d[1] = (rnd() & 7) ? e->mr->lkey : (uint32_t)rnd();
			*(uint64_t *)&d[2] = (uintptr_t)e->buf + rnd() % 4096;
		}
	}
	ring(e->ctx, &dba[0], 8, a->qp_num);
	if (e->dbr && r % 3 == 0)
		scribble_ring(e, a->qp_num, b->qp_num);

	/* Engine-owned fields and CQ words scribbled too. */
	dba[2] = rnd();
	dba[3] = rnd();
	if (r % 4 == 1)
		ring(e->ctx, &dba[0], 0x40000000u, a->qp_num);	/* out of range */
	if (r % 4 == 2)
		ring(e->ctx, &dbb[1], (uint32_t)rnd(), b->qp_num);
	if (settle(e))
		return -1;
	/* Everything pushed was consumed: the engine's ci is pi again. */
	if (e->dbr)
		e->dbr[16] = e->dbr[0];
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	return 0;
}

/* A fresh pair still moves data after all that. */
static int sanity(struct env *e)
{
	struct ibv_sge s = { (uintptr_t)e->buf, 64, e->mr->lkey };
	struct ibv_sge rs = { (uintptr_t)e->buf + 4096, 64, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 },
		*rbad;
	struct ibv_wc wc;
	struct ut_qp_mem ma, mb;
	struct ibv_qp *a = make_qp(e, &ma), *b = make_qp(e, &mb);
	int got = 0, spins = 0;

	if (!a || !b || connect_qp(e, a, b->qp_num) ||
	    connect_qp(e, b, a->qp_num))
		return -1;
	memset(e->buf, 0x5a, 64);
	memset(e->buf + 4096, 0, 64);
	if (ibv_post_recv(b, &rwr, &rbad) || ibv_post_send(a, &wr, &bad))
		return -1;
	while (got < 2 && spins++ < 5000) {
		int n = ibv_poll_cq(e->cq, 1, &wc);

		if (n < 0 || (n && wc.status != IBV_WC_SUCCESS)) {
			fprintf(stderr, "sanity: %s\n",
				ibv_wc_status_str(wc.status));
			return -1;
		}
		got += n;
		if (!n)
			usleep(1000);
	}
	if (got < 2 || memcmp(e->buf, e->buf + 4096, 64))
		return -1;
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct env e = {};
	int i, n, rounds = 200, opt;

	while ((opt = getopt(argc, argv, "d:g:n:")) != -1) {
		if (opt == 'd')
			dev_name = optarg;
		else if (opt == 'g')
			gid_index = atoi(optarg);
		else if (opt == 'n')
			rounds = atoi(optarg);
		else
			return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			e.ctx = ibv_open_device(list[i]);
	if (!e.ctx || ibv_query_gid(e.ctx, 1, gid_index, &e.gid)) {
		fprintf(stderr, "cannot open %s\n", dev_name);
		return 1;
	}
	{
		struct ut_map m[UT_MAX_MAPS];
		int nm = ut_uverbs_maps(m);

		/* Only the engine page (read-only) and the ring exist yet. */
		for (i = 0; i < nm; i++)
			if (m[i].writable && m[i].end - m[i].start == 4096)
				e.dbr = (volatile uint32_t *)m[i].start;
		if (!e.dbr) {
			fprintf(stderr, "FAIL: doorbell ring mapping not found\n");
			return 1;
		}
	}
	e.pd = ibv_alloc_pd(e.ctx);
	e.cq = ibv_create_cq(e.ctx, 1024, NULL, NULL, 0);
	e.buf = aligned_alloc(4096, 8192);
	e.mr = e.buf ? ibv_reg_mr(e.pd, e.buf, 8192, IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC) : NULL;
	if (!e.pd || !e.cq || !e.mr) {
		fprintf(stderr, "setup: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < rounds; i++)
		if (round_(&e, i))
			return 1;
	/* Drain async events (QP_FATAL etc.) without blocking. */
	{
		struct pollfd pfd = { .fd = e.ctx->async_fd, .events = POLLIN };
		struct ibv_async_event ev;

		while (poll(&pfd, 1, 0) == 1 && !ibv_get_async_event(e.ctx, &ev))
			ibv_ack_async_event(&ev);
	}
	if (sanity(&e)) {
		fprintf(stderr, "FAIL: device unusable after fuzzing\n");
		return 1;
	}
	printf("PASS %d fuzz rounds\n", rounds);
	return 0;
}
