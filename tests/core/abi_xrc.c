// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_abi_test: XRC (IBA annex A14) through the raw ABI (section xrc).
 * OPEN_XRCD / CLOSE_XRCD on a shared inode and privately, CREATE_XSRQ,
 * XRC TGT QPs created in one file and opened in another (OPEN_QP), their
 * state table, and the handle rules: a TGT QP lives while any file holds
 * a handle of it, a domain while its SRQs or TGT QP handles use it.
 * Traffic over XRC and killed holders: tests/verbs/xrc.c.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "uverbs_abi.h"

static int open_xrcd_fd(int fd, uint32_t file, uint32_t oflags,
			uint32_t *xrcd)
{
	struct ib_uverbs_open_xrcd req = { .fd = file, .oflags = oflags };
	struct ib_uverbs_open_xrcd_resp resp = { .xrcd_handle = ~0u };
	int ret = cmd(fd, IB_USER_VERBS_CMD_OPEN_XRCD, &req, sizeof(req),
		      &resp, sizeof(resp));

	*xrcd = resp.xrcd_handle;
	return ret;
}

static int open_xrcd(struct ctx *c, uint32_t file, uint32_t oflags,
		     uint32_t *xrcd)
{
	return open_xrcd_fd(c->fd, file, oflags, xrcd);
}

static int close_xrcd(struct ctx *c, uint32_t xrcd)
{
	struct ib_uverbs_close_xrcd req = { .xrcd_handle = xrcd };

	return cmd(c->fd, IB_USER_VERBS_CMD_CLOSE_XRCD, &req, sizeof(req),
		   NULL, 0);
}

static int create_xsrq(struct ctx *c, uint32_t type, uint32_t pd,
		       uint32_t xrcd, uint32_t cq, uint32_t *srq,
		       uint32_t *srqn)
{
	struct ib_uverbs_create_xsrq req = {
		.user_handle = 0x5a, .srq_type = type, .pd_handle = pd,
		.max_wr = 8, .max_sge = 1, .xrcd_handle = xrcd,
		.cq_handle = cq,
	};
	struct {
		struct ib_uverbs_create_srq_resp r;
		char udata[UDATA_OUT];
	} resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &req, sizeof(req),
		      &resp, sizeof(resp));

	*srq = resp.r.srq_handle;
	if (srqn)
		*srqn = resp.r.srqn;
	return ret;
}

static int destroy_srq(struct ctx *c, uint32_t srq)
{
	struct ib_uverbs_destroy_srq req = { .srq_handle = srq };
	struct ib_uverbs_destroy_srq_resp resp;

	return cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &req, sizeof(req),
		   &resp, sizeof(resp));
}

/* A TGT QP in domain @xrcd, by the extended CREATE_QP. */
static int create_tgt_ex(struct ctx *c, uint32_t xrcd, uint32_t *qp,
			 uint32_t *qpn)
{
	struct ib_uverbs_ex_create_qp req = {
		.user_handle = 0x7e, .pd_handle = xrcd,
		.qp_type = IB_UVERBS_QPT_XRC_TGT,
	};
	struct {
		struct ib_uverbs_ex_create_qp_resp r;
		char udata[UDATA_OUT];
	} resp = {};
	int ret = ex_cmd(c->fd, IB_USER_VERBS_EX_CMD_CREATE_QP, &req,
			 sizeof(req), &resp, sizeof(resp.r));

	*qp = resp.r.base.qp_handle;
	*qpn = resp.r.base.qpn;
	return ret;
}

static int open_qp(struct ctx *c, uint32_t xrcd, uint32_t qpn, uint8_t type,
		   uint32_t *qp, uint32_t *qpn_out)
{
	struct ib_uverbs_open_qp req = {
		.user_handle = 0x0b, .pd_handle = xrcd, .qpn = qpn,
		.qp_type = type,
	};
	struct {
		struct ib_uverbs_create_qp_resp r;
		char udata[UDATA_OUT];
	} resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_OPEN_QP, &req, sizeof(req),
		      &resp, sizeof(resp));

	*qp = resp.r.qp_handle;
	if (qpn_out)
		*qpn_out = resp.r.qpn;
	return ret;
}

static uint8_t qp_state(struct ctx *c, uint32_t qp)
{
	struct ib_uverbs_query_qp_resp r = {};

	return query_qp(c, qp, &r) ? 0xff : r.qp_state;
}

/* OPEN_XRCD and CLOSE_XRCD: the inode rules of ib_uverbs_open_xrcd. */
static void test_xrcd_open(struct ctx *a, int file, uint32_t pd,
			   uint32_t *xrcd)
{
	int closed_fd = dup(file), bare = open(uverbs_path, O_RDWR);
	uint32_t x2, priv;

	close(closed_fd);
	/* No domain on the inode yet and no O_CREAT. */
	EXPECT(open_xrcd(a, file, 0, xrcd), -EAGAIN);
	EXPECT(open_xrcd(a, closed_fd, O_CREAT, xrcd), -EBADF);
	/* Everything but GET_CONTEXT needs a context. */
	EXPECT(open_xrcd_fd(bare, file, O_CREAT, &x2), -EINVAL);
	close(bare);
	EXPECT(open_xrcd(a, file, O_CREAT, xrcd), 0);
	EXPECT(open_xrcd(a, file, O_CREAT | O_EXCL, &x2), -EINVAL);
	/* A second handle of the same domain. */
	EXPECT(open_xrcd(a, file, 0, &x2), 0);
	VERIFY(x2 != *xrcd, "two opens gave handle %u twice", x2);
	EXPECT(close_xrcd(a, x2), 0);
	EXPECT(close_xrcd(a, x2), -ENOENT);
	/* A handle of another type, one that names nothing. */
	EXPECT(close_xrcd(a, pd), -EINVAL);
	EXPECT(close_xrcd(a, 999), -ENOENT);
	/* fd -1: a private domain, never found through an inode. */
	EXPECT(open_xrcd(a, -1, O_CREAT | O_EXCL, &priv), 0);
	EXPECT(close_xrcd(a, priv), 0);
}

/* CREATE_XSRQ of an XRC SRQ: a domain, a CQ and a PD, each checked. */
static void test_xsrq(struct ctx *a, uint32_t pd, uint32_t cq, uint32_t xrcd,
		      uint32_t foreign, uint32_t *srq)
{
	const uint32_t xrc = IB_UVERBS_SRQT_XRC;
	uint32_t srqn = 0, bad;

	EXPECT(create_xsrq(a, xrc, pd, pd, cq, &bad, NULL), -EINVAL);
	EXPECT(create_xsrq(a, xrc, pd, 999, cq, &bad, NULL), -EINVAL);
	EXPECT(create_xsrq(a, xrc, pd, foreign, cq, &bad, NULL), -EINVAL);
	EXPECT(create_xsrq(a, xrc, pd, xrcd, pd, &bad, NULL), -EINVAL);
	EXPECT(create_xsrq(a, xrc, pd, xrcd, 999, &bad, NULL), -EINVAL);
	EXPECT(create_xsrq(a, xrc, xrcd, xrcd, cq, &bad, NULL), -EINVAL);
	/* Tag-matching and unknown SRQ types: the driver offers neither. */
	EXPECT(create_xsrq(a, IB_UVERBS_SRQT_TM, pd, xrcd, cq, &bad, NULL),
	       -EOPNOTSUPP);
	EXPECT(create_xsrq(a, 7, pd, xrcd, cq, &bad, NULL), -EOPNOTSUPP);
	EXPECT(create_xsrq(a, xrc, pd, xrcd, cq, srq, &srqn), 0);
	VERIFY(srqn > 0 && srqn <= 0xffffff, "xrc srqn 0x%x", srqn);
	/* The SRQ uses the domain and the CQ. */
	EXPECT(close_xrcd(a, xrcd), -EBUSY);
	EXPECT(destroy_cq(a, cq, NULL), -EBUSY);
}

/*
 * XRC TGT QPs: created in @a, opened in @b on the same domain; a TGT QP of
 * a private domain and an RC QP cannot be opened through it.
 */
static void test_tgt_qps(struct ctx *a, struct ctx *b, uint32_t pd,
			 uint32_t cq, uint32_t xa, uint32_t xb)
{
	uint32_t tgt, tgtn, opened, n = 0, again, priv, ptgt, ptgtn, rc, rcn;

	if (create_qp(a, IB_UVERBS_QPT_XRC_TGT, xa, cq, -1, &tgt, &tgtn)) {
		VERIFY(0, "create XRC TGT QP");
		return;
	}
	test_qp_states(a, IB_UVERBS_QPT_XRC_TGT, tgt, tgtn);

	EXPECT(open_qp(b, xb, tgtn, IB_UVERBS_QPT_XRC_TGT, &opened, &n), 0);
	VERIFY(n == tgtn, "OPEN_QP answered qpn 0x%x, want 0x%x", n, tgtn);
	/* One QP behind both handles: a's transition shows through b's. */
	VERIFY(qp_state(b, opened) == IB_UVERBS_QPS_INIT, "opened QP state %u",
	      qp_state(b, opened));
	{
		struct ib_uverbs_modify_qp m = {
			.qp_handle = opened, .qp_state = IB_UVERBS_QPS_ERR,
			.attr_mask = IB_UVERBS_QP_STATE,
		};

		EXPECT(modify_qp(b, &m), 0);
	}
	VERIFY(qp_state(a, tgt) == IB_UVERBS_QPS_ERR, "creator sees state %u",
	      qp_state(a, tgt));

	/* What OPEN_QP refuses. */
	EXPECT(open_xrcd(a, -1, 0, &priv), 0);
	EXPECT(create_tgt_ex(a, priv, &ptgt, &ptgtn), 0);
	EXPECT(create_qp(a, IB_UVERBS_QPT_RC, pd, cq, -1, &rc, &rcn), 0);
	EXPECT(open_qp(b, xb, ptgtn, IB_UVERBS_QPT_XRC_TGT, &again, NULL),
	       -EINVAL);	/* a TGT QP of another domain */
	EXPECT(open_qp(a, xa, ptgtn, IB_UVERBS_QPT_XRC_TGT, &again, NULL),
	       -EINVAL);
	EXPECT(open_qp(b, xb, rcn, IB_UVERBS_QPT_XRC_TGT, &again, NULL),
	       -EINVAL);	/* not a TGT QP */
	EXPECT(open_qp(b, xb, 0xffffff, IB_UVERBS_QPT_XRC_TGT, &again, NULL),
	       -EINVAL);
	EXPECT(open_qp(b, xb, tgtn, IB_UVERBS_QPT_RC, &again, NULL), -EINVAL);
	EXPECT(open_qp(a, pd, tgtn, IB_UVERBS_QPT_XRC_TGT, &again, NULL),
	       -EINVAL);	/* a PD is not a domain */
	EXPECT(open_qp(b, 999, tgtn, IB_UVERBS_QPT_XRC_TGT, &again, NULL),
	       -EINVAL);
	/* The same QP opened twice in one file: two handles. */
	EXPECT(open_qp(b, xb, tgtn, IB_UVERBS_QPT_XRC_TGT, &again, NULL), 0);
	VERIFY(again != opened, "second open gave handle %u again", again);
	EXPECT(destroy_qp(b, again, NULL), 0);
	EXPECT(destroy_qp(a, rc, NULL), 0);

	/* A handle pins its domain; a domain with a TGT QP is busy. */
	EXPECT(close_xrcd(b, xb), -EBUSY);
	EXPECT(close_xrcd(a, priv), -EBUSY);
	EXPECT(destroy_qp(a, ptgt, NULL), 0);
	EXPECT(close_xrcd(a, priv), 0);

	/* The QP lives while any file holds a handle of it. */
	EXPECT(destroy_qp(a, tgt, NULL), 0);
	EXPECT(destroy_qp(a, tgt, NULL), -ENOENT);
	VERIFY(qp_state(b, opened) == IB_UVERBS_QPS_ERR,
	      "QP gone with its creator's handle");
	EXPECT(open_qp(a, xa, tgtn, IB_UVERBS_QPT_XRC_TGT, &again, NULL), 0);
	EXPECT(destroy_qp(a, again, NULL), 0);
	EXPECT(destroy_qp(b, opened, NULL), 0);
	/* The last handle destroyed the QP: nothing left to open. */
	EXPECT(open_qp(a, xa, tgtn, IB_UVERBS_QPT_XRC_TGT, &again, NULL),
	       -EINVAL);
}

void test_xrc(void)
{
	char path[] = "/tmp/uverbs-abi-xrcd-XXXXXX";
	uint32_t pd, cq, pd_b, cq_b, xa, xb, foreign = 0, srq, extra[4];
	struct ctx a, b;
	int file, i;

	file = mkstemp(path);
	VERIFY(file >= 0, "mkstemp: %m");
	if (file < 0)
		return;
	unlink(path);
	if (open_ctx(&a) || alloc_pd(&a, &pd) ||
	    create_cq(&a, 16, 0, -1, &cq) || open_ctx(&b) ||
	    alloc_pd(&b, &pd_b) || create_cq(&b, 16, 0, -1, &cq_b)) {
		VERIFY(0, "setup");
		close(file);
		return;
	}
	test_xrcd_open(&a, file, pd, &xa);

	/*
	 * b: a few PDs first, so that b's domain handle names nothing in a
	 * (handles are per file): a foreign handle.
	 */
	for (i = 0; i < 4; i++)
		EXPECT(alloc_pd(&b, &extra[i]), 0);
	EXPECT(open_xrcd(&b, file, 0, &xb), 0);	/* shared by the inode */
	foreign = xb;

	test_xsrq(&a, pd, cq, xa, foreign, &srq);
	test_tgt_qps(&a, &b, pd, cq, xa, xb);

	EXPECT(destroy_srq(&a, srq), 0);
	EXPECT(close_xrcd(&a, xa), 0);
	EXPECT(close_xrcd(&a, xa), -ENOENT);
	EXPECT(close_xrcd(&b, xb), 0);
	/* Its last handle closed, the domain left the inode. */
	EXPECT(open_xrcd(&a, file, 0, &xa), -EAGAIN);

	/* Closing a file with a domain, an XRC SRQ and a TGT QP left. */
	{
		uint32_t tgt, tgtn, opened;

		EXPECT(open_xrcd(&b, file, O_CREAT, &xb), 0);
		EXPECT(create_xsrq(&b, IB_UVERBS_SRQT_XRC, pd_b, xb, cq_b,
				   &srq, NULL), 0);
		EXPECT(create_tgt_ex(&b, xb, &tgt, &tgtn), 0);
		/* a's handle of the domain is closed: a cannot reach it. */
		EXPECT(open_qp(&a, xa, tgtn, IB_UVERBS_QPT_XRC_TGT, &opened,
			       NULL), -EINVAL);
	}
	close_ctx(&b);
	close_ctx(&a);
	close(file);
}
