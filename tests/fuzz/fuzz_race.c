// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_race.c - races between the data path and destruction, through our
 * libibverbs with the kernel commands sent raw where the library would
 * refuse or free what another thread still uses:
 *
 *  - a QP destroyed (raw DESTROY_QP) while another thread posts to its
 *    still-mapped ring, rings the doorbell and polls its CQ;
 *  - a CQ destroyed while QPs still use it (EBUSY, nothing lost);
 *  - an MR deregistered while 64 KiB WRITEs from it are in flight: every
 *    WR completes, successfully or with an error, none is lost;
 *  - the pages of an on-demand paging MR taken away, replaced or made
 *    inaccessible while WRITEs and READs into and out of it are in flight:
 *    the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <rdma/ib_user_verbs.h>
#include "../hca/hca_util.h"

int fz_races(const char *dev, int gid_index, unsigned int rounds,
	     uint64_t seed);

struct poster {
	struct ut_ctx *c;
	struct ibv_qp *qp;
	volatile int stop;
	unsigned int posted;
};

/* Posts and polls until told to stop; errors are expected once destroyed. */
static void *post_loop(void *arg)
{
	struct poster *p = arg;
	struct ibv_wc wc[16];

	while (!p->stop) {
		struct ibv_sge sge = { (uintptr_t)p->c->buf + UT_SRC, 4096,
				       p->c->mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = p->posted, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)p->c->buf + UT_DST,
				     p->c->mr->rkey },
		}, *bad;

		/* A full queue (no completions once destroyed) is expected. */
		if (!ibv_post_send(p->qp, &wr, &bad))
			p->posted++;
		ibv_poll_cq(p->c->cq, 16, wc);
	}
	return NULL;
}

/* The kernel command, without the library freeing its QP. */
static int raw_destroy_qp(struct ibv_qp *qp)
{
	struct ib_uverbs_destroy_qp_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_qp cmd;
	} req = {
		.hdr = { IB_USER_VERBS_CMD_DESTROY_QP,
			 sizeof(req) / 4, sizeof(resp) / 4 },
		.cmd = { .response = (uintptr_t)&resp,
			 .qp_handle = qp->handle },
	};

	return write(qp->context->cmd_fd, &req, sizeof(req)) == sizeof(req) ?
	       0 : -errno;
}

static int raw_destroy_cq(struct ibv_cq *cq)
{
	struct ib_uverbs_destroy_cq_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_cq cmd;
	} req = {
		.hdr = { IB_USER_VERBS_CMD_DESTROY_CQ,
			 sizeof(req) / 4, sizeof(resp) / 4 },
		.cmd = { .response = (uintptr_t)&resp,
			 .cq_handle = cq->handle },
	};

	return write(cq->context->cmd_fd, &req, sizeof(req)) == sizeof(req) ?
	       0 : -errno;
}

static int race_destroy_qp(struct ut_ctx *c, unsigned int delay_us)
{
	struct ibv_qp *a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	struct ibv_qp *b = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	struct poster p = { .c = c };
	pthread_t t;

	SETUP(a && b && !ut_connect(c, a, b, 7), "QP pair: %s",
	      strerror(errno));
	p.qp = a;
	pthread_create(&t, NULL, post_loop, &p);
	usleep(delay_us);
	CHECK(raw_destroy_qp(a) == 0, "raw DESTROY_QP while posting");
	usleep(delay_us);
	p.stop = 1;
	pthread_join(t, NULL);
	/* The library's QP is left alone: its handle is gone. */
	CHECK(!ibv_destroy_qp(b), "destroy the peer QP");
	return 0;
}

static int race_destroy_busy_cq(struct ut_ctx *c)
{
	struct ibv_qp *a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);

	SETUP(a, "QP: %s", strerror(errno));
	CHECK(raw_destroy_cq(c->cq) == -EBUSY, "DESTROY_CQ of a CQ in use");
	CHECK(!ibv_destroy_qp(a), "destroy_qp");
	return 0;
}

static int race_dereg_in_flight(struct ut_ctx *c, unsigned int n)
{
	struct ibv_mr *mr = ibv_reg_mr(c->pd, c->buf, UT_BUF_SIZE,
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp *a, *b;
	struct ibv_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	unsigned int i, got = 0, ok = 0;
	struct ibv_wc wc;

	a = ut_qp_cap(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE, &cap);
	b = ut_qp_cap(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE, &cap);
	SETUP(mr && a && b && !ut_connect(c, a, b, 7), "setup: %s",
	      strerror(errno));
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)c->buf, 65536, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)c->buf + UT_DST, c->mr->rkey },
		}, *bad;

		SETUP(!ibv_post_send(a, &wr, &bad), "post %u", i);
	}
	CHECK(!ibv_dereg_mr(mr), "dereg_mr with WRITEs in flight: %s",
	      strerror(errno));
	while (got < n && !ut_poll_one(c->cq, &wc)) {
		got++;
		ok += wc.status == IBV_WC_SUCCESS;
		CHECK(wc.status == IBV_WC_SUCCESS ||
		      wc.status == IBV_WC_LOC_PROT_ERR ||
		      wc.status == IBV_WC_WR_FLUSH_ERR,
		      "WR %llu: %s", (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status));
	}
	CHECK(got == n, "%u of %u WRs completed", got, n);
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy QPs");
	return 0;
}

/* How a race takes an ODP MR's pages away (race_odp_unmap). */
static void odp_zap(uint8_t *p, size_t len, unsigned int how)
{
	switch (how) {
	case 0:
		madvise(p, len, MADV_DONTNEED);
		break;
	case 1:		/* a new, empty mapping in its place */
		mmap(p, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		break;
	default:	/* a hole no later mmap can fill */
		mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		     -1, 0);
		break;
	}
}

static int race_odp_unmap(struct ut_ctx *c, unsigned int n, unsigned int how)
{
	const size_t len = 256 * 1024, half = len / 2;
	struct ibv_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i, got = 0;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	SETUP(buf != MAP_FAILED, "mmap");
	mr = ibv_reg_mr(c->pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			UT_ACCESS_REMOTE | IBV_ACCESS_ON_DEMAND);
	a = ut_qp_cap(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE, &cap);
	b = ut_qp_cap(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE, &cap);
	SETUP(mr && a && b && !ut_connect(c, a, b, 7), "setup: %s",
	      strerror(errno));
	for (i = 0; i < n; i++) {
		bool rd = i & 1;
		struct ibv_sge sge = { (uintptr_t)buf + (rd ? 0 : half),
				       65536, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = rd ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)buf + (rd ? half : 0),
				     mr->rkey },
		}, *bad;

		SETUP(!ibv_post_send(a, &wr, &bad), "post %u", i);
		if (i == n / 2)
			odp_zap(buf + (how % 2) * half, half, how);
	}
	while (got < n && !ut_poll_one(c->cq, &wc)) {
		got++;
		CHECK(wc.status == IBV_WC_SUCCESS ||
		      wc.status == IBV_WC_REM_ACCESS_ERR ||
		      wc.status == IBV_WC_LOC_PROT_ERR ||
		      wc.status == IBV_WC_WR_FLUSH_ERR,
		      "ODP WR %llu: %s", (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status));
	}
	CHECK(got == n, "ODP: %u of %u WRs completed", got, n);
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy QPs");
	CHECK(!ibv_dereg_mr(mr), "dereg ODP MR");
	munmap(buf, len);
	return 0;
}

/*
 * One round in a child process: a QP destroyed under the library keeps its
 * rings mapped, and the mapping keeps the context (and its pinned pages)
 * until the process exits, as upstream's does.
 */
static int fz_race_round(const char *dev, int gid_index, unsigned int r,
			 uint64_t seed)
{
	int st, failed = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		struct ut_ctx c;

		if (ut_open(&c, dev, gid_index))
			_exit(1);
		failed += race_destroy_qp(&c, 100 + (seed + r * 7919) % 3000);
		failed += race_destroy_busy_cq(&c);
		failed += race_dereg_in_flight(&c, 16 + r % 48);
		failed += race_odp_unmap(&c, 16 + r % 48, (seed + r) % 3);
		_exit(failed || check_failures || !check_count ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

int fz_races(const char *dev, int gid_index, unsigned int rounds,
	     uint64_t seed)
{
	unsigned int r, failed = 0;

	for (r = 0; r < rounds; r++)
		failed += fz_race_round(dev, gid_index, r, seed) != 0;
	printf("uverbs_fuzz: %u rounds of data-path races, %u failed\n",
	       rounds, failed);
	return failed ? -1 : 0;
}
