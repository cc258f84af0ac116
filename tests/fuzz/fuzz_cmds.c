// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_cmds.c - random uverbs write() commands that know the ABI's shape:
 * every command of the legacy and extended sets, described by a table of
 * where its handles are, which object it creates or destroys, and a fixup
 * that sometimes makes it plausible (so that sequences reach deep states:
 * QPs in RTS, MRs over real memory).  Every other field is a fuzzed value;
 * the framing (word counts, response pointer) is sometimes wrong too.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "fuzz.h"

#define NO_KIND	FZ_NONE

/* A handle field of a request: where, and of which kind. */
struct fz_field {
	uint16_t off;
	uint8_t kind;
};

struct fz_cmd {
	const char *name;
	uint32_t command;	/* with IB_USER_VERBS_CMD_FLAG_EXTENDED if ex */
	uint16_t req_len;	/* the core struct, response pointer first */
	uint16_t resp_len;	/* 0: the command has no response */
	struct fz_field handles[4];
	uint8_t creates;	/* kind whose handle is the response's first u32 */
	uint8_t destroys;	/* kind destroyed: handles[0] names it */
	void (*fixup)(struct fz_worker *w, uint64_t *s, void *req);
};

#define H(type, field, k)	{ offsetof(struct type, field), k }

/* ---------------- fixups: plausible values, half of the time ---------------- */

static void fix_reg_mr(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_reg_mr *r = req;
	size_t off = fz_rand(s) % w->buf_len;

	r->start = (uintptr_t)w->buf + (off & ~63ul);
	r->length = 1 + fz_rand(s) % (w->buf_len - (off & ~63ul));
	r->hca_va = fz_rand(s) & 1 ? r->start : fz_rand(s);
	r->access_flags = fz_rand(s) & 0x1f;
	/* On-demand paging now and then; some of it implicit. */
	if (fz_rand(s) % 4 == 0)
		r->access_flags |= IB_UVERBS_ACCESS_ON_DEMAND;
	if (fz_rand(s) % 16 == 0) {
		r->start = r->hca_va = 0;
		r->length = UINT64_MAX;
	}
}

static void fix_rereg_mr(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_rereg_mr *r = req;

	r->flags = fz_rand(s) & 7;
	r->start = (uintptr_t)w->buf;
	r->length = 1 + fz_rand(s) % w->buf_len;
	r->hca_va = r->start;
	r->access_flags = fz_rand(s) & 0x1f;
	if (fz_rand(s) % 4 == 0)
		r->access_flags |= IB_UVERBS_ACCESS_ON_DEMAND;
}

static void fix_create_cq(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_create_cq *r = req;

	(void)w;
	r->cqe = 1 + fz_rand(s) % 256;
	r->comp_vector = 0;
	r->comp_channel = -1;
}

static void fix_ex_create_cq(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_ex_create_cq *r = req;

	(void)w;
	memset(r, 0, sizeof(*r));
	r->cqe = 1 + fz_rand(s) % 256;
	r->comp_channel = -1;
}

static void fix_ex_create_qp(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_ex_create_qp *r = req;

	(void)w;
	r->qp_type = 2 + fz_rand(s) % 3;
	r->max_send_wr = 1 + fz_rand(s) % 64;
	r->max_recv_wr = 1 + fz_rand(s) % 64;
	r->max_send_sge = 1 + fz_rand(s) % 4;
	r->max_recv_sge = 1 + fz_rand(s) % 4;
	r->max_inline_data = fz_rand(s) % 128;
	r->is_srq = 0;
	r->recv_cq_handle = r->send_cq_handle;
	r->comp_mask = 0;
	r->create_flags = 0;
	r->rwq_ind_tbl_handle = 0;
	r->source_qpn = 0;
}

static void fix_create_qp(struct fz_worker *w, uint64_t *s, void *req)
{
	static const uint8_t types[] = { 2, 3, 4, 9, 10 }; /* RC UC UD XRC */
	struct ib_uverbs_create_qp *r = req;

	(void)w;
	r->qp_type = types[fz_rand(s) % sizeof(types)];
	r->max_send_wr = 1 + fz_rand(s) % 64;
	r->max_recv_wr = 1 + fz_rand(s) % 64;
	r->max_send_sge = 1 + fz_rand(s) % 4;
	r->max_recv_sge = 1 + fz_rand(s) % 4;
	r->max_inline_data = fz_rand(s) % 128;
	r->is_srq = fz_rand(s) & 1;
	r->recv_cq_handle = r->send_cq_handle;
}

static void fix_modify_qp(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_modify_qp *m = req;
	uint32_t h = m->qp_handle;

	/* A real transition with real attributes, towards RTS. */
	switch (fz_rand(s) % 3) {
	case 0:
		to_init(&w->a, 2 + fz_rand(s) % 3, m, h);
		break;
	case 1:
		to_rtr(&w->a, 2 + fz_rand(s) % 3, m, h, fz_rand(s) & 0xffffff);
		break;
	default:
		to_rts(2 + fz_rand(s) % 3, m, h);
		break;
	}
	/* And one field off, now and then. */
	if (fz_rand(s) & 1)
		((uint8_t *)m)[fz_rand(s) % sizeof(*m)] = fz_u32(s);
}

static void fix_create_srq(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_create_srq *r = req;

	(void)w;
	r->max_wr = 1 + fz_rand(s) % 128;
	r->max_sge = 1 + fz_rand(s) % 4;
	r->srq_limit = fz_rand(s) % 8;
}

static void fix_create_ah(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_create_ah *r = req;

	memcpy(r->attr.grh.dgid, w->a.gid, 16);
	r->attr.grh.sgid_index = w->a.gid_ok;
	r->attr.grh.hop_limit = 64;
	r->attr.is_global = 1;
	r->attr.port_num = 1;
	(void)s;
}

static void fix_mcast(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_attach_mcast *r = req;

	(void)w;
	memset(r->gid, 0, 16);
	r->gid[10] = r->gid[11] = 0xff;
	r->gid[12] = 224 + fz_rand(s) % 16;
	r->gid[15] = fz_rand(s);
}

static void fix_open_xrcd(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_open_xrcd *r = req;

	(void)w;
	r->fd = -1;
	r->oflags = fz_rand(s) & 1 ? O_CREAT : 0;
}

static void fix_query_port(struct fz_worker *w, uint64_t *s, void *req)
{
	struct ib_uverbs_query_port *r = req;

	(void)w;
	r->port_num = fz_rand(s) % 3;
}

#define LEG(n)	IB_USER_VERBS_CMD_##n
#define EXT(n)	(IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_##n)

static const struct fz_cmd fz_cmds[] = {
	{ "alloc_pd", LEG(ALLOC_PD), sizeof(struct ib_uverbs_alloc_pd),
	  sizeof(struct ib_uverbs_alloc_pd_resp), {}, FZ_PD, NO_KIND },
	{ "dealloc_pd", LEG(DEALLOC_PD), sizeof(struct ib_uverbs_dealloc_pd), 0,
	  { H(ib_uverbs_dealloc_pd, pd_handle, FZ_PD) }, NO_KIND, FZ_PD },
	{ "create_cq", LEG(CREATE_CQ), sizeof(struct ib_uverbs_create_cq),
	  sizeof(struct ib_uverbs_create_cq_resp), {}, FZ_CQ, NO_KIND,
	  fix_create_cq },
	{ "resize_cq", LEG(RESIZE_CQ), sizeof(struct ib_uverbs_resize_cq),
	  sizeof(struct ib_uverbs_resize_cq_resp),
	  { H(ib_uverbs_resize_cq, cq_handle, FZ_CQ) }, NO_KIND, NO_KIND },
	{ "req_notify_cq", LEG(REQ_NOTIFY_CQ),
	  sizeof(struct ib_uverbs_req_notify_cq), 0,
	  { H(ib_uverbs_req_notify_cq, cq_handle, FZ_CQ) }, NO_KIND, NO_KIND },
	{ "destroy_cq", LEG(DESTROY_CQ), sizeof(struct ib_uverbs_destroy_cq),
	  sizeof(struct ib_uverbs_destroy_cq_resp),
	  { H(ib_uverbs_destroy_cq, cq_handle, FZ_CQ) }, NO_KIND, FZ_CQ },
	{ "reg_mr", LEG(REG_MR), sizeof(struct ib_uverbs_reg_mr),
	  sizeof(struct ib_uverbs_reg_mr_resp),
	  { H(ib_uverbs_reg_mr, pd_handle, FZ_PD) }, FZ_MR, NO_KIND,
	  fix_reg_mr },
	{ "rereg_mr", LEG(REREG_MR), sizeof(struct ib_uverbs_rereg_mr),
	  sizeof(struct ib_uverbs_rereg_mr_resp),
	  { H(ib_uverbs_rereg_mr, mr_handle, FZ_MR),
	    H(ib_uverbs_rereg_mr, pd_handle, FZ_PD) }, NO_KIND, NO_KIND,
	  fix_rereg_mr },
	{ "dereg_mr", LEG(DEREG_MR), sizeof(struct ib_uverbs_dereg_mr), 0,
	  { H(ib_uverbs_dereg_mr, mr_handle, FZ_MR) }, NO_KIND, FZ_MR },
	{ "alloc_mw", LEG(ALLOC_MW), sizeof(struct ib_uverbs_alloc_mw),
	  sizeof(struct ib_uverbs_alloc_mw_resp),
	  { H(ib_uverbs_alloc_mw, pd_handle, FZ_PD) }, FZ_MW, NO_KIND },
	{ "dealloc_mw", LEG(DEALLOC_MW), sizeof(struct ib_uverbs_dealloc_mw), 0,
	  { H(ib_uverbs_dealloc_mw, mw_handle, FZ_MW) }, NO_KIND, FZ_MW },
	{ "create_qp", LEG(CREATE_QP), sizeof(struct ib_uverbs_create_qp),
	  sizeof(struct ib_uverbs_create_qp_resp),
	  { H(ib_uverbs_create_qp, pd_handle, FZ_PD),
	    H(ib_uverbs_create_qp, send_cq_handle, FZ_CQ),
	    H(ib_uverbs_create_qp, recv_cq_handle, FZ_CQ),
	    H(ib_uverbs_create_qp, srq_handle, FZ_SRQ) }, FZ_QP, NO_KIND,
	  fix_create_qp },
	{ "modify_qp", LEG(MODIFY_QP), sizeof(struct ib_uverbs_modify_qp), 0,
	  { H(ib_uverbs_modify_qp, qp_handle, FZ_QP) }, NO_KIND, NO_KIND,
	  fix_modify_qp },
	{ "query_qp", LEG(QUERY_QP), sizeof(struct ib_uverbs_query_qp),
	  sizeof(struct ib_uverbs_query_qp_resp),
	  { H(ib_uverbs_query_qp, qp_handle, FZ_QP) }, NO_KIND, NO_KIND },
	{ "destroy_qp", LEG(DESTROY_QP), sizeof(struct ib_uverbs_destroy_qp),
	  sizeof(struct ib_uverbs_destroy_qp_resp),
	  { H(ib_uverbs_destroy_qp, qp_handle, FZ_QP) }, NO_KIND, FZ_QP },
	{ "create_srq", LEG(CREATE_SRQ), sizeof(struct ib_uverbs_create_srq),
	  sizeof(struct ib_uverbs_create_srq_resp),
	  { H(ib_uverbs_create_srq, pd_handle, FZ_PD) }, FZ_SRQ, NO_KIND,
	  fix_create_srq },
	{ "modify_srq", LEG(MODIFY_SRQ), sizeof(struct ib_uverbs_modify_srq), 0,
	  { H(ib_uverbs_modify_srq, srq_handle, FZ_SRQ) }, NO_KIND, NO_KIND },
	{ "query_srq", LEG(QUERY_SRQ), sizeof(struct ib_uverbs_query_srq),
	  sizeof(struct ib_uverbs_query_srq_resp),
	  { H(ib_uverbs_query_srq, srq_handle, FZ_SRQ) }, NO_KIND, NO_KIND },
	{ "destroy_srq", LEG(DESTROY_SRQ), sizeof(struct ib_uverbs_destroy_srq),
	  sizeof(struct ib_uverbs_destroy_srq_resp),
	  { H(ib_uverbs_destroy_srq, srq_handle, FZ_SRQ) }, NO_KIND, FZ_SRQ },
	{ "create_ah", LEG(CREATE_AH), sizeof(struct ib_uverbs_create_ah),
	  sizeof(struct ib_uverbs_create_ah_resp),
	  { H(ib_uverbs_create_ah, pd_handle, FZ_PD) }, FZ_AH, NO_KIND,
	  fix_create_ah },
	{ "destroy_ah", LEG(DESTROY_AH), sizeof(struct ib_uverbs_destroy_ah), 0,
	  { H(ib_uverbs_destroy_ah, ah_handle, FZ_AH) }, NO_KIND, FZ_AH },
	{ "attach_mcast", LEG(ATTACH_MCAST),
	  sizeof(struct ib_uverbs_attach_mcast), 0,
	  { H(ib_uverbs_attach_mcast, qp_handle, FZ_QP) }, NO_KIND, NO_KIND,
	  fix_mcast },
	{ "detach_mcast", LEG(DETACH_MCAST),
	  sizeof(struct ib_uverbs_detach_mcast), 0,
	  { H(ib_uverbs_detach_mcast, qp_handle, FZ_QP) }, NO_KIND, NO_KIND,
	  fix_mcast },
	{ "open_xrcd", LEG(OPEN_XRCD), sizeof(struct ib_uverbs_open_xrcd),
	  sizeof(struct ib_uverbs_open_xrcd_resp), {}, FZ_XRCD, NO_KIND,
	  fix_open_xrcd },
	{ "close_xrcd", LEG(CLOSE_XRCD), sizeof(struct ib_uverbs_close_xrcd), 0,
	  { H(ib_uverbs_close_xrcd, xrcd_handle, FZ_XRCD) }, NO_KIND, FZ_XRCD },
	{ "query_device", LEG(QUERY_DEVICE), sizeof(struct ib_uverbs_query_device),
	  sizeof(struct ib_uverbs_query_device_resp), {}, NO_KIND, NO_KIND },
	{ "query_port", LEG(QUERY_PORT), sizeof(struct ib_uverbs_query_port),
	  sizeof(struct ib_uverbs_query_port_resp), {}, NO_KIND, NO_KIND,
	  fix_query_port },
	{ "get_context", LEG(GET_CONTEXT), sizeof(struct ib_uverbs_get_context),
	  sizeof(struct ib_uverbs_get_context_resp), {}, NO_KIND, NO_KIND },
	{ "ex_query_device", EXT(QUERY_DEVICE),
	  sizeof(struct ib_uverbs_ex_query_device),
	  sizeof(struct ib_uverbs_ex_query_device_resp), {}, NO_KIND, NO_KIND },
	{ "ex_create_cq", EXT(CREATE_CQ), sizeof(struct ib_uverbs_ex_create_cq),
	  sizeof(struct ib_uverbs_ex_create_cq_resp), {}, FZ_CQ, NO_KIND,
	  fix_ex_create_cq },
	{ "ex_modify_qp", EXT(MODIFY_QP), sizeof(struct ib_uverbs_ex_modify_qp),
	  sizeof(struct ib_uverbs_ex_modify_qp_resp),
	  { H(ib_uverbs_ex_modify_qp, base.qp_handle, FZ_QP) }, NO_KIND,
	  NO_KIND },
	{ "ex_create_qp", EXT(CREATE_QP), sizeof(struct ib_uverbs_ex_create_qp),
	  sizeof(struct ib_uverbs_ex_create_qp_resp),
	  { H(ib_uverbs_ex_create_qp, pd_handle, FZ_PD),
	    H(ib_uverbs_ex_create_qp, send_cq_handle, FZ_CQ),
	    H(ib_uverbs_ex_create_qp, recv_cq_handle, FZ_CQ),
	    H(ib_uverbs_ex_create_qp, srq_handle, FZ_SRQ) }, FZ_QP, NO_KIND,
	  fix_ex_create_qp },
};

#define FZ_NCMDS (sizeof(fz_cmds) / sizeof(fz_cmds[0]))

/* A user pointer for a response: mostly real, sometimes not. */
static uint64_t fz_resp_ptr(uint64_t *s, void *good)
{
	switch (fz_rand(s) % 16) {
	case 0:
		return 0;
	case 1:
		return 1;			/* unaligned, unmapped */
	case 2:
		return 0xffff888000000000ull;	/* kernel address */
	case 3:
		return (uintptr_t)good + 4093;	/* runs off the page? */
	default:
		return (uintptr_t)good;
	}
}

/* After a reg_mr that worked: remember it for advise_mr if it is ODP. */
static void fz_note_odp_mr(struct fz_worker *w,
			   const struct ib_uverbs_reg_mr *r,
			   const struct ib_uverbs_reg_mr_resp *resp)
{
	if (!(r->access_flags & IB_UVERBS_ACCESS_ON_DEMAND))
		return;
	w->odp_start = r->hca_va;
	w->odp_len = r->length;
	w->odp_lkey = resp->lkey;
}

/*
 * Sends one command of table entry @c: request words fuzzed, handles from
 * the pools, the fixup half of the time, the framing right most of the
 * time.  Bookkeeps what it created or destroyed.
 */
static int fz_send(struct fz_worker *w, uint64_t *s, const struct fz_cmd *c)
{
	static __thread uint64_t resp[1024];
	uint64_t frame[1024] = {};
	bool ex = c->command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	size_t hdr_len = sizeof(struct ib_uverbs_cmd_hdr) +
			 (ex ? sizeof(struct ib_uverbs_ex_cmd_hdr) : 0);
	size_t udata = (fz_rand(s) % 4) * 8, len, i;
	struct ib_uverbs_cmd_hdr *hdr = (void *)frame;
	uint8_t *req = (uint8_t *)frame + hdr_len;
	uint32_t handle = 0;
	uint64_t rp = 0;
	int ret;

	/* A quarter of the requests start from zero (masks, reserved). */
	if (fz_rand(s) % 4)
		for (i = 0; i < c->req_len + udata; i += 4)
			*(uint32_t *)(req + i) = fz_u32(s);
	for (i = 0; i < 4 && c->handles[i].kind != FZ_NONE; i++)
		*(uint32_t *)(req + c->handles[i].off) =
			fz_handle(w, s, c->handles[i].kind);
	if (c->fixup && fz_rand(s) & 1)
		c->fixup(w, s, req);
	if (c->destroys != NO_KIND)
		handle = *(uint32_t *)(req + c->handles[0].off);

	hdr->command = c->command;
	if (ex) {
		struct ib_uverbs_ex_cmd_hdr *x = (void *)(hdr + 1);

		rp = c->resp_len ? fz_resp_ptr(s, resp) : 0;
		x->response = rp;
		x->provider_in_words = udata / 8;
		x->provider_out_words = 0;
		x->cmd_hdr_reserved = fz_rand(s) % 32 ? 0 : fz_u32(s);
		hdr->in_words = c->req_len / 8;
		hdr->out_words = c->resp_len / 8;
	} else {
		if (c->resp_len)
			rp = *(uint64_t *)req = fz_resp_ptr(s, resp);
		hdr->in_words = (sizeof(*hdr) + c->req_len + udata) / 4;
		hdr->out_words = (c->resp_len + 64) / 4;
	}
	len = hdr_len + c->req_len + udata;
	/* The framing itself, now and then. */
	switch (fz_rand(s) % 32) {
	case 0:
		hdr->in_words += 1 + fz_rand(s) % 8;
		break;
	case 1:
		hdr->in_words = fz_rand(s) % 4;
		break;
	case 2:
		hdr->out_words = fz_rand(s) % 4;
		break;
	case 3:
		len = fz_rand(s) % len;
		break;
	}
	ret = raw_write(w->a.fd, frame, len);
	if (ret)
		return ret;
	/* The new handle is where the response went, if it went to us. */
	if (c->creates != NO_KIND && rp >= (uintptr_t)resp &&
	    rp + 4 <= (uintptr_t)resp + sizeof(resp))
		fz_pool_add(&w->pools, c->creates, *(uint32_t *)(uintptr_t)rp,
			    s);
	if (c->command == LEG(REG_MR) && rp >= (uintptr_t)resp &&
	    rp + sizeof(struct ib_uverbs_reg_mr_resp) <=
	    (uintptr_t)resp + sizeof(resp))
		fz_note_odp_mr(w, (void *)req, (void *)(uintptr_t)rp);
	if (c->destroys != NO_KIND)
		fz_pool_gone(&w->pools, c->destroys, handle);
	return 0;
}

/* Bytes that only look like a command. */
static int fz_garbage(struct fz_worker *w, uint64_t *s)
{
	uint32_t frame[64];
	size_t len = fz_rand(s) % sizeof(frame), i;

	for (i = 0; i < 64; i++)
		frame[i] = fz_u32(s);
	frame[0] = fz_rand(s) % 64 |
		   (fz_rand(s) & 1 ? IB_USER_VERBS_CMD_FLAG_EXTENDED : 0);
	return raw_write(w->a.fd, frame, len);
}

/*
 * A mapping of the context file at an offset: our own region keys, the
 * other context's (must be refused here), or any page offset; written to
 * when writable, as a process may scribble on its own rings.
 */
static int fz_mmap(struct fz_worker *w, uint64_t *s)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = page * (1 + fz_rand(s) % 4);
	off_t off;
	void *p;

	switch (fz_rand(s) % 4) {
	case 0:
		off = w->b_mmap_key;
		break;
	case 1:
		off = w->a.drv.engine_page_key;
		break;
	default:
		off = (off_t)(fz_rand(s) % 4096) * page;
		break;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, w->a.fd, off);
	if (p == MAP_FAILED) {
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, w->a.fd, off);
		if (p == MAP_FAILED)
			return -errno;
		/* Read what the kernel let us see. */
		(void)*(volatile uint8_t *)p;
	} else if (fz_rand(s) % 4 == 0) {
		size_t i;

		for (i = 0; i < 16; i++)
			((uint32_t *)p)[fz_rand(s) % (len / 4)] = fz_u32(s);
		ioctl(w->a.fd, MLX_HW_IOCTL_WAKE);
	}
	munmap(p, len);
	return 0;
}

/*
 * A well-formed prefetch of the last ODP MR registered (fz_note_odp_mr),
 * a range of it inside the worker's buffer, which is mapped: it may map
 * pages while the fuzzing deregisters and re-registers around it.
 */
static int fz_advise_valid(struct fz_worker *w, uint64_t *s)
{
	uint64_t start = w->odp_start, len = w->odp_len;
	uint64_t lo = (uintptr_t)w->buf, hi = lo + w->buf_len;
	struct mlx_hw_advise_sge sge = { .lkey = w->odp_lkey };
	struct mlx_hw_advise_mr a = {
		.advice = fz_rand(s) % 3,
		.flags = fz_rand(s) & MLX_HW_ADVISE_FLAG_FLUSH,
		.num_sge = 1,
		.sg_list = (uintptr_t)&sge,
	};

	/* The MR's iova is its address when hca_va was (fix_reg_mr). */
	if (start < lo)
		start = lo;
	if (start >= hi || !len)
		return -EINVAL;
	if (len > hi - start)
		len = hi - start;
	sge.addr = start + fz_rand(s) % len;
	sge.length = 1 + fz_rand(s) % (start + len - sge.addr);
	return ioctl(w->a.fd, MLX_HW_IOCTL_ADVISE_MR, &a) ? -errno : 0;
}

/*
 * ibv_advise_mr's ioctl: half of the time a valid prefetch of an ODP MR
 * the fuzzing registered; else any arguments: keys of the first MRs the
 * fuzzer may have registered (index 1-63, any key byte) or anything, any
 * advice, flags, counts, ranges and list pointers.
 */
static int fz_advise(struct fz_worker *w, uint64_t *s)
{
	struct mlx_hw_advise_sge sge[4];
	struct mlx_hw_advise_mr a = {
		.advice = fz_rand(s) % 4,
		.flags = fz_rand(s) % 3,
		.num_sge = fz_rand(s) % 6,
		.reserved = fz_rand(s) % 16 == 0,
		.sg_list = fz_rand(s) % 8 ? (uintptr_t)sge : fz_rand(s),
	};
	unsigned int i;

	if (w->odp_lkey && fz_rand(s) & 1)
		return fz_advise_valid(w, s);
	for (i = 0; i < 4; i++) {
		sge[i].addr = (uintptr_t)w->buf + fz_rand(s) % w->buf_len;
		sge[i].length = fz_rand(s) % (2 * w->buf_len);
		sge[i].lkey = fz_rand(s) % 4 ? (1 + fz_rand(s) % 63) << 8 |
					       (fz_rand(s) & 0xff) :
					       fz_u32(s);
	}
	return ioctl(w->a.fd, MLX_HW_IOCTL_ADVISE_MR, &a) ? -errno : 0;
}

/* The kinds after the commands: garbage, mmap, advise, then rdma_cm's. */
#define FZ_NEXTRA 3

unsigned int fz_nkinds(void)
{
	return FZ_NCMDS + FZ_NEXTRA + fz_ucma_nkinds();
}

const char *fz_kind_name(unsigned int which)
{
	if (which < FZ_NCMDS)
		return fz_cmds[which].name;
	if (which >= FZ_NCMDS + FZ_NEXTRA)
		return fz_ucma_kind_name(which - FZ_NCMDS - FZ_NEXTRA);
	return which == FZ_NCMDS ? "garbage" :
	       which == FZ_NCMDS + 1 ? "mmap" : "advise_mr";
}

int fz_one_command(struct fz_worker *w, uint64_t *s, unsigned int *which)
{
	unsigned int r = fz_rand(s) % 100;

	/* A quarter of the commands go to rdma_cm, when it is fuzzed too. */
	if (w->cm && r < 25) {
		int ret = fz_ucma_one(w, s, which);

		*which += FZ_NCMDS + FZ_NEXTRA;
		return ret;
	}
	r = fz_rand(s) % 100;

	if (r < 3) {
		*which = FZ_NCMDS;
		return fz_garbage(w, s);
	}
	if (r < 6) {
		*which = FZ_NCMDS + 1;
		return fz_mmap(w, s);
	}
	if (r < 8) {
		*which = FZ_NCMDS + 2;
		return fz_advise(w, s);
	}
	*which = fz_rand(s) % FZ_NCMDS;
	return fz_send(w, s, &fz_cmds[*which]);
}

int fz_setup_foreign(struct fz_worker *w)
{
	struct mlx_hw_create_cq_resp *drv;
	struct {
		struct ib_uverbs_create_cq_resp core;
		char udata[UDATA_OUT];
	} cq_resp;
	struct ib_uverbs_create_cq cq = {
		.response = (uintptr_t)&cq_resp, .cqe = 16, .comp_channel = -1,
	};
	uint32_t pd, qp, qpn;
	int ret;

	ret = alloc_pd(&w->b, &pd);
	if (!ret)
		ret = cmd(w->b.fd, IB_USER_VERBS_CMD_CREATE_CQ, &cq, sizeof(cq),
			  &cq_resp, sizeof(cq_resp));
	if (!ret)
		ret = create_qp(&w->b, 2, pd, cq_resp.core.cq_handle, -1, &qp,
				&qpn);
	if (!ret)
		ret = reg_mr(&w->b, pd, w->buf, 4096, 1, &w->b_handles[FZ_MR]);
	if (ret)
		return ret;
	drv = (void *)cq_resp.udata;
	w->b_mmap_key = drv->mmap_key;
	w->b_handles[FZ_PD] = pd;
	w->b_handles[FZ_CQ] = cq_resp.core.cq_handle;
	w->b_handles[FZ_QP] = qp;
	return 0;
}
