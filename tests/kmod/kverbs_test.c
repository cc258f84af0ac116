// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibx_kverbs_test - exercises the kernel verbs API of ibx_core.h on the
 * first mlx_hw device, at load time: RC SEND/WRITE/READ/FETCH_ADD between
 * two kernel QPs over loopback on kmalloc, vmalloc and page buffers with
 * every byte checked, a UD datagram with its GRH, the CQ completion
 * handler, and a bad lkey (an error CQE, then flushes).  The verdict is
 * in /sys/module/ibx_kverbs_test/parameters/result: one "ok NAME" or
 * "FAIL NAME: why" line per check and a last line "passed N failed M".
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/etherdevice.h>
#include "ibx_kverbs.h"

static char result[4096];
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "test verdicts (read-only)");

static unsigned int passed, failed;

static void report(bool ok, const char *name, const char *fmt, ...)
{
	size_t len = strlen(result);
	char why[160] = "";
	va_list ap;

	if (!ok && fmt) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	if (ok)
		passed++;
	else
		failed++;
	snprintf(result + len, sizeof(result) - len, "%s %s%s%s\n",
		 ok ? "ok" : "FAIL", name, ok ? "" : ": ", why);
	pr_info("%s %s %s\n", ok ? "ok" : "FAIL", name, why);
}

#define CHECK(cond, name, fmt, ...)					\
	({ bool __ok = (cond); report(__ok, name, fmt, ##__VA_ARGS__); __ok; })

/* ---------------- fixture ---------------- */

struct side {
	struct ibx_cq *cq;
	struct ibx_qp *qp;
};

struct fixture {
	struct ibx_device *dev;
	struct ibx_pd *pd;
	struct ibx_mr *dma;		/* local key for all kernel memory */
	union ibx_gid gid;		/* GID index 1: IPv4-mapped */
	struct side a, b;
	atomic_t events;		/* comp_handler calls */
	u8 *scratch;			/* 4 KiB of kmalloc memory */
	struct completion event;
};

static struct ibx_device *test_dev;

static int test_add(struct ibx_device *dev)
{
	if (!test_dev && !strncmp(dev->name, "mlx_hw", 6))
		test_dev = dev;
	return 0;
}

static void test_remove(struct ibx_device *dev, void *data)
{
	if (dev == test_dev)
		test_dev = NULL;
}

static struct ibx_client test_client = {
	.name = "ibx_kverbs_test",
	.add = test_add,
	.remove = test_remove,
};

static void comp_handler(struct ibx_cq *cq, void *ctx)
{
	struct fixture *f = ctx;

	atomic_inc(&f->events);
	complete(&f->event);
}

/* Polls @cq for one completion, up to 5 s (a safety net, not a timing). */
static int poll_one(struct ibx_cq *cq, struct ibx_wc *wc)
{
	int i, n;

	for (i = 0; i < 5000; i++) {
		n = ibx_poll_cq(cq, 1, wc);
		if (n)
			return n;
		usleep_range(500, 1000);
	}
	return 0;
}

static int side_create(struct fixture *f, struct side *s, u32 type)
{
	struct ibx_kqp_init_attr init = {
		.qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
		.sq_sig_all = 1,
	};

	s->cq = ibx_create_cq(f->dev, comp_handler, f, 64);
	if (IS_ERR(s->cq))
		return PTR_ERR(s->cq);
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ibx_create_qp(f->pd, &init);
	if (IS_ERR(s->qp)) {
		ibx_destroy_cq(s->cq);
		s->cq = NULL;
		return PTR_ERR(s->qp);
	}
	return 0;
}

static void side_destroy(struct side *s)
{
	if (s->qp && !IS_ERR(s->qp))
		ibx_destroy_qp(s->qp);
	if (s->cq && !IS_ERR(s->cq))
		ibx_destroy_cq(s->cq);
	s->qp = NULL;
	s->cq = NULL;
}

static int rc_connect(struct fixture *f, struct ibx_qp *qp, u32 dest)
{
	struct ibx_qp_attr a = {};
	int ret;

	a.qp_state = IBX_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE |
			    IB_UVERBS_ACCESS_REMOTE_READ |
			    IB_UVERBS_ACCESS_REMOTE_ATOMIC;
	ret = ibx_modify_qp(qp, &a, IBX_QP_STATE | IBX_QP_PKEY_INDEX |
			    IBX_QP_PORT | IBX_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	a.qp_state = IBX_QPS_RTR;
	a.path_mtu = IBX_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.sgid_index = 1;
	a.ah_attr.hop_limit = 64;
	a.ah_attr.dgid = f->gid;
	ret = ibx_modify_qp(qp, &a, IBX_QP_STATE | IBX_QP_AV | IBX_QP_PATH_MTU |
			    IBX_QP_DEST_QPN | IBX_QP_RQ_PSN |
			    IBX_QP_MAX_DEST_RD_ATOMIC | IBX_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	a.qp_state = IBX_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ibx_modify_qp(qp, &a, IBX_QP_STATE | IBX_QP_SQ_PSN |
			     IBX_QP_TIMEOUT | IBX_QP_RETRY_CNT |
			     IBX_QP_RNR_RETRY | IBX_QP_MAX_QP_RD_ATOMIC);
}

static void fill(u8 *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

/* ---------------- RC ---------------- */

static void test_rc(struct fixture *f)
{
	const size_t len = 3 * PAGE_SIZE + 123;	/* spans pages */
	struct ibx_sge sge, rsge;
	struct ibx_send_wr swr = {};
	struct ibx_recv_wr rwr = {};
	struct ibx_mr *rmr = NULL;
	struct ibx_wc wc;
	u8 *vsrc, *kdst = NULL, *vtgt, *pdst = NULL;
	struct page *pages = NULL;
	u64 *counter;
	int ret;

	vsrc = vmalloc(len);
	vtgt = vmalloc(len);
	kdst = kmalloc(len, GFP_KERNEL);
	pages = alloc_pages(GFP_KERNEL, 2);
	if (!vsrc || !vtgt || !kdst || !pages) {
		report(false, "rc_alloc", "no memory");
		goto out;
	}
	pdst = page_address(pages);

	ret = rc_connect(f, f->a.qp, f->b.qp->qp_num);
	if (!ret)
		ret = rc_connect(f, f->b.qp, f->a.qp->qp_num);
	if (!CHECK(!ret, "rc_connect", "modify_qp %d", ret))
		goto out;

	/* SEND: vmalloc -> kmalloc. */
	fill(vsrc, len, 1);
	memset(kdst, 0, len);
	rsge = (struct ibx_sge){ (u64)(uintptr_t)kdst, len, f->dma->lkey };
	rwr.wr_id = 0xb1;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	ret = ibx_post_recv(f->b.qp, &rwr, NULL);
	sge = (struct ibx_sge){ (u64)(uintptr_t)vsrc, len, f->dma->lkey };
	swr.wr_id = 0xa1;
	swr.opcode = IBX_WR_SEND;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	if (!ret)
		ret = ibx_post_send(f->a.qp, &swr, NULL);
	if (!CHECK(!ret, "rc_send_post", "post %d", ret))
		goto out;
	ret = poll_one(f->a.cq, &wc);
	CHECK(ret == 1 && wc.status == IBX_WC_SUCCESS && wc.wr_id == 0xa1 &&
	      wc.opcode == IBX_WC_SEND && wc.qp == f->a.qp,
	      "rc_send_cqe", "n %d status %d wr_id %llx", ret, wc.status,
	      wc.wr_id);
	ret = poll_one(f->b.cq, &wc);
	CHECK(ret == 1 && wc.status == IBX_WC_SUCCESS && wc.wr_id == 0xb1 &&
	      wc.opcode == IBX_WC_RECV && wc.byte_len == len,
	      "rc_recv_cqe", "n %d status %d byte_len %u", ret, wc.status,
	      wc.byte_len);
	CHECK(!memcmp(vsrc, kdst, len), "rc_send_data", "data differs");

	/* WRITE: kmalloc -> registered vmalloc MR of b. */
	rmr = ibx_reg_kernel_mr(f->pd, vtgt, len,
				IB_UVERBS_ACCESS_LOCAL_WRITE |
				IB_UVERBS_ACCESS_REMOTE_WRITE |
				IB_UVERBS_ACCESS_REMOTE_READ |
				IB_UVERBS_ACCESS_REMOTE_ATOMIC);
	if (!CHECK(!IS_ERR(rmr), "reg_kernel_mr", "%ld", PTR_ERR(rmr))) {
		rmr = NULL;
		goto out;
	}
	fill(kdst, len, 2);
	memset(vtgt, 0, len);
	sge = (struct ibx_sge){ (u64)(uintptr_t)kdst, len, f->dma->lkey };
	swr.wr_id = 0xa2;
	swr.opcode = IBX_WR_RDMA_WRITE;
	swr.wr.rdma.remote_addr = (u64)(uintptr_t)vtgt;
	swr.wr.rdma.rkey = rmr->rkey;
	ret = ibx_post_send(f->a.qp, &swr, NULL);
	ret = ret ? ret : (poll_one(f->a.cq, &wc) == 1 ? 0 : -ETIMEDOUT);
	CHECK(!ret && wc.status == IBX_WC_SUCCESS && wc.opcode == IBX_WC_RDMA_WRITE,
	      "rc_write_cqe", "ret %d status %d", ret, wc.status);
	CHECK(!memcmp(kdst, vtgt, len), "rc_write_data", "data differs");

	/* READ: registered vmalloc MR of b -> page-backed buffer. */
	fill(vtgt, len, 3);
	memset(pdst, 0, len);
	sge = (struct ibx_sge){ (u64)(uintptr_t)pdst, len, f->dma->lkey };
	swr.wr_id = 0xa3;
	swr.opcode = IBX_WR_RDMA_READ;
	ret = ibx_post_send(f->a.qp, &swr, NULL);
	ret = ret ? ret : (poll_one(f->a.cq, &wc) == 1 ? 0 : -ETIMEDOUT);
	CHECK(!ret && wc.status == IBX_WC_SUCCESS && wc.opcode == IBX_WC_RDMA_READ &&
	      wc.byte_len == len, "rc_read_cqe", "ret %d status %d len %u",
	      ret, wc.status, wc.byte_len);
	CHECK(!memcmp(vtgt, pdst, len), "rc_read_data", "data differs");

	/* FETCH_ADD on the first 8 bytes of the target. */
	counter = (u64 *)vtgt;
	*counter = 40;
	sge = (struct ibx_sge){ (u64)(uintptr_t)kdst, 8, f->dma->lkey };
	swr.wr_id = 0xa4;
	swr.opcode = IBX_WR_ATOMIC_FETCH_AND_ADD;
	swr.wr.atomic.remote_addr = (u64)(uintptr_t)vtgt;
	swr.wr.atomic.rkey = rmr->rkey;
	swr.wr.atomic.compare_add = 2;
	ret = ibx_post_send(f->a.qp, &swr, NULL);
	ret = ret ? ret : (poll_one(f->a.cq, &wc) == 1 ? 0 : -ETIMEDOUT);
	CHECK(!ret && wc.status == IBX_WC_SUCCESS && *counter == 42 &&
	      *(u64 *)kdst == 40, "rc_fetch_add", "ret %d status %d value %llu",
	      ret, wc.status, *counter);

out:
	if (rmr)
		CHECK(!ibx_dereg_mr(rmr), "dereg_kernel_mr", "failed");
	vfree(vsrc);
	vfree(vtgt);
	kfree(kdst);
	if (pages)
		__free_pages(pages, 2);
}

/* Moves both QPs back through RESET and connects them again. */
static int reconnect(struct fixture *f)
{
	struct ibx_qp_attr a = { .qp_state = IBX_QPS_RESET };
	struct ibx_wc wc;
	int ret;

	ret = ibx_modify_qp(f->a.qp, &a, IBX_QP_STATE);
	ret = ret ? ret : ibx_modify_qp(f->b.qp, &a, IBX_QP_STATE);
	/* Completions of the old connection stay in the CQs: drop them. */
	while (ibx_poll_cq(f->a.cq, 1, &wc) > 0)
		;
	while (ibx_poll_cq(f->b.cq, 1, &wc) > 0)
		;
	ret = ret ? ret : rc_connect(f, f->a.qp, f->b.qp->qp_num);
	return ret ? ret : rc_connect(f, f->b.qp, f->a.qp->qp_num);
}

/* An RDMA WRITE past the end of an rkey's range: remote access error. */
static void test_rkey_bounds(struct fixture *f)
{
	const size_t len = PAGE_SIZE;
	struct ibx_send_wr swr = { .wr_id = 0xa5, .opcode = IBX_WR_RDMA_WRITE };
	struct ibx_sge sge;
	struct ibx_mr *rmr;
	struct ibx_wc wc;
	u8 *vtgt, *kdst;
	int ret;

	vtgt = vmalloc(len);
	kdst = kmalloc(64, GFP_KERNEL);
	rmr = vtgt ? ibx_reg_kernel_mr(f->pd, vtgt, len,
				       IB_UVERBS_ACCESS_LOCAL_WRITE |
				       IB_UVERBS_ACCESS_REMOTE_WRITE) :
		     ERR_PTR(-ENOMEM);
	ret = !kdst || IS_ERR(rmr) ? -ENOMEM : reconnect(f);
	if (!CHECK(!ret, "rkey_setup", "%d", ret))
		goto out;
	sge = (struct ibx_sge){ (u64)(uintptr_t)kdst, 64, f->dma->lkey };
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.wr.rdma.remote_addr = (u64)(uintptr_t)vtgt + len - 8;
	swr.wr.rdma.rkey = rmr->rkey;
	ret = ibx_post_send(f->a.qp, &swr, NULL);
	ret = ret ? ret : (poll_one(f->a.cq, &wc) == 1 ? 0 : -ETIMEDOUT);
	CHECK(!ret && wc.status == IBX_WC_REM_ACCESS_ERR, "rc_rkey_bounds",
	      "ret %d status %d", ret, wc.status);
out:
	if (!IS_ERR_OR_NULL(rmr))
		ibx_dereg_mr(rmr);
	vfree(vtgt);
	kfree(kdst);
}

/* ---------------- the completion handler ---------------- */

static void test_notify(struct fixture *f)
{
	/* Heap memory: module data and stacks are not in the DMA key's reach. */
	u8 *buf = kzalloc(512, GFP_KERNEL);
	struct ibx_sge sge = { (u64)(uintptr_t)buf, 256, f->dma->lkey };
	struct ibx_sge rsge = { (u64)(uintptr_t)buf + 256, 256, f->dma->lkey };
	struct ibx_recv_wr rwr = { .wr_id = 7, .sg_list = &rsge, .num_sge = 1 };
	struct ibx_send_wr swr = { .wr_id = 8, .opcode = IBX_WR_SEND,
				   .sg_list = &sge, .num_sge = 1,
				   .send_flags = IBX_SEND_SOLICITED };
	struct ibx_wc wc;
	int before, ret;

	if (!buf) {
		report(false, "notify_alloc", "no memory");
		return;
	}

	reinit_completion(&f->event);
	before = atomic_read(&f->events);
	ret = ibx_req_notify_cq(f->b.cq, IBX_CQ_NEXT_COMP |
				IBX_CQ_REPORT_MISSED_EVENTS);
	CHECK(ret == 0, "notify_arm_empty", "req_notify %d with an empty CQ", ret);
	ret = ibx_post_recv(f->b.qp, &rwr, NULL);
	ret = ret ? ret : ibx_post_send(f->a.qp, &swr, NULL);
	CHECK(!ret && wait_for_completion_timeout(&f->event, 5 * HZ) &&
	      atomic_read(&f->events) == before + 1, "notify_handler",
	      "ret %d events %d->%d", ret, before, atomic_read(&f->events));
	memset(&wc, 0, sizeof(wc));
	CHECK(poll_one(f->b.cq, &wc) == 1 && wc.wr_id == 7 &&
	      wc.status == IBX_WC_SUCCESS, "notify_poll", "wr_id %llu status %d",
	      wc.wr_id, wc.status);
	memset(&wc, 0, sizeof(wc));
	CHECK(poll_one(f->a.cq, &wc) == 1 && wc.wr_id == 8 &&
	      wc.status == IBX_WC_SUCCESS, "notify_send_cqe",
	      "wr_id %llu status %d", wc.wr_id, wc.status);
	/* Unarmed now: one arm gives one event. */
	CHECK(atomic_read(&f->events) == before + 1, "notify_once",
	      "events %d", atomic_read(&f->events));
	kfree(buf);
}

/* ---------------- errors ---------------- */

static void test_bad_lkey(struct fixture *f)
{
	u8 *buf = f->scratch;
	struct ibx_sge sge = { (u64)(uintptr_t)buf, 64, f->dma->lkey ^ 0x5500 };
	struct ibx_send_wr w2, swr = { .wr_id = 0xe1, .opcode = IBX_WR_SEND,
				       .sg_list = &sge, .num_sge = 1 };
	const struct ibx_send_wr *bad = NULL;
	struct ibx_sge many[8];
	struct ibx_wc wc;
	int ret;

	ret = reconnect(f);
	if (!CHECK(!ret, "bad_lkey_setup", "%d", ret))
		return;

	w2 = swr;
	w2.wr_id = 0xe2;
	sge.lkey = f->dma->lkey ^ 0x5500;
	swr.next = &w2;
	w2.sg_list = many;	/* not read: flushed */
	w2.num_sge = 1;
	many[0] = (struct ibx_sge){ (u64)(uintptr_t)buf, 8, f->dma->lkey };
	ret = ibx_post_send(f->a.qp, &swr, &bad);
	CHECK(!ret, "bad_lkey_post", "post %d", ret);
	ret = poll_one(f->a.cq, &wc);
	CHECK(ret == 1 && wc.wr_id == 0xe1 && wc.status == IBX_WC_LOC_PROT_ERR,
	      "bad_lkey_cqe", "n %d wr_id %llx status %d", ret, wc.wr_id,
	      wc.status);
	ret = poll_one(f->a.cq, &wc);
	CHECK(ret == 1 && wc.wr_id == 0xe2 && wc.status == IBX_WC_WR_FLUSH_ERR,
	      "bad_lkey_flush", "n %d wr_id %llx status %d", ret, wc.wr_id,
	      wc.status);
	/* Too many SGEs: refused at post time, bad_wr names it. */
	swr.next = NULL;
	swr.num_sge = 8;
	swr.sg_list = many;
	ret = ibx_post_send(f->a.qp, &swr, &bad);
	CHECK(ret == -EINVAL && bad == &swr, "post_too_many_sge", "ret %d", ret);
	/* A DMA key with remote access is refused. */
	CHECK(IS_ERR(ibx_get_dma_mr(f->pd, IB_UVERBS_ACCESS_REMOTE_WRITE)),
	      "dma_mr_no_remote", "accepted");
	/* A PD with objects cannot go. */
	CHECK(ibx_dealloc_pd(f->pd) == -EBUSY, "pd_busy", "not busy");
	CHECK(ibx_destroy_cq(f->a.cq) == -EBUSY, "cq_busy", "not busy");
}

/* ---------------- UD ---------------- */

static void test_ud(struct fixture *f)
{
	struct side u1 = {}, u2 = {};
	struct ibx_ah_attr aa = {};
	struct ibx_ah *ah = NULL;
	struct ibx_qp_attr a = {};
	u8 *src = NULL, *dst = NULL;
	struct ibx_sge sge, rsge;
	struct ibx_send_wr swr = {};
	struct ibx_recv_wr rwr = {};
	struct ibx_wc wc;
	static const u8 zero[20];
	int ret, i;

	src = kmalloc(512, GFP_KERNEL);
	dst = kzalloc(512 + 40, GFP_KERNEL);
	ret = src && dst ? 0 : -ENOMEM;
	ret = ret ? ret : side_create(f, &u1, IB_UVERBS_QPT_UD);
	ret = ret ? ret : side_create(f, &u2, IB_UVERBS_QPT_UD);
	if (!CHECK(!ret, "ud_create", "%d", ret))
		goto out;
	for (i = 0; i < 2 && !ret; i++) {
		struct ibx_qp *qp = i ? u2.qp : u1.qp;

		a.qp_state = IBX_QPS_INIT;
		a.port_num = 1;
		a.qkey = 0x1234;
		ret = ibx_modify_qp(qp, &a, IBX_QP_STATE | IBX_QP_PKEY_INDEX |
				    IBX_QP_PORT | IBX_QP_QKEY);
		a.qp_state = IBX_QPS_RTR;
		ret = ret ? ret : ibx_modify_qp(qp, &a, IBX_QP_STATE);
		a.qp_state = IBX_QPS_RTS;
		a.sq_psn = 5;
		ret = ret ? ret : ibx_modify_qp(qp, &a, IBX_QP_STATE |
						IBX_QP_SQ_PSN);
	}
	if (!CHECK(!ret, "ud_modify", "%d", ret))
		goto out;
	aa.dgid = f->gid;
	aa.is_global = 1;
	aa.port_num = 1;
	aa.sgid_index = 1;
	aa.hop_limit = 64;
	ah = ibx_create_ah(f->pd, &aa);
	if (!CHECK(!IS_ERR(ah), "ud_ah", "%ld", PTR_ERR(ah))) {
		ah = NULL;
		goto out;
	}
	rsge = (struct ibx_sge){ (u64)(uintptr_t)dst, 512 + 40, f->dma->lkey };
	rwr.wr_id = 0xd1;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	fill(src, 300, 9);
	sge = (struct ibx_sge){ (u64)(uintptr_t)src, 300, f->dma->lkey };
	swr.wr_id = 0xd2;
	swr.opcode = IBX_WR_SEND;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = u2.qp->qp_num;
	swr.wr.ud.remote_qkey = 0x1234;
	ret = ibx_post_recv(u2.qp, &rwr, NULL);
	ret = ret ? ret : ibx_post_send(u1.qp, &swr, NULL);
	ret = ret ? ret : (poll_one(u1.cq, &wc) == 1 ? 0 : -ETIMEDOUT);
	CHECK(!ret && wc.status == IBX_WC_SUCCESS, "ud_send_cqe",
	      "ret %d status %d", ret, wc.status);
	ret = poll_one(u2.cq, &wc);
	CHECK(ret == 1 && wc.status == IBX_WC_SUCCESS && wc.byte_len == 340 &&
	      wc.src_qp == u1.qp->qp_num && (wc.wc_flags & IBX_WC_GRH),
	      "ud_recv_cqe", "n %d status %d len %u src %u", ret, wc.status,
	      wc.byte_len, wc.src_qp);
	/* IPv4 GRH: 20 zero bytes, then an IPv4 header from 10.9.0.1. */
	CHECK(!memcmp(dst, zero, 20) && dst[20] == 0x45 &&
	      !memcmp(dst + 32, &f->gid.raw[12], 4), "ud_grh",
	      "grh %*ph", 40, dst);
	CHECK(!memcmp(dst + 40, src, 300), "ud_data", "data differs");

	/*
	 * QP1 belongs to the MAD layer: a second GSI QP is refused.  A
	 * datagram to QP 1 with another Q_Key than 0x80010000 is dropped
	 * (the .vmtest checks rx_drop_qkey went up by exactly one).
	 */
	{
		struct ibx_kqp_init_attr gi = {
			.qp_type = IBX_QPT_GSI, .send_cq = u1.cq,
			.recv_cq = u1.cq, .port_num = 1,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct ibx_qp *gsi = ibx_create_qp(f->pd, &gi);

		CHECK(PTR_ERR(gsi) == -EBUSY, "gsi_taken", "%ld", PTR_ERR(gsi));
		if (!IS_ERR(gsi))
			ibx_destroy_qp(gsi);
	}
	swr.wr_id = 0xd3;
	swr.wr.ud.remote_qpn = IBX_GSI_QPN;
	swr.wr.ud.remote_qkey = 0x1234;
	ret = ibx_post_send(u1.qp, &swr, NULL);
	ret = ret ? ret : (poll_one(u1.cq, &wc) == 1 ? 0 : -ETIMEDOUT);
	CHECK(!ret && wc.status == IBX_WC_SUCCESS && wc.wr_id == 0xd3,
	      "qp1_bad_qkey_sent", "ret %d status %d", ret, wc.status);
out:
	if (ah)
		ibx_destroy_ah(ah);
	side_destroy(&u1);
	side_destroy(&u2);
	kfree(src);
	kfree(dst);
}

/* ---------------- the run ---------------- */

static void run_tests(struct ibx_device *dev)
{
	struct fixture *f;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		report(false, "setup", "no memory");
		return;
	}
	f->dev = dev;
	atomic_set(&f->events, 0);
	f->scratch = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!CHECK(f->scratch, "scratch", "no memory"))
		goto out;
	init_completion(&f->event);
	ret = ibx_get_gid(dev, 1, 1, &f->gid, NULL);
	if (!CHECK(!ret, "gid", "no GID 1 (%d)", ret))
		goto out;
	f->pd = ibx_alloc_pd(dev);
	if (!CHECK(!IS_ERR(f->pd), "alloc_pd", "%ld", PTR_ERR(f->pd))) {
		f->pd = NULL;
		goto out;
	}
	f->dma = ibx_get_dma_mr(f->pd, IB_UVERBS_ACCESS_LOCAL_WRITE);
	if (!CHECK(!IS_ERR(f->dma), "get_dma_mr", "%ld", PTR_ERR(f->dma))) {
		f->dma = NULL;
		goto out;
	}
	ret = side_create(f, &f->a, IB_UVERBS_QPT_RC);
	ret = ret ? ret : side_create(f, &f->b, IB_UVERBS_QPT_RC);
	if (!CHECK(!ret, "rc_create", "%d", ret))
		goto out;
	CHECK(f->a.qp->qp_num >= 0x11 && f->a.qp->qp_num != f->b.qp->qp_num,
	      "rc_qpn", "qpn %u", f->a.qp->qp_num);
	/* Posting to a QP in RESET is refused (IBA 10.8.2). */
	{
		struct ibx_send_wr w = { .opcode = IBX_WR_SEND };

		CHECK(ibx_post_send(f->a.qp, &w, NULL) == -EINVAL,
		      "post_send_reset", "accepted");
	}
	test_rc(f);
	test_notify(f);
	test_ud(f);
	test_rkey_bounds(f);
	test_bad_lkey(f);
out:
	side_destroy(&f->a);
	side_destroy(&f->b);
	if (f->dma)
		ibx_dereg_mr(f->dma);
	if (f->pd)
		CHECK(!ibx_dealloc_pd(f->pd), "dealloc_pd", "busy");
	kfree(f->scratch);
	kfree(f);
}

static int __init kverbs_test_init(void)
{
	size_t len;
	int ret;

	ret = ibx_register_client(&test_client);
	if (ret)
		return ret;
	if (test_dev)
		run_tests(test_dev);
	else
		report(false, "device", "no mlx_hw device");
	len = strlen(result);
	snprintf(result + len, sizeof(result) - len, "passed %u failed %u\n",
		 passed, failed);
	pr_info("passed %u failed %u\n", passed, failed);
	return 0;
}

static void __exit kverbs_test_exit(void)
{
	ibx_unregister_client(&test_client);
}

module_init(kverbs_test_init);
module_exit(kverbs_test_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("tests of the ibx kernel verbs API");
