// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd.c - the write() command ABI of <rdma/ib_user_verbs.h>: header
 * validation, the command table with minimum sizes, and the split of the
 * buffers into the core part and the driver's udata.  Errors follow the
 * in-tree ib_uverbs: -EINVAL for a malformed header, -ENOSPC for buffers
 * shorter than the command's structs, -EOPNOTSUPP for commands that do not
 * exist or that the driver cannot do.
 *
 * Unknown commands as uapi_get_method()/ib_uverbs_write() (6.x): flag bits
 * outside FLAG_EXTENDED|COMMAND_MASK are -EINVAL; an index at or above the
 * highest command the device offers (+1) is -EOPNOTSUPP at once; below it,
 * a command the core or the driver does not implement resolves to a
 * "not supported" method that is legacy-shaped even under the extended
 * flag, so its header is checked by the legacy rules (-EINVAL when
 * in_words disagrees with the write size) before it fails -EOPNOTSUPP.
 * The write() path never returns -ENOSYS (kernels before 4.20 did).
 */
#include <linux/module.h>
#include <linux/uaccess.h>
#include "core_priv.h"

struct ibx_cmd_def {
	int (*handler)(struct ibx_cmd *c);
	u16 req_size;		/* minimum core request */
	u16 resp_size;		/* minimum core response */
	bool has_resp;		/* request starts with the u64 response */
	bool has_udata;		/* driver data follows the core structs */
	bool is_ex;		/* extended header */
	/* 1 + offset of the driver op it needs in ibx_device_ops, or 0. */
	u16 needs_op;
};

/* The last, optional argument of the CMD_* macros names the op needed. */
#define NEEDS(...)	(0 __VA_OPT__(+ 1 +				\
			 offsetof(struct ibx_device_ops, __VA_ARGS__)))

#define CMD_IO(_h, _req, _resp, _udata, ...) {				\
	.handler = ibx_cmd_##_h, .req_size = sizeof(struct _req),	\
	.resp_size = sizeof(struct _resp), .has_resp = true,		\
	.has_udata = _udata, .needs_op = NEEDS(__VA_ARGS__) }
#define CMD_I(_h, _req, _udata, ...) {					\
	.handler = ibx_cmd_##_h, .req_size = sizeof(struct _req),	\
	.has_udata = _udata, .needs_op = NEEDS(__VA_ARGS__) }
/* Extended commands: minimum sizes end at the named members. */
#define CMD_EX(_h, _req, _req_last, _resp, _resp_last, ...) {		\
	.handler = ibx_cmd_##_h,					\
	.req_size = offsetofend(struct _req, _req_last),		\
	.resp_size = offsetofend(struct _resp, _resp_last),		\
	.has_resp = true, .has_udata = true, .is_ex = true,		\
	.needs_op = NEEDS(__VA_ARGS__) }

static const struct ibx_cmd_def ibx_cmds[] = {
	[IB_USER_VERBS_CMD_GET_CONTEXT] = CMD_IO(get_context,
		ib_uverbs_get_context, ib_uverbs_get_context_resp, true),
	[IB_USER_VERBS_CMD_QUERY_DEVICE] = CMD_IO(query_device,
		ib_uverbs_query_device, ib_uverbs_query_device_resp, false),
	[IB_USER_VERBS_CMD_QUERY_PORT] = CMD_IO(query_port,
		ib_uverbs_query_port, ib_uverbs_query_port_resp, false),
	[IB_USER_VERBS_CMD_ALLOC_PD] = CMD_IO(alloc_pd,
		ib_uverbs_alloc_pd, ib_uverbs_alloc_pd_resp, true, alloc_pd),
	[IB_USER_VERBS_CMD_DEALLOC_PD] = CMD_I(dealloc_pd,
		ib_uverbs_dealloc_pd, false, dealloc_pd),
	[IB_USER_VERBS_CMD_CREATE_AH] = CMD_IO(create_ah,
		ib_uverbs_create_ah, ib_uverbs_create_ah_resp, true, create_ah),
	[IB_USER_VERBS_CMD_DESTROY_AH] = CMD_I(destroy_ah,
		ib_uverbs_destroy_ah, false, destroy_ah),
	[IB_USER_VERBS_CMD_REG_MR] = CMD_IO(reg_mr,
		ib_uverbs_reg_mr, ib_uverbs_reg_mr_resp, true, reg_mr),
	[IB_USER_VERBS_CMD_DEREG_MR] = CMD_I(dereg_mr,
		ib_uverbs_dereg_mr, false, dereg_mr),
	[IB_USER_VERBS_CMD_REREG_MR] = CMD_IO(rereg_mr,
		ib_uverbs_rereg_mr, ib_uverbs_rereg_mr_resp, true, rereg_mr),
	[IB_USER_VERBS_CMD_ALLOC_MW] = CMD_IO(alloc_mw,
		ib_uverbs_alloc_mw, ib_uverbs_alloc_mw_resp, true, alloc_mw),
	[IB_USER_VERBS_CMD_DEALLOC_MW] = CMD_I(dealloc_mw,
		ib_uverbs_dealloc_mw, false, dealloc_mw),
	[IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL] = CMD_IO(create_comp_channel,
		ib_uverbs_create_comp_channel,
		ib_uverbs_create_comp_channel_resp, false),
	[IB_USER_VERBS_CMD_CREATE_CQ] = CMD_IO(create_cq,
		ib_uverbs_create_cq, ib_uverbs_create_cq_resp, true, create_cq),
	[IB_USER_VERBS_CMD_RESIZE_CQ] = CMD_IO(resize_cq,
		ib_uverbs_resize_cq, ib_uverbs_resize_cq_resp, true, resize_cq),
	[IB_USER_VERBS_CMD_DESTROY_CQ] = CMD_IO(destroy_cq,
		ib_uverbs_destroy_cq, ib_uverbs_destroy_cq_resp, false,
		destroy_cq),
	[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] = CMD_I(req_notify_cq,
		ib_uverbs_req_notify_cq, false, req_notify_cq),
	[IB_USER_VERBS_CMD_CREATE_QP] = CMD_IO(create_qp,
		ib_uverbs_create_qp, ib_uverbs_create_qp_resp, true, create_qp),
	[IB_USER_VERBS_CMD_QUERY_QP] = CMD_IO(query_qp,
		ib_uverbs_query_qp, ib_uverbs_query_qp_resp, false),
	[IB_USER_VERBS_CMD_MODIFY_QP] = CMD_I(modify_qp,
		ib_uverbs_modify_qp, true, modify_qp),
	[IB_USER_VERBS_CMD_DESTROY_QP] = CMD_IO(destroy_qp,
		ib_uverbs_destroy_qp, ib_uverbs_destroy_qp_resp, false,
		destroy_qp),
	[IB_USER_VERBS_CMD_ATTACH_MCAST] = CMD_I(attach_mcast,
		ib_uverbs_attach_mcast, false, attach_mcast),
	[IB_USER_VERBS_CMD_DETACH_MCAST] = CMD_I(detach_mcast,
		ib_uverbs_detach_mcast, false, detach_mcast),
	[IB_USER_VERBS_CMD_CREATE_SRQ] = CMD_IO(create_srq,
		ib_uverbs_create_srq, ib_uverbs_create_srq_resp, true,
		create_srq),
	[IB_USER_VERBS_CMD_MODIFY_SRQ] = CMD_I(modify_srq,
		ib_uverbs_modify_srq, true, modify_srq),
	[IB_USER_VERBS_CMD_QUERY_SRQ] = CMD_IO(query_srq,
		ib_uverbs_query_srq, ib_uverbs_query_srq_resp, false,
		query_srq),
	[IB_USER_VERBS_CMD_DESTROY_SRQ] = CMD_IO(destroy_srq,
		ib_uverbs_destroy_srq, ib_uverbs_destroy_srq_resp, false,
		destroy_srq),
	[IB_USER_VERBS_CMD_CREATE_XSRQ] = CMD_IO(create_xsrq,
		ib_uverbs_create_xsrq, ib_uverbs_create_srq_resp, true,
		create_srq),
	[IB_USER_VERBS_CMD_OPEN_XRCD] = CMD_IO(open_xrcd,
		ib_uverbs_open_xrcd, ib_uverbs_open_xrcd_resp, true,
		alloc_xrcd),
	[IB_USER_VERBS_CMD_CLOSE_XRCD] = CMD_I(close_xrcd,
		ib_uverbs_close_xrcd, false, dealloc_xrcd),
	[IB_USER_VERBS_CMD_OPEN_QP] = CMD_IO(open_qp,
		ib_uverbs_open_qp, ib_uverbs_create_qp_resp, true, create_qp),
};

static const struct ibx_cmd_def ibx_ex_cmds[] = {
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = CMD_EX(ex_query_device,
		ib_uverbs_ex_query_device, reserved,
		ib_uverbs_ex_query_device_resp, response_length),
	[IB_USER_VERBS_EX_CMD_CREATE_CQ] = CMD_EX(ex_create_cq,
		ib_uverbs_ex_create_cq, reserved,
		ib_uverbs_ex_create_cq_resp, response_length, create_cq),
	[IB_USER_VERBS_EX_CMD_CREATE_QP] = CMD_EX(ex_create_qp,
		ib_uverbs_ex_create_qp, comp_mask,
		ib_uverbs_ex_create_qp_resp, response_length, create_qp),
	[IB_USER_VERBS_EX_CMD_MODIFY_QP] = CMD_EX(ex_modify_qp,
		ib_uverbs_ex_modify_qp, base,
		ib_uverbs_ex_modify_qp_resp, response_length, modify_qp),
};

/*
 * What a command the core or the driver does not implement resolves to:
 * legacy-shaped, no minimum sizes, fails -EOPNOTSUPP once its header
 * passed (upstream's notsupp_method).
 */
static const struct ibx_cmd_def ibx_cmd_unsupported;

static bool ibx_cmd_offered(const struct ibx_device_ops *ops,
			    const struct ibx_cmd_def *def)
{
	if (!def->handler)
		return false;
	return !def->needs_op ||
	       *(void *const *)((const u8 *)ops + def->needs_op - 1);
}

/* Resolves @idx in @table; a command at or above the last offered is out. */
static const struct ibx_cmd_def *
ibx_cmd_find(const struct ibx_device_ops *ops, const struct ibx_cmd_def *table,
	     size_t n, u32 idx)
{
	size_t num = n;

	while (num && !ibx_cmd_offered(ops, &table[num - 1]))
		num--;
	if (idx >= num)
		return ERR_PTR(-EOPNOTSUPP);
	return ibx_cmd_offered(ops, &table[idx]) ? &table[idx] :
						   &ibx_cmd_unsupported;
}

static const struct ibx_cmd_def *
ibx_cmd_lookup(const struct ibx_device_ops *ops, u32 command)
{
	u32 idx = command & IB_USER_VERBS_CMD_COMMAND_MASK;

	if (command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			IB_USER_VERBS_CMD_COMMAND_MASK))
		return ERR_PTR(-EINVAL);
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		return ibx_cmd_find(ops, ibx_ex_cmds, ARRAY_SIZE(ibx_ex_cmds),
				    idx);
	return ibx_cmd_find(ops, ibx_cmds, ARRAY_SIZE(ibx_cmds), idx);
}

static int ibx_verify_hdr(struct ib_uverbs_cmd_hdr *hdr,
			  struct ib_uverbs_ex_cmd_hdr *ex, size_t count,
			  const struct ibx_cmd_def *def)
{
	if (def->is_ex) {
		count -= sizeof(*hdr) + sizeof(*ex);
		if (((size_t)hdr->in_words + ex->provider_in_words) * 8 != count)
			return -EINVAL;
		if (hdr->in_words * 8 < def->req_size)
			return -ENOSPC;
		if (ex->cmd_hdr_reserved)
			return -EINVAL;
		if (ex->response) {
			if (!hdr->out_words && !ex->provider_out_words)
				return -EINVAL;
			if (hdr->out_words * 8 < def->resp_size)
				return -ENOSPC;
			if (!access_ok(u64_to_user_ptr(ex->response),
				       ((size_t)hdr->out_words +
					ex->provider_out_words) * 8))
				return -EFAULT;
		} else if (hdr->out_words || ex->provider_out_words) {
			return -EINVAL;
		}
		return 0;
	}
	if (hdr->in_words * 4 != count)
		return -EINVAL;
	if (count < def->req_size + sizeof(*hdr))
		return -ENOSPC;
	if (hdr->out_words * 4 < def->resp_size)
		return -ENOSPC;
	return 0;
}

/* Runs one command of a live file (teardown_rwsem held for read). */
static int ibx_cmd_run(struct ibx_ufile *uf, const char __user *buf,
		       size_t count, struct ib_uverbs_cmd_hdr hdr)
{
	struct ib_uverbs_ex_cmd_hdr ex = {};
	const struct ibx_cmd_def *def;
	struct ibx_cmd c = { .uf = uf };
	int ret;

	lockdep_assert_held_read(&uf->teardown_rwsem);
	def = ibx_cmd_lookup(uf->core->ibdev->ops, hdr.command);
	if (IS_ERR(def))
		return PTR_ERR(def);
	if (def->is_ex) {
		if (count < sizeof(hdr) + sizeof(ex))
			return -EINVAL;
		if (copy_from_user(&ex, buf + sizeof(hdr), sizeof(ex)))
			return -EFAULT;
	}
	ret = ibx_verify_hdr(&hdr, &ex, count, def);
	if (ret)
		return ret;
	if (!def->handler)
		return -EOPNOTSUPP;

	buf += sizeof(hdr);
	if (!def->is_ex) {
		size_t in_len = hdr.in_words * 4 - sizeof(hdr);
		size_t out_len = hdr.out_words * 4;
		u64 response = 0;

		if (def->has_udata) {
			c.udata.inlen = in_len - def->req_size;
			c.udata.inbuf = c.udata.inlen ? buf + def->req_size : NULL;
			in_len = def->req_size;
		}
		if (def->has_resp) {
			/* Every such request starts with the response pointer. */
			if (get_user(response, (const u64 __user *)buf))
				return -EFAULT;
			if (def->has_udata) {
				c.udata.outlen = out_len - def->resp_size;
				c.udata.outbuf = c.udata.outlen ?
					u64_to_user_ptr(response +
							def->resp_size) : NULL;
				out_len = def->resp_size;
			}
		} else {
			out_len = 0;
		}
		c.inbuf = buf;
		c.inlen = in_len;
		c.outbuf = u64_to_user_ptr(response);
		c.outlen = out_len;
	} else {
		buf += sizeof(ex);
		c.inbuf = buf;
		c.inlen = hdr.in_words * 8;
		c.outbuf = u64_to_user_ptr(ex.response);
		c.outlen = hdr.out_words * 8;
		c.udata.inlen = ex.provider_in_words * 8;
		c.udata.inbuf = c.udata.inlen ? buf + c.inlen : NULL;
		c.udata.outlen = ex.provider_out_words * 8;
		c.udata.outbuf = c.udata.outlen ?
			u64_to_user_ptr(ex.response + c.outlen) : NULL;
	}

	mutex_lock(&uf->cmd_mutex);
	ret = def->handler(&c);
	mutex_unlock(&uf->cmd_mutex);
	return ret;
}

ssize_t ibx_cmd_dispatch(struct ibx_ufile *uf, const char __user *buf,
			 size_t count)
{
	struct ib_uverbs_cmd_hdr hdr;
	int ret;

	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	/* A disassociated file has no device (ops) left to look up. */
	down_read(&uf->teardown_rwsem);
	ret = uf->torn_down ? -EIO : ibx_cmd_run(uf, buf, count, hdr);
	up_read(&uf->teardown_rwsem);
	return ret ? ret : count;
}

/*
 * Copies the core request: missing trailing bytes read as zero, extra
 * bytes (a newer userspace) must be zero or the command is unsupported.
 */
int ibx_cmd_in(struct ibx_cmd *c, void *req, size_t len)
{
	size_t n = min(len, c->inlen);

	if (copy_from_user(req, c->inbuf, n))
		return -EFAULT;
	memset((u8 *)req + n, 0, len - n);
	if (c->inlen > len) {
		const u8 __user *p = (const u8 __user *)c->inbuf + len;
		size_t i;
		u8 b;

		for (i = 0; i < c->inlen - len; i++) {
			if (get_user(b, p + i))
				return -EFAULT;
			if (b)
				return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* Writes the core response; room beyond it is zeroed, as ib_uverbs does. */
int ibx_cmd_out(struct ibx_cmd *c, const void *resp, size_t len)
{
	size_t n = min(len, c->outlen);

	if (n && copy_to_user(c->outbuf, resp, n))
		return -EFAULT;
	if (c->outlen > n && clear_user((u8 __user *)c->outbuf + n,
					c->outlen - n))
		return -EFAULT;
	return 0;
}

/* response_length of an extended response. */
size_t ibx_cmd_resp_len(struct ibx_cmd *c, size_t len)
{
	return min(len, c->outlen);
}

struct ibx_ucontext *ibx_cmd_ucontext(struct ibx_cmd *c)
{
	return c->uf->ucontext ? c->uf->ucontext : ERR_PTR(-EINVAL);
}

int ibx_cmd_commit(struct ibx_cmd *c, struct ibx_uobj *uo, const void *resp,
		   size_t len)
{
	int ret = ibx_cmd_out(c, resp, len);

	if (ret) {
		/* Userspace never learnt the handle: undo the create. */
		ibx_uobj_destroy(uo);
		return ret;
	}
	ibx_uobj_publish(uo);
	return 0;
}
