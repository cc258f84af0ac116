// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_abi_test: every handle of every command (section handles).
 *
 * For each command that names objects, a request that succeeds is built
 * first (the control), then each of its handles is replaced in turn by a
 * handle of every other object type and by one that names nothing.  The
 * errnos are those of ib_uverbs: a handle of the wrong type is -EINVAL;
 * one that names nothing is -ENOENT where the command destroys (or
 * rereg's) the object it names (rdma_lookup_get_uobject), -EINVAL where
 * it only uses it.  Finally every object is destroyed once, successfully:
 * no failed command destroyed or leaked anything.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include "uverbs_abi.h"

enum obj_type { PD, CQ, QP, SRQ, MR, MW, AH, XRCD, NTYPES };

static const char *const type_names[NTYPES] = {
	"PD", "CQ", "QP", "SRQ", "MR", "MW", "AH", "XRCD",
};

/* A handle that names nothing in this test's file. */
#define NO_HANDLE	0x7fff

struct objs {
	struct ctx c;
	uint32_t h[NTYPES];	/* one object of each type */
	uint32_t tgt_qpn;	/* an XRC TGT QP in the domain h[XRCD] */
	uint32_t tgt;
	void *buf;		/* MR memory */
};

/* A request for the command under test, and how to send it. */
struct probe {
	const char *name;
	uint32_t command;	/* with FLAG_EXTENDED for extended ones */
	void *req;
	size_t len;
	size_t resp_len;	/* 0: no response */
	/* Created by the control, destroyed again (NTYPES: none). */
	enum obj_type creates;
};

static int destroy_obj(struct objs *o, enum obj_type type, uint32_t h);

static int send_probe(struct objs *o, const struct probe *p)
{
	uint8_t resp[512] = {};
	int ret;

	if (p->command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		ret = ex_cmd(o->c.fd, p->command &
			     ~IB_USER_VERBS_CMD_FLAG_EXTENDED, p->req, p->len,
			     resp, p->resp_len);
	else
		ret = cmd(o->c.fd, p->command, p->req, p->len,
			  p->resp_len ? resp : NULL, p->resp_len);
	/* Every create response starts with the handle; the ex ones too. */
	if (!ret && p->creates != NTYPES)
		EXPECT(destroy_obj(o, p->creates, *(uint32_t *)resp), 0);
	return ret;
}

/*
 * The handle at @off of @p's request, of type @type, replaced by one of
 * each other type and by one that names nothing (answered @unknown).
 */
static void bad_handle(struct objs *o, const struct probe *p, size_t off,
		       enum obj_type type, int unknown)
{
	uint32_t saved, h;
	int t, ret;

	memcpy(&saved, (char *)p->req + off, 4);
	for (t = 0; t < NTYPES; t++) {
		if (t == (int)type)
			continue;
		memcpy((char *)p->req + off, &o->h[t], 4);
		ret = send_probe(o, p);
		VERIFY(ret == -EINVAL, "%s: %s handle as %s: %d, want %d",
		      p->name, type_names[t], type_names[type], ret, -EINVAL);
	}
	h = NO_HANDLE;
	memcpy((char *)p->req + off, &h, 4);
	ret = send_probe(o, p);
	VERIFY(ret == unknown, "%s: unknown %s handle: %d, want %d", p->name,
	      type_names[type], ret, unknown);
	memcpy((char *)p->req + off, &saved, 4);
}

/* The control must succeed, or the bad-handle results would mean little. */
static int control(struct objs *o, const struct probe *p)
{
	int ret = send_probe(o, p);

	VERIFY(ret == 0, "%s: control request: %d", p->name, ret);
	return ret;
}

#define PROBE(_name, _cmd, _req, _resp_len, _creates)			\
	((struct probe){ .name = _name, .command = _cmd, .req = &(_req), \
			 .len = sizeof(_req), .resp_len = _resp_len,	\
			 .creates = _creates })
#define FIELD(req, f)	offsetof(__typeof__(req), f)

static void probe_creates(struct objs *o)
{
	struct ctx *c = &o->c;
	struct probe p;

	{
		struct ib_uverbs_create_ah r = {
			.pd_handle = o->h[PD],
			.attr = { .is_global = 1, .port_num = 1,
				  .grh = { .hop_limit = 64,
					   .sgid_index = c->gid_ok } },
		};

		memcpy(r.attr.grh.dgid, c->gid, 16);
		p = PROBE("CREATE_AH", IB_USER_VERBS_CMD_CREATE_AH, r,
			  sizeof(struct ib_uverbs_create_ah_resp), AH);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, pd_handle), PD, -EINVAL);
	}
	{
		struct ib_uverbs_reg_mr r = {
			.start = (uintptr_t)o->buf, .length = 4096,
			.hca_va = (uintptr_t)o->buf, .pd_handle = o->h[PD],
			.access_flags = 1,
		};

		p = PROBE("REG_MR", IB_USER_VERBS_CMD_REG_MR, r,
			  sizeof(struct ib_uverbs_reg_mr_resp), MR);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, pd_handle), PD, -EINVAL);
	}
	{
		struct ib_uverbs_alloc_mw r = { .pd_handle = o->h[PD],
						.mw_type = 1 };

		p = PROBE("ALLOC_MW", IB_USER_VERBS_CMD_ALLOC_MW, r,
			  sizeof(struct ib_uverbs_alloc_mw_resp), MW);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, pd_handle), PD, -EINVAL);
	}
	{
		/* With an SRQ, so that all four handles are looked up. */
		struct ib_uverbs_create_qp r = {
			.pd_handle = o->h[PD], .send_cq_handle = o->h[CQ],
			.recv_cq_handle = o->h[CQ], .srq_handle = o->h[SRQ],
			.max_send_wr = 4, .max_send_sge = 1,
			.qp_type = IB_UVERBS_QPT_RC, .is_srq = 1,
		};

		p = PROBE("CREATE_QP", IB_USER_VERBS_CMD_CREATE_QP, r,
			  sizeof(struct ib_uverbs_create_qp_resp), QP);
		if (!control(o, &p)) {
			bad_handle(o, &p, FIELD(r, pd_handle), PD, -EINVAL);
			bad_handle(o, &p, FIELD(r, send_cq_handle), CQ,
				   -EINVAL);
			bad_handle(o, &p, FIELD(r, recv_cq_handle), CQ,
				   -EINVAL);
			bad_handle(o, &p, FIELD(r, srq_handle), SRQ, -EINVAL);
		}
	}
	{
		struct ib_uverbs_ex_create_qp r = {
			.pd_handle = o->h[PD], .send_cq_handle = o->h[CQ],
			.recv_cq_handle = o->h[CQ], .srq_handle = o->h[SRQ],
			.max_send_wr = 4, .max_send_sge = 1,
			.qp_type = IB_UVERBS_QPT_RC, .is_srq = 1,
		};

		p = PROBE("EX_CREATE_QP", IB_USER_VERBS_CMD_FLAG_EXTENDED |
			  IB_USER_VERBS_EX_CMD_CREATE_QP, r,
			  sizeof(struct ib_uverbs_ex_create_qp_resp), QP);
		if (!control(o, &p)) {
			bad_handle(o, &p, FIELD(r, pd_handle), PD, -EINVAL);
			bad_handle(o, &p, FIELD(r, send_cq_handle), CQ,
				   -EINVAL);
			bad_handle(o, &p, FIELD(r, recv_cq_handle), CQ,
				   -EINVAL);
			bad_handle(o, &p, FIELD(r, srq_handle), SRQ, -EINVAL);
		}
	}
	{
		struct ib_uverbs_create_srq r = { .pd_handle = o->h[PD],
						  .max_wr = 4, .max_sge = 1 };

		p = PROBE("CREATE_SRQ", IB_USER_VERBS_CMD_CREATE_SRQ, r,
			  sizeof(struct ib_uverbs_create_srq_resp), SRQ);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, pd_handle), PD, -EINVAL);
	}
	{
		struct ib_uverbs_create_xsrq r = {
			.srq_type = IB_UVERBS_SRQT_XRC, .pd_handle = o->h[PD],
			.max_wr = 4, .max_sge = 1, .xrcd_handle = o->h[XRCD],
			.cq_handle = o->h[CQ],
		};

		p = PROBE("CREATE_XSRQ", IB_USER_VERBS_CMD_CREATE_XSRQ, r,
			  sizeof(struct ib_uverbs_create_srq_resp), SRQ);
		if (!control(o, &p)) {
			bad_handle(o, &p, FIELD(r, pd_handle), PD, -EINVAL);
			bad_handle(o, &p, FIELD(r, xrcd_handle), XRCD,
				   -EINVAL);
			bad_handle(o, &p, FIELD(r, cq_handle), CQ, -EINVAL);
		}
	}
	{
		struct ib_uverbs_open_qp r = {
			.pd_handle = o->h[XRCD], .qpn = o->tgt_qpn,
			.qp_type = IB_UVERBS_QPT_XRC_TGT,
		};

		p = PROBE("OPEN_QP", IB_USER_VERBS_CMD_OPEN_QP, r,
			  sizeof(struct ib_uverbs_create_qp_resp), QP);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, pd_handle), XRCD, -EINVAL);
	}
}

/* Commands that use an existing object without destroying it. */
static void probe_uses(struct objs *o)
{
	struct probe p;

	{
		struct ib_uverbs_rereg_mr r = {
			.mr_handle = o->h[MR], .flags = 2 /* IB_MR_REREG_PD */,
			.pd_handle = o->h[PD],
		};

		p = PROBE("REREG_MR", IB_USER_VERBS_CMD_REREG_MR, r,
			  sizeof(struct ib_uverbs_rereg_mr_resp), NTYPES);
		if (!control(o, &p)) {
			bad_handle(o, &p, FIELD(r, mr_handle), MR, -ENOENT);
			bad_handle(o, &p, FIELD(r, pd_handle), PD, -EINVAL);
		}
	}
	{
		struct ib_uverbs_resize_cq r = { .cq_handle = o->h[CQ],
						 .cqe = 32 };

		/* The driver answers the new ring's mmap key in udata. */
		p = PROBE("RESIZE_CQ", IB_USER_VERBS_CMD_RESIZE_CQ, r,
			  sizeof(struct ib_uverbs_resize_cq_resp) +
			  sizeof(struct mlx_hw_resize_cq_resp), NTYPES);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, cq_handle), CQ, -EINVAL);
	}
	{
		struct ib_uverbs_req_notify_cq r = { .cq_handle = o->h[CQ] };

		p = PROBE("REQ_NOTIFY_CQ", IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, r,
			  0, NTYPES);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, cq_handle), CQ, -EINVAL);
	}
	{
		struct ib_uverbs_query_qp r = { .qp_handle = o->h[QP] };

		p = PROBE("QUERY_QP", IB_USER_VERBS_CMD_QUERY_QP, r,
			  sizeof(struct ib_uverbs_query_qp_resp), NTYPES);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, qp_handle), QP, -EINVAL);
	}
	{
		/* RESET -> RESET is always allowed. */
		struct ib_uverbs_modify_qp r = {
			.qp_handle = o->h[QP], .qp_state = IB_UVERBS_QPS_RESET,
			.attr_mask = IB_UVERBS_QP_STATE,
		};

		p = PROBE("MODIFY_QP", IB_USER_VERBS_CMD_MODIFY_QP, r, 0,
			  NTYPES);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, qp_handle), QP, -EINVAL);
	}
	{
		struct ib_uverbs_ex_modify_qp r = {
			.base = { .qp_handle = o->h[QP],
				  .qp_state = IB_UVERBS_QPS_RESET,
				  .attr_mask = IB_UVERBS_QP_STATE },
		};

		p = PROBE("EX_MODIFY_QP", IB_USER_VERBS_CMD_FLAG_EXTENDED |
			  IB_USER_VERBS_EX_CMD_MODIFY_QP, r,
			  sizeof(struct ib_uverbs_ex_modify_qp_resp), NTYPES);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, base.qp_handle), QP,
				   -EINVAL);
	}
	{
		struct ib_uverbs_modify_srq r = { .srq_handle = o->h[SRQ],
						  .attr_mask = 1 << 1,
						  .srq_limit = 1 };

		p = PROBE("MODIFY_SRQ", IB_USER_VERBS_CMD_MODIFY_SRQ, r, 0,
			  NTYPES);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, srq_handle), SRQ, -EINVAL);
	}
	{
		struct ib_uverbs_query_srq r = { .srq_handle = o->h[SRQ] };

		p = PROBE("QUERY_SRQ", IB_USER_VERBS_CMD_QUERY_SRQ, r,
			  sizeof(struct ib_uverbs_query_srq_resp), NTYPES);
		if (!control(o, &p))
			bad_handle(o, &p, FIELD(r, srq_handle), SRQ, -EINVAL);
	}
}

/* The command that destroys each type of object. */
static const struct {
	const char *name;
	uint32_t command;
	size_t resp_len;	/* 0: no response, the request is the handle */
} destroys[NTYPES] = {
	[PD] = { "DEALLOC_PD", IB_USER_VERBS_CMD_DEALLOC_PD, 0 },
	[CQ] = { "DESTROY_CQ", IB_USER_VERBS_CMD_DESTROY_CQ,
		 sizeof(struct ib_uverbs_destroy_cq_resp) },
	[QP] = { "DESTROY_QP", IB_USER_VERBS_CMD_DESTROY_QP,
		 sizeof(struct ib_uverbs_destroy_qp_resp) },
	[SRQ] = { "DESTROY_SRQ", IB_USER_VERBS_CMD_DESTROY_SRQ,
		  sizeof(struct ib_uverbs_destroy_srq_resp) },
	[MR] = { "DEREG_MR", IB_USER_VERBS_CMD_DEREG_MR, 0 },
	[MW] = { "DEALLOC_MW", IB_USER_VERBS_CMD_DEALLOC_MW, 0 },
	[AH] = { "DESTROY_AH", IB_USER_VERBS_CMD_DESTROY_AH, 0 },
	[XRCD] = { "CLOSE_XRCD", IB_USER_VERBS_CMD_CLOSE_XRCD, 0 },
};

/* A destroy request: the handle, alone or after the response pointer. */
union destroy_req {
	struct {
		uint32_t handle;
	} small;
	struct {
		uint64_t response;
		uint32_t handle, reserved;
	} big;
};

/* The probe destroying @h of @type; @off receives where the handle is. */
static struct probe destroy_probe(enum obj_type type, uint32_t h,
				  union destroy_req *r, size_t *off)
{
	struct probe p = { .name = destroys[type].name,
			   .command = destroys[type].command,
			   .req = r,
			   .resp_len = destroys[type].resp_len,
			   .creates = NTYPES };

	memset(r, 0, sizeof(*r));
	if (p.resp_len) {
		r->big.handle = h;
		p.len = sizeof(r->big);
		*off = offsetof(union destroy_req, big.handle);
	} else {
		r->small.handle = h;
		p.len = sizeof(r->small);
		*off = offsetof(union destroy_req, small.handle);
	}
	return p;
}

static int destroy_obj(struct objs *o, enum obj_type type, uint32_t h)
{
	union destroy_req r;
	size_t off;
	struct probe p = destroy_probe(type, h, &r, &off);

	return send_probe(o, &p);
}

/*
 * The destroying commands, without a control (the objects are needed):
 * the final teardown shows that none of these destroyed anything.
 */
static void probe_destroys(struct objs *o)
{
	union destroy_req r;
	struct probe p;
	size_t off;
	int t;

	for (t = 0; t < NTYPES; t++) {
		p = destroy_probe(t, o->h[t], &r, &off);
		bad_handle(o, &p, off, t, -ENOENT);
	}
}

void test_handles(void)
{
	/* Dependents before what they depend on. */
	static const enum obj_type order[] = { AH, MW, MR, QP, SRQ, CQ, XRCD,
					       PD };
	struct objs o = {};
	uint32_t extra_pd;
	size_t i;

	o.buf = aligned_alloc(4096, 4096);
	if (!o.buf || open_ctx(&o.c) || alloc_pd(&o.c, &o.h[PD]) ||
	    create_cq(&o.c, 16, 0, -1, &o.h[CQ]) ||
	    create_qp(&o.c, IB_UVERBS_QPT_RC, o.h[PD], o.h[CQ], -1, &o.h[QP],
		      NULL) ||
	    reg_mr(&o.c, o.h[PD], o.buf, 4096, 1, &o.h[MR])) {
		VERIFY(0, "setup");
		free(o.buf);
		return;
	}
	{
		struct ib_uverbs_create_srq sr = { .pd_handle = o.h[PD],
						   .max_wr = 4, .max_sge = 1 };
		struct ib_uverbs_create_srq_resp srr[4] = {};
		struct ib_uverbs_alloc_mw mw = { .pd_handle = o.h[PD],
						 .mw_type = 1 };
		struct ib_uverbs_alloc_mw_resp mwr[4] = {};
		struct ib_uverbs_create_ah ah = {
			.pd_handle = o.h[PD],
			.attr = { .is_global = 1, .port_num = 1,
				  .grh = { .hop_limit = 64,
					   .sgid_index = o.c.gid_ok } },
		};
		struct ib_uverbs_create_ah_resp ahr[4] = {};
		struct ib_uverbs_open_xrcd x = { .fd = -1 };
		struct ib_uverbs_open_xrcd_resp xr[4] = {};

		memcpy(ah.attr.grh.dgid, o.c.gid, 16);
		EXPECT(cmd(o.c.fd, IB_USER_VERBS_CMD_CREATE_SRQ, &sr,
			   sizeof(sr), srr, sizeof(srr)), 0);
		EXPECT(cmd(o.c.fd, IB_USER_VERBS_CMD_ALLOC_MW, &mw,
			   sizeof(mw), mwr, sizeof(mwr)), 0);
		EXPECT(cmd(o.c.fd, IB_USER_VERBS_CMD_CREATE_AH, &ah,
			   sizeof(ah), ahr, sizeof(ahr)), 0);
		EXPECT(cmd(o.c.fd, IB_USER_VERBS_CMD_OPEN_XRCD, &x,
			   sizeof(x), xr, sizeof(xr)), 0);
		o.h[SRQ] = srr[0].srq_handle;
		o.h[MW] = mwr[0].mw_handle;
		o.h[AH] = ahr[0].ah_handle;
		o.h[XRCD] = xr[0].xrcd_handle;
	}
	/* A TGT QP for OPEN_QP; destroyed with the file. */
	EXPECT(create_qp(&o.c, IB_UVERBS_QPT_XRC_TGT, o.h[XRCD], 0, -1,
			 &o.tgt, &o.tgt_qpn), 0);
	for (i = 0; i < NTYPES; i++)
		VERIFY(o.h[i] != NO_HANDLE, "handle %u in use", NO_HANDLE);

	probe_creates(&o);
	probe_uses(&o);
	probe_destroys(&o);

	/* Nothing was destroyed or left behind by a failed command. */
	EXPECT(destroy_qp(&o.c, o.tgt, NULL), 0);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		EXPECT(destroy_obj(&o, order[i], o.h[order[i]]), 0);
	/* And the file is still good for new objects. */
	EXPECT(alloc_pd(&o.c, &extra_pd), 0);
	EXPECT(dealloc_pd(&o.c, extra_pd), 0);
	close_ctx(&o.c);
	free(o.buf);
}
