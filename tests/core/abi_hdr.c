// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_abi_test: the command header rules of ib_uverbs_write() (section
 * hdr): sizes, flags, unknown commands, the extended header, and a short
 * request and a short response for every command the device offers.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "uverbs_abi.h"

/* A header alone, in_words as given: only the header rules apply. */
static int hdr_only(int fd, uint32_t command, uint16_t in_words)
{
	struct ib_uverbs_cmd_hdr h = { command, in_words, 0 };
	char b[64] = {};

	memcpy(b, &h, sizeof(h));
	return raw_write(fd, b, 16);
}

/*
 * Commands nobody implements, as uapi_get_method()/ib_uverbs_write():
 * past the last command offered -EOPNOTSUPP before any header check;
 * below it, the "not supported" method is legacy-shaped even with the
 * extended flag, so a header the legacy rules reject is -EINVAL first.
 * Never -ENOSYS.  (mlx_hw offers no multicast and nothing past
 * EX_MODIFY_QP; legacy commands end at CREATE_XSRQ or OPEN_QP.)
 */
static void test_unknown_cmds(int fd)
{
	const uint32_t ex = IB_USER_VERBS_CMD_FLAG_EXTENDED;

	/* Out of range: no header check at all. */
	EXPECT(hdr_only(fd, 41, 9), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_COMMAND_MASK, 9), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, ex | IB_USER_VERBS_EX_CMD_MODIFY_CQ, 9),
	       -EOPNOTSUPP);
	EXPECT(hdr_only(fd, ex | (IB_USER_VERBS_EX_CMD_MODIFY_QP + 1), 9),
	       -EOPNOTSUPP);
	/* In range, not implemented: legacy header rules, then EOPNOTSUPP. */
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_POLL_CQ, 9), -EINVAL);
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_POLL_CQ, 4), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_QUERY_MR, 4), -EOPNOTSUPP);
	/* The extended flag on a legacy command: still legacy rules. */
	EXPECT(hdr_only(fd, ex | IB_USER_VERBS_CMD_ALLOC_PD, 9), -EINVAL);
	EXPECT(hdr_only(fd, ex | IB_USER_VERBS_CMD_ALLOC_PD, 4), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, ex | IB_USER_VERBS_CMD_DESTROY_CQ, 4),
	       -EOPNOTSUPP);
	/* An offered command with the same short header: too short. */
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_CREATE_CQ, 4), -ENOSPC);
}

/* The size of @type up to and including @member. */
#define SIZE_TO(type, member)						\
	(offsetof(struct type, member) + sizeof(((struct type *)0)->member))

/* Minimum request and response of each offered command (ib_uverbs). */
static const struct cmd_size {
	uint32_t command;
	uint16_t req, resp;	/* resp 0: the command has no response */
} legacy_sizes[] = {
#define IO(c, req, resp)						\
	{ IB_USER_VERBS_CMD_##c, sizeof(struct req), sizeof(struct resp) }
#define I(c, req) { IB_USER_VERBS_CMD_##c, sizeof(struct req), 0 }
	IO(GET_CONTEXT, ib_uverbs_get_context, ib_uverbs_get_context_resp),
	IO(QUERY_DEVICE, ib_uverbs_query_device, ib_uverbs_query_device_resp),
	IO(QUERY_PORT, ib_uverbs_query_port, ib_uverbs_query_port_resp),
	IO(ALLOC_PD, ib_uverbs_alloc_pd, ib_uverbs_alloc_pd_resp),
	I(DEALLOC_PD, ib_uverbs_dealloc_pd),
	IO(CREATE_AH, ib_uverbs_create_ah, ib_uverbs_create_ah_resp),
	I(DESTROY_AH, ib_uverbs_destroy_ah),
	IO(REG_MR, ib_uverbs_reg_mr, ib_uverbs_reg_mr_resp),
	I(DEREG_MR, ib_uverbs_dereg_mr),
	IO(REREG_MR, ib_uverbs_rereg_mr, ib_uverbs_rereg_mr_resp),
	IO(ALLOC_MW, ib_uverbs_alloc_mw, ib_uverbs_alloc_mw_resp),
	I(DEALLOC_MW, ib_uverbs_dealloc_mw),
	IO(CREATE_COMP_CHANNEL, ib_uverbs_create_comp_channel,
	   ib_uverbs_create_comp_channel_resp),
	IO(CREATE_CQ, ib_uverbs_create_cq, ib_uverbs_create_cq_resp),
	IO(RESIZE_CQ, ib_uverbs_resize_cq, ib_uverbs_resize_cq_resp),
	IO(DESTROY_CQ, ib_uverbs_destroy_cq, ib_uverbs_destroy_cq_resp),
	I(REQ_NOTIFY_CQ, ib_uverbs_req_notify_cq),
	IO(CREATE_QP, ib_uverbs_create_qp, ib_uverbs_create_qp_resp),
	IO(QUERY_QP, ib_uverbs_query_qp, ib_uverbs_query_qp_resp),
	I(MODIFY_QP, ib_uverbs_modify_qp),
	IO(DESTROY_QP, ib_uverbs_destroy_qp, ib_uverbs_destroy_qp_resp),
	IO(CREATE_SRQ, ib_uverbs_create_srq, ib_uverbs_create_srq_resp),
	I(MODIFY_SRQ, ib_uverbs_modify_srq),
	IO(QUERY_SRQ, ib_uverbs_query_srq, ib_uverbs_query_srq_resp),
	IO(DESTROY_SRQ, ib_uverbs_destroy_srq, ib_uverbs_destroy_srq_resp),
	IO(CREATE_XSRQ, ib_uverbs_create_xsrq, ib_uverbs_create_srq_resp),
	IO(OPEN_XRCD, ib_uverbs_open_xrcd, ib_uverbs_open_xrcd_resp),
	I(CLOSE_XRCD, ib_uverbs_close_xrcd),
	IO(OPEN_QP, ib_uverbs_open_qp, ib_uverbs_create_qp_resp),
	I(ATTACH_MCAST, ib_uverbs_attach_mcast),
	I(DETACH_MCAST, ib_uverbs_detach_mcast),
#undef IO
#undef I
}, ex_sizes[] = {
	/* Extended commands: minimum sizes end at the named members. */
#define EX(c, req, req_last, resp, resp_last)				\
	{ IB_USER_VERBS_EX_CMD_##c, SIZE_TO(req, req_last),		\
	  SIZE_TO(resp, resp_last) }
	EX(QUERY_DEVICE, ib_uverbs_ex_query_device, reserved,
	   ib_uverbs_ex_query_device_resp, response_length),
	EX(CREATE_CQ, ib_uverbs_ex_create_cq, reserved,
	   ib_uverbs_ex_create_cq_resp, response_length),
	EX(CREATE_QP, ib_uverbs_ex_create_qp, comp_mask,
	   ib_uverbs_ex_create_qp_resp, response_length),
	EX(MODIFY_QP, ib_uverbs_ex_modify_qp, base,
	   ib_uverbs_ex_modify_qp_resp, response_length),
#undef EX
};

/*
 * What a command of full size answers on a file without a context, as
 * ib_uverbs: destroying looks the handle up in an empty table (-ENOENT);
 * OPEN_XRCD looks at its file first (fd 0, no domain there, no O_CREAT);
 * everything else wants the context (-EINVAL).
 */
static int bare_errno(uint32_t command)
{
	switch (command) {
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DESTROY_AH:
	case IB_USER_VERBS_CMD_DEREG_MR:
	case IB_USER_VERBS_CMD_DEALLOC_MW:
	case IB_USER_VERBS_CMD_DESTROY_CQ:
	case IB_USER_VERBS_CMD_DESTROY_QP:
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
	case IB_USER_VERBS_CMD_CLOSE_XRCD:
		return -ENOENT;
	case IB_USER_VERBS_CMD_OPEN_XRCD:
		return fcntl(0, F_GETFD) < 0 ? -EBADF : -EAGAIN;
	default:
		return -EINVAL;
	}
}

/* A zeroed legacy request of @req bytes with @out_words of response room. */
static int legacy_sized(int fd, uint32_t command, size_t req,
			uint16_t out_words, void *resp)
{
	char b[512] = {};
	struct ib_uverbs_cmd_hdr h = { command, (sizeof(h) + req) / 4,
				       out_words };

	memcpy(b, &h, sizeof(h));
	/* The response pointer leads every request that has a response. */
	if (out_words)
		*(uint64_t *)(b + sizeof(h)) = (uintptr_t)resp;
	return raw_write(fd, b, sizeof(h) + req);
}

/* The same for an extended command (sizes in 8-byte words). */
static int ex_sized(int fd, uint32_t command, uint16_t in_words,
		    uint16_t out_words, void *resp)
{
	char b[512] = {};
	struct ib_uverbs_cmd_hdr h = {
		IB_USER_VERBS_CMD_FLAG_EXTENDED | command, in_words, out_words
	};
	struct ib_uverbs_ex_cmd_hdr x = { .response = (uintptr_t)resp };

	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), &x, sizeof(x));
	return raw_write(fd, b, sizeof(h) + sizeof(x) + in_words * 8);
}

/*
 * Every offered command, on a file without a context (so that nothing
 * can be created by mistake): a request one word short and a response
 * one word short fail -ENOSPC before anything else is looked at (as
 * verify_hdr()); at full size the command gets past the header and fails
 * as bare_errno() says (GET_CONTEXT is not run).
 */
static void test_short_buffers(int fd)
{
	uint64_t resp[64];
	size_t i;

	for (i = 0; i < sizeof(legacy_sizes) / sizeof(legacy_sizes[0]); i++) {
		const struct cmd_size *s = &legacy_sizes[i];
		uint16_t out = s->resp / 4;

		printf("  cmd %u: req %u resp %u\n", s->command, s->req,
		       s->resp);
		EXPECT(legacy_sized(fd, s->command, s->req - 4, out, resp),
		       -ENOSPC);
		if (s->resp)
			EXPECT(legacy_sized(fd, s->command, s->req, out - 1,
					    resp), -ENOSPC);
		if (s->command != IB_USER_VERBS_CMD_GET_CONTEXT)
			EXPECT(legacy_sized(fd, s->command, s->req, out, resp),
			       bare_errno(s->command));
	}
	for (i = 0; i < sizeof(ex_sizes) / sizeof(ex_sizes[0]); i++) {
		const struct cmd_size *s = &ex_sizes[i];
		uint16_t in = (s->req + 7) / 8, out = (s->resp + 7) / 8;

		printf("  ex cmd %u: req %u resp %u\n", s->command, s->req,
		       s->resp);
		EXPECT(ex_sized(fd, s->command, in - 1, out, resp), -ENOSPC);
		/* No response words at all is a malformed header instead. */
		EXPECT(ex_sized(fd, s->command, in, out - 1, resp),
		       out > 1 ? -ENOSPC : -EINVAL);
		EXPECT(ex_sized(fd, s->command, in, out, resp), -EINVAL);
	}
}

void test_hdr(void)
{
	struct ib_uverbs_alloc_pd pdreq = {};
	struct ib_uverbs_alloc_pd_resp pdresp;
	struct ib_uverbs_query_device qd = {};
	struct ib_uverbs_query_device_resp qdr;
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context gc = {};
	struct {
		struct ib_uverbs_get_context_resp r;
		char udata[UDATA_OUT];
	} gcr;
	struct {
		struct ib_uverbs_ex_query_device_resp r;
	} exr;
	struct ib_uverbs_ex_query_device exq = {};
	int fd = open(uverbs_path, O_RDWR);
	char buf[64] = {};

	VERIFY(fd >= 0, "open %s: %m", uverbs_path);
	if (fd < 0)
		return;
	/* Shorter than a header. */
	EXPECT(raw_write(fd, buf, 4), -EINVAL);
	/* in_words disagreeing with the write size. */
	hdr = (struct ib_uverbs_cmd_hdr){ IB_USER_VERBS_CMD_ALLOC_PD, 6, 2 };
	memcpy(buf, &hdr, sizeof(hdr));
	EXPECT(raw_write(fd, buf, 16), -EINVAL);
	/* Unknown command numbers and flag bits. */
	EXPECT(cmd(fd, 200, &pdreq, sizeof(pdreq), &pdresp, sizeof(pdresp)),
	       -EOPNOTSUPP);
	EXPECT(cmd(fd, 0x40000000 | IB_USER_VERBS_CMD_ALLOC_PD, &pdreq,
		   sizeof(pdreq), &pdresp, sizeof(pdresp)), -EINVAL);
	/* In the ABI but not offered: kernel-posted work requests. */
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_POST_SEND, buf, 24, buf, 8),
	       -EOPNOTSUPP);
	test_unknown_cmds(fd);
	test_short_buffers(fd);
	/* Everything but GET_CONTEXT needs a context. */
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &pdreq, sizeof(pdreq),
		   &pdresp, sizeof(pdresp)), -EINVAL);
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &qd, sizeof(qd), &qdr,
		   sizeof(qdr)), -EINVAL);
	/* Responses too short for the core struct. */
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc), &gcr,
		   4), -ENOSPC);
	/* A request too short for the core struct. */
	hdr = (struct ib_uverbs_cmd_hdr){ IB_USER_VERBS_CMD_QUERY_PORT, 4, 8 };
	memcpy(buf, &hdr, sizeof(hdr));
	EXPECT(raw_write(fd, buf, 16), -ENOSPC);
	/* A response pointer that cannot be written. */
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc),
		   (void *)8, sizeof(gcr)), -EFAULT);
	/* The failed attempt left no context behind. */
	memset(&gcr, 0, sizeof(gcr));
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc), &gcr,
		   sizeof(gcr)), 0);
	VERIFY(gcr.r.async_fd > 2 && gcr.r.num_comp_vectors >= 1,
	      "async_fd %u vectors %u", gcr.r.async_fd,
	      gcr.r.num_comp_vectors);
	VERIFY(fcntl(gcr.r.async_fd, F_GETFD) == FD_CLOEXEC,
	      "async fd not close-on-exec");
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc), &gcr,
		   sizeof(gcr)), -EINVAL);

	EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &qd, sizeof(qd), &qdr,
		   sizeof(qdr)), 0);
	VERIFY(qdr.phys_port_cnt == 1, "phys_port_cnt %u", qdr.phys_port_cnt);

	/* QUERY_PORT: ports are 1..phys_port_cnt; the core adds the GIDs. */
	{
		struct ib_uverbs_query_port q = { .port_num = 1 };
		struct ib_uverbs_query_port_resp r = {};

		EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), &r,
			   sizeof(r)), 0);
		VERIFY(r.gid_tbl_len == 16 && r.link_layer == 2 /* Ethernet */ &&
		      r.state == 4 && r.active_mtu >= 1 && r.active_mtu <= 5,
		      "port: gids %u link %u state %u mtu %u", r.gid_tbl_len,
		      r.link_layer, r.state, r.active_mtu);
		q.port_num = 0;
		EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), &r,
			   sizeof(r)), -EINVAL);
		q.port_num = 2;
		EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), &r,
			   sizeof(r)), -EINVAL);
	}
	/* Extended header. */
	memset(&exr, 0xff, sizeof(exr));
	EXPECT(ex_cmd(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &exq, sizeof(exq),
		      &exr, sizeof(exr)), 0);
	VERIFY(exr.r.response_length == sizeof(exr.r) &&
	      exr.r.base.phys_port_cnt == 1 && exr.r.reserved == 0,
	      "ex query: length %u ports %u", exr.r.response_length,
	      exr.r.base.phys_port_cnt);
	/* A shorter response buffer is allowed down to response_length. */
	EXPECT(ex_cmd(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &exq, sizeof(exq),
		      &exr, 8), -ENOSPC);
	exq.comp_mask = 1;
	EXPECT(ex_cmd(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &exq, sizeof(exq),
		      &exr, sizeof(exr)), -EINVAL);
	exq.comp_mask = 0;
	/* Output words without a response pointer. */
	{
		struct ib_uverbs_cmd_hdr h = {
			IB_USER_VERBS_CMD_FLAG_EXTENDED |
			IB_USER_VERBS_EX_CMD_QUERY_DEVICE, 1, 4 };
		struct ib_uverbs_ex_cmd_hdr x = {};
		char b[64] = {};

		memcpy(b, &h, sizeof(h));
		memcpy(b + sizeof(h), &x, sizeof(x));
		EXPECT(raw_write(fd, b, sizeof(h) + sizeof(x) + 8), -EINVAL);
		x.response = (uintptr_t)&exr;
		x.cmd_hdr_reserved = 1;
		memcpy(b + sizeof(h), &x, sizeof(x));
		EXPECT(raw_write(fd, b, sizeof(h) + sizeof(x) + 8), -EINVAL);
		/* provider_in_words not matching the write size */
		x.cmd_hdr_reserved = 0;
		x.provider_in_words = 1;
		memcpy(b + sizeof(h), &x, sizeof(x));
		EXPECT(raw_write(fd, b, sizeof(h) + sizeof(x) + 8), -EINVAL);
	}
	/* Unknown extended command. */
	EXPECT(ex_cmd(fd, 0x7f, &exq, sizeof(exq), &exr, sizeof(exr)),
	       -EOPNOTSUPP);
	/* The ioctl ABI is not offered: rdma-core falls back to write(). */
	VERIFY(ioctl(fd, RDMA_VERBS_IOCTL, buf) == -1 && errno == ENOTTY,
	      "RDMA_VERBS_IOCTL: %m");
	close(gcr.r.async_fd);
	close(fd);
}

