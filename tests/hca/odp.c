// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_odp - on-demand paging MRs of the mlx_hw device (docs/prm.md 10.4)
 * over loopback: every RC operation into and out of memory the device
 * never mapped, munmap and a new mapping at the same address, fork, an
 * implicit MR across a sparse 1 GiB mapping, 256 MiB under a 64 KiB
 * RLIMIT_MEMLOCK, prefetch, the errors of unmapped ranges, and pages
 * taken away while WRITEs and READs run.  Data is
 * checked byte for byte; the odp_* counters prove the device faulted.
 *
 *   hca_odp [-d DEV] [-g GID_INDEX] [SECTION...]
 */
#define _GNU_SOURCE	/* memfd_create */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hca_util.h"

#define ODP_ACCESS (IBV_ACCESS_LOCAL_WRITE | UT_ACCESS_REMOTE | \
		    IBV_ACCESS_ON_DEMAND)
#define MSG (64 * 1024 + 100)	/* 65 packets at MTU 1024, odd length */

struct odp_pair {
	struct ibv_qp *a, *b;	/* a sends, b receives */
};

static int pair_up(struct ut_ctx *c, struct odp_pair *p)
{
	p->a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	p->b = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	SETUP(p->a && p->b, "create_qp: %s", strerror(errno));
	SETUP(!ut_connect(c, p->a, p->b, 7), "connect: %s", strerror(errno));
	return 0;
}

static void pair_down(struct odp_pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
}

static void *map_fresh(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * @len bytes of a memfd mapped shared: MADV_DONTNEED takes its pages out
 * of the page tables (an invalidation) but keeps their data.
 */
static void *map_shared(size_t len)
{
	int fd = memfd_create("hca_odp", 0);
	void *p = MAP_FAILED;

	if (fd >= 0 && !ftruncate(fd, len))
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* Deregisters @mr and unmaps [p, p + len), each if there is one. */
static void odp_free(struct ibv_mr *mr, void *p, size_t len)
{
	if (mr)
		ibv_dereg_mr(mr);
	if (p)
		munmap(p, len);
}

static long long vm_pin_kb(void)
{
	char line[128];
	long long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %lld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/*
 * Posts one signaled WQE from @lmr and waits for its completion (and for a
 * SEND that succeeds, the receive's, in either order).
 */
static int xfer(struct ut_ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
		struct ibv_mr *lmr, void *laddr, uint32_t len, uint64_t raddr,
		uint32_t rkey, enum ibv_wc_status want)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)laddr, .length = len, .lkey = lmr->lkey};
	struct ibv_send_wr wr = {
		.wr_id = op + 100, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED}, *bad;
	struct ibv_wc wc;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = op == IBV_WR_ATOMIC_CMP_AND_SWP ?
					   0 : 5;
		wr.wr.atomic.swap = 0x1122334455667788ull;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	CHECK(!ibv_post_send(qp, &wr, &bad), "post %d: %s", op,
	      strerror(errno));
	if (op == IBV_WR_SEND && want == IBV_WC_SUCCESS) {
		struct ibv_wc rwc;

		CHECK(!ut_poll_two(c, wr.wr_id, 7, &wc, &rwc),
		      "SEND: no completions");
		CHECK_WC(rwc, IBV_WC_SUCCESS, IBV_WC_RECV, len);
	} else {
		CHECK(!ut_poll_one(c->cq, &wc), "no completion of opcode %d",
		      op);
	}
	CHECK(wc.status == want, "opcode %d: %s, expected %s", op,
	      ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
	return 0;
}

static int post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *addr,
		     uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = 7, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int test_caps(struct ut_ctx *c)
{
	struct ibv_device_attr_ex a;
	uint32_t all = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		       IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
		       IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;

	CHECK(!ibv_query_device_ex(c->ctx, NULL, &a), "query_device_ex");
	CHECK(a.odp_caps.general_caps ==
	      (IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT),
	      "general_caps 0x%llx",
	      (unsigned long long)a.odp_caps.general_caps);
	CHECK(a.odp_caps.per_transport_caps.rc_odp_caps == all &&
	      a.xrc_odp_caps == all, "rc 0x%x xrc 0x%x",
	      a.odp_caps.per_transport_caps.rc_odp_caps, a.xrc_odp_caps);
	CHECK(a.odp_caps.per_transport_caps.ud_odp_caps == IBV_ODP_SUPPORT_SEND,
	      "ud 0x%x", a.odp_caps.per_transport_caps.ud_odp_caps);
	return 0;
}

/*
 * SEND, WRITE, READ and both atomics between two ODP MRs whose pages the
 * device never mapped: each direction faults, the data arrives intact.
 */
static int test_fresh(struct ut_ctx *c)
{
	const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP};
	long long faults = ut_counter(c, "odp_faults"), pin = vm_pin_kb();
	struct odp_pair p = {0};
	struct ibv_mr *ms = NULL, *md = NULL;
	uint8_t *src = NULL, *dst = NULL;
	unsigned int i;
	int ret = -1;

	if (pair_up(c, &p))
		goto out;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		bool atomic = ops[i] >= IBV_WR_ATOMIC_CMP_AND_SWP;
		uint32_t len = atomic ? 8 : MSG;
		uint8_t *from, *to;

		src = map_fresh(MSG);
		dst = map_fresh(MSG);	/* never touched at all */
		SETUP(src && dst, "mmap");
		ut_fill(src, MSG, i + 1);
		if (atomic)	/* swapped (compare 0) or added to */
			memset(src, 0, 8);
		ms = ibv_reg_mr(c->pd, src, MSG, ODP_ACCESS);
		md = ibv_reg_mr(c->pd, dst, MSG, ODP_ACCESS);
		CHECK_THEN(ms && md, goto out, "reg_mr ODP: %s",
			   strerror(errno));
		if (ops[i] == IBV_WR_SEND)
			CHECK_THEN(!post_recv(p.b, md, dst, MSG), goto out,
				   "post_recv");
		/* READ and atomics fetch from the remote buffer. */
		from = ops[i] == IBV_WR_RDMA_READ || atomic ? dst : src;
		to = from == src ? dst : src;
		if (xfer(c, p.a, ops[i], from == src ? ms : md, from, len,
			 (uintptr_t)to, (from == src ? md : ms)->rkey,
			 IBV_WC_SUCCESS))
			goto out;
		if (atomic) {
			uint64_t fetched, now, want = ops[i] ==
				IBV_WR_ATOMIC_CMP_AND_SWP ?
				0x1122334455667788ull : 5;

			memcpy(&fetched, dst, 8);
			memcpy(&now, src, 8);
			CHECK_THEN(fetched == 0 && now == want, goto out,
				   "atomic %d: fetched %llx, memory %llx",
				   ops[i], (unsigned long long)fetched,
				   (unsigned long long)now);
		} else {
			CHECK_THEN(!memcmp(src, dst, len), goto out,
				   "opcode %d: data differs", ops[i]);
		}
		odp_free(ms, src, MSG);
		odp_free(md, dst, MSG);
		ms = md = NULL;
		src = dst = NULL;
	}
	CHECK_THEN(ut_counter(c, "odp_faults") >= faults + 5, goto out,
		   "odp_faults %lld, was %lld: the device faulted nothing",
		   ut_counter(c, "odp_faults"), faults);
	CHECK_THEN(vm_pin_kb() == pin, goto out, "VmPin %lld kB, was %lld",
		   vm_pin_kb(), pin);
	ret = 0;
out:
	odp_free(ms, src, MSG);
	odp_free(md, dst, MSG);
	pair_down(&p);
	return ret;
}

/*
 * The registered range is unmapped and mapped anew while the MR lives:
 * traffic afterwards lands in the new pages, and the old ones are gone
 * from the device (odp_invalidations).
 */
static int test_remap(struct ut_ctx *c)
{
	long long inval = ut_counter(c, "odp_invalidations");
	struct odp_pair p = {0};
	uint8_t *src = NULL, *dst = NULL, *again;
	struct ibv_mr *ms = NULL, *md = NULL;
	int round, ret = -1;

	src = map_fresh(MSG);
	dst = map_fresh(MSG);
	SETUP(src && dst, "mmap");
	ms = ibv_reg_mr(c->pd, src, MSG, ODP_ACCESS);
	md = ibv_reg_mr(c->pd, dst, MSG, ODP_ACCESS);
	CHECK_THEN(ms && md, goto out, "reg_mr ODP: %s", strerror(errno));
	if (pair_up(c, &p))
		goto out;
	for (round = 0; round < 3; round++) {
		ut_fill(src, MSG, 40 + round);
		if (xfer(c, p.a, IBV_WR_RDMA_WRITE, ms, src, MSG,
			 (uintptr_t)dst, md->rkey, IBV_WC_SUCCESS))
			goto out;
		CHECK_THEN(!memcmp(src, dst, MSG), goto out,
			   "round %d: data differs", round);
		/* A new, empty mapping at the same address. */
		again = mmap(dst, MSG, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		CHECK_THEN(again == dst, goto out, "mmap MAP_FIXED: %s",
			   strerror(errno));
		CHECK_THEN(!dst[0] && !dst[MSG - 1], goto out,
			   "the new mapping is not empty");
	}
	CHECK_THEN(ut_counter(c, "odp_invalidations") > inval, goto out,
		   "odp_invalidations did not move (%lld)", inval);
	ret = 0;
out:
	pair_down(&p);
	odp_free(ms, src, MSG);
	odp_free(md, dst, MSG);
	return ret;
}

/*
 * Pages of an ODP MR the process made inaccessible (mapped PROT_NONE, so
 * that no later mmap reuses the range): a WRITE into them ends in
 * REM_ACCESS_ERR at the requester, a SEND from them in LOC_PROT_ERR.
 */
static int test_unmapped(struct ut_ctx *c)
{
	long page = sysconf(_SC_PAGESIZE);
	struct odp_pair p = {0};
	struct ibv_mr *mr = NULL;
	uint8_t *buf;
	int ret = -1;

	buf = map_fresh(4 * page);
	SETUP(buf, "mmap");
	mr = ibv_reg_mr(c->pd, buf, 4 * page, ODP_ACCESS);
	CHECK_THEN(mr, goto out, "reg_mr ODP: %s", strerror(errno));
	CHECK_THEN(mmap(buf + 2 * page, 2 * page, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		   buf + 2 * page, goto out, "mmap PROT_NONE");
	if (pair_up(c, &p) ||
	    xfer(c, p.a, IBV_WR_RDMA_WRITE, mr, buf, 64,
		 (uintptr_t)buf + 2 * page, mr->rkey, IBV_WC_REM_ACCESS_ERR))
		goto out;
	pair_down(&p);
	memset(&p, 0, sizeof(p));
	if (pair_up(c, &p) ||
	    xfer(c, p.a, IBV_WR_SEND, mr, buf + 3 * page, 64, 0, 0,
		 IBV_WC_LOC_PROT_ERR))
		goto out;
	ret = 0;
out:
	pair_down(&p);
	odp_free(mr, buf, 4 * page);
	return ret;
}

/* An implicit MR: WRITEs to pages spread over a sparse 1 GiB mapping. */
static int test_implicit(struct ut_ctx *c)
{
	const size_t span = 1ul << 30, step = span / 16;
	struct odp_pair p = {0};
	struct ibv_mr *mr;
	uint8_t *big, src[256];
	size_t off;
	int ret = -1;

	mr = ibv_reg_mr(c->pd, NULL, SIZE_MAX, ODP_ACCESS);
	CHECK(mr, "reg_mr implicit: %s", strerror(errno));
	big = map_fresh(span);
	CHECK_THEN(big, goto out, "mmap 1 GiB");
	if (pair_up(c, &p))
		goto out;
	for (off = step / 3; off < span; off += step) {
		ut_fill(src, sizeof(src), off);
		if (xfer(c, p.a, IBV_WR_RDMA_WRITE, mr, src, sizeof(src),
			 (uintptr_t)big + off, mr->rkey, IBV_WC_SUCCESS))
			goto out;
		CHECK_THEN(!memcmp(big + off, src, sizeof(src)), goto out,
			   "offset %zu differs", off);
	}
	ret = 0;
out:
	pair_down(&p);
	if (big)
		munmap(big, span);
	ibv_dereg_mr(mr);
	return ret;
}

/*
 * 256 MiB registered and used under a 64 KiB RLIMIT_MEMLOCK with VmPin 0:
 * in a child (the limit stays there) with its own device context (a
 * forked process may not use its parent's, as upstream's uverbs rules),
 * whose pinned test buffer is deregistered first.
 */
static int test_memlock(struct ut_ctx *c)
{
	const size_t len = 256ul << 20;
	struct rlimit rl = {64 << 10, 64 << 10};
	int status = -1;
	pid_t pid = fork();

	SETUP(pid >= 0, "fork");
	if (!pid) {
		struct odp_pair p = {0};
		struct ut_ctx cc;
		struct ibv_mr *mr;
		uint8_t *buf;
		size_t off;
		int bad = 0;

		if (ut_open(&cc, c->dev_name, c->gid_index) ||
		    ibv_dereg_mr(cc.mr))
			_exit(2);
		buf = map_fresh(len);
		if (!buf || setrlimit(RLIMIT_MEMLOCK, &rl) || vm_pin_kb())
			_exit(2);
		mr = ibv_reg_mr(cc.pd, buf, len, ODP_ACCESS);
		if (!mr) {
			fprintf(stderr, "child reg_mr: %s\n", strerror(errno));
			_exit(3);
		}
		if (pair_up(&cc, &p))
			bad = 4;
		for (off = 0; !bad && off + MSG < len; off += len / 8) {
			ut_fill(buf + off, MSG, off);
			if (xfer(&cc, p.a, IBV_WR_RDMA_WRITE, mr, buf + off,
				 MSG, (uintptr_t)buf + len - MSG - off,
				 mr->rkey, IBV_WC_SUCCESS) ||
			    memcmp(buf + off, buf + len - MSG - off, MSG))
				bad = 5;
		}
		if (!bad && vm_pin_kb() != 0)
			bad = 6;
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "child: status 0x%x (2 setup, 3 reg_mr, 4 QPs, 5 traffic, 6 VmPin)",
	      status);
	return 0;
}

/*
 * fork with an ODP MR: the parent's writes after the fork (copy-on-write
 * moves its pages) are what the device reads, and the device's writes
 * land in the parent's memory, not in pages the child shares.
 */
static int test_fork(struct ut_ctx *c)
{
	struct odp_pair p = {0};
	uint8_t *buf, *src, *dst;
	struct ibv_mr *mr = NULL;
	int status = -1, ret = -1;
	pid_t pid;

	buf = map_fresh(2 * MSG);
	SETUP(buf, "mmap");
	src = buf;
	dst = buf + MSG;
	ut_fill(src, MSG, 7);
	mr = ibv_reg_mr(c->pd, buf, 2 * MSG, ODP_ACCESS);
	CHECK_THEN(mr, goto out, "reg_mr ODP: %s", strerror(errno));
	if (pair_up(c, &p) ||
	    xfer(c, p.a, IBV_WR_RDMA_WRITE, mr, src, MSG, (uintptr_t)dst,
		 mr->rkey, IBV_WC_SUCCESS))
		goto out;
	pid = fork();
	CHECK_THEN(pid >= 0, goto out, "fork");
	if (!pid) {
		sleep(1);	/* the parent's traffic runs meanwhile */
		_exit(memcmp(src, dst, MSG) ? 1 : 0);	/* still the old data */
	}
	ut_fill(src, MSG, 8);	/* the parent's pages are copied now */
	if (xfer(c, p.a, IBV_WR_RDMA_WRITE, mr, src, MSG, (uintptr_t)dst,
		 mr->rkey, IBV_WC_SUCCESS))
		goto out;
	CHECK_THEN(!memcmp(src, dst, MSG), goto out,
		   "after fork: the device did not read or write the parent's pages");
	waitpid(pid, &status, 0);
	CHECK_THEN(WIFEXITED(status) && !WEXITSTATUS(status), goto out,
		   "child saw the parent's later data (status 0x%x)", status);
	ret = 0;
out:
	pair_down(&p);
	odp_free(mr, buf, 2 * MSG);
	return ret;
}

/*
 * ibv_advise_mr: a synchronous PREFETCH_WRITE maps the range, and traffic
 * into it then takes no fault; bad arguments are refused.
 */
static int test_prefetch(struct ut_ctx *c)
{
	long long faults, pre = ut_counter(c, "odp_prefetches");
	struct odp_pair p = {0};
	struct ibv_mr *mr = NULL;
	struct ibv_sge sge;
	uint8_t *buf;
	int ret = -1, err;

	buf = map_fresh(2 * MSG);
	SETUP(buf, "mmap");
	mr = ibv_reg_mr(c->pd, buf, 2 * MSG, ODP_ACCESS);
	CHECK_THEN(mr, goto out, "reg_mr ODP: %s", strerror(errno));
	sge = (struct ibv_sge){(uintptr_t)buf, 2 * MSG, mr->lkey};
	err = ibv_advise_mr(c->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK_THEN(!err, goto out, "advise_mr: %s", strerror(err));
	CHECK_THEN(ut_counter(c, "odp_prefetches") == pre + 1, goto out,
		   "odp_prefetches did not count the prefetch");
	sge.lkey = c->mr->lkey;	/* pinned: not an ODP MR */
	sge.addr = (uintptr_t)c->buf;
	err = ibv_advise_mr(c->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1);
	CHECK_THEN(err == EINVAL, goto out, "advise_mr on a pinned MR: %d",
		   err);
	faults = ut_counter(c, "odp_faults");
	ut_fill(buf, MSG, 9);
	if (pair_up(c, &p) ||
	    xfer(c, p.a, IBV_WR_RDMA_WRITE, mr, buf, MSG,
		 (uintptr_t)buf + MSG, mr->rkey, IBV_WC_SUCCESS))
		goto out;
	CHECK_THEN(!memcmp(buf, buf + MSG, MSG), goto out, "data differs");
	CHECK_THEN(ut_counter(c, "odp_faults") == faults, goto out,
		   "%lld faults after the prefetch",
		   ut_counter(c, "odp_faults") - faults);
	ret = 0;
out:
	pair_down(&p);
	odp_free(mr, buf, 2 * MSG);
	return ret;
}

struct churn {
	uint8_t *buf[3];	/* zapped by turns */
	size_t len;
	volatile bool stop;
	unsigned long rounds;
};

static void *churn_fn(void *arg)
{
	struct churn *ch = arg;
	int i;

	while (!ch->stop) {
		for (i = 0; i < 3; i++) {
			madvise(ch->buf[i], ch->len, MADV_DONTNEED);
			usleep(2000);
		}
		ch->rounds++;
	}
	return NULL;
}

static const char *const churn_counters[] = {
	"local_ack_timeout_err", "retry_err", "rnr_nak_sent", "rcvd_rnr_err",
	"duplicate_request", "out_of_seq_request", "seq_nak_sent",
	"rcvd_seq_err", "odp_faults", "odp_fault_pages", "odp_invalidations",
};
#define NCHURN (sizeof(churn_counters) / sizeof(churn_counters[0]))

/* xfer(), timed: a WQE slower than a second shows what it waited for. */
static int churn_xfer(struct ut_ctx *c, struct ibv_qp *qp,
		      enum ibv_wr_opcode op, struct ibv_mr *lmr, void *laddr,
		      uint64_t raddr, uint32_t rkey, struct churn *ch)
{
	long long before[NCHURN], ms;
	struct timespec t0;
	unsigned long zaps = ch->rounds;
	size_t i;
	int ret;

	for (i = 0; i < NCHURN; i++)
		before[i] = ut_counter(c, churn_counters[i]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = xfer(c, qp, op, lmr, laddr, MSG, raddr, rkey, IBV_WC_SUCCESS);
	ms = ut_ms_since(&t0);
	if (ms < 1000 && !ret)
		return ret;
	printf("churn: opcode %d took %lld ms over %lu zaps:", op, ms,
	       ch->rounds - zaps);
	for (i = 0; i < NCHURN; i++)
		printf(" %s +%lld", churn_counters[i],
		       ut_counter(c, churn_counters[i]) - before[i]);
	printf("\n");
	return ret;
}

/*
 * A thread takes the pages of a WRITE's source and target and of a READ's
 * local buffer away (MADV_DONTNEED) again and again while WRITEs and READs
 * run: the responder NAKs and faults, a READ response that finds its pages
 * gone is asked for again, a WRITE segment handed over directly (direct.c)
 * whose source page went under the copy is undone and sent as a packet,
 * and every WQE succeeds.  Once the thread stops, the data is right, and
 * WRITEs from the ODP source went directly.  The source is a shared memfd
 * mapping, which keeps its data when zapped.  The buffers go by turns,
 * each every 6 ms.  A WQE
 * that meets a zap waits for faults: the responder RNR NAKs a WRITE until
 * its fault is done, and a READ response stream waits for one with no NAK
 * to tell the requester so (hence an ACK timeout of code 16, 268 ms).
 * Under TCG beside other guests a fault can take hundreds of ms, and in
 * 30 runs of this test beside a pair suite single WQEs took up to 8 s,
 * with RNR NAKs, faults and ACK timeouts growing all along: slow, never
 * stuck.  So a WQE gets 60 s here, and one slower than a second prints
 * what it waited for.
 */
static int test_churn(struct ut_ctx *c)
{
	long long inval = ut_counter(c, "odp_invalidations");
	long long direct = ut_counter(c, "direct_segments");
	struct churn ch = {.len = MSG};
	struct ibv_mr *ms = NULL, *md = NULL, *ml = NULL;
	uint8_t *src, *dst, *back;
	struct odp_pair p = {0};
	pthread_t thread;
	int i, ret = -1;
	bool running = false;

	src = map_shared(MSG);
	dst = map_fresh(MSG);
	back = map_fresh(MSG);
	SETUP(src && dst && back, "mmap");
	ut_fill(src, MSG, 11);
	ms = ibv_reg_mr(c->pd, src, MSG, ODP_ACCESS);
	md = ibv_reg_mr(c->pd, dst, MSG, ODP_ACCESS);
	ml = ibv_reg_mr(c->pd, back, MSG, ODP_ACCESS);
	CHECK_THEN(ms && md && ml, goto out, "reg_mr ODP: %s", strerror(errno));
	ut_ack_timeout = 16;
	i = pair_up(c, &p);
	ut_ack_timeout = 10;
	if (i)
		goto out;
	ch.buf[0] = src;
	ch.buf[1] = dst;
	ch.buf[2] = back;
	CHECK_THEN(!pthread_create(&thread, NULL, churn_fn, &ch), goto out,
		   "pthread_create");
	running = true;
	ut_poll_ms = 60000;
	for (i = 0; i < 40; i++)
		if (churn_xfer(c, p.a, IBV_WR_RDMA_WRITE, ms, src,
			       (uintptr_t)dst, md->rkey, &ch) ||
		    churn_xfer(c, p.a, IBV_WR_RDMA_READ, ml, back,
			       (uintptr_t)dst, md->rkey, &ch))
			goto out;
	ut_poll_ms = 5000;
	ch.stop = true;
	pthread_join(thread, NULL);
	running = false;
	if (xfer(c, p.a, IBV_WR_RDMA_WRITE, ms, src, MSG, (uintptr_t)dst,
		 md->rkey, IBV_WC_SUCCESS) ||
	    xfer(c, p.a, IBV_WR_RDMA_READ, ml, back, MSG, (uintptr_t)dst,
		 md->rkey, IBV_WC_SUCCESS))
		goto out;
	CHECK_THEN(!memcmp(src, back, MSG), goto out, "data differs");
	CHECK_THEN(ch.rounds > 5 &&
		   ut_counter(c, "odp_invalidations") > inval + 5, goto out,
		   "%lu rounds, %lld invalidations: no race was run",
		   ch.rounds, ut_counter(c, "odp_invalidations") - inval);
	CHECK_THEN(ut_counter(c, "direct_segments") > direct, goto out,
		   "no WRITE segment from ODP memory went directly");
	printf("churn: %lu zaps, %lld pages invalidated, %lld faults, "
	       "%lld direct segments\n",
	       ch.rounds, ut_counter(c, "odp_invalidations") - inval,
	       ut_counter(c, "odp_faults"),
	       ut_counter(c, "direct_segments") - direct);
	ret = 0;
out:
	ut_poll_ms = 5000;
	if (running) {
		ch.stop = true;
		pthread_join(thread, NULL);
	}
	pair_down(&p);
	odp_free(ms, src, MSG);
	odp_free(md, dst, MSG);
	odp_free(ml, back, MSG);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct ut_test tests[] = {
		{"caps", test_caps},
		{"fresh", test_fresh},
		{"remap", test_remap},
		{"unmapped", test_unmapped},
		{"implicit", test_implicit},
		{"memlock", test_memlock},
		{"fork", test_fork},
		{"prefetch", test_prefetch},
		{"churn", test_churn},
	};

	return ut_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
