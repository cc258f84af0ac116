// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ucma_cmd_mc.c - multicast membership commands (JOIN_IP_MCAST,
 * JOIN_MCAST, LEAVE_MCAST) and MIGRATE_ID, which moves an id with its
 * memberships and unread events to another file.
 */
#include <linux/slab.h>
#include <linux/file.h>
#include <linux/uaccess.h>
#include "ucma.h"
#include "ibx_compat.h"

/* Frees the unread events of @mc; file->mut held. */
static void ucma_drop_mc_events(struct ucma_file *file,
				struct ucma_multicast *mc)
{
	struct ucma_event *e, *tmp;

	lockdep_assert_held(&file->mut);
	list_for_each_entry_safe(e, tmp, &file->event_list, list) {
		if (e->mc != mc)
			continue;
		list_del(&e->list);
		kfree(e);
	}
}

static int ucma_process_join(struct ucma_file *file, u32 idnum, u64 uid,
			     u64 response, const struct sockaddr *addr,
			     u16 join_flags, int out_len)
{
	struct rdma_ucm_create_id_resp resp;
	struct ucma_multicast *mc;
	struct ucma_context *ctx;
	struct cma_mcast *cmc;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (join_flags != RDMA_MC_JOIN_FLAG_FULLMEMBER &&
	    join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return -EINVAL;
	ctx = ucma_get_ctx_dev(file, idnum);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc) {
		ret = -ENOMEM;
		goto err_put;
	}
	mc->ctx = ctx;
	mc->uid = uid;
	ret = xa_alloc(&ucma_mc_table, &mc->id, NULL, xa_limit_32b,
		       GFP_KERNEL);
	if (ret)
		goto err_free;
	mutex_lock(&ctx->cid->lock);
	ret = cma_join_multicast(ctx->cid, addr, join_flags, mc, &cmc);
	mutex_unlock(&ctx->cid->lock);
	if (ret)
		goto err_xa;
	mc->cmc = cmc;
	resp.id = mc->id;
	if (copy_to_user(u64_to_user_ptr(response), &resp, sizeof(resp))) {
		ret = -EFAULT;
		goto err_leave;
	}
	mutex_lock(&file->mut);
	list_add_tail(&mc->list, &ctx->mc_list);
	mutex_unlock(&file->mut);
	xa_store(&ucma_mc_table, mc->id, mc, GFP_KERNEL);
	ucma_put_ctx(ctx);
	return 0;

err_leave:
	cma_leave_multicast(ctx->cid, cmc);
	/* Its MULTICAST_JOIN may already be queued; it goes with it. */
	mutex_lock(&file->mut);
	ucma_drop_mc_events(file, mc);
	mutex_unlock(&file->mut);
err_xa:
	xa_erase(&ucma_mc_table, mc->id);
err_free:
	kfree(mc);
err_put:
	ucma_put_ctx(ctx);
	return ret;
}

UCMA_HANDLER(ucma_join_ip_multicast)
{
	struct rdma_ucm_join_ip_mcast *c = cmd;
	struct sockaddr *addr = (struct sockaddr *)&c->addr;

	if (!ucma_addr_size(addr, sizeof(c->addr)))
		return -EINVAL;
	return ucma_process_join(file, c->id, c->uid, c->response, addr,
				 RDMA_MC_JOIN_FLAG_FULLMEMBER, out_len);
}

UCMA_HANDLER(ucma_join_multicast)
{
	struct rdma_ucm_join_mcast *c = cmd;
	struct sockaddr *addr = (struct sockaddr *)&c->addr;
	size_t size = ucma_addr_size(addr, sizeof(c->addr));

	if (!size || c->addr_size != size)
		return -EINVAL;
	return ucma_process_join(file, c->id, c->uid, c->response, addr,
				 c->join_flags, out_len);
}

UCMA_HANDLER(ucma_leave_multicast)
{
	struct rdma_ucm_destroy_id *c = cmd;
	struct rdma_ucm_destroy_id_resp resp;
	struct ucma_multicast *mc;
	struct ucma_context *ctx;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	xa_lock(&ucma_mc_table);
	mc = xa_load(&ucma_mc_table, c->id);
	if (!mc)
		mc = ERR_PTR(-ENOENT);
	else if (READ_ONCE(mc->ctx->file) != file)
		mc = ERR_PTR(-EINVAL);
	else if (!refcount_inc_not_zero(&mc->ctx->ref))
		mc = ERR_PTR(-ENOENT);	/* its id is being destroyed */
	else
		__xa_erase(&ucma_mc_table, mc->id);
	xa_unlock(&ucma_mc_table);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	ctx = mc->ctx;
	cma_leave_multicast(ctx->cid, mc->cmc);	/* no event after this */
	mutex_lock(&ctx->file->mut);
	ucma_drop_mc_events(ctx->file, mc);
	list_del(&mc->list);
	resp.events_reported = mc->events_reported;
	mutex_unlock(&ctx->file->mut);
	kfree(mc);
	ucma_put_ctx(ctx);
	if (copy_to_user(u64_to_user_ptr(c->response), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

/* Moves @ctx's unread events (its memberships' too) in queue order. */
static void ucma_move_events(struct ucma_context *ctx, struct ucma_file *to)
{
	struct ucma_event *e, *tmp;

	list_for_each_entry_safe(e, tmp, &ctx->file->event_list, list)
		if (e->ctx == ctx)
			list_move_tail(&e->list, &to->event_list);
}

/*
 * Written to the new file; cmd.fd is the file the id belongs to now.
 * The id's lock keeps its handler from queueing to the old file while
 * the context moves.
 */
UCMA_HANDLER(ucma_migrate_id)
{
	struct rdma_ucm_migrate_id *c = cmd;
	struct rdma_ucm_migrate_resp resp;
	struct ucma_file *cur;
	struct ucma_context *ctx;
	struct fd f;
	int ret = 0;

	f = fdget(c->fd);
	if (!fd_file(f))
		return -ENOENT;
	if (fd_file(f)->f_op != &ucma_fops) {
		ret = -EINVAL;
		goto out_fd;
	}
	cur = fd_file(f)->private_data;
	ctx = ucma_get_ctx(cur, c->id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_fd;
	}
	mutex_lock(&ctx->cid->lock);
	if (cur == file) {
		mutex_lock(&file->mut);
		resp.events_reported = ctx->events_reported;
		mutex_unlock(&file->mut);
	} else {
		ucma_lock_files(cur, file);
		list_move_tail(&ctx->list, &file->ctx_list);
		ucma_move_events(ctx, file);
		WRITE_ONCE(ctx->file, file);
		resp.events_reported = ctx->events_reported;
		ucma_unlock_files(cur, file);
	}
	mutex_unlock(&ctx->cid->lock);
	wake_up_interruptible(&file->poll_wait);	/* moved events wake it */
	if (copy_to_user(u64_to_user_ptr(c->response), &resp, sizeof(resp)))
		ret = -EFAULT;
	ucma_put_ctx(ctx);
out_fd:
	fdput(f);
	return ret;
}
