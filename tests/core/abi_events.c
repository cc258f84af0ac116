// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_abi_test: async events (events), success paths and destroy-time
 * event counts (counts), concurrency on one fd (threads), device removal
 * with open contexts (disassoc), port events (gidevent).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "uverbs_abi.h"

/* ---------------- events ---------------- */

void test_events(void)
{
	struct ctx c;
	struct ib_uverbs_async_event_desc ev;
	struct pollfd p;

	if (open_ctx(&c)) {
		VERIFY(0, "setup");
		return;
	}
	p.fd = c.async_fd;
	p.events = POLLIN;
	VERIFY(poll(&p, 1, 0) == 0, "idle async fd polls ready");
	fcntl(c.async_fd, F_SETFL, O_NONBLOCK);
	VERIFY(read(c.async_fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN,
	      "empty async read: %m");
	/* Once the context is gone its event files report EIO. */
	{
		struct ib_uverbs_create_comp_channel req = {};
		struct ib_uverbs_create_comp_channel_resp resp = {};
		struct ib_uverbs_comp_event_desc cev;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			   sizeof(req), &resp, sizeof(resp)), 0);
		close(c.fd);
		VERIFY(read(c.async_fd, &ev, sizeof(ev)) == -1 && errno == EIO,
		      "async read after close: %m");
		VERIFY(read(resp.fd, &cev, sizeof(cev)) == -1 && errno == EIO,
		      "channel read after close: %m");
		p.fd = resp.fd;
		VERIFY(poll(&p, 1, 0) == 1 && (p.revents & POLLERR),
		      "channel poll after close: 0x%x", p.revents);
		close(resp.fd);
		close(c.async_fd);
	}
}

/* ---------------- success paths and destroy-time event counts ---------------- */

/* A QP or SRQ created through the raw ABI with its rings mapped. */
struct raw_queue {
	uint32_t handle, num;
	uint8_t *region;
	size_t len;
	uint8_t *dbpage;	/* the page with its doorbell record */
	uint8_t *rq;		/* receive ring (QP RQ or SRQ) */
	uint32_t rq_cnt, rq_stride;
	uint8_t *sq;
	uint32_t sq_cnt, sq_stride;
	__le32 *rq_pi, *sq_pi;
	uint32_t rq_next, sq_next;
};

static int map_region(struct ctx *c, struct raw_queue *q, uint64_t key,
		      uint32_t len)
{
	q->region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
			 key);
	q->len = len;
	return q->region == MAP_FAILED ? -errno : 0;
}

/* The doorbell record at @offset of the page under @key (docs/prm.md 1.2). */
static void *map_dbrec(struct ctx *c, uint8_t **page, uint64_t key,
		       uint32_t offset)
{
	*page = NULL;
	if (offset >= 4096)
		return NULL;
	*page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
		     key);
	if (*page == MAP_FAILED) {
		*page = NULL;
		return NULL;
	}
	return *page + offset;
}

static void unmap_queue(struct raw_queue *q)
{
	munmap(q->region, q->len);
	if (q->dbpage)
		munmap(q->dbpage, 4096);
}

static int raw_create_qp(struct ctx *c, uint32_t pd, uint32_t cq, int srq,
			 uint64_t user_handle, struct raw_queue *q)
{
	struct ib_uverbs_create_qp req = {
		.user_handle = user_handle, .pd_handle = pd,
		.send_cq_handle = cq, .recv_cq_handle = cq, .max_send_wr = 8,
		.max_recv_wr = srq >= 0 ? 0 : 8, .max_send_sge = 1,
		.max_recv_sge = 1, .qp_type = IB_UVERBS_QPT_RC,
		.is_srq = srq >= 0, .srq_handle = srq >= 0 ? srq : 0,
	};
	struct {
		struct ib_uverbs_create_qp_resp r;
		struct mlx_hw_create_qp_resp d;
		char pad[UDATA_OUT - sizeof(struct mlx_hw_create_qp_resp)];
	} resp = {};
	struct mlx_hw_qp_db *db;
	int ret;

	memset(q, 0, sizeof(*q));
	ret = cmd(c->fd, IB_USER_VERBS_CMD_CREATE_QP, &req, sizeof(req),
		  &resp, sizeof(resp));
	if (ret)
		return ret;
	q->handle = resp.r.qp_handle;
	q->num = resp.r.qpn;
	ret = map_region(c, q, resp.d.mmap_key, resp.d.mmap_len);
	if (ret)
		return ret;
	db = map_dbrec(c, &q->dbpage, resp.d.db_key, resp.d.db_offset);
	if (!db)
		return -EPROTO;
	q->sq = q->region + resp.d.sq_offset;
	q->sq_cnt = resp.d.sq_wqe_cnt;
	q->sq_stride = resp.d.sq_stride;
	q->sq_pi = &db->sq_pi;
	q->rq = q->region + resp.d.rq_offset;
	q->rq_cnt = resp.d.rq_wqe_cnt;
	q->rq_stride = resp.d.rq_stride;
	q->rq_pi = &db->rq_pi;
	return 0;
}

static int raw_create_srq(struct ctx *c, uint32_t pd, uint64_t user_handle,
			  struct raw_queue *q)
{
	struct ib_uverbs_create_srq req = {
		.user_handle = user_handle, .pd_handle = pd, .max_wr = 4,
		.max_sge = 1,
	};
	struct {
		struct ib_uverbs_create_srq_resp r;
		struct mlx_hw_create_srq_resp d;
		char pad[UDATA_OUT - sizeof(struct mlx_hw_create_srq_resp)];
	} resp = {};
	struct mlx_hw_srq_db *db;
	int ret;

	memset(q, 0, sizeof(*q));
	ret = cmd(c->fd, IB_USER_VERBS_CMD_CREATE_SRQ, &req, sizeof(req),
		  &resp, sizeof(resp));
	if (ret)
		return ret;
	q->handle = resp.r.srq_handle;
	ret = map_region(c, q, resp.d.mmap_key, resp.d.mmap_len);
	if (ret)
		return ret;
	q->rq = q->region + resp.d.ring_offset;
	q->rq_cnt = resp.d.wqe_cnt;
	q->rq_stride = resp.d.stride;
	db = map_dbrec(c, &q->dbpage, resp.d.db_key, resp.d.db_offset);
	if (!db)
		return -EPROTO;
	q->rq_pi = &db->pi;
	return 0;
}

/*
 * Publishes a doorbell value and wakes the engine naming the QP rung
 * (PRM 2, 2.1, 3); an SRQ (@qpn 0) needs no entry.
 */
static void ring_doorbell(struct ctx *c, __le32 *db, uint32_t pi, uint32_t qpn)
{
	__atomic_store_n(db, htole32(pi), __ATOMIC_RELEASE);
	if (qpn)
		ioctl(c->fd, MLX_HW_IOCTL_WAKE_DB, (unsigned long)
		      (MLX_HW_DB_KIND_QP << MLX_HW_DB_KIND_SHIFT | qpn));
	else
		ioctl(c->fd, MLX_HW_IOCTL_WAKE);
}

/* A receive WQE without buffers (takes zero-length messages). */
static void raw_post_recv(struct ctx *c, struct raw_queue *q, uint64_t wr_id)
{
	struct mlx_hw_rwqe *w = (struct mlx_hw_rwqe *)
		(q->rq + (q->rq_next & (q->rq_cnt - 1)) * q->rq_stride);

	memset(w, 0, q->rq_stride);
	w->wr_id = htole64(wr_id);
	ring_doorbell(c, q->rq_pi, ++q->rq_next, q->sq ? q->num : 0);
}

/* A signaled zero-length SEND. */
static void raw_post_send(struct ctx *c, struct raw_queue *q, uint64_t wr_id)
{
	struct mlx_hw_wqe_ctrl *w = (struct mlx_hw_wqe_ctrl *)
		(q->sq + (q->sq_next & (q->sq_cnt - 1)) * q->sq_stride);

	memset(w, 0, q->sq_stride);
	w->wr_id = htole64(wr_id);
	w->opcode = MLX_HW_OP_SEND;
	w->flags = MLX_HW_WQE_SIGNALED;
	ring_doorbell(c, q->sq_pi, ++q->sq_next, q->num);
}

/* RESET -> RTS, connected to @dqpn. */
static int raw_connect(struct ctx *c, uint32_t qp, uint32_t dqpn)
{
	struct ib_uverbs_modify_qp m;
	int ret;

	to_init(c, IB_UVERBS_QPT_RC, &m, qp);
	ret = modify_qp(c, &m);
	to_rtr(c, IB_UVERBS_QPT_RC, &m, qp, dqpn);
	ret = ret ? ret : modify_qp(c, &m);
	to_rts(IB_UVERBS_QPT_RC, &m, qp);
	m.sq_psn = 0x123456;	/* the peer's rq_psn (to_rtr) */
	return ret ? ret : modify_qp(c, &m);
}

/* Reads async events until none comes for 300 ms; counts per element. */
static void read_async(struct ctx *c, const uint64_t *elems, int n,
		       uint32_t *counts, uint32_t *types)
{
	struct ib_uverbs_async_event_desc ev;
	struct pollfd p = { .fd = c->async_fd, .events = POLLIN };
	int i;

	while (poll(&p, 1, 300) == 1) {
		if (read(c->async_fd, &ev, sizeof(ev)) != sizeof(ev))
			break;
		for (i = 0; i < n; i++) {
			if (ev.element == elems[i]) {
				counts[i]++;
				types[i] |= 1u << ev.event_type;
			}
		}
	}
}

/*
 * ALLOC_MW/DEALLOC_MW, REQ_NOTIFY_CQ, RESIZE_CQ and the events_reported
 * of DESTROY_CQ/QP/SRQ: a SEND between two QPs (one on an SRQ with a
 * limit) under an armed CQ gives a completion event and SRQ_LIMIT_REACHED;
 * SQD with notification gives SQ_DRAINED.  Each destroy must report what
 * was read from the event files.
 */
void test_counts(void)
{
	enum { QP_A = 0x1a, QP_B = 0x1b, SRQ_H = 0x5e, CQ_H = 0xc0ffee };
	const uint64_t elems[] = { QP_A, QP_B, SRQ_H, CQ_H };
	uint32_t counts[4] = {}, types[4] = {};
	struct raw_queue a, b, srq;
	struct ib_uverbs_destroy_cq_resp dcq = {};
	struct ib_uverbs_comp_event_desc cev;
	struct mlx_hw_create_cq_resp cq_drv = {};
	struct mlx_hw_cq_db *cq_db;
	uint8_t *cq_dbpage = NULL;
	struct ctx c;
	uint32_t pd, cq, events;
	int chan;

	if (open_ctx(&c) || alloc_pd(&c, &pd) || c.gid_ok < 0) {
		VERIFY(0, "setup");
		return;
	}
	/* Memory windows: both types, the PD busy while they exist. */
	{
		struct ib_uverbs_alloc_mw req = { .pd_handle = pd };
		struct {
			struct ib_uverbs_alloc_mw_resp r;
			char udata[UDATA_OUT];
		} r1 = {}, r2 = {};
		struct ib_uverbs_dealloc_mw d = {};
		uint32_t pd2;

		EXPECT(alloc_pd(&c, &pd2), 0);
		req.pd_handle = pd2;
		req.mw_type = 1;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ALLOC_MW, &req, sizeof(req),
			   &r1, sizeof(r1)), 0);
		req.mw_type = 2;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ALLOC_MW, &req, sizeof(req),
			   &r2, sizeof(r2)), 0);
		VERIFY(r1.r.mw_handle != r2.r.mw_handle && r1.r.rkey &&
		      r2.r.rkey && r1.r.rkey != r2.r.rkey,
		      "mw handles %u %u rkeys %#x %#x", r1.r.mw_handle,
		      r2.r.mw_handle, r1.r.rkey, r2.r.rkey);
		EXPECT(dealloc_pd(&c, pd2), -EBUSY);
		d.mw_handle = r1.r.mw_handle;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d, sizeof(d),
			   NULL, 0), 0);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d, sizeof(d),
			   NULL, 0), -ENOENT);
		d.mw_handle = r2.r.mw_handle;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d, sizeof(d),
			   NULL, 0), 0);
		EXPECT(dealloc_pd(&c, pd2), 0);
	}

	{
		struct ib_uverbs_create_comp_channel req = {};
		struct ib_uverbs_create_comp_channel_resp resp = {};

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			   sizeof(req), &resp, sizeof(resp)), 0);
		chan = resp.fd;
	}
	EXPECT(create_cq_drv(&c, 16, 0, chan, &cq, &cq_drv), 0);
	cq_db = map_dbrec(&c, &cq_dbpage, cq_drv.db_key, cq_drv.db_offset);
	VERIFY(cq_db, "map the CQ's doorbell record: %m");
	EXPECT(raw_create_srq(&c, pd, SRQ_H, &srq), 0);
	EXPECT(raw_create_qp(&c, pd, cq, -1, QP_A, &a), 0);
	EXPECT(raw_create_qp(&c, pd, cq, srq.handle, QP_B, &b), 0);
	if (check_failures)
		return;
	EXPECT(raw_connect(&c, a.handle, b.num), 0);
	EXPECT(raw_connect(&c, b.handle, a.num), 0);

	/* Two receives on the SRQ, limit 2: taking one fires the event. */
	raw_post_recv(&c, &srq, 100);
	raw_post_recv(&c, &srq, 101);
	{
		struct ib_uverbs_modify_srq m = { .srq_handle = srq.handle,
			.attr_mask = 1 << 1, .srq_limit = 2 };

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &m, sizeof(m),
			   NULL, 0), 0);
	}
	/* Armed through the command (providers usually write the arm word). */
	{
		struct ib_uverbs_req_notify_cq n = { .cq_handle = cq };

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &n, sizeof(n),
			   NULL, 0), 0);
		n.solicited_only = 1;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &n, sizeof(n),
			   NULL, 0), 0);
		n.solicited_only = 0;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &n, sizeof(n),
			   NULL, 0), 0);
	}
	raw_post_send(&c, &a, 7);
	{
		struct pollfd p = { .fd = chan, .events = POLLIN };
		struct epoll_event ee = { .events = EPOLLIN, .data.u32 = 1 };
		int ep = epoll_create1(EPOLL_CLOEXEC);

		/* epoll and poll see the same readiness (f_op->poll). */
		VERIFY(ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, chan, &ee),
		      "epoll on the channel: %m");
		memset(&ee, 0, sizeof(ee));
		VERIFY(epoll_wait(ep, &ee, 1, 5000) == 1 &&
		      ee.events == EPOLLIN && ee.data.u32 == 1,
		      "epoll: no completion event (0x%x)", ee.events);
		VERIFY(poll(&p, 1, 5000) == 1, "no completion event");
		VERIFY(read(chan, &cev, sizeof(cev)) == sizeof(cev) &&
		      cev.cq_handle == CQ_H, "comp event for %#llx",
		      (unsigned long long)cev.cq_handle);
		/* One arm, one event. */
		VERIFY(poll(&p, 1, 200) == 0, "second completion event");
		VERIFY(epoll_wait(ep, &ee, 1, 0) == 0, "epoll still ready");
		fcntl(chan, F_SETFL, O_NONBLOCK);
		VERIFY(read(chan, &cev, sizeof(cev)) == -1 && errno == EAGAIN,
		      "empty channel read: %m");
		close(ep);
	}
	/* SQ_DRAINED (IBA 11.6.3) for QP a. */
	{
		struct ib_uverbs_modify_qp m = { .qp_handle = a.handle,
			.qp_state = IB_UVERBS_QPS_SQD, .en_sqd_async_notify = 1,
			.attr_mask = IB_UVERBS_QP_STATE | 1 << 2 };

		EXPECT(modify_qp(&c, &m), 0);
	}
	read_async(&c, elems, 4, counts, types);
	VERIFY(types[0] == 1u << 5 /* SQ_DRAINED */ && counts[0] == 1,
	      "QP a: %u events, types %#x", counts[0], types[0]);
	VERIFY(types[2] == 1u << 15 /* SRQ_LIMIT_REACHED */ && counts[2] == 1,
	      "SRQ: %u events, types %#x", counts[2], types[2]);

	/*
	 * RESIZE_CQ: the two CQEs (send 7, receive 100) move to a new ring;
	 * the doorbell record stays, with the indices restarted.
	 */
	{
		struct ib_uverbs_resize_cq r = { .cq_handle = cq, .cqe = 1 };
		struct {
			struct ib_uverbs_resize_cq_resp r;
			struct mlx_hw_resize_cq_resp d;
			char pad[UDATA_OUT - sizeof(struct mlx_hw_resize_cq_resp)];
		} rr = {};
		struct raw_queue ring;
		struct mlx_hw_cqe *cqe;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r),
			   &rr, sizeof(rr)), -EINVAL);
		r.cqe = 1 << 22;	/* max_cqe + 1 (docs/prm.md 11) */
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r),
			   &rr, sizeof(rr)), -EINVAL);
		/* Without room for the new region's key: refused. */
		r.cqe = 100;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r),
			   &rr, sizeof(rr.r)), -EINVAL);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r),
			   &rr, sizeof(rr)), 0);
		VERIFY(rr.r.cqe == 128 && rr.d.entries == 128 && rr.d.mmap_key,
		      "resize: cqe %u entries %u", rr.r.cqe, rr.d.entries);
		if (cq_db &&
		    !map_region(&c, &ring, rr.d.mmap_key, rr.d.mmap_len)) {
			cqe = (void *)(ring.region + rr.d.ring_offset);
			VERIFY(le32toh(cq_db->ci) == 0 && le32toh(cq_db->pi) == 2 &&
			      cqe[0].owner == 1 && cqe[1].owner == 1 &&
			      cqe[2].owner == 0,
			      "new ring: ci %u pi %u owners %u %u %u",
			      le32toh(cq_db->ci), le32toh(cq_db->pi), cqe[0].owner,
			      cqe[1].owner, cqe[2].owner);
			VERIFY(le64toh(cqe[0].wr_id) + le64toh(cqe[1].wr_id) ==
			      107 && !cqe[0].status && !cqe[1].status,
			      "wr_ids %llu %llu status %u %u",
			      (unsigned long long)le64toh(cqe[0].wr_id),
			      (unsigned long long)le64toh(cqe[1].wr_id),
			      cqe[0].status, cqe[1].status);
			munmap(ring.region, ring.len);
		} else {
			VERIFY(0, "map resized ring: %m");
		}
	}

	EXPECT(destroy_qp(&c, a.handle, &events), 0);
	VERIFY(events == counts[0], "QP a events_reported %u, read %u", events,
	      counts[0]);
	EXPECT(destroy_qp(&c, b.handle, &events), 0);
	VERIFY(events == counts[1], "QP b events_reported %u, read %u", events,
	      counts[1]);
	{
		struct ib_uverbs_destroy_srq d = { .srq_handle = srq.handle };
		struct ib_uverbs_destroy_srq_resp r = {};

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &d, sizeof(d),
			   &r, sizeof(r)), 0);
		VERIFY(r.events_reported == 1, "SRQ events_reported %u",
		      r.events_reported);
	}
	EXPECT(destroy_cq(&c, cq, &dcq), 0);
	VERIFY(dcq.comp_events_reported == 1 &&
	      dcq.async_events_reported == counts[3],
	      "CQ events_reported %u/%u, read 1/%u", dcq.comp_events_reported,
	      dcq.async_events_reported, counts[3]);
	unmap_queue(&a);
	unmap_queue(&b);
	unmap_queue(&srq);
	if (cq_dbpage)
		munmap(cq_dbpage, 4096);
	close(chan);
	close_ctx(&c);
}

/* ---------------- concurrency on one fd ---------------- */

static struct ctx thr_ctx;
static int thr_errors;

static void *thr_main(void *arg)
{
	int i;

	for (i = 0; i < 500; i++) {
		uint32_t pd, cq;

		if (alloc_pd(&thr_ctx, &pd) ||
		    create_cq(&thr_ctx, 8, 0, -1, &cq) ||
		    destroy_cq(&thr_ctx, cq, NULL) ||
		    dealloc_pd(&thr_ctx, pd))
			__atomic_add_fetch(&thr_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

void test_threads(void)
{
	pthread_t t[4];
	int i;

	if (open_ctx(&thr_ctx)) {
		VERIFY(0, "setup");
		return;
	}
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thr_main, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	VERIFY(thr_errors == 0, "%d failed iterations", thr_errors);
	close_ctx(&thr_ctx);
}

/* ---------------- device removal with open contexts ---------------- */

static int write_param(const char *name, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/module/mlx_hw/parameters/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

void test_disassoc(void)
{
	struct ib_uverbs_async_event_desc ev = {};
	char netdev[256] = "", path[512];
	struct ctx c;
	uint32_t pd, cq, qp, mr, pd2;
	char *buf = aligned_alloc(4096, 65536);
	long before = vm_pin_kb();
	void *page = MAP_FAILED;
	DIR *d;
	struct dirent *e;
	int i;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net",
		 ibdev);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			snprintf(netdev, sizeof(netdev), "%s", e->d_name);
	if (d)
		closedir(d);
	if (!netdev[0] || open_ctx(&c) || alloc_pd(&c, &pd) ||
	    create_cq(&c, 16, 0, -1, &cq) ||
	    create_qp(&c, IB_UVERBS_QPT_RC, pd, cq, -1, &qp, NULL) ||
	    reg_mr(&c, pd, buf, 65536, IB_UVERBS_ACCESS_LOCAL_WRITE, &mr)) {
		VERIFY(0, "setup (netdev '%s')", netdev);
		return;
	}
	VERIFY(vm_pin_kb() == before + 64, "VmPin %ld", vm_pin_kb());
	/* Device memory mapped through the uverbs fd (the engine page). */
	page = mmap(NULL, c.drv.engine_page_size, PROT_READ, MAP_SHARED, c.fd,
		    c.drv.engine_page_key);
	VERIFY(page != MAP_FAILED, "mmap engine page: %m");
	EXPECT(write_param("remove", netdev), 0);
	/* The context learns about it, its objects are gone. */
	{
		struct pollfd p = { .fd = c.async_fd, .events = POLLIN };

		VERIFY(poll(&p, 1, 3000) == 1, "async fd not ready");
		fcntl(c.async_fd, F_SETFL, O_NONBLOCK);
	}
	/* Port events (GID changes) may come first; DEVICE_FATAL is last. */
	{
		int n, fatal = 0;

		while ((n = read(c.async_fd, &ev, sizeof(ev))) == sizeof(ev))
			fatal = ev.event_type == 8; /* IBV_EVENT_DEVICE_FATAL */
		VERIFY(fatal, "last event %u, not DEVICE_FATAL", ev.event_type);
		VERIFY(n == -1 && errno == EIO, "async read after fatal: %m");
	}
	EXPECT(alloc_pd(&c, &pd2), -EIO);
	EXPECT(dealloc_pd(&c, pd), -EIO);
	VERIFY(vm_pin_kb() == before, "VmPin %ld kB after removal, want %ld",
	      vm_pin_kb(), before);
	VERIFY(access(uverbs_path, F_OK) != 0, "%s still exists", uverbs_path);
	/* The mapping was zapped: touching it now faults. */
	if (page != MAP_FAILED) {
		int status = 0;
		pid_t pid = fork();

		if (pid == 0) {
			volatile uint32_t v = *(volatile uint32_t *)page;

			(void)v;
			_exit(0);
		}
		waitpid(pid, &status, 0);
		VERIFY(WIFSIGNALED(status) && (WTERMSIG(status) == SIGBUS ||
					      WTERMSIG(status) == SIGSEGV),
		      "reading a zapped mapping: status 0x%x", status);
		VERIFY(mmap(NULL, 4096, PROT_READ, MAP_SHARED, c.fd,
			   c.drv.engine_page_key) == MAP_FAILED && errno == EIO,
		      "mmap after removal: %m");
		munmap(page, c.drv.engine_page_size);
	}
	close_ctx(&c);
	EXPECT(write_param("add", netdev), 0);
	for (i = 0; i < 50 && find_device(); i++)
		usleep(100000);
	VERIFY(i < 50, "%s did not come back", ibdev);
	free(buf);
}

/* ---------------- port events ---------------- */

/* An address added to the netdev becomes a GID: GID_CHANGE on port 1. */
void test_gidevent(void)
{
	struct ib_uverbs_async_event_desc ev = {};
	char netdev[256] = "", path[512], sh[600];
	struct pollfd p;
	struct ctx c;
	DIR *d;
	struct dirent *e;
	int n, seen = 0;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net",
		 ibdev);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			snprintf(netdev, sizeof(netdev), "%s", e->d_name);
	if (d)
		closedir(d);
	if (!netdev[0] || open_ctx(&c)) {
		VERIFY(0, "setup");
		return;
	}
	snprintf(sh, sizeof(sh), "ip addr add 10.9.77.1/24 dev %s", netdev);
	VERIFY(system(sh) == 0, "%s", sh);
	p.fd = c.async_fd;
	p.events = POLLIN;
	VERIFY(poll(&p, 1, 3000) == 1, "no event within 3 s");
	fcntl(c.async_fd, F_SETFL, O_NONBLOCK);
	while ((n = read(c.async_fd, &ev, sizeof(ev))) == sizeof(ev))
		if (ev.event_type == 18 /* IBV_EVENT_GID_CHANGE */ &&
		    ev.element == 1)
			seen = 1;
	VERIFY(seen, "no GID_CHANGE for port 1 (last type %u element %llu)",
	      ev.event_type, (unsigned long long)ev.element);
	VERIFY(n == -1 && errno == EAGAIN, "after the events: %m");
	/* A short buffer cannot take an event. */
	snprintf(sh, sizeof(sh), "ip addr del 10.9.77.1/24 dev %s", netdev);
	VERIFY(system(sh) == 0, "%s", sh);
	poll(&p, 1, 3000);
	VERIFY(read(c.async_fd, &ev, 8) == -1 && errno == EINVAL,
	      "8-byte read: %m");
	close_ctx(&c);
}
