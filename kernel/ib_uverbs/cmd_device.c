// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_device.c - commands about the device and the context: GET_CONTEXT,
 * QUERY_DEVICE, EX_QUERY_DEVICE, QUERY_PORT, CREATE_COMP_CHANNEL.
 */
#include <linux/module.h>
#include <linux/file.h>
#include <linux/slab.h>
#include "core_priv.h"

IBX_CMD(get_context)
{
	struct ibx_ufile *uf = c->uf;
	struct ibx_core_dev *core = uf->core;
	struct ibx_device *dev = core->ibdev;
	struct ib_uverbs_get_context_resp resp = {};
	struct ib_uverbs_get_context cmd;
	struct ibx_ucontext *uctx;
	struct ibx_event_file *ef;
	unsigned long flags;
	struct file *filp;
	int fd, ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (uf->ucontext)
		return -EINVAL;

	uctx = kzalloc(max(dev->ops->size_ucontext, sizeof(*uctx)), GFP_KERNEL);
	ef = ibx_event_file_alloc(true, uf);
	if (!uctx || !ef) {
		ret = -ENOMEM;
		goto err_free;
	}
	uctx->dev = dev;
	uctx->core_priv = uf;

	fd = ibx_event_file_open(ef, &filp);
	if (fd < 0) {
		ret = fd;
		goto err_free;
	}
	if (dev->ops->alloc_ucontext) {
		ret = dev->ops->alloc_ucontext(uctx, &c->udata);
		if (ret)
			goto err_file;
	}
	resp.async_fd = fd;
	resp.num_comp_vectors = max(dev->num_comp_vectors, 1u);
	ret = ibx_cmd_out(c, &resp, sizeof(resp));
	if (ret)
		goto err_uctx;

	uf->ucontext = uctx;
	uf->async_file = ef;
	spin_lock_irqsave(&core->event_lock, flags);
	list_add_tail(&ef->dev_node, &core->async_files);
	spin_unlock_irqrestore(&core->event_lock, flags);
	fd_install(fd, filp);
	return 0;

err_uctx:
	if (dev->ops->dealloc_ucontext)
		dev->ops->dealloc_ucontext(uctx);
err_file:
	fput(filp);
	put_unused_fd(fd);
err_free:
	ibx_event_file_put(ef);
	kfree(uctx);
	return ret;
}

IBX_CMD(query_device)
{
	struct ib_uverbs_query_device cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	if (IS_ERR(ibx_cmd_ucontext(c)))
		return -EINVAL;
	return ibx_cmd_out(c, &c->uf->core->ibdev->attr.base,
			   sizeof(struct ib_uverbs_query_device_resp));
}

IBX_CMD(ex_query_device)
{
	struct ib_uverbs_ex_query_device_resp resp;
	struct ib_uverbs_ex_query_device cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;
	if (IS_ERR(ibx_cmd_ucontext(c)))
		return -EINVAL;
	resp = c->uf->core->ibdev->attr;
	resp.response_length = ibx_cmd_resp_len(c, sizeof(resp));
	return ibx_cmd_out(c, &resp, sizeof(resp));
}

IBX_CMD(query_port)
{
	struct ib_uverbs_query_port_resp resp;
	struct ib_uverbs_query_port cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	if (IS_ERR(ibx_cmd_ucontext(c)))
		return -EINVAL;
	ret = ibx_port_query(c->uf->core->ibdev, cmd.port_num, &resp);
	if (ret)
		return ret;
	return ibx_cmd_out(c, &resp, sizeof(resp));
}

IBX_CMD(create_comp_channel)
{
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct ib_uverbs_create_comp_channel cmd;
	struct ibx_event_file *ef;
	struct file *filp;
	int fd, ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (IS_ERR(ibx_cmd_ucontext(c)))
		return -EINVAL;
	ef = ibx_event_file_alloc(false, c->uf);
	if (!ef)
		return -ENOMEM;
	fd = ibx_event_file_open(ef, &filp);
	if (fd < 0) {
		ibx_event_file_put(ef);
		return fd;
	}
	resp.fd = fd;
	ret = ibx_cmd_out(c, &resp, sizeof(resp));
	if (ret) {
		fput(filp);
		put_unused_fd(fd);
		ibx_event_file_put(ef);
		return ret;
	}
	/* Our reference: closed (reads -EIO) when the context goes away. */
	list_add_tail(&ef->dev_node, &c->uf->comp_channels);
	fd_install(fd, filp);
	return 0;
}
